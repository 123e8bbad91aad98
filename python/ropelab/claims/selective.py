"""Claims of the Selective RoPE section: pre-rotation equals the rotating recurrence (Eq. (13)),
parity in the phase, and the input-dependent phase path (Selective RoPE §3.1, §3.3, §4.1).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ropelab import recurrence, rotary, selective, temperature, transition
from ropelab._types import FloatArray
from ropelab.claims import _common
from ropelab.claims._registry import Evidence, claim, derive_verdict


@claim(
    "srope.prerotation",
    source="Selective RoPE Eq. (13), §4.1",
    statement="Pre-rotating $q$, $k$ by $C_t$ equals the recurrence with rotating transitions (Eq. 13)",
    expected="holds",
)
def srope_prerotation() -> Evidence:
    T, d = 64, 16
    q, k, v, psi = _common.srope_inputs(T, d, 11)
    worst = numpy_worst = 0.0
    for layout in _common.LAYOUTS:
        a = recurrence.selective_rope_attention(q, k, v, psi, mode="prerotated", layout=layout)
        b = recurrence.selective_rope_attention(q, k, v, psi, mode="recurrent", layout=layout)
        worst = max(worst, _common.rel_err(a, b))
        # independent route (NumPy): causal linear attention on C_t q_t, C_t k_t
        C = _common.np_rotation(psi, layout)
        qr, kr = np.einsum("tij,tj->ti", C, q), np.einsum("tij,tj->ti", C, k)
        ref = np.tril(qr @ kr.T) @ v
        numpy_worst = max(numpy_worst, _common.rel_err(a, ref), _common.rel_err(b, ref))
    # third route: Eq. (3) unrolled with R_t = C_{t−1}ᵀ C_t
    R = transition.effective_sequence(psi)
    c = recurrence.linear_attention(q, k, v, R, mode="unrolled")
    worst = max(worst, _common.rel_err(c, recurrence.selective_rope_attention(q, k, v, psi)))
    tol = _common.tol(T * d * d)
    return Evidence(
        derive_verdict(worst < tol and numpy_worst < tol),
        {"max_relative_difference": worst, "max_relative_difference_vs_numpy": numpy_worst},
        f"relative {tol:.1e}; both routes are also compared with causal linear attention on the pre-rotated "
        "queries and keys evaluated in NumPy",
        {"T": T, "d": d, "layouts": list(_common.LAYOUTS), "seed": _common.SEED + 11},
    )


@claim(
    "srope.parity",
    source="Selective RoPE §4.1–§4.2",
    statement=r"$\omega_t = \pi b_t$ tracks the parity of the bits in the phase; fixed RoPE cannot depend on "
    "$b_t$",
    expected="holds",
)
def srope_parity() -> Evidence:
    rng, T = _common.rng(12), 100_000
    bits = rng.integers(0, 2, T)
    psi = rotary.cumulative_angles((np.pi * bits)[:, None], 1.0, accumulate="wrapped")[:, 0]
    parity = (-1.0) ** np.cumsum(bits)
    err = float(np.max(np.abs(np.cos(psi) - parity)))
    # Decoding from attention scores on random content: word w has tokens x_t = r_w e(b_t) with
    # e(0) = (1, 0), e(1) = (cos 1, sin 1) and a random scale r_w; its queries are x_t rotated by
    # RoPE's θt or by the Selective RoPE phase π Σ b (rotary.rotate), scored against the unrotated
    # keys x_0 and x_0 rotated by π/2. The best linear readout of the parity from (1, both scores)
    # (least squares on half of the words, scored on the other half) is at chance for RoPE and exact
    # for Selective RoPE (|ψ_t − angle| stays within 1 rad of πp, so the first score has the sign (−1)^p).
    words, L = 200, 64
    emb = np.array([[1.0, 0.0], [np.cos(1.0), np.sin(1.0)]])
    wb = rng.integers(0, 2, (words, L))
    x = rng.uniform(0.5, 2.0, (words, 1, 1)) * emb[wb]
    labels = np.cumsum(wb, axis=1) % 2
    k0 = x[:, :1]
    k1 = rotary.rotate(k0, np.full((words, 1, 1), np.pi / 2))

    def features(angles: FloatArray) -> FloatArray:
        qr = rotary.rotate(x, angles)
        return np.stack([np.ones(wb.shape), np.sum(qr * k0, -1), np.sum(qr * k1, -1)], axis=-1)

    rope_acc, rope_se = _common.readout_accuracy(features(rotary.rope_angles(np.arange(L), 2)), labels)
    sel_ph = rotary.cumulative_angles((np.pi * wb)[..., None], 1.0, accumulate="wrapped")
    sel_acc, sel_se = _common.readout_accuracy(features(sel_ph), labels)
    tol = 1e-12
    rope_chance = abs(rope_acc - 0.5) < _common.MC_SIGMAS * rope_se
    ok = err < tol and rope_chance and sel_acc == 1.0
    return Evidence(
        derive_verdict(ok),
        {
            "max_cos_psi_minus_parity": err,
            "rope_readout_accuracy": rope_acc,
            "rope_readout_se": rope_se,
            "selective_readout_accuracy": sel_acc,
            "selective_readout_se": sel_se,
        },
        f"|cos ψ_t − (−1)^Σb| < {tol:g} (wrapped accumulation keeps ψ in [0, 2π)); parity decoded from the rotated "
        f"q·k scores by the best linear readout: RoPE within {_common.MC_SIGMAS:g} standard errors (of the mean "
        "per-word accuracy over the held-out half) of 1/2, Selective RoPE exact",
        {"T": T, "theta": 1.0, "words": words, "length": L, "scale": "U(0.5, 2)", "seed": _common.SEED + 12},
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
    statement=r"The Selective RoPE phase difference $\psi_t - \psi_\tau$ depends on the whole path of inputs, "
    "not only on the endpoints",
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
        r"`skip_conv` path $x_t - x_{t-1}$ telescopes to the endpoints)",
        counterexample={
            "kernel": "first difference [−1, 1]",
            "paths": "equal at t = 0 and t = T−1, different between",
            "gap_between_the_two_angle_differences": rows["first difference"]["endpoint_paths_difference"],
        },
        corrected=r"$\psi_t - \psi_\tau = \Theta \sum_{s=\tau+1}^{t} \mathrm{conv}(x)_s$. With the first difference it "
        r"telescopes to $\Theta(x_t - x_\tau)$ (endpoints only, like the RFF rotation); any other kernel, or a "
        r"SiLU after it, makes the phase depend on the path. A kernel whose taps sum to zero sees only the "
        r"$K - 1$ inputs next to each end.",
        corrected_holds=bool(
            telescopes and closed < tol and zero_sum_window and all(depends[n] for n in depends if n not in first_diff)
        ),
    )


@claim(
    "srope.bias_only",
    source="Selective RoPE §4.1",
    statement="With a zero projection the Selective RoPE phase path reduces to RoPE: a constant angle "
    r"increment per pair ($\Theta e^{b}$, times the phase gate's constant value when a gate is used)",
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
    lookahead = 2  # 'same' padding of a 4-tap kernel (PyTorch's: 1 left, 2 right)
    x = rng.standard_normal((T, c))
    t0 = 20
    x2 = x.copy()
    x2[t0] += rng.standard_normal(c)  # change one future token

    def full(z: FloatArray) -> FloatArray:
        # NumPy: full[t] = Σ_j h_j z[t − 3 + j] (the last of the 4 taps multiplies z[t])
        return np.stack([np.convolve(z[:, i], kern[::-1]) for i in range(z.shape[1])], axis=1)

    def causal_np(z: FloatArray) -> FloatArray:
        return full(z)[:T]

    def centred_np(z: FloatArray) -> FloatArray:
        # y[t] = Σ_j h_j z[t − 1 + j]: sees z up to t + 2
        return full(z)[lookahead : lookahead + T]

    conv_vs_numpy = _common.rel_err(rotary.short_conv(x, kern), causal_np(x))
    phase = {name: rotary.selective_angles(z, kern) for name, z in (("x", x), ("x2", x2))}
    causal_leak = float(np.max(np.abs(phase["x2"][:t0] - phase["x"][:t0])))
    phase_vs_numpy = _common.rel_err(phase["x"], np.cumsum(causal_np(x), axis=0))
    cd, cd2 = np.cumsum(centred_np(x), axis=0), np.cumsum(centred_np(x2), axis=0)
    centred_leak = float(np.max(np.abs(cd2[:t0] - cd[:t0])))
    first_changed = int(np.argmax(np.any(np.abs(cd2 - cd) > 0, axis=1)))
    tol = _common.tol(T)
    ok = conv_vs_numpy < tol and phase_vs_numpy < tol and causal_leak == 0.0 and centred_leak > 1e-6
    return Evidence(
        derive_verdict(ok),
        {
            "short_conv_vs_numpy_convolve": conv_vs_numpy,
            "selective_angles_vs_numpy_cumsum": phase_vs_numpy,
            "causal_change_before_t0": causal_leak,
            "centred_change_before_t0": centred_leak,
            "centred_first_changed_step": first_changed,
        },
        f"short_conv equals numpy.convolve (first T outputs) and selective_angles its cumulative sum to {tol:.1e}; "
        "causal: no change at all before t0 (exact zero); centred (numpy.convolve, outputs shifted by the "
        "lookahead): a change above 1e-6 rad",
        {"T": T, "pairs": c, "t0": t0, "kernel": kern.tolist(), "lookahead": lookahead, "seed": _common.SEED + 110},
    )


@claim(
    "srope.streaming",
    source="Selective RoPE §3.5",
    statement="Selective RoPE at generation time (running phase and convolution cache) equals the batch "
    "computation, with constant extra state",
    expected="holds",
)
def srope_streaming() -> Evidence:
    rng, H, R, model = _common.rng(231), 2, 2, 8
    w = selective.SelectiveWeights(
        rng.standard_normal((16, model)),
        rng.standard_normal((H * R, 16)),
        selective.rotary_temperature("rope", 10000.0, 2 * R),
        num_heads=H,
        conv_weight=rng.standard_normal((H * R, 4)),
    )
    errs, sizes = {}, {}
    for T in (10, 100, 1000):
        hidden = rng.standard_normal((T, model))
        q, k = rng.standard_normal((2, T, H, 2 * R))
        qr, kr, ang = selective.apply(q, k, hidden, w)
        state = selective.SelectiveState(w)
        cuts = np.unique(np.concatenate([[0, T], rng.integers(1, T, 3), np.arange(min(T, 5))]))  # 1-token steps too
        parts = [selective.apply(q[a:b], k[a:b], hidden[a:b], w, state=state) for a, b in zip(cuts[:-1], cuts[1:])]
        sq, sk, sa = (np.concatenate([p[i] for p in parts]) for i in range(3))
        # independent route: the half-layout rotation of each head by the batch angles (NumPy)
        C = _common.np_rotation(ang, "half")
        ref_q, ref_k = np.einsum("thij,thj->thi", C, q), np.einsum("thij,thj->thi", C, k)
        errs[str(T)] = {
            "angles_streamed_vs_batch": _common.rel_err(sa, ang),
            "q_streamed_vs_batch": _common.rel_err(sq, qr),
            "k_streamed_vs_batch": _common.rel_err(sk, kr),
            "batch_rotation_vs_numpy": max(_common.rel_err(qr, ref_q), _common.rel_err(kr, ref_k)),
        }
        sizes[str(T)] = int(state.conv_cache.size + state.offset.size)
    tol = _common.tol(1000 * 16)
    ok = all(v < tol for e in errs.values() for v in e.values()) and len(set(sizes.values())) == 1
    return Evidence(
        verdict=derive_verdict(ok),
        values={"errors": errs, "extra_state_floats": sizes},
        tolerance=f"relative {tol:.1e} (1000 accumulated phase steps); the extra state (convolution cache and running "
        "phase) must have the same size after 10, 100 and 1000 steps",
        inputs={"heads": H, "pairs_per_head": R, "model_dim": model, "conv_taps": 4, "seed": _common.SEED + 231},
    )
