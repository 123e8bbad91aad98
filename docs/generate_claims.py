"""Write docs/claims.md from the claim registry (statements, sources, expected verdicts)."""

from __future__ import annotations

from pathlib import Path


def write_claims_page(path: Path) -> None:
    from ropelab import claims

    lines = [
        "# The claims",
        "",
        "Generated from `ropelab.claims.REGISTRY` at build time. `ropelab verify` computes each verdict;",
        "the column *expected* is what the mathematics gives, so a mismatch is a regression.",
        "",
    ]
    # one heading per section, in the order `ropelab verify` reports them (ropelab.claims.SECTIONS)
    for title in claims.SECTIONS.values():
        rows = [c for c in claims.REGISTRY.values() if c.section == title]
        if not rows:
            continue
        lines += ["", f"## {title}", "", "| id | source | statement | expected |", "|---|---|---|---|"]
        for c in rows:
            stmt = c.statement.replace("|", "\\|")
            lines.append(f"| `{c.id}` | {c.source} | {stmt} | {c.expected} |")
    text = "\n".join(lines) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
