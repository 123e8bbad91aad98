#pragma once
/// \file rff.hpp
/// Random-feature estimators of the softmax kernel exp(q·k) (MATH.md §1): per-feature moments,
/// closed-form MSE (direct and log-domain), feature maps, frequency sampling and the Monte-Carlo
/// estimate in projected (exact scalar / 2-D shortcut) and full (d-dimensional ω) modes.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ropelab/estimator.hpp"

namespace ropelab::rff {

/// For the trig estimator: Re φ(q)·conj φ(k) (conjugate, correct) or Re φ(q)φ(k) (Eq. 8 literal).
enum class Convention { conjugate, literal };

/// The estimators this module evaluates (trig, random_phase, positive), in enum order: the one
/// list that Python's Literal types, sweep axes and command-line choices are checked against.
const std::vector<Estimator>& estimators();
/// The estimator named `name` among estimators(); throws std::invalid_argument otherwise.
Estimator parse_estimator(const std::string& name);
Convention parse_convention(const std::string& name);  ///< throws std::invalid_argument
/// The convention names parse_convention accepts, in enum order.
const std::vector<std::string>& convention_names();
/// The Monte-Carlo modes of estimate(): "projected" (EstimateOptions::full = false), "full".
const std::vector<std::string>& mode_names();
/// true for "full", false for "projected"; throws std::invalid_argument otherwise.
bool parse_full_mode(const std::string& name);

/// Extended precision for the pair geometry and the closed forms: exponents reach several hundred
/// (norms up to ~20), and exp amplifies an exponent's absolute rounding error into a relative one,
/// so sums and exponents are carried in long double and only the results are rounded to double.
using real = long double;

/// Everything the closed forms need about a pair (q, k).
struct Pair {
  real nq2 = 0;  ///< ‖q‖²
  real nk2 = 0;  ///< ‖k‖²
  real qk = 0;   ///< q·k
  real a = 0;    ///< ‖q+k‖², summed from the vector q+k (no cancellation)
  real b = 0;    ///< ‖q−k‖², summed from the vector q−k (no cancellation)
  /// Cholesky factor of σ⁻²·Cov(ω·q, ω·k) = [[‖q‖², q·k], [q·k, ‖k‖²]]: ω·q = σ l11 g1,
  /// ω·k = σ (l21 g1 + l22 g2) for independent standard normals g1, g2.
  double l11 = 0, l21 = 0, l22 = 0;
  real n() const { return nq2 + nk2; }  ///< ‖q‖² + ‖k‖²
};

/// Geometry of the pair of d-vectors q, k.
Pair make_pair(const double* q, const double* k, std::size_t d);
/// Unit vectors with q·k = xi (|xi| ≤ 1): a = 2 + 2ξ, b = 2 − 2ξ.
Pair make_unit_pair(double xi);

/// Mean and variance of one feature's term X (or their logarithms, see log_moments).
struct Moments {
  double mean;
  double variance;
};

/// Closed-form E[X] and Var[X]. Overflowing values are +inf (use log_moments).
Moments moments(const Pair& p, double sigma, Estimator est, Convention conv);
/// log E[X] and log Var[X] (−inf for a zero variance); finite for any finite input.
Moments log_moments(const Pair& p, double sigma, Estimator est, Convention conv);
/// MSE of the D-feature mean: Var[X]/D + (E[X] − exp(q·k))². +inf when it overflows.
double mse(const Pair& p, double D, double sigma, Estimator est, Convention conv);
/// log of mse(), computed in the log domain (finite where mse() overflows).
double log_mse(const Pair& p, double D, double sigma, Estimator est, Convention conv);

/// Number of real feature columns of feature_map: 2D for trig ([cos | sin]), D otherwise.
std::size_t feature_count(Estimator est, std::size_t D);

/// Frequencies ω (D×d, row-major) of Monte-Carlo unit `index` under `seed` — exactly those that
/// full-mode estimate() uses for trial `index`. Orthogonal: blocks of d mutually orthogonal rows
/// (Haar-random rotation) with independent χ_d norms, the last block truncated.
/// `cancel` (may be null) is checked between blocks (throws mc::Cancelled when set).
void sample_omega(std::size_t D, std::size_t d, double sigma, bool orthogonal, std::uint64_t index,
                  std::uint64_t seed, double* out, const std::atomic<bool>* cancel = nullptr);
/// Random phases β ∈ [0, 2π) of unit `index` (the random-phase estimator's β of that trial).
void sample_phase(std::size_t D, std::uint64_t index, std::uint64_t seed, double* out);

/// Real feature maps of the rows of X (n×d) with ω (D×d), out n×feature_count(est, D):
///   trig:          exp(‖x‖²/2)/√D [cos(ω·x) | sin(ω·x)]   (dot product = conjugate estimate)
///   random_phase:  exp(‖x‖²/2) √(2/D) cos(ω·x + β)        (`phase` = β, length D, required)
///   positive:      exp(ω·x − ‖x‖²/2)/√D
void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, const double* phase, double* out);

/// Options of a Monte-Carlo estimate.
struct EstimateOptions {
  std::size_t D = 1;
  double sigma = 1.0;
  Estimator estimator = Estimator::trig;
  Convention convention = Convention::conjugate;
  std::uint64_t seed = 0;
  bool full = false;        ///< full: d-dimensional ω; otherwise the exact projected shortcut
  bool orthogonal = false;  ///< orthogonal random features (blocks of d rows; both modes)
  int nthreads = 0;         ///< ≤ 0: all cores (see mc::resolve_threads)
};

/// out[t] = the D-feature estimate of exp(q·k) in trial t, for t < trials.
///
/// Projected orthogonal features (orthogonal && !full) in O(d) per block of d features, without
/// a QR. A block is ω_r = σ χ_r e_r (r < d) with E = (e_r) a Haar-random orthogonal matrix and
/// χ_r i.i.d. χ_d, independent of E. For a fixed u, E u = ‖u‖ E (u/‖u‖), and the image of a fixed
/// unit vector under a Haar-random rotation is uniform on the sphere S^{d-1}, i.e. distributed as
/// z/‖z‖ with z ~ N(0, I_d). Hence (ω_r·u)_r has the law of (σ‖u‖ χ_r z_r/‖z‖)_r: d normals and d
/// χ_d norms per block (trig: u = q∓k; positive: u = q+k). The random-phase estimator needs the
/// pair (ω_r·q, ω_r·k): with an orthonormal basis f1 = q/‖q‖, f2 of span(q, k),
/// q = l11 f1, k = l21 f1 + l22 f2 (Pair's Cholesky factor), and (E f1, E f2) is a uniformly
/// random orthonormal 2-frame (a, b) of R^d — Gram–Schmidt of two independent N(0, I_d) vectors —
/// so ω_r·q = σ χ_r l11 a_r, ω_r·k = σ χ_r (l21 a_r + l22 b_r): 2d normals and d norms per block.
/// A truncated last block (m = D mod d rows) uses the first m coordinates. The χ_d norms come from
/// a χ_d ziggurat (rng.hpp ChiZiggurat: one Philox word per norm on the fast path, 99.6 % of
/// draws; d = 1: |N(0, 1)|), norm r of a trial being χ_d draw r of its `chi` stream.
/// tests/test_simd.py compares the estimates' distribution with full-mode ORF (two-sample
/// Kolmogorov–Smirnov) and their variance; cpp/tests/test_vecmath.cpp the χ_d draws with the χ_d
/// distribution. Trial t's numbers depend only on (seed, t): bit-identical for every thread count.
/// Memory is O(nthreads·D·d) at most (one ω block per thread), independent of `trials`. Throws
/// mc::Cancelled when `cancel` is set, std::invalid_argument when the amplitude exp(n/2) overflows
/// a double.
void estimate(const double* q, const double* k, std::size_t d, const EstimateOptions& opt,
              std::size_t trials, double* out, const std::atomic<bool>* cancel);

/// Random draws one trial of estimate() takes from one stream: D (projected; 2D for random
/// phase counted as 2D), D·d (full), plus one orthogonal block of d·d.
double draws_per_trial(std::size_t d, std::size_t D, bool full);

/// The input checks of estimate(), the one place they are written (the bindings call it):
/// std::invalid_argument when a trial would need rng::kMaxDraws (2^40) draws or more from one
/// stream, or when the amplitude exp((‖q‖²+‖k‖²)/2) of the trig / random-phase terms overflows a
/// double.
void check_estimate_input(const Pair& p, std::size_t d, const EstimateOptions& opt);

/// The pieces of estimate(), exposed for their own unit tests.
namespace detail {

/// One trial's estimate from the 8 partial sums `acc` of its D feature terms (summed in the fixed
/// order of simd::reduce8): amp·Σ/D (trig), 2·amp·Σ/D (random phase), Σ/D (positive).
double trial_estimate(const double* acc, Estimator est, double amp, double inv_D);

/// Projected orthogonal random-phase features of one block: from the 2d direction normals z1
/// (z1[0..d) and z1[d..2d), the latter overwritten), a uniformly random orthonormal 2-frame (a, b)
/// by Gram–Schmidt, then for r < m: x[r] = c11 χ_r a_r + 2π β_r and
/// y[r] = χ_r (c21 a_r + c22 b_r) + 2π β_r (the arguments of cos(ω_r·q + β_r), cos(ω_r·k + β_r)).
void orthogonal_phase_arguments(double* z1, std::size_t d, std::size_t m, const double* chi,
                                const double* beta, double c11, double c21, double c22, double* x,
                                double* y);

/// Full mode: adds the m feature terms of projections pq = ω·q, pk = ω·k to the 8 partial sums
/// `acc`: cos(pq ∓ pk) (trig; + for the literal convention), exp(pq + pk − half_n) (positive),
/// cos(pq + 2πβ)·cos(pk + 2πβ) (random phase). x, y: scratch of length m.
void accumulate_full_terms(Estimator est, bool literal, double half_n, const double* pq,
                           const double* pk, const double* beta, std::size_t m, double* x,
                           double* y, double* acc);

}  // namespace detail

}  // namespace ropelab::rff
