"""
temperature rules, optima and spectra
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['counterexample', 'depressed_cubic_root', 'mse', 'optimal_sigma', 'paper_sigma', 'spectrum', 'unbiased_sigma']
def counterexample(xi: typing.Any) -> dict:
    ...
def depressed_cubic_root(p: typing.SupportsFloat | typing.SupportsIndex, r: typing.SupportsFloat | typing.SupportsIndex) -> float:
    """
    Unique real root of t^3 + p t + r = 0 for p >= 0.
    """
def mse(sigma: typing.Any, xi: typing.Any, D: typing.Any, estimator: typing.Any, convention: typing.Any, log: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def optimal_sigma(xi: typing.Any, D: typing.Any, estimator: typing.Any, convention: typing.Any, method: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def paper_sigma(xi: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectrum(d: typing.Any, kind: typing.Any, base: typing.Any, theta_max: typing.Any, temp_max: typing.Any, squared: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def unbiased_sigma(xi: typing.Any, estimator: typing.Any, convention: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
