"""The resumable store of a sweep: a directory holding a Parquet dataset of finished cells.

Layout::

    STORE/_sweep.json                 what the sweep is (task, grid, trials, seed, version) + digest
    STORE/_sweep.lock                 held (filelock) by the run writing to the store
    STORE/part-<first>-<n>-<id>.parquet   one file per flushed group of cells

Each part is tamper-evident: its Parquet metadata records the sweep's digest, its cells and a
SHA-256 of its columns (cell, axis values, outputs). A part whose record is missing, belongs to
another sweep (e.g. another seed), lacks a column, holds cells or parameters that are not this
grid's, or whose data no longer match the digest (a flipped bit) is refused with a ValueError
naming the file; deleting that file makes a resumed run recompute its cells. Parts written before
this format (no record at all) are refused the same way, with that remedy: their numbers cannot be
checked, so they are never migrated silently. No file of the store (lock, spec, parts) is followed
through a symbolic link.

A part is written to a hidden temporary file, flushed to disk and renamed into place, so a reader
sees either the whole part or nothing: a run killed at any moment leaves no partial row, and a
written part is never lost or rewritten. A run writes its parts from a background thread
(:class:`Writer`), so writing overlaps the computation: each write takes every cell finished since
the previous write began, and a run whose cells finish faster than a part is written writes them
in groups. Files starting with ``.`` or ``_`` are ignored by
Parquet readers, so ``pandas.read_parquet(STORE)`` reads the cells finished so far.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ropelab.sweep._deps import require

_SPEC = "_sweep.json"
_LOCK = "_sweep.lock"
#: Key of a part's record in its Parquet (schema) metadata.
_RECORD = b"ropelab.sweep.part"
#: How long (seconds) :meth:`Store.read` keeps re-listing the parts when one vanishes between the
#: listing and its opening (a concurrent compaction), before it raises a ValueError.
READ_WAIT = 10.0
#: A :class:`Writer` (``size=None``) starts a write no sooner than this many times the processor
#: time of the previous write after that write began: writing takes at most about 1/WRITE_PACE of
#: a core (waiting for the disk costs the computation nothing, so it does not count).
WRITE_PACE = 10.0


def _open_nofollow(path: Path, flags: int = os.O_RDONLY, mode: int = 0o644, where: str = "sweep") -> int:
    """``os.open`` of a regular file: refuses a symbolic link and anything but a regular file
    (a directory, a FIFO, a device, a socket) with a ValueError naming the file.

    The file is opened non-blocking (a FIFO would otherwise wait for a writer) and checked with
    ``fstat`` on the descriptor; the descriptor returned is blocking again.
    """
    nonblock = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | nonblock, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(
                f"{where}: {str(path)!r} is a symbolic link; a sweep store holds only regular files and follows no link"
            ) from None
        if exc.errno in (errno.EISDIR, errno.ENXIO):  # a directory opened for writing; a FIFO without reader
            raise ValueError(
                f"{where}: {str(path)!r} is not a regular file; a sweep store holds only regular files"
            ) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(
                f"{where}: {str(path)!r} is not a regular file ({_file_kind(st.st_mode)}); "
                "a sweep store holds only regular files"
            )
        if nonblock:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def read_text_nofollow(path: Path, where: str = "sweep") -> str:
    """The text of ``path``, refusing a symbolic link or anything but a regular file."""
    with os.fdopen(_open_nofollow(path, where=where), "rb") as fh:
        return fh.read().decode()


def check_spec_digest(spec_path: Path, stored: Any, where: str) -> None:
    """Refuse a ``_sweep.json`` whose spec no longer hashes to its recorded digest (an edited seed,
    trials, grid...): the parts are tied to the digest, so the spec would misdescribe their numbers.
    """
    from ropelab.sweep._grid import spec_digest

    spec = stored.get("spec") if isinstance(stored, dict) else None
    digest = stored.get("digest") if isinstance(stored, dict) else None
    if not isinstance(spec, dict) or not isinstance(digest, str):
        raise ValueError(f"{where}: the store's {str(spec_path)!r} is damaged (no spec and digest)")
    if spec_digest(spec) != digest:
        raise ValueError(
            f"{where}: the store's {str(spec_path)!r} was altered: its spec does not hash to its recorded "
            "digest (e.g. an edited seed or trials), so it does not describe the stored numbers; restore the "
            "file or run the sweep into a new store"
        )


def _content_digest(sweep_digest: str, table: Any) -> str:
    """SHA-256 of a part's columns (names, types, values), tied to the sweep's digest."""
    h = hashlib.sha256(sweep_digest.encode())
    meta = table.schema.metadata or {}
    for key in sorted(k for k in meta if k != _RECORD):  # e.g. pandas' dtypes and index
        h.update(b"\0meta\0" + key + b"\0" + meta[key])
    for name in table.column_names:
        col = table.column(name).to_numpy(zero_copy_only=False)
        h.update(b"\0col\0" + name.encode() + b"\0" + str(col.dtype).encode() + b"\0")
        if col.dtype.kind in "biuf":
            h.update(col.astype(col.dtype.newbyteorder("<"), copy=False).tobytes())
        else:
            h.update(json.dumps([str(v) for v in col.tolist()]).encode())
    return h.hexdigest()


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: The temporary names of :func:`_atomic_write` (and nothing else): ``.<final name>.<32 hex>.tmp``.
_TMP_PATTERNS = (".part-*.parquet.*.tmp", f".{_SPEC}.*.tmp")


def _atomic_write(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.urandom(16).hex()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    _fsync_dir(path.parent)


class Store:
    """A sweep's Parquet store at ``path`` for the sweep described by ``spec`` / ``digest``."""

    def __init__(self, path: str | os.PathLike[str], digest: str, spec: dict[str, Any], where: str = "sweep") -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"sweep: store must be a path (str or os.PathLike), got {path!r}")
        if not os.fspath(path):
            raise ValueError("sweep: store must be a directory path, got ''")
        require("pyarrow", "store=")
        self.path = Path(path)
        self.digest = digest
        self.spec = spec
        self.where = where
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"sweep: store must be a directory, got the file {str(self.path)!r}")

    def _grid_and_task(self) -> tuple[Any, Any]:
        from ropelab.sweep._grid import Grid
        from ropelab.sweep._tasks import get

        return Grid.from_spec(self.spec["axes"]), get(self.spec["task"])

    @contextmanager
    def open(self) -> Iterator[Store]:
        """Create or check the store and hold its lock while the sweep runs."""
        if self.path.is_dir() and not (self.path / _SPEC).exists():
            foreign = [p.name for p in self.path.iterdir() if p.name != _LOCK]
            if foreign:
                raise ValueError(
                    f"sweep: the store {str(self.path)!r} is a non-empty directory that is not a sweep "
                    f"store (it holds {sorted(foreign)[:3]}...); give a new or empty directory"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        from filelock import FileLock, Timeout  # imported here: it imports fcntl, ropelab does not

        lock_path = self.path / _LOCK
        # Create (or check) the lock file without following a link; the lock then opens a regular file.
        os.close(_open_nofollow(lock_path, os.O_RDWR | os.O_CREAT))
        lock = FileLock(str(lock_path), timeout=0)
        try:
            lock.acquire()
        except Timeout:
            raise RuntimeError(f"sweep: the store {str(self.path)!r} is in use by another run") from None
        try:
            self._check_or_write_spec()
            for pattern in _TMP_PATTERNS:  # a killed writer's unrenamed temporaries
                for stale in self.path.glob(pattern):
                    stale.unlink(missing_ok=True)
            yield self
        finally:
            lock.release()

    def _check_or_write_spec(self) -> None:
        spec_path = self.path / _SPEC
        if spec_path.exists():
            stored = json.loads(read_text_nofollow(spec_path, where=self.where))
            check_spec_digest(spec_path, stored, self.where)
            if stored.get("digest") != self.digest:
                old = stored.get("spec", {})
                diff = sorted(k for k in set(old) | set(self.spec) if old.get(k) != self.spec.get(k))
                if set(diff) <= {"ropelab", "kernels"}:
                    raise ValueError(
                        f"sweep: the store {str(self.path)!r} was written by other numerics "
                        f"({ {k: old.get(k) for k in diff} }, here { {k: self.spec.get(k) for k in diff} }); "
                        "resuming would mix numbers; read it with sweep.load() or run with the same "
                        "ropelab version and kernels (ROPELAB_SIMD)"
                    )
                raise ValueError(
                    f"sweep: the store {str(self.path)!r} holds a different sweep (differs in {diff}); "
                    "use another store path, or sweep.load() it"
                )
            return
        if any(self.path.glob("part-*.parquet")):
            raise ValueError(f"sweep: the store {str(self.path)!r} has parts but no {_SPEC}; not a ropelab store")
        text = json.dumps({"digest": self.digest, "spec": self.spec}, indent=1, sort_keys=True).encode()
        _atomic_write(spec_path, lambda fh: fh.write(text))

    def parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet"))

    def read(self) -> Any:
        """All stored rows as one DataFrame indexed by cell (first occurrence of a cell wins).

        Every part is checked (see the module docstring). The parts are read from a snapshot: every
        listed part is opened first, then read through its descriptor, so a concurrent compaction
        (which writes the merged part before it removes the old ones) cannot take a part away
        mid-read. Only a part that vanishes between the listing and its opening (microseconds) makes
        the listing be taken again, after a pause that doubles from 1 ms up to 0.1 s; after
        ``READ_WAIT`` seconds of that a ValueError is raised.
        """
        import pandas as pd

        pause = 0.001
        deadline = time.monotonic() + READ_WAIT
        while True:
            fds = self._open_snapshot()
            if fds is not None:
                break
            if time.monotonic() >= deadline:
                raise ValueError(
                    f"{self.where}: the parts of the store {str(self.path)!r} kept vanishing while they "
                    f"were opened for {READ_WAIT:g} s (another process keeps merging or deleting them)"
                )
            time.sleep(pause)
            pause = min(2 * pause, 0.1)
        try:
            frames = [self._read_part(path, fd) for path, fd in fds]
        finally:
            for _, fd in fds:
                if fd >= 0:
                    os.close(fd)
        if not frames:
            return None
        df = pd.concat(frames, ignore_index=True)
        return df.drop_duplicates("cell", keep="first").set_index("cell").sort_index()

    def _open_snapshot(self) -> list[tuple[Path, int]] | None:
        """A descriptor for each listed part, or None when one vanished before it was opened."""
        fds: list[tuple[Path, int]] = []
        try:
            for path in self.parts():
                fds.append((path, _open_nofollow(path, where=self.where)))
        except FileNotFoundError:
            for _, fd in fds:
                os.close(fd)
            return None
        except BaseException:
            for _, fd in fds:
                os.close(fd)
            raise
        return fds

    def _read_part(self, path: Path, fd: int) -> Any:
        """One part (open as ``fd``, closed here) as a DataFrame, after checking its record,
        columns, cells, parameters and digest.
        """
        import numpy as np
        import pyarrow.parquet as pq

        def refuse(why: str) -> ValueError:
            return ValueError(
                f"{self.where}: the store's part {str(path)!r} {why}; it was not written by this "
                "sweep or was altered (delete the file to recompute its cells)"
            )

        with os.fdopen(os.dup(fd), "rb") as fh:
            try:
                table = pq.read_table(fh)
            except Exception as exc:  # any decoding failure of a damaged file
                raise refuse(f"cannot be read as Parquet ({type(exc).__name__}: {exc})") from None
        meta = table.schema.metadata or {}
        if _RECORD not in meta:
            # Parts of stores written before the tamper-evident format (or stripped of their
            # record) carry no sweep digest, cell parameters or content digest: nothing can be
            # checked, so they are refused, never trusted.
            raise ValueError(
                f"{self.where}: the store's part {str(path)!r} has no ropelab part record: it was written before "
                "the tamper-evident store format (or its record was removed), so its cells' numbers and "
                "parameters cannot be checked. Recompute them: delete this file and every other part-*.parquet "
                f"of {str(self.path)!r} without a record, then run the same sweep again with the same store "
                "(its missing cells are computed anew), or run the sweep into a new store"
            )
        try:
            record = json.loads(meta[_RECORD])
        except ValueError:
            raise refuse("has a damaged ropelab part record") from None
        if not isinstance(record, dict) or record.get("sweep") != self.digest:
            raise refuse("belongs to another sweep (its sweep digest differs from the store's)")
        grid, task = self._grid_and_task()
        expected = ["cell", *grid.names, *(name for name, _ in task.outputs)]
        if table.column_names != expected:
            raise refuse(f"has the columns {table.column_names}, expected {expected}")
        if record.get("content") != _content_digest(self.digest, table) or record.get("rows") != table.num_rows:
            raise refuse("does not match its content digest (damaged or edited data)")
        try:
            df = table.to_pandas()
        except Exception as exc:  # pragma: no cover - the digest covers pandas' metadata too
            raise refuse(f"cannot be decoded ({type(exc).__name__}: {exc})") from None
        cells = df["cell"].to_numpy()
        if cells.dtype.kind not in "iu" or (len(cells) and (cells.min() < 0 or cells.max() >= len(grid))):
            raise refuse(f"holds cells outside the grid of {len(grid)} cells")
        for name in grid.names:
            want = grid.column(name, cells.tolist())
            have = df[name].to_numpy()
            same = have.shape == want.shape and have.dtype.kind == want.dtype.kind and bool(np.array_equal(have, want))
            if not same:
                raise refuse(f"records values of axis {name!r} that are not this grid's for its cells")
        return df

    def compact(self, merged: Any = None) -> None:
        """Merge all parts into one (after a complete run): fewer files to read.

        ``merged``: the rows of every part, as a DataFrame with a ``cell`` column, when the caller
        holds them (the run that wrote the parts, holding the lock, after reading the older parts
        through :meth:`read`); default: read (and check) them again. The merged part is written
        (atomically) before the old ones are removed; a kill in between leaves every cell twice
        with identical values, which :meth:`read` de-duplicates.
        """
        parts = self.parts()
        if len(parts) > 1:
            if merged is None:
                merged = self.read().reset_index()
            self.write(merged)
            for p in parts:
                p.unlink()
            _fsync_dir(self.path)

    def write(self, frame: Any) -> Path:
        """Append the rows of ``frame`` (a DataFrame with a ``cell`` column) as one new part."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pandas(frame, preserve_index=False)
        record = {
            "format": 1,
            "sweep": self.digest,
            "rows": table.num_rows,
            "content": _content_digest(self.digest, table),
        }
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), _RECORD: json.dumps(record).encode()})
        cells = frame["cell"]
        name = f"part-{int(cells.min()):012d}-{len(frame):06d}-{os.urandom(6).hex()}.parquet"
        path = self.path / name
        _atomic_write(path, lambda fh: pq.write_table(table, fh))
        return path


class Writer:
    """Writes the rows handed to :meth:`add` as parts, from a background thread.

    ``write(rows)`` writes one part. ``size=None``: each write takes every row handed over since
    the previous one, and starts as soon as a row is there but no sooner than ``WRITE_PACE``
    times the previous write's processor time after that write began: one part per cell when
    cells take longer than that (about 20 ms), larger parts when they are faster, so that writing
    uses at most about a tenth of a core, in a thread beside the computation. A write waiting for
    the disk delays nothing: the cells that finish meanwhile go into the next part.
    ``size=k``: parts of ``k`` rows (the last may be smaller). ``per_add=True``: one part per
    :meth:`add` (a Dask batch). A failed write stops the writer; the error is raised by the next
    :meth:`add` and by :meth:`close`.
    """

    def __init__(self, write: Callable[[list[Any]], object], size: int | None = None, per_add: bool = False) -> None:
        self._write = write
        self._next = 0.0  # (size=None) the monotonic time before which no write starts
        self._size = size
        self._per_add = per_add
        self._groups: list[list[Any]] = []
        self._closing = False
        self._error: BaseException | None = None
        self._cv = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="ropelab-sweep-store", daemon=True)
        self._thread.start()

    def add(self, rows: Sequence[Any]) -> None:
        """Hand ``rows`` over to be written (raises the error of a failed earlier write)."""
        with self._cv:
            if self._error is not None:
                raise self._error
            if rows:
                self._groups.append(list(rows))
                self._cv.notify()

    def _take(self) -> list[Any] | None:
        if self._per_add:
            return self._groups.pop(0) if self._groups else None
        rows = [r for g in self._groups for r in g]
        if not rows or (self._size is not None and len(rows) < self._size and not self._closing):
            return None
        take = rows if self._size is None else rows[: self._size]
        rest = rows[len(take) :]
        self._groups = [rest] if rest else []
        return take

    def _loop(self) -> None:
        while True:
            with self._cv:
                while True:
                    wait = self._next - time.monotonic() if not self._closing else 0.0
                    if wait <= 0 and (rows := self._take()) is not None:
                        break
                    if self._closing and not self._groups:
                        return
                    self._cv.wait(wait if wait > 0 else None)
            try:
                start, cpu = time.monotonic(), time.thread_time()
                self._write(rows)
                if self._size is None and not self._per_add:
                    self._next = start + WRITE_PACE * (time.thread_time() - cpu)
            except BaseException as exc:  # reported by add() and close()
                with self._cv:
                    self._error = exc
                    self._groups = []
                return

    def close(self, raise_error: bool = True) -> None:
        """Write every row handed over, stop the thread, and raise a write's error (if any and
        ``raise_error``).
        """
        with self._cv:
            self._closing = True
            self._cv.notify()
        self._thread.join()
        if raise_error and self._error is not None:
            raise self._error
