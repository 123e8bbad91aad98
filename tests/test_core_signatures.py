"""The compiled module's signatures are typed, and the Python layer calls it by keyword.

The stubs of ``ropelab._core`` name a real type for every parameter (``numpy.typing.ArrayLike``,
``typing.SupportsInt``, ``str``, ...; no ``typing.Any``), so that mypy checks the wrappers' calls;
and every call of a ``_core`` function with more than two arguments passes them by keyword, so
that two swapped arguments of the same type cannot go unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The source tree's package, or (make test-wheel: no source tree) the installed one.
if (ROOT / "python" / "ropelab").is_dir():
    PACKAGE = ROOT / "python" / "ropelab"
else:
    import ropelab

    PACKAGE = Path(ropelab.__file__).resolve().parent


def _stub_parameters() -> list[tuple[str, str, str]]:
    """(stub file, function, annotation) of every parameter of every function in _core/*.pyi."""
    out = []
    for pyi in sorted((PACKAGE / "_core").glob("*.pyi")):
        for node in ast.walk(ast.parse(pyi.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):
                a = node.args
                for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, *filter(None, [a.vararg, a.kwarg])]:
                    if arg.arg == "self" and arg is [*a.posonlyargs, *a.args][0]:
                        continue  # a method's receiver (the result classes) is never annotated
                    ann = "" if arg.annotation is None else ast.unparse(arg.annotation)
                    out.append((pyi.name, f"{node.name}({arg.arg})", ann))
    return out


def test_stub_parameters_have_real_types() -> None:
    params = _stub_parameters()
    assert len(params) > 150, "the stubs of ropelab._core were not found"
    untyped = [f"{f}: {name}: {ann or 'no annotation'}" for f, name, ann in params if not ann or "Any" in ann]
    assert not untyped, "parameters typed Any in the stubs (use a typed wrapper of common.hpp):\n" + "\n".join(untyped)


def _core_calls(tree: ast.AST) -> list[tuple[str, ast.Call]]:
    """Calls whose callee is an attribute chain starting at the name ``_core``."""
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            parts = []
            f = node.func
            while isinstance(f, ast.Attribute):
                parts.append(f.attr)
                f = f.value
            if isinstance(f, ast.Name) and f.id == "_core" and parts:
                calls.append((".".join(["_core", *reversed(parts)]), node))
    return calls


def test_wrappers_call_the_core_by_keyword() -> None:
    files = sorted(PACKAGE.rglob("*.py"))
    assert files
    seen = 0
    positional = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name, call in _core_calls(tree):
            n = len(call.args) + len(call.keywords)
            if n > 2:
                seen += 1
                if call.args:
                    positional.append(
                        f"{path.relative_to(PACKAGE)}:{call.lineno}: {name} ({len(call.args)} positional)"
                    )
    # the scan sees the wrappers' calls (rff.estimate, attention.random_feature, selective.angles, ...)
    assert seen >= 30, seen
    assert not positional, "calls into _core with positional arguments:\n" + "\n".join(positional)


@pytest.mark.parametrize(
    "source",
    [
        "_core.rff.estimate(q, k, D=1, sigma=1.0)",
        "_core.spectra.zoh(a, w, dt)",
    ],
)
def test_the_keyword_scan_sees_positional_calls(source: str) -> None:
    (name, call), *_ = _core_calls(ast.parse(source))
    assert name.startswith("_core.")
    assert call.args and len(call.args) + len(call.keywords) > 2
