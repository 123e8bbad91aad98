#include "ropelab/rng.hpp"

#include <cmath>

namespace ropelab::rng {

namespace {

using Gen = r123::Philox4x32;

Gen::key_type key_of(const simd::PhiloxUnit& u) noexcept { return {{u.key[0], u.key[1]}}; }

/// The words of draw k's private sub-stream (rng.hpp), read in order.
class SubStream {
 public:
  SubStream(const simd::PhiloxUnit& u, std::uint64_t k, const std::uint32_t* first) noexcept
      : key_(key_of(u)),
        ctr_{{static_cast<std::uint32_t>(k),
              0x80000000u | u.c1_base | static_cast<std::uint32_t>((k >> 32) & 0xFFFFu), u.c2,
              u.c3}} {
    if (first != nullptr) {  // block j = 0, computed by the caller
      for (int i = 0; i < 4; ++i) block_.v[i] = first[i];
      j_ = 1;
      pos_ = 0;
    }
  }
  std::uint64_t word() noexcept {
    if (pos_ == 2) {
      // call j lives in bits 16..23 of counter word 1 (wrapping after 256 calls)
      Gen::ctr_type c = ctr_;
      c.v[1] |= (j_ & 0xFFu) << 16;
      block_ = Gen()(c, key_);
      ++j_;
      pos_ = 0;
    }
    const std::uint64_t w = static_cast<std::uint64_t>(block_.v[2 * pos_ + 1]) << 32 |
                            block_.v[2 * pos_];
    ++pos_;
    return w;
  }
  double uniform() noexcept { return to_open_unit(word()); }

 private:
  Gen::key_type key_;
  Gen::ctr_type ctr_;
  Gen::ctr_type block_{};
  std::uint32_t j_ = 0;
  int pos_ = 2;
};

/// Marsaglia's exact sampler of the normal tail beyond R.
double tail(SubStream& s, bool negative) noexcept {
  double x = 0, y = 0;
  do {
    x = std::log(s.uniform()) / ZigguratTables::kR;
    y = std::log(s.uniform());
  } while (-2.0 * y < x * x);
  return negative ? x - ZigguratTables::kR : ZigguratTables::kR - x;
}

/// The ziggurat after draw k's fast path failed with (v, layer).
double slow_normal(const simd::PhiloxUnit& unit, std::uint64_t k, double v, unsigned layer,
                   const std::uint32_t* first) noexcept {
  const ZigguratTables& z = ZigguratTables::get();
  SubStream s(unit, k, first);
  for (;;) {
    if (std::fabs(v) < z.r[layer]) return v * z.x[layer];  // inside the layer's rectangle
    if (layer == 0) return tail(s, v < 0);
    // the wedge between the rectangle and the density: a uniform point of the layer's strip at
    // x lies under the density iff f(x[i+1]) + u (f(x[i]) − f(x[i+1])) < exp(−x²/2)
    const double x = v * z.x[layer];
    const double f0 = z.f[layer], f1 = z.f[layer + 1];
    if (f1 + s.uniform() * (f0 - f1) < std::exp(-0.5 * x * x)) return x;
    const std::uint64_t w = s.word();
    v = to_open_signed_unit(w);
    layer = static_cast<unsigned>(w & 0xFF);
  }
}

}  // namespace

simd::PhiloxUnit make_unit(std::uint64_t seed, StreamId stream, std::uint64_t index) noexcept {
  const ZigguratTables& z = ZigguratTables::get();
  simd::PhiloxUnit u{};
  u.key[0] = static_cast<std::uint32_t>(seed);
  u.key[1] = static_cast<std::uint32_t>(seed >> 32);
  u.c1_base = (static_cast<std::uint32_t>(stream) & 0x7Fu) << 24;
  u.c2 = static_cast<std::uint32_t>(index);
  u.c3 = static_cast<std::uint32_t>(index >> 32);
  u.zig_x = z.x;
  u.zig_r = z.r;
  u.slow_normal = &slow_normal;
  return u;
}

void philox_block(const simd::PhiloxUnit& unit, std::uint64_t block, std::uint32_t out[4]) noexcept {
  const Gen::ctr_type c{{static_cast<std::uint32_t>(block),
                         unit.c1_base | static_cast<std::uint32_t>((block >> 32) & 0xFFFFu),
                         unit.c2, unit.c3}};
  const Gen::ctr_type r = Gen()(c, key_of(unit));
  for (int i = 0; i < 4; ++i) out[i] = r.v[i];
}

std::uint64_t draw_word(const simd::PhiloxUnit& unit, std::uint64_t k) noexcept {
  const std::uint64_t g = k >> 4;
  const unsigned r = static_cast<unsigned>(k & 15), h = r >> 3, l = r & 7;
  std::uint32_t x[4];
  philox_block(unit, 8 * g + l, x);
  return static_cast<std::uint64_t>(x[2 * h + 1]) << 32 | x[2 * h];
}

double normal_at(const simd::PhiloxUnit& unit, std::uint64_t k) noexcept {
  const std::uint64_t w = draw_word(unit, k);
  const double v = to_open_signed_unit(w);
  const auto layer = static_cast<unsigned>(w & 0xFF);
  if (std::fabs(v) < unit.zig_r[layer]) return v * unit.zig_x[layer];
  return unit.slow_normal(unit, k, v, layer, nullptr);
}

}  // namespace ropelab::rng
