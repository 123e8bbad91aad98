"""ropelab verify's reports: terminal, JSON, Markdown (relative images that exist) and a
self-contained HTML report whose figures a headless browser actually renders."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ropelab import claims, report
from ropelab.cli import main

SUBSET = ["thm1.tan_rule", "thm1.counterexample", "thm1.finite_D", "tables.deltas"]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    (out / "md").mkdir()  # verify creates no missing folders
    rc = main(
        [
            "verify",
            "--only",
            *SUBSET,
            "--quiet",
            "--json",
            str(out / "verify.json"),
            "--markdown",
            str(out / "md" / "verify.md"),
            "--html",
            str(out / "verify.html"),
            "--figures",
            str(out / "figures"),
        ]
    )
    assert rc == 0
    return out


def test_json_has_every_field(written: Path) -> None:
    data = json.loads((written / "verify.json").read_text())
    assert data["summary"]["claims"] == len(SUBSET) and data["summary"]["unexpected"] == 0
    by_id = {c["id"]: c for c in data["claims"]}
    assert set(by_id) == set(SUBSET)
    for c in by_id.values():
        for key in (
            "statement",
            "source",
            "section",
            "inputs",
            "values",
            "tolerance",
            "verdict",
            "expected",
            "matches",
        ):
            assert key in c
    assert by_id["thm1.tan_rule"]["verdict"] == "fails"
    assert by_id["thm1.tan_rule"]["corrected_holds"] is True


def test_markdown_images_are_relative_and_exist(written: Path) -> None:
    md_path = written / "md" / "verify.md"
    text = md_path.read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert links, "the Markdown report shows no figure"
    for link in links:
        assert not Path(link).is_absolute() and "\\" not in link
        assert (md_path.parent / link).resolve().is_file(), link


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("no headless browser found: `make test` installs Debian's chromium")


def test_html_figures_render_in_headless_chromium(written: Path, tmp_path: Path) -> None:
    html = (written / "verify.html").read_text()
    assert "src='data:image/png;base64," in html  # self-contained: no external files
    assert "file:" not in html and "src='figures" not in html
    n_figures = len(list((written / "figures").glob("*.png")))
    assert n_figures >= 2
    # A probe records each image's decoded width once the page has loaded.
    probe = (
        "<script>window.addEventListener('load',()=>{document.body.setAttribute('data-images',"
        "Array.from(document.images).map(i=>i.complete?i.naturalWidth:-1).join(','))})</script>"
    )
    page = tmp_path / "probe.html"
    page.write_text(html.replace("</body>", probe + "</body>"))
    # the browser must not inherit a sanitizer runtime preloaded for our extension (make test-sanitize)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    out = subprocess.run(
        [
            _chromium(),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=5000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    m = re.search(r'data-images="([^"]*)"', out.stdout)
    assert m, out.stderr[-2000:]
    widths = [int(w) for w in m.group(1).split(",") if w]
    assert len(widths) == n_figures and all(w > 100 for w in widths), widths


def test_terminal_table_and_summary() -> None:
    rs = claims.run(["tables.avg_ppl", "rff.eq8_literal"])
    text = report.terminal(rs, color=True)
    assert "\033[31mfails" in text and "\033[32mholds" in text
    assert "Reported results" in text and "counterexample:" in text
    assert report.summary_line(rs).startswith("2 claims: 1 holds, 0 holds-if, 1 fails; all verdicts as expected")


def test_exit_status_flags_an_unexpected_verdict(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ropelab import paper_tables

    monkeypatch.setitem(paper_tables.TABLE1_MAD_AVG, "NoPE", 60.0)
    assert main(["verify", "--only", "tables.deltas", "--quiet", "--no-color"]) == 1
    assert "1 UNEXPECTED" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["../x", "/tmp/abs", "a.b\n", "a/../../b.c", "ok.id/../../x"])
def test_render_figures_keeps_every_file_in_its_directory(tmp_path: Path, bad: str) -> None:
    # issue 25: the claim id names the file; one that would leave the directory is refused first
    import dataclasses

    pytest.importorskip("matplotlib")
    from ropelab import claims, report

    (good,) = claims.run(["ssm.window_rect"])
    forged = dataclasses.replace(good, id=bad)
    out = tmp_path / "figs"
    with pytest.raises(ValueError, match=r"render_figures: results\[1\]\.id must be a claim id"):
        report.render_figures([good, forged], out)
    assert not out.exists() or list(out.iterdir()) == []
    assert sorted(p.name for p in tmp_path.rglob("*.png")) == []


def test_claim_ids_refuse_a_trailing_newline() -> None:
    from ropelab.claims._registry import _ID

    assert _ID.match("ssm.window_rect") and not _ID.match("ssm.window_rect\n")
