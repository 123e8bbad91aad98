"""One argument order per concept across the package, and the deprecation path of the former orders.

The rule (CONTRIBUTING.md, "Argument order"): the data ``q, k, v`` first; ``xi`` before ``D``;
``D`` before ``sigma``; ``N`` before ``pad``; ``alpha`` before ``omega``; ``estimator`` before
``convention``; ``trials``, ``seed``, ``nthreads`` after the numerical settings. ``rff.mse`` (formerly ``q, k, sigma, D``),
``temperature.unbiased_sigma`` (formerly ``xi, convention, estimator``),
``attention.phase_precision`` (formerly ``omega, q, k``), ``temperature.mse`` (formerly
``sigma, xi, D``), ``rff.estimate`` and ``temperature.mse_curve`` (``mode`` formerly after ``seed``)
and ``simd.primitive_rate`` (``repeat`` formerly after ``nthreads``), ``rff.sample_omega`` (formerly
``D, d, sigma, seed, orthogonal``) and ``attention.rule_sigma`` (formerly ``rule, D, d, xi``) changed
order; ``spectra.ssm_window`` and
``spectra.leakage_map`` take the per-sample ``alpha`` by keyword only (test_spectra_decay.py).
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
    doc = _core.temperature.mse.__doc__ or ""
    assert doc.index("xi:") < doc.index("D:") < doc.index("sigma:") < doc.index("estimator:"), doc
    doc = _core.rff.estimate.__doc__ or ""
    assert doc.index("mode:") < doc.index("orthogonal:") < doc.index("trials:") < doc.index("seed:"), doc
    assert doc.index("seed:") < doc.index("nthreads:"), doc
    doc = _core.rff.sample_omega.__doc__ or ""
    assert doc.index("sigma:") < doc.index("orthogonal:") < doc.index("index:") < doc.index("seed:"), doc


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
    ("legacy", "kwargs"),
    [
        ((0.7, 0.3, 12), {}),
        ((np.array([0.5, 1.5]), 0.2, np.array([[4], [16]]), "positive"), {}),
        ((1.3, np.array([-0.5, 0.5]), 5, "trig", "literal"), {"log": True}),
        ((1.0, 1, 16), {}),  # an integer ξ with an integer D: the former order
        ((0.9, 0.4, np.int64(3)), {"estimator": "random_phase"}),
    ],
)
def test_temperature_mse_former_positional_order_warns_and_binds_as_before(legacy: tuple, kwargs: dict) -> None:
    sigma, xi, D = legacy[0], legacy[1], legacy[2]
    names = dict(zip(("estimator", "convention"), legacy[3:], strict=False))
    expected = temperature.mse(xi, D=D, sigma=sigma, **names, **kwargs)
    with pytest.warns(DeprecationWarning, match=r"temperature\.mse\(xi, D=\.\.\., sigma=\.\.\."):
        got = temperature.mse(*legacy, **kwargs)
    np.testing.assert_array_equal(got, expected)
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((0.5, 16, 1.0), {}, r"deprecated order \(sigma, xi, D\), got sigma=0\.5, xi=16, D=1\.0"),
        ((0.5, np.array([4, 16]), np.array([0.5, 1.0])), {}, r"deprecated order \(sigma, xi, D\)"),
        ((0.5, 16), {}, "keyword-only"),
        ((1.0, 0.5), {"D": 16}, "keyword-only"),
        ((1.0, 0.5, 16), {"sigma": 1.0}, "both positionally and by keyword"),
        ((1.0, 0.5, 16, "trig"), {"estimator": "positive"}, "both positionally and by keyword"),
        ((1.0, 0.5, 16, "trig", "conjugate", False), {}, "at most 5 positional"),
        ((0.5,), {"D": 16}, "missing keyword argument sigma"),
        ((0.5,), {"sigma": 1.0}, "missing keyword argument D"),
    ],
)
def test_temperature_mse_refuses_what_it_cannot_bind_safely(args: tuple, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=match):
            temperature.mse(*args, **kwargs)


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
    ("legacy", "kwargs"),
    [
        ((50,), {}),
        ((50, 7), {}),
        ((50, 7, "full"), {}),
        ((50, 7, "full", 2), {"orthogonal": True}),
        ((np.int64(20), 3, "projected", None), {}),
    ],
)
def test_rff_estimate_former_positional_order_warns_and_binds_as_before(legacy: tuple, kwargs: dict) -> None:
    names = dict(zip(("trials", "seed", "mode", "nthreads"), legacy, strict=False))
    expected = rff.estimate(Q, K, 16, 0.8, "random_phase", "conjugate", **names, **kwargs)
    with pytest.warns(DeprecationWarning, match=r"rff\.estimate\(q, k, D, sigma, estimator, convention, mode=\.\.\."):
        got = rff.estimate(Q, K, 16, 0.8, "random_phase", "conjugate", *legacy, **kwargs)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("full", 50), {}, r"deprecated order \(trials, seed, mode, nthreads\), got trials='full'"),
        ((50,), {"trials": 50}, "both positionally and by keyword"),
        ((50, 1, "projected"), {"mode": "full"}, "both positionally and by keyword"),
        ((50, 1, "full", 1, True), {}, "at most 10 positional"),
    ],
)
def test_rff_estimate_refuses_what_it_cannot_bind_safely(args: tuple, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=match):
            rff.estimate(Q, K, 16, 0.8, "trig", "conjugate", *args, **kwargs)


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


@pytest.mark.parametrize(
    "legacy",
    [(40,), (40, 3), (40, 3, 8, "full"), (40, 3, 8, "projected", "trig", "literal", 1)],
)
def test_mse_curve_former_positional_order_warns_and_binds_as_before(legacy: tuple) -> None:
    names = dict(zip(("trials", "seed", "d", "mode", "estimator", "convention", "nthreads"), legacy, strict=False))
    expected = temperature.mse_curve(0.5, 4, [0.5, 1.0], **names)
    with pytest.warns(DeprecationWarning, match=r"temperature\.mse_curve\(xi, D, sigmas, trials=\.\.\."):
        got = temperature.mse_curve(0.5, 4, [0.5, 1.0], *legacy)
    for f in ("analytic", "empirical", "stderr"):
        np.testing.assert_array_equal(getattr(got, f), getattr(expected, f))
    assert (got.trials, got.seed, got.d, got.mode, got.convention) == (
        expected.trials,
        expected.seed,
        expected.d,
        expected.mode,
        expected.convention,
    )


def test_mse_curve_refuses_what_it_cannot_bind_safely() -> None:
    with pytest.raises(TypeError, match="missing keyword argument trials"):
        temperature.mse_curve(0.5, 4, [1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="trials given both positionally and by keyword"):
            temperature.mse_curve(0.5, 4, [1.0], 40, trials=40)
        with pytest.raises(TypeError, match="at most 10 positional"):
            temperature.mse_curve(0.5, 4, [1.0], 40, 3, 8, "full", "trig", "conjugate", 1, 0)
    with pytest.raises(TypeError, match=r"mode"):
        temperature.mse_curve(0.5, 4, [1.0], trials=10, mode=3)  # type: ignore[arg-type]


# --- simd.primitive_rate(kind, n, repeat=..., nthreads=...), formerly (kind, n, nthreads, repeat) -


class _Recorder:
    def __init__(self) -> None:
        self.calls: list[dict] = []

    def __call__(self, **kwargs: object) -> float:
        self.calls.append(kwargs)
        return 0.0


def test_primitive_rate_orders(monkeypatch: pytest.MonkeyPatch) -> None:
    rec = _Recorder()
    monkeypatch.setattr(simd._core.simd, "run_primitive", rec)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simd.primitive_rate("cos", 64, repeat=3, nthreads=2)
    assert rec.calls == [{"kind": "cos", "n": 64, "nthreads": 2}] * 3
    rec.calls.clear()
    with pytest.warns(DeprecationWarning, match=r"simd\.primitive_rate\(kind, n, repeat=\.\.\., nthreads=\.\.\.\)"):
        simd.primitive_rate("cos", 64, 2, 3)  # the former order (nthreads, repeat)
    assert rec.calls == [{"kind": "cos", "n": 64, "nthreads": 2}] * 3
    rec.calls.clear()
    with pytest.warns(DeprecationWarning):
        simd.primitive_rate("exp", 32, None)
    assert rec.calls == [{"kind": "exp", "n": 32, "nthreads": None}] * 3


def test_primitive_rate_refuses_what_it_cannot_bind_safely() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match="nthreads given both positionally and by keyword"):
            simd.primitive_rate("cos", 64, 1, nthreads=2)
        with pytest.raises(TypeError, match="at most 4 positional"):
            simd.primitive_rate("cos", 64, 1, 1, 1)
    with pytest.raises(TypeError, match=r"simd\.primitive_rate: repeat must be an integer"):
        simd.primitive_rate("cos", 64, repeat=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"simd\.primitive_rate: repeat must be an integer >= 0"):
        simd.primitive_rate("cos", 64, repeat=-1)
    with pytest.raises(TypeError, match=r"nthreads"):
        simd.primitive_rate("cos", 64, repeat=1, nthreads="2")  # type: ignore[arg-type]


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


@pytest.mark.parametrize(
    "former_call",
    [
        lambda: rff.mse(Q, K, 0.8, 16),
        lambda: rff.estimate(Q, K, 4, 1.0, "trig", "conjugate", 3),
        lambda: temperature.mse(1.0, 0.5, 4),
        lambda: temperature.mse_curve(0.5, 4, [1.0], 3),
        lambda: simd.primitive_rate("cos", 64, 1, 1),
        lambda: rff.sample_omega(4, 3, 1.0, 2),
        lambda: attention.rule_sigma("tan", 64, 8, 0.5),
    ],
    ids=[
        "rff.mse",
        "rff.estimate",
        "temperature.mse",
        "temperature.mse_curve",
        "simd.primitive_rate",
        "rff.sample_omega",
        "attention.rule_sigma",
    ],
)
def test_the_deprecation_warning_points_at_the_caller(former_call: object) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        former_call()  # type: ignore[operator]
    assert [w.category for w in caught] == [DeprecationWarning]
    assert caught[0].filename == __file__


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
    ("legacy", "kwargs", "expected_kwargs"),
    [
        ((7,), {}, {"seed": 7}),
        ((7, True), {}, {"seed": 7, "orthogonal": True}),
        ((np.uint64(2**63), False), {"index": 3}, {"seed": np.uint64(2**63), "index": 3}),
        ((11, True), {"index": 1}, {"seed": 11, "orthogonal": True, "index": 1}),
    ],
)
def test_sample_omega_former_positional_order_warns_and_binds_as_before(
    legacy: tuple, kwargs: dict, expected_kwargs: dict
) -> None:
    expected = rff.sample_omega(6, 3, 1.2, **expected_kwargs)
    with pytest.warns(
        DeprecationWarning, match=r"rff\.sample_omega\(D, d, sigma, orthogonal=\.\.\., index=\.\.\., seed="
    ):
        got = rff.sample_omega(6, 3, 1.2, *legacy, **kwargs)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((True,), {}, r"deprecated order \(seed, orthogonal\), got seed=True"),  # reads like (orthogonal,)
        ((np.True_, 3), {}, r"deprecated order \(seed, orthogonal\)"),
        ((3,), {"seed": 4}, "seed given both positionally and by keyword"),
        ((3, True), {"orthogonal": True}, "orthogonal given both positionally and by keyword"),
        ((3, True, 0), {}, "at most 5 positional"),
    ],
)
def test_sample_omega_refuses_what_it_cannot_bind_safely(args: tuple, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=match):
            rff.sample_omega(6, 3, 1.0, *args, **kwargs)


@pytest.mark.parametrize(
    ("args", "kwargs", "name"),
    [
        ((), {"seed": "1"}, "seed"),
        ((), {"seed": 1.5}, "seed"),
        ((), {"index": "0"}, "index"),
        (("1",), {}, "seed"),
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


@pytest.mark.parametrize("rule", attention.RULES)
def test_rule_sigma_former_positional_order_warns_and_binds_as_before(rule: str) -> None:
    expected = attention.rule_sigma(rule, xi=0.4, D=32, d=6, base=500.0)  # type: ignore[arg-type]
    with pytest.warns(DeprecationWarning, match=r"attention\.rule_sigma\(rule, xi=\.\.\., D=\.\.\., d=\.\.\.\)"):
        got = attention.rule_sigma(rule, 32, 6, 0.4, base=500.0)  # type: ignore[arg-type]
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize(
    ("rule", "args", "kwargs", "match"),
    [
        ("tan", (64, 8), {}, r"D, d, xi are keyword-only"),
        ("tan", (0.5,), {}, r"keyword-only"),
        ("tan", (64, 8, 0.5, 1.0), {}, "at most 4 positional"),
        ("tan", (64, 8, 0.5), {"xi": 0.3}, "xi given both positionally and by keyword"),
        ("optimal", (64, 8, 0.5), {"D": 32}, "D given both positionally and by keyword"),
        ("tan", (), {"D": 64}, r"rule 'tan' needs xi"),
        ("optimal", (), {"xi": 0.5}, r"rule 'optimal' needs D"),
        ("optimal", (), {}, r"rule 'optimal' needs xi, D"),
        ("rope", (), {"xi": 0.5, "D": 8}, r"rule 'rope' needs d"),
    ],
)
def test_rule_sigma_refuses_what_it_cannot_bind_safely(rule: str, args: tuple, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(TypeError, match=match):
            attention.rule_sigma(rule, *args, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rule", "args", "kwargs", "name"),
    [
        ("tan", (), {"xi": "0.5"}, "xi"),
        ("optimal", (), {"xi": 0.5, "D": "64"}, "D"),
        ("rope", (), {"d": "8"}, "d"),
        ("tan", (64, 8, "0.5"), {}, "xi"),
        ("optimal", ("64", 8, 0.5), {}, "D"),
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
