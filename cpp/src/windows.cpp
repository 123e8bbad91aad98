#include "ropelab/windows.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/bessel.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <sstream>
#include <stdexcept>

#include "ropelab/montecarlo.hpp"
#include "ropelab/spectrum.hpp"

namespace ropelab::windows {

namespace {

constexpr double pi = boost::math::constants::pi<double>();

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

struct Spec {
  std::string name;
  std::vector<std::string> params;
};

const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      {"rectangular", {}},        {"triangular", {}},           {"hann", {}},
      {"hamming", {}},            {"blackman", {}},             {"exact_blackman", {}},
      {"blackman_harris_3", {}},  {"blackman_harris_4", {}},    {"gaussian", {"alpha"}},
      {"poisson", {"alpha"}},
      {"kaiser", {"beta"}},       {"chebyshev", {"attenuation"}}, {"exponential", {"alpha"}},
  };
  return s;
}

const Spec& find_spec(const std::string& name) {
  for (const Spec& s : specs()) {
    if (s.name == name) return s;
  }
  std::string known;
  for (const Spec& s : specs()) known += (known.empty() ? "" : ", ") + s.name;
  throw std::invalid_argument("name must be one of " + known + ", got '" + name + "'");
}

/// Generalised cosine window Σ_k (−1)^k a_k cos(2πkn/L).
double cosine_sum(const std::vector<double>& a, std::size_t n, std::size_t L) {
  double w = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    // Reduce k·n mod L in integers so the argument stays in [0, 2π) (no large-angle rounding).
    const double t = 2.0 * pi * static_cast<double>((k * n) % L) / static_cast<double>(L);
    w += ((k % 2) != 0 ? -a[k] : a[k]) * std::cos(t);
  }
  return w;
}

std::vector<double> cosine_coefficients(const std::string& name) {
  if (name == "hann") return {0.5, 0.5};
  if (name == "hamming") return {0.54, 0.46};
  if (name == "blackman") return {0.42, 0.5, 0.08};
  if (name == "exact_blackman") return {7938.0 / 18608.0, 9240.0 / 18608.0, 1430.0 / 18608.0};
  if (name == "blackman_harris_3") return {0.42323, 0.49755, 0.07922};
  if (name == "blackman_harris_4") return {0.35875, 0.48829, 0.14128, 0.01168};
  return {};
}

/// Symmetric Dolph–Chebyshev window of length M (scipy.signal.windows.chebwin's construction).
std::vector<double> chebyshev_symmetric(std::size_t M, double attenuation_db) {
  if (M == 1) return {1.0};
  const double order = static_cast<double>(M - 1);
  const double beta = std::cosh(std::acosh(std::pow(10.0, attenuation_db / 20.0)) / order);
  std::vector<std::complex<double>> p(M), P(M);
  for (std::size_t k = 0; k < M; ++k) {
    const double x = beta * std::cos(pi * static_cast<double>(k) / static_cast<double>(M));
    double v;
    if (x > 1) {
      v = std::cosh(order * std::acosh(x));
    } else if (x < -1) {
      v = ((M % 2) != 0 ? 1.0 : -1.0) * std::cosh(order * std::acosh(-x));
    } else {
      v = std::cos(order * std::acos(x));
    }
    if ((M % 2) == 0) {
      const double t = pi * static_cast<double>(k) / static_cast<double>(M);
      p[k] = std::complex<double>(v * std::cos(t), v * std::sin(t));
    } else {
      p[k] = v;
    }
  }
  spectrum::fft_c2c(p.data(), M, M, P.data(), -1);
  std::vector<double> w(M);
  if ((M % 2) != 0) {
    const std::size_t n = (M + 1) / 2;
    // w = [P[n-1], ..., P[1], P[0], P[1], ..., P[n-1]]
    for (std::size_t i = 0; i < n; ++i) {
      w[n - 1 - i] = P[i].real();
      w[n - 1 + i] = P[i].real();
    }
  } else {
    const std::size_t n = M / 2 + 1;
    // w = [P[n-1], ..., P[1], P[1], ..., P[n-1]]
    for (std::size_t i = 1; i < n; ++i) {
      w[n - 1 - i] = P[i].real();
      w[n - 2 + i] = P[i].real();
    }
  }
  const double peak = *std::max_element(w.begin(), w.end());
  for (double& v : w) v /= peak;
  return w;
}

}  // namespace

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> out;
    for (const Spec& s : specs()) out.push_back(s.name);
    return out;
  }();
  return n;
}

std::vector<std::string> parameters(const std::string& name) { return find_spec(name).params; }

std::vector<double> make_window(const std::string& name, std::size_t N, bool sym,
                                const std::map<std::string, double>& params,
                                const std::atomic<bool>* cancel) {
  auto poll = [cancel](std::size_t n) {  // Ctrl-C: every 2^16 samples
    if ((n & 0xFFFF) == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
  };
  const Spec& spec = find_spec(name);
  if (N < 1) throw std::invalid_argument("N must be >= 1, got " + std::to_string(N));
  if (N > (std::size_t{1} << 31)) {
    throw std::invalid_argument("N must be at most 2**31, got " + std::to_string(N));
  }
  for (const auto& kv : params) {
    if (std::find(spec.params.begin(), spec.params.end(), kv.first) == spec.params.end()) {
      std::string need = spec.params.empty() ? "no parameters" : "only " + spec.params[0];
      throw std::invalid_argument("window '" + name + "' takes " + need + ", got parameter " +
                                  kv.first + "=" + fmt(kv.second));
    }
    if (!std::isfinite(kv.second)) {
      throw std::invalid_argument("parameter " + kv.first + " must be finite, got " +
                                  fmt(kv.second));
    }
  }
  double p = 0;
  if (!spec.params.empty()) {
    const std::string& pn = spec.params[0];
    auto it = params.find(pn);
    if (it == params.end()) {
      throw std::invalid_argument("window '" + name + "' needs parameter " + pn +
                                  " (e.g. " + pn + "=...), got none");
    }
    p = it->second;
    const bool positive_only = name == "gaussian" || name == "chebyshev";
    if (positive_only ? !(p > 0) : !(p >= 0)) {
      throw std::invalid_argument("parameter " + pn + " must be " +
                                  (positive_only ? "> 0" : ">= 0") + ", got " + fmt(p));
    }
    if (name == "kaiser" && p > 700) {
      throw std::invalid_argument("parameter beta must be <= 700 (I0(beta) overflows), got " +
                                  fmt(p));
    }
    if (name == "chebyshev" && p > 3000) {
      throw std::invalid_argument("parameter attenuation must be <= 3000 dB, got " + fmt(p));
    }
  }
  if (N == 1 && name != "exponential") return {1.0};  // degenerate: every window is {1}
  if (name == "exponential") {
    if (sym) {
      throw std::invalid_argument(
          "sym must be False for the causal exponential window (it is one-sided), got True");
    }
    std::vector<double> w(N);
    for (std::size_t n = 0; n < N; ++n) {
      poll(n);
      w[n] = std::exp(-p * static_cast<double>(n));
    }
    return w;
  }
  if (name == "chebyshev") {
    // Always symmetric: dropping a sample (the DFT-even construction) would destroy the
    // equiripple property that defines the window.
    poll(0);
    std::vector<double> w = chebyshev_symmetric(N, p);  // one FFT of length N: not interruptible
    poll(0);
    for (double v : w) {
      if (!std::isfinite(v)) {
        throw std::invalid_argument("parameter attenuation too large for N = " +
                                    std::to_string(N) + ", got " + fmt(p));
      }
    }
    return w;
  }
  std::vector<double> w(N, 1.0);
  const std::size_t L = sym ? N - 1 : N;  // span: symmetric about L/2
  if (L == 0) return w;                     // N = 1 symmetric: {1}
  const std::vector<double> a = cosine_coefficients(name);
  // Compute the first half and mirror it, so that the symmetry w[n] = w[L − n] is exact.
  for (std::size_t n = 0; 2 * n <= L; ++n) {
    poll(n);
    const double x = (2.0 * static_cast<double>(n) - static_cast<double>(L)) / static_cast<double>(L);
    double v = 1.0;
    if (!a.empty()) {
      v = cosine_sum(a, n, L);
    } else if (name == "triangular") {
      v = 1.0 - std::abs(x);
    } else if (name == "gaussian") {
      v = std::exp(-0.5 * (p * x) * (p * x));
    } else if (name == "poisson") {
      v = std::exp(-p * std::abs(x));
    } else if (name == "kaiser") {
      const double arg = p * std::sqrt(std::max(0.0, 1.0 - x * x));
      v = boost::math::cyl_bessel_i(0, arg) / boost::math::cyl_bessel_i(0, p);
    }
    w[n] = v;
    if (L - n < N) w[L - n] = v;
  }
  return w;
}

}  // namespace ropelab::windows
