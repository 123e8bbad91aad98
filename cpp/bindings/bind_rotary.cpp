// ropelab._core.rotary: rotations of channel pairs (core: cpp/include/ropelab/rotary.hpp).
#include <cmath>
#include <complex>
#include <cstdint>

#include "batch.hpp"
#include "common.hpp"
#include "ropelab/limits.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/rotary.hpp"

namespace ropelab::bind {

namespace {

std::size_t even_d(py::handle obj, const char* func) {
  const std::int64_t d = integer(obj, func, "d", 2);
  if (d % 2 != 0) value_error(func, "d", "must be even (channels are rotated in pairs)", obj);
  if (static_cast<std::size_t>(d) > limits::kMaxHeadDim) {
    value_error(func, "d", "is too large (at most 2^40)", obj);
  }
  return static_cast<std::size_t>(d);
}

double base_arg(py::handle obj, const char* func) {
  const double base = real_scalar(obj, func, "base");
  if (!(base > 0)) value_error(func, "base", "must be > 0", obj);
  return base;
}

darray frequencies(IntLike d_o, FloatLike base_o) {
  const char* f = "rotary.frequencies";
  const std::size_t d = even_d(d_o, f);
  const double base = base_arg(base_o, f);
  check_output_size(static_cast<double>(d / 2), f, "d=" + std::to_string(d));
  darray out(static_cast<py::ssize_t>(d / 2));
  double* po = out.mutable_data();
  // Safe without the GIL: writes only `out` (run_polled: Ctrl-C for a long table).
  run_polled(20.0 * static_cast<double>(d / 2),
             [&](const std::atomic<bool>* cancel) { rotary::frequencies(d, base, po, cancel); });
  return out;
}

darray rope_angles(ArrayLike pos_o, IntLike d_o, FloatLike base_o, FloatLike scale_o) {
  const char* f = "rotary.rope_angles";
  const darray pos = real_array(pos_o, f, "positions");
  const std::size_t d = even_d(d_o, f);
  const double base = base_arg(base_o, f);
  const double scale = real_scalar(scale_o, f, "scale");
  if (!(scale > 0))
    value_error(f, "scale", "must be > 0 (position interpolation uses L/L')", scale_o);
  std::vector<py::ssize_t> shape = shape_of(pos);
  shape.push_back(static_cast<py::ssize_t>(d / 2));
  check_output_size(static_cast<double>(pos.size()) * static_cast<double>(d / 2), f,
                    "positions and d=" + std::to_string(d));
  darray out(shape);
  double* po = out.mutable_data();
  const double* pp = pos.data();
  const auto n = static_cast<std::size_t>(pos.size());
  // Safe without the GIL: reads positions, writes out (both held by this frame).
  run_polled(
      static_cast<double>(n) * static_cast<double>(d / 2) + 20.0 * static_cast<double>(d / 2),
      [&](const std::atomic<bool>* cancel) {
        rotary::rope_angles(pp, n, d, base, scale, po, cancel);
      });
  return out;
}

template <class Arr, class T>
py::array rotate_impl(const Arr& x, const darray& ang, py::handle x_o, py::handle ang_o,
                      rotary::Layout layout, int nthreads, const char* f) {
  const std::size_t d = static_cast<std::size_t>(x.shape(x.ndim() - 1));
  const std::size_t n = d == 0 ? 0 : static_cast<std::size_t>(x.size()) / d;
  const std::size_t na =
      suffix_batch(lead_shape(x, 1), lead_shape(ang, 1), f, "angles", "x", ang_o);
  Arr out(shape_of(x));
  const T* px = x.data();
  const double* pa = ang.data();
  T* po = out.mutable_data();
  if (n == 0) return out;
  bool finite = true;
  // Safe without the GIL: the core reads x and angles and writes out, all held by this frame
  // (run_interruptible waits for every worker to stop before returning).
  run_polled(static_cast<double>(n) * static_cast<double>(d), [&](const std::atomic<bool>* cancel) {
    finite = rotary::rotate<T>(px, pa, n, na, d, layout, po, nthreads, cancel);
  });
  if (!finite) {  // rare path: find the offending element for the message
    for (py::ssize_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(static_cast<double>(px[i]))) {
        value_error(f, "x", "must be finite (element " + std::to_string(i) + " is not)", x_o);
      }
    }
  }
  return out;
}

py::array rotate(ArrayLike x_o, ArrayLike ang_o, Choice layout_o, OptionalInt nthreads_o) {
  const char* f = "rotary.rotate";
  const rotary::Layout layout = layout_arg(layout_o, f);
  const int nthreads = nthreads_arg(nthreads_o, f);
  const darray ang = real_array(ang_o, f, "angles");
  if (ang.ndim() < 1) value_error(f, "angles", "must have shape (..., d/2), not a scalar", ang_o);
  // float32 input stays float32 (its own path); everything else real is computed in float64.
  const bool single = py::isinstance<py::array>(x_o) &&
                      py::reinterpret_borrow<py::array>(x_o).dtype().is(py::dtype::of<float>());
  py::array xa;
  if (single) {
    xa = contiguous<farray>(x_o, f, "x");
  } else {
    // Finiteness of x is checked inside the rotation loop (no extra pass over a large array).
    xa = real_array(x_o, f, "x", /*allow_nonfinite=*/true);
  }
  if (xa.ndim() < 1) value_error(f, "x", "must have shape (..., d), not a scalar", x_o);
  const py::ssize_t d = xa.shape(xa.ndim() - 1);
  require_even(d, f, "x", x_o);
  if (ang.shape(ang.ndim() - 1) != d / 2) {
    throw py::value_error(
        std::string(f) + ": angles must have last dimension d/2 = " + std::to_string(d / 2) +
        " for x of shape " + shape_str(xa) + ", got angles.shape=" + shape_str(ang));
  }
  if (single) {
    return rotate_impl<farray, float>(contiguous<farray>(xa, f, "x"), ang, x_o, ang_o, layout,
                                      nthreads, f);
  }
  return rotate_impl<darray, double>(contiguous<darray>(xa, f, "x"), ang, x_o, ang_o, layout,
                                     nthreads, f);
}

/// theta: a scalar (one frequency for every pair) or h values.
std::vector<double> theta_arg(py::handle obj, std::size_t h, const char* f) {
  const darray th = real_array(obj, f, "theta");
  if (th.ndim() == 0 || (th.ndim() == 1 && th.size() == 1)) {
    return std::vector<double>(h, th.data()[0]);
  }
  if (th.ndim() != 1 || static_cast<std::size_t>(th.size()) != h) {
    value_error(f, "theta",
                "must be a scalar or have shape (d/2,) = (" + std::to_string(h) + ",), has shape " +
                    shape_str(th),
                obj);
  }
  return std::vector<double>(th.data(), th.data() + h);
}

darray cumulative_angles(ArrayLike omega_o, ArrayLike theta_o, Choice acc_o) {
  const char* f = "rotary.cumulative_angles";
  const darray omega = array_min_nd(omega_o, f, "omega", 2, "(..., T, d/2)");
  const rotary::Accumulate acc = parse_choice(acc_o, f, "accumulate", rotary::parse_accumulate);
  const auto T = static_cast<std::size_t>(omega.shape(omega.ndim() - 2));
  const auto h = static_cast<std::size_t>(omega.shape(omega.ndim() - 1));
  const std::vector<double> theta = theta_arg(theta_o, h, f);
  const std::size_t batch = product(lead_shape(omega, 2));
  darray out = empty_like(omega);
  const double* pw = omega.data();
  double* po = out.mutable_data();
  // Safe without the GIL: only omega, theta and out (owned here) are touched.
  run_polled(static_cast<double>(omega.size()), [&](const std::atomic<bool>* cancel) {
    rotary::cumulative_angles(pw, batch, T, h, theta.data(), acc, po, cancel);
  });
  return out;
}

struct ConvArgs {
  darray x, w;
  std::size_t batch, T, c, K, kc;
  rotary::Activation act;
};

ConvArgs conv_args(py::handle x_o, py::handle w_o, py::handle act_o, const char* f) {
  ConvArgs a;
  a.x = array_min_nd(x_o, f, "x", 2, "(..., T, channels)");
  a.w = real_array(w_o, f, "kernel");
  a.T = static_cast<std::size_t>(a.x.shape(a.x.ndim() - 2));
  a.c = static_cast<std::size_t>(a.x.shape(a.x.ndim() - 1));
  a.batch = product(lead_shape(a.x, 2));
  if (a.w.ndim() == 1) {
    a.K = static_cast<std::size_t>(a.w.shape(0));
    a.kc = 1;
  } else if (a.w.ndim() == 2 && static_cast<std::size_t>(a.w.shape(1)) == a.c) {
    a.K = static_cast<std::size_t>(a.w.shape(0));
    a.kc = a.c;
  } else {
    value_error(f, "kernel",
                "must have shape (K,) or (K, channels) = (K, " + std::to_string(a.c) +
                    "), has shape " + shape_str(a.w),
                w_o);
  }
  if (a.K == 0) value_error(f, "kernel", "must have at least one tap (K >= 1)", w_o);
  a.act = act_o.is_none() ? rotary::Activation::none
                          : parse_choice(act_o, f, "activation", rotary::parse_activation);
  return a;
}

darray short_conv(ArrayLike x_o, ArrayLike w_o, OptionalChoice act_o) {
  const char* f = "rotary.short_conv";
  const ConvArgs a = conv_args(x_o, w_o, act_o, f);
  darray out = empty_like(a.x);
  double* po = out.mutable_data();
  // Safe without the GIL: only the arrays held by `a` and `out` are touched.
  run_polled(static_cast<double>(a.x.size()) * static_cast<double>(a.K),
             [&](const std::atomic<bool>* cancel) {
               rotary::short_conv(a.x.data(), a.batch, a.T, a.c, a.w.data(), a.K, a.kc, a.act, po,
                                  cancel);
             });
  return out;
}

darray selective_angles(ArrayLike x_o, ArrayLike w_o, ArrayLike theta_o, OptionalChoice act_o,
                        Choice acc_o) {
  const char* f = "rotary.selective_angles";
  const ConvArgs a = conv_args(x_o, w_o, act_o, f);
  const std::vector<double> theta = theta_arg(theta_o, a.c, f);
  const rotary::Accumulate acc = parse_choice(acc_o, f, "accumulate", rotary::parse_accumulate);
  darray omega = empty_like(a.x), out = empty_like(a.x);
  double* pw = omega.mutable_data();
  double* po = out.mutable_data();
  // Safe without the GIL: only arrays owned by this frame are touched.
  run_polled(static_cast<double>(a.x.size()) * static_cast<double>(a.K + 1),
             [&](const std::atomic<bool>* cancel) {
               rotary::short_conv(a.x.data(), a.batch, a.T, a.c, a.w.data(), a.K, a.kc, a.act, pw,
                                  cancel);
               rotary::cumulative_angles(pw, a.batch, a.T, a.c, theta.data(), acc, po, cancel);
             });
  return out;
}

darray decay_bound(ArrayLike r_o, IntLike d_o, FloatLike base_o) {
  const char* f = "rotary.decay_bound";
  const darray r = real_array(r_o, f, "r");
  const std::size_t d = even_d(d_o, f);
  const double base = base_arg(base_o, f);
  check_output_size(static_cast<double>(d / 2), f,
                    "d=" + std::to_string(d));  // the frequency table
  darray out = empty_like(r);
  double* po = out.mutable_data();
  const double* pr = r.data();
  const auto n = static_cast<std::size_t>(r.size());
  // Safe without the GIL: reads r, writes out (run_interruptible waits for the work to stop).
  run_interruptible(
      [&](const std::atomic<bool>* cancel) { rotary::decay_bound(pr, n, d, base, po, cancel); });
  return out;
}

darray rotation_matrix(ArrayLike ang_o, Choice layout_o) {
  const char* f = "rotary.rotation_matrix";
  const darray ang = array_min_nd(ang_o, f, "angles", 1, "(..., d/2)");
  const rotary::Layout layout = layout_arg(layout_o, f);
  const auto h = static_cast<std::size_t>(ang.shape(ang.ndim() - 1));
  if (h == 0) value_error(f, "angles", "must have at least one pair", ang_o);
  const std::size_t d = 2 * h, n = static_cast<std::size_t>(ang.size()) / h;
  std::vector<py::ssize_t> shape = lead_shape(ang, 1);
  shape.push_back(static_cast<py::ssize_t>(d));
  shape.push_back(static_cast<py::ssize_t>(d));
  check_output_size(static_cast<double>(n) * static_cast<double>(d * d), f, "angles");
  darray out(shape);
  double* po = out.mutable_data();
  const double* pa = ang.data();
  // Safe without the GIL: reads angles, writes out.
  run_polled(static_cast<double>(n) * static_cast<double>(d * d),
             [&](const std::atomic<bool>* cancel) {
               for (std::size_t b = 0; b < n; ++b) {
                 poll(cancel);
                 rotary::rotation_matrix(pa + b * h, d, layout, po + b * d * d, cancel);
               }
             });
  return out;
}

carray complex_arg(py::handle obj, const char* f, const char* name) {
  if (obj.is_none()) type_error(f, name, "must be a complex (or real) numeric array", obj);
  py::array arr;
  try {
    arr = py::module_::import("numpy").attr("asarray")(obj);
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_MemoryError)) throw;
    type_error(f, name, "must be convertible to a complex (or real) numeric array", obj);
  }
  const char kind = arr.dtype().kind();
  if (kind == 'b')
    type_error(f, name, "must be a numeric array, not bool (True/False are not numbers)", obj);
  if (kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c') {
    type_error(f, name,
               "must be a complex (or real) numeric array (strings, objects and datetimes are not "
               "accepted), got dtype " +
                   py::str(arr.dtype()).cast<std::string>() + " from",
               obj);
  }
  carray z = contiguous<carray>(arr, f, name);
  for (py::ssize_t i = 0; i < z.size(); ++i) {
    const auto v = z.data()[i];
    if (!std::isfinite(v.real()) || !std::isfinite(v.imag())) {
      value_error(f, name, "must be finite (element " + std::to_string(i) + " is not)", obj);
    }
  }
  return z;
}

darray realify(ArrayLike z_o, Choice layout_o) {
  const char* f = "rotary.realify";
  const carray z = complex_arg(z_o, f, "z");
  if (z.ndim() < 1) value_error(f, "z", "must have shape (..., d/2), not a scalar", z_o);
  const rotary::Layout layout = layout_arg(layout_o, f);
  const auto h = static_cast<std::size_t>(z.shape(z.ndim() - 1));
  std::vector<py::ssize_t> shape = lead_shape(z, 1);
  shape.push_back(static_cast<py::ssize_t>(2 * h));
  darray out(shape);
  const std::size_t n = h == 0 ? 0 : static_cast<std::size_t>(z.size()) / h;
  double* po = out.mutable_data();
  const std::complex<double>* pz = z.data();
  // Safe without the GIL: reads z, writes out (the core polls Ctrl-C, also inside long rows).
  run_polled(2.0 * static_cast<double>(z.size()), [&](const std::atomic<bool>* cancel) {
    rotary::realify(pz, n, h, layout, po, cancel);
  });
  return out;
}

carray complexify(ArrayLike x_o, Choice layout_o) {
  const char* f = "rotary.complexify";
  const darray x = array_min_nd(x_o, f, "x", 1, "(..., d)");
  const rotary::Layout layout = layout_arg(layout_o, f);
  const py::ssize_t d = x.shape(x.ndim() - 1);
  require_even(d, f, "x", x_o);
  std::vector<py::ssize_t> shape = lead_shape(x, 1);
  shape.push_back(d / 2);
  carray out(shape);
  const std::size_t n = static_cast<std::size_t>(x.size()) / static_cast<std::size_t>(d);
  std::complex<double>* po = out.mutable_data();
  const double* px = x.data();
  const auto du = static_cast<std::size_t>(d);
  // Safe without the GIL: reads x, writes out (the core polls Ctrl-C, also inside long rows).
  run_polled(static_cast<double>(x.size()), [&](const std::atomic<bool>* cancel) {
    rotary::complexify(px, n, du, layout, po, cancel);
  });
  return out;
}

darray realify_diagonal(ArrayLike lam_o, Choice layout_o) {
  const char* f = "rotary.realify_diagonal";
  const carray lam = complex_arg(lam_o, f, "lam");
  if (lam.ndim() != 1 || lam.size() == 0) {
    value_error(f, "lam", "must be a non-empty 1-D array of d/2 complex eigenvalues", lam_o);
  }
  const rotary::Layout layout = layout_arg(layout_o, f);
  const auto h = static_cast<std::size_t>(lam.size());
  check_output_size(4.0 * static_cast<double>(h) * static_cast<double>(h), f, "lam");
  darray out({static_cast<py::ssize_t>(2 * h), static_cast<py::ssize_t>(2 * h)});
  double* po = out.mutable_data();
  const std::complex<double>* pl = lam.data();
  // Safe without the GIL: reads lam, writes out.
  run_polled(4.0 * static_cast<double>(h) * static_cast<double>(h),
             [&](const std::atomic<bool>* cancel) {
               rotary::realify_diagonal(pl, h, layout, po, cancel);
             });
  return out;
}

darray parity_angle_error(ArrayLike bits_o, Choice acc_o) {
  const char* f = "rotary.parity_angle_error";
  // bits may be bool (the one argument where True/False are the natural values)
  py::object bits_obj = py::reinterpret_borrow<py::object>(bits_o);
  if (py::isinstance<py::array>(bits_o) &&
      py::reinterpret_borrow<py::array>(bits_o).dtype().kind() == 'b') {
    bits_obj = bits_obj.attr("astype")("uint8");
  }
  const darray b = array_min_nd(bits_obj, f, "bits", 1, "(..., T)");
  require_each(b, f, "bits", "must contain only 0 and 1",
               [](double x) { return x == 0 || x == 1; });
  const rotary::Accumulate acc = parse_choice(acc_o, f, "accumulate", rotary::parse_accumulate);
  const auto T = static_cast<std::size_t>(b.shape(b.ndim() - 1));
  const std::size_t total = static_cast<std::size_t>(b.size());
  const std::size_t rows = T == 0 ? 0 : total / T;
  std::vector<std::uint8_t> bits(total);
  for (std::size_t t = 0; t < total; ++t) bits[t] = b.data()[t] != 0 ? 1 : 0;
  darray out = empty_like(b);
  double* po = out.mutable_data();
  run_interruptible([&](const std::atomic<bool>* cancel) {
    for (std::size_t r = 0; r < rows; ++r) {
      rotary::parity_angle_error(bits.data() + r * T, T, acc, po + r * T, cancel);
    }
  });
  return out;
}

}  // namespace

void register_rotary(py::module_& m) {
  m.def("layouts", &rotary::layout_names);
  m.def("accumulations", &rotary::accumulate_names);
  m.def("activations", &rotary::activation_names);
  m.def("frequencies", &frequencies, "d"_a, "base"_a);
  m.def("rope_angles", &rope_angles, "positions"_a, "d"_a, "base"_a, "scale"_a);
  m.def("rotate", &rotate, "x"_a, "angles"_a, "layout"_a, "nthreads"_a);
  m.def("cumulative_angles", &cumulative_angles, "omega"_a, "theta"_a, "accumulate"_a);
  m.def("short_conv", &short_conv, "x"_a, "kernel"_a, "activation"_a);
  m.def("selective_angles", &selective_angles, "x"_a, "kernel"_a, "theta"_a, "activation"_a,
        "accumulate"_a);
  m.def("decay_bound", &decay_bound, "r"_a, "d"_a, "base"_a);
  m.def("rotation_matrix", &rotation_matrix, "angles"_a, "layout"_a);
  m.def("realify", &realify, "z"_a, "layout"_a);
  m.def("complexify", &complexify, "x"_a, "layout"_a);
  m.def("realify_diagonal", &realify_diagonal, "lam"_a, "layout"_a);
  m.def("parity_angle_error", &parity_angle_error, "bits"_a, "accumulate"_a);
}

}  // namespace ropelab::bind
