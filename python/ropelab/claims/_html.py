"""The Jupyter views of claim results: coloured verdicts and statements with their maths as MathML."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ropelab import _latex
from ropelab._display import short_value, verdict_html

if TYPE_CHECKING:
    from ropelab.claims._registry import ClaimResult


def statement_html(text: str) -> str:
    """A statement (or condition, corrected statement) as HTML with MathML; as given if its LaTeX does not render."""
    try:
        return _latex.to_html(text)
    except ValueError:
        return html.escape(text)


def _verdict(r: ClaimResult) -> str:
    return verdict_html("error" if r.error is not None else str(r.verdict))


def result_html(r: ClaimResult) -> str:
    """One result as an HTML table: verdict, statement, condition, corrected statement and the computed values."""
    e = html.escape
    expected = e(r.expected) + ("" if r.matches else " &#9888; unexpected")
    rows: list[tuple[str, str]] = [
        ("verdict", f"{_verdict(r)} (expected: {expected})"),
        ("statement", statement_html(r.statement)),
        ("source", e(r.source)),
    ]
    if r.error:
        rows.append(("error", f"<code>{e(r.error)}</code>"))
    if r.condition:
        rows.append(("condition", statement_html(r.condition)))
    if r.corrected:
        own = {True: "holds", False: "does not hold", None: "not checked"}[r.corrected_holds]
        rows.append((f"corrected (own check: {own})", statement_html(r.corrected)))
    rows += [(f"<code>{e(k)}</code>", e(short_value(v, 100))) for k, v in r.values.items()]
    rows.append(("tolerance", e(r.tolerance)))
    rows.append(("time", f"{r.seconds:.3g}&#8239;s"))
    body = "".join(
        f"<tr><th style='text-align:left'>{k}</th><td style='text-align:left'>{v}</td></tr>" for k, v in rows
    )
    return f"<table><caption style='text-align:left'><b>ClaimResult</b> <code>{e(r.id)}</code></caption>{body}</table>"


def results_html(results: Sequence[ClaimResult], caption: str) -> str:
    """A list of results as one HTML table, one row per claim, verdicts coloured."""
    e = html.escape
    head = "".join(
        f"<th style='text-align:left'>{h}</th>" for h in ("id", "verdict", "expected", "source", "statement")
    )
    rows = "".join(
        f"<tr><td style='text-align:left'><code>{e(r.id)}</code></td><td style='text-align:left'>{_verdict(r)}</td>"
        f"<td style='text-align:left'>{e(r.expected)}{'' if r.matches else ' &#9888;'}</td>"
        f"<td style='text-align:left'>{e(r.source)}</td>"
        f"<td style='text-align:left'>{statement_html(r.statement)}</td></tr>"
        for r in results
    )
    return f"<table><caption style='text-align:left'>{e(caption)}</caption><tr>{head}</tr>{rows}</table>"
