"""The delta-rule core's two pass kernels (delta_kernels.hpp: the scalar loop and the AVX2 one,
selected by the active SIMD path) perform the same IEEE operations in the same order: without
rotation the outputs are bit-identical; with Selective RoPE angles they differ only through the
cos/sin of the angles (libm on the scalar path, SLEEF u10 on AVX2: within 1 ULP)."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import recurrence, simd

pytestmark = pytest.mark.skipif("avx2" not in simd.available(), reason="the CPU has no AVX2")


def _inputs(seed: int, T: int, n_h: int, d: int, dv: int, gated: bool, rotated: bool):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((T, d))
    k = rng.standard_normal((T, n_h, d))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal((T, n_h, dv))
    beta = rng.uniform(0, 2, (T, n_h))
    gates = rng.uniform(0.5, 1, T) if gated else None
    angles = np.cumsum(rng.uniform(-1, 1, (T, d // 2)), axis=0) if rotated else None
    return q, k, v, beta, gates, angles


@pytest.mark.parametrize("dv", [1, 7, 8, 9, 24])
@pytest.mark.parametrize("n_h", [1, 3])
@pytest.mark.parametrize("gated", [False, True])
def test_paths_bit_identical_without_rotation(dv: int, n_h: int, gated: bool) -> None:
    q, k, v, beta, gates, _ = _inputs(dv + 10 * n_h, 50, n_h, 6, dv, gated, False)
    out = {}
    for path in ("scalar", "avx2"):
        with simd.using(path):
            out[path] = recurrence.delta_product(q, k, v, beta, gates=gates)
    assert np.array_equal(out["scalar"], out["avx2"])


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("n_h", [1, 2])
def test_paths_agree_with_rotation(layout: str, n_h: int) -> None:
    q, k, v, beta, gates, angles = _inputs(3, 300, n_h, 8, 12, True, True)
    out = {}
    for path in ("scalar", "avx2"):
        with simd.using(path):
            out[path] = recurrence.delta_product(q, k, v, beta, angles, gates, layout=layout)  # type: ignore[arg-type]
    scale = np.max(np.abs(out["scalar"]))
    assert np.max(np.abs(out["avx2"] - out["scalar"])) < 1e-13 * scale
    assert not np.array_equal(out["scalar"], 0 * out["scalar"])


def test_batch_over_threads_matches_one_by_one() -> None:
    rng = np.random.default_rng(4)
    B, T, d, dv = 5, 40, 6, 10
    q, k = rng.standard_normal((2, B, T, d))
    v = rng.standard_normal((B, T, dv))
    beta, gates = rng.uniform(0, 2, (B, T)), rng.uniform(0.5, 1, (B, T))
    angles = np.cumsum(rng.uniform(-1, 1, (B, T, d // 2)), axis=1)
    batch = recurrence.delta_rule(q, k, v, beta, angles, gates, nthreads=2)
    for b in range(B):
        assert np.array_equal(
            batch[b], recurrence.delta_rule(q[b], k[b], v[b], beta[b], angles[b], gates[b], nthreads=1)
        )
