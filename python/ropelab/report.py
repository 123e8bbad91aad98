"""Renderers of claim results: terminal table, JSON, Markdown and a self-contained HTML report."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ropelab import _latex, _validation
from ropelab._docstrings import shared
from ropelab._provenance import provenance as _provenance
from ropelab._public import public_dir
from ropelab.claims import SECTIONS, USER_SECTION, ClaimResult

__all__ = [
    "summary",
    "summary_line",
    "terminal",
    "to_json",
    "to_markdown",
    "to_html",
    "render_figures",
    "claim_provenance",
]

_COLORS = {"holds": "\033[32m", "holds-if": "\033[33m", "fails": "\033[31m", None: "\033[35m"}
_RESET = "\033[0m"


def _check_results(results: Any, func: str) -> None:
    """TypeError naming ``results`` unless it is a sequence of ClaimResult (from claims.run)."""
    if isinstance(results, (str, bytes)) or not isinstance(results, Sequence):
        raise TypeError(
            f"{func}: results must be a sequence of ClaimResult (from claims.run), got {type(results).__name__}"
        )
    for i, r in enumerate(results):
        if not isinstance(r, ClaimResult):
            raise TypeError(
                f"{func}: results must be a sequence of ClaimResult (from claims.run), "
                f"element {i} is {type(r).__name__}"
            )


def _jsonable(x: Any) -> Any:
    """Make values JSON-safe: numpy scalars/arrays to Python, non-finite floats to strings."""
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "tolist"):
        return _jsonable(x.tolist())
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return x


def _seeds(x: Any) -> list[int]:
    """Every integer stored under a key named ``seed`` or ``seeds`` in a claim's inputs."""
    found: list[int] = []
    if isinstance(x, Mapping):
        for k, v in x.items():
            if str(k) in ("seed", "seeds"):
                found += [int(s) for s in (v if isinstance(v, (list, tuple)) else [v]) if isinstance(s, int)]
            else:
                found += _seeds(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            found += _seeds(v)
    return found


def claim_provenance(results: Sequence[ClaimResult]) -> dict[str, Any]:
    """The provenance record of a set of claim results (software, machine, seeds, time).

    Parameters
    ----------
    results : sequence of ClaimResult
        The results the record describes; their inputs' seeds are collected.

    Returns
    -------
    dict
        Keys ``ropelab`` (version), ``git_commit`` (the commit of a build from a checkout, or
        ``None``), ``python``, ``numpy``, ``platform``, ``machine``, ``simd`` (the Monte-Carlo
        kernels' path), ``threads``, ``seeds`` (the claims' seeds, sorted, without repeats) and
        ``utc`` (ISO 8601, seconds).

    Examples
    --------
    >>> from ropelab import claims
    >>> claim_provenance(claims.run(["rff.eq8_literal"]))["ropelab"] == __import__("ropelab").__version__
    True
    """
    _check_results(results, "claim_provenance")
    return _provenance(seeds=[s for r in results for s in _seeds(r.inputs)])


def _provenance_lines(p: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(label, text) rows of a provenance record, for the Markdown and HTML headers."""
    commit = p.get("git_commit") or "(not built from a git checkout)"
    seeds = ", ".join(str(s) for s in p.get("seeds", [])) or "(none)"
    return [
        ("ropelab", f"{p.get('ropelab')} (commit {commit})"),
        ("Python / NumPy", f"{p.get('python')} / {p.get('numpy')}"),
        ("Platform", f"{p.get('platform')} ({p.get('machine')})"),
        ("SIMD path / threads", f"{p.get('simd')} / {p.get('threads')}"),
        ("Seeds", seeds),
        ("Run at (UTC)", str(p.get("utc"))),
    ]


@shared
def summary(results: Sequence[ClaimResult]) -> dict[str, int]:
    """Count the verdicts (``error`` for checks that raised) and of mismatches with the registry.

    Parameters
    ----------
    {results}

    Returns
    -------
    dict of str to int
        ``claims`` (the number of results), ``holds``, ``holds-if``, ``fails``, ``error`` and
        ``unexpected`` (results whose verdict differs from the expected one, or that raised, or
        whose corrected statement did not check out).

    Examples
    --------
    >>> from ropelab import claims
    >>> summary(claims.run(["tables.deltas"]))["holds"]
    1
    """
    _check_results(results, "summary")
    c = Counter(r.verdict if r.error is None else "error" for r in results)
    return {
        "claims": len(results),
        "holds": c["holds"],
        "holds-if": c["holds-if"],
        "fails": c["fails"],
        "error": c["error"],
        "unexpected": sum(not r.matches for r in results),
    }


def _figures(func: str, figures: Any) -> Mapping[str, Path]:
    """``figures`` (claim id to figure file, or None): TypeError naming it unless a mapping."""
    if figures is None:
        return {}
    if not isinstance(figures, Mapping):
        raise TypeError(
            f"{func}: figures must be a mapping of claim id to figure path (from render_figures) or None, "
            f"got {type(figures).__name__}"
        )
    return figures


def _seconds(func: str, seconds: Any) -> float | None:
    """``seconds`` as a non-negative float (a NumPy scalar too), or None."""
    if seconds is None:
        return None
    s = _validation.real_number(func, "seconds", seconds)
    if s < 0:
        raise ValueError(f"{func}: seconds must be >= 0, got {seconds!r}")
    return s


@shared
def summary_line(results: Sequence[ClaimResult], seconds: float | None = None) -> str:
    """One line: counts per verdict and whether every verdict is the expected one.

    Parameters
    ----------
    {results}
    {seconds}

    Returns
    -------
    str
        The line, without a newline.

    Examples
    --------
    >>> from ropelab import claims
    >>> summary_line(claims.run(["rff.eq8_literal"]))
    '1 claim: 0 holds, 0 holds-if, 1 fails; all verdicts as expected'
    """
    _check_results(results, "summary_line")
    seconds = _seconds("summary_line", seconds)
    s = summary(results)
    parts = f"{_count(s['claims'], 'claim')}: {s['holds']} holds, {s['holds-if']} holds-if, {s['fails']} fails"
    if s["error"]:
        parts += f", {_count(s['error'], 'error')}"
    parts += "; all verdicts as expected" if s["unexpected"] == 0 else f"; {s['unexpected']} UNEXPECTED"
    if seconds is not None:
        parts += f" ({seconds:.1f} s)"
    return parts


def _count(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless ``n`` is 1 ("1 claim", "2 claims")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _text(s: str) -> str:
    """Text with inline LaTeX as plain Unicode text; text outside the subset as given."""
    try:
        return _latex.to_text(s)
    except ValueError:
        return s


def _html(s: str) -> str:
    """Text with inline LaTeX as HTML with MathML; text outside the subset escaped as given."""
    try:
        return _latex.to_html(s)
    except ValueError:
        return html.escape(s)


def _grouped(results: Sequence[ClaimResult]) -> list[tuple[str, list[ClaimResult]]]:
    groups: dict[str, list[ClaimResult]] = {}
    for r in results:
        groups.setdefault(r.section, []).append(r)
    order = [*SECTIONS.values(), USER_SECTION]
    order += [s for s in groups if s not in order]  # a result from elsewhere: after the known sections
    return [(s, groups[s]) for s in order if s in groups]


def _short(x: Any, width: int = 160) -> str:
    s = json.dumps(_jsonable(x), ensure_ascii=False)
    return s if len(s) <= width else s[: width - 3] + "..."


@shared
def terminal(results: Sequence[ClaimResult], color: bool = False, width: int = 120) -> str:
    """A readable table grouped by section, with the verdict coloured when ``color``.

    Parameters
    ----------
    {results}
    color : bool
        Colour the verdicts with ANSI escape codes.
    width : int
        Target line width; a statement that does not fit goes on its own line.

    Returns
    -------
    str
        The table (lines joined by newlines, no trailing newline).

    Raises
    ------
    TypeError
        If ``results`` is not a sequence of ClaimResult, ``color`` not a bool or ``width`` not an
        integer.
    ValueError
        If ``width`` is negative or beyond int64.

    Examples
    --------
    >>> from ropelab import claims
    >>> print(terminal(claims.run(["tables.avg_ppl"])))  # doctest: +ELLIPSIS
    Reported results
    ----------------
      tables.avg_ppl             holds    Selective RoPE Tables 2 and 3
          Table 2's Avg-PPL ...
    """
    _check_results(results, "terminal")
    _validation.boolean("terminal", "color", color)
    width = _validation.integer("terminal", "width", width, 0, 2**63 - 1)
    lines: list[str] = []
    id_w = max([26] + [len(r.id) for r in results])
    src_w = min(max([14] + [len(r.source) for r in results]), 40)
    for section, rs in _grouped(results):
        lines.append("")
        lines.append(section)
        lines.append("-" * len(section))
        for r in rs:
            verdict = r.verdict if r.error is None else "error"
            v = f"{verdict:8s}"
            if color:
                v = f"{_COLORS.get(r.verdict if r.error is None else None, '')}{v}{_RESET}"
            flag = "" if r.matches else f"  <-- expected {r.expected}"
            room = max(20, width - (id_w + src_w + 14))
            statement = _text(r.statement)
            if len(statement) <= room and len(r.source) <= src_w:
                lines.append(f"  {r.id:{id_w}s} {v} {r.source:{src_w}s} {statement}{flag}")
            else:  # the whole statement, on its own line
                lines.append(f"  {r.id:{id_w}s} {v} {r.source}{flag}")
                lines.append(f"      {statement}")
            if r.error:
                lines.append(f"      error: {r.error}")
            if r.condition:
                lines.append(f"      condition: {_text(r.condition)}")
            if r.counterexample:
                lines.append(f"      counterexample: {_short(r.counterexample, width)}")
            if r.corrected:
                ok = {True: "checked: holds", False: "checked: DOES NOT HOLD", None: "not checked"}[r.corrected_holds]
                lines.append(f"      corrected ({ok}): {_text(r.corrected)}")
    return "\n".join(lines).lstrip("\n")


@shared
def to_json(
    results: Sequence[ClaimResult], seconds: float | None = None, provenance: Mapping[str, Any] | None = None
) -> str:
    """Machine-readable report: ``{"provenance": ..., "summary": ..., "claims": [one per claim]}``.

    ``provenance`` defaults to :func:`claim_provenance` of ``results``.

    Parameters
    ----------
    {results}
    {seconds}
    {provenance}

    Returns
    -------
    str
        Indented JSON; non-finite floats become the strings ``"inf"``, ``"-inf"``, ``"nan"``.

    Examples
    --------
    >>> import json
    >>> from ropelab import claims
    >>> json.loads(to_json(claims.run(["tables.deltas"])))["claims"][0]["verdict"]
    'holds'
    """
    _check_results(results, "to_json")
    seconds = _seconds("to_json", seconds)
    prov = dict(provenance) if provenance is not None else claim_provenance(results)
    payload = {
        "provenance": prov,
        "summary": summary(results) | ({"seconds": seconds} if seconds is not None else {}),
        "claims": [_jsonable(r.as_dict()) for r in results],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


def render_figures(results: Sequence[ClaimResult], directory: str | os.PathLike[str]) -> dict[str, Path]:
    """Draw each claim's figure to ``directory/<id>.png``.

    Figures are drawn as bare :class:`matplotlib.figure.Figure` objects (:func:`ropelab.plot.detached`):
    matplotlib's backend and pyplot are never touched. Several claims may illustrate themselves with
    the same figure: it is drawn once per figure function and written once per distinct content,
    so every claim that shares it maps to the same file (named after the first such claim).

    Parameters
    ----------
    results : sequence of ClaimResult
        From :func:`ropelab.claims.run`; claims without a figure, or whose check raised, are skipped.
    directory : str or os.PathLike
        Folder for the PNG files (created if missing).

    Returns
    -------
    dict of str to pathlib.Path
        Claim id -> its PNG file; claims that share a figure share the path.

    Raises
    ------
    ValueError
        If a result with a figure has an id that is not a claim id (dot-separated words of letters,
        digits, ``_`` and ``-``): the id names the file, so ``"../x"``, an absolute path or a trailing
        newline are refused before anything is written.
    OSError
        If ``directory`` cannot be created or a file cannot be written.
    ImportError
        If matplotlib is not installed.

    Examples
    --------
    >>> import tempfile
    >>> from ropelab import claims
    >>> with tempfile.TemporaryDirectory() as d:
    ...     paths = render_figures(claims.run(["ssm.window_rect"]), d)
    ...     print(sorted(p.name for p in paths.values()))
    ['ssm.window_rect.png']
    """
    _check_results(results, "render_figures")
    import hashlib
    import io

    from ropelab import plot
    from ropelab.claims._registry import _ID

    for i, r in enumerate(results):  # each id names a file in ``directory``: nothing may leave it
        if r.figure is not None and (not isinstance(r.id, str) or not _ID.match(r.id)):
            raise ValueError(
                f"render_figures: results[{i}].id must be a claim id (dot-separated words of letters, digits, "
                f"'_' and '-'), as it names the figure's file in directory; got {r.id!r}"
            )
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    by_function: dict[Any, Path] = {}
    by_content: dict[str, Path] = {}
    with plot.detached():
        for r in results:
            if r.figure is None or r.error is not None:
                continue
            if r.figure in by_function:  # the same figure function: the same picture
                paths[r.id] = by_function[r.figure]
                continue
            buf = io.BytesIO()
            r.figure().savefig(buf, format="png", dpi=110, bbox_inches="tight")
            data = buf.getvalue()
            digest = hashlib.sha256(data).hexdigest()
            path = by_content.get(digest)
            if path is None:
                path = out / f"{r.id}.png"
                if path.parent != out:  # pragma: no cover - the id pattern has no separator
                    raise ValueError(f"render_figures: the id {r.id!r} would leave directory {str(out)!r}")
                path.write_bytes(data)
                by_content[digest] = path
            paths[r.id] = by_function[r.figure] = path
    return paths


def _figure_owners(figures: Mapping[str, Path]) -> dict[str, str]:
    """Id -> the first id (in ``figures`` order) whose figure has the same file or the same bytes."""
    import hashlib

    owner_of: dict[str, str] = {}
    first: dict[str, str] = {}
    for rid, p in figures.items():
        path = Path(p)
        try:
            key = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:  # unreadable: to_html reports it when it embeds the file
            key = str(path.resolve())
        owner_of[rid] = first.setdefault(key, rid)
    return owner_of


def _details(r: ClaimResult, width: int) -> list[tuple[str, str, bool]]:
    """The per-claim fields every report shows, as (label, text, is_code) in display order."""
    rows: list[tuple[str, str, bool]] = []
    if r.plugin:
        rows.append(("Registered by", r.plugin, True))
    if r.error:
        rows.append(("Error", r.error, True))
    if r.condition:
        rows.append(("Condition", r.condition, False))
    if r.counterexample:
        rows.append(("Counterexample", _short(r.counterexample, width), True))
    if r.corrected:
        own = "holds" if r.corrected_holds else "does not hold"
        rows.append((f"Corrected statement (own check: {own})", r.corrected, False))
    rows.append(("Tolerance", r.tolerance, False))
    rows.append(("Inputs", _short(r.inputs, width), True))
    return rows


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


@shared
def to_markdown(
    results: Sequence[ClaimResult],
    figures: Mapping[str, Path] | None = None,
    relative_to: str | os.PathLike[str] | None = None,
    seconds: float | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> str:
    """Markdown report; figure links are made relative to ``relative_to`` (the report's folder).

    ``provenance`` (default: :func:`claim_provenance` of ``results``) is shown under the title.

    Parameters
    ----------
    {results}
    figures : mapping of str to pathlib.Path, optional
        Claim id to figure file (as returned by :func:`render_figures`).
    relative_to : str or path-like, optional
        Folder the figure links are made relative to; ``None`` keeps the paths as given.
    {seconds}
    {provenance}

    Returns
    -------
    str
        The Markdown document: a summary table, then one section per claim.

    Raises
    ------
    TypeError
        If ``results`` is not a sequence of ClaimResult, ``figures`` not a mapping (or None),
        ``relative_to`` not a path (or None), or ``seconds`` not a real number.

    Examples
    --------
    >>> from ropelab import claims
    >>> to_markdown(claims.run(["tables.deltas"])).splitlines()[0]
    '# ropelab verify'
    """
    _check_results(results, "to_markdown")
    seconds = _seconds("to_markdown", seconds)
    figures = _figures("to_markdown", figures)
    if relative_to is not None and not isinstance(relative_to, (str, os.PathLike)):
        raise TypeError(
            f"to_markdown: relative_to must be a str, a path or None, got {relative_to!r} of type "
            f"{type(relative_to).__name__}"
        )
    base = Path(relative_to) if relative_to is not None else None
    prov = provenance if provenance is not None else claim_provenance(results)
    out = ["# ropelab verify", "", summary_line(results, seconds), ""]
    out += [f"- **{label}:** {_md_escape(text)}" for label, text in _provenance_lines(prov)]
    out += ["", "| id | verdict | expected | source | statement |", "|---|---|---|---|---|"]
    for r in results:
        verdict = r.verdict if r.error is None else "error"
        out.append(
            f"| `{r.id}` | **{verdict}** | {r.expected}{'' if r.matches else ' ⚠'} | {r.source} | "
            f"{_md_escape(r.statement)} |"
        )
    for section, rs in _grouped(results):
        out += ["", f"## {section}"]
        for r in rs:
            out += [
                "",
                f"### `{r.id}` — {r.verdict if r.error is None else 'error'}",
                "",
                f"*{r.statement}* ({r.source})",
                "",
            ]
            out += [f"- **{label}:** " + (f"`{text}`" if code else text) for label, text, code in _details(r, 400)]
            if r.id in figures:
                p = figures[r.id]
                rel = os.path.relpath(p, base) if base is not None else str(p)
                out += ["", f"![{r.id}]({Path(rel).as_posix()})"]
            out += [
                "",
                "<details><summary>Computed values</summary>",
                "",
                "```json",
                json.dumps(_jsonable(r.values), indent=1, ensure_ascii=False),
                "```",
                "",
                "</details>",
            ]
    return "\n".join(out) + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:1em} .provenance th{width:14em} td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
.holds{color:#1a7f37;font-weight:bold}.holds-if{color:#9a6700;font-weight:bold}.fails{color:#cf222e;font-weight:bold}
.error{color:#8250df;font-weight:bold} pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:12px}
img{max-width:100%;border:1px solid #eee} .claim{border-top:1px solid #ccc;margin-top:1.5em}
math{font-size:1.05em} em math{font-style:normal}
"""


@shared
def to_html(
    results: Sequence[ClaimResult],
    figures: Mapping[str, Path] | None = None,
    seconds: float | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> str:
    """A self-contained HTML report: the figures are embedded as base64 PNG data.

    ``provenance`` (default: :func:`claim_provenance` of ``results``) is shown under the title.

    Parameters
    ----------
    {results}
    figures : mapping of str to pathlib.Path, optional
        Claim id to PNG file (as returned by :func:`render_figures`), embedded in the page.
    {seconds}
    {provenance}

    Returns
    -------
    str
        The HTML document.

    Examples
    --------
    >>> from ropelab import claims
    >>> to_html(claims.run(["tables.deltas"])).startswith("<!DOCTYPE html>")
    True
    """
    _check_results(results, "to_html")
    seconds = _seconds("to_html", seconds)
    figures = _figures("to_html", figures)
    shown = [r.id for _, rs in _grouped(results) for r in rs if r.id in figures]
    owners = _figure_owners({rid: figures[rid] for rid in shown})
    e = html.escape
    rows = []
    for r in results:
        v = r.verdict if r.error is None else "error"
        rows.append(
            f"<tr><td><a href='#{e(r.id)}'><code>{e(r.id)}</code></a></td><td class='{v}'>{v}</td>"
            f"<td>{e(r.expected)}{'' if r.matches else ' &#9888;'}</td><td>{e(r.source)}</td><td>{_html(r.statement)}</td></tr>"
        )
    prov = provenance if provenance is not None else claim_provenance(results)
    body = [
        f"<h1>ropelab verify</h1><p>{e(summary_line(results, seconds))}</p>",
        "<table class='provenance'>",
        *(f"<tr><th>{e(label)}</th><td>{e(text)}</td></tr>" for label, text in _provenance_lines(prov)),
        "</table>",
        "<table><tr><th>id</th><th>verdict</th><th>expected</th><th>source</th><th>statement</th></tr>",
        *rows,
        "</table>",
    ]
    for section, rs in _grouped(results):
        body.append(f"<h2>{e(section)}</h2>")
        for r in rs:
            v = r.verdict if r.error is None else "error"
            body.append(
                f"<div class='claim' id='{e(r.id)}'><h3><code>{e(r.id)}</code> — <span class='{v}'>{v}</span></h3>"
            )
            body.append(f"<p><em>{_html(r.statement)}</em> ({e(r.source)})</p><ul>")
            body += [
                f"<li><b>{e(label)}:</b> " + (f"<code>{e(text)}</code>" if code else _html(text)) + "</li>"
                for label, text, code in _details(r, 600)
            ]
            body.append("</ul>")
            if r.id in figures and owners.get(r.id, r.id) != r.id:  # the same picture is shown once
                first = owners[r.id]
                body.append(f"<p>Figure: the same as <a href='#{e(first)}'><code>{e(first)}</code></a>'s.</p>")
            elif r.id in figures:
                data = base64.b64encode(Path(figures[r.id]).read_bytes()).decode("ascii")
                body.append(f"<img alt='{e(r.id)}' src='data:image/png;base64,{data}'>")
            body.append(
                "<details><summary>Computed values</summary><pre>"
                f"{e(json.dumps(_jsonable(r.values), indent=1, ensure_ascii=False))}</pre></details></div>"
            )
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>ropelab verify</title>"
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>\n"
    )


__dir__ = public_dir(__name__)  # tab completion: the API above, not the imports
