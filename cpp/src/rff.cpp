#include "ropelab/rff.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"
#include "ropelab/rng.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::rff {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr real kNegInf = -std::numeric_limits<real>::infinity();

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// exp(log_scale) * factor rounded to double, without spurious overflow, underflow or 0·inf.
double scaled(real log_scale, real factor) {
  if (factor == 0) return 0.0;
  return static_cast<double>(
      std::copysign(std::exp(log_scale + std::log(std::fabs(factor))), factor));
}

/// log(exp(x) + exp(y)) with −inf allowed.
real log_add_exp(real x, real y) {
  if (x == kNegInf) return y;
  if (y == kNegInf) return x;
  const real m = std::max(x, y);
  return m + std::log1p(std::exp(-std::fabs(x - y)));
}

/// log|x| with log 0 = −inf.
real log_abs(real x) {
  return x == 0 ? kNegInf : std::log(std::fabs(x));
}

/// ‖u‖² of the trig estimator's frequency argument: ‖q−k‖² (conjugate) or ‖q+k‖² (literal).
real trig_norm2(const Pair& p, Estimator est, Convention conv) {
  return (est == Estimator::trig && conv == Convention::literal) ? p.a : p.b;
}

/// The estimators of attention only (hyperbolic) reach no switch below: parse_estimator refuses
/// them. Thrown all the same, so that a switch is never left without a value.
[[noreturn]] void not_in_rff(Estimator est) {
  throw std::invalid_argument("rff: estimator '" +
                              ropelab::estimator_names()[static_cast<std::size_t>(est)] +
                              "' is not one of rff's");
}

/// Exponent e with E[X] − exp(q·k) = exp(q·k) · expm1(e).
real bias_exponent(const Pair& p, real s2, Estimator est, Convention conv) {
  switch (est) {
    case Estimator::hyperbolic:
      not_in_rff(est);
    case Estimator::positive:
      return 0.5L * (s2 - 1) * p.a;
    case Estimator::random_phase:
      return 0.5L * (1 - s2) * p.b;
    case Estimator::trig:
      break;
  }
  return conv == Convention::literal ? 0.5L * (p.b - s2 * p.a) : 0.5L * (1 - s2) * p.b;
}

/// Var[X] = exp(log_scale) * factor, factor ≥ 0.
void variance_parts(const Pair& p, real s2, Estimator est, Convention conv, real& log_scale,
                    real& factor) {
  const real n = p.n();
  switch (est) {
    case Estimator::hyperbolic:
      not_in_rff(est);
    case Estimator::positive:
      log_scale = s2 * p.a - n;
      factor = std::expm1(s2 * p.a);
      return;
    case Estimator::random_phase: {
      const real e = std::expm1(-s2 * p.b);
      log_scale = n;
      factor = 0.5L * e * e + 0.5L;
      return;
    }
    case Estimator::trig: {
      const real e = std::expm1(-s2 * trig_norm2(p, est, conv));
      log_scale = n;
      factor = 0.5L * e * e;
      return;
    }
  }
}

real log_mean(const Pair& p, real s2, Estimator est, Convention conv) {
  if (est == Estimator::positive) return 0.5L * (s2 * p.a - p.n());
  return 0.5L * (p.n() - s2 * trig_norm2(p, est, conv));
}

/// log MSE in extended precision.
real log_mse_ext(const Pair& p, double D, double sigma, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  const real log_var_over_D = log_scale + log_abs(factor) - std::log(static_cast<real>(D));
  const real log_bias2 = 2 * (p.qk + log_abs(std::expm1(bias_exponent(p, s2, est, conv))));
  return log_add_exp(log_var_over_D, log_bias2);
}

}  // namespace

const std::vector<Estimator>& estimators() {
  static const std::vector<Estimator> subset{Estimator::trig, Estimator::random_phase,
                                             Estimator::positive};
  return subset;
}

const std::vector<std::string>& convention_names() {
  static const std::vector<std::string> names{"conjugate", "literal"};
  return names;
}

Estimator parse_estimator(const std::string& name) {
  return ropelab::parse_estimator(name, estimators(), "rff");
}

Convention parse_convention(const std::string& name) {
  return names::parse<Convention>(convention_names(), name, "convention");
}

const std::vector<std::string>& mode_names() {
  static const std::vector<std::string> names{"projected", "full"};
  return names;
}

bool parse_full_mode(const std::string& name) {
  return names::parse<int>(mode_names(), name, "mode") == 1;
}

Pair make_pair(const double* q, const double* k, std::size_t d) {
  Pair p;
  for (std::size_t i = 0; i < d; ++i) {
    const real qi = q[i], ki = k[i];
    p.nq2 += qi * qi;
    p.nk2 += ki * ki;
    p.qk += qi * ki;
    p.a += (qi + ki) * (qi + ki);
    p.b += (qi - ki) * (qi - ki);
  }
  // Cholesky of the Gram matrix; l22 = ‖k − (q·k/‖q‖²) q‖ avoids the cancellation of
  // sqrt(‖k‖² − (q·k)²/‖q‖²) for nearly parallel q, k.
  if (p.nq2 > 0) {
    p.l11 = static_cast<double>(std::sqrt(p.nq2));
    p.l21 = static_cast<double>(p.qk / std::sqrt(p.nq2));
    const real c = p.qk / p.nq2;
    real r2 = 0;
    for (std::size_t i = 0; i < d; ++i) {
      const real r = k[i] - c * q[i];
      r2 += r * r;
    }
    p.l22 = static_cast<double>(std::sqrt(r2));
  } else {
    p.l22 = static_cast<double>(std::sqrt(p.nk2));
  }
  return p;
}

Pair make_unit_pair(double xi) {
  Pair p;
  p.nq2 = p.nk2 = 1;
  p.qk = xi;
  p.a = 2 + 2 * static_cast<real>(xi);
  p.b = 2 - 2 * static_cast<real>(xi);
  p.l11 = 1.0;
  p.l21 = xi;
  p.l22 = std::sqrt(std::max(0.0, (1.0 - xi) * (1.0 + xi)));
  return p;
}

Moments moments(const Pair& p, double sigma, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  return {static_cast<double>(std::exp(log_mean(p, s2, est, conv))), scaled(log_scale, factor)};
}

Moments log_moments(const Pair& p, double sigma, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  return {static_cast<double>(log_mean(p, s2, est, conv)),
          static_cast<double>(log_scale + log_abs(factor))};
}

double mse(const Pair& p, double D, double sigma, Estimator est, Convention conv) {
  // exp of the extended-precision log: relative error ~ |log MSE|·2⁻⁶⁴ before the final rounding.
  return static_cast<double>(std::exp(log_mse_ext(p, D, sigma, est, conv)));
}

double log_mse(const Pair& p, double D, double sigma, Estimator est, Convention conv) {
  return static_cast<double>(log_mse_ext(p, D, sigma, est, conv));
}

std::size_t feature_count(Estimator est, std::size_t D) {
  return est == Estimator::trig ? 2 * D : D;
}

namespace {

/// Produces the frequency rows of one Monte-Carlo unit, up to d rows at a time, always in the
/// same order from the same counter range: sample_omega and full-mode estimate share it.
class OmegaRows {
 public:
  OmegaRows(std::size_t d, double sigma, std::uint64_t seed, bool orthogonal, std::uint64_t index)
      : d_(d), sigma_(sigma), orthogonal_(orthogonal), stream_(seed, rng::StreamId::omega, index) {}

  /// Next min(d, remaining) rows into `rows` (resized to m×d).
  void next(std::size_t m, RowMatrix& rows) {
    rows.resize(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(d_));
    if (!orthogonal_) {
      stream_.normals(rows.data(), m * d_);
      rows *= sigma_;
      return;
    }
    // A Haar-random orthogonal d×d matrix: QR of a Gaussian matrix with the signs of R's
    // diagonal moved into Q. Its rows get independent χ_d lengths (norms of Gaussian d-vectors),
    // so each row alone is N(0, σ² I) while rows within a block are exactly orthogonal.
    const auto dd = static_cast<Eigen::Index>(d_);
    RowMatrix g(dd, dd);
    stream_.normals(g.data(), d_ * d_);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
    Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(dd, dd);
    const Eigen::MatrixXd& r = qr.matrixQR();
    for (Eigen::Index j = 0; j < dd; ++j) {
      if (r(j, j) < 0) q.col(j) = -q.col(j);
    }
    std::vector<double> z(d_);
    for (std::size_t i = 0; i < d_; ++i) {
      stream_.normals(z.data(), d_);
      double chi2 = 0;
      for (double v : z) chi2 += v * v;
      if (i < m) {
        rows.row(static_cast<Eigen::Index>(i)) =
            (sigma_ * std::sqrt(chi2)) * q.col(static_cast<Eigen::Index>(i)).transpose();
      }
    }
  }

 private:
  std::size_t d_;
  double sigma_;
  bool orthogonal_;
  rng::Stream stream_;
};

bool is_cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

void check_amplitude(const Pair& p, Estimator est) {
  if (est != Estimator::positive && !std::isfinite(std::exp(static_cast<double>(0.5L * p.n())))) {
    throw std::invalid_argument(
        "the amplitude exp((|q|^2+|k|^2)/2) overflows a double (|q|^2+|k|^2 = " +
        std::to_string(static_cast<double>(p.n())) +
        "); use the log-domain closed form instead (log_mse; rff.mse(..., log=True) in "
        "Python)");
  }
}

}  // namespace

void sample_omega(std::size_t D, std::size_t d, double sigma, bool orthogonal, std::uint64_t index,
                  std::uint64_t seed, double* out, const std::atomic<bool>* cancel) {
  OmegaRows gen(d, sigma, seed, orthogonal, index);
  RowMatrix rows;
  for (std::size_t j = 0; j < D; j += d) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
    const std::size_t m = std::min(d, D - j);
    gen.next(m, rows);
    std::copy(rows.data(), rows.data() + m * d, out + j * d);
  }
}

void sample_phase(std::size_t D, std::uint64_t index, std::uint64_t seed, double* out) {
  rng::Stream s(seed, rng::StreamId::phase, index);
  for (std::size_t j = 0; j < D; ++j) out[j] = kTwoPi * s.uniform();
}

void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, const double* phase, double* out) {
  using CMap = Eigen::Map<const RowMatrix>;
  const auto nn = static_cast<Eigen::Index>(n), dd = static_cast<Eigen::Index>(d),
             DD = static_cast<Eigen::Index>(D);
  const CMap x(X, nn, dd), w(omega, DD, dd);
  const RowMatrix proj = x * w.transpose();  // n×D: ω_j·x_i
  const std::size_t F = feature_count(est, D);
  const double inv_sqrt_D = 1.0 / std::sqrt(static_cast<double>(D));
  for (Eigen::Index i = 0; i < nn; ++i) {
    const double half_norm2 = 0.5 * x.row(i).squaredNorm();
    double* row = out + static_cast<std::size_t>(i) * F;
    for (Eigen::Index j = 0; j < DD; ++j) {
      const double z = proj(i, j);
      switch (est) {
        case Estimator::hyperbolic:
          not_in_rff(est);
        case Estimator::trig: {
          const double amp = scaled(half_norm2, inv_sqrt_D);
          row[j] = amp * std::cos(z);
          row[j + DD] = amp * std::sin(z);
          break;
        }
        case Estimator::random_phase:
          row[j] = scaled(half_norm2, std::sqrt(2.0) * inv_sqrt_D) * std::cos(z + phase[j]);
          break;
        case Estimator::positive:
          row[j] = std::exp(z - half_norm2) * inv_sqrt_D;
          break;
      }
    }
  }
}

namespace {

/// Features per kernel call in projected mode: a multiple of 16 (one group of draws) that keeps
/// the buffers in L1 and bounds the time between two looks at the cancel flag (~1 µs).
constexpr std::size_t kChunk = 512;

/// Σ x[i]² with 4 interleaved partial sums (a fixed order: same bits on every path).
double sum_squares(const double* x, std::size_t n) {
  double s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int l = 0; l < 4; ++l) s[l] += x[i + l] * x[i + l];
  }
  for (; i < n; ++i) s[0] += x[i] * x[i];
  return (s[0] + s[2]) + (s[1] + s[3]);
}

/// χ_d norms of one trial's orthogonal blocks: norm R = χ_d number R of the trial's `chi` stream,
/// from the χ_d ziggurat (rng.hpp ChiZiggurat; d = 1: |normal number R|), so every norm is a pure
/// function of (seed, trial, R). Bulk reads run the vector kernels on whole groups of 16 draws.
class ChiSampler {
 public:
  /// χ_d norms, up to `capacity` per call of next().
  ChiSampler(std::uint64_t seed, std::size_t d, std::size_t capacity)
      : seed_(seed), d_(d), buf_(capacity + 32) {
    if (d >= 2) tables_ = rng::ChiZiggurat::get(d).tables();
  }

  /// Start trial `index` at row 0 (keeps the buffers).
  void reset(std::uint64_t index) {
    unit_ = rng::make_unit(seed_, rng::StreamId::chi, index);
    row_ = 0;
  }

  /// out[0..m) = the norms of the next m rows (m ≤ capacity).
  void next(double* out, std::size_t m) {
    const simd::Kernels& kern = simd::kernels();
    const std::uint64_t g0 = row_ / 16, g1 = (row_ + m + 15) / 16;  // whole groups
    const auto ng = static_cast<std::size_t>(g1 - g0);
    const auto first = static_cast<std::size_t>(row_ - 16 * g0);
    if (d_ == 1) {
      kern.normals(unit_, g0, ng, buf_.data());
      for (std::size_t r = 0; r < m; ++r) out[r] = std::fabs(buf_[first + r]);
    } else if (first == 0 && m % 16 == 0) {
      kern.chis(unit_, tables_, g0, ng, out);
    } else {
      kern.chis(unit_, tables_, g0, ng, buf_.data());
      std::copy(buf_.data() + first, buf_.data() + first + m, out);
    }
    row_ += m;
  }

 private:
  std::uint64_t seed_;
  std::size_t d_;
  simd::ChiTables tables_{};
  simd::PhiloxUnit unit_{};
  std::uint64_t row_ = 0;
  std::vector<double> buf_;
};

}  // namespace

double draws_per_trial(std::size_t d, std::size_t D, bool full) {
  // D (projected), 2D (random phase), D·d (full), plus one orthogonal block of d·d.
  return static_cast<double>(D) * static_cast<double>(full ? d : 2) +
         static_cast<double>(d) * static_cast<double>(d);
}

void check_estimate_input(const Pair& p, std::size_t d, const EstimateOptions& opt) {
  const double draws = draws_per_trial(d, opt.D, opt.full);
  if (draws >= static_cast<double>(rng::kMaxDraws)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "D=%zu and d=%zu need %.6g random draws per trial (%s, plus a d x d orthogonal "
                  "block); one trial may own at most 2^40",
                  opt.D, d, draws, opt.full ? "D*d" : "2D");
    throw std::invalid_argument(buf);
  }
  check_amplitude(p, opt.estimator);
}

namespace detail {

double trial_estimate(const double* acc, Estimator est, double amp, double inv_D) {
  const double sum = simd::reduce8(acc);
  switch (est) {
    case Estimator::hyperbolic:
      not_in_rff(est);
    case Estimator::trig:
      return amp * sum * inv_D;
    case Estimator::random_phase:
      return 2.0 * amp * sum * inv_D;
    case Estimator::positive:
      break;
  }
  return sum * inv_D;
}

void orthogonal_phase_arguments(double* z1, std::size_t d, std::size_t m, const double* chi,
                                const double* beta, double c11, double c21, double c22, double* x,
                                double* y) {
  const double n1 = std::sqrt(sum_squares(z1, d));
  // A uniformly random orthonormal 2-frame (a, b) of R^d by Gram–Schmidt.
  double* z2 = z1 + d;
  double az = 0;
  for (std::size_t r = 0; r < d; ++r) az += (z1[r] / n1) * z2[r];
  double n2 = 0;
  for (std::size_t r = 0; r < d; ++r) {
    z2[r] = z2[r] - az * (z1[r] / n1);
    n2 += z2[r] * z2[r];
  }
  n2 = std::sqrt(n2);
  const double inv2 = n2 > 0 ? 1.0 / n2 : 0.0;  // d = 1: q ∥ k, l22 = 0
  for (std::size_t r = 0; r < m; ++r) {
    const double ar = z1[r] / n1, br = z2[r] * inv2, b = kTwoPi * beta[r];
    x[r] = c11 * chi[r] * ar + b;
    y[r] = chi[r] * (c21 * ar + c22 * br) + b;
  }
}

void accumulate_full_terms(Estimator est, bool literal, double half_n, const double* pq,
                           const double* pk, const double* beta, std::size_t m, double* x,
                           double* y, double* acc) {
  const simd::Kernels& kern = simd::kernels();
  switch (est) {
    case Estimator::hyperbolic:
      not_in_rff(est);
    case Estimator::trig:
      for (std::size_t i = 0; i < m; ++i) x[i] = literal ? pq[i] + pk[i] : pq[i] - pk[i];
      kern.sum_cos(x, m, acc);
      break;
    case Estimator::positive:
      for (std::size_t i = 0; i < m; ++i) x[i] = (pq[i] + pk[i]) - half_n;
      kern.sum_exp(x, m, acc);
      break;
    case Estimator::random_phase:
      for (std::size_t i = 0; i < m; ++i) {
        const double b = kTwoPi * beta[i];
        x[i] = pq[i] + b;
        y[i] = pk[i] + b;
      }
      kern.sum_cos_cos(x, y, m, acc);
      break;
  }
}

}  // namespace detail

namespace {

/// What every trial of one estimate() call shares: the pair's constants and the options.
struct TrialSetup {
  const EstimateOptions& opt;
  std::size_t d;
  double half_n;  ///< (‖q‖²+‖k‖²)/2
  double amp;     ///< exp(half_n)
  double inv_D;
  bool literal;          ///< trig estimator with the literal (Eq. 8) convention
  double s;              ///< projected modes: σ‖u‖ of the scalar argument ω·u
  double c11, c21, c22;  ///< projected random phase: σ × the pair's Cholesky factor

  double finish(const double* acc) const {
    return detail::trial_estimate(acc, opt.estimator, amp, inv_D);
  }
};

/// Trials per block: ≥ 2^16 features, so per-block buffers are set up once per ~0.1 ms.
std::size_t projected_block(std::size_t D) {
  return std::clamp<std::size_t>((std::size_t{1} << 16) / D, 16, 4096);
}

/// Projected orthogonal features (see rff.hpp): per block of d features, the direction normals z
/// (d, or 2d for random phase), d χ_d norms and one cos/exp per feature. Blocks are drawn and
/// evaluated a chunk (≥ kChunk features when d is small) at a time.
void estimate_projected_orthogonal(const TrialSetup& c, std::size_t trials, double* out,
                                   const std::atomic<bool>* cancel) {
  const EstimateOptions& opt = c.opt;
  const std::size_t d = c.d, D = opt.D;
  const Estimator est = opt.estimator;
  const bool rp = est == Estimator::random_phase;
  const std::size_t nb = std::max<std::size_t>(1, kChunk / d);  // blocks per chunk
  const std::size_t per = rp ? 2 * d : d;                       // direction normals per block
  mc::parallel_blocks(
      trials, projected_block(D), opt.nthreads,
      [&](std::size_t begin, std::size_t end) {
        const simd::Kernels& kern = simd::kernels();
        std::vector<double> z(nb * per), chi(nb * d), x(nb * d), y(nb * d), beta(nb * d);
        ChiSampler chis(opt.seed, d, nb * d);
        for (std::size_t t = begin; t < end; ++t) {
          rng::Stream dir(opt.seed, rng::StreamId::projected, t);
          rng::Stream phases(opt.seed, rng::StreamId::phase, t);
          chis.reset(t);
          double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          for (std::size_t j = 0; j < D; j += nb * d) {
            if (is_cancelled(cancel)) return;
            const std::size_t M = std::min(nb * d, D - j), blocks = (M + d - 1) / d;
            dir.normals(z.data(), blocks * per);
            chis.next(chi.data(), M);
            if (!rp) {
              // x = (σ‖u‖/‖z‖) χ z, block by block (− (‖q‖²+‖k‖²)/2 for positive), then cos / exp
              const bool pos = est == Estimator::positive;
              kern.orf_args(z.data(), chi.data(), d, M, c.s, pos ? c.half_n : 0.0, x.data());
              if (pos) {
                kern.sum_exp(x.data(), M, acc);
              } else {
                kern.sum_cos(x.data(), M, acc);
              }
              continue;
            }
            phases.uniforms(beta.data(), M);
            for (std::size_t bl = 0; bl < blocks; ++bl) {
              const std::size_t r0 = bl * d;
              detail::orthogonal_phase_arguments(z.data() + bl * per, d, std::min(d, M - r0),
                                                 chi.data() + r0, beta.data() + r0, c.c11, c.c21,
                                                 c.c22, x.data() + r0, y.data() + r0);
            }
            kern.sum_cos_cos(x.data(), y.data(), M, acc);
          }
          out[t] = c.finish(acc);
        }
      },
      cancel);
}

/// Projected i.i.d. features: ω·u ~ N(0, σ²‖u‖²) exactly, so trig and positive need one scalar
/// normal per feature (of ω·(q∓k) resp. ω·(q+k)); random phase the 2-D Gaussian (ω·q, ω·k).
void estimate_projected_iid(const TrialSetup& c, std::size_t trials, double* out,
                            const std::atomic<bool>* cancel) {
  const EstimateOptions& opt = c.opt;
  const std::size_t D = opt.D;
  const Estimator est = opt.estimator;
  mc::parallel_blocks(
      trials, projected_block(D), opt.nthreads,
      [&](std::size_t begin, std::size_t end) {
        const simd::Kernels& kern = simd::kernels();
        std::vector<double> g(2 * kChunk), x(kChunk), y(kChunk), beta(kChunk);
        for (std::size_t t = begin; t < end; ++t) {
          rng::Stream normals(opt.seed, rng::StreamId::projected, t);
          double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          if (est == Estimator::random_phase) {
            rng::Stream phases(opt.seed, rng::StreamId::phase, t);
            for (std::size_t j = 0; j < D; j += kChunk) {
              if (is_cancelled(cancel)) return;
              const std::size_t m = std::min(kChunk, D - j);
              normals.normals(g.data(), 2 * m);  // feature j: g1 = draw 2j, g2 = draw 2j+1
              phases.uniforms(beta.data(), m);
              for (std::size_t i = 0; i < m; ++i) {
                const double g1 = g[2 * i], g2 = g[2 * i + 1], b = kTwoPi * beta[i];
                x[i] = c.c11 * g1 + b;
                y[i] = (c.c21 * g1 + c.c22 * g2) + b;
              }
              kern.sum_cos_cos(x.data(), y.data(), m, acc);
            }
          } else {
            for (std::size_t j = 0; j < D; j += kChunk) {
              if (is_cancelled(cancel)) return;
              const std::size_t m = std::min(kChunk, D - j);
              normals.normals(g.data(), m);
              if (est == Estimator::positive) {
                for (std::size_t i = 0; i < m; ++i) g[i] = c.s * g[i] - c.half_n;
                kern.sum_exp(g.data(), m, acc);
              } else {
                for (std::size_t i = 0; i < m; ++i) g[i] = c.s * g[i];
                kern.sum_cos(g.data(), m, acc);
              }
            }
          }
          out[t] = c.finish(acc);
        }
      },
      cancel);
}

/// Full mode. i.i.d.: the d normals of each row straight from the trial's omega stream (the rows
/// of sample_omega(index=t) divided by σ), projected by the dots2 kernel; orthogonal: OmegaRows
/// (QR blocks) and Eigen.
void estimate_full(const double* q, const double* k, const TrialSetup& c, std::size_t trials,
                   double* out, const std::atomic<bool>* cancel) {
  const EstimateOptions& opt = c.opt;
  const std::size_t d = c.d, D = opt.D;
  Eigen::Matrix<double, Eigen::Dynamic, 2> qk(static_cast<Eigen::Index>(d), 2);
  for (std::size_t i = 0; i < d; ++i) {
    qk(static_cast<Eigen::Index>(i), 0) = q[i];
    qk(static_cast<Eigen::Index>(i), 1) = k[i];
  }
  // Rows per block: d for orthogonal features; for i.i.d. rows enough to give ~2^12 normals.
  const std::size_t B = opt.orthogonal ? d : std::max<std::size_t>(1, 4096 / d);
  mc::parallel_blocks(
      trials, 8, opt.nthreads,
      [&](std::size_t begin, std::size_t end) {
        const simd::Kernels& kern = simd::kernels();
        RowMatrix rows;
        Eigen::Matrix<double, Eigen::Dynamic, 2> proj;
        std::vector<double> g(opt.orthogonal ? 0 : B * d), pq(B), pk(B), x(B), y(B), beta(B);
        for (std::size_t t = begin; t < end; ++t) {
          OmegaRows gen(d, opt.sigma, opt.seed, opt.orthogonal, t);
          rng::Stream omega(opt.seed, rng::StreamId::omega, t);
          rng::Stream phases(opt.seed, rng::StreamId::phase, t);
          double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          for (std::size_t j = 0; j < D; j += B) {
            if (is_cancelled(cancel)) return;
            const std::size_t m = std::min(B, D - j);
            if (opt.orthogonal) {
              gen.next(m, rows);
              proj.noalias() = rows * qk;  // column 0: ω·q, column 1: ω·k
              for (std::size_t i = 0; i < m; ++i) {
                pq[i] = proj(static_cast<Eigen::Index>(i), 0);
                pk[i] = proj(static_cast<Eigen::Index>(i), 1);
              }
            } else {
              omega.normals(g.data(), m * d);
              kern.dots2(g.data(), m, d, q, k, pq.data(), pk.data());
              for (std::size_t i = 0; i < m; ++i) {
                pq[i] = opt.sigma * pq[i];
                pk[i] = opt.sigma * pk[i];
              }
            }
            if (opt.estimator == Estimator::random_phase) phases.uniforms(beta.data(), m);
            detail::accumulate_full_terms(opt.estimator, c.literal, c.half_n, pq.data(), pk.data(),
                                          beta.data(), m, x.data(), y.data(), acc);
          }
          out[t] = c.finish(acc);
        }
      },
      cancel);
}

}  // namespace

void estimate(const double* q, const double* k, std::size_t d, const EstimateOptions& opt,
              std::size_t trials, double* out, const std::atomic<bool>* cancel) {
  const Pair p = make_pair(q, k, d);
  check_estimate_input(p, d, opt);
  const double half_n = static_cast<double>(0.5L * p.n());
  const bool literal = opt.estimator == Estimator::trig && opt.convention == Convention::literal;
  const double sigma = opt.sigma;
  const TrialSetup c{opt,
                     d,
                     half_n,
                     std::exp(half_n),
                     1.0 / static_cast<double>(opt.D),
                     literal,
                     sigma * static_cast<double>(std::sqrt(
                                 opt.estimator == Estimator::trig && !literal ? p.b : p.a)),
                     sigma * p.l11,
                     sigma * p.l21,
                     sigma * p.l22};
  if (opt.full) {
    estimate_full(q, k, c, trials, out, cancel);
  } else if (opt.orthogonal) {
    estimate_projected_orthogonal(c, trials, out, cancel);
  } else {
    estimate_projected_iid(c, trials, out, cancel);
  }
}

}  // namespace ropelab::rff
