"""Issue 25's rules over every public callable of ropelab (a registry derived from the package).

The registry is the set of public callables found by introspection: every module of
``ropelab.__all__``, every name of its ``__all__`` that is a function, every public class's
constructor and every public method of those classes that takes arguments. Each has a valid
example call in ``EXAMPLES`` (tiny inputs), or an entry in ``EXCLUDED`` saying why generated data
cannot call it (it writes files, starts processes or clusters, plots, or is a plain result
record); ``test_registry_is_complete`` fails for a new public callable that has neither.

The sweep (hypothesis, a fixed number of examples per callable) perturbs one argument of the
example call at a time and asserts:

* rule 1: finite input gives finite output (or a ValueError);
* rule 2: only ValueError/TypeError/MemoryError leave the call, and the message names the function
  and the perturbed argument;
* rule 5: complex where real is expected, booleans as numbers, non-integers and integers beyond
  int64 as integers, and ``seed=None`` are refused;
* rule 6: float32, NumPy scalar types, Fortran order, strided and read-only inputs give the
  results of the plain float64 call (to float32 precision where the input was float32), and no
  result shares memory with an input.
"""

from __future__ import annotations

import importlib
import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import is_dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import ropelab

ALLOWED = (ValueError, TypeError, MemoryError)
RNG = np.random.default_rng(2525)
Q, K, V = 0.5 * RNG.standard_normal((3, 6, 4))
ANG = np.cumsum(0.3 * RNG.standard_normal((6, 2)), axis=0)
GATES = RNG.uniform(0.5, 1.0, size=6)
W44 = RNG.standard_normal((2, 4, 4))
TOK = np.array([[0, 1, 2, 1, 0, 2]])
H8 = RNG.standard_normal((6, 8))

Example = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def _weights() -> Any:
    from ropelab import selective

    r = np.random.default_rng(1)
    return selective.SelectiveWeights(
        r.standard_normal((4, 8)), r.standard_normal((4, 4)), np.array([1.0, 0.01]), num_heads=2
    )


def _state() -> Any:
    from ropelab import selective

    return selective.SelectiveState(_weights(), 1)


def _attention_error() -> Any:
    from ropelab import attention

    return attention.error(Q, K, V, [4, 8], rules=("one",), trials=2)


def _grid() -> Any:
    from ropelab import sweep

    return sweep.Grid.from_mapping({"xi": [0.0, 0.5], "D": [4, 8]})


def _e(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[[], Example]:
    return lambda: (fn, args, kwargs)


def _m(make: Callable[[], Any], method: str, *args: Any, **kwargs: Any) -> Callable[[], Example]:
    return lambda: (getattr(make(), method), args, kwargs)


def _examples() -> dict[str, Callable[[], Example]]:
    from ropelab import (
        attention,
        expressivity,
        extrapolation,
        recurrence,
        related,
        rff,
        rotary,
        selective,
        simd,
        spectra,
        sweep,
        tasks,
        temperature,
        transition,
    )

    x2 = np.array([0.6, 0.8])
    return {
        "rff.moments": _e(rff.moments, x2, x2[::-1], 1.0),
        "rff.mse": _e(rff.mse, x2, x2[::-1], 8, 1.0),
        "rff.estimate": _e(rff.estimate, x2, x2[::-1], 8, 1.0, trials=2, seed=1),
        "rff.feature_map": _e(rff.feature_map, Q, W44[0]),
        "rff.sample_omega": _e(rff.sample_omega, 4, 3, 1.0, seed=1),
        "rff.sample_phase": _e(rff.sample_phase, 4, seed=1),
        "rff.kernel": _e(rff.kernel, x2, x2[::-1]),
        "temperature.paper_sigma": _e(temperature.paper_sigma, np.array([0.2, 0.5])),
        "temperature.unbiased_sigma": _e(temperature.unbiased_sigma, np.array([0.2, 0.5])),
        "temperature.mse": _e(temperature.mse, 0.5, 8, np.array([0.5, 1.0])),
        "temperature.optimal_sigma": _e(temperature.optimal_sigma, 0.5, 8),
        "temperature.counterexample": _e(temperature.counterexample, 0.5),
        "temperature.Counterexample.optimal_sigmas": _m(
            lambda: temperature.counterexample(0.5), "optimal_sigmas", (1, 4)
        ),
        "temperature.mse_curve": _e(temperature.mse_curve, 0.5, 4, np.array([0.5, 1.0]), d=4, trials=2),
        "temperature.spectrum": _e(temperature.spectrum, 8),
        "temperature.unit_pair": _e(temperature.unit_pair, 0.5, 4),
        "rotary.frequencies": _e(rotary.frequencies, 8),
        "rotary.rope_angles": _e(rotary.rope_angles, np.arange(4.0), 4),
        "rotary.rotate": _e(rotary.rotate, Q, ANG),
        "rotary.layout_permutation": _e(rotary.layout_permutation, 8),
        "rotary.cumulative_angles": _e(rotary.cumulative_angles, ANG, np.array([1.0, 0.5])),
        "rotary.short_conv": _e(rotary.short_conv, ANG, np.array([[0.5, 1.0], [1.0, -0.5]])),
        "rotary.selective_angles": _e(rotary.selective_angles, ANG, np.array([[0.5, 1.0], [1.0, -0.5]])),
        "rotary.decay_bound": _e(rotary.decay_bound, np.array([1.0, 10.0]), 8),
        "rotary.rotation_matrix": _e(rotary.rotation_matrix, ANG[0]),
        "rotary.realify": _e(rotary.realify, np.array([1 + 1j, 0.5j])),
        "rotary.complexify": _e(rotary.complexify, Q[0]),
        "rotary.realify_diagonal": _e(rotary.realify_diagonal, np.array([1j, 0.5 + 0.1j])),
        "rotary.parity_angle_error": _e(rotary.parity_angle_error, np.array([0, 1, 1, 0])),
        "recurrence.linear_attention": _e(recurrence.linear_attention, Q, K, V),
        "recurrence.selective_rope_attention": _e(recurrence.selective_rope_attention, Q, K, V, ANG, GATES[:, None]),
        "recurrence.rff_attention": _e(recurrence.rff_attention, Q, K, V, W44[0]),
        "recurrence.rff_increment_product": _e(recurrence.rff_increment_product, Q, W44[0]),
        "recurrence.alibi_attention": _e(recurrence.alibi_attention, Q, K, V, 0.3),
        "recurrence.fox_attention": _e(recurrence.fox_attention, Q, K, V, GATES),
        "recurrence.cosformer_attention": _e(recurrence.cosformer_attention, Q, K, V),
        "recurrence.softmax_attention": _e(recurrence.softmax_attention, Q, K, V, ANG),
        "recurrence.delta_rule": _e(recurrence.delta_rule, Q, K / 4, V, np.full(6, 0.5)),
        "recurrence.delta_product": _e(recurrence.delta_product, Q, (K / 4)[:, None], V[:, None], np.full((6, 1), 0.5)),
        "recurrence.delta_transitions": _e(recurrence.delta_transitions, K / 4, np.full(6, 0.5)),
        "transition.effective": _e(transition.effective, ANG[0], ANG[1]),
        "transition.effective_sequence": _e(transition.effective_sequence, ANG),
        "transition.commutator_norm": _e(transition.commutator_norm, ANG[0], np.array([0.5, 0.9])),
        "transition.singular_values": _e(transition.singular_values, W44),
        "transition.spectral_norm": _e(transition.spectral_norm, W44),
        "transition.eigenvalues": _e(transition.eigenvalues, W44),
        "transition.householder": _e(transition.householder, Q[0]),
        "transition.householder_product": _e(transition.householder_product, Q[:3]),
        "transition.generalized_householder": _e(transition.generalized_householder, Q[0] / 2, 0.5),
        "transition.prf_transition_factor": _e(transition.prf_transition_factor, Q, W44[0]),
        "transition.prf_factor_distribution": _e(transition.prf_factor_distribution, 0.5),
        "attention.softmax": _e(attention.softmax, Q, K, V, angles=ANG),
        "attention.random_feature": _e(attention.random_feature, Q, K, V, 8, angles=ANG, seed=1),
        "attention.feature_map": _e(attention.feature_map, Q, W44[0]),
        "attention.error": _e(attention.error, Q, K, V, 8, rules=("one",), trials=2),
        "attention.AttentionError.at": _m(_attention_error, "at", "one", 8),
        "attention.mean_cosine": _e(attention.mean_cosine, Q, K),
        "attention.rule_sigma": _e(attention.rule_sigma, "tan", xi=0.5),
        "attention.angle_precision": _e(attention.angle_precision, Q, K, ANG),
        "selective.SelectiveWeights": _e(
            selective.SelectiveWeights, W44[0], W44[1], np.array([1.0, 0.01]), num_heads=2, eps=1e-6
        ),
        "selective.SelectiveWeights.from_state_dict": _e(
            selective.SelectiveWeights.from_state_dict,
            {"phi_proj.0.weight": W44[0], "phi_proj.1.weight": W44[1], "temperature": np.array([1.0, 0.01])},
            2,
        ),
        "selective.SelectiveState": _e(selective.SelectiveState, _weights(), 2),
        "selective.SelectiveState.feed": _m(_state, "feed", H8),
        "selective.SelectiveState.step": _m(_state, "step", H8[:2]),
        "selective.rotary_temperature": _e(selective.rotary_temperature, "rope", 1e4, 4),
        "selective.angles": _e(selective.angles, H8, _weights()),
        "selective.apply": _e(selective.apply, np.stack([Q, K], 1), np.stack([K, V], 1), H8, _weights()),
        "spectra.window_names": _e(spectra.window_names, True),
        "spectra.window_info": _e(spectra.window_info, "hann"),
        "spectra.window": _e(spectra.window, "kaiser", 8, beta=2.0),
        "spectra.dpss": _e(spectra.dpss, 16, 2.0, 2),
        "spectra.ssm_window": _e(spectra.ssm_window, alpha=0.1, N=8),
        "spectra.ssm_impulse": _e(spectra.ssm_impulse, 0.1, 0.5, 8),
        "spectra.dtft": _e(spectra.dtft, np.hanning(8), np.array([0.0, 0.5])),
        "spectra.spectrum": _e(spectra.spectrum, np.hanning(8), 4),
        "spectra.ssm_spectrum": _e(spectra.ssm_spectrum, 0.1, 0.5, 8, np.array([0.0, 1.0])),
        "spectra.ssm_envelope": _e(spectra.ssm_envelope, 0.1, 0.5, 8, np.array([0.0, 1.0])),
        "spectra.continuous_spectrum": _e(spectra.continuous_spectrum, 0.1, 0.5, 8.0, np.array([0.0, 1.0])),
        "spectra.zoh": _e(spectra.zoh, np.array([0.1, 0.2]), np.array([0.5, 1.0]), 0.1),
        "spectra.ssm_kernel": _e(spectra.ssm_kernel, np.array([-0.1 + 1j]), np.array([1.0]), np.array([1.0]), 0.1, 8),
        "spectra.decay_per_sample": _e(spectra.decay_per_sample, np.array([1.0, 2.0]), 8),
        "spectra.decay_over_window": _e(spectra.decay_over_window, np.array([0.1, 0.2]), 8),
        "spectra.figures_of_merit": _e(spectra.figures_of_merit, np.hanning(64), 8),
        "spectra.leakage_map": _e(spectra.leakage_map, alpha=np.array([0.0, 0.1]), omega=np.array([0.5]), N=16, pad=4),
        "spectra.harris_table": _e(spectra.harris_table, 64, 4),
        "sweep.cell_seed": _e(sweep.cell_seed, 1, 2),
        "sweep.Grid.from_mapping": _e(sweep.Grid.from_mapping, {"xi": [0.0, 0.5], "D": [4, 8]}),
        "sweep.Grid.cell": _m(_grid, "cell", 1),
        "sweep.Grid.column": _m(_grid, "column", "xi", [0, 1]),
        "sweep.Grid.from_spec": lambda: (sweep.Grid.from_spec, (_grid().spec(),), {}),
        "sweep.Task.params": _m(lambda: sweep.tasks()["rff_mse"], "params", {"xi": 0.5, "D": 4}),
        "sweep.Task.check_axes": _m(lambda: sweep.tasks()["rff_mse"], "check_axes", ("xi", "D")),
        "simd.primitive_rate": _e(simd.primitive_rate, "uniform", 1024, repeat=1, nthreads=1),
        "tasks.group": _e(tasks.group, "S3"),
        "tasks.state_tracking": _e(tasks.state_tracking, "S3", 2, 8, seed=1),
        "tasks.mqar": _e(tasks.mqar, 2, 16, 2, 8, seed=1),
        "tasks.copying": _e(tasks.copying, 2, 4, 4, seed=1),
        "expressivity.element_angles": _e(expressivity.element_angles, "Z3"),
        "expressivity.representation": _e(expressivity.representation, "S3"),
        "expressivity.householder_factors": _e(expressivity.householder_factors, np.linalg.qr(W44[0])[0]),
        "expressivity.track_rotation": _e(expressivity.track_rotation, "Z3", TOK),
        "expressivity.track_householder": _e(expressivity.track_householder, "S3", TOK, seed=1),
        "expressivity.track_fixed_rope": _e(expressivity.track_fixed_rope, "Z3", TOK),
        "expressivity.track_positive_gates": _e(expressivity.track_positive_gates, "S2", TOK % 2),
        "expressivity.accuracy": _e(expressivity.accuracy, TOK, TOK[:, ::-1]),
        "related.alibi": _e(related.alibi, Q[None], K[None], V[None], np.array([0.5])),
        "related.alibi_bias": _e(related.alibi_bias, 4, np.array([0.5, 0.25])),
        "related.alibi_slopes": _e(related.alibi_slopes, 3),
        "related.decayed_kernel_attention": _e(related.decayed_kernel_attention, np.abs(Q), np.abs(K), V, GATES),
        "related.exp_kernel_features": _e(related.exp_kernel_features, (Q > 0).astype(np.float64)),
        "related.fox": _e(related.fox, Q, K, V, GATES),
        "related.fox_bias": _e(related.fox_bias, GATES),
        "extrapolation.scaled_frequencies": _e(extrapolation.scaled_frequencies, 8, "linear", factor=2.0),
        "extrapolation.unseen_angles": _e(extrapolation.unseen_angles, rotary.frequencies(8), 16, 64),
        "claims.derive_verdict": _e(ropelab.claims.derive_verdict, True, None),
        "report.summary": _e(ropelab.report.summary, _results()),
        "report.summary_line": _e(ropelab.report.summary_line, _results(), 1.5),
        "report.terminal": _e(ropelab.report.terminal, _results(), False, 80),
        "report.to_json": _e(ropelab.report.to_json, _results(), 1.5),
        "report.to_markdown": _e(ropelab.report.to_markdown, _results(), None, None, 1.5),
        "report.to_html": _e(ropelab.report.to_html, _results(), None, 1.5),
        "report.claim_provenance": _e(ropelab.report.claim_provenance, _results()),
    }


_RESULTS: list[Any] = []


def _results() -> Any:
    if not _RESULTS:
        _RESULTS.append(ropelab.claims.run(["rope.relative"]))
    return _RESULTS[0]


#: Public callables that generated data cannot call, each with the reason (they get targeted tests).
EXCLUDED: dict[str, str] = {
    "selective.load_safetensors": "reads a file (tests/test_selective.py: missing, corrupt, wrong keys)",
    "sweep.run": "writes a store and may start a cluster (tests/test_sweep.py has its own hypothesis sweep)",
    "sweep.load": "reads a store directory (tests/test_reliability_store.py)",
    "sweep.to_xarray": "takes a sweep table (tests/test_sweep.py)",
    "sweep.register_task": "changes the process-wide task registry (tests/test_sweep.py)",
    "simd.set_isa": "changes the process-wide SIMD path (tests/test_simd.py)",
    "simd.using": "changes the process-wide SIMD path (tests/test_simd.py)",
    "claims.claim": "registers a claim process-wide (tests/test_plugins.py)",
    "claims.load_plugins": "imports modules and entry points (tests/test_plugins.py)",
    "claims.run": "runs the claims' checks, minutes (tests/test_claims.py)",
    "report.render_figures": "writes files (tests/test_report.py, tests/test_cli.py)",
    "plot": "plots with matplotlib (tests/test_plot.py)",
}
#: Result records: classes the package returns, whose constructor only stores its fields; their
#: methods that take arguments are in the registry.
RECORDS = frozenset(
    {
        "temperature.Counterexample",
        "temperature.MSECurve",
        "transition.FactorDistribution",
        "attention.RandomFeatureParts",
        "attention.AttentionError",
        "attention.AnglePrecision",
        "spectra.WindowInfo",
        "spectra.FiguresOfMerit",
        "spectra.LeakageMap",
        "sweep.Grid",
        "sweep.Task",
        "tasks.Group",
        "tasks.StateTracking",
        "tasks.MQAR",
        "tasks.Copying",
        "extrapolation.Scaling",
        "extrapolation.UnseenAngles",
        "claims.Claim",
        "claims.ClaimResult",
        "claims.ClaimResults",
        "claims.Evidence",
        "claims.PluginError",
        "claims.Verdict",
    }
)
_INHERITED = frozenset(dir(tuple)) | frozenset(dir(object)) | frozenset({"as_dict", "to_dataframe"})


def _takes_arguments(fn: Any) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    return any(p.name not in ("self", "cls") for p in params)


def public_callables() -> dict[str, Any]:
    """Every public callable of the package, by "module.name" (and "module.Class.method")."""
    out: dict[str, Any] = {}
    for mod_name in ropelab.__all__:
        if mod_name == "__version__":
            continue
        mod = importlib.import_module(f"ropelab.{mod_name}")
        for name in mod.__all__:
            obj = getattr(mod, name)
            key = f"{mod_name}.{name}"
            if inspect.isclass(obj):
                if not issubclass(obj, BaseException) and _takes_arguments(obj):
                    out[key] = obj
                for meth in vars(obj):
                    if meth.startswith("_") or meth in _INHERITED:
                        continue
                    fn = getattr(obj, meth)
                    if callable(fn) and not inspect.isclass(fn) and _takes_arguments(fn):
                        out[f"{key}.{meth}"] = fn
            elif callable(obj) and _takes_arguments(obj):
                out[key] = obj
    return out


#: Violations the sweep finds that are not fixed yet, per callable and rule, with what is wrong.
#: An entry lets the sweep pass for that rule only; remove it when the callable is fixed.
KNOWN: dict[str, dict[str, str]] = {}


#: The KNOWN entries (callable, rule) that a violation matched in this session: an entry that the
#: sweep no longer needs fails the test that runs it (the list may only shrink).
_USED: set[tuple[str, str]] = set()


def _known(key: str, err: BaseException, rule: str | None = None) -> bool:
    """Whether ``err`` (an assertion of the sweep) is a listed, not yet fixed violation."""
    text = str(err)
    rules = KNOWN.get(key, {})
    if rule is not None:
        hit = [rule] if rule in rules else []
    else:
        hit = [r for r in rules if text.startswith(r) or f"{r}:" in text.split("\n")[0]]
    _USED.update((key, r) for r in hit)
    return bool(hit)


def _assert_known_entries_used(key: str, rules: list[str]) -> None:
    """A KNOWN entry of ``key`` for one of ``rules`` that no violation matched is stale: remove it."""
    stale = [r for r in rules if r in KNOWN.get(key, {}) and (key, r) not in _USED]
    assert not stale, f"KNOWN[{key!r}] lists {stale} but the sweep no longer finds them: remove the entry"


def _excluded(key: str) -> bool:
    return key in EXCLUDED or key.split(".")[0] in EXCLUDED or key in RECORDS


EXAMPLES = _examples()
PUBLIC = public_callables()
SWEPT = sorted(k for k in PUBLIC if not _excluded(k))


def test_registry_is_complete() -> None:
    missing = [k for k in SWEPT if k not in EXAMPLES]
    assert not missing, f"public callables with neither an example call nor an exclusion: {missing}"
    stale = sorted(set(EXAMPLES) - set(PUBLIC)) + sorted(k for k in EXCLUDED if k not in PUBLIC and "." in k)
    assert not stale, f"registry entries that are no longer public callables: {stale}"
    assert len(SWEPT) >= 110, len(SWEPT)


@pytest.mark.parametrize("key", SWEPT)
def test_example_call_is_valid(key: str) -> None:
    fn, args, kwargs = EXAMPLES[key]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        out = fn(*args, **kwargs)
    _assert_finite(key, out)


# ---------------------------------------------------------------------------------------------
# the perturbations
# ---------------------------------------------------------------------------------------------


def _arrays(x: Any) -> list[np.ndarray]:
    if isinstance(x, np.ndarray):
        return [x]
    if isinstance(x, (tuple, list)):
        return [a for part in x for a in _arrays(part)]
    if isinstance(x, dict):
        return [a for part in x.values() for a in _arrays(part)]
    if is_dataclass(x) and not isinstance(x, type):
        return [a for part in vars(x).values() for a in _arrays(part)]
    return []


#: Results where -inf is a documented value (a masked logit), not an overflow.
MASKS = ("related.alibi_bias", "related.fox_bias")


def _assert_finite(key: str, out: Any) -> None:
    for a in _arrays(out):
        if a.dtype.kind in "fc":
            ok = np.isfinite(a) | (np.isneginf(a) if key.startswith(MASKS) else False)
            assert ok.all(), f"rule 1: {key} returned a non-finite value for finite input"
    if isinstance(out, (float, complex)):
        assert np.isfinite(out), f"rule 1: {key} returned {out!r} for finite input"


def _finite_input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    for a in (*args, *kwargs.values()):
        if isinstance(a, (float, complex, np.floating, np.complexfloating)) and not np.isfinite(a):
            return False
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc" and not np.isfinite(a).all():
            return False
    return True


def _param_names(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][: len(args)]
    return names + list(kwargs)


def _annotation(fn: Any, name: str) -> str:
    p = inspect.signature(fn).parameters.get(name)
    if p is None:
        return ""
    return str(p.annotation) + " default=" + repr(p.default)


def _kind(fn: Any, name: str, value: Any) -> str:
    """ "int", "float", "array", "bool", "str" or "other": what the parameter takes."""
    ann = _annotation(fn, name)
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, str):
        return "str"
    if isinstance(value, np.ndarray):
        return "array"
    if isinstance(value, (int, np.integer)) and "int" in ann:
        return "int"
    if isinstance(value, (int, float, np.floating, np.integer)):
        return "float"
    return "other"


#: Parameters that take complex values (the rest must refuse them).
COMPLEX_OK = {
    ("rotary.realify", "z"),
    ("rotary.realify_diagonal", "lam"),
    ("spectra.ssm_kernel", "A"),
    ("spectra.ssm_kernel", "B"),
    ("spectra.ssm_kernel", "C"),
    ("spectra.zoh", "B"),
    ("spectra.dtft", "x"),
    ("spectra.spectrum", "x"),
}
#: Perturbations not made, with the reason (a call that would run, interruptibly, for hours).
NOT_RUN = {("simd.primitive_rate", "repeat"): "an int64-sized repeat count is a valid, endless benchmark"}

HOSTILE = st.sampled_from(
    [
        ("complex", None),
        ("bool", None),
        ("none", None),
        ("string", None),
        ("nan", None),
        ("huge", 1e300),
        ("tiny", 1e-300),
        ("negative", None),
        ("fraction", None),
        ("beyond int64", 2**64),
        ("int64 max", 2**63 - 1),
        ("object", None),
    ]
)


def _hostile(kind: str, value: Any, how: str, factor: Any) -> Any:
    if how == "complex":
        return np.asarray(value) + 1j if kind == "array" else complex(value if kind in ("int", "float") else 1) + 1j
    if how == "bool":
        return np.asarray(value, dtype=bool) if kind == "array" else True
    if how == "none":
        return None
    if how == "string":
        return "x"
    if how == "object":
        return object()
    if how == "nan":
        if kind == "array" and np.asarray(value).dtype.kind == "f":
            a = np.array(value, dtype=np.float64)
            a.flat[0] = np.nan
            return a
        return np.nan
    if how in ("huge", "tiny"):
        if kind == "array" and np.asarray(value).dtype.kind == "f":
            return np.asarray(value) * factor
        if kind == "float":
            return float(value) * factor if value else factor
        return factor
    if how == "negative":
        return -np.asarray(value) - 1 if kind == "array" else (-value - 1 if kind in ("int", "float") else -1)
    if how == "fraction":
        return 2.5
    return factor  # integers at and beyond the int64 range


def _must_refuse(key: str, name: str, kind: str, how: str) -> bool:
    """Rule 5: the perturbation is invalid input that the call must refuse."""
    if how == "complex":
        return (key, name) not in COMPLEX_OK and kind in ("int", "float", "array", "bool")
    if how == "bool":
        return kind in ("int", "float")
    if how == "fraction" or how == "beyond int64":
        return kind == "int"
    if how == "none":
        return name == "seed"
    if how in ("string", "object"):
        return kind in ("int", "float", "array")
    return False


def _short(key: str) -> str:
    parts = key.split(".")
    return parts[-1] if parts[-1] not in ("__init__",) else parts[-2]


def _names_function(key: str, msg: str) -> bool:
    parts = key.split(".")
    # a method may be named by its class ("SelectiveState.feed") or a constructor by its class
    return any(p in msg for p in parts[1:])


def _call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _replace(args: tuple[Any, ...], kwargs: dict[str, Any], i: int, names: list[str], value: Any) -> Any:
    a, kw = list(args), dict(kwargs)
    if i < len(a):
        a[i] = value
    else:
        kw[names[i]] = value
    return tuple(a), kw


#: Perturbations per callable: ~110 callables × this many calls (each a few ms) in ~60 s on 2 cores.
EXAMPLES_PER_CALLABLE = 40


@pytest.mark.parametrize("key", SWEPT)
def test_hostile_arguments(key: str) -> None:
    """Rules 1, 2 and 5: one argument of the example call perturbed at a time."""
    fn, args, kwargs = EXAMPLES[key]()
    names = _param_names(fn, args, kwargs)
    if not names:
        pytest.skip("takes no arguments in its example")

    @settings(
        max_examples=EXAMPLES_PER_CALLABLE,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
        phases=(Phase.generate,),  # no shrinking: the perturbation is already minimal
    )
    @given(i=st.integers(0, len(names) - 1), hostile=HOSTILE)
    def run(i: int, hostile: tuple[str, Any]) -> None:
        try:
            perturbed(i, hostile)
        except AssertionError as e:
            if not _known(key, e):
                raise

    def perturbed(i: int, hostile: tuple[str, Any]) -> None:
        how, factor = hostile
        name = names[i]
        if (key, name) in NOT_RUN and how in ("beyond int64", "int64 max"):
            return
        value = args[i] if i < len(args) else kwargs[name]
        kind = _kind(fn, name, value)
        bad = _hostile(kind, value, how, factor)
        a, kw = _replace(args, kwargs, i, names, bad)
        try:
            out = _call(fn, a, kw)
        except ALLOWED as e:
            msg = str(e)
            assert "Unable to allocate" not in msg, f"rule 3: {key}({name}={how}) allocated first: {msg}"
            assert _names_function(key, msg), f"rule 2: {key}({name}={how}): message does not name it: {msg}"
            assert name in msg, f"rule 2: {key}({name}={how}): message does not name {name!r}: {msg}"
            return
        except Exception as e:
            raise AssertionError(f"rule 2: {key}({name}={how}) raised {type(e).__name__}: {e}") from e
        assert not _must_refuse(key, name, kind, how), f"rule 5: {key} accepted {name}={how} ({bad!r:.80})"
        if _finite_input(a, kw):
            _assert_finite(f"{key}({name}={how})", out)
        _assert_no_alias(key, out, a, kw)

    run()
    _assert_known_entries_used(key, ["rule 1", "rule 2", "rule 3", "rule 5"])


# ---------------------------------------------------------------------------------------------
# rule 6: dtype and layout variants
# ---------------------------------------------------------------------------------------------


def _variants(value: Any) -> list[tuple[str, Any, Any]]:
    """(label, variant, the float64/int reference with the same values)."""
    out: list[tuple[str, Any, Any]] = []
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.size:
        if value.ndim >= 2:
            out.append(("Fortran order", np.asfortranarray(value), value))
        wide = np.repeat(value, 2, axis=-1)
        out.append(("strided", wide[..., ::2], value))
        ro = value.copy()
        ro.flags.writeable = False
        out.append(("read-only", ro, value))
        if value.dtype.kind == "f":
            v32 = value.astype(np.float32)
            out.append(("float32", v32, v32.astype(np.float64)))
        else:
            out.append(("int32", value.astype(np.int32), value))
    elif isinstance(value, float) and not isinstance(value, bool):
        out.append(("np.float64", np.float64(value), value))
        out.append(("np.float32", np.float32(value), float(np.float32(value))))
    elif isinstance(value, int) and not isinstance(value, bool):
        out.append(("np.int64", np.int64(value), value))
        if -128 <= value < 128:
            out.append(("np.int8", np.int8(value), value))
        out.append(
            ("np.uint16", np.uint16(value), value) if 0 <= value < 2**16 else ("np.int32", np.int32(value), value)
        )
    elif isinstance(value, bool):
        out.append(("np.bool_", np.bool_(value), value))
    return out


def _same(key: str, label: str, x: Any, y: Any) -> None:
    xs, ys = _flatten(x), _flatten(y)
    assert len(xs) == len(ys), f"rule 6: {key} with {label}: results differ in structure"
    f32 = "float32" in label
    for a, b in zip(xs, ys, strict=True):
        if isinstance(a, (np.ndarray, float, int, complex, np.number)) and not isinstance(a, (bool, np.bool_)):
            a64, b64 = np.asarray(a), np.asarray(b)
            assert a64.shape == b64.shape, f"rule 6: {key} with {label}: shapes {a64.shape} and {b64.shape}"
            if a64.dtype.kind in "fc" or b64.dtype.kind in "fc":
                # float32 input: the result may be float32 (documented), so float32's precision
                rtol = 1e-6 if f32 else 1e-15
                np.testing.assert_allclose(a64, b64, rtol=rtol, atol=rtol * 1e-3, err_msg=f"rule 6: {key} {label}")
            else:
                np.testing.assert_array_equal(a64, b64, err_msg=f"rule 6: {key} {label}")
        else:
            assert type(a) is type(b) and (a == b if not isinstance(a, np.ndarray) else True), (
                f"rule 6: {key} with {label}: {a!r} != {b!r}"
            )


#: Callables whose result is a measurement (a throughput), different at every call.
MEASURED = frozenset({"simd.primitive_rate"})


def _flatten(x: Any) -> list[Any]:
    import pandas as pd

    if isinstance(x, pd.DataFrame):  # spectra.harris_table
        return _flatten(x.to_dict(orient="list"))
    if isinstance(x, (tuple, list)):
        return [y for part in x for y in _flatten(part)]
    if isinstance(x, dict):
        return [y for k in sorted(x, key=str) for y in _flatten(x[k])]
    if is_dataclass(x) and not isinstance(x, type):
        return _flatten(vars(x))
    if isinstance(x, np.ndarray) and x.dtype == object:
        return [y for part in x.ravel().tolist() for y in _flatten(part)]
    if hasattr(x, "__dict__") and not isinstance(x, type) and type(x).__module__.startswith("ropelab"):
        return [type(x).__name__, *_flatten(vars(x))]
    return [x]


def _assert_no_alias(key: str, out: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    inputs = _arrays(list(args) + list(kwargs.values()))
    for r in _arrays(out):
        for a in inputs:
            assert not np.shares_memory(r, a), f"rule 6: a result of {key} shares memory with an input"


def _variant_cases() -> list[tuple[str, int, str]]:
    cases = []
    for key in SWEPT:
        fn, args, kwargs = EXAMPLES[key]()
        names = _param_names(fn, args, kwargs)
        for i, name in enumerate(names):
            value = args[i] if i < len(args) else kwargs[name]
            for label, _, _ in _variants(value):
                cases.append((key, i, label))
    return cases


VARIANTS = _variant_cases()


@pytest.mark.parametrize(("key", "i", "label"), VARIANTS, ids=[f"{k}-{i}-{lab}" for k, i, lab in VARIANTS])
def test_dtype_and_layout_variants(key: str, i: int, label: str) -> None:
    """Rule 6: the variant gives the reference's result; no result aliases an input."""
    _check_variant(key, i, label)


def test_known_entries_are_needed() -> None:
    """KNOWN names swept callables and rules only, and each rule 6 entry still matches a variant
    (rules 1-5 entries are checked at the end of each callable's ``test_hostile_arguments``).
    """
    rules = {"rule 1", "rule 2", "rule 3", "rule 5", "rule 6"}
    assert set(KNOWN) <= set(SWEPT), f"KNOWN entries that are not swept: {sorted(set(KNOWN) - set(SWEPT))}"
    odd = {k: sorted(set(v) - rules) for k, v in KNOWN.items() if set(v) - rules}
    assert not odd, f"KNOWN entries for no rule of the sweep: {odd}"
    for key in sorted(k for k, v in KNOWN.items() if "rule 6" in v):
        for k, i, label in VARIANTS:
            if k == key:
                _check_variant(k, i, label)
        _assert_known_entries_used(key, ["rule 6"])


def _check_variant(key: str, i: int, label: str) -> None:
    fn, args, kwargs = EXAMPLES[key]()
    names = _param_names(fn, args, kwargs)
    value = args[i] if i < len(args) else kwargs[names[i]]
    _, variant, reference = next(v for v in _variants(value) if v[0] == label)
    a, kw = _replace(args, kwargs, i, names, variant)
    ra, rkw = _replace(args, kwargs, i, names, reference)
    fresh = EXAMPLES[key]()[0]  # a method's instance carries state: a new one for each call
    try:
        want = _call(fresh, ra, rkw)
    except ALLOWED as e:  # the same values refused as float64: the variant must be refused alike
        with pytest.raises(type(e)):
            _call(fn, a, kw)
        return
    try:
        got = _call(fn, a, kw)
        if key not in MEASURED:
            _same(key, f"{names[i]} {label}", got, want)
        _assert_no_alias(key, got, a, kw)
    except (AssertionError, TypeError, ValueError) as e:
        if not _known(key, e, "rule 6"):
            raise


def test_sizes_beyond_the_limits_are_refused_before_allocating() -> None:
    """Rule 3 in the sweep's terms: a zero-stride view of 2**40 elements is refused, naming the argument."""
    from ropelab import rotary

    huge = np.broadcast_to(0.5, (2**38, 4))
    with pytest.raises(MemoryError, match="rotate: x"):
        rotary.rotate(huge, np.zeros((1, 2)))
    assert math.isfinite(float(ropelab._core.limits.physical_bytes()))
