"""Benchmark: sweeps of small (~1 ms) and large cells, locally and on a Dask LocalCluster, with and without a store.

Not a test. Two ``rff_mse`` grids over ξ × D, ``trials`` calibrated on one thread so that a mean
cell takes about ``--small-ms`` (default 1 ms) and ``--large-ms`` (default 200 ms). Each grid runs

* locally on 1 thread, locally on all threads (``nthreads=None``), and on a Dask ``LocalCluster``
  of one single-threaded worker process per core (default batching);
* each without and with a store (a new directory each run: every cell is computed and written,
  and the parts are merged at the end).

Printed per run: wall time (best of ``--repeat``), cells per second, efficiency (the 1-thread
local time without a store over ``threads ×`` this time: 100 % is a perfect use of the threads),
the cost of the store over the same run without it, and the processor time of this process (local
runs: all their threads; on a loaded machine it shows what the store costs when wall times do not). Every table is checked to be bit-identical
to the 1-thread local one. The cluster is started, and ropelab imported on its workers, before any
timing. The load average is printed before and after: on a shared machine, timings with a load
above the core count are not meaningful.

Run: ``python benchmarks/bench_sweep.py [--quick] [--small-cells 1000] [--large-cells 64]
[--small-ms 1] [--large-ms 200] [--repeat 2] [--no-dask]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from _common import header

import ropelab as rl
from ropelab import sweep


def grid_of(cells: int, ds: list[int]) -> dict[str, Any]:
    """About ``cells`` cells: ξ evenly spaced in (-0.9, 0.9), times the given D values."""
    n_xi = max(1, round(cells / len(ds)))
    return {"xi": [round(x, 6) for x in np.linspace(-0.9, 0.9, n_xi)], "D": ds}


def calibrate(ds: list[int], cell_ms: float) -> int:
    """Trials such that a mean cell of the grid takes about ``cell_ms`` on one thread: trials are
    scaled by target / measured a few times (a cell costs a fixed time plus a time per trial), on
    a probe grid of at least 0.1 s."""
    probe_grid = grid_of(max(4 * len(ds), int(100 / cell_ms)), ds)
    n = len(probe_grid["xi"]) * len(ds)
    trials = 1000
    for _ in range(5):
        t = time.perf_counter()
        sweep.run("rff_mse", probe_grid, trials=trials, seed=0, nthreads=1, progress=False)
        per_cell = (time.perf_counter() - t) / n
        trials = max(1, int(trials * min(16.0, max(1 / 16, cell_ms / 1e3 / per_cell))))
    return trials


def bitwise_equal(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    return a.equals(b) and all(
        a[c].to_numpy().tobytes() == b[c].to_numpy().tobytes() for c in a.columns if a[c].dtype.kind in "biuf"
    )


def one_size(label: str, grid: dict[str, Any], trials: int, client: Any, repeat: int, workdir: Path) -> None:
    n = len(grid["xi"]) * len(grid["D"])
    threads = rl.simd.default_threads()
    workers = sum(client.nthreads().values()) if client is not None else 0
    runs: list[tuple[str, int, dict[str, Any]]] = [
        ("local, 1 thread", 1, {"nthreads": 1}),
        (f"local, {threads} threads", threads, {}),
    ]
    if client is not None:
        runs.append((f"Dask, {workers} workers", workers, {"backend": client}))
    print(f"\n{label}: {n} cells (ξ × D = {len(grid['xi'])} × {grid['D']}), {trials} trials a cell")
    print(f"  {'run':<22}{'store':<7}{'time s':>9}{'cells/s':>11}{'efficiency':>12}{'store cost':>12}{'cpu s':>9}")
    ref: pd.DataFrame | None = None
    base = float("nan")
    same = True
    for name, used, kw in runs:
        no_store = float("nan")
        for store in (False, True):
            best = cpu = float("inf")
            for r in range(repeat):
                path = workdir / f"s-{label[:5]}-{used}-{name[:4]}-{r}"
                shutil.rmtree(path, ignore_errors=True)
                extra = {"store": path} if store else {}
                t, c = time.perf_counter(), time.process_time()
                df = sweep.run("rff_mse", grid, trials=trials, seed=1, progress=False, **kw, **extra)
                best = min(best, time.perf_counter() - t)
                cpu = min(cpu, time.process_time() - c)
                shutil.rmtree(path, ignore_errors=True)
                if ref is None:
                    ref = df
                else:
                    same = same and bitwise_equal(ref, df)
            if name.startswith("local, 1 ") and not store:
                base = best
            if not store:
                no_store = best
            eff = base / (used * best)
            cost = f"{100 * (best / no_store - 1):+.1f} %" if store else ""
            cpu_s = f"{cpu:9.2f}" if "backend" not in kw else f"{'-':>9}"
            print(
                f"  {name:<22}{'yes' if store else 'no':<7}{best:9.3f}{n / best:11.1f}{100 * eff:11.1f}%{cost:>12}"
                f"{cpu_s}",
                flush=True,
            )
    print(f"  tables bit-identical: {same}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short run: 200 small cells, 16 large cells of 50 ms")
    ap.add_argument("--small-cells", type=int, default=1000, help="cells of the small grid (default 1000)")
    ap.add_argument("--large-cells", type=int, default=64, help="cells of the large grid (default 64)")
    ap.add_argument("--small-ms", type=float, default=1.0, help="mean small cell on one thread, ms (default 1)")
    ap.add_argument("--large-ms", type=float, default=200.0, help="mean large cell on one thread, ms (default 200)")
    ap.add_argument("--repeat", type=int, default=2, help="best of N runs (default 2; --quick: 1)")
    ap.add_argument("--no-dask", action="store_true", help="only the local backend")
    args = ap.parse_args()
    if args.quick:
        args.small_cells, args.large_cells, args.large_ms, args.repeat = 200, 16, 50.0, 1
    print(header())
    print(f"pandas {pd.__version__}; load average {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    small_ds, large_ds = [32, 64], [64, 128, 256, 512]
    small = (grid_of(args.small_cells, small_ds), calibrate(small_ds, args.small_ms))
    large = (grid_of(args.large_cells, large_ds), calibrate(large_ds, args.large_ms))
    workdir = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    try:
        if args.no_dask:
            one_size(f"cells of ~{args.small_ms:g} ms", *small, None, args.repeat, workdir)
            one_size(f"cells of ~{args.large_ms:g} ms", *large, None, args.repeat, workdir)
        else:
            import distributed

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
                    f"dask/distributed {distributed.__version__}: LocalCluster of {cores} worker processes x 1 "
                    f"thread, started in {time.perf_counter() - t:.2f} s (not included below)"
                )
                one_size(f"cells of ~{args.small_ms:g} ms", *small, client, args.repeat, workdir)
                one_size(f"cells of ~{args.large_ms:g} ms", *large, client, args.repeat, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores; more = other work)")


if __name__ == "__main__":
    main()
