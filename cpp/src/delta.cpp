#include "ropelab/delta.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// Records p in `slot` when it is the lowest offending address seen so far.
void note(const void*& slot, const void* p) {
  if (slot == nullptr || std::less<const void*>()(p, slot)) slot = p;
}

/// Whether p[0, n) is all finite: the exponent bits of every entry tested without an early exit
/// (±inf and NaN, and only they, have all exponent bits set), which vectorises.
bool all_finite(const double* p, std::size_t n) {
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, p + i, sizeof bits);
    bad |= (((bits >> 52) & 0x7ffU) + 1) >> 11;
  }
  return bad == 0;
}

bool all_finite(const float* p, std::size_t n) {
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, p + i, sizeof bits);
    bad |= (((bits >> 23) & 0xffU) + 1) >> 8;
  }
  return bad == 0;
}

/// Records the first non-finite entry of p[0, n) in `slot` (once a slot is set, the later entries
/// of the same array read by the same work item lie at higher addresses: skipped).
template <class Real>
void check_finite(const Real* p, std::size_t n, const void*& slot) {
  if (slot != nullptr || all_finite(p, n)) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(p[i])) {
      note(slot, p + i);
      return;
    }
  }
}

/// y = C(ψ) x, given cos ψ_i and sin ψ_i of every pair i (one loop per layout, so the compiler
/// sees the channel pattern). Computed in double and rounded once to Real.
template <class Real>
void rotate_pairs(const Real* x, const double* cosines, const double* sines, std::size_t d,
                  rotary::Layout layout, Real* y) {
  const std::size_t h = d / 2;
  if (layout == rotary::Layout::interleaved) {
    for (std::size_t i = 0; i < h; ++i) {
      const double c = cosines[i], sn = sines[i], a = x[2 * i], b = x[2 * i + 1];
      y[2 * i] = static_cast<Real>(c * a - sn * b);
      y[2 * i + 1] = static_cast<Real>(sn * a + c * b);
    }
  } else {
    for (std::size_t i = 0; i < h; ++i) {
      const double c = cosines[i], sn = sines[i], a = x[i], b = x[i + h];
      y[i] = static_cast<Real>(c * a - sn * b);
      y[i + h] = static_cast<Real>(sn * a + c * b);
    }
  }
}

/// The scalar version of kernels::delta_pass_avx2 (same operations in the same order), with
/// panels of P rows.
template <class Real>
void delta_pass_scalar(Real* ST, std::size_t d, std::size_t panels, const Real* key, const Real* u,
                       const Real* query, Real a_next, const Real* next_key, Real* y, Real* out,
                       std::size_t /*rows: the padded rows are zero and stay zero*/) {
  constexpr std::size_t P = delta_panel_rows<Real>();
  for (std::size_t p = 0; p < panels; ++p) {
    Real* Pp = ST + p * d * P;
    const Real* up = u + P * p;
    Real o[P] = {}, yy[P] = {};
    for (std::size_t c = 0; c < d; ++c) {
      const Real kc = key[c];
      Real* s = Pp + P * c;
      for (std::size_t l = 0; l < P; ++l) s[l] = s[l] + kc * up[l];
      if (query != nullptr) {
        const Real qc = query[c];
        for (std::size_t l = 0; l < P; ++l) o[l] += qc * s[l];
      }
      if (a_next != 1) {
        for (std::size_t l = 0; l < P; ++l) s[l] = a_next * s[l];
      }
      if (next_key != nullptr) {
        const Real nc = next_key[c];
        for (std::size_t l = 0; l < P; ++l) yy[l] += nc * s[l];
      }
    }
    if (query != nullptr) std::copy(o, o + P, out + P * p);
    if (next_key != nullptr) std::copy(yy, yy + P, y + P * p);
  }
}

template <class Real>
using PassFn = void (*)(Real*, std::size_t, std::size_t, const Real*, const Real*, const Real*,
                        Real, const Real*, Real*, Real*, std::size_t);

using SincosFn = void (*)(const double*, std::size_t, double*, double*);

void sincos_scalar(const double* x, std::size_t n, double* c, double* s) {
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = std::cos(x[i]);
    s[i] = std::sin(x[i]);
  }
}

/// The pass and the cos/sin of the active SIMD path.
template <class Real>
struct Kernels {
  PassFn<Real> pass;
  SincosFn sincos;
};

template <class Real>
Kernels<Real> active_kernels() {
#ifdef ROPELAB_SCALAR_ONLY
  return {delta_pass_scalar<Real>, sincos_scalar};
#else
  if (simd::active_isa() == simd::Isa::scalar) return {delta_pass_scalar<Real>, sincos_scalar};
  return {static_cast<PassFn<Real>>(kernels::delta_pass_avx2), attention::kernels::sincos_avx2};
#endif
}

/// Scratch of one token's rotation: the angles in double, their cos and sin.
struct RotationScratch {
  std::vector<double> angles, cosines, sines;
  explicit RotationScratch(std::size_t h) : angles(h), cosines(h), sines(h) {}
};

/// The keys C_t k_{t,j} (n_h×d) and the query C_t q_t (d) of token t of a sequence with angles
/// (C_t once per token), with the checks of q_t, k_t and ψ_t when `faults` is not null.
template <class Real>
void rotate_token(const DeltaSequenceOf<Real>& s, rotary::Layout layout, SincosFn sincos,
                  std::size_t t, Real* keys, Real* query, RotationScratch& sc,
                  DeltaFaults* faults) {
  const std::size_t d = s.d, nh = s.n_h, h = d / 2;
  const Real* kt = s.k + t * nh * d;
  const Real* qt = s.q + t * d;
  const Real* at = s.angles + t * h;
  if (faults != nullptr) {
    check_finite(qt, d, faults->q);
    check_finite(kt, nh * d, faults->k);
    check_finite(at, h, faults->angles);
  }
  const double* psi = nullptr;
  if constexpr (std::is_same_v<Real, double>) {
    psi = at;
  } else {
    std::copy(at, at + h, sc.angles.begin());  // float → double: exact
    psi = sc.angles.data();
  }
  sincos(psi, h, sc.cosines.data(), sc.sines.data());
  for (std::size_t j = 0; j < nh; ++j) {
    rotate_pairs(kt + j * d, sc.cosines.data(), sc.sines.data(), d, layout, keys + j * d);
  }
  rotate_pairs(qt, sc.cosines.data(), sc.sines.data(), d, layout, query);
}

/// The rotated keys (n_h×d) and query (d) of one token: pointers into the precomputed frames,
/// into q and k themselves (no angles), or into this frame's buffers.
template <class Real>
struct TokenFrame {
  std::vector<Real> keys, query;
  const Real* kp = nullptr;
  const Real* qp = nullptr;
  TokenFrame(std::size_t n_h, std::size_t d, bool own)
      : keys(own ? n_h * d : 0), query(own ? d : 0) {}
};

/// Checks of the inputs of token t that row block [r0, r1) reads besides q, k and ψ: β_t, the
/// gate α_t (finite, in [0, 1]) and the block's rows of v_t.
template <class Real>
void check_token(const DeltaSequenceOf<Real>& s, std::size_t t, std::size_t r0, std::size_t r1,
                 DeltaFaults& f) {
  const std::size_t nh = s.n_h;
  check_finite(s.beta + t * nh, nh, f.beta);
  if (s.gates != nullptr) {
    const Real a = s.gates[t];
    if (!std::isfinite(a)) {
      note(f.gates_nonfinite, s.gates + t);
    } else if (!(a >= 0 && a <= 1)) {
      note(f.gates_range, s.gates + t);
    }
  }
  if (f.v == nullptr) {
    for (std::size_t j = 0; j < nh; ++j) check_finite(s.v + (t * nh + j) * s.dv + r0, r1 - r0, f.v);
  }
}

}  // namespace

void DeltaFaults::merge(const DeltaFaults& o) {
  for (auto [mine, theirs] :
       {std::pair{&q, o.q}, std::pair{&k, o.k}, std::pair{&v, o.v}, std::pair{&beta, o.beta},
        std::pair{&angles, o.angles}, std::pair{&gates_nonfinite, o.gates_nonfinite},
        std::pair{&gates_range, o.gates_range}, std::pair{&out, o.out}}) {
    if (theirs != nullptr) note(*mine, theirs);
  }
}

bool DeltaFaults::inputs_ok() const {
  return q == nullptr && k == nullptr && v == nullptr && beta == nullptr && angles == nullptr &&
         gates_nonfinite == nullptr && gates_range == nullptr;
}

template <class Real>
void delta_frames(const DeltaSequenceOf<Real>& s, rotary::Layout layout, std::size_t t0,
                  std::size_t t1, Real* keys, Real* query, DeltaFaults* faults) {
  const SincosFn sincos = active_kernels<Real>().sincos;
  RotationScratch sc(s.d / 2);
  for (std::size_t t = t0; t < t1; ++t) {
    rotate_token(s, layout, sincos, t, keys + t * s.n_h * s.d, query + t * s.d, sc, faults);
  }
}

/// One fused pass over the block's state per micro-step (delta_kernels.hpp): the update
/// S ← S + u kᵀ, the read S q, the gate of the next micro-step and the product (α' S) k' with the
/// next key k' in one sweep, so the state is read and written once per micro-step. The operations
/// are those of the direct form (S ← fl(α S), then u = β (v − S k), S ← S + u kᵀ, o = S q, sums in
/// column order, no FMA), row by row, so the result depends neither on the SIMD path nor on the
/// row block; the AVX2 path computes the rotation angles' cos/sin with SLEEF (≤ 1 ULP). The gate
/// α_0 would multiply the zero state S_{−1}: skipped (exact for a finite gate). The input checks
/// (`faults`) read what the pass reads, token by token, while it is in cache.
template <class Real>
void delta_rule_rows(const DeltaSequenceOf<Real>& s, rotary::Layout layout, std::size_t row_begin,
                     std::size_t row_end, Real* out, const std::atomic<bool>* cancel,
                     const DeltaFrames<Real>* frames, DeltaFaults* faults, std::size_t share,
                     std::size_t shares) {
  const std::size_t d = s.d, dv = s.dv, nh = s.n_h;
  if (row_begin > row_end || row_end > dv) {
    throw std::invalid_argument("delta_rule_rows: rows [" + std::to_string(row_begin) + ", " +
                                std::to_string(row_end) +
                                ") not within [0, dv = " + std::to_string(dv) + ")");
  }
  if (share >= shares) {
    throw std::invalid_argument("delta_rule_rows: share " + std::to_string(share) +
                                " not below shares = " + std::to_string(shares));
  }
  constexpr std::size_t P = delta_panel_rows<Real>();
  const std::size_t rows = row_end - row_begin, panels = (rows + P - 1) / P;
  const Kernels<Real> kern = active_kernels<Real>();
  std::vector<Real> ST(panels * P * d, Real(0)), u(panels * P, Real(0)), y(panels * P, Real(0)),
      o(panels * P, Real(0));
  const bool rotate_here = s.angles != nullptr && frames == nullptr;
  TokenFrame<Real> cur(nh, d, rotate_here), nxt(nh, d, rotate_here);
  RotationScratch sc(rotate_here ? d / 2 : 0);
  const auto frame = [&](std::size_t t, TokenFrame<Real>& fr) {
    if (frames != nullptr) {
      fr.kp = frames->keys + t * nh * d;
      fr.qp = frames->query + t * d;
    } else if (rotate_here) {
      rotate_token(s, layout, kern.sincos, t, fr.keys.data(), fr.query.data(), sc, faults);
      fr.kp = fr.keys.data();
      fr.qp = fr.query.data();
    } else {
      fr.kp = s.k + t * nh * d;
      fr.qp = s.q + t * d;
      if (faults != nullptr && (t / 64) % shares == share) {
        check_finite(fr.qp, d, faults->q);
        check_finite(fr.kp, nh * d, faults->k);
      }
    }
  };
  if (s.T > 0) frame(0, cur);
  for (std::size_t t = 0; t < s.T; ++t) {
    if ((t & 63) == 0) poll_cancel(cancel);
    if (faults != nullptr) check_token(s, t, row_begin, row_end, *faults);
    const bool last_token = t + 1 == s.T;
    if (!last_token) frame(t + 1, nxt);
    const Real a_next_token = s.gates != nullptr && !last_token ? s.gates[t + 1] : Real(1);
    for (std::size_t j = 0; j < nh; ++j) {
      // u = β (v − (α S) k), with (α S) k left in y by the previous pass (0 before the first)
      const Real* v = s.v + (t * nh + j) * dv + row_begin;
      const Real beta = s.beta[t * nh + j];
      for (std::size_t r = 0; r < rows; ++r) u[r] = beta * (v[r] - y[r]);
      const bool last_step = j + 1 == nh;
      const Real* next_key = !last_step ? cur.kp + (j + 1) * d : !last_token ? nxt.kp : nullptr;
      kern.pass(ST.data(), d, panels, cur.kp + j * d, u.data(), last_step ? cur.qp : nullptr,
                last_step ? a_next_token : Real(1), next_key, y.data(), o.data(), rows);
    }
    Real* ot = out + t * dv + row_begin;
    std::copy(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(rows), ot);
    if (faults != nullptr) check_finite(static_cast<const Real*>(ot), rows, faults->out);
    std::swap(cur, nxt);
  }
}

std::size_t delta_row_blocks(std::size_t batch, std::size_t dv, int nthreads, std::size_t panel) {
  const auto nt = static_cast<std::size_t>(mc::resolve_threads(nthreads));
  if (batch == 0 || nt <= 1) return 1;
  // the fewest blocks per sequence with batch × blocks a multiple of the threads, at most one
  // block per panel
  const std::size_t per = nt / std::gcd(batch, nt), panels = (dv + panel - 1) / panel;
  return std::max<std::size_t>(1, std::min(per, panels));
}

RowRange delta_row_range(std::size_t dv, std::size_t blocks, std::size_t i, std::size_t panel) {
  const std::size_t panels = (dv + panel - 1) / panel;
  const std::size_t p0 = i * panels / blocks, p1 = (i + 1) * panels / blocks;
  return {std::min(panel * p0, dv), std::min(panel * p1, dv)};
}

template <class Real>
void delta_rule_batch(const std::function<DeltaSequenceOf<Real>(std::size_t)>& seq,
                      std::size_t batch, rotary::Layout layout, Real* out,
                      const std::atomic<bool>* cancel, int nthreads, DeltaFaults* faults) {
  if (batch == 0) return;
  const DeltaSequenceOf<Real> s0 = seq(0);
  const std::size_t T = s0.T, d = s0.d, dv = s0.dv, nh = s0.n_h;
  constexpr std::size_t P = delta_panel_rows<Real>() / 2;  // split unit: one register of rows
  const std::size_t blocks = delta_row_blocks(batch, dv, nthreads, P);
  // Several row blocks of one sequence would each rotate its keys and queries again: rotate them
  // once, in parallel over chunks of tokens, and let the blocks read the frames.
  const bool shared_frames = blocks > 1 && s0.angles != nullptr && T > 0;
  // not zero-filled: each page is first written by the thread that rotates its tokens
  std::unique_ptr<Real[]> keys, query;
  constexpr std::size_t kFrameChunk = 256;  // tokens per work item of the rotation
  const std::size_t chunks = (T + kFrameChunk - 1) / kFrameChunk;
  std::vector<DeltaFaults> frame_faults, row_faults(batch * blocks);
  if (shared_frames) {
    keys.reset(new Real[batch * T * nh * d]);
    query.reset(new Real[batch * T * d]);
    frame_faults.resize(batch * chunks);
    mc::parallel_blocks(
        batch * chunks, 1, nthreads,
        [&](std::size_t i0, std::size_t i1) {
          for (std::size_t i = i0; i < i1; ++i) {
            const std::size_t b = i / chunks, c = i % chunks;
            delta_frames(seq(b), layout, c * kFrameChunk, std::min(T, (c + 1) * kFrameChunk),
                         keys.get() + b * T * nh * d, query.get() + b * T * d,
                         faults != nullptr ? &frame_faults[i] : nullptr);
          }
        },
        cancel);
  }
  mc::parallel_blocks(
      batch * blocks, 1, nthreads,
      [&](std::size_t i0, std::size_t i1) {
        for (std::size_t i = i0; i < i1; ++i) {
          const std::size_t b = i / blocks;
          const RowRange rows = delta_row_range(dv, blocks, i % blocks, P);
          const DeltaFrames<Real> fr{keys.get() + b * T * nh * d, query.get() + b * T * d};
          delta_rule_rows(seq(b), layout, rows.begin, rows.end, out + b * T * dv, cancel,
                          shared_frames ? &fr : nullptr,
                          faults != nullptr ? &row_faults[i] : nullptr, i % blocks, blocks);
        }
      },
      cancel);
  if (faults != nullptr) {
    for (const DeltaFaults& f : frame_faults) faults->merge(f);
    for (const DeltaFaults& f : row_faults) faults->merge(f);
  }
}

template <class Real>
void delta_rule(const DeltaSequenceOf<Real>& s, rotary::Layout layout, Real* out,
                const std::atomic<bool>* cancel, int nthreads) {
  delta_rule_batch<Real>([&](std::size_t) { return s; }, 1, layout, out, cancel, nthreads, nullptr);
}

#define ROPELAB_DELTA_INSTANTIATE(Real)                                                            \
  template void delta_frames<Real>(const DeltaSequenceOf<Real>&, rotary::Layout, std::size_t,      \
                                   std::size_t, Real*, Real*, DeltaFaults*);                       \
  template void delta_rule_rows<Real>(                                                             \
      const DeltaSequenceOf<Real>&, rotary::Layout, std::size_t, std::size_t, Real*,               \
      const std::atomic<bool>*, const DeltaFrames<Real>*, DeltaFaults*, std::size_t, std::size_t); \
  template void delta_rule_batch<Real>(const std::function<DeltaSequenceOf<Real>(std::size_t)>&,   \
                                       std::size_t, rotary::Layout, Real*,                         \
                                       const std::atomic<bool>*, int, DeltaFaults*);               \
  template void delta_rule<Real>(const DeltaSequenceOf<Real>&, rotary::Layout, Real*,              \
                                 const std::atomic<bool>*, int);
ROPELAB_DELTA_INSTANTIATE(double)
ROPELAB_DELTA_INSTANTIATE(float)
#undef ROPELAB_DELTA_INSTANTIATE

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
