"""The float32 path of ropelab.attention.softmax: the dtype rule, its accuracy against the float64
path on the same inputs (the first-order bound derived in docs/areas/attention.md, "float32
accuracy"), bit-identical results for every thread count and on both vector paths, and the
bad-input behaviour of the float64 path (non-finite input and overflow named, never a silent NaN).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ropelab as rl

U = 2.0**-24  # unit roundoff of float32
PATHS = [p for p in ("scalar", "avx2", "avx512") if p in rl.simd.available()]


def softmax_bound(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float, bias=None) -> float:
    """max |o32 − o64| ≤ max|v|·((e^{2δ} − 1) + 2γ_n + u), n = S + ⌈S/256⌉ + 1 roundings of the
    running sums, δ = (d + 6)uΛ + 2u(1 + ⌈S/256⌉) the largest perturbation of a log-weight,
    Λ = max scale·Σ_p |q_ip k_jp| + |b_ij| (over every sequence, finite biases)."""
    q64, k64 = q.astype(np.float64), k.astype(np.float64)
    a = scale * np.abs(q64) @ np.swapaxes(np.abs(k64), -1, -2)
    if bias is not None:
        b = np.abs(np.asarray(bias, dtype=np.float64))
        a = a + np.where(np.isfinite(b), b, 0.0)
    lam = float(np.max(a))
    d, S = q.shape[-1], k.shape[-2]
    blocks = math.ceil(S / 256)
    n = S + blocks + 1
    delta = (d + 6) * U * lam + 2 * U * (1 + blocks)
    gamma = n * U / (1 - n * U)
    return float(np.max(np.abs(v.astype(np.float64)))) * (math.expm1(2 * delta) + 2 * gamma + U)


def check(q, k, v, *, causal=True, scale=None, bias=None, nthreads=None):
    o32 = rl.attention.softmax(q, k, v, causal=causal, scale=scale, bias=bias, nthreads=nthreads)
    assert o32.dtype == np.float32
    o64 = rl.attention.softmax(
        q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), causal=causal, scale=scale, bias=bias
    )
    s = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    err = float(np.max(np.abs(o32 - o64)))
    bound = softmax_bound(q, k, v, s, bias)
    assert err <= bound, (err, bound)
    return o32, err, bound


def test_dtype_rule():
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((3, 2, 9, 4))
    f = np.float32
    assert rl.attention.softmax(q.astype(f), k.astype(f), v.astype(f)).dtype == np.float32
    # anything but three float32 arrays: float64
    assert rl.attention.softmax(q.astype(f), k.astype(f), v).dtype == np.float64
    assert rl.attention.softmax(q, k, v).dtype == np.float64
    qi, ki, vi = (np.round(x).astype(np.int32) for x in (q, k, v))
    assert rl.attention.softmax(qi, ki, vi).dtype == np.float64
    assert rl.attention.softmax(q.astype(f).tolist(), k.astype(f), v.astype(f)).dtype == np.float64


@pytest.mark.parametrize(
    "B, T, S, d, dv, causal",
    [
        (1, 1, 1, 1, 1, True),
        (2, 37, 37, 8, 5, True),
        (3, 70, 600, 13, 17, False),
        (2, 300, 300, 16, 9, True),
        (1, 1000, 1000, 64, 64, True),
        (1, 4096, 4096, 64, 64, True),
    ],
)
def test_accuracy_against_float64(B, T, S, d, dv, causal):
    rng = np.random.default_rng(T + d)
    q = rng.standard_normal((B, T, d)).astype(np.float32)
    k = rng.standard_normal((B, S, d)).astype(np.float32)
    v = rng.standard_normal((B, S, dv)).astype(np.float32)
    _, err, bound = check(q, k, v, causal=causal)
    # typical rounding errors stay far below the worst-case bound: a few hundred ulps at most
    assert err <= 256 * np.finfo(np.float32).eps * float(np.max(np.abs(v)))


@pytest.mark.parametrize("T", [300, 2048])
def test_large_logits_and_growing_maximum(T):
    """Logits of hundreds that grow along the keys: the running maximum changes in every key block
    (each rescaling rounds once more), and exp of the unshifted logits would overflow float32."""
    rng = np.random.default_rng(T)
    d = 32
    q = rng.standard_normal((T, d)).astype(np.float32)
    q[:, 0] = 30.0
    k = (0.5 * rng.standard_normal((T, d))).astype(np.float32)
    k[:, 0] = np.linspace(0.0, 4.0, T, dtype=np.float32)  # q·k/√d grows from ~0 to ~21·... per row
    v = rng.standard_normal((T, 8)).astype(np.float32)
    o32, err, bound = check(q, k, v, scale=1.0)
    assert float(np.max(np.abs(q.astype(np.float64) @ k.T.astype(np.float64)))) > 100  # large logits
    assert np.all(np.isfinite(o32))


def test_bias_float32():
    rng = np.random.default_rng(4)
    H, T, d = 3, 200, 16
    q, k, v = rng.standard_normal((3, H, T, d)).astype(np.float32)
    slopes = 2.0 ** -np.arange(1, H + 1)
    i = np.arange(T)
    bias = -slopes[:, None, None] * (i[:, None] - i[None, :])  # ALiBi, float64
    bias[:, :, :3] = -np.inf
    bias[:, :3, :3] = 0.0
    check(q, k, v, bias=bias)


@pytest.mark.parametrize("causal", [True, False])
def test_threads_and_paths_bit_identical(causal):
    rng = np.random.default_rng(9)
    q, k, v = rng.standard_normal((3, 3, 333, 24)).astype(np.float32)
    outs = {}
    for path in PATHS:
        with rl.simd.using(path):
            runs = [rl.attention.softmax(q, k, v, causal=causal, nthreads=n) for n in (1, 2, 3, 5)]
        for r in runs[1:]:
            np.testing.assert_array_equal(r, runs[0])
        outs[path] = runs[0]
        check(q, k, v, causal=causal)
    if "avx2" in outs and "avx512" in outs:  # the same float operations per lane
        np.testing.assert_array_equal(outs["avx512"], outs["avx2"])


@pytest.mark.parametrize("path", PATHS)
def test_each_path_within_bound(path):
    rng = np.random.default_rng(11)
    q, k, v = rng.standard_normal((3, 2, 129, 7)).astype(np.float32)
    with rl.simd.using(path):
        check(q, k, v)
        check(q, k, v, causal=False)


def test_non_finite_input_named():
    q, k, v = np.ones((3, 4, 2), dtype=np.float32)
    for name in ("q", "k", "v"):
        args = {"q": q.copy(), "k": k.copy(), "v": v.copy()}
        args[name][1, 0] = np.nan
        with pytest.raises(ValueError, match=rf"attention\.softmax: {name} must be finite"):
            rl.attention.softmax(args["q"], args["k"], args["v"])


def test_logit_overflow_named():
    """q·k beyond float32 (finite in float64): named, with the precision, never a NaN."""
    q = np.full((4, 2), 1e20, dtype=np.float32)
    k = np.full((4, 2), 1e20, dtype=np.float32)
    v = np.ones((4, 2), dtype=np.float32)
    with pytest.raises(ValueError, match=r"attention\.softmax: a logit .* overflows a float32"):
        rl.attention.softmax(q, k, v)
    out = rl.attention.softmax(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64))
    assert np.all(np.isfinite(out))  # the float64 path has the room


def test_output_overflow_named():
    """Values near the float32 maximum whose weighted sum overflows: named, not inf or NaN."""
    q = np.zeros((2, 2), dtype=np.float32)
    v = np.full((2, 1), 3e38, dtype=np.float32)
    with pytest.raises(ValueError, match=r"attention\.softmax: the output .* not finite in single precision"):
        rl.attention.softmax(q, q, v)


def test_fully_masked_row_named():
    q = np.ones((1, 3, 2), dtype=np.float32)
    bias = np.zeros((3, 3))
    bias[1] = -np.inf
    with pytest.raises(ValueError, match=r"attention\.softmax: bias every key of query row 1"):
        rl.attention.softmax(q, q, q, bias=bias)
