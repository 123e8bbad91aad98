"""What tab completion offers: a public module's ``dir()`` is its ``__all__`` (PEP 562 ``__dir__``).

Imports such as ``np``, ``warnings`` or ``annotations`` stay reachable as attributes but are not
offered as the module's API.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

__all__ = ["public_dir"]


def public_dir(module_name: str) -> Callable[[], list[str]]:
    """A ``__dir__`` for the module ``module_name``: its ``__all__``, sorted.

    Parameters
    ----------
    module_name : str
        The module's ``__name__``.

    Returns
    -------
    callable
        ``__dir__()``, to assign in the module (``__dir__ = public_dir(__name__)``).

    Examples
    --------
    >>> import ropelab
    >>> "annotations" in dir(ropelab), "spectra" in dir(ropelab)
    (False, True)
    """

    def __dir__() -> list[str]:
        return sorted(set(sys.modules[module_name].__all__))

    return __dir__
