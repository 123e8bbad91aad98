#include "ropelab/transition.hpp"

#include "ropelab/montecarlo.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/names.hpp"

namespace ropelab::transition {

namespace {
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat>;
using Map = Eigen::Map<RowMat>;

/// Throws mc::Cancelled when `cancel` (may be null) is set.
inline void poll(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// out = 0 (d×d), polling `cancel` about every 2^16 entries.
void zero_square(double* out, std::size_t d, const std::atomic<bool>* cancel) {
  const std::size_t rows =
      std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(d, 1));
  for (std::size_t r = 0; r < d; r += rows) {
    poll(cancel);
    const std::size_t e = std::min(d, r + rows);
    std::fill(out + r * d, out + e * d, 0.0);
  }
}

}  // namespace

const std::vector<std::string>& norm_names() {
  static const std::vector<std::string> n{"2", "fro"};
  return n;
}

Norm parse_norm(const std::string& name) {
  return names::parse<Norm>(norm_names(), name, "norm");
}

void effective(const double* angles_prev, const double* angles, const recurrence::Gates& gates,
               std::size_t d, rotary::Layout layout, double* out, const std::atomic<bool>* cancel) {
  zero_square(out, d, cancel);
  // Pair i (channels c0, c1): the block R(ψ_prev)ᵀ diag(λ_c0, λ_c1) R(ψ_t), in the order of the
  // dense product (R(ψ_prev)ᵀ Λ) R(ψ_t), with R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]].
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    rotary::pair_channels(layout, d, i, c0, c1);
    const double l0 = recurrence::gate_value(gates, 0, c0, i),
                 l1 = recurrence::gate_value(gates, 0, c1, i);
    const double cp = std::cos(angles_prev[i]), sp = std::sin(angles_prev[i]);
    const double ct = std::cos(angles[i]), st = std::sin(angles[i]);
    const double a00 = cp * l0, a01 = sp * l1, a10 = -sp * l0, a11 = cp * l1;
    out[c0 * d + c0] = a00 * ct + a01 * st;
    out[c0 * d + c1] = a00 * -st + a01 * ct;
    out[c1 * d + c0] = a10 * ct + a11 * st;
    out[c1 * d + c1] = a10 * -st + a11 * ct;
  }
}

void effective_sequence(const double* angles, std::size_t T, const recurrence::Gates& gates,
                        std::size_t d, rotary::Layout layout, double* out,
                        const std::atomic<bool>* cancel) {
  const std::size_t h = d / 2;
  std::vector<double> zero(h, 0.0);
  for (std::size_t t = 0; t < T; ++t) {
    recurrence::Gates row = gates;
    if (gates.width != 0) row.values = gates.values + t * gates.width;
    effective(t == 0 ? zero.data() : angles + (t - 1) * h, angles + t * h, row, d, layout,
              out + t * d * d, cancel);
  }
}

double commutator_norm(const double* angles, const recurrence::Gates& gates, std::size_t d,
                       rotary::Layout layout, Norm norm) {
  // Block i of K = ΛC − CΛ is [[0, a_i], [b_i, 0]] with a_i = −(λ_c0 − λ_c1) sin ψ_i and
  // b_i = (λ_c1 − λ_c0) sin ψ_i (the diagonal cancels exactly); its singular values are |a_i| and
  // |b_i|, so ‖K‖₂ = max |a_i|, |b_i| and ‖K‖_F² = Σ a_i² + b_i² (scaled: no overflow/underflow).
  std::vector<double> v(d);
  double big = 0.0;
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    rotary::pair_channels(layout, d, i, c0, c1);
    const double l0 = recurrence::gate_value(gates, 0, c0, i),
                 l1 = recurrence::gate_value(gates, 0, c1, i);
    const double s = std::sin(angles[i]);
    v[2 * i] = std::abs(l0 * -s - -s * l1);  // the entries of the dense product, in its order
    v[2 * i + 1] = std::abs(l1 * s - s * l0);
    big = std::max(big, std::max(v[2 * i], v[2 * i + 1]));
  }
  if (norm == Norm::spectral || !(big > 0.0)) return big;
  double sum = 0.0;
  for (double x : v) sum += (x / big) * (x / big);
  return big * std::sqrt(sum);
}

void singular_values(const double* A, std::size_t m, std::size_t n, double* out) {
  const ConstMap M(A, static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
  Eigen::JacobiSVD<RowMat> svd(M);  // one-sided Jacobi: accurate small singular values too
  const Eigen::VectorXd s = svd.singularValues();
  for (Eigen::Index i = 0; i < s.size(); ++i) out[i] = s[i];
}

double spectral_norm(const double* A, std::size_t m, std::size_t n) {
  if (m == 0 || n == 0) return 0.0;
  std::vector<double> s(std::min(m, n));
  singular_values(A, m, n, s.data());
  return s[0];
}

void eigenvalues(const double* A, std::size_t n, std::complex<double>* out) {
  if (n == 0) return;
  const RowMat M = ConstMap(A, static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  Eigen::EigenSolver<RowMat> es(M, /*computeEigenvectors=*/false);
  if (es.info() != Eigen::Success)
    throw std::runtime_error("eigenvalues: the QR iteration did not converge");
  const Eigen::VectorXcd ev = es.eigenvalues();
  std::vector<std::complex<double>> v(ev.data(), ev.data() + ev.size());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    const double ma = std::abs(a), mb = std::abs(b);
    if (ma != mb) return ma > mb;
    return std::arg(a) < std::arg(b);
  });
  std::copy(v.begin(), v.end(), out);
}

void generalized_householder(const double* w, std::size_t d, double beta, double* out,
                             const std::atomic<bool>* cancel) {
  double n2 = 0.0;
  for (std::size_t i = 0; i < d; ++i) n2 += w[i] * w[i];
  if (!(n2 > 0.0)) throw std::invalid_argument("w must be a non-zero vector");
  const std::size_t rows =
      std::max<std::size_t>(1, (std::size_t{1} << 16) / std::max<std::size_t>(d, 1));
  for (std::size_t r = 0; r < d; ++r) {
    if (r % rows == 0) poll(cancel);
    for (std::size_t c = 0; c < d; ++c) {
      out[r * d + c] = (r == c ? 1.0 : 0.0) - beta * w[r] * w[c] / n2;
    }
  }
}

void householder(const double* w, std::size_t d, double* out, const std::atomic<bool>* cancel) {
  generalized_householder(w, d, 2.0, out, cancel);
}

void householder_product(const double* W, std::size_t m, std::size_t d, double* out) {
  const auto n = static_cast<Eigen::Index>(d);
  Map P(out, n, n);
  P.setIdentity();
  RowMat H(n, n);
  for (std::size_t j = 0; j < m; ++j) {
    householder(W + j * d, d, H.data());
    P = (H * P).eval();  // later reflections act after earlier ones
  }
}

namespace {

/// The largest binary exponent of x[0..n) (ilogb; INT_MIN/2 when every entry is 0).
int largest_exponent(const double* x, std::size_t n) {
  int e = std::numeric_limits<int>::min() / 2;
  for (std::size_t c = 0; c < n; ++c) {
    if (x[c] != 0) e = std::max(e, std::ilogb(x[c]));
  }
  return e;
}

/// ω·(a − b) of finite vectors whose direct evaluation overflowed (a difference or a product
/// beyond a double, possibly inf − inf): ω is scaled by 2^−eω and a, b by 2^−(e_q + 1), powers
/// of two with |ω'| < 2 and |a' − b'| < 2, so nothing overflows; the sum's exponent is restored at
/// the end (±inf when the true value is beyond a double). Entries below 2^−1074 of the scaled
/// range are lost: far below the rounding of the largest term.
double scaled_difference_dot(const double* w, const double* a, const double* b, std::size_t d) {
  const int ew = largest_exponent(w, d);
  const int eq = std::max(largest_exponent(a, d), largest_exponent(b, d)) + 1;
  double s = 0.0;
  for (std::size_t c = 0; c < d; ++c) {
    s += std::ldexp(w[c], -ew) * (std::ldexp(a[c], -eq) - std::ldexp(b[c], -eq));
  }
  return std::ldexp(s, ew + eq);
}

}  // namespace

void prf_transition_factor(const double* q, std::size_t T, std::size_t d, const double* omega,
                           std::size_t D, double* out) {
  for (std::size_t t = 1; t < T; ++t) {
    const double* a = q + t * d;
    const double* b = q + (t - 1) * d;
    for (std::size_t j = 0; j < D; ++j) {
      const double* w = omega + j * d;
      double s = 0.0;
      for (std::size_t c = 0; c < d; ++c) s += w[c] * (a[c] - b[c]);
      if (!std::isfinite(s)) s = scaled_difference_dot(w, a, b, d);  // overflow on the way
      out[(t - 1) * D + j] = std::exp(s);
    }
  }
}

FactorDistribution prf_factor_distribution(double delta_norm, double sigma) {
  const double s2 = sigma * sigma * delta_norm * delta_norm;
  FactorDistribution f{};
  f.mean = std::exp(0.5 * s2);
  f.variance = std::expm1(s2) * std::exp(s2);
  f.median = 1.0;
  f.prob_gt_one = s2 > 0 ? 0.5 : 0.0;
  return f;
}

}  // namespace ropelab::transition
