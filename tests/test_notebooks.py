"""The notebooks in notebooks/: stripped in the repository, self-contained, and executed with
nbclient — no cell errors, and every cell tagged ``figure`` shows at least one PNG image."""

from __future__ import annotations

import re
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
EXPECTED = [
    "00_tour",
    "01_temperature",
    "02_rotations_and_transitions",
    "03_leakage_spectra",
    "04_sweeps",
    "05_attention_error",
    "06_expressivity_and_extrapolation",
]

# Text a reader of the notebooks does not have: files outside the repository, internal notes.
FORBIDDEN = [
    r"MATH\.md",
    r"CLAIMS\.md",
    r"ARCHITECTURE\.md",
    r"STYLE\.md",
    r"\b000 §",
    r"§\s*\d",
    r"study note",
    r"\bseeds?/",
    r"/work/",
    r"matplotlib\.use",
    r"switch_backend",
    r"\bAgg\b",
    r"DISPLAY",
]


def test_there_are_notebooks() -> None:
    assert [p.stem for p in NOTEBOOKS] == EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_source(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert not cell.get("outputs") and cell.get("execution_count") is None, (
            f"{path.name}: outputs must be stripped in the repository"
        )
    assert "%matplotlib inline" in code[0].source, f"{path.name}: the first code cell selects inline figures"
    text = "\n".join(c.source for c in nb.cells)
    for pattern in FORBIDDEN:
        assert not re.search(pattern, text), f"{path.name}: {pattern!r} must not appear in a notebook"
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert re.search(r"\$[^$\n]+\$", markdown), f"{path.name}: maths in markdown is written as $...$"
    assert "arXiv:" in markdown, f"{path.name}: cite the papers by their arXiv numbers"
    tagged = [c for c in code if "figure" in c.metadata.get("tags", [])]
    assert tagged, f"{path.name}: no cell is tagged 'figure'"
    # cells that draw are tagged (so the execution test below requires their images)
    for cell in code:
        if (
            re.search(r"\bplt\.subplots\b|\brl\.plot\.|\bplot\.(?!ly)", cell.source)
            and "mse_explorer" not in cell.source
        ):
            assert "figure" in cell.metadata.get("tags", []), (
                f"{path.name}: untagged plotting cell:\n{cell.source[:200]}"
            )
    assert any("assert " in c.source for c in code), f"{path.name}: the notebook asserts the numbers it claims"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_and_shows_its_figures(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK_DIR)}}
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    for n, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        outputs = cell.get("outputs", [])
        errors = [o for o in outputs if o.get("output_type") == "error"]
        assert not errors, f"{path.name} cell {n}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        stderr = "".join(
            o.get("text", "") for o in outputs if o.get("output_type") == "stream" and o.get("name") == "stderr"
        )
        # a Python warning or traceback on stderr (log lines of Dask's workers are not checked)
        assert not re.search(r"Traceback|\w*Warning: ", stderr), f"{path.name} cell {n}: {stderr[:500]}"
        images = [
            o
            for o in outputs
            if o.get("output_type") in ("display_data", "execute_result") and "image/png" in o.get("data", {})
        ]
        if "figure" in cell.metadata.get("tags", []):
            assert images, f"{path.name} cell {n} is tagged 'figure' but shows no PNG image"
        else:
            assert not images, f"{path.name} cell {n} shows an image but is not tagged 'figure'"


def test_explorer_cell_shows_the_widget() -> None:
    nb = nbformat.read(NOTEBOOK_DIR / "01_temperature.ipynb", as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    assert any("rl.plot.mse_explorer(" in s and s.rstrip().endswith("explorer.widget") for s in sources)
