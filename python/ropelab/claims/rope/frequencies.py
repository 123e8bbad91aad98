"""Claims of the RoPE section, second part: the frequency schedule θ_i (RoFormer §3.2.2, §3.4.3),
the element-wise pseudocode and its channel layout (RoFormer §3.4.2), and the role of the base.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ropelab import rotary
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


def _np_decay_bound(r: npt.ArrayLike, theta: npt.ArrayLike) -> FloatArray:
    """RoFormer's bound from its definition: mean over j of |Σ_{i<j} e^{i r θ_i}| (NumPy)."""
    rr, th = np.asarray(r, dtype=np.float64), np.asarray(theta, dtype=np.float64)
    S = np.cumsum(np.exp(1j * np.outer(rr, th)), axis=1)
    return np.asarray(np.abs(S).mean(axis=1))


@claim(
    "rope.theta_index",
    source="RoFormer §3.2.2, §3.4.3",
    statement=r"$\theta_i = 10000^{-2(i-1)/d}$ and $\theta_i = 10000^{-2i/d}$ ($i = 1, \ldots, d/2$), both used"
    " in the paper, are the same frequencies",
    expected="fails",
)
def rope_theta_index() -> Evidence:
    d, base = 128, 10000.0
    h = d // 2
    first = np.asarray(rotary.frequencies(d, base))  # θ_i = base^{−2(i−1)/d}, i = 1 … d/2
    first_np = base ** (-2.0 * np.arange(h) / d)
    second = base ** (-2.0 * np.arange(1, h + 1) / d)  # the index of §3.4.3, written out
    same = bool(np.max(np.abs(first - second) / first) < _common.tol(4))
    # how far the long-term decay bound moves: the toolkit's B(r) against B(r) of the shifted index
    r = np.arange(0, 2001.0)
    b_first = np.asarray(rotary.decay_bound(r, d, base))
    b_second = _np_decay_bound(r, second)
    route = _common.rel_err(b_first, _np_decay_bound(r, first_np))
    moved = np.abs(b_second - b_first) / b_first
    tol = _common.tol(d)
    shift_ok = bool(
        _common.rel_err(first, first_np) < _common.tol(4)
        and _common.rel_err(second[:-1], first[1:]) < _common.tol(4)
        and abs(second[-1] - 1 / base) < _common.tol(4) / base
        and route < _common.tol(d) * 2048
    )
    return Evidence(
        verdict=derive_verdict(same),
        values={
            "first_index_largest_smallest": [float(first[0]), float(first[-1])],
            "second_index_largest_smallest": [float(second[0]), float(second[-1])],
            "ratio_second_over_first": float(second[0] / first[0]),
            "decay_bound_toolkit_vs_numpy": route,
            "bound_r0_both": [float(b_first[0]), float(b_second[0])],
            "bound_relative_change_max_r_1_2000": float(np.max(moved[1:])),
            "bound_relative_change_mean_r_1_2000": float(moved[1:].mean()),
            "bound_at_r_100_both": [float(b_first[100]), float(b_second[100])],
        },
        tolerance=f"frequencies equal to relative {_common.tol(4):.1e}; the bound's two routes to {tol * 2048:.1e} "
        "(angles up to 2000 rad)",
        inputs={"d": d, "base": base, "r": "0..2000"},
        counterexample={
            "i": 1,
            "first_index": float(first[0]),
            "second_index": float(second[0]),
            "only_in_second": float(second[-1]),
        },
        corrected=r"$10000^{-2i/d}$ is $10000^{-2(i-1)/d}$ shifted by one index (each $\theta$ times $10000^{-2/d}$): it "
        r"drops $\theta = 1$ and adds $\theta = 10000^{-1}$. Both define a valid RoPE; RoFormer's bound $B(r)$ "
        f"moves by up to {float(np.max(moved[1:])):.0%} (mean {float(moved[1:].mean()):.0%}) over "
        r"$r \le 2000$.",
        corrected_holds=shift_ok and float(np.max(moved[1:])) > 1e-3,
    )


def _pseudocode(x: FloatArray, ang: FloatArray) -> FloatArray:
    """The note's pseudocode: x·cos + rotate_half(x)·sin, one θ per adjacent pair, rotate_half
    (x1, x2, x3, x4, …) → (−x2, x1, −x4, x3, …).
    """
    cos, sin = np.repeat(np.cos(ang), 2, axis=-1), np.repeat(np.sin(ang), 2, axis=-1)
    swapped = np.empty_like(x)
    swapped[..., 0::2], swapped[..., 1::2] = -x[..., 1::2], x[..., 0::2]
    return np.asarray(x * cos + swapped * sin)


def _hf_rotate_half(x: FloatArray) -> FloatArray:
    """Hugging Face's rotate_half: (x_a, x_b) → (−x_b, x_a) for the two halves."""
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


@claim(
    "rope.pseudocode_layout",
    source="RoFormer §3.4.2, Eq. (34)",
    statement="The element-wise pseudocode `x*cos + rotate_half(x)*sin` with `rotate_half` mapping $(x_1, x_2,"
    r" \ldots) \to (-x_2, x_1, \ldots)$ and one $\theta$ per adjacent pair computes what Hugging "
    "Face's `rotate_half` computes",
    expected="fails",
)
def rope_pseudocode_layout() -> Evidence:
    rng, T, d = _common.rng(201), 16, 32
    x = rng.standard_normal((T, d))
    ang = rotary.rope_angles(np.arange(T), d)
    note = _pseudocode(x, ang)
    hf_toolkit = np.asarray(rotary.rotate(x, ang, "half"))  # GPT-NeoX / Hugging Face layout
    same = _common.rel_err(note, hf_toolkit)
    # the note's pseudocode is GPT-J's every-two layout; HF's formula needs cos/sin half by half
    gptj = _common.rel_err(note, rotary.rotate(x, ang, "interleaved"))
    cos_h, sin_h = (np.concatenate([f(ang), f(ang)], axis=-1) for f in (np.cos, np.sin))
    hf = _common.rel_err(x * cos_h + _hf_rotate_half(x) * sin_h, hf_toolkit)

    # mixing the two: HF's rotate_half with the note's pair-repeated cos/sin
    def mixed(v: FloatArray, a: FloatArray) -> FloatArray:
        c, s = np.repeat(np.cos(a), 2, axis=-1), np.repeat(np.sin(a), 2, axis=-1)
        return np.asarray(v * c + _hf_rotate_half(v) * s)

    norm_change = float(np.max(np.abs(np.linalg.norm(mixed(x, ang), axis=-1) / np.linalg.norm(x, axis=-1) - 1)))
    q, k = rng.standard_normal((2, d))
    a_m, a_n = rotary.rope_angles(np.array([3, 0]), d), rotary.rope_angles(np.array([10, 7]), d)
    s1, s2 = float(mixed(q, a_m[0]) @ mixed(k, a_m[1])), float(mixed(q, a_n[0]) @ mixed(k, a_n[1]))
    shift = abs(s1 - s2) / float(np.linalg.norm(q) * np.linalg.norm(k))
    tol = _common.tol(8) * 32  # angles up to 15 rad
    return Evidence(
        verdict=derive_verdict(same < tol),
        values={
            "pseudocode_vs_half_layout": same,
            "pseudocode_vs_interleaved_layout": gptj,
            "hf_formula_vs_half_layout": hf,
            "mixed_max_norm_change": norm_change,
            "mixed_scores_positions_3_0_vs_10_7": [s1, s2],
        },
        tolerance=f"relative {tol:.1e} (angles up to 15 rad); norm change and shift dependence count above 1e-3",
        inputs={"T": T, "d": d, "seed": _common.SEED + 201},
        counterexample={
            "position": 1,
            "pseudocode": note[1, :4].tolist(),
            "hf_half_layout": hf_toolkit[1, :4].tolist(),
        },
        corrected="The pseudocode is GPT-J's every-two swap (pairs $(2i, 2i+1)$, the interleaved layout); Hugging Face's "
        r"`rotate_half` $(x_a, x_b) \to (-x_b, x_a)$ pairs $(i, i + d/2)$ and needs cos/sin laid out half by half. "
        "The two differ by a channel permutation; mixing them (HF's `rotate_half` with pair-repeated cos/sin) is not "
        f"a rotation (norms change by up to {norm_change:.0%}) and the score depends on absolute positions.",
        corrected_holds=gptj < tol and hf < tol and norm_change > 1e-3 and shift > 1e-3,
    )


@claim(
    "rope.base_dependence",
    source="RoFormer §3.4.3, §4",
    statement="The base only rescales the long-term decay: base 2 instead of $10^4$ behaves the same on a "
    "shorter scale",
    expected="fails",
)
def rope_base_dependence() -> Evidence:
    d, r = 128, np.arange(0, 2000.0)
    rows = {}
    for base in (2.0, 10000.0):
        B = np.asarray(rotary.decay_bound(r, d, base))
        env = B.reshape(-1, 50).mean(axis=1)  # the envelope: B's mean over 50-position blocks
        floor = int(np.argmin(env))
        theta = np.asarray(rotary.frequencies(d, base))
        rows[base] = {
            "floor_block_start": floor * 50,
            "floor": float(env[floor]),
            "max_after_floor": float(np.max(env[floor:])),
            "rise_after_floor": float(np.max(env[floor:]) / env[floor]),
            "envelope_at_r_2000": float(env[-1]),
            "longest_wavelength": float(2 * np.pi / np.min(theta)),
            "numpy_route_error": _common.rel_err(B, _np_decay_bound(r, base ** (-2.0 * np.arange(d // 2) / d))),
        }
    small, big = rows[2.0], rows[10000.0]
    # "the same on a shorter scale": once at its floor, the envelope stays there (within a factor 2)
    same = small["rise_after_floor"] < 2.0
    tol = _common.tol(d) * 4096  # angles up to 2000 rad
    corrected_ok = (
        big["rise_after_floor"] < 2.0
        and small["rise_after_floor"] > 2.0
        and small["longest_wavelength"] < 4 * np.pi
        and max(small["numpy_route_error"], big["numpy_route_error"]) < tol
    )
    return Evidence(
        verdict=derive_verdict(same),
        values={"base_2": small, "base_10000": big},
        tolerance=f"the envelope (mean of B over 50 positions) may rise at most ×2 after its floor; toolkit B vs NumPy "
        f"{tol:.1e} relative",
        inputs={"d": d, "bases": [2.0, 10000.0], "r": "0..1999"},
        counterexample={
            "base": 2.0,
            "floor_at_r": small["floor_block_start"],
            "floor": small["floor"],
            "envelope_later_max": small["max_after_floor"],
        },
        corrected=f"At $d = 128$ base 2 brings $B$'s envelope to its floor ({small['floor']:.2f}) by "
        rf"$r \approx {small['floor_block_start']}$, then it rises ×{small['rise_after_floor']:.1f}: every pair's "
        rf"wavelength is $\le {small['longest_wavelength']:.1f} < 4\pi$ tokens, so distances alias. Base $10^4$ "
        f"decays over hundreds of tokens and its envelope rises at most ×{big['rise_after_floor']:.2f} after its "
        r"floor within $r < 2000$.",
        corrected_holds=corrected_ok,
    )
