"""Claims of the temperature section: Theorem 1, its counterexample, the finite-D optimum,
positive random features (Selective RoPE Theorem 1, App. A.3, A.6), the float32 temperature
spectrum, and Theorem 1's temperature inside normalised random-feature attention (Performer,
arXiv:2009.14794 §2.2–2.6).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import attention, rff, temperature, transition
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260102
XI_GRID = (-0.8, -0.3, 0.0, 0.2, 0.5, 0.8)
D_GRID = (1, 4, 16, 256, 10**6)
# Two temperatures count as the same optimum when they agree to 1e-6 (the cubic and Brent agree
# to 1e-8; the paper's rule misses the optimum by far more wherever it misses it).
SIGMA_ATOL = 1e-6
MC_SIGMAS = 5.0


def _mse_figure(xi: float, Ds: tuple[int, ...] = (1, 16, 256)) -> Any:
    from ropelab import plot

    curves = [temperature.mse_curve(xi, D, np.linspace(0.05, 1.6, 24), trials=2000, seed=SEED) for D in Ds]
    return plot.mse_vs_sigma(curves)


@claim(
    "prf.transition_gt1",
    source="Selective RoPE App. A.6",
    statement=r"The positive-random-feature transition factor $e^{\omega\cdot(q_t - q_{t-1})}$ can exceed 1",
    expected="holds",
)
def prf_transition_gt1() -> Evidence:
    rng, T, d, D = _common.rng(21), 200, 8, 64
    q = 0.3 * rng.standard_normal((T, d))
    w = rng.standard_normal((D, d))
    f = transition.prf_transition_factor(q, w)
    # The law of one step's factor: ln f = ω·Δ ~ N(0, ‖Δ‖²) (σ = 1), so f is lognormal with
    # P(f > 1) = Φ(0) = 1/2 and E[f] = e^{‖Δ‖²/2}. Its closed forms are compared with a Monte Carlo
    # of the factor over independent frequencies (the features of one step are independent).
    s = float(np.linalg.norm(q[1] - q[0]))
    dist = transition.prf_factor_distribution(s)
    n_mc = 40_000
    f1 = transition.prf_transition_factor(q[:2], _common.rng(22).standard_normal((n_mc, d)))[0]
    p_closed, mean_closed = 0.5, float(np.exp(s * s / 2))
    frac_mc = float(np.mean(f1 > 1))
    frac_se = float(np.sqrt(p_closed * (1 - p_closed) / n_mc))
    mean_mc, mean_se = float(np.mean(f1)), float(np.std(f1, ddof=1) / np.sqrt(n_mc))
    closed_ok = abs(dist.prob_gt_one - p_closed) < 1e-15 and abs(dist.mean / mean_closed - 1) < 1e-13
    mc_ok = abs(frac_mc - p_closed) < MC_SIGMAS * frac_se and abs(mean_mc - mean_closed) < MC_SIGMAS * mean_se
    return Evidence(
        derive_verdict(float(np.max(f)) > 1 + 1e-12 and closed_ok and mc_ok),
        {
            "max_factor": float(np.max(f)),
            "fraction_above_1_sequence": float(np.mean(f > 1)),
            "entries": f.size,
            "step_1_length": s,
            "prob_gt_1_closed_form": p_closed,
            "prob_gt_1_distribution": dist.prob_gt_one,
            "prob_gt_1_monte_carlo": frac_mc,
            "prob_gt_1_se": frac_se,
            "mean_closed_form": mean_closed,
            "mean_distribution": dist.mean,
            "mean_monte_carlo": mean_mc,
            "mean_se": mean_se,
        },
        f"max factor > 1 + 1e-12; the factor law's P(f > 1) and mean equal the lognormal closed forms "
        f"(Φ(0) = 1/2, exp(‖Δ‖²/2)) to 1e-13, and a Monte Carlo over {n_mc} independent frequencies agrees "
        f"with both within {MC_SIGMAS:g} standard errors (the fraction in the sequence is only reported: the "
        "steps share their frequencies)",
        {
            "T": T,
            "d": d,
            "D": D,
            "monte_carlo_frequencies": n_mc,
            "seed": _common.SEED + 21,
            "mc_seed": _common.SEED + 22,
        },
    )


@claim(
    "thm1.tan_rule",
    source="Selective RoPE Theorem 1, App. A.3",
    statement=r"The MSE-optimal temperature is $\sigma = \tan(\tfrac{1}{2}\arccos\xi)$",
    expected="fails",
)
def tan_rule() -> Evidence:
    grid = []
    matches = True
    for xi in XI_GRID:
        for D in D_GRID:
            s_star = float(temperature.optimal_sigma(xi, D))
            s_paper = float(temperature.paper_sigma(xi))
            same = abs(s_star - s_paper) < SIGMA_ATOL
            matches &= same
            grid.append({"xi": xi, "D": D, "sigma_star": s_star, "sigma_paper": s_paper, "same": same})
    xi, D = 0.5, 256
    s_star, s_paper = float(temperature.optimal_sigma(xi, D)), float(temperature.paper_sigma(xi))
    mse_star, mse_paper = float(temperature.mse(xi, D=D, sigma=s_star)), float(temperature.mse(xi, D=D, sigma=s_paper))
    # corrected statement: σ* is the root of the cubic (Brent agrees), lowers the Monte-Carlo MSE
    # below the paper's σ by more than 5 standard errors, and tends to 1 as D grows.
    s_brent = float(temperature.optimal_sigma(xi, D, method="brent"))
    curve = temperature.mse_curve(xi, D, [s_paper, s_star], trials=4000, seed=SEED)
    gap = float(curve.empirical[0] - curve.empirical[1])
    gap_se = float(np.hypot(curve.stderr[0], curve.stderr[1]))
    tends_to_one = abs(float(temperature.optimal_sigma(xi, 10**12)) - 1) < 1e-9
    corrected_ok = abs(s_brent - s_star) < 1e-8 and gap > MC_SIGMAS * gap_se and tends_to_one
    return Evidence(
        verdict=derive_verdict(matches),
        values={"grid": grid, "sigma_star_xi_half": {str(d): float(temperature.optimal_sigma(0.5, d)) for d in D_GRID}},
        tolerance=f"σ* and the paper's σ count as equal within {SIGMA_ATOL:g}; cubic vs Brent within 1e-8; "
        f"Monte-Carlo MSE gap beyond {MC_SIGMAS:g} standard errors",
        inputs={"xi": list(XI_GRID), "D": list(D_GRID), "seed": SEED, "trials": 4000},
        counterexample={
            "xi": xi,
            "D": D,
            "sigma_paper": s_paper,
            "sigma_star": s_star,
            "mse_at_paper_sigma": mse_paper,
            "mse_at_sigma_star": mse_star,
            "mc_mse_at_paper_sigma": float(curve.empirical[0]),
            "mc_mse_at_sigma_star": float(curve.empirical[1]),
            "mc_gap_se": gap_se,
        },
        corrected=r"$\sigma^* = \sqrt{-\ln u^* / (1 - \xi)}$ where $u^*$ is the unique real root of $u^3 + (D - 1)u "
        r"- D e^{\xi - 1} = 0$; $\sigma^*$ depends on $D$, $\sigma^{*2} = 1/3$ at $D = 1$, $\sigma^* \to 1$ as $D \to \infty$.",
        corrected_holds=bool(corrected_ok),
        figure=lambda: _mse_figure(0.5),
    )


@claim(
    "thm1.counterexample",
    source="Selective RoPE Theorem 1, App. A.3",
    statement=r"At $\xi = \tfrac{1}{2}$ the paper's $\sigma^2 = 1/3$ gives $\mathbb{E}[\hat K] = e^{5/6} \approx 2.301 \neq e^{1/2}$; $\sigma = 1$ is exact",
    expected="holds",
)
def counterexample() -> Evidence:
    c = temperature.counterexample(0.5)
    q, k = temperature.unit_pair(0.5, d=16)
    trials, D = 20000, 64
    e = rff.estimate(q, k, D, c.sigma_paper, trials=trials, seed=SEED)
    mc, se = float(e.mean()), float(e.std(ddof=1) / np.sqrt(trials))
    e1 = rff.estimate(q, k, D, 1.0, trials=trials, seed=SEED)
    mc1, se1 = float(e1.mean()), float(e1.std(ddof=1) / np.sqrt(trials))
    ok = (
        abs(c.sigma_paper_sq * 3 - 1) < 1e-14
        and abs(c.mean_paper / np.exp(5 / 6) - 1) < 1e-14
        and abs(c.target / np.exp(0.5) - 1) < 1e-14
        and abs(c.mean_sigma1 / c.target - 1) < 1e-14
        and abs(mc - np.exp(5 / 6)) < MC_SIGMAS * se
        and abs(mc - c.target) > MC_SIGMAS * se
        and abs(mc1 - c.target) < MC_SIGMAS * se1
    )
    return Evidence(
        verdict=derive_verdict(ok),
        values=c.as_dict()
        | {
            "relative_bias_paper": c.relative_bias_paper,
            "monte_carlo_mean_at_paper_sigma": mc,
            "monte_carlo_se": se,
            "monte_carlo_mean_at_sigma_1": mc1,
            "monte_carlo_se_sigma_1": se1,
            "optimal_sigma": {str(D): s for D, s in c.optimal_sigmas().items()},
        },
        tolerance="closed forms: 1e-14 relative; Monte Carlo (projected, D=64, 20000 trials): within 5 SE of exp(5/6), "
        "more than 5 SE from exp(1/2)",
        inputs={"xi": 0.5, "D": D, "trials": trials, "seed": SEED},
    )


@claim(
    "thm1.literal_origin",
    source="derived",
    statement=r"The tan rule is the bias-zeroing $\sigma$ of the unconjugated (literal) product",
    expected="holds",
)
def literal_origin() -> Evidence:
    # Independent route (NumPy): the tan rule σ = tan(½ arccos ξ), and the literal mean for unit norms
    # E[Re φ(q)φ(k)] = A e^{−σ²‖q+k‖²/2} = e^{1 − σ²(1+ξ)} (A = e, ‖q+k‖² = 2(1+ξ)), which at
    # σ² = tan²(½ arccos ξ) = (1−ξ)/(1+ξ) is e^{ξ}. The core's paper_sigma and
    # unbiased_sigma(literal) are compared with the NumPy rule (they are not compared with each
    # other: one may be computed from the other), and its literal-mean closed form with the NumPy
    # literal mean.
    rows = []
    ok = True
    for xi in XI_GRID:
        s_np = float(np.tan(0.5 * np.arccos(xi)))
        lit_np = float(np.exp(1 - s_np**2 * (1 + xi)))
        s = float(temperature.paper_sigma(xi))
        q, k = temperature.unit_pair(xi, d=4)
        lit = float(rff.moments(q, k, s_np, "trig", "literal")[0])
        conj = float(rff.moments(q, k, s_np, "trig", "conjugate")[0])
        unbiased_lit = float(temperature.unbiased_sigma(xi, convention="literal"))
        good = (
            abs(lit_np / np.exp(xi) - 1) < 1e-13
            and abs(lit / lit_np - 1) < 1e-13
            and abs(s / s_np - 1) < 1e-13
            and abs(unbiased_lit / s_np - 1) < 1e-13
        )
        ok &= good
        rows.append(
            {
                "xi": xi,
                "tan_half_arccos_numpy": s_np,
                "sigma_paper": s,
                "unbiased_sigma_literal": unbiased_lit,
                "literal_mean_numpy": lit_np,
                "literal_mean": lit,
                "conjugate_mean": conj,
                "target": float(np.exp(xi)),
            }
        )
    return Evidence(
        verdict=derive_verdict(ok),
        values={"grid": rows},
        tolerance="1e-13 relative: the NumPy literal mean exp(1−σ²(1+ξ)) at σ = tan(½ arccos ξ) equals e^ξ; "
        "paper_sigma and unbiased_sigma(literal) equal NumPy's tan(½ arccos ξ); the literal-mean closed form "
        "equals the NumPy literal mean (the conjugate mean is shown for contrast: it hits e^ξ only at ξ = 0, "
        "where the rule gives σ = 1)",
        inputs={"xi": list(XI_GRID), "d": 4},
    )


def _sigma_star_figure() -> Any:
    from ropelab import plot

    return plot.sigma_star_vs_D((-0.5, 0.0, 0.5, 0.9))


@claim(
    "thm1.finite_D",
    source="Selective RoPE Theorem 1, App. A.3",
    statement="The finite-$D$ MSE closed form matches Monte Carlo, and the optimum depends on $D$",
    expected="holds",
)
def finite_D() -> Evidence:
    sig = np.array([0.3, 0.6, 1.0, 1.3])
    rows = []
    ok = True
    for D in (1, 16, 256):
        for mode, d in (("projected", 64), ("full", 8)):
            curve = temperature.mse_curve(0.5, D, sig, trials=3000, seed=SEED, d=d, mode=mode)  # type: ignore[arg-type]
            z = np.abs(curve.empirical - curve.analytic) / curve.stderr
            ok &= bool(np.all(z < MC_SIGMAS))
            rows.append(
                {
                    "D": D,
                    "mode": mode,
                    "max_z": float(np.max(z)),
                    "analytic": curve.analytic.tolist(),
                    "empirical": curve.empirical.tolist(),
                }
            )
    s1, s256 = float(temperature.optimal_sigma(0.5, 1)), float(temperature.optimal_sigma(0.5, 256))
    depends = abs(s1 - s256) > 1e-3
    return Evidence(
        verdict=derive_verdict(ok and depends),
        values={"mc_vs_closed_form": rows, "sigma_star_D1": s1, "sigma_star_D256": s256},
        tolerance=f"every Monte-Carlo MSE within {MC_SIGMAS:g} standard errors of the closed form; σ*(1) and σ*(256) "
        "differ by more than 1e-3",
        inputs={"xi": 0.5, "sigmas": sig.tolist(), "trials": 3000, "seed": SEED},
        figure=_sigma_star_figure,
    )


@claim(
    "prf.sigma_one",
    source="Selective RoPE App. A.6",
    statement=r"Positive random features: $\sigma = 1$ is unbiased but not the finite-$D$ MSE minimiser",
    expected="holds",
)
def prf_sigma_one() -> Evidence:
    rows = []
    ok = True
    for xi in (-0.5, 0.0, 0.5, 0.9):
        q, k = temperature.unit_pair(xi, d=4)
        mean1 = float(rff.moments(q, k, 1.0, "positive")[0])
        for D in (1, 16, 256):
            s_star = float(temperature.optimal_sigma(xi, D, "positive"))
            s_brent = float(temperature.optimal_sigma(xi, D, "positive", method="brent"))
            m_star = float(temperature.mse(xi, D=D, sigma=s_star, estimator="positive"))
            m_one = float(temperature.mse(xi, D=D, sigma=1.0, estimator="positive"))
            good = (
                abs(mean1 / np.exp(xi) - 1) < 1e-13 and s_star < 1 and m_star < m_one and abs(s_star - s_brent) < 1e-8
            )
            ok &= good
            rows.append(
                {
                    "xi": xi,
                    "D": D,
                    "mean_at_1": mean1,
                    "sigma_star": s_star,
                    "sigma_star_brent": s_brent,
                    "mse_at_sigma_star": m_star,
                    "mse_at_1": m_one,
                }
            )
    # Monte Carlo (NumPy, independent of the core): the closed-form optimum's MSE is what sampling
    # gives, and it is smaller than σ = 1's by more than MC_SIGMAS standard errors of the paired gap.
    mc = _prf_mse_monte_carlo(PRF_MC_XI, PRF_MC_D, float(temperature.optimal_sigma(PRF_MC_XI, PRF_MC_D, "positive")))
    closed = [
        float(temperature.mse(PRF_MC_XI, D=PRF_MC_D, sigma=sg, estimator="positive")) for sg in (mc["sigma_star"], 1.0)
    ]
    mc_ok = (
        abs(mc["mse_sigma_star"] - closed[0]) < MC_SIGMAS * mc["se_sigma_star"]
        and abs(mc["mse_sigma_1"] - closed[1]) < MC_SIGMAS * mc["se_sigma_1"]
        and mc["gap"] > MC_SIGMAS * mc["gap_se"]
    )
    return Evidence(
        verdict=derive_verdict(ok and mc_ok),
        values={
            "grid": rows,
            "monte_carlo": mc | {"closed_mse_sigma_star": closed[0], "closed_mse_sigma_1": closed[1]},
        },
        tolerance="unbiasedness to 1e-13 relative; σ* < 1 with a strictly smaller closed-form MSE; cubic vs Brent 1e-8; "
        f"Monte Carlo (NumPy, ξ = {PRF_MC_XI:g}, D = {PRF_MC_D}, {PRF_MC_TRIALS} trials, common random numbers): each "
        f"MSE within {MC_SIGMAS:g} standard errors of its closed form, and MSE(1) − MSE(σ*) above {MC_SIGMAS:g} "
        "standard errors of the paired difference",
        inputs={
            "xi": [-0.5, 0.0, 0.5, 0.9],
            "D": [1, 16, 256],
            "monte_carlo": {"xi": PRF_MC_XI, "D": PRF_MC_D, "trials": PRF_MC_TRIALS, "seed": SEED + 1},
        },
    )


PRF_MC_XI, PRF_MC_D, PRF_MC_TRIALS = -0.5, 16, 200_000  # ξ < 0: lighter lognormal tails at σ = 1


def _prf_mse_monte_carlo(xi: float, D: int, sigma_star: float) -> dict[str, float]:
    """Monte-Carlo MSE of the positive-feature estimate of e^ξ (unit norms) at σ* and at σ = 1.

    Each feature's term is e^{ω·q − 1/2} e^{ω·k − 1/2} with (ω·q, ω·k) ~ N(0, σ²[[1, ξ], [ξ, 1]]),
    drawn with NumPy from two standard normals; both σ share the draws.
    """
    g = np.random.default_rng(SEED + 1).standard_normal((2, PRF_MC_TRIALS, D))
    errs = []
    for sg in (sigma_star, 1.0):
        u, v = sg * g[0], sg * (xi * g[0] + np.sqrt(1 - xi * xi) * g[1])
        errs.append((np.mean(np.exp(u + v - 1.0), axis=1) - np.exp(xi)) ** 2)
    n = np.sqrt(PRF_MC_TRIALS)
    diff = errs[1] - errs[0]
    return {
        "sigma_star": sigma_star,
        "mse_sigma_star": float(errs[0].mean()),
        "se_sigma_star": float(errs[0].std(ddof=1) / n),
        "mse_sigma_1": float(errs[1].mean()),
        "se_sigma_1": float(errs[1].std(ddof=1) / n),
        "gap": float(diff.mean()),
        "gap_se": float(diff.std(ddof=1) / n),
    }


# ---- second wave ---------------------------------------------------------------------------------

D1_XI_GRID = (-0.9, -0.5, 0.0, 0.3, 0.5, 0.8, 0.95)


@claim(
    "thm1.d1_third",
    source="Selective RoPE §3.1, Thm. 1; App. A.3",
    statement=r"At $D = 1$ the MSE-optimal $\sigma^2$ is $1/3$ for every $\xi$ (so at $\xi = \tfrac{1}{2}$ the tan rule is the $D = 1$ optimum)",
    expected="holds",
)
def d1_third() -> Evidence:
    rows: list[dict[str, Any]] = []
    ok = True
    for xi in D1_XI_GRID:
        s = float(temperature.optimal_sigma(xi, 1))
        s_b = float(temperature.optimal_sigma(xi, 1, method="brent"))
        m_star = float(temperature.mse(xi, D=1, sigma=s))
        m_near = [float(temperature.mse(xi, D=1, sigma=s * f)) for f in (0.98, 1.02)]
        good = abs(s * s - 1 / 3) < 1e-12 and abs(s_b * s_b - 1 / 3) < 1e-7 and all(m_star < m for m in m_near)
        ok &= good
        rows.append(
            {
                "xi": xi,
                "sigma_sq_cubic": s * s,
                "sigma_sq_brent": s_b * s_b,
                "mse_at_optimum": m_star,
                "mse_at_0.98_and_1.02_sigma": m_near,
                "sigma_sq_paper": float(temperature.paper_sigma(xi)) ** 2,
            }
        )
    paper_half = float(temperature.paper_sigma(0.5)) ** 2
    coincide_only_at_half = all((abs(r["sigma_sq_paper"] - 1 / 3) < 1e-12) == (r["xi"] == 0.5) for r in rows)
    return Evidence(
        verdict=derive_verdict(ok and abs(paper_half - 1 / 3) < 1e-15 and coincide_only_at_half),
        values={"grid": rows, "paper_sigma_sq_at_xi_half": paper_half},
        tolerance="σ*² = 1/3 to 1e-12 (cubic) and 1e-7 (Brent, an independent bracketing minimiser); the closed-form "
        "MSE is larger at 0.98σ* and 1.02σ*; the tan rule gives 1/3 to 1e-15 at ξ = ½ and elsewhere differs",
        inputs={"xi": list(D1_XI_GRID), "D": 1},
    )


RFA_THETA_MAX = (0.9, 0.99, 0.999, 0.9999)
RFA_RTOL = 1e-3


@claim(
    "temp.rfa_float32",
    source="Selective RoPE §3.1, Fig. 2 (the authors' released code)",
    statement=r"The float32 evaluation of the `rfa` temperature spectrum at $\theta_{\max} = 0.9999$ (base "
    r"$10^4$) matches its formula $\tan(\phi_j/2)$, rescaled to max 1",
    expected="fails",
)
def rfa_float32() -> Evidence:
    d = 128
    rows: list[dict[str, float]] = []
    for tm in RFA_THETA_MAX:
        exact = temperature.spectrum(d, "rfa", theta_max=tm)
        f32 = temperature.spectrum(d, "rfa", theta_max=tm, precision="float32")
        phi = np.linspace(0.0, tm * np.pi, d // 2)  # the formula, evaluated independently
        formula = np.tan(phi / 2) / np.tan(phi / 2).max()
        nz = exact > 0
        # the float32 grid near −1 has spacing 2⁻²⁴: 1 + cos φ_max is rounded to a multiple of it
        one_plus_cos = 2 * np.sin((1 - tm) * np.pi / 2) ** 2
        rows.append(
            {
                "theta_max": tm,
                "float32_max_rel_error": float(np.max(np.abs(f32[nz] / exact[nz] - 1))),
                "float64_max_rel_error": float(np.max(np.abs(exact[nz] / formula[nz] - 1))),
                "one_plus_cos_phi_max": float(one_plus_cos),
                "one_plus_cos_in_float32_spacings": float(one_plus_cos / 2.0**-24),
            }
        )
    at = next(r for r in rows if r["theta_max"] == 0.9999)
    holds = at["float32_max_rel_error"] < RFA_RTOL
    # the direction: the released code's float32 largest temperature (NumPy) against tan(φ_max/2)
    c32 = np.cos(np.float32(0.9999 * np.pi))
    largest = float(np.sqrt((1 - c32) / (1 + c32))) / float(np.tan(0.9999 * np.pi / 2))
    others = (f32[nz] / exact[nz])[:-1]  # the toolkit at the last θ_max, 0.9999, but its largest channel
    direction_ok = largest < 1 and float(np.max(np.abs(others * largest - 1))) < 1e-3
    corrected_ok = (
        all(r["float64_max_rel_error"] < 1e-12 for r in rows)
        and all(r["float32_max_rel_error"] < RFA_RTOL for r in rows if r["theta_max"] <= 0.99)
        and at["one_plus_cos_in_float32_spacings"] < 1.0
        and direction_ok
    )
    return Evidence(
        verdict=derive_verdict(holds),
        values={"by_theta_max": rows, "largest_temperature_float32_over_exact": largest}
        | {"other_channels_float32_over_exact_min_max": [float(np.min(others)), float(np.max(others))]},
        tolerance=f"relative {RFA_RTOL:g} on every channel (≈ 8000 float32 ulps: far above the rounding of a "
        "well-conditioned evaluation); float64 against the independently evaluated formula to 1e-12",
        inputs={"d": d, "kind": "rfa", "temp_max": 1.0}
        | {"float32_form": "sqrt((1 − cos φ)/(1 + cos φ)), every step in float32, as in the released code"},
        counterexample={"theta_max": 0.9999, "float32_spacing_near_minus_1": 2.0**-24}
        | {k: at[k] for k in ("float32_max_rel_error", "one_plus_cos_phi_max")},
        corrected=r"In float64 the spectrum matches $\tan(\phi_j/2)$ to $10^{-12}$. In float32, $1 + \cos\phi_{\max} \approx "
        rf"(\pi(1 - \theta_{{\max}}))^2/2$ = {at['one_plus_cos_phi_max']:.3g} at $\theta_{{\max}} = 0.9999$ lies below "
        rf"float32's spacing $2^{{-24}}$ near $-1$ and is rounded up to {float(1 + c32):.3g}: the largest temperature "
        f"comes out {largest:.3f} times the exact value (too small), so after rescaling to max 1 the other channels are "
        rf"up to {at['float32_max_rel_error']:.1%} too large; for $\theta_{{\max}} \le 0.99$ the float32 error stays "
        f"below {RFA_RTOL:g}.",
        corrected_holds=bool(corrected_ok),
    )


# ---- inside attention (Performer, arXiv:2009.14794 §2.2–2.6) ---------------------------------

ATTENTION_SEED = 20260115
ATTENTION_D_GRID = (16, 64, 256, 1024)
ATTENTION_TRIALS = 32
# Two rules differ when their mean errors differ by more than MC_SIGMAS = 5 standard errors of the
# difference.


def _attention_inputs(
    T: int = 96, d: int = 16, seed: int = ATTENTION_SEED
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Queries and keys sharing a common direction (mean cosine ≈ ½, so Theorem 1's σ ≈ 0.58)."""
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal(d)
    mu /= np.linalg.norm(mu)
    q = mu + 0.25 * rng.standard_normal((T, d))
    k = mu + 0.25 * rng.standard_normal((T, d))
    v = rng.standard_normal((T, 4))
    return q, k, v


def _attention_figure(r: attention.AttentionError) -> Any:
    from matplotlib.figure import Figure  # no pyplot: independent of the backend

    fig = Figure(figsize=(5, 3.5))
    ax = fig.subplots()
    for i, rule in enumerate(r.rules):
        ax.errorbar(r.D, r.mean[i], yerr=r.stderr[i], marker="o", capsize=2, label=rule)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("features D")
    ax.set_ylabel("relative error ‖Ô − O‖_F / ‖O‖_F")
    ax.legend(title="temperature rule")
    fig.tight_layout()
    return fig


@claim(
    "thm1.attention",
    source="Selective RoPE Theorem 1, Eq. (8); Performer §2.2",
    statement=r"Inside normalised random-feature attention, Theorem 1's temperature $\sigma = \tan(\tfrac{1}{2}\arccos\xi)$ "
    r"brings the output closer to exact softmax attention than $\sigma = 1$, at every feature count $D$",
    expected="fails",
)
def attention_level() -> Evidence:
    q, k, v = _attention_inputs()
    r = attention.error(
        q,
        k,
        v,
        list(ATTENTION_D_GRID),
        rules=("one", "tan", "optimal"),
        estimator="trig",
        trials=ATTENTION_TRIALS,
        seed=ATTENTION_SEED,
        scale=1.0,
    )
    rows = []
    tan_not_worse = True
    for j, D in enumerate(ATTENTION_D_GRID):
        m1, s1 = r.at("one", D)
        mt, st = r.at("tan", D)
        mo, so = r.at("optimal", D)
        gap_se = float(np.hypot(s1, st))
        # the statement fails at this D when σ = 1 is better by more than 5 standard errors
        worse = (mt - m1) > MC_SIGMAS * gap_se
        tan_not_worse &= not worse
        rows.append(
            {
                "D": D,
                "error_sigma_one": m1,
                "se_sigma_one": s1,
                "error_tan": mt,
                "se_tan": st,
                "error_optimal": mo,
                "se_optimal": so,
                "sigma_optimal": float(r.sigma["optimal"][j]),
                "tan_worse_by_se": (mt - m1) / gap_se if gap_se > 0 else float("inf"),
            }
        )
    worst = max(rows, key=lambda row: row["tan_worse_by_se"])
    # corrected statement: σ = 1 is consistent — its error ratio from D = 64 to D = 1024 exceeds 2
    # by 5 standard errors (delta method; O(1/√D) predicts 4) — while the tan rule's error stays
    # above a floor (its kernel bias): at D = 1024 it exceeds σ = 1's by more than 5 standard errors.
    mid, last = rows[1], rows[-1]
    ratio = mid["error_sigma_one"] / last["error_sigma_one"]
    ratio_se = ratio * float(
        np.hypot(mid["se_sigma_one"] / mid["error_sigma_one"], last["se_sigma_one"] / last["error_sigma_one"])
    )
    consistent = ratio - MC_SIGMAS * ratio_se > 2
    floor = last["error_tan"] - last["error_sigma_one"] > MC_SIGMAS * np.hypot(last["se_tan"], last["se_sigma_one"])
    return Evidence(
        verdict=derive_verdict(tan_not_worse),
        values={
            "mean_cosine": r.xi,
            "sigma_tan": float(r.sigma["tan"][0]),
            "errors": rows,
            "D_where_tan_is_better": [row["D"] for row in rows if row["tan_worse_by_se"] < -MC_SIGMAS],
            "sigma_one_error_ratio_64_to_1024": ratio,
            "sigma_one_error_ratio_se": ratio_se,
        },
        tolerance=f"a rule is worse when its mean relative error exceeds the other's by more than {MC_SIGMAS:g} "
        f"standard errors of the difference ({ATTENTION_TRIALS} trials, common random numbers)",
        inputs={
            "T": 96,
            "d": 16,
            "d_v": 4,
            "scale": 1.0,
            "estimator": "trig",
            "causal": True,
            "D": list(ATTENTION_D_GRID),
            "trials": ATTENTION_TRIALS,
            "seed": ATTENTION_SEED,
        },
        counterexample={
            "D": worst["D"],
            "error_sigma_one": worst["error_sigma_one"],
            "error_tan": worst["error_tan"],
            "standard_errors_apart": worst["tan_worse_by_se"],
            "mean_cosine": r.xi,
            "sigma_tan": float(r.sigma["tan"][0]),
        },
        corrected=r"With the conjugate trig features $\sigma = 1$ makes every $\phi(q)\cdot\phi(k)$ unbiased, and the "
        r"attention error falls like $1/\sqrt{D}$; a fixed $\sigma \neq 1$ (the tan rule) biases each kernel value by a "
        r"factor depending on $\lVert q - k\rVert$, which does not cancel in the normalisation, so the error stops "
        r"falling. The tan rule wins only at small $D$, where its bias is smaller than the variance of $\sigma = 1$ "
        "(see `D_where_tan_is_better`).",
        corrected_holds=bool(consistent and floor),
        figure=lambda: _attention_figure(r),
    )
