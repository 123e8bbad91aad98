#pragma once
/// \file batch.hpp
/// Shape helpers shared by the rotary / recurrence / transition bindings: arrays of shape
/// (..., T, d) whose leading "batch" dimensions are looped over, and the one broadcasting rule
/// used for secondary arrays (angles, gates): their batch shape must be a suffix of the
/// primary one (leading 1s ignored), so batch element b uses their element b mod count.

#include <string>
#include <vector>

#include "common.hpp"
#include "ropelab/recurrence.hpp"
#include "ropelab/rotary.hpp"

namespace ropelab::bind {

/// "(2, 3, 4)".
inline std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(a.shape(i));
  }
  if (a.ndim() == 1) s += ",";
  return s + ")";
}

inline std::string shape_str(const std::vector<py::ssize_t>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(v[i]);
  }
  if (v.size() == 1) s += ",";
  return s + ")";
}

/// Leading dimensions: all but the last `core` ones.
inline std::vector<py::ssize_t> lead_shape(const py::array& a, int core) {
  return std::vector<py::ssize_t>(a.shape(), a.shape() + (a.ndim() - core));
}

inline std::size_t product(const std::vector<py::ssize_t>& v) {
  std::size_t p = 1;
  for (auto x : v) p *= static_cast<std::size_t>(x);
  return p;
}

/// A real array with at least `min_ndim` dimensions (ValueError naming its shape otherwise).
inline darray array_min_nd(py::handle obj, const char* func, const char* name, int min_ndim,
                           const std::string& layout_hint) {
  darray a = real_array(obj, func, name);
  if (a.ndim() < min_ndim) {
    value_error(func, name,
                "must have shape " + layout_hint + " (at least " + std::to_string(min_ndim) +
                    " dimensions), has shape " + shape_str(a),
                obj);
  }
  return a;
}

/// Number of batch elements of `secondary` given the primary batch shape: its batch shape (leading
/// 1s dropped) must be a suffix of `primary`. Returns the count n_s (element b uses b mod n_s).
inline std::size_t suffix_batch(const std::vector<py::ssize_t>& primary,
                                const std::vector<py::ssize_t>& secondary, const char* func,
                                const char* name, const char* primary_name, py::handle obj) {
  std::size_t first = 0;
  while (first < secondary.size() && secondary[first] == 1) ++first;
  const std::vector<py::ssize_t> s(secondary.begin() + static_cast<std::ptrdiff_t>(first),
                                   secondary.end());
  bool ok = s.size() <= primary.size();
  for (std::size_t i = 0; ok && i < s.size(); ++i) {
    ok = s[s.size() - 1 - i] == primary[primary.size() - 1 - i];
  }
  if (!ok) {
    value_error(func, name,
                std::string("leading (batch) dimensions must equal the trailing batch dimensions "
                            "of ") +
                    primary_name + " " + shape_str(primary) +
                    " (or be absent), has batch dimensions " + shape_str(secondary),
                obj);
  }
  return product(s);
}

/// Even channel count d ≥ 2 for paired layouts.
inline void require_even(py::ssize_t d, const char* func, const char* name, py::handle obj) {
  if (d < 2 || d % 2 != 0) {
    value_error(
        func, name,
        "must have an even last dimension d >= 2 (channels are rotated in pairs), has d = " +
            std::to_string(d),
        obj);
  }
}

inline rotary::Layout layout_arg(py::handle obj, const char* func) {
  return parse_choice(obj, func, "layout", rotary::parse_layout);
}

/// The one rule of decay gates (Λ_t = diag of decays, recurrence::Gates): the last dimension w of
/// `a` (w = 1 for a 0-d array) must be 1 (one decay per step), d/2 (per pair) or d (per channel),
/// else ValueError "name <shape_rule>, has shape ..."; every value must lie in [0, 1]. Returns w.
/// Callers add their own rules for the leading dimensions.
inline std::size_t gate_width(const darray& a, std::size_t d, const char* func, const char* name,
                              const std::string& shape_rule, py::handle obj) {
  const std::size_t w = a.ndim() == 0 ? 1 : static_cast<std::size_t>(a.shape(a.ndim() - 1));
  if (w != 1 && w != d / 2 && w != d) {
    value_error(func, name, shape_rule + ", has shape " + shape_str(a), obj);
  }
  require_each(a, func, name, "must be decays in [0, 1]",
               [](double x) { return x >= 0.0 && x <= 1.0; });
  return w;
}

/// The core's view of w gate values per step starting at `values` (w = 0: no gate, Λ = I).
inline recurrence::Gates gates_view(const double* values, std::size_t w, std::size_t d) {
  recurrence::Gates g;
  if (w == 0) return g;
  g.values = values;
  g.width = w;
  g.per_channel = w == d && w != 1;
  return g;
}

/// Raise "func: a and b must ..., got shapes X and Y".
[[noreturn]] inline void mismatch(const char* func, const std::string& what, const char* na,
                                  const py::array& a, const char* nb, const py::array& b) {
  throw py::value_error(std::string(func) + ": " + what + ", got " + na + ".shape=" + shape_str(a) +
                        " and " + nb + ".shape=" + shape_str(b));
}

}  // namespace ropelab::bind
