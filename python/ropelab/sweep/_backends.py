"""Where a sweep's cells are computed: in this process (the core's threads) or on a Dask cluster."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from typing import Any

from ropelab.sweep._deps import require
from ropelab.sweep._grid import Grid, Value, cell_seed
from ropelab.sweep._tasks import BUILTIN, Outputs, Task, get

Rows = list[tuple[int, Outputs]]
OnBatch = Callable[[Rows], None]

#: How long the Dask backend waits for a first worker to join a cluster that has none.
WORKER_WAIT_SECONDS = 60.0
#: Without an explicit ``batch_size`` the Dask backend makes about this many tasks per worker thread.
TASKS_PER_THREAD = 4


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


def numerics() -> dict[str, str]:
    """What a cell's numbers depend on besides its inputs: the ropelab version and whether the
    Monte-Carlo kernels use the scalar path (its cos/exp may differ from the vector paths' by 1 ulp;
    AVX2 and AVX-512 agree bit for bit).
    """
    from ropelab import __version__, simd

    return {"ropelab": __version__, "kernels": "scalar" if simd.isa() == "scalar" else "vector"}


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
    return [(i, compute_cell(task, i, cell, trials, seed, nthreads)) for i, cell in cells]


def run_local(
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
    """Compute the cells one after another, each on the core's own threads.

    Finished cells are handed to ``on_batch`` every ``batch_size`` cells (default 1: each cell as
    soon as it finishes); cells already finished are handed over also when the run stops with an
    exception (Ctrl-C included).
    """
    size = batch_size or 1
    buffer: Rows = []
    try:
        for i in pending:
            buffer.append((i, compute_cell(task, i, grid.cell(i), trials, seed, nthreads)))
            advance(1)
            if len(buffer) >= size:
                rows, buffer = buffer, []
                on_batch(rows)
    finally:
        if buffer:
            on_batch(buffer)


def default_batch_size(n_pending: int, worker_threads: int) -> int:
    """Cells per Dask task: about ``TASKS_PER_THREAD`` tasks per worker thread.

    Examples
    --------
    >>> default_batch_size(100, 2), default_batch_size(3, 8)
    (13, 1)
    """
    return max(1, math.ceil(n_pending / (TASKS_PER_THREAD * max(1, worker_threads))))


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

    Each cell runs single-threaded on a worker thread unless ``nthreads`` says otherwise. Results
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
    if batch_size is None:
        batch_size = default_batch_size(len(pending), sum(client.nthreads().values()))
    tag = os.urandom(4).hex()  # (not uuid: on Python 3.10 it imports platform, subprocess, fcntl)
    futures = [
        client.submit(
            run_batch,
            task.name if task.name in BUILTIN else task,
            [(i, grid.cell(i)) for i in pending[j : j + batch_size]],
            trials,
            seed,
            1 if nthreads is None else nthreads,
            numerics(),
            key=f"ropelab-sweep-{task.name}-{tag}-{pending[j]}",
            pure=False,
        )
        for j in range(0, len(pending), batch_size)
    ]
    try:
        for _, rows in distributed.as_completed(futures, with_results=True):
            on_batch(rows)
            advance(len(rows))
    finally:
        client.cancel([f for f in futures if not f.done()])
