"""Issue 25, regression tests of the bullets "errors that do not name the argument", "allocation
before the size check", "invalid input accepted" and "dtype variants that differ"."""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl
from ropelab import attention, expressivity, extrapolation, related, selective, spectra, tasks

RNG = np.random.default_rng(2025)
Q, K, V = RNG.normal(size=(3, 8, 4))
ANGLES = np.cumsum(RNG.normal(size=(8, 2)), axis=0)
HUGE_ROWS = np.broadcast_to(np.float64(0.5), (2**38, 4))  # 2**40 elements, zero strides


def _weights(**kw: object) -> selective.SelectiveWeights:
    r = np.random.default_rng(1)
    return selective.SelectiveWeights(
        r.standard_normal((4, 8)), r.standard_normal((4, 4)), np.array([1.0, 0.01]), num_heads=2, **kw
    )


# --- errors name the function and the argument --------------------------------------------------


@pytest.mark.parametrize("func", ["softmax", "random_feature", "error"])
@pytest.mark.parametrize("name", ["q", "k"])
def test_a_bad_q_or_k_with_angles_is_named_as_such(func: str, name: str) -> None:
    bad = Q.copy()
    bad[2, 1] = np.nan
    q, k = (bad, K) if name == "q" else (Q, bad)
    args = (q, k, V) if func == "softmax" else (q, k, V, 8)
    with pytest.raises(ValueError, match=rf"^attention.{func}: {name} must be finite") as e:
        getattr(attention, func)(*args, angles=ANGLES)
    assert "rotary.rotate" not in str(e.value)


@pytest.mark.parametrize(
    ("call", "func"),
    [
        (lambda: related.fox(Q * 1e160, K * 1e160, V, np.full(8, 0.9)), "related.fox"),
        (lambda: related.alibi(Q[None] * 1e160, K[None] * 1e160, V[None], [0.5]), "related.alibi"),
    ],
)
def test_a_logit_overflow_of_alibi_and_fox_names_them_and_q_k(call, func) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=rf"^{func}: a logit .*rescale q, k") as e:
        call()
    assert "bias" not in str(e.value)


# --- sizes checked before any allocation or copy ------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: attention.softmax(HUGE_ROWS, HUGE_ROWS, HUGE_ROWS, causal=False), "softmax: q"),
        (lambda: attention.mean_cosine(HUGE_ROWS, HUGE_ROWS), "mean_cosine: q"),
        (lambda: attention.softmax(Q, K, V, angles=np.broadcast_to(0.0, (2**38, 2))), "softmax"),
        (lambda: rl.rotary.rotate(HUGE_ROWS, np.zeros((1, 2))), "rotate: x"),
        (lambda: related.fox_bias(np.broadcast_to(0.5, (2**40,))), "fox_bias: gates"),
        (lambda: related.exp_kernel_features(HUGE_ROWS), "exp_kernel_features: x"),
        (lambda: selective.angles(np.broadcast_to(0.5, (2**37, 8)), _weights()), "angles: hidden"),
        (
            lambda: expressivity.accuracy(np.broadcast_to(0, (2**20, 2**20)), np.broadcast_to(0, (2**20, 2**20))),
            "predicted",
        ),
        (lambda: extrapolation.scaled_frequencies(2**40), "scaled_frequencies: d"),
        (lambda: selective.SelectiveState(_weights(), 2**40), "SelectiveState: batch"),
        (lambda: selective.SelectiveState(_weights(), 2**31), "SelectiveState: batch"),
        (lambda: related.alibi_slopes(2**40), "alibi_slopes: H"),
        (lambda: related.alibi_bias(2**31, [0.5]), "alibi_bias: T"),
        (lambda: selective.rotary_temperature("rope", 1e4, 2**40), "rotary_temperature: head_dim"),
    ],
)
def test_sizes_beyond_memory_are_refused_before_allocating(call, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((MemoryError, ValueError), match=match) as e:
        call()
    assert "Unable to allocate" not in str(e.value)


def test_a_sweep_whose_table_cannot_fit_is_refused_before_it_starts(tmp_path) -> None:  # type: ignore[no-untyped-def]
    grid = {"D": list(range(1, 2001)), "sigma": list(np.linspace(0.1, 2, 2000)), "xi": list(np.linspace(0, 1, 2000))}
    with pytest.raises(MemoryError, match="sweep.run: grid"):
        rl.sweep.run("rff_mse", grid, trials=2, store=tmp_path / "s", progress=False)
    assert not (tmp_path / "s").exists()


# --- invalid input refused -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: attention.mean_cosine(Q + 1j, K), "mean_cosine: q"),
        (lambda: attention.mean_cosine(Q, K + 1j), "mean_cosine: k"),
        (lambda: attention.angle_precision(Q + 1j, K, np.full((8, 2), 0.1)), "angle_precision: q"),
        (lambda: attention.angle_precision(Q, K, np.full((8, 2), 0.1) + 0j), "angle_precision: omega"),
        (
            lambda: selective.apply(
                RNG.normal(size=(6, 2, 4)) + 1j, RNG.normal(size=(6, 2, 4)), RNG.normal(size=(6, 8)), _weights()
            ),
            "apply: q",
        ),
        (lambda: selective.angles(RNG.normal(size=(6, 8)) + 1j, _weights()), "selective.angles: hidden"),
        (lambda: selective.rotary_temperature("rope", True, 4), "rotary_temperature: theta"),
        (lambda: selective.rotary_temperature("rope", 1e4, 4, 1 + 0j), "rotary_temperature: temp_max"),
        (lambda: tasks.mqar(2, 16, 2, 8, stream=True), "mqar: stream"),
        (lambda: tasks.copying(2, 8, 4, stream=True), "copying: stream"),
        (lambda: tasks.mqar(2, 16, 2, 8, seed=True), "mqar: seed"),
        (
            lambda: expressivity.track_householder("S3", np.zeros((1, 4), dtype=int), seed=None),
            "track_householder: seed",
        ),  # type: ignore[arg-type]
        (
            lambda: expressivity.track_householder("S3", np.zeros((1, 4), dtype=int), seed=True),
            "track_householder: seed",
        ),
        (lambda: spectra.window("kaiser", 16, beta=True), "window: beta"),
        (lambda: spectra.window("kaiser", 16, beta=np.True_), "window: beta"),
        (lambda: _weights(eps=True), "SelectiveWeights: eps"),
        (lambda: _weights(eps=np.array([1e-6])), "SelectiveWeights: eps"),
    ],
)
def test_invalid_input_is_refused_naming_the_argument(call, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises((TypeError, ValueError), match=match):
        call()


@pytest.mark.parametrize("size", [2**63, 2**64])
def test_unbounded_sizes_are_refused_not_empty(size: int) -> None:
    with pytest.raises((ValueError, MemoryError), match="rotary_temperature: head_dim"):
        selective.rotary_temperature("rope", 1e4, size)
    with pytest.raises((ValueError, MemoryError), match="alibi_slopes: H"):
        related.alibi_slopes(size)


def test_angle_precision_refuses_nan_in_k() -> None:
    k = K.copy()
    k[3, 0] = np.nan
    with pytest.raises(ValueError, match="angle_precision: k must be finite"):
        attention.angle_precision(Q, k, np.full((8, 2), 0.1))


def test_the_taylor_norm_flag_still_takes_a_bool() -> None:
    assert spectra.window("taylor", 8, norm=False).shape == (8,)
    assert spectra.window("taylor", 8, norm=np.True_).shape == (8,)


# --- dtype variants agree -------------------------------------------------------------------------


@pytest.mark.parametrize("func", ["softmax", "random_feature"])
def test_float32_q_with_angles_is_rotated_in_float64(func: str) -> None:
    q32 = Q.astype(np.float32)
    extra = () if func == "softmax" else (8,)
    a = getattr(attention, func)(q32, K, V, *extra, angles=ANGLES)
    b = getattr(attention, func)(q32.astype(np.float64), K, V, *extra, angles=ANGLES)
    np.testing.assert_array_equal(a, b)


def test_attention_error_with_numpy_integer_trials() -> None:
    a = attention.error(Q, K, V, np.int8(8), rules=("one",), trials=np.int8(2))
    b = attention.error(Q, K, V, 8, rules=("one",), trials=2)
    np.testing.assert_array_equal(a.stderr, b.stderr)
    np.testing.assert_array_equal(a.mean, b.mean)
    assert type(a.trials) is int


@pytest.mark.parametrize("seconds", [np.float32(1), np.int64(1), np.float64(1.0)])
def test_reports_take_numpy_seconds(seconds: object) -> None:
    from ropelab import report

    r = rl.claims.run(["rope.relative"])
    assert report.to_json(r, seconds=seconds) == report.to_json(r, seconds=1.0)
    assert report.summary_line(r, seconds) == report.summary_line(r, 1.0)
    with pytest.raises(TypeError, match="to_json: seconds"):
        report.to_json(r, seconds=True)


def _task(params: dict[str, float], *, trials: object, seed: int, nthreads: int) -> dict[str, float]:
    return {"y": float(params["x"])}


def test_register_task_takes_numpy_bools() -> None:
    t = rl.sweep.register_task(
        "reg_np_bool", _task, axes={"x": 1.0}, outputs=["y"], monte_carlo=np.False_, replace=True
    )
    assert t.monte_carlo is False


def test_selective_weights_eps_is_a_float_of_its_own() -> None:
    w = _weights(eps=np.float32(1e-6))
    assert type(w.eps) is float and w.eps == float(np.float32(1e-6))
    assert type(_weights(eps=np.array(1e-6)).eps) is float
