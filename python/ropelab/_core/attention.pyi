"""
exact and random-feature attention
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['estimators', 'feature_map', 'random_feature', 'softmax']
def estimators() -> list[str]:
    ...
def feature_map(X: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, estimator: str, scale: typing.SupportsFloat) -> numpy.typing.NDArray[numpy.float64]:
    ...
def random_feature(q: numpy.typing.ArrayLike, k: numpy.typing.ArrayLike, v: numpy.typing.ArrayLike, D: typing.SupportsInt, estimator: str, sigma: numpy.typing.ArrayLike, layout: str, orthogonal: bool, causal: bool, seed: typing.SupportsInt, trials: typing.SupportsInt, stabilize: bool, scale: typing.SupportsFloat | None, nthreads: int | None, parts: bool) -> tuple[numpy.ndarray, ...]:
    ...
def softmax(q: numpy.typing.ArrayLike, k: numpy.typing.ArrayLike, v: numpy.typing.ArrayLike, causal: bool, scale: typing.SupportsFloat | None, bias: numpy.typing.ArrayLike | None, bias_offsets: numpy.typing.ArrayLike | None, bias_stride_t: typing.SupportsInt, bias_stride_s: typing.SupportsInt, nthreads: int | None) -> numpy.ndarray:
    ...
