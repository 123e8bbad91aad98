"""Perturbations of the temperature claims (``ropelab.claims.temperature``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import rff, temperature, transition
from tests.claims_perturb import Perturbation, add_section_tests, mode_wrap, wrap

SECTION = "temperature"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # an optimiser that returns the paper's rule makes Theorem 1 look right
    "thm1.tan_rule": lambda m: m.setattr(
        temperature, "optimal_sigma", lambda xi, D, *a, **k: temperature.paper_sigma(xi)
    ),
    # a counterexample computed with the literal product shows no bias
    "thm1.counterexample": lambda m: m.setattr(
        temperature,
        "counterexample",
        (
            lambda orig: (
                lambda xi=0.5: temperature.Counterexample(
                    **(orig(xi).as_dict() | {"mean_paper": orig(xi).mean_paper_literal})
                )
            )
        )(temperature.counterexample),
    ),
    # a bias-zeroing rule that ignores the convention
    "thm1.literal_origin": lambda m: m.setattr(
        temperature, "unbiased_sigma", lambda xi, *a, **k: np.ones_like(np.asarray(xi, float))
    ),
    # a closed form off by a factor no longer matches Monte Carlo
    "thm1.finite_D": lambda m: m.setattr(
        temperature, "mse", (lambda orig: lambda *a, **k: 1.5 * np.asarray(orig(*a, **k)))(temperature.mse)
    ),
    # a tan rule that returns σ = 1 makes the paper's temperature look harmless in attention
    "thm1.attention": lambda m: m.setattr(temperature, "paper_sigma", lambda xi: 1.0),
    # an optimiser stuck at σ = 1 for positive features
    "prf.sigma_one": lambda m: m.setattr(temperature, "optimal_sigma", lambda xi, D, *a, **k: 1.0),
    # a factor clipped at 1 (what a bounded transition would give)
    "prf.transition_gt1": wrap(transition, "prf_transition_factor", lambda o: lambda q, w: np.minimum(o(q, w), 1.0)),
    # an optimiser that returns the paper's rule
    "thm1.d1_third": lambda m: m.setattr(
        temperature, "optimal_sigma", lambda xi, D, *a, **k: temperature.paper_sigma(xi)
    ),
    # a "float32" spectrum computed in float64 matches the formula
    "temp.rfa_float32": wrap(temperature, "spectrum", lambda o: lambda *a, precision="float64", **k: o(*a, **k)),
}


def _rule_and_unbiased_off(m: pytest.MonkeyPatch) -> None:
    """paper_sigma and unbiased_sigma both 0.1% high (consistent with each other)."""
    wrap(temperature, "paper_sigma", lambda o: lambda xi: 1.001 * np.asarray(o(xi)))(m)
    wrap(temperature, "unbiased_sigma", lambda o: lambda xi, *a, **k: 1.001 * np.asarray(o(xi, *a, **k)))(m)


#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # a float32 spectrum off in the other direction (the float32 error mirrored about the exact value):
    # still ≈ 10 % off, but no longer what a largest temperature rounded too small gives
    "temp.rfa_float32/direction": (
        "temp.rfa_float32",
        wrap(
            temperature,
            "spectrum",
            lambda o: (
                lambda *a, precision="float64", **k: (
                    2.0 * np.asarray(o(*a, **k)) - np.asarray(o(*a, precision=precision, **k))
                    if precision == "float32"
                    else o(*a, **k)
                )
            ),
        ),
    ),
    # the rule and the bias-zeroing σ wrong in the same way (each computed from the other): only the
    # comparison with NumPy's tan(½ arccos ξ) sees it
    "thm1.literal_origin/rule": ("thm1.literal_origin", _rule_and_unbiased_off),
    # a literal-mean closed form off by a factor (against the NumPy literal mean)
    "thm1.literal_origin/literal_mean": (
        "thm1.literal_origin",
        mode_wrap(rff, "moments", "literal", lambda out: (1.001 * out[0], out[1])),
    ),
    # a factor law with the wrong temperature: its mean is no longer the lognormal e^{‖Δ‖²/2}
    "prf.transition_gt1/law": (
        "prf.transition_gt1",
        wrap(transition, "prf_factor_distribution", lambda o: lambda delta_norm, sigma=1.0: o(delta_norm, 1.5 * sigma)),
    ),
    # factors shrunk by 0.8: some still exceed 1, but P(f > 1) and E[f] no longer match the law
    "prf.transition_gt1/monte_carlo": (
        "prf.transition_gt1",
        wrap(transition, "prf_transition_factor", lambda o: lambda q, w: 0.8 * o(q, w)),
    ),
    # a positive-feature MSE closed form 10% low everywhere (its optimum unchanged): Monte Carlo disagrees
    "prf.sigma_one/monte_carlo": (
        "prf.sigma_one",
        wrap(
            temperature,
            "mse",
            lambda o: lambda *a, **k: (0.9 if k.get("estimator") == "positive" else 1.0) * np.asarray(o(*a, **k)),
        ),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
