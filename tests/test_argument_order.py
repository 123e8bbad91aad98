"""One argument order per concept across the package.

The rule (CONTRIBUTING.md, "Argument order"): the data ``q, k, v`` first; ``xi`` before ``D``;
``D`` before ``sigma``; ``N`` before ``pad``; ``alpha`` before ``omega``; ``estimator`` before
``convention``; ``trials``, ``seed``, ``nthreads`` after the numerical settings; the core binds
every function in its public order. The end of the file checks one name and one place per
concept (the table ``CONCEPTS``: rotary ``angles``, ``gates``) over every public signature and the
``_core`` bindings, and that no public function, result field, parameter, CLI option or sweep axis
calls the rotary angles "phase(s)" (the random-phase estimator of ``rff`` keeps its names).
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
        (rl.attention.angle_precision, "q", "omega"),
        (rl.attention.angle_precision, "k", "omega"),
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


# --- one name and one position per concept (CONTRIBUTING.md, "Argument order" rule 1) -----------------
#
# Every public parameter, _core binding argument and result field spells a concept one way. The table
# maps a concept to the accepted name, the accepted qualified forms, the synonyms that must not appear
# and, optionally, the public modules (and their _core submodules) where the synonyms are refused (None:
# everywhere). A concept marked "derived" is an input derived alongside the data (per-step angles,
# gates): it comes right after the data in the positional order (or first among the keyword-only
# parameters), the derived concepts in the order of this table. Add a concept by adding a row.

CONCEPT_MODULES = ("attention", "recurrence", "related", "selective", "rotary", "transition", "expressivity")

CONCEPTS: dict[str, dict] = {
    "rotary angles": {
        "name": "angles",
        "variants": ("angles_prev",),
        "synonyms": ("psi", "psi_prev", "psi_t", "phases", "angle", "rotary_angles", "rotations"),
        "modules": None,
        "derived": True,
        # words that must not appear inside a public function, class, result-field, parameter, CLI
        # option or sweep axis name for this concept ("cumulative_phase", "PhasePrecision.phase_error")
        "words": ("phase", "phases"),
        # per module: the names where the word means another concept (the random phase β of the
        # random-phase estimator of random Fourier features), allowed there only
        "allow": {"rff": ("phase", "sample_phase", "random_phase")},
    },
    "gates": {
        "name": "gates",
        "variants": (),
        "synonyms": ("gate", "forget", "forget_gates", "gate_values", "decays"),
        "modules": None,
        "derived": True,
    },
    # the SSM decay per sample is alpha everywhere (αN, the decay over a window of N samples, is the
    # derived value alpha_n, the input of spectra.decay_per_sample only)
    "decay per sample": {
        "name": "alpha",
        "variants": (),
        "synonyms": ("an", "decay", "decay_rate", "alpha_per_sample", "alpha_N", "alphaN"),
        "modules": None,
        "derived": False,
    },
    # alpha is the SSM decay per sample in spectra; where gates are taken it must not name them
    "gates (not alpha)": {
        "name": "gates",
        "variants": (),
        "synonyms": ("alpha", "alphas", "lambda_"),
        "modules": CONCEPT_MODULES,
        "derived": True,
    },
}

# The data a derived input may follow (positional-or-keyword parameters before the first derived one).
DATA = frozenset({"q", "k", "v", "x", "X", "beta", "phi_q", "phi_k", "hidden", "g", "tokens"})


def _public_signatures() -> dict[str, tuple[str, list[tuple[str, bool]]]]:
    """qualified name -> (module, [(parameter, keyword-only)]) for the public functions, classes
    (their fields) and methods of every public module."""
    import importlib

    out: dict[str, tuple[str, list[tuple[str, bool]]]] = {}
    for mod_name in rl.__all__:
        if mod_name.startswith("_"):
            continue
        mod = importlib.import_module(f"ropelab.{mod_name}")
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name)
            targets = []
            if inspect.isfunction(obj):
                targets.append((f"{mod_name}.{name}", obj))
            elif inspect.isclass(obj):
                targets.append((f"{mod_name}.{name}", obj))
                for attr, raw in vars(obj).items():
                    if not attr.startswith("_") and (
                        inspect.isfunction(raw) or isinstance(raw, (classmethod, staticmethod))
                    ):
                        targets.append((f"{mod_name}.{name}.{attr}", getattr(obj, attr)))
            for qual, fn in targets:
                try:
                    sig = inspect.signature(fn)
                except (TypeError, ValueError):
                    continue
                params = [
                    (p.name, p.kind is inspect.Parameter.KEYWORD_ONLY)
                    for p in sig.parameters.values()
                    if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                ]
                out[qual] = (mod_name.split(".")[0], params)
    return out


def _def_params(line: str) -> list[tuple[str, bool]]:
    import ast

    fd = ast.parse(f"def {line}: ...").body[0]
    assert isinstance(fd, ast.FunctionDef)
    a = fd.args
    return [(p.arg, False) for p in a.posonlyargs + a.args] + [(p.arg, True) for p in a.kwonlyargs]


def _core_signatures() -> dict[str, tuple[str, list[tuple[str, bool]]]]:
    """The _core bindings, from their docstrings (pybind11 writes the signature on the first line,
    each overload on a line of its own) and, where the package ships them, from the stubs."""
    import ast
    import re
    from pathlib import Path

    out: dict[str, tuple[str, list[tuple[str, bool]]]] = {}
    for sub in dir(_core):
        smod = getattr(_core, sub)
        if sub.startswith("_") or not inspect.ismodule(smod):
            continue
        for name in dir(smod):
            fn = getattr(smod, name)
            if name.startswith("_") or not callable(fn) or inspect.isclass(fn):
                continue
            lines = [ln for ln in (fn.__doc__ or "").splitlines() if re.match(rf"(\d+\. )?{name}\(", ln)]
            for i, ln in enumerate(lines):
                out[f"_core.{sub}.{name}" + (f"#{i}" if i else "")] = (sub, _def_params(re.sub(r"^\d+\. ", "", ln)))
    stubs = Path(rl.__file__).parent / "_core"
    for pyi in sorted(stubs.glob("*.pyi")):
        tree = ast.parse(pyi.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                a = node.args
                params = [(p.arg, False) for p in a.posonlyargs + a.args if p.arg not in ("self", "cls")]
                params += [(p.arg, True) for p in a.kwonlyargs]
                out[f"_core/{pyi.stem}.pyi:{node.name}:{node.lineno}"] = (pyi.stem, params)
    return out


def _concept_of(param: str) -> str | None:
    for concept, row in CONCEPTS.items():
        if row["derived"] and (param == row["name"] or param in row["variants"]):
            return concept
    return None


def naming_problems(sigs: dict[str, tuple[str, list[tuple[str, bool]]]]) -> list[str]:
    """Synonyms of a concept used as a parameter name, and derived inputs out of place."""
    problems = []
    order = [c for c, row in CONCEPTS.items() if row["derived"]]
    for qual, (module, params) in sorted(sigs.items()):
        names = [p for p, _ in params]
        for concept, row in CONCEPTS.items():
            if row["modules"] is not None and module not in row["modules"]:
                continue
            for bad in sorted(set(names) & set(row["synonyms"])):
                problems.append(f"{qual}: {bad!r} spells the concept {concept!r}, whose name is {row['name']!r}")
        derived = [(i, p, kw, _concept_of(p)) for i, (p, kw) in enumerate(params) if _concept_of(p)]
        if not derived:
            continue
        ranks = [order.index(c) for _, _, _, c in derived]  # type: ignore[arg-type]
        if ranks != sorted(ranks):
            problems.append(
                f"{qual}: {[p for _, p, _, _ in derived]} not in the order {[CONCEPTS[c]['name'] for c in order]}"
            )
        idx = [i for i, _, _, _ in derived]
        if idx != list(range(idx[0], idx[0] + len(idx))):
            problems.append(f"{qual}: {[p for _, p, _, _ in derived]} are not adjacent in {names}")
        first, _, first_kw, _ = derived[0]
        if first_kw:
            before = [p for p, kw in params[:first] if kw]
            if before:
                problems.append(
                    f"{qual}: keyword-only {derived[0][1]!r} must come first among the keyword-only, after {before}"
                )
        else:
            before = [p for p, _ in params[:first] if p not in DATA]
            if before:
                problems.append(f"{qual}: {derived[0][1]!r} must follow the data directly, not {before}")
    return problems


#: One name, one meaning: a parameter name listed here appears only where it has that meaning
#: (qualified names of the functions allowed; a module name allows the whole module).
MEANINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "alpha": ("the SSM decay per sample α", ("spectra",)),
    "alpha_n": ("the decay over the window, αN", ("spectra.decay_per_sample",)),
}


def meaning_problems(sigs: dict[str, tuple[str, list[tuple[str, bool]]]]) -> list[str]:
    """Names of MEANINGS used outside the functions where they have their one meaning."""
    problems = []
    for qual, (module, params) in sorted(sigs.items()):
        for name, _ in params:
            if name not in MEANINGS:
                continue
            meaning, where = MEANINGS[name]
            if module not in where and not any(qual == w or qual.startswith(w + ".") for w in where):
                problems.append(f"{qual}: {name!r} means {meaning} and is used only in {where}")
    return problems


def test_one_name_one_meaning() -> None:
    sigs = _public_signatures()
    assert not meaning_problems(sigs), "\n".join(meaning_problems(sigs))
    # the checker itself: a gate called alpha in recurrence, alpha_n outside decay_per_sample
    assert meaning_problems({"recurrence.x": ("recurrence", [("alpha", False)])})
    assert meaning_problems({"spectra.ssm_window": ("spectra", [("alpha_n", True)])})
    assert not meaning_problems({"spectra.decay_per_sample": ("spectra", [("alpha_n", False)])})


def _words(identifier: str) -> list[str]:
    """The lower-case words of a snake_case, CamelCase or --kebab-case identifier."""
    import re

    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", identifier)
    return [w.lower() for w in re.split(r"[_\-]+", spaced) if w]


def _identifiers(qual: str) -> list[str]:
    """The identifiers of a qualified name ("attention.AnglePrecision", "_core.rotary.f",
    "_core/rotary.pyi:f:12", "cli.verify --only")."""
    import re

    return [t for t in re.split(r"[./:# ]", qual) if t and not t.isdigit() and t not in ("_core", "pyi", "cli")]


def word_problems(sigs: dict[str, tuple[str, list[tuple[str, bool]]]]) -> list[str]:
    """A concept's refused words inside a public name (function, class, field, parameter, option)."""
    problems = []
    for qual, (module, params) in sorted(sigs.items()):
        for concept, row in CONCEPTS.items():
            words = set(row.get("words", ()))
            if not words:
                continue
            allowed = set(row.get("allow", {}).get(module, ()))
            for ident in dict.fromkeys(_identifiers(qual) + [p for p, _ in params]):
                bad = sorted(words & set(_words(ident.lstrip("-"))))
                if bad and ident.lstrip("-").replace("-", "_") not in allowed:
                    problems.append(
                        f"{qual}: {ident!r} uses {bad[0]!r} for the concept {concept!r}, whose name is {row['name']!r}"
                    )
    return problems


def _cli_and_sweep_names() -> dict[str, tuple[str, list[tuple[str, bool]]]]:
    """The ``ropelab`` command's options (per subcommand) and every sweep task's axes and outputs."""
    import argparse

    from ropelab import cli
    from ropelab.sweep import _tasks

    out: dict[str, tuple[str, list[tuple[str, bool]]]] = {}

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        opts = []
        for action in parser._actions:
            opts += [(o, True) for o in action.option_strings]
            if action.dest not in (argparse.SUPPRESS, "help"):
                opts.append((action.dest, False))
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, f"{name} {sub}")
        out[name] = ("cli", opts)

    walk(cli.build_parser(), "cli")
    for tname, task in _tasks.TASKS.items():
        names = [(a, False) for a in task.axes] + [(o, False) for o, _ in task.outputs]
        out[f"sweep.{tname}"] = ("sweep", names)
    return out


def test_no_public_name_spells_the_rotary_angles_phase() -> None:
    names = {**_public_signatures(), **_core_signatures(), **_cli_and_sweep_names()}
    for qual in ("rotary.cumulative_angles", "attention.AnglePrecision", "_core.selective.angles", "cli verify"):
        assert qual in names, qual
    assert "angle_error" in [p for p, _ in names["attention.AnglePrecision"][1]]
    assert not word_problems(names), "\n".join(word_problems(names))


@pytest.mark.parametrize(
    ("qual", "module", "params", "match"),
    [
        ("rotary.cumulative_phase", "rotary", [("omega", False)], "'cumulative_phase' uses 'phase'"),
        ("attention.PhasePrecision", "attention", [("phase_error", False)], "'PhasePrecision' uses 'phase'"),
        ("attention.AnglePrecision", "attention", [("phase_max", False)], "'phase_max' uses 'phase'"),
        ("_core/selective.pyi:phases:9", "selective", [("hidden", False)], "'phases' uses 'phases'"),
        ("cli sweep", "cli", [("--phase-step", True)], "'--phase-step' uses 'phase'"),
        ("sweep.example", "sweep", [("phase", False)], "'phase' uses 'phase'"),
        # the random-phase estimator's names are another concept, allowed in rff only
        ("attention.sample_phase", "attention", [], "'sample_phase' uses 'phase'"),
    ],
)
def test_the_word_check_finds_phase_for_the_rotary_angles(
    qual: str, module: str, params: list[tuple[str, bool]], match: str
) -> None:
    problems = word_problems({qual: (module, params)})
    assert any(match in p for p in problems), problems


def test_the_random_phase_estimator_keeps_its_names_in_rff() -> None:
    ok = {
        "rff.sample_phase": ("rff", [("D", False), ("index", False), ("seed", False)]),
        "rff.feature_map": ("rff", [("X", False), ("omega", False), ("estimator", False), ("phase", False)]),
        "_core/rff.pyi:sample_phase:27": ("rff", [("D", False)]),
    }
    assert not word_problems(ok)
    assert "sample_phase" in dir(rl.rff) and "phase" in _params(rl.rff.feature_map)


def test_one_name_and_one_position_per_concept_in_the_python_api() -> None:
    sigs = _public_signatures()
    assert "recurrence.delta_rule" in sigs and "attention.softmax" in sigs and "transition.effective" in sigs
    assert not naming_problems(sigs), "\n".join(naming_problems(sigs))


def test_one_name_and_one_position_per_concept_in_the_core_bindings() -> None:
    sigs = _core_signatures()
    assert "_core.recurrence.delta_rule" in sigs and "_core.transition.effective" in sigs
    assert not naming_problems(sigs), "\n".join(naming_problems(sigs))


def test_angles_and_gates_sit_at_the_same_place_relative_to_the_data() -> None:
    from ropelab import recurrence, related, transition

    def pos(fn: object) -> list[str]:
        return [p for p in _params(fn) if p in ("q", "k", "v", "beta", "angles", "gates")]

    for fn in (recurrence.delta_rule, recurrence.delta_product):
        assert pos(fn) == ["q", "k", "v", "beta", "angles", "gates"]
    assert pos(recurrence.delta_transitions) == ["k", "beta", "angles", "gates"]
    assert pos(recurrence.selective_rope_attention) == ["q", "k", "v", "angles", "gates"]
    assert pos(recurrence.softmax_attention) == ["q", "k", "v", "angles"]
    assert pos(recurrence.fox_attention) == pos(related.fox) == ["q", "k", "v", "gates"]
    assert _params(transition.effective)[:3] == ["angles_prev", "angles", "gates"]
    assert _params(transition.effective_sequence)[:2] == ["angles", "gates"]
    for fn in (attention.softmax, attention.random_feature, attention.error):
        sig = inspect.signature(fn)
        kw = [p for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY]
        assert kw[0].name == "angles", fn


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ([("q", False), ("k", False), ("v", False), ("phases", True)], "'phases' spells the concept 'rotary angles'"),
        ([("x", False), ("psi", False)], "'psi' spells"),
        ([("q", False), ("forget", False)], "'forget' spells the concept 'gates'"),
        ([("angles", False), ("gate", False)], "'gate' spells"),
        ([("q", False), ("k", False), ("v", False), ("beta", False), ("alpha", False)], "'alpha' spells"),
        ([("q", False), ("k", False), ("v", False), ("gates", False), ("angles", False)], "not in the order"),
        ([("q", False), ("angles", False), ("mode", False), ("gates", False)], "not adjacent"),
        ([("q", False), ("k", False), ("mode", False), ("gates", False)], "must follow the data directly"),
        (
            [("q", False), ("k", False), ("D", False), ("causal", True), ("angles", True)],
            "first among the keyword-only",
        ),
    ],
)
def test_the_naming_check_finds_each_kind_of_problem(params: list[tuple[str, bool]], match: str) -> None:
    problems = naming_problems({"recurrence.example": ("recurrence", params)})
    assert any(match in p for p in problems), problems


def test_alpha_is_left_to_the_decay_outside_the_modules_that_take_gates() -> None:
    ok = {"spectra.example": ("spectra", [("alpha", False), ("omega", False), ("N", False)])}
    assert not naming_problems(ok)
