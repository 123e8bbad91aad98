#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "ropelab/delta.hpp"
#include "ropelab/vecmath.hpp"

using namespace ropelab;

namespace {

struct Inputs {
  std::vector<double> q, k, v, beta, angles, gates;
};

Inputs make_inputs(std::size_t T, std::size_t n_h, std::size_t d, std::size_t dv, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> ud;
  Inputs in;
  for (std::size_t i = 0; i < T * d; ++i) in.q.push_back(nd(gen));
  for (std::size_t i = 0; i < T * n_h * d; ++i) in.k.push_back(nd(gen) / std::sqrt(double(d)));
  for (std::size_t i = 0; i < T * n_h * dv; ++i) in.v.push_back(nd(gen));
  for (std::size_t i = 0; i < T * n_h; ++i) in.beta.push_back(2.0 * ud(gen));
  for (std::size_t i = 0; i < T; ++i) in.gates.push_back(0.5 + 0.5 * ud(gen));
  double acc = 0;
  for (std::size_t i = 0; i < T * d / 2; ++i) in.angles.push_back(acc += ud(gen) - 0.5);
  return in;
}

/// The delta rule written out on a dense dv×d state in the direct order: S ← α S, then per
/// micro-step u = β (v − S k), S ← S + u kᵀ, and o = S q (keys and query rotated by C_t).
std::vector<double> direct(const Inputs& in, std::size_t T, std::size_t n_h, std::size_t d,
                           std::size_t dv, bool gated, bool rotated) {
  std::vector<double> S(dv * d, 0.0), out(T * dv), kk(d), qq(d), u(dv);
  for (std::size_t t = 0; t < T; ++t) {
    auto rot = [&](const double* x, double* y) {
      for (std::size_t i = 0; i < d / 2; ++i) {
        const double p = rotated ? in.angles[t * d / 2 + i] : 0.0, c = std::cos(p), s = std::sin(p);
        y[2 * i] = c * x[2 * i] - s * x[2 * i + 1];
        y[2 * i + 1] = s * x[2 * i] + c * x[2 * i + 1];
      }
    };
    if (gated) {
      for (auto& x : S) x *= in.gates[t];
    }
    for (std::size_t j = 0; j < n_h; ++j) {
      rot(in.k.data() + (t * n_h + j) * d, kk.data());
      for (std::size_t r = 0; r < dv; ++r) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) dot += kk[c] * S[r * d + c];
        u[r] = in.beta[t * n_h + j] * (in.v[(t * n_h + j) * dv + r] - dot);
      }
      for (std::size_t r = 0; r < dv; ++r) {
        for (std::size_t c = 0; c < d; ++c) S[r * d + c] += kk[c] * u[r];
      }
    }
    rot(in.q.data() + t * d, qq.data());
    for (std::size_t r = 0; r < dv; ++r) {
      double o = 0.0;
      for (std::size_t c = 0; c < d; ++c) o += qq[c] * S[r * d + c];
      out[t * dv + r] = o;
    }
  }
  return out;
}

}  // namespace

TEST(Delta, EveryPathEqualsTheDirectOrderBitForBitWithoutRotation) {
  const std::size_t T = 40, d = 6;
  for (std::size_t dv : {1u, 8u, 11u}) {
    for (std::size_t n_h : {1u, 3u}) {
      for (bool gated : {false, true}) {
        const Inputs in = make_inputs(T, n_h, d, dv, unsigned(dv * 7 + n_h));
        const std::vector<double> want = direct(in, T, n_h, d, dv, gated, false);
        for (auto isa : {simd::Isa::scalar, simd::Isa::avx2}) {
          if (!simd::supported(isa)) continue;
          const simd::Isa before = simd::active_isa();
          simd::set_isa(isa);
          std::vector<double> got(T * dv);
          recurrence::delta_rule({in.q.data(), in.k.data(), in.v.data(), in.beta.data(), nullptr,
                                  gated ? in.gates.data() : nullptr, T, n_h, d, dv},
                                 rotary::Layout::interleaved, got.data());
          simd::set_isa(before);
          for (std::size_t i = 0; i < T * dv; ++i) {
            ASSERT_EQ(got[i], want[i])
                << simd::isa_name(isa) << " dv=" << dv << " n_h=" << n_h << " i=" << i;
          }
        }
      }
    }
  }
}

TEST(Delta, RotatedPathsAgreeWithTheDirectOrder) {
  const std::size_t T = 200, d = 8, dv = 5, n_h = 2;
  const Inputs in = make_inputs(T, n_h, d, dv, 5);
  const std::vector<double> want = direct(in, T, n_h, d, dv, true, true);
  double scale = 0;
  for (double x : want) scale = std::max(scale, std::abs(x));
  for (auto isa : {simd::Isa::scalar, simd::Isa::avx2}) {
    if (!simd::supported(isa)) continue;
    const simd::Isa before = simd::active_isa();
    simd::set_isa(isa);
    std::vector<double> got(T * dv);
    recurrence::delta_rule({in.q.data(), in.k.data(), in.v.data(), in.beta.data(), in.angles.data(),
                            in.gates.data(), T, n_h, d, dv},
                           rotary::Layout::interleaved, got.data());
    simd::set_isa(before);
    for (std::size_t i = 0; i < T * dv; ++i) {
      // the scalar path uses the same libm cos/sin as `direct`: identical; AVX2 uses SLEEF (≤ 1
      // ULP)
      if (isa == simd::Isa::scalar) {
        ASSERT_EQ(got[i], want[i]) << i;
      } else {
        ASSERT_NEAR(got[i], want[i], 1e-13 * scale) << i;
      }
    }
  }
}

TEST(Delta, RowBlocksAndThreadCountsGiveTheSameBits) {
  // each row of the state evolves on its own: any split of the rows, on any number of threads,
  // gives the bits of one pass over all rows (gated, rotated, several micro-steps per token)
  const std::size_t T = 60, d = 6, dv = 21, n_h = 2;
  const Inputs in = make_inputs(T, n_h, d, dv, 16);
  const recurrence::DeltaSequence s{
      in.q.data(), in.k.data(), in.v.data(), in.beta.data(), in.angles.data(), in.gates.data(), T,
      n_h,         d,           dv};
  std::vector<double> whole(T * dv);
  recurrence::delta_rule(s, rotary::Layout::half, whole.data(), nullptr, 1);
  for (int nthreads : {2, 3, 8}) {
    std::vector<double> got(T * dv, -1.0);
    recurrence::delta_rule(s, rotary::Layout::half, got.data(), nullptr, nthreads);
    for (std::size_t i = 0; i < T * dv; ++i) ASSERT_EQ(got[i], whole[i]) << nthreads << " " << i;
  }
  // arbitrary row ranges (not whole panels), each writing only its own columns
  for (auto [r0, r1] : {std::pair<std::size_t, std::size_t>{0, 21}, {3, 4}, {5, 20}, {16, 21}}) {
    std::vector<double> got(T * dv, -1.0);
    recurrence::delta_rule_rows(s, rotary::Layout::half, r0, r1, got.data());
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t r = 0; r < dv; ++r) {
        const double want = r >= r0 && r < r1 ? whole[t * dv + r] : -1.0;
        ASSERT_EQ(got[t * dv + r], want) << r0 << ".." << r1 << " t=" << t << " r=" << r;
      }
    }
  }
}

TEST(Delta, RowRangeOutsideTheRowsThrows) {
  const Inputs in = make_inputs(3, 1, 4, 5, 1);
  const recurrence::DeltaSequence s{
      in.q.data(), in.k.data(), in.v.data(), in.beta.data(), nullptr, nullptr, 3, 1, 4, 5};
  std::vector<double> out(15);
  EXPECT_THROW(recurrence::delta_rule_rows(s, rotary::Layout::interleaved, 2, 6, out.data()),
               std::invalid_argument);
  EXPECT_THROW(recurrence::delta_rule_rows(s, rotary::Layout::interleaved, 3, 2, out.data()),
               std::invalid_argument);
}

TEST(Delta, RowBlocksBalanceTheThreadsAndCoverTheRows) {
  EXPECT_EQ(recurrence::delta_row_blocks(1, 64, 1), 1u);
  EXPECT_EQ(recurrence::delta_row_blocks(1, 64, 2), 2u);  // one sequence on both threads
  EXPECT_EQ(recurrence::delta_row_blocks(3, 64, 2), 2u);  // 6 items: 3 per thread
  EXPECT_EQ(recurrence::delta_row_blocks(8, 64, 2), 1u);  // the batch alone balances
  EXPECT_EQ(recurrence::delta_row_blocks(1, 5, 4), 1u);   // one panel: no split
  EXPECT_EQ(recurrence::delta_row_blocks(1, 17, 8), 3u);  // at most one block per panel
  EXPECT_EQ(recurrence::delta_row_blocks(0, 64, 4), 1u);
  for (std::size_t dv : {0u, 1u, 8u, 9u, 37u, 64u}) {
    for (std::size_t blocks : {1u, 2u, 3u, 5u}) {
      std::size_t next = 0;
      for (std::size_t i = 0; i < blocks; ++i) {
        const recurrence::RowRange r = recurrence::delta_row_range(dv, blocks, i);
        EXPECT_EQ(r.begin, next) << dv << " " << blocks << " " << i;
        EXPECT_LE(r.begin, r.end);
        EXPECT_TRUE(r.begin % 8 == 0 || r.begin == dv);  // whole panels
        next = r.end;
      }
      EXPECT_EQ(next, dv) << dv << " " << blocks;
    }
  }
}
