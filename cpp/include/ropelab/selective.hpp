#pragma once
/// \file selective.hpp
/// The Selective RoPE angle path as the released implementation runs it (Movahedi et al.,
/// "Selective Rotary Position Embedding", §4.1; the SelectiveRoPE module of the authors' code),
/// for a batch of sequences, with a streaming state.
///
/// For a hidden state x_t (model_dim channels, H heads of model_dim/H channels each):
///   1. x̂_t   = per head chunk, x / sqrt(Σ x² + eps)                      (l2 normalisation)
///   2. u_t   = W_up (W_down x̂_t)                 (W_down: rank×model_dim, W_up: C×rank, C = H·R)
///   3. φ_t   = causal depthwise conv of u (K taps, weight w[c][j] multiplying u_{t−K+1+j}),
///              optionally followed by SiLU;  or (skip_conv) the first difference u_t − u_{t−1}
///   4. φ_t  += exp(b)                                  (optional bias, one per channel)
///   5. φ_t  *= sigmoid(gate(x̂_t))                      (optional: one gate per head, or per
///   channel)
///   6. s_t   = Σ_{τ≤t} φ_τ + offset                    (the running sum)
///   7. ψ_t   = Θ ⊙ s_t                                 (temperature applied after the sum)
/// The rotation of q, k (half layout: channel i pairs with channel i + R) uses cos ψ, sin ψ.
///
/// Accumulation. float64: s = offset, then s += φ_t in order (a chunked run equals one run on the
/// concatenation bit for bit). float32 (the released code's order): φ rounded to float32, the
/// float32 running sum of the call started from 0, then + offset in float32, then × Θ (Θ rounded
/// to float32) in float32.

#include <atomic>
#include <cstddef>
#include <vector>

namespace ropelab::selective {

/// Sizes and options of one angle path.
struct Config {
  std::size_t model_dim = 0;  ///< width of the hidden states
  std::size_t heads = 1;      ///< H (model_dim % H == 0)
  std::size_t pairs = 0;      ///< R: rotation pairs per head (head width 2R)
  std::size_t rank = 0;       ///< rank of the low-rank projection
  std::size_t taps = 0;       ///< K of the short convolution; 0 for skip_conv (first difference)
  bool silu = false;          ///< SiLU after the convolution
  bool has_bias = false;
  /// Gate: 0 none; else the number of gate outputs G (H: one per head, H·R: one per channel).
  std::size_t gate_out = 0;
  std::size_t gate_rank =
      0;  ///< 0: one linear layer (G×model_dim); else G×gate_rank after gate_rank×model_dim
  double eps = 1e-6;     ///< of the l2 normalisation
  bool float32 = false;  ///< accumulation arithmetic (see the file comment)
  std::size_t channels() const { return heads * pairs; }
  /// Columns of the conv cache per channel: K (the newest input last), 1 for skip_conv.
  std::size_t cache_width() const { return taps == 0 ? 1 : taps; }
};

/// The weights, row-major, shapes as in Config's comments.
struct Weights {
  const double* down = nullptr;  ///< rank × model_dim
  const double* up = nullptr;    ///< C × rank
  const double* conv = nullptr;  ///< C × K (conv[c·K + j] multiplies u_{t−K+1+j}); unused if K = 0
  const double* bias = nullptr;       ///< C (b; the path adds exp(b)), if has_bias
  const double* gate_down = nullptr;  ///< gate_rank × model_dim, if gate_rank > 0
  const double* gate_up = nullptr;    ///< G × (gate_rank or model_dim)
  const double* gate_bias = nullptr;  ///< G
  const double* theta = nullptr;      ///< R temperatures Θ (the same for every head)
};

/// One call over `batch` sequences of T steps each.
///   hidden  batch × T × model_dim
///   cache   batch × C × cache_width(), in/out: the last inputs of the convolution (the newest in
///           the last column; zeros at the start), or for skip_conv the previous projection u
///           (zeros at the start). Updated to the state after the call.
///   offset  batch × C, in/out: the running sum before the call; updated to s_{T−1}.
///   angles  batch × T × C, out: ψ_t (heads major, then pairs).
/// If `diff_from_zero` (skip_conv only), the first difference of this call starts from 0 instead of
/// the cached u (the released code keeps no cache for skip_conv).
/// Throws std::invalid_argument for a non-finite result (overflow of exp(b) or of the sum).
void angles(const Config& cfg, const Weights& w, const double* hidden, std::size_t batch,
            std::size_t T, double* cache, double* offset, bool diff_from_zero, double* angles,
            const std::atomic<bool>* cancel = nullptr);

/// The stages of `angles`, one function per step of the file comment (each with its GoogleTest).
/// `angles` is exactly their composition, so each computes with the operations and in the order
/// stated there (bit-identical results).
namespace steps {

/// Throws std::invalid_argument unless the sizes are consistent (model_dim divisible by heads,
/// non-zero sizes, gate_out 0, H or H·R).
void check_config(const Config& cfg);

/// exp(b) of each channel's bias (empty without a bias); throws std::invalid_argument when it
/// overflows.
std::vector<double> exp_bias(const Config& cfg, const Weights& w);

/// Step 1: x̂ (model_dim) = x / sqrt(Σ x² + eps) per head chunk (squares summed in order).
void normalise_heads(const Config& cfg, const double* x, double* xhat);

/// Step 2: u (C) = W_up (W_down x̂); `low` (rank) is scratch. Dot products summed in index order.
void project(const Config& cfg, const Weights& w, const double* xhat, double* low, double* u);

/// Step 5's gate values: gates (gate_out) = sigmoid(gate(x̂) + gate_bias), gate = gate_up x̂ or
/// gate_up (gate_down x̂) with gate_rank > 0; `glow` (gate_rank) and `pre` (gate_out) are scratch.
void gate_values(const Config& cfg, const Weights& w, const double* xhat, double* glow, double* pre,
                 double* gates);

/// Step 3 for one channel, skip_conv: φ_t = u_t − u_{t−1} over the T inputs u[t·stride], the
/// first from the cached previous input cache[0] (or from 0 if `diff_from_zero`); the cache then
/// holds the newest input.
void first_difference(const double* u, std::size_t stride, std::size_t T, double* cache,
                      bool diff_from_zero, double* phi);

/// Step 3 for one channel with K > 0 taps: φ_t = Σ_j conv[j] · in_{t−K+1+j} (summed over j in
/// order; then SiLU φ·sigmoid(φ) if `silu`), the inputs before the call taken from the cache
/// (columns 1..K−1 hold steps −K+1..−1), the T new ones u[t·stride]; the cache (K) then holds the
/// last K inputs. φ has the same stride as u.
void short_conv(const double* conv, std::size_t K, bool silu, const double* u, std::size_t stride,
                std::size_t T, double* cache, double* phi);

/// Steps 4–5 on φ (T×C, in place): φ ← φ + exp(b) (if has_bias), then φ ← φ · gate (one gate per
/// head, or per channel; `gates` T×gate_out, unused when gate_out = 0).
void bias_and_gate(const Config& cfg, const double* expb, const double* gates, std::size_t T,
                   double* phi);

/// Steps 6–7 for one channel in float64: s = offset, s ← s + φ_t, ψ_t = s·θ, each in order;
/// returns the new offset s_{T−1}. φ and ψ have stride `stride`.
double accumulate64(const double* phi, std::size_t stride, std::size_t T, double offset,
                    double theta, double* angles);

/// Steps 6–7 for one channel in the released code's float32 order: s = Σ φ_t in float32 from 0,
/// v = s + offset and ψ_t = v·θ in float32 (θ and offset rounded to float32); returns the new
/// offset v_{T−1} (the old one, rounded to float32, when T = 0).
double accumulate32(const double* phi, std::size_t stride, std::size_t T, double offset,
                    double theta, double* angles);

}  // namespace steps

}  // namespace ropelab::selective
