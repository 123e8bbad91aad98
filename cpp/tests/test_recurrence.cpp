// GoogleTest unit tests of the recurrence core (cpp/include/ropelab/recurrence.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "ropelab/recurrence.hpp"
#include "ropelab/transition.hpp"

#include "test_util.hpp"

using namespace ropelab;

using ropelab::testing::kEps;
using ropelab::testing::max_abs_diff;
using ropelab::testing::normals;

TEST(Recurrence, SelectivePrerotatedEqualsRecurrentWithPerChannelGates) {
  const std::size_t T = 40, d = 8, dv = 3;
  const auto q = normals(T * d, 1), k = normals(T * d, 2), v = normals(T * dv, 3);
  const auto psi = normals(T * d / 2, 4, 3.0);
  std::vector<double> g(T * d);
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  for (auto& x : g) x = u(gen);
  recurrence::Gates gates{g.data(), d, true};
  const recurrence::Sequence s{q.data(), k.data(), v.data(), T, d, dv};
  std::vector<double> a(T * dv), b(T * dv), c(T * dv), A(T * d * d);
  for (auto layout : {rotary::Layout::interleaved, rotary::Layout::half}) {
    recurrence::selective_rope_attention(s, psi.data(), gates, layout,
                                         recurrence::SelectiveMode::prerotated, a.data());
    recurrence::selective_rope_attention(s, psi.data(), gates, layout,
                                         recurrence::SelectiveMode::recurrent, b.data());
    transition::effective_sequence(psi.data(), T, gates, d, layout, A.data());
    recurrence::linear_attention(s, A.data(), recurrence::LinearMode::unrolled,
                                 recurrence::ProductStart::tau_plus_1, c.data());
    // Sums of ≤ T·d terms of size O(1) through ≤ T rotations: rounding grows like eps·T·d.
    EXPECT_LT(max_abs_diff(a, b), 50 * kEps * T * d);
    EXPECT_LT(max_abs_diff(a, c), 50 * kEps * T * d);
  }
}

TEST(Recurrence, Eq11ProductAtTauDiffersUnlessIdentity) {
  const std::size_t T = 6, d = 3, dv = 2;
  const auto q = normals(T * d, 1), k = normals(T * d, 2), v = normals(T * dv, 3);
  std::vector<double> A(T * d * d, 0.0);
  for (std::size_t t = 0; t < T; ++t)
    for (std::size_t i = 0; i < d; ++i) A[t * d * d + i * d + i] = 0.5;
  const recurrence::Sequence s{q.data(), k.data(), v.data(), T, d, dv};
  std::vector<double> rec(T * dv), tau1(T * dv), tau(T * dv);
  recurrence::linear_attention(s, A.data(), recurrence::LinearMode::recurrent,
                               recurrence::ProductStart::tau_plus_1, rec.data());
  recurrence::linear_attention(s, A.data(), recurrence::LinearMode::unrolled,
                               recurrence::ProductStart::tau_plus_1, tau1.data());
  recurrence::linear_attention(s, A.data(), recurrence::LinearMode::unrolled,
                               recurrence::ProductStart::tau, tau.data());
  EXPECT_LT(max_abs_diff(rec, tau1), 100 * kEps);
  EXPECT_GT(max_abs_diff(rec, tau), 0.1);  // the A_τ = 0.5 I factor halves every term
}

TEST(Recurrence, DecayedFormsAgree) {
  const std::size_t T = 30, d = 4, dv = 2;
  const auto q = normals(T * d, 7), k = normals(T * d, 8), v = normals(T * dv, 9);
  std::vector<double> f(T, 0.9);
  const recurrence::Sequence s{q.data(), k.data(), v.data(), T, d, dv};
  std::vector<double> a(T * dv), b(T * dv);
  for (auto kind : {recurrence::Decay::alibi, recurrence::Decay::fox, recurrence::Decay::cosformer}) {
    const double p = kind == recurrence::Decay::cosformer ? 30.0 : 0.2;
    recurrence::decayed_attention(s, kind, p, f.data(), recurrence::DecayMode::direct, a.data());
    recurrence::decayed_attention(s, kind, p, f.data(), recurrence::DecayMode::recurrent, b.data());
    EXPECT_LT(max_abs_diff(a, b), 50 * kEps * T * d);
  }
}

