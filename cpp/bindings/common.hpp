#pragma once
/// \file common.hpp
/// The one header every binding file includes: pybind11, the argument checks that turn bad input
/// into ValueError/TypeError naming the function, argument and value, and run_interruptible.
///
/// Binding order, the same everywhere: convert and check arguments (GIL held), allocate outputs,
/// release the GIL, compute in the C++ core, return.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/typing.h>

#include <array>
#include <atomic>
#include <chrono>
#include <complex>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ropelab/montecarlo.hpp"

namespace py = pybind11;
using namespace pybind11::literals;

namespace ropelab::bind {

/// Typed argument wrappers. A binding takes its Python arguments as these instead of py::handle
/// so that the signature (and the generated stubs) name the accepted type. Each accepts ANY object
/// (the check below always passes): the conversion and the ValueError/TypeError naming the
/// argument stay in the binding's own checks (real_array, integer, parse_choice, ...), which
/// receive the wrapper as a py::handle.
inline int accept_any_object(PyObject* /*obj*/) {
  return 1;
}

// Hidden like pybind11's own types (GCC warns when a class is more visible than its base).
#if defined(__GNUC__)
#define ROPELAB_BIND_HIDDEN __attribute__((visibility("hidden")))
#else
#define ROPELAB_BIND_HIDDEN
#endif

#define ROPELAB_TYPED_ARG(Name)                                                   \
  class ROPELAB_BIND_HIDDEN Name : public py::object {                            \
   public:                                                                        \
    PYBIND11_OBJECT_DEFAULT(Name, py::object, ::ropelab::bind::accept_any_object) \
  };

/// An array-like of real numbers (a scalar, a sequence, a NumPy array).
ROPELAB_TYPED_ARG(ArrayLike)
/// An array-like, or None where the argument is optional.
ROPELAB_TYPED_ARG(OptionalArrayLike)
/// A real number (Python or NumPy).
ROPELAB_TYPED_ARG(FloatLike)
/// A real number, or None for the documented default.
ROPELAB_TYPED_ARG(OptionalFloat)
/// An integer (Python or NumPy; a float with no fractional part is accepted).
ROPELAB_TYPED_ARG(IntLike)
/// A thread count: None (all cores / ROPELAB_NUM_THREADS) or an integer >= 1.
ROPELAB_TYPED_ARG(OptionalInt)
/// The name of one of an enumeration's values (the module's names function lists them).
ROPELAB_TYPED_ARG(Choice)
/// A name, or None for the documented default.
ROPELAB_TYPED_ARG(OptionalChoice)

#undef ROPELAB_TYPED_ARG
#undef ROPELAB_BIND_HIDDEN

/// C-contiguous float64 array (NumPy is row-major; so is every core routine taking raw pointers).
using darray = py::array_t<double, py::array::c_style | py::array::forcecast>;
/// C-contiguous float32 array (the float32 paths).
using farray = py::array_t<float, py::array::c_style | py::array::forcecast>;
/// C-contiguous complex128 array.
using carray = py::array_t<std::complex<double>, py::array::c_style | py::array::forcecast>;

/// Raises the pending KeyboardInterrupt (or the exception of another signal handler) when a signal
/// arrived. For loops that run with the GIL held: call it every kSignalStride elements.
inline void check_signals() {
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();
}

/// Elements between two check_signals() in a pass that holds the GIL (a few ms of copying).
constexpr py::ssize_t kSignalStride = py::ssize_t{1} << 20;

/// The index of the first non-finite entry of p[0, n), or n (Real: double or float). Vectorised;
/// polls for signals every kSignalStride entries (the GIL is held).
template <class Real>
py::ssize_t first_nonfinite(const Real* p, py::ssize_t n);

/// Copies `src` into `dst` (NumPy arrays of the same shape) with NumPy's own cast
/// (np.copyto, casting="unsafe", the cast of forcecast), in pieces of about kSignalStride elements
/// with check_signals() between them: a conversion of a large array answers Ctrl-C.
void copy_interruptible(const py::array& dst, const py::array& src);

/// MemoryError naming `func` and `name` when a copy of `count` elements of `itemsize` bytes (the
/// conversion of argument `name`) cannot fit in physical memory: checked before the copy, so a
/// zero-stride view of 2^40 elements is refused instead of reaching the allocator.
void check_copy_size(double count, std::size_t itemsize, const char* func, const char* name);

/// `arr` (argument `name` of `func`) as a C-contiguous Array (a copy when needed; its size is
/// checked against physical memory first, by check_copy_size). Unlike Array::ensure, which
/// clears the Python error of a failed conversion (so that a later error_already_set has nothing
/// to raise), the MemoryError or TypeError of the conversion propagates. A copy of more than a
/// few kSignalStride elements is made by copy_interruptible (bit-identical: the same NumPy cast).
template <class Array>
Array contiguous(py::handle arr, const char* func, const char* name) {
  auto obj = py::reinterpret_borrow<py::object>(arr);
  if (!py::isinstance<py::array>(obj)) return Array(obj);
  const auto a = py::reinterpret_borrow<py::array>(obj);
  const bool no_copy =
      py::isinstance<Array>(a) && (a.flags() & py::array::c_style) == py::array::c_style;
  if (no_copy) return Array(obj);
  check_copy_size(static_cast<double>(a.size()), sizeof(typename Array::value_type), func, name);
  if (a.size() <= 4 * kSignalStride) return Array(obj);
  Array out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  copy_interruptible(out, a);
  return out;
}

/// "func: name must be ..., got repr(value)".
std::string describe(const char* func, const char* name, const std::string& what, py::handle value);

[[noreturn]] void value_error(const char* func, const char* name, const std::string& what,
                              py::handle value);
[[noreturn]] void type_error(const char* func, const char* name, const std::string& what,
                             py::handle value);

/// Any real array-like (integer or floating dtype) as a C-contiguous float64 array.
/// Bool, complex, object, string and datetime input raise TypeError; NaN/inf raise ValueError
/// unless allow_nonfinite.
darray real_array(py::handle obj, const char* func, const char* name, bool allow_nonfinite = false);

/// A real array with exactly `ndim` dimensions (ValueError otherwise).
darray real_array_nd(py::handle obj, const char* func, const char* name, int ndim);

/// A finite real scalar (Python/NumPy number, not bool, not complex).
double real_scalar(py::handle obj, const char* func, const char* name);

/// An integer argument ≥ minimum: int, NumPy integer, or a float with no fractional part. Rejects
/// bool, fractional or non-finite floats and values beyond int64 (the core's widest type).
std::int64_t integer(py::handle obj, const char* func, const char* name, std::int64_t minimum);

/// nthreads: None → 0 (all cores / ROPELAB_NUM_THREADS), else an integer ≥ 1.
int nthreads_arg(py::handle obj, const char* func);

/// A 64-bit seed: any integer in [0, 2^64).
std::uint64_t seed_arg(py::handle obj, const char* func);

/// Whether every one of `objs` is a NumPy array of dtype float32: the float32 path of the kernels
/// that have one (attention.softmax, the delta rules: float32 out when all these inputs are).
bool all_float32(std::initializer_list<py::handle> objs);

/// The machine's physical memory in bytes (limits::kAssumedPhysicalBytes when the OS does not say).
double physical_bytes();

/// Raise MemoryError up front when an output of `count` doubles cannot be allocated sensibly; the
/// message names `func` and `args`, the arguments (with their values where they are sizes) that
/// ask for the output, e.g. "trials=9223372036854775807".
void check_output_size(double count, const char* func, const std::string& args);

/// Re-take the GIL released as `state`. A thread that re-takes the GIL after the interpreter began
/// to finalise (a daemon thread inside a long call at exit) is ended by CPython < 3.14 with
/// pthread_exit, whose forced unwind aborts the process when it crosses a destructor or a joinable
/// std::thread ("terminate called without an active exception"). Such a thread is parked here
/// forever instead (what CPython >= 3.14 does itself); the process is exiting anyway.
void restore_or_park(PyThreadState* state) noexcept;

/// Releases the GIL for its lifetime; every binding uses it instead of py::gil_scoped_release so
/// that exit with a daemon thread inside a call does not abort (see restore_or_park).
class NoGil {
 public:
  NoGil() : state_(PyEval_SaveThread()) {}
  ~NoGil() { restore_or_park(state_); }
  NoGil(const NoGil&) = delete;
  NoGil& operator=(const NoGil&) = delete;

 private:
  PyThreadState* state_;
};

/// How often a long call checks for Ctrl-C (the one interrupt mechanism of the package).
constexpr std::chrono::milliseconds poll_interval{50};

/// Run `work(cancel_flag)` on a worker thread with the GIL released, while this thread checks for
/// signals every poll_interval. On Ctrl-C the flag is set, the work stops at its next check of
/// the flag (every core loop that can run longer than ~10 ms checks it) and the
/// KeyboardInterrupt propagates; exceptions of the work are rethrown here.
///
/// This is the package's one Ctrl-C mechanism: every call that can run longer than ~100 ms goes
/// through run_interruptible (or run_detached, for single uninterruptible library calls).
template <class Work>
void run_interruptible(Work&& work) {
  std::atomic<bool> cancel{false};
  std::exception_ptr error;
  bool interrupted = false;
  PyThreadState* state = PyEval_SaveThread();
  // Safe without the GIL: the work reads and writes only buffers owned by the caller's frame.
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    try {
      work(&cancel);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_one();
  });
  {
    std::unique_lock<std::mutex> lock(m);
    while (!cv.wait_for(lock, poll_interval, [&] { return done; })) {
      lock.unlock();
      restore_or_park(state);  // never returns once the interpreter is finalising
      if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        cancel = true;
      }
      state = PyEval_SaveThread();
      lock.lock();
      if (interrupted) {
        cv.wait(lock, [&] { return done; });
        break;
      }
    }
  }
  worker.join();
  restore_or_park(state);
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
}

/// Work below this many elementary steps (~a few ms) runs directly with the GIL released: a worker
/// thread would cost more than the call. Above it, run_polled polls for Ctrl-C.
constexpr double kPolledWork = 0x1.0p22;
/// Units of work between two checks of a cancel flag inside a core loop (~0.1-1 ms).
constexpr std::size_t kPollStride = std::size_t{1} << 16;

/// Run `work(cancel)` for a computation of about `cost` elementary steps: with the GIL released and
/// cancel = nullptr when it is short, else through run_interruptible (Ctrl-C sets the flag, which
/// the work checks at least every kPollStride steps).
template <class Work>
void run_polled(double cost, Work&& work) {
  if (cost < kPolledWork) {
    NoGil release;
    work(static_cast<const std::atomic<bool>*>(nullptr));
    return;
  }
  run_interruptible(std::forward<Work>(work));
}

/// Throws mc::Cancelled when `cancel` (may be null) is set.
inline void poll(const std::atomic<bool>* cancel) {
  if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw mc::Cancelled();
}

/// Calls body(b, e) on consecutive ranges [b, e) of [0, n), each about kPollStride steps of work
/// (`unit` steps per item), checking `cancel` (may be null) before each range.
template <class Body>
void for_chunks(std::size_t n, double unit, const std::atomic<bool>* cancel, Body&& body) {
  const double per = static_cast<double>(kPollStride) / (unit < 1.0 ? 1.0 : unit);
  const std::size_t step = per < 1.0 ? 1 : static_cast<std::size_t>(per);
  for (std::size_t b = 0; b < n; b += step) {
    poll(cancel);
    body(b, n - b < step ? n : b + step);
  }
}

/// For work containing single calls that cannot check a flag (an Eigen SVD, eigen- or
/// QR-decomposition): run `work(cancel_flag)` on a detached thread that owns everything it touches
/// (the work must capture its input and output by shared ownership, never the caller's buffers),
/// polling for signals like run_interruptible. On Ctrl-C the flag is set, the KeyboardInterrupt is
/// raised at once, and the abandoned work stops at its next check of the flag (or, inside one
/// library call, when that call returns); its memory is released then.
///
/// Bounded: at most kMaxAbandoned abandoned computations run at any time (a further run_detached
/// call waits, answering Ctrl-C, until one of them finishes); each owns its copies and nothing
/// else, so it cannot change any state the caller sees; a forked child starts with none.
void run_detached(std::function<void(const std::atomic<bool>*)> work);

/// How many interrupted run_detached computations may still run in the background.
constexpr std::size_t kMaxAbandoned = 2;

/// The number of interrupted run_detached computations still running (for tests).
std::size_t abandoned_computations();

/// Shape of an array as a vector (for allocating outputs of the same shape).
std::vector<py::ssize_t> shape_of(const py::array& a);

void register_rff(py::module_& m);
void register_temperature(py::module_& m);
void register_rotary(py::module_& m);
void register_recurrence(py::module_& m);
void register_transition(py::module_& m);
void register_spectra(py::module_& m);
void register_simd(py::module_& m);
void register_attention(py::module_& m);

}  // namespace ropelab::bind

namespace ropelab::bind {

/// A str argument (TypeError otherwise).
std::string string_arg(py::handle obj, const char* func, const char* name);

/// Calls parse(value) (a core parser throwing std::invalid_argument) and prefixes its message with
/// the function name.
template <class Parse>
auto parse_choice(py::handle obj, const char* func, const char* name, Parse parse) {
  const std::string s = string_arg(obj, func, name);
  try {
    return parse(s);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(func) + ": " + e.what());
  }
}

/// Runs check() (a core input check throwing std::invalid_argument) and raises its message as a
/// ValueError prefixed with the function name.
template <class Check>
void core_check(const char* func, Check check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(func) + ": " + e.what());
  }
}

/// Element-wise check of a float64 array; `ok(x)` false raises ValueError naming the element.
template <class Ok>
void require_each(const darray& a, const char* func, const char* name, const std::string& what,
                  Ok ok) {
  const double* p = a.data();
  const py::ssize_t n = a.size();  // (size() is a product over the shape: not in the loop)
  for (py::ssize_t i = 0; i < n; ++i) {
    if (i % kSignalStride == kSignalStride - 1) check_signals();
    if (!ok(p[i])) {
      value_error(func, name, what + " (element " + std::to_string(i) + ")", py::float_(p[i]));
    }
  }
}

/// Results must be finite: a value that overflowed a double raises ValueError naming the function,
/// the output and the first offending element, with `hint` (e.g. "use log=True").
void require_finite_result(const darray& out, const char* func, const char* what,
                           const std::string& hint);
void require_finite_result(const farray& out, const char* func, const char* what,
                           const std::string& hint);
void require_finite_result(const carray& out, const char* func, const char* what,
                           const std::string& hint);

/// ValueError "func: name must be finite (element i is x)" naming `obj` at the first non-finite
/// entry of p[0, n) (first_nonfinite), if any.
template <class Real>
void require_finite_input(const Real* p, py::ssize_t n, const char* func, const char* name,
                          py::handle obj);

/// K operands (C-contiguous, e.g. from real_array) broadcast together by NumPy's rules without
/// materialising them: the broadcast shape and, per operand, its element strides in that shape
/// (0 along the axes it is broadcast over). A scalar against a large array costs nothing.
template <std::size_t K>
class Broadcast {
 public:
  using Offsets = std::array<py::ssize_t, K>;

  /// ValueError "func: <names> cannot be broadcast together, got shapes ..." when they do not fit;
  /// MemoryError when the broadcast output cannot be allocated.
  Broadcast(const std::array<const py::array*, K>& ops, const char* func, const char* names) {
    py::ssize_t nd = 0;
    for (const py::array* a : ops) nd = a->ndim() > nd ? a->ndim() : nd;
    shape_.assign(static_cast<std::size_t>(nd), 1);
    for (const py::array* a : ops) {
      for (py::ssize_t j = 0; j < a->ndim(); ++j) {
        const py::ssize_t s = a->shape(j);
        py::ssize_t& r = shape_[static_cast<std::size_t>(nd - a->ndim() + j)];
        if (s == 1) continue;
        if (r != 1 && r != s) {
          std::string shapes;
          for (const py::array* b : ops) {
            shapes += (shapes.empty() ? "" : ", ") + py::str(b->attr("shape")).cast<std::string>();
          }
          throw py::value_error(std::string(func) + ": " + names +
                                " cannot be broadcast together, got shapes " + shapes);
        }
        r = s;
      }
    }
    double count = 1;
    for (const py::ssize_t s : shape_) count *= static_cast<double>(s);
    check_output_size(count, func, names);
    size_ = 1;
    for (const py::ssize_t s : shape_) size_ *= static_cast<std::size_t>(s);
    for (std::size_t k = 0; k < K; ++k) {
      const py::array& a = *ops[k];
      strides_[k].assign(shape_.size(), 0);
      py::ssize_t step = 1;
      for (py::ssize_t j = a.ndim(); j-- > 0;) {
        if (a.shape(j) != 1) strides_[k][static_cast<std::size_t>(nd - a.ndim() + j)] = step;
        step *= a.shape(j);
      }
    }
  }

  const std::vector<py::ssize_t>& shape() const { return shape_; }
  std::size_t size() const { return size_; }

  /// The element offsets of the operands at flat (C-order) output index i.
  Offsets offsets(std::size_t i) const {
    Offsets off{};
    auto r = static_cast<py::ssize_t>(i);
    for (std::size_t d = shape_.size(); d-- > 0;) {
      const py::ssize_t j = r % shape_[d];
      r /= shape_[d];
      for (std::size_t k = 0; k < K; ++k) off[k] += j * strides_[k][d];
    }
    return off;
  }

  /// Calls body(i, off) for the flat output indices i in [b, e), off[k] = the element offset of
  /// operand k (needs no Python: usable without the GIL).
  template <class Body>
  void visit(std::size_t b, std::size_t e, Body&& body) const {
    if (b >= e) return;
    const std::size_t nd = shape_.size();
    std::vector<py::ssize_t> idx(nd);
    auto r = static_cast<py::ssize_t>(b);
    for (std::size_t d = nd; d-- > 0;) {
      idx[d] = r % shape_[d];
      r /= shape_[d];
    }
    Offsets off = offsets(b);
    for (std::size_t i = b; i < e; ++i) {
      body(i, static_cast<const Offsets&>(off));
      for (std::size_t d = nd; d-- > 0;) {  // odometer step to i + 1
        for (std::size_t k = 0; k < K; ++k) off[k] += strides_[k][d];
        if (++idx[d] < shape_[d]) break;
        for (std::size_t k = 0; k < K; ++k) off[k] -= shape_[d] * strides_[k][d];
        idx[d] = 0;
      }
    }
  }

 private:
  std::vector<py::ssize_t> shape_;
  std::size_t size_ = 1;
  std::array<std::vector<py::ssize_t>, K> strides_;
};

/// New float64 array with the shape of `like`.
inline darray empty_like(const py::array& like) {
  return darray(shape_of(like));
}

}  // namespace ropelab::bind

/// The names the signatures (and so the stubs written by pybind11-stubgen) give the typed
/// argument wrappers of ropelab::bind.
// (the macro also names result_class.hpp's argument types)
namespace pybind11::detail {
#define ROPELAB_ARGUMENT_TYPE_NAME(Type, Name)     \
  template <>                                      \
  struct handle_type_name<ropelab::bind::Type> {   \
    static constexpr auto name = const_name(Name); \
  };
ROPELAB_ARGUMENT_TYPE_NAME(ArrayLike, "numpy.typing.ArrayLike")
ROPELAB_ARGUMENT_TYPE_NAME(OptionalArrayLike, "numpy.typing.ArrayLike | None")
ROPELAB_ARGUMENT_TYPE_NAME(FloatLike, "typing.SupportsFloat")
ROPELAB_ARGUMENT_TYPE_NAME(OptionalFloat, "typing.SupportsFloat | None")
ROPELAB_ARGUMENT_TYPE_NAME(IntLike, "typing.SupportsInt")
ROPELAB_ARGUMENT_TYPE_NAME(OptionalInt, "int | None")
ROPELAB_ARGUMENT_TYPE_NAME(Choice, "str")
ROPELAB_ARGUMENT_TYPE_NAME(OptionalChoice, "str | None")
}  // namespace pybind11::detail
