#include "ropelab/montecarlo.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ropelab::mc {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  if (const char* env = std::getenv("ROPELAB_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0 && v <= 4096) return static_cast<int>(v);
  }
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

void parallel_blocks(std::size_t n, std::size_t block, int nthreads,
                     const std::function<void(std::size_t, std::size_t)>& body,
                     const std::atomic<bool>* cancel) {
  if (n == 0) return;
  block = std::max<std::size_t>(block, 1);
  const std::size_t nblocks = (n + block - 1) / block;
  const std::size_t nt =
      std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(nthreads)), nblocks);

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;

  auto worker = [&] {
    for (;;) {
      if (failed.load(std::memory_order_relaxed)) return;
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return;
      const std::size_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= nblocks) return;
      try {
        body(b * block, std::min(n, (b + 1) * block));
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
    }
  };

  if (nt <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(nt - 1);
    for (std::size_t i = 0; i + 1 < nt; ++i) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
  }
  if (error) std::rethrow_exception(error);
  if (cancel != nullptr && cancel->load()) throw Cancelled();
}

}  // namespace ropelab::mc
