"""One argument order per concept across the package, and the deprecation path of the former orders.

The rule (CONTRIBUTING.md, "Argument order"): the data ``q, k, v`` first; ``xi`` before ``D``;
``D`` before ``sigma``; ``N`` before ``pad``; ``alpha`` before ``omega``; ``estimator`` before
``convention``; ``trials``, ``seed``, ``nthreads`` after the numerical settings. ``rff.mse`` (formerly ``q, k, sigma, D``),
``temperature.unbiased_sigma`` (formerly ``xi, convention, estimator``) and
``attention.phase_precision`` (formerly ``omega, q, k``) changed order; ``spectra.ssm_window`` and
``spectra.leakage_map`` take the per-sample ``alpha`` by keyword (their former ``alpha_n`` first
argument is tested in test_spectra_decay.py).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import ropelab as rl
from ropelab import rff, temperature
from ropelab._core_loader import core as _core

Q = np.array([0.6, -0.2, 0.1])
K = np.array([0.3, 0.4, -0.5])


def _params(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def test_rff_mse_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = rff.mse(Q, K, D=16, sigma=0.8, estimator="positive")
    mean, var = rff.moments(Q, K, 0.8, "positive")
    assert out == pytest.approx(var / 16 + (mean - rff.kernel(Q, K)) ** 2, rel=1e-12)
    # the MSE of an unbiased estimator (σ = 1) is its variance over D
    assert rff.mse(Q, K, D=16, sigma=1.0) == pytest.approx(rff.moments(Q, K, 1.0)[1] / 16, rel=1e-13)


@pytest.mark.parametrize(
    ("legacy", "kwargs"),
    [
        ((0.8, 16), {}),
        ((np.array([0.5, 1.5]), 4, "positive"), {}),
        ((1.3, 5, "trig", "literal"), {"log": True}),
        ((2, 16), {}),  # two integers: positional arguments are the former order (sigma, D)
        ((0.7, np.int64(3)), {"estimator": "random_phase"}),
    ],
)
def test_rff_mse_former_positional_order_warns_and_binds_as_before(legacy: tuple, kwargs: dict) -> None:
    sigma, D = legacy[0], legacy[1]
    names = {"estimator": legacy[2]} if len(legacy) > 2 else {}
    if len(legacy) > 3:
        names["convention"] = legacy[3]
    expected = rff.mse(Q, K, D=D, sigma=sigma, **names, **kwargs)
    with pytest.warns(DeprecationWarning, match=r"rff\.mse\(q, k, D=\.\.\., sigma=\.\.\."):
        got = rff.mse(Q, K, *legacy, **kwargs)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((16, 0.8), {}, r"deprecated order \(sigma, D\), got sigma=16, D=0\.8"),  # reads like (D, sigma)
        ((16,), {}, "keyword-only"),
        ((0.8,), {"D": 16}, "keyword-only"),
        ((0.8, 16), {"sigma": 0.8}, "keyword-only"),
        ((0.8, 16, "trig"), {"estimator": "positive"}, "both positionally and by keyword"),
        ((0.8, 16, "trig", "conjugate", False), {}, "at most 6 positional"),
        ((), {"D": 16}, "missing keyword argument sigma"),
        ((), {"sigma": 1.0}, "missing keyword argument D"),
    ],
)
def test_rff_mse_refuses_what_it_cannot_bind_safely(args: tuple, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=match):
            rff.mse(Q, K, *args, **kwargs)


def test_unbiased_sigma_new_order() -> None:
    xi = np.array([-0.5, 0.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lit = temperature.unbiased_sigma(xi, "trig", "literal")
        np.testing.assert_allclose(lit, temperature.paper_sigma(xi), rtol=1e-15)
        assert temperature.unbiased_sigma(0.5, "positive") == 1.0
        assert temperature.unbiased_sigma(0.5, convention="literal") == pytest.approx(1 / np.sqrt(3), rel=1e-15)


@pytest.mark.parametrize(
    ("args", "expected_kwargs"),
    [
        (("literal",), {"convention": "literal"}),
        (("conjugate",), {"convention": "conjugate"}),
        (("literal", "trig"), {"estimator": "trig", "convention": "literal"}),
        (("conjugate", "positive"), {"estimator": "positive", "convention": "conjugate"}),
    ],
)
def test_unbiased_sigma_former_order_warns_and_binds_as_before(args: tuple, expected_kwargs: dict) -> None:
    xi = np.array([-0.3, 0.2, 0.9])
    expected = temperature.unbiased_sigma(xi, **expected_kwargs)
    with pytest.warns(DeprecationWarning, match=r"\(xi, estimator, convention\)"):
        got = temperature.unbiased_sigma(xi, *args)
    np.testing.assert_array_equal(got, expected)


def test_unknown_names_still_name_the_argument() -> None:
    with pytest.raises(ValueError, match="estimator"):
        temperature.unbiased_sigma(0.5, "gauss")  # type: ignore[arg-type]


def test_the_core_binds_the_public_order() -> None:
    doc = _core.rff.mse.__doc__ or ""
    assert doc.index("D:") < doc.index("sigma:"), doc
    doc = _core.temperature.unbiased_sigma.__doc__ or ""
    assert doc.index("estimator:") < doc.index("convention:"), doc


@pytest.mark.parametrize(
    ("fn", "before", "after"),
    [
        (rl.rff.estimate, "D", "sigma"),
        (rl.rff.mse, "D", "sigma"),
        (rl.rff.sample_omega, "D", "sigma"),
        (rl.attention.random_feature, "D", "sigma"),
        (rl.temperature.mse_curve, "D", "sigmas"),
        (rl.temperature.optimal_sigma, "xi", "D"),
        (rl.temperature.mse_curve, "xi", "D"),
        (rl.spectra.leakage_map, "N", "pad"),
        (rl.spectra.harris_table, "N", "pad"),
        (rl.spectra.ssm_impulse, "alpha", "omega"),
        (rl.spectra.zoh, "alpha", "omega"),
        (rl.spectra.leakage_map, "alpha", "omega"),
        (rl.spectra.ssm_window, "alpha", "N"),
        (rl.attention.phase_precision, "q", "omega"),
        (rl.attention.phase_precision, "k", "omega"),
        (rl.recurrence.rff_attention, "v", "omega"),
        (rl.recurrence.rff_increment_product, "q", "omega"),
        (rl.transition.prf_transition_factor, "q", "omega"),
    ],
)
def test_shared_concepts_in_the_same_order(fn: object, before: str, after: str) -> None:
    p = _params(fn)
    assert p.index(before) < p.index(after), f"{fn}: {p}"


def _public_functions() -> list[object]:
    mods = [rl.rff, rl.temperature, rl.attention, rl.recurrence, rl.related, rl.spectra, rl.rotary, rl.simd]
    return [getattr(m, n) for m in mods for n in m.__all__ if inspect.isfunction(getattr(m, n))]


@pytest.mark.parametrize("fn", _public_functions(), ids=lambda f: f.__qualname__)
def test_estimator_before_convention(fn: object) -> None:
    p = _params(fn)
    if "estimator" in p and "convention" in p:
        assert p.index("estimator") < p.index("convention"), p


@pytest.mark.parametrize("fn", _public_functions(), ids=lambda f: f.__qualname__)
def test_trials_seed_nthreads_in_this_order(fn: object) -> None:
    positional = [
        n
        for n, p in inspect.signature(fn).parameters.items()  # type: ignore[arg-type]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    present = [n for n in ("trials", "seed", "nthreads") if n in positional]
    assert [positional.index(n) for n in present] == sorted(positional.index(n) for n in present), positional
