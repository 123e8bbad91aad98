"""ropelab.selective: the released Selective RoPE angle path against an independent NumPy
reimplementation of the authors' forward (SelectiveRoPE.forward of the released code, PyTorch
semantics written out in NumPy), the streaming state, bad input."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ropelab import rotary
from ropelab.selective import SelectiveState, SelectiveWeights, angles, apply, load_safetensors, rotary_temperature

# ----------------------------------------------------------------------------------------------
# Independent reference: the authors' forward in NumPy (float64 unless noted).


def ref_forward(hidden, sd, H, *, conv_act=None, eps=1e-6, cache=None, float32=False):
    """hidden (B, T, model_dim); sd: the module's state_dict as NumPy arrays. Returns
    (angles (B, T, H, R), conv cache (B, C, K), offset (B, C))."""
    B, T, n = hidden.shape
    hs = hidden.reshape(B, T, H, n // H)
    hs = hs / np.sqrt((hs * hs).sum(-1, keepdims=True) + eps)  # fla l2_norm
    flat = hs.reshape(B, T, n)
    u = flat @ sd["phi_proj.0.weight"].T @ sd["phi_proj.1.weight"].T  # (B, T, C)
    C = u.shape[-1]
    R = C // H
    conv_in, offset_in = (None, None) if cache is None else cache
    if "phi_conv1d.weight" in sd:
        w = sd["phi_conv1d.weight"][:, 0, :]  # (C, K)
        K = w.shape[1]
        past = np.zeros((B, K, C)) if conv_in is None else np.transpose(conv_in, (0, 2, 1))
        ext = np.concatenate([past, u], axis=1)  # (B, K + T, C)
        phi = np.stack([sum(w[:, j] * ext[:, t + 1 + j] for j in range(K)) for t in range(T)], axis=1)
        if conv_act == "silu":
            phi = phi / (1 + np.exp(-phi))
        new_conv = np.transpose(ext[:, -K:], (0, 2, 1))
    else:  # skip_conv: no cache
        phi = u - np.concatenate([np.zeros_like(u[:, :1]), u[:, :-1]], axis=1)
        new_conv = None
    phi = phi.reshape(B, T, H, R)
    if "phi_bias" in sd:
        phi = phi + np.exp(sd["phi_bias"].reshape(1, 1, H, R))
    if "phase_gate_proj.weight" in sd:
        g = flat @ sd["phase_gate_proj.weight"].T + sd["phase_gate_proj.bias"]
        phi = phi * (1 / (1 + np.exp(-g)))[..., None]
    elif "phase_gate_proj.1.weight" in sd:
        g = flat @ sd["phase_gate_proj.0.weight"].T @ sd["phase_gate_proj.1.weight"].T + sd["phase_gate_proj.1.bias"]
        g = 1 / (1 + np.exp(-g))
        phi = phi * (g.reshape(B, T, H, R) if g.shape[-1] == C else g[..., None])
    temp = sd["temperature"].reshape(R)
    if float32:
        s = np.cumsum(phi.astype(np.float32), axis=1, dtype=np.float32)  # time-order float32 sum
        if offset_in is not None:
            s = s + offset_in.reshape(B, 1, H, R).astype(np.float32)
        ang = s * temp.astype(np.float32)
    else:
        s = np.cumsum(phi, axis=1)
        if offset_in is not None:
            s = s + offset_in.reshape(B, 1, H, R)
        ang = s * temp
    return ang, new_conv, s[:, -1].reshape(B, C)


def ref_rotate_half(x, ang):
    R = ang.shape[-1]
    x0, x1 = x[..., :R], x[..., R:]
    c, s = np.cos(ang), np.sin(ang)
    return np.concatenate([x0 * c - x1 * s, x0 * s + x1 * c], axis=-1)


def make_sd(rng, n=12, H=3, R=4, rank=16, K=4, *, conv=True, bias=True, gate="standard", g=5):
    C = H * R
    sd = {
        "phi_proj.0.weight": rng.standard_normal((rank, n)) / np.sqrt(n),
        "phi_proj.1.weight": rng.standard_normal((C, rank)) / np.sqrt(rank),
        "temperature": rotary_temperature("rope", 500000.0, 2 * R).reshape(1, 1, 1, R),
    }
    if conv:
        sd["phi_conv1d.weight"] = rng.standard_normal((C, 1, K)) / 2
    if bias:
        sd["phi_bias"] = 0.3 * rng.standard_normal((1, 1, H, R))
    if gate == "standard":
        sd["phase_gate_proj.weight"] = rng.standard_normal((H, n))
        sd["phase_gate_proj.bias"] = rng.standard_normal(H)
    elif gate in ("low-rank", "gla"):
        out = H if gate == "low-rank" else C
        sd["phase_gate_proj.0.weight"] = rng.standard_normal((g, n))
        sd["phase_gate_proj.1.weight"] = rng.standard_normal((out, g))
        sd["phase_gate_proj.1.bias"] = rng.standard_normal(out)
    return sd


CONFIGS = [
    dict(conv=True, bias=True, gate="standard"),
    dict(conv=True, bias=False, gate=None),
    dict(conv=False, bias=True, gate="low-rank"),
    dict(conv=True, bias=True, gate="gla"),
    dict(conv=False, bias=False, gate=None),
]


@pytest.mark.parametrize("cfg", CONFIGS)
@pytest.mark.parametrize("act", [None, "silu"])
def test_matches_reference_float64(cfg, act):
    if act is not None and not cfg["conv"]:
        pytest.skip("skip_conv has no activation")
    rng = np.random.default_rng(3)
    sd = make_sd(rng, **cfg)
    w = SelectiveWeights.from_state_dict(sd, 3, conv_activation=act)
    x = rng.standard_normal((2, 37, 12))
    ref, _, _ = ref_forward(x, sd, 3, conv_act=act)
    got = angles(x, w)
    assert got.shape == (2, 37, 3, 4) and got.dtype == np.float64
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref)))


def test_matches_reference_float32_order():
    rng = np.random.default_rng(4)
    sd = make_sd(rng)
    w = SelectiveWeights.from_state_dict(sd, 3)
    x = rng.standard_normal((1, 3000, 12))
    ref32, _, _ = ref_forward(x, sd, 3, float32=True)
    ref64, _, _ = ref_forward(x, sd, 3)
    got = angles(x, w, accumulate="float32")
    assert got.dtype == np.float32
    # the same float32 operations on increments that agree to ~1e-15 before rounding to float32:
    # equal up to a few float32 ulps of the largest phase (a rare increment rounds the other way)
    top = float(np.max(np.abs(ref32)))
    np.testing.assert_allclose(got, ref32, rtol=0, atol=8 * np.spacing(np.float32(top)))
    assert np.mean(got == ref32) > 0.9
    # and it is the float32 sum, not the float64 one: the time-order float32 sum drifts
    assert np.max(np.abs(got - ref64)) > 1e-9 * np.max(np.abs(ref64))


def test_float32_exact_on_representable_increments():
    # increments exactly representable in float32 (projections of a 1-d identity path): the
    # float32 sums are bit-identical to NumPy's time-order float32 cumsum
    w = SelectiveWeights(np.eye(1), np.eye(1), [0.3], conv_weight=np.ones((1, 1, 1)), eps=0.0)
    x = np.ones((5000, 1))
    s = np.cumsum(np.ones(5000, np.float32), dtype=np.float32) * np.float32(0.3)
    np.testing.assert_array_equal(angles(x, w, accumulate="float32")[:, 0, 0], s)


def test_rotation_half_layout():
    rng = np.random.default_rng(5)
    sd = make_sd(rng)
    w = SelectiveWeights.from_state_dict(sd, 3)
    x = rng.standard_normal((2, 9, 12))
    q, k = rng.standard_normal((2, 2, 9, 3, 8))
    ang, _, _ = ref_forward(x, sd, 3)
    qr, kr, psi = apply(q, k, x, w)
    np.testing.assert_allclose(qr, ref_rotate_half(q, ang), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kr, ref_rotate_half(k, ang), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(psi, ang, rtol=1e-12, atol=1e-14)


def test_cache_layout_and_offset_match_authors_cache():
    rng = np.random.default_rng(6)
    sd = make_sd(rng)
    w = SelectiveWeights.from_state_dict(sd, 3)
    x = rng.standard_normal((2, 11, 12))
    st8 = SelectiveState(w, batch=2)
    st8.feed(x[:, :2])  # T < K: the cache keeps older zeros
    ref_ang, ref_conv, ref_off = ref_forward(x[:, :2], sd, 3)
    np.testing.assert_allclose(st8.conv_cache, ref_conv, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(st8.offset, ref_off, rtol=1e-14, atol=1e-15)
    # authors' generation: continue from (conv cache, offset)
    got = st8.feed(x[:, 2:])
    ref2, _, _ = ref_forward(x[:, 2:], sd, 3, cache=(ref_conv, ref_off))
    np.testing.assert_allclose(got, ref2, rtol=1e-12, atol=1e-12 * np.max(np.abs(ref2)))
    assert st8.steps == 11


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(0, 40), max_size=6), cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**16))
def test_streaming_equals_one_call(cuts, cfg, seed):
    rng = np.random.default_rng(seed)
    sd = make_sd(rng, **cfg)
    w = SelectiveWeights.from_state_dict(sd, 3)
    T = 40
    x = rng.standard_normal((2, T, 12))
    whole = angles(x, w)
    st_ = SelectiveState(w, batch=2)
    bounds = sorted(set([0, T] + cuts))
    parts = [st_.feed(x[:, a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    got = np.concatenate(parts, axis=1)
    scale = max(1.0, float(np.max(np.abs(whole))))
    assert np.max(np.abs(got - whole)) <= 1e-15 * scale
    np.testing.assert_array_equal(got, whole)  # in fact bit for bit (same operations in the same order)


def test_skip_conv_authors_generation_restarts_difference():
    rng = np.random.default_rng(7)
    sd = make_sd(rng, conv=False, bias=False, gate=None)
    w = SelectiveWeights.from_state_dict(sd, 3)
    x = rng.standard_normal((1, 10, 12))
    st_ = SelectiveState(w, carry_difference=False)
    a = st_.feed(x[:, :4])
    b = st_.feed(x[:, 4:])
    ref_a, _, off = ref_forward(x[:, :4], sd, 3)
    ref_b, _, _ = ref_forward(x[:, 4:], sd, 3, cache=(None, off))
    np.testing.assert_allclose(np.concatenate([a, b], 1), np.concatenate([ref_a, ref_b], 1), rtol=1e-12, atol=1e-13)
    assert not np.allclose(np.concatenate([a, b], 1), angles(x, w))


def test_float32_streaming_is_authors_generation_order():
    rng = np.random.default_rng(8)
    sd = make_sd(rng)
    w = SelectiveWeights.from_state_dict(sd, 3)
    x = rng.standard_normal((1, 50, 12))
    st_ = SelectiveState(w, accumulate="float32")
    a, b = st_.feed(x[:, :20]), st_.feed(x[:, 20:])
    ref_a, conv, off = ref_forward(x[:, :20], sd, 3, float32=True)
    ref_b, _, _ = ref_forward(x[:, 20:], sd, 3, cache=(conv, off), float32=True)
    np.testing.assert_allclose(np.concatenate([a, b], 1), np.concatenate([ref_a, ref_b], 1), rtol=4e-7, atol=1e-6)


def test_conv_weight_layouts_agree():
    rng = np.random.default_rng(9)
    sd = make_sd(rng)
    w1 = SelectiveWeights.from_state_dict(sd, 3)
    w2 = SelectiveWeights(
        sd["phi_proj.0.weight"],
        sd["phi_proj.1.weight"],
        sd["temperature"],
        3,
        conv_weight=sd["phi_conv1d.weight"][:, 0, :].T,
        bias=sd["phi_bias"].reshape(3, 4),
        gate_weight=sd["phase_gate_proj.weight"],
        gate_bias=sd["phase_gate_proj.bias"],
    )
    x = rng.standard_normal((6, 12))
    np.testing.assert_array_equal(angles(x, w1), angles(x, w2))
    assert angles(x, w1).shape == (6, 3, 4)


def test_rotary_temperature_matches_formulas():
    th = rotary_temperature("rope", 500000.0, 64, 2.0)
    np.testing.assert_allclose(th, 2.0 / 500000.0 ** (np.arange(0, 64, 2) / 64), rtol=1e-15)
    t = rotary_temperature("rfa", 0.9, 16)
    a = np.linspace(0, 0.9 * np.pi, 8)
    np.testing.assert_allclose(t, np.tan(a / 2) / np.tan(a[-1] / 2), rtol=1e-13, atol=1e-16)
    for kind, theta in (("rope", 0.5), ("rfa", 1.5), ("rfa", 0.0), ("nope", 1.0)):
        with pytest.raises(ValueError):
            rotary_temperature(kind, theta, 8)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="head_dim"):
        rotary_temperature("rope", 10.0, 7)


def _float32_ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia = np.asarray(a, dtype=np.float32).view(np.int32).astype(np.int64)
    ib = np.asarray(b, dtype=np.float32).view(np.int32).astype(np.int64)
    return np.abs(ia - ib)


def test_rotary_temperature_rfa_float32_difference_documented():
    # rotary_temperature's docstring: the released float32 evaluation sqrt((1 − cos a)/(1 + cos a))
    # differs from the float64 values rounded to float32 by up to 412 float32 ulps at θ = 0.99,
    # d = 32 (cancellation in 1 − cos a and 1 + cos a), 1761 at θ = 0.25, d = 128, ~2e4 at 0.999.
    from ropelab import temperature

    def worst(theta: float, d: int) -> int:
        exact = rotary_temperature("rfa", theta, d).astype(np.float32)
        released = temperature.spectrum(d, "rfa", theta_max=theta, precision="float32")
        return int(_float32_ulps(exact, released).max())

    # 412 and 1761 with NumPy's float32 cos here; its SIMD cos may round other ulps elsewhere
    assert 380 <= worst(0.99, 32) <= 450
    assert 1600 <= worst(0.25, 128) <= 1900
    assert 1.5e4 < worst(0.999, 32) < 2.5e4
    assert worst(0.5, 16) <= 4  # well inside (0, 1) and at small d: a few ulps


def test_safetensors_roundtrip(tmp_path):
    st_np = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(10)
    sd = {("layer.0." + k): v for k, v in make_sd(rng, gate="low-rank").items()}
    path = os.path.join(tmp_path, "m.safetensors")
    st_np.save_file(sd, path)
    w = load_safetensors(path, 3, prefix="layer.0.")
    w_ref = SelectiveWeights.from_state_dict(sd, 3, prefix="layer.0.")
    x = rng.standard_normal((5, 12))
    np.testing.assert_array_equal(angles(x, w), angles(x, w_ref))


# ----------------------------------------------------------------------------------------------
# Bad input.


def base(rng, **over):
    kw = dict(
        proj_down=rng.standard_normal((16, 12)),
        proj_up=rng.standard_normal((12, 16)),
        temperature=np.ones(4),
        num_heads=3,
        conv_weight=rng.standard_normal((12, 1, 4)),
    )
    kw.update(over)
    return kw


@pytest.mark.parametrize(
    "over, match",
    [
        (dict(num_heads=5), "num_heads"),
        (dict(num_heads=0), "num_heads"),
        (dict(proj_up=np.ones((12, 8))), "proj_up"),  # rank mismatch
        (dict(proj_up=np.ones((13, 16))), "proj_up"),
        (dict(temperature=np.ones(3)), "temperature"),
        (dict(conv_weight=np.ones((12, 2, 4))), "conv_weight"),
        (dict(conv_weight=np.ones((12, 1, 0))), "conv_weight"),  # K = 0
        (dict(conv_weight=np.ones((4, 11))), "conv_weight"),
        (dict(conv_weight=np.ones(4)), "conv_weight"),
        (dict(proj_down=np.full((16, 12), np.nan)), "proj_down"),
        (dict(conv_weight=np.full((12, 1, 4), np.inf)), "conv_weight"),
        (dict(bias=np.ones(5)), "bias"),
        (dict(gate_weight=np.ones((3, 12))), "gate_bias"),
        (dict(gate_weight=np.ones((4, 12)), gate_bias=np.ones(4)), "gate_weight"),
        (dict(gate_weight=np.ones((3, 7)), gate_bias=np.ones(3)), "gate_weight"),
        (dict(gate_weight=np.ones((3, 5)), gate_bias=np.ones(3), gate_down=np.ones((6, 12))), "gate_weight"),
        (dict(conv_activation="relu"), "conv_activation"),
        (dict(eps=-1.0), "eps"),
    ],
)
def test_bad_weights(over, match):
    with pytest.raises(ValueError, match=match):
        SelectiveWeights(**base(np.random.default_rng(0), **over))


def test_bad_weight_types():
    with pytest.raises(TypeError, match="proj_down"):
        SelectiveWeights(**base(np.random.default_rng(0), proj_down=np.ones((16, 12), dtype=bool)))
    with pytest.raises(ValueError, match="phi_proj.0.weight"):
        SelectiveWeights.from_state_dict({}, 1)


def test_bad_hidden_and_state():
    rng = np.random.default_rng(0)
    w = SelectiveWeights(**base(rng))
    with pytest.raises(ValueError, match="hidden"):
        angles(np.ones((5, 11)), w)
    with pytest.raises(ValueError, match="hidden"):
        angles(np.ones((1, 1, 5, 12)), w)
    x = np.ones((5, 12))
    x[2, 3] = np.nan
    with pytest.raises(ValueError, match="hidden"):
        angles(x, w)
    with pytest.raises(TypeError, match="hidden"):
        angles(np.ones((5, 12), dtype=complex), w)
    with pytest.raises(ValueError, match="accumulate"):
        angles(np.ones((5, 12)), w, accumulate="float16")  # type: ignore[arg-type]
    st_ = SelectiveState(w, batch=2)
    with pytest.raises(ValueError, match="batch"):
        st_.feed(np.ones((3, 5, 12)))
    with pytest.raises(ValueError, match="batch"):
        SelectiveState(w, batch=0)
    with pytest.raises(ValueError, match="q must have shape"):
        apply(np.ones((5, 3, 6)), np.ones((5, 3, 8)), np.ones((5, 12)), w)
    with pytest.raises(ValueError, match="k must be finite"):
        apply(np.ones((5, 3, 8)), np.full((5, 3, 8), np.inf), np.ones((5, 12)), w)


def test_overflow_is_an_error():
    rng = np.random.default_rng(0)
    w = SelectiveWeights(**base(rng, bias=np.full(12, 710.0)))
    with pytest.raises(ValueError, match="bias"):
        angles(np.ones((3, 12)), w)
    w = SelectiveWeights(**base(rng, bias=np.full(12, 708.0)))  # e^708 finite, the sum overflows
    with pytest.raises(ValueError, match="not finite"):
        angles(np.ones((10, 12)), w)


def test_empty_chunk_keeps_state():
    rng = np.random.default_rng(1)
    w = SelectiveWeights(**base(rng))
    st_ = SelectiveState(w)
    st_.feed(rng.standard_normal((3, 12)))
    cache, off = st_.conv_cache.copy(), st_.offset.copy()
    assert st_.feed(np.zeros((0, 12))).shape == (0, 3, 4)
    np.testing.assert_array_equal(st_.conv_cache, cache)
    np.testing.assert_array_equal(st_.offset, off)


def test_same_as_rotary_selective_angles_for_identity_path():
    # one head, identity projection, no normalisation effect on a unit-norm hidden state: the
    # angle path reduces to rotary.selective_angles on u
    rng = np.random.default_rng(2)
    R = 3
    x = rng.standard_normal((20, R))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    kern = rng.standard_normal((4, R))
    w = SelectiveWeights(np.eye(R), np.eye(R), np.full(R, 0.7), conv_weight=kern, bias=np.zeros(R), eps=0.0)
    ref = rotary.selective_angles(x, kern, theta=np.full(R, 0.7), bias=np.zeros(R))
    np.testing.assert_allclose(angles(x, w)[:, 0, :], ref, rtol=1e-12, atol=1e-13)
