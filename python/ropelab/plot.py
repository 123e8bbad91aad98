"""Matplotlib helpers (optional dependency: ``pip install ropelab[plot]``).

Each helper takes an optional ``ax``, labels its axes with units and returns the figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ropelab.temperature import MSECurve

__all__ = ["mse_vs_sigma", "sigma_star_vs_D"]


def _axes(ax: Axes | None, figsize: tuple[float, float] = (7.0, 4.5)) -> tuple[Figure, Axes]:
    try:
        import matplotlib

        if matplotlib.get_backend().lower() not in {"agg", "module://matplotlib_inline.backend_inline"}:
            import os

            if not os.environ.get("DISPLAY"):
                matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover
        raise ImportError("ropelab.plot needs matplotlib: pip install 'ropelab[plot]'") from exc
    if ax is None:
        fig, ax = plt.subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax  # type: ignore[return-value]


def mse_vs_sigma(curves: Sequence[MSECurve] | MSECurve, ax: Axes | None = None, *, mark: bool = True) -> Figure:
    """MSE against the temperature σ: closed-form curves with Monte-Carlo points (±2 SE bars).

    Marks the paper's σ = tan(½ arccos ξ), σ = 1 and the optimum σ*(D) of each curve.

    Parameters
    ----------
    curves : MSECurve or sequence of MSECurve
        From :func:`ropelab.temperature.mse_curve` (one per D).
    ax : matplotlib Axes, optional
    mark : bool
        Draw the vertical markers.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ropelab import temperature

    if not isinstance(curves, Sequence):
        curves = [curves]
    fig, ax = _axes(ax)
    colors: list[Any] = []
    for c in curves:
        (line,) = ax.semilogy(c.sigmas, c.analytic, "-", label=f"D = {c.D} (closed form)")
        colors.append(line.get_color())
        ax.errorbar(c.sigmas, c.empirical, yerr=2 * c.stderr, fmt="o", ms=3, color=line.get_color(),
                    alpha=0.8, label=f"D = {c.D} (Monte Carlo, {c.trials} trials, ±2 SE)")
    if mark and curves:
        xi = curves[0].xi
        ax.axvline(float(temperature.paper_sigma(xi)), color="k", ls="--", lw=1,
                   label=f"paper's σ = tan(½ arccos ξ) = {float(temperature.paper_sigma(xi)):.3f}")
        ax.axvline(1.0, color="k", ls=":", lw=1, label="σ = 1 (unbiased)")
        for c, col in zip(curves, colors):
            s_opt = float(temperature.optimal_sigma(c.xi, c.D, c.estimator, convention=c.convention))
            m_opt = float(temperature.mse(s_opt, c.xi, c.D, c.estimator, c.convention))
            ax.plot([s_opt], [m_opt], marker="*", ms=12, color=col, mec="k", ls="none")
        ax.plot([], [], marker="*", ms=10, color="gray", mec="k", ls="none", label="σ*(D), root of the cubic")
    ax.set_xlabel("temperature σ (std of each frequency component, dimensionless)")
    ax.set_ylabel("MSE of the estimate of exp(q·k)")
    if curves:
        ax.set_title(f"Trig random features, unit-norm q, k with q·k = ξ = {curves[0].xi:g}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return fig


def sigma_star_vs_D(
    xis: Sequence[float] = (-0.5, 0.0, 0.5, 0.9),
    Ds: Sequence[float] | None = None,
    ax: Axes | None = None,
    estimator: str = "trig",
) -> Figure:
    """The MSE-optimal temperature σ*(D) against the number of features, one line per ξ.

    Draws the paper's σ (dotted, same colour) for comparison and σ = 1 (the D → ∞ limit).

    Parameters
    ----------
    xis : sequence of float
        Cosines ξ = q·k.
    Ds : sequence of float, optional
        Feature counts (default: 25 log-spaced values from 1 to 10⁶).
    ax : matplotlib Axes, optional
    estimator : str
        ``"trig"`` or ``"positive"``.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from ropelab import temperature

    D = np.unique(np.logspace(0, 6, 25).round()) if Ds is None else np.asarray(Ds, dtype=float)
    fig, ax = _axes(ax)
    for xi in xis:
        (line,) = ax.semilogx(D, temperature.optimal_sigma(xi, D, estimator), "-o", ms=3, label=f"σ*(D), ξ = {xi:g}")  # type: ignore[arg-type]
        if estimator == "trig":
            ax.axhline(float(temperature.paper_sigma(xi)), color=line.get_color(), ls=":", lw=1)
    ax.axhline(1.0, color="k", ls="--", lw=1, label="σ = 1 (D → ∞)")
    ax.plot([], [], color="gray", ls=":", label="paper's σ = tan(½ arccos ξ)")
    ax.set_xlabel("number of random features D")
    ax.set_ylabel("MSE-optimal temperature σ* (dimensionless)")
    ax.set_title(f"Finite-D optimum ({estimator} features): root of the stationarity cubic")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return fig
