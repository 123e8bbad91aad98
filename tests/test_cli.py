"""The ``ropelab`` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ropelab.cli import main


def test_counterexample_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["counterexample"]) == 0
    out = capsys.readouterr().out
    assert "2.30097589089" in out and "1.64872127070" in out
    assert "literal" in out


def test_counterexample_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["counterexample", "--xi", "0.5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sigma_paper_sq"] == pytest.approx(1 / 3, rel=1e-14)
    assert data["mean_paper"] == pytest.approx(np.exp(5 / 6), rel=1e-14)
    assert data["paper_rule_unbiased_for"] == ["literal"]
    assert float(data["optimal_sigma"]["1"]) ** 2 == pytest.approx(1 / 3, rel=1e-13)
    for D, s in data["optimal_sigma"].items():
        assert s == pytest.approx(data["optimal_sigma_brent"][D], abs=1e-8)


def test_counterexample_bad_xi(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["counterexample", "--xi", "2"]) == 2
    assert "xi must lie in (-1, 1], got 2.0" in capsys.readouterr().err


def test_mse_curve_writes_png(tmp_path: Path) -> None:
    out = tmp_path / "curve.png"
    assert main(["mse-curve", "--trials", "200", "--points", "6", "--D", "1", "16", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_module_entry_point() -> None:
    r = subprocess.run([sys.executable, "-m", "ropelab", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("ropelab ")
