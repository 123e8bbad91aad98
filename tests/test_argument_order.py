"""One argument order per concept across the package.

The rule (CONTRIBUTING.md, "Argument order"): the data ``q, k, v`` first; ``xi`` before ``D``;
``D`` before ``sigma``; ``N`` before ``pad``; ``alpha`` before ``omega``; ``estimator`` before
``convention``; ``trials``, ``seed``, ``nthreads`` after the numerical settings; the core binds
every function in its public order.
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import ropelab as rl
from ropelab import attention, rff, simd, temperature
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


def test_unbiased_sigma_new_order() -> None:
    xi = np.array([-0.5, 0.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lit = temperature.unbiased_sigma(xi, "trig", "literal")
        np.testing.assert_allclose(lit, temperature.paper_sigma(xi), rtol=1e-15)
        assert temperature.unbiased_sigma(0.5, "positive") == 1.0
        assert temperature.unbiased_sigma(0.5, convention="literal") == pytest.approx(1 / np.sqrt(3), rel=1e-15)


def test_unknown_names_still_name_the_argument() -> None:
    with pytest.raises(ValueError, match="estimator"):
        temperature.unbiased_sigma(0.5, "gauss")  # type: ignore[arg-type]


def test_the_core_binds_the_public_order() -> None:
    doc = _core.rff.mse.__doc__ or ""
    assert doc.index("D:") < doc.index("sigma:"), doc
    doc = _core.temperature.unbiased_sigma.__doc__ or ""
    assert doc.index("estimator:") < doc.index("convention:"), doc
    doc = _core.temperature.mse.__doc__ or ""
    assert doc.index("xi:") < doc.index("D:") < doc.index("sigma:") < doc.index("estimator:"), doc
    doc = _core.rff.estimate.__doc__ or ""
    assert doc.index("mode:") < doc.index("orthogonal:") < doc.index("trials:") < doc.index("seed:"), doc
    assert doc.index("seed:") < doc.index("nthreads:"), doc
    doc = _core.rff.sample_omega.__doc__ or ""
    assert doc.index("sigma:") < doc.index("orthogonal:") < doc.index("index:") < doc.index("seed:"), doc
    doc = _core.rff.sample_phase.__doc__ or ""
    assert doc.index("D:") < doc.index("index:") < doc.index("seed:"), doc
    assert _params(rff.sample_phase) == ["D", "index", "seed"]


# --- temperature.mse(xi, D=..., sigma=...), formerly mse(sigma, xi, D) ---------------------------


def test_temperature_mse_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = temperature.mse(0.3, D=12, sigma=0.7)
        lit = temperature.mse(np.array([0.1, 0.5]), D=4, sigma=1.2, estimator="trig", convention="literal", log=True)
    # the closed form for unit norms (module docstring of ropelab.temperature)
    expected = np.e**2 / (2 * 12) * (1 - np.exp(-2 * 0.49 * 0.7)) ** 2 + (np.exp(1 - 0.49 * 0.7) - np.exp(0.3)) ** 2
    assert out == pytest.approx(expected, rel=1e-13)
    # the same number as rff.mse for a unit pair with q·k = ξ
    q, k = temperature.unit_pair(0.3, d=4)
    assert out == pytest.approx(rff.mse(q, k, D=12, sigma=0.7), rel=1e-13)
    np.testing.assert_array_equal(
        lit, [float(temperature.mse(x, D=4, sigma=1.2, convention="literal", log=True)) for x in (0.1, 0.5)]
    )


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"xi": "0.5", "D": 16, "sigma": 1.0}, "xi"),
        ({"xi": 0.5, "D": "16", "sigma": 1.0}, "D"),
        ({"xi": 0.5, "D": 16, "sigma": "1"}, "sigma"),
        ({"xi": 0.5, "D": 16, "sigma": 1.0j}, "sigma"),
        ({"xi": 0.5, "D": 16, "sigma": 1.0, "estimator": 3}, "estimator"),
    ],
)
def test_temperature_mse_wrong_types_name_the_argument(kwargs: dict, name: str) -> None:
    xi = kwargs.pop("xi")
    with pytest.raises(TypeError, match=rf"temperature\.mse: {name}\b"):
        temperature.mse(xi, **kwargs)


# --- rff.estimate and temperature.mse_curve: mode before trials, seed, nthreads ------------------


def test_rff_estimate_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = rff.estimate(Q, K, 8, 0.9, "trig", "literal", mode="full", trials=50, seed=4, nthreads=1)
        b = rff.estimate(Q, K, 8, 0.9, "trig", "literal", nthreads=2, seed=4, trials=50, mode="full")
    np.testing.assert_array_equal(a, b)
    assert a.shape == (50,)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"mode": 3}, "mode"),
        ({"trials": "50"}, "trials"),
        ({"seed": 1.5}, "seed"),
        ({"nthreads": "2"}, "nthreads"),
    ],
)
def test_rff_estimate_wrong_types_name_the_argument(kwargs: dict, name: str) -> None:
    with pytest.raises(TypeError, match=rf"rff\.estimate: {name}\b"):
        rff.estimate(Q, K, 16, 0.8, **kwargs)


def test_mse_curve_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = temperature.mse_curve(0.5, 4, [0.5, 1.0], d=8, mode="full", estimator="positive", trials=40, seed=3)
    assert (c.d, c.mode, c.estimator, c.trials, c.seed) == (8, "full", "positive", 40, 3)
    np.testing.assert_array_equal(
        c.analytic, temperature.mse(0.5, D=4, sigma=np.array([0.5, 1.0]), estimator="positive")
    )


# --- simd.primitive_rate(kind, n, repeat=..., nthreads=...), formerly (kind, n, nthreads, repeat) -


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def __call__(self, **kwargs: object) -> float:
        self.calls.append(kwargs)
        return 0.0


@pytest.mark.parametrize(
    ("fn", "before", "after"),
    [
        (rl.rff.estimate, "D", "sigma"),
        (rl.rff.mse, "D", "sigma"),
        (rl.rff.sample_omega, "D", "sigma"),
        (rl.rff.sample_omega, "orthogonal", "seed"),
        (rl.rff.sample_omega, "index", "seed"),
        (rl.attention.rule_sigma, "xi", "D"),
        (rl.attention.rule_sigma, "D", "d"),
        (rl.attention.random_feature, "D", "sigma"),
        (rl.temperature.mse_curve, "D", "sigmas"),
        (rl.temperature.optimal_sigma, "xi", "D"),
        (rl.temperature.mse, "xi", "D"),
        (rl.temperature.mse, "D", "sigma"),
        (rl.rff.estimate, "mode", "trials"),
        (rl.temperature.mse_curve, "mode", "trials"),
        (rl.temperature.mse_curve, "d", "seed"),
        (rl.simd.primitive_rate, "repeat", "nthreads"),
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


_COMPUTATION = ("estimator", "convention", "mode", "orthogonal", "method")
_RUN = ("trials", "repeat", "seed", "nthreads")


@pytest.mark.parametrize("fn", _public_functions(), ids=lambda f: f.__qualname__)
def test_computation_options_before_run_options(fn: object) -> None:
    """Rule 5, for the parameters a call can give by position (the order of keyword-only ones binds nothing)."""
    p = [
        n
        for n, q in inspect.signature(fn).parameters.items()  # type: ignore[arg-type]
        if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)
    ]
    options = [p.index(n) for n in _COMPUTATION if n in p]
    run = [p.index(n) for n in _RUN if n in p]
    if options and run:
        assert max(options) < min(run), p
    assert run == sorted(run), p


@pytest.mark.parametrize("fn", _public_functions(), ids=lambda f: f.__qualname__)
def test_xi_before_D_before_sigma(fn: object) -> None:
    """Rules 1 and 2 for every public function, keyword-only parameters included."""
    p = _params(fn)
    present = [n for n in ("xi", "D", "sigma", "sigmas") if n in p]
    assert [p.index(n) for n in present] == sorted(p.index(n) for n in present), p


def test_the_changed_functions_list_every_option_in_the_rule_order() -> None:
    """Where the options became keyword-only, the signature still lists them in the rule's order."""
    for fn in (rff.estimate, temperature.mse_curve, simd.primitive_rate, rff.sample_omega):
        p = _params(fn)
        options = [p.index(n) for n in _COMPUTATION if n in p]
        run = [p.index(n) for n in _RUN if n in p]
        assert max(options, default=-1) < min(run) and run == sorted(run), p


def test_sample_omega_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        w = rff.sample_omega(8, 4, 0.7, orthogonal=True, index=2, seed=5)
        plain = rff.sample_omega(8, 4, 0.7, seed=5)
    core = _core.rff.sample_omega(D=8, d=4, sigma=0.7, orthogonal=True, index=2, seed=5)
    np.testing.assert_array_equal(w, core)
    g = w[:4] @ w[:4].T
    np.testing.assert_allclose(g - np.diag(np.diag(g)), 0, atol=1e-12)  # the orthogonal block
    assert not np.array_equal(plain, w)


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        ((), {"seed": "1"}, "seed"),
        ((), {"seed": 1.5}, "seed"),
        ((), {"index": "0"}, "index"),
        ((), {"D": "8"}, "D"),
        ((), {"sigma": "1"}, "sigma"),
    ],
)
def test_sample_omega_wrong_types_name_the_argument(args: tuple, kwargs: dict, name: str) -> None:
    call = {"D": 4, "d": 3, "sigma": 1.0} | kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=rf"rff\.sample_omega: {name} "):
            rff.sample_omega(call.pop("D"), call.pop("d"), call.pop("sigma"), *args, **call)


def test_rule_sigma_new_order_by_keyword() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert attention.rule_sigma("one") == 1.0
        assert attention.rule_sigma("tan", xi=0.5) == temperature.paper_sigma(0.5)
        assert attention.rule_sigma("optimal", xi=0.3, D=64) == temperature.optimal_sigma(0.3, 64)
        np.testing.assert_array_equal(
            attention.rule_sigma("rfa", d=8, base=100.0), temperature.spectrum(8, "rfa", base=100.0)
        )
        assert attention.rule_sigma("optimal", xi=0.3, D=64, d=8) == temperature.optimal_sigma(0.3, 64)


@pytest.mark.parametrize(
    ("rule", "args", "kwargs", "name"),
    [
        ("tan", (), {"xi": "0.5"}, "xi"),
        ("optimal", (), {"xi": 0.5, "D": "64"}, "D"),
        ("rope", (), {"d": "8"}, "d"),
    ],
)
def test_rule_sigma_wrong_types_name_the_argument(rule: str, args: tuple, kwargs: dict, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=rf"\b{name}\b"):
            attention.rule_sigma(rule, *args, **kwargs)  # type: ignore[arg-type]


def test_rule_sigma_unknown_rule_still_raises_value_error() -> None:
    for rule in ("cos", ["tan"], None):
        with pytest.raises(ValueError, match=r"attention\.rule_sigma: rule must be one of"):
            attention.rule_sigma(rule, xi=0.5, D=8, d=4)  # type: ignore[arg-type]
