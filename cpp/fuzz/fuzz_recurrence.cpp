// libFuzzer harness: the recurrences of recurrence.hpp (Eq. 3, gated Selective RoPE, the RFF
// recurrence of Eq. 9, ALiBi/FoX/cosFormer, softmax attention) on arbitrary sizes, layouts, modes,
// gates and entries. The harness filters only what the Python bindings reject (non-finite inputs,
// gates outside [0, 1], an odd d for the paired layouts); everything else must run without a
// crash or a sanitizer report, and the parse_* functions must refuse unknown names with
// std::invalid_argument only.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/recurrence.hpp"
#include "ropelab/rotary.hpp"

using ropelab::fuzz::Bytes;

namespace {

template <class Parse>
void parse_any(Parse parse, const std::string& s) {
  try {
    (void)parse(s);
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  using namespace ropelab::recurrence;
  Bytes b{data, size};
  const std::size_t T = 1 + b.take<std::uint8_t>() % 24;
  const std::size_t d = 2 * (1 + b.take<std::uint8_t>() % 4);
  const std::size_t dv = 1 + b.take<std::uint8_t>() % 3;
  const std::size_t D = 1 + b.take<std::uint8_t>() % 6;
  const std::uint8_t flags = b.take<std::uint8_t>();
  const std::uint8_t gate_kind = b.take<std::uint8_t>() % 4;
  const bool raw = (flags & 1) != 0;

  std::vector<double> q(T * d), k(T * d), v(T * dv), angles(T * d / 2), omega(D * d), A(T * d * d);
  for (auto* vec : {&q, &k, &v, &angles, &omega}) {
    for (double& x : *vec) {
      x = b.value(raw);
      if (!std::isfinite(x)) return 0;
    }
  }
  for (double& x : A) x = static_cast<double>(b.take<std::int8_t>()) / 64.0;
  const std::size_t width = gate_kind == 0 ? 0 : gate_kind == 1 ? 1 : gate_kind == 2 ? d / 2 : d;
  std::vector<double> gv(T * (width == 0 ? 1 : width));
  for (double& x : gv) x = static_cast<double>(b.take<std::uint8_t>()) / 255.0;  // decays in [0, 1]
  Gates g;
  if (width > 0) {
    g.values = gv.data();
    g.width = width;
    g.per_channel = width == d && width != 1;
  }
  std::vector<double> gates(T);
  for (double& x : gates) x = static_cast<double>(b.take<std::uint8_t>()) / 255.0;
  const double param = static_cast<double>(b.take<std::uint8_t>()) / 8.0 + 0.125;

  const Sequence s{q.data(), k.data(), v.data(), T, d, dv};
  const auto layout = (flags & 2) ? rotary::Layout::half : rotary::Layout::interleaved;
  std::vector<double> out(T * dv);
  std::vector<std::complex<double>> cout(T * D * dv);
  std::atomic<bool> cancel{false};

  linear_attention(s, (flags & 4) ? A.data() : nullptr,
                   (flags & 8) ? LinearMode::unrolled : LinearMode::recurrent,
                   (flags & 16) ? ProductStart::tau : ProductStart::tau_plus_1, out.data(),
                   &cancel);
  selective_rope_attention(s, angles.data(), g, layout,
                           (flags & 32) ? SelectiveMode::recurrent : SelectiveMode::prerotated,
                           out.data(), &cancel);
  rff_attention(s, omega.data(), D, (flags & 64) ? RffMode::recurrent : RffMode::direct,
                (flags & 128) == 0, cout.data(), &cancel);
  std::vector<std::complex<double>> prod(T * D);
  rff_increment_product(q.data(), T, d, omega.data(), D, flags % T, prod.data());
  for (const Decay kind : {Decay::alibi, Decay::fox, Decay::cosformer}) {
    for (const DecayMode mode : {DecayMode::direct, DecayMode::recurrent}) {
      decayed_attention(s, kind, param, gates.data(), mode, out.data(), &cancel);
    }
  }
  softmax_attention(s, (flags & 4) ? angles.data() : nullptr, layout, param, (flags & 8) != 0,
                    out.data(), &cancel);

  // cancellation: a set flag stops every recurrence with mc::Cancelled (and nothing else)
  cancel = true;
  try {
    linear_attention(s, nullptr, LinearMode::recurrent, ProductStart::tau_plus_1, out.data(),
                     &cancel);
  } catch (const std::exception&) {
  }

  const std::string name(reinterpret_cast<const char*>(b.p), b.n);
  parse_any(parse_linear_mode, name);
  parse_any(parse_product_start, name);
  parse_any(parse_selective_mode, name);
  parse_any(parse_rff_mode, name);
  parse_any(parse_decay, name);
  parse_any(parse_decay_mode, name);
  return 0;
}
