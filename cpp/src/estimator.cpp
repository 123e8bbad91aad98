#include "ropelab/estimator.hpp"

#include <algorithm>
#include <stdexcept>

#include "ropelab/names.hpp"

namespace ropelab {

const std::vector<std::string>& estimator_names() {
  static const std::vector<std::string> names{"trig", "random_phase", "positive", "hyperbolic"};
  return names;
}

std::vector<std::string> estimator_names(const std::vector<Estimator>& subset) {
  std::vector<std::string> out;
  out.reserve(subset.size());
  for (Estimator e : subset) out.push_back(estimator_names()[static_cast<std::size_t>(e)]);
  return out;
}

Estimator parse_estimator(const std::string& name, const std::vector<Estimator>& subset,
                          const char* where) {
  const std::vector<std::string> accepted = estimator_names(subset);
  const auto& all = estimator_names();
  const auto it = std::find(all.begin(), all.end(), name);
  if (it != all.end()) {
    const auto est = static_cast<Estimator>(it - all.begin());
    if (std::find(subset.begin(), subset.end(), est) != subset.end()) return est;
    throw std::invalid_argument("estimator must be " + names::quoted_list(accepted) + " (" + where +
                                " has no '" + name + "' estimator), got '" + name + "'");
  }
  throw std::invalid_argument("estimator must be " + names::quoted_list(accepted) + ", got '" +
                              name + "'");
}

}  // namespace ropelab
