"""Perturbations of the related-models claims (``ropelab.claims.related``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np

from ropelab import recurrence, related
from tests.claims_perturb import Perturbation, add_section_tests, mode_wrap, wrap

SECTION = "related"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # the recurrent ALiBi with half the decay rate
    "alibi.decay": wrap(
        recurrence,
        "alibi_attention",
        lambda o: lambda q, k, v, m, mode="direct", **kw: o(q, k, v, m / 2 if mode == "recurrent" else m, mode, **kw),
    ),
    # a recurrent cosFormer that is slightly off
    "cosformer.states": mode_wrap(recurrence, "cosformer_attention", "recurrent", lambda out: 1.01 * out),
    # a FoX bias off by 0.1 % no longer matches the decayed recurrence
    "alibi.softmax_decay": lambda m: m.setattr(
        related, "fox_bias", (lambda orig: lambda f: orig(f) * 1.001)(related.fox_bias)
    ),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # softmax attention that ignores the requested scale: the ALiBi softmax form breaks
    "alibi.decay/softmax": (
        "alibi.decay",
        wrap(
            recurrence,
            "softmax_attention",
            lambda o: lambda q, k, v, angles=None, *, scale=None, **kw: o(q, k, v, angles, **kw),
        ),
    ),
    # ALiBi slopes off by 1 % in the softmax form only
    "alibi.softmax_decay/alibi_bias": (
        "alibi.softmax_decay",
        lambda m: m.setattr(
            related, "alibi_bias", (lambda orig: lambda T, s: orig(T, np.asarray(s) * 1.01))(related.alibi_bias)
        ),
    ),
    # a recurrence that forgets twice as fast
    "alibi.softmax_decay/recurrence_gate": (
        "alibi.softmax_decay",
        lambda m: m.setattr(
            related,
            "decayed_kernel_attention",
            (lambda orig: lambda pq, pk, v, f, **kw: orig(pq, pk, v, np.asarray(f) ** 2, **kw))(
                related.decayed_kernel_attention
            ),
        ),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
