"""Every enumeration is defined once, in the C++ core, and exposed from it (``_core.rff.estimators()``
like ``_core.spectra.window_names()``): the Python ``Literal`` types, the sweep axes and the
command-line choices that repeat the names must list exactly those names."""

from __future__ import annotations

import argparse
import typing
from collections.abc import Iterator

import pytest

from ropelab import _core, _types, cli, recurrence, rff, rotary, temperature, transition
from ropelab.sweep import _tasks


def _actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def test_core_names_parse_and_nothing_else() -> None:
    assert tuple(_core.rff.estimators()) == ("trig", "random_phase", "positive")
    assert tuple(_core.rff.conventions()) == ("conjugate", "literal")
    q, k = [0.1, 0.2], [0.3, -0.1]
    for est in _core.rff.estimators():
        assert rff.mse(q, k, 1.0, 4, estimator=est) > 0
    with pytest.raises(ValueError, match=r"estimator must be one of 'trig', 'random_phase', 'positive'"):
        rff.mse(q, k, 1.0, 4, estimator="gauss")  # type: ignore[arg-type]


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
    cell: dict[str, object] = {"sigma": 1.0, "xi": 0.5, "estimator": "trig", "convention": "conjugate", "D": 4}
    for name in names:
        _tasks._resolve_sigma({**cell, axis: name})  # type: ignore[arg-type]
    with pytest.raises(
        ValueError, match=rf"sweep: {axis} must be one of {list(names)!r}".replace("[", r"\[").replace("]", r"\]")
    ):
        _tasks._resolve_sigma({**cell, axis: "bogus"})  # type: ignore[arg-type]


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
