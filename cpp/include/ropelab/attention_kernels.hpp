#pragma once
/// \file attention_kernels.hpp
/// The matrix products of attention.cpp and the steps of its exact softmax, hand-written for
/// AVX2 + FMA (cpp/src/attention_kernels_avx2.cpp, compiled with -mavx2 -mfma and called only when
/// simd::supported(Isa::avx2)) and AVX-512 (cpp/src/attention_kernels_avx512.cpp, -mavx512f
/// -mavx512dq, called only when simd::supported(Isa::avx512)). Like the kernels of vecmath.hpp,
/// those files include nothing but <immintrin.h>, <sleef.h>, this header and the kernel bodies
/// attention_softmax_body.inc and attention_gemm_body.inc (inside their anonymous namespace), so no
/// code compiled with AVX flags can be shared with, or picked by the linker for, the SSE2
/// translation units.
///
/// Every element C_ij of a product is one sum over p in increasing order (a chain of fused
/// multiply-adds starting from 0, or from C_ij when accumulating): the result does not depend on
/// the blocking, on the thread or on the matrix sizes around it.
///
/// Exact softmax (one query block at a time, "flash attention" with the queries as vector lanes):
/// Qᵀ is packed once per block, qt[p·ld + i] = Q(i, p) (ld a multiple of 32, lanes past the block's
/// rows 0), and every per-key-block quantity is stored transposed, key- or channel-major with row
/// stride ld. The AVX2 and AVX-512 versions do the same IEEE operations per lane in the same order
/// (SLEEF's u10 exp of both widths gives the same bits): the same results.

#include <cstddef>

namespace ropelab::attention::kernels {

/// C (m×n, row stride ldc) = [C +] A B with A(i, p) = A[i·a_rs + p·a_cs] (m×k) and
/// B(p, j) = B[p·b_rs + j·b_cs] (k×n). `pack` must hold (b_cs != 1 ? k·n : 0) + (6 + n)·min(k, 128)
/// doubles: B copied row-major when b_cs != 1, six rows of A and 128 rows of B at a time.
void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               double* C, std::size_t ldc, bool accumulate, double* pack);

/// The same product with AVX-512 (the same bits; the packed kernel of attention_gemm_body.inc).
/// `pack` must hold (12 + 16·⌈n/16⌉)·min(k, 128) doubles (at least 12 + 16·⌈n/16⌉ when k = 0):
/// twelve rows of A and 128 rows of B at a time.
void gemm_avx512(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
                 std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
                 double* C, std::size_t ldc, bool accumulate, double* pack);

/// The three steps of one key block take `lag`: key j of the block can be visible to query lane i
/// only if j ≤ i + lag (causal: the block's first query minus its first key; SIZE_MAX: every key).
/// They work in tiles of lanes (AVX-512: 32 doubles, 64 floats; AVX2: 8 doubles, 16 floats) and
/// touch, for the lanes [i0, i0 + tile) of a tile, only the keys j < min(nk, i0 + tile + lag): the
/// others are masked for every lane of the tile and would only add exact zeros (the caller sets
/// every masked score to −∞ before the online step, as before).
///
/// Scores of one key block: st[j·ld + i] = scale·Σ_p Q(i, p)·K[j·d + p] for i < ld, j < nk (one
/// fused multiply-add chain over p from 0, then one multiplication). Returns true iff every score
/// is finite (the check is fused into the stores: the caller locates a non-finite one only then).
bool scores_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const double* qt,
                 const double* K, double scale, double* st);
bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const double* qt,
                   const double* K, double scale, double* st);

/// The online-softmax step of one key block, per query lane i < ld: m' = max(m, max_j st), the
/// weights st ← exp(st − m') (0 while m' = −∞: every key so far masked), alpha = exp(m − m')
/// (0 when m = −∞, 1 when m' = −∞), l ← alpha·l + Σ_j weight (summed in increasing j), m ← m'.
/// exp: SLEEF u10.
void online_softmax_avx2(std::size_t ld, std::size_t nk, std::size_t lag, double* st, double* m,
                         double* l, double* alpha);
void online_softmax_avx512(std::size_t ld, std::size_t nk, std::size_t lag, double* st, double* m,
                           double* l, double* alpha);

/// The weighted values of one key block: ot[c·ld + i] ← alpha[i]·ot[c·ld + i] + Σ_j pt[j·ld + i]·
/// V[j·dv + c] (one fused multiply-add chain in increasing j), i < ld, c < dv.
void pv_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const double* pt,
             const double* V, const double* alpha, double* ot);
void pv_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const double* pt,
               const double* V, const double* alpha, double* ot);

/// c[i] = cos x[i], s[i] = sin x[i] (SLEEF's u10 sincos, ≤ 1 ulp each), i < n.
void sincos_avx2(const double* x, std::size_t n, double* c, double* s);
/// The same with AVX-512 (SLEEF's 8-lane u10 sincos: the same bits).
void sincos_avx512(const double* x, std::size_t n, double* c, double* s);

/// The products in single precision (the float32 path of attention::random_feature): the same
/// contract, every C_ij one chain of float FMAs over p in increasing order, so the AVX2 and
/// AVX-512 versions give the same bits. Both are the packed kernel of attention_gemm_body.inc:
/// `pack` must hold (6 + 16·⌈n/16⌉)·min(k, 128) floats (AVX2: tiles of 6×16) or
/// (12 + 32·⌈n/32⌉)·min(k, 128) floats (AVX-512: tiles of 12×32), with min(k, 128) read as 1 when
/// k = 0.
void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const float* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const float* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               float* C, std::size_t ldc, bool accumulate, float* pack);
void gemm_avx512(std::size_t m, std::size_t n, std::size_t k, const float* A, std::ptrdiff_t a_rs,
                 std::ptrdiff_t a_cs, const float* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
                 float* C, std::size_t ldc, bool accumulate, float* pack);

/// c[i] = cos x[i], s[i] = sin x[i] in single precision (SLEEF's u10 sincosf, ≤ 1 ulp each).
void sincos_avx2(const float* x, std::size_t n, float* c, float* s);
/// The same with AVX-512 (SLEEF's 16-lane u10 sincosf: the same bits).
void sincos_avx512(const float* x, std::size_t n, float* c, float* s);

/// out[i] = exp(x[i])·scale in double (SLEEF's u10 exp, ≤ 1 ulp; one multiplication), rounded
/// to float once, i < n: the exp features of the float32 random_feature.
void exp_to_float_avx2(const double* x, std::size_t n, double scale, float* out);

// Single precision (the float32 path of attention::softmax): the same operations on float lanes
// (SLEEF's u10 expf, ≤ 1 ulp), each entry the same chain of float operations as
// above, so again the AVX2 and AVX-512 versions give the same bits.
bool scores_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const float* qt,
                 const float* K, float scale, float* st);
bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const float* qt,
                   const float* K, float scale, float* st);
void online_softmax_avx2(std::size_t ld, std::size_t nk, std::size_t lag, float* st, float* m,
                         float* l, float* alpha);
void online_softmax_avx512(std::size_t ld, std::size_t nk, std::size_t lag, float* st, float* m,
                           float* l, float* alpha);
void pv_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const float* pt,
             const float* V, const float* alpha, float* ot);
void pv_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const float* pt,
               const float* V, const float* alpha, float* ot);

}  // namespace ropelab::attention::kernels
