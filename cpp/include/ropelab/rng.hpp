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
/// Normals use the Box–Muller transform on pairs of open-interval uniforms: deterministic (no
/// rejection), so the k-th normal of a unit always comes from the same counter block.

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

/// A sequential reader of the numbers owned by one (seed, stream, index) unit.
class Stream {
 public:
  using Gen = r123::Philox4x64;

  Stream(std::uint64_t seed, StreamId stream, std::uint64_t index) noexcept
      : key_{{seed, static_cast<std::uint64_t>(stream)}}, ctr_{{index, 0, 0, 0}} {}

  /// Next four raw 64-bit words (the next counter block).
  std::array<std::uint64_t, 4> next_block() noexcept {
    Gen::ctr_type out = gen_(ctr_, key_);
    ++ctr_.v[1];
    return {out.v[0], out.v[1], out.v[2], out.v[3]};
  }

  /// Next uniform in (0, 1).
  double uniform() noexcept {
    if (upos_ == 4) {
      ublock_ = next_block();
      upos_ = 0;
    }
    return to_open_unit(ublock_[upos_++]);
  }

  /// Next standard normal N(0, 1).
  double normal() noexcept {
    if (npos_ == 4) refill_normals();
    return nbuf_[npos_++];
  }

  /// Fill out[0..n) with standard normals (the same numbers as n calls of normal()).
  void normals(double* out, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) out[i] = normal();
  }

 private:
  void refill_normals() noexcept {
    const auto w = next_block();
    box_muller(w[0], w[1], nbuf_[0], nbuf_[1]);
    box_muller(w[2], w[3], nbuf_[2], nbuf_[3]);
    npos_ = 0;
  }

  static void box_muller(std::uint64_t a, std::uint64_t b, double& z0, double& z1) noexcept {
    constexpr double two_pi = 6.283185307179586476925286766559;
    const double r = std::sqrt(-2.0 * std::log(to_open_unit(a)));
    const double t = two_pi * to_open_unit(b);
    z0 = r * std::cos(t);
    z1 = r * std::sin(t);
  }

  Gen gen_;
  Gen::key_type key_;
  Gen::ctr_type ctr_;
  std::array<std::uint64_t, 4> ublock_{};
  int upos_ = 4;
  std::array<double, 4> nbuf_{};
  int npos_ = 4;
};

}  // namespace ropelab::rng
