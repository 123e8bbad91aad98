#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "ropelab/selective.hpp"
#include "test_util.hpp"

using namespace ropelab;
using ropelab::testing::normals;

namespace {

struct Path {
  selective::Config cfg;
  std::vector<double> down, up, conv, bias, gate_up, gate_bias, theta;
  selective::Weights w() const {
    selective::Weights x;
    x.down = down.data();
    x.up = up.data();
    x.conv = conv.empty() ? nullptr : conv.data();
    x.bias = bias.empty() ? nullptr : bias.data();
    x.gate_up = gate_up.empty() ? nullptr : gate_up.data();
    x.gate_bias = gate_bias.empty() ? nullptr : gate_bias.data();
    x.theta = theta.data();
    return x;
  }
};

Path make_path(std::size_t taps) {
  Path p;
  p.cfg.model_dim = 8;
  p.cfg.heads = 2;
  p.cfg.pairs = 3;
  p.cfg.rank = 4;
  p.cfg.taps = taps;
  p.cfg.has_bias = true;
  p.cfg.gate_out = 2;
  const std::size_t C = p.cfg.channels();
  p.down = normals(4 * 8, 1);
  p.up = normals(C * 4, 2);
  if (taps > 0) p.conv = normals(C * taps, 3);
  p.bias = normals(C, 4);
  p.gate_up = normals(2 * 8, 5);
  p.gate_bias = normals(2, 6);
  p.theta = {1.0, 0.1, 0.01};
  return p;
}

}  // namespace

TEST(Selective, ChunksEqualOneCallBitForBit) {
  for (std::size_t taps : {std::size_t{0}, std::size_t{4}}) {
    const Path p = make_path(taps);
    const std::size_t T = 29, B = 2, C = p.cfg.channels(), W = p.cfg.cache_width();
    const std::vector<double> x = normals(B * T * 8, 7);
    std::vector<double> cache(B * C * W, 0.0), off(B * C, 0.0), whole(B * T * C);
    selective::angles(p.cfg, p.w(), x.data(), B, T, cache.data(), off.data(), false, whole.data());
    // one sequence at a time, in chunks 5, 1, 0, 23
    for (std::size_t b = 0; b < B; ++b) {
      std::vector<double> c2(C * W, 0.0), o2(C, 0.0), got(T * C);
      std::size_t t0 = 0;
      for (std::size_t len : {std::size_t{5}, std::size_t{1}, std::size_t{0}, std::size_t{23}}) {
        selective::angles(p.cfg, p.w(), x.data() + (b * T + t0) * 8, 1, len, c2.data(), o2.data(),
                          false, got.data() + t0 * C);
        t0 += len;
      }
      ASSERT_EQ(t0, T);
      for (std::size_t i = 0; i < T * C; ++i)
        EXPECT_EQ(got[i], whole[b * T * C + i]) << "taps " << taps << " i " << i;
      for (std::size_t c = 0; c < C; ++c) EXPECT_EQ(o2[c], off[b * C + c]);
    }
  }
}

TEST(Selective, OverflowThrows) {
  Path p = make_path(4);
  for (double& b : p.bias) b = 710.0;
  std::vector<double> x = normals(3 * 8, 1), cache(6 * 4, 0.0), off(6, 0.0), out(3 * 6);
  EXPECT_THROW(
      selective::angles(p.cfg, p.w(), x.data(), 1, 3, cache.data(), off.data(), false, out.data()),
      std::invalid_argument);
}
