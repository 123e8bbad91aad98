// ropelab._core.simd: the SIMD path of the Monte-Carlo kernels and a benchmarking hook
// (core: cpp/include/ropelab/vecmath.hpp, montecarlo.hpp run_primitive).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::bind {

namespace {

simd::Isa isa_arg(py::handle obj, const char* func) {
  const std::string name = py::isinstance<py::str>(obj) ? obj.cast<std::string>() : std::string();
  const std::vector<std::string>& isas = simd::isa_names();
  for (std::size_t i = 0; i < isas.size(); ++i) {
    if (name == isas[i]) {
      const auto isa = static_cast<simd::Isa>(i);
      if (!simd::supported(isa)) value_error(func, "isa", "is not supported by this CPU", obj);
      return isa;
    }
  }
  value_error(func, "isa", "must be " + names::quoted_list(isas), obj);
}

double primitive(Choice kind_o, IntLike n_o, OptionalInt nthreads_o) {
  const char* f = "simd.run_primitive";
  const std::string kind = string_arg(kind_o, f, "kind");
  const std::vector<std::string>& kinds = mc::primitive_names();
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    value_error(f, "kind", "must be " + names::quoted_list(kinds), kind_o);
  }
  const auto n = static_cast<std::uint64_t>(integer(n_o, f, "n", 1));
  const int nthreads = nthreads_arg(nthreads_o, f);
  // run_primitive keeps one partial sum per unit of 2^16 values (montecarlo.hpp): n near 2^63
  // would ask for petabytes of them
  constexpr double kUnit = 65536.0;
  check_output_size(std::ceil(static_cast<double>(n) / kUnit), f, "n=" + std::to_string(n));
  double out = 0;
  run_interruptible([&](const std::atomic<bool>* cancel) {
    out = mc::run_primitive(kind.c_str(), n, nthreads, cancel);
  });
  return out;
}

}  // namespace

void register_simd(py::module_& m) {
  m.def("isa", [] { return std::string(simd::isa_name(simd::active_isa())); });
  m.def("available", [] {
    std::vector<std::string> out;
    for (auto isa : {simd::Isa::scalar, simd::Isa::avx2, simd::Isa::avx512}) {
      if (simd::supported(isa)) out.emplace_back(simd::isa_name(isa));
    }
    return out;
  });
  m.def(
      "set_isa", [](Choice isa_o) { simd::set_isa(isa_arg(isa_o, "simd.set_isa")); }, "isa"_a);
  m.def("isas", &simd::isa_names);
  m.def("primitives", &mc::primitive_names);
  m.def("run_primitive", &primitive, "kind"_a, "n"_a, "nthreads"_a);
  m.def(
      "default_threads", [] { return mc::resolve_threads(0); },
      "Threads used when nthreads=None: $ROPELAB_NUM_THREADS if set, else all cores.");
}

}  // namespace ropelab::bind
