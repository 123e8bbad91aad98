#include "ropelab/sweep.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "ropelab/limits.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/temperature.hpp"

namespace ropelab::sweep {

namespace {

// NumPy's SeedSequence constants (numpy/random/bit_generator.pyx).
constexpr std::uint32_t kInitA = 0x43b0d7e5U;
constexpr std::uint32_t kMultA = 0x931e8875U;
constexpr std::uint32_t kInitB = 0x8b51f9ddU;
constexpr std::uint32_t kMultB = 0x58f38dedU;
constexpr std::uint32_t kMixMultL = 0xca01f9ddU;
constexpr std::uint32_t kMixMultR = 0x4973f715U;
constexpr unsigned kXShift = 16;
constexpr std::size_t kPoolSize = 4;

std::uint32_t hashmix(std::uint32_t value, std::uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

std::uint32_t mix(std::uint32_t x, std::uint32_t y) {
  std::uint32_t result = kMixMultL * x - kMixMultR * y;
  result ^= result >> kXShift;
  return result;
}

/// An integer ≥ 0 as little-endian 32-bit words ([0] for 0), as SeedSequence coerces it.
void append_words(std::uint64_t v, std::vector<std::uint32_t>& out) {
  if (v == 0) {
    out.push_back(0);
    return;
  }
  while (v != 0) {
    out.push_back(static_cast<std::uint32_t>(v & 0xffffffffU));
    v >>= 32;
  }
}

/// Shortest "%.15g"/"%.17g" text that reads back as x (for messages).
std::string number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.15g", x);
  if (std::strtod(buf, nullptr) != x) std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

const char* rule_name(SigmaRule r) {
  switch (r) {
    case SigmaRule::paper:
      return "paper";
    case SigmaRule::unbiased:
      return "unbiased";
    case SigmaRule::optimal:
      return "optimal";
    case SigmaRule::value:
      break;
  }
  return "value";
}

rff::EstimateOptions estimate_options(const MseCell& c, double sigma, int nthreads) {
  rff::EstimateOptions opt;
  opt.D = c.D;
  opt.sigma = sigma;
  opt.estimator = c.estimator;
  opt.convention = c.convention;
  opt.seed = c.seed;
  opt.full = c.full;
  opt.nthreads = nthreads;
  return opt;
}

/// q = e₁, k = ξ e₁ + √(1−ξ²) e₂ in R^d (ropelab.temperature.unit_pair).
void unit_pair(double xi, std::size_t d, std::vector<double>& q, std::vector<double>& k) {
  q.assign(d, 0.0);
  k.assign(d, 0.0);
  q[0] = 1.0;
  k[0] = xi;
  k[1] = std::sqrt((1.0 - xi) * (1.0 + xi));
}

/// Mean and sample standard deviation (n − 1) of x[0..n), each sum correctly rounded; `dev` is
/// scratch of length n.
void mean_std(const double* x, std::size_t n, double* dev, double& mean, double& std_dev) {
  mean = exactly_rounded_sum(x, n) / static_cast<double>(n);
  if (n < 2) {
    std_dev = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const double t = x[i] - mean;
    dev[i] = t * t;
  }
  std_dev = std::sqrt(exactly_rounded_sum(dev, n) / static_cast<double>(n - 1));
}

}  // namespace

std::uint64_t cell_seed(std::uint64_t seed, std::uint64_t index) {
  // SeedSequence(seed, spawn_key=(index,)): the seed's words padded with zeros to the pool size
  // (a spawn key is present), then the key's words.
  std::vector<std::uint32_t> entropy;
  append_words(seed, entropy);
  if (entropy.size() < kPoolSize) entropy.resize(kPoolSize, 0);
  append_words(index, entropy);
  std::uint32_t pool[kPoolSize];
  std::uint32_t hash_const = kInitA;
  for (std::size_t i = 0; i < kPoolSize; ++i) {
    pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0U, hash_const);
  }
  for (std::size_t src = 0; src < kPoolSize; ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
      if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hash_const));
    }
  }
  for (std::size_t src = kPoolSize; src < entropy.size(); ++src) {
    for (std::size_t dst = 0; dst < kPoolSize; ++dst) {
      pool[dst] = mix(pool[dst], hashmix(entropy[src], hash_const));
    }
  }
  // generate_state(2, uint32)
  std::uint32_t words[2];
  std::uint32_t hc = kInitB;
  for (std::size_t i = 0; i < 2; ++i) {
    std::uint32_t v = pool[i % kPoolSize];
    v ^= hc;
    hc *= kMultB;
    v *= hc;
    v ^= v >> kXShift;
    words[i] = v;
  }
  return static_cast<std::uint64_t>(words[0]) | (static_cast<std::uint64_t>(words[1]) << 32);
}

double exactly_rounded_sum(const double* x, std::size_t n) {
  // Shewchuk's msum with Python's final rounding (math.fsum): the partials are non-overlapping
  // and their exact sum is the exact sum of the terms; the last step rounds it half-even.
  std::vector<double> partials;
  double special = 0.0;  // the IEEE sum of non-finite terms (inf, nan)
  bool any_special = false;
  for (std::size_t t = 0; t < n; ++t) {
    double v = x[t];
    if (!std::isfinite(v)) {
      special += v;
      any_special = true;
      continue;
    }
    std::size_t i = 0;
    for (double y : partials) {
      if (std::fabs(v) < std::fabs(y)) std::swap(v, y);
      const double hi = v + y;
      const double lo = y - (hi - v);
      if (lo != 0.0) partials[i++] = lo;
      v = hi;
    }
    if (!std::isfinite(v)) {  // an intermediate overflow: the sum is ±inf
      special += v;
      any_special = true;
      partials.clear();
      continue;
    }
    partials.resize(i);
    partials.push_back(v);
  }
  if (any_special) return special;
  std::size_t m = partials.size();
  if (m == 0) return 0.0;
  double hi = partials[--m];
  double lo = 0.0;
  while (m > 0) {
    const double v = hi;
    const double y = partials[--m];
    hi = v + y;
    const double yr = hi - v;
    lo = y - yr;
    if (lo != 0.0) break;
  }
  // round half to even: when the rest has the sign of lo, hi + 2·lo decides
  if (m > 0 && ((lo < 0.0 && partials[m - 1] < 0.0) || (lo > 0.0 && partials[m - 1] > 0.0))) {
    const double y = lo * 2.0;
    const double v = hi + y;
    const double yr = v - hi;
    if (y == yr) hi = v;
  }
  return hi;
}

const std::vector<std::string>& sigma_rule_names() {
  static const std::vector<std::string> names{"paper", "unbiased", "optimal"};
  return names;
}

double resolve_sigma(const MseCell& c) {
  if (!(c.xi >= -1.0 && c.xi <= 1.0)) {
    throw std::invalid_argument("sweep: xi must lie in [-1, 1], got " + number(c.xi));
  }
  double sigma = c.sigma;
  switch (c.rule) {
    case SigmaRule::paper:
      sigma = temperature::paper_sigma(c.xi);
      break;
    case SigmaRule::unbiased:
      sigma = temperature::unbiased_sigma(c.xi, c.estimator, c.convention);
      break;
    case SigmaRule::optimal:
      sigma = temperature::optimal_sigma_cubic(rff::make_unit_pair(c.xi), static_cast<double>(c.D),
                                               c.estimator, c.convention);
      break;
    case SigmaRule::value:
      break;
  }
  if (!(std::isfinite(sigma) && sigma >= 0.0)) {
    throw std::invalid_argument(
        "sweep: sigma must be finite and >= 0, got " + number(sigma) + " (sigma=" +
        (c.rule == SigmaRule::value ? number(c.sigma)
                                    : "'" + std::string(rule_name(c.rule)) + "'") +
        " at xi=" + number(c.xi) + ")");
  }
  return sigma;
}

namespace {

/// The checks of check_mse_cell; returns σ and the closed-form MSE.
void checked(const MseCell& c, double& sigma, double& analytic) {
  if (c.D < 1) throw std::invalid_argument("sweep: D must be >= 1, got " + std::to_string(c.D));
  if (c.d < 2) throw std::invalid_argument("sweep: d must be >= 2, got " + std::to_string(c.d));
  sigma = resolve_sigma(c);
  analytic = rff::mse(rff::make_unit_pair(c.xi), static_cast<double>(c.D), sigma, c.estimator,
                      c.convention);
  if (!std::isfinite(analytic)) {
    throw std::invalid_argument(
        "sweep: the closed-form MSE overflows a double at xi=" + number(c.xi) +
        ", D=" + std::to_string(c.D) + ", sigma=" + number(sigma) +
        " (ropelab.temperature.mse(..., log=True) gives its logarithm)");
  }
  if (c.d > limits::kMaxHeadDim) {
    throw std::invalid_argument("sweep: d must be <= 2**40, got " + std::to_string(c.d));
  }
  // the unit pair's sums and differences in closed form: nothing of size d is allocated to check
  const rff::EstimateOptions opt = estimate_options(c, sigma, 1);
  try {
    rff::check_estimate_input(rff::make_unit_pair(c.xi), c.d, opt);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("sweep: ") + e.what());
  }
}

}  // namespace

void check_mse_cell(const MseCell& c) {
  double sigma = 0, analytic = 0;
  checked(c, sigma, analytic);
}

MseOutputs mse_cell(const MseCell& c, std::size_t trials, int nthreads,
                    const std::atomic<bool>* cancel) {
  if (trials < 1) throw std::invalid_argument("sweep: trials must be >= 1, got 0");
  MseOutputs o{};
  checked(c, o.sigma_used, o.analytic_mse);
  std::vector<double> q, k;
  unit_pair(c.xi, c.d, q, k);
  o.target = static_cast<double>(std::exp(rff::make_pair(q.data(), k.data(), c.d).qk));
  const rff::EstimateOptions opt = estimate_options(c, o.sigma_used, nthreads);
  std::vector<double> err(trials), scratch(trials);
  rff::estimate(q.data(), k.data(), c.d, opt, trials, err.data(), cancel);
  for (std::size_t t = 0; t < trials; ++t) {
    if (!std::isfinite(err[t])) {
      throw std::invalid_argument(
          "sweep: the estimate of trial " + std::to_string(t) + " is not finite (" +
          number(err[t]) +
          "): the feature terms overflow for these norms and sigma; use a smaller sigma");
    }
    err[t] -= o.target;
  }
  std::vector<double> sq(trials);
  for (std::size_t t = 0; t < trials; ++t) sq[t] = err[t] * err[t];
  double sq_std = 0, err_std = 0;
  mean_std(sq.data(), trials, scratch.data(), o.empirical_mse, sq_std);
  mean_std(err.data(), trials, scratch.data(), o.bias, err_std);
  const double root = std::sqrt(static_cast<double>(trials));
  const double inf = std::numeric_limits<double>::infinity();
  o.mse_stderr = trials > 1 ? sq_std / root : inf;
  o.bias_stderr = trials > 1 ? err_std / root : inf;
  return o;
}

void mse_cells(const MseCell* cells, std::size_t n, std::size_t trials, int nthreads,
               MseOutputs* out, const std::function<void(std::size_t)>& finished,
               const std::atomic<bool>* cancel) {
  if (n == 0) return;
  const bool one = n == 1;
  mc::parallel_blocks(
      n, 1, one ? 1 : nthreads,
      [&](std::size_t b, std::size_t e) {
        for (std::size_t pos = b; pos < e; ++pos) {
          if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
          try {
            out[pos] = mse_cell(cells[pos], trials, one ? nthreads : 1, cancel);
          } catch (const CellError&) {
            throw;
          } catch (const std::invalid_argument& err) {
            throw CellError(pos, err.what());
          }
          if (finished) finished(pos);
        }
      },
      cancel);
}

}  // namespace ropelab::sweep
