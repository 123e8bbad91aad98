#include "ropelab/attention.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/attention_kernels.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/rff.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::attention {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
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
/// B[p·b_rs + j·b_cs]. The AVX2 + FMA kernel (attention_kernels.hpp) when the active SIMD path
/// is a vector one, else Eigen. `pack`: scratch of the caller's thread.
void mm(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
        std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs, double* C,
        std::size_t ldc, bool accumulate, std::vector<double>& pack) {
  if (m == 0 || n == 0) return;
#ifndef ROPELAB_SCALAR_ONLY
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

std::ptrdiff_t sd(std::size_t n) {
  return static_cast<std::ptrdiff_t>(n);
}

}  // namespace

Estimator parse_estimator(const std::string& name) {
  if (name == "trig") return Estimator::trig;
  if (name == "positive") return Estimator::positive;
  if (name == "hyperbolic") return Estimator::hyperbolic;
  throw std::invalid_argument("estimator must be one of 'trig', 'positive', 'hyperbolic', got '" +
                              name + "'");
}

std::size_t feature_count(Estimator est, std::size_t D) {
  return est == Estimator::positive ? D : 2 * D;
}

// ----------------------------------------------------------------------------------------------
// Exact attention.

void softmax(const double* q, const double* k, const double* v, const Shape& sh, double scale,
             bool causal, const Bias* bias, int nthreads, double* out,
             const std::atomic<bool>* cancel) {
  if (causal && sh.T != sh.S) throw std::invalid_argument("causal attention requires T == S");
  const std::size_t nqb = (sh.T + kQueryBlock - 1) / kQueryBlock;
  const std::size_t ntasks = sh.batch * nqb;
  mc::parallel_blocks(
      ntasks, 1, nthreads,
      [&](std::size_t begin, std::size_t end) {
        RowMatrix scores, weights, acc;
        Vector m, l, alpha;
        std::vector<double> pack;
        for (std::size_t task = begin; task < end; ++task) {
          const std::size_t b = task / nqb, i0 = (task % nqb) * kQueryBlock;
          const std::size_t i1 = std::min(sh.T, i0 + kQueryBlock), nq = i1 - i0;
          const CMap Q(q + (b * sh.T + i0) * sh.d, ix(nq), ix(sh.d));
          const std::size_t kend = causal ? i1 : sh.S;
          acc.setZero(ix(nq), ix(sh.dv));
          m.setConstant(ix(nq), kNegInf);
          l.setZero(ix(nq));
          for (std::size_t j0 = 0; j0 < kend; j0 += kKeyBlock) {
            if (is_cancelled(cancel)) throw mc::Cancelled();
            const std::size_t j1 = std::min(kend, j0 + kKeyBlock), nk = j1 - j0;
            const double* K = k + (b * sh.S + j0) * sh.d;
            const double* V = v + (b * sh.S + j0) * sh.dv;
            scores.resize(ix(nq), ix(nk));
            mm(nq, nk, sh.d, Q.data(), sd(sh.d), 1, K, 1, sd(sh.d), scores.data(), nk, false, pack);
            scores *= scale;
            if (bias != nullptr) {
              const double* base = bias->data + bias->batch_offset[b];
              for (std::size_t i = 0; i < nq; ++i) {
                const double* row = base + static_cast<std::int64_t>(i0 + i) * bias->stride_t;
                for (std::size_t j = 0; j < nk; ++j) {
                  scores(ix(i), ix(j)) += row[static_cast<std::int64_t>(j0 + j) * bias->stride_s];
                }
              }
            }
            if (causal && j1 > i0 + 1) {
              for (std::size_t i = 0; i < nq; ++i) {
                for (std::size_t j = std::max(j0, i0 + i + 1); j < j1; ++j) {
                  scores(ix(i), ix(j - j0)) = kNegInf;
                }
              }
            }
            weights.resize(ix(nq), ix(nk));
            alpha.resize(ix(nq));
            for (std::size_t i = 0; i < nq; ++i) {
              const auto r = ix(i);
              const double mnew = std::max(m(r), scores.row(r).maxCoeff());
              if (mnew == kNegInf) {  // every key so far masked: nothing to add
                weights.row(r).setZero();
                alpha(r) = 1.0;
                continue;
              }
              alpha(r) = exp_diff(m(r), mnew);
              double s = 0;
              for (std::size_t j = 0; j < nk; ++j) {
                const double w = std::exp(scores(r, ix(j)) - mnew);
                weights(r, ix(j)) = w;
                s += w;
              }
              l(r) = alpha(r) * l(r) + s;
              m(r) = mnew;
            }
            acc = alpha.asDiagonal() * acc;
            mm(nq, sh.dv, nk, weights.data(), sd(nk), 1, V, sd(sh.dv), 1, acc.data(), sh.dv, true,
               pack);
          }
          for (std::size_t i = 0; i < nq; ++i) {
            if (!(l(ix(i)) > 0)) throw EmptyRow(b, i0 + i);
            Map(out + (b * sh.T + i0 + i) * sh.dv, 1, ix(sh.dv)) = acc.row(ix(i)) / l(ix(i));
          }
        }
      },
      cancel);
}

// ----------------------------------------------------------------------------------------------
// Random features.

void trial_omega(const RandomFeatureOptions& opt, std::size_t d, std::uint64_t trial, double* out) {
  const bool scalar = opt.sigma.size() == 1;
  rff::sample_omega(opt.D, d, scalar ? opt.sigma[0] : 1.0, opt.seed, opt.orthogonal, trial, out);
  if (!scalar) {
    for (std::size_t r = 0; r < opt.D; ++r) {
      for (std::size_t c = 0; c < d; ++c) out[r * d + c] *= opt.sigma[c];
    }
  }
}

namespace {

/// Feature evaluation for one trial: ω' = √scale·ω, so that ω'·x = ω·(√scale x).
class Featurizer {
 public:
  Featurizer(const double* omega, std::size_t D, std::size_t d, Estimator est, double scale)
      : D_(D),
        d_(d),
        F_(feature_count(est, D)),
        est_(est),
        scale_(scale),
        omega_t_((CMap(omega, ix(D), ix(d)) * std::sqrt(scale)).transpose()) {}

  std::size_t F() const { return F_; }

  /// Projections p (n×D) and half norms h (n) of the rows of X.
  void project(const double* X, std::size_t n, RowMatrix& p, Vector& h) const {
    const CMap x(X, ix(n), ix(d_));
    p.resize(ix(n), ix(D_));
    mm(n, D_, d_, X, sd(d_), 1, omega_t_.data(), sd(D_), 1, p.data(), D_, false, pack_);
    h = 0.5 * scale_ * x.rowwise().squaredNorm();
  }

  /// max_f ℓ of row i.
  double log_max(const RowMatrix& p, const Vector& h, std::size_t i) const {
    const auto r = ix(i);
    switch (est_) {
      case Estimator::trig:
        return h(r);
      case Estimator::positive:
        return p.row(r).maxCoeff() - h(r);
      case Estimator::hyperbolic:
        return p.row(r).cwiseAbs().maxCoeff() - h(r);
    }
    return 0;
  }

  /// out (n×F) = features of the n rows, row i multiplied by exp(−shift(i)).
  void features(const RowMatrix& p, const Vector& h, const double* shift, RowMatrix& out) const {
    const auto n = p.rows(), DD = ix(D_);
    out.resize(n, ix(F_));
    const double inv =
        1.0 / std::sqrt(static_cast<double>(est_ == Estimator::positive ? D_ : 2 * D_));
    const double inv_trig = 1.0 / std::sqrt(static_cast<double>(D_));
    if (est_ == Estimator::trig) {
      // cos and sin of every projection, SLEEF u10 (≤ 1 ulp): on the vector paths its AVX2 sincos;
      // on the scalar path its cosine, with sin p = cos(p − π/2), whose absolute error stays below
      // 1 ulp of |p| + 1 ulp of π/2.
      const std::size_t m = static_cast<std::size_t>(p.size());
      cos_.resize(m);
      sin_.resize(m);
#ifndef ROPELAB_SCALAR_ONLY
      if (simd::active_isa() != simd::Isa::scalar) {
        // vector paths: SLEEF's sincos (u10) of AVX2, both at once
        kernels::sincos_avx2(p.data(), m, cos_.data(), sin_.data());
      } else
#endif
      {
        for (std::size_t j = 0; j < m; ++j) sin_[j] = p.data()[j] - kHalfPi;
        const simd::Kernels& kern = simd::kernels();
        kern.cos(p.data(), m, cos_.data());
        kern.cos(sin_.data(), m, sin_.data());
      }
    }
    for (Eigen::Index i = 0; i < n; ++i) {
      const double s = shift != nullptr ? shift[i] : 0.0;
      const double* pr = p.data() + i * DD;
      double* o = out.data() + i * ix(F_);
      switch (est_) {
        case Estimator::trig: {
          const double amp = std::exp(h(i) - s) * inv_trig;
          const double* c = cos_.data() + i * DD;
          const double* sn = sin_.data() + i * DD;
          for (Eigen::Index j = 0; j < DD; ++j) {
            o[j] = amp * c[j];
            o[j + DD] = amp * sn[j];
          }
          break;
        }
        case Estimator::positive: {
          const double c = h(i) + s;
          for (Eigen::Index j = 0; j < DD; ++j) o[j] = std::exp(pr[j] - c) * inv;
          break;
        }
        case Estimator::hyperbolic: {
          const double c = h(i) + s;
          for (Eigen::Index j = 0; j < DD; ++j) {
            o[j] = std::exp(pr[j] - c) * inv;
            o[j + DD] = std::exp(-pr[j] - c) * inv;
          }
          break;
        }
      }
    }
  }

 private:
  std::size_t D_, d_, F_;
  Estimator est_;
  double scale_;
  RowMatrix omega_t_;                             // d×D: the scaled frequencies as columns
  mutable std::vector<double> cos_, sin_, pack_;  // per-thread Featurizer: scratch of features()
};

/// Whether every entry is finite (one contiguous pass; NaN fails the comparison).
bool all_finite(const RowMatrix& x) {
  const double* p = x.data();
  const std::size_t n = static_cast<std::size_t>(x.size());
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) ok &= std::abs(p[i]) <= std::numeric_limits<double>::max();
  return ok;
}

}  // namespace

void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, double scale, const double* shift, double* out, double* log_max) {
  const Featurizer fz(omega, D, d, est, scale);
  RowMatrix p, f;
  Vector h;
  fz.project(X, n, p, h);
  fz.features(p, h, shift, f);
  std::copy(f.data(), f.data() + f.size(), out);
  if (log_max != nullptr) {
    for (std::size_t i = 0; i < n; ++i) log_max[i] = fz.log_max(p, h, i);
  }
}

namespace {

/// The state of a run of keys: Z = Σ φ(k_j) v_jᵀ (F×dv), z = Σ φ(k_j), both scaled by exp(−m).
struct State {
  RowMatrix Z;
  Vector z;
  double m = kNegInf;
  void reset(std::size_t F, std::size_t dv, bool stabilize) {
    Z.setZero(ix(F), ix(dv));
    z.setZero(ix(F));
    m = stabilize ? kNegInf : 0.0;
  }
  /// Rescale to a new maximum m2 ≥ m.
  void rescale(double m2) {
    if (m2 == m) return;
    const double f = exp_diff(m, m2);
    Z *= f;
    z *= f;
    m = m2;
  }
};

/// How a sequence is cut: chunks of kChunk rows, segments of `per` whole chunks.
struct Segments {
  std::size_t n = 0, chunks = 0, per = 0, count = 0;
  explicit Segments(std::size_t rows) : n(rows) {
    chunks = (rows + kChunk - 1) / kChunk;
    count = std::min(kMaxSegments, chunks);
    per = count == 0 ? 0 : (chunks + count - 1) / count;
    count = per == 0 ? 0 : (chunks + per - 1) / per;
  }
  std::size_t chunk_begin(std::size_t g) const { return g * per; }
  std::size_t chunk_end(std::size_t g) const { return std::min(chunks, (g + 1) * per); }
  std::size_t row_begin(std::size_t c) const { return c * kChunk; }
  std::size_t row_end(std::size_t c) const { return std::min(n, (c + 1) * kChunk); }
};

/// The features of n query rows starting at q_rows, each stabilised by its own log-maximum when
/// stab (FeatureOverflow("q") when one is not finite); pq, hq, qshift and fq are scratch/output.
void query_features(const Featurizer& fz, const double* q_rows, std::size_t n, bool stab,
                    RowMatrix& pq, Vector& hq, Vector& qshift, RowMatrix& fq) {
  fz.project(q_rows, n, pq, hq);
  qshift.resize(ix(n));
  for (std::size_t i = 0; i < n; ++i) qshift(ix(i)) = stab ? fz.log_max(pq, hq, i) : 0.0;
  fz.features(pq, hq, qshift.data(), fq);
  if (!all_finite(fq)) throw FeatureOverflow("q");
}

}  // namespace

void random_feature(const double* q, const double* k, const double* v, const Shape& sh,
                    const RandomFeatureOptions& opt, double* out, double* num, double* den,
                    const std::atomic<bool>* cancel) {
  if (opt.causal && sh.T != sh.S) throw std::invalid_argument("causal attention requires T == S");
  if (opt.sigma.size() != 1 && opt.sigma.size() != sh.d) {
    throw std::invalid_argument("sigma must have 1 or d entries");
  }
  const std::size_t d = sh.d, dv = sh.dv, D = opt.D, F = feature_count(opt.estimator, D);
  const bool causal = opt.causal, stab = opt.stabilize;
  const Segments qs(sh.T), ks(sh.S);  // causal: the same cut
  const std::size_t units = opt.trials * sh.batch;
  const int nthreads = mc::resolve_threads(opt.nthreads);
  // Units (trial, sequence) are processed in groups; grouping only schedules work: every unit's
  // numbers are computed in the same order whatever the group or thread.
  const std::size_t group = std::max<std::size_t>(1, 2 * static_cast<std::size_t>(nthreads));

  std::vector<double> omegas;    // per unit of the group: D×d
  std::vector<State> states;     // per unit and key segment
  std::vector<double> denom;     // per unit: T (causal: the local sums, then the totals)
  std::vector<double> chunk_m;   // causal: per unit and query chunk, the key maximum used
  std::vector<double> prefix_m;  // causal: per unit and segment, the prefix's maximum

  for (std::size_t u0 = 0; u0 < units; u0 += group) {
    const std::size_t nu = std::min(group, units - u0);
    omegas.assign(nu * D * d, 0.0);
    states.assign(nu * ks.count, State{});
    denom.assign(nu * sh.T, 0.0);
    chunk_m.assign(causal ? nu * qs.chunks : 0, 0.0);
    prefix_m.assign(causal ? nu * ks.count : 0, kNegInf);

    mc::parallel_blocks(
        nu, 1, nthreads,
        [&](std::size_t b0, std::size_t b1) {
          for (std::size_t u = b0; u < b1; ++u) {
            trial_omega(opt, d, (u0 + u) / sh.batch, omegas.data() + u * D * d);
          }
        },
        cancel);

    auto out_rows = [&](std::size_t u) { return out + (u0 + u) * sh.T * dv; };

    // Phase 1: per key segment, its state; causal: also the intra-segment sums of its queries.
    mc::parallel_blocks(
        nu * ks.count, 1, nthreads,
        [&](std::size_t b0, std::size_t b1) {
          RowMatrix pk, pq, fk, fq, A;
          Vector hk, hq, qshift;
          std::vector<double> pack;
          for (std::size_t task = b0; task < b1; ++task) {
            const std::size_t u = task / ks.count, g = task % ks.count, seq = (u0 + u) % sh.batch;
            const Featurizer fz(omegas.data() + u * D * d, D, d, opt.estimator, opt.scale);
            State& st = states[task];
            st.reset(F, dv, stab);
            for (std::size_t c = ks.chunk_begin(g); c < ks.chunk_end(g); ++c) {
              if (is_cancelled(cancel)) throw mc::Cancelled();
              const std::size_t r0 = ks.row_begin(c), r1 = ks.row_end(c), n = r1 - r0;
              fz.project(k + (seq * sh.S + r0) * d, n, pk, hk);
              if (stab) {
                double mc = kNegInf;
                for (std::size_t i = 0; i < n; ++i) mc = std::max(mc, fz.log_max(pk, hk, i));
                if (mc > st.m) st.rescale(mc);
              }
              qshift.setConstant(ix(n), st.m);
              fz.features(pk, hk, qshift.data(), fk);
              if (!all_finite(fk)) throw FeatureOverflow("k");
              const CMap V(v + (seq * sh.S + r0) * dv, ix(n), ix(dv));
              if (causal) {
                query_features(fz, q + (seq * sh.T + r0) * d, n, stab, pq, hq, qshift, fq);
                A.resize(ix(n), ix(n));
                mm(n, n, F, fq.data(), sd(F), 1, fk.data(), 1, sd(F), A.data(), n, false, pack);
                A.triangularView<Eigen::StrictlyUpper>().setZero();
                double* N = out_rows(u) + r0 * dv;
                Eigen::Map<Vector> dn(denom.data() + u * sh.T + r0, ix(n));
                // The first chunk of a segment meets a zero state: fq·0 is exactly 0, skip it.
                const bool zero_state = c == ks.chunk_begin(g);
                if (!zero_state) {
                  mm(n, dv, F, fq.data(), sd(F), 1, st.Z.data(), sd(dv), 1, N, dv, false, pack);
                  mm(n, 1, F, fq.data(), sd(F), 1, st.z.data(), 1, 1, dn.data(), 1, false, pack);
                }
                mm(n, dv, n, A.data(), sd(n), 1, V.data(), sd(dv), 1, N, dv, !zero_state, pack);
                if (zero_state) dn.setZero();
                dn += A.rowwise().sum();
                chunk_m[u * qs.chunks + c] = st.m;
              }
              mm(F, dv, n, fk.data(), 1, sd(F), V.data(), sd(dv), 1, st.Z.data(), dv, true, pack);
              st.z += fk.colwise().sum().transpose();
            }
          }
        },
        cancel);

    // Phase 2: combine the segment states (in place): causal, exclusive prefix sums, each with
    // its own maximum; otherwise the total, in states[u·count].
    mc::parallel_blocks(
        nu, 1, nthreads,
        [&](std::size_t b0, std::size_t b1) {
          for (std::size_t u = b0; u < b1; ++u) {
            State* s = states.data() + u * ks.count;
            if (causal) {
              State run;
              run.reset(F, dv, stab);
              for (std::size_t g = 0; g < ks.count; ++g) {
                State seg = std::move(s[g]);
                s[g] = run;  // the prefix of segment g: segments < g
                prefix_m[u * ks.count + g] = run.m;
                if (stab) {
                  const double m2 = std::max(run.m, seg.m);
                  run.rescale(m2);
                  seg.rescale(m2);
                }
                run.Z += seg.Z;
                run.z += seg.z;
              }
            } else {
              for (std::size_t g = 1; g < ks.count; ++g) {
                if (stab) {
                  const double m2 = std::max(s[0].m, s[g].m);
                  s[0].rescale(m2);
                  s[g].rescale(m2);
                }
                s[0].Z += s[g].Z;
                s[0].z += s[g].z;
              }
            }
          }
        },
        cancel);

    // Phase 3: per query chunk (one task each, so that the work spreads evenly over the
    // threads), the contribution of the prefix of its segment (causal) or of all keys.
    mc::parallel_blocks(
        nu * qs.chunks, 1, nthreads,
        [&](std::size_t b0, std::size_t b1) {
          RowMatrix pq, fq, N;
          Vector hq, qshift, dn;
          std::vector<double> pack;
          std::optional<Featurizer> fzo;
          std::size_t fz_unit = 0;
          for (std::size_t task = b0; task < b1; ++task) {
            const std::size_t u = task / qs.chunks, c = task % qs.chunks, g = c / qs.per;
            const std::size_t seq = (u0 + u) % sh.batch;
            const bool need_prefix = !causal || g > 0;
            if (need_prefix && (!fzo || fz_unit != u)) {
              fzo.emplace(omegas.data() + u * D * d, D, d, opt.estimator, opt.scale);
              fz_unit = u;
            }
            const State& pre = causal ? states[u * ks.count + g] : states[u * ks.count];
            {
              if (is_cancelled(cancel)) throw mc::Cancelled();
              const std::size_t r0 = qs.row_begin(c), r1 = qs.row_end(c), n = r1 - r0;
              Map O(out_rows(u) + r0 * dv, ix(n), ix(dv));
              Eigen::Map<Vector> Dn(denom.data() + u * sh.T + r0, ix(n));
              if (need_prefix) {
                const Featurizer& fz = *fzo;
                query_features(fz, q + (seq * sh.T + r0) * d, n, stab, pq, hq, qshift, fq);
              }
              if (causal) {
                // local sums at scale exp(−mc), prefix at exp(−mp): bring both to max(mc, mp).
                const double mc = chunk_m[u * qs.chunks + c];
                const double mp = prefix_m[u * ks.count + g];
                if (need_prefix) {
                  const double m2 = stab ? std::max(mc, mp) : 0.0;
                  const double fl = stab ? exp_diff(mc, m2) : 1.0,
                               fp = stab ? exp_diff(mp, m2) : 1.0;
                  N.resize(ix(n), ix(dv));
                  dn.resize(ix(n));
                  mm(n, dv, F, fq.data(), sd(F), 1, pre.Z.data(), sd(dv), 1, N.data(), dv, false,
                     pack);
                  mm(n, 1, F, fq.data(), sd(F), 1, pre.z.data(), 1, 1, dn.data(), 1, false, pack);
                  O = fl * O + fp * N;
                  Dn = fl * Dn + fp * dn;
                }
              } else {
                mm(n, dv, F, fq.data(), sd(F), 1, pre.Z.data(), sd(dv), 1, O.data(), dv, false,
                   pack);
                mm(n, 1, F, fq.data(), sd(F), 1, pre.z.data(), 1, 1, Dn.data(), 1, false, pack);
              }
              if (num != nullptr)
                std::copy(O.data(), O.data() + O.size(), num + ((u0 + u) * sh.T + r0) * dv);
              if (den != nullptr) std::copy(Dn.data(), Dn.data() + n, den + (u0 + u) * sh.T + r0);
              for (std::size_t i = 0; i < n; ++i) O.row(ix(i)) /= Dn(ix(i));
            }
          }
        },
        cancel);
  }
}

}  // namespace ropelab::attention
