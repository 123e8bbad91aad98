"""ropelab.transition: effective transitions, commutators, norms, Householder, PRF factor
(MATH.md §4). Tolerances: EPS times the number of O(1) terms per entry (≤ d) unless stated."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from numpy.testing import assert_allclose

import ropelab as rl
from ropelab import rotary, transition

EPS = np.finfo(np.float64).eps
LAYOUTS = ["interleaved", "half"]
DIMS = [2, 6, 32]


def test_doctests() -> None:
    res = doctest.testmod(transition, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 10 and res.failed == 0


def random_case(seed: int, d: int, gate: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | float]:
    rng = np.random.default_rng(seed)
    pp, pt = rng.uniform(-10, 10, size=(2, d // 2))
    g: np.ndarray | float
    if gate == "scalar":
        g = float(rng.uniform(0.2, 1.0))
    elif gate == "pair":
        g = rng.uniform(0.2, 1.0, size=d // 2)
    else:
        g = rng.uniform(0.2, 1.0, size=d)
    return pp, pt, g


def dense_gate(g: np.ndarray | float, d: int, layout: str) -> np.ndarray:
    """diag(Λ) in channel order for a scalar / per-pair / per-channel gate."""
    g = np.asarray(g, dtype=float)
    if g.size == d:
        return g
    if g.size == 1:
        return np.full(d, float(g.reshape(-1)[0]))
    return np.repeat(g, 2) if layout == "interleaved" else np.concatenate([g, g])


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", DIMS)
@pytest.mark.parametrize("gate", ["scalar", "pair", "channel"])
def test_effective_definition_and_norm(layout: str, d: int, gate: str) -> None:
    pp, pt, g = random_case(d, d, gate)
    A = transition.effective(pp, pt, g, layout)
    lam = dense_gate(g, d, layout)
    want = rotary.rotation_matrix(pp, layout).T @ np.diag(lam) @ rotary.rotation_matrix(pt, layout)
    assert_allclose(A, want, rtol=0, atol=8 * EPS * d)  # ≤ d O(1) products per entry
    # ‖A^eff‖₂ = ‖Λ‖₂ = max decay, always (orthogonal factors).
    assert abs(transition.spectral_norm(A) - lam.max()) < 16 * EPS * d
    assert abs(np.linalg.norm(A, 2) - lam.max()) < 16 * EPS * d  # NumPy's SVD agrees


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", DIMS)
def test_effective_equals_lambda_R_for_pair_shared_gates(layout: str, d: int) -> None:
    for gate in ("scalar", "pair"):
        pp, pt, g = random_case(d + 1, d, gate)
        A = transition.effective(pp, pt, g, layout)
        LR = np.diag(dense_gate(g, d, layout)) @ rotary.rotation_matrix(pt - pp, layout)
        # R(ψ_t − ψ_{t−1}) vs R(ψ_{t−1})ᵀR(ψ_t): angle difference rounding ~EPS·|ψ| ≤ 10·EPS.
        assert_allclose(A, LR, rtol=0, atol=64 * EPS * d)
        assert transition.commutator_norm(pp, g, layout) < 16 * EPS * d
    # No gate: A^eff = R_t exactly a rotation by the phase increment.
    assert_allclose(
        transition.effective(pp, pt, None, layout), rotary.rotation_matrix(pt - pp, layout), rtol=0, atol=64 * EPS * d
    )


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("d", DIMS)
def test_effective_differs_from_lambda_R_for_per_channel_gate(layout: str, d: int) -> None:
    rng = np.random.default_rng(50 + d)
    pp = rng.uniform(0.3, 1.2, size=d // 2)  # sin ψ_{t−1} bounded away from 0
    pt = pp + rng.normal(size=d // 2)
    g = rng.uniform(0.2, 1.0, size=d)
    # In layout order the two decays of pair i are g[c0], g[c1]; make pair 0's clearly distinct.
    c1 = 1 if layout == "interleaved" else d // 2
    g[0], g[c1] = 0.9, 0.3
    A = transition.effective(pp, pt, g, layout)
    LR = np.diag(g) @ rotary.rotation_matrix(pt - pp, layout)
    assert np.abs(A - LR).max() > 0.05
    # The commutator ‖[Λ, C_{t−1}]‖₂ = max_i |λ_a − λ_b| |sin ψ_i| (block-diagonal closed form).
    h = d // 2
    la, lb = (g[0::2], g[1::2]) if layout == "interleaved" else (g[:h], g[h:])
    want = np.max(np.abs(la - lb) * np.abs(np.sin(pp)))
    assert abs(transition.commutator_norm(pp, g, layout) - want) < 16 * EPS * d
    fro = np.sqrt(2 * np.sum((la - lb) ** 2 * np.sin(pp) ** 2))
    assert abs(transition.commutator_norm(pp, g, layout, norm="fro") - fro) < 16 * EPS * d
    # ... and the norm identity still holds although A^eff ≠ ΛR.
    assert abs(transition.spectral_norm(A) - g.max()) < 16 * EPS * d


def test_effective_sequence_shapes_and_first_step() -> None:
    rng = np.random.default_rng(60)
    angles = rng.normal(size=(5, 3))
    g = rng.uniform(0.5, 1, size=(5, 6))
    A = transition.effective_sequence(angles, g, "half")
    assert A.shape == (5, 6, 6)
    assert_allclose(A[0], transition.effective(np.zeros(3), angles[0], g[0], "half"), rtol=0, atol=0)
    assert_allclose(A[3], transition.effective(angles[2], angles[3], g[3], "half"), rtol=0, atol=0)


def test_batched_transitions_keep_leading_shape() -> None:
    rng = np.random.default_rng(62)
    pp, pt = rng.normal(size=(2, 2, 3, 4))
    g = rng.uniform(0.2, 1.0, size=(3, 8))  # broadcast over the leading 2
    A = transition.effective(pp, pt, g, "half")
    assert A.shape == (2, 3, 8, 8)
    for i, j in np.ndindex(2, 3):
        assert_allclose(A[i, j], transition.effective(pp[i, j], pt[i, j], g[j], "half"), rtol=0, atol=0)
    c = transition.commutator_norm(pp, g)
    assert c.shape == (2, 3)
    assert c[1, 2] == transition.commutator_norm(pp[1, 2], g[2])
    assert isinstance(transition.commutator_norm(pp[0, 0], 0.5), float)
    w = rng.normal(size=(2, 5, 3))
    H = transition.householder(w)
    assert H.shape == (2, 5, 3, 3)
    assert_allclose(H[1, 4], transition.householder(w[1, 4]), rtol=0, atol=0)
    assert transition.generalized_householder(w, 0.5).shape == (2, 5, 3, 3)
    P = transition.householder_product(w)
    assert P.shape == (2, 3, 3)
    assert_allclose(P[1], transition.householder_product(w[1]), rtol=0, atol=0)
    q = rng.normal(size=(4, 6, 3))
    om = rng.normal(size=(5, 3))
    f = transition.prf_transition_factor(q, om)
    assert f.shape == (4, 5, 5)
    assert_allclose(f[3], transition.prf_transition_factor(q[3], om), rtol=0, atol=0)


def test_singular_values_and_eigenvalues_against_numpy() -> None:
    rng = np.random.default_rng(61)
    A = rng.normal(size=(3, 2, 5, 4))
    sv = transition.singular_values(A)
    assert sv.shape == (3, 2, 4)
    # One-sided Jacobi vs LAPACK's bidiagonal SVD: both backward stable, agree to EPS·‖A‖·n.
    assert_allclose(sv, np.linalg.svd(A, compute_uv=False), rtol=0, atol=64 * EPS * np.abs(A).max() * 5)
    assert_allclose(transition.spectral_norm(A), np.linalg.norm(A, 2, axis=(-2, -1)), rtol=64 * EPS * 5)
    B = rng.normal(size=(4, 6, 6))
    ev = transition.eigenvalues(B)
    assert ev.shape == (4, 6) and ev.dtype == np.complex128
    for i in range(4):
        ref = np.linalg.eigvals(B[i])
        # Match each eigenvalue to its nearest NumPy one (well-separated for random matrices).
        for z in ev[i]:
            assert np.min(np.abs(ref - z)) < 1e-10 * np.abs(ref).max()
        assert np.all(np.diff(np.abs(ev[i])) <= 1e-12)  # sorted by decreasing modulus
    # A rotation's eigenvalues sit on the unit circle at e^{±iθ}.
    ev = transition.eigenvalues(rotary.rotation_matrix([0.4, 1.3]))
    assert_allclose(np.abs(ev), 1.0, rtol=0, atol=8 * EPS)
    assert_allclose(np.sort(np.abs(np.angle(ev))), [0.4, 0.4, 1.3, 1.3], rtol=0, atol=64 * EPS)


@pytest.mark.parametrize("d", [2, 3, 8, 20])
def test_householder_reflection_and_composition(d: int) -> None:
    rng = np.random.default_rng(70 + d)
    w1, w2 = rng.normal(size=(2, d))
    H = transition.householder(w1)
    assert_allclose(H @ H.T, np.eye(d), rtol=0, atol=16 * EPS * d)  # orthogonal
    assert_allclose(H, H.T, rtol=0, atol=0)  # symmetric
    assert_allclose(H @ w1, -w1, rtol=0, atol=16 * EPS * d * np.abs(w1).max())
    # H(w2)H(w1) is a rotation by twice the angle from w1 to w2, in their plane.
    P = transition.householder_product(np.stack([w1, w2]))
    assert_allclose(P, transition.householder(w2) @ H, rtol=0, atol=16 * EPS * d)
    e1 = w1 / np.linalg.norm(w1)
    u = w2 - (w2 @ e1) * e1
    e2 = u / np.linalg.norm(u)
    phi = np.arctan2(w2 @ e2, w2 @ e1)
    budget = 64 * EPS * d
    assert_allclose(P @ e1, np.cos(2 * phi) * e1 + np.sin(2 * phi) * e2, rtol=0, atol=budget)
    assert_allclose(P @ e2, -np.sin(2 * phi) * e1 + np.cos(2 * phi) * e2, rtol=0, atol=budget)
    if d > 2:  # the orthogonal complement is fixed
        x = rng.normal(size=d)
        x -= (x @ e1) * e1 + (x @ e2) * e2
        assert_allclose(P @ x, x, rtol=0, atol=budget * np.abs(x).max())
    if d == 2:  # in 2-D: exactly rotation_matrix(2φ)
        assert_allclose(P, rotary.rotation_matrix([2 * phi]), rtol=0, atol=budget)
    assert np.linalg.det(P) == pytest.approx(1.0, abs=budget)


def test_generalized_householder_norm_preserving_only_for_beta_0_or_2() -> None:
    rng = np.random.default_rng(80)
    d = 7
    w = rng.normal(size=d)
    wh = w / np.linalg.norm(w)
    x = rng.normal(size=(50, d))
    for beta in (0.0, 2.0):
        G = transition.generalized_householder(w, beta)
        assert_allclose(np.linalg.norm(x @ G.T, axis=1), np.linalg.norm(x, axis=1), rtol=32 * EPS * d)
    for beta in (-0.5, 0.5, 1.0, 1.5, 2.5, 3.0):
        G = transition.generalized_householder(w, beta)
        # Eigenvalue 1 − β along ŵ, 1 elsewhere.
        assert_allclose(G @ wh, (1 - beta) * wh, rtol=0, atol=16 * EPS * d)
        assert abs(np.linalg.norm(G @ wh) - 1.0) > 0.4  # not norm preserving
        ev = transition.eigenvalues(G)
        assert np.min(np.abs(ev - (1 - beta))) < 1e-12
        # ‖G‖₂ = max(1, |1 − β|) ≤ 1 iff β ∈ [0, 2].
        assert abs(transition.spectral_norm(G) - max(1.0, abs(1 - beta))) < 16 * EPS * d
        assert (transition.spectral_norm(G) <= 1 + 16 * EPS * d) == (0 <= beta <= 2)
    assert_allclose(transition.generalized_householder(w, 2.0), transition.householder(w), rtol=0, atol=0)


def test_prf_transition_factor_distribution() -> None:
    """e^{ω·Δq}: log-normal, mean e^{σ²‖Δq‖²/2} > 1, exceeds 1 half the time (not bounded by 1)."""
    rng = np.random.default_rng(90)
    d, D, sigma = 4, 200_000, 0.8
    q = np.stack([np.zeros(d), rng.normal(scale=0.3, size=d)])
    omega = rl.rff.sample_omega(D, d, sigma=sigma, seed=91)
    f = transition.prf_transition_factor(q, omega)
    assert f.shape == (1, D)
    dist = transition.prf_factor_distribution(float(np.linalg.norm(q[1] - q[0])), sigma)
    se_mean = np.sqrt(dist.variance / D)
    assert abs(f.mean() - dist.mean) < 5 * se_mean  # 5 standard errors, fixed seed
    p = np.mean(f > 1)
    assert abs(p - dist.prob_gt_one) < 5 * np.sqrt(0.25 / D)
    assert f.max() > 1 and dist.mean > 1 and dist.median == 1.0
    # Direct evaluation of the definition for a few rows.
    qq = rng.normal(size=(5, d))
    assert_allclose(
        transition.prf_transition_factor(qq, omega[:3]), np.exp((qq[1:] - qq[:-1]) @ omega[:3].T), rtol=16 * EPS * d
    )
    z = transition.prf_factor_distribution(0.0, 1.0)
    assert z.mean == 1.0 and z.variance == 0.0 and z.prob_gt_one == 0.0


def test_prf_transition_factor_overflow_on_the_way_is_never_nan() -> None:
    # ω·Δq whose differences or products overflow a double (inf − inf in the direct sum) is
    # evaluated again at a power-of-two scale; checked against exact rational arithmetic. A factor
    # beyond the double range is refused (ValueError naming q and omega), never inf or NaN.
    from fractions import Fraction

    cases = [
        ([[1e308, 1e308, 0.0], [0.0, 0.0, 0.0]], [[-2.0, 2.0, 2.0]]),  # found by hypothesis: 1
        ([[0.0, 0.0, 0.0], [1e308, 1e308, 1.0]], [[2.0, -2.0, 1.0]]),  # the small term decides: e
        ([[-1e308], [1e308]], [[-1.0], [-1e-300]]),  # Δ itself overflows: 0, e^(-2e8) = 0
        ([[-1e308], [1e308]], [[1.0], [-1.0], [1e-300]]),  # inf, 0, e^(2e8) = inf: refused
        ([[-1e308, 3.0], [1e308, 5.0]], [[1e-308, 0.5], [-1e-308, 0.25]]),  # e^(2 + 1), e^(-2 + 0.5)
    ]
    for q, omega in cases:
        expected = []
        for w in omega:
            exact = sum(Fraction(wc) * (Fraction(a) - Fraction(b)) for wc, a, b in zip(w, q[1], q[0]))
            s = float(exact) if abs(exact) < 1e300 else float("inf") * (1 if exact > 0 else -1)
            expected.append(math.inf if s > 709.79 else (0.0 if s < -745.2 else math.exp(s)))
        if math.inf in expected:
            with pytest.raises(ValueError, match=r"^transition\.prf_transition_factor: q and omega: .* overflows"):
                transition.prf_transition_factor(q, omega)
            continue
        f = transition.prf_transition_factor(q, omega)
        assert np.isfinite(f).all()
        assert_allclose(f[0], expected, rtol=16 * EPS)


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (
            lambda: transition.effective([0.0], [0.0, 1.0], 0.5),
            ValueError,
            r"effective: angles_prev and angles must have the same shape.*\(1,\).*\(2,\)",
        ),
        (
            lambda: transition.effective([0.0], [1.0], [0.5, 0.5, 0.5]),
            ValueError,
            r"gates must be a scalar or have shape \(\.\.\., 1\), \(\.\.\., d/2\) = \(\.\.\., 1\) or \(\.\.\., d\) = \(\.\.\., 2\).*\(3,\)",
        ),
        (lambda: transition.effective([0.0], [1.0], 1.2), ValueError, r"gates must be decays in \[0, 1\].*1\.2"),
        (lambda: transition.effective([0.0], [1.0], -0.2), ValueError, r"gates must be decays in \[0, 1\].*-0\.2"),
        (lambda: transition.effective([0.0], [1.0], np.nan), ValueError, r"gates must be finite"),
        (lambda: transition.effective([0.0], [1.0], 0.5, "zigzag"), ValueError, r"layout.*'zigzag'"),
        (lambda: transition.effective([], [], 0.5), ValueError, r"angles_prev must have at least one angle"),
        (
            lambda: transition.effective_sequence(np.zeros((3, 2)), np.ones((2, 4))),
            ValueError,
            r"gates must have shape \(T, 1\).*T = 3.*\(2, 4\)",
        ),
        (lambda: transition.commutator_norm([0.0], 0.5, norm="nuc"), ValueError, r"norm.*'nuc'"),
        (lambda: transition.eigenvalues(np.ones((2, 3))), ValueError, r"eigenvalues: A must be square.*\(2, 3\)"),
        (
            lambda: transition.spectral_norm(np.ones(3)),
            ValueError,
            r"spectral_norm: A must have shape \(\.\.\., m, n\)",
        ),
        (
            lambda: transition.householder([0.0, 0.0]),
            ValueError,
            r"householder: w must be non-zero vectors.*vector 0 is zero",
        ),
        (
            lambda: transition.householder_product([[1.0, 0.0], [0.0, 0.0]]),
            ValueError,
            r"W must be non-zero vectors.*vector 1 is zero",
        ),
        (lambda: transition.generalized_householder([1.0], np.inf), ValueError, r"beta must be finite"),
        (
            lambda: transition.prf_transition_factor(np.ones((3, 2)), np.ones((4, 3))),
            ValueError,
            r"omega must have shape \(D, d\)",
        ),
        (lambda: transition.prf_factor_distribution(-1.0), ValueError, r"delta_norm must be >= 0, got -1\.0"),
        (
            lambda: transition.effective(np.zeros((2, 3)), np.zeros((2, 3)), np.full((4, 3), 0.5)),
            ValueError,
            r"gates leading .*\(2,\).*\(4,\)",
        ),
        (
            lambda: transition.householder(np.ones((2, 0))),
            ValueError,
            r"householder: w must have at least one component",
        ),
    ],
)
def test_bad_input(call, exc, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=pattern):
        call()
