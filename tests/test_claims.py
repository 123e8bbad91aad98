"""The claim registry: every registered claim's computed verdict equals the expected verdict it was
registered with (the single source: tests/claims_expected.py only derives from it and bounds the
counts), and every check can fail — perturbing the computation it relies on flips its verdict."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ropelab as rl
from ropelab import claims, paper_tables, rff, temperature
from tests.claims_expected import MIN_BUILTIN_CLAIMS, MIN_BUILTIN_VERDICTS, builtin_claims, expected_verdicts
from tests.test_claims_expressivity import PERTURBATIONS as EXPRESSIVITY_PERTURBATIONS
from tests.test_claims_more import EXTRA_PERTURBATIONS
from tests.test_claims_more import PERTURBATIONS as MORE_PERTURBATIONS
from tests.test_related_claims import PERTURBATIONS as RELATED_PERTURBATIONS


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
        assert c.section != "Other", c.id
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


# ---- perturbations: each flips the verdict of the claim that depends on it ----------------------


def _literal_moments(orig: Callable[..., Any]) -> Callable[..., Any]:
    def moments(
        q: Any, k: Any, sigma: Any = 1.0, estimator: str = "trig", convention: str = "conjugate", **kw: Any
    ) -> Any:
        return orig(q, k, sigma, estimator, "literal" if estimator == "trig" else convention, **kw)

    return moments


def _conjugate_moments(orig: Callable[..., Any]) -> Callable[..., Any]:
    def moments(
        q: Any, k: Any, sigma: Any = 1.0, estimator: str = "trig", convention: str = "conjugate", **kw: Any
    ) -> Any:
        return orig(q, k, sigma, estimator, "conjugate", **kw)

    return moments


def _conjugate_estimate(orig: Callable[..., Any]) -> Callable[..., Any]:
    def estimate(
        q: Any,
        k: Any,
        D: int,
        sigma: float = 1.0,
        estimator: str = "trig",
        convention: str = "conjugate",
        *a: Any,
        **kw: Any,
    ) -> Any:
        return orig(q, k, D, sigma, estimator, "conjugate", *a, **kw)

    return estimate


PERTURBATIONS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # an unconjugated feature product breaks the Gaussian identity
    "rff.gaussian_identity": lambda m: m.setattr(rff, "moments", _literal_moments(rff.moments)),
    # a "literal" product that secretly conjugates makes Eq. (8) look right
    "rff.eq8_literal": lambda m: (
        m.setattr(rff, "moments", _conjugate_moments(rff.moments)),
        m.setattr(rff, "estimate", _conjugate_estimate(rff.estimate)),
    ),
    # an optimiser that returns the paper's rule makes Theorem 1 look right
    "thm1.tan_rule": lambda m: m.setattr(
        temperature, "optimal_sigma", lambda xi, D, *a, **k: temperature.paper_sigma(xi)
    ),
    # a counterexample computed with the literal product shows no bias
    "thm1.counterexample": lambda m: m.setattr(
        temperature,
        "counterexample",
        (
            lambda orig: (
                lambda xi=0.5: temperature.Counterexample(
                    **(orig(xi).as_dict() | {"mean_paper": orig(xi).mean_paper_literal})
                )
            )
        )(temperature.counterexample),
    ),
    # a bias-zeroing rule that ignores the convention
    "thm1.literal_origin": lambda m: m.setattr(
        temperature, "unbiased_sigma", lambda xi, *a, **k: np.ones_like(np.asarray(xi, float))
    ),
    # a closed form off by a factor no longer matches Monte Carlo
    "thm1.finite_D": lambda m: m.setattr(
        temperature, "mse", (lambda orig: lambda *a, **k: 1.5 * np.asarray(orig(*a, **k)))(temperature.mse)
    ),
    # a tan rule that returns σ = 1 makes the paper's temperature look harmless in attention
    "thm1.attention": lambda m: m.setattr(temperature, "paper_sigma", lambda xi: 1.0),
    # an optimiser stuck at σ = 1 for positive features
    "prf.sigma_one": lambda m: m.setattr(temperature, "optimal_sigma", lambda xi, D, *a, **k: 1.0),
    # a mis-transcribed table entry
    "tables.avg_ppl": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "RoPE", (21.52, 46.5)),
    "tables.deltas": lambda m: m.setitem(paper_tables.TABLE1_MAD_AVG, "NoPE", 66.3),
}


ALL_PERTURBATIONS = PERTURBATIONS | MORE_PERTURBATIONS | EXPRESSIVITY_PERTURBATIONS | RELATED_PERTURBATIONS


@pytest.mark.parametrize("cid", sorted(ALL_PERTURBATIONS))
def test_perturbation_flips_verdict(monkeypatch: pytest.MonkeyPatch, cid: str) -> None:
    (before,) = claims.run([cid])
    assert before.matches
    ALL_PERTURBATIONS[cid](monkeypatch)
    (after,) = claims.run([cid])
    assert after.error is None, after.error
    assert after.verdict != before.verdict or not after.matches


def test_every_registered_claim_has_a_perturbation_test() -> None:
    assert set(ALL_PERTURBATIONS) == set(EXPECTED), sorted(set(EXPECTED) ^ set(ALL_PERTURBATIONS))


@pytest.mark.parametrize("name", sorted(EXTRA_PERTURBATIONS))
def test_extra_perturbation_flips_verdict(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Second perturbations of the strengthened checks: each part of such a check can fail on its own."""
    cid, perturb = EXTRA_PERTURBATIONS[name]
    assert cid in EXPECTED
    (before,) = claims.run([cid])
    assert before.matches
    perturb(monkeypatch)
    (after,) = claims.run([cid])
    assert after.error is None, after.error
    assert after.verdict != before.verdict or not after.matches


def test_counterexample_values_in_report(results: dict[str, claims.ClaimResult]) -> None:
    r = results["thm1.counterexample"]
    assert r.values["sigma_paper_sq"] == pytest.approx(1 / 3, rel=1e-14)
    assert r.values["mean_paper"] == pytest.approx(np.exp(5 / 6), rel=1e-14)
    assert r.values["target"] == pytest.approx(np.exp(0.5), rel=1e-14)
    assert float(r.values["optimal_sigma"]["1"]) ** 2 == pytest.approx(1 / 3, rel=1e-12)
    t = results["thm1.tan_rule"]
    assert "u³ + (D−1)u − D e^{ξ−1} = 0" in (t.corrected or "")
    assert set(t.values["sigma_star_xi_half"]) >= {"1", "16", "256"}
    assert results["thm1.literal_origin"].verdict == "holds"
    assert rl.__version__
