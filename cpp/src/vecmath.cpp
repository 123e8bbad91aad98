// Runtime dispatch and the scalar (baseline x86-64) kernels of vecmath.hpp.
#include "ropelab/vecmath.hpp"

#include <sleef.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/names.hpp"
#include "ropelab/rng.hpp"

namespace ropelab::simd {

namespace {

/// Calls per_word(output index, draw index, 64-bit word) for the 16 words of each group
/// g0 .. g0+ngroups−1, in the scalar order that every SIMD path reproduces.
template <class PerWord>
void for_each_word(const PhiloxUnit& unit, std::uint64_t g0, std::size_t ngroups,
                   PerWord per_word) {
  for (std::size_t i = 0; i < ngroups; ++i) {
    const std::uint64_t g = g0 + i;
    std::uint32_t x[8][4];
    for (unsigned l = 0; l < 8; ++l) rng::philox_block(unit, 8 * g + l, x[l]);
    for (unsigned r = 0; r < 16; ++r) {
      const unsigned h = r >> 3, l = r & 7;
      per_word(16 * i + r, 16 * g + r,
               static_cast<std::uint64_t>(x[l][2 * h + 1]) << 32 | x[l][2 * h]);
    }
  }
}

void normals_scalar(const PhiloxUnit& unit, std::uint64_t g0, std::size_t ngroups, double* out) {
  for_each_word(unit, g0, ngroups, [&](std::size_t o, std::uint64_t draw, std::uint64_t w) {
    const double v = rng::to_open_signed_unit(w);
    const auto layer = static_cast<unsigned>(w & 0xFF);
    out[o] = std::fabs(v) < unit.zig_r[layer] ? v * unit.zig_x[layer]
                                              : unit.slow_normal(unit, draw, v, layer, nullptr);
  });
}

void uniforms_scalar(const PhiloxUnit& unit, std::uint64_t g0, std::size_t ngroups, double* out) {
  for_each_word(unit, g0, ngroups, [&](std::size_t o, std::uint64_t, std::uint64_t w) {
    out[o] = rng::to_open_unit(w);
  });
}

// acc[j mod 8] += f(j) with lanes past n adding +0.0, exactly as the vector kernels do.
template <class F>
void sum8(std::size_t n, double* acc8, F f) {
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (unsigned l = 0; l < 8; ++l) acc8[l] += f(j + l);
  }
  if (j < n) {
    for (unsigned l = 0; l < 8; ++l) acc8[l] += j + l < n ? f(j + l) : 0.0;
  }
}

void sum_cos_scalar(const double* x, std::size_t n, double* acc8) {
  sum8(n, acc8, [x](std::size_t j) { return Sleef_cosd1_u10purec(x[j]); });
}
void sum_exp_scalar(const double* x, std::size_t n, double* acc8) {
  sum8(n, acc8, [x](std::size_t j) { return Sleef_expd1_u10purec(x[j]); });
}
void sum_cos_cos_scalar(const double* a, const double* b, std::size_t n, double* acc8) {
  sum8(n, acc8,
       [a, b](std::size_t j) { return Sleef_cosd1_u10purec(a[j]) * Sleef_cosd1_u10purec(b[j]); });
}
void cos_scalar(const double* x, std::size_t n, double* out) {
  for (std::size_t j = 0; j < n; ++j) out[j] = Sleef_cosd1_u10purec(x[j]);
}

void chis_scalar(const PhiloxUnit& unit, const ChiTables& t, std::uint64_t g0, std::size_t ngroups,
                 double* out) {
  for_each_word(unit, g0, ngroups, [&](std::size_t o, std::uint64_t draw, std::uint64_t w) {
    const double s = rng::to_open_signed_unit(w);
    const auto layer = static_cast<unsigned>(w & (kChiLayers - 1));
    float lo = 0, hi = 0;
    const auto lo32 = static_cast<std::uint32_t>(t.rho[layer]);
    const auto hi32 = static_cast<std::uint32_t>(t.rho[layer] >> 32);
    std::memcpy(&lo, &lo32, 4);
    std::memcpy(&hi, &hi32, 4);
    out[o] = ((s > static_cast<double>(lo)) & (s < static_cast<double>(hi)))
                 ? t.c[layer] + s * t.h[layer]
                 : t.slow(unit, t.self, draw, s, layer, nullptr);
  });
}

void orf_args_scalar(const double* z, const double* chi, std::size_t d, std::size_t n, double s,
                     double shift, double* out) {
  for (std::size_t b0 = 0; b0 < n; b0 += d) {
    const double* zb = z + b0;
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    sum8(d, acc, [zb](std::size_t i) { return zb[i] * zb[i]; });
    const double scale = s / std::sqrt(reduce8(acc));
    const std::size_t m = n - b0 < d ? n - b0 : d;
    for (std::size_t r = 0; r < m; ++r) out[b0 + r] = (scale * chi[b0 + r]) * zb[r] - shift;
  }
}

void dots2_scalar(const double* G, std::size_t m, std::size_t d, const double* q, const double* k,
                  double* pq, double* pk) {
  for (std::size_t r = 0; r < m; ++r) {
    const double* g = G + r * d;
    double aq[8] = {0, 0, 0, 0, 0, 0, 0, 0}, ak[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t i = 0;
    for (; i + 8 <= d; i += 8) {
      for (unsigned l = 0; l < 8; ++l) {
        aq[l] += g[i + l] * q[i + l];
        ak[l] += g[i + l] * k[i + l];
      }
    }
    if (i < d) {
      for (unsigned l = 0; l < 8; ++l) {
        aq[l] += i + l < d ? g[i + l] * q[i + l] : 0.0;
        ak[l] += i + l < d ? g[i + l] * k[i + l] : 0.0;
      }
    }
    pq[r] = reduce8(aq);
    pk[r] = reduce8(ak);
  }
}

const Kernels kScalar{Isa::scalar,      "scalar",        &normals_scalar, &chis_scalar,
                      &uniforms_scalar, &sum_cos_scalar, &sum_exp_scalar, &sum_cos_cos_scalar,
                      &cos_scalar,      &dots2_scalar,   &orf_args_scalar};

bool cpu_supports(Isa isa) {
#ifdef ROPELAB_SCALAR_ONLY
  return isa == Isa::scalar;
#endif
  switch (isa) {
    case Isa::scalar:
      return true;
    case Isa::avx2:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
             __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }
  return false;
}

Isa initial_isa() {
  Isa best = Isa::scalar;
  for (Isa i : {Isa::avx2, Isa::avx512}) {
    if (cpu_supports(i)) best = i;
  }
  if (const char* env = std::getenv("ROPELAB_SIMD")) {
    // An unknown or unsupported request falls back to the best path (never a crash at import).
    for (Isa i : {Isa::scalar, Isa::avx2, Isa::avx512}) {
      if (std::strcmp(env, isa_name(i)) == 0 && cpu_supports(i)) return i;
    }
  }
  return best;
}

std::atomic<const Kernels*>& active() {
  static std::atomic<const Kernels*> table{&kernels(initial_isa())};
  return table;
}

}  // namespace

double reduce8(const double* a) {
  return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}

const Kernels& kernels_scalar() {
  return kScalar;
}

const Kernels& kernels(Isa isa) {
  if (!cpu_supports(isa)) {
    throw std::invalid_argument(std::string("this CPU does not support the '") + isa_name(isa) +
                                "' path");
  }
#ifndef ROPELAB_SCALAR_ONLY
  switch (isa) {
    case Isa::avx2:
      return kernels_avx2();
    case Isa::avx512:
      return kernels_avx512();
    case Isa::scalar:
      break;
  }
#endif
  return kScalar;
}

const Kernels& kernels() {
  return *active().load(std::memory_order_relaxed);
}
Isa active_isa() {
  return kernels().isa;
}
bool supported(Isa isa) {
  return cpu_supports(isa);
}
void set_isa(Isa isa) {
  active().store(&kernels(isa));
}

const std::vector<std::string>& isa_names() {
  static const std::vector<std::string> names{"scalar", "avx2", "avx512"};
  return names;
}

const char* isa_name(Isa isa) {
  return isa_names()[static_cast<std::size_t>(isa)].c_str();
}

Isa parse_isa(const char* name) {
  return names::parse<Isa>(isa_names(), name, "SIMD path");
}

}  // namespace ropelab::simd
