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

/// The unit's round keys (Philox bumps the key by the Weyl constants after every round).
struct KeySchedule {
  long long k0[10], k1[10];
  explicit KeySchedule(const PhiloxUnit& u) {
    unsigned a = u.key[0], b = u.key[1];
    for (int r = 0; r < 10; ++r, a += kW0, b += kW1) {
      k0[r] = a;
      k1[r] = b;
    }
  }
};

/// Philox4x32-10 of 8 arbitrary counters (one per 64-bit lane, low 32 bits significant).
inline void philox_lanes(__m512i c0, __m512i c1, __m512i c2, __m512i c3, const KeySchedule& ks,
                         __m512i x[4]) {
  const __m512i m0 = _mm512_set1_epi64(static_cast<long long>(kM0));
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(kM1));
  for (int round = 0; round < 10; ++round) {
    const __m512i p0 = _mm512_mul_epu32(c0, m0);
    const __m512i p1 = _mm512_mul_epu32(c2, m1);
    c0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1, _mm512_set1_epi64(ks.k0[round]),
                                   0x96);
    c2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3, _mm512_set1_epi64(ks.k1[round]),
                                   0x96);
    c1 = p1;
    c3 = p0;
  }
  x[0] = c0;
  x[1] = c1;
  x[2] = c2;
  x[3] = c3;
}

/// Philox4x32-10 of the blocks 8g .. 8g+8N-1 (N groups interleaved for instruction-level
/// parallelism), one block per 64-bit lane: a lane's low 32 bits hold the counter word, its high
/// bits are don't-care (vpmuludq reads only the low 32 bits), so a round is 2 multiplies,
/// 2 shifts and 2 three-way xors. x[n][i]'s low 32 bits = output word i of group g + n.
template <int N>
inline void philox(const PhiloxUnit& u, const KeySchedule& ks, std::uint64_t g, __m512i x[][4]) {
  const __m512i m0 = _mm512_set1_epi64(static_cast<long long>(kM0));
  const __m512i m1 = _mm512_set1_epi64(static_cast<long long>(kM1));
  const __m512i lane = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512i c0[N], c1[N], c2[N], c3[N];
  for (int n = 0; n < N; ++n) {
    const std::uint64_t b0 = 8 * (g + static_cast<unsigned>(n));
    c0[n] = _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(b0)), lane);
    c1[n] = _mm512_set1_epi64(
        static_cast<long long>(u.c1_base | static_cast<unsigned>((b0 >> 32) & 0xFFFFu)));
    c2[n] = _mm512_set1_epi64(static_cast<long long>(u.c2));
    c3[n] = _mm512_set1_epi64(static_cast<long long>(u.c3));
  }
  for (int round = 0; round < 10; ++round) {
    const __m512i k0 = _mm512_set1_epi64(ks.k0[round]), k1 = _mm512_set1_epi64(ks.k1[round]);
    for (int n = 0; n < N; ++n) {
      const __m512i p0 = _mm512_mul_epu32(c0[n], m0);
      const __m512i p1 = _mm512_mul_epu32(c2[n], m1);
      // 0x96: a ^ b ^ c
      c0[n] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), c1[n], k0, 0x96);
      c2[n] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0, 32), c3[n], k1, 0x96);
      c1[n] = p1;
      c3[n] = p0;
    }
  }
  for (int n = 0; n < N; ++n) {
    x[n][0] = c0[n];
    x[n][1] = c1[n];
    x[n][2] = c2[n];
    x[n][3] = c3[n];
  }
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

/// Completes rejected draws: block 0 of their sub-streams (rng.hpp) is computed 8 lanes at a
/// time here instead of one scalar Philox call each inside slow_normal.
struct Rejections {
  static constexpr unsigned kCap = 64;
  std::uint64_t k[kCap];
  double v[kCap];
  unsigned layer[kCap];
  unsigned n = 0;
  const ChiTables* chi = nullptr;  ///< χ draws (Kernels::chis) instead of normals
  void flush(const PhiloxUnit& u, const KeySchedule& ks, std::uint64_t k_first, double* out_first) {
    for (unsigned i = 0; i < n; i += 8) {
      const auto live = static_cast<__mmask8>(n - i >= 8 ? 0xFFu : (1u << (n - i)) - 1u);
      const __m512i kv = _mm512_maskz_loadu_epi64(live, k + i);
      const __m512i c1 =
          _mm512_or_si512(_mm512_set1_epi64(static_cast<long long>(0x80000000u | u.c1_base)),
                          _mm512_and_si512(_mm512_srli_epi64(kv, 32), _mm512_set1_epi64(0xFFFF)));
      __m512i x[4];
      philox_lanes(kv, c1, _mm512_set1_epi64(static_cast<long long>(u.c2)),
                   _mm512_set1_epi64(static_cast<long long>(u.c3)), ks, x);
      alignas(64) long long w[4][8];
      for (int j = 0; j < 4; ++j) _mm512_store_si512(w[j], x[j]);
      for (unsigned l = 0; l < 8 && i + l < n; ++l) {
        const std::uint32_t first[4] = {
            static_cast<std::uint32_t>(w[0][l]), static_cast<std::uint32_t>(w[1][l]),
            static_cast<std::uint32_t>(w[2][l]), static_cast<std::uint32_t>(w[3][l])};
        out_first[k[i + l] - k_first] =
            chi != nullptr ? chi->slow(u, chi->self, k[i + l], v[i + l], layer[i + l], first)
                           : u.slow_normal(u, k[i + l], v[i + l], layer[i + l], first);
      }
    }
    n = 0;
  }
};

/// Ziggurat fast path on 8 draw words. Branch-free: the words and the mask of rejected lanes are
/// saved, and a batch's rejections (~1.5 %) are completed afterwards (complete_batch).
inline void zig8(const PhiloxUnit& u, __m512i w, double* out, std::uint64_t* wsave,
                 unsigned char* badsave) {
  const __m512d v = signed_unit(w);
  const __m512i layer = _mm512_and_si512(w, _mm512_set1_epi64(0xFF));
  const __m512d xl = _mm512_i64gather_pd(layer, u.zig_x, 8);
  const __m512d rl = _mm512_i64gather_pd(layer, u.zig_r, 8);
  const __mmask8 ok = _mm512_cmp_pd_mask(_mm512_abs_pd(v), rl, _CMP_LT_OQ);
  _mm512_storeu_pd(out, _mm512_mul_pd(v, xl));
  _mm512_store_si512(wsave, w);
  *badsave = static_cast<unsigned char>(~ok);
}

/// Groups per batch of saved words (512 draws: 4 KiB of words on the stack).
constexpr std::size_t kBatchGroups = 32;

/// The rejected lanes of nzig zig8 calls (draws k0 .. k0 + 8 nzig − 1, written at out[0..]).
void complete_batch(const PhiloxUnit& u, const KeySchedule& ks, const std::uint64_t* w,
                    const unsigned char* bad, std::size_t nzig, std::uint64_t k0, double* out,
                    const ChiTables* chi = nullptr) {
  Rejections rej;
  rej.chi = chi;
  for (std::size_t z = 0; z < nzig; ++z) {
    unsigned m = bad[z];
    while (m != 0) {
      const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
      m &= m - 1;
      const std::uint64_t word = w[8 * z + l];
      rej.k[rej.n] = k0 + 8 * z + l;
      // rng::to_open_signed_unit (exact: the same value as signed_unit)
      rej.v[rej.n] =
          static_cast<double>(static_cast<long long>(word) >> 11) * 0x1.0p-52 + 0x1.0p-53;
      rej.layer[rej.n] = static_cast<unsigned>(word & (chi != nullptr ? kChiLayers - 1 : 0xFF));
      if (++rej.n == Rejections::kCap) rej.flush(u, ks, k0, out);
    }
  }
  rej.flush(u, ks, k0, out);
}

/// The batch loop of the normal and χ generators: Philox words of two groups at a time, the fast
/// path `fast8(words, out, wsave, bad)` on each 8 of them, then the exact completion of the draws
/// it rejected (`chi`: the χ tables, nullptr for normals).
template <class Fast8>
inline void zig_batches(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out,
                        const ChiTables* chi, Fast8 fast8) {
  const KeySchedule ks(u);
  alignas(64) std::uint64_t wsave[kBatchGroups * 16];
  unsigned char bad[kBatchGroups * 2];
  for (std::size_t b = 0; b < ngroups; b += kBatchGroups) {
    const std::size_t nb = ngroups - b < kBatchGroups ? ngroups - b : kBatchGroups;
    double* const bout = out + 16 * b;
    std::size_t i = 0;
    for (; i + 2 <= nb; i += 2) {
      __m512i x[2][4];
      philox<2>(u, ks, g0 + b + i, x);
      for (std::size_t n = 0; n < 2; ++n) {
        const std::size_t zi = 2 * (i + n);
        fast8(words(x[n][0], x[n][1]), bout + 8 * zi, wsave + 8 * zi, bad + zi);
        fast8(words(x[n][2], x[n][3]), bout + 8 * zi + 8, wsave + 8 * zi + 8, bad + zi + 1);
      }
    }
    if (i < nb) {
      __m512i x[1][4];
      philox<1>(u, ks, g0 + b + i, x);
      const std::size_t zi = 2 * i;
      fast8(words(x[0][0], x[0][1]), bout + 8 * zi, wsave + 8 * zi, bad + zi);
      fast8(words(x[0][2], x[0][3]), bout + 8 * zi + 8, wsave + 8 * zi + 8, bad + zi + 1);
    }
    complete_batch(u, ks, wsave, bad, 2 * nb, 16 * (g0 + b), bout, chi);
  }
}

void normals_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  zig_batches(u, g0, ngroups, out, nullptr,
              [&u](__m512i w, double* o, std::uint64_t* ws, unsigned char* bad) {
                zig8(u, w, o, ws, bad);
              });
}

/// The χ ziggurat's fast path on 8 draw words (as zig8): r = c + s h if lo < s < hi.
inline void chiz8(const ChiTables& t, __m512i w, double* out, std::uint64_t* wsave,
                  unsigned char* badsave) {
  const __m512d s = signed_unit(w);
  const __m512i layer = _mm512_and_si512(w, _mm512_set1_epi64(kChiLayers - 1));
  const __m512d c = _mm512_i64gather_pd(layer, t.c, 8);
  const __m512d h = _mm512_i64gather_pd(layer, t.h, 8);
  const __m512i rho = _mm512_i64gather_epi64(layer, reinterpret_cast<const long long*>(t.rho), 8);
  const __m512d lo = _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(rho)));
  const __m512d hi =
      _mm512_cvtps_pd(_mm256_castsi256_ps(_mm512_cvtepi64_epi32(_mm512_srli_epi64(rho, 32))));
  const __mmask8 ok = _mm512_cmp_pd_mask(s, lo, _CMP_GT_OQ) & _mm512_cmp_pd_mask(s, hi, _CMP_LT_OQ);
  _mm512_storeu_pd(out, _mm512_add_pd(c, _mm512_mul_pd(s, h)));
  _mm512_store_si512(wsave, w);
  *badsave = static_cast<unsigned char>(~ok);
}

void chis_avx512(const PhiloxUnit& u, const ChiTables& t, std::uint64_t g0, std::size_t ngroups,
                 double* out) {
  zig_batches(u, g0, ngroups, out, &t,
              [&t](__m512i w, double* o, std::uint64_t* ws, unsigned char* bad) {
                chiz8(t, w, o, ws, bad);
              });
}

void uniforms_avx512(const PhiloxUnit& u, std::uint64_t g0, std::size_t ngroups, double* out) {
  const KeySchedule ks(u);
  std::size_t i = 0;
  for (; i + 2 <= ngroups; i += 2, out += 32) {
    __m512i x[2][4];
    philox<2>(u, ks, g0 + i, x);
    for (int n = 0; n < 2; ++n) {
      _mm512_storeu_pd(out + 16 * n, open_unit(words(x[n][0], x[n][1])));
      _mm512_storeu_pd(out + 16 * n + 8, open_unit(words(x[n][2], x[n][3])));
    }
  }
  if (i < ngroups) {
    __m512i x[1][4];
    philox<1>(u, ks, g0 + i, x);
    _mm512_storeu_pd(out, open_unit(words(x[0][0], x[0][1])));
    _mm512_storeu_pd(out + 8, open_unit(words(x[0][2], x[0][3])));
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

void sum_cos_avx512(const double* x, std::size_t n, double* acc8) {
  sum8<CosOp>(x, n, acc8);
}
void sum_exp_avx512(const double* x, std::size_t n, double* acc8) {
  sum8<ExpOp>(x, n, acc8);
}

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
    _mm512_mask_storeu_pd(out + j, live,
                          Sleef_cosd8_u10avx512f(_mm512_maskz_loadu_pd(live, x + j)));
  }
}

void dots2_avx512(const double* G, std::size_t m, std::size_t d, const double* q, const double* k,
                  double* pq, double* pk) {
  for (std::size_t r = 0; r < m; ++r) {
    const double* g = G + r * d;
    __m512d aq = _mm512_setzero_pd(), ak = _mm512_setzero_pd();
    for (std::size_t i = 0; i < d; i += 8) {
      const auto live = static_cast<__mmask8>(d - i >= 8 ? 0xFFu : (1u << (d - i)) - 1u);
      const __m512d gv = _mm512_maskz_loadu_pd(live, g + i);  // dead lanes: 0·0 = +0.0
      aq = _mm512_add_pd(aq, _mm512_mul_pd(gv, _mm512_maskz_loadu_pd(live, q + i)));
      ak = _mm512_add_pd(ak, _mm512_mul_pd(gv, _mm512_maskz_loadu_pd(live, k + i)));
    }
    alignas(64) double a[8], b[8];
    _mm512_store_pd(a, aq);
    _mm512_store_pd(b, ak);
    pq[r] = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
    pk[r] = ((b[0] + b[4]) + (b[2] + b[6])) + ((b[1] + b[5]) + (b[3] + b[7]));
  }
}

void orf_args_avx512(const double* z, const double* chi, std::size_t d, std::size_t n, double s,
                     double shift, double* out) {
  const __m512d sh = _mm512_set1_pd(shift);
  // Up to 64 blocks at a time: first their scales (independent chains, so the sums, square roots
  // and divisions of different blocks overlap), then the arguments.
  constexpr std::size_t kBlocks = 64;
  double scales[kBlocks];
  for (std::size_t g0 = 0; g0 < n; g0 += kBlocks * d) {
    const std::size_t g1 = n - g0 < kBlocks * d ? n : g0 + kBlocks * d;
    for (std::size_t b0 = g0, b = 0; b0 < g1; b0 += d, ++b) {
      const double* zb = z + b0;
      __m512d acc = _mm512_setzero_pd();
      std::size_t i = 0;
      for (; i + 8 <= d; i += 8) {
        const __m512d zv = _mm512_loadu_pd(zb + i);
        acc = _mm512_add_pd(acc, _mm512_mul_pd(zv, zv));
      }
      if (i < d) {
        const auto live = static_cast<__mmask8>((1u << (d - i)) - 1u);
        const __m512d zv = _mm512_maskz_loadu_pd(live, zb + i);  // dead lanes: 0·0 = +0.0
        acc = _mm512_add_pd(acc, _mm512_mul_pd(zv, zv));
      }
      alignas(64) double a8[8];
      _mm512_store_pd(a8, acc);
      const double ss = ((a8[0] + a8[4]) + (a8[2] + a8[6])) + ((a8[1] + a8[5]) + (a8[3] + a8[7]));
      scales[b] = s / __builtin_sqrt(ss);
    }
    for (std::size_t b0 = g0, b = 0; b0 < g1; b0 += d, ++b) {
      const __m512d scale = _mm512_set1_pd(scales[b]);
      const std::size_t m = n - b0 < d ? n - b0 : d;
      const double* zb = z + b0;
      double* ob = out + b0;
      const double* cb = chi + b0;
      std::size_t r = 0;
      for (; r + 8 <= m; r += 8) {
        const __m512d w =
            _mm512_mul_pd(_mm512_mul_pd(scale, _mm512_loadu_pd(cb + r)), _mm512_loadu_pd(zb + r));
        _mm512_storeu_pd(ob + r, _mm512_sub_pd(w, sh));
      }
      if (r < m) {
        const auto live = static_cast<__mmask8>((1u << (m - r)) - 1u);
        const __m512d w = _mm512_mul_pd(_mm512_mul_pd(scale, _mm512_maskz_loadu_pd(live, cb + r)),
                                        _mm512_maskz_loadu_pd(live, zb + r));
        _mm512_mask_storeu_pd(ob + r, live, _mm512_sub_pd(w, sh));
      }
    }
  }
}

const Kernels kAvx512{Isa::avx512,      "avx512",        &normals_avx512, &chis_avx512,
                      &uniforms_avx512, &sum_cos_avx512, &sum_exp_avx512, &sum_cos_cos_avx512,
                      &cos_avx512,      &dots2_avx512,   &orf_args_avx512};

}  // namespace

const Kernels& kernels_avx512() {
  return kAvx512;
}

}  // namespace ropelab::simd
