"""Result structs of the C++ core bound as classes with read-only fields.

Each result's fields are listed once, by its binding (``ropelab._core``); the public classes
(``ropelab.spectra.FiguresOfMerit``, ``ropelab.temperature.Counterexample``,
``ropelab.transition.FactorDistribution``) derive from the bound ones and keep what their
dataclasses offered: every attribute, keyword construction, equality, hashing, pickling and the
package's compact repr. Each field is described once, by the binding (``_field_docs``) or, for a
Python dataclass result, next to the field (``field_doc``); every result class's Attributes
section is generated from that, which is checked here together with ``help()`` and the stubs.
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
from ropelab._display import field_names, field_types, number_html
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
    assert "[2 × FiguresOfMerit]" not in repr(m)  # figures are not shown (_hidden_fields)
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


# ---------------------------------------------------------------------------------------------
# LeakageMap, WindowInfo and WindowParameter: fields that are arrays, strings and lists
# ---------------------------------------------------------------------------------------------

#: leakage_map([0, 2, 8], [0, 0.3, 1.1], N=32, pad=8) as the former struct -> dict path returned
#: it (the dict's "scalloping_db", "bin_leakage_factor", "far_leakage_db"; its "window" rows'
#: highest_sidelobe_db, first_min_bins, enbw_bins), computed before the change.
OLD_MAP = {
    "tone_scalloping_loss_db": [
        [-0.0, 3.4541759491643873, 2.3890055880219245],
        [-0.0, 2.6966298961595574, 1.9027730618364447],
        [-0.0, 0.550592077677057, 0.3969414967065172],
    ],
    "bin_leakage_factor": [
        [0.0, 0.5485783279073939, 0.42310145822054646],
        [0.2381579454187096, 0.5905489841486933, 0.5084274352810043],
        [0.7488678184527833, 0.7787704369583666, 0.7708033742403695],
    ],
    "far_leakage_db": [
        [-math.inf, -17.752301409782206, -17.914793891811662],
        [-16.016362942554263, -15.438811272392899, -15.354805156079044],
        [-5.344332583534909, -6.694031993742195, -6.4913030240072835],
    ],
}
OLD_FIGURES = [
    (-13.232886761813454, 1.0, 1.0),
    (-10.766136841759637, 1.1511296530201904, 1.312608032054101),
    (-math.inf, 16.0, 3.9819667628379394),
]
#: _core.spectra.window_info(name): the former dict path's values, with the fields of the window
#: table (ranges, fall-off order, scipy and Harris names) added.
OLD_INFO: dict[str, dict[str, Any]] = {
    "kaiser": {
        "name": "kaiser",
        "parameters": [
            {
                "name": "beta",
                "alternatives": ["alpha"],
                "required": True,
                "default": "",
                "description": "shape beta in [0, 700]; alternative: Harris's alpha = beta/pi",
                "range": "in [0, 700] (I0(beta) overflows above)",
                "alternative_ranges": ["in [0, 700/pi] (I0(pi alpha) overflows above)"],
            }
        ],
        "symmetry": "both",
        "falloff_order": 0,
        "scipy_name": "kaiser",
        "harris_name": "Kaiser-Bessel",
        "aliases": ["kaiser_bessel"],
        "definition": "I0(beta sqrt(1 - x^2))/I0(beta)",
    },
    "chebwin": {
        "name": "chebyshev",
        "parameters": [
            {
                "name": "at",
                "alternatives": ["attenuation", "alpha"],
                "required": True,
                "default": "",
                "description": "sidelobe attenuation in dB (non-zero, |at| <= 3000; a negative value is read "
                "as |at|, as in scipy); alternatives: attenuation (dB), Harris's alpha = at/20",
                "range": "non-zero with |at| <= 3000 dB (negative: read as |at|)",
                "alternative_ranges": ["non-zero with |at| <= 3000 dB (negative: read as |at|)", "in (0, 150]"],
            }
        ],
        "symmetry": "both",
        "falloff_order": -1,
        "scipy_name": "chebwin",
        "harris_name": "Dolph-Chebyshev",
        "aliases": ["chebwin", "dolph_chebyshev"],
        "definition": "Dolph-Chebyshev, sidelobes at -at dB (scipy's construction)",
    },
    "exponential": {
        "name": "exponential",
        "parameters": [
            {
                "name": "tau",
                "alternatives": [],
                "required": False,
                "default": "1.0",
                "description": "decay length in samples (> 0): exp(-|n - center|/tau)",
                "range": "> 0",
                "alternative_ranges": [],
            },
            {
                "name": "center",
                "alternatives": [],
                "required": False,
                "default": "None",
                "description": "the centre in samples (default L/2; needs sym=False)",
                "range": "finite",
                "alternative_ranges": [],
            },
        ],
        "symmetry": "both",
        "falloff_order": 0,
        "scipy_name": "exponential",
        "harris_name": "",
        "aliases": [],
        "definition": "scipy's exp(-|n - center|/tau), centre L/2 by default",
    },
    "ssm": {
        "name": "ssm",
        "parameters": [
            {
                "name": "alpha",
                "alternatives": [],
                "required": True,
                "default": "",
                "description": "decay per sample of the causal SSM window exp(-alpha n) (>= 0; alpha*N is the "
                "decay over the window)",
                "range": ">= 0",
                "alternative_ranges": [],
            },
        ],
        "symmetry": "dft-even",
        "falloff_order": 0,
        "scipy_name": "",
        "harris_name": "",
        "aliases": [],
        "definition": "the causal SSM window exp(-alpha n) of a mode decaying alpha per sample",
    },
}


def _leakage_map(alpha_n: list[float], omega: list[float], N: int, pad: int) -> Any:
    """spectra.leakage_map with the decays per sample ``alpha = alpha_n / N`` (exact for these values)."""
    return rl.spectra.leakage_map(alpha=[a / N for a in alpha_n], omega=omega, N=N, pad=pad)


def _map() -> Any:
    return _leakage_map([0.0, 2.0, 8.0], [0.0, 0.3, 1.1], N=32, pad=8)


def _info_dict(info: Any) -> dict[str, Any]:
    return {
        "name": info.name,
        "parameters": [{f: getattr(p, f) for f in field_names(type(p))} for p in info.parameters],
        "symmetry": info.symmetry,
        "falloff_order": info.falloff_order,
        "scipy_name": info.scipy_name,
        "harris_name": info.harris_name,
        "aliases": info.aliases,
        "definition": info.definition,
    }


def test_leakage_map_values_are_those_of_the_dict_path() -> None:
    m = _map()
    for name, old in OLD_MAP.items():
        a = getattr(m, name)
        assert type(a) is np.ndarray and a.dtype == np.float64 and a.shape == (3, 3)
        assert a.tolist() == old, name
    assert [(f.highest_sidelobe_db, f.first_min_bins, f.enbw_bins) for f in m.figures] == OLD_FIGURES
    assert m.alpha.tolist() == [0.0, 2.0 / 32, 8.0 / 32] and m.omega.tolist() == [0.0, 0.3, 1.1]
    assert m.decay_over_window.tolist() == [0.0, 2.0, 8.0]
    assert (m.N, m.pad) == (32, 8)
    # the per-row properties read from the figures, as before
    assert m.highest_sidelobe_db.tolist() == [f[0] for f in OLD_FIGURES]


def test_leakage_map_is_a_bound_result_class() -> None:
    m = _map()
    public, bound = rl.spectra.LeakageMap, _core.spectra.LeakageMap
    assert type(m) is public and isinstance(m, bound) and public.__name__ == bound.__name__
    names = field_names(public)
    assert names == (
        "alpha",
        "omega",
        "N",
        "pad",
        "figures",
        "tone_scalloping_loss_db",
        "bin_leakage_factor",
        "far_leakage_db",
    )
    assert names == bound.__match_args__  # type: ignore[attr-defined]
    assert [n for n, v in vars(bound).items() if isinstance(v, property)] == list(names)
    documented = [n.strip() for p in NumpyDocString(public.__doc__ or "")["Attributes"] for n in p.name.split(",")]
    assert documented == list(names)
    types = field_types(public)
    assert types["alpha"] == "ndarray[float64, (A,)]" and types["omega"] == "ndarray[float64, (W,)]"
    assert types["N"] == types["pad"] == "int" and types["figures"] == "tuple[FiguresOfMerit, ...]"
    for n in ("tone_scalloping_loss_db", "bin_leakage_factor", "far_leakage_db"):
        assert types[n] == "ndarray[float64, (A, W)]"
        assert "float64, shape (A, W)" in (vars(bound)[n].__doc__ or "")
    # read-only: no field can be set, no attribute added, no array written
    for n in names:
        with pytest.raises(AttributeError):
            setattr(m, n, getattr(m, n))
    with pytest.raises(AttributeError):
        m.extra = 1
    for n in ("alpha", "omega", "far_leakage_db"):
        a = getattr(m, n)
        assert not a.flags.writeable and a.flags.c_contiguous and a is getattr(m, n)
        with pytest.raises(ValueError, match="read-only"):
            a[0] = 1.0
    assert type(m.figures) is tuple and all(type(f) is rl.spectra.FiguresOfMerit for f in m.figures)
    # the core returns the bound class (figures bound too); the wrapper makes them public
    core = _core.spectra.leakage_map([0.0, 1.0 / 16, 0.25], [0.0, 0.3, 1.1], 32, 8)  # the types only
    assert type(core) is bound and all(type(f) is _core.spectra.FiguresOfMerit for f in core.figures)


def test_leakage_map_construction_equality_hash_pickling() -> None:
    def make() -> Any:  # no NaN among the figures (α·N = 8 has highest_sidelobe_bins = nan)
        return _leakage_map([0.0, 2.0, 4.0], [0.0, 0.3, 1.1], N=32, pad=8)

    m = make()
    fields = {n: getattr(m, n) for n in field_names(type(m))}
    assert not any(isinstance(v, float) and math.isnan(v) for f in m.figures for v in _fields(f).values())
    LM = rl.spectra.LeakageMap
    for other in (LM(**fields), LM(*fields.values()), LM(m), copy.deepcopy(m), make()):
        assert type(other) is LM and other == m and hash(other) == hash(m)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(m, protocol=protocol))
        assert type(back) is LM and back == m and type(back.figures[0]) is rl.spectra.FiguresOfMerit
    # the constructor copies arrays (any real array-like) into new read-only float64 arrays
    an = np.array([0, 2, 4]) / 32
    built = LM(**(fields | {"alpha": an}))
    assert built == m and built.alpha.dtype == np.float64 and not np.shares_memory(built.alpha, an)
    an[0] = 5
    assert built.alpha[0] == 0.0
    assert LM(**(fields | {"omega": [0.0, 0.3, 1.1]})) == m
    assert LM(**(fields | {"figures": list(m.figures)})) == m
    # as for FiguresOfMerit, a NaN is unequal to itself: a map whose figures hold one is unequal
    # to its copy (NaN in an array field likewise)
    assert _map() != _map()
    nan_grid = m.bin_leakage_factor.copy()
    nan_grid[0, 0] = np.nan
    assert LM(**(fields | {"bin_leakage_factor": nan_grid})) != LM(**(fields | {"bin_leakage_factor": nan_grid}))
    # unequal: another class, one value changed
    assert m != _core.spectra.LeakageMap(**fields) and m != fields
    grid = m.bin_leakage_factor.copy()
    grid[1, 1] += 1e-12
    assert LM(**(fields | {"bin_leakage_factor": grid})) != m
    assert LM(**(fields | {"pad": 9})) != m


def test_leakage_map_bad_fields() -> None:
    m = _map()
    fields = {n: getattr(m, n) for n in field_names(type(m))}
    LM = rl.spectra.LeakageMap
    with pytest.raises(TypeError, match="missing field figures"):
        LM(**{k: v for k, v in fields.items() if k != "figures"})
    with pytest.raises(TypeError, match="unknown field bogus"):
        LM(**fields, bogus=1)
    with pytest.raises(TypeError, match=r"LeakageMap: alpha must be ndarray\[float64, \(A,\)\] \(real numbers\)"):
        LM(**(fields | {"alpha": ["x", "y", "z"]}))
    with pytest.raises(TypeError, match="LeakageMap: far_leakage_db must be"):
        LM(**(fields | {"far_leakage_db": m.far_leakage_db + 0j}))
    with pytest.raises(ValueError, match=r"LeakageMap: omega must have 1 dimension\(s\)"):
        LM(**(fields | {"omega": 0.3}))
    with pytest.raises(ValueError, match=r"must have the shape \(len\(alpha\), len\(omega\)\) = \(3, 2\)"):
        LM(**(fields | {"omega": [0.0, 0.3]}))
    with pytest.raises(ValueError, match="figures must hold one result per alpha"):
        LM(**(fields | {"figures": m.figures[:2]}))
    with pytest.raises(TypeError, match=r"LeakageMap: figures must be tuple\[FiguresOfMerit, \.\.\.\]"):
        LM(**(fields | {"figures": (1.0, 2.0, 3.0)}))
    with pytest.raises(TypeError, match="LeakageMap: N must be an integer"):
        LM(**(fields | {"N": 32.5}))
    # a pickled state is rebuilt by the constructor (the base's __reduce__), so it is checked too
    cls, state = m.__reduce__()
    with pytest.raises(ValueError, match=r"must have the shape \(len\(alpha\), len\(omega\)\) = \(3, 1\)"):
        cls(*(state[0], state[1][:1], *state[2:]))


def test_leakage_map_repr_hides_the_grids() -> None:
    m = _leakage_map([0.0, 2.0], [0.0, 0.3], N=64, pad=8)
    assert repr(m) == (
        "LeakageMap(\n"
        "    alpha=array(shape=(2,), float64, min=0, max=0.03125),\n"
        "    omega=array(shape=(2,), float64, min=0, max=0.3),\n"
        "    N=64,\n"
        "    pad=8,\n"
        ")"
    )
    html = m._repr_html_()
    # the fields table (4 inputs), then the leakage: a header and one row per decay, with units
    fields, leakage = html.split("</table>", 1)
    assert fields.count("<tr>") == 4 and "far_leakage_db" not in html
    assert leakage.count("<tr>") == 3 and "highest sidelobe" in leakage and "far leakage over ω" in leakage
    far = number_html(float(np.max(m.far_leakage_db[1])), "dB")
    assert far in leakage and "&#8239;dB" in leakage
    assert set(type(m)._hidden_fields) <= set(field_names(type(m)))


@pytest.mark.parametrize("name", sorted(OLD_INFO))
def test_window_info_values_are_those_of_the_dict_path(name: str) -> None:
    info = _core.spectra.window_info(name=name)
    assert type(info) is _core.spectra.WindowInfo
    assert _info_dict(info) == OLD_INFO[name]
    assert all(type(p) is _core.spectra.WindowParameter for p in info.parameters)


def test_window_info_classes() -> None:
    WI, WP = _core.spectra.WindowInfo, _core.spectra.WindowParameter
    assert field_names(WI) == (
        "name",
        "parameters",
        "symmetry",
        "falloff_order",
        "scipy_name",
        "harris_name",
        "aliases",
        "definition",
    )
    assert field_names(WP) == (
        "name",
        "alternatives",
        "required",
        "default",
        "description",
        "range",
        "alternative_ranges",
    )
    assert field_types(WI) == {
        "name": "str",
        "parameters": "list[WindowParameter]",
        "symmetry": "str",
        "falloff_order": "float",
        "scipy_name": "str",
        "harris_name": "str",
        "aliases": "list[str]",
        "definition": "str",
    }
    assert field_types(WP)["alternatives"] == "list[str]" and field_types(WP)["required"] == "bool"
    info = _core.spectra.window_info(name="exponential")
    for obj in (info, info.parameters[0]):
        for n in field_names(type(obj)):
            with pytest.raises(AttributeError):
                setattr(obj, n, getattr(obj, n))
    # construction, equality, hashing (lists hashed as tuples), pickling
    p = info.parameters[1]
    assert WP(**{f: getattr(p, f) for f in field_names(WP)}) == p
    again = WI(**({f: getattr(info, f) for f in field_names(WI)} | {"parameters": list(info.parameters)}))
    assert again == info and hash(again) == hash(info)
    assert pickle.loads(pickle.dumps(info)) == info
    rest = {"falloff_order": 0, "scipy_name": "", "harris_name": "", "aliases": [], "definition": ""}
    assert WI(name="x", parameters=[], symmetry="both", **rest) != info
    with pytest.raises(TypeError, match=r"WindowInfo: parameters must be list\[WindowParameter\]"):
        WI(name="x", parameters=[{"name": "a"}], symmetry="both", **rest)
    with pytest.raises(TypeError, match="WindowParameter: name must be str, got 1"):
        WP(**({f: getattr(p, f) for f in field_names(WP)} | {"name": 1}))
    with pytest.raises(TypeError, match="WindowParameter: required must be a bool"):
        WP(**({f: getattr(p, f) for f in field_names(WP)} | {"required": "yes"}))
    with pytest.raises(ValueError, match="spectra.window: name must be a window name"):
        _core.spectra.window_info(name="nonesuch")


def test_windows_table_is_read_from_window_info() -> None:
    for name, params in rl.spectra.WINDOWS.items():
        info = _core.spectra.window_info(name=name)
        assert info.name == name
        assert params == tuple(n for p in info.parameters for n in [p.name, *p.alternatives])


# -- each result described once: the Attributes sections are generated ---------------------------

#: Every public result class whose Attributes section is written from its field declarations:
#: the classes bound from C++ (their binding documents each field) and the Python dataclasses
#: (``field(metadata=field_doc(...))``).
DOCUMENTED: list[type] = [
    rl.spectra.FiguresOfMerit,
    rl.spectra.WindowInfo,
    rl.spectra.LeakageMap,
    rl.temperature.Counterexample,
    rl.transition.FactorDistribution,
    rl.temperature.MSECurve,
    rl.attention.AttentionError,
    rl.attention.AnglePrecision,
    rl.tasks.Group,
    rl.tasks.StateTracking,
    rl.tasks.MQAR,
    rl.tasks.Copying,
    rl.extrapolation.Scaling,
    rl.extrapolation.UnseenAngles,
]
#: Result classes outside this scheme, each with the reason (checked to be exactly those found).
NOT_DOCUMENTED: dict[str, str] = {
    "ropelab.claims.ClaimResult": "the claims package's record; its fields repeat Claim and Evidence",
    "ropelab.attention.RandomFeatureParts": "a NamedTuple (unpacked as numerator, denominator)",
}
#: Public records that are not results (inputs and specifications), each with the reason.
NOT_RESULTS: dict[str, str] = {
    "ropelab.claims.Claim": "a claim's declaration (the registry's input)",
    "ropelab.claims.Evidence": "what a check returns to the registry, not to users",
    "ropelab.selective.SelectiveWeights": "the weights a user passes in",
    "ropelab.sweep.Grid": "a sweep's specification",
    "ropelab.sweep.Task": "a sweep task's specification",
}


def _public_result_classes() -> dict[str, type]:
    """Every public class of the package that is a result: bound from C++ or showing itself as one."""
    import dataclasses
    import importlib
    import pkgutil

    from ropelab._display import ResultDisplay

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(rl.__path__, "ropelab."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        mod = importlib.import_module(info.name)
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            if not isinstance(obj, type):
                continue
            record = dataclasses.is_dataclass(obj) or (issubclass(obj, tuple) and hasattr(obj, "_fields"))
            qual = f"{obj.__module__.rsplit('._', 1)[0]}.{obj.__name__}"
            if issubclass(obj, (ResultDisplay, _core.result.Result)) or (record and qual not in NOT_RESULTS):
                found.setdefault(qual, obj)
    return found


def _described(cls: type) -> dict[str, tuple[str, str]]:
    """name -> (type, doc) from the class's declarations (binding or dataclass fields)."""
    import dataclasses

    from ropelab._display import field_docs

    if dataclasses.is_dataclass(cls):
        return {f.name: (str(f.metadata.get("type", f.type)), f.metadata["doc"]) for f in dataclasses.fields(cls)}
    return {n: (field_types(cls)[n], field_docs(cls)[n]) for n in field_names(cls)}


def test_every_public_result_class_is_documented_from_its_fields() -> None:
    found = _public_result_classes()
    documented = {f"{c.__module__}.{c.__name__}" for c in DOCUMENTED}
    assert set(found) == documented | set(NOT_DOCUMENTED)


@pytest.mark.parametrize("cls", DOCUMENTED, ids=lambda c: c.__name__)
def test_attributes_section_is_generated_once_per_field(cls: type) -> None:
    import inspect

    described = _described(cls)
    section = NumpyDocString(cls.__doc__ or "")["Attributes"]
    # one entry per field, in order, each naming one field (no grouped "a, b : float")
    assert [p.name for p in section] == list(described)
    for p in section:
        doc = described[p.name][1]
        assert " ".join(doc.split()) and " ".join(p.desc) == " ".join(doc.split()), p.name
        assert p.type, p.name
    # exactly one Attributes section, none written by hand in the source
    assert (cls.__doc__ or "").count("\nAttributes\n") == 1
    source = inspect.getsource(cls)
    assert "Attributes\n" not in source.split('"""')[1]
    # the section comes before Notes/Examples, where a class has them
    text = cls.__doc__ or ""
    for later in ("\nNotes\n", "\nExamples\n"):
        if later in text:
            assert text.index("\nAttributes\n") < text.index(later)


@pytest.mark.parametrize("cls", DOCUMENTED, ids=lambda c: c.__name__)
def test_help_shows_every_field_doc(cls: type) -> None:
    import pydoc

    text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    page = " ".join(" ".join(line.lstrip(" |") for line in text.splitlines()).split())  # no "|" margin
    for name, (_, doc) in _described(cls).items():
        assert f"{name} : " in page and " ".join(doc.split()) in page, name


def test_the_bound_field_docs_are_those_of_the_properties_and_the_stubs() -> None:
    import ast
    from pathlib import Path

    from ropelab._display import field_docs

    stubs = Path(rl.__file__).parent / "_core"
    for bound in (
        _core.spectra.FiguresOfMerit,
        _core.spectra.LeakageMap,
        _core.spectra.WindowInfo,
        _core.spectra.WindowParameter,
        _core.temperature.Counterexample,
        _core.transition.FactorDistribution,
    ):
        docs = field_docs(bound)
        assert list(docs) == list(field_names(bound)) and all(d.strip() for d in docs.values())
        for n, d in docs.items():
            assert vars(bound)[n].__doc__ == d
        module = bound.__module__.rsplit(".", 1)[1]
        tree = ast.parse((stubs / f"{module}.pyi").read_text(encoding="utf-8"))
        cls = next(c for c in tree.body if isinstance(c, ast.ClassDef) and c.name == bound.__name__)
        in_stub = {
            f.name: " ".join((ast.get_docstring(f) or "").split())
            for f in cls.body
            if isinstance(f, ast.FunctionDef) and any(getattr(d, "id", "") == "property" for d in f.decorator_list)
        }
        assert in_stub == {n: " ".join(d.split()) for n, d in docs.items()}, bound.__name__


def test_document_fields_refuses_hand_written_or_missing_docs() -> None:
    from dataclasses import dataclass, field

    from ropelab._display import document_fields, field_doc

    @dataclass(frozen=True)
    class HandWritten:
        """A result.

        Attributes
        ----------
        x : int
            By hand.
        """

        x: int = field(metadata=field_doc("The x."))

    with pytest.raises(TypeError, match="Attributes section by hand"):
        document_fields(HandWritten)

    @dataclass(frozen=True)
    class Missing:
        """A result."""

        x: int = field(metadata=field_doc("The x."))
        y: int = 0

    with pytest.raises(TypeError, match="Missing.y: no doc"):
        document_fields(Missing)

    @document_fields
    @dataclass(frozen=True)
    class Good:
        """A result.

        Examples
        --------
        >>> Good(1).x
        1
        """

        x: int = field(metadata=field_doc("The x.", type="int >= 0"))

    assert (Good.__doc__ or "").split("\n") == [
        "A result.",
        "",
        "Attributes",
        "----------",
        "x : int >= 0",
        "    The x.",
        "",
        "Examples",
        "--------",
        ">>> Good(1).x",
        "1",
        "",
    ]


def test_html_rows_carry_the_field_docs_as_titles() -> None:
    r = rl.transition.prf_factor_distribution(1.0, 0.5)
    html = r._repr_html_()
    assert "<th style='text-align:left' title='1.'>median</th>" in html
    scaling = rl.extrapolation.scaled_frequencies(8)
    assert "title='The rule.'>rule</th>" in scaling._repr_html_()


def test_leakage_map_per_alpha_properties_read_the_figures() -> None:
    m = _map()
    per_alpha = [n for n, v in vars(rl.spectra.LeakageMap).items() if isinstance(v, property)]
    assert per_alpha == [
        "decay_over_window",
        "highest_sidelobe_db",
        "first_min_db",
        "first_min_bins",
        "enbw_bins",
        "bandwidth_3db_bins",
        "scalloping_loss_db",
        "leakage_factor",
        "truncation_ripple_db",
    ]
    for name in per_alpha[1:]:
        assert name in field_names(rl.spectra.FiguresOfMerit)
        doc = vars(rl.spectra.LeakageMap)[name].__doc__ or ""
        assert f":attr:`FiguresOfMerit.{name}`" in doc and "Returns" in doc
        values = getattr(m, name)
        assert type(values) is np.ndarray and values.dtype == np.float64 and values.shape == (3,)
        expected = [math.nan if getattr(f, name) is None else getattr(f, name) for f in m.figures]
        np.testing.assert_array_equal(values, expected)
