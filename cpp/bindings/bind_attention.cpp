// ropelab._core.attention: exact and random-feature attention (core:
// cpp/include/ropelab/attention.hpp).
#include <cmath>
#include <initializer_list>
#include <limits>
#include <tuple>

#include "common.hpp"
#include "ropelab/attention.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/rng.hpp"

namespace ropelab::bind {

namespace {

namespace at = ropelab::attention;

std::string shape_str(const py::array& a) {
  return py::str(py::tuple(a.attr("shape"))).cast<std::string>();
}

/// A float32 array argument as a C-contiguous farray; NaN/inf raise ValueError naming it.
farray float_array(py::handle obj, const char* func, const char* name) {
  farray out = contiguous<farray>(obj, func, name);
  require_finite_input(out.data(), out.size(), func, name, obj);
  return out;
}

/// q (..., T, d), k (..., S, d), v (..., S, dv) with the same leading dimensions.
at::Shape qkv_shape(const py::array& q, const py::array& k, const py::array& v, py::handle qo,
                    py::handle ko, py::handle vo, const char* f) {
  if (q.ndim() < 2)
    value_error(f, "q", "must have shape (..., T, d), has shape " + shape_str(q) + ":", qo);
  if (k.ndim() != q.ndim()) {
    value_error(f, "k",
                "must have shape (..., S, d) with q's " + std::to_string(q.ndim()) +
                    " dimensions, has shape " + shape_str(k) + ":",
                ko);
  }
  if (v.ndim() != q.ndim()) {
    value_error(f, "v",
                "must have shape (..., S, d_v) with q's " + std::to_string(q.ndim()) +
                    " dimensions, has shape " + shape_str(v) + ":",
                vo);
  }
  at::Shape s;
  const auto nd = q.ndim();
  for (py::ssize_t i = 0; i + 2 < nd; ++i) {
    if (k.shape(i) != q.shape(i) || v.shape(i) != q.shape(i)) {
      throw py::value_error(std::string(f) +
                            ": q, k and v must have the same leading (batch) "
                            "dimensions, got shapes " +
                            shape_str(q) + ", " + shape_str(k) + " and " + shape_str(v));
    }
    s.batch *= static_cast<std::size_t>(q.shape(i));
  }
  s.T = static_cast<std::size_t>(q.shape(nd - 2));
  s.d = static_cast<std::size_t>(q.shape(nd - 1));
  s.S = static_cast<std::size_t>(k.shape(nd - 2));
  s.dv = static_cast<std::size_t>(v.shape(nd - 1));
  if (s.T == 0 || s.d == 0)
    value_error(f, "q", "must have T >= 1 rows of d >= 1 channels, has shape " + shape_str(q) + ":",
                qo);
  if (static_cast<std::size_t>(k.shape(nd - 1)) != s.d) {
    value_error(
        f, "k",
        "must have q's width d = " + std::to_string(s.d) + ", has shape " + shape_str(k) + ":", ko);
  }
  if (s.S == 0) value_error(f, "k", "must have S >= 1 rows, has shape " + shape_str(k) + ":", ko);
  if (static_cast<std::size_t>(v.shape(nd - 2)) != s.S) {
    value_error(
        f, "v",
        "must have k's length S = " + std::to_string(s.S) + ", has shape " + shape_str(v) + ":",
        vo);
  }
  if (s.dv == 0)
    value_error(f, "v", "must have d_v >= 1 channels, has shape " + shape_str(v) + ":", vo);
  return s;
}

void check_causal(const at::Shape& s, bool causal, const char* f) {
  if (causal && s.T != s.S) {
    throw py::value_error(std::string(f) +
                          ": causal=True requires as many queries as keys (T == S), "
                          "got T = " +
                          std::to_string(s.T) + " and S = " + std::to_string(s.S));
  }
}

double scale_arg(py::handle obj, std::size_t d, const char* f) {
  if (obj.is_none()) return 1.0 / std::sqrt(static_cast<double>(d));
  const double s = real_scalar(obj, f, "scale");
  if (!(s > 0)) value_error(f, "scale", "must be > 0 (or None for 1/sqrt(d))", obj);
  return s;
}

std::vector<py::ssize_t> out_shape(const py::array& q, std::size_t dv) {
  std::vector<py::ssize_t> shp = shape_of(q);
  shp.back() = static_cast<py::ssize_t>(dv);
  return shp;
}

/// q, k, v and the output in one precision: double (Real = double) or float32.
template <class Real>
struct Operands {
  using Arr = py::array_t<Real, py::array::c_style | py::array::forcecast>;
  Arr q, k, v;
};

/// q, k and v converted for the core, and their shape: float32 when all three are float32 arrays
/// (computed in float32: attention.hpp), anything else real in float64.
struct Inputs {
  bool single;
  Operands<double> dp;
  Operands<float> sp;
  at::Shape shape;
};

Inputs inputs(ArrayLike qo, ArrayLike ko, ArrayLike vo, const char* f) {
  Inputs in{all_float32({qo, ko, vo}), {}, {}, {}};
  if (in.single) {
    in.sp = {float_array(qo, f, "q"), float_array(ko, f, "k"), float_array(vo, f, "v")};
    in.shape = qkv_shape(in.sp.q, in.sp.k, in.sp.v, qo, ko, vo, f);
  } else {
    in.dp = {real_array(qo, f, "q"), real_array(ko, f, "k"), real_array(vo, f, "v")};
    in.shape = qkv_shape(in.dp.q, in.dp.k, in.dp.v, qo, ko, vo, f);
  }
  return in;
}

py::array softmax(ArrayLike qo, ArrayLike ko, ArrayLike vo, bool causal, OptionalFloat scale_o,
                  OptionalArrayLike bias_o, OptionalArrayLike offsets_o, IntLike st_o, IntLike ss_o,
                  OptionalInt nthreads_o) {
  const char* f = "attention.softmax";
  const Inputs in = inputs(qo, ko, vo, f);
  const bool single = in.single;
  const Operands<double>& dp = in.dp;
  const Operands<float>& sp = in.sp;
  const py::array& q = single ? py::array(sp.q) : py::array(dp.q);
  const at::Shape& s = in.shape;
  check_causal(s, causal, f);
  const double scale = scale_arg(scale_o, s.d, f);
  const int nthreads = nthreads_arg(nthreads_o, f);
  // The bias comes broadcast by the Python layer: its buffer, one offset per sequence and the
  // element strides of the (T, S) dimensions. Checked to stay inside the buffer.
  darray bias;
  py::array_t<std::int64_t, py::array::c_style | py::array::forcecast> offsets;
  at::Bias bv;
  if (!bias_o.is_none()) {
    bias = real_array(bias_o, f, "bias", /*allow_nonfinite=*/true);
    require_each(bias, f, "bias", "must be finite or -inf (a masked logit)", [](double x) {
      return !std::isnan(x) && x != std::numeric_limits<double>::infinity();
    });
    offsets = decltype(offsets)::ensure(offsets_o);
    if (!offsets || offsets.ndim() != 1 || static_cast<std::size_t>(offsets.size()) != s.batch) {
      value_error(f, "bias_offsets", "must be 1-D with one offset per sequence", offsets_o);
    }
    bv.data = bias.data();
    bv.batch_offset = offsets.data();
    bv.stride_t = integer(st_o, f, "bias_stride_t", 0);
    bv.stride_s = integer(ss_o, f, "bias_stride_s", 0);
    const std::int64_t last = bv.stride_t * static_cast<std::int64_t>(s.T - 1) +
                              bv.stride_s * static_cast<std::int64_t>(s.S - 1);
    for (py::ssize_t b = 0; b < offsets.size(); ++b) {
      const std::int64_t o = offsets.data()[b];
      if (o < 0 || o + last >= static_cast<std::int64_t>(bias.size())) {
        value_error(f, "bias_offsets", "must address elements inside bias", offsets_o);
      }
    }
  }
  check_output_size(
      static_cast<double>(s.batch) * static_cast<double>(s.T) * static_cast<double>(s.dv), f,
      "q and v");
  const at::Bias* pb = bias_o.is_none() ? nullptr : &bv;
  const auto run = [&](auto& ops, auto& out) {
    auto* po = out.mutable_data();
    const auto *pq = ops.q.data(), *pk = ops.k.data(), *pv = ops.v.data();
    try {
      // run_interruptible releases the GIL: the core reads q, k, v, bias and writes out, all
      // held by this frame.
      run_interruptible([&](const std::atomic<bool>* cancel) {
        at::softmax(pq, pk, pv, s, scale, causal, pb, nthreads, po, cancel);
      });
    } catch (const at::EmptyRow& e) {
      throw py::value_error(std::string(f) + ": bias " + e.what() +
                            "; the output row is undefined");
    } catch (const at::LogitOverflow& e) {
      throw py::value_error(std::string(f) + ": " + e.what() + "; rescale q, k or scale");
    }
  };
  if (single) {
    farray out(out_shape(q, s.dv));
    run(sp, out);
    require_finite_result(out, f, "the output", "the values v or the logits are too large");
    return std::move(out);
  }
  darray out(out_shape(q, s.dv));
  run(dp, out);
  require_finite_result(out, f, "the output", "the values v or the logits are too large");
  return std::move(out);
}

/// sigma: a scalar, or one temperature per rotary pair (length d/2), expanded to one per channel
/// in `layout`'s pairing (interleaved: channels 2i, 2i+1; half: i, i + d/2).
std::vector<double> sigma_arg(py::handle obj, std::size_t d, const std::string& layout,
                              const char* f) {
  const darray s = real_array(obj, f, "sigma");
  require_each(s, f, "sigma", "must be >= 0", [](double x) { return x >= 0; });
  if (s.ndim() == 0) return {s.data()[0]};
  if (s.ndim() != 1)
    value_error(f, "sigma", "must be a scalar or a 1-D array of d/2 pair temperatures", obj);
  if (d % 2 != 0) {
    value_error(f, "sigma",
                "per-pair temperatures need an even width d, got d = " + std::to_string(d) + ";",
                obj);
  }
  const std::size_t h = d / 2;
  if (static_cast<std::size_t>(s.size()) != h) {
    value_error(f, "sigma",
                "must have one temperature per rotary pair (d/2 = " + std::to_string(h) +
                    " entries), has " + std::to_string(s.size()) + ":",
                obj);
  }
  std::vector<double> out(d);
  for (std::size_t c = 0; c < d; ++c) out[c] = s.data()[layout == "half" ? c % h : c / 2];
  return out;
}

/// max_i ‖x_i‖² over the rows of a (rows, d) buffer (summed in double).
template <class Arr>
double max_norm2(const Arr& x, std::size_t d) {
  double m = 0;
  const auto* p = x.data();
  const auto n = static_cast<std::size_t>(x.size()) / d;
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t c = 0; c < d; ++c) {
      const auto xc = static_cast<double>(p[i * d + c]);
      s += xc * xc;
    }
    m = std::max(m, s);
  }
  return m;
}

py::typing::Tuple<py::array, py::ellipsis> random_feature(
    ArrayLike qo, ArrayLike ko, ArrayLike vo, IntLike D_o, Choice est_o, ArrayLike sigma_o,
    Choice layout_o, bool orthogonal, bool causal, IntLike seed_o, IntLike trials_o, bool stabilize,
    OptionalFloat scale_o, OptionalInt nthreads_o, bool parts) {
  const char* f = "attention.random_feature";
  const Inputs in = inputs(qo, ko, vo, f);
  const bool single = in.single;
  const Operands<double>& dp = in.dp;
  const Operands<float>& sp = in.sp;
  const at::Shape& s = in.shape;
  check_causal(s, causal, f);
  at::RandomFeatureOptions opt;
  opt.D = static_cast<std::size_t>(integer(D_o, f, "D", 1));
  opt.estimator = parse_choice(est_o, f, "estimator", at::parse_estimator);
  const std::string layout = string_arg(layout_o, f, "layout");
  if (layout != "interleaved" && layout != "half") {
    value_error(f, "layout", "must be 'interleaved' or 'half'", layout_o);
  }
  opt.sigma = sigma_arg(sigma_o, s.d, layout, f);
  opt.orthogonal = orthogonal;
  opt.causal = causal;
  opt.seed = seed_arg(seed_o, f);
  opt.trials = static_cast<std::size_t>(integer(trials_o, f, "trials", 1));
  opt.stabilize = stabilize;
  opt.scale = scale_arg(scale_o, s.d, f);
  opt.nthreads = nthreads_arg(nthreads_o, f);
  {
    const double draws = static_cast<double>(opt.D) * static_cast<double>(s.d) +
                         static_cast<double>(s.d) * static_cast<double>(s.d);
    if (draws >= static_cast<double>(rng::kMaxDraws)) {
      value_error(f, "D", "times d exceeds the 2^40 random draws one trial may own", D_o);
    }
  }
  if (!stabilize) {
    // Without the max subtraction the amplitudes exp(±scale·‖x‖²/2) must be doubles (float32s on
    // the float32 path).
    for (auto [xo, name] : {std::tuple{qo, "q"}, std::tuple{ko, "k"}}) {
      const bool is_q = name[0] == 'q';
      const double h =
          0.5 * opt.scale *
          (single ? max_norm2(is_q ? sp.q : sp.k, s.d) : max_norm2(is_q ? dp.q : dp.k, s.d));
      const double amp = std::exp(h);
      if (!std::isfinite(single ? static_cast<double>(static_cast<float>(amp)) : amp)) {
        value_error(f, name,
                    std::string("has a row whose amplitude exp(scale*|x|^2/2) overflows a ") +
                        (single ? "float32" : "double") + " (scale*|x|^2/2 = " + std::to_string(h) +
                        "); pass stabilize=True,",
                    xo);
      }
    }
  }
  const double rows =
      static_cast<double>(opt.trials) * static_cast<double>(s.batch) * static_cast<double>(s.T);
  check_output_size(rows * static_cast<double>(s.dv) * (parts ? 2.0 : 1.0) + (parts ? rows : 0.0),
                    f, "trials=" + std::to_string(opt.trials) + " with q and v");
  const std::vector<py::ssize_t> shp{static_cast<py::ssize_t>(opt.trials),
                                     static_cast<py::ssize_t>(s.batch),
                                     static_cast<py::ssize_t>(s.T), static_cast<py::ssize_t>(s.dv)};
  const auto run = [&](auto& ops, auto& out, auto& num, auto& den) {
    auto* po = out.mutable_data();
    auto* pn = parts ? num.mutable_data() : nullptr;
    auto* pd = parts ? den.mutable_data() : nullptr;
    const auto *pq = ops.q.data(), *pk = ops.k.data(), *pv = ops.v.data();
    try {
      // run_interruptible releases the GIL: the core reads q, k, v and writes out/num/den, all
      // held by this frame; it polls the cancel flag between chunks of rows.
      run_interruptible([&](const std::atomic<bool>* cancel) {
        at::random_feature(pq, pk, pv, s, opt, po, pn, pd, cancel);
      });
    } catch (const at::ValueOverflow& e) {
      throw py::value_error(std::string(f) + ": v: " + e.what() +
                            (stabilize ? std::string("; rescale v")
                                       : std::string("; rescale v or pass stabilize=True (the "
                                                     "unstabilised features can be large)")));
    } catch (const at::FeatureOverflow& e) {
      // without stabilisation a feature; with it a log-magnitude that no shift can bring back
      throw py::value_error(
          std::string(f) + ": " + e.argument + ": " + e.quantity + " of " + e.argument +
          " overflows a " + (e.single ? "float32" : "double") +
          " for these norms, sigma and scale" +
          (stabilize ? std::string(" (even with stabilize=True: the log-domain value itself is "
                                   "beyond a ") +
                           (e.single ? "float32" : "double") + ")"
                     : std::string("; pass stabilize=True")));
    }
    // unstabilised, products of features (amplitudes exp(h_q + h_k)) can also overflow
    require_finite_result(out, f, "the output",
                          stabilize ? "the estimated denominator vanished; use more features D, "
                                      "the positive estimator, or a smaller sigma"
                                    : "the estimated denominator vanished or overflowed (the "
                                      "unstabilised features can be large); use more features D, "
                                      "the positive estimator, a smaller sigma, or pass "
                                      "stabilize=True");
  };
  const std::vector<py::ssize_t> den_shape{shp[0], shp[1], shp[2]};
  if (single) {
    farray out(shp), num, den;
    if (parts) num = farray(shp), den = farray(den_shape);
    run(sp, out, num, den);
    if (parts) return py::make_tuple(out, num, den);
    return py::make_tuple(out);
  }
  darray out(shp), num, den;
  if (parts) num = darray(shp), den = darray(den_shape);
  run(dp, out, num, den);
  if (parts) return py::make_tuple(out, num, den);
  return py::make_tuple(out);
}

darray feature_map(ArrayLike X_o, ArrayLike omega_o, Choice est_o, FloatLike scale_o) {
  const char* f = "attention.feature_map";
  const darray X = real_array_nd(X_o, f, "X", 2);
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  const Estimator est = parse_choice(est_o, f, "estimator", at::parse_estimator);
  if (omega.shape(0) == 0) value_error(f, "omega", "must have at least one row", omega_o);
  if (X.shape(1) != omega.shape(1)) {
    value_error(f, "omega",
                "must have X's number of columns " + std::to_string(X.shape(1)) + ", has shape " +
                    shape_str(omega) + ":",
                omega_o);
  }
  const double scale = real_scalar(scale_o, f, "scale");
  if (!(scale > 0)) value_error(f, "scale", "must be > 0", scale_o);
  const auto n = static_cast<std::size_t>(X.shape(0)), d = static_cast<std::size_t>(X.shape(1));
  const auto D = static_cast<std::size_t>(omega.shape(0));
  const std::size_t F = at::feature_count(est, D);
  check_output_size(static_cast<double>(n) * static_cast<double>(F), f, "X and omega");
  darray out(std::vector<py::ssize_t>{static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(F)});
  double* po = out.mutable_data();
  const double *px = X.data(), *pw = omega.data();
  {
    // Safe without the GIL: reads and writes only the arrays held above.
    py::gil_scoped_release release;
    at::feature_map(px, n, d, pw, D, est, scale, nullptr, po, nullptr);
  }
  require_finite_result(out, f, "the feature matrix (row-major)",
                        "the features overflow for rows of X this large");
  return out;
}

}  // namespace

void register_attention(py::module_& m) {
  m.def("softmax", &softmax, "q"_a, "k"_a, "v"_a, "causal"_a, "scale"_a, "bias"_a, "bias_offsets"_a,
        "bias_stride_t"_a, "bias_stride_s"_a, "nthreads"_a);
  m.def("random_feature", &random_feature, "q"_a, "k"_a, "v"_a, "D"_a, "estimator"_a, "sigma"_a,
        "layout"_a, "orthogonal"_a, "causal"_a, "seed"_a, "trials"_a, "stabilize"_a, "scale"_a,
        "nthreads"_a, "parts"_a);
  m.def("estimators", [] { return estimator_names(at::estimators()); });
  m.def("feature_map", &feature_map, "X"_a, "omega"_a, "estimator"_a, "scale"_a);
}

}  // namespace ropelab::bind
