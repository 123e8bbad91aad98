"""Perturbations of the reported-results claims (``ropelab.claims.tables``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from ropelab import paper_tables
from ropelab.claims import tables
from tests.claims_perturb import Perturbation, add_section_tests

SECTION = "tables"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # a mis-transcribed table entry
    "tables.avg_ppl": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "RoPE", (21.52, 46.5)),
    "tables.deltas": lambda m: m.setitem(paper_tables.TABLE1_MAD_AVG, "NoPE", 66.3),
    # a mis-transcribed Table 2 entry
    "tables.more_deltas": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "Selective RoPE Baseline", (21.27, 46.0)),
    # SiLU's accuracy mis-transcribed by 0.1: its gain falls below 0.9
    "tables.ablation_components": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "+ SiLU", (21.14, 46.6)),
    # a WoBERT-512 figure 1.5 below RoFormer-1024: the statement then holds as written
    "tables.cail_baseline": lambda m: m.setattr(tables, "CAIL2019_SCM_WOBERT_512", 68.29),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # RoFormer-512 mis-transcribed: the gap in points is no longer 1.5 either
    "tables.cail_baseline/points": (
        "tables.cail_baseline",
        lambda m: m.setitem(tables.CAIL2019_SCM, "RoFormer-512", 68.49),
    ),
    # the phase gate's Avg-PPL below NoPE's
    "tables.ablation_components/ppl": (
        "tables.ablation_components",
        lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "+ phase gate", (20.70, 47.1)),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
