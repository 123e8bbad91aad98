"""
linear-attention recurrences and direct forms
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['decayed_attention', 'linear_attention', 'rff_attention', 'rff_increment_product', 'selective_rope_attention', 'softmax_attention']
def decayed_attention(q: typing.Any, k: typing.Any, v: typing.Any, kind: typing.Any, param: typing.Any, forget: typing.Any, mode: typing.Any, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def linear_attention(q: typing.Any, k: typing.Any, v: typing.Any, transitions: typing.Any, mode: typing.Any, product_start: typing.Any, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def rff_attention(q: typing.Any, k: typing.Any, v: typing.Any, omega: typing.Any, mode: typing.Any, amplitude: bool, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def rff_increment_product(q: typing.Any, omega: typing.Any, tau: typing.Any) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def selective_rope_attention(q: typing.Any, k: typing.Any, v: typing.Any, psi: typing.Any, gates: typing.Any, mode: typing.Any, layout: typing.Any, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
def softmax_attention(q: typing.Any, k: typing.Any, v: typing.Any, psi: typing.Any, layout: typing.Any, scale: typing.Any, causal: bool, nthreads: typing.Any) -> numpy.typing.NDArray[numpy.float64]:
    ...
