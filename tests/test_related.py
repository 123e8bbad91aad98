"""Softmax-form ALiBi and FoX (ropelab.related) against their decayed linear-kernel recurrence,
against direct O(T²) sums written here, and the ALiBi slopes against the reference rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import attention, recurrence, related


def reference_slopes(n: int) -> list[float]:
    """The ALiBi reference implementation's rule, rewritten from its description (ALiBi §3 and the
    authors' code): a geometric sequence for a power of two, else the slopes of the closest smaller
    power of two followed by every other slope of twice that many heads."""

    def power_of_2(m: int) -> list[float]:
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start * start**i for i in range(m)]

    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + reference_slopes(2 * closest)[0::2][: n - closest]


def direct_decayed_softmax(q, k, v, decay, scale):  # type: ignore[no-untyped-def]
    """o_t = Σ_{s≤t} e^{scale q_t·k_s} D[t, s] v_s / Σ_{s≤t} e^{scale q_t·k_s} D[t, s], one sequence."""
    T = q.shape[0]
    out = np.empty((T, v.shape[1]))
    for t in range(T):
        w = np.exp(scale * (k[: t + 1] @ q[t])) * decay[t, : t + 1]
        out[t] = w @ v[: t + 1] / w.sum()
    return out


def gate_products(f: np.ndarray) -> np.ndarray:
    """D[t, s] = Π_{r=s+1}^{t} f_r as explicit products."""
    T = f.shape[0]
    D = np.zeros((T, T))
    for t in range(T):
        for s in range(t + 1):
            D[t, s] = np.prod(f[s + 1 : t + 1])
    return D


# ---- slopes and biases ---------------------------------------------------------------------------


@pytest.mark.parametrize("H", [1, 2, 3, 5, 6, 7, 8, 12, 16, 20, 24, 32, 40, 64, 96])
def test_alibi_slopes_match_the_reference_rule(H: int) -> None:
    # the reference's start·ratio^i accumulates a few ulps over up to 96 heads; ours is 2^(−8h/P) directly
    np.testing.assert_allclose(related.alibi_slopes(H), reference_slopes(H), rtol=1e-13, atol=0)


def test_alibi_slopes_power_of_two_is_geometric() -> None:
    for H in (4, 8, 16):
        m = related.alibi_slopes(H)
        np.testing.assert_allclose(m, 2.0 ** (-8.0 * np.arange(1, H + 1) / H), rtol=1e-15)
        np.testing.assert_allclose(m[1:] / m[:-1], 2.0 ** (-8.0 / H), rtol=1e-14)


def test_alibi_bias_values() -> None:
    b = related.alibi_bias(5, [0.5, 0.25])
    assert b.shape == (2, 5, 5)
    assert b[0, 4, 1] == -1.5 and b[1, 4, 1] == -0.75 and b[1, 3, 3] == 0.0
    assert np.all(np.isneginf(b[:, np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]]))


def test_fox_bias_is_the_log_of_the_gate_products() -> None:
    rng = np.random.default_rng(1)
    f = rng.uniform(0.2, 1.0, 9)
    b = related.fox_bias(f)
    low = np.tril_indices(9)
    np.testing.assert_allclose(np.exp(b)[low], gate_products(f)[low], rtol=1e-13)
    assert np.all(np.isneginf(b[np.triu_indices(9, 1)]))
    assert related.fox_bias(rng.uniform(0.2, 1, (2, 3, 9))).shape == (2, 3, 9, 9)


# ---- softmax forms against direct sums -------------------------------------------------------------


def test_alibi_against_direct_sum() -> None:
    rng = np.random.default_rng(2)
    H, T, d = 6, 20, 4
    q, k, v = rng.standard_normal((3, H, T, d))
    got = related.alibi(q, k, v)
    t = np.arange(T)
    for h, m in enumerate(related.alibi_slopes(H)):
        decay = np.exp(-m * (t[:, None] - t[None, :]))
        np.testing.assert_allclose(
            got[h], direct_decayed_softmax(q[h], k[h], v[h], decay, 1 / np.sqrt(d)), rtol=1e-12, atol=1e-12
        )


def test_fox_against_direct_sum() -> None:
    rng = np.random.default_rng(3)
    T, d = 15, 3
    q, k, v = rng.standard_normal((3, T, d))
    f = 1 / (1 + np.exp(-rng.normal(1, 2, T)))
    got = related.fox(q, k, v, f, scale=0.7)
    np.testing.assert_allclose(got, direct_decayed_softmax(q, k, v, gate_products(f), 0.7), rtol=1e-12, atol=1e-12)


def test_fox_with_constant_gate_is_alibi() -> None:
    rng = np.random.default_rng(4)
    q, k, v = rng.standard_normal((3, 2, 12, 4))
    m = np.array([0.3, 0.05])
    f = np.broadcast_to(np.exp(-m)[:, None], (2, 12))
    np.testing.assert_allclose(related.fox(q, k, v, f), related.alibi(q, k, v, m), rtol=1e-12, atol=1e-13)


# ---- softmax form = decayed recurrence (exact features) --------------------------------------------


def test_exp_kernel_features_are_exact() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(0, 2, (40, 6)).astype(float)
    for scale in (0.1, 1.0, 2.5):
        phi = related.exp_kernel_features(x, scale)
        assert phi.shape == (40, 64)
        np.testing.assert_allclose(phi @ phi.T, np.exp(scale * (x @ x.T)), rtol=1e-14)


@settings(max_examples=25, deadline=None)
@given(
    T=st.integers(1, 40),
    n=st.integers(1, 5),
    dv=st.integers(1, 4),
    scale=st.floats(0.05, 3.0),
    lo=st.floats(0.0, 0.99),
    seed=st.integers(0, 2**31 - 1),
)
def test_fox_softmax_equals_decayed_recurrence(T: int, n: int, dv: int, scale: float, lo: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.integers(0, 2, (2, 3, T, n)).astype(float)
    v = rng.standard_normal((3, T, dv))
    f = rng.uniform(max(lo, 1e-3), 1.0, (3, T))
    soft = related.fox(q, k, v, f, scale=scale)
    rec = related.decayed_kernel_attention(
        related.exp_kernel_features(q, scale), related.exp_kernel_features(k, scale), v, f
    )
    np.testing.assert_allclose(rec, soft, rtol=0, atol=64 * T * np.finfo(float).eps * np.max(np.abs(v)))


@settings(max_examples=20, deadline=None)
@given(H=st.integers(1, 9), T=st.integers(1, 30), seed=st.integers(0, 2**31 - 1))
def test_alibi_softmax_equals_recurrence_with_gate_e_minus_m(H: int, T: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.integers(0, 2, (2, H, T, 4)).astype(float)
    v = rng.standard_normal((H, T, 2))
    m = related.alibi_slopes(H)
    soft = related.alibi(q, k, v, scale=0.5)
    rec = related.decayed_kernel_attention(
        related.exp_kernel_features(q, 0.5),
        related.exp_kernel_features(k, 0.5),
        v,
        np.broadcast_to(np.exp(-m)[:, None], (H, T)),
    )
    np.testing.assert_allclose(rec, soft, rtol=0, atol=64 * T * np.finfo(float).eps * np.max(np.abs(v)))


def test_one_hot_tokens() -> None:
    """One-hot tokens (the case |x| = 1): the kernel is 1 + (e^s − 1)[i = j]."""
    rng = np.random.default_rng(6)
    T, V = 30, 5
    tok_q, tok_k = rng.integers(0, V, (2, T))
    q, k = np.eye(V)[tok_q], np.eye(V)[tok_k]
    v = rng.standard_normal((T, 3))
    f = rng.uniform(0.5, 1, T)
    np.testing.assert_allclose(
        related.decayed_kernel_attention(
            related.exp_kernel_features(q, 1.3), related.exp_kernel_features(k, 1.3), v, f
        ),
        related.fox(q, k, v, f, scale=1.3),
        rtol=1e-13,
        atol=1e-13,
    )


def test_decayed_recurrence_is_the_core_gated_recurrence_normalised() -> None:
    rng = np.random.default_rng(7)
    pq, pk = rng.uniform(0.1, 1, (2, 10, 4))
    v = rng.standard_normal((10, 2))
    f = rng.uniform(0, 1, 10)
    num = recurrence.fox_attention(pq, pk, v, f, "direct")
    den = recurrence.fox_attention(pq, pk, np.ones((10, 1)), f, "direct")
    np.testing.assert_allclose(related.decayed_kernel_attention(pq, pk, v, f), num / den, rtol=1e-13)


def test_positive_random_features_numerator_and_normaliser_are_unbiased() -> None:
    """Performer's positive features: the recurrence's numerator and normaliser estimate the
    softmax form's unnormalised sums without bias (within 5 standard errors over R draws)."""
    rng = np.random.default_rng(8)
    T, d, dv, D, R = 10, 3, 2, 64, 400
    scale = 1 / np.sqrt(d)
    q, k = 0.6 * rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    f = rng.uniform(0.6, 1, T)
    decay = gate_products(f)
    K = np.tril(np.exp(scale * q @ k.T) * decay)
    exact = np.concatenate([K @ v, K.sum(axis=1, keepdims=True)], axis=1)  # numerator | normaliser
    ext = np.concatenate([v, np.ones((T, 1))], axis=1)
    draws = np.empty((R, T, dv + 1))
    for r in range(R):
        omega = rng.standard_normal((D, d))
        pq = attention.feature_map(q, omega, "positive", scale=scale)
        pk = attention.feature_map(k, omega, "positive", scale=scale)
        draws[r] = recurrence.fox_attention(pq, pk, ext, f, "recurrent")
        if r == 0:
            np.testing.assert_allclose(
                related.decayed_kernel_attention(pq, pk, v, f), draws[0, :, :dv] / draws[0, :, dv:], rtol=1e-13
            )
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(R)
    assert np.all(np.abs(mean - exact) < 5 * se), np.max(np.abs(mean - exact) / se)
    # and the estimate is not trivially exact: the standard errors are real
    assert np.min(se) > 0


# ---- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("H", [0, -2])
def test_alibi_slopes_bad_count(H: int) -> None:
    with pytest.raises(ValueError, match="H"):
        related.alibi_slopes(H)


@pytest.mark.parametrize("H", [2.0, "4", True, None])
def test_alibi_slopes_bad_type(H: object) -> None:
    with pytest.raises(TypeError, match="H"):
        related.alibi_slopes(H)  # type: ignore[arg-type]


def test_bias_bad_input() -> None:
    with pytest.raises(ValueError, match="slopes"):
        related.alibi_bias(4, [0.5, -0.1])
    with pytest.raises(ValueError, match="slopes"):
        related.alibi_bias(4, [np.nan])
    with pytest.raises(ValueError, match="slopes"):
        related.alibi_bias(4, np.ones((2, 2)))
    with pytest.raises(ValueError, match="T"):
        related.alibi_bias(0, 0.5)
    with pytest.raises(TypeError, match="slopes"):
        related.alibi_bias(4, ["a"])
    for bad in (0.0, -0.5, 1.5, np.nan):
        with pytest.raises(ValueError, match="gates"):
            related.fox_bias([0.5, bad])
    with pytest.raises(ValueError, match="gates"):
        related.fox_bias(0.5)
    with pytest.raises(TypeError, match="gates"):
        related.fox_bias([1 + 1j])


def test_alibi_fox_bad_shapes() -> None:
    q = np.zeros((4, 5, 2))
    with pytest.raises(ValueError, match="head axis"):
        related.alibi(q[0], q[0], q[0])
    with pytest.raises(ValueError, match="slopes"):
        related.alibi(q, q, q, [0.5, 0.25])
    with pytest.raises(ValueError, match="gates"):
        related.fox(q, q, q, np.ones(4))
    with pytest.raises(ValueError, match="gates"):
        related.fox(q, q, q, np.full((4, 5), 2.0))
    with pytest.raises(ValueError, match="q"):
        related.alibi(np.full((4, 5, 2), np.nan), q, q)


def test_feature_and_recurrence_bad_input() -> None:
    with pytest.raises(ValueError, match="binary"):
        related.exp_kernel_features([0.0, 0.5])
    with pytest.raises(ValueError, match="n <= 16"):
        related.exp_kernel_features(np.zeros(17))
    with pytest.raises(ValueError, match="scale"):
        related.exp_kernel_features([1.0, 0.0], 0.0)
    with pytest.raises(TypeError, match="scale"):
        related.exp_kernel_features([1.0, 0.0], "1")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="normaliser"):  # zero features: 0/0 must not be a NaN
        related.decayed_kernel_attention(np.zeros((3, 2)), np.zeros((3, 2)), np.ones((3, 1)), np.ones(3))
    with pytest.raises(ValueError, match="decayed_kernel_attention: gates"):
        related.decayed_kernel_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 1)), np.full(3, 1.5))
    with pytest.raises(ValueError, match="v"):
        related.decayed_kernel_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=r"phi_q and phi_k .*phi_q\.shape"):
        related.decayed_kernel_attention(np.ones((3, 2)), np.ones((4, 2)), np.ones((3, 1)), np.ones(3))
    with pytest.raises(ValueError, match="phi_q must be finite"):
        related.decayed_kernel_attention(np.full((3, 2), np.nan), np.ones((3, 2)), np.ones((3, 1)), np.ones(3))
