// GoogleTest: windows and spectra core (cpp/include/ropelab/windows.hpp, spectrum.hpp).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <csignal>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ropelab/spectrum.hpp"
#include "ropelab/windows.hpp"

namespace {

using ropelab::spectra::cplx;
namespace sp = ropelab::spectra;
namespace win = ropelab::spectra::windows;

constexpr double pi = 3.14159265358979323846;

TEST(Windows, SymmetricWindowsAreExactlySymmetric) {
  for (const win::WindowRow& row : win::table()) {
    const std::string& name = row.name;
    if (row.symmetry == win::Symmetry::dft_even) continue;
    if (name == "kaiser_bessel_derived") continue;  // even N only (checked below)
    std::map<std::string, double> params;
    for (const auto& p : win::parameters(name))
      params[p] = p == "attenuation" ? 60.0 : p == "NW" ? 0.4 : 3.0;
    for (std::size_t N : {1u, 2u, 5u, 64u, 101u}) {
      const auto w = win::make_window(name, N, true, params);
      ASSERT_EQ(w.size(), N);
      for (std::size_t n = 0; n < N; ++n) EXPECT_EQ(w[n], w[N - 1 - n]) << name << " N=" << N;
    }
  }
}

TEST(Windows, KaiserBesselDerivedIsSymmetricAndPowerComplementary) {
  for (std::size_t N : {2u, 8u, 64u}) {
    const auto w = win::make_window("kaiser_bessel_derived", N, true, {{"beta", 4.0}});
    for (std::size_t n = 0; n < N; ++n) EXPECT_EQ(w[n], w[N - 1 - n]);
    // Princen–Bradley: w[n]² + w[n + N/2]² = 1.
    for (std::size_t n = 0; n < N / 2; ++n)
      EXPECT_NEAR(w[n] * w[n] + w[n + N / 2] * w[n + N / 2], 1.0, 1e-14);
  }
  EXPECT_THROW(win::make_window("kaiser_bessel_derived", 7, true, {{"beta", 4.0}}),
               std::invalid_argument);
  EXPECT_THROW(win::make_window("kaiser_bessel_derived", 8, false, {{"beta", 4.0}}),
               std::invalid_argument);
}

TEST(Windows, TableRowsAreComplete) {
  // One row per name; every parameter name has its range; the sampler is set; fall-off orders
  // are those measured from the samples at the row's reference parameters (N = 4096).
  std::set<std::string> seen;
  for (const win::WindowRow& row : win::table()) {
    EXPECT_TRUE(seen.insert(row.name).second) << row.name;
    ASSERT_TRUE(static_cast<bool>(row.sampler)) << row.name;
    std::map<std::string, double> params = row.reference;
    for (const win::ParameterInfo& p : row.parameters) {
      EXPECT_EQ(p.alternatives.size(), p.alternative_ranges.size()) << row.name << " " << p.name;
      if (!p.required) continue;
      bool given = params.count(p.name) > 0;
      for (const auto& a : p.alternatives) given = given || params.count(a) > 0;
      EXPECT_TRUE(given) << row.name << ": reference lacks " << p.name;
    }
    const bool sym = row.symmetry == win::Symmetry::symmetric;
    const auto w = win::make_window(row.name, 4096, sym, params);
    const double a = sp::merit::falloff_order(sp::merit::smoothness(w.data(), w.size(), true));
    EXPECT_EQ(a > sp::merit::kMaxSmoothnessOrder ? -1.0 : a, row.falloff_order) << row.name;
  }
  EXPECT_EQ(win::names().size(), win::table().size());
  EXPECT_EQ(win::row("boxcar").name, "rectangular");
}

TEST(Windows, SsmIsTheCausalExponential) {
  const auto w = win::make_window("ssm", 16, false, {{"alpha", 0.25}});
  for (std::size_t n = 0; n < 16; ++n) EXPECT_EQ(w[n], std::exp(-0.25 * static_cast<double>(n)));
  // scipy's exponential: centred, tau = 1 by default.
  const auto e = win::make_window("exponential", 5, true, {});
  for (std::size_t n = 0; n < 5; ++n)
    EXPECT_EQ(e[n], std::exp(-std::abs(static_cast<double>(n) - 2.0)));
}

TEST(Windows, HannDftEven) {
  const auto w = win::make_window("hann", 4, false, {});
  EXPECT_NEAR(w[0], 0.0, 1e-16);
  EXPECT_NEAR(w[1], 0.5, 1e-16);
  EXPECT_NEAR(w[2], 1.0, 1e-16);
  EXPECT_NEAR(w[3], 0.5, 1e-16);
}

TEST(Windows, BadArguments) {
  EXPECT_THROW(win::make_window("nope", 8, false, {}), std::invalid_argument);
  EXPECT_TRUE(win::make_window("hann", 0, false, {}).empty());  // N = 0: empty, as scipy
  EXPECT_THROW(win::make_window("kaiser", 8, false, {}), std::invalid_argument);
  EXPECT_THROW(win::make_window("chebyshev", 8, false, {{"attenuation", 0.0}}),
               std::invalid_argument);
  EXPECT_THROW(win::make_window("ssm", 8, false, {{"alpha", -1.0}}), std::invalid_argument);
  EXPECT_THROW(win::make_window("ssm", 8, true, {{"alpha", 1.0}}), std::invalid_argument);
  EXPECT_THROW(win::make_window("exponential", 8, false, {{"alpha", 1.0}}), std::invalid_argument);
  EXPECT_THROW(win::make_window("exponential", 8, true, {{"center", 1.0}}), std::invalid_argument);
  EXPECT_THROW(win::make_window("hann", 8, false, {{"beta", 1.0}}), std::invalid_argument);
}

TEST(Spectrum, FftDtftClosedFormAgree) {
  for (double alpha : {0.0, 0.01, 0.5}) {
    for (double omega : {0.0, 0.4, -2.5}) {
      for (std::size_t N : {3u, 64u, 200u}) {
        std::vector<cplx> h(N);
        sp::ssm_impulse(alpha, omega, N, h.data());
        const std::size_t pad = 4;
        std::vector<double> f(sp::spectrum_size(N, pad, false)), mag(f.size());
        sp::spectrum_complex(h.data(), N, pad, f.data(), mag.data());
        std::vector<cplx> X(f.size());
        sp::dtft(h.data(), N, f.data(), f.size(), X.data());
        double peak = 0;
        for (double m : mag) peak = std::max(peak, m);
        for (std::size_t i = 0; i < f.size(); ++i) {
          const cplx H = sp::ssm_spectrum(alpha, omega, N, f[i]);
          if (std::abs(H) < 1e-2 * peak) continue;  // away from zeros (see test_spectra.py)
          EXPECT_NEAR(std::abs(X[i]) / std::abs(H), 1.0, 1e-12);
          EXPECT_NEAR(mag[i] / std::abs(H), 1.0, 1e-12);
        }
      }
    }
  }
}

TEST(Spectrum, ClosedFormPeakLimit) {
  EXPECT_EQ(sp::ssm_spectrum(0.0, 0.0, 16, 0.0), cplx(16.0));
  EXPECT_EQ(sp::continuous_spectrum(0.0, 0.0, 2.0, 0.0), cplx(2.0));
}

TEST(Spectrum, ZohSmallA) {
  cplx A, B;
  sp::zoh(0.0, 0.0, 0.5, cplx(2.0), A, B);
  EXPECT_EQ(A, cplx(1.0));
  EXPECT_EQ(B, cplx(1.0));
  sp::zoh(1e-12, 0.0, 1.0, cplx(1.0), A, B);
  EXPECT_NEAR(B.real(), 1.0 - 0.5e-12, 1e-16);
}

TEST(Spectrum, PlansAreThreadSafe) {
  std::vector<double> x(100);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3 * static_cast<double>(i));
  std::vector<cplx> ref(51 * 7 / 2 + 1);
  sp::fft_r2c(x.data(), x.size(), 357, ref.data());
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<cplx> out(ref.size());
      bool same = true;
      for (int rep = 0; rep < 20; ++rep) {
        // Other sizes force concurrent plan creation under the mutex.
        std::vector<cplx> other(
            (100 + static_cast<std::size_t>(t) * 7 + static_cast<std::size_t>(rep)) / 2 + 1);
        sp::fft_r2c(x.data(), x.size(),
                    100 + static_cast<std::size_t>(t) * 7 + static_cast<std::size_t>(rep),
                    other.data());
        sp::fft_r2c(x.data(), x.size(), 357, out.data());
        same = same && out == ref;
      }
      ok[static_cast<std::size_t>(t)] = same ? 1 : 0;
    });
  }
  for (auto& th : threads) th.join();
  for (int v : ok) EXPECT_EQ(v, 1);
}

TEST(FiguresOfMerit, RectangleAndHann) {
  const auto rect = win::make_window("rectangular", 4096, false, {});
  const auto r = sp::figures_of_merit(rect.data(), rect.size(), 32);
  EXPECT_NEAR(r.highest_sidelobe_db, -13.26, 0.01);
  EXPECT_NEAR(r.enbw_bins, 1.0, 1e-12);
  EXPECT_NEAR(r.scalloping_loss_db, 3.92, 0.005);
  EXPECT_NEAR(r.bandwidth_3db_bins, 0.89, 0.005);
  EXPECT_TRUE(r.first_min_is_null);
  const auto hann = win::make_window("hann", 4096, false, {});
  const auto h = sp::figures_of_merit(hann.data(), hann.size(), 32);
  EXPECT_NEAR(h.highest_sidelobe_db, -31.5, 0.05);
  EXPECT_NEAR(h.enbw_bins, 1.5, 1e-12);
  EXPECT_NEAR(h.bandwidth_3db_bins, 1.44, 0.005);
  EXPECT_NEAR(h.scalloping_loss_db, 1.42, 0.005);
  EXPECT_NEAR(h.worst_case_processing_loss_db, 3.18, 0.005);
}

TEST(FiguresOfMerit, CausalExponentialWorkedExample) {
  const std::size_t N = 1024;
  const auto w = win::make_window("ssm", N, false, {{"alpha", 2.0 / N}});
  const auto m = sp::figures_of_merit(w.data(), N, 64);
  EXPECT_NEAR(m.first_min_bins, 1.15, 0.005);
  EXPECT_NEAR(m.first_min_db, -10.9, 0.05);
  EXPECT_NEAR(m.highest_sidelobe_db, -10.8, 0.05);
  EXPECT_FALSE(m.first_min_is_null);
  ASSERT_TRUE(m.is_causal_exponential);
  const double r = std::exp(-2.0 / N), rN = std::exp(-2.0);
  EXPECT_NEAR(m.enbw_bins / (N * (1 - r) * (1 + rN) / ((1 + r) * (1 - rN))), 1.0, 1e-12);
  EXPECT_NEAR(m.truncation_ripple_db, 20 * std::log10((1 + rN) / (1 - rN)), 1e-9);
}

TEST(FiguresOfMerit, PaddingIndependence) {
  const auto w = win::make_window("kaiser", 512, false, {{"beta", 9.0}});
  const auto a = sp::figures_of_merit(w.data(), w.size(), 16);
  const auto b = sp::figures_of_merit(w.data(), w.size(), 256);
  EXPECT_NEAR(a.bandwidth_3db_bins, b.bandwidth_3db_bins, 1e-3);
  EXPECT_NEAR(a.first_min_bins, b.first_min_bins, 1e-3);
  EXPECT_NEAR(a.highest_sidelobe_bins, b.highest_sidelobe_bins, 1e-3);
  EXPECT_NEAR(a.highest_sidelobe_db, b.highest_sidelobe_db, 0.01);
}

TEST(FiguresOfMerit, BadInput) {
  const std::vector<double> zero_sum = {1.0, -1.0};
  EXPECT_THROW(sp::figures_of_merit(zero_sum.data(), 2, 8), std::invalid_argument);
  const std::vector<double> one = {1.0};
  EXPECT_THROW(sp::figures_of_merit(one.data(), 1, 0), std::invalid_argument);
  EXPECT_THROW(sp::figures_of_merit(one.data(), 0, 8), std::invalid_argument);
}

TEST(LeakageMap, RectangleHalfBinScalloping) {
  const double alpha[] = {0.0};
  const double om[] = {2 * pi * 3.5 / 64};
  const auto m = sp::leakage_map(alpha, 1, om, 1, 64, 16);
  EXPECT_NEAR(m.scalloping_db[0], 3.92, 0.01);
}

TEST(LeakageMap, DecayPerSample) {
  // alpha is the decay per sample, recorded as given; row i is the window e^{−alpha n}.
  const std::size_t N = 64;
  const double alpha[] = {2.0 / 64, 0.5};
  const double om[] = {0.3};
  const auto m = sp::leakage_map(alpha, 2, om, 1, N, 8);
  EXPECT_EQ(m.alpha[0], 2.0 / 64);
  EXPECT_EQ(m.alpha[1], 0.5);
  std::vector<double> w(N);
  for (std::size_t n = 0; n < N; ++n) w[n] = std::exp(-alpha[0] * static_cast<double>(n));
  const auto ref = sp::figures_of_merit(w.data(), N, 8);
  EXPECT_EQ(m.window[0].highest_sidelobe_db, ref.highest_sidelobe_db);
  EXPECT_EQ(m.window[0].enbw_bins, ref.enbw_bins);
}

TEST(PlanCache, BoundedLeastRecentlyUsed) {
  std::vector<cplx> out(2000);
  std::vector<double> x(1000, 1.0);
  for (std::size_t m = 300; m < 500; ++m) {
    sp::fft_r2c(x.data(), 10, m, out.data());
    EXPECT_LE(sp::cached_plan_count(), sp::plan_cache_capacity);
  }
  EXPECT_EQ(sp::cached_plan_count(), sp::plan_cache_capacity);
  // an evicted length is planned again and gives the same numbers
  std::vector<cplx> a(200), b(200);
  sp::fft_r2c(x.data(), 10, 301, a.data());
  for (std::size_t m = 600; m < 700; ++m) sp::fft_r2c(x.data(), 10, m, out.data());
  sp::fft_r2c(x.data(), 10, 301, b.data());
  for (std::size_t k = 0; k < 151; ++k) EXPECT_EQ(a[k], b[k]);
  // a length beyond the point budget is planned per call, never cached
  const std::size_t before = sp::cached_plan_count();
  const std::size_t big = sp::plan_cache_max_points + 2;
  std::vector<double> xb(16, 1.0);
  std::vector<cplx> ob(big / 2 + 1);
  sp::fft_r2c(xb.data(), 16, big, ob.data());
  EXPECT_EQ(sp::cached_plan_count(), before);
  EXPECT_NEAR(ob[0].real(), 16.0, 1e-12);
}

TEST(FiguresOfMerit, ScaleInvariantAndCancellable) {
  const auto w = win::make_window("hann", 64, false, {});
  std::vector<double> big(w), tiny(w);
  for (double& v : big) v *= 0x1p900;
  for (double& v : tiny) v *= 0x1p-1000;
  const auto a = sp::figures_of_merit(w.data(), w.size(), 16);
  const auto b = sp::figures_of_merit(big.data(), big.size(), 16);
  const auto c = sp::figures_of_merit(tiny.data(), tiny.size(), 16);
  EXPECT_EQ(a.enbw_bins, b.enbw_bins);
  EXPECT_EQ(a.enbw_bins, c.enbw_bins);
  EXPECT_EQ(a.highest_sidelobe_db, b.highest_sidelobe_db);
  std::atomic<bool> cancel{true};
  EXPECT_THROW(sp::figures_of_merit(w.data(), w.size(), 16, &cancel), std::runtime_error);
}

TEST(SsmKernel, StopsWhenCancelledAndIgnoresAClearFlag) {
  const std::vector<double> alpha{0.1, 0.0}, omega{0.3, 1.0};
  const std::vector<cplx> B{cplx(1.0), cplx(0.5, 1.0)}, C{cplx(1.0), cplx(2.0)};
  std::vector<cplx> a(300000), b(300000);
  std::atomic<bool> clear{false}, set{true};
  sp::ssm_kernel(alpha.data(), omega.data(), B.data(), C.data(), 2, 0.1, a.size(), a.data());
  sp::ssm_kernel(alpha.data(), omega.data(), B.data(), C.data(), 2, 0.1, b.size(), b.data(),
                 &clear);
  EXPECT_EQ(a, b);  // polling does not change a bit
  EXPECT_THROW(sp::ssm_kernel(alpha.data(), omega.data(), B.data(), C.data(), 2, 0.1, b.size(),
                              b.data(), &set),
               std::runtime_error);
}

TEST(PlanCache, ForkWhileAnotherThreadPlans) {
#if defined(__SANITIZE_ADDRESS__)
  // GCC 12's AddressSanitizer allocator has no fork handler: a child forked while the planner
  // thread is inside malloc can hang in the sanitizer itself. The regular build runs this test.
  GTEST_SKIP() << "the AddressSanitizer runtime is not fork-safe with running threads";
#endif
  std::atomic<bool> stop{false};
  std::thread planner([&] {
    std::vector<double> x(16, 1.0);
    std::vector<cplx> out(20000);
    for (std::size_t m = 5000; !stop; m = m < 30000 ? m + 7 : 5000)
      sp::fft_r2c(x.data(), 16, m, out.data());
  });
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const pid_t pid = fork();
    if (pid == 0) {  // the child must be able to plan (the lock is not inherited held)
      std::vector<double> x(16, 1.0);
      std::vector<cplx> out(40000);
      sp::fft_r2c(x.data(), 16, 77777 + static_cast<std::size_t>(i), out.data());
      _exit(std::abs(out[0].real() - 16.0) < 1e-9 ? 0 : 3);
    }
    ASSERT_GT(pid, 0);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    pid_t done = 0;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (done == 0) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "child " << i << " deadlocked";
    } else {
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << i;
    }
  }
  stop = true;
  planner.join();
}

}  // namespace
