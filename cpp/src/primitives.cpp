#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/names.hpp"
#include "ropelab/rng.hpp"
#include "ropelab/vecmath.hpp"

namespace ropelab::mc {

const std::vector<std::string>& primitive_names() {
  static const std::vector<std::string> names{"normal", "uniform", "cos", "exp"};
  return names;
}

double run_primitive(const char* kind, std::uint64_t n, int nthreads,
                     const std::atomic<bool>* cancel) {
  enum Kind { normal, uniform, cos, exp };
  const Kind k = names::parse<Kind>(primitive_names(), kind, "kind");
  constexpr std::uint64_t kUnit = 1 << 16, kBuf = 1024;
  const std::uint64_t units = (n + kUnit - 1) / kUnit;
  std::vector<double> sums(units, 0.0);
  parallel_blocks(
      units, 4, nthreads,
      [&](std::size_t begin, std::size_t end) {
        const simd::Kernels& kern = simd::kernels();
        std::vector<double> buf(kBuf);
        // cos/exp arguments: values spread over a few periods (set up outside the timed primitive's
        // loop; ~1 % of a block's work)
        if (k == cos || k == exp) {
          for (std::uint64_t i = 0; i < kBuf; ++i)
            buf[i] = std::sin(0.7 * static_cast<double>(i)) * 3.0;
        }
        for (std::size_t u = begin; u < end; ++u) {
          const std::uint64_t m = std::min(kUnit, n - u * kUnit);
          double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
          rng::Stream s(1, rng::StreamId::bench, u);
          for (std::uint64_t j = 0; j < m; j += kBuf) {
            const std::size_t c = static_cast<std::size_t>(std::min(kBuf, m - j));
            switch (k) {
              case normal:
                s.normals(buf.data(), c);
                acc[0] += buf[0];
                break;
              case uniform:
                s.uniforms(buf.data(), c);
                acc[0] += buf[0];
                break;
              case cos:
                kern.sum_cos(buf.data(), c, acc);
                break;
              case exp:
                kern.sum_exp(buf.data(), c, acc);
                break;
            }
          }
          sums[u] = simd::reduce8(acc);
        }
      },
      cancel);
  double total = 0;
  for (double v : sums) total += v;
  return total;
}

}  // namespace ropelab::mc
