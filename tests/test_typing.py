"""Typing: the committed stubs of the compiled module match the built module, and the Python
layer passes ``mypy --strict``."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUBS = ROOT / "python" / "ropelab" / "_core"


def test_stubs_match_the_built_module(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pybind11_stubgen", "ropelab._core", "-o", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    fresh = tmp_path / "ropelab" / "_core"
    names = sorted(p.name for p in fresh.glob("*.pyi"))
    assert names == sorted(p.name for p in STUBS.glob("*.pyi")), "run `make stubs`"
    _, mismatch, errors = filecmp.cmpfiles(fresh, STUBS, names, shallow=False)
    assert not mismatch and not errors, f"stale stubs {mismatch + errors}: run `make stubs`"


@pytest.mark.slow
def test_mypy_strict() -> None:
    env = dict(os.environ, MYPYPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-m", "mypy", "-p", "ropelab", "--config-file", str(ROOT / "pyproject.toml"),
                        "--cache-dir", str(ROOT / "build" / "mypy-cache")],
                       capture_output=True, text=True, timeout=600, cwd=ROOT / "python", env=env)
    assert r.returncode == 0, r.stdout + r.stderr
