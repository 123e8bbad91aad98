// GoogleTest unit tests of the transition core (cpp/include/ropelab/transition.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "ropelab/recurrence.hpp"
#include "ropelab/transition.hpp"

#include "test_util.hpp"

using namespace ropelab;

using ropelab::testing::kEps;
using ropelab::testing::max_abs_diff;
using ropelab::testing::normals;

TEST(Transition, EffectiveNormEqualsGateNorm) {
  const std::size_t d = 6;
  const auto pp = normals(d / 2, 1, 2.0), pt = normals(d / 2, 2, 2.0);
  std::vector<double> g = {0.9, 0.2, 0.5, 0.7, 0.3, 0.1};
  recurrence::Gates gates{g.data(), d, true};
  std::vector<double> A(d * d);
  transition::effective(pp.data(), pt.data(), gates, d, rotary::Layout::interleaved, A.data());
  EXPECT_NEAR(transition::spectral_norm(A.data(), d, d), 0.9, 16 * kEps);  // SVD of O(1) entries
}

TEST(Transition, GeneralizedHouseholderEigenvalue) {
  const std::vector<double> w = {1.0, 2.0, 2.0};
  std::vector<double> G(9);
  std::vector<std::complex<double>> ev(3);
  transition::generalized_householder(w.data(), 3, 0.5, G.data());
  transition::eigenvalues(G.data(), 3, ev.data());
  EXPECT_NEAR(ev[2].real(), 0.5, 16 * kEps);  // eigenvalue 1 − β along w, sorted last
  EXPECT_NEAR(transition::spectral_norm(G.data(), 3, 3), 1.0, 16 * kEps);
  transition::generalized_householder(w.data(), 3, 2.5, G.data());
  EXPECT_NEAR(transition::spectral_norm(G.data(), 3, 3), 1.5, 16 * kEps);  // |1 − β| > 1
}

TEST(Transition, HouseholderCompositionIsDoubleAngleRotation) {
  const double a = 0.3, b = 1.1;
  const std::vector<double> W = {std::cos(a), std::sin(a), std::cos(b), std::sin(b)};
  std::vector<double> P(4), R(4);
  transition::householder_product(W.data(), 2, 2, P.data());
  const double ang = 2 * (b - a);
  rotary::rotation_matrix(&ang, 2, rotary::Layout::interleaved, R.data());
  EXPECT_LT(max_abs_diff(P, R), 16 * kEps);
}
