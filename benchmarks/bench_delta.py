"""Benchmark (not a test): ropelab's delta-rule recurrences against a NumPy loop.

Run ``python benchmarks/bench_delta.py``. Both sides compute the same outputs in one process on
the same inputs (checked to agree to 1e-10 relative), then the script prints the best-of-N wall
time of each and the ratio NumPy / ropelab (> 1: ropelab is faster).

The NumPy baseline is the recurrence a user would write: a T-step Python loop whose body is
vectorised NumPy (the state update S ← α S, S ← S + β (v − S k̃) k̃ᵀ as a matrix-vector product and
a rank-one update, the read S q̃), with the Selective RoPE pre-rotation of k and q done once,
vectorised, before the loop (np.cos/np.sin over the whole phase array, as a user would).

The load average (1, 5, 15 minutes) is printed before and after: the machine is shared, and a
ratio measured under load says more about the load than about the code.
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import best_of, header

import ropelab as rl

T, D, DV = 4096, 64, 64


def numpy_delta(q, k, v, beta, alpha, psi):  # type: ignore[no-untyped-def]
    c, s = np.cos(psi), np.sin(psi)

    def rot(x):  # type: ignore[no-untyped-def]
        out = np.empty_like(x)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
        return out

    kr, qr = rot(k), rot(q)
    S = np.zeros((v.shape[1], q.shape[1]))
    out = np.empty((q.shape[0], v.shape[1]))
    for t in range(q.shape[0]):
        if alpha is not None:
            S *= alpha[t]
        u = beta[t] * (v[t] - S @ kr[t])
        S += np.outer(u, kr[t])
        out[t] = S @ qr[t]
    return out


def best_cpu(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """Best CPU time (this process, all threads) of `repeat` calls: on a loaded machine the wall
    time includes the time the process waited for a core, the CPU time does not."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    print(header())
    print(load())
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, T, D))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal((T, DV))
    beta, alpha = rng.uniform(0, 2, T), rng.uniform(0.9, 1, T)
    psi = rl.rotary.cumulative_phase(rng.uniform(-0.1, 0.1, (T, D // 2)))
    ours = rl.recurrence.delta_rule(q, k, v, beta, alpha, psi)
    ref = numpy_delta(q, k, v, beta, alpha, psi)
    err = float(np.abs(ours - ref).max() / np.abs(ref).max())
    assert err < 1e-10, err
    t_ours = best_of(lambda: rl.recurrence.delta_rule(q, k, v, beta, alpha, psi), 5)
    t_np = best_of(lambda: numpy_delta(q, k, v, beta, alpha, psi), 3)
    print(f"gated delta rule + Selective RoPE, T={T}, d={D}, dv={DV} (one sequence, float64; agree to {err:.1e})")
    print(f"  ropelab {t_ours * 1e3:8.2f} ms   NumPy loop {t_np * 1e3:8.2f} ms   ratio {t_np / t_ours:6.1f}x  (wall)")
    c_ours = best_cpu(lambda: rl.recurrence.delta_rule(q, k, v, beta, alpha, psi, nthreads=1), 7)
    c_np = best_cpu(lambda: numpy_delta(q, k, v, beta, alpha, psi), 3)
    print(
        f"  ropelab {c_ours * 1e3:8.2f} ms   NumPy loop {c_np * 1e3:8.2f} ms   ratio {c_np / c_ours:6.1f}x  (CPU time)"
    )
    for path in rl.simd.available():
        with rl.simd.using(path):  # type: ignore[arg-type]
            t_path = best_of(lambda: rl.recurrence.delta_rule(q, k, v, beta, alpha, psi), 5)
        print(f"    SIMD path {path:7s}: {t_path * 1e3:8.2f} ms   ratio {t_np / t_path:6.1f}x")
    # a batch of 8 sequences: the core spreads them over the threads
    B = 8
    qb, kb = np.broadcast_to(q, (B, T, D)).copy(), np.broadcast_to(k, (B, T, D)).copy()
    vb, bb = np.broadcast_to(v, (B, T, DV)).copy(), np.broadcast_to(beta, (B, T)).copy()
    t_batch = best_of(lambda: rl.recurrence.delta_rule(qb, kb, vb, bb, None, psi), 3)
    t_np_batch = B * best_of(lambda: numpy_delta(q, k, v, beta, None, psi), 1)
    print(
        f"  batch of {B}: ropelab {t_batch * 1e3:8.2f} ms   NumPy loop (x{B}) {t_np_batch * 1e3:8.2f} ms   "
        f"ratio {t_np_batch / t_batch:6.1f}x"
    )
    print(load())


if __name__ == "__main__":
    main()
