"""The SIMD path of the Monte-Carlo kernels, and the throughput of the primitives they bound.

ropelab's hot loops (normals from the counter-based streams, ``cos``/``exp`` of the features)
exist in three versions chosen at run time: ``"scalar"`` (any x86-64), ``"avx2"`` (AVX2 + FMA)
and ``"avx512"`` (AVX-512F). By default the widest one the CPU supports is used; the environment
variable ``ROPELAB_SIMD=scalar|avx2|avx512`` (read at import) or :func:`set_isa` selects another.

Reproducibility: every path draws bit-identical random numbers; ``cos``/``exp`` are SLEEF's
1-ULP (u10) functions, identical on ``avx2`` and ``avx512`` and within 1 ULP of them on
``scalar``. Estimates are therefore bit-identical across ``avx2``/``avx512`` and across thread
counts, and agree with the scalar path to rounding (relative difference ~1e-15).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal, cast

from ropelab import _validation
from ropelab._core_loader import core as _core
from ropelab._docstrings import shared
from ropelab._validation import integer

__all__ = ["isa", "available", "set_isa", "using", "default_threads", "primitive_rate"]

# The names are defined once, in the C++ core (``_core.simd.isas()``, ``_core.simd.primitives()``);
# the ``Literal`` types repeat them for type checkers and tests/test_enumerations.py checks they agree.
Isa = Literal["scalar", "avx2", "avx512"]
Primitive = Literal["normal", "uniform", "cos", "exp"]
#: The SIMD path names, narrowest first (the core's order).
ISAS: tuple[str, ...] = tuple(_core.simd.isas())
#: The primitives of :func:`primitive_rate`, in the core's order.
PRIMITIVES: tuple[str, ...] = tuple(_core.simd.primitives())


def isa() -> Isa:
    """The active path: ``"scalar"``, ``"avx2"`` or ``"avx512"``.

    Returns
    -------
    str
        The name of the path in use.

    Examples
    --------
    >>> isa() in available()
    True
    """
    return cast(Isa, str(_core.simd.isa()))


def available() -> list[Isa]:
    """The paths this CPU can run, narrowest first (always starts with ``"scalar"``).

    Returns
    -------
    list of str
        Path names, a subset of ``["scalar", "avx2", "avx512"]``.
    """
    return [cast(Isa, str(s)) for s in _core.simd.available()]


def set_isa(name: Isa) -> None:
    """Select the path for later computations (not while one is running in another thread).

    Raises
    ------
    ValueError
        For an unknown name or a path this CPU does not support.

    Parameters
    ----------
    name : {"scalar", "avx2", "avx512"}
        The path.
    """
    _core.simd.set_isa(isa=name)


@contextmanager
def using(name: Isa) -> Iterator[None]:
    """Context manager: run the block on path ``name``, then restore the previous path.

    Parameters
    ----------
    name : {"scalar", "avx2", "avx512"}
        The path for the block.

    Yields
    ------
    None
        Control to the block, with ``name`` active.

    Raises
    ------
    ValueError
        For an unknown name or a path this CPU does not support.

    Examples
    --------
    >>> with using("scalar"):
    ...     isa()
    'scalar'
    """
    previous = isa()
    set_isa(name)
    try:
        yield
    finally:
        set_isa(previous)


def default_threads() -> int:
    """The thread count of a call with ``nthreads=None``.

    Returns
    -------
    int
        ``$ROPELAB_NUM_THREADS`` when it is set to an integer in [1, 4096], else the number of
        cores (at least 1).

    Examples
    --------
    >>> default_threads() >= 1
    True
    """
    return int(_core.simd.default_threads())


@shared
def primitive_rate(kind: Primitive, n: int = 2**24, *, repeat: int = 3, nthreads: int | None = None) -> float:
    """Throughput (values per second, best of ``repeat`` runs) of one primitive of the hot loops.

    ``"normal"``: standard normals from the counter-based streams (vectorised Philox4x32 +
    ziggurat); ``"uniform"``: uniforms; ``"cos"``, ``"exp"``: the u10 vector functions summed as
    the estimators do, on L1-resident data. ``n`` values are spread over ``nthreads`` threads
    (``None``: all cores). The bound of the projected trig estimator is one normal plus one cos
    per feature: ``1 / (1/rate("normal") + 1/rate("cos"))``.

    Parameters
    ----------
    kind : {"normal", "uniform", "cos", "exp"}
        The primitive.
    n : int
        Values per run.
    repeat : int
        Runs; the fastest one counts (at least one run).
    {nthreads}

    Returns
    -------
    float
        Values per second.

    Raises
    ------
    TypeError
        If ``repeat`` is not an integer.
    ValueError
        For a negative ``repeat`` (or an invalid ``kind``, ``n`` or ``nthreads``).

    Examples
    --------
    >>> primitive_rate("cos", n=2**16, nthreads=1, repeat=1) > 0
    True
    """
    runs = max(1, integer("simd.primitive_rate", "repeat", repeat, 0))
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        with _validation.renamed("simd.primitive_rate", "simd.run_primitive"):
            _core.simd.run_primitive(kind=kind, n=n, nthreads=nthreads)
        best = min(best, time.perf_counter() - t)
    return n / best
