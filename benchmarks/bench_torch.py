"""ropelab.attention.softmax against PyTorch's ``scaled_dot_product_attention`` on the CPU.

Exact causal softmax attention, ``(B, T, d) = (1 | 8, 4096, 64)``, ``d_v = 64``: ropelab against
torch at equal precision — both in float64, and both in float32 (the same inputs rounded to
float32: ropelab's float32 path) — on one thread and on all cores (``torch.set_num_threads`` and
``nthreads``), in one process. Prints first the agreement of the outputs (max |ropelab − torch| at
each precision), then the best-of-``--repeat`` wall times and the ratios torch time / ropelab time
at each precision (> 1: ropelab is faster), the load average before and after (the machine may be
shared: compare ratios, not times across runs). The contenders of a row run interleaved, one call
of each per round, so that a host whose speed drifts slows them alike.

Then causal random-feature attention (trig features, ``D = 256``, the same frequencies
``ropelab.rff.sample_omega(D, d, index=0, seed=0)``): torch has no built-in, so the baseline is the
same chunked algorithm written in torch (features ``exp(‖x'‖²/2)/√D [cos ω·x' | sin ω·x']``, per
chunk of 64 rows ``φ_q S + tril(φ_q φ_kᵀ) [V | 1]`` then ``S += φ_kᵀ [V | 1]``), float64 and
float32, on the first batch size only (ropelab's float32 row: its float32 path, float32 in, out
and throughout). Its agreement is relative to the largest output (the estimate's denominators can
be small).

Then the gated delta rule (``ropelab.recurrence.delta_rule`` with gates, unit keys, ``β ∈ (0, 1)``,
``α ∈ [0.9, 1]``), ``--delta-batch`` sequences (default 1 and 16) of the same T and d: torch has no
built-in either, so the baseline is the chunked WY form of the recurrence written in torch (as
flash-linear-attention's naive reference ``chunk_gated_delta_rule_ref``, chunks of 64 tokens, the
triangular system of each chunk solved with ``torch.linalg.solve_triangular``), float64 against
ropelab's float64 path and float32 against ropelab's float32 path (float32 ``q``, ``k``, ``v``).
Its agreement is relative to the largest output and printed before any time.

PyTorch is an optional dependency: without it the script says so in one line and exits.
Not a test: ``python benchmarks/bench_torch.py [--repeat N] [--T T] [--d d] [--batch 1 8]
[--delta-batch 1 16] [--only attention | random-feature | delta]`` (``random-feature``: the
random-feature agreement and rows only).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of_interleaved, header

try:
    import torch
except ImportError:
    print("bench_torch.py: skipped, PyTorch is not installed (pip install torch)")
    sys.exit(0)

import ropelab as rl

CHUNK = 64


def torch_random_feature(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, omega: torch.Tensor) -> torch.Tensor:
    """Causal trig random-feature attention in torch, chunked like ropelab's (no stabilisation)."""
    s = q.shape[-1] ** -0.25  # √scale with scale = 1/√d
    D = omega.shape[0]

    def phi(x: torch.Tensor) -> torch.Tensor:
        x = x * s
        p = x @ omega.T
        amp = torch.exp(0.5 * (x * x).sum(-1, keepdim=True)) / D**0.5
        return amp * torch.cat([torch.cos(p), torch.sin(p)], -1)

    with torch.no_grad():
        fq, fk = phi(q), phi(k)
        v1 = torch.cat([v, torch.ones(v.shape[:-1] + (1,), dtype=v.dtype)], -1)
        state = torch.zeros(q.shape[0], fq.shape[-1], v1.shape[-1], dtype=v.dtype)
        out = torch.empty(q.shape[:-1] + (v1.shape[-1],), dtype=v.dtype)
        mask = torch.tril(torch.ones(CHUNK, CHUNK, dtype=v.dtype))
        for c0 in range(0, q.shape[1], CHUNK):
            a, b = fq[:, c0 : c0 + CHUNK], fk[:, c0 : c0 + CHUNK]
            n = a.shape[1]
            out[:, c0 : c0 + n] = a @ state + ((a @ b.transpose(1, 2)) * mask[:n, :n]) @ v1[:, c0 : c0 + n]
            state = state + b.transpose(1, 2) @ v1[:, c0 : c0 + n]
        return out[..., :-1] / out[..., -1:]


COLUMNS = (
    f"{'case':<16}{'threads':>8}{'ropelab f64':>13}{'torch f64':>11}{'ropelab f32':>13}{'torch f32':>11}"
    f"{'ratio f64':>11}{'ratio f32':>11}"
)


def row(case: str, n: int, t_rl: float, t_64: float, t_rl32: float, t_32: float) -> str:
    """One table row: times in ms, ratios torch / ropelab at equal precision."""
    return (
        f"{case:<16}{n:>8}{t_rl * 1e3:>10.1f} ms{t_64 * 1e3:>8.1f} ms{t_rl32 * 1e3:>10.1f} ms{t_32 * 1e3:>8.1f} ms"
        f"{t_64 / t_rl:>11.2f}{t_32 / t_rl32:>11.2f}"
    )


def torch_gated_delta(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, beta: torch.Tensor, gates: torch.Tensor
) -> torch.Tensor:
    """The gated delta rule ``S_t = S_{t−1} α_t (I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ``, ``o_t = S_t q_t``
    in torch, in the chunked WY form (flash-linear-attention's ``chunk_gated_delta_rule_ref``; the
    state kept as ``Sᵀ``, d×dv). q, k (B, T, d), v (B, T, dv), beta and gates (B, T); T a
    multiple of CHUNK."""
    B, T, d = q.shape
    dv = v.shape[-1]
    n, C = T // CHUNK, CHUNK
    with torch.no_grad():
        qc, kc = q.reshape(B, n, C, d), k.reshape(B, n, C, d)
        bc = beta.reshape(B, n, C, 1)
        vb, kb = v.reshape(B, n, C, dv) * bc, kc * bc
        g = torch.log(gates).reshape(B, n, C).cumsum(-1)  # log of the gates' product within the chunk
        decay = (g[..., :, None] - g[..., None, :]).tril().exp().tril()  # Π α over (j, i]
        strict = torch.tril(torch.ones(C, C, dtype=torch.bool), -1)
        # (I + L) W = [β V | β K e^g], L strictly lower: L_ij = β_i (k_i·k_j) Π α (j, i]
        L = ((kb @ kc.transpose(-1, -2)) * decay).masked_fill(~strict, 0)
        eye = torch.eye(C, dtype=q.dtype)
        rhs = torch.cat([vb, kb * g.exp()[..., None]], -1)
        w = torch.linalg.solve_triangular(L + eye, rhs, upper=False, unitriangular=True)
        u, wk = w[..., :dv], w[..., dv:]
        causal = torch.tril(torch.ones(C, C, dtype=torch.bool))
        S = torch.zeros(B, d, dv, dtype=q.dtype)
        out = torch.empty(B, n, C, dv, dtype=q.dtype)
        for i in range(n):
            qi, ki, gi = qc[:, i], kc[:, i], g[:, i]
            vnew = u[:, i] - wk[:, i] @ S
            att = ((qi @ ki.transpose(-1, -2)) * decay[:, i]).masked_fill(~causal, 0)
            out[:, i] = (qi * gi.exp()[..., None]) @ S + att @ vnew
            S = (
                S * gi[:, -1, None, None].exp()
                + (ki * (gi[:, -1, None] - gi).exp()[..., None]).transpose(-1, -2) @ vnew
            )
        return out.reshape(B, T, dv)


def delta_section(args: argparse.Namespace, cores: int) -> None:
    """Agreement, then times, of the gated delta rule in both precisions."""
    rng = np.random.default_rng(1)
    T, d = args.T - args.T % CHUNK, args.d
    cases = []
    for B in args.delta_batch:
        q = rng.standard_normal((B, T, d))
        k = rng.standard_normal((B, T, d))
        k /= np.linalg.norm(k, axis=-1, keepdims=True)
        v = rng.standard_normal((B, T, d))
        beta, gates = rng.uniform(0, 1, (B, T)), rng.uniform(0.9, 1, (B, T))
        f64 = (q, k, v, beta, gates)
        f32 = tuple(x.astype(np.float32) for x in f64)
        t64 = tuple(torch.from_numpy(x) for x in f64)
        t32 = tuple(torch.from_numpy(x) for x in f32)
        o64 = rl.recurrence.delta_rule(q, k, v, beta, gates=gates)
        o32 = rl.recurrence.delta_rule(f32[0], f32[1], f32[2], f32[3], gates=f32[4])
        assert o32.dtype == np.float32
        top = float(np.abs(o64).max())
        e64 = float(np.abs(o64 - torch_gated_delta(*t64).numpy()).max()) / top
        e32 = float(np.abs(o32.astype(np.float64) - torch_gated_delta(*t32).double().numpy()).max()) / top
        e32_64 = float(np.abs(o32.astype(np.float64) - o64).max()) / top
        print(
            f"agreement gated delta B={B}: max |ropelab - torch| / max |ropelab|: float64 {e64:.2e}, "
            f"float32 {e32:.2e} (ropelab float32 vs float64: {e32_64:.2e})"
        )
        assert e64 < 1e-10 and e32 < 1e-3, "ropelab and torch disagree"
        cases.append((B, f64, f32, t64, t32))
    print()
    print(
        f"gated delta rule, T={T}, d=d_v={d}; best of {args.repeat}; ratio = torch time / ropelab time (same precision)"
    )
    print(
        f"{'case':<16}{'threads':>8}{'ropelab f64':>13}{'torch f64':>11}{'ratio f64':>11}"
        f"{'ropelab f32':>13}{'torch f32':>11}{'ratio f32':>11}"
    )
    for B, f64, f32, t64, t32 in cases:
        for n in sorted({1, cores}):
            torch.set_num_threads(n)
            r64, r32, x64, x32 = best_of_interleaved(
                [
                    lambda: rl.recurrence.delta_rule(*f64[:4], gates=f64[4], nthreads=n),
                    lambda: rl.recurrence.delta_rule(*f32[:4], gates=f32[4], nthreads=n),
                    lambda: torch_gated_delta(*t64),
                    lambda: torch_gated_delta(*t32),
                ],
                args.repeat,
            )
            print(
                f"{'delta B=' + str(B):<16}{n:>8}{r64 * 1e3:>10.1f} ms{x64 * 1e3:>8.1f} ms{x64 / r64:>11.2f}"
                f"{r32 * 1e3:>10.1f} ms{x32 * 1e3:>8.1f} ms{x32 / r32:>11.2f}"
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--T", type=int, default=4096, help="sequence length (default 4096)")
    ap.add_argument("--d", type=int, default=64, help="head dimension, also d_v (default 64)")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8], help="batch sizes (default 1 8)")
    ap.add_argument(
        "--delta-batch", type=int, nargs="+", default=[1, 16], help="batch sizes of the delta rule (default 1 16)"
    )
    ap.add_argument("--only", choices=["attention", "random-feature", "delta"], help="run one part only")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(header())
    print(f"torch {torch.__version__} (CPU, {torch.get_num_threads()} threads by default)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.only == "delta":
        delta_section(args, cores)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    rng = np.random.default_rng(0)
    cases = []
    for B in args.batch:
        q, k, v = rng.standard_normal((3, B, args.T, args.d))
        # (B, 1, T, d): torch's fused CPU kernel takes 4-d inputs (3-d ones run its slower unfused path)
        t64 = [torch.from_numpy(x[:, None]) for x in (q, k, v)]
        t32 = [x.float() for x in t64]

        def sdpa(ts: list[torch.Tensor]) -> torch.Tensor:
            with torch.no_grad():
                return torch.nn.functional.scaled_dot_product_attention(*ts, is_causal=True)[:, 0]

        q32, k32, v32 = (x.astype(np.float32) for x in (q, k, v))
        if args.only == "random-feature":
            cases.append((B, (q, k, v), (q32, k32, v32), t64, t32, sdpa))
            break
        out = rl.attention.softmax(q, k, v)
        out32 = rl.attention.softmax(q32, k32, v32)
        assert out32.dtype == np.float32
        e64 = float(np.abs(out - sdpa(t64).numpy()).max())
        e32 = float(np.abs(out32 - sdpa(t32).numpy()).max())
        print(
            f"agreement B={B}: max |ropelab - torch|, float64: {e64:.2e}, float32: {e32:.2e}"
            f" (ropelab float32 vs its float64: {float(np.abs(out32 - out).max()):.2e})"
        )
        assert e64 < 1e-12 and e32 < 1e-4, "ropelab and torch disagree"
        cases.append((B, (q, k, v), (q32, k32, v32), t64, t32, sdpa))
    rB, r64a, r32a, r64t, r32t, _ = cases[0]  # random features: the first batch size
    D = 256
    omega = rl.rff.sample_omega(D, args.d, index=0, seed=0)
    o64, o32 = torch.from_numpy(omega), torch.from_numpy(omega).float()
    out = rl.attention.random_feature(*r64a, D)
    out32 = rl.attention.random_feature(*r32a, D)
    top = float(np.abs(out).max())
    r64 = float(np.abs(out - torch_random_feature(*(x[:, 0] for x in r64t), o64).numpy()).max()) / top
    r32 = float(np.abs(out32 - torch_random_feature(*(x[:, 0] for x in r32t), o32).numpy()).max()) / top
    print(
        f"agreement random-feature B={rB}: max |ropelab - torch| / max |ropelab|, float64: {r64:.2e}, float32: {r32:.2e}"
    )
    # float32: mostly torch's own rounding (unstabilised features, amplitudes e^{‖x'‖²/2}), ~1e-3
    assert r64 < 1e-10 and r32 < 1e-2, "ropelab and torch disagree"
    print()
    print(
        f"exact causal softmax attention, T={args.T}, d=d_v={args.d}; best of {args.repeat}; ratio = torch time / ropelab time"
    )
    print(COLUMNS)
    for B, a64, a32, t64, t32, sdpa in cases if args.only != "random-feature" else []:
        for n in sorted({1, cores}):
            torch.set_num_threads(n)
            t_rl, t_64, t_rl32, t_32 = best_of_interleaved(
                [
                    lambda: rl.attention.softmax(*a64, nthreads=n),
                    lambda: sdpa(t64),
                    lambda: rl.attention.softmax(*a32, nthreads=n),
                    lambda: sdpa(t32),
                ],
                args.repeat,
            )
            print(row("softmax B=" + str(B), n, t_rl, t_64, t_rl32, t_32))
    print()
    print(f"causal random-feature attention (trig, D={D}), T={args.T}, d=d_v={args.d}; best of {args.repeat}")
    print(COLUMNS)
    for n in sorted({1, cores}):
        torch.set_num_threads(n)
        t_rl, t_64, t_rl32, t_32 = best_of_interleaved(
            [
                lambda: rl.attention.random_feature(*r64a, D, nthreads=n),
                lambda: torch_random_feature(*(x[:, 0] for x in r64t), o64),
                lambda: rl.attention.random_feature(*r32a, D, nthreads=n),
                lambda: torch_random_feature(*(x[:, 0] for x in r32t), o32),
            ],
            args.repeat,
        )
        print(row("rf B=" + str(rB), n, t_rl, t_64, t_rl32, t_32))
    if args.only is None:
        print()
        delta_section(args, cores)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
