#include "ropelab/spectrum.hpp"
#include "ropelab/limits.hpp"

#include <fftw3.h>
#include <Eigen/Dense>
#include <boost/math/constants/constants.hpp>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <pthread.h>
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "ropelab/montecarlo.hpp"

namespace ropelab::spectra {

namespace {

constexpr double pi = boost::math::constants::pi<double>();
constexpr double two_pi = boost::math::constants::two_pi<double>();
constexpr double two_pi_lo = 2.4492935982947064e-16;  // 2π − two_pi (2π = two_pi + two_pi_lo)

/// x·y reduced to [−π, π] with an error of a few ulp of π: the product is split exactly with fma,
/// and 2π carries its low part, so that large x·y (e.g. ω·n, N·ω) lose no digits.
double mul_mod_2pi(double x, double y) {
  const double p = x * y;
  const double e = std::fma(x, y, -p);  // x·y = p + e exactly
  const double k = std::nearbyint(p / two_pi);
  const double r = std::fma(-k, two_pi, p) - k * two_pi_lo + e;
  return std::remainder(r, two_pi);
}

/// ω − 2πc reduced to [−π, π] with one rounding of the product (c a fraction of a cycle).
double sub_2pi_times(double omega, double c) {
  return std::remainder(std::fma(-two_pi, c, omega) - two_pi_lo * c, two_pi);
}

// ---------------------------------------------------------------------------------------------
// FFTW plan cache
// ---------------------------------------------------------------------------------------------

enum class Kind { r2c, c2c_forward, c2c_backward };

/// The one lock around FFTW's planner (fftw_plan_* and fftw_destroy_plan are not thread-safe;
/// fftw_execute_* on an existing plan is). Heap-allocated and never destroyed, so that a thread
/// still computing while the process exits never meets a destroyed mutex.
std::mutex& plan_mutex() {
  static auto* m = new std::mutex;
  return *m;
}

/// Fork safety: the lock is taken before fork() and released in both processes afterwards, so a
/// child never inherits it held by a thread that does not exist in the child (planning in another
/// thread at the moment of the fork finishes first).
[[maybe_unused]] const int atfork_registered = [] {
  return pthread_atfork([] { plan_mutex().lock(); }, [] { plan_mutex().unlock(); },
                        [] { plan_mutex().unlock(); });
}();

/// A plan shared by the cache and the callers executing it; destroyed (under the planner lock)
/// when the last of them lets go. Never released while plan_mutex() is held by the same thread.
using Plan = std::shared_ptr<fftw_plan_s>;

Plan make_plan(fftw_plan p) {
  return Plan(p, [](fftw_plan q) {
    std::lock_guard<std::mutex> lock(plan_mutex());
    fftw_destroy_plan(q);
  });
}

/// Least-recently-used cache of plans, bounded by plan_cache_capacity entries and by
/// plan_cache_max_points (the sum of the cached lengths). An FFTW_ESTIMATE plan of length m holds
/// O(m) twiddle factors (about 16 bytes per point plus a few KB of fixed overhead), so the cache
/// holds at most about 16·2^22 B = 64 MB + 64 × a few KB. A length larger than the point budget
/// is planned, used and destroyed per call.
struct PlanCache {
  using Key = std::pair<Kind, std::size_t>;
  std::list<std::pair<Key, Plan>> lru;  // most recent first
  std::map<Key, std::list<std::pair<Key, Plan>>::iterator> index;
  std::size_t points = 0;
};

PlanCache& plan_cache() {
  static auto* cache = new PlanCache;  // never destroyed (see plan_mutex)
  return *cache;
}

struct FftwFree {
  void operator()(void* p) const { fftw_free(p); }
};
template <class T>
using fftw_buffer = std::unique_ptr<T[], FftwFree>;

template <class T>
fftw_buffer<T> fftw_alloc(std::size_t n) {
  // fftw_malloc gives the alignment the cached plans were made with (the new-array execute
  // functions require the same alignment as the planning arrays).
  auto* p = static_cast<T*>(fftw_malloc(sizeof(T) * std::max<std::size_t>(n, 1)));
  if (p == nullptr) throw std::bad_alloc();
  return fftw_buffer<T>(p);
}

int fft_size(std::size_t m) {
  if (m < 1 || m > limits::kMaxSignalLength) {
    throw std::invalid_argument("FFT length must be in [1, 2**31 - 1], got " + std::to_string(m));
  }
  return static_cast<int>(m);
}

/// The plan for (kind, m), from the cache or created. Only the planner and the cache take the
/// lock: executing a finished plan is thread-safe.
Plan get_plan(Kind kind, std::size_t m) {
  const int n = fft_size(m);
  std::vector<Plan> evicted;  // released after the lock (their deleter takes it)
  std::lock_guard<std::mutex> lock(plan_mutex());
  auto& cache = plan_cache();
  const PlanCache::Key key{kind, m};
  if (auto it = cache.index.find(key); it != cache.index.end()) {
    cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
    return it->second->second;
  }
  fftw_plan raw = nullptr;
  if (kind == Kind::r2c) {
    auto in = fftw_alloc<double>(m);
    auto out = fftw_alloc<fftw_complex>(m / 2 + 1);
    raw = fftw_plan_dft_r2c_1d(n, in.get(), out.get(), FFTW_ESTIMATE);
  } else {
    auto in = fftw_alloc<fftw_complex>(m);
    auto out = fftw_alloc<fftw_complex>(m);
    raw = fftw_plan_dft_1d(n, in.get(), out.get(),
                           kind == Kind::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  if (raw == nullptr)
    throw std::runtime_error("FFTW could not create a plan of length " + std::to_string(m));
  // The deleter locks plan_mutex(): this plan must not die while this frame holds it. It is either
  // cached (the cache holds it) or returned (the caller holds it) after the lock is released.
  Plan plan = make_plan(raw);
  if (m <= plan_cache_max_points) {
    while (!cache.lru.empty() &&
           (cache.lru.size() >= plan_cache_capacity || cache.points + m > plan_cache_max_points)) {
      auto& victim = cache.lru.back();
      cache.points -= victim.first.second;
      cache.index.erase(victim.first);
      evicted.push_back(std::move(victim.second));
      cache.lru.pop_back();
    }
    cache.lru.emplace_front(key, plan);
    cache.index.emplace(key, cache.lru.begin());
    cache.points += m;
  }
  return plan;
}

// ---------------------------------------------------------------------------------------------
// Exact phase reduction for the DTFT
// ---------------------------------------------------------------------------------------------

/// f reduced to [0, N) and split into integer and fractional parts.
struct ReducedFreq {
  std::int64_t fi;
  double ff;
};

ReducedFreq reduce_freq(double f, std::size_t N) {
  const double Nd = static_cast<double>(N);
  double fr = f - Nd * std::floor(f / Nd);
  if (fr >= Nd) fr -= Nd;
  if (fr < 0) fr = 0;
  const double fi = std::floor(fr);
  return {static_cast<std::int64_t>(fi), fr - fi};
}

/// e^{−2πi f n/N} with f·n reduced mod N: the integer part in int64 (exact), the fractional part
/// in double (error ≤ a few ulp of one cycle).
inline cplx unit_phase(const ReducedFreq& r, std::int64_t n, std::int64_t N) {
  const std::int64_t ip = (r.fi * n) % N;
  double c = (static_cast<double>(ip) + r.ff * static_cast<double>(n)) / static_cast<double>(N);
  c -= std::floor(c);
  if (c > 0.5) c -= 1.0;
  const double t = two_pi * c;
  return {std::cos(t), -std::sin(t)};
}

std::size_t block_size(std::size_t N) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::sqrt(static_cast<double>(N))));
}

void check_dtft_length(std::size_t N) {
  if (N < 1) throw std::invalid_argument("x must not be empty");
  if (N > limits::kMaxSignalLength) {
    throw std::invalid_argument("x must have fewer than 2**31 samples, got " + std::to_string(N));
  }
}

/// Σ x[n] e^{−2πi f n/N} (and, if dX, Σ x[n] (−2πi n/N) e^{−2πi f n/N}), with n = jB + r and
/// e^{−2πi f n/N} = e^{−2πi f jB/N} e^{−2πi f r/N}: B + N/B exact phases, one rounding per product.
template <class T>
cplx dtft_one(const T* x, std::size_t N, double f, std::vector<cplx>& zr, std::vector<cplx>& zb,
              cplx* dX) {
  const std::size_t B = block_size(N);
  const std::size_t J = (N + B - 1) / B;
  zr.resize(B);
  zb.resize(J);
  const ReducedFreq r = reduce_freq(f, N);
  const auto Ni = static_cast<std::int64_t>(N);
  for (std::size_t i = 0; i < B; ++i) zr[i] = unit_phase(r, static_cast<std::int64_t>(i), Ni);
  for (std::size_t j = 0; j < J; ++j) zb[j] = unit_phase(r, static_cast<std::int64_t>(j * B), Ni);
  cplx acc = 0, dacc = 0;
  for (std::size_t j = 0; j < J; ++j) {
    const std::size_t n0 = j * B;
    const std::size_t len = std::min(B, N - n0);
    cplx s = 0, ds = 0;
    for (std::size_t i = 0; i < len; ++i) {
      const cplx term = x[n0 + i] * zr[i];
      s += term;
      if (dX != nullptr) ds += static_cast<double>(n0 + i) * term;
    }
    acc += zb[j] * s;
    if (dX != nullptr) dacc += zb[j] * ds;
  }
  if (dX != nullptr) *dX = dacc * cplx(0.0, -two_pi / static_cast<double>(N));
  return acc;
}

template <class T>
void dtft_impl(const T* x, std::size_t N, const double* f, std::size_t F, cplx* out) {
  check_dtft_length(N);
  std::vector<cplx> zr, zb;
  for (std::size_t i = 0; i < F; ++i) out[i] = dtft_one(x, N, f[i], zr, zb, nullptr);
}

double db(double ratio) {
  return 20.0 * std::log10(ratio);
}

}  // namespace

// -------------------------------------------------------------------------------------------------
// FFT
// -------------------------------------------------------------------------------------------------

void fft_r2c(const double* x, std::size_t n, std::size_t m, cplx* out) {
  if (m < n) throw std::invalid_argument("FFT length must be >= the input length");
  const Plan plan = get_plan(Kind::r2c, m);
  auto in = fftw_alloc<double>(m);
  auto res = fftw_alloc<fftw_complex>(m / 2 + 1);
  std::copy(x, x + n, in.get());
  std::fill(in.get() + n, in.get() + m, 0.0);
  fftw_execute_dft_r2c(plan.get(), in.get(), res.get());
  for (std::size_t k = 0; k <= m / 2; ++k) out[k] = cplx(res[k][0], res[k][1]);
}

void fft_c2c(const cplx* x, std::size_t n, std::size_t m, cplx* out, int sign) {
  if (m < n) throw std::invalid_argument("FFT length must be >= the input length");
  const Plan plan = get_plan(sign < 0 ? Kind::c2c_forward : Kind::c2c_backward, m);
  auto in = fftw_alloc<fftw_complex>(m);
  auto res = fftw_alloc<fftw_complex>(m);
  for (std::size_t i = 0; i < m; ++i) {
    const cplx v = i < n ? x[i] : cplx(0.0);
    in[i][0] = v.real();
    in[i][1] = v.imag();
  }
  fftw_execute_dft(plan.get(), in.get(), res.get());
  for (std::size_t k = 0; k < m; ++k) out[k] = cplx(res[k][0], res[k][1]);
}

std::size_t cached_plan_count() {
  std::lock_guard<std::mutex> lock(plan_mutex());
  return plan_cache().lru.size();
}

// -------------------------------------------------------------------------------------------------
// Spectra
// -------------------------------------------------------------------------------------------------

std::size_t spectrum_size(std::size_t N, std::size_t pad, bool real_input) {
  const std::size_t m = N * pad;
  return real_input ? m / 2 + 1 : m;
}

void spectrum_real(const double* x, std::size_t N, std::size_t pad, double* freqs, double* mag) {
  if (N < 1) throw std::invalid_argument("x must not be empty");
  const std::size_t m = N * pad;
  std::vector<cplx> X(m / 2 + 1);
  fft_r2c(x, N, m, X.data());
  for (std::size_t k = 0; k <= m / 2; ++k) {
    freqs[k] = static_cast<double>(k) / static_cast<double>(pad);
    mag[k] = std::abs(X[k]);
  }
}

void spectrum_complex(const cplx* x, std::size_t N, std::size_t pad, double* freqs, double* mag) {
  if (N < 1) throw std::invalid_argument("x must not be empty");
  const std::size_t m = N * pad;
  std::vector<cplx> X(m);
  fft_c2c(x, N, m, X.data(), -1);
  const auto half = static_cast<std::int64_t>(m / 2);
  const auto mi = static_cast<std::int64_t>(m);
  for (std::int64_t j = 0; j < mi; ++j) {
    const std::int64_t k = j - half;  // frequency index, increasing from −m/2
    freqs[j] = static_cast<double>(k) / static_cast<double>(pad);
    mag[j] = std::abs(X[static_cast<std::size_t>((k + mi) % mi)]);
  }
}

void dtft(const double* x, std::size_t N, const double* f, std::size_t F, cplx* out) {
  dtft_impl(x, N, f, F, out);
}

void dtft(const cplx* x, std::size_t N, const double* f, std::size_t F, cplx* out) {
  dtft_impl(x, N, f, F, out);
}

void dtft_with_derivative(const double* x, std::size_t N, double f, cplx& X, cplx& dX) {
  check_dtft_length(N);
  std::vector<cplx> zr, zb;
  X = dtft_one(x, N, f, zr, zb, &dX);
}

// -------------------------------------------------------------------------------------------------
// SSM closed forms
// -------------------------------------------------------------------------------------------------

cplx expm1c(cplx z) {
  const double x = z.real(), y = z.imag();
  const double s = std::sin(0.5 * y);
  // e^x cos y − 1 = expm1(x) cos y − 2 sin²(y/2): no cancellation for small |z|.
  return {std::expm1(x) * std::cos(y) - 2.0 * s * s, std::exp(x) * std::sin(y)};
}

void ssm_impulse(double alpha, double omega, std::size_t N, cplx* out,
                 const std::atomic<bool>* cancel) {
  for (std::size_t n = 0; n < N; ++n) {
    if ((n & 0xFFFF) == 0 && cancel != nullptr && cancel->load(std::memory_order_relaxed))
      throw mc::Cancelled();
    const double nd = static_cast<double>(n);
    const double ph = mul_mod_2pi(omega, nd);
    out[n] = std::exp(-alpha * nd) * cplx(std::cos(ph), std::sin(ph));
  }
}

cplx ssm_spectrum(double alpha, double omega, std::size_t N, double f) {
  const double Nd = static_cast<double>(N);
  // θ = ω − 2πf/N in [−π, π]; fmod is exact, so reducing f mod N before dividing keeps the phase
  // error at an ulp of a cycle.
  const double theta = sub_2pi_times(omega, std::fmod(f, Nd) / Nd);
  const cplx z(-alpha, theta);  // log(a e^{−iΩ})
  if (std::abs(z) * Nd < 1e-5) {
    // Near the peak: Σ_n e^{nz} = N + z N(N−1)/2 + z² N(N−1)(2N−1)/12 + O(N⁴z³) (relative error
    // < 1e-16 here; avoids 0/0 and the lost digits of subnormal phases).
    return Nd + z * (Nd * (Nd - 1) / 2) + z * z * (Nd * (Nd - 1) * (2 * Nd - 1) / 12);
  }
  // The numerator's phase Φ ≡ Nθ ≡ Nω − 2πf (mod 2π). Within a fraction of a bin of the peak it
  // is taken as Nθ, so that numerator and denominator describe one and the same θ (both are
  // small there and independent roundings would not cancel in the ratio); elsewhere from the
  // exact product Nω, which does not multiply θ's rounding by N.
  const double phi =
      Nd * std::abs(theta) < 1.0
          ? Nd * theta
          : std::remainder(mul_mod_2pi(Nd, omega) - two_pi * (f - std::nearbyint(f)) -
                               two_pi_lo * (f - std::nearbyint(f)),
                           two_pi);
  const cplx den = -expm1c(z);                       // 1 − a e^{−iΩ}
  const cplx num = -expm1c(cplx(-alpha * Nd, phi));  // 1 − (a e^{−iΩ})^N
  return num / den;
}

double ssm_envelope(double alpha, double omega, std::size_t N, double f) {
  const double Nd = static_cast<double>(N);
  const double theta = std::remainder(omega - two_pi * (std::fmod(f, Nd) / Nd), two_pi);
  return 1.0 / std::abs(expm1c(cplx(-alpha, theta)));
}

cplx continuous_spectrum(double alpha, double omega, double T, double f) {
  const double dw = omega - two_pi * f / T;  // ω − Ω
  const cplx z(-alpha, dw);
  if (std::abs(z) * T < 1e-5) {
    // ∫_0^T e^{zt} dt = T (1 + zT/2 + (zT)²/6 + O((zT)³)): no 0/0 at the peak.
    const cplx zT = z * T;
    return T * (1.0 + zT / 2.0 + zT * zT / 6.0);
  }
  // The same (ω − Ω) in numerator and denominator (see ssm_spectrum).
  return -expm1c(cplx(-alpha * T, std::remainder(dw * T, two_pi))) / (-z);
}

void zoh(double alpha, double omega, double dt, cplx B, cplx& Abar, cplx& Bbar) {
  const cplx z = dt * cplx(-alpha, omega);
  const double ph = std::remainder(z.imag(), two_pi);
  Abar = std::exp(z.real()) * cplx(std::cos(ph), std::sin(ph));
  const cplx phi1 = z == cplx(0.0) ? cplx(1.0) : expm1c(z) / z;
  Bbar = dt * phi1 * B;
}

void ssm_kernel(const double* alpha, const double* omega, const cplx* B, const cplx* C,
                std::size_t modes, double dt, std::size_t L, cplx* out,
                const std::atomic<bool>* cancel) {
  const auto check = [cancel] {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
  };
  for (std::size_t l = 0; l < L; l += 0x10000) {  // zeroed in pieces between checks of the flag
    check();
    std::fill(out + l, out + std::min(L, l + 0x10000), cplx(0.0));
  }
  std::vector<cplx> powers(L);
  for (std::size_t n = 0; n < modes; ++n) {
    check();
    cplx Abar, Bbar;
    zoh(alpha[n], omega[n], dt, B[n], Abar, Bbar);
    // Ā^ℓ = e^{ℓΔA} with the phase ℓ·(Δω) reduced exactly (not by repeated multiplication),
    // the same Δω as in Ā (dt·ω rounded once, as zoh does).
    ssm_impulse(dt * alpha[n], std::remainder(dt * omega[n], two_pi), L, powers.data(), cancel);
    const cplx cb = C[n] * Bbar;
    for (std::size_t l = 0; l < L; ++l) {
      if ((l & 0xFFFF) == 0xFFFF) check();
      out[l] += cb * powers[l];
    }
  }
}

// -------------------------------------------------------------------------------------------------
// Figures of merit
// -------------------------------------------------------------------------------------------------

namespace {

/// Root of g on [a, b] (g(a), g(b) of opposite signs or zero) by TOMS 748 to full precision.
template <class G>
double toms748_root(G g, double a, double b, double ga, double gb) {
  if (ga == 0) return a;
  if (gb == 0) return b;
  // The grid (FFT) and the exact DTFT can disagree in the last bits when a root sits on a grid
  // point (e.g. Hann's half amplitude at exactly 1 bin): the root is then that point.
  if ((ga > 0) == (gb > 0)) return std::abs(ga) <= std::abs(gb) ? a : b;
  boost::uintmax_t iters = 100;
  const auto r = boost::math::tools::toms748_solve(
      g, a, b, ga, gb, boost::math::tools::eps_tolerance<double>(50), iters);
  return 0.5 * (r.first + r.second);
}

struct Dtft {
  const double* w;
  std::size_t N;
  mutable std::vector<cplx> zr, zb;
  /// Checked at every evaluation (each is O(N)): throws mc::Cancelled when set. May be null.
  const std::atomic<bool>* cancel = nullptr;
  void check() const {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
  }
  double mag(double f) const {
    check();
    return std::abs(dtft_one(w, N, f, zr, zb, nullptr));
  }
  /// ½ d|W|²/df = Re(conj W · W′).
  double slope(double f) const {
    check();
    cplx dX;
    const cplx X = dtft_one(w, N, f, zr, zb, &dX);
    return (std::conj(X) * dX).real();
  }
};

/// Refines an extremum of |W| bracketed by [a, b] (a < b): the root of d|W|²/df when its sign
/// changes as expected (rising then falling for a maximum), otherwise Brent on |W|.
double refine_extremum(const Dtft& W, double a, double b, bool maximum) {
  const double ga = W.slope(a), gb = W.slope(b);
  const bool bracketed = maximum ? (ga >= 0 && gb <= 0) : (ga <= 0 && gb >= 0);
  if (bracketed) return toms748_root([&](double f) { return W.slope(f); }, a, b, ga, gb);
  const double sign = maximum ? -1.0 : 1.0;
  const auto r =
      boost::math::tools::brent_find_minima([&](double f) { return sign * W.mag(f); }, a, b, 40);
  return r.first;
}

void poll(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// Least-squares fit y ≈ c0 + c1 log2 s + c2 s², s = sin(πf/N): returns c1 (dB per octave of s).
/// The s² column absorbs the leading effect of the DTFT's periodicity (the envelope of a
/// discrete window is a function of sin(πf/N), not of f, and differs from a pure power of it at
/// order s²), so c1 is the power law of the continuous window.
double fit_slope_per_octave(const std::vector<double>& f, const std::vector<double>& y, double Nd) {
  // Centred columns (the intercept drops out): a 2×2 system, well conditioned.
  const std::size_t n = f.size();
  std::vector<double> u(n), v(n);
  double mu = 0, mv = 0, my = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = std::sin(pi * f[i] / Nd);
    u[i] = std::log2(s);
    v[i] = s * s;
    mu += u[i];
    mv += v[i];
    my += y[i];
  }
  const double nd = static_cast<double>(n);
  mu /= nd;
  mv /= nd;
  my /= nd;
  double suu = 0, suv = 0, svv = 0, suy = 0, svy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double du = u[i] - mu, dv = v[i] - mv, dy = y[i] - my;
    suu += du * du;
    suv += du * dv;
    svv += dv * dv;
    suy += du * dy;
    svy += dv * dy;
  }
  const double det = suu * svv - suv * suv;
  if (!(det > 0)) return FiguresOfMerit::nan;
  return (suy * svv - svy * suv) / det;
}

// ---- Asymptotic fall-off from the smoothness of the window (sample-based)

/// One side of a (possible) singularity: least-squares polynomials of degrees kSmoothDegree and
/// kSmoothDegree − 1 in u = (n − c)/M through the samples (n, y), whose difference estimates the
/// error of the fit.
struct SideFit {
  std::vector<double> hi, lo;
};

std::vector<double> poly_lsq(const std::vector<double>& n, const std::vector<double>& y, double c,
                             double M, int degree) {
  const auto rows = static_cast<Eigen::Index>(n.size());
  Eigen::MatrixXd V(rows, degree + 1);
  Eigen::VectorXd b(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double u = (n[static_cast<std::size_t>(i)] - c) / M;
    double p = 1;
    for (int j = 0; j <= degree; ++j, p *= u) V(i, j) = p;
    b(i) = y[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd x = V.colPivHouseholderQr().solve(b);
  return std::vector<double>(x.data(), x.data() + x.size());
}

/// The fits of degree `degree` and `degree` − 1 (kSmoothDegree unless the piece is shorter).
SideFit side_fit(const std::vector<double>& v, std::size_t first, std::size_t count, double c,
                 double M, int degree = merit::kSmoothDegree) {
  std::vector<double> n(count), y(count);
  for (std::size_t i = 0; i < count; ++i) {
    n[i] = static_cast<double>(first + i);
    y[i] = v[first + i];
  }
  return {poly_lsq(n, y, c, M, degree), poly_lsq(n, y, c, M, degree - 1)};
}

/// Taylor coefficients at u = s of the polynomial Σ b_i uⁱ (coefficient j: Σ_i C(i, j) b_i
/// s^{i−j}).
std::vector<double> taylor_at(const std::vector<double>& b, double s) {
  std::vector<double> a(b);
  const std::size_t D = b.size();
  // Repeated synthetic division by (u − s): the j-th remainder is the j-th Taylor coefficient.
  for (std::size_t j = 0; j < D; ++j) {
    for (std::size_t i = D - 1; i > j; --i) a[i - 1] += s * a[i];
  }
  return a;
}

/// The number of leading Taylor coefficients (orders 0, 1, …) in which the two sides agree, within
/// their fit errors and `zero_tol`, at some point u ∈ [s_lo, s_hi]: the order of the first
/// derivative that jumps there. The points: 401 on a grid, and the one nearest the grid's best
/// where the values meet (the minimum of |d₀| by Brent, and the roots of the d_m that change sign
/// around it): a join of order ≥ 2 touches (d₀ has a double root there), and d₀ grows as the
/// square of the distance from it, so a grid alone misses the contact (Tukey's joins read as
/// jumps). A null side is the zero function
/// (outside the window). `where`, if given, receives the point where |d₀| is least (the values
/// meet).
int contact_order(const SideFit* left, const SideFit* right, double s_lo, double s_hi,
                  const std::vector<double>& zero_tol, double* where = nullptr) {
  constexpr int points = 401;
  const int P = merit::kMaxSmoothnessOrder;
  // The differences d (left − right) of the Taylor coefficients at s, and their fit errors e.
  auto diff = [&](double s, std::vector<double>& d, std::vector<double>& e) {
    d.assign(static_cast<std::size_t>(P + 1), 0.0);
    e.assign(d.size(), 0.0);
    for (const SideFit* side : {left, right}) {
      if (side == nullptr) continue;
      const double sign = side == left ? 1.0 : -1.0;
      // A side fitted with fewer degrees than the orders compared (a short piece) has zeros there.
      const std::vector<double> a = taylor_at(side->hi, s), b = taylor_at(side->lo, s);
      for (std::size_t j = 0; j < d.size(); ++j) {
        const double aj = j < a.size() ? a[j] : 0.0;
        d[j] += sign * aj;
        e[j] += std::abs(aj - (j < b.size() ? b[j] : 0.0));
      }
    }
  };
  auto order_at = [&](double s) {
    std::vector<double> d, e;
    diff(s, d, e);
    int j = 0;
    while (j <= P && std::abs(d[static_cast<std::size_t>(j)]) <=
                         4 * e[static_cast<std::size_t>(j)] + zero_tol[static_cast<std::size_t>(j)])
      ++j;
    return j;
  };
  auto d0 = [&](double s) {
    std::vector<double> d, e;
    diff(s, d, e);
    return std::abs(d[0]);
  };
  int best = 0;
  const int n = s_hi > s_lo ? points : 1;  // s_lo == s_hi: one point
  const double step = n > 1 ? (s_hi - s_lo) / (n - 1) : 0.0;
  double s_min = s_lo, d_min = d0(s_lo);
  for (int k = 0; k < n; ++k) {
    const double s = s_lo + step * k;
    best = std::max(best, order_at(s));
    const double v = d0(s);
    if (v < d_min) {
      d_min = v;
      s_min = s;
    }
  }
  if (step > 0) {
    const double a = std::max(s_lo, s_min - step), b = std::min(s_hi, s_min + step);
    const auto r = boost::math::tools::brent_find_minima(d0, a, b, 50);
    best = std::max(best, order_at(r.first));
    s_min = r.first;
    // A minimum of |d₀| is located to √ε only; at a contact of order m + 1 the coefficient d_m
    // changes sign, and its root is located to ε.
    std::vector<double> da, db, e;
    diff(a, da, e);
    diff(b, db, e);
    for (std::size_t m = 0; m < da.size(); ++m) {
      if (!(da[m] * db[m] < 0)) continue;
      auto dm = [&](double s) {
        std::vector<double> d, ee;
        diff(s, d, ee);
        return d[m];
      };
      best = std::max(best, order_at(toms748_root(dm, a, b, da[m], db[m])));
    }
  }
  if (where != nullptr) *where = s_min;
  return best;
}

/// Coefficients (u = n/M) too small to be seen: their term j!|e_j| M^{−j}/ω^{j+1} in |W| at
/// f = N/32 (ω = 2π/32) is below 1e-12 |W(0)| (−240 dB), or below the rounding of the fit.
std::vector<double> invisible(double W0, double M) {
  const double omega = two_pi / 32.0;
  std::vector<double> t(static_cast<std::size_t>(merit::kMaxSmoothnessOrder + 1));
  double fact = 1;  // j!
  for (std::size_t j = 0; j < t.size(); ++j) {
    if (j > 0) fact *= static_cast<double>(j);
    t[j] = 1e-12 * W0 * omega * std::pow(omega, static_cast<double>(j)) *
               std::pow(M, static_cast<double>(j)) / fact +
           1e-13 * std::ldexp(1.0, 2 * static_cast<int>(j));
  }
  return t;
}

/// Whether the end fit reads the end as vanishing at u = s (contact order ≥ 1) only within its
/// error: the end sample v[0] is visible (above zero_tol[0]: a jump of that size lies above the
/// rounding floor in |W|), and so is the fit's value at s, which passed the zero test (4 times its
/// error) only through the fit's error. Such an end is a jump the samples cannot resolve: the
/// polynomial cannot follow the end's curve closely enough to tell a jump of that size from none
/// (Kaiser β = 20 at N = 128: the end value 2.3e-8 max|w| lies within the error of a polynomial
/// through an end that rises 7.6-fold over the first sample), so its order lies between 0 and the
/// one read. Only the jump is judged so: it is the one coefficient the samples show directly (the
/// end sample), while a higher coefficient above zero_tol but within its error is the fit's noise
/// (Hann at N = 64: its end sample is 0, and its slope there is read to 1e-10).
bool jump_hidden(const std::vector<double>& v, const SideFit& side, double s,
                 const std::vector<double>& zero_tol) {
  return std::abs(v[0]) > zero_tol[0] && std::abs(taylor_at(side.hi, s)[0]) > zero_tol[0];
}

/// Whether the end sample v[0] lies off the smooth curve through v[1..M+1] by more than 30 times
/// the fit's error plus 1e-12 W0, and by ten times more than v[1] lies off the curve through
/// v[2..M+2] (an impulse δ adds a flat |δ| to |W|: below 1e-12 |W(0)|, −240 dB, the rounding floor
/// of the far band in fitted_band, it cannot be seen; a floor of 1e-10 |W(0)|, −200 dB, missed
/// the end impulses of Dolph–Chebyshev at 200 dB, 1e-10 |W(0)| by construction, whose plateau is
/// the whole far spectrum: at N = 2048 the fall-off read −2.93 where it is 0), as the
/// end impulses of Dolph–Chebyshev windows do: such samples are not those of a piecewise smooth
/// function, and their fall-off is not given by a derivative jump. A fixed floor (1e-6 max|w|)
/// missed the impulses of high attenuations at small N (140 dB at N = 128: 7e-7 max|w|, yet its
/// −140 dB plateau is the whole far spectrum).
///
/// Returns 1 for an impulse, 0 for none, and 2 for an end sample that is off the curve by more than
/// 4 times the fit's error (the house test of a nonzero coefficient) plus 1e-12 W0 but not by 30
/// times, and ten times more than v[1]: an impulse, or the fit's extrapolation missing a steep end
/// by more than its error estimate says — the samples cannot tell (Dolph–Chebyshev at 200 dB and
/// N = 512: off by 6.7 times the error, v[1] on its curve 3000 times better; read as a jump,
/// −6.02, where its end impulses make the far spectrum a plateau, 0).
int end_is_impulse(const std::vector<double>& v, std::size_t M, double W0) {
  const SideFit f = side_fit(v, 1, M + 1, 0.0, static_cast<double>(M));
  const double err = std::abs(f.hi[0] - f.lo[0]);
  const double off = std::abs(f.hi[0] - v[0]);
  if (!(off > 4.0 * err + 1e-12 * W0)) return 0;
  // An impulse is the end sample's alone: v[1] lies on the curve through v[2..M+2] ten times
  // better. Otherwise the fit's extrapolation misses by that much anyway (a steep or high-order
  // end, beyond what its error estimate says), or the samples ripple next to the end
  // (Barcilon–Temes): no impulse either way.
  const SideFit g = side_fit(v, 2, M + 1, 1.0, static_cast<double>(M));
  if (!(off > 10.0 * std::abs(g.hi[0] - v[1]))) return 0;
  // An end sample from 0 up to short of the curve (Kaiser–Bessel-derived β = 12 at N = 72: 2.024e-3
  // where the curve through the later samples reaches 2.037e-3 at the end; cos^¼, whose end sample
  // is 0) bends toward zero as a steep end does (a square root narrower than a sample, a power
  // below 1), which the polynomial misses alike: no sure impulse. The end impulses of
  // Dolph–Chebyshev windows stand above the curve.
  if (v[0] * f.hi[0] >= 0 && std::abs(v[0]) < std::abs(f.hi[0])) return 2;
  return off > 30.0 * err + 1e-12 * W0 ? 1 : 2;
}

/// Whether the end of v (samples 0…M, max|v| = 1) behaves like a square root: w ~ c (n − n₀)^½,
/// which has no Taylor expansion at n₀, so the polynomial end fit reads an integer order that is
/// not there (the sidelobes fall off at −6.02·1.5 ≈ −9 dB/octave: Kaiser–Bessel-derived, whose
/// square is a cumulative sum, and cos^½). Two models, compared by their rms misfit in w over
/// those samples (the second has one coefficient fewer):
/// - Taylor: w is a polynomial of degree kSmoothDegree in u = n/M (the end fit of
///   smoothness_order);
/// - square root: w² = (u − s)·P(u), P of degree kSmoothDegree − 1 with P(s) > 0, i.e. w² vanishes
///   simply at the end point s ∈ {0, −½/M, −1/M} (the points smoothness_order tries), and
///   w = sign(w)·√max(0, (u − s) P(u)).
/// The end is a square root when the second misfit is at least kSquareRootFitGain times smaller
/// than the first, the first is above 1e-12 (−240 dB of max|w|: below it both are rounding), and
/// P(s) exceeds 4 times its change from P of one degree less (the house test of a nonzero
/// coefficient). A Taylor end fits its own model at least as well: if w is smooth with w(s) ≠ 0 no
/// w² vanishes at s, and if w ~ (u − s)^k, w² ~ (u − s)^(2k) has P(s) = 0 for k ≥ 1. Over the
/// 1502 cases of tests/test_spectra_falloff.py (both ends, N ≥ 64), the gain is at most 1.2 for
/// every other window whose Taylor misfit is above 1e-12 (Barcilon–Temes, whose ripples neither
/// model follows; Dolph–Chebyshev and Tukey α = 0.1 at N = 128 are below 0.8) and at least 1.2e3
/// for the square-root ends it recognises. Kaiser–Bessel-derived β = 8 at N ≤ 64 is not
/// recognised (gain 0.22 at N = 64, 0.008 at N = 56): its square-root region, where the Kaiser
/// kernel's small end value dominates its cumulative sum, is under a sample wide, so its samples
/// look like a Taylor end with a jump (0.013 max|w|). No test on the samples can recognise such an
/// end, since no sample lies in its square-root region; end_is_ambiguous says when the samples of
/// an end read as a jump are also those of one, and the fall-off is then not measurable.
bool end_is_square_root(const std::vector<double>& v, std::size_t M) {
  constexpr int D = merit::kSmoothDegree;
  constexpr double kSquareRootFitGain = 100.0;
  const auto rows = static_cast<Eigen::Index>(M + 1);
  const double Md = static_cast<double>(M);
  Eigen::VectorXd y(rows), y2(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    y(i) = v[static_cast<std::size_t>(i)];
    y2(i) = y(i) * y(i);
  }
  auto rms = [&](const Eigen::VectorXd& fit) {  // a plain loop: GCC 12 flags Eigen's packet
    double ss = 0;                              // reduction here as maybe-uninitialized
    for (Eigen::Index i = 0; i < rows; ++i) ss += (fit(i) - y(i)) * (fit(i) - y(i));
    return std::sqrt(ss / static_cast<double>(rows));
  };
  std::vector<double> n(M + 1), yv(y.data(), y.data() + rows);
  for (std::size_t i = 0; i <= M; ++i) n[i] = static_cast<double>(i);
  const std::vector<double> taylor = poly_lsq(n, yv, 0.0, Md, D);
  Eigen::VectorXd fit_t(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const double u = static_cast<double>(i) / Md;
    double f = 0;
    for (int j = D; j >= 0; --j) f = f * u + taylor[static_cast<std::size_t>(j)];
    fit_t(i) = f;
  }
  const double misfit_taylor = rms(fit_t);
  if (!(misfit_taylor > 1e-12)) return false;
  for (const double s : {0.0, -0.5 / Md, -1.0 / Md}) {
    // P of degree d: coefficients of (u − s)·uʲ, j = 0…d; P(s) = Σ c_j sʲ.
    // The fitted w² and P(s).
    auto fit_p = [&](int d) {
      Eigen::MatrixXd V(rows, d + 1);
      for (Eigen::Index i = 0; i < rows; ++i) {
        const double u = static_cast<double>(i) / Md;
        double p = u - s;
        for (int j = 0; j <= d; ++j, p *= u) V(i, j) = p;
      }
      const Eigen::VectorXd c = V.colPivHouseholderQr().solve(y2);
      double at_s = 0;
      for (Eigen::Index j = c.size() - 1; j >= 0; --j) at_s = at_s * s + c(j);
      return std::pair<Eigen::VectorXd, double>(V * c, at_s);
    };
    const auto [sq_hi, p_hi] = fit_p(D - 1);
    const double p_lo = fit_p(D - 2).second;
    if (!(p_hi > 4.0 * std::abs(p_hi - p_lo))) continue;
    Eigen::VectorXd fit_s(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      fit_s(i) = std::copysign(std::sqrt(std::max(0.0, sq_hi(i))), y(i));
    }
    if (kSquareRootFitGain * rms(fit_s) <= misfit_taylor) return true;
  }
  return false;
}

/// Whether an end that the polynomial fit reads as a jump (order 0: w[0] ≠ 0, above rounding) and
/// that end_is_square_root does not recognise is also, by its samples, a square-root end narrower
/// than a sample: w[0]·w[1] > 0, w[1]² ≥ 2 w[0]² (the chord of w² through the first two samples
/// vanishes within one sample beyond the end, at −w[0]²/(w[1]² − w[0]²) ≥ −1 samples), and
/// w[2]² − w[1]² ≥ w[1]² − w[0]² (w² rises at least as steeply over the next sample).
///
/// Why that is the ambiguity. A square-root end is w² = (u − s)·P(u) with P(s) > 0, vanishing
/// simply at an end point s the window can have: half a sample or a whole sample beyond the end
/// sample (at the end sample itself w[0] would be 0; see smoothness). Its square-root region, where
/// (u − s)·P(s) dominates w², is narrower than a sample when P grows within the first sample (the
/// Kaiser–Bessel-derived window: w² is the cumulative sum of a Kaiser kernel whose small end value
/// is overtaken by its rise): w² then rises along the line through (s, 0) and (0, w[0]²) up to the
/// end sample, and ever more steeply beyond it. Such an end passes through w[0], w[1], w[2] exactly
/// when w[1]² − w[0]² ≥ w[0]²/|s| and the next step of w² is no smaller: for s = −1 the
/// inequalities above (s = −½ asks for w[1]² ≥ 3 w[0]²). No sample lies in its square-root region,
/// so no test on the samples (end_is_square_root asks w² to stay a simple zero over the whole end
/// fit) can tell it from a Taylor end with a small jump J, w = J + a n + b n² + …, whose samples
/// satisfy the same inequalities whenever J is small against the first step (J ≤ (1 + √2) a for a
/// straight end) and w² is convex there. The two fall off at −6.02 and −9.03 dB/octave, so an end
/// in this class leaves the fall-off not measurable at this N unless something else falls off as
/// slowly (smoothness: Smoothness::ambiguous_end). Ends outside it are no square root of this kind:
/// a jump large against the first step (the rectangle: w² flat; Kaiser β = 6 at N = 128) rises too
/// slowly, samples that ripple next to the end (Barcilon–Temes: w[2] < w[1]) follow neither model,
/// and an end sample of 0 or one that the polynomial fit reads as a zero (Hann; the sine window
/// sampled at half-integers, whose samples meet the inequalities) is a Taylor end that vanishes.
/// The class shrinks as N grows (the first step of a smooth end falls as 1/N, as 1/N² where the
/// end's slope is 0, while its jump stays): of the 1502 cases of tests/test_spectra_falloff.py it
/// holds 32, all at N ≤ 128: Kaiser–Bessel-derived β = 8 at N = 56 and 64 (at N = 64, w[0] = 0.013
/// max|w|, w[1] = 0.029: the chord vanishes 0.24 samples beyond the end; the family's end lies half
/// a sample beyond it), and windows whose small end value grows by √2 or more in the first sample
/// (Kaiser β = 6, 9, 14; Gaussian α = 3.5, 5; 4-term Blackman–Harris; Nuttall; flat top; DPSS
/// NW = 2.5, 4). Smaller end values stay in it up to larger N: Kaiser β = 10 at N = 256, β = 20 at
/// N = 1024 (where a far band over at least 32 points per half decides: −6.02), and
/// Kaiser–Bessel-derived β = 14 at N = 256 and 512, whose square root the polynomial fit reads as a
/// jump (−6.02, where the family at N = 65536 falls off at −8.8).
bool end_is_ambiguous(const std::vector<double>& v) {
  const double a = v[0] * v[0], b = v[1] * v[1], c = v[2] * v[2];
  return v[0] * v[1] > 0 && b - a >= a && c - b >= b - a;
}

/// The exponent a of an end of v (samples 0…M, max|v| = 1) whose samples are those of a
/// non-integer power, w = (u − s)^a·exp(Q(u)), u = n/M, at an end point s ∈ {0, −½/M, −1/M} (s = 0
/// only where the end sample is 0 to rounding, 1e-14); −1 when there is none. A power with a
/// non-integer exponent has no Taylor expansion at s, so the polynomial end fit of smoothness
/// reads an integer order that is not there (cos^1.5 at N = 256 read 2, −18.06, where |x|^1.5
/// falls off as f^−2.5, −15.05 dB/octave), and the far band cannot yet tell the two apart. The
/// model is linear in log w: log w = c + a log(u − s) + Σ_{j=1..d} b_j u^j, fitted by least
/// squares for d = 3 and d = 2 (the difference of the two a's is the fit's error); the end is a
/// power when that error is below 0.01 and the rms misfit of the d = 3 fit in log w below 1e-4.
/// The caller takes a within 0.05 of an integer m as a Taylor end of order m (which the polynomial
/// fit may read lower: cos^1.952 at N = 223, DFT-even, read a kink, −12.04, where the far
/// spectrum falls off at −17.8), and a further from every integer as a power end. Every sample of
/// the end must be positive. Over the 2822 cases of
/// tests/test_spectra_falloff.py (N ≥ 64), the power ends it finds (cos^a with a half-integer;
/// Kaiser–Bessel-derived, whose square-root end the square-root test takes first) fit with a rms
/// misfit of at most 1.4e-5 and an error of at most 2.5e-3, and every other end whose fitted a is
/// that far from an integer misfits by 2.6e-3 or more (Kaiser β = 12 at N = 64).
double end_power_exponent(const std::vector<double>& v, std::size_t M) {
  const double Md = static_cast<double>(M);
  for (const double s : {0.0, -0.5 / Md, -1.0 / Md}) {
    const std::size_t first = s == 0.0 ? 1 : 0;
    if (s == 0.0 && !(std::abs(v[0]) <= 1e-14)) continue;
    bool positive = true;
    for (std::size_t i = first; i <= M; ++i) positive = positive && v[i] > 0;
    if (!positive) return -1.0;
    const auto rows = static_cast<Eigen::Index>(M + 1 - first);
    Eigen::VectorXd y(rows);
    for (Eigen::Index i = 0; i < rows; ++i) y(i) = std::log(v[first + static_cast<std::size_t>(i)]);
    double rms = 0;
    auto fit = [&](int d) {  // a, and the rms misfit in `rms`
      Eigen::MatrixXd V(rows, d + 2);
      for (Eigen::Index i = 0; i < rows; ++i) {
        const double u = static_cast<double>(first + static_cast<std::size_t>(i)) / Md;
        V(i, 0) = 1.0;
        V(i, 1) = std::log(u - s);
        double p = u;
        for (int j = 1; j <= d; ++j, p *= u) V(i, j + 1) = p;
      }
      const Eigen::VectorXd c = V.colPivHouseholderQr().solve(y);
      const Eigen::VectorXd f = V * c;
      double ss = 0;
      for (Eigen::Index i = 0; i < rows; ++i) ss += (f(i) - y(i)) * (f(i) - y(i));
      rms = std::sqrt(ss / static_cast<double>(rows));
      return c(1);
    };
    const double a_lo = fit(2);
    const double a_hi = fit(3);
    if (std::abs(a_hi - a_lo) <= 0.01 && rms <= 1e-4) {
      return a_hi;
    }
  }
  return -1.0;
}

/// Interior positions i where |Δ⁴v[i]| (stencil i…i+4) is a local maximum above 10 times its median
/// over [lo, hi) and above rounding: up to 8 candidates for a derivative jump, largest first.
std::vector<std::size_t> jump_candidates(const std::vector<double>& v, std::size_t lo,
                                         std::size_t hi) {
  std::vector<double> d(hi - lo);
  for (std::size_t i = lo; i < hi; ++i) {
    d[i - lo] = std::abs(v[i + 4] - 4 * v[i + 3] + 6 * v[i + 2] - 4 * v[i + 1] + v[i]);
  }
  std::vector<double> sorted(d);
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(d.size() / 2),
                   sorted.end());
  const double median = sorted[d.size() / 2];
  std::vector<std::size_t> c;
  for (std::size_t i = 1; i + 1 < d.size(); ++i) {
    if (d[i] >= d[i - 1] && d[i] >= d[i + 1] && d[i] > 10 * median && d[i] > 1e-14) {
      c.push_back(i);
    }
  }
  std::sort(c.begin(), c.end(), [&](std::size_t a, std::size_t b) { return d[a] > d[b]; });
  if (c.size() > 8) c.resize(8);
  for (std::size_t& i : c) i += lo;
  return c;
}

}  // namespace

namespace merit {

WindowSums window_sums(const double* w, std::size_t N) {
  if (N < 1) throw std::invalid_argument("w must not be empty");
  WindowSums s;
  for (std::size_t n = 0; n < N; ++n) {
    if (!std::isfinite(w[n])) throw std::invalid_argument("w must be finite");
    s.sum += w[n];
    s.sum_abs += std::abs(w[n]);
    s.sum_sq += w[n] * w[n];
    s.max_abs = std::max(s.max_abs, std::abs(w[n]));
  }
  if (!(std::abs(s.sum) > 1e-13 * s.sum_abs) || s.sum_abs == 0) {
    throw std::invalid_argument(
        "w must have a nonzero sum (the figures of merit are relative to the main lobe at f = 0), "
        "got sum(w) = " +
        std::to_string(s.sum));
  }
  return s;
}

double overlap_correlation(const double* w, std::size_t N, std::size_t shift, double sum_sq) {
  if (shift >= N) return 0.0;
  double s = 0;
  for (std::size_t n = 0; n + shift < N; ++n) s += w[n] * w[n + shift];
  return s / sum_sq;
}

GainFigures gain_figures(const double* w, std::size_t N, const WindowSums& s) {
  const double Nd = static_cast<double>(N);
  const double W0 = std::abs(s.sum);
  GainFigures g;
  g.coherent_gain = W0 / (Nd * s.max_abs);
  g.enbw_bins = Nd * s.sum_sq / (s.sum * s.sum);
  std::vector<cplx> zr, zb;
  g.scalloping_loss_db = -db(std::abs(dtft_one(w, N, 0.5, zr, zb, nullptr)) / W0);
  g.worst_case_processing_loss_db = g.scalloping_loss_db + 10.0 * std::log10(g.enbw_bins);
  g.overlap_correlation_50 =
      overlap_correlation(w, N, static_cast<std::size_t>(std::llround(0.5 * Nd)), s.sum_sq);
  g.overlap_correlation_75 =
      overlap_correlation(w, N, static_cast<std::size_t>(std::llround(0.25 * Nd)), s.sum_sq);
  return g;
}

SpectrumGrid spectrum_grid(const double* w, std::size_t N, std::size_t pad,
                           const std::atomic<bool>* cancel) {
  if (pad < 1) throw std::invalid_argument("pad must be >= 1, got " + std::to_string(pad));
  SpectrumGrid G;
  G.pad = pad;
  G.nyquist = 0.5 * static_cast<double>(N);
  const std::size_t M = N * pad;
  const std::size_t K = M / 2 + 1;
  std::vector<cplx> X(K), Y(K);
  poll(cancel);
  fft_r2c(w, N, M, X.data());
  poll(cancel);
  G.mag.resize(K);
  for (std::size_t k = 0; k < K; ++k) G.mag[k] = std::abs(X[k]);
  for (std::size_t n = 0; n < N; ++n) G.W0 += w[n];
  G.W0 = std::abs(G.W0);  // |W(0)| = |Σw| summed directly, not read off the FFT
  const double W0 = G.W0;
  // A flat-top window's passband ripples around |W(0)| (scipy's flattop: +0.0023 dB at 0.27
  // bins), so |W| may exceed |W(0)| by up to kPassbandRippleDb; sidelobes may not (checked once
  // the first minimum is known, in figures_of_merit).
  const double max_rise = std::pow(10.0, kPassbandRippleDb / 20.0);
  for (std::size_t k = 1; k < K; ++k) {
    if (G.mag[k] > W0 * max_rise) {
      throw std::invalid_argument("w must be a lowpass window: |W(f)| must peak at f = 0, but |W(" +
                                  std::to_string(G.freq(k)) + " bins)| > |W(0)| by more than " +
                                  std::to_string(kPassbandRippleDb) + " dB");
    }
  }
  // d|W|²/df on the grid from a second FFT: W′ = (−2πi/N)·FFT(n·w), so Re(conj W · W′) =
  // (2π/N) Im(conj X · Y). Its sign changes bracket every extremum that does not share a grid cell
  // with another one: more robust than comparing magnitudes (shallow dips, plateaus).
  std::vector<double> nw(N);
  for (std::size_t n = 0; n < N; ++n) nw[n] = static_cast<double>(n) * w[n];
  fft_r2c(nw.data(), N, M, Y.data());
  poll(cancel);
  G.slope.resize(K);
  for (std::size_t j = 0; j < K; ++j) G.slope[j] = (std::conj(X[j]) * Y[j]).imag();
  G.slope[0] = 0;                                      // |W| is even about 0 ...
  if (G.freq(K - 1) == G.nyquist) G.slope[K - 1] = 0;  // ... and about N/2 (w real)
  return G;
}

double first_minimum_bins(const double* w, std::size_t N, const SpectrumGrid& G,
                          const std::atomic<bool>* cancel) {
  // The first sign change − → + of the slope beyond f = 0, or an earlier grid local minimum of
  // |W| (a null that falls on a grid point has a slope of rounding noise, and may share its cell
  // with a tiny lobe that no sign change reveals).
  const std::size_t K = G.mag.size();
  const auto& g = G.slope;
  const auto& mag = G.mag;
  std::size_t jslope = K;
  for (std::size_t j = 1; j + 1 < K; ++j) {
    if (g[j] < 0 && g[j + 1] >= 0) {
      jslope = j;
      break;
    }
  }
  std::size_t kmag = K;
  for (std::size_t j = 1; j + 1 < K && j < jslope + 1; ++j) {
    if (mag[j] <= mag[j - 1] && mag[j] < mag[j + 1]) {
      kmag = j;
      break;
    }
  }
  if (jslope == K && kmag == K) return G.nyquist;  // |W| never rises again: no sidelobes
  double a, b;
  if (kmag < K && (jslope == K || kmag <= jslope)) {
    a = G.freq(kmag - 1);
    b = G.freq(kmag + 1);
  } else {
    a = G.freq(jslope);
    b = G.freq(jslope + 1);
  }
  const Dtft W{w, N, {}, {}, cancel};
  double f = refine_extremum(W, a, b, false);
  double v = W.mag(f);
  for (const double e : {a, 0.5 * (a + b), b}) {  // never worse than the grid
    const double ve = W.mag(e);
    if (ve < v) {
      v = ve;
      f = e;
    }
  }
  return f;
}

double main_lobe_width_bins(const double* w, std::size_t N, const SpectrumGrid& G,
                            double level_ratio, double first_min_bins,
                            const std::atomic<bool>* cancel) {
  // Harris's "3.0-dB" and "6.0-dB" widths are the half-power and half-amplitude widths: the
  // first crossing of the main lobe on the grid, refined on the exact DTFT.
  const std::size_t K = G.mag.size();
  const double pd = static_cast<double>(G.pad);
  const std::size_t jend =
      first_min_bins < G.nyquist
          ? std::min(K - 1, static_cast<std::size_t>(std::ceil(first_min_bins * pd)))
          : K - 1;
  const double level = G.W0 * level_ratio;
  const Dtft W{w, N, {}, {}, cancel};
  for (std::size_t j = 0; j < jend; ++j) {
    if (G.mag[j] >= level && G.mag[j + 1] < level) {
      auto h = [&](double f) { return W.mag(f) - level; };
      const double a = G.freq(j), b = G.freq(j + 1);
      return 2.0 * toms748_root(h, a, b, h(a), h(b));
    }
  }
  return FiguresOfMerit::nan;
}

Sidelobe highest_sidelobe(const double* w, std::size_t N, const SpectrumGrid& G,
                          double first_min_bins, const std::atomic<bool>* cancel) {
  // The largest local maximum beyond the first minimum (slope + → −). The grid ranks the
  // candidates; those within 1 dB of the largest are refined (equiripple windows).
  struct Bracket {
    double a, b, grid;
  };
  const std::size_t K = G.mag.size();
  const auto& g = G.slope;
  const auto& mag = G.mag;
  const double fm = first_min_bins;
  std::vector<Bracket> peaks;
  if (fm < G.nyquist) {
    for (std::size_t j = 1; j + 1 < K; ++j) {
      if (G.freq(j + 1) <= fm) continue;
      // slope + → − within [f_j, f_j+1], or a grid local maximum of |W| (belt and braces)
      if (g[j] > 0 && g[j + 1] <= 0) {
        peaks.push_back({std::max(G.freq(j), fm), G.freq(j + 1), std::max(mag[j], mag[j + 1])});
      }
      if (G.freq(j) > fm && mag[j] >= mag[j - 1] && mag[j] >= mag[j + 1]) {
        peaks.push_back({std::max(G.freq(j - 1), fm), G.freq(j + 1), mag[j]});
      }
    }
    if (G.freq(K - 1) > fm && g[K - 1] >= 0 && mag[K - 1] >= mag[K - 2]) {
      peaks.push_back({std::max(G.freq(K - 2), fm), G.nyquist, mag[K - 1]});  // rising into N/2
    }
  }
  Sidelobe s;
  if (peaks.empty()) return s;
  std::sort(peaks.begin(), peaks.end(),
            [](const Bracket& x, const Bracket& y) { return x.grid > y.grid; });
  const Dtft W{w, N, {}, {}, cancel};
  const double cut = peaks[0].grid * std::pow(10.0, -1.0 / 20.0);
  double best = -1, best_f = FiguresOfMerit::nan;
  for (std::size_t i = 0; i < peaks.size() && i < 8 && peaks[i].grid >= cut; ++i) {
    const Bracket& p = peaks[i];
    double f = refine_extremum(W, p.a, p.b, true);
    double v = W.mag(f);
    for (const double e : {p.a, p.b}) {  // never worse than the grid
      const double ve = W.mag(e);
      if (ve > v) {
        v = ve;
        f = e;
      }
    }
    if (v > best) {
      best = v;
      best_f = f;
    }
  }
  s.found = true;
  // Below −240 dB the DTFT is rounding noise (its floor is ~1e-16 Σ|w|): no sidelobe to report.
  if (best > 1e-12 * G.W0) {
    s.level_db = db(best / G.W0);
    s.bins = best_f;
  }
  return s;
}

double leakage_factor(const double* w, std::size_t N, double main_lobe_bins) {
  // From the autocorrelation ρ[d] (|W|² = Σ_d ρ[d] e^{−2πifd/N}):
  // ∫_{−fm}^{fm} |W|² df = 2 fm ρ[0] + Σ_{d≥1} 2 ρ[d] N sin(2π fm d/N)/(π d); total = N ρ[0].
  const double Nd = static_cast<double>(N);
  double S2 = 0;
  for (std::size_t n = 0; n < N; ++n) S2 += w[n] * w[n];
  const std::size_t L = 2 * N;
  std::vector<cplx> in(w, w + N), F(L), rho(L);
  fft_c2c(in.data(), N, L, F.data(), -1);
  for (cplx& v : F) v = std::norm(v);
  fft_c2c(F.data(), L, L, rho.data(), +1);
  const double fm = main_lobe_bins;
  double main = 2.0 * fm * S2;
  for (std::size_t d = 1; d < N; ++d) {
    const double dd = static_cast<double>(d);
    const double rd = rho[d].real() / static_cast<double>(L);
    main += 2.0 * rd * Nd * std::sin(two_pi * fm * dd / Nd) / (pi * dd);
  }
  return std::max(0.0, 1.0 - main / (Nd * S2));
}

Smoothness smoothness(const double* w, std::size_t N, bool square_root_ends) {
  constexpr auto D = static_cast<std::size_t>(kSmoothDegree);
  Smoothness r;
  r.order = kNotMeasurable;
  if (N < kMinFalloffLength) return r;
  double wmax = 0;
  for (std::size_t n = 0; n < N; ++n) wmax = std::max(wmax, std::abs(w[n]));
  if (!(wmax > 0) || !std::isfinite(wmax)) return r;
  std::vector<double> v(w, w + N);
  double sum = 0;
  for (double& x : v) sum += (x /= wmax);
  const double W0 = std::abs(sum);
  const std::size_t M = std::min({std::max(N / 8, D + 4), std::size_t{256}, N / 4});
  // Samples of a piecewise smooth function have small fourth differences almost everywhere.
  std::vector<double> d4(N - 4);
  for (std::size_t i = 0; i + 4 < N; ++i)
    d4[i] = std::abs(v[i + 4] - 4 * v[i + 3] + 6 * v[i + 2] - 4 * v[i + 1] + v[i]);
  std::nth_element(d4.begin(), d4.begin() + static_cast<std::ptrdiff_t>(d4.size() / 2), d4.end());
  if (d4[d4.size() / 2] > 1e-2) return r;
  // Ends: the left end, and the right end read backwards unless the window is symmetric (w[n] =
  // w[N−1−n]) or DFT-even (w[n] = w[N−n]), whose right end mirrors the left one.
  bool mirror = true, dft_even = true;
  for (std::size_t n = 0; n < N; ++n) {
    mirror = mirror && std::abs(v[n] - v[N - 1 - n]) <= 1e-12;
    if (n > 0) dft_even = dft_even && std::abs(v[n] - v[N - n]) <= 1e-12;
  }
  int order = kMaxSmoothnessOrder + 1;
  int order_elsewhere = order;  // without the ambiguous ends
  bool hidden_jump = false;     // an end read as vanishing that may be an unresolved jump
  bool ambiguous = false;
  std::vector<std::vector<double>> ends{v};
  if (!mirror && !dft_even) ends.emplace_back(v.rbegin(), v.rend());
  for (const std::vector<double>& e : ends) {
    // The end fit must not reach an interior join (Tukey's taper meets its flat part at αN/2): a
    // polynomial through a kink is no Taylor expansion of the end, and its bias reads as a jump.
    // So it spans at most the samples before the first peak of |Δ⁴w| (stencil c…c+4: samples
    // 0…c are on the end's smooth piece), and only half of them where that leaves the D + 4 the
    // fit needs: the piece's own length is the scale on which it bends (Tukey's taper is half a
    // cosine period), and a polynomial of degree kSmoothDegree over all of a long piece misses the
    // end's derivatives by more than its error estimate.
    std::size_t Me = M;
    for (const std::size_t c : jump_candidates(e, 0, std::min(N - 4, M + 4))) {
      Me = std::min(Me, std::max(c / 2, std::min(c, D + 4)));
    }
    if (Me < D + 4) return r;  // a join within D + 4 samples of the end
    const int impulse = end_is_impulse(e, Me, W0);
    if (impulse == 1) {  // an impulse: the derivative of a jump (k = −1)
      r.order = -1;
      return r;
    }
    // A square-root end has no Taylor expansion: its own fit reads an order that is not there,
    // and it is left out of the order (reported in square_root_end instead).
    if (square_root_ends && end_is_square_root(e, Me)) {
      r.square_root_end = true;
      continue;
    }
    // Likewise a non-integer power end (cos^1.5): its exponent, not the order its fit reads.
    double power = -1.0;  // an exponent within 0.05 of an integer: a Taylor end, see below
    if (square_root_ends) {
      power = end_power_exponent(e, Me);
      if (power > 0 && std::abs(power - std::round(power)) > 0.05) {
        r.power_end = r.power_end < 0 ? power : std::min(r.power_end, power);
        continue;
      }
    }
    // An end sample that may be an impulse (0 dB/octave, the slowest fall-off there is) or the
    // end fit's miss at a steep end: not measurable (a square-root or power end, whose steep end
    // the fit misses alike, has been recognised above).
    if (square_root_ends && impulse == 2) r.ambiguous_impulse = true;
    const SideFit inside = side_fit(e, 0, Me + 1, 0.0, static_cast<double>(Me));
    // The window ends at its end sample, half a sample beyond it (scipy's windows sampled at
    // half-integers) or a whole sample beyond it (the right end of a DFT-even window): u = 0,
    // −½/Me or −1/Me. Not anywhere in between: the curve through the samples of a steep end (Kaiser
    // β = 14 at N = 64: 8e-6 at the end, rising 1.5 times that per sample) crosses zero within a
    // sample, and a contact there would read its jump as a kink.
    const double Md = static_cast<double>(Me);
    int end_order = 0;
    const std::vector<double> tol_e = invisible(W0, Md);
    int orders[3];
    const double ends_at[3] = {0.0, -0.5 / Md, -1.0 / Md};
    for (int i = 0; i < 3; ++i) {
      orders[i] = contact_order(nullptr, &inside, ends_at[i], ends_at[i], tol_e);
      end_order = std::max(end_order, orders[i]);
    }
    // An end read as vanishing (end_order ≥ 1) at every end point that reaches end_order only
    // through the fit's error, while its end sample is visible: possibly a jump (jump_hidden).
    bool hidden = end_order > 0;
    for (int i = 0; i < 3 && hidden; ++i) {
      if (orders[i] == end_order && !jump_hidden(e, inside, ends_at[i], tol_e)) hidden = false;
    }
    hidden_jump = hidden_jump || hidden;
    // An end whose samples are those of a power of (nearly) integer exponent m ≥ 1 vanishes to
    // order m, however much lower the polynomial fit reads it (cos^1.952: a power within 0.05 of
    // 2, whose second derivative is unbounded at the end, read as a kink, −12.04, where the
    // asymptote is −17.8; order 2 reads −18.06, within 0.3 dB/octave of it).
    if (!hidden && power > 0.5)
      end_order = std::max(end_order, static_cast<int>(std::lround(power)));
    order = std::min(order, end_order);
    // A jump that is also a square-root end narrower than a sample: −6.02 or −9.03 dB/octave.
    if (square_root_ends && end_order == 0 && end_is_ambiguous(e)) {
      ambiguous = true;
    } else {
      order_elsewhere = std::min(order_elsewhere, end_order);
    }
  }
  bool kink_or_flat = false;  // see reading
  // Interior jumps (Hann–Poisson's cusp, Tukey's and Parzen's joins): polynomials fitted on
  // either side of a peak of |Δ⁴w| (over Mi ≤ 32 samples each), compared inside the stencil.
  const std::size_t Mi = std::min(M, std::size_t{32});
  const double Md = static_cast<double>(Mi);
  const std::vector<double> tol_i = invisible(W0, Md);
  if (N > 2 * Mi + 8 + 8) {
    const std::vector<std::size_t> joins = jump_candidates(v, Mi + 2, N - Mi - 6);
    // The order read at the join of stencil c from sides that span samples first…c and c + 4…last
    // (a side shorter than Mi + 1 samples is fitted with fewer degrees: 2 fewer than its samples).
    // The left side ends at left_last (c unless a plateau runs into the stencil) and the right one
    // starts at right_first (c + 4 unless likewise).
    auto reading = [&](std::size_t c, std::size_t first, std::size_t left_last,
                       std::size_t right_first, std::size_t last, bool* peaks) {
      const double cd = static_cast<double>(c);
      auto fit = [&](std::size_t a, std::size_t b) {
        const int count = static_cast<int>(b - a + 1);
        return side_fit(v, a, b - a + 1, cd, Md, std::min(merit::kSmoothDegree, count - 2));
      };
      const SideFit left = fit(first, left_last);
      const SideFit right = fit(right_first, last);
      double at = 0;  // where the values meet (u)
      const int across = contact_order(&left, &right, 0.0, 4.0 / Md, tol_i, &at);
      // The fits end at the stencil's ends, c and c + 4, while the join lies between: each
      // extrapolates up to 4 samples to it, where a polynomial of degree kSmoothDegree misses by
      // far more than its error estimate says (Tukey α = 0.625 at N = 64, DFT-even, taper of 20
      // samples: 3.7e-7 at the join 3 samples beyond the left fit, against an estimate of 5e-13,
      // read a kink, k = 1, where the first derivative is continuous). The samples between a
      // fit's end and the point where the values meet lie on its smooth piece: the fits are taken
      // again up to the samples on either side of that point, and compared between those two
      // samples only (further out one of them extrapolates, and its error estimate grows until
      // anything agrees). The order is the higher of the two readings, as contact_order takes
      // the best of its points: where the values meet along a flat stretch (a join of order ≥ 3,
      // Parzen's centre at N = 64) that point is found only to a sample, and a side taken up to
      // it may hold a sample of the other piece, whose bias reads a kink the first comparison
      // does not.
      const double x = cd + Md * at;
      // A kink where the slope of each side changes sign within a sample of where the values meet
      // is also two joins of order 2 around a flat part narrower than a sample, with no sample on
      // it (Tukey α = 0.9981 at N = 206: its flat part is 0.4 samples): the samples cannot tell.
      if (peaks != nullptr) {
        auto turns = [&](const SideFit& side) {
          const double a = taylor_at(side.hi, (x - 1 - cd) / Md)[1];
          const double b = taylor_at(side.hi, (x + 1 - cd) / Md)[1];
          return a * b < 0;
        };
        *peaks = across == 1 && turns(left) && turns(right);
      }
      const auto lo = static_cast<std::size_t>(std::floor(x));
      const auto hi = static_cast<std::size_t>(std::ceil(x));
      // A plateau side is the whole of its piece already (see below): no refit.
      if (left_last != c || right_first != c + 4) return across;
      if (lo < first + 2 || last < hi + 2) return across;  // a side of under 3 samples
      const SideFit left2 = fit(std::max(first, lo - Mi), lo);
      const SideFit right2 = fit(hi, std::min(last, hi + Mi));
      const int near = contact_order(&left2, &right2, (static_cast<double>(lo) - cd) / Md,
                                     (static_cast<double>(hi) - cd) / Md, tol_i);
      return std::max(across, near);
    };
    for (const std::size_t c : joins) {
      bool peaks = false;
      int join = reading(c, c - Mi, c, c + 4, c + 4 + Mi, &peaks);
      // Sides that end before the stencil of another join, 5 samples or more away (a nearer peak
      // may be the same join seen by another stencil): a side of Mi + 1 samples crosses a join
      // nearer than that, and its bias reads a jump that is not there (Tukey α = 0.875 at N = 64,
      // DFT-even: a flat part of 9 samples between two joins, read as a kink, k = 1, where the
      // first derivative is continuous). The higher reading counts, as above: a short side, of
      // low degree, may miss a high-order contact (the shoulders of a generalized Gaussian p = 3,
      // whose peaks of |Δ⁴w| are no joins), but crossing no join it reads none that is not there.
      // Joins whose stencils overlap (Tukey α = 0.9375 at N = 65: 4 samples apart) are not told
      // from one join's two peaks here; a plateau between them is, below.
      std::size_t first = c - Mi, last = c + 4 + Mi;
      for (const std::size_t o : joins) {
        if (o + 4 < c) first = std::max(first, o + 4);
        if (o > c + 4) last = std::min(last, o);
      }
      if ((first > c - Mi || last < c + 4 + Mi) && c >= first + 2 && last >= c + 4 + 2) {
        join = std::max(join, reading(c, first, c, c + 4, last, nullptr));
      }
      // A plateau (3 or more equal samples) that begins or ends inside the stencil is a piece of
      // its own, fitted alone: two joins 4 samples apart (Tukey α = 0.9375 at N = 65, DFT-even: a
      // flat part of 4 samples) put both in each other's stencil, and the sides above cross them.
      auto equal = [&](std::size_t a, std::size_t b) { return std::abs(v[a] - v[b]) <= 1e-14; };
      for (std::size_t a = c + 1; a <= c + 4 && a + 2 < N; ++a) {  // a plateau starting at a
        if (!(equal(a, a + 1) && equal(a, a + 2)) || equal(a - 1, a)) continue;
        std::size_t b = a + 2;
        while (b + 1 < N && b < a + Mi && equal(a, b + 1)) ++b;
        join = std::max(join, reading(c, c - Mi, c, a, b, nullptr));
      }
      for (std::size_t b = c + 3; b >= c && b >= 2; --b) {  // a plateau ending at b
        if (!(equal(b, b - 1) && equal(b, b - 2)) || (b + 1 < N && equal(b, b + 1))) continue;
        std::size_t a = b - 2;
        while (a > 0 && a + Mi > b && equal(b, a - 1)) --a;
        join = std::max(join, reading(c, a, b, c + 4, c + 4 + Mi, nullptr));
      }
      if (join == 1 && peaks) {
        kink_or_flat = true;
        continue;
      }
      order = std::min(order, join);
      order_elsewhere = std::min(order_elsewhere, join);
    }
  }
  // A kink that may be two joins around a flat part narrower than a sample, where nothing else
  // decides the order (a jump or a kink elsewhere): −12.04 or −18.06, not measurable.
  if (kink_or_flat && order > 1) order = kNotMeasurable;
  r.order = order;
  r.hidden_jump = hidden_jump && order > 0;
  // The ambiguity decides the fall-off unless a jump of order ≤ 0 elsewhere falls off as slowly
  // (a square-root end elsewhere, at −9.03, does not decide it).
  r.ambiguous_end = ambiguous && order_elsewhere > 0;
  return r;
}

int smoothness_order(const double* w, std::size_t N) {
  return smoothness(w, N, false).order;
}

namespace {

/// Whether |W| lies at the rounding floor (1e-12 |W(0)|, −240 dB) from `from_bins` (and N/32) up
/// to 3N/8, on a grid of 1/8 bin: where the far band is too short to fit (a first minimum beyond
/// N/16 bins), the rest of the spectrum beyond it.
bool at_floor_beyond(const double* w, std::size_t N, double from_bins) {
  constexpr std::size_t P = 8;
  const double lo = std::max(from_bins, static_cast<double>(N) / 32.0);
  const std::size_t K = N * P / 2 + 1;
  std::vector<cplx> X(K);
  fft_r2c(w, N, N * P, X.data());
  const double floor = 1e-12 * std::abs(X[0]);
  std::size_t points = 0;
  for (std::size_t j = 1; j < K; ++j) {
    const double f = static_cast<double>(j) / static_cast<double>(P);
    if (f < lo || f > 0.375 * static_cast<double>(N)) continue;
    if (std::abs(X[j]) > floor) return false;
    ++points;
  }
  return points > 0;
}

/// The distance (samples) from the nearer end to the first peak of |Δ⁴w| within N/4 of it: where
/// a join (Tukey's taper meeting its flat part) lies; N when there is none.
std::size_t nearest_join(const double* w, std::size_t N) {
  double wmax = 0;
  for (std::size_t n = 0; n < N; ++n) wmax = std::max(wmax, std::abs(w[n]));
  std::vector<double> v(w, w + N);
  for (double& x : v) x /= wmax;
  std::size_t L = N;
  const std::size_t hi = std::min(N - 4, N / 4 + 4);
  for (int end = 0; end < 2; ++end) {
    for (const std::size_t c : jump_candidates(v, 0, hi)) L = std::min(L, c + 2);  // stencil centre
    std::reverse(v.begin(), v.end());
  }
  return L;
}

}  // namespace

double falloff_order(const Smoothness& sm) {
  if (sm.order == kNotMeasurable) return kNotMeasurable;
  double a = static_cast<double>(sm.order);
  if (sm.square_root_end) a = std::min(a, 0.5);
  if (sm.power_end > 0) a = std::min(a, sm.power_end);
  return a;
}

double sidelobe_falloff_db_per_octave(const double* w, std::size_t N, double first_min_bins) {
  const Smoothness sm = smoothness(w, N, true);
  const int p = sm.order;
  const double octave = 20.0 * std::log10(2.0);
  if (N < kMinFalloffLength) return FiguresOfMerit::nan;
  const FittedBand band = fitted_band(w, N, first_min_bins);
  // The exponent a of the slowest singularity, |W| ~ f^−(a+1) (falloff_order): the order p of
  // the first jump elsewhere, or ½ at a square-root end (w ~ (n − n₀)^½, recognised by w² fitting
  // a simple zero at the end far better than w fits a polynomial: see smoothness) unless a jump
  // of order p ≤ 0 falls off as slowly or more slowly.
  const double a = falloff_order(sm);
  // An end read as vanishing only within the fit's error while its end sample is visible
  // (Smoothness::hidden_jump: Kaiser β = 20 at N = 128 read −12.04) may be a jump the samples
  // cannot resolve, and a jump, if there is one, is the slowest singularity: the asymptote. Only
  // the far band can show it: where it is an asymptote (its halves agree) at the jump's slope, the
  // fall-off is −6.02; a steeper band is either the order read (no jump) or a transition before
  // the jump takes over, which the band cannot tell apart: not measurable at this N.
  // An end sample that may be an impulse or a steep end's miss (Smoothness::ambiguous_impulse):
  // 0 or the order read, which the samples cannot tell apart, unless an impulse elsewhere decides.
  if (sm.ambiguous_impulse && p != -1) return FiguresOfMerit::nan;
  if (sm.hidden_jump && a >= 0) {
    const double slope = band.asymptotic_slope();
    const bool jump = !band.at_floor && std::abs(slope + octave) <= kAsymptoteToleranceDb;
    return jump ? -octave : FiguresOfMerit::nan;
  }
  if (a >= -1 && a <= kMaxSmoothnessOrder) {  // an order (or ½), not a special value
    // The order read off the samples predicts the slope (−1: an end impulse, 0 dB/octave). The
    // far band of the DTFT is the slope itself; where it is an asymptote over many sidelobes (at
    // least kLongBand points in each half: a fit over a few sidelobes can pass a bending
    // transition for straight) and shows another slope, the samples misled the order: an end that
    // behaves like a non-integer power the square-root test does not recognise has no Taylor
    // expansion for the fit to find, and a fit reaching a join (Tukey) or ripples next to the end
    // (Barcilon–Temes: read as an impulse) bias it. An impulse is contradicted only by a whole
    // order: the peaks of an equiripple spectrum beating with the impulse of the DFT-even
    // truncation (Dolph–Chebyshev) wander by a few dB/octave.
    constexpr std::size_t kLongBand = 32;
    // A band at the rounding floor throughout contradicts a finite order read off the samples
    // (whose coefficients count only where their term in |W| at N/32 is above that floor): the
    // polynomial missed an end steeper than it follows, and its error estimate with it (Kaiser
    // β = 31 at N = 128: 4.8e-13 max|w| at the end, rising 42-fold over the first sample; a kink
    // read, −12.04, where |W| is below −240 dB from 12 bins on). Not measurable.
    if (a >= 0 && (band.at_floor || (!band.long_enough && at_floor_beyond(w, N, first_min_bins)))) {
      return FiguresOfMerit::nan;
    }
    const double predicted = -octave * (a + 1);
    const FittedBand::Slopes s = band.slopes();
    const double slope = band.asymptotic_slope();
    const bool long_band =
        !band.at_floor && std::isfinite(slope) && s.n_lower >= kLongBand && s.n_upper >= kLongBand;
    double nearest = std::numeric_limits<double>::infinity();  // from an integer order's slope
    for (int k = -1; k <= kMaxSmoothnessOrder; ++k) {
      nearest = std::min(nearest, std::abs(slope + octave * (k + 1)));
    }
    // A band steeper than a jump of an integer order p ≥ 0 that the samples resolve, at another
    // integer order's slope, is a transition, however long: a singularity of a higher order but a
    // larger amplitude dominates up to frequencies beyond the band, and the slower one the samples
    // show takes over only there (Poisson α = 6 at N = 256 read −11.66 over a long band: its small
    // end jump, e^−6, is overtaken by the cusp at its centre; even at 65536 samples the far band is
    // not yet at −6.02). The order read stands, as for a short band below.
    const bool transition = a == static_cast<double>(p) && p >= 0 && slope < predicted &&
                            nearest <= kAsymptoteToleranceDb;
    const bool contradicted = long_band && !transition &&
                              (p == -1 ? slope <= -(octave - kAsymptoteToleranceDb)
                                       : std::abs(slope - predicted) > kAsymptoteToleranceDb);
    // A contradicting slope is the answer only where it is an integer order's (within
    // kAsymptoteToleranceDb of −6.02(k + 1)): the order the samples misread. A slope between
    // integer orders, from an end that the square-root and power tests do not recognise, is a
    // transition or a power the samples do not show: not measurable (Kaiser–Bessel-derived β = 16
    // at N = 1024 read −9.95, between the −6.02 of the jump its fit reads and the −12.04 of its
    // centre, where the family at 65536 samples reads −8.8).
    if (contradicted) {
      return slope <= 0 && nearest <= kAsymptoteToleranceDb ? slope : FiguresOfMerit::nan;
    }
    // An end whose samples are those of a small jump (−6.02) and of a square-root end narrower
    // than a sample (−9.03) alike, where nothing else falls off as slowly (end_is_ambiguous): not
    // measurable at this N, unless a long band shows the asymptote (then it agrees with the jump's
    // slope, or has been returned above).
    if (sm.ambiguous_end && !long_band) return FiguresOfMerit::nan;
    // A band too short to be the asymptote can still refute the integer order: where its halves
    // agree on a falling slope (an asymptote by its own test) that lies more than half an order
    // from the predicted one and more than kAsymptoteToleranceDb from every integer order, the
    // end is not a jump of any order but a non-integer power that the band cannot yet measure and
    // the square-root and power-end tests did not recognise: not measurable at this N. A
    // short band near another integer order is a transition (Poisson α = 6 at N = 1024 reads
    // −11.4: its small end jump is overtaken by the cusp at its centre near the main lobe), and
    // the order read from the samples stands.
    if (a >= 0 && std::isfinite(slope) && slope <= 0 && !band.at_floor &&
        std::abs(slope - predicted) > 0.5 * octave && nearest > kAsymptoteToleranceDb) {
      return FiguresOfMerit::nan;
    }
    return predicted;
  }
  // Not piecewise smooth at this N, or smoother than a jump of order kMaxSmoothnessOrder: the
  // far sidelobes' slope, if it is an asymptote (the same in the band's lower and upper halves).
  if (band.at_floor) return -std::numeric_limits<double>::infinity();
  const double slope = band.asymptotic_slope();
  if (p > kMaxSmoothnessOrder) {  // no jump up to that order: only a steeper slope is consistent
    return slope <= -octave * (kMaxSmoothnessOrder + 1) ? slope : FiguresOfMerit::nan;
  }
  // A join L samples from an end shapes |W| up to about 2N/L bins (the main lobe of a taper of
  // L samples): a band below that is a transition, not the asymptote.
  const double L = static_cast<double>(nearest_join(w, N));
  if (band.f_lo < 2.0 * static_cast<double>(N) / L) return FiguresOfMerit::nan;
  return slope <= 0 ? slope : FiguresOfMerit::nan;
}

FittedBand::Slopes FittedBand::slopes() const {
  constexpr double nan = FiguresOfMerit::nan;
  const std::vector<double>& x = xs.size() >= 8 ? xs : xa;
  const std::vector<double>& y = xs.size() >= 8 ? ys : ya;
  if (x.size() < 8) return {nan, nan, nan, 0, 0};
  // The halves of the band, split at its geometric middle (an octave each at most)
  const double mid = std::sqrt(f_lo * f_hi);
  std::vector<double> x1, y1, x2, y2;
  for (std::size_t i = 0; i < x.size(); ++i) {
    (x[i] < mid ? x1 : x2).push_back(x[i]);
    (x[i] < mid ? y1 : y2).push_back(y[i]);
  }
  return {fit_slope_per_octave(x, y, Nd), x1.size() >= 4 ? fit_slope_per_octave(x1, y1, Nd) : nan,
          x2.size() >= 4 ? fit_slope_per_octave(x2, y2, Nd) : nan, x1.size(), x2.size()};
}

double FittedBand::asymptotic_slope() const {
  const Slopes s = slopes();
  if (!(std::abs(s.lower - s.upper) <= kAsymptoteToleranceDb)) return FiguresOfMerit::nan;
  return s.all;
}

FittedBand fitted_band(const double* w, std::size_t N, double first_min_bins) {
  // Far band: from 4 main-lobe widths (and N/32) up one to two octaves to max(N/8, 2 f_lo),
  // capped at 3N/8; read on a grid of 1/8 bin whatever the caller's padding.
  const double Nd = static_cast<double>(N);
  // A first minimum that is neither a null nor within N/16 (or none at all) is a ripple of a
  // spectrum without sidelobes in the usual sense (e.g. a strongly decaying exponential), not the
  // edge of a main lobe: the band then starts at N/32.
  bool edge = first_min_bins < 0.5 * Nd;
  if (edge && first_min_bins > Nd / 16.0) {
    std::vector<cplx> zr, zb;
    double W0 = 0;
    for (std::size_t n = 0; n < N; ++n) W0 += w[n];
    edge = std::abs(dtft_one(w, N, first_min_bins, zr, zb, nullptr)) < 1e-10 * std::abs(W0);
  }
  const double fm = edge ? first_min_bins : 0.0;
  FittedBand band;
  band.Nd = Nd;
  const double f_lo = band.f_lo = std::max(4.0 * fm, Nd / 32.0);
  const double f_hi = band.f_hi = std::min(std::max(Nd / 8.0, 2.0 * f_lo), 0.375 * Nd);
  if (!(f_hi >= 1.5 * f_lo)) return band;
  band.long_enough = true;
  constexpr std::size_t P = 8;
  const double pd = static_cast<double>(P);
  const std::size_t K = N * P / 2 + 1;
  std::vector<cplx> X(K);
  fft_r2c(w, N, N * P, X.data());
  std::vector<double> mag(K);
  for (std::size_t k = 0; k < K; ++k) mag[k] = std::abs(X[k]);
  const double floor = 1e-12 * mag[0];  // −240 dB: the DTFT's rounding floor (see highest_sidelobe)
  std::vector<double>&xs = band.xs, &ys = band.ys, &xa = band.xa, &ya = band.ya;
  std::size_t in_band = 0;
  for (std::size_t j = 1; j + 1 < K; ++j) {
    const double f = static_cast<double>(j) / pd;
    if (f < f_lo || f > f_hi) continue;
    ++in_band;
    if (mag[j] <= floor) continue;
    xa.push_back(f);
    ya.push_back(db(mag[j] / mag[0]));
    if (mag[j] >= mag[j - 1] && mag[j] >= mag[j + 1] && mag[j - 1] > floor && mag[j + 1] > floor) {
      // a sidelobe peak, interpolated by a parabola in dB
      const double y0 = db(mag[j - 1]), y1 = db(mag[j]), y2 = db(mag[j + 1]);
      const double den = y0 - 2 * y1 + y2;
      const double delta = den < 0 ? 0.5 * (y0 - y2) / den : 0.0;
      xs.push_back(f + delta / pd);
      ys.push_back(y1 - 0.25 * (y0 - y2) * delta - db(mag[0]));
    }
  }
  // The far band lies at the rounding floor: faster than any power law double precision resolves.
  band.at_floor = in_band > 0 && xa.size() < 4;
  return band;
}

double fitted_falloff_db_per_octave(const double* w, std::size_t N, double first_min_bins) {
  const FittedBand band = fitted_band(w, N, first_min_bins);
  if (band.xs.size() >= 4) return fit_slope_per_octave(band.xs, band.ys, band.Nd);
  // No distinct sidelobe peaks (a monotone far spectrum, e.g. Hann–Poisson, a strongly decaying
  // exponential): the slope of |W| itself.
  if (band.xa.size() >= 4) return fit_slope_per_octave(band.xa, band.ya, band.Nd);
  if (band.at_floor) return -std::numeric_limits<double>::infinity();
  return FiguresOfMerit::nan;
}

CausalExponential causal_exponential(const double* w, std::size_t N) {
  // w[n] = w[0] rⁿ (0 < r ≤ 1): truncation ripple against the N → ∞ envelope
  // |W_∞(f)| = w[0]/|1 − r e^{−2πif/N}|. The ratio |W|/|W_∞| = |1 − r^N e^{−2πif}| is extreme at
  // f = 0 (1 − r^N) and f = ½ (1 + r^N); both are evaluated on the exact DTFT.
  CausalExponential c;
  if (N < 2 || !(w[0] > 0)) return c;
  const double rr = w[1] / w[0];
  bool geometric = rr > 0 && rr <= 1.0 + 1e-15;
  for (std::size_t n = 0; geometric && n + 1 < N; ++n) {
    // Relative check, with an absolute floor once the samples underflow towards 0.
    geometric = w[n + 1] >= 0 && std::abs(w[n + 1] - rr * w[n]) <= 1e-12 * w[n] + 1e-300;
  }
  if (!geometric) return c;
  const double Nd = static_cast<double>(N);
  c.is_causal_exponential = true;
  const double ratio_r = std::min(1.0, rr);
  c.decay_ratio = ratio_r;
  std::vector<cplx> zr, zb;
  auto ratio = [&](double f) {
    const double env = std::abs(expm1c(cplx(std::log(ratio_r), -two_pi * f / Nd)));
    return std::abs(dtft_one(w, N, f, zr, zb, nullptr)) * env / w[0];
  };
  const double lo = ratio(0.0), hi = ratio(0.5);
  c.truncation_ripple_db = lo > 0 ? db(hi / lo) : std::numeric_limits<double>::infinity();
  return c;
}

}  // namespace merit

namespace {

FiguresOfMerit figures_of_merit_impl(const double* w, std::size_t N, std::size_t pad,
                                     const std::atomic<bool>* cancel) {
  using namespace merit;
  if (pad < 1) throw std::invalid_argument("pad must be >= 1, got " + std::to_string(pad));
  check_dtft_length(N);
  const WindowSums sums = window_sums(w, N);
  FiguresOfMerit r;
  r.N = N;
  r.pad = pad;
  const GainFigures gain = gain_figures(w, N, sums);
  r.coherent_gain = gain.coherent_gain;
  r.enbw_bins = gain.enbw_bins;
  r.scalloping_loss_db = gain.scalloping_loss_db;
  r.worst_case_processing_loss_db = gain.worst_case_processing_loss_db;
  r.overlap_correlation_50 = gain.overlap_correlation_50;
  r.overlap_correlation_75 = gain.overlap_correlation_75;

  const SpectrumGrid grid = spectrum_grid(w, N, pad, cancel);
  r.first_min_bins = first_minimum_bins(w, N, grid, cancel);
  const bool has_min = r.first_min_bins < grid.nyquist;
  const double min_level = Dtft{w, N, {}, {}, cancel}.mag(r.first_min_bins) / std::abs(sums.sum);
  r.first_min_db = min_level > 0 ? db(min_level) : -std::numeric_limits<double>::infinity();
  r.first_min_is_null = min_level < 1e-10;  // −200 dB: a zero of the DTFT to rounding
  r.bandwidth_3db_bins = main_lobe_width_bins(w, N, grid, std::sqrt(0.5), r.first_min_bins, cancel);
  r.bandwidth_6db_bins = main_lobe_width_bins(w, N, grid, 0.5, r.first_min_bins, cancel);

  const Sidelobe side = highest_sidelobe(w, N, grid, r.first_min_bins, cancel);
  r.highest_sidelobe_db = side.level_db;
  r.highest_sidelobe_bins = side.bins;
  if (side.found && side.level_db > 1e-8) {  // 1e-8 dB ~ the 1 + 1e-9 rounding allowance
    throw std::invalid_argument("w must be a lowpass window: a sidelobe at " +
                                std::to_string(side.bins) + " bins rises above |W(0)|");
  }
  poll(cancel);
  r.leakage_factor = side.found ? leakage_factor(w, N, r.first_min_bins) : 0.0;
  poll(cancel);
  r.sidelobe_falloff_db_per_octave =
      sidelobe_falloff_db_per_octave(w, N, has_min ? r.first_min_bins : 0.0);

  const CausalExponential ce = causal_exponential(w, N);
  r.is_causal_exponential = ce.is_causal_exponential;
  r.decay_ratio = ce.decay_ratio;
  r.truncation_ripple_db = ce.truncation_ripple_db;
  return r;
}

}  // namespace

FiguresOfMerit figures_of_merit(const double* w, std::size_t N, std::size_t pad,
                                const std::atomic<bool>* cancel) {
  if (N < 1) throw std::invalid_argument("w must not be empty");
  double wmax = 0;
  for (std::size_t n = 0; n < N; ++n) {
    if (!std::isfinite(w[n])) throw std::invalid_argument("w must be finite");
    wmax = std::max(wmax, std::abs(w[n]));
  }
  // The figures are scale-invariant: divide by the power of two 2^e with max|w|/2^e in [1, 2)
  // (exact, and the identity for the usual windows with max 1), so that sums of squares neither
  // overflow (w·1e200) nor underflow (w·1e-300).
  int e = 0;
  if (wmax > 0) {
    std::frexp(wmax, &e);
    e -= 1;
  }
  if (e == 0) return figures_of_merit_impl(w, N, pad, cancel);
  std::vector<double> scaled(w, w + N);
  for (double& x : scaled) x = std::ldexp(x, -e);
  return figures_of_merit_impl(scaled.data(), N, pad, cancel);
}

LeakageMap leakage_map(const double* alpha, std::size_t A, const double* omega, std::size_t W,
                       std::size_t N, std::size_t pad, const std::atomic<bool>* cancel) {
  if (N < 1) throw std::invalid_argument("N must be >= 1, got " + std::to_string(N));
  LeakageMap m;
  m.N = N;
  m.omega.assign(omega, omega + W);
  m.window.resize(A);
  m.scalloping_db.resize(A * W);
  m.bin_leakage_factor.resize(A * W);
  m.far_leakage_db.resize(A * W);
  const double Nd = static_cast<double>(N);
  m.alpha.assign(alpha, alpha + A);
  std::vector<double> win(N);
  for (std::size_t i = 0; i < A; ++i) {
    if (cancel != nullptr && cancel->load()) throw mc::Cancelled();
    const double a = alpha[i];
    for (std::size_t n = 0; n < N; ++n) win[n] = std::exp(-a * static_cast<double>(n));
    m.window[i] = figures_of_merit(win.data(), N, pad, cancel);
    // Σ|h|² = (1 − r^{2N})/(1 − r²) = expm1(−2αN)/expm1(−2α) (N at α = 0).
    const double energy = a > 0 ? std::expm1(-2.0 * a * Nd) / std::expm1(-2.0 * a) : Nd;
    for (std::size_t j = 0; j < W; ++j) {
      const double fb = omega[j] * Nd / two_pi;  // the tone's frequency in bins
      const double peak = std::abs(ssm_spectrum(a, omega[j], N, fb));
      const double k0 = std::nearbyint(fb);
      const double at_bin = std::abs(ssm_spectrum(a, omega[j], N, k0));
      m.scalloping_db[i * W + j] = -db(at_bin / peak);
      m.bin_leakage_factor[i * W + j] = std::max(0.0, 1.0 - at_bin * at_bin / (Nd * energy));
      double far = 0;
      for (std::size_t kk = 0; kk < N; ++kk) {
        double dist = std::fmod(std::abs(static_cast<double>(kk) - fb), Nd);
        dist = std::min(dist, Nd - dist);  // circular distance in bins
        if (dist < 2.0) continue;
        far = std::max(far, std::abs(ssm_spectrum(a, omega[j], N, static_cast<double>(kk))));
      }
      // Below −240 dB re the peak the closed form is rounding noise (e.g. α = 0 with the tone on a
      // bin, where every other bin is exactly 0): −inf, as for highest_sidelobe.
      m.far_leakage_db[i * W + j] =
          far > 1e-12 * peak ? db(far / peak) : -std::numeric_limits<double>::infinity();
    }
  }
  return m;
}

}  // namespace ropelab::spectra
