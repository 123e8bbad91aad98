// ropelab._core.rff: random-feature estimators (core: cpp/include/ropelab/rff.hpp).
#include <cmath>
#include <memory>
#include <tuple>
#include <vector>

#include "common.hpp"
#include "ropelab/rff.hpp"

namespace ropelab::bind {

namespace {

using rff::Convention;

/// q and k: 1-D, finite, same length ≥ 1.
rff::Pair pair_arg(const darray& q, const darray& k, py::handle qo, py::handle ko,
                   const char* func) {
  if (q.ndim() != 1) value_error(func, "q", "must be a 1-D array", qo);
  if (k.ndim() != 1) value_error(func, "k", "must be a 1-D array", ko);
  if (q.size() == 0) value_error(func, "q", "must not be empty", qo);
  if (q.size() != k.size()) {
    throw py::value_error(std::string(func) + ": q and k must have the same length, got " +
                          std::to_string(q.size()) + " and " + std::to_string(k.size()));
  }
  return rff::make_pair(q.data(), k.data(), static_cast<std::size_t>(q.size()));
}

darray sigma_arg(py::handle obj, const char* func) {
  darray s = real_array(obj, func, "sigma");
  require_each(s, func, "sigma", "must be >= 0", [](double x) { return x >= 0; });
  return s;
}

std::tuple<darray, darray> moments(ArrayLike qo, ArrayLike ko, ArrayLike sigma_o, Choice est_o,
                                   Choice conv_o, bool log) {
  const char* f = "rff.moments";
  const darray q = real_array(qo, f, "q"), k = real_array(ko, f, "k");
  const rff::Pair p = pair_arg(q, k, qo, ko, f);
  const darray sigma = sigma_arg(sigma_o, f);
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  const Convention conv = parse_choice(conv_o, f, "convention", rff::parse_convention);
  darray mean = empty_like(sigma), var = empty_like(sigma);
  const double* s = sigma.data();
  double* pm = mean.mutable_data();
  double* pv = var.mutable_data();
  const auto n = static_cast<std::size_t>(sigma.size());
  // Safe without the GIL: reads sigma, writes mean and var (run_polled: Ctrl-C between chunks).
  run_polled(1000.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i) {
        const rff::Moments mo =
            log ? rff::log_moments(p, s[i], est, conv) : rff::moments(p, s[i], est, conv);
        pm[i] = mo.mean;
        pv[i] = mo.variance;
      }
    });
  });
  if (!log) {
    const char* hint =
        "q and k are too large for this sigma (an exponential of their scaled norms overflows); "
        "pass log=True for log-domain moments";
    require_finite_result(mean, f, "the mean", hint);
    require_finite_result(var, f, "the variance", hint);
  }
  return {mean, var};
}

darray mse(ArrayLike qo, ArrayLike ko, IntLike D_o, ArrayLike sigma_o, Choice est_o, Choice conv_o,
           bool log) {
  const char* f = "rff.mse";
  const darray q = real_array(qo, f, "q"), k = real_array(ko, f, "k");
  const rff::Pair p = pair_arg(q, k, qo, ko, f);
  const darray sigma = sigma_arg(sigma_o, f);
  const auto D = static_cast<double>(integer(D_o, f, "D", 1));
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  const Convention conv = parse_choice(conv_o, f, "convention", rff::parse_convention);
  darray out = empty_like(sigma);
  const double* s = sigma.data();
  double* po = out.mutable_data();
  const auto n = static_cast<std::size_t>(sigma.size());
  // Safe without the GIL: reads sigma, writes out (run_polled: Ctrl-C between chunks).
  run_polled(1000.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e; ++i)
        po[i] = log ? rff::log_mse(p, D, s[i], est, conv) : rff::mse(p, D, s[i], est, conv);
    });
  });
  if (!log) {
    require_finite_result(
        out, f, "the MSE",
        "q and k are too large for this sigma (an exponential of their scaled norms overflows); "
        "pass log=True for the log-domain MSE");
  }
  return out;
}

darray estimate(ArrayLike qo, ArrayLike ko, IntLike D_o, FloatLike sigma_o, Choice est_o,
                Choice conv_o, Choice mode_o, bool orthogonal, IntLike trials_o, IntLike seed_o,
                OptionalInt nthreads_o) {
  const char* f = "rff.estimate";
  const darray q = real_array(qo, f, "q"), k = real_array(ko, f, "k");
  const rff::Pair p = pair_arg(q, k, qo, ko, f);
  rff::EstimateOptions opt;
  opt.D = static_cast<std::size_t>(integer(D_o, f, "D", 1));
  opt.sigma = real_scalar(sigma_o, f, "sigma");
  if (opt.sigma < 0) value_error(f, "sigma", "must be >= 0", sigma_o);
  opt.estimator = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  opt.convention = parse_choice(conv_o, f, "convention", rff::parse_convention);
  opt.full = parse_choice(mode_o, f, "mode", rff::parse_full_mode);
  opt.orthogonal = orthogonal;
  const auto trials = static_cast<std::size_t>(integer(trials_o, f, "trials", 1));
  opt.seed = seed_arg(seed_o, f);
  opt.nthreads = nthreads_arg(nthreads_o, f);
  core_check(f, [&] { rff::check_estimate_input(p, static_cast<std::size_t>(q.size()), opt); });
  check_output_size(static_cast<double>(trials), f, "trials=" + std::to_string(trials));
  darray out(static_cast<py::ssize_t>(trials));
  double* po = out.mutable_data();
  const double* pq = q.data();
  const double* pk = k.data();
  const auto d = static_cast<std::size_t>(q.size());
  run_interruptible(
      [&](const std::atomic<bool>* cancel) { rff::estimate(pq, pk, d, opt, trials, po, cancel); });
  require_finite_result(out, f, "the estimate",
                        "the feature terms overflow for these norms and sigma; "
                        "use rff.mse(..., log=True) for the closed form");
  return out;
}

darray sample_omega(IntLike D_o, IntLike d_o, FloatLike sigma_o, bool orthogonal, IntLike index_o,
                    IntLike seed_o) {
  const char* f = "rff.sample_omega";
  const auto D = static_cast<std::size_t>(integer(D_o, f, "D", 1));
  const auto d = static_cast<std::size_t>(integer(d_o, f, "d", 1));
  const double sigma = real_scalar(sigma_o, f, "sigma");
  if (sigma < 0) value_error(f, "sigma", "must be >= 0", sigma_o);
  const std::uint64_t seed = seed_arg(seed_o, f);
  const auto index = static_cast<std::uint64_t>(integer(index_o, f, "index", 0));
  check_output_size(static_cast<double>(D) * static_cast<double>(d) +
                        (orthogonal ? static_cast<double>(d) * static_cast<double>(d) : 0.0),
                    f, "D=" + std::to_string(D) + ", d=" + std::to_string(d));
  // Orthogonal blocks are QR decompositions (one uninterruptible Eigen call each): computed on a
  // detached thread into its own buffer, so that Ctrl-C returns at once (see run_detached).
  auto buf = std::make_shared<std::vector<double>>(D * d);
  run_detached([buf, D, d, sigma, seed, orthogonal, index](const std::atomic<bool>* cancel) {
    rff::sample_omega(D, d, sigma, orthogonal, index, seed, buf->data(), cancel);
  });
  darray out({static_cast<py::ssize_t>(D), static_cast<py::ssize_t>(d)});
  std::copy(buf->begin(), buf->end(), out.mutable_data());
  return out;
}

darray sample_phase(IntLike D_o, IntLike index_o, IntLike seed_o) {
  const char* f = "rff.sample_phase";
  const auto D = static_cast<std::size_t>(integer(D_o, f, "D", 1));
  const std::uint64_t seed = seed_arg(seed_o, f);
  const auto index = static_cast<std::uint64_t>(integer(index_o, f, "index", 0));
  check_output_size(static_cast<double>(D), f, "D=" + std::to_string(D));
  darray out(static_cast<py::ssize_t>(D));
  rff::sample_phase(D, index, seed, out.mutable_data());
  return out;
}

darray feature_map(ArrayLike X_o, ArrayLike omega_o, Choice est_o, OptionalArrayLike phase_o) {
  const char* f = "rff.feature_map";
  const darray X = real_array_nd(X_o, f, "X", 2);
  const darray omega = real_array_nd(omega_o, f, "omega", 2);
  const Estimator est = parse_choice(est_o, f, "estimator", rff::parse_estimator);
  if (omega.shape(0) == 0) value_error(f, "omega", "must have at least one row", omega_o);
  if (X.shape(1) != omega.shape(1)) {
    throw py::value_error(std::string(f) +
                          ": X and omega must have the same number of columns d, "
                          "got X.shape=(" +
                          std::to_string(X.shape(0)) + ", " + std::to_string(X.shape(1)) +
                          ") and omega.shape=(" + std::to_string(omega.shape(0)) + ", " +
                          std::to_string(omega.shape(1)) + ")");
  }
  const auto D = static_cast<std::size_t>(omega.shape(0));
  darray phase;
  if (est == Estimator::random_phase) {
    if (phase_o.is_none()) {
      value_error(f, "phase", "is required for estimator='random_phase' (see sample_phase)",
                  phase_o);
    }
    phase = real_array_nd(phase_o, f, "phase", 1);
    if (static_cast<std::size_t>(phase.size()) != D) {
      value_error(f, "phase", "must have one entry per row of omega (" + std::to_string(D) + ")",
                  phase_o);
    }
  } else if (!phase_o.is_none()) {
    value_error(f, "phase", "is only used by estimator='random_phase'; pass None", phase_o);
  }
  const std::size_t F = rff::feature_count(est, D);
  const auto n = static_cast<std::size_t>(X.shape(0));
  check_output_size(2.0 * static_cast<double>(n) * static_cast<double>(F), f,
                    "X and omega");  // the output and its copy
  const auto d = static_cast<std::size_t>(X.shape(1));
  // One Eigen matrix product (n×d by d×D) cannot check a flag: a detached worker owning copies of
  // the inputs and of the output computes it, so that Ctrl-C returns at once (run_detached).
  struct Work {
    std::vector<double> X, omega, phase, out;
  };
  auto work = std::make_shared<Work>();
  work->X.assign(X.data(), X.data() + n * d);
  work->omega.assign(omega.data(), omega.data() + D * d);
  if (est == Estimator::random_phase) work->phase.assign(phase.data(), phase.data() + D);
  work->out.resize(n * F);
  run_detached([work, n, d, D, est](const std::atomic<bool>*) {
    rff::feature_map(work->X.data(), n, d, work->omega.data(), D, est,
                     work->phase.empty() ? nullptr : work->phase.data(), work->out.data());
  });
  darray out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(F)});
  std::copy(work->out.begin(), work->out.end(), out.mutable_data());
  require_finite_result(out, f, "the feature matrix (row-major)",
                        "the features overflow for rows of X this large");
  return out;
}

double kernel(ArrayLike qo, ArrayLike ko) {
  const char* f = "rff.kernel";
  const darray q = real_array(qo, f, "q"), k = real_array(ko, f, "k");
  const rff::Pair p = pair_arg(q, k, qo, ko, f);
  const double v = static_cast<double>(std::exp(p.qk));  // q·k summed in extended precision
  if (!std::isfinite(v)) {
    throw py::value_error(std::string(f) + ": exp(q.k) overflows a double (q.k = " +
                          std::to_string(static_cast<double>(p.qk)) + ")");
  }
  return v;
}

}  // namespace

void register_rff(py::module_& m) {
  m.def("estimators", [] { return estimator_names(rff::estimators()); });
  m.def("conventions", &rff::convention_names);
  m.def("modes", &rff::mode_names);
  m.def("kernel", &kernel, "q"_a, "k"_a);
  m.def("moments", &moments, "q"_a, "k"_a, "sigma"_a, "estimator"_a, "convention"_a, "log"_a);
  m.def("mse", &mse, "q"_a, "k"_a, "D"_a, "sigma"_a, "estimator"_a, "convention"_a, "log"_a);
  m.def("estimate", &estimate, "q"_a, "k"_a, "D"_a, "sigma"_a, "estimator"_a, "convention"_a,
        "mode"_a, "orthogonal"_a, "trials"_a, "seed"_a, "nthreads"_a);
  m.def("sample_omega", &sample_omega, "D"_a, "d"_a, "sigma"_a, "orthogonal"_a, "index"_a,
        "seed"_a);
  m.def("sample_phase", &sample_phase, "D"_a, "index"_a, "seed"_a);
  m.def("feature_map", &feature_map, "X"_a, "omega"_a, "estimator"_a, "phase"_a);
}

}  // namespace ropelab::bind
