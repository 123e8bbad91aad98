// ropelab._core.sweep: cells of sweep tasks computed in the core (core: ropelab/sweep.hpp).
#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include "common.hpp"
#include "ropelab/montecarlo.hpp"
#include "ropelab/rff.hpp"
#include "ropelab/sweep.hpp"

namespace ropelab::bind {

namespace {

using iarray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

iarray int_column(py::handle obj, const char* f, const char* name, py::ssize_t n) {
  iarray a = iarray::ensure(obj);
  if (!a) {
    PyErr_Clear();
    type_error(f, name, "must be an array of integers", obj);
  }
  if (a.ndim() != 1 || (n >= 0 && a.size() != n)) {
    value_error(f, name, "must be a 1-D array of one entry per cell", obj);
  }
  return a;
}

/// The cells described column by column (one entry per cell in each array).
std::vector<sweep::MseCell> mse_cells_arg(const char* f, ArrayLike xi_o, ArrayLike sigma_o,
                                          ArrayLike rule_o, ArrayLike D_o, ArrayLike d_o,
                                          ArrayLike est_o, ArrayLike conv_o, ArrayLike full_o,
                                          py::handle seeds_o) {
  const darray xi = real_array_nd(xi_o, f, "xi", 1);
  const py::ssize_t n = xi.size();
  darray sigma = real_array(sigma_o, f, "sigma", true);
  if (sigma.ndim() != 1 || sigma.size() != n) {
    value_error(f, "sigma", "must be a 1-D array of one entry per cell", sigma_o);
  }
  const iarray rule = int_column(rule_o, f, "rule", n), D = int_column(D_o, f, "D", n),
               d = int_column(d_o, f, "d", n), est = int_column(est_o, f, "estimator", n),
               conv = int_column(conv_o, f, "convention", n),
               full = int_column(full_o, f, "full", n);
  using uarray = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>;
  std::optional<uarray> seeds;
  if (!seeds_o.is_none()) {
    seeds = uarray::ensure(seeds_o);
    if (!*seeds || seeds->ndim() != 1 || seeds->size() != n) {
      PyErr_Clear();
      value_error(f, "seeds", "must be a 1-D array of one unsigned 64-bit seed per cell", seeds_o);
    }
  }
  const auto& estimators = rff::estimators();
  const auto nconv = static_cast<std::int64_t>(rff::convention_names().size());
  const auto nrules = static_cast<std::int64_t>(sweep::sigma_rule_names().size());
  std::vector<sweep::MseCell> cells(static_cast<std::size_t>(n));
  for (py::ssize_t i = 0; i < n; ++i) {
    if (i % kSignalStride == kSignalStride - 1) check_signals();
    sweep::MseCell& c = cells[static_cast<std::size_t>(i)];
    const std::int64_t r = rule.at(i), e = est.at(i), v = conv.at(i);
    if (r < 0 || r > nrules) value_error(f, "rule", "entries must be codes 0..3", rule_o);
    if (e < 0 || e >= static_cast<std::int64_t>(estimators.size())) {
      value_error(f, "estimator", "entries must be indices of rff.estimators()", est_o);
    }
    if (v < 0 || v >= nconv) {
      value_error(f, "convention", "entries must be indices of rff.conventions()", conv_o);
    }
    if (D.at(i) < 1) value_error(f, "D", "entries must be >= 1", D_o);
    if (d.at(i) < 2) value_error(f, "d", "entries must be >= 2", d_o);
    c.xi = xi.at(i);
    c.sigma = sigma.at(i);
    c.rule = static_cast<sweep::SigmaRule>(r);
    c.D = static_cast<std::size_t>(D.at(i));
    c.d = static_cast<std::size_t>(d.at(i));
    c.estimator = estimators[static_cast<std::size_t>(e)];
    c.convention = static_cast<rff::Convention>(v);
    c.full = full.at(i) != 0;
    c.seed = seeds ? seeds->at(i) : 0;
  }
  return cells;
}

/// A ValueError whose args are (message, position of the failing cell).
[[noreturn]] void cell_error(const sweep::CellError& e) {
  PyErr_SetObject(PyExc_ValueError, py::make_tuple(std::string(e.what()), e.position).ptr());
  throw py::error_already_set();
}

py::typing::Tuple<int, std::string> check_rff_mse(ArrayLike xi_o, ArrayLike sigma_o,
                                                  ArrayLike rule_o, ArrayLike D_o, ArrayLike d_o,
                                                  ArrayLike est_o, ArrayLike conv_o,
                                                  ArrayLike full_o) {
  const char* f = "sweep.check_rff_mse";
  const std::vector<sweep::MseCell> cells =
      mse_cells_arg(f, xi_o, sigma_o, rule_o, D_o, d_o, est_o, conv_o, full_o, py::none());
  std::int64_t bad = -1;
  std::string message;
  // Safe without the GIL: reads `cells`, writes bad and message (run_polled: Ctrl-C between
  // chunks).
  run_polled(1000.0 * static_cast<double>(cells.size()), [&](const std::atomic<bool>* cancel) {
    for_chunks(cells.size(), 1000.0, cancel, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e && bad < 0; ++i) {
        try {
          sweep::check_mse_cell(cells[i]);
        } catch (const std::invalid_argument& err) {
          bad = static_cast<std::int64_t>(i);
          message = err.what();
        }
      }
    });
  });
  return py::make_tuple(static_cast<int>(bad), message);
}

/// Elementary steps of the cells (features drawn), for choosing how to wait for them.
double mse_work(const std::vector<sweep::MseCell>& cells, std::size_t trials) {
  double w = 0;
  for (const auto& c : cells) {
    w += static_cast<double>(trials) *
         (static_cast<double>(c.D) * static_cast<double>(c.full ? c.d : 1) + 8.0);
  }
  return w;
}

/// Each cell computed at a time holds sweep::kMseWorkArrays arrays of `trials` float64 values
/// (errors, squares, scratch) and its unit pair q, k (2·d values): refused before any cell starts
/// when the cells computed together cannot hold theirs in physical memory (MemoryError naming
/// trials and d).
void check_cell_memory(const std::vector<sweep::MseCell>& cells, std::size_t trials, int nthreads,
                       const char* f) {
  const std::size_t n = cells.size();
  if (n == 0) return;
  std::size_t d = 0;
  for (const auto& c : cells) d = std::max(d, c.d);
  const double together = n == 1 ? 1.0
                                 : static_cast<double>(std::min<std::size_t>(
                                       n, static_cast<std::size_t>(mc::resolve_threads(nthreads))));
  const double per_cell =
      sweep::kMseWorkArrays * static_cast<double>(trials) + 2.0 * static_cast<double>(d);
  const double need = together * per_cell * 8.0;
  const double physical = physical_bytes();
  if (!(need <= physical)) {
    char buf[300];
    std::snprintf(buf, sizeof buf,
                  ": trials=%zu and d=%zu need %d arrays of trials and 2 of d float64 values per "
                  "cell, %.3g GB for the %.0f cell(s) computed at a time; physical memory is "
                  "%.3g GB",
                  trials, d, sweep::kMseWorkArrays, need * 1e-9, together, physical * 1e-9);
    PyErr_SetString(PyExc_MemoryError, (std::string(f) + buf).c_str());
    throw py::error_already_set();
  }
}

/// on_done(positions, rows): the finished cells' positions in the call and their output rows.
using OnDone = py::typing::Optional<py::typing::Callable<void(py::array_t<std::int64_t>, darray)>>;

/// The least time between two calls of on_done while cells keep finishing: the finished cells
/// are handed over in groups (each call holds the GIL).
constexpr std::chrono::milliseconds kHandOverGap{10};

darray rff_mse(ArrayLike xi_o, ArrayLike sigma_o, ArrayLike rule_o, ArrayLike D_o, ArrayLike d_o,
               ArrayLike est_o, ArrayLike conv_o, ArrayLike full_o, ArrayLike seeds_o,
               IntLike trials_o, OptionalInt nthreads_o, OnDone on_done) {
  const char* f = "sweep.rff_mse";
  const std::vector<sweep::MseCell> cells =
      mse_cells_arg(f, xi_o, sigma_o, rule_o, D_o, d_o, est_o, conv_o, full_o, seeds_o);
  const auto trials = static_cast<std::size_t>(integer(trials_o, f, "trials", 1));
  const int nthreads = nthreads_arg(nthreads_o, f);
  if (!on_done.is_none() && !PyCallable_Check(on_done.ptr())) {
    type_error(f, "on_done", "must be callable or None", on_done);
  }
  const std::size_t n = cells.size();
  check_output_size(static_cast<double>(n) * sweep::kMseOutputs, f, "cells");
  check_cell_memory(cells, trials, nthreads, f);
  std::vector<sweep::MseOutputs> out(n);
  const sweep::MseCell* pc = cells.data();
  sweep::MseOutputs* po = out.data();
  auto to_array = [&](const std::vector<std::size_t>& which) {
    darray a(
        {static_cast<py::ssize_t>(which.size()), static_cast<py::ssize_t>(sweep::kMseOutputs)});
    double* pa = a.mutable_data();
    for (std::size_t j = 0; j < which.size(); ++j) {
      const sweep::MseOutputs& o = out[which[j]];
      const double row[sweep::kMseOutputs] = {o.sigma_used,    o.target,     o.analytic_mse,
                                              o.empirical_mse, o.mse_stderr, o.bias,
                                              o.bias_stderr};
      std::copy(row, row + sweep::kMseOutputs, pa + j * sweep::kMseOutputs);
    }
    return a;
  };
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  if (on_done.is_none() || mse_work(cells, trials) < kPolledWork) {
    // Small, or nothing to hand over while it runs: one call (short work without a polling
    // thread); the cells finished before a failing one are still handed over.
    std::mutex m;
    std::vector<std::size_t> finished;
    std::optional<sweep::CellError> failed;
    try {
      run_polled(mse_work(cells, trials), [&](const std::atomic<bool>* cancel) {
        sweep::mse_cells(
            pc, n, trials, nthreads, po,
            [&](std::size_t pos) {
              std::lock_guard<std::mutex> lock(m);
              finished.push_back(pos);
            },
            cancel);
      });
    } catch (const sweep::CellError& e) {
      failed.emplace(e);
    }
    if (!on_done.is_none() && !finished.empty()) {
      std::vector<std::int64_t> pos(finished.begin(), finished.end());
      on_done(py::array_t<std::int64_t>(static_cast<py::ssize_t>(pos.size()), pos.data()),
              to_array(finished));
    }
    if (failed) cell_error(*failed);
    return to_array(all);
  }
  // The cells on a worker thread; this thread hands the finished ones to on_done (with the GIL,
  // at most every kHandOverGap while cells keep finishing) and checks for Ctrl-C every
  // poll_interval. Ctrl-C, or an exception of on_done, stops the computation: the cells
  // finished by then are still handed over (Ctrl-C) before the exception propagates.
  std::atomic<bool> cancel{false};
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::size_t> ready;
  bool waiting = false;  // this thread waits for a finished cell (the next one wakes it)
  bool done = false;
  std::exception_ptr error;
  std::optional<py::error_already_set> raised;  // KeyboardInterrupt or on_done's exception
  std::exception_ptr callback_error;            // another exception while handing over
  bool callback_failed = false;
  PyThreadState* state = PyEval_SaveThread();
  // Safe without the GIL: the worker reads `cells`, writes `out` and `ready` (under m).
  std::thread worker([&] {
    try {
      sweep::mse_cells(
          pc, n, trials, nthreads, po,
          [&](std::size_t pos) {
            bool wake = false;
            {
              std::lock_guard<std::mutex> lock(m);
              ready.push_back(pos);
              wake = waiting;
              waiting = false;
            }
            if (wake) cv.notify_one();  // once per hand-over, not per cell
          },
          &cancel);
    } catch (...) {
      error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_one();
  });
  // Hand over `ready` (called with m unlocked and the GIL released; returns the same way).
  auto hand_over = [&](std::vector<std::size_t> batch) {
    restore_or_park(state);
    if (!batch.empty() && !callback_failed) {
      try {
        std::vector<std::int64_t> pos(batch.begin(), batch.end());
        on_done(py::array_t<std::int64_t>(static_cast<py::ssize_t>(pos.size()), pos.data()),
                to_array(batch));
      } catch (py::error_already_set& e) {
        if (!raised) raised.emplace(std::move(e));
        callback_failed = true;
        cancel = true;
      } catch (...) {
        if (!callback_error) callback_error = std::current_exception();
        callback_failed = true;
        cancel = true;
      }
    }
    state = PyEval_SaveThread();
  };
  {
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      waiting = ready.empty();
      const bool woke = cv.wait_for(lock, poll_interval, [&] { return done || !ready.empty(); });
      waiting = false;
      if (done) break;
      std::vector<std::size_t> batch;
      batch.swap(ready);
      lock.unlock();
      if (woke && !cancel) {
        hand_over(std::move(batch));
      } else {
        restore_or_park(state);
        if (!batch.empty()) {
          lock.lock();  // keep them for the final hand-over
          ready.insert(ready.end(), batch.begin(), batch.end());
          lock.unlock();
        }
        state = PyEval_SaveThread();
      }
      restore_or_park(state);
      if (!cancel && PyErr_CheckSignals() != 0) {
        raised.emplace();  // the KeyboardInterrupt (fetched: the cells finished are handed over)
        cancel = true;
      }
      state = PyEval_SaveThread();
      lock.lock();
      if (!cancel && !done) {
        // let more cells finish before the next hand-over
        cv.wait_for(lock, kHandOverGap, [&] { return done; });
      }
    }
  }
  worker.join();
  std::vector<std::size_t> rest;
  rest.swap(ready);
  hand_over(std::move(rest));
  restore_or_park(state);
  if (raised) throw *raised;
  if (callback_error) std::rethrow_exception(callback_error);
  if (error) {
    try {
      std::rethrow_exception(error);
    } catch (const sweep::CellError& e) {
      cell_error(e);
    }
  }
  return to_array(all);
}

py::array_t<std::uint64_t> cell_seeds(IntLike seed_o, ArrayLike index_o) {
  const char* f = "sweep.cell_seeds";
  const std::uint64_t seed = seed_arg(seed_o, f);
  const iarray index = int_column(index_o, f, "index", -1);
  py::array_t<std::uint64_t> out(index.size());
  std::uint64_t* po = out.mutable_data();
  for (py::ssize_t i = 0; i < index.size(); ++i) {
    if (index.at(i) < 0) value_error(f, "index", "entries must be >= 0", index_o);
    po[i] = sweep::cell_seed(seed, static_cast<std::uint64_t>(index.at(i)));
  }
  return out;
}

double exactly_rounded_sum(ArrayLike x_o) {
  const darray x = real_array(x_o, "sweep.exactly_rounded_sum", "x", true);
  NoGil release;
  return sweep::exactly_rounded_sum(x.data(), static_cast<std::size_t>(x.size()));
}

}  // namespace

void register_sweep(py::module_& m) {
  m.def("sigma_rules", &sweep::sigma_rule_names,
        "The sigma rule names; a cell's rule code is 0 (a number) or 1 + the index here.");
  m.def("cell_seeds", &cell_seeds, "seed"_a, "index"_a,
        "The seeds of the cells `index` (SeedSequence(seed, spawn_key=(i,)), first 64 bits).");
  m.def("exactly_rounded_sum", &exactly_rounded_sum, "x"_a,
        "The correctly rounded sum of x (math.fsum's result), as the cell statistics use it.");
  m.def("check_rff_mse", &check_rff_mse, "xi"_a, "sigma"_a, "rule"_a, "D"_a, "d"_a, "estimator"_a,
        "convention"_a, "full"_a,
        "(-1, '') when every rff_mse cell can be computed, else (position, message) of the first "
        "that cannot.");
  m.def("rff_mse", &rff_mse, "xi"_a, "sigma"_a, "rule"_a, "D"_a, "d"_a, "estimator"_a,
        "convention"_a, "full"_a, "seeds"_a, "trials"_a, "nthreads"_a, "on_done"_a,
        "The outputs (n, 7) of n rff_mse cells (each at its own seed), in parallel over cells; "
        "on_done(positions, rows) "
        "receives finished cells as they finish. A failing cell raises ValueError(message, "
        "position).");
}

}  // namespace ropelab::bind
