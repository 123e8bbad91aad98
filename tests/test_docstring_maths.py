"""No public docstring writes maths as raw TeX outside maths markup.

Sphinx renders a docstring as reStructuredText: ``e^{iω·(q_κ − q_{κ−1})}``, ``R_{n−m}`` or
``\\sqrt{d}`` outside maths markup reach the reader as braces and backslashes, in prose as in a code
literal. Maths is written either as plain Unicode prose without TeX syntax (``ω·t``, ``σ²``,
``2^n``) or in maths markup: the ``:math:`` role or a ``.. math::`` block (both typeset by
MathJax on the API pages).

Checked: the docstring of every public module (the modules of the package whose dotted name has
no component starting with an underscore) and of every function, class, method and property that
such a module lists in ``__all__`` (without ``__all__``: the functions and classes it defines whose
names do not start with an underscore), including the members that a class inherits from the
compiled ``ropelab._core`` (the result classes bound from C++, whose properties the API pages show)
and the functions of ``_core`` that a public module re-exports; and the ``#:`` comment of every
constant that a public ``__all__`` lists (the API pages show it under the constant).

A TeX construct is ``^{``, ``_{`` or a backslash command of two or more letters (``\\frac``,
``\\sqrt``, ``\\omega``; a single letter after a backslash, as in ``\\n``, is an escape, not TeX).
It is allowed only where it is maths or a quoted piece of source text:

* inside a ``:math:`` role or the body (and argument) of a ``.. math::`` directive;
* inside a double-backtick literal that is a quoted string (``"$\\sigma$"``, ``r"R_{n-m}"``),
  i.e. a LaTeX source string shown as a value;
* inside a string literal of a doctest's source line (``>>> to_unicode(r"\\langle ...")``) or a
  doctest output line that is a string's repr.

Everywhere else -- prose, single-backtick text, other double-backtick literals, literal blocks,
doctest comments -- it is reported. Print every offending fragment with
``python tests/test_docstring_maths.py``.
"""

from __future__ import annotations

import importlib
import inspect
import io
import pkgutil
import re
import sys
import textwrap
import tokenize
from collections.abc import Iterator

import pytest

import ropelab

try:
    from ._public_api import public_modules, public_names
except ImportError:  # run as a script: python tests/test_docstring_maths.py
    from _public_api import public_modules, public_names  # type: ignore[no-redef]

#: A TeX construct: a braced superscript or subscript, or a backslash command (two letters or more).
TEX = re.compile(r"\^\{|_\{|\\[A-Za-z]{2,}")
_MATH_ROLE = re.compile(r":math:`[^`]*`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
#: A double-backtick literal that is one quoted Python string (optionally prefixed: r"...", b'...').
_QUOTED = re.compile(r"""[rRbBuUfF]{0,2}("|')(?:\\.|(?!\1).)*\1""", re.S)
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w:-]+)::")
_CODE_DIRECTIVES = {"code", "code-block", "sourcecode", "literalinclude", "doctest"}


def _is_documented_routine(obj: object) -> bool:
    return inspect.isroutine(obj) or isinstance(obj, property)


def _class_members(cls: type) -> Iterator[tuple[str, object]]:
    """Public methods and properties of ``cls`` and of its ropelab bases (``_core`` included)."""
    seen: set[str] = set()
    for klass in inspect.getmro(cls):
        if not getattr(klass, "__module__", "").startswith("ropelab"):
            continue
        for name, member in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if _is_documented_routine(member):
                yield name, member


def _attr_comment(modname: str, name: str, obj: object) -> str | None:
    """The ``#:`` comment of the constant ``name`` as Sphinx finds it (in ``modname`` or a submodule)."""
    from sphinx.errors import PycodeError
    from sphinx.pycode import ModuleAnalyzer  # the docs extra, as for the API pages

    mod = importlib.import_module(modname)
    candidates = [modname] + [info.name for info in pkgutil.iter_modules(getattr(mod, "__path__", []), modname + ".")]
    for candidate in candidates:
        # a constant re-exported from a submodule: that submodule is imported already (importing
        # the others could run code, e.g. ropelab.__main__)
        if candidate not in sys.modules or getattr(sys.modules[candidate], name, None) is not obj:
            continue
        try:
            docs = ModuleAnalyzer.for_module(candidate).find_attr_docs()
        except PycodeError:  # a compiled module has no source to analyse
            continue
        if ("", name) in docs:
            return "\n".join(docs[("", name)])
    return None


def _docstrings() -> dict[str, str]:
    """Qualified name -> the docstring (or ``#:`` comment) a reader sees, for the whole public API."""
    out: dict[str, str] = {}

    def add(qual: str, obj: object) -> None:
        target = obj.fget if isinstance(obj, property) else obj
        doc = inspect.getdoc(target)
        if doc:
            out.setdefault(qual, doc)

    for modname in public_modules():
        mod = importlib.import_module(modname)
        add(modname, mod)
        for name in public_names(mod):
            obj = getattr(mod, name)
            qual = f"{modname}.{name}"
            if inspect.ismodule(obj):
                continue  # a submodule is checked as a module
            if inspect.isclass(obj):
                add(qual, obj)
                for mname, member in _class_members(obj):
                    add(f"{qual}.{mname}", member)
            elif _is_documented_routine(obj):
                add(qual, obj)
            else:
                comment = _attr_comment(modname, name, obj)
                if comment:
                    out.setdefault(qual, comment)
    return out


def _constructs(text: str) -> list[str]:
    """The fragments of ``text`` (prose or code shown verbatim) holding a TeX construct."""
    found: list[str] = []
    for m in TEX.finditer(text):
        start = max(text.rfind(" ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
        ends = [i for i in (text.find(" ", m.end()), text.find("\n", m.end())) if i >= 0]
        frag = text[start : min(ends) if ends else len(text)]
        if not found or found[-1] != frag:
            found.append(frag)
    return found


def _in_paragraph(text: str) -> list[str]:
    """Offending fragments of a reST paragraph: maths roles and quoted-string literals are fine."""
    text = _MATH_ROLE.sub(" ", text)
    found: list[str] = []
    pos = 0
    rest = []
    for m in _LITERAL.finditer(text):
        rest.append(text[pos : m.start()])
        pos = m.end()
        content = m.group(1)
        if _QUOTED.fullmatch(content) is None and TEX.search(content):
            found.append(f"``{content}``")
    rest.append(text[pos:])
    for chunk in rest:
        found += _constructs(chunk)
    return found


def _in_doctest_source(line: str) -> list[str]:
    """Offending fragments of a doctest source line: TeX outside its string literals (comments too)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line + "\n").readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):  # an unfinished statement
        return _constructs(line)
    found: list[str] = []
    for tok in tokens:
        if tok.type != tokenize.STRING:
            found += _constructs(tok.string)
    return found


def offending(doc: str) -> list[str]:
    """Every fragment of the docstring ``doc`` that writes TeX outside maths markup.

    Parameters
    ----------
    doc : str
        A cleaned docstring (``inspect.getdoc``).

    Returns
    -------
    list of str
        The offending fragments, in order (a code literal whole, else the word around the TeX).
    """
    lines = doc.splitlines()
    found: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            found.extend(_in_paragraph("\n".join(paragraph)))
            paragraph.clear()

    def indent(s: str) -> int:
        return len(s) - len(s.lstrip())

    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        directive = _DIRECTIVE.match(line)
        literal_block = stripped.endswith("::") and directive is None
        if directive is not None:
            flush()
            name = directive.group(2)
            base = indent(line)
            block = [line[directive.end() :]]  # the argument, e.g. ``.. math:: x^{2}``
            i += 1
            while i < len(lines) and (not lines[i].strip() or indent(lines[i]) > base):
                block.append(lines[i])
                i += 1
            if name == "math":
                continue  # maths, typeset
            if name in _CODE_DIRECTIVES:
                found += _constructs("\n".join(block))
            else:  # an admonition or the like: its argument and body are reST
                found += offending(block[0].strip() + "\n\n" + textwrap.dedent("\n".join(block[1:])))
            continue
        if stripped == ">>>" or stripped.startswith(">>> "):
            flush()
            found += _in_doctest_source(stripped[4:])
            i += 1
            # continuation lines, then the expected output up to a blank line or the next source
            while i < len(lines) and (lines[i].strip() == "..." or lines[i].strip().startswith("... ")):
                found += _in_doctest_source(lines[i].strip()[4:])
                i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(">>>"):
                out = lines[i].strip()
                if _QUOTED.fullmatch(out) is None:
                    found += _constructs(out)
                i += 1
            continue
        paragraph.append(line)
        i += 1
        if literal_block:
            # the indented block after a paragraph ending in "::" is shown verbatim
            base = indent(line)
            block = []
            while i < len(lines) and (not lines[i].strip() or indent(lines[i]) > base):
                block.append(lines[i])
                i += 1
            if any(s.strip() for s in block):
                flush()
                found += _constructs("\n".join(block))
        elif not stripped:
            flush()
    flush()
    return found


DOCS = _docstrings()
OFFENDERS = {qual: frags for qual, doc in DOCS.items() if (frags := offending(doc))}


def test_the_api_is_found() -> None:
    # one of each kind: module, function, class, method, property, a property that a result class
    # inherits from the compiled core, a constant's #: comment
    for expected in (
        "ropelab.recurrence",
        "ropelab.rff.mse",
        "ropelab.claims.ClaimResult",
        "ropelab.claims.ClaimResult.as_dict",
        "ropelab.claims.ClaimResult.matches",
        "ropelab.spectra.FiguresOfMerit.coherent_gain",
        "ropelab.spectra.MAX_SIGNAL_LENGTH",
    ):
        assert expected in DOCS, expected
    owner = next(k for k in inspect.getmro(ropelab.spectra.FiguresOfMerit) if "coherent_gain" in vars(k))
    assert owner.__module__.startswith("ropelab._core")
    assert len(DOCS) > 300


@pytest.mark.parametrize(
    "doc,expected",
    [
        ("Angles ``θ_i = base^{−2i/d}``.", ["``θ_i = base^{−2i/d}``"]),
        ("The sum Σ_{τ≤t} x_τ.", ["Σ_{τ≤t}"]),
        (r"Scaled by \sqrt{d}.", [r"\sqrt{d}."]),
        ("Single `R_{n-m}` backticks.", ["`R_{n-m}`"]),
        ("Literal::\n\n    MSE = e^{−σ²}\n\nEnd.", ["e^{−σ²}"]),
        (">>> f(1)  # = e^{0.5}\n1.6", ["e^{0.5}"]),
        (r"Fine: :math:`e^{i\omega t}` and ``ω·t`` and σ² and 2^n.", []),
        ("Fine:\n\n.. math::\n\n    o_i = \\frac{\\sum_j w_{ij}}{Z}\n\nEnd.", []),
        (r'Fine: ``"$\\langle R_m q, R_n k\\rangle$"`` and ``r"R_{n-m}"``.', []),
        (">>> to_unicode(r'\\sigma_{t}')\n'σₜ'", []),
        ("A ``{name}`` placeholder, a set {1..n}, ``a[i]``, \\n.", []),
        (".. note:: Here x_{t}.\n\n   .. math::\n\n      y_{t} = x^{2}\n\n   And ``x^{2}``.", ["x_{t}.", "``x^{2}``"]),
    ],
)
def test_the_check_itself(doc: str, expected: list[str]) -> None:
    assert offending(doc) == expected


def test_no_tex_outside_maths_markup() -> None:
    report = "\n".join(f"{qual}: " + "  |  ".join(frags) for qual, frags in sorted(OFFENDERS.items()))
    n = sum(len(f) for f in OFFENDERS.values())
    assert not OFFENDERS, f"{len(OFFENDERS)} docstrings, {n} fragments write TeX outside :math:\n{report}"


if __name__ == "__main__":  # print every offending fragment
    for qual, frags in sorted(OFFENDERS.items()):
        print(qual)
        for frag in frags:
            print("    " + " ".join(frag.split()))
    print(f"{len(OFFENDERS)} docstrings of {len(DOCS)}, {sum(len(f) for f in OFFENDERS.values())} fragments")
    sys.exit(1 if OFFENDERS else 0)
