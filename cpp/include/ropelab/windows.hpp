#pragma once
/// \file windows.hpp
/// Data windows of length N, n = 0..N−1: every window of scipy.signal.windows (sample-equal to
/// scipy 1.17) and every row of Harris 1978 (Proc. IEEE 66(1)), Table 1.
///
/// Conventions. A window is *symmetric* (sym = true, scipy's default, for filter design) or
/// *DFT-even* (sym = false, Harris's convention for spectral analysis, ropelab's default): the
/// DFT-even window of length N is the symmetric window of length N + 1 without its last sample.
/// Windows written below with a span L and a centred coordinate x = (n − L/2)/(L/2) ∈ [−1, 1]
/// use L = N − 1 (symmetric) or L = N (DFT-even). N = 0 gives an empty window and N = 1 gives {1}
/// for every window (as scipy), after the parameter checks.
/// Windows that are only defined one way refuse the other with std::invalid_argument:
/// kaiser_bessel_derived is symmetric only (and N even), the causal SSM window (ssm) and an
/// exponential with an explicit centre are DFT-even only. Nothing is silently ignored.
///
/// Every window is one row of table() (a WindowRow: name, parameters with their ranges and
/// defaults, symmetry, sampler, fall-off order, scipy twin, Harris 1978 row); make_window_params,
/// names(), parameter_info() and the Python/CLI/docs lists are all read from it.
///
/// Windows (aliases in brackets; parameter alternatives after "|"):
///   * rectangular [boxcar]: 1.  triangular [bartlett]: 1 − |x|.
///   * cosine sums Σ_k (−1)^k a_k cos(2πkn/L): hann, hamming (0.54, 0.46), blackman
///     (0.42, 0.5, 0.08), exact_blackman (7938, 9240, 1430)/18608, blackman_harris_3 (Harris's
///     "−67 dB" 3-term 0.42323, 0.49755, 0.07922), blackman_harris_3_61 (0.44959, 0.49364,
///     0.05677), blackman_harris_4 [blackmanharris] (0.35875, 0.48829, 0.14128, 0.01168),
///     blackman_harris_4_74 (0.40217, 0.49703, 0.09892, 0.00188), kaiser_bessel_4 (Harris's
///     4-term Kaiser–Bessel, α = 3: 0.40243, 0.49804, 0.09831, 0.00122), nuttall (0.3635819,
///     0.4891775, 0.1365995, 0.0106411), flattop (0.21557895, 0.41663158, 0.277263158,
///     0.083578947, 0.006947368), general_cosine(a), general_hamming(alpha): (α, 1 − α).
///   * gaussian(std | alpha): exp(−(n − L/2)²/(2 std²)); Harris's α = (L/2)/std: exp(−½(αx)²).
///   * general_gaussian(p, sig): exp(−½ |(n − L/2)/sig|^{2p}).
///   * poisson(alpha | tau): exp(−α|x|); scipy's exponential with centre L/2 and tau = (L/2)/α.
///   * exponential(tau = 1, center): scipy's exp(−|n − center|/tau), center = L/2 by default (a
///     given center needs sym = false, as in scipy).
///   * ssm(alpha): the causal window e^{−αn} of a diagonal SSM mode decaying α per sample
///     (DFT-even only; not in scipy or Harris).
///   * kaiser(beta | alpha): I0(β√(1 − x²))/I0(β); Harris's α = β/π.
///   * kaiser_bessel_derived(beta): scipy's KBD window (symmetric only, N even).
///   * chebyshev [chebwin](at | attenuation | alpha): Dolph–Chebyshev with sidelobes at −at dB
///     (Harris's α: at = 20α), scipy's construction (an inverse DFT of T_{M−1}(x0 cos(πk/M))).
///   * taylor(nbar = 4, sll = 30, norm = 1): scipy's Taylor window.
///   * dpss(NW, norm = approximate): first discrete prolate spheroidal sequence, from the
///     symmetric tridiagonal eigenproblem of Percival & Walden (1993) (largest eigenvalue by
///     Sturm bisection, eigenvector by inverse iteration: LAPACK's stebz/stein method, which
///     scipy calls); positive mean; norm "approximate" (peak 1 times M²/(M² + NW) for even M),
///     "2" (unit ℓ²) or "subsample" (scipy's FFT-shift correction).
///   * tukey(alpha = 0.5): cosine-tapered, taper fraction α (Harris's α of Table 1).
///   * barthann, bohman, cosine (sin(π(n + ½)/M)), lanczos [riemann] (sinc x), parzen, triang:
///     as scipy.
///   * cosine_power(alpha): cos^α(πx/2) = sin^α(πn/L) (Harris's cos^α; α = 2 is hann).
///   * riesz: 1 − x². de_la_vallee_poussin: 1 − 6x²(1 − |x|) (|x| ≤ ½), 2(1 − |x|)³ (Harris's
///     sampling on x; scipy's parzen is the same curve sampled with scale M/2).
///   * hann_poisson(alpha): ½(1 + cos πx) e^{−α|x|}.  cauchy(alpha): 1/(1 + (αx)²).
///   * barcilon_temes(alpha): Harris eq. for the Barcilon–Temes transform
///     W = [A cos y + B (y/C) sin y]/[(C + AB)((y/C)² + 1)], C = arccosh 10^α, β = cosh(C/(M−1)),
///     A = sinh C, B = cosh C, y = (M − 1) arccos(β cos(πk/M)), inverted like chebyshev.

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ropelab::spectra::windows {

/// Parameters of make_window: numbers (bools as 0/1), arrays (general_cosine's a) and options
/// (dpss's norm).
struct Params {
  std::map<std::string, double> values;
  std::map<std::string, std::vector<double>> arrays;
  std::map<std::string, std::string> options;
};

/// The values a numeric parameter may take: lo ≤ v ≤ hi (strict where open), an integer where
/// `integer`; `text` says so in words ("> 0", "in [0, 700]", ...) for the error message.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false, integer = false;
  std::string text = "finite";
  bool contains(double v) const;
};

/// One parameter of a window: its name (scipy's where scipy has one), the alternative names that
/// may be given instead (Harris's convention), whether it is required, its default, a one-line
/// description, and the range of each name (`range` for `name`, `alternative_ranges[i]` for
/// `alternatives[i]`; checked for numeric values).
struct ParameterInfo {
  std::string name;
  std::vector<std::string> alternatives;
  bool required;
  std::string default_value;  ///< "" when required
  std::string description;
  Range range;
  std::vector<Range> alternative_ranges;
};

/// The symmetry conventions a window has.
enum class Symmetry { both, symmetric, dft_even };

/// Pieces of make_window_params, exposed for their tests and for the samplers.
namespace detail {

/// The parameters of a call checked against the window's specification.
struct Resolved {
  std::string name;                         ///< canonical window name
  std::map<std::string, std::string> used;  ///< primary name → the name given ("" if none)
  double p = 0;                             ///< the main (first required) parameter as given
  std::string pkey;                         ///< the name it was given under
};

}  // namespace detail

/// A window's sampler: the window of length N ≥ 2 (DFT-even unless sym) from its checked
/// parameters.
using Sampler = std::function<std::vector<double>(const detail::Resolved& r, const Params& params,
                                                  std::size_t N, bool sym)>;
/// Checks of a window's parameters against N, sym or each other (beyond each one's Range); run
/// before N = 1 gives {1}, so that N = 1 refuses what larger N refuse.
using Check =
    std::function<void(const detail::Resolved& r, const Params& params, std::size_t N, bool sym)>;

/// One window: a row of table().
struct WindowRow {
  std::string name;                       ///< canonical name
  std::vector<ParameterInfo> parameters;  ///< required ones first
  Symmetry symmetry;
  Sampler sampler;
  Check check;  ///< empty: no check beyond the ranges
  /// The order p of the zero-extended window's least regular point, at the `reference`
  /// parameters: its sidelobes fall off at −6.02(p + 1) dB/octave. An integer p where the p-th
  /// derivative jumps, ½ at a square-root end (w ~ (n − n₀)^½: Kaiser–Bessel-derived), as
  /// spectra::merit::falloff_order measures it at N = 4096; −1 when there is no such point
  /// (equiripple or smoother than double precision resolves).
  double falloff_order;
  std::map<std::string, double> reference;  ///< parameters of the fall-off row (Harris's if any)
  std::string scipy_name;                   ///< the scipy.signal.windows twin ("" if none)
  std::string harris_name;                  ///< its name in Harris 1978, Table 1 ("" if not there)
  std::vector<std::string> aliases;         ///< other names accepted for it (scipy's, Harris's)
  std::string definition;                   ///< one line: its formula or source
  /// Parameters of a scipy twin that are refused, with the reason.
  std::vector<std::pair<std::string, std::string>> refused = {};
};

/// Every window, one row each, in a fixed order.
const std::vector<WindowRow>& table();

/// The row of `name` (a canonical name or an alias); throws std::invalid_argument for an unknown
/// name, suggesting the closest known one.
const WindowRow& row(const std::string& name);

/// Canonical names accepted by make_window (aliases not included), in table() order.
const std::vector<std::string>& names();

/// (alias, canonical name) pairs (scipy's and Harris's names for the same window), from the rows.
const std::vector<std::pair<std::string, std::string>>& aliases();

/// The canonical name of `name` (itself, or the window it is an alias of); throws
/// std::invalid_argument for an unknown name, suggesting the closest known one.
std::string canonical_name(const std::string& name);

/// The required parameters of a window, under their primary names (empty if none).
std::vector<std::string> parameters(const std::string& name);

/// Every parameter a window accepts.
std::vector<ParameterInfo> parameter_info(const std::string& name);

/// "both", "symmetric" (sym = true only) or "dft-even" (sym = false only).
std::string symmetry(const std::string& name);

/// The window `name` of length N ≥ 0 (DFT-even unless sym; N = 0: empty). Throws
/// std::invalid_argument (with a message naming the argument and value) for an unknown name, a
/// missing, unknown, duplicated or out-of-range parameter, N > limits::kMaxSignalLength, or a
/// `sym` the window does not have.
std::vector<double> make_window_params(const std::string& name, std::size_t N, bool sym,
                                       const Params& params);

/// The first `Kmax` discrete prolate spheroidal sequences (Slepian tapers) of length N and their
/// concentration ratios (scipy.signal.windows.dpss with an integer Kmax).
struct DpssTapers {
  std::vector<std::vector<double>> tapers;  ///< Kmax rows of N samples, by decreasing ratio
  std::vector<double> ratios;               ///< the ratios λ_k (empty unless asked for)
};

/// Percival & Walden (1993, §8.3): the eigenvectors of the symmetric tridiagonal matrix with
/// diagonal ((M − 1 − 2n)/2)² cos(2πW) and off-diagonal n(M − n)/2, W = NW/M, M = N (sym) or
/// N + 1 (DFT-even, the last sample dropped), for its Kmax largest eigenvalues (Sturm bisection,
/// then inverse iteration, orthogonalised against the tapers of the same parity); taper k is
/// made exactly even (k even) or odd (k odd). Signs (P&W p. 379): even tapers have a positive
/// sum, odd ones begin (first sample with w² > max(1e−7, 1/M)) positive. Ratios (P&W p. 390):
/// λ_k = Σ_j r_k[j] s[j] with r_k the autocorrelation of the unit-ℓ² taper of length M and
/// s[0] = 2W, s[j] = 4W sinc(2Wj). norm: "2" (unit ℓ², the tapers as computed), "approximate"
/// (divided by the largest sample of all tapers, times M²/(M² + NW) for even M) or "subsample"
/// (that, with scipy's FFT-shift correction of taper 0). N = 0: no samples; N = 1: one taper
/// {1} with ratio 1 (scipy's degenerate case). Throws std::invalid_argument for Kmax ∉ [1, M]
/// (N ≥ 2), NW ∉ (0, N/2), an unknown norm or N > limits::kMaxSignalLength.
DpssTapers dpss_tapers(std::size_t N, double NW, std::size_t Kmax, bool sym,
                       const std::string& norm, bool ratios);

/// make_window_params with numeric parameters only.
std::vector<double> make_window(const std::string& name, std::size_t N, bool sym,
                                const std::map<std::string, double>& params);

namespace detail {

/// Checks that every given parameter is known, finite and in its range, given under one name
/// only, and that the required ones are present (std::invalid_argument otherwise). `name` must be
/// canonical or an alias.
Resolved resolve_parameters(const std::string& name, const Params& params);

/// Sets r.p and r.pkey from the first required parameter (not general_cosine's array a).
void read_main_parameter(Resolved& r, const Params& params);

/// The numeric value of a parameter given under `key` (not an array or an option).
double number(const Params& params, const std::string& key);

/// taylor's options with their defaults (nbar = 4, sll = 30 dB, norm = true).
struct TaylorOptions {
  int nbar = 4;
  double sll = 30;
  bool norm = true;
};
TaylorOptions parse_taylor(const Resolved& r, const Params& params);

/// dpss's norm: "approximate" (default), "subsample" or "2".
std::string parse_dpss_norm(const Resolved& r, const Params& params);

/// general_cosine's coefficients a (1 to 1000 finite numbers; a scalar is one coefficient).
std::vector<double> parse_general_cosine(const Params& params);

}  // namespace detail

}  // namespace ropelab::spectra::windows
