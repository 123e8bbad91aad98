"""Perturbations of the gated-rotations claims (``ropelab.claims.gates``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np

from ropelab import recurrence, rotary, transition
from tests.claims_perturb import Perturbation, add_section_tests, scaled, wrap

SECTION = "gates"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # the transposed effective transition
    "gate.effective": wrap(
        transition,
        "effective_sequence",
        lambda o: lambda angles, gates=None, *a, **k: np.swapaxes(o(angles, gates, *a, **k), -1, -2),
    ),
    # A^eff computed as Λ R regardless of the gate: the per-channel case then "agrees"
    "gate.commute": wrap(
        transition,
        "effective",
        lambda o: (
            lambda pp, pt, g=None, *a, **k: (
                np.diag(np.repeat(np.asarray(g), 2) if np.size(g) * 2 == 2 * np.size(pp) else np.asarray(g))
                @ rotary.rotation_matrix(np.asarray(pt) - np.asarray(pp))
            )
        ),
    ),
    # the Frobenius norm instead of the spectral norm
    "gate.norm": wrap(transition, "spectral_norm", lambda o: lambda A: float(np.linalg.norm(A))),
    # reflecting twice in the same vector gives the identity, not a rotation
    "householder.rotation": wrap(
        transition, "householder_product", lambda o: lambda W: o(np.stack([np.asarray(W)[0], np.asarray(W)[0]]))
    ),
    # a generalised reflection that ignores β is always orthogonal
    "householder.delta": wrap(transition, "generalized_householder", lambda o: lambda w, beta: o(w, 2.0)),
    # a gate that carries a sign flips the readout
    "gate.positive_no_flip": wrap(
        transition, "effective_sequence", lambda o: lambda angles, gates=None, *a, **k: -o(angles, gates, *a, **k)
    ),
    # a per-channel gate silently replaced by its mean (a scalar gate) never turns a vector
    "gate.direction": wrap(
        transition, "effective", lambda o: lambda pp, pt, g=None, *a, **k: float(np.mean(g)) * o(pp, pt, None, *a, **k)
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


#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # the core's routes scaled alike: only the NumPy routes see it
    "gate.effective/numpy": ("gate.effective", scaled(recurrence, "selective_rope_attention", "linear_attention")),
    "delta.effective_transition/numpy": (
        "delta.effective_transition",
        scaled(recurrence, "delta_rule", "linear_attention"),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
