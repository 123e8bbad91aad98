#pragma once
// Helpers shared by the GoogleTest files: seeded normal vectors and element-wise differences.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

namespace ropelab::testing {

constexpr double kEps = std::numeric_limits<double>::epsilon();

inline std::vector<double> normals(std::size_t n, unsigned seed, double scale = 1.0) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g(0.0, scale);
  std::vector<double> v(n);
  for (auto& x : v) x = g(gen);
  return v;
}

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

}  // namespace ropelab::testing
