#include "common.hpp"

#include <cxxabi.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>

#include "ropelab/limits.hpp"

namespace ropelab::bind {

std::string describe(const char* func, const char* name, const std::string& what,
                     py::handle value) {
  std::string r;
  try {
    r = py::repr(value).cast<std::string>();
  } catch (...) {
    r = "<unrepresentable>";
  }
  if (r.size() > 200) r = r.substr(0, 200) + "...";
  return std::string(func) + ": " + name + " " + what + ", got " + r;
}

void value_error(const char* func, const char* name, const std::string& what, py::handle value) {
  throw py::value_error(describe(func, name, what, value));
}

void type_error(const char* func, const char* name, const std::string& what, py::handle value) {
  throw py::type_error(describe(func, name, what, value));
}

namespace {

/// copy_interruptible below the top level: dst and src have the same shape.
void copy_pieces(const py::object& copyto, const py::array& dst, const py::array& src) {
  if (dst.ndim() == 0 || dst.size() <= kSignalStride) {
    copyto(dst, src, "casting"_a = "unsafe");
    check_signals();
    return;
  }
  const py::ssize_t n0 = dst.shape(0), row = dst.size() / n0;
  if (row >= kSignalStride / 2) {  // rows are large: split each of them
    for (py::ssize_t i = 0; i < n0; ++i) {
      copy_pieces(copyto, dst[py::int_(i)].cast<py::array>(), src[py::int_(i)].cast<py::array>());
    }
    return;
  }
  const py::ssize_t rows = kSignalStride / row;
  for (py::ssize_t b = 0; b < n0; b += rows) {
    const py::slice part(b, b + rows < n0 ? b + rows : n0, 1);
    copyto(dst[part], src[part], "casting"_a = "unsafe");
    check_signals();
  }
}

}  // namespace

/// Blocks of 512 are tested without an early exit on the bits (a value is ±inf or NaN iff its
/// exponent bits are all set: 11 of a double, 8 of a float), which vectorises; only a block with
/// a non-finite entry is searched element by element. Signals are checked every kSignalStride
/// entries (a multiple of the block).
template <class Real>
py::ssize_t first_nonfinite(const Real* p, py::ssize_t n) {
  using Bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  constexpr int kMantissa = std::numeric_limits<Real>::digits - 1;               // 52 or 23
  constexpr int kExponent = static_cast<int>(8 * sizeof(Real)) - 1 - kMantissa;  // 11 or 8
  constexpr Bits kAllOnes = (Bits{1} << kExponent) - 1;
  constexpr py::ssize_t kBlock = 512;
  static_assert(kSignalStride % kBlock == 0, "signal checks fall on block boundaries");
  for (py::ssize_t b = 0; b < n; b += kBlock) {
    if (b != 0 && b % kSignalStride == 0) check_signals();
    const py::ssize_t e = std::min(n, b + kBlock);
    Bits bad = 0;
    for (py::ssize_t i = b; i < e; ++i) {
      Bits bits = 0;
      std::memcpy(&bits, p + i, sizeof bits);
      bad |= (((bits >> kMantissa) & kAllOnes) + 1) >> kExponent;  // 1 iff all exponent bits set
    }
    if (bad == 0) continue;
    for (py::ssize_t i = b; i < e; ++i) {
      if (!std::isfinite(p[i])) return i;
    }
  }
  return n;
}
template py::ssize_t first_nonfinite(const double*, py::ssize_t);
template py::ssize_t first_nonfinite(const float*, py::ssize_t);

template <class Real>
void require_finite_input(const Real* p, py::ssize_t n, const char* func, const char* name,
                          py::handle obj) {
  const py::ssize_t i = first_nonfinite(p, n);
  if (i < n) {
    value_error(func, name,
                "must be finite (element " + std::to_string(i) + " is " +
                    std::to_string(static_cast<double>(p[i])) + ")",
                obj);
  }
}
template void require_finite_input(const double*, py::ssize_t, const char*, const char*,
                                   py::handle);
template void require_finite_input(const float*, py::ssize_t, const char*, const char*, py::handle);

void copy_interruptible(const py::array& dst, const py::array& src) {
  copy_pieces(py::module_::import("numpy").attr("copyto"), dst, src);
}

darray real_array(py::handle obj, const char* func, const char* name, bool allow_nonfinite) {
  if (obj.is_none()) type_error(func, name, "must be a real array", obj);
  py::array arr;
  try {
    arr = py::module_::import("numpy").attr("asarray")(obj);
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_MemoryError)) throw;
    type_error(func, name, "must be convertible to a real array", obj);
  }
  const char kind = arr.dtype().kind();
  if (kind == 'b') {
    type_error(func, name,
               "must be a real (integer or floating) array, not bool (True/False are not numbers)",
               obj);
  }
  if (kind == 'U' || kind == 'S') {
    type_error(func, name, "must be a real array of numbers, not text", obj);
  }
  if (kind == 'c') {
    type_error(func, name, "must be a real array, not complex (take .real or abs() first)", obj);
  }
  if (kind != 'i' && kind != 'u' && kind != 'f') {
    type_error(
        func, name,
        "must be a real array of numbers, not dtype " + py::str(arr.dtype()).cast<std::string>(),
        obj);
  }
  darray out = contiguous<darray>(arr, func, name);
  if (!allow_nonfinite) require_finite_input(out.data(), out.size(), func, name, obj);
  return out;
}

darray real_array_nd(py::handle obj, const char* func, const char* name, int ndim) {
  darray a = real_array(obj, func, name);
  if (a.ndim() != ndim) {
    value_error(func, name,
                "must be a " + std::to_string(ndim) + "-D array, has shape " +
                    py::str(py::tuple(a.attr("shape"))).cast<std::string>() + ":",
                obj);
  }
  return a;
}

namespace {

/// dtype kind of a NumPy scalar or 0-d array ('\0' for anything else).
char numpy_kind(py::handle obj) {
  if (!py::hasattr(obj, "dtype") || !py::hasattr(obj, "ndim")) return '\0';
  try {
    if (obj.attr("ndim").cast<int>() != 0) return 'A';  // an array, not a scalar
    return obj.attr("dtype").attr("kind").cast<std::string>().at(0);
  } catch (...) {
    return '\0';
  }
}

}  // namespace

double real_scalar(py::handle obj, const char* func, const char* name) {
  const char kind = numpy_kind(obj);
  const bool is_bool = PyBool_Check(obj.ptr()) || kind == 'b';
  const bool is_real = !is_bool && (PyFloat_Check(obj.ptr()) || PyLong_Check(obj.ptr()) ||
                                    kind == 'f' || kind == 'i' || kind == 'u');
  if (!is_real) type_error(func, name, "must be a real number", obj);
  const double v = py::float_(py::reinterpret_borrow<py::object>(obj)).cast<double>();
  if (!std::isfinite(v)) value_error(func, name, "must be finite", obj);
  return v;
}

std::int64_t integer(py::handle obj, const char* func, const char* name, std::int64_t minimum) {
  const std::string need = "must be an integer >= " + std::to_string(minimum);
  const char kind = numpy_kind(obj);
  if (PyBool_Check(obj.ptr()) || kind == 'b') type_error(func, name, need + ", not bool", obj);
  std::int64_t v = 0;
  if (PyLong_Check(obj.ptr()) || kind == 'i' || kind == 'u') {
    PyObject* idx = PyNumber_Index(obj.ptr());
    if (idx == nullptr) {
      PyErr_Clear();
      type_error(func, name, need, obj);
    }
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(idx, &overflow);
    Py_DECREF(idx);
    if (overflow != 0) value_error(func, name, need + " that fits in 64 bits", obj);
    v = static_cast<std::int64_t>(x);
  } else if (PyFloat_Check(obj.ptr()) || kind == 'f') {
    const double x = py::float_(py::reinterpret_borrow<py::object>(obj)).cast<double>();
    if (!std::isfinite(x) || std::floor(x) != x) value_error(func, name, need, obj);
    if (!(x >= -0x1.0p63 && x < 0x1.0p63))
      value_error(func, name, need + " that fits in 64 bits", obj);
    v = static_cast<std::int64_t>(x);
  } else {
    type_error(func, name, need, obj);
  }
  if (v < minimum) value_error(func, name, need, obj);
  return v;
}

int nthreads_arg(py::handle obj, const char* func) {
  if (obj.is_none()) return 0;
  const std::int64_t n = integer(obj, func, "nthreads", 1);
  if (n > 4096) value_error(func, "nthreads", "must be at most 4096", obj);
  return static_cast<int>(n);
}

std::uint64_t seed_arg(py::handle obj, const char* func) {
  if (PyBool_Check(obj.ptr()))
    type_error(func, "seed", "must be an integer in [0, 2**64), not bool", obj);
  PyObject* idx = PyNumber_Index(obj.ptr());
  if (idx == nullptr) {
    PyErr_Clear();
    type_error(func, "seed", "must be an integer in [0, 2**64)", obj);
  }
  const unsigned long long v = PyLong_AsUnsignedLongLong(idx);
  const bool bad = PyErr_Occurred() != nullptr;
  Py_DECREF(idx);
  if (bad) {
    PyErr_Clear();
    value_error(func, "seed", "must be an integer in [0, 2**64)", obj);
  }
  return static_cast<std::uint64_t>(v);
}

bool all_float32(std::initializer_list<py::handle> objs) {
  for (py::handle o : objs) {
    if (!py::isinstance<py::array>(o) ||
        !py::reinterpret_borrow<py::array>(o).dtype().is(py::dtype::of<float>())) {
      return false;
    }
  }
  return true;
}

double physical_bytes() {
  static const double bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page)
                                 : limits::kAssumedPhysicalBytes;
  }();
  return bytes;
}

void check_output_size(double count, const char* func, const std::string& args) {
  // An output larger than the machine's physical memory cannot be produced: refuse it up front
  // instead of letting the allocator overcommit and the OS kill the process later.
  const double physical = physical_bytes();
  if (!(count * 8.0 <= physical)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%.4g float64 values = %.3g GB; physical memory is %.3g GB",
                  count, count * 8e-9, physical * 1e-9);
    const std::string msg = std::string(func) + ": the requested output cannot be allocated (" +
                            args + ": " + buf + ")";
    PyErr_SetString(PyExc_MemoryError, msg.c_str());
    throw py::error_already_set();
  }
}

void check_copy_size(double count, std::size_t itemsize, const char* func, const char* name) {
  const double need = count * static_cast<double>(itemsize);
  const double physical = physical_bytes();
  if (!(need <= physical)) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  " has %.4g elements; its contiguous copy (%.3g GB) cannot fit in physical "
                  "memory (%.3g GB)",
                  count, need * 1e-9, physical * 1e-9);
    const std::string msg = std::string(func) + ": " + name + buf;
    PyErr_SetString(PyExc_MemoryError, msg.c_str());
    throw py::error_already_set();
  }
}

void restore_or_park(PyThreadState* state) noexcept {
  try {
    PyEval_RestoreThread(state);
  } catch (abi::__forced_unwind&) {
    // pthread_exit from a finalising interpreter: unwinding would abort; sleep until the process
    // exits (the thread holds no lock and no GIL).
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

namespace {

/// Abandoned detached computations: their caller was interrupted, they still run (inside one
/// uninterruptible library call, or until their next check of the flag). Guarded by
/// abandoned_mutex; reset to 0 in a forked child, which inherits none of the threads.
std::mutex& abandoned_mutex() {
  static auto* m =
      new std::mutex;  // never destroyed: detached threads may outlive static destructors
  return *m;
}
std::condition_variable& abandoned_cv() {
  static auto* cv = new std::condition_variable;
  return *cv;
}
std::size_t abandoned_count = 0;

[[maybe_unused]] const int abandoned_atfork = [] {
  return pthread_atfork([] { abandoned_mutex().lock(); }, [] { abandoned_mutex().unlock(); },
                        [] {
                          // the child: the lock is held by this thread (prepare); no thread of the
                          // parent exists here, so nothing is abandoned
                          abandoned_count = 0;
                          abandoned_mutex().unlock();
                        });
}();

}  // namespace

std::size_t abandoned_computations() {
  std::lock_guard<std::mutex> lock(abandoned_mutex());
  return abandoned_count;
}

void run_detached(std::function<void(const std::atomic<bool>*)> work) {
  struct Shared {
    std::atomic<bool> cancel{false};
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    bool abandoned = false;
    std::exception_ptr error;
  };
  PyThreadState* state = PyEval_SaveThread();
  {
    // Bound the abandoned work: while kMaxAbandoned interrupted computations still run, a new one
    // waits (answering Ctrl-C) for one of them to finish, so repeated Ctrl-C cannot pile up
    // threads, CPU time and memory.
    std::unique_lock<std::mutex> lock(abandoned_mutex());
    while (!abandoned_cv().wait_for(lock, poll_interval,
                                    [] { return abandoned_count < kMaxAbandoned; })) {
      lock.unlock();
      restore_or_park(state);
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      state = PyEval_SaveThread();
      lock.lock();
    }
  }
  auto shared = std::make_shared<Shared>();
  try {
    std::thread([shared, work = std::move(work)] {
      try {
        work(&shared->cancel);
      } catch (...) {
        shared->error = std::current_exception();
      }
      bool was_abandoned = false;
      {
        std::lock_guard<std::mutex> lock(shared->m);
        shared->done = true;
        was_abandoned = shared->abandoned;
        shared->cv.notify_one();
      }
      if (was_abandoned) {
        {
          std::lock_guard<std::mutex> lock(abandoned_mutex());
          if (abandoned_count > 0) --abandoned_count;
        }
        abandoned_cv().notify_all();
      }
    }).detach();
  } catch (...) {
    restore_or_park(state);
    throw;
  }
  std::unique_lock<std::mutex> lock(shared->m);
  while (!shared->cv.wait_for(lock, poll_interval, [&] { return shared->done; })) {
    lock.unlock();
    restore_or_park(state);
    if (PyErr_CheckSignals() != 0) {
      shared->cancel = true;  // the thread stops at its next check and frees its copies alone
      std::lock_guard<std::mutex> relock(shared->m);
      if (!shared->done) {
        shared->abandoned = true;
        std::lock_guard<std::mutex> count(abandoned_mutex());
        ++abandoned_count;
      }
      throw py::error_already_set();
    }
    state = PyEval_SaveThread();
    lock.lock();
  }
  lock.unlock();
  restore_or_park(state);
  if (shared->error) std::rethrow_exception(shared->error);
}

std::vector<py::ssize_t> shape_of(const py::array& a) {
  return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

}  // namespace ropelab::bind

namespace ropelab::bind {

namespace {

/// The check of require_finite_result for a real result: `precision` opens the parenthesis that
/// holds the offending value ("double precision (" or "single precision (float32; ").
template <class Real>
void require_finite_real(const Real* p, py::ssize_t n, const char* func, const char* what,
                         const char* precision, const std::string& hint) {
  const py::ssize_t i = first_nonfinite(p, n);
  if (i < n) {
    throw py::value_error(std::string(func) + ": " + what + " at element " + std::to_string(i) +
                          " is not finite in " + precision +
                          std::to_string(static_cast<double>(p[i])) + ")" +
                          (hint.empty() ? std::string() : "; " + hint));
  }
}

}  // namespace

void require_finite_result(const darray& out, const char* func, const char* what,
                           const std::string& hint) {
  require_finite_real(out.data(), out.size(), func, what, "double precision (", hint);
}

void require_finite_result(const farray& out, const char* func, const char* what,
                           const std::string& hint) {
  require_finite_real(out.data(), out.size(), func, what, "single precision (float32; ", hint);
}

void require_finite_result(const carray& out, const char* func, const char* what,
                           const std::string& hint) {
  const std::complex<double>* p = out.data();
  for (py::ssize_t i = 0; i < out.size(); ++i) {
    if (i % kSignalStride == kSignalStride - 1) check_signals();
    if (!std::isfinite(p[i].real()) || !std::isfinite(p[i].imag())) {
      throw py::value_error(std::string(func) + ": " + what + " at element " + std::to_string(i) +
                            " is not finite in double precision" +
                            (hint.empty() ? std::string() : "; " + hint));
    }
  }
}

std::string string_arg(py::handle obj, const char* func, const char* name) {
  if (!PyUnicode_Check(obj.ptr())) type_error(func, name, "must be a str", obj);
  return obj.cast<std::string>();
}

}  // namespace ropelab::bind
