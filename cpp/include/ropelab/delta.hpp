#pragma once
/// \file delta.hpp
/// The delta rule and its relatives as recurrences on a dv×d state S (row convention of
/// recurrence.hpp: write v kᵀ, read o_t = S_t q_t, S_{−1} = 0):
///
///   DeltaNet          S_t = S_{t−1} (I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ
///   Gated DeltaNet    S_t = S_{t−1} α_t (I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ
///   DeltaProduct      n_h micro-steps per token, S ← S (I − β_{t,j} k_{t,j} k_{t,j}ᵀ) + β_{t,j}
///   v_{t,j} k_{t,j}ᵀ
///                     for j = 0..n_h−1 after the gate, so the token's transition is the product
///                     α_t Π_j (I − β_{t,j} k_{t,j} k_{t,j}ᵀ) of n_h generalised Householder
///                     factors.
///
/// With Selective RoPE pre-rotation (angles ψ, C_t = blockdiag R(ψ_t)) the keys and the query of
/// step t are rotated by C_t before the update/read. In the unrotated frame S_t = Ŝ_t C_t obeys
/// S_t = S_{t−1} A_t + Σ_j (write terms) with the effective transition
///   A_t = α_t R_t Π_j (I − β_{t,j} k_{t,j} k_{t,j}ᵀ),  R_t = C_{t−1}ᵀ C_t = blockdiag R(ψ_t −
///   ψ_{t−1}),
/// (C_{−1} = I): a rotation by the phase increment followed by the Householder factors.

#include <atomic>
#include <cstddef>
#include <functional>

#include "ropelab/rotary.hpp"

namespace ropelab::recurrence {

/// One sequence of the delta-rule family in precision Real (double, or float for the float32
/// path). Keys and values carry n_h rows per token.
template <class Real>
struct DeltaSequenceOf {
  const Real* q;       ///< T×d
  const Real* k;       ///< T×n_h×d
  const Real* v;       ///< T×n_h×dv
  const Real* beta;    ///< T×n_h (write strengths; β = 2 with unit keys is a reflection)
  const Real* angles;  ///< T×d/2 Selective RoPE angles ψ_t, or null for none
  const Real* gates;   ///< T gates α_t, or null for α = 1
  std::size_t T, n_h, d, dv;
};
using DeltaSequence = DeltaSequenceOf<double>;
using DeltaSequenceF = DeltaSequenceOf<float>;

/// The first offending element of each input the delta-rule kernels check while they run (the
/// checks are fused into the pass that reads the inputs anyway, so they run on every thread with
/// no extra sweep over memory). Each field is the lowest address found (null: none); merge() of
/// the reports of all work items gives the first offending element of each array whatever the
/// split, so the error raised from them does not depend on the thread count.
struct DeltaFaults {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* beta = nullptr;
  const void* angles = nullptr;
  const void* gates_nonfinite = nullptr;
  const void* gates_range = nullptr;  ///< finite but outside [0, 1]
  const void* out = nullptr;          ///< a non-finite output (overflow from finite inputs)
  void merge(const DeltaFaults& o);
  bool inputs_ok() const;
};

/// The pre-rotated keys C_t k_{t,j} (T×n_h×d) and queries C_t q_t (T×d) of one sequence, computed
/// once and shared by the row blocks of that sequence (instead of each block rotating them again).
template <class Real>
struct DeltaFrames {
  const Real* keys;
  const Real* query;
};

/// Writes the frames of tokens [t0, t1) of `s` (which must have angles) into keys (T×n_h×d) and
/// query (T×d), and records non-finite q, k, angles in `faults` (may be null: no checks).
template <class Real>
void delta_frames(const DeltaSequenceOf<Real>& s, rotary::Layout layout, std::size_t t0,
                  std::size_t t1, Real* keys, Real* query, DeltaFaults* faults);

/// out (T×dv): o_t = Ŝ_t (C_t q_t) of the (gated, pre-rotated) delta rule / DeltaProduct.
/// O(T n_h d dv). Polls `cancel` once per 64 tokens. The rows of the state (one per value
/// channel) evolve independently, so they are split over up to `nthreads` threads (resolved by
/// mc::resolve_threads; 1: this thread only), each running all T steps on its own rows with no
/// synchronisation; the result is bit-identical for every thread count. Real = float computes in
/// float32 throughout (the cos/sin of the angles and the rotation of k and q in double, rounded
/// once to float).
template <class Real>
void delta_rule(const DeltaSequenceOf<Real>& s, rotary::Layout layout, Real* out,
                const std::atomic<bool>* cancel = nullptr, int nthreads = 1);

/// Rows [row_begin, row_end) ⊆ [0, dv) of delta_rule's output: writes out[t dv + r] for those r
/// only, with the bits delta_rule gives them. Runs on the calling thread. `frames` (may be null):
/// the sequence's pre-rotated keys and queries (delta_frames), else they are computed per token.
/// `faults` (may be null: no checks): records non-finite inputs it reads (q, k and angles only
/// without frames; v only in its own rows; beta; gates non-finite or outside [0, 1]) and
/// non-finite outputs it writes. With neither frames nor angles, q and k are checked only in the
/// slabs of 64 tokens t with t/64 ≡ share (mod shares): the row blocks of one sequence, which all
/// read every q_t and k_t, split those checks between them. Throws std::invalid_argument for a
/// range not within [0, dv) or share ≥ shares.
template <class Real>
void delta_rule_rows(const DeltaSequenceOf<Real>& s, rotary::Layout layout, std::size_t row_begin,
                     std::size_t row_end, Real* out, const std::atomic<bool>* cancel = nullptr,
                     const DeltaFrames<Real>* frames = nullptr, DeltaFaults* faults = nullptr,
                     std::size_t share = 0, std::size_t shares = 1);

/// Rows of the state per panel of the kernels for precision Real: two SIMD registers of 32 bytes
/// (8 doubles, 16 floats).
template <class Real>
constexpr std::size_t delta_panel_rows() {
  return 64 / sizeof(Real);
}

/// A half-open range of value rows.
struct RowRange {
  std::size_t begin, end;
};

/// How many row blocks each of `batch` sequences with dv value rows is split into for `nthreads`
/// threads (resolved by mc::resolve_threads): the fewest that make batch × blocks a multiple of
/// the thread count (so every thread gets the same work), at most one per panel of `panel` rows;
/// 1 when a single thread runs.
std::size_t delta_row_blocks(std::size_t batch, std::size_t dv, int nthreads,
                             std::size_t panel = 8);

/// Block i of `blocks` of the rows [0, dv), in whole panels of `panel` rows (the last may be
/// shorter, some may be empty when blocks exceeds the panels).
RowRange delta_row_range(std::size_t dv, std::size_t blocks, std::size_t i, std::size_t panel = 8);

/// delta_rule for `batch` sequences seq(0 … batch−1) of one shape (T, n_h, d, dv): out is
/// batch×T×dv. Work items are (sequence, block of value rows) (delta_row_blocks in units of one
/// SIMD register of rows, delta_panel_rows<Real>() / 2: 4 doubles, 8 floats), spread over up to
/// `nthreads` threads; with angles and several blocks per sequence the frames (delta_frames) are
/// computed first, once per sequence, in parallel over chunks of tokens. `faults` (may be null:
/// no checks) receives the merged reports of every work item. Bit-identical for every thread
/// count.
template <class Real>
void delta_rule_batch(const std::function<DeltaSequenceOf<Real>(std::size_t)>& seq,
                      std::size_t batch, rotary::Layout layout, Real* out,
                      const std::atomic<bool>* cancel, int nthreads, DeltaFaults* faults);

/// out (T×d×d, row-major A_t): the effective transitions A_t = α_t R_t Π_j (I − β_{t,j} k_{t,j}
/// k_{t,j}ᵀ) of the unrotated frame (q and v of `s` are not used). O(T n_h d²).
void delta_transitions(const DeltaSequence& s, rotary::Layout layout, double* out,
                       const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::recurrence
