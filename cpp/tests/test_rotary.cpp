// GoogleTest unit tests of the rotary core (cpp/include/ropelab/rotary.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/rotary.hpp"

using namespace ropelab::rotary;

namespace {
constexpr double kEps = std::numeric_limits<double>::epsilon();

std::vector<double> normals(std::size_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> g;
  std::vector<double> v(n);
  for (auto& x : v) x = g(gen);
  return v;
}
}  // namespace

TEST(Rotary, DecayBoundAtZeroIsExact) {
  const double r = 0.0;
  double b = 0.0;
  decay_bound(&r, 1, 128, 10000.0, &b);
  EXPECT_EQ(b, 32.5);  // (1/64) Σ_{j=1}^{64} j, all terms exact in double
}

TEST(Rotary, ActivationParsesFromItsList) {
  const auto& names = activation_names();
  ASSERT_EQ(names.size(), 2u);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(parse_activation(names[i])), i);
  }
  EXPECT_THROW(parse_activation("relu"), std::invalid_argument);
}

TEST(Rotary, FrequenciesAreGeometric) {
  std::vector<double> th(4);
  frequencies(8, 10000.0, th.data());
  EXPECT_EQ(th[0], 1.0);
  for (int i = 1; i < 4; ++i) EXPECT_NEAR(th[i] / th[i - 1], std::pow(10000.0, -0.25), 4 * kEps);
}

TEST(Rotary, RotationPreservesNormAndMatchesMatrix) {
  for (Layout layout : {Layout::interleaved, Layout::half}) {
    const std::size_t d = 6;
    const auto x = normals(d, 1), a = normals(d / 2, 2);
    std::vector<double> y(d), R(d * d);
    rotate<double>(x.data(), a.data(), 1, 1, d, layout, y.data(), 1);
    rotation_matrix(a.data(), d, layout, R.data());
    double nx = 0, ny = 0;
    for (std::size_t r = 0; r < d; ++r) {
      double Rx = 0;
      for (std::size_t c = 0; c < d; ++c) Rx += R[r * d + c] * x[c];
      // one rotation of O(1) values: a few ulps
      EXPECT_NEAR(Rx, y[r], 8 * kEps);
      nx += x[r] * x[r];
      ny += y[r] * y[r];
    }
    EXPECT_NEAR(nx, ny, 16 * kEps * nx);
  }
}

TEST(Rotary, RotateRejectsIndivisibleBroadcastAndReportsNonFinite) {
  std::vector<double> x(4, 1.0), a(2, 0.1), y(4);
  EXPECT_THROW(rotate<double>(x.data(), a.data(), 2, 0, 2, Layout::interleaved, y.data(), 1),
               std::invalid_argument);
  x[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(rotate<double>(x.data(), a.data(), 2, 1, 2, Layout::interleaved, y.data(), 1));
}

TEST(Rotary, ParseErrorsNameTheValue) {
  try {
    parse_layout("diagonal");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("diagonal"), std::string::npos);
  }
}

TEST(Rotary, ParityWrappedIsExactFloat32Drifts) {
  const std::size_t T = 1u << 22;
  std::vector<std::uint8_t> bits(T, 1);
  std::vector<double> e64(T), e32(T), ew(T);
  parity_angle_error(bits.data(), T, Accumulate::wrapped, ew.data());
  parity_angle_error(bits.data(), T, Accumulate::float64, e64.data());
  parity_angle_error(bits.data(), T, Accumulate::float32, e32.data());
  EXPECT_LT(std::abs(ew[T - 1]), 1e-15);
  EXPECT_LT(std::abs(e64[T - 1]), 1e-3);  // float64 drift stays small at 4M steps
  EXPECT_GT(std::abs(e32[T - 1]), 1e-2);  // float32 has lost the phase
}

TEST(Rotary, RealifyRoundTrip) {
  std::vector<std::complex<double>> z = {{1, 2}, {3, -4}}, back(2);
  std::vector<double> x(4);
  realify(z.data(), 1, 2, Layout::half, x.data());
  EXPECT_EQ(x[0], 1.0);
  EXPECT_EQ(x[2], 2.0);
  complexify(x.data(), 1, 4, Layout::half, back.data());
  EXPECT_EQ(back[1], z[1]);
}

TEST(Rotary, ShortConvIsCausal) {
  std::vector<double> x = {1, 0, 0, 0}, w = {0.25, 0.5, 1.0}, y(4);
  short_conv(x.data(), 1, 4, 1, w.data(), 3, 1, Activation::none, y.data());
  EXPECT_EQ(y[0], 1.0);
  EXPECT_EQ(y[1], 0.5);
  EXPECT_EQ(y[2], 0.25);
  EXPECT_EQ(y[3], 0.0);
}
