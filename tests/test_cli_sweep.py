"""``ropelab sweep``: the command line of :mod:`ropelab.sweep`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ropelab import sweep
from ropelab.cli import main

ARGS = [
    "sweep",
    "rff-mse",
    "--xi",
    "0.2",
    "0.7",
    "--D",
    "8",
    "64",
    "--sigma",
    "0.5",
    "paper",
    "1",
    "optimal",
    "--trials",
    "1500",
    "--seed",
    "4",
    "--quiet",
]
GRID = {
    "xi": [0.2, 0.7],
    "D": [8, 64],
    "sigma": [0.5, "paper", 1.0, "optimal"],
    "estimator": "trig",
    "convention": "conjugate",
    "d": 64,
    "mode": "projected",
}  # the CLI's grid: every axis given


def test_rff_mse_table_store_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, png, store = tmp_path / "t.parquet", tmp_path / "t.png", tmp_path / "store"
    assert main([*ARGS, "--out", str(out), "--plot", str(png), "--store", str(store)]) == 0
    printed = capsys.readouterr().out
    assert "empirical_mse" in printed and "optimal" in printed and len(printed.splitlines()) == 2 + 16
    expected = sweep.run("rff_mse", GRID, trials=1500, seed=4, progress=False)
    got = pd.read_parquet(out).set_index("cell")
    outputs = [c for c in expected.columns if c not in expected.attrs["axes"]]
    pd.testing.assert_frame_equal(got[outputs], expected[outputs], check_exact=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the store resumes: a second run computes nothing and prints the same table
    assert main([*ARGS, "--store", str(store)]) == 0
    assert capsys.readouterr().out == printed
    assert sweep.load(store).equals(expected)


def test_rff_mse_on_a_local_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    out = tmp_path / "t.csv"
    assert main([*ARGS, "--scheduler", "local", "--batch-size", "3", "--out", str(out)]) == 0
    assert main([*ARGS, "--out", str(tmp_path / "u.csv")]) == 0
    assert out.read_text() == (tmp_path / "u.csv").read_text()


def test_unreachable_scheduler_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main([*ARGS, "--scheduler", f"tcp://127.0.0.1:{port}", "--scheduler-timeout", "1"]) == 2
    assert "--scheduler" in (err := capsys.readouterr().err) and "cannot reach a Dask scheduler" in err


def test_window_merit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "sweep",
        "window-merit",
        "--window",
        "ssm",
        "--alpha",
        "0",
        str(2 / 256),
        "--N",
        "256",
        "--quiet",
        "--out",
        str(tmp_path / "w.json"),
        "--plot",
        str(tmp_path / "w.png"),
        "--y",
        "first_min_db",
    ]
    assert main(args) == 0
    assert "highest_sidelobe_db" in capsys.readouterr().out
    import json

    rows = pd.DataFrame(json.loads((tmp_path / "w.json").read_text())["rows"])
    assert list(rows.alpha) == [0.0, 2 / 256] and (tmp_path / "w.png").stat().st_size > 1000
    # α·N = 0 is the rectangle (Harris: −13.26 dB); α·N = 2 is MATH.md §5's worked example (−10.79 dB)
    assert list(rows.highest_sidelobe_db.round(2)) == [-13.26, -10.79]


def test_json_is_exact_and_string_axes_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import math

    out = tmp_path / "r.json"
    assert (
        main(
            [
                "sweep",
                "rff-mse",
                "--xi",
                "0.3",
                "--D",
                "16",
                "--estimator",
                "trig",
                "positive",
                "--trials",
                "300",
                "--quiet",
                "--out",
                str(out),
                "--plot",
                str(tmp_path / "r.png"),
            ]
        )
        == 0
    )
    payload = json.loads(out.read_text())
    assert payload["provenance"]["seeds"] == [0] and payload["task"] == "rff_mse"
    rows = payload["rows"]
    df = sweep.run(
        "rff_mse",
        {
            "xi": 0.3,
            "D": 16,
            "sigma": 1.0,
            "estimator": ["trig", "positive"],
            "convention": "conjugate",
            "d": 64,
            "mode": "projected",
        },
        trials=300,
        progress=False,
    )
    assert [r["empirical_mse"] for r in rows] == list(df.empirical_mse)  # every digit
    assert (tmp_path / "r.png").stat().st_size > 1000
    merit = tmp_path / "w.json"
    assert (
        main(
            [
                "sweep",
                "window-merit",
                "--window",
                "hann",
                "hamming",
                "--quiet",
                "--out",
                str(merit),
                "--plot",
                str(tmp_path / "w.png"),
            ]
        )
        == 0
    )
    rows = json.loads(merit.read_text())["rows"]
    assert rows[0]["decay_ratio"] is None and not math.isnan(rows[0]["enbw_bins"])  # NaN (not applicable) -> null
    assert (tmp_path / "w.png").stat().st_size > 1000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sweep", "rff-mse", "--xi", "2", "--D", "4", "--trials", "10"], "xi must lie in [-1, 1]"),
        (["sweep", "rff-mse", "--xi", "0.5", "--D", "4", "--trials", "0"], "trials must be >= 1"),
        (["sweep", "rff-mse", "--xi", "0.5", "--D", "4", "--trials", "9", "--sigma", "tan"], "sigma must be one of"),
        (["sweep", "window-merit", "--window", "kaiser"], "beta"),
        (["sweep", "window-merit", "--window", "hann", "--N", "0"], "N must be >= 1"),
    ],
)
def test_bad_input_exits_2_with_a_message(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*args, "--quiet"]) == 2
    assert message in capsys.readouterr().err
