#include "ropelab/attention.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "ropelab/attention_kernels.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"
#include "ropelab/rff.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::attention {

namespace {

template <class Real>
using RMat = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrix = RMat<double>;
using CMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;
using Vector = Eigen::VectorXd;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();
constexpr double kHalfPi = 1.5707963267948966192313216916397514;

bool is_cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

Eigen::Index ix(std::size_t n) {
  return static_cast<Eigen::Index>(n);
}

/// exp(a − b) with exp(−inf − b) = 0 (a running maximum that has not started yet).
double exp_diff(double a, double b) {
  return a == kNegInf ? 0.0 : std::exp(a - b);
}

using DStride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;

/// C (m×n, row stride ldc) = [C +] A B with A(i, p) = A[i·a_rs + p·a_cs] and B(p, j) =
/// B[p·b_rs + j·b_cs]. The AVX-512 or AVX2 + FMA kernel (attention_kernels.hpp, the same bits)
/// when the active SIMD path is a vector one, else Eigen. `pack`: scratch of the caller's thread.
void mm(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
        std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs, double* C,
        std::size_t ldc, bool accumulate, std::vector<double>& pack) {
  if (m == 0 || n == 0) return;
#ifndef ROPELAB_SCALAR_ONLY
  if (simd::active_isa() == simd::Isa::avx512) {
    const std::size_t kc = std::max<std::size_t>(1, std::min<std::size_t>(k, 128));
    const std::size_t need = (12 + (n + 15) / 16 * 16) * kc;  // attention_kernels.hpp
    if (pack.size() < need) pack.resize(need);
    kernels::gemm_avx512(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack.data());
    return;
  }
  if (simd::active_isa() != simd::Isa::scalar) {
    const std::size_t kc =
        std::min<std::size_t>(k, 128);  // attention_kernels.hpp: the pack's layout
    const std::size_t need = (b_cs != 1 ? k * n : 0) + 6 * kc + kc * n;
    if (pack.size() < need) pack.resize(need);
    kernels::gemm_avx2(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack.data());
    return;
  }
#endif
  (void)pack;
  const Eigen::Map<const RowMatrix, 0, DStride> a(A, ix(m), ix(k), DStride(a_rs, a_cs));
  const Eigen::Map<const RowMatrix, 0, DStride> b(B, ix(k), ix(n), DStride(b_rs, b_cs));
  Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>> c(C, ix(m), ix(n), Eigen::OuterStride<>(ix(ldc)));
  if (accumulate) {
    c.noalias() += a * b;
  } else {
    c.noalias() = a * b;
  }
}

/// The same product in single precision: the float kernels of attention_kernels.hpp on the vector
/// paths (the float32 random-feature estimate), else Eigen (also the scalar path of the float32
/// softmax).
void mm(std::size_t m, std::size_t n, std::size_t k, const float* A, std::ptrdiff_t a_rs,
        std::ptrdiff_t a_cs, const float* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs, float* C,
        std::size_t ldc, bool accumulate, std::vector<float>& pack) {
  if (m == 0 || n == 0) return;
#ifndef ROPELAB_SCALAR_ONLY
  if (simd::active_isa() != simd::Isa::scalar) {
    const bool wide = simd::active_isa() == simd::Isa::avx512;
    const std::size_t mr = wide ? 12 : 6, nr = wide ? 32 : 16;  // attention_kernels.hpp
    const std::size_t kc = std::max<std::size_t>(1, std::min<std::size_t>(k, 128));
    const std::size_t need = (mr + (n + nr - 1) / nr * nr) * kc;
    if (pack.size() < need) pack.resize(need);
    if (wide) {
      kernels::gemm_avx512(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack.data());
    } else {
      kernels::gemm_avx2(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack.data());
    }
    return;
  }
#endif
  (void)pack;
  using FMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const FMatrix, 0, DStride> a(A, ix(m), ix(k), DStride(a_rs, a_cs));
  const Eigen::Map<const FMatrix, 0, DStride> b(B, ix(k), ix(n), DStride(b_rs, b_cs));
  Eigen::Map<FMatrix, 0, Eigen::OuterStride<>> c(C, ix(m), ix(n), Eigen::OuterStride<>(ix(ldc)));
  if (accumulate) {
    c.noalias() += a * b;
  } else {
    c.noalias() = a * b;
  }
}

/// The estimators of rff only (random_phase) reach no switch below: parse_estimator refuses them.
/// Thrown all the same, so that a switch is never left without a value.
[[noreturn]] void not_in_attention(Estimator est) {
  throw std::invalid_argument("attention: estimator '" +
                              ropelab::estimator_names()[static_cast<std::size_t>(est)] +
                              "' is not one of attention's");
}

std::ptrdiff_t sd(std::size_t n) {
  return static_cast<std::ptrdiff_t>(n);
}

}  // namespace

const std::vector<Estimator>& estimators() {
  static const std::vector<Estimator> subset{Estimator::trig, Estimator::positive,
                                             Estimator::hyperbolic};
  return subset;
}

Estimator parse_estimator(const std::string& name) {
  return ropelab::parse_estimator(name, estimators(), "attention");
}

std::size_t feature_count(Estimator est, std::size_t D) {
  return est == Estimator::positive ? D : 2 * D;
}

// ----------------------------------------------------------------------------------------------
// Exact attention.

namespace {

/// Adds row i0 + i's bias and the causal mask to one block of scores.
/// `at(i, j)`: the score of query i0 + i and key j0 + j.
template <class At>
void bias_and_mask(const Bias* bias, bool causal, std::size_t b, std::size_t i0, std::size_t nq,
                   std::size_t j0, std::size_t j1, At at) {
  const std::size_t nk = j1 - j0;
  if (bias != nullptr) {
    const double* base = bias->data + bias->batch_offset[b];
    for (std::size_t i = 0; i < nq; ++i) {
      const double* row = base + static_cast<std::int64_t>(i0 + i) * bias->stride_t;
      for (std::size_t j = 0; j < nk; ++j) {
        auto& x = at(i, j);
        x = static_cast<std::remove_reference_t<decltype(x)>>(
            x + row[static_cast<std::int64_t>(j0 + j) * bias->stride_s]);
      }
    }
  }
  if (causal && j1 > i0 + 1) {
    for (std::size_t i = 0; i < nq; ++i) {
      for (std::size_t j = std::max(j0, i0 + i + 1); j < j1; ++j) {
        auto& x = at(i, j - j0);
        x = -std::numeric_limits<std::remove_reference_t<decltype(x)>>::infinity();
      }
    }
  }
}

/// The `lag` of the key block starting at j0 for the query block starting at i0: key j0 + j is
/// visible to query i0 + i only if j ≤ i + lag (causal, where j0 ≤ i0); SIZE_MAX without the mask.
std::size_t visibility_lag(bool causal, std::size_t i0, std::size_t j0) {
  return causal ? i0 - j0 : std::numeric_limits<std::size_t>::max();
}

/// A q·k beyond a double (before the bias) of a key the query sees (key j of the block only if
/// j ≤ i + lag: the causal mask; lag = SIZE_MAX without it): no max subtraction can fix it. A
/// masked key's logit is not used (nor, on the vector paths, always computed).
template <class At>
void check_logits(std::size_t b, std::size_t i0, std::size_t nq, std::size_t nk, std::size_t lag,
                  At&& at) {
  for (std::size_t i = 0; i < nq; ++i) {
    const std::size_t seen = lag >= nk ? nk : std::min(nk, i + lag + 1);
    for (std::size_t j = 0; j < seen; ++j) {
      if (!std::isfinite(at(i, j))) {
        throw LogitOverflow(b, i0 + i, std::is_same_v<std::decay_t<decltype(at(i, j))>, float>);
      }
    }
  }
}

/// The scalar path of softmax (Eigen products, std::exp) in precision Real: query blocks
/// [begin, end) of tasks.
template <class Real>
void softmax_scalar(const Real* q, const Real* k, const Real* v, const Shape& sh, double scale_d,
                    bool causal, const Bias* bias, Real* out, const std::atomic<bool>* cancel,
                    std::size_t begin, std::size_t end) {
  using RM = Eigen::Matrix<Real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Vec = Eigen::Matrix<Real, Eigen::Dynamic, 1>;
  constexpr Real neg_inf = -std::numeric_limits<Real>::infinity();
  const Real scale = static_cast<Real>(scale_d);
  const std::size_t nqb = (sh.T + kQueryBlock - 1) / kQueryBlock;
  RM scores, weights, acc;
  Vec m, l, alpha;
  std::vector<Real> pack;
  for (std::size_t task = begin; task < end; ++task) {
    const std::size_t b = task / nqb, i0 = (task % nqb) * kQueryBlock;
    const std::size_t i1 = std::min(sh.T, i0 + kQueryBlock), nq = i1 - i0;
    const Eigen::Map<const RM> Q(q + (b * sh.T + i0) * sh.d, ix(nq), ix(sh.d));
    const std::size_t kend = causal ? i1 : sh.S;
    acc.setZero(ix(nq), ix(sh.dv));
    m.setConstant(ix(nq), neg_inf);
    l.setZero(ix(nq));
    for (std::size_t j0 = 0; j0 < kend; j0 += kKeyBlock) {
      if (is_cancelled(cancel)) throw mc::Cancelled();
      const std::size_t j1 = std::min(kend, j0 + kKeyBlock), nk = j1 - j0;
      const Real* K = k + (b * sh.S + j0) * sh.d;
      const Real* V = v + (b * sh.S + j0) * sh.dv;
      scores.resize(ix(nq), ix(nk));
      mm(nq, nk, sh.d, Q.data(), sd(sh.d), 1, K, 1, sd(sh.d), scores.data(), nk, false, pack);
      scores *= scale;
      const std::size_t lag = visibility_lag(causal, i0, j0);
      check_logits(b, i0, nq, nk, lag,
                   [&](std::size_t i, std::size_t j) { return scores(ix(i), ix(j)); });
      bias_and_mask(bias, causal, b, i0, nq, j0, j1,
                    [&](std::size_t i, std::size_t j) -> Real& { return scores(ix(i), ix(j)); });
      weights.resize(ix(nq), ix(nk));
      alpha.resize(ix(nq));
      for (std::size_t i = 0; i < nq; ++i) {
        const auto r = ix(i);
        const Real mnew = std::max(m(r), scores.row(r).maxCoeff());
        if (mnew == neg_inf) {  // every key so far masked: nothing to add
          weights.row(r).setZero();
          alpha(r) = Real(1);
          continue;
        }
        alpha(r) = m(r) == neg_inf ? Real(0) : std::exp(m(r) - mnew);
        Real s = 0;
        for (std::size_t j = 0; j < nk; ++j) {
          const Real w = std::exp(scores(r, ix(j)) - mnew);
          weights(r, ix(j)) = w;
          s += w;
        }
        l(r) = alpha(r) * l(r) + s;
        m(r) = mnew;
      }
      acc = alpha.asDiagonal() * acc;
      mm(nq, sh.dv, nk, weights.data(), sd(nk), 1, V, sd(sh.dv), 1, acc.data(), sh.dv, true, pack);
    }
    for (std::size_t i = 0; i < nq; ++i) {
      if (!(l(ix(i)) > 0)) throw EmptyRow(b, i0 + i);
      Eigen::Map<RM>(out + (b * sh.T + i0 + i) * sh.dv, 1, ix(sh.dv)) = acc.row(ix(i)) / l(ix(i));
    }
  }
}

#ifndef ROPELAB_SCALAR_ONLY
/// The vector paths of softmax (attention_kernels.hpp): the same arithmetic per entry as
/// softmax_scalar, the queries of a block as vector lanes, every block stored transposed; exp is
/// SLEEF's u10 (≤ 1 ulp). Query blocks [begin, end) of tasks.
template <class Real>
void softmax_vector(const Real* q, const Real* k, const Real* v, const Shape& sh, double scale_d,
                    bool causal, const Bias* bias, Real* out, const std::atomic<bool>* cancel,
                    std::size_t begin, std::size_t end) {
  using ScoresFn = bool (*)(std::size_t, std::size_t, std::size_t, std::size_t, const Real*,
                            const Real*, Real, Real*);
  using OnlineFn = void (*)(std::size_t, std::size_t, std::size_t, Real*, Real*, Real*, Real*);
  using PvFn = void (*)(std::size_t, std::size_t, std::size_t, std::size_t, const Real*,
                        const Real*, const Real*, Real*);
  const bool wide = simd::active_isa() == simd::Isa::avx512;
  const ScoresFn scores = wide ? ScoresFn(kernels::scores_avx512) : ScoresFn(kernels::scores_avx2);
  const OnlineFn online =
      wide ? OnlineFn(kernels::online_softmax_avx512) : OnlineFn(kernels::online_softmax_avx2);
  const PvFn pv = wide ? PvFn(kernels::pv_avx512) : PvFn(kernels::pv_avx2);
  const Real scale = static_cast<Real>(scale_d);
  const std::size_t nqb = (sh.T + kQueryBlock - 1) / kQueryBlock;
  const std::size_t ld = (kQueryBlock + 31) / 32 * 32;  // lanes: the block's queries, padded
  // the thread's scratch, kept between calls (parallel_blocks calls this once per task)
  thread_local std::vector<Real> qt, st, ot, m, l, alpha;
  qt.resize(sh.d * ld);
  st.resize(kKeyBlock * ld);
  ot.resize(sh.dv * ld);
  m.resize(ld);
  l.resize(ld);
  alpha.resize(ld);
  for (std::size_t task = begin; task < end; ++task) {
    // causal: the last (longest) query blocks first, so that the short ones fill in at the end
    const std::size_t qb = causal ? nqb - 1 - task % nqb : task % nqb;
    const std::size_t b = task / nqb, i0 = qb * kQueryBlock;
    const std::size_t i1 = std::min(sh.T, i0 + kQueryBlock), nq = i1 - i0;
    const Real* Q = q + (b * sh.T + i0) * sh.d;
    std::fill(qt.begin(), qt.end(), Real(0));
    for (std::size_t i = 0; i < nq; ++i) {
      for (std::size_t p = 0; p < sh.d; ++p) qt[p * ld + i] = Q[i * sh.d + p];
    }
    const std::size_t kend = causal ? i1 : sh.S;
    std::fill(ot.begin(), ot.end(), Real(0));
    std::fill(m.begin(), m.end(), -std::numeric_limits<Real>::infinity());
    std::fill(l.begin(), l.end(), Real(0));
    for (std::size_t j0 = 0; j0 < kend; j0 += kKeyBlock) {
      if (is_cancelled(cancel)) throw mc::Cancelled();
      const std::size_t j1 = std::min(kend, j0 + kKeyBlock), nk = j1 - j0;
      const std::size_t lag = visibility_lag(causal, i0, j0);
      // the kernel tells whether every score is finite; only then is the first bad one located
      if (!scores(ld, nk, lag, sh.d, qt.data(), k + (b * sh.S + j0) * sh.d, scale, st.data())) {
        check_logits(b, i0, nq, nk, lag,
                     [&](std::size_t i, std::size_t j) { return st[j * ld + i]; });
      }
      bias_and_mask(bias, causal, b, i0, nq, j0, j1,
                    [&](std::size_t i, std::size_t j) -> Real& { return st[j * ld + i]; });
      online(ld, nk, lag, st.data(), m.data(), l.data(), alpha.data());
      pv(ld, nk, lag, sh.dv, st.data(), v + (b * sh.S + j0) * sh.dv, alpha.data(), ot.data());
    }
    for (std::size_t i = 0; i < nq; ++i) {
      if (!(l[i] > 0)) throw EmptyRow(b, i0 + i);
      Real* o = out + (b * sh.T + i0 + i) * sh.dv;
      for (std::size_t c = 0; c < sh.dv; ++c) o[c] = ot[c * ld + i] / l[i];
    }
  }
}
#endif

}  // namespace

namespace {

template <class Real>
void softmax_impl(const Real* q, const Real* k, const Real* v, const Shape& sh, double scale,
                  bool causal, const Bias* bias, int nthreads, Real* out,
                  const std::atomic<bool>* cancel) {
  if (causal && sh.T != sh.S) throw std::invalid_argument("causal attention requires T == S");
  const std::size_t nqb = (sh.T + kQueryBlock - 1) / kQueryBlock;
  const std::size_t ntasks = sh.batch * nqb;
  mc::parallel_blocks(
      ntasks, 1, nthreads,
      [&](std::size_t begin, std::size_t end) {
#ifndef ROPELAB_SCALAR_ONLY
        if (simd::active_isa() != simd::Isa::scalar) {
          softmax_vector<Real>(q, k, v, sh, scale, causal, bias, out, cancel, begin, end);
          return;
        }
#endif
        softmax_scalar<Real>(q, k, v, sh, scale, causal, bias, out, cancel, begin, end);
      },
      cancel);
}

}  // namespace

void softmax(const double* q, const double* k, const double* v, const Shape& sh, double scale,
             bool causal, const Bias* bias, int nthreads, double* out,
             const std::atomic<bool>* cancel) {
  softmax_impl<double>(q, k, v, sh, scale, causal, bias, nthreads, out, cancel);
}

void softmax(const float* q, const float* k, const float* v, const Shape& sh, double scale,
             bool causal, const Bias* bias, int nthreads, float* out,
             const std::atomic<bool>* cancel) {
  softmax_impl<float>(q, k, v, sh, scale, causal, bias, nthreads, out, cancel);
}

// ----------------------------------------------------------------------------------------------
// Random features.

void trial_omega(const RandomFeatureOptions& opt, std::size_t d, std::uint64_t trial, double* out) {
  const bool scalar = opt.sigma.size() == 1;
  rff::sample_omega(opt.D, d, scalar ? opt.sigma[0] : 1.0, opt.orthogonal, trial, opt.seed, out);
  if (!scalar) {
    for (std::size_t r = 0; r < opt.D; ++r) {
      for (std::size_t c = 0; c < d; ++c) out[r * d + c] *= opt.sigma[c];
    }
  }
}

namespace {

/// Feature evaluation for D frequencies of one trial: ω' = √scale·ω, so that ω'·x = ω·(√scale x);
/// the features are normalised for norm_D frequencies in all (a group of a trial's frequencies).
/// Real: the precision of the projections and features (double, or float: ω' computed in double
/// and rounded once, the projections float FMA chains, each feature evaluated in double from the
/// float projections and rounded once, except that trig's cos and sin are float SLEEF/libm
/// values). The per-row quantities (h, log-maxima, shifts) are doubles in both.
template <class Real>
class Featurizer {
 public:
  using Mat = RMat<Real>;

  Featurizer(const double* omega, std::size_t D, std::size_t d, Estimator est, double scale,
             std::size_t norm_D)
      : D_(D),
        norm_D_(norm_D),
        d_(d),
        F_(feature_count(est, D)),
        est_(est),
        scale_(scale),
        omega_t_((CMap(omega, ix(D), ix(d)) * std::sqrt(scale)).transpose().template cast<Real>()) {
  }

  std::size_t F() const { return F_; }
  bool trig() const { return est_ == Estimator::trig; }

  /// Projections p (n×D) and half norms h (n, in double) of the rows of X.
  void project(const Real* X, std::size_t n, Mat& p, Vector& h) const {
    const Eigen::Map<const Mat> x(X, ix(n), ix(d_));
    p.resize(ix(n), ix(D_));
    mm(n, D_, d_, X, sd(d_), 1, omega_t_.data(), sd(D_), 1, p.data(), D_, false, pack_);
    h = 0.5 * scale_ * x.template cast<double>().rowwise().squaredNorm();
  }

  /// max_f ℓ of row i.
  double log_max(const Mat& p, const Vector& h, std::size_t i) const {
    const auto r = ix(i);
    switch (est_) {
      case Estimator::random_phase:
        not_in_attention(est_);
      case Estimator::trig:
        return h(r);
      case Estimator::positive:
        return static_cast<double>(p.row(r).maxCoeff()) - h(r);
      case Estimator::hyperbolic:
        return static_cast<double>(p.row(r).cwiseAbs().maxCoeff()) - h(r);
    }
    return 0;
  }

  /// The largest log-magnitude of row i less its −h term (h common to all its features and all
  /// groups): 0 (trig), max_f p_f (positive), max_f |p_f| (hyperbolic). A query row's features
  /// stabilised by their own log_max are the features divided by exp(−h + this), so its group
  /// scales are compared by this (exactly, whatever h) rather than by log_max = this − h, whose
  /// rounding is an ulp of h.
  double projection_max(const Mat& p, std::size_t i) const {
    const auto r = ix(i);
    switch (est_) {
      case Estimator::random_phase:
        not_in_attention(est_);
      case Estimator::trig:
        return 0.0;
      case Estimator::positive:
        return static_cast<double>(p.row(r).maxCoeff());
      case Estimator::hyperbolic:
        return static_cast<double>(p.row(r).cwiseAbs().maxCoeff());
    }
    return 0;
  }

  /// out (n×F) = features of the n rows, row i multiplied by exp(−shift(i)). With a shift, each
  /// feature is exp(ℓ_f − shift) (times cos/sin for trig) evaluated as
  /// exp((ℓ_f − ℓ) + (ℓ − shift)) with ℓ = log_max of the row: ℓ_f − ℓ = p_f − max p (positive;
  /// ±p_f − max|p| hyperbolic; 0 trig) never involves h, so it is ≤ 0 exactly, and ℓ − shift is
  /// ≤ 0 whenever the shift is at least the row's own maximum (a key's running maximum).
  /// Subtracting h + shift from p_f instead loses an ulp of h, which exceeds the range of exp once
  /// h ≳ 2^62 (|x| ≳ 3·10^9 at scale 1): issue 25. own: the shift is each row's own ℓ (query
  /// rows), ℓ − shift = 0 even for h = ∞. Otherwise a row with ℓ = −∞ (positive, hyperbolic:
  /// h = ∞, a key whose weight against any key with a finite h is exp(−∞)) gets zero features.
  /// The exponents and exp are doubles (from the projections of precision Real), the feature
  /// rounded to Real once; a feature beyond Real's range is ±∞ (FeatureOverflow for the caller).
  void features(const Mat& p, const Vector& h, const double* shift, Mat& out,
                bool own = false) const {
    const auto n = p.rows(), DD = ix(D_);
    out.resize(n, ix(F_));
    const double inv =
        1.0 / std::sqrt(static_cast<double>(est_ == Estimator::positive ? norm_D_ : 2 * norm_D_));
    const double inv_trig = 1.0 / std::sqrt(static_cast<double>(norm_D_));
    if (est_ == Estimator::trig) {
      // cos and sin of every projection, SLEEF u10 (≤ 1 ulp): on the vector paths its sincos of
      // the path's width (of doubles or floats; its 4-, 8- and 16-lane versions give the same
      // bits); on the scalar path (double) its cosine, with sin p = cos(p − π/2), whose absolute
      // error stays below 1 ulp of |p| + 1 ulp of π/2, (float) std::cos, std::sin.
      const std::size_t m = static_cast<std::size_t>(p.size());
      cos_.resize(m);
      sin_.resize(m);
#ifndef ROPELAB_SCALAR_ONLY
      if (simd::active_isa() == simd::Isa::avx512) {
        kernels::sincos_avx512(p.data(), m, cos_.data(), sin_.data());
      } else if (simd::active_isa() != simd::Isa::scalar) {
        kernels::sincos_avx2(p.data(), m, cos_.data(), sin_.data());
      } else
#endif
          if constexpr (std::is_same_v<Real, double>) {
        for (std::size_t j = 0; j < m; ++j) sin_[j] = p.data()[j] - kHalfPi;
        const simd::Kernels& kern = simd::kernels();
        kern.cos(p.data(), m, cos_.data());
        kern.cos(sin_.data(), m, sin_.data());
      } else {
        for (std::size_t j = 0; j < m; ++j) {
          cos_[j] = std::cos(p.data()[j]);
          sin_[j] = std::sin(p.data()[j]);
        }
      }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const Real* pr = p.data() + i * DD;
      Real* o = out.data() + i * ix(F_);
      if (shift == nullptr) {  // unstabilised: exp(p_f − h) etc. as they are
        plain_row(pr, h(i), inv, inv_trig, i, o);
        continue;
      }
      const double l = log_max(p, h, static_cast<std::size_t>(i));
      const double e = own ? 0.0 : l == kNegInf ? kNegInf : l - shift[i];  // ℓ − shift
      switch (est_) {
        case Estimator::random_phase:
          not_in_attention(est_);
        case Estimator::trig:
          trig_row(std::exp(e) * inv_trig, i, o);
          break;
        case Estimator::positive: {
          const double top = static_cast<double>(p.row(i).maxCoeff());
          double* a = args(D_);
          for (Eigen::Index j = 0; j < DD; ++j) a[j] = (static_cast<double>(pr[j]) - top) + e;
          exp_row(a, D_, inv, o);
          break;
        }
        case Estimator::hyperbolic: {
          const double top = static_cast<double>(p.row(i).cwiseAbs().maxCoeff());
          double* a = args(2 * D_);
          for (Eigen::Index j = 0; j < DD; ++j) {
            const double x = static_cast<double>(pr[j]);
            a[j] = (x - top) + e;
            a[j + DD] = (-x - top) + e;
          }
          exp_row(a, 2 * D_, inv, o);
          break;
        }
      }
    }
  }

  /// Row i of the trig features with amplitude amp (rounded to Real): amp·[cos | sin] of its
  /// projections.
  void trig_row(double amp_d, Eigen::Index i, Real* o) const {
    const auto DD = ix(D_);
    const Real amp = static_cast<Real>(amp_d);
    const Real* c = cos_.data() + i * DD;
    const Real* sn = sin_.data() + i * DD;
    for (Eigen::Index j = 0; j < DD; ++j) {
      o[j] = amp * c[j];
      o[j + DD] = amp * sn[j];
    }
  }

  /// Row i of the unstabilised features (p the row's projections, h its half norm).
  void plain_row(const Real* pr, double h, double inv, double inv_trig, Eigen::Index i,
                 Real* o) const {
    const auto DD = ix(D_);
    switch (est_) {
      case Estimator::random_phase:
        not_in_attention(est_);
      case Estimator::trig:
        trig_row(std::exp(h) * inv_trig, i, o);
        break;
      case Estimator::positive: {
        double* a = args(D_);
        for (Eigen::Index j = 0; j < DD; ++j) a[j] = static_cast<double>(pr[j]) - h;
        exp_row(a, D_, inv, o);
        break;
      }
      case Estimator::hyperbolic: {
        double* a = args(2 * D_);
        for (Eigen::Index j = 0; j < DD; ++j) {
          const double x = static_cast<double>(pr[j]);
          a[j] = x - h;
          a[j + DD] = -x - h;
        }
        exp_row(a, 2 * D_, inv, o);
        break;
      }
    }
  }

  /// Scratch of n double exponents (the exp features).
  double* args(std::size_t n) const {
    if (args_.size() < n) args_.resize(n);
    return args_.data();
  }

  /// o[j] = exp(a[j])·scale in double, rounded to Real once (j < n): std::exp, except that the
  /// float path takes SLEEF's u10 exp on the vector paths (kernels::exp_to_float_avx2).
  static void exp_row(const double* a, std::size_t n, double scale, Real* o) {
#ifndef ROPELAB_SCALAR_ONLY
    if constexpr (std::is_same_v<Real, float>) {
      if (simd::active_isa() != simd::Isa::scalar) {
        kernels::exp_to_float_avx2(a, n, scale, o);
        return;
      }
    }
#endif
    for (std::size_t j = 0; j < n; ++j) o[j] = static_cast<Real>(std::exp(a[j]) * scale);
  }

 private:
  std::size_t D_, norm_D_, d_, F_;
  Estimator est_;
  double scale_;
  Mat omega_t_;                                 // d×D: the scaled frequencies as columns
  mutable std::vector<Real> cos_, sin_, pack_;  // per-thread Featurizer: scratch of features()
  mutable std::vector<double> args_;
};

/// Whether every entry is finite.
template <class Real>
bool all_finite(const RMat<Real>& x) {
  // x·0 is 0 for a finite x and NaN otherwise; four independent sums so that it vectorises
  const Real* p = x.data();
  const std::size_t n = static_cast<std::size_t>(x.size());
  Real s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (std::size_t j = 0; j < 4; ++j) s[j] += p[i + j] * Real(0);
  }
  for (; i < n; ++i) s[0] += p[i] * Real(0);
  return s[0] + s[1] + s[2] + s[3] == Real(0);
}

/// t (cols×rows) = aᵀ, a rows×cols, both row-major; in 8×8 tiles.
template <class Real>
void transpose(const Real* a, std::size_t rows, std::size_t cols, Real* t) {
  for (std::size_t i0 = 0; i0 < rows; i0 += 8) {
    const std::size_t i1 = std::min(rows, i0 + 8);
    for (std::size_t j0 = 0; j0 < cols; j0 += 8) {
      const std::size_t j1 = std::min(cols, j0 + 8);
      for (std::size_t j = j0; j < j1; ++j) {
        for (std::size_t i = i0; i < i1; ++i) t[j * rows + i] = a[i * cols + j];
      }
    }
  }
}

}  // namespace

void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, double scale, const double* shift, double* out, double* log_max) {
  const Featurizer<double> fz(omega, D, d, est, scale, D);
  RowMatrix p, f;
  Vector h;
  fz.project(X, n, p, h);
  fz.features(p, h, shift, f);
  std::copy(f.data(), f.data() + f.size(), out);
  if (log_max != nullptr) {
    for (std::size_t i = 0; i < n; ++i) log_max[i] = fz.log_max(p, h, i);
  }
}

// ----------------------------------------------------------------------------------------------
// Chunked linear attention: the building blocks (one chunk of n ≤ kChunk rows, w = d_v + 1 value
// columns, the last one all ones so that the same products give the denominator). Written for
// both precisions; the scales (rmax, ScaleMerge) are doubles, their factors rounded to Real.

namespace {

template <class Real>
void masked_product(const Real* fq, const Real* fkT, const Real* x, std::size_t n, std::size_t F,
                    std::size_t w, Real* local, std::vector<Real>& A, std::vector<Real>& pack,
                    const double* rmax) {
  // Row blocks of kMaskBlock: block [i0, i1) needs keys [0, i1) only, so the products above the
  // diagonal blocks are never formed; the zeros inside the diagonal block add exact zeros.
  for (std::size_t i0 = 0; i0 < n; i0 += kMaskBlock) {
    const std::size_t i1 = std::min(n, i0 + kMaskBlock), rows = i1 - i0;
    if (A.size() < rows * i1) A.resize(rows * i1);
    mm(rows, i1, F, fq + i0 * F, sd(F), 1, fkT, sd(n), 1, A.data(), i1, false, pack);
    for (std::size_t r = 0; r < rows; ++r) {
      std::fill(A.data() + r * i1 + i0 + r + 1, A.data() + (r + 1) * i1, Real(0));
      if (rmax == nullptr) continue;
      const double ri = rmax[i0 + r];
      Real* a = A.data() + r * i1;
      // keys j ≤ i at the row's running maximum (a factor 1 where the maximum has not grown)
      for (std::size_t j = 0; j <= i0 + r; ++j) {
        if (rmax[j] != ri) a[j] *= static_cast<Real>(std::exp(rmax[j] - ri));
      }
    }
    mm(rows, w, i1, A.data(), sd(i1), 1, x, sd(w), 1, local + i0 * w, w, false, pack);
  }
}

template <class Real>
void state_delta(const Real* fk, const Real* x, std::size_t n, std::size_t F, std::size_t w,
                 Real* dZ, std::vector<Real>& pack) {
  mm(F, w, n, fk, 1, sd(F), x, sd(w), 1, dZ, w, false, pack);
}

template <class Real>
void advance(Real* Z, Real* dZ, std::size_t count, const ScaleMerge& s, bool keep_old) {
  const Real fs = static_cast<Real>(s.f_state), fc = static_cast<Real>(s.f_chunk);
  for (std::size_t i = 0; i < count; ++i) {
    const Real old = Z[i];
    Z[i] = fs * old + fc * dZ[i];
    if (keep_old) dZ[i] = old;
  }
}

template <class Real>
void output_of_chunk(const Real* fq, const Real* Z, const Real* local, std::size_t n, std::size_t F,
                     std::size_t w, const ScaleMerge& s, Real* out, std::vector<Real>& pack) {
  const Real fs = static_cast<Real>(s.f_state), fc = static_cast<Real>(s.f_chunk);
  if (Z == nullptr) {  // the first chunk: no state yet
    for (std::size_t i = 0; i < n * w; ++i) out[i] = fc * local[i];
    return;
  }
  mm(n, w, F, fq, sd(F), 1, Z, sd(w), 1, out, w, false, pack);
  if (local == nullptr) return;  // not causal: the state holds every key
  for (std::size_t i = 0; i < n * w; ++i) out[i] = fc * local[i] + fs * out[i];
}

}  // namespace

void masked_chunk_product(const double* fq, const double* fkT, const double* x, std::size_t n,
                          std::size_t F, std::size_t w, double* local, std::vector<double>& A,
                          std::vector<double>& pack, const double* rmax) {
  masked_product(fq, fkT, x, n, F, w, local, A, pack, rmax);
}

void chunk_state_delta(const double* fk, const double* x, std::size_t n, std::size_t F,
                       std::size_t w, double* dZ, std::vector<double>& pack) {
  state_delta(fk, x, n, F, w, dZ, pack);
}

ScaleMerge merge_scales(double m_state, double m_chunk, bool stabilize) {
  if (!stabilize) return {0.0, 1.0, 1.0, 0.0};
  const double m = std::max(m_state, m_chunk);
  return {m, exp_diff(m_state, m), exp_diff(m_chunk, m), m_state};
}

void advance_state(double* Z, double* dZ, std::size_t count, const ScaleMerge& s, bool keep_old) {
  advance(Z, dZ, count, s, keep_old);
}

void chunk_output(const double* fq, const double* Z, const double* local, std::size_t n,
                  std::size_t F, std::size_t w, const ScaleMerge& s, double* out,
                  std::vector<double>& pack) {
  output_of_chunk(fq, Z, local, n, F, w, s, out, pack);
}

void causal_linear_attention(const double* fq, const double* fk, const double* x, std::size_t T,
                             std::size_t F, std::size_t w, double* out) {
  std::vector<double> Z(F * w, 0.0), dZ(F * w), local(kChunk * w), fkT(F * kChunk), A, pack;
  const ScaleMerge one = merge_scales(0.0, 0.0, false);
  for (std::size_t r0 = 0; r0 < T; r0 += kChunk) {
    const std::size_t n = std::min(kChunk, T - r0);
    transpose(fk + r0 * F, n, F, fkT.data());
    masked_chunk_product(fq + r0 * F, fkT.data(), x + r0 * w, n, F, w, local.data(), A, pack);
    chunk_output(fq + r0 * F, r0 == 0 ? nullptr : Z.data(), local.data(), n, F, w, one,
                 out + r0 * w, pack);
    chunk_state_delta(fk + r0 * F, x + r0 * w, n, F, w, dZ.data(), pack);
    advance_state(Z.data(), dZ.data(), F * w, one, false);
  }
}

namespace {

/// The features of n query rows starting at q_rows, each stabilised by its own log-maximum when
/// stab; qshift receives each row's group scale (Featurizer::projection_max: the row's
/// constant less the −h common to its groups, so that h may even be ∞). pq, hq, qshift and fq
/// are scratch/output. FeatureOverflow("q"): a projection beyond a double (stabilised), or a
/// feature (not stabilised).
template <class Real>
void query_features(const Featurizer<Real>& fz, const Real* q_rows, std::size_t n, bool stab,
                    RMat<Real>& pq, Vector& hq, Vector& qshift, RMat<Real>& fq) {
  constexpr bool single = std::is_same_v<Real, float>;
  fz.project(q_rows, n, pq, hq);
  if (stab && !all_finite(pq)) throw FeatureOverflow("q", kProjection, single);
  qshift.resize(ix(n));
  for (std::size_t i = 0; i < n; ++i) qshift(ix(i)) = stab ? fz.log_max(pq, hq, i) : 0.0;
  fz.features(pq, hq, stab ? qshift.data() : nullptr, fq, stab);
  if (!all_finite(fq)) throw FeatureOverflow("q", kFeature, single);
  for (std::size_t i = 0; stab && i < n; ++i) qshift(ix(i)) = fz.projection_max(pq, i);
}

/// What a chunk contributes before the running state is known: the query features and their
/// shifts, the masked intra-chunk product (causal) and the state increment, the keys scaled by
/// exp(−m_keys).
template <class Real>
struct ChunkParts {
  RMat<Real> fq;     // n×F
  Vector qshift;     // n
  RMat<Real> local;  // n×w (causal)
  RMat<Real> dZ;     // F×w
  Vector rmax;       // n: running maxima of the keys' scales (causal, stabilised; else empty)
  double m_keys = 0;
  std::size_t n = 0;
};

/// Scratch of one thread.
template <class Real>
struct Scratch {
  RMat<Real> pk, pq, fk, fkT, x1, x1s;
  Vector hk, hq, shift;
  std::vector<Real> A, pack, combined;
  ChunkParts<Real> parts;  // of the schedules that use a chunk's parts at once
};

/// Scratch for the tasks of parallel_blocks (one body call per task): each call borrows one, so
/// the buffers are allocated once per thread, not once per chunk.
template <class Real>
class ScratchPool {
 public:
  class Lease {
   public:
    explicit Lease(ScratchPool& pool) : pool_(pool), sc_(pool.take()) {}
    ~Lease() { pool_.give(std::move(sc_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Scratch<Real>& operator*() { return *sc_; }

   private:
    ScratchPool& pool_;
    std::unique_ptr<Scratch<Real>> sc_;
  };

 private:
  std::unique_ptr<Scratch<Real>> take() {
    const std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) return std::make_unique<Scratch<Real>>();
    auto sc = std::move(free_.back());
    free_.pop_back();
    return sc;
  }
  void give(std::unique_ptr<Scratch<Real>> sc) {
    const std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(sc));
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<Scratch<Real>>> free_;

 public:
  /// Frees the scratch not lent out.
  void clear() {
    const std::lock_guard<std::mutex> lock(mu_);
    free_.clear();
  }
};

/// One group's numerator|denominator rows of a chunk: block (n×w) holds the group's sums of row
/// i multiplied by exp(−lam[i]).
template <class Real>
struct GroupBlock {
  std::vector<Real> block;
  std::vector<double> lam;
};

/// The fixed data of one call. A unit is a (trial, sequence); a sub-unit su = unit·G + g is the
/// feature group g of a unit.
template <class Real>
struct Problem {
  const Real *q, *k, *v;
  Shape sh;
  const RandomFeatureOptions* opt;
  std::size_t G, w;
  Real* out;
  Real* num;
  Real* den;
  const std::atomic<bool>* cancel;
};

/// [V | 1] of rows [r0, r0 + n) of sequence seq.
template <class Real>
void values_with_ones(const Problem<Real>& P, std::size_t seq, std::size_t r0, std::size_t n,
                      RMat<Real>& x1) {
  const std::size_t dv = P.sh.dv;
  x1.resize(ix(n), ix(P.w));
  x1.leftCols(ix(dv)) = Eigen::Map<const RMat<Real>>(P.v + (seq * P.sh.S + r0) * dv, ix(n), ix(dv));
  x1.col(ix(dv)).setOnes();
}

/// The key part of chunk [r0, r0 + n): the state increment fkᵀ[V|1] at exp(−m_keys) (m_keys =
/// the largest log-magnitude of the chunk when stabilising, else 0). Key row j's features in
/// sc.fk are scaled by exp(−m_keys), or (running: causal and stabilised) by exp(−r_j) with r_j
/// the running maximum up to j (cp.rmax), for the masked product of the rows before a large key.
template <class Real>
void key_part(const Problem<Real>& P, const Featurizer<Real>& fz, std::size_t seq, std::size_t r0,
              std::size_t n, ChunkParts<Real>& cp, Scratch<Real>& sc) {
  constexpr bool single = std::is_same_v<Real, float>;
  const bool stab = P.opt->stabilize, running = stab && P.opt->causal;
  fz.project(P.k + (seq * P.sh.S + r0) * P.sh.d, n, sc.pk, sc.hk);
  // A key's log-magnitude (its weight against the other keys) must be a double, except that an
  // h = scale·|k|²/2 of ∞ gives positive and hyperbolic features a log-magnitude −∞: weight 0
  // against every key with a finite h (exactly what a double can say; a row that sees only such
  // keys gets a zero denominator). For trig it is +∞: beyond every other key, and any two of
  // them beyond comparison.
  if (stab && !all_finite(sc.pk)) throw FeatureOverflow("k", kProjection, single);
  if (stab && fz.trig() && !sc.hk.allFinite()) throw FeatureOverflow("k", kHalfNorm);
  double m = stab ? kNegInf : 0.0;
  cp.rmax.resize(running ? ix(n) : 0);
  for (std::size_t i = 0; stab && i < n; ++i) {
    m = std::max(m, fz.log_max(sc.pk, sc.hk, i));
    if (running) cp.rmax(ix(i)) = m;
  }
  if (running) {
    sc.shift = cp.rmax;
  } else {
    sc.shift.setConstant(ix(n), m);
  }
  fz.features(sc.pk, sc.hk, stab ? sc.shift.data() : nullptr, sc.fk);
  if (!all_finite(sc.fk)) throw FeatureOverflow("k", kFeature, single);
  cp.m_keys = m;
  cp.n = n;
  values_with_ones(P, seq, r0, n, sc.x1);
  cp.dZ.resize(ix(fz.F()), ix(P.w));
  const Real* x = sc.x1.data();
  if (running && cp.rmax(0) != m) {  // rows at exp(−r_j) → exp(−m): [V|1] scaled by exp(r_j − m)
    sc.x1s = sc.x1;
    for (std::size_t i = 0; i < n; ++i) {
      if (cp.rmax(ix(i)) != m) sc.x1s.row(ix(i)) *= static_cast<Real>(std::exp(cp.rmax(ix(i)) - m));
    }
    x = sc.x1s.data();
  }
  state_delta(sc.fk.data(), x, n, fz.F(), P.w, cp.dZ.data(), sc.pack);
}

/// Everything of causal chunk c that does not need the state: key part, query features, and
/// the masked product tril(fq fkᵀ)[V|1].
template <class Real>
void causal_chunk_parts(const Problem<Real>& P, const Featurizer<Real>& fz, std::size_t seq,
                        std::size_t c, ChunkParts<Real>& cp, Scratch<Real>& sc) {
  const std::size_t r0 = c * kChunk, n = std::min(kChunk, P.sh.T - r0), F = fz.F();
  key_part(P, fz, seq, r0, n, cp, sc);
  query_features(fz, P.q + (seq * P.sh.T + r0) * P.sh.d, n, P.opt->stabilize, sc.pq, sc.hq,
                 cp.qshift, cp.fq);
  sc.fkT.resize(ix(F), ix(n));
  transpose(sc.fk.data(), n, F, sc.fkT.data());
  cp.local.resize(ix(n), ix(P.w));
  masked_product(cp.fq.data(), sc.fkT.data(), sc.x1.data(), n, F, P.w, cp.local.data(), sc.A,
                 sc.pack, cp.rmax.size() == 0 ? nullptr : cp.rmax.data());
}

/// The block of a chunk from its parts and the state Z before it (null for the first chunk),
/// merged by s: f_chunk·local + f_state·(fq Z) (causal; local null: fq Z), at exp(−s.m − qshift).
template <class Real>
void group_block(const Problem<Real>& P, const ChunkParts<Real>& cp, std::size_t F, const Real* Z,
                 const ScaleMerge& s, bool causal, GroupBlock<Real>& gb, Scratch<Real>& sc) {
  gb.block.resize(cp.n * P.w);
  gb.lam.resize(cp.n);
  if (causal && cp.rmax.size() != 0) {
    // row i of the chunk's own sums is at exp(−r_i), the state at exp(−m_state): merged at the
    // larger of the two
    Real* out = gb.block.data();
    if (Z != nullptr)
      output_of_chunk<Real>(cp.fq.data(), Z, nullptr, cp.n, F, P.w, s, out, sc.pack);
    for (std::size_t i = 0; i < cp.n; ++i) {
      const double r = cp.rmax(ix(i));
      const Real* loc = cp.local.data() + i * P.w;
      Real* o = out + i * P.w;
      if (Z == nullptr) {
        std::copy(loc, loc + P.w, o);
        gb.lam[i] = r + cp.qshift(ix(i));
        continue;
      }
      const double top = std::max(s.m_state, r);
      const Real fs = static_cast<Real>(exp_diff(s.m_state, top));
      const Real fc = static_cast<Real>(exp_diff(r, top));
      for (std::size_t j = 0; j < P.w; ++j) o[j] = fc * loc[j] + fs * o[j];
      gb.lam[i] = top + cp.qshift(ix(i));
    }
    return;
  }
  output_of_chunk<Real>(cp.fq.data(), Z, causal ? cp.local.data() : nullptr, cp.n, F, P.w, s,
                        gb.block.data(), sc.pack);
  for (std::size_t i = 0; i < cp.n; ++i) gb.lam[i] = s.m + cp.qshift(ix(i));
}

/// Rows [r0, r0 + n) of unit u from its G group blocks (group g's at blocks[g·stride]): each row
/// merged at the largest of its groups' scales, the groups added in order, then num/den. With one
/// group the block is used as it is.
template <class Real>
void combine_rows(const Problem<Real>& P, std::size_t u, std::size_t r0, std::size_t n,
                  const GroupBlock<Real>* blocks, std::size_t stride, std::vector<Real>& acc) {
  const std::size_t dv = P.sh.dv, w = P.w;
  const Real* merged = blocks[0].block.data();
  if (P.G > 1) {
    acc.assign(n * w, Real(0));
    for (std::size_t i = 0; i < n; ++i) {
      double top = kNegInf;
      for (std::size_t g = 0; g < P.G; ++g) top = std::max(top, blocks[g * stride].lam[i]);
      for (std::size_t g = 0; g < P.G; ++g) {
        const GroupBlock<Real>& gb = blocks[g * stride];
        const Real f = static_cast<Real>(std::exp(gb.lam[i] - top));
        for (std::size_t j = 0; j < w; ++j) acc[i * w + j] += f * gb.block[i * w + j];
      }
    }
    merged = acc.data();
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Real* b = merged + i * w;
    const std::size_t row = u * P.sh.T + r0 + i;
    Real* o = P.out + row * dv;
    // a numerator beyond a double beside a finite denominator (which v does not enter) is the
    // values' doing: named as such, not left to look like a vanished denominator (a denominator
    // that is not finite, e.g. every key's weight vanished, is reported by the caller)
    if (std::isfinite(b[dv])) {
      for (std::size_t j = 0; j < dv; ++j) {
        if (!std::isfinite(b[j])) throw ValueOverflow(std::is_same_v<Real, float>);
      }
    }
    for (std::size_t j = 0; j < dv; ++j) o[j] = b[j] / b[dv];
    if (P.num != nullptr) std::copy(b, b + dv, P.num + row * dv);
    if (P.den != nullptr) P.den[row] = b[dv];
  }
}

/// The G featurizers of a trial: group g holds the frequencies [g·D/G, (g + 1)·D/G), its
/// features normalised for all D.
template <class Real>
std::vector<Featurizer<Real>> group_featurizers(const Problem<Real>& P, std::size_t trial) {
  const RandomFeatureOptions& opt = *P.opt;
  std::vector<double> omega(opt.D * P.sh.d);
  trial_omega(opt, P.sh.d, trial, omega.data());
  std::vector<Featurizer<Real>> fz;
  fz.reserve(P.G);
  for (std::size_t g = 0; g < P.G; ++g) {
    const std::size_t f0 = g * opt.D / P.G, f1 = (g + 1) * opt.D / P.G;
    fz.emplace_back(omega.data() + f0 * P.sh.d, f1 - f0, P.sh.d, opt.estimator, opt.scale, opt.D);
  }
  return fz;
}

/// The running state of one sub-unit, its scale, and the merges of a window's chunks.
template <class Real>
struct GroupRun {
  std::vector<Real> Z;
  double m = 0;
  std::vector<ScaleMerge> merge;
  void reset(const Problem<Real>& P, std::size_t F) {
    Z.assign(F * P.w, Real(0));
    m = P.opt->stabilize ? kNegInf : 0.0;
  }
};

/// Chunk c of one sub-unit on the calling thread: its parts, then (causal) its block from the
/// state before it, then the state advanced past it.
template <class Real>
void run_group_chunk(const Problem<Real>& P, const Featurizer<Real>& fz, std::size_t seq,
                     std::size_t c, GroupRun<Real>& run, ChunkParts<Real>& cp, GroupBlock<Real>* gb,
                     Scratch<Real>& sc) {
  const bool causal = P.opt->causal;
  if (causal) {
    causal_chunk_parts(P, fz, seq, c, cp, sc);
  } else {
    key_part(P, fz, seq, c * kChunk, std::min(kChunk, P.sh.S - c * kChunk), cp, sc);
  }
  const ScaleMerge s = merge_scales(run.m, cp.m_keys, P.opt->stabilize);
  if (causal) group_block(P, cp, fz.F(), c == 0 ? nullptr : run.Z.data(), s, true, *gb, sc);
  advance(run.Z.data(), cp.dZ.data(), fz.F() * P.w, s, false);
  run.m = s.m;
}

/// Non-causal query chunk c of unit u against its groups' complete states: every group's block,
/// combined.
template <class Real>
void noncausal_queries(const Problem<Real>& P, const std::vector<Featurizer<Real>>& fz,
                       std::size_t u, std::size_t c, const GroupRun<Real>* runs,
                       ChunkParts<Real>& cp, std::vector<GroupBlock<Real>>& blocks,
                       Scratch<Real>& sc) {
  const std::size_t seq = u % P.sh.batch, r0 = c * kChunk, n = std::min(kChunk, P.sh.T - r0);
  blocks.resize(P.G);
  for (std::size_t g = 0; g < P.G; ++g) {
    query_features(fz[g], P.q + (seq * P.sh.T + r0) * P.sh.d, n, P.opt->stabilize, sc.pq, sc.hq,
                   cp.qshift, cp.fq);
    cp.n = n;
    group_block(P, cp, fz[g].F(), runs[g].Z.data(), ScaleMerge{runs[g].m, 1.0, 1.0}, false,
                blocks[g], sc);
  }
  combine_rows(P, u, r0, n, blocks.data(), 1, sc.combined);
}

/// Every unit on one thread each (enough units to keep the threads busy): chunk after chunk,
/// every group of a chunk before the next chunk.
template <class Real>
void run_by_unit(const Problem<Real>& P, std::size_t units, int nthreads) {
  const std::size_t chunks = (P.sh.S + kChunk - 1) / kChunk;
  mc::parallel_blocks(
      units, 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        Scratch<Real> sc;
        ChunkParts<Real> cp;
        std::vector<GroupRun<Real>> runs(P.G);
        std::vector<GroupBlock<Real>> blocks(P.G);
        std::vector<Featurizer<Real>> fz;
        std::size_t trial = 0;
        for (std::size_t u = b0; u < b1; ++u) {
          if (fz.empty() || trial != u / P.sh.batch) fz = group_featurizers(P, u / P.sh.batch);
          trial = u / P.sh.batch;
          const std::size_t seq = u % P.sh.batch;
          for (std::size_t g = 0; g < P.G; ++g) runs[g].reset(P, fz[g].F());
          for (std::size_t c = 0; c < chunks; ++c) {
            if (is_cancelled(P.cancel)) throw mc::Cancelled();
            for (std::size_t g = 0; g < P.G; ++g) {
              run_group_chunk(P, fz[g], seq, c, runs[g], cp, &blocks[g], sc);
            }
            if (P.opt->causal) {
              combine_rows(P, u, c * kChunk, cp.n, blocks.data(), 1, sc.combined);
            }
          }
          if (P.opt->causal) continue;
          for (std::size_t c = 0; c * kChunk < P.sh.T; ++c) {
            if (is_cancelled(P.cancel)) throw mc::Cancelled();
            noncausal_queries(P, fz, u, c, runs.data(), cp, blocks, sc);
          }
        }
      },
      P.cancel);
}

/// A thread's own copy of a sub-unit's Featurizer (whose evaluation scratch is not shareable).
template <class Real>
struct ThreadFeaturizer {
  std::optional<Featurizer<Real>> fz;
  std::size_t unit = 0;
  const Featurizer<Real>& of(const std::vector<Featurizer<Real>>& all, std::size_t su) {
    if (!fz || unit != su) fz.emplace(all[su]);
    unit = su;
    return *fz;
  }
};

/// The large buffers of the windowed schedules, kept on the calling thread from one call to the
/// next while they hold at most kKeptBytes (release() otherwise). Allocated anew in every call,
/// their pages — mapped afresh for every block of 128 KiB or more — fault on first touch each
/// time: about 3000 faults a call for one sequence on 16 threads (T = 4096, D = 256), which cost
/// milliseconds on a virtual machine. Every buffer is written before it is read in a call (as
/// between the windows of one call), so what a previous call left there is never used.
template <class Real>
struct WindowBuffers {
  static constexpr std::size_t kKeptBytes = std::size_t{64} << 20;
  std::vector<GroupRun<Real>> runs;  // [su]
  std::vector<ChunkParts<Real>> parts;
  std::vector<GroupBlock<Real>> blocks;
  ScratchPool<Real> pool;

  /// The bytes of the runs, parts and blocks (the thread scratch of `pool` is not counted).
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const GroupRun<Real>& r : runs) n += r.Z.capacity() * sizeof(Real);
    for (const ChunkParts<Real>& p : parts) {
      n += static_cast<std::size_t>(p.fq.size() + p.local.size() + p.dZ.size()) * sizeof(Real);
    }
    for (const GroupBlock<Real>& b : blocks) {
      n += b.block.capacity() * sizeof(Real) + b.lam.capacity() * sizeof(double);
    }
    return n;
  }
  /// Frees everything when the buffers hold more than kKeptBytes.
  void trim() {
    if (bytes() <= kKeptBytes) return;
    runs = {};
    parts = {};
    blocks = {};
    pool.clear();
  }
};

/// The data of the windowed schedules: per sub-unit its featurizer and running state, per
/// (sub-unit, chunk of the window) its block and, in the three-step schedule, its parts (the
/// buffers: the calling thread's WindowBuffers).
template <class Real>
struct Windows {
  std::vector<Featurizer<Real>> fz;  // [su]
  WindowBuffers<Real>& buffers;
  std::vector<GroupRun<Real>>& runs;  // [su]
  std::vector<ChunkParts<Real>>& parts;
  std::vector<GroupBlock<Real>>& blocks;
  std::size_t nc = 0;  // chunks per window
  ScratchPool<Real>& pool;

  Windows(const Problem<Real>& P, std::size_t units, std::size_t nc_max, WindowBuffers<Real>& buf)
      : buffers(buf),
        runs(buf.runs),
        parts(buf.parts),
        blocks(buf.blocks),
        nc(nc_max),
        pool(buf.pool) {
    for (std::size_t u = 0; u < units; ++u) {
      for (Featurizer<Real>& f : group_featurizers(P, u / P.sh.batch)) fz.push_back(std::move(f));
    }
    runs.resize(fz.size());
    for (std::size_t su = 0; su < fz.size(); ++su) {
      runs[su].reset(P, fz[su].F());
      runs[su].merge.resize(nc);
    }
    blocks.resize(fz.size() * nc);
  }
};

/// The window's rows of every unit from the blocks of its groups (causal), in parallel.
template <class Real>
void combine_window(const Problem<Real>& P, Windows<Real>& W, std::size_t units, std::size_t c0,
                    std::size_t nc, int nthreads) {
  mc::parallel_blocks(
      units * nc, 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        typename ScratchPool<Real>::Lease lease(W.pool);
        for (std::size_t t = b0; t < b1; ++t) {
          const std::size_t u = t / nc, j = t % nc;
          const std::size_t r0 = (c0 + j) * kChunk;
          combine_rows(P, u, r0, std::min(kChunk, P.sh.T - r0), &W.blocks[u * P.G * W.nc + j], W.nc,
                       (*lease).combined);
        }
      },
      P.cancel);
}

/// The chunks [c0, c0 + nc) with one task per sub-unit (at least as many sub-units as threads):
/// each runs its chunks in order.
template <class Real>
void run_window_by_group(const Problem<Real>& P, Windows<Real>& W, std::size_t c0, std::size_t nc,
                         int nthreads) {
  mc::parallel_blocks(
      W.fz.size(), 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        typename ScratchPool<Real>::Lease lease(W.pool);
        Scratch<Real>& sc = *lease;
        for (std::size_t su = b0; su < b1; ++su) {
          const Featurizer<Real> fz(W.fz[su]);
          const std::size_t seq = (su / P.G) % P.sh.batch;
          for (std::size_t j = 0; j < nc; ++j) {
            if (is_cancelled(P.cancel)) throw mc::Cancelled();
            run_group_chunk(P, fz, seq, c0 + j, W.runs[su], sc.parts, &W.blocks[su * W.nc + j], sc);
          }
        }
      },
      P.cancel);
}

/// The chunks [c0, c0 + nc) of every sub-unit in three parallel steps (fewer sub-units than
/// threads; W.parts holds every chunk's parts): the chunk parts, the state advanced in order (in
/// parallel over slices of its entries; each chunk's dZ replaced by the state before it), then the
/// blocks (causal). The same arithmetic as run_group_chunk, chunk by chunk.
template <class Real>
void run_window_in_steps(const Problem<Real>& P, Windows<Real>& W, std::size_t c0, std::size_t nc,
                         int nthreads) {
  const std::size_t ns = W.fz.size();
  const bool causal = P.opt->causal, stab = P.opt->stabilize;
  W.parts.resize(ns * W.nc);
  mc::parallel_blocks(
      ns * nc, 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        typename ScratchPool<Real>::Lease lease(W.pool);
        ThreadFeaturizer<Real> tf;
        for (std::size_t t = b0; t < b1; ++t) {
          const std::size_t su = t / nc, c = c0 + t % nc, seq = (su / P.G) % P.sh.batch;
          ChunkParts<Real>& cp = W.parts[su * W.nc + t % nc];
          if (causal) {
            causal_chunk_parts(P, tf.of(W.fz, su), seq, c, cp, *lease);
          } else {
            const std::size_t r0 = c * kChunk;
            key_part(P, tf.of(W.fz, su), seq, r0, std::min(kChunk, P.sh.S - r0), cp, *lease);
          }
        }
      },
      P.cancel);
  for (std::size_t su = 0; su < ns; ++su) {
    GroupRun<Real>& run = W.runs[su];
    for (std::size_t j = 0; j < nc; ++j) {
      run.merge[j] = merge_scales(run.m, W.parts[su * W.nc + j].m_keys, stab);
      run.m = run.merge[j].m;
    }
  }
  // slices of every sub-unit's state entries: ≥ 4096 entries each, at most 16 per sub-unit
  std::vector<std::pair<std::size_t, std::size_t>> slices;  // (sub-unit, first entry)
  std::vector<std::size_t> per(ns);
  for (std::size_t su = 0; su < ns; ++su) {
    const std::size_t FW = W.runs[su].Z.size();
    const std::size_t count = std::max<std::size_t>(1, std::min<std::size_t>(FW / 4096, 16));
    per[su] = (FW + count - 1) / count;
    for (std::size_t f0 = 0; f0 < FW; f0 += per[su]) slices.emplace_back(su, f0);
  }
  mc::parallel_blocks(
      slices.size(), 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        for (std::size_t t = b0; t < b1; ++t) {
          const auto [su, f0] = slices[t];
          GroupRun<Real>& run = W.runs[su];
          const std::size_t f1 = std::min(run.Z.size(), f0 + per[su]);
          for (std::size_t j = 0; j < nc; ++j) {
            advance(run.Z.data() + f0, W.parts[su * W.nc + j].dZ.data() + f0, f1 - f0, run.merge[j],
                    causal);
          }
        }
      },
      P.cancel);
  if (!causal) return;
  mc::parallel_blocks(
      ns * nc, 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        typename ScratchPool<Real>::Lease lease(W.pool);
        for (std::size_t t = b0; t < b1; ++t) {
          const std::size_t su = t / nc, j = t % nc, i = su * W.nc + j;
          const ChunkParts<Real>& cp = W.parts[i];
          group_block(P, cp, W.fz[su].F(), c0 + j == 0 ? nullptr : cp.dZ.data(),
                      W.runs[su].merge[j], true, W.blocks[i], *lease);
        }
      },
      P.cancel);
}

/// Fewer units than threads: windows of chunks, by sub-unit when there are at least as many
/// sub-units as threads, else in three parallel steps; then (non-causal) the queries.
template <class Real>
void run_by_window(const Problem<Real>& P, std::size_t units, int nthreads) {
  const std::size_t chunks = (P.sh.S + kChunk - 1) / kChunk, subunits = units * P.G;
  const bool by_group = subunits >= static_cast<std::size_t>(nthreads);
  const std::size_t per_sub = std::max<std::size_t>(
      kWindowChunks, (4 * static_cast<std::size_t>(nthreads) + subunits - 1) / subunits);
  thread_local WindowBuffers<Real> buffers;
  // (released on every way out of the call when it grew beyond kKeptBytes)
  struct Trim {
    WindowBuffers<Real>& b;
    ~Trim() { b.trim(); }
  } trim{buffers};
  Windows<Real> W(P, units, std::min(chunks, per_sub), buffers);
  for (std::size_t c0 = 0; c0 < chunks; c0 += W.nc) {
    const std::size_t nc = std::min(W.nc, chunks - c0);
    if (by_group) {
      run_window_by_group(P, W, c0, nc, nthreads);
    } else {
      run_window_in_steps(P, W, c0, nc, nthreads);
    }
    if (P.opt->causal) combine_window(P, W, units, c0, nc, nthreads);
  }
  if (P.opt->causal) return;
  const std::size_t qchunks = (P.sh.T + kChunk - 1) / kChunk;
  mc::parallel_blocks(
      units * qchunks, 1, nthreads,
      [&](std::size_t b0, std::size_t b1) {
        typename ScratchPool<Real>::Lease lease(W.pool);
        ChunkParts<Real> cp;
        std::vector<GroupBlock<Real>> blocks;
        std::vector<Featurizer<Real>> fz;
        std::size_t held = units;
        for (std::size_t t = b0; t < b1; ++t) {
          const std::size_t u = t / qchunks;
          if (held != u) fz.assign(W.fz.begin() + u * P.G, W.fz.begin() + (u + 1) * P.G);
          held = u;
          noncausal_queries(P, fz, u, t % qchunks, W.runs.data() + u * P.G, cp, blocks, *lease);
        }
      },
      P.cancel);
}

}  // namespace

std::size_t group_count(std::size_t D) {
  return std::max<std::size_t>(1, (D + kGroupFrequencies - 1) / kGroupFrequencies);
}

namespace {

template <class Real>
void random_feature_impl(const Real* q, const Real* k, const Real* v, const Shape& sh,
                         const RandomFeatureOptions& opt, Real* out, Real* num, Real* den,
                         const std::atomic<bool>* cancel) {
  if (opt.causal && sh.T != sh.S) throw std::invalid_argument("causal attention requires T == S");
  if (opt.sigma.size() != 1 && opt.sigma.size() != sh.d) {
    throw std::invalid_argument("sigma must have 1 or d entries");
  }
  const Problem<Real> P{q, k, v, sh, &opt, group_count(opt.D), sh.dv + 1, out, num, den, cancel};
  const std::size_t units = opt.trials * sh.batch;
  if (units == 0 || sh.T == 0) return;
  const int nthreads = mc::resolve_threads(opt.nthreads);
  // Every schedule does the same arithmetic in the same order per sub-unit and chunk, and
  // combines the groups in the same order: the choice (a function of the thread count) does not
  // change a bit of the result.
  if (units >= static_cast<std::size_t>(nthreads)) {
    run_by_unit(P, units, nthreads);
  } else {
    run_by_window(P, units, nthreads);
  }
}

}  // namespace

void random_feature(const double* q, const double* k, const double* v, const Shape& sh,
                    const RandomFeatureOptions& opt, double* out, double* num, double* den,
                    const std::atomic<bool>* cancel) {
  random_feature_impl<double>(q, k, v, sh, opt, out, num, den, cancel);
}

void random_feature(const float* q, const float* k, const float* v, const Shape& sh,
                    const RandomFeatureOptions& opt, float* out, float* num, float* den,
                    const std::atomic<bool>* cancel) {
  random_feature_impl<float>(q, k, v, sh, opt, out, num, den, cancel);
}

}  // namespace ropelab::attention
