"""What the claim checks of several sections share: the seed of their random inputs, the float64
rounding tolerance and the relative error (a private module: it registers no claims).
"""

from __future__ import annotations

from typing import Any, get_args

import numpy as np

from ropelab import rotary
from ropelab._types import FloatArray, Layout

#: The seed of the random inputs (each check adds an offset of its own).
SEED = 20260103
EPS = np.finfo(float).eps
LAYOUTS: tuple[Layout, ...] = get_args(Layout)  # = _core.rotary.layouts(), checked by the tests
MC_SIGMAS = 5.0  # Monte-Carlo agreement: within 5 standard errors (fixed seed)


def rng(offset: int = 0) -> np.random.Generator:
    """The generator of a check's inputs: seeded with ``SEED + offset``."""
    return np.random.default_rng(SEED + offset)


def rel_err(a: Any, b: Any) -> float:
    """The largest absolute difference relative to the largest magnitude of ``b``."""
    a, b = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), np.finfo(float).tiny))


def tol(work: float) -> float:
    """Float64 rounding tolerance for a computation of ``work`` operations per output (×16 margin)."""
    return 16 * EPS * max(work, 1.0)


def srope_inputs(T: int, d: int, offset: int) -> tuple[FloatArray, ...]:
    """Queries, keys, values of shape (T, d) and cumulative angles of shape (T, d/2)."""
    gen = rng(offset)
    q, k, v = gen.standard_normal((3, T, d))
    psi = rotary.cumulative_angles(gen.standard_normal((T, d // 2)))
    return q, k, v, psi
