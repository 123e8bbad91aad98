"""Random-feature estimators: closed forms, Monte Carlo against them, reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl

ESTIMATORS = [("trig", "conjugate"), ("trig", "literal"), ("random_phase", "conjugate"), ("positive", "conjugate")]


def pair(d: int = 8, scale: float = 0.5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return scale * rng.standard_normal(d) / np.sqrt(d), scale * rng.standard_normal(d) / np.sqrt(d)


def test_sigma_one_conjugate_and_positive_unbiased_literal_gives_exp_minus_qk() -> None:
    q, k = pair()
    kappa = np.exp(q @ k)
    for est in ("trig", "random_phase", "positive"):
        m, _ = rl.rff.moments(q, k, 1.0, est)
        assert m == pytest.approx(kappa, rel=1e-14)
    m_lit, _ = rl.rff.moments(q, k, 1.0, "trig", "literal")
    assert m_lit == pytest.approx(np.exp(-(q @ k)), rel=1e-14)


def test_performer_lemma2_at_sigma_one() -> None:
    q, k = pair(scale=1.3)
    a, b, kappa, D = np.sum((q + k) ** 2), np.sum((q - k) ** 2), np.exp(q @ k), 7
    trig = np.exp(a) / (2 * D) * kappa**-2 * (1 - np.exp(-b)) ** 2
    pos = np.exp(a) / D * kappa**2 * (1 - np.exp(-a))
    assert rl.rff.mse(q, k, D=D, sigma=1.0, estimator="trig") == pytest.approx(trig, rel=1e-13)
    assert rl.rff.mse(q, k, D=D, sigma=1.0, estimator="positive") == pytest.approx(pos, rel=1e-13)


def test_mse_is_variance_over_D_plus_bias_squared() -> None:
    q, k = pair()
    sig = np.array([0.2, 0.9, 1.4])
    for est, conv in ESTIMATORS:
        m, v = rl.rff.moments(q, k, sig, est, conv)
        expected = v / 5 + (m - np.exp(q @ k)) ** 2
        np.testing.assert_allclose(
            rl.rff.mse(q, k, D=5, sigma=sig, estimator=est, convention=conv), expected, rtol=1e-12
        )


def test_vectorised_shapes_and_scalars() -> None:
    q, k = pair()
    assert isinstance(rl.rff.mse(q, k, D=3, sigma=1.0), float)
    assert rl.rff.mse(q, k, D=3, sigma=np.ones((2, 3))).shape == (2, 3)
    m, v = rl.rff.moments(q, k, [0.5, 1.0])
    assert m.shape == v.shape == (2,)


@pytest.mark.parametrize("mode", ["projected", "full"])
@pytest.mark.parametrize(("est", "conv"), ESTIMATORS)
def test_monte_carlo_matches_closed_forms(mode: str, est: str, conv: str) -> None:
    """Mean and MSE of the Monte-Carlo estimate within 5 standard errors (fixed seed)."""
    q, k = pair(d=6, scale=0.9, seed=3)
    D, sigma = 16, 0.8
    trials = 20000 if mode == "projected" else 4000
    e = rl.rff.estimate(q, k, D, sigma, est, conv, trials=trials, seed=11, mode=mode)
    mean, var = rl.rff.moments(q, k, sigma, est, conv)
    # mean of the estimate: SE = sqrt(Var[X]/D / trials) from the closed-form variance
    assert abs(e.mean() - mean) < 5 * np.sqrt(var / D / trials)
    # MSE: empirical mean of squared errors, SE from the sample std of the squared errors
    sq = (e - np.exp(q @ k)) ** 2
    se = sq.std(ddof=1) / np.sqrt(trials)
    assert abs(sq.mean() - rl.rff.mse(q, k, D=D, sigma=sigma, estimator=est, convention=conv)) < 5 * se
    # variance of the estimate: SE of a sample variance ~ sqrt((m4 - s^4)/n)
    c = e - e.mean()
    se_var = np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / trials)
    assert abs(c.var() - var / D) < 5 * se_var


def test_orthogonal_features_are_unbiased_with_lower_variance() -> None:
    q, k = pair(d=16, scale=1.0, seed=5)
    D, trials = 64, 4000
    e = rl.rff.estimate(q, k, D, 1.0, "trig", trials=trials, seed=2, mode="full", orthogonal=True)
    mean, var_iid = rl.rff.moments(q, k, 1.0, "trig")
    se_mean = e.std(ddof=1) / np.sqrt(trials)
    assert abs(e.mean() - mean) < 5 * se_mean
    c = e - e.mean()
    se_var = np.sqrt((np.mean(c**4) - np.mean(c**2) ** 2) / trials)
    # The i.i.d. formula overstates the ORF variance by far more than 5 standard errors.
    assert c.var() + 5 * se_var < var_iid / D


def test_orthogonal_rows_are_orthogonal_with_chi_norms() -> None:
    w = rl.rff.sample_omega(40, 8, sigma=2.0, seed=4, orthogonal=True)
    for b in range(0, 40, 8):
        blk = w[b : b + 8]
        g = blk @ blk.T
        off = g - np.diag(np.diag(g))
        assert np.abs(off).max() < 1e-12 * np.diag(g).max()
    # the last block is truncated: D need not be a multiple of d
    assert rl.rff.sample_omega(13, 8, seed=4, orthogonal=True).shape == (13, 8)


@pytest.mark.parametrize("mode", ["projected", "full"])
def test_bit_identical_across_threads_and_calls(mode: str) -> None:
    q, k = pair()
    runs = [rl.rff.estimate(q, k, 64, 0.7, trials=300, seed=123, mode=mode, nthreads=n) for n in (1, 2, 3)]
    runs.append(rl.rff.estimate(q, k, 64, 0.7, trials=300, seed=123, mode=mode, nthreads=2))
    for r in runs[1:]:
        assert np.array_equal(r, runs[0])
    other = rl.rff.estimate(q, k, 64, 0.7, trials=300, seed=124, mode=mode)
    assert not np.any(other == runs[0])


def test_trial_depends_only_on_seed_and_index() -> None:
    q, k = pair()
    long = rl.rff.estimate(q, k, 32, trials=100, seed=8, mode="full")
    short = rl.rff.estimate(q, k, 32, trials=10, seed=8, mode="full")
    assert np.array_equal(long[:10], short)


def test_full_mode_equals_feature_maps_of_sample_omega() -> None:
    """Trial t of full mode uses exactly sample_omega(..., index=t) (and sample_phase)."""
    q, k = pair(d=5)
    D, seed = 24, 77
    X = np.stack([q, k])
    for t in (0, 3):
        est = rl.rff.estimate(q, k, D, 0.9, "trig", trials=t + 1, seed=seed, mode="full")[t]
        w = rl.rff.sample_omega(D, 5, 0.9, seed=seed, index=t)
        f = rl.rff.feature_map(X, w, "trig")
        assert est == pytest.approx(f[0] @ f[1], rel=1e-12)
        # literal convention: cos block dot minus sin block dot
        lit = rl.rff.estimate(q, k, D, 0.9, "trig", "literal", trials=t + 1, seed=seed, mode="full")[t]
        assert lit == pytest.approx(f[0, :D] @ f[1, :D] - f[0, D:] @ f[1, D:], rel=1e-12)
        beta = rl.rff.sample_phase(D, seed=seed, index=t)
        f = rl.rff.feature_map(X, w, "random_phase", phase=beta)
        est = rl.rff.estimate(q, k, D, 0.9, "random_phase", trials=t + 1, seed=seed, mode="full")[t]
        assert est == pytest.approx(f[0] @ f[1], rel=1e-12)
        f = rl.rff.feature_map(X, w, "positive")
        est = rl.rff.estimate(q, k, D, 0.9, "positive", trials=t + 1, seed=seed, mode="full")[t]
        assert est == pytest.approx(f[0] @ f[1], rel=1e-12)


def test_sample_omega_rows_have_sigma_squared_variance() -> None:
    w = rl.rff.sample_omega(20000, 3, sigma=0.5, seed=1)
    # per-component variance 0.25; SE of a sample variance of normals = sigma^2 sqrt(2/n)
    n = w.size
    assert abs(w.var() - 0.25) < 5 * 0.25 * np.sqrt(2 / n)
    assert abs(w.mean()) < 5 * 0.5 / np.sqrt(n)


def test_projected_random_phase_handles_parallel_and_zero_vectors() -> None:
    q = np.array([0.3, 0.4])
    for k in (2 * q, np.zeros(2)):
        e = rl.rff.estimate(q, k, 32, 1.0, "random_phase", trials=3000, seed=0)
        m, v = rl.rff.moments(q, k, 1.0, "random_phase")
        assert abs(e.mean() - m) < 5 * np.sqrt(v / 32 / 3000)


def test_normals_are_standard_normal_including_the_ziggurat_tail() -> None:
    """Kolmogorov–Smirnov against N(0,1), plus the tail beyond the ziggurat's R = 3.6542."""
    from scipy import stats

    z = rl.rff.sample_omega(2_000_000, 1, seed=31).ravel()
    assert stats.kstest(z[:200_000], "norm").pvalue > 1e-3
    p_tail = 2 * stats.norm.sf(3.6541528853610088)
    n_tail = np.count_nonzero(np.abs(z) > 3.6541528853610088)
    assert abs(n_tail - p_tail * z.size) < 5 * np.sqrt(p_tail * z.size)
    p_far = 2 * stats.norm.sf(4.5)
    assert abs(np.count_nonzero(np.abs(z) > 4.5) - p_far * z.size) < 5 * np.sqrt(p_far * z.size) + 1
