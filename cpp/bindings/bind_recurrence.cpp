// ropelab._core.recurrence: linear-attention recurrences and their direct forms
// (core: cpp/include/ropelab/recurrence.hpp).
#include <cmath>
#include <complex>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#include "batch.hpp"
#include "common.hpp"
#include "ropelab/delta.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/recurrence.hpp"

namespace ropelab::bind {

namespace {

using recurrence::Sequence;

/// Every input of these functions is finite (checked on entry), so a non-finite output means a
/// value overflowed a double on the way: ValueError naming the function, the first step (and
/// sequence) it happened at and `culprits` (the arguments whose size causes it, and how).
/// `per_step`: output elements per step; `T`: steps per sequence.
[[noreturn]] void overflow_error(std::size_t i, double value, std::size_t T, std::size_t per_step,
                                 const char* f, const std::string& culprits) {
  const std::size_t step = i / per_step;
  throw py::value_error(std::string(f) + ": overflow at step " + std::to_string(step % T) +
                        (step >= T ? " of sequence " + std::to_string(step / T) : std::string()) +
                        " (output " + std::to_string(value) + " from finite inputs): " + culprits);
}

/// The gates' range error (element i of the gates array has the value x).
[[noreturn]] void gates_range_error(const char* f, py::ssize_t i, double x) {
  value_error(f, "gates", "must be in [0, 1] (element " + std::to_string(i) + ")", py::float_(x));
}

void require_finite_steps(const darray& out, std::size_t T, std::size_t per_step, const char* f,
                          const std::string& culprits) {
  const double* p = out.data();
  for (py::ssize_t i = 0; i < out.size(); ++i) {
    if (i % (1 << 20) == (1 << 20) - 1) check_signals();
    if (std::isfinite(p[i])) continue;
    overflow_error(static_cast<std::size_t>(i), p[i], T, per_step, f, culprits);
  }
}

/// q, k (..., T, d) of one shape and v (..., T, dv) with the same leading dimensions and T.
struct SeqArgs {
  darray q, k, v;
  std::vector<py::ssize_t> lead;  // batch dimensions
  std::size_t batch = 0, T = 0, d = 0, dv = 0;
  Sequence at(std::size_t b) const {
    return Sequence{q.data() + b * T * d, k.data() + b * T * d, v.data() + b * T * dv, T, d, dv};
  }
};

SeqArgs seq_args(py::handle q_o, py::handle k_o, py::handle v_o, const char* f, bool paired) {
  SeqArgs s;
  s.q = array_min_nd(q_o, f, "q", 2, "(..., T, d)");
  s.k = array_min_nd(k_o, f, "k", 2, "(..., T, d)");
  s.v = array_min_nd(v_o, f, "v", 2, "(..., T, dv)");
  if (shape_of(s.q) != shape_of(s.k))
    mismatch(f, "q and k must have the same shape", "q", s.q, "k", s.k);
  std::vector<py::ssize_t> qlead = lead_shape(s.q, 1), vlead = lead_shape(s.v, 1);
  if (qlead != vlead) {
    mismatch(f, "v must have the leading dimensions (..., T) of q (same batch shape and T)", "q",
             s.q, "v", s.v);
  }
  s.lead = lead_shape(s.q, 2);
  s.batch = product(s.lead);
  s.T = static_cast<std::size_t>(s.q.shape(s.q.ndim() - 2));
  s.d = static_cast<std::size_t>(s.q.shape(s.q.ndim() - 1));
  s.dv = static_cast<std::size_t>(s.v.shape(s.v.ndim() - 1));
  if (paired) require_even(static_cast<py::ssize_t>(s.d), f, "q", q_o);
  return s;
}

darray out_like_v(const SeqArgs& s) {
  return empty_like(s.v);
}

/// Run body(b, cancel) for each batch element on up to nthreads threads with the GIL released;
/// Ctrl-C sets `cancel`, which the core polls once per time step.
template <class Body>
void for_each_batch(std::size_t batch, int nthreads, Body&& body) {
  run_interruptible([&](const std::atomic<bool>* cancel) {
    mc::parallel_blocks(
        batch, 1, batch > 1 ? nthreads : 1,
        [&](std::size_t b0, std::size_t b1) {
          for (std::size_t b = b0; b < b1; ++b) body(b, cancel);
        },
        cancel);
  });
}

/// A secondary per-step array (..., T, <core dims>) broadcast over the batch of `s` (suffix rule).
struct StepArray {
  darray a;
  std::size_t count = 1;   // batch elements it has
  std::size_t stride = 0;  // doubles per batch element
  const double* at(std::size_t b) const { return a.data() + (b % count) * stride; }
};

StepArray step_array(py::handle obj, const SeqArgs& s, const char* f, const char* name,
                     const std::vector<py::ssize_t>& core, const std::string& hint) {
  StepArray r;
  r.a = real_array(obj, f, name);
  const int nc = static_cast<int>(core.size());
  bool ok = r.a.ndim() >= nc + 1 && r.a.shape(r.a.ndim() - nc - 1) == static_cast<py::ssize_t>(s.T);
  for (int i = 0; ok && i < nc; ++i)
    ok = r.a.shape(r.a.ndim() - nc + i) == core[static_cast<std::size_t>(i)];
  if (!ok) {
    value_error(f, name,
                "must have shape " + hint + " with T = " + std::to_string(s.T) + " matching q " +
                    shape_str(s.q) + ", has shape " + shape_str(r.a),
                obj);
  }
  r.count = suffix_batch(s.lead, lead_shape(r.a, nc + 1), f, name, "q", obj);
  r.stride = s.T;
  for (auto c : core) r.stride *= static_cast<std::size_t>(c);
  return r;
}

darray linear_attention(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, OptionalArrayLike A_o,
                        Choice mode_o, Choice start_o, OptionalInt nthreads_o) {
  const char* f = "recurrence.linear_attention";
  const SeqArgs s = seq_args(q_o, k_o, v_o, f, false);
  const auto mode = parse_choice(mode_o, f, "mode", recurrence::parse_linear_mode);
  const auto start = parse_choice(start_o, f, "product_start", recurrence::parse_product_start);
  if (mode == recurrence::LinearMode::recurrent && start == recurrence::ProductStart::tau) {
    value_error(f, "product_start",
                "only applies to mode='unrolled' (the recurrence has no product index); "
                "use 'tau+1' with mode='recurrent'",
                start_o);
  }
  const int nthreads = nthreads_arg(nthreads_o, f);
  StepArray A;
  const bool has_A = !A_o.is_none();
  if (has_A) {
    const auto d = static_cast<py::ssize_t>(s.d);
    A = step_array(A_o, s, f, "transitions", {d, d}, "(..., T, d, d)");
  }
  darray out = out_like_v(s);
  double* po = out.mutable_data();
  for_each_batch(s.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::linear_attention(s.at(b), has_A ? A.at(b) : nullptr, mode, start,
                                 po + b * s.T * s.dv, cancel);
  });
  require_finite_steps(out, s.T, s.dv, f,
                       has_A ? "the state S_t (or a product of transitions A_t) exceeds the double "
                               "range; rescale transitions, q, k or v"
                             : "the state S_t = sum of v k^T or its product with q exceeds the "
                               "double range; rescale q, k or v");
  return out;
}

/// Gates: None, or (..., T, w) with w = 1 (one decay per step), d/2 (per pair) or d (per
/// channel); finite and in [0, 1].
struct GateArgs {
  StepArray arr;
  std::size_t width = 0;
  std::size_t d = 0;
  recurrence::Gates at(std::size_t b) const {
    return gates_view(width == 0 ? nullptr : arr.at(b), width, d);
  }
};

GateArgs gate_args(py::handle obj, const SeqArgs& s, const char* f) {
  GateArgs g;
  g.d = s.d;
  if (obj.is_none()) return g;
  const darray raw = real_array(obj, f, "gates");
  const std::size_t h = s.d / 2;
  const std::string hint = "(..., T, 1), (..., T, d/2) = (..., " + std::to_string(s.T) + ", " +
                           std::to_string(h) + ") or (..., T, d) = (..., " + std::to_string(s.T) +
                           ", " + std::to_string(s.d) + ")";
  if (raw.ndim() < 2) {
    value_error(f, "gates", "must have shape " + hint + ", has shape " + shape_str(raw), obj);
  }
  // the width and the values first (gate_width), then the (..., T) dimensions (step_array)
  const std::size_t w = gate_width(raw, s.d, f, "gates", "must have shape " + hint, obj);
  g.arr = step_array(obj, s, f, "gates", {static_cast<py::ssize_t>(w)}, hint);
  g.width = w;
  return g;
}

darray selective_rope_attention(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, ArrayLike angles_o,
                                OptionalArrayLike gates_o, Choice mode_o, Choice layout_o,
                                OptionalInt nthreads_o) {
  const char* f = "recurrence.selective_rope_attention";
  const SeqArgs s = seq_args(q_o, k_o, v_o, f, true);
  const StepArray angles =
      step_array(angles_o, s, f, "angles", {static_cast<py::ssize_t>(s.d / 2)}, "(..., T, d/2)");
  const GateArgs gates = gate_args(gates_o, s, f);
  const auto mode = parse_choice(mode_o, f, "mode", recurrence::parse_selective_mode);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const int nthreads = nthreads_arg(nthreads_o, f);
  darray out = out_like_v(s);
  double* po = out.mutable_data();
  for_each_batch(s.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::selective_rope_attention(s.at(b), angles.at(b), gates.at(b), layout, mode,
                                         po + b * s.T * s.dv, cancel);
  });
  require_finite_steps(out, s.T, s.dv, f,
                       "the state S_t = sum of v k^T or its product with q exceeds the double "
                       "range; rescale q, k or v");
  return out;
}

carray rff_attention(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, ArrayLike omega_o, Choice mode_o,
                     bool amplitude, OptionalInt nthreads_o) {
  const char* f = "recurrence.rff_attention";
  const SeqArgs s = seq_args(q_o, k_o, v_o, f, false);
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  if (static_cast<std::size_t>(omega.shape(1)) != s.d) {
    mismatch(f, "omega must have shape (D, d) with the d of q", "q", s.q, "omega", omega);
  }
  if (omega.shape(0) == 0) value_error(f, "omega", "must have at least one row", omega_o);
  const auto mode = parse_choice(mode_o, f, "mode", recurrence::parse_rff_mode);
  if (mode == recurrence::RffMode::direct && !amplitude) {
    value_error(f, "amplitude",
                "=False only applies to mode='recurrent' (the direct sum always carries "
                "exp((|q_t|^2+|k_tau|^2)/2))",
                py::bool_(amplitude));
  }
  const int nthreads = nthreads_arg(nthreads_o, f);
  const auto D = static_cast<std::size_t>(omega.shape(0));
  std::vector<py::ssize_t> shape = lead_shape(s.q, 1);
  shape.push_back(static_cast<py::ssize_t>(D));
  shape.push_back(static_cast<py::ssize_t>(s.dv));
  check_output_size(2.0 * static_cast<double>(s.batch * s.T * D * s.dv), f, "q, omega and v");
  carray out(shape);
  std::complex<double>* po = out.mutable_data();
  const double* pw = omega.data();
  for_each_batch(s.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::rff_attention(s.at(b), pw, D, mode, amplitude, po + b * s.T * D * s.dv, cancel);
  });
  require_finite_result(
      out, f, "the state (row-major)",
      "the weights exp((|q_t|^2+|k_tau|^2)/2) or the phases overflow for inputs this large");
  return out;
}

carray rff_increment_product(ArrayLike q_o, ArrayLike omega_o, IntLike tau_o) {
  const char* f = "recurrence.rff_increment_product";
  const darray q = array_min_nd(q_o, f, "q", 2, "(..., T, d)");
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  if (omega.shape(1) != q.shape(q.ndim() - 1)) {
    mismatch(f, "omega must have shape (D, d) with the d of q", "q", q, "omega", omega);
  }
  const auto tau = static_cast<std::size_t>(integer(tau_o, f, "tau", 0));
  const auto T = static_cast<std::size_t>(q.shape(q.ndim() - 2));
  const auto d = static_cast<std::size_t>(q.shape(q.ndim() - 1));
  if (T > 0 && tau >= T) value_error(f, "tau", "must be < T = " + std::to_string(T), tau_o);
  const auto D = static_cast<std::size_t>(omega.shape(0));
  std::vector<py::ssize_t> shape = lead_shape(q, 2);
  const std::size_t batch = product(shape);
  shape.push_back(static_cast<py::ssize_t>(T));
  shape.push_back(static_cast<py::ssize_t>(D));
  check_output_size(2.0 * static_cast<double>(batch * T) * static_cast<double>(D), f,
                    "q and omega");
  carray out(shape);
  std::complex<double>* po = out.mutable_data();
  // Reads q and omega, writes out; Ctrl-C is checked between batch elements (run_interruptible).
  run_interruptible([&](const std::atomic<bool>* cancel) {
    for (std::size_t b = 0; b < batch; ++b) {
      if (cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
      recurrence::rff_increment_product(q.data() + b * T * d, T, d, omega.data(), D, tau,
                                        po + b * T * D);
    }
  });
  return out;
}

darray decayed_attention(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, OptionalArrayLike gates_o,
                         Choice kind_o, FloatLike param_o, Choice mode_o, OptionalInt nthreads_o) {
  const char* f = "recurrence.decayed_attention";
  const recurrence::Decay kind = parse_choice(kind_o, f, "kind", recurrence::parse_decay);
  const char* fn = kind == recurrence::Decay::alibi ? "recurrence.alibi_attention"
                   : kind == recurrence::Decay::fox ? "recurrence.fox_attention"
                                                    : "recurrence.cosformer_attention";
  const SeqArgs s = seq_args(q_o, k_o, v_o, fn, false);
  const auto mode = parse_choice(mode_o, fn, "mode", recurrence::parse_decay_mode);
  const int nthreads = nthreads_arg(nthreads_o, fn);
  double param = 0.0;
  StepArray gates;
  if (kind == recurrence::Decay::alibi) {
    param = real_scalar(param_o, fn, "slope");
    if (!(param >= 0)) value_error(fn, "slope", "must be >= 0", param_o);
  } else if (kind == recurrence::Decay::cosformer) {
    param = real_scalar(param_o, fn, "M");
    if (!(param > 0)) value_error(fn, "M", "must be > 0", param_o);
    // the angles pi (t - tau) / (2M) up to pi (T - 1) / (2M) must be finite
    if (s.T > 1 &&
        !std::isfinite(3.14159265358979323846 * static_cast<double>(s.T - 1) / (2.0 * param))) {
      value_error(fn, "M",
                  "is too small: the angle pi (T - 1) / (2M) overflows a double (T = " +
                      std::to_string(s.T) + ")",
                  param_o);
    }
  } else {
    gates = step_array(gates_o, s, fn, "gates", {}, "(..., T)");
    require_each(gates.a, fn, "gates", "must be in [0, 1]",
                 [](double x) { return x >= 0.0 && x <= 1.0; });
  }
  darray out = out_like_v(s);
  double* po = out.mutable_data();
  const bool fox = kind == recurrence::Decay::fox;
  for_each_batch(s.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::decayed_attention(s.at(b), kind, param, fox ? gates.at(b) : nullptr, mode,
                                  po + b * s.T * s.dv, cancel);
  });
  require_finite_steps(out, s.T, s.dv, fn,
                       "the products (q_t.k_tau) v_tau or their sum exceed the double range; "
                       "rescale q, k or v");
  return out;
}

darray softmax_attention(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, OptionalArrayLike angles_o,
                         Choice layout_o, OptionalFloat scale_o, bool causal,
                         OptionalInt nthreads_o) {
  const char* f = "recurrence.softmax_attention";
  const SeqArgs s = seq_args(q_o, k_o, v_o, f, !angles_o.is_none());
  const rotary::Layout layout = layout_arg(layout_o, f);
  StepArray angles;
  const bool has_angles = !angles_o.is_none();
  if (has_angles) {
    angles =
        step_array(angles_o, s, f, "angles", {static_cast<py::ssize_t>(s.d / 2)}, "(..., T, d/2)");
  }
  double scale = 0.0;
  if (scale_o.is_none()) {
    scale = s.d > 0 ? 1.0 / std::sqrt(static_cast<double>(s.d)) : 1.0;
  } else {
    scale = real_scalar(scale_o, f, "scale");
  }
  if (!causal && s.T == 0) causal = true;
  const int nthreads = nthreads_arg(nthreads_o, f);
  darray out = out_like_v(s);
  double* po = out.mutable_data();
  for_each_batch(s.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::softmax_attention(s.at(b), has_angles ? angles.at(b) : nullptr, layout, scale,
                                  causal, po + b * s.T * s.dv, cancel);
  });
  require_finite_steps(out, s.T, s.dv, f,
                       "a logit scale * q_t.k_tau overflows a double (the maximum is subtracted "
                       "before exponentiating, but the logit itself must be finite); rescale q, "
                       "k or scale");
  return out;
}

/// C-contiguous array of Real (double, or float on the float32 path).
template <class Real>
using rarray = py::array_t<Real, py::array::c_style | py::array::forcecast>;

/// `obj` as a C-contiguous array of Real with real_array's type checks (bool, complex, object and
/// strings refused, naming `name`); its finiteness is checked here when `check_finite`, else by
/// the kernel that reads it. A float32 array on the float32 path is used as it is.
template <class Real>
rarray<Real> real_array_of(py::handle obj, const char* f, const char* name, bool check_finite) {
  if constexpr (std::is_same_v<Real, double>) {
    return real_array(obj, f, name, !check_finite);
  } else {
    if (!check_finite && py::isinstance<py::array>(obj) &&
        py::reinterpret_borrow<py::array>(obj).dtype().is(py::dtype::of<float>())) {
      return contiguous<rarray<float>>(obj, f, name);
    }
    return contiguous<rarray<float>>(real_array(obj, f, name, !check_finite), f, name);
  }
}

/// real_array_of with at least `min_ndim` dimensions (array_min_nd's message otherwise).
template <class Real>
rarray<Real> min_nd_of(py::handle obj, const char* f, const char* name, int min_ndim,
                       const std::string& hint, bool check_finite) {
  rarray<Real> a = real_array_of<Real>(obj, f, name, check_finite);
  if (a.ndim() < min_ndim) {
    value_error(f, name,
                "must have shape " + hint + " (at least " + std::to_string(min_ndim) +
                    " dimensions), has shape " + shape_str(a),
                obj);
  }
  return a;
}

/// StepArray in precision Real.
template <class Real>
struct StepArrayOf {
  rarray<Real> a;
  py::object obj;          // the argument as given (for error messages)
  std::size_t count = 1;   // batch elements it has
  std::size_t stride = 0;  // values per batch element
  const Real* at(std::size_t b) const { return a.data() + (b % count) * stride; }
};

/// The delta-rule family: keys (..., T, n_h, d), values (..., T, n_h, dv), betas (..., T, n_h),
/// angles (..., T, d/2) or None, gates (..., T) or None; all broadcast over q's batch dimensions
/// by the suffix rule of batch.hpp. In precision Real (float on the float32 path).
template <class Real>
struct DeltaArgs {
  rarray<Real> q;
  py::array ref;  // the array fixing (batch..., T, ·, d)
  StepArrayOf<Real> k, v, beta, angles, gates;
  std::vector<py::ssize_t> lead;
  std::size_t batch = 0, T = 0, n_h = 0, d = 0, dv = 0;
  bool has_angles = false, has_gates = false, check_now = true;
  recurrence::DeltaSequenceOf<Real> at(std::size_t b) const {
    // delta_transitions reads no q or v (q is empty there)
    const Real* qb = q.size() > 0 ? q.data() + b * T * d : nullptr;
    return recurrence::DeltaSequenceOf<Real>{qb,
                                             k.at(b),
                                             dv > 0 ? v.at(b) : nullptr,
                                             beta.at(b),
                                             has_angles ? angles.at(b) : nullptr,
                                             has_gates ? gates.at(b) : nullptr,
                                             T,
                                             n_h,
                                             d,
                                             dv};
  }

  /// A secondary per-step array (..., T, <core dims>) broadcast over the batch (suffix rule).
  StepArrayOf<Real> step(py::handle obj, rarray<Real> arr, const char* f, const char* name,
                         const std::vector<py::ssize_t>& core, const std::string& hint) const {
    StepArrayOf<Real> r;
    r.a = std::move(arr);
    r.obj = py::reinterpret_borrow<py::object>(obj);
    const int nc = static_cast<int>(core.size());
    bool ok = r.a.ndim() >= nc + 1 && r.a.shape(r.a.ndim() - nc - 1) == static_cast<py::ssize_t>(T);
    for (int i = 0; ok && i < nc; ++i)
      ok = r.a.shape(r.a.ndim() - nc + i) == core[static_cast<std::size_t>(i)];
    if (!ok) {
      value_error(f, name,
                  "must have shape " + hint + " with T = " + std::to_string(T) + " matching q " +
                      shape_str(ref) + ", has shape " + shape_str(r.a),
                  obj);
    }
    r.count = suffix_batch(lead, lead_shape(r.a, nc + 1), f, name, "q", obj);
    r.stride = T;
    for (auto c : core) r.stride *= static_cast<std::size_t>(c);
    return r;
  }
};

/// `ref` is the array whose shape fixes (batch..., T, ·, d): q (..., T, d) for delta_rule, k
/// (..., T, n_h, d) for delta_transitions (then `ref_core` = 3 instead of 2). With `check_now`
/// every input's finiteness and the gates' range are checked here (GIL held); without, the
/// kernels check them as they read them (delta.hpp, DeltaFaults) and raise_faults reports.
template <class Real>
DeltaArgs<Real> delta_args(const py::array& ref, int ref_core, py::handle k_o, py::handle v_o,
                           py::handle beta_o, py::handle angles_o, py::handle gates_o,
                           const char* f, bool need_v, bool check_now) {
  DeltaArgs<Real> a;
  a.ref = ref;
  a.check_now = check_now;
  a.lead = lead_shape(ref, ref_core);
  a.batch = product(a.lead);
  a.T = static_cast<std::size_t>(ref.shape(ref.ndim() - ref_core));
  a.d = static_cast<std::size_t>(ref.shape(ref.ndim() - 1));
  rarray<Real> kraw = min_nd_of<Real>(k_o, f, "k", 3, "(..., T, n_h, d)", check_now);
  a.n_h = static_cast<std::size_t>(kraw.shape(kraw.ndim() - 2));
  if (a.n_h == 0) value_error(f, "k", "must have at least one key per step (n_h >= 1)", k_o);
  const auto nh = static_cast<py::ssize_t>(a.n_h), dd = static_cast<py::ssize_t>(a.d);
  a.k = a.step(k_o, std::move(kraw), f, "k", {nh, dd}, "(..., T, n_h, d) with the T and d of q");
  if (need_v) {
    rarray<Real> vraw = min_nd_of<Real>(v_o, f, "v", 3, "(..., T, n_h, dv)", check_now);
    a.dv = static_cast<std::size_t>(vraw.shape(vraw.ndim() - 1));
    a.v = a.step(v_o, std::move(vraw), f, "v", {nh, static_cast<py::ssize_t>(a.dv)},
                 "(..., T, n_h, dv) with the T of q and the n_h of k");
  }
  a.beta = a.step(beta_o, real_array_of<Real>(beta_o, f, "beta", check_now), f, "beta", {nh},
                  "(..., T, n_h) with the n_h of k");
  a.has_angles = !angles_o.is_none();
  if (a.has_angles) {
    if (a.d % 2 != 0) {
      value_error(f, "angles", "needs an even d (channel pairs), got d = " + std::to_string(a.d),
                  angles_o);
    }
    a.angles = a.step(angles_o, real_array_of<Real>(angles_o, f, "angles", check_now), f, "angles",
                      {static_cast<py::ssize_t>(a.d / 2)}, "(..., T, d/2)");
  }
  a.has_gates = !gates_o.is_none();
  if (a.has_gates) {
    a.gates = a.step(gates_o, real_array_of<Real>(gates_o, f, "gates", check_now), f, "gates", {},
                     "(..., T)");
    if (check_now) {
      const Real* p = a.gates.a.data();
      for (py::ssize_t i = 0; i < a.gates.a.size(); ++i) {
        if (!(p[i] >= 0 && p[i] <= 1)) gates_range_error(f, i, static_cast<double>(p[i]));
      }
    }
  }
  return a;
}

/// Raises the error of the first offending input recorded by the kernels, in argument order
/// (q, k, v, beta, angles, gates), with the message the checks on entry would give.
template <class Real>
void raise_faults(const recurrence::DeltaFaults& fl, const DeltaArgs<Real>& a, py::handle q_o,
                  const char* f) {
  const auto finite = [&](const void* p, const rarray<Real>& arr, py::handle obj,
                          const char* name) {
    if (p == nullptr) return;
    const Real* e = static_cast<const Real*>(p);
    value_error(f, name,
                "must be finite (element " + std::to_string(e - arr.data()) + " is " +
                    std::to_string(static_cast<double>(*e)) + ")",
                obj);
  };
  finite(fl.q, a.q, q_o, "q");
  finite(fl.k, a.k.a, a.k.obj, "k");
  finite(fl.v, a.v.a, a.v.obj, "v");
  finite(fl.beta, a.beta.a, a.beta.obj, "beta");
  finite(fl.angles, a.angles.a, a.angles.obj, "angles");
  finite(fl.gates_nonfinite, a.gates.a, a.gates.obj, "gates");
  if (fl.gates_range != nullptr) {
    const Real* e = static_cast<const Real*>(fl.gates_range);
    gates_range_error(f, e - a.gates.a.data(), static_cast<double>(*e));
  }
}

/// Finiteness of every input and range of the gates, serially: for a batch of no sequences, whose
/// broadcast side arrays no kernel reads.
template <class Real>
void check_unread(const DeltaArgs<Real>& a, py::handle q_o, const char* f) {
  recurrence::DeltaFaults fl;
  const auto scan = [](const rarray<Real>& arr, const void*& slot) {
    for (py::ssize_t i = 0; i < arr.size() && slot == nullptr; ++i) {
      if (!std::isfinite(arr.data()[i])) slot = arr.data() + i;
    }
  };
  scan(a.k.a, fl.k);
  if (a.dv > 0) scan(a.v.a, fl.v);
  scan(a.beta.a, fl.beta);
  if (a.has_angles) scan(a.angles.a, fl.angles);
  if (a.has_gates) {
    scan(a.gates.a, fl.gates_nonfinite);
    for (py::ssize_t i = 0; i < a.gates.a.size() && fl.gates_range == nullptr; ++i) {
      const Real x = a.gates.a.data()[i];
      if (std::isfinite(x) && !(x >= 0 && x <= 1)) fl.gates_range = a.gates.a.data() + i;
    }
  }
  raise_faults(fl, a, q_o, f);
}

/// The delta rule in precision Real. Binding order: shapes and types are checked with the GIL
/// held; the finiteness of the inputs, the gates' range and the finiteness of the outputs are
/// checked by the kernels while they read and write them (on every thread, GIL released: the
/// work touches only the arrays held by `a` and `out`), and the first fault is raised after.
template <class Real>
py::array delta_rule_in(py::handle q_o, py::handle k_o, py::handle v_o, py::handle beta_o,
                        py::handle angles_o, py::handle gates_o, py::handle layout_o,
                        py::handle nthreads_o) {
  const char* f = "recurrence.delta_rule";
  rarray<Real> q = min_nd_of<Real>(q_o, f, "q", 2, "(..., T, d)", false);
  DeltaArgs<Real> a = delta_args<Real>(q, 2, k_o, v_o, beta_o, angles_o, gates_o, f, true, false);
  a.q = q;
  const rotary::Layout layout = layout_arg(layout_o, f);
  const int nthreads = nthreads_arg(nthreads_o, f);
  std::vector<py::ssize_t> shape = a.lead;
  shape.push_back(static_cast<py::ssize_t>(a.T));
  shape.push_back(static_cast<py::ssize_t>(a.dv));
  check_output_size(static_cast<double>(a.batch * a.T * a.dv) * sizeof(Real) / 8.0, f, "q and v");
  rarray<Real> out(shape);
  if (a.batch == 0) {
    check_unread(a, q_o, f);
    return py::array(std::move(out));
  }
  Real* po = out.mutable_data();
  recurrence::DeltaFaults faults;
  run_interruptible([&](const std::atomic<bool>* cancel) {
    recurrence::delta_rule_batch<Real>([&](std::size_t b) { return a.at(b); }, a.batch, layout, po,
                                       cancel, nthreads, &faults);
  });
  raise_faults(faults, a, q_o, f);
  if (faults.out != nullptr) {
    const Real* e = static_cast<const Real*>(faults.out);
    overflow_error(
        static_cast<std::size_t>(e - out.data()), static_cast<double>(*e), a.T, a.dv, f,
        std::string("the state grew past the ") +
            (std::is_same_v<Real, double> ? "double" : "float32") +
            " range; a factor I - beta k k^T has the eigenvalue 1 - beta |k|^2 along k, which "
            "grows the state geometrically when |1 - beta |k|^2| > 1: normalise the keys k or "
            "reduce beta (or the values v are too large)");
  }
  return py::array(std::move(out));
}

/// float32 q, k and v: computed in float32 (the side inputs rounded to float32); any other real
/// input in float64.
py::array delta_rule(ArrayLike q_o, ArrayLike k_o, ArrayLike v_o, ArrayLike beta_o,
                     OptionalArrayLike angles_o, OptionalArrayLike gates_o, Choice layout_o,
                     OptionalInt nthreads_o) {
  if (all_float32({q_o, k_o, v_o})) {
    return delta_rule_in<float>(q_o, k_o, v_o, beta_o, angles_o, gates_o, layout_o, nthreads_o);
  }
  return delta_rule_in<double>(q_o, k_o, v_o, beta_o, angles_o, gates_o, layout_o, nthreads_o);
}

darray delta_transitions(ArrayLike k_o, ArrayLike beta_o, OptionalArrayLike angles_o,
                         OptionalArrayLike gates_o, Choice layout_o, OptionalInt nthreads_o) {
  const char* f = "recurrence.delta_transitions";
  const darray k = array_min_nd(k_o, f, "k", 3, "(..., T, n_h, d)");
  const DeltaArgs<double> a =
      delta_args<double>(k, 3, k_o, py::none(), beta_o, angles_o, gates_o, f, false, true);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const int nthreads = nthreads_arg(nthreads_o, f);
  std::vector<py::ssize_t> shape = a.lead;
  shape.push_back(static_cast<py::ssize_t>(a.T));
  shape.push_back(static_cast<py::ssize_t>(a.d));
  shape.push_back(static_cast<py::ssize_t>(a.d));
  check_output_size(static_cast<double>(a.batch * a.T) * static_cast<double>(a.d * a.d), f, "k");
  darray out(shape);
  double* po = out.mutable_data();
  for_each_batch(a.batch, nthreads, [&](std::size_t b, const std::atomic<bool>* cancel) {
    recurrence::delta_transitions(a.at(b), layout, po + b * a.T * a.d * a.d, cancel);
  });
  return out;
}

}  // namespace

void register_recurrence(py::module_& m) {
  m.def("decays", &recurrence::decay_names);
  m.def("linear_modes", &recurrence::linear_mode_names);
  m.def("product_starts", &recurrence::product_start_names);
  m.def("selective_modes", &recurrence::selective_mode_names);
  m.def("direct_modes", &recurrence::direct_recurrent_names);
  m.def("linear_attention", &linear_attention, "q"_a, "k"_a, "v"_a, "transitions"_a, "mode"_a,
        "product_start"_a, "nthreads"_a);
  m.def("selective_rope_attention", &selective_rope_attention, "q"_a, "k"_a, "v"_a, "angles"_a,
        "gates"_a, "mode"_a, "layout"_a, "nthreads"_a);
  m.def("rff_attention", &rff_attention, "q"_a, "k"_a, "v"_a, "omega"_a, "mode"_a, "amplitude"_a,
        "nthreads"_a);
  m.def("rff_increment_product", &rff_increment_product, "q"_a, "omega"_a, "tau"_a);
  m.def("decayed_attention", &decayed_attention, "q"_a, "k"_a, "v"_a, "gates"_a, "kind"_a,
        "param"_a, "mode"_a, "nthreads"_a);
  m.def("softmax_attention", &softmax_attention, "q"_a, "k"_a, "v"_a, "angles"_a, "layout"_a,
        "scale"_a, "causal"_a, "nthreads"_a);
  m.def("delta_rule", &delta_rule, "q"_a, "k"_a, "v"_a, "beta"_a, "angles"_a, "gates"_a, "layout"_a,
        "nthreads"_a);
  m.def("delta_transitions", &delta_transitions, "k"_a, "beta"_a, "angles"_a, "gates"_a, "layout"_a,
        "nthreads"_a);
}

}  // namespace ropelab::bind
