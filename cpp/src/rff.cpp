#include "ropelab/rff.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/rng.hpp"

namespace ropelab::rff {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr real kNegInf = -std::numeric_limits<real>::infinity();

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// exp(log_scale) * factor rounded to double, without spurious overflow, underflow or 0·inf.
double scaled(real log_scale, real factor) {
  if (factor == 0) return 0.0;
  return static_cast<double>(std::copysign(std::exp(log_scale + std::log(std::fabs(factor))), factor));
}

/// log(exp(x) + exp(y)) with −inf allowed.
real log_add_exp(real x, real y) {
  if (x == kNegInf) return y;
  if (y == kNegInf) return x;
  const real m = std::max(x, y);
  return m + std::log1p(std::exp(-std::fabs(x - y)));
}

/// log|x| with log 0 = −inf.
real log_abs(real x) { return x == 0 ? kNegInf : std::log(std::fabs(x)); }

/// ‖u‖² of the trig estimator's frequency argument: ‖q−k‖² (conjugate) or ‖q+k‖² (literal).
real trig_norm2(const Pair& p, Estimator est, Convention conv) {
  return (est == Estimator::trig && conv == Convention::literal) ? p.a : p.b;
}

/// Exponent e with E[X] − exp(q·k) = exp(q·k) · expm1(e).
real bias_exponent(const Pair& p, real s2, Estimator est, Convention conv) {
  switch (est) {
    case Estimator::positive:
      return 0.5L * (s2 - 1) * p.a;
    case Estimator::random_phase:
      return 0.5L * (1 - s2) * p.b;
    case Estimator::trig:
      break;
  }
  return conv == Convention::literal ? 0.5L * (p.b - s2 * p.a) : 0.5L * (1 - s2) * p.b;
}

/// Var[X] = exp(log_scale) * factor, factor ≥ 0.
void variance_parts(const Pair& p, real s2, Estimator est, Convention conv, real& log_scale,
                    real& factor) {
  const real n = p.n();
  switch (est) {
    case Estimator::positive:
      log_scale = s2 * p.a - n;
      factor = std::expm1(s2 * p.a);
      return;
    case Estimator::random_phase: {
      const real e = std::expm1(-s2 * p.b);
      log_scale = n;
      factor = 0.5L * e * e + 0.5L;
      return;
    }
    case Estimator::trig: {
      const real e = std::expm1(-s2 * trig_norm2(p, est, conv));
      log_scale = n;
      factor = 0.5L * e * e;
      return;
    }
  }
}

real log_mean(const Pair& p, real s2, Estimator est, Convention conv) {
  if (est == Estimator::positive) return 0.5L * (s2 * p.a - p.n());
  return 0.5L * (p.n() - s2 * trig_norm2(p, est, conv));
}

/// log MSE in extended precision.
real log_mse_ext(const Pair& p, double sigma, double D, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  const real log_var_over_D = log_scale + log_abs(factor) - std::log(static_cast<real>(D));
  const real log_bias2 = 2 * (p.qk + log_abs(std::expm1(bias_exponent(p, s2, est, conv))));
  return log_add_exp(log_var_over_D, log_bias2);
}

}  // namespace

Estimator parse_estimator(const std::string& name) {
  if (name == "trig") return Estimator::trig;
  if (name == "random_phase") return Estimator::random_phase;
  if (name == "positive") return Estimator::positive;
  throw std::invalid_argument("estimator must be one of 'trig', 'random_phase', 'positive', got '" +
                              name + "'");
}

Convention parse_convention(const std::string& name) {
  if (name == "conjugate") return Convention::conjugate;
  if (name == "literal") return Convention::literal;
  throw std::invalid_argument("convention must be 'conjugate' or 'literal', got '" + name + "'");
}

Pair make_pair(const double* q, const double* k, std::size_t d) {
  Pair p;
  for (std::size_t i = 0; i < d; ++i) {
    const real qi = q[i], ki = k[i];
    p.nq2 += qi * qi;
    p.nk2 += ki * ki;
    p.qk += qi * ki;
    p.a += (qi + ki) * (qi + ki);
    p.b += (qi - ki) * (qi - ki);
  }
  // Cholesky of the Gram matrix; l22 = ‖k − (q·k/‖q‖²) q‖ avoids the cancellation of
  // sqrt(‖k‖² − (q·k)²/‖q‖²) for nearly parallel q, k.
  if (p.nq2 > 0) {
    p.l11 = static_cast<double>(std::sqrt(p.nq2));
    p.l21 = static_cast<double>(p.qk / std::sqrt(p.nq2));
    const real c = p.qk / p.nq2;
    real r2 = 0;
    for (std::size_t i = 0; i < d; ++i) {
      const real r = k[i] - c * q[i];
      r2 += r * r;
    }
    p.l22 = static_cast<double>(std::sqrt(r2));
  } else {
    p.l22 = static_cast<double>(std::sqrt(p.nk2));
  }
  return p;
}

Pair make_unit_pair(double xi) {
  Pair p;
  p.nq2 = p.nk2 = 1;
  p.qk = xi;
  p.a = 2 + 2 * static_cast<real>(xi);
  p.b = 2 - 2 * static_cast<real>(xi);
  p.l11 = 1.0;
  p.l21 = xi;
  p.l22 = std::sqrt(std::max(0.0, (1.0 - xi) * (1.0 + xi)));
  return p;
}

Moments moments(const Pair& p, double sigma, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  return {static_cast<double>(std::exp(log_mean(p, s2, est, conv))), scaled(log_scale, factor)};
}

Moments log_moments(const Pair& p, double sigma, Estimator est, Convention conv) {
  const real s2 = static_cast<real>(sigma) * sigma;
  real log_scale = 0, factor = 0;
  variance_parts(p, s2, est, conv, log_scale, factor);
  return {static_cast<double>(log_mean(p, s2, est, conv)),
          static_cast<double>(log_scale + log_abs(factor))};
}

double mse(const Pair& p, double sigma, double D, Estimator est, Convention conv) {
  // exp of the extended-precision log: relative error ~ |log MSE|·2⁻⁶⁴ before the final rounding.
  return static_cast<double>(std::exp(log_mse_ext(p, sigma, D, est, conv)));
}

double log_mse(const Pair& p, double sigma, double D, Estimator est, Convention conv) {
  return static_cast<double>(log_mse_ext(p, sigma, D, est, conv));
}

std::size_t feature_count(Estimator est, std::size_t D) {
  return est == Estimator::trig ? 2 * D : D;
}

namespace {

/// Produces the frequency rows of one Monte-Carlo unit, up to d rows at a time, always in the
/// same order from the same counter range: sample_omega and full-mode estimate share it.
class OmegaRows {
 public:
  OmegaRows(std::size_t d, double sigma, std::uint64_t seed, bool orthogonal, std::uint64_t index)
      : d_(d), sigma_(sigma), orthogonal_(orthogonal),
        stream_(seed, rng::StreamId::omega, index) {}

  /// Next min(d, remaining) rows into `rows` (resized to m×d).
  void next(std::size_t m, RowMatrix& rows) {
    rows.resize(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(d_));
    if (!orthogonal_) {
      stream_.normals(rows.data(), m * d_);
      rows *= sigma_;
      return;
    }
    // A Haar-random orthogonal d×d matrix: QR of a Gaussian matrix with the signs of R's
    // diagonal moved into Q. Its rows get independent χ_d lengths (norms of Gaussian d-vectors),
    // so each row alone is N(0, σ² I) while rows within a block are exactly orthogonal.
    const auto dd = static_cast<Eigen::Index>(d_);
    RowMatrix g(dd, dd);
    stream_.normals(g.data(), d_ * d_);
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
    Eigen::MatrixXd q = qr.householderQ() * Eigen::MatrixXd::Identity(dd, dd);
    const Eigen::MatrixXd& r = qr.matrixQR();
    for (Eigen::Index j = 0; j < dd; ++j) {
      if (r(j, j) < 0) q.col(j) = -q.col(j);
    }
    std::vector<double> z(d_);
    for (std::size_t i = 0; i < d_; ++i) {
      stream_.normals(z.data(), d_);
      double chi2 = 0;
      for (double v : z) chi2 += v * v;
      if (i < m) {
        rows.row(static_cast<Eigen::Index>(i)) =
            (sigma_ * std::sqrt(chi2)) * q.col(static_cast<Eigen::Index>(i)).transpose();
      }
    }
  }

 private:
  std::size_t d_;
  double sigma_;
  bool orthogonal_;
  rng::Stream stream_;
};

/// Long trials look at the cancel flag every 2^16 features (well under a millisecond of work).
constexpr std::size_t kCancelMask = (std::size_t{1} << 16) - 1;

bool is_cancelled(const std::atomic<bool>* cancel) {
  return cancel != nullptr && cancel->load(std::memory_order_relaxed);
}

void check_amplitude(const Pair& p, Estimator est) {
  if (est != Estimator::positive && !std::isfinite(std::exp(static_cast<double>(0.5L * p.n())))) {
    throw std::invalid_argument(
        "the amplitude exp((|q|^2+|k|^2)/2) overflows a double (|q|^2+|k|^2 = " +
        std::to_string(static_cast<double>(p.n())) + "); use the log-domain closed forms instead");
  }
}

}  // namespace

void sample_omega(std::size_t D, std::size_t d, double sigma, std::uint64_t seed, bool orthogonal,
                  std::uint64_t index, double* out) {
  OmegaRows gen(d, sigma, seed, orthogonal, index);
  RowMatrix rows;
  for (std::size_t j = 0; j < D; j += d) {
    const std::size_t m = std::min(d, D - j);
    gen.next(m, rows);
    std::copy(rows.data(), rows.data() + m * d, out + j * d);
  }
}

void sample_phase(std::size_t D, std::uint64_t seed, std::uint64_t index, double* out) {
  rng::Stream s(seed, rng::StreamId::phase, index);
  for (std::size_t j = 0; j < D; ++j) out[j] = kTwoPi * s.uniform();
}

void feature_map(const double* X, std::size_t n, std::size_t d, const double* omega, std::size_t D,
                 Estimator est, const double* phase, double* out) {
  using CMap = Eigen::Map<const RowMatrix>;
  const auto nn = static_cast<Eigen::Index>(n), dd = static_cast<Eigen::Index>(d),
             DD = static_cast<Eigen::Index>(D);
  const CMap x(X, nn, dd), w(omega, DD, dd);
  const RowMatrix proj = x * w.transpose();  // n×D: ω_j·x_i
  const std::size_t F = feature_count(est, D);
  const double inv_sqrt_D = 1.0 / std::sqrt(static_cast<double>(D));
  for (Eigen::Index i = 0; i < nn; ++i) {
    const double half_norm2 = 0.5 * x.row(i).squaredNorm();
    double* row = out + static_cast<std::size_t>(i) * F;
    for (Eigen::Index j = 0; j < DD; ++j) {
      const double z = proj(i, j);
      switch (est) {
        case Estimator::trig: {
          const double amp = scaled(half_norm2, inv_sqrt_D);
          row[j] = amp * std::cos(z);
          row[j + DD] = amp * std::sin(z);
          break;
        }
        case Estimator::random_phase:
          row[j] = scaled(half_norm2, std::sqrt(2.0) * inv_sqrt_D) * std::cos(z + phase[j]);
          break;
        case Estimator::positive:
          row[j] = std::exp(z - half_norm2) * inv_sqrt_D;
          break;
      }
    }
  }
}

void estimate(const double* q, const double* k, std::size_t d, const EstimateOptions& opt,
              std::size_t trials, double* out, const std::atomic<bool>* cancel) {
  const Pair p = make_pair(q, k, d);
  check_amplitude(p, opt.estimator);
  const double half_n = static_cast<double>(0.5L * p.n());
  const double amp = std::exp(half_n);
  const double sigma = opt.sigma;
  const std::size_t D = opt.D;
  const double inv_D = 1.0 / static_cast<double>(D);
  const Estimator est = opt.estimator;
  const bool literal = est == Estimator::trig && opt.convention == Convention::literal;

  // The per-feature term X from the projections pq = ω·q, pk = ω·k (and β for random phase).
  auto term = [&](double pq, double pk, double beta) {
    switch (est) {
      case Estimator::trig:
        return amp * std::cos(literal ? pq + pk : pq - pk);
      case Estimator::random_phase:
        return 2.0 * amp * std::cos(pq + beta) * std::cos(pk + beta);
      case Estimator::positive:
        break;
    }
    return std::exp(pq + pk - half_n);
  };

  if (!opt.full) {
    // Projected mode: ω·u ~ N(0, σ²‖u‖²) exactly. trig and positive need one scalar normal per
    // feature (of ω·(q∓k) resp. ω·(q+k)); random phase needs the 2-D Gaussian (ω·q, ω·k).
    const double s =
        sigma * static_cast<double>(std::sqrt(est == Estimator::trig && !literal ? p.b : p.a));
    mc::parallel_blocks(trials, 64, opt.nthreads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t t = begin; t < end; ++t) {
        rng::Stream normals(opt.seed, rng::StreamId::projected, t);
        double sum = 0;
        if (est == Estimator::random_phase) {
          rng::Stream phases(opt.seed, rng::StreamId::phase, t);
          for (std::size_t j = 0; j < D; ++j) {
            if ((j & kCancelMask) == kCancelMask && is_cancelled(cancel)) return;
            const double g1 = normals.normal(), g2 = normals.normal();
            const double pq = sigma * p.l11 * g1, pk = sigma * (p.l21 * g1 + p.l22 * g2);
            sum += term(pq, pk, kTwoPi * phases.uniform());
          }
        } else {
          // Pass the whole projection as pq (pk = 0): term() combines pq ∓ pk.
          for (std::size_t j = 0; j < D; ++j) {
            if ((j & kCancelMask) == kCancelMask && is_cancelled(cancel)) return;
            sum += term(s * normals.normal(), 0.0, 0.0);
          }
        }
        out[t] = sum * inv_D;
      }
    }, cancel);
    return;
  }

  const Eigen::Map<const Eigen::VectorXd> qv(q, static_cast<Eigen::Index>(d)),
      kv(k, static_cast<Eigen::Index>(d));
  mc::parallel_blocks(trials, 8, opt.nthreads, [&](std::size_t begin, std::size_t end) {
    RowMatrix rows;
    Eigen::VectorXd pq, pk;
    for (std::size_t t = begin; t < end; ++t) {
      OmegaRows gen(d, sigma, opt.seed, opt.orthogonal, t);
      rng::Stream phases(opt.seed, rng::StreamId::phase, t);
      double sum = 0;
      for (std::size_t j = 0; j < D; j += d) {
        if (is_cancelled(cancel)) return;
        const std::size_t m = std::min(d, D - j);
        gen.next(m, rows);
        pq.noalias() = rows * qv;
        pk.noalias() = rows * kv;
        for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(m); ++i) {
          const double beta = est == Estimator::random_phase ? kTwoPi * phases.uniform() : 0.0;
          sum += term(pq[i], pk[i], beta);
        }
      }
      out[t] = sum * inv_D;
    }
  }, cancel);
}

}  // namespace ropelab::rff
