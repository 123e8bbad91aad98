// AVX-512F (+AVX2, FMA) kernels of vecmath.hpp. Compiled with -mavx512f -mavx2 -mfma
// (CMakeLists.txt) and run only after __builtin_cpu_supports said yes. Includes no header with
// inline functions or templates other than the intrinsics (see vecmath.hpp).
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/vecmath.hpp"

namespace ropelab::simd {

namespace {

constexpr unsigned kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // Philox4x32 multipliers
constexpr unsigned kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

inline void mulhilo(__m512i a, __m512i m, __m512i& hi, __m512i& lo) {
  const __m512i pe = _mm512_mul_epu32(a, m);                         // even lanes
  const __m512i po = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);  // odd lanes
  lo = _mm512_mask_blend_epi32(0xAAAA, pe, _mm512_slli_epi64(po, 32));
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 32), po);
}

/// Philox4x32-10 of the 16 blocks 8g .. 8g+15 (groups g and g+1; lane l = block 8g + l).
inline void philox16(const PhiloxUnit& u, std::uint64_t g, __m512i x[4]) {
  const std::uint64_t b0 = 8 * g, b1 = 8 * g + 8;
  __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(static_cast<unsigned>(b0))),
                                _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                                  14, 15));
  const int h0 = static_cast<int>(u.c1_base | static_cast<unsigned>((b0 >> 32) & 0xFFFFu));
  const int h1 = static_cast<int>(u.c1_base | static_cast<unsigned>((b1 >> 32) & 0xFFFFu));
  __m512i c1 = _mm512_setr_epi32(h0, h0, h0, h0, h0, h0, h0, h0, h1, h1, h1, h1, h1, h1, h1, h1);
  __m512i c2 = _mm512_set1_epi32(static_cast<int>(u.c2));
  __m512i c3 = _mm512_set1_epi32(static_cast<int>(u.c3));
  unsigned k0 = u.key[0], k1 = u.key[1];
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kM0));
  const __m512i m1 = _mm512_set1_epi32(static_cast<int>(kM1));
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    __m512i hi0, lo0, hi1, lo1;
    mulhilo(c0, m0, hi0, lo0);
    mulhilo(c2, m1, hi1, lo1);
    const __m512i n0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1),
                                        _mm512_set1_epi32(static_cast<int>(k0)));
    const __m512i n2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3),
                                        _mm512_set1_epi32(static_cast<int>(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  x[0] = c0;
  x[1] = c1;
  x[2] = c2;
  x[3] = c3;
}

/// (2m+1)·2⁻⁵³ for the 8 words hi:lo (exact, rng::to_open_signed_unit).
inline __m512d signed_unit(__m256i lo, __m256i hi) {
  const __m512d h = _mm512_cvtepi32_pd(hi);
  const __m512d l = _mm512_cvtepi32_pd(_mm256_srli_epi32(lo, 11));
  return _mm512_add_pd(_mm512_mul_pd(h, _mm512_set1_pd(0x1.0p-31)),
                       _mm512_mul_pd(_mm512_add_pd(l, _mm512_set1_pd(0.5)),
                                     _mm512_set1_pd(0x1.0p-52)));
}

/// (⌊w/2¹²⌋ + ½)·2⁻⁵² for the 8 words hi:lo (exact, rng::to_open_unit).
inline __m512d open_unit(__m256i lo, __m256i hi) {
  const __m512d h = _mm512_add_pd(
      _mm512_cvtepi32_pd(_mm256_xor_si256(hi, _mm256_set1_epi32(static_cast<int>(0x80000000u)))),
      _mm512_set1_pd(0x1.0p31));
  const __m512d l = _mm512_cvtepi32_pd(_mm256_srli_epi32(lo, 12));
  return _mm512_add_pd(_mm512_mul_pd(h, _mm512_set1_pd(0x1.0p-32)),
                       _mm512_mul_pd(_mm512_add_pd(l, _mm512_set1_pd(0.5)),
                                     _mm512_set1_pd(0x1.0p-52)));
}

/// Ziggurat on 8 words; draws k0 .. k0+7.
inline void zig8(const PhiloxUnit& u, __m256i lo, __m256i hi, std::uint64_t k0, double* out) {
  const __m512d v = signed_unit(lo, hi);
  const __m256i layer = _mm256_and_si256(lo, _mm256_set1_epi32(0x7F));
  const __m512d xl = _mm512_i32gather_pd(layer, u.zig_x, 8);
  const __m512d rl = _mm512_i32gather_pd(layer, u.zig_r, 8);
  const __mmask8 ok = _mm512_cmp_pd_mask(_mm512_abs_pd(v), rl, _CMP_LT_OQ);
  _mm512_storeu_pd(out, _mm512_mul_pd(v, xl));
  if (ok != 0xFF) {
    alignas(64) double vs[8];
    alignas(32) unsigned ls[8];
    _mm512_store_pd(vs, v);
    _mm256_store_si256(reinterpret_cast<__m256i*>(ls), layer);
    for (unsigned l = 0; l < 8; ++l) {
      if (!(ok >> l & 1)) out[l] = u.slow_normal(u, k0 + l, vs[l], ls[l]);
    }
  }
}

inline __m256i half(__m512i x, int which) {
  return which == 0 ? _mm512_castsi512_si256(x) : _mm512_extracti64x4_epi64(x, 1);
}

void normals_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  std::size_t i = 0;
  for (; i < ngroups; i += 2) {
    const std::uint64_t g = g0 + i;
    __m512i x[4];
    philox16(u, g, x);
    const int groups = i + 1 < ngroups ? 2 : 1;  // the last odd group: its partner is dropped
    for (int s = 0; s < groups; ++s, out += 16) {
      const std::uint64_t k = 16 * (g + static_cast<unsigned>(s));
      zig8(u, half(x[0], s), half(x[1], s), k, out);
      zig8(u, half(x[2], s), half(x[3], s), k + 8, out + 8);
    }
  }
}

void uniforms_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  for (std::size_t i = 0; i < ngroups; i += 2) {
    __m512i x[4];
    philox16(u, g0 + i, x);
    const int groups = i + 1 < ngroups ? 2 : 1;
    for (int s = 0; s < groups; ++s, out += 16) {
      _mm512_storeu_pd(out, open_unit(half(x[0], s), half(x[1], s)));
      _mm512_storeu_pd(out + 8, open_unit(half(x[2], s), half(x[3], s)));
    }
  }
}

struct CosOp {
  static __m512d f(__m512d x) { return Sleef_cosd8_u10avx512f(x); }
};
struct ExpOp {
  static __m512d f(__m512d x) { return Sleef_expd8_u10avx512f(x); }
};

/// acc[j mod 8] += Op(x[j]); the last partial group is padded and its extra lanes add +0.0.
template <class Op>
void sum8(const double* x, std::size_t n, double* acc8) {
  __m512d a = _mm512_loadu_pd(acc8);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) a = _mm512_add_pd(a, Op::f(_mm512_loadu_pd(x + j)));
  if (j < n) {
    const auto live = static_cast<__mmask8>((1u << (n - j)) - 1u);
    const __m512d t = Op::f(_mm512_maskz_loadu_pd(live, x + j));
    a = _mm512_add_pd(a, _mm512_maskz_mov_pd(live, t));  // dead lanes add +0.0
  }
  _mm512_storeu_pd(acc8, a);
}

void sum_cos_avx512(const double* x, std::size_t n, double* acc8) { sum8<CosOp>(x, n, acc8); }
void sum_exp_avx512(const double* x, std::size_t n, double* acc8) { sum8<ExpOp>(x, n, acc8); }

void sum_cos_cos_avx512(const double* a, const double* b, std::size_t n, double* acc8) {
  __m512d s = _mm512_loadu_pd(acc8);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    s = _mm512_add_pd(s, _mm512_mul_pd(Sleef_cosd8_u10avx512f(_mm512_loadu_pd(a + j)),
                                       Sleef_cosd8_u10avx512f(_mm512_loadu_pd(b + j))));
  }
  if (j < n) {
    const auto live = static_cast<__mmask8>((1u << (n - j)) - 1u);
    const __m512d t = _mm512_mul_pd(Sleef_cosd8_u10avx512f(_mm512_maskz_loadu_pd(live, a + j)),
                                    Sleef_cosd8_u10avx512f(_mm512_maskz_loadu_pd(live, b + j)));
    s = _mm512_add_pd(s, _mm512_maskz_mov_pd(live, t));
  }
  _mm512_storeu_pd(acc8, s);
}

void cos_avx512(const double* x, std::size_t n, double* out) {
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    _mm512_storeu_pd(out + j, Sleef_cosd8_u10avx512f(_mm512_loadu_pd(x + j)));
  }
  if (j < n) {
    const auto live = static_cast<__mmask8>((1u << (n - j)) - 1u);
    _mm512_mask_storeu_pd(out + j, live, Sleef_cosd8_u10avx512f(_mm512_maskz_loadu_pd(live, x + j)));
  }
}

const Kernels kAvx512{Isa::avx512,     "avx512",       &normals_avx512,     &uniforms_avx512,
                      &sum_cos_avx512, &sum_exp_avx512, &sum_cos_cos_avx512, &cos_avx512};

}  // namespace

const Kernels& kernels_avx512() { return kAvx512; }

}  // namespace ropelab::simd
