#include <gtest/gtest.h>

#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/rng.hpp"
#include "ropelab/vecmath.hpp"

using namespace ropelab;

namespace {

std::vector<simd::Isa> available() {
  std::vector<simd::Isa> out;
  for (auto isa : {simd::Isa::scalar, simd::Isa::avx2, simd::Isa::avx512}) {
    if (simd::supported(isa)) out.push_back(isa);
  }
  return out;
}

}  // namespace

TEST(Philox, KnownAnswerOfRandom123) {
  // Random123's kat_vectors: philox4x32_10, counter 0, key 0.
  r123::Philox4x32 gen;
  const r123::Philox4x32::ctr_type c{{0, 0, 0, 0}};
  const r123::Philox4x32::key_type k{{0, 0}};
  const auto r = gen(c, k);
  EXPECT_EQ(r.v[0], 0x6627e8d5u);
  EXPECT_EQ(r.v[1], 0xe169c58du);
  EXPECT_EQ(r.v[2], 0xbc57ac4cu);
  EXPECT_EQ(r.v[3], 0x9b00dbd8u);
}

TEST(Vecmath, IsaNamesRoundTrip) {
  const auto& names = simd::isa_names();
  ASSERT_EQ(names.size(), 3u);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto isa = static_cast<simd::Isa>(i);
    EXPECT_EQ(std::string(simd::isa_name(isa)), names[i]);
    EXPECT_EQ(simd::parse_isa(names[i].c_str()), isa);
  }
  EXPECT_THROW(simd::parse_isa("sse"), std::invalid_argument);
}

TEST(Vecmath, EveryPathGivesTheReferenceDrawsBitForBit) {
  // Seeds/indices with high bits set exercise every counter and key word; group counts 1..5
  // cover the AVX-512 kernel's odd last group.
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{0xFEDCBA9876543210ull}}) {
    for (std::uint64_t index : {std::uint64_t{3}, std::uint64_t{0x123456789ull}}) {
      const auto unit = rng::make_unit(seed, rng::StreamId::projected, index);
      for (auto isa : available()) {
        const simd::Kernels& kern = simd::kernels(isa);
        for (std::size_t ng = 1; ng <= 5; ++ng) {
          const std::uint64_t g0 = 1000 + 7 * ng;
          std::vector<double> z(16 * ng), u(16 * ng);
          kern.normals(unit, g0, ng, z.data());
          kern.uniforms(unit, g0, ng, u.data());
          for (std::size_t i = 0; i < z.size(); ++i) {
            ASSERT_EQ(z[i], rng::normal_at(unit, 16 * g0 + i)) << kern.name << " draw " << i;
            ASSERT_EQ(u[i], rng::uniform_at(unit, 16 * g0 + i)) << kern.name << " draw " << i;
          }
        }
      }
    }
  }
}

TEST(Vecmath, RejectionsAreBitIdenticalAcrossPaths) {
  // 2^16 normals include ~800 ziggurat rejections (and tail draws) on every path.
  const auto unit = rng::make_unit(5, rng::StreamId::omega, 9);
  const std::size_t ng = 4096;
  std::vector<double> ref(16 * ng);
  simd::kernels(simd::Isa::scalar).normals(unit, 0, ng, ref.data());
  std::size_t tail = 0;
  for (double z : ref) tail += std::fabs(z) > rng::ZigguratTables::kR;
  EXPECT_GT(tail, 0u);
  for (auto isa : available()) {
    std::vector<double> z(16 * ng);
    simd::kernels(isa).normals(unit, 0, ng, z.data());
    EXPECT_EQ(z, ref) << simd::isa_name(isa);
  }
}

TEST(Vecmath, SumsMatchAcrossPathsAndAreWithinOneUlpOfLibm) {
  std::vector<double> x(1003), y(1003);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.37 * static_cast<double>(i) - 150.0;
    y[i] = std::sin(static_cast<double>(i));
  }
  double ref[3] = {0, 0, 0};
  for (std::size_t i = 0; i < x.size(); ++i) {
    ref[0] += std::cos(x[i]);
    ref[1] += std::exp(y[i]);
    ref[2] += std::cos(x[i]) * std::cos(y[i]);
  }
  std::vector<double> vec_results;
  for (auto isa : available()) {
    const simd::Kernels& kern = simd::kernels(isa);
    double a[8] = {}, b[8] = {}, c[8] = {};
    // uneven call sizes: the padding of partial groups must add exactly +0.0
    kern.sum_cos(x.data(), 500, a);
    kern.sum_cos(x.data() + 500, 503, a);
    kern.sum_exp(y.data(), x.size(), b);
    kern.sum_cos_cos(x.data(), y.data(), x.size(), c);
    const double s[3] = {simd::reduce8(a), simd::reduce8(b), simd::reduce8(c)};
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(s[i], ref[i], 1e-12 * (1 + std::fabs(ref[i])));
    std::vector<double> cx(x.size());
    kern.cos(x.data(), x.size(), cx.data());
    for (std::size_t i = 0; i < x.size(); ++i) {
      // u10: within 1 ULP of the true value; glibc's cos is itself correctly rounded-ish (< 1 ULP)
      EXPECT_LE(std::fabs(cx[i] - std::cos(x[i])),
                2 * std::nextafter(std::fabs(cx[i]), 2.0) - 2 * std::fabs(cx[i]) + 1e-300);
    }
    if (isa != simd::Isa::scalar) {
      vec_results.insert(vec_results.end(), s, s + 3);
      vec_results.insert(vec_results.end(), cx.begin(), cx.end());
    }
  }
  // avx2 and avx512 (same FMA algorithm in SLEEF) give identical bits.
  if (vec_results.size() == 2 * (3 + x.size())) {
    for (std::size_t i = 0; i < 3 + x.size(); ++i) {
      EXPECT_EQ(vec_results[i], vec_results[3 + x.size() + i]) << i;
    }
  }
}

TEST(Vecmath, StreamBulkAndSingleReadsAgree) {
  rng::Stream a(11, rng::StreamId::phase, 4), b(11, rng::StreamId::phase, 4);
  std::vector<double> bulk(37);
  a.normal();
  a.normals(bulk.data(), 37);  // unaligned start: buffer, then whole groups, then buffer
  b.normal();
  for (double z : bulk) ASSERT_EQ(z, b.normal());
  const auto unit = rng::make_unit(11, rng::StreamId::phase, 4);
  EXPECT_EQ(a.uniform(), rng::uniform_at(unit, 38));
}

TEST(Vecmath, ChiZigguratTablesAreConsistent) {
  for (std::size_t d :
       {std::size_t{2}, std::size_t{3}, std::size_t{8}, std::size_t{64}, std::size_t{1000}}) {
    const auto& z = rng::ChiZiggurat::get(d);
    constexpr int n = rng::ChiZiggurat::kLayers;
    EXPECT_LT(z.y[n - 1], 1.0);
    EXPECT_GE(z.y[n], 1.0);  // the top box covers the mode
    for (int i = 1; i < n; ++i) {
      // equal areas; the box [c − h, c + h] is the level set of y[i]
      EXPECT_NEAR((z.y[i + 1] - z.y[i]) * 2 * z.h[i] / z.V, 1.0, 1e-12) << "d=" << d << " i=" << i;
      EXPECT_NEAR(z.log_f(z.c[i] - z.h[i]), std::log(z.y[i]),
                  1e-9 * (1 + std::fabs(std::log(z.y[i]))));
      EXPECT_NEAR(z.log_f(z.c[i] + z.h[i]), std::log(z.y[i]),
                  1e-9 * (1 + std::fabs(std::log(z.y[i]))));
    }
    EXPECT_NEAR(z.log_f(z.L1), std::log(z.y[1]), 1e-9 * std::fabs(std::log(z.y[1])));
    EXPECT_NEAR(z.log_f(z.R1), std::log(z.y[1]), 1e-9 * std::fabs(std::log(z.y[1])));
  }
  EXPECT_THROW(rng::ChiZiggurat(1), std::invalid_argument);
}

TEST(Vecmath, ChisAreBitIdenticalOnEveryPathAndEqualChiAt) {
  for (std::size_t d :
       {std::size_t{2}, std::size_t{3}, std::size_t{5}, std::size_t{64}, std::size_t{300}}) {
    const auto& z = rng::ChiZiggurat::get(d);
    const auto unit = rng::make_unit(14, rng::StreamId::chi, d);
    const std::size_t ng = 70;  // 1120 draws: more than one batch of the AVX-512 kernel
    for (auto isa : available()) {
      std::vector<double> out(16 * ng);
      simd::kernels(isa).chis(unit, z.tables(), 3, ng, out.data());
      for (std::size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(out[i], rng::chi_at(unit, z, 48 + i))
            << simd::isa_name(isa) << " d=" << d << " " << i;
      }
    }
  }
}

TEST(Vecmath, ChiZigguratDrawsTheChiDistribution) {
  // Kolmogorov–Smirnov against P(χ_d ≤ r) = P(d/2, r²/2), the mean, and the probability of the
  // tails (the slow path's exponential-envelope samplers) against their exact values.
  for (std::size_t d :
       {std::size_t{2}, std::size_t{3}, std::size_t{8}, std::size_t{64}, std::size_t{257}}) {
    const auto& z = rng::ChiZiggurat::get(d);
    const auto unit = rng::make_unit(15, rng::StreamId::chi, d);
    const std::size_t n = 16 * 25000;
    std::vector<double> r(n);
    simd::kernels().chis(unit, z.tables(), 0, n / 16, r.data());
    std::sort(r.begin(), r.end());
    const double a = 0.5 * static_cast<double>(d);
    double dmax = 0, sum = 0;
    std::size_t below = 0, above = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_GT(r[i], 0.0);
      const double F = boost::math::gamma_p(a, 0.5 * r[i] * r[i]);
      dmax = std::max({dmax, std::fabs(F - static_cast<double>(i) / n),
                       std::fabs(F - static_cast<double>(i + 1) / n)});
      sum += r[i];
      below += r[i] < z.L1;
      above += r[i] > z.R1;
    }
    EXPECT_LT(dmax, 1.95 / std::sqrt(static_cast<double>(n))) << "d=" << d;  // p ≈ 0.001
    const double mean = std::sqrt(2.0) * std::exp(std::lgamma(a + 0.5) - std::lgamma(a));
    const double sd = std::sqrt(static_cast<double>(d) - mean * mean);
    EXPECT_NEAR(sum / n, mean, 5 * sd / std::sqrt(static_cast<double>(n))) << "d=" << d;
    for (auto [count, p] :
         {std::pair<std::size_t, double>{below, boost::math::gamma_p(a, 0.5 * z.L1 * z.L1)},
          std::pair<std::size_t, double>{above, boost::math::gamma_q(a, 0.5 * z.R1 * z.R1)}}) {
      EXPECT_NEAR(static_cast<double>(count), n * p, 5 * std::sqrt(n * p) + 3) << "d=" << d;
    }
  }
}

TEST(Vecmath, OrfArgsAreBitIdenticalAcrossPaths) {
  for (std::size_t d :
       {std::size_t{1}, std::size_t{5}, std::size_t{8}, std::size_t{64}, std::size_t{67}}) {
    for (std::size_t n : {d, 3 * d, 3 * d - (d + 1) / 2}) {
      const std::size_t blocks = (n + d - 1) / d;
      std::vector<double> z(blocks * d), chi(n);
      rng::Stream s(5, rng::StreamId::projected, d);
      s.normals(z.data(), z.size());
      s.uniforms(chi.data(), n);
      std::vector<double> ref(n);
      simd::kernels(simd::Isa::scalar).orf_args(z.data(), chi.data(), d, n, 1.7, 0.25, ref.data());
      for (std::size_t j = 0; j < n; ++j) {
        long double ss = 0;
        for (std::size_t i = 0; i < d; ++i)
          ss += static_cast<long double>(z[j / d * d + i]) * z[j / d * d + i];
        const double e = static_cast<double>(1.7L * chi[j] * z[j] / std::sqrt(ss) - 0.25L);
        EXPECT_NEAR(ref[j], e, 1e-14 * (1 + std::fabs(e)));
      }
      for (auto isa : available()) {
        std::vector<double> out(n);
        simd::kernels(isa).orf_args(z.data(), chi.data(), d, n, 1.7, 0.25, out.data());
        EXPECT_EQ(out, ref) << simd::isa_name(isa) << " d=" << d << " n=" << n;
      }
    }
  }
}

TEST(Vecmath, Dots2IsBitIdenticalAcrossPathsAndAccurate) {
  for (std::size_t d : {std::size_t{1}, std::size_t{5}, std::size_t{16}, std::size_t{67}}) {
    const std::size_t m = 9;
    std::vector<double> G(m * d), q(d), k(d);
    rng::Stream s(8, rng::StreamId::omega, d);
    s.normals(G.data(), G.size());
    s.normals(q.data(), d);
    s.normals(k.data(), d);
    std::vector<double> rq(m), rk(m);
    simd::kernels(simd::Isa::scalar)
        .dots2(G.data(), m, d, q.data(), k.data(), rq.data(), rk.data());
    for (std::size_t r = 0; r < m; ++r) {
      long double eq = 0;
      for (std::size_t i = 0; i < d; ++i) eq += static_cast<long double>(G[r * d + i]) * q[i];
      EXPECT_NEAR(rq[r], static_cast<double>(eq), 1e-13 * static_cast<double>(d));
    }
    for (auto isa : available()) {
      std::vector<double> pq(m), pk(m);
      simd::kernels(isa).dots2(G.data(), m, d, q.data(), k.data(), pq.data(), pk.data());
      EXPECT_EQ(pq, rq) << simd::isa_name(isa) << " d=" << d;
      EXPECT_EQ(pk, rk) << simd::isa_name(isa) << " d=" << d;
    }
  }
}
