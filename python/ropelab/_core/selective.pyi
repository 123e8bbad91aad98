"""
the released Selective RoPE angle path, streaming
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['phases']
def phases(hidden: typing.Any, proj_down: typing.Any, proj_up: typing.Any, conv_weight: typing.Any, silu: bool, bias: typing.Any, gate_down: typing.Any, gate_up: typing.Any, gate_bias: typing.Any, temperature: typing.Any, num_heads: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex, float32: bool, conv_cache: typing.Any, offset: typing.Any, diff_from_zero: bool) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
    ...
