#include "ropelab/montecarlo.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ropelab::mc {

namespace {

/// How long a pool thread, or a caller waiting for the pool, spins before it sleeps.
constexpr int kSpinMicros = 100;

/// Polls done() for about kSpinMicros, yielding the core between polls (a thread that waits for
/// another must not keep it from a core when there are more runnable threads than cores); returns
/// done().
template <class Done>
bool spin_until(Done&& done) {
  constexpr auto kSpin = std::chrono::microseconds(kSpinMicros);
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (done()) return true;
      std::this_thread::yield();
    }
    if (std::chrono::steady_clock::now() >= until) return done();
  }
}

/// The threads of parallel_blocks, kept between calls: starting 15 threads costs 0.2-0.5 ms on the
/// machines measured (benchmarks/README.md), as much as a small parallel step itself, and a call
/// such as one sequence's random-feature attention runs ten parallel steps. A thread that has
/// finished a step, and the caller waiting for the others, poll for kSpinMicros before they sleep
/// on a condition variable: waking a sleeping thread costs tens of microseconds more on a virtual
/// machine, whose idle cores are halted. One job at a time: `run` refuses (returns false) while
/// another call holds the pool — a parallel_blocks nested in a body, or one from another thread —
/// and that call starts its own threads as before. Each process has its own pool: a forked child,
/// which inherits none of the parent's threads, makes a new one (the parent's, with whatever state
/// its locks had at the fork, is left untouched).
class Pool {
 public:
  explicit Pool(pid_t owner) : owner_(owner) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  pid_t owner() const { return owner_; }

  /// Runs `job` on `extra` pool threads and on the caller, and returns when all have returned
  /// (`job` must not throw); false, having run nothing, when the pool is busy.
  bool run(std::size_t extra, const std::function<void()>& job) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    if (threads_.size() < extra) {
      // The new threads block every signal (they inherit the mask they are started with), so a
      // signal such as Ctrl-C's goes to the caller's threads, as when no pool thread exists.
      sigset_t all, before;
      sigfillset(&all);
      pthread_sigmask(SIG_SETMASK, &all, &before);
      try {
        while (threads_.size() < extra) {
          const std::size_t index = threads_.size();
          threads_.emplace_back([this, index] { serve(index); });
        }
      } catch (...) {
        pthread_sigmask(SIG_SETMASK, &before, nullptr);
        throw;
      }
      pthread_sigmask(SIG_SETMASK, &before, nullptr);
    }
    // The job's pointer and count, then (released with them) its generation and the number of
    // threads it wants, in one word: a thread reads both at once. The next job cannot start
    // before every wanted thread has finished this one, so job_ stays valid for them.
    job_ = &job;
    running_.store(extra, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(m_);  // orders the store with a sleeper's predicate
      state_.store(
          (((state_.load(std::memory_order_relaxed) >> kWantedBits) + 1) << kWantedBits) | extra,
          std::memory_order_release);
    }
    wake_.notify_all();
    job();
    const auto finished = [this] { return running_.load(std::memory_order_acquire) == 0; };
    if (!spin_until(finished)) {
      std::unique_lock<std::mutex> lock(m_);
      done_.wait(lock, finished);
    }
    return true;
  }

 private:
  static constexpr int kWantedBits = 16;

  [[noreturn]] void serve(std::size_t index) {
    std::uint64_t seen = 0;  // the last generation this thread looked at
    for (;;) {
      const auto next = [&] {
        return (state_.load(std::memory_order_acquire) >> kWantedBits) != seen;
      };
      if (!spin_until(next)) {
        std::unique_lock<std::mutex> lock(m_);
        wake_.wait(lock, next);
      }
      const std::uint64_t s = state_.load(std::memory_order_acquire);
      seen = s >> kWantedBits;
      if (index >= (s & ((std::uint64_t{1} << kWantedBits) - 1))) continue;  // not wanted
      (*job_)();
      if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        { std::lock_guard<std::mutex> lock(m_); }  // the caller sleeps, or sees running_ == 0
        done_.notify_one();
      }
    }
  }

  const pid_t owner_;
  std::mutex busy_;  // held by the caller for its whole job
  std::mutex m_;     // for the sleepers of wake_ and done_
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void()>* job_ = nullptr;
  std::atomic<std::uint64_t> state_{0};  // generation << kWantedBits | threads wanted
  std::atomic<std::size_t> running_{0};  // wanted threads still in the job
};

/// At most this many pool threads: one fewer than the cores (the caller is the last); a call that
/// asks for more threads than cores starts its own, as a nested one does (spinning threads must
/// not outnumber the cores).
std::size_t pool_limit() {
  const std::size_t hw = std::thread::hardware_concurrency();
  return hw > 1 ? hw - 1 : 0;
}

/// This process's pool, made on first use (never destroyed: its threads wait until the process
/// exits, and no destructor may join them while static objects are torn down).
Pool& process_pool() {
  static std::atomic<Pool*> current{nullptr};
  const pid_t me = getpid();
  Pool* p = current.load(std::memory_order_acquire);
  if (p != nullptr && p->owner() == me) return *p;
  auto fresh = std::make_unique<Pool>(me);
  // null, or the parent's pool in a forked child (left as it is: its threads do not exist here)
  if (current.compare_exchange_strong(p, fresh.get(), std::memory_order_acq_rel)) {
    return *fresh.release();
  }
  return *p;  // another thread of this process made it first
}

}  // namespace

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
  } else if (nt - 1 > pool_limit() || !process_pool().run(nt - 1, worker)) {
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
