#include "ropelab/delta.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "ropelab/attention_kernels.hpp"  // sincos_avx2, shared with attention
#include "ropelab/delta_kernels.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::recurrence {

namespace {

void poll_cancel(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// y = C(ψ) x, given cos ψ_i and sin ψ_i of every pair i.
void rotate_pairs(const double* x, const double* cosines, const double* sines, std::size_t d,
                  rotary::Layout layout, double* y) {
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    rotary::pair_channels(layout, d, i, c0, c1);
    const double c = cosines[i], sn = sines[i];
    const double a = x[c0], b = x[c1];
    y[c0] = c * a - sn * b;
    y[c1] = sn * a + c * b;
  }
}

}  // namespace

namespace {

/// The scalar version of kernels::delta_pass_avx2 (same operations in the same order).
void delta_pass_scalar(double* ST, std::size_t d, std::size_t panels, const double* key,
                       const double* u, double a, const double* next_key, double a_next,
                       const double* query, double* y, double* out) {
  for (std::size_t p = 0; p < panels; ++p) {
    double* P = ST + p * d * 8;
    const double* up = u + 8 * p;
    double o[8] = {0, 0, 0, 0, 0, 0, 0, 0}, yy[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::size_t c = 0; c < d; ++c) {
      const double kc = key[c];
      double* s = P + 8 * c;
      for (int l = 0; l < 8; ++l) s[l] = a * s[l] + kc * up[l];
      if (query != nullptr) {
        const double qc = query[c];
        for (int l = 0; l < 8; ++l) o[l] += qc * s[l];
      }
      if (next_key != nullptr) {
        const double nc = next_key[c];
        for (int l = 0; l < 8; ++l) yy[l] += nc * (a_next * s[l]);
      }
    }
    if (query != nullptr) std::copy(o, o + 8, out + 8 * p);
    if (next_key != nullptr) std::copy(yy, yy + 8, y + 8 * p);
  }
}

using PassFn = void (*)(double*, std::size_t, std::size_t, const double*, const double*, double,
                        const double*, double, const double*, double*, double*);

using SincosFn = void (*)(const double*, std::size_t, double*, double*);

void sincos_scalar(const double* x, std::size_t n, double* c, double* s) {
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = std::cos(x[i]);
    s[i] = std::sin(x[i]);
  }
}

/// The rotated keys (n_h×d) and query (d) of one token.
struct TokenFrame {
  std::vector<double> keys, query, cosines, sines;
  TokenFrame(std::size_t n_h, std::size_t d)
      : keys(n_h * d), query(d), cosines(d / 2), sines(d / 2) {}
};

}  // namespace

/// The delta rule, one fused pass over the state per micro-step (delta_kernels.hpp): the update
/// S ← α S + u kᵀ, the read S q and the product (α' S) k' of the next micro-step's key k' (with the
/// gate α' it will apply) in one sweep, so the state is read and written once per micro-step
/// instead of four times. The operations are those of the direct form (S ← fl(α S), then
/// u = β (v − S k), S ← S + u kᵀ, o = S q, sums in column order, no FMA), so the result does not
/// depend on the path; the AVX2 path computes the rotation angles' cos/sin with SLEEF (≤ 1 ULP).
void delta_rule(const DeltaSequence& s, rotary::Layout layout, double* out,
                const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, dv = s.dv, h = d / 2, panels = (dv + 7) / 8, nh = s.n_h;
#ifdef ROPELAB_SCALAR_ONLY
  const PassFn pass = delta_pass_scalar;
  const SincosFn sincos = sincos_scalar;
#else
  const bool vec = simd::active_isa() != simd::Isa::scalar;
  const PassFn pass = vec ? kernels::delta_pass_avx2 : delta_pass_scalar;
  const SincosFn sincos = vec ? attention::kernels::sincos_avx2 : sincos_scalar;
#endif
  std::vector<double> ST(panels * 8 * d, 0.0), u(panels * 8, 0.0), y(panels * 8, 0.0),
      o(panels * 8, 0.0);
  TokenFrame cur(nh, d), nxt(nh, d);
  auto prepare = [&](std::size_t t, TokenFrame& fr) {
    const double* kt = s.k + t * nh * d;
    const double* qt = s.q + t * d;
    if (s.psi != nullptr) {  // C_t once per token, for its n_h keys and its query
      sincos(s.psi + t * h, h, fr.cosines.data(), fr.sines.data());
      for (std::size_t j = 0; j < nh; ++j) {
        rotate_pairs(kt + j * d, fr.cosines.data(), fr.sines.data(), d, layout,
                     fr.keys.data() + j * d);
      }
      rotate_pairs(qt, fr.cosines.data(), fr.sines.data(), d, layout, fr.query.data());
    } else {
      std::copy(kt, kt + nh * d, fr.keys.begin());
      std::copy(qt, qt + d, fr.query.begin());
    }
  };
  if (s.T > 0) prepare(0, cur);
  for (std::size_t t = 0; t < s.T; ++t) {
    if ((t & 63) == 0) poll_cancel(cancel);
    const bool last_token = t + 1 == s.T;
    if (!last_token) prepare(t + 1, nxt);
    const double a = s.alpha != nullptr ? s.alpha[t] : 1.0;
    const double a_next_token = s.alpha != nullptr && !last_token ? s.alpha[t + 1] : 1.0;
    for (std::size_t j = 0; j < nh; ++j) {
      // u = β (v − (a S) k), with (a S) k left in y by the previous pass (0 before the first)
      const double* v = s.v + (t * nh + j) * dv;
      const double beta = s.beta[t * nh + j];
      for (std::size_t r = 0; r < dv; ++r) u[r] = beta * (v[r] - y[r]);
      const bool last_step = j + 1 == nh;
      const double* next_key = !last_step    ? cur.keys.data() + (j + 1) * d
                               : !last_token ? nxt.keys.data()
                                             : nullptr;
      pass(ST.data(), d, panels, cur.keys.data() + j * d, u.data(), j == 0 ? a : 1.0, next_key,
           last_step ? a_next_token : 1.0, last_step ? cur.query.data() : nullptr, y.data(),
           o.data());
    }
    std::copy(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(dv), out + t * dv);
    std::swap(cur, nxt);
  }
}

void delta_transitions(const DeltaSequence& s, rotary::Layout layout, double* out,
                       const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, h = d / 2;
  std::vector<double> step(h), Ak(d);
  for (std::size_t t = 0; t < s.T; ++t) {
    poll_cancel(cancel);
    double* A = out + t * d * d;
    std::fill(A, A + d * d, 0.0);
    const double a = s.alpha != nullptr ? s.alpha[t] : 1.0;
    if (s.psi != nullptr) {  // α R(ψ_t − ψ_{t−1}), built column pair by column pair
      for (std::size_t i = 0; i < h; ++i) {
        step[i] = s.psi[t * h + i] - (t > 0 ? s.psi[(t - 1) * h + i] : 0.0);
        std::size_t c0 = 0, c1 = 0;
        rotary::pair_channels(layout, d, i, c0, c1);
        const double c = std::cos(step[i]), sn = std::sin(step[i]);
        A[c0 * d + c0] = a * c;
        A[c0 * d + c1] = -a * sn;
        A[c1 * d + c0] = a * sn;
        A[c1 * d + c1] = a * c;
      }
    } else {
      for (std::size_t i = 0; i < d; ++i) A[i * d + i] = a;
    }
    // A ← A (I − β k kᵀ) for each micro-step, in order
    for (std::size_t j = 0; j < s.n_h; ++j) {
      const double* kj = s.k + (t * s.n_h + j) * d;
      const double beta = s.beta[t * s.n_h + j];
      for (std::size_t r = 0; r < d; ++r) {
        double* Ar = A + r * d;
        double ak = 0.0;
        for (std::size_t c = 0; c < d; ++c) ak += Ar[c] * kj[c];
        Ak[r] = beta * ak;
      }
      for (std::size_t r = 0; r < d; ++r) {
        double* Ar = A + r * d;
        for (std::size_t c = 0; c < d; ++c) Ar[c] -= Ak[r] * kj[c];
      }
    }
  }
}

}  // namespace ropelab::recurrence
