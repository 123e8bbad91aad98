"""The compiled extension exports nothing of the C++ core: every target is built with hidden
visibility (CMakeLists.txt), so ``nm -DC`` on ``_core*.so`` lists no ``ropelab::`` symbol and the
module's only public entry point is ``PyInit__core``.

Needs GNU ``nm`` (binutils); skipped where it is missing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import ropelab._core as core

pytestmark = pytest.mark.skipif(
    shutil.which("nm") is None or not sys.platform.startswith("linux"),
    reason="needs binutils' nm and an ELF shared object",
)


def _exported_symbols() -> list[str]:
    path = core.__file__
    assert path is not None
    out = subprocess.run(["nm", "-DC", "--defined-only", path], check=True, capture_output=True, text=True)
    return [line.split(maxsplit=2)[-1] for line in out.stdout.splitlines() if line.strip()]


def test_no_ropelab_symbol_is_exported() -> None:
    symbols = _exported_symbols()
    assert "PyInit__core" in symbols
    leaked = [s for s in symbols if "ropelab::" in s]
    assert leaked == [], f"{len(leaked)} ropelab:: symbols exported from {core.__file__}, e.g. {leaked[:5]}"
