"""Results that display well: compact reprs, HTML tables for Jupyter, claims as a DataFrame, and
the provenance record of the reports."""

from __future__ import annotations

import datetime
import re

import numpy as np
import pytest

import ropelab as rl
from ropelab import report


def _results() -> list[object]:
    return [
        rl.spectra.figures_of_merit(rl.spectra.window("hann", 64)),
        rl.temperature.counterexample(0.5),
        rl.temperature.mse_curve(0.5, 16, [0.5, 1.0], trials=50, seed=1),
        rl.spectra.leakage_map(alpha=[0.0, 2.0 / 64], omega=[0.0, 0.3], N=64, pad=8),
        rl.transition.prf_factor_distribution(1.0),
        rl.claims.run(["tables.deltas"])[0],
    ]


@pytest.mark.parametrize("obj", _results(), ids=lambda o: type(o).__name__)
def test_repr_is_compact_and_html_is_a_table(obj: object) -> None:
    text = repr(obj)
    name = type(obj).__name__
    assert text.startswith(f"{name}(") and text.endswith(")")
    assert all(len(line) <= 100 for line in text.splitlines()), text
    assert len(text.splitlines()) <= 25, text
    assert "\n" not in text or text.splitlines()[1].startswith("    ")
    html = obj._repr_html_()  # type: ignore[attr-defined]
    assert html.startswith("<table>") and f"<b>{name}</b>" in html and html.count("<tr>") >= 3


def test_arrays_are_summarised_not_printed() -> None:
    curve = rl.temperature.mse_curve(0.5, 16, np.linspace(0.2, 1.5, 500), trials=20, seed=3)
    text = repr(curve)
    assert "sigmas=array(shape=(500,), float64, min=0.2, max=1.5)" in text
    assert len(text) < 1500


def test_values_keep_six_significant_digits() -> None:
    c = rl.temperature.counterexample(0.5)
    assert "mean_paper=2.30098" in repr(c) and "sigma_paper_sq=0.333333" in repr(c)


def test_claims_is_an_attribute_and_results_make_a_dataframe() -> None:
    assert "claims" in dir(rl) and "report" in dir(rl)
    rs = rl.claims.run(["tables.deltas", "rff.eq8_literal"])
    assert isinstance(rs, list) and len(rs) == 2
    assert repr(rs) == "ClaimResults(2 claims: 1 holds, 0 holds-if, 1 fails, 0 errors; 0 unexpected)"
    df = rs.to_dataframe()
    assert list(df.index) == [r.id for r in rs]
    assert df.loc["rff.eq8_literal", "verdict"] == "fails" and bool(df["matches"].all())
    assert df.loc["rff.eq8_literal", "inputs"] == next(r for r in rs if r.id == "rff.eq8_literal").inputs
    html = rs._repr_html_()
    assert html.count("<tr>") == 3 and "rff.eq8_literal" in html


def test_reports_carry_provenance() -> None:
    rs = rl.claims.run(["rff.eq8_literal"])
    prov = report.claim_provenance(rs)
    assert prov["ropelab"] == rl.__version__ and prov["seeds"] == [20260101]
    assert prov["numpy"] == np.__version__ and prov["simd"] == rl.simd.isa()
    assert prov["threads"] == rl.simd.default_threads()
    utc = datetime.datetime.fromisoformat(prov["utc"])
    assert utc.tzinfo is not None and abs((datetime.datetime.now(datetime.timezone.utc) - utc).total_seconds()) < 600
    commit = prov["git_commit"]
    assert commit is None or re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", commit)
    md = report.to_markdown(rs, provenance=prov)
    html = report.to_html(rs, provenance=prov)
    for text in (md, html):
        for value in (
            prov["ropelab"],
            prov["python"],
            prov["numpy"],
            prov["platform"],
            prov["simd"],
            prov["utc"],
            "20260101",
        ):
            assert value in text, value


def test_default_threads_follow_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROPELAB_NUM_THREADS", "3")
    assert rl.simd.default_threads() == 3
    from ropelab._provenance import provenance

    assert provenance()["threads"] == 3 and provenance(nthreads=5)["threads"] == 5
    with pytest.raises(TypeError, match="seeds must be integers"):
        provenance(seeds=["1"])  # type: ignore[list-item]


def test_html_views_show_units_formatted_numbers_and_coloured_verdicts() -> None:
    from ropelab._display import VERDICT_COLORS

    fom = rl.spectra.figures_of_merit(rl.spectra.window("hann", 64))
    page = fom._repr_html_()
    assert "−31.47&#8239;dB" in page  # a true minus sign, 4 significant digits, the unit
    assert "1.5&#8239;bins" in page and "64&#8239;samples" in page
    assert "0.5000000" not in page and "-31.4" not in page
    result = rl.claims.run(["tables.deltas"])[0]
    page = result._repr_html_()
    assert f"color:{VERDICT_COLORS['holds']}" in page and ">holds</span>" in page
    assert "'holds'" not in page and "&#x27;holds&#x27;" not in page
    table = rl.claims.run(["tables.deltas", "thm1.tan_rule"])._repr_html_()
    assert f"color:{VERDICT_COLORS['fails']}" in table and "<math " in table


def test_leakage_map_html_shows_its_leakage() -> None:
    m = rl.spectra.leakage_map(alpha=np.linspace(0.0, 0.05, 30), omega=[0.1, 1.0], N=64, pad=8)
    page = m._repr_html_()
    assert "highest sidelobe" in page and "far leakage over ω" in page
    assert "18 more decays" in page  # long maps are cut in the middle


def test_number_html() -> None:
    from ropelab._display import number_html, value_html

    assert number_html(2.5e-7) == "2.5×10<sup>−7</sup>"
    assert number_html(float("-inf"), "dB") == "−∞&#8239;dB"
    assert number_html(-0.0) == "0"
    assert value_html("hann") == "hann" and value_html(None) == "—" and value_html(True) == "yes"
