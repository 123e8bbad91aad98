"""Bad input to rff and temperature: ValueError/TypeError naming the argument and value."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl

Q = np.array([0.3, -0.1, 0.2, 0.4])
K = np.array([0.1, 0.2, -0.3, 0.0])


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        ({"D": 0}, ValueError, r"D must be an integer >= 1, got 0"),
        ({"D": -3}, ValueError, r"D .* got -3"),
        ({"D": 2.5}, ValueError, r"D .* got 2.5"),
        ({"D": True}, TypeError, r"D .*bool"),
        ({"D": "8"}, TypeError, r"D .* got '8'"),
        ({"D": 2**70}, ValueError, r"D .*64 bits"),
        ({"trials": 0}, ValueError, r"trials .* got 0"),
        ({"trials": 1.5}, ValueError, r"trials .* got 1.5"),
        ({"sigma": -0.1}, ValueError, r"sigma must be >= 0, got -0.1"),
        ({"sigma": float("nan")}, ValueError, r"sigma must be finite, got nan"),
        ({"sigma": float("inf")}, ValueError, r"sigma must be finite, got inf"),
        ({"sigma": 1j}, TypeError, r"sigma must be a real number"),
        ({"estimator": "gauss"}, ValueError, r"estimator must be one of .* got 'gauss'"),
        ({"convention": "conj"}, ValueError, r"convention must be .* got 'conj'"),
        ({"mode": "exact"}, ValueError, r"mode must be 'projected' or 'full', got 'exact'"),
        ({"seed": -1}, ValueError, r"seed must be an integer in \[0, 2\*\*64\), got -1"),
        ({"seed": 2**64}, ValueError, r"seed .* got 18446744073709551616"),
        ({"seed": 1.0}, TypeError, r"seed .* got 1.0"),
        ({"nthreads": 0}, ValueError, r"nthreads .* got 0"),
        (
            {"D": 2**40, "mode": "full"},
            ValueError,
            r"D=1099511627776 and d=\d+ need .* random draws per trial \(D\*d, .*at most 2\^40",
        ),
    ],
)
def test_estimate_bad_arguments(kwargs: dict, exc: type, pattern: str) -> None:
    args = {"D": 8, "trials": 4, "sigma": 1.0} | kwargs
    with pytest.raises(exc, match=r"rff\.estimate: " + pattern):
        rl.rff.estimate(Q, K, **args)


@pytest.mark.parametrize(
    ("q", "k", "exc", "pattern"),
    [
        (Q, K[:3], ValueError, r"q and k must have the same length, got 4 and 3"),
        (Q[None, :], K[None, :], ValueError, r"q must be a 1-D array"),
        (np.zeros((2, 2, 2)), K, ValueError, r"q must be a 1-D array"),
        (np.array([]), np.array([]), ValueError, r"q must not be empty"),
        (np.array([0.1, np.nan]), np.array([0.1, 0.2]), ValueError, r"q must be finite \(element 1 is nan\)"),
        (np.array([0.1, 0.2]), np.array([np.inf, 0.2]), ValueError, r"k must be finite"),
        (np.array([0.1j, 0.2]), np.array([0.1, 0.2]), TypeError, r"q must be a real array"),
        (np.array(["a", "b"]), np.array([0.1, 0.2]), TypeError, r"q must be a real array"),
        (np.array([object(), 1], dtype=object), np.array([0.1, 0.2]), TypeError, r"q must be a real array"),
        (None, np.array([0.1, 0.2]), TypeError, r"q must be a real array"),
    ],
)
def test_pair_arguments(q: object, k: object, exc: type, pattern: str) -> None:
    for call in (
        lambda: rl.rff.estimate(q, k, 4),
        lambda: rl.rff.mse(q, k, D=4, sigma=1.0),
        lambda: rl.rff.moments(q, k, 1.0),
    ):
        with pytest.raises(exc, match=pattern):
            call()


def test_amplitude_overflow_is_a_clear_error() -> None:
    big = np.full(4, 20.0)
    with pytest.raises(ValueError, match=r"rff\.estimate: the amplitude .* overflows"):
        rl.rff.estimate(big, big, 4)
    # the positive estimator has no amplitude factor: a finite (possibly huge) answer, never NaN
    e = rl.rff.estimate(big, -big, 4, estimator="positive")
    assert not np.isnan(e).any()


def test_mse_sigma_array_checked_elementwise() -> None:
    with pytest.raises(ValueError, match=r"rff\.mse: sigma must be >= 0 \(element 1\), got -1.0"):
        rl.rff.mse(Q, K, D=4, sigma=[1.0, -1.0])
    with pytest.raises(ValueError, match=r"rff\.mse: sigma must be finite"):
        rl.rff.mse(Q, K, D=4, sigma=[1.0, np.nan])


def test_feature_map_and_sampling_errors() -> None:
    w = rl.rff.sample_omega(8, 4, seed=0)
    with pytest.raises(ValueError, match=r"X must be a 2-D array"):
        rl.rff.feature_map(Q, w)
    with pytest.raises(ValueError, match=r"same number of columns"):
        rl.rff.feature_map(np.ones((2, 3)), w)
    with pytest.raises(ValueError, match=r"phase is required"):
        rl.rff.feature_map(np.ones((2, 4)), w, "random_phase")
    with pytest.raises(ValueError, match=r"phase must have one entry per row"):
        rl.rff.feature_map(np.ones((2, 4)), w, "random_phase", phase=np.zeros(3))
    with pytest.raises(ValueError, match=r"phase is only used"):
        rl.rff.feature_map(np.ones((2, 4)), w, "trig", phase=np.zeros(8))
    with pytest.raises(ValueError, match=r"sample_omega: D must be an integer >= 1, got 0"):
        rl.rff.sample_omega(0, 4)
    with pytest.raises(ValueError, match=r"sample_omega: d .* got -2"):
        rl.rff.sample_omega(4, -2)
    with pytest.raises(MemoryError, match=r"sample_omega: the requested output cannot be allocated"):
        rl.rff.sample_omega(10**12, 10**6)
    # 80 GB: beyond this machine's physical memory, refused before any allocation
    with pytest.raises(MemoryError, match=r"physical memory"):
        rl.rff.sample_omega(10**6, 10**4)
    with pytest.raises(MemoryError, match=r"rff\.estimate: the requested output"):
        rl.rff.estimate(Q, K, 1, trials=10**13)


@pytest.mark.parametrize("xi", [1.5, -1.0001, float("nan")])
def test_xi_out_of_range(xi: float) -> None:
    with pytest.raises(ValueError, match=r"xi must (lie in|be finite)"):
        rl.temperature.paper_sigma(xi)
    with pytest.raises(ValueError, match=r"xi must"):
        rl.temperature.optimal_sigma(xi, 4)
    with pytest.raises(ValueError, match=r"xi must"):
        rl.temperature.mse(xi, D=4, sigma=1.0)


def test_temperature_bad_arguments() -> None:
    with pytest.raises(ValueError, match=r"temperature\.mse: D must be a positive integer \(element 0\), got 0.0"):
        rl.temperature.mse(0.5, D=0, sigma=1.0)
    with pytest.raises(ValueError, match=r"temperature\.optimal_sigma: D must be a positive integer"):
        rl.temperature.optimal_sigma(0.5, 2.5)
    with pytest.raises(ValueError, match=r"method must be 'cubic' or 'brent', got 'newton'"):
        rl.temperature.optimal_sigma(0.5, 4, method="newton")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"counterexample: xi must lie in \(-1, 1\], got -1.0"):
        rl.temperature.counterexample(-1.0)
    with pytest.raises(ValueError, match=r"spectrum: d must be even"):
        rl.temperature.spectrum(7)
    with pytest.raises(ValueError, match=r"spectrum: kind must be 'rope' or 'rfa', got 'alibi'"):
        rl.temperature.spectrum(8, "alibi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"theta_max must lie in \(0, 1\)"):
        rl.temperature.spectrum(8, "rfa", theta_max=1.0)
    with pytest.raises(ValueError, match=r"squared applies to kind='rfa' only"):
        rl.temperature.spectrum(8, "rope", squared=True)
    with pytest.raises(ValueError, match=r"mse_curve: sigmas must be a non-empty 1-D array"):
        rl.temperature.mse_curve(0.5, 4, [], trials=10)
    with pytest.raises(ValueError, match=r"unit_pair: d must be an integer >= 2, got 1"):
        rl.temperature.unit_pair(0.5, d=1)
