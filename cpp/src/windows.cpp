#include "ropelab/windows.hpp"
#include "ropelab/limits.hpp"

#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/bessel.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "ropelab/spectrum.hpp"

namespace ropelab::spectra::windows {

namespace {

constexpr double pi = boost::math::constants::pi<double>();
using cplx = std::complex<double>;

/// v as %g, or with the fewest more digits that read back as v (0.1 as "0.1", like Python repr).
std::string fmt(double v) {
  std::string text;
  for (int digits = 6; digits <= 17; ++digits) {  // as %g, with more digits when needed
    std::ostringstream s;
    s.precision(digits);
    s << v;
    text = s.str();
    if (!std::isfinite(v) || std::strtod(text.c_str(), nullptr) == v) break;
  }
  return text;
}

[[noreturn]] void bad(const std::string& msg) {
  throw std::invalid_argument(msg);
}

void need(bool ok, const std::string& key, double v, const std::string& what) {
  if (!ok) bad("parameter " + key + " must be " + what + ", got " + fmt(v));
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub =
          prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
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

/// A window computed as a symmetric window of length M = N (sym) or N + 1 (DFT-even, truncated).
template <class F>
std::vector<double> extended(std::size_t N, bool sym, F symmetric_of_length) {
  std::vector<double> w = symmetric_of_length(sym ? N : N + 1);
  w.resize(N);
  return w;
}

/// Symmetric length-M window from its first half f(n), n = 0..ceil(M/2)−1, mirrored exactly.
template <class F>
std::vector<double> mirrored(std::size_t M, F f) {
  std::vector<double> w(M);
  for (std::size_t n = 0; 2 * n < M; ++n) {
    w[n] = f(n);
    w[M - 1 - n] = w[n];
  }
  return w;
}

/// Symmetric window of length M from the zero-phase transform samples v(k), k = 0..M−1, of a
/// degree-(M−1) construction (scipy.signal.windows.chebwin's inverse DFT), unit peak.
template <class V>
std::vector<double> from_transform(std::size_t M, V v) {
  if (M == 1) return {1.0};
  std::vector<cplx> p(M), P(M);
  for (std::size_t k = 0; k < M; ++k) {
    const double vk = v(k);
    if ((M % 2) == 0) {
      const double t = pi * static_cast<double>(k) / static_cast<double>(M);
      p[k] = cplx(vk * std::cos(t), vk * std::sin(t));
    } else {
      p[k] = vk;
    }
  }
  spectra::fft_c2c(p.data(), M, M, P.data(), -1);
  std::vector<double> w(M);
  if ((M % 2) != 0) {
    const std::size_t n = (M + 1) / 2;
    for (std::size_t i = 0; i < n; ++i) {
      w[n - 1 - i] = P[i].real();
      w[n - 1 + i] = P[i].real();
    }
  } else {
    const std::size_t n = M / 2 + 1;
    for (std::size_t i = 1; i < n; ++i) {
      w[n - 1 - i] = P[i].real();
      w[n - 2 + i] = P[i].real();
    }
  }
  const double peak = *std::max_element(w.begin(), w.end());
  for (double& x : w) x /= peak;
  return w;
}

/// Symmetric Dolph–Chebyshev window of length M (scipy.signal.windows.chebwin's construction).
std::vector<double> chebyshev_symmetric(std::size_t M, double attenuation_db) {
  if (M == 1) return {1.0};
  const double order = static_cast<double>(M - 1);
  const double beta = std::cosh(std::acosh(std::pow(10.0, attenuation_db / 20.0)) / order);
  return from_transform(M, [&](std::size_t k) {
    const double x = beta * std::cos(pi * static_cast<double>(k) / static_cast<double>(M));
    if (x > 1) return std::cosh(order * std::acosh(x));
    if (x < -1) return ((M % 2) != 0 ? 1.0 : -1.0) * std::cosh(order * std::acosh(-x));
    return std::cos(order * std::acos(x));
  });
}

/// Symmetric Barcilon–Temes window of length M (Harris 1978, Barcilon–Temes window): its
/// transform, sampled like the Dolph–Chebyshev one and inverted the same way.
std::vector<double> barcilon_temes_symmetric(std::size_t M, double alpha) {
  if (M == 1) return {1.0};
  const double order = static_cast<double>(M - 1);
  const double C = std::acosh(std::pow(10.0, alpha));
  const double beta = std::cosh(C / order);
  const double A = std::sinh(C), B = std::cosh(C);
  // The transform of the zero-phase window at k' = min(k, M − k) ≤ M/2 (so β cos ≥ 0); for even
  // M the samples above M/2 carry the sign (−1)^{M−1} = −1 of the half-sample shift, as
  // chebwin's polynomial does.
  auto W = [&](std::size_t kk) {
    if (kk == 0) return 0.5;  // the limit y → iC (0/0): [A B − B A]/0, by l'Hôpital 1/2
    const double x = beta * std::cos(pi * static_cast<double>(kk) / static_cast<double>(M));
    const cplx y = order * std::acos(cplx(x, 0.0));
    const cplx r = y / C;
    const cplx num = A * std::cos(y) + B * r * std::sin(y);
    const cplx den = (C + A * B) * (r * r + 1.0);
    return (num / den).real();
  };
  return from_transform(M, [&](std::size_t k) {
    if (2 * k <= M) return W(k);
    return ((M % 2) != 0 ? 1.0 : -1.0) * W(M - k);
  });
}

/// scipy's Taylor window of (extended) length M.
std::vector<double> taylor_symmetric(std::size_t M, int nbar, double sll, bool norm) {
  const double B = std::pow(10.0, sll / 20.0);
  const double A = std::acosh(B) / pi;
  const double nb = static_cast<double>(nbar);
  const double s2 = nb * nb / (A * A + (nb - 0.5) * (nb - 0.5));
  std::vector<double> Fm(static_cast<std::size_t>(nbar - 1));
  const std::int64_t nbar64 = nbar;  // 64-bit counters: mi + 2 cannot overflow
  for (std::int64_t mi = 0; mi < nbar64 - 1; ++mi) {
    const double m2 = static_cast<double>(mi + 1) * static_cast<double>(mi + 1);
    double numer = (mi % 2 == 0) ? 1.0 : -1.0;
    for (std::int64_t j = 1; j < nbar64; ++j) {
      const double jd = static_cast<double>(j);
      numer *= 1 - m2 / s2 / (A * A + (jd - 0.5) * (jd - 0.5));
    }
    double d1 = 1, d2 = 1;
    for (std::int64_t j = 1; j <= mi; ++j)
      d1 *= 1 - m2 / (static_cast<double>(j) * static_cast<double>(j));
    for (std::int64_t j = mi + 2; j < nbar64; ++j)
      d2 *= 1 - m2 / (static_cast<double>(j) * static_cast<double>(j));
    Fm[static_cast<std::size_t>(mi)] = numer / (2 * d1 * d2);
  }
  const double Md = static_cast<double>(M);
  auto Wn = [&](double n) {
    double s = 0;
    for (std::size_t mi = 0; mi < Fm.size(); ++mi) {
      s += Fm[mi] * std::cos(2 * pi * static_cast<double>(mi + 1) * (n - Md / 2.0 + 0.5) / Md);
    }
    return 1 + 2 * s;
  };
  std::vector<double> w = mirrored(M, [&](std::size_t n) { return Wn(static_cast<double>(n)); });
  if (norm) {
    const double scale = 1.0 / Wn((Md - 1) / 2);
    for (double& x : w) x *= scale;
  }
  return w;
}

/// Number of eigenvalues of the symmetric tridiagonal (d, e) below x (Sturm sequence count).
std::size_t sturm_count(const std::vector<double>& d, const std::vector<double>& e2, double x) {
  std::size_t count = 0;
  double q = d[0] - x;
  const double tiny = std::numeric_limits<double>::min();
  if (q < 0) ++count;
  for (std::size_t i = 1; i < d.size(); ++i) {
    if (std::abs(q) < tiny) q = -tiny;
    q = d[i] - x - e2[i] / q;
    if (q < 0) ++count;
  }
  return count;
}

/// Solves (T − λ I) y = b for the tridiagonal T (diag d, off-diagonal e[i] between i−1 and i)
/// by Gaussian elimination with partial pivoting (LAPACK dgtsv); b is overwritten by y.
void shifted_tridiagonal_solve(const std::vector<double>& d, const std::vector<double>& e,
                               double lambda, double floor, std::vector<double>& b) {
  const std::size_t M = d.size();
  std::vector<double> dg(M), du(M, 0.0), dl(M, 0.0), du2(M, 0.0);
  for (std::size_t i = 0; i < M; ++i) dg[i] = d[i] - lambda;
  for (std::size_t i = 0; i + 1 < M; ++i) {
    du[i] = e[i + 1];
    dl[i] = e[i + 1];
  }
  for (std::size_t i = 0; i + 1 < M; ++i) {
    if (std::abs(dg[i]) >= std::abs(dl[i])) {
      if (dg[i] == 0) dg[i] = floor;
      const double f = dl[i] / dg[i];
      dg[i + 1] -= f * du[i];
      b[i + 1] -= f * b[i];
      if (i + 2 < M) du2[i] = 0;
    } else {
      const double f = dg[i] / dl[i];
      dg[i] = dl[i];
      const double t = dg[i + 1];
      dg[i + 1] = du[i] - f * t;
      if (i + 2 < M) {
        du2[i] = du[i + 1];
        du[i + 1] = -f * du2[i];
      }
      du[i] = t;
      std::swap(b[i], b[i + 1]);
      b[i + 1] -= f * b[i];
    }
  }
  if (dg[M - 1] == 0) dg[M - 1] = floor;
  b[M - 1] /= dg[M - 1];
  if (M > 1) b[M - 2] = (b[M - 2] - du[M - 2] * b[M - 1]) / dg[M - 2];
  for (std::size_t ii = M - 2; ii-- > 0;) {
    b[ii] = (b[ii] - du[ii] * b[ii + 1] - du2[ii] * b[ii + 2]) / dg[ii];
  }
}

/// scipy's dpss(M, NW) (Kmax = None) of (extended) length M ≥ 2, before truncation.
std::vector<double> dpss_symmetric(std::size_t M, double NW, const std::string& norm) {
  const double Md = static_cast<double>(M);
  const double Wb = NW / Md;
  const double c = std::cos(2 * pi * Wb);
  std::vector<double> d(M), e(M, 0.0), e2(M, 0.0);
  for (std::size_t i = 0; i < M; ++i) {
    const double t = (Md - 1 - 2 * static_cast<double>(i)) / 2.0;
    d[i] = t * t * c;
  }
  double lo = d[0], hi = d[0];
  for (std::size_t i = 1; i < M; ++i) {
    e[i] = static_cast<double>(i) * (Md - static_cast<double>(i)) / 2.0;
    e2[i] = e[i] * e[i];
  }
  for (std::size_t i = 0; i < M; ++i) {  // Gershgorin bounds
    const double r = (i > 0 ? std::abs(e[i]) : 0.0) + (i + 1 < M ? std::abs(e[i + 1]) : 0.0);
    lo = std::min(lo, d[i] - r);
    hi = std::max(hi, d[i] + r);
  }
  // Largest eigenvalue: the x at which the count of eigenvalues below x reaches M.
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (sturm_count(d, e2, mid) >= M) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  const double lambda = 0.5 * (lo + hi);
  const double scale = std::max(std::abs(lo), std::abs(hi));
  const double floor = std::numeric_limits<double>::epsilon() * std::max(scale, 1.0);
  std::vector<double> v(M, 1.0);
  for (int it = 0; it < 4; ++it) {
    shifted_tridiagonal_solve(d, e, lambda, floor, v);
    double nrm = 0;
    for (double x : v) nrm += x * x;
    nrm = std::sqrt(nrm);
    for (double& x : v) x /= nrm;
  }
  // The first Slepian sequence is even: average with its mirror image so that the symmetric
  // window is exactly symmetric (a change at the rounding level).
  for (std::size_t i = 0; 2 * i < M; ++i) {
    const double m = 0.5 * (v[i] + v[M - 1 - i]);
    v[i] = m;
    v[M - 1 - i] = m;
  }
  double sum = 0;
  for (double x : v) sum += x;
  if (sum < 0) {
    for (double& x : v) x = -x;
  }
  if (norm != "2") {
    const double peak = *std::max_element(v.begin(), v.end());
    for (double& x : v) x /= peak;
    if (M % 2 == 0) {
      double correction;
      if (norm == "approximate") {
        correction = Md * Md / (Md * Md + NW);
      } else {  // subsample: scipy's FFT shift by (1 − 1/M)/2 samples
        std::vector<cplx> x(M), X(M);
        for (std::size_t i = 0; i < M; ++i) x[i] = v[i];
        spectra::fft_c2c(x.data(), M, M, X.data(), -1);
        double total = X[0].real();
        for (std::size_t k = 1; k <= M / 2; ++k) {
          const double shift = -(1 - 1.0 / Md) * static_cast<double>(k);
          total += (2.0 * X[k] * std::exp(cplx(0.0, -pi * shift))).real();
        }
        correction = Md / total;
      }
      for (double& x : v) x *= correction;
    }
  }
  return v;
}

/// The k-th largest eigenvalue (k = 0: the largest) of the symmetric tridiagonal (d, e2 = e²)
/// within the Gershgorin bounds [lo, hi], by Sturm bisection.
double tridiagonal_eigenvalue(const std::vector<double>& d, const std::vector<double>& e2,
                              std::size_t k, double lo, double hi) {
  const std::size_t target = d.size() - k;  // eigenvalues below λ_k (ascending index M − 1 − k)
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (sturm_count(d, e2, mid) >= target) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return 0.5 * (lo + hi);
}

/// Unit-ℓ² Slepian tapers 0..K−1 of length M ≥ 2 for W = NW/M, signs as scipy's.
std::vector<std::vector<double>> slepian_tapers(std::size_t M, double NW, std::size_t K) {
  const double Md = static_cast<double>(M);
  const double c = std::cos(2 * pi * NW / Md);
  std::vector<double> d(M), e(M, 0.0), e2(M, 0.0);
  for (std::size_t i = 0; i < M; ++i) {
    const double t = (Md - 1 - 2 * static_cast<double>(i)) / 2.0;
    d[i] = t * t * c;
  }
  for (std::size_t i = 1; i < M; ++i) {
    e[i] = static_cast<double>(i) * (Md - static_cast<double>(i)) / 2.0;
    e2[i] = e[i] * e[i];
  }
  double lo = d[0], hi = d[0];
  for (std::size_t i = 0; i < M; ++i) {  // Gershgorin bounds
    const double r = (i > 0 ? std::abs(e[i]) : 0.0) + (i + 1 < M ? std::abs(e[i + 1]) : 0.0);
    lo = std::min(lo, d[i] - r);
    hi = std::max(hi, d[i] + r);
  }
  const double floor =
      std::numeric_limits<double>::epsilon() * std::max(std::max(std::abs(lo), std::abs(hi)), 1.0);
  std::vector<std::vector<double>> V;
  for (std::size_t k = 0; k < K; ++k) {
    const double lambda = tridiagonal_eigenvalue(d, e2, k, lo, hi);
    const bool odd = (k % 2) != 0;
    std::vector<double> v(M);
    for (std::size_t i = 0; i < M; ++i) {  // a start of the taper's parity
      v[i] = odd ? Md - 1 - 2 * static_cast<double>(i) : 1.0;
    }
    for (int it = 0; it < 5; ++it) {
      shifted_tridiagonal_solve(d, e, lambda, floor, v);
      // Exact parity (taper k is even for even k, odd for odd k), then orthogonal to the tapers
      // of the same parity already found (eigenvalues close together).
      for (std::size_t i = 0; 2 * i < M; ++i) {
        const double m = 0.5 * (odd ? v[i] - v[M - 1 - i] : v[i] + v[M - 1 - i]);
        v[i] = m;
        v[M - 1 - i] = odd ? -m : m;
      }
      if (odd && M % 2 == 1) v[M / 2] = 0.0;
      for (std::size_t j = k % 2; j < k; j += 2) {
        double dot = 0;
        for (std::size_t i = 0; i < M; ++i) dot += v[i] * V[j][i];
        for (std::size_t i = 0; i < M; ++i) v[i] -= dot * V[j][i];
      }
      double nrm = 0;
      for (double x : v) nrm += x * x;
      nrm = std::sqrt(nrm);
      for (double& x : v) x /= nrm;
    }
    bool flip = false;
    if (!odd) {
      double sum = 0;
      for (double x : v) sum += x;
      flip = sum < 0;
    } else {
      const double thresh = std::max(1e-7, 1.0 / Md);
      for (double x : v) {
        if (x * x > thresh) {
          flip = x < 0;
          break;
        }
      }
    }
    if (flip) {
      for (double& x : v) x = -x;
    }
    V.push_back(std::move(v));
  }
  return V;
}

/// Concentration ratio of a unit-ℓ² taper v of length M in the band [−W, W] (Percival & Walden
/// 1993, p. 390): Σ_j r[j] s[j], r the autocorrelation of v (by FFT), s[0] = 2W,
/// s[j] = 4W sinc(2Wj).
double concentration_ratio(const std::vector<double>& v, double W) {
  const std::size_t M = v.size();
  std::size_t nfft = 1;
  while (nfft < 2 * M - 1) nfft *= 2;
  std::vector<cplx> x(nfft, 0.0), X(nfft), r(nfft);
  for (std::size_t i = 0; i < M; ++i) x[i] = v[i];
  spectra::fft_c2c(x.data(), nfft, nfft, X.data(), -1);
  for (std::size_t i = 0; i < nfft; ++i) X[i] = std::norm(X[i]);
  spectra::fft_c2c(X.data(), nfft, nfft, r.data(), +1);
  double total = 2 * W * r[0].real() / static_cast<double>(nfft);
  for (std::size_t j = 1; j < M; ++j) {
    const double a = 2 * pi * W * static_cast<double>(j);
    total += 4 * W * (std::sin(a) / a) * r[j].real() / static_cast<double>(nfft);
  }
  return total;
}

double I0(double x) {
  return boost::math::cyl_bessel_i(0, x);
}

// ---- Samplers: each window's samples from its checked parameters (the rows of table() below)

using detail::Resolved;

/// The value of parameter `primary` under the name it was given, or `def` when not given.
double value_or(const Resolved& r, const Params& params, const std::string& primary, double def) {
  const std::string& key = r.used.at(primary);
  return key.empty() ? def : detail::number(params, key);
}

/// A window on the centred coordinate x = (2n − L)/L, span L = N − 1 (sym) or N: f(n, L, x) for
/// n ≤ L/2, mirrored exactly.
template <class F>
std::vector<double> centred(std::size_t N, bool sym, F f) {
  const std::size_t L = sym ? N - 1 : N;
  std::vector<double> w(N, 1.0);
  if (L == 0) return w;
  const double Ld = static_cast<double>(L);
  for (std::size_t n = 0; 2 * n <= L; ++n) {
    const double x = (2.0 * static_cast<double>(n) - Ld) / Ld;
    const double v = f(n, L, x);
    w[n] = v;
    if (L - n < N) w[L - n] = v;
  }
  return w;
}

/// A window of scipy's sampled on its own grid of the symmetric length M: f(M, n) for
/// n < (M + 1)/2, mirrored exactly, extended by one sample and truncated when DFT-even.
template <class F>
std::vector<double> scipy_grid(std::size_t N, bool sym, F f) {
  return extended(
      N, sym, [&](std::size_t M) { return mirrored(M, [&](std::size_t n) { return f(M, n); }); });
}

std::vector<double> finite_or_refused(std::vector<double> w, const std::string& key, double p,
                                      std::size_t N) {
  for (double v : w) {
    if (!std::isfinite(v))
      bad("parameter " + key + " too large for N = " + std::to_string(N) + ", got " + fmt(p));
  }
  return w;
}

/// The sampler of a cosine sum Σ_k (−1)^k a_k cos(2πkn/L) with fixed coefficients.
Sampler cosine_sum_window(std::vector<double> a) {
  return [a](const Resolved&, const Params&, std::size_t N, bool sym) {
    return centred(N, sym,
                   [&](std::size_t n, std::size_t L, double) { return cosine_sum(a, n, L); });
  };
}

std::vector<double> general_cosine(const Resolved&, const Params& params, std::size_t N, bool sym) {
  const std::vector<double> a = detail::parse_general_cosine(params);
  return centred(N, sym, [&](std::size_t n, std::size_t L, double) { return cosine_sum(a, n, L); });
}

void general_cosine_check(const Resolved&, const Params& params, std::size_t, bool) {
  detail::parse_general_cosine(params);
}

std::vector<double> general_hamming(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const std::vector<double> a = {r.p, 1.0 - r.p};
  return centred(N, sym, [&](std::size_t n, std::size_t L, double) { return cosine_sum(a, n, L); });
}

std::vector<double> rectangular(const Resolved&, const Params&, std::size_t N, bool) {
  return std::vector<double>(N, 1.0);
}

std::vector<double> triangular(const Resolved&, const Params&, std::size_t N, bool sym) {
  return centred(N, sym, [](std::size_t, std::size_t, double x) { return 1.0 - std::abs(x); });
}

std::vector<double> gaussian(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  const bool by_std = r.pkey == "std";
  return centred(N, sym, [&](std::size_t n, std::size_t L, double x) {
    if (by_std) {
      const double m = static_cast<double>(n) - static_cast<double>(L) / 2.0;
      return std::exp(-m * m / (2 * p * p));
    }
    return std::exp(-0.5 * (p * x) * (p * x));
  });
}

std::vector<double> poisson(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  const bool by_tau = r.pkey == "tau";
  return centred(N, sym, [&](std::size_t n, std::size_t L, double x) {
    return by_tau ? std::exp(-std::abs(static_cast<double>(n) - static_cast<double>(L) / 2.0) / p)
                  : std::exp(-p * std::abs(x));
  });
}

std::vector<double> kaiser(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double beta = r.pkey == "alpha" ? pi * r.p : r.p;
  const double I0p = I0(beta);
  return centred(N, sym, [&](std::size_t, std::size_t, double x) {
    const double arg = beta * std::sqrt(std::max(0.0, 1.0 - x * x));
    return I0(arg) / I0p;
  });
}

std::vector<double> bohman(const Resolved&, const Params&, std::size_t N, bool sym) {
  return centred(N, sym, [](std::size_t n, std::size_t, double x) {
    const double ax = std::abs(x);
    return n == 0 ? 0.0 : (1 - ax) * std::cos(pi * ax) + std::sin(pi * ax) / pi;
  });
}

std::vector<double> cosine_power(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  return centred(N, sym, [&](std::size_t n, std::size_t L, double) {
    // sin(πn/L) with n ≤ L/2: no cancellation near the ends.
    return p == 0 ? 1.0
                  : std::pow(std::sin(pi * static_cast<double>(n) / static_cast<double>(L)), p);
  });
}

std::vector<double> riesz(const Resolved&, const Params&, std::size_t N, bool sym) {
  return centred(N, sym, [](std::size_t, std::size_t, double x) { return 1 - x * x; });
}

std::vector<double> de_la_vallee_poussin(const Resolved&, const Params&, std::size_t N, bool sym) {
  return centred(N, sym, [](std::size_t, std::size_t, double x) {
    const double ax = std::abs(x);
    return ax <= 0.5 ? 1 - 6 * x * x * (1 - ax) : 2 * (1 - ax) * (1 - ax) * (1 - ax);
  });
}

std::vector<double> hann_poisson(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  return centred(N, sym, [&](std::size_t n, std::size_t, double x) {
    return n == 0 ? 0.0 : 0.5 * (1 + std::cos(pi * x)) * std::exp(-p * std::abs(x));
  });
}

std::vector<double> cauchy(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  return centred(
      N, sym, [&](std::size_t, std::size_t, double x) { return 1.0 / (1.0 + (p * x) * (p * x)); });
}

void chebyshev_check(const Resolved& r, const Params&, std::size_t, bool) {
  need(r.p != 0, r.pkey, r.p, "non-zero (a negative attenuation is read as |at|, as in scipy)");
}

std::vector<double> chebyshev(const Resolved& r, const Params&, std::size_t N, bool sym) {
  // scipy reads a negative attenuation as its magnitude (chebwin uses |at|).
  const double at = std::abs(r.pkey == "alpha" ? 20 * r.p : r.p);
  return finite_or_refused(
      extended(N, sym, [&](std::size_t M) { return chebyshev_symmetric(M, at); }), r.pkey, r.p, N);
}

std::vector<double> barcilon_temes(const Resolved& r, const Params&, std::size_t N, bool sym) {
  const double p = r.p;
  return finite_or_refused(
      extended(N, sym, [&](std::size_t M) { return barcilon_temes_symmetric(M, p); }), "alpha", p,
      N);
}

std::vector<double> taylor(const Resolved& r, const Params& params, std::size_t N, bool sym) {
  const detail::TaylorOptions t = detail::parse_taylor(r, params);
  return extended(N, sym,
                  [&](std::size_t M) { return taylor_symmetric(M, t.nbar, t.sll, t.norm); });
}

void dpss_check(const Resolved& r, const Params& params, std::size_t N, bool) {
  if (N > 1)
    need(r.p < static_cast<double>(N) / 2.0, "NW", r.p,
         "< N/2 = " + fmt(static_cast<double>(N) / 2.0));
  detail::parse_dpss_norm(r, params);
}

std::vector<double> dpss(const Resolved& r, const Params& params, std::size_t N, bool sym) {
  const std::string dnorm = detail::parse_dpss_norm(r, params);
  return extended(N, sym, [&](std::size_t M) { return dpss_symmetric(M, r.p, dnorm); });
}

void kaiser_bessel_derived_check(const Resolved&, const Params&, std::size_t N, bool) {
  if (N % 2 != 0) {
    bad("N must be even for window 'kaiser_bessel_derived' (as in scipy), got " +
        std::to_string(N));
  }
}

std::vector<double> kaiser_bessel_derived(const Resolved& r, const Params&, std::size_t N, bool) {
  const std::size_t H = N / 2 + 1;
  std::vector<double> k =
      make_window("kaiser", H, true, std::map<std::string, double>{{"beta", r.p}});
  std::vector<double> csum(H);
  double sum = 0;
  for (std::size_t i = 0; i < H; ++i) csum[i] = (sum += k[i]);
  std::vector<double> w(N);
  for (std::size_t i = 0; i + 1 < H; ++i) {
    w[i] = std::sqrt(csum[i] / csum[H - 1]);
    w[N - 1 - i] = w[i];
  }
  return w;
}

std::vector<double> tukey(const Resolved& r, const Params& params, std::size_t N, bool sym) {
  const double ta = value_or(r, params, "alpha", 0.5);
  if (ta <= 0) return std::vector<double>(N, 1.0);
  if (ta >= 1) return make_window("hann", N, sym, std::map<std::string, double>{});
  return extended(N, sym, [&](std::size_t M) {
    const double Mm1 = static_cast<double>(M - 1);
    const auto width = static_cast<std::size_t>(std::floor(ta * Mm1 / 2.0));
    return mirrored(M, [&](std::size_t n) {
      if (n > width) return 1.0;
      return 0.5 * (1 + std::cos(pi * (-1 + 2.0 * static_cast<double>(n) / ta / Mm1)));
    });
  });
}

std::vector<double> triang(const Resolved&, const Params&, std::size_t N, bool sym) {
  return scipy_grid(N, sym, [](std::size_t M, std::size_t i) {
    const double Md = static_cast<double>(M), n = static_cast<double>(i + 1);
    return M % 2 == 0 ? (2 * n - 1.0) / Md : 2 * n / (Md + 1.0);
  });
}

std::vector<double> parzen(const Resolved&, const Params&, std::size_t N, bool sym) {
  return scipy_grid(N, sym, [](std::size_t M, std::size_t i) {
    const double Md = static_cast<double>(M);
    const double n = std::abs(-(Md - 1) / 2.0 + static_cast<double>(i));
    const double r = n / (Md / 2.0);
    if (n <= (Md - 1) / 4.0) return 1 - 6 * r * r + 6 * r * r * r;
    const double t = 1 - r;
    return 2 * t * t * t;
  });
}

std::vector<double> barthann(const Resolved&, const Params&, std::size_t N, bool sym) {
  return scipy_grid(N, sym, [](std::size_t M, std::size_t n) {
    const double fac = std::abs(static_cast<double>(n) / (static_cast<double>(M) - 1.0) - 0.5);
    return 0.62 - 0.48 * fac + 0.38 * std::cos(2 * pi * fac);
  });
}

std::vector<double> cosine(const Resolved&, const Params&, std::size_t N, bool sym) {
  return scipy_grid(N, sym, [](std::size_t M, std::size_t n) {
    return std::sin(pi / static_cast<double>(M) * (static_cast<double>(n) + 0.5));
  });
}

std::vector<double> lanczos(const Resolved&, const Params&, std::size_t N, bool sym) {
  return scipy_grid(N, sym, [](std::size_t M, std::size_t n) {
    const double x = 2.0 * static_cast<double>(M - 1 - n) / (static_cast<double>(M) - 1) -
                     1.0;  // right half, mirrored
    if (x == 0) return 1.0;
    const double y = pi * x;
    return std::sin(y) / y;
  });
}

std::vector<double> general_gaussian(const Resolved& r, const Params& params, std::size_t N,
                                     bool sym) {
  const double p = r.p, sig = detail::number(params, r.used.at("sig"));
  return scipy_grid(N, sym, [p, sig](std::size_t M, std::size_t n) {
    const double x = static_cast<double>(n) - (static_cast<double>(M) - 1.0) / 2.0;
    return std::exp(-0.5 * std::pow(std::abs(x / sig), 2 * p));
  });
}

void exponential_check(const Resolved& r, const Params&, std::size_t, bool sym) {
  if (!r.used.at("center").empty() && sym) {
    bad("sym must be False for window 'exponential' with a center (as in scipy), got True");
  }
}

/// scipy's exponential: exp(−|n − center|/tau), centre L/2 unless given.
std::vector<double> exponential(const Resolved& r, const Params& params, std::size_t N, bool sym) {
  const double tau = value_or(r, params, "tau", 1.0);
  const std::string& ckey = r.used.at("center");
  if (ckey.empty()) {
    const double center = static_cast<double>(sym ? N - 1 : N) / 2.0;
    return extended(N, sym, [&](std::size_t M) {
      return mirrored(M, [&](std::size_t n) {
        return std::exp(-std::abs(static_cast<double>(n) - center) / tau);
      });
    });
  }
  const double center = detail::number(params, ckey);
  std::vector<double> w(N);
  for (std::size_t n = 0; n < N; ++n)
    w[n] = std::exp(-std::abs(static_cast<double>(n) - center) / tau);
  return w;
}

/// The causal window e^{−αn} of a diagonal SSM mode decaying α per sample.
std::vector<double> ssm(const Resolved& r, const Params&, std::size_t N, bool) {
  std::vector<double> w(N);
  for (std::size_t n = 0; n < N; ++n) w[n] = std::exp(-r.p * static_cast<double>(n));
  return w;
}

// ---- Parameter ranges and the table

constexpr double inf = std::numeric_limits<double>::infinity();

Range range(double lo, double hi, bool lo_open, bool hi_open, std::string text,
            bool integer = false) {
  Range r;
  r.lo = lo;
  r.hi = hi;
  r.lo_open = lo_open;
  r.hi_open = hi_open;
  r.integer = integer;
  r.text = std::move(text);
  return r;
}
const Range kFinite{};
const Range kNonNegative = range(0, inf, false, false, ">= 0");
const Range kPositive = range(0, inf, true, false, "> 0");

/// A required parameter: name and range, then (alternative, range) pairs.
ParameterInfo req(std::string n, Range r, std::string d,
                  std::vector<std::pair<std::string, Range>> alt = {}) {
  ParameterInfo p{std::move(n), {}, true, "", std::move(d), std::move(r), {}};
  for (auto& a : alt) {
    p.alternatives.push_back(std::move(a.first));
    p.alternative_ranges.push_back(std::move(a.second));
  }
  return p;
}
ParameterInfo opt(std::string n, std::string def, Range r, std::string d) {
  return {std::move(n), {}, false, std::move(def), std::move(d), std::move(r), {}};
}

constexpr const char* kDpssOneTaper =
    "returns one taper, the first (scipy's dpss with Kmax=None); several tapers (Kmax) and their "
    "concentration ratios (return_ratios) are spectra.dpss's";

const std::vector<WindowRow>& rows() {
  using S = Symmetry;
  const Range kaiser_beta = range(0, 700, false, false, "in [0, 700] (I0(beta) overflows above)");
  const Range kaiser_alpha =
      range(0, 700 / pi, false, false, "in [0, 700/pi] (I0(pi alpha) overflows above)");
  const Range cheb_db =
      range(-3000, 3000, false, false, "non-zero with |at| <= 3000 dB (negative: read as |at|)");
  // name, parameters, symmetry, sampler, check, fall-off order, reference parameters, scipy twin,
  // Harris 1978 Table 1 name, aliases, definition (on x = (2n - L)/L, span L; "cosine sum a_k":
  // sum_k (-1)^k a_k cos(2 pi k n/L)), [refused scipy parameters]
  static const std::vector<WindowRow> t = {
      {"rectangular",
       {},
       S::both,
       rectangular,
       nullptr,
       0,
       {},
       "boxcar",
       "Rectangle",
       {"boxcar", "rect"},
       "1"},
      {"triangular",
       {},
       S::both,
       triangular,
       nullptr,
       1,
       {},
       "bartlett",
       "Triangle",
       {"bartlett"},
       "1 - |x|"},
      {"hann",
       {},
       S::both,
       cosine_sum_window({0.5, 0.5}),
       nullptr,
       2,
       {},
       "hann",
       "cos^2 (Hanning)",
       {},
       "cosine sum 0.5, 0.5 (= sin^2(pi n/L))"},
      {"hamming",
       {},
       S::both,
       cosine_sum_window({0.54, 0.46}),
       nullptr,
       0,
       {},
       "hamming",
       "Hamming",
       {},
       "cosine sum 0.54, 0.46"},
      {"blackman",
       {},
       S::both,
       cosine_sum_window({0.42, 0.5, 0.08}),
       nullptr,
       2,
       {},
       "blackman",
       "Blackman",
       {},
       "cosine sum 0.42, 0.5, 0.08"},
      {"exact_blackman",
       {},
       S::both,
       cosine_sum_window({7938.0 / 18608.0, 9240.0 / 18608.0, 1430.0 / 18608.0}),
       nullptr,
       0,
       {},
       "",
       "Exact Blackman",
       {},
       "cosine sum 7938, 9240, 1430 (/18608)"},
      {"blackman_harris_3",
       {},
       S::both,
       cosine_sum_window({0.42323, 0.49755, 0.07922}),
       nullptr,
       0,
       {},
       "",
       "Minimum 3-term Blackman-Harris",
       {},
       "Harris's 3-term \"-67 dB\" cosine sum (true -70.8 dB)"},
      {"blackman_harris_4",
       {},
       S::both,
       cosine_sum_window({0.35875, 0.48829, 0.14128, 0.01168}),
       nullptr,
       0,
       {},
       "blackmanharris",
       "Minimum 4-term Blackman-Harris",
       {"blackmanharris"},
       "Harris's 4-term -92 dB cosine sum"},
      {"gaussian",
       {req("std", kPositive,
            "standard deviation in samples (> 0); alternative: Harris's alpha = (L/2)/std (> 0)",
            {{"alpha", kPositive}})},
       S::both,
       gaussian,
       nullptr,
       0,
       {{"alpha", 3.0}},
       "gaussian",
       "Gaussian",
       {},
       "exp(-(n - L/2)^2/(2 std^2)) = exp(-(alpha x)^2/2)"},
      {"poisson",
       {req("alpha", kNonNegative,
            "Harris's decay over the half-length, exp(-alpha|x|) (>= 0); alternative: scipy's "
            "exponential tau = (L/2)/alpha in samples (> 0)",
            {{"tau", kPositive}})},
       S::both,
       poisson,
       nullptr,
       0,
       {{"alpha", 3.0}},
       "",
       "Poisson",
       {},
       "exp(-alpha |x|) (scipy's centred exponential with tau = (L/2)/alpha)"},
      {"kaiser",
       {req("beta", kaiser_beta, "shape beta in [0, 700]; alternative: Harris's alpha = beta/pi",
            {{"alpha", kaiser_alpha}})},
       S::both,
       kaiser,
       nullptr,
       0,
       {{"alpha", 3.0}},
       "kaiser",
       "Kaiser-Bessel",
       {"kaiser_bessel"},
       "I0(beta sqrt(1 - x^2))/I0(beta)"},
      {"chebyshev",
       {req("at", cheb_db,
            "sidelobe attenuation in dB (non-zero, |at| <= 3000; a negative value is read as "
            "|at|, as in scipy); alternatives: attenuation (dB), Harris's alpha = at/20",
            {{"attenuation", cheb_db}, {"alpha", range(0, 150, true, false, "in (0, 150]")}})},
       S::both,
       chebyshev,
       chebyshev_check,
       -1,
       {{"alpha", 3.0}},
       "chebwin",
       "Dolph-Chebyshev",
       {"chebwin", "dolph_chebyshev"},
       "Dolph-Chebyshev, sidelobes at -at dB (scipy's construction)"},
      {"exponential",
       {opt("tau", "1.0", kPositive, "decay length in samples (> 0): exp(-|n - center|/tau)"),
        opt("center", "None", kFinite, "the centre in samples (default L/2; needs sym=False)")},
       S::both,
       exponential,
       exponential_check,
       0,
       {{"tau", 1024.0}},
       "exponential",
       "",
       {},
       "scipy's exp(-|n - center|/tau), centre L/2 by default"},
      {"ssm",
       {req("alpha", kNonNegative,
            "decay per sample of the causal SSM window exp(-alpha n) (>= 0; alpha*N is the decay "
            "over the window)")},
       S::dft_even,
       ssm,
       nullptr,
       0,
       {{"alpha", 8.0 / 4096.0}},
       "",
       "",
       {},
       "the causal SSM window exp(-alpha n) of a mode decaying alpha per sample"},
      {"blackman_harris_3_61",
       {},
       S::both,
       cosine_sum_window({0.44959, 0.49364, 0.05677}),
       nullptr,
       0,
       {},
       "",
       "61-dB 3-term Blackman-Harris",
       {},
       "Harris's 3-term -61 dB cosine sum"},
      {"blackman_harris_4_74",
       {},
       S::both,
       cosine_sum_window({0.40217, 0.49703, 0.09892, 0.00188}),
       nullptr,
       0,
       {},
       "",
       "74-dB 4-term Blackman-Harris",
       {},
       "Harris's 4-term -74 dB cosine sum"},
      {"kaiser_bessel_4",
       {},
       S::both,
       cosine_sum_window({0.40243, 0.49804, 0.09831, 0.00122}),
       nullptr,
       0,
       {},
       "",
       "4-sample Kaiser-Bessel (alpha = 3.0)",
       {},
       "Harris's 4-term Kaiser-Bessel cosine sum (alpha = 3)"},
      {"nuttall",
       {},
       S::both,
       cosine_sum_window({0.3635819, 0.4891775, 0.1365995, 0.0106411}),
       nullptr,
       0,
       {},
       "nuttall",
       "",
       {},
       "scipy's 4-term cosine sum (Nuttall 1981)"},
      {"flattop",
       {},
       S::both,
       cosine_sum_window({0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368}),
       nullptr,
       0,
       {},
       "flattop",
       "",
       {},
       "scipy's 5-term flat-top cosine sum"},
      {"general_cosine",
       {req("a", kFinite, "cosine-sum coefficients a_0, a_1, ... (a sequence)")},
       S::both,
       general_cosine,
       general_cosine_check,
       0,
       {{"a", 1.0}},
       "general_cosine",
       "",
       {},
       "cosine sum a_0, a_1, ..."},
      {"general_hamming",
       {req("alpha", kFinite, "alpha - (1 - alpha) cos(2 pi n/L) (finite)")},
       S::both,
       general_hamming,
       nullptr,
       0,
       {{"alpha", 0.54}},
       "general_hamming",
       "",
       {},
       "alpha - (1 - alpha) cos(2 pi n/L)"},
      {"general_gaussian",
       {req("p", kPositive, "shape p (> 0; p = 1: gaussian)"),
        req("sig", kPositive, "width in samples (> 0)")},
       S::both,
       general_gaussian,
       nullptr,
       3,
       {{"p", 1.5}, {"sig", 512.0}},
       "general_gaussian",
       "",
       {},
       "exp(-|(n - L/2)/sig|^(2p)/2)"},
      {"kaiser_bessel_derived",
       {req("beta", kaiser_beta, "shape beta in [0, 700]")},
       S::symmetric,
       kaiser_bessel_derived,
       kaiser_bessel_derived_check,
       0.5,
       {{"beta", 10.0}},
       "kaiser_bessel_derived",
       "",
       {"kbd"},
       "scipy's KBD window (symmetric, even N)"},
      {"taylor",
       {opt("nbar", "4", range(1, 10000, false, false, "an integer in [1, 10000]", true),
            "number of nearly constant sidelobes next to the main lobe (integer >= 1)"),
        opt("sll", "30", range(0, 3000, true, false, "in (0, 3000] dB"),
            "sidelobe suppression in dB (> 0)"),
        opt("norm", "True", range(0, 1, false, false, "a bool", true),
            "scale so that the centre sample (of the symmetric window) is 1")},
       S::both,
       taylor,
       nullptr,
       0,
       {},
       "taylor",
       "",
       {},
       "scipy's Taylor window"},
      {"dpss",
       {req("NW", kPositive, "time-half-bandwidth product (> 0, < N/2)"),
        opt("norm", "approximate", kFinite, "'approximate', 'subsample' or 2 (unit l2 norm)")},
       S::both,
       dpss,
       dpss_check,
       0,
       {{"NW", 3.0}},
       "dpss",
       "",
       {"slepian"},
       "first discrete prolate spheroidal sequence (scipy's dpss, Kmax=None)",
       {{"Kmax", kDpssOneTaper}, {"return_ratios", kDpssOneTaper}}},
      {"tukey",
       {opt("alpha", "0.5", range(0, 1, false, false, "in [0, 1]"),
            "taper fraction in [0, 1] (0: rectangular, 1: hann)")},
       S::both,
       tukey,
       nullptr,
       2,
       {{"alpha", 0.5}},
       "tukey",
       "Tukey",
       {"tukey_hann"},
       "cosine taper over the fraction alpha (0: rectangular, 1: hann)"},
      {"barthann",
       {},
       S::both,
       barthann,
       nullptr,
       1,
       {},
       "barthann",
       "",
       {},
       "scipy's Bartlett-Hann"},
      {"bohman",
       {},
       S::both,
       bohman,
       nullptr,
       3,
       {},
       "bohman",
       "Bohman",
       {},
       "(1 - |x|) cos(pi x) + sin(pi |x|)/pi"},
      {"cosine",
       {},
       S::both,
       cosine,
       nullptr,
       1,
       {},
       "cosine",
       "cos (alpha = 1)",
       {},
       "scipy's sin(pi (n + 1/2)/M)"},
      {"lanczos",
       {},
       S::both,
       lanczos,
       nullptr,
       1,
       {},
       "lanczos",
       "Riemann",
       {"riemann", "sinc"},
       "sin(pi x)/(pi x)"},
      {"parzen",
       {},
       S::both,
       parzen,
       nullptr,
       3,
       {},
       "parzen",
       "",
       {},
       "scipy's Parzen (de la Vallee-Poussin sampled with scale M/2)"},
      {"triang",
       {},
       S::both,
       triang,
       nullptr,
       1,
       {},
       "triang",
       "",
       {},
       "scipy's triangle without zero ends"},
      {"cosine_power",
       {req("alpha", kNonNegative, "Harris's power alpha of cos^alpha (>= 0)")},
       S::both,
       cosine_power,
       nullptr,
       3,
       {{"alpha", 3.0}},
       "",
       "cos^alpha",
       {},
       "cos^alpha(pi x/2) (alpha = 2: hann)"},
      {"riesz", {}, S::both, riesz, nullptr, 1, {}, "", "Riesz", {}, "1 - x^2"},
      {"de_la_vallee_poussin",
       {},
       S::both,
       de_la_vallee_poussin,
       nullptr,
       3,
       {},
       "",
       "de la Vallee-Poussin",
       {},
       "1 - 6x^2(1 - |x|) for |x| <= 1/2, 2(1 - |x|)^3 beyond"},
      {"hann_poisson",
       {req("alpha", kNonNegative, "Harris's decay alpha (>= 0)")},
       S::both,
       hann_poisson,
       nullptr,
       1,
       {{"alpha", 1.0}},
       "",
       "Hanning-Poisson",
       {},
       "(1 + cos(pi x))/2 exp(-alpha |x|)"},
      {"cauchy",
       {req("alpha", kNonNegative, "Harris's alpha (>= 0)")},
       S::both,
       cauchy,
       nullptr,
       0,
       {{"alpha", 4.0}},
       "",
       "Cauchy",
       {},
       "1/(1 + (alpha x)^2)"},
      {"barcilon_temes",
       {req("alpha", range(0, 100, true, false, "in (0, 100]"),
            "Harris's alpha (> 0, <= 100): C = arccosh 10^alpha")},
       S::both,
       barcilon_temes,
       nullptr,
       0,
       {{"alpha", 3.0}},
       "",
       "Barcilon-Temes",
       {},
       "Harris's Barcilon-Temes transform, inverted like Dolph-Chebyshev"},
  };
  return t;
}

}  // namespace

bool Range::contains(double v) const {
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return !integer || v == std::floor(v);
}

const std::vector<WindowRow>& table() {
  return rows();
}

const std::vector<std::pair<std::string, std::string>>& aliases() {
  static const std::vector<std::pair<std::string, std::string>> a = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const WindowRow& r : table()) {
      for (const std::string& alias : r.aliases) out.emplace_back(alias, r.name);
    }
    return out;
  }();
  return a;
}

std::string canonical_name(const std::string& name) {
  return row(name).name;
}

const WindowRow& row(const std::string& name) {
  for (const WindowRow& s : table()) {
    if (s.name == name) return s;
  }
  for (const auto& a : aliases()) {
    if (a.first == name) return row(a.second);
  }
  // Names other libraries use that are not aliases here: NumPy's and MATLAB's names (a hint only,
  // since e.g. np.hanning is the symmetric Hann window, which is hann with sym=True).
  struct Foreign {
    const char* name;
    const char* window;
    const char* note;
  };
  static const std::vector<Foreign> foreign = {
      {"hanning", "hann", " NumPy's np.hanning is hann with sym=True"},
      {"rectwin", "rectangular", ""},
      {"rectangle", "rectangular", ""},
      {"box", "rectangular", ""},
      {"triangle", "triangular", ""},
      {"flattopwin", "flattop", ""},
      {"nuttallwin", "nuttall", ""},
      {"barthannwin", "barthann", ""},
      {"bohmanwin", "bohman", ""},
      {"gausswin", "gaussian", ""},
      {"gauss", "gaussian", ""},
      {"taylorwin", "taylor", ""},
      {"parzenwin", "parzen", ""},
      {"blackman_harris", "blackman_harris_4", " scipy's blackmanharris"},
      {"exponential_decay", "ssm", " the causal exponential exp(-alpha n)"},
      {"ssm_window", "ssm", ""},
  };
  const std::string all = "; window_names() lists them all";
  for (const Foreign& f : foreign) {
    if (f.name == name) {
      bad("name must be a window name, got '" + name + "' (did you mean '" + f.window + "'?" +
          f.note + ")" + all);
    }
  }
  // The closest names (canonical names and aliases), at most three, nearest first.
  std::vector<std::pair<std::size_t, std::string>> near;
  const std::size_t within = std::max<std::size_t>(2, name.size() / 3);
  for (const WindowRow& s : table()) {
    if (edit_distance(name, s.name) <= within)
      near.emplace_back(edit_distance(name, s.name), s.name);
  }
  for (const auto& a : aliases()) {
    if (edit_distance(name, a.first) <= within)
      near.emplace_back(edit_distance(name, a.first), a.first);
  }
  for (const Foreign& f : foreign) {  // a misspelt foreign name suggests the window it means
    if (edit_distance(name, f.name) <= within)
      near.emplace_back(edit_distance(name, f.name), f.window);
  }
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::string hint;
  std::vector<std::string> shown;
  for (const auto& n : near) {
    if (shown.size() == 3) break;
    if (std::find(shown.begin(), shown.end(), n.second) == shown.end()) shown.push_back(n.second);
  }
  for (std::size_t i = 0; i < shown.size(); ++i) {
    hint += (i == 0 ? "" : (i + 1 == shown.size() ? " or " : ", ")) + ("'" + shown[i] + "'");
  }
  if (!hint.empty()) hint = " (did you mean " + hint + "?)";
  bad("name must be a window name, got '" + name + "'" + hint + all +
      " (window_names(aliases=True) with the aliases)");
}

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> out;
    for (const WindowRow& s : table()) out.push_back(s.name);
    return out;
  }();
  return n;
}

std::vector<std::string> parameters(const std::string& name) {
  std::vector<std::string> out;
  for (const ParameterInfo& p : row(name).parameters) {
    if (p.required) out.push_back(p.name);
  }
  return out;
}

std::vector<ParameterInfo> parameter_info(const std::string& name) {
  return row(name).parameters;
}

std::string symmetry(const std::string& name) {
  switch (row(name).symmetry) {
    case Symmetry::symmetric:
      return "symmetric";
    case Symmetry::dft_even:
      return "dft-even";
    default:
      return "both";
  }
}

DpssTapers dpss_tapers(std::size_t N, double NW, std::size_t Kmax, bool sym,
                       const std::string& norm, bool ratios) {
  if (N > limits::kMaxSignalLength) {
    bad("N must be at most " + std::to_string(limits::kMaxSignalLength) + ", got " +
        std::to_string(N));
  }
  if (norm != "approximate" && norm != "subsample" && norm != "2") {
    bad("parameter norm must be 'approximate', 'subsample' or 2, got '" + norm + "'");
  }
  need(std::isfinite(NW) && NW > 0, "NW", NW, "> 0 and finite");
  DpssTapers out;
  if (N <= 1) {  // scipy's degenerate case: one taper of N ones, ratio 1
    out.tapers.assign(1, std::vector<double>(N, 1.0));
    if (ratios) out.ratios = {1.0};
    return out;
  }
  if (Kmax < 1 || Kmax > N) {
    bad("parameter Kmax must be in [1, N = " + std::to_string(N) + "], got " +
        std::to_string(Kmax));
  }
  need(NW < static_cast<double>(N) / 2.0, "NW", NW, "< N/2 = " + fmt(static_cast<double>(N) / 2.0));
  const std::size_t M = sym ? N : N + 1;
  const double Md = static_cast<double>(M);
  std::vector<std::vector<double>> V = slepian_tapers(M, NW, Kmax);
  if (ratios) {
    for (const auto& v : V) out.ratios.push_back(concentration_ratio(v, NW / Md));
  }
  if (norm != "2") {
    double peak = -std::numeric_limits<double>::infinity();
    for (const auto& v : V) peak = std::max(peak, *std::max_element(v.begin(), v.end()));
    for (auto& v : V) {
      for (double& x : v) x /= peak;
    }
    if (M % 2 == 0) {
      double correction;
      if (norm == "approximate") {
        correction = Md * Md / (Md * Md + NW);
      } else {  // subsample: scipy's FFT shift of taper 0 by (1 − 1/M)/2 samples
        std::vector<cplx> x(M), X(M);
        for (std::size_t i = 0; i < M; ++i) x[i] = V[0][i];
        spectra::fft_c2c(x.data(), M, M, X.data(), -1);
        double total = X[0].real();
        for (std::size_t k = 1; k <= M / 2; ++k) {
          const double shift = -(1 - 1.0 / Md) * static_cast<double>(k);
          total += (2.0 * X[k] * std::exp(cplx(0.0, -pi * shift))).real();
        }
        correction = Md / total;
      }
      for (auto& v : V) {
        for (double& x : v) x *= correction;
      }
    }
  }
  if (!sym) {
    for (auto& v : V) v.pop_back();
  }
  out.tapers = std::move(V);
  return out;
}

std::vector<double> make_window(const std::string& name, std::size_t N, bool sym,
                                const std::map<std::string, double>& params) {
  Params p;
  p.values = params;
  return make_window_params(name, N, sym, p);
}

namespace detail {

namespace {

std::string accepted_list(const WindowRow& spec) {
  std::string s;
  for (const ParameterInfo& pi : spec.parameters) {
    s += (s.empty() ? "" : ", ") + pi.name;
    for (const std::string& a : pi.alternatives) s += " (or " + a + ")";
  }
  return s.empty() ? std::string("no parameters") : "parameters " + s;
}

/// The range of parameter name `k` (primary or alternative); throws for an unknown name.
const Range& known_range(const WindowRow& spec, const std::string& k, const std::string& shown) {
  for (const auto& refused : spec.refused) {
    if (refused.first == k) {
      bad("window '" + spec.name + "' " + refused.second + ", got " + k + "=" + shown);
    }
  }
  for (const ParameterInfo& pi : spec.parameters) {
    if (pi.name == k) return pi.range;
    for (std::size_t i = 0; i < pi.alternatives.size(); ++i) {
      if (pi.alternatives[i] == k) return pi.alternative_ranges[i];
    }
  }
  bad("window '" + spec.name + "' takes " + accepted_list(spec) + ", got parameter " + k + "=" +
      shown);
}

}  // namespace

double number(const Params& params, const std::string& key) {
  auto it = params.values.find(key);
  if (it == params.values.end()) bad("parameter " + key + " must be a real number");
  return it->second;
}

Resolved resolve_parameters(const std::string& name_in, const Params& params) {
  const WindowRow& spec = row(name_in);
  Resolved r;
  r.name = spec.name;
  // Every given parameter must be known, finite and in its range; at most one name per parameter.
  for (const auto& kv : params.values) {
    const Range& range = known_range(spec, kv.first, fmt(kv.second));
    if (!std::isfinite(kv.second)) {
      bad("parameter " + kv.first + " must be finite, got " + fmt(kv.second));
    }
    need(range.contains(kv.second), kv.first, kv.second, range.text);
  }
  for (const auto& kv : params.arrays) known_range(spec, kv.first, "<array>");
  for (const auto& kv : params.options) known_range(spec, kv.first, "'" + kv.second + "'");
  auto given = [&](const std::string& k) {
    return params.values.count(k) + params.arrays.count(k) + params.options.count(k) > 0;
  };
  for (const ParameterInfo& pi : spec.parameters) {
    std::vector<std::string> names_given;
    if (given(pi.name)) names_given.push_back(pi.name);
    for (const std::string& a : pi.alternatives) {
      if (given(a)) names_given.push_back(a);
    }
    if (names_given.size() > 1) {
      bad("window '" + r.name + "' takes only one of " + names_given[0] + " and " + names_given[1] +
          " (the same parameter in two conventions), got both");
    }
    if (names_given.empty() && pi.required) {
      std::string alt;
      for (const std::string& a : pi.alternatives) alt += " or " + a;
      bad("window '" + r.name + "' needs parameter " + pi.name + alt + " (e.g. " + pi.name +
          "=...), got none");
    }
    r.used[pi.name] = names_given.empty() ? "" : names_given[0];
  }
  return r;
}

void read_main_parameter(Resolved& r, const Params& params) {
  const WindowRow& spec = row(r.name);
  if (!spec.parameters.empty() && spec.parameters[0].required && spec.parameters[0].name != "a") {
    r.pkey = r.used[spec.parameters[0].name];
    r.p = number(params, r.pkey);
  }
}

TaylorOptions parse_taylor(const Resolved& r, const Params& params) {
  TaylorOptions t;  // the ranges are checked by resolve_parameters
  if (!r.used.at("nbar").empty()) t.nbar = static_cast<int>(number(params, "nbar"));
  if (!r.used.at("sll").empty()) t.sll = number(params, "sll");
  if (!r.used.at("norm").empty()) t.norm = number(params, "norm") != 0;
  return t;
}

std::string parse_dpss_norm(const Resolved& r, const Params& params) {
  if (r.used.at("norm").empty()) return "approximate";
  auto io = params.options.find("norm");
  if (io != params.options.end()) {
    const std::string& dnorm = io->second;
    if (dnorm != "approximate" && dnorm != "subsample" && dnorm != "2") {
      bad("parameter norm must be 'approximate', 'subsample' or 2, got '" + dnorm + "'");
    }
    return dnorm;
  }
  const double v = number(params, "norm");
  if (v != 2) bad("parameter norm must be 'approximate', 'subsample' or 2, got " + fmt(v));
  return "2";
}

std::vector<double> parse_general_cosine(const Params& params) {
  std::vector<double> gc;
  auto ia = params.arrays.find("a");
  if (ia == params.arrays.end()) {
    auto iv = params.values.find("a");
    if (iv == params.values.end()) bad("parameter a must be a sequence of real numbers");
    gc = {iv->second};
  } else {
    gc = ia->second;
  }
  if (gc.empty() || gc.size() > 1000) {
    bad("parameter a must have 1 to 1000 coefficients, got " + std::to_string(gc.size()));
  }
  for (double v : gc) {
    if (!std::isfinite(v)) bad("parameter a must be finite, got an element " + fmt(v));
  }
  return gc;
}

}  // namespace detail

std::vector<double> make_window_params(const std::string& name_in, std::size_t N, bool sym,
                                       const Params& params) {
  const WindowRow& spec = row(name_in);
  if (N > limits::kMaxSignalLength) {
    bad("N must be at most " + std::to_string(limits::kMaxSignalLength) + ", got " +
        std::to_string(N));
  }
  detail::Resolved r = detail::resolve_parameters(spec.name, params);
  if (spec.symmetry == Symmetry::symmetric && !sym) {
    bad("sym must be True for window '" + r.name +
        "' (it is only defined symmetric, as in scipy; pass sym=True), got False");
  }
  if (spec.symmetry == Symmetry::dft_even && sym) {
    bad("sym must be False for window '" + r.name +
        "' (it is only defined DFT-even: one-sided; pass sym=False), got True");
  }
  detail::read_main_parameter(r, params);
  if (spec.check) spec.check(r, params, N, sym);
  if (N == 0) return {};     // empty, as scipy (after the checks: N = 0 refuses what N > 1 do)
  if (N == 1) return {1.0};  // degenerate: every window is {1}
  return spec.sampler(r, params, N, sym);
}

}  // namespace ropelab::spectra::windows
