"""The command line as a Unix tool: options checked before computing, one-line errors, no
tracebacks (unwritable paths, closed pipes, Ctrl-C), help for every option, provenance in every
JSON output, one name per concept across subcommands."""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ropelab import claims, temperature
from ropelab.cli import build_parser, main

PROVENANCE_KEYS = {"ropelab", "git_commit", "python", "numpy", "platform", "simd", "threads", "seeds", "utc"}


@pytest.fixture()
def no_compute(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if a command starts computing: every bad output path must be refused before."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("computation started before the options were checked")

    monkeypatch.setattr(claims, "run", refuse)
    monkeypatch.setattr(temperature, "mse_curve", refuse)
    from ropelab import spectra, sweep

    monkeypatch.setattr(spectra, "figures_of_merit", refuse)
    monkeypatch.setattr(sweep, "run", refuse)


def _bad_paths(tmp_path: Path) -> dict[str, Path]:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    (tmp_path / "a_dir.json").mkdir()
    return {
        "parent is a file": a_file / "out.json",
        "is a directory": tmp_path / "a_dir.json",
        "parent does not exist": tmp_path / "no_such_dir" / "out.json",  # refused, never created
    }


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["verify", "--json", "{p}"], "--json"),
        (["verify", "--markdown", "{p}"], "--markdown"),
        (["verify", "--html", "{p}"], "--html"),
        (["verify", "--figures", "{p}"], "--figures"),
        (["mse-curve", "--out", "{p}"], "--out"),
        (["leakage", "--window", "hann", "--N", "64", "--plot", "{p}"], "--plot"),
        (["sweep", "window-merit", "--window", "hann", "--out", "{p}"], "--out"),
        (["sweep", "window-merit", "--window", "hann", "--plot", "{p}"], "--plot"),
    ],
)
def test_unwritable_output_is_refused_before_computing(
    argv: list[str], option: str, tmp_path: Path, no_compute: None, capsys: pytest.CaptureFixture[str]
) -> None:
    for why, path in _bad_paths(tmp_path).items():
        if option == "--figures" and why == "is a directory":
            continue  # a directory is what --figures wants
        path = path.with_suffix(
            {"--markdown": ".md", "--html": ".html", "--figures": ""}.get(
                option, ".json" if "json" in argv[1] or argv[0] == "sweep" and option == "--out" else ".png"
            )
        )
        if why == "is a directory" and not path.exists():
            path.mkdir()
        assert main([a.replace("{p}", str(path)) for a in argv]) == 2, why
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and option in err and str(path) in err, err
        if why == "parent does not exist":
            assert "does not exist; create it first" in err and not path.parent.exists(), err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["verify", "--json", "r.txt"], "--json"),
        (["verify", "--html", "r.md"], "--html"),
        (["mse-curve", "--out", "curve.jpeg2000"], "--out"),
        (["leakage", "--window", "hann", "--N", "64", "--plot", "spectrum"], "--plot"),
        (["sweep", "window-merit", "--window", "hann", "--out", "t.xlsx"], "--out"),
    ],
)
def test_wrong_format_is_refused_before_computing(
    argv: list[str], option: str, tmp_path: Path, no_compute: None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / a) if "." in a and not a.startswith("-") and a != "64" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and option in err and "unsupported file type" in err, err


def test_unknown_claim_id_is_refused_before_computing(no_compute: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "rff.no_such_claim"]) == 2
    assert "--only: unknown claim id(s) rff.no_such_claim" in capsys.readouterr().err


def test_list_shows_every_claim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == list(claims.REGISTRY)


def _ropelab(*args: str) -> list[str]:
    return [sys.executable, "-m", "ropelab", *args]


def test_closed_pipe_exits_quietly() -> None:
    # the reader goes away before the first line is written (as `ropelab ... | head -0` would)
    with subprocess.Popen(_ropelab("verify", "--list"), stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        assert p.stdout is not None and p.stderr is not None
        p.stdout.close()
        err = p.stderr.read().decode()
        assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err, err


def test_head_reads_the_first_line_and_the_rest_is_dropped_quietly() -> None:
    shell = f"{' '.join(_ropelab('verify', '--list'))} | head -n 1"
    r = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True, timeout=120)
    assert r.stdout.split()[0] == next(iter(claims.REGISTRY))
    assert "Traceback" not in r.stderr and "Error" not in r.stderr, r.stderr


def test_ctrl_c_exits_130_with_one_line() -> None:
    # a Monte-Carlo run long enough to be interrupted (the engine polls for signals)
    p = subprocess.Popen(
        _ropelab(
            "mse-curve",
            "--trials",
            "100000000",
            "--D",
            "4096",
            "--points",
            "4",
            "--quiet",
            "--out",
            os.devnull + ".png",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(3.0)  # past the imports, inside the computation
    assert p.poll() is None, p.communicate()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert err.strip() == "ropelab mse-curve: interrupted", err


def _all_actions() -> list[tuple[str, argparse.Action]]:
    found: list[tuple[str, argparse.Action]] = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub_name, sub in action.choices.items():
                    walk(sub, f"{name} {sub_name}")
            else:
                found.append((name, action))

    walk(build_parser(), "ropelab")
    return found


def test_every_option_has_help_and_shows_its_default() -> None:
    actions = _all_actions()
    assert len(actions) > 50
    for command, action in actions:
        assert action.help and action.help != argparse.SUPPRESS, (command, action.option_strings)
    for command in ("verify", "counterexample", "mse-curve", "leakage", "sweep rff-mse", "sweep window-merit"):
        text = subprocess.run(_ropelab(*command.split(), "--help"), capture_output=True, text=True, timeout=60).stdout
        shown = [
            a
            for c, a in actions
            if c == f"ropelab {command}"
            and a.default not in (None, False, [])
            and a.option_strings
            and a.dest != "help"
        ]
        assert text.count("(default:") >= len(shown), (command, text)


def test_one_name_per_concept_across_subcommands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def leakage(*args: str) -> dict[str, object]:
        assert main(["leakage", "--json", *args]) == 0
        payload: dict[str, object] = json.loads(capsys.readouterr().out)
        return payload["figures_of_merit"]  # type: ignore[return-value]

    # --n is a documented alias of --N, --param NAME= of the named options
    base = leakage("--window", "ssm", "--N", "128", "--alpha", str(2 / 128))
    assert leakage("--window", "ssm", "--n", "128", "--param", f"alpha={2 / 128}") == base
    assert leakage("--window", "kaiser", "--N", "64", "--beta", "8") == leakage(
        "--window", "kaiser", "--N", "64", "--param", "beta=8"
    )
    # the same window names and options in the sweep
    out = tmp_path / "a.json"
    argv = ["sweep", "window-merit", "--window", "ssm", "--N", "128", "--alpha", str(2 / 128), "--quiet"]
    assert main([*argv, "--out", str(out)]) == 0
    rows = [json.loads(out.read_text())["rows"][0]]
    assert rows[0]["highest_sidelobe_db"] == base["highest_sidelobe_db"]
    assert main(["leakage", "--window", "ssm", "--N", "64", "--param", "alpha=0.1", "--alpha", "0.1"]) == 2
    assert "not both" in capsys.readouterr().err


def test_every_json_output_records_provenance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outputs = []
    assert main(["counterexample", "--json"]) == 0
    outputs.append(json.loads(capsys.readouterr().out))
    assert main(["leakage", "--window", "hann", "--N", "64", "--json"]) == 0
    outputs.append(json.loads(capsys.readouterr().out))
    assert main(["verify", "--only", "rff.eq8_literal", "--quiet", "--json", str(tmp_path / "v.json")]) == 0
    outputs.append(json.loads((tmp_path / "v.json").read_text()))
    assert (
        main(
            [
                "sweep",
                "rff-mse",
                "--xi",
                "0.5",
                "--D",
                "4",
                "--trials",
                "50",
                "--seed",
                "7",
                "--quiet",
                "--out",
                str(tmp_path / "s.json"),
            ]
        )
        == 0
    )
    outputs.append(json.loads((tmp_path / "s.json").read_text()))
    for payload in outputs:
        assert PROVENANCE_KEYS <= set(payload["provenance"]), payload["provenance"]
    assert outputs[2]["provenance"]["seeds"] == [20260101]  # the claim's own seed
    assert outputs[3]["provenance"]["seeds"] == [7]
    import ropelab

    assert {p["provenance"]["ropelab"] for p in outputs} == {ropelab.__version__}
