"""Small argument helpers shared by the Python wrappers (the bindings do the real checking)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def scalar_or_array(out: npt.NDArray[np.float64], like: Any) -> Any:
    """Return a Python float when the user passed a scalar, else the array."""
    return float(out) if np.ndim(like) == 0 else out


def broadcast(func: str, **arrays: Any) -> tuple[tuple[int, ...], list[npt.NDArray[Any]]]:
    """Broadcast keyword array-likes together; ValueError naming ``func`` when they do not fit."""
    try:
        parts = np.broadcast_arrays(*[np.asarray(v) for v in arrays.values()])
    except ValueError:
        shapes = {k: np.shape(v) for k, v in arrays.items()}
        raise ValueError(f"{func}: arguments cannot be broadcast together, got shapes {shapes}") from None
    shape = parts[0].shape if parts else ()
    return shape, [np.ascontiguousarray(p).reshape(-1) for p in parts]
