#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
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
      EXPECT_LE(std::fabs(cx[i] - std::cos(x[i])), 2 * std::nextafter(std::fabs(cx[i]), 2.0) -
                                                      2 * std::fabs(cx[i]) + 1e-300);
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

TEST(Vecmath, WordsAreTheDrawWords) {
  const auto unit = rng::make_unit(12, rng::StreamId::chi_uniform, 7);
  for (auto isa : available()) {
    std::vector<std::uint64_t> w(16 * 5);
    simd::kernels(isa).words(unit, 3, 5, w.data());
    for (std::size_t i = 0; i < w.size(); ++i) {
      ASSERT_EQ(w[i], rng::draw_word(unit, 48 + i)) << simd::isa_name(isa) << " " << i;
    }
  }
}

TEST(Vecmath, ChiCoarseIsBitIdenticalAcrossPathsAndExact) {
  for (double d : {2.0, 5.0, 64.0}) {
    const double a = 0.5 * d - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * a);
    const std::size_t n = 1003;
    std::vector<double> x(n);
    std::vector<std::uint64_t> words(n / 4 + 40);
    rng::Stream sx(3, rng::StreamId::chi, 1);
    sx.normals(x.data(), n);
    const auto wunit = rng::make_unit(3, rng::StreamId::chi_uniform, 1);
    for (std::size_t i = 0; i < words.size(); ++i) words[i] = rng::draw_word(wunit, i);
    for (std::size_t first : {std::size_t{0}, std::size_t{3}, std::size_t{17}}) {
      std::vector<double> ref(n);
      std::vector<std::uint64_t> fref(n);
      const std::size_t nref = simd::kernels(simd::Isa::scalar)
                                   .chi_coarse(x.data(), words.data(), first, n, c, a, ref.data(), fref.data());
      EXPECT_LT(nref, d > 10 ? n / 50 : n / 2);  // the tight squeeze accepts almost all at d = 64
      // Every row accepted from its prefix is accepted by the exact test with any uniform of
      // that prefix (checked with the prefix's largest uniform), and out = sqrt(2 a v³).
      std::size_t f = 0;
      for (std::size_t j = 0; j < n; ++j) {
        const double v = 1.0 + c * x[j], v3 = v * v * v;
        EXPECT_EQ(ref[j], std::sqrt(2.0 * a * std::max(v3, 0.0)));
        if (f < nref && fref[f] == j) {
          ++f;
          continue;
        }
        const std::size_t p = first + j;
        const std::uint64_t k = words[p >> 2] >> (16 * (p & 3)) & 0xFFFFu;
        const double umax = rng::to_open_unit(k << 48 | 0xFFFFFFFFFFFFull);
        ASSERT_GT(v, 0.0);
        EXPECT_LT(std::log(umax), 0.5 * x[j] * x[j] + a * (1.0 - v3 + std::log(v3))) << j;
      }
      for (auto isa : available()) {
        std::vector<double> out(n);
        std::vector<std::uint64_t> fl(n);
        for (std::size_t len : {n, std::size_t{13}}) {  // also a partial last vector
          const std::size_t nf =
              simd::kernels(isa).chi_coarse(x.data(), words.data(), first, len, c, a, out.data(), fl.data());
          std::size_t nexp = 0;
          while (nexp < nref && fref[nexp] < len) ++nexp;
          ASSERT_EQ(nf, nexp) << simd::isa_name(isa);
          for (std::size_t j = 0; j < len; ++j) ASSERT_EQ(out[j], ref[j]) << simd::isa_name(isa);
          for (std::size_t i = 0; i < nf; ++i) EXPECT_EQ(fl[i], fref[i]);
        }
      }
    }
  }
}

namespace {
struct ExactCalls {
  std::vector<std::size_t> rows;
  static double call(void* self, std::size_t j) {
    static_cast<ExactCalls*>(self)->rows.push_back(j);
    return 1.0 + 0.001 * static_cast<double>(j);
  }
};
}  // namespace

TEST(Vecmath, OrfArgsAreTheComposedPassBitForBitOnEveryPath) {
  for (std::size_t d : {std::size_t{2}, std::size_t{5}, std::size_t{8}, std::size_t{64}, std::size_t{67}}) {
    for (std::size_t n : {d, 3 * d, 3 * d - (d + 1) / 2}) {
      const double a = 0.5 * static_cast<double>(d) - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * a);
      const std::size_t blocks = (n + d - 1) / d, first = 5;
      std::vector<double> z(blocks * d), x(n);
      std::vector<std::uint64_t> words((first + n) / 4 + 1);
      rng::Stream s(5, rng::StreamId::projected, d), sx(5, rng::StreamId::chi, d);
      s.normals(z.data(), z.size());
      sx.normals(x.data(), n);
      const auto wunit = rng::make_unit(5, rng::StreamId::chi_uniform, d);
      for (std::size_t i = 0; i < words.size(); ++i) words[i] = rng::draw_word(wunit, i);
      const double sc = 0.3, shift = 0.5;
      // reference: chi_coarse, the callback's values for the rows it leaves, then the arguments
      std::vector<double> chi(n), ref(n);
      std::vector<std::uint64_t> fail(n);
      const std::size_t nf = simd::kernels(simd::Isa::scalar)
                                 .chi_coarse(x.data(), words.data(), first, n, c, a, chi.data(), fail.data());
      if (d == 2) EXPECT_GT(nf, 0u);  // the callback is exercised
      std::vector<std::size_t> expect_rows;
      for (std::size_t i = 0; i < nf; ++i) {
        expect_rows.push_back(fail[i]);
        chi[fail[i]] = 1.0 + 0.001 * static_cast<double>(fail[i]);
      }
      for (std::size_t j = 0; j < n; ++j) {
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        const double* zb = z.data() + j / d * d;
        for (std::size_t i = 0; i < d; ++i) acc[i % 8] += zb[i] * zb[i];
        ref[j] = ((sc / std::sqrt(simd::reduce8(acc))) * chi[j]) * z[j] - shift;
      }
      for (auto isa : available()) {
        ExactCalls calls;
        simd::OrfChunk ch{z.data(), x.data(), words.data(), first, d, n, sc, c, a, shift,
                          &ExactCalls::call, &calls};
        std::vector<double> out(n);
        simd::kernels(isa).orf_args(ch, out.data());
        EXPECT_EQ(calls.rows, expect_rows) << simd::isa_name(isa);
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
    simd::kernels(simd::Isa::scalar).dots2(G.data(), m, d, q.data(), k.data(), rq.data(), rk.data());
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
