#include "ropelab/rng.hpp"

#include <boost/math/special_functions/gamma.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <pthread.h>
#include <stdexcept>

namespace ropelab::rng {

namespace {

using Gen = r123::Philox4x32;

Gen::key_type key_of(const simd::PhiloxUnit& u) noexcept {
  return {{u.key[0], u.key[1]}};
}

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
    const std::uint64_t w =
        static_cast<std::uint64_t>(block_.v[2 * pos_ + 1]) << 32 | block_.v[2 * pos_];
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

/// The fast-path test of a χ ziggurat layer: lo < s < hi with the floats packed in rho.
inline bool chi_fast(const ChiZiggurat& z, unsigned layer, double s) noexcept {
  const std::uint64_t p = z.rho[layer];
  float lo = 0, hi = 0;
  const auto lo32 = static_cast<std::uint32_t>(p), hi32 = static_cast<std::uint32_t>(p >> 32);
  std::memcpy(&lo, &lo32, 4);
  std::memcpy(&hi, &hi32, 4);
  return s > static_cast<double>(lo) && s < static_cast<double>(hi);
}

/// The exact completion of χ draw k (rng.hpp ChiZiggurat) after its fast path failed.
double slow_chi(const simd::PhiloxUnit& unit, const void* self, std::uint64_t k, double s,
                unsigned layer, const std::uint32_t* first) noexcept {
  const ChiZiggurat& z = *static_cast<const ChiZiggurat*>(self);
  SubStream sub(unit, k, first);
  const double log_y1 = std::log(z.y[1]);
  for (;;) {
    const double r = z.c[layer] + s * z.h[layer];
    if (chi_fast(z, layer, s)) return r;
    if (layer == 0) {
      if (r < z.R1) return r;  // the base rectangle
      // A tail, by rejection from the exponential tangent to log f at its end (log-concavity).
      if (sub.uniform() < z.p_right) {
        for (;;) {
          const double t = z.R1 - std::log(sub.uniform()) / z.slope_right;
          if (std::log(sub.uniform()) < z.log_f(t) - (log_y1 - z.slope_right * (t - z.R1)))
            return t;
        }
      }
      for (;;) {
        const double t = z.L1 + std::log(sub.uniform()) / z.slope_left;
        if (t > 0 && std::log(sub.uniform()) < z.log_f(t) - (log_y1 + z.slope_left * (t - z.L1))) {
          return t;
        }
      }
    }
    // the wedge: a uniform height in the box, under the density?
    const double y = z.y[layer] + sub.uniform() * (z.y[layer + 1] - z.y[layer]);
    if (std::log(y) < z.log_f(r)) return r;
    const std::uint64_t w = sub.word();
    s = to_open_signed_unit(w);
    layer = static_cast<unsigned>(w & (ChiZiggurat::kLayers - 1));
  }
}

/// log f and its derivative in extended precision, f(m) = 1.
struct LogDensity {
  long double dm1, m;
  long double operator()(long double r) const {
    return dm1 * std::log(r / m) - 0.5L * (r - m) * (r + m);
  }
  long double slope(long double r) const { return dm1 / r - r; }
};

/// r with log f(r) = ly (≤ 0) on the rising (left) or falling (right) side of the mode, by
/// Newton's method from `start`, a point on that side with log f(start) ≤ ly. log f is concave in
/// r, and on the left side also in log r (where Newton runs, as log f ~ (d−1) log r near 0), so
/// the iterates approach the root monotonically from the outside.
long double level(const LogDensity& f, long double ly, bool right, long double start) {
  if (ly >= 0) return f.m;
  if (right) {
    long double r = start;
    for (int it = 0; it < 200; ++it) {
      long double next = r - (f(r) - ly) / f.slope(r);
      if (!(next > f.m)) next = 0.5L * (r + f.m);  // safeguard (rounding near the mode)
      if (std::fabs(next - r) <= 1e-18L * r) return next;
      r = next;
    }
    return r;
  }
  long double rho = std::log(start);
  const long double log_m = std::log(f.m);
  for (int it = 0; it < 200; ++it) {
    const long double r = std::exp(rho);
    long double next = rho - (f(r) - ly) / (f.dm1 - r * r);
    if (!(next < log_m)) next = 0.5L * (rho + log_m);
    if (std::fabs(next - rho) <= 1e-18L * (1 + std::fabs(rho))) return std::exp(next);
    rho = next;
  }
  return std::exp(rho);
}

/// A start for level() outside the root: log f ≤ −(r − m)²/2 (log f'' ≤ −1), so the root lies
/// within √(−2 ly) of the mode; on the left side halve until log f ≤ ly.
long double outside(const LogDensity& f, long double ly, bool right) {
  const long double w = std::sqrt(-2 * ly);
  if (right) return f.m + w;
  long double lo = std::max(f.m - w, f.m * 1e-300L);
  while (f(lo) > ly) lo *= 0.5L;
  return lo;
}

}  // namespace

namespace detail {

std::uint64_t pack_fast_interval(long double lo_s, long double hi_s, long double margin) {
  // s in (lo, hi) ⇒ r = c + s h (rounded) in the fast region: the bounds rounded inwards by more
  // than the rounding of r, then to floats.
  float lo_f = static_cast<float>(lo_s + margin), hi_f = static_cast<float>(hi_s - margin);
  if (static_cast<long double>(lo_f) < lo_s + margin) lo_f = std::nextafter(lo_f, 2.0f);
  if (static_cast<long double>(hi_f) > hi_s - margin) hi_f = std::nextafter(hi_f, -2.0f);
  std::uint32_t l32 = 0, h32 = 0;
  std::memcpy(&l32, &lo_f, 4);
  std::memcpy(&h32, &hi_f, 4);
  return static_cast<std::uint64_t>(h32) << 32 | l32;
}

}  // namespace detail

ChiZiggurat::ChiZiggurat(std::size_t d_) : d(d_) {
  if (d < 2) throw std::invalid_argument("ChiZiggurat needs d >= 2");
  const long double dm1 = static_cast<long double>(d) - 1, mm = std::sqrt(dm1);
  const LogDensity f{dm1, mm};
  m = static_cast<double>(mm);
  // ∫_0^∞ f = 2^{d/2−1} Γ(d/2) m^{−(d−1)} e^{m²/2}; the tails through the regularized Γ.
  const long double a = 0.5L * static_cast<long double>(d);
  const long double log_mass =
      (a - 1) * std::log(2.0L) + std::lgamma(a) - dm1 * std::log(mm) + 0.5L * dm1;
  const long double mass = std::exp(log_mass);
  struct Base {
    long double y1, L1, R1, TL, TR, V;
  };
  const auto base = [&](long double y1) {
    const long double ly = std::log(y1);
    Base b{y1,
           level(f, ly, false, outside(f, ly, false)),
           level(f, ly, true, outside(f, ly, true)),
           0,
           0,
           0};
    b.TL = mass * boost::math::gamma_p(a, 0.5L * b.L1 * b.L1);
    b.TR = mass * boost::math::gamma_q(a, 0.5L * b.R1 * b.R1);
    b.V = y1 * (b.R1 - b.L1) + b.TL + b.TR;
    return b;
  };
  // y_{i+1} = y_i + V / (R_i − L_i): the top y_N, N = kLayers (∞ when the layers reach the mode
  // early).
  std::vector<long double> ys(kLayers + 1), Ls(kLayers + 1), Rs(kLayers + 1);
  const auto top = [&](const Base& b) {
    ys[1] = b.y1;
    Ls[1] = b.L1;
    Rs[1] = b.R1;
    for (int i = 1; i < kLayers; ++i) {
      ys[i + 1] = ys[i] + b.V / (Rs[i] - Ls[i]);
      if (i + 1 < kLayers) {
        if (ys[i + 1] >= 1) return std::numeric_limits<long double>::infinity();
        const long double ly = std::log(ys[i + 1]);
        Ls[i + 1] = level(f, ly, false, Ls[i]);  // the level sets shrink towards the mode
        Rs[i + 1] = level(f, ly, true, Rs[i]);
      }
    }
    return ys[kLayers];
  };
  // The smallest y_1 whose layers cover the mode (y_N ≥ 1), by bisection on log y_1.
  long double lo = std::log(1e-30L), hi = std::log(0.5L);
  if (!(top(base(std::exp(hi))) >= 1)) throw std::logic_error("ChiZiggurat: no base level found");
  for (int it = 0; it < 200 && hi - lo > 1e-12L * std::fabs(hi); ++it) {
    const long double mid = 0.5L * (lo + hi);
    (top(base(std::exp(mid))) >= 1 ? hi : lo) = mid;
  }
  const Base b = base(std::exp(hi));
  top(b);  // fills ys, Ls, Rs for the final y_1
  V = static_cast<double>(b.V);
  L1 = static_cast<double>(b.L1);
  R1 = static_cast<double>(b.R1);
  p_right = static_cast<double>(b.TR / (b.TL + b.TR));
  slope_left = static_cast<double>(f.slope(b.L1));
  slope_right = static_cast<double>(-f.slope(b.R1));
  y[0] = 0;
  for (int i = 1; i <= kLayers; ++i) y[i] = static_cast<double>(ys[i]);
  fill_fast_regions(b.V, b.y1, b.L1, Ls.data(), Rs.data());
}

void ChiZiggurat::fill_fast_regions(long double V_, long double y1, long double L1_,
                                    const long double* Ls, const long double* Rs) {
  for (int i = 0; i < kLayers; ++i) {
    long double ci = 0, hi_w = 0;
    if (i == 0) {
      hi_w = V_ / (2 * y1);
      ci = L1_ + hi_w;
    } else {
      ci = 0.5L * (Ls[i] + Rs[i]);
      hi_w = 0.5L * (Rs[i] - Ls[i]);
    }
    c[i] = static_cast<double>(ci);
    h[i] = static_cast<double>(hi_w);
    const long double margin = 0x1.0p-50L * (std::fabs(ci) + hi_w) / hi_w;
    const long double cd = c[i], hd = h[i];
    if (i == 0) {
      rho[i] = detail::pack_fast_interval(-1.0L, (Rs[1] - cd) / hd, margin);
      std::uint32_t l32 = 0;
      const float m1 = -1.0f;  // s > −1 always: the base's fast region starts at L_1
      std::memcpy(&l32, &m1, 4);
      rho[i] = (rho[i] & 0xFFFFFFFF00000000ull) | l32;
    } else if (i + 1 < kLayers) {
      rho[i] = detail::pack_fast_interval((Ls[i + 1] - cd) / hd, (Rs[i + 1] - cd) / hd, margin);
    } else {
      rho[i] = detail::pack_fast_interval(1.0L, -1.0L, 0);  // the top box: no fast region
    }
  }
}

double ChiZiggurat::log_f(double r) const {
  return static_cast<double>(d - 1) * std::log(r / m) - 0.5 * (r - m) * (r + m);
}

simd::ChiTables ChiZiggurat::tables() const {
  return {c, h, rho, this, &slow_chi};
}

namespace {

/// The chi-ziggurat cache and its lock; never destroyed, so a thread still sampling while the
/// process exits meets neither a destroyed mutex nor a destroyed map.
std::mutex& chi_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

/// Fork safety: the lock is held across fork() and released in the parent and in the child, so a
/// child never inherits it held by a thread that does not exist there.
[[maybe_unused]] const int chi_atfork_registered = [] {
  return pthread_atfork([] { chi_mutex().lock(); }, [] { chi_mutex().unlock(); },
                        [] { chi_mutex().unlock(); });
}();

}  // namespace

const ChiZiggurat& ChiZiggurat::get(std::size_t d) {
  static auto* cache = new std::map<std::size_t, std::unique_ptr<const ChiZiggurat>>;
  const std::lock_guard<std::mutex> lock(chi_mutex());
  auto& entry = (*cache)[d];
  if (!entry) entry = std::make_unique<const ChiZiggurat>(d);
  return *entry;
}

double chi_at(const simd::PhiloxUnit& unit, const ChiZiggurat& z, std::uint64_t k) noexcept {
  const std::uint64_t w = draw_word(unit, k);
  const double s = to_open_signed_unit(w);
  const auto layer = static_cast<unsigned>(w & (ChiZiggurat::kLayers - 1));
  if (chi_fast(z, layer, s)) return z.c[layer] + s * z.h[layer];
  return slow_chi(unit, &z, k, s, layer, nullptr);
}

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

void philox_block(const simd::PhiloxUnit& unit, std::uint64_t block,
                  std::uint32_t out[4]) noexcept {
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
