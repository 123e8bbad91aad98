"""ropelab.sweep: grids, tasks, backends (local and Dask), the resumable store."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ropelab as rl
from ropelab import sweep
from ropelab.sweep import _backends

GRID: dict[str, Any] = {"xi": [-0.3, 0.2, 0.7], "D": [8, 64], "sigma": [0.6, "paper", 1.0, "optimal"]}
TRIALS = 3000


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, progress=False)


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cl:
        with distributed.Client(cl) as c:
            yield c


def count_computed_cells(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, the indices of the cells the sweep computes (in this process) are appended here."""
    computed: list[int] = []
    real = _backends.compute_cells

    def counting(task: Any, indices: Any, *args: Any) -> Any:
        computed.extend(indices)
        return real(task, indices, *args)

    monkeypatch.setattr(_backends, "compute_cells", counting)
    return computed


def interrupt_at(monkeypatch: pytest.MonkeyPatch, stop: int) -> list[int]:
    """From now on, computing cell ``stop`` raises KeyboardInterrupt (as Ctrl-C would); the indices
    of the cells that finish are appended to the list returned (cells run concurrently locally, so
    which ones finish before the run stops depends on timing). A batch of cells (one core call) is
    computed here one cell after another, in its order, so that the interruption falls between its
    cells (tests/test_sweep.py's Ctrl-C tests interrupt a batch for real)."""
    real = _backends.compute_cells
    finished: list[int] = []

    def interrupted(
        task: Any, indices: Any, cell_of: Any, trials: Any, seed: int, nthreads: Any, on_rows: Any = None
    ) -> Any:
        rows = []
        for i in indices:
            if i == stop:
                raise KeyboardInterrupt
            row = real(task, [i], cell_of, trials, seed, nthreads)
            finished.append(i)
            if on_rows is not None:
                on_rows(row)
            rows.extend(row)
        return rows

    monkeypatch.setattr(_backends, "compute_cells", interrupted)
    return finished


def assert_bitwise_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for col in a.columns:
        if a[col].dtype.kind in "fib":
            assert a[col].to_numpy().tobytes() == b[col].to_numpy().tobytes(), col
    assert a.attrs == b.attrs


# ----------------------------------------------------------------------------- the table itself


def test_table_is_tidy_and_in_row_major_order(reference: pd.DataFrame) -> None:
    assert list(reference.index) == list(range(24)) and reference.index.name == "cell"
    assert list(reference.columns[:3]) == ["xi", "D", "sigma"]
    assert reference["xi"].dtype == np.float64 and reference["D"].dtype == np.int64
    # an axis mixing numbers and rule names is stored as strings
    assert list(reference["sigma"][:4]) == ["0.6", "paper", "1.0", "optimal"]
    assert list(reference["D"][:8]) == [8, 8, 8, 8, 64, 64, 64, 64]
    assert reference.attrs["axes"] == ["xi", "D", "sigma"] and reference.attrs["trials"] == TRIALS


def test_cells_are_the_public_functions_at_the_cell_seed(reference: pd.DataFrame) -> None:
    # an independent route to every output of a few cells: rl.rff / rl.temperature at cell_seed(seed, i)
    for i in (0, 5, 13, 23):
        row = reference.loc[i]
        xi, D = float(row.xi), int(row.D)
        s = row.sigma
        sigma = {"paper": rl.temperature.paper_sigma(xi), "optimal": rl.temperature.optimal_sigma(xi, D)}.get(s)
        sigma = float(s) if sigma is None else float(sigma)
        assert row.sigma_used == sigma
        q, k = rl.temperature.unit_pair(xi, 64)
        est = rl.rff.estimate(q, k, D, sigma, trials=TRIALS, seed=sweep.cell_seed(11, i))
        err = est - math.exp(xi)
        assert row.target == math.exp(xi)
        # the statistics are correctly rounded sums (math.fsum): mean, then the sample std
        for x, mean, se in ((err**2, row.empirical_mse, row.stderr), (err, row.bias, row.bias_stderr)):
            m = math.fsum(x) / TRIALS
            assert mean == m
            assert se == math.sqrt(math.fsum((x - m) ** 2) / (TRIALS - 1)) / math.sqrt(TRIALS)
            assert abs(mean - np.mean(x)) <= 1e-12 * abs(mean)  # NumPy's pairwise sum, to rounding
        assert row.analytic_mse == rl.temperature.mse(xi, D=D, sigma=sigma)


def test_monte_carlo_agrees_with_the_closed_form(reference: pd.DataFrame) -> None:
    # 24 cells, 5 standard errors each: a false alarm has probability < 24 * 6e-7
    z = (reference.empirical_mse - reference.analytic_mse) / reference.stderr
    assert np.all(np.abs(z) < 5), z.to_numpy()
    bias_true = np.exp(1 - reference.sigma_used**2 * (1 - reference.xi)) - reference.target
    zb = (reference.bias - bias_true) / reference.bias_stderr
    assert np.all(np.abs(zb) < 5), zb.to_numpy()


def test_cell_seeds_are_distinct_and_stable() -> None:
    seeds = {sweep.cell_seed(7, i) for i in range(10_000)}
    assert len(seeds) == 10_000
    # SeedSequence's hash is specified: pin one value so a change of derivation cannot go unnoticed
    words = np.random.SeedSequence(7, spawn_key=(3,)).generate_state(2, np.uint32)
    assert sweep.cell_seed(7, 3) == int(words[0]) + (int(words[1]) << 32)


def test_window_merit_matches_figures_of_merit() -> None:
    df = sweep.run(
        "window_merit",
        {"window": ["hann", "hann_poisson", "ssm"], "N": [64, 256], "alpha": [2.0 / 64]},
        progress=False,
    )
    assert len(df) == 6
    for _, row in df.iterrows():
        if row.window == "ssm":  # alpha is the decay per sample: α·N = 2 at N = 64, 8 at N = 256
            w = rl.spectra.ssm_window(alpha=2.0 / 64, N=int(row.N))
        elif row.window == "hann_poisson":
            w = rl.spectra.window("hann_poisson", int(row.N), alpha=2.0 / 64)
        else:
            w = rl.spectra.window("hann", int(row.N))
        m = rl.spectra.figures_of_merit(w)
        assert row.enbw_bins == m.enbw_bins and row.highest_sidelobe_db == m.highest_sidelobe_db
        assert bool(row.is_causal_exponential) == m.is_causal_exponential
        assert math.isnan(row.decay_ratio) if m.decay_ratio is None else row.decay_ratio == m.decay_ratio
    assert df.is_causal_exponential.dtype == bool


def test_to_xarray_keeps_the_grid_order(reference: pd.DataFrame) -> None:
    pytest.importorskip("xarray")
    ds = sweep.to_xarray(reference)
    assert dict(ds.sizes) == {"xi": 3, "D": 2, "sigma": 4}
    assert list(ds.sigma.values) == ["0.6", "paper", "1.0", "optimal"]
    assert float(ds.empirical_mse.sel(xi=0.7, D=64, sigma="paper")) == reference.empirical_mse[4 + 2 * 8 + 1]
    partial = reference.drop(index=[3])
    dsp = sweep.to_xarray(partial)
    assert math.isnan(float(dsp.empirical_mse.sel(xi=-0.3, D=8, sigma="optimal")))


def test_progress_bar_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    sweep.run("window_merit", {"window": ["hann", "hamming"]}, progress=True)
    err = capsys.readouterr().err
    assert "sweep window_merit" in err and "2/2" in err


# ------------------------------------------------------------------------------------- backends


def test_local_and_dask_give_identical_tables(reference: pd.DataFrame, client: Any) -> None:
    for batch_size in (None, 1, 5, 24):
        df = sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, backend=client, batch_size=batch_size, progress=False)
        assert_bitwise_equal(reference, df)


def test_a_dask_sweep_stores_and_a_local_run_resumes_it(
    reference: pd.DataFrame, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[int] = []
    real_write = sweep.Store.write

    def counted(self: Any, frame: pd.DataFrame) -> Any:
        writes.append(len(frame))
        return real_write(self, frame)

    monkeypatch.setattr(sweep.Store, "write", counted)
    df = sweep.run(
        "rff_mse", GRID, trials=TRIALS, seed=11, backend=client, batch_size=5, store=tmp_path / "s", progress=False
    )
    monkeypatch.undo()
    assert_bitwise_equal(reference, df)
    assert sorted(writes) == [4, 5, 5, 5, 5, 24]  # each batch as it completed, then the merge
    computed = count_computed_cells(monkeypatch)
    assert_bitwise_equal(
        reference, sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, store=tmp_path / "s", progress=False)
    )
    assert computed == []


def test_dask_workers_check_the_numerics(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # the client says it runs other numerics; the workers (other processes) do not and refuse
    monkeypatch.setattr(_backends, "numerics", lambda: {"ropelab": "0.0.0", "kernels": "vector"})
    with pytest.raises(RuntimeError, match="differ from the client's"):
        sweep.run("window_merit", {"window": ["hann"]}, backend=client, progress=False)


def test_a_closed_client_is_rejected() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=":0") as c:
        pass
    with pytest.raises(ValueError, match="the Dask client is not running"):
        sweep.run("window_merit", {"window": ["hann"]}, backend=c, progress=False)


def test_a_cluster_without_workers_is_an_error_after_a_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed")
    monkeypatch.setattr(_backends, "WORKER_WAIT_SECONDS", 1.0)
    with (
        distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cl,
        distributed.Client(cl) as c,
    ):
        t = time.monotonic()
        with pytest.raises(RuntimeError, match="no Dask worker joined the cluster within 1 s"):
            sweep.run("window_merit", {"window": ["hann"]}, backend=c, progress=False)
        assert time.monotonic() - t < 30


def test_dask_backend_by_name_uses_the_default_client(reference: pd.DataFrame, client: Any) -> None:
    df = sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, backend="dask", progress=False)
    assert_bitwise_equal(reference, df)


def test_local_thread_count_and_batch_size_do_not_matter(reference: pd.DataFrame, tmp_path: Path) -> None:
    for n, (nthreads, batch_size) in enumerate([(1, 1), (2, 7), (3, None)]):
        df = sweep.run(
            "rff_mse",
            GRID,
            trials=TRIALS,
            seed=11,
            nthreads=nthreads,
            batch_size=batch_size,
            store=tmp_path / f"s{n}",
            progress=False,
        )
        assert_bitwise_equal(reference, df)


def record_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[int], Any, str]]:
    """From now on, ``(cell indices, nthreads, thread name)`` of each call computing cells is appended here."""
    import threading

    seen: list[tuple[list[int], Any, str]] = []
    real = _backends.compute_cells

    def recording(task: Any, indices: Any, cell_of: Any, trials: Any, seed: int, nthreads: Any, *rest: Any) -> Any:
        seen.append((list(indices), nthreads, threading.current_thread().name))
        return real(task, indices, cell_of, trials, seed, nthreads, *rest)

    monkeypatch.setattr(_backends, "compute_cells", recording)
    return seen


SMALL_GRID: dict[str, Any] = {"xi": [round(-0.95 + 0.1 * i, 2) for i in range(20)], "D": [4, 16, 32]}  # 60 small cells


def test_small_cells_run_concurrently_with_identical_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = sweep.run("rff_mse", SMALL_GRID, trials=200, seed=4, nthreads=1, progress=False)
    seen = record_calls(monkeypatch)
    for n, nthreads in enumerate([2, 3, 8]):
        seen.clear()
        df = sweep.run("rff_mse", SMALL_GRID, trials=200, seed=4, nthreads=nthreads, progress=False)
        assert_bitwise_equal(one, df)
        # many small cells: all in one batched core call on the threads, the largest (D = 32) first
        ((cells, threads, _),) = seen
        assert sorted(cells) == list(range(60)) and threads == nthreads
        assert {i % 3 for i in cells[:20]} == {2}
        stored = sweep.run(
            "rff_mse", SMALL_GRID, trials=200, seed=4, nthreads=nthreads, store=tmp_path / f"s{n}", progress=False
        )
        assert_bitwise_equal(one, stored)
    monkeypatch.undo()
    seen = record_calls(monkeypatch)
    sweep.run("rff_mse", SMALL_GRID, trials=200, seed=4, nthreads=1, progress=False)
    assert [c for c, _, _ in seen] == [[i] for i in range(60)] and {t for _, t, _ in seen} == {1}  # in order


def test_a_large_cell_runs_alone_on_all_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = {"xi": [0.2, 0.5], "D": [65536, *range(1, 17)]}
    ref = sweep.run("rff_mse", grid, trials=300, seed=2, nthreads=1, progress=False)
    seen = record_calls(monkeypatch)
    df = sweep.run("rff_mse", grid, trials=300, seed=2, nthreads=3, progress=False)
    assert_bitwise_equal(ref, df)
    # the two D = 65536 cells (0 and 17) dominate: each runs alone on the 3 threads, in grid order;
    # then the small ones together, in one call on the 3 threads
    assert [(c, t) for c, t, _ in seen[:2]] == [([0], 3), ([17], 3)]
    ((rest, threads, _),) = seen[2:]
    assert sorted(rest) == [i for i in range(34) if i not in (0, 17)] and threads == 3


def test_plan_and_batches_by_cost() -> None:
    assert _backends.plan_local([1.0] * 5, 1) == ([0, 1, 2, 3, 4], [])
    assert _backends.plan_local([1.0, 3.0, 2.0], 8) == ([0, 1, 2], [])  # fewer cells than threads
    assert _backends.plan_local([1.0, 3.0, 2.0], 8, threaded=False) == ([], [1, 2, 0])
    alone, pooled = _backends.plan_local([1.0] * 50 + [40.0], 4)
    assert alone == [50] and pooled == list(range(50))
    # 64 cells of four sizes fill 16 threads evenly side by side: none alone (the rule before ran
    # every one alone: each cell then looked large against the work left, 32 % efficiency)
    big = [float(c) for c in (8, 4, 2, 1) for _ in range(16)]
    assert _backends.plan_local(big, 16) == ([], list(range(64)))
    assert _backends.pooled_time(big, 16) == 15.0
    # the plan's estimate is no worse than all alone and than all side by side
    rng = np.random.default_rng(5)
    for _ in range(50):  # (fewer cells than POOL_CELLS_PER_THREAD a thread: the plan is simulated)
        threads = int(rng.integers(2, 17))
        costs = list(rng.lognormal(0, 1.5, int(rng.integers(1, 2 * threads))))
        alone, pooled = _backends.plan_local(costs, threads)
        estimate = sum(costs[j] for j in alone) / (_backends.ALONE_EFFICIENCY * threads)
        estimate += _backends.pooled_time([costs[j] for j in pooled], threads) if pooled else 0.0
        assert estimate <= sum(costs) / (_backends.ALONE_EFFICIENCY * threads) / _backends.ALONE_GAIN + 1e-9
        assert estimate <= _backends.pooled_time(sorted(costs, reverse=True), threads) + 1e-9
    for costs, threads in [([1.0] * 1000, 16), ([float(d) for d in (16, 64, 256, 1024) * 64], 16), ([5.0], 3)]:
        batches = _backends.default_batches(costs, threads)
        flat = [j for b in batches for j in b]
        assert sorted(flat) == list(range(len(costs)))  # every cell once
        assert [costs[j] for j in flat] == sorted(costs, reverse=True)  # largest first
        work = [sum(costs[j] for j in b) for b in batches]
        assert all(w <= max(costs) + sum(costs) / (2 * threads) for w in work)
        assert work[-1] <= max(max(costs), sum(costs) / threads / 4)  # the tail is short
        assert len(batches) <= 6 * threads
    assert _backends.default_batches([0.0, 0.0], 4) == [[0], [1]]


def test_a_task_cost_orders_the_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    def double(params: Any, *, trials: Any, seed: int, nthreads: Any) -> dict[str, float]:
        return {"twice": 2 * params["x"]}

    sweep.register_task("by_cost", double, axes=["x"], outputs=["twice"], cost=lambda p, trials: p["x"])
    try:
        seen = record_calls(monkeypatch)
        xs = [float(x) for x in range(1, 41)]
        df = sweep.run("by_cost", {"x": xs}, nthreads=2, progress=False)
        assert list(df.twice) == [2 * x for x in xs]
        assert seen[0][0][0] in (38, 39)  # the two largest start first, one on each thread
        # a user task: a pool of Python threads, one cell each with nthreads=1
        assert all(len(c) == 1 and t == 1 and name.startswith("ropelab-sweep") for c, t, name in seen)
        sweep.register_task("by_cost", double, axes=["x"], outputs=["twice"], cost=lambda p, t: -1.0, replace=True)
        with pytest.raises(ValueError, match=r"cost of task 'by_cost' must be a finite number >= 0.*cell 0"):
            sweep.run("by_cost", {"x": [1.0, 2.0]}, progress=False)
        with pytest.raises(TypeError, match="cost must be callable"):
            sweep.register_task("by_cost", double, axes=["x"], outputs=["twice"], cost=3, replace=True)  # type: ignore[arg-type]
    finally:
        from ropelab.sweep._tasks import TASKS

        TASKS.pop("by_cost", None)


def test_the_store_writes_finished_cells_in_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time as _time

    writes: list[tuple[int, str]] = []
    real_write = sweep.Store.write

    def slow_write(self: Any, frame: pd.DataFrame) -> Any:
        writes.append((len(frame), threading.current_thread().name))
        _time.sleep(0.05)  # a slow disk: many cells finish during one write
        return real_write(self, frame)

    monkeypatch.setattr(sweep.Store, "write", slow_write)
    # 20000 trials: the 60 cells take about 0.4 s on one thread (6 ms each), handed over in many
    # groups while the writer is busy. With 200 trials they took about 5 ms in all, less than one
    # hand-over gap: on a busy 2-core machine a CI run saw every cell handed over before the
    # writer's first write (one part, nothing to group).
    ref = sweep.run("rff_mse", SMALL_GRID, trials=20000, seed=4, nthreads=1, progress=False)
    df = sweep.run("rff_mse", SMALL_GRID, trials=20000, seed=4, nthreads=1, store=tmp_path / "s", progress=False)
    assert_bitwise_equal(ref, df)
    *parts, (merged, _) = writes
    assert merged == 60 and sum(n for n, _ in parts) == 60
    assert len(parts) < 60  # cells finished during a write share the next part
    assert all(name == "ropelab-sweep-store" for _, name in parts)  # written beside the computation
    loaded = sweep.load(tmp_path / "s")
    assert loaded.attrs.pop("complete") is True
    assert_bitwise_equal(ref, loaded)


@pytest.mark.parametrize("nthreads", [1, 2, None])
def test_an_error_mid_run_keeps_the_finished_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nthreads: int | None
) -> None:
    finished = interrupt_at(monkeypatch, 2)
    grid = {"window": ["hann"], "N": [16, 32, 64, 128]}
    with pytest.raises(KeyboardInterrupt):
        sweep.run("window_merit", grid, store=tmp_path / "w", progress=False, nthreads=nthreads)
    # every cell that finished before the run stopped is stored, whatever ran concurrently
    assert sorted(sweep.load(tmp_path / "w").index) == sorted(finished) and 2 not in finished
    if nthreads == 1:
        assert finished == [0, 1]  # one thread: the cells one after another, in grid order
    monkeypatch.undo()
    computed = count_computed_cells(monkeypatch)
    assert list(sweep.run("window_merit", grid, store=tmp_path / "w", progress=False).N) == [16, 32, 64, 128]
    assert sorted(computed) == sorted(set(range(4)) - set(finished))


def test_a_worker_with_other_numerics_refuses() -> None:
    cells = [(0, {"window": "hann"})]
    assert _backends.run_batch("window_merit", cells, None, 0, 1, _backends.numerics())[0][0] == 0
    for other in ({"ropelab": "0.0.0", "kernels": "vector"}, {**_backends.numerics(), "kernels": "other"}):
        with pytest.raises(RuntimeError, match="differ from the client's"):
            _backends.run_batch("window_merit", cells, None, 0, 1, other)


def test_kernel_family_is_part_of_the_sweep(reference: pd.DataFrame) -> None:
    code = (
        "from ropelab import sweep; df = sweep.run('window_merit', {'window': 'hann'}, progress=False); "
        "print(df.attrs['kernels'], df.attrs['digest'])"
    )
    env = {**os.environ, "ROPELAB_SIMD": "scalar"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    kernels, digest = r.stdout.split()
    here = sweep.run("window_merit", {"window": "hann"}, progress=False)
    assert kernels == "scalar" and (here.attrs["kernels"] == "scalar") == (digest == here.attrs["digest"])


# ---------------------------------------------------------------------------------------- store


def test_store_resumes_and_skips_finished_cells(
    reference: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s"
    finished = interrupt_at(monkeypatch, 3)  # the small cells (D = 8) come after the large ones
    with pytest.raises(KeyboardInterrupt):
        sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, store=store, batch_size=4, progress=False, nthreads=2)
    monkeypatch.undo()
    parts = sorted(store.glob("part-*.parquet"))
    cells = [sorted(pd.read_parquet(p).cell) for p in parts]
    # parts of batch_size cells but one (written when the run stopped, possibly smaller); every
    # finished cell is stored
    assert sum(len(c) != 4 for c in cells) <= 1 and all(1 <= len(c) <= 4 for c in cells)
    assert sorted(c for part in cells for c in part) == sorted(finished) and 3 not in finished
    assert len(finished) >= 12  # the twelve cells of D = 64 run first (largest first)
    # lose one part as well: those cells and the unfinished ones, and only those, are computed again
    parts[1].unlink()
    computed = count_computed_cells(monkeypatch)
    again = sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, store=store, progress=False)
    assert sorted(computed) == sorted(set(range(24)) - set(finished) | set(cells[1]))
    assert_bitwise_equal(reference, again)
    assert len(list(store.glob("part-*.parquet"))) == 1  # a complete run merges its parts
    computed.clear()
    assert_bitwise_equal(reference, sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, store=store, progress=False))
    assert computed == []
    loaded = sweep.load(store)
    assert loaded.attrs.pop("complete") is True
    assert_bitwise_equal(reference, loaded)


def test_store_is_a_parquet_dataset(reference: pd.DataFrame, tmp_path: Path) -> None:
    store = tmp_path / "s"
    sweep.run("rff_mse", GRID, trials=TRIALS, seed=11, store=store, batch_size=5, progress=False)
    raw = pd.read_parquet(store).sort_values("cell").set_index("cell")
    np.testing.assert_array_equal(raw.empirical_mse.to_numpy(), reference.empirical_mse.to_numpy())
    spec = json.loads((store / "_sweep.json").read_text())
    assert spec["digest"] == reference.attrs["digest"] and spec["spec"]["task"] == "rff_mse"


def test_store_rejects_another_sweep_and_a_second_writer(tmp_path: Path) -> None:
    store = tmp_path / "s"
    sweep.run("window_merit", {"window": ["hann"]}, store=store, progress=False)
    with pytest.raises(ValueError, match="holds a different sweep.*axes"):
        sweep.run("window_merit", {"window": ["hamming"]}, store=store, progress=False)
    with pytest.raises(ValueError, match="different sweep.*seed"):
        sweep.run("window_merit", {"window": ["hann"]}, seed=1, store=store, progress=False)
    import fcntl

    with open(store / "_sweep.lock", "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        code = (
            "import ropelab.sweep as s; s.run('window_merit', {'window': ['hann']}, "
            f"store={str(store)!r}, progress=False)"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "is in use by another run" in r.stderr
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="store must be a directory"):
        sweep.run("window_merit", {"window": ["hann"]}, store=tmp_path / "file", progress=False)


def test_store_touches_only_its_own_files(tmp_path: Path) -> None:
    store = tmp_path / "s"
    sweep.run("window_merit", {"window": ["hann"]}, store=store, progress=False)
    mine = store / ".part-000000000000-000001-abc.parquet.0123456789abcdef0123456789abcdef.tmp"
    theirs = [store / ".notes.tmp", store / ".vim.swp.tmp"]
    for p in (mine, *theirs):
        p.write_text("x")
    sweep.run("window_merit", {"window": ["hann"]}, store=store, progress=False)
    assert not mine.exists() and all(p.exists() for p in theirs)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "data.csv").write_text("1,2")
    with pytest.raises(ValueError, match="non-empty directory that is not a sweep store"):
        sweep.run("window_merit", {"window": ["hann"]}, store=foreign, progress=False)
    with pytest.raises(ValueError, match="store must be a directory path, got ''"):
        sweep.run("window_merit", {"window": ["hann"]}, store="", progress=False)


def test_store_of_other_numerics_is_named_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "s"
    # a store written by another ropelab version (its spec and its parts' records say so)
    monkeypatch.setattr(sweep, "numerics", lambda: {**_backends.numerics(), "ropelab": "0.0.1"})
    sweep.run("window_merit", {"window": ["hann"]}, store=store, progress=False)
    monkeypatch.undo()
    assert json.loads((store / "_sweep.json").read_text())["spec"]["ropelab"] == "0.0.1"
    with pytest.raises(ValueError, match="written by other numerics.*0.0.1.*sweep.load"):
        sweep.run("window_merit", {"window": ["hann"]}, store=store, progress=False)
    assert list(sweep.load(store).window) == ["hann"]


def test_a_failed_write_leaves_no_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pyarrow.parquet as pq

    store = tmp_path / "s"
    real = pq.write_table
    calls = {"n": 0}

    def failing(table: Any, where: Any, **kw: Any) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            where.write(b"PAR1 half a file")
            raise OSError("disk full (simulated)")
        real(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", failing)
    with pytest.raises(OSError, match="simulated"):
        sweep.run(
            "window_merit", {"window": ["hann", "hamming", "blackman"]}, store=store, batch_size=1, progress=False
        )
    assert [p.name.startswith("part-") for p in store.iterdir() if not p.name.startswith("_")] == [True]
    partial = sweep.load(store)  # the first cell to finish (cells run concurrently)
    assert len(partial) == 1 and partial.attrs["complete"] is False
    assert partial.window.iloc[0] in ("hann", "hamming", "blackman")
    monkeypatch.setattr(pq, "write_table", real)
    full = sweep.run("window_merit", {"window": ["hann", "hamming", "blackman"]}, store=store, progress=False)
    assert list(full.window) == ["hann", "hamming", "blackman"]


KILL_GRID: dict[str, Any] = {"xi": [0.1, 0.4, 0.8], "D": [256], "sigma": [0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5]}
KILL_TRIALS = 20_000


def test_sigkill_mid_sweep_loses_only_the_cell_in_flight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the default settings (no batch_size): every finished cell is written before the next starts
    store, computed_log, written_log = tmp_path / "killed", tmp_path / "computed", tmp_path / "written"
    child = textwrap.dedent(f"""
        import time
        from ropelab import sweep
        from ropelab.sweep import _backends
        real = _backends.compute_cells
        def slow(task, indices, *args):
            out = real(task, indices, *args)
            time.sleep(0.05)  # make the run long enough to be killed part-way
            with open({str(computed_log)!r}, "a") as fh:
                fh.write("".join(f"{{i}}\\n" for i in indices))
            return out
        _backends.compute_cells = slow
        real_write = sweep.Store.write
        def logged(self, frame):
            path = real_write(self, frame)
            with open({str(written_log)!r}, "a") as fh:
                fh.write(" ".join(map(str, frame.cell)) + "\\n")
            return path
        sweep.Store.write = logged
        sweep.run("rff_mse", {KILL_GRID!r}, trials={KILL_TRIALS}, seed=5, store={str(store)!r},
                  nthreads=1, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", child])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if written_log.exists() and len(written_log.read_text().split()) >= 6:
            break
        assert proc.poll() is None, "the sweep ended before it could be killed"
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    computed_before = {int(c) for c in computed_log.read_text().split()}
    written = {int(c) for c in written_log.read_text().split()}
    n = math.prod(len(v) for v in KILL_GRID.values())
    assert 6 <= len(written) < n
    # every part is whole; every cell reported written is there; of the cells computed before the
    # kill, at most the one in flight (computed, its write not finished) is missing
    partial = sweep.load(store)
    assert not partial.attrs["complete"]
    stored = set(partial.index)
    assert written <= stored and len(stored - written) <= 1
    assert len(computed_before - stored) <= 1 and stored <= computed_before
    computed = count_computed_cells(monkeypatch)
    resumed = sweep.run("rff_mse", KILL_GRID, trials=KILL_TRIALS, seed=5, store=store, progress=False)
    assert sorted(computed) == sorted(set(range(n)) - stored)
    assert len(set(computed) & computed_before) <= 1  # computed twice: only the cell in flight
    monkeypatch.undo()
    uninterrupted = sweep.run("rff_mse", KILL_GRID, trials=KILL_TRIALS, seed=5, progress=False)
    assert_bitwise_equal(uninterrupted, resumed)
    assert not list(store.glob(".*.tmp"))


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"task": "nope", "grid": {"xi": 0.5}}, ValueError, "unknown task 'nope'"),
        ({"task": 3, "grid": {"xi": 0.5}}, TypeError, "task must be a task name"),
        ({"task": "rff_mse", "grid": [("xi", 0.5)]}, TypeError, "grid must be a mapping"),
        ({"task": "rff_mse", "grid": {}}, ValueError, "grid has no axes"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4, "bogus": 1}}, ValueError, "no axis 'bogus'"),
        ({"task": "rff_mse", "grid": {"xi": 0.5}}, ValueError, "needs the axis 'D'"),
        ({"task": "rff_mse", "grid": {"xi": [], "D": 4}}, ValueError, "axis 'xi' has no values"),
        ({"task": "rff_mse", "grid": {"xi": [0.5, 0.5], "D": 4}}, ValueError, "repeated values"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": [6, 6.0]}}, ValueError, "repeated values"),
        ({"task": "rff_mse", "grid": {"xi": [0.0, -0.0], "D": 4}}, ValueError, "repeated values"),
        ({"task": "rff_mse", "grid": {"xi": [[0.1, 0.2], [0.3]], "D": 4}}, TypeError, "axis 'xi' values must be"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "progress": "no"}, TypeError, "progress must be a bool"),
        (
            {"task": sweep.Task("mine", "", {}, (), False, print, print), "grid": {"x": 1}},
            ValueError,  # type: ignore[arg-type]
            "not a registered task",
        ),
        (
            {"task": "window_merit", "grid": {"window": "hann", "N": [64, 3_000_000], "pad": 1000}},
            ValueError,
            rf"N·pad must be <= {rl.spectra.MAX_SIGNAL_LENGTH}.*cell 1",
        ),
        ({"task": "rff_mse", "grid": {"xi": [float("nan")], "D": 4}}, ValueError, "non-finite"),
        ({"task": "rff_mse", "grid": {"xi": [1j], "D": 4}}, TypeError, "axis 'xi' values must be"),
        ({"task": "rff_mse", "grid": {"xi": [[0.5]], "D": 4}}, TypeError, "axis 'xi' values must be"),
        ({"task": "rff_mse", "grid": {"xi": np.zeros((1, 1)), "D": 4}}, ValueError, "must be 1-D"),
        ({"task": "rff_mse", "grid": {"xi 2": 0.5}}, ValueError, "identifiers"),
        ({"task": "rff_mse", "grid": {"xi": [0.5, 2.0], "D": 4}}, ValueError, r"xi must lie in \[-1, 1\].*cell 1"),
        ({"task": "rff_mse", "grid": {"xi": -1.0, "D": 4, "sigma": "paper"}}, ValueError, "sigma must be finite"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4, "sigma": "tan"}}, ValueError, "sigma must be one of"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 0}}, ValueError, "D must be >= 1"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4.5}}, TypeError, "D must be an integer"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4, "mode": "fast"}}, ValueError, "mode must be one of"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "trials": None}, ValueError, "give trials"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "trials": 0}, ValueError, "trials must be >= 1"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "trials": 2.5}, TypeError, "trials must be"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "seed": -1}, ValueError, "seed must lie"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "seed": 2**64}, ValueError, "seed must lie"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "seed": "0"}, TypeError, "seed must be an integer"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "batch_size": 0}, ValueError, "batch_size must be >= 1"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "nthreads": True}, TypeError, "nthreads must be"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "backend": "spark"}, ValueError, "backend must be"),
        ({"task": "rff_mse", "grid": {"xi": 0.5, "D": 4}, "backend": object()}, TypeError, "backend must be"),
        ({"task": "window_merit", "grid": {"window": "hann"}, "trials": 10}, ValueError, "deterministic"),
        ({"task": "window_merit", "grid": {"window": "hann"}, "store": 3}, TypeError, "store must be a path"),
        ({"task": "window_merit", "grid": {"window": "fancy"}}, ValueError, "window must be one of"),
        ({"task": "window_merit", "grid": {"window": "ssm"}}, ValueError, "window 'ssm' needs parameter alpha"),
        ({"task": "window_merit", "grid": {"window": "kaiser"}}, ValueError, "beta"),
        ({"task": "window_merit", "grid": {"window": "hann", "N": 0}}, ValueError, "N must be >= 1"),
        ({"task": "window_merit", "grid": {"window": "hann", "sym": 1}}, TypeError, "sym must be a bool"),
        ({"task": "window_merit", "grid": {"window": "hann", "pad": -2}}, ValueError, "pad must be >= 1"),
    ],
)
def test_bad_input(kwargs: dict[str, Any], exc: type[Exception], match: str) -> None:
    kwargs = {"trials": 10, **kwargs} if kwargs.get("task") == "rff_mse" else dict(kwargs)
    kwargs.setdefault("progress", False)
    with pytest.raises(exc, match=match):
        sweep.run(kwargs.pop("task"), kwargs.pop("grid"), **kwargs)


def test_an_error_during_a_cell_names_the_cell(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(p: Any, trials: Any, seed: int, nthreads: Any) -> Any:
        raise ValueError("figures_of_merit: something")

    monkeypatch.setitem(
        sweep.TASKS, "window_merit", __import__("dataclasses").replace(sweep.TASKS["window_merit"], compute=failing)
    )
    with pytest.raises(ValueError, match=r"something \(cell 0: \{'window': 'hann'\}\)"):
        sweep.run("window_merit", {"window": "hann"}, progress=False)


def test_equal_values_of_different_types_are_one_value_but_bools_are_not_numbers() -> None:
    g = sweep.Grid.from_mapping({"a": [True, 1, "1"], "b": [-0.0]})
    assert len(g) == 3 and math.copysign(1.0, g.cell(0)["b"]) == 1.0


def test_dask_backend_without_a_client() -> None:
    # in a fresh process, where no default client exists
    code = textwrap.dedent("""
        from ropelab import sweep
        try:
            sweep.run("window_merit", {"window": "hann"}, backend="dask", progress=False)
        except ValueError as exc:
            assert "needs a running distributed.Client" in str(exc), exc
            print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_load_rejects_a_directory_that_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a sweep store"):
        sweep.load(tmp_path)


def test_without_the_optional_packages() -> None:
    # dask, distributed and pyarrow hidden: local works, the others name the extra to install
    code = textwrap.dedent("""
        import sys
        for name in ("dask", "distributed", "pyarrow", "xarray"):
            sys.modules[name] = None
        from ropelab import sweep
        df = sweep.run("window_merit", {"window": ["hann", "hamming"]}, progress=False)
        assert len(df) == 2
        for kwargs, extra in (({"backend": "dask"}, "dask"), ({"store": "/nonexistent/x"}, "dask")):
            try:
                sweep.run("window_merit", {"window": "hann"}, progress=False, **kwargs)
            except ImportError as exc:
                assert f"pip install 'ropelab[{extra}]'" in str(exc), exc
            else:
                raise AssertionError(kwargs)
        try:
            sweep.to_xarray(df)
        except ImportError as exc:
            assert "ropelab[xarray]" in str(exc)
        else:
            raise AssertionError("to_xarray")
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


# ------------------------------------------------------------------------------- arbitrary input


def test_arbitrary_arguments_raise_only_value_or_type_errors() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    values = st.one_of(
        st.integers(-3, 300),
        st.floats(-3, 3),
        st.sampled_from([float("nan"), float("inf"), 1e308]),
        st.booleans(),
        st.none(),
        st.complex_numbers(max_magnitude=2),
        st.sampled_from(
            ["paper", "optimal", "unbiased", "hann", "ssm", "kaiser", "trig", "positive", "literal", "full", "x", ""]
        ),
    )
    axis_names = st.sampled_from(
        [
            "xi",
            "D",
            "sigma",
            "estimator",
            "convention",
            "d",
            "mode",
            "window",
            "N",
            "pad",
            "sym",
            "beta",
            "alpha",
            "attenuation",
            "cell",
            "bogus",
            "1x",
        ]
    )
    some = st.one_of(values, st.lists(values, max_size=3))
    rff_grid = st.fixed_dictionaries(
        {
            "xi": st.one_of(st.floats(-1, 1), st.lists(st.floats(-1, 1), max_size=2)),
            "D": st.one_of(st.integers(1, 50), some),
        },
        optional={"sigma": some, "d": some, "mode": some, "estimator": some, "convention": some},
    )
    merit_grid = st.fixed_dictionaries(
        {"window": st.sampled_from(["hann", "ssm", "kaiser", "chebyshev", "nope"])},
        optional={
            "N": st.one_of(st.integers(1, 300), some),
            "alpha": some,
            "beta": some,
            "attenuation": some,
            "sym": some,
            "pad": some,
        },
    )
    trials = st.one_of(st.integers(1, 40), st.integers(1, 9), st.integers(-2, 0), st.floats(0, 5), st.none())
    cases = st.one_of(
        st.tuples(st.just("rff_mse"), rff_grid, trials),
        st.tuples(st.sampled_from(["window_merit", "window-merit"]), merit_grid, st.one_of(st.none(), trials)),
        st.tuples(
            st.sampled_from(["rff_mse", "window_merit", "nope", 3]),
            st.dictionaries(axis_names, some, max_size=5),
            trials,
        ),
    )

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        case=cases,
        seed=st.one_of(
            st.integers(0, 2**64 - 1), st.integers(0, 9), st.integers(0, 99), st.sampled_from([-1, 2**64, "1"])
        ),
        batch=st.one_of(st.none(), st.integers(1, 4), st.none(), st.integers(-1, 0)),
    )
    def check(case: tuple[Any, dict[str, Any], Any], seed: Any, batch: Any) -> None:
        task, grid, trials = case
        try:
            df = sweep.run(task, grid, trials=trials, seed=seed, batch_size=batch, progress=False, nthreads=1)
        except (ValueError, TypeError):
            return
        assert len(df) == math.prod(len(v) if isinstance(v, list) else 1 for v in grid.values())

    check()


def test_valid_sweeps_run_and_give_finite_outputs() -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    unique = {"unique": True, "min_size": 1, "max_size": 3}
    rff_grids = st.fixed_dictionaries(
        {
            "xi": st.lists(st.floats(-0.99, 0.99), **unique),
            "D": st.lists(st.integers(1, 64), **unique),
            "sigma": st.lists(st.one_of(st.floats(0, 2), st.sampled_from(["paper", "unbiased", "optimal"])), **unique),
        },
        optional={
            "estimator": st.sampled_from(["trig", "random_phase", "positive"]),
            "convention": st.sampled_from(["conjugate", "literal"]),
            "d": st.integers(2, 8),
            "mode": st.sampled_from(["projected", "full"]),
        },
    )
    merit_grids = st.one_of(
        st.fixed_dictionaries(
            {
                "window": st.lists(st.sampled_from(["hann", "hamming", "rectangular", "blackman"]), **unique),
                "N": st.lists(st.integers(8, 128), **unique),
            }
        ),
        st.fixed_dictionaries(
            {"window": st.just("ssm"), "N": st.integers(8, 128), "alpha": st.lists(st.floats(0, 0.5), **unique)}
        ),
    )

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        case=st.one_of(
            st.tuples(st.just("rff_mse"), rff_grids, st.integers(2, 30)),
            st.tuples(st.just("window_merit"), merit_grids, st.none()),
        ),
        seed=st.integers(0, 2**64 - 1),
    )
    def check(case: tuple[str, dict[str, Any], int | None], seed: int) -> None:
        task, grid, trials = case
        df = sweep.run(task, grid, trials=trials, seed=seed, progress=False, nthreads=1)
        assert len(df) == math.prod(len(v) if isinstance(v, list) else 1 for v in grid.values())
        if task == "rff_mse":
            assert np.all(np.isfinite(df[[name for name, _ in sweep.tasks()[task].outputs]].to_numpy()))
        else:
            assert np.all(np.isfinite(df.enbw_bins)) and np.all(df.coherent_gain > 0)

    check()
