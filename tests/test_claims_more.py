"""Perturbations of the claims about rotations, recurrences, transitions and spectra: each replaces
a public function the check relies on with a subtly wrong one; tests/test_claims.py asserts that
the verdict then flips."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from ropelab import paper_tables, recurrence, rotary, spectra, temperature, transition


def _wrap(
    mod: Any, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]
) -> Callable[[pytest.MonkeyPatch], None]:
    def apply(m: pytest.MonkeyPatch) -> None:
        m.setattr(mod, name, make(getattr(mod, name)))

    return apply


def _mode_wrap(
    mod: Any, name: str, bad_mode: str, change: Callable[[Any], Any]
) -> Callable[[pytest.MonkeyPatch], None]:
    """Perturb only the calls made with mode=bad_mode (the other route stays correct)."""

    def make(orig: Callable[..., Any]) -> Callable[..., Any]:
        def f(*a: Any, **k: Any) -> Any:
            out = orig(*a, **k)
            called_with = k.get("mode") == bad_mode or any(isinstance(x, str) and x == bad_mode for x in a)
            return change(out) if called_with else out

        return f

    return _wrap(mod, name, make)


PERTURBATIONS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    # positions enter non-linearly: scores no longer depend on m − n only
    "rope.relative": _wrap(
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
    "rope.elementwise": _wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: o(x, -np.asarray(ang), *a, **k)),
    # a bound that decays monotonically turns holds-if into holds
    "rope.decay": _wrap(
        rotary, "decay_bound", lambda o: lambda r, *a, **k: np.minimum.accumulate(np.asarray(o(r, *a, **k)))
    ),
    # the recurrent route with doubled phases
    "rope.linear_attention": _wrap(
        recurrence,
        "selective_rope_attention",
        lambda o: lambda q, k, v, angles, *a, **kw: o(q, k, v, 2 * np.asarray(angles), *a, **kw),
    ),
    # an unconjugated complex form
    "complex.realify": _wrap(rotary, "complexify", lambda o: lambda x, *a, **k: np.conj(o(x, *a, **k))),
    # RoPE angles off by 1 %
    "rope.trick": _wrap(rotary, "rope_angles", lambda o: lambda *a, **k: 1.01 * o(*a, **k)),
    # an Eq. (9) recurrence that always applies the amplitude factor makes the bare rotation look exact
    "rff.eq9_norm": _wrap(
        recurrence,
        "rff_attention",
        lambda o: lambda q, k, v, w, mode="direct", amplitude=True, **kw: o(q, k, v, w, mode, True, **kw),
    ),
    # a spurious position-dependent phase
    "rff.telescoping": _wrap(
        recurrence,
        "rff_increment_product",
        lambda o: lambda q, w, tau=0: o(q, w, tau) * np.exp(0.01j * np.arange(np.shape(q)[0]))[:, None],
    ),
    "rff.softmax_no_position": _wrap(
        recurrence,
        "rff_increment_product",
        lambda o: lambda q, w, tau=0: o(q, w, tau) * np.exp(0.01j * np.arange(np.shape(q)[0]))[:, None],
    ),
    # an unrolled form that ignores product_start makes Eq. (11) look right
    "eq11.index": _wrap(
        recurrence,
        "linear_attention",
        lambda o: (
            lambda q, k, v, A=None, mode="recurrent", product_start="tau+1", **kw: o(q, k, v, A, mode, "tau+1", **kw)
        ),
    ),
    # the recurrent route off by a factor
    "srope.prerotation": _mode_wrap(recurrence, "selective_rope_attention", "recurrent", lambda out: 1.001 * out),
    # float32 accumulation loses the parity
    "srope.parity": _wrap(
        rotary, "cumulative_phase", lambda o: lambda om, th=1.0, accumulate="float64": o(om, th, accumulate="float32")
    ),
    # the transposed effective transition
    "gate.effective": _wrap(
        transition,
        "effective_sequence",
        lambda o: lambda angles, gates=None, *a, **k: np.swapaxes(o(angles, gates, *a, **k), -1, -2),
    ),
    # A^eff computed as Λ R regardless of the gate: the per-channel case then "agrees"
    "gate.commute": _wrap(
        transition,
        "effective",
        lambda o: (
            lambda pp, pt, g=None, *a, **k: (
                np.diag(np.repeat(np.asarray(g), 2) if np.size(g) * 2 == 2 * np.size(pp) else np.asarray(g))
                @ rotary.rotation_matrix(np.asarray(pt) - np.asarray(pp))
            )
        ),
    ),
    # the Frobenius norm instead of the spectral norm
    "gate.norm": _wrap(transition, "spectral_norm", lambda o: lambda A: float(np.linalg.norm(A))),
    # reflecting twice in the same vector gives the identity, not a rotation
    "householder.rotation": _wrap(
        transition, "householder_product", lambda o: lambda W: o(np.stack([np.asarray(W)[0], np.asarray(W)[0]]))
    ),
    # a generalised reflection that ignores β is always orthogonal
    "householder.delta": _wrap(transition, "generalized_householder", lambda o: lambda w, beta: o(w, 2.0)),
    # the recurrent ALiBi with half the decay rate
    "alibi.decay": _wrap(
        recurrence,
        "alibi_attention",
        lambda o: lambda q, k, v, m, mode="direct", **kw: o(q, k, v, m / 2 if mode == "recurrent" else m, mode, **kw),
    ),
    # a recurrent cosFormer that is slightly off
    "cosformer.states": _mode_wrap(recurrence, "cosformer_attention", "recurrent", lambda out: 1.01 * out),
    # a factor clipped at 1 (what a bounded transition would give)
    "prf.transition_gt1": _wrap(transition, "prf_transition_factor", lambda o: lambda q, w: np.minimum(o(q, w), 1.0)),
    # a pure rotation that secretly decays
    "ssm.window_rect": _wrap(spectra, "ssm_impulse", lambda o: lambda alpha, omega, N: o(alpha + 0.01, omega, N)),
    # a "decay" window with Hann's shape would always beat the rectangle
    "ssm.decay_leakage": _wrap(spectra, "ssm_window", lambda o: lambda *, alpha, N: spectra.window("hann", N)),
    "ssm.hann_vs_decay": _wrap(spectra, "ssm_window", lambda o: lambda *, alpha, N: spectra.window("hann", N)),
    # forgetting by the real part: |h[n]| = |Re a|^n
    "ssm.real_part": _wrap(
        spectra, "ssm_impulse", lambda o: lambda alpha, omega, N: (np.exp(-alpha) * np.cos(omega)) ** np.arange(N) + 0j
    ),
}


def _damped_rotate(o: Callable[..., Any]) -> Callable[..., Any]:
    """A "rotation" that also shrinks vectors the further they turn (e^{−10⁻³·max angle})."""

    def rotate(x: Any, ang: Any, *a: Any, **k: Any) -> Any:
        return o(x, ang, *a, **k) * np.exp(-1e-3 * np.abs(np.asarray(ang, float)).max(axis=-1, keepdims=True))

    return rotate


def _bias_before_conv(o: Callable[..., Any]) -> Callable[..., Any]:
    """The bias e^{b} added to the projection before the convolution instead of after it."""

    def selective_phase(
        x: Any,
        kernel: Any,
        theta: Any = 1.0,
        activation: Any = None,
        *,
        gates: Any = None,
        accumulate: str = "float64",
        bias: Any = None,
    ) -> Any:
        shifted = np.asarray(x, float) + (0.0 if bias is None else np.exp(np.asarray(bias, float)))
        return o(shifted, kernel, theta, activation, gates=gates, accumulate=accumulate)

    return selective_phase


# Second wave: one perturbation per new claim, each flipping its verdict.
PERTURBATIONS |= {
    # a RoPE that never rotates (all angles zero) makes the cos-only formula exact
    "rope.dot_cos_only": _wrap(rotary, "rope_angles", lambda o: lambda *a, **k: np.zeros_like(o(*a, **k))),
    # rotations that shrink with the angle make the expected score decay
    "rope.expected_decay": _wrap(rotary, "rotate", _damped_rotate),
    # no rotation at all: Eq. (19) becomes Eq. (18), a proper average
    "rope.eq19_weights": _wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: np.asarray(x, float)),
    # an attention that ignores the causal mask is equivariant in both modes
    "nope.permutation": _wrap(
        recurrence,
        "softmax_attention",
        lambda o: lambda q, k, v, angles=None, *, causal=True, **kw: o(q, k, v, angles, causal=False, **kw),
    ),
    # a gate that carries a sign flips the readout
    "gate.positive_no_flip": _wrap(
        transition, "effective_sequence", lambda o: lambda angles, gates=None, *a, **k: -o(angles, gates, *a, **k)
    ),
    # a per-channel gate silently replaced by its mean (a scalar gate) never turns a vector
    "gate.direction": _wrap(
        transition, "effective", lambda o: lambda pp, pt, g=None, *a, **k: float(np.mean(g)) * o(pp, pt, None, *a, **k)
    ),
    # an unrolled form that ignores product_start: the printed Eq. (11) no longer matches write-then-transition
    "eq11.convention": _wrap(
        recurrence,
        "linear_attention",
        lambda o: (
            lambda q, k, v, A=None, mode="recurrent", product_start="tau+1", **kw: o(q, k, v, A, mode, "tau+1", **kw)
        ),
    ),
    # an optimiser that returns the paper's rule
    "thm1.d1_third": lambda m: m.setattr(
        temperature, "optimal_sigma", lambda xi, D, *a, **k: temperature.paper_sigma(xi)
    ),
    # a "float32" spectrum computed in float64 matches the formula
    "temp.rfa_float32": _wrap(temperature, "spectrum", lambda o: lambda *a, precision="float64", **k: o(*a, **k)),
    # every kernel replaced by the first difference: no path dependence anywhere
    "srope.path_dependence": _wrap(
        rotary, "selective_phase", lambda o: lambda x, kernel, *a, **k: o(x, [-1.0, 1.0], *a, **k)
    ),
    # the bias applied before the convolution: increments are no longer constant
    "srope.bias_only": _wrap(rotary, "selective_phase", _bias_before_conv),
    # a "causal" convolution that peeks one step ahead
    "srope.conv_causal": _wrap(
        rotary,
        "short_conv",
        lambda o: lambda x, kernel, *a, **k: o(np.roll(np.asarray(x, float), -1, axis=-2), kernel, *a, **k),
    ),
    # a mis-transcribed Table 2 entry
    "tables.more_deltas": lambda m: m.setitem(paper_tables.TABLE2_GLA370M, "Selective RoPE Baseline", (21.27, 46.0)),
}


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


# Second perturbations of the strengthened checks (claim id, perturbation): the part added to each
# check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Callable[[pytest.MonkeyPatch], None]]] = {
    # rotations by the opposite angle: the toolkit's Eq. (19) no longer equals the equation term by term
    "rope.linear_attention/eq19": (
        "rope.linear_attention",
        _wrap(rotary, "rotate", lambda o: lambda x, ang, *a, **k: o(x, -np.asarray(ang), *a, **k)),
    ),
    # a recurrence that also turns the state by the length of the path travelled (no telescoping)
    "rff.softmax_no_position/paths": (
        "rff.softmax_no_position",
        _wrap(recurrence, "rff_attention", _path_length_phase),
    ),
    # softmax attention that ignores the requested scale: the ALiBi softmax form breaks
    "alibi.decay/softmax": (
        "alibi.decay",
        _wrap(
            recurrence,
            "softmax_attention",
            lambda o: lambda q, k, v, angles=None, *, scale=None, **kw: o(q, k, v, angles, **kw),
        ),
    ),
    # rotations whose phase also accumulates the token contents (no longer a fixed RoPE): the
    # scores of the two strings then differ
    "srope.parity/rope": (
        "srope.parity",
        _wrap(
            rotary,
            "rotate",
            lambda o: (
                lambda x, ang, *a, **k: o(
                    x,
                    np.asarray(ang) + (np.cumsum(np.asarray(x, float)[..., :1], axis=-2) if np.ndim(x) >= 2 else 0.0),
                    *a,
                    **k,
                )
            ),
        ),
    ),
    # a far-leakage measure that ignores the decay (the rectangle's spectrum for every window)
    "ssm.decay_leakage/far": (
        "ssm.decay_leakage",
        _wrap(spectra, "spectrum", lambda o: lambda x, pad=64: o(np.hanning(len(x)), pad)),
    ),
}
