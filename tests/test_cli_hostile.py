"""No option value of any subcommand gives a traceback; an OSError names its option (issue 25).

The options are read from ``ropelab.cli.build_parser()`` (every subcommand and sub-subcommand,
every option but --help/--version), not listed by hand; each gets every hostile value below, one at a
time, on top of a base command line that runs quickly. A call may succeed, fail with one line on
stderr (exit 1 or 2, or argparse's usage error), or be interrupted after a few seconds (exit 130);
it may not raise. Run this file as a script to print the failing cases::

    PYTHONPATH=python python tests/test_cli_hostile.py
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ropelab import cli

#: A base command line per (sub)command that runs in well under a second (every leaf of the parser
#: must have one: a new subcommand fails the test until it is added).
BASE: dict[tuple[str, ...], list[str]] = {
    ("verify",): ["--only", "ssm.window_rect", "--quiet", "--no-color"],
    ("counterexample",): [],
    ("mse-curve",): ["--D", "1", "--trials", "10", "--points", "3", "--quiet"],
    ("leakage",): ["--window", "hann", "--N", "64", "--pad", "4"],
    ("sweep", "rff-mse"): ["--xi", "0.5", "--D", "4", "--trials", "10", "--quiet"],
    ("sweep", "window-merit"): ["--window", "hann", "--N", "64", "--pad", "4", "--quiet"],
}


def _leaves(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, child in subs[0].choices.items():
        yield from _leaves(child, (*path, name))


def hostile_values(tmp: Path) -> list[str]:
    loop = tmp / "loop"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    return [
        "",
        "0",
        "-1",
        "1000000000000",
        "9" * 40,
        "1e308",
        "-1e308",
        "nan",
        "inf",
        "5e-324",
        "x" * 300,
        "../../x",
        "/sys/x",
        "/proc/version/x",
        str(loop),
        str(loop / "x.png"),
        str(tmp / "missing" / "x.json"),
        "/",
    ]


def _is_numeric_probe(value: str) -> bool:
    """The values tried on an int or float option: numbers of every kind, and two that are not."""
    return (
        value in ("", "x" * 300)
        or value.lstrip("-").replace(".", "").replace("e", "").isdigit()
        or value
        in (
            "nan",
            "inf",
        )
    )


def cases(tmp: Path) -> list[tuple[tuple[str, ...], list[str]]]:
    out = []
    for path, parser in _leaves(cli.build_parser()):
        base = BASE[path]
        for action in parser._actions:
            if not action.option_strings or isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
                continue
            if action.nargs == 0:  # a flag: on its own
                out.append((path, [*path, *base, action.option_strings[0]]))
                continue
            numeric = action.type in (int, float)
            for value in hostile_values(tmp):
                if numeric and not _is_numeric_probe(value):  # argparse refuses them the same way
                    continue
                # given last, so that it overrides the base's value of the same option
                out.append((path, [*path, *base, action.option_strings[0], value]))
    return out


_FIRED = threading.Event()


def _interrupt() -> None:
    _FIRED.set()
    os.kill(os.getpid(), signal.SIGINT)


@contextlib.contextmanager
def _interrupt_after(seconds: float) -> Iterator[None]:
    """Ctrl-C to this process after ``seconds`` (a long computation then ends with exit 130)."""
    _FIRED.clear()
    timer = threading.Timer(seconds, _interrupt)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def run_case(argv: list[str], cwd: Path) -> str | None:
    """None when the call ends cleanly, else what went wrong."""
    err, out = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)  # relative outputs land in a scratch folder
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), _interrupt_after(10.0):
            try:
                status = cli.main(argv)
            except SystemExit as exc:  # argparse's usage error (one line after the usage)
                status = exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:  # the timer fired outside main's handler
        status = 130
    except BaseException as exc:
        return f"raised {type(exc).__name__}: {exc}"
    finally:
        os.chdir(old)
    text = err.getvalue()
    if status == 130 or _FIRED.is_set():
        # stopped by the timer (a long computation): Ctrl-C is answered, that is all (a SIGINT that
        # lands in a weakref callback is printed by Python as "Exception ignored", not ropelab's)
        return None
    if "Traceback" in text:
        return f"traceback on stderr: {text[-300:]}"
    if status == 1:
        lines = [ln for ln in text.splitlines() if "error:" in ln]
        if not lines or not any(opt in lines[-1] for opt in argv if opt.startswith("--")):
            return f"exit 1 without naming the option: {text.strip()[-300:]}"
    if status not in (0, 1, 2, 130):
        return f"exit status {status}: {text.strip()[-300:]}"
    return None


def warm_up(tmp: Path) -> None:
    """Run every base command once without the timer: a Ctrl-C that lands inside the first import of
    pandas or matplotlib leaves them half-initialised for every later case (an artifact of running
    the cases in one process, not a property of the command line)."""
    import importlib

    for name in ("pandas", "pyarrow.parquet", "matplotlib.figure", "matplotlib.backends.backend_agg", "distributed"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    old = os.getcwd()
    os.chdir(tmp)
    try:
        for path, base in BASE.items():
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                cli.main([*path, *base])
    finally:
        os.chdir(old)


def test_every_leaf_command_has_a_base_command_line() -> None:
    leaves = {path for path, _ in _leaves(cli.build_parser())}
    assert leaves == set(BASE), leaves ^ set(BASE)


@pytest.mark.slow
def test_no_option_value_gives_a_traceback(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    pytest.importorskip("pyarrow")
    warm_up(tmp_path)
    bad = [(argv, why) for _, argv in cases(tmp_path) if (why := run_case(argv, tmp_path)) is not None]
    assert not bad, f"{len(bad)} failing: {bad[:10]}"


@pytest.mark.parametrize(
    "argv,option",
    [
        (["sweep", "window-merit", "--window", "hann", "--N", "64", "--quiet", "--store", "/sys/x"], "--store"),
        (["mse-curve", "--points", "1000000000000", "--quiet"], "--points"),
    ],
)
def test_issue_cases_name_the_option(
    tmp_path: Path, argv: list[str], option: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default output folder exists: the option under test is the one refused
    (tmp_path / "report").mkdir()
    assert cli.main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert "Traceback" not in err and option in err, err


def test_a_store_that_is_a_symlink_loop_names_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    status = cli.main(["sweep", "window-merit", "--window", "hann", "--N", "64", "--quiet", "--store", str(loop)])
    err = capsys.readouterr().err
    assert status == 2 and "--store" in err and "Traceback" not in err, err


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        all_cases = cases(tmp)
        warm_up(tmp)
        bad = [(argv, why) for _, argv in all_cases if (why := run_case(argv, tmp)) is not None]
    for argv, why in bad:
        print(argv, "->", why)
    print(f"failing: {len(bad)} of {len(all_cases)} option values")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
