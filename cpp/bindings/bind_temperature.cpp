// ropelab._core.temperature: Theorem 1, its counterexample and correction
// (core: cpp/include/ropelab/temperature.hpp).
#include <cmath>

#include "common.hpp"
#include "result_class.hpp"
#include "ropelab/temperature.hpp"

namespace ropelab::bind {

namespace {

using rff::Convention;

darray xi_arg(py::handle obj, const char* func) {
  darray xi = real_array(obj, func, "xi");
  require_each(xi, func, "xi", "must lie in [-1, 1]", [](double x) { return x >= -1 && x <= 1; });
  return xi;
}

darray D_arg(py::handle obj, const char* func) {
  darray D = real_array(obj, func, "D");
  require_each(D, func, "D", "must be a positive integer",
               [](double x) { return x >= 1 && std::floor(x) == x; });
  return D;
}

darray paper_sigma(ArrayLike xi_o) {
  const darray xi = xi_arg(xi_o, "temperature.paper_sigma");
  darray out = empty_like(xi);
  const double* px = xi.data();
  double* po = out.mutable_data();
  const auto n = static_cast<std::size_t>(xi.size());
  // Safe without the GIL: reads xi, writes out (run_polled: Ctrl-C between chunks).
  run_polled(100.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 100.0, cancel, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) po[i] = temperature::paper_sigma(px[i]);
    });
  });
  return out;
}

darray unbiased_sigma(ArrayLike xi_o, Choice est_o, Choice conv_o) {
  const char* f = "temperature.unbiased_sigma";
  const darray xi = xi_arg(xi_o, f);
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  const Convention conv = parse_choice(conv_o, f, "convention", rff::parse_convention);
  darray out = empty_like(xi);
  const double* px = xi.data();
  double* po = out.mutable_data();
  const auto n = static_cast<std::size_t>(xi.size());
  // Safe without the GIL: reads xi, writes out (run_polled: Ctrl-C between chunks).
  run_polled(100.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 100.0, cancel, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) po[i] = temperature::unbiased_sigma(px[i], est, conv);
    });
  });
  return out;
}

// mse and optimal_sigma broadcast their array arguments here (NumPy's rules), so that a scalar
// against a large array is never materialised as a full array.

darray mse(ArrayLike xi_o, ArrayLike D_o, ArrayLike sigma_o, Choice est_o, Choice conv_o,
           bool log) {
  const char* f = "temperature.mse";
  const darray xi = xi_arg(xi_o, f);
  const darray D = D_arg(D_o, f);
  const darray sigma = real_array(sigma_o, f, "sigma");
  require_each(sigma, f, "sigma", "must be >= 0", [](double x) { return x >= 0; });
  const Broadcast<3> bc({&xi, &D, &sigma}, f, "xi, D and sigma");
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  const Convention conv = parse_choice(conv_o, f, "convention", rff::parse_convention);
  darray out(bc.shape());
  const double* ps = sigma.data();
  const double* px = xi.data();
  const double* pd = D.data();
  double* po = out.mutable_data();
  const std::size_t n = bc.size();
  // Safe without the GIL: reads xi, D and sigma, writes out (run_polled: Ctrl-C between chunks).
  run_polled(1000.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      bc.visit(b, e, [&](std::size_t i, const Broadcast<3>::Offsets& o) {
        const rff::Pair p = rff::make_unit_pair(px[o[0]]);
        po[i] = log ? rff::log_mse(p, pd[o[1]], ps[o[2]], est, conv)
                    : rff::mse(p, pd[o[1]], ps[o[2]], est, conv);
      });
    });
  });
  if (!log) require_finite_result(out, f, "the MSE", "pass log=True for the log-domain MSE");
  return out;
}

darray optimal_sigma(ArrayLike xi_o, ArrayLike D_o, Choice est_o, Choice conv_o, Choice method_o) {
  const char* f = "temperature.optimal_sigma";
  const darray xi = xi_arg(xi_o, f);
  const darray D = D_arg(D_o, f);
  const Broadcast<2> bc({&xi, &D}, f, "xi and D");
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  const Convention conv = parse_choice(conv_o, f, "convention", rff::parse_convention);
  const bool cubic = parse_choice(method_o, f, "method", temperature::parse_sigma_method) ==
                     temperature::SigmaMethod::cubic;
  darray out(bc.shape());
  const double* px = xi.data();
  const double* pD = D.data();
  double* po = out.mutable_data();
  const std::size_t n = bc.size();
  run_interruptible([&](const std::atomic<bool>* cancel) {
    for_chunks(n, 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      bc.visit(b, e, [&](std::size_t i, const Broadcast<2>::Offsets& o) {
        const rff::Pair p = rff::make_unit_pair(px[o[0]]);
        po[i] = cubic ? temperature::optimal_sigma_cubic(p, pD[o[1]], est, conv)
                      : temperature::optimal_sigma_brent(p, pD[o[1]], est, conv);
      });
    });
  });
  return out;
}

darray spectrum(IntLike d_o, Choice kind_o, FloatLike base_o, OptionalFloat theta_max_o,
                FloatLike temp_max_o, bool squared) {
  const char* f = "temperature.spectrum";
  const std::int64_t d = integer(d_o, f, "d", 2);
  if (d % 2 != 0) value_error(f, "d", "must be even (channels come in rotation pairs)", d_o);
  const temperature::SpectrumKind kind =
      parse_choice(kind_o, f, "kind", temperature::parse_spectrum_kind);
  const double base = real_scalar(base_o, f, "base");
  if (!(base > 1)) value_error(f, "base", "must be > 1", base_o);
  const double theta_max =
      theta_max_o.is_none() ? 1.0 - 1.0 / base : real_scalar(theta_max_o, f, "theta_max");
  if (!(theta_max > 0 && theta_max < 1)) {
    value_error(f, "theta_max", "must lie in (0, 1) (tan(pi/2) is infinite)", theta_max_o);
  }
  const double temp_max = real_scalar(temp_max_o, f, "temp_max");
  if (!(temp_max > 0)) value_error(f, "temp_max", "must be > 0", temp_max_o);
  if (squared && kind != temperature::SpectrumKind::rfa) {
    value_error(f, "squared", "applies to kind='rfa' only", py::bool_(squared));
  }
  check_output_size(static_cast<double>(d) / 2, f, "d=" + std::to_string(d));
  const std::vector<double> v =
      temperature::spectrum(static_cast<std::size_t>(d), kind, base, theta_max, temp_max, squared);
  darray out(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

temperature::Counterexample counterexample(FloatLike xi_o) {
  const char* f = "temperature.counterexample";
  const double xi = real_scalar(xi_o, f, "xi");
  if (!(xi > -1 && xi <= 1)) value_error(f, "xi", "must lie in (-1, 1]", xi_o);
  return temperature::counterexample(xi);
}

}  // namespace

void register_temperature(py::module_& m) {
  m.def("methods", &temperature::sigma_method_names);
  m.def("spectrum_kinds", &temperature::spectrum_kind_names);
  using C = temperature::Counterexample;
  ResultClass<C>(m, "Counterexample",
                 "The numbers of Theorem 1's counterexample at xi (unit norms, trig estimator; the "
                 "documented class is ropelab.temperature.Counterexample).")
      .field("xi", &C::xi, "The cosine ``q.k`` of the unit-norm pair.")
      .field("sigma_paper", &C::sigma_paper, "The paper's temperature ``tan(arccos(xi)/2)``.")
      .field("sigma_paper_sq", &C::sigma_paper_sq, "Its square ``(1 - xi)/(1 + xi)``.")
      .field("mean_paper", &C::mean_paper,
             "``E[K]`` of the conjugate product at the paper's sigma: "
             "``exp(1 - sigma^2 (1 - xi))``.")
      .field("target", &C::target, "The kernel value ``exp(xi)``.")
      .field("mean_sigma1", &C::mean_sigma1,
             "``E[K]`` of the conjugate product at ``sigma = 1`` (equals the target).")
      .field("mean_paper_literal", &C::mean_paper_literal,
             "``E[K]`` of the literal product at the paper's sigma, ``exp(1 - sigma^2 (1 + xi))`` "
             "(equals the target: the tan rule is the bias-zeroing sigma of the unconjugated "
             "product).")
      .field("target_literal", &C::target_literal,
             "What the literal product estimates at ``sigma = 1``: ``exp(-xi)``.")
      .finish();
  m.def("paper_sigma", &paper_sigma, "xi"_a);
  m.def("unbiased_sigma", &unbiased_sigma, "xi"_a, "estimator"_a, "convention"_a);
  m.def("mse", &mse, "xi"_a, "D"_a, "sigma"_a, "estimator"_a, "convention"_a, "log"_a);
  m.def("optimal_sigma", &optimal_sigma, "xi"_a, "D"_a, "estimator"_a, "convention"_a, "method"_a);
  m.def("spectrum", &spectrum, "d"_a, "kind"_a, "base"_a, "theta_max"_a, "temp_max"_a, "squared"_a);
  m.def("counterexample", &counterexample, "xi"_a);
  m.def("depressed_cubic_root", &temperature::depressed_cubic_root, "p"_a, "r"_a,
        "Unique real root of t^3 + p t + r = 0 for p >= 0.");
}

}  // namespace ropelab::bind
