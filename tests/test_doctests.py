"""Every public function has a numpydoc docstring with an Examples section, and the examples run."""

from __future__ import annotations

import doctest
import importlib
import inspect

import numpy as np
import pytest

MODULES = [
    "ropelab.rff",
    "ropelab.temperature",
    "ropelab.claims",
    "ropelab.report",
    "ropelab.plot",
    "ropelab.sweep",
    "ropelab.sweep._grid",
    "ropelab.sweep._backends",
    "ropelab.sweep._tasks",
    "ropelab.claims._registry",
    "ropelab._display",
    "ropelab._provenance",
    "ropelab._cli_common",
    "ropelab.tasks",
    "ropelab.expressivity",
    "ropelab.attention",
    "ropelab.extrapolation",
    "ropelab.related",
    "ropelab.selective",
]
OPTIONAL_MODULES = ["ropelab.rotary", "ropelab.recurrence", "ropelab.transition", "ropelab.spectra"]


def _modules() -> list[str]:
    out = list(MODULES)
    for name in OPTIONAL_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        out.append(name)
    return out


@pytest.mark.parametrize("name", _modules())
def test_doctests_run(name: str) -> None:
    mod = importlib.import_module(name)
    res = doctest.testmod(
        mod,
        extraglobs={"np": np},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert res.failed == 0, f"{res.failed} of {res.attempted} doctest examples failed in {name}"


@pytest.mark.parametrize("name", _modules())
def test_public_functions_have_examples(name: str) -> None:
    mod = importlib.import_module(name)
    missing = []
    for attr in getattr(mod, "__all__", []):
        obj = getattr(mod, attr)
        if inspect.isfunction(obj) and obj.__module__ == name:
            doc = inspect.getdoc(obj) or ""
            if "Examples\n--------" not in doc or ">>>" not in doc:
                missing.append(attr)
    assert not missing, f"{name}: public functions without a runnable Examples section: {missing}"
