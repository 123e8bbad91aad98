"""A reference, not a comparison: the work of ``bench_torch.py`` done by PyTorch on a CUDA GPU.

ropelab has no GPU backend (CI has no GPU). This script times, on the GPU, the same PyTorch code
``bench_torch.py`` times on the CPU, on the same sizes: exact causal softmax attention
(``scaled_dot_product_attention``, ``(B, T, d) = (1 | 8, 4096, 64)``), causal random-feature
attention (trig features, ``D = 256``, ``bench_torch.torch_random_feature``, B = 1) and the gated
delta rule in its chunked WY form (``bench_torch.torch_gated_delta``, B = 1 and 16), in float64,
float32 and (softmax only) bfloat16. Each output is first compared with ropelab's float64 result
on the CPU (max |difference| relative to the largest output). Times are the best of ``--repeat``
calls, each ended by ``torch.cuda.synchronize()``, after one warm-up call.

Without PyTorch or without a CUDA device the script says so in one line and exits.
Run: ``python benchmarks/bench_torch_gpu.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import header

try:
    import torch
except ImportError:
    print("bench_torch_gpu.py: skipped, PyTorch is not installed")
    sys.exit(0)
if not torch.cuda.is_available():
    print("bench_torch_gpu.py: skipped, no CUDA device")
    sys.exit(0)

import bench_torch as bt

import ropelab as rl


def gpu_best_of(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls, each waited for on the device, after one warm-up call."""
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return min(times)


def relative(out: torch.Tensor, ref: np.ndarray) -> float:
    """max |out − ref| / max |ref|."""
    return float(np.abs(out.double().cpu().numpy() - ref).max() / np.abs(ref).max())


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=20, help="best of N calls (default 20)")
    args = ap.parse_args()
    T, d, D = 4096, 64, 256
    print(header())
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}")
    torch.set_default_device("cuda")  # the tensors bench_torch's functions make land on the GPU
    rng = np.random.default_rng(0)
    print(f"\n{'case':<22}{'dtype':>10}{'time':>12}{'max rel. diff.':>17}")

    def report(case: str, dtype: torch.dtype, seconds: float, diff: float) -> None:
        print(f"{case:<22}{str(dtype).removeprefix('torch.'):>10}{seconds * 1e3:>9.3f} ms{diff:>17.2e}")

    for B in (1, 8):
        q, k, v = rng.standard_normal((3, B, T, d))
        ref = rl.attention.softmax(q, k, v)
        for dtype in (torch.float64, torch.float32, torch.bfloat16):
            ts = [torch.from_numpy(x[:, None]).to("cuda", dtype) for x in (q, k, v)]

            def sdpa(ts: list[torch.Tensor] = ts) -> torch.Tensor:
                with torch.no_grad():
                    return torch.nn.functional.scaled_dot_product_attention(*ts, is_causal=True)[:, 0]

            report(f"softmax B={B}", dtype, gpu_best_of(sdpa, args.repeat), relative(sdpa(), ref))
    q, k, v = rng.standard_normal((3, 1, T, d))
    omega = rl.rff.sample_omega(D, d, index=0, seed=0)
    ref = rl.attention.random_feature(q, k, v, D)
    for dtype in (torch.float64, torch.float32):
        ts = [torch.from_numpy(x).to("cuda", dtype) for x in (q, k, v)]
        om = torch.from_numpy(omega).to("cuda", dtype)

        def rf(ts: list[torch.Tensor] = ts, om: torch.Tensor = om) -> torch.Tensor:
            return bt.torch_random_feature(*ts, om)

        report("random-feature B=1", dtype, gpu_best_of(rf, args.repeat), relative(rf(), ref))
    for B in (1, 16):
        q = rng.standard_normal((B, T, d))
        k = rng.standard_normal((B, T, d))
        k /= np.linalg.norm(k, axis=-1, keepdims=True)
        v = rng.standard_normal((B, T, d))
        beta, gates = rng.uniform(0, 1, (B, T)), rng.uniform(0.9, 1, (B, T))
        ref = rl.recurrence.delta_rule(q, k, v, beta, gates=gates)
        for dtype in (torch.float64, torch.float32):
            ts = [torch.from_numpy(x).to("cuda", dtype) for x in (q, k, v, beta, gates)]

            def delta(ts: list[torch.Tensor] = ts) -> torch.Tensor:
                return bt.torch_gated_delta(*ts)

            report(f"gated delta B={B}", dtype, gpu_best_of(delta, args.repeat), relative(delta(), ref))


if __name__ == "__main__":
    main()
