#pragma once
/// \file attention.hpp
/// Attention-level computations: exact softmax attention and its normalised random-feature
/// estimate (Performer FAVOR+, Choromanski et al., arXiv:2009.14794, §2.2–2.4 and Lemma 1), on
/// batches of sequences stored row-major as (batch, T, d) queries, (batch, S, d) keys and
/// (batch, S, d_v) values.
///
/// Exact attention:  out_i = Σ_j w_ij v_j / Σ_j w_ij,  w_ij = exp(scale·q_i·k_j + bias_ij),
/// restricted to j ≤ i when causal (T = S). Computed block-wise with a running row maximum
/// (the "online softmax"): query blocks of kQueryBlock rows, key blocks of kKeyBlock columns,
/// memory O(kQueryBlock·kKeyBlock) per thread whatever T and S.
///
/// Random-feature estimate. With q' = √scale·q, k' = √scale·k and frequencies ω_1..ω_D, rows of
/// Ω Σ^{1/2} where the rows of Ω are N(0, I_d) (or orthogonal blocks, rff::sample_omega) and
/// Σ^{1/2} = diag(σ_c) (one σ per channel, the same for both channels of a rotary pair), the
/// features are (h(x) = ‖x'‖²/2, p_f = ω_f·x'):
///   trig:       exp(h)/√D [cos p_f | sin p_f]            (2D columns; rff's conjugate trig map)
///   positive:   exp(p_f − h)/√D                          (D columns; rff's positive map)
///   hyperbolic: exp(−h)/√(2D) [exp(p_f) | exp(−p_f)]     (2D columns; arXiv:2009.14794 Lemma 1)
/// and φ(q)·φ(k) is an unbiased estimate of exp(scale·q·k) when σ ≡ 1. The estimate of the
/// attention output is num_i / den_i with num_i = Σ_j φ(q_i)·φ(k_j) v_j, den_i = Σ_j φ(q_i)·φ(k_j)
/// (j ≤ i when causal), evaluated as φ(q_i)ᵀ(Σ_j φ(k_j) v_jᵀ): an F×(d_v+1) state per sequence.
///
/// Stabilisation (max subtraction): every feature is exp(ℓ) × (a factor of modulus ≤ 1) with the
/// log-magnitude ℓ = h (trig), p_f − h (positive), ±p_f − h (hyperbolic). Query rows are divided
/// by exp(max_f ℓ) (a per-row constant: cancels in num/den); key rows by exp(m) with m a running
/// maximum of ℓ over the keys seen so far; states and partial sums are rescaled when m grows, so
/// each output row is num/den with both multiplied by one positive constant of that row.
///
/// Causal prefix sums. The sequence is cut into chunks of kChunk rows and into at most
/// kMaxSegments segments of whole chunks (a function of T only). Segments are processed in
/// parallel (state of the segment + intra-segment causal sums), their states combined by an
/// exclusive prefix sum, then each segment adds φ(q)ᵀ(prefix state). Memory per sequence:
/// kMaxSegments states of F×(d_v+1) plus O(kChunk·F) buffers per thread, never O(T·D·d_v).
///
/// Reproducibility: the frequencies of trial t are rff::sample_omega(D, d, ·, seed, orthogonal,
/// index = t) (shared by every batch element), and every (trial, sequence) is computed in a fixed
/// order that does not depend on the thread that runs it: results are bit-identical for every
/// thread count.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ropelab::attention {

/// Rows per chunk of the causal prefix sums and of feature evaluation.
constexpr std::size_t kChunk = 64;
/// Upper bound on the segments of one sequence (parallel prefix sums).
constexpr std::size_t kMaxSegments = 16;
/// Exact attention: query rows per block and key columns per block.
constexpr std::size_t kQueryBlock = 64;
constexpr std::size_t kKeyBlock = 256;

enum class Estimator { trig, positive, hyperbolic };

/// "trig", "positive" or "hyperbolic" (throws std::invalid_argument naming the choices).
Estimator parse_estimator(const std::string& name);
/// Real feature columns: 2D for trig and hyperbolic, D for positive.
std::size_t feature_count(Estimator est, std::size_t D);

/// Sizes of a batch of sequences.
struct Shape {
  std::size_t batch = 1;  ///< number of sequences (product of the leading dimensions)
  std::size_t T = 0;      ///< queries per sequence
  std::size_t S = 0;      ///< keys (and values) per sequence
  std::size_t d = 0;      ///< query/key width
  std::size_t dv = 0;     ///< value width
};

/// An additive logit bias, read as data[batch_offset[b] + i·stride_t + j·stride_s] (strides in
/// elements; 0 for a broadcast dimension). Entries may be −inf (masked), never NaN or +inf.
struct Bias {
  const double* data = nullptr;
  const std::int64_t* batch_offset = nullptr;  ///< one per sequence
  std::int64_t stride_t = 0;
  std::int64_t stride_s = 0;
};

/// A query row whose weights are all zero (every key masked by the bias): its output is undefined.
struct EmptyRow : std::domain_error {
  EmptyRow(std::size_t batch, std::size_t row)
      : std::domain_error("every key of query row " + std::to_string(row) + " of sequence " +
                          std::to_string(batch) + " is masked (bias = -inf)"),
        batch(batch),
        row(row) {}
  std::size_t batch, row;
};

/// Exact softmax attention; out is (batch, T, dv). causal requires T == S. Throws mc::Cancelled,
/// EmptyRow.
void softmax(const double* q, const double* k, const double* v, const Shape& shape, double scale,
             bool causal, const Bias* bias, int nthreads, double* out,
             const std::atomic<bool>* cancel);

/// A feature overflowed a double (only without stabilisation): `argument` is "q" or "k".
struct FeatureOverflow : std::overflow_error {
  explicit FeatureOverflow(const std::string& argument)
      : std::overflow_error("a random feature of " + argument + " overflows a double"),
        argument(argument) {}
  std::string argument;
};

struct RandomFeatureOptions {
  std::size_t D = 1;
  Estimator estimator = Estimator::trig;
  /// One entry (the same σ for every channel) or d entries (σ of each channel).
  std::vector<double> sigma{1.0};
  bool orthogonal = false;
  bool causal = true;  ///< requires T == S
  std::uint64_t seed = 0;
  std::size_t trials = 1;
  bool stabilize = true;
  double scale = 1.0;  ///< the logit scale (q·k ↦ scale·q·k)
  int nthreads = 0;    ///< ≤ 0: mc::resolve_threads
};

/// Effective frequencies of trial t (D×d, row-major): rff::sample_omega(D, d, σ, seed,
/// orthogonal, t) for a scalar σ, else sample_omega with σ = 1 and column c multiplied by σ_c.
void trial_omega(const RandomFeatureOptions& opt, std::size_t d, std::uint64_t trial, double* out);

/// Features of the rows of X (n×d) under the effective frequencies omega (D×d) for logit scale
/// `scale`: out (n×feature_count) = exp(−shift_i) × the map of the header comment; shift may be
/// null (no shift). log_max (if not null) receives max_f ℓ of each row.
void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, double scale, const double* shift, double* out, double* log_max);

/// The estimate for trials × batch sequences: out is (trials, batch, T, dv). num (trials, batch,
/// T, dv) and den (trials, batch, T), if not null, receive the numerator and denominator (each
/// row multiplied by the positive constant of the stabilisation; exactly the sums without it).
/// Throws FeatureOverflow, mc::Cancelled.
void random_feature(const double* q, const double* k, const double* v, const Shape& shape,
                    const RandomFeatureOptions& opt, double* out, double* num, double* den,
                    const std::atomic<bool>* cancel);

}  // namespace ropelab::attention
