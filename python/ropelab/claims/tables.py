"""Claims about the paper's reported numbers: derived averages and quoted differences
(Selective RoPE Tables 1–3). The tables are transcribed in :mod:`ropelab.paper_tables`."""

from __future__ import annotations

from ropelab import paper_tables as pt
from ropelab.claims._registry import Evidence, claim, derive_verdict

# A printed value with two decimals is exact to ±0.005; one decimal ±0.05. A derived number agrees
# when it rounds to the printed one: |computed − printed| ≤ half a unit in the last printed place
# (plus 1e-9 for binary rounding).
HALF_ULP_2 = 0.005 + 1e-9
HALF_ULP_1 = 0.05 + 1e-9


@claim(
    "tables.avg_ppl",
    source="Selective RoPE Tables 2 and 3",
    statement="Table 2's Avg-PPL is the mean of Table 3's Wiki and LAMBADA PPL (GLA 370M rows)",
    expected="holds",
)
def avg_ppl() -> Evidence:
    """Check the claim ``tables.avg_ppl``; expected verdict: holds.

    Statement (Selective RoPE Tables 2 and 3): Table 2's Avg-PPL is the mean of Table 3's Wiki and
    LAMBADA PPL (GLA 370M rows).

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    pairs = {"NoPE": "NoPE", "RoPE": "RoPE", "+ phase gate": "Selective RoPE"}
    rows = []
    ok = True
    for t2, t3 in pairs.items():
        wiki, lamb, _ = pt.TABLE3[("GLA 370M", t3)]
        mean = (wiki + lamb) / 2
        printed = pt.TABLE2_GLA370M[t2][0]
        # both printed PPLs carry ±0.005, so their mean carries ±0.005; plus Table 2's own rounding
        good = abs(mean - printed) <= 2 * HALF_ULP_2
        ok &= good
        rows.append({"table2_row": t2, "table3_row": t3, "wiki": wiki, "lambada": lamb, "mean": mean,
                     "table2_avg_ppl": printed, "agrees": good})
    return Evidence(
        verdict=derive_verdict(ok),
        values={"rows": rows},
        tolerance="|mean − printed| ≤ 0.01 (two-decimal rounding of the inputs and of the printed average)",
        inputs={"source": "Table 2 (PDF p. 8), Table 3 (PDF p. 9)"},
    )


@claim(
    "tables.deltas",
    source="Selective RoPE Tables 1 and 3",
    statement="Quoted differences: MAD +7.3 / +0.7; FoX Wiki PPL +32.7 %; GLA 1.3B PPL −0.31 / −0.09",
    expected="holds",
)
def deltas() -> Evidence:
    """Check the claim ``tables.deltas``; expected verdict: holds.

    Statement (Selective RoPE Tables 1 and 3): Quoted differences: MAD +7.3 / +0.7; FoX Wiki PPL
    +32.7 %; GLA 1.3B PPL −0.31 / −0.09.

    Returns
    -------
    Evidence
        The verdict derived from the computed values, with the tolerance and the inputs.
    """
    mad = pt.TABLE1_MAD_AVG
    best = mad["+ phase gate and bias"]
    fox_nope, fox_sel = pt.TABLE3[("FoX 370M", "NoPE")][0], pt.TABLE3[("FoX 370M", "Selective RoPE")][0]
    gla_nope, gla_sel = pt.TABLE3[("GLA 1.3B", "NoPE")], pt.TABLE3[("GLA 1.3B", "Selective RoPE")]
    computed = {
        "mad_vs_nope": best - mad["NoPE"],
        "mad_vs_rope": best - mad["RoPE"],
        "fox_wiki_ppl_increase_percent": 100 * (fox_sel - fox_nope) / fox_nope,
        "gla13_wiki_ppl_delta": gla_sel[0] - gla_nope[0],
        "gla13_lambada_ppl_delta": gla_sel[1] - gla_nope[1],
    }
    quoted = {"mad_vs_nope": 7.3, "mad_vs_rope": 0.7, "fox_wiki_ppl_increase_percent": 32.7,
              "gla13_wiki_ppl_delta": -0.31, "gla13_lambada_ppl_delta": -0.09}
    tol = {"mad_vs_nope": HALF_ULP_1, "mad_vs_rope": HALF_ULP_1, "fox_wiki_ppl_increase_percent": HALF_ULP_1,
           "gla13_wiki_ppl_delta": HALF_ULP_2, "gla13_lambada_ppl_delta": HALF_ULP_2}
    agree = {k: abs(computed[k] - quoted[k]) <= tol[k] for k in computed}
    return Evidence(
        verdict=derive_verdict(all(agree.values())),
        values={"computed": computed, "quoted": quoted, "agrees": agree},
        tolerance="half a unit in the last quoted place (0.05 for one decimal, 0.005 for two)",
        inputs={"source": "Table 1 (PDF p. 7), Table 3 (PDF p. 9)"},
    )
