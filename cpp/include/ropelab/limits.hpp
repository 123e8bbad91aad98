#pragma once
/// \file limits.hpp
/// Size limits shared by several parts of the core and the bindings, each defined once here.
/// (The random draws one Monte-Carlo unit may own, 2^40, is rng::kMaxDraws in rng.hpp: it follows
/// from the counter layout described there.)

#include <cstddef>

namespace ropelab::limits {

/// Longest signal or window, in samples: 2^31 − 1. FFTW takes `int` sizes, and the DTFT's exact
/// phase reduction (k·n mod N in 64-bit integers) needs N < 2^31. The window constructor, the
/// spectra and their bindings all check against this one number.
inline constexpr std::size_t kMaxSignalLength = (std::size_t{1} << 31) - 1;

/// Physical memory assumed when the operating system does not report it (2^43 bytes = 8 TiB):
/// outputs larger than physical memory are refused before any allocation.
inline constexpr double kAssumedPhysicalBytes = 0x1.0p43;

/// Largest head dimension d of a rotation (channels are rotated in d/2 pairs): 2^40, so that
/// products of d with a sequence length or a batch stay far inside 64-bit sizes.
inline constexpr std::size_t kMaxHeadDim = std::size_t{1} << 40;

/// Most tokens a synthetic task (ropelab.tasks) generates in one call: 2^31, so that token
/// indices fit a 32-bit int as the models that read them expect.
inline constexpr std::size_t kMaxTaskTokens = std::size_t{1} << 31;

}  // namespace ropelab::limits
