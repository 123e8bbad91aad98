"""What the claim checks of several sections share: the seed of their random inputs, the float64
rounding tolerance and the relative error (a private module: it registers no claims).
"""

from __future__ import annotations

from typing import Any, get_args

import numpy as np

from ropelab import rotary
from ropelab._types import FloatArray, Layout

#: The seed of the random inputs (each check adds an offset of its own).
SEED = 20260103
EPS = np.finfo(float).eps
LAYOUTS: tuple[Layout, ...] = get_args(Layout)  # = _core.rotary.layouts(), checked by the tests
MC_SIGMAS = 5.0  # Monte-Carlo agreement: within 5 standard errors (fixed seed)


def rng(offset: int = 0) -> np.random.Generator:
    """The generator of a check's inputs: seeded with ``SEED + offset``."""
    return np.random.default_rng(SEED + offset)


def rel_err(a: Any, b: Any) -> float:
    """The largest absolute difference relative to the largest magnitude of ``b``."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.finfo(float).tiny))


def tol(work: float) -> float:
    """Float64 rounding tolerance for a computation of ``work`` operations per output (×16 margin)."""
    return 16 * EPS * max(work, 1.0)


def srope_inputs(T: int, d: int, offset: int) -> tuple[FloatArray, ...]:
    """Queries, keys, values of shape (T, d) and cumulative angles of shape (T, d/2)."""
    gen = rng(offset)
    q, k, v = gen.standard_normal((3, T, d))
    psi = rotary.cumulative_angles(gen.standard_normal((T, d // 2)))
    return q, k, v, psi


# ---- independent NumPy routes (written from the definitions, no ropelab call) ---------------------


def np_rotation(psi: Any, layout: Layout = "interleaved") -> FloatArray:
    """``blockdiag R(ψ)`` of shape (..., d, d), R(φ) = [[cos φ, −sin φ], [sin φ, cos φ]] on each pair
    (pair i = channels (2i, 2i+1) interleaved, (i, i + d/2) half).
    """
    psi = np.asarray(psi, float)
    h = psi.shape[-1]
    i = np.arange(h)
    a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + h)
    m = np.zeros((*psi.shape[:-1], 2 * h, 2 * h))
    c, s = np.cos(psi), np.sin(psi)
    m[..., a, a], m[..., a, b], m[..., b, a], m[..., b, b] = c, -s, s, c
    return m


def np_linear_attention(q: Any, k: Any, v: Any, A: Any = None) -> FloatArray:
    """``S_t = S_{t−1} A_t + v_t k_tᵀ``, ``o_t = S_t q_t`` (S_{−1} = 0; A_t = I when ``A`` is None)."""
    q, k, v = (np.asarray(x, float) for x in (q, k, v))
    S = np.zeros((v.shape[-1], q.shape[-1]))
    out = np.empty((q.shape[0], v.shape[-1]))
    for t in range(q.shape[0]):
        S = (S if A is None else S @ A[t]) + np.outer(v[t], k[t])
        out[t] = S @ q[t]
    return out


def np_gate_matrix(gates: Any, d: int, layout: Layout = "interleaved") -> FloatArray:
    """Diagonal gate matrices Λ_t (T, d, d) from gates of shape (T, 1), (T, d/2) (per pair) or (T, d)."""
    g = np.asarray(gates, float)
    if g.shape[-1] == 1:
        g = np.repeat(g, d, axis=-1)
    elif g.shape[-1] == d // 2:
        g = np.repeat(g, 2, axis=-1) if layout == "interleaved" else np.concatenate([g, g], axis=-1)
    return np.asarray(np.einsum("ti,ij->tij", g, np.eye(d)), dtype=float)


def readout_accuracy(features: Any, labels: Any) -> tuple[float, float]:
    """Accuracy of the best linear readout of binary ``labels`` (n, T) from ``features`` (n, T, f).

    The readout is fitted by least squares (target ±1, sign decides) on the first half of the n
    sequences and scored on every state of the other half. The standard error is that of the mean
    of the per-sequence accuracies (the sequences are independent; the states of one are not).
    """
    f, y = np.asarray(features, float), 2.0 * np.asarray(labels, float) - 1.0
    half = f.shape[0] // 2
    w = np.linalg.lstsq(f[:half].reshape(-1, f.shape[-1]), y[:half].ravel(), rcond=None)[0]
    correct = np.sign(f[half:] @ w) == y[half:]
    per_seq = correct.mean(axis=1)
    return float(per_seq.mean()), float(per_seq.std(ddof=1) / np.sqrt(per_seq.size))
