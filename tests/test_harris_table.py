"""Harris (1978) Table 1 regenerated: the package's printed rows, ropelab.spectra.harris_table,
`ropelab leakage --table` and the docs page docs/areas/harris_table.md."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import pytest

from ropelab import _harris1978 as H
from ropelab import spectra as S
from ropelab.cli import main
from tests.test_spectra import HARRIS as TEST_HARRIS

DOCS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "areas" / "harris_table.md"


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    return S.harris_table(N=4096, pad=64).to_dict("records")  # type: ignore[return-value]


def test_the_table_is_a_dataframe_in_one_unit_convention() -> None:
    import pandas as pd

    table = S.harris_table(N=256, pad=8)
    assert isinstance(table, pd.DataFrame) and not any(c.endswith("_percent") for c in table.columns)
    hann = table[table["window"] == "hann"].iloc[0]
    m = S.figures_of_merit(S.window("hann", 256), pad=8)
    # fractions, as FiguresOfMerit has them, also in Harris's printed values (75.0 % printed is 0.75 here)
    assert hann["overlap_correlation_75"] == m.overlap_correlation_75 and 0 < hann["overlap_correlation_75"] < 1
    assert hann["harris"]["overlap_correlation_75"] == pytest.approx(0.659) and hann["harris"]["enbw_bins"] == 1.5


def test_printed_rows_match_the_independent_transcription() -> None:
    # tests/test_spectra.py carries its own copy of these rows (checked entry by entry there).
    for key, (params, printed) in TEST_HARRIS.items():
        name = "kaiser" if key.startswith("kaiser_") else key
        match = [r for r in H.ROWS if r.window == name and r.params == params]
        assert len(match) == 1, key
        assert list(match[0].printed) == printed, key


def test_every_window_has_a_row(rows: list[dict[str, object]]) -> None:
    names = {r["window"] for r in rows}
    for name in S.window_names():
        needs_params = bool(S.WINDOWS[name])
        known = any(h.window == name for h in H.ROWS) or name == "ssm"
        if not needs_params or known:
            assert name in names, name
    labels = [r["label"] for r in rows]
    assert len(labels) == len(set(labels))
    assert all(h.label in labels for h in H.ROWS if h.window in S.window_names())


def test_rows_are_the_figures_of_merit(rows: list[dict[str, object]]) -> None:
    hann = next(r for r in rows if r["window"] == "hann")
    m = S.figures_of_merit(S.window("hann", 4096), pad=64)
    assert hann["enbw_bins"] == m.enbw_bins and hann["highest_sidelobe_db"] == m.highest_sidelobe_db
    assert hann["overlap_correlation_50"] == m.overlap_correlation_50
    # Harris's nominal fall-off holds for every printed row at N = 4096 but Hann–Poisson's
    # (−18 printed; the cusp of exp(−α|x|) at x = 0 gives −12, see ERRATA)
    for r in rows:
        if r["harris"] is not None and r["window"] != "hann_poisson":
            assert abs(r["sidelobe_falloff_db_per_octave"] - r["harris"]["sidelobe_falloff_db_per_octave"]) <= 1.0, r[
                "label"
            ]


def test_differences_with_harris(rows: list[dict[str, object]]) -> None:
    by = {r["label"]: r for r in rows}
    assert by["Rectangle"]["harris_differs"] == "" and by["Rectangle"]["harris_notes"] == ""
    assert by["Hamming"]["harris_differs"].startswith("scalloping loss")
    assert by["Hamming"]["harris_notes"].startswith("scalloping loss: misprint")
    # exact Blackman, the best-known misprint: every column but the fall-off
    exact = by["Exact Blackman"]
    assert exact["harris"]["highest_sidelobe_db"] == -51 and exact["highest_sidelobe_db"] == pytest.approx(
        -68.24, abs=5e-3
    )
    assert exact["harris_differs"].count(",") == 8 and "sidelobe fall-off" not in exact["harris_differs"]
    assert exact["harris_notes"].count("misprint") == 1
    bh3 = by["Blackman-Harris 3-term -67 dB"]
    assert "−70.83" in bh3["harris_notes"]
    # the 6.0-dB BW printed as 1.81 is kept as printed; ropelab's is the coefficients' 2.27
    assert bh3["harris"]["bandwidth_6db_bins"] == 1.81 and round(bh3["bandwidth_6db_bins"], 2) == 2.27
    assert "6.0-dB BW: misprint" in bh3["harris_notes"]
    assert by["Cauchy 4.0"]["harris_notes"].startswith("highest sidelobe: different definition")
    assert "different definition" in by["Dolph-Chebyshev 2.5"]["harris_notes"]
    # Hann–Poisson α = 2.0's empty cell is not compared
    assert by["Hann-Poisson 2.0"]["harris"]["highest_sidelobe_db"] is None
    assert "highest sidelobe" not in by["Hann-Poisson 2.0"]["harris_differs"]
    # Every difference reported is a real one: recompute from the row.
    for r in rows:
        if r["harris"] is None:
            assert r["harris_differs"] == "" and r["harris_notes"] == ""
            continue
        heads = r["harris_differs"].split(", ") if r["harris_differs"] else []
        for col, head, unit, tol in H.COLUMNS:
            printed = r["harris"][col]
            k = 100.0 if unit == "%" else 1.0  # tol is in Harris's printed units
            differs = printed is not None and abs(k * r[col] - k * printed) > tol + 1e-9
            assert (head in heads) == differs, (r["label"], col)


def test_all_41_printed_rows() -> None:
    assert len(H.ROWS) == 41 and len({h.label for h in H.ROWS}) == 41
    for h in H.ROWS:
        assert len(h.printed) == len(H.COLUMNS) and h.window in S.window_names(), h.label
    names = {h.window for h in H.ROWS}
    for name in ("cosine_power", "riesz", "lanczos", "de_la_vallee_poussin", "tukey", "bohman", "hann_poisson"):
        assert name in names
    for name in ("cauchy", "blackman_harris_3_61", "blackman_harris_4_74", "kaiser_bessel_4", "exact_blackman"):
        assert name in names


@pytest.mark.parametrize("printed_row", H.ROWS, ids=[h.label for h in H.ROWS])
def test_each_printed_row(printed_row: H.HarrisRow, rows: list[dict[str, object]]) -> None:
    # Computed vs printed within the printed precision, or the documented difference: every
    # column beyond 1.5 units of the printed last digit has an ERRATA reason (column or row).
    row = next(r for r in rows if r["label"] == printed_row.label)
    assert row["window"] == printed_row.window and row["params"] == printed_row.params
    for (col, head, unit, tol), printed in zip(H.COLUMNS, printed_row.printed):
        if printed is None:
            continue
        value = (100.0 if unit == "%" else 1.0) * row[col]  # in Harris's printed units
        reason = H.explain(printed_row.label, col, value, printed, tol)
        if abs(value - printed) <= tol + 1e-9:
            assert reason == "", (printed_row.label, col)
            continue
        assert reason.startswith(("misprint:", "different definition:", "rounding:", "last digit:")), (
            printed_row.label,
            col,
            reason,
        )
        assert f"{head}" in row["harris_notes"] and reason in row["harris_notes"]
        if reason.startswith("last digit:"):
            assert abs(value - printed) <= 3 * tol + 1e-9


def test_errata_are_used(rows: list[dict[str, object]]) -> None:
    # no stale entry: each reason explains at least one differing column of its row
    notes = {r["label"]: r["harris_notes"] for r in rows}
    for (label, _), reason in H.ERRATA.items():
        assert reason in notes[label], label


# The docs page is part of the source tree; the test of an installed wheel (make test-wheel) runs
# without it, and `make test` runs this check.
@pytest.mark.skipif(not DOCS_PAGE.is_file(), reason="checks the source tree's docs page: `make test` runs it")
def test_docs_page_matches_the_computed_table(rows: list[dict[str, object]]) -> None:
    text = DOCS_PAGE.read_text(encoding="utf-8")
    begin, end = "<!-- harris-table:begin -->\n", "<!-- harris-table:end -->"
    assert begin in text and end in text
    page_table = text.split(begin, 1)[1].split(end, 1)[0]
    assert page_table == H.format_table(rows, "markdown"), (
        "docs/areas/harris_table.md is out of date: replace the table between the markers with the output of "
        "`ropelab leakage --table --format markdown`"
    )
    assert "Harris" in text and "Table 1" in text


def test_cli_table_formats(capsys: pytest.CaptureFixture[str], rows: list[dict[str, object]]) -> None:
    assert main(["leakage", "--table", "--N", "4096"]) == 0
    text = capsys.readouterr().out
    assert "Rectangle" in text and "Where Harris 1978, Table 1 as printed differs" in text
    assert main(["leakage", "--table", "--N", "4096", "--format", "csv"]) == 0
    table = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert len(table) == len(rows) + 1 and table[0][0] == "window" and table[0][-1] == "Harris overlap correlation 50%"
    assert main(["leakage", "--table", "--N", "4096", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["rows"]) == len(rows) and out["N"] == 4096
    assert main(["leakage", "--table", "--N", "4096", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == H.format_table(rows, "markdown")


def test_cli_table_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leakage", "--table", "--window", "hann"]) == 2
    assert main(["leakage", "--table", "--N", "32"]) == 2
    assert main(["leakage", "--window", "hann"]) == 2  # --N missing without --table
    assert main(["leakage", "--window", "hann", "--N", "64", "--format", "csv"]) == 2
    capsys.readouterr()


def test_harris_table_bad_input() -> None:
    with pytest.raises(ValueError, match="harris_table: N must be an integer >= 64"):
        S.harris_table(N=16)
    with pytest.raises(ValueError, match="pad"):
        S.harris_table(N=64, pad=0)
    assert math.isfinite(S.harris_table(N=64, pad=4).iloc[0]["enbw_bins"])


def test_symmetric_only_window_is_taken_symmetric(monkeypatch: pytest.MonkeyPatch) -> None:
    # A window that refuses sym=False (as Dolph–Chebyshev may) is tabulated symmetric, not dropped.
    # (Kaiser stands in: the Dolph–Chebyshev rows left the table with their unverified values.)
    original = S.window

    def strict(name: str, N: int, sym: bool = False, **params: float):  # type: ignore[no-untyped-def]
        if name == "kaiser" and not sym:
            raise ValueError("window: kaiser exists only symmetric (sym=True)")
        return original(name, N, sym=sym, **params)

    monkeypatch.setattr(S, "window", strict)
    rows = S.harris_table(N=256, pad=8).to_dict("records")
    kaiser = [r for r in rows if r["window"] == "kaiser"]
    assert len(kaiser) == 4 and all(r["sym"] for r in kaiser)
    assert not any(r["sym"] for r in rows if r["window"] != "kaiser")
