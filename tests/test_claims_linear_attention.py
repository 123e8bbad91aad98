"""Perturbations of the linear-attention claims (``ropelab.claims.linear_attention``): each
replaces what a check relies on with a subtly wrong version, and the check's verdict must then
flip."""

from __future__ import annotations

from ropelab import recurrence
from tests.claims_perturb import Perturbation, add_section_tests, wrap

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
}


add_section_tests(globals(), SECTION, PERTURBATIONS)
