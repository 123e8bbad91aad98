"""
random-feature estimators of exp(q.k)
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['estimate', 'feature_map', 'moments', 'mse', 'sample_omega', 'sample_phase']
def estimate(q: typing.Any, k: typing.Any, D: typing.Any, sigma: typing.Any, estimator: typing.Any, convention: typing.Any, trials: typing.Any, seed: typing.Any, mode: typing.Any, orthogonal: bool, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def feature_map(X: typing.Any, omega: typing.Any, estimator: typing.Any, phase: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def moments(q: typing.Any, k: typing.Any, sigma: typing.Any, estimator: typing.Any, convention: typing.Any, log: bool) -> typing.Any:
    ...
def mse(q: typing.Any, k: typing.Any, sigma: typing.Any, D: typing.Any, estimator: typing.Any, convention: typing.Any, log: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def sample_omega(D: typing.Any, d: typing.Any, sigma: typing.Any, seed: typing.Any, orthogonal: bool, index: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def sample_phase(D: typing.Any, seed: typing.Any, index: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
