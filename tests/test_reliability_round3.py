"""Reliability round 3 (issue 25): nothing silent, nothing hangs, every error names its argument."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ropelab as rl
from ropelab import attention, expressivity, recurrence, temperature

RNG = np.random.default_rng(25)
Q, K, V = RNG.normal(size=(3, 20, 4))
ANGLES = np.cumsum(RNG.normal(size=(20, 2)), axis=0)
GATES = RNG.uniform(size=20)

# ---------------------------------------------------------------------------------------------
# A. No silent NaN/inf from finite input: computed correctly or refused with the argument named
# ---------------------------------------------------------------------------------------------


def test_delta_rule_with_a_growing_transition_raises_at_the_step_it_overflows() -> None:
    T = 400
    q, k, v = np.random.default_rng(0).normal(size=(3, T, 4))
    k = 10 * k / np.linalg.norm(k, axis=-1, keepdims=True)  # 1 − β‖k‖² = −49
    with pytest.raises(ValueError, match=r"delta_rule: overflow at step \d+ .*beta \|k\|\^2.*normalise the keys k"):
        recurrence.delta_rule(q, k, v, np.full(T, 0.5))
    # the first steps are finite: the prefix that does not overflow computes
    assert np.isfinite(recurrence.delta_rule(q[:100], k[:100], v[:100], np.full(100, 0.5))).all()


@pytest.mark.parametrize(
    "call",
    [
        lambda: recurrence.delta_rule(Q, K * 1e50, V, np.full(20, 0.5)),
        lambda: recurrence.delta_product(Q, (K * 1e50)[:, None], V[:, None], np.full((20, 1), 0.5)),
    ],
)
def test_delta_rule_with_huge_keys_raises(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"overflow at step \d+.*keys k or reduce beta"):
        call()


BIG = 1e160  # q·k ~ 1e320 overflows a double


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (
            lambda: recurrence.linear_attention(
                Q, K, V, 1e200 * np.broadcast_to(np.eye(4), (20, 4, 4)), mode="unrolled"
            ),
            "linear_attention",
        ),
        (
            lambda: recurrence.linear_attention(Q, K, V, 1e200 * np.broadcast_to(np.eye(4), (20, 4, 4))),
            "linear_attention",
        ),
        (lambda: recurrence.linear_attention(Q * BIG, K * BIG, V), "linear_attention"),
        (lambda: recurrence.selective_rope_attention(Q * BIG, K * BIG, V, ANGLES), "selective_rope_attention"),
        (lambda: recurrence.fox_attention(Q * BIG, K * BIG, V, GATES), "fox_attention"),
        (lambda: recurrence.fox_attention(Q * BIG, K * BIG, V, GATES, "recurrent"), "fox_attention"),
        (lambda: recurrence.alibi_attention(Q * BIG, K * BIG, V, 0.3), "alibi_attention"),
        (lambda: recurrence.alibi_attention(Q * BIG, K * BIG, V, 0.3, "recurrent"), "alibi_attention"),
        (lambda: recurrence.softmax_attention(Q * BIG, K * BIG, V), "softmax_attention"),
    ],
)
def test_recurrences_that_overflow_raise_naming_the_arguments(call, name) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=rf"{name}: overflow at step \d+ .*rescale .*q, k"):
        call()


def test_softmax_attention_with_huge_but_finite_logits_subtracts_the_maximum() -> None:
    out = recurrence.softmax_attention(Q, K * 1e150, V)  # logits ~1e150: exp would overflow
    assert np.isfinite(out).all()
    # each row is one of the values (a hard maximum) or an average of them
    assert np.abs(out).max() <= np.abs(V).max() + 1e-12


def test_attention_softmax_names_an_overflowing_logit_not_a_mask() -> None:
    with pytest.raises(ValueError, match=r"attention.softmax: a logit scale \* q.k of query row 0 .*rescale q, k"):
        attention.softmax(Q * BIG, K * BIG, V)
    out = attention.softmax(Q, K * 1e150, V)  # huge finite logits: the maximum is subtracted
    assert np.isfinite(out).all()


@pytest.mark.parametrize("mode", ["direct", "recurrent"])
def test_cosformer_with_a_subnormal_period_names_M(mode: str) -> None:
    with pytest.raises(ValueError, match=r"cosformer_attention: M is too small.*got 5e-324"):
        recurrence.cosformer_attention(Q, K, V, M=5e-324, mode=mode)  # type: ignore[arg-type]


def test_attention_error_with_values_near_the_top_of_the_double_range() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        big = attention.error(Q, K, V * 1e200, [4, 8], rules=("one",), trials=4)
    small = attention.error(Q, K, V, [4, 8], rules=("one",), trials=4)
    assert np.isfinite(big.mean).all()
    np.testing.assert_allclose(big.mean, small.mean, rtol=1e-12)


@pytest.mark.parametrize("name", ["q", "k"])
def test_mean_cosine_refuses_nan_naming_the_argument(name: str) -> None:
    bad = Q.copy()
    bad[3, 1] = np.nan
    args = (bad, K) if name == "q" else (Q, bad)
    with pytest.raises(ValueError, match=rf"mean_cosine: {name} must be finite"):
        attention.mean_cosine(*args)


def test_mean_cosine_of_huge_and_tiny_rows_does_not_overflow() -> None:
    ref = attention.mean_cosine(Q, K)
    assert attention.mean_cosine(Q * 1e200, K * 1e-200) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize(("tol", "exc"), [(-1, ValueError), (np.nan, ValueError), ("0", TypeError), (True, TypeError)])
def test_householder_factors_refuses_a_bad_tolerance(tol, exc) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match="householder_factors: tol"):
        expressivity.householder_factors(np.eye(4), tol=tol)


@pytest.mark.parametrize("squared", [False, True])
def test_rfa_spectrum_with_a_subnormal_theta_max(squared: bool) -> None:
    tiny = temperature.spectrum(16, "rfa", theta_max=5e-324, squared=squared)
    small = temperature.spectrum(16, "rfa", theta_max=1e-9, squared=squared)
    assert np.isfinite(tiny).all()
    np.testing.assert_allclose(tiny, small, rtol=1e-15)


def test_the_module_is_importable() -> None:
    assert rl.recurrence is recurrence


# ---------------------------------------------------------------------------------------------
# B. Causal stabilisation of random-feature attention: a running maximum per causal prefix
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("estimator", ["trig", "positive", "hyperbolic"])
@pytest.mark.parametrize("D", [64, 300])  # one feature group, three
def test_a_large_key_does_not_touch_the_rows_before_it(estimator: str, D: int) -> None:
    rng = np.random.default_rng(0)
    q, k, v = 0.5 * rng.normal(size=(3, 128, 8))
    k[20] *= 60
    full = attention.random_feature(q, k, v, D, estimator=estimator, trials=2, seed=1)  # type: ignore[arg-type]
    prefix = attention.random_feature(q[:20], k[:20], v[:20], D, estimator=estimator, trials=2, seed=1)  # type: ignore[arg-type]
    np.testing.assert_array_equal(full[:, :20], prefix)
    assert np.isfinite(full).all()


@pytest.mark.parametrize("estimator", ["trig", "positive"])
def test_causal_stabilised_random_features_are_bit_identical_across_thread_counts(estimator: str) -> None:
    rng = np.random.default_rng(1)
    q, k, v = 0.5 * rng.normal(size=(3, 2, 300, 8))
    k[:, 70] *= 6  # the running maximum grows inside the second chunk
    k[:, 200:] *= 2
    runs = [
        attention.random_feature(q, k, v, 200, estimator=estimator, trials=3, seed=2, nthreads=n)  # type: ignore[arg-type]
        for n in (1, 2, 3, 8)
    ]
    for r in runs[1:]:
        np.testing.assert_array_equal(r, runs[0])


def test_running_maximum_agrees_with_the_unstabilised_sums() -> None:
    rng = np.random.default_rng(2)
    q, k, v = 0.3 * rng.normal(size=(3, 200, 4))
    k[30] *= 4
    kw = {"estimator": "positive", "trials": 2, "seed": 3}
    a = attention.random_feature(q, k, v, 64, stabilize=True, **kw)  # type: ignore[arg-type]
    b = attention.random_feature(q, k, v, 64, stabilize=False, **kw)  # type: ignore[arg-type]
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# C. Wrong exception types: TypeError/ValueError naming the argument
# ---------------------------------------------------------------------------------------------


def _selective_weights() -> rl.selective.SelectiveWeights:
    rng = np.random.default_rng(0)
    sd = {
        "phi_proj.0.weight": rng.standard_normal((16, 8)),
        "phi_proj.1.weight": rng.standard_normal((4, 16)),
        "temperature": np.ones((1, 1, 1, 2)),
    }
    return rl.selective.SelectiveWeights.from_state_dict(sd, num_heads=2)


def _attention_error() -> attention.AttentionError:
    return attention.error(Q, K, V, [4, 8], rules=("one",), trials=2)


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: expressivity.element_angles(None), TypeError, "element_angles: g must be a Group"),
        (lambda: expressivity.representation(3), TypeError, "representation: g must be a Group"),
        (lambda: rl.report.summary(["x"]), TypeError, "summary: results must be a sequence of ClaimResult"),
        (lambda: rl.report.summary(None), TypeError, "summary: results must be a sequence"),
        (lambda: rl.report.to_json([1]), TypeError, "to_json: results must be"),
        (
            lambda: rl.selective.apply(np.zeros((8, 2, 4)), np.zeros((8, 2, 4)), np.zeros((8, 8)), None),
            TypeError,
            "apply: weights must be a SelectiveWeights",
        ),
        (lambda: rl.selective.SelectiveWeights.from_state_dict({}, 1), ValueError, "state has no parameter 'phi_proj"),
        (lambda: rl.selective.SelectiveWeights.from_state_dict(None, 1), TypeError, "state must be a mapping"),
        (lambda: _attention_error().at("one", 5), ValueError, r"at: D must be one of \[4, 8\], got 5"),
        (lambda: _attention_error().at("tan", 4), ValueError, "at: rule must be one of"),
        (
            lambda: recurrence.delta_rule(Q, K[0], V, np.ones(20)),
            ValueError,
            r"delta_rule: k must have shape \(\.\.\., T, d\)",
        ),
        (lambda: recurrence.delta_rule(Q, 1.0, V, np.ones(20)), ValueError, "delta_rule: k must have shape"),
        (lambda: recurrence.delta_rule(Q, K, 1.0, np.ones(20)), ValueError, "delta_rule: v must have shape"),
        (lambda: recurrence.delta_rule(Q, K, V, 0.5), ValueError, "delta_rule: beta must have shape"),
        (lambda: recurrence.delta_transitions(1.0, np.ones(20)), ValueError, "delta_transitions: k must have shape"),
    ],
)
def test_errors_have_the_right_type_and_name_the_argument(call, exc, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(exc, match=match):
        call()


def test_sweep_lines_names_a_missing_or_non_string_column() -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    df = pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]})
    with pytest.raises(TypeError, match="sweep_lines: x must be a column name"):
        rl.plot.sweep_lines(df, x=None, y="b")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="sweep_lines: y = 'c' is not a column"):
        rl.plot.sweep_lines(df, x="a", y="c")


def test_a_corrupt_safetensors_file_raises_value_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("safetensors")
    path = tmp_path / "bad.safetensors"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(ValueError, match="load_safetensors: path .*bad.safetensors.* is not a readable safetensors"):
        rl.selective.load_safetensors(str(path), num_heads=2)


def test_selective_weights_helper_works() -> None:
    assert _selective_weights().pairs == 2


# ---------------------------------------------------------------------------------------------
# D. Hangs and slow Ctrl-C
# ---------------------------------------------------------------------------------------------


def test_cyclic_group_tables_are_built_by_index_arithmetic() -> None:
    import time

    from ropelab import tasks

    t0 = time.perf_counter()
    g = tasks.group("Z1024")
    assert time.perf_counter() - t0 < 5  # Z256 took 5.5 s by searching products
    s = np.arange(1024)
    np.testing.assert_array_equal(g.table, (s[:, None] + s[None, :]) % 1024)
    assert g.identity == 0 and g.abelian and g.order == 1024
    assert g.elements[3][:3] == (3, 4, 5) and isinstance(g.elements[3][0], int)
    small = tasks.group("Z5")
    assert small.elements[2] == (2, 3, 4, 0, 1) and int(small.table[3, 4]) == 2
    with pytest.raises(ValueError, match=r"group: Z<n> needs 2 <= n <= 1024 .*'Z4096'"):
        tasks.group("Z4096")


def test_track_rotation_refuses_a_huge_broadcast_view_at_once() -> None:
    import time

    t0 = time.perf_counter()
    with pytest.raises(ValueError, match="track_rotation: the output would hold 1.1e\\+12 tokens"):
        expressivity.track_rotation("Z3", np.broadcast_to(0, (2**20, 2**20)))
    assert time.perf_counter() - t0 < 1


def test_track_rotation_in_pieces_gives_the_same_states() -> None:
    from ropelab.tasks import state_tracking

    for name in ("S2", "Z5", "Z7"):
        data = state_tracking(name, 3, 2**19, seed=1)  # more than one piece of the nearest-angle search
        np.testing.assert_array_equal(expressivity.track_rotation(name, data.tokens), data.labels)
    with pytest.raises(ValueError, match=r"tokens must be element indices in \[0, 3\), got values in \[-1, 1\]"):
        expressivity.track_rotation("Z3", np.array([[1, -1]]))


def test_selective_angles_in_pieces_equal_one_pass_per_step() -> None:
    """The pieces of a long sequence carry the convolution's cache: the same as a state fed step
    by step (SelectiveState), for the short convolution and for the first difference."""
    rng = np.random.default_rng(3)
    for conv in (None, rng.standard_normal((4, 1, 3))):
        sd = {
            "phi_proj.0.weight": rng.standard_normal((16, 8)),
            "phi_proj.1.weight": rng.standard_normal((4, 16)),
            "temperature": np.ones((1, 1, 1, 2)),
        }
        if conv is not None:
            sd["phi_conv1d.weight"] = conv
        w = rl.selective.SelectiveWeights.from_state_dict(sd, num_heads=2)
        h = rng.standard_normal((200_000, 8))  # several pieces of ~2^22 multiply-adds
        whole = np.asarray(rl.selective.angles(h, w))
        state = rl.selective.SelectiveState(w)
        parts = [np.asarray(state.feed(h[a : a + 70_001])) for a in range(0, len(h), 70_001)]
        np.testing.assert_array_equal(whole, np.concatenate(parts, axis=-3))


INTERRUPTS = {
    "selective_angles_one_sequence": (
        """
        sd = {"phi_proj.0.weight": rng.standard_normal((512, 32)),
              "phi_proj.1.weight": rng.standard_normal((8, 512)), "temperature": np.ones((1, 1, 1, 4))}
        w = rl.selective.SelectiveWeights.from_state_dict(sd, num_heads=2)
        h = rng.standard_normal((2**19, 32))
        """,
        "rl.selective.angles(h, w)",
    ),
    "random_feature_noncausal": (
        "q, k, v = 0.3 * rng.standard_normal((3, 4096, 64))",
        "rl.attention.random_feature(q, k, v, 2048, trials=8, causal=False)",
    ),
}


@pytest.mark.parametrize("name", sorted(INTERRUPTS))
def test_long_single_calls_answer_ctrl_c(name: str) -> None:
    from tests._sigint import assert_interrupts, skip_under_sanitizer

    if skip_under_sanitizer.args[0]:
        pytest.skip(skip_under_sanitizer.kwargs["reason"])
    setup, call = INTERRUPTS[name]
    assert_interrupts(
        call,
        setup=setup,
        after='print("after", rl.rotary.rotate(np.ones((1, 2)), np.zeros((1, 1))).tolist())',
        expected_after="[[1.0, 1.0]]",
        delay=0.5,
    )
