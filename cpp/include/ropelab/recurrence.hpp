#pragma once
/// \file recurrence.hpp
/// Linear-attention recurrences and their direct (unrolled) forms (MATH.md §4): Eq. (3) with
/// arbitrary transitions and the two product conventions, gated Selective RoPE (pre-rotated and
/// with rotating transitions), the RFF recurrence of Eq. (9), ALiBi / FoX / cosFormer and softmax
/// attention with rotary phases.
///
/// Each function handles one sequence: q, k are T×d, v is T×dv, outputs T×dv (row-major), so a
/// caller with leading batch dimensions loops over them. Time index t runs 0..T−1 and S_{−1} = 0.
/// Every function polls `cancel` (may be null) once per time step and throws mc::Cancelled when
/// it is set, so a long sequence can be interrupted.

#include <atomic>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "ropelab/rotary.hpp"

namespace ropelab::recurrence {

/// A sequence of T (q_t, k_t, v_t) rows.
struct Sequence {
  const double* q;  ///< T×d
  const double* k;  ///< T×d
  const double* v;  ///< T×dv
  std::size_t T;
  std::size_t d;
  std::size_t dv;
};

enum class LinearMode { recurrent, unrolled };
/// Where the unrolled transition product starts: A_{τ+1}⋯A_t (correct) or A_τ⋯A_t (Eq. 11 as
/// printed).
enum class ProductStart { tau_plus_1, tau };
LinearMode parse_linear_mode(const std::string& name);      ///< "recurrent" | "unrolled"
ProductStart parse_product_start(const std::string& name);  ///< "tau+1" | "tau"
const std::vector<std::string>& linear_mode_names();        ///< the LinearMode names, in enum order
const std::vector<std::string>& product_start_names();  ///< the ProductStart names, in enum order

/// Eq. (3): S_t = S_{t−1} A_t + v_t k_tᵀ, o_t = S_t q_t (recurrent), or
/// o_t = Σ_{τ≤t} v_τ k_τᵀ (A_{start}⋯A_t) q_t (unrolled, O(T² d²)). `A` is T×d×d (A_t row-major)
/// or null for A_t = I.
void linear_attention(const Sequence& s, const double* A, LinearMode mode, ProductStart start,
                      double* out, const std::atomic<bool>* cancel = nullptr);

enum class SelectiveMode { prerotated, recurrent };
SelectiveMode parse_selective_mode(const std::string& name);  ///< "prerotated" | "recurrent"
const std::vector<std::string>& selective_mode_names();  ///< the SelectiveMode names, in enum order

/// Diagonal gates Λ_t (decays in [0, 1]): `width` values per step. width 0: no gate (Λ = I);
/// per_channel: width = d, one decay per channel in channel order; otherwise width is 1 (one
/// decay per step) or d/2 (one decay shared by the two channels of each pair).
struct Gates {
  const double* values = nullptr;  ///< T×width
  std::size_t width = 0;
  bool per_channel = false;
};

/// Decay of channel `channel` (which belongs to pair `pair`) at step t.
inline double gate_value(const Gates& g, std::size_t t, std::size_t channel, std::size_t pair) {
  if (g.width == 0) return 1.0;
  if (g.per_channel) return g.values[t * g.width + channel];
  if (g.width == 1) return g.values[t];
  return g.values[t * g.width + pair];
}

/// Gated Selective RoPE with cumulative angles (T×d/2), C_t = blockdiag R(ψ_t):
///   prerotated: Ŝ_t = Ŝ_{t−1} Λ_t + v_t (C_t k_t)ᵀ, o_t = Ŝ_t C_t q_t;
///   recurrent:  S_t = S_{t−1} C_{t−1}ᵀ Λ_t C_t + v_t k_tᵀ, o_t = S_t q_t (C_{−1} = I).
/// The two agree exactly in exact arithmetic (S_t = Ŝ_t C_t). O(T d dv) either way.
void selective_rope_attention(const Sequence& s, const double* angles, const Gates& gates,
                              rotary::Layout layout, SelectiveMode mode, double* out,
                              const std::atomic<bool>* cancel = nullptr);

/// The pieces of selective_rope_attention, exposed for their own unit tests. Pair i is the
/// channels (c0[i], c1[i]) (rotary::pair_channels), h = d/2 pairs.
namespace detail {

/// out = C x with C = blockdiag R(ψ_i), given cs[i] = cos ψ_i, sn[i] = sin ψ_i (out ≠ x).
void rotate_pairs(const double* x, const double* cs, const double* sn, const std::size_t* c0,
                  const std::size_t* c1, std::size_t h, double* out);

/// Pre-rotated state update (S is dv×d row-major): S ← S diag(lam) + v kpᵀ (lam null: Λ = I),
/// then out = S qp (dv values).
void prerotated_update(double* S, std::size_t d, std::size_t dv, const double* lam, const double* v,
                       const double* kp, const double* qp, double* out);

/// The rotating transition A^eff_t = R(ψ_{t−1})ᵀ diag(λ_a, λ_b) R(ψ_t) of each pair as its 2×2
/// block (B[4i..4i+4) = b00, b01, b10, b11), lam indexed by channel.
void rotating_transition_blocks(const double* cs_prev, const double* sn_prev, const double* cs,
                                const double* sn, const double* lam, const std::size_t* c0,
                                const std::size_t* c1, std::size_t h, double* B);

/// Rotating-transition state update: S ← S A^eff + v kᵀ (A^eff block diagonal, blocks B), then
/// out = S q.
void rotating_update(double* S, std::size_t d, std::size_t dv, const double* B,
                     const std::size_t* c0, const std::size_t* c1, std::size_t h, const double* v,
                     const double* k, const double* q, double* out);

}  // namespace detail

enum class RffMode { direct, recurrent };
RffMode parse_rff_mode(const std::string& name);  ///< "direct" | "recurrent"
/// The RffMode and DecayMode names, in enum order (both enumerations are {direct, recurrent}).
const std::vector<std::string>& direct_recurrent_names();

/// RFF attention states per feature j (omega is D×d), out is T×D×dv complex:
///   direct:    h_t = Σ_{τ≤t} e^{(‖q_t‖²+‖k_τ‖²)/2} e^{iω_j·(q_t−k_τ)} v_τ;
///   recurrent: Eq. (9), h_t = a_t e^{iω_j·(q_t−q_{t−1})} h_{t−1} + e^{(‖q_t‖²+‖k_t‖²)/2}
///              e^{iω_j·(q_t−k_t)} v_t with a_t = e^{(‖q_t‖²−‖q_{t−1}‖²)/2} (amplitude) or 1.
void rff_attention(const Sequence& s, const double* omega, std::size_t D, RffMode mode,
                   bool amplitude, std::complex<double>* out,
                   const std::atomic<bool>* cancel = nullptr);

/// Running product of the RFF rotation increments from step τ: out[t, j] = 1 for t ≤ τ, else
/// out[t−1, j] · e^{iω_j·(q_t − q_{t−1})}. Telescoping says it equals e^{iω_j·(q_t − q_τ)}.
void rff_increment_product(const double* q, std::size_t T, std::size_t d, const double* omega,
                           std::size_t D, std::size_t tau, std::complex<double>* out);

/// Position-dependent weightings of linear attention o_t = Σ_{τ≤t} w(t, τ) (q_t·k_τ) v_τ.
enum class Decay {
  alibi,  ///< w = e^{−m(t−τ)} (ALiBi's additive bias −m(t−τ) on the logit), m = `param` ≥ 0
  fox,  ///< w = Π_{κ=τ+1}^{t} f_κ (Forgetting Transformer), f = `gates` (T values in [0,1])
  cosformer  ///< w = cos(π(t−τ)/(2M)), M = `param` > 0
};
Decay parse_decay(const std::string& name);     ///< "alibi" | "fox" | "cosformer"
const std::vector<std::string>& decay_names();  ///< the Decay names, in enum order
enum class DecayMode { direct, recurrent };
DecayMode parse_decay_mode(const std::string& name);  ///< "direct" | "recurrent"

/// direct: the O(T² d) sum with w(t, τ) evaluated from its definition (ALiBi through exp of the
/// bias, FoX as an explicit product, cosFormer through cos of the difference);
/// recurrent: S_t = e^{−m} S_{t−1} + v_t k_tᵀ (ALiBi), S_t = f_t S_{t−1} + v_t k_tᵀ (FoX), or the
/// cos- and sin-states S^c_t = S^c_{t−1} + cos(πt/2M) v_t k_tᵀ, S^s_t likewise with sin, and
/// o_t = cos(πt/2M) S^c_t q_t + sin(πt/2M) S^s_t q_t (cosFormer).
void decayed_attention(const Sequence& s, Decay kind, double param, const double* gates,
                       DecayMode mode, double* out, const std::atomic<bool>* cancel = nullptr);

/// Reference softmax attention with rotary angles (T×d/2, or null for none):
/// o_t = Σ_τ softmax_τ(scale · (C_t q_t)·(C_τ k_τ)) v_τ over τ ≤ t (causal) or all τ.
void softmax_attention(const Sequence& s, const double* angles, rotary::Layout layout, double scale,
                       bool causal, double* out, const std::atomic<bool>* cancel = nullptr);

}  // namespace ropelab::recurrence
