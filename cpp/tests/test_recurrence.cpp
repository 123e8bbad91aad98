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
  const auto angles = normals(T * d / 2, 4, 3.0);
  std::vector<double> g(T * d);
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  for (auto& x : g) x = u(gen);
  recurrence::Gates gates{g.data(), d, true};
  const recurrence::Sequence s{q.data(), k.data(), v.data(), T, d, dv};
  std::vector<double> a(T * dv), b(T * dv), c(T * dv), A(T * d * d);
  for (auto layout : {rotary::Layout::interleaved, rotary::Layout::half}) {
    recurrence::selective_rope_attention(s, angles.data(), gates, layout,
                                         recurrence::SelectiveMode::prerotated, a.data());
    recurrence::selective_rope_attention(s, angles.data(), gates, layout,
                                         recurrence::SelectiveMode::recurrent, b.data());
    transition::effective_sequence(angles.data(), T, gates, d, layout, A.data());
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
  for (auto kind :
       {recurrence::Decay::alibi, recurrence::Decay::fox, recurrence::Decay::cosformer}) {
    const double p = kind == recurrence::Decay::cosformer ? 30.0 : 0.2;
    recurrence::decayed_attention(s, kind, p, f.data(), recurrence::DecayMode::direct, a.data());
    recurrence::decayed_attention(s, kind, p, f.data(), recurrence::DecayMode::recurrent, b.data());
    EXPECT_LT(max_abs_diff(a, b), 50 * kEps * T * d);
  }
}

// --- The pieces of selective_rope_attention ----------------------------------------------------

namespace {
/// Half layout channels of d = 4: pairs (0, 2), (1, 3).
const std::vector<std::size_t> kC0{0, 1}, kC1{2, 3};
}  // namespace

TEST(SelectivePieces, RotatePairsRotatesEachPlane) {
  const std::vector<double> x{1.0, 2.0, 3.0, -1.0}, angles{0.3, -1.1};
  std::vector<double> cs(2), sn(2), out(4);
  for (std::size_t i = 0; i < 2; ++i) {
    cs[i] = std::cos(angles[i]);
    sn[i] = std::sin(angles[i]);
  }
  recurrence::detail::rotate_pairs(x.data(), cs.data(), sn.data(), kC0.data(), kC1.data(), 2,
                                   out.data());
  for (std::size_t i = 0; i < 2; ++i) {
    const std::complex<double> z(x[kC0[i]], x[kC1[i]]), r = z * std::polar(1.0, angles[i]);
    EXPECT_NEAR(out[kC0[i]], r.real(), 1e-15);
    EXPECT_NEAR(out[kC1[i]], r.imag(), 1e-15);
  }
}

TEST(SelectivePieces, RotatingTransitionBlocksAreTheMatrixProduct) {
  const double pp = 0.4, pt = -0.9, la = 0.7, lb = 0.2;
  const std::vector<double> cs_prev{std::cos(pp)}, sn_prev{std::sin(pp)}, cs{std::cos(pt)},
      sn{std::sin(pt)}, lam{la, lb};
  const std::vector<std::size_t> c0{0}, c1{1};
  std::vector<double> B(4);
  recurrence::detail::rotating_transition_blocks(cs_prev.data(), sn_prev.data(), cs.data(),
                                                 sn.data(), lam.data(), c0.data(), c1.data(), 1,
                                                 B.data());
  // R(a) = [[cos a, −sin a], [sin a, cos a]]; A = R(pp)ᵀ diag(la, lb) R(pt).
  const double Rp[2][2] = {{std::cos(pp), -std::sin(pp)}, {std::sin(pp), std::cos(pp)}};
  const double Rt[2][2] = {{std::cos(pt), -std::sin(pt)}, {std::sin(pt), std::cos(pt)}};
  const double L[2] = {la, lb};
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 2; ++c) {
      double a = 0;
      for (int m = 0; m < 2; ++m) a += Rp[m][r] * L[m] * Rt[m][c];
      EXPECT_NEAR(B[static_cast<std::size_t>(2 * r + c)], a, 1e-15) << r << "," << c;
    }
  }
}

TEST(SelectivePieces, PrerotatedUpdateIsDecayPlusOuterProduct) {
  const std::size_t d = 4, dv = 2;
  std::vector<double> S{1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> lam{0.5, 1.0, 0.25, 0.0}, v{2.0, -1.0}, kp{1, 0, -1, 2},
      qp{0.5, 1, 0, -1};
  std::vector<double> expect(S), out(dv);
  for (std::size_t r = 0; r < dv; ++r) {
    for (std::size_t c = 0; c < d; ++c) expect[r * d + c] = S[r * d + c] * lam[c] + v[r] * kp[c];
  }
  recurrence::detail::prerotated_update(S.data(), d, dv, lam.data(), v.data(), kp.data(), qp.data(),
                                        out.data());
  EXPECT_EQ(S, expect);
  for (std::size_t r = 0; r < dv; ++r) {
    double o = 0;
    for (std::size_t c = 0; c < d; ++c) o += expect[r * d + c] * qp[c];
    EXPECT_DOUBLE_EQ(out[r], o);
  }
  // lam null: no decay.
  std::vector<double> S0(d * dv, 1.0), out0(dv);
  recurrence::detail::prerotated_update(S0.data(), d, dv, nullptr, v.data(), kp.data(), qp.data(),
                                        out0.data());
  EXPECT_DOUBLE_EQ(S0[0], 1.0 + 2.0 * 1.0);
}

TEST(SelectivePieces, RotatingUpdateAppliesTheBlockTransition) {
  const std::size_t d = 4, dv = 1, h = 2;
  std::vector<double> S{1.0, -2.0, 0.5, 3.0};
  const std::vector<double> B{1, 2, 3, 4, 0.5, 0, 0, 2};  // pair 0: [[1,2],[3,4]], pair 1 diag
  const std::vector<double> v{2.0}, k{1, 1, 1, 1}, q{1, 0, 0, 1};
  std::vector<double> out(1);
  const std::vector<double> S_before = S;
  recurrence::detail::rotating_update(S.data(), d, dv, B.data(), kC0.data(), kC1.data(), h,
                                      v.data(), k.data(), q.data(), out.data());
  // pair 0 = channels (0, 2): (x0, x1) = (1, 0.5) → (x0·1 + x1·3, x0·2 + x1·4) + 2.
  EXPECT_DOUBLE_EQ(S[0], S_before[0] * 1 + S_before[2] * 3 + 2);
  EXPECT_DOUBLE_EQ(S[2], S_before[0] * 2 + S_before[2] * 4 + 2);
  // pair 1 = channels (1, 3): diag(0.5, 2).
  EXPECT_DOUBLE_EQ(S[1], S_before[1] * 0.5 + 2);
  EXPECT_DOUBLE_EQ(S[3], S_before[3] * 2 + 2);
  EXPECT_DOUBLE_EQ(out[0], S[0] + S[3]);
}
