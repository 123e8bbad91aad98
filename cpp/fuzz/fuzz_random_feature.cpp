// libFuzzer harness: random-feature attention (attention.hpp) with arbitrary sizes (T and S across
// the 64-row chunks and the 128-frequency groups), estimators, per-channel or scalar σ, orthogonal
// or i.i.d. frequencies, causal or not, stabilised or not, trials, logit scales, thread counts and
// entries, with the numerator/denominator parts or without, in double and (the entries rounded)
// in float; also its feature map and the frequencies of a trial. The harness filters only what the
// Python bindings reject (non-finite inputs, σ < 0, a scale <= 0, causal with T != S, unstabilised
// amplitudes exp(scale |x|²/2) that overflow); everything else must run without a crash or a
// sanitizer report, throwing at most FeatureOverflow (unstabilised; stabilised only for a
// projection or a key's scale |k|²/2 beyond a double, checked), ValueOverflow (unstabilised;
// stabilised only when the bound 2·S·max|v| of a numerator nears a double's range, checked) or
// mc::Cancelled (a set cancel flag).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/attention.hpp"
#include "ropelab/montecarlo.hpp"

using ropelab::fuzz::Bytes;

namespace {

double max_half_norm2(const std::vector<double>& x, std::size_t d, double scale) {
  double m = 0;
  for (std::size_t i = 0; i + d <= x.size(); i += d) {
    double s = 0;
    for (std::size_t c = 0; c < d; ++c) s += x[i + c] * x[i + c];
    m = std::max(m, s);
  }
  return 0.5 * scale * m;
}

/// Whether a stabilised random_feature may legitimately throw `e`: the harness's own bound on the
/// quantity exceeds DBL_MAX / 2 (below that no order of the core's sums can overflow): a key
/// row's h under trig features (kHalfNorm), or (kProjection) an ω' = √scale·ω of some trial, or Σ_c
/// |ω'_fc x_c| for a row x of the argument and a frequency f.
bool log_magnitude_overflows(const ropelab::attention::FeatureOverflow& e,
                             const std::vector<double>& q, const std::vector<double>& k,
                             std::size_t d, const ropelab::attention::RandomFeatureOptions& opt) {
  namespace at = ropelab::attention;
  constexpr double kBig = std::numeric_limits<double>::max() / 2;
  const std::vector<double>& x = e.argument == "q" ? q : k;
  if (e.quantity == at::kHalfNorm) {
    return e.argument == "k" && opt.estimator == ropelab::Estimator::trig &&
           max_half_norm2(k, d, opt.scale) > kBig;
  }
  if (e.quantity != at::kProjection) return false;
  const double rs = std::sqrt(opt.scale);
  std::vector<double> omega(opt.D * d);
  for (std::size_t t = 0; t < opt.trials; ++t) {
    at::trial_omega(opt, d, t, omega.data());
    for (std::size_t f = 0; f < opt.D; ++f) {
      for (std::size_t c = 0; c < d; ++c) {
        if (!(std::fabs(omega[f * d + c]) * rs <= kBig)) return true;
      }
      for (std::size_t i = 0; i + d <= x.size(); i += d) {
        double a = 0;
        for (std::size_t c = 0; c < d; ++c)
          a += std::fabs(omega[f * d + c] * rs) * std::fabs(x[i + c]);
        if (!(a <= kBig)) return true;
      }
    }
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  namespace at = ropelab::attention;
  Bytes b{data, size};
  const std::uint8_t flags = b.take<std::uint8_t>();
  const std::uint8_t more = b.take<std::uint8_t>();
  const bool raw = (flags & 1) != 0;
  const bool causal = (flags & 2) != 0;
  at::Shape s;
  s.batch = 1 + b.take<std::uint8_t>() % 2;
  s.T = b.take<std::uint8_t>() % 150;  // 0, one chunk, several chunks
  s.S = causal ? s.T : b.take<std::uint8_t>() % 150;
  s.d = 1 + b.take<std::uint8_t>() % 6;
  s.dv = 1 + b.take<std::uint8_t>() % 3;

  at::RandomFeatureOptions opt;
  opt.D = 1 + b.take<std::uint16_t>() % 300;  // one to three frequency groups
  opt.estimator = at::estimators()[b.take<std::uint8_t>() % at::estimators().size()];
  if ((flags & 4) != 0) {
    opt.sigma.assign(s.d, 0.0);
    for (double& x : opt.sigma) x = std::fabs(b.value(false));  // per channel, >= 0
  } else {
    opt.sigma = {std::fabs(b.value(raw))};
  }
  opt.orthogonal = (flags & 8) != 0;
  opt.causal = causal;
  opt.seed = b.take<std::uint8_t>();
  opt.trials = 1 + more % 3;
  opt.stabilize = (flags & 16) != 0;
  opt.scale = (flags & 32) ? 1.0 / std::sqrt(static_cast<double>(s.d))
                           : static_cast<double>(1 + b.take<std::uint8_t>()) / 16.0;
  opt.nthreads = 1 + (more >> 2) % 3;
  for (const double x : opt.sigma) {
    if (!std::isfinite(x)) return 0;
  }

  std::vector<double> q(s.batch * s.T * s.d), k(s.batch * s.S * s.d), v(s.batch * s.S * s.dv);
  for (auto* vec : {&q, &k, &v}) {
    for (double& x : *vec) {
      x = b.value(raw);
      if (!std::isfinite(x)) return 0;
    }
  }
  if (!opt.stabilize) {  // the binding refuses amplitudes that overflow
    for (const auto* x : {&q, &k}) {
      if (!std::isfinite(std::exp(max_half_norm2(*x, s.d, opt.scale)))) return 0;
    }
  }

  const bool parts = (flags & 64) != 0;
  const std::size_t rows = opt.trials * s.batch * s.T;
  std::vector<double> out(rows * s.dv), num(parts ? rows * s.dv : 0), den(parts ? rows : 0);
  std::atomic<bool> cancel{false};
  try {
    at::random_feature(q.data(), k.data(), v.data(), s, opt, out.data(),
                       parts ? num.data() : nullptr, parts ? den.data() : nullptr, &cancel);
  } catch (const at::FeatureOverflow& e) {
    // Without stabilisation: the documented error (a feature overflows). With stabilize = true
    // every feature is exp(<= 0) times a factor of modulus <= 1 (attention.hpp), so only a
    // log-magnitude that is itself beyond a double may raise (issue 25: before, the exponent
    // p_f - (h + shift) lost an ulp of h and overflowed from |x| ~ 3e9 on): a projection
    // sqrt(scale) omega.x of q or k, or a trig key's h = scale |k|^2/2 (its weight exp(+inf);
    // positive and hyperbolic keys with h = inf get weight 0). Checked here independently, with
    // a factor 2 of margin for the order of the sums.
    if (opt.stabilize && !log_magnitude_overflows(e, q, k, s.d, opt)) throw;
  } catch (const at::ValueOverflow&) {
    // A numerator sum_j phi(q).phi(k_j) v_j beyond a double. Stabilised features have modulus at
    // most 1/sqrt(D) (at most 2D of them per row, the groups merged with factors <= 1), so each
    // weight is at most 2 and a numerator at most 2 S max|v|: only values near a double's range
    // may raise (a factor 4 of margin for rounding). Unstabilised features are unbounded.
    double vmax = 0.0;
    for (const double x : v) vmax = std::max(vmax, std::fabs(x));
    if (opt.stabilize &&
        !(2.0 * static_cast<double>(s.S) * vmax > std::numeric_limits<double>::max() / 4)) {
      throw;
    }
  }

  // The float32 computation on the same entries rounded to float (skipped where one rounds to
  // ±inf, which the binding would refuse as non-finite input; unstabilised, also where an
  // amplitude exp(scale |x|²/2) overflows a float, which the binding refuses): no crash, no
  // sanitizer report, at most its documented FeatureOverflow or ValueOverflow.
  std::vector<float> qf(q.begin(), q.end()), kf(k.begin(), k.end()), vf(v.begin(), v.end());
  bool representable = true;
  for (const auto* vec : {&qf, &kf, &vf}) {
    for (const float x : *vec) representable = representable && std::isfinite(x);
  }
  if (representable && !opt.stabilize) {
    for (const auto* x : {&q, &k}) {
      const double amp = std::exp(max_half_norm2(*x, s.d, opt.scale));
      representable = representable && std::isfinite(static_cast<float>(amp));
    }
  }
  if (representable) {
    std::vector<float> outf(rows * s.dv), numf(parts ? rows * s.dv : 0), denf(parts ? rows : 0);
    try {
      at::random_feature(qf.data(), kf.data(), vf.data(), s, opt, outf.data(),
                         parts ? numf.data() : nullptr, parts ? denf.data() : nullptr, nullptr);
    } catch (const at::FeatureOverflow&) {
    } catch (const at::ValueOverflow&) {
    }
  }

  // the frequencies of a trial and the feature map of the queries under them
  std::vector<double> omega(opt.D * s.d);
  at::trial_omega(opt, s.d, more, omega.data());
  const std::size_t F = at::feature_count(opt.estimator, opt.D);
  std::vector<double> feats(s.T * F), log_max(s.T), shift(s.T, 0.0);
  if (s.T > 0) {
    at::feature_map(q.data(), s.T, s.d, omega.data(), opt.D, opt.estimator, opt.scale,
                    (flags & 128) ? shift.data() : nullptr, feats.data(), log_max.data());
  }

  cancel = true;
  try {
    at::random_feature(q.data(), k.data(), v.data(), s, opt, out.data(), nullptr, nullptr, &cancel);
  } catch (const mc::Cancelled&) {
  } catch (const at::FeatureOverflow&) {
  } catch (const at::ValueOverflow&) {
  }
  return 0;
}
