"""ropelab.recurrence: Eq. (3), Eq. (11), Eq. (13), Eq. (9), gated Selective RoPE, ALiBi / FoX /
cosFormer, softmax with rotary angles (MATH.md §4).

Every identity is checked on random inputs with fixed seeds, several shapes and both layouts.
Tolerances are float64 rounding (EPS) times the number of operations that feed one output
(≈ T·d multiply-adds, T successive rotations), times the magnitude of the output.
"""

from __future__ import annotations

import doctest
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from ropelab import recurrence, rotary, transition

EPS = np.finfo(np.float64).eps
LAYOUTS = ["interleaved", "half"]
SHAPES = [(1, 2, 1), (7, 4, 3), (33, 8, 5), (64, 16, 4)]  # (T, d, dv)


def qkv(seed: int, T: int, d: int, dv: int, batch: tuple[int, ...] = ()) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(*batch, T, d)), rng.normal(size=(*batch, T, d)), rng.normal(size=(*batch, T, dv))


def tol(T: int, d: int, scale: float) -> float:
    """Rounding budget of an output built from ≤ T·d products of O(1) numbers through ≤ T
    transitions: 64·EPS·T·d relative to its magnitude."""
    return 64 * EPS * T * d * scale


def np_causal_linear(q: np.ndarray, k: np.ndarray, v: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Independent NumPy route: masked (T×T) score matrix times v."""
    s = q @ np.swapaxes(k, -1, -2)
    if weights is not None:
        s = s * weights
    return np.tril(s) @ v


def test_doctests() -> None:
    res = doctest.testmod(recurrence, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 10 and res.failed == 0


# ------------------------------------------------------------------ Eq. (3) and Eq. (11)
@pytest.mark.parametrize(("T", "d", "dv"), SHAPES)
def test_eq3_recurrent_equals_unrolled_tau_plus_1(T: int, d: int, dv: int) -> None:
    q, k, v = qkv(T, T, d, dv)
    rng = np.random.default_rng(100 + T)
    # Random, roughly norm-1 transitions: products stay O(1) over T steps.
    A = np.linalg.qr(rng.normal(size=(T, d, d)))[0] * rng.uniform(0.9, 1.0, size=(T, 1, 1))
    rec = recurrence.linear_attention(q, k, v, A, mode="recurrent")
    unr = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau+1")
    assert_allclose(rec, unr, rtol=0, atol=tol(T, d, np.abs(unr).max()))
    # With A = I both equal the masked-matmul form of causal linear attention.
    plain = recurrence.linear_attention(q, k, v)
    ref = np_causal_linear(q, k, v)
    assert_allclose(plain, ref, rtol=0, atol=tol(T, d, np.abs(ref).max()))
    eye = np.broadcast_to(np.eye(d), (T, d, d))
    assert_allclose(
        recurrence.linear_attention(q, k, v, eye, mode="unrolled"), ref, rtol=0, atol=tol(T, d, np.abs(ref).max())
    )


def test_eq11_product_started_at_tau_fails_unless_identity() -> None:
    T, d, dv = 12, 4, 3
    q, k, v = qkv(1, T, d, dv)
    rng = np.random.default_rng(2)
    # All A_t = I except at step s: the τ-started product differs exactly in the terms with τ = s.
    s = 5
    A = np.broadcast_to(np.eye(d), (T, d, d)).copy()
    A[s] = np.linalg.qr(rng.normal(size=(d, d)))[0] * 0.5
    rec = recurrence.linear_attention(q, k, v, A)
    at_tau = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau")
    at_tau1 = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau+1")
    budget = tol(T, d, np.abs(rec).max())
    assert_allclose(at_tau1, rec, rtol=0, atol=budget)
    assert_allclose(at_tau[:s], rec[:s], rtol=0, atol=budget)  # no τ = s term yet: agree
    assert np.all(np.abs(at_tau[s:] - rec[s:]).max(axis=-1) > 1e3 * budget)  # differ from t = s on
    # With every A_t = I the two product conventions coincide.
    eye = np.broadcast_to(np.eye(d), (T, d, d))
    assert_allclose(
        recurrence.linear_attention(q, k, v, eye, mode="unrolled", product_start="tau"),
        recurrence.linear_attention(q, k, v, eye, mode="unrolled"),
        rtol=0,
        atol=budget,
    )
    # Generic transitions: the τ form is wrong everywhere.
    A = np.linalg.qr(rng.normal(size=(T, d, d)))[0] * 0.95
    rec = recurrence.linear_attention(q, k, v, A)
    at_tau = recurrence.linear_attention(q, k, v, A, mode="unrolled", product_start="tau")
    assert np.abs(at_tau - rec).max() > 0.1 * np.abs(rec).max()


def test_linear_attention_batch_and_broadcast_transitions() -> None:
    T, d, dv = 9, 4, 2
    q, k, v = qkv(3, T, d, dv, batch=(2, 3))
    A = np.linalg.qr(np.random.default_rng(4).normal(size=(T, d, d)))[0]
    out = recurrence.linear_attention(q, k, v, A)
    assert out.shape == (2, 3, T, dv)
    for idx in np.ndindex(2, 3):
        assert_array_equal(out[idx], recurrence.linear_attention(q[idx], k[idx], v[idx], A))
    assert_array_equal(out, recurrence.linear_attention(q, k, v, A, nthreads=1))


# ------------------------------------------------------------------ Selective RoPE
def gates_for(kind: str, rng: np.random.Generator, T: int, d: int, batch: tuple[int, ...] = ()) -> np.ndarray | None:
    width = {"none": 0, "scalar": 1, "pair": d // 2, "channel": d}[kind]
    return None if width == 0 else rng.uniform(0.6, 1.0, size=(*batch, T, width))


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("gate_kind", ["none", "scalar", "pair", "channel"])
@pytest.mark.parametrize(("T", "d", "dv"), SHAPES)
def test_selective_prerotated_equals_recurrent_and_eq3(layout: str, gate_kind: str, T: int, d: int, dv: int) -> None:
    """Three routes: pre-rotated (Eq. 13), recurrent with A^eff, and Eq. (3) unrolled with the
    dense A^eff_t = C_{t−1}ᵀ Λ_t C_t from transition.effective_sequence."""
    rng = np.random.default_rng(T * 7 + d)
    q, k, v = qkv(T + d, T, d, dv)
    angles = rotary.cumulative_angles(rng.normal(size=(T, d // 2)), rng.uniform(0.1, 3.0, size=d // 2))
    g = gates_for(gate_kind, rng, T, d)
    pre = recurrence.selective_rope_attention(q, k, v, angles, g, mode="prerotated", layout=layout)
    rec = recurrence.selective_rope_attention(q, k, v, angles, g, mode="recurrent", layout=layout)
    A = transition.effective_sequence(angles, g, layout)
    unr = recurrence.linear_attention(q, k, v, A, mode="unrolled")
    budget = tol(T, d, np.abs(pre).max())
    assert_allclose(rec, pre, rtol=0, atol=budget)
    assert_allclose(unr, pre, rtol=0, atol=budget)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eq13_prerotation_matches_numpy_rotated_linear_attention(layout: str) -> None:
    T, d, dv = 40, 8, 3
    q, k, v = qkv(5, T, d, dv)
    angles = np.cumsum(np.random.default_rng(6).normal(size=(T, d // 2)), axis=0)
    ref = np_causal_linear(rotary.rotate(q, angles, layout), rotary.rotate(k, angles, layout), v)
    out = recurrence.selective_rope_attention(q, k, v, angles, layout=layout)
    assert_allclose(out, ref, rtol=0, atol=tol(T, d, np.abs(ref).max()))


def test_selective_gated_matches_numpy_decay_weights() -> None:
    """Per-channel gates: o_t = Σ_τ Σ_c q'_tc k'_τc (Π_{κ=τ+1}^t λ_κc) v_τ (explicit products)."""
    T, d, dv = 15, 4, 2
    rng = np.random.default_rng(7)
    q, k, v = qkv(8, T, d, dv)
    angles = np.cumsum(rng.normal(size=(T, d // 2)), axis=0)
    g = rng.uniform(0.5, 1.0, size=(T, d))
    qr, kr = rotary.rotate(q, angles), rotary.rotate(k, angles)
    ref = np.zeros((T, dv))
    for t in range(T):
        for tau in range(t + 1):
            decay = np.prod(g[tau + 1 : t + 1], axis=0)
            ref[t] += np.sum(qr[t] * kr[tau] * decay) * v[tau]
    out = recurrence.selective_rope_attention(q, k, v, angles, g)
    assert_allclose(out, ref, rtol=0, atol=tol(T, d, np.abs(ref).max()))


def test_selective_batch_dims_and_broadcast() -> None:
    T, d, dv = 10, 6, 2
    rng = np.random.default_rng(9)
    q, k, v = qkv(10, T, d, dv, batch=(2, 3))
    psi_shared = np.cumsum(rng.normal(size=(T, d // 2)), axis=0)
    psi_head = np.cumsum(rng.normal(size=(3, T, d // 2)), axis=1)
    g = rng.uniform(0.7, 1.0, size=(2, 3, T, d))
    for angles in (psi_shared, psi_head):
        for mode in ("prerotated", "recurrent"):
            out = recurrence.selective_rope_attention(q, k, v, angles, g, mode=mode)
            assert out.shape == (2, 3, T, dv)
            for b, h in np.ndindex(2, 3):
                p = angles if angles.ndim == 2 else angles[h]
                assert_array_equal(
                    out[b, h], recurrence.selective_rope_attention(q[b, h], k[b, h], v[b, h], p, g[b, h], mode=mode)
                )
    # Thread count does not change a bit.
    a = recurrence.selective_rope_attention(q, k, v, psi_head, g, nthreads=1)
    assert_array_equal(a, recurrence.selective_rope_attention(q, k, v, psi_head, g, nthreads=2))


# ------------------------------------------------------------------ Eq. (9): RFF recurrence
def rff_inputs(seed: int, T: int = 20, d: int = 3, dv: int = 2, D: int = 6) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    q = 0.4 * rng.normal(size=(T, d))
    k = 0.4 * rng.normal(size=(T, d))
    v = rng.normal(size=(T, dv))
    return q, k, v, rng.normal(size=(D, d))


def test_eq9_recurrence_with_amplitude_equals_direct_sum() -> None:
    for seed, (T, d, dv, D) in enumerate([(1, 2, 1, 1), (20, 3, 2, 6), (50, 8, 4, 16)]):
        q, k, v, w = rff_inputs(seed, T, d, dv, D)
        direct = recurrence.rff_attention(q, k, v, w, mode="direct")
        rec = recurrence.rff_attention(q, k, v, w, mode="recurrent", amplitude=True)
        assert direct.shape == rec.shape == (T, D, dv) and direct.dtype == np.complex128
        # Independent NumPy evaluation of the direct sum.
        nq, nk = (q**2).sum(1), (k**2).sum(1)
        W = np.exp((nq[:, None] + nk[None, :]) / 2)[:, :, None] * np.exp(
            1j * ((q @ w.T)[:, None, :] - (k @ w.T)[None, :, :])
        )
        ref = np.einsum("tsj,ts,sr->tjr", W, np.tril(np.ones((T, T))), v)
        scale = np.abs(ref).max()
        assert_allclose(direct, ref, rtol=0, atol=tol(T, d, scale))
        # The recurrence multiplies T carry factors: rounding grows like EPS·T per output.
        assert_allclose(rec, direct, rtol=0, atol=tol(T, d, scale))


def test_eq9_without_amplitude_fails_iff_norm_varies() -> None:
    q, k, v, w = rff_inputs(11, T=30)
    direct = recurrence.rff_attention(q, k, v, w)
    bare = recurrence.rff_attention(q, k, v, w, mode="recurrent", amplitude=False)
    budget = tol(30, 3, np.abs(direct).max())
    assert np.abs(bare - direct).max() > 1e6 * budget  # ‖q_t‖ varies: Eq. (9) as printed is wrong
    assert_allclose(bare[0], direct[0], rtol=0, atol=budget)  # t = 0 has no carried term
    # Constant ‖q_t‖: the pure-rotation recurrence is exact.
    qn = 0.7 * q / np.linalg.norm(q, axis=1, keepdims=True)
    direct = recurrence.rff_attention(qn, k, v, w)
    bare = recurrence.rff_attention(qn, k, v, w, mode="recurrent", amplitude=False)
    assert_allclose(bare, direct, rtol=0, atol=tol(30, 3, np.abs(direct).max()))


def test_rff_telescoping() -> None:
    """Π_{κ=τ+1}^t e^{iω·(q_κ−q_{κ−1})} = e^{iω·(q_t−q_τ)}: only the endpoints matter."""
    rng = np.random.default_rng(12)
    T, d, D = 200, 5, 7
    q = rng.normal(size=(T, d))
    w = rng.normal(size=(D, d))
    for tau in (0, 17, T - 1):
        prod = recurrence.rff_increment_product(q, w, tau)
        want = np.exp(1j * (q - q[tau]) @ w.T)
        want[: tau + 1] = 1.0
        # T unit-modulus products, each phase computed with error ~EPS·|ω·q|.
        phase_scale = 1 + np.abs(q @ w.T).max()
        assert_allclose(prod, want, rtol=0, atol=16 * EPS * T * phase_scale)
    # Path independence: a different path with the same endpoints gives the same product.
    q2 = q.copy()
    q2[1:-1] += rng.normal(size=(T - 2, d))
    p1 = recurrence.rff_increment_product(q, w, 0)[-1]
    p2 = recurrence.rff_increment_product(q2, w, 0)[-1]
    assert_allclose(p1, p2, rtol=0, atol=64 * EPS * T * (1 + np.abs(q2 @ w.T).max()))


def test_rff_increment_product_batch() -> None:
    rng = np.random.default_rng(14)
    q = rng.normal(size=(2, 9, 3))
    w = rng.normal(size=(4, 3))
    p = recurrence.rff_increment_product(q, w, 1)
    assert p.shape == (2, 9, 4)
    assert_array_equal(p[1], recurrence.rff_increment_product(q[1], w, 1))


def test_rff_batch() -> None:
    rng = np.random.default_rng(13)
    q, k = 0.3 * rng.normal(size=(2, 2, 8, 3))
    v = rng.normal(size=(2, 8, 2))
    w = rng.normal(size=(4, 3))
    out = recurrence.rff_attention(q, k, v, w, mode="recurrent")
    assert out.shape == (2, 8, 4, 2)
    assert_array_equal(out[1], recurrence.rff_attention(q[1], k[1], v[1], w, mode="recurrent"))


# ------------------------------------------------------------------ ALiBi, FoX, cosFormer
@pytest.mark.parametrize(("T", "d", "dv"), SHAPES)
def test_alibi_fox_cosformer_recurrent_equal_direct(T: int, d: int, dv: int) -> None:
    q, k, v = qkv(20 + T, T, d, dv)
    rng = np.random.default_rng(21 + T)
    t = np.arange(T)
    lag = t[:, None] - t[None, :]
    f = rng.uniform(0.3, 1.0, size=T)
    cases = [
        (lambda m: recurrence.alibi_attention(q, k, v, 0.25, m), np.exp(-0.25 * lag)),
        (
            lambda m: recurrence.fox_attention(q, k, v, f, m),
            np.array([[np.prod(f[s + 1 : r + 1]) for s in t] for r in t]),
        ),
        (lambda m: recurrence.cosformer_attention(q, k, v, M=T, mode=m), np.cos(np.pi * lag / (2 * T))),
    ]
    for fn, weights in cases:
        ref = np_causal_linear(q, k, v, weights)
        budget = tol(T, d, max(np.abs(ref).max(), 1.0))
        assert_allclose(fn("direct"), ref, rtol=0, atol=budget)
        assert_allclose(fn("recurrent"), ref, rtol=0, atol=budget)


def test_alibi_and_fox_are_decayed_linear_attention() -> None:
    """ALiBi's bias ≡ the transition e^{−m} I; FoX ≡ the transitions f_t I (Eq. 3)."""
    T, d, dv = 25, 4, 3
    q, k, v = qkv(30, T, d, dv)
    f = np.random.default_rng(31).uniform(0.5, 1.0, size=T)
    eye = np.eye(d)
    alibi = recurrence.alibi_attention(q, k, v, 0.1)
    assert_allclose(
        alibi,
        recurrence.linear_attention(q, k, v, np.broadcast_to(np.exp(-0.1) * eye, (T, d, d))),
        rtol=0,
        atol=tol(T, d, np.abs(alibi).max()),
    )
    fox = recurrence.fox_attention(q, k, v, f)
    assert_allclose(
        fox, recurrence.linear_attention(q, k, v, f[:, None, None] * eye), rtol=0, atol=tol(T, d, np.abs(fox).max())
    )


def test_decayed_batch_forget_broadcast() -> None:
    T = 6
    q, k, v = qkv(32, T, 4, 2, batch=(3,))
    f = np.random.default_rng(33).uniform(size=T)
    out = recurrence.fox_attention(q, k, v, f, "recurrent")
    assert out.shape == (3, T, 2)
    assert_array_equal(out[2], recurrence.fox_attention(q[2], k[2], v[2], f, "recurrent"))


# ------------------------------------------------------------------ softmax reference
def np_softmax_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool = True) -> np.ndarray:
    s = q @ k.T / np.sqrt(q.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones_like(s, dtype=bool)), s, -np.inf)
    s = np.exp(s - s.max(axis=-1, keepdims=True))
    return (s / s.sum(axis=-1, keepdims=True)) @ v


@pytest.mark.parametrize("layout", LAYOUTS)
def test_softmax_with_rope_and_selective_rope(layout: str) -> None:
    T, d, dv = 30, 8, 3
    q, k, v = qkv(40, T, d, dv)
    budget = tol(T, d, np.abs(v).max())
    for causal in (True, False):
        assert_allclose(
            recurrence.softmax_attention(q, k, v, causal=causal),
            np_softmax_attention(q, k, v, causal),
            rtol=0,
            atol=budget,
        )
    rope = rotary.rope_angles(np.arange(T), d)
    out = recurrence.softmax_attention(q, k, v, rope, layout=layout)
    ref = np_softmax_attention(rotary.rotate(q, rope, layout), rotary.rotate(k, rope, layout), v)
    assert_allclose(out, ref, rtol=0, atol=budget)
    # RoPE is relative: shifting every position by 1000 leaves the output unchanged up to the
    # rounding of angles of size ~1000 (EPS·1000 per logit).
    shifted = recurrence.softmax_attention(q, k, v, rotary.rope_angles(np.arange(T) + 1000.0, d), layout=layout)
    assert_allclose(shifted, out, rtol=0, atol=1e4 * EPS * 1000 * np.abs(v).max())
    # Selective RoPE angles.
    angles = rotary.cumulative_angles(np.random.default_rng(41).normal(size=(T, d // 2)))
    ref = np_softmax_attention(rotary.rotate(q, angles, layout), rotary.rotate(k, angles, layout), v)
    assert_allclose(recurrence.softmax_attention(q, k, v, angles, layout=layout), ref, rtol=0, atol=budget)


def test_softmax_large_logits_do_not_overflow() -> None:
    q, k, v = qkv(42, 5, 4, 2)
    out = recurrence.softmax_attention(300 * q, 300 * k, v)
    assert np.all(np.isfinite(out))


# ------------------------------------------------------------------ bad input
Q, K, V = qkv(0, 6, 4, 2)
PSI = np.zeros((6, 2))


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (
            lambda: recurrence.linear_attention(Q, K[:5], V),
            ValueError,
            r"linear_attention: q and k must have the same shape.*\(6, 4\).*\(5, 4\)",
        ),
        (
            lambda: recurrence.linear_attention(Q, K, V[:5]),
            ValueError,
            r"v must have the leading dimensions.*v\.shape=\(5, 2\)",
        ),
        (
            lambda: recurrence.linear_attention(Q, K, V, np.ones((6, 3, 3))),
            ValueError,
            r"transitions must have shape \(\.\.\., T, d, d\).*\(6, 3, 3\)",
        ),
        (lambda: recurrence.linear_attention(Q, K, V, mode="scan"), ValueError, r"linear_attention: mode.*'scan'"),
        (lambda: recurrence.linear_attention(Q, K, V, product_start="tau-1"), ValueError, r"product_start.*'tau-1'"),
        (
            lambda: recurrence.linear_attention(Q, K, V, product_start="tau"),
            ValueError,
            r"product_start only applies to mode='unrolled'.*'tau'",
        ),
        (lambda: recurrence.linear_attention(Q[0], K[0], V[0]), ValueError, r"q must have shape \(\.\.\., T, d\)"),
        (
            lambda: recurrence.selective_rope_attention(Q[:, :3], K[:, :3], V, PSI[:, :1]),
            ValueError,
            r"selective_rope_attention: q .*even.*d = 3",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI[:5]),
            ValueError,
            r"angles must have shape \(\.\.\., T, d/2\) with T = 6.*\(5, 2\)",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, np.zeros((6, 3))),
            ValueError,
            r"angles must have shape.*\(6, 3\)",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.ones((6, 3))),
            ValueError,
            r"gates must have shape.*\(6, 3\)",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.ones((5, 4))),
            ValueError,
            r"gates must have shape.*T = 6.*\(5, 4\)",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.ones(6)),
            ValueError,
            r"gates must have shape.*\(6,\)",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.full((6, 4), 1.5)),
            ValueError,
            r"gates must be decays in \[0, 1\].*1\.5",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.full((6, 4), -0.1)),
            ValueError,
            r"gates must be decays in \[0, 1\].*-0\.1",
        ),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, PSI, np.full((6, 4), np.nan)),
            ValueError,
            r"gates must be finite",
        ),
        (lambda: recurrence.selective_rope_attention(Q, K, V, PSI, mode="unrolled"), ValueError, r"mode.*'unrolled'"),
        (lambda: recurrence.selective_rope_attention(Q, K, V, PSI, layout="neox"), ValueError, r"layout.*'neox'"),
        (
            lambda: recurrence.selective_rope_attention(Q, K, V, np.zeros((4, 6, 2))),
            ValueError,
            r"angles leading .*\(4,\)",
        ),
        (lambda: recurrence.rff_attention(Q, K, V, np.ones((3, 5))), ValueError, r"omega must have shape \(D, d\)"),
        (
            lambda: recurrence.rff_attention(Q, K, V, np.ones((3, 4)), amplitude=False),
            ValueError,
            r"amplitude.*mode='recurrent'.*False",
        ),
        (
            lambda: recurrence.rff_attention(Q, K, V, np.ones((3, 4)), mode="sum"),
            ValueError,
            r"rff_attention: mode.*'sum'",
        ),
        (
            lambda: recurrence.rff_increment_product(Q, np.ones((3, 4)), tau=6),
            ValueError,
            r"tau must be < T = 6, got 6",
        ),
        (
            lambda: recurrence.alibi_attention(Q, K, V, -1.0),
            ValueError,
            r"alibi_attention: slope must be >= 0, got -1\.0",
        ),
        (
            lambda: recurrence.fox_attention(Q, K, V, np.full(6, 2.0)),
            ValueError,
            r"fox_attention: gates must be in \[0, 1\].*2\.0",
        ),
        (
            lambda: recurrence.fox_attention(Q, K, V, np.ones(5)),
            ValueError,
            r"gates must have shape \(\.\.\., T\) with T = 6",
        ),
        (
            lambda: recurrence.cosformer_attention(Q, K, V, M=0.0),
            ValueError,
            r"cosformer_attention: M must be > 0, got 0\.0",
        ),
        (
            lambda: recurrence.cosformer_attention(Q, K, V, mode="linear"),
            ValueError,
            r"cosformer_attention: mode.*'linear'",
        ),
        (lambda: recurrence.linear_attention(Q, K, np.full((6, 2), np.inf)), ValueError, r"v must be finite"),
        (lambda: recurrence.linear_attention(Q.astype(complex), K, V), TypeError, r"q must be a real array"),
    ],
)
def test_bad_input(call, exc, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=pattern):
        call()


# ------------------------------------------------------------------ Ctrl-C
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery to a child is POSIX-specific")
def test_long_call_answers_ctrl_c() -> None:
    """An O(T² d²) unrolled call that would run for minutes stops within a second of SIGINT."""
    code = (
        "import numpy as np, ropelab as rl\n"
        "T, d = 20000, 16\n"
        "q = np.ones((T, d)); A = np.broadcast_to(np.eye(d), (T, d, d))\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    rl.recurrence.linear_attention(q, q, q, A, mode='unrolled')\n"
        "    print('finished', flush=True)\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True)\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        time.sleep(0.3)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=20)
        assert out.strip() == "interrupted"
        assert time.perf_counter() - t0 < 5.0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


# ------------------------------------------------------------------ properties (hypothesis)
@settings(deadline=None, max_examples=40)
@given(
    T=st.integers(1, 24),
    h=st.integers(1, 6),
    dv=st.integers(1, 3),
    gate_kind=st.sampled_from(["none", "scalar", "pair", "channel"]),
    layout=st.sampled_from(LAYOUTS),
    seed=st.integers(0, 2**32 - 1),
)
def test_property_selective_modes_agree(T: int, h: int, dv: int, gate_kind: str, layout: str, seed: int) -> None:
    d = 2 * h
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(T, d)), rng.normal(size=(T, d)), rng.normal(size=(T, dv))
    angles = np.cumsum(rng.normal(scale=2, size=(T, h)), axis=0)
    g = gates_for(gate_kind, rng, T, d)
    pre = recurrence.selective_rope_attention(q, k, v, angles, g, layout=layout)
    rec = recurrence.selective_rope_attention(q, k, v, angles, g, mode="recurrent", layout=layout)
    assert_allclose(rec, pre, rtol=0, atol=tol(T, d, max(np.abs(pre).max(), 1.0)))


@settings(deadline=None, max_examples=60)
@given(
    bad=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not (0.0 <= x <= 1.0)),
        st.just(float("nan")),
    ),
    pos=st.integers(0, 23),
)
def test_property_bad_gates_always_raise(bad: float, pos: int) -> None:
    g = np.full((6, 4), 0.5)
    g.flat[pos] = bad
    with pytest.raises(ValueError, match=r"selective_rope_attention: gates must be"):
        recurrence.selective_rope_attention(Q, K, V, PSI, g)
