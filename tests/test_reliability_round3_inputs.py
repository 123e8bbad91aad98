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


# --- the public registry's KNOWN list, emptied: each entry's call, its exception and message --------

X2 = np.array([0.6, 0.8])
W4 = np.random.default_rng(3).standard_normal((4, 4))
INT64_MAX = 2**63 - 1


def _raises(exc: type[BaseException], call: object, *pieces: str) -> str:
    """``call()`` raises exactly ``exc``; its message contains every piece (function and argument)."""
    assert callable(call)
    with pytest.raises(exc) as e:
        call()
    assert type(e.value) is exc, type(e.value)
    msg = str(e.value)
    for piece in pieces:
        assert piece in msg, (piece, msg)
    return msg


def test_angle_precision_tiny_q_gives_finite_errors() -> None:
    T = Q.shape[0]
    omega = np.full((T, 2), 0.3)
    p = attention.angle_precision(Q * 1e-300, K, omega)
    for a in (p.angle_error, p.score_error, p.angle_max):
        assert np.isfinite(a).all()
    # float32 cannot hold q × 1e-300 (it rounds to 0): the float32 score is 0, so the relative
    # error is |s64| / (‖q_t‖‖k_0‖), the same for Q and Q × 1e-300
    psi = rl.rotary.cumulative_angles(omega, 1.0)
    s64 = rl.rotary.rotate(Q, psi) @ rl.rotary.rotate(K[:1], psi[:1])[0]
    want = np.abs(s64) / (np.linalg.norm(Q, axis=1) * np.linalg.norm(K[0]))
    np.testing.assert_allclose(p.score_error, want, rtol=1e-12)
    zero = Q.copy()
    zero[3] = 0.0
    assert attention.angle_precision(zero, K, omega).score_error[3] == 0.0


@pytest.mark.parametrize("name", ["q", "k"])
def test_angle_precision_refuses_q_or_k_beyond_float32(name: str) -> None:
    omega = np.full((Q.shape[0], 2), 0.3)
    q, k = (Q * 1e300, K) if name == "q" else (Q, K * 1e300)
    msg = _raises(ValueError, lambda: attention.angle_precision(q, k, omega), "attention.angle_precision: ", name)
    assert f"{name} must be representable in float32" in msg and "rotary" not in msg


def test_attention_error_names_itself_for_complex_q() -> None:
    msg = _raises(TypeError, lambda: attention.error(Q + 1j, K, V, 8, rules=("one",), trials=2), "attention.error: q")
    assert "softmax" not in msg


def test_rule_sigma_names_itself_for_complex_xi() -> None:
    msg = _raises(TypeError, lambda: attention.rule_sigma("tan", xi=0.5 + 1j), "attention.rule_sigma: xi")
    assert "paper_sigma" not in msg


@pytest.mark.parametrize("bad", [0.5 + 1j, "yes", 1, None])
def test_derive_verdict_refuses_what_is_not_a_bool(bad: object) -> None:
    _raises(TypeError, lambda: rl.claims.derive_verdict(bad), "derive_verdict: holds_in_general")
    if bad is not None:
        _raises(TypeError, lambda: rl.claims.derive_verdict(False, bad), "derive_verdict: holds_under_condition")
    assert rl.claims.derive_verdict(np.bool_(False), np.bool_(True)) == "holds-if"


@pytest.mark.parametrize(
    "call",
    [
        lambda g: expressivity.element_angles(g),
        lambda g: expressivity.representation(g),
        lambda g: expressivity.track_rotation(g, np.array([[0, 1]])),
        lambda g: expressivity.track_householder(g, np.array([[0, 1]])),
        lambda g: expressivity.track_fixed_rope(g, np.array([[0, 1]])),
        lambda g: expressivity.track_positive_gates(g, np.array([[0, 1]])),
    ],
)
def test_expressivity_names_itself_and_g_for_an_unknown_group(call: object) -> None:
    assert callable(call)
    with pytest.raises(ValueError) as e:
        call("x")
    assert type(e.value) is ValueError
    msg = str(e.value)
    assert msg.split(":")[0] in {
        "element_angles",
        "representation",
        "track_rotation",
        "track_householder",
        "track_fixed_rope",
        "track_positive_gates",
    }
    assert ": g must be 'S2', 'A3', 'S3' or 'Z<n>', got 'x'" in msg and not msg.startswith("group:")


def test_state_tracking_names_group_name() -> None:
    _raises(TypeError, lambda: tasks.state_tracking(1 + 1j, 2, 8), "state_tracking: group_name must be a string")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", ["x", np.eye(2) + 0j])
def test_householder_factors_refuses_strings_and_complex_q(bad: object) -> None:
    _raises(TypeError, lambda: expressivity.householder_factors(bad), "householder_factors: Q must be a real array")  # type: ignore[arg-type]


def test_delta_product_names_itself_for_complex_q() -> None:
    k, v = (K / 4)[:, None], V[:, None]
    msg = _raises(
        TypeError,
        lambda: rl.recurrence.delta_product(Q + 1j, k, v, np.full((8, 1), 0.5)),
        "recurrence.delta_product: q",
    )
    assert "delta_rule" not in msg


def test_delta_transitions_refuses_an_overflowing_key() -> None:
    _raises(
        ValueError,
        lambda: rl.recurrence.delta_transitions(K * 1e300, np.full(8, 0.5)),
        "recurrence.delta_transitions: k and beta",
        "overflows",
    )
    A = rl.recurrence.delta_transitions(K * 1e150, np.full(8, 0.5))  # beta k k^T ~ 1e300: finite
    assert np.isfinite(A).all()


def test_decayed_kernel_attention_names_the_features_for_a_negative_normaliser() -> None:
    _raises(
        ValueError,
        lambda: related.decayed_kernel_attention(-np.abs(Q), np.abs(K), V, np.full(8, 0.9)),
        "related.decayed_kernel_attention: phi_q and phi_k: the normaliser",
    )


def test_report_refuses_bad_width_color_and_figures() -> None:
    results = rl.claims.run(["tables.deltas"])
    _raises(TypeError, lambda: rl.report.terminal(results, width=1 + 1j), "terminal: width")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.report.terminal(results, color=1 + 1j), "terminal: color")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.report.to_html(results, 1 + 1j), "to_html: figures")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.report.to_markdown(results, 1 + 1j), "to_markdown: figures")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.report.to_markdown(results, None, 1 + 1j), "to_markdown: relative_to")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "pieces"),
    [
        (lambda: rl.rff.estimate(X2, X2[::-1], 8, 1.0, trials=INT64_MAX, seed=1), ("rff.estimate: ", "trials=")),
        (lambda: rl.rff.sample_omega(INT64_MAX, 3, 1.0, seed=1), ("rff.sample_omega: ", "D=")),
        (lambda: rl.rff.sample_phase(INT64_MAX, seed=1), ("rff.sample_phase: ", "D=")),
        (lambda: spectra.dpss(16, 2.0, INT64_MAX), ("spectra.dpss: ", "Kmax=")),
    ],
)
def test_outputs_too_large_name_the_argument(call: object, pieces: tuple[str, ...]) -> None:
    _raises(MemoryError, call, *pieces, "the requested output cannot be allocated")


@pytest.mark.parametrize("func", ["moments", "mse"])
def test_rff_overflow_names_q_and_k(func: str) -> None:
    args = (X2 * 1e300, X2[::-1], 8, 1.0) if func == "mse" else (X2 * 1e300, X2[::-1], 1.0)
    _raises(ValueError, lambda: getattr(rl.rff, func)(*args), f"rff.{func}: ", "q and k are too large", "log=True")


def test_primitive_rate_refuses_n_whose_partial_sums_cannot_fit() -> None:
    msg = _raises(
        MemoryError,
        lambda: rl.simd.primitive_rate("uniform", INT64_MAX, repeat=1, nthreads=1),
        "simd.primitive_rate: ",
        "n=",
    )
    assert "bad_alloc" not in msg and "run_primitive" not in msg


def test_primitive_rate_names_itself_for_a_bad_kind() -> None:
    msg = _raises(TypeError, lambda: rl.simd.primitive_rate(1 + 1j, 1024, repeat=1), "simd.primitive_rate: kind")  # type: ignore[arg-type]
    assert "run_primitive" not in msg


@pytest.mark.parametrize("func", ["decay_per_sample", "decay_over_window"])
def test_decays_refuse_n_beyond_int64(func: str) -> None:
    _raises(ValueError, lambda: getattr(spectra, func)(0.5, 2**64), f"{func}: N must fit in 64 bits")


@pytest.mark.parametrize(
    ("call", "pieces"),
    [
        (lambda: spectra.harris_table(2**64, 4), ("harris_table: N must fit in 64 bits",)),
        (lambda: spectra.ssm_window(alpha=0.1, N=2**64), ("ssm_window: N must fit in 64 bits",)),
        (lambda: spectra.harris_table(INT64_MAX, 4), ("harris_table: N must be at most",)),
        (lambda: spectra.ssm_window(alpha=0.1, N=INT64_MAX), ("ssm_window: N must be at most",)),
    ],
)
def test_windows_name_the_function_called_for_n_beyond_int64(call: object, pieces: tuple[str, ...]) -> None:
    msg = _raises(ValueError, call, *pieces)
    assert "spectra.window" not in msg


def test_window_info_and_window_names_refuse_complex() -> None:
    msg = _raises(TypeError, lambda: spectra.window_info(1 + 1j), "spectra.window_info: name")  # type: ignore[arg-type]
    assert "spectra.window:" not in msg
    _raises(TypeError, lambda: spectra.window_names(1 + 1j), "spectra.window_names: aliases must be a bool")  # type: ignore[arg-type]


def test_grid_methods_name_themselves_and_the_argument() -> None:
    g = rl.sweep.Grid.from_mapping({"xi": [0.0, 0.5], "D": [4, 8]})
    _raises(TypeError, lambda: g.cell(1 + 1j), "sweep.Grid.cell: index")  # type: ignore[arg-type]
    _raises(TypeError, lambda: g.cell(True), "sweep.Grid.cell: index")
    _raises(ValueError, lambda: g.cell(4), "sweep.Grid.cell: index must be in [0, 4)")
    _raises(TypeError, lambda: g.column(1 + 1j, [0]), "sweep.Grid.column: name")  # type: ignore[arg-type]
    _raises(ValueError, lambda: g.column("x", [0]), "sweep.Grid.column: name")
    _raises(ValueError, lambda: g.column("xi", [4]), "sweep.Grid.column: indices")
    assert g.column("xi", []).shape == (0,)
    _raises(TypeError, lambda: rl.sweep.Grid.from_mapping(1 + 1j), "sweep.Grid.from_mapping: grid")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.sweep.Grid.from_spec(1 + 1j), "sweep.Grid.from_spec: spec")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.sweep.Grid.from_spec([[1 + 1j]]), "sweep.Grid.from_spec: spec[0]")
    assert rl.sweep.Grid.from_spec(g.spec()) == g


def test_task_methods_and_cell_seed_name_themselves_and_the_argument() -> None:
    t = rl.sweep.tasks()["rff_mse"]
    _raises(TypeError, lambda: t.check_axes(1 + 1j), "sweep.Task.check_axes: names")  # type: ignore[arg-type]
    _raises(TypeError, lambda: t.check_axes("xi"), "sweep.Task.check_axes: names")  # type: ignore[arg-type]
    _raises(TypeError, lambda: t.params(1 + 1j), "sweep.Task.params: cell")  # type: ignore[arg-type]
    _raises(TypeError, lambda: rl.sweep.cell_seed(1 + 1j, 2), "sweep.cell_seed: seed")  # type: ignore[arg-type]
    _raises(ValueError, lambda: rl.sweep.cell_seed(1, 2**64), "sweep.cell_seed: index")
    assert rl.sweep.cell_seed(1, INT64_MAX) == int(rl.sweep._grid.cell_seeds(1, [INT64_MAX])[0])


def test_temperature_curves_name_the_function_called() -> None:
    c = rl.temperature.counterexample(0.5)
    _raises(TypeError, lambda: c.optimal_sigmas(1 + 1j), "Counterexample.optimal_sigmas: Ds")  # type: ignore[arg-type]
    _raises(ValueError, lambda: c.optimal_sigmas((0,)), "Counterexample.optimal_sigmas: Ds")
    msg = _raises(
        TypeError,
        lambda: rl.temperature.mse_curve(0.5 + 1j, 4, np.array([0.5, 1.0]), d=4, trials=2),  # type: ignore[arg-type]
        "mse_curve: xi",
    )
    assert "unit_pair" not in msg
    _raises(ValueError, lambda: rl.temperature.mse_curve(0.5, 4, np.array([-1.0]), d=4, trials=2), "mse_curve: sigmas")


def test_prf_transition_factor_refuses_an_overflowing_factor() -> None:
    _raises(
        ValueError,
        lambda: rl.transition.prf_transition_factor(Q * 1e300, W4),
        "transition.prf_transition_factor: q and omega",
        "overflows",
    )
