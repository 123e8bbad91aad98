// libFuzzer harness: spectra::figures_of_merit (and leakage_map) on arbitrary windows. The bytes
// choose N, pad and the samples (any finite doubles: huge, tiny, subnormal, negative, sign
// changes); the harness only filters what the Python binding rejects (empty or non-finite input),
// and checks that the documented error (std::invalid_argument for a zero sum or a window that is
// not lowpass) is the only exception and that the scale-invariant figures are finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/spectrum.hpp"

using ropelab::fuzz::Bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  Bytes b{data, size};
  const std::size_t N = 1 + b.take<std::uint8_t>() % 200;
  const std::size_t pad = 1 + b.take<std::uint8_t>() % 16;
  const std::uint8_t mode = b.take<std::uint8_t>();
  std::vector<double> w(N);
  for (std::size_t i = 0; i < N; ++i) {
    if (mode & 1) {
      w[i] = b.take<double>();  // raw bit patterns
    } else {
      w[i] = static_cast<double>(b.take<std::int8_t>()) / 16.0;  // small values: real windows
    }
    if (!std::isfinite(w[i])) return 0;
  }
  try {
    const spectra::FiguresOfMerit r = spectra::figures_of_merit(w.data(), N, pad);
    // valid input gives finite scale-free figures (a NaN here would be a silent wrong value)
    if (!std::isfinite(r.enbw_bins) || !std::isfinite(r.coherent_gain) || !(r.enbw_bins > 0))
      std::abort();
  } catch (const std::invalid_argument&) {
    // zero sum, or not a lowpass window: the documented refusals
  }
  if (mode & 2) {
    const std::size_t Nm = N < 2 ? 2 : N;
    const double alpha[2] = {static_cast<double>(mode >> 4) / static_cast<double>(Nm),
                             0.5 / static_cast<double>(Nm)};  // per sample: α·N = mode >> 4 and 0.5
    const double omega[2] = {w[0] / 16.0, 0.25};
    if (std::isfinite(omega[0]) && std::fabs(omega[0]) < 1e6) {
      try {
        (void)spectra::leakage_map(alpha, 2, omega, 2, Nm, pad);
      } catch (const std::invalid_argument&) {
      }
    }
  }
  return 0;
}
