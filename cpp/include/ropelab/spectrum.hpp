#pragma once
/// \file spectrum.hpp
/// Spectra of windows and of diagonal SSMs (MATH.md §5).
///
/// Frequencies are in bins (cycles per N samples: f bins ↔ Ω = 2πf/N rad/sample) unless a name
/// says radians. The DTFT convention is X(f) = Σ_n x[n] e^{−2πi f n/N}.
///
/// FFTs use FFTW with plans cached per (kind, size) (bounded LRU, see plan_cache_capacity) under a
/// mutex (FFTW's planner is not thread-safe) with FFTW_ESTIMATE (deterministic), and executed with
/// the new-array execute functions on per-call buffers, so every function here may be called from
/// several threads.

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstddef>
#include <limits>
#include <vector>

namespace ropelab::spectra {

/// How far |W(f)| may rise above |W(0)| inside the main lobe of a window accepted by
/// figures_of_merit (flat-top windows ripple there by a few thousandths of a dB); sidelobes may
/// not rise above |W(0)| at all.
inline constexpr double kPassbandRippleDb = 0.1;

using cplx = std::complex<double>;

/// Zero-padded forward real FFT: x (n values) padded to m ≥ n, out gets m/2+1 values.
void fft_r2c(const double* x, std::size_t n, std::size_t m, cplx* out);
/// Zero-padded complex FFT of length m ≥ n; sign −1 forward (e^{−2πikn/m}), +1 backward (unscaled).
void fft_c2c(const cplx* x, std::size_t n, std::size_t m, cplx* out, int sign);
/// Number of FFTW plans currently cached (for tests of the cache).
std::size_t cached_plan_count();
/// Bounds of the least-recently-used FFTW plan cache: at most plan_cache_capacity plans and at most
/// plan_cache_max_points summed lengths. A plan holds about 16 bytes per point of its length plus
/// a few KB, so the cache holds at most about 64 MB (a length above the point budget is planned
/// per call and not cached). The planner lock is taken around fork() (pthread_atfork), so a child
/// process never inherits it held.
constexpr std::size_t plan_cache_capacity = 64;
constexpr std::size_t plan_cache_max_points = std::size_t{1} << 22;

/// Number of output frequencies of spectrum_*: pad·N/2 + 1 for real input (0 … N/2 bins),
/// pad·N for complex input (−N/2 … N/2 − 1/pad bins, increasing).
std::size_t spectrum_size(std::size_t N, std::size_t pad, bool real_input);
/// |X(f)| on the grid f = k/pad bins by a zero-padded FFT of length pad·N (see spectrum_size).
void spectrum_real(const double* x, std::size_t N, std::size_t pad, double* freqs, double* mag);
void spectrum_complex(const cplx* x, std::size_t N, std::size_t pad, double* freqs, double* mag);

/// Direct DTFT X(f) = Σ_n x[n] e^{−2πi f n/N} at F arbitrary frequencies (bins). Each phase is
/// reduced exactly (integer part of f·n mod N in integers), so the error per term is a few ulp
/// for any f. Requires N < 2^31.
void dtft(const double* x, std::size_t N, const double* f, std::size_t F, cplx* out);
void dtft(const cplx* x, std::size_t N, const double* f, std::size_t F, cplx* out);
/// X(f) and dX/df at one frequency (bins) of a real sequence.
void dtft_with_derivative(const double* x, std::size_t N, double f, cplx& X, cplx& dX);

/// h[n] = a^n, a = e^{−α + iω}, n = 0..N−1 (α ≥ 0 per sample, ω rad/sample).
void ssm_impulse(
    double alpha, double omega, std::size_t N, cplx* out,
    const std::atomic<bool>* cancel = nullptr);  ///< cancel: checked every 2^16 samples
/// Closed form of the DTFT of ssm_impulse at f bins: (1 − a^N e^{−2πif}) / (1 − a e^{−2πif/N}),
/// evaluated with complex expm1 (accurate near the peak); N at a = 1, f ≡ 0.
cplx ssm_spectrum(double alpha, double omega, std::size_t N, double f);
/// |H| of the N → ∞ limit: 1/|1 − e^{−α} e^{i(ω − 2πf/N)}| (inf at α = 0, f = ωN/2π).
double ssm_envelope(double alpha, double omega, std::size_t N, double f);
/// Continuous-time window transform on [0, T]: ∫_0^T e^{(−α+iω)t} e^{−iΩt} dt
/// = (1 − e^{(−α + i(ω−Ω))T}) / (α − i(ω−Ω)), Ω = 2πf/T (f in cycles per T); T at α = 0, Ω = ω.
cplx continuous_spectrum(double alpha, double omega, double T, double f);
/// Zero-order-hold discretisation of ẋ = A x + B u with A = −α + iω (one diagonal mode):
/// Ā = e^{ΔA}, B̄ = (e^{ΔA} − 1)/A · B = Δ φ1(ΔA) B, φ1(z) = expm1(z)/z (→ 1 at z = 0).
void zoh(double alpha, double omega, double dt, cplx B, cplx& Abar, cplx& Bbar);

/// S4D-style convolution kernel of `modes` diagonal modes A_n = −α_n + iω_n (α_n ≥ 0, per unit
/// time) discretised by zoh with step dt: K[ℓ] = Σ_n C_n B̄_n Ā_n^ℓ, ℓ = 0..L−1, with Ā_n^ℓ
/// evaluated as ssm_impulse(α_n dt, ω_n dt) (exact phase reduction, no repeated products).
void ssm_kernel(const double* alpha, const double* omega, const cplx* B, const cplx* C,
                std::size_t modes, double dt, std::size_t L, cplx* out,
                const std::atomic<bool>* cancel = nullptr);  ///< cancel: checked every 2^16 steps

/// Complex expm1 accurate for small |z|.
cplx expm1c(cplx z);

/// Figures of merit of a real window (Harris 1978; MATH.md §5). Frequencies in bins.
struct FiguresOfMerit {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::size_t N = 0;
  std::size_t pad = 0;
  double coherent_gain = nan;                  ///< Σw / (N max|w|)
  double enbw_bins = nan;                      ///< N Σw² / (Σw)²
  double scalloping_loss_db = nan;             ///< −20 log10 |W(½)| / |W(0)|
  double worst_case_processing_loss_db = nan;  ///< scalloping + 10 log10 ENBW
  double bandwidth_3db_bins = nan;             ///< full width where |W| = |W(0)|/√2 (half power)
  double bandwidth_6db_bins = nan;             ///< full width where |W| = |W(0)|/2 (half amplitude)
  double first_min_bins = nan;                 ///< first local minimum of |W| beyond the main peak
  double first_min_db = nan;                   ///< its level re |W(0)| (very negative for a null)
  bool first_min_is_null = false;              ///< level below −200 dB (a true zero of the DTFT)
  double highest_sidelobe_db = nan;            ///< largest local maximum beyond the first minimum
                                     ///< (−inf if none, or if it is below −240 dB, the
                                     ///< rounding floor of the DTFT)
  double highest_sidelobe_bins = nan;  ///< its frequency
  double sidelobe_falloff_db_per_octave =
      nan;  ///< asymptotic slope (see merit::sidelobe_falloff_db_per_octave); NaN: not measurable
  double overlap_correlation_50 = nan;  ///< Σ w[n]w[n+N/2] / Σ w² (a fraction)
  double overlap_correlation_75 = nan;  ///< Σ w[n]w[n+N/4] / Σ w²
  double leakage_factor = nan;          ///< energy outside |f| < first_min_bins / total
  bool is_causal_exponential = false;   ///< w[n] = w[0] r^n with 0 < r ≤ 1
  double decay_ratio = nan;             ///< r (causal exponential only)
  double truncation_ripple_db = nan;    ///< peak-to-peak of |W|/envelope in dB (exp. only)
};

/// Figures of merit of the real window w (length N ≥ 1, Σw ≠ 0, main lobe at f = 0). The grid
/// |W(k/pad)| (FFT of length pad·N) only locates extrema and crossings; each is then refined by
/// TOMS 748 on the exact DTFT (crossings: |W| − level; extrema: d|W|²/df = 2 Re(conj W · W′)).
/// Throws std::invalid_argument when Σw = 0 or w is not finite. The figures are scale-invariant:
/// w is first divided by a power of two near max|w| (exact), so no scale overflows. `cancel` (may
/// be null) is checked between the stages (throws mc::Cancelled when set); one FFT of length
/// pad·N is a single uninterruptible FFTW call.
/// Working memory: about 5·pad·N doubles.
FiguresOfMerit figures_of_merit(const double* w, std::size_t N, std::size_t pad,
                                const std::atomic<bool>* cancel = nullptr);

/// The stages of figures_of_merit, each computing one group of figures (exposed for tests).
/// w is a real window of length N (finite, Σw ≠ 0 where stated); frequencies in bins.
namespace merit {

/// Σw, Σ|w|, Σw², max|w| (sequential sums). Throws std::invalid_argument when N = 0, w is not
/// finite, or Σw = 0 to rounding (|Σw| ≤ 1e-13 Σ|w|).
struct WindowSums {
  double sum = 0, sum_abs = 0, sum_sq = 0, max_abs = 0;
};
WindowSums window_sums(const double* w, std::size_t N);

/// Σ_n w[n] w[n + shift] / Σw² (0 when shift ≥ N).
double overlap_correlation(const double* w, std::size_t N, std::size_t shift, double sum_sq);

/// The figures that need no search: coherent gain, ENBW, scalloping loss (exact DTFT at ½ bin),
/// worst-case processing loss, overlap correlations at shifts N/2 and N/4.
struct GainFigures {
  double coherent_gain, enbw_bins, scalloping_loss_db, worst_case_processing_loss_db;
  double overlap_correlation_50, overlap_correlation_75;
};
GainFigures gain_figures(const double* w, std::size_t N, const WindowSums& sums);

/// |W(k/pad)| and the sign carrier Im(conj X·Y) of d|W|²/df (Y = FFT of n·w) for k = 0..pad·N/2,
/// from two FFTs of length pad·N; W0 = |Σw|. Throws std::invalid_argument when pad = 0 or when
/// |W| exceeds |W(0)| somewhere (not a lowpass window).
struct SpectrumGrid {
  std::size_t pad = 0;
  double nyquist = 0;  ///< N/2
  double W0 = 0;
  std::vector<double> mag, slope;
  double freq(std::size_t k) const {
    return std::min(static_cast<double>(k) / static_cast<double>(pad), nyquist);
  }
};
SpectrumGrid spectrum_grid(const double* w, std::size_t N, std::size_t pad,
                           const std::atomic<bool>* cancel = nullptr);

/// The first local minimum of |W| beyond f = 0, refined on the exact DTFT; N/2 when |W|
/// never rises again (no sidelobes).
double first_minimum_bins(const double* w, std::size_t N, const SpectrumGrid& grid,
                          const std::atomic<bool>* cancel = nullptr);

/// Full width of the main lobe where |W| first falls below level_ratio·|W(0)| (√½: Harris's
/// 3-dB width, ½: his 6-dB width), refined by TOMS 748; NaN if it never does before the first
/// minimum.
double main_lobe_width_bins(const double* w, std::size_t N, const SpectrumGrid& grid,
                            double level_ratio, double first_min_bins,
                            const std::atomic<bool>* cancel = nullptr);

/// The largest local maximum of |W| beyond the first minimum. found: some local maximum exists;
/// level_db = −inf (and bins NaN) when none does or when it is below −240 dB.
struct Sidelobe {
  bool found = false;
  double level_db = -std::numeric_limits<double>::infinity();
  double bins = std::numeric_limits<double>::quiet_NaN();
};
Sidelobe highest_sidelobe(const double* w, std::size_t N, const SpectrumGrid& grid,
                          double first_min_bins, const std::atomic<bool>* cancel = nullptr);

/// Energy of W outside |f| < main_lobe_bins over the total (exact, from the autocorrelation).
double leakage_factor(const double* w, std::size_t N, double main_lobe_bins);

/// Degree of the least-squares polynomials of smoothness_order (the check uses one degree less).
constexpr int kSmoothDegree = 10;
/// Highest derivative order smoothness_order resolves (a jump there falls off at −48 dB/octave).
constexpr int kMaxSmoothnessOrder = 7;

/// The fewest samples whose fall-off is measured: the end fits need kSmoothDegree + 4 = 14
/// samples, and over more than 7/32 of the window (N < 64) a polynomial of degree 10 misses the
/// bend of its cosines by more than its error estimate (Blackman and cos^4 at N = 56 and 57 read a
/// kink, −12.04, where the ends' orders are 2 and 4).
constexpr std::size_t kMinFalloffLength = 64;

/// smoothness_order's "not measurable": fewer than kMinFalloffLength samples, samples that are not
/// those of a piecewise smooth function, or an interior join within 14 samples of an end.
constexpr int kNotMeasurable = -2;
/// The most the fitted slopes of the lower and upper halves of the far band may differ (dB/octave)
/// for the fit to count as an asymptote.
constexpr double kAsymptoteToleranceDb = 1.0;

/// The order p of the lowest derivative of the zero-extended window that jumps, measured from the
/// samples: a jump in the p-th derivative makes |W| fall off as f^−(p+1), −6.02(p+1) dB/octave.
/// Ends: polynomials of degree 10 (and 9, for the error) fitted by least squares to the first M + 1
/// samples, M = clamp(N/8, 14, 256) ≤ N/4 but stopping halfway (but not under 14 samples) to the
/// first peak of |Δ⁴w| near the end (an interior join, e.g. where Tukey's taper meets its flat
/// part: a fit through it is biased, and one over all of the piece misses its derivatives), and
/// compared with zero at the end sample, half a sample beyond it (windows sampled at half-integers)
/// or one sample beyond it (the right end of a DFT-even window), not in between (the curve through
/// a steep end crosses zero there); the right end too unless w is symmetric or DFT-even. Interior:
/// at each of the ≤ 8 largest peaks of |Δ⁴w|, polynomials fitted on either side (32 samples each)
/// compared inside the stencil, at the grid's best point and where the values meet (a touching
/// contact lies between grid points). A Taylor coefficient counts as zero within 4 times its fit
/// error or when its term in |W| at f = N/32 is below −240 dB. Returns p ∈ [0,
/// kMaxSmoothnessOrder]; kMaxSmoothnessOrder + 1 when no jump is resolved (smoother than double
/// precision shows, e.g. a Gaussian at its rounding floor); −1 when an end sample lies off the
/// curve through its neighbours by more than 30 times the fit error plus 1e-12 |W(0)| and ten times
/// more than the next sample lies off its own (an impulse, the derivative of a jump, like
/// Dolph–Chebyshev's end samples: its transform does not decay, 0 dB/octave); kNotMeasurable (−2)
/// when N < 64, the samples are not those of a piecewise smooth function (median |Δ⁴w| > 1e-2
/// max|w|), or a join lies within 14 samples of an end.
int smoothness_order(const double* w, std::size_t N);

/// smoothness_order with square-root ends recognised (square_root_ends = true): an end where w²,
/// fitted as (u − s)·P(u) vanishing simply at the end point s, fits at least 100 times better (rms
/// in w) than the polynomial end fit of w itself, above −240 dB of max|w| (w ~ (n − n₀)^½:
/// Kaiser–Bessel-derived, cos^½; sidelobes falling off at −6.02·1.5 ≈ −9 dB/octave) is left out
/// of `order` and sets `square_root_end`. Where no end is one, or square_root_ends is false,
/// `order` is smoothness_order's; kMaxSmoothnessOrder + 1 when the square-root ends are all that
/// is not smooth.
///
/// `ambiguous_end` (square_root_ends only): an end read as a jump (order 0, counted in `order`)
/// that the square-root test does not recognise but whose first two samples are also those of a
/// square-root end narrower than a sample — w[1]² ≥ 2 w[0]² with w[0]·w[1] > 0: the chord of w²
/// through them vanishes within one sample beyond the end — while nothing else falls off as slowly
/// (every other end and join is smoother than a jump). The fall-off is then −6.02 or −9.03
/// dB/octave, which the samples cannot tell apart (see sidelobe_falloff_db_per_octave).
///
/// `power_end` (square_root_ends only): the smallest exponent a of the ends that the square-root
/// test does not recognise but whose samples are those of a power, w = (u − s)^a·exp(Q(u)) with Q
/// a polynomial (log w fitted by least squares with Q of degrees 3 and 2: a agrees within 0.01 and
/// the rms misfit in log w is below 1e-4), a at least 0.05 from every integer (cos^1.5: a = 1.5,
/// |W| ~ f^−2.5). Such an end has no Taylor expansion (the polynomial fit reads an integer order
/// that is not there) and is left out of `order`; −1 when there is none.
///
/// `hidden_jump`: an end read as vanishing (order ≥ 1 at every end point that reaches it) only
/// because its fitted value there is zero within 4 times the fit's error, while that value and
/// the end sample are both visible (above the −240 dB level of a jump in |W| at N/32): a jump the
/// samples cannot resolve (Kaiser β = 20 at N = 128, end value 2.3e-8 max|w|), and nothing else
/// falls off as slowly (order > 0).
///
/// `ambiguous_impulse`: an end, neither a square-root nor a power end, whose end sample lies off
/// the curve through the next ones by more than 4 times the fit's error plus 1e-12 |W(0)| (a
/// nonzero difference by the house test) but not by the impulse test's 30 times, and ten times
/// more than the next sample lies off its own: an impulse (0 dB/octave) or the fit missing a steep
/// end, which the samples cannot tell apart (Dolph–Chebyshev at 200 dB, N = 512).
struct Smoothness {
  int order = kNotMeasurable;
  bool square_root_end = false;
  bool ambiguous_end = false;
  double power_end = -1.0;
  bool hidden_jump = false;
  bool ambiguous_impulse = false;
};
Smoothness smoothness(const double* w, std::size_t N, bool square_root_ends);

/// The exponent a of the slowest singularity that `sm` (smoothness(w, N, true)) finds, so that
/// |W| ~ f^−(a+1): the smallest of the order p elsewhere, ½ at a square-root end and the exponent
/// of a non-integer power end (Smoothness::power_end), unless p is kNotMeasurable. May be
/// kNotMeasurable or kMaxSmoothnessOrder + 1 (p's special values). An ambiguous end
/// (Smoothness::ambiguous_end) counts as the jump its polynomial fit reads (0).
double falloff_order(const Smoothness& sm);

/// Asymptotic sidelobe fall-off (dB per octave): −20 log10(2)·(a + 1) with a =
/// falloff_order(smoothness(w, N, true)) when a is in [−1, kMaxSmoothnessOrder] (−1 for an end
/// impulse; ½ for a square-root end, −9.03: w ~ (n − n₀)^½ has no Taylor expansion, and its
/// transform falls off as f^−1.5; the exponent of a non-integer power end, Smoothness::power_end:
/// −15.05 for cos^1.5), unless
/// the far band is an asymptote over at least 32 points in each half with a slope more than
/// kAsymptoteToleranceDb away (for an impulse: at least a whole order steeper): then that slope if
/// it lies within kAsymptoteToleranceDb of −6.02(k + 1) for an integer k, NaN if not (a
/// transition, or a power the samples do not show: Kaiser–Bessel-derived β = 16 at N = 1024),
/// except for a band steeper than an integer order a = p ≥ 0 and within kAsymptoteToleranceDb of
/// another integer order's slope (a transition: Poisson α = 6 at N = 256), where −6.02(p + 1)
/// stands; NaN where a shorter band is an asymptote (slope <= 0) more than half an order from
/// −6.02(a + 1) and more than kAsymptoteToleranceDb from −6.02(k + 1) for every k in [−1,
/// kMaxSmoothnessOrder] (a non-integer power at the end that the square-root and power tests do not
/// recognise). NaN at an ambiguous impulse (Smoothness::ambiguous_impulse) unless an end is an
/// impulse. Where an end may hide a jump (Smoothness::hidden_jump): −6.02 if the far band is an
/// asymptote (FittedBand::asymptotic_slope) within kAsymptoteToleranceDb of it, else NaN. NaN where
/// the order is decided by an ambiguous end (Smoothness::ambiguous_end: a small jump or a square
/// root narrower than a sample) unless the far band is an asymptote over at least 32 points in each
/// half (it then decides, as above). Otherwise the slope of the far band
/// (FittedBand::asymptotic_slope) if it is an asymptote: −inf when the band is at the rounding
/// floor; for p = kMaxSmoothnessOrder + 1 only a slope steeper
/// than −6.02(kMaxSmoothnessOrder + 1); for p = kNotMeasurable only a slope <= 0, only for
/// N >= 64, and only if the band starts beyond 2N/L bins, L the distance of the nearest join to an
/// end. NaN ("not measurable") in every other case: never positive, never the slope of a
/// transition.
double sidelobe_falloff_db_per_octave(const double* w, std::size_t N, double first_min_bins);

/// The far band of fitted_falloff_db_per_octave and what lies in it.
struct FittedBand {
  double Nd = 0, f_lo = 0, f_hi = 0;
  bool long_enough = false;    ///< f_hi >= 1.5 f_lo
  bool at_floor = false;       ///< fewer than 4 grid points above −240 dB in the band
  std::vector<double> xs, ys;  ///< sidelobe peaks (bins, dB re |W(0)|), parabolic interpolation
  std::vector<double> xa, ya;  ///< every grid point above the floor (bins, dB)
  /// The fitted slope of the peaks (of |W| itself when there are fewer than 8 peaks) over the
  /// band, if at least 4 points lie in each half (split at sqrt(f_lo f_hi)) and the slopes of the
  /// halves agree within kAsymptoteToleranceDb; otherwise NaN.
  double asymptotic_slope() const;
  /// The fitted slopes of the whole band and of its lower and upper halves (NaN where a part
  /// holds fewer than 4 points), and the number of points in each half.
  struct Slopes {
    double all, lower, upper;
    std::size_t n_lower, n_upper;
  };
  Slopes slopes() const;
};
FittedBand fitted_band(const double* w, std::size_t N, double first_min_bins);

/// Fitted sidelobe fall-off (dB per octave): least-squares slope of the sidelobe peaks
/// (parabolic interpolation on a 1/8-bin grid) against log2 sin(πf/N), with an s² = sin²(πf/N)
/// column for the periodicity of the DTFT, over f ∈ [f_lo, f_hi], f_lo = max(4 first_min_bins,
/// N/32), f_hi = min(max(N/8, 2 f_lo), 3N/8) (a first minimum beyond N/16 that is not a null, below
/// −200 dB, counts as 0). Without at least 4 distinct peaks there, the slope of |W| itself on the
/// grid; −inf when |W| is below the rounding floor (−240 dB) throughout the band; NaN when the band
/// is shorter than 1.5:1 (small N). Unchecked: a slope over whatever the band holds (a transition
/// at small N); sidelobe_falloff_db_per_octave uses it only where it is an asymptote.
double fitted_falloff_db_per_octave(const double* w, std::size_t N, double first_min_bins);

/// w[n] = w[0] rⁿ with 0 < r ≤ 1: r and the ripple 20 log10((1 + rᴺ)/(1 − rᴺ)) of |W| against
/// the N → ∞ envelope (evaluated on the exact DTFT).
struct CausalExponential {
  bool is_causal_exponential = false;
  double decay_ratio = std::numeric_limits<double>::quiet_NaN();
  double truncation_ripple_db = std::numeric_limits<double>::quiet_NaN();
};
CausalExponential causal_exponential(const double* w, std::size_t N);

}  // namespace merit

/// Leakage of the causal exponential (SSM) window over α × ω grids (α per sample).
struct LeakageMap {
  std::size_t N = 0;
  std::vector<double> alpha;  ///< A decays per sample (row i: the window e^{−alpha[i]·n})
  std::vector<double> omega;  ///< W values of ω (rad/sample)
  std::vector<FiguresOfMerit> window;      ///< A: figures of merit of e^{−αn}
  std::vector<double> scalloping_db;       ///< A×W: loss of a tone at ω read at its nearest bin
  std::vector<double> bin_leakage_factor;  ///< A×W: DFT energy outside the nearest bin / total
  std::vector<double> far_leakage_db;      ///< A×W: largest DFT bin ≥ 2 bins from ω, dB re peak
                                           ///< (−inf below −240 dB, the rounding floor)
};

/// Computes the map for the A decays per sample `alpha` (the window of row i is e^{−alpha[i]·n});
/// `cancel` (may be null) is checked between rows (throws mc::Cancelled when set).
LeakageMap leakage_map(const double* alpha, std::size_t A, const double* omega, std::size_t W,
                       std::size_t N, std::size_t pad, const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::spectra
