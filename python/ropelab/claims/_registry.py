"""The claim registry: what a claim is, what its check returns, and how checks are run.

Users add claims of their own with the :func:`claim` decorator in a module of theirs; ``ropelab
verify --plugin MODULE`` imports it, and installed packages that declare the entry-point group
``ropelab.claims`` are imported by :func:`load_plugins` (which ``ropelab verify`` calls). Such
claims are reported in a section of their own, :data:`ropelab.claims.USER_SECTION`.

A claim is a statement of a paper (``source``: the paper and its equation, theorem, section or
table) with the verdict the mathematics gives
(``expected``). Its check computes numbers with ropelab's public functions and *derives* a verdict
from them: ``holds`` (true as written, to the stated tolerance), ``holds-if`` (true only under a
condition the paper leaves implicit; the check shows a case inside the condition where it holds and
one outside where it fails) or ``fails`` (false as written; the check shows a counterexample and
verifies the corrected statement). ``ropelab verify`` reports a mismatch between the derived and
the expected verdict as a regression.
"""

from __future__ import annotations

import importlib
import inspect
import re
import textwrap
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ropelab import _latex
from ropelab._display import ResultDisplay
from ropelab._validation import boolean

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Verdict",
    "Evidence",
    "Claim",
    "ClaimResult",
    "ClaimResults",
    "REGISTRY",
    "SECTIONS",
    "USER_SECTION",
    "ENTRY_POINT_GROUP",
    "PluginError",
    "claim",
    "derive_verdict",
    "load_plugins",
    "run",
]

#: A verdict: ``holds`` (true as written), ``holds-if`` (true only under a condition the paper leaves
#: implicit) or ``fails`` (false as written).
Verdict = Literal["holds", "holds-if", "fails"]
VERDICTS: tuple[Verdict, ...] = ("holds", "holds-if", "fails")

#: Report sections, in report order: the module of ``ropelab.claims`` that holds a section's claims
#: (a module ``ropelab.claims.<name>``, or a package of that name for a large section) -> the
#: section's title. A built-in claim's section is the module it is registered from; each id prefix
#: (the part before the first dot) belongs to one such module.
SECTIONS: dict[str, str] = {
    "rope": "RoPE (RoFormer)",
    "positions": "Position encodings, attention scale and extrapolation",
    "random_features": "Random features and the softmax kernel",
    "temperature": "Temperature (Theorem 1)",
    "linear_attention": "Linear attention and recurrences",
    "selective": "Selective RoPE",
    "gates": "Gated rotations and transitions",
    "spectra": "SSM windows and spectral leakage",
    "related": "Related models",
    "expressivity": "Expressivity and state tracking",
    "tables": "Reported results",
}


#: The report section of claims registered outside ropelab (plugins).
USER_SECTION = "User claims"
#: The entry-point group whose modules :func:`load_plugins` imports.
ENTRY_POINT_GROUP = "ropelab.claims"
#: Claim ids: dot-separated words of letters, digits, ``_`` and ``-`` (at least two words).
_ID = re.compile(r"\A[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+\Z")
#: The package whose modules register the built-in claims.
_BUILTIN_PACKAGE = "ropelab.claims"


def _section_module(module: str) -> str | None:
    """The key of :data:`ropelab.claims.SECTIONS` for a check defined in ``module``; ``None`` outside the section modules."""
    parts = module.split(".")
    if ".".join(parts[:2]) != _BUILTIN_PACKAGE or len(parts) < 3 or parts[2] not in SECTIONS:
        return None
    return parts[2]


def _docstring(id: str, source: str, statement: str, expected: Verdict, own: str | None) -> str:
    """The check's docstring, written from the claim's fields (and the check's own text, if any)."""
    stated = _latex.to_rst(statement.strip())
    if not stated.endswith((".", "?", "!")):
        stated += "."
    text = textwrap.fill(f"Statement ({source.strip()}): {stated}", 100, break_long_words=False, break_on_hyphens=False)
    parts = [f"Check the claim ``{id}``; expected verdict: {expected}.", text]
    if own and own.strip():
        parts.append(inspect.cleandoc(own))
    parts.append(
        "Returns\n-------\nEvidence\n    The verdict derived from the computed values, with the tolerance and the inputs."
    )
    return "\n\n".join(parts) + "\n"


class PluginError(ImportError):
    """A claims plugin (a module or an entry point) could not be imported."""


def derive_verdict(holds_in_general: bool, holds_under_condition: bool | None = None) -> Verdict:
    """The verdict from two computed facts.

    A statement that fails in general but holds under its condition is ``holds-if``; one that fails
    with no condition rescuing it is ``fails``.

    Parameters
    ----------
    holds_in_general : bool
        The statement held on every case tried, including adversarial ones.
    holds_under_condition : bool or None
        It held on every case satisfying the implicit condition (``None`` when the claim names no
        condition).

    Returns
    -------
    {"holds", "holds-if", "fails"}
        The verdict.

    Raises
    ------
    TypeError
        If an argument is not a bool (NumPy's included; ``holds_under_condition`` may be None).

    Examples
    --------
    >>> derive_verdict(True), derive_verdict(False, True), derive_verdict(False, False)
    ('holds', 'holds-if', 'fails')
    """
    boolean("derive_verdict", "holds_in_general", holds_in_general)
    boolean("derive_verdict", "holds_under_condition", holds_under_condition, none=True)
    if holds_in_general:
        return "holds"
    if holds_under_condition:
        return "holds-if"
    return "fails"


@dataclass
class Evidence:
    """What a check computes.

    Attributes
    ----------
    verdict : {"holds", "holds-if", "fails"}
        Derived from the numbers (normally with :func:`derive_verdict`).
    values : dict
        The computed numbers (JSON-serialisable), named so a reader can follow the argument.
    tolerance : str
        The tolerance(s) used and why.
    inputs : dict
        The inputs, including seeds.
    condition : str, optional
        For ``holds-if``: the condition under which the statement is true.
    counterexample : dict, optional
        For ``holds-if``/``fails``: a case where the statement as written is false, with its numbers.
    corrected : str, optional
        The corrected statement (``fails``) or the statement with its condition (``holds-if``).
    corrected_holds : bool, optional
        The result of the corrected statement's own check.
    figure : callable, optional
        ``figure()`` returns a matplotlib Figure illustrating the claim.
    """

    verdict: Verdict
    values: dict[str, Any]
    tolerance: str
    inputs: dict[str, Any] = field(default_factory=dict)
    condition: str | None = None
    counterexample: dict[str, Any] | None = None
    corrected: str | None = None
    corrected_holds: bool | None = None
    figure: Callable[[], Any] | None = None


@dataclass(frozen=True)
class Claim:
    """A registered claim.

    Attributes
    ----------
    id : str
        Dotted identifier; its prefix (the part before the first dot) belongs to one section module.
    source : str
        Where the statement comes from: paper and equation, theorem, section or table.
    statement : str
        The claim as the paper makes it: text with inline LaTeX between dollar signs and code
        between backticks.
    expected : {"holds", "holds-if", "fails"}
        The verdict the mathematics gives; a different derived verdict is a regression.
    check : callable
        ``check()`` computes the numbers and returns an :class:`Evidence`.
    plugin : str or None
        The module that registered a user claim; ``None`` for ropelab's own claims.
    """

    id: str
    source: str
    statement: str
    expected: Verdict
    check: Callable[[], Evidence]
    plugin: str | None = None

    @property
    def section(self) -> str:
        """The report section: that of the module defining the check (:data:`ropelab.claims.SECTIONS`); :data:`ropelab.claims.USER_SECTION` for plugins."""
        key = None if self.plugin is not None else _section_module(str(getattr(self.check, "__module__", "")))
        return USER_SECTION if key is None else SECTIONS[key]


@dataclass(repr=False)
class ClaimResult(ResultDisplay):
    """The outcome of one check, ready for the report (``as_dict`` is its JSON form).

    Attributes
    ----------
    id, section, source, statement, expected
        As in :class:`Claim`.
    verdict : {"holds", "holds-if", "fails"} or None
        The derived verdict; ``None`` when the check raised.
    values, tolerance, inputs, condition, counterexample, corrected, corrected_holds
        As in :class:`Evidence` (empty or ``None`` when the check raised).
    seconds : float
        Wall time of the check.
    error : str or None
        The exception the check raised, as one line, or ``None``.
    plugin : str or None
        The module that registered a user claim; ``None`` for ropelab's own claims.
    figure : callable or None
        ``figure()`` returns a matplotlib Figure illustrating the claim.
    """

    id: str
    section: str
    source: str
    statement: str
    expected: Verdict
    verdict: Verdict | None
    values: dict[str, Any]
    tolerance: str
    inputs: dict[str, Any]
    condition: str | None
    counterexample: dict[str, Any] | None
    corrected: str | None
    corrected_holds: bool | None
    seconds: float
    error: str | None = None
    plugin: str | None = None
    figure: Callable[[], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def statement_text(self) -> str:
        """The statement as plain Unicode text (the LaTeX written out, e.g. ``"R_{n-m}"`` as ``"Rₙ₋ₘ"``)."""
        return _latex.to_text(self.statement)

    @property
    def matches(self) -> bool:
        """The derived verdict equals the expected one and any corrected statement checked out."""
        return self.error is None and self.verdict == self.expected and self.corrected_holds is not False

    def as_dict(self) -> dict[str, Any]:
        """The result as a dictionary (without the figure, with ``matches``).

        Returns
        -------
        dict of str to object
            The fields by name, plus ``matches``.
        """
        d = asdict(self)
        d.pop("figure", None)
        d["matches"] = self.matches
        return d

    def _repr_html_(self) -> str:
        from ropelab.claims._html import result_html

        return result_html(self)


class ClaimResults(list[ClaimResult]):
    """The list of results :func:`run` returns, with a table view.

    It is a plain list of :class:`ClaimResult` (indexing, iteration and ``len`` as usual) that
    also converts to a pandas DataFrame and shows itself as a table in Jupyter.

    Parameters
    ----------
    iterable : iterable of ClaimResult, optional
        The results, as for :class:`list`.
    """

    def to_dataframe(self) -> pd.DataFrame:
        """One row per claim, indexed by claim id.

        Returns
        -------
        pandas.DataFrame
            Columns ``section, source, statement, expected, verdict, matches, error, condition,
            corrected, corrected_holds, tolerance, seconds, values, inputs, counterexample``
            (the last three hold the dicts of the JSON report).

        Examples
        --------
        >>> df = run(["tables.deltas"]).to_dataframe()
        >>> df.loc["tables.deltas", "verdict"], bool(df.loc["tables.deltas", "matches"])
        ('holds', True)
        """
        import pandas as pd

        columns = (
            "section source statement expected verdict matches error condition corrected corrected_holds tolerance "
            "seconds values inputs counterexample"
        ).split()
        rows = [r.as_dict() for r in self]
        df: pd.DataFrame = pd.DataFrame(
            [{c: row[c] for c in columns} for row in rows],
            columns=columns,
            index=pd.Index([row["id"] for row in rows], name="id"),
        )
        return df

    def __repr__(self) -> str:
        counts = {v: sum(r.verdict == v and r.error is None for r in self) for v in VERDICTS}
        errors = sum(r.error is not None for r in self)
        unexpected = sum(not r.matches for r in self)
        n = len(self)
        return (
            f"ClaimResults({n} claim{'' if n == 1 else 's'}: {counts['holds']} holds, {counts['holds-if']} holds-if, "
            f"{counts['fails']} fails, {errors} error{'' if errors == 1 else 's'}; {unexpected} unexpected)"
        )

    def _repr_html_(self) -> str:
        from ropelab.claims._html import results_html

        return results_html(self, repr(self))


#: id -> Claim, in registration order.
REGISTRY: dict[str, Claim] = {}


def claim(
    id: str, *, source: str, statement: str, expected: Verdict
) -> Callable[[Callable[[], Evidence]], Callable[[], Evidence]]:
    """Decorator: register the decorated function as the check of claim ``id``.

    The check takes no arguments and returns an :class:`Evidence` whose verdict it derives from
    numbers it computes (normally with :func:`derive_verdict`); ``ropelab verify`` reports a
    verdict other than ``expected`` as a regression. The decorator writes the check's docstring
    from ``id``, ``source``, ``statement`` and ``expected`` (a docstring the check has of its own
    is kept as the extended description). A check registered from a module outside ropelab is a
    user claim: it is reported in the section :data:`ropelab.claims.USER_SECTION`; ropelab's own
    claims are reported in the section of the module that registers them (:data:`ropelab.claims.SECTIONS`).

    Parameters
    ----------
    id : str
        A unique id of dot-separated words, e.g. ``"mylab.rope_bound"``.
    source : str
        Where the statement comes from (paper, section, equation).
    statement : str
        The statement checked, in one sentence: text with inline LaTeX between dollar signs and
        code between backticks; the LaTeX in the subset the reports render offline.
    expected : {"holds", "holds-if", "fails"}
        The verdict the mathematics gives.

    Returns
    -------
    callable
        The decorator; it returns the check, with its docstring written from the claim's fields.

    Raises
    ------
    TypeError
        If ``id``, ``source`` or ``statement`` is not a string, or the decorated object is not callable.
    ValueError
        For a malformed or duplicate ``id``, an empty ``statement``/``source`` or one whose LaTeX does not
        render, an unknown ``expected``;
        for a claim of ropelab's own whose id prefix belongs to another section module.

    Examples
    --------
    >>> @claim("example.doc_identity", source="this docstring", statement="2 + 2 = 4", expected="holds")
    ... def _check() -> Evidence:
    ...     return Evidence(derive_verdict(2 + 2 == 4), {"sum": 2 + 2}, "exact")
    >>> run(["example.doc_identity"])[0].verdict
    'holds'
    >>> print(_check.__doc__.splitlines()[0])
    Check the claim ``example.doc_identity``; expected verdict: holds.
    >>> _ = REGISTRY.pop("example.doc_identity")
    """
    for name, value in (("id", id), ("source", source), ("statement", statement)):
        if not isinstance(value, str):
            raise TypeError(f"claim: {name} must be a string, got {value!r}")
        if not value.strip():
            raise ValueError(f"claim: {name} must not be empty, got {value!r}")
    if not _ID.match(id):
        raise ValueError(f"claim: id must be dot-separated words (e.g. 'mylab.bound'), got {id!r}")
    if not isinstance(expected, str) or expected not in VERDICTS:
        raise ValueError(f"claim: expected must be one of {VERDICTS}, got {expected!r}")
    try:
        _latex.to_text(statement)
    except ValueError as exc:  # maths outside the subset the reports render, or an unmatched $
        raise ValueError(f"claim {id!r}: statement: {exc}") from None

    def register(check: Callable[[], Evidence]) -> Callable[[], Evidence]:
        if not callable(check):
            raise TypeError(f"claim {id!r}: the decorated object must be callable, got {check!r}")
        if id in REGISTRY:
            raise ValueError(f"claim: duplicate claim id {id!r}")
        module = str(getattr(check, "__module__", None) or "")
        section = _section_module(module)
        if section is not None:
            prefix = id.split(".")[0]
            for other in REGISTRY.values():
                theirs = None if other.plugin is not None else _section_module(other.check.__module__)
                if theirs is not None and theirs != section and other.id.split(".")[0] == prefix:
                    raise ValueError(
                        f"claim {id!r}: the id prefix {prefix!r} belongs to {_BUILTIN_PACKAGE}.{theirs} "
                        f"(claim {other.id!r}); register it there or choose another prefix"
                    )
        try:
            check.__doc__ = _docstring(id, source, statement, expected, getattr(check, "__doc__", None))
        except (AttributeError, TypeError):  # a callable whose docstring cannot be set keeps its own
            pass
        REGISTRY[id] = Claim(id, source, statement, expected, check, None if section else module or "(unknown)")
        return check

    return register


def load_plugins(modules: Iterable[str] = (), *, entry_points: bool = True) -> list[str]:
    """Import the modules that register user claims.

    Parameters
    ----------
    modules : iterable of str
        Module names to import (``ropelab verify --plugin MODULE``).
    entry_points : bool
        Also import every module of the installed entry-point group :data:`ropelab.claims.ENTRY_POINT_GROUP`
        (each once per process).

    Returns
    -------
    list of str
        The modules and entry points imported, in order (``"name = module"`` for entry points).

    Raises
    ------
    TypeError
        If a module name is not a string.
    PluginError
        If a module or entry point cannot be imported (the message names it and the cause).

    Examples
    --------
    >>> load_plugins(["ropelab.claims.tables"], entry_points=False)
    ['ropelab.claims.tables']
    >>> load_plugins(["no_such_module_xyz"], entry_points=False)
    Traceback (most recent call last):
    ...
    ropelab.claims._registry.PluginError: claims plugin 'no_such_module_xyz' could not be imported: ...
    """
    loaded: list[str] = []
    for name in modules:
        if not isinstance(name, str):
            raise TypeError(f"load_plugins: module names must be strings, got {name!r}")
        try:
            importlib.import_module(name)
        except Exception as exc:
            raise PluginError(f"claims plugin {name!r} could not be imported: {type(exc).__name__}: {exc}") from exc
        loaded.append(name)
    if entry_points:
        from importlib.metadata import entry_points as installed

        for ep in installed(group=ENTRY_POINT_GROUP):
            try:
                ep.load()
            except Exception as exc:
                raise PluginError(
                    f"claims entry point {ep.name!r} ({ep.value}) of group {ENTRY_POINT_GROUP!r} "
                    f"could not be imported: {type(exc).__name__}: {exc}"
                ) from exc
            loaded.append(f"{ep.name} = {ep.value}")
    return loaded


def _run_one(c: Claim) -> ClaimResult:
    t0 = time.perf_counter()
    claim = (c.id, c.section, c.source, c.statement, c.expected)
    try:
        ev = c.check()
        if ev.verdict not in VERDICTS:
            raise ValueError(f"check of {c.id} returned verdict {ev.verdict!r}")
        corrected_holds = None if ev.corrected_holds is None else bool(ev.corrected_holds)
        return ClaimResult(
            *claim,
            ev.verdict,
            ev.values,
            ev.tolerance,
            ev.inputs,
            ev.condition,
            ev.counterexample,
            ev.corrected,
            corrected_holds,
            time.perf_counter() - t0,
            error=None,
            plugin=c.plugin,
            figure=ev.figure,
        )
    except Exception as exc:  # a broken check is reported, never hidden
        err = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return ClaimResult(
            *claim,
            None,
            {},
            "",
            {},
            None,
            None,
            None,
            None,
            time.perf_counter() - t0,
            error=err,
            plugin=c.plugin,
        )


def run(
    ids: Iterable[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> ClaimResults:
    """Run the checks of ``ids`` (all registered claims when ``None``), in registry order.

    Parameters
    ----------
    ids : iterable of str, optional
        Claim ids; unknown ids raise ValueError naming them.
    progress : callable, optional
        Called as ``progress(done, total, claim_id)`` before each check.

    Returns
    -------
    ClaimResults
        A list of :class:`ClaimResult`, one per claim, that also converts to a DataFrame
        (:meth:`ClaimResults.to_dataframe`).

    Raises
    ------
    TypeError
        If ``ids`` is not an iterable of strings or ``progress`` is not callable.
    ValueError
        If ``ids`` names an unknown claim.

    Examples
    --------
    >>> [(r.id, r.verdict) for r in run(["thm1.counterexample"])]
    [('thm1.counterexample', 'holds')]
    """
    wanted: Sequence[str]
    if progress is not None and not callable(progress):
        raise TypeError(f"claims.run: progress must be callable or None, got {progress!r}")
    if ids is None:
        wanted = list(REGISTRY)
    else:
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
            raise TypeError(f"claims.run: ids must be an iterable of claim ids (str) or None, got {ids!r}")
        listed = list(ids)
        bad = [i for i in listed if not isinstance(i, str)]
        if bad:
            raise TypeError(f"claims.run: ids must be claim ids (str), got {bad[0]!r} of type {type(bad[0]).__name__}")
        wanted = list(dict.fromkeys(listed))
        unknown = [i for i in wanted if i not in REGISTRY]
        if unknown:
            raise ValueError(f"claims.run: unknown claim id(s) {unknown}; known: {sorted(REGISTRY)}")
        wanted = [i for i in REGISTRY if i in wanted]
    results = ClaimResults()
    for n, cid in enumerate(wanted):
        if progress is not None:
            progress(n, len(wanted), cid)
        results.append(_run_one(REGISTRY[cid]))
    if progress is not None:
        progress(len(wanted), len(wanted), "")
    return results
