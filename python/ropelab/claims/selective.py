"""Claims of the Selective RoPE section: pre-rotation equals the rotating recurrence (Eq. (13)),
parity in the phase, and the input-dependent phase path (Selective RoPE §3.1, §3.3, §4.1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import recurrence, rotary, temperature, transition
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


@claim(
    "srope.prerotation",
    source="Selective RoPE Eq. (13), §4.1",
    statement="Pre-rotating q, k by C_t equals the recurrence with rotating transitions (Eq. 13)",
    expected="holds",
)
def srope_prerotation() -> Evidence:
    T, d = 64, 16
    q, k, v, psi = _common.srope_inputs(T, d, 11)
    worst = 0.0
    for layout in _common.LAYOUTS:
        a = recurrence.selective_rope_attention(q, k, v, psi, mode="prerotated", layout=layout)
        b = recurrence.selective_rope_attention(q, k, v, psi, mode="recurrent", layout=layout)
        worst = max(worst, _common.rel_err(a, b))
    # third route: Eq. (3) unrolled with R_t = C_{t−1}ᵀ C_t
    R = transition.effective_sequence(psi)
    c = recurrence.linear_attention(q, k, v, R, mode="unrolled")
    worst = max(worst, _common.rel_err(c, recurrence.selective_rope_attention(q, k, v, psi)))
    tol = _common.tol(T * d * d)
    return Evidence(
        derive_verdict(worst < tol),
        {"max_relative_difference": worst},
        f"relative {tol:.1e}",
        {"T": T, "d": d, "layouts": list(_common.LAYOUTS), "seed": _common.SEED + 11},
    )


@claim(
    "srope.parity",
    source="Selective RoPE §4.1–§4.2",
    statement="ω_t = π b_t tracks the parity of the bits in the phase; fixed RoPE cannot depend on b_t",
    expected="holds",
)
def srope_parity() -> Evidence:
    rng, T = _common.rng(12), 100_000
    bits = rng.integers(0, 2, T)
    psi = rotary.cumulative_angles((np.pi * bits)[:, None], 1.0, accumulate="wrapped")[:, 0]
    parity = (-1.0) ** np.cumsum(bits)
    err = float(np.max(np.abs(np.cos(psi) - parity)))
    # Pairs of bit strings with equal first and last bits and opposite parity in between (one
    # middle bit flipped). Tokens embed their bit: e(0) = (1, 0), e(1) = (cos 1, sin 1); the score
    # of the last query against the first key is computed from each string's own inputs.
    L, pairs = 64, 200
    emb = np.array([[1.0, 0.0], [np.cos(1.0), np.sin(1.0)]])
    rope_ang = rotary.rope_angles(np.arange(L), 2)
    rope_gap = srope_sep = middle_seen = 0.0
    min_abs = np.inf
    for _ in range(pairs):
        a = rng.integers(0, 2, L)
        b = a.copy()
        j = int(rng.integers(1, L - 1))
        b[j] ^= 1
        scores = {}
        for name, s in (("a", a), ("b", b)):
            x = emb[s]
            xr = rotary.rotate(x, rope_ang)
            ph = rotary.cumulative_angles((np.pi * s)[:, None], 1.0, accumulate="wrapped")
            xs = rotary.rotate(x, ph)
            scores[name] = (xr @ xr.T, xs @ xs.T)
        (ra, sa), (rb, sb) = scores["a"], scores["b"]
        rope_gap = max(rope_gap, abs(ra[-1, 0] - rb[-1, 0]))
        middle_seen = max(middle_seen, abs(ra[j, 0] - rb[j, 0]))  # the inputs really differ
        srope_sep = max(srope_sep, abs(sa[-1, 0] + sb[-1, 0]))  # opposite signs: sum ≈ 0
        min_abs = min(min_abs, abs(sa[-1, 0]))
    tol = 1e-12
    ok = err < tol and rope_gap < tol and middle_seen > 0.1 and srope_sep < tol and min_abs > 0.5
    return Evidence(
        derive_verdict(ok),
        {
            "max_cos_psi_minus_parity": err,
            "rope_score_difference_opposite_parity": float(rope_gap),
            "rope_score_difference_at_flipped_token": float(middle_seen),
            "selective_score_a_plus_b": float(srope_sep),
            "selective_min_abs_score": float(min_abs),
        },
        f"|cos ψ_t − (−1)^Σb| < {tol:g} (wrapped accumulation keeps ψ in [0, 2π)); RoPE scores of the two "
        f"strings equal to {tol:g}; Selective RoPE scores opposite (|s_a + s_b| < {tol:g}, |s| > 0.5)",
        {"T": T, "theta": 1.0, "pairs": pairs, "length": L, "seed": _common.SEED + 12},
    )


def _path_pair(rng: np.random.Generator, T: int, c: int) -> tuple[FloatArray, FloatArray]:
    a, b = rng.standard_normal((2, T, c))
    b[0], b[-1] = a[0], a[-1]
    return a, b


PATH_KERNELS: dict[str, list[float]] = {
    "first difference": [-1.0, 1.0],
    "scaled first difference": [-0.4, 0.4],
    "no convolution": [1.0],
    "moving average": [0.25, 0.25, 0.25, 0.25],
    "random 4-tap": [0.31, -0.74, 0.18, 0.93],
    "zero-sum 4-tap": [0.5, -1.0, 0.25, 0.25],
}


@claim(
    "srope.path_dependence",
    source="Selective RoPE §3.1, §4.1",
    statement="The Selective RoPE phase difference ψ_t − ψ_τ depends on the whole path of inputs, not only on the "
    "endpoints",
    expected="holds-if",
)
def srope_path_dependence() -> Evidence:
    rng, T, c = _common.rng(108), 32, 4
    a, b = _path_pair(rng, T, c)
    mid = a.copy()
    mid[4 : T - 4] = rng.standard_normal((T - 8, c))  # changes only far from both ends
    rows: dict[str, dict[str, Any]] = {}
    for name, kern in PATH_KERNELS.items():
        pa, pb, pm = (rotary.selective_angles(x, kern) for x in (a, b, mid))
        rows[name] = {
            "endpoint_paths_difference": float(np.max(np.abs((pa[-1] - pa[0]) - (pb[-1] - pb[0])))),
            "middle_only_difference": float(np.max(np.abs((pa[-1] - pa[0]) - (pm[-1] - pm[0])))),
            "tap_sum": float(np.sum(kern)),
        }
    silu = [rotary.selective_angles(x, PATH_KERNELS["first difference"], activation="silu") for x in (a, b)]
    rows["first difference + SiLU"] = {
        "endpoint_paths_difference": float(np.max(np.abs((silu[0][-1] - silu[0][0]) - (silu[1][-1] - silu[1][0])))),
        "middle_only_difference": None,
        "tap_sum": 0.0,
    }
    tol = _common.tol(T) * 10
    depends = {n: r["endpoint_paths_difference"] > 1e-6 for n, r in rows.items()}
    first_diff = ("first difference", "scaled first difference")
    telescopes = all(rows[n]["endpoint_paths_difference"] < tol for n in first_diff)
    zero_sum_window = (
        rows["zero-sum 4-tap"]["middle_only_difference"] < tol and rows["random 4-tap"]["middle_only_difference"] > 1e-6
    )
    fd = rotary.selective_angles(a, PATH_KERNELS["first difference"])
    closed = _common.rel_err(fd[-1] - fd[0], a[-1] - a[0])
    return Evidence(
        verdict=derive_verdict(all(depends.values()), all(v for n, v in depends.items() if n not in first_diff)),
        values={"kernels": rows, "first_difference_vs_x_t_minus_x_tau": closed},
        tolerance=f"equal when within {tol:.1e} rad, path-dependent when more than 1e-6 rad apart",
        inputs={
            "T": T,
            "pairs": c,
            "paths": "N(0,1), equal at t = 0 and t = T−1",
            "kernels": PATH_KERNELS,
            "seed": _common.SEED + 108,
        },
        condition="the angle path's short convolution is not a multiple of the first difference (the authors' "
        "skip_conv path x_t − x_{t−1} telescopes to the endpoints)",
        counterexample={
            "kernel": "first difference [−1, 1]",
            "paths": "equal at t = 0 and t = T−1, different between",
            "gap_between_the_two_angle_differences": rows["first difference"]["endpoint_paths_difference"],
        },
        corrected="ψ_t − ψ_τ = Θ Σ_{s=τ+1}^{t} conv(x)_s. With the first difference it telescopes to Θ(x_t − x_τ) "
        "(endpoints only, like the RFF rotation); any other kernel, or a SiLU after it, makes the phase depend "
        "on the path. A kernel whose taps sum to zero sees only the K−1 inputs next to each end.",
        corrected_holds=bool(
            telescopes and closed < tol and zero_sum_window and all(depends[n] for n in depends if n not in first_diff)
        ),
    )


@claim(
    "srope.bias_only",
    source="Selective RoPE §4.1",
    statement="With a zero projection the Selective RoPE phase path reduces to RoPE: a constant angle increment "
    "per pair (Θ·e^{b}, times the phase gate's constant value when a gate is used)",
    expected="holds",
)
def srope_bias_only() -> Evidence:
    rng, T, d = _common.rng(109), 64, 16
    theta = temperature.spectrum(d, "rope", base=10000.0)
    zero = np.zeros((T, d // 2))  # W_ω x_t = 0
    kern = rng.standard_normal(4)
    b = rng.normal(0.0, 0.5, d // 2)
    g = 1.0 / (1.0 + np.exp(-0.7))  # sigmoid of the gate's bias
    t1 = np.arange(1, T + 1)[:, None]
    errs = {}
    for act in (None, "silu"):
        psi = rotary.selective_angles(zero, kern, theta, act, bias=b, gates=np.full((T, 1), g))
        errs[f"gated_bias_{act}"] = _common.rel_err(psi, t1 * theta * np.exp(b) * g)
    psi0 = rotary.selective_angles(zero, kern, theta, bias=np.zeros(d // 2))
    errs["zero_bias_vs_rope_angles"] = _common.rel_err(psi0, rotary.rope_angles(np.arange(1, T + 1), d))
    inc = np.diff(rotary.selective_angles(zero, kern, theta, bias=b), axis=0)
    errs["increment_spread"] = float(np.max(np.abs(inc - inc[0])) / np.max(np.abs(inc[0])))
    # contrast: a non-zero projection makes the increments input-dependent
    x = rng.standard_normal((T, d // 2))
    inc_x = np.diff(rotary.selective_angles(x, kern, theta, bias=b), axis=0)
    spread_x = float(np.max(np.abs(inc_x - inc_x[0])) / np.max(np.abs(inc_x[0])))
    tol = _common.tol(T)
    ok = max(errs.values()) < tol and spread_x > 1e-3
    return Evidence(
        derive_verdict(ok),
        errs | {"increment_spread_nonzero_projection": spread_x},
        f"relative {tol:.1e} (T accumulated additions); the non-zero projection must spread the increments "
        "by more than 1e-3",
        {
            "T": T,
            "d": d,
            "kernel": kern.tolist(),
            "bias": "N(0, 0.5²)",
            "gate": float(g),
            "theta": "RoPE spectrum, base 10⁴",
            "seed": _common.SEED + 109,
        },
    )


@claim(
    "srope.conv_causal",
    source="Selective RoPE §4.1",
    statement="A non-causal convolution in the angle path lets future tokens change past phases",
    expected="holds",
)
def srope_conv_causal() -> Evidence:
    rng, T, c = _common.rng(110), 32, 4
    kern = rng.standard_normal(4)
    lookahead = 2  # 'same' padding of a 4-tap kernel
    x = rng.standard_normal((T, c))
    t0 = 20
    x2 = x.copy()
    x2[t0] += rng.standard_normal(c)  # change one future token

    def causal(z: FloatArray) -> FloatArray:
        return rotary.cumulative_angles(rotary.short_conv(z, kern))

    def centred(z: FloatArray) -> FloatArray:
        # y[t] = Σ_j h_j z[t − 1 + j]: the causal convolution of z advanced by two steps
        ext = np.vstack([z, np.zeros((lookahead, c))])
        return rotary.cumulative_angles(rotary.short_conv(ext, kern)[lookahead:])

    causal_leak = float(np.max(np.abs(causal(x2)[:t0] - causal(x)[:t0])))
    centred_leak = float(np.max(np.abs(centred(x2)[:t0] - centred(x)[:t0])))
    first_changed = int(np.argmax(np.any(np.abs(centred(x2) - centred(x)) > 0, axis=1)))
    via_selective = _common.rel_err(rotary.selective_angles(x, kern), causal(x))
    tol = _common.tol(T)
    ok = causal_leak == 0.0 and centred_leak > 1e-6 and via_selective < tol
    return Evidence(
        derive_verdict(ok),
        {
            "causal_change_before_t0": causal_leak,
            "centred_change_before_t0": centred_leak,
            "centred_first_changed_step": first_changed,
            "selective_angles_vs_conv_cumsum": via_selective,
        },
        f"causal: no change at all before t0 (exact zero); centred: a change above 1e-6 rad; "
        f"selective_angles equals cumsum(short_conv) to {tol:.1e}",
        {"T": T, "pairs": c, "t0": t0, "kernel": kern.tolist(), "lookahead": lookahead, "seed": _common.SEED + 110},
    )
