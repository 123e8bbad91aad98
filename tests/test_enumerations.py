"""Every enumeration is defined once, in the C++ core, and exposed from it (``_core.rff.estimators()``
like ``_core.spectra.window_names()``): the Python ``Literal`` types, the sweep axes and the
command-line choices that repeat the names must list exactly those names."""

from __future__ import annotations

import argparse
import re
import typing
from collections.abc import Iterator

import pytest

from ropelab import _core, _types, attention, cli, recurrence, rff, rotary, selective, simd, temperature, transition
from ropelab.sweep import _tasks


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def test_core_names_parse_and_nothing_else() -> None:
    assert tuple(_core.rff.estimators()) == ("trig", "random_phase", "positive")


def test_one_estimator_enumeration_shared_by_rff_and_attention() -> None:
    """rff and attention accept subsets of the one core enumeration, in its order; a name of the other
    module's subset is refused with a message that says which module lacks it."""
    every = list(_core.estimators())
    assert every == ["trig", "random_phase", "positive", "hyperbolic"]
    for subset in (_core.rff.estimators(), _core.attention.estimators()):
        assert [n for n in every if n in subset] == list(subset)
    assert set(_core.rff.estimators()) | set(_core.attention.estimators()) == set(every)
    with pytest.raises(ValueError, match="rff has no 'hyperbolic' estimator"):
        rff.moments([1.0, 0.0], [0.5, 0.0], 1.0, "hyperbolic")  # type: ignore[arg-type]
    assert tuple(_core.rff.conventions()) == ("conjugate", "literal")
    q, k = [0.1, 0.2], [0.3, -0.1]
    for est in _core.rff.estimators():
        assert rff.mse(q, k, D=4, sigma=1.0, estimator=est) > 0
    with pytest.raises(ValueError, match=r"estimator must be one of 'trig', 'random_phase', 'positive'"):
        rff.mse(q, k, D=4, sigma=1.0, estimator="gauss")  # type: ignore[arg-type]


def test_python_literals_are_the_core_names() -> None:
    assert typing.get_args(rff.Estimator) == rff.ESTIMATORS == tuple(_core.rff.estimators())
    assert typing.get_args(rff.Convention) == rff.CONVENTIONS == tuple(_core.rff.conventions())
    assert typing.get_args(rff.Mode) == rff.MODES == tuple(_core.rff.modes())
    # temperature's functions take the same estimator / convention names
    hints = typing.get_type_hints(temperature.unbiased_sigma, globalns=vars(temperature))
    for name, names in (("estimator", rff.ESTIMATORS), ("convention", rff.CONVENTIONS)):
        if name in hints:
            assert set(typing.get_args(hints[name])) == set(names), name


def test_rotary_and_recurrence_literals_are_the_core_names() -> None:
    assert typing.get_args(_types.Layout) == tuple(_core.rotary.layouts())
    assert typing.get_args(rotary.Accumulate) == tuple(_core.rotary.accumulations())
    # one public function per decay kind: recurrence.<kind>_attention
    for kind in _core.recurrence.decays():
        assert callable(getattr(recurrence, f"{kind}_attention")), kind


def test_command_line_choices_are_the_core_names() -> None:
    seen = {"estimator": 0, "convention": 0}
    for action in _actions(cli.build_parser()):
        if action.dest == "estimator" and action.choices is not None:
            assert tuple(action.choices) == rff.ESTIMATORS
            seen["estimator"] += 1
        if action.dest == "convention" and action.choices is not None:
            assert tuple(action.choices) == rff.CONVENTIONS
            seen["convention"] += 1
    assert seen["estimator"] >= 1 and seen["convention"] >= 1, seen
    # the rff-mse sweep's --mode is the estimate's mode
    sweep = next(a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices["sweep"]
    tasks = next(a for a in sweep._actions if isinstance(a, argparse._SubParsersAction))
    modes = [a.choices for a in tasks.choices["rff-mse"]._actions if a.dest == "mode"]
    assert [tuple(m) for m in modes if m is not None] == [rff.MODES]


@pytest.mark.parametrize(("axis", "names"), [("estimator", rff.ESTIMATORS), ("convention", rff.CONVENTIONS)])
def test_sweep_axes_are_the_core_names(axis: str, names: tuple[str, ...]) -> None:
    cell: dict[str, object] = {
        "sigma": 1.0,
        "xi": 0.5,
        "estimator": "trig",
        "convention": "conjugate",
        "D": 4,
        "d": 8,
        "mode": "projected",
    }
    for name in names:
        _tasks._rff_mse_check({**cell, axis: name})  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=rf"sweep: {axis} must be one of {list(names)!r}".replace("[", r"\[").replace("]", r"\]")
    ):
        _tasks._rff_mse_check({**cell, axis: "bogus"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("func", "param", "core_names"),
    [
        (recurrence.linear_attention, "mode", _core.recurrence.linear_modes),
        (recurrence.linear_attention, "product_start", _core.recurrence.product_starts),
        (recurrence.selective_rope_attention, "mode", _core.recurrence.selective_modes),
        (recurrence.rff_attention, "mode", _core.recurrence.direct_modes),
        (recurrence.alibi_attention, "mode", _core.recurrence.direct_modes),
        (recurrence.fox_attention, "mode", _core.recurrence.direct_modes),
        (recurrence.cosformer_attention, "mode", _core.recurrence.direct_modes),
        (transition.commutator_norm, "norm", _core.transition.norms),
        (transition.commutator_norm, "layout", _core.rotary.layouts),
        (rff.estimate, "estimator", _core.rff.estimators),
        (rff.estimate, "convention", _core.rff.conventions),
        (rff.estimate, "mode", _core.rff.modes),
        (rotary.rotate, "layout", _core.rotary.layouts),
    ],
)
def test_parameter_literals_are_the_core_names(
    func: typing.Callable[..., object], param: str, core_names: typing.Callable[[], list[str]]
) -> None:
    hints = typing.get_type_hints(func)
    assert typing.get_args(hints[param]) == tuple(core_names()), f"{func.__qualname__}({param}=...)"


def test_attention_simd_rotary_temperature_names_are_the_core_names() -> None:
    assert typing.get_args(attention.Estimator) == attention.ESTIMATORS == tuple(_core.attention.estimators())
    assert typing.get_args(simd.Isa) == simd.ISAS == tuple(_core.simd.isas())
    assert typing.get_args(simd.Primitive) == simd.PRIMITIVES == tuple(_core.simd.primitives())
    # the narrowest path first, as simd.available() lists them
    assert simd.available() == [i for i in simd.ISAS if i in simd.available()]
    # rotary activations: None in Python is the core's "none"
    assert tuple(_core.rotary.activations()) == ("none", "silu")
    for func in (rotary.short_conv, rotary.selective_angles):
        hints = typing.get_type_hints(func)
        assert {a if a is not type(None) else "none" for a in _literal_values(hints["activation"])} == set(
            _core.rotary.activations()
        ), func.__qualname__
    assert tuple(_core.temperature.methods()) == ("cubic", "brent")
    assert tuple(_core.temperature.spectrum_kinds()) == ("rope", "rfa")


def _literal_values(hint: object) -> set[object]:
    """The values of ``Literal[...] | None``: the literal's values, and ``NoneType`` for ``None``."""
    out: set[object] = set()
    for arg in typing.get_args(hint):
        out |= set(typing.get_args(arg)) if typing.get_args(arg) else {arg}
    return out


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: attention.feature_map([[0.1, 0.2]], [[1.0, 0.0]], "random_phase"),
            "estimator must be one of 'trig', 'positive', 'hyperbolic' (attention has no 'random_phase' "
            "estimator), got 'random_phase'",
        ),
        (lambda: simd.primitive_rate("sin", n=10), "kind must be one of 'normal', 'uniform', 'cos', 'exp'"),
        (lambda: simd.set_isa("sse"), "isa must be one of 'scalar', 'avx2', 'avx512', got 'sse'"),
        (
            lambda: rotary.short_conv([[1.0]], [[1.0]], activation="relu"),
            "activation must be 'none' or 'silu', got 'relu'",
        ),
        (lambda: temperature.optimal_sigma(0.5, 4, method="newton"), "method must be 'cubic' or 'brent', got 'newton'"),
        (lambda: temperature.spectrum(8, "alibi"), "kind must be 'rope' or 'rfa', got 'alibi'"),
        (lambda: selective.rotary_temperature("alibi", 0.5, 8), "kind must be 'rope' or 'rfa', got 'alibi'"),
    ],
)
def test_unknown_names_list_the_core_names(call: typing.Callable[[], object], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()
