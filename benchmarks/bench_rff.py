"""ropelab's Monte-Carlo estimate against a straightforward NumPy implementation, in one process.

For the trig estimator (conjugate), D = 256:
  * projected mode (one scalar normal + one cos per feature), i.i.d. and orthogonal (ORF);
  * full mode, d ∈ {16, 64, 256} (a d-dimensional ω per feature).
Prints features/s of NumPy (single-threaded, as NumPy is) and of ropelab on 1 thread and on all
cores, the ratios, the speed-up all/1, ropelab's fraction of the bound of bench_limit.py (one
normal + one cos per feature, measured here too) for projected mode, the ORF/i.i.d. cost ratio,
and the cost per feature vs D·trials (linearity). Every time is the best of --repeat runs (the
machine is shared). Not a test: ``python benchmarks/bench_rff.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, header, trig_bound

import ropelab as rl


def numpy_projected(q: np.ndarray, k: np.ndarray, D: int, sigma: float, trials: int, seed: int) -> np.ndarray:
    """What a user writes: ω·(q−k) ~ N(0, σ²‖q−k‖²), vectorised over trials × D."""
    rng = np.random.default_rng(seed)
    amp = np.exp((q @ q + k @ k) / 2)
    s = sigma * np.linalg.norm(q - k)
    out = np.empty(trials)
    chunk = max(1, 2**20 // D)
    for i in range(0, trials, chunk):
        n = min(chunk, trials - i)
        out[i : i + n] = amp * np.cos(s * rng.standard_normal((n, D))).mean(axis=1)
    return out


def numpy_projected_orf(q: np.ndarray, k: np.ndarray, D: int, sigma: float, trials: int, seed: int) -> np.ndarray:
    """The same O(d)-per-block ORF shortcut in NumPy: σ‖u‖ χ_r z_r/‖z‖ per block of d rows."""
    rng = np.random.default_rng(seed)
    d = q.size
    amp = np.exp((q @ q + k @ k) / 2)
    s = sigma * np.linalg.norm(q - k)
    nb = -(-D // d)
    out = np.empty(trials)
    chunk = max(1, 2**20 // (nb * d))
    for i in range(0, trials, chunk):
        n = min(chunk, trials - i)
        z = rng.standard_normal((n, nb, d))
        z /= np.linalg.norm(z, axis=2, keepdims=True)
        chi = np.sqrt(rng.chisquare(d, (n, nb, d)))
        x = (s * chi * z).reshape(n, nb * d)[:, :D]
        out[i : i + n] = amp * np.cos(x).mean(axis=1)
    return out


def numpy_full(q: np.ndarray, k: np.ndarray, D: int, sigma: float, trials: int, seed: int) -> np.ndarray:
    """What a user writes: rng.standard_normal((trials, D, d)) @ (q − k), chunked to fit memory."""
    rng = np.random.default_rng(seed)
    d = q.size
    amp = np.exp((q @ q + k @ k) / 2)
    u = sigma * (q - k)
    out = np.empty(trials)
    chunk = max(1, 2**20 // (D * d))
    for i in range(0, trials, chunk):
        n = min(chunk, trials - i)
        out[i : i + n] = amp * np.cos(rng.standard_normal((n, D, d)) @ u).mean(axis=1)
    return out


def peak_rss_mib(trials: int, mode: str) -> float:
    """Peak resident memory (MiB) of a fresh process running one estimate."""
    code = (
        "import resource, numpy as np, ropelab as rl\n"
        "q = np.linspace(-1, 1, 64) / 8\n"
        f"rl.rff.estimate(q, q[::-1], 256, trials={trials}, seed=1, mode='{mode}')\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1]) / 1024


def wall_and_cpu(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(wall, process CPU time of all threads) of the run with the smallest wall time."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t = time.perf_counter()
        fn()
        wall = time.perf_counter() - t
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        best = min(best, (wall, cpu))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="fewer trials (a smoke run)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs (default 5)")
    args = ap.parse_args()
    scale = 0.1 if args.quick else 1.0
    rep = args.repeat
    rng = np.random.default_rng(0)
    cores = os.cpu_count() or 1
    print(header())
    _, _, bound_all = trig_bound(None, int(2**24 * scale), rep)
    print(f"bound (one normal + one cos per feature, all cores): {bound_all:.3e} features/s")
    print(
        f"{'case':28s} {'numpy feat/s':>13s} {'rl 1 thr':>11s} {'rl all':>11s} {'ratio 1thr':>10s} "
        f"{'ratio all':>9s} {'speedup':>7s} {'of bound':>8s}"
    )
    D = 256
    cases = [
        ("projected, i.i.d., D=256", "projected", False, 64, int(40000 * scale), numpy_projected),
        ("projected, ORF d=64, D=256", "projected", True, 64, int(40000 * scale), numpy_projected_orf),
    ]
    cases += [
        (f"full, d={d}, D=256", "full", False, d, int(n * scale), numpy_full)
        for d, n in ((16, 8000), (64, 2000), (256, 500))
    ]
    rates = {}
    for name, mode, orth, d, trials, np_fn in cases:
        q, k = rng.standard_normal((2, d)) / np.sqrt(d)
        feats = trials * D
        t_np = best_of(lambda: np_fn(q, k, D, 1.0, trials, 1), max(2, rep // 2))
        est = lambda nt: rl.rff.estimate(q, k, D, 1.0, trials=trials, seed=1, mode=mode, orthogonal=orth, nthreads=nt)  # noqa: E731
        t_1 = best_of(lambda: est(1), rep)
        t_all = best_of(lambda: est(None), rep)
        rates[name] = feats / t_all
        frac = f"{feats / t_all / bound_all:8.0%}" if mode == "projected" else f"{'':8s}"
        print(
            f"{name:28s} {feats / t_np:13.3e} {feats / t_1:11.3e} {feats / t_all:11.3e} {t_np / t_1:10.2f} "
            f"{t_np / t_all:9.2f} {t_1 / t_all:7.2f} {frac}"
        )
    iid, orf = rates["projected, i.i.d., D=256"], rates["projected, ORF d=64, D=256"]
    print(f"ORF / i.i.d. cost per feature (projected, all cores): {iid / orf:.2f}x")

    print("\nscaling, nthreads 1 vs 2: wall-clock speed-up, and the CPU time the process got (all threads;")
    print("cpu/wall ≈ 2 only when both cores are free) and the work per CPU-second relative to 1 thread")
    for name, mode, d, trials in (
        ("projected, D=256", "projected", 64, int(80000 * scale)),
        ("full, d=64, D=256", "full", 64, int(4000 * scale)),
    ):
        q, k = rng.standard_normal((2, d)) / np.sqrt(d)
        res = {}
        for nt in (1, 2):
            res[nt] = wall_and_cpu(
                lambda: rl.rff.estimate(q, k, 256, 1.0, trials=trials, seed=1, mode=mode, nthreads=nt), rep
            )
        (w1, c1), (w2, c2) = res[1], res[2]
        print(
            f"  {name:20s} speed-up {w1 / w2:5.2f}   cpu/wall 1 thr {c1 / w1:4.2f}, 2 thr {c2 / w2:4.2f}"
            f"   work per CPU-second (2 thr / 1 thr) {c1 / c2:4.2f}"
        )

    print(f"\nlinearity: projected trig, all cores ({cores}), ns per feature vs D·trials")
    q, k = rng.standard_normal((2, 64)) / 8
    base = int(20000 * scale)
    for D_, trials in ((64, 4 * base), (256, base), (1024, base // 4), (256, 4 * base), (4096, base)):
        t = best_of(lambda: rl.rff.estimate(q, k, D_, 1.0, trials=trials, seed=1), rep)
        print(f"  D={D_:5d} trials={trials:7d}  D·trials={D_ * trials:.2e}  {t / (D_ * trials) * 1e9:6.3f} ns/feature")

    print("\npeak memory (fresh process, D=256, d=64): grows only by the 8-byte-per-trial output")
    for mode, counts in (("projected", (10_000, 1_000_000)), ("full", (1_000, 20_000))):
        for trials in counts:
            print(
                f"  {mode:9s} trials={trials:8d}  peak RSS {peak_rss_mib(trials, mode):7.1f} MiB"
                f"  (output {8 * trials / 2**20:6.2f} MiB)"
            )


if __name__ == "__main__":
    main()
