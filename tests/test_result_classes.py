"""Result structs of the C++ core bound as classes with read-only fields.

Each result's fields are listed once, by its binding (``ropelab._core``); the public classes
(``ropelab.spectra.FiguresOfMerit``, ``ropelab.temperature.Counterexample``,
``ropelab.transition.FactorDistribution``) derive from the bound ones and keep what their
dataclasses offered: every attribute, keyword construction, equality, hashing, pickling and the
package's compact repr. The field lists still written in Python (the docstrings' Attributes
sections, the sweep task's outputs) are checked against the bound ones here.
"""

from __future__ import annotations

import copy
import math
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString

import ropelab as rl
from ropelab import _core
from ropelab._display import field_names, field_types
from ropelab.sweep import _tasks

CASES: list[tuple[type, type, Callable[[], Any]]] = [
    (
        rl.spectra.FiguresOfMerit,
        _core.spectra.FiguresOfMerit,
        lambda: rl.spectra.figures_of_merit(rl.spectra.window("hann", 1024)),
    ),
    (
        rl.spectra.FiguresOfMerit,
        _core.spectra.FiguresOfMerit,
        lambda: rl.spectra.figures_of_merit(rl.spectra.ssm_window(alpha=2.0 / 256, N=256)),
    ),
    (rl.temperature.Counterexample, _core.temperature.Counterexample, lambda: rl.temperature.counterexample(0.5)),
    (
        rl.transition.FactorDistribution,
        _core.transition.FactorDistribution,
        lambda: rl.transition.prf_factor_distribution(1.0, 0.5),
    ),
]
IDS = ["fom_hann", "fom_ssm", "counterexample", "factor_distribution"]


def _same(a: Any, b: Any) -> bool:
    """Every field equal, NaN equal to NaN."""

    def eq(x: Any, y: Any) -> bool:
        if isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y):
            return True
        return bool(x == y) and type(x) is type(y)

    return type(a) is type(b) and all(eq(getattr(a, f), getattr(b, f)) for f in field_names(type(a)))


def _fields(obj: Any) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in field_names(type(obj))}


@pytest.mark.parametrize(("public", "bound", "make"), CASES, ids=IDS)
def test_the_public_class_derives_from_the_bound_one(public: type, bound: type, make: Callable[[], Any]) -> None:
    r = make()
    assert type(r) is public and isinstance(r, bound)
    assert public.__module__.startswith("ropelab.") and public.__name__ == bound.__name__
    names = field_names(public)
    assert names == field_names(bound) == bound.__match_args__  # type: ignore[attr-defined]
    # every field is a read-only property of the bound class, in the class's order
    props = [n for n, v in vars(bound).items() if isinstance(v, property)]
    assert list(names) == props
    for n in names:
        with pytest.raises(AttributeError):
            setattr(r, n, getattr(r, n))
    with pytest.raises(AttributeError):  # frozen like the dataclass it replaces: no new attributes
        r.extra = 1
    # the value types follow _field_types
    for n, t in field_types(public).items():
        v = getattr(r, n)
        allowed = {"int": (int,), "float": (float,), "bool": (bool,), "float | None": (float, type(None))}[t]
        assert isinstance(v, allowed) and (t == "bool" or not isinstance(v, bool)), (n, t, v)


@pytest.mark.parametrize(("public", "bound", "make"), CASES, ids=IDS)
def test_the_documented_attributes_are_the_bound_fields(public: type, bound: type, make: Callable[[], Any]) -> None:
    documented = [
        name.strip() for p in NumpyDocString(public.__doc__ or "")["Attributes"] for name in p.name.split(",")
    ]
    assert documented == list(field_names(bound))
    # and each bound field has its own docstring
    for n in field_names(bound):
        assert (vars(bound)[n].__doc__ or "").strip(), n


@pytest.mark.parametrize(("public", "bound", "make"), CASES, ids=IDS)
def test_construction_equality_hash_and_pickling(public: type, bound: type, make: Callable[[], Any]) -> None:
    r = make()
    fields = _fields(r)
    by_name = public(**fields)
    by_position = public(*fields.values())
    copied = public(r)
    for other in (by_name, by_position, copied, make(), copy.deepcopy(r)):
        assert _same(other, r)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(r, protocol=protocol))
        assert type(back) is public and _same(back, r)
    if not any(isinstance(v, float) and math.isnan(v) for v in fields.values()):
        assert by_name == r and hash(by_name) == hash(r)
        assert pickle.loads(pickle.dumps(r)) == r
    # equality needs the same class, as for a dataclass
    assert r != bound(**fields)
    assert r != fields
    first, value = next((k, v) for k, v in fields.items() if isinstance(v, float) and math.isfinite(v))
    assert public(**(fields | {first: value + 1.0})) != r


@pytest.mark.parametrize(("public", "bound", "make"), CASES, ids=IDS)
def test_bad_fields_raise_type_error_naming_them(public: type, bound: type, make: Callable[[], Any]) -> None:
    fields = _fields(make())
    first = next(iter(fields))
    with pytest.raises(TypeError, match=f"missing field {first}"):
        public(**{k: v for k, v in fields.items() if k != first})
    with pytest.raises(TypeError, match="unknown field bogus"):
        public(**fields, bogus=1.0)
    with pytest.raises(TypeError, match="both by position and by name"):
        public(fields[first], **fields)
    with pytest.raises(TypeError, match="at most"):
        public(*fields.values(), 0.0)
    for k, t in field_types(public).items():
        bad = 1 if t == "bool" else "x"
        with pytest.raises(TypeError, match=f"{public.__name__}: {k} must be"):
            public(**(fields | {k: bad}))


def test_figures_of_merit_fields_and_optional_ones() -> None:
    FoM = rl.spectra.FiguresOfMerit
    t = field_types(FoM)
    assert t["N"] == t["pad"] == "int"
    assert t["first_min_is_null"] == t["is_causal_exponential"] == "bool"
    assert t["decay_ratio"] == t["truncation_ripple_db"] == "float | None"
    hann = rl.spectra.figures_of_merit(rl.spectra.window("hann", 256))
    assert hann.decay_ratio is None and hann.truncation_ripple_db is None
    ssm = rl.spectra.figures_of_merit(rl.spectra.ssm_window(alpha=2.0 / 256, N=256))
    assert ssm.decay_ratio == pytest.approx(math.exp(-2.0 / 256), rel=1e-12)
    # an optional field may be omitted (None), a required one may not
    f = _fields(hann)
    del f["decay_ratio"], f["truncation_ripple_db"]
    assert _same(FoM(**f), hann)
    with pytest.raises(TypeError, match="N must be an integer"):
        FoM(**(f | {"N": 1.5}))
    with pytest.raises(TypeError, match="N must be an integer"):
        FoM(**(f | {"N": -1}))
    assert FoM(**(f | {"N": np.int64(256)})).N == 256
    # as_dict keeps the field order and is JSON-ready
    d = hann.as_dict()
    assert list(d) == list(field_names(FoM))
    assert all(not isinstance(v, float) or math.isfinite(v) for v in d.values())


def test_leakage_map_holds_the_public_class() -> None:
    m = rl.spectra.leakage_map(alpha=[0.0, 2.0 / 64], omega=[0.0, 0.3], N=64, pad=8)
    assert all(type(f) is rl.spectra.FiguresOfMerit for f in m.figures)
    assert "[2 × FiguresOfMerit]" not in repr(m)  # figures are not shown (field(repr=False))
    assert m.enbw_bins.shape == (2,)


def test_counterexample_keeps_its_derived_members() -> None:
    c = rl.temperature.counterexample(0.5)
    assert c.relative_bias_paper == pytest.approx(c.mean_paper / c.target - 1, rel=1e-15)
    assert list(c.as_dict()) == list(field_names(rl.temperature.Counterexample))
    assert rl.temperature.Counterexample(**c.as_dict()) == c
    assert set(c.optimal_sigmas((1, 4))) == {1, 4}


def test_repr_is_the_package_style() -> None:
    c = rl.temperature.counterexample(0.5)
    assert repr(c).startswith("Counterexample(\n    xi=0.5,\n    sigma_paper=0.57735,\n")  # > 100 characters
    f = rl.transition.prf_factor_distribution(1.0)
    assert repr(f) == "FactorDistribution(mean=1.64872, variance=4.67077, median=1, prob_gt_one=0.5)"
    # the bound class's own repr lists every field with its full repr
    core = _core.transition.prf_factor_distribution(delta_norm=1.0, sigma=1.0)
    assert repr(core).startswith("FactorDistribution(mean=1.6487212707")


def test_sweep_outputs_are_the_fields() -> None:
    names = [n for n in field_names(rl.spectra.FiguresOfMerit) if n not in ("N", "pad")]
    assert [n for n, _ in _tasks.WINDOW_MERIT.outputs] == names
    types = dict(_tasks.WINDOW_MERIT.outputs)
    assert types["first_min_is_null"] == "bool" and types["decay_ratio"] == "float64"


def test_field_helpers_reject_other_classes() -> None:
    with pytest.raises(TypeError, match="field_names"):
        field_names(dict)
    with pytest.raises(TypeError, match="field_types"):
        field_types(dict)
