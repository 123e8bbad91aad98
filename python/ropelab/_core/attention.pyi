"""
exact and random-feature attention
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['feature_map', 'random_feature', 'softmax']
def feature_map(X: typing.Any, omega: typing.Any, estimator: typing.Any, scale: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def random_feature(q: typing.Any, k: typing.Any, v: typing.Any, D: typing.Any, estimator: typing.Any, sigma: typing.Any, layout: typing.Any, orthogonal: bool, causal: bool, seed: typing.Any, trials: typing.Any, stabilize: bool, scale: typing.Any, nthreads: typing.Any, parts: bool) -> tuple:
    ...
def softmax(q: typing.Any, k: typing.Any, v: typing.Any, causal: bool, scale: typing.Any, bias: typing.Any, bias_offsets: typing.Any, bias_stride_t: typing.Any, bias_stride_s: typing.Any, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
