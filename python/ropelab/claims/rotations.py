"""Claims about rotations, recurrences and transitions: RoPE (RoFormer §3), the complex form,
the RoPE trick, Eq. (9), Eq. (11), Selective RoPE pre-rotation, gates, Householder reflections and
related models (Selective RoPE §2–§4.1 and App. A.1, A.2, A.5–A.7).
"""

from __future__ import annotations

from typing import Any, get_args

import numpy as np

from ropelab import recurrence, rff, rotary, temperature, transition
from ropelab._types import FloatArray, Layout
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260103
EPS = np.finfo(float).eps
LAYOUTS: tuple[Layout, ...] = get_args(Layout)  # = _core.rotary.layouts(), checked by the tests
MC_SIGMAS = 5.0  # Monte-Carlo agreement: within 5 standard errors (fixed seed)


def _rng(offset: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


def _rel_err(a: Any, b: Any) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.finfo(float).tiny))


def _tol(work: float) -> float:
    """Float64 rounding tolerance for a computation of ``work`` operations per output (×16 margin)."""
    return 16 * EPS * max(work, 1.0)


@claim(
    "rope.relative",
    source="RoFormer §3.2, Eq. (16)",
    statement="⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k: the score depends on m − n only",
    expected="holds",
)
def rope_relative() -> Evidence:
    """Check the claim ``rope.relative``; expected verdict: holds.

    Statement (RoFormer §3.2, Eq. (16)): ⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k: the score depends on m − n
    only.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(1), 64
    worst = 0.0
    for layout in LAYOUTS:
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
    tol = _tol(d) * 8192
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"|difference| ≤ {tol:.2e}·‖q‖‖k‖ (float64 rounding of angles up to ~8·10³ rad)",
        {"d": d, "pairs": 40, "positions": "0..4095", "layouts": list(LAYOUTS), "seed": SEED + 1},
    )


@claim(
    "rope.elementwise",
    source="RoFormer §3.4.2, Eq. (34)",
    statement="The element-wise cos/sin form equals the block-diagonal rotation matrix; the half layout "
    "equals the interleaved one up to a permutation",
    expected="holds",
)
def rope_elementwise() -> Evidence:
    """Check the claim ``rope.elementwise``; expected verdict: holds.

    Statement (RoFormer §3.4.2, Eq. (34)): The element-wise cos/sin form equals the block-diagonal
    rotation matrix; the half layout equals the interleaved one up to a permutation.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(2), 32
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
    e1, e2 = _rel_err(elementwise, matrix), _rel_err(interleaved, matrix)
    e3 = _rel_err(half, interleaved[:, perm])
    tol = _tol(4)
    return Evidence(
        derive_verdict(max(e1, e2, e3) < tol),
        {"elementwise_vs_matrix": e1, "rotate_vs_matrix": e2, "half_vs_permuted_interleaved": e3},
        f"relative {tol:.1e} (a few roundings per entry)",
        {"d": d, "positions": 8, "seed": SEED + 2},
    )


def _decay_figure() -> Any:
    from ropelab import plot

    return plot.decay_bound_curve(d=128, base=10000.0, r_max=20000)


@claim(
    "rope.decay",
    source="RoFormer §3.3, §3.4.3, Fig. 2",
    statement="The relative upper bound B(r) decays with the relative distance r (d = 128, base 10⁴)",
    expected="holds-if",
)
def rope_decay() -> Evidence:
    """Check the claim ``rope.decay``; expected verdict: holds-if.

    Statement (RoFormer §3.3, §3.4.3, Fig. 2): The relative upper bound B(r) decays with the
    relative distance r (d = 128, base 10⁴).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    r = np.arange(0, 20001)
    B = np.asarray(rotary.decay_bound(r, d=128, base=10000.0))
    monotone = bool(np.all(np.diff(B) <= 0))
    first_rise = int(np.argmax(np.diff(B) > 0))
    # The short-range trend: maxima over consecutive 32-position blocks fall over the first 128
    # positions, and B never returns above half its value at r = 0 once r ≥ 100.
    blocks = B[: 32 * 5].reshape(5, 32).max(axis=1)
    short_range = bool(np.all(np.diff(blocks[:4]) < 0)) and float(B[100:].max()) < B[0] / 2
    # Far away the local maxima stop decreasing: a later window peaks higher than an earlier one.
    peak_5k, peak_10k = float(B[5000:5200].max()), float(B[10000:10200].max())
    corrected_ok = short_range and not monotone and peak_10k > peak_5k
    return Evidence(
        verdict=derive_verdict(monotone, short_range),
        values={
            "B0": float(B[0]),
            "first_increase_at_r": first_rise,
            "B_at_first_increase": [float(B[first_rise]), float(B[first_rise + 1])],
            "block_maxima_first_160": blocks.tolist(),
            "max_B_beyond_100": float(B[100:].max()),
            "peak_5000_5200": peak_5k,
            "peak_10000_10200": peak_10k,
        },
        tolerance="exact comparisons of computed B values (differences are ≫ rounding)",
        inputs={"d": 128, "base": 10000.0, "r": "0..20000"},
        condition="only as a short-range trend: the block maxima fall over the first ~128 positions and B stays "
        "below B(0)/2 beyond r = 100",
        counterexample={
            "r": first_rise,
            "B(r)": float(B[first_rise]),
            "B(r+1)": float(B[first_rise + 1]),
            "peak over r in [5000, 5200]": peak_5k,
            "peak over r in [10000, 10200]": peak_10k,
        },
        corrected="B(r) falls from 32.5 to below half within ~100 positions but is not monotone, and beyond a few "
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
    """Check the claim ``rope.linear_attention``; expected verdict: holds.

    Statement (RoFormer §3.3, Eq. (19)): Rotations preserve norms, so RoPE composes with linear
    attention.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d, D = _rng(4), 48, 8, 16
    q, k = 0.5 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, 3))
    ang = rotary.rope_angles(np.arange(T), D)
    # RoFormer Eq. (19) with Performer's non-negative features φ (positive random features)
    w = rff.sample_omega(D, d, seed=SEED + 4)
    fq, fk = rff.feature_map(q, w, "positive"), rff.feature_map(k, w, "positive")
    rq, rk = rotary.rotate(fq, ang), rotary.rotate(fk, ang)
    norm_err = _rel_err(np.linalg.norm(rq, axis=-1), np.linalg.norm(fq, axis=-1))
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
        "eq19_toolkit_vs_formula": _rel_err(eq19, direct),
        "eq19_vs_relative_form": _rel_err(eq19, rel_form),
        "eq19_shift_by_1000_positions": _rel_err(shifted, eq19),
        "prerotated_vs_recurrent": _rel_err(num, rec),
    }
    tol = _tol(T * D)
    tol_shift = _tol(T * D) * 2048  # angles up to ~10³ rad: argument reduction costs |angle|·eps
    ok = (
        norm_err < _tol(D)
        and errs["eq19_toolkit_vs_formula"] < tol
        and errs["eq19_vs_relative_form"] < tol
        and errs["prerotated_vs_recurrent"] < tol
        and errs["eq19_shift_by_1000_positions"] < tol_shift
    )
    return Evidence(
        derive_verdict(ok),
        {"norm_error": norm_err} | errs,
        f"norms {_tol(D):.1e}; Eq. (19) routes {tol:.1e} relative (T·D accumulated roundings); shifted "
        f"positions {tol_shift:.1e} (angles up to ~10³ rad)",
        {"T": T, "d": d, "features": "positive random features, D = 16", "shift": s, "seed": SEED + 4},
    )


@claim(
    "complex.realify", source="Selective RoPE App. A.1", statement="Re{conj(k̃) e^{iθ} q̃} = kᵀ R(θ) q", expected="holds"
)
def complex_realify() -> Evidence:
    """Check the claim ``complex.realify``; expected verdict: holds.

    Statement (Selective RoPE App. A.1): Re{conj(k̃) e^{iθ} q̃} = kᵀ R(θ) q.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(5), 32
    worst = 0.0
    for layout in LAYOUTS:
        for _ in range(20):
            q, k = rng.standard_normal((2, d))
            th = rng.uniform(-np.pi, np.pi, d // 2)
            qc, kc = rotary.complexify(q, layout), rotary.complexify(k, layout)
            lhs = float(np.sum((np.conj(kc) * np.exp(1j * th) * qc).real))
            rhs = float(k @ rotary.rotation_matrix(th, layout) @ q)
            worst = max(worst, float(abs(lhs - rhs) / (np.linalg.norm(q) * np.linalg.norm(k))))
    tol = _tol(d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"{tol:.1e}·‖q‖‖k‖",
        {"d": d, "cases": 40, "layouts": list(LAYOUTS), "seed": SEED + 5},
    )


@claim(
    "rope.trick",
    source="Selective RoPE §2, Eqs. (5)–(7)",
    statement="k_τᵀ R^{t−τ} q_t = (R^τ k_τ)ᵀ (R^t q_t)",
    expected="holds",
)
def rope_trick() -> Evidence:
    """Check the claim ``rope.trick``; expected verdict: holds.

    Statement (Selective RoPE §2, Eqs. (5)–(7)): k_τᵀ R^{t−τ} q_t = (R^τ k_τ)ᵀ (R^t q_t).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(6), 16
    R = rotary.rotation_matrix(rotary.frequencies(d))
    worst = 0.0
    for _ in range(20):
        q, k = rng.standard_normal((2, d))
        tau, t = sorted(int(x) for x in rng.integers(0, 200, 2))
        lhs = k @ np.linalg.matrix_power(R, t - tau) @ q
        rhs = rotary.rotate(k, rotary.rope_angles(tau, d)) @ rotary.rotate(q, rotary.rope_angles(t, d))
        worst = max(worst, abs(lhs - rhs) / (np.linalg.norm(q) * np.linalg.norm(k)))
    tol = _tol(d * 200)  # up to 200 matrix products
    return Evidence(
        derive_verdict(worst < tol),
        {"max_error_over_norms": worst},
        f"{tol:.1e}·‖q‖‖k‖ (≤ 200 products)",
        {"d": d, "cases": 20, "seed": SEED + 6},
    )


def _rff_inputs(T: int, d: int, D: int, offset: int, constant_norm: bool) -> tuple[FloatArray, ...]:
    rng = _rng(offset)
    q, k = 0.4 * rng.standard_normal((2, T, d))
    if constant_norm:
        q = 0.5 * q / np.linalg.norm(q, axis=-1, keepdims=True)
    v = rng.standard_normal((T, 2))
    w = rng.standard_normal((D, d))
    return q, k, v, w


@claim(
    "rff.eq9_norm",
    source="Selective RoPE Eq. (9), App. A.2",
    statement="The pure-rotation recurrence (Eq. 9 without the amplitude factor) reproduces the RFF sum",
    expected="holds-if",
)
def eq9_norm() -> Evidence:
    """Check the claim ``rff.eq9_norm``; expected verdict: holds-if.

    Statement (Selective RoPE Eq. (9), App. A.2): The pure-rotation recurrence (Eq. 9 without the
    amplitude factor) reproduces the RFF sum.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    T, d, D = 48, 8, 16
    tol = _tol(T * d)
    errs = {}
    for name, const in (("varying_norm", False), ("constant_norm", True)):
        q, k, v, w = _rff_inputs(T, d, D, 7, const)
        direct = recurrence.rff_attention(q, k, v, w, mode="direct")
        errs[name + "_no_amplitude"] = _rel_err(
            recurrence.rff_attention(q, k, v, w, "recurrent", amplitude=False), direct
        )
        errs[name + "_with_amplitude"] = _rel_err(
            recurrence.rff_attention(q, k, v, w, "recurrent", amplitude=True), direct
        )
    general = errs["varying_norm_no_amplitude"] < tol
    conditional = errs["constant_norm_no_amplitude"] < tol
    corrected_ok = errs["varying_norm_with_amplitude"] < tol and errs["constant_norm_with_amplitude"] < tol
    return Evidence(
        verdict=derive_verdict(general, conditional),
        values=errs,
        tolerance=f"relative {tol:.1e} (T·d accumulated roundings)",
        inputs={"T": T, "d": d, "D": D, "seed": SEED + 7},
        condition="‖q_t‖ is constant over t",
        counterexample={"case": "‖q_t‖ varying", "relative_error_without_amplitude": errs["varying_norm_no_amplitude"]},
        corrected="With the amplitude factor e^{(‖q_t‖²−‖q_{t−1}‖²)/2} the recurrence equals the direct sum for any q.",
        corrected_holds=corrected_ok,
    )


@claim(
    "rff.telescoping",
    source="Selective RoPE §3.1, App. A.2",
    statement="The rotation increments telescope: Π e^{iω·(q_κ−q_{κ−1})} = e^{iω·(q_t−q_τ)}",
    expected="holds",
)
def telescoping() -> Evidence:
    """Check the claim ``rff.telescoping``; expected verdict: holds.

    Statement (Selective RoPE §3.1, App. A.2): The rotation increments telescope: Π
    e^{iω·(q_κ−q_{κ−1})} = e^{iω·(q_t−q_τ)}.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d, D = _rng(8), 40, 8, 12
    q, w = rng.standard_normal((T, d)), rng.standard_normal((D, d))
    tau = 5
    prod = recurrence.rff_increment_product(q, w, tau)
    closed = np.exp(1j * (q - q[tau]) @ w.T)
    err = _rel_err(prod[tau:], closed[tau:])
    tol = _tol(T * d) * 10  # phases of size ~10 rad accumulate
    return Evidence(
        derive_verdict(err < tol),
        {"max_error": err},
        f"{tol:.1e} absolute on unit-modulus products",
        {"T": T, "d": d, "D": D, "tau": tau, "seed": SEED + 8},
    )


@claim(
    "rff.softmax_no_position",
    source="Selective RoPE §3.1",
    statement="The RFF rotation alone carries no relative position: it depends on the endpoints only",
    expected="holds",
)
def softmax_no_position() -> Evidence:
    """Check the claim ``rff.softmax_no_position``; expected verdict: holds.

    Statement (Selective RoPE §3.1): The RFF rotation alone carries no relative position: it depends
    on the endpoints only.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d, D = _rng(9), 8, 12
    w = rng.standard_normal((D, d))
    start, end = rng.standard_normal((2, d))
    short = np.vstack([start, rng.standard_normal((3, d)), end])  # t − τ = 4
    long = np.vstack([start, rng.standard_normal((20, d)), end])  # t − τ = 21
    p_short = recurrence.rff_increment_product(short, w)[-1]
    p_long = recurrence.rff_increment_product(long, w)[-1]
    err = _rel_err(p_short, p_long)
    # Two query paths of the same length with equal endpoints but different middles: the RFF
    # score of the last query against the first key, computed by the Eq. (9) recurrence (which
    # rotates the state along the path), is the same for both.
    T = 16
    path_a = np.vstack([start, rng.standard_normal((T - 2, d)), end]) * 0.3
    path_b = np.vstack([start, rng.standard_normal((T - 2, d)), end]) * 0.3
    k = 0.3 * rng.standard_normal((T, d))
    v = np.zeros((T, 1))
    v[0, 0] = 1.0  # only the first key is written
    h_a = recurrence.rff_attention(path_a, k, v, w, mode="recurrent")[-1, :, 0]
    h_b = recurrence.rff_attention(path_b, k, v, w, mode="recurrent")[-1, :, 0]
    score_a, score_b = float(h_a.real.mean()), float(h_b.real.mean())
    path_err = _rel_err(h_a, h_b)
    middles_differ = float(np.max(np.abs(path_a[1:-1] - path_b[1:-1])))
    # contrast: a Selective RoPE phase driven by the same paths (angles = a projection of q_t
    # through a causal short convolution) does depend on the middle
    proj = rng.standard_normal((d, 2))
    kern = [0.3, -0.2, 0.5, 0.9]
    dpsi_a = rotary.selective_phase(path_a @ proj, kern)
    dpsi_b = rotary.selective_phase(path_b @ proj, kern)
    srope_diff = float(np.max(np.abs((dpsi_a[-1] - dpsi_a[0]) - (dpsi_b[-1] - dpsi_b[0]))))
    # and the RoPE factor between the same endpoints depends on t − τ
    rope_short = rotary.rope_angles(4, d)
    rope_long = rotary.rope_angles(21, d)
    tol = _tol(21 * d) * 10
    ok = err < tol and path_err < tol and srope_diff > 1e-3 and middles_differ > 1e-3
    return Evidence(
        derive_verdict(ok),
        {
            "rff_product_difference_lengths_4_vs_21": err,
            "rff_score_difference_equal_endpoints_same_length": path_err,
            "rff_score_path_a": score_a,
            "rff_score_path_b": score_b,
            "max_difference_of_the_middles": middles_differ,
            "selective_rope_phase_difference_same_paths": srope_diff,
            "rope_phase_difference": float(np.max(np.abs(rope_long - rope_short))),
        },
        f"{tol:.1e} relative for equal products and scores; the Selective RoPE contrast must differ by "
        "more than 1e-3 rad",
        {"d": d, "D": D, "distances": [4, 21], "T": T, "seed": SEED + 9},
    )


@claim(
    "eq11.index",
    source="Selective RoPE Eqs. (3), (11)",
    statement="The unrolled product of Eq. (11) starts at τ: o_t = Σ_τ v_τ k_τᵀ (A_τ ⋯ A_t) q_t",
    expected="fails",
)
def eq11_index() -> Evidence:
    """Check the claim ``eq11.index``; expected verdict: fails.

    Statement (Selective RoPE Eqs. (3), (11)): The unrolled product of Eq. (11) starts at τ: o_t =
    Σ_τ v_τ k_τᵀ (A_τ ⋯ A_t) q_t.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(10), 24, 6
    q, k, v = rng.standard_normal((3, T, d))
    A = 0.9 * np.eye(d) + 0.05 * rng.standard_normal((T, d, d))
    rec = recurrence.linear_attention(q, k, v, A)
    at_tau = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau")
    at_tau1 = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau+1")
    ident = np.broadcast_to(np.eye(d), (T, d, d))
    id_rec = recurrence.linear_attention(q, k, v, ident)
    id_tau = recurrence.linear_attention(q, k, v, ident, mode="unrolled", product_start="tau")
    tol = _tol(T * d * d)
    e_tau, e_tau1, e_id = _rel_err(at_tau, rec), _rel_err(at_tau1, rec), _rel_err(id_tau, id_rec)
    return Evidence(
        verdict=derive_verdict(e_tau < tol),
        values={
            "start_tau_vs_recurrence": e_tau,
            "start_tau_plus_1_vs_recurrence": e_tau1,
            "start_tau_with_identity": e_id,
        },
        tolerance=f"relative {tol:.1e} (T·d² accumulated roundings)",
        inputs={"T": T, "d": d, "A": "0.9 I + 0.05 N(0,1)", "seed": SEED + 10},
        counterexample={"relative_difference_start_tau": e_tau, "agrees_when_all_A_are_I": e_id < tol},
        corrected="o_t = Σ_{τ≤t} v_τ k_τᵀ (A_{τ+1} ⋯ A_t) q_t: the product starts at τ+1 (the key enters after A_τ "
        "is applied).",
        corrected_holds=e_tau1 < tol,
    )


def _srope_inputs(T: int, d: int, offset: int) -> tuple[FloatArray, ...]:
    rng = _rng(offset)
    q, k, v = rng.standard_normal((3, T, d))
    psi = rotary.cumulative_phase(rng.standard_normal((T, d // 2)))
    return q, k, v, psi


@claim(
    "srope.prerotation",
    source="Selective RoPE Eq. (13), §4.1",
    statement="Pre-rotating q, k by C_t equals the recurrence with rotating transitions (Eq. 13)",
    expected="holds",
)
def srope_prerotation() -> Evidence:
    """Check the claim ``srope.prerotation``; expected verdict: holds.

    Statement (Selective RoPE Eq. (13), §4.1): Pre-rotating q, k by C_t equals the recurrence with
    rotating transitions (Eq. 13).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    T, d = 64, 16
    q, k, v, psi = _srope_inputs(T, d, 11)
    worst = 0.0
    for layout in LAYOUTS:
        a = recurrence.selective_rope_attention(q, k, v, psi, mode="prerotated", layout=layout)
        b = recurrence.selective_rope_attention(q, k, v, psi, mode="recurrent", layout=layout)
        worst = max(worst, _rel_err(a, b))
    # third route: Eq. (3) unrolled with R_t = C_{t−1}ᵀ C_t
    R = transition.effective_sequence(psi)
    c = recurrence.linear_attention(q, k, v, R, mode="unrolled")
    worst = max(worst, _rel_err(c, recurrence.selective_rope_attention(q, k, v, psi)))
    tol = _tol(T * d * d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_relative_difference": worst},
        f"relative {tol:.1e}",
        {"T": T, "d": d, "layouts": list(LAYOUTS), "seed": SEED + 11},
    )


@claim(
    "srope.parity",
    source="Selective RoPE §4.1–§4.2",
    statement="ω_t = π b_t tracks the parity of the bits in the phase; fixed RoPE cannot depend on b_t",
    expected="holds",
)
def srope_parity() -> Evidence:
    """Check the claim ``srope.parity``; expected verdict: holds.

    Statement (Selective RoPE §4.1–§4.2): ω_t = π b_t tracks the parity of the bits in the phase;
    fixed RoPE cannot depend on b_t.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T = _rng(12), 100_000
    bits = rng.integers(0, 2, T)
    psi = rotary.cumulative_phase((np.pi * bits)[:, None], 1.0, accumulate="wrapped")[:, 0]
    parity = (-1.0) ** np.cumsum(bits)
    err = float(np.max(np.abs(np.cos(psi) - parity)))
    # Pairs of bit strings with equal first and last bits and opposite parity in between (one
    # middle bit flipped). Tokens embed their bit: e(0) = (1, 0), e(1) = (cos 1, sin 1); the score
    # of the last query against the first key is computed from each string's own inputs.
    L, pairs = 64, 200
    emb = np.array([[1.0, 0.0], [np.cos(1.0), np.sin(1.0)]])
    rope_ang = rotary.rope_angles(np.arange(L), 2)
    rope_gap = srope_sep = middle_seen = 0.0
    min_abs = np.inf
    for _ in range(pairs):
        a = rng.integers(0, 2, L)
        b = a.copy()
        j = int(rng.integers(1, L - 1))
        b[j] ^= 1
        scores = {}
        for name, s in (("a", a), ("b", b)):
            x = emb[s]
            xr = rotary.rotate(x, rope_ang)
            ph = rotary.cumulative_phase((np.pi * s)[:, None], 1.0, accumulate="wrapped")
            xs = rotary.rotate(x, ph)
            scores[name] = (xr @ xr.T, xs @ xs.T)
        (ra, sa), (rb, sb) = scores["a"], scores["b"]
        rope_gap = max(rope_gap, abs(ra[-1, 0] - rb[-1, 0]))
        middle_seen = max(middle_seen, abs(ra[j, 0] - rb[j, 0]))  # the inputs really differ
        srope_sep = max(srope_sep, abs(sa[-1, 0] + sb[-1, 0]))  # opposite signs: sum ≈ 0
        min_abs = min(min_abs, abs(sa[-1, 0]))
    tol = 1e-12
    ok = err < tol and rope_gap < tol and middle_seen > 0.1 and srope_sep < tol and min_abs > 0.5
    return Evidence(
        derive_verdict(ok),
        {
            "max_cos_psi_minus_parity": err,
            "rope_score_difference_opposite_parity": float(rope_gap),
            "rope_score_difference_at_flipped_token": float(middle_seen),
            "selective_score_a_plus_b": float(srope_sep),
            "selective_min_abs_score": float(min_abs),
        },
        f"|cos ψ_t − (−1)^Σb| < {tol:g} (wrapped accumulation keeps ψ in [0, 2π)); RoPE scores of the two "
        f"strings equal to {tol:g}; Selective RoPE scores opposite (|s_a + s_b| < {tol:g}, |s| > 0.5)",
        {"T": T, "theta": 1.0, "pairs": pairs, "length": L, "seed": SEED + 12},
    )


def _gates(rng: np.random.Generator, T: int, d: int, shared: bool) -> FloatArray:
    return rng.uniform(0.3, 1.0, (T, d // 2 if shared else d))


@claim(
    "gate.effective",
    source="Selective RoPE §3.3",
    statement="Gated pre-rotation equals the recurrence with A^eff = C_{t−1}ᵀ Λ_t C_t",
    expected="holds",
)
def gate_effective() -> Evidence:
    """Check the claim ``gate.effective``; expected verdict: holds.

    Statement (Selective RoPE §3.3): Gated pre-rotation equals the recurrence with A^eff = C_{t−1}ᵀ
    Λ_t C_t.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    T, d = 48, 8
    q, k, v, psi = _srope_inputs(T, d, 13)
    g = _gates(_rng(14), T, d, shared=False)
    pre = recurrence.selective_rope_attention(q, k, v, psi, g, mode="prerotated")
    A = transition.effective_sequence(psi, g)
    eq3 = recurrence.linear_attention(q, k, v, A, mode="recurrent")
    err = _rel_err(pre, eq3)
    tol = _tol(T * d * d)
    return Evidence(
        derive_verdict(err < tol),
        {"prerotated_vs_eq3_with_A_eff": err},
        f"relative {tol:.1e}",
        {"T": T, "d": d, "gates": "per channel, U(0.3, 1)", "seed": SEED + 13},
    )


@claim(
    "gate.commute",
    source="Selective RoPE §3.3",
    statement="A^eff = Λ_t R_t for any diagonal gate Λ_t",
    expected="holds-if",
)
def gate_commute() -> Evidence:
    """Check the claim ``gate.commute``; expected verdict: holds-if.

    Statement (Selective RoPE §3.3): A^eff = Λ_t R_t for any diagonal gate Λ_t.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(15), 8
    psi_prev, psi_t = rng.uniform(-np.pi, np.pi, (2, d // 2))
    R = rotary.rotation_matrix(psi_t - psi_prev)
    shared = rng.uniform(0.3, 1.0, d // 2)
    per_channel = rng.uniform(0.3, 1.0, d)
    e_shared = _rel_err(transition.effective(psi_prev, psi_t, shared), np.diag(np.repeat(shared, 2)) @ R)
    e_channel = _rel_err(transition.effective(psi_prev, psi_t, per_channel), np.diag(per_channel) @ R)
    c_shared = transition.commutator_norm(psi_prev, shared)
    c_channel = transition.commutator_norm(psi_prev, per_channel)
    tol = _tol(d)
    return Evidence(
        verdict=derive_verdict(e_channel < tol, e_shared < tol),
        values={
            "pair_shared_gate_error": e_shared,
            "per_channel_gate_error": e_channel,
            "commutator_norm_shared": float(c_shared),
            "commutator_norm_per_channel": float(c_channel),
        },
        tolerance=f"relative {tol:.1e}",
        inputs={"d": d, "seed": SEED + 15},
        condition="the gate is shared by the two channels of each rotation pair (then Λ_t commutes with C_{t−1})",
        counterexample={
            "gate": "per channel, distinct within a pair",
            "relative_difference": e_channel,
            "commutator_norm": float(c_channel),
        },
        corrected="A^eff = C_{t−1}ᵀ Λ_t C_t, which equals Λ_t R_t iff [Λ_t, C_{t−1}] = 0 (e.g. one decay per pair).",
        corrected_holds=e_shared < tol and float(c_shared) < tol and float(c_channel) > 1e-3,
    )


@claim("gate.norm", source="Selective RoPE §3.3", statement="‖A^eff‖₂ = ‖Λ_t‖₂ for every gate", expected="holds")
def gate_norm() -> Evidence:
    """Check the claim ``gate.norm``; expected verdict: holds.

    Statement (Selective RoPE §3.3): ‖A^eff‖₂ = ‖Λ_t‖₂ for every gate.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(16), 8
    worst = 0.0
    for _ in range(50):
        psi_prev, psi_t = rng.uniform(-np.pi, np.pi, (2, d // 2))
        g = rng.uniform(0.0, 1.0, d)
        worst = max(worst, abs(float(transition.spectral_norm(transition.effective(psi_prev, psi_t, g))) - np.max(g)))
    tol = _tol(d * d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_norm_difference": worst},
        f"absolute {tol:.1e}",
        {"d": d, "cases": 50, "gates": "per channel U(0, 1)", "seed": SEED + 16},
    )


@claim(
    "householder.rotation",
    source="Selective RoPE App. A.5",
    statement="Two Householder reflections compose into a 2-D rotation by twice the angle between them",
    expected="holds",
)
def householder_rotation() -> Evidence:
    """Check the claim ``householder.rotation``; expected verdict: holds.

    Statement (Selective RoPE App. A.5): Two Householder reflections compose into a 2-D rotation by
    twice the angle between them.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(17), 6
    worst = 0.0
    for _ in range(20):
        w1, w2 = rng.standard_normal((2, d))
        P = transition.householder_product(np.stack([w1, w2]))
        e1 = w1 / np.linalg.norm(w1)
        u = w2 - (w2 @ e1) * e1
        e2 = u / np.linalg.norm(u)
        phi = np.arccos(np.clip(abs(w1 @ w2) / (np.linalg.norm(w1) * np.linalg.norm(w2)), -1, 1))
        B = np.stack([e1, e2], axis=1)
        M = B.T @ P @ B
        angle = abs(np.arctan2(M[1, 0], M[0, 0]))
        target = 2 * phi if 2 * phi <= np.pi else 2 * np.pi - 2 * phi
        complement = np.eye(d) - B @ B.T
        worst = max(
            worst,
            abs(angle - target),
            _rel_err(P @ complement, complement),
            _rel_err(P.T @ P, np.eye(d)),
            abs(np.linalg.det(P) - 1),
        )
    tol = _tol(d * d) * 100  # arccos near 0 / π amplifies rounding
    return Evidence(
        derive_verdict(worst < tol),
        {"max_deviation": worst},
        f"{tol:.1e} (angles in rad, matrices relative)",
        {"d": d, "cases": 20, "seed": SEED + 17},
    )


@claim(
    "householder.delta",
    source="Selective RoPE App. A.5",
    statement="The generalised Householder I − β w wᵀ is norm-preserving for general β",
    expected="fails",
)
def householder_delta() -> Evidence:
    """Check the claim ``householder.delta``; expected verdict: fails.

    Statement (Selective RoPE App. A.5): The generalised Householder I − β w wᵀ is norm-preserving
    for general β.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(18), 6
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    rows = []
    for beta in (-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 2.5):
        H = transition.generalized_householder(w, beta)
        s = transition.singular_values(H)
        ev = np.sort(transition.eigenvalues(H).real)
        rows.append(
            {
                "beta": beta,
                "spectral_norm": float(np.max(s)),
                "min_singular": float(np.min(s)),
                "orthogonal": bool(_rel_err(H.T @ H, np.eye(d)) < _tol(d)),
                "eigenvalue_along_w": float(ev[0] if beta > 0 else ev[-1]),
            }
        )
    general = all(r["orthogonal"] for r in rows)
    corrected_ok = (
        all(r["orthogonal"] == (r["beta"] in (0.0, 2.0)) for r in rows)
        and all((r["spectral_norm"] <= 1 + _tol(d)) == (0 <= r["beta"] <= 2) for r in rows)
        and all(abs(r["eigenvalue_along_w"] - (1 - r["beta"])) < _tol(d) for r in rows)
    )
    bad = next((r for r in rows if not r["orthogonal"]), None)
    return Evidence(
        verdict=derive_verdict(general),
        values={"betas": rows},
        tolerance=f"orthogonality ‖HᵀH − I‖ < {_tol(d):.1e}",
        inputs={"d": d, "seed": SEED + 18},
        counterexample=bad,
        corrected="I − βwwᵀ (‖w‖ = 1) has eigenvalue 1 − β along w and 1 elsewhere: it is orthogonal iff β ∈ {0, 2} "
        "and non-expansive (‖·‖₂ ≤ 1) iff β ∈ [0, 2].",
        corrected_holds=corrected_ok,
    )


@claim(
    "alibi.decay",
    source="Selective RoPE App. A.7",
    statement="The ALiBi bias −m(t−τ) is an exponential decay e^{−m(t−τ)}; FoX is a product of gates",
    expected="holds",
)
def alibi_decay() -> Evidence:
    """Check the claim ``alibi.decay``; expected verdict: holds.

    Statement (Selective RoPE App. A.7): The ALiBi bias −m(t−τ) is an exponential decay e^{−m(t−τ)};
    FoX is a product of gates.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(19), 40, 6
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
        "alibi_direct_vs_recurrent": _rel_err(direct, rec),
        "alibi_vs_eq3_decay": _rel_err(direct, as_eq3),
        "alibi_vs_bias_formula": _rel_err(direct, scratch),
        "fox_direct_vs_recurrent": _rel_err(fox_d, fox_r),
        "fox_vs_eq3_gates": _rel_err(fox_d, fox_eq3),
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
        softmax_err = max(softmax_err, _rel_err(weights, kern / kern.sum(axis=1, keepdims=True)))
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
    tol = _tol(T * d)
    tol_soft = _tol(T * dh) * 64  # exponentials of logits up to m·T ≈ 20 amplify rounding
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
        {"T": T, "d": d, "slope": m, "forget": "U(0.5, 1)", "heads": H, "head_dim": dh, "seed": SEED + 19},
    )


@claim(
    "cosformer.states",
    source="Selective RoPE App. A.6",
    statement="The cosFormer weight cos(π(t−τ)/(2M)) is realised by a cos-state and a sin-state",
    expected="holds",
)
def cosformer_states() -> Evidence:
    """Check the claim ``cosformer.states``; expected verdict: holds.

    Statement (Selective RoPE App. A.6): The cosFormer weight cos(π(t−τ)/(2M)) is realised by a cos-
    state and a sin-state.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(20), 50, 6
    q, k, v = np.abs(rng.standard_normal((3, T, d)))
    direct = recurrence.cosformer_attention(q, k, v, mode="direct")
    rec = recurrence.cosformer_attention(q, k, v, mode="recurrent")
    t = np.arange(T)
    W = np.tril(np.cos(np.pi * (t[:, None] - t[None, :]) / (2 * T)) * (q @ k.T))
    errs = {"direct_vs_recurrent": _rel_err(direct, rec), "direct_vs_formula": _rel_err(direct, W @ v)}
    tol = _tol(T * d)
    return Evidence(
        derive_verdict(max(errs.values()) < tol),
        errs,
        f"relative {tol:.1e}",
        {"T": T, "d": d, "M": T, "seed": SEED + 20},
    )


@claim(
    "prf.transition_gt1",
    source="Selective RoPE App. A.6",
    statement="The positive-random-feature transition factor e^{ω·(q_t−q_{t−1})} can exceed 1",
    expected="holds",
)
def prf_transition_gt1() -> Evidence:
    """Check the claim ``prf.transition_gt1``; expected verdict: holds.

    Statement (Selective RoPE App. A.6): The positive-random-feature transition factor
    e^{ω·(q_t−q_{t−1})} can exceed 1.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d, D = _rng(21), 200, 8, 64
    q = 0.3 * rng.standard_normal((T, d))
    w = rng.standard_normal((D, d))
    f = transition.prf_transition_factor(q, w)
    frac = float(np.mean(f > 1))
    dist = transition.prf_factor_distribution(float(np.linalg.norm(q[1] - q[0])))
    n = f.size
    # P(f > 1) = 1/2 per entry; the entries are not independent across features of one step, so
    # only the existence of factors > 1 is the claim; the fraction is reported.
    return Evidence(
        derive_verdict(float(np.max(f)) > 1 + 1e-12 and dist.prob_gt_one > 0.25),
        {
            "max_factor": float(np.max(f)),
            "fraction_above_1": frac,
            "entries": n,
            "lognormal_mean_step_1": dist.mean,
            "lognormal_prob_gt_1": dist.prob_gt_one,
        },
        "max factor > 1 + 1e-12",
        {"T": T, "d": d, "D": D, "seed": SEED + 21},
    )


# ---- second wave ---------------------------------------------------------------------------------


@claim(
    "rope.dot_cos_only",
    source="RoFormer §3.2.1, Eq. (12)",
    statement="In 2-D the rotated score ⟨R_m q, R_n k⟩ equals (q·k)·cos((m−n)θ)",
    expected="fails",
)
def rope_dot_cos_only() -> Evidence:
    """Check the claim ``rope.dot_cos_only``; expected verdict: fails.

    Statement (RoFormer §3.2.1, Eq. (12)): In 2-D the rotated score ⟨R_m q, R_n k⟩ equals
    (q·k)·cos((m−n)θ).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(101), 2
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
    tol = _tol(d) * 1024  # angles up to 512 rad
    return Evidence(
        verdict=derive_verdict(worst_cos < tol),
        values={
            "max_error_cos_only_over_norms": worst_cos,
            "max_error_with_sin_term_over_norms": worst_full,
            "max_error_cos_only_when_k_parallel_q": worst_parallel,
        },
        tolerance=f"{tol:.1e}·‖q‖‖k‖ (float64 rounding of angles up to 512 rad)",
        inputs={"d": 2, "theta": 1.0, "cases": 50, "positions": "0..511", "seed": SEED + 101},
        counterexample={
            "q": q0.tolist(),
            "k": k0.tolist(),
            "m": 1,
            "n": 0,
            "rotated_score": ce,
            "cos_only_formula": 0.0,
        },
        corrected="⟨R_m q, R_n k⟩ = (q·k) cos((m−n)θ) + (q₁k₂ − q₂k₁) sin((m−n)θ) = Re[q̃ conj(k̃) e^{i(m−n)θ}] "
        "(Eq. 12); the cos-only form holds iff q₁k₂ = q₂k₁ (q ∥ k).",
        corrected_holds=worst_full < tol and worst_parallel < tol,
    )


@claim(
    "rope.expected_decay",
    source="RoFormer §3.3, §3.4.3",
    statement="The expected magnitude of the RoPE score qᵀR_r k decays as the relative distance r grows",
    expected="fails",
)
def rope_expected_decay() -> Evidence:
    """Check the claim ``rope.expected_decay``; expected verdict: fails.

    Statement (RoFormer §3.3, §3.4.3): The expected magnitude of the RoPE score qᵀR_r k decays
    as the relative distance r grows.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d, n = _rng(102), 128, 4000
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
    decays = last["mean_square"] < first["mean_square"] - MC_SIGMAS * np.hypot(first["se"], last["se"])
    flat = all(abs(x["mean_square"] - d) < MC_SIGMAS * x["se"] for x in rows)
    exact_ok = all(abs(x["exact_mean_square"] - d) < _tol(d) * d for x in rows)
    # what does decay: the score of aligned pairs q = k = (1, …, 1) (RoFormer's bound B(r) is its envelope)
    rr = np.arange(0, 1101)
    ones = np.ones((rr.size, d))
    aligned = np.sum(
        rotary.rotate(ones, rotary.rope_angles(np.zeros_like(rr), d)) * rotary.rotate(ones, rotary.rope_angles(rr, d)),
        axis=-1,
    )
    far_mean = float(np.abs(aligned[100:]).mean())
    return Evidence(
        verdict=derive_verdict(bool(decays)),
        values={"by_distance": rows, "aligned_score_r0": float(aligned[0]), "aligned_mean_abs_r100_1100": far_mean},
        tolerance=f"a decay must lower the Monte-Carlo mean square by more than {MC_SIGMAS:g} standard errors between "
        f"r = 0 and r = {r_grid[-1]}; each mean square within {MC_SIGMAS:g} SE of d; ‖R_r‖_F² = d to rounding; "
        "the aligned score's mean magnitude over r ∈ [100, 1100] below d/2",
        inputs={"d": d, "samples_per_r": n, "q_k": "iid N(0, I)", "m": "U{0..4095}", "seed": SEED + 102},
        counterexample={
            "r": [first["r"], last["r"]],
            "mean_square": [first["mean_square"], last["mean_square"]],
            "se": [first["se"], last["se"]],
        },
        corrected="For iid zero-mean q, k with unit-variance entries R_r k has the law of k, so qᵀR_r k has the same "
        "distribution at every r and E[(qᵀR_r k)²] = ‖R_r‖_F² = d. What decays (as a trend) is the bound "
        "B(r) of §3.4.3, i.e. the score of aligned pairs such as q = k = (1, …, 1), whose magnitude falls from d at "
        "r = 0 to about d/4 on average over r ∈ [100, 1100].",
        corrected_holds=bool(flat and exact_ok and far_mean < d / 2),
    )


def _positive_features(T: int, d: int, D: int, offset: int) -> tuple[FloatArray, FloatArray]:
    rng = _rng(offset)
    q, k = 0.5 * rng.standard_normal((2, T, d))
    w = rff.sample_omega(D, d, seed=SEED + offset)
    return rff.feature_map(q, w, "positive"), rff.feature_map(k, w, "positive")


@claim(
    "rope.eq19_weights",
    source="RoFormer §3.3, Eq. (19)",
    statement="RoPE linear attention (Eq. 19: rotated numerator, unrotated denominator) weights the values by "
    "non-negative weights that sum to 1",
    expected="fails",
)
def rope_eq19_weights() -> Evidence:
    """Check the claim ``rope.eq19_weights``; expected verdict: fails.

    Statement (RoFormer §3.3, Eq. (19)): RoPE linear attention (Eq. 19: rotated numerator,
    unrotated denominator) weights the values by non-negative weights that sum to 1.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
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
    tol = _tol(T * D)
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
        inputs={"T": T, "d": d, "features": "positive random features (Performer), D = 16", "seed": SEED + 103},
        counterexample={"row": i, "row_sum": float(sums19[i]), "weights_of_row": W19[i, : i + 1].tolist()},
        corrected="Eq. (19)'s weights w_mn = (R_mφ(q_m))ᵀ(R_nφ(k_n)) / Σ_n φ(q_m)ᵀφ(k_n) take both signs and their "
        "rows do not sum to 1, so Eq. (19) is not an average of the values; Eq. (18) without rotation is (weights "
        "≥ 0, sums 1). Normalising by the rotated scores instead makes the rows sum to 1 but keeps negative "
        "weights.",
        corrected_holds=bool(corrected_ok),
    )


@claim(
    "nope.permutation",
    source="RoFormer §1, §2.1",
    statement="Without position encoding, shuffling the tokens leaves the attention output unchanged",
    expected="holds-if",
)
def nope_permutation() -> Evidence:
    """Check the claim ``nope.permutation``; expected verdict: holds-if.

    Statement (RoFormer §1, §2.1): Without position encoding, shuffling the tokens leaves the
    attention output unchanged.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(104), 12, 8
    q, k, v = rng.standard_normal((3, T, d))
    P = rng.permutation(T)
    errs = {}
    for name, causal in (("bidirectional", False), ("causal", True)):
        out = recurrence.softmax_attention(q, k, v, causal=causal)
        shuffled = recurrence.softmax_attention(q[P], k[P], v[P], causal=causal)
        errs[name] = _rel_err(shuffled, out[P])
    rope = rotary.rope_angles(np.arange(T), d)
    errs["bidirectional_with_rope"] = _rel_err(
        recurrence.softmax_attention(q[P], k[P], v[P], rope, causal=False),
        recurrence.softmax_attention(q, k, v, rope, causal=False)[P],
    )
    pooled = _rel_err(
        recurrence.softmax_attention(q[P], k[P], v[P], causal=False).sum(axis=0),
        recurrence.softmax_attention(q, k, v, causal=False).sum(axis=0),
    )
    tol = _tol(T * d)
    general = errs["bidirectional"] < tol and errs["causal"] < tol
    return Evidence(
        verdict=derive_verdict(general, errs["bidirectional"] < tol),
        values={"equivariance_error": errs, "pooled_output_error_bidirectional": pooled},
        tolerance=f"relative {tol:.1e}; a change counts when above 1e-3",
        inputs={"T": T, "d": d, "permutation": P.tolist(), "seed": SEED + 104},
        condition="bidirectional (unmasked) attention, with the outputs permuted along with the tokens",
        counterexample={"mask": "causal", "relative_change_after_permuting": errs["causal"]},
        corrected="Without position encoding, bidirectional softmax attention is permutation-equivariant: "
        "o(Pq, Pk, Pv) = P·o(q, k, v), and any symmetric pooling of the outputs is invariant. The causal mask "
        "is itself a position signal (not equivariant), and RoPE phases break the equivariance as intended.",
        corrected_holds=errs["bidirectional"] < tol
        and pooled < tol
        and errs["causal"] > 1e-3
        and errs["bidirectional_with_rope"] > 1e-3,
    )


@claim(
    "gate.positive_no_flip",
    source="Selective RoPE §1",
    statement="Products of positive diagonal gates cannot realise a sign flip, so they cannot track parity",
    expected="holds",
)
def gate_positive_no_flip() -> Evidence:
    """Check the claim ``gate.positive_no_flip``; expected verdict: holds.

    Statement (Selective RoPE §1): Products of positive diagonal gates cannot realise a sign
    flip, so they cannot track parity.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d, trials = _rng(105), 64, 4, 100
    min_gated = np.inf
    parity_negative = rot_mismatch = 0
    for _ in range(trials):
        bits = rng.integers(0, 2, T)
        g0, g1 = rng.uniform(0.2, 1.0, (2, d))  # any positive, bit-dependent gate
        gates = np.where(bits[:, None] == 1, g1, g0)
        A = transition.effective_sequence(np.zeros((T, d // 2)), gates)  # no rotation: A_t = Λ_t
        x0 = rng.standard_normal(d)
        q = np.broadcast_to(x0, (T, d))
        k = np.zeros((T, d))
        k[0] = x0
        v = np.zeros((T, 1))
        v[0, 0] = 1.0  # one write at t = 0, read at every t
        o = recurrence.linear_attention(q, k, v, A)[:, 0]
        parity = (-1.0) ** np.cumsum(np.r_[0, bits[1:]])
        min_gated = min(min_gated, float(np.min(o)))
        parity_negative += int(np.sum(parity < 0))
        psi = rotary.cumulative_phase((np.pi * bits)[:, None] * np.ones((1, d // 2)), 1.0, accumulate="wrapped")
        o_rot = recurrence.selective_rope_attention(q, k, v, psi)[:, 0]
        rot_mismatch += int(np.sum(np.sign(o_rot) != parity))
    ok = min_gated > 0 and parity_negative > 0 and rot_mismatch == 0
    return Evidence(
        derive_verdict(ok),
        {
            "min_readout_positive_gates": min_gated,
            "steps_with_odd_parity": parity_negative,
            "rotation_sign_mismatches": rot_mismatch,
        },
        "exact signs: every positively gated readout x₀ᵀΛ₁⋯Λ_t x₀ > 0, while (−1)^{Σb} < 0 at the counted "
        "steps; the π·b rotation's readout has the sign of the parity at every step",
        {"T": T, "d": d, "trials": trials, "gates": "bit-dependent, U(0.2, 1) per channel", "seed": SEED + 105},
    )


@claim(
    "gate.direction",
    source="Selective RoPE §1, Fig. 1",
    statement="A per-channel diagonal scaling can change a vector's direction",
    expected="holds",
)
def gate_direction() -> Evidence:
    """Check the claim ``gate.direction``; expected verdict: holds.

    Statement (Selective RoPE §1, Fig. 1): A per-channel diagonal scaling can change a vector's
    direction.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, d = _rng(106), 8

    def angle(x: FloatArray, y: FloatArray) -> float:
        c = float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))
        s = float(np.linalg.norm(y - (y @ x) / (x @ x) * x) / np.linalg.norm(y))
        return float(np.arctan2(s, c))

    zero = np.zeros(d // 2)
    worst_scalar = 0.0
    min_channel = np.inf
    for _ in range(20):
        x = rng.standard_normal(d)
        g = rng.uniform(0.1, 1.0, d)
        min_channel = min(min_channel, angle(x, transition.effective(zero, zero, g) @ x))
        c = float(rng.uniform(0.1, 1.0))
        worst_scalar = max(worst_scalar, angle(x, transition.effective(zero, zero, np.full(d, c)) @ x))
    two_d = angle(
        np.array([1.0, 1.0]),
        transition.effective(np.zeros(1), np.zeros(1), np.array([1.0, 0.5])) @ np.array([1.0, 1.0]),
    )
    expected_2d = np.pi / 4 - np.arctan(0.5)
    ok = min_channel > 1e-3 and worst_scalar < 1e-14 and abs(two_d - expected_2d) < 1e-14
    return Evidence(
        derive_verdict(ok),
        {
            "min_angle_per_channel_gate_rad": min_channel,
            "max_angle_scalar_gate_rad": worst_scalar,
            "angle_x_(1,1)_gate_(1,0.5)_deg": float(np.degrees(two_d)),
        },
        "angles from atan2 (no arccos cancellation): per-channel gates turn every random x by > 1e-3 rad; a "
        "scalar gate by < 1e-14 rad; the 2-D example equals π/4 − atan(½) to 1e-14",
        {"d": d, "cases": 20, "gates": "U(0.1, 1)", "seed": SEED + 106},
    )


@claim(
    "eq11.convention",
    source="Selective RoPE §3.3, Eq. (11)",
    statement="Eq. (11) as printed (product from A_τ) is exact for the write-then-transition recurrence "
    "S_t = (S_{t−1} + v_t k_tᵀ) A_t",
    expected="holds",
)
def eq11_convention() -> Evidence:
    """Check the claim ``eq11.convention``; expected verdict: holds.

    Statement (Selective RoPE §3.3, Eq. (11)): Eq. (11) as printed (product from A_τ) is exact
    for the write-then-transition recurrence S_t = (S_{t−1} + v_t k_tᵀ) A_t.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(107), 24, 6
    q, k, v = rng.standard_normal((3, T, d))
    A = 0.9 * np.eye(d) + 0.05 * rng.standard_normal((T, d, d))
    printed = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau")
    # S_t = S_{t−1} A_t + v_t (A_tᵀ k_t)ᵀ is the write-then-transition recurrence in Eq. (3)'s form
    k_after = np.einsum("tji,tj->ti", A, k)
    wtt = recurrence.linear_attention(q, k_after, v, A)
    S = np.zeros((d, d))
    scratch = np.empty_like(v)
    for t in range(T):
        S = (S + np.outer(v[t], k[t])) @ A[t]
        scratch[t] = S @ q[t]
    eq3 = recurrence.linear_attention(q, k, v, A)
    tol = _tol(T * d * d)
    errs = {
        "printed_vs_write_then_transition": _rel_err(printed, wtt),
        "printed_vs_scratch_loop": _rel_err(printed, scratch),
        "printed_vs_eq3_recurrence": _rel_err(printed, eq3),
    }
    ok = errs["printed_vs_write_then_transition"] < tol and errs["printed_vs_scratch_loop"] < tol
    return Evidence(
        derive_verdict(ok),
        errs,
        f"relative {tol:.1e} (T·d² accumulated roundings); the Eq. (3) recurrence is shown for contrast",
        {"T": T, "d": d, "A": "0.9 I + 0.05 N(0,1)", "seed": SEED + 107},
    )


def _path_pair(rng: np.random.Generator, T: int, c: int) -> tuple[FloatArray, FloatArray]:
    a, b = rng.standard_normal((2, T, c))
    b[0], b[-1] = a[0], a[-1]
    return a, b


PATH_KERNELS: dict[str, list[float]] = {
    "first difference": [-1.0, 1.0],
    "scaled first difference": [-0.4, 0.4],
    "no convolution": [1.0],
    "moving average": [0.25, 0.25, 0.25, 0.25],
    "random 4-tap": [0.31, -0.74, 0.18, 0.93],
    "zero-sum 4-tap": [0.5, -1.0, 0.25, 0.25],
}


@claim(
    "srope.path_dependence",
    source="Selective RoPE §3.1, §4.1",
    statement="The Selective RoPE phase difference ψ_t − ψ_τ depends on the whole path of inputs, not only on the "
    "endpoints",
    expected="holds-if",
)
def srope_path_dependence() -> Evidence:
    """Check the claim ``srope.path_dependence``; expected verdict: holds-if.

    Statement (Selective RoPE §3.1, §4.1): The Selective RoPE phase difference ψ_t − ψ_τ depends
    on the whole path of inputs, not only on the endpoints.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, c = _rng(108), 32, 4
    a, b = _path_pair(rng, T, c)
    mid = a.copy()
    mid[4 : T - 4] = rng.standard_normal((T - 8, c))  # changes only far from both ends
    rows: dict[str, dict[str, Any]] = {}
    for name, kern in PATH_KERNELS.items():
        pa, pb, pm = (rotary.selective_phase(x, kern) for x in (a, b, mid))
        rows[name] = {
            "endpoint_paths_difference": float(np.max(np.abs((pa[-1] - pa[0]) - (pb[-1] - pb[0])))),
            "middle_only_difference": float(np.max(np.abs((pa[-1] - pa[0]) - (pm[-1] - pm[0])))),
            "tap_sum": float(np.sum(kern)),
        }
    silu = [rotary.selective_phase(x, PATH_KERNELS["first difference"], activation="silu") for x in (a, b)]
    rows["first difference + SiLU"] = {
        "endpoint_paths_difference": float(np.max(np.abs((silu[0][-1] - silu[0][0]) - (silu[1][-1] - silu[1][0])))),
        "middle_only_difference": None,
        "tap_sum": 0.0,
    }
    tol = _tol(T) * 10
    depends = {n: r["endpoint_paths_difference"] > 1e-6 for n, r in rows.items()}
    first_diff = ("first difference", "scaled first difference")
    telescopes = all(rows[n]["endpoint_paths_difference"] < tol for n in first_diff)
    zero_sum_window = (
        rows["zero-sum 4-tap"]["middle_only_difference"] < tol and rows["random 4-tap"]["middle_only_difference"] > 1e-6
    )
    fd = rotary.selective_phase(a, PATH_KERNELS["first difference"])
    closed = _rel_err(fd[-1] - fd[0], a[-1] - a[0])
    return Evidence(
        verdict=derive_verdict(all(depends.values()), all(v for n, v in depends.items() if n not in first_diff)),
        values={"kernels": rows, "first_difference_vs_x_t_minus_x_tau": closed},
        tolerance=f"equal when within {tol:.1e} rad, path-dependent when more than 1e-6 rad apart",
        inputs={
            "T": T,
            "pairs": c,
            "paths": "N(0,1), equal at t = 0 and t = T−1",
            "kernels": PATH_KERNELS,
            "seed": SEED + 108,
        },
        condition="the angle path's short convolution is not a multiple of the first difference (the authors' "
        "skip_conv path x_t − x_{t−1} telescopes to the endpoints)",
        counterexample={
            "kernel": "first difference [−1, 1]",
            "paths": "equal at t = 0 and t = T−1, different between",
            "gap_between_the_two_phase_differences": rows["first difference"]["endpoint_paths_difference"],
        },
        corrected="ψ_t − ψ_τ = Θ Σ_{s=τ+1}^{t} conv(x)_s. With the first difference it telescopes to Θ(x_t − x_τ) "
        "(endpoints only, like the RFF rotation); any other kernel, or a SiLU after it, makes the phase depend "
        "on the path. A kernel whose taps sum to zero sees only the K−1 inputs next to each end.",
        corrected_holds=bool(
            telescopes and closed < tol and zero_sum_window and all(depends[n] for n in depends if n not in first_diff)
        ),
    )


@claim(
    "srope.bias_only",
    source="Selective RoPE §4.1",
    statement="With a zero projection the Selective RoPE phase path reduces to RoPE: a constant angle increment "
    "per pair (Θ·e^{b}, times the phase gate's constant value when a gate is used)",
    expected="holds",
)
def srope_bias_only() -> Evidence:
    """Check the claim ``srope.bias_only``; expected verdict: holds.

    Statement (Selective RoPE §4.1): With a zero projection the Selective RoPE phase path
    reduces to RoPE: a constant angle increment per pair (Θ·e^{b}, times the phase gate's
    constant value when a gate is used).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, d = _rng(109), 64, 16
    theta = temperature.spectrum(d, "rope", base=10000.0)
    zero = np.zeros((T, d // 2))  # W_ω x_t = 0
    kern = rng.standard_normal(4)
    b = rng.normal(0.0, 0.5, d // 2)
    g = 1.0 / (1.0 + np.exp(-0.7))  # sigmoid of the gate's bias
    t1 = np.arange(1, T + 1)[:, None]
    errs = {}
    for act in (None, "silu"):
        psi = rotary.selective_phase(zero, kern, theta, act, bias=b, gates=np.full((T, 1), g))
        errs[f"gated_bias_{act}"] = _rel_err(psi, t1 * theta * np.exp(b) * g)
    psi0 = rotary.selective_phase(zero, kern, theta, bias=np.zeros(d // 2))
    errs["zero_bias_vs_rope_angles"] = _rel_err(psi0, rotary.rope_angles(np.arange(1, T + 1), d))
    inc = np.diff(rotary.selective_phase(zero, kern, theta, bias=b), axis=0)
    errs["increment_spread"] = float(np.max(np.abs(inc - inc[0])) / np.max(np.abs(inc[0])))
    # contrast: a non-zero projection makes the increments input-dependent
    x = rng.standard_normal((T, d // 2))
    inc_x = np.diff(rotary.selective_phase(x, kern, theta, bias=b), axis=0)
    spread_x = float(np.max(np.abs(inc_x - inc_x[0])) / np.max(np.abs(inc_x[0])))
    tol = _tol(T)
    ok = max(errs.values()) < tol and spread_x > 1e-3
    return Evidence(
        derive_verdict(ok),
        errs | {"increment_spread_nonzero_projection": spread_x},
        f"relative {tol:.1e} (T accumulated additions); the non-zero projection must spread the increments "
        "by more than 1e-3",
        {
            "T": T,
            "d": d,
            "kernel": kern.tolist(),
            "bias": "N(0, 0.5²)",
            "gate": float(g),
            "theta": "RoPE spectrum, base 10⁴",
            "seed": SEED + 109,
        },
    )


@claim(
    "srope.conv_causal",
    source="Selective RoPE §4.1",
    statement="A non-causal convolution in the angle path lets future tokens change past phases",
    expected="holds",
)
def srope_conv_causal() -> Evidence:
    """Check the claim ``srope.conv_causal``; expected verdict: holds.

    Statement (Selective RoPE §4.1): A non-causal convolution in the angle path lets future
    tokens change past phases.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rng, T, c = _rng(110), 32, 4
    kern = rng.standard_normal(4)
    lookahead = 2  # 'same' padding of a 4-tap kernel
    x = rng.standard_normal((T, c))
    t0 = 20
    x2 = x.copy()
    x2[t0] += rng.standard_normal(c)  # change one future token

    def causal(z: FloatArray) -> FloatArray:
        return rotary.cumulative_phase(rotary.short_conv(z, kern))

    def centred(z: FloatArray) -> FloatArray:
        # y[t] = Σ_j h_j z[t − 1 + j]: the causal convolution of z advanced by two steps
        ext = np.vstack([z, np.zeros((lookahead, c))])
        return rotary.cumulative_phase(rotary.short_conv(ext, kern)[lookahead:])

    causal_leak = float(np.max(np.abs(causal(x2)[:t0] - causal(x)[:t0])))
    centred_leak = float(np.max(np.abs(centred(x2)[:t0] - centred(x)[:t0])))
    first_changed = int(np.argmax(np.any(np.abs(centred(x2) - centred(x)) > 0, axis=1)))
    via_selective = _rel_err(rotary.selective_phase(x, kern), causal(x))
    tol = _tol(T)
    ok = causal_leak == 0.0 and centred_leak > 1e-6 and via_selective < tol
    return Evidence(
        derive_verdict(ok),
        {
            "causal_change_before_t0": causal_leak,
            "centred_change_before_t0": centred_leak,
            "centred_first_changed_step": first_changed,
            "selective_phase_vs_conv_cumsum": via_selective,
        },
        f"causal: no change at all before t0 (exact zero); centred: a change above 1e-6 rad; "
        f"selective_phase equals cumsum(short_conv) to {tol:.1e}",
        {"T": T, "pairs": c, "t0": t0, "kernel": kern.tolist(), "lookahead": lookahead, "seed": SEED + 110},
    )
