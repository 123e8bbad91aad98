// AVX2 + FMA kernels of vecmath.hpp. Compiled with -mavx2 -mfma (CMakeLists.txt) and run only
// after __builtin_cpu_supports said yes. Includes no header with inline functions or templates
// other than the intrinsics (see vecmath.hpp): everything here has internal linkage.
#include <immintrin.h>
#include <sleef.h>

#include "ropelab/vecmath.hpp"

namespace ropelab::simd {

namespace {

constexpr unsigned kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // Philox4x32 multipliers
constexpr unsigned kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments

inline void mulhilo(__m256i a, __m256i m, __m256i& hi, __m256i& lo) {
  const __m256i pe = _mm256_mul_epu32(a, m);                         // lanes 0, 2, 4, 6
  const __m256i po = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);  // lanes 1, 3, 5, 7
  lo = _mm256_blend_epi32(pe, _mm256_slli_epi64(po, 32), 0xAA);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(pe, 32), po, 0xAA);
}

/// Philox4x32-10 of the 8 N blocks 8g .. 8g+8N−1 (N groups interleaved for instruction-level
/// parallelism; lane l of x[n][i] = word i of block 8(g + n) + l).
template <int N>
inline void philox8(const PhiloxUnit& u, std::uint64_t g, __m256i x[][4]) {
  __m256i c0[N], c1[N], c2[N], c3[N];
  for (int n = 0; n < N; ++n) {
    const std::uint64_t b0 = 8 * (g + static_cast<unsigned>(n));
    c0[n] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<unsigned>(b0))),
                             _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    c1[n] = _mm256_set1_epi32(
        static_cast<int>(u.c1_base | static_cast<unsigned>((b0 >> 32) & 0xFFFFu)));
    c2[n] = _mm256_set1_epi32(static_cast<int>(u.c2));
    c3[n] = _mm256_set1_epi32(static_cast<int>(u.c3));
  }
  unsigned k0 = u.key[0], k1 = u.key[1];
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kM0));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(kM1));
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const __m256i kv0 = _mm256_set1_epi32(static_cast<int>(k0)),
                  kv1 = _mm256_set1_epi32(static_cast<int>(k1));
    for (int n = 0; n < N; ++n) {
      __m256i hi0, lo0, hi1, lo1;
      mulhilo(c0[n], m0, hi0, lo0);
      mulhilo(c2[n], m1, hi1, lo1);
      c0[n] = _mm256_xor_si256(_mm256_xor_si256(hi1, c1[n]), kv0);
      c2[n] = _mm256_xor_si256(_mm256_xor_si256(hi0, c3[n]), kv1);
      c1[n] = lo1;
      c3[n] = lo0;
    }
  }
  for (int n = 0; n < N; ++n) {
    x[n][0] = c0[n];
    x[n][1] = c1[n];
    x[n][2] = c2[n];
    x[n][3] = c3[n];
  }
}

/// Calls per_group(i, x) for the groups g0 + i (i < ngroups) with their Philox words, two groups
/// per Philox call.
template <class PerGroup>
inline void for_each_group(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups,
                           PerGroup per_group) {
  std::size_t i = 0;
  for (; i + 2 <= ngroups; i += 2) {
    __m256i x[2][4];
    philox8<2>(u, g0 + i, x);
    per_group(i, x[0]);
    per_group(i + 1, x[1]);
  }
  if (i < ngroups) {
    __m256i x[1][4];
    philox8<1>(u, g0 + i, x);
    per_group(i, x[0]);
  }
}

/// (2m+1)·2⁻⁵³ for the 4 words hi:lo (exact, rng::to_open_signed_unit).
inline __m256d signed_unit(__m128i lo, __m128i hi) {
  const __m256d h = _mm256_cvtepi32_pd(hi);
  const __m256d l = _mm256_cvtepi32_pd(_mm_srli_epi32(lo, 11));
  return _mm256_add_pd(
      _mm256_mul_pd(h, _mm256_set1_pd(0x1.0p-31)),
      _mm256_mul_pd(_mm256_add_pd(l, _mm256_set1_pd(0.5)), _mm256_set1_pd(0x1.0p-52)));
}

/// (⌊w/2¹²⌋ + ½)·2⁻⁵² for the 4 words hi:lo (exact, rng::to_open_unit).
inline __m256d open_unit(__m128i lo, __m128i hi) {
  const __m256d h = _mm256_add_pd(
      _mm256_cvtepi32_pd(_mm_xor_si128(hi, _mm_set1_epi32(static_cast<int>(0x80000000u)))),
      _mm256_set1_pd(0x1.0p31));
  const __m256d l = _mm256_cvtepi32_pd(_mm_srli_epi32(lo, 12));
  return _mm256_add_pd(
      _mm256_mul_pd(h, _mm256_set1_pd(0x1.0p-32)),
      _mm256_mul_pd(_mm256_add_pd(l, _mm256_set1_pd(0.5)), _mm256_set1_pd(0x1.0p-52)));
}

/// Ziggurat on 4 words; draws k0 .. k0+3.
inline void zig4(const PhiloxUnit& u, __m128i lo, __m128i hi, std::uint64_t k0, double* out) {
  const __m256d v = signed_unit(lo, hi);
  const __m128i layer = _mm_and_si128(lo, _mm_set1_epi32(0xFF));
  const __m256d xl = _mm256_i32gather_pd(u.zig_x, layer, 8);
  const __m256d rl = _mm256_i32gather_pd(u.zig_r, layer, 8);
  const __m256d absv = _mm256_andnot_pd(_mm256_set1_pd(-0.0), v);
  const int ok = _mm256_movemask_pd(_mm256_cmp_pd(absv, rl, _CMP_LT_OQ));
  _mm256_storeu_pd(out, _mm256_mul_pd(v, xl));
  if (ok != 0xF) {
    alignas(32) double vs[4];
    alignas(16) unsigned ls[4];
    _mm256_store_pd(vs, v);
    _mm_store_si128(reinterpret_cast<__m128i*>(ls), layer);
    for (int l = 0; l < 4; ++l) {
      if (!(ok >> l & 1))
        out[l] = u.slow_normal(u, k0 + static_cast<unsigned>(l), vs[l], ls[l], nullptr);
    }
  }
}

void normals_avx2(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  for_each_group(u, g0, ngroups, [&](std::size_t i, const __m256i* x) {
    const std::uint64_t k = 16 * (g0 + i);
    double* o = out + 16 * i;
    for (int h = 0; h < 2; ++h) {
      const __m256i lo = x[2 * h], hi = x[2 * h + 1];
      zig4(u, _mm256_castsi256_si128(lo), _mm256_castsi256_si128(hi), k + 8 * h, o + 8 * h);
      zig4(u, _mm256_extracti128_si256(lo, 1), _mm256_extracti128_si256(hi, 1), k + 8 * h + 4,
           o + 8 * h + 4);
    }
  });
}

/// The χ ziggurat (ChiTables) on 4 words; draws k0 .. k0+3.
inline void chiz4(const PhiloxUnit& u, const ChiTables& t, __m128i lo, __m128i hi, std::uint64_t k0,
                  double* out) {
  const __m256d s = signed_unit(lo, hi);
  const __m128i layer = _mm_and_si128(lo, _mm_set1_epi32(kChiLayers - 1));
  const __m256d c = _mm256_i32gather_pd(t.c, layer, 8);
  const __m256d h = _mm256_i32gather_pd(t.h, layer, 8);
  const __m256i rho = _mm256_i32gather_epi64(reinterpret_cast<const long long*>(t.rho), layer, 8);
  // floats 0, 2, 4, 6 are the lower bounds, 1, 3, 5, 7 the upper ones
  const __m256 sorted =
      _mm256_permutevar8x32_ps(_mm256_castsi256_ps(rho), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
  const __m256d rlo = _mm256_cvtps_pd(_mm256_castps256_ps128(sorted));
  const __m256d rhi = _mm256_cvtps_pd(_mm256_extractf128_ps(sorted, 1));
  const int ok = _mm256_movemask_pd(
      _mm256_and_pd(_mm256_cmp_pd(s, rlo, _CMP_GT_OQ), _mm256_cmp_pd(s, rhi, _CMP_LT_OQ)));
  _mm256_storeu_pd(out, _mm256_add_pd(c, _mm256_mul_pd(s, h)));
  if (ok != 0xF) {
    alignas(32) double ss[4];
    alignas(16) unsigned ls[4];
    _mm256_store_pd(ss, s);
    _mm_store_si128(reinterpret_cast<__m128i*>(ls), layer);
    for (int l = 0; l < 4; ++l) {
      if (!(ok >> l & 1))
        out[l] = t.slow(u, t.self, k0 + static_cast<unsigned>(l), ss[l], ls[l], nullptr);
    }
  }
}

void chis_avx2(const PhiloxUnit& u, const ChiTables& t, std::uint64_t g0, std::size_t ngroups,
               double* out) {
  for_each_group(u, g0, ngroups, [&](std::size_t i, const __m256i* x) {
    const std::uint64_t k = 16 * (g0 + i);
    double* o = out + 16 * i;
    for (int h = 0; h < 2; ++h) {
      const __m256i lo = x[2 * h], hi = x[2 * h + 1];
      chiz4(u, t, _mm256_castsi256_si128(lo), _mm256_castsi256_si128(hi), k + 8 * h, o + 8 * h);
      chiz4(u, t, _mm256_extracti128_si256(lo, 1), _mm256_extracti128_si256(hi, 1), k + 8 * h + 4,
            o + 8 * h + 4);
    }
  });
}

void uniforms_avx2(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  for_each_group(u, g0, ngroups, [&](std::size_t i, const __m256i* x) {
    double* o = out + 16 * i;
    for (int h = 0; h < 2; ++h) {
      const __m256i lo = x[2 * h], hi = x[2 * h + 1];
      _mm256_storeu_pd(o + 8 * h,
                       open_unit(_mm256_castsi256_si128(lo), _mm256_castsi256_si128(hi)));
      _mm256_storeu_pd(o + 8 * h + 4,
                       open_unit(_mm256_extracti128_si256(lo, 1), _mm256_extracti128_si256(hi, 1)));
    }
  });
}

struct CosOp {
  static __m256d f(__m256d x) { return Sleef_cosd4_u10avx2(x); }
};
struct ExpOp {
  static __m256d f(__m256d x) { return Sleef_expd4_u10avx2(x); }
};

/// acc[j mod 8] += Op(x[j]); the last partial group is padded and its extra lanes add +0.0.
template <class Op>
void sum8(const double* x, std::size_t n, double* acc8) {
  __m256d a0 = _mm256_loadu_pd(acc8), a1 = _mm256_loadu_pd(acc8 + 4);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    a0 = _mm256_add_pd(a0, Op::f(_mm256_loadu_pd(x + j)));
    a1 = _mm256_add_pd(a1, Op::f(_mm256_loadu_pd(x + j + 4)));
  }
  if (j < n) {
    alignas(32) double t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const std::size_t rem = n - j;
    for (std::size_t l = 0; l < rem; ++l) t[l] = x[j + l];
    _mm256_store_pd(t, Op::f(_mm256_load_pd(t)));
    _mm256_store_pd(t + 4, Op::f(_mm256_load_pd(t + 4)));
    for (std::size_t l = rem; l < 8; ++l) t[l] = 0.0;
    a0 = _mm256_add_pd(a0, _mm256_load_pd(t));
    a1 = _mm256_add_pd(a1, _mm256_load_pd(t + 4));
  }
  _mm256_storeu_pd(acc8, a0);
  _mm256_storeu_pd(acc8 + 4, a1);
}

void sum_cos_avx2(const double* x, std::size_t n, double* acc8) {
  sum8<CosOp>(x, n, acc8);
}
void sum_exp_avx2(const double* x, std::size_t n, double* acc8) {
  sum8<ExpOp>(x, n, acc8);
}

void sum_cos_cos_avx2(const double* a, const double* b, std::size_t n, double* acc8) {
  __m256d a0 = _mm256_loadu_pd(acc8), a1 = _mm256_loadu_pd(acc8 + 4);
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    a0 = _mm256_add_pd(a0, _mm256_mul_pd(Sleef_cosd4_u10avx2(_mm256_loadu_pd(a + j)),
                                         Sleef_cosd4_u10avx2(_mm256_loadu_pd(b + j))));
    a1 = _mm256_add_pd(a1, _mm256_mul_pd(Sleef_cosd4_u10avx2(_mm256_loadu_pd(a + j + 4)),
                                         Sleef_cosd4_u10avx2(_mm256_loadu_pd(b + j + 4))));
  }
  if (j < n) {
    alignas(32) double ta[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tb[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    const std::size_t rem = n - j;
    for (std::size_t l = 0; l < rem; ++l) {
      ta[l] = a[j + l];
      tb[l] = b[j + l];
    }
    for (int h = 0; h < 2; ++h) {
      _mm256_store_pd(ta + 4 * h, _mm256_mul_pd(Sleef_cosd4_u10avx2(_mm256_load_pd(ta + 4 * h)),
                                                Sleef_cosd4_u10avx2(_mm256_load_pd(tb + 4 * h))));
    }
    for (std::size_t l = rem; l < 8; ++l) ta[l] = 0.0;
    a0 = _mm256_add_pd(a0, _mm256_load_pd(ta));
    a1 = _mm256_add_pd(a1, _mm256_load_pd(ta + 4));
  }
  _mm256_storeu_pd(acc8, a0);
  _mm256_storeu_pd(acc8 + 4, a1);
}

void cos_avx2(const double* x, std::size_t n, double* out) {
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) _mm256_storeu_pd(out + j, Sleef_cosd4_u10avx2(_mm256_loadu_pd(x + j)));
  if (j < n) {
    alignas(32) double t[4] = {0, 0, 0, 0};
    for (std::size_t l = 0; j + l < n; ++l) t[l] = x[j + l];
    _mm256_store_pd(t, Sleef_cosd4_u10avx2(_mm256_load_pd(t)));
    for (std::size_t l = 0; j + l < n; ++l) out[j + l] = t[l];
  }
}

// The table's signatures use std::uint64_t; std::uint64_t is the same type on x86-64 Linux.
void dots2_avx2(const double* G, std::size_t m, std::size_t d, const double* q, const double* k,
                double* pq, double* pk) {
  for (std::size_t r = 0; r < m; ++r) {
    const double* g = G + r * d;
    __m256d aq0 = _mm256_setzero_pd(), aq1 = aq0, ak0 = aq0, ak1 = aq0;
    std::size_t i = 0;
    for (; i + 8 <= d; i += 8) {
      const __m256d g0 = _mm256_loadu_pd(g + i), g1 = _mm256_loadu_pd(g + i + 4);
      aq0 = _mm256_add_pd(aq0, _mm256_mul_pd(g0, _mm256_loadu_pd(q + i)));
      aq1 = _mm256_add_pd(aq1, _mm256_mul_pd(g1, _mm256_loadu_pd(q + i + 4)));
      ak0 = _mm256_add_pd(ak0, _mm256_mul_pd(g0, _mm256_loadu_pd(k + i)));
      ak1 = _mm256_add_pd(ak1, _mm256_mul_pd(g1, _mm256_loadu_pd(k + i + 4)));
    }
    if (i < d) {
      alignas(32) double tg[8] = {0, 0, 0, 0, 0, 0, 0, 0}, tq[8] = {0, 0, 0, 0, 0, 0, 0, 0},
                         tk[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (std::size_t l = 0; i + l < d; ++l) {
        tg[l] = g[i + l];
        tq[l] = q[i + l];
        tk[l] = k[i + l];
      }
      const __m256d g0 = _mm256_load_pd(tg), g1 = _mm256_load_pd(tg + 4);
      aq0 = _mm256_add_pd(aq0, _mm256_mul_pd(g0, _mm256_load_pd(tq)));
      aq1 = _mm256_add_pd(aq1, _mm256_mul_pd(g1, _mm256_load_pd(tq + 4)));
      ak0 = _mm256_add_pd(ak0, _mm256_mul_pd(g0, _mm256_load_pd(tk)));
      ak1 = _mm256_add_pd(ak1, _mm256_mul_pd(g1, _mm256_load_pd(tk + 4)));
    }
    alignas(32) double a[8], b[8];
    _mm256_store_pd(a, aq0);
    _mm256_store_pd(a + 4, aq1);
    _mm256_store_pd(b, ak0);
    _mm256_store_pd(b + 4, ak1);
    pq[r] = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
    pk[r] = ((b[0] + b[4]) + (b[2] + b[6])) + ((b[1] + b[5]) + (b[3] + b[7]));
  }
}

void orf_args_avx2(const double* z, const double* chi, std::size_t d, std::size_t n, double s,
                   double shift, double* out) {
  const __m256d sh = _mm256_set1_pd(shift);
  for (std::size_t b0 = 0; b0 < n; b0 += d) {
    const double* zb = z + b0;
    __m256d a0 = _mm256_setzero_pd(), a1 = a0;
    std::size_t i = 0;
    for (; i + 8 <= d; i += 8) {
      const __m256d z0 = _mm256_loadu_pd(zb + i), z1 = _mm256_loadu_pd(zb + i + 4);
      a0 = _mm256_add_pd(a0, _mm256_mul_pd(z0, z0));
      a1 = _mm256_add_pd(a1, _mm256_mul_pd(z1, z1));
    }
    if (i < d) {
      alignas(32) double t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (std::size_t l = 0; i + l < d; ++l) t[l] = zb[i + l];
      const __m256d z0 = _mm256_load_pd(t), z1 = _mm256_load_pd(t + 4);
      a0 = _mm256_add_pd(a0, _mm256_mul_pd(z0, z0));
      a1 = _mm256_add_pd(a1, _mm256_mul_pd(z1, z1));
    }
    alignas(32) double a8[8];
    _mm256_store_pd(a8, a0);
    _mm256_store_pd(a8 + 4, a1);
    const double ss = ((a8[0] + a8[4]) + (a8[2] + a8[6])) + ((a8[1] + a8[5]) + (a8[3] + a8[7]));
    const double sc = s / __builtin_sqrt(ss);
    const __m256d scale = _mm256_set1_pd(sc);
    const std::size_t m = n - b0 < d ? n - b0 : d;
    double* ob = out + b0;
    const double* cb = chi + b0;
    std::size_t r = 0;
    for (; r + 4 <= m; r += 4) {
      const __m256d w =
          _mm256_mul_pd(_mm256_mul_pd(scale, _mm256_loadu_pd(cb + r)), _mm256_loadu_pd(zb + r));
      _mm256_storeu_pd(ob + r, _mm256_sub_pd(w, sh));
    }
    for (; r < m; ++r) ob[r] = (sc * cb[r]) * zb[r] - shift;
  }
}

const Kernels kAvx2{Isa::avx2,      "avx2",        &normals_avx2, &chis_avx2,
                    &uniforms_avx2, &sum_cos_avx2, &sum_exp_avx2, &sum_cos_cos_avx2,
                    &cos_avx2,      &dots2_avx2,   &orf_args_avx2};

}  // namespace

const Kernels& kernels_avx2() {
  return kAvx2;
}

}  // namespace ropelab::simd
