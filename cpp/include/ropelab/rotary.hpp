#pragma once
/// \file rotary.hpp
/// Rotations of channel pairs (MATH.md §3): RoPE frequencies and angles (with position
/// interpolation), the rotation itself in the interleaved and half layouts, cumulative Selective
/// RoPE angles (with float32 / float64 / wrapped accumulation), the causal short convolution that
/// produces per-step angles, RoFormer's relative decay bound, block-diagonal rotation matrices,
/// realification and the parity angle-error study.
///
/// Every array is row-major. A "pair layout" maps pair i of a d-vector to two channels:
/// interleaved → (2i, 2i+1) (RoFormer), half → (i, i + d/2) (GPT-NeoX).

#include <atomic>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ropelab::rotary {

/// Which channels form pair i.
enum class Layout { interleaved, half };

/// "interleaved" or "half"; throws std::invalid_argument naming the value otherwise.
Layout parse_layout(const std::string& name);
/// The Layout names, in enum order.
const std::vector<std::string>& layout_names();

/// Channel indices (first, second) of pair i of a d-vector.
inline void pair_channels(Layout layout, std::size_t d, std::size_t i, std::size_t& c0,
                          std::size_t& c1) {
  if (layout == Layout::interleaved) {
    c0 = 2 * i;
    c1 = 2 * i + 1;
  } else {
    c0 = i;
    c1 = i + d / 2;
  }
}

/// RoPE frequencies θ_i = base^{−2i/d}, i = 0..d/2−1 (d even, base > 0).
/// `cancel` (here and below, may be null) is checked every ~2^16 steps (throws mc::Cancelled when
/// set).
void frequencies(std::size_t d, double base, double* out,
                 const std::atomic<bool>* cancel = nullptr);

/// RoPE angles out[m, i] = scale · positions[m] · θ_i (n×d/2). `scale` = L/L' is position
/// interpolation (a model trained on length L run on length L').
void rope_angles(const double* positions, std::size_t n, std::size_t d, double base, double scale,
                 double* out, const std::atomic<bool>* cancel = nullptr);

/// out = R(angles) x for n rows of width d: pair i of row r is rotated by angles[(r mod na)·d/2 +
/// i], where na (the number of angle rows) divides n (angles broadcast over leading batch rows).
/// Angles are float64 for both element types; cos/sin are evaluated in double and the products
/// are rounded to T. `out` may alias `x`. Uses up to `nthreads` threads (≤ 0: all cores);
/// the result does not depend on the thread count. Returns false if some x was inf or NaN
/// (checked inside the rotation loop, so finite input costs no extra pass).
template <class T>
bool rotate(const T* x, const double* angles, std::size_t n, std::size_t na, std::size_t d,
            Layout layout, T* out, int nthreads = 1, const std::atomic<bool>* cancel = nullptr);

/// How the cumulative angles are accumulated.
enum class Accumulate {
  float64,  ///< running double sum of θ_i ω_{t,i}
  float32,  ///< running float sum (the precision a float32 model would use)
  wrapped   ///< running double sum reduced to [−π, π) after every step
};
Accumulate parse_accumulate(const std::string& name);  ///< throws std::invalid_argument
const std::vector<std::string>& accumulate_names();    ///< the Accumulate names, in enum order

/// Selective RoPE angles ψ_t = Θ ⊙ Σ_{κ≤t} ω_κ for `batch` independent (T × h) blocks of ω
/// (h = d/2 pairs); theta has h entries. out has the shape of omega.
void cumulative_angles(const double* omega, std::size_t batch, std::size_t T, std::size_t h,
                       const double* theta, Accumulate acc, double* out,
                       const std::atomic<bool>* cancel = nullptr);

/// Activation applied after the short convolution.
enum class Activation { none, silu };
const std::vector<std::string>& activation_names();    ///< "none", "silu" (enum order)
Activation parse_activation(const std::string& name);  ///< the Activation of activation_names()

/// Causal depthwise convolution, PyTorch Conv1d(groups=c, padding=K−1) truncated to T outputs:
/// y[t, c] = Σ_{j<K} w[j, c] x[t − (K−1) + j, c] (x = 0 before t = 0), then the activation.
/// x is batch × T × c, w is K × c (kernel_channels == c) or K (kernel_channels == 1, shared).
void short_conv(const double* x, std::size_t batch, std::size_t T, std::size_t c, const double* w,
                std::size_t K, std::size_t kernel_channels, Activation act, double* out,
                const std::atomic<bool>* cancel = nullptr);

/// RoFormer's relative upper bound B(r) = (1/(d/2)) Σ_{j=1}^{d/2} |Σ_{i<j} e^{i r θ_i}| for each of
/// the n distances r. B(0) = (d/2 + 1)/2 exactly.
/// `cancel` (may be null) is checked every 2^16 terms (throws mc::Cancelled when set).
void decay_bound(const double* r, std::size_t n, std::size_t d, double base, double* out,
                 const std::atomic<bool>* cancel = nullptr);

/// Dense d×d rotation matrix blockdiag R(angles[i]) in the given layout (row-major).
void rotation_matrix(const double* angles, std::size_t d, Layout layout, double* out,
                     const std::atomic<bool>* cancel = nullptr);

/// Realification: complex z (n rows × h) → real x (n × 2h) with (x_{c0}, x_{c1}) = (Re z_i, Im
/// z_i).
void realify(const std::complex<double>* z, std::size_t n, std::size_t h, Layout layout,
             double* out, const std::atomic<bool>* cancel = nullptr);
/// The inverse of realify.
void complexify(const double* x, std::size_t n, std::size_t d, Layout layout,
                std::complex<double>* out, const std::atomic<bool>* cancel = nullptr);
/// The real 2h×2h matrix of the complex diagonal map z ↦ λ ⊙ z: block |λ_i| R(arg λ_i) on pair i.
void realify_diagonal(const std::complex<double>* lambda, std::size_t h, Layout layout, double* out,
                      const std::atomic<bool>* cancel = nullptr);

/// Parity example ω_t = π b_t, Θ = 1: out[t] = ψ_t − π Σ_{κ≤t} b_κ reduced to [−π, π), where ψ_t is
/// accumulated as `acc` says. The reference is evaluated in double-double (π = π_hi + π_lo,
/// products by fma), so the reported error is that of the accumulation alone, not of the check.
void parity_angle_error(const std::uint8_t* bits, std::size_t T, Accumulate acc, double* out,
                        const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::rotary
