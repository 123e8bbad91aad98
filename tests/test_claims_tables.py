"""Perturbations of the reported-results claims (``ropelab.claims.tables``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from ropelab import paper_tables
from tests.claims_perturb import Perturbation, add_section_tests

SECTION = "tables"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # a mis-transcribed table entry
    "tables.avg_ppl": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "RoPE", (21.52, 46.5)),
    "tables.deltas": lambda m: m.setitem(paper_tables.TABLE1_MAD_AVG, "NoPE", 66.3),
    # a mis-transcribed Table 2 entry
    "tables.more_deltas": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "Selective RoPE Baseline", (21.27, 46.0)),
}


add_section_tests(globals(), SECTION, PERTURBATIONS)
