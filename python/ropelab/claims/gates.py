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
    statement=r"Gated pre-rotation equals the recurrence with $A^{\mathrm{eff}}_t = C_{t-1}^\top \Lambda_t C_t$",
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
    # independent route (NumPy): A^eff_t = C_{t−1}ᵀ Λ_t C_t built from its definition, the recurrence
    # of Eq. (3) with it, and the gated pre-rotated recurrence Ŝ_t = Ŝ_{t−1} Λ_t + v_t (C_t k_t)ᵀ
    C = _common.np_rotation(psi)
    C_prev = np.concatenate([np.eye(d)[None], C[:-1]])
    lam = _common.np_gate_matrix(g, d)
    A_np = np.einsum("tji,tjk,tkl->til", C_prev, lam, C)
    eq3_np = _common.np_linear_attention(q, k, v, A_np)
    kr, qr = np.einsum("tij,tj->ti", C, k), np.einsum("tij,tj->ti", C, q)
    S, pre_np = np.zeros((v.shape[1], d)), np.empty_like(pre)
    for t in range(T):
        S = S @ lam[t] + np.outer(v[t], kr[t])
        pre_np[t] = S @ qr[t]
    errs = {
        "A_eff_vs_numpy": _common.rel_err(A, A_np),
        "eq3_numpy_vs_prerotated_numpy": _common.rel_err(eq3_np, pre_np),
        "prerotated_vs_numpy": _common.rel_err(pre, pre_np),
    }
    tol = _common.tol(T * d * d)
    return Evidence(
        derive_verdict(err < tol and max(errs.values()) < tol),
        {"prerotated_vs_eq3_with_A_eff": err} | errs,
        f"relative {tol:.1e}; the statement is also checked on a NumPy route (A^eff from its definition, both "
        "recurrences written out), which the core's A^eff and pre-rotated output must match",
        {"T": T, "d": d, "gates": "per channel, U(0.3, 1)", "seed": _common.SEED + 13},
    )


@claim(
    "gate.commute",
    source="Selective RoPE §3.3",
    statement=r"$A^{\mathrm{eff}}_t = \Lambda_t R_t$ for any diagonal gate $\Lambda_t$",
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
        condition=r"the gate is shared by the two channels of each rotation pair (then $\Lambda_t$ commutes with $C_{t-1}$)",
        counterexample={
            "gate": "per channel, distinct within a pair",
            "relative_difference": e_channel,
            "commutator_norm": float(c_channel),
        },
        corrected=r"$A^{\mathrm{eff}}_t = C_{t-1}^\top \Lambda_t C_t$, which equals $\Lambda_t R_t$ iff $[\Lambda_t, C_{t-1}] = 0$ "
        "(e.g. one decay per pair).",
        corrected_holds=e_shared < tol and float(c_shared) < tol and float(c_channel) > 1e-3,
    )


@claim(
    "gate.norm",
    source="Selective RoPE §3.3",
    statement=r"$\lVert A^{\mathrm{eff}}_t\rVert_2 = \lVert\Lambda_t\rVert_2$ for every gate",
    expected="holds",
)
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
    statement=r"The generalised Householder $I - \beta w w^\top$ is norm-preserving for general $\beta$",
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
        corrected=r"$I - \beta w w^\top$ ($\lVert w\rVert = 1$) has eigenvalue $1 - \beta$ along $w$ and 1 elsewhere: it is "
        r"orthogonal iff $\beta \in \{0, 2\}$ and non-expansive ($\lVert\cdot\rVert_2 \le 1$) iff $\beta \in [0, 2]$.",
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
    feats, feats_rot, labels = [], [], []
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
        ones = np.ones(T)
        feats.append(np.stack([ones, o, np.log(np.abs(o) + np.finfo(float).tiny)], axis=-1))
        feats_rot.append(np.stack([ones, o_rot], axis=-1))
        labels.append(parity < 0)
    # the best linear readout (least squares on half of the trials, scored on the other half) of the
    # gated readouts o_t and log o_t: at chance; the same readout of the rotation's o_t: tracks parity
    acc_g, se_g = _common.readout_accuracy(np.array(feats), np.array(labels))
    acc_r, se_r = _common.readout_accuracy(np.array(feats_rot), np.array(labels))
    at_chance = abs(acc_g - 0.5) < _common.MC_SIGMAS * se_g
    control = acc_r - 0.5 > _common.MC_SIGMAS * max(se_r, se_g)
    ok = min_gated > 0 and parity_negative > 0 and rot_mismatch == 0 and at_chance and control
    return Evidence(
        derive_verdict(ok),
        {
            "min_readout_positive_gates": min_gated,
            "steps_with_odd_parity": parity_negative,
            "rotation_sign_mismatches": rot_mismatch,
            "linear_readout_accuracy_positive_gates": acc_g,
            "linear_readout_se_positive_gates": se_g,
            "linear_readout_accuracy_rotation": acc_r,
            "linear_readout_se_rotation": se_r,
        },
        "exact signs: every positively gated readout x₀ᵀΛ₁⋯Λ_t x₀ > 0, while (−1)^(Σb) < 0 at the counted "
        "steps; the π·b rotation's readout has the sign of the parity at every step. A least-squares linear "
        f"readout of parity from (1, o_t, log o_t) of the gates stays within {_common.MC_SIGMAS:g} standard errors "
        "(of the mean per-trial accuracy over the held-out half) of 1/2, and from (1, o_t) of the rotation exceeds "
        f"1/2 by more than {_common.MC_SIGMAS:g} of them",
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
    statement="The gated delta rule with Selective RoPE pre-rotation is the linear recurrence $S_t = S_{t-1} "
    r"A_t + \beta_t v_t k_t^\top$ with $A_t = \alpha_t R_t (I - \beta_t k_t k_t^\top)$, $R_t$ the "
    "rotation by the phase increment",
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
    worst = numpy_worst = 0.0
    eye = np.eye(d)
    for layout in _common.LAYOUTS:
        delta = recurrence.delta_rule(q, k, v, beta, psi, alpha, layout=layout)
        A = recurrence.delta_transitions(k, beta, psi, alpha, layout=layout)
        direct = recurrence.linear_attention(q, k, beta[:, None] * v, transitions=A)
        worst = max(worst, float(np.max(np.abs(delta - direct)) / np.max(np.abs(direct))))
        # independent route (NumPy): the delta rule in the rotated frame, and the stated linear
        # recurrence with A_t = α_t R_t (I − β_t k_t k_tᵀ), R_t = C_{t−1}ᵀ C_t, both from the definitions
        C = _common.np_rotation(psi, layout)
        C_prev = np.concatenate([eye[None], C[:-1]])
        kr, qr = np.einsum("tij,tj->ti", C, k), np.einsum("tij,tj->ti", C, q)
        S, rule_np = np.zeros((dv, d)), np.empty((T, dv))
        for t in range(T):
            S = alpha[t] * S @ (eye - beta[t] * np.outer(kr[t], kr[t])) + beta[t] * np.outer(v[t], kr[t])
            rule_np[t] = S @ qr[t]
        R = np.einsum("tji,tjk->tik", C_prev, C)
        A_np = alpha[:, None, None] * R @ (eye - beta[:, None, None] * np.einsum("ti,tj->tij", k, k))
        stated_np = _common.np_linear_attention(q, k, beta[:, None] * v, A_np)
        numpy_worst = max(
            numpy_worst,
            _common.rel_err(stated_np, rule_np),
            _common.rel_err(delta, rule_np),
            _common.rel_err(A, A_np),
        )
    tol = 1e-12
    return Evidence(
        derive_verdict(worst < tol and numpy_worst < tol),
        {"max_relative_difference": worst, "max_relative_difference_numpy_route": numpy_worst},
        f"relative {tol:g} (float64 routes of {T} steps): the core's delta rule against its recurrence with "
        "delta_transitions, and a NumPy route (delta rule in the rotated frame against the stated recurrence, "
        "with the core's output and transitions compared to it)",
        {"T": T, "d": d, "dv": dv, "beta": "U(0, 2)", "alpha": "U(0.5, 1)", "seed": DELTA_SEED + 5},
    )
