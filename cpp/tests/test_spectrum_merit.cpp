// GoogleTest: the stages of figures_of_merit (cpp/include/ropelab/spectrum.hpp, namespace merit),
// each against a closed form or an independent computation.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ropelab/spectrum.hpp"
#include "ropelab/windows.hpp"

namespace {

namespace sp = ropelab::spectra;
namespace merit = ropelab::spectra::merit;
namespace win = ropelab::spectra::windows;

constexpr double pi = 3.14159265358979323846;

std::vector<double> cosine_sum(std::size_t N, std::initializer_list<double> a) {
  // DFT-even Σ_k (−1)^k a_k cos(2πkn/N)
  std::vector<double> w(N, 0.0);
  for (std::size_t n = 0; n < N; ++n) {
    int k = 0;
    for (const double ak : a) {
      w[n] += (k % 2 == 0 ? 1.0 : -1.0) * ak *
              std::cos(2 * pi * k * static_cast<double>(n) / static_cast<double>(N));
      ++k;
    }
  }
  return w;
}

std::vector<double> poisson(std::size_t N, double alpha, bool times_hann) {
  std::vector<double> w(N);
  for (std::size_t n = 0; n < N; ++n) {
    const double x =
        (static_cast<double>(n) - 0.5 * static_cast<double>(N)) / (0.5 * static_cast<double>(N));
    w[n] = std::exp(-alpha * std::abs(x));
    if (times_hann)
      w[n] *= 0.5 * (1 - std::cos(2 * pi * static_cast<double>(n) / static_cast<double>(N)));
  }
  return w;
}

/// Si(x) = ∫_0^x sin t / t dt by its power series (terms alternate; fine for |x| ≤ 2π).
double sine_integral(double x) {
  double term = x, sum = x;
  for (int k = 1; k < 60; ++k) {
    term *= -x * x / ((2.0 * k) * (2.0 * k + 1));
    sum += term / (2.0 * k + 1);
  }
  return sum;
}

TEST(Merit, WindowSums) {
  const std::vector<double> w{1.0, -2.0, 4.0};
  const auto s = merit::window_sums(w.data(), w.size());
  EXPECT_EQ(s.sum, 3.0);
  EXPECT_EQ(s.sum_abs, 7.0);
  EXPECT_EQ(s.sum_sq, 21.0);
  EXPECT_EQ(s.max_abs, 4.0);
  const std::vector<double> zero_sum{1.0, -1.0};
  EXPECT_THROW(merit::window_sums(zero_sum.data(), 2), std::invalid_argument);
  const std::vector<double> bad{1.0, std::nan("")};
  EXPECT_THROW(merit::window_sums(bad.data(), 2), std::invalid_argument);
  EXPECT_THROW(merit::window_sums(w.data(), 0), std::invalid_argument);
}

TEST(Merit, OverlapCorrelationOfTheRectangle) {
  const std::vector<double> w(64, 1.0);
  // Σ w[n] w[n+s] / Σ w² = (N − s)/N
  EXPECT_DOUBLE_EQ(merit::overlap_correlation(w.data(), 64, 16, 64.0), 0.75);
  EXPECT_DOUBLE_EQ(merit::overlap_correlation(w.data(), 64, 32, 64.0), 0.5);
  EXPECT_EQ(merit::overlap_correlation(w.data(), 64, 64, 64.0), 0.0);
}

TEST(Merit, GainFiguresOfTheRectangleAndHann) {
  for (std::size_t N : {8u, 100u, 1024u}) {
    const std::vector<double> rect(N, 1.0);
    const auto g = merit::gain_figures(rect.data(), N, merit::window_sums(rect.data(), N));
    EXPECT_DOUBLE_EQ(g.coherent_gain, 1.0);
    EXPECT_DOUBLE_EQ(g.enbw_bins, 1.0);
    // |W(½)| = 1/sin(π/2N) (Dirichlet kernel), |W(0)| = N
    const double Nd = static_cast<double>(N);
    EXPECT_NEAR(g.scalloping_loss_db, -20 * std::log10(1.0 / (Nd * std::sin(pi / (2 * Nd)))),
                1e-12);
    EXPECT_NEAR(g.worst_case_processing_loss_db, g.scalloping_loss_db, 1e-15);
    const auto hann = cosine_sum(N, {0.5, 0.5});
    const auto h = merit::gain_figures(hann.data(), N, merit::window_sums(hann.data(), N));
    EXPECT_NEAR(h.coherent_gain, 0.5, 1e-12);
    EXPECT_NEAR(h.enbw_bins, 1.5, 1e-12);  // Σw² = 3N/8, Σw = N/2 for N ≥ 3
    // Hann at 50 % overlap: Σ_{n<N/2} sin²(πn/N) cos²(πn/N) / Σ sin⁴ = (N/16)/(3N/8) = 1/6
    EXPECT_NEAR(h.overlap_correlation_50, 1.0 / 6.0, 1e-12);
  }
}

TEST(Merit, SpectrumGridMatchesTheDtft) {
  const auto w = cosine_sum(40, {0.42, 0.5, 0.08});
  const auto G = merit::spectrum_grid(w.data(), w.size(), 4);
  ASSERT_EQ(G.mag.size(), 40u * 4 / 2 + 1);
  EXPECT_EQ(G.nyquist, 20.0);
  std::vector<double> f(G.mag.size());
  for (std::size_t k = 0; k < f.size(); ++k) f[k] = G.freq(k);
  std::vector<sp::cplx> X(f.size());
  sp::dtft(w.data(), w.size(), f.data(), f.size(), X.data());
  for (std::size_t k = 0; k < f.size(); ++k) {
    EXPECT_NEAR(G.mag[k], std::abs(X[k]), 1e-13 * G.W0);
    sp::cplx Xk, dX;
    sp::dtft_with_derivative(w.data(), w.size(), f[k], Xk, dX);
    const double slope = (std::conj(Xk) * dX).real();
    if (std::abs(slope) > 1e-9 * G.W0 * G.W0) {
      EXPECT_EQ(slope > 0, G.slope[k] > 0) << k;
    }
  }
  const std::vector<double> highpass{1.0, -0.9, 1.0};
  EXPECT_THROW(merit::spectrum_grid(highpass.data(), 3, 8), std::invalid_argument);
  EXPECT_THROW(merit::spectrum_grid(w.data(), w.size(), 0), std::invalid_argument);
}

TEST(Merit, FirstMinimumOfCosineSums) {
  // DFT-even K-term cosine sums have their first null at exactly K bins.
  const auto rect = std::vector<double>(256, 1.0);
  const auto hann = cosine_sum(256, {0.5, 0.5});
  const auto blackman = cosine_sum(256, {0.42, 0.5, 0.08});
  for (const auto* w : {&rect, &hann, &blackman}) {
    const auto G = merit::spectrum_grid(w->data(), 256, 16);
    const double expected = w == &rect ? 1.0 : w == &hann ? 2.0 : 3.0;
    EXPECT_NEAR(merit::first_minimum_bins(w->data(), 256, G), expected, 1e-9);
  }
  // Hann–Poisson, α = 2: |W| falls all the way to (a shallow dip next to) Nyquist.
  const auto hp = poisson(256, 2.0, true);
  EXPECT_NEAR(merit::first_minimum_bins(hp.data(), 256, merit::spectrum_grid(hp.data(), 256, 16)),
              128.0, 0.5);
  // The rectangle of length 1: W is constant, no minimum at all: N/2.
  const std::vector<double> one{1.0};
  EXPECT_EQ(merit::first_minimum_bins(one.data(), 1, merit::spectrum_grid(one.data(), 1, 16)), 0.5);
}

TEST(Merit, MainLobeWidthClosedForms) {
  // Rectangle, large N: sinc(x) = 1/√2 at x = 0.442946…, sinc(x) = ½ at x = 0.603355…
  const std::size_t N = 8192;
  const std::vector<double> rect(N, 1.0);
  const auto G = merit::spectrum_grid(rect.data(), N, 16);
  EXPECT_NEAR(merit::main_lobe_width_bins(rect.data(), N, G, std::sqrt(0.5), 1.0), 2 * 0.4429462,
              1e-6);
  EXPECT_NEAR(merit::main_lobe_width_bins(rect.data(), N, G, 0.5, 1.0), 2 * 0.6033545, 1e-6);
  // DFT-even Hann: |W(1)| = |W(0)|/2 exactly (W(1) = −N/4, W(0) = N/2).
  const auto hann = cosine_sum(64, {0.5, 0.5});
  const auto H = merit::spectrum_grid(hann.data(), 64, 16);
  EXPECT_NEAR(merit::main_lobe_width_bins(hann.data(), 64, H, 0.5, 2.0), 2.0, 1e-12);
  // The causal exponential with αN = 2 dips to −10.9 dB only: it never falls to −20 dB.
  const auto e = win::make_window("ssm", 1024, false, {{"alpha", 2.0 / 1024}});
  const auto E = merit::spectrum_grid(e.data(), 1024, 16);
  const double fm = merit::first_minimum_bins(e.data(), 1024, E);
  EXPECT_NEAR(fm, 1.15, 0.005);
  EXPECT_TRUE(std::isnan(merit::main_lobe_width_bins(e.data(), 1024, E, 0.1, fm)));
}

TEST(Merit, HighestSidelobeOfTheRectangle) {
  // sinc's highest sidelobe: −13.2615 dB at 1.4303 bins (tan πx = πx); O(1/N²) from the kernel.
  const std::size_t N = 8192;
  const std::vector<double> rect(N, 1.0);
  const auto G = merit::spectrum_grid(rect.data(), N, 8);
  const auto s = merit::highest_sidelobe(rect.data(), N, G, 1.0);
  EXPECT_TRUE(s.found);
  EXPECT_NEAR(s.level_db, -13.2615, 2e-4);
  EXPECT_NEAR(s.bins, 1.430297, 1e-5);
  // No sidelobe beyond N/2.
  const auto none = merit::highest_sidelobe(rect.data(), N, G, G.nyquist);
  EXPECT_FALSE(none.found);
  EXPECT_EQ(none.level_db, -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(none.bins));
}

TEST(Merit, LeakageFactorOfTheRectangle) {
  // ∫_{−1}^{1} sinc² = 2 Si(2π)/π: the fraction of energy in the rectangle's main lobe (large N;
  // the Dirichlet kernel differs by O(1/N²)).
  const double inside = 2.0 * sine_integral(2 * pi) / pi;
  EXPECT_NEAR(inside, 0.9028, 1e-4);
  const std::vector<double> rect(4096, 1.0);
  EXPECT_NEAR(merit::leakage_factor(rect.data(), rect.size(), 1.0), 1.0 - inside, 1e-6);
  // The whole period holds all the energy.
  EXPECT_NEAR(merit::leakage_factor(rect.data(), rect.size(), 2048.0), 0.0, 1e-12);
  // Hann, main lobe ±2 bins: 1 − (energy in |f| < 2)/total, closed form from the sinc terms is
  // not elementary; against the rectangle rule on a fine DTFT grid instead.
  const auto hann = cosine_sum(32, {0.5, 0.5});
  const std::size_t F = 1 << 16;
  std::vector<double> f(F + 1);
  for (std::size_t i = 0; i <= F; ++i) f[i] = -16.0 + 32.0 * static_cast<double>(i) / F;
  std::vector<sp::cplx> X(f.size());
  sp::dtft(hann.data(), 32, f.data(), f.size(), X.data());
  double main = 0, total = 0;
  for (std::size_t i = 0; i < F; ++i) {
    total += std::norm(X[i]);
    if (std::abs(f[i]) < 2.0) main += std::norm(X[i]);
  }
  EXPECT_NEAR(merit::leakage_factor(hann.data(), 32, 2.0), 1.0 - main / total, 1e-5);
}

TEST(Merit, FalloffIsTheAsymptoticSlope) {
  // −6 (k + 1) dB/octave for a window whose k-th derivative is the first to jump (extended by 0).
  struct Case {
    const char* name;
    std::vector<double> (*make)(std::size_t);
    double slope;
    std::vector<std::size_t> sizes;
  };
  const std::vector<Case> cases = {
      {"rectangle",
       [](std::size_t N) { return std::vector<double>(N, 1.0); },
       -6,
       {64, 256, 1024, 4096}},
      {"triangle",
       [](std::size_t N) { return win::make_window("triangular", N, false, {}); },
       -12,
       {64, 256, 1024, 4096}},
      {"hann",
       [](std::size_t N) {
         return cosine_sum(N, {0.5, 0.5});
       },
       -18,
       {256, 1024, 4096}},
      {"hamming",
       [](std::size_t N) {
         return cosine_sum(N, {0.54, 0.46});
       },
       -6,
       {1024, 4096}},
      {"blackman",
       [](std::size_t N) {
         return cosine_sum(N, {0.42, 0.5, 0.08});
       },
       -18,
       {1024, 4096}},
      {"exact blackman",
       [](std::size_t N) {
         return cosine_sum(N, {7938.0 / 18608, 9240.0 / 18608, 1430.0 / 18608});
       },
       -6,
       {1024, 4096, 16384}},
      {"blackman-harris 4",
       [](std::size_t N) {
         return cosine_sum(N, {0.35875, 0.48829, 0.14128, 0.01168});
       },
       -6,
       {4096, 16384}},
      {"hann-poisson 2",
       [](std::size_t N) { return poisson(N, 2.0, true); },
       -12,
       {256, 1024, 4096}},
      {"poisson 2", [](std::size_t N) { return poisson(N, 2.0, false); }, -6, {256, 1024, 4096}},
      {"poisson 4", [](std::size_t N) { return poisson(N, 4.0, false); }, -6, {16384, 65536}},
  };
  for (const auto& c : cases) {
    for (std::size_t N : c.sizes) {
      const auto w = c.make(N);
      const auto G = merit::spectrum_grid(w.data(), N, 8);
      const double fm = merit::first_minimum_bins(w.data(), N, G);
      EXPECT_NEAR(merit::sidelobe_falloff_db_per_octave(w.data(), N, fm), c.slope, 0.5)
          << c.name << " N=" << N;
      // Where the far band is asymptotic, the fitted slope agrees with the smoothness order.
      EXPECT_NEAR(merit::fitted_falloff_db_per_octave(w.data(), N, fm), c.slope, 0.5)
          << c.name << " N=" << N;
    }
  }
  // Hann at N = 64 (the band is one octave, 8–16 bins): within 1 dB/octave.
  const auto hann = cosine_sum(64, {0.5, 0.5});
  EXPECT_NEAR(merit::sidelobe_falloff_db_per_octave(hann.data(), 64, 2.0), -18, 1.0);
  // Too short to measure (N < 64): NaN, never a positive transition slope. A Gaussian at the
  // rounding floor: −inf. Dolph–Chebyshev (end impulses): 0 in both conventions.
  for (const std::size_t N : {8, 16, 32, 55, 56, 57, 63}) {
    const std::vector<double> rect(N, 1.0);
    EXPECT_TRUE(std::isnan(merit::sidelobe_falloff_db_per_octave(rect.data(), N, 1.0))) << N;
  }
  for (const bool sym : {true, false}) {
    const auto cheb = win::make_window("chebyshev", 1024, sym, {{"at", 80.0}});
    EXPECT_EQ(merit::sidelobe_falloff_db_per_octave(cheb.data(), 1024, 2.0), 0.0) << sym;
  }
  const auto gauss = win::make_window("gaussian", 1024, false, {{"alpha", 12.0}});
  EXPECT_EQ(merit::sidelobe_falloff_db_per_octave(gauss.data(), 1024, 512.0),
            -std::numeric_limits<double>::infinity());
}

TEST(Merit, CausalExponentialRipple) {
  const std::size_t N = 100;
  const double r = 0.97;
  std::vector<double> w(N);
  for (std::size_t n = 0; n < N; ++n) w[n] = std::pow(r, static_cast<double>(n));
  const auto c = merit::causal_exponential(w.data(), N);
  ASSERT_TRUE(c.is_causal_exponential);
  EXPECT_NEAR(c.decay_ratio, r, 1e-15);
  const double rN = std::pow(r, 100.0);
  EXPECT_NEAR(c.truncation_ripple_db, 20 * std::log10((1 + rN) / (1 - rN)), 1e-10);
  const auto hann = cosine_sum(16, {0.5, 0.5});
  EXPECT_FALSE(merit::causal_exponential(hann.data(), 16).is_causal_exponential);
}

}  // namespace
