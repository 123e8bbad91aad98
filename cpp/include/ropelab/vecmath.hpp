#pragma once
/// \file vecmath.hpp
/// The vectorised kernels of the Monte-Carlo hot loops, with runtime instruction-set dispatch.
///
/// Three implementations of one table of kernels (struct Kernels):
///
///   scalar   plain C++ (any x86-64; SSE2 baseline), SLEEF's `purec` u10 scalar functions;
///   avx2     cpp/src/kernels_avx2.cpp, compiled with -mavx2 -mfma, SLEEF `u10avx2`;
///   avx512   cpp/src/kernels_avx512.cpp, compiled with -mavx512f -mavx512dq -mavx2 -mfma, SLEEF
///            `u10avx512f` (selected when the CPU has AVX-512F and DQ: every AVX-512 x86 since
///            2017).
///
/// Only those two files get ISA flags (and, under the same rules, the kernels of attention and the
/// delta rule: attention_kernels_avx2.cpp, attention_kernels_avx512.cpp, delta_avx2.cpp), and they
/// include nothing but <immintrin.h>, <sleef.h> and their header (plain structs and declarations,
/// no inline functions): an inline function or
/// template compiled with AVX flags could otherwise be picked by the linker for the whole program
/// and crash a machine without AVX. The library is built without -march, so one build runs on any
/// x86-64. The active table is chosen once: $ROPELAB_SIMD (scalar | avx2 | avx512) if set and
/// supported by the CPU, else the widest one __builtin_cpu_supports allows; set_isa() changes it
/// (tests and benchmarks compare the paths; call it only while no computation is running).
///
/// Accuracy and reproducibility.
///   * Normals and uniforms (rng.hpp) are computed with exact integer arithmetic (Philox4x32-10)
///     and exactly rounded conversions, and the ziggurat's fast path is one multiplication: they
///     are bit-identical on every path. So are the χ_d draws of the χ ziggurat (fast path
///     c + s·h: one multiplication and one addition). The rare rejections run one shared scalar
///     function.
///   * cos/exp are SLEEF's u10 functions (max error 1.0 ULP). The avx2 and avx512 versions are the
///     same FMA-based algorithm and give identical bits (tested); the scalar fallback (no FMA) may
///     differ from them by 1 ULP in a few values, so a Monte-Carlo estimate on the scalar path can
///     differ from the vector paths in its last bits (tested: relative difference < 1e-14).
///   * Sums over features use 8 fixed accumulators (feature j of a call adds to acc[j mod 8]) and
///     a fixed reduction tree (reduce8): the summation order is the same on every path and for
///     every thread count.
/// Results are therefore bit-identical across thread counts always, and across avx2/avx512; the
/// scalar path agrees to within rounding.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ropelab::simd {

enum class Isa { scalar = 0, avx2 = 1, avx512 = 2 };

/// Where the draws of one (seed, stream, index) unit live in Philox4x32-10's counter space, and
/// what the kernels need to turn them into normals (see rng.hpp for the contract).
struct PhiloxUnit {
  std::uint32_t key[2];   ///< {seed low 32 bits, seed high 32 bits}
  std::uint32_t c1_base;  ///< counter word 1 without the block's high bits: stream << 24
  std::uint32_t c2, c3;   ///< counter words 2, 3: index low / high 32 bits
  const double* zig_x;    ///< ziggurat layer edges (257 entries)
  const double* zig_r;    ///< ziggurat ratios x[i+1]/x[i] (256 entries)
  /// The exact scalar completion of draw k when its fast path (|v| < r[layer]) is rejected.
  /// `first`: block 0 of draw k's sub-stream if the caller computed it already (vector kernels
  /// do, 8 at a time), else nullptr.
  double (*slow_normal)(const PhiloxUnit& unit, std::uint64_t k, double v, unsigned layer,
                        const std::uint32_t* first);
};

/// Layers of the χ_d ziggurat (rng.hpp ChiZiggurat): bits 0..9 of a draw's word.
constexpr unsigned kChiLayers = 1024;

/// The χ_d ziggurat of one d (rng.hpp ChiZiggurat) as the kernels read it. Draw k's word w gives
/// the layer i = w & (kChiLayers − 1) and s = to_open_signed_unit(w) ∈ (−1, 1); if lo_i < s < hi_i
/// (the floats of rho[i] = lo | hi << 32) the norm is c[i] + s·h[i], else slow() completes it.
struct ChiTables {
  const double* c;           ///< box centres (kChiLayers)
  const double* h;           ///< box half-widths (kChiLayers)
  const std::uint64_t* rho;  ///< fast-path intervals of s, two floats (kChiLayers)
  const void* self;          ///< the ChiZiggurat
  /// The exact completion of draw k after its fast path failed with (s, layer); `first` as in
  /// PhiloxUnit::slow_normal.
  double (*slow)(const PhiloxUnit& unit, const void* self, std::uint64_t k, double s,
                 unsigned layer, const std::uint32_t* first);
};

/// One implementation of the hot-loop kernels. "Group" g = draws 16g .. 16g+15 of a unit.
struct Kernels {
  Isa isa;
  const char* name;
  /// out[16 i + r] = normal number 16 (g0 + i) + r of the unit, for i < ngroups.
  void (*normals)(const PhiloxUnit& unit, std::uint64_t g0, std::size_t ngroups, double* out);
  /// out[16 i + r] = χ_d number 16 (g0 + i) + r of the unit (rng.hpp ChiZiggurat), i < ngroups.
  void (*chis)(const PhiloxUnit& unit, const ChiTables& tables, std::uint64_t g0,
               std::size_t ngroups, double* out);
  /// out[16 i + r] = uniform number 16 (g0 + i) + r of the unit in (0, 1), for i < ngroups.
  void (*uniforms)(const PhiloxUnit& unit, std::uint64_t g0, std::size_t ngroups, double* out);
  /// acc[j mod 8] += cos(x[j]) for j < n (lanes past n add +0.0).
  void (*sum_cos)(const double* x, std::size_t n, double* acc8);
  /// acc[j mod 8] += exp(x[j]).
  void (*sum_exp)(const double* x, std::size_t n, double* acc8);
  /// acc[j mod 8] += cos(a[j]) * cos(b[j]).
  void (*sum_cos_cos)(const double* a, const double* b, std::size_t n, double* acc8);
  /// out[j] = cos(x[j]) (u10).
  void (*cos)(const double* x, std::size_t n, double* out);
  /// The projections of m rows of G (row-major m×d) onto q and k: pq[r] = Σ_i G[r d + i] q[i],
  /// pk[r] likewise; term i goes to accumulator i mod 8 (multiply, then add: no FMA), reduced as
  /// reduce8 — the same bits on every path.
  void (*dots2)(const double* G, std::size_t m, std::size_t d, const double* q, const double* k,
                double* pq, double* pk);
  /// Projected ORF arguments of n features in blocks of d (feature j in block b = j / d; the
  /// direction normals of block b are z[b d .. b d + d), all of them, also past n): with
  /// n_b = sqrt(Σ_i z[b d + i]²) (term i to accumulator i mod 8, dead lanes +0.0, reduce8),
  ///   out[j] = ((s / n_b) · chi[j]) · z[j] − shift
  /// (the same IEEE operations on every path: bit-identical).
  void (*orf_args)(const double* z, const double* chi, std::size_t d, std::size_t n, double s,
                   double shift, double* out);
};

/// The fixed reduction of 8 accumulators: ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)).
double reduce8(const double* acc8);

/// Kernels of the active path.
const Kernels& kernels();
/// Kernels of a given path (throws std::invalid_argument if the CPU does not support it).
const Kernels& kernels(Isa isa);
Isa active_isa();
/// Whether this CPU can run the path.
bool supported(Isa isa);
/// Select the active path (throws std::invalid_argument if unsupported).
void set_isa(Isa isa);
/// "scalar", "avx2", "avx512".
const char* isa_name(Isa isa);
/// The ISA names in enum order: "scalar", "avx2", "avx512" (_core.simd.isas()).
const std::vector<std::string>& isa_names();
/// Parses an ISA name (throws std::invalid_argument).
Isa parse_isa(const char* name);

// The per-ISA tables (defined in kernels_*.cpp; do not call on an unsupported CPU).
const Kernels& kernels_scalar();
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();

}  // namespace ropelab::simd
