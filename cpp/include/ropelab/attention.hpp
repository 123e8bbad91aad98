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
/// by exp(max_f ℓ) (a per-row constant: cancels in num/den). Causal: key row j of a chunk is
/// divided by exp(r_j), r_j the running maximum of ℓ over the chunk's keys up to j, and the masked
/// product's entry (i, j ≤ i) multiplied by exp(r_j − r_i), so row i of a chunk's own sums is at
/// the scale exp(−r_i) of the keys it sees (a large key later in the chunk does not touch the rows
/// before it); the state increment is at exp(−m), m the chunk's largest ℓ. The state (at the
/// running maximum of the chunks before, m_state) and row i's own sums are merged at the larger of
/// m_state and r_i. Non-causal: key rows of a chunk are divided by exp(m), the state and a chunk's
/// increment merged at the larger of their scales (merge_scales). Each output row is num/den with
/// both multiplied by one positive constant of that row. The exponents are formed as
/// (ℓ_f − max_f ℓ) + (max_f ℓ − shift), both ≤ 0 (the first without h, the second exactly 0 for a
/// query row), never as p_f − (h + shift), which loses an ulp of h (issue 25); a query row's
/// groups are compared by max_f ℓ + h (Featurizer::projection_max), h cancelling. What cannot be
/// shifted: a projection beyond a double, or a trig key's h (FeatureOverflow with kProjection,
/// kHalfNorm).
///
/// Causal prefix sums: the chunked form of linear attention. The values get a column of ones
/// (x = [V | 1], w = d_v + 1 columns: the same products give numerator and denominator) and the
/// sequence is cut into chunks of kChunk rows. Chunk c, with the state Z_c = Σ_{j < c·kChunk}
/// φ(k_j) x_jᵀ (F×w) of the keys before it, gives
///   out_c = φ(Q_c) Z_c + tril(φ(Q_c) φ(K_c)ᵀ) X_c      (inter-chunk + masked intra-chunk GEMMs)
///   Z_{c+1} = Z_c + φ(K_c)ᵀ X_c                           (the increment: one GEMM)
/// instead of one rank-1 update per row; with stabilisation each term carries its own scale
/// exp(−m) and the two are merged at the larger one (merge_scales). The mask is applied by row
/// blocks of kMaskBlock, so blocks above the diagonal are never computed. Memory per sequence:
/// one state F×w plus O(kChunk·F) buffers per chunk in flight, never O(T·D·d_v).
///
/// Feature groups. The D frequencies are cut into G = group_count(D) groups of at most
/// kGroupFrequencies (sizes as equal as possible). Each group runs the chunked algorithm above on
/// its own features, with its own state and its own stabilisation (query shifts and key maxima
/// over the group's features), and gives every output row its numerator|denominator at its own
/// scale exp(−λ_g) (λ_g = the state's running maximum + the row's query shift, here less the row's
/// h, a constant of the row: Featurizer::projection_max). A row's groups are
/// merged at the largest λ (factors exp(λ_g − max λ) ≤ 1, added in group order) before num/den;
/// with one group its sums are used as they are. Without stabilisation every λ is 0 and the
/// groups simply add up.
///
/// Schedules. With at least as many (trial, sequence) units as threads, each unit runs on one
/// thread, chunk after chunk (every group of a chunk, then the next chunk). With fewer units but
/// at least as many sub-units (unit, group) as threads, windows of kWindowChunks chunks run one
/// task per sub-unit (its chunks in order, no other synchronisation), then the window's rows are
/// combined. With fewer sub-units than threads, windows of chunks run in three parallel steps:
/// every chunk's state-independent parts (features, masked product, increment), the running state
/// advanced chunk by chunk (in parallel over slices of its entries, keeping each chunk's Z_c),
/// then every chunk's block; then the rows are combined. The arithmetic of each sub-unit's chunk
/// is the same in every schedule, in the same order.
///
/// Reproducibility: the frequencies of trial t are rff::sample_omega(D, d, ·, orthogonal,
/// index = t, seed) (shared by every batch element), and every (trial, sequence) is computed by the
/// same operations in the same order whatever the schedule or the thread that runs it: results
/// are bit-identical for every thread count.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/estimator.hpp"

namespace ropelab::attention {

/// Rows per chunk of the causal prefix sums and of feature evaluation.
constexpr std::size_t kChunk = 64;
/// Rows per block of the masked intra-chunk product (blocks above the diagonal are skipped).
constexpr std::size_t kMaskBlock = 16;
/// Fewest chunks per sub-unit in one window of the windowed schedules (fewer units than threads).
constexpr std::size_t kWindowChunks = 16;
/// Frequencies per feature group of the random-feature estimate (see group_count).
constexpr std::size_t kGroupFrequencies = 128;
/// Exact attention: query rows per block and key columns per block.
constexpr std::size_t kQueryBlock = 64;
constexpr std::size_t kKeyBlock = 256;

/// The estimators random-feature attention evaluates: trig, positive, hyperbolic, in enum order
/// (_core.attention.estimators()).
const std::vector<Estimator>& estimators();
/// The estimator named `name` among estimators() (throws std::invalid_argument naming the
/// choices).
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

/// A logit scale·q_i·k_j that is not finite in the precision of the computation (finite q and k
/// whose product overflows): the softmax subtracts the row's maximum, but the logits themselves
/// must exist.
struct LogitOverflow : std::overflow_error {
  LogitOverflow(std::size_t batch, std::size_t row, bool single = false)
      : std::overflow_error("a logit scale * q.k of query row " + std::to_string(row) +
                            " of sequence " + std::to_string(batch) + " overflows a " +
                            (single ? "float32" : "double")),
        batch(batch),
        row(row) {}
  std::size_t batch, row;
};

/// Exact softmax attention; out is (batch, T, dv). causal requires T == S. Throws mc::Cancelled,
/// EmptyRow, LogitOverflow.
void softmax(const double* q, const double* k, const double* v, const Shape& shape, double scale,
             bool causal, const Bias* bias, int nthreads, double* out,
             const std::atomic<bool>* cancel);
/// The same in single precision: every logit, weight, sum and product a float (the float
/// kernels of attention_kernels.hpp on the vector paths; the bias added to the float logit and
/// rounded). Bit-identical for every thread count, like the double version.
void softmax(const float* q, const float* k, const float* v, const Shape& shape, double scale,
             bool causal, const Bias* bias, int nthreads, float* out,
             const std::atomic<bool>* cancel);

/// What overflowed a double in random_feature. Without stabilisation: a feature (its amplitude
/// exp(scale·|x|²/2) or exp(p_f)), kFeature. With stabilisation every feature is computed as
/// exp(≤ 0) times a factor of modulus ≤ 1 (header comment), and only the log-magnitudes themselves
/// can fail to be doubles: a projection √scale·ω·x of q or k (kProjection), or, for trig, the half
/// squared norm h = scale·|k|²/2 of a key (kHalfNorm: it fixes that key's weight against the
/// other keys, exp(+∞), so it cannot be shifted away; a query row's h cancels, and a key's h = ∞
/// under positive or hyperbolic features is a weight exp(−∞) = 0).
inline constexpr const char* kFeature = "a random feature";
inline constexpr const char* kProjection = "a projection sqrt(scale)*omega.x";
inline constexpr const char* kHalfNorm = "the log-magnitude scale*|x|^2/2 of a row";

/// A random feature or (stabilised) a log-magnitude overflowed a double: `argument` is "q" or
/// "k", `quantity` one of kFeature, kProjection, kHalfNorm. single: in the float32 computation a
/// feature or a projection overflowed a float (the half norms h are doubles there too).
struct FeatureOverflow : std::overflow_error {
  explicit FeatureOverflow(const std::string& argument, const std::string& quantity = kFeature,
                           bool single = false)
      : std::overflow_error(quantity + " of " + argument + " overflows a " +
                            (single ? "float32" : "double")),
        argument(argument),
        quantity(quantity),
        single(single) {}
  std::string argument, quantity;
  bool single;
};

/// The estimated numerator of an output row (the feature-weighted sum of the values v) is not
/// finite while its denominator (which v does not enter) is: the values are too large (stabilised
/// features are at most about 1), not a vanished denominator. It names no row: which row a thread
/// meets first depends on the schedule.
struct ValueOverflow : std::overflow_error {
  explicit ValueOverflow(bool single = false)
      : std::overflow_error(std::string("a feature-weighted sum of v overflows a ") +
                            (single ? "float32" : "double")) {}
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

/// Feature groups of D frequencies: ⌈D / kGroupFrequencies⌉ (at least 1). Group g holds the
/// frequencies [g·D/G, (g + 1)·D/G) (integer division) and its own stabilisation scales.
std::size_t group_count(std::size_t D);

/// Effective frequencies of trial t (D×d, row-major): rff::sample_omega(D, d, σ,
/// orthogonal, t, seed) for a scalar σ, else sample_omega with σ = 1 and column c multiplied by
/// σ_c.
void trial_omega(const RandomFeatureOptions& opt, std::size_t d, std::uint64_t trial, double* out);

/// Features of the rows of X (n×d) under the effective frequencies omega (D×d) for logit scale
/// `scale`: out (n×feature_count) = exp(−shift_i) × the map of the header comment; shift may be
/// null (no shift). log_max (if not null) receives max_f ℓ of each row.
void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, double scale, const double* shift, double* out, double* log_max);

/// The estimate for trials × batch sequences: out is (trials, batch, T, dv). num (trials, batch,
/// T, dv) and den (trials, batch, T), if not null, receive the numerator and denominator (each
/// row multiplied by the positive constant of the stabilisation; exactly the sums without it).
/// Throws FeatureOverflow (kFeature without stabilisation; kProjection or kHalfNorm with it),
/// mc::Cancelled.
void random_feature(const double* q, const double* k, const double* v, const Shape& shape,
                    const RandomFeatureOptions& opt, double* out, double* num, double* den,
                    const std::atomic<bool>* cancel);
/// The same in single precision (the float32 path): the frequencies drawn as in the double
/// version (the same ω for the same seed), scaled by √scale in double and rounded to float once;
/// the projections, features, masked products, states, merges and the final num/den are floats
/// (the float kernels of attention_kernels.hpp on the vector paths), while the per-row
/// bookkeeping (half norms h, log-maxima, running maxima, group scales) stays in double and each
/// feature is exp of a double exponent rounded to float once (trig: float sincos times a float
/// amplitude). Stabilised, no exp can overflow; FeatureOverflow(single) when a projection (or,
/// unstabilised, a feature) exceeds a float, ValueOverflow(single) when a sum of v does.
/// Bit-identical for every thread count, like the double version.
void random_feature(const float* q, const float* k, const float* v, const Shape& shape,
                    const RandomFeatureOptions& opt, float* out, float* num, float* den,
                    const std::atomic<bool>* cancel);

// ----------------------------------------------------------------------------------------------
// Building blocks of the chunked causal prefix sums (one chunk of n ≤ kChunk rows, F feature
// columns, w value columns; row-major). Exposed for their tests.

/// local (n×w) = tril(fq fkᵀ) x, where fq is n×F, fkT the n key rows' features transposed (F×n)
/// and x is n×w: row block [i0, i1) of kMaskBlock rows is (fq[i0:i1] fkᵀ[:, 0:i1] masked) x[0:i1],
/// so the products above the diagonal blocks are never formed. A and pack: scratch. With rmax
/// (n running maxima of the keys' scales, non-decreasing) entry (i, j ≤ i) of fq fkᵀ is
/// multiplied by exp(rmax_j − rmax_i) before the product with x.
void masked_chunk_product(const double* fq, const double* fkT, const double* x, std::size_t n,
                          std::size_t F, std::size_t w, double* local, std::vector<double>& A,
                          std::vector<double>& pack, const double* rmax = nullptr);

/// dZ (F×w) = fkᵀ x: the state increment of the chunk (fk n×F, x n×w).
void chunk_state_delta(const double* fk, const double* x, std::size_t n, std::size_t F,
                       std::size_t w, double* dZ, std::vector<double>& pack);

/// How two sums at scales exp(−m_state) and exp(−m_chunk) merge: at exp(−m), m the larger
/// (stabilised), with the factors f_state = exp(m_state − m), f_chunk = exp(m_chunk − m);
/// without stabilisation m = 0 and both factors 1.
struct ScaleMerge {
  double m = 0.0;
  double f_state = 1.0;
  double f_chunk = 1.0;
  double m_state = 0.0;  // the state's scale before the merge
};
ScaleMerge merge_scales(double m_state, double m_chunk, bool stabilize);

/// Z[i] ← f_state·Z[i] + f_chunk·dZ[i] for i < count; keep_old: dZ[i] ← the old Z[i].
void advance_state(double* Z, double* dZ, std::size_t count, const ScaleMerge& s, bool keep_old);

/// out (n×w) = f_chunk·local + f_state·(fq Z): the chunk's numerator|denominator from its masked
/// product and the state of the keys before it. Z null (the first chunk): f_chunk·local; local
/// null (non-causal, Z holds every key): fq Z.
void chunk_output(const double* fq, const double* Z, const double* local, std::size_t n,
                  std::size_t F, std::size_t w, const ScaleMerge& s, double* out,
                  std::vector<double>& pack);

/// The causal sums out_i = Σ_{j ≤ i} (fq_i·fk_j) x_j (out T×w) of given features (T×F each) by
/// the chunked algorithm above (the building blocks, unstabilised): the reference the tests
/// compare with the rank-1 recurrence Z ← Z + fk_i x_iᵀ, out_i = fq_i Z.
void causal_linear_attention(const double* fq, const double* fk, const double* x, std::size_t T,
                             std::size_t F, std::size_t w, double* out);

}  // namespace ropelab::attention
