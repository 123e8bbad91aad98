#pragma once
/// \file names.hpp
/// Enumerations named by strings: each enumeration's names are listed once, in a function
/// returning them in enum order (e.g. rff::estimator_names()); its parse_* function and the
/// bindings' name lists (e.g. _core.rff.estimators()) derive from that list.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace ropelab::names {

/// "'a' or 'b'" / "one of 'a', 'b', 'c'", for an error message.
inline std::string quoted_list(const std::vector<std::string>& names) {
  if (names.size() == 2) return "'" + names[0] + "' or '" + names[1] + "'";
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
  return "one of " + s;
}

/// The enumerator of `name`: E(i) for names[i] (the names are in enum order). Throws
/// std::invalid_argument "<what> must be 'a' or 'b', got 'name'" otherwise.
template <class E>
E parse(const std::vector<std::string>& names, const std::string& name, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  throw std::invalid_argument(std::string(what) + " must be " + quoted_list(names) + ", got '" +
                              name + "'");
}

}  // namespace ropelab::names
