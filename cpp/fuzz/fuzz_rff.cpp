// libFuzzer harness: the random-feature entry points with arbitrary sizes, parameters and vectors.
// The bytes choose d, D, trials, sigma, the estimator/convention/mode and the vector entries; the
// harness only filters what the Python bindings reject (non-finite values, sizes beyond the
// caps), so whatever reaches the core from Python is exercised here.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_bytes.hpp"
#include "ropelab/rff.hpp"
#include "ropelab/temperature.hpp"

using ropelab::fuzz::Bytes;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ropelab;
  Bytes b{data, size};
  const std::size_t d = 1 + b.take<std::uint8_t>() % 16;
  const std::size_t D = 1 + b.take<std::uint16_t>() % 300;
  const std::size_t trials = 1 + b.take<std::uint8_t>() % 8;
  const double sigma = std::fabs(b.take<double>());
  const std::uint8_t flags = b.take<std::uint8_t>();
  std::vector<double> q(d), k(d);
  for (std::size_t i = 0; i < d; ++i) {
    q[i] = b.take<double>();
    k[i] = b.take<double>();
  }
  for (std::size_t i = 0; i < d; ++i) {
    if (!std::isfinite(q[i]) || !std::isfinite(k[i])) return 0;
  }
  if (!std::isfinite(sigma)) return 0;

  const Estimator est = rff::estimators()[flags % rff::estimators().size()];
  const auto conv = static_cast<rff::Convention>((flags >> 2) % 2);
  const rff::Pair p = rff::make_pair(q.data(), k.data(), d);
  (void)rff::moments(p, sigma, est, conv);
  (void)rff::log_moments(p, sigma, est, conv);
  (void)rff::mse(p, static_cast<double>(D), sigma, est, conv);
  (void)rff::log_mse(p, static_cast<double>(D), sigma, est, conv);

  const double xi = std::tanh(q[0]);
  const rff::Pair u = rff::make_unit_pair(xi);
  (void)temperature::optimal_sigma_cubic(u, static_cast<double>(D), est, conv);
  (void)temperature::paper_sigma(xi);

  rff::EstimateOptions opt;
  opt.D = D;
  opt.sigma = sigma;
  opt.estimator = est;
  opt.convention = conv;
  opt.seed = flags;
  opt.full = (flags >> 3) & 1;
  opt.orthogonal = opt.full && ((flags >> 4) & 1);
  opt.nthreads = 1 + ((flags >> 5) % 3);
  std::vector<double> out(trials);
  try {
    rff::estimate(q.data(), k.data(), d, opt, trials, out.data(), nullptr);
  } catch (const std::invalid_argument&) {
    // amplitude overflow: the documented error
  }
  std::vector<double> omega(D * d);
  rff::sample_omega(D, d, sigma, opt.orthogonal, 0, flags, omega.data());
  std::vector<double> phase(D);
  rff::sample_phase(D, 0, flags, phase.data());
  std::vector<double> X(2 * d);
  std::copy(q.begin(), q.end(), X.begin());
  std::copy(k.begin(), k.end(), X.begin() + static_cast<std::ptrdiff_t>(d));
  std::vector<double> feats(2 * rff::feature_count(est, D));
  rff::feature_map(X.data(), 2, d, omega.data(), D, est, phase.data(), feats.data());
  return 0;
}
