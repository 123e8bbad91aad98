"""Benchmark (not a test): ropelab's rotate and selective_rope_attention against NumPy.

Run ``python benchmarks/bench_recurrence.py``. Both sides compute the same quantity in one process
on the same inputs; the script checks that they agree, then prints the best-of-N wall time of
each and the ratio NumPy / ropelab (> 1 means ropelab is faster).

NumPy baselines are the straightforward vectorised versions a user would write:

* rotate: cos/sin of the angles, then the pairwise products (interleaved and half layouts);
* selective_rope_attention, pre-rotated: rotate q and k by C_t, then causal linear attention
  as a masked (T × T) score matrix times v (BLAS matmuls);
* selective_rope_attention, recurrent: the state recurrence S_t = S_{t−1} A_t + v_t k_tᵀ with the
  2×2 blocks of A_t = C_{t−1}ᵀ Λ_t C_t applied by vectorised NumPy per step (a T-step Python loop).
"""

from __future__ import annotations

import time

import numpy as np

import ropelab as rl

T, D, DV = 4096, 64, 64


def best_time(fn, repeat: int = 9) -> float:
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def np_rotate(x: np.ndarray, angles: np.ndarray, layout: str) -> np.ndarray:
    c, s = np.cos(angles).astype(x.dtype), np.sin(angles).astype(x.dtype)
    out = np.empty_like(x)
    h = x.shape[-1] // 2
    if layout == "interleaved":
        x0, x1 = x[..., 0::2], x[..., 1::2]
        out[..., 0::2] = x0 * c - x1 * s
        out[..., 1::2] = x0 * s + x1 * c
    else:
        x0, x1 = x[..., :h], x[..., h:]
        out[..., :h] = x0 * c - x1 * s
        out[..., h:] = x0 * s + x1 * c
    return out


def np_prerotated(q, k, v, angles, gates):
    """Pre-rotated gated linear attention as a masked score matrix (per-pair gates: products of
    decays as exp of cumulative log-decay differences)."""
    qr, kr = np_rotate(q, angles, "interleaved"), np_rotate(k, angles, "interleaved")
    if gates is None:
        scores = np.tril(qr @ kr.T)
        return scores @ v
    # Per-channel weights: o_t = Σ_τ Σ_c q'_tc k'_τc Π_{κ=τ+1}^t λ_κc v_τ
    logg = np.cumsum(np.log(np.repeat(gates, 2, axis=1)), axis=0)  # (T, d)
    qs, ks = qr * np.exp(logg), kr * np.exp(-logg)
    return np.tril(qs @ ks.T) @ v


def np_recurrent(q, k, v, angles, gates):
    Tn, d = q.shape
    h = d // 2
    S = np.zeros((v.shape[1], d))
    out = np.empty((Tn, v.shape[1]))
    prev = np.zeros(h)
    for t in range(Tn):
        cp, sp = np.cos(prev), np.sin(prev)
        c, s = np.cos(angles[t]), np.sin(angles[t])
        lam = np.ones(h) if gates is None else gates[t]
        b00 = cp * lam * c + sp * lam * s
        b01 = -cp * lam * s + sp * lam * c
        b10 = -sp * lam * c + cp * lam * s
        b11 = sp * lam * s + cp * lam * c
        x0, x1 = S[:, 0::2].copy(), S[:, 1::2]
        S[:, 0::2] = x0 * b00 + x1 * b10
        S[:, 1::2] = x0 * b01 + x1 * b11
        S += np.outer(v[t], k[t])
        out[t] = S @ q[t]
        prev = angles[t]
    return out


def report(name: str, t_np: float, t_rl: float) -> None:
    print(
        f"{name:<56s} numpy {t_np * 1e3:9.2f} ms   ropelab {t_rl * 1e3:9.2f} ms   ratio numpy/ropelab {t_np / t_rl:7.2f}"
    )


def main() -> None:
    rng = np.random.default_rng(20251129)
    q, k, v = (rng.normal(size=(T, D)) / np.sqrt(D) for _ in range(3))
    angles = np.cumsum(rng.normal(scale=0.1, size=(T, D // 2)), axis=0)
    gates = rng.uniform(0.97, 1.0, size=(T, D // 2))
    print(
        f"ropelab {rl.__version__}, numpy {np.__version__}; T={T}, d={D}, dv={DV}; best of 9 runs (2 for the NumPy Python loop)"
    )

    for label, g in (("no gates", None), ("per-pair gates", gates)):
        ref = np_prerotated(q, k, v, angles, g)
        ours = rl.recurrence.selective_rope_attention(q, k, v, angles, g, mode="prerotated")
        assert np.allclose(ours, ref, rtol=1e-8, atol=1e-8 * np.abs(ref).max())
        t_np = best_time(lambda: np_prerotated(q, k, v, angles, g))
        t_rl = best_time(lambda: rl.recurrence.selective_rope_attention(q, k, v, angles, g, mode="prerotated"))
        report(f"selective_rope_attention prerotated ({label})", t_np, t_rl)

        ref = np_recurrent(q, k, v, angles, g)
        ours = rl.recurrence.selective_rope_attention(q, k, v, angles, g, mode="recurrent")
        assert np.allclose(ours, ref, rtol=1e-8, atol=1e-8 * np.abs(ref).max())
        t_np = best_time(lambda: np_recurrent(q, k, v, angles, g), repeat=2)
        t_rl = best_time(lambda: rl.recurrence.selective_rope_attention(q, k, v, angles, g, mode="recurrent"))
        report(f"selective_rope_attention recurrent ({label})", t_np, t_rl)

    x64 = rng.normal(size=(8, T, D))
    rope = rl.rotary.rope_angles(np.arange(T), D)  # (T, d/2), shared by the 8 heads
    selective = np.cumsum(rng.normal(size=(8, T, D // 2)), axis=1)  # one angle per row
    for angles, kind in ((rope, "RoPE angles (T, d/2)"), (selective, "per-row angles")):
        for dtype in (np.float64, np.float32):
            x = x64.astype(dtype)
            for layout in ("interleaved", "half"):
                ref = np_rotate(x, angles, layout)
                ours = rl.rotary.rotate(x, angles, layout)
                assert ours.dtype == dtype
                # float32 outputs are rounded once from float64 products: a few float32 ulps.
                tol = 1e-5 if dtype == np.float32 else 1e-12
                assert np.allclose(ours, ref, rtol=tol, atol=tol)
                t_np = best_time(lambda: np_rotate(x, angles, layout))
                t_rl = best_time(lambda: rl.rotary.rotate(x, angles, layout))
                report(f"rotate {np.dtype(dtype).name} {layout}, {kind}", t_np, t_rl)


if __name__ == "__main__":
    main()
