#pragma once
/// \file attention_kernels.hpp
/// The matrix products of attention.cpp, hand-written for AVX2 + FMA
/// (cpp/src/attention_kernels_avx2.cpp, compiled with -mavx2 -mfma and called only when
/// simd::supported(Isa::avx2)). Like the kernels of vecmath.hpp, that file includes nothing but
/// <immintrin.h> and this header (plain declarations, no inline functions or templates), so no code
/// compiled with AVX flags can be shared with, or picked by the linker for, the SSE2 translation
/// units.
///
/// Every element C_ij is one sum over p in increasing order (a chain of fused multiply-adds
/// starting from 0, or from C_ij when accumulating): the result does not depend on the blocking,
/// on the thread or on the matrix sizes around it.

#include <cstddef>

namespace ropelab::attention::kernels {

/// C (m×n, row stride ldc) = [C +] A B with A(i, p) = A[i·a_rs + p·a_cs] (m×k) and
/// B(p, j) = B[p·b_rs + j·b_cs] (k×n). `pack` must hold (b_cs != 1 ? k·n : 0) + (6 + n)·min(k, 128)
/// doubles: B copied row-major when b_cs != 1, six rows of A and 128 rows of B at a time.
void gemm_avx2(std::size_t m, std::size_t n, std::size_t k, const double* A, std::ptrdiff_t a_rs,
               std::ptrdiff_t a_cs, const double* B, std::ptrdiff_t b_rs, std::ptrdiff_t b_cs,
               double* C, std::size_t ldc, bool accumulate, double* pack);

/// c[i] = cos x[i], s[i] = sin x[i] (SLEEF's u10 sincos, ≤ 1 ulp each), i < n.
void sincos_avx2(const double* x, std::size_t n, double* c, double* s);

}  // namespace ropelab::attention::kernels
