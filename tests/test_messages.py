"""Messages a person can act on: names suggested from aliases, numbers echoed as given, plurals,
a description for every command, options checked before any progress bar."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

import ropelab as rl
from ropelab import claims, report
from ropelab.cli import build_parser, main

matplotlib.use("Agg")


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("hanning", "'hann'? NumPy's np.hanning is hann with sym=True"), ("han", "'hann'"), ("gausswin", "'gaussian'")],
)
def test_did_you_mean_knows_other_libraries_names(name: str, suggested: str) -> None:
    with pytest.raises(ValueError) as info:
        rl.spectra.window(name, 8)
    message = str(info.value)
    assert f"got '{name}' (did you mean {suggested}" in message, message
    assert "window_names()" in message
    # at most a few names, never the whole list
    listed = {n for n in rl.spectra.window_names(aliases=True) if re.search(rf"'{n}'", message)}
    assert len(listed) <= 3, listed


def test_a_misspelt_name_gets_at_most_three_suggestions() -> None:
    with pytest.raises(ValueError, match=r"did you mean ") as info:
        rl.spectra.window("blackman_harris_", 8)
    assert len(re.findall(r"'[a-z_0-9]+'", str(info.value).split("did you mean")[1])) <= 3


def test_figures_of_merit_of_a_name_says_it_needs_the_samples() -> None:
    with pytest.raises(TypeError, match=r"w must be an array of window samples, not a window name, got 'hann'"):
        rl.spectra.figures_of_merit("hann")  # type: ignore[arg-type]


def test_a_text_array_is_named_as_text() -> None:
    with pytest.raises(TypeError) as info:
        rl.spectra.figures_of_merit(np.array(["a", "b"]))
    assert "must be a real array of numbers, not text" in str(info.value) and " from," not in str(info.value)


def test_numbers_are_echoed_as_given(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["leakage", "--window", "hann", "--N", "64", "--alpha", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "alpha=0.1" in err and "0.10000000000000001" not in err, err
    assert main(["leakage", "--window", "tukey", "--N", "64", "--alpha", "1.1"]) == 2
    err = capsys.readouterr().err
    assert "got 1.1" in err and "1.1000000000000001" not in err, err


def test_plurals() -> None:
    one = claims.run(["tables.deltas"])
    assert report.summary_line(one).startswith("1 claim: ")
    assert repr(one).startswith("ClaimResults(1 claim: ") and "0 errors" in repr(one)


def _subparsers(p: argparse.ArgumentParser, path: str = "ropelab") -> list[tuple[str, argparse.ArgumentParser]]:
    out = [(path, p)]
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _subparsers(sub, f"{path} {name}")
    return out


def test_every_command_and_group_has_a_description() -> None:
    missing = [path for path, p in _subparsers(build_parser()) if not (p.description or "").strip()]
    assert not missing, missing


def test_options_are_checked_before_the_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for bad, option in (("--trials", "-3"), ("--points", "0"), ("--D", "0")):
        assert main(["mse-curve", bad, option, "--out", str(tmp_path / "c.png")]) == 2
        err = capsys.readouterr().err
        assert f"{bad} must be >= 1" in err and "%|" not in err and len(err.strip().splitlines()) == 1, err
    assert main(["mse-curve", "--xi", "2", "--out", str(tmp_path / "c.png")]) == 2
    err = capsys.readouterr().err
    assert "xi" in err and "%|" not in err, err


def test_leakage_plot_labels_the_decay_and_chooses_its_floor(tmp_path: Path) -> None:
    from matplotlib.figure import Figure

    saved: list[Figure] = []
    original = Figure.savefig

    def keep(self: Figure, *args: object, **kwargs: object) -> None:
        saved.append(self)
        original(self, *args, **kwargs)

    Figure.savefig = keep  # type: ignore[method-assign]
    try:
        out = tmp_path / "s.png"
        assert main(["leakage", "--window", "ssm", "--N", "64", "--alpha", "0.0625", "--plot", str(out)]) == 0
    finally:
        Figure.savefig = original  # type: ignore[method-assign]
    ax = saved[0].axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else [ax.lines[0].get_label()]
    assert labels == ["ssm, alpha=0.0625 (alpha*N = 4)"], labels
    low, _ = ax.get_ylim()
    assert -120 < low < -20, low  # from the data: an SSM window's sidelobes fill the axes


def test_spectrum_floor_follows_the_data() -> None:
    hann = rl.plot.spectrum_db({"hann": rl.spectra.window("hann", 64)})
    rect = rl.plot.spectrum_db({"rect": rl.spectra.window("rectangular", 64)})
    assert hann.axes[0].get_ylim()[0] < rect.axes[0].get_ylim()[0] < -40
    fixed = rl.plot.spectrum_db({"rect": rl.spectra.window("rectangular", 64)}, floor_db=-150.0)
    assert fixed.axes[0].get_ylim()[0] == -152.0


def test_sweep_lines_log_x() -> None:
    df = rl.sweep.run("window_merit", {"window": ["hann"], "N": [16, 64, 256]}, progress=False)
    fig = rl.plot.sweep_lines(df, "N", "highest_sidelobe_db", logx=True)
    assert fig.axes[0].get_xscale() == "log"
    with pytest.raises(ValueError, match="logx needs a numeric x"):
        rl.plot.sweep_lines(df, "window", "highest_sidelobe_db", logx=True)


def test_tab_completion_offers_the_api_only() -> None:
    import importlib

    assert dir(rl) == sorted(rl.__all__)
    for name in rl.__all__:
        if name == "__version__":
            continue
        module = importlib.import_module(f"ropelab.{name}")
        shown = dir(module)
        assert shown == sorted(set(module.__all__)), name
        assert not {"np", "warnings", "annotations", "TYPE_CHECKING"} & set(shown), name
        assert all(hasattr(module, n) for n in shown), name
