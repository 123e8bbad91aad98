"""ropelab.attention on each SIMD path: the AVX2 + FMA matrix products and sincos agree with the
scalar (Eigen) path to rounding, on sizes that exercise every tail of the kernels, and every path
is bit-identical across thread counts."""

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
