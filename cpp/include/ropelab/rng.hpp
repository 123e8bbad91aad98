#pragma once
/// \file rng.hpp
/// Counter-based random streams (Philox4x32-10 from Random123) and the normals drawn from them.
///
/// Addressing. Every random number ropelab draws is a pure function of five integers: the
/// user's seed, the stream (which quantity, StreamId), the unit `index` (a Monte-Carlo trial, or
/// the `index=` of a one-off draw such as sample_omega) and the draw number k = 0, 1, 2, ... within
/// the unit, plus whether draw k is read as a normal or a uniform:
///
///     key     = {seed mod 2^32, seed >> 32}
///     counter = {block mod 2^32, stream << 24 | block >> 32, index mod 2^32, index >> 32}
///
/// Philox4x32-10 maps (key, counter) to four 32-bit words x0..x3. Draws come in groups of 16:
/// draw k (group g = k >> 4, r = k & 15, h = r >> 3, l = r & 7) is the 64-bit word
/// w = x[2h+1] << 32 | x[2h] of block 8g + l. (This layout lets 8 or 16 vector lanes compute 8 or
/// 16 consecutive blocks and store the draws in order.) A unit owns at most 2^40 draws
/// (kMaxDraws), so no two (stream, index, k) share a counter; different seeds are different keys.
///
///   uniform k = (⌊w / 2^12⌋ + ½) · 2^-52 ∈ (0, 1)   (to_open_unit; exact)
///   normal k  = ziggurat (Marsaglia & Tsang 2000, in Doornik's ZIGNOR form, 256 layers) on w:
///               layer i = w & 255, v = (2⌊w_signed / 2^11⌋ + 1) · 2^-53 ∈ (−1, 1) (exact; bits
///               11..63, disjoint from i). If |v| < r[i] (98.5 % of draws; 97.2 % with 128
///               layers, whose rejections cost more than the larger table) the normal is v·x[i].
///               Otherwise the exact wedge/tail test continues with the words of a private
///               sub-stream of draw k: counter {k mod 2^32, 2^31 | stream << 24 | j << 16 | k >>
///               32, index...}, j = 0, 1, ... (wrapping after 256 Philox calls, i.e. 512 words:
///               never reached in practice, and still deterministic).
///   χ_d k     = the χ_d ziggurat (ChiZiggurat below, d ≥ 2) on w: layer i = w & 1023, s as v
///               above; r = c[i] + s·h[i] if s lies in the layer's fast interval (99.6 % of draws),
///               else the exact completion on draw k's private sub-stream, as for normals.
///
/// So the k-th normal (or χ_d) of a unit is a pure function of (seed, stream, index, k): a
/// rejection never shifts the later draws, the vector kernels compute 16 draws at once in any
/// order, and a trial's numbers never depend on the thread that computes it, the number of threads,
/// the block size or the instruction set (vecmath.hpp: bit-identical on the scalar, AVX2 and
/// AVX-512 paths).
///
/// Changed from the first version (Philox4x64, sequential rejection): same guarantees, new
/// numbers; Philox4x32 vectorises (32×32→64-bit multiplies) where 4x64 does not.

#include <Random123/philox.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ropelab/vecmath.hpp"

namespace ropelab::rng {

/// The quantity a stream feeds. Distinct ids keep e.g. the frequencies ω and the random phases β
/// of the same trial independent, and keep ω identical whatever the estimator.
enum class StreamId : std::uint32_t {
  omega = 0,      ///< full-mode frequency rows (and their orthogonal-block norms)
  phase = 1,      ///< random phases β of the random-phase estimator
  projected = 2,  ///< scalar / 2-D projections in projected mode (ORF: the block directions)
  chi = 3,        ///< projected ORF: the χ_d norms (ChiZiggurat; d = 1: |normal|)
  bench = 127,    ///< benchmarks of the primitives (bench_limit.py)
};

/// Draws a unit may own: 2^40 (the counter layout above).
constexpr std::uint64_t kMaxDraws = std::uint64_t{1} << 40;

/// Uniform in the open interval (0, 1) from the top 52 bits of a 64-bit word: the midpoints
/// (j + ½)·2⁻⁵² are all exactly representable, so neither 0 nor 1 can occur.
inline double to_open_unit(std::uint64_t x) noexcept {
  return (static_cast<double>(x >> 12) + 0.5) * 0x1.0p-52;
}

/// Signed uniform in the open interval (−1, 1) from the top 53 bits of a word read as signed:
/// (2m+1)·2⁻⁵³ with m = ⌊w_signed/2¹¹⌋ ∈ [−2⁵², 2⁵²) is exactly representable.
inline double to_open_signed_unit(std::uint64_t x) noexcept {
  const auto m = static_cast<std::int64_t>(x) >> 11;  // arithmetic shift (C++20; GCC/Clang: always)
  return static_cast<double>(m) * 0x1.0p-52 + 0x1.0p-53;
}

/// Tables of the 256-layer normal ziggurat (Doornik 2005, "An improved ziggurat method to
/// generate normal random samples"; R and V for 256 layers as in Marsaglia & Tsang 2000):
/// layer edges x[i] and ratios r[i] = x[i+1]/x[i]. (The recursion closes: V/x[255] + f(x[255])
/// = 1 to 2e-11.)
struct ZigguratTables {
  static constexpr int kLayers = 256;               ///< the kernels use w & 255 as the layer
  static constexpr double kR = 3.6541528853610088;  ///< start of the tail
  static constexpr double kV = 4.92867323399e-3;    ///< area of each layer
  double x[kLayers + 1];
  double r[kLayers];
  double f[kLayers + 1];  ///< the density exp(−x²/2) at the layer edges (for the wedge test)
  ZigguratTables() noexcept {
    double fx = std::exp(-0.5 * kR * kR);
    x[0] = kV / fx;  // the bottom layer is a rectangle of area V: width V / f(R)
    x[1] = kR;
    x[kLayers] = 0.0;
    for (int i = 2; i < kLayers; ++i) {
      x[i] = std::sqrt(-2.0 * std::log(kV / x[i - 1] + fx));
      fx = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kLayers; ++i) r[i] = x[i + 1] / x[i];
    for (int i = 0; i <= kLayers; ++i) f[i] = std::exp(-0.5 * x[i] * x[i]);
  }
  static const ZigguratTables& get() noexcept {
    static const ZigguratTables tables;  // initialised once, thread-safely (C++11 statics)
    return tables;
  }
};

/// A ziggurat for the χ_d distribution (d ≥ 2), density ∝ r^{d−1} e^{−r²/2} on r > 0, built at
/// run time once per d (get(d), thread-safe; ~30 ms). The density is unimodal (mode m = √(d−1))
/// and log-concave, so the ziggurat is two-sided: with f scaled to f(m) = 1 and N = kLayers = 1024
/// levels y_1 < ... < y_N, layer i ≥ 1 is the box [L_i, R_i] × [y_i, y_{i+1}], where
/// f(L_i) = f(R_i) = y_i (L_i ≤ m ≤ R_i), and layer 0 the region under min(f, y_1): the rectangle
/// [L_1, R_1] × [0, y_1] and the two tails. All N have the same area V (y_1 is solved for, and
/// y_N ≥ 1 so the top box covers the mode). A draw picks layer i (bits 0..9 of its word) and a
/// uniform point of its box (s, the word's top 53 bits): r = c_i + s h_i with c_i ± h_i = L_i, R_i
/// (layer 0: r uniform on [L_1, L_1 + V/y_1], width V/y_1). If r lies in [L_{i+1}, R_{i+1}]
/// (layer 0: r < R_1), where f ≥ y_{i+1}, r is accepted at once: the fast path, two double and
/// one packed-float table read (its s interval rounded inwards to floats by more than the rounding
/// of r). Otherwise (0.4 % of draws for any d) the exact completion reads the draw's private
/// sub-stream (as the normal ziggurat, so the k-th χ of a unit is a pure function of
/// (seed, stream, index, k)): the wedge test y < f(r) with a fresh height, or in layer 0 a tail
/// (right with probability T_R/(T_L + T_R)) sampled exactly by rejection from the exponential
/// tangent to log f at R_1 resp. L_1 (log-concavity: the tangent lies above); a rejected point
/// restarts with the next word of the sub-stream. Exact in the same sense as the normal ziggurat:
/// every layer has area V up to the rounding of the tables (built in long double).
class ChiZiggurat {
 public:
  static constexpr int kLayers = static_cast<int>(simd::kChiLayers);
  static const ChiZiggurat& get(std::size_t d);
  explicit ChiZiggurat(std::size_t d);
  std::size_t d;
  double m;                        ///< the mode √(d−1)
  double c[kLayers], h[kLayers];   ///< box centre and half-width of each layer
  std::uint64_t rho[kLayers];      ///< fast-path s interval (lo, hi floats), inward-rounded
  double y[kLayers + 1];           ///< y[i], y[i+1]: bottom and top of box i ≥ 1 (y[0] = 0)
  double V;                        ///< the common area
  double L1, R1;                   ///< the base rectangle's ends (f(L1) = f(R1) = y[1])
  double p_right;                  ///< T_R / (T_L + T_R)
  double slope_left, slope_right;  ///< (log f)' at L1 (> 0) and −(log f)' at R1 (> 0)
  /// log f(r), f(m) = 1.
  double log_f(double r) const;
  /// The kernels' view of the tables.
  simd::ChiTables tables() const;

 private:
  /// c, h and the fast-path intervals rho of every layer from the solved base (area V_, height
  /// y1, left end L1_) and the layers' level-set ends Ls[i], Rs[i] (i = 1..kLayers−1).
  void fill_fast_regions(long double V_, long double y1, long double L1_, const long double* Ls,
                         const long double* Rs);
};

namespace detail {
/// The fast-path s interval of a ziggurat layer packed as two floats (lo in bits 0..31, hi in
/// bits 32..63): (lo_s + margin, hi_s − margin), each rounded inwards to a float.
std::uint64_t pack_fast_interval(long double lo_s, long double hi_s, long double margin);
}  // namespace detail

/// χ_d number k of the unit (d ≥ 2; scalar reference, equal to what Kernels::chis computes).
double chi_at(const simd::PhiloxUnit& unit, const ChiZiggurat& z, std::uint64_t k) noexcept;

/// The counter-space address of a (seed, stream, index) unit, for the kernels of vecmath.hpp.
simd::PhiloxUnit make_unit(std::uint64_t seed, StreamId stream, std::uint64_t index) noexcept;
/// The four 32-bit words of Philox block `block` of the unit (scalar Random123 Philox4x32-10).
void philox_block(const simd::PhiloxUnit& unit, std::uint64_t block, std::uint32_t out[4]) noexcept;
/// Draw k's 64-bit word (scalar Philox; the reference the vector kernels are tested against).
std::uint64_t draw_word(const simd::PhiloxUnit& unit, std::uint64_t k) noexcept;
/// Normal number k of the unit (scalar reference; equal to what the kernels compute).
double normal_at(const simd::PhiloxUnit& unit, std::uint64_t k) noexcept;
/// Uniform number k of the unit.
inline double uniform_at(const simd::PhiloxUnit& unit, std::uint64_t k) noexcept {
  return to_open_unit(draw_word(unit, k));
}

/// A sequential reader of the draws of one (seed, stream, index) unit: the n-th call of normal()
/// or uniform() (counting both) reads draw n. Bulk reads (normals, uniforms) run the active
/// vector kernel on whole groups of 16.
class Stream {
 public:
  Stream(std::uint64_t seed, StreamId stream, std::uint64_t index) noexcept
      : unit_(make_unit(seed, stream, index)) {}

  /// Next standard normal N(0, 1).
  double normal() noexcept { return next(kNormal); }
  /// Next uniform in (0, 1).
  double uniform() noexcept { return next(kUniform); }
  /// Fill out[0..n) with the next n normals (the same numbers as n calls of normal()).
  void normals(double* out, std::size_t n) noexcept { fill(out, n, kNormal); }
  /// Fill out[0..n) with the next n uniforms.
  void uniforms(double* out, std::size_t n) noexcept { fill(out, n, kUniform); }
  /// Number of draws read so far.
  std::uint64_t position() const noexcept { return k_; }
  const simd::PhiloxUnit& unit() const noexcept { return unit_; }

 private:
  enum Kind { kNormal = 0, kUniform = 1 };

  void load(std::uint64_t g, Kind kind) noexcept {
    const simd::Kernels& kern = simd::kernels();
    (kind == kNormal ? kern.normals : kern.uniforms)(unit_, g, 1, buf_);
    group_ = g;
    kind_ = kind;
  }
  double next(Kind kind) noexcept {
    const std::uint64_t g = k_ >> 4;
    if (g != group_ || kind != kind_) load(g, kind);
    return buf_[k_++ & 15];
  }
  void fill(double* out, std::size_t n, Kind kind) noexcept {
    while (n > 0) {
      if ((k_ & 15) == 0 && n >= 16) {
        const std::size_t ng = n / 16;
        const simd::Kernels& kern = simd::kernels();
        (kind == kNormal ? kern.normals : kern.uniforms)(unit_, k_ >> 4, ng, out);
        k_ += 16 * ng;
        out += 16 * ng;
        n -= 16 * ng;
        continue;
      }
      *out++ = next(kind);
      --n;
    }
  }

  simd::PhiloxUnit unit_;
  std::uint64_t k_ = 0;
  std::uint64_t group_ = ~std::uint64_t{0};
  Kind kind_ = kNormal;
  double buf_[16] = {};
};

}  // namespace ropelab::rng
