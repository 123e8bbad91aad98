"""Type aliases shared by the typed wrappers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

ArrayLike = npt.ArrayLike
FloatArray = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]
#: Channel-pair layout of a rotation: pairs (2i, 2i+1) or (i, i + d/2).
Layout = Literal["interleaved", "half"]
#: A real array in the precision of the input: float32 for float32 input, float64 otherwise.
RealArray = npt.NDArray[np.float32] | npt.NDArray[np.float64]
#: A float for scalar input, an array (the broadcast shape) otherwise.
FloatOrArray = float | FloatArray
#: An array or a (nested) list or tuple of numbers: the argument type of the overloads that return
#: an array (a float-or-array function given one returns an array; as in NumPy's own annotations,
#: the 0-d case, where it returns a float, is not told apart).
ArrayInput = npt.NDArray[Any] | Sequence[Any]
