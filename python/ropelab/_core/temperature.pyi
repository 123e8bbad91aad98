"""
temperature rules, optima and spectra
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['counterexample', 'depressed_cubic_root', 'methods', 'mse', 'optimal_sigma', 'paper_sigma', 'spectrum', 'spectrum_kinds', 'unbiased_sigma']
def counterexample(xi: typing.SupportsFloat) -> dict:
    ...
def depressed_cubic_root(p: typing.SupportsFloat | typing.SupportsIndex, r: typing.SupportsFloat | typing.SupportsIndex) -> float:
    """
    Unique real root of t^3 + p t + r = 0 for p >= 0.
    """
def methods() -> list[str]:
    ...
def mse(sigma: numpy.typing.ArrayLike, xi: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, estimator: str, convention: str, log: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def optimal_sigma(xi: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, estimator: str, convention: str, method: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
def paper_sigma(xi: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectrum(d: typing.SupportsInt, kind: str, base: typing.SupportsFloat, theta_max: typing.SupportsFloat | None, temp_max: typing.SupportsFloat, squared: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectrum_kinds() -> list[str]:
    ...
def unbiased_sigma(xi: numpy.typing.ArrayLike, estimator: str, convention: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
