"""Benchmark: one sweep on the local backend and on a Dask LocalCluster, in the same process.

Not a test. The grid is ``rff_mse`` over ξ × D × σ; ``trials`` is calibrated so that the smallest
cells take about ``--cell-ms`` milliseconds on the local backend (all cores). Both backends compute
the same cells and the tables are checked to be bit-identical. Printed: cells/s of each backend,
the overhead of the Dask path relative to local (target < 15 % for cells of ≥ 50 ms), and the
same for small cells, where the per-task overhead shows. The cluster (one single-threaded worker
process per core) is started, and ropelab imported on its workers, before the timing starts.

Run: ``python benchmarks/bench_sweep.py [--cell-ms 80] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np
import pandas as pd
from _common import header, timed

from ropelab import sweep

XI = [0.1, 0.3, 0.5, 0.7, 0.9]
D = [128, 256]
SIGMA = [0.25, 0.5, 0.75, 1.0, 1.25, "paper", "optimal"]  # 5 × 2 × 7 = 70 cells


def calibrate(cell_ms: float) -> int:
    """Trials per cell such that the smallest cells (D = 128) take about ``cell_ms`` locally."""
    probe = 40_000
    t, _ = timed(lambda: sweep.run("rff_mse", {"xi": 0.5, "D": 128}, trials=probe, progress=False), 3)
    return max(100, int(probe * cell_ms / 1e3 / t))


def compare(client: Any, trials: int, repeat: int, label: str) -> None:
    grid = {"xi": XI, "D": D, "sigma": SIGMA}
    n = int(np.prod([len(v) for v in grid.values()]))
    # interleaved (local, Dask, local, Dask, ...) so that both see the same load on a shared machine
    t_local = t_dask = float("inf")
    for _ in range(repeat):
        t, local = timed(lambda: sweep.run("rff_mse", grid, trials=trials, seed=1, progress=False), 1)
        t_local = min(t_local, t)
        t, dask = timed(lambda: sweep.run("rff_mse", grid, trials=trials, seed=1, backend=client, progress=False), 1)
        t_dask = min(t_dask, t)
    same = local.equals(dask) and all(
        local[c].to_numpy().tobytes() == dask[c].to_numpy().tobytes()
        for c in local.columns
        if local[c].dtype.kind in "biuf"
    )
    print(f"{label}: {n} cells, {trials} trials per cell (D = {D}), mean cell {1e3 * t_local / n:.1f} ms locally")
    print(f"  local (core threads)          {n / t_local:8.2f} cells/s   ({t_local:.2f} s)")
    print(f"  Dask LocalCluster             {n / t_dask:8.2f} cells/s   ({t_dask:.2f} s)")
    print(f"  Dask overhead vs local        {100 * (t_dask / t_local - 1):+7.1f} %")
    print(f"  tables bit-identical          {same}")
    print(f"  load average after            {os.getloadavg()[0]:.2f} (2 = both cores busy; more = other work)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--cell-ms", type=float, default=80.0, help="target time of the smallest cells locally (default 80)"
    )
    ap.add_argument("--small-ms", type=float, default=5.0, help="the small-cell comparison (default 5)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = ap.parse_args()
    import distributed

    print(header())
    print(f"pandas {pd.__version__}, dask/distributed {distributed.__version__}")
    cores = os.cpu_count() or 1
    t = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=cores, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(lambda: __import__("ropelab.sweep"))
        sweep.run("rff_mse", {"xi": 0.5, "D": 8}, trials=10, backend=client, progress=False)  # warm-up
        print(
            f"LocalCluster: {cores} worker processes x 1 thread, started in {time.perf_counter() - t:.2f} s "
            "(not included below)"
        )
        compare(client, calibrate(args.cell_ms), args.repeat, f"cells of ~{args.cell_ms:g} ms")
        compare(client, calibrate(args.small_ms), args.repeat, f"cells of ~{args.small_ms:g} ms")


if __name__ == "__main__":
    main()
