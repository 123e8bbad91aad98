// The extension module: one submodule per topic, each registered by its own bind_<topic>.cpp.
#include "common.hpp"
#include "result_class.hpp"
#include "ropelab/estimator.hpp"
#include "ropelab/limits.hpp"
#include "ropelab/rng.hpp"

#ifndef ROPELAB_VERSION
#define ROPELAB_VERSION "dev"
#endif
#ifndef ROPELAB_GIT_COMMIT
#define ROPELAB_GIT_COMMIT ""
#endif

namespace ropelab::bind {
void register_selective(py::module_& m);      // bind_selective.cpp
void register_extrapolation(py::module_& m);  // bind_extrapolation.cpp
void register_sweep(py::module_& m);          // bind_sweep.cpp
}  // namespace ropelab::bind

PYBIND11_MODULE(_core, m) {
  m.doc() = "ropelab's compiled core (use the typed wrappers in ropelab.* instead)";
  m.attr("__version__") = ROPELAB_VERSION;
  // A function, not an attribute, so that the generated stubs do not change with every commit.
  m.def(
      "git_commit", [] { return std::string(ROPELAB_GIT_COMMIT); },
      "The git commit this build was made from (with '+dirty' for uncommitted changes); empty if "
      "none.");
  // The base of every result class (_core.result.Result), before the submodules that declare
  // them. A submodule of its own, so that the stubs of the others import it without a cycle.
  auto result = m.def_submodule("result", "the common base of the result classes");
  ropelab::bind::register_result_base(result);
  // The one enumeration of random-feature estimators; rff and attention each accept a subset.
  m.def(
      "estimators", [] { return ropelab::estimator_names(); },
      "Every random-feature estimator name, in enum order (rff.estimators() and "
      "attention.estimators() are subsets).");
  // The size limits of the core (ropelab/limits.hpp, rng.hpp), read by the Python layer instead of
  // being written again there.
  auto limits = m.def_submodule("limits", "size limits of the core, each defined once");
  limits.attr("max_signal_length") = ropelab::limits::kMaxSignalLength;
  limits.attr("max_head_dim") = ropelab::limits::kMaxHeadDim;
  limits.attr("max_task_tokens") = ropelab::limits::kMaxTaskTokens;
  limits.attr("max_draws") = ropelab::rng::kMaxDraws;
  limits.def("physical_bytes", &ropelab::bind::physical_bytes,
             "The machine's physical memory in bytes: outputs larger than this are refused.");
  auto rff = m.def_submodule("rff", "random-feature estimators of exp(q.k)");
  ropelab::bind::register_rff(rff);
  auto temperature = m.def_submodule("temperature", "temperature rules, optima and spectra");
  ropelab::bind::register_temperature(temperature);
  auto rotary =
      m.def_submodule("rotary", "rotations of channel pairs: RoPE, Selective RoPE angles");
  ropelab::bind::register_rotary(rotary);
  auto recurrence = m.def_submodule("recurrence", "linear-attention recurrences and direct forms");
  ropelab::bind::register_recurrence(recurrence);
  auto transition = m.def_submodule("transition", "effective transitions, norms, Householder");
  ropelab::bind::register_transition(transition);
  auto spectra =
      m.def_submodule("spectra", "windows, FFTW/DTFT spectra, SSM closed forms, figures of merit");
  ropelab::bind::register_spectra(spectra);
  auto simd = m.def_submodule("simd", "SIMD path of the Monte-Carlo kernels; benchmarking hook");
  ropelab::bind::register_simd(simd);
  auto attention = m.def_submodule("attention", "exact and random-feature attention");
  ropelab::bind::register_attention(attention);
  auto selective =
      m.def_submodule("selective", "the released Selective RoPE angle path, streaming");
  ropelab::bind::register_selective(selective);
  auto extrapolation =
      m.def_submodule("extrapolation", "float32 arithmetic of RoPE scaling rules, as PyTorch's");
  ropelab::bind::register_extrapolation(extrapolation);
  auto sweep = m.def_submodule("sweep", "cells of sweep tasks, many in one call");
  ropelab::bind::register_sweep(sweep);
}
