"""Closed forms against an independent route: the MATH.md §1 table evaluated in mpmath at 50 digits.

The reference evaluates the formulas as printed (no expm1 tricks: 50 digits absorb the
cancellation at σ = 1e-8), from the exact double inputs. Tolerance 1e-13 relative: the core works
in extended precision, so only the final rounding to double and a few ulps remain.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import mpmath as mp
import numpy as np
import pytest

import ropelab as rl

mp.mp.dps = 50

SIGMAS = [1e-8, 1e-4, 0.3, 1.0, 1.7]
NORMS = [0.1, 1.0, 5.0, 20.0]
ESTIMATORS = [("trig", "conjugate"), ("trig", "literal"), ("random_phase", "conjugate"), ("positive", "conjugate")]


def ref_moments(q: np.ndarray, k: np.ndarray, sigma: float, est: str, conv: str) -> tuple[mp.mpf, mp.mpf]:
    qm = [mp.mpf(float(x)) for x in q]
    km = [mp.mpf(float(x)) for x in k]
    s2 = mp.mpf(sigma) ** 2
    nq2 = mp.fsum(x * x for x in qm)
    nk2 = mp.fsum(x * x for x in km)
    a = mp.fsum((x + y) ** 2 for x, y in zip(qm, km))
    b = mp.fsum((x - y) ** 2 for x, y in zip(qm, km))
    n = nq2 + nk2
    A = mp.exp(n / 2)
    if est == "positive":
        return mp.exp(s2 * a / 2 - n / 2), mp.exp(2 * s2 * a - n) - mp.exp(s2 * a - n)
    s = a if (est == "trig" and conv == "literal") else b
    mean = A * mp.exp(-s2 * s / 2)
    var = A**2 * (1 - mp.exp(-s2 * s)) ** 2 / 2
    if est == "random_phase":
        var += A**2 / 2
    return mean, var


def ref_mse(q: np.ndarray, k: np.ndarray, sigma: float, D: int, est: str, conv: str) -> mp.mpf:
    mean, var = ref_moments(q, k, sigma, est, conv)
    kappa = mp.exp(mp.fsum(mp.mpf(float(x)) * mp.mpf(float(y)) for x, y in zip(q, k)))
    return var / D + (mean - kappa) ** 2


def pairs() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(2024)
    out = []
    for nq, nk in itertools.product(NORMS, NORMS):
        u, v = rng.standard_normal((2, 6))
        out.append((nq * u / np.linalg.norm(u), nk * v / np.linalg.norm(v)))
    u = rng.standard_normal(6)
    out.append((u, u + 1e-9 * rng.standard_normal(6)))  # nearly equal: b tiny
    return out


DOUBLE_MAX = mp.mpf(np.finfo(float).max)


def check(compute: Callable[[], float], ref: mp.mpf, rel: float = 1e-13) -> None:
    """compute() agrees with ref to rel, or raises ValueError (pointing to log=True) when ref overflows."""
    if ref > DOUBLE_MAX:
        with pytest.raises(ValueError, match="log=True"):
            compute()
        return
    value = compute()
    if ref < mp.mpf(np.finfo(float).tiny):
        assert abs(value - float(ref)) <= 1e-300
    else:
        assert abs(mp.mpf(value) / ref - 1) < rel, (value, ref)


@pytest.mark.parametrize(("est", "conv"), ESTIMATORS)
def test_mse_and_moments_against_mpmath(est: str, conv: str) -> None:
    for (q, k), sigma, D in itertools.product(pairs(), SIGMAS, (1, 64)):
        ref = ref_mse(q, k, sigma, D, est, conv)
        check(lambda: rl.rff.mse(q, k, D=D, sigma=sigma, estimator=est, convention=conv), ref)
        # the log domain is finite everywhere, also where the double result overflows
        lm = rl.rff.mse(q, k, D=D, sigma=sigma, estimator=est, convention=conv, log=True)
        assert abs(mp.mpf(lm) - mp.log(ref)) < 1e-13 * max(1.0, abs(float(mp.log(ref))))
        mean, var = ref_moments(q, k, sigma, est, conv)
        check(lambda: rl.rff.moments(q, k, sigma, est, conv)[0], mean if var <= DOUBLE_MAX else var)
        check(lambda: rl.rff.moments(q, k, sigma, est, conv)[1], var if mean <= DOUBLE_MAX else mean)
        lmean, lvar = rl.rff.moments(q, k, sigma, est, conv, log=True)
        assert abs(mp.mpf(lmean) - mp.log(mean)) < 1e-13 * max(1.0, abs(float(mp.log(mean))))
        if var > 0:
            assert abs(mp.mpf(lvar) - mp.log(var)) < 1e-13 * max(1.0, abs(float(mp.log(var))))


def test_large_norms_overflow_only_in_direct_domain() -> None:
    q = np.full(4, 15.0)  # ‖q‖² + ‖k‖² = 1125: Var[X] ~ A² = e^{1125} > double max (~e^{709.8})
    k = -q / 2
    with pytest.raises(ValueError, match=r"rff\.mse: the MSE at element 0 is not finite .*log=True"):
        rl.rff.mse(q, k, D=8, sigma=1.2)
    assert np.isfinite(rl.rff.mse(q, k, D=8, sigma=1.2, log=True))


def test_temperature_mse_against_mpmath_unit_norms() -> None:
    for xi, sigma, D in itertools.product([-0.9, 0.0, 0.5, 0.999], SIGMAS, [1, 16, 10**6]):
        x, s = mp.mpf(xi), mp.mpf(sigma)
        u, c = mp.exp(-(s**2) * (1 - x)), mp.exp(x - 1)
        ref = mp.e**2 * ((1 - u**2) ** 2 / (2 * D) + (u - c) ** 2)
        check(lambda: rl.temperature.mse(xi, D=D, sigma=sigma), ref)


def test_cubic_root_against_mpmath_bracketing() -> None:
    """σ* from the cubic u³ + (D−1)u − D e^{ξ−1} = 0 solved by 50-digit bracketing in (0, 1]."""
    for xi, D in itertools.product([-0.9, 0.1, 0.9], [1, 7, 1000, 10**6]):
        c = mp.exp(mp.mpf(xi) - 1)
        u = mp.findroot(lambda t: t**3 + (D - 1) * t - D * c, (mp.mpf(0), mp.mpf(1)), solver="anderson")
        assert 0 < u <= 1
        sigma_ref = mp.sqrt(-mp.log(u) / (1 - mp.mpf(xi)))
        assert abs(rl.temperature.optimal_sigma(xi, D) / sigma_ref - 1) < 1e-13
