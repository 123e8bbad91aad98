#include <gtest/gtest.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "ropelab/montecarlo.hpp"
#include "ropelab/rng.hpp"

using ropelab::rng::Stream;
using ropelab::rng::StreamId;

TEST(Rng, SameAddressSameNumbers) {
  Stream a(42, StreamId::omega, 7), b(42, StreamId::omega, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.normal(), b.normal());
}

TEST(Rng, DifferentAddressesDiffer) {
  Stream a(42, StreamId::omega, 7), b(42, StreamId::omega, 8), c(43, StreamId::omega, 7),
      d(42, StreamId::phase, 7);
  const double x = a.normal();
  EXPECT_NE(x, b.normal());
  EXPECT_NE(x, c.normal());
  EXPECT_NE(x, d.normal());
}

TEST(Rng, UniformsInOpenInterval) {
  EXPECT_GT(ropelab::rng::to_open_unit(0), 0.0);
  EXPECT_LT(ropelab::rng::to_open_unit(~0ULL), 1.0);
}

TEST(Rng, NormalMoments) {
  // 4e5 normals: mean SE = 1/sqrt(n) ~ 1.6e-3, variance SE = sqrt(2/n) ~ 2.2e-3; allow 5 SE.
  Stream s(1, StreamId::projected, 0);
  const int n = 400000;
  double m = 0, m2 = 0, m4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = s.normal();
    m += z;
    m2 += z * z;
    m4 += z * z * z * z;
  }
  m /= n;
  m2 /= n;
  m4 /= n;
  EXPECT_LT(std::fabs(m), 5.0 / std::sqrt(n));
  EXPECT_LT(std::fabs(m2 - 1.0), 5.0 * std::sqrt(2.0 / n));
  EXPECT_LT(std::fabs(m4 - 3.0), 5.0 * std::sqrt(96.0 / n));  // Var[z^4] = 105 - 9 = 96
}

TEST(MonteCarlo, CoversEveryIndexOnceForAnyThreadCount) {
  for (int threads : {1, 2, 3, 8}) {
    for (std::size_t block : {1, 7, 64}) {
      std::vector<int> hits(1000, 0);
      ropelab::mc::parallel_blocks(
          hits.size(), block, threads,
          [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i) ++hits[i];
          },
          nullptr);
      for (int h : hits) ASSERT_EQ(h, 1);
    }
  }
}

TEST(MonteCarlo, CancelThrows) {
  std::atomic<bool> cancel{true};
  EXPECT_THROW(ropelab::mc::parallel_blocks(
                   10, 1, 2, [](std::size_t, std::size_t) {}, &cancel),
               ropelab::mc::Cancelled);
}

TEST(MonteCarlo, WorkerExceptionPropagates) {
  EXPECT_THROW(ropelab::mc::parallel_blocks(
                   100, 1, 2,
                   [](std::size_t b, std::size_t) {
                     if (b == 50) throw std::runtime_error("boom");
                   },
                   nullptr),
               std::runtime_error);
}

#if defined(__linux__)  // kernel thread ids
TEST(MonteCarlo, ThreadsAreKeptBetweenCalls) {
  // The kernel thread ids (never reused soon, unlike std::thread::id) that run the blocks of a
  // call on as many threads as cores (at most 4; the pool keeps no more threads than cores): each
  // block waits until every thread has started one, so every thread takes part.
  const std::size_t n = std::min<std::size_t>(4, std::thread::hardware_concurrency());
  if (n < 2) GTEST_SKIP() << "one core: no pool";
  const auto thread_ids = [n] {
    std::mutex m;
    std::set<long> seen;
    ropelab::mc::parallel_blocks(
        n, 1, static_cast<int>(n),
        [&](std::size_t, std::size_t) {
          const auto arrived = [&] {
            std::lock_guard<std::mutex> lock(m);
            return seen.size() == n;
          };
          {
            std::lock_guard<std::mutex> lock(m);
            seen.insert(static_cast<long>(syscall(SYS_gettid)));
          }
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (!arrived() && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        },
        nullptr);
    return seen;
  };
  const std::set<long> first = thread_ids();
  ASSERT_EQ(first.size(), n);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(thread_ids(), first);  // the same threads every call
}
#endif

TEST(MonteCarlo, NestedAndConcurrentCallsCoverEveryIndex) {
  // A body that calls parallel_blocks itself finds the pool busy and starts its own threads;
  // two threads calling at once likewise.
  std::vector<std::atomic<int>> hits(64 * 64);
  const auto outer = [&] {
    ropelab::mc::parallel_blocks(
        64, 1, 3,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i) {
            ropelab::mc::parallel_blocks(
                64, 5, 2,
                [&](std::size_t b2, std::size_t e2) {
                  for (std::size_t j = b2; j < e2; ++j) ++hits[i * 64 + j];
                },
                nullptr);
          }
        },
        nullptr);
  };
  std::thread other(outer);
  outer();
  other.join();
  for (const auto& h : hits) ASSERT_EQ(h.load(), 2);
}

TEST(ChiZigguratPieces, FastIntervalIsRoundedInwards) {
  const long double lo = -0.3L, hi = 0.7L, margin = 1e-12L;
  const std::uint64_t packed = ropelab::rng::detail::pack_fast_interval(lo, hi, margin);
  float lo_f = 0, hi_f = 0;
  const auto l32 = static_cast<std::uint32_t>(packed & 0xFFFFFFFFull);
  const auto h32 = static_cast<std::uint32_t>(packed >> 32);
  std::memcpy(&lo_f, &l32, 4);
  std::memcpy(&hi_f, &h32, 4);
  EXPECT_GE(static_cast<long double>(lo_f), lo + margin);
  EXPECT_LE(static_cast<long double>(hi_f), hi - margin);
  // and only just: the next float outwards is outside.
  EXPECT_LT(static_cast<long double>(std::nextafter(lo_f, -2.0f)), lo + margin);
  EXPECT_GT(static_cast<long double>(std::nextafter(hi_f, 2.0f)), hi - margin);
  // An empty interval stays empty (the top box).
  const std::uint64_t top = ropelab::rng::detail::pack_fast_interval(1.0L, -1.0L, 0);
  std::memcpy(&lo_f, &top, 4);
  EXPECT_EQ(lo_f, 1.0f);
}
