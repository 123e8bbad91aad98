"""SIMD paths and projected orthogonal features: same numbers on every path and thread count,
and projected ORF distributed like full-mode ORF."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl

ESTIMATORS = [("trig", "conjugate"), ("trig", "literal"), ("random_phase", "conjugate"), ("positive", "conjugate")]
MODES = [("projected", False), ("projected", True), ("full", False), ("full", True)]
EPS = np.finfo(float).eps


def pair(d: int, scale: float = 0.8, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return scale * rng.standard_normal(d) / np.sqrt(d), scale * rng.standard_normal(d) / np.sqrt(d)


def run(isa: str, q: np.ndarray, k: np.ndarray, est: str, conv: str, mode: str, orth: bool, **kw: object) -> np.ndarray:
    with rl.simd.using(isa):  # type: ignore[arg-type]
        return rl.rff.estimate(q, k, 37, 0.9, est, conv, trials=64, seed=5, mode=mode, orthogonal=orth, **kw)  # type: ignore[arg-type]


def test_paths_are_listed_and_selectable() -> None:
    assert rl.simd.available()[0] == "scalar"
    assert rl.simd.isa() in rl.simd.available()
    with pytest.raises(ValueError, match="isa must be one of 'scalar', 'avx2', 'avx512', got 'sse'"):
        rl.simd.set_isa("sse")  # type: ignore[arg-type]


@pytest.mark.parametrize(("mode", "orth"), MODES)
@pytest.mark.parametrize(("est", "conv"), ESTIMATORS)
def test_every_path_agrees_with_the_scalar_path(est: str, conv: str, mode: str, orth: bool) -> None:
    """The random numbers are bit-identical on every path; cos/exp are SLEEF u10 (≤ 1 ULP each),
    avx2 and avx512 run the same FMA algorithm (identical bits), the scalar fallback may differ by
    1 ULP per term. The summation order is the same on every path, so two paths differ by at most
    a few ULP of the largest term: |X| ≤ A (trig), 2A (random phase); positive terms are > 0."""
    q, k = pair(d=5)
    ref = run("scalar", q, k, est, conv, mode, orth)
    amp = np.exp((q @ q + k @ k) / 2) * (2 if est == "random_phase" else 1)
    vector_runs = {}
    for isa in rl.simd.available()[1:]:
        got = run(isa, q, k, est, conv, mode, orth)
        vector_runs[isa] = got
        if est == "positive":
            np.testing.assert_allclose(got, ref, rtol=16 * EPS, atol=0)
        else:
            np.testing.assert_allclose(got, ref, rtol=0, atol=16 * EPS * amp)
    if len(vector_runs) == 2:
        assert np.array_equal(vector_runs["avx2"], vector_runs["avx512"])


@pytest.mark.parametrize(("mode", "orth"), MODES)
@pytest.mark.parametrize("est", ["trig", "random_phase", "positive"])
def test_bit_identical_across_thread_counts(est: str, mode: str, orth: bool) -> None:
    q, k = pair(d=7)
    runs = [
        rl.rff.estimate(q, k, 45, 0.8, est, trials=101, seed=9, mode=mode, orthogonal=orth, nthreads=n)  # type: ignore[arg-type]
        for n in (1, 2, 3, 8)
    ]
    for r in runs[1:]:
        assert np.array_equal(r, runs[0])


@pytest.mark.parametrize(
    ("est", "d", "D"), [("trig", 16, 64), ("trig", 8, 20), ("random_phase", 8, 20), ("positive", 6, 16), ("trig", 1, 5)]
)
def test_projected_orf_is_distributed_like_full_orf(est: str, d: int, D: int) -> None:
    """Two-sample Kolmogorov–Smirnov on the estimates (independent seeds, fixed), the mean against
    the closed form (5 SE) and the variance against full-mode ORF (5 SE of the difference).
    D = 20 with d = 8 exercises the truncated last block; d = 1 the χ_1 = |N(0,1)| case."""
    from scipy import stats

    q, k = pair(d=d, scale=1.0, seed=5)
    trials = 6000
    proj = rl.rff.estimate(q, k, D, 1.0, est, trials=trials, seed=21, mode="projected", orthogonal=True)  # type: ignore[arg-type]
    full = rl.rff.estimate(q, k, D, 1.0, est, trials=trials, seed=22, mode="full", orthogonal=True)  # type: ignore[arg-type]
    assert stats.ks_2samp(proj, full).pvalue > 1e-3
    mean, _ = rl.rff.moments(q, k, 1.0, est)  # type: ignore[arg-type]
    assert abs(proj.mean() - mean) < 5 * proj.std(ddof=1) / np.sqrt(trials)

    def var_and_se(e: np.ndarray) -> tuple[float, float]:
        c = e - e.mean()
        return float(c.var()), float(np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / e.size))

    vp, sp = var_and_se(proj)
    vf, sf = var_and_se(full)
    assert abs(vp - vf) < 5 * np.hypot(sp, sf)


def test_projected_orf_has_lower_variance_than_iid() -> None:
    """As in full mode: the i.i.d. formula overstates the ORF variance by far more than 5 SE."""
    q, k = pair(d=16, scale=1.0, seed=5)
    D, trials = 64, 4000
    e = rl.rff.estimate(q, k, D, 1.0, "trig", trials=trials, seed=2, mode="projected", orthogonal=True)
    _, var_iid = rl.rff.moments(q, k, 1.0, "trig")
    c = e - e.mean()
    se_var = np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / trials)
    assert c.var() + 5 * se_var < var_iid / D


def test_primitive_rates_are_positive_on_every_path() -> None:
    for isa in rl.simd.available():
        with rl.simd.using(isa):  # type: ignore[arg-type]
            for kind in ("normal", "uniform", "cos", "exp"):
                assert rl.simd.primitive_rate(kind, n=50_000, nthreads=2, repeat=1) > 0  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="kind must be"):
        rl.simd.primitive_rate("sin", n=10)  # type: ignore[arg-type]


def test_environment_variable_selects_the_path() -> None:
    """ROPELAB_SIMD is read at import; an unknown or unsupported value falls back to the best path."""
    import os
    import subprocess
    import sys

    best = rl.simd.available()[-1]
    for value, expected in [("scalar", "scalar"), (best, best), ("bogus", best)]:
        env = dict(os.environ, ROPELAB_SIMD=value)
        out = subprocess.run(
            [sys.executable, "-c", "import ropelab; print(ropelab.simd.isa())"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert out == expected
