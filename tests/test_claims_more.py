"""Perturbations of the claims about rotations, recurrences, transitions and spectra
(filled in with those claims)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

PERTURBATIONS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {}
