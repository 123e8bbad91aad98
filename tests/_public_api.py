"""The public modules of ropelab and the public names of each, for the docstring tests."""

from __future__ import annotations

import inspect
import pkgutil
from types import ModuleType

import ropelab


def public_modules() -> list[str]:
    """``ropelab`` and every submodule whose dotted name has no part starting with ``_``."""
    names = ["ropelab"]
    for info in pkgutil.walk_packages(ropelab.__path__, "ropelab."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return sorted(names)


def public_names(mod: ModuleType) -> list[str]:
    """``mod.__all__``, or the functions and classes defined in ``mod`` without a leading ``_``."""
    if hasattr(mod, "__all__"):
        return list(mod.__all__)
    return [
        n
        for n, v in vars(mod).items()
        if not n.startswith("_")
        and (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", None) == mod.__name__
    ]
