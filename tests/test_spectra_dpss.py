"""spectra.dpss (several Slepian tapers and their concentration ratios, from the C++ core) and the
edge cases ropelab.spectra.window shares with scipy (N = 0, M < 1, negative Dolph–Chebyshev
attenuation), against scipy.signal.windows."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from ropelab import spectra as S

sw = pytest.importorskip("scipy.signal.windows")


@pytest.mark.parametrize(
    ("N", "NW", "K"), [(3, 0.5, 3), (8, 1.5, 4), (31, 6.0, 4), (64, 2.5, 5), (257, 4.0, 7), (1000, 3.0, 5)]
)
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("norm", [None, 2, "approximate", "subsample"])
def test_dpss_tapers_match_scipy(N: int, NW: float, K: int, sym: bool, norm: Any) -> None:
    ours, ratios = S.dpss(N, NW, K, sym=sym, norm=norm, return_ratios=True)
    ref, ref_ratios = sw.dpss(N, NW, K, sym=sym, norm=norm, return_ratios=True)
    assert ours.shape == ref.shape == (K, N) and ratios.shape == (K,)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-10 * np.abs(ref).max())
    np.testing.assert_allclose(ratios, ref_ratios, rtol=1e-10, atol=1e-13)


def test_dpss_conventions() -> None:
    tapers = S.dpss(128, 4.0, 6, sym=True)  # norm 2 with Kmax: orthonormal
    np.testing.assert_allclose(tapers @ tapers.T, np.eye(6), atol=1e-12)
    np.testing.assert_array_equal(tapers[0::2], tapers[0::2, ::-1])  # even tapers: exactly even
    np.testing.assert_array_equal(tapers[1::2], -tapers[1::2, ::-1])  # odd tapers: exactly odd
    assert np.all(tapers[0::2].sum(axis=1) > 0)
    # DFT-even: the symmetric tapers of length N + 1 without their last sample
    np.testing.assert_array_equal(S.dpss(16, 3.0, 3, sym=False), S.dpss(17, 3.0, 3, sym=True)[:, :-1])
    # Kmax=None: the one taper of window("dpss"), a 1-D array; ratio a float
    w, r = S.dpss(33, 2.0, sym=True, return_ratios=True)
    np.testing.assert_allclose(w, S.window("dpss", 33, sym=True, NW=2.0), atol=1e-13)
    assert isinstance(r, float) and r == pytest.approx(float(sw.dpss(33, 2.0, return_ratios=True)[1]), rel=1e-10)
    # scipy's degenerate N <= 1
    w1, r1 = S.dpss(1, 1.0, 4, return_ratios=True)
    assert w1.tolist() == [1.0] and r1.tolist() == [1.0]
    assert S.dpss(0, 1.0).shape == (0,)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"N": 4, "NW": 1.5, "Kmax": -1}, ValueError, "Kmax"),
        ({"N": 4, "NW": 1.5, "Kmax": 5}, ValueError, "Kmax"),
        ({"N": 4, "NW": 1.5, "Kmax": 1.5}, TypeError, "Kmax"),
        ({"N": 4, "NW": 1.5, "Kmax": True}, TypeError, "Kmax"),
        ({"N": 3, "NW": 1.5, "Kmax": 3}, ValueError, "NW"),
        ({"N": 3, "NW": 0.0, "Kmax": 3}, ValueError, "NW"),
        ({"N": 3, "NW": float("nan")}, ValueError, "NW"),
        ({"N": -1, "NW": 1.0, "Kmax": 3}, ValueError, "N"),
        ({"N": 5.5, "NW": 1.0}, ValueError, "N"),
        ({"N": 8, "NW": 1.0, "norm": "l2"}, ValueError, "norm"),
        ({"N": 8, "NW": 1.0, "norm": 1}, ValueError, "norm"),
        ({"N": 8, "NW": 1.0, "return_ratios": "yes"}, TypeError, "return_ratios"),
    ],
)
def test_dpss_bad_input(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        S.dpss(**kwargs)


def test_window_refuses_kmax_pointing_to_dpss() -> None:
    with pytest.raises(ValueError, match="spectra.dpss"):
        S.window("dpss", 8, NW=2.0, Kmax=3)


@pytest.mark.parametrize("name", S.window_names())
@pytest.mark.parametrize("sym", [True, False])
def test_window_of_length_zero_is_empty(name: str, sym: bool) -> None:
    info = S.window_info(name)
    if (info.symmetry == "symmetric" and not sym) or (info.symmetry == "dft-even" and sym):
        pytest.skip("convention the window does not have")
    kw = _required_parameters(name)
    w = S.window(name, 0, sym=sym, **kw)
    assert w.shape == (0,) and w.dtype == np.float64
    if name == "kaiser_bessel_derived":  # even N only, N = 1 included (as scipy)
        with pytest.raises(ValueError, match="even"):
            S.window(name, 1, sym=sym, **kw)
    else:
        assert S.window(name, 1, sym=sym, **kw).tolist() == [1.0]


def _required_parameters(name: str) -> dict[str, Any]:
    values = {"NW": 2.0, "at": 60.0, "a": [0.5, 0.5], "alpha": 0.5, "beta": 4.0, "std": 3.0, "p": 1.5, "sig": 2.0}
    return {p.name: values[p.name] for p in S.window_info(name).parameters if p.required}


def test_window_length_zero_still_checks_parameters() -> None:
    with pytest.raises(ValueError, match="needs parameter beta"):
        S.window("kaiser", 0)
    with pytest.raises(ValueError, match="N"):
        S.window("hann", -1)
    with pytest.raises(ValueError, match="N"):
        S.window("hann", 5.5)
    assert S.window("hann", 4.0, sym=True).shape == (4,)  # an integer-valued float, as scipy


def test_kaiser_bessel_derived_below_one() -> None:
    assert S.window("kaiser_bessel_derived", 0.5, sym=True, beta=4.0).shape == (0,)
    assert sw.kaiser_bessel_derived(0.5, beta=4.0).shape == (0,)


@pytest.mark.parametrize("at", [-40.0, -100.0, 40.0])
@pytest.mark.parametrize(("N", "sym"), [(53, True), (54, True), (16, False)])
def test_chebyshev_negative_attenuation_and_warning(at: float, N: int, sym: bool) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = S.window("chebwin", N, sym=sym, at=at)
        ref = sw.chebwin(N, at, sym=sym)
        same = S.window("chebwin", N, sym=sym, at=abs(at))
    ours_warned = [w for w in caught if "not suitable for spectral analysis" in str(w.message)]
    assert len(ours_warned) == (3 if abs(at) < 45 else 0)  # ropelab's (twice) and scipy's
    np.testing.assert_allclose(ours, ref, atol=1e-9)
    np.testing.assert_array_equal(ours, same)
    with pytest.raises(ValueError, match="non-zero"):
        S.window("chebwin", N, sym=sym, at=0.0)
