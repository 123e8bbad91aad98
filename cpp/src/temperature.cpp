#include "ropelab/temperature.hpp"

#include <boost/math/tools/minima.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/names.hpp"

namespace ropelab::temperature {

using rff::Convention;

double paper_sigma(double xi) {
  if (xi == -1.0) return std::numeric_limits<double>::infinity();
  return std::sqrt((1.0 - xi) / (1.0 + xi));
}

double unbiased_sigma(double xi, Estimator est, Convention conv) {
  return (est == Estimator::trig && conv == Convention::literal) ? paper_sigma(xi) : 1.0;
}

double depressed_cubic_root(double p, double r) {
  if (p == 0.0) return std::cbrt(-r);
  const double s = std::sqrt(p / 3.0);
  // (r / p) / s rather than r / (p·s): p·s overflows for p beyond ~1e205 (D = 1e206 gives 0).
  return -2.0 * s * std::sinh(std::asinh(1.5 * (r / p) / s) / 3.0);
}

namespace {

/// The optimum in a shared parametrisation. With x the "σ-dependent factor" (u = e^{−σ²s/2} for
/// trig, w = e^{σ²a/2} for positive), write x = x₁·e^y where x₁ is its value at σ = 1. The
/// stationarity condition of every estimator's MSE then reads
///     g(y) = K e^{3y} + (D − 1) expm1(y) − 1 = 0
/// with K = e^{−b} (conjugate trig, random phase), e^{−b} (literal: c = e^{−b/2} again) or 2e^{a}
/// (positive), and σ² = σ²(y) is affine in y. g is increasing, so the root is unique.
struct Shape {
  double K;      ///< cubic coefficient
  double s2_at;  ///< σ² = s2_at + s2_slope · y
  double s2_slope;
  bool degenerate;  ///< every σ gives the same MSE
};

Shape shape(const rff::Pair& pair, Estimator est, Convention conv) {
  struct {
    double a, b;
  } p{static_cast<double>(pair.a), static_cast<double>(pair.b)};
  if (est == Estimator::positive) {
    // w = e^{σ²a/2} = e^{a/2} e^{y}: 2w³ + (D−1)w − D e^{a/2} = 0  ⇔  2e^{a} e^{3y} + ...
    return {2.0 * std::exp(p.a), 1.0, 2.0 / p.a, p.a == 0.0};
  }
  if (est == Estimator::trig && conv == Convention::literal) {
    // u = e^{−σ²a/2} = c e^{y}, c = e^{−b/2}: σ² = (b − 2y)/a.
    return {std::exp(-p.b), p.b / p.a, -2.0 / p.a, p.a == 0.0};
  }
  // Conjugate trig and random phase (its extra constant variance does not move the optimum):
  // u = e^{−σ²b/2} = c e^{y}, c = e^{−b/2}: σ² = 1 − 2y/b.
  return {std::exp(-p.b), 1.0, -2.0 / p.b, p.b == 0.0};
}

double sigma_from_y(const Shape& sh, double y) {
  return std::sqrt(std::max(0.0, sh.s2_at + sh.s2_slope * y));
}

}  // namespace

double optimal_sigma_cubic(const rff::Pair& p, double D, Estimator est, Convention conv) {
  const Shape sh = shape(p, est, conv);
  if (sh.degenerate) return 1.0;
  // Cardano on K v³ + (D−1) v − D = 0 for v = e^y, then Newton on g(y) (increasing and convex
  // for y beyond the root, so the polished iterate converges from the closed-form start).
  double v = depressed_cubic_root((D - 1.0) / sh.K, -D / sh.K);
  // When K·v³ is negligible (huge D or tiny K, where the closed form loses range), start from the
  // root of (D−1)v = D instead: g > 0 there and g is increasing and convex, so Newton descends.
  const bool fallback = !(v > 0.0) || !std::isfinite(v);
  if (fallback) v = D / (D - 1.0);
  double y = std::log(v);
  for (int it = 0; it < (fallback ? 60 : 4); ++it) {
    const double e3 = sh.K * std::exp(3.0 * y);
    const double g = e3 + (D - 1.0) * std::expm1(y) - 1.0;
    const double dg = 3.0 * e3 + (D - 1.0) * std::exp(y);
    const double step = g / dg;
    y -= step;
    if (std::fabs(step) <= 1e-17 * std::max(1.0, std::fabs(y))) break;
  }
  return sigma_from_y(sh, y);
}

namespace {

/// Closed-form MSE / (scale) in long double, as a function of σ, for Brent.
long double mse_long(const rff::Pair& p, long double sigma, long double D, Estimator est,
                     Convention conv) {
  const long double s2 = sigma * sigma;
  const long double a = p.a, b = p.b;
  // All MSEs are divided by a σ-independent positive factor (A² or e^{−n}), which does not move
  // the minimiser and keeps the numbers O(1).
  if (est == Estimator::positive) {
    // e^{n}·MSE = (w⁴ − w²)/D + (w − e^{a/2})², w = e^{σ²a/2}
    const long double w = std::exp(0.5L * s2 * a);
    const long double bias = std::exp(0.5L * a) * std::expm1(0.5L * (s2 - 1.0L) * a);
    return w * w * std::expm1(s2 * a) / D + bias * bias;
  }
  const bool literal = est == Estimator::trig && conv == Convention::literal;
  const long double s = literal ? a : b;
  const long double e = std::expm1(-s2 * s);
  long double var = 0.5L * e * e;
  if (est == Estimator::random_phase) var += 0.5L;
  const long double bias_exp = literal ? 0.5L * (b - s2 * a) : 0.5L * (1.0L - s2) * b;
  const long double bias = std::exp(-0.5L * b) * std::expm1(bias_exp);
  return var / D + bias * bias;
}

}  // namespace

double optimal_sigma_brent(const rff::Pair& p, double D, Estimator est, Convention conv) {
  const Shape sh = shape(p, est, conv);
  if (sh.degenerate) return 1.0;
  // The optimum lies below max(1, σ² at D = ∞): σ* ≤ 1 (conjugate, positive), ≤ √(b/a) (literal).
  const double hi = 2.0 * std::sqrt(std::max(1.0, sh.s2_at)) + 1.0;
  auto f = [&](long double s) { return mse_long(p, s, static_cast<long double>(D), est, conv); };
  const int bits = std::numeric_limits<long double>::digits / 2;
  std::uintmax_t max_iter = 500;
  const auto r =
      boost::math::tools::brent_find_minima(f, 0.0L, static_cast<long double>(hi), bits, max_iter);
  return static_cast<double>(r.first);
}

Counterexample counterexample(double xi) {
  Counterexample c{};
  c.xi = xi;
  c.sigma_paper = paper_sigma(xi);
  c.sigma_paper_sq = (1.0 - xi) / (1.0 + xi);
  c.mean_paper = std::exp(1.0 - c.sigma_paper_sq * (1.0 - xi));
  c.target = std::exp(xi);
  c.mean_sigma1 = std::exp(1.0 - (1.0 - xi));
  c.mean_paper_literal = std::exp(1.0 - c.sigma_paper_sq * (1.0 + xi));
  c.target_literal = std::exp(-xi);
  return c;
}

const std::vector<std::string>& sigma_method_names() {
  static const std::vector<std::string> names{"cubic", "brent"};
  return names;
}

SigmaMethod parse_sigma_method(const std::string& name) {
  return names::parse<SigmaMethod>(sigma_method_names(), name, "method");
}

const std::vector<std::string>& spectrum_kind_names() {
  static const std::vector<std::string> names{"rope", "rfa"};
  return names;
}

SpectrumKind parse_spectrum_kind(const std::string& name) {
  return names::parse<SpectrumKind>(spectrum_kind_names(), name, "kind");
}

std::vector<double> spectrum(std::size_t d, SpectrumKind kind, double base, double theta_max,
                             double temp_max, bool squared) {
  const std::size_t half = d / 2;
  std::vector<double> out(half);
  if (kind == SpectrumKind::rope) {
    if (squared) throw std::invalid_argument("squared=True applies to kind='rfa' only");
    for (std::size_t j = 0; j < half; ++j) {
      out[j] = temp_max * std::pow(base, -2.0 * static_cast<double>(j) / static_cast<double>(d));
    }
    return out;
  }
  constexpr double pi = 3.14159265358979323846;
  if (std::tan(0.5 * theta_max * pi) < 1e-100) {
    // tan x = x (1 + x²/3 + …): below 1e-100 the ratios tan(½φ_j)/tan(½φ_max) are the angle
    // ratios j/(d/2 − 1) to the last bit, while the tangents themselves are subnormal (their
    // maximum's reciprocal overflows)
    for (std::size_t j = 0; j < half; ++j) {
      const double r = half == 1 ? 0.0 : static_cast<double>(j) / static_cast<double>(half - 1);
      out[j] = temp_max * (squared ? r * r : r);
    }
    return out;
  }
  double mx = 0;
  for (std::size_t j = 0; j < half; ++j) {
    const double phi =
        half == 1 ? 0.0 : theta_max * pi * static_cast<double>(j) / static_cast<double>(half - 1);
    const double t = std::tan(0.5 * phi);
    out[j] = squared ? t * t : t;
    mx = std::max(mx, out[j]);
  }
  if (mx > 0) {
    for (double& v : out) v *= temp_max / mx;
  }
  return out;
}

}  // namespace ropelab::temperature
