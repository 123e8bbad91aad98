"""Perturbations of the Selective RoPE claims (``ropelab.claims.selective``): each replaces what a
check relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ropelab import recurrence, rotary, selective
from tests.claims_perturb import Perturbation, add_section_tests, mode_wrap, scaled, wrap

SECTION = "selective"


def _bias_before_conv(o: Callable[..., Any]) -> Callable[..., Any]:
    """The bias e^{b} added to the projection before the convolution instead of after it."""

    def selective_angles(
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

    return selective_angles


def _forget_offset(feed: Callable[..., Any]) -> Callable[..., Any]:
    """``SelectiveState._feed`` (what ``feed`` and ``apply`` call) that zeroes the running phase after
    each chunk (the cache is kept)."""

    def forgetful(self: selective.SelectiveState, hidden: Any, func: str) -> Any:
        out = feed(self, hidden, func)
        self.offset = np.zeros_like(self.offset)
        return out

    return forgetful


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # the recurrent route off by a factor
    "srope.prerotation": mode_wrap(recurrence, "selective_rope_attention", "recurrent", lambda out: 1.001 * out),
    # float32 accumulation loses the parity
    "srope.parity": wrap(
        rotary, "cumulative_angles", lambda o: lambda om, th=1.0, accumulate="float64": o(om, th, accumulate="float32")
    ),
    # every kernel replaced by the first difference: no path dependence anywhere
    "srope.path_dependence": wrap(
        rotary, "selective_angles", lambda o: lambda x, kernel, *a, **k: o(x, [-1.0, 1.0], *a, **k)
    ),
    # the bias applied before the convolution: increments are no longer constant
    "srope.bias_only": wrap(rotary, "selective_angles", _bias_before_conv),
    # a "causal" convolution that peeks one step ahead
    "srope.conv_causal": wrap(
        rotary,
        "short_conv",
        lambda o: lambda x, kernel, *a, **k: o(np.roll(np.asarray(x, float), -1, axis=-2), kernel, *a, **k),
    ),
    # a generation state that forgets its running phase after every chunk
    "srope.streaming": wrap(selective.SelectiveState, "_feed", lambda o: _forget_offset(o)),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # both modes and the unrolled route scaled alike: only the NumPy route sees it
    "srope.prerotation/numpy": (
        "srope.prerotation",
        scaled(recurrence, "selective_rope_attention", "linear_attention"),
    ),
    # a causal convolution with slightly wrong taps: still causal, but no longer numpy.convolve's
    "srope.conv_causal/numpy": (
        "srope.conv_causal",
        wrap(rotary, "short_conv", lambda o: lambda x, kernel, *a, **k: 1.001 * o(x, kernel, *a, **k)),
    ),
    # rotations whose phase also accumulates π per token whose content has a second channel (the
    # 1-bit's embedding): no longer a fixed RoPE, so RoPE's scores then carry the parity
    "srope.parity/rope": (
        "srope.parity",
        wrap(
            rotary,
            "rotate",
            lambda o: (
                lambda x, ang, *a, **k: o(
                    x,
                    np.asarray(ang)
                    + (np.pi * np.cumsum(np.asarray(x, float)[..., 1:2] > 1e-12, axis=-2) if np.ndim(x) >= 2 else 0.0),
                    *a,
                    **k,
                )
            ),
        ),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
