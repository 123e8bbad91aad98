"""Where a sweep's cells are computed: in this process (the core's threads) or on a Dask cluster."""

from __future__ import annotations

import heapq
import math
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast, overload

from ropelab.sweep._deps import require
from ropelab.sweep._grid import Grid, Value, cell_seed, cell_seeds
from ropelab.sweep._tasks import BUILTIN, CellFailure, Outputs, Task, get

Rows = list[tuple[int, Outputs]]
OnBatch = Callable[[Rows], None]

#: How long the Dask backend waits for a first worker to join a cluster that has none.
WORKER_WAIT_SECONDS = 60.0
#: Without an explicit ``batch_size`` a Dask task holds at most about 1/TASKS_PER_THREAD of the
#: work left per worker thread (see :func:`default_batches`).
TASKS_PER_THREAD = 2
#: ... and at least about 1/MIN_TASK_SHARE of the whole work per worker thread.
MIN_TASK_SHARE = 8
#: Parallel efficiency :func:`plan_local` assumes for one cell alone on all the threads (its trials
#: split between them), against cells run concurrently, one a thread.
ALONE_EFFICIENCY = 0.8
#: ... and runs cells alone only when its estimate is at least 1 − ALONE_GAIN faster than running
#: them all concurrently (the efficiency of a cell alone is a guess; a small cell's is lower).
ALONE_GAIN = 0.9
#: From this many cells per thread on, :func:`plan_local` simulates no schedule: run concurrently
#: largest first, so many cells leave little idle time at the end.
POOL_CELLS_PER_THREAD = 8


def compute_cell(
    task: Task, index: int, cell: dict[str, Value], trials: int | None, seed: int, nthreads: int | None
) -> Outputs:
    """One cell's outputs; its random numbers are addressed by ``(seed, index, trial)``.

    A ValueError/TypeError/MemoryError raised by the computation is re-raised with the cell named.
    """
    try:
        return task.compute(task.params(cell), trials, cell_seed(seed, index), nthreads)
    except (ValueError, TypeError, MemoryError) as exc:
        raise type(exc)(f"{exc} (cell {index}: {cell})") from None


class _Params(Sequence[dict[str, Value]]):
    """The parameters of the cells ``indices``, made when read (a batch of many cells holds no
    dictionary per cell).
    """

    def __init__(self, task: Task, indices: Sequence[int], cell_of: Callable[[int], dict[str, Value]]) -> None:
        self.task, self.indices, self.cell_of = task, indices, cell_of

    def __len__(self) -> int:
        return len(self.indices)

    @overload
    def __getitem__(self, j: int) -> dict[str, Value]: ...
    @overload
    def __getitem__(self, j: slice) -> Sequence[dict[str, Value]]: ...
    def __getitem__(self, j: int | slice) -> dict[str, Value] | Sequence[dict[str, Value]]:
        if isinstance(j, slice):
            return [self[k] for k in range(*j.indices(len(self)))]
        return self.task.params(self.cell_of(self.indices[j]))

    def __iter__(self) -> Iterator[dict[str, Value]]:
        for i in self.indices:
            yield self.task.params(self.cell_of(i))


def compute_cells(
    task: Task,
    indices: Sequence[int],
    cell_of: Callable[[int], dict[str, Value]],
    trials: int | None,
    seed: int,
    nthreads: int | None,
    on_rows: OnBatch | None = None,
) -> Rows:
    """The cells ``indices`` (``cell_of(i)``: cell ``i``'s axis values): the one place every
    backend computes cells.

    A task with a batched computation (:attr:`Task.compute_many`: the built-in ``rff_mse``)
    computes them in one core call, in parallel over cells on ``nthreads`` threads (one cell: its
    own work on them), with the GIL released; other tasks one after another with
    :func:`compute_cell`. Each cell's numbers are the same either way. ``on_rows`` (optional)
    receives the finished cells as they finish, also those finished when the call stops with an
    exception. A failing cell raises its ValueError/TypeError/MemoryError with the cell named.
    """
    if task.compute_many is None:
        rows: Rows = []
        for i in indices:
            row = (i, compute_cell(task, i, cell_of(i), trials, seed, nthreads))
            rows.append(row)
            if on_rows is not None:
                on_rows([row])
        return rows
    handed = None
    if on_rows is not None:
        report = on_rows

        def handed(done: list[tuple[int, Outputs]]) -> None:
            report([(indices[j], out) for j, out in done])

    try:
        outs = task.compute_many(_Params(task, indices, cell_of), cell_seeds(seed, indices), trials, nthreads, handed)
    except CellFailure as failure:
        i = indices[failure.position]
        raise type(failure.error)(f"{failure.error} (cell {i}: {cell_of(i)})") from None
    except MemoryError as exc:
        raise MemoryError(f"{exc} (cells {list(indices[:3])}...)") from None
    return list(zip(indices, outs))


def numerics() -> dict[str, str]:
    """What a cell's numbers depend on besides its inputs: the ropelab version and whether the
    Monte-Carlo kernels use the scalar path (its cos/exp may differ from the vector paths' by 1 ulp;
    AVX2 and AVX-512 agree bit for bit).
    """
    from ropelab import simd
    from ropelab._core_loader import core

    return {"ropelab": str(core.__version__), "kernels": "scalar" if simd.isa() == "scalar" else "vector"}


def run_batch(
    task_name: str | Task,
    cells: Sequence[tuple[int, dict[str, Value]]],
    trials: int | None,
    seed: int,
    nthreads: int | None,
    expected: dict[str, str] | None = None,
) -> Rows:
    """A group of cells: the unit of work sent to a Dask worker (a picklable module-level function).

    ``expected`` is the submitting process's :func:`numerics`; a worker that would compute
    different numbers (another ropelab version, or the scalar kernels against vector ones) refuses.
    """
    if expected is not None and numerics() != expected:
        raise RuntimeError(
            f"ropelab.sweep: this worker's numerics {numerics()} differ from the client's {expected}; "
            "install the same ropelab version everywhere (and set ROPELAB_SIMD the same way)"
        )
    # a user task travels with the batch (pickled), since the worker's registry does not know it
    task = task_name if isinstance(task_name, Task) else get(task_name)
    by_index = dict(cells)
    return compute_cells(task, [i for i, _ in cells], by_index.__getitem__, trials, seed, nthreads)


def cell_costs(task: Task, grid: Grid, cells: Sequence[int], trials: int | None) -> list[float]:
    """The relative work of each cell (:attr:`Task.cost`; all 1.0 when the task has none)."""
    if task.cost is None:
        return [1.0] * len(cells)
    out = []
    for i in cells:
        cell = grid.cell(i)
        try:
            c = float(task.cost(task.params(cell), trials))
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"sweep: the cost of task {task.name!r}: {exc} (cell {i}: {cell})") from None
        if not (math.isfinite(c) and c >= 0):
            raise ValueError(
                f"sweep: the cost of task {task.name!r} must be a finite number >= 0, got {c!r} (cell {i}: {cell})"
            )
        out.append(c)
    return out


def largest_first(costs: Sequence[float]) -> list[int]:
    """Positions of ``costs`` by decreasing cost; equal costs keep their order (grid order)."""
    return sorted(range(len(costs)), key=lambda j: -costs[j])


def pooled_time(costs: Sequence[float], threads: int) -> float:
    """When the last of ``costs`` (in the order given) finishes on ``threads`` workers that each take
    the next cell as soon as they are free (the core's schedule).
    """
    free = [0.0] * max(1, min(threads, len(costs)))
    for c in costs:
        heapq.heapreplace(free, free[0] + c)
    return max(free)


def plan_local(costs: Sequence[float], threads: int, threaded: bool = True) -> tuple[list[int], list[int]]:
    """Split the cells between the two ways the local backend runs them.

    Returns ``(alone, pooled)``: positions of the cells run one after another, each on all
    ``threads`` (in grid order), and of the cells run concurrently on ``threads`` single-threaded
    workers (largest first). The split minimises the estimated time: the cells alone take their
    cost over ``ALONE_EFFICIENCY × threads``, the pool the time of its schedule
    (:func:`pooled_time`), and the ``k`` largest cells run alone for the best ``k`` (none unless
    that is estimated ``1 − ALONE_GAIN`` faster than running them all concurrently). From
    ``POOL_CELLS_PER_THREAD`` cells per thread on, only cells larger than an even share of all the
    work run alone (each would hold up the pool's end by itself). With one thread every cell runs
    alone, in grid order; a task that does not use ``nthreads`` (``threaded=False``) never runs a
    cell alone.

    Examples
    --------
    >>> plan_local([1.0] * 8, 2)  # many equal cells: all concurrently
    ([], [0, 1, 2, 3, 4, 5, 6, 7])
    >>> plan_local([1.0] * 3, 2)  # one alone, then two side by side
    ([0], [1, 2])
    >>> plan_local([1.0] * 12 + [50.0], 2)  # one dominant cell runs alone first
    ([12], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    >>> plan_local([8.0] * 16 + [4.0] * 16 + [2.0] * 16 + [1.0] * 16, 16)[0]  # they fill 16 threads evenly
    []
    >>> plan_local([1.0, 2.0], 1)
    ([0, 1], [])
    """
    if threads <= 1:
        return list(range(len(costs))), []
    order = largest_first(costs)
    if not threaded:
        return [], order
    if len(costs) >= POOL_CELLS_PER_THREAD * threads:
        share = math.fsum(costs) / threads
        k = 0
        while k < len(order) and costs[order[k]] > share:
            k += 1
        return sorted(order[:k]), order[k:]
    desc = [costs[j] for j in order]
    side_by_side = pooled_time(desc, threads)  # k = 0
    best_k, best_time, alone = 0, side_by_side, 0.0
    for k in range(1, len(desc) + 1):
        alone += desc[k - 1]
        if alone / (ALONE_EFFICIENCY * threads) >= best_time:
            break  # the cells alone already take longer: a larger k cannot do better
        time = alone / (ALONE_EFFICIENCY * threads) + (pooled_time(desc[k:], threads) if k < len(desc) else 0.0)
        if time < best_time:
            best_k, best_time = k, time
    if best_time > ALONE_GAIN * side_by_side:
        best_k = 0
    return sorted(order[:best_k]), order[best_k:]


def run_local(
    task: Task,
    grid: Grid,
    pending: Sequence[int],
    trials: int | None,
    seed: int,
    nthreads: int | None,
    on_batch: OnBatch,
    advance: Callable[[int], object],
) -> None:
    """Compute the cells in this process, on ``nthreads`` threads (default: all cores).

    The cells :func:`plan_local` runs alone come first, one after another, each on all the threads;
    the others run concurrently, largest first: for a task with a batched computation
    (:attr:`Task.compute_many`) in one core call that runs them on ``nthreads`` threads of its
    own, one thread a cell, with the GIL released; for other tasks on a pool of single-threaded
    Python workers. Every finished cell is handed to ``on_batch`` soon after it finishes (in
    groups when several finish together), also when the run stops with an exception (Ctrl-C
    included): the cells that finished while the run stopped are handed over before the exception
    propagates.
    """
    from ropelab.simd import default_threads

    threads = nthreads if nthreads is not None else default_threads()
    alone, pooled = plan_local(cell_costs(task, grid, pending, trials), threads, task.threaded)
    for j in alone:
        i = pending[j]
        rows = compute_cells(task, [i], grid.cell, trials, seed, nthreads)
        advance(1)
        on_batch(rows)
    if not pooled:
        return
    cells = [pending[j] for j in pooled]
    workers = min(threads, len(cells))
    if task.compute_many is not None:

        def handed(rows: Rows) -> None:
            advance(len(rows))
            on_batch(rows)

        compute_cells(task, cells, grid.cell, trials, seed, workers, handed)
    else:
        _run_pool(task, grid, cells, trials, seed, workers, on_batch, advance)


def _run_pool(
    task: Task,
    grid: Grid,
    cells: Sequence[int],
    trials: int | None,
    seed: int,
    workers: int,
    on_batch: OnBatch,
    advance: Callable[[int], object],
) -> None:
    """``cells`` (taken in this order) on ``workers`` threads, each cell with ``nthreads=1``.

    The workers take cells from one queue and put their rows on another, which this thread drains
    (a constant cost per cell: no per-cell future to wait on). On an error or an interruption the
    workers take no new cell; the running ones finish and their rows are handed over before the
    first error propagates.
    """
    import queue
    import threading

    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for i in cells:
        todo.put(i)
    results: queue.SimpleQueue[tuple[int, Outputs | None, BaseException | None] | None] = queue.SimpleQueue()
    stop = threading.Event()

    def work() -> None:
        try:
            while not stop.is_set():
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                try:
                    ((_, out),) = compute_cells(task, [i], grid.cell, trials, seed, 1)
                    results.put((i, out, None))
                except BaseException as exc:  # re-raised by the submitting thread
                    results.put((i, None, exc))
                    return
        finally:
            results.put(None)  # this worker is done

    threads = [threading.Thread(target=work, name=f"ropelab-sweep-{k}", daemon=True) for k in range(workers)]
    running = 0
    error: BaseException | None = None
    handing_failed = False

    def drain(block: bool) -> None:
        """Hand over the rows waiting (after at least one when ``block``); note the first error."""
        nonlocal running, error, handing_failed
        rows: Rows = []
        while running:
            try:
                item = results.get() if block and not rows else results.get_nowait()
            except queue.Empty:
                break
            if item is None:
                running -= 1
            elif item[2] is not None:
                error = error or item[2]
                stop.set()
            else:
                rows.append((item[0], cast(Outputs, item[1])))
            block = block and not rows and item is None  # block again only until a row or the end
        if rows:
            advance(len(rows))
            try:
                on_batch(rows)
            except BaseException:
                handing_failed = True
                raise

    try:
        for t in threads:
            t.start()
            running += 1
        while running and error is None:
            drain(block=True)
    finally:
        # stop: no new cell starts, the running ones finish, their rows are handed over
        stop.set()
        for t in threads:
            t.join()
        if not handing_failed:
            drain(block=False)
    if error is not None:
        raise error


def default_batches(costs: Sequence[float], worker_threads: int) -> list[list[int]]:
    """Positions of the cells grouped into Dask tasks of decreasing size, largest cells first.

    Cells are taken largest first; each task gets the next cells until its cost reaches
    ``1/TASKS_PER_THREAD`` of the work left per worker thread, but at least ``1/MIN_TASK_SHARE``
    of the whole work per thread (a cell costing more is a task of its own). Tasks therefore
    shrink towards the end, so the last ones finish together and leave no long tail of idle
    workers, while the number of tasks (their overhead) stays about ``5 ×`` the worker threads.

    Examples
    --------
    >>> [len(b) for b in default_batches([1.0] * 100, 2)]
    [25, 19, 14, 11, 8, 7, 7, 7, 2]
    >>> default_batches([1.0, 9.0, 1.0, 1.0], 1)
    [[1], [0, 2], [3]]
    """
    order = largest_first(costs)
    threads = max(1, worker_threads)
    total = math.fsum(costs)
    if total <= 0:
        return [order[k : k + 1] for k in range(len(order))] if len(order) <= threads else [order]
    floor = total / (MIN_TASK_SHARE * threads)
    remaining = total
    batches: list[list[int]] = []
    current: list[int] = []
    acc = 0.0
    for j in order:
        current.append(j)
        acc += costs[j]
        if acc >= max(floor, remaining / (TASKS_PER_THREAD * threads)):
            batches.append(current)
            remaining -= acc
            current, acc = [], 0.0
    if current:
        batches.append(current)
    return batches


def run_dask(
    client: Any,
    task: Task,
    grid: Grid,
    pending: Sequence[int],
    trials: int | None,
    seed: int,
    nthreads: int | None,
    batch_size: int | None,
    on_batch: OnBatch,
    advance: Callable[[int], object],
) -> None:
    """Submit the cells in batches to ``client`` and hand each batch's rows over as it completes.

    Batches hold cells of similar cost, largest first (:func:`default_batches`, or ``batch_size``
    cells each), and are submitted with decreasing priority, the largest first. Each cell runs single-threaded on a worker thread unless ``nthreads`` says otherwise. Results
    do not depend on batching or completion order: every cell's numbers are addressed by
    ``(seed, cell index, trial)``.
    """
    import asyncio  # (here: importing asyncio at module level would pull in subprocess and fcntl)

    distributed = require("distributed", "backend=Client")
    if client.status != "running":
        raise ValueError(f"sweep.run: the Dask client is not running (status {client.status!r})")
    if not pending:
        return
    if not client.nthreads():
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except (TimeoutError, asyncio.TimeoutError):  # distinct classes before Python 3.11
            raise RuntimeError(
                f"sweep.run: no Dask worker joined the cluster within {WORKER_WAIT_SECONDS:g} s"
            ) from None
    costs = cell_costs(task, grid, pending, trials)
    if batch_size is None:
        batches = default_batches(costs, sum(client.nthreads().values()))
    else:  # batch_size cells a task, taken largest first: cells of similar work together
        order = largest_first(costs)
        batches = [order[k : k + batch_size] for k in range(0, len(order), batch_size)]
    tag = os.urandom(4).hex()  # (not uuid: on Python 3.10 it imports platform, subprocess, fcntl)
    # the largest tasks first: the scheduler starts the higher priorities first
    futures = [
        client.submit(
            run_batch,
            task.name if task.name in BUILTIN else task,
            [(pending[j], grid.cell(pending[j])) for j in batch],
            trials,
            seed,
            1 if nthreads is None else nthreads,
            numerics(),
            key=f"ropelab-sweep-{task.name}-{tag}-{pending[batch[0]]}",
            pure=False,
            priority=len(batches) - b,
        )
        for b, batch in enumerate(batches)
    ]
    try:
        for _, rows in distributed.as_completed(futures, with_results=True):
            on_batch(rows)
            advance(len(rows))
    finally:
        client.cancel([f for f in futures if not f.done()])
