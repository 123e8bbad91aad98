#include "ropelab/extrapolation.hpp"

#include <sleef.h>

namespace ropelab::extrapolation {

std::vector<float> float32_powers(double base, const std::vector<float>& exponents) {
  const auto b = static_cast<float>(base);
  std::vector<float> out(exponents.size());
  for (std::size_t i = 0; i < exponents.size(); ++i) out[i] = Sleef_powf_u10(b, exponents[i]);
  return out;
}

}  // namespace ropelab::extrapolation
