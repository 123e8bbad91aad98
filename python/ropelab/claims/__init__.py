"""The claims that ``ropelab verify`` checks (one registered check per claim id).

Use :func:`run` to evaluate them::

    >>> from ropelab import claims
    >>> [r.verdict for r in claims.run(["thm1.counterexample"])]
    ['holds']
"""

from __future__ import annotations

from ropelab.claims._registry import (
    ENTRY_POINT_GROUP,
    REGISTRY,
    SECTIONS,
    USER_SECTION,
    Claim,
    ClaimResult,
    ClaimResults,
    Evidence,
    PluginError,
    Verdict,
    claim,
    derive_verdict,
    load_plugins,
    run,
)

# Importing the topic modules registers their claims, in report order.
from ropelab.claims import rotations, random_features, temperature, attention, spectra, tables, expressivity, related  # noqa: F401  isort: skip

__all__ = [
    "REGISTRY",
    "SECTIONS",
    "USER_SECTION",
    "ENTRY_POINT_GROUP",
    "Claim",
    "ClaimResult",
    "ClaimResults",
    "Evidence",
    "PluginError",
    "Verdict",
    "claim",
    "derive_verdict",
    "load_plugins",
    "run",
]
