"""Matplotlib helpers (optional dependency: ``pip install ropelab[plot]``).

Each helper takes an optional ``ax``, labels its axes with units and returns the figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ropelab.spectra import LeakageMap
    from ropelab.temperature import MSECurve

__all__ = ["mse_vs_sigma", "sigma_star_vs_D", "spectrum_db", "leakage_map", "decay_bound_curve", "recurrence_error_vs_T",
           "sweep_lines"]


def _figure_of(ax: Axes) -> Figure:
    """The figure holding ``ax`` (matplotlib types it as Figure | SubFigure)."""
    return ax.figure  # type: ignore[return-value]


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
    return _figure_of(ax), ax


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

    Examples
    --------
    >>> from ropelab import temperature
    >>> fig = mse_vs_sigma(temperature.mse_curve(0.5, 16, [0.5, 1.0], trials=200))
    >>> fig.axes[0].get_xlabel()
    'temperature σ (std of each frequency component, dimensionless)'
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


def spectrum_db(
    windows: Mapping[str, npt.ArrayLike] | npt.ArrayLike,
    ax: Axes | None = None,
    *,
    pad: int = 64,
    fmax: float | None = None,
    floor_db: float = -150.0,
) -> Figure:
    """Log-magnitude spectra ``20 log10 |W(f)|/|W(0)|`` of one or several windows (FFTW, zero-padded).

    Parameters
    ----------
    windows : array_like or mapping of label -> array_like
        Real windows (each normalised to its own peak at ``f = 0``).
    ax : matplotlib Axes, optional
    pad : int
        FFT padding factor.
    fmax : float, optional
        Right limit in bins (default: ``min(N/2, 12)`` of the first window).
    floor_db : float
        Values below are clipped (true nulls would be ``-inf``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from ropelab import spectra
    >>> fig = spectrum_db({"Hann": spectra.window("hann", 64)})
    >>> "dB" in fig.axes[0].get_ylabel()
    True
    """
    from ropelab import spectra

    if not isinstance(windows, Mapping):
        windows = {"window": windows}
    fig, ax = _axes(ax)
    first_n = None
    for label, w in windows.items():
        wa = np.asarray(w)
        first_n = first_n or wa.size
        f, mag = spectra.spectrum(wa, pad=pad)
        if np.iscomplexobj(wa):
            peak = np.abs(spectra.dtft(wa, [0.0]))[0]
        else:
            peak = mag[0]
        with np.errstate(divide="ignore"):
            level = 20 * np.log10(mag / peak)
        ax.plot(f, np.maximum(level, floor_db), lw=1, label=str(label))
    ax.set_xlim(0.0, fmax if fmax is not None else min((first_n or 2) / 2, 12.0))
    ax.set_xlabel("frequency offset (bins = cycles per N samples)")
    ax.set_ylabel("|W(f)| / |W(0)| (dB)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    return fig


def leakage_map(m: LeakageMap, ax: Axes | None = None, *, field: str = "far_leakage_db") -> Figure:
    """The SSM leakage map: a per-(α·N, ω) quantity as an image plus the per-α·N window sidelobes.

    Parameters
    ----------
    m : LeakageMap
        From :func:`ropelab.spectra.leakage_map`.
    ax : matplotlib Axes, optional
        Axes for the image; a second panel (highest sidelobe and first-minimum depth against α·N)
        is added next to it when ``ax`` is None.
    field : {"far_leakage_db", "tone_scalloping_db", "bin_leakage_factor"}

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from ropelab import spectra
    >>> fig = leakage_map(spectra.leakage_map([0.0, 2.0], [0.5, 1.0], N=64, pad=8))
    >>> len(fig.axes) >= 2
    True
    """
    labels = {
        "far_leakage_db": "largest DFT bin ≥ 2 bins from the tone (dB re peak)",
        "tone_scalloping_db": "tone loss at its nearest bin (dB)",
        "bin_leakage_factor": "DFT energy outside the nearest bin (fraction)",
    }
    if field not in labels:
        raise ValueError(f"leakage_map: field must be one of {sorted(labels)}, got {field!r}")
    data = np.asarray(getattr(m, field), dtype=float)
    if ax is None:
        fig, (ax, ax2) = _two_axes()
    else:
        fig, ax2 = _figure_of(ax), None
    finite = data[np.isfinite(data)]
    vmin = float(finite.min()) if finite.size else 0.0
    img = ax.pcolormesh(m.omega, m.alpha_n, np.where(np.isfinite(data), data, vmin), shading="auto", cmap="viridis")
    fig.colorbar(img, ax=ax, label=labels[field])
    ax.set_xlabel("SSM rotation ω (rad/sample)")
    ax.set_ylabel("decay over the window α·N (dimensionless)")
    ax.set_title(f"Causal exponential window, N = {m.N}")
    if ax2 is not None:
        ax2.plot(m.alpha_n, m.highest_sidelobe_db, "o-", ms=3, label="highest sidelobe (beyond first minimum)")
        depth = np.maximum(m.first_min_db, -120.0)  # true nulls (α = 0) would be −300 dB
        ax2.plot(m.alpha_n, depth, "s--", ms=3, label="first-minimum depth (α > 0: a dip, no true null; clipped at −120 dB)")
        ax2.axhline(-13.26, color="k", ls=":", lw=1, label="rectangle (α = 0): −13.26 dB")
        ax2.set_xlabel("decay over the window α·N (dimensionless)")
        ax2.set_ylabel("level re main peak (dB)")
        ax2.grid(True, alpha=0.3)
        ax2.legend(fontsize=7, loc="best")
    return fig


def _two_axes() -> tuple[Figure, tuple[Axes, Axes]]:
    fig, ax = _axes(None, figsize=(11.0, 4.2))
    fig.clf()
    axes = fig.subplots(1, 2)
    return fig, (axes[0], axes[1])


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

    Examples
    --------
    >>> fig = sigma_star_vs_D((0.5,), Ds=[1, 16, 256])
    >>> fig.axes[0].get_xlabel()
    'number of random features D'
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


def decay_bound_curve(d: int = 128, base: float = 10000.0, r_max: int = 20000, ax: Axes | None = None) -> Figure:
    """RoFormer's relative upper bound B(r) against the relative distance r (log-scaled r axis).

    Parameters
    ----------
    d : int
        Head dimension (even).
    base : float
        RoPE base.
    r_max : int
        Largest relative distance.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = decay_bound_curve(r_max=500)
    >>> fig.axes[0].get_xlabel()
    'relative distance r = n − m (positions)'
    """
    from ropelab import rotary

    r = np.arange(0, r_max + 1)
    B = np.asarray(rotary.decay_bound(r, d=d, base=base))
    fig, ax = _axes(ax)
    ax.plot(r[1:], B[1:], lw=0.6, label=f"B(r), d = {d}, base = {base:g}")
    ax.axhline(B[0] / 2, color="gray", ls=":", lw=1, label="B(0)/2")
    ax.set_xscale("log")
    ax.set_xlabel("relative distance r = n − m (positions)")
    ax.set_ylabel("relative upper bound B(r) (dimensionless)")
    ax.set_title("RoPE long-term decay bound: a short-range trend, not monotone")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def recurrence_error_vs_T(
    Ts: Sequence[int] = (16, 64, 256, 1024, 4096),
    d: int = 16,
    seed: int = 0,
    ax: Axes | None = None,
) -> Figure:
    """Relative difference between two routes to the same attention output, against the length T.

    Compares Selective RoPE pre-rotated vs recurrent (Eq. 13, rotating transitions), Eq. (9) with
    and without the amplitude factor against the direct RFF sum, and the Eq. (11) product started at
    τ against the recurrence: the exact identities sit at float64 rounding, the wrong forms at O(1).

    Parameters
    ----------
    Ts : sequence of int
        Sequence lengths.
    d : int
        Head dimension (even).
    seed : int
        Seed of the random inputs (``numpy.random.default_rng``).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> fig = recurrence_error_vs_T(Ts=(16, 32))
    >>> len(fig.axes[0].lines) >= 4
    True
    """
    from ropelab import recurrence, rotary

    rng = np.random.default_rng(seed)
    rows: dict[str, list[float]] = {"Selective RoPE: pre-rotated vs recurrent": [],
                                    "Eq. (9) with amplitude vs direct sum": [],
                                    "Eq. (9) without amplitude vs direct sum": [],
                                    "Eq. (11) product from τ vs recurrence": []}

    def rel(a: Any, b: Any) -> float:
        return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))

    for T in Ts:
        q, k, v = rng.standard_normal((3, T, d))
        psi = rotary.cumulative_phase(rng.standard_normal((T, d // 2)))
        rows["Selective RoPE: pre-rotated vs recurrent"].append(
            rel(recurrence.selective_rope_attention(q, k, v, psi, mode="recurrent"),
                recurrence.selective_rope_attention(q, k, v, psi, mode="prerotated")))
        Tr = min(T, 256)  # the direct RFF sum and the unrolled product are O(T²)
        qs, ks, vs = 0.3 * q[:Tr, :4], 0.3 * k[:Tr, :4], v[:Tr, :2]
        w = rng.standard_normal((8, 4))
        direct = recurrence.rff_attention(qs, ks, vs, w, mode="direct")
        rows["Eq. (9) with amplitude vs direct sum"].append(rel(recurrence.rff_attention(qs, ks, vs, w, "recurrent"), direct))
        rows["Eq. (9) without amplitude vs direct sum"].append(
            rel(recurrence.rff_attention(qs, ks, vs, w, "recurrent", amplitude=False), direct))
        A = 0.95 * np.eye(4) + 0.02 * rng.standard_normal((Tr, 4, 4))
        rows["Eq. (11) product from τ vs recurrence"].append(
            rel(recurrence.linear_attention(qs, ks, vs, A, mode="unrolled", product_start="tau"),
                recurrence.linear_attention(qs, ks, vs, A)))
    fig, ax = _axes(ax)
    for label, errs in rows.items():
        ax.loglog(list(Ts), np.maximum(errs, 1e-18), "-o", ms=4, label=label)
    ax.axhline(np.finfo(float).eps, color="k", ls=":", lw=1, label="float64 machine epsilon")
    ax.set_xlabel("sequence length T (steps; O(T²) routes capped at T = 256)")
    ax.set_ylabel("max relative difference (dimensionless)")
    ax.set_title("Identities at rounding level, wrong forms at O(1)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return fig


#: Units of the columns of a sweep table, for axis labels.
SWEEP_LABELS: dict[str, str] = {
    "sigma": "temperature σ", "sigma_used": "temperature σ", "xi": "cosine ξ = q·k", "D": "features D",
    "d": "dimension d", "empirical_mse": "MSE of the estimate of exp(ξ)", "analytic_mse": "MSE (closed form)",
    "bias": "bias of the estimate of exp(ξ)", "N": "window length N (samples)", "alpha_n": "decay α·N",
    "beta": "Kaiser β", "alpha": "window α", "attenuation": "Chebyshev attenuation (dB)", "pad": "padding factor",
    "enbw_bins": "ENBW (bins)", "scalloping_loss_db": "scalloping loss (dB)",
    "highest_sidelobe_db": "highest sidelobe (dB re peak)", "first_min_bins": "first minimum (bins)",
    "first_min_db": "first minimum (dB re peak)", "leakage_factor": "leakage factor (fraction of energy)",
    "bandwidth_3db_bins": "3 dB bandwidth (bins)", "truncation_ripple_db": "truncation ripple (dB)",
}


def sweep_lines(
    df: Any,
    x: str,
    y: str,
    *,
    err: str | None = None,
    ref: str | None = None,
    ax: Axes | None = None,
    logy: bool = False,
    max_lines: int = 12,
) -> Figure:
    """One line per combination of the other swept axes: ``y`` against ``x`` from a sweep table.

    Parameters
    ----------
    df : pandas.DataFrame
        A table from :func:`ropelab.sweep.run`; lines are grouped by the axes in
        ``df.attrs["axes"]`` that have more than one value (other than ``x``).
    x, y : str
        Columns for the horizontal and vertical axes (``x`` may be an output such as
        ``sigma_used``; the axis it comes from is then not used for grouping). A string ``x``
        (e.g. ``window``) is drawn at evenly spaced positions in grid order.
    err : str, optional
        A standard-error column: points get ±2·err bars.
    ref : str, optional
        A reference column (e.g. ``analytic_mse``) drawn as a dashed line per group.
    logy : bool
        Logarithmic vertical axis.
    max_lines : int
        Draw at most this many groups (the first ones in grid order).

    Examples
    --------
    >>> from ropelab import sweep
    >>> df = sweep.run("window_merit", {"window": ["hann", "blackman"], "N": [16, 64, 256]}, progress=False)
    >>> fig = sweep_lines(df, "N", "highest_sidelobe_db")
    >>> len(fig.axes[0].lines), fig.axes[0].get_ylabel()
    (2, 'highest sidelobe (dB re peak)')
    """
    fig, ax = _axes(ax)
    for col in (x, y, err, ref):
        if col is not None and col not in df.columns:
            raise ValueError(f"sweep_lines: no column {col!r}; columns are {list(df.columns)}")
    base = "sigma" if x == "sigma_used" else x
    groups = [a for a in df.attrs.get("axes", []) if a != base and df[a].nunique() > 1]
    keyed = df.groupby(groups, sort=False) if groups else [((), df)]
    categorical = df[x].dtype.kind not in "iuf"
    categories = list(dict.fromkeys(df[x].tolist()))  # a string axis: positions in grid order
    for n, (key, part) in enumerate(keyed):
        if n >= max_lines:
            break
        key = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{a}={v}" for a, v in zip(groups, key)) or y
        if categorical:
            xs = np.asarray([categories.index(v) for v in part[x]], dtype=float)
        else:
            part = part.sort_values(x)
            xs = part[x].to_numpy(dtype=float)
        ys = part[y].to_numpy(dtype=float)
        if err is not None:
            line = ax.errorbar(xs, ys, yerr=2 * part[err].to_numpy(dtype=float), marker="o", ms=3, capsize=2,
                               label=label).lines[0]
        else:
            (line,) = ax.plot(xs, ys, marker="o", ms=3, label=label)
        if ref is not None:
            ax.plot(xs, part[ref].to_numpy(dtype=float), ls="--", color=line.get_color(), lw=1)
    if logy:
        ax.set_yscale("log")
    if categorical:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    ax.set_xlabel(SWEEP_LABELS.get(x, x))
    ax.set_ylabel(SWEEP_LABELS.get(y, y))
    note = f"; dashed: {SWEEP_LABELS.get(ref, ref)}" if ref else ""
    bars = "; bars ±2 SE" if err else ""
    ax.set_title(f"sweep {df.attrs.get('task', '')}{bars}{note}", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    return fig
