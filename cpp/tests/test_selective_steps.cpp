// GoogleTest: the stages of selective::angles (cpp/include/ropelab/selective.hpp, namespace steps),
// each against a closed form or an independent computation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ropelab/selective.hpp"
#include "test_util.hpp"

namespace {

namespace sl = ropelab::selective;
namespace steps = ropelab::selective::steps;
using ropelab::testing::normals;

sl::Config config(std::size_t n, std::size_t H, std::size_t R, std::size_t rank) {
  sl::Config c;
  c.model_dim = n;
  c.heads = H;
  c.pairs = R;
  c.rank = rank;
  return c;
}

double logistic(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}

}  // namespace

TEST(SelectiveSteps, CheckConfigRejectsInconsistentSizes) {
  EXPECT_NO_THROW(steps::check_config(config(8, 2, 3, 4)));
  EXPECT_THROW(steps::check_config(config(9, 2, 3, 4)), std::invalid_argument);  // 9 % 2
  EXPECT_THROW(steps::check_config(config(8, 0, 3, 4)), std::invalid_argument);
  EXPECT_THROW(steps::check_config(config(8, 2, 0, 4)), std::invalid_argument);
  EXPECT_THROW(steps::check_config(config(8, 2, 3, 0)), std::invalid_argument);
  sl::Config c = config(8, 2, 3, 4);
  for (std::size_t G : {std::size_t{0}, std::size_t{2}, std::size_t{6}}) {
    c.gate_out = G;
    EXPECT_NO_THROW(steps::check_config(c)) << G;
  }
  c.gate_out = 3;  // neither H nor H·R
  EXPECT_THROW(steps::check_config(c), std::invalid_argument);
}

TEST(SelectiveSteps, ExpBiasIsExpAndRejectsOverflow) {
  sl::Config c = config(4, 1, 3, 2);
  sl::Weights w;
  EXPECT_TRUE(steps::exp_bias(c, w).empty());  // no bias
  c.has_bias = true;
  std::vector<double> b = {0.0, std::log(2.0), -1.5};
  w.bias = b.data();
  const std::vector<double> e = steps::exp_bias(c, w);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0], 1.0);
  EXPECT_NEAR(e[1], 2.0, 4e-16);
  EXPECT_EQ(e[2], std::exp(-1.5));
  b[1] = 710.0;  // e^710 > DBL_MAX
  EXPECT_THROW(steps::exp_bias(c, w), std::invalid_argument);
}

TEST(SelectiveSteps, NormaliseHeadsMakesEachHeadChunkUnitNorm) {
  sl::Config c = config(4, 2, 1, 1);
  c.eps = 0.0;
  const double x[4] = {0.0, 2.0, -4.0, 0.0};  // chunks (0, 2) and (−4, 0): exact quotients
  double y[4];
  steps::normalise_heads(c, x, y);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], 1.0);
  EXPECT_EQ(y[2], -1.0);
  EXPECT_EQ(y[3], 0.0);
  // eps enters under the root: x / sqrt(|x|² + eps)
  c = config(6, 3, 1, 1);
  c.eps = 0.25;
  const std::vector<double> z = normals(6, 3);
  std::vector<double> out(6);
  steps::normalise_heads(c, z.data(), out.data());
  for (std::size_t h = 0; h < 3; ++h) {
    const double a = z[2 * h], b = z[2 * h + 1], r = std::sqrt(a * a + b * b + 0.25);
    EXPECT_NEAR(out[2 * h], a / r, 1e-15);
    EXPECT_NEAR(out[2 * h + 1], b / r, 1e-15);
  }
}

TEST(SelectiveSteps, ProjectIsTheLowRankProduct) {
  // integer entries: every product and sum is exact, so the result is the matrix product
  const sl::Config c = config(3, 1, 2, 2);               // C = 2
  const std::vector<double> down = {1, 2, 0, -1, 1, 3};  // 2×3
  const std::vector<double> up = {2, 1, -1, 4};          // 2×2
  sl::Weights w;
  w.down = down.data();
  w.up = up.data();
  const double x[3] = {1, -2, 5};
  double low[2], u[2];
  steps::project(c, w, x, low, u);
  EXPECT_EQ(low[0], 1 * 1 + 2 * -2 + 0 * 5);   // −3
  EXPECT_EQ(low[1], -1 * 1 + 1 * -2 + 3 * 5);  // 12
  EXPECT_EQ(u[0], 2 * -3 + 1 * 12);            // 6
  EXPECT_EQ(u[1], -1 * -3 + 4 * 12);           // 51
}

TEST(SelectiveSteps, GateValuesAreSigmoidsOfTheGateLayers) {
  sl::Config c = config(2, 1, 2, 1);
  c.gate_out = 2;
  const std::vector<double> up = {1, 2, -3, 0.5}, bias = {0.25, -1.0};
  sl::Weights w;
  w.gate_up = up.data();
  w.gate_bias = bias.data();
  const double x[2] = {0.5, -0.25};
  double glow[1], pre[2], g[2];
  steps::gate_values(c, w, x, glow, pre, g);  // one layer: sigmoid(W x + b)
  EXPECT_NEAR(g[0], logistic(0.5 - 0.5 + 0.25), 4e-16);
  EXPECT_NEAR(g[1], logistic(-1.5 - 0.125 - 1.0), 4e-16);
  // low rank: sigmoid(W_up (W_down x) + b)
  c.gate_rank = 1;
  const std::vector<double> down = {2, 4}, up2 = {1.5, -2};
  w.gate_down = down.data();
  w.gate_up = up2.data();
  steps::gate_values(c, w, x, glow, pre, g);
  EXPECT_EQ(glow[0], 0.0);  // 2·0.5 + 4·(−0.25)
  EXPECT_NEAR(g[0], logistic(0.25), 4e-16);
  EXPECT_NEAR(g[1], logistic(-1.0), 4e-16);
  // no overflow for large arguments: exactly 0 and 1, never NaN
  const std::vector<double> big = {1e3, 0, -1e3, 0}, zero = {0, 0};
  c.gate_rank = 0;
  w.gate_up = big.data();
  w.gate_bias = zero.data();
  const double one[2] = {1, 0};
  steps::gate_values(c, w, one, glow, pre, g);
  EXPECT_EQ(g[0], 1.0);
  EXPECT_EQ(g[1], 0.0);
}

TEST(SelectiveSteps, FirstDifferenceStartsFromTheCacheOrFromZero) {
  // one channel of two (stride 2): u = 1, 4, 9 in the even entries
  const double u[6] = {1, -7, 4, -7, 9, -7};
  double phi[6] = {0, 0, 0, 0, 0, 0}, cache = 2.0;
  steps::first_difference(u, 2, 3, &cache, false, phi);
  EXPECT_EQ(phi[0], -1.0);
  EXPECT_EQ(phi[2], 3.0);
  EXPECT_EQ(phi[4], 5.0);
  EXPECT_EQ(phi[1], 0.0);  // the other channel is untouched
  EXPECT_EQ(cache, 9.0);   // the newest input
  steps::first_difference(u, 2, 3, &cache, true, phi);
  EXPECT_EQ(phi[0], 1.0);                                // from 0, not from the cached 9
  steps::first_difference(u, 2, 0, &cache, false, phi);  // T = 0 keeps the cache
  EXPECT_EQ(cache, 9.0);
}

TEST(SelectiveSteps, ShortConvIsTheCausalConvolutionOverCacheAndInputs) {
  const std::size_t K = 4;
  const std::vector<double> wk = normals(K, 11);
  for (std::size_t T : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{9}}) {
    for (bool silu : {false, true}) {
      std::vector<double> cache = normals(K, 12), u = normals(T, 13), phi(T, 0.0);
      // the stream: the K−1 newest cached inputs (columns 1..K−1), then u
      std::vector<double> stream(cache.begin() + 1, cache.end());
      stream.insert(stream.end(), u.begin(), u.end());
      std::vector<double> all(cache);  // [cache, u]: the new cache is its last K entries
      all.insert(all.end(), u.begin(), u.end());
      steps::short_conv(wk.data(), K, silu, u.data(), 1, T, cache.data(), phi.data());
      for (std::size_t t = 0; t < T; ++t) {
        double s = 0;
        for (std::size_t j = 0; j < K; ++j) s += wk[j] * stream[t + j];
        if (silu) s = s * logistic(s);
        EXPECT_NEAR(phi[t], s, 1e-15) << "T=" << T << " t=" << t;
      }
      for (std::size_t j = 0; j < K; ++j) EXPECT_EQ(cache[j], all[T + j]) << "T=" << T;
    }
  }
}

TEST(SelectiveSteps, BiasAndGateScalePerHeadOrPerChannel) {
  sl::Config c = config(4, 2, 2, 1);  // C = 4, channels (h, r) = c / 2, c % 2
  c.has_bias = true;
  const std::vector<double> expb = {1, 2, 3, 4};
  const std::size_t T = 2;
  const std::vector<double> phi0 = {1, 1, 1, 1, 2, 2, 2, 2};
  // per head: gates T×H
  c.gate_out = 2;
  std::vector<double> phi = phi0;
  const std::vector<double> gh = {0.5, 0.25, 2, 4};
  steps::bias_and_gate(c, expb.data(), gh.data(), T, phi.data());
  EXPECT_EQ(phi, (std::vector<double>{1, 1.5, 1, 1.25, 6, 8, 20, 24}));
  // per channel: gates T×C
  c.gate_out = 4;
  phi = phi0;
  const std::vector<double> gc = {1, 0.5, 0.25, 0, 2, 2, 2, 2};
  steps::bias_and_gate(c, expb.data(), gc.data(), T, phi.data());
  EXPECT_EQ(phi, (std::vector<double>{2, 1.5, 1, 0, 6, 8, 10, 12}));
  // neither: only the bias
  c.gate_out = 0;
  phi = phi0;
  steps::bias_and_gate(c, expb.data(), nullptr, T, phi.data());
  EXPECT_EQ(phi, (std::vector<double>{2, 3, 4, 5, 3, 4, 5, 6}));
}

TEST(SelectiveSteps, Accumulate64IsTheRunningSumTimesTheta) {
  const double phi[3] = {1, 2, 3};
  double psi[3];
  EXPECT_EQ(steps::accumulate64(phi, 1, 3, 10.0, 0.5, psi), 16.0);
  EXPECT_EQ(psi[0], 5.5);
  EXPECT_EQ(psi[1], 6.5);
  EXPECT_EQ(psi[2], 8.0);
  EXPECT_EQ(steps::accumulate64(phi, 1, 0, 10.0, 0.5, psi), 10.0);
}

TEST(SelectiveSteps, Accumulate32RoundsInTheReleasedOrder) {
  // four increments of 2^-30 sum to 2^-28 in float32 (exact), but 1 + 2^-28 rounds to 1 in
  // float32 (ulp 2^-23): the float32 order loses them, float64 keeps them
  const double tiny = std::ldexp(1.0, -30);
  const double phi[4] = {tiny, tiny, tiny, tiny};
  double psi[4];
  EXPECT_EQ(steps::accumulate32(phi, 1, 4, 1.0, 3.0, psi), 1.0);
  for (double x : psi) EXPECT_EQ(x, 3.0);
  EXPECT_EQ(steps::accumulate64(phi, 1, 4, 1.0, 3.0, psi), 1.0 + std::ldexp(1.0, -28));
  // the sum starts from 0, the offset is added after: 2^24 + 1 + 1 in float32 from an offset of
  // 2^24 gives 2^24 + 2 (the increments summed first), not 2^24 (each rounded away)
  const double ones[2] = {1, 1};
  EXPECT_EQ(steps::accumulate32(ones, 1, 2, 16777216.0, 1.0, psi), 16777218.0);
  // T = 0: the offset rounded to float32
  EXPECT_EQ(steps::accumulate32(phi, 1, 0, 0.1, 1.0, psi), static_cast<double>(0.1f));
}
