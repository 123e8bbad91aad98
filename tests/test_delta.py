"""The delta-rule family in the core: DeltaNet, Gated DeltaNet, DeltaProduct, with and without
Selective RoPE pre-rotation, against a NumPy loop and against the linear recurrence with the
effective transitions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import recurrence, rotary


def _rotation(angles: np.ndarray, d: int, layout: str) -> np.ndarray:
    return rotary.rotation_matrix(angles, layout)  # (d, d)


def numpy_delta_product(q, k, v, beta, angles=None, gates=None, layout="interleaved"):  # type: ignore[no-untyped-def]
    """Reference: the recurrence written out with dense matrices (O(T n_h d² dv))."""
    T, d = q.shape
    n_h, dv = k.shape[1], v.shape[2]
    S = np.zeros((dv, d))
    out = np.empty((T, dv))
    for t in range(T):
        C = _rotation(angles[t], d, layout) if angles is not None else np.eye(d)
        if gates is not None:
            S = gates[t] * S
        for j in range(n_h):
            kk = C @ k[t, j]
            S = S @ (np.eye(d) - beta[t, j] * np.outer(kk, kk)) + beta[t, j] * np.outer(v[t, j], kk)
        out[t] = S @ (C @ q[t])
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("n_h", [1, 3])
@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("rotated", [False, True])
def test_delta_product_matches_numpy(layout: str, n_h: int, gated: bool, rotated: bool) -> None:
    rng = np.random.default_rng(11)
    T, d, dv = 17, 6, 4
    q = rng.standard_normal((T, d))
    k = rng.standard_normal((T, n_h, d))
    v = rng.standard_normal((T, n_h, dv))
    beta = rng.uniform(0, 2, (T, n_h))
    gates = rng.uniform(0.3, 1, T) if gated else None
    angles = np.cumsum(rng.uniform(-1, 1, (T, d // 2)), axis=0) if rotated else None
    got = recurrence.delta_product(q, k, v, beta, angles, gates, layout=layout)  # type: ignore[arg-type]
    want = numpy_delta_product(q, k, v, beta, angles, gates, layout)
    # T·n_h rank-one updates of O(1) entries: float64 rounding, a generous 1e-12 relative
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_delta_rule_is_linear_attention_with_effective_transitions(layout: str) -> None:
    rng = np.random.default_rng(12)
    T, d, dv = 40, 8, 3
    q, k = rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    beta, gates = rng.uniform(0, 2, T), rng.uniform(0.2, 1, T)
    angles = np.cumsum(rng.uniform(-2, 2, (T, d // 2)), axis=0)
    o = recurrence.delta_rule(q, k, v, beta, angles, gates, layout=layout)  # type: ignore[arg-type]
    A = recurrence.delta_transitions(k, beta, angles, gates, layout=layout)  # type: ignore[arg-type]
    # A_t = α_t R(ψ_t − ψ_{t−1}) (I − β_t k_t k_tᵀ), built here from its definition
    prev = np.vstack([np.zeros((1, d // 2)), angles[:-1]])
    for t in (0, 1, T - 1):
        R = rotary.rotation_matrix(angles[t] - prev[t], layout)  # type: ignore[arg-type]
        want = gates[t] * R @ (np.eye(d) - beta[t] * np.outer(k[t], k[t]))
        np.testing.assert_allclose(A[t], want, rtol=0, atol=1e-14)
    np.testing.assert_allclose(
        o, recurrence.linear_attention(q, k, beta[:, None] * v, transitions=A), rtol=1e-12, atol=1e-12
    )


def test_unit_keys_beta_two_are_reflections_and_products_orthogonal() -> None:
    rng = np.random.default_rng(13)
    k = rng.standard_normal((5, 4, 6))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    A = recurrence.delta_transitions(k, np.full((5, 4), 2.0), product=True)
    for At in A:
        np.testing.assert_allclose(At @ At.T, np.eye(6), atol=1e-14)
    single = recurrence.delta_transitions(k[:, 0], np.full(5, 2.0))
    np.testing.assert_allclose(np.linalg.det(single), -1.0, atol=1e-13)  # one reflection each
    np.testing.assert_allclose(np.linalg.det(A), 1.0, atol=1e-13)  # four reflections each


def test_batch_and_threads() -> None:
    rng = np.random.default_rng(14)
    B, T, d, dv = 5, 30, 4, 2
    q, k = rng.standard_normal((2, B, T, d))
    v = rng.standard_normal((B, T, dv))
    beta = rng.uniform(0, 1, (B, T))
    angles = np.cumsum(rng.standard_normal((T, d // 2)), axis=0)  # shared over the batch
    ref = np.stack([recurrence.delta_rule(q[b], k[b], v[b], beta[b], angles) for b in range(B)])
    for nthreads in (1, 2, 3):
        assert np.array_equal(recurrence.delta_rule(q, k, v, beta, angles, nthreads=nthreads), ref)


@pytest.mark.parametrize("n_h", [1, 3])
@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_one_sequence_is_bit_identical_for_every_thread_count(n_h: int, layout: str) -> None:
    # the rows of the state are split over the threads (blocks of 8 rows): dv = 37 gives uneven
    # blocks and a partial last panel; gated, pre-rotated, with several micro-steps per token
    rng = np.random.default_rng(16)
    T, d, dv = 50, 6, 37
    q = rng.standard_normal((T, d))
    k = rng.standard_normal((T, n_h, d)) / np.sqrt(d)
    v = rng.standard_normal((T, n_h, dv))
    beta = rng.uniform(0, 2, (T, n_h))
    gates = rng.uniform(0.5, 1, T)
    angles = np.cumsum(rng.standard_normal((T, d // 2)), axis=0)

    def run(q, k, v, nthreads):  # type: ignore[no-untyped-def]
        return recurrence.delta_product(q, k, v, beta, angles, gates, layout=layout, nthreads=nthreads)  # type: ignore[arg-type]

    one = run(q, k, v, 1)
    assert np.all(np.isfinite(one)) and np.any(one)
    for nthreads in (2, 3, 5, 64):
        assert np.array_equal(run(q, k, v, nthreads), one), nthreads
    # a batch of 3 on 2 threads splits each sequence in two (6 equal work items)
    qb, kb, vb = np.stack([q, -q, q]), np.stack([k, k, -k]), np.stack([v, -v, v])
    ref = np.stack([run(qb[b], kb[b], vb[b], 1) for b in range(3)])
    assert np.array_equal(run(qb, kb, vb, 2), ref)


@settings(max_examples=30, deadline=None)
@given(T=st.integers(0, 12), d=st.sampled_from([2, 4, 6]), dv=st.integers(1, 3), seed=st.integers(0, 2**32 - 1))
def test_zero_beta_writes_nothing(T: int, d: int, dv: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, T, d))
    v = rng.standard_normal((T, dv))
    o = recurrence.delta_rule(q, k, v, np.zeros(T))
    assert o.shape == (T, dv) and not np.any(o)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"beta": np.ones(5)}, "beta"),
        ({"gates": np.full(6, 1.5)}, "gates must be in \\[0, 1\\]"),
        ({"angles": np.zeros((6, 3))}, "angles"),
        ({"v": np.ones((7, 2))}, "v"),
        ({"k": np.full((6, 4), np.nan)}, "k"),
    ],
)
def test_bad_input_names_the_argument(kwargs: dict[str, np.ndarray], message: str) -> None:
    args = {"q": np.ones((6, 4)), "k": np.ones((6, 4)), "v": np.ones((6, 2)), "beta": np.ones(6)} | kwargs
    with pytest.raises(ValueError, match=message):
        recurrence.delta_rule(args["q"], args["k"], args["v"], args["beta"], kwargs.get("angles"), kwargs.get("gates"))


def test_strings_are_not_numbers() -> None:
    with pytest.raises((TypeError, ValueError)):
        recurrence.delta_rule(np.ones((2, 2)), [["1", "0"], ["0", "1"]], np.ones((2, 1)), np.ones(2))
    with pytest.raises(TypeError, match="product must be a bool"):
        recurrence.delta_transitions(np.ones((2, 2)), np.ones(2), product="yes")  # type: ignore[arg-type]
