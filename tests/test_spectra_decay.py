"""One decay across ``spectra``: per sample (``alpha``), with ``α·N`` a derived value.

``ssm_window``, ``leakage_map``, ``ssm_impulse``, ``ssm_spectrum`` and ``window("ssm")`` take the
decay per sample ``alpha``; :func:`decay_per_sample` and :func:`decay_over_window` convert the
decay over the whole window ``α·N``, and ``LeakageMap.decay_over_window`` reports it.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

from ropelab import spectra as S


def _new(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the API: any warning is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------------------- helpers


def test_helpers_convert_both_ways() -> None:
    assert _new(S.decay_per_sample, 2.0, 1024) == 2.0 / 1024
    assert _new(S.decay_over_window, 2.0 / 1024, 1024) == 2.0
    np.testing.assert_array_equal(_new(S.decay_per_sample, [0.0, 3.0, 8.0], 100), np.array([0.0, 3.0, 8.0]) / 100)
    np.testing.assert_array_equal(_new(S.decay_over_window, np.array([0.0, 0.5]), 8), [0.0, 4.0])
    assert isinstance(S.decay_per_sample(1, 4), float) and isinstance(S.decay_over_window(np.float32(0.5), 4), float)


@pytest.mark.parametrize("fn", [S.decay_per_sample, S.decay_over_window], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("value", "exc", "match"),
    [
        (-1.0, ValueError, "must be finite and >= 0"),
        (math.nan, ValueError, "must be finite and >= 0"),
        (math.inf, ValueError, "must be finite and >= 0"),
        ([0.5, -0.1], ValueError, "must be finite and >= 0"),
        (1j, TypeError, "must be a real number"),
        (True, TypeError, "must be a real number"),
        ("2", TypeError, "must be a real number"),
    ],
)
def test_helpers_refuse_bad_decays(fn: Any, value: Any, exc: type[Exception], match: str) -> None:
    name = "alpha_n" if fn is S.decay_per_sample else "alpha"
    with pytest.raises(exc, match=f"{fn.__name__}: {name} {match}"):
        fn(value, 8)


# -------------------------------------------------------------------------------------- ssm_window


@pytest.mark.parametrize("N", [1, 8, 49, 100, 1024])
@pytest.mark.parametrize("alpha_n", [0.0, 1.0, 2.0, 3.0, 8.0, 12.5])
def test_ssm_window_is_the_ssm_window(alpha_n: float, N: int) -> None:
    alpha = S.decay_per_sample(alpha_n, N)
    w = _new(S.ssm_window, alpha=alpha, N=N)
    np.testing.assert_array_equal(w, _new(S.window, "ssm", N, alpha=alpha))
    np.testing.assert_allclose(w, np.exp(-alpha * np.arange(N)), rtol=1e-15, atol=0)


def test_ssm_window_keyword_form() -> None:
    w = _new(S.ssm_window, alpha=0.25, N=8)
    np.testing.assert_allclose(w, np.exp(-0.25 * np.arange(8)), rtol=1e-15)
    np.testing.assert_array_equal(_new(S.ssm_window, N=8, alpha=0), np.ones(8))
    np.testing.assert_array_equal(_new(S.ssm_window, alpha=np.float32(0.25), N=np.int64(8)), w)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((), {"alpha": -0.1, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0, got -0\.1"),
        ((), {"alpha": math.nan, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0"),
        ((), {"alpha": math.inf, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0"),
        ((), {"alpha": 1j, "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": True, "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": [0.1], "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": 0.1, "N": 0}, ValueError, r"ssm_window: N must be an integer >= 1, got 0"),
        ((), {"alpha": 0.1}, TypeError, r"missing 1 required keyword-only argument: 'N'"),
        ((), {"N": 8}, TypeError, r"missing 1 required keyword-only argument: 'alpha'"),
        ((), {"alpha_n": 0.8, "N": 8}, TypeError, r"unexpected keyword argument 'alpha_n'"),
        ((0.1, 8), {}, TypeError, r"takes 0 positional arguments"),
    ],
)
def test_ssm_window_bad_input_names_the_argument(
    args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        _new(S.ssm_window, *args, **kwargs)


# ------------------------------------------------------------------------------------- leakage_map


def test_leakage_map_defaults_and_figures_per_sample() -> None:
    alpha = np.array([0.0, 2.0 / 256])
    m = _new(S.leakage_map, alpha=alpha, omega=[0.3])
    assert (m.N, m.pad) == (256, 32)
    assert m.alpha.tolist() == alpha.tolist() and m.decay_over_window.tolist() == [0.0, 2.0]
    # each row is the window e^{−αn} of ssm_window(alpha=...), bit for bit
    small = _new(S.leakage_map, alpha=[0.03, 0.1], omega=0.5, N=100, pad=4)
    for i, a in enumerate([0.03, 0.1]):
        ref = _new(S.figures_of_merit, _new(S.ssm_window, alpha=a, N=100), pad=4)
        assert small.figures[i].as_dict() == ref.as_dict()
    assert small.alpha.tolist() == [0.03, 0.1]
    assert small.decay_over_window.tolist() == [0.03 * 100, 0.1 * 100]
    # a scalar decay is one row
    assert _new(S.leakage_map, alpha=0.0, omega=[0.1, 0.2], N=16, pad=4).far_leakage_db.shape == (1, 2)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((), {"alpha": [-0.1], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be >= 0"),
        ((), {"alpha": [math.nan], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be finite"),
        ((), {"alpha": [math.inf], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be finite"),
        ((), {"alpha": [1e306], "omega": [0.0], "N": 1024}, ValueError, r"leakage_map: alpha times N must be finite"),
        ((), {"alpha": [1j], "omega": [0.0]}, TypeError, r"spectra\.leakage_map: alpha must be a real array"),
        ((), {"alpha": [], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must not be empty"),
        ((), {"alpha": [[0.1]], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be a 1-D array"),
        ((), {"alpha": [0.1], "omega": [0.0], "N": 1}, ValueError, r"spectra\.leakage_map: N must be >= 2"),
        ((), {"alpha": [0.1]}, TypeError, r"missing 1 required keyword-only argument: 'omega'"),
        ((), {"omega": [0.1]}, TypeError, r"missing 1 required keyword-only argument: 'alpha'"),
        ((), {"alpha_n": [1.0], "omega": [0.0]}, TypeError, r"unexpected keyword argument 'alpha_n'"),
        (([0.1], [0.0]), {}, TypeError, r"takes 0 positional arguments"),
    ],
)
def test_leakage_map_bad_input_names_the_argument(
    args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    with pytest.raises(exc, match=match):
        _new(S.leakage_map, *args, **kwargs)
