"""One decay across ``spectra``: per sample (``alpha``), and the deprecated decay over the window ``alpha_n``.

``ssm_window`` and ``leakage_map`` took ``alpha_n = α·N`` first up to ropelab 0.1.0; they now take
the per-sample ``alpha`` by keyword, as ``ssm_impulse``/``ssm_spectrum``/``window("exponential")``
do. The former calls (positional, or ``alpha_n=``) keep their meaning, warn, and give the same bits
as the new call with ``alpha = decay_per_sample(alpha_n, N)``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

from ropelab import spectra as S


def _new(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call the current API: any warning is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


def _same_map(a: S.LeakageMap, b: S.LeakageMap, *, alpha_n_exact: bool = True) -> None:
    assert a.N == b.N and a.pad == b.pad
    assert [f.as_dict() for f in a.figures] == [f.as_dict() for f in b.figures]  # NaN-free: None where absent
    for name in ("omega", "tone_scalloping_loss_db", "bin_leakage_factor", "far_leakage_db"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    if alpha_n_exact:
        np.testing.assert_array_equal(a.alpha_n, b.alpha_n)
    else:  # the caller's α·N against (α·N/N)·N: one rounding apart at most
        np.testing.assert_allclose(a.alpha_n, b.alpha_n, rtol=2**-52, atol=0)


# ---------------------------------------------------------------------------------------- helpers


def test_helpers_convert_both_ways() -> None:
    assert _new(S.decay_per_sample, 2.0, 1024) == 2.0 / 1024
    assert _new(S.decay_over_window, 2.0 / 1024, 1024) == 2.0
    np.testing.assert_array_equal(_new(S.decay_per_sample, [0.0, 3.0, 8.0], 100), np.array([0.0, 3.0, 8.0]) / 100)
    np.testing.assert_array_equal(_new(S.decay_over_window, np.array([0.0, 0.5]), 8), [0.0, 4.0])
    assert isinstance(S.decay_per_sample(1, 4), float) and isinstance(S.decay_over_window(np.float32(0.5), 4), float)


@pytest.mark.parametrize("fn", [S.decay_per_sample, S.decay_over_window], ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("value", "exc", "match"),
    [
        (-1.0, ValueError, "must be finite and >= 0"),
        (math.nan, ValueError, "must be finite and >= 0"),
        (math.inf, ValueError, "must be finite and >= 0"),
        ([0.5, -0.1], ValueError, "must be finite and >= 0"),
        (1j, TypeError, "must be a real number"),
        (True, TypeError, "must be a real number"),
        ("2", TypeError, "must be a real number"),
    ],
)
def test_helpers_refuse_bad_decays(fn: Any, value: Any, exc: type[Exception], match: str) -> None:
    name = "alpha_n" if fn is S.decay_per_sample else "alpha"
    with pytest.raises(exc, match=f"{fn.__name__}: {name} {match}"):
        fn(value, 8)


# -------------------------------------------------------------------------------------- ssm_window


@pytest.mark.parametrize("N", [1, 8, 49, 100, 1024])
@pytest.mark.parametrize("alpha_n", [0.0, 1.0, 2.0, 3.0, 8.0, 12.5])
def test_ssm_window_old_forms_warn_and_give_the_same_bits(alpha_n: float, N: int) -> None:
    new = _new(S.ssm_window, alpha=S.decay_per_sample(alpha_n, N), N=N)
    np.testing.assert_array_equal(new, _new(S.window, "exponential", N, alpha=alpha_n / N))
    with pytest.warns(DeprecationWarning, match=r"positional decay in ssm_window is the decay over the window"):
        positional = S.ssm_window(alpha_n, N)
    with pytest.warns(DeprecationWarning, match=r"ssm_window\(alpha=\.\.\., N=\.\.\.\)"):
        positional_n_keyword = S.ssm_window(alpha_n, N=N)
    with pytest.warns(
        DeprecationWarning, match=r"ssm_window: alpha_n \(the decay over the window, α·N\) is deprecated"
    ):
        keyword = S.ssm_window(alpha_n=alpha_n, N=N)
    for old in (positional, positional_n_keyword, keyword):
        np.testing.assert_array_equal(old, new)


def test_ssm_window_new_form() -> None:
    w = _new(S.ssm_window, alpha=0.25, N=8)
    np.testing.assert_allclose(w, np.exp(-0.25 * np.arange(8)), rtol=1e-15)
    np.testing.assert_array_equal(_new(S.ssm_window, N=8, alpha=0), np.ones(8))
    np.testing.assert_array_equal(_new(S.ssm_window, alpha=np.float32(0.25), N=np.int64(8)), w)


def test_ssm_window_positional_decay_is_never_read_per_sample() -> None:
    # ssm_window(0.25, 8) was the window with α·N = 0.25 and still is (with a warning), not α = 0.25.
    with pytest.warns(DeprecationWarning):
        w = S.ssm_window(0.25, 8)
    np.testing.assert_array_equal(w, S.ssm_window(alpha=0.25 / 8, N=8))
    assert w[-1] == pytest.approx(np.exp(-0.25 * 7 / 8), rel=1e-15)  # read per sample it would be e^{-1.75}


def test_ssm_window_warning_points_at_the_caller() -> None:
    with pytest.warns(DeprecationWarning) as rec:
        S.ssm_window(2.0, 8)
    assert rec[0].filename == __file__


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((), {"alpha": -0.1, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0, got -0\.1"),
        ((), {"alpha": math.nan, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0"),
        ((), {"alpha": math.inf, "N": 8}, ValueError, r"ssm_window: alpha must be finite and >= 0"),
        ((), {"alpha": 1j, "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": True, "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": [0.1], "N": 8}, TypeError, r"ssm_window: alpha must be a real number"),
        ((), {"alpha": 0.1, "N": 0}, ValueError, r"ssm_window: N must be an integer >= 1, got 0"),
        ((), {"alpha": 0.1}, TypeError, r"ssm_window: missing keyword argument N"),
        ((), {"N": 8}, TypeError, r"ssm_window: missing keyword argument alpha \(the decay per sample\)"),
        ((), {"alpha": 0.1, "alpha_n": 0.8, "N": 8}, TypeError, r"ssm_window: give either alpha .* or alpha_n"),
        ((0.8,), {"alpha": 0.1, "N": 8}, TypeError, r"ssm_window: a positional decay is the deprecated alpha_n"),
        ((8,), {"alpha": 0.1}, TypeError, r"ssm_window: a positional decay is the deprecated alpha_n"),
        ((0.8, 8), {"alpha_n": 0.8}, TypeError, r"ssm_window: alpha_n given both positionally and by keyword"),
        ((0.8, 8), {"N": 8}, TypeError, r"ssm_window: N given both positionally and by keyword"),
        ((0.8, 8, 1), {}, TypeError, r"ssm_window: at most 2 positional arguments"),
        ((0.8,), {}, TypeError, r"ssm_window: missing keyword argument N"),
        ((-0.8, 8), {}, ValueError, r"ssm_window: alpha_n must be finite and >= 0, got -0\.8"),
        ((), {"alpha_n": math.nan, "N": 8}, ValueError, r"ssm_window: alpha_n must be finite and >= 0"),
        ((), {"alpha_n": "1", "N": 8}, TypeError, r"ssm_window: alpha_n must be a real number"),
    ],
)
def test_ssm_window_bad_input_names_the_argument(
    args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any deprecation warning
        with pytest.raises(exc, match=match):
            S.ssm_window(*args, **kwargs)


# ------------------------------------------------------------------------------------- leakage_map


@pytest.mark.parametrize("N", [16, 64, 49])
def test_leakage_map_old_forms_warn_and_give_the_same_bits(N: int) -> None:
    an = np.array([0.0, 1.0, 2.0, 3.0, 8.0])
    om = np.array([0.0, 0.3, 2 * np.pi * 5 / N])
    exact = N & (N - 1) == 0  # α·N / N · N is exactly α·N for a power of two
    new = _new(S.leakage_map, alpha=S.decay_per_sample(an, N), omega=om, N=N, pad=4)
    calls = [
        ((an, om, N, 4), {}),
        ((an, om), {"N": N, "pad": 4}),
        ((an,), {"omega": om, "N": N, "pad": 4}),
        ((list(an), list(om), N), {"pad": 4}),
        ((), {"alpha_n": an, "omega": om, "N": N, "pad": 4}),
    ]
    for args, kwargs in calls:
        with pytest.warns(
            DeprecationWarning, match=r"spectra\.leakage_map\(alpha=\.\.\., omega=\.\.\., N=\.\.\., pad=\.\.\.\)"
        ):
            old = S.leakage_map(*args, **kwargs)
        _same_map(old, new, alpha_n_exact=exact)
        np.testing.assert_array_equal(old.alpha_n, an)  # the deprecated form reports the caller's α·N
    np.testing.assert_allclose(new.alpha_n, an, rtol=2**-52, atol=0)


def test_leakage_map_defaults_and_figures_per_sample() -> None:
    alpha = np.array([0.0, 2.0 / 256])
    m = _new(S.leakage_map, alpha=alpha, omega=[0.3])
    assert (m.N, m.pad) == (256, 32)
    assert m.alpha_n.tolist() == [0.0, 2.0] and m.alpha.tolist() == alpha.tolist()
    # each row is the window e^{−αn} of ssm_window(alpha=...), bit for bit
    small = _new(S.leakage_map, alpha=[0.03, 0.1], omega=0.5, N=100, pad=4)
    for i, a in enumerate([0.03, 0.1]):
        ref = _new(S.figures_of_merit, _new(S.ssm_window, alpha=a, N=100), pad=4)
        assert small.figures[i].as_dict() == ref.as_dict()
    assert small.alpha_n.tolist() == [0.03 * 100, 0.1 * 100]
    # a scalar decay is one row
    assert _new(S.leakage_map, alpha=0.0, omega=[0.1, 0.2], N=16, pad=4).far_leakage_db.shape == (1, 2)


def test_leakage_map_deprecated_form_keeps_its_default_length() -> None:
    with pytest.warns(DeprecationWarning):
        old = S.leakage_map([2.0], [0.3], pad=4)
    assert old.N == 256
    _same_map(old, _new(S.leakage_map, alpha=[2.0 / 256], omega=[0.3], pad=4))


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        ((), {"alpha": [-0.1], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be >= 0"),
        ((), {"alpha": [math.nan], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be finite"),
        ((), {"alpha": [math.inf], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be finite"),
        ((), {"alpha": [1e306], "omega": [0.0], "N": 1024}, ValueError, r"leakage_map: alpha times N must be finite"),
        ((), {"alpha": [1j], "omega": [0.0]}, TypeError, r"spectra\.leakage_map: alpha must be a real array"),
        ((), {"alpha": [], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must not be empty"),
        ((), {"alpha": [[0.1]], "omega": [0.0]}, ValueError, r"spectra\.leakage_map: alpha must be a 1-D array"),
        ((), {"alpha": [0.1]}, TypeError, r"spectra\.leakage_map: missing keyword argument omega"),
        ((), {"omega": [0.1]}, TypeError, r"spectra\.leakage_map: missing keyword argument alpha"),
        ((), {"alpha": [0.1], "alpha_n": [1.0], "omega": [0.0]}, TypeError, r"give either alpha .* or alpha_n"),
        (([1.0],), {"alpha": [0.1], "omega": [0.0]}, TypeError, r"a positional decay is the deprecated alpha_n"),
        (([1.0], [0.0]), {"alpha_n": [1.0]}, TypeError, r"alpha_n given both positionally and by keyword"),
        (([1.0], [0.0]), {"omega": [0.0]}, TypeError, r"omega given both positionally and by keyword"),
        (([1.0], [0.0], 16), {"N": 16}, TypeError, r"N given both positionally and by keyword"),
        (([1.0], [0.0], 16, 4), {"pad": 4}, TypeError, r"pad given both positionally and by keyword"),
        (([1.0], [0.0], 16, 4, 1), {}, TypeError, r"at most 4 positional arguments"),
        (([-1.0], [0.0]), {}, ValueError, r"spectra\.leakage_map: alpha_n must be finite and >= 0"),
        (([math.nan], [0.0]), {}, ValueError, r"spectra\.leakage_map: alpha_n must be finite and >= 0"),
        ((["a"], [0.0]), {}, TypeError, r"spectra\.leakage_map: alpha_n must be a real number"),
        (([], [0.0]), {}, ValueError, r"spectra\.leakage_map: alpha_n must not be empty"),
        (([[1.0]], [0.0]), {}, ValueError, r"spectra\.leakage_map: alpha_n must be a 1-D array"),
        (([1.0], [0.0], 0), {}, ValueError, r"spectra\.leakage_map: N must be an integer >= 2"),
        (([1.0], [0.0], 2.5), {}, ValueError, r"spectra\.leakage_map: N must be an integer >= 2"),
        (([1.0], [0.0], "8"), {}, TypeError, r"spectra\.leakage_map: N must be an integer >= 2"),
    ],
)
def test_leakage_map_bad_input_names_the_argument(
    args: tuple[Any, ...], kwargs: dict[str, Any], exc: type[Exception], match: str
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any deprecation warning
        with pytest.raises(exc, match=match):
            S.leakage_map(*args, **kwargs)


def test_leakage_map_old_form_with_N_one_is_refused_by_the_core() -> None:
    with pytest.warns(DeprecationWarning), pytest.raises(ValueError, match=r"spectra\.leakage_map: N must be >= 2"):
        S.leakage_map([1.0], [0.0], 1)
