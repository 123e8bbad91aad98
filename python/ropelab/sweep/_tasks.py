"""The registered sweep tasks: what one cell computes from its axis values."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ropelab import rff, spectra
from ropelab._core_loader import core as _core
from ropelab._display import field_types
from ropelab.sweep._grid import Value

#: Marks an axis that has no default: the grid must give it.
#: Marks an axis of a :class:`Task` that has no default: a grid must give its values.
REQUIRED: Any = object()

Outputs = dict[str, "float | bool"]
#: ``on_rows([(position, outputs), ...])``: cells of a batch handed over as they finish (positions
#: in the batch).
OnRows = Callable[[list[tuple[int, Outputs]]], None]


class CellFailure(Exception):
    """A cell of a batch cannot be computed: ``position`` in the batch, ``error`` the ValueError,
    TypeError or MemoryError to raise with the cell named.
    """

    def __init__(self, position: int, error: Exception) -> None:
        super().__init__(position, error)
        self.position = position
        self.error = error


@dataclass(frozen=True)
class Task:
    """One kind of cell computation.

    Attributes
    ----------
    name : str
        The name given to :func:`ropelab.sweep.run`.
    summary : str
        One line for listings.
    axes : mapping of str to default
        The parameters a grid may sweep, with their defaults (``REQUIRED``: no default).
    outputs : tuple of (str, str)
        Output columns and their dtypes (``"float64"`` or ``"bool"``).
    monte_carlo : bool
        Whether cells draw random numbers (``trials`` is then required).
    check : callable
        ``check(params)`` raises ValueError/TypeError for a cell that cannot be computed; cheap.
    compute : callable
        ``compute(params, trials, cell_seed, nthreads) -> {output: value}``.
    extra_axes : callable or None
        Whether an axis outside ``axes`` is accepted (window parameters); ``None``: none is.
    cost : callable or None
        ``cost(params, trials) -> float``: the relative work of a cell (any unit, the same for all
        cells of a task), used only to schedule cells; ``None``: every cell costs the same.
    threaded : bool
        Whether ``compute`` makes use of ``nthreads`` (a cell that does not is never given all the
        threads of the local backend to itself).
    check_many : callable or None
        ``check_many([params, ...])``: ``check`` for many cells at once; raises
        ``CellFailure`` naming the first cell that cannot be computed. ``None``: ``check``
        is called per cell.
    compute_many : callable or None
        ``compute_many([params, ...], seeds, trials, nthreads, on_rows) -> [outputs, ...]``:
        many cells (``seeds``: their cell seeds) in one call, in parallel over cells on
        ``nthreads`` threads (one cell: its own work on them), the finished ones handed to
        ``on_rows`` (may be None) as they finish; raises ``CellFailure`` for a failing
        cell. Each cell's outputs are bit-identical to ``compute``'s. ``None``: the backends call
        ``compute`` per cell.
    """

    name: str
    summary: str
    axes: Mapping[str, Any]
    outputs: tuple[tuple[str, str], ...]
    monte_carlo: bool
    check: Callable[[dict[str, Value]], None]
    compute: Callable[[dict[str, Value], int | None, int, int | None], Outputs]
    extra_axes: Callable[[str], bool] | None = None
    cost: Callable[[dict[str, Value], int | None], float] | None = None
    threaded: bool = True
    check_many: Callable[[Sequence[dict[str, Value]]], None] | None = None
    compute_many: (
        Callable[
            [Sequence[dict[str, Value]], np.ndarray[Any, Any], int | None, int | None, OnRows | None], list[Outputs]
        ]
        | None
    ) = None

    def params(self, cell: Mapping[str, Value]) -> dict[str, Value]:
        """The cell's axis values completed with the task's defaults.

        Parameters
        ----------
        cell : mapping of str to object
            The cell's axis values.

        Returns
        -------
        dict of str to object
            Every parameter of the task: the defaults, overridden by the cell's values.

        Raises
        ------
        TypeError
            If ``cell`` is not a mapping.
        """
        if not isinstance(cell, Mapping):
            raise TypeError(
                f"sweep.Task.params: cell must be a mapping of axis names to values, got {type(cell).__name__}"
            )
        out = {k: v for k, v in self.axes.items() if v is not REQUIRED}
        out.update(cell)
        return out

    def check_axes(self, names: tuple[str, ...]) -> None:
        """Check that a grid's axis names suit the task.

        Parameters
        ----------
        names : tuple of str
            The grid's axis names.

        Raises
        ------
        TypeError
            If ``names`` is not a sequence of str.
        ValueError
            If a name is not an axis of the task (nor an accepted extra axis), or a required axis is
            missing.
        """
        if isinstance(names, str) or not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"sweep.Task.check_axes: names must be a sequence of axis names (str), got {names!r:.80}")
        unknown = [n for n in names if n not in self.axes and not (self.extra_axes and self.extra_axes(n))]
        if unknown:
            raise ValueError(f"sweep: task {self.name!r} has no axis {unknown[0]!r}; its axes are {sorted(self.axes)}")
        missing = [n for n, v in self.axes.items() if v is REQUIRED and n not in names]
        if missing:
            raise ValueError(f"sweep: task {self.name!r} needs the axis {missing[0]!r} in the grid")


# --------------------------------------------------------------------------------------- rff_mse

#: The σ rules of the rff_mse task (the core's names, _core.sweep.sigma_rules()).
SIGMA_RULES: tuple[str, ...] = tuple(_core.sweep.sigma_rules())


def _number(name: str, v: Value) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"sweep: {name} must be a real number, got {v!r}")
    return float(v)


def _integer(name: str, v: Value, minimum: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"sweep: {name} must be an integer, got {v!r}")
    if v < minimum:
        raise ValueError(f"sweep: {name} must be >= {minimum}, got {v!r}")
    return v


def _choice(name: str, v: Value, choices: tuple[str, ...]) -> str:
    if not isinstance(v, str) or v not in choices:
        raise ValueError(f"sweep: {name} must be one of {list(choices)}, got {v!r}")
    return v


_RFF_MSE_OUTPUTS = (
    "sigma_used",
    "target",
    "analytic_mse",
    "empirical_mse",
    "stderr",
    "bias",
    "bias_stderr",
)


# the core's codes: a σ rule is 1 + its index in _core.sweep.sigma_rules() (0: a number), an
# estimator or convention its index in rff.ESTIMATORS / rff.CONVENTIONS
_RULE_CODES = {r: 1 + k for k, r in enumerate(_core.sweep.sigma_rules())}
_ESTIMATOR_CODES = {e: k for k, e in enumerate(rff.ESTIMATORS)}
_CONVENTION_CODES = {c: k for k, c in enumerate(rff.CONVENTIONS)}


def _rff_mse_columns(cells: Sequence[dict[str, Value]]) -> dict[str, np.ndarray[Any, Any]]:
    """The cells' parameters as the core's columns, each value checked on its own (type, range,
    name); raises CellFailure for the first cell with a bad value.
    """
    n = len(cells)
    xi = np.empty(n)
    sigma = np.empty(n)
    ints = np.empty((6, n), dtype=np.int64)  # rule, D, d, estimator, convention, full
    rules, ests, convs = _RULE_CODES, _ESTIMATOR_CODES, _CONVENTION_CODES
    for j, p in enumerate(cells):
        try:
            s = p["sigma"]
            xi[j] = _number("xi", p["xi"])
            e = ests[_choice("estimator", p["estimator"], rff.ESTIMATORS)]
            c = convs[_choice("convention", p["convention"], rff.CONVENTIONS)]
            if isinstance(s, str):
                rule, sigma[j] = rules[_choice("sigma", s, SIGMA_RULES)], math.nan
            else:
                rule, sigma[j] = 0, _number("sigma", s)
            D = _integer("D", p["D"], 1)
            d = _integer("d", p["d"], 2)
            full = _choice("mode", p["mode"], rff.MODES) == "full"
            if not math.isfinite(xi[j]):
                raise ValueError(f"sweep: xi must be finite, got {p['xi']!r}")
            if max(D, d) > _INT64_MAX:  # stored as int64 below; the core checks the limits of D and d
                raise ValueError(f"sweep: D and d must fit in int64, got D={D}, d={d}")
            ints[:, j] = (rule, D, d, e, c, full)
        except (ValueError, TypeError) as exc:
            raise CellFailure(j, exc) from None
    return {
        "xi": xi,
        "sigma": sigma,
        "rule": ints[0],
        "D": ints[1],
        "d": ints[2],
        "estimator": ints[3],
        "convention": ints[4],
        "full": ints[5],
    }


def _rff_mse_check_many(cells: Sequence[dict[str, Value]]) -> None:
    bad, message = _core.sweep.check_rff_mse(**_rff_mse_columns(cells))
    if bad >= 0:
        raise CellFailure(int(bad), ValueError(message))


def _rff_mse_check(p: dict[str, Value]) -> None:
    try:
        _rff_mse_check_many([p])
    except CellFailure as failure:
        raise failure.error from None


def _rff_mse_compute_many(
    cells: Sequence[dict[str, Value]],
    seeds: np.ndarray[Any, Any],
    trials: int | None,
    nthreads: int | None,
    on_rows: OnRows | None,
) -> list[Outputs]:
    """Many cells in one core call (``ropelab._core.sweep.rff_mse``), in parallel over cells."""
    assert trials is not None
    columns = _rff_mse_columns(cells)
    names = _RFF_MSE_OUTPUTS

    def on_done(positions: np.ndarray[Any, Any], rows: np.ndarray[Any, Any]) -> None:
        assert on_rows is not None
        on_rows([(p, dict(zip(names, r))) for p, r in zip(positions.tolist(), rows.tolist())])

    try:
        out = _core.sweep.rff_mse(
            **columns,
            seeds=seeds,
            trials=trials,
            nthreads=nthreads,
            on_done=on_done if on_rows is not None else None,
        )
    except ValueError as exc:
        if len(exc.args) == 2 and isinstance(exc.args[1], int):
            raise CellFailure(exc.args[1], ValueError(exc.args[0])) from None
        raise
    return [dict(zip(names, r)) for r in out.tolist()]


def _rff_mse_compute(p: dict[str, Value], trials: int | None, seed: int, nthreads: int | None) -> Outputs:
    try:
        return _rff_mse_compute_many([p], np.array([seed], dtype=np.uint64), trials, nthreads, None)[0]
    except CellFailure as failure:
        raise failure.error from None


def _rff_mse_cost(p: dict[str, Value], trials: int | None) -> float:
    """Features drawn (a full-mode feature draws a d-dimensional ω), a little per trial, and the
    fixed cost of a cell (σ rule, closed form, statistics: about as much as 50,000 features).
    """
    per_feature = int(p["d"]) if p["mode"] == "full" else 1
    return float(trials or 1) * (int(p["D"]) * per_feature + 8) + 50_000.0


_INT64_MAX = int(np.iinfo(np.int64).max)

RFF_MSE = Task(
    name="rff_mse",
    summary="closed-form and Monte-Carlo MSE of a random-feature estimate of exp(q·k), unit norms",
    axes={
        "xi": REQUIRED,
        "D": REQUIRED,
        "sigma": 1.0,
        "estimator": "trig",
        "convention": "conjugate",
        "d": 64,
        "mode": "projected",
    },
    outputs=(
        ("sigma_used", "float64"),
        ("target", "float64"),
        ("analytic_mse", "float64"),
        ("empirical_mse", "float64"),
        ("stderr", "float64"),
        ("bias", "float64"),
        ("bias_stderr", "float64"),
    ),
    monte_carlo=True,
    check=_rff_mse_check,
    compute=_rff_mse_compute,
    cost=_rff_mse_cost,
    check_many=_rff_mse_check_many,
    compute_many=_rff_mse_compute_many,
)

# ---------------------------------------------------------------------------------- window_merit

_WINDOW_PARAMS = sorted({p for ps in spectra.WINDOWS.values() for p in ps})
_MERIT_FIELDS = tuple((f, t) for f, t in field_types(spectra.FiguresOfMerit).items() if f not in ("N", "pad"))


def _window(p: Mapping[str, Value]) -> np.ndarray[Any, Any]:
    name = p["window"]
    N = _integer("N", p["N"], 1)
    if not isinstance(name, str) or name not in spectra.WINDOWS:
        raise ValueError(f"sweep: window must be one of {sorted(spectra.WINDOWS)}, got {name!r}")
    wanted = spectra.WINDOWS[name]
    params = {k: _number(k, p[k]) for k in wanted if k in p}
    if not isinstance(p["sym"], bool):
        raise TypeError(f"sweep: sym must be a bool, got {p['sym']!r}")
    return spectra.window(name, N, p["sym"], **params)


def _merit_check(p: dict[str, Value]) -> None:
    pad = _integer("pad", p["pad"], 1)
    N = _integer("N", p["N"], 1)
    # figures_of_merit transforms N·pad points (the core's longest signal: FFTW's int sizes)
    if N * pad > spectra.MAX_SIGNAL_LENGTH:
        raise ValueError(f"sweep: N·pad must be <= {spectra.MAX_SIGNAL_LENGTH} (the FFT size), got N={N}, pad={pad}")
    _window(p)


def _merit_compute(p: dict[str, Value], trials: int | None, seed: int, nthreads: int | None) -> Outputs:
    m = spectra.figures_of_merit(_window(p), int(p["pad"]))
    out: Outputs = {}
    for f, _ in _MERIT_FIELDS:
        v = getattr(m, f)
        out[f] = math.nan if v is None else v
    return out


def _merit_cost(p: dict[str, Value], trials: int | None) -> float:
    """An FFT of N·pad points, plus the fixed cost of a cell (about that of 4,096 points)."""
    n = int(p["N"]) * int(p["pad"])
    return n * math.log2(max(2, n)) + 50_000.0


WINDOW_MERIT = Task(
    name="window_merit",
    summary="Harris's figures of merit of a window or SSM decay window (deterministic)",
    axes={"window": REQUIRED, "N": 64, "pad": 64, "sym": False},
    outputs=tuple((f, "bool" if t == "bool" else "float64") for f, t in _MERIT_FIELDS),
    monte_carlo=False,
    check=_merit_check,
    compute=_merit_compute,
    extra_axes=lambda name: name in _WINDOW_PARAMS,
    cost=_merit_cost,
    threaded=False,
)

#: The registered tasks by name.
TASKS: dict[str, Task] = {t.name: t for t in (RFF_MSE, WINDOW_MERIT)}


def get(name: Any) -> Task:
    """The task called ``name`` (``-`` and ``_`` are interchangeable)."""
    if isinstance(name, Task):
        if TASKS.get(name.name) is not name:
            raise ValueError(
                f"sweep: task {name.name!r} is not a registered task; the tasks are {sorted(TASKS)} "
                "(a Dask worker or a store knows a task by its registered name only)"
            )
        return name
    if not isinstance(name, str):
        raise TypeError(f"sweep: task must be a task name, got {name!r}")
    key = name.replace("-", "_")
    if key not in TASKS:
        raise ValueError(f"sweep: unknown task {name!r}; the tasks are {sorted(TASKS)}")
    return TASKS[key]


# ----------------------------------------------------------------------------------- user tasks

#: The tasks that ship with ropelab (never replaced by :func:`register_task`).
BUILTIN = frozenset(TASKS)
_DTYPES = ("float64", "bool")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _user_compute(
    name: str, fn: Callable[..., Mapping[str, Any]], outputs: tuple[tuple[str, str], ...]
) -> Callable[[dict[str, Value], int | None, int, int | None], Outputs]:
    """Wrap a user function: call it by keyword and check what it returns against ``outputs``."""
    wanted = [o for o, _ in outputs]

    def compute(params: dict[str, Value], trials: int | None, seed: int, nthreads: int | None) -> Outputs:
        got = fn(params, trials=trials, seed=seed, nthreads=nthreads)
        if not isinstance(got, Mapping) or sorted(got) != sorted(wanted):
            keys = sorted(got) if isinstance(got, Mapping) else type(got).__name__
            raise ValueError(f"sweep: task {name!r} must return a mapping with the outputs {wanted}, got {keys}")
        out: Outputs = {}
        for o, dtype in outputs:
            v = got[o]
            if dtype == "bool":
                if not isinstance(v, (bool, np.bool_)):
                    raise TypeError(f"sweep: task {name!r}: output {o!r} must be a bool, got {v!r}")
                out[o] = bool(v)
            else:
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise TypeError(f"sweep: task {name!r}: output {o!r} must be a real number, got {v!r}")
                out[o] = float(v)
        return out

    return compute


def register_task(
    name: str,
    fn: Callable[..., Mapping[str, Any]],
    *,
    axes: Mapping[str, Any] | Sequence[str],
    outputs: Mapping[str, str] | Sequence[str],
    monte_carlo: bool = False,
    summary: str = "",
    check: Callable[[dict[str, Value]], None] | None = None,
    cost: Callable[[dict[str, Value], int | None], float] | None = None,
    replace: bool = False,
) -> Task:
    """Make ``fn`` a sweep task, run by :func:`ropelab.sweep.run` like the built-in ones.

    A cell's numbers must depend only on its parameters and the ``seed`` it is given (derived
    from the sweep's seed and the cell's index): draw every random number from it (e.g.
    ``ropelab.rff.estimate(..., seed=seed)`` or ``numpy.random.default_rng(seed)``), and the table
    is the same on every backend, batch size and worker count, as for the built-in tasks.

    Parameters
    ----------
    name : str
        The task's name (letters, digits, ``_``; a built-in name is refused).
    fn : callable
        ``fn(params, *, trials, seed, nthreads) -> {output: value}``: ``params`` maps every axis
        to the cell's value, ``trials`` is the sweep's ``trials`` (``None`` unless ``monte_carlo``),
        ``seed`` the cell's seed and ``nthreads`` the threads it may use. The local backend may
        call it from several threads at once (cells too small to use the threads by themselves
        run concurrently, with ``nthreads=1``): it must be thread-safe, and gains from this only
        where it releases the GIL (NumPy on large arrays, ropelab's compute calls). On Dask the
        function is sent to the workers by pickling: define it at the top level of an importable
        module.
    axes : mapping of str to default, or sequence of str
        The parameters a grid may sweep, with their defaults (:data:`ropelab.sweep.REQUIRED`: none); a sequence
        makes every axis required.
    outputs : mapping of str to {"float64", "bool"}, or sequence of str
        The output columns (a sequence: all ``float64``).
    monte_carlo : bool
        Whether cells draw random numbers (``trials`` is then required by ``run``).
    summary : str
        One line for listings.
    check : callable, optional
        ``check(params)`` raising ValueError/TypeError for a cell that cannot be computed (run for
        every cell before any is computed).
    cost : callable, optional
        ``cost(params, trials) -> float``: a cell's relative work, in any unit shared by the
        task's cells (e.g. the number of samples it draws). The backends use it only to schedule
        (largest cells first, tasks of similar work); it never changes a result. Default: every
        cell costs the same.
    replace : bool
        Replace a user task of the same name (else that is an error).

    Returns
    -------
    Task
        The registered task.

    Raises
    ------
    TypeError
        If ``fn`` or ``check`` is not callable, or an argument has the wrong type.
    ValueError
        For a malformed or taken name, empty ``axes``/``outputs``, an unknown output dtype, or an
        axis and an output of the same name.

    Examples
    --------
    >>> def halve(params, *, trials, seed, nthreads):
    ...     return {"half": params["x"] / 2}
    >>> _ = register_task("halve", halve, axes=["x"], outputs=["half"])
    >>> from ropelab import sweep
    >>> list(sweep.run("halve", {"x": [1.0, 3.0]}, progress=False).half)
    [0.5, 1.5]
    >>> _ = TASKS.pop("halve")
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"register_task: name must be letters, digits and '_' starting with a letter, got {name!r}")
    if name in BUILTIN:
        raise ValueError(f"register_task: {name!r} is a built-in task")
    if name in TASKS and not replace:
        raise ValueError(f"register_task: a task {name!r} is already registered (replace=True replaces it)")
    if not callable(fn):
        raise TypeError(f"register_task: fn must be callable, got {fn!r}")
    if check is not None and not callable(check):
        raise TypeError(f"register_task: check must be callable or None, got {check!r}")
    if cost is not None and not callable(cost):
        raise TypeError(f"register_task: cost must be callable or None, got {cost!r}")
    if isinstance(axes, str) or not isinstance(axes, (Mapping, Sequence)):
        raise TypeError(
            f"register_task: axes must be a mapping of name -> default or a sequence of names, got {axes!r}"
        )
    axes_map = dict(axes) if isinstance(axes, Mapping) else dict.fromkeys(axes, REQUIRED)
    if isinstance(outputs, str) or not isinstance(outputs, (Mapping, Sequence)):
        raise TypeError(
            f"register_task: outputs must be a mapping of name -> dtype or a sequence of names, got {outputs!r}"
        )
    out_map = dict(outputs) if isinstance(outputs, Mapping) else dict.fromkeys(outputs, "float64")
    for kind, names in (("axes", axes_map), ("outputs", out_map)):
        if not names:
            raise ValueError(f"register_task: {kind} must not be empty")
        bad = [n for n in names if not isinstance(n, str) or not _NAME.match(n)]
        if bad:
            raise ValueError(f"register_task: {kind} names must be identifiers, got {bad[0]!r}")
    bad_dtype = {o: t for o, t in out_map.items() if t not in _DTYPES}
    if bad_dtype:
        raise ValueError(f"register_task: output dtypes must be one of {_DTYPES}, got {bad_dtype}")
    clash = sorted(set(axes_map) & set(out_map))
    if clash:
        raise ValueError(f"register_task: {clash[0]!r} is both an axis and an output")
    if not isinstance(monte_carlo, (bool, np.bool_)):
        raise TypeError(f"register_task: monte_carlo must be a bool, got {monte_carlo!r}")
    monte_carlo = bool(monte_carlo)
    outs = tuple((o, str(t)) for o, t in out_map.items())
    task = Task(
        name=name,
        summary=str(summary),
        axes=axes_map,
        outputs=outs,
        monte_carlo=monte_carlo,
        check=check if check is not None else (lambda params: None),
        compute=_user_compute(name, fn, outs),
        cost=cost,
    )
    TASKS[name] = task
    return task
