#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ropelab/rff.hpp"
#include "ropelab/temperature.hpp"
#include "test_util.hpp"

using namespace ropelab;

namespace {
const rff::Pair kPair = [] {
  const std::vector<double> q{0.6, -0.2, 0.3, 0.1}, k{0.1, 0.4, -0.5, 0.2};
  return rff::make_pair(q.data(), k.data(), q.size());
}();
}  // namespace

TEST(Rff, UnbiasedAtSigmaOne) {
  const double target = static_cast<double>(std::exp(kPair.qk));
  for (auto est : {Estimator::trig, Estimator::random_phase, Estimator::positive}) {
    EXPECT_NEAR(rff::moments(kPair, 1.0, est, rff::Convention::conjugate).mean / target, 1.0,
                1e-14);
  }
  // The literal product estimates exp(-q·k).
  EXPECT_NEAR(rff::moments(kPair, 1.0, Estimator::trig, rff::Convention::literal).mean,
              static_cast<double>(std::exp(-kPair.qk)), 1e-14);
}

TEST(Rff, PerformerLemma2AtSigmaOne) {
  const double kappa = static_cast<double>(std::exp(kPair.qk)), a = static_cast<double>(kPair.a),
               b = static_cast<double>(kPair.b);
  const double D = 8;
  const double trig = std::exp(a) / (2 * D) / (kappa * kappa) * std::pow(1 - std::exp(-b), 2);
  const double pos = std::exp(a) / D * kappa * kappa * (1 - std::exp(-a));
  EXPECT_NEAR(rff::mse(kPair, D, 1.0, Estimator::trig, rff::Convention::conjugate) / trig, 1.0,
              1e-13);
  EXPECT_NEAR(rff::mse(kPair, D, 1.0, Estimator::positive, rff::Convention::conjugate) / pos, 1.0,
              1e-13);
}

TEST(Rff, LogDomainMatchesDirect) {
  for (double s : {1e-8, 0.3, 1.0, 1.7}) {
    for (auto est : {Estimator::trig, Estimator::random_phase, Estimator::positive}) {
      const double m = rff::mse(kPair, 16, s, est, rff::Convention::conjugate);
      EXPECT_NEAR(rff::log_mse(kPair, 16, s, est, rff::Convention::conjugate), std::log(m), 1e-13);
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
    const double s = temperature::optimal_sigma_cubic(rff::make_unit_pair(xi), 1.0, Estimator::trig,
                                                      rff::Convention::conjugate);
    EXPECT_NEAR(s * s, 1.0 / 3.0, 1e-14);
  }
}

TEST(Temperature, CubicAgreesWithBrent) {
  for (double xi : {-0.95, 0.0, 0.7}) {
    for (double D : {1.0, 10.0, 1000.0}) {
      for (auto est : {Estimator::trig, Estimator::positive}) {
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

// --- The pieces of rff::estimate -----------------------------------------------------------------

TEST(RffNames, ParseRoundTripsEveryName) {
  const auto& subset = rff::estimators();
  ASSERT_EQ(subset.size(), 3u);
  const std::vector<std::string> names = estimator_names(subset);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(rff::parse_estimator(names[i]), subset[i]);
  }
  EXPECT_THROW(rff::parse_estimator("hyperbolic"), std::invalid_argument);
  for (std::size_t i = 0; i < rff::convention_names().size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(rff::parse_convention(rff::convention_names()[i])), i);
  }
  EXPECT_THROW(rff::parse_estimator("gauss"), std::invalid_argument);
}

TEST(TemperatureNames, MethodAndSpectrumKindParseFromTheirLists) {
  const auto& methods = temperature::sigma_method_names();
  ASSERT_EQ(methods.size(), 2u);
  for (std::size_t i = 0; i < methods.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(temperature::parse_sigma_method(methods[i])), i);
  }
  const auto& kinds = temperature::spectrum_kind_names();
  ASSERT_EQ(kinds.size(), 2u);
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(temperature::parse_spectrum_kind(kinds[i])), i);
  }
  EXPECT_THROW(temperature::parse_sigma_method("newton"), std::invalid_argument);
  EXPECT_THROW(temperature::parse_spectrum_kind("alibi"), std::invalid_argument);
  // rope: temp_max · base^(−2j/d); squared applies to rfa only
  const std::vector<double> rope =
      temperature::spectrum(4, temperature::SpectrumKind::rope, 100.0, 0.5, 2.0, false);
  ASSERT_EQ(rope.size(), 2u);
  EXPECT_EQ(rope[0], 2.0);
  EXPECT_NEAR(rope[1], 0.2, 1e-15);
  EXPECT_THROW(temperature::spectrum(4, temperature::SpectrumKind::rope, 100.0, 0.5, 2.0, true),
               std::invalid_argument);
}

TEST(RffEstimatePieces, DrawBudgetIsTwoToTheForty) {
  EXPECT_EQ(rff::draws_per_trial(4, 10, false), 2.0 * 10 + 16);
  EXPECT_EQ(rff::draws_per_trial(4, 10, true), 4.0 * 10 + 16);
  const std::vector<double> q{0.1, 0.2}, k{0.3, -0.1};
  const rff::Pair p = rff::make_pair(q.data(), k.data(), 2);
  rff::EstimateOptions o;
  o.full = true;
  o.D = (std::size_t{1} << 39) - 2;  // 2·D + 4 = 2^40: refused
  EXPECT_THROW(rff::check_estimate_input(p, 2, o), std::invalid_argument);
  o.D = (std::size_t{1} << 39) - 3;  // 2^40 − 2 draws: allowed
  EXPECT_NO_THROW(rff::check_estimate_input(p, 2, o));
}

TEST(RffEstimatePieces, AmplitudeOverflowIsRefusedExceptForPositive) {
  const std::vector<double> q{30.0}, k{0.0};  // (‖q‖²+‖k‖²)/2 = 450 < log(DBL_MAX) ≈ 709.8
  const std::vector<double> big{40.0};        // 800 > 709.8: exp overflows
  const rff::Pair ok = rff::make_pair(q.data(), k.data(), 1);
  const rff::Pair bad = rff::make_pair(big.data(), k.data(), 1);
  rff::EstimateOptions o;
  EXPECT_NO_THROW(rff::check_estimate_input(ok, 1, o));
  EXPECT_THROW(rff::check_estimate_input(bad, 1, o), std::invalid_argument);
  o.estimator = Estimator::positive;
  EXPECT_NO_THROW(rff::check_estimate_input(bad, 1, o));
}

TEST(RffEstimatePieces, TrialEstimateScalesTheSum) {
  const double acc[8] = {1, 2, 3, 4, 5, 6, 7, 8};  // Σ = 36
  EXPECT_DOUBLE_EQ(rff::detail::trial_estimate(acc, Estimator::trig, 2.0, 0.25), 18.0);
  EXPECT_DOUBLE_EQ(rff::detail::trial_estimate(acc, Estimator::random_phase, 2.0, 0.25), 36.0);
  EXPECT_DOUBLE_EQ(rff::detail::trial_estimate(acc, Estimator::positive, 2.0, 0.25), 9.0);
}

TEST(RffEstimatePieces, OrthogonalPhaseArgumentsUseAnOrthonormalFrame) {
  const std::size_t d = 5;
  std::vector<double> z = ropelab::testing::normals(2 * d, 7);
  const std::vector<double> z0 = z;
  const std::vector<double> chi{1.0, 1.0, 1.0, 1.0, 1.0}, beta(d, 0.0);
  std::vector<double> a(d), b(d), y0(d);
  // c11 = 1, c21 = 0, c22 = 0: x = a (the first unit vector); c21 = 0, c22 = 1: y = b.
  rff::detail::orthogonal_phase_arguments(z.data(), d, d, chi.data(), beta.data(), 1.0, 0.0, 1.0,
                                          a.data(), b.data());
  double aa = 0, bb = 0, ab = 0, n1 = 0;
  for (std::size_t r = 0; r < d; ++r) n1 += z0[r] * z0[r];
  for (std::size_t r = 0; r < d; ++r) {
    aa += a[r] * a[r];
    bb += b[r] * b[r];
    ab += a[r] * b[r];
    EXPECT_NEAR(a[r], z0[r] / std::sqrt(n1), 1e-15);  // a = z1/‖z1‖
  }
  EXPECT_NEAR(aa, 1.0, 1e-14);
  EXPECT_NEAR(bb, 1.0, 1e-14);
  EXPECT_NEAR(ab, 0.0, 1e-14);
  // The phase is added to both arguments, the norms scale them.
  std::vector<double> z2 = z0, x(d), y(d);
  const std::vector<double> chi2{2.0, 2.0, 2.0, 2.0, 2.0}, beta2(d, 0.25);
  rff::detail::orthogonal_phase_arguments(z2.data(), d, 3, chi2.data(), beta2.data(), 0.5, 0.3, 0.7,
                                          x.data(), y.data());
  const double half_pi = 1.5707963267948966;
  for (std::size_t r = 0; r < 3; ++r) {
    EXPECT_NEAR(x[r], 2.0 * 0.5 * a[r] + half_pi, 1e-14);
    EXPECT_NEAR(y[r], 2.0 * (0.3 * a[r] + 0.7 * b[r]) + half_pi, 1e-14);
  }
}

TEST(RffEstimatePieces, FullTermsMatchTheirDefinitions) {
  const std::vector<double> pq{0.3, -1.2, 0.5}, pk{0.7, 0.1, -0.4}, beta{0.1, 0.6, 0.9};
  std::vector<double> x(3), y(3);
  auto total = [&](Estimator est, bool literal) {
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    rff::detail::accumulate_full_terms(est, literal, 0.2, pq.data(), pk.data(), beta.data(), 3,
                                       x.data(), y.data(), acc);
    double s = 0;
    for (double v : acc) s += v;
    return s;
  };
  double trig = 0, lit = 0, pos = 0, rp = 0;
  const double two_pi = 6.283185307179586;
  for (std::size_t i = 0; i < 3; ++i) {
    trig += std::cos(pq[i] - pk[i]);
    lit += std::cos(pq[i] + pk[i]);
    pos += std::exp(pq[i] + pk[i] - 0.2);
    rp += std::cos(pq[i] + two_pi * beta[i]) * std::cos(pk[i] + two_pi * beta[i]);
  }
  EXPECT_NEAR(total(Estimator::trig, false), trig, 1e-14);
  EXPECT_NEAR(total(Estimator::trig, true), lit, 1e-14);
  EXPECT_NEAR(total(Estimator::positive, false), pos, 1e-14);
  EXPECT_NEAR(total(Estimator::random_phase, false), rp, 1e-14);
}
