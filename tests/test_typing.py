"""Typing: the committed stubs of the compiled module match the built module, and the Python
layer passes ``mypy --strict``."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The source tree's package; under `make test-wheel` (tests copied next to an installed wheel, no
# source tree) the installed package, whose stubs and py.typed come from the wheel.
SOURCE = (ROOT / "python" / "ropelab").is_dir()
if SOURCE:
    PACKAGE = ROOT / "python" / "ropelab"
else:
    import ropelab

    PACKAGE = Path(ropelab.__file__).resolve().parent
STUBS = PACKAGE / "_core"


def test_stubs_match_the_built_module(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pybind11_stubgen", "ropelab._core", "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    fresh = tmp_path / "ropelab" / "_core"
    names = sorted(p.name for p in fresh.glob("*.pyi"))
    assert names == sorted(p.name for p in STUBS.glob("*.pyi")), "run `make stubs`"
    _, mismatch, errors = filecmp.cmpfiles(fresh, STUBS, names, shallow=False)
    assert not mismatch and not errors, f"stale stubs {mismatch + errors}: run `make stubs`"


@pytest.mark.slow
def test_mypy_strict(tmp_path: Path) -> None:
    # The source tree's package, or a copy of the installed one (its .py files and the .pyi stubs of
    # the compiled module: mypy would not report errors inside site-packages).
    top = PACKAGE.parent
    if not SOURCE:
        top = tmp_path / "installed"
        shutil.copytree(PACKAGE, top / "ropelab", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    env = dict(os.environ, MYPYPATH=str(top))
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "-p",
            "ropelab",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / "build" / "mypy-cache"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=top,
        env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr
