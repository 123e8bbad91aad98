#pragma once
/// \file rng.hpp
/// Counter-based random streams (Philox4x64-10 from Random123) and the normals drawn from them.
///
/// Addressing. Every random number ropelab draws is a pure function of four integers:
///
///     key     = {seed, stream}          seed: the user's `seed=`; stream: which quantity (StreamId)
///     counter = {index, block, 0, 0}    index: the unit that owns the numbers (a Monte-Carlo trial,
///                                       or 0 for a one-off draw such as sample_omega);
///                                       block: 0, 1, 2, ... the successive Philox calls of that unit
///
/// One Philox call yields four 64-bit words, i.e. four uniforms or four standard normals. A trial
/// therefore owns the counter range {index, 0..2^64-1}: its numbers depend only on
/// (seed, stream, index), never on the thread that computes it, the block size, the number of
/// threads or the order of calls. Two different streams (or seeds) are different Philox keys and
/// thus statistically independent sequences.
///
/// A unit's 64-bit words are read in order by one Stream; uniforms take one word, normals use the
/// ziggurat method (Marsaglia & Tsang 2000, in Doornik's 128-layer "ZIGNOR" form): one word per
/// normal in ~98.8% of draws, further words of the *same* unit on rejection. The k-th normal of a
/// unit is therefore still a pure function of (seed, stream, index): rejection changes how many
/// words are consumed, never which unit they belong to.

#include <Random123/philox.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ropelab::rng {

/// The quantity a stream feeds. Distinct ids keep e.g. the frequencies ω and the random phases β
/// of the same trial independent, and keep ω identical whatever the estimator.
enum class StreamId : std::uint64_t {
  omega = 0,      ///< full-mode frequency rows (and their orthogonal-block norms)
  phase = 1,      ///< random phases β of the random-phase estimator
  projected = 2,  ///< scalar / 2-D projections in projected mode
};

/// Uniform in the open interval (0, 1) from the top 52 bits of a 64-bit word: the midpoints
/// (j + ½)·2⁻⁵² are all exactly representable, so neither 0 nor 1 can occur.
inline double to_open_unit(std::uint64_t x) noexcept {
  return (static_cast<double>(x >> 12) + 0.5) * 0x1.0p-52;
}

/// Signed uniform in the open interval (−1, 1) from the top 52 bits of a word: (2j+1)·2⁻⁵² − 1
/// is exactly representable for every j < 2⁵².
inline double to_open_signed_unit(std::uint64_t x) noexcept {
  return static_cast<double>(2 * (x >> 12) + 1) * 0x1.0p-52 - 1.0;
}

/// Tables of the 128-layer normal ziggurat (Doornik 2005, "An improved ziggurat method to
/// generate normal random samples"): layer edges x[i] and ratios r[i] = x[i+1]/x[i].
struct ZigguratTables {
  static constexpr int kLayers = 128;
  static constexpr double kR = 3.442619855899;         ///< start of the tail
  static constexpr double kV = 9.91256303526217e-3;    ///< area of each layer
  double x[kLayers + 1];
  double r[kLayers];
  ZigguratTables() noexcept {
    double f = std::exp(-0.5 * kR * kR);
    x[0] = kV / f;  // the bottom layer is a rectangle of area V: width V / f(R)
    x[1] = kR;
    x[kLayers] = 0.0;
    for (int i = 2; i < kLayers; ++i) {
      x[i] = std::sqrt(-2.0 * std::log(kV / x[i - 1] + f));
      f = std::exp(-0.5 * x[i] * x[i]);
    }
    for (int i = 0; i < kLayers; ++i) r[i] = x[i + 1] / x[i];
  }
  static const ZigguratTables& get() noexcept {
    static const ZigguratTables tables;  // initialised once, thread-safely (C++11 statics)
    return tables;
  }
};

/// A sequential reader of the numbers owned by one (seed, stream, index) unit.
class Stream {
 public:
  using Gen = r123::Philox4x64;

  Stream(std::uint64_t seed, StreamId stream, std::uint64_t index) noexcept
      : key_{{seed, static_cast<std::uint64_t>(stream)}}, ctr_{{index, 0, 0, 0}},
        zig_(ZigguratTables::get()) {}

  /// Next raw 64-bit word of the unit.
  std::uint64_t word() noexcept {
    if (pos_ == 4) {
      block_ = gen_(ctr_, key_);
      ++ctr_.v[1];
      pos_ = 0;
    }
    return block_.v[pos_++];
  }

  /// Next uniform in (0, 1).
  double uniform() noexcept { return to_open_unit(word()); }

  /// Next standard normal N(0, 1) (ziggurat).
  double normal() noexcept {
    for (;;) {
      const std::uint64_t w = word();
      const double u = to_open_signed_unit(w);
      const auto i = static_cast<int>(w & 0x7F);  // bits 0..6: disjoint from u's bits 12..63
      if (std::fabs(u) < zig_.r[i]) return u * zig_.x[i];  // inside the layer's rectangle
      if (i == 0) return tail(u < 0);
      // the wedge between the rectangle and the density
      const double x = u * zig_.x[i];
      const double f0 = std::exp(-0.5 * (zig_.x[i] * zig_.x[i] - x * x));
      const double f1 = std::exp(-0.5 * (zig_.x[i + 1] * zig_.x[i + 1] - x * x));
      if (f1 + uniform() * (f0 - f1) < 1.0) return x;
    }
  }

  /// Fill out[0..n) with standard normals (the same numbers as n calls of normal()).
  void normals(double* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) out[i] = normal();
  }

 private:
  /// Marsaglia's exact sampler of the normal tail beyond R.
  double tail(bool negative) noexcept {
    double x = 0, y = 0;
    do {
      x = std::log(uniform()) / ZigguratTables::kR;
      y = std::log(uniform());
    } while (-2.0 * y < x * x);
    return negative ? x - ZigguratTables::kR : ZigguratTables::kR - x;
  }

  Gen gen_;
  Gen::key_type key_;
  Gen::ctr_type ctr_;
  Gen::ctr_type block_{};
  int pos_ = 4;
  const ZigguratTables& zig_;
};

}  // namespace ropelab::rng
