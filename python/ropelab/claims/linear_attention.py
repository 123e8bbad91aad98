"""Claims of the linear-attention section: the unrolled recurrence of Selective RoPE Eq. (11) and
the recurrence it is exact for.
"""

from __future__ import annotations

import numpy as np

from ropelab import recurrence
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


@claim(
    "eq11.index",
    source="Selective RoPE Eqs. (3), (11)",
    statement="The unrolled product of Eq. (11) starts at τ: o_t = Σ_τ v_τ k_τᵀ (A_τ ⋯ A_t) q_t",
    expected="fails",
)
def eq11_index() -> Evidence:
    rng, T, d = _common.rng(10), 24, 6
    q, k, v = rng.standard_normal((3, T, d))
    A = 0.9 * np.eye(d) + 0.05 * rng.standard_normal((T, d, d))
    rec = recurrence.linear_attention(q, k, v, A)
    at_tau = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau")
    at_tau1 = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau+1")
    ident = np.broadcast_to(np.eye(d), (T, d, d))
    id_rec = recurrence.linear_attention(q, k, v, ident)
    id_tau = recurrence.linear_attention(q, k, v, ident, mode="unrolled", product_start="tau")
    tol = _common.tol(T * d * d)
    e_tau, e_tau1, e_id = _common.rel_err(at_tau, rec), _common.rel_err(at_tau1, rec), _common.rel_err(id_tau, id_rec)
    # independent route (NumPy): the recurrence and both unrolled sums written out
    rec_np = _common.np_linear_attention(q, k, v, A)
    unrolled_np = {"tau": np.zeros_like(rec_np), "tau+1": np.zeros_like(rec_np)}
    for t in range(T):
        P = np.eye(d)  # A_{τ+1} ⋯ A_t, built from τ = t down
        for tau in range(t, -1, -1):
            unrolled_np["tau+1"][t] += v[tau] * (k[tau] @ P @ q[t])
            unrolled_np["tau"][t] += v[tau] * (k[tau] @ A[tau] @ P @ q[t])
            P = A[tau] @ P
    np_errs = {
        "numpy_start_tau_vs_numpy_recurrence": _common.rel_err(unrolled_np["tau"], rec_np),
        "numpy_start_tau_plus_1_vs_numpy_recurrence": _common.rel_err(unrolled_np["tau+1"], rec_np),
        "core_vs_numpy_recurrence": _common.rel_err(rec, rec_np),
        "core_vs_numpy_start_tau": _common.rel_err(at_tau, unrolled_np["tau"]),
        "core_vs_numpy_start_tau_plus_1": _common.rel_err(at_tau1, unrolled_np["tau+1"]),
    }
    routes_agree = all(v < tol for n, v in np_errs.items() if n.startswith("core"))
    return Evidence(
        verdict=derive_verdict(e_tau < tol and np_errs["numpy_start_tau_vs_numpy_recurrence"] < tol),
        values={
            "start_tau_vs_recurrence": e_tau,
            "start_tau_plus_1_vs_recurrence": e_tau1,
            "start_tau_with_identity": e_id,
        }
        | np_errs,
        tolerance=f"relative {tol:.1e} (T·d² accumulated roundings); the recurrence and both unrolled sums are "
        "also evaluated in NumPy, and the core's three routes must equal them",
        inputs={"T": T, "d": d, "A": "0.9 I + 0.05 N(0,1)", "seed": _common.SEED + 10},
        counterexample={"relative_difference_start_tau": e_tau, "agrees_when_all_A_are_I": e_id < tol},
        corrected="o_t = Σ_{τ≤t} v_τ k_τᵀ (A_{τ+1} ⋯ A_t) q_t: the product starts at τ+1 (the key enters after A_τ "
        "is applied).",
        corrected_holds=e_tau1 < tol and np_errs["numpy_start_tau_plus_1_vs_numpy_recurrence"] < tol and routes_agree,
    )


@claim(
    "eq11.convention",
    source="Selective RoPE §3.3, Eq. (11)",
    statement="Eq. (11) as printed (product from A_τ) is exact for the write-then-transition recurrence "
    "S_t = (S_{t−1} + v_t k_tᵀ) A_t",
    expected="holds",
)
def eq11_convention() -> Evidence:
    rng, T, d = _common.rng(107), 24, 6
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
    tol = _common.tol(T * d * d)
    errs = {
        "printed_vs_write_then_transition": _common.rel_err(printed, wtt),
        "printed_vs_scratch_loop": _common.rel_err(printed, scratch),
        "printed_vs_eq3_recurrence": _common.rel_err(printed, eq3),
    }
    ok = errs["printed_vs_write_then_transition"] < tol and errs["printed_vs_scratch_loop"] < tol
    return Evidence(
        derive_verdict(ok),
        errs,
        f"relative {tol:.1e} (T·d² accumulated roundings); the Eq. (3) recurrence is shown for contrast",
        {"T": T, "d": d, "A": "0.9 I + 0.05 N(0,1)", "seed": _common.SEED + 107},
    )
