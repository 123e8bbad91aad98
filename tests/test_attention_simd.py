"""ropelab.attention on each SIMD path: the AVX2 + FMA and AVX-512 matrix products and sincos agree
with the scalar (Eigen) path to rounding and with each other bit for bit, on sizes that exercise
every tail of the kernels, and every path is bit-identical across thread counts."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl

PATHS = [p for p in ("scalar", "avx2", "avx512") if p in rl.simd.available()]


def naive_softmax(q, k, v, scale):
    s = scale * q @ k.T
    s[np.triu_indices(len(q), 1)] = -np.inf
    w = np.exp(s - s.max(1, keepdims=True))
    return (w / w.sum(1, keepdims=True)) @ v


@pytest.mark.parametrize("T, d, dv, D", [(131, 7, 5, 13), (64, 64, 64, 256), (300, 16, 9, 33), (1, 3, 1, 1)])
@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
def test_paths_agree_and_threads_reproduce(T, d, dv, D, estimator):
    rng = np.random.default_rng(T + d)
    q, k = 0.4 * rng.standard_normal((2, 2, T, d))
    v = rng.standard_normal((2, T, dv))
    outs = {}
    for path in PATHS:
        with rl.simd.using(path):
            runs = [rl.attention.random_feature(q, k, v, D, estimator=estimator, seed=3, nthreads=n) for n in (1, 2, 3)]
            for r in runs[1:]:
                np.testing.assert_array_equal(r, runs[0])
            outs[path] = runs[0]
            s = rl.attention.softmax(q, k, v)
            np.testing.assert_allclose(s[1], naive_softmax(q[1], k[1], v[1], 1 / np.sqrt(d)), rtol=1e-12, atol=1e-12)
    for path in PATHS[1:]:
        np.testing.assert_allclose(outs[path], outs["scalar"], rtol=1e-10, atol=1e-10 * np.max(np.abs(outs["scalar"])))
    if "avx2" in outs and "avx512" in outs:  # the AVX-512 and AVX2 products give the same bits
        np.testing.assert_array_equal(outs["avx512"], outs["avx2"])


@pytest.mark.parametrize("path", PATHS)
def test_non_causal_paths(path):
    rng = np.random.default_rng(5)
    q, k = 0.3 * rng.standard_normal((2, 70, 11))
    v = rng.standard_normal((45, 3))
    with rl.simd.using(path):
        out = rl.attention.random_feature(q, k[:45], v, 20, causal=False, seed=1)
        ex = rl.attention.softmax(q, k[:45], v, causal=False)
    with rl.simd.using("scalar"):
        ref = rl.attention.random_feature(q, k[:45], v, 20, causal=False, seed=1)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)
    assert ex.shape == (70, 3)


@pytest.mark.parametrize("T, S, d, dv", [(131, 131, 7, 5), (300, 300, 64, 64), (70, 600, 13, 17), (1, 1, 3, 1)])
@pytest.mark.parametrize("causal", [True, False])
def test_softmax_paths(T, S, d, dv, causal):
    """Exact softmax on every path, with a bias masking some keys: the vector paths (queries as
    lanes, SLEEF exp) give the same bits as each other and for every thread count, and agree with
    the scalar path (Eigen, std::exp) and a NumPy reference to rounding."""
    if causal and T != S:
        S = T
    rng = np.random.default_rng(T + S + d)
    q = rng.standard_normal((2, T, d))
    k = rng.standard_normal((2, S, d))
    v = rng.standard_normal((2, S, dv))
    bias = 0.5 * rng.standard_normal((T, S))
    bias[:, 1::3] = -np.inf  # key 0 always visible: no row fully masked
    outs = {}
    for path in PATHS:
        with rl.simd.using(path):
            runs = [rl.attention.softmax(q, k, v, causal=causal, bias=bias, nthreads=n) for n in (1, 2, 3)]
        for r in runs[1:]:
            np.testing.assert_array_equal(r, runs[0])
        outs[path] = runs[0]
    s = q @ k.transpose(0, 2, 1) / np.sqrt(d) + bias
    if causal:
        s = np.where(np.tril(np.ones((T, S), bool)), s, -np.inf)
    w = np.exp(s - s.max(-1, keepdims=True))
    ref = (w / w.sum(-1, keepdims=True)) @ v
    for path in PATHS:
        np.testing.assert_allclose(outs[path], ref, rtol=1e-12, atol=1e-12)
    if "avx2" in outs and "avx512" in outs:
        np.testing.assert_array_equal(outs["avx512"], outs["avx2"])


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e160), (np.float32, 1e20)])
@pytest.mark.parametrize("causal", [True, False])
def test_logit_overflow_located_on_every_path(dtype, big, causal):
    """One overflowing logit inside a later key block (the vector kernels fuse the finiteness
    check into their stores and locate the bad logit only when there is one): every path and
    thread count names the same sequence and query row."""
    T, d = 300, 16
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, T, d)).astype(dtype)
    k = rng.standard_normal((2, T, d)).astype(dtype)
    v = rng.standard_normal((2, T, d)).astype(dtype)
    q[1, 277] = big / np.sqrt(d)
    k[1, 263] = big / np.sqrt(d)  # q_277·k_263 ~ big² * sqrt(d): overflows; the others stay finite
    precision = "float32" if dtype == np.float32 else "double"
    for path in PATHS:
        with rl.simd.using(path):
            for n in (1, 2):
                with pytest.raises(ValueError, match=rf"query row 277 of sequence 1 overflows a {precision}"):
                    rl.attention.softmax(q, k, v, causal=causal, nthreads=n)


@pytest.mark.parametrize("dtype, big", [(np.float64, 1e160), (np.float32, 1e20)])
def test_masked_logit_overflow_is_not_an_error(dtype, big):
    """Logits that overflow only where the causal mask hides them (the queries before a key) are not
    used: no error on any path or thread count, the rows before the key equal bit for bit those
    computed with that key set to zero, and the rows from the key on are finite. (Whether a vector
    kernel computes a masked logit at all depends on its tile of lanes, so the rule cannot.)"""
    T, d = 300, 16
    rng = np.random.default_rng(11)
    q = rng.standard_normal((2, T, d)).astype(dtype)
    k = rng.standard_normal((2, T, d)).astype(dtype)
    v = rng.standard_normal((2, T, d)).astype(dtype)
    for key in (5, 263):  # in the first and in the second block of 256 keys
        qb, kb = q.copy(), k.copy()
        qb[:, :key] = big / np.sqrt(d)  # q_i·k_key = big² for i < key: beyond the dtype, masked
        qb[:, key] = 0  # the key's own query: logit 0 with every key (uniform weights)
        kb[:, key] = big / np.sqrt(d)
        zeroed = kb.copy()
        zeroed[:, key] = 0
        for path in PATHS:
            with rl.simd.using(path):
                ref = rl.attention.softmax(qb, zeroed, v, causal=True, nthreads=1)
                for n in (1, 3):
                    out = rl.attention.softmax(qb, kb, v, causal=True, nthreads=n)
                    np.testing.assert_array_equal(out[:, :key], ref[:, :key])
                    assert np.isfinite(out).all()
                    np.testing.assert_allclose(out[:, key], v[:, : key + 1].mean(axis=1), rtol=1e-5, atol=1e-5)
