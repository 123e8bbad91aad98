"""Write the API reference: one page per public module, one heading per public name.

The public names of a module are its ``__all__``; a page opens with an autosummary table of them
and then documents each in that order, under a module-qualified heading (so the sidebar and the
search index say ``ropelab.rff.mse``, not a bare ``mse()`` that several modules define).

Each entry links to where the documentation explains it and to the claims that use it, both
derived from data rather than a hand-kept list:

* the theory and guide sections whose text cites the object with a ``{func}``/``{class}``/...
  role (``docs/theory/*.md``, ``docs/areas/*.md``), under that section's heading;
* the claims of ``ropelab.claims.REGISTRY`` whose check calls it, found by walking the check's
  source (and the private helpers it calls) and resolving every name against the module's globals.

Run at build time by ``conf.py``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import re
import textwrap
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from mdit_py_plugins.anchors.index import slugify

DOCS = Path(__file__).resolve().parent
#: Pages whose sections explain functions: (folder, label of the link).
EXPLAINING = [("theory", "Theory"), ("areas", "Guide")]

#: The public modules, in the order of the API index.
MODULES = [
    "ropelab.rff",
    "ropelab.temperature",
    "ropelab.rotary",
    "ropelab.recurrence",
    "ropelab.transition",
    "ropelab.attention",
    "ropelab.selective",
    "ropelab.spectra",
    "ropelab.tasks",
    "ropelab.expressivity",
    "ropelab.related",
    "ropelab.extrapolation",
    "ropelab.simd",
    "ropelab.sweep",
    "ropelab.claims",
    "ropelab.report",
    "ropelab.plot",
    "ropelab.paper_tables",
    "ropelab.cli",
]


def _data_doc(mod: object, name: str, obj: object) -> tuple[list[str], str] | None:
    """The ``#:`` comment and annotation of a constant that ``mod`` re-exports from a submodule."""
    from sphinx.pycode import ModuleAnalyzer

    for info in pkgutil.iter_modules(getattr(mod, "__path__", []), getattr(mod, "__name__", "") + "."):
        sub = importlib.import_module(info.name)
        if getattr(sub, name, None) is not obj:
            continue
        docs = ModuleAnalyzer.for_module(info.name).find_attr_docs()
        if ("", name) in docs:
            return list(docs[("", name)]), str(getattr(sub, "__annotations__", {}).get(name, ""))
    return None


def _directive(qual: str, obj: object) -> str:
    if inspect.isclass(obj):
        out = f".. autoclass:: {qual}\n   :members:\n"
        if dataclasses.is_dataclass(obj):
            # the fields are documented once, by the docstring's Attributes section
            out += f"   :exclude-members: {', '.join(f.name for f in dataclasses.fields(obj))}\n"
        elif isinstance(getattr(obj, "_fields", None), tuple) and hasattr(obj, "_field_types"):
            # a result class bound from C++: its fields are read-only properties of the compiled
            # base class, each with its own docstring; the Attributes section links to them
            out += "   :inherited-members:\n"
        return out
    if inspect.isfunction(obj):
        return f".. autofunction:: {qual}\n"
    modname, name = qual.rsplit(".", 1)
    found = _data_doc(importlib.import_module(modname), name, obj)
    if found is not None:  # re-exported: autodata would look for the comment in the wrong module
        lines, annotation = found
        out = f".. py:data:: {qual}\n"
        if annotation:
            out += f"   :type: {annotation}\n"
        return out + "\n" + "".join(f"   {line}\n" if line.strip() else "\n" for line in lines)
    return f".. autodata:: {qual}\n   :no-value:\n" if _long_value(obj) else f".. autodata:: {qual}\n"


def _long_value(obj: object) -> bool:
    return len(repr(obj)) > 200


def public_objects() -> dict[int, str]:
    """``id(obj) -> "ropelab.module.name"`` for every public function and class of :data:`MODULES`."""
    out: dict[int, str] = {}
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.setdefault(id(obj), f"{modname}.{name}")
    return out


def _resolve(node: ast.expr, namespace: dict[str, object]) -> object | None:
    """The object a ``Name`` or dotted ``Attribute`` chain denotes in ``namespace`` (None if not static)."""
    if isinstance(node, ast.Name):
        return namespace.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, namespace)
        if base is not None and inspect.ismodule(base):
            return getattr(base, node.attr, None)
    return None


def _used(fn: Callable[..., object], public: dict[int, str], seen: set[int]) -> set[str]:
    """The public objects that ``fn`` refers to, following ropelab.claims' own helpers."""
    fn = inspect.unwrap(fn)
    if id(fn) in seen:
        return set()
    seen.add(id(fn))
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return set()
    namespace = dict(getattr(fn, "__globals__", {}))
    out: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        obj = _resolve(node, namespace)
        if obj is None:
            continue
        if id(obj) in public:
            out.add(public[id(obj)])
        elif inspect.isfunction(obj) and getattr(obj, "__module__", "").startswith("ropelab.claims"):
            out |= _used(obj, public, seen)
    return out


def claims_using() -> dict[str, list[tuple[str, str]]]:
    """``"ropelab.module.name" -> [(claim id, section), ...]`` from the claim registry's checks."""
    from ropelab import claims

    public = public_objects()
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for c in claims.REGISTRY.values():
        if c.plugin is not None:
            continue
        for qual in sorted(_used(c.check, public, set())):
            out[qual].append((c.id, c.section))
    return out


_ROLE = re.compile(r"\{(?:func|class|meth|data|attr|obj)\}`~?(ropelab\.[\w.]+)`")
_HEADING = re.compile(r"^(#{1,3})\s+(.*\S)\s*$")


def _heading_text(markdown: str) -> str:
    """A heading's text as MyST renders it (roles and code reduced to their text, maths kept)."""
    text = re.sub(r"\{\w+\}`~?([^`]*)`", r"\1", markdown)
    return text.replace("`", "")


def explained_in() -> dict[str, list[tuple[str, str, str, str]]]:
    """``"ropelab.module.name" -> [(label, page, anchor, heading), ...]``: sections citing it."""
    out: dict[str, list[tuple[str, str, str, str]]] = defaultdict(list)
    for folder, label in EXPLAINING:
        for page in sorted((DOCS / folder).glob("*.md")):
            heading, anchor = "", ""
            in_code = False
            for line in page.read_text(encoding="utf-8").splitlines():
                if line.startswith("```"):
                    in_code = not in_code
                m = _HEADING.match(line)
                if m and not in_code:
                    heading = _heading_text(m.group(2))
                    anchor = "" if len(m.group(1)) == 1 else slugify(heading)
                    continue
                for qual in _ROLE.findall(line):
                    entry = (label, f"{folder}/{page.stem}", anchor, heading)
                    if entry not in out[qual]:
                        out[qual].append(entry)
    return out


def _links(
    qual: str, explained: dict[str, list[tuple[str, str, str, str]]], used: dict[str, list[tuple[str, str]]]
) -> list[str]:
    parts = []
    for label, page, anchor, heading in explained.get(qual, []):
        target = f"../{page}.md" + (f"#{anchor}" if anchor else "")
        parts.append(f"{label}: [{heading}]({target})")
    claim_ids = used.get(qual, [])
    if claim_ids:
        refs = ", ".join(f"[`{cid}`](../claims.md#{slugify(section)})" for cid, section in claim_ids)
        parts.append(f"Used by the claim{'s' if len(claim_ids) > 1 else ''} {refs}")
    if not parts:
        return []
    return [
        "```{admonition} In the documentation",
        ":class: seealso ropelab-xref",
        "",
        *[f"- {p}" for p in parts],
        "```",
        "",
    ]


def module_page(
    modname: str,
    explained: dict[str, list[tuple[str, str, str, str]]] | None = None,
    used: dict[str, list[tuple[str, str]]] | None = None,
) -> str:
    mod = importlib.import_module(modname)
    explained = explained if explained is not None else {}
    used = used if used is not None else {}
    names = [n for n in mod.__all__ if not inspect.ismodule(getattr(mod, n))]
    lines = [f"# `{modname}`", "", "```{eval-rst}", f".. automodule:: {modname}", "   :no-members:", "```", ""]
    lines += ["```{eval-rst}", ".. rubric:: Summary", "", ".. autosummary::", "   :nosignatures:", ""]
    lines += [f"   {name}" for name in names] + ["```", ""]
    for name in names:
        obj = getattr(mod, name)
        qual = f"{modname}.{name}"
        lines += [f"## `{qual}`", "", "```{eval-rst}", _directive(qual, obj).rstrip("\n"), "```", ""]
        lines += _links(qual, explained, used)
    return "\n".join(lines)


def index_page() -> str:
    lines = [
        "# API reference",
        "",
        "One page per module; every public function, class and constant has its own section. Types in",
        "signatures use the aliases of {doc}`types`.",
        "",
        "```{toctree}",
        ":maxdepth: 2",
        "",
    ]
    lines += [m for m in MODULES] + ["types", "```", ""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def write_api_pages(directory: Path) -> None:
    directory.mkdir(exist_ok=True)
    explained, used = explained_in(), claims_using()
    for modname in MODULES:
        _write(directory / f"{modname}.md", module_page(modname, explained, used))
    _write(directory / "index.md", index_page())
