"""Claims of the related-models section: ALiBi and the Forgetting Transformer as decays, cosFormer's
cos and sin states (Selective RoPE App. A.6, A.7); their softmax forms are the exponential kernel
multiplied by a decay, so they are decayed linear-kernel recurrences.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import recurrence, related
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260117
EPS = float(np.finfo(float).eps)


def _rel_err(a: Any, b: Any) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), np.finfo(float).tiny))


@claim(
    "alibi.decay",
    source="Selective RoPE App. A.7",
    statement=r"The ALiBi bias $-m(t - \tau)$ is an exponential decay $e^{-m(t-\tau)}$; FoX is a product of "
    "gates",
    expected="holds",
)
def alibi_decay() -> Evidence:
    rng, T, d = _common.rng(19), 40, 6
    q, k, v = rng.standard_normal((3, T, d))
    m = 0.3
    direct = recurrence.alibi_attention(q, k, v, m, "direct")
    rec = recurrence.alibi_attention(q, k, v, m, "recurrent")
    as_eq3 = recurrence.linear_attention(q, k, v, np.broadcast_to(np.exp(-m) * np.eye(d), (T, d, d)))
    # the weight written as a softmax-style bias: exp(−m(t−τ)) q·k, from scratch
    t = np.arange(T)
    W = np.tril(np.exp(-m * (t[:, None] - t[None, :])) * (q @ k.T))
    scratch = W @ v
    f = rng.uniform(0.5, 1.0, T)
    fox_d, fox_r = recurrence.fox_attention(q, k, v, f, "direct"), recurrence.fox_attention(q, k, v, f, "recurrent")
    fox_eq3 = recurrence.linear_attention(q, k, v, f[:, None, None] * np.eye(d))
    errs = {
        "alibi_direct_vs_recurrent": _common.rel_err(direct, rec),
        "alibi_vs_eq3_decay": _common.rel_err(direct, as_eq3),
        "alibi_vs_bias_formula": _common.rel_err(direct, scratch),
        "fox_direct_vs_recurrent": _common.rel_err(fox_d, fox_r),
        "fox_vs_eq3_gates": _common.rel_err(fox_d, fox_eq3),
    }
    # ALiBi's own (softmax) form, per head h = 1..H with slopes m_h = 2^{−8h/H}:
    # softmax_τ(q_t·k_τ/√d − m_h(t−τ)) = e^{q_t·k_τ/√d} a_h^{t−τ} / Σ_τ' e^{q_t·k_τ'/√d} a_h^{t−τ'}, a_h = e^{−m_h}.
    # Toolkit route: softmax attention where two extra channels carry m_h τ (the −m_h t part is a
    # per-row constant that the normalisation removes).
    H, dh = 8, 4
    slopes = 2.0 ** (-8.0 * np.arange(1, H + 1) / H)
    qh, kh = rng.standard_normal((2, T, dh))
    eye = np.eye(T)
    softmax_err = row_sum_err = decay_err = 0.0
    fitted = []
    for mh in slopes:
        qa = np.hstack([qh, np.ones((T, 1)), np.zeros((T, 1))])
        ka = np.hstack([kh, (mh * np.sqrt(dh)) * t[:, None], np.zeros((T, 1))])
        weights = recurrence.softmax_attention(qa, ka, eye, scale=1 / np.sqrt(dh))  # row t: weights over τ
        kern = np.tril(np.exp(qh @ kh.T / np.sqrt(dh)) * np.exp(-mh) ** (t[:, None] - t[None, :]))
        softmax_err = max(softmax_err, _common.rel_err(weights, kern / kern.sum(axis=1, keepdims=True)))
        row_sum_err = max(row_sum_err, float(np.max(np.abs(weights.sum(axis=1) - 1))))
        # equal content scores (q = 0): the weights fall geometrically, ratio e^{−m_h} per step
        flat = recurrence.softmax_attention(np.hstack([np.zeros((T, dh)), qa[:, dh:]]), ka, eye, scale=1 / np.sqrt(dh))
        ratio = flat[-1, :-1] / flat[-1, 1:]
        fitted.append(float(-np.log(np.mean(ratio))))
        decay_err = max(decay_err, float(np.max(np.abs(ratio - np.exp(-mh)))))
    fitted_arr = np.array(fitted)
    geometric_err = float(np.max(np.abs(fitted_arr[1:] / fitted_arr[:-1] - 2.0 ** (-8.0 / H))))
    errs |= {
        "alibi_softmax_vs_exp_kernel_times_decay": softmax_err,
        "alibi_softmax_row_sums_minus_1": row_sum_err,
        "alibi_softmax_decay_ratio_error": decay_err,
        "slope_ratio_error_vs_2^(-8/H)": geometric_err,
    }
    tol = _common.tol(T * d)
    tol_soft = _common.tol(T * dh) * 64  # exponentials of logits up to m·T ≈ 20 amplify rounding
    ok = (
        max(
            errs[k]
            for k in (
                "alibi_direct_vs_recurrent",
                "alibi_vs_eq3_decay",
                "alibi_vs_bias_formula",
                "fox_direct_vs_recurrent",
                "fox_vs_eq3_gates",
            )
        )
        < tol
        and softmax_err < tol_soft
        and row_sum_err < tol_soft
        and decay_err < tol_soft
        and geometric_err < 1e-9
    )
    return Evidence(
        derive_verdict(ok),
        errs | {"slopes": slopes.tolist(), "fitted_slopes": fitted},
        f"linear forms {tol:.1e} relative; softmax form, row sums and per-step decay {tol_soft:.1e}; fitted "
        "slope ratios equal 2^(−8/H) to 1e-9",
        {"T": T, "d": d, "slope": m, "forget": "U(0.5, 1)", "heads": H, "head_dim": dh, "seed": _common.SEED + 19},
    )


@claim(
    "cosformer.states",
    source="Selective RoPE App. A.6",
    statement=r"The cosFormer weight $\cos(\pi(t - \tau)/(2M))$ is realised by a cos-state and a sin-state",
    expected="holds",
)
def cosformer_states() -> Evidence:
    rng, T, d = _common.rng(20), 50, 6
    q, k, v = np.abs(rng.standard_normal((3, T, d)))
    direct = recurrence.cosformer_attention(q, k, v, mode="direct")
    rec = recurrence.cosformer_attention(q, k, v, mode="recurrent")
    t = np.arange(T)
    W = np.tril(np.cos(np.pi * (t[:, None] - t[None, :]) / (2 * T)) * (q @ k.T))
    errs = {"direct_vs_recurrent": _common.rel_err(direct, rec), "direct_vs_formula": _common.rel_err(direct, W @ v)}
    tol = _common.tol(T * d)
    return Evidence(
        derive_verdict(max(errs.values()) < tol),
        errs,
        f"relative {tol:.1e}",
        {"T": T, "d": d, "M": T, "seed": _common.SEED + 20},
    )


@claim(
    "alibi.softmax_decay",
    source="Selective RoPE App. A.7",
    statement="ALiBi and FoX are softmax attention with a multiplicative decay of the exponential kernel: "
    "their causal softmax forms equal the decayed, normalised linear-kernel recurrence $S_t = f_t "
    r"S_{t-1} + \phi(k_t) v_t^\top$, $z_t = f_t z_{t-1} + \phi(k_t)$, $o_t = \phi(q_t)^\top S_t / "
    r"\phi(q_t)^\top z_t$ ($f_t$ the forget gate; $f = e^{-m_h}$ for ALiBi)",
    expected="holds",
)
def softmax_decay() -> Evidence:
    # The exponential kernel ``exp(scale·q·k)`` has an exact finite feature map on binary vectors (``2^n``
    # features), so both forms are computed independently — the softmax form by the online softmax with the
    # ALiBi/FoX logit bias, the recurrence in O(T) — and must agree to rounding.
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
