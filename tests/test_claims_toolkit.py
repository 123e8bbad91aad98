"""The small toolkit additions the second-wave claims use: the Selective RoPE bias and phase gate
in :func:`ropelab.rotary.selective_angles`, and the float32 evaluation of the temperature spectrum."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import rotary, temperature


def test_selective_angles_bias_and_gate_follow_the_released_order() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 3))
    kern = rng.normal(size=4)
    b = rng.normal(size=3)
    g = rng.uniform(0.2, 1.0, size=(12, 1))
    theta = np.array([1.0, 0.5, 0.25])
    y = rotary.short_conv(x, kern, "silu")
    expected = theta * np.cumsum(g * (y + np.exp(b)), axis=0)
    got = rotary.selective_angles(x, kern, theta, "silu", bias=b, gates=g)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    # without bias and gate the compiled path is used and agrees with the composition
    np.testing.assert_allclose(
        rotary.selective_angles(x, kern, theta),
        theta * np.cumsum(rotary.short_conv(x, kern), axis=0),
        rtol=1e-13,
        atol=1e-13,
    )


def test_selective_angles_bad_bias_and_gate() -> None:
    x = np.zeros((5, 2))
    with pytest.raises(ValueError, match=r"selective_angles: bias must be a finite array of shape \(2,\), got"):
        rotary.selective_angles(x, [1.0], bias=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"selective_angles: bias must be .* got \[nan, 0.0\]"):
        rotary.selective_angles(x, [1.0], bias=[float("nan"), 0.0])
    with pytest.raises(ValueError, match=r"selective_angles: gates must hold finite values in \[0, 1\], got 1.5"):
        rotary.selective_angles(x, [1.0], gates=1.5)
    with pytest.raises(ValueError, match=r"selective_angles: gates of shape \(3, 1\) does not broadcast"):
        rotary.selective_angles(x, [1.0], gates=np.ones((3, 1)))
    for gates in (0j, np.full((5, 2), 0.5 + 0j), "0.5", ["0.5"]):  # not real numbers: refused, not cast
        with pytest.raises(TypeError, match=r"selective_angles: gates must be a real array, got dtype"):
            rotary.selective_angles(x, [1.0], gates=gates)


def test_spectrum_float32() -> None:
    rope64 = temperature.spectrum(64, "rope", base=500000.0, temp_max=2.0)
    rope32 = temperature.spectrum(64, "rope", base=500000.0, temp_max=2.0, precision="float32")
    np.testing.assert_allclose(rope32, rope64, rtol=1e-6)
    assert rope32.dtype == np.float64 and np.all(rope32.astype(np.float32) == rope32)
    # well away from θ_max = 1 the float32 evaluation is accurate; at 0.9999 it is ≈ 10 % off
    a, b = (
        temperature.spectrum(128, "rfa", theta_max=0.9),
        temperature.spectrum(128, "rfa", theta_max=0.9, precision="float32"),
    )
    np.testing.assert_allclose(b, a, rtol=1e-4)
    a, b = temperature.spectrum(128, "rfa"), temperature.spectrum(128, "rfa", precision="float32")
    assert np.max(np.abs(b[1:] / a[1:] - 1)) > 0.05
    sq = temperature.spectrum(16, "rfa", theta_max=0.5, squared=True, precision="float32")
    np.testing.assert_allclose(sq, temperature.spectrum(16, "rfa", theta_max=0.5, squared=True), rtol=1e-5)


def test_spectrum_bad_precision() -> None:
    with pytest.raises(ValueError, match=r"spectrum: precision must be 'float64' or 'float32', got 'half'"):
        temperature.spectrum(8, "rfa", precision="half")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"kind must be 'rope' or 'rfa'"):
        temperature.spectrum(8, "x", precision="float32")  # type: ignore[arg-type]
