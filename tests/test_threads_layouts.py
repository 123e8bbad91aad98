"""Concurrency and memory layouts: the same results from 8 Python threads as serially, for every
thread count, and for non-contiguous, negative-stride, Fortran-ordered and read-only inputs as for
C-contiguous copies."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

import ropelab as rl

RNG = np.random.default_rng(77)
Q, K = 0.4 * RNG.standard_normal((2, 8))
T, D = 24, 8
QS, KS, VS = RNG.standard_normal((3, T, D))
PSI = rl.rotary.cumulative_angles(RNG.standard_normal((T, D // 2)))
GATES = RNG.uniform(0.3, 1.0, (T, D))
OMEGA = RNG.standard_normal((6, D))
W = rl.spectra.window("hann", 64)

# One representative call per public entry point that takes arrays (name, function, args, kwargs).
CALLS: list[tuple[str, Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = [
    ("rff.estimate projected", rl.rff.estimate, (Q, K, 32), {"trials": 200, "seed": 3}),
    ("rff.estimate full", rl.rff.estimate, (Q, K, 32), {"trials": 50, "seed": 3, "mode": "full"}),
    ("rff.moments", rl.rff.moments, (Q, K, np.array([0.5, 1.0])), {}),
    ("rff.mse", rl.rff.mse, (Q, K), {"D": 16, "sigma": np.array([0.5, 1.0])}),
    ("rff.feature_map", rl.rff.feature_map, (np.stack([Q, K]), OMEGA), {}),
    (
        "temperature.mse",
        rl.temperature.mse,
        (np.array([0.1, 0.6]),),
        {"D": np.array([4.0, 16.0]), "sigma": np.array([0.5, 1.0])},
    ),
    ("temperature.optimal_sigma", rl.temperature.optimal_sigma, (np.array([0.1, 0.6]), np.array([4.0, 16.0])), {}),
    ("rotary.rotate", rl.rotary.rotate, (QS, PSI), {}),
    ("rotary.cumulative_angles", rl.rotary.cumulative_angles, (PSI,), {}),
    ("rotary.decay_bound", rl.rotary.decay_bound, (np.arange(0, 200.0),), {}),
    ("recurrence.linear_attention", rl.recurrence.linear_attention, (QS, KS, VS), {}),
    ("recurrence.selective_rope_attention", rl.recurrence.selective_rope_attention, (QS, KS, VS, PSI, GATES), {}),
    ("recurrence.rff_attention", rl.recurrence.rff_attention, (0.3 * QS, 0.3 * KS, VS[:, :2], OMEGA), {}),
    ("recurrence.softmax_attention", rl.recurrence.softmax_attention, (QS, KS, VS), {}),
    ("transition.effective_sequence", rl.transition.effective_sequence, (PSI, GATES), {}),
    ("transition.singular_values", rl.transition.singular_values, (RNG.standard_normal((6, 6)),), {}),
    ("spectra.dtft", rl.spectra.dtft, (W, np.linspace(0, 5, 11)), {}),
    ("spectra.spectrum", rl.spectra.spectrum, (W,), {"pad": 8}),
    ("spectra.figures_of_merit", rl.spectra.figures_of_merit, (W,), {"pad": 16}),
]
IDS = [c[0] for c in CALLS]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "as_dict"):
        return bool(a.as_dict() == b.as_dict() or str(a) == str(b))
    return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))


@pytest.mark.parametrize(("name", "fn", "args", "kwargs"), CALLS, ids=IDS)
def test_eight_threads_match_serial(
    name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    serial = fn(*args, **kwargs)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: fn(*args, **kwargs), range(16)))
    assert all(_same(r, serial) for r in results)


@pytest.mark.parametrize("mode", ["projected", "full"])
def test_every_thread_count_gives_identical_estimates(mode: str) -> None:
    ref = rl.rff.estimate(Q, K, 64, trials=101, seed=9, mode=mode, nthreads=1)
    for n in (2, 3, 8, 64):  # more threads than cores too
        assert np.array_equal(rl.rff.estimate(Q, K, 64, trials=101, seed=9, mode=mode, nthreads=n), ref)


def _variants(a: np.ndarray) -> list[np.ndarray]:
    """The same values with other memory layouts."""
    out = []
    big = np.repeat(a[..., None], 2, axis=-1)
    out.append(big[..., 0])  # non-contiguous (stride 2 in the last axis)
    out.append(np.ascontiguousarray(a[::-1])[::-1])  # negative stride in the first axis
    out.append(np.asfortranarray(a))  # Fortran order
    ro = a.copy()
    ro.setflags(write=False)  # read-only
    out.append(ro)
    return out


@pytest.mark.parametrize(("name", "fn", "args", "kwargs"), CALLS, ids=IDS)
def test_layouts_match_c_contiguous(
    name: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ref = fn(*args, **kwargs)
    for i, a in enumerate(args):
        if not isinstance(a, np.ndarray) or a.ndim == 0:
            continue
        for v in _variants(a):
            assert np.array_equal(v, a)
            new = list(args)
            new[i] = v
            assert _same(fn(*new, **kwargs), ref), (name, i, v.flags)
