// AVX-512F/DQ (+AVX2, FMA) kernels of vecmath.hpp. Compiled with -mavx512f -mavx512dq -mavx2 -mfma
// (CMakeLists.txt) and run only after __builtin_cpu_supports said yes. Includes no header with
// inline functions or templates other than the intrinsics (see vecmath.hpp).
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/vecmath.hpp"

namespace ropelab::simd {

namespace {

constexpr unsigned kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // Philox4x32 multipliers
constexpr unsigned kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

/// Philox4x32-10 of the 8 blocks 8g .. 8g+7, one block per 64-bit lane: a lane's low 32 bits
/// hold the counter word, its high bits are don't-care (vpmuludq reads only the low 32 bits), so
/// a round is 2 multiplies, 2 shifts and 2 three-way xors. x[i]'s low 32 bits = output word i.
inline void philox8(const PhiloxUnit& u, std::uint64_t g, __m512i x[4]) {
  const std::uint64_t b0 = 8 * g;
  __m512i c0 = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(b0)),
                                _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  __m512i c1 = _mm512_set1_epi64(
      static_cast<long long>(u.c1_base | static_cast<unsigned>((b0 >> 32) & 0xFFFFu)));
  __m512i c2 = _mm512_set1_epi64(static_cast<long long>(u.c2));
  __m512i c3 = _mm512_set1_epi64(static_cast<long long>(u.c3));
  const __m512i m0 = _mm512_set1_epi64(static_cast<long long>(kM0));
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(kM1));
  unsigned k0 = u.key[0], k1 = u.key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const __m512i p0 = _mm512_mul_epu32(c0, m0);
    const __m512i p1 = _mm512_mul_epu32(c2, m1);
    // 0x96: a ^ b ^ c
    c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1,
                                   _mm512_set1_epi64(static_cast<long long>(k0)), 0x96);
    c2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3,
                                   _mm512_set1_epi64(static_cast<long long>(k1)), 0x96);
    c1 = p1;
    c3 = p0;
  }
  x[0] = c0;
  x[1] = c1;
  x[2] = c2;
  x[3] = c3;
}

/// The 64-bit draw words hi:lo of 8 lanes (low 32 bits of each input lane).
inline __m512i words(__m512i lo, __m512i hi) {
  return _mm512_mask_blend_epi32(0x5555, _mm512_slli_epi64(hi, 32), lo);
}

/// (2m+1)·2⁻⁵³, m = w_signed >> 11 (exact, rng::to_open_signed_unit).
inline __m512d signed_unit(__m512i w) {
  const __m512d m = _mm512_cvtepi64_pd(_mm512_srai_epi64(w, 11));
  return _mm512_add_pd(_mm512_mul_pd(m, _mm512_set1_pd(0x1.0p-52)), _mm512_set1_pd(0x1.0p-53));
}

/// (⌊w/2¹²⌋ + ½)·2⁻⁵² (exact, rng::to_open_unit).
inline __m512d open_unit(__m512i w) {
  const __m512d m = _mm512_cvtepi64_pd(_mm512_srli_epi64(w, 12));
  return _mm512_mul_pd(_mm512_add_pd(m, _mm512_set1_pd(0.5)), _mm512_set1_pd(0x1.0p-52));
}

/// Ziggurat on 8 draw words; draws k0 .. k0+7.
inline void zig8(const PhiloxUnit& u, __m512i w, std::uint64_t k0, double* out) {
  const __m512d v = signed_unit(w);
  const __m512i layer = _mm512_and_si512(w, _mm512_set1_epi64(0xFF));
  const __m512d xl = _mm512_i64gather_pd(layer, u.zig_x, 8);
  const __m512d rl = _mm512_i64gather_pd(layer, u.zig_r, 8);
  const __mmask8 ok = _mm512_cmp_pd_mask(_mm512_abs_pd(v), rl, _CMP_LT_OQ);
  _mm512_storeu_pd(out, _mm512_mul_pd(v, xl));
  if (ok != 0xFF) {
    alignas(64) double vs[8];
    alignas(64) long long ls[8];
    _mm512_store_pd(vs, v);
    _mm512_store_si512(ls, layer);
    for (unsigned l = 0; l < 8; ++l) {
      if (!(ok >> l & 1)) {
        out[l] = u.slow_normal(u, k0 + l, vs[l], static_cast<unsigned>(ls[l]));
      }
    }
  }
}

void normals_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  for (std::size_t i = 0; i < ngroups; ++i, out += 16) {
    const std::uint64_t g = g0 + i, k = 16 * g;
    __m512i x[4];
    philox8(u, g, x);
    zig8(u, words(x[0], x[1]), k, out);
    zig8(u, words(x[2], x[3]), k + 8, out + 8);
  }
}

void uniforms_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  for (std::size_t i = 0; i < ngroups; ++i, out += 16) {
    __m512i x[4];
    philox8(u, g0 + i, x);
    _mm512_storeu_pd(out, open_unit(words(x[0], x[1])));
    _mm512_storeu_pd(out + 8, open_unit(words(x[2], x[3])));
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
