"""ropelab.attention against straightforward NumPy implementations, in one process.

* causal random-feature attention (trig, T = 4096, d = 64, D = 256, d_v = 64, float64):
  NumPy computes the features with BLAS (``X @ ω.T``, ``cos``/``sin``) and the causal sums with
  chunked prefix sums (chunks of 64 rows: ``φ_q S + tril(φ_q φ_kᵀ) V`` then ``S += φ_kᵀ V``),
  the same O(D·d_v) algorithm as ropelab;
* exact causal softmax attention (T = 4096, d = 64, float64): NumPy builds the masked T×T logits,
  subtracts the row maxima, ``exp``, normalises and multiplies by V (BLAS).

NumPy runs twice: with its BLAS's default threads and with one BLAS thread (set in-process through
the bundled OpenBLAS's ``*_set_num_threads`` symbol when found): multithreaded OpenBLAS on small
matrices slows down sharply on a loaded machine, so the faster of the two is the baseline.
Prints the best-of-``--repeat`` wall times, the ratios best-NumPy/ropelab, ropelab on 1 thread and on
all cores, the process CPU/wall ratio and the load average (the machine is shared: the figures
are only comparable at a low load); then CPU seconds, which depend much less on the load: NumPy
(one BLAS thread) against ropelab on one thread and against ropelab's all-thread total divided by
the cores (the wall time on idle cores if the threads never wait). Checks that both implementations agree before timing.
Not a test: ``python benchmarks/bench_attention.py [--repeat N] [--T T]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, header


def best_cpu(fn: Callable[[], object], repeat: int) -> float:
    """Best process CPU time of `repeat` calls: for single-threaded runs it is robust to other
    processes' load, which only stretches the wall time."""
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


import ropelab as rl  # noqa: E402

CHUNK = 64


def blas_thread_setter() -> Callable[[int], None] | None:
    """A function setting the thread count of NumPy's bundled OpenBLAS, or None."""
    import ctypes
    import glob

    libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))
    for path in libs:
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.argtypes = [ctypes.c_int]
                return lambda n, fn=fn: fn(n)
    return None


def numpy_rff_causal(q: np.ndarray, k: np.ndarray, v: np.ndarray, omega: np.ndarray, scale: float) -> np.ndarray:
    """Trig random-feature causal attention with chunked prefix sums (stabilised key amplitudes)."""
    T, _ = q.shape
    D = omega.shape[0]
    w = np.sqrt(scale) * omega

    def feats(x: np.ndarray, shift: np.ndarray | float) -> np.ndarray:
        p = x @ w.T
        amp = np.exp(0.5 * scale * (x * x).sum(1) - shift) / np.sqrt(D)
        return np.concatenate([np.cos(p), np.sin(p)], axis=1) * amp[:, None]

    hk = 0.5 * scale * (k * k).sum(1)
    mk = np.maximum.accumulate(hk)  # running key maximum (as ropelab)
    hq = 0.5 * scale * (q * q).sum(1)
    out = np.empty_like(v)
    S = np.zeros((2 * D, v.shape[1]))
    z = np.zeros(2 * D)
    m = -np.inf
    for c in range(0, T, CHUNK):
        sl = slice(c, min(T, c + CHUNK))
        mc = mk[sl.stop - 1]
        if m > -np.inf:
            f = np.exp(m - mc)
            S *= f
            z *= f
        m = mc
        fk = feats(k[sl], m)
        fq = feats(q[sl], hq[sl])
        A = np.tril(fq @ fk.T)
        num = fq @ S + A @ v[sl]
        den = fq @ z + A.sum(1)
        out[sl] = num / den[:, None]
        S += fk.T @ v[sl]
        z += fk.sum(0)
    return out


def numpy_softmax_causal(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    T = q.shape[0]
    logits = scale * (q @ k.T)
    logits[np.triu_indices(T, 1)] = -np.inf
    logits -= logits.max(1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(1, keepdims=True)
    return logits @ v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--T", type=int, default=4096)
    ap.add_argument("--D", type=int, default=256)
    args = ap.parse_args()
    print(header())
    T, d, D = args.T, 64, args.D
    rng = np.random.default_rng(0)
    q, k, v = 0.5 * rng.standard_normal((3, T, d))
    scale = 1 / np.sqrt(d)
    omega = rl.rff.sample_omega(D, d, 1.0, seed=7)
    ncores = os.cpu_count() or 1

    ref = numpy_rff_causal(q, k, v, omega, scale)
    got = rl.attention.random_feature(q, k, v, D, seed=7)
    assert np.allclose(got, ref, rtol=1e-8, atol=1e-8 * np.abs(ref).max()), np.abs(got - ref).max()
    ref_s = numpy_softmax_causal(q, k, v, scale)
    assert np.allclose(rl.attention.softmax(q, k, v), ref_s, rtol=0, atol=1e-12)

    set_blas = blas_thread_setter()
    rows = []
    cpu_rows = []
    for name, f_np, f_rl in (
        (
            f"random_feature trig causal T={T} d={d} D={D}",
            lambda: numpy_rff_causal(q, k, v, omega, scale),
            lambda n: rl.attention.random_feature(q, k, v, D, seed=7, nthreads=n),
        ),
        (
            f"softmax causal T={T} d={d}",
            lambda: numpy_softmax_causal(q, k, v, scale),
            lambda n: rl.attention.softmax(q, k, v, nthreads=n),
        ),
    ):
        load0 = os.getloadavg()[0]
        t_np_default = best_of(f_np, args.repeat)
        t_np_one = float("nan")
        cpu_np_one = float("nan")
        if set_blas is not None:
            set_blas(1)
            t_np_one = best_of(f_np, args.repeat)
            cpu_np_one = best_cpu(f_np, args.repeat)
            set_blas(ncores)
        cpu_rl_one = best_cpu(lambda: f_rl(1), args.repeat)
        cpu_rl_all = best_cpu(lambda: f_rl(None), args.repeat)  # all threads' CPU seconds together
        t_np = min(t_np_default, t_np_one) if set_blas is not None else t_np_default
        t_1 = best_of(lambda: f_rl(1), args.repeat)
        c0, w0 = time.process_time(), time.perf_counter()
        t_all = best_of(lambda: f_rl(None), args.repeat)
        cpu_wall = (time.process_time() - c0) / (time.perf_counter() - w0)
        rows.append((name, t_np_default, t_np_one, t_np, t_1, t_all, cpu_wall, (load0 + os.getloadavg()[0]) / 2))
        cpu_rows.append((name, cpu_np_one, cpu_rl_one, cpu_rl_all))
    print(
        f"{'case':44s} {'np BLAS-nT':>10s} {'np BLAS-1T':>10s} {'rl 1T s':>9s} {'rl all s':>9s} {'np/rl1':>7s} "
        f"{'np/all':>7s} {'cpu/wall':>8s} {'load':>5s}"
    )
    for name, t_d, t_o, t_np, t_1, t_all, cw, load in rows:
        print(
            f"{name:44s} {t_d:10.4f} {t_o:10.4f} {t_1:9.4f} {t_all:9.4f} {t_np / t_1:7.2f} {t_np / t_all:7.2f} "
            f"{cw:8.2f} {load:5.1f}"
        )
    print("(ratios against the faster NumPy column)")
    print("single-thread CPU seconds (load-independent): NumPy with 1 BLAS thread vs ropelab nthreads=1")
    for name, c_np, c_rl, _ in cpu_rows:
        print(f"{name:44s} numpy {c_np:8.4f}  ropelab {c_rl:8.4f}  numpy/ropelab {c_np / c_rl:5.2f}")
    print(
        f"ropelab on all {ncores} threads: total CPU seconds, and the wall time it implies on {ncores} idle cores "
        "(CPU / cores: an estimate, exact only without load)"
    )
    for name, c_np, _, c_all in cpu_rows:
        print(
            f"{name:44s} CPU {c_all:8.4f}  idle-wall estimate {c_all / ncores:8.4f}  "
            f"numpy(1 BLAS thread)/estimate {c_np * ncores / c_all:5.2f}"
        )
    print(f"(all = {ncores} threads; NumPy's BLAS may use several threads itself)")


if __name__ == "__main__":
    main()
