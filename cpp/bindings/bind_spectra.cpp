// ropelab._core.spectra: windows, FFT/DTFT spectra, SSM closed forms, figures of merit
// (core: cpp/include/ropelab/windows.hpp, cpp/include/ropelab/spectrum.hpp).
#include <algorithm>
#include <cmath>
#include <complex>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common.hpp"
#include "result_class.hpp"
#include "ropelab/limits.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/spectrum.hpp"
#include "ropelab/windows.hpp"

namespace ropelab::bind {

namespace {

using cplx = std::complex<double>;

}  // namespace

/// A tuple of FiguresOfMerit (LeakageMap.figures), named so in the stubs.
class __attribute__((visibility("hidden"))) FiguresTuple : public py::tuple {
 public:
  PYBIND11_OBJECT_DEFAULT(FiguresTuple, py::tuple, PyTuple_Check)
};

}  // namespace ropelab::bind

namespace pybind11::detail {
ROPELAB_ARGUMENT_TYPE_NAME(FiguresTuple, "tuple[FiguresOfMerit, ...]")
}  // namespace pybind11::detail

namespace ropelab::bind {

namespace {

// FFTW sizes and the DTFT's phase reduction (the core checks the same limit).
constexpr auto max_length = static_cast<std::int64_t>(limits::kMaxSignalLength);
const std::string max_length_text = std::to_string(limits::kMaxSignalLength);

/// A 1-D, non-empty, finite real or complex signal.
struct Signal {
  bool is_complex = false;
  darray re;
  carray c;
  std::size_t size() const { return static_cast<std::size_t>(is_complex ? c.size() : re.size()); }
};

Signal signal_arg(py::handle obj, const char* func, const char* name) {
  Signal s;
  py::array arr;
  try {
    arr = py::module_::import("numpy").attr("asarray")(obj);
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_MemoryError)) throw;
    type_error(func, name, "must be convertible to a real or complex array", obj);
  }
  if (arr.dtype().kind() == 'c') {
    s.is_complex = true;
    s.c = contiguous<carray>(arr, func, name);
    const cplx* p = s.c.data();
    for (py::ssize_t i = 0; i < s.c.size(); ++i) {
      if (!std::isfinite(p[i].real()) || !std::isfinite(p[i].imag())) {
        value_error(func, name, "must be finite (element " + std::to_string(i) + " is not)", obj);
      }
    }
  } else {
    s.re = real_array(obj, func, name);
  }
  const py::ssize_t ndim = s.is_complex ? s.c.ndim() : s.re.ndim();
  if (ndim != 1) value_error(func, name, "must be a 1-D array", obj);
  if (s.size() == 0) value_error(func, name, "must not be empty", obj);
  if (static_cast<std::int64_t>(s.size()) > max_length) {
    value_error(func, name, "must have at most " + max_length_text + " samples", obj);
  }
  return s;
}

double alpha_arg(py::handle obj, const char* func, const char* name = "alpha") {
  const double a = real_scalar(obj, func, name);
  if (a < 0) value_error(func, name, "must be >= 0 (a decay rate)", obj);
  return a;
}

std::size_t length_arg(py::handle obj, const char* func, const char* name = "N") {
  const std::int64_t n = integer(obj, func, name, 1);
  if (n > max_length) value_error(func, name, "must be at most " + max_length_text, obj);
  return static_cast<std::size_t>(n);
}

std::size_t pad_arg(py::handle obj, std::size_t N, const char* func) {
  const std::int64_t pad = integer(obj, func, "pad", 1);
  if (static_cast<double>(pad) * static_cast<double>(N) > static_cast<double>(max_length)) {
    value_error(func, "pad",
                "times the length (" + std::to_string(N) + ") must be at most " + max_length_text,
                obj);
  }
  return static_cast<std::size_t>(pad);
}

/// Finite real frequencies of any shape (empty allowed: an empty result).
darray freqs_arg(py::handle obj, const char* func) {
  return real_array(obj, func, "freqs_bins");
}

/// `fn(x)` at every frequency x of `freqs`, written into `out` (a new array shaped like `freqs`).
/// Safe without the GIL: reads `freqs`, writes only `out`.
template <class Out, class Fn>
Out map_freqs(const darray& freqs, Out out, Fn fn) {
  auto* po = out.mutable_data();
  const double* pf = freqs.data();
  const auto F = static_cast<std::size_t>(freqs.size());
  // In chunks of frequencies, so that Ctrl-C is answered between chunks (run_interruptible).
  constexpr std::size_t chunk = std::size_t{1} << 14;
  run_interruptible([&](const std::atomic<bool>* cancel) {
    for (std::size_t i0 = 0; i0 < F; i0 += chunk) {
      if (cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
      const std::size_t i1 = std::min(F, i0 + chunk);
      for (std::size_t i = i0; i < i1; ++i) po[i] = fn(pf[i]);
    }
  });
  return out;
}

carray complex_like(const darray& like) {
  return carray(shape_of(like));
}

/// One parameter of WindowInfo (bound as WindowParameter): spectra::windows::ParameterInfo with its
/// ranges as text.
struct WindowParameter {
  std::string name;
  std::vector<std::string> alternatives;
  bool required = false;
  std::string default_value, description, range;
  std::vector<std::string> alternative_ranges;
};

/// What spectra.window_info returns (bound as WindowInfo): a row of spectra::windows::table().
struct WindowInfo {
  std::string name;                         ///< the canonical name
  std::vector<WindowParameter> parameters;  ///< every parameter, required ones first
  std::string symmetry;                     ///< "both", "symmetric" or "dft-even"
  double falloff_order = 0;                 ///< spectra::windows::WindowRow::falloff_order
  std::string scipy_name, harris_name;      ///< "" if none
  std::vector<std::string> aliases;         ///< other names accepted for it
  std::string definition;                   ///< one line: its formula or source
};

/// What spectra.leakage_map returns (bound as LeakageMap): the core's map with NumPy arrays,
/// the padding factor and the per-row figures as bound FiguresOfMerit objects.
struct LeakageMapResult {
  darray alpha, omega;  ///< (A,), (W,)
  std::size_t N = 0, pad = 0;
  FiguresTuple figures;                                                ///< A results
  darray tone_scalloping_loss_db, bin_leakage_factor, far_leakage_db;  ///< (A, W)
};

/// A new read-only float64 array of `shape` holding `v`.
darray read_only_array(const std::vector<double>& v, std::vector<py::ssize_t> shape) {
  darray a(std::move(shape));
  std::copy(v.begin(), v.end(), a.mutable_data());
  a.attr("setflags")("write"_a = false);
  return a;
}

LeakageMapResult leakage_map_result(const spectra::LeakageMap& m, std::size_t pad) {
  const auto A = static_cast<py::ssize_t>(m.alpha.size());
  const auto W = static_cast<py::ssize_t>(m.omega.size());
  LeakageMapResult r;
  r.alpha = read_only_array(m.alpha, {A});
  r.omega = read_only_array(m.omega, {W});
  r.N = m.N;
  r.pad = pad;
  py::tuple figures(m.window.size());
  for (std::size_t i = 0; i < m.window.size(); ++i) figures[i] = py::cast(m.window[i]);
  r.figures = py::reinterpret_borrow<FiguresTuple>(figures);
  r.tone_scalloping_loss_db = read_only_array(m.scalloping_db, {A, W});
  r.bin_leakage_factor = read_only_array(m.bin_leakage_factor, {A, W});
  r.far_leakage_db = read_only_array(m.far_leakage_db, {A, W});
  return r;
}

const std::vector<std::string>& window_names() {
  return spectra::windows::names();
}

py::list window_parameters(Choice name_o) {
  const char* f = "spectra.window";
  const std::string name = string_arg(name_o, f, "name");
  py::list out;
  try {
    for (const std::string& p : spectra::windows::parameters(name)) out.append(p);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  return out;
}

/// Every parameter of a window and its symmetry ("both", "symmetric", "dft-even").
WindowInfo window_info(Choice name_o) {
  const char* f = "spectra.window";
  const std::string name = string_arg(name_o, f, "name");
  WindowInfo info;
  try {
    const spectra::windows::WindowRow& row = spectra::windows::row(name);
    for (const spectra::windows::ParameterInfo& p : row.parameters) {
      WindowParameter q{p.name,        p.alternatives, p.required, p.default_value,
                        p.description, p.range.text,   {}};
      for (const spectra::windows::Range& r : p.alternative_ranges)
        q.alternative_ranges.push_back(r.text);
      info.parameters.push_back(std::move(q));
    }
    info.name = row.name;
    info.symmetry = spectra::windows::symmetry(name);
    info.falloff_order = row.falloff_order;
    info.scipy_name = row.scipy_name;
    info.harris_name = row.harris_name;
    info.aliases = row.aliases;
    info.definition = row.definition;
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  return info;
}

py::dict window_aliases() {
  py::dict d;
  for (const auto& a : spectra::windows::aliases()) d[py::str(a.first)] = a.second;
  return d;
}

darray window(Choice name_o, IntLike N_o, bool sym, const py::dict& params_o) {
  const char* f = "spectra.window";
  const std::string name = string_arg(name_o, f, "name");
  const std::int64_t n = integer(N_o, f, "N", 0);  // N = 0: an empty window, as scipy
  if (n > max_length) value_error(f, "N", "must be at most " + max_length_text, N_o);
  const auto N = static_cast<std::size_t>(n);
  spectra::windows::Params params;
  for (const auto& kv : params_o) {
    const std::string key = string_arg(kv.first, f, "parameter name");
    py::handle v = kv.second;
    if (py::isinstance<py::str>(v)) {
      params.options[key] = v.cast<std::string>();
    } else if (py::isinstance<py::bool_>(v) ||
               py::isinstance(v, py::module_::import("numpy").attr("bool_"))) {
      // norm (DPSS's) is the one flag among the window parameters (return_ratios, scipy's other
      // DPSS flag, reaches the DPSS message that points to spectra.dpss); True/False are not
      // numbers
      if (key != "norm" && key != "return_ratios")
        type_error(f, key.c_str(), "must be a real number, not bool", v);
      params.values[key] = PyObject_IsTrue(v.ptr()) != 0 ? 1.0 : 0.0;
    } else if (key == "a" || (!PyNumber_Check(v.ptr()) && py::isinstance<py::sequence>(v))) {
      darray arr = real_array(v, f, key.c_str());
      if (arr.ndim() != 1) value_error(f, key.c_str(), "must be a 1-D sequence of real numbers", v);
      params.arrays[key] = std::vector<double>(arr.data(), arr.data() + arr.size());
    } else {
      params.values[key] = real_scalar(v, f, key.c_str());
    }
  }
  check_output_size(static_cast<double>(N), f, "N=" + std::to_string(N));
  // The core works on its own copies (name, params, the result): on a detached thread, so that
  // Ctrl-C is answered at once even inside the one FFT of a Chebyshev window (run_detached).
  auto w_ptr = std::make_shared<std::vector<double>>();
  try {
    if (N < (std::size_t{1} << 16)) {  // a few ms at most: no thread
      NoGil release;
      *w_ptr = spectra::windows::make_window_params(name, N, sym, params);
    } else {
      run_detached([w_ptr, name, N, sym, params](const std::atomic<bool>*) {
        *w_ptr = spectra::windows::make_window_params(name, N, sym, params);
      });
    }
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  const std::vector<double>& w = *w_ptr;
  darray out(static_cast<py::ssize_t>(w.size()));
  std::copy(w.begin(), w.end(), out.mutable_data());
  return out;
}

/// scipy's dpss with an integer Kmax: (tapers (Kmax, N), ratios (Kmax,) or None).
py::tuple dpss(IntLike N_o, FloatLike NW_o, IntLike Kmax_o, bool sym, const std::string& norm,
               bool return_ratios) {
  const char* f = "spectra.dpss";
  const std::int64_t n = integer(N_o, f, "N", 0);
  if (n > max_length) value_error(f, "N", "must be at most " + max_length_text, N_o);
  const auto N = static_cast<std::size_t>(n);
  const double NW = real_scalar(NW_o, f, "NW");
  const std::int64_t K = integer(Kmax_o, f, "Kmax", 1);
  check_output_size(static_cast<double>(N) * static_cast<double>(std::max<std::int64_t>(K, 1)), f,
                    "N=" + std::to_string(N) + ", Kmax=" + std::to_string(K));
  spectra::windows::DpssTapers t;
  try {
    NoGil release;
    t = spectra::windows::dpss_tapers(N, NW, static_cast<std::size_t>(K), sym, norm, return_ratios);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  darray w({static_cast<py::ssize_t>(t.tapers.size()), static_cast<py::ssize_t>(N)});
  double* pw = w.mutable_data();
  for (const auto& row : t.tapers) pw = std::copy(row.begin(), row.end(), pw);
  py::object ratios = py::none();
  if (return_ratios) {
    darray r(static_cast<py::ssize_t>(t.ratios.size()));
    std::copy(t.ratios.begin(), t.ratios.end(), r.mutable_data());
    ratios = r;
  }
  return py::make_tuple(w, ratios);
}

carray ssm_impulse(FloatLike alpha_o, FloatLike omega_o, IntLike N_o) {
  const char* f = "spectra.ssm_impulse";
  const double alpha = alpha_arg(alpha_o, f);
  const double omega = real_scalar(omega_o, f, "omega");
  const std::size_t N = length_arg(N_o, f);
  check_output_size(2.0 * static_cast<double>(N), f, "N=" + std::to_string(N));
  carray out(static_cast<py::ssize_t>(N));
  cplx* po = out.mutable_data();
  // Safe without the GIL: writes only the new array `out` (run_polled: Ctrl-C).
  run_polled(30.0 * static_cast<double>(N), [&](const std::atomic<bool>* cancel) {
    spectra::ssm_impulse(alpha, omega, N, po, cancel);
  });
  require_finite_result(out, f, "the impulse response", "");
  return out;
}

carray dtft(ArrayLike x_o, ArrayLike freqs_o) {
  const char* f = "spectra.dtft";
  const Signal x = signal_arg(x_o, f, "x");
  const darray freqs = freqs_arg(freqs_o, f);
  check_output_size(2.0 * static_cast<double>(freqs.size()), f, "freqs");
  carray out = complex_like(freqs);
  cplx* po = out.mutable_data();
  const double* pf = freqs.data();
  const auto F = static_cast<std::size_t>(freqs.size());
  const std::size_t N = x.size();
  const double* pr = x.is_complex ? nullptr : x.re.data();
  const cplx* pc = x.is_complex ? x.c.data() : nullptr;
  run_interruptible([&](const std::atomic<bool>* cancel) {
    // O(N·F): in chunks of frequencies, so that Ctrl-C is answered between chunks.
    const std::size_t chunk = std::max<std::size_t>(1, (std::size_t{1} << 22) / N);
    for (std::size_t i = 0; i < F; i += chunk) {
      if (cancel->load()) throw mc::Cancelled();
      const std::size_t len = std::min(chunk, F - i);
      if (pc != nullptr) {
        spectra::dtft(pc, N, pf + i, len, po + i);
      } else {
        spectra::dtft(pr, N, pf + i, len, po + i);
      }
    }
  });
  require_finite_result(out, f, "the transform", "the sum overflows: rescale x");
  return out;
}

std::tuple<darray, darray> spectrum_fn(ArrayLike x_o, IntLike pad_o) {
  const char* f = "spectra.spectrum";
  const Signal x = signal_arg(x_o, f, "x");
  const std::size_t N = x.size();
  const std::size_t pad = pad_arg(pad_o, N, f);
  const std::size_t K = spectra::spectrum_size(N, pad, !x.is_complex);
  check_output_size(
      2.0 * static_cast<double>(K) + 4.0 * static_cast<double>(N) * static_cast<double>(pad), f,
      "x and pad=" + std::to_string(pad));
  // A detached worker owning copies of x and of the outputs: the FFT is one uninterruptible
  // FFTW call, so Ctrl-C must not wait for it (see run_detached).
  struct Work {
    std::vector<double> re;
    std::vector<cplx> c;
    std::vector<double> freqs, mag;
  };
  auto work = std::make_shared<Work>();
  if (x.is_complex) {
    work->c.assign(x.c.data(), x.c.data() + N);
  } else {
    work->re.assign(x.re.data(), x.re.data() + N);
  }
  work->freqs.resize(K);
  work->mag.resize(K);
  const bool is_complex = x.is_complex;
  run_detached([work, N, pad, is_complex](const std::atomic<bool>*) {
    if (is_complex) {
      spectra::spectrum_complex(work->c.data(), N, pad, work->freqs.data(), work->mag.data());
    } else {
      spectra::spectrum_real(work->re.data(), N, pad, work->freqs.data(), work->mag.data());
    }
  });
  darray freqs(static_cast<py::ssize_t>(K)), mag(static_cast<py::ssize_t>(K));
  std::copy(work->freqs.begin(), work->freqs.end(), freqs.mutable_data());
  std::copy(work->mag.begin(), work->mag.end(), mag.mutable_data());
  require_finite_result(mag, f, "the magnitude", "the FFT overflows: rescale x");
  return {freqs, mag};
}

carray ssm_spectrum(FloatLike alpha_o, FloatLike omega_o, IntLike N_o, ArrayLike freqs_o) {
  const char* f = "spectra.ssm_spectrum";
  const double alpha = alpha_arg(alpha_o, f);
  const double omega = real_scalar(omega_o, f, "omega");
  const std::size_t N = length_arg(N_o, f);
  const darray freqs = freqs_arg(freqs_o, f);
  const carray out = map_freqs(freqs, complex_like(freqs),
                               [&](double x) { return spectra::ssm_spectrum(alpha, omega, N, x); });
  require_finite_result(out, f, "the spectrum", "");
  return out;
}

darray ssm_envelope(FloatLike alpha_o, FloatLike omega_o, IntLike N_o, ArrayLike freqs_o) {
  const char* f = "spectra.ssm_envelope";
  const double alpha = alpha_arg(alpha_o, f);
  const double omega = real_scalar(omega_o, f, "omega");
  const std::size_t N = length_arg(N_o, f);
  const darray freqs = freqs_arg(freqs_o, f);
  const darray out = map_freqs(freqs, empty_like(freqs),
                               [&](double x) { return spectra::ssm_envelope(alpha, omega, N, x); });
  require_finite_result(out, f, "the envelope", "");
  return out;
}

carray continuous_spectrum(FloatLike alpha_o, FloatLike omega_o, FloatLike T_o, ArrayLike freqs_o) {
  const char* f = "spectra.continuous_spectrum";
  const double alpha = alpha_arg(alpha_o, f);
  const double omega = real_scalar(omega_o, f, "omega");
  const double T = real_scalar(T_o, f, "T");
  if (!(T > 0)) value_error(f, "T", "must be > 0", T_o);
  const darray freqs = freqs_arg(freqs_o, f);
  const carray out = map_freqs(freqs, complex_like(freqs), [&](double x) {
    return spectra::continuous_spectrum(alpha, omega, T, x);
  });
  require_finite_result(out, f, "the transform", "frequencies this large lose all phase precision");
  return out;
}

std::tuple<carray, carray> zoh(ArrayLike alpha_o, ArrayLike omega_o, FloatLike dt_o,
                               ArrayLike bre_o, ArrayLike bim_o) {
  const char* f = "spectra.zoh";
  const darray alpha = real_array(alpha_o, f, "alpha");
  require_each(alpha, f, "alpha", "must be >= 0 (a decay rate)", [](double a) { return a >= 0; });
  const darray omega = real_array(omega_o, f, "omega");
  const double dt = real_scalar(dt_o, f, "dt");
  if (!(dt > 0)) value_error(f, "dt", "must be > 0", dt_o);
  const darray bre = real_array(bre_o, f, "B"), bim = real_array(bim_o, f, "B");
  // Broadcast here, not by copies in Python: a scalar against 2^25 modes costs nothing.
  const Broadcast<4> bc({&alpha, &omega, &bre, &bim}, f, "alpha, omega and B");
  carray abar(bc.shape()), bbar(bc.shape());
  const std::size_t n = bc.size();
  const double *pa = alpha.data(), *pw = omega.data(), *pr = bre.data(), *pim = bim.data();
  cplx *oa = abar.mutable_data(), *ob = bbar.mutable_data();
  // Safe without the GIL: reads the inputs, writes abar and bbar (run_polled: Ctrl-C).
  run_polled(1000.0 * static_cast<double>(n), [&](const std::atomic<bool>* cancel) {
    for_chunks(n, 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      bc.visit(b, e, [&](std::size_t i, const Broadcast<4>::Offsets& o) {
        spectra::zoh(pa[o[0]], pw[o[1]], dt, cplx(pr[o[2]], pim[o[3]]), oa[i], ob[i]);
      });
    });
  });
  for (std::size_t i = 0; i < n; ++i) {
    if (i % kSignalStride == kSignalStride - 1) check_signals();
    const cplx a = oa[i], b = ob[i];
    if (!std::isfinite(a.real()) || !std::isfinite(a.imag()) || !std::isfinite(b.real()) ||
        !std::isfinite(b.imag())) {
      const Broadcast<4>::Offsets o = bc.offsets(i);
      throw py::value_error(
          std::string(f) + ": the discretisation of element " + std::to_string(i) +
          " is not finite in double precision (dt*omega = " + std::to_string(dt * pw[o[1]]) +
          ", dt*alpha = " + std::to_string(dt * pa[o[0]]) + "); use a smaller dt");
    }
  }
  return {abar, bbar};
}

carray ssm_kernel(ArrayLike alpha_o, ArrayLike omega_o, FloatLike dt_o, ArrayLike bre_o,
                  ArrayLike bim_o, ArrayLike cre_o, ArrayLike cim_o, IntLike L_o) {
  const char* f = "spectra.ssm_kernel";
  const darray alpha = real_array_nd(alpha_o, f, "A (-real part)", 1);
  require_each(alpha, f, "A", "must have a real part <= 0 (a stable mode)",
               [](double a) { return a >= 0; });
  const darray omega = real_array_nd(omega_o, f, "A (imaginary part)", 1);
  const double dt = real_scalar(dt_o, f, "dt");
  if (!(dt > 0) || !std::isfinite(dt)) value_error(f, "dt", "must be finite and > 0", dt_o);
  const darray bre = real_array_nd(bre_o, f, "B", 1), bim = real_array_nd(bim_o, f, "B", 1);
  const darray cre = real_array_nd(cre_o, f, "C", 1), cim = real_array_nd(cim_o, f, "C", 1);
  const py::ssize_t n = alpha.size();
  if (omega.size() != n || bre.size() != n || bim.size() != n || cre.size() != n ||
      cim.size() != n) {
    throw py::value_error(std::string(f) + ": A, B and C must have the same size, got " +
                          std::to_string(n) + ", " + std::to_string(bre.size()) + ", " +
                          std::to_string(cre.size()));
  }
  if (n == 0) value_error(f, "A", "must not be empty", alpha_o);
  const std::size_t L = length_arg(L_o, f, "L");
  check_output_size(static_cast<double>(L), f, "L=" + std::to_string(L));
  std::vector<cplx> B(static_cast<std::size_t>(n)), C(static_cast<std::size_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    B[static_cast<std::size_t>(i)] = cplx(bre.data()[i], bim.data()[i]);
    C[static_cast<std::size_t>(i)] = cplx(cre.data()[i], cim.data()[i]);
  }
  carray out(static_cast<py::ssize_t>(L));
  cplx* po = out.mutable_data();
  // Safe without the GIL: reads alpha, omega, B and C, writes out (run_polled: Ctrl-C).
  run_polled(30.0 * static_cast<double>(n) * static_cast<double>(L),
             [&](const std::atomic<bool>* cancel) {
               spectra::ssm_kernel(alpha.data(), omega.data(), B.data(), C.data(),
                                   static_cast<std::size_t>(n), dt, L, po, cancel);
             });
  require_finite_result(out, f, "the kernel",
                        "dt*|A| is too large for double precision; use a smaller dt");
  return out;
}

spectra::FiguresOfMerit figures_of_merit(ArrayLike w_o, IntLike pad_o) {
  const char* f = "spectra.figures_of_merit";
  const darray w = real_array(w_o, f, "w");
  if (w.ndim() != 1) value_error(f, "w", "must be a 1-D array", w_o);
  if (w.size() == 0) value_error(f, "w", "must not be empty", w_o);
  const auto N = static_cast<std::size_t>(w.size());
  if (static_cast<std::int64_t>(N) > max_length) value_error(f, "w", "is too long", w_o);
  const std::size_t pad = pad_arg(pad_o, N, f);
  // working memory of the two zero-padded FFTs and their magnitudes and slopes
  check_output_size(5.0 * static_cast<double>(N) * static_cast<double>(pad), f,
                    "w and pad=" + std::to_string(pad));
  // A detached worker owning a copy of w and its result: an FFT of pad·N points is one
  // uninterruptible FFTW call (seconds for the largest), so Ctrl-C must not wait for it.
  struct Work {
    std::vector<double> w;
    spectra::FiguresOfMerit r;
  };
  auto work = std::make_shared<Work>();
  work->w.assign(w.data(), w.data() + N);
  try {
    run_detached([work, N, pad](const std::atomic<bool>* cancel) {
      work->r = spectra::figures_of_merit(work->w.data(), N, pad, cancel);
    });
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  return work->r;
}

/// The map over decays per sample `alpha`.
LeakageMapResult leakage_map(ArrayLike alpha_o, ArrayLike omega_o, IntLike N_o, IntLike pad_o) {
  const char* f = "spectra.leakage_map";
  const darray alpha = real_array_nd(alpha_o, f, "alpha", 1);
  require_each(alpha, f, "alpha", "must be >= 0 (a decay per sample)",
               [](double a) { return a >= 0; });
  const darray om = real_array_nd(omega_o, f, "omega", 1);
  if (alpha.size() == 0) value_error(f, "alpha", "must not be empty", alpha_o);
  if (om.size() == 0) value_error(f, "omega", "must not be empty", omega_o);
  const std::size_t N = length_arg(N_o, f);
  if (N < 2) value_error(f, "N", "must be >= 2 for a leakage map", N_o);
  const double Nd = static_cast<double>(N);
  require_each(alpha, f, "alpha", "times N must be finite (the decay over the window, alpha*N)",
               [Nd](double a) { return std::isfinite(a * Nd); });
  const std::size_t pad = pad_arg(pad_o, N, f);
  const auto A = static_cast<std::size_t>(alpha.size()), W = static_cast<std::size_t>(om.size());
  check_output_size(3.0 * static_cast<double>(A) * static_cast<double>(W), f, "alpha and omega");
  check_output_size(
      5.0 * static_cast<double>(N) * static_cast<double>(pad), f,
      "N=" + std::to_string(N) + ", pad=" + std::to_string(pad));  // one window's FFTs
  // Detached, like figures_of_merit (each window's FFT is one uninterruptible call).
  struct Work {
    std::vector<double> alpha, om;
    spectra::LeakageMap m;
  };
  auto work = std::make_shared<Work>();
  work->alpha.assign(alpha.data(), alpha.data() + A);
  work->om.assign(om.data(), om.data() + W);
  try {
    run_detached([work, A, W, N, pad](const std::atomic<bool>* cancel) {
      work->m = spectra::leakage_map(work->alpha.data(), A, work->om.data(), W, N, pad, cancel);
    });
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(f) + ": " + e.what());
  }
  return leakage_map_result(work->m, pad);
}

/// FiguresOfMerit as a class with read-only fields (registered before the functions returning
/// it, so that their signatures name it).
void register_figures_of_merit(py::module_& m) {
  using F = spectra::FiguresOfMerit;
  ResultClass<F>(m, "FiguresOfMerit",
                 "Figures of merit of a window (Harris 1978); frequencies in bins (the documented "
                 "class is ropelab.spectra.FiguresOfMerit).")
      .field("N", &F::N, "Window length (samples).")
      .field("pad", &F::pad, "FFT padding factor used to locate extrema.")
      .field("coherent_gain", &F::coherent_gain, "``sum(w) / (N max|w|)`` (a fraction).")
      .field("enbw_bins", &F::enbw_bins,
             "Equivalent noise bandwidth ``N sum(w^2) / sum(w)^2`` (bins).")
      .field("scalloping_loss_db", &F::scalloping_loss_db,
             "``-20 log10 |W(1/2)| / |W(0)|`` (dB, >= 0).")
      .field("worst_case_processing_loss_db", &F::worst_case_processing_loss_db,
             "Scalloping loss + ``10 log10 ENBW`` (dB).")
      .field("bandwidth_3db_bins", &F::bandwidth_3db_bins,
             "Full main-lobe width at half power (Harris's \"3.0 dB\" bandwidth, bins); ``nan`` if "
             "the main lobe never falls that far.")
      .field(
          "bandwidth_6db_bins", &F::bandwidth_6db_bins,
          "Full main-lobe width at half amplitude (Harris's \"6.0 dB\" bandwidth, bins); ``nan`` "
          "if the main lobe never falls that far.")
      .field("first_min_bins", &F::first_min_bins,
             "The first local minimum of ``|W|`` beyond the main peak (bins); ``N/2`` if ``|W|`` "
             "decreases all the way to Nyquist.")
      .field("first_min_db", &F::first_min_db,
             "Its level re ``|W(0)|`` (dB, <= 0; a true null is far below -200 dB, a dip, as for "
             "the Poisson and causal exponential windows, is not).")
      .field("first_min_is_null", &F::first_min_is_null,
             "Whether that minimum is a zero of the DTFT (below -200 dB).")
      .field("highest_sidelobe_db", &F::highest_sidelobe_db,
             "The largest local maximum of ``|W|`` beyond the first minimum (Harris's practice), "
             "dB re ``|W(0)|``; ``-inf`` when there is none, or when it is below -240 dB (the "
             "rounding floor of a double-precision DTFT, reached e.g. by a Gaussian window with "
             "``alpha >= 8``; the first minimum of such a window is then rounding noise as well).")
      .field("highest_sidelobe_bins", &F::highest_sidelobe_bins,
             "Its frequency (bins); ``nan`` when there is none.")
      .optional_field(
          "sidelobe_falloff_db_per_octave", &F::sidelobe_falloff_db_per_octave,
          +[](const F& r) { return !std::isnan(r.sidelobe_falloff_db_per_octave); },
          "The asymptotic fall-off of the sidelobes (dB/octave), ``-20 log10(2) (k + 1) = -6.02 "
          "(k + 1)`` when the k-th derivative of the window (extended by zeros) is the first to "
          "jump anywhere: rectangle, Hamming, exact Blackman, Blackman-Harris, Nuttall, flat-top, "
          "Kaiser, Gaussian, Poisson, Cauchy -6; triangle, Riesz, Riemann, Hann-Poisson (its cusp "
          "at the centre) -12; Hann, Blackman, Tukey -18; Parzen, Bohman, ``cos^3`` -24; "
          "``cos^4`` and Nuttall's 4-term window with a continuous third derivative -30 (Harris "
          "1978, Sec. IV; Nuttall 1981); 0 (k = -1) when an end sample is an impulse, off the "
          "smooth curve through its neighbours (by more than 30 times the fit's error, more than "
          "1e-12 ``|W(0)|``, and ten times more than the next sample is off the curve through "
          "its own neighbours, above the curve or beyond it in sign: an end sample between 0 and "
          "the curve bends toward zero as a steep end does: no impulse, but a power end such as "
          "``cos^0.25``'s, or not measurable), as "
          "Dolph-Chebyshev's are in both conventions (its transform does "
          "not decay: equiripple). The order k is *measured from the samples*, not "
          "looked up: polynomials of degree 10 (and 9, for their error) are fitted by least "
          "squares to the first ``M + 1`` samples at each end (``M = N/8`` clamped to ``[14, "
          "256]`` and ``<= N/4``, ending halfway, but not under 14 samples, to an interior join "
          "such as Tukey's) and compared with zero at the end sample, half a sample beyond it "
          "(windows sampled at half-integers) or one sample beyond it (the right end of a DFT-even "
          "window), not in between (a steep end, Kaiser ``beta = 14`` at ``N = 64``, crosses zero "
          "there: a jump, not a kink); inside the window, polynomials fitted on either "
          "side of each of the <= 8 largest peaks of the fourth difference are compared, at the "
          "point where their values meet, and again with each side fitted up to the samples on "
          "either side of that point (the higher order of the two counts: a fit ending 3 samples "
          "short of Tukey's join at ``N = 64`` misread it as a kink), and with each side ended "
          "before another peak 5 or more samples away, or at a plateau of equal samples that "
          "begins or ends inside the stencil (the higher order counts again: a side "
          "across Tukey's other join at ``alpha = 0.875``, ``N = 64`` read a kink). A Taylor "
          "coefficient counts as zero within four times its fit error, or when its term in "
          "``|W|`` at ``f = N/32`` would be below -240 dB. This gives the asymptote at every ``N "
          ">= 64`` where the samples determine it, also where the spectrum reaches it only at "
          "large ``N`` (4-term Blackman-Harris: jump ``6e-5``, visible as -6 only from ``N = "
          "4096``, read from ``N = 256``; Poisson ``alpha = 4``: from ``N = 16384``, read at ``N "
          "= 64``). The far band below overrules the order where it contradicts "
          "it: an asymptote over at least 32 points in each half with another slope (a whole "
          "order shallower for an impulse), as for an end behaving like a non-integer power "
          "(``cos^0.5``, ``kaiser_bessel_derived``: about -9) or ripples next to the end "
          "(Barcilon-Temes: -6). Where no order is measured (samples that are not those of a "
          "piecewise smooth function, or windows smoother than a jump of the 7th derivative) the "
          "value is the least-squares slope of the far sidelobe peaks (on a 1/8-bin grid, "
          "parabolic interpolation in dB) against ``log2 sin(pi f/N)``, with a ``sin^2(pi f/N)`` "
          "term for the periodicity of the DTFT, over ``f`` in ``[max(4 first_min_bins, N/32), "
          "min(max(N/8, 2 f_lo), 3N/8)]`` (the slope of ``|W|`` itself when there are no distinct "
          "peaks), but only if it is an asymptote: the slopes of the band's lower and upper halves "
          "agree within 1 dB/octave, it is <= 0, and steeper than -48 for a window with no "
          "measured jump (``-inf`` when ``|W|`` is below the -240 dB floor throughout the band, "
          "e.g. a Gaussian with ``alpha >= 8``). None when the fall-off is not measurable: ``N < "
          "64`` (too few samples to resolve the window's smoothness; the far sidelobes of a short "
          "window are a transition, not the asymptote), a join ``L`` samples from an end with the "
          "band starting below ``2N/L`` bins (inside the main lobe of the join's own transform: "
          "Tukey ``alpha = 0.1`` at ``N = 128``), a fitted slope that is not an asymptote, a "
          "finite order read where ``|W|`` lies at the -240 dB floor beyond the main lobe (a fit "
          "that cannot follow a steep end: Kaiser ``beta = 31`` at ``N = 128``), a kink where the "
          "slope of each side changes sign within a sample of the join (also two joins around a "
          "flat part narrower than a sample: Tukey ``alpha = 0.9981`` at ``N = 206``) unless the "
          "band is an asymptote, or an "
          "ambiguous end: one read as a jump whose first samples are also those of a square-root "
          "end narrower than a sample (``w[0] w[1] > 0``, ``w[1]**2 >= 2 w[0]**2``, and ``w**2`` "
          "rising at least as steeply over the next sample), which the samples cannot tell from a "
          "small jump (-6.02 or -9.03: Kaiser-Bessel-derived ``beta = 8`` and Kaiser ``beta = 6`` "
          "at ``N = 64`` alike), unless a jump elsewhere falls off as slowly or a far band of at "
          "least 32 points per half shows the asymptote. Never positive, never NaN.")
      .field("overlap_correlation_50", &F::overlap_correlation_50,
             "``sum w[n] w[n + N/2] / sum w^2`` (a fraction, not %).")
      .field("overlap_correlation_75", &F::overlap_correlation_75,
             "``sum w[n] w[n + N/4] / sum w^2`` (a fraction, not %).")
      .field("leakage_factor", &F::leakage_factor,
             "Energy outside the main lobe ``|f| < first_min_bins`` over the total (a fraction).")
      .field("is_causal_exponential", &F::is_causal_exponential,
             "``w[n] = w[0] r^n`` with ``0 < r <= 1`` (``r = 1``: the rectangle, the "
             "``alpha = 0`` SSM).")
      .optional_field(
          "decay_ratio", &F::decay_ratio, +[](const F& r) { return r.is_causal_exponential; },
          "``r = exp(-alpha)`` for the causal exponential, else None.")
      .optional_field(
          "truncation_ripple_db", &F::truncation_ripple_db,
          +[](const F& r) { return r.is_causal_exponential; },
          "Causal exponential only: peak-to-peak ripple of ``|W|`` against the ``N -> inf`` "
          "envelope, ``20 log10 ((1 + r^N)/(1 - r^N))`` (dB; ``inf`` for the rectangle); None "
          "otherwise.")
      .finish();
}

/// The per-parameter entry of WindowInfo.
void register_window_parameter(py::module_& m) {
  using P = WindowParameter;
  ResultClass<P>(m, "WindowParameter",
                 "One parameter of a window, an entry of WindowInfo.parameters.")
      .object_field("name", &P::name, "str", "The parameter's name (scipy's where scipy has it).")
      .object_field("alternatives", &P::alternatives, "list[str]",
                    "Other names accepted for it (Harris's convention).")
      .field("required", &P::required, "Whether the window needs it (no default).")
      .object_field("default", &P::default_value, "str",
                    "Its default value as text (empty when required).")
      .object_field("description", &P::description, "str", "What it is, with its range.")
      .object_field("range", &P::range, "str",
                    "The values it may take, in words (\"> 0\", \"in [0, 1]\", ...).")
      .object_field("alternative_ranges", &P::alternative_ranges, "list[str]",
                    "The range of each alternative name, in the order of alternatives.")
      .finish();
}

void register_window_info(py::module_& m) {
  using I = WindowInfo;
  ResultClass<I>(m, "WindowInfo",
                 "A window's parameters and symmetry (spectra.window_info; the names of the "
                 "parameters make ropelab.spectra.WINDOWS).")
      .object_field("name", &I::name, "str", "The canonical name of the window.")
      .object_field("parameters", &I::parameters, "list[WindowParameter]",
                    "Every parameter, the required ones first.")
      .object_field("symmetry", &I::symmetry, "str",
                    "\"both\", \"symmetric\" (sym=True only) or \"dft-even\" (sym=False only).")
      .field("falloff_order", &I::falloff_order,
             "Order p of the least regular point of the zero-extended window, at its reference "
             "parameters: sidelobes fall off at -6.02(p + 1) dB/octave. An integer where the p-th "
             "derivative jumps, 0.5 at a square-root end (Kaiser-Bessel-derived); -1: no such "
             "point (equiripple, or smoother than double precision resolves).")
      .object_field("scipy_name", &I::scipy_name, "str",
                    "The scipy.signal.windows twin (sample-equal), or \"\".")
      .object_field("harris_name", &I::harris_name, "str",
                    "The window's name in Harris 1978, Table 1, or \"\".")
      .object_field("aliases", &I::aliases, "list[str]",
                    "Other names accepted for it (scipy's, Harris's).")
      .object_field("definition", &I::definition, "str",
                    "One line: its formula on x = (2n - L)/L (span L) or its source.")
      .finish();
}

void check_leakage_map(const LeakageMapResult& r) {
  const py::ssize_t A = r.alpha.size(), W = r.omega.size();
  for (const darray* g : {&r.tone_scalloping_loss_db, &r.bin_leakage_factor, &r.far_leakage_db}) {
    if (g->shape(0) != A || g->shape(1) != W) {
      throw py::value_error(
          "LeakageMap: the (A, W) arrays must have the shape (len(alpha), "
          "len(omega)) = (" +
          std::to_string(A) + ", " + std::to_string(W) + "), got (" + std::to_string(g->shape(0)) +
          ", " + std::to_string(g->shape(1)) + ")");
    }
  }
  if (static_cast<py::ssize_t>(r.figures.size()) != A) {
    throw py::value_error("LeakageMap: figures must hold one result per alpha (" +
                          std::to_string(A) + "), got " + std::to_string(r.figures.size()));
  }
}

void register_leakage_map(py::module_& m) {
  using L = LeakageMapResult;
  ResultClass<L>(m, "LeakageMap",
                 "Leakage of the causal exponential (SSM) window over alpha x omega grids (the "
                 "documented class is ropelab.spectra.LeakageMap).")
      .array_field("alpha", &L::alpha, 1, "ndarray[float64, (A,)]",
                   "The decays per sample ``alpha`` (row ``i``: the window ``exp(-alpha[i] n)``), "
                   "as given; the decays over the whole window ``alpha N`` are "
                   "``decay_over_window``. float64, shape (A,).")
      .array_field("omega", &L::omega, 1, "ndarray[float64, (W,)]",
                   "Rotations omega (rad/sample); float64, shape (W,).")
      .field("N", &L::N, "Window length (samples).")
      .field("pad", &L::pad, "FFT padding factor of :func:`figures_of_merit`.")
      .results_field<spectra::FiguresOfMerit>(
          "figures", &L::figures, "tuple[FiguresOfMerit, ...]",
          "Per alpha: the figures of merit of ``exp(-alpha n)`` (A of them). They do not depend "
          "on omega (``|H|`` depends only on ``omega - Omega``); the per-alpha properties "
          "(``highest_sidelobe_db``, ``first_min_db``, ...: float64 arrays of shape (A,)) are "
          "read from them.")
      .array_field("tone_scalloping_loss_db", &L::tone_scalloping_loss_db, 2,
                   "ndarray[float64, (A, W)]",
                   "Loss (dB >= 0) of the tone at omega read at its nearest DFT bin "
                   "``k = round(omega N/2 pi)``: ``-20 log10 |H(k)|/|H(omega N/2 pi)|``; float64, "
                   "shape (A, W).")
      .array_field("bin_leakage_factor", &L::bin_leakage_factor, 2, "ndarray[float64, (A, W)]",
                   "Fraction of the N-point DFT energy of ``h`` outside that nearest bin; "
                   "float64, shape (A, W).")
      .array_field("far_leakage_db", &L::far_leakage_db, 2, "ndarray[float64, (A, W)]",
                   "Largest DFT bin at least 2 bins from the tone, dB re the peak (<= 0); ``-inf`` "
                   "when no such bin rises above -240 dB, the rounding floor of the closed form "
                   "(e.g. ``alpha = 0`` with the tone on a bin, where every other DFT bin is "
                   "exactly zero). float64, shape (A, W).")
      .check(&check_leakage_map)
      .finish();
}

}  // namespace

void register_spectra(py::module_& m) {
  register_figures_of_merit(m);
  register_window_parameter(m);
  register_window_info(m);
  register_leakage_map(m);
  m.def("window_names", &window_names);
  m.def("window_parameters", &window_parameters, "name"_a);
  m.def("window_info", &window_info, "name"_a);
  m.def("window_aliases", &window_aliases);
  m.def("window", &window, "name"_a, "N"_a, "sym"_a, "params"_a);
  m.def("dpss", &dpss, "N"_a, "NW"_a, "Kmax"_a, "sym"_a, "norm"_a, "return_ratios"_a);
  m.def("ssm_impulse", &ssm_impulse, "alpha"_a, "omega"_a, "N"_a);
  m.def("dtft", &dtft, "x"_a, "freqs_bins"_a);
  m.def("spectrum", &spectrum_fn, "x"_a, "pad"_a);
  m.def("ssm_spectrum", &ssm_spectrum, "alpha"_a, "omega"_a, "N"_a, "freqs_bins"_a);
  m.def("ssm_envelope", &ssm_envelope, "alpha"_a, "omega"_a, "N"_a, "freqs_bins"_a);
  m.def("continuous_spectrum", &continuous_spectrum, "alpha"_a, "omega"_a, "T"_a, "freqs_bins"_a);
  m.def("zoh", &zoh, "alpha"_a, "omega"_a, "dt"_a, "B_real"_a, "B_imag"_a);
  m.def("ssm_kernel", &ssm_kernel, "alpha"_a, "omega"_a, "dt"_a, "B_real"_a, "B_imag"_a, "C_real"_a,
        "C_imag"_a, "L"_a);
  m.def("figures_of_merit", &figures_of_merit, "w"_a, "pad"_a);
  m.def("leakage_map", &leakage_map, "alpha"_a, "omega"_a, "N"_a, "pad"_a);
  m.def("cached_plan_count", &spectra::cached_plan_count);
}

}  // namespace ropelab::bind
