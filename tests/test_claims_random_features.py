"""Perturbations of the random-features claims (``ropelab.claims.random_features``): each replaces
what a check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ropelab import recurrence, rff
from tests.claims_perturb import Perturbation, add_section_tests, scaled, wrap

SECTION = "random_features"


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


def _path_length_phase(o: Callable[..., Any]) -> Callable[..., Any]:
    def rff_attention(q: Any, k: Any, v: Any, w: Any, mode: str = "direct", *a: Any, **kw: Any) -> Any:
        out = o(q, k, v, w, mode, *a, **kw)
        if mode != "recurrent":
            return out
        steps = np.linalg.norm(
            np.diff(np.asarray(q, float), axis=-2, prepend=np.asarray(q, float)[..., :1, :]), axis=-1
        )
        return out * np.exp(0.1j * np.cumsum(steps, axis=-1))[..., None, None]

    return rff_attention


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # an unconjugated feature product breaks the Gaussian identity
    "rff.gaussian_identity": lambda m: m.setattr(rff, "moments", _literal_moments(rff.moments)),
    # a "literal" product that secretly conjugates makes Eq. (8) look right
    "rff.eq8_literal": lambda m: (
        m.setattr(rff, "moments", _conjugate_moments(rff.moments)),
        m.setattr(rff, "estimate", _conjugate_estimate(rff.estimate)),
    ),
    # an Eq. (9) recurrence that always applies the amplitude factor makes the bare rotation look exact
    "rff.eq9_norm": wrap(
        recurrence,
        "rff_attention",
        lambda o: lambda q, k, v, w, mode="direct", amplitude=True, **kw: o(q, k, v, w, mode, True, **kw),
    ),
    # a spurious position-dependent phase
    "rff.telescoping": wrap(
        recurrence,
        "rff_increment_product",
        lambda o: lambda q, w, tau=0: o(q, w, tau) * np.exp(0.01j * np.arange(np.shape(q)[0]))[:, None],
    ),
    "rff.softmax_no_position": wrap(
        recurrence,
        "rff_increment_product",
        lambda o: lambda q, w, tau=0: o(q, w, tau) * np.exp(0.01j * np.arange(np.shape(q)[0]))[:, None],
    ),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # both the direct sum and the recurrence scaled alike: only the NumPy direct sum sees it
    "rff.eq9_norm/numpy": ("rff.eq9_norm", scaled(recurrence, "rff_attention")),
    # a recurrence that also turns the state by the length of the path travelled (no telescoping)
    "rff.softmax_no_position/paths": (
        "rff.softmax_no_position",
        wrap(recurrence, "rff_attention", _path_length_phase),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
