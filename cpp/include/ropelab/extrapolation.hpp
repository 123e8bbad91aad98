#pragma once
/// \file extrapolation.hpp
/// Arithmetic of the RoPE scaling rules that must match another implementation to the bit.

#include <vector>

namespace ropelab::extrapolation {

/// base^e for each float32 exponent e, in float32, as PyTorch's CPU kernels compute a Python
/// scalar raised to a float32 tensor (`base ** exponents`): base rounded to float32, then SLEEF's
/// powf with a 1.0-ulp error bound (Sleef_powf_u10; SLEEF gives the same result in its scalar and
/// vector forms). Not always the correctly rounded power (e.g. 10000^0.8671875: SLEEF
/// 2942.72705, correctly rounded 2942.72729).
std::vector<float> float32_powers(double base, const std::vector<float>& exponents);

}  // namespace ropelab::extrapolation
