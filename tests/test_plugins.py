"""Claims and sweep tasks that users add: the ``claim`` decorator, ``ropelab verify --plugin``,
the ``ropelab.claims`` entry-point group, and ``ropelab.sweep.register_task``."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ropelab import claims, sweep
from ropelab.cli import main

PLUGIN = '''
"""A user's claims: one that holds, one whose check finds it false."""
from ropelab.claims import Evidence, claim, derive_verdict


@claim("{prefix}.sum_of_odds", source="folklore", statement="1 + 3 + ... + (2n-1) = n^2 for n < 50",
       expected="holds")
def sum_of_odds() -> Evidence:
    bad = [n for n in range(1, 50) if sum(range(1, 2 * n, 2)) != n * n]
    return Evidence(derive_verdict(not bad), {{"counterexamples": bad}}, "exact integers", {{"n_max": 49}})


@claim("{prefix}.primes_odd", source="a careless note", statement="every prime is odd", expected="fails")
def primes_odd() -> Evidence:
    even = [p for p in (2, 3, 5, 7, 11) if p % 2 == 0]
    return Evidence(derive_verdict(not even), {{"even_primes": even}}, "exact integers",
                    counterexample={{"p": even[0]}} if even else None,
                    corrected="every prime other than 2 is odd", corrected_holds=True)
'''


@pytest.fixture()
def plugin_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = "ropelab_test_plugin_mod"
    (tmp_path / f"{name}.py").write_text(PLUGIN.format(prefix="mine"))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    for cid in ("mine.sum_of_odds", "mine.primes_odd"):
        claims.REGISTRY.pop(cid, None)
    sys.modules.pop(name, None)


def test_plugin_claims_in_every_report_format(
    plugin_module: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    out.mkdir()  # verify creates no missing folders
    status = main(
        [
            "verify",
            "--plugin",
            plugin_module,
            "--no-entry-points",
            "--only",
            "mine.sum_of_odds",
            "mine.primes_odd",
            "tables.deltas",
            "--quiet",
            "--json",
            str(out / "v.json"),
            "--markdown",
            str(out / "v.md"),
            "--html",
            str(out / "v.html"),
        ]
    )
    terminal = capsys.readouterr().out
    assert status == 0, terminal
    assert claims.REGISTRY["mine.sum_of_odds"].plugin == plugin_module
    assert claims.REGISTRY["tables.deltas"].plugin is None
    # its own section, after the built-in ones, in all four formats
    assert terminal.index("Reported results") < terminal.index(claims.USER_SECTION) < terminal.index("mine.primes_odd")
    md = (out / "v.md").read_text()
    assert md.index("## Reported results") < md.index(f"## {claims.USER_SECTION}") < md.index("### `mine.sum_of_odds`")
    html = (out / "v.html").read_text()
    assert html.index(f"<h2>{claims.USER_SECTION}</h2>") < html.index("id='mine.primes_odd'")
    data = json.loads((out / "v.json").read_text())
    mine = {c["id"]: c for c in data["claims"] if c["plugin"] == plugin_module}
    assert set(mine) == {"mine.sum_of_odds", "mine.primes_odd"}
    assert mine["mine.primes_odd"]["verdict"] == "fails" and mine["mine.primes_odd"]["section"] == claims.USER_SECTION
    assert mine["mine.primes_odd"]["counterexample"] == {"p": 2}


def test_a_plugin_claim_that_regresses_fails_verify(plugin_module: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["verify", "--plugin", plugin_module, "--no-entry-points", "--only", "mine.sum_of_odds", "--quiet"]) == 0
    )
    capsys.readouterr()
    check = claims.REGISTRY["mine.sum_of_odds"]
    claims.REGISTRY["mine.sum_of_odds"] = claims.Claim(
        check.id, check.source, check.statement, "fails", check.check, check.plugin
    )
    assert main(["verify", "--no-entry-points", "--only", "mine.sum_of_odds", "--quiet"]) == 1
    assert "1 UNEXPECTED" in capsys.readouterr().out


def test_bad_plugin_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--plugin", "no_such_plugin_module", "--no-entry-points", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "'no_such_plugin_module' could not be imported" in err


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"id": "nodots"}, ValueError, "dot-separated"),
        ({"statement": 123}, TypeError, "statement must be a string"),
        ({"statement": "  "}, ValueError, "statement must not be empty"),
        ({"expected": "maybe"}, ValueError, "expected must be one of"),
        ({"id": "tables.deltas"}, ValueError, "duplicate claim id"),
    ],
)
def test_claim_decorator_rejects_bad_arguments(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    args: dict[str, object] = {"id": "mine.ok", "source": "s", "statement": "t", "expected": "holds"} | kwargs
    with pytest.raises(error, match=message):
        claims.claim(**args)(lambda: None)  # type: ignore[arg-type]
    assert "mine.ok" not in claims.REGISTRY


def test_entry_point_plugin_installed_in_a_new_venv(tmp_path: Path) -> None:
    # a tiny plugin package, installed with pip into a fresh venv that sees this environment's
    # packages (ropelab included) through a .pth file
    pkg = tmp_path / "plugin_pkg"
    (pkg / "ropelab_demo_plugin").mkdir(parents=True)
    (pkg / "ropelab_demo_plugin" / "__init__.py").write_text(PLUGIN.format(prefix="demo"))
    (pkg / "pyproject.toml").write_text(
        textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "ropelab-demo-plugin"
        version = "0.1"

        [project.entry-points."ropelab.claims"]
        demo = "ropelab_demo_plugin"

        [tool.setuptools]
        packages = ["ropelab_demo_plugin"]
    """)
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "parent_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", str(pkg)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    out = tmp_path / "report"
    out.mkdir()  # verify creates no missing folders
    r = subprocess.run(
        [
            str(py),
            "-m",
            "ropelab",
            "verify",
            "--only",
            "demo.sum_of_odds",
            "demo.primes_odd",
            "--quiet",
            "--no-color",
            "--json",
            str(out / "v.json"),
            "--markdown",
            str(out / "v.md"),
            "--html",
            str(out / "v.html"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert claims.USER_SECTION in r.stdout and "demo.primes_odd" in r.stdout
    for name in ("v.json", "v.md", "v.html"):
        text = (out / name).read_text()
        assert claims.USER_SECTION in text and "demo.sum_of_odds" in text and "ropelab_demo_plugin" in text, name
    listed = subprocess.run([str(py), "-m", "ropelab", "verify", "--list"], capture_output=True, text=True, timeout=300)
    assert "demo.primes_odd" in listed.stdout
    hidden = subprocess.run(
        [str(py), "-m", "ropelab", "verify", "--list", "--no-entry-points"], capture_output=True, text=True, timeout=300
    )
    assert hidden.returncode == 0 and "demo.primes_odd" not in hidden.stdout


# ------------------------------------------------------------------------------- sweep tasks


def noisy_square(
    params: dict[str, object], *, trials: int | None, seed: int, nthreads: int | None
) -> dict[str, object]:
    """A user's Monte-Carlo task: the mean of ``trials`` draws of x² + N(0, 1)."""
    x = float(params["x"])  # type: ignore[arg-type]
    draws = x * x + np.random.default_rng(seed).standard_normal(int(trials or 1))
    return {"mean": float(draws.mean()), "big": bool(draws.mean() > params["threshold"])}  # type: ignore[operator]


@pytest.fixture()
def user_task() -> Iterator[sweep.Task]:
    task = sweep.register_task(
        "noisy_square",
        noisy_square,
        axes={"x": sweep.REQUIRED, "threshold": 1.0},
        outputs={"mean": "float64", "big": "bool"},
        monte_carlo=True,
        summary="test task",
    )
    yield task
    from ropelab.sweep._tasks import TASKS

    TASKS.pop("noisy_square", None)


def test_user_task_runs_reproducibly_and_resumes(user_task: sweep.Task, tmp_path: Path) -> None:
    grid = {"x": [0.5, 1.0, 2.0], "threshold": [1.0, 3.0]}
    df = sweep.run("noisy_square", grid, trials=400, seed=9, progress=False, store=tmp_path / "s")
    assert list(df.columns[-2:]) == ["mean", "big"] and df["big"].dtype == bool
    # each cell's seed is the sweep's cell seed: recompute one cell by hand
    i = 3
    cell = df.iloc[i]
    expected = noisy_square(
        {"x": cell.x, "threshold": cell.threshold}, trials=400, seed=sweep.cell_seed(9, i), nthreads=None
    )
    assert cell["mean"] == expected["mean"]
    # |mean - x²| within 5 standard errors (1/√400) in every cell
    assert np.all(np.abs(df["mean"] - df.x**2) < 5 / np.sqrt(400))
    again = sweep.run("noisy_square", grid, trials=400, seed=9, progress=False, store=tmp_path / "s")
    assert again.equals(df)
    assert sweep.run("noisy_square", grid, trials=400, seed=9, progress=False, batch_size=1).equals(df)


def test_user_task_on_dask_equals_local(user_task: sweep.Task) -> None:
    distributed = pytest.importorskip("distributed")
    grid = {"x": [0.5, 1.5, 2.5], "threshold": 2.0}
    local = sweep.run("noisy_square", grid, trials=200, seed=4, progress=False)
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0") as cl,
        distributed.Client(cl) as client,
    ):
        remote = sweep.run("noisy_square", grid, trials=200, seed=4, progress=False, backend=client, batch_size=2)
    assert remote.equals(local)


def test_user_task_output_checked(tmp_path: Path) -> None:
    sweep.register_task("wrong_outputs", lambda p, **kw: {"other": 1.0}, axes=["x"], outputs=["y"])
    try:
        with pytest.raises(ValueError, match=r"task 'wrong_outputs' must return a mapping with the outputs \['y'\]"):
            sweep.run("wrong_outputs", {"x": [1.0]}, progress=False)
    finally:
        from ropelab.sweep._tasks import TASKS

        TASKS.pop("wrong_outputs")


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "message"),
    [
        (("rff_mse", noisy_square), {"axes": ["x"], "outputs": ["y"]}, ValueError, "built-in task"),
        (("bad name", noisy_square), {"axes": ["x"], "outputs": ["y"]}, ValueError, "name must be"),
        (("t", 3), {"axes": ["x"], "outputs": ["y"]}, TypeError, "fn must be callable"),
        (("t", noisy_square), {"axes": [], "outputs": ["y"]}, ValueError, "axes must not be empty"),
        (("t", noisy_square), {"axes": "x", "outputs": ["y"]}, TypeError, "axes must be a mapping"),
        (("t", noisy_square), {"axes": ["x"], "outputs": {"y": "int8"}}, ValueError, "dtypes must be one of"),
        (("t", noisy_square), {"axes": ["x"], "outputs": ["x"]}, ValueError, "both an axis and an output"),
    ],
)
def test_register_task_rejects_bad_arguments(
    args: tuple[object, ...], kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        sweep.register_task(*args, **kwargs)  # type: ignore[arg-type]
    assert "t" not in sweep.tasks()
