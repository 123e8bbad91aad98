"""Issue 25: stabilised random-feature attention gives finite output for finite input.

Before the fix, ``attention.random_feature(..., stabilize=True)`` raised ``ValueError`` ("a
random feature overflows a double") for query rows whose ``scale*|q|^2/2`` overflows a double
(the shift exp(h - h) was evaluated as inf - inf), and, for the positive and hyperbolic
estimators, from ``|q|`` or ``|k|`` of about ``3e9`` on: the exponent ``p_f - (h + shift)`` lost an
ulp of ``h`` (> 709 once ``h > 2**62``), so features overflowed (or all underflowed: a vanished
denominator). Each case below is checked against an independent route.
"""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import attention, rff

EPS = np.finfo(np.float64).eps
# one temperature per rotary pair (interleaved: pair i is channels 2i, 2i+1): channels 4..7 have
# exactly zero frequencies, so whatever they hold changes only the norms, never a projection
D, d = 16, 8


def omega(sigma_pairs: np.ndarray, seed: int) -> np.ndarray:
    """The frequencies of trial 0 (ω_c = sigma[pair(c)]·g_c, g the draws of sigma = 1)."""
    return rff.sample_omega(D, d, 1.0, index=0, seed=seed) * np.repeat(sigma_pairs, 2)


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
def test_query_norm_overflowing_a_double_cancels(estimator, causal):
    # scale*|q|^2/2 = inf for every query row (1e200 in the zero-frequency channels), projections
    # unchanged: a query row's amplitude is a per-row constant that cancels in num/den, so the
    # estimate must be the one of the same queries without those channels, bit for bit (the
    # stabilised query features are exp(p_f - max p) or [cos | sin]: h does not enter).
    rng = np.random.default_rng(25)
    T = 70  # two chunks
    q = rng.standard_normal((T, d))
    q[:, 4:] = 0.0
    k = rng.standard_normal((T, d))
    v = rng.standard_normal((T, 3))
    sig = np.array([0.7, 1.1, 0.0, 0.0])
    kw = dict(estimator=estimator, sigma=sig, causal=causal, seed=4, stabilize=True, scale=1.0)
    ref = attention.random_feature(q, k, v, D, **kw)
    big = q.copy()
    big[:, 4:] = 1e200
    with np.errstate(over="ignore"):
        assert not np.isfinite(0.5 * np.sum(big**2, axis=1)).any()
    out = attention.random_feature(big, k, v, D, **kw)
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("estimator", ["positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("qscale", [1e10, 1e100])
def test_large_query_projections(estimator, causal, qscale):
    # |q| ~ qscale: the query features are exp(±p_f - max|p|), so only the frequency f* with the
    # largest ±p_f survives (the others are below exp(-1e8)); the estimate of row i is then the
    # softmax over keys j of the log-weights s_j = ±pk_jf* - hk_j (hq cancels), computed here in
    # float64 by NumPy in the log domain.
    rng = np.random.default_rng(7)
    T = 70
    q = qscale * rng.standard_normal((T, d))
    k = rng.standard_normal((T, d))
    v = rng.standard_normal((T, 2))
    sig = np.array([1.0, 0.8, 1.2, 0.9])
    W = omega(sig, seed=11)
    out = attention.random_feature(
        q, k, v, D, estimator=estimator, sigma=sig, causal=causal, seed=11, stabilize=True, scale=1.0
    )
    assert np.isfinite(out).all()
    pq, pk = q @ W.T, k @ W.T
    hk = 0.5 * np.sum(k**2, axis=1)
    signs = [1.0] if estimator == "positive" else [1.0, -1.0]
    sq = np.stack([s * pq for s in signs], axis=-1)  # (T, D, signs)
    sk = np.stack([s * pk for s in signs], axis=-1)
    for i in range(T):
        f, s = np.unravel_index(np.argmax(sq[i]), sq[i].shape)
        order = np.sort(sq[i].ravel())
        assert order[-1] - order[-2] > 1e4  # every other query feature underflows to 0
        keys = np.arange(i + 1) if causal else np.arange(T)
        logw = sk[keys, f, s] - hk[keys]
        w = np.exp(logw - logw.max())
        ref = w @ v[keys] / w.sum()
        # rounding: the log-weights of the core and of NumPy differ by at most a few ulps of
        # |pk| + hk
        # (d-term dot products and norms, then a few subtractions each), each weight relatively
        # by that times 2; the sums over the keys add a relative γ_n each to num and den
        dlog = (2 * d + 4) * EPS * ((np.abs(W) @ np.abs(k[keys]).T).max() + hk[keys].max())
        tol = (4 * dlog + 2 * (len(keys) + 4) * EPS) * np.abs(v[keys]).max()
        np.testing.assert_allclose(out[i], ref, rtol=0, atol=tol)


@pytest.mark.parametrize("estimator", ["positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
def test_large_key_norms_dominant_key(estimator, causal):
    # h_k = scale*|k|^2/2 = 2^65 + 2^13*75 exactly for every key (2^33 in a zero-frequency
    # channel, 128 × an integer vector of squared norm 75 elsewhere: multiples of 2^14 whose sums
    # are exact in any order), projections ~1e7 (sigma 2e4): before, ulp(h) = 8192
    # made every feature overflow or underflow. The hk cancel between keys; the pair (j, f) with
    # the largest ±(pq_if + pk_jf) dominates by more than the ±4096 of rounding in
    # max_f p_jf - h_j plus 750, so row i of the estimate is v_j to rounding.
    rng = np.random.default_rng(3)
    T = 70
    # 70 distinct integer vectors z with |z|^2 = 75, none the negative of another (hyperbolic
    # features are even in ±p)
    grid = np.array(np.meshgrid(*[np.arange(-9, 10)] * 4, indexing="ij")).reshape(4, -1).T
    grid = grid[(np.sum(grid**2, axis=1) == 75) & (grid[:, 0] > 0)]
    k = np.zeros((T, d))
    k[:, :4] = 128.0 * grid[rng.choice(len(grid), T, replace=False)]
    k[:, 4] = 2.0**33
    assert len(set(np.sum(k**2, axis=1))) == 1
    # small queries: their features all stay above exp(-700), so that every key's largest
    # feature meets a non-zero query feature (else the estimate's denominator underflows: the
    # documented ValueError)
    q = 1e-3 * rng.standard_normal((T, d))
    v = rng.standard_normal((T, 2))
    sig = np.array([2e4, 2e4, 0.0, 0.0])
    W = omega(sig, seed=5)
    out = attention.random_feature(
        q, k, v, D, estimator=estimator, sigma=sig, causal=causal, seed=5, stabilize=True, scale=1.0
    )
    assert np.isfinite(out).all()
    pq, pk = q @ W.T, k @ W.T
    checked = 0
    for i in range(T):
        keys = np.arange(i + 1) if causal else np.arange(T)
        score = pq[i][None, :] + pk[keys]  # (keys, D)
        cand = score.ravel() if estimator == "positive" else np.concatenate([score.ravel(), -score.ravel()])
        order = np.sort(cand)
        if order[-1] - order[-2] < 2 * 8192 + 750:
            continue  # no single dominant pair within rounding
        j = keys[np.argmax(cand) % score.size // D]
        np.testing.assert_allclose(out[i], v[j], rtol=4 * EPS, atol=0)
        checked += 1
    assert checked > T // 2


def test_key_half_norm_overflowing_a_double_trig_names_k():
    # The one case stabilisation cannot shift away: under trig features a key's scale*|k|^2/2
    # beyond a double makes its weight exp(+inf), beyond every other key's and not a double.
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 8, 4))
    k[2] = 1e200
    with pytest.raises(ValueError, match=r"random_feature: k: the log-magnitude scale\*\|x\|\^2/2"):
        attention.random_feature(q, k, v, 8, estimator="trig", stabilize=True)


@pytest.mark.parametrize("estimator", ["positive", "hyperbolic"])
def test_key_half_norm_overflowing_a_double_has_weight_zero(estimator):
    # Positive and hyperbolic features of a key with scale*|k|^2/2 = inf have log-magnitude -inf:
    # weight exp(-inf) = 0 against every other key, so the estimate is the one without that key
    # (the same sums less a term that is exactly 0; the products may group the other terms
    # differently: a few ulps per key).
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 8, 4))
    k[2] = 1e200
    kw = dict(estimator=estimator, causal=False, seed=2, stabilize=True)
    out = attention.random_feature(q, k, v, 8, **kw)
    ref = attention.random_feature(q, np.delete(k, 2, axis=0), np.delete(v, 2, axis=0), 8, **kw)
    np.testing.assert_allclose(out, ref, rtol=4 * (k.shape[0] + 4) * EPS, atol=0)


@pytest.mark.parametrize("stabilize", [True, False])
@pytest.mark.parametrize("causal", [True, False])
def test_values_overflowing_the_numerator_name_v(stabilize, causal):
    # Values near the double maximum: the feature-weighted sums of v (the numerators) overflow
    # while the denominators are fine. Named as the values' overflow (it read "the estimated
    # denominator vanished" before), the same message for every thread count and chunking
    # (several chunks of 64 rows, several threads: which row overflows first is not named).
    rng = np.random.default_rng(0)
    q, k = rng.standard_normal((2, 2, 300, 8))
    v = np.full((2, 300, 4), 1e308)
    hint = "rescale v" if stabilize else r"rescale v or pass stabilize=True"
    for n in (1, 2, 3):
        with pytest.raises(
            ValueError, match=rf"random_feature: v: a feature-weighted sum of v overflows a double; {hint}"
        ):
            attention.random_feature(q, k, v, 16, estimator="trig", causal=causal, stabilize=stabilize, nthreads=n)
    # 1e-4 of that stays finite: the sums of at most 300 positive weights of at most about 1 fit
    out = attention.random_feature(q, k, v / 1e4, 16, estimator="positive", causal=causal, stabilize=True)
    assert np.all(np.isfinite(out))
