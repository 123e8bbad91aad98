// ropelab._core.transition: effective transitions, commutators, norms, Householder
// (core: cpp/include/ropelab/transition.hpp).
#include <cmath>
#include <complex>

#include "batch.hpp"
#include "common.hpp"
#include "ropelab/transition.hpp"

namespace ropelab::bind {

namespace {

using carray = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>;

/// ψ as a 1-D array of d/2 ≥ 1 phases.
darray psi_arg(py::handle obj, const char* f, const char* name) {
  const darray p = real_array_nd(obj, f, name, 1);
  if (p.size() == 0) value_error(f, name, "must have at least one phase (d/2 >= 1)", obj);
  return p;
}

/// One step's gate: None (Λ = I), a scalar or (1,), (d/2,) per pair, (d,) per channel; in [0, 1].
struct OneGate {
  darray values;
  recurrence::Gates g;
};

OneGate one_gate(py::handle obj, std::size_t d, const char* f) {
  OneGate r;
  if (obj.is_none()) return r;
  r.values = real_array(obj, f, "gate");
  const std::size_t n = static_cast<std::size_t>(r.values.size());
  if (r.values.ndim() > 1 || (n != 1 && n != d / 2 && n != d)) {
    value_error(f, "gate",
                "must be a scalar or have shape (1,), (d/2,) = (" + std::to_string(d / 2) +
                    ",) or (d,) = (" + std::to_string(d) + ",), has shape " +
                    shape_str(r.values),
                obj);
  }
  require_each(r.values, f, "gate", "must be decays in [0, 1]",
               [](double x) { return x >= 0.0 && x <= 1.0; });
  r.g.values = r.values.data();
  r.g.width = n;
  r.g.per_channel = n == d && n != 1;
  return r;
}

darray effective(py::handle pp_o, py::handle pt_o, py::handle gate_o, py::handle layout_o) {
  const char* f = "transition.effective";
  const darray pp = psi_arg(pp_o, f, "psi_prev"), pt = psi_arg(pt_o, f, "psi_t");
  if (pp.size() != pt.size()) mismatch(f, "psi_prev and psi_t must have the same length d/2", "psi_prev", pp, "psi_t", pt);
  const auto d = static_cast<std::size_t>(2 * pp.size());
  const OneGate g = one_gate(gate_o, d, f);
  const rotary::Layout layout = layout_arg(layout_o, f);
  darray out({static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  transition::effective(pp.data(), pt.data(), g.g, d, layout, out.mutable_data());
  return out;
}

darray effective_sequence(py::handle psi_o, py::handle gates_o, py::handle layout_o) {
  const char* f = "transition.effective_sequence";
  const darray psi = real_array_nd(psi_o, f, "psi", 2);
  const auto T = static_cast<std::size_t>(psi.shape(0));
  const auto h = static_cast<std::size_t>(psi.shape(1));
  if (h == 0) value_error(f, "psi", "must have d/2 >= 1 columns", psi_o);
  const std::size_t d = 2 * h;
  const rotary::Layout layout = layout_arg(layout_o, f);
  recurrence::Gates g;
  darray gv;
  if (!gates_o.is_none()) {
    gv = real_array_nd(gates_o, f, "gates", 2);
    const auto w = static_cast<std::size_t>(gv.shape(1));
    if (static_cast<std::size_t>(gv.shape(0)) != T || (w != 1 && w != h && w != d)) {
      value_error(f, "gates",
                  "must have shape (T, 1), (T, d/2) or (T, d) with T = " + std::to_string(T) +
                      ", d = " + std::to_string(d) + ", has shape " + shape_str(gv),
                  gates_o);
    }
    require_each(gv, f, "gates", "must be decays in [0, 1]",
                 [](double x) { return x >= 0.0 && x <= 1.0; });
    g.values = gv.data();
    g.width = w;
    g.per_channel = w == d && w != 1;
  }
  check_output_size(static_cast<double>(T) * static_cast<double>(d * d), f);
  darray out({static_cast<py::ssize_t>(T), static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  double* po = out.mutable_data();
  {
    // Safe without the GIL: reads psi and the gates, writes out.
    py::gil_scoped_release release;
    transition::effective_sequence(psi.data(), T, g, d, layout, po);
  }
  return out;
}

double commutator_norm(py::handle psi_o, py::handle gate_o, py::handle layout_o, py::handle norm_o) {
  const char* f = "transition.commutator_norm";
  const darray psi = psi_arg(psi_o, f, "psi_prev");
  const auto d = static_cast<std::size_t>(2 * psi.size());
  const OneGate g = one_gate(gate_o, d, f);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const transition::Norm norm = parse_choice(norm_o, f, "norm", transition::parse_norm);
  return transition::commutator_norm(psi.data(), g.g, d, layout, norm);
}

/// Matrices (..., m, n).
darray matrices(py::handle obj, const char* f, const char* name, bool square) {
  darray a = array_min_nd(obj, f, name, 2, square ? "(..., n, n)" : "(..., m, n)");
  if (square && a.shape(a.ndim() - 1) != a.shape(a.ndim() - 2)) {
    value_error(f, name, "must be square (shape (..., n, n)), has shape " + shape_str(a), obj);
  }
  return a;
}

darray singular_values(py::handle A_o) {
  const char* f = "transition.singular_values";
  const darray A = matrices(A_o, f, "A", false);
  const auto m = static_cast<std::size_t>(A.shape(A.ndim() - 2));
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t k = std::min(m, n), batch = product(lead_shape(A, 2));
  std::vector<py::ssize_t> shape = lead_shape(A, 2);
  shape.push_back(static_cast<py::ssize_t>(k));
  darray out(shape);
  double* po = out.mutable_data();
  {
    // Safe without the GIL: reads A, writes out.
    py::gil_scoped_release release;
    for (std::size_t b = 0; b < batch; ++b) {
      if (k > 0) transition::singular_values(A.data() + b * m * n, m, n, po + b * k);
    }
  }
  return out;
}

darray spectral_norm(py::handle A_o) {
  const char* f = "transition.spectral_norm";
  const darray A = matrices(A_o, f, "A", false);
  const auto m = static_cast<std::size_t>(A.shape(A.ndim() - 2));
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t batch = product(lead_shape(A, 2));
  darray out(lead_shape(A, 2));
  double* po = out.mutable_data();
  {
    // Safe without the GIL: reads A, writes out.
    py::gil_scoped_release release;
    for (std::size_t b = 0; b < batch; ++b) po[b] = transition::spectral_norm(A.data() + b * m * n, m, n);
  }
  return out;
}

carray eigenvalues(py::handle A_o) {
  const char* f = "transition.eigenvalues";
  const darray A = matrices(A_o, f, "A", true);
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t batch = product(lead_shape(A, 2));
  std::vector<py::ssize_t> shape = lead_shape(A, 2);
  shape.push_back(static_cast<py::ssize_t>(n));
  carray out(shape);
  std::complex<double>* po = out.mutable_data();
  {
    // Safe without the GIL: reads A, writes out.
    py::gil_scoped_release release;
    for (std::size_t b = 0; b < batch; ++b) transition::eigenvalues(A.data() + b * n * n, n, po + b * n);
  }
  return out;
}

darray nonzero_vector(py::handle obj, const char* f) {
  const darray w = real_array_nd(obj, f, "w", 1);
  double n2 = 0;
  for (py::ssize_t i = 0; i < w.size(); ++i) n2 += w.data()[i] * w.data()[i];
  if (w.size() == 0 || !(n2 > 0) || !std::isfinite(n2)) {
    value_error(f, "w", "must be a non-empty, non-zero vector (with finite squared norm)", obj);
  }
  return w;
}

darray householder(py::handle w_o) {
  const char* f = "transition.householder";
  const darray w = nonzero_vector(w_o, f);
  const auto d = static_cast<std::size_t>(w.size());
  darray out({static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  transition::householder(w.data(), d, out.mutable_data());
  return out;
}

darray generalized_householder(py::handle w_o, py::handle beta_o) {
  const char* f = "transition.generalized_householder";
  const darray w = nonzero_vector(w_o, f);
  const double beta = real_scalar(beta_o, f, "beta");
  const auto d = static_cast<std::size_t>(w.size());
  darray out({static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  transition::generalized_householder(w.data(), d, beta, out.mutable_data());
  return out;
}

darray householder_product(py::handle W_o) {
  const char* f = "transition.householder_product";
  const darray W = real_array_nd(W_o, f, "W", 2);
  const auto m = static_cast<std::size_t>(W.shape(0)), d = static_cast<std::size_t>(W.shape(1));
  if (d == 0) value_error(f, "W", "must have at least one column", W_o);
  for (std::size_t j = 0; j < m; ++j) {
    double n2 = 0;
    for (std::size_t c = 0; c < d; ++c) n2 += W.data()[j * d + c] * W.data()[j * d + c];
    if (!(n2 > 0) || !std::isfinite(n2)) {
      value_error(f, "W", "must have non-zero rows (row " + std::to_string(j) + " is zero or overflows)", W_o);
    }
  }
  darray out({static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  transition::householder_product(W.data(), m, d, out.mutable_data());
  return out;
}

darray prf_transition_factor(py::handle q_o, py::handle omega_o) {
  const char* f = "transition.prf_transition_factor";
  const darray q = real_array_nd(q_o, f, "q", 2);
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  if (omega.shape(1) != q.shape(1)) mismatch(f, "omega must have shape (D, d) with the d of q", "q", q, "omega", omega);
  const auto T = static_cast<std::size_t>(q.shape(0));
  const auto D = static_cast<std::size_t>(omega.shape(0));
  const std::size_t rows = T > 0 ? T - 1 : 0;
  darray out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(D)});
  double* po = out.mutable_data();
  {
    // Safe without the GIL: reads q and omega, writes out.
    py::gil_scoped_release release;
    transition::prf_transition_factor(q.data(), T, static_cast<std::size_t>(q.shape(1)),
                                      omega.data(), D, po);
  }
  return out;
}

py::dict prf_factor_distribution(py::handle dn_o, py::handle sigma_o) {
  const char* f = "transition.prf_factor_distribution";
  const double dn = real_scalar(dn_o, f, "delta_norm");
  if (dn < 0) value_error(f, "delta_norm", "must be >= 0", dn_o);
  const double sigma = real_scalar(sigma_o, f, "sigma");
  if (sigma < 0) value_error(f, "sigma", "must be >= 0", sigma_o);
  const transition::FactorDistribution r = transition::prf_factor_distribution(dn, sigma);
  return py::dict("mean"_a = r.mean, "variance"_a = r.variance, "median"_a = r.median,
                  "prob_gt_one"_a = r.prob_gt_one);
}

}  // namespace

void register_transition(py::module_& m) {
  m.def("effective", &effective, "psi_prev"_a, "psi_t"_a, "gate"_a, "layout"_a);
  m.def("effective_sequence", &effective_sequence, "psi"_a, "gates"_a, "layout"_a);
  m.def("commutator_norm", &commutator_norm, "psi_prev"_a, "gate"_a, "layout"_a, "norm"_a);
  m.def("singular_values", &singular_values, "A"_a);
  m.def("spectral_norm", &spectral_norm, "A"_a);
  m.def("eigenvalues", &eigenvalues, "A"_a);
  m.def("householder", &householder, "w"_a);
  m.def("generalized_householder", &generalized_householder, "w"_a, "beta"_a);
  m.def("householder_product", &householder_product, "W"_a);
  m.def("prf_transition_factor", &prf_transition_factor, "q"_a, "omega"_a);
  m.def("prf_factor_distribution", &prf_factor_distribution, "delta_norm"_a, "sigma"_a);
}

}  // namespace ropelab::bind
