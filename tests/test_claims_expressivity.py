"""Perturbations that flip the expressivity and delta-rule claims (collected by test_claims)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ropelab import expressivity, recurrence
from ropelab.claims import expressivity as expr_claims


def _drop_last_factor(orig: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    return lambda Q, *a, **k: orig(Q, *a, **k)[:-1]


PERTURBATIONS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
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
    # transitions without the rotation by the phase increment
    "delta.effective_transition": lambda m: m.setattr(
        recurrence,
        "delta_transitions",
        (lambda orig: lambda k, beta, angles=None, gates=None, **kw: orig(k, beta, None, gates, **kw))(
            recurrence.delta_transitions
        ),
    ),
}
