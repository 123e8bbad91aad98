"""Matplotlib helpers (optional dependency: ``pip install ropelab[plot]``).

Every helper draws on the Axes it is given (``ax=``) or on a new figure, and returns the figure;
none of them selects a backend or changes matplotlib's configuration: a figure made without
``ax`` is an ordinary ``matplotlib.pyplot`` figure (shown inline in Jupyter, by
``plt.show()`` elsewhere), or, inside :func:`detached`, a :class:`matplotlib.figure.Figure`
that pyplot never sees (for writing files). Labels carry units and mathtext; legends sit to the
right of the axes, off the data.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ropelab._docstrings import shared
from ropelab._public import public_dir

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ropelab.spectra import LeakageMap
    from ropelab.temperature import MSECurve

__all__ = [
    "mse_vs_sigma",
    "sigma_star_vs_D",
    "spectrum_db",
    "leakage_map",
    "decay_bound_curve",
    "recurrence_error_vs_T",
    "sweep_lines",
    "mse_explorer",
    "MSEExplorer",
    "detached",
    "CRN_NOTE",
]

#: Caption of Monte-Carlo points computed with common random numbers (one seed for every σ).
CRN_NOTE = (
    "the points of one curve share their random draws (common random numbers):\n"
    "their errors are correlated, so they look smoother than independent ±2 SE bars suggest"
)

_DETACHED: contextvars.ContextVar[bool] = contextvars.ContextVar("ropelab_plot_detached", default=False)


def _matplotlib() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover
        raise ImportError("ropelab.plot needs matplotlib: pip install 'ropelab[plot]'") from exc
    return matplotlib


@contextlib.contextmanager
def detached() -> Iterator[None]:
    """Make the helpers draw new figures as bare :class:`matplotlib.figure.Figure` objects.

    Inside the block, a helper called without ``ax`` neither imports ``matplotlib.pyplot``
    nor registers its figure with it: no backend is resolved, no window opens, nothing needs
    ``plt.close``. ``fig.savefig`` still writes PNG, SVG or PDF files. Meant for code that only writes files,
    such as :func:`ropelab.report.render_figures`.

    Yields
    ------
    None
        The block runs with detached figures; the previous mode is restored on exit.

    Raises
    ------
    ImportError
        If matplotlib is not installed.

    Examples
    --------
    >>> with detached():
    ...     fig = decay_bound_curve(r_max=100)
    >>> type(fig).__name__, fig.canvas.manager is None
    ('Figure', True)
    """
    _matplotlib()
    token = _DETACHED.set(True)
    try:
        yield
    finally:
        _DETACHED.reset(token)


def _new_figure(figsize: tuple[float, float]) -> Figure:
    _matplotlib()
    if _DETACHED.get():
        from matplotlib.figure import Figure

        return Figure(figsize=figsize, layout="constrained")
    import matplotlib.pyplot as plt

    return plt.figure(figsize=figsize, layout="constrained")


def _figure_of(ax: Axes) -> Figure:
    """The figure holding ``ax`` (matplotlib types it as Figure | SubFigure)."""
    return ax.figure  # type: ignore[return-value]


def _axes(name: str, ax: Axes | None, figsize: tuple[float, float] = (9.0, 4.5)) -> tuple[Figure, Axes]:
    """``ax`` and its figure, or a new figure with one Axes; ``ax`` must be a matplotlib Axes."""
    _matplotlib()
    if ax is None:
        fig = _new_figure(figsize)
        return fig, fig.add_subplot()
    from matplotlib.axes import Axes as _Axes

    if not isinstance(ax, _Axes):
        raise TypeError(f"{name}: ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return _figure_of(ax), ax


def _legend(ax: Axes, fontsize: float = 8.0) -> None:
    """A legend to the right of the axes, outside the data area (constrained layout makes room)."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=fontsize, frameon=False)


def _fine_sigmas(curves: Sequence[MSECurve], extra: Sequence[float], n: int = 400) -> npt.NDArray[np.float64]:
    """``n`` temperatures evenly spaced in log σ over the span of the curves' σ (and ``extra``)."""
    pts = np.concatenate([np.asarray(c.sigmas, dtype=float) for c in curves] + [np.asarray(extra, dtype=float)])
    pts = pts[np.isfinite(pts) & (pts > 0)]
    hi = float(pts.max())
    lo = max(float(pts.min()), hi * 1e-3)
    grid = np.geomspace(lo, hi, n)
    out: npt.NDArray[np.float64] = np.unique(np.concatenate([grid, pts[pts >= lo]]))
    return out


@shared
def mse_vs_sigma(curves: Sequence[MSECurve] | MSECurve, ax: Axes | None = None, *, mark: bool = True) -> Figure:
    r"""MSE against the temperature σ: closed-form curves with Monte-Carlo points (±2 SE bars).

    The closed form is drawn on 400 temperatures evenly spaced in log σ (plus the Monte-Carlo σ's),
    the Monte-Carlo estimates as points with ±2 standard-error bars. Marks the paper's Theorem 1
    temperature σ = tan(½ arccos ξ), σ = 1 and the optimum σ*(D) of each curve. The points of
    one curve come from :func:`ropelab.temperature.mse_curve`, which reuses its seed at every σ
    (common random numbers); the title says so, since their errors are correlated.

    Parameters
    ----------
    curves : MSECurve or sequence of MSECurve
        From :func:`ropelab.temperature.mse_curve` (one per D), all at the same ξ.
    {ax}
    mark : bool, default True
        Draw the vertical markers and the optima.

    Returns
    -------
    {figure}

    Raises
    ------
    TypeError
        If ``curves`` holds something other than MSECurve objects, or ``ax`` is not an Axes.
    ValueError
        If ``curves`` is empty or the curves have different ξ.

    Examples
    --------
    >>> from ropelab import temperature
    >>> fig = mse_vs_sigma(temperature.mse_curve(0.5, 16, [0.5, 1.0], trials=200))
    >>> fig.axes[0].get_xlabel()
    'temperature $\\sigma$ (std of each frequency component, dimensionless)'
    """
    from ropelab import temperature

    if isinstance(curves, temperature.MSECurve):
        curves = [curves]
    if not isinstance(curves, Sequence) or not all(isinstance(c, temperature.MSECurve) for c in curves):
        raise TypeError(f"mse_vs_sigma: curves must be an MSECurve or a sequence of them, got {curves!r:.80}")
    if not curves:
        raise ValueError("mse_vs_sigma: curves must not be empty")
    xis = {float(c.xi) for c in curves}
    if len(xis) != 1:
        raise ValueError(f"mse_vs_sigma: every curve must have the same xi, got {sorted(xis)}")
    xi = curves[0].xi
    fig, ax = _axes("mse_vs_sigma", ax)
    paper = float(temperature.paper_sigma(xi))
    optima = [float(temperature.optimal_sigma(c.xi, c.D, c.estimator, convention=c.convention)) for c in curves]
    extra = [1.0, *optima] + ([paper] if np.isfinite(paper) else [])
    fine = _fine_sigmas(curves, extra)
    colors: list[Any] = []
    for c in curves:
        (line,) = ax.semilogy(
            fine,
            temperature.mse(c.xi, D=c.D, sigma=fine, estimator=c.estimator, convention=c.convention),
            "-",
            lw=1.5,
            label=f"$D = {c.D}$, closed form",
        )
        colors.append(line.get_color())
        ax.errorbar(
            c.sigmas,
            c.empirical,
            yerr=2 * c.stderr,
            fmt="o",
            ms=3,
            capsize=0,
            color=line.get_color(),
            alpha=0.8,
            label=f"$D = {c.D}$, Monte Carlo ({c.trials} trials, ±2 SE)",
        )
    if mark:
        if np.isfinite(paper):
            ax.axvline(
                paper,
                color="k",
                ls="--",
                lw=1,
                label=rf"paper's $\sigma = \tan(\frac{{1}}{{2}}\arccos\xi) = {paper:.3f}$",
            )
        ax.axvline(1.0, color="k", ls=":", lw=1, label=r"$\sigma = 1$ (unbiased)")
        for c, col, s_opt in zip(curves, colors, optima):
            m_opt = float(temperature.mse(c.xi, D=c.D, sigma=s_opt, estimator=c.estimator, convention=c.convention))
            ax.plot([s_opt], [m_opt], marker="*", ms=12, color=col, mec="k", ls="none")
        ax.plot([], [], marker="*", ms=10, color="gray", mec="k", ls="none", label=r"$\sigma^*(D)$, root of the cubic")
    ax.set_xlabel(r"temperature $\sigma$ (std of each frequency component, dimensionless)")
    ax.set_ylabel(r"MSE of $\hat K$ against $\exp(q\cdot k)$ (dimensionless)")
    ax.set_title(
        f"{curves[0].estimator} random features, unit-norm $q, k$ with $q\\cdot k = \\xi = {xi:g}$\n"
        f"Monte Carlo: {CRN_NOTE}",
        fontsize=8.5,
    )
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax, 7.5)
    return fig


@shared
def spectrum_db(
    windows: Mapping[str, npt.ArrayLike] | npt.ArrayLike,
    ax: Axes | None = None,
    *,
    pad: int = 64,
    fmax: float | None = None,
    floor_db: float | None = None,
) -> Figure:
    """Log-magnitude spectra ``20 log10 |W(f)|/|W(0)|`` of one or several windows (FFTW, zero-padded).

    Each spectrum is the ``pad``-times zero-padded FFT, i.e. ``pad`` points per bin: a fine grid
    on which sidelobes and nulls are resolved.

    Parameters
    ----------
    windows : array_like or mapping of str to array_like
        One window, or labelled windows (each normalised to its own value at ``f = 0``).
    {ax}
    pad : int, default 64
        FFT padding factor (points per bin).
    fmax : float, optional
        Right limit in bins (default: ``min(N/2, 12)`` of the first window).
    floor_db : float, optional
        Values below are clipped (true nulls would be ``-inf``) and the vertical axis starts there.
        Default: from the data, 20 dB below the lowest sidelobe peak in the plotted range (rounded
        down to 10 dB, between −300 and −20 dB), so the sidelobes fill the axes.

    Returns
    -------
    {figure}

    Raises
    ------
    {ax_error}
    ValueError
        If ``windows`` is empty, ``floor_db`` is not a finite negative number, or a window or
        ``pad`` is invalid (see :func:`ropelab.spectra.spectrum`).

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
    if not windows:
        raise ValueError("spectrum_db: windows must not be empty")
    if floor_db is not None and not (np.isfinite(floor_db) and floor_db < 0):
        raise ValueError(f"spectrum_db: floor_db must be a finite negative level in dB, got {floor_db!r}")
    fig, ax = _axes("spectrum_db", ax)
    first_n = None
    curves: list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
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
        curves.append((str(label), np.asarray(f, dtype=float), np.asarray(level, dtype=float)))
    right = fmax if fmax is not None else min((first_n or 2) / 2, 12.0)
    floor = _spectrum_floor(curves, right) if floor_db is None else floor_db
    for label, f, level in curves:
        ax.plot(f, np.maximum(level, floor), lw=1, label=label)
    ax.set_xlim(0.0, right)
    ax.set_ylim(floor - 2.0, 3.0)
    ax.set_xlabel("frequency offset $f$ (bins = cycles per $N$ samples)")
    ax.set_ylabel(r"$|W(f)|\,/\,|W(0)|$ (dB)")
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return fig


def _spectrum_floor(curves: list[tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64]]], right: float) -> float:
    """20 dB below the lowest sidelobe peak up to ``right`` bins, rounded down to 10 dB, in [-300, -20]."""
    peaks = []
    for _, f, level in curves:
        inside = level[f <= right]
        finite = np.isfinite(inside[1:-1])
        is_peak = (inside[1:-1] > inside[:-2]) & (inside[1:-1] >= inside[2:]) & finite
        if np.any(is_peak):
            peaks.append(float(np.min(inside[1:-1][is_peak])))
    if not peaks:
        return -120.0
    return float(min(-20.0, max(-300.0, 10.0 * np.floor((min(peaks) - 20.0) / 10.0))))


@shared
def leakage_map(m: LeakageMap, ax: Axes | None = None, *, field: str = "far_leakage_db") -> Figure:
    r"""The SSM leakage map: a per-(α·N, ω) quantity as an image plus the per-α·N window sidelobes.

    The decay is shown as ``α·N`` (dimensionless, ``m.decay_over_window``; the map's field
    ``m.alpha`` is the decay per sample), on which the window's shape depends; the sidelobe panel
    also has the decay per sample ``α`` on its top axis.

    Parameters
    ----------
    m : LeakageMap
        From :func:`ropelab.spectra.leakage_map`.
    ax : matplotlib.axes.Axes, optional
        Axes for the image; a second panel (highest sidelobe and first-minimum depth against α·N)
        is added next to it when ``ax`` is None.
    field : {"far_leakage_db", "tone_scalloping_loss_db", "bin_leakage_factor"}, default "far_leakage_db"
        The quantity shown as the image.

    Returns
    -------
    {figure}

    Raises
    ------
    ValueError
        If ``field`` is not one of the names above.
    TypeError
        If ``m`` is not a :class:`ropelab.spectra.LeakageMap` or ``ax`` is not an Axes.

    Examples
    --------
    >>> from ropelab import spectra
    >>> fig = leakage_map(spectra.leakage_map(alpha=[0.0, 2.0 / 64], omega=[0.5, 1.0], N=64, pad=8))
    >>> len(fig.axes) >= 2
    True
    """
    labels = {
        "far_leakage_db": "largest DFT bin ≥ 2 bins from the tone\n(dB re peak)",
        "tone_scalloping_loss_db": "tone loss at its nearest bin\n(dB)",
        "bin_leakage_factor": "DFT energy outside the nearest bin\n(fraction)",
    }
    from ropelab.spectra import LeakageMap

    if not isinstance(m, LeakageMap):
        raise TypeError(f"leakage_map: m must be a ropelab.spectra.LeakageMap (from spectra.leakage_map), got {m!r}")
    if field not in labels:
        raise ValueError(f"leakage_map: field must be one of {sorted(labels)}, got {field!r}")
    data = np.asarray(getattr(m, field), dtype=float)
    decay_over_window = m.decay_over_window
    ax2: Axes | None
    if ax is None:
        fig = _new_figure((12.0, 4.4))
        ax, ax2 = fig.subplots(1, 2, width_ratios=(1.0, 1.15))
    else:
        fig, ax = _axes("leakage_map", ax)
        ax2 = None
    finite = data[np.isfinite(data)]
    vmin = float(finite.min()) if finite.size else 0.0
    if field.endswith("_db") and finite.size:  # a few exact nulls (−300 dB) would squash the colour scale
        low = float(np.percentile(finite, 1.0))
        vmin = low if vmin < low - 10.0 else vmin
    img = ax.pcolormesh(
        m.omega, decay_over_window, np.where(np.isfinite(data), data, vmin), shading="auto", cmap="viridis", vmin=vmin
    )
    fig.colorbar(
        img,
        ax=ax,
        label=labels[field] + (f"; darkest: ≤ {vmin:.0f} dB" if finite.size and vmin > finite.min() else ""),
        extend="min" if finite.size and vmin > finite.min() else "neither",
    )
    ax.set_xlabel(r"SSM rotation $\omega$ (rad/sample)")
    ax.set_ylabel(r"decay over the window $\alpha N$ ($\alpha$ in 1/sample; dimensionless)")
    ax.set_title(f"Causal exponential window, $N = {m.N}$", fontsize=10)
    if ax2 is not None:
        ax2.plot(
            decay_over_window, m.highest_sidelobe_db, "o-", ms=3, label="highest sidelobe\n(beyond the first minimum)"
        )
        depth = np.maximum(m.first_min_db, -120.0)  # true nulls (α = 0) would be −300 dB
        ax2.plot(
            decay_over_window,
            depth,
            "s--",
            ms=3,
            label="first-minimum depth\n($\\alpha > 0$: a dip, no true null;\nclipped at −120 dB)",
        )
        ax2.axhline(-13.26, color="k", ls=":", lw=1, label=r"rectangle ($\alpha = 0$): −13.26 dB")
        ax2.set_xlabel(r"decay over the window $\alpha N$ ($\alpha$ in 1/sample; dimensionless)")
        n = float(m.N)

        def per_sample(an: Any) -> Any:
            return np.asarray(an, dtype=float) / n

        def over_window(a: Any) -> Any:
            return np.asarray(a, dtype=float) * n

        top = ax2.secondary_xaxis("top", functions=(per_sample, over_window))
        top.set_xlabel(r"decay per sample $\alpha$ (1/sample)", fontsize=9)
        ax2.set_ylabel("level re main peak (dB)")
        ax2.set_title("Window sidelobes against the decay", fontsize=10)
        ax2.grid(True, alpha=0.3)
        _legend(ax2, 7.5)
    return fig


@shared
def sigma_star_vs_D(
    xis: Sequence[float] = (-0.5, 0.0, 0.5, 0.9),
    Ds: Sequence[float] | None = None,
    ax: Axes | None = None,
    estimator: str = "trig",
) -> Figure:
    r"""The MSE-optimal temperature σ*(D) against the number of features, one line per ξ.

    Draws the paper's Theorem 1 σ (dotted, same colour) for comparison and σ = 1 (the D → ∞
    limit). σ*(D) is the closed-form root of the stationarity cubic; the default grid has about
    400 feature counts, evenly spaced in log D.

    Parameters
    ----------
    xis : sequence of float, default (-0.5, 0.0, 0.5, 0.9)
        Cosines ξ = q·k in [−1, 1].
    Ds : sequence of float, optional
        Feature counts (default: the distinct integers among 400 log-spaced values from 1 to 10⁶).
    {ax}
    {estimator}

    Returns
    -------
    {figure}

    Raises
    ------
    ValueError
        If a ξ, a D or ``estimator`` is invalid (see :func:`ropelab.temperature.optimal_sigma`).
    {ax_error}

    Examples
    --------
    >>> fig = sigma_star_vs_D((0.5,), Ds=[1, 16, 256])
    >>> fig.axes[0].get_xlabel()
    'number of random features $D$'
    """
    from ropelab import temperature

    D = np.unique(np.geomspace(1, 1e6, 400).round()) if Ds is None else np.asarray(Ds, dtype=float)
    fig, ax = _axes("sigma_star_vs_D", ax)
    for xi in xis:
        (line,) = ax.semilogx(
            D,
            temperature.optimal_sigma(xi, D, estimator),  # type: ignore[call-overload]
            "-",
            lw=1.5,
            label=rf"$\sigma^*(D)$, $\xi = {xi:g}$",
        )
        if estimator == "trig":
            ax.axhline(float(temperature.paper_sigma(xi)), color=line.get_color(), ls=":", lw=1)
    ax.axhline(1.0, color="k", ls="--", lw=1, label=r"$\sigma = 1$ ($D \to \infty$)")
    if estimator == "trig":
        ax.plot([], [], color="gray", ls=":", label=r"paper's $\sigma = \tan(\frac{1}{2}\arccos\xi)$")
    ax.set_xlabel("number of random features $D$")
    ax.set_ylabel(r"MSE-optimal temperature $\sigma^*$ (dimensionless)")
    ax.set_title(f"Finite-$D$ optimum ({estimator} features): root of the stationarity cubic", fontsize=10)
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return fig


@shared
def decay_bound_curve(d: int = 128, base: float = 10000.0, r_max: int = 20000, ax: Axes | None = None) -> Figure:
    """RoFormer's relative upper bound B(r) (its Sec. 3.4.3) against the relative distance r.

    Evaluated at every integer ``r`` from 1 to ``r_max`` and drawn on a logarithmic r axis.

    Parameters
    ----------
    d : int, default 128
        Head dimension (even).
    base : float, default 10000.0
        RoPE base.
    r_max : int, default 20000
        Largest relative distance (≥ 1).
    {ax}

    Returns
    -------
    {figure}

    Raises
    ------
    ValueError
        If ``r_max < 1`` or ``d``/``base`` are invalid (see :func:`ropelab.rotary.decay_bound`).
    {ax_error}

    Examples
    --------
    >>> fig = decay_bound_curve(r_max=500)
    >>> fig.axes[0].get_xlabel()
    'relative distance $r = n - m$ (positions)'
    """
    from ropelab import rotary

    if int(r_max) < 1:
        raise ValueError(f"decay_bound_curve: r_max must be >= 1, got {r_max!r}")
    r = np.arange(0, int(r_max) + 1)
    B = np.asarray(rotary.decay_bound(r, d=d, base=base))
    fig, ax = _axes("decay_bound_curve", ax)
    ax.plot(r[1:], B[1:], lw=0.6, label=f"$B(r)$, $d = {d}$, base $= {base:g}$")
    ax.axhline(B[0] / 2, color="gray", ls=":", lw=1, label="$B(0)/2$")
    ax.set_xscale("log")
    ax.set_xlabel("relative distance $r = n - m$ (positions)")
    ax.set_ylabel("relative upper bound $B(r)$ (dimensionless)")
    ax.set_title("RoPE long-term decay bound: a short-range trend, not monotone", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax)
    return fig


@shared
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
    {d}
    seed : int
        Seed of the random inputs (``numpy.random.default_rng``).
    {ax}

    Returns
    -------
    {figure}

    Raises
    ------
    ValueError
        If ``Ts`` is empty or holds a length < 1, or ``d`` is not a positive even integer.
    {ax_error}

    Examples
    --------
    >>> fig = recurrence_error_vs_T(Ts=(16, 32))
    >>> len(fig.axes[0].lines) >= 4
    True
    """
    from ropelab import recurrence, rotary

    Ts = [int(T) for T in Ts]
    if not Ts or min(Ts) < 1:
        raise ValueError(f"recurrence_error_vs_T: Ts must be a non-empty sequence of lengths >= 1, got {Ts!r}")
    if int(d) < 2 or int(d) % 2:
        raise ValueError(f"recurrence_error_vs_T: d must be a positive even integer, got {d!r}")
    fig, ax = _axes("recurrence_error_vs_T", ax)
    rng = np.random.default_rng(seed)
    rows: dict[str, list[float]] = {
        "Selective RoPE: pre-rotated vs recurrent": [],
        "Eq. (9) with amplitude vs direct sum": [],
        "Eq. (9) without amplitude vs direct sum": [],
        "Eq. (11) product from τ vs recurrence": [],
    }

    def rel(a: Any, b: Any) -> float:
        return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))

    for T in Ts:
        q, k, v = rng.standard_normal((3, T, d))
        psi = rotary.cumulative_angles(rng.standard_normal((T, d // 2)))
        rows["Selective RoPE: pre-rotated vs recurrent"].append(
            rel(
                recurrence.selective_rope_attention(q, k, v, psi, mode="recurrent"),
                recurrence.selective_rope_attention(q, k, v, psi, mode="prerotated"),
            )
        )
        Tr = min(T, 256)  # the direct RFF sum and the unrolled product are O(T²)
        qs, ks, vs = 0.3 * q[:Tr, :4], 0.3 * k[:Tr, :4], v[:Tr, :2]
        w = rng.standard_normal((8, 4))
        direct = recurrence.rff_attention(qs, ks, vs, w, mode="direct")
        rows["Eq. (9) with amplitude vs direct sum"].append(
            rel(recurrence.rff_attention(qs, ks, vs, w, "recurrent"), direct)
        )
        rows["Eq. (9) without amplitude vs direct sum"].append(
            rel(recurrence.rff_attention(qs, ks, vs, w, "recurrent", amplitude=False), direct)
        )
        A = 0.95 * np.eye(4) + 0.02 * rng.standard_normal((Tr, 4, 4))
        rows["Eq. (11) product from τ vs recurrence"].append(
            rel(
                recurrence.linear_attention(qs, ks, vs, A, mode="unrolled", product_start="tau"),
                recurrence.linear_attention(qs, ks, vs, A),
            )
        )
    for label, errs in rows.items():
        ax.loglog(list(Ts), np.maximum(errs, 1e-18), "-o", ms=4, label=label)
    ax.axhline(np.finfo(float).eps, color="k", ls=":", lw=1, label=r"float64 machine epsilon $\varepsilon$")
    ax.set_xlabel(r"sequence length $T$ (steps; the $O(T^2)$ routes are capped at $T = 256$)")
    ax.set_ylabel("max relative difference (dimensionless)")
    ax.set_title("Identities at rounding level, wrong forms at $O(1)$", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax, 7.5)
    return fig


#: Units of the columns of a sweep table, for axis labels.
SWEEP_LABELS: dict[str, str] = {
    "sigma": r"temperature $\sigma$ (dimensionless)",
    "sigma_used": r"temperature $\sigma$ (dimensionless)",
    "xi": r"cosine $\xi = q\cdot k$",
    "D": "number of features $D$",
    "d": "dimension $d$",
    "empirical_mse": r"MSE of the estimate of $\exp(\xi)$ (dimensionless)",
    "analytic_mse": "MSE, closed form (dimensionless)",
    "bias": r"bias of the estimate of $\exp(\xi)$",
    "N": "window length $N$ (samples)",
    "beta": r"Kaiser $\beta$",
    "alpha": r"window parameter $\alpha$ (ssm: decay per sample, 1/sample)",
    "attenuation": "Chebyshev attenuation (dB)",
    "pad": "padding factor",
    "enbw_bins": "ENBW (bins)",
    "scalloping_loss_db": "scalloping loss (dB)",
    "highest_sidelobe_db": "highest sidelobe (dB re peak)",
    "first_min_bins": "first minimum (bins)",
    "first_min_db": "first minimum (dB re peak)",
    "leakage_factor": "leakage factor (fraction of energy)",
    "bandwidth_3db_bins": "3 dB bandwidth (bins)",
    "truncation_ripple_db": "truncation ripple (dB)",
}


@shared
def sweep_lines(
    df: Any,
    x: str,
    y: str,
    *,
    err: str | None = None,
    ref: str | None = None,
    ax: Axes | None = None,
    logy: bool = False,
    logx: bool = False,
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
    {ax}
    logy : bool, default False
        Logarithmic vertical axis.
    logx : bool, default False
        Logarithmic horizontal axis (for a numeric ``x`` with positive values, e.g. ``D`` or ``N``).
    max_lines : int, default 12
        Draw at most this many groups (the first ones in grid order).

    Returns
    -------
    {figure}

    Raises
    ------
    ValueError
        If ``x``, ``y``, ``err`` or ``ref`` is not a column of ``df``, or ``logx`` is asked for an
        ``x`` that is not numeric or has values <= 0.
    TypeError
        If ``df`` is not a pandas DataFrame, ``x`` or ``y`` is not a str, or ``ax`` is not an
        Axes.

    Examples
    --------
    >>> from ropelab import sweep
    >>> df = sweep.run("window_merit", {"window": ["hann", "blackman"], "N": [16, 64, 256]}, progress=False)
    >>> fig = sweep_lines(df, "N", "highest_sidelobe_db")
    >>> len(fig.axes[0].lines), fig.axes[0].get_ylabel()
    (2, 'highest sidelobe (dB re peak)')
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(
            f"sweep_lines: df must be a pandas DataFrame (from sweep.run or sweep.load), got {type(df).__name__}"
        )
    for arg, name in ((x, "x"), (y, "y")):
        if not isinstance(arg, str):
            raise TypeError(f"sweep_lines: {name} must be a column name (str), got {arg!r}")
    for opt, name in ((x, "x"), (y, "y"), (err, "err"), (ref, "ref")):
        if opt is not None and opt not in df.columns:
            raise ValueError(f"sweep_lines: {name} = {opt!r} is not a column; columns are {list(df.columns)}")
    if logx and (df[x].dtype.kind not in "iuf" or not bool(np.all(df[x].to_numpy(dtype=float) > 0))):
        raise ValueError(f"sweep_lines: logx needs a numeric x with positive values, got x = {x!r}")
    fig, ax = _axes("sweep_lines", ax)
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
            line = ax.errorbar(
                xs, ys, yerr=2 * part[err].to_numpy(dtype=float), marker="o", ms=3, capsize=2, label=label
            ).lines[0]
        else:
            (line,) = ax.plot(xs, ys, marker="o", ms=3, label=label)
        if ref is not None:
            ax.plot(xs, part[ref].to_numpy(dtype=float), ls="--", color=line.get_color(), lw=1)
    if logy:
        ax.set_yscale("log")
    if logx:
        ax.set_xscale("log")
    if categorical:
        ax.set_xticks(range(len(categories)), [str(c) for c in categories])
    ax.set_xlabel(SWEEP_LABELS.get(x, x))
    ax.set_ylabel(SWEEP_LABELS.get(y, y))
    note = f"; dashed: {SWEEP_LABELS.get(ref, ref)}" if ref else ""
    bars = "; bars ±2 SE" if err else ""
    ax.set_title(f"sweep {df.attrs.get('task', '')}{bars}{note}", fontsize=9)
    _legend(ax, 7.5)
    ax.grid(True, alpha=0.3)
    return fig


@shared
class MSEExplorer:
    r"""Interactive MSE-against-σ explorer: sliders for ξ, D and σ redraw the closed-form curve.

    The figure is a :class:`matplotlib.figure.Figure` that pyplot never sees; :meth:`update`
    redraws it and, when the widget exists, refreshes the PNG shown by an ``ipywidgets.Image``.
    Everything it draws is closed form (:func:`ropelab.temperature.mse` on 400 temperatures evenly
    spaced in log σ, σ*(D) from :func:`ropelab.temperature.optimal_sigma`), so :meth:`update`
    runs in milliseconds and can be tested without a browser.

    Parameters
    ----------
    {plot_xi}
    D : int, default 16
        Initial number of features (a power of two from 1 to 2²⁰ on the slider).
    sigma : float, default 1.0
        Initial temperature σ (0.02 to 3 on the slider).
    {estimator}
    convention : {"conjugate", "literal"}, default "conjugate"
        The trigonometric product (see :func:`ropelab.rff.moments`).
    sigma_range : tuple of float, default (0.02, 3.0)
        The σ axis and the σ slider's range.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
        The figure (one Axes).
    ax : matplotlib.axes.Axes
        Its Axes.
    curve : matplotlib.lines.Line2D
        The closed-form MSE on the fine σ grid.
    point : matplotlib.lines.Line2D
        The MSE at the chosen σ (one point).
    optimum : matplotlib.lines.Line2D
        σ*(D) and its MSE (one point).
    paper : matplotlib.lines.Line2D
        The paper's Theorem 1 σ = tan(½ arccos ξ) (a vertical line).
    state : dict
        The current ``xi``, ``D``, ``sigma``, ``mse``, ``sigma_star``, ``mse_star`` and ``sigma_paper``.

    Raises
    ------
    ValueError
        If an initial value is outside its slider's range.

    Examples
    --------
    >>> ex = MSEExplorer(xi=0.5, D=16, sigma=0.8)
    >>> ex.update(xi=0.2, D=4, sigma=1.0)
    >>> from ropelab import temperature
    >>> bool(abs(ex.optimum.get_xdata()[0] - temperature.optimal_sigma(0.2, 4)) < 1e-15)
    True
    """

    D_OPTIONS: tuple[int, ...] = tuple(2**k for k in range(21))

    def __init__(
        self,
        xi: float = 0.5,
        D: int = 16,
        sigma: float = 1.0,
        *,
        estimator: str = "trig",
        convention: str = "conjugate",
        sigma_range: tuple[float, float] = (0.02, 3.0),
    ) -> None:
        from ropelab import temperature

        _matplotlib()
        from matplotlib.figure import Figure

        lo, hi = (float(v) for v in sigma_range)
        if not (0.0 < lo < hi and np.isfinite(hi)):
            raise ValueError(f"MSEExplorer: sigma_range must satisfy 0 < low < high < inf, got {sigma_range!r}")
        self._temperature = temperature
        self.estimator = estimator
        self.convention = convention
        self.sigma_range = (lo, hi)
        self.sigmas = np.geomspace(lo, hi, 400)
        self.figure = Figure(figsize=(8.5, 4.2), layout="constrained")
        self.ax = self.figure.add_subplot()
        (self.curve,) = self.ax.semilogy([], [], "-", lw=1.8, label=r"closed-form MSE$(\sigma)$")
        self.paper = self.ax.axvline(
            1.0, color="k", ls="--", lw=1, label=r"paper's $\sigma = \tan(\frac{1}{2}\arccos\xi)$"
        )
        self.ax.axvline(1.0, color="k", ls=":", lw=1, label=r"$\sigma = 1$")
        (self.optimum,) = self.ax.plot(
            [], [], marker="*", ms=14, color="gold", mec="k", ls="none", label=r"optimum $\sigma^*(D)$"
        )
        (self.point,) = self.ax.plot(
            [], [], marker="o", ms=8, color="tab:red", mec="k", ls="none", label=r"chosen $\sigma$"
        )
        self.ax.set_xlim(lo, hi)
        self.ax.set_xlabel(r"temperature $\sigma$ (dimensionless)")
        self.ax.set_ylabel(r"MSE of $\hat K$ against $\exp(q\cdot k)$ (dimensionless)")
        self.ax.grid(True, which="both", alpha=0.3)
        _legend(self.ax)
        self.state: dict[str, float] = {}
        self._widget: Any = None
        self._image: Any = None
        self._sliders: dict[str, Any] = {}
        self._check(xi, D, sigma)
        self.update(xi, D, sigma)

    def _check(self, xi: float, D: int, sigma: float) -> None:
        if not (-1.0 < float(xi) < 1.0):
            raise ValueError(f"MSEExplorer: xi must be in (-1, 1), got {xi!r}")
        if int(D) not in self.D_OPTIONS:
            raise ValueError(f"MSEExplorer: D must be a power of two from 1 to 2**20, got {D!r}")
        if not (self.sigma_range[0] <= float(sigma) <= self.sigma_range[1]):
            raise ValueError(f"MSEExplorer: sigma must be in {list(self.sigma_range)}, got {sigma!r}")

    def update(self, xi: float, D: int, sigma: float) -> None:
        """Redraw the curve, σ*(D), the paper's σ and the chosen σ for new slider values.

        Parameters
        ----------
        xi : float
            Cosine ξ = q·k, in (−1, 1).
        D : int
            Number of features (a power of two from 1 to 2²⁰).
        sigma : float
            Temperature σ inside ``sigma_range``.

        Raises
        ------
        ValueError
            If a value is outside its slider's range.
        """
        self._check(xi, D, sigma)
        T = self._temperature
        xi, D, sigma = float(xi), int(D), float(sigma)
        est, conv = self.estimator, self.convention
        curve = np.asarray(T.mse(xi, D=D, sigma=self.sigmas, estimator=est, convention=conv), dtype=float)
        s_star = float(T.optimal_sigma(xi, D, est, convention=conv))
        m_star = float(T.mse(xi, D=D, sigma=s_star, estimator=est, convention=conv))
        m_here = float(T.mse(xi, D=D, sigma=sigma, estimator=est, convention=conv))
        s_paper = float(T.paper_sigma(xi))
        self.curve.set_data(self.sigmas, curve)
        self.optimum.set_data([s_star], [m_star])
        self.point.set_data([sigma], [m_here])
        self.paper.set_xdata([s_paper, s_paper])
        shown = np.concatenate([curve[np.isfinite(curve) & (curve > 0)], [m_star, m_here]])
        shown = shown[shown > 0]
        self.ax.set_ylim(shown.min() / 1.5, shown.max() * 1.5)
        self.ax.set_title(
            rf"$\xi = {xi:g}$, $D = {D}$: MSE$(\sigma = {sigma:.3g}) = {m_here:.4g}$;  "
            rf"$\sigma^* = {s_star:.4f}$, MSE$(\sigma^*) = {m_star:.4g}$;  paper's $\sigma = {s_paper:.4f}$",
            fontsize=9,
        )
        self.state = {
            "xi": xi,
            "D": D,
            "sigma": sigma,
            "mse": m_here,
            "sigma_star": s_star,
            "mse_star": m_star,
            "sigma_paper": s_paper,
        }
        if self._image is not None:
            self._image.value = self.png()

    def png(self, dpi: int = 100) -> bytes:
        """The figure as PNG bytes.

        Parameters
        ----------
        dpi : int, default 100
            Resolution.

        Returns
        -------
        bytes
            A PNG image of the current figure.
        """
        import io

        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=dpi)
        return buf.getvalue()

    @property
    def sliders(self) -> dict[str, Any]:
        """The ``xi``, ``D`` and ``sigma`` sliders (made with the widget).

        Returns
        -------
        dict of str to ipywidgets widget
            Empty until :attr:`widget` is first read.
        """
        return self._sliders

    @property
    def widget(self) -> Any:
        """The ipywidgets box: three sliders above the figure (made on first access).

        Returns
        -------
        ipywidgets.VBox
            Display it in Jupyter (it is the last value of a cell, or ``display(explorer.widget)``).

        Raises
        ------
        ImportError
            If ipywidgets is not installed (``pip install 'ropelab[notebook]'``).
        """
        if self._widget is None:
            try:
                w = importlib.import_module("ipywidgets")  # untyped: used as Any
            except ImportError as exc:  # pragma: no cover
                raise ImportError("MSEExplorer.widget needs ipywidgets: pip install 'ropelab[notebook]'") from exc
            s = self.state
            style = {"description_width": "initial"}
            self._sliders = {
                "xi": w.FloatSlider(
                    value=s["xi"],
                    min=-0.95,
                    max=0.95,
                    step=0.01,
                    description="ξ = q·k",
                    continuous_update=False,
                    style=style,
                ),
                "D": w.SelectionSlider(
                    options=list(self.D_OPTIONS),
                    value=int(s["D"]),
                    description="features D",
                    continuous_update=False,
                    style=style,
                ),
                "sigma": w.FloatSlider(
                    value=s["sigma"],
                    min=self.sigma_range[0],
                    max=self.sigma_range[1],
                    step=0.01,
                    description="temperature σ",
                    continuous_update=False,
                    style=style,
                ),
            }
            self._image = w.Image(value=self.png(), format="png")

            def _changed(_: Any) -> None:
                self.update(self._sliders["xi"].value, self._sliders["D"].value, self._sliders["sigma"].value)

            for sl in self._sliders.values():
                sl.observe(_changed, names="value")
            self._widget = w.VBox([w.HBox(list(self._sliders.values())), self._image])
        return self._widget

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)


@shared
def mse_explorer(
    xi: float = 0.5, D: int = 16, sigma: float = 1.0, *, estimator: str = "trig", convention: str = "conjugate"
) -> MSEExplorer:
    """An interactive explorer of the closed-form MSE against σ (sliders for ξ, D and σ).

    Shows the MSE curve on 400 temperatures, the optimum σ*(D) (a star), the paper's Theorem 1
    σ = tan(½ arccos ξ) (dashed) and the MSE at the chosen σ (a dot). In Jupyter, make it the last
    value of a cell; the sliders redraw the figure through :meth:`MSEExplorer.update`.

    Parameters
    ----------
    {plot_xi}
    D : int, default 16
        Initial number of features (a power of two from 1 to 2²⁰).
    sigma : float, default 1.0
        Initial temperature σ, in [0.02, 3].
    {estimator}
    convention : {"conjugate", "literal"}, default "conjugate"
        The trigonometric product.

    Returns
    -------
    MSEExplorer
        The explorer; ``.widget`` is the ipywidgets box, ``.update(xi, D, sigma)`` redraws.

    Raises
    ------
    ValueError
        If an initial value is outside its slider's range.

    Examples
    --------
    >>> ex = mse_explorer(xi=0.5, D=1)
    >>> round(ex.state["sigma_star"] ** 2, 12)
    0.333333333333
    """
    return MSEExplorer(xi, D, sigma, estimator=estimator, convention=convention)


__dir__ = public_dir(__name__)  # tab completion: the API above, not the imports
