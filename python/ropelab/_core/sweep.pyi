"""
cells of sweep tasks, many in one call
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['cell_seeds', 'check_rff_mse', 'exactly_rounded_sum', 'rff_mse', 'sigma_rules']
def cell_seeds(seed: typing.SupportsInt, index: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.uint64]:
    """
    The seeds of the cells `index` (SeedSequence(seed, spawn_key=(i,)), first 64 bits).
    """
def check_rff_mse(xi: numpy.typing.ArrayLike, sigma: numpy.typing.ArrayLike, rule: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, d: numpy.typing.ArrayLike, estimator: numpy.typing.ArrayLike, convention: numpy.typing.ArrayLike, full: numpy.typing.ArrayLike) -> tuple[int, str]:
    """
    (-1, '') when every rff_mse cell can be computed, else (position, message) of the first that cannot.
    """
def exactly_rounded_sum(x: numpy.typing.ArrayLike) -> float:
    """
    The correctly rounded sum of x (math.fsum's result), as the cell statistics use it.
    """
def rff_mse(xi: numpy.typing.ArrayLike, sigma: numpy.typing.ArrayLike, rule: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, d: numpy.typing.ArrayLike, estimator: numpy.typing.ArrayLike, convention: numpy.typing.ArrayLike, full: numpy.typing.ArrayLike, seeds: numpy.typing.ArrayLike, trials: typing.SupportsInt, nthreads: int | None, on_done: collections.abc.Callable[[numpy.typing.NDArray[numpy.int64], numpy.typing.NDArray[numpy.float64]], None] | None) -> numpy.typing.NDArray[numpy.float64]:
    """
    The outputs (n, 7) of n rff_mse cells (each at its own seed), in parallel over cells; on_done(positions, rows) receives finished cells as they finish. A failing cell raises ValueError(message, position).
    """
def sigma_rules() -> list[str]:
    """
    The sigma rule names; a cell's rule code is 0 (a number) or 1 + the index here.
    """
