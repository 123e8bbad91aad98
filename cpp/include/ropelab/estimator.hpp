#pragma once
/// \file estimator.hpp
/// The random-feature estimators of exp(q·k), one enumeration for the whole core. Each module
/// that evaluates them accepts a subset (rff::estimators(): trig, random_phase, positive;
/// attention::estimators(): trig, positive, hyperbolic) and parses names against its subset, so
/// that a name means the same estimator everywhere.

#include <string>
#include <vector>

namespace ropelab {

/// Which per-feature term is averaged:
///   trig          cos/sin features, one per frequency pair (Rahimi & Recht; RoFormer's rotations)
///   random_phase  √2·cos(ω·x + β) with a uniform phase β
///   positive      exp(ω·x − ‖x‖²/2) (Performer's FAVOR+ positive features)
///   hyperbolic    exp(±ω·x − ‖x‖²/2) / √2, the paired positive features
enum class Estimator { trig, random_phase, positive, hyperbolic };

/// Every estimator name, in enum order.
const std::vector<std::string>& estimator_names();

/// The names of `subset`, in the subset's order.
std::vector<std::string> estimator_names(const std::vector<Estimator>& subset);

/// The estimator named `name`, when it is in `subset`. Throws std::invalid_argument naming the
/// accepted names otherwise (and, for an estimator of another module, that `where` does not
/// provide it).
Estimator parse_estimator(const std::string& name, const std::vector<Estimator>& subset,
                          const char* where);

}  // namespace ropelab
