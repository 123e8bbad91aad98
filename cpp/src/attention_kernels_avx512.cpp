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

#include "attention_pack.inc"
#include "attention_softmax_body.inc"

// The general product on 8 lanes: register tiles of 12 rows × 16 columns (24 accumulators), A in
// panels of 12 rows (p-major, rows past m zero), B in strips of 16 columns (row-major, columns past
// n zero), kKc terms of the sums at a time. Tiles that stick out of C go through a 12×16 copy.
constexpr std::size_t kMr = 12, kNr = 16, kKc = 128;

/// C tile (ldc) [+]= the 12×16 product of a panel and a strip over kc terms: one FMA chain per
/// entry in increasing p, from 0 or from the stored entry.
void tile12x16(std::size_t kc, const double* a, const double* b, double* c, std::size_t ldc,
               bool accumulate) {
  Vec acc[kMr][2];
#pragma GCC unroll 12
  for (std::size_t r = 0; r < kMr; ++r) {
    acc[r][0] = accumulate ? load(c + r * ldc) : zero();
    acc[r][1] = accumulate ? load(c + r * ldc + 8) : zero();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const Vec b0 = load(b + kNr * p), b1 = load(b + kNr * p + 8);
#pragma GCC unroll 12
    for (std::size_t r = 0; r < kMr; ++r) {
      const Vec x = set1(a[kMr * p + r]);
      acc[r][0] = fma(x, b0, acc[r][0]);
      acc[r][1] = fma(x, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 12
  for (std::size_t r = 0; r < kMr; ++r) {
    store(c + r * ldc, acc[r][0]);
    store(c + r * ldc + 8, acc[r][1]);
  }
}

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
}  // namespace sp

}  // namespace

bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t d, const float* qt, const float* K,
                   float scale, float* st) {
  return sp::scores_impl(ld, nk, d, qt, K, scale, st);
}

void online_softmax_avx512(std::size_t ld, std::size_t nk, float* st, float* m, float* l,
                           float* alpha) {
  sp::online_softmax_impl(ld, nk, st, m, l, alpha);
}

void pv_avx512(std::size_t ld, std::size_t nk, std::size_t dv, const float* pt, const float* V,
               const float* alpha, float* ot) {
  sp::pv_impl(ld, nk, dv, pt, V, alpha, ot);
}

void gemm_avx512(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
                 std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
                 double* C, std::size_t ldc, bool accumulate, double* pack) {
  if (m == 0 || n == 0) return;
  const std::size_t kcmax = k < kKc ? (k == 0 ? 1 : k) : kKc;
  const std::size_t nstrips = (n + kNr - 1) / kNr;
  double* apack = pack;
  double* bpack = pack + kMr * kcmax;
  for (std::size_t p0 = 0; p0 < k || p0 == 0; p0 += kKc) {
    const std::size_t kc = k - p0 < kKc ? k - p0 : kKc;
    const bool acc = accumulate || p0 > 0;
    // B's kc×16 strips, each contiguous, zero past column n
    for (std::size_t s = 0; s < nstrips; ++s) {
      double* strip = bpack + s * kNr * kc;
      const std::size_t j0 = s * kNr, w = n - j0 < kNr ? n - j0 : kNr;
      for (std::size_t p = 0; p < kc; ++p) {
        const double* brow = B + static_cast<std::ptrdiff_t>(p0 + p) * b_rs;
        if (b_cs == 1 && w == kNr) {
          store(strip + kNr * p, load(brow + j0));
          store(strip + kNr * p + 8, load(brow + j0 + 8));
        } else {
          for (std::size_t c = 0; c < kNr; ++c) {
            strip[kNr * p + c] = c < w ? brow[static_cast<std::ptrdiff_t>(j0 + c) * b_cs] : 0.0;
          }
        }
      }
    }
    for (std::size_t i = 0; i < m; i += kMr) {
      const std::size_t mr = m - i < kMr ? m - i : kMr;
      pack_rows<kMr>(A, a_rs, a_cs, i, mr, p0, kc, apack);
      for (std::size_t s = 0; s < nstrips; ++s) {
        const std::size_t j0 = s * kNr, w = n - j0 < kNr ? n - j0 : kNr;
        double* c = C + i * ldc + j0;
        if (mr == kMr && w == kNr) {
          tile12x16(kc, apack, bpack + s * kNr * kc, c, ldc, acc);
          continue;
        }
        alignas(64) double t[kMr * kNr];
        for (std::size_t r = 0; r < kMr; ++r) {
          for (std::size_t col = 0; col < kNr; ++col) {
            t[r * kNr + col] = acc && r < mr && col < w ? c[r * ldc + col] : 0.0;
          }
        }
        tile12x16(kc, apack, bpack + s * kNr * kc, t, kNr, acc);
        for (std::size_t r = 0; r < mr; ++r) {
          for (std::size_t col = 0; col < w; ++col) c[r * ldc + col] = t[r * kNr + col];
        }
      }
    }
    if (k == 0) break;
  }
}

void sincos_avx512(const double* x, std::size_t n, double* c, double* s) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const Sleef___m512d_2 r = Sleef_sincosd8_u10avx512f(_mm512_loadu_pd(x + i));
    _mm512_storeu_pd(s + i, r.x);
    _mm512_storeu_pd(c + i, r.y);
  }
  if (i < n) {
    const __mmask8 mask = static_cast<__mmask8>((1u << (n - i)) - 1u);
    const Sleef___m512d_2 r = Sleef_sincosd8_u10avx512f(_mm512_maskz_loadu_pd(mask, x + i));
    _mm512_mask_storeu_pd(s + i, mask, r.x);
    _mm512_mask_storeu_pd(c + i, mask, r.y);
  }
}

bool scores_avx512(std::size_t ld, std::size_t nk, std::size_t d, const double* qt, const double* K,
                   double scale, double* st) {
  return scores_impl(ld, nk, d, qt, K, scale, st);
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
