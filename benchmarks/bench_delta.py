"""Benchmark (not a test): ropelab's delta-rule recurrences against a NumPy loop.

Run ``python benchmarks/bench_delta.py``. Both sides compute the same outputs in one process on
the same inputs (checked to agree to 1e-10 relative), then the script prints the best-of-N wall
time and CPU time of each and the ratio NumPy / ropelab (> 1: ropelab is faster), for ropelab on
one thread (``nthreads=1``) and on all cores (the default: the rows of the state are split over the
threads).

The NumPy baseline is the recurrence a user would write: a T-step Python loop whose body is
vectorised NumPy (the state update S ← α S, S ← S + β (v − S k̃) k̃ᵀ as a matrix-vector product and
a rank-one update, the read S q̃), with the Selective RoPE pre-rotation of k and q done once,
vectorised, before the loop (np.cos/np.sin over the whole phase array, as a user would). A second,
tuned loop (preallocated buffers with ``out=``, gates as Python floats: the same arithmetic) is
timed as well, so the ratio is also shown against the fastest loop found, not only the plain one.

The load average (1, 5, 15 minutes) is printed before and after: the machine is shared, and a
ratio measured under load says more about the load than about the code. ropelab's calls are short
(a few ms), so they are repeated more often than the loop's (best of 20 against best of 3).
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import best_of, header

import ropelab as rl

T, D, DV = 4096, 64, 64


def numpy_delta(q, k, v, beta, angles, gates):  # type: ignore[no-untyped-def]
    c, s = np.cos(angles), np.sin(angles)

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
        if gates is not None:
            S *= gates[t]
        u = beta[t] * (v[t] - S @ kr[t])
        S += np.outer(u, kr[t])
        out[t] = S @ qr[t]
    return out


def numpy_delta_tuned(q, k, v, beta, angles, gates):  # type: ignore[no-untyped-def]
    """numpy_delta with preallocated buffers (``out=``) and the gates as Python floats."""
    c, s = np.cos(angles), np.sin(angles)

    def rot(x):  # type: ignore[no-untyped-def]
        out = np.empty_like(x)
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
        return out

    kr, qr = rot(k), rot(q)
    S = np.zeros((v.shape[1], q.shape[1]))
    out = np.empty((q.shape[0], v.shape[1]))
    u, outer = np.empty(v.shape[1]), np.empty_like(S)
    al = gates.tolist() if gates is not None else None
    be = beta.tolist()
    for t in range(q.shape[0]):
        if al is not None:
            S *= al[t]
        kt = kr[t]
        np.dot(S, kt, out=u)
        np.subtract(v[t], u, out=u)
        u *= be[t]
        np.multiply.outer(u, kt, out=outer)
        S += outer
        np.dot(S, qr[t], out=out[t])
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
    beta, gates = rng.uniform(0, 2, T), rng.uniform(0.9, 1, T)
    angles = rl.rotary.cumulative_angles(rng.uniform(-0.1, 0.1, (T, D // 2)))
    ours = rl.recurrence.delta_rule(q, k, v, beta, angles, gates)
    ref = numpy_delta(q, k, v, beta, angles, gates)
    err = float(np.abs(ours - ref).max() / np.abs(ref).max())
    assert err < 1e-10, err
    assert np.array_equal(numpy_delta_tuned(q, k, v, beta, angles, gates), ref)
    assert np.array_equal(rl.recurrence.delta_rule(q, k, v, beta, angles, gates, nthreads=1), ours)
    nthreads = int(os.environ.get("ROPELAB_NUM_THREADS") or os.cpu_count() or 1)
    print(f"gated delta rule + Selective RoPE, T={T}, d={D}, dv={DV} (one sequence, float64; agree to {err:.1e})")
    loops = {
        "NumPy loop": lambda: numpy_delta(q, k, v, beta, angles, gates),
        "tuned loop": lambda: numpy_delta_tuned(q, k, v, beta, angles, gates),
    }
    base = {name: (best_of(fn, 3), best_cpu(fn, 3)) for name, fn in loops.items()}
    for name, (w, c) in base.items():
        print(f"  {name:10s}            wall {w * 1e3:8.2f} ms   CPU {c * 1e3:8.2f} ms")
    # CPU time is summed over the threads: a ratio of CPU times compares work, not speed, so it is
    # printed for nthreads=1 only
    for label, nt in (("nthreads=1", 1), (f"default ({nthreads} threads)", None)):
        fn = lambda nt=nt: rl.recurrence.delta_rule(q, k, v, beta, angles, gates, nthreads=nt)  # noqa: E731
        w, c = best_of(fn, 20), best_cpu(fn, 20)
        ratios = "   ".join(
            f"vs {name}: wall {bw / w:5.1f}x" + (f"  CPU {bc / c:5.1f}x" if nt == 1 else "")
            for name, (bw, bc) in base.items()
        )
        print(f"  ropelab {label:22s} wall {w * 1e3:8.2f} ms   CPU {c * 1e3:8.2f} ms   {ratios}")
    t_np = base["NumPy loop"][0]
    for path in rl.simd.available():
        with rl.simd.using(path):  # type: ignore[arg-type]
            t_path = best_of(lambda: rl.recurrence.delta_rule(q, k, v, beta, angles, gates, nthreads=1), 10)
        print(f"    SIMD path {path:7s} (nthreads=1): {t_path * 1e3:8.2f} ms   ratio {t_np / t_path:6.1f}x")
    # a batch of 8 sequences: the core spreads them over the threads
    B = 8
    qb, kb = np.broadcast_to(q, (B, T, D)).copy(), np.broadcast_to(k, (B, T, D)).copy()
    vb, bb = np.broadcast_to(v, (B, T, DV)).copy(), np.broadcast_to(beta, (B, T)).copy()
    t_batch = best_of(lambda: rl.recurrence.delta_rule(qb, kb, vb, bb, angles, None), 5)
    t_np_batch = B * best_of(lambda: numpy_delta(q, k, v, beta, angles, None), 1)
    print(
        f"  batch of {B}: ropelab {t_batch * 1e3:8.2f} ms   NumPy loop (x{B}) {t_np_batch * 1e3:8.2f} ms   "
        f"ratio {t_np_batch / t_batch:6.1f}x"
    )
    print(load())


if __name__ == "__main__":
    main()
