"""Shared numpydoc snippets (ropelab._docstrings): expanded everywhere, written once."""

from __future__ import annotations

import inspect
import re

import pytest

import ropelab
from ropelab import _docstrings

_MODULES = [m for m in ropelab.__all__ if not m.startswith("_")]


def _public_docstrings() -> list[tuple[str, str]]:
    out = []
    for name in _MODULES:
        mod = getattr(ropelab, name, None)
        if not inspect.ismodule(mod):
            continue
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr)
            if callable(obj) and obj.__doc__:
                out.append((f"{name}.{attr}", obj.__doc__))
    return out


def test_expand_indents_the_snippet_as_its_line() -> None:
    doc = "Do it.\n\n    Parameters\n    ----------\n    {nthreads}\n    x : int\n"
    out = _docstrings.expand(doc)
    assert "    nthreads : int or None\n        Threads;" in out
    assert out.endswith("    x : int\n")


def test_an_unknown_snippet_is_refused() -> None:
    with pytest.raises(KeyError, match="no_such_snippet"):
        _docstrings.expand("    {no_such_snippet}\n")


def test_no_public_docstring_keeps_a_snippet_line() -> None:
    left = [name for name, doc in _public_docstrings() if re.search(r"^\s*\{[a-z_]+\}\s*$", doc, flags=re.M)]
    assert not left, left


def _entries(doc: str) -> list[str]:
    """The parameter entries (name line + its indented description) of a numpydoc docstring."""
    lines = inspect.cleandoc(doc).splitlines()
    out: list[str] = []
    section = ""
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1]):
            section = line.strip()
            continue
        if section == "Parameters" and line and not line.startswith(" ") and not re.fullmatch(r"-{3,}", line):
            body = [line]
            for nxt in lines[i + 1 :]:
                if not nxt.startswith("    "):
                    break
                body.append(nxt)
            if len(body) > 1:
                out.append("\n".join(body))
    return out


def test_no_parameter_description_is_copied_by_hand() -> None:
    """A parameter entry written the same way in two public functions comes from one snippet."""
    snippets = set(_docstrings.SNIPPETS.values())
    seen: dict[str, list[str]] = {}
    for name, doc in _public_docstrings():
        for entry in set(_entries(doc)):
            if entry not in snippets:
                seen.setdefault(entry, []).append(name)
    copied = {entry.splitlines()[0]: names for entry, names in seen.items() if len(names) > 1}
    assert not copied, copied
