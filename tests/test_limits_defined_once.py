"""Every size limit is defined once, in the core's ``limits.hpp`` (and ``rng.hpp`` for the draws of
a Monte-Carlo unit), and read from ``_core.limits`` by the bindings' callers and by Python: no limit
is written again as a number in a binding or in the Python layer.

A "limit literal" is a power of two from 2^30 up written as a shift, a power or a hexadecimal float
(``1 << 40``, ``2**31 - 1``, ``0x1.0p43``). The type-intrinsic bounds are not limits of ropelab's and
are allowed: the 64-bit seed domain ``2**64``, the int64 range ``0x1.0p63``, 32-bit words ``<< 32``
and ``2**32 - 1``. Tuning constants below 2^30 (the work between two Ctrl-C polls, the piece size of
a conversion, a benchmark's default size) are not limits.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import ropelab
from ropelab._core_loader import core as _core

ROOT = Path(__file__).resolve().parents[1]
PKG = Path(ropelab.__file__).parent

_LIMIT = re.compile(r"<<\s*(\d+)|\b2\s*\*\*\s*(\d+)|0x1(?:\.0*)?p(\d+)")
_INTRINSIC = {32, 63, 64}


def _limit_literals(code: str) -> list[str]:
    out = []
    for m in _LIMIT.finditer(code):
        exponent = int(next(g for g in m.groups() if g is not None))
        if exponent >= 30 and exponent not in _INTRINSIC:
            out.append(m.group(0))
    return out


def _python_code(path: Path) -> str:
    """The code of a Python file without its strings and comments."""
    toks = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return " ".join(t.string for t in toks if t.type not in (tokenize.STRING, tokenize.COMMENT))


def _cpp_code(path: Path) -> str:
    """The code of a C++ file without its comments and string literals."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def test_no_limit_literal_in_the_python_layer() -> None:
    bad = {str(p.relative_to(PKG)): found for p in PKG.rglob("*.py") if (found := _limit_literals(_python_code(p)))}
    assert not bad, bad


def test_no_limit_literal_in_the_bindings() -> None:
    files = sorted((ROOT / "cpp" / "bindings").glob("*.[ch]pp"))
    if not files:  # the installed wheel's test run has no sources
        return
    bad = {p.name: found for p in files if (found := _limit_literals(_cpp_code(p)))}
    assert not bad, bad


def test_the_checker_finds_limit_literals() -> None:
    assert _limit_literals("if d > (1 << 40): x = 2**31 - 1; y = 0x1.0p43") == ["<< 40", "2**31", "0x1.0p43"]
    assert not _limit_literals("seed < 2**64 and x < 0x1.0p63 and w << 32 and 1 << 20")


def test_python_reads_the_core_limits() -> None:
    assert _core.limits.max_signal_length == 2**31 - 1
    assert ropelab.spectra.MAX_SIGNAL_LENGTH == _core.limits.max_signal_length
    assert _core.limits.max_draws == 2**40
    assert _core.limits.physical_bytes() > 0
