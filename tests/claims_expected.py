"""What the tests pin about the claim registry — derived from the registry, not copied from it.

The expected verdict of every claim lives in one place: the ``expected`` argument of its
``@claim`` registration. tests/test_claims.py checks, for every registered claim, that the
computed verdict equals that expectation (and that a ``holds-if``/``fails`` verdict carries its
counterexample and a corrected statement that checks out).

A second hand-written id → verdict table would have to be edited with every new claim and could
drift from the registry. What it guarded against — a claim silently disappearing, or its expected
verdict silently changing to match a broken computation — is guarded here instead by:

* ``MIN_BUILTIN_CLAIMS`` and ``MIN_BUILTIN_VERDICTS``: lower bounds on the number of built-in
  claims, in total and per expected verdict. Adding claims needs no edit here; removing one, or
  turning an expected ``fails``/``holds-if`` into ``holds`` (or back), makes a count fall below its
  bound unless the bound is lowered in the same change, which a reviewer sees.
* the perturbation tests: every built-in claim must have one, in the file of its report section
  (tests/test_claims_<section>.py, checked by tests/test_claims.py) and every perturbation must
  name a claim of that section, so removing a claim also means deliberately removing its
  perturbation test.
"""

from __future__ import annotations

from ropelab import claims

#: Built-in claims (first wave 33 + second wave 13 + expressivity and delta rule 5 + attention 1
#: + related models 1 + third wave 15).
#: Raise it when claims are added.
MIN_BUILTIN_CLAIMS = 68

#: Lower bounds per expected verdict among the built-in claims.
MIN_BUILTIN_VERDICTS = {"holds": 46, "holds-if": 9, "fails": 13}


def builtin_claims() -> dict[str, claims.Claim]:
    """The claims registered by ropelab's own topic modules (not by user plugins)."""
    return {
        cid: c
        for cid, c in claims.REGISTRY.items()
        if getattr(c, "plugin", None) is None and c.check.__module__.startswith("ropelab.claims.")
    }


def expected_verdicts() -> dict[str, str]:
    """id → expected verdict of every built-in claim, read from the registry."""
    return {cid: c.expected for cid, c in builtin_claims().items()}
