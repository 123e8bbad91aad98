"""ropelab.attention: exact softmax attention and its random-feature estimate."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import attention, rff, rotary
from tests._sigint import assert_interrupts
from tests.test_attention_float32 import softmax_bound
from tests.test_random_feature_float32 import check as random_feature_f32_check


def reference_softmax(q, k, v, causal=True, scale=None, bias=None):
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    logits = scale * np.einsum("...td,...sd->...ts", q, k)
    if bias is not None:
        logits = logits + bias
    if causal:
        T, S = logits.shape[-2:]
        logits = np.where(np.tril(np.ones((T, S), dtype=bool)), logits, -np.inf)
    return scipy.special.softmax(logits, axis=-1) @ v


def qkv(seed, d=4, T=9, dv=3, dtype=np.float64):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    return q.astype(dtype), k.astype(dtype), v.astype(dtype)


# ---------------------------------------------------------------------------------------------
# exact attention


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("batch", [(), (3,), (2, 3)])
def test_softmax_matches_reference_float64(causal, batch):
    rng = np.random.default_rng(1)
    T, d, dv = 300, 8, 5  # several query and key blocks
    q = 2 * rng.standard_normal(batch + (T, d))
    k = 2 * rng.standard_normal(batch + (T, d))
    v = rng.standard_normal(batch + (T, dv))
    out = attention.softmax(q, k, v, causal=causal)
    ref = reference_softmax(q, k, v, causal)
    assert out.shape == batch + (T, dv) and out.dtype == np.float64
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13 * np.abs(v).max())


def test_softmax_noncausal_rectangular_and_scale():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((5, 6)), rng.standard_normal((700, 6)), rng.standard_normal((700, 2))
    out = attention.softmax(q, k, v, causal=False, scale=0.7)
    np.testing.assert_allclose(out, reference_softmax(q, k, v, False, 0.7), rtol=0, atol=1e-13)


def test_softmax_float32_in_float32_out():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 130, 16)).astype(np.float32) for _ in range(3))
    out = attention.softmax(q, k, v)
    assert out.dtype == np.float32
    ref = reference_softmax(q, k, v)  # float64 from the same float32 inputs
    # computed in float32: within the derived bound (tests/test_attention_float32.py)
    bound = softmax_bound(q, k, v, 1 / np.sqrt(16))
    np.testing.assert_allclose(out, ref, rtol=0, atol=bound)
    # mixed dtypes give float64
    assert attention.softmax(q, k, v.astype(np.float64)).dtype == np.float64


def test_softmax_large_logits_do_not_overflow():
    q = np.array([[1000.0, 0.0], [0.0, 1000.0]])
    k = q.copy()
    v = np.array([[1.0, 0.0], [0.0, 1.0]])
    out = attention.softmax(q, k, v, causal=False, scale=1.0)
    np.testing.assert_allclose(out, np.eye(2), atol=1e-300)


def test_softmax_causal_first_row_is_first_value():
    q, k, v = qkv(4, T=20)
    out = attention.softmax(q, k, v)
    np.testing.assert_allclose(out[0], v[0], rtol=1e-15)


@pytest.mark.parametrize("bias_shape", ["full", "row", "col", "scalar", "alibi"])
def test_softmax_bias(bias_shape):
    rng = np.random.default_rng(5)
    B, H, T, d = 2, 3, 70, 4
    q, k, v = (rng.standard_normal((B, H, T, d)) for _ in range(3))
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    bias = {
        "full": rng.standard_normal((B, H, T, T)),
        "row": rng.standard_normal((T, 1)),
        "col": rng.standard_normal((1, T)),
        "scalar": np.float64(0.3),
        "alibi": -np.array([0.5, 0.25, 0.125])[:, None, None] * (i - j),
    }[bias_shape]
    for causal in (True, False):
        out = attention.softmax(q, k, v, causal=causal, bias=bias)
        ref = reference_softmax(q, k, v, causal, bias=np.broadcast_to(bias, (B, H, T, T)))
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-13)


def test_softmax_bias_minus_inf_masks():
    q, k, v = qkv(6, T=10)
    mask = np.where(np.arange(10)[None, :] % 2 == 0, 0.0, -np.inf)  # only even keys
    out = attention.softmax(q, k, v, causal=False, bias=mask)
    np.testing.assert_allclose(out, attention.softmax(q, k[::2], v[::2], causal=False), rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="bias.*masked"):
        attention.softmax(q, k, v, causal=False, bias=np.full((10, 10), -np.inf))


def test_softmax_phases_compose_with_rotate():
    q, k, v = qkv(7, d=8, T=12)
    p = rotary.rope_angles(np.arange(12), 8)
    out = attention.softmax(q, k, v, angles=p, layout="half")
    ref = attention.softmax(rotary.rotate(q, p, "half"), rotary.rotate(k, p, "half"), v)
    np.testing.assert_array_equal(out, ref)


# ---------------------------------------------------------------------------------------------
# random features: definitions


def features_reference(x, omega, estimator, scale):
    xs = np.sqrt(scale) * x
    p = xs @ omega.T
    h = 0.5 * (xs**2).sum(-1, keepdims=True)
    D = omega.shape[0]
    if estimator == "trig":
        return np.exp(h) / np.sqrt(D) * np.concatenate([np.cos(p), np.sin(p)], -1)
    if estimator == "positive":
        return np.exp(p - h) / np.sqrt(D)
    return np.exp(-h) / np.sqrt(2 * D) * np.concatenate([np.exp(p), np.exp(-p)], -1)


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
def test_feature_map_definition_and_rff_convention(estimator):
    rng = np.random.default_rng(8)
    x = 0.4 * rng.standard_normal((5, 6))
    w = rff.sample_omega(32, 6, 1.3, seed=2)
    np.testing.assert_allclose(
        attention.feature_map(x, w, estimator, scale=0.5), features_reference(x, w, estimator, 0.5), rtol=1e-13
    )
    if estimator != "hyperbolic":  # the same maps as ropelab.rff (trig: the conjugate convention)
        np.testing.assert_allclose(attention.feature_map(x, w, estimator), rff.feature_map(x, w, estimator), rtol=1e-13)


def masked_reference(q, k, v, omega, estimator, scale, causal):
    fq, fk = (features_reference(x, omega, estimator, scale) for x in (q, k))
    A = fq @ fk.T
    if causal:
        A = np.tril(A)
    return (A @ v) / A.sum(-1, keepdims=True), A @ v, A.sum(-1)


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("orthogonal", [False, True])
@pytest.mark.parametrize("D", [24, 300])
def test_random_feature_equals_masked_quadratic_form(estimator, causal, orthogonal, D):
    # chunked prefix sums == the explicit (masked) T×S matrix of φ(q)·φ(k); D = 300 runs in three
    # feature groups, each with its own stabilisation scales
    rng = np.random.default_rng(9)
    T, d, dv = 1100, 6, 3
    q, k = 0.5 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    omega = rff.sample_omega(D, d, 0.8, orthogonal=orthogonal, index=0, seed=11)
    ref, num_ref, den_ref = masked_reference(q, k, v, omega, estimator, 1 / np.sqrt(d), causal)
    raw = attention.random_feature(
        q,
        k,
        v,
        D,
        estimator=estimator,
        sigma=0.8,
        seed=11,
        orthogonal=orthogonal,
        causal=causal,
        stabilize=False,
        return_parts=True,
    )
    np.testing.assert_allclose(raw.numerator, num_ref, rtol=1e-10, atol=1e-10 * np.abs(num_ref).max())
    np.testing.assert_allclose(raw.denominator, den_ref, rtol=1e-10, atol=1e-10 * np.abs(den_ref).max())
    tol = 1e-9 * np.abs(ref).max()
    np.testing.assert_allclose(raw.output, ref, rtol=0, atol=tol)
    stab = attention.random_feature(
        q, k, v, D, estimator=estimator, sigma=0.8, seed=11, orthogonal=orthogonal, causal=causal, stabilize=True
    )
    np.testing.assert_allclose(stab, ref, rtol=0, atol=tol)


def test_random_feature_per_pair_sigma_definition():
    rng = np.random.default_rng(10)
    T, d, D = 70, 8, 16
    q, k, v = 0.5 * rng.standard_normal((3, T, d))
    pair_sigma = np.array([0.5, 1.0, 1.5, 2.0])
    for layout, chan in (("interleaved", np.repeat(pair_sigma, 2)), ("half", np.tile(pair_sigma, 2))):
        omega = rff.sample_omega(D, d, 1.0, seed=4) * chan
        ref = masked_reference(q, k, v, omega, "trig", 1 / np.sqrt(d), True)[0]
        out = attention.random_feature(q, k, v, D, sigma=pair_sigma, layout=layout, seed=4)
        np.testing.assert_allclose(out, ref, rtol=0, atol=1e-10)


def test_random_feature_phases_compose_with_rotate():
    q, k, v = qkv(12, d=8, T=40)
    p = rotary.rope_angles(np.arange(40), 8)
    out = attention.random_feature(q, k, v, 32, angles=p, seed=1)
    ref = attention.random_feature(rotary.rotate(q, p), rotary.rotate(k, p), v, 32, seed=1)
    np.testing.assert_array_equal(out, ref)


def test_random_feature_batched_equals_per_sequence():
    rng = np.random.default_rng(13)
    q, k, v = rng.standard_normal((3, 2, 3, 50, 4)) * 0.5
    out = attention.random_feature(q, k, v, 16, seed=3, trials=2)
    assert out.shape == (2, 2, 3, 50, 4)
    for t in range(2):
        for b in np.ndindex(2, 3):
            single = attention.random_feature(q[b], k[b], v[b], 16, seed=3, trials=2)[t]
            np.testing.assert_array_equal(out[(t,) + b], single)
    # trial t of a run of several trials is the single trial drawn with index t: trial 0 == trials=1
    np.testing.assert_array_equal(out[0], attention.random_feature(q, k, v, 16, seed=3))


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
def test_random_feature_bit_identical_for_every_thread_count(estimator):
    rng = np.random.default_rng(14)
    q, k, v = 0.5 * rng.standard_normal((3, 2, 1500, 8))  # 24 chunks
    kw = dict(estimator=estimator, seed=7, trials=3, orthogonal=True, return_parts=True)
    runs = [attention.random_feature(q, k, v, 32, nthreads=n, **kw) for n in (1, 2, 3)]
    for r in runs[1:]:
        for a, b in zip(r, runs[0]):
            np.testing.assert_array_equal(a, b)
    nc = [attention.random_feature(q, k, v, 32, causal=False, nthreads=n, seed=2) for n in (1, 3)]
    np.testing.assert_array_equal(nc[0], nc[1])


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
def test_feature_groups_bit_identical_in_every_schedule(estimator, causal):
    # D = 300: three feature groups. One sequence runs by unit on 1 thread, one task per group on
    # 2–3 threads, in three parallel steps on 4 or more; two sequences by unit on 1–2 threads, by
    # group on 3–6, in steps on 7
    rng = np.random.default_rng(15)
    q, k, v = 0.7 * rng.standard_normal((3, 2, 1500, 6))
    kw = dict(estimator=estimator, causal=causal, seed=5, return_parts=True)
    for batch in (q[:1], q):
        qq, kk, vv = batch, k[: len(batch)], v[: len(batch)]
        runs = [attention.random_feature(qq, kk, vv, 300, nthreads=n, **kw) for n in (1, 2, 3, 4, 5, 7)]
        for r in runs[1:]:
            for a, b in zip(r, runs[0]):
                np.testing.assert_array_equal(a, b)


def test_random_feature_float32():
    # computed in float32 (tests/test_random_feature_float32.py): within the derived bound of the
    # float64 path on the same inputs
    q, k, v = qkv(15, d=8, T=64, dv=4, dtype=np.float32)
    out, _, _ = random_feature_f32_check(q, k, v, 64, seed=0)
    assert out.dtype == np.float32


# ---------------------------------------------------------------------------------------------
# random features: statistics


def exact_sums(q, k, v, scale, causal=True, sigma_chan=None, estimator="trig"):
    """E[num], E[den]: exact kernel sums at σ = 1; the closed-form means for a per-channel σ."""
    qs, ks = np.sqrt(scale) * q, np.sqrt(scale) * k
    if sigma_chan is None:
        K = np.exp(qs @ ks.T)
    else:
        hq, hk = 0.5 * (qs**2).sum(-1), 0.5 * (ks**2).sum(-1)
        if estimator == "trig":
            diff = qs[:, None, :] - ks[None, :, :]
            K = np.exp(hq[:, None] + hk[None, :] - 0.5 * (sigma_chan**2 * diff**2).sum(-1))
        else:
            s = qs[:, None, :] + ks[None, :, :]
            K = np.exp(0.5 * (sigma_chan**2 * s**2).sum(-1) - hq[:, None] - hk[None, :])
    if causal:
        K = np.tril(K)
    return K @ v, K.sum(-1)


def assert_unbiased(parts, num_exact, den_exact, n_sigma=5.0):
    n = parts.numerator.shape[0]
    for est, exact in ((parts.numerator, num_exact), (parts.denominator, den_exact)):
        mean = est.mean(0)
        se = est.std(0, ddof=1) / np.sqrt(n)
        z = np.abs(mean - exact) / se
        assert z.max() < n_sigma, (z.max(), np.unravel_index(z.argmax(), z.shape))


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
@pytest.mark.parametrize("orthogonal", [False, True])
def test_numerator_and_denominator_unbiased(estimator, orthogonal):
    rng = np.random.default_rng(16)
    T, d, dv = 12, 4, 2
    q, k = 0.7 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    parts = attention.random_feature(
        q, k, v, 8, estimator=estimator, orthogonal=orthogonal, trials=4000, seed=21, stabilize=False, return_parts=True
    )
    assert_unbiased(parts, *exact_sums(q, k, v, 1 / np.sqrt(d)))


@pytest.mark.parametrize("estimator", ["trig", "positive"])
def test_per_pair_sigma_means(estimator):
    # E[φ(q)·φ(k)] for one σ per rotary pair: the closed forms with Σ = diag(σ_c²)
    rng = np.random.default_rng(17)
    T, d = 10, 6
    q, k = 0.6 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, 2))
    sig = np.array([0.4, 1.0, 1.7])
    parts = attention.random_feature(
        q, k, v, 8, estimator=estimator, sigma=sig, trials=4000, seed=5, stabilize=False, return_parts=True
    )
    assert_unbiased(parts, *exact_sums(q, k, v, 1 / np.sqrt(d), sigma_chan=np.repeat(sig, 2), estimator=estimator))


def test_error_shrinks_with_D():
    rng = np.random.default_rng(18)
    q, k, v = 0.5 * rng.standard_normal((3, 64, 8))
    exact = attention.softmax(q, k, v)

    def mse(D):
        est = attention.random_feature(q, k, v, D, estimator="positive", trials=40, seed=1)
        return ((est - exact) ** 2).sum(axis=(1, 2)).mean()

    m1, m2 = mse(32), mse(512)
    # MSE ∝ 1/D to leading order: 16× fewer at 16× the features; allow a factor 2 of slack
    assert m2 < m1 / 8


def test_memory_is_not_T_D_dv():
    script = textwrap.dedent(
        """
        import resource
        import numpy as np
        import ropelab as rl
        T, d, D = 200_000, 16, 64
        rng = np.random.default_rng(0)
        q, k, v = (0.3 * rng.standard_normal((T, d)) for _ in range(3))
        rl.attention.random_feature(q[:100], k[:100], v[:100], D)  # warm-up
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = rl.attention.random_feature(q, k, v, D, nthreads=2)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(out.shape, np.isfinite(out).all(), (after - before) / 1024)
        """
    )
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    shape, finite, grown_mb = res.stdout.rsplit(" ", 2)
    assert shape.startswith("(200000, 16)") and finite == "True"
    # T·D·d_v doubles would be 1600 MB; the output is 25.6 MB, the state 16 × 128 × 17 doubles
    assert float(grown_mb) < 200


# ---------------------------------------------------------------------------------------------
# properties


small = st.floats(-1.5, 1.5, allow_nan=False, allow_subnormal=False)


@settings(max_examples=40, deadline=None)
@given(
    T=st.integers(1, 140),
    d=st.integers(1, 6),
    dv=st.integers(1, 4),
    seed=st.integers(0, 2**32 - 1),
    causal=st.booleans(),
)
def test_property_softmax_rows_are_convex_combinations(T, d, dv, seed, causal):
    rng = np.random.default_rng(seed)
    q, k = 2 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    out = attention.softmax(q, k, v, causal=causal)
    np.testing.assert_allclose(out, reference_softmax(q, k, v, causal), rtol=0, atol=1e-12)
    assert (out <= v.max(0) + 1e-12).all() and (out >= v.min(0) - 1e-12).all()
    # a per-row constant bias changes nothing
    shifted = attention.softmax(q, k, v, causal=causal, bias=rng.standard_normal((T, 1)) * 50)
    np.testing.assert_allclose(shifted, out, rtol=0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(
    T=st.integers(1, 200),
    d=st.integers(1, 5),
    D=st.one_of(st.integers(1, 40), st.sampled_from([129, 300])),
    seed=st.integers(0, 2**64 - 1),
    estimator=st.sampled_from(["trig", "positive", "hyperbolic"]),
    causal=st.booleans(),
)
def test_property_stabilize_cancels(T, d, D, seed, estimator, causal):
    rng = np.random.default_rng(seed % 2**32)
    q, k = rng.uniform(-1, 1, (2, T, d))
    v = rng.standard_normal((T, 2))
    a = attention.random_feature(q, k, v, D, estimator=estimator, causal=causal, seed=seed, return_parts=True)
    b = attention.random_feature(
        q, k, v, D, estimator=estimator, causal=causal, seed=seed, stabilize=False, return_parts=True
    )
    # same ratio; the parts differ by one positive factor per row
    ratio = b.denominator / a.denominator
    assert (ratio > 0).all() or estimator == "trig"
    np.testing.assert_allclose(
        b.numerator, a.numerator * ratio[:, None], rtol=1e-9, atol=1e-9 * np.abs(b.numerator).max()
    )
    if estimator != "trig":  # positive denominators: a well-conditioned ratio
        np.testing.assert_allclose(a.output, b.output, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# bad input


def test_bad_shapes():
    q, k, v = qkv(0, T=5)
    with pytest.raises(ValueError, match=r"attention.softmax: q must have shape"):
        attention.softmax(q[0], k, v)
    with pytest.raises(ValueError, match=r"k must have q's width"):
        attention.softmax(q, k[:, :2], v)
    with pytest.raises(ValueError, match=r"v must have k's length"):
        attention.softmax(q, k, v[:3])
    with pytest.raises(ValueError, match=r"causal=True requires .*T == S"):
        attention.softmax(q, k[:3], v[:3])
    with pytest.raises(ValueError, match=r"same leading"):
        attention.random_feature(q[None].repeat(2, 0), k[None].repeat(3, 0), v[None].repeat(3, 0), 4)
    with pytest.raises(ValueError, match=r"bias must be broadcastable"):
        attention.softmax(q, k, v, bias=np.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"bias must be finite or -inf"):
        attention.softmax(q, k, v, bias=np.full((5, 5), np.nan))
    with pytest.raises(ValueError, match=r"angles"):
        attention.softmax(q, k, v, angles=np.zeros((5, 3)))


def test_bad_values():
    q, k, v = qkv(0, T=5)
    bad = q.copy()
    bad[2, 1] = np.nan
    for f in (attention.softmax, lambda *a: attention.random_feature(*a, 4)):
        with pytest.raises(ValueError, match=r"q must be finite"):
            f(bad, k, v)
        with pytest.raises(ValueError, match=r"v must be finite"):
            f(q, k, np.where(v > 0, np.inf, v))
    with pytest.raises(TypeError, match=r"k must be a real array"):
        attention.softmax(q, k.astype(complex), v)
    with pytest.raises(ValueError, match=r"scale must be > 0"):
        attention.softmax(q, k, v, scale=0.0)


def test_bad_random_feature_arguments():
    q, k, v = qkv(0, d=6, T=5)
    with pytest.raises(ValueError, match=r"D must be"):
        attention.random_feature(q, k, v, 0)
    with pytest.raises(ValueError, match=r"D must be an integer >= 1, got 2.5"):
        attention.random_feature(q, k, v, 2.5)
    with pytest.raises(ValueError, match=r"sigma must have one temperature per rotary pair \(d/2 = 3"):
        attention.random_feature(q, k, v, 4, sigma=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"sigma must be >= 0"):
        attention.random_feature(q, k, v, 4, sigma=[1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match=r"sigma must be finite"):
        attention.random_feature(q, k, v, 4, sigma=np.inf)
    with pytest.raises(ValueError, match=r"estimator must be one of"):
        attention.random_feature(q, k, v, 4, estimator="random_phase")
    with pytest.raises(ValueError, match=r"trials must be"):
        attention.random_feature(q, k, v, 4, trials=0)
    with pytest.raises(ValueError, match=r"layout must be"):
        attention.random_feature(q, k, v, 4, layout="pairs")
    qo = np.ones((5, 7))
    with pytest.raises(ValueError, match=r"per-pair temperatures need an even width"):
        attention.random_feature(qo, qo, v, 4, sigma=[1.0, 1.0, 1.0])


def test_overflow_without_stabilize_names_the_argument():
    q, k, v = qkv(0, d=4, T=5)
    big = q.copy()
    big[3] = 60.0  # scale·‖x‖²/2 = 0.5·0.5·4·3600 = 3600 > log(DBL_MAX)
    for est in ("trig", "positive", "hyperbolic"):
        with pytest.raises(ValueError, match=r"random_feature: q "):
            attention.random_feature(big, k, v, 8, estimator=est, stabilize=False)
        with pytest.raises(ValueError, match=r"random_feature: k "):
            attention.random_feature(q, big, v, 8, estimator=est, stabilize=False)
    # stabilised, the same input is fine for the positive-valued maps
    out = attention.random_feature(big, big, v, 8, estimator="positive")
    assert np.isfinite(out).all()


@pytest.mark.parametrize(
    ("setup", "call"),
    [
        (
            "q, k, v = 0.3 * rng.standard_normal((3, 4000, 16))",
            "rl.attention.random_feature(q, k, v, 256, trials=500, nthreads=2)",
        ),
        (
            "q, k, v = 0.3 * rng.standard_normal((3, 4000, 16)); Q = rng.standard_normal((300_000, 16))",
            "rl.attention.softmax(Q, Q, Q, causal=False, nthreads=2)",
        ),
    ],
)
def test_ctrl_c_interrupts(setup, call):
    assert_interrupts(
        call,
        setup=setup,
        after='print("after", rl.attention.softmax(q[:4], k[:4], v[:4]).shape)',
        expected_after="(4, 16)",
    )


# ---------------------------------------------------------------------------------------------
# error against exact attention


def test_mean_cosine_matches_direct_average():
    rng = np.random.default_rng(30)
    q, k = rng.standard_normal((2, 2, 40, 5)) + 0.5
    qh = q / np.linalg.norm(q, axis=-1, keepdims=True)
    kh = k / np.linalg.norm(k, axis=-1, keepdims=True)
    C = np.einsum("btd,bsd->bts", qh, kh)
    assert attention.mean_cosine(q, k, causal=False) == pytest.approx(C.mean(), rel=1e-13)
    assert attention.mean_cosine(q, k) == pytest.approx(C[:, np.tril(np.ones((40, 40), bool))].mean(), rel=1e-13)


def test_error_definition_and_rules():
    rng = np.random.default_rng(31)
    q, k, v = 0.5 * rng.standard_normal((3, 48, 8))
    r = attention.error(q, k, v, [8, 64], trials=6, seed=4)
    assert r.rules == attention.RULES and r.mean.shape == (5, 2)
    exact = attention.softmax(q, k, v)
    for rule in r.rules:
        for D in (8, 64):
            sig = attention.rule_sigma(rule, xi=r.xi, D=D, d=8)
            est = attention.random_feature(q, k, v, D, sigma=sig, seed=4, trials=6)
            e = np.linalg.norm((est - exact).reshape(6, -1), axis=1) / np.linalg.norm(exact)
            assert r.at(rule, D) == pytest.approx((e.mean(), e.std(ddof=1) / np.sqrt(6)), rel=1e-12)
    assert r.sigma["tan"][0] == pytest.approx(float(np.tan(np.arccos(r.xi) / 2)))
    assert r.sigma["rope"][0] == pytest.approx([1.0, 0.1, 0.01, 0.001])
    with pytest.raises(ValueError, match="rules must be taken from"):
        attention.error(q, k, v, 8, rules=("cold",))
    with pytest.raises(ValueError, match="trials must be an integer >= 2"):
        attention.error(q, k, v, 8, trials=1)
    with pytest.raises(ValueError, match="D must be an integer >= 1"):
        attention.error(q, k, v, [8, 0])


def test_error_shrinks_with_D_at_sigma_one():
    rng = np.random.default_rng(32)
    q, k, v = 0.5 * rng.standard_normal((3, 64, 8))
    r = attention.error(q, k, v, [64, 4096], rules=("one",), estimator="positive", trials=16, seed=1)
    (m1, s1), (m2, s2) = r.at("one", 64), r.at("one", 4096)
    ratio = m1 / m2
    se = ratio * np.hypot(s1 / m1, s2 / m2)  # delta method
    # O(1/√D) predicts 8 at 64× the features; require more than 4 by 5 standard errors
    assert ratio - 5 * se > 4


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
def test_random_feature_noncausal_rectangular(estimator):
    rng = np.random.default_rng(33)
    q, k = 0.5 * rng.standard_normal((70, 5)), 0.5 * rng.standard_normal((1300, 5))
    v = rng.standard_normal((1300, 2))
    omega = rff.sample_omega(16, 5, 1.0, seed=3)
    ref = masked_reference(q, k, v, omega, estimator, 0.3, False)[0]
    out = attention.random_feature(q, k, v, 16, estimator=estimator, causal=False, seed=3, scale=0.3)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
    with pytest.raises(ValueError, match="causal=True requires"):
        attention.random_feature(q, k, v, 16)


def test_doctests_and_examples():
    # (tests/test_doctests.py lists its modules explicitly; ropelab.attention is checked here)
    import doctest
    import inspect

    res = doctest.testmod(
        attention,
        extraglobs={"np": np},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        raise_on_error=False,
        verbose=False,
    )
    assert res.attempted > 10 and res.failed == 0
    for name in attention.__all__:
        obj = getattr(attention, name)
        if inspect.isfunction(obj):
            doc = inspect.getdoc(obj) or ""
            assert "Examples\n--------" in doc and ">>>" in doc, name


def test_angle_precision():
    T, d = 3000, 4
    rng = np.random.default_rng(40)
    q, k = rng.standard_normal((2, T, d))
    # integer steps: the float32 running sum is exact below 2^24, only the float32 products err
    p = attention.angle_precision(q, k, np.ones((T, d // 2)))
    assert (p.angle_error == 0).all() and p.angle_max[-1] == T
    assert p.score_error.max() < 20 * np.finfo(np.float32).eps
    # RoPE frequencies: float32 rounding of the running sum grows with t (≈ t·ulp(ψ_t))
    omega = np.tile(rotary.frequencies(d), (T, 1))
    p = attention.angle_precision(q, k, omega)
    ref = np.abs(rotary.cumulative_angles(omega, accumulate="float32") - rotary.cumulative_angles(omega)).max(1)
    np.testing.assert_array_equal(p.angle_error, ref)
    assert p.angle_error[-1] > 100 * p.angle_error[99]
    with pytest.raises(ValueError, match="omega must be"):
        attention.angle_precision(q, k, omega[:, :1])
    with pytest.raises(ValueError, match="omega must be"):  # (omega, q, k): refused, never swapped
        attention.angle_precision(omega, q, k)
