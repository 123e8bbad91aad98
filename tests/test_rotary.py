"""ropelab.rotary: RoPE, layouts, realification, cumulative phases, decay bound, parity (MATH.md §3).

Tolerances are multiples of float64 rounding (EPS = 2.2e-16) scaled by the size of what is
summed or by the magnitude of the angles involved; each one says why.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

import ropelab as rl
from ropelab import rotary

EPS = np.finfo(np.float64).eps
EPS32 = np.finfo(np.float32).eps
LAYOUTS = ["interleaved", "half"]


def np_rotation(angles: np.ndarray, layout: str) -> np.ndarray:
    """Independent dense blockdiag R(angles) built in NumPy."""
    h = len(angles)
    d = 2 * h
    R = np.zeros((d, d))
    for i, a in enumerate(angles):
        c0, c1 = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + h)
        R[c0, c0] = R[c1, c1] = np.cos(a)
        R[c0, c1], R[c1, c0] = -np.sin(a), np.sin(a)
    return R


def test_doctests() -> None:
    res = doctest.testmod(rotary, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 10 and res.failed == 0


def test_frequencies_definition() -> None:
    for d in (2, 8, 128):
        i = np.arange(d // 2)
        # pow vs pow: the same libm call in both routes, a few ulps at most.
        assert_allclose(rotary.frequencies(d, base=500.0), 500.0 ** (-2 * i / d), rtol=4 * EPS)


def test_rope_angles_position_interpolation() -> None:
    pos = np.arange(10.0)
    theta = rotary.frequencies(8)
    assert_allclose(rotary.rope_angles(pos, 8), pos[:, None] * theta, rtol=2 * EPS)
    # L/L' = 1/4: position 40 of the long context gets the angle of position 10 (exact powers of 2).
    assert_array_equal(rotary.rope_angles([40.0], 8, scale=0.25)[0], rotary.rope_angles([10.0], 8)[0])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 8, 64])
def test_rotate_equals_block_diagonal_matrix(layout: str, d: int) -> None:
    rng = np.random.default_rng(10 + d)
    x = rng.normal(size=(5, d))
    a = rng.uniform(-10, 10, size=(5, d // 2))
    want = np.stack([np_rotation(a[r], layout) @ x[r] for r in range(5)])
    # Each output is one 2-term dot product of O(1) values: a few ulps.
    assert_allclose(rotary.rotate(x, a, layout), want, rtol=0, atol=8 * EPS * np.abs(x).max())
    assert_allclose(rotary.rotation_matrix(a[0], layout), np_rotation(a[0], layout), rtol=0, atol=0)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", [2, 16, 128])
def test_rope_relative_property(layout: str, d: int) -> None:
    """⟨R_m q, R_n k⟩ = qᵀ R_{n−m} k, and it depends on n − m only."""
    rng = np.random.default_rng(d)
    q, k = rng.normal(size=(2, d))
    theta = rotary.frequencies(d)
    for m, n in [(0, 0), (3, 17), (250, 31), (1000, 999)]:
        lhs = rotary.rotate(q, m * theta, layout) @ rotary.rotate(k, n * theta, layout)
        rhs = q @ rotary.rotate(k, (n - m) * theta, layout)
        shifted = rotary.rotate(q, (m + 77) * theta, layout) @ rotary.rotate(k, (n + 77) * theta, layout)
        # The angles mθ, nθ carry rounding ~EPS·max(m, n) each; a d-term sum of O(1) products.
        tol = 16 * EPS * (1 + max(m, n) + 77) * d * np.abs(q).max() * np.abs(k).max()
        assert abs(lhs - rhs) < tol
        assert abs(shifted - rhs) < tol


@pytest.mark.parametrize("d", [2, 6, 64])
def test_interleaved_and_half_agree_up_to_permutation(d: int) -> None:
    rng = np.random.default_rng(3 * d)
    x = rng.normal(size=(4, 7, d))
    a = rng.normal(scale=5, size=(7, d // 2))
    p = rotary.layout_permutation(d)
    # Identical arithmetic on the same pairs: bit-for-bit equal.
    assert_array_equal(rotary.rotate(x, a, "interleaved")[..., p], rotary.rotate(x[..., p], a, "half"))
    assert_array_equal(rotary.rotation_matrix(a[0], "interleaved")[np.ix_(p, p)], rotary.rotation_matrix(a[0], "half"))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotate_batch_broadcast_and_shapes(layout: str) -> None:
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 3, 5, 8))
    for ashape in [(5, 4), (3, 5, 4), (1, 5, 4), (2, 3, 5, 4), (4,)]:
        a = rng.normal(size=ashape)
        out = rotary.rotate(x, a, layout)
        assert out.shape == x.shape and out.dtype == np.float64
        full = np.broadcast_to(a, x.shape[:-1] + (4,))
        want = np.empty_like(x)
        for idx in np.ndindex(*x.shape[:-1]):
            want[idx] = np_rotation(full[idx], layout) @ x[idx]
        assert_allclose(out, want, rtol=0, atol=8 * EPS * np.abs(x).max())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rotate_float32_path(layout: str) -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 64, 32)).astype(np.float32)
    a = rng.normal(scale=3, size=(64, 16))
    out = rotary.rotate(x, a, layout)
    assert out.dtype == np.float32 and out.shape == x.shape
    ref = rotary.rotate(x.astype(np.float64), a, layout)
    # float32 result = float64 result rounded once: half a float32 ulp of the largest value.
    assert_allclose(out, ref, rtol=0, atol=EPS32 * np.abs(ref).max())
    # An integer array is computed in float64.
    assert rotary.rotate(np.arange(4), [0.0, 0.0]).dtype == np.float64


def test_rotation_preserves_norm_and_composes() -> None:
    rng = np.random.default_rng(6)
    x = rng.normal(size=(10, 32))
    a, b = rng.normal(size=(2, 10, 16))
    # Orthogonal map of O(1) vectors: norms agree to a few ulps per component.
    assert_allclose(np.linalg.norm(rotary.rotate(x, a), axis=-1), np.linalg.norm(x, axis=-1), rtol=32 * EPS)
    assert_allclose(
        rotary.rotate(rotary.rotate(x, a), b), rotary.rotate(x, a + b), rtol=0, atol=64 * EPS * np.abs(x).max()
    )
    assert_allclose(rotary.rotate(rotary.rotate(x, a), -a), x, rtol=0, atol=16 * EPS * np.abs(x).max())


@settings(deadline=None, max_examples=40)
@given(
    h=st.integers(1, 12),
    batch=st.lists(st.integers(1, 3), max_size=2),
    seed=st.integers(0, 2**32 - 1),
    layout=st.sampled_from(LAYOUTS),
)
def test_property_rotation_is_orthogonal(h: int, batch: list[int], seed: int, layout: str) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(*batch, 2 * h))
    a = rng.uniform(-100, 100, size=(*batch, h))
    y = rotary.rotate(x, a, layout)
    assert y.shape == x.shape
    assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=64 * EPS, atol=1e-300)
    assert_allclose(rotary.rotate(y, -a, layout), x, rtol=0, atol=64 * EPS * (1 + np.abs(x).max()))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_realification_identity(layout: str) -> None:
    """Re{conj(k̃) e^{iθ} q̃} = kᵀ R(θ) q (App. A.1), and the complex diagonal recurrence."""
    rng = np.random.default_rng(7)
    d = 10
    q, k = rng.normal(size=(2, d))
    theta = rng.uniform(-np.pi, np.pi, size=d // 2)
    qc, kc = rotary.complexify(q, layout), rotary.complexify(k, layout)
    lhs = np.sum(np.real(np.conj(kc) * np.exp(1j * theta) * qc))
    rhs = k @ rotary.rotation_matrix(theta, layout) @ q
    assert abs(lhs - rhs) < 16 * EPS * d * np.abs(q).max() * np.abs(k).max()  # d O(1) products
    # realify / complexify are exact inverses (pure data movement).
    z = rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5))
    assert_array_equal(rotary.complexify(rotary.realify(z, layout), layout), z)
    # h ↦ λ ⊙ h is the real matrix with blocks |λ| R(arg λ): check a few steps of the recurrence.
    lam = 0.95 * np.exp(1j * rng.uniform(-np.pi, np.pi, size=5))
    A = rotary.realify_diagonal(lam, layout)
    hc, hr = z[0], rotary.realify(z[0], layout)
    for t in range(20):
        hc = lam * hc + z[t % 3]
        hr = A @ hr + rotary.realify(z[t % 3], layout)
    assert_allclose(hr, rotary.realify(hc, layout), rtol=0, atol=64 * EPS * 20 * np.abs(hc).max())
    # Block of pair 0 is |λ| R(arg λ) = [[Re λ, −Im λ], [Im λ, Re λ]].
    c1 = 1 if layout == "interleaved" else 5
    assert_array_equal(A[np.ix_([0, c1], [0, c1])], [[lam[0].real, -lam[0].imag], [lam[0].imag, lam[0].real]])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_rope_trick(layout: str) -> None:
    """k_τᵀ R^{t−τ} q_t = (R^τ k_τ)ᵀ (R^t q_t): matrix power vs rotation by accumulated angles."""
    rng = np.random.default_rng(8)
    d = 16
    theta = rotary.frequencies(d)
    R = rotary.rotation_matrix(theta, layout)
    q, k = rng.normal(size=(2, d))
    for tau, t in [(0, 0), (2, 9), (5, 40)]:
        lhs = k @ np.linalg.matrix_power(R, t - tau) @ q
        rhs = rotary.rotate(k, tau * theta, layout) @ rotary.rotate(q, t * theta, layout)
        # matrix_power accumulates ~EPS per factor; the angles tθ carry EPS·t.
        assert abs(lhs - rhs) < 32 * EPS * (1 + t) * d * np.abs(q).max() * np.abs(k).max()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_eq13_prerotation_identity(layout: str) -> None:
    """k_τᵀ R_{τ+1}⋯R_t q_t = (C_τ k_τ)ᵀ (C_t q_t) with R_t = C_{t−1}ᵀ C_t (Selective RoPE)."""
    rng = np.random.default_rng(9)
    T, d = 12, 8
    angles = rotary.cumulative_angles(rng.normal(size=(T, d // 2)), rng.uniform(0.1, 2, size=d // 2))
    q, k = rng.normal(size=(2, T, d))
    for tau, t in [(0, 11), (3, 7), (5, 5)]:
        P = np.eye(d)
        for kap in range(tau + 1, t + 1):
            P = P @ rl.transition.effective(angles[kap - 1], angles[kap], None, layout)
        lhs = k[tau] @ P @ q[t]
        rhs = rotary.rotate(k[tau], angles[tau], layout) @ rotary.rotate(q[t], angles[t], layout)
        assert abs(lhs - rhs) < 32 * EPS * (1 + t - tau) * d * np.abs(q).max() * np.abs(k).max()


def test_decay_bound_exact_at_zero_and_definition() -> None:
    assert rotary.decay_bound(0, d=128) == 32.5
    assert isinstance(rotary.decay_bound(0, d=128), float)
    for d in (2, 8, 64, 256):
        assert rotary.decay_bound(0.0, d=d) == (d / 2 + 1) / 2
    r = np.linspace(0, 300, 60).reshape(3, 20)  # any shape; the output keeps it
    for d, base in [(128, 10000.0), (32, 500.0)]:
        theta = rotary.frequencies(d, base)
        S = np.cumsum(np.exp(1j * r[..., None] * theta), axis=-1)
        want = np.abs(S).mean(axis=-1)
        got = rotary.decay_bound(r, d=d, base=base)
        assert got.shape == r.shape
        # Partial sums of ≤ d/2 unit phasors with angles up to 300 rad: EPS·(d/2)·300 each.
        assert_allclose(got, want, rtol=0, atol=EPS * d * 300 * 4)


def test_decay_bound_not_monotone() -> None:
    r = np.arange(0, 1001)
    b = rotary.decay_bound(r, d=128)
    assert b[0] > b[10] > b[100]  # the short-range downward trend RoFormer describes
    assert np.any(np.diff(b) > 0), "B(r) must have local increases (RoFormer's bound is not monotone)"


def test_cumulative_angles_accumulation_modes() -> None:
    rng = np.random.default_rng(11)
    omega = rng.normal(size=(2, 500, 4))
    theta = rng.uniform(0.5, 2.0, size=4)
    angles = rotary.cumulative_angles(omega, theta)
    assert angles.shape == omega.shape
    # Sequential double sums both ways; NumPy's cumsum is sequential too: equal to a few ulps·T.
    assert_allclose(angles, np.cumsum(theta * omega, axis=-2), rtol=0, atol=8 * EPS * 500 * np.abs(angles).max())
    f32 = rotary.cumulative_angles(omega, theta, accumulate="float32")
    assert_array_equal(f32, np.cumsum((theta * omega).astype(np.float32), axis=-2, dtype=np.float32))
    w = rotary.cumulative_angles(omega, theta, accumulate="wrapped")
    assert np.all((w >= -np.pi) & (w < np.pi))
    # Same angle mod 2π: compare cos and sin (rounding of ≤ 500 reductions by 2π).
    assert_allclose(np.cos(w), np.cos(angles), atol=1e-12)
    assert_allclose(np.sin(w), np.sin(angles), atol=1e-12)
    assert_allclose(rotary.cumulative_angles([[1.0], [1.0]], 0.5), [[0.5], [1.0]])


def test_short_conv_and_selective_angles() -> None:
    rng = np.random.default_rng(12)
    x = rng.normal(size=(2, 30, 3))
    w = rng.normal(size=(4, 3))
    want = np.zeros_like(x)
    for t in range(30):
        for j in range(4):
            s = t - 3 + j
            if s >= 0:
                want[:, t] += w[j] * x[:, s]
    assert_allclose(rotary.short_conv(x, w), want, rtol=0, atol=16 * EPS * np.abs(want).max())
    silu = want / (1 + np.exp(-want))
    assert_allclose(rotary.short_conv(x, w, "silu"), silu, rtol=0, atol=32 * EPS * np.abs(want).max())
    shared = rotary.short_conv(x, w[:, 0])
    assert_allclose(shared, rotary.short_conv(x, np.repeat(w[:, :1], 3, axis=1)), rtol=0, atol=0)
    theta = np.array([1.0, 0.5, 0.25])
    angles = rotary.selective_angles(x, w, theta, "silu")
    assert_array_equal(angles, rotary.cumulative_angles(rotary.short_conv(x, w, "silu"), theta))
    # Causality: changing a future input never changes past angles.
    x2 = x.copy()
    x2[:, 20:] += 1.0
    assert_array_equal(rotary.selective_angles(x2, w, theta)[:, :20], rotary.selective_angles(x, w, theta)[:, :20])


def test_parity_example_cos_sign() -> None:
    rng = np.random.default_rng(13)
    b = rng.integers(0, 2, size=2000)
    angles = rotary.cumulative_angles((np.pi * b)[:, None], 1.0)[:, 0]
    # ψ_t ≤ 2000π: accumulated rounding ≲ 2000 · ulp(6300) ≈ 2e-9.
    assert_allclose(np.cos(angles), (-1.0) ** np.cumsum(b), atol=1e-8)


def test_parity_batch_rows_are_independent() -> None:
    bits = np.random.default_rng(16).integers(0, 2, size=(3, 5000))
    e = rotary.parity_angle_error(bits, "float32")
    assert e.shape == bits.shape
    assert_array_equal(e[2], rotary.parity_angle_error(bits[2], "float32"))


def test_parity_angle_error_up_to_1e7() -> None:
    """ω_t = π b_t on random bits, T = 10^7: float64 drifts slowly, float32 loses the parity,
    wrapped accumulation stays exact."""
    T = 10**7
    bits = np.random.default_rng(14).integers(0, 2, size=T, dtype=np.int8)
    ew = rotary.parity_angle_error(bits, "wrapped")
    assert ew.shape == (T,)
    # Wrapped: ψ ∈ {−π_double, 0} exactly; the only error is π − π_double ≈ 1.2e-16.
    assert np.abs(ew).max() < 4 * EPS
    del ew
    e64 = rotary.parity_angle_error(bits, "float64")
    # float64: each of the n additions rounds by ≤ ulp(πn)/2, plus n·(π − fl(π)): a strict bound
    # (checked on every 7th step to keep the test's memory small).
    n = np.cumsum(bits, dtype=np.int64)[::7].astype(np.float64)
    assert np.all(np.abs(e64[::7]) <= n * (np.spacing(np.pi * n) / 2 + 1.3e-16))
    assert np.abs(e64).max() < 1e-2
    late64 = np.abs(e64[-T // 10 :]).max()
    del e64, n
    e32 = rotary.parity_angle_error(bits, "float32")
    # float32: the parity (sign of cos ψ) is wrong somewhere long before T = 10^7 ...
    assert np.any(np.abs(e32) > np.pi / 2)
    # ... while for short sequences the float32 phase still gives the right sign.
    assert np.abs(e32[:1000]).max() < np.pi / 2
    # Errors grow with T: the float32 error dwarfs float64's at the end.
    assert np.abs(e32[-T // 10 :]).max() > 1e3 * late64


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (lambda: rotary.rotate(np.ones(5), np.ones(2)), ValueError, r"rotary\.rotate: x .*even.*d = 5"),
        (lambda: rotary.rotate(np.ones(4), np.ones(3)), ValueError, r"angles must have last dimension d/2 = 2.*\(3,\)"),
        (lambda: rotary.rotate(np.ones((2, 4)), np.ones((3, 2))), ValueError, r"angles leading.*\(2,\).*\(3,\)"),
        (lambda: rotary.rotate(np.ones(4), np.ones(2), "diagonal"), ValueError, r"rotary\.rotate: layout.*'diagonal'"),
        (lambda: rotary.rotate(np.ones(4), np.ones(2), 3), TypeError, r"layout must be a str, got 3"),
        (lambda: rotary.rotate([1.0, np.nan], [0.0]), ValueError, r"x must be finite \(element 1"),
        (lambda: rotary.rotate(np.array([1.0, np.inf], np.float32), [0.0]), ValueError, r"x must be finite"),
        (lambda: rotary.rotate([1.0, 0.0], [np.inf]), ValueError, r"angles must be finite"),
        (lambda: rotary.rotate(np.ones(2, complex), [0.0]), TypeError, r"x must be a real array"),
        (lambda: rotary.frequencies(7), ValueError, r"rotary\.frequencies: d must be even.*got 7"),
        (lambda: rotary.frequencies(8, base=-1.0), ValueError, r"base must be > 0, got -1\.0"),
        (lambda: rotary.decay_bound(1.0, d=3), ValueError, r"decay_bound: d must be even.*got 3"),
        (lambda: rotary.decay_bound(np.nan), ValueError, r"decay_bound: r must be finite"),
        (lambda: rotary.rope_angles([1.0], 8, scale=0.0), ValueError, r"scale must be > 0"),
        (
            lambda: rotary.cumulative_angles(np.ones((3, 2)), np.ones(3)),
            ValueError,
            r"theta must be a scalar or have shape \(d/2,\) = \(2,\)",
        ),
        (lambda: rotary.cumulative_angles(np.ones(3), 1.0), ValueError, r"omega must have shape \(\.\.\., T, d/2\)"),
        (
            lambda: rotary.cumulative_angles(np.ones((3, 2)), 1.0, accumulate="float16"),
            ValueError,
            r"accumulate.*'float16'",
        ),
        (
            lambda: rotary.short_conv(np.ones((4, 3)), np.ones((2, 2))),
            ValueError,
            r"kernel must have shape \(K,\) or \(K, channels\) = \(K, 3\)",
        ),
        (lambda: rotary.short_conv(np.ones((4, 3)), np.ones(2), "relu"), ValueError, r"activation.*'relu'"),
        (lambda: rotary.parity_angle_error([0, 1, 2]), ValueError, r"bits must contain only 0 and 1.*2\.0"),
        (lambda: rotary.complexify(np.ones(3)), ValueError, r"complexify: x .*even"),
        (lambda: rotary.realify([np.nan + 0j]), ValueError, r"realify: z must be finite"),
        (
            lambda: rotary.layout_permutation(5),
            ValueError,
            r"layout_permutation: d must be an even integer >= 2, got 5",
        ),
    ],
)
def test_bad_input(call, exc, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=pattern):
        call()


def test_nthreads_do_not_change_result() -> None:
    rng = np.random.default_rng(15)
    x = rng.normal(size=(16, 256, 64))
    a = rng.normal(size=(256, 32))
    assert_array_equal(rotary.rotate(x, a, nthreads=1), rotary.rotate(x, a, nthreads=2))
