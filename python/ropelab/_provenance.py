"""Where a result came from: the record every report and CLI JSON output carries."""

from __future__ import annotations

import datetime
import platform
import sys
from collections.abc import Iterable
from typing import Any

import numpy as np

from ropelab._core_loader import core as _core

__all__ = ["provenance"]


def provenance(*, seeds: Iterable[int] | None = None, nthreads: int | None = None) -> dict[str, Any]:
    """The software, machine and randomness behind a computation, as a JSON-ready dict.

    Parameters
    ----------
    seeds : iterable of int, optional
        The seeds the computation used (recorded sorted and without repeats); ``None`` records an
        empty list (the computation drew no random numbers).
    nthreads : int, optional
        The thread count the computation was asked for; ``None`` records the default
        (``$ROPELAB_NUM_THREADS`` if set, else every core).

    Returns
    -------
    dict
        Keys ``ropelab`` (version), ``git_commit`` (the commit of a build from a checkout,
        ``"<sha>+dirty"`` with uncommitted changes, ``None`` for a build from a release),
        ``python``, ``numpy``, ``platform``, ``machine``, ``simd`` (the Monte-Carlo kernels' path),
        ``threads``, ``seeds`` and ``utc`` (ISO 8601, seconds).

    Raises
    ------
    TypeError
        If ``seeds`` holds something other than integers, or ``nthreads`` is not an integer.

    Examples
    --------
    >>> p = provenance(seeds=[3, 1, 3])
    >>> p["seeds"], p["simd"] in ("scalar", "avx2", "avx512")
    ([1, 3], True)
    """
    seed_list: list[int] = []
    for s in seeds or ():
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            raise TypeError(f"provenance: seeds must be integers, got {s!r}")
        seed_list.append(int(s))
    if nthreads is not None and (isinstance(nthreads, bool) or not isinstance(nthreads, (int, np.integer))):
        raise TypeError(f"provenance: nthreads must be an integer or None, got {nthreads!r}")
    commit = str(_core.git_commit()) or None
    return {
        "ropelab": str(_core.__version__),
        "git_commit": commit,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "byteorder": sys.byteorder,
        "simd": str(_core.simd.isa()),
        "threads": int(nthreads) if nthreads is not None else int(_core.simd.default_threads()),
        "seeds": sorted(set(seed_list)),
        "utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
