// AVX2 kernels of the delta-rule core (delta_kernels.hpp), in float64 and float32. Compiled with
// -mavx2 -mfma (CMakeLists.txt) and run only when vecmath's active path is avx2 or avx512.
// Includes nothing but the intrinsics and a header of plain declarations (cos/sin:
// attention_kernels.hpp's sincos_avx2); everything else has internal linkage (the templates below
// are in an anonymous namespace).
#include <immintrin.h>

#include "ropelab/delta_kernels.hpp"

namespace ropelab::recurrence::kernels {

namespace {

/// One AVX2 register of doubles (4 lanes) or floats (8 lanes).
struct Pd {
  using Real = double;
  using V = __m256d;
  static constexpr std::size_t kLanes = 4;
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V zero() { return _mm256_setzero_pd(); }
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V x) { _mm256_storeu_pd(p, x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V mul(V a, V b) { return _mm256_mul_pd(a, b); }
};

struct Ps {
  using Real = float;
  using V = __m256;
  static constexpr std::size_t kLanes = 8;
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V x) { _mm256_storeu_ps(p, x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
};

/// pass() on one register of rows of a panel (lanes [0, L)), the same operations.
template <class W, bool kScaleNext, bool kRead, bool kNext>
void pass_half(typename W::Real* Pp, std::size_t d, const typename W::Real* key,
               const typename W::Real* u, const typename W::Real* query, typename W::V vn,
               const typename W::Real* next_key, typename W::Real* y, typename W::Real* out) {
  using V = typename W::V;
  constexpr std::size_t P = 2 * W::kLanes;
  const V u0 = W::load(u);
  V o0 = W::zero(), y0 = W::zero();
  for (std::size_t c = 0; c < d; ++c) {
    const V kc = W::set1(key[c]);
    V s0 = W::load(Pp + P * c);
    s0 = W::add(s0, W::mul(kc, u0));
    if constexpr (kRead) o0 = W::add(o0, W::mul(W::set1(query[c]), s0));
    if constexpr (kScaleNext) s0 = W::mul(vn, s0);
    W::store(Pp + P * c, s0);
    if constexpr (kNext) y0 = W::add(y0, W::mul(W::set1(next_key[c]), s0));
  }
  if constexpr (kRead) W::store(out, o0);
  if constexpr (kNext) W::store(y, y0);
}

/// One panel-pass (a panel: two registers of rows), specialised on whether the next gate is not 1
/// and which outputs are wanted (multiplying by a_next = 1 is exact, so skipping it changes no
/// bit). Eight multiplications per panel and column (the four products of the direct form) bound
/// its speed: the panel's two accumulation chains per output overlap with the next panel's. (Two
/// panels per sweep, sharing the broadcasts, measured slower.)
template <class W, bool kScaleNext, bool kRead, bool kNext>
void pass(typename W::Real* ST, std::size_t d, std::size_t panels, const typename W::Real* key,
          const typename W::Real* u, const typename W::Real* query, typename W::Real a_next,
          const typename W::Real* next_key, typename W::Real* y, typename W::Real* out,
          std::size_t rows) {
  using V = typename W::V;
  constexpr std::size_t L = W::kLanes, P = 2 * L;
  const V vn = W::set1(a_next);
  // a last panel with at most L rows: one register (half the work; its other lanes are zero rows)
  const bool half_last = panels > 0 && rows <= (panels - 1) * P + L;
  for (std::size_t p = 0; p < panels; ++p) {
    if (half_last && p + 1 == panels) {
      pass_half<W, kScaleNext, kRead, kNext>(ST + p * d * P, d, key, u + P * p, query, vn, next_key,
                                             y + P * p, out + P * p);
      break;
    }
    auto* Pp = ST + p * d * P;
    const V u0 = W::load(u + P * p), u1 = W::load(u + P * p + L);
    V o0 = W::zero(), o1 = W::zero(), y0 = W::zero(), y1 = W::zero();
    // explicit multiply-then-add: the bits of the scalar path (compiled with -ffp-contract=off)
    for (std::size_t c = 0; c < d; ++c) {
      const V kc = W::set1(key[c]);
      V s0 = W::load(Pp + P * c), s1 = W::load(Pp + P * c + L);
      s0 = W::add(s0, W::mul(kc, u0));
      s1 = W::add(s1, W::mul(kc, u1));
      if constexpr (kRead) {
        const V qc = W::set1(query[c]);
        o0 = W::add(o0, W::mul(qc, s0));
        o1 = W::add(o1, W::mul(qc, s1));
      }
      if constexpr (kScaleNext) {
        s0 = W::mul(vn, s0);
        s1 = W::mul(vn, s1);
      }
      W::store(Pp + P * c, s0);
      W::store(Pp + P * c + L, s1);
      if constexpr (kNext) {
        const V nc = W::set1(next_key[c]);
        y0 = W::add(y0, W::mul(nc, s0));
        y1 = W::add(y1, W::mul(nc, s1));
      }
    }
    if constexpr (kRead) {
      W::store(out + P * p, o0);
      W::store(out + P * p + L, o1);
    }
    if constexpr (kNext) {
      W::store(y + P * p, y0);
      W::store(y + P * p + L, y1);
    }
  }
}

template <class W, bool kScaleNext>
void pass_outputs(typename W::Real* ST, std::size_t d, std::size_t panels,
                  const typename W::Real* key, const typename W::Real* u,
                  const typename W::Real* query, typename W::Real a_next,
                  const typename W::Real* next_key, typename W::Real* y, typename W::Real* out,
                  std::size_t rows) {
  if (query != nullptr && next_key != nullptr) {
    pass<W, kScaleNext, true, true>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  } else if (query != nullptr) {
    pass<W, kScaleNext, true, false>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  } else if (next_key != nullptr) {
    pass<W, kScaleNext, false, true>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  } else {
    pass<W, kScaleNext, false, false>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  }
}

template <class W>
void pass_any(typename W::Real* ST, std::size_t d, std::size_t panels, const typename W::Real* key,
              const typename W::Real* u, const typename W::Real* query, typename W::Real a_next,
              const typename W::Real* next_key, typename W::Real* y, typename W::Real* out,
              std::size_t rows) {
  if (a_next != 1) {
    pass_outputs<W, true>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  } else {
    pass_outputs<W, false>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
  }
}

}  // namespace

void delta_pass_avx2(double* ST, std::size_t d, std::size_t panels, const double* key,
                     const double* u, const double* query, double a_next, const double* next_key,
                     double* y, double* out, std::size_t rows) {
  pass_any<Pd>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
}

void delta_pass_avx2(float* ST, std::size_t d, std::size_t panels, const float* key, const float* u,
                     const float* query, float a_next, const float* next_key, float* y, float* out,
                     std::size_t rows) {
  pass_any<Ps>(ST, d, panels, key, u, query, a_next, next_key, y, out, rows);
}

}  // namespace ropelab::recurrence::kernels
