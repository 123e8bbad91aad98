"""
float32 arithmetic of RoPE scaling rules, as PyTorch's
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['float32_powers']
def float32_powers(base: typing.SupportsFloat, exponents: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float32]:
    """
    base ** exponents in float32 as PyTorch's CPU kernels compute it (SLEEF powf, 1 ulp).
    """
