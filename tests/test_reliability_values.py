"""Reliability round 2 (issue 17): failed conversions, silent wrong values, silently accepted inputs,
allocations refused up front, outputs that never alias inputs, and the bounded FFTW plan cache."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import ropelab as rl
from ropelab import claims, spectra, sweep, temperature, transition

PHYSICAL = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


# ---------------------------------------------------------------------------------------------
# A failed conversion to a contiguous float64 copy raises its own error (not "error_already_set
# called while Python error indicator not set")
# ---------------------------------------------------------------------------------------------

HUGE_VIEW = np.broadcast_to(0.0, (2**40,))  # 8 TB as a copy, 8 bytes as a view


@pytest.mark.parametrize(
    "call",
    [
        lambda: rl.rff.kernel(HUGE_VIEW, HUGE_VIEW),
        lambda: rl.rotary.decay_bound(HUGE_VIEW),
        lambda: rl.rotary.realify(np.broadcast_to(0j, (2**39, 2))),
        lambda: rl.spectra.dtft(np.broadcast_to(0j, (2**40,)), [0.0]),
        lambda: rl.rotary.rotate(np.broadcast_to(np.float32(0), (2**38, 4)), np.zeros(2)),
    ],
)
def test_a_failed_conversion_raises_memory_error(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MemoryError):
        call()


# ---------------------------------------------------------------------------------------------
# Inputs that were silently accepted
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: temperature.unit_pair("0.5", 4), TypeError, "xi must be a real number"),
        (lambda: temperature.unit_pair(True, 4), TypeError, "xi must be a real number"),
        (lambda: rl.rotary.realify(["0.5"]), TypeError, "z must be a complex"),
        (lambda: rl.rotary.realify([True]), TypeError, "not bool"),
        (lambda: rl.rotary.decay_bound(True), TypeError, "r must be a real .* not bool"),
        (lambda: rl.temperature.mse(True, D=4, sigma=1.0), TypeError, "not bool"),
        (lambda: rl.spectra.zoh(0.1, 0.2, 0.1, B="1"), TypeError, "B must be a real or complex"),
        (lambda: sweep.cell_seed(None, 0), TypeError, "seed must be an integer"),
        (lambda: sweep.cell_seed(0, -1), ValueError, "cell index"),
        (lambda: sweep.cell_seed(0, "1"), TypeError, "cell index"),
        (lambda: rl.rff.estimate([0.1, 0.2], [0.2, 0.1], 4, trials=3, nthreads=10**30), ValueError, "nthreads"),
        (
            lambda: claims.claim("x.y", source="s", statement=123, expected="holds"),
            TypeError,
            "statement must be a str",
        ),
        (lambda: claims.claim(5, source="s", statement="t", expected="holds"), TypeError, "id must be a str"),
        (lambda: claims.claim("x.y", source="s", statement="t", expected=["holds"]), ValueError, "expected"),
        (lambda: claims.run(123), TypeError, "ids must be an iterable"),
        (lambda: claims.run("rff.unbiased"), TypeError, "ids must be an iterable"),
        (lambda: claims.run([1]), TypeError, "claim ids"),
        (lambda: claims.run([], progress=3), TypeError, "progress must be callable"),
        (lambda: sweep.to_xarray(None), TypeError, "df must be a pandas.DataFrame"),
        (lambda: sweep.load(None), TypeError, "store must be a path"),
    ],
)
def test_inputs_once_accepted_are_refused_with_the_argument_named(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()


def test_the_bits_of_parity_angle_error_may_still_be_bool() -> None:
    bits = np.array([True, False, True, True])
    np.testing.assert_array_equal(rl.rotary.parity_angle_error(bits), rl.rotary.parity_angle_error(bits.astype(int)))


def test_to_xarray_with_bad_attrs_is_a_value_error() -> None:
    pytest.importorskip("xarray")
    df = sweep.run("window_merit", {"window": ["hann", "hamming"]}, progress=False)
    for axes in (["nope"], 5, "window"):
        bad = df.copy()
        bad.attrs = {"axes": axes}
        with pytest.raises(ValueError, match="attrs"):
            sweep.to_xarray(bad)


def test_cell_seed_is_a_function_of_its_arguments() -> None:
    assert sweep.cell_seed(3, 7) == sweep.cell_seed(np.uint64(3), np.int8(7))


# ---------------------------------------------------------------------------------------------
# Silent wrong values
# ---------------------------------------------------------------------------------------------


def test_optimal_sigma_tends_to_one_for_huge_D() -> None:
    for D in (1e12, 1e100, 1e206, 1e300):
        s = temperature.optimal_sigma(0.5, D)
        assert abs(s - 1.0) < 1e-9, (D, s)
    # and the closed form did not change where it already worked
    assert temperature.optimal_sigma(0.5, 16) == pytest.approx(temperature.optimal_sigma(0.5, 16.0))


def _fom_floats(w: np.ndarray) -> dict[str, float]:
    d = spectra.figures_of_merit(w).as_dict()
    return {k: v for k, v in d.items() if isinstance(v, float) and np.isfinite(v)}


@pytest.mark.parametrize("scale", [2.0**600, 2.0**-1000, 1e200, 1e-300, 3.7e-200])
def test_figures_of_merit_are_scale_invariant(scale: float) -> None:
    w = spectra.window("hann", 64)
    ref, got = _fom_floats(w), _fom_floats(w * scale)
    assert ref.keys() == got.keys()
    for k in ref:
        if k.endswith("_db") and ref[k] < -200:  # the level of an exact null is rounding noise
            assert got[k] < -200, k
            continue
        # The fall-off is a least-squares slope over one octave (8–16 bins at N = 64) with two nearly
        # collinear columns (log2 s, s²): the fit multiplies the ~1e-15 dB rounding of the levels
        # by about 1e4.
        tol = 1e-9 if k == "sidelobe_falloff_db_per_octave" else 1e-12
        assert got[k] == pytest.approx(ref[k], rel=tol, abs=tol), k
    if np.log2(scale).is_integer():  # a power of two: bit-identical
        assert got == ref


def test_rff_attention_overflow_raises_like_estimate() -> None:
    q = np.array([[1e308, 0.0], [0.1, 0.2]])
    w = np.ones((2, 2))
    with pytest.raises(ValueError, match="overflow"):
        rl.recurrence.rff_attention(q, q, np.ones((2, 1)), w)


def test_eigenvalues_and_singular_values_of_tiny_and_huge_matrices() -> None:
    A = np.array([[1.0, 2.0], [3.0, 4.0]])
    ev = transition.eigenvalues(A)
    sv = transition.singular_values(A)
    for s in (1e-310, 2.0**-1040, 1e-200, 1e200, 1e300):
        np.testing.assert_allclose(transition.eigenvalues(A * s), ev * s, rtol=1e-9)
        np.testing.assert_allclose(transition.singular_values(A * s), sv * s, rtol=1e-9)
    np.testing.assert_allclose(transition.eigenvalues(np.full((2, 2), 1e307)), [2e307, 0.0], rtol=1e-12, atol=1e293)
    with pytest.raises(ValueError, match="exceeds the double range"):  # 2e308 is not a double
        transition.eigenvalues(np.full((2, 2), 1e308))
    with pytest.raises(ValueError, match="exceeds the double range"):
        transition.singular_values(np.full((2, 2), 1e308))


def test_layout_permutation_of_a_huge_d_is_refused_not_empty() -> None:
    with pytest.raises(MemoryError):
        rl.rotary.layout_permutation(2**64)


def test_mse_curve_stderr_is_float64_for_any_integer_trials() -> None:
    a = temperature.mse_curve(0.5, 8, [1.0], trials=np.int8(20), seed=3)
    b = temperature.mse_curve(0.5, 8, [1.0], trials=20, seed=3)
    assert a.stderr.dtype == np.float64
    np.testing.assert_array_equal(a.stderr, b.stderr)
    assert type(a.trials) is int
    with pytest.raises(TypeError, match="trials"):
        temperature.mse_curve(0.5, 8, [1.0], trials=20.0)


# ---------------------------------------------------------------------------------------------
# Allocations refused before they are attempted
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: temperature.unit_pair(0.5, d=2**40),
        lambda: rl.rotary.decay_bound(0.0, d=2**40),
        lambda: transition.householder(np.ones(10**6)),
        lambda: transition.generalized_householder(np.ones(10**6), 1.0),
        lambda: rl.rotary.realify_diagonal(np.ones(10**6) + 0j),
    ],
)
def test_outputs_beyond_physical_memory_are_refused_up_front(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MemoryError, match="cannot be allocated"):
        call()


@pytest.mark.skipif(PHYSICAL > 80e9, reason="the FFT of this window would fit in memory here")
def test_window_merit_refuses_an_fft_beyond_memory() -> None:
    w = np.ones(2**20)
    with pytest.raises(MemoryError, match="cannot be allocated"):
        spectra.figures_of_merit(w, pad=2047)  # N·pad < 2**31, but ~86 GB of FFT work space
    with pytest.raises(MemoryError, match="cell 0"):
        sweep.run("window_merit", {"window": "rectangular", "N": 2**20, "pad": 2047}, progress=False)


# ---------------------------------------------------------------------------------------------
# Results never alias inputs
# ---------------------------------------------------------------------------------------------


def test_leakage_map_does_not_alias_its_inputs() -> None:
    a = np.array([0.0, 0.125])
    om = np.array([0.0, 0.3])
    m = spectra.leakage_map(alpha=a, omega=om, N=16, pad=4)
    assert not np.shares_memory(m.alpha, a) and not np.shares_memory(m.omega, om)
    a[:] = 99
    om[:] = 99
    assert m.alpha.tolist() == [0.0, 0.125] and m.decay_over_window.tolist() == [0.0, 2.0]
    assert m.omega.tolist() == [0.0, 0.3]


# ---------------------------------------------------------------------------------------------
# The FFTW plan cache is a bounded LRU
# ---------------------------------------------------------------------------------------------

PLAN_CACHE = """
import numpy as np, ropelab as rl
count = rl._core.spectra.cached_plan_count
x0 = np.cos(np.arange(100))
first = rl.spectra.spectrum(x0, pad=1)[1]
seen = []
for n in range(101, 400):
    rl.spectra.spectrum(np.ones(n), pad=1)
    seen.append(count())
again = rl.spectra.spectrum(x0, pad=1)[1]   # its plan was evicted and is made again
print(max(seen), count(), bool(np.array_equal(first, again)))
"""


def test_plan_cache_is_bounded() -> None:
    r = subprocess.run([sys.executable, "-c", PLAN_CACHE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    most, now, same = r.stdout.split()
    assert int(most) == 64 and int(now) <= 64 and same == "True"


def test_sweep_nthreads_is_capped_like_the_core() -> None:
    with pytest.raises(ValueError, match="nthreads must be at most 4096"):
        sweep.run("window_merit", {"window": "hann"}, nthreads=10**30, progress=False)
