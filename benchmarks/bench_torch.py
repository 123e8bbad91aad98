"""ropelab.attention.softmax against PyTorch's ``scaled_dot_product_attention`` on the CPU.

Exact causal softmax attention, ``(B, T, d) = (1 | 8, 4096, 64)``, ``d_v = 64``: ropelab in
float64 against torch in float64 and in float32 (the same inputs rounded), on one thread and on
all cores (``torch.set_num_threads`` and ``nthreads``), in one process. Prints first the agreement
of the outputs (max |ropelab − torch|), then the best-of-``--repeat`` wall times and the ratio
torch time / ropelab time (> 1: ropelab is faster), the load average before and after (the machine
may be shared: compare ratios, not times across runs).

Then causal random-feature attention (trig features, ``D = 256``, the same frequencies
``ropelab.rff.sample_omega(D, d, index=0, seed=0)``): torch has no built-in, so the baseline is the
same chunked algorithm written in torch (features ``exp(‖x'‖²/2)/√D [cos ω·x' | sin ω·x']``, per
chunk of 64 rows ``φ_q S + tril(φ_q φ_kᵀ) [V | 1]`` then ``S += φ_kᵀ [V | 1]``), float64 and
float32, on the first batch size only. Its agreement is relative to the largest output (the
estimate's denominators can be small).

PyTorch is an optional dependency: without it the script says so in one line and exits.
Not a test: ``python benchmarks/bench_torch.py [--repeat N] [--T T] [--d d] [--batch 1 8]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, header

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--T", type=int, default=4096, help="sequence length (default 4096)")
    ap.add_argument("--d", type=int, default=64, help="head dimension, also d_v (default 64)")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8], help="batch sizes (default 1 8)")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    print(header())
    print(f"torch {torch.__version__} (CPU, {torch.get_num_threads()} threads by default)")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
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

        out = rl.attention.softmax(q, k, v)
        e64 = float(np.abs(out - sdpa(t64).numpy()).max())
        e32 = float(np.abs(out - sdpa(t32).double().numpy()).max())
        print(f"agreement B={B}: max |ropelab - torch float64| = {e64:.2e}, max |ropelab - torch float32| = {e32:.2e}")
        assert e64 < 1e-12 and e32 < 1e-4, "ropelab and torch disagree"
        cases.append((B, q, k, v, t64, t32, sdpa))
    rB, rq, rk, rv, r64t, r32t, _ = cases[0]  # random features: the first batch size
    D = 256
    omega = rl.rff.sample_omega(D, args.d, index=0, seed=0)
    o64, o32 = torch.from_numpy(omega), torch.from_numpy(omega).float()
    out = rl.attention.random_feature(rq, rk, rv, D)
    top = float(np.abs(out).max())
    r64 = float(np.abs(out - torch_random_feature(*(x[:, 0] for x in r64t), o64).numpy()).max()) / top
    r32 = float(np.abs(out - torch_random_feature(*(x[:, 0] for x in r32t), o32).double().numpy()).max()) / top
    print(
        f"agreement random-feature B={rB}: max |ropelab - torch float64| / max |ropelab| = {r64:.2e}, float32: {r32:.2e}"
    )
    assert r64 < 1e-10, "ropelab and torch disagree"
    print()
    print(
        f"exact causal softmax attention, T={args.T}, d=d_v={args.d}; best of {args.repeat}; ratio = torch time / ropelab time"
    )
    print(
        f"{'case':<16}{'threads':>8}{'ropelab f64':>13}{'torch f64':>11}{'torch f32':>11}{'ratio f64':>11}{'ratio f32':>11}"
    )
    for B, q, k, v, t64, t32, sdpa in cases:
        for n in sorted({1, cores}):
            torch.set_num_threads(n)
            t_rl = best_of(lambda: rl.attention.softmax(q, k, v, nthreads=n), args.repeat)
            t_64 = best_of(lambda: sdpa(t64), args.repeat)
            t_32 = best_of(lambda: sdpa(t32), args.repeat)
            print(
                f"{'softmax B=' + str(B):<16}{n:>8}{t_rl * 1e3:>10.1f} ms{t_64 * 1e3:>8.1f} ms{t_32 * 1e3:>8.1f} ms"
                f"{t_64 / t_rl:>11.2f}{t_32 / t_rl:>11.2f}"
            )
    print()
    print(f"causal random-feature attention (trig, D={D}), T={args.T}, d=d_v={args.d}; best of {args.repeat}")
    print(
        f"{'case':<16}{'threads':>8}{'ropelab f64':>13}{'torch f64':>11}{'torch f32':>11}{'ratio f64':>11}{'ratio f32':>11}"
    )
    for n in sorted({1, cores}):
        torch.set_num_threads(n)
        t_rl = best_of(lambda: rl.attention.random_feature(rq, rk, rv, D, nthreads=n), args.repeat)
        t_64 = best_of(lambda: torch_random_feature(*(x[:, 0] for x in r64t), o64), args.repeat)
        t_32 = best_of(lambda: torch_random_feature(*(x[:, 0] for x in r32t), o32), args.repeat)
        print(
            f"{'rf B=' + str(rB):<16}{n:>8}{t_rl * 1e3:>10.1f} ms{t_64 * 1e3:>8.1f} ms{t_32 * 1e3:>8.1f} ms"
            f"{t_64 / t_rl:>11.2f}{t_32 / t_rl:>11.2f}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
