// AVX2 kernels of the delta-rule core (delta_kernels.hpp). Compiled with -mavx2 -mfma
// (CMakeLists.txt) and run only when vecmath's active path is avx2 or avx512. Includes nothing but
// the intrinsics and a header of plain declarations (cos/sin: attention_kernels.hpp's sincos_avx2);
// everything else has internal linkage (the templates below are in an anonymous namespace).
#include <immintrin.h>

#include "ropelab/delta_kernels.hpp"

namespace ropelab::recurrence::kernels {

namespace {

/// One panel-pass, specialised on whether the next gate is not 1 and which outputs are wanted
/// (multiplying by a_next = 1 is exact, so skipping it changes no bit). Eight multiplications per
/// 8 rows and column (the four products of the direct form) bound its speed: the panel's two
/// accumulation chains per output overlap with the next panel's. (Two panels per sweep, sharing
/// the broadcasts, measured slower.)
template <bool kScaleNext, bool kRead, bool kNext>
void pass(double* ST, std::size_t d, std::size_t panels, const double* key, const double* u,
          const double* query, double a_next, const double* next_key, double* y, double* out) {
  const __m256d vn = _mm256_set1_pd(a_next);
  for (std::size_t p = 0; p < panels; ++p) {
    double* P = ST + p * d * 8;
    const __m256d u0 = _mm256_loadu_pd(u + 8 * p), u1 = _mm256_loadu_pd(u + 8 * p + 4);
    __m256d o0 = _mm256_setzero_pd(), o1 = _mm256_setzero_pd();
    __m256d y0 = _mm256_setzero_pd(), y1 = _mm256_setzero_pd();
    // explicit multiply-then-add: the bits of the scalar path (compiled with -ffp-contract=off)
    for (std::size_t c = 0; c < d; ++c) {
      const __m256d kc = _mm256_set1_pd(key[c]);
      __m256d s0 = _mm256_loadu_pd(P + 8 * c), s1 = _mm256_loadu_pd(P + 8 * c + 4);
      s0 = _mm256_add_pd(s0, _mm256_mul_pd(kc, u0));
      s1 = _mm256_add_pd(s1, _mm256_mul_pd(kc, u1));
      if constexpr (kRead) {
        const __m256d qc = _mm256_set1_pd(query[c]);
        o0 = _mm256_add_pd(o0, _mm256_mul_pd(qc, s0));
        o1 = _mm256_add_pd(o1, _mm256_mul_pd(qc, s1));
      }
      if constexpr (kScaleNext) {
        s0 = _mm256_mul_pd(vn, s0);
        s1 = _mm256_mul_pd(vn, s1);
      }
      _mm256_storeu_pd(P + 8 * c, s0);
      _mm256_storeu_pd(P + 8 * c + 4, s1);
      if constexpr (kNext) {
        const __m256d nc = _mm256_set1_pd(next_key[c]);
        y0 = _mm256_add_pd(y0, _mm256_mul_pd(nc, s0));
        y1 = _mm256_add_pd(y1, _mm256_mul_pd(nc, s1));
      }
    }
    if constexpr (kRead) {
      _mm256_storeu_pd(out + 8 * p, o0);
      _mm256_storeu_pd(out + 8 * p + 4, o1);
    }
    if constexpr (kNext) {
      _mm256_storeu_pd(y + 8 * p, y0);
      _mm256_storeu_pd(y + 8 * p + 4, y1);
    }
  }
}

template <bool kScaleNext>
void pass_outputs(double* ST, std::size_t d, std::size_t panels, const double* key, const double* u,
                  const double* query, double a_next, const double* next_key, double* y,
                  double* out) {
  if (query != nullptr && next_key != nullptr) {
    pass<kScaleNext, true, true>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  } else if (query != nullptr) {
    pass<kScaleNext, true, false>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  } else if (next_key != nullptr) {
    pass<kScaleNext, false, true>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  } else {
    pass<kScaleNext, false, false>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  }
}

}  // namespace

void delta_pass_avx2(double* ST, std::size_t d, std::size_t panels, const double* key,
                     const double* u, const double* query, double a_next, const double* next_key,
                     double* y, double* out) {
  if (a_next != 1.0) {
    pass_outputs<true>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  } else {
    pass_outputs<false>(ST, d, panels, key, u, query, a_next, next_key, y, out);
  }
}

}  // namespace ropelab::recurrence::kernels
