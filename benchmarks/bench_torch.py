"""ropelab.attention.softmax against PyTorch's ``scaled_dot_product_attention`` on the CPU.

Exact causal softmax attention, ``(B, T, d) = (1 | 8, 4096, 64)``, ``d_v = 64``: ropelab in
float64 against torch in float64 and in float32 (the same inputs rounded), on one thread and on
all cores (``torch.set_num_threads`` and ``nthreads``), in one process. Prints first the agreement
of the outputs (max |ropelab − torch|), then the best-of-``--repeat`` wall times and the ratio
torch time / ropelab time (> 1: ropelab is faster), the load average before and after (the machine
may be shared: compare ratios, not times across runs).

PyTorch is an optional dependency: without it the script says so in one line and exits.
Not a test: ``python benchmarks/bench_torch.py [--repeat N] [--T T] [--batch 1 8]``.
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
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
