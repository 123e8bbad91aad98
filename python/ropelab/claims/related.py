"""Claims about the softmax-form related models (Selective RoPE App. A.7): ALiBi and the Forgetting
Transformer are the exponential kernel multiplied by a decay, so their softmax forms are decayed
linear-kernel recurrences.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import related
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260117
EPS = float(np.finfo(float).eps)


def _rel_err(a: Any, b: Any) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), np.finfo(float).tiny))


@claim(
    "alibi.softmax_decay",
    source="Selective RoPE App. A.7",
    statement="ALiBi and FoX are softmax attention with a multiplicative decay of the exponential kernel: "
    "their causal softmax forms equal the decayed, normalised linear-kernel recurrence "
    "S_t = f_t S_{t−1} + φ(k_t) v_tᵀ, z_t = f_t z_{t−1} + φ(k_t), o_t = φ(q_t)ᵀS_t / φ(q_t)ᵀz_t "
    "(f_t the forget gate; f = e^{−m_h} for ALiBi)",
    expected="holds",
)
def softmax_decay() -> Evidence:
    """Check the claim ``alibi.softmax_decay``; expected verdict: holds.

    Statement (Selective RoPE App. A.7): ALiBi and FoX are softmax attention with a multiplicative
    decay of the exponential kernel: their causal softmax forms equal the decayed, normalised
    linear-kernel recurrence S_t = f_t S_{t−1} + φ(k_t) v_tᵀ, z_t = f_t z_{t−1} + φ(k_t),
    o_t = φ(q_t)ᵀS_t / φ(q_t)ᵀz_t (f_t the forget gate; f = e^{−m_h} for ALiBi).

    The exponential kernel ``exp(scale·q·k)`` has an exact finite feature map on binary vectors
    (``2^n`` features), so both forms are computed independently — the softmax form by the online
    softmax with the ALiBi/FoX logit bias, the recurrence in O(T) — and must agree to rounding.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng = np.random.default_rng(SEED)
    B, H, T, n, dv, scale = 2, 6, 96, 5, 3, 0.8
    q, k = rng.integers(0, 2, (2, B, H, T, n)).astype(float)
    v = rng.standard_normal((B, H, T, dv))
    pq, pk = related.exp_kernel_features(q, scale), related.exp_kernel_features(k, scale)
    forget = 1.0 / (1.0 + np.exp(-rng.normal(2.0, 1.5, (B, H, T))))  # σ(logit), FoX's gate
    fox_soft = related.fox(q, k, v, forget, scale=scale)
    fox_rec = related.decayed_kernel_attention(pq, pk, v, forget)
    errs = {"fox_softmax_vs_recurrence": _rel_err(fox_rec, fox_soft)}
    for heads in (4, H):  # a power of two and the interleaved slopes of H = 6
        slopes = related.alibi_slopes(heads)
        gates = np.broadcast_to(np.exp(-slopes)[:, None], (B, heads, T))
        soft = related.alibi(q[:, :heads], k[:, :heads], v[:, :heads], scale=scale)
        rec = related.decayed_kernel_attention(pq[:, :heads], pk[:, :heads], v[:, :heads], gates)
        errs[f"alibi_H{heads}_softmax_vs_recurrence"] = _rel_err(rec, soft)
    # rounding: T terms per sum, a bias that is a difference of running sums of T logs, one exp
    tol = 64 * T * EPS
    return Evidence(
        derive_verdict(max(errs.values()) < tol),
        errs,
        f"relative {tol:.1e} (64·T·ε: rounding of T-term sums and of the running log-gate sums)",
        {
            "batch": B,
            "heads": H,
            "T": T,
            "binary_dim": n,
            "features": 2**n,
            "dv": dv,
            "scale": scale,
            "forget": "σ(N(2, 1.5²))",
            "seed": SEED,
        },
    )
