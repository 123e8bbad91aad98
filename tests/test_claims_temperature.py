"""Perturbations of the temperature claims (``ropelab.claims.temperature``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np

from ropelab import temperature, transition
from tests.claims_perturb import Perturbation, add_section_tests, wrap

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


add_section_tests(globals(), SECTION, PERTURBATIONS)
