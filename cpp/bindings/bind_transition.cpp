// ropelab._core.transition: effective transitions, commutators, norms, Householder
// (core: cpp/include/ropelab/transition.hpp).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <memory>
#include <vector>

#include "batch.hpp"
#include "common.hpp"
#include "result_class.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/transition.hpp"

namespace ropelab::bind {

namespace {

/// ψ of shape (..., d/2) with d/2 ≥ 1 angles.
darray angles_arg(py::handle obj, const char* f, const char* name) {
  const darray p = array_min_nd(obj, f, name, 1, "(..., d/2)");
  if (p.shape(p.ndim() - 1) == 0)
    value_error(f, name, "must have at least one angle (d/2 >= 1)", obj);
  return p;
}

/// Gates of one step for a batch of angles: None (Λ = I), a scalar, or (..., w) with w = 1,
/// d/2 (per pair) or d (per channel) whose leading dimensions broadcast over the batch (suffix
/// rule); values in [0, 1].
struct BatchGate {
  darray values;
  std::size_t width = 0, count = 1, d = 0;
  recurrence::Gates at(std::size_t b) const {
    return gates_view(width == 0 ? nullptr : values.data() + (b % count) * width, width, d);
  }
};

BatchGate batch_gate(py::handle obj, const std::vector<py::ssize_t>& lead, std::size_t d,
                     const char* f) {
  BatchGate r;
  r.d = d;
  if (obj.is_none()) return r;
  r.values = real_array(obj, f, "gates");
  const std::size_t w =
      gate_width(r.values, d, f, "gates",
                 "must be a scalar or have shape (..., 1), (..., d/2) = (..., " +
                     std::to_string(d / 2) + ") or (..., d) = (..., " + std::to_string(d) + ")",
                 obj);
  r.count = r.values.ndim() == 0
                ? 1
                : suffix_batch(lead, lead_shape(r.values, 1), f, "gates", "angles_prev", obj);
  r.width = w;
  return r;
}

/// angles_prev (and angles) of one shape; returns d.
std::size_t angle_pair(const darray& pp, const darray* pt, const char* f) {
  if (pt != nullptr && shape_of(pp) != shape_of(*pt)) {
    mismatch(f, "angles_prev and angles must have the same shape (..., d/2)", "angles_prev", pp,
             "angles", *pt);
  }
  return static_cast<std::size_t>(2 * pp.shape(pp.ndim() - 1));
}

darray effective(ArrayLike pp_o, ArrayLike pt_o, OptionalArrayLike gates_o, Choice layout_o) {
  const char* f = "transition.effective";
  const darray pp = angles_arg(pp_o, f, "angles_prev"), pt = angles_arg(pt_o, f, "angles");
  const std::size_t d = angle_pair(pp, &pt, f), h = d / 2;
  const std::vector<py::ssize_t> lead = lead_shape(pp, 1);
  const BatchGate g = batch_gate(gates_o, lead, d, f);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const std::size_t batch = product(lead);
  std::vector<py::ssize_t> shape = lead;
  shape.push_back(static_cast<py::ssize_t>(d));
  shape.push_back(static_cast<py::ssize_t>(d));
  check_output_size(static_cast<double>(batch) * static_cast<double>(d * d), f, "pp and pt");
  darray out(shape);
  double* po = out.mutable_data();
  // Safe without the GIL: reads the angles and gates, writes out (run_polled: Ctrl-C).
  run_polled(static_cast<double>(batch) * static_cast<double>(d * d),
             [&](const std::atomic<bool>* cancel) {
               for (std::size_t b = 0; b < batch; ++b) {
                 poll(cancel);
                 transition::effective(pp.data() + b * h, pt.data() + b * h, g.at(b), d, layout,
                                       po + b * d * d, cancel);
               }
             });
  return out;
}

darray effective_sequence(ArrayLike angles_o, OptionalArrayLike gates_o, Choice layout_o) {
  const char* f = "transition.effective_sequence";
  const darray angles = real_array_nd(angles_o, f, "angles", 2);
  const auto T = static_cast<std::size_t>(angles.shape(0));
  const auto h = static_cast<std::size_t>(angles.shape(1));
  if (h == 0) value_error(f, "angles", "must have d/2 >= 1 columns", angles_o);
  const std::size_t d = 2 * h;
  const rotary::Layout layout = layout_arg(layout_o, f);
  recurrence::Gates g;
  darray gv;
  if (!gates_o.is_none()) {
    gv = real_array_nd(gates_o, f, "gates", 2);
    const std::string rule =
        "must have shape (T, 1), (T, d/2) or (T, d) with T = " + std::to_string(T) +
        ", d = " + std::to_string(d);
    if (static_cast<std::size_t>(gv.shape(0)) != T) {
      value_error(f, "gates", rule + ", has shape " + shape_str(gv), gates_o);
    }
    g = gates_view(gv.data(), gate_width(gv, d, f, "gates", rule, gates_o), d);
  }
  check_output_size(static_cast<double>(T) * static_cast<double>(d * d), f, "angles");
  darray out(
      {static_cast<py::ssize_t>(T), static_cast<py::ssize_t>(d), static_cast<py::ssize_t>(d)});
  double* po = out.mutable_data();
  // Safe without the GIL: reads angles and the gates, writes out (run_polled: Ctrl-C).
  run_polled(static_cast<double>(T) * static_cast<double>(d * d),
             [&](const std::atomic<bool>* cancel) {
               transition::effective_sequence(angles.data(), T, g, d, layout, po, cancel);
             });
  return out;
}

darray commutator_norm(ArrayLike angles_o, OptionalArrayLike gates_o, Choice layout_o,
                       Choice norm_o) {
  const char* f = "transition.commutator_norm";
  const darray angles = angles_arg(angles_o, f, "angles_prev");
  const std::size_t d = angle_pair(angles, nullptr, f), h = d / 2;
  const std::vector<py::ssize_t> lead = lead_shape(angles, 1);
  const BatchGate g = batch_gate(gates_o, lead, d, f);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const transition::Norm norm = parse_choice(norm_o, f, "norm", transition::parse_norm);
  const std::size_t batch = product(lead);
  darray out(lead);
  double* po = out.mutable_data();
  // Safe without the GIL: reads the angles and gates, writes out (run_polled: Ctrl-C).
  run_polled(10.0 * static_cast<double>(angles.size()), [&](const std::atomic<bool>* cancel) {
    for_chunks(batch, 10.0 * static_cast<double>(h), cancel, [&](std::size_t b0, std::size_t e) {
      for (std::size_t b = b0; b < e; ++b) {
        po[b] = transition::commutator_norm(angles.data() + b * h, g.at(b), d, layout, norm);
      }
    });
  });
  return out;
}

/// Matrices (..., m, n).
darray matrices(py::handle obj, const char* f, const char* name, bool square) {
  darray a = array_min_nd(obj, f, name, 2, square ? "(..., n, n)" : "(..., m, n)");
  if (square && a.shape(a.ndim() - 1) != a.shape(a.ndim() - 2)) {
    value_error(f, name, "must be square (shape (..., n, n)), has shape " + shape_str(a), obj);
  }
  return a;
}

/// Power of two near the largest |entry| of the n values at p (1 for a zero matrix): dividing by
/// it is exact and brings tiny (subnormal) and huge matrices into the range where the iterative
/// solvers neither underflow to zero nor overflow (eigenvalues and singular values scale with it).
double scale_of(const double* p, std::size_t n) {
  double m = 0;
  for (std::size_t i = 0; i < n; ++i) m = std::max(m, std::abs(p[i]));
  if (!(m > 0) || !std::isfinite(m)) return 1.0;
  int e = 0;
  std::frexp(m, &e);
  return std::ldexp(1.0, e - 1);
}

/// Runs `per_matrix(scaled A_b, out_b, scale)` for every matrix of a batch on a detached thread
/// that owns copies of the input and the output (an Eigen decomposition cannot be interrupted, so
/// on Ctrl-C the call returns at once and the copy finishes alone, see run_detached).
template <class T, class PerMatrix>
std::vector<T> per_matrix_detached(const darray& A, std::size_t batch, std::size_t mn,
                                   std::size_t k, PerMatrix per_matrix) {
  struct Work {
    std::vector<double> in;
    std::vector<T> out;
  };
  auto w = std::make_shared<Work>();
  w->in.assign(A.data(), A.data() + batch * mn);
  w->out.resize(batch * k);
  run_detached([w, batch, mn, k, per_matrix](const std::atomic<bool>* cancel) {
    for (std::size_t b = 0; b < batch; ++b) {
      if (cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
      double* a = w->in.data() + b * mn;
      const double s = scale_of(a, mn);
      for (std::size_t i = 0; i < mn; ++i) a[i] /= s;
      if (k > 0) per_matrix(a, w->out.data() + b * k);
      for (std::size_t i = 0; i < k; ++i) w->out[b * k + i] *= s;
    }
  });
  return std::move(w->out);
}

darray singular_values(ArrayLike A_o) {
  const char* f = "transition.singular_values";
  const darray A = matrices(A_o, f, "A", false);
  const auto m = static_cast<std::size_t>(A.shape(A.ndim() - 2));
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t k = std::min(m, n), batch = product(lead_shape(A, 2));
  std::vector<py::ssize_t> shape = lead_shape(A, 2);
  shape.push_back(static_cast<py::ssize_t>(k));
  check_output_size(static_cast<double>(batch) * static_cast<double>(m * n), f, "A");
  const std::vector<double> r = per_matrix_detached<double>(
      A, batch, m * n, k,
      [m, n](const double* a, double* o) { transition::singular_values(a, m, n, o); });
  darray out(shape);
  std::copy(r.begin(), r.end(), out.mutable_data());
  require_finite_result(out, f, "a singular value", "it exceeds the double range");
  return out;
}

darray spectral_norm(ArrayLike A_o) {
  const char* f = "transition.spectral_norm";
  const darray A = matrices(A_o, f, "A", false);
  const auto m = static_cast<std::size_t>(A.shape(A.ndim() - 2));
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t batch = product(lead_shape(A, 2));
  check_output_size(static_cast<double>(batch) * static_cast<double>(m * n), f, "A");
  const std::vector<double> r = per_matrix_detached<double>(
      A, batch, m * n, 1,
      [m, n](const double* a, double* o) { *o = transition::spectral_norm(a, m, n); });
  darray out(lead_shape(A, 2));
  std::copy(r.begin(), r.end(), out.mutable_data());
  require_finite_result(out, f, "the spectral norm", "it exceeds the double range");
  return out;
}

carray eigenvalues(ArrayLike A_o) {
  const char* f = "transition.eigenvalues";
  const darray A = matrices(A_o, f, "A", true);
  const auto n = static_cast<std::size_t>(A.shape(A.ndim() - 1));
  const std::size_t batch = product(lead_shape(A, 2));
  std::vector<py::ssize_t> shape = lead_shape(A, 2);
  shape.push_back(static_cast<py::ssize_t>(n));
  check_output_size(2.0 * static_cast<double>(batch) * static_cast<double>(n * n), f, "A");
  const std::vector<std::complex<double>> r = per_matrix_detached<std::complex<double>>(
      A, batch, n * n, n,
      [n](const double* a, std::complex<double>* o) { transition::eigenvalues(a, n, o); });
  carray out(shape);
  std::copy(r.begin(), r.end(), out.mutable_data());
  require_finite_result(out, f, "an eigenvalue", "it exceeds the double range");
  return out;
}

/// Rows w (..., d) must be non-zero with a finite squared norm.
darray vectors(py::handle obj, const char* f, const char* name, int min_ndim, const char* hint) {
  const darray w = array_min_nd(obj, f, name, min_ndim, hint);
  const auto d = static_cast<std::size_t>(w.shape(w.ndim() - 1));
  if (d == 0) value_error(f, name, "must have at least one component", obj);
  const std::size_t rows = static_cast<std::size_t>(w.size()) / d;
  for (std::size_t j = 0; j < rows; ++j) {
    double n2 = 0;
    for (std::size_t c = 0; c < d; ++c) n2 += w.data()[j * d + c] * w.data()[j * d + c];
    if (!(n2 > 0) || !std::isfinite(n2)) {
      value_error(f, name,
                  "must be non-zero vectors with finite squared norm (vector " + std::to_string(j) +
                      " is zero or overflows)",
                  obj);
    }
  }
  return w;
}

/// out (..., d, d) for vectors (..., d), one matrix per vector.
template <class Fill>
darray per_vector(const darray& w, int core, Fill fill, const char* f) {
  const auto d = static_cast<std::size_t>(w.shape(w.ndim() - 1));
  std::vector<py::ssize_t> shape = lead_shape(w, core);
  const std::size_t batch = product(shape);
  check_output_size(static_cast<double>(batch) * static_cast<double>(d) * static_cast<double>(d), f,
                    "w");
  shape.push_back(static_cast<py::ssize_t>(d));
  shape.push_back(static_cast<py::ssize_t>(d));
  darray out(shape);
  const std::size_t stride = batch == 0 ? 0 : static_cast<std::size_t>(w.size()) / batch;
  const double* pw = w.data();
  double* po = out.mutable_data();
  // Safe without the GIL: reads w, writes out (run_polled: Ctrl-C between and inside matrices).
  run_polled(static_cast<double>(batch) * static_cast<double>(d) * static_cast<double>(d),
             [&](const std::atomic<bool>* cancel) {
               for (std::size_t b = 0; b < batch; ++b) {
                 poll(cancel);
                 fill(pw + b * stride, d, po + b * d * d, cancel);
               }
             });
  return out;
}

darray householder(ArrayLike w_o) {
  const char* f = "transition.householder";
  const darray w = vectors(w_o, f, "w", 1, "(..., d)");
  return per_vector(
      w, 1,
      [](const double* x, std::size_t d, double* o, const std::atomic<bool>* cancel) {
        transition::householder(x, d, o, cancel);
      },
      f);
}

darray generalized_householder(ArrayLike w_o, FloatLike beta_o) {
  const char* f = "transition.generalized_householder";
  const darray w = vectors(w_o, f, "w", 1, "(..., d)");
  const double beta = real_scalar(beta_o, f, "beta");
  return per_vector(
      w, 1,
      [beta](const double* x, std::size_t d, double* o, const std::atomic<bool>* cancel) {
        transition::generalized_householder(x, d, beta, o, cancel);
      },
      f);
}

darray householder_product(ArrayLike W_o) {
  const char* f = "transition.householder_product";
  const darray W = vectors(W_o, f, "W", 2, "(..., m, d)");
  const auto m = static_cast<std::size_t>(W.shape(W.ndim() - 2));
  const auto d = static_cast<std::size_t>(W.shape(W.ndim() - 1));
  std::vector<py::ssize_t> shape = lead_shape(W, 2);
  const std::size_t batch = product(shape);
  shape.push_back(static_cast<py::ssize_t>(d));
  shape.push_back(static_cast<py::ssize_t>(d));
  check_output_size(
      2.0 * static_cast<double>(batch) * static_cast<double>(d) * static_cast<double>(d), f, "W");
  // m products of d×d matrices per batch element (O(m d³)): a detached worker owning copies,
  // checking Ctrl-C between batch elements (see run_detached).
  struct Work {
    std::vector<double> W, out;
  };
  auto work = std::make_shared<Work>();
  work->W.assign(W.data(), W.data() + batch * m * d);
  work->out.resize(batch * d * d);
  run_detached([work, batch, m, d](const std::atomic<bool>* cancel) {
    for (std::size_t b = 0; b < batch; ++b) {
      if (cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
      transition::householder_product(work->W.data() + b * m * d, m, d,
                                      work->out.data() + b * d * d);
    }
  });
  darray out(shape);
  std::copy(work->out.begin(), work->out.end(), out.mutable_data());
  return out;
}

darray prf_transition_factor(ArrayLike q_o, ArrayLike omega_o) {
  const char* f = "transition.prf_transition_factor";
  const darray q = array_min_nd(q_o, f, "q", 2, "(..., T, d)");
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  const py::ssize_t dq = q.shape(q.ndim() - 1);
  if (omega.shape(1) != dq)
    mismatch(f, "omega must have shape (D, d) with the d of q", "q", q, "omega", omega);
  const auto T = static_cast<std::size_t>(q.shape(q.ndim() - 2));
  const auto d = static_cast<std::size_t>(dq);
  const auto D = static_cast<std::size_t>(omega.shape(0));
  const std::size_t rows = T > 0 ? T - 1 : 0;
  std::vector<py::ssize_t> shape = lead_shape(q, 2);
  const std::size_t batch = product(shape);
  shape.push_back(static_cast<py::ssize_t>(rows));
  shape.push_back(static_cast<py::ssize_t>(D));
  check_output_size(static_cast<double>(batch * rows) * static_cast<double>(D), f, "q and omega");
  darray out(shape);
  double* po = out.mutable_data();
  // Reads q and omega, writes out; Ctrl-C is checked between batch elements (run_interruptible).
  run_interruptible([&](const std::atomic<bool>* cancel) {
    for (std::size_t b = 0; b < batch; ++b) {
      if (cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
      transition::prf_transition_factor(q.data() + b * T * d, T, d, omega.data(), D,
                                        po + b * rows * D);
    }
  });
  return out;
}

transition::FactorDistribution prf_factor_distribution(FloatLike dn_o, FloatLike sigma_o) {
  const char* f = "transition.prf_factor_distribution";
  const double dn = real_scalar(dn_o, f, "delta_norm");
  if (dn < 0) value_error(f, "delta_norm", "must be >= 0", dn_o);
  const double sigma = real_scalar(sigma_o, f, "sigma");
  if (sigma < 0) value_error(f, "sigma", "must be >= 0", sigma_o);
  return transition::prf_factor_distribution(dn, sigma);
}

}  // namespace

void register_transition(py::module_& m) {
  using D = transition::FactorDistribution;
  ResultClass<D>(
      m, "FactorDistribution",
      "Log-normal law of exp(omega.Delta), omega ~ N(0, sigma^2 I), s = sigma abs(Delta) "
      "(the documented class is ropelab.transition.FactorDistribution).")
      .field("mean", &D::mean, "``exp(s^2/2)`` (>= 1).")
      .field("variance", &D::variance, "``(exp(s^2) - 1) exp(s^2)``.")
      .field("median", &D::median, "1.")
      .field("prob_gt_one", &D::prob_gt_one,
             "``P(factor > 1)``: 1/2 for ``s > 0``, 0 for ``s = 0`` (the factor is then exactly "
             "1).")
      .finish();
  m.def("norms", &transition::norm_names);
  m.def("effective", &effective, "angles_prev"_a, "angles"_a, "gates"_a, "layout"_a);
  m.def("effective_sequence", &effective_sequence, "angles"_a, "gates"_a, "layout"_a);
  m.def("commutator_norm", &commutator_norm, "angles_prev"_a, "gates"_a, "layout"_a, "norm"_a);
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
