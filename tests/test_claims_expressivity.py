"""Perturbations of the expressivity claims (``ropelab.claims.expressivity``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ropelab import expressivity, rotary
from ropelab.claims import expressivity as expr_claims
from tests.claims_perturb import Perturbation, add_section_tests, wrap

SECTION = "expressivity"


def _drop_last_factor(orig: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda Q, *a, **k: orig(Q, *a, **k)[:-1]


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # a phase step of π/2 instead of π per 1-bit no longer flips the sign
    "expr.parity_rotation": lambda m: m.setattr(expr_claims, "PARITY_ANGLE", np.pi / 2),
    # angles off by 0.1 % drift away from the group over 1280 steps
    "expr.cyclic_rotation": lambda m: m.setattr(
        expressivity, "element_angles", (lambda orig: lambda g: orig(g) * 1.001)(expressivity.element_angles)
    ),
    # a factorisation that loses a reflection no longer represents the group
    "expr.s3_householder": lambda m: m.setattr(
        expressivity, "householder_factors", _drop_last_factor(expressivity.householder_factors)
    ),
    # a "fixed RoPE" that secretly reads the bits tracks parity
    "expr.fixed_rope_parity": lambda m: m.setattr(
        expressivity, "track_fixed_rope", lambda g, tokens, theta=1.0: expressivity.track_rotation(g, tokens)
    ),
}


#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # a rotation that ignores its angles: the tracker (which reads the phase) is unaffected, the
    # scores of the rotated queries no longer carry the state
    "expr.parity_rotation/scores": (
        "expr.parity_rotation",
        wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: np.asarray(x, float).copy()),
    ),
    # a rotation by 1.2 times its angle: the tracker is unaffected, the states decoded from the
    # scores of Z12 (30° apart) are not
    "expr.cyclic_rotation/scores": (
        "expr.cyclic_rotation",
        wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: o(x, 1.2 * np.asarray(ang), *a, **k)),
    ),
    # positive "gates" whose tracker secretly reads the bits: the linear readout finds the parity
    "expr.fixed_rope_parity/gates": (
        "expr.fixed_rope_parity",
        wrap(
            expressivity,
            "track_positive_gates",
            lambda o: lambda g, tokens, gates=None: expressivity.track_rotation(g, tokens),
        ),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
