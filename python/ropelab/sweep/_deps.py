"""Optional dependencies of the sweep module and the ImportError that names their extra."""

from __future__ import annotations

import importlib
from types import ModuleType

#: The pip extra that installs each optional module.
EXTRAS = {"dask": "dask", "distributed": "dask", "pyarrow": "dask", "xarray": "xarray"}


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` or raise ImportError naming ``feature`` and the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        extra = EXTRAS.get(module, module)
        raise ImportError(
            f"ropelab.sweep: {feature} needs the optional package {module!r}; "
            f"install it with: pip install 'ropelab[{extra}]'"
        ) from exc
