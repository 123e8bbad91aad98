#pragma once
/// \file delta_kernels.hpp
/// The per-token pass of the delta-rule core (delta.cpp) and its AVX2 version
/// (cpp/src/delta_avx2.cpp, compiled with -mavx2 like kernels_avx2.cpp and called only when the
/// active SIMD path of vecmath.hpp is avx2 or wider). Plain declarations only: this header is
/// included by a file compiled with ISA flags (see vecmath.hpp on why nothing inline may be here).
///
/// State layout: the dv×d state S is stored in panels of 8 rows, ST[(p d + c) 8 + l] = S[8p + l, c]
/// (rows past dv are zero and stay zero), so one pass over a panel reads 8·d contiguous doubles.
/// Every value-row of the delta rule evolves independently (row r only needs S[r, :] and the
/// keys), which is what makes a panel-by-panel pass possible.

#include <cstddef>

namespace ropelab::recurrence::kernels {

/// One micro-step of the delta rule for every panel, fused with the next dot product and the read:
///   s ← a·s + key[c]·u[r]                   (S ← a S + u keyᵀ; a = the gate α_t of the token's
///                                            first micro-step, 1 otherwise)
///   y[r] = Σ_c next_key[c]·(a_next·s)        (= (a_next S) next_key: the product the next
///                                            micro-step needs, with the gate it will apply)
///   out[r] = Σ_c query[c]·s                  (if query != nullptr)
/// Sums run over c = 0..d−1 in order with one accumulator per row, multiply then add (no FMA):
/// the same IEEE operations on every path. next_key may be null (no y). u, y, out have 8·panels
/// entries.
void delta_pass_avx2(double* ST, std::size_t d, std::size_t panels, const double* key,
                     const double* u, double a, const double* next_key, double a_next,
                     const double* query, double* y, double* out);

}  // namespace ropelab::recurrence::kernels
