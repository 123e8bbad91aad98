#pragma once
/// \file transition.hpp
/// Effective transition matrices of gated Selective RoPE (MATH.md §4), commutators, spectral
/// norms and eigenvalues (Eigen SVD / eigen-solver), Householder reflections and the generalised
/// Householder I − βwwᵀ, and the PRF transition factor. Matrices are row-major.

#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include <atomic>

#include "ropelab/recurrence.hpp"
#include "ropelab/rotary.hpp"

namespace ropelab::transition {

/// A^eff = C_{t−1}ᵀ Λ_t C_t (d×d) with C = blockdiag R(ψ) in `layout`; `gates` holds the diagonal
/// of Λ_t as described by recurrence::Gates (row t = 0 is used). C is block diagonal, so is A^eff:
/// it is computed block by block (O(d) products, O(d²) zeros), not as dense d×d products. `cancel`
/// (here and below, may be null) is checked every ~2^16 steps (throws mc::Cancelled).
void effective(const double* angles_prev, const double* angles, const recurrence::Gates& gates,
               std::size_t d, rotary::Layout layout, double* out,
               const std::atomic<bool>* cancel = nullptr);

/// A^eff_t for t = 0..T−1 (T×d×d) with ψ_{−1} = 0: the transitions that make linear_attention
/// reproduce gated Selective RoPE.
void effective_sequence(const double* angles, std::size_t T, const recurrence::Gates& gates,
                        std::size_t d, rotary::Layout layout, double* out,
                        const std::atomic<bool>* cancel = nullptr);

/// Which matrix norm.
enum class Norm { spectral, frobenius };
Norm parse_norm(const std::string& name);      ///< "2" | "fro"
const std::vector<std::string>& norm_names();  ///< the Norm names, in enum order

/// ‖Λ C − C Λ‖ with C = blockdiag R(ψ) (ψ has d/2 entries), Λ = diag(gates row 0). The commutator
/// is block diagonal with 2×2 blocks [[0, (λ_{c1} − λ_{c0}) sin ψ_i], [(λ_{c1} − λ_{c0}) sin ψ_i,
/// 0]] up to signs: its norms are taken block by block in O(d).
double commutator_norm(const double* angles, const recurrence::Gates& gates, std::size_t d,
                       rotary::Layout layout, Norm norm);

/// Singular values of the m×n matrix A, in decreasing order (min(m, n) of them).
void singular_values(const double* A, std::size_t m, std::size_t n, double* out);
/// Largest singular value ‖A‖₂ (0 for an empty matrix).
double spectral_norm(const double* A, std::size_t m, std::size_t n);
/// Eigenvalues of the n×n matrix A (Eigen's real Schur based EigenSolver), sorted by decreasing
/// modulus then by argument.
void eigenvalues(const double* A, std::size_t n, std::complex<double>* out);

/// H(w) = I − 2wwᵀ/‖w‖² (d×d); w ≠ 0.
void householder(const double* w, std::size_t d, double* out,
                 const std::atomic<bool>* cancel = nullptr);
/// H(w_{m−1}) ⋯ H(w_1) H(w_0) for the m rows of W (m×d); the identity for m = 0.
void householder_product(const double* W, std::size_t m, std::size_t d, double* out);
/// I − β ŵŵᵀ with ŵ = w/‖w‖ (eigenvalue 1 − β along ŵ, 1 elsewhere).
void generalized_householder(const double* w, std::size_t d, double beta, double* out,
                             const std::atomic<bool>* cancel = nullptr);

/// PRF transition factors out[t−1, j] = exp(ω_j·(q_t − q_{t−1})) for t = 1..T−1 (omega D×d). When
/// a difference or product overflows a double on the way, the exponent is evaluated again at a
/// power-of-two scale (never NaN for finite input); a factor beyond a double is inf, below one 0.
void prf_transition_factor(const double* q, std::size_t T, std::size_t d, const double* omega,
                           std::size_t D, double* out);

/// Distribution of e^{ω·Δ} for ω ~ N(0, σ² I) and a fixed step Δ with ‖Δ‖ = delta_norm: the
/// exponent is N(0, s²), s = σ‖Δ‖, so the factor is log-normal.
struct FactorDistribution {
  double mean;         ///< e^{s²/2} (≥ 1: the factor is not bounded by 1)
  double variance;     ///< (e^{s²} − 1) e^{s²}
  double median;       ///< 1
  double prob_gt_one;  ///< P(factor > 1) = 1/2 for s > 0, 0 for s = 0
};
FactorDistribution prf_factor_distribution(double delta_norm, double sigma);

}  // namespace ropelab::transition
