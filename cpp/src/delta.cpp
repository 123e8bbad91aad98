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

/// y = C(ψ) x: pair i of x rotated by angles[i].
void rotate_pairs(const double* x, const double* angles, std::size_t d, rotary::Layout layout,
                  double* y) {
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    rotary::pair_channels(layout, d, i, c0, c1);
    const double c = std::cos(angles[i]), sn = std::sin(angles[i]);
    const double a = x[c0], b = x[c1];
    y[c0] = c * a - sn * b;
    y[c1] = sn * a + c * b;
  }
}

}  // namespace

void delta_rule(const DeltaSequence& s, rotary::Layout layout, double* out,
                const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, dv = s.dv, h = d / 2;
  std::vector<double> S(dv * d, 0.0), key(d), query(d), u(dv);
  for (std::size_t t = 0; t < s.T; ++t) {
    poll_cancel(cancel);
    if (s.alpha != nullptr) {
      const double a = s.alpha[t];
      for (double& x : S) x *= a;
    }
    for (std::size_t j = 0; j < s.n_h; ++j) {
      const double* kj = s.k + (t * s.n_h + j) * d;
      const double* vj = s.v + (t * s.n_h + j) * dv;
      if (s.psi != nullptr) {
        rotate_pairs(kj, s.psi + t * h, d, layout, key.data());
      } else {
        std::copy(kj, kj + d, key.begin());
      }
      const double beta = s.beta[t * s.n_h + j];
      // S ← S − β (S k) kᵀ + β v kᵀ = S + β (v − S k) kᵀ
      for (std::size_t r = 0; r < dv; ++r) {
        const double* Sr = S.data() + r * d;
        double sk = 0.0;
        for (std::size_t c = 0; c < d; ++c) sk += Sr[c] * key[c];
        u[r] = beta * (vj[r] - sk);
      }
      for (std::size_t r = 0; r < dv; ++r) {
        double* Sr = S.data() + r * d;
        const double ur = u[r];
        for (std::size_t c = 0; c < d; ++c) Sr[c] += ur * key[c];
      }
    }
    const double* qt = s.q + t * d;
    if (s.psi != nullptr) {
      rotate_pairs(qt, s.psi + t * h, d, layout, query.data());
    } else {
      std::copy(qt, qt + d, query.begin());
    }
    for (std::size_t r = 0; r < dv; ++r) {
      const double* Sr = S.data() + r * d;
      double o = 0.0;
      for (std::size_t c = 0; c < d; ++c) o += Sr[c] * query[c];
      out[t * dv + r] = o;
    }
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
