// AVX-512 exact-softmax steps of attention.cpp (attention_kernels.hpp). Compiled with -mavx512f
// -mavx512dq -mavx2 -mfma (CMakeLists.txt) and run only after simd::supported(Isa::avx512).
// Includes no header with inline functions or templates other than the intrinsics and SLEEF's:
// everything here has internal linkage.
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/attention_kernels.hpp"

namespace ropelab::attention::kernels {

namespace {

// The kernels of attention_softmax_body.inc on 8 lanes: tiles of 16 queries × 12 keys and
// 16 queries × 12 channels (24 accumulators of the 32 registers).
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

#include "attention_softmax_body.inc"

}  // namespace

void scores_avx512(std::size_t ld, std::size_t nk, std::size_t d, const double* qt, const double* K,
                   double scale, double* st) {
  scores_impl(ld, nk, d, qt, K, scale, st);
}

void online_softmax_avx512(std::size_t ld, std::size_t nk, double* st, double* m, double* l,
                           double* alpha) {
  online_softmax_impl(ld, nk, st, m, l, alpha);
}

void pv_avx512(std::size_t ld, std::size_t nk, std::size_t dv, const double* pt, const double* V,
               const double* alpha, double* ot) {
  pv_impl(ld, nk, dv, pt, V, alpha, ot);
}

}  // namespace ropelab::attention::kernels
