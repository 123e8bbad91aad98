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

#include "ropelab/rotary.hpp"

namespace ropelab::recurrence {

/// One sequence of the delta-rule family. Keys and values carry n_h rows per token.
struct DeltaSequence {
  const double* q;       ///< T×d
  const double* k;       ///< T×n_h×d
  const double* v;       ///< T×n_h×dv
  const double* beta;    ///< T×n_h (write strengths; β = 2 with unit keys is a reflection)
  const double* angles;  ///< T×d/2 Selective RoPE angles ψ_t, or null for none
  const double* gates;   ///< T gates α_t, or null for α = 1
  std::size_t T, n_h, d, dv;
};

/// out (T×dv): o_t = Ŝ_t (C_t q_t) of the (gated, pre-rotated) delta rule / DeltaProduct.
/// O(T n_h d dv). Polls `cancel` once per 64 tokens. The rows of the state (one per value
/// channel) evolve independently, so they are split over up to `nthreads` threads (resolved by
/// mc::resolve_threads; 1: this thread only), each running all T steps on its own rows with no
/// synchronisation; the result is bit-identical for every thread count.
void delta_rule(const DeltaSequence& s, rotary::Layout layout, double* out,
                const std::atomic<bool>* cancel = nullptr, int nthreads = 1);

/// Rows [row_begin, row_end) ⊆ [0, dv) of delta_rule's output: writes out[t dv + r] for those r
/// only, with the bits delta_rule gives them. Runs on the calling thread. Throws
/// std::invalid_argument for a range not within [0, dv).
void delta_rule_rows(const DeltaSequence& s, rotary::Layout layout, std::size_t row_begin,
                     std::size_t row_end, double* out, const std::atomic<bool>* cancel = nullptr);

/// A half-open range of value rows.
struct RowRange {
  std::size_t begin, end;
};

/// How many row blocks each of `batch` sequences with dv value rows is split into for `nthreads`
/// threads (resolved by mc::resolve_threads): the fewest that make batch × blocks a multiple of
/// the thread count (so every thread gets the same work), at most one per 8 rows; 1 when a single
/// thread runs.
std::size_t delta_row_blocks(std::size_t batch, std::size_t dv, int nthreads);

/// Block i of `blocks` of the rows [0, dv), in whole panels of 8 rows (the last may be shorter,
/// some may be empty when blocks exceeds the panels).
RowRange delta_row_range(std::size_t dv, std::size_t blocks, std::size_t i);

/// out (T×d×d, row-major A_t): the effective transitions A_t = α_t R_t Π_j (I − β_{t,j} k_{t,j}
/// k_{t,j}ᵀ) of the unrotated frame (q and v of `s` are not used). O(T n_h d²).
void delta_transitions(const DeltaSequence& s, rotary::Layout layout, double* out,
                       const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::recurrence
