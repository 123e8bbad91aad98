#include "ropelab/transition.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "ropelab/names.hpp"

namespace ropelab::transition {

namespace {
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMat>;
using Map = Eigen::Map<RowMat>;

/// Dense diag(Λ) for gate row t.
Eigen::VectorXd gate_diagonal(const recurrence::Gates& g, std::size_t t, std::size_t d,
                              rotary::Layout layout) {
  Eigen::VectorXd lam(static_cast<Eigen::Index>(d));
  for (std::size_t i = 0; i < d / 2; ++i) {
    std::size_t c0 = 0, c1 = 0;
    rotary::pair_channels(layout, d, i, c0, c1);
    lam[static_cast<Eigen::Index>(c0)] = recurrence::gate_value(g, t, c0, i);
    lam[static_cast<Eigen::Index>(c1)] = recurrence::gate_value(g, t, c1, i);
  }
  return lam;
}

RowMat rotation(const double* psi, std::size_t d, rotary::Layout layout) {
  RowMat C(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  rotary::rotation_matrix(psi, d, layout, C.data());
  return C;
}
}  // namespace

Norm parse_norm(const std::string& name) {
  static const std::vector<std::string> norm_names{"2", "fro"};
  return names::parse<Norm>(norm_names, name, "norm");
}

void effective(const double* psi_prev, const double* psi_t, const recurrence::Gates& gate,
               std::size_t d, rotary::Layout layout, double* out) {
  const RowMat Cp = rotation(psi_prev, d, layout), Ct = rotation(psi_t, d, layout);
  const Eigen::VectorXd lam = gate_diagonal(gate, 0, d, layout);
  Map(out, static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d)).noalias() =
      Cp.transpose() * lam.asDiagonal() * Ct;
}

void effective_sequence(const double* psi, std::size_t T, const recurrence::Gates& gates,
                        std::size_t d, rotary::Layout layout, double* out) {
  const std::size_t h = d / 2;
  std::vector<double> zero(h, 0.0);
  for (std::size_t t = 0; t < T; ++t) {
    recurrence::Gates row = gates;
    if (gates.width != 0) row.values = gates.values + t * gates.width;
    effective(t == 0 ? zero.data() : psi + (t - 1) * h, psi + t * h, row, d, layout,
              out + t * d * d);
  }
}

double commutator_norm(const double* psi, const recurrence::Gates& gate, std::size_t d,
                       rotary::Layout layout, Norm norm) {
  const RowMat C = rotation(psi, d, layout);
  const Eigen::VectorXd lam = gate_diagonal(gate, 0, d, layout);
  const RowMat K = lam.asDiagonal() * C - C * lam.asDiagonal();
  if (norm == Norm::frobenius) return K.norm();
  return spectral_norm(K.data(), d, d);
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
  if (es.info() != Eigen::Success) throw std::runtime_error("eigenvalues: the QR iteration did not converge");
  const Eigen::VectorXcd ev = es.eigenvalues();
  std::vector<std::complex<double>> v(ev.data(), ev.data() + ev.size());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    const double ma = std::abs(a), mb = std::abs(b);
    if (ma != mb) return ma > mb;
    return std::arg(a) < std::arg(b);
  });
  std::copy(v.begin(), v.end(), out);
}

void generalized_householder(const double* w, std::size_t d, double beta, double* out) {
  double n2 = 0.0;
  for (std::size_t i = 0; i < d; ++i) n2 += w[i] * w[i];
  if (!(n2 > 0.0)) throw std::invalid_argument("w must be a non-zero vector");
  for (std::size_t r = 0; r < d; ++r) {
    for (std::size_t c = 0; c < d; ++c) {
      out[r * d + c] = (r == c ? 1.0 : 0.0) - beta * w[r] * w[c] / n2;
    }
  }
}

void householder(const double* w, std::size_t d, double* out) {
  generalized_householder(w, d, 2.0, out);
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

void prf_transition_factor(const double* q, std::size_t T, std::size_t d, const double* omega,
                           std::size_t D, double* out) {
  for (std::size_t t = 1; t < T; ++t) {
    for (std::size_t j = 0; j < D; ++j) {
      double s = 0.0;
      for (std::size_t c = 0; c < d; ++c) s += omega[j * d + c] * (q[t * d + c] - q[(t - 1) * d + c]);
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
