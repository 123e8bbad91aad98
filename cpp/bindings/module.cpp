// The extension module: one submodule per topic, each registered by its own bind_<topic>.cpp.
#include "common.hpp"

#ifndef ROPELAB_VERSION
#define ROPELAB_VERSION "dev"
#endif

PYBIND11_MODULE(_core, m) {
  m.doc() = "ropelab's compiled core (use the typed wrappers in ropelab.* instead)";
  m.attr("__version__") = ROPELAB_VERSION;
  auto rff = m.def_submodule("rff", "random-feature estimators of exp(q.k)");
  ropelab::bind::register_rff(rff);
  auto temperature = m.def_submodule("temperature", "temperature rules, optima and spectra");
  ropelab::bind::register_temperature(temperature);
  auto simd = m.def_submodule("simd", "SIMD path of the Monte-Carlo kernels; benchmarking hook");
  ropelab::bind::register_simd(simd);
}
