#pragma once
/// \file sweep.hpp
/// Cells of parameter sweeps computed in the core: many small cells in one call, parallel over
/// cells, each cell's numbers independent of which call, thread or batch computes it.
///
/// A cell of the `rff_mse` sweep task (unit-norm q, k with q·k = ξ in R^d) yields its σ, the
/// target exp(ξ), the closed-form MSE of the D-feature estimate and the Monte-Carlo statistics of
/// `trials` estimates drawn at the cell's seed. The statistics are correctly rounded sums
/// (exactly_rounded_sum), so they do not depend on a summation order: mean = Σx/n and the sample
/// variance Σ(x − mean)²/(n − 1), each sum rounded once.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/estimator.hpp"
#include "ropelab/rff.hpp"

namespace ropelab::sweep {

/// The seed of cell `index` of a sweep seeded `seed`: the first two 32-bit words (low word first)
/// of NumPy's SeedSequence(seed, spawn_key=(index,)).generate_state(2), whose hash is specified
/// (O'Neill's seed_seq design, pool of 4 words). Python's ropelab.sweep.cell_seed is the reference.
std::uint64_t cell_seed(std::uint64_t seed, std::uint64_t index);

/// The correctly rounded sum of x[0..n) (Shewchuk's algorithm with exact partials, as Python's
/// math.fsum): independent of the order of the terms. Non-finite terms give their IEEE sum.
double exactly_rounded_sum(const double* x, std::size_t n);

/// How a cell's σ is given: a number, or a rule evaluated at the cell.
enum class SigmaRule { value, paper, unbiased, optimal };
/// The rule names, in enum order after `value`: "paper", "unbiased", "optimal".
const std::vector<std::string>& sigma_rule_names();

/// One cell of the rff_mse task.
struct MseCell {
  double xi = 0;     ///< q·k, in [−1, 1]
  double sigma = 1;  ///< σ when rule == value
  SigmaRule rule = SigmaRule::value;
  std::size_t D = 1;  ///< features per estimate, ≥ 1
  std::size_t d = 2;  ///< dimension of q and k, ≥ 2
  Estimator estimator = Estimator::trig;
  rff::Convention convention = rff::Convention::conjugate;
  bool full = false;       ///< full mode (d-dimensional ω) instead of projected
  std::uint64_t seed = 0;  ///< the cell's seed (cell_seed of the sweep's seed and index)
};

/// The outputs of an rff_mse cell, in the task's column order.
struct MseOutputs {
  double sigma_used;     ///< σ (the rule's value at the cell, or the number given)
  double target;         ///< exp(ξ)
  double analytic_mse;   ///< closed-form MSE of the D-feature estimate
  double empirical_mse;  ///< mean of (estimate − target)² over the trials
  double mse_stderr;   ///< its standard error: sample std (n − 1) / √trials; +inf for one trial
  double bias;         ///< mean of estimate − target
  double bias_stderr;  ///< its standard error; +inf for one trial
};
/// Number of fields of MseOutputs (all doubles, in declaration order).
constexpr std::size_t kMseOutputs = 7;

/// float64 arrays of `trials` values that mse_cell holds while a cell runs (the errors, their
/// squares and a scratch array for the compensated sums).
constexpr int kMseWorkArrays = 3;

/// σ of a cell: the number given or its rule at (ξ, D, estimator, convention) (the optimum by the
/// closed-form cubic). Throws std::invalid_argument when ξ lies outside [−1, 1] or σ is not
/// finite and ≥ 0.
double resolve_sigma(const MseCell& cell);

/// The checks of a cell that involve several of its parameters (ξ range, σ, the closed form
/// finite, the estimate's input limits); throws std::invalid_argument naming the problem.
void check_mse_cell(const MseCell& cell);

/// One cell's outputs from `trials` estimates at the cell's seed, the trials on up to `nthreads`
/// threads (≤ 0: all cores). Throws std::invalid_argument for a cell check_mse_cell
/// refuses or whose estimates are not finite, mc::Cancelled when `cancel` is set.
MseOutputs mse_cell(const MseCell& cell, std::size_t trials, int nthreads,
                    const std::atomic<bool>* cancel);

/// A cell's failure inside mse_cells: the message of the cell's std::invalid_argument and the
/// cell's position in the call.
struct CellError : std::invalid_argument {
  CellError(std::size_t pos, const std::string& what)
      : std::invalid_argument(what), position(pos) {}
  std::size_t position;
};

/// mse_cell for cells[0..n) into out[0..n). One cell: its trials on `nthreads` threads. Several:
/// the cells on up to `nthreads` threads (≤ 0: all cores), each cell on one thread, taken in the
/// order given (put the largest first); `finished(pos)` is called from the computing thread after
/// out[pos] is written (it must be thread-safe; may be empty). Every output is bit-identical to
/// mse_cell's for the same cell, whatever n, order and thread count. The first failing cell
/// stops the others (started cells finish) and is rethrown as CellError; mc::Cancelled when
/// `cancel` is set (checked between cells and inside each).
void mse_cells(const MseCell* cells, std::size_t n, std::size_t trials, int nthreads,
               MseOutputs* out, const std::function<void(std::size_t)>& finished,
               const std::atomic<bool>* cancel);

}  // namespace ropelab::sweep
