"""Typing: the committed stubs of the compiled module match the built module, and the Python
layer passes ``mypy --strict``."""

from __future__ import annotations

import ast
import collections.abc
import filecmp
import importlib
import inspect
import os
import re
import shutil
import subprocess
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


# --- the public API is fully typed: a user's script type-checks, runs and covers every name ----------

USER_SCRIPT = ROOT / "tests" / "typed_api" / "user_script.py"

#: Public callables whose return type may contain ``Any``, with the reason. ``dict[str, Any]`` (JSON
#: records, ``as_dict``) and NumPy arrays of any dtype are allowed everywhere and need no entry.
ANY_RETURN_ALLOWED = {
    "ropelab.plot.MSEExplorer.widget": "an ipywidgets object; ipywidgets has no type annotations",
    "ropelab.sweep.Grid.spec": "the grid's JSON specification (nested lists of JSON values)",
}


def _public_modules() -> dict[str, types.ModuleType]:
    import ropelab

    return {
        f"ropelab.{name}": importlib.import_module(f"ropelab.{name}")
        for name in ropelab.__all__
        if name != "__version__"
    }


def _public_callables() -> dict[str, Callable[..., object] | property]:
    """Qualified name to object: every public function and class of every public module, and every
    public method and property that a public class defines in Python (not its dataclass fields)."""
    out: dict[str, Callable[..., object] | property] = {}
    for mod_name, mod in _public_modules().items():
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isfunction(obj):
                out[f"{mod_name}.{name}"] = obj
            elif inspect.isclass(obj):
                out[f"{mod_name}.{name}"] = obj
                for attr, member in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(member, (classmethod, staticmethod)):
                        member = member.__func__
                    if inspect.isfunction(member) or isinstance(member, property):
                        out[f"{mod_name}.{name}.{attr}"] = member
    return out


def _hint_namespace() -> dict[str, object]:
    """Names the package imports only under ``TYPE_CHECKING`` (its annotations are strings)."""
    import matplotlib.axes
    import matplotlib.figure
    import pandas as pd
    import xarray as xr

    ns: dict[str, object] = {"pd": pd, "xr": xr, "Axes": matplotlib.axes.Axes, "Figure": matplotlib.figure.Figure}
    for mod in _public_modules().values():  # the result classes a module annotates with
        ns.update({name: getattr(mod, name) for name in mod.__all__ if inspect.isclass(getattr(mod, name))})
    return ns


def _has_any(hint: object) -> bool:
    """``Any`` itself, in a union, or as the element of a tuple/list/sequence (``dict[str, Any]``
    and ``ndarray[..., dtype[Any]]`` are fine)."""
    if hint is Any:
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_has_any(a) for a in args)
    if origin in (tuple, list, set, frozenset, collections.abc.Sequence, collections.abc.Iterator):
        return any(_has_any(a) for a in args if a is not Ellipsis)
    return False


def _returns(obj: Callable[..., object] | property) -> list[object]:
    """The declared return types of a function (each overload's), a property's getter or a
    class's ``__init__`` (``None``); ``inspect.Parameter.empty`` where one is missing."""
    if inspect.isclass(obj):
        init = vars(obj).get("__init__")
        if init is None or not inspect.isfunction(init):
            return []
        obj = init
    fn = obj.fget if isinstance(obj, property) else obj
    assert fn is not None
    variants = list(typing.get_overloads(fn)) or [fn]
    ns = dict(getattr(inspect.getmodule(fn), "__dict__", {}))
    ns.update(_hint_namespace())
    return [typing.get_type_hints(v, globalns=ns).get("return", inspect.Parameter.empty) for v in variants]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="typing.get_overloads needs Python 3.11")
def test_public_api_returns_no_any() -> None:
    """No public function, method or property is unannotated or returns ``Any`` (nor a tuple or
    list of ``Any``); the compiled module's stubs return no ``Any`` either."""
    callables = _public_callables()
    assert len(callables) > 150, sorted(callables)
    bad = []
    for qualname, obj in callables.items():
        for ret in _returns(obj):
            if ret is inspect.Parameter.empty:
                bad.append(f"{qualname}: no return annotation")
            elif _has_any(ret) and qualname not in ANY_RETURN_ALLOWED:
                bad.append(f"{qualname} -> {ret}")
    assert not bad, "\n".join(bad)
    assert set(ANY_RETURN_ALLOWED) <= set(callables), "stale ANY_RETURN_ALLOWED entries"
    stub_any = [
        f"{p.name}:{i}: {line.strip()}"
        for p in sorted(STUBS.glob("*.pyi"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"->\s*(typing\.)?Any\b", line)
    ]
    assert not stub_any, stub_any


def _script_names() -> set[str]:
    """``<module>.<name>[.<attr>]`` for every ``rl.<module>.<name>[.<attr>]`` chain in the script,
    and ``<module>.<Class>.<attr>`` for ``x.<attr>`` where ``x: rl.<module>.<Class>`` is annotated."""
    tree = ast.parse(_user_script_source())
    names: set[str] = set()
    annotated: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            chain = []
            cur: ast.expr = node
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == "rl":
                names.add(".".join(reversed(chain)))
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            ann = ast.unparse(node.annotation)
            if ann.startswith("rl."):
                annotated[node.target.id] = ann[3:]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in annotated:
            names.add(f"{annotated[node.value.id]}.{node.attr}")
    return names


def _user_script_source() -> str:
    return USER_SCRIPT.read_text(encoding="utf-8")


def test_user_script_calls_every_public_callable() -> None:
    """The script names every public function, class, method and property as ``rl.<module>.<name>``
    (methods and properties through a variable annotated with the class)."""
    used = _script_names()
    missing = sorted(q for q in _public_callables() if q.removeprefix("ropelab.") not in used)
    assert not missing, f"call these in {USER_SCRIPT.relative_to(ROOT)}: {missing}"


def test_user_script_runs(tmp_path: Path) -> None:
    """The script runs as it is (so it cannot drift from the API), quickly, without a display."""
    env = dict(os.environ, MPLBACKEND="Agg")
    r = subprocess.run(
        [sys.executable, str(USER_SCRIPT)], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_mypy_strict_user_script() -> None:
    """A user's fully annotated script passes ``mypy --strict`` against the package's annotations."""
    # the source tree's package, or the installed one (found in site-packages through its py.typed)
    env = dict(os.environ, MYPYPATH=str(PACKAGE.parent)) if SOURCE else dict(os.environ)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            str(USER_SCRIPT),
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / "build" / "mypy-cache"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env=env,
    )
    assert r.returncode == 0, r.stdout + r.stderr
