"""The float32 path of ropelab.attention.random_feature: the dtype rule, its accuracy against the
float64 path on the same float32 inputs (the bound derived in docs/areas/attention.md, "float32
computation", evaluated per case and per output entry from the inputs), bit-identical results for
every thread count and on both vector paths, and its overflow refusals in float32's range.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ropelab as rl

U32 = 2.0**-24  # unit roundoff of float32
U64 = 2.0**-53
ETA = 2.0**-150  # the largest absolute rounding error of a float32 result below 2^-126
PATHS = [p for p in ("scalar", "avx2", "avx512") if p in rl.simd.available()]
ESTIMATORS = ["trig", "positive", "hyperbolic"]


def _features(x, omega, estimator, scale, D):
    """Log-amplitudes la (n, F), the factor s (cos/sin for trig, else 1), and P (n, F): the sums
    Σ_c |ω'_fc x_c| of each feature's projection, ω' = √scale·ω."""
    p = x @ omega.T
    P = np.abs(x) @ np.abs(omega).T
    h = 0.5 * scale * np.sum(x * x, axis=1)
    if estimator == "trig":
        la = np.repeat(h[:, None] - 0.5 * math.log(D), 2 * D, axis=1)
        return la, np.concatenate([np.cos(p), np.sin(p)], axis=1), np.concatenate([P, P], axis=1)
    if estimator == "positive":
        return p - h[:, None] - 0.5 * math.log(D), 1.0, P
    la = np.concatenate([p, -p], axis=1) - h[:, None] - 0.5 * math.log(2 * D)
    return la, 1.0, np.concatenate([P, P], axis=1)


def rf_error_bound(q, k, v, D, estimator, causal, scale, seed, o64, den64, u):
    """Per output entry: a bound on |o(u) − o| of the path with unit roundoff u (docs, "Accuracy of
    the float32 random_feature"). Every feature φ_f(x) = a_f(x)·s_f(x) (a_f its log-magnitude's
    exp, |s_f| ≤ 1) is computed with |δφ_f| ≤ e_f·a_f, e_f = (e^{γ_{d+1} P_f} − 1)(1 + u) + c u
    (c = 4 trig: amplitude, sincos and product; c = 1 otherwise: one rounding of exp·norm); every
    product φ_f(q_i)φ_f(k_j)v_jc passes through at most n = F + 3⌈S/64⌉ + G + 71 rounded operations
    (γ_n). Row constants (the stabilisation) cancel in num/den. o64, den64: the float64 path's
    output and denominator (its own scaling), for the absolute underflow term."""
    B, T, d = q.shape
    S = k.shape[1]
    F = D if estimator == "positive" else 2 * D
    G = max(1, math.ceil(D / 128))
    n = F + 3 * math.ceil(S / 64) + G + 71
    omega = rl.rff.sample_omega(D, d, index=0, seed=seed) * math.sqrt(scale)
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    # the double bookkeeping (h, log-maxima, shifts, exp of double exponents): relative errors of
    # a few 2^-53 of the largest log-magnitude, folded into the unit roundoff
    big = max(
        float(np.max(0.5 * scale * np.sum(x * x, axis=-1) + np.max(np.abs(x) @ np.abs(omega).T, axis=-1)))
        for x in (q64, k64)
    )
    ue = u + 2.0**-50 * (d + 4) * big
    gam = lambda m: m * ue / (1 - m * ue)  # noqa: E731
    c = 4 if estimator == "trig" else 1
    out = np.empty(o64.shape)
    for b in range(B):
        laq, sq, Pq = _features(q64[b], omega, estimator, scale, D)
        lak, sk, Pk = _features(k64[b], omega, estimator, scale, D)
        aq = np.exp(laq - laq.max(axis=1, keepdims=True))  # each query row at its own scale
        ak = np.exp(lak - lak.max())  # the keys at one scale
        eq = np.expm1(gam(d + 1) * Pq) * (1 + ue) + c * ue
        ek = np.expm1(gam(d + 1) * Pk) * (1 + ue) + c * ue
        fq, fk = aq * sq, ak * sk
        for i0 in range(0, T, 256):
            i1 = min(T, i0 + 256)
            K = fq[i0:i1] @ fk.T
            M0 = aq[i0:i1] @ ak.T
            E = ((aq[i0:i1] * (1 + eq[i0:i1])) @ (ak * (1 + ek)).T) * (1 + gam(n)) - M0
            if causal:
                mask = np.arange(S)[None, :] > np.arange(i0, i1)[:, None]
                K[mask] = 0
                E[mask] = 0
            den = K.sum(axis=1)
            e_den = E.sum(axis=1)
            e_num = E @ np.abs(v64[b])
            assert np.all(e_den < np.abs(den)), "the bound needs |δden| < |den|: choose other inputs"
            o = np.abs(o64[b, i0:i1])
            rel = (e_num + o * e_den[:, None]) / (np.abs(den) - e_den)[:, None] * (1 + u) + u * o
            # float32 results below 2^-126 err by up to ETA absolutely: at most S·(F + n) of them
            # feed an entry of num or den (in the path's own scaling, den64 to within a factor 2)
            tiny = S * (F + n) * ETA * (1 + o) / (0.5 * np.abs(den64[b, i0:i1]))[:, None]
            out[b, i0:i1] = rel + tiny
    return out


def check(q, k, v, D, *, estimator="trig", causal=True, stabilize=True, seed=0, nthreads=None):
    """The float32 result within the bound of every entry, against the float64 path."""
    kw = dict(estimator=estimator, causal=causal, stabilize=stabilize, seed=seed)
    o32 = rl.attention.random_feature(q, k, v, D, nthreads=nthreads, **kw)
    assert o32.dtype == np.float32
    q64, k64, v64 = (x.astype(np.float64) for x in (q, k, v))
    o64, _, den64 = rl.attention.random_feature(q64, k64, v64, D, return_parts=True, **kw)
    scale = 1 / math.sqrt(q.shape[-1])
    seqs = [x.reshape((-1,) + x.shape[-2:]) for x in (q, k, v, o64)]  # (sequences, rows, columns)
    args = (*seqs[:3], D, estimator, causal, scale, seed, seqs[3], den64.reshape(seqs[3].shape[:2]))
    bound = rf_error_bound(*args, U32) + rf_error_bound(*args, U64)  # and the float64 path's own
    err = np.abs(o32.astype(np.float64) - o64).reshape(bound.shape)
    worst = np.unravel_index(np.argmax(err - bound), err.shape)
    assert np.all(err <= bound), (estimator, causal, stabilize, worst, err[worst], bound[worst])
    return o32, float(err.max()), float(bound.max())


def qkv(seed, B, T, d, dv, amp=0.5):
    rng = np.random.default_rng(seed)
    q, k = amp * rng.standard_normal((2, B, T, d))
    v = rng.standard_normal((B, T, dv))
    return q.astype(np.float32), k.astype(np.float32), v.astype(np.float32)


def test_dtype_rule():
    q, k, v = qkv(0, 2, 9, 4, 3)
    assert rl.attention.random_feature(q, k, v, 8).dtype == np.float32
    parts = rl.attention.random_feature(q, k, v, 8, return_parts=True)
    assert all(a.dtype == np.float32 for a in parts)
    # anything but three float32 arrays: float64
    assert rl.attention.random_feature(q, k, v.astype(np.float64), 8).dtype == np.float64
    assert rl.attention.random_feature(q.astype(np.float64), k, v, 8).dtype == np.float64
    # rotary angles: q and k rotated in float64, rounded to float32, then the float32 path
    ang = np.linspace(0, 3, 9 * 2).reshape(9, 2)
    out = rl.attention.random_feature(q, k, v, 8, angles=ang)
    assert out.dtype == np.float32
    qr = rl.rotary.rotate(q.astype(np.float64), ang).astype(np.float32)
    kr = rl.rotary.rotate(k.astype(np.float64), ang).astype(np.float32)
    np.testing.assert_array_equal(out, rl.attention.random_feature(qr, kr, v, 8))


@pytest.mark.parametrize(
    "B, T, d, dv, D", [(1, 1, 4, 2, 8), (2, 37, 8, 5, 64), (1, 300, 16, 7, 200), (1, 1000, 32, 9, 256)]
)
@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("stabilize", [True, False])
def test_accuracy_against_float64(B, T, d, dv, D, estimator, causal, stabilize):
    q, k, v = qkv(T + d, B, T, d, dv)
    check(q, k, v, D, estimator=estimator, causal=causal, stabilize=stabilize, seed=T)


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("causal", [True, False])
def test_accuracy_long_sequence(estimator, causal):
    q, k, v = qkv(4096, 1, 4096, 64, 4, amp=0.3)
    for stabilize in (True, False):
        check(q, k, v, 16, estimator=estimator, causal=causal, stabilize=stabilize, seed=2)


@pytest.mark.parametrize("estimator", ["positive", "hyperbolic"])
@pytest.mark.parametrize("causal", [True, False])
def test_stabilised_beyond_float32_exp(estimator, causal):
    # h = scale·|x|²/2 up to ≈ 285 here: exp(h) is beyond float32 (e^88.7), so the unstabilised float32
    # path refuses; the stabilised one subtracts the log-magnitudes first and stays within bound,
    # with growing keys (new running maxima along the sequence)
    q, k, v = qkv(7, 1, 500, 16, 3, amp=8.0)
    k *= np.linspace(0.5, 1.2, 500, dtype=np.float32)[None, :, None]
    check(q, k, v, 64, estimator=estimator, causal=causal, seed=1)
    with pytest.raises(
        ValueError,
        match=r"attention.random_feature: [qk] has a row whose amplitude .* overflows a float32 .*stabilize=True",
    ):
        rl.attention.random_feature(q, k, v, 64, estimator=estimator, causal=causal, stabilize=False)
    # the float64 path takes it unstabilised
    o64 = rl.attention.random_feature(
        *(x.astype(np.float64) for x in (q, k, v)), 64, estimator=estimator, causal=causal, stabilize=False
    )
    assert np.all(np.isfinite(o64))


@pytest.mark.parametrize("causal", [True, False])
def test_threads_and_paths_bit_identical(causal):
    # batch 1 and 2 with 1..7 threads: every schedule (by unit, by group, in three steps)
    q, k, v = qkv(9, 2, 1500, 6, 5, amp=0.7)
    outs = {}
    for path in PATHS:
        with rl.simd.using(path):
            for B in (1, 2):
                runs = [
                    rl.attention.random_feature(
                        q[:B], k[:B], v[:B], 300, causal=causal, seed=5, nthreads=n, return_parts=True
                    )
                    for n in (1, 2, 3, 5, 7)
                ]
                for r in runs[1:]:
                    for a, b in zip(r, runs[0], strict=True):
                        np.testing.assert_array_equal(a, b)
            outs[path] = runs[0]
    if "avx2" in outs and "avx512" in outs:  # the same float operations per entry
        for a, b in zip(outs["avx512"], outs["avx2"], strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_each_path_within_bound(path, estimator):
    q, k, v = qkv(11, 2, 129, 7, 3)
    with rl.simd.using(path):
        check(q, k, v, 33, estimator=estimator)
        check(q, k, v, 33, estimator=estimator, causal=False, stabilize=False)


def test_same_frequencies_as_float64():
    # one key, one query: the estimate is v itself on both paths, and num/den of one row is
    # φ(q)·φ(k) of the same ω (a different ω would differ at first order, not at float32 rounding)
    q, k, v = qkv(3, 1, 1, 8, 2)
    p32 = rl.attention.random_feature(q, k, v, 64, estimator="positive", seed=9, return_parts=True)
    p64 = rl.attention.random_feature(
        *(x.astype(np.float64) for x in (q, k, v)), 64, estimator="positive", seed=9, return_parts=True
    )
    np.testing.assert_allclose(p32.denominator, p64.denominator, rtol=1e-5)
    other = rl.attention.random_feature(
        *(x.astype(np.float64) for x in (q, k, v)), 64, estimator="positive", seed=10, return_parts=True
    )
    assert abs(other.denominator[0] / p64.denominator[0] - 1) > 1e-3


def test_projection_overflow_named():
    # |ω'·x| beyond float32 (not beyond a double): named, even with stabilize=True
    q, k, v = qkv(1, 1, 4, 4, 2)
    big = q.copy()
    big[0, 2] = 3e38
    with pytest.raises(ValueError, match=r"attention.random_feature: q: a projection .* overflows a float32"):
        rl.attention.random_feature(big, k, v, 16, estimator="positive")
    with pytest.raises(ValueError, match=r"attention.random_feature: k: a projection .* overflows a float32"):
        rl.attention.random_feature(q, big, v, 16, estimator="hyperbolic")


def test_unstabilised_product_overflow_named():
    # each amplitude e^h fits a float32 (h ≈ 67), their products e^(h_q + h_k) do not: the
    # unstabilised trig sums overflow, said so (not a silent NaN); stabilised it is finite
    q, k, v = qkv(0, 1, 20, 16, 3, amp=4.3)
    with pytest.raises(ValueError, match=r"not finite in single precision.*overflowed.*stabilize=True"):
        rl.attention.random_feature(q, k, v, 16, stabilize=False)
    assert np.all(np.isfinite(rl.attention.random_feature(q, k, v, 16)))


def test_value_overflow_named():
    q, k, v = qkv(2, 1, 64, 4, 2)
    v[0, :, 0] = 3e38
    with pytest.raises(ValueError, match=r"attention.random_feature: v: .*overflows a float32"):
        rl.attention.random_feature(q, k, v, 16, estimator="positive")


def test_non_finite_input_named():
    q, k, v = qkv(4, 1, 5, 4, 2)
    for name in ("q", "k", "v"):
        args = {"q": q.copy(), "k": k.copy(), "v": v.copy()}
        args[name][0, 1, 0] = np.nan
        with pytest.raises(ValueError, match=rf"attention.random_feature: {name}"):
            rl.attention.random_feature(args["q"], args["k"], args["v"], 8)
