"""Batched cells (issue 30): the built-in ``rff_mse`` computes many cells in one core call, in
parallel over cells with the GIL released, and every cell is bit-identical to the single-cell
path, to every thread count and batch, and to Dask; Ctrl-C stops a batch and keeps its finished
cells."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ropelab import sweep
from ropelab._core_loader import core
from ropelab.sweep import _backends
from ropelab.sweep._grid import Grid, cell_seeds
from ropelab.sweep._tasks import RFF_MSE, _rff_mse_columns

from ._sigint import assert_interrupts, run_script, skip_under_sanitizer

# every way a cell can differ: σ numbers and rules, estimators, conventions, modes, D, d
MIXED: dict[str, Any] = {
    "xi": [-0.6, 0.25, 0.9],
    "D": [3, 40],
    "sigma": [0.7, "paper", "unbiased", "optimal"],
    "estimator": ["trig", "random_phase", "positive"],
    "convention": ["conjugate", "literal"],
    "mode": ["projected", "full"],
    "d": [5],
}
TRIALS = 60


def outputs(rows: list[tuple[int, dict[str, Any]]]) -> bytes:
    """The rows' outputs in cell order, as bytes (bit-for-bit comparison)."""
    names = [n for n, _ in RFF_MSE.outputs]
    return np.array([[out[n] for n in names] for _, out in sorted(rows, key=lambda r: r[0])]).tobytes()


def assert_bitwise_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for col in a.columns:
        if a[col].dtype.kind in "fib":
            assert a[col].to_numpy().tobytes() == b[col].to_numpy().tobytes(), col


def test_batched_cells_equal_single_cells_for_every_thread_count_and_batch() -> None:
    g = Grid.from_mapping(MIXED)
    n = len(g)
    single = [(i, RFF_MSE.compute(RFF_MSE.params(g.cell(i)), TRIALS, sweep.cell_seed(9, i), 1)) for i in range(n)]
    reference = outputs(single)
    rng = np.random.default_rng(0)
    for nthreads in (1, 2, 3, 7):
        order = [int(i) for i in rng.permutation(n)]
        handed: list[tuple[int, Any]] = []
        rows = _backends.compute_cells(RFF_MSE, order, g.cell, TRIALS, 9, nthreads, handed.extend)
        assert outputs(rows) == reference
        assert sorted(i for i, _ in handed) == list(range(n)) and outputs(handed) == reference
    # batches of any size, each one core call
    for size in (1, 5, 64):
        rows = []
        for start in range(0, n, size):
            rows += _backends.run_batch(
                "rff_mse", [(i, g.cell(i)) for i in range(start, min(n, start + size))], TRIALS, 9, 2
            )
        assert outputs(rows) == reference
    # one cell with its trials on several threads
    for i in (0, n - 1):
        ((_, out),) = _backends.compute_cells(RFF_MSE, [i], g.cell, TRIALS, 9, 4)
        assert outputs([(i, out)]) == outputs([single[i]])


def test_sweeps_are_bit_identical_across_threads_and_stores(tmp_path: Path) -> None:
    ref = sweep.run("rff_mse", MIXED, trials=TRIALS, seed=9, nthreads=1, progress=False)
    for k, nthreads in enumerate((2, 5, None)):
        df = sweep.run("rff_mse", MIXED, trials=TRIALS, seed=9, nthreads=nthreads, progress=False)
        assert_bitwise_equal(ref, df)
        stored = sweep.run(
            "rff_mse", MIXED, trials=TRIALS, seed=9, nthreads=nthreads, store=tmp_path / f"s{k}", progress=False
        )
        assert_bitwise_equal(ref, stored)


def test_dask_uses_the_same_batched_cells() -> None:
    distributed = pytest.importorskip("distributed")
    ref = sweep.run("rff_mse", MIXED, trials=TRIALS, seed=9, nthreads=2, progress=False)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cl,
        distributed.Client(cl) as client,
    ):
        for batch_size in (None, 1, 7, 1000):
            df = sweep.run(
                "rff_mse", MIXED, trials=TRIALS, seed=9, backend=client, batch_size=batch_size, progress=False
            )
            assert_bitwise_equal(ref, df)


def test_core_cell_seeds_are_cell_seed() -> None:
    rng = np.random.default_rng(1)
    for seed in [0, 1, 2**32 - 1, 2**32, 2**64 - 1, *(int(s) for s in rng.integers(0, 2**63, 5))]:
        indices = [0, 1, 7, 2**32 - 1, 2**32, 2**40 + 3, *(int(i) for i in rng.integers(0, 2**50, 5))]
        assert cell_seeds(seed, indices).tolist() == [sweep.cell_seed(seed, i) for i in indices]


def test_statistics_are_correctly_rounded_sums() -> None:
    rng = np.random.default_rng(2)
    for x in (rng.normal(size=1001) * 10.0 ** rng.integers(-8, 8, 1001), np.full(10, 0.1), np.zeros(0)):
        assert core.sweep.exactly_rounded_sum(x) == math.fsum(x)


def test_a_failing_cell_of_a_batch_is_named_and_the_finished_ones_are_handed_over() -> None:
    g = Grid.from_mapping({"xi": [0.1, 0.2, 0.3, 1.5], "D": 4})
    handed: list[tuple[int, Any]] = []
    with pytest.raises(ValueError, match=r"xi must lie in \[-1, 1\].*\(cell 3: \{'xi': 1.5, 'D': 4\}\)"):
        _backends.compute_cells(RFF_MSE, [0, 1, 2, 3], g.cell, 10, 0, 1, handed.extend)
    assert sorted(i for i, _ in handed) == [0, 1, 2]  # one thread: the cells before it finished
    with pytest.raises(TypeError, match=r"D must be an integer.*cell 1"):
        _backends.compute_cells(RFF_MSE, [0, 1], Grid.from_mapping({"xi": 0.1, "D": [4, 4.5]}).cell, 10, 0, 2)


def test_trials_beyond_memory_are_refused_before_any_cell_starts() -> None:
    # each cell computed at a time holds 3 arrays of `trials` and 2 of d float64 values: 10**12
    # trials would need 24 TB, d = 10**12 16 TB; refused up front with MemoryError naming them (the
    # AddressSanitizer build, whose operator new cannot return null, aborted on d = 10**12, which
    # the cell check allocated before any size check)
    g = Grid.from_mapping({"xi": [0.1, 0.2], "D": 4})
    handed: list[tuple[int, Any]] = []
    for cells in ([0], [0, 1]):
        with pytest.raises(MemoryError, match=r"sweep\.rff_mse: trials=1000000000000 and d=64 need"):
            _backends.compute_cells(RFF_MSE, cells, g.cell, 10**12, 0, 2, handed.extend)
    big_d = Grid.from_mapping({"xi": [0.1, 0.2], "D": 4, "d": [64, 10**12]})
    with pytest.raises(MemoryError, match=r"trials=10 and d=1000000000000 need"):
        _backends.compute_cells(RFF_MSE, [0, 1], big_d.cell, 10, 0, 2, handed.extend)
    # the check allocates nothing of size d: it refuses the draws (2D + d*d per trial) in its own words
    bad, message = core.sweep.check_rff_mse(**_rff_mse_columns([RFF_MSE.params(big_d.cell(1))]))
    assert (bad, message) == (
        0,
        "sweep: D=4 and d=1000000000000 need 1e+24 random draws per trial (2D, plus a d x d orthogonal"
        " block); one trial may own at most 2^40",
    )
    beyond = RFF_MSE.params(Grid.from_mapping({"xi": 0.1, "D": 4, "d": 2**40 + 1}).cell(0))
    assert core.sweep.check_rff_mse(**_rff_mse_columns([beyond])) == (0, "sweep: d must be <= 2**40, got 1099511627777")
    assert handed == []
    with pytest.raises(MemoryError, match="trials=1000000000000"):
        sweep.run("rff_mse", {"xi": 0.1, "D": 4}, trials=10**12, seed=0)


def test_an_exception_of_the_hand_over_stops_the_batch() -> None:
    g = Grid.from_mapping({"xi": list(np.linspace(-0.9, 0.9, 400).round(6)), "D": 64})
    calls = []

    def failing(rows: Any) -> None:
        calls.append(len(rows))
        raise OSError("disk full (simulated)")

    with pytest.raises(OSError, match="simulated"):
        _backends.compute_cells(RFF_MSE, list(range(len(g))), g.cell, 3000, 0, 2, failing)
    assert len(calls) == 1  # no hand-over after the failed one


@skip_under_sanitizer
def test_ctrl_c_stops_a_batch_of_cells() -> None:
    # 2,000 cells of a few ms in one batched call on 2 threads: Ctrl-C within the latency limit
    assert_interrupts(
        "sweep.run('rff_mse', grid, trials=3000, seed=0, nthreads=2, progress=False)",
        setup="""
            from ropelab import sweep
            grid = {"xi": [round(x, 6) for x in np.linspace(-0.9, 0.9, 1000)], "D": [64, 128]}
        """,
        after="print('after', len(sweep.run('rff_mse', {'xi': 0.5, 'D': 4}, trials=10, progress=False)))",
        expected_after="1",
        delay=1.0,
    )


def test_ctrl_c_keeps_the_finished_cells_of_a_batch_in_the_store(tmp_path: Path) -> None:
    store = tmp_path / "s"
    grid = {"xi": [round(float(x), 6) for x in np.linspace(-0.9, 0.9, 300)], "D": [64, 128]}
    lines = run_script(f"""
        import glob
        from ropelab import sweep
        def fire():  # Ctrl-C once the first finished cells are stored
            while not glob.glob({str(store)!r} + "/part-*.parquet"):
                time.sleep(0.01)
            os.kill(os.getpid(), signal.SIGINT)
        threading.Thread(target=fire, daemon=True).start()
        try:
            sweep.run("rff_mse", {grid!r}, trials=3000, seed=3, nthreads=2, store={str(store)!r}, progress=False)
            print("finished 0")
        except KeyboardInterrupt:
            print("interrupted 1")
    """)
    assert "interrupted" in lines, lines
    partial = sweep.load(store)
    assert 0 < len(partial) < 600 and not partial.attrs["complete"]
    resumed = sweep.run("rff_mse", grid, trials=3000, seed=3, nthreads=2, store=store, progress=False)
    fresh = sweep.run("rff_mse", grid, trials=3000, seed=3, nthreads=2, progress=False)
    assert_bitwise_equal(fresh, resumed)
    assert_bitwise_equal(partial.drop(columns=[]), fresh.loc[partial.index])
