"""ropelab.plot: helpers never touch matplotlib's global state (backend, pyplot) and draw figures a
reader can read (fine closed-form grids, legends off the data, mathtext, the common-random-numbers
caption); the MSE explorer's update is checked against the closed forms; the report writes and
embeds each distinct figure once."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402

from ropelab import claims, plot, report, spectra, sweep, temperature  # noqa: E402

# Small arguments for every public helper (a helper missing here fails test_every_helper_is_covered).
CASES: dict[str, str] = {
    "mse_vs_sigma": "plot.mse_vs_sigma(temperature.mse_curve(0.5, 4, [0.5, 1.0], trials=50), **kw)",
    "sigma_star_vs_D": "plot.sigma_star_vs_D((0.5,), Ds=[1, 16, 256], **kw)",
    "spectrum_db": "plot.spectrum_db({'Hann': spectra.window('hann', 32)}, pad=8, **kw)",
    "leakage_map": "plot.leakage_map(spectra.leakage_map(alpha=[0.0, 2.0 / 32], omega=[0.5, 1.0], N=32, pad=8), **kw)",
    "decay_bound_curve": "plot.decay_bound_curve(d=16, r_max=200, **kw)",
    "recurrence_error_vs_T": "plot.recurrence_error_vs_T(Ts=(8, 16), d=4, **kw)",
    "sweep_lines": "plot.sweep_lines(sweep.run('window_merit', {'window': ['hann', 'blackman'], 'N': [16, 32]}, "
    "progress=False), 'N', 'highest_sidelobe_db', **kw)",
}
HELPERS = sorted(CASES)


def _call(name: str, **kw: Any) -> Figure:
    return eval(CASES[name], {"plot": plot, "temperature": temperature, "spectra": spectra, "sweep": sweep, "kw": kw})  # type: ignore[no-any-return]


def test_the_package_never_selects_a_backend() -> None:
    root = Path(plot.__file__).resolve().parent
    for path in root.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for needle in ("matplotlib.use(", "switch_backend", "DISPLAY", "pyplot.switch"):
            assert needle not in text, f"{path.name} contains {needle!r}"


def test_every_helper_is_covered() -> None:
    public = {n for n in plot.__all__ if callable(getattr(plot, n)) and not isinstance(getattr(plot, n), type)}
    assert public - {"detached", "mse_explorer"} == set(CASES)


# The backend check runs in fresh interpreters: the backend of this test process is not touched.
_SCRIPT = r"""
import json, sys
import matplotlib
matplotlib.use(sys.argv[1])          # the TEST selects a non-Agg backend; the package never does
import matplotlib.pyplot as plt
from ropelab import plot, spectra, sweep, temperature
cases = json.loads(sys.argv[2])
out = {}
for name, expr in cases.items():
    before = matplotlib.get_backend()
    fig = eval(expr, {"plot": plot, "temperature": temperature, "spectra": spectra, "sweep": sweep, "kw": {}})
    n_fig = len(plt.get_fignums())
    ax = plt.figure().add_subplot()
    n_before = len(plt.get_fignums())
    fig2 = eval(expr, {"plot": plot, "temperature": temperature, "spectra": spectra, "sweep": sweep, "kw": {"ax": ax}})
    out[name] = {"before": before, "after": matplotlib.get_backend(), "rc": matplotlib.rcParams["backend"],
                 "managed": fig.canvas.manager is not None, "same_fig": fig2 is ax.figure,
                 "new_figs_with_ax": len(plt.get_fignums()) - n_before, "type": type(fig).__name__}
    plt.close("all")
ex = plot.mse_explorer()
out["mse_explorer"] = {"before": "", "after": matplotlib.get_backend(), "rc": matplotlib.rcParams["backend"],
                       "managed": ex.figure.canvas.manager is not None, "n_pyplot": len(plt.get_fignums())}
print(json.dumps(out))
"""


@pytest.mark.parametrize("backend", ["svg", "pdf", "template"])
def test_helpers_leave_a_non_agg_backend_alone(backend: str) -> None:
    res = subprocess.run(
        [sys.executable, "-c", _SCRIPT, backend, json.dumps(CASES)], capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-3000:]
    out = json.loads(res.stdout.splitlines()[-1])
    for name in HELPERS:
        r = out[name]
        assert r["before"] == r["after"] == r["rc"] == backend, (name, r)
        assert r["type"] == "Figure" and r["managed"], (name, r)  # a pyplot figure: plt.show() shows it
        assert r["same_fig"] and r["new_figs_with_ax"] == 0, (name, r)  # given ax: drawn there, no new figure
    e = out["mse_explorer"]
    assert e["after"] == e["rc"] == backend and not e["managed"] and e["n_pyplot"] == 0


_DETACHED = r"""
import sys
import matplotlib
from ropelab import claims, plot, report
results = claims.run(["ssm.window_rect", "thm1.finite_D"])
with plot.detached():
    fig = plot.decay_bound_curve(d=16, r_max=100)
assert fig.canvas.manager is None
report.render_figures(results, sys.argv[1])
assert "matplotlib.pyplot" not in sys.modules, "pyplot was imported"
print("ok")
"""


def test_detached_figures_and_the_report_never_import_pyplot(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-c", _DETACHED, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-3000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ssm.window_rect.png", "thm1.finite_D.png"]


@pytest.fixture
def detached() -> Any:
    with plot.detached():
        yield


@pytest.mark.usefixtures("detached")
@pytest.mark.parametrize("name", HELPERS)
def test_helper_returns_its_figure_and_checks_ax(name: str) -> None:
    fig = _call(name)
    assert isinstance(fig, Figure) and fig.axes
    ax = Figure().add_subplot()
    assert _call(name, ax=ax) is ax.figure
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        _call(name, ax="not an axes")


def _overlap(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


@pytest.mark.usefixtures("detached")
@pytest.mark.parametrize("name", HELPERS)
def test_labels_use_mathtext_or_units_and_legends_sit_off_the_data(name: str) -> None:
    fig = _call(name)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)  # a canvas of this figure only; no backend is selected
    canvas.draw()
    renderer = canvas.get_renderer()
    data_axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    for ax in data_axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        for label in (ax.get_xlabel(), ax.get_ylabel()):
            assert "(" in label or "$" in label, f"{name}: label without units or maths: {label!r}"
        leg = ax.get_legend()
        if leg is not None:
            box = leg.get_window_extent(renderer)
            for other in data_axes:
                assert not _overlap(box, other.get_window_extent(renderer)), f"{name}: legend over the data"
            assert box.x1 <= fig.bbox.x1 + 1, f"{name}: legend cut off at the right"


@pytest.mark.usefixtures("detached")
def test_mse_curve_is_drawn_on_a_fine_grid_with_the_crn_note() -> None:
    c = temperature.mse_curve(0.5, 16, np.linspace(0.2, 1.4, 7), trials=200, seed=3)
    ax = plot.mse_vs_sigma(c).axes[0]
    closed = [ln for ln in ax.get_lines() if "closed form" in str(ln.get_label())]
    assert len(closed) == 1
    x, y = (np.asarray(v, dtype=float) for v in closed[0].get_data())
    assert x.size >= 400 and np.all(np.diff(x) > 0) and x[0] <= 0.2 and x[-1] >= 1.4
    np.testing.assert_allclose(y, temperature.mse(0.5, D=16, sigma=x), rtol=1e-14)
    ratios = np.diff(np.log(x))
    assert ratios.max() < 3 * np.log(1.4 / 0.2) / 399  # evenly spaced in log σ (plus the MC σ's)
    title = ax.get_title()
    assert "common random numbers" in title and "correlated" in title
    assert "$" in ax.get_xlabel() and "$" in ax.get_ylabel()


@pytest.mark.usefixtures("detached")
def test_sigma_star_curve_is_fine_by_default() -> None:
    ax = plot.sigma_star_vs_D((0.5,)).axes[0]
    x, y = (np.asarray(v, dtype=float) for v in ax.get_lines()[0].get_data())
    assert x.size >= 300
    np.testing.assert_allclose(y, temperature.optimal_sigma(0.5, x), rtol=1e-14)


def test_mse_vs_sigma_rejects_bad_curves() -> None:
    with pytest.raises(ValueError, match="curves must not be empty"):
        plot.mse_vs_sigma([])
    with pytest.raises(TypeError, match="curves must be an MSECurve"):
        plot.mse_vs_sigma([1.0])  # type: ignore[list-item]
    a = temperature.mse_curve(0.5, 4, [1.0], trials=10)
    b = temperature.mse_curve(0.2, 4, [1.0], trials=10)
    with pytest.raises(ValueError, match="same xi"):
        plot.mse_vs_sigma([a, b])


# ------------------------------------------------------------------------------------------------
# The interactive explorer, without a browser
# ------------------------------------------------------------------------------------------------


def _check_explorer(ex: plot.MSEExplorer, xi: float, D: int, sigma: float) -> None:
    x, y = (np.asarray(v, dtype=float) for v in ex.curve.get_data())
    assert x.size == 400
    np.testing.assert_array_equal(y, temperature.mse(xi, D=D, sigma=x))
    s_star = temperature.optimal_sigma(xi, D)
    assert list(ex.optimum.get_xdata()) == [s_star]
    assert list(ex.optimum.get_ydata()) == [temperature.mse(xi, D=D, sigma=s_star)]
    assert list(ex.point.get_xdata()) == [sigma] and list(ex.point.get_ydata()) == [
        temperature.mse(xi, D=D, sigma=sigma)
    ]
    assert list(ex.paper.get_xdata()) == [temperature.paper_sigma(xi)] * 2
    assert ex.state == {
        "xi": xi,
        "D": D,
        "sigma": sigma,
        "mse": temperature.mse(xi, D=D, sigma=sigma),
        "sigma_star": s_star,
        "mse_star": temperature.mse(xi, D=D, sigma=s_star),
        "sigma_paper": temperature.paper_sigma(xi),
    }
    assert f"D = {D}" in ex.ax.get_title()
    lo, hi = ex.ax.get_ylim()
    assert lo < min(y.min(), ex.state["mse_star"]) and hi > max(y.max(), ex.state["mse"])


@pytest.mark.parametrize(("xi", "D", "sigma"), [(0.5, 1, 1.0), (0.2, 64, 0.3), (-0.8, 2**20, 2.5), (0.9, 4, 0.02)])
def test_explorer_update_redraws_the_closed_forms(xi: float, D: int, sigma: float) -> None:
    ex = plot.mse_explorer()
    ex.update(xi, D, sigma)
    _check_explorer(ex, xi, D, sigma)
    assert ex.figure.canvas.manager is None


def test_explorer_sliders_drive_update() -> None:
    pytest.importorskip("ipywidgets")
    ex = plot.mse_explorer(xi=0.5, D=16, sigma=1.0)
    box = ex.widget
    assert ex.widget is box and set(ex.sliders) == {"xi", "D", "sigma"}
    image = box.children[1]
    png0 = image.value
    assert png0[:8] == b"\x89PNG\r\n\x1a\n"
    ex.sliders["D"].value = 256
    _check_explorer(ex, 0.5, 256, 1.0)
    ex.sliders["xi"].value = -0.3
    ex.sliders["sigma"].value = 0.7
    _check_explorer(ex, -0.3, 256, 0.7)
    assert image.value != png0 and image.value == ex.png()
    assert "application/vnd.jupyter.widget-view+json" in ex._repr_mimebundle_()


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"xi": 1.0}, "xi must be in"), ({"D": 3}, "D must be a power of two"), ({"sigma": 5.0}, "sigma must be in")],
)
def test_explorer_rejects_values_off_its_sliders(kw: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        plot.mse_explorer(**kw)
    ex = plot.mse_explorer()
    args = {"xi": 0.5, "D": 16, "sigma": 1.0} | kw
    with pytest.raises(ValueError, match=match):
        ex.update(**args)


# ------------------------------------------------------------------------------------------------
# The report: each distinct figure written and embedded once
# ------------------------------------------------------------------------------------------------


def test_report_figures_are_distinct(tmp_path: Path) -> None:
    results = claims.run(["ssm.window_rect", "ssm.decay_leakage", "thm1.finite_D", "rope.decay"])
    with_figures = [r for r in results if r.figure is not None and r.error is None]
    assert len({r.figure for r in with_figures}) < len(with_figures), "no two claims share a figure any more"
    paths = report.render_figures(results, tmp_path / "figures")
    assert set(paths) == {r.id for r in with_figures}
    files = sorted((tmp_path / "figures").glob("*.png"))
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in files]
    assert len(set(digests)) == len(files), "two figure files are byte-identical"
    assert set(paths.values()) == set(files)
    html = report.to_html(results, paths)
    images = re.findall(r"src='data:image/png;base64,([^']+)'", html)
    assert len(images) == len(files) and len(set(images)) == len(images), "an image is embedded twice"
    shared = [rid for rid in paths if paths[rid].stem != rid]
    assert shared
    for rid in shared:  # a claim whose figure is shown elsewhere links to it
        assert re.search(rf"id='{re.escape(rid)}'.*?the same as <a href='#{re.escape(paths[rid].stem)}'>", html, re.S)
    md = report.to_markdown(results, paths, relative_to=tmp_path)
    for rid in paths:
        assert f"![{rid}](figures/{paths[rid].name})" in md


@pytest.mark.usefixtures("detached")
@pytest.mark.parametrize("floor_db", [0.0, 10.0, float("nan"), float("-inf")])
def test_spectrum_db_rejects_a_bad_floor(floor_db: float) -> None:
    with pytest.raises(ValueError, match="floor_db must be a finite negative level"):
        plot.spectrum_db(spectra.window("hann", 16), floor_db=floor_db)


@pytest.mark.parametrize("bad", [None, 0.5, [], {"a": 1}, np.zeros((2, 2))])
def test_helpers_refuse_the_wrong_kind_of_result(bad: object) -> None:
    # a wrong object is a TypeError naming the argument, never an AttributeError from deep inside
    with plot.detached():
        with pytest.raises(TypeError, match="leakage_map: m must be"):
            plot.leakage_map(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="sweep_lines: df must be"):
            plot.sweep_lines(bad, "x", "y")
