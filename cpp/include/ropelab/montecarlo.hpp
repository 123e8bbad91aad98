#pragma once
/// \file montecarlo.hpp
/// A blocked, threaded and reproducible loop for Monte-Carlo work.
///
/// Work items 0..n-1 (trials) are cut into fixed blocks; threads take blocks from a shared atomic
/// counter. Each item's result must depend only on its own index (see rng.hpp), so the output is
/// bit-identical for every thread count and block size. The threads are kept between calls (one
/// pool per process, idle threads asleep); a call made while the pool is busy (nested, or from
/// another thread) starts and joins its own threads, and a forked child makes its own pool.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ropelab::mc {

/// Raised by parallel_blocks when the caller's cancel flag was set (e.g. on Ctrl-C).
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("computation cancelled") {}
};

/// Number of threads to use: `requested` if > 0, else $ROPELAB_NUM_THREADS if set and > 0,
/// else std::thread::hardware_concurrency() (at least 1).
int resolve_threads(int requested);

/// Calls body(begin, end) for consecutive blocks [begin, end) covering [0, n), from up to
/// `nthreads` threads (resolved by resolve_threads). Checks `cancel` (may be null) between blocks
/// and throws Cancelled if it was set. An exception thrown by `body` stops the other threads and
/// is rethrown here.
void parallel_blocks(std::size_t n, std::size_t block, int nthreads,
                     const std::function<void(std::size_t, std::size_t)>& body,
                     const std::atomic<bool>* cancel);

}  // namespace ropelab::mc

namespace ropelab::mc {

/// The primitives whose throughput bounds a Monte-Carlo feature (benchmarks/bench_limit.py):
/// "normal" (rng::Stream normals), "uniform", "cos" and "exp" (the vecmath sum kernels on
/// L1-resident data). Computes n of them on `nthreads` threads (parallel_blocks over units of
/// 2^16) with the active SIMD path and returns a checksum (so nothing is optimised away).
/// Throws std::invalid_argument "kind must be one of ..." for a name not in primitive_names().
double run_primitive(const char* kind, std::uint64_t n, int nthreads,
                     const std::atomic<bool>* cancel);
/// The primitive names of run_primitive: "normal", "uniform", "cos", "exp"
/// (_core.simd.primitives()).
const std::vector<std::string>& primitive_names();

}  // namespace ropelab::mc
