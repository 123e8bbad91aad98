"""ropelab's Monte-Carlo estimate against a straightforward NumPy implementation, in one process.

Prints features/s for both and their ratio (ropelab / NumPy), for the trig estimator in projected
mode (one scalar normal per feature) and full mode (a d-dimensional ω per feature), with ropelab on
one thread and on all cores. Not a test: run ``python benchmarks/bench_rff.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

import ropelab as rl


def best_of(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def numpy_projected(q: np.ndarray, k: np.ndarray, D: int, sigma: float, trials: int, seed: int) -> np.ndarray:
    """What a user writes: ω·(q−k) ~ N(0, σ²‖q−k‖²), vectorised over trials × D."""
    rng = np.random.default_rng(seed)
    amp = np.exp((q @ q + k @ k) / 2)
    s = sigma * np.linalg.norm(q - k)
    out = np.empty(trials)
    chunk = max(1, 2**22 // D)
    for i in range(0, trials, chunk):
        n = min(chunk, trials - i)
        out[i : i + n] = (amp * np.cos(s * rng.standard_normal((n, D)))).mean(axis=1)
    return out


def numpy_full(q: np.ndarray, k: np.ndarray, D: int, sigma: float, trials: int, seed: int) -> np.ndarray:
    """What a user writes: rng.standard_normal((trials, D, d)) @ (q − k), chunked to fit memory."""
    rng = np.random.default_rng(seed)
    d = q.size
    amp = np.exp((q @ q + k @ k) / 2)
    u = sigma * (q - k)
    out = np.empty(trials)
    chunk = max(1, 2**22 // (D * d))
    for i in range(0, trials, chunk):
        n = min(chunk, trials - i)
        out[i : i + n] = (amp * np.cos(rng.standard_normal((n, D, d)) @ u)).mean(axis=1)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer trials (a smoke run)")
    args = ap.parse_args()
    scale = 0.1 if args.quick else 1.0
    rng = np.random.default_rng(0)
    cores = os.cpu_count() or 1
    print(f"ropelab {rl.__version__}, numpy {np.__version__}, {cores} cores")
    print(f"{'case':34s} {'numpy feat/s':>14s} {'ropelab 1 thr':>14s} {'ropelab all':>14s} {'ratio 1thr':>10s} {'ratio all':>10s}")
    cases = [("projected, d=64, D=256", "projected", 64, 256, int(40000 * scale))]
    cases += [(f"full, d={d}, D=256", "full", d, 256, int(n * scale)) for d, n in ((16, 8000), (64, 2000), (256, 500))]
    for name, mode, d, D, trials in cases:
        q, k = rng.standard_normal((2, d)) / np.sqrt(d)
        feats = trials * D
        np_fn = numpy_projected if mode == "projected" else numpy_full
        t_np = best_of(lambda: np_fn(q, k, D, 1.0, trials, 1), 3)
        t_1 = best_of(lambda: rl.rff.estimate(q, k, D, 1.0, trials=trials, seed=1, mode=mode, nthreads=1), 3)
        t_all = best_of(lambda: rl.rff.estimate(q, k, D, 1.0, trials=trials, seed=1, mode=mode), 3)
        print(f"{name:34s} {feats / t_np:14.3e} {feats / t_1:14.3e} {feats / t_all:14.3e} "
              f"{t_np / t_1:10.2f} {t_np / t_all:10.2f}")


if __name__ == "__main__":
    main()
