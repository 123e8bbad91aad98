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

}  // namespace ropelab::limits
