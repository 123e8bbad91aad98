"""ropelab.extrapolation: LongRoPE, proportional RoPE, transformers' float32 reference and the two
readings of YaRN's mscale pair (formulas written out in NumPy; bad input)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ropelab import extrapolation, rotary


def test_longrope_formula() -> None:
    d, L = 16, 4096
    short = np.linspace(1.0, 2.0, d // 2)
    long = np.linspace(1.0, 16.0, d // 2)
    theta = rotary.frequencies(d)
    kw: dict[str, Any] = {"factor": 8.0, "original_max_position": L, "short_factor": short, "long_factor": long}
    s = extrapolation.scaled_frequencies(d, "longrope", **kw)  # no seq_len: the short factors
    np.testing.assert_allclose(s.inv_freq, theta / short, rtol=1e-15)
    assert s.attention_factor == math.sqrt(1 + math.log(8.0) / math.log(L))
    at_L = extrapolation.scaled_frequencies(d, "longrope", seq_len=L, **kw)
    np.testing.assert_array_equal(at_L.inv_freq, s.inv_freq)
    beyond = extrapolation.scaled_frequencies(d, "longrope", seq_len=L + 1, **kw)
    np.testing.assert_allclose(beyond.inv_freq, theta / long, rtol=1e-15)
    assert extrapolation.scaled_frequencies(d, "longrope", attention_factor=0.5, **kw).attention_factor == 0.5
    kw1 = {**kw, "factor": 1.0}
    assert extrapolation.scaled_frequencies(d, "longrope", **kw1).attention_factor == 1.0


def test_proportional_formula() -> None:
    d = 64
    for p, angles in ((1.0, 32), (0.5, 16), (0.25, 8), (0.3, 9)):
        s = extrapolation.scaled_frequencies(d, "proportional", partial_rotary_factor=p, factor=2.0)
        assert s.inv_freq.shape == (d // 2,) and s.attention_factor == 1.0
        want = np.zeros(d // 2)
        want[:angles] = 1.0 / 10000.0 ** (np.arange(0, 2 * angles, 2) / d) / 2.0  # on the full d
        np.testing.assert_allclose(s.inv_freq, want, rtol=1e-15)
    full = extrapolation.scaled_frequencies(d, "proportional", factor=4.0).inv_freq
    np.testing.assert_allclose(full, extrapolation.scaled_frequencies(d, "linear", factor=4.0).inv_freq, rtol=1e-15)


@pytest.mark.parametrize("rule", extrapolation.RULES)
def test_transformers_reference_is_float32_and_close(rule: str) -> None:
    kw: dict[str, Any] = {"factor": 4.0, "original_max_position": 1024}
    if rule == "dynamic":
        kw["seq_len"] = 3000
    if rule == "longrope":
        kw |= {"short_factor": np.ones(32), "long_factor": np.arange(1.0, 33.0), "seq_len": 4096}
    if rule == "proportional":
        kw["partial_rotary_factor"] = 0.5
    a = extrapolation.scaled_frequencies(64, rule, **kw)  # type: ignore[arg-type]
    b = extrapolation.scaled_frequencies(64, rule, reference="transformers", **kw)  # type: ignore[arg-type]
    assert np.array_equal(b.inv_freq.astype(np.float32).astype(np.float64), b.inv_freq)  # float32 values
    np.testing.assert_allclose(b.inv_freq, a.inv_freq, rtol=2e-6, atol=0)
    assert a.attention_factor == b.attention_factor


def test_transformers_reference_llama3_float32_order() -> None:
    """Written out as transformers does it in float32 (PyTorch's scalar / tensor being a reciprocal
    times the scalar), with its powers; the float64 default differs by one ulp in some pairs."""
    f32 = np.float32
    d, L, factor, lo, hi = 128, 2048, 10.0, 1.0, 4.0
    t = extrapolation.scaled_frequencies(d, reference="transformers").inv_freq.astype(f32)
    wl = (f32(1) / t) * f32(2 * math.pi)
    il = np.where(wl > f32(L / lo), t / f32(factor), t)
    sm = ((f32(1) / wl) * f32(L) - f32(lo)) / f32(hi - lo)
    s = (f32(1) - sm) * il / f32(factor) + sm * il
    want = np.where(~(wl < f32(L / hi)) & ~(wl > f32(L / lo)), s, il)
    got = extrapolation.scaled_frequencies(
        d, "llama3", factor=factor, original_max_position=L, reference="transformers"
    ).inv_freq
    np.testing.assert_array_equal(got.astype(f32), want)


def test_yarn_mscale_both_readings() -> None:
    for ms, ms_all in ((0.707, 0.0), (0.0, 1.0), (1.0, 0.707)):
        kw: dict[str, Any] = {"factor": 40.0, "mscale": ms, "mscale_all_dim": ms_all}
        ds = extrapolation.scaled_frequencies(64, "yarn", **kw).attention_factor
        tf = extrapolation.scaled_frequencies(64, "yarn", yarn_mscale="transformers", **kw).attention_factor

        def m(x: float) -> float:
            return 0.1 * x * math.log(40.0) + 1.0

        assert ds == pytest.approx(m(ms) / m(ms_all), rel=1e-15)
        assert tf == (pytest.approx(m(ms) / m(ms_all), rel=1e-15) if ms and ms_all else 0.1 * math.log(40.0) + 1.0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"rule": "longrope"}, ValueError, "short_factor"),
        ({"rule": "longrope", "short_factor": [1.0] * 4}, ValueError, "long_factor"),
        (
            {"rule": "longrope", "short_factor": [1.0] * 3, "long_factor": [1.0] * 4},
            ValueError,
            "short_factor must be 4",
        ),
        ({"rule": "longrope", "short_factor": [1.0, 0.0, 1.0, 1.0], "long_factor": [1.0] * 4}, ValueError, "positive"),
        ({"rule": "longrope", "short_factor": ["a"] * 4, "long_factor": [1.0] * 4}, ValueError, "real numbers"),
        (
            {"rule": "longrope", "short_factor": [1.0] * 4, "long_factor": [1.0] * 4, "seq_len": -1},
            ValueError,
            "seq_len",
        ),
        ({"rule": "proportional", "partial_rotary_factor": 0.0}, ValueError, "partial_rotary_factor"),
        ({"rule": "proportional", "partial_rotary_factor": 1.5}, ValueError, "partial_rotary_factor"),
        ({"rule": "proportional", "partial_rotary_factor": "half"}, TypeError, "partial_rotary_factor"),
        ({"rule": "default", "reference": "float32"}, ValueError, "reference"),
        ({"rule": "yarn", "yarn_mscale": "hf"}, ValueError, "yarn_mscale"),
        ({"rule": "yarn", "mscale": -1.0, "mscale_all_dim": 1.0}, ValueError, "mscale"),
    ],
)
def test_new_rules_bad_input(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        extrapolation.scaled_frequencies(8, **kwargs)
