"""Perturbations of the RoPE claims (``ropelab.claims.rope``): each replaces what a check relies on
with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ropelab import recurrence, rotary
from tests.claims_perturb import Perturbation, add_section_tests, wrap

SECTION = "rope"


def _damped_rotate(o: Callable[..., Any]) -> Callable[..., Any]:
    """A "rotation" that also shrinks vectors the further they turn (e^{−10⁻³·max angle})."""

    def rotate(x: Any, ang: Any, *a: Any, **k: Any) -> Any:
        return o(x, ang, *a, **k) * np.exp(-1e-3 * np.abs(np.asarray(ang, float)).max(axis=-1, keepdims=True))

    return rotate


def _sparse_scaled_rotate(o: Callable[..., Any]) -> Callable[..., Any]:
    """Each rotated vector multiplied by an independent c with c² = 10 w.p. 1/10, else 0 (E[c²] = 1)."""
    gen = np.random.default_rng(0)

    def rotate(x: Any, ang: Any, *a: Any, **k: Any) -> Any:
        out = np.asarray(o(x, ang, *a, **k))
        c = np.sqrt(10.0) * (gen.random(out.shape[:-1]) < 0.1)
        return out * c[..., None]

    return rotate


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # positions enter non-linearly: scores no longer depend on m − n only
    "rope.relative": wrap(
        rotary,
        "rope_angles",
        lambda o: (
            lambda pos, d, *a, **k: (
                o(pos, d, *a, **k) * (1 + 1e-3 * np.abs(np.asarray(pos, float)))[..., None]
                if np.ndim(pos)
                else o(pos, d, *a, **k) * (1 + 1e-3 * abs(float(pos)))
            )
        ),
    ),
    # a rotation by the opposite angle
    "rope.elementwise": wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: o(x, -np.asarray(ang), *a, **k)),
    # a bound that decays monotonically turns holds-if into holds
    "rope.decay": wrap(
        rotary, "decay_bound", lambda o: lambda r, *a, **k: np.minimum.accumulate(np.asarray(o(r, *a, **k)))
    ),
    # the recurrent route with doubled phases
    "rope.linear_attention": wrap(
        recurrence,
        "selective_rope_attention",
        lambda o: lambda q, k, v, angles, *a, **kw: o(q, k, v, 2 * np.asarray(angles), *a, **kw),
    ),
    # an unconjugated complex form
    "complex.realify": wrap(rotary, "complexify", lambda o: lambda x, *a, **k: np.conj(o(x, *a, **k))),
    # RoPE angles off by 1 %
    "rope.trick": wrap(rotary, "rope_angles", lambda o: lambda *a, **k: 1.01 * o(*a, **k)),
    # a RoPE that never rotates (all angles zero) makes the cos-only formula exact
    "rope.dot_cos_only": wrap(rotary, "rope_angles", lambda o: lambda *a, **k: np.zeros_like(o(*a, **k))),
    # rotations that shrink with the angle make the expected score decay
    "rope.expected_decay": wrap(rotary, "rotate", _damped_rotate),
    # no rotation at all: Eq. (19) becomes Eq. (18), a proper average
    "rope.eq19_weights": wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: np.asarray(x, float)),
    # the index of §3.4.3 (θ_i = base^{−2i/d}): the two schedules coincide
    "rope.theta_index": wrap(rotary, "frequencies", lambda o: lambda d, base=10000.0: o(d, base) * base ** (-2.0 / d)),
    # a rotate that ignores the layout: the pseudocode then matches the "half" call
    "rope.pseudocode_layout": wrap(
        rotary, "rotate", lambda o: lambda x, ang, layout="interleaved", **k: o(x, ang, "interleaved", **k)
    ),
    # a bound that decays monotonically for every base
    "rope.base_dependence": wrap(
        rotary, "decay_bound", lambda o: lambda r, *a, **k: np.minimum.accumulate(np.asarray(o(r, *a, **k)))
    ),
    # an attention that ignores the causal mask is equivariant in both modes
    "nope.permutation": wrap(
        recurrence,
        "softmax_attention",
        lambda o: lambda q, k, v, angles=None, *, causal=True, **kw: o(q, k, v, angles, causal=False, **kw),
    ),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # rotated vectors scaled by √10 with probability 1/10, else 0: the mean square is unchanged but
    # its Monte Carlo ten times noisier, too weak to detect even the aligned score's decay
    "rope.expected_decay/power": ("rope.expected_decay", wrap(rotary, "rotate", _sparse_scaled_rotate)),
    # a bound 1 % off: the toolkit's B(r) no longer equals its definition evaluated in NumPy
    "rope.theta_index/bound": (
        "rope.theta_index",
        wrap(rotary, "decay_bound", lambda o: lambda *a, **k: 1.01 * np.asarray(o(*a, **k))),
    ),
    # a bound 1 % off for base 2: the shape is the same, but it no longer equals the NumPy route
    "rope.base_dependence/route": (
        "rope.base_dependence",
        wrap(rotary, "decay_bound", lambda o: lambda r, d=128, base=1e4: (1.01 if base < 10 else 1.0) * o(r, d, base)),
    ),
    # rotations by the opposite angle: the toolkit's Eq. (19) no longer equals the equation term by term
    "rope.linear_attention/eq19": (
        "rope.linear_attention",
        wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: o(x, -np.asarray(ang), *a, **k)),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
