// ropelab._core.extrapolation: float32 arithmetic of the RoPE scaling rules as PyTorch does it
// (core: cpp/include/ropelab/extrapolation.hpp).
#include <algorithm>
#include <vector>

#include "common.hpp"
#include "ropelab/extrapolation.hpp"

namespace ropelab::bind {

namespace {

/// base ** exponents in float32 (SLEEF's powf, as PyTorch's CPU kernels).
farray float32_powers(FloatLike base_o, ArrayLike exponents_o) {
  const char* f = "extrapolation.float32_powers";
  const double base = real_scalar(base_o, f, "base");
  if (!(base > 0)) value_error(f, "base", "must be > 0", base_o);
  darray e = real_array(exponents_o, f, "exponents");
  if (e.ndim() != 1) value_error(f, "exponents", "must be a 1-D array", exponents_o);
  std::vector<float> ex(static_cast<std::size_t>(e.size()));
  for (std::size_t i = 0; i < ex.size(); ++i) ex[i] = static_cast<float>(e.data()[i]);
  const std::vector<float> p = extrapolation::float32_powers(base, ex);
  farray out(static_cast<py::ssize_t>(p.size()));
  std::copy(p.begin(), p.end(), out.mutable_data());
  return out;
}

}  // namespace

void register_extrapolation(py::module_& m) {
  m.def("float32_powers", &float32_powers, "base"_a, "exponents"_a,
        "base ** exponents in float32 as PyTorch's CPU kernels compute it (SLEEF powf, 1 ulp).");
}

}  // namespace ropelab::bind
