#pragma once
/// \file delta_kernels.hpp
/// The per-token pass of the delta-rule core (delta.cpp) and its AVX2 version
/// (cpp/src/delta_avx2.cpp, compiled with -mavx2 like kernels_avx2.cpp and called only when the
/// active SIMD path of vecmath.hpp is avx2 or wider). Plain declarations only: this header is
/// included by a file compiled with ISA flags (see vecmath.hpp on why nothing inline may be here).
///
/// State layout: a block of rows of the dv×d state S is stored in panels of P rows (two AVX2
/// registers: P = 8 doubles, 16 floats), ST[(p d + c) P + l] = S[r0 + P p + l, c] (rows past the
/// block are zero and stay zero), so one pass over a panel reads P·d contiguous values. Every
/// value-row of the delta rule evolves independently (row r only needs S[r, :], v[r] and the keys),
/// which is what makes a panel-by-panel pass, and a split of the rows over threads, possible.

#include <cstddef>

namespace ropelab::recurrence::kernels {

/// One micro-step of the delta rule for every panel, fused with the read and the next dot
/// product. The stored state is the one the micro-step starts from, already multiplied by its
/// gate (fl(α S)), so each product of the direct form is computed once:
///   s ← s + key[c]·u[r]                     (S ← S + u keyᵀ)
///   out[r] = Σ_c query[c]·s                 (= S query; if query != nullptr)
///   s ← a_next·s                            (stored: the gate of the next micro-step, skipped
///                                            when a_next = 1, which is exact)
///   y[r] = Σ_c next_key[c]·s                (= (a_next S) next_key, the product the next
///                                            micro-step needs; if next_key != nullptr)
/// Sums run over c = 0..d−1 in order with one accumulator per row, multiply then add (no FMA):
/// the same IEEE operations on every path. u, y, out have P·panels entries; `rows` (≤ P·panels)
/// are the block's rows: a last panel with at most P/2 of them is swept with one register (rows
/// split over threads in units of P/2). The float overload is the float32 path (P = 16; float
/// arithmetic, the same order).
void delta_pass_avx2(double* ST, std::size_t d, std::size_t panels, const double* key,
                     const double* u, const double* query, double a_next, const double* next_key,
                     double* y, double* out, std::size_t rows);
void delta_pass_avx2(float* ST, std::size_t d, std::size_t panels, const float* key, const float* u,
                     const float* query, float a_next, const float* next_key, float* y, float* out,
                     std::size_t rows);

}  // namespace ropelab::recurrence::kernels
