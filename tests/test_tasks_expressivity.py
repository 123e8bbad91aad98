"""Task generators (labels checked by an independent group multiplication), the trackers of
ropelab.expressivity at ten times the training length, and RoPE length-extrapolation rules against
an independent reimplementation of the published formulas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import expressivity, extrapolation, rotary, tasks

GROUPS = ["S2", "A3", "S3", "Z2", "Z3", "Z7"]


def _perm_matrix(p: tuple[int, ...]) -> np.ndarray:
    """Row convention: e_iᵀ M = e_{p[i]}ᵀ, so M_a M_b is "a, then b"."""
    M = np.zeros((len(p), len(p)))
    M[np.arange(len(p)), list(p)] = 1
    return M


@pytest.mark.parametrize("name", GROUPS)
def test_group_table_by_matrix_products(name: str) -> None:
    g = tasks.group(name)
    mats = [_perm_matrix(p) for p in g.elements]
    for a, b in itertools.product(range(g.order), repeat=2):
        assert np.array_equal(mats[a] @ mats[b], mats[g.table[a, b]])
    assert g.order == {"S2": 2, "A3": 3, "S3": 6, "Z2": 2, "Z3": 3, "Z7": 7}[name]
    assert g.abelian == (name != "S3")
    assert g.elements[g.identity] == tuple(range(len(g.elements[0])))


@pytest.mark.parametrize("name", GROUPS)
def test_state_tracking_labels_by_independent_products(name: str) -> None:
    data = tasks.state_tracking(name, 20, 60, seed=5)
    els = data.group.elements
    for seq, labels in zip(data.tokens, data.labels):
        state = np.eye(len(els[0]))
        for tok, lab in zip(seq, labels):
            state = state @ _perm_matrix(els[tok])
            assert np.array_equal(state, _perm_matrix(els[lab]))
    if name.startswith("Z") or name == "S2":
        n = data.group.order
        assert np.array_equal(data.labels, np.cumsum(data.tokens, axis=1) % n)


def test_streams_and_seeds() -> None:
    a = tasks.state_tracking("S3", 5, 30, seed=1)
    assert np.array_equal(a.tokens, tasks.state_tracking("S3", 5, 30, seed=1).tokens)
    assert not np.array_equal(a.tokens, tasks.state_tracking("S3", 5, 30, seed=1, stream=1).tokens)
    assert not np.array_equal(a.tokens, tasks.state_tracking("S3", 5, 30, seed=2).tokens)


@settings(max_examples=40, deadline=None)
@given(n_pairs=st.integers(1, 8), extra=st.integers(0, 10), seed=st.integers(0, 2**31))
def test_mqar_targets_are_the_bound_values(n_pairs: int, extra: int, seed: int) -> None:
    seq_len = 2 * n_pairs + n_pairs + extra
    d = tasks.mqar(3, seq_len, n_pairs, vocab=2 * n_pairs + 4, seed=seed)
    for x, y in zip(d.inputs, d.targets):
        keys, values = x[0 : 2 * n_pairs : 2], x[1 : 2 * n_pairs : 2]
        assert len(set(keys)) == n_pairs and np.all(keys >= 1) and np.all(keys < d.vocab // 2)
        assert np.all(values >= d.vocab // 2) and np.all(values < d.vocab)
        bound = dict(zip(keys.tolist(), values.tolist()))
        queries = np.flatnonzero(y >= 0)
        assert len(queries) == n_pairs and np.all(queries >= 2 * n_pairs)
        assert all(bound[x[t]] == y[t] for t in queries)
        rest = np.setdiff1d(np.arange(2 * n_pairs, seq_len), queries)
        assert np.all(x[rest] == 0)


def test_copying_format() -> None:
    c = tasks.copying(4, 7, 12, seed=3)
    assert c.inputs.shape == (4, 15)
    assert np.all(c.inputs[:, 7] == 1) and np.all(c.inputs[:, 8:] == 0)
    assert np.array_equal(c.targets[:, 8:], c.inputs[:, :7]) and np.all(c.targets[:, :8] == -1)
    assert c.inputs[:, :7].min() >= 2 and c.inputs[:, :7].max() < 12


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: tasks.group("S4"), "name must be"),
        (lambda: tasks.group("Z1"), "2 <= n"),
        (lambda: tasks.state_tracking("S2", 0, 5), "n must be"),
        (lambda: tasks.state_tracking("S2", 2, 5, seed=-1), "seed"),
        (lambda: tasks.mqar(1, 5, 3, 20), "seq_len must be >= "),
        (lambda: tasks.mqar(1, 50, 10, 12), "vocab must leave"),
        (lambda: tasks.copying(1, 3, 2), "vocab"),
        (lambda: tasks.state_tracking("S2", 10**6, 10**4), "more than 2147483648"),
    ],
)
def test_bad_arguments(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


# ------------------------------------------------------------------------------------ trackers

TRAIN, TEST = 64, 640  # the claims use 128 / 1280; 10× the training length here as well


@pytest.mark.parametrize("name", ["S2", "Z3", "A3", "Z5"])
def test_rotations_track_cyclic_groups_far_beyond_training(name: str) -> None:
    data = tasks.state_tracking(name, 50, TEST, seed=7, stream=1)
    assert expressivity.accuracy(expressivity.track_rotation(name, data.tokens), data.labels) == 1.0


@pytest.mark.parametrize("name", ["S2", "Z3", "A3", "S3"])
def test_householder_products_track_every_group(name: str) -> None:
    data = tasks.state_tracking(name, 30, TEST, seed=8)
    assert expressivity.accuracy(expressivity.track_householder(name, data.tokens), data.labels) == 1.0


def test_rotations_fail_on_s3_and_rope_fails_on_parity() -> None:
    s3 = tasks.state_tracking("S3", 300, TEST, seed=9)
    acc = expressivity.accuracy(expressivity.track_rotation("S3", s3.tokens), s3.labels, last_only=True)
    assert acc < 1 / 3 + 5 * math.sqrt(2 / 9 / 300)
    s2 = tasks.state_tracking("S2", 300, TEST, seed=10)
    for predicted in (
        expressivity.track_fixed_rope("S2", s2.tokens),
        expressivity.track_positive_gates("S2", s2.tokens),
    ):
        assert abs(expressivity.accuracy(predicted, s2.labels, last_only=True) - 0.5) < 5 * math.sqrt(0.25 / 300)


def test_representation_and_factors() -> None:
    g = tasks.group("S3")
    rho = expressivity.representation(g)
    for a, b in itertools.product(range(6), repeat=2):
        np.testing.assert_allclose(rho[g.table[a, b]], rho[a] @ rho[b], atol=1e-14)
    for R in rho:
        W = expressivity.householder_factors(R)
        H = np.eye(2)
        for w in W:
            H = H @ (np.eye(2) - 2 * np.outer(w, w))
        np.testing.assert_allclose(H, R, atol=1e-14)
        assert len(W) == (1 if np.linalg.det(R) < 0 else (0 if np.allclose(R, np.eye(2)) else 2))


# ---------------------------------------------------------------------------- extrapolation


def reference_inv_freq(rule: str, d: int, base: float, factor: float, L: int, **kw: float) -> tuple[list[float], float]:
    """The published formulas, written scalar by scalar with the math module."""
    inv = [1.0 / base ** (2 * i / d) for i in range(d // 2)]
    if rule == "default":
        return inv, 1.0
    if rule == "linear":
        return [x / factor for x in inv], 1.0
    if rule == "ntk":
        b = base * factor ** (d / (d - 2))
        return [1.0 / b ** (2 * i / d) for i in range(d // 2)], 1.0
    if rule == "dynamic":
        n = max(int(kw.get("seq_len", L)), L)
        b = base * (factor * n / L - (factor - 1)) ** (d / (d - 2))
        return [1.0 / b ** (2 * i / d) for i in range(d // 2)], 1.0
    if rule == "yarn":

        def dim(rot: float) -> float:
            return d * math.log(L / (rot * 2 * math.pi)) / (2 * math.log(base))

        lo, hi = max(math.floor(dim(32)), 0), min(math.ceil(dim(1)), d - 1)
        out = []
        for i in range(d // 2):
            ramp = min(max((i - lo) / (hi - lo if hi != lo else 0.001), 0.0), 1.0)
            keep = 1.0 - ramp
            out.append(inv[i] / factor * (1 - keep) + inv[i] * keep)
        return out, 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    if rule == "llama3":
        lo_f, hi_f = kw.get("low_freq_factor", 1.0), kw.get("high_freq_factor", 4.0)
        out = []
        for x in inv:
            wl = 2 * math.pi / x
            if wl < L / hi_f:
                out.append(x)
            elif wl > L / lo_f:
                out.append(x / factor)
            else:
                s = (L / wl - lo_f) / (hi_f - lo_f)
                out.append((1 - s) * x / factor + s * x)
        return out, 1.0
    raise AssertionError(rule)


@pytest.mark.parametrize("rule", ["default", "linear", "ntk", "dynamic", "yarn", "llama3"])
@pytest.mark.parametrize(
    ("d", "base", "factor", "L"), [(128, 10000.0, 4.0, 2048), (64, 500000.0, 8.0, 8192), (16, 10000.0, 32.0, 256)]
)
def test_scaling_rules_match_the_published_formulas(rule: str, d: int, base: float, factor: float, L: int) -> None:
    kw = {"seq_len": 3 * L} if rule == "dynamic" else {}
    got = extrapolation.scaled_frequencies(
        d,
        rule,
        base=base,
        factor=factor,
        original_max_position=L,  # type: ignore[arg-type]
        **kw,
    )
    want, att = reference_inv_freq(rule, d, base, factor, L, **kw)
    np.testing.assert_allclose(got.inv_freq, want, rtol=1e-13)
    assert got.attention_factor == pytest.approx(att, rel=1e-14)


def test_scaling_properties() -> None:
    theta = rotary.frequencies(128)
    y = extrapolation.scaled_frequencies(128, "yarn", factor=16.0, original_max_position=4096).inv_freq
    assert y[0] == theta[0] and y[-1] == pytest.approx(theta[-1] / 16, rel=1e-14)  # fast kept, slow interpolated
    l3 = extrapolation.scaled_frequencies(128, "llama3", base=500000.0, factor=8.0, original_max_position=8192)
    assert np.all(l3.inv_freq <= rotary.frequencies(128, 500000.0)) and np.all(np.diff(l3.inv_freq) < 0)
    dyn = extrapolation.scaled_frequencies(64, "dynamic", factor=4.0, original_max_position=1024, seq_len=512)
    np.testing.assert_allclose(dyn.inv_freq, rotary.frequencies(64), rtol=1e-15)  # no change within L (to rounding)


def test_unseen_angles() -> None:
    u = extrapolation.unseen_angles(rotary.frequencies(128), 2048, 8192)
    wl = 2 * np.pi / rotary.frequencies(128)
    assert np.array_equal(u.full_turn, wl <= 2047) and np.array_equal(u.unseen, ~u.full_turn)
    assert np.all((u.unseen_fraction >= 0) & (u.unseen_fraction <= 1))
    # position interpolation by the length ratio: the test angles θ/4·8191 exceed the trained θ·2047
    # by 0.75·θ only, in the pairs that never turned
    theta = rotary.frequencies(128)
    pi = extrapolation.scaled_frequencies(128, "linear", factor=4.0).inv_freq
    v = extrapolation.unseen_angles(theta, 2048, 8192, pi)
    np.testing.assert_allclose(v.unseen_fraction[v.unseen], 0.75 * theta[v.unseen] / (2 * np.pi), rtol=1e-9)
    assert np.array_equal(v.unseen, ~v.full_turn)
    # a test run shorter than training shows nothing new
    assert extrapolation.unseen_angles(theta, 2048, 1024).n_unseen == 0
    assert extrapolation.unseen_angles(rotary.frequencies(8), 100, 100).n_unseen == 0


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: extrapolation.scaled_frequencies(7), ValueError, "even"),
        (lambda: extrapolation.scaled_frequencies(8, "rope2"), ValueError, "rule must be"),  # type: ignore[arg-type]
        (lambda: extrapolation.scaled_frequencies(8, "linear", factor=0.5), ValueError, "factor"),
        (lambda: extrapolation.scaled_frequencies(8, "linear", factor="2"), TypeError, "factor"),  # type: ignore[arg-type]
        (
            lambda: extrapolation.scaled_frequencies(8, "llama3", low_freq_factor=4.0, high_freq_factor=1.0),
            ValueError,
            "high_freq_factor",
        ),
        (lambda: extrapolation.unseen_angles(np.array([1.0, -1.0]), 10, 20), ValueError, "positive"),
        (lambda: extrapolation.unseen_angles(np.array([1.0]), 0, 20), ValueError, "train_length"),
        (lambda: extrapolation.unseen_angles(np.array([1.0]), 5, 20, np.array([1.0, 2.0])), ValueError, "shape"),
    ],
)
def test_extrapolation_bad_input(call: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        call()  # type: ignore[operator]
