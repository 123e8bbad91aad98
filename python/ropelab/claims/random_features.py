"""Claims about random-feature estimates of the softmax kernel (Selective RoPE Eq. (8), App. A.2)."""

from __future__ import annotations

import numpy as np

from ropelab import rff
from ropelab._types import FloatArray
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260101
# Closed forms are exact up to rounding: 1e-12 relative leaves room for a few hundred ulps.
EXACT_RTOL = 1e-12
# Monte-Carlo agreement: |mean − truth| < 5 standard errors (fixed seed).
MC_SIGMAS = 5.0


def _pairs(n: int = 6, d: int = 8, seed: int = SEED) -> list[tuple[FloatArray, FloatArray]]:
    rng = np.random.default_rng(seed)
    return [(0.6 * rng.standard_normal(d) / np.sqrt(d), 0.6 * rng.standard_normal(d) / np.sqrt(d)) for _ in range(n)]


def _mc(
    q: FloatArray, k: FloatArray, convention: str, D: int = 64, trials: int = 4000, seed: int = SEED, mode: str = "full"
) -> tuple[float, float]:
    e = rff.estimate(q, k, D, 1.0, "trig", convention, trials=trials, seed=seed, mode=mode)  # type: ignore[arg-type]
    return float(e.mean()), float(e.std(ddof=1) / np.sqrt(trials))


@claim(
    "rff.gaussian_identity",
    source="Selective RoPE §3.1, App. A.2",
    statement="e^{q·k} = e^{(‖q‖²+‖k‖²)/2} · E_ω cos(ω·(q−k)) with ω ~ N(0, I)",
    expected="holds",
)
def gaussian_identity() -> Evidence:
    """Check the claim ``rff.gaussian_identity``; expected verdict: holds.

    Statement (Selective RoPE §3.1, App. A.2): e^{q·k} = e^{(‖q‖²+‖k‖²)/2} · E_ω cos(ω·(q−k)) with ω
    ~ N(0, I).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rows = []
    ok = True
    for q, k in _pairs():
        kappa = float(np.exp(q @ k))
        closed = float(rff.moments(q, k, 1.0, "trig", "conjugate")[0])
        # independent route: E cos(‖u‖ g), g ~ N(0,1), by 80-point Gauss–Hermite quadrature
        x, w = np.polynomial.hermite_e.hermegauss(80)
        quad = float(np.exp((q @ q + k @ k) / 2) * (w @ np.cos(np.linalg.norm(q - k) * x)) / np.sqrt(2 * np.pi))
        mc, se = _mc(q, k, "conjugate")
        good = (
            abs(closed / kappa - 1) < EXACT_RTOL
            and abs(quad / kappa - 1) < EXACT_RTOL
            and abs(mc - kappa) < MC_SIGMAS * se
        )
        ok &= good
        rows.append({"exp_qk": kappa, "closed_form": closed, "quadrature": quad, "monte_carlo": mc, "mc_se": se})
    return Evidence(
        verdict=derive_verdict(ok),
        values={"pairs": rows},
        tolerance=f"closed form and Gauss–Hermite quadrature: {EXACT_RTOL:g} relative; Monte Carlo "
        f"(full mode, D=64, 4000 trials): {MC_SIGMAS:g} standard errors",
        inputs={"pairs": 6, "d": 8, "seed": SEED},
    )


@claim(
    "rff.eq8_literal",
    source="Selective RoPE Eq. (8), App. A.2",
    statement="Eq. (8) as printed, Re φ(q)φ(k) without the conjugate, estimates e^{q·k}",
    expected="fails",
)
def eq8_literal() -> Evidence:
    """Check the claim ``rff.eq8_literal``; expected verdict: fails.

    Statement (Selective RoPE Eq. (8), App. A.2): Eq. (8) as printed, Re φ(q)φ(k) without the
    conjugate, estimates e^{q·k}.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    rows = []
    literal_ok = True
    literal_is_exp_minus = True
    conj_ok = True
    for q, k in _pairs():
        kappa = float(np.exp(q @ k))
        lit = float(rff.moments(q, k, 1.0, "trig", "literal")[0])
        conj = float(rff.moments(q, k, 1.0, "trig", "conjugate")[0])
        lit_mc, lit_se = _mc(q, k, "literal")
        # the statement holds for this pair only if the literal mean is kappa (closed form and MC)
        literal_ok &= abs(lit / kappa - 1) < EXACT_RTOL or abs(lit_mc - kappa) < MC_SIGMAS * lit_se
        literal_is_exp_minus &= (
            abs(lit / np.exp(-float(q @ k)) - 1) < EXACT_RTOL
            and abs(lit_mc - np.exp(-float(q @ k))) < MC_SIGMAS * lit_se
        )
        conj_ok &= abs(conj / kappa - 1) < EXACT_RTOL
        rows.append(
            {
                "q_dot_k": float(q @ k),
                "exp_qk": kappa,
                "exp_minus_qk": float(np.exp(-(q @ k))),
                "literal_mean": lit,
                "literal_monte_carlo": lit_mc,
                "literal_mc_se": lit_se,
                "conjugate_mean": conj,
            }
        )
    worst = max(rows, key=lambda r: abs(r["literal_mean"] - r["exp_qk"]))
    return Evidence(
        verdict=derive_verdict(literal_ok),
        values={"pairs": rows},
        tolerance=f"{EXACT_RTOL:g} relative (closed form); {MC_SIGMAS:g} standard errors (Monte Carlo)",
        inputs={"pairs": 6, "d": 8, "sigma": 1.0, "seed": SEED},
        counterexample={
            "q_dot_k": worst["q_dot_k"],
            "literal_mean": worst["literal_mean"],
            "exp_qk": worst["exp_qk"],
            "exp_minus_qk": worst["exp_minus_qk"],
        },
        corrected="With the conjugate, Re φ(q)·conj φ(k) = A cos(ω·(q−k)) has mean e^{q·k}; the literal product "
        "A cos(ω·(q+k)) has mean e^{−q·k}.",
        corrected_holds=bool(conj_ok and literal_is_exp_minus),
    )
