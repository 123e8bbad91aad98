"""Perturbations of the position-encoding claims (``ropelab.claims.positions``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np

from ropelab import extrapolation, recurrence, rotary
from tests.claims_perturb import Perturbation, add_section_tests, wrap

SECTION = "positions"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # positions enter non-linearly: the similarity no longer depends on m − n only
    "pe.sinusoidal_relative": wrap(
        rotary,
        "rope_angles",
        lambda o: lambda pos, d, *a, **k: o(pos, d, *a, **k) * (1 + 1e-3 * np.abs(np.asarray(pos, float)))[..., None],
    ),
    # encodings that do not vary with the position: no absolute position in the cross terms
    "pe.additive_absolute": wrap(rotary, "rope_angles", lambda o: lambda *a, **k: np.zeros_like(o(*a, **k))),
    # softmax attention scaled by 1/d instead of 1/√d
    "attn.sqrt_d": wrap(
        recurrence,
        "softmax_attention",
        lambda o: lambda q, k, v, *a, scale=None, **kw: o(q, k, v, *a, scale=1.0 / np.shape(q)[-1], **kw),
    ),
    # "interpolation" that leaves the frequencies unscaled: direct extrapolation
    "extrap.interpolation_range": wrap(
        extrapolation,
        "scaled_frequencies",
        lambda o: lambda d, rule="default", **k: o(d, "default", **{n: x for n, x in k.items() if n == "base"}),
    ),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # scores 10 % too large: the Monte-Carlo variance is then 1.21 d
    "attn.sqrt_d/variance": (
        "attn.sqrt_d",
        wrap(recurrence, "linear_attention", lambda o: lambda *a, **k: 1.1 * np.asarray(o(*a, **k))),
    ),
    # scores off by 1e-6 relative: the four-term identity no longer holds
    "pe.additive_absolute/identity": (
        "pe.additive_absolute",
        wrap(recurrence, "linear_attention", lambda o: lambda *a, **k: (1 + 1e-6) * np.asarray(o(*a, **k))),
    ),
    # unseen arcs reported for the interpolated run where the NumPy route finds none beyond half a position
    "extrap.interpolation_range/unseen": (
        "extrap.interpolation_range",
        wrap(
            extrapolation,
            "unseen_angles",
            lambda o: lambda inv, L, L2, test=None: o(inv, L, L2, None if test is None else 1.001 * np.asarray(test)),
        ),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
