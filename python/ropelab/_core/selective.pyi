"""
the released Selective RoPE angle path, streaming
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['angles']
def angles(hidden: numpy.typing.ArrayLike, proj_down: numpy.typing.ArrayLike, proj_up: numpy.typing.ArrayLike, conv_weight: numpy.typing.ArrayLike | None, silu: bool, bias: numpy.typing.ArrayLike | None, gate_down: numpy.typing.ArrayLike | None, gate_up: numpy.typing.ArrayLike | None, gate_bias: numpy.typing.ArrayLike | None, temperature: numpy.typing.ArrayLike, num_heads: typing.SupportsInt | typing.SupportsIndex, eps: typing.SupportsFloat | typing.SupportsIndex, float32: bool, conv_cache: numpy.typing.ArrayLike, offset: numpy.typing.ArrayLike, diff_from_zero: bool) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
    ...
