"""Parameter sweeps: a grid of named axes over a registered task, run here or on a Dask cluster.

A *grid* maps axis names to values; its cells are the Cartesian product in row-major order (the
last axis varies fastest). A *task* says what one cell computes:

``rff_mse``
    Axes ``xi`` and ``D`` (required), ``sigma`` (a number, or the rule ``"paper"``, ``"unbiased"``
    or ``"optimal"`` evaluated at the cell; default 1.0), ``estimator``, ``convention``, ``d``
    (default 64), ``mode``. Outputs: ``sigma_used``, ``target`` = exp(ξ), ``analytic_mse`` (closed
    form), ``empirical_mse`` over ``trials`` estimates of ``D`` features each, its ``stderr``, the
    empirical ``bias`` and ``bias_stderr``. The statistics are computed in the compiled core from
    correctly rounded sums (as ``math.fsum``): mean ``Σx/n`` and standard error
    ``√(Σ(x − mean)²/(n − 1))/√n``, so they do not depend on a summation order.
``window_merit``
    Axes ``window`` (a name of :data:`ropelab.spectra.WINDOWS`; ``"ssm"`` is the causal SSM
    window), ``N`` (default 64), ``pad`` (default 64), ``sym`` and the windows' parameters
    (``alpha``, ``beta``, ``attenuation``, ...; for ``"ssm"``, ``alpha`` is the decay per sample,
    so that its shape, set by ``α·N``, changes along ``N``). A parameter axis is passed only to
    the windows that take it. Outputs: the fields of :class:`ropelab.spectra.FiguresOfMerit` (NaN
    where a field does not apply: ``decay_ratio`` and ``truncation_ripple_db`` of a window that is
    not a causal exponential).

Reproducibility: the random numbers of cell ``i`` are addressed by ``(seed, i, trial)`` (see
:func:`cell_seed`), so the table is bit-identical on every backend, batch size, worker count,
thread count, order of completion and concurrency of cells, and when a stored sweep is resumed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

import numpy as np

from ropelab._validation import check_size
from ropelab.sweep._backends import Rows, numerics, run_dask, run_local
from ropelab.sweep._deps import require
from ropelab.sweep._grid import Grid, cell_seed, check_seed, fingerprint, grid_of
from ropelab.sweep._store import Store, Writer, check_spec_digest, read_text_nofollow
from ropelab.sweep._tasks import REQUIRED, TASKS, CellFailure, Task, get, register_task

if TYPE_CHECKING:
    import pandas as pd
    import xarray as xr

__all__ = ["run", "load", "to_xarray", "tasks", "register_task", "cell_seed", "Grid", "Task", "REQUIRED"]


def tasks() -> dict[str, Task]:
    """The registered tasks by name.

    Returns
    -------
    dict of str to Task
        A copy of the registry: task name to :class:`Task`.

    Examples
    --------
    >>> sorted(tasks())
    ['rff_mse', 'window_merit']
    >>> [a for a, v in tasks()["rff_mse"].axes.items() if v is REQUIRED]
    ['xi', 'D']
    """
    return dict(TASKS)


def _frame(task: Task, grid: Grid, rows: Rows) -> pd.DataFrame:
    """The tidy table of ``rows``: a ``cell`` column, one column per axis, one per output."""
    import pandas as pd

    rows = sorted(rows, key=lambda r: r[0])
    cells = [i for i, _ in rows]
    data: dict[str, Any] = {"cell": np.asarray(cells, dtype=np.int64)}
    for name in grid.names:
        data[name] = grid.column(name, cells)
    for name, dtype in task.outputs:
        data[name] = np.asarray([out[name] for _, out in rows], dtype=dtype)
    frame: pd.DataFrame = pd.DataFrame(data)
    return frame


def _attrs(grid: Grid, spec: dict[str, Any], digest: str) -> dict[str, Any]:
    """A table's ``attrs``: what its sweep is (read from the spec the digest hashes)."""
    return {
        "task": spec["task"],
        "axes": list(grid.names),
        "trials": spec["trials"],
        "seed": spec["seed"],
        "ropelab": spec["ropelab"],
        "kernels": spec["kernels"],
        "digest": digest,
    }


def _stored_rows(store: Store, task: Task, grid: Grid) -> Rows:
    """The rows already in ``store`` (cells of ``grid`` only)."""
    stored = store.read()
    if stored is None:
        return []
    outs = stored[[name for name, _ in task.outputs]].to_dict("index")
    return [(int(i), o) for i, o in outs.items() if 0 <= int(i) < len(grid)]


#: Cells checked by one call of a task's ``check_many``.
CHECK_CHUNK = 4096


def _check_cells(task: Task, grid: Grid) -> None:
    """Check every cell before any is computed (``check_many`` by chunks when the task has it)."""
    if task.check_many is None:
        for i in range(len(grid)):
            cell = grid.cell(i)
            try:
                task.check(task.params(cell))
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"{exc} (cell {i}: {cell})") from None
        return
    for start in range(0, len(grid), CHECK_CHUNK):
        stop = min(len(grid), start + CHECK_CHUNK)
        try:
            task.check_many([task.params(grid.cell(i)) for i in range(start, stop)])
        except CellFailure as failure:
            i = start + failure.position
            raise type(failure.error)(f"{failure.error} (cell {i}: {grid.cell(i)})") from None


def _positive_int_or_none(name: str, v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"sweep.run: {name} must be a positive integer or None, got {v!r}")
    if v < 1:
        raise ValueError(f"sweep.run: {name} must be >= 1, got {v!r}")
    return int(v)


def _resolve_backend(backend: Any) -> Any:
    """``None`` for the local backend, else a ``distributed.Client``."""
    if isinstance(backend, str):
        if backend == "local":
            return None
        if backend == "dask":
            distributed = require("distributed", 'backend="dask"')
            try:
                return distributed.get_client()
            except ValueError:
                raise ValueError(
                    'sweep.run: backend="dask" needs a running distributed.Client; create one or pass it as backend='
                ) from None
        raise ValueError(f'sweep.run: backend must be "local", "dask" or a distributed.Client, got {backend!r}')
    distributed = require("distributed", "backend=Client")
    if not isinstance(backend, distributed.Client):
        raise TypeError(f'sweep.run: backend must be "local", "dask" or a distributed.Client, got {backend!r}')
    return backend


def run(
    task: str | Task,
    grid: Mapping[str, Any],
    *,
    trials: int | None = None,
    seed: int = 0,
    backend: Any = "local",
    store: str | os.PathLike[str] | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    nthreads: int | None = None,
) -> pd.DataFrame:
    """Run ``task`` on every cell of ``grid`` and return the tidy table.

    Parameters
    ----------
    task : str
        ``"rff_mse"`` or ``"window_merit"`` (see the module docstring; ``-`` may replace ``_``).
    grid : mapping of str to sequence
        Axis name → values (a scalar is an axis of one value). Values are bool, int, float or str;
        an axis may not repeat a value. Axes the grid leaves out take the task's defaults.
    trials : int
        Monte-Carlo trials per cell (``rff_mse``: required, ≥ 1); must be None for deterministic
        tasks.
    seed : int
        In ``[0, 2**64)``; cell ``i``'s numbers are addressed by ``(seed, i, trial)``.
    backend : "local", "dask" or distributed.Client
        ``"local"``: cells in this process on ``nthreads`` threads. A cell large enough to use the
        threads by itself (costing more than a quarter of an even share of the work left, by the
        task's cost model) runs alone on all of them; the other cells run concurrently, one thread
        each, largest first: for ``rff_mse`` in one call of the compiled core, on threads of its own
        with the GIL released (many cells of about a millisecond use every thread); for a task of
        :func:`register_task` on a pool of Python threads. A Client (or ``"dask"``: the current default client): cells grouped
        into tasks of similar cost, largest first (``batch_size``), each cell single-threaded on a
        worker thread, gathered as they complete. A worker whose ropelab version or kernel family
        differs from this process's refuses with RuntimeError. Needs
        ``pip install 'ropelab[dask]'``.
    store : path or None
        A directory holding a Parquet dataset of finished cells. Finished cells are written from a
        background thread while the computation goes on: each write (one part) takes every cell
        finished since the previous one, and starts no sooner than ten times the previous
        write's processor time after it (local, default: one part per cell for cells slower than
        that, groups for faster ones), or takes ``batch_size`` cells (local, given), or one Dask
        task's cells. Parts are written atomically, so a run killed at any point never leaves a
        partial row and loses only the cells in flight: those being computed and those finished
        but not yet written (locally, by default, the cells that finished during the last write
        and its pause, tens of milliseconds; with ``batch_size`` up to ``batch_size − 1`` more; on
        Dask the tasks not yet completed). A completed run merges the parts into one.
        Running the same sweep (task, grid, trials, seed, ropelab version, kernel family) again
        skips the stored cells and returns the same table; a different sweep in the same store
        raises ValueError. Needs pyarrow (``ropelab[dask]``).
    batch_size : int or None
        Cells per Dask task, or per store write locally. Default on Dask: tasks of decreasing
        cost, from about half a worker thread's share of the work down to an eighth, largest
        cells first, so that the last tasks finish together; locally, see ``store``.
    progress : bool
        Show a progress bar (tqdm, on stderr).
    nthreads : int or None
        Locally: the threads of the run (default: all cores, or ``$ROPELAB_NUM_THREADS``); a cell
        run alone uses them all, a cell run concurrently one. On Dask: threads per cell (default
        1). The table does not depend on it.

    Returns
    -------
    pandas.DataFrame
        One row per cell, indexed by ``cell`` (row-major grid index), one column per axis and per
        output. ``df.attrs`` holds ``task``, ``axes``, ``trials``, ``seed``, ``ropelab`` (the
        version), ``kernels`` (``"vector"``, or ``"scalar"`` when the Monte-Carlo kernels run the
        scalar path, whose cos/exp may differ by 1 ulp) and ``digest`` (a hash of all of these).

    Raises
    ------
    ValueError, TypeError
        For a bad argument, an unknown task or axis, or a cell that cannot be computed (checked
        for every cell before any work starts, as far as a cheap check can; the message names the
        cell, also when the computation itself fails).
    ImportError
        ``backend`` is Dask, or ``store`` is given, and the extra is not installed.

    Examples
    --------
    >>> df = run("rff_mse", {"xi": 0.5, "D": 16, "sigma": [0.5, "paper", 1.0]}, trials=2000,
    ...          seed=1, progress=False)
    >>> df[["sigma", "sigma_used"]].round(4).values.tolist()
    [['0.5', 0.5], ['paper', 0.5774], ['1.0', 1.0]]
    >>> bool(np.all(np.abs(df.empirical_mse - df.analytic_mse) < 5 * df.stderr))
    True
    """
    t = get(task)
    g = grid_of(grid, "sweep.run")
    t.check_axes(g.names)
    # the table holds a row per cell (its axes and outputs): refused before any cell is checked
    check_size("sweep.run", "grid", float(len(g)) * (len(g.names) + len(t.outputs) + 1))
    if t.monte_carlo:
        if trials is None:
            raise ValueError(f"sweep.run: task {t.name!r} is Monte Carlo; give trials (an integer >= 1)")
        trials = _positive_int_or_none("trials", trials)
    elif trials is not None:
        raise ValueError(f"sweep.run: task {t.name!r} is deterministic; trials must be None, got {trials!r}")
    seed = check_seed(seed)
    if not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"sweep.run: progress must be a bool, got {progress!r}")
    batch_size = _positive_int_or_none("batch_size", batch_size)
    nthreads = _positive_int_or_none("nthreads", nthreads)
    if nthreads is not None and nthreads > 4096:
        raise ValueError(f"sweep.run: nthreads must be at most 4096, got {nthreads!r}")
    client = _resolve_backend(backend)
    _check_cells(t, g)

    digest, spec = fingerprint(t.name, g, trials, seed, numerics())
    st = Store(store, digest, spec) if store is not None else None
    from tqdm import tqdm

    rows: Rows = []
    with st.open() if st is not None else nullcontext() as opened:
        writer = None
        if opened is not None:
            rows.extend(_stored_rows(opened, t, g))
            store_ = opened  # (a name mypy knows is not None inside the closure)
            writer = Writer(
                lambda batch: store_.write(_frame(t, g, batch)),
                size=batch_size if client is None else None,
                per_add=client is not None,
            )
        done = {i for i, _ in rows}
        pending = [i for i in range(len(g)) if i not in done]

        def on_batch(batch: Rows) -> None:
            if writer is not None:
                writer.add(batch)
            rows.extend(batch)

        with tqdm(
            total=len(g),
            initial=len(done),
            disable=not progress,
            unit="cell",
            desc=f"sweep {t.name}",
            dynamic_ncols=True,
        ) as bar:
            try:
                if client is None:
                    run_local(t, g, pending, trials, seed, nthreads, on_batch, bar.update)
                else:
                    run_dask(client, t, g, pending, trials, seed, nthreads, batch_size, on_batch, bar.update)
            except BaseException:
                if writer is not None:  # write the finished cells; the first error propagates
                    writer.close(raise_error=False)
                raise
            if writer is not None:
                writer.close()
        if opened is not None:
            opened.compact(_frame(t, g, rows))
    df: pd.DataFrame = _frame(t, g, rows).set_index("cell")
    df.attrs.update(_attrs(g, spec, digest))
    return df


def load(store: str | os.PathLike[str]) -> pd.DataFrame:
    """The cells finished so far in a sweep's store, as the table :func:`run` returns.

    ``df.attrs["complete"]`` tells whether every cell of the grid is there.

    Parameters
    ----------
    store : str or path-like
        The store folder given to :func:`run`.

    Returns
    -------
    pandas.DataFrame
        One row per finished cell, indexed by ``cell``, with the attributes :func:`run` sets plus
        ``complete``.

    Raises
    ------
    TypeError
        If ``store`` is not a path.
    ValueError
        If ``store`` is not a sweep store (it has no ``_sweep.json``), its ``_sweep.json`` was
        altered (its spec, e.g. the seed or trials, no longer hashes to the digest the parts carry),
        a file of it is not a regular file (a directory, a FIFO, a link), or a part of it is foreign,
        incomplete or corrupted (the message names the file); or when the parts kept vanishing
        under a concurrent merge for ``READ_WAIT`` = 10 s. A concurrent merge is otherwise read
        consistently: the parts are opened first and read through their descriptors; only a part
        removed between the listing and its opening makes ``load`` list them again, after a pause
        doubling from 1 ms to 0.1 s.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "merit"
    >>> df = run("window_merit", {"window": ["hann", "hamming"], "N": 256}, store=path, progress=False)
    >>> back = load(path)
    >>> back.equals(df), back.attrs["complete"]
    (True, True)
    """
    import json
    from pathlib import Path

    if not isinstance(store, (str, os.PathLike)):
        raise TypeError(f"sweep.load: store must be a path (str or os.PathLike), got {store!r}")
    path = Path(store)
    try:
        meta = json.loads(read_text_nofollow(path / "_sweep.json", where="sweep.load"))
        check_spec_digest(path / "_sweep.json", meta, "sweep.load")
        spec = meta["spec"]
        digest = meta["digest"]
        t = get(spec["task"])
        try:
            g = Grid.from_spec(spec["axes"])
        except ValueError as e:  # axes no grid has (a damaged store): reported as damaged below
            raise TypeError(str(e)) from None
    except FileNotFoundError:
        raise ValueError(f"sweep.load: {str(path)!r} is not a sweep store (no _sweep.json)") from None
    except (KeyError, IndexError, TypeError, AttributeError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(
            f"sweep.load: the store's {str(path / '_sweep.json')!r} is damaged ({type(exc).__name__}: {exc})"
        ) from None
    rows = _stored_rows(Store(path, digest, spec, where="sweep.load"), t, g)
    df: pd.DataFrame = _frame(t, g, rows).set_index("cell")
    df.attrs.update(_attrs(g, spec, meta["digest"]), complete=len(rows) == len(g))
    return df


def _unique(column: Any) -> Any:
    """The distinct values of ``column`` in order of first appearance."""
    import pandas as pd

    return pd.unique(column.to_numpy())


def to_xarray(df: pd.DataFrame) -> xr.Dataset:
    """The table of :func:`run` as an ``xarray.Dataset`` with one dimension per axis.

    Needs xarray (``pip install 'ropelab[xarray]'``).

    Parameters
    ----------
    df : pandas.DataFrame
        A table returned by :func:`run` or :func:`load` (it carries ``df.attrs["axes"]``).

    Returns
    -------
    xarray.Dataset
        One variable per output column, one dimension per axis (in grid order); cells missing from
        ``df`` are NaN.

    Raises
    ------
    TypeError
        If ``df`` is not a pandas DataFrame.
    ValueError
        If ``df.attrs["axes"]`` is missing, not a list of column names, or names missing columns.

    Examples
    --------
    >>> df = run("window_merit", {"window": ["hann", "blackman"], "N": [64, 128]}, progress=False)
    >>> ds = to_xarray(df)
    >>> dict(ds.sizes), round(float(ds.enbw_bins.sel(window="hann", N=128)), 3)
    ({'window': 2, 'N': 2}, 1.5)
    """
    import pandas as pd

    xarray = require("xarray", "to_xarray")
    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"sweep.to_xarray: df must be a pandas.DataFrame returned by sweep.run or sweep.load, "
            f"got {type(df).__name__}"
        )
    axes = df.attrs.get("axes")
    if not axes:
        raise ValueError("sweep.to_xarray: df.attrs['axes'] is missing; pass a table returned by sweep.run")
    if isinstance(axes, str) or not isinstance(axes, (list, tuple)) or not all(isinstance(a, str) for a in axes):
        raise ValueError(f"sweep.to_xarray: df.attrs['axes'] must be a list of column names, got {axes!r}")
    axes = list(axes)
    missing = [a for a in axes if a not in df.columns]
    if missing:
        raise ValueError(
            f"sweep.to_xarray: df.attrs['axes'] names {missing}, which are not columns of df "
            f"(columns: {list(df.columns)})"
        )
    coords = {a: _unique(df[a]) for a in axes}
    shape = tuple(len(c) for c in coords.values())
    outputs = [c for c in df.columns if c not in axes]
    if len(df) == int(np.prod(shape)) and df.index.is_monotonic_increasing:
        # a complete table in cell order is the grid in row-major order: keep the grid's value order
        ds: xr.Dataset = xarray.Dataset(
            {c: (axes, df[c].to_numpy().reshape(shape)) for c in outputs},
            coords=coords,
            attrs={k: v for k, v in df.attrs.items() if k != "axes"},
        )
        return ds
    # missing cells become NaN
    out: xr.Dataset = df.reset_index(drop=True).set_index(axes)[outputs].to_xarray()
    return out
