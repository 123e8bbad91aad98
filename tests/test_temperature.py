"""Theorem 1, its counterexample and the finite-D optimum."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl
from ropelab import temperature as T

XI_GRID = np.linspace(-0.95, 0.95, 39)
D_GRID = np.array([1, 2, 3, 5, 10, 31, 100, 1000, 10**4, 10**5, 10**6])


def test_counterexample_numbers_to_1e_14() -> None:
    c = T.counterexample(0.5)
    assert c.sigma_paper_sq == pytest.approx(1 / 3, rel=1e-14)
    assert c.sigma_paper**2 == pytest.approx(1 / 3, rel=1e-14)
    assert c.mean_paper == pytest.approx(np.exp(5 / 6), rel=1e-14)
    assert c.target == pytest.approx(np.exp(0.5), rel=1e-14)
    assert c.mean_sigma1 == pytest.approx(np.exp(0.5), rel=1e-14)
    assert round(c.mean_paper, 5) == 2.30098 and round(c.target, 5) == 1.64872


def test_counterexample_means_agree_with_rff_moments() -> None:
    """Second route: the general closed form of rff.moments at the same unit pair."""
    q, k = T.unit_pair(0.5, d=4)
    c = T.counterexample(0.5)
    assert rl.rff.moments(q, k, c.sigma_paper)[0] == pytest.approx(c.mean_paper, rel=1e-14)
    assert rl.rff.moments(q, k, c.sigma_paper, "trig", "literal")[0] == pytest.approx(c.target, rel=1e-14)


def test_paper_rule_is_literal_bias_zeroing_sigma() -> None:
    xi = np.linspace(-0.9, 0.9, 19)
    np.testing.assert_allclose(T.unbiased_sigma(xi, convention="literal"), T.paper_sigma(xi), rtol=1e-15)
    np.testing.assert_array_equal(T.unbiased_sigma(xi, convention="conjugate"), np.ones_like(xi))
    for x in xi:
        q, k = T.unit_pair(float(x), d=3)
        assert rl.rff.moments(q, k, T.paper_sigma(x), "trig", "literal")[0] == pytest.approx(np.exp(x), rel=1e-13)


def test_paper_sigma_is_tan_half_arccos() -> None:
    xi = np.linspace(-0.99, 1.0, 50)
    np.testing.assert_allclose(T.paper_sigma(xi), np.tan(np.arccos(xi) / 2), rtol=1e-12, atol=1e-15)
    assert T.paper_sigma(-1.0) == np.inf


def test_cubic_and_brent_agree_on_grid() -> None:
    xi, D = np.meshgrid(XI_GRID, D_GRID)
    for est in ("trig", "positive", "random_phase"):
        cubic = T.optimal_sigma(xi, D, est, method="cubic")
        brent = T.optimal_sigma(xi, D, est, method="brent")
        np.testing.assert_allclose(cubic, brent, rtol=1e-8, atol=1e-8)
    lit_c = T.optimal_sigma(xi, D, "trig", "cubic", convention="literal")
    lit_b = T.optimal_sigma(xi, D, "trig", "brent", convention="literal")
    np.testing.assert_allclose(lit_c, lit_b, rtol=1e-8, atol=1e-8)


def test_cubic_root_is_stationary_point_of_mse() -> None:
    """Third route: the MSE's numerical derivative vanishes at σ*."""
    for x in (-0.5, 0.2, 0.8):
        for D in (1, 16, 256):
            s = T.optimal_sigma(x, D)
            h = 1e-5
            left, mid, right = T.mse(x, D=D, sigma=np.array([s - h, s, s + h]))
            assert mid <= left and mid <= right


def test_one_feature_optimum_is_one_third() -> None:
    s = T.optimal_sigma(XI_GRID, 1)
    np.testing.assert_allclose(s**2, 1 / 3, rtol=1e-13)
    # the paper's rule coincides with the D = 1 optimum only at ξ = 1/2
    assert T.paper_sigma(0.5) == pytest.approx(T.optimal_sigma(0.5, 1), rel=1e-13)
    assert T.paper_sigma(0.2) != pytest.approx(T.optimal_sigma(0.2, 1), rel=1e-3)


def test_optimum_tends_to_one_and_increases_with_D() -> None:
    s = T.optimal_sigma(0.3, D_GRID)
    assert np.all(np.diff(s) > 0) and np.all(s < 1)
    assert 1 - s[-1] < 1e-5
    assert abs(1 - T.optimal_sigma(0.3, 1e12)) < 1e-10


def test_positive_optimum_below_one_for_finite_D() -> None:
    s = T.optimal_sigma(XI_GRID, 64, "positive")
    assert np.all(s < 1) and np.all(s >= 0)
    assert abs(1 - T.optimal_sigma(0.3, 1e12, "positive")) < 1e-9


def test_literal_optimum_tends_to_tan_rule() -> None:
    assert T.optimal_sigma(0.4, 1e12, convention="literal") == pytest.approx(T.paper_sigma(0.4), rel=1e-9)


def test_degenerate_pairs_return_one() -> None:
    assert T.optimal_sigma(1.0, 10) == 1.0
    assert T.optimal_sigma(-1.0, 10, "positive") == 1.0


def test_mse_closed_form_unit_norms() -> None:
    sigma, xi, D = 0.7, 0.3, 12
    u, c = np.exp(-(sigma**2) * (1 - xi)), np.exp(xi - 1)
    expected = np.e**2 * ((1 - u**2) ** 2 / (2 * D) + (u - c) ** 2)
    assert T.mse(xi, D=D, sigma=sigma) == pytest.approx(expected, rel=1e-13)
    q, k = T.unit_pair(xi)
    for est, conv in (
        ("trig", "conjugate"),
        ("trig", "literal"),
        ("positive", "conjugate"),
        ("random_phase", "conjugate"),
    ):
        assert T.mse(xi, D=D, sigma=sigma, estimator=est, convention=conv) == pytest.approx(
            rl.rff.mse(q, k, D=D, sigma=sigma, estimator=est, convention=conv), rel=1e-14
        )


def test_mse_broadcasts() -> None:
    out = T.mse(np.array([0.0, 0.5]), D=16, sigma=np.linspace(0.1, 1.5, 5)[:, None])
    assert out.shape == (5, 2)
    with pytest.raises(ValueError, match="broadcast"):
        T.mse(np.zeros(2), D=4, sigma=np.ones(3))


def test_mse_curve_monte_carlo_within_5_se() -> None:
    sig = np.array([0.3, 0.577, 1.0, 1.4])
    for D in (1, 16):
        c = T.mse_curve(0.5, D, sig, trials=20000, seed=7)
        assert np.all(np.abs(c.empirical - c.analytic) < 5 * c.stderr)
    c = T.mse_curve(0.5, 16, sig, trials=3000, seed=7, d=8, mode="full")
    assert np.all(np.abs(c.empirical - c.analytic) < 5 * c.stderr)


def test_sigma_one_beats_paper_rule_for_large_D() -> None:
    for D in (16, 256):
        assert T.mse(0.5, D=D, sigma=1.0) < T.mse(0.5, D=D, sigma=T.paper_sigma(0.5))


def test_spectra() -> None:
    rope = T.spectrum(128, "rope", base=10000.0)
    assert rope.shape == (64,) and rope[0] == 1.0
    np.testing.assert_allclose(rope, 10000.0 ** (-2 * np.arange(64) / 128), rtol=1e-14)
    rfa = T.spectrum(128, "rfa", base=10000.0, temp_max=2.0)
    phi = np.linspace(0, (1 - 1e-4) * np.pi, 64)
    np.testing.assert_allclose(rfa, 2.0 * np.tan(phi / 2) / np.tan(phi / 2).max(), rtol=1e-12)
    rfa2 = T.spectrum(128, "rfa", squared=True)
    np.testing.assert_allclose(rfa2, np.tan(phi / 2) ** 2 / (np.tan(phi / 2) ** 2).max(), rtol=1e-12)
    assert rfa.max() == pytest.approx(2.0)
