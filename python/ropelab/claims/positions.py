"""Claims of the position-encoding section: the sinusoidal and additive encodings RoPE replaces
(RoFormer §2), the 1/√d scale of the attention logits (RoFormer §2, Eq. (2)), and position
interpolation against direct extrapolation (RoFormer §4, with Chen et al.'s interpolation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import extrapolation, recurrence, rotary
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


def _sinusoidal(positions: Any, d: int) -> FloatArray:
    """Vaswani's encodings p_{m,2t} = sin(m ω_t), p_{m,2t+1} = cos(m ω_t), from the toolkit's angles m ω_t."""
    ang = np.asarray(rotary.rope_angles(positions, d))
    p = np.empty((*ang.shape[:-1], d))
    p[..., 0::2], p[..., 1::2] = np.sin(ang), np.cos(ang)
    return p


@claim(
    "pe.sinusoidal_relative",
    source="RoFormer §2, Eq. (4)",
    statement=r"For sinusoidal encodings $p_m \cdot p_n$ depends only on $m - n$, and nearer positions are more"
    " similar",
    expected="holds-if",
)
def pe_sinusoidal_relative() -> Evidence:
    rng, d = _common.rng(211), 128
    omega = 10000.0 ** (-2.0 * np.arange(d // 2) / d)
    worst_shift = worst_formula = 0.0
    for _ in range(20):
        m, n, s = (int(x) for x in rng.integers(0, 2048, 3))
        p = _sinusoidal(np.array([m, n, m + s, n + s]), d)
        worst_shift = max(worst_shift, abs(p[0] @ p[1] - p[2] @ p[3]) / d)
        worst_formula = max(worst_formula, abs(p[0] @ p[1] - np.cos((m - n) * omega).sum()) / d)
    r = np.arange(0, 1001)
    sim = _sinusoidal(r, d) @ _sinusoidal(np.zeros(1), d)[0]  # p_0·p_r
    monotone = bool(np.all(np.diff(sim) <= 0))
    rise = int(np.argmax(np.diff(sim) > 0))
    # the envelope: maxima over 32-position blocks fall over the first 160 positions
    blocks = sim[:160].reshape(5, 32).max(axis=1)
    envelope = bool(np.all(np.diff(blocks) < 0))
    tol = _common.tol(d) * 8192  # angles up to ~4·10³ rad
    relative = worst_shift < tol and worst_formula < tol
    return Evidence(
        verdict=derive_verdict(relative and monotone, relative and envelope),
        values={
            "max_shift_change_over_d": worst_shift,
            "max_error_vs_sum_of_cosines_over_d": worst_formula,
            "similarity_r0": float(sim[0]),
            "first_increase_at_r": rise,
            "similarity_at_first_increase": [float(sim[rise]), float(sim[rise + 1])],
            "block_maxima_first_160": blocks.tolist(),
        },
        tolerance=f"{tol:.1e}·d (float64 rounding of angles up to ~4·10³ rad); monotonicity exact",
        inputs={"d": d, "pairs": 20, "positions": "0..4095", "seed": _common.SEED + 211},
        condition=r"$p_m \cdot p_n = \sum_t \cos((m - n)\omega_t)$ depends only on $m - n$ exactly; 'more similar when "
        "nearer' only for the envelope (block maxima), not position by position",
        counterexample={"r": rise, "p0·p_r": float(sim[rise]), "p0·p_{r+1}": float(sim[rise + 1])},
        corrected=r"$p_m \cdot p_n = \sum_t \cos((m - n)\omega_t)$ depends only on $m - n$; it is not monotone in "
        r"$\lvert m - n\rvert$ (it first rises "
        f"at $r = {rise}$), only its envelope falls over the first ~160 positions.",
        corrected_holds=relative and envelope and not monotone,
    )


@claim(
    "pe.additive_absolute",
    source="RoFormer §2, Eqs. (3)–(10)",
    statement=r"With additive encodings $(x_m + p_m)^\top W_q^\top W_k (x_n + p_n)$ carries absolute positions "
    "through its cross terms; Transformer-XL's four-term expansion is an identity",
    expected="holds",
)
def pe_additive_absolute() -> Evidence:
    rng, T, d, s = _common.rng(212), 12, 16, 37
    x = rng.standard_normal((T, d))
    Wq, Wk = rng.standard_normal((2, d, d)) / np.sqrt(d)
    causal = np.tril(np.ones((T, T), bool))

    def scores(offset: int) -> FloatArray:
        # the toolkit's causal linear attention with one-hot values reads out q_m·k_n (n ≤ m)
        p = _sinusoidal(np.arange(T) + offset, d)
        return np.asarray(recurrence.linear_attention((x + p) @ Wq.T, (x + p) @ Wk.T, np.eye(T)))

    def four_terms(offset: int) -> tuple[FloatArray, ...]:
        p = _sinusoidal(np.arange(T) + offset, d)
        M = Wq.T @ Wk
        return x @ M @ x.T, x @ M @ p.T, p @ M @ x.T, p @ M @ p.T

    S0, Ss = scores(0), scores(s)
    t0, ts = four_terms(0), four_terms(s)
    identity = max(
        _common.rel_err(S0[causal], np.sum(t0, axis=0)[causal]), _common.rel_err(Ss[causal], np.sum(ts, axis=0)[causal])
    )
    shift = float(np.max(np.abs(Ss - S0)[causal]) / np.max(np.abs(S0)))
    cross = float(np.max(np.abs((ts[1] + ts[2]) - (t0[1] + t0[2]))[causal]) / np.max(np.abs(S0)))
    tol = _common.tol(T * d * d)
    return Evidence(
        verdict=derive_verdict(identity < tol and shift > 1e-3 and cross > 1e-3),
        values={
            "four_term_identity_error": identity,
            "score_change_when_all_positions_shift_by_37": shift,
            "cross_terms_change": cross,
        },
        tolerance=f"identity to relative {tol:.1e}; a dependence on absolute positions counts above 1e-3 (relative "
        "to the largest score). The content–content term x_mᵀW_qᵀW_k x_n does not involve positions by construction "
        "and is not part of the verdict",
        inputs={"T": T, "d": d, "shift": s, "encodings": "sinusoidal", "seed": _common.SEED + 212},
    )


@claim(
    "attn.sqrt_d",
    source="RoFormer §2, Eq. (2)",
    statement=r"For i.i.d. unit-variance entries $\mathrm{Var}(q \cdot k) = d$, so the $1/\sqrt{d}$ scale keeps"
    " the logits $O(1)$",
    expected="holds",
)
def attn_sqrt_d() -> Evidence:
    rng, n = _common.rng(213), 20000
    rows, mc_ok = [], True
    for law in ("normal", "rademacher"):
        for d in (16, 64, 256):
            q, k = rng.standard_normal((2, n, 1, d)) if law == "normal" else rng.choice([-1.0, 1.0], (2, n, 1, d))
            # q·k per sample: the toolkit's linear attention of one token with value 1
            dots = np.asarray(recurrence.linear_attention(q, k, np.ones((n, 1, 1))))[:, 0, 0]
            var = float(dots.var(ddof=1))
            se = float(np.sqrt(np.mean((dots - dots.mean()) ** 4) - var**2) / np.sqrt(n))
            mc_ok &= abs(var - d) < _common.MC_SIGMAS * se
            rows.append({"entries": law, "d": d, "var_qk": var, "se": se, "var_scaled_logit": var / d})
    # the toolkit's softmax attention scales its logits by 1/√d by default
    T, d = 8, 64
    q, k, v = rng.standard_normal((3, T, d))
    logits = q @ k.T / np.sqrt(d) + np.triu(np.full((T, T), -np.inf), 1)
    w = np.exp(logits - logits.max(axis=1, keepdims=True))
    ref = (w / w.sum(axis=1, keepdims=True)) @ v
    scale_err = _common.rel_err(recurrence.softmax_attention(q, k, v), ref)
    return Evidence(
        verdict=derive_verdict(mc_ok and scale_err < _common.tol(T * d)),
        values={"by_dimension": rows, "default_scale_vs_numpy_softmax_1_over_sqrt_d": scale_err},
        tolerance=f"each Monte-Carlo variance within {_common.MC_SIGMAS:g} standard errors of d (the standard error of "
        f"the sample variance, from the fourth central moment); the default scale to relative {_common.tol(T * d):.1e}",
        inputs={"samples": n, "d": [16, 64, 256], "entries": ["N(0, 1)", "±1"], "seed": _common.SEED + 213},
    )


@claim(
    "extrap.interpolation_range",
    source="RoFormer §4",
    statement=r"Position interpolation $L \to L'$ keeps every angle inside the range seen in training; direct "
    r"extrapolation $2048 \to 4096$ leaves the low-frequency pairs at unseen angles",
    expected="holds",
)
def extrap_interpolation_range() -> Evidence:
    d, L, L2 = 128, 2048, 4096
    theta = np.asarray(rotary.frequencies(d))
    direct = extrapolation.unseen_angles(theta, L, L2)
    pi_freq = np.asarray(extrapolation.scaled_frequencies(d, "linear", factor=L2 / L).inv_freq)
    pi = extrapolation.unseen_angles(theta, L, L2, pi_freq)

    # NumPy: training saw [0, (L−1)θ]; an arc beyond it is unseen unless training turned fully
    def np_unseen(test_freq: FloatArray) -> FloatArray:
        train, test = (L - 1) * theta, (L2 - 1) * test_freq
        arc = np.minimum(test, 2 * np.pi) - train
        return np.where(train >= 2 * np.pi, 0.0, np.maximum(arc, 0.0) / (2 * np.pi))

    direct_np, pi_np = np_unseen(theta), np_unseen(theta * L / L2)
    unseen_idx = np.flatnonzero(np.asarray(direct.unseen))
    low_frequency = bool(unseen_idx.size > 0 and np.all(unseen_idx == np.arange(d // 2 - unseen_idx.size, d // 2)))
    # interpolated positions m·L/L′ ≤ (L′−1)·L/L′ = L − ½: inside the note's range [0, L]; beyond the last
    # trained integer position L − 1 by half a position at most
    pi_max_position = float(np.max((L2 - 1) * pi_freq / theta))
    half_step = float(np.max(theta[np.asarray(pi.unseen)] / 2 / (2 * np.pi), initial=0.0))
    tol = _common.tol(8)
    ok = (
        _common.rel_err(pi_freq, theta * L / L2) < tol
        and _common.rel_err(direct.unseen_fraction, direct_np) < 1e-9
        and _common.rel_err(pi.unseen_fraction, pi_np) < 1e-9
        and pi_max_position <= L * (1 + tol)
        and float(np.max(pi.unseen_fraction)) <= half_step * (1 + 1e-9)
        and low_frequency
        and float(np.max(direct.unseen_fraction)) > 0.1
    )
    return Evidence(
        verdict=derive_verdict(ok),
        values={
            "direct_unseen_pairs": int(direct.n_unseen),
            "direct_unseen_pair_indices": [int(np.min(unseen_idx)), int(np.max(unseen_idx))] if unseen_idx.size else [],
            "direct_max_unseen_fraction_of_turn": float(np.max(direct.unseen_fraction)),
            "interpolated_largest_position": pi_max_position,
            "interpolated_max_unseen_fraction_of_turn": float(np.max(pi.unseen_fraction)),
            "half_position_bound": half_step,
        },
        tolerance="frequencies relative 1e-15 scale; the toolkit's unseen arcs against NumPy to 1e-9; interpolated "
        "angles within the note's range [0, L·θ_i] (positions [0, L]): beyond the last trained position L − 1 "
        "by at most half a position (θ_i/2), reported",
        inputs={"d": d, "train_length": L, "test_length": L2, "interpolation": "positions × L/L′ (linear scaling)"},
    )
