"""The layers of the package import downwards only: the sweep package, the claims and the command
line never read the package face (``ropelab/__init__.py``'s own attributes such as
``ropelab.__version__``), and the numerical modules import neither the claims, the report, the
plots, the sweep package nor the command line.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import ropelab

PKG = Path(ropelab.__file__).parent
#: Modules above the numerical layer.
UPPER = {"claims", "report", "plot", "sweep", "cli", "_cli_common", "_cli_sweep", "__main__"}
#: The numerical layer: the public modules that compute.
NUMERICAL = {
    "rff", "temperature", "rotary", "recurrence", "transition", "attention", "selective", "spectra",
    "simd", "tasks", "expressivity", "related", "extrapolation", "paper_tables",
}  # fmt: skip


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) of every ``from ropelab... import names`` and ``import ropelab...`` in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ropelab":
            out.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names if a.name.split(".")[0] == "ropelab"]
    return out


def _module_names(mod: str, names: list[str]) -> set[str]:
    """The ropelab submodules an import statement reaches (``from ropelab import a, b`` -> {a, b})."""
    parts = mod.split(".")
    if len(parts) > 1:
        return {parts[1]}
    return set(names)


def test_no_module_reads_the_package_face() -> None:
    # the package face: its own attributes (not its submodules)
    face = {"__version__"} | {
        n for n in vars(ropelab) if not n.startswith("_") and not inspect.ismodule(getattr(ropelab, n))
    }
    bad = []
    for path in PKG.rglob("*.py"):
        if path.name == "__init__.py" and path.parent == PKG:
            continue
        for mod, names in _imports(path):
            if mod == "ropelab":
                bad += [f"{path.relative_to(PKG)}: from ropelab import {n}" for n in names if n in face]
    assert not bad, bad


def test_the_numerical_layer_imports_no_upper_layer() -> None:
    bad = []
    for name in NUMERICAL:
        path = PKG / f"{name}.py"
        for mod, names in _imports(path):
            reached = _module_names(mod, names) & UPPER
            if reached:
                bad.append(f"{name}.py imports {sorted(reached)}")
    assert not bad, bad


def test_the_sweep_package_imports_no_claims_report_plot_or_cli() -> None:
    bad = []
    for path in (PKG / "sweep").glob("*.py"):
        for mod, names in _imports(path):
            reached = _module_names(mod, names) & (UPPER - {"sweep"})
            if reached:
                bad.append(f"sweep/{path.name} imports {sorted(reached)}")
    assert not bad, bad
