#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ropelab/attention.hpp"
#include "ropelab/rff.hpp"
#include "test_util.hpp"

using namespace ropelab;
using ropelab::testing::max_abs_diff;
using ropelab::testing::normals;

namespace {

/// Direct O(T·S) exact attention of one sequence (max-subtracted per row).
std::vector<double> direct_softmax(const std::vector<double>& q, const std::vector<double>& k,
                                   const std::vector<double>& v, const attention::Shape& s,
                                   double scale, bool causal) {
  std::vector<double> out(s.T * s.dv, 0.0), w(s.S);
  for (std::size_t i = 0; i < s.T; ++i) {
    const std::size_t n = causal ? i + 1 : s.S;
    double m = -INFINITY;
    for (std::size_t j = 0; j < n; ++j) {
      double dot = 0;
      for (std::size_t c = 0; c < s.d; ++c) dot += q[i * s.d + c] * k[j * s.d + c];
      w[j] = scale * dot;
      m = std::max(m, w[j]);
    }
    double z = 0;
    for (std::size_t j = 0; j < n; ++j) z += (w[j] = std::exp(w[j] - m));
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t c = 0; c < s.dv; ++c) out[i * s.dv + c] += w[j] / z * v[j * s.dv + c];
    }
  }
  return out;
}

}  // namespace

TEST(Attention, SoftmaxMatchesDirectSum) {
  attention::Shape s{1, 300, 300, 5, 3};
  const auto q = normals(s.T * s.d, 1), k = normals(s.S * s.d, 2), v = normals(s.S * s.dv, 3);
  for (bool causal : {true, false}) {
    std::vector<double> out(s.T * s.dv);
    attention::softmax(q.data(), k.data(), v.data(), s, 0.6, causal, nullptr, 2, out.data(),
                       nullptr);
    EXPECT_LT(max_abs_diff(out, direct_softmax(q, k, v, s, 0.6, causal)), 1e-13);
  }
}

TEST(Attention, FeatureMapsAgreeWithRff) {
  const std::size_t n = 4, d = 3, D = 16;
  const auto x = normals(n * d, 4, 0.5);
  std::vector<double> omega(D * d), a(n * 2 * D), b(n * 2 * D);
  rff::sample_omega(D, d, 1.2, false, 0, 9, omega.data());
  for (auto [ae, re] : {std::pair{Estimator::trig, Estimator::trig},
                        std::pair{Estimator::positive, Estimator::positive}}) {
    attention::feature_map(x.data(), n, d, omega.data(), D, ae, 1.0, nullptr, a.data(), nullptr);
    rff::feature_map(x.data(), n, d, omega.data(), D, re, nullptr, b.data());
    const std::size_t F = attention::feature_count(ae, D);
    for (std::size_t i = 0; i < n * F; ++i)
      EXPECT_NEAR(a[i], b[i], 1e-14 * std::abs(b[i]) + 1e-300);
  }
}

TEST(Attention, HyperbolicIsUnbiasedInTheMean) {
  // E[φ(q)·φ(k)] = exp(q·k): average over many frequency draws.
  const std::size_t d = 3, D = 4096;
  const std::vector<double> x{0.3, -0.2, 0.5, 0.1, 0.4, -0.3};  // q, k
  std::vector<double> omega(D * d), f(2 * 2 * D);
  rff::sample_omega(D, d, 1.0, false, 0, 3, omega.data());
  attention::feature_map(x.data(), 2, d, omega.data(), D, Estimator::hyperbolic, 1.0, nullptr,
                         f.data(), nullptr);
  double dot = 0, dot2 = 0;
  for (std::size_t j = 0; j < 2 * D; ++j) {
    const double t = f[j] * f[2 * D + j] * 2.0 * static_cast<double>(D);  // one term
    dot += t;
    dot2 += t * t;
  }
  const double mean = dot / (2.0 * D), var = dot2 / (2.0 * D) - mean * mean;
  const double exact = std::exp(0.3 * 0.1 - 0.2 * 0.4 - 0.5 * 0.3);
  EXPECT_LT(std::abs(mean - exact), 5 * std::sqrt(var / static_cast<double>(D)));
}

TEST(Attention, RandomFeatureThreadCountInvariantAndCausalEqualsQuadraticForm) {
  attention::Shape s{2, 700, 700, 4, 2};
  const auto q = normals(s.batch * s.T * s.d, 5, 0.5), k = normals(s.batch * s.S * s.d, 6, 0.5);
  const auto v = normals(s.batch * s.S * s.dv, 7);
  attention::RandomFeatureOptions opt;
  opt.D = 8;
  opt.estimator = Estimator::positive;
  opt.trials = 2;
  opt.seed = 11;
  opt.scale = 0.5;
  std::vector<double> out1(opt.trials * s.batch * s.T * s.dv), out3(out1.size());
  opt.nthreads = 1;
  attention::random_feature(q.data(), k.data(), v.data(), s, opt, out1.data(), nullptr, nullptr,
                            nullptr);
  opt.nthreads = 3;
  attention::random_feature(q.data(), k.data(), v.data(), s, opt, out3.data(), nullptr, nullptr,
                            nullptr);
  EXPECT_EQ(out1, out3);
  // trial 1, sequence 1 against the masked quadratic form of the same features
  std::vector<double> omega(opt.D * s.d);
  attention::trial_omega(opt, s.d, 1, omega.data());
  std::vector<double> fq(s.T * opt.D), fk(s.S * opt.D);
  const std::size_t off = s.T * s.d;
  attention::feature_map(q.data() + off, s.T, s.d, omega.data(), opt.D, opt.estimator, opt.scale,
                         nullptr, fq.data(), nullptr);
  attention::feature_map(k.data() + off, s.S, s.d, omega.data(), opt.D, opt.estimator, opt.scale,
                         nullptr, fk.data(), nullptr);
  double worst = 0;
  for (std::size_t i = 0; i < s.T; ++i) {
    double num[2] = {0, 0}, den = 0;
    for (std::size_t j = 0; j <= i; ++j) {
      double a = 0;
      for (std::size_t f = 0; f < opt.D; ++f) a += fq[i * opt.D + f] * fk[j * opt.D + f];
      den += a;
      for (std::size_t c = 0; c < 2; ++c) num[c] += a * v[(s.S + j) * s.dv + c];
    }
    for (std::size_t c = 0; c < 2; ++c) {
      const double got = out1[((1 * s.batch + 1) * s.T + i) * s.dv + c];
      worst = std::max(worst, std::abs(got - num[c] / den));
    }
  }
  EXPECT_LT(worst, 1e-11);
}

TEST(Attention, ParseEstimator) {
  const auto& subset = attention::estimators();
  ASSERT_EQ(subset.size(), 3u);
  const std::vector<std::string> names = estimator_names(subset);
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(attention::parse_estimator(names[i]), subset[i]);
  }
  EXPECT_EQ(attention::parse_estimator("hyperbolic"), Estimator::hyperbolic);
  EXPECT_THROW(attention::parse_estimator("random_phase"), std::invalid_argument);
}

// ----------------------------------------------------------------------------------------------
// The chunked causal prefix sums against the plain rank-1 recurrence.

namespace {

/// out_i = fq_i Z_i with Z_i = Σ_{j ≤ i} fk_j x_jᵀ (the rank-1 recurrence), and the bound
/// γ·Σ_{j ≤ i} |fq_i|·|fk_j| |x_j| of the rounding error of any summation order, γ = (F + T)·u.
void rank1_recurrence(const std::vector<double>& fq, const std::vector<double>& fk,
                      const std::vector<double>& x, std::size_t T, std::size_t F, std::size_t w,
                      std::vector<double>& out, std::vector<double>& bound) {
  std::vector<double> Z(F * w, 0.0), Za(F * w, 0.0);
  out.assign(T * w, 0.0);
  bound.assign(T * w, 0.0);
  const double gamma = static_cast<double>(F + T) * 1.1102230246251565e-16;
  for (std::size_t i = 0; i < T; ++i) {
    for (std::size_t f = 0; f < F; ++f) {
      for (std::size_t c = 0; c < w; ++c) {
        Z[f * w + c] += fk[i * F + f] * x[i * w + c];
        Za[f * w + c] += std::abs(fk[i * F + f] * x[i * w + c]);
      }
    }
    for (std::size_t f = 0; f < F; ++f) {
      for (std::size_t c = 0; c < w; ++c) {
        out[i * w + c] += fq[i * F + f] * Z[f * w + c];
        bound[i * w + c] += gamma * std::abs(fq[i * F + f]) * Za[f * w + c];
      }
    }
  }
}

}  // namespace

TEST(AttentionChunked, CausalPrefixEqualsRank1Recurrence) {
  // T not a multiple of kChunk; signed features (the algebra does not need positive ones)
  for (std::size_t T : {std::size_t{1}, std::size_t{64}, std::size_t{300}}) {
    const std::size_t F = 13, w = 4;
    const auto fq = normals(T * F, 21), fk = normals(T * F, 22), x = normals(T * w, 23);
    std::vector<double> got(T * w), ref, bound;
    attention::causal_linear_attention(fq.data(), fk.data(), x.data(), T, F, w, got.data());
    rank1_recurrence(fq, fk, x, T, F, w, ref, bound);
    for (std::size_t i = 0; i < T * w; ++i) {
      EXPECT_LE(std::abs(got[i] - ref[i]), 2 * bound[i] + 1e-300) << "T=" << T << " entry " << i;
    }
  }
}

TEST(AttentionChunked, MaskedChunkProductIsTrilTimesValues) {
  for (std::size_t n : {std::size_t{1}, std::size_t{37}, attention::kChunk}) {
    const std::size_t F = 9, w = 3;
    const auto fq = normals(n * F, 31), fk = normals(n * F, 32), x = normals(n * w, 33);
    std::vector<double> fkT(F * n), local(n * w), A, pack;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t f = 0; f < F; ++f) fkT[f * n + i] = fk[i * F + f];
    }
    attention::masked_chunk_product(fq.data(), fkT.data(), x.data(), n, F, w, local.data(), A,
                                    pack);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < w; ++c) {
        double ref = 0, mag = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          double a = 0;
          for (std::size_t f = 0; f < F; ++f) a += fq[i * F + f] * fk[j * F + f];
          ref += a * x[j * w + c];
          for (std::size_t f = 0; f < F; ++f)
            mag += std::abs(fq[i * F + f] * fk[j * F + f] * x[j * w + c]);
        }
        EXPECT_LE(std::abs(local[i * w + c] - ref),
                  2 * static_cast<double>(F + n) * 1.12e-16 * mag + 1e-300);
      }
    }
  }
}

TEST(AttentionChunked, MaskedChunkProductRescalesToEachRowsRunningMaximum) {
  // entry (i, j ≤ i) multiplied by exp(rmax_j − rmax_i): row i at the scale of the keys it sees
  for (std::size_t n : {std::size_t{1}, std::size_t{37}, attention::kChunk}) {
    const std::size_t F = 7, w = 2;
    const auto fq = normals(n * F, 51), fk = normals(n * F, 52), x = normals(n * w, 53);
    std::vector<double> fkT(F * n), local(n * w), rmax(n), A, pack;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t f = 0; f < F; ++f) fkT[f * n + i] = fk[i * F + f];
      rmax[i] = (i == 0 ? 0.0 : rmax[i - 1]) + (i % 5 == 3 ? 40.0 : 0.0);  // grows now and then
    }
    attention::masked_chunk_product(fq.data(), fkT.data(), x.data(), n, F, w, local.data(), A, pack,
                                    rmax.data());
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < w; ++c) {
        double ref = 0, mag = 0;
        for (std::size_t j = 0; j <= i; ++j) {
          double a = 0;
          for (std::size_t f = 0; f < F; ++f) a += fq[i * F + f] * fk[j * F + f];
          const double e = std::exp(rmax[j] - rmax[i]);
          ref += a * e * x[j * w + c];
          for (std::size_t f = 0; f < F; ++f)
            mag += std::abs(fq[i * F + f] * fk[j * F + f] * e * x[j * w + c]);
        }
        EXPECT_LE(std::abs(local[i * w + c] - ref),
                  2 * static_cast<double>(F + n + 2) * 1.12e-16 * mag + 1e-300);
      }
    }
  }
}

TEST(AttentionChunked, StateDeltaIsTransposedProduct) {
  const std::size_t n = 50, F = 11, w = 5;
  const auto fk = normals(n * F, 41), x = normals(n * w, 42);
  std::vector<double> dZ(F * w), pack;
  attention::chunk_state_delta(fk.data(), x.data(), n, F, w, dZ.data(), pack);
  for (std::size_t f = 0; f < F; ++f) {
    for (std::size_t c = 0; c < w; ++c) {
      double ref = 0, mag = 0;
      for (std::size_t j = 0; j < n; ++j) {
        ref += fk[j * F + f] * x[j * w + c];
        mag += std::abs(fk[j * F + f] * x[j * w + c]);
      }
      EXPECT_LE(std::abs(dZ[f * w + c] - ref), 2 * static_cast<double>(n) * 1.12e-16 * mag);
    }
  }
}

TEST(AttentionChunked, MergeScalesAndAdvanceState) {
  const auto plain = attention::merge_scales(3.0, 5.0, false);
  EXPECT_EQ(plain.m, 0.0);
  EXPECT_EQ(plain.f_state, 1.0);
  EXPECT_EQ(plain.f_chunk, 1.0);
  const auto first = attention::merge_scales(-INFINITY, 2.0, true);  // empty state
  EXPECT_EQ(first.m, 2.0);
  EXPECT_EQ(first.f_state, 0.0);
  EXPECT_EQ(first.f_chunk, 1.0);
  const auto s = attention::merge_scales(1.0, 3.0, true);
  EXPECT_EQ(s.m, 3.0);
  EXPECT_DOUBLE_EQ(s.f_state, std::exp(-2.0));
  EXPECT_EQ(s.f_chunk, 1.0);
  std::vector<double> Z{1.0, 2.0}, dZ{10.0, 20.0};
  attention::advance_state(Z.data(), dZ.data(), 2, s, true);
  EXPECT_DOUBLE_EQ(Z[0], std::exp(-2.0) + 10.0);
  EXPECT_DOUBLE_EQ(Z[1], 2 * std::exp(-2.0) + 20.0);
  EXPECT_EQ(dZ[0], 1.0);  // the state before the chunk, kept
  EXPECT_EQ(dZ[1], 2.0);
}

TEST(AttentionChunked, ScheduleByUnitEqualsWindowedSchedule) {
  // one sequence: nthreads = 1 runs it on one thread; D = 12 (one feature group): nthreads = 4 in
  // three parallel steps; D = 300 (three groups): nthreads = 2 one task per group, 4 in steps
  attention::Shape s{1, 1500, 1500, 5, 3};
  const auto q = normals(s.T * s.d, 51, 0.5), k = normals(s.S * s.d, 52, 0.5);
  const auto v = normals(s.S * s.dv, 53);
  EXPECT_EQ(attention::group_count(12), 1u);
  EXPECT_EQ(attention::group_count(128), 1u);
  EXPECT_EQ(attention::group_count(129), 2u);
  EXPECT_EQ(attention::group_count(300), 3u);
  for (std::size_t D : {12, 300}) {
    for (bool causal : {true, false}) {
      for (bool stab : {true, false}) {
        attention::RandomFeatureOptions opt;
        opt.D = D;
        opt.estimator = D == 12 ? Estimator::trig : Estimator::positive;
        opt.causal = causal;
        opt.stabilize = stab;
        opt.seed = 4;
        std::vector<double> a(s.T * s.dv), na(a.size()), da(s.T);
        opt.nthreads = 1;
        attention::random_feature(q.data(), k.data(), v.data(), s, opt, a.data(), na.data(),
                                  da.data(), nullptr);
        for (int nt : {2, 4}) {
          std::vector<double> b(a.size()), nb(a.size()), db(s.T);
          opt.nthreads = nt;
          attention::random_feature(q.data(), k.data(), v.data(), s, opt, b.data(), nb.data(),
                                    db.data(), nullptr);
          EXPECT_EQ(a, b) << D << causal << stab << nt;
          EXPECT_EQ(na, nb);
          EXPECT_EQ(da, db);
        }
      }
    }
  }
}
