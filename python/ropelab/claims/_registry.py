"""The claim registry: what a claim is, what its check returns, and how checks are run.

A claim is a statement from the study notes (``source``) with the verdict the mathematics gives
(``expected``). Its check computes numbers with ropelab's public functions and *derives* a verdict
from them: ``holds`` (true as written, to the stated tolerance), ``holds-if`` (true only under a
condition the paper leaves implicit; the check shows a case inside the condition where it holds and
one outside where it fails) or ``fails`` (false as written; the check shows a counterexample and
verifies the corrected statement). ``ropelab verify`` reports a mismatch between the derived and
the expected verdict as a regression.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = [
    "Verdict",
    "Evidence",
    "Claim",
    "ClaimResult",
    "REGISTRY",
    "SECTIONS",
    "claim",
    "derive_verdict",
    "run",
]

Verdict = Literal["holds", "holds-if", "fails"]
VERDICTS: tuple[Verdict, ...] = ("holds", "holds-if", "fails")

#: Report sections, in order, keyed by the claim id's prefix.
SECTIONS: dict[str, str] = {
    "rope": "RoPE (RoFormer)",
    "complex": "RoPE (RoFormer)",
    "rff": "Random features and the softmax kernel",
    "thm1": "Temperature (Theorem 1)",
    "prf": "Temperature (Theorem 1)",
    "eq11": "Linear attention and recurrences",
    "srope": "Selective RoPE",
    "gate": "Gated rotations and transitions",
    "householder": "Gated rotations and transitions",
    "ssm": "SSM windows and spectral leakage",
    "alibi": "Related models",
    "cosformer": "Related models",
    "tables": "Reported results",
}


def derive_verdict(holds_in_general: bool, holds_under_condition: bool | None = None) -> Verdict:
    """The verdict from two computed facts.

    ``holds_in_general``: the statement held on every case tried, including adversarial ones.
    ``holds_under_condition``: it held on every case satisfying the implicit condition (``None`` when
    the claim names no condition). A statement that fails in general but holds under its condition is
    ``holds-if``; one that fails with no condition rescuing it is ``fails``.
    """
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
    """A registered claim."""

    id: str
    source: str
    statement: str
    expected: Verdict
    check: Callable[[], Evidence]

    @property
    def section(self) -> str:
        return SECTIONS.get(self.id.split(".")[0], "Other")


@dataclass
class ClaimResult:
    """The outcome of one check, ready for the report (``as_dict`` is its JSON form)."""

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
    figure: Callable[[], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def matches(self) -> bool:
        """The derived verdict equals the expected one and any corrected statement checked out."""
        return self.error is None and self.verdict == self.expected and self.corrected_holds is not False

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("figure", None)
        d["matches"] = self.matches
        return d


#: id -> Claim, in registration order.
REGISTRY: dict[str, Claim] = {}


def claim(id: str, *, source: str, statement: str, expected: Verdict) -> Callable[[Callable[[], Evidence]], Callable[[], Evidence]]:
    """Register ``check`` as the check of claim ``id``."""
    for name, value in (("id", id), ("source", source), ("statement", statement)):
        if not isinstance(value, str):
            raise TypeError(f"claim: {name} must be a str, got {value!r} of type {type(value).__name__}")
        if not value.strip():
            raise ValueError(f"claim: {name} must not be empty, got {value!r}")
    if not isinstance(expected, str) or expected not in VERDICTS:
        raise ValueError(f"claim: expected must be one of {VERDICTS}, got {expected!r}")

    def register(check: Callable[[], Evidence]) -> Callable[[], Evidence]:
        if not callable(check):
            raise TypeError(f"claim: the decorated check of {id!r} must be callable, got {check!r}")
        if id in REGISTRY:
            raise ValueError(f"claim: duplicate claim id {id!r}")
        REGISTRY[id] = Claim(id, source, statement, expected, check)
        return check

    return register


def _run_one(c: Claim) -> ClaimResult:
    t0 = time.perf_counter()
    try:
        ev = c.check()
        if ev.verdict not in VERDICTS:
            raise ValueError(f"check of {c.id} returned verdict {ev.verdict!r}")
        corrected_holds = None if ev.corrected_holds is None else bool(ev.corrected_holds)
        return ClaimResult(c.id, c.section, c.source, c.statement, c.expected, ev.verdict, ev.values, ev.tolerance,
                           ev.inputs, ev.condition, ev.counterexample, ev.corrected, corrected_holds,
                           time.perf_counter() - t0, None, ev.figure)
    except Exception as exc:  # a broken check is reported, never hidden
        err = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        return ClaimResult(c.id, c.section, c.source, c.statement, c.expected, None, {}, "", {}, None, None, None,
                           None, time.perf_counter() - t0, err, None)


def run(
    ids: Iterable[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> list[ClaimResult]:
    """Run the checks of ``ids`` (all registered claims when ``None``), in registry order.

    Parameters
    ----------
    ids : iterable of str, optional
        Claim ids; unknown ids raise ValueError naming them.
    progress : callable, optional
        Called as ``progress(done, total, claim_id)`` before each check.

    Returns
    -------
    list of ClaimResult
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
    results = []
    for n, cid in enumerate(wanted):
        if progress is not None:
            progress(n, len(wanted), cid)
        results.append(_run_one(REGISTRY[cid]))
    if progress is not None:
        progress(len(wanted), len(wanted), "")
    return results
