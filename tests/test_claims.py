"""The claim registry: every registered claim's computed verdict equals the expected verdict it was
registered with (the single source: tests/claims_expected.py only derives from it and bounds the
counts); the layout (one module per report section); and every check can fail — perturbing the
computation it relies on flips its verdict (tests/test_claims_<section>.py, one file per section)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ropelab as rl
from ropelab import _latex, claims, temperature
from tests.claims_expected import MIN_BUILTIN_CLAIMS, MIN_BUILTIN_VERDICTS, builtin_claims, expected_verdicts
from tests.test_latex import PSEUDO_LATEX


@pytest.fixture(scope="module")
def results() -> dict[str, claims.ClaimResult]:
    return {r.id: r for r in claims.run()}


EXPECTED = expected_verdicts()


def test_no_builtin_claim_silently_removed() -> None:
    assert len(EXPECTED) >= MIN_BUILTIN_CLAIMS, sorted(EXPECTED)
    counts = {v: sum(e == v for e in EXPECTED.values()) for v in MIN_BUILTIN_VERDICTS}
    assert all(counts[v] >= MIN_BUILTIN_VERDICTS[v] for v in counts), counts


def test_builtin_claims_have_a_section_and_a_source() -> None:
    for c in builtin_claims().values():
        assert c.section in claims.SECTIONS.values(), c.id
        assert c.source and c.statement, c.id


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_computed_verdict_is_expected(results: dict[str, claims.ClaimResult], cid: str) -> None:
    r = results[cid]
    assert r.error is None, r.error
    assert r.verdict == claims.REGISTRY[cid].expected == r.expected, r.values
    assert r.matches
    if r.verdict in ("holds-if", "fails"):
        assert r.counterexample, "holds-if/fails must show the case where the statement fails"
        assert r.corrected and r.corrected_holds is True
    if r.verdict == "holds-if":
        assert r.condition
    # the condition and the corrected statement are text with real LaTeX, like the statement
    for text in (r.condition, r.corrected):
        if text:
            prose = "".join(part for kind, part in _latex.segments(text) if kind == "text")
            assert not PSEUDO_LATEX.search(prose), (cid, PSEUDO_LATEX.findall(prose))
            assert "$" not in _latex.to_text(text) and "<math " in _latex.to_html(text) or "$" not in text


def test_unknown_id_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"unknown claim id\(s\) \['nope'\]"):
        claims.run(["nope"])


def test_run_subset_in_registry_order_with_progress() -> None:
    seen: list[tuple[int, int, str]] = []
    rs = claims.run(["tables.deltas", "tables.avg_ppl"], progress=lambda d, t, c: seen.append((d, t, c)))
    assert [r.id for r in rs] == ["tables.avg_ppl", "tables.deltas"]
    assert seen[-1] == (2, 2, "")


def test_a_raising_check_is_reported_not_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("broken core")

    monkeypatch.setattr(temperature, "counterexample", boom)
    (r,) = claims.run(["thm1.counterexample"])
    assert r.verdict is None and "broken core" in (r.error or "") and not r.matches


# ---- the layout: one module per report section -------------------------------------------------


def _section_key(c: claims.Claim) -> str:
    package, module = c.check.__module__.split(".")[1:3]
    assert package == "claims", c.id
    return module


def test_a_claims_section_is_the_module_that_registers_it() -> None:
    for c in builtin_claims().values():
        assert c.section == claims.SECTIONS[_section_key(c)], c.id


def test_every_id_prefix_belongs_to_one_module() -> None:
    modules: dict[str, set[str]] = {}
    for c in builtin_claims().values():
        modules.setdefault(c.id.split(".")[0], set()).add(_section_key(c))
    assert all(len(m) == 1 for m in modules.values()), modules


def test_registry_order_is_report_order() -> None:
    sections = [c.section for c in builtin_claims().values()]
    assert list(dict.fromkeys(sections)) == list(claims.SECTIONS.values())
    assert sections == sorted(sections, key=list(claims.SECTIONS.values()).index)


def test_a_prefix_of_another_module_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def check() -> claims.Evidence:
        return claims.Evidence("holds", {}, "exact")

    monkeypatch.setattr(check, "__module__", "ropelab.claims.tables")
    with pytest.raises(ValueError, match=r"id prefix 'rope' belongs to ropelab\.claims\.rope"):
        claims.claim("rope.misplaced", source="derived", statement="s", expected="holds")(check)
    assert "rope.misplaced" not in claims.REGISTRY


def test_claims_modules_stay_small() -> None:
    package = Path(claims.__file__).parent
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in package.rglob("*.py")}
    assert max(sizes.values()) <= 600, sizes


def test_the_decorator_writes_the_check_docstring() -> None:
    for c in builtin_claims().values():
        doc = c.check.__doc__ or ""
        assert doc.startswith(f"Check the claim ``{c.id}``; expected verdict: {c.expected}.\n"), c.id
        assert " ".join(_latex.to_rst(c.statement).split()) in " ".join(doc.split()), c.id
        assert f"Statement ({c.source}):" in doc and "\nReturns\n-------\nEvidence\n" in doc, c.id


def test_a_checks_own_docstring_is_kept_as_its_description() -> None:
    def check() -> claims.Evidence:
        """Computed twice, by two routes."""
        return claims.Evidence("holds", {}, "exact")

    try:
        claims.claim("mine.documented", source="derived", statement="x = x", expected="holds")(check)
        doc = check.__doc__ or ""
        assert doc.startswith("Check the claim ``mine.documented``; expected verdict: holds.\n")
        assert (
            doc.index("Statement (derived): x = x.")
            < doc.index("Computed twice, by two routes.")
            < doc.index("Returns")
        )
    finally:
        claims.REGISTRY.pop("mine.documented", None)


def test_every_builtin_claim_has_a_perturbation_test() -> None:
    """Each section's perturbations live in tests/test_claims_<section>.py (see tests/claims_perturb.py)."""
    covered: dict[str, str] = {}
    for section in claims.SECTIONS:
        module = importlib.import_module(f"tests.test_claims_{section}")
        assert module.SECTION == section
        for cid in module.PERTURBATIONS:
            assert cid not in covered, (cid, covered.get(cid), section)
            covered[cid] = section
    assert set(covered) == set(EXPECTED), sorted(set(EXPECTED) ^ set(covered))


def test_counterexample_values_in_report(results: dict[str, claims.ClaimResult]) -> None:
    r = results["thm1.counterexample"]
    assert r.values["sigma_paper_sq"] == pytest.approx(1 / 3, rel=1e-14)
    assert r.values["mean_paper"] == pytest.approx(np.exp(5 / 6), rel=1e-14)
    assert r.values["target"] == pytest.approx(np.exp(0.5), rel=1e-14)
    assert float(r.values["optimal_sigma"]["1"]) ** 2 == pytest.approx(1 / 3, rel=1e-12)
    t = results["thm1.tan_rule"]
    assert "u³ + (D − 1)u − De^(ξ−1) = 0" in _latex.to_text(t.corrected or "")
    assert set(t.values["sigma_star_xi_half"]) >= {"1", "16", "256"}
    assert results["thm1.literal_origin"].verdict == "holds"
    assert rl.__version__
