// libFuzzer harness: the delta-rule family of delta.hpp (DeltaNet, gated DeltaNet, DeltaProduct
// with n_h micro-steps, Selective RoPE pre-rotation in both layouts) on arbitrary sizes, betas,
// gates, angles and entries, through delta_rule (1 to 3 threads), delta_rule_rows over a row range
// and delta_transitions. The harness filters only what the Python bindings reject (non-finite
// inputs, gates outside [0, 1], angles with an odd d); everything else must run without a crash or
// a sanitizer report (overflow to inf/NaN is the binding's to report), the thread count must not
// change a bit, and a set cancel flag must stop the recurrences with mc::Cancelled only.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/delta.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/rotary.hpp"

using ropelab::fuzz::Bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  using namespace ropelab::recurrence;
  Bytes b{data, size};
  const std::size_t T = b.take<std::uint8_t>() % 40;  // T = 0 included
  const std::size_t n_h = 1 + b.take<std::uint8_t>() % 3;
  const std::uint8_t flags = b.take<std::uint8_t>();
  const bool raw = (flags & 1) != 0;
  const bool with_angles = (flags & 2) != 0;
  const bool with_gates = (flags & 4) != 0;
  const std::size_t d =
      with_angles ? 2 * (1 + b.take<std::uint8_t>() % 4) : 1 + b.take<std::uint8_t>() % 8;
  const std::size_t dv = 1 + b.take<std::uint8_t>() % 20;  // > 8: several row panels

  std::vector<double> q(T * d), k(T * n_h * d), v(T * n_h * dv), beta(T * n_h), angles(T * d / 2);
  for (auto* vec : {&q, &k, &v, &beta, &angles}) {
    for (double& x : *vec) {
      x = b.value(raw);
      if (!std::isfinite(x)) return 0;
    }
  }
  std::vector<double> gates(T);
  for (double& x : gates) x = static_cast<double>(b.take<std::uint8_t>()) / 255.0;  // in [0, 1]

  const DeltaSequence s{q.data(),
                        k.data(),
                        v.data(),
                        beta.data(),
                        with_angles ? angles.data() : nullptr,
                        with_gates ? gates.data() : nullptr,
                        T,
                        n_h,
                        d,
                        dv};
  const auto layout = (flags & 8) ? rotary::Layout::half : rotary::Layout::interleaved;
  std::atomic<bool> cancel{false};

  std::vector<double> one(T * dv), many(T * dv);
  delta_rule(s, layout, one.data(), &cancel, 1);
  delta_rule(s, layout, many.data(), &cancel, 1 + static_cast<int>((flags >> 4) % 3));
  // bit-identical for every thread count (NaN included: compare the bits)
  if (!one.empty() && std::memcmp(one.data(), many.data(), one.size() * sizeof(double)) != 0) {
    __builtin_trap();
  }

  const std::size_t blocks = 1 + (flags >> 6);
  for (std::size_t i = 0; i < blocks; ++i) {
    const RowRange r = delta_row_range(dv, blocks, i);
    std::vector<double> rows(T * dv, 0.0);
    delta_rule_rows(s, layout, r.begin, r.end, rows.data(), &cancel);
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t c = r.begin; c < r.end; ++c) {
        if (std::memcmp(&rows[t * dv + c], &one[t * dv + c], sizeof(double)) != 0) __builtin_trap();
      }
    }
  }
  try {  // a range outside [0, dv) is refused with std::invalid_argument only
    std::vector<double> rows(T * dv);
    delta_rule_rows(s, layout, dv, dv + 1 + (flags & 3), rows.data(), &cancel);
  } catch (const std::invalid_argument&) {
  }
  (void)delta_row_blocks(1 + (flags & 7), dv, 1 + (flags >> 5));

  std::vector<double> A(T * d * d);
  delta_transitions(s, layout, A.data(), &cancel);

  cancel = true;  // a set flag stops both with mc::Cancelled (or they finish first: T small)
  try {
    delta_rule(s, layout, one.data(), &cancel, 1);
  } catch (const mc::Cancelled&) {
  }
  try {
    delta_transitions(s, layout, A.data(), &cancel);
  } catch (const mc::Cancelled&) {
  }
  return 0;
}
