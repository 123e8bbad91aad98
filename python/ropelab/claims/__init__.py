"""The claims that ``ropelab verify`` checks (one registered check per claim id).

Each report section is one module of this package (:data:`ropelab.claims.SECTIONS` lists them in report order:
``rope``, ``positions``, ``random_features``, ``temperature``, ``linear_attention``, ``selective``,
``gates``, ``spectra``, ``related``, ``expressivity``, ``tables``), or a package of modules for a
large section (``rope``); a claim is reported in the section of the module that registers it.

Use :func:`run` to evaluate them::

    >>> from ropelab import claims
    >>> [r.verdict for r in claims.run(["thm1.counterexample"])]
    ['holds']
"""

from __future__ import annotations

import importlib as _importlib

from ropelab._public import public_dir
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

# Importing the section modules registers their claims, section by section in report order.
for _section in SECTIONS:
    _importlib.import_module(f"{__name__}.{_section}")
del _section

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

__dir__ = public_dir(__name__)  # tab completion: the API above, not the imports
