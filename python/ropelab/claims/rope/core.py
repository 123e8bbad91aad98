"""Claims of the RoPE section, first part: rotary position embedding as RoFormer states it
(RoFormer §3, Eqs. (12)–(19), §3.4), the complex form (Selective RoPE App. A.1), the RoPE trick, and
attention without position encoding.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import recurrence, rff, rotary
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


@claim(
    "rope.relative",
    source="RoFormer §3.2, Eq. (16)",
    statement=r"$\langle R_m q, R_n k\rangle = q^\top R_{n-m} k$: the score depends on $m - n$ only",
    expected="holds",
)
def rope_relative() -> Evidence:
    rng, d = _common.rng(1), 64
    worst = 0.0
    for layout in _common.LAYOUTS:
        for _ in range(20):
            q, k = rng.standard_normal((2, d))
            m, n, s = (int(x) for x in rng.integers(0, 4096, 3))
            lhs = rotary.rotate(q, rotary.rope_angles(m, d), layout) @ rotary.rotate(
                k, rotary.rope_angles(n, d), layout
            )
            rhs = q @ rotary.rotate(k, rotary.rope_angles(n - m, d), layout)
            shifted = rotary.rotate(q, rotary.rope_angles(m + s, d), layout) @ rotary.rotate(
                k, rotary.rope_angles(n + s, d), layout
            )
            scale = np.linalg.norm(q) * np.linalg.norm(k)
            worst = max(worst, abs(lhs - rhs) / scale, abs(shifted - lhs) / scale)
    # angles up to ~8000 rad: argument reduction makes each cos/sin carry ~|angle|·eps absolute error
    tol = _common.tol(d) * 8192
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"|difference| ≤ {tol:.2e}·‖q‖‖k‖ (float64 rounding of angles up to ~8·10³ rad)",
        {"d": d, "pairs": 40, "positions": "0..4095", "layouts": list(_common.LAYOUTS), "seed": _common.SEED + 1},
    )


@claim(
    "rope.elementwise",
    source="RoFormer §3.4.2, Eq. (34)",
    statement="The element-wise cos/sin form equals the block-diagonal rotation matrix; the half layout "
    "equals the interleaved one up to a permutation",
    expected="holds",
)
def rope_elementwise() -> Evidence:
    rng, d = _common.rng(2), 32
    x = rng.standard_normal((8, d))
    ang = rotary.rope_angles(np.arange(8), d)
    # RoFormer's element-wise formula: x ⊙ cos(mθ) + (−x₂, x₁, −x₄, x₃, …) ⊙ sin(mθ)
    cos, sin = np.repeat(np.cos(ang), 2, axis=-1), np.repeat(np.sin(ang), 2, axis=-1)
    swapped = np.empty_like(x)
    swapped[:, 0::2], swapped[:, 1::2] = -x[:, 1::2], x[:, 0::2]
    elementwise = x * cos + swapped * sin
    matrix = np.einsum("tij,tj->ti", np.stack([rotary.rotation_matrix(a) for a in ang]), x)
    interleaved = rotary.rotate(x, ang, "interleaved")
    perm = rotary.layout_permutation(d)
    half = rotary.rotate(x[:, perm], ang, "half")
    e1, e2 = _common.rel_err(elementwise, matrix), _common.rel_err(interleaved, matrix)
    e3 = _common.rel_err(half, interleaved[:, perm])
    tol = _common.tol(4)
    return Evidence(
        derive_verdict(max(e1, e2, e3) < tol),
        {"elementwise_vs_matrix": e1, "rotate_vs_matrix": e2, "half_vs_permuted_interleaved": e3},
        f"relative {tol:.1e} (a few roundings per entry)",
        {"d": d, "positions": 8, "seed": _common.SEED + 2},
    )


def _decay_figure() -> Any:
    from ropelab import plot

    return plot.decay_bound_curve(d=128, base=10000.0, r_max=20000)


@claim(
    "rope.decay",
    source="RoFormer §3.3, §3.4.3, Fig. 2",
    statement="The relative upper bound $B(r)$ decays with the relative distance $r$ ($d = 128$, base $10^4$)",
    expected="holds-if",
)
def rope_decay() -> Evidence:
    r = np.arange(0, 20001)
    B = np.asarray(rotary.decay_bound(r, d=128, base=10000.0))
    monotone = bool(np.all(np.diff(B) <= 0))
    first_rise = int(np.argmax(np.diff(B) > 0))
    # The short-range trend: maxima over consecutive 32-position blocks fall over the first 128
    # positions, and B never returns above half its value at r = 0 once r ≥ 100.
    blocks = B[: 32 * 5].reshape(5, 32).max(axis=1)
    short_range = bool(np.all(np.diff(blocks[:4]) < 0)) and float(np.max(B[100:])) < B[0] / 2
    # Far away the local maxima stop decreasing: a later window peaks higher than an earlier one.
    peak_5k, peak_10k = float(np.max(B[5000:5200])), float(np.max(B[10000:10200]))
    corrected_ok = short_range and not monotone and peak_10k > peak_5k
    return Evidence(
        verdict=derive_verdict(monotone, short_range),
        values={
            "B0": float(B[0]),
            "first_increase_at_r": first_rise,
            "B_at_first_increase": [float(B[first_rise]), float(B[first_rise + 1])],
            "block_maxima_first_160": blocks.tolist(),
            "max_B_beyond_100": float(np.max(B[100:])),
            "peak_5000_5200": peak_5k,
            "peak_10000_10200": peak_10k,
        },
        tolerance="exact comparisons of computed B values (differences are ≫ rounding)",
        inputs={"d": 128, "base": 10000.0, "r": "0..20000"},
        condition=r"only as a short-range trend: the block maxima fall over the first ~128 positions and $B$ stays "
        r"below $B(0)/2$ beyond $r = 100$",
        counterexample={
            "r": first_rise,
            "B(r)": float(B[first_rise]),
            "B(r+1)": float(B[first_rise + 1]),
            "peak over r in [5000, 5200]": peak_5k,
            "peak over r in [10000, 10200]": peak_10k,
        },
        corrected=r"$B(r)$ falls from 32.5 to below half within ~100 positions but is not monotone, and beyond a few "
        "hundred positions its local maxima stop decreasing.",
        corrected_holds=corrected_ok,
        figure=_decay_figure,
    )


@claim(
    "rope.linear_attention",
    source="RoFormer §3.3, Eq. (19)",
    statement="Rotations preserve norms, so RoPE composes with linear attention",
    expected="holds",
)
def rope_linear_attention() -> Evidence:
    rng, T, d, D = _common.rng(4), 48, 8, 16
    q, k = 0.5 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, 3))
    ang = rotary.rope_angles(np.arange(T), D)
    # RoFormer Eq. (19) with Performer's non-negative features φ (positive random features)
    w = rff.sample_omega(D, d, seed=_common.SEED + 4)
    fq, fk = rff.feature_map(q, w, "positive"), rff.feature_map(k, w, "positive")
    rq, rk = rotary.rotate(fq, ang), rotary.rotate(fk, ang)
    norm_err = _common.rel_err(np.linalg.norm(rq, axis=-1), np.linalg.norm(fq, axis=-1))
    # toolkit route: numerator = linear attention of the rotated features, denominator unrotated
    num = recurrence.linear_attention(rq, rk, v)
    den = recurrence.linear_attention(fq, fk, np.ones((T, 1)))
    eq19 = num / den
    # the equation term by term: Σ_{n≤m} (R_m φ(q_m))ᵀ (R_n φ(k_n)) v_n / Σ_{n≤m} φ(q_m)ᵀ φ(k_n)
    Rm = rotary.rotation_matrix(ang)
    Rq, Rk = np.einsum("tij,tj->ti", Rm, fq), np.einsum("tij,tj->ti", Rm, fk)
    causal = np.tril(np.ones((T, T)))
    direct = ((Rq @ Rk.T) * causal) @ v / (((fq @ fk.T) * causal).sum(axis=1, keepdims=True))
    # relative form: (R_m φ(q_m))ᵀ (R_n φ(k_n)) = φ(q_m)ᵀ R_{n−m} φ(k_n)
    rel = rotary.rotation_matrix(rotary.rope_angles(np.arange(T)[None, :] - np.arange(T)[:, None], D))
    rel_scores = np.einsum("mi,mnij,nj->mn", fq, rel, fk) * causal
    rel_form = rel_scores @ v / den
    # shifting every position by s leaves Eq. (19) unchanged (only m − n enters)
    s = 1000
    ang_s = rotary.rope_angles(np.arange(T) + s, D)
    shifted = recurrence.linear_attention(rotary.rotate(fq, ang_s), rotary.rotate(fk, ang_s), v) / den
    # the same numerator as a recurrence whose transitions are the RoPE steps
    rec = recurrence.selective_rope_attention(fq, fk, v, ang, mode="recurrent")
    errs = {
        "eq19_toolkit_vs_formula": _common.rel_err(eq19, direct),
        "eq19_vs_relative_form": _common.rel_err(eq19, rel_form),
        "eq19_shift_by_1000_positions": _common.rel_err(shifted, eq19),
        "prerotated_vs_recurrent": _common.rel_err(num, rec),
    }
    tol = _common.tol(T * D)
    tol_shift = _common.tol(T * D) * 2048  # angles up to ~10³ rad: argument reduction costs |angle|·eps
    ok = (
        norm_err < _common.tol(D)
        and errs["eq19_toolkit_vs_formula"] < tol
        and errs["eq19_vs_relative_form"] < tol
        and errs["prerotated_vs_recurrent"] < tol
        and errs["eq19_shift_by_1000_positions"] < tol_shift
    )
    return Evidence(
        derive_verdict(ok),
        {"norm_error": norm_err} | errs,
        f"norms {_common.tol(D):.1e}; Eq. (19) routes {tol:.1e} relative (T·D accumulated roundings); shifted "
        f"positions {tol_shift:.1e} (angles up to ~10³ rad)",
        {"T": T, "d": d, "features": "positive random features, D = 16", "shift": s, "seed": _common.SEED + 4},
    )


@claim(
    "complex.realify",
    source="Selective RoPE App. A.1",
    statement=r"$\mathrm{Re}[\tilde k^* e^{i\theta} \tilde q] = k^\top R(\theta)\, q$",
    expected="holds",
)
def complex_realify() -> Evidence:
    rng, d = _common.rng(5), 32
    worst = 0.0
    for layout in _common.LAYOUTS:
        for _ in range(20):
            q, k = rng.standard_normal((2, d))
            th = rng.uniform(-np.pi, np.pi, d // 2)
            qc, kc = rotary.complexify(q, layout), rotary.complexify(k, layout)
            lhs = float(np.sum((np.conj(kc) * np.exp(1j * th) * qc).real))
            rhs = float(k @ rotary.rotation_matrix(th, layout) @ q)
            worst = max(worst, float(abs(lhs - rhs) / (np.linalg.norm(q) * np.linalg.norm(k))))
    tol = _common.tol(d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"{tol:.1e}·‖q‖‖k‖",
        {"d": d, "cases": 40, "layouts": list(_common.LAYOUTS), "seed": _common.SEED + 5},
    )


@claim(
    "rope.trick",
    source="Selective RoPE §2, Eqs. (5)–(7)",
    statement=r"$k_\tau^\top R^{t-\tau} q_t = (R^\tau k_\tau)^\top (R^t q_t)$",
    expected="holds",
)
def rope_trick() -> Evidence:
    rng, d = _common.rng(6), 16
    R = rotary.rotation_matrix(rotary.frequencies(d))
    worst = 0.0
    for _ in range(20):
        q, k = rng.standard_normal((2, d))
        tau, t = sorted(int(x) for x in rng.integers(0, 200, 2))
        lhs = k @ np.linalg.matrix_power(R, t - tau) @ q
        rhs = rotary.rotate(k, rotary.rope_angles(tau, d)) @ rotary.rotate(q, rotary.rope_angles(t, d))
        worst = max(worst, abs(lhs - rhs) / (np.linalg.norm(q) * np.linalg.norm(k)))
    tol = _common.tol(d * 200)  # up to 200 matrix products
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"{tol:.1e}·‖q‖‖k‖ (≤ 200 products)",
        {"d": d, "cases": 20, "seed": _common.SEED + 6},
    )


@claim(
    "rope.dot_cos_only",
    source="RoFormer §3.2.1, Eq. (12)",
    statement=r"In 2-D the rotated score $\langle R_m q, R_n k\rangle$ equals $(q\cdot k)\cos((m - n)\theta)$",
    expected="fails",
)
def rope_dot_cos_only() -> Evidence:
    rng, d = _common.rng(101), 2
    worst_cos = worst_full = worst_parallel = 0.0
    for _ in range(50):
        q, k = rng.standard_normal((2, d))
        m, n = (int(x) for x in rng.integers(0, 512, 2))
        lhs = float(rotary.rotate(q, rotary.rope_angles(m, d)) @ rotary.rotate(k, rotary.rope_angles(n, d)))
        phi = float(rotary.rope_angles(m - n, d)[0])
        cos_only = float(q @ k) * np.cos(phi)
        full = cos_only + float(q[0] * k[1] - q[1] * k[0]) * np.sin(phi)
        scale = float(np.linalg.norm(q) * np.linalg.norm(k))
        worst_cos, worst_full = max(worst_cos, abs(lhs - cos_only) / scale), max(worst_full, abs(lhs - full) / scale)
        kp = float(rng.standard_normal()) * q  # k ∥ q: no cross term
        lhs_p = float(rotary.rotate(q, rotary.rope_angles(m, d)) @ rotary.rotate(kp, rotary.rope_angles(n, d)))
        worst_parallel = max(
            worst_parallel, abs(lhs_p - float(q @ kp) * np.cos(phi)) / float(np.linalg.norm(q) * np.linalg.norm(kp))
        )
    q0, k0 = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    ce = float(rotary.rotate(q0, rotary.rope_angles(1, d)) @ rotary.rotate(k0, rotary.rope_angles(0, d)))
    tol = _common.tol(d) * 1024  # angles up to 512 rad
    return Evidence(
        verdict=derive_verdict(worst_cos < tol),
        values={
            "max_error_cos_only_over_norms": worst_cos,
            "max_error_with_sin_term_over_norms": worst_full,
            "max_error_cos_only_when_k_parallel_q": worst_parallel,
        },
        tolerance=f"{tol:.1e}·‖q‖‖k‖ (float64 rounding of angles up to 512 rad)",
        inputs={"d": 2, "theta": 1.0, "cases": 50, "positions": "0..511", "seed": _common.SEED + 101},
        counterexample={
            "q": q0.tolist(),
            "k": k0.tolist(),
            "m": 1,
            "n": 0,
            "rotated_score": ce,
            "cos_only_formula": 0.0,
        },
        corrected=r"$\langle R_m q, R_n k\rangle = (q\cdot k)\cos((m - n)\theta) + (q_1 k_2 - q_2 k_1)\sin((m - n)\theta) "
        r"= \mathrm{Re}[\tilde q\, \tilde k^* e^{i(m-n)\theta}]$ (Eq. 12); the cos-only form holds iff "
        r"$q_1 k_2 = q_2 k_1$ ($q \parallel k$).",
        corrected_holds=worst_full < tol and worst_parallel < tol,
    )


@claim(
    "rope.expected_decay",
    source="RoFormer §3.3, §3.4.3",
    statement=r"The expected magnitude of the RoPE score $q^\top R_r k$ decays as the relative distance $r$ "
    "grows",
    expected="fails",
)
def rope_expected_decay() -> Evidence:
    rng, d, n = _common.rng(102), 128, 4000
    r_grid = (0, 1, 4, 16, 64, 256, 1024, 4096, 16384)
    rows = []
    for r in r_grid:
        q, k = rng.standard_normal((2, n, d))
        m = rng.integers(0, 4096, n)
        s = np.sum(rotary.rotate(q, rotary.rope_angles(m, d)) * rotary.rotate(k, rotary.rope_angles(m + r, d)), axis=-1)
        sq = s * s
        exact = float(np.sum(rotary.rotation_matrix(rotary.rope_angles(r, d)) ** 2))  # E[(qᵀR_r k)²] = ‖R_r‖_F²
        rows.append(
            {
                "r": r,
                "mean_square": float(sq.mean()),
                "se": float(sq.std(ddof=1) / np.sqrt(n)),
                "mean_abs": float(np.abs(s).mean()),
                "exact_mean_square": exact,
            }
        )
    first, last = rows[0], rows[-1]
    decays = last["mean_square"] < first["mean_square"] - _common.MC_SIGMAS * np.hypot(first["se"], last["se"])
    flat = all(abs(x["mean_square"] - d) < _common.MC_SIGMAS * x["se"] for x in rows)
    exact_ok = all(abs(x["exact_mean_square"] - d) < _common.tol(d) * d for x in rows)
    # what does decay: the score of aligned pairs q = k = (1, …, 1) (RoFormer's bound B(r) is its envelope)
    rr = np.arange(0, 1101)
    ones = np.ones((rr.size, d))
    aligned = np.sum(
        rotary.rotate(ones, rotary.rope_angles(np.zeros_like(rr), d)) * rotary.rotate(ones, rotary.rope_angles(rr, d)),
        axis=-1,
    )
    far_mean = float(np.abs(aligned[100:]).mean())
    # The power of the test: a decay of the mean square by Δ between r = 0 and the last r is detected
    # (with probability ≥ 97.7%) once Δ exceeds (MC_SIGMAS + 2) standard errors of the difference;
    # the smallest such Δ, relative to d, must be below the aligned score's decay 1 − far_mean/d.
    detectable = float((_common.MC_SIGMAS + 2) * np.hypot(first["se"], last["se"]) / d)
    return Evidence(
        verdict=derive_verdict(bool(decays)),
        values={
            "by_distance": rows,
            "aligned_score_r0": float(aligned[0]),
            "aligned_mean_abs_r100_1100": far_mean,
            "smallest_detectable_relative_decay": detectable,
            "aligned_relative_decay": 1 - far_mean / d,
        },
        tolerance=f"a decay must lower the Monte-Carlo mean square by more than {_common.MC_SIGMAS:g} standard errors between "
        f"r = 0 and r = {r_grid[-1]}; each mean square within {_common.MC_SIGMAS:g} SE of d; ‖R_r‖_F² = d to rounding; "
        "the aligned score's mean magnitude over r ∈ [100, 1100] below d/2. Power: a relative decay of the mean "
        f"square above {detectable:.3f} ((MC_SIGMAS + 2) standard errors of the difference, over d) would have been "
        "detected with probability ≥ 97.7%; it must be smaller than the aligned score's decay",
        inputs={"d": d, "samples_per_r": n, "q_k": "iid N(0, I)", "m": "U{0..4095}", "seed": _common.SEED + 102},
        counterexample={
            "r": [first["r"], last["r"]],
            "mean_square": [first["mean_square"], last["mean_square"]],
            "se": [first["se"], last["se"]],
        },
        corrected=r"For i.i.d. zero-mean $q$, $k$ with unit-variance entries $R_r k$ has the law of $k$, so $q^\top R_r k$ has "
        r"the same distribution at every $r$ and $\mathbb{E}[(q^\top R_r k)^2] = \lVert R_r\rVert_F^2 = d$. What "
        r"decays (as a trend) is the bound $B(r)$ of §3.4.3, i.e. the score of aligned pairs such as "
        r"$q = k = (1, \ldots, 1)$, whose magnitude falls from $d$ at $r = 0$ to about $d/4$ on average over "
        r"$r \in [100, 1100]$.",
        corrected_holds=bool(flat and exact_ok and far_mean < d / 2 and detectable < 1 - far_mean / d),
    )


def _positive_features(T: int, d: int, D: int, offset: int) -> tuple[FloatArray, FloatArray]:
    rng = _common.rng(offset)
    q, k = 0.5 * rng.standard_normal((2, T, d))
    w = rff.sample_omega(D, d, seed=_common.SEED + offset)
    return rff.feature_map(q, w, "positive"), rff.feature_map(k, w, "positive")


@claim(
    "rope.eq19_weights",
    source="RoFormer §3.3, Eq. (19)",
    statement="RoPE linear attention (Eq. 19: rotated numerator, unrotated denominator) weights the values by "
    "non-negative weights that sum to 1",
    expected="fails",
)
def rope_eq19_weights() -> Evidence:
    T, d, D = 32, 8, 16
    fq, fk = _positive_features(T, d, D, 103)
    ang = rotary.rope_angles(np.arange(T), D)
    rq, rk = rotary.rotate(fq, ang), rotary.rotate(fk, ang)
    eye = np.eye(T)  # one-hot values read out the weights
    den = recurrence.linear_attention(fq, fk, np.ones((T, 1)))
    W19 = recurrence.linear_attention(rq, rk, eye) / den
    W18 = recurrence.linear_attention(fq, fk, eye) / den
    W_rot = recurrence.linear_attention(rq, rk, eye) / recurrence.linear_attention(rq, rk, np.ones((T, 1)))
    causal = np.tril(np.ones((T, T), bool))
    tol = _common.tol(T * D)
    sums19, sums18, sums_rot = W19.sum(axis=1), W18.sum(axis=1), W_rot.sum(axis=1)
    convex19 = bool(np.max(np.abs(sums19 - 1)) < tol and np.min(W19[causal]) >= -tol)
    convex18 = bool(np.max(np.abs(sums18 - 1)) < tol and np.min(W18[causal]) >= -tol)
    i = int(np.argmax(np.abs(sums19 - 1)))
    corrected_ok = (
        convex18
        and float(np.max(np.abs(sums19 - 1))) > 1e-3
        and float(np.min(W19[causal])) < -1e-3
        and float(np.max(np.abs(sums_rot - 1))) < 1e3 * tol
        and float(np.min(W_rot[causal])) < -1e-3
    )
    return Evidence(
        verdict=derive_verdict(convex19),
        values={
            "eq19_row_sums_min_max": [float(np.min(sums19)), float(np.max(sums19))],
            "eq19_min_weight": float(np.min(W19[causal])),
            "eq19_fraction_negative": float(np.mean(W19[causal] < 0)),
            "eq18_row_sum_error": float(np.max(np.abs(sums18 - 1))),
            "eq18_min_weight": float(np.min(W18[causal])),
            "rotated_denominator_row_sum_error": float(np.max(np.abs(sums_rot - 1))),
            "rotated_denominator_min_weight": float(np.min(W_rot[causal])),
        },
        tolerance=f"row sums 1 to {tol:.1e}, weights ≥ −{tol:.1e} (T·D accumulated roundings)",
        inputs={"T": T, "d": d, "features": "positive random features (Performer), D = 16", "seed": _common.SEED + 103},
        counterexample={"row": i, "row_sum": float(sums19[i]), "weights_of_row": W19[i, : i + 1].tolist()},
        corrected=r"Eq. (19)'s weights $w_{mn} = (R_m\phi(q_m))^\top (R_n\phi(k_n)) / \sum_n \phi(q_m)^\top\phi(k_n)$ take "
        r"both signs and their rows do not sum to 1, so Eq. (19) is not an average of the values; Eq. (18) "
        r"without rotation is (weights $\ge 0$, sums 1). Normalising by the rotated scores instead makes the "
        "rows sum to 1 but keeps negative weights.",
        corrected_holds=bool(corrected_ok),
    )


@claim(
    "nope.permutation",
    source="RoFormer §1, §2.1",
    statement="Without position encoding, shuffling the tokens leaves the attention output unchanged",
    expected="holds-if",
)
def nope_permutation() -> Evidence:
    rng, T, d = _common.rng(104), 12, 8
    q, k, v = rng.standard_normal((3, T, d))
    P = rng.permutation(T)
    errs = {}
    for name, causal in (("bidirectional", False), ("causal", True)):
        out = recurrence.softmax_attention(q, k, v, causal=causal)
        shuffled = recurrence.softmax_attention(q[P], k[P], v[P], causal=causal)
        errs[name] = _common.rel_err(shuffled, out[P])
    rope = rotary.rope_angles(np.arange(T), d)
    errs["bidirectional_with_rope"] = _common.rel_err(
        recurrence.softmax_attention(q[P], k[P], v[P], rope, causal=False),
        recurrence.softmax_attention(q, k, v, rope, causal=False)[P],
    )
    pooled = _common.rel_err(
        recurrence.softmax_attention(q[P], k[P], v[P], causal=False).sum(axis=0),
        recurrence.softmax_attention(q, k, v, causal=False).sum(axis=0),
    )
    tol = _common.tol(T * d)
    general = errs["bidirectional"] < tol and errs["causal"] < tol
    return Evidence(
        verdict=derive_verdict(general, errs["bidirectional"] < tol),
        values={"equivariance_error": errs, "pooled_output_error_bidirectional": pooled},
        tolerance=f"relative {tol:.1e}; a change counts when above 1e-3",
        inputs={"T": T, "d": d, "permutation": P.tolist(), "seed": _common.SEED + 104},
        condition="bidirectional (unmasked) attention, with the outputs permuted along with the tokens",
        counterexample={"mask": "causal", "relative_change_after_permuting": errs["causal"]},
        corrected=r"Without position encoding, bidirectional softmax attention is permutation-equivariant: "
        r"$o(Pq, Pk, Pv) = P\, o(q, k, v)$, and any symmetric pooling of the outputs is invariant. The causal mask "
        "is itself a position signal (not equivariant), and RoPE phases break the equivariance as intended.",
        corrected_holds=errs["bidirectional"] < tol
        and pooled < tol
        and errs["causal"] > 1e-3
        and errs["bidirectional_with_rope"] > 1e-3,
    )
