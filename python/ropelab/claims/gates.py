"""Claims of the gated-rotations section: gated pre-rotation and its effective transition,
Householder reflections and the delta rule's transitions (Selective RoPE §1, §3.3, App. A.5, A.6).
"""

from __future__ import annotations

import numpy as np

from ropelab import recurrence, rotary, transition
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


def _gates(rng: np.random.Generator, T: int, d: int, shared: bool) -> FloatArray:
    return rng.uniform(0.3, 1.0, (T, d // 2 if shared else d))


@claim(
    "gate.effective",
    source="Selective RoPE §3.3",
    statement="Gated pre-rotation equals the recurrence with A^eff = C_{t−1}ᵀ Λ_t C_t",
    expected="holds",
)
def gate_effective() -> Evidence:
    T, d = 48, 8
    q, k, v, psi = _common.srope_inputs(T, d, 13)
    g = _gates(_common.rng(14), T, d, shared=False)
    pre = recurrence.selective_rope_attention(q, k, v, psi, g, mode="prerotated")
    A = transition.effective_sequence(psi, g)
    eq3 = recurrence.linear_attention(q, k, v, A, mode="recurrent")
    err = _common.rel_err(pre, eq3)
    tol = _common.tol(T * d * d)
    return Evidence(
        derive_verdict(err < tol),
        {"prerotated_vs_eq3_with_A_eff": err},
        f"relative {tol:.1e}",
        {"T": T, "d": d, "gates": "per channel, U(0.3, 1)", "seed": _common.SEED + 13},
    )


@claim(
    "gate.commute",
    source="Selective RoPE §3.3",
    statement="A^eff = Λ_t R_t for any diagonal gate Λ_t",
    expected="holds-if",
)
def gate_commute() -> Evidence:
    rng, d = _common.rng(15), 8
    psi_prev, psi_t = rng.uniform(-np.pi, np.pi, (2, d // 2))
    R = rotary.rotation_matrix(psi_t - psi_prev)
    shared = rng.uniform(0.3, 1.0, d // 2)
    per_channel = rng.uniform(0.3, 1.0, d)
    e_shared = _common.rel_err(transition.effective(psi_prev, psi_t, shared), np.diag(np.repeat(shared, 2)) @ R)
    e_channel = _common.rel_err(transition.effective(psi_prev, psi_t, per_channel), np.diag(per_channel) @ R)
    c_shared = transition.commutator_norm(psi_prev, shared)
    c_channel = transition.commutator_norm(psi_prev, per_channel)
    tol = _common.tol(d)
    return Evidence(
        verdict=derive_verdict(e_channel < tol, e_shared < tol),
        values={
            "pair_shared_gate_error": e_shared,
            "per_channel_gate_error": e_channel,
            "commutator_norm_shared": float(c_shared),
            "commutator_norm_per_channel": float(c_channel),
        },
        tolerance=f"relative {tol:.1e}",
        inputs={"d": d, "seed": _common.SEED + 15},
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
    rng, d = _common.rng(16), 8
    worst = 0.0
    for _ in range(50):
        psi_prev, psi_t = rng.uniform(-np.pi, np.pi, (2, d // 2))
        g = rng.uniform(0.0, 1.0, d)
        worst = max(worst, abs(float(transition.spectral_norm(transition.effective(psi_prev, psi_t, g))) - np.max(g)))
    tol = _common.tol(d * d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_norm_difference": worst},
        f"absolute {tol:.1e}",
        {"d": d, "cases": 50, "gates": "per channel U(0, 1)", "seed": _common.SEED + 16},
    )


@claim(
    "householder.rotation",
    source="Selective RoPE App. A.5",
    statement="Two Householder reflections compose into a 2-D rotation by twice the angle between them",
    expected="holds",
)
def householder_rotation() -> Evidence:
    rng, d = _common.rng(17), 6
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
            _common.rel_err(P @ complement, complement),
            _common.rel_err(P.T @ P, np.eye(d)),
            abs(np.linalg.det(P) - 1),
        )
    tol = _common.tol(d * d) * 100  # arccos near 0 / π amplifies rounding
    return Evidence(
        derive_verdict(worst < tol),
        {"max_deviation": worst},
        f"{tol:.1e} (angles in rad, matrices relative)",
        {"d": d, "cases": 20, "seed": _common.SEED + 17},
    )


@claim(
    "householder.delta",
    source="Selective RoPE App. A.5",
    statement="The generalised Householder I − β w wᵀ is norm-preserving for general β",
    expected="fails",
)
def householder_delta() -> Evidence:
    rng, d = _common.rng(18), 6
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
                "orthogonal": bool(_common.rel_err(H.T @ H, np.eye(d)) < _common.tol(d)),
                "eigenvalue_along_w": float(ev[0] if beta > 0 else ev[-1]),
            }
        )
    general = all(r["orthogonal"] for r in rows)
    corrected_ok = (
        all(r["orthogonal"] == (r["beta"] in (0.0, 2.0)) for r in rows)
        and all((r["spectral_norm"] <= 1 + _common.tol(d)) == (0 <= r["beta"] <= 2) for r in rows)
        and all(abs(r["eigenvalue_along_w"] - (1 - r["beta"])) < _common.tol(d) for r in rows)
    )
    bad = next((r for r in rows if not r["orthogonal"]), None)
    return Evidence(
        verdict=derive_verdict(general),
        values={"betas": rows},
        tolerance=f"orthogonality ‖HᵀH − I‖ < {_common.tol(d):.1e}",
        inputs={"d": d, "seed": _common.SEED + 18},
        counterexample=bad,
        corrected="I − βwwᵀ (‖w‖ = 1) has eigenvalue 1 − β along w and 1 elsewhere: it is orthogonal iff β ∈ {0, 2} "
        "and non-expansive (‖·‖₂ ≤ 1) iff β ∈ [0, 2].",
        corrected_holds=corrected_ok,
    )


@claim(
    "gate.positive_no_flip",
    source="Selective RoPE §1",
    statement="Products of positive diagonal gates cannot realise a sign flip, so they cannot track parity",
    expected="holds",
)
def gate_positive_no_flip() -> Evidence:
    rng, T, d, trials = _common.rng(105), 64, 4, 100
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
        psi = rotary.cumulative_angles((np.pi * bits)[:, None] * np.ones((1, d // 2)), 1.0, accumulate="wrapped")
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
        {"T": T, "d": d, "trials": trials, "gates": "bit-dependent, U(0.2, 1) per channel", "seed": _common.SEED + 105},
    )


@claim(
    "gate.direction",
    source="Selective RoPE §1, Fig. 1",
    statement="A per-channel diagonal scaling can change a vector's direction",
    expected="holds",
)
def gate_direction() -> Evidence:
    rng, d = _common.rng(106), 8

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
        {"d": d, "cases": 20, "gates": "U(0.1, 1)", "seed": _common.SEED + 106},
    )


#: The seed of the delta-rule check's inputs.
DELTA_SEED = 20260116


@claim(
    "delta.effective_transition",
    source="Selective RoPE §5, App. A (DeltaNet)",
    statement="The gated delta rule with Selective RoPE pre-rotation is the linear recurrence "
    "S_t = S_{t−1} A_t + β_t v_t k_tᵀ with A_t = α_t R_t (I − β_t k_t k_tᵀ), R_t the rotation by the "
    "phase increment",
    expected="holds",
)
def delta_effective_transition() -> Evidence:
    rng = np.random.default_rng(DELTA_SEED + 5)
    T, d, dv = 64, 8, 3
    q, k = rng.standard_normal((2, T, d))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal((T, dv))
    beta = rng.uniform(0, 2, T)
    alpha = rng.uniform(0.5, 1, T)
    psi = rotary.cumulative_angles(rng.uniform(-1, 1, (T, d // 2)))
    worst = 0.0
    for layout in _common.LAYOUTS:
        delta = recurrence.delta_rule(q, k, v, beta, psi, alpha, layout=layout)
        A = recurrence.delta_transitions(k, beta, psi, alpha, layout=layout)
        direct = recurrence.linear_attention(q, k, beta[:, None] * v, transitions=A)
        worst = max(worst, float(np.max(np.abs(delta - direct)) / np.max(np.abs(direct))))
    tol = 1e-12
    return Evidence(
        derive_verdict(worst < tol),
        {"max_relative_difference": worst},
        f"relative {tol:g} (two float64 routes of {T} steps)",
        {"T": T, "d": d, "dv": dv, "beta": "U(0, 2)", "alpha": "U(0.5, 1)", "seed": DELTA_SEED + 5},
    )
