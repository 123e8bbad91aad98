#pragma once
/// \file windows.hpp
/// Data windows (MATH.md §5), length N, n = 0..N−1.
///
/// Every symmetric window below is written with a span L and a centred coordinate
/// x = (n − L/2)/(L/2) ∈ [−1, 1]:
///   * DFT-even (periodic, the default, Harris 1978): L = N — the length-(N+1) symmetric window
///     with its last sample dropped, so that its N-point DFT has the window's exact zeros;
///   * symmetric (sym = true): L = N − 1, so w[n] = w[N−1−n] exactly.
/// N = 1 gives {1} for every window (as scipy.signal.windows does).
///
/// Windows and their formulas (x as above, θ = 2πn/L):
///   * rectangular:   w = 1
///   * triangular:    w = 1 − |x|
///   * hann:          w = 0.5 − 0.5 cos θ
///   * hamming:       w = 0.54 − 0.46 cos θ
///   * blackman:      w = 0.42 − 0.5 cos θ + 0.08 cos 2θ
///   * exact_blackman: w = (7938 − 9240 cos θ + 1430 cos 2θ)/18608
///   * blackman_harris_3: Harris's "−67 dB" 3-term (its true highest sidelobe is −70.8 dB), a = (0.42323, 0.49755, 0.07922), w = Σ (−1)^k a_k cos kθ
///   * blackman_harris_4: −92 dB 4-term, a = (0.35875, 0.48829, 0.14128, 0.01168)
///   * gaussian(alpha > 0):  w = exp(−½ (α x)²)                        (Harris's α)
///   * poisson(alpha ≥ 0):   w = exp(−α |x|)  = exp(−α|n − L/2|/(L/2))
///   * kaiser(beta ≥ 0):     w = I0(β √(1 − x²)) / I0(β)               (Harris's α = β/π)
///   * chebyshev(attenuation > 0, dB): Dolph–Chebyshev, equiripple sidelobes at −attenuation dB;
///     defined through its transform W_k = T_L(x0 cos(πk/(L+1))), x0 = cosh(arccosh(10^{A/20})/L),
///     computed by an inverse DFT of length L+1 and normalised to a unit peak. Always symmetric
///     (L = N − 1) whatever `sym` says: the DFT-even truncation would break the equiripple property
///   * exponential(alpha ≥ 0): the causal SSM window w = e^{−αn}, n = 0..N−1 (not symmetric:
///     sym = true is rejected)

#include <atomic>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace ropelab::windows {

/// Names accepted by make_window, in the order of MATH.md §5.
const std::vector<std::string>& names();

/// Parameters a window needs ("alpha", "beta", "attenuation"), empty if none.
std::vector<std::string> parameters(const std::string& name);

/// The window `name` of length N ≥ 1 (DFT-even unless sym). Throws std::invalid_argument (with a
/// message naming the argument and value) for an unknown name, a missing, unknown or out-of-range
/// parameter, N < 1, or sym = true for the causal exponential.
/// `cancel` (may be null) is checked every 2^16 samples (throws mc::Cancelled when set).
std::vector<double> make_window(const std::string& name, std::size_t N, bool sym,
                                const std::map<std::string, double>& params,
                                const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::windows
