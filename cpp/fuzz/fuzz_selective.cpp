// libFuzzer harness: the Selective RoPE angle path (selective.hpp) with arbitrary sizes (model
// width, heads, pairs, rank, convolution taps or skip_conv), SiLU, bias, per-head or per-channel
// gates (one or two linear layers), float64 or float32 accumulation, conv cache and offset states,
// weights and hidden states. The harness filters only what the Python bindings reject (non-finite
// values, inconsistent shapes, eps < 0); everything else must run without a crash or a sanitizer
// report, throwing at most std::invalid_argument (a non-finite result: exp(b) or the sum
// overflowing) or mc::Cancelled (a set cancel flag). A call split in two must continue the state:
// the angles of the second half equal those of one call over both halves (float64, with a cache).
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/selective.hpp"

using ropelab::fuzz::Bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  namespace sl = ropelab::selective;
  Bytes b{data, size};
  const std::uint8_t flags = b.take<std::uint8_t>();
  const std::uint8_t more = b.take<std::uint8_t>();
  const bool raw = (flags & 1) != 0;
  sl::Config cfg;
  cfg.heads = 1 + b.take<std::uint8_t>() % 3;
  cfg.model_dim = cfg.heads * (1 + b.take<std::uint8_t>() % 4);
  cfg.pairs = 1 + b.take<std::uint8_t>() % 3;
  cfg.rank = 1 + b.take<std::uint8_t>() % 4;
  cfg.taps = b.take<std::uint8_t>() % 5;  // 0: skip_conv
  cfg.silu = (flags & 2) != 0;
  cfg.has_bias = (flags & 4) != 0;
  const std::size_t C = cfg.channels();
  cfg.gate_out = (flags & 8) == 0 ? 0 : (flags & 16) ? C : cfg.heads;
  cfg.gate_rank = cfg.gate_out > 0 && (flags & 32) ? 1 + more % 3 : 0;
  cfg.eps = static_cast<double>(b.take<std::uint8_t>()) / 64.0;
  cfg.float32 = (flags & 64) != 0;
  const bool diff_from_zero = cfg.taps == 0 && (flags & 128) != 0;
  const std::size_t batch = 1 + (more >> 2) % 2;
  const std::size_t T = b.take<std::uint8_t>() % 40;
  const std::size_t W = cfg.cache_width();

  std::vector<double> down(cfg.rank * cfg.model_dim), up(C * cfg.rank), conv(C * cfg.taps),
      bias(cfg.has_bias ? C : 0), gdown(cfg.gate_rank * cfg.model_dim),
      gup(cfg.gate_out * (cfg.gate_rank > 0 ? cfg.gate_rank : cfg.model_dim)), gbias(cfg.gate_out),
      theta(cfg.pairs), hidden(batch * T * cfg.model_dim), cache(batch * C * W), offset(batch * C);
  for (auto* vec :
       {&down, &up, &conv, &bias, &gdown, &gup, &gbias, &theta, &hidden, &cache, &offset}) {
    for (double& x : *vec) {
      x = b.value(raw);
      if (!std::isfinite(x)) return 0;
    }
  }
  sl::Weights w;
  w.down = down.data();
  w.up = up.data();
  w.conv = cfg.taps > 0 ? conv.data() : nullptr;
  w.bias = cfg.has_bias ? bias.data() : nullptr;
  w.gate_down = cfg.gate_rank > 0 ? gdown.data() : nullptr;
  w.gate_up = cfg.gate_out > 0 ? gup.data() : nullptr;
  w.gate_bias = cfg.gate_out > 0 ? gbias.data() : nullptr;
  w.theta = theta.data();

  std::atomic<bool> cancel{false};
  std::vector<double> c1(cache), o1(offset), psi(batch * T * C);
  try {
    sl::angles(cfg, w, hidden.data(), batch, T, c1.data(), o1.data(), diff_from_zero, psi.data(),
               &cancel);
  } catch (const std::invalid_argument&) {
    return 0;  // a non-finite result (documented)
  }

  // In two calls (float64, batch 1, the state carried): the second half's angles are the same.
  if (!cfg.float32 && batch == 1 && T >= 2 && !diff_from_zero) {
    const std::size_t h = T / 2;
    std::vector<double> c2(cache), o2(offset), a(h * C), bb((T - h) * C);
    sl::angles(cfg, w, hidden.data(), 1, h, c2.data(), o2.data(), false, a.data(), &cancel);
    sl::angles(cfg, w, hidden.data() + h * cfg.model_dim, 1, T - h, c2.data(), o2.data(), false,
               bb.data(), &cancel);
    if ((!a.empty() && std::memcmp(a.data(), psi.data(), a.size() * sizeof(double)) != 0) ||
        std::memcmp(bb.data(), psi.data() + h * C, bb.size() * sizeof(double)) != 0) {
      __builtin_trap();
    }
  }

  cancel = true;
  try {
    sl::angles(cfg, w, hidden.data(), batch, T, c1.data(), o1.data(), diff_from_zero, psi.data(),
               &cancel);
  } catch (const mc::Cancelled&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
