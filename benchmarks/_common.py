"""Shared helpers of the benchmark scripts (timing, the NumPy baselines)."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable

import numpy as np

import ropelab as rl


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Best (smallest) wall time of `repeat` calls: the machine is shared, so the minimum is the
    least disturbed run."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def best_of_interleaved(fns: list[Callable[[], object]], repeat: int, pause: float = 0.2) -> list[float]:
    """Best wall time of each of `fns` over `repeat` rounds, one call of each per round: a machine
    whose speed drifts over seconds (a shared host) slows every contender alike, so their ratio
    is not biased by which one ran first. A pause of `pause` seconds (untimed) before each call
    lets the previous contender's idle threads stop spinning (an OpenMP runtime's worker threads
    keep polling for a while after a parallel region and would take cores from the next call)."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            time.sleep(pause)
            t = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t)
    return best


def timed(fn: Callable[[], object], repeat: int = 3) -> tuple[float, object]:
    """(best wall time of `repeat` calls, the last call's result)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def header() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (
        f"ropelab {rl.__version__} (SIMD path: {rl.simd.isa()}, available: {', '.join(rl.simd.available())}), "
        f"numpy {np.__version__}, {os.cpu_count()} cores, {cpu}"
    )


def trig_bound(nthreads: int | None, n: int, repeat: int) -> tuple[float, float, float]:
    """(normals/s, cos/s, bound features/s) of the library primitives: a projected trig feature
    costs at least one normal and one cos."""
    nr = rl.simd.primitive_rate("normal", n=n, nthreads=nthreads, repeat=repeat)
    cr = rl.simd.primitive_rate("cos", n=n, nthreads=nthreads, repeat=repeat)
    return nr, cr, 1.0 / (1.0 / nr + 1.0 / cr)
