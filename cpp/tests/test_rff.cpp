#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ropelab/rff.hpp"
#include "ropelab/temperature.hpp"

using namespace ropelab;

namespace {
const rff::Pair kPair = [] {
  const std::vector<double> q{0.6, -0.2, 0.3, 0.1}, k{0.1, 0.4, -0.5, 0.2};
  return rff::make_pair(q.data(), k.data(), q.size());
}();
}  // namespace

TEST(Rff, UnbiasedAtSigmaOne) {
  const double target = std::exp(kPair.qk);
  for (auto est : {rff::Estimator::trig, rff::Estimator::random_phase, rff::Estimator::positive}) {
    EXPECT_NEAR(rff::moments(kPair, 1.0, est, rff::Convention::conjugate).mean / target, 1.0, 1e-14);
  }
  // The literal product estimates exp(-q·k).
  EXPECT_NEAR(rff::moments(kPair, 1.0, rff::Estimator::trig, rff::Convention::literal).mean,
              std::exp(-kPair.qk), 1e-14);
}

TEST(Rff, PerformerLemma2AtSigmaOne) {
  const double kappa = std::exp(kPair.qk), a = kPair.a, b = kPair.b;
  const double D = 8;
  const double trig = std::exp(a) / (2 * D) / (kappa * kappa) * std::pow(1 - std::exp(-b), 2);
  const double pos = std::exp(a) / D * kappa * kappa * (1 - std::exp(-a));
  EXPECT_NEAR(rff::mse(kPair, 1.0, D, rff::Estimator::trig, rff::Convention::conjugate) / trig, 1.0,
              1e-13);
  EXPECT_NEAR(rff::mse(kPair, 1.0, D, rff::Estimator::positive, rff::Convention::conjugate) / pos,
              1.0, 1e-13);
}

TEST(Rff, LogDomainMatchesDirect) {
  for (double s : {1e-8, 0.3, 1.0, 1.7}) {
    for (auto est : {rff::Estimator::trig, rff::Estimator::random_phase, rff::Estimator::positive}) {
      const double m = rff::mse(kPair, s, 16, est, rff::Convention::conjugate);
      EXPECT_NEAR(rff::log_mse(kPair, s, 16, est, rff::Convention::conjugate), std::log(m), 1e-13);
    }
  }
}

TEST(Rff, EstimateIsThreadCountInvariant) {
  const std::vector<double> q{0.6, -0.2, 0.3, 0.1}, k{0.1, 0.4, -0.5, 0.2};
  for (bool full : {false, true}) {
    rff::EstimateOptions o;
    o.D = 33;
    o.full = full;
    o.seed = 9;
    std::vector<double> a(100), b(100);
    o.nthreads = 1;
    rff::estimate(q.data(), k.data(), 4, o, a.size(), a.data(), nullptr);
    o.nthreads = 3;
    rff::estimate(q.data(), k.data(), 4, o, b.size(), b.data(), nullptr);
    EXPECT_EQ(a, b);
  }
}

TEST(Temperature, CubicRootSolvesCubic) {
  for (double p : {0.0, 0.5, 3.0, 1e6}) {
    for (double r : {-1e-3, -1.0, -50.0}) {
      const double t = temperature::depressed_cubic_root(p, r);
      EXPECT_NEAR(t * t * t + p * t + r, 0.0, 1e-12 * (std::fabs(r) + p * std::fabs(t) + 1));
    }
  }
}

TEST(Temperature, OneFeatureOptimumIsOneThird) {
  for (double xi : {-0.9, -0.3, 0.0, 0.5, 0.9}) {
    const double s = temperature::optimal_sigma_cubic(rff::make_unit_pair(xi), 1.0,
                                                      rff::Estimator::trig, rff::Convention::conjugate);
    EXPECT_NEAR(s * s, 1.0 / 3.0, 1e-14);
  }
}

TEST(Temperature, CubicAgreesWithBrent) {
  for (double xi : {-0.95, 0.0, 0.7}) {
    for (double D : {1.0, 10.0, 1000.0}) {
      for (auto est : {rff::Estimator::trig, rff::Estimator::positive}) {
        const auto p = rff::make_unit_pair(xi);
        EXPECT_NEAR(temperature::optimal_sigma_cubic(p, D, est, rff::Convention::conjugate),
                    temperature::optimal_sigma_brent(p, D, est, rff::Convention::conjugate), 1e-8);
      }
    }
  }
}

TEST(Temperature, CounterexampleNumbers) {
  const auto c = temperature::counterexample(0.5);
  EXPECT_NEAR(c.sigma_paper_sq, 1.0 / 3.0, 1e-15);
  EXPECT_NEAR(c.mean_paper / std::exp(5.0 / 6.0), 1.0, 1e-14);
  EXPECT_NEAR(c.mean_sigma1 / std::exp(0.5), 1.0, 1e-14);
}
