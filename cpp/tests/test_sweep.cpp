#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/sweep.hpp"

using namespace ropelab;

namespace {

bool same_bits(const sweep::MseOutputs& a, const sweep::MseOutputs& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

std::vector<sweep::MseCell> some_cells() {
  std::vector<sweep::MseCell> cells;
  std::uint64_t index = 0;
  for (double xi : {-0.7, 0.1, 0.6}) {
    for (std::size_t D : {4, 32}) {
      for (auto rule :
           {sweep::SigmaRule::value, sweep::SigmaRule::paper, sweep::SigmaRule::optimal}) {
        sweep::MseCell c;
        c.xi = xi;
        c.D = D;
        c.d = 8;
        c.rule = rule;
        c.sigma = 0.8;
        c.full = index % 5 == 0;
        c.seed = sweep::cell_seed(3, index++);
        cells.push_back(c);
      }
    }
  }
  return cells;
}

}  // namespace

TEST(Sweep, CellSeedIsNumpysSeedSequence) {
  // numpy.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, np.uint32), low word
  // first
  EXPECT_EQ(sweep::cell_seed(0, 0), 8668861027912758289ULL);
  EXPECT_EQ(sweep::cell_seed(7, 3), 6823953754371609207ULL);
  EXPECT_EQ(sweep::cell_seed(18446744073709551615ULL, 1099511627781ULL), 2515506284581524526ULL);
  EXPECT_EQ(sweep::cell_seed(12345678901234ULL, 999999), 13242295039795294104ULL);
  EXPECT_EQ(sweep::cell_seed(4294967296ULL, 1), 7789721593315801384ULL);
}

TEST(Sweep, ExactlyRoundedSum) {
  const std::vector<double> a{1e16, 1.0, -1e16, 1e-3};
  EXPECT_EQ(sweep::exactly_rounded_sum(a.data(), a.size()), 1.001);
  const std::vector<double> tenths(10, 0.1);
  EXPECT_EQ(sweep::exactly_rounded_sum(tenths.data(), tenths.size()), 1.0);
  EXPECT_EQ(sweep::exactly_rounded_sum(nullptr, 0), 0.0);
  // the order of the terms does not matter
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.push_back(std::sin(i) * std::pow(10.0, i % 17 - 8));
  const double forward = sweep::exactly_rounded_sum(x.data(), x.size());
  std::vector<double> back(x.rbegin(), x.rend());
  EXPECT_EQ(sweep::exactly_rounded_sum(back.data(), back.size()), forward);
  const std::vector<double> inf{1.0, INFINITY, 2.0};
  EXPECT_EQ(sweep::exactly_rounded_sum(inf.data(), inf.size()), INFINITY);
}

TEST(Sweep, BatchesThreadsAndOrderDoNotChangeACell) {
  const std::vector<sweep::MseCell> cells = some_cells();
  const std::size_t n = cells.size(), trials = 200;
  std::vector<sweep::MseOutputs> alone(n);
  for (std::size_t i = 0; i < n; ++i) alone[i] = sweep::mse_cell(cells[i], trials, 1, nullptr);
  for (int threads : {1, 2, 5}) {
    std::vector<sweep::MseOutputs> out(n);
    std::vector<std::size_t> seen;
    std::mutex m;
    sweep::mse_cells(
        cells.data(), n, trials, threads, out.data(),
        [&](std::size_t pos) {
          std::lock_guard<std::mutex> lock(m);
          seen.push_back(pos);
        },
        nullptr);
    EXPECT_EQ(seen.size(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_bits(out[i], alone[i])) << i;
  }
  // reversed order, and one cell with its trials on 3 threads
  std::vector<sweep::MseCell> rev(cells.rbegin(), cells.rend());
  std::vector<sweep::MseOutputs> out(n);
  sweep::mse_cells(rev.data(), n, trials, 3, out.data(), {}, nullptr);
  for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_bits(out[n - 1 - i], alone[i])) << i;
  sweep::MseOutputs one{};
  sweep::mse_cells(cells.data() + 4, 1, trials, 3, &one, {}, nullptr);
  EXPECT_TRUE(same_bits(one, alone[4]));
}

TEST(Sweep, StatisticsAreTheCorrectlyRoundedMeanAndStd) {
  sweep::MseCell c;
  c.xi = 0.3;
  c.D = 16;
  c.d = 4;
  c.seed = 99;
  const std::size_t trials = 500;
  const sweep::MseOutputs o = sweep::mse_cell(c, trials, 1, nullptr);
  EXPECT_EQ(o.sigma_used, 1.0);  // the default σ
  EXPECT_EQ(o.target, std::exp(0.3));
  EXPECT_GT(o.empirical_mse, 0.0);
  EXPECT_LT(std::fabs(o.empirical_mse - o.analytic_mse), 5 * o.mse_stderr);
  EXPECT_LT(std::fabs(o.bias), 5 * o.bias_stderr);  // σ = 1: unbiased
  const sweep::MseOutputs single = sweep::mse_cell(c, 1, 1, nullptr);
  EXPECT_TRUE(std::isinf(single.mse_stderr) && std::isinf(single.bias_stderr));
}

TEST(Sweep, BadCellsAreNamed) {
  std::vector<sweep::MseCell> cells = some_cells();
  cells[5].xi = 1.5;
  std::vector<sweep::MseOutputs> out(cells.size());
  try {
    sweep::mse_cells(cells.data(), cells.size(), 50, 1, out.data(), {}, nullptr);
    FAIL() << "no error";
  } catch (const sweep::CellError& e) {
    EXPECT_EQ(e.position, 5U);
    EXPECT_NE(std::string(e.what()).find("xi must lie in [-1, 1]"), std::string::npos);
  }
  sweep::MseCell c;
  c.xi = -1.0;
  c.rule = sweep::SigmaRule::paper;  // tan(π/2): not finite
  EXPECT_THROW(sweep::check_mse_cell(c), std::invalid_argument);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(sweep::mse_cells(cells.data(), 3, 50, 2, out.data(), {}, &cancel), mc::Cancelled);
}
