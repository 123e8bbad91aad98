"""Claim statements are text with real LaTeX, rendered offline as Unicode text, MathML and reST."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from ropelab import _latex, claims, report

#: Outside ``$...$`` a statement (condition, corrected statement) is prose: no LaTeX syntax and no maths written with Unicode symbols.
PSEUDO_LATEX = re.compile(r"[\\{}^]|[A-Za-z]_[A-Za-z0-9({]|[α-ωΑ-Ω·‖ᵀ⟨⟩≠≈≤≥Σ√½⋯…∼∈−]|[\u2070-\u209f\u1d2c-\u1dbf]")


def _reader_facing() -> list[tuple[str, str]]:
    return [(c.id, c.statement) for c in claims.REGISTRY.values() if c.plugin is None]


def test_no_pseudo_latex_outside_the_maths() -> None:
    bad = []
    for cid, statement in _reader_facing():
        prose = "".join(part for kind, part in _latex.segments(statement) if kind == "text")
        if PSEUDO_LATEX.search(prose):
            bad.append((cid, PSEUDO_LATEX.findall(prose), statement))
    assert not bad, bad


def test_every_statement_converts() -> None:
    for cid, statement in _reader_facing():
        maths = [part for kind, part in _latex.segments(statement) if kind == "math"]
        for m in maths:
            text = _latex.to_unicode(m)
            assert text and "\\" not in text and "{" not in text, (cid, m, text)
            ET.fromstring(_latex.to_mathml(m))  # well-formed XML
        rst = _latex.to_rst(statement)
        assert rst.count(":math:`") == len(maths), cid
        assert "$" not in _latex.to_text(statement), cid


@pytest.mark.parametrize(
    ("latex", "text"),
    [
        (r"\langle R_m q, R_n k\rangle = q^\top R_{n-m} k", "⟨Rₘq, Rₙk⟩ = qᵀRₙ₋ₘk"),
        (r"\sigma = \tan(\tfrac{1}{2}\arccos\xi)", "σ = tan(½ arccos ξ)"),
        (r"e^{i\omega\cdot(q_t - q_\tau)}", "e^(iω·(qₜ−q_τ))"),
        (r"1/\sqrt{d}", "1/√d"),
        (r"\mathbb{E}[\hat K] \neq e^{1/2}", "𝔼[K̂] ≠ e^(1/2)"),
        (r"\frac{a+b}{c}", "(a + b)/c"),
        (r"x_t^2", "xₜ²"),
    ],
)
def test_unicode_forms(latex: str, text: str) -> None:
    assert _latex.to_unicode(latex) == text


def test_mathml_structure() -> None:
    root = ET.fromstring(_latex.to_mathml(r"R_{n-m} + \frac{1}{\sqrt{d}}"))
    tags = {el.tag.split("}")[1] for el in root.iter()}
    assert {"math", "msub", "mfrac", "msqrt", "mi", "mn", "mo"} <= tags
    assert root.get("alttext") == r"R_{n-m} + \frac{1}{\sqrt{d}}"


@pytest.mark.parametrize("bad", [r"\foo x", r"x^{2", r"x}", r"\frac{1}", "a $ b"])
def test_malformed_maths_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="LaTeX|unmatched"):
        _latex.to_text(f"${bad}$" if "$" not in bad else bad)


def test_the_decorator_refuses_a_statement_that_does_not_render() -> None:
    with pytest.raises(ValueError, match=r"claim 'mine\.bad': statement: .*unknown command \\nosuch"):
        claims.claim("mine.bad", source="s", statement=r"$\nosuch x$", expected="holds")
    assert "mine.bad" not in claims.REGISTRY


def test_reports_render_the_maths() -> None:
    results = claims.run(["rope.relative", "thm1.tan_rule", "rope.pseudocode_layout"])
    text = report.terminal(results)
    assert "⟨Rₘq, Rₙk⟩ = qᵀRₙ₋ₘk" in text and "$" not in text and "\\" not in text
    page = report.to_html(results)
    assert page.count("<math ") >= 6 and "<code>rotate_half</code>" in page
    cells = re.findall(r"<em>(.*?)</em>", page)
    assert cells and not any("$" in c or "\\langle" in re.sub(r'alttext="[^"]*"', "", c) for c in cells)
    assert '<mi mathvariant="normal">tan</mi>' in page
    assert "<math " in results._repr_html_()


def test_docstrings_carry_the_maths_as_math_roles() -> None:
    doc = claims.REGISTRY["rope.relative"].check.__doc__ or ""
    assert r":math:`\langle R_m q, R_n k\rangle = q^\top R_{n-m} k`" in doc
