"""The resumable store of a sweep: a directory holding a Parquet dataset of finished cells.

Layout::

    STORE/_sweep.json                 what the sweep is (task, grid, trials, seed, version) + digest
    STORE/_sweep.lock                 held (flock) by the run writing to the store
    STORE/part-<first>-<n>-<id>.parquet   one file per flushed group of cells

A part is written to a hidden temporary file, flushed to disk and renamed into place, so a reader
sees either the whole part or nothing: a run killed at any moment leaves no partial row, and a
written part is never lost or rewritten. Files starting with ``.`` or ``_`` are ignored by
Parquet readers, so ``pandas.read_parquet(STORE)`` reads the cells finished so far.
"""

from __future__ import annotations

import fcntl
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ropelab.sweep._deps import require

_SPEC = "_sweep.json"
_LOCK = "_sweep.lock"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: The temporary names of :func:`_atomic_write` (and nothing else): ``.<final name>.<32 hex>.tmp``.
_TMP_PATTERNS = (".part-*.parquet.*.tmp", f".{_SPEC}.*.tmp")


def _atomic_write(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
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

    def __init__(self, path: str | os.PathLike[str], digest: str, spec: dict[str, Any]) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"sweep: store must be a path (str or os.PathLike), got {path!r}")
        if not os.fspath(path):
            raise ValueError("sweep: store must be a directory path, got ''")
        require("pyarrow", "store=")
        self.path = Path(path)
        self.digest = digest
        self.spec = spec
        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"sweep: store must be a directory, got the file {str(self.path)!r}")

    @contextmanager
    def open(self) -> Iterator[Store]:
        """Create or check the store and hold its lock while the sweep runs."""
        if self.path.is_dir() and not (self.path / _SPEC).exists():
            foreign = [p.name for p in self.path.iterdir() if p.name != _LOCK]
            if foreign:
                raise ValueError(f"sweep: the store {str(self.path)!r} is a non-empty directory that is not a sweep "
                                 f"store (it holds {sorted(foreign)[:3]}...); give a new or empty directory")
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / _LOCK, "a") as lock:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RuntimeError(f"sweep: the store {str(self.path)!r} is in use by another run") from None
            try:
                self._check_or_write_spec()
                for pattern in _TMP_PATTERNS:  # a killed writer's unrenamed temporaries
                    for stale in self.path.glob(pattern):
                        stale.unlink(missing_ok=True)
                yield self
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _check_or_write_spec(self) -> None:
        spec_path = self.path / _SPEC
        if spec_path.exists():
            stored = json.loads(spec_path.read_text())
            if stored.get("digest") != self.digest:
                old = stored.get("spec", {})
                diff = sorted(k for k in set(old) | set(self.spec) if old.get(k) != self.spec.get(k))
                if set(diff) <= {"ropelab", "kernels"}:
                    raise ValueError(
                        f"sweep: the store {str(self.path)!r} was written by other numerics "
                        f"({ {k: old.get(k) for k in diff} }, here { {k: self.spec.get(k) for k in diff} }); "
                        "resuming would mix numbers; read it with sweep.load() or run with the same "
                        "ropelab version and kernels (ROPELAB_SIMD)")
                raise ValueError(
                    f"sweep: the store {str(self.path)!r} holds a different sweep (differs in {diff}); "
                    "use another store path, or sweep.load() it")
            return
        if any(self.path.glob("part-*.parquet")):
            raise ValueError(f"sweep: the store {str(self.path)!r} has parts but no {_SPEC}; not a ropelab store")
        text = json.dumps({"digest": self.digest, "spec": self.spec}, indent=1, sort_keys=True).encode()
        _atomic_write(spec_path, lambda fh: fh.write(text))

    def parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet"))

    def read(self) -> Any:
        """All stored rows as one DataFrame indexed by cell (first occurrence of a cell wins)."""
        import pandas as pd
        import pyarrow.parquet as pq

        frames = [pq.read_table(p).to_pandas() for p in self.parts()]
        if not frames:
            return None
        df = pd.concat(frames, ignore_index=True)
        return df.drop_duplicates("cell", keep="first").set_index("cell").sort_index()

    def compact(self) -> None:
        """Merge all parts into one (after a complete run): fewer files to read.

        The merged part is written (atomically) before the old ones are removed; a kill in between
        leaves every cell twice with identical values, which :meth:`read` de-duplicates.
        """
        parts = self.parts()
        if len(parts) > 1:
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
        cells = frame["cell"]
        name = f"part-{int(cells.min()):012d}-{len(frame):06d}-{uuid.uuid4().hex[:12]}.parquet"
        path = self.path / name
        _atomic_write(path, lambda fh: pq.write_table(table, fh))
        return path
