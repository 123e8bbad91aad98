"""The float32 path of the delta rules: the dtype rule, bit-identity over threads and SIMD paths,
bad input, and the accuracy against the float64 path within the first-order rounding bound stated
in ``ropelab.recurrence.delta_product``'s docstring."""

from __future__ import annotations

import numpy as np
import pytest

from ropelab import recurrence, rotary, simd

U32 = 2.0**-24  # unit roundoff of float32
U64 = 2.0**-53


def _inputs(B: int, T: int, n_h: int, d: int, dv: int, gated: bool, rotated: bool, seed: int = 0):  # type: ignore[no-untyped-def]
    """float32 inputs with non-expansive transitions: unit keys, β ∈ [0, 2], α ∈ [0.9, 1]."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((B, T, d))
    k = rng.standard_normal((B, T, n_h, d))
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v = rng.standard_normal((B, T, n_h, dv))
    beta = rng.uniform(0, 2, (B, T, n_h))
    gates = rng.uniform(0.9, 1, (B, T)) if gated else None
    angles = np.cumsum(rng.uniform(-0.5, 0.5, (B, T, d // 2)), axis=1) if rotated else None
    f32 = [None if x is None else x.astype(np.float32) for x in (q, k, v, beta, angles, gates)]
    # unit keys after rounding to float32 (‖k‖² ≤ 1 + O(u): second order in the bound)
    return f32


def _bound(q, k, v, beta, angles, gates, u: float, layout: str = "interleaved") -> np.ndarray:  # type: ignore[no-untyped-def]
    """The first-order bound of delta_product's docstring on |o(float u) − o(exact)|, per output
    element, for one sequence (float64 copies of the inputs; the exact states from a NumPy loop)."""
    q, k, v, beta = (np.asarray(x, np.float64) for x in (q, k, v, beta))
    T, n_h, d = k.shape
    dv = v.shape[-1]
    gd = d * u / (1 - d * u)
    if angles is not None:
        ang = np.asarray(angles, np.float64)
        q = rotary.rotate(q, ang, layout)  # type: ignore[arg-type]
        k = rotary.rotate(k, np.repeat(ang[:, None, :], n_h, axis=1), layout)  # type: ignore[arg-type]
    S = np.zeros((dv, d))
    e = np.zeros(dv)
    E = np.empty((T, dv))
    for t in range(T):
        alpha = 1.0 if gates is None else float(gates[t])
        a = alpha * S
        for j in range(n_h):
            kk, b, vv = k[t, j], beta[t, j], v[t, j]
            nk, na = np.linalg.norm(kk), np.linalg.norm(a, axis=1)
            y = a @ kk
            w = b * (vv - y)
            new = a + np.outer(w, kk)
            ell = b * nk * (gd * na * nk + 2 * u * np.abs(vv - y)) + u * (np.linalg.norm(new, axis=1) + np.abs(w) * nk)
            if j == 0 and gates is not None:
                ell += u * na  # fl(α s)
            if angles is not None:
                ell += u * b * nk * (2 * na * nk + np.abs(vv))  # k̃ rounded to float32
            e += ell
            a = new
        S = a
        nq, ns = np.linalg.norm(q[t]), np.linalg.norm(S, axis=1)
        E[t] = nq * e + (gd + u) * ns * nq + (u * ns * nq if angles is not None else 0.0)
    return E


@pytest.mark.parametrize("T", [1, 17, 256, 1024])
@pytest.mark.parametrize("gated", [False, True])
@pytest.mark.parametrize("rotated", [False, True])
def test_float32_within_the_rounding_bound_of_the_float64_path(T: int, gated: bool, rotated: bool) -> None:
    n_h, d, dv = 1, 16, 12
    q, k, v, beta, angles, gates = _inputs(1, T, n_h, d, dv, gated, rotated, seed=T)
    o32 = recurrence.delta_product(q, k, v, beta, angles, gates)
    o64 = recurrence.delta_product(
        *(None if x is None else x.astype(np.float64) for x in (q, k, v, beta, angles, gates))
    )
    assert o32.dtype == np.float32 and o64.dtype == np.float64
    E = _bound(
        q[0], k[0], v[0], beta[0], None if angles is None else angles[0], None if gates is None else gates[0], U32
    )
    # the float64 result obeys the same bound with u = 2⁻⁵³: the difference is within both
    err = np.abs(o32[0].astype(np.float64) - o64[0])
    assert np.all(err <= E * (1 + U64 / U32)), float(np.max(err / E))
    assert np.max(err) > 0  # the paths differ: float32 really ran
    # and the bound is not vacuous: typical errors are well inside it, but within 10⁴ of it
    assert np.max(err / E) > 1e-4


@pytest.mark.parametrize("n_h", [1, 3])
@pytest.mark.parametrize("rotated", [False, True])
def test_delta_product_float32_bound_several_micro_steps(n_h: int, rotated: bool) -> None:
    q, k, v, beta, angles, gates = _inputs(1, 300, n_h, 8, 20, True, rotated, seed=n_h)
    o32 = recurrence.delta_product(q, k, v, beta, angles, gates, layout="half")
    f64 = [None if x is None else x.astype(np.float64) for x in (q, k, v, beta, angles, gates)]
    o64 = recurrence.delta_product(*f64, layout="half")
    E = _bound(q[0], k[0], v[0], beta[0], None if angles is None else angles[0], gates[0], U32, "half")
    err = np.abs(o32[0].astype(np.float64) - o64[0])
    assert np.all(err <= E * (1 + U64 / U32)), float(np.max(err / E))


@pytest.mark.parametrize("rotated", [False, True])
def test_float32_bit_identical_for_every_thread_count_and_batch_split(rotated: bool) -> None:
    # one sequence: its rows split over the threads (dv = 37: uneven blocks, a partial panel of
    # 16 rows); with angles the rotation is computed once and shared by the blocks
    q, k, v, beta, angles, gates = _inputs(3, 70, 2, 6, 37, True, rotated, seed=5)
    one = recurrence.delta_product(
        q[0], k[0], v[0], beta[0], angles if angles is None else angles[0], gates[0], nthreads=1
    )
    assert one.dtype == np.float32 and np.all(np.isfinite(one)) and np.any(one)
    for nt in (2, 3, 5, 64):
        got = recurrence.delta_product(
            q[0], k[0], v[0], beta[0], angles if angles is None else angles[0], gates[0], nthreads=nt
        )
        assert np.array_equal(got, one), nt
    ref = np.stack(
        [
            recurrence.delta_product(
                q[b], k[b], v[b], beta[b], None if angles is None else angles[b], gates[b], nthreads=1
            )
            for b in range(3)
        ]
    )
    for nt in (1, 2, 4):
        assert np.array_equal(recurrence.delta_product(q, k, v, beta, angles, gates, nthreads=nt), ref), nt


def test_float32_scalar_and_avx2_paths_bit_identical() -> None:
    if "avx2" not in simd.available():
        pytest.skip("no AVX2 on this machine")
    q, k, v, beta, _, gates = _inputs(2, 60, 2, 6, 21, True, False, seed=9)
    out = {}
    for path in ("scalar", "avx2"):
        with simd.using(path):
            out[path] = recurrence.delta_product(q, k, v, beta, gates=gates)
    assert out["scalar"].dtype == np.float32
    assert np.array_equal(out["scalar"], out["avx2"])


def test_the_dtype_rule() -> None:
    rng = np.random.default_rng(2)
    q, k = rng.standard_normal((2, 5, 4)).astype(np.float32)
    v = rng.standard_normal((5, 3)).astype(np.float32)
    beta = np.full(5, 0.5)  # float64 side inputs are rounded to float32 on the float32 path
    assert recurrence.delta_rule(q, k, v, beta).dtype == np.float32
    assert recurrence.delta_rule(q, k, v, beta.astype(np.float32)).dtype == np.float32
    assert np.array_equal(recurrence.delta_rule(q, k, v, beta), recurrence.delta_rule(q, k, v, beta.astype(np.float32)))
    assert recurrence.delta_rule(q, k.astype(np.float64), v, beta).dtype == np.float64  # a mix: float64
    assert recurrence.delta_rule(q.tolist(), k.tolist(), v.tolist(), beta).dtype == np.float64
    assert recurrence.delta_rule(q.astype(np.int64), k, v, beta).dtype == np.float64
    assert recurrence.delta_rule(q.astype(np.float16), k, v, beta).dtype == np.float64
    # the float64 path on the same (exactly widened) inputs agrees to float32 accuracy
    o32 = recurrence.delta_rule(q, k, v, beta)
    o64 = recurrence.delta_rule(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), beta)
    assert np.allclose(o32, o64, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": np.full((6, 4), np.nan, np.float32)}, "k must be finite \\(element 0"),
        ({"v": np.array([[1, 1]] * 5 + [[1, np.inf]], np.float32)}, "v must be finite \\(element 11"),
        ({"q": np.array([[1, 1, 1, 1]] * 5 + [[1, 1, np.nan, 1]], np.float32)}, "q must be finite \\(element 22"),
        ({"beta": np.array([1, 1, 1, np.nan, 1, 1])}, "beta must be finite \\(element 3"),
        ({"gates": np.array([1, 1, 0.5, 1, 2, 1])}, "gates must be in \\[0, 1\\] \\(element 4"),
        ({"gates": np.array([1, np.nan, 0.5, 1, 2, 1])}, "gates must be finite \\(element 1"),
        ({"angles": np.array([[0, 0]] * 5 + [[0, np.inf]])}, "angles must be finite \\(element 11"),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nthreads", [1, 2])
def test_bad_input_names_the_argument_on_both_paths(
    kwargs: dict[str, np.ndarray], message: str, dtype: type, nthreads: int
) -> None:
    args = {"q": np.ones((6, 4)), "k": np.ones((6, 4)) / 2, "v": np.ones((6, 2)), "beta": np.ones(6)}
    args = {name: a.astype(dtype) for name, a in args.items()} | {
        name: a.astype(dtype) if name in ("q", "k", "v") else a for name, a in kwargs.items()
    }
    with pytest.raises(ValueError, match="recurrence.delta_rule: " + message):
        recurrence.delta_rule(
            args["q"], args["k"], args["v"], args["beta"], kwargs.get("angles"), kwargs.get("gates"), nthreads=nthreads
        )


def test_first_fault_in_argument_order_whatever_the_thread_count() -> None:
    # a NaN in v early and in q late: q is reported (argument order), at its first element
    B, T, d, dv = 4, 40, 4, 24
    q, k = np.ones((2, B, T, d))
    v, beta = np.ones((B, T, dv)), np.full((B, T), 0.5)
    k /= 2
    v[0, 1, 3] = np.nan
    q[3, 30, 1] = np.nan
    q[2, 35, 0] = np.inf
    for nt in (1, 2, 3, 8):
        with pytest.raises(ValueError, match=r"q must be finite \(element " + str((2 * T + 35) * d)):
            recurrence.delta_rule(q, k, v, beta, nthreads=nt)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_sequence_split_over_row_blocks_reports_the_first_fault(dtype: str) -> None:
    # one sequence whose rows are split over up to 16 blocks, which share the checks of q and k by
    # slabs of 64 tokens: a fault in any slab is found, and the first one in argument order is named
    T, d, dv = 700, 4, 64
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(2, T, d)).astype(dtype)
    k /= np.linalg.norm(k, axis=-1, keepdims=True)
    v, beta = rng.normal(size=(T, dv)).astype(dtype), np.full(T, 0.5, dtype)
    for token in (0, 63, 64, 130, 517, T - 1):
        for name in ("q", "k"):
            bad = {"q": q.copy(), "k": k.copy()}
            bad[name][token, 2] = np.nan
            bad[name][T - 1, 3] = np.inf  # later: not the one named (except at T - 1 itself)
            for nt in (1, 2, 5, 16):
                with pytest.raises(ValueError, match=rf"{name} must be finite \(element {token * d + 2}\b"):
                    recurrence.delta_rule(bad["q"], bad["k"], v, beta, nthreads=nt)


def test_float32_overflow_names_float32() -> None:
    T = 200
    q, k, v = np.random.default_rng(0).normal(size=(3, T, 4)).astype(np.float32)
    k = (10 * k / np.linalg.norm(k, axis=-1, keepdims=True)).astype(np.float32)  # 1 − β‖k‖² = −49
    with pytest.raises(ValueError, match=r"delta_rule: overflow at step \d+ .*float32 range"):
        recurrence.delta_rule(q, k, v, np.full(T, 0.5, np.float32))
    # the same inputs in float64 stay finite longer (the double range is wider)
    assert np.isfinite(recurrence.delta_rule(q[:20].astype(np.float64), k[:20], v[:20], np.full(20, 0.5))).all()


def test_empty_batch_still_checks_broadcast_side_inputs() -> None:
    q, v = np.ones((0, 3, 5, 4)), np.ones((0, 3, 5, 2))
    k = np.ones((3, 5, 4))
    assert recurrence.delta_rule(q, k, v, np.ones(5)).shape == (0, 3, 5, 2)
    k[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="k must be finite"):
        recurrence.delta_rule(q, k, v, np.ones(5))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_delta_rule_answers_ctrl_c(dtype: str) -> None:
    # one long sequence on one thread (≈ 2 s in float64 at full speed, float32 twice as many
    # tokens: its kernel is about twice as fast, and 2**14 tokens took only 0.44 s on an AVX-512
    # machine, less than the delay): the kernel polls the cancel flag every 64 tokens, the fused
    # checks change nothing there
    from tests._sigint import assert_interrupts, skip_under_sanitizer

    if skip_under_sanitizer.args[0]:
        pytest.skip(skip_under_sanitizer.kwargs["reason"])
    T = 2**14 if dtype == "float64" else 2**15
    assert_interrupts(
        "rl.recurrence.delta_rule(q, k, v, beta, angles, nthreads=1)",
        setup=f"""
        q, k, v = rng.standard_normal((3, {T}, 512), dtype="{dtype}")
        k /= np.linalg.norm(k, axis=-1, keepdims=True)
        beta = rng.uniform(0, 1, {T}).astype("{dtype}")
        angles = np.cumsum(rng.uniform(-0.1, 0.1, ({T}, 256)), axis=0).astype("{dtype}")
        """,
        after='print("after", rl.rotary.rotate(np.ones((1, 2)), np.zeros((1, 1))).tolist())',
        expected_after="[[1.0, 1.0]]",
        delay=0.5,
    )
