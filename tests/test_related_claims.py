"""Perturbations that flip the related-model claims (collected by test_claims)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from ropelab import claims, related

PERTURBATIONS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # a FoX bias off by 0.1 % no longer matches the decayed recurrence
    "alibi.softmax_decay": lambda m: m.setattr(
        related, "fox_bias", (lambda orig: lambda f: orig(f) * 1.001)(related.fox_bias)
    ),
}

#: Further perturbations, each of one part of the check.
EXTRA: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # ALiBi slopes off by 1 % in the softmax form only
    "alibi_bias": lambda m: m.setattr(
        related, "alibi_bias", (lambda orig: lambda T, s: orig(T, np.asarray(s) * 1.01))(related.alibi_bias)
    ),
    # a recurrence that forgets twice as fast
    "recurrence_gate": lambda m: m.setattr(
        related,
        "decayed_kernel_attention",
        (lambda orig: lambda pq, pk, v, f, **kw: orig(pq, pk, v, np.asarray(f) ** 2, **kw))(
            related.decayed_kernel_attention
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_extra_perturbation_flips_softmax_decay(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    (before,) = claims.run(["alibi.softmax_decay"])
    assert before.matches and before.verdict == "holds"
    EXTRA[name](monkeypatch)
    (after,) = claims.run(["alibi.softmax_decay"])
    assert after.error is None, after.error
    assert after.verdict == "fails"
