"""Perturbations of the linear-attention claims (``ropelab.claims.linear_attention``): each
replaces what a check relies on with a subtly wrong version, and the check's verdict must then
flip."""

from __future__ import annotations

import numpy as np

from ropelab import recurrence
from tests.claims_perturb import Perturbation, add_section_tests, mode_wrap, scaled, wrap

SECTION = "linear_attention"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # an unrolled form that ignores product_start makes Eq. (11) look right
    "eq11.index": wrap(
        recurrence,
        "linear_attention",
        lambda o: (
            lambda q, k, v, A=None, mode="recurrent", product_start="tau+1", **kw: o(q, k, v, A, mode, "tau+1", **kw)
        ),
    ),
    # an unrolled form that ignores product_start: the printed Eq. (11) no longer matches write-then-transition
    "eq11.convention": wrap(
        recurrence,
        "linear_attention",
        lambda o: (
            lambda q, k, v, A=None, mode="recurrent", product_start="tau+1", **kw: o(q, k, v, A, mode, "tau+1", **kw)
        ),
    ),
    # the recurrent RoPE route off by a factor: no longer the relative form, so no counterexample
    "linear.relative_impossible": mode_wrap(
        recurrence, "selective_rope_attention", "recurrent", lambda out: 1.001 * np.asarray(out)
    ),
    # a "linear attention" whose outputs grow with the absolute step: resuming from the state then fails
    "linear.state_constant": wrap(
        recurrence,
        "linear_attention",
        lambda o: lambda q, *a, **k: np.asarray(o(q, *a, **k)) * (1 + 1e-6 * np.arange(np.shape(q)[-2]))[:, None],
    ),
}


#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # ALiBi's recurrent route off by a factor: the corrected statement's second counterexample fails
    "linear.relative_impossible/alibi": (
        "linear.relative_impossible",
        mode_wrap(recurrence, "alibi_attention", "recurrent", lambda out: 1.001 * np.asarray(out)),
    ),
    # FoX's recurrent route off by a factor
    "linear.relative_impossible/fox": (
        "linear.relative_impossible",
        mode_wrap(recurrence, "fox_attention", "recurrent", lambda out: 1.001 * np.asarray(out)),
    ),
    # softmax attention replaced by linear attention: its probe weights then have rank ≤ d
    "linear.state_constant/softmax": (
        "linear.state_constant",
        wrap(recurrence, "softmax_attention", lambda o: lambda q, k, v, *a, **kw: recurrence.linear_attention(q, k, v)),
    ),
    # every mode of the core scaled alike: only the NumPy routes see it
    "eq11.index/numpy": ("eq11.index", scaled(recurrence, "linear_attention")),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
