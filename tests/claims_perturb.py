"""What the per-section perturbation tests (tests/test_claims_<section>.py) share.

Every report section of ``ropelab verify`` is one module ``ropelab.claims.<section>``, and its
claims' perturbation tests are one file ``tests/test_claims_<section>.py`` with ``PERTURBATIONS``
(claim id -> a perturbation that flips that claim's verdict; every claim of the section has one)
and, where a check has several parts, ``EXTRA_PERTURBATIONS`` (name -> (claim id, perturbation):
each part can fail on its own). A perturbation monkeypatches the mathematics the check relies on
(normally one public function of ropelab) with a subtly wrong version.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ropelab import claims

#: A perturbation: applied with the test's monkeypatch, undone when the test ends.
Perturbation = Callable[[pytest.MonkeyPatch], None]


def wrap(mod: Any, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Perturbation:
    """Replace ``mod.name`` by ``make(original)``."""

    def apply(m: pytest.MonkeyPatch) -> None:
        m.setattr(mod, name, make(getattr(mod, name)))

    return apply


def scaled(mod: Any, *names: str) -> Perturbation:
    """Every call of ``mod.<name>`` for each of ``names`` returns 1.001 × the true result: the core's
    routes still agree with each other, only an independent route sees it."""

    def apply(m: pytest.MonkeyPatch) -> None:
        for name in names:
            wrap(mod, name, lambda o: lambda *a, **k: 1.001 * o(*a, **k))(m)

    return apply


def mode_wrap(mod: Any, name: str, bad_mode: str, change: Callable[[Any], Any]) -> Perturbation:
    """Perturb only the calls made with mode=bad_mode (the other route stays correct)."""

    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def f(*a: Any, **k: Any) -> Any:
            out = orig(*a, **k)
            called_with = k.get("mode") == bad_mode or any(isinstance(x, str) and x == bad_mode for x in a)
            return change(out) if called_with else out

        return f

    return wrap(mod, name, make)


def section_claims(section: str) -> set[str]:
    """The ids of the built-in claims registered by ``ropelab.claims.<section>``."""
    assert section in claims.SECTIONS, section
    title = claims.SECTIONS[section]
    return {cid for cid, c in claims.REGISTRY.items() if c.plugin is None and c.section == title}


def assert_flips(monkeypatch: pytest.MonkeyPatch, cid: str, perturb: Perturbation) -> None:
    """The claim's verdict is as expected before ``perturb`` and no longer after it (without an error)."""
    (before,) = claims.run([cid])
    assert before.matches, (before.verdict, before.error)
    perturb(monkeypatch)
    (after,) = claims.run([cid])
    assert after.error is None, after.error
    assert after.verdict != before.verdict or not after.matches


def add_section_tests(
    namespace: dict[str, Any],
    section: str,
    perturbations: dict[str, Perturbation],
    extra: dict[str, tuple[str, Perturbation]] | None = None,
) -> None:
    """Define the tests of one section's file in its module ``namespace`` (call it with ``globals()``):
    every claim of ``section`` has a perturbation, each perturbation flips its claim's verdict, and
    so does each of ``extra`` (when there are any).
    """

    def test_every_claim_of_the_section_has_a_perturbation() -> None:
        assert set(perturbations) == section_claims(section)
        assert {cid for cid, _ in (extra or {}).values()} <= section_claims(section)

    @pytest.mark.parametrize("cid", sorted(perturbations))
    def test_perturbation_flips_verdict(monkeypatch: pytest.MonkeyPatch, cid: str) -> None:
        assert_flips(monkeypatch, cid, perturbations[cid])

    namespace[test_every_claim_of_the_section_has_a_perturbation.__name__] = (
        test_every_claim_of_the_section_has_a_perturbation
    )
    namespace[test_perturbation_flips_verdict.__name__] = test_perturbation_flips_verdict
    if not extra:
        return

    @pytest.mark.parametrize("name", sorted(extra))
    def test_extra_perturbation_flips_verdict(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        cid, perturb = extra[name]
        assert_flips(monkeypatch, cid, perturb)

    namespace[test_extra_perturbation_flips_verdict.__name__] = test_extra_perturbation_flips_verdict
