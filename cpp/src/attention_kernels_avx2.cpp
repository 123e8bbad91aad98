// AVX2 + FMA matrix products and exact-softmax steps of attention.cpp (attention_kernels.hpp).
// Compiled with -mavx2 -mfma (CMakeLists.txt) and run only after simd::supported(Isa::avx2).
// Includes no header with inline functions or templates other than the intrinsics: everything here
// has internal linkage.
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/attention_kernels.hpp"

namespace ropelab::attention::kernels {

namespace {

/// Mask of the first `r` (0..4) lanes.
__m256i lane_mask(std::size_t r) {
  const long long on = -1;
  return _mm256_setr_epi64x(r > 0 ? on : 0, r > 1 ? on : 0, r > 2 ? on : 0, r > 3 ? on : 0);
}

/// Mask of the first `r` (0..8) float lanes.
__m256i lane_mask_f32(std::size_t r) {
  const int on = -1;
  return _mm256_setr_epi32(r > 0 ? on : 0, r > 1 ? on : 0, r > 2 ? on : 0, r > 3 ? on : 0,
                           r > 4 ? on : 0, r > 5 ? on : 0, r > 6 ? on : 0, r > 7 ? on : 0);
}

/// 6 rows × 8 columns of C (c, row stride ldc); a: the 6 rows packed p-major (a[6p + r]), B
/// row-major with row stride ldb. Twelve named accumulators so that they stay in registers.
void block6x8(std::size_t k, const double* a, const double* B, std::size_t ldb, double* c,
              std::size_t ldc, bool accumulate) {
  __m256d c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if (accumulate) {
    c00 = _mm256_loadu_pd(c), c01 = _mm256_loadu_pd(c + 4);
    c10 = _mm256_loadu_pd(c + ldc), c11 = _mm256_loadu_pd(c + ldc + 4);
    c20 = _mm256_loadu_pd(c + 2 * ldc), c21 = _mm256_loadu_pd(c + 2 * ldc + 4);
    c30 = _mm256_loadu_pd(c + 3 * ldc), c31 = _mm256_loadu_pd(c + 3 * ldc + 4);
    c40 = _mm256_loadu_pd(c + 4 * ldc), c41 = _mm256_loadu_pd(c + 4 * ldc + 4);
    c50 = _mm256_loadu_pd(c + 5 * ldc), c51 = _mm256_loadu_pd(c + 5 * ldc + 4);
  } else {
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_pd();
  }
  for (std::size_t p = 0; p < k; ++p) {
    const __m256d b0 = _mm256_loadu_pd(B + p * ldb), b1 = _mm256_loadu_pd(B + p * ldb + 4);
    const double* ap = a + 6 * p;  // (B: a packed strip, ldb = 8)
    __m256d x = _mm256_broadcast_sd(ap);
    c00 = _mm256_fmadd_pd(x, b0, c00);
    c01 = _mm256_fmadd_pd(x, b1, c01);
    x = _mm256_broadcast_sd(ap + 1);
    c10 = _mm256_fmadd_pd(x, b0, c10);
    c11 = _mm256_fmadd_pd(x, b1, c11);
    x = _mm256_broadcast_sd(ap + 2);
    c20 = _mm256_fmadd_pd(x, b0, c20);
    c21 = _mm256_fmadd_pd(x, b1, c21);
    x = _mm256_broadcast_sd(ap + 3);
    c30 = _mm256_fmadd_pd(x, b0, c30);
    c31 = _mm256_fmadd_pd(x, b1, c31);
    x = _mm256_broadcast_sd(ap + 4);
    c40 = _mm256_fmadd_pd(x, b0, c40);
    c41 = _mm256_fmadd_pd(x, b1, c41);
    x = _mm256_broadcast_sd(ap + 5);
    c50 = _mm256_fmadd_pd(x, b0, c50);
    c51 = _mm256_fmadd_pd(x, b1, c51);
  }
  _mm256_storeu_pd(c, c00), _mm256_storeu_pd(c + 4, c01);
  _mm256_storeu_pd(c + ldc, c10), _mm256_storeu_pd(c + ldc + 4, c11);
  _mm256_storeu_pd(c + 2 * ldc, c20), _mm256_storeu_pd(c + 2 * ldc + 4, c21);
  _mm256_storeu_pd(c + 3 * ldc, c30), _mm256_storeu_pd(c + 3 * ldc + 4, c31);
  _mm256_storeu_pd(c + 4 * ldc, c40), _mm256_storeu_pd(c + 4 * ldc + 4, c41);
  _mm256_storeu_pd(c + 5 * ldc, c50), _mm256_storeu_pd(c + 5 * ldc + 4, c51);
}

/// MR (1..6) rows × w (1..4) columns, a packed as in block6x8 (stride 6), masked loads and stores.
template <int MR>
void block4(std::size_t k, std::size_t w, const double* a, const double* B, std::size_t ldb,
            double* c, std::size_t ldc, bool accumulate) {
  const __m256i mask = lane_mask(w);
  __m256d acc[MR];
  for (int r = 0; r < MR; ++r) {
    acc[r] = accumulate ? _mm256_maskload_pd(c + static_cast<std::size_t>(r) * ldc, mask)
                        : _mm256_setzero_pd();
  }
  for (std::size_t p = 0; p < k; ++p) {
    const __m256d b = _mm256_maskload_pd(B + p * ldb, mask);
    for (int r = 0; r < MR; ++r)
      acc[r] = _mm256_fmadd_pd(_mm256_broadcast_sd(a + 6 * p + r), b, acc[r]);
  }
  for (int r = 0; r < MR; ++r)
    _mm256_maskstore_pd(c + static_cast<std::size_t>(r) * ldc, mask, acc[r]);
}

/// MR rows × n columns: full 6×8 blocks when MR = 6 (B's k×8 strips packed contiguously in
/// bstrips, strip j/8 at bstrips + j·k), else, and for the last n mod 8 columns, columns by 4.
template <int MR>
void rows(std::size_t n, std::size_t k, const double* a, const double* bstrips, const double* B,
          std::size_t ldb, double* C, std::size_t ldc, bool accumulate) {
  std::size_t j = 0;
  if (MR == 6 && bstrips != nullptr) {
    for (; j + 8 <= n; j += 8) block6x8(k, a, bstrips + j * k, 8, C + j, ldc, accumulate);
  }
  for (; j < n; j += 4) {
    const std::size_t w = n - j < 4 ? n - j : 4;
    block4<MR>(k, w, a, B + j, ldb, C + j, ldc, accumulate);
  }
}

// The exact-softmax kernels (attention_softmax_body.inc) on 4 lanes: tiles of 8 queries × 6 keys
// and 8 queries × 6 channels (12 accumulators of the 16 registers).
using Real = double;
using Vec = __m256d;
using Mask = __m256d;
constexpr std::size_t kLanes = 4;
constexpr int kScoreVecs = 2, kScoreKeys = 6, kPvVecs = 2, kPvCols = 6;
inline Vec load(const double* p) {
  return _mm256_loadu_pd(p);
}
inline void store(double* p, Vec x) {
  _mm256_storeu_pd(p, x);
}
inline Vec set1(double x) {
  return _mm256_set1_pd(x);
}
inline Vec zero() {
  return _mm256_setzero_pd();
}
inline Vec add(Vec a, Vec b) {
  return _mm256_add_pd(a, b);
}
inline Vec sub(Vec a, Vec b) {
  return _mm256_sub_pd(a, b);
}
inline Vec mul(Vec a, Vec b) {
  return _mm256_mul_pd(a, b);
}
inline Vec max(Vec a, Vec b) {
  return _mm256_max_pd(a, b);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm256_fmadd_pd(a, b, c);
}
inline Vec exp(Vec x) {
  return Sleef_expd4_u10avx2(x);
}
inline Mask is_neg_inf(Vec x) {
  return _mm256_cmp_pd(x, _mm256_set1_pd(-__builtin_inf()), _CMP_EQ_OQ);
}
inline Vec select(Mask m, Vec t, Vec f) {
  return _mm256_blendv_pd(f, t, m);
}
inline bool any_nan(Vec x) {
  return _mm256_movemask_pd(_mm256_cmp_pd(x, x, _CMP_UNORD_Q)) != 0;
}

#include "attention_loops.inc"
#include "attention_softmax_body.inc"

// The same kernels on 8 floats: tiles of 16 queries × 6 keys or
// channels.
namespace sp {
using Real = float;
using Vec = __m256;
using Mask = __m256;
constexpr std::size_t kLanes = 8;
constexpr int kScoreVecs = 2, kScoreKeys = 6, kPvVecs = 2, kPvCols = 6;
inline Vec load(const float* p) {
  return _mm256_loadu_ps(p);
}
inline void store(float* p, Vec x) {
  _mm256_storeu_ps(p, x);
}
inline Vec set1(float x) {
  return _mm256_set1_ps(x);
}
inline Vec zero() {
  return _mm256_setzero_ps();
}
inline Vec add(Vec a, Vec b) {
  return _mm256_add_ps(a, b);
}
inline Vec sub(Vec a, Vec b) {
  return _mm256_sub_ps(a, b);
}
inline Vec mul(Vec a, Vec b) {
  return _mm256_mul_ps(a, b);
}
inline Vec max(Vec a, Vec b) {
  return _mm256_max_ps(a, b);
}
inline Vec fma(Vec a, Vec b, Vec c) {
  return _mm256_fmadd_ps(a, b, c);
}
inline Vec exp(Vec x) {
  return Sleef_expf8_u10avx2(x);
}
inline Mask is_neg_inf(Vec x) {
  return _mm256_cmp_ps(x, _mm256_set1_ps(-__builtin_inff()), _CMP_EQ_OQ);
}
inline Vec select(Mask m, Vec t, Vec f) {
  return _mm256_blendv_ps(f, t, m);
}
inline bool any_nan(Vec x) {
  return _mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) != 0;
}

#include "attention_softmax_body.inc"

// The general product on 8 floats: tiles of 6 rows × 16 columns (12 accumulators).
constexpr std::size_t kMr = 6;
#include "attention_gemm_body.inc"
}  // namespace sp

}  // namespace

bool scores_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const float* qt,
                 const float* K, float scale, float* st) {
  return sp::scores_impl(ld, nk, lag, d, qt, K, scale, st);
}

void online_softmax_avx2(std::size_t ld, std::size_t nk, std::size_t lag, float* st, float* m,
                         float* l, float* alpha) {
  sp::online_softmax_impl(ld, nk, lag, st, m, l, alpha);
}

void pv_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const float* pt,
             const float* V, const float* alpha, float* ot) {
  sp::pv_impl(ld, nk, lag, dv, pt, V, alpha, ot);
}

bool scores_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t d, const double* qt,
                 const double* K, double scale, double* st) {
  return scores_impl(ld, nk, lag, d, qt, K, scale, st);
}

void online_softmax_avx2(std::size_t ld, std::size_t nk, std::size_t lag, double* st, double* m,
                         double* l, double* alpha) {
  online_softmax_impl(ld, nk, lag, st, m, l, alpha);
}

void pv_avx2(std::size_t ld, std::size_t nk, std::size_t lag, std::size_t dv, const double* pt,
             const double* V, const double* alpha, double* ot) {
  pv_impl(ld, nk, lag, dv, pt, V, alpha, ot);
}

void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               double* C, std::size_t ldc, bool accumulate, double* pack) {
  if (m == 0 || n == 0) return;
  std::size_t ldb = static_cast<std::size_t>(b_rs);
  double* apack = pack;
  if (b_cs != 1 || b_rs < 0) {
    // in tiles of 16×16 so that both the reads and the writes stay within a few cache lines
    for (std::size_t p0 = 0; p0 < k; p0 += 16) {
      const std::size_t p1 = p0 + 16 < k ? p0 + 16 : k;
      for (std::size_t j0 = 0; j0 < n; j0 += 16) {
        const std::size_t j1 = j0 + 16 < n ? j0 + 16 : n;
        for (std::size_t j = j0; j < j1; ++j) {
          const double* bj = B + static_cast<std::ptrdiff_t>(j) * b_cs;
          for (std::size_t p = p0; p < p1; ++p)
            pack[p * n + j] = bj[static_cast<std::ptrdiff_t>(p) * b_rs];
        }
      }
    }
    B = pack;
    ldb = n;
    apack = pack + k * n;
  }
  double* bpack = apack + 6 * (k < 128 ? k : 128);
  // Blocks of kKc terms of the sums (a 6×kKc slab of A and a kKc×8 strip of B stay in L1): each
  // C_ij is still one chain of FMAs in increasing p, continued from the stored partial sum.
  constexpr std::size_t kKc = 128;
  for (std::size_t p0 = 0; p0 < k || p0 == 0; p0 += kKc) {
    const std::size_t kc = k - p0 < kKc ? k - p0 : kKc;
    const bool acc = accumulate || p0 > 0;
    const double* Bp = B + p0 * ldb;
    // B's kc×8 strips, each contiguous (the 6×8 kernel then reads B sequentially)
    const std::size_t nfull = n / 8 * 8;
    for (std::size_t j = 0; j < nfull; j += 8) {
      double* strip = bpack + j * kc;
      for (std::size_t p = 0; p < kc; ++p) {
        _mm256_storeu_pd(strip + 8 * p, _mm256_loadu_pd(Bp + p * ldb + j));
        _mm256_storeu_pd(strip + 8 * p + 4, _mm256_loadu_pd(Bp + p * ldb + j + 4));
      }
    }
    for (std::size_t i = 0; i < m; i += 6) {
      const std::size_t mr = m - i < 6 ? m - i : 6;
      // rows i .. i+mr of A, terms p0 .. p0+kc, p-major with stride 6 (rows past mr: 0, never
      // stored)
      pack_rows<6>(A, a_rs, a_cs, i, mr, p0, kc, apack);
      double* Ci = C + i * ldc;
      switch (mr) {
        case 6:
          rows<6>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
        case 5:
          rows<5>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
        case 4:
          rows<4>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
        case 3:
          rows<3>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
        case 2:
          rows<2>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
        default:
          rows<1>(n, kc, apack, bpack, Bp, ldb, Ci, ldc, acc);
          break;
      }
    }
    if (k == 0) break;
  }
}

void sincos_avx2(const double* x, std::size_t n, double* c, double* s) {
  sincos_by_vectors<4>(
      x, n, c, s, lane_mask, [](const double* p, __m256i k) { return _mm256_maskload_pd(p, k); },
      Sleef_sincosd4_u10avx2,
      [](double* p, __m256i k, __m256d v) { _mm256_maskstore_pd(p, k, v); });
}

void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const float* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const float* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               float* C, std::size_t ldc, bool accumulate, float* pack) {
  sp::gemm_impl(m, n, k, A, a_rs, a_cs, B, b_rs, b_cs, C, ldc, accumulate, pack);
}

void exp_to_float_avx2(const double* x, std::size_t n, double scale, float* out) {
  const __m256d sc = _mm256_set1_pd(scale);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d e = _mm256_mul_pd(Sleef_expd4_u10avx2(_mm256_loadu_pd(x + i)), sc);
    _mm_storeu_ps(out + i, _mm256_cvtpd_ps(e));
  }
  if (i < n) {
    const __m256i mask = lane_mask(n - i);
    const __m256d e = _mm256_mul_pd(Sleef_expd4_u10avx2(_mm256_maskload_pd(x + i, mask)), sc);
    alignas(16) float t[4];
    _mm_store_ps(t, _mm256_cvtpd_ps(e));
    for (std::size_t j = 0; i + j < n; ++j) out[i + j] = t[j];
  }
}

void sincos_avx2(const float* x, std::size_t n, float* c, float* s) {
  sincos_by_vectors<8>(
      x, n, c, s, lane_mask_f32, [](const float* p, __m256i k) { return _mm256_maskload_ps(p, k); },
      Sleef_sincosf8_u10avx2, [](float* p, __m256i k, __m256 v) { _mm256_maskstore_ps(p, k, v); });
}

}  // namespace ropelab::attention::kernels
