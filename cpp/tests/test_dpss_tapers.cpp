// GoogleTest: several Slepian tapers and their concentration ratios
// (spectra::windows::dpss_tapers), N = 0 windows (make_window_params), and the float32 powers of
// extrapolation::float32_powers.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ropelab/extrapolation.hpp"
#include "ropelab/windows.hpp"

namespace {

namespace win = ropelab::spectra::windows;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(DpssTapers, OrthonormalParityAndDecreasingRatios) {
  const win::DpssTapers t = win::dpss_tapers(100, 4.0, 8, true, "2", true);
  ASSERT_EQ(t.tapers.size(), 8u);
  ASSERT_EQ(t.ratios.size(), 8u);
  for (std::size_t j = 0; j < 8; ++j) {
    for (std::size_t k = 0; k < 8; ++k) {
      EXPECT_NEAR(dot(t.tapers[j], t.tapers[k]), j == k ? 1.0 : 0.0, 1e-12) << j << " " << k;
    }
    const double parity = j % 2 == 0 ? 1.0 : -1.0;
    for (std::size_t n = 0; n < 100; ++n) EXPECT_EQ(t.tapers[j][n], parity * t.tapers[j][99 - n]);
    if (j > 0) {
      EXPECT_LT(t.ratios[j], t.ratios[j - 1]);
    }
    EXPECT_GT(t.ratios[j], 0.0);
    EXPECT_LE(t.ratios[j], 1.0 + 1e-12);
  }
  // the first 2NW - 1 = 7 tapers are well concentrated (Percival & Walden 1993, §8.3)
  EXPECT_GT(t.ratios[6], 0.9);
}

TEST(DpssTapers, DftEvenDropsTheLastSampleAndDegenerateLengths) {
  const win::DpssTapers a = win::dpss_tapers(16, 3.0, 3, false, "approximate", false);
  const win::DpssTapers b = win::dpss_tapers(17, 3.0, 3, true, "approximate", false);
  for (std::size_t k = 0; k < 3; ++k) {
    ASSERT_EQ(a.tapers[k].size(), 16u);
    for (std::size_t n = 0; n < 16; ++n) EXPECT_EQ(a.tapers[k][n], b.tapers[k][n]);
  }
  const win::DpssTapers one = win::dpss_tapers(1, 1.0, 4, true, "2", true);
  ASSERT_EQ(one.tapers.size(), 1u);
  EXPECT_EQ(one.tapers[0], std::vector<double>{1.0});
  EXPECT_EQ(one.ratios, std::vector<double>{1.0});
  EXPECT_TRUE(win::dpss_tapers(0, 1.0, 1, true, "2", false).tapers[0].empty());
}

TEST(DpssTapers, BadInput) {
  EXPECT_THROW(win::dpss_tapers(4, 1.5, 0, true, "2", false), std::invalid_argument);
  EXPECT_THROW(win::dpss_tapers(4, 1.5, 5, true, "2", false), std::invalid_argument);
  EXPECT_THROW(win::dpss_tapers(3, 1.5, 3, true, "2", false), std::invalid_argument);
  EXPECT_THROW(win::dpss_tapers(3, 0.0, 3, true, "2", false), std::invalid_argument);
  EXPECT_THROW(win::dpss_tapers(3, 1.0, 3, true, "l2", false), std::invalid_argument);
}

TEST(Windows, LengthZeroIsEmptyAfterTheChecks) {
  EXPECT_TRUE(win::make_window("hann", 0, true, {}).empty());
  EXPECT_TRUE(win::make_window("kaiser", 0, false, {{"beta", 4.0}}).empty());
  EXPECT_THROW(win::make_window("kaiser", 0, false, {}), std::invalid_argument);
  // a negative Dolph-Chebyshev attenuation is read as |at|, zero is refused
  EXPECT_EQ(win::make_window("chebwin", 9, true, {{"at", -60.0}}),
            win::make_window("chebwin", 9, true, {{"at", 60.0}}));
  EXPECT_THROW(win::make_window("chebwin", 9, true, {{"at", 0.0}}), std::invalid_argument);
}

TEST(Extrapolation, Float32PowersAreSleefs) {
  // 10000^(222/256): SLEEF's powf (as PyTorch's CPU kernels) gives 2942.72705, one ulp below the
  // correctly rounded 2942.72729.
  const std::vector<float> p =
      ropelab::extrapolation::float32_powers(10000.0, {0.0f, 0.5f, 222.0f / 256.0f});
  EXPECT_EQ(p[0], 1.0f);
  EXPECT_EQ(p[1], 100.0f);
  EXPECT_EQ(p[2], 2942.72705078125f);
}

}  // namespace
