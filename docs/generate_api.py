"""Write the API reference: one page per public module, one heading per public name.

The public names of a module are its ``__all__``; a page lists them in that order, each under a
module-qualified heading (so the sidebar and the search index say ``ropelab.rff.mse``, not a bare
``mse()`` that several modules define). Run at build time by ``conf.py``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from pathlib import Path

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


def module_page(modname: str) -> str:
    mod = importlib.import_module(modname)
    lines = [f"# `{modname}`", "", "```{eval-rst}", f".. automodule:: {modname}", "   :no-members:", "```", ""]
    for name in mod.__all__:
        obj = getattr(mod, name)
        if inspect.ismodule(obj):
            continue
        qual = f"{modname}.{name}"
        lines += [f"## `{qual}`", "", "```{eval-rst}", _directive(qual, obj).rstrip("\n"), "```", ""]
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
    for modname in MODULES:
        _write(directory / f"{modname}.md", module_page(modname))
    _write(directory / "index.md", index_page())
