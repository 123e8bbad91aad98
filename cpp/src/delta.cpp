#include "ropelab/delta.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
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

/// y = C(ψ) x, given cos ψ_i and sin ψ_i of every pair i (one loop per layout, so the compiler
/// sees the channel pattern).
void rotate_pairs(const double* x, const double* cosines, const double* sines, std::size_t d,
                  rotary::Layout layout, double* y) {
  const std::size_t h = d / 2;
  if (layout == rotary::Layout::interleaved) {
    for (std::size_t i = 0; i < h; ++i) {
      const double c = cosines[i], sn = sines[i], a = x[2 * i], b = x[2 * i + 1];
      y[2 * i] = c * a - sn * b;
      y[2 * i + 1] = sn * a + c * b;
    }
  } else {
    for (std::size_t i = 0; i < h; ++i) {
      const double c = cosines[i], sn = sines[i], a = x[i], b = x[i + h];
      y[i] = c * a - sn * b;
      y[i + h] = sn * a + c * b;
    }
  }
}

}  // namespace

namespace {

/// The scalar version of kernels::delta_pass_avx2 (same operations in the same order).
void delta_pass_scalar(double* ST, std::size_t d, std::size_t panels, const double* key,
                       const double* u, const double* query, double a_next, const double* next_key,
                       double* y, double* out) {
  for (std::size_t p = 0; p < panels; ++p) {
    double* P = ST + p * d * 8;
    const double* up = u + 8 * p;
    double o[8] = {0, 0, 0, 0, 0, 0, 0, 0}, yy[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::size_t c = 0; c < d; ++c) {
      const double kc = key[c];
      double* s = P + 8 * c;
      for (int l = 0; l < 8; ++l) s[l] = s[l] + kc * up[l];
      if (query != nullptr) {
        const double qc = query[c];
        for (int l = 0; l < 8; ++l) o[l] += qc * s[l];
      }
      if (a_next != 1.0) {
        for (int l = 0; l < 8; ++l) s[l] = a_next * s[l];
      }
      if (next_key != nullptr) {
        const double nc = next_key[c];
        for (int l = 0; l < 8; ++l) yy[l] += nc * s[l];
      }
    }
    if (query != nullptr) std::copy(o, o + 8, out + 8 * p);
    if (next_key != nullptr) std::copy(yy, yy + 8, y + 8 * p);
  }
}

using PassFn = void (*)(double*, std::size_t, std::size_t, const double*, const double*,
                        const double*, double, const double*, double*, double*);

using SincosFn = void (*)(const double*, std::size_t, double*, double*);

void sincos_scalar(const double* x, std::size_t n, double* c, double* s) {
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = std::cos(x[i]);
    s[i] = std::sin(x[i]);
  }
}

/// The pass and the cos/sin of the active SIMD path.
struct Kernels {
  PassFn pass;
  SincosFn sincos;
};

Kernels active_kernels() {
#ifdef ROPELAB_SCALAR_ONLY
  return {delta_pass_scalar, sincos_scalar};
#else
  if (simd::active_isa() == simd::Isa::scalar) return {delta_pass_scalar, sincos_scalar};
  return {kernels::delta_pass_avx2, attention::kernels::sincos_avx2};
#endif
}

/// The rotated keys (n_h×d) and query (d) of one token.
struct TokenFrame {
  std::vector<double> keys, query, cosines, sines;
  TokenFrame(std::size_t n_h, std::size_t d)
      : keys(n_h * d), query(d), cosines(d / 2), sines(d / 2) {}
};

/// The keys C_t k_{t,j} and the query C_t q_t of token t (C_t once per token; copies without ψ).
void prepare_frame(const DeltaSequence& s, rotary::Layout layout, SincosFn sincos, std::size_t t,
                   TokenFrame& fr) {
  const std::size_t d = s.d, nh = s.n_h, h = d / 2;
  const double* kt = s.k + t * nh * d;
  const double* qt = s.q + t * d;
  if (s.angles != nullptr) {
    sincos(s.angles + t * h, h, fr.cosines.data(), fr.sines.data());
    for (std::size_t j = 0; j < nh; ++j) {
      rotate_pairs(kt + j * d, fr.cosines.data(), fr.sines.data(), d, layout,
                   fr.keys.data() + j * d);
    }
    rotate_pairs(qt, fr.cosines.data(), fr.sines.data(), d, layout, fr.query.data());
  } else {
    std::copy(kt, kt + nh * d, fr.keys.begin());
    std::copy(qt, qt + d, fr.query.begin());
  }
}

}  // namespace

/// One fused pass over the block's state per micro-step (delta_kernels.hpp): the update
/// S ← S + u kᵀ, the read S q, the gate of the next micro-step and the product (α' S) k' with the
/// next key k' in one sweep, so the state is read and written once per micro-step. The operations
/// are those of the direct form (S ← fl(α S), then u = β (v − S k), S ← S + u kᵀ, o = S q, sums in
/// column order, no FMA), row by row, so the result depends neither on the SIMD path nor on the
/// row block; the AVX2 path computes the rotation angles' cos/sin with SLEEF (≤ 1 ULP). The gate
/// α_0 would multiply the zero state S_{−1}: skipped (exact for a finite gate).
void delta_rule_rows(const DeltaSequence& s, rotary::Layout layout, std::size_t row_begin,
                     std::size_t row_end, double* out, const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, dv = s.dv, nh = s.n_h;
  if (row_begin > row_end || row_end > dv) {
    throw std::invalid_argument("delta_rule_rows: rows [" + std::to_string(row_begin) + ", " +
                                std::to_string(row_end) +
                                ") not within [0, dv = " + std::to_string(dv) + ")");
  }
  const std::size_t rows = row_end - row_begin, panels = (rows + 7) / 8;
  const Kernels kern = active_kernels();
  std::vector<double> ST(panels * 8 * d, 0.0), u(panels * 8, 0.0), y(panels * 8, 0.0),
      o(panels * 8, 0.0);
  TokenFrame cur(nh, d), nxt(nh, d);
  if (s.T > 0) prepare_frame(s, layout, kern.sincos, 0, cur);
  for (std::size_t t = 0; t < s.T; ++t) {
    if ((t & 63) == 0) poll_cancel(cancel);
    const bool last_token = t + 1 == s.T;
    if (!last_token) prepare_frame(s, layout, kern.sincos, t + 1, nxt);
    const double a_next_token = s.gates != nullptr && !last_token ? s.gates[t + 1] : 1.0;
    for (std::size_t j = 0; j < nh; ++j) {
      // u = β (v − (α S) k), with (α S) k left in y by the previous pass (0 before the first)
      const double* v = s.v + (t * nh + j) * dv + row_begin;
      const double beta = s.beta[t * nh + j];
      for (std::size_t r = 0; r < rows; ++r) u[r] = beta * (v[r] - y[r]);
      const bool last_step = j + 1 == nh;
      const double* next_key = !last_step    ? cur.keys.data() + (j + 1) * d
                               : !last_token ? nxt.keys.data()
                                             : nullptr;
      kern.pass(ST.data(), d, panels, cur.keys.data() + j * d, u.data(),
                last_step ? cur.query.data() : nullptr, last_step ? a_next_token : 1.0, next_key,
                y.data(), o.data());
    }
    std::copy(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(rows), out + t * dv + row_begin);
    std::swap(cur, nxt);
  }
}

std::size_t delta_row_blocks(std::size_t batch, std::size_t dv, int nthreads) {
  const auto nt = static_cast<std::size_t>(mc::resolve_threads(nthreads));
  if (batch == 0 || nt <= 1) return 1;
  // the fewest blocks per sequence with batch × blocks a multiple of the threads, at most one
  // block per panel of 8 rows
  const std::size_t per = nt / std::gcd(batch, nt), panels = (dv + 7) / 8;
  return std::max<std::size_t>(1, std::min(per, panels));
}

RowRange delta_row_range(std::size_t dv, std::size_t blocks, std::size_t i) {
  const std::size_t panels = (dv + 7) / 8;
  const std::size_t p0 = i * panels / blocks, p1 = (i + 1) * panels / blocks;
  return {std::min(8 * p0, dv), std::min(8 * p1, dv)};
}

void delta_rule(const DeltaSequence& s, rotary::Layout layout, double* out,
                const std::atomic<bool>* cancel, int nthreads) {
  const std::size_t blocks = delta_row_blocks(1, s.dv, nthreads);
  if (blocks == 1) {
    delta_rule_rows(s, layout, 0, s.dv, out, cancel);
    return;
  }
  mc::parallel_blocks(
      blocks, 1, nthreads,
      [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) {
          const RowRange r = delta_row_range(s.dv, blocks, i);
          delta_rule_rows(s, layout, r.begin, r.end, out, cancel);
        }
      },
      cancel);
}

void delta_transitions(const DeltaSequence& s, rotary::Layout layout, double* out,
                       const std::atomic<bool>* cancel) {
  const std::size_t d = s.d, h = d / 2;
  std::vector<double> step(h), Ak(d);
  for (std::size_t t = 0; t < s.T; ++t) {
    poll_cancel(cancel);
    double* A = out + t * d * d;
    std::fill(A, A + d * d, 0.0);
    const double a = s.gates != nullptr ? s.gates[t] : 1.0;
    if (s.angles != nullptr) {  // α R(ψ_t − ψ_{t−1}), built column pair by column pair
      for (std::size_t i = 0; i < h; ++i) {
        step[i] = s.angles[t * h + i] - (t > 0 ? s.angles[(t - 1) * h + i] : 0.0);
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
