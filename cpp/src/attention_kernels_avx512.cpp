// AVX-512 exact-softmax steps of attention.cpp (attention_kernels.hpp). Compiled with -mavx512f
// -mavx512dq -mavx2 -mfma (CMakeLists.txt) and run only after simd::supported(Isa::avx512).
// Includes no header with inline functions or templates other than the intrinsics and SLEEF's:
// everything here has internal linkage.
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/attention_kernels.hpp"

namespace ropelab::attention::kernels {

namespace {

// The kernels of attention_softmax_body.inc on 8 doubles: tiles of 32 queries × 6 keys and
// 32 queries × 6 channels (24 accumulators of the 32 registers).
using Real = double;
using Vec = __m512d;
using Mask = __mmask8;
constexpr std::size_t kLanes = 8;
constexpr int kScoreVecs = 4, kScoreKeys = 6, kPvVecs = 4, kPvCols = 6;
inline Vec load(const double* p) {
  return _mm512_loadu_pd(p);
}
inline void store(double* p, Vec x) {
  _mm512_storeu_pd(p, x);
}
inline Vec set1(double x) {
  return _mm512_set1_pd(x);
}
inline Vec zero() {
  return _mm512_setzero_pd();
}
inline Vec add(Vec a, Vec b) {
  return _mm512_add_pd(a, b);
}
inline Vec sub(Vec a, Vec b) {
  return _mm512_sub_pd(a, b);
}
inline Vec mul(Vec a, Vec b) {
  return _mm512_mul_pd(a, b);
}
inline Vec max(Vec a, Vec b) {
  return _mm512_max_pd(a, b);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm512_fmadd_pd(a, b, c);
}
inline Vec exp(Vec x) {
  return Sleef_expd8_u10avx512f(x);
}
inline Mask is_neg_inf(Vec x) {
  return _mm512_cmp_pd_mask(x, _mm512_set1_pd(-__builtin_inf()), _CMP_EQ_OQ);
}
inline Vec select(Mask m, Vec t, Vec f) {
  return _mm512_mask_blend_pd(m, f, t);
}
inline bool any_nan(Vec x) {
  return _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q) != 0;
}

#include "attention_loops.inc"
#include "attention_softmax_body.inc"

// The general product on 8 lanes: register tiles of 12 rows × 16 columns (24 accumulators).
constexpr std::size_t kMr = 12;
#include "attention_gemm_body.inc"

// The same kernels on 16 floats: tiles of 64 queries × 6 keys or
// channels.
namespace sp {
using Real = float;
using Vec = __m512;
using Mask = __mmask16;
constexpr std::size_t kLanes = 16;
constexpr int kScoreVecs = 4, kScoreKeys = 6, kPvVecs = 4, kPvCols = 6;
inline Vec load(const float* p) {
  return _mm512_loadu_ps(p);
}
inline void store(float* p, Vec x) {
  _mm512_storeu_ps(p, x);
}
inline Vec set1(float x) {
  return _mm512_set1_ps(x);
}
inline Vec zero() {
  return _mm512_setzero_ps();
}
inline Vec add(Vec a, Vec b) {
  return _mm512_add_ps(a, b);
}
inline Vec sub(Vec a, Vec b) {
  return _mm512_sub_ps(a, b);
}
inline Vec mul(Vec a, Vec b) {
  return _mm512_mul_ps(a, b);
}
inline Vec max(Vec a, Vec b) {
  return _mm512_max_ps(a, b);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm512_fmadd_ps(a, b, c);
}
inline Vec exp(Vec x) {
  return Sleef_expf16_u10avx512f(x);
}
inline Mask is_neg_inf(Vec x) {
  return _mm512_cmp_ps_mask(x, _mm512_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
}
inline Vec select(Mask m, Vec t, Vec f) {
  return _mm512_mask_blend_ps(m, f, t);
}
inline bool any_nan(Vec x) {
  return _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) != 0;
}

#include "attention_softmax_body.inc"

// The general product on 16 floats: tiles of 12 rows × 32 columns (24 accumulators).
constexpr std::size_t kMr = 12;
#include "attention_gemm_body.inc"
}  // namespace sp

}  // namespace

bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const float* qt,
                   const float* K, float scale, float* st) {
  return sp::scores_impl(ld, nk, lag, d, qt, K, scale, st);
}

void online_softmax_avx512(std::size_t ld, std::size_t nk, std::size_t lag, float* st, float* m,
                           float* l, float* alpha) {
  sp::online_softmax_impl(ld, nk, lag, st, m, l, alpha);
}

void pv_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const float* pt,
               const float* V, const float* alpha, float* ot) {
  sp::pv_impl(ld, nk, lag, dv, pt, V, alpha, ot);
}

void gemm_avx512(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
                 std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
                 double* C, std::size_t ldc, bool accumulate, double* pack) {
  gemm_impl(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack);
}

void gemm_avx512(std::size_t m, std::size_t n, std::size_t k, const float* A, std::ptrdiff_t a_rs,
                 std::ptrdiff_t a_cs, const float* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
                 float* C, std::size_t ldc, bool accumulate, float* pack) {
  sp::gemm_impl(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack);
}

void sincos_avx512(const double* x, std::size_t n, double* c, double* s) {
  sincos_by_vectors<8>(
      x, n, c, s, [](std::size_t m) { return static_cast<__mmask8>((1u << m) - 1u); },
      [](const double* p, __mmask8 k) { return _mm512_maskz_loadu_pd(k, p); },
      Sleef_sincosd8_u10avx512f,
      [](double* p, __mmask8 k, __m512d v) { _mm512_mask_storeu_pd(p, k, v); });
}

void sincos_avx512(const float* x, std::size_t n, float* c, float* s) {
  sincos_by_vectors<16>(
      x, n, c, s, [](std::size_t m) { return static_cast<__mmask16>((1u << m) - 1u); },
      [](const float* p, __mmask16 k) { return _mm512_maskz_loadu_ps(k, p); },
      Sleef_sincosf16_u10avx512f,
      [](float* p, __mmask16 k, __m512 v) { _mm512_mask_storeu_ps(p, k, v); });
}

bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const double* qt,
                   const double* K, double scale, double* st) {
  return scores_impl(ld, nk, lag, d, qt, K, scale, st);
}

void online_softmax_avx512(std::size_t ld, std::size_t nk, std::size_t lag, double* st, double* m,
                           double* l, double* alpha) {
  online_softmax_impl(ld, nk, lag, st, m, l, alpha);
}

void pv_avx512(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const double* pt,
               const double* V, const double* alpha, double* ot) {
  pv_impl(ld, nk, lag, dv, pt, V, alpha, ot);
}

}  // namespace ropelab::attention::kernels
