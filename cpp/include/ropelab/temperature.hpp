#pragma once
/// \file temperature.hpp
/// Temperature σ of random-feature estimators (MATH.md §2): the paper's tan rule (Theorem 1),
/// the bias-zeroing σ per convention, the finite-D MSE optimum by the closed-form cubic and,
/// independently, by Boost.Math's Brent minimiser, the ξ = ½ counterexample and the temperature
/// spectra over channels.

#include <cstddef>
#include <string>
#include <vector>

#include "ropelab/rff.hpp"

namespace ropelab::temperature {

/// The paper's rule σ = tan(½ arccos ξ), evaluated as √((1−ξ)/(1+ξ)); +inf at ξ = −1.
double paper_sigma(double xi);

/// The σ that makes the trig estimator unbiased for unit norms: 1 for the conjugate product, the
/// tan rule for the literal (unconjugated) one. Random-phase: 1; positive: 1.
double unbiased_sigma(double xi, Estimator est, rff::Convention conv);

/// Unique real root of the depressed cubic t³ + p t + r = 0 for p ≥ 0 (Cardano, hyperbolic form).
double depressed_cubic_root(double p, double r);

/// MSE-optimal σ for D features by the closed-form cubic (MATH.md §2), polished by Newton steps
/// on the same equation. When every σ gives the same MSE (q = k for the conjugate trig and
/// random-phase estimators, q = −k for the literal and positive ones) the result is 1.
double optimal_sigma_cubic(const rff::Pair& p, double D, Estimator est, rff::Convention conv);

/// The same optimum found without the cubic: Boost.Math brent_find_minima on the closed-form MSE,
/// evaluated in long double so the minimiser resolves σ* to ~1e-10 relative.
double optimal_sigma_brent(const rff::Pair& p, double D, Estimator est, rff::Convention conv);

/// The numbers of the paper's counterexample at ξ (unit norms, trig estimator).
struct Counterexample {
  double xi;
  double sigma_paper;         ///< tan(½ arccos ξ)
  double sigma_paper_sq;      ///< (1−ξ)/(1+ξ)
  double mean_paper;          ///< E[K̂] at σ_paper, conjugate product: exp(1 − σ²(1−ξ))
  double target;              ///< exp(ξ)
  double mean_sigma1;         ///< E[K̂] at σ = 1, conjugate product
  double mean_paper_literal;  ///< E[K̂] at σ_paper, literal product: exp(1 − σ²(1+ξ))
  double target_literal;      ///< what the literal product estimates at σ = 1: exp(−ξ)
};
Counterexample counterexample(double xi);

/// How optimal_sigma is computed: the closed-form root of the stationarity cubic, or Brent's
/// minimiser on the closed-form MSE.
enum class SigmaMethod { cubic, brent };
const std::vector<std::string>& sigma_method_names();  ///< "cubic", "brent" (enum order)
SigmaMethod parse_sigma_method(const std::string& name);

/// The shape of a temperature spectrum: RoPE's geometric frequencies or the tan-shaped
/// temperatures of random features.
enum class SpectrumKind { rope, rfa };
const std::vector<std::string>& spectrum_kind_names();  ///< "rope", "rfa" (enum order)
SpectrumKind parse_spectrum_kind(const std::string& name);

/// Temperature spectrum over channels j = 0..d/2−1 (paper Fig. 2; authors' code):
///   rope: Θ_j = temp_max · base^(−2j/d)  (squared must be false)
///   rfa:  φ_j = linspace(0, θ_max·π, d/2), Θ_j = tan(φ_j/2) (or tan²(φ_j/2) when squared),
///         rescaled so that max_j Θ_j = temp_max.
std::vector<double> spectrum(std::size_t d, SpectrumKind kind, double base, double theta_max,
                             double temp_max, bool squared);

}  // namespace ropelab::temperature
