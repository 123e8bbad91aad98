#include "ropelab/delta.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ropelab/montecarlo.hpp"

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

/// One token of the delta rule on the transposed state ST (d×dv, ST[c] = column c of S): every
/// loop is an axpy over the dv entries of a column, so it vectorises without reassociating sums
/// (results do not depend on the instruction set). Runtime dispatch picks AVX2 where available.
__attribute__((target_clones("avx2", "default")))
static void delta_token(double* ST, std::size_t d, std::size_t dv, const double* keys, const double* values,
                 const double* betas, std::size_t n_h, double alpha, bool gated, const double* query,
                 double* u, double* out) {
  if (gated) {
    for (std::size_t i = 0; i < d * dv; ++i) ST[i] *= alpha;
  }
  for (std::size_t j = 0; j < n_h; ++j) {
    const double* key = keys + j * d;
    const double* v = values + j * dv;
    const double beta = betas[j];
    for (std::size_t r = 0; r < dv; ++r) u[r] = 0.0;
    for (std::size_t c = 0; c < d; ++c) {  // u = S k
      const double kc = key[c];
      const double* col = ST + c * dv;
      for (std::size_t r = 0; r < dv; ++r) u[r] += kc * col[r];
    }
    for (std::size_t r = 0; r < dv; ++r) u[r] = beta * (v[r] - u[r]);
    for (std::size_t c = 0; c < d; ++c) {  // S += u kᵀ
      const double kc = key[c];
      double* col = ST + c * dv;
      for (std::size_t r = 0; r < dv; ++r) col[r] += kc * u[r];
    }
  }
  for (std::size_t r = 0; r < dv; ++r) out[r] = 0.0;
  for (std::size_t c = 0; c < d; ++c) {  // o = S q
    const double qc = query[c];
    const double* col = ST + c * dv;
    for (std::size_t r = 0; r < dv; ++r) out[r] += qc * col[r];
  }
}

void delta_rule(const DeltaSequence& s, rotary::Layout layout, double* out,
                const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, dv = s.dv, h = d / 2;
  std::vector<double> ST(d * dv, 0.0), keys(s.n_h * d), query(d), u(dv), cosines(h), sines(h);
  for (std::size_t t = 0; t < s.T; ++t) {
    if ((t & 63) == 0) poll_cancel(cancel);
    const double* kt = s.k + t * s.n_h * d;
    const double* qt = s.q + t * d;
    if (s.psi != nullptr) {  // C_t once per token, for its n_h keys and its query
      for (std::size_t i = 0; i < h; ++i) {
        cosines[i] = std::cos(s.psi[t * h + i]);
        sines[i] = std::sin(s.psi[t * h + i]);
      }
      for (std::size_t j = 0; j < s.n_h; ++j) {
        rotate_pairs(kt + j * d, cosines.data(), sines.data(), d, layout, keys.data() + j * d);
      }
      rotate_pairs(qt, cosines.data(), sines.data(), d, layout, query.data());
    } else {
      std::copy(kt, kt + s.n_h * d, keys.begin());
      std::copy(qt, qt + d, query.begin());
    }
    delta_token(ST.data(), d, dv, keys.data(), s.v + t * s.n_h * dv, s.beta + t * s.n_h, s.n_h,
                s.alpha != nullptr ? s.alpha[t] : 1.0, s.alpha != nullptr, query.data(), u.data(),
                out + t * dv);
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
