// AVX2 + FMA matrix products of attention.cpp (attention_kernels.hpp). Compiled with -mavx2 -mfma
// (CMakeLists.txt) and run only after simd::supported(Isa::avx2). Includes no header with inline
// functions or templates other than the intrinsics: everything here has internal linkage.
#include <immintrin.h>

#include "ropelab/attention_kernels.hpp"

namespace ropelab::attention::kernels {

namespace {

/// Mask of the first `r` (0..4) lanes.
__m256i lane_mask(std::size_t r) {
  const long long on = -1;
  return _mm256_setr_epi64x(r > 0 ? on : 0, r > 1 ? on : 0, r > 2 ? on : 0, r > 3 ? on : 0);
}

/// MR rows × 8 columns of C (c, row stride ldc), B row-major with row stride ldb.
template <int MR>
void block8(std::size_t k, const double* A, std::ptrdiff_t a_rs, std::ptrdiff_t a_cs, const double* B,
            std::size_t ldb, double* c, std::size_t ldc, bool accumulate) {
  __m256d lo[MR], hi[MR];
  for (int r = 0; r < MR; ++r) {
    if (accumulate) {
      lo[r] = _mm256_loadu_pd(c + static_cast<std::size_t>(r) * ldc);
      hi[r] = _mm256_loadu_pd(c + static_cast<std::size_t>(r) * ldc + 4);
    } else {
      lo[r] = _mm256_setzero_pd();
      hi[r] = _mm256_setzero_pd();
    }
  }
  for (std::size_t p = 0; p < k; ++p) {
    const __m256d b0 = _mm256_loadu_pd(B + p * ldb), b1 = _mm256_loadu_pd(B + p * ldb + 4);
    const double* ap = A + static_cast<std::ptrdiff_t>(p) * a_cs;
    for (int r = 0; r < MR; ++r) {
      const __m256d a = _mm256_broadcast_sd(ap + r * a_rs);
      lo[r] = _mm256_fmadd_pd(a, b0, lo[r]);
      hi[r] = _mm256_fmadd_pd(a, b1, hi[r]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    _mm256_storeu_pd(c + static_cast<std::size_t>(r) * ldc, lo[r]);
    _mm256_storeu_pd(c + static_cast<std::size_t>(r) * ldc + 4, hi[r]);
  }
}

/// MR rows × w (1..4) columns (masked loads and stores).
template <int MR>
void block4(std::size_t k, std::size_t w, const double* A, std::ptrdiff_t a_rs, std::ptrdiff_t a_cs,
            const double* B, std::size_t ldb, double* c, std::size_t ldc, bool accumulate) {
  const __m256i mask = lane_mask(w);
  __m256d acc[MR];
  for (int r = 0; r < MR; ++r) {
    acc[r] = accumulate ? _mm256_maskload_pd(c + static_cast<std::size_t>(r) * ldc, mask) : _mm256_setzero_pd();
  }
  for (std::size_t p = 0; p < k; ++p) {
    const __m256d b = _mm256_maskload_pd(B + p * ldb, mask);
    const double* ap = A + static_cast<std::ptrdiff_t>(p) * a_cs;
    for (int r = 0; r < MR; ++r) acc[r] = _mm256_fmadd_pd(_mm256_broadcast_sd(ap + r * a_rs), b, acc[r]);
  }
  for (int r = 0; r < MR; ++r) _mm256_maskstore_pd(c + static_cast<std::size_t>(r) * ldc, mask, acc[r]);
}

template <int MR>
void rows(std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs, std::ptrdiff_t a_cs,
          const double* B, std::size_t ldb, double* C, std::size_t ldc, bool accumulate) {
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) block8<MR>(k, A, a_rs, a_cs, B + j, ldb, C + j, ldc, accumulate);
  for (; j < n; j += 4) {
    const std::size_t w = n - j < 4 ? n - j : 4;
    block4<MR>(k, w, A, a_rs, a_cs, B + j, ldb, C + j, ldc, accumulate);
  }
}

}  // namespace

void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               double* C, std::size_t ldc, bool accumulate, double* pack) {
  if (m == 0 || n == 0) return;
  std::size_t ldb = static_cast<std::size_t>(b_rs);
  if (b_cs != 1 || b_rs < 0) {
    for (std::size_t p = 0; p < k; ++p) {
      for (std::size_t j = 0; j < n; ++j) {
        pack[p * n + j] = B[static_cast<std::ptrdiff_t>(p) * b_rs + static_cast<std::ptrdiff_t>(j) * b_cs];
      }
    }
    B = pack;
    ldb = n;
  }
  // Column panels of 64 (B's panel, k×64, stays in cache while the rows go by), rows by 6.
  constexpr std::size_t kPanel = 64;
  for (std::size_t j0 = 0; j0 < n; j0 += kPanel) {
    const std::size_t nj = n - j0 < kPanel ? n - j0 : kPanel;
    std::size_t i = 0;
    for (; i + 6 <= m; i += 6) {
      rows<6>(nj, k, A + static_cast<std::ptrdiff_t>(i) * a_rs, a_rs, a_cs, B + j0, ldb, C + i * ldc + j0, ldc, accumulate);
    }
    const double* Ai = A + static_cast<std::ptrdiff_t>(i) * a_rs;
    double* Ci = C + i * ldc + j0;
    switch (m - i) {
      case 5: rows<5>(nj, k, Ai, a_rs, a_cs, B + j0, ldb, Ci, ldc, accumulate); break;
      case 4: rows<4>(nj, k, Ai, a_rs, a_cs, B + j0, ldb, Ci, ldc, accumulate); break;
      case 3: rows<3>(nj, k, Ai, a_rs, a_cs, B + j0, ldb, Ci, ldc, accumulate); break;
      case 2: rows<2>(nj, k, Ai, a_rs, a_cs, B + j0, ldb, Ci, ldc, accumulate); break;
      case 1: rows<1>(nj, k, Ai, a_rs, a_cs, B + j0, ldb, Ci, ldc, accumulate); break;
      default: break;
    }
  }
}

}  // namespace ropelab::attention::kernels
