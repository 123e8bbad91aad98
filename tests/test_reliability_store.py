"""The sweep store is tamper-evident (issue 17): foreign, partial and corrupted parts are refused
with the file named, load survives a concurrent compaction, no link is followed, and ropelab does
not import fcntl (the store's lock is the filelock package, imported when a store is opened)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ropelab import sweep

pytest.importorskip("pyarrow")
import pyarrow as pa
import pyarrow.parquet as pq

GRID: dict[str, Any] = {"xi": [0.2, 0.7], "D": [8], "sigma": [0.6, 1.0]}


def run(store: Path, seed: int = 0, **kw: Any) -> pd.DataFrame:
    return sweep.run("rff_mse", GRID, trials=200, seed=seed, store=store, progress=False, **kw)


def only_part(store: Path) -> Path:
    parts = sorted(store.glob("part-*.parquet"))
    assert len(parts) == 1
    return parts[0]


def test_a_part_of_another_seed_is_refused(tmp_path: Path) -> None:
    mine, other = tmp_path / "mine", tmp_path / "other"
    run(mine, seed=0)
    run(other, seed=1)
    foreign = only_part(other)
    shutil.copy(foreign, mine / foreign.name)
    for call in (lambda: run(mine, seed=0), lambda: sweep.load(mine)):
        with pytest.raises(ValueError, match=f"{foreign.name}.*belongs to another sweep"):
            call()
    # deleting the named file lets a run resume (recomputing nothing it still has)
    (mine / foreign.name).unlink()
    pd.testing.assert_frame_equal(run(mine, seed=0), sweep.run("rff_mse", GRID, trials=200, seed=0, progress=False))


def test_a_part_with_only_a_cell_column_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    table = pq.read_table(only_part(store))
    bad = pa.Table.from_pandas(pd.DataFrame({"cell": np.arange(4, dtype=np.int64)}), preserve_index=False)
    bad = bad.replace_schema_metadata(table.schema.metadata)  # even with a copied record
    pq.write_table(bad, store / "part-000000000000-000004-deadbeefcafe.parquet")
    with pytest.raises(ValueError, match="deadbeefcafe.*has the columns"):
        sweep.load(store)


def test_a_part_without_a_record_is_refused(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    df = pd.read_parquet(only_part(store))
    df.to_parquet(store / "part-000000000000-000004-000000000000.parquet", index=False)
    with pytest.raises(ValueError, match="000000000000.parquet.*has no ropelab part record"):
        sweep.load(store)


def _write_like_before_the_tamper_evident_format(store: Path) -> list[Path]:
    """Rewrite every part of ``store`` as ropelab wrote parts before issue 17: the same columns
    (cell, axes, outputs) with pandas' metadata only, no ropelab record."""
    parts = sorted(store.glob("part-*.parquet"))
    for part in parts:
        frame = pq.read_table(part).to_pandas()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), part)
        assert b"ropelab.sweep.part" not in (pq.read_schema(part).metadata or {})
    return parts


def test_a_store_of_the_old_format_is_refused_with_the_way_to_recompute(tmp_path: Path) -> None:
    store = tmp_path / "old"
    fresh = run(store)
    (part,) = _write_like_before_the_tamper_evident_format(store)
    for call in (lambda: run(store), lambda: sweep.load(store)):
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert repr(str(part)) in message  # the file, named
        assert "before the tamper-evident store format" in message
        assert "delete this file" in message and "run the same sweep again with the same store" in message
    # the parts are kept (never silently migrated or deleted)
    assert sorted(store.glob("part-*.parquet")) == [part]
    # doing what the message says recomputes the cells
    part.unlink()
    pd.testing.assert_frame_equal(run(store), fresh)
    pd.testing.assert_frame_equal(sweep.load(store), fresh)


def test_edited_values_or_parameters_are_refused(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    part = only_part(store)
    table = pq.read_table(part)
    for column, change in (("empirical_mse", lambda a: np.nextafter(a, np.inf)), ("xi", lambda a: a[::-1].copy())):
        df = table.to_pandas()
        df[column] = change(df[column].to_numpy())
        edited = pa.Table.from_pandas(df, preserve_index=False).replace_schema_metadata(table.schema.metadata)
        pq.write_table(edited, part)
        with pytest.raises(ValueError, match=f"{part.name}.*content digest"):
            sweep.load(store)


@pytest.mark.parametrize("where", ["data", "footer", "everywhere"])
def test_a_flipped_bit_is_detected(tmp_path: Path, where: str) -> None:
    store = tmp_path / "s"
    run(store)
    part = only_part(store)
    raw = bytearray(part.read_bytes())
    meta_len = int.from_bytes(raw[-8:-4], "little")
    data_end = len(raw) - 8 - meta_len
    positions = {
        "data": range(4, data_end),
        "footer": range(data_end, len(raw) - 8),
        "everywhere": range(4, len(raw) - 8),
    }[where]
    rng = np.random.default_rng(7)
    detected = 0
    for pos in rng.choice(np.asarray(positions), size=25, replace=False):
        for bit in (0, 5):
            flipped = bytearray(raw)
            flipped[pos] ^= 1 << bit
            part.write_bytes(bytes(flipped))
            try:
                sweep.load(store)
            except ValueError as exc:
                assert part.name in str(exc)
                detected += 1
    # every flip is either refused or harmless (bits of padding/statistics that change nothing read)
    part.write_bytes(bytes(raw))
    ok = sweep.load(store)
    for pos in rng.choice(np.asarray(positions), size=25, replace=False):
        flipped = bytearray(raw)
        flipped[pos] ^= 1
        part.write_bytes(bytes(flipped))
        try:
            df = sweep.load(store)
        except ValueError:
            continue
        pd.testing.assert_frame_equal(df, ok, check_exact=True)  # accepted ⇒ the same numbers
    assert detected > 0


def test_load_survives_a_concurrent_compaction(tmp_path: Path) -> None:
    from ropelab.sweep._store import Store

    store = tmp_path / "s"
    ref = run(store, batch_size=1)
    meta = __import__("json").loads((store / "_sweep.json").read_text())
    st = Store(store, meta["digest"], meta["spec"])
    rows = st.read().reset_index()
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:  # the writer's compaction, again and again: split into parts, merge
        try:
            while not stop.is_set():
                for i in range(len(rows)):
                    st.write(rows.iloc[[i]])
                st.compact()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=churn)
    t.start()
    try:
        for _ in range(150):
            df = sweep.load(store)
            pd.testing.assert_frame_equal(df, ref, check_exact=True, check_like=False)
    finally:
        stop.set()
        t.join()
    assert not errors, errors


def test_no_symlink_is_followed(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (store / "_sweep.lock").unlink()
    (store / "_sweep.lock").symlink_to(victim)
    with pytest.raises(ValueError, match="_sweep.lock.*symbolic link"):
        run(store)
    assert victim.read_text() == "precious"
    (store / "_sweep.lock").unlink()

    part = only_part(store)
    moved = tmp_path / part.name
    part.rename(moved)
    part.symlink_to(moved)
    with pytest.raises(ValueError, match=f"{part.name}.*symbolic link"):
        sweep.load(store)
    part.unlink()
    moved.rename(part)

    spec = store / "_sweep.json"
    spec.rename(tmp_path / "spec.json")
    spec.symlink_to(tmp_path / "spec.json")
    with pytest.raises(ValueError, match="_sweep.json.*symbolic link"):
        sweep.load(store)
    with pytest.raises(ValueError, match="_sweep.json.*symbolic link"):
        run(store)


def test_the_lock_is_still_exclusive_between_processes(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    from filelock import FileLock

    with FileLock(str(store / "_sweep.lock")):
        code = (
            "import ropelab.sweep as s; s.run('rff_mse', {'xi': [0.2, 0.7], 'D': [8], 'sigma': [0.6, 1.0]}, "
            f"trials=200, store={str(store)!r}, progress=False)"
        )
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "is in use by another run" in r.stderr
    run(store)  # released: usable again


def test_no_ropelab_module_imports_fcntl() -> None:
    # on every Python: no module of the package imports fcntl (Windows has none)
    import ast

    import ropelab

    offenders = []
    for path in Path(ropelab.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            if any(n.split(".")[0] == "fcntl" for n in names):
                offenders.append(f"{path.name}:{node.lineno}")
    assert not offenders, offenders


# On Python 3.10 the standard library's platform module (imported by pandas) imports subprocess,
# which imports fcntl on POSIX; from 3.11 on it no longer does, so there the whole import is checked.
@pytest.mark.skipif(sys.version_info < (3, 11), reason="on Python 3.10, pandas → platform → subprocess imports fcntl")
def test_ropelab_does_not_import_fcntl() -> None:
    code = "import ropelab, ropelab.sweep, ropelab.claims, sys; assert 'fcntl' not in sys.modules, 'fcntl imported'"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # the claim is about ropelab: the interpreter alone does not import fcntl either way
    r = subprocess.run(
        [sys.executable, "-c", "import sys; print('fcntl' in sys.modules)"], capture_output=True, text=True, timeout=60
    )
    assert r.stdout.strip() == "False"
    src = Path(sweep.__file__).parent / "_store.py"
    assert "import fcntl" not in src.read_text()
    assert os.path.exists(src)


# ---- issue 25: the spec re-verified on every load; non-regular files; a concurrent merge


@pytest.mark.parametrize("edit", [{"seed": 8}, {"trials": 201}, {"task": "rff_mse", "format": 2}])
def test_an_edited_spec_is_refused_by_load_and_run(tmp_path: Path, edit: dict[str, Any]) -> None:
    import json

    store = tmp_path / "s"
    run(store, seed=7)
    path = store / "_sweep.json"
    meta = json.loads(path.read_text())
    meta["spec"].update(edit)  # the digest kept: the parts still carry it
    path.write_text(json.dumps(meta, indent=1, sort_keys=True))
    with pytest.raises(ValueError, match=r"sweep\.load: .*_sweep\.json.*altered.*does not hash"):
        sweep.load(store)
    with pytest.raises(ValueError, match=r"_sweep\.json.*altered"):
        run(store, seed=7)


def _load_in_subprocess(store: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys\nfrom ropelab import sweep\n"
        "try:\n    sweep.load(sys.argv[1])\nexcept ValueError as e:\n    print('ValueError:', e)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(store)], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("name", ["part-000000000000-000001-0123456789ab.parquet", "_sweep.json"])
def test_a_fifo_in_the_store_is_refused_without_hanging(tmp_path: Path, name: str) -> None:
    store = tmp_path / "s"
    run(store)
    if name == "_sweep.json":
        (store / name).unlink()
    os.mkfifo(store / name)
    out = _load_in_subprocess(store)  # times out (fails) if load waits for a writer
    assert out.returncode == 0, out.stderr
    assert "ValueError:" in out.stdout and name in out.stdout and "not a regular file (a FIFO)" in out.stdout


@pytest.mark.parametrize("name", ["part-000000000000-000001-0123456789ab.parquet", "_sweep.json"])
def test_a_directory_in_place_of_a_file_is_refused_naming_it(tmp_path: Path, name: str) -> None:
    store = tmp_path / "s"
    run(store)
    if name == "_sweep.json":
        (store / name).unlink()
    (store / name).mkdir()
    with pytest.raises(ValueError, match=rf"{name}'? is not a regular file \(a directory\)"):
        sweep.load(store)
    with pytest.raises(ValueError, match=rf"{name}'? is not a regular file"):
        run(store)


def test_a_directory_as_the_lock_is_refused_naming_it(tmp_path: Path) -> None:
    store = tmp_path / "s"
    run(store)
    (store / "_sweep.lock").unlink()
    (store / "_sweep.lock").mkdir()
    with pytest.raises(ValueError, match=r"_sweep\.lock'? is not a regular file"):
        run(store)


def merge_churn_failures(tmp_path: Path, loads: int, parts: int = 200) -> tuple[int, int]:
    """(failed loads, loads) while a writer splits the store into ``parts`` parts and merges them."""
    import json

    from ropelab.sweep._store import Store

    store = tmp_path / "churn"
    ref = run(store, batch_size=1)
    meta = json.loads((store / "_sweep.json").read_text())
    st = Store(store, meta["digest"], meta["spec"])
    rows = st.read().reset_index()
    stop = threading.Event()
    errors: list[BaseException] = []

    def churn() -> None:
        try:
            while not stop.is_set():
                for i in range(parts):
                    st.write(rows.iloc[[i % len(rows)]])
                st.compact()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    t = threading.Thread(target=churn)
    t.start()
    failed = 0
    try:
        for _ in range(loads):
            try:
                df = sweep.load(store)
            except Exception:
                failed += 1
                continue
            pd.testing.assert_frame_equal(df, ref, check_exact=True)
    finally:
        stop.set()
        t.join()
    assert not errors, errors
    return failed, loads


def test_load_against_a_writer_merging_200_parts_never_fails(tmp_path: Path) -> None:
    # Before: RuntimeError("kept changing") in about 1 of 120 loads (20 re-listings, no pause).
    failed, loads = merge_churn_failures(tmp_path, loads=40)
    assert failed == 0, f"{failed} of {loads} loads failed"


def issue_case_failures(tmp: Path, loads: int) -> dict[str, str]:
    """The store cases of issue 25, each "ok" or what went wrong (for the script below)."""
    import json

    out: dict[str, str] = {}
    for k, (key, value) in enumerate((("seed", 8), ("trials", 201))):
        store = tmp / f"edit{k}"
        run(store, seed=7)
        meta = json.loads((store / "_sweep.json").read_text())
        meta["spec"][key] = value
        (store / "_sweep.json").write_text(json.dumps(meta))
        try:
            sweep.load(store)
            out[f"edited {key} kept the digest"] = "accepted (wrong attrs)"
        except ValueError as exc:
            out[f"edited {key} kept the digest"] = "ok" if "_sweep.json" in str(exc) else f"unnamed: {exc}"
    for kind in ("fifo", "directory"):
        store = tmp / kind
        run(store)
        part = store / "part-000000000000-000001-0123456789ab.parquet"
        os.mkfifo(part) if kind == "fifo" else part.mkdir()
        try:
            res = _load_in_subprocess(store)
            ok = res.returncode == 0 and "ValueError:" in res.stdout and part.name in res.stdout
            out[f"a {kind} named like a part"] = "ok" if ok else f"{res.stdout.strip()} {res.stderr.strip()[-200:]}"
        except subprocess.TimeoutExpired:
            out[f"a {kind} named like a part"] = "load hangs"
    failed, n = merge_churn_failures(tmp, loads=loads)
    out[f"loads against a writer merging 200 parts ({n})"] = "ok" if failed == 0 else f"{failed} failed"
    return out


if __name__ == "__main__":  # python tests/test_reliability_store.py [LOADS]: the issue-25 cases
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        res = issue_case_failures(Path(d), int(sys.argv[1]) if len(sys.argv) > 1 else 200)
    for case, verdict in res.items():
        print(f"{case}: {verdict}")
    print(f"failing: {sum(v != 'ok' for v in res.values())} of {len(res)} cases")
