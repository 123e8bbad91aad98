r"""Windows, windowed SSM spectra and Fourier leakage (Selective RoPE §3.2, App. A.4; Harris 1978).

A diagonal SSM channel with transition :math:`a = e^{-\alpha + i\omega}` and zero initial state has the impulse
response ``h[n] = aⁿ``, ``n = 0..N−1``: a rotation at ``ω`` rad/sample seen through the causal
exponential window :math:`e^{-\alpha n}`. With ``α = 0`` (pure rotation) the window is rectangular and the
spectrum has the Dirichlet sidelobes (−13.26 dB); decay reshapes the window but, being one-sided,
it never produces true nulls, and at small ``αN`` its highest sidelobe is *higher* than the
rectangle's.

Conventions
-----------
* Frequencies are in **bins** (cycles per ``N`` samples: ``f`` bins ↔ ``Ω = 2πf/N`` rad/sample)
  unless a name says radians; the SSM rotation ``omega`` is in rad/sample.
* The DTFT is :math:`X(f) = \sum_n x[n] e^{-2\pi i f n/N}`.
* Windows are DFT-even (periodic) by default and exactly symmetric with ``sym=True``.
* Decay of an SSM mode is **per sample** (``alpha``, 1/sample, :math:`a = e^{-\alpha + i\omega}`) in every
  function that takes one (:func:`ssm_window`, :func:`ssm_impulse`, :func:`ssm_spectrum`,
  :func:`ssm_envelope`, :func:`leakage_map`, the ``ssm`` window; :func:`zoh`, :func:`ssm_kernel`
  and :func:`continuous_spectrum` take a decay per unit time). The window's *shape* depends only
  on the decay over the whole window, ``α·N`` (dimensionless), a derived value:
  :func:`decay_per_sample` and :func:`decay_over_window` convert between the two, and
  ``LeakageMap.decay_over_window`` reports it.
* Units are in the names: ``*_bins`` (frequency or width in bins), ``*_db`` (a level in dB
  relative to the peak: ≤ 0), ``*_loss_db`` and ``*_ripple_db`` (a loss or a peak-to-peak ratio
  in dB: ≥ 0), ``*_db_per_octave``; quantities without a unit (coherent gain, correlations,
  leakage factors) are fractions, never percent.

Figures of merit follow Harris (1978): crossings and extrema are located on a zero-padded FFT
grid and then refined by TOMS 748 root finding on the exact DTFT, so they do not depend on the
padding factor beyond its role in locating peaks.
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
import numpy.typing as npt

from ropelab import _validation
from ropelab._core_loader import core as _core
from ropelab._display import ResultDisplay, document_fields, field_names
from ropelab._docstrings import shared
from ropelab._types import ArrayInput, ArrayLike, ComplexArray, FloatArray, FloatOrArray
from ropelab._validation import negated

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "WINDOWS",
    "WINDOW_ALIASES",
    "MAX_SIGNAL_LENGTH",
    "window_names",
    "window_info",
    "WindowInfo",
    "window",
    "dpss",
    "ssm_window",
    "ssm_impulse",
    "dtft",
    "spectrum",
    "ssm_spectrum",
    "ssm_envelope",
    "continuous_spectrum",
    "zoh",
    "ssm_kernel",
    "decay_per_sample",
    "decay_over_window",
    "FiguresOfMerit",
    "figures_of_merit",
    "LeakageMap",
    "leakage_map",
    "harris_table",
]


def window_names(aliases: bool = False) -> list[str]:
    """Names accepted by :func:`window`.

    Parameters
    ----------
    aliases : bool
        Also list the aliases (scipy's and Harris's other names for the same windows, see
        :data:`WINDOW_ALIASES`), after the canonical names.

    Returns
    -------
    list of str
        The canonical window names (the keys of :data:`WINDOWS`), then the aliases if asked.

    Raises
    ------
    TypeError
        If ``aliases`` is not a bool.

    Examples
    --------
    >>> "hann" in window_names() and "ssm" in window_names()
    True
    >>> "chebwin" in window_names(aliases=True) and "chebwin" not in window_names()
    True
    """
    _validation.boolean("spectra.window_names", "aliases", aliases)
    names = list(_core.spectra.window_names())
    if aliases:
        names += list(_core.spectra.window_aliases())
    return names


#: Every window :func:`window` knows (one row each of the core's window table, in its order),
#: mapped to the names of every parameter it accepts: the required ones first under scipy's name
#: (where scipy has the window), each followed by its alternative names (Harris's convention),
#: then the optional ones. :func:`window_info` gives each parameter's range and default.
WINDOWS: dict[str, tuple[str, ...]] = {
    name: tuple(n for p in _core.spectra.window_info(name=name).parameters for n in [p.name, *p.alternatives])
    for name in _core.spectra.window_names()
}


@document_fields
class WindowInfo(ResultDisplay, _core.spectra.WindowInfo):
    """A window's row of the core's window table (:func:`window_info`).

    The fields are read-only and are those of the compiled result, in the order of ``_fields``;
    each parameter is a ``WindowParameter`` with ``name``, ``alternatives``, ``required``,
    ``default``, ``description``, ``range`` and ``alternative_ranges``.
    """

    __slots__ = ()


def window_info(name: str) -> WindowInfo:
    """A window's row of the core's window table: its parameters, symmetry, fall-off, scipy and Harris names.

    Parameters
    ----------
    name : str
        A canonical name (:func:`window_names`) or an alias (:data:`WINDOW_ALIASES`).

    Returns
    -------
    WindowInfo
        ``name`` (canonical), ``parameters`` (each a ``WindowParameter``: ``name``,
        ``alternatives``, ``required``, ``default``, ``description``, ``range``,
        ``alternative_ranges``), ``symmetry`` (``"both"``, ``"symmetric"`` or ``"dft-even"``),
        ``falloff_order`` (a float: the order ``p`` of the zero-extended window's least regular
        point at its reference parameters, so that sidelobes fall off at ``−6.02(p + 1)``
        dB/octave; an integer where the ``p``-th derivative jumps, ``0.5`` at a square-root end
        as Kaiser–Bessel-derived's; ``−1``: none),
        ``scipy_name`` and ``harris_name`` (``""`` where the window is not there).

    Raises
    ------
    ValueError
        For an unknown name (with the closest known one).

    Examples
    --------
    >>> info = window_info("ssm")
    >>> info.symmetry, [p.name for p in info.parameters], info.parameters[0].range
    ('dft-even', ['alpha'], '>= 0')
    >>> window_info("chebwin").scipy_name, window_info("hann").falloff_order
    ('chebwin', 2.0)
    """
    with _validation.renamed("spectra.window_info", "spectra.window"):
        return WindowInfo(_core.spectra.window_info(name=name))


def _windows_markdown() -> str:
    """The table of every window (docs/areas/spectra.md), one line per row of the core's window table."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    def param(p: Any) -> str:
        names = [f"`{p.name}` {p.range}"] + [f"`{a}` {r}" for a, r in zip(p.alternatives, p.alternative_ranges)]
        return " or ".join(names) + ("" if p.required else f" (default {p.default})")

    lines = [
        "| Window (aliases) | Parameters: range (default) | Definition / source | Symmetry "
        "| Fall-off (dB/octave) | scipy | Harris 1978 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name in window_names():
        info = window_info(name)
        aliases = f" ({', '.join(f'`{a}`' for a in info.aliases)})" if info.aliases else ""
        falloff = f"{-20 * math.log10(2) * (info.falloff_order + 1):.0f}" if info.falloff_order >= 0 else "none"
        row = [
            f"`{name}`{aliases}",
            "; ".join(param(p) for p in info.parameters),
            info.definition,
            info.symmetry,
            falloff,
            f"`{info.scipy_name}`" if info.scipy_name else "",
            info.harris_name,
        ]
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


#: Longest window or signal, in samples (the core's ``limits::kMaxSignalLength``, ``2**31 − 1``).
MAX_SIGNAL_LENGTH: int = int(_core.limits.max_signal_length)

#: Other names of the windows (scipy's ``boxcar``, ``bartlett``, ``blackmanharris``, ``chebwin``;
#: Harris's ``riemann``, ...), mapped to the canonical name.
WINDOW_ALIASES: dict[str, str] = dict(_core.spectra.window_aliases())


def window(name: str, N: int, sym: bool = False, **params: Any) -> FloatArray:
    r"""A data window of length ``N``: every window of ``scipy.signal.windows`` and of Harris (1978).

    Harris's windows use a centred coordinate ``x = (n − L/2)/(L/2) ∈ [−1, 1]`` with span
    ``L = N`` (DFT-even) or ``L = N − 1`` (symmetric). The windows scipy has are sample-equal to
    scipy's (to rounding) in both conventions; their parameters carry scipy's names, Harris's
    parameter (Table 1's α) being accepted instead where it differs.

    Parameters
    ----------
    name : str
        A canonical name (:func:`window_names`) or an alias (:data:`WINDOW_ALIASES`):

        * ``rectangular`` (``boxcar``), ``triangular`` (``bartlett``: ``1 − |x|``), ``triang``
          (scipy's, non-zero ends), ``riesz`` (``1 − x²``), ``parzen`` (scipy's),
          ``de_la_vallee_poussin`` (Harris's, on ``x``), ``bohman``, ``barthann``, ``cosine``
          (``sin(π(n+½)/M)``), ``lanczos`` (``riemann``: ``sinc x``);
        * cosine sums ``Σ_k (−1)^k a_k cos(2πkn/L)``: ``hann``, ``hamming``, ``blackman``,
          ``exact_blackman``, ``blackman_harris_3`` (Harris's "−67 dB" 3-term; true highest
          sidelobe −70.8 dB), ``blackman_harris_3_61`` (−61 dB), ``blackman_harris_4``
          (``blackmanharris``, −92 dB), ``blackman_harris_4_74`` (−74 dB), ``kaiser_bessel_4``
          (Harris's 4-term Kaiser–Bessel, α = 3), ``nuttall``, ``flattop``,
          ``general_cosine`` (``a``: the coefficients), ``general_hamming`` (``alpha``);
        * ``cosine_power`` (``alpha``: Harris's ``cos^α(πx/2)``, α = 1…4; α = 2 is ``hann``),
          ``tukey`` (``alpha = 0.5``: taper fraction, also Harris's α);
        * ``gaussian`` (``std`` in samples; or Harris's ``alpha = (L/2)/std``:
          ``exp(−½(αx)²)``), ``general_gaussian`` (``p``, ``sig``);
        * ``poisson`` (Harris's ``alpha``: ``exp(−α|x|)``; or ``tau = (L/2)/α`` samples, scipy's
          ``exponential`` with its default centre), ``hann_poisson`` (``alpha``:
          :math:`\tfrac{1}{2}(1 + \cos \pi x) e^{-\alpha|x|}`), ``cauchy`` (``alpha``: ``1/(1 + (αx)²)``);
        * ``exponential`` (scipy's: ``tau = 1`` samples, ``center``, which needs ``sym=False``):
          ``exp(−|n − center|/tau)``, centred at ``L/2`` by default;
        * ``ssm`` (``alpha ≥ 0``, the decay per sample): the causal SSM window :math:`e^{-\alpha n}`
          (DFT-even only; :func:`ssm_window`);
        * ``kaiser`` (``beta``; or Harris's ``alpha = β/π``), ``kaiser_bessel_derived``
          (``beta``; symmetric and even ``N`` only, as scipy), ``chebyshev`` (``chebwin``; ``at``
          dB, or ``attenuation`` dB, or Harris's ``alpha = at/20``), ``taylor`` (``nbar = 4``,
          ``sll = 30`` dB, ``norm = True``), ``dpss`` (``NW``; ``norm = "approximate"``,
          ``"subsample"`` or ``2``; the first taper only, scipy's ``Kmax=None``: several
          tapers and their concentration ratios are :func:`dpss`'s), ``barcilon_temes``
          (Harris's ``alpha``).

        A negative Dolph–Chebyshev attenuation is read as ``|at|`` and ``|at| < 45`` dB gives
        scipy's UserWarning ("This window is not suitable for spectral analysis ...").
    N : int
        Length, 0 ≤ N ≤ :data:`MAX_SIGNAL_LENGTH` (``2**31 − 1``); an integer-valued float is
        accepted. ``N = 0`` gives an empty array and ``N = 1`` gives ``[1.0]`` (after the
        parameters are checked), as scipy. ``kaiser_bessel_derived`` returns an empty array for
        any ``N < 1`` (scipy's ``M < 1``, e.g. 0.5).
    sym : bool
        ``False`` (default): DFT-even, Harris's convention for spectral analysis (the symmetric
        window of length ``N + 1`` without its last sample; scipy's ``sym=False``). ``True``:
        symmetric, ``w[n] == w[N−1−n]`` exactly (scipy's default). A window defined only one way
        refuses the other with ValueError (never ignored). ``chebyshev`` and ``barcilon_temes``
        keep their designed (equiripple) sidelobe level only with ``sym=True``: dropping the last
        sample raises it (−60 dB Dolph–Chebyshev, ``N = 1024``: −56.6 dB DFT-even).
    **params : float, bool, str or sequence of float
        The window's parameters (see :data:`WINDOWS`); ``None`` means the default. Missing,
        unknown, duplicated (``std`` and ``alpha`` together) or out-of-range parameters raise
        ValueError naming the parameter.

    Returns
    -------
    ndarray, shape (N,)

    Raises
    ------
    ValueError
        Unknown ``name`` (with the closest known name), bad ``N``, a parameter as above, or a
        ``sym`` the window does not have.

    Examples
    --------
    >>> window("hann", 4)
    array([0. , 0.5, 1. , 0.5])
    >>> w = window("kaiser", 9, sym=True, beta=8.0)
    >>> bool(np.array_equal(w, w[::-1]))
    True
    >>> bool(np.allclose(window("gaussian", 64, std=64 / 5), window("gaussian", 64, alpha=2.5)))
    True
    >>> window("tukey", 9, sym=True, alpha=0.5)
    array([0. , 0.5, 1. , 1. , 1. , 1. , 1. , 0.5, 0. ])
    >>> window("dpss", 8, sym=True, NW=2.0).round(3)
    array([0.088, 0.334, 0.694, 0.97 , 0.97 , 0.694, 0.334, 0.088])
    >>> window("chebwin", 8, sym=False, at=60.0).round(3)  # DFT-even: scipy's sym=False
    array([0.052, 0.227, 0.538, 0.86 , 1.   , 0.86 , 0.538, 0.227])
    >>> window("hann", 0, sym=True)
    array([], dtype=float64)
    """
    given = {k: v for k, v in params.items() if v is not None}
    if isinstance(name, str) and isinstance(N, (float, np.floating)) and 0 <= N < 1:
        # scipy's kaiser_bessel_derived returns [] for any M < 1 before its other checks
        if name in _KBD_NAMES:
            return np.empty(0, dtype=np.float64)
    w: FloatArray = _core.spectra.window(name=name, N=N, sym=bool(sym), params=given)
    if isinstance(name, str) and name in _CHEBYSHEV_NAMES:
        at = given.get("at", given.get("attenuation"))
        if at is None and "alpha" in given:
            at = 20 * float(given["alpha"])
        if at is not None and abs(float(at)) < 45:
            warnings.warn(_CHEBYSHEV_WARNING, UserWarning, stacklevel=2)
    return w


_KBD_NAMES = frozenset(
    n
    for n in (*_core.spectra.window_names(), *_core.spectra.window_aliases())
    if n == "kaiser_bessel_derived" or _core.spectra.window_aliases().get(n) == "kaiser_bessel_derived"
)
_CHEBYSHEV_NAMES = frozenset(
    n
    for n in (*_core.spectra.window_names(), *_core.spectra.window_aliases())
    if n == "chebyshev" or _core.spectra.window_aliases().get(n) == "chebyshev"
)
#: scipy's warning for a Dolph–Chebyshev attenuation below 45 dB (the same text, so that filters
#: written for scipy's match).
_CHEBYSHEV_WARNING = (
    "This window is not suitable for spectral analysis for attenuation values lower than about "
    "45dB because the equivalent noise bandwidth of a Chebyshev window does not grow "
    "monotonically with increasing sidelobe attenuation when the attenuation is smaller than "
    "about 45 dB."
)


@overload
def dpss(
    N: int,
    NW: float,
    Kmax: None = None,
    *,
    sym: bool = False,
    norm: Literal["approximate", "subsample", 2] | None = None,
    return_ratios: Literal[False] = False,
) -> FloatArray: ...
@overload
def dpss(
    N: int,
    NW: float,
    Kmax: int,
    *,
    sym: bool = False,
    norm: Literal["approximate", "subsample", 2] | None = None,
    return_ratios: Literal[False] = False,
) -> FloatArray: ...
@overload
def dpss(
    N: int,
    NW: float,
    Kmax: None = None,
    *,
    sym: bool = False,
    norm: Literal["approximate", "subsample", 2] | None = None,
    return_ratios: Literal[True],
) -> tuple[FloatArray, float]: ...
@overload
def dpss(
    N: int,
    NW: float,
    Kmax: int,
    *,
    sym: bool = False,
    norm: Literal["approximate", "subsample", 2] | None = None,
    return_ratios: Literal[True],
) -> tuple[FloatArray, FloatArray]: ...
def dpss(
    N: int,
    NW: float,
    Kmax: int | None = None,
    *,
    sym: bool = False,
    norm: Literal["approximate", "subsample", 2] | None = None,
    return_ratios: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray | float]:
    """Discrete prolate spheroidal (Slepian) tapers and their concentration ratios (multi-taper).

    The tapers maximise the fraction ``λ_k`` of their energy in the band ``|f| ≤ W = NW/M``
    (cycles per sample), ``M = N`` (``sym=True``) or ``N + 1`` (DFT-even: the last sample is
    dropped); taper ``k`` is the eigenvector of the ``k``-th largest eigenvalue of the symmetric
    tridiagonal matrix of Percival & Walden (1993, §8.3, eq. 378) with diagonal
    ``((M − 1 − 2n)/2)² cos 2πW`` and off-diagonal ``n(M − n)/2``, computed in the C++ core by
    Sturm bisection and inverse iteration. Signs follow Percival & Walden (p. 379): even tapers
    have a positive sum, odd tapers begin positive. The ratios ``λ_k`` are computed from the
    tapers' autocorrelations (p. 390). Sample-equal to ``scipy.signal.windows.dpss`` to rounding.

    Parameters
    ----------
    N : int
        Length, ``N ≥ 0``. ``N ≤ 1`` gives scipy's degenerate result whatever ``Kmax``: a 1-D
        array of ``N`` ones, with the ratio 1 (``[1.0]`` when ``Kmax`` is given).
    NW : float
        Time-half-bandwidth product, ``0 < NW < N/2``.
    Kmax : int, optional
        Number of tapers, ``1 ≤ Kmax ≤ N``. ``None`` (default): the first taper only, as a 1-D
        array (the ``dpss`` window of :func:`window`).
    sym : bool
        ``False`` (default): DFT-even; ``True``: symmetric (scipy's default).
    norm : {"approximate", "subsample", 2}, optional
        ``2``: unit ℓ² tapers; ``"approximate"``: divided by the largest sample of all tapers,
        times ``M²/(M² + NW)`` for even ``M``; ``"subsample"``: the same with scipy's FFT-shift
        correction. Default (as scipy): ``"approximate"`` when ``Kmax`` is None, else ``2``.
    return_ratios : bool
        Also return the concentration ratios ``λ_k`` (computed from the unit-ℓ² tapers).

    Returns
    -------
    tapers : ndarray, shape (N,) or (Kmax, N)
        One taper (``Kmax=None``) or ``Kmax`` tapers by decreasing ``λ_k``.
    ratios : float or ndarray, shape (Kmax,)
        Only with ``return_ratios``: ``λ_k`` (a float when ``Kmax`` is None).

    Raises
    ------
    TypeError
        If ``Kmax`` is not an integer (e.g. 1.5).
    ValueError
        ``N < 0``, ``Kmax`` outside ``[1, N]``, ``NW`` outside ``(0, N/2)`` or an unknown
        ``norm``.

    Examples
    --------
    >>> tapers, ratios = dpss(64, 2.5, 4, sym=True, return_ratios=True)
    >>> tapers.shape
    (4, 64)
    >>> ratios.round(6)
    array([0.999997, 0.999847, 0.996267, 0.952426])
    >>> bool(np.allclose(tapers @ tapers.T, np.eye(4)))   # orthonormal (norm=2 with Kmax)
    True
    """
    f = "spectra.dpss"
    singleton = Kmax is None
    if Kmax is None:
        K = 1
    else:
        if isinstance(Kmax, bool):
            raise TypeError(f"{f}: Kmax must be an integer or None, got {Kmax!r}")
        try:
            K = operator.index(Kmax)
        except TypeError:
            raise TypeError(f"{f}: Kmax must be an integer or None, got {Kmax!r}") from None
    if norm is None:
        dnorm = "approximate" if singleton else "2"
    elif isinstance(norm, str) and norm in ("approximate", "subsample"):
        dnorm = norm
    elif not isinstance(norm, (bool, str)) and isinstance(norm, (int, np.integer)) and norm == 2:
        dnorm = "2"
    else:
        raise ValueError(f"{f}: norm must be 'approximate', 'subsample' or 2, got {norm!r}")
    if not isinstance(return_ratios, (bool, np.bool_)):
        raise TypeError(f"{f}: return_ratios must be a bool, got {return_ratios!r}")
    out = _core.spectra.dpss(N=N, NW=NW, Kmax=K, sym=bool(sym), norm=dnorm, return_ratios=bool(return_ratios))
    tapers: FloatArray = out[0]
    ratios: FloatArray = out[1]
    if singleton or tapers.shape[1] <= 1:  # (scipy's degenerate N <= 1: one 1-D taper of ones)
        tapers = tapers[0]
    if singleton:
        if return_ratios:
            return tapers, float(ratios[0])
        return tapers
    if return_ratios:
        return tapers, ratios
    return tapers


def ssm_window(*, alpha: float, N: int) -> FloatArray:
    r"""The causal exponential window :math:`w[n] = e^{-\alpha n}`, ``n = 0..N−1``, of an SSM decaying ``α`` per sample.

    The decay is per sample, as in :func:`ssm_impulse`; ``ssm_window(alpha=a, N=n)`` equals
    ``window("ssm", n, alpha=a)``. :func:`decay_per_sample` converts a decay over the whole window
    ``α·N``.

    Parameters
    ----------
    alpha : float
        Decay per sample, finite and ≥ 0 (keyword-only).
    N : int
        Length, 1 ≤ N ≤ :data:`MAX_SIGNAL_LENGTH` (keyword-only).

    Returns
    -------
    ndarray, shape (N,)
        :math:`w[n] = e^{-\alpha n}`.

    Raises
    ------
    TypeError
        If ``alpha`` is not a real number.
    ValueError
        If ``N`` is not an integer ≥ 1 or ``alpha`` is negative or not finite.

    Examples
    --------
    >>> w = ssm_window(alpha=0.25, N=8)
    >>> bool(np.isclose(w[-1], np.exp(-0.25 * 7)))
    True
    >>> w2 = ssm_window(alpha=decay_per_sample(2.0, 8), N=8)   # decay α·N = 2 over the window
    >>> bool(np.array_equal(w, w2))
    True
    """
    func = "ssm_window"
    n = _check_length(func, N)
    a = _real_decay(func, "alpha", alpha)
    with _validation.renamed(func, "spectra.window"):
        return window("ssm", n, alpha=a)


@shared
def ssm_impulse(alpha: float, omega: float, N: int) -> ComplexArray:
    r"""Impulse response ``h[n] = aⁿ``, :math:`a = e^{-\alpha + i\omega}`, ``n = 0..N−1`` of one diagonal SSM mode.

    Parameters
    ----------
    alpha : float
        Decay per sample, ≥ 0 (``α = 0``: pure rotation, i.e. a rectangular window).
    {omega}
    N : int
        Length, ≥ 1.

    Returns
    -------
    ndarray of complex128, shape (N,)
        ``h[n]``, with the phase ``ωn`` reduced exactly before the exponential.

    Examples
    --------
    >>> h = ssm_impulse(0.0, np.pi, 3)
    >>> np.round(h.real, 12)
    array([ 1., -1.,  1.])
    """
    return _core.spectra.ssm_impulse(alpha=alpha, omega=omega, N=N)


@shared
def dtft(x: ArrayLike, freqs_bins: ArrayLike) -> ComplexArray:
    r"""Direct DTFT :math:`X(f) = \sum_n x[n] e^{-2\pi i f n/N}` at arbitrary frequencies (bins, ``N = len(x)``).

    Exact to a few ulp per term for any ``f``: the phase ``f·n mod N`` is reduced in integers.

    Parameters
    ----------
    {x}
    freqs_bins : array_like
        Frequencies in bins, any shape (the result has it).

    Returns
    -------
    ndarray of complex128
        ``X(f)`` with the shape of ``freqs_bins``.

    Examples
    --------
    >>> X = dtft(np.ones(8), [0.0, 1.0, 0.5])
    >>> np.round(np.abs(X), 6)
    array([8.      , 0.      , 5.125831])
    """
    return _core.spectra.dtft(x=x, freqs_bins=freqs_bins)


@shared
def spectrum(x: ArrayLike, pad: int = 64) -> tuple[FloatArray, FloatArray]:
    """Magnitude spectrum ``|X(f)|`` by a zero-padded FFT (FFTW) of length ``pad·N``.

    Parameters
    ----------
    {x}
    pad : int
        Padding factor ≥ 1: the grid step is ``1/pad`` bins.

    Returns
    -------
    freqs_bins, magnitude : ndarray
        Real input: ``f = 0, 1/pad, …, N/2`` (``pad·N//2 + 1`` values; ``|X|`` is even).
        Complex input: all ``pad·N`` frequencies from ``−N/2`` upwards, increasing.
        The magnitude is not normalised (``|X(0)| = |Σx|``).

    Examples
    --------
    >>> f, m = spectrum(np.ones(4), pad=2)
    >>> f
    array([0. , 0.5, 1. , 1.5, 2. ])
    >>> float(m[0])
    4.0
    """
    return _core.spectra.spectrum(x=x, pad=pad)


@shared
def ssm_spectrum(alpha: float, omega: float, N: int, freqs_bins: ArrayLike) -> ComplexArray:
    r"""Closed-form DTFT of :func:`ssm_impulse`: :math:`(1 - a^N e^{-2\pi if}) / (1 - a e^{-2\pi if/N})`.

    Evaluated with a complex ``expm1`` (accurate near the peak ``f = ωN/2π``, where it tends to
    :math:`\sum e^{-\alpha n}`).

    Parameters
    ----------
    {alpha}
    {omega}
    {N}
    {freqs_bins}

    Returns
    -------
    complex or ndarray of complex128
        ``H(f)`` with the shape of ``freqs_bins``.

    Examples
    --------
    >>> f = np.array([0.3, 1.7])
    >>> bool(np.allclose(ssm_spectrum(0.1, 0.5, 16, f), dtft(ssm_impulse(0.1, 0.5, 16), f), rtol=1e-12))
    True
    """
    return _core.spectra.ssm_spectrum(alpha=alpha, omega=omega, N=N, freqs_bins=freqs_bins)


@shared
def ssm_envelope(alpha: float, omega: float, N: int, freqs_bins: ArrayLike) -> FloatArray:
    r"""``|H|`` of the ``N → ∞`` limit, :math:`1/|1 - e^{-\alpha} e^{i(\omega - 2\pi f/N)}|` (Lorentzian-shaped, no
    nulls).

    Parameters
    ----------
    {alpha}
    {omega}
    {N}
    {freqs_bins}

    Returns
    -------
    float or ndarray
        The envelope ``|H_∞(f)|`` with the shape of ``freqs_bins``.

    Examples
    --------
    >>> round(float(ssm_envelope(0.5, 0.0, 16, 0.0)), 6)   # 1/(1 − exp(−0.5))
    2.541494
    """
    return _core.spectra.ssm_envelope(alpha=alpha, omega=omega, N=N, freqs_bins=freqs_bins)


def continuous_spectrum(alpha: float, omega: float, T: float, freqs_bins: ArrayLike) -> ComplexArray:
    r"""Continuous-time window transform on ``[0, T]``: :math:`\int_0^T e^{(-\alpha+i\omega)t} e^{-i\Omega t} dt`.

    :math:`= (1 - e^{(-\alpha + i(\omega-\Omega))T}) / (\alpha - i(\omega-\Omega))` with ``Ω = 2πf/T`` (``f`` in cycles
    per ``T``, the continuous analogue of bins); ``alpha`` and ``omega`` are per unit time.

    Parameters
    ----------
    alpha : float
        Decay per unit time, ≥ 0.
    omega : float
        Rotation, rad per unit time.
    T : float
        Window length (> 0).
    freqs_bins : array_like
        Frequencies ``f`` in cycles per ``T`` (any shape).

    Returns
    -------
    complex or ndarray of complex128
        The transform with the shape of ``freqs_bins``.

    Examples
    --------
    >>> complex(continuous_spectrum(0.0, 0.0, 2.0, 0.0))   # ∫₀² dt
    (2+0j)
    >>> abs(complex(continuous_spectrum(0.0, 0.0, 2.0, 1.0))) < 1e-15   # rectangular nulls
    True
    """
    return _core.spectra.continuous_spectrum(alpha=alpha, omega=omega, T=T, freqs_bins=freqs_bins)


@overload
def zoh(alpha: float, omega: float, dt: float, B: complex = 1.0) -> tuple[complex, complex]: ...
@overload
def zoh(
    alpha: ArrayLike, omega: ArrayLike, dt: float, B: ArrayLike = 1.0
) -> tuple[complex, complex] | tuple[ComplexArray, ComplexArray]: ...
def zoh(
    alpha: ArrayLike, omega: ArrayLike, dt: float, B: ArrayLike = 1.0
) -> tuple[complex, complex] | tuple[ComplexArray, ComplexArray]:
    r"""Zero-order-hold discretisation of diagonal modes ``ẋ = A x + B u``, ``A = −α + iω``.

    :math:`\bar{A} = e^{\Delta A}`, :math:`\bar{B} = (e^{\Delta A} - 1)/A \cdot B` (evaluated as ``Δ·expm1(ΔA)/(ΔA)·B``,
    finite at ``A = 0`` where ``B̄ = Δ·B``). ``alpha``, ``omega`` and ``B`` broadcast together.

    Parameters
    ----------
    alpha : float or array_like
        Decays α ≥ 0 per unit time.
    omega : float or array_like
        Rotations ω, rad per unit time.
    dt : float
        The step Δ (> 0).
    B : float, complex or array_like
        Input coefficients.

    Returns
    -------
    Abar, Bbar : complex or ndarray of complex
        The discrete transition has ``α_d = αΔ``, ``ω_d = ωΔ`` (see :func:`ssm_impulse`).

    Raises
    ------
    ValueError
        If ``alpha``, ``omega`` and ``B`` cannot be broadcast together, or a value is invalid.
    TypeError
        If ``B`` is not a real or complex array.

    Examples
    --------
    >>> Abar, Bbar = zoh(0.0, 0.0, 0.1)
    >>> Abar, Bbar
    ((1+0j), (0.1+0j))
    """
    try:
        np.broadcast_shapes(np.shape(alpha), np.shape(omega), np.shape(B))
    except ValueError:
        raise ValueError(
            f"zoh: alpha, omega and B cannot be broadcast together, got shapes "
            f"{np.shape(alpha)}, {np.shape(omega)}, {np.shape(B)}"
        ) from None
    b = np.asarray(B)
    if b.dtype.kind not in "iufc":
        raise TypeError(f"zoh: B must be a real or complex array (not bool or str), got dtype {b.dtype}")
    # The core broadcasts alpha, omega and B itself (nothing materialised here); B's real and
    # imaginary parts are views, a real B has imaginary part 0.
    b_real, b_imag = (b.real, b.imag) if b.dtype.kind == "c" else (b, 0.0)
    abar, bbar = _core.spectra.zoh(alpha=alpha, omega=omega, dt=dt, B_real=b_real, B_imag=b_imag)
    if abar.ndim == 0:
        return complex(abar), complex(bbar)
    return abar, bbar


def ssm_kernel(A: ArrayLike, B: ArrayLike, C: ArrayLike, dt: float, L: int) -> ComplexArray:
    r"""S4D-style convolution kernel ``K[ℓ] = Σ_n C_n B̄_n Ā_nˡ``, ``ℓ = 0..L−1``, from continuous parameters.

    Each diagonal mode ``A_n`` is discretised by the zero-order hold of :func:`zoh` with step ``Δ``
    (:math:`\bar{A} = e^{\Delta A}`, :math:`\bar{B} = (e^{\Delta A} - 1)/A \cdot B`); the powers ``Āˡ`` are evaluated as
    :func:`ssm_impulse` ``(−Re(A)Δ, Im(A)Δ, L)`` (the phase reduced exactly, not by repeated
    products), so the kernel is the sum of ``C_n B̄_n`` times the modes' impulse responses
    (the Vandermonde product of S4D, Gu et al. 2022, "On the Parameterization and Initialization
    of Diagonal State Space Models"). With modes in complex-conjugate pairs the real
    kernel of S4D is ``2 Re K`` over one mode of each pair.

    Parameters
    ----------
    A : complex or array_like of complex, shape (M,)
        Continuous diagonal state matrix ``A_n = −α_n + iω_n`` with ``Re A_n ≤ 0`` (α per unit time).
    B, C : complex or array_like of complex
        Input and output coefficients, broadcast to ``A``'s shape.
    dt : float
        The step ``Δ > 0``.
    L : int
        Kernel length ≥ 1.

    Returns
    -------
    ndarray of complex128, shape (L,)
        ``K[ℓ]``.

    Raises
    ------
    TypeError
        If ``A``, ``B`` or ``C`` is not a numeric (real or complex) array.
    ValueError
        If the shapes do not broadcast, ``A`` is not 0-D or 1-D, a mode is unstable
        (``Re A > 0``), ``dt`` is not positive, ``L < 1``, or the kernel overflows.

    Examples
    --------
    >>> K = ssm_kernel([-0.5 + 2.0j], 1.0, 1.0, dt=0.1, L=4)
    >>> Abar, Bbar = zoh(0.5, 2.0, 0.1)
    >>> bool(np.allclose(K, Bbar * Abar ** np.arange(4), rtol=1e-14))
    True
    """
    arrays = []
    for name, value in (("A", A), ("B", B), ("C", C)):
        a = np.asarray(value)
        if a.dtype.kind not in "iufc":
            raise TypeError(
                f"ssm_kernel: {name} must be a real or complex array (not bool or str), got dtype {a.dtype}"
            )
        arrays.append(a)
    if arrays[0].ndim > 1:
        raise ValueError(f"ssm_kernel: A must be 0-D or 1-D (one value per mode), got shape {arrays[0].shape}")
    a1 = np.atleast_1d(arrays[0])
    try:
        a, b, c = np.broadcast_arrays(a1, *arrays[1:])  # views: nothing is materialised here
    except ValueError:
        raise ValueError(
            f"ssm_kernel: B and C must broadcast to A's shape, got shapes {np.shape(A)}, {np.shape(B)}, {np.shape(C)}"
        ) from None
    if a.shape != a1.shape:
        raise ValueError(
            f"ssm_kernel: B and C must broadcast to A's shape {np.shape(A)}, got {np.shape(B)}, {np.shape(C)}"
        )

    def parts(x: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        # real and imaginary parts as views (a real array's imaginary part is a stride-0 zero); the
        # core converts them in pieces and checks that they are finite
        if x.dtype.kind == "c":
            return x.real, x.imag
        return x, np.broadcast_to(np.float64(0.0), x.shape)

    (a_re, a_im), (b_re, b_im), (c_re, c_im) = parts(a), parts(b), parts(c)
    return _core.spectra.ssm_kernel(
        alpha=negated(a_re),
        omega=a_im,
        dt=dt,
        B_real=b_re,
        B_imag=b_im,
        C_real=c_re,
        C_imag=c_im,
        L=L,
    )


_INT64_MAX = 2**63 - 1


def _check_length(func: str, N: Any) -> int:
    if not isinstance(N, (int, np.integer)) or isinstance(N, bool) or N < 1:
        raise ValueError(f"{func}: N must be an integer >= 1, got {N!r}")
    if N > _INT64_MAX:
        raise ValueError(f"{func}: N must fit in 64 bits (<= 2**63 - 1), got {N!r}")
    return int(N)


def _decays(func: str, name: str, value: ArrayLike) -> FloatArray:
    a = np.asarray(value)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{func}: {name} must be a real number or array (not bool, complex or str), got {value!r}")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a) & (a >= 0)):
        raise ValueError(f"{func}: {name} must be finite and >= 0 (a decay), got {value!r}")
    return a


def _real_decay(func: str, name: str, value: Any) -> float:
    """A real scalar decay, finite and >= 0 (TypeError/ValueError naming the argument)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: {name} must be a real number, got {value!r}")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{func}: {name} must be finite and >= 0, got {value!r}")
    return float(value)


@overload
def decay_per_sample(alpha_n: float, N: int) -> float: ...
@overload
def decay_per_sample(alpha_n: ArrayInput, N: int) -> FloatArray: ...
@overload
def decay_per_sample(alpha_n: ArrayLike, N: int) -> FloatOrArray: ...
@shared
def decay_per_sample(alpha_n: ArrayLike, N: int) -> FloatOrArray:
    """The decay per sample ``α`` of an SSM window with decay ``α·N = alpha_n`` over ``N`` samples.

    Parameters
    ----------
    alpha_n : float or array_like
        Decay over the whole window, ``α·N``.
    {spectra_N}

    Returns
    -------
    float or ndarray
        ``alpha_n / N``, the decay per sample taken by :func:`ssm_window`, :func:`leakage_map`,
        :func:`ssm_impulse`, :func:`ssm_spectrum` and the ``ssm`` window.

    Raises
    ------
    TypeError
        If ``alpha_n`` is not real.
    ValueError
        If ``N`` is not an integer ≥ 1 or ``alpha_n`` is negative or not finite.

    Examples
    --------
    >>> decay_per_sample(2.0, 1024)
    0.001953125
    >>> decay_per_sample([0.0, 2.0, 8.0], 64)
    array([0.     , 0.03125, 0.125  ])
    >>> w = ssm_window(alpha=decay_per_sample(2.0, 8), N=8)   # the window with α·N = 2
    >>> bool(np.array_equal(w, window("ssm", 8, alpha=0.25)))
    True
    """
    n = _check_length("decay_per_sample", N)
    out = _decays("decay_per_sample", "alpha_n", alpha_n) / n
    return float(out) if out.ndim == 0 else out


@overload
def decay_over_window(alpha: float, N: int) -> float: ...
@overload
def decay_over_window(alpha: ArrayInput, N: int) -> FloatArray: ...
@overload
def decay_over_window(alpha: ArrayLike, N: int) -> FloatOrArray: ...
@shared
def decay_over_window(alpha: ArrayLike, N: int) -> FloatOrArray:
    """The decay ``α·N`` over a window of ``N`` samples of an SSM mode decaying ``α`` per sample.

    Parameters
    ----------
    alpha : float or array_like
        Decay per sample.
    {spectra_N}

    Returns
    -------
    float or ndarray
        ``alpha * N``, the decay over the whole window (dimensionless), on which the window's
        shape depends (``LeakageMap.decay_over_window``).

    Raises
    ------
    TypeError
        If ``alpha`` is not real.
    ValueError
        If ``N`` is not an integer ≥ 1 or ``alpha`` is negative or not finite.

    Examples
    --------
    >>> decay_over_window(0.001953125, 1024)
    2.0
    >>> m = leakage_map(alpha=[0.0, 0.03125], omega=[0.3], N=64, pad=4)
    >>> decay_over_window(m.alpha, 64).tolist()
    [0.0, 2.0]
    """
    n = _check_length("decay_over_window", N)
    out = _decays("decay_over_window", "alpha", alpha) * n
    return float(out) if out.ndim == 0 else out


@document_fields
class FiguresOfMerit(ResultDisplay, _core.spectra.FiguresOfMerit):
    """Figures of merit of a window (Harris 1978, Proc. IEEE 66(1)). Frequencies in bins.

    The fields are read-only and are those of the compiled result, in the order of ``_fields``.
    Instances compare equal when every field is equal (as dataclasses do), hash, pickle, and can
    be built from every field by name.
    """

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict (JSON-ready: non-finite floats become strings).

        Returns
        -------
        dict of str to object
            Field name to value.
        """

        def clean(v: Any) -> Any:
            if isinstance(v, float) and not math.isfinite(v):
                return str(v)
            return v

        return {k: clean(getattr(self, k)) for k in field_names(type(self))}


def figures_of_merit(w: ArrayLike, pad: int = 64) -> FiguresOfMerit:
    """Figures of merit of the real window ``w`` (see :class:`FiguresOfMerit`).

    Parameters
    ----------
    w : array_like, shape (N,)
        A real, finite, lowpass window (``|W(f)|`` peaks at ``f = 0``; ``Σw ≠ 0``).
    pad : int
        FFT padding factor ≥ 1 used only to locate extrema and crossings (``pad ≥ 16``
        recommended); the values come from the exact DTFT. An extremum is found when the sign
        of ``d|W|²/df`` (from a second FFT) changes between grid points or ``|W|`` has a grid
        local extremum, so only a minimum/maximum pair closer together than ``1/pad`` bins can
        be missed (e.g. the barely visible ripples of a strongly decaying exponential window).

    Returns
    -------
    FiguresOfMerit
        The figures of ``w``.

    Raises
    ------
    TypeError
        If ``w`` is a window's name rather than its samples, or not a real array.

    Notes
    -----
    ``sidelobe_falloff_db_per_octave`` is the asymptotic slope ``-6.02 (k + 1)`` dB/octave of a
    window whose ``k``-th derivative (extended by zeros; DFT-even and symmetric alike) is the
    first to jump (Harris 1978, Sec. IV): 0 for an end impulse (Dolph-Chebyshev, ``k = -1``),
    ``-inf`` or steeper than -48 for a window smoother than a 7th-derivative jump at this length.
    It is measured twice. From the samples: polynomials of degree 10 fitted at each end (up to
    ``N/8`` samples, and halfway, but not under 14 samples, to an interior join) and on either side of each interior join
    give ``k``. An end that behaves like a square root, ``w ~ (n - n0)^(1/2)`` (``cos^0.5``, and
    Kaiser-Bessel-derived, whose square is a cumulative sum), has no Taylor expansion for those
    polynomials (they read an integer order that is not there); it is recognised when ``w**2``,
    fitted as ``(u - s) P(u)`` with a simple zero at the end (``s``: the end sample, half a sample
    or one sample beyond it), fits the end samples at least 100 times better (rms, in ``w``) than
    the polynomial of degree 10 fits ``w`` itself, whose misfit must be above 1e-12 of
    ``max|w|``. Such an end falls off at ``-6.02 * 1.5 = -9.03`` dB/octave (the transform of
    ``|x|^(1/2)`` decays as ``f^-1.5``), unless a jump of order ``k <= 0`` elsewhere falls off
    as slowly. Kaiser-Bessel-derived ``beta = 8`` at ``N <= 64`` is not recognised: its
    square-root region is under a sample wide, so its samples are also those of a Taylor end with
    a small jump (see the ambiguous ends below). An end like a non-integer power,
    ``w ~ (n - n0)^a`` (``cos^1.5``), is recognised when ``log w``, fitted as
    ``c + a log(u - s) + Q(u)`` with ``Q`` a polynomial of degree 3 (and 2, for the error), fits
    the end samples to 1e-4 rms with ``a`` known to 0.01 and at least 0.05 from every integer:
    it falls off at ``-6.02 (a + 1)`` (-15.05 for ``cos^1.5``), where the polynomials read an
    integer order (``cos^1.5`` at ``N = 256``: -18.06); with ``a`` within 0.05 of an integer
    ``m >= 1`` the end vanishes to order ``m`` however much lower the polynomials read it
    (``cos^1.952`` at ``N = 223``: a kink read, -12.04; now -18.06). An end sample between 0 and
    the curve through its neighbours is no impulse (``cos^0.25``: its power end, -7.53). An end that the polynomials read as
    vanishing only within their fit's error while its end sample and their value at the end are
    above the rounding floor may hide a jump the samples cannot resolve (Kaiser ``beta = 20`` at
    ``N = 128``, end value 2.3e-8 of ``max|w|``): it is -6.02 where the far band below is an
    asymptote at that slope, else None.
    From the DTFT: the least-squares slope of the far sidelobe peaks against
    ``log2 sin(pi f/N)`` over ``[max(4 first_min_bins, N/32), max(N/8, 2 f_lo)]`` bins, an
    asymptote when the band's two halves agree within 1 dB/octave. The order's slope is the
    answer unless that band, with at least 32 points in each half, is an asymptote with another
    slope (ripples next to the end, Barcilon-Temes: -6): then the band's slope if it lies within
    1 dB/octave of an integer order's ``-6.02 (k + 1)``, and None if not (a transition, or a power
    the end tests do not recognise: Kaiser-Bessel-derived ``beta = 16`` at ``N = 1024`` reads
    -9.95 there, where the family at 65536 samples reads -8.8), except where it
    is steeper than a jump of integer order ``k >= 0`` that the samples resolve and lies within 1
    dB/octave of another integer order's slope: a transition (a larger but more regular
    singularity dominates up to beyond the band), and the order stands (Poisson ``alpha = 6`` at
    ``N = 256`` reads -11.66 there and is -6.02). It is None ("not
    measurable", printed "n/a") when ``N < 64``, when no order is measured and the band is no
    asymptote, when an order is read but ``|W|`` lies at the -240 dB floor beyond the main lobe
    (Kaiser ``beta = 31`` at ``N = 128``: a fit that cannot follow its steep end), when the only
    kink found has each side's slope changing sign within a sample of it (as well two joins around
    a flat part narrower than a sample, Tukey ``alpha = 0.9981`` at ``N = 206``) and the band is
    no asymptote, when the band lies inside the main lobe of a join's own transform (a join
    ``L`` samples from an end and a band starting below ``2N/L`` bins: Tukey ``alpha = 0.1`` at
    ``N = 128`` never reaches its -18 asymptote below Nyquist), when a shorter band (under 32
    points per half) is an asymptote with a slope more than half an order (3.01 dB/octave) from
    the order's and more than 1 dB/octave from every ``-6.02 (k + 1)``: an end like a non-integer
    power that this ``N`` cannot measure and the square-root and power tests do not recognise
    (a short band near another integer order is a transition, and
    the order stands: Poisson ``alpha = 6`` at ``N = 1024`` reads -11.4 and is -6.02), or at an
    ambiguous end. An end read as a jump is ambiguous when its first samples are also those of a
    square-root end narrower than a sample: ``w[0] w[1] > 0``, ``w[1]**2 >= 2 w[0]**2`` (the chord
    of ``w**2`` through them vanishes within one sample beyond the end, where such an end lies)
    and ``w**2`` rising at least as steeply over the next sample. No sample lies in that square
    root's region, so the samples cannot tell a small jump (-6.02) from it (-9.03): the fall-off
    is None unless a jump of order ``k <= 0`` elsewhere falls off as slowly or a far band of at
    least 32 points per half shows the asymptote. Kaiser-Bessel-derived ``beta = 8`` and Kaiser
    ``beta = 6`` at ``N = 64`` (end samples 0.0130, 0.0293, 0.0506 and 0.0149, 0.0245, 0.0365 of
    ``max|w|``) are both ambiguous, though their asymptotes are -9.03 and -6.02; so are windows
    whose small end value grows by a factor ``sqrt(2)`` or more in the first sample (at ``N = 64``: Kaiser
    ``beta`` = 6 to 14, Gaussian ``alpha = 3.5``, 4-term Blackman-Harris, Nuttall, flat top, DPSS
    ``NW`` = 2.5 and 4; a smaller end value keeps this up to larger ``N``, e.g. Kaiser
    ``beta = 10`` at ``N = 256``). Never positive, never NaN.

    Examples
    --------
    >>> m = figures_of_merit(window("hann", 1024))
    >>> round(m.enbw_bins, 3), round(m.highest_sidelobe_db, 1), round(m.scalloping_loss_db, 2)
    (1.5, -31.5, 1.42)
    >>> e = figures_of_merit(ssm_window(alpha=2.0 / 1024, N=1024))   # α·N = 2: the theory page's example
    >>> round(e.first_min_bins, 2), round(e.first_min_db, 1), round(e.highest_sidelobe_db, 1)
    (1.15, -10.9, -10.8)
    """
    if isinstance(w, (str, bytes)):
        raise TypeError(
            f"spectra.figures_of_merit: w must be an array of window samples, not a window name, got {w!r}; "
            f"for a window by name pass its samples, e.g. figures_of_merit(window({w!r}, N))"
        )
    return FiguresOfMerit(_core.spectra.figures_of_merit(w=w, pad=pad))


def _per_alpha(name: str) -> Any:
    """A read-only property of :class:`LeakageMap`: the field ``name`` of each row's figures of merit."""

    def get(self: LeakageMap) -> FloatArray:
        return np.array([np.nan if (v := getattr(f, name)) is None else v for f in self.figures], dtype=float)

    get.__name__ = name
    get.__qualname__ = f"LeakageMap.{name}"
    get.__doc__ = f"""Per ``alpha``: ``figures[i].{name}`` of each row ``i`` (None as nan).

    The values of :attr:`FiguresOfMerit.{name}` (described there), one per decay.

    Returns
    -------
    ndarray, shape (A,)
        One value per ``alpha``.
    """
    return property(get)


@document_fields
class LeakageMap(ResultDisplay, _core.spectra.LeakageMap):
    """Leakage of the causal exponential (SSM) window over decay × ``ω`` grids (rows by decay).

    The fields are read-only and are those of the compiled result, in the order of ``_fields``;
    the arrays are read-only float64 NumPy arrays (the constructor copies what it is given).
    Instances compare equal when every field is equal (arrays elementwise, NaN unequal), hash,
    pickle, and can be built from every field by name. The ``repr`` shows ``alpha``, ``omega``,
    ``N`` and ``pad`` only; the HTML view (Jupyter) adds the leakage: one row per decay with its
    figures of merit and the range over ``ω`` of the tone's far leakage, bin leakage and loss.
    """

    __slots__ = ()

    #: Fields left out of ``repr`` and the HTML table (the per-row results and the grids).
    _hidden_fields = ("figures", "tone_scalloping_loss_db", "bin_leakage_factor", "far_leakage_db")
    #: At most this many decays are listed in the HTML view (the first and last halves).
    _html_rows_max = 12

    def _html_extra(self) -> str:
        from ropelab._display import number_html

        def span(a: FloatArray, unit: str = "") -> str:
            finite = a[np.isfinite(a)]
            if not finite.size:
                return number_html(float(a[0]), unit) if a.size else "—"
            lo, hi = float(np.min(finite)), float(np.max(finite))
            return number_html(lo, unit) if lo == hi else f"{number_html(lo)} … {number_html(hi, unit)}"

        head = (
            "α (1/sample)", "α·N", "highest sidelobe", "leakage factor", "truncation ripple",
            "far leakage over ω", "bin leakage over ω", "tone loss over ω",
        )  # fmt: skip
        rows = []
        n = len(self.alpha)
        keep = list(range(n))
        if n > self._html_rows_max:
            half = self._html_rows_max // 2
            keep = [*range(half), -1, *range(n - half, n)]
        an, hsl, leak, ripple = (
            self.decay_over_window,
            self.highest_sidelobe_db,
            self.leakage_factor,
            self.truncation_ripple_db,
        )
        far, binl, loss = self.far_leakage_db, self.bin_leakage_factor, self.tone_scalloping_loss_db
        for i in keep:
            if i < 0:
                rows.append(f"<tr><td colspan='{len(head)}'>… {n - self._html_rows_max} more decays …</td></tr>")
                continue
            cells = (
                number_html(float(self.alpha[i])), number_html(float(an[i])), number_html(float(hsl[i]), "dB"),
                number_html(float(leak[i])), number_html(float(ripple[i]), "dB"), span(far[i], "dB"),
                span(binl[i]), span(loss[i], "dB"),
            )  # fmt: skip
            rows.append("<tr>" + "".join(f"<td style='text-align:right'>{c}</td>" for c in cells) + "</tr>")
        header = "".join(f"<th>{h}</th>" for h in head)
        caption = f"Leakage per decay ({n} decays × {len(self.omega)} rotations ω)"
        return f"<table><caption style='text-align:left'>{caption}</caption><tr>{header}</tr>{''.join(rows)}</table>"

    def as_dict(self) -> dict[str, Any]:
        """The fields as a dict: the arrays as they are, ``figures`` as a list of their dicts.

        Returns
        -------
        dict of str to object
            Field name to value (``figures``: :meth:`FiguresOfMerit.as_dict` of each).
        """
        out: dict[str, Any] = {name: getattr(self, name) for name in field_names(type(self))}
        out["figures"] = [FiguresOfMerit(f).as_dict() for f in self.figures]
        return out

    @property
    def decay_over_window(self) -> FloatArray:
        """The decay over the whole window ``α·N`` of each row (see :func:`decay_over_window`).

        Returns
        -------
        ndarray, shape (A,)
            ``alpha * N``, one value per ``α``.
        """
        return np.asarray(decay_over_window(self.alpha, self.N), dtype=float)

    # the per-alpha figures, each a FiguresOfMerit field read from every row (described there)
    highest_sidelobe_db: FloatArray = _per_alpha("highest_sidelobe_db")
    first_min_db: FloatArray = _per_alpha("first_min_db")
    first_min_bins: FloatArray = _per_alpha("first_min_bins")
    enbw_bins: FloatArray = _per_alpha("enbw_bins")
    bandwidth_3db_bins: FloatArray = _per_alpha("bandwidth_3db_bins")
    scalloping_loss_db: FloatArray = _per_alpha("scalloping_loss_db")
    leakage_factor: FloatArray = _per_alpha("leakage_factor")
    truncation_ripple_db: FloatArray = _per_alpha("truncation_ripple_db")


def leakage_map(*, alpha: ArrayLike, omega: ArrayLike, N: int = 256, pad: int = 32) -> LeakageMap:
    r"""Figures of merit of the SSM window :math:`e^{-\alpha n}` over grids of decays α and rotations ω (a map to plot).

    The decay is per sample, as in :func:`ssm_impulse`; the window's shape depends only on
    ``α·N``, so a grid in ``α·N`` is ``alpha=decay_per_sample(alpha_n, N)`` (the result's
    ``decay_over_window`` gives ``α·N`` back).

    Parameters
    ----------
    alpha : array_like, shape (A,)
        Decays per sample, finite, ≥ 0, with ``α·N`` finite (keyword-only; a scalar is one row).
    omega : array_like, shape (W,)
        Rotations (rad/sample), finite (keyword-only; a scalar is one column).
    N : int, default 256
        Window length, 2 ≤ N ≤ :data:`MAX_SIGNAL_LENGTH`.
    pad : int, default 32
        FFT padding factor for :func:`figures_of_merit`.

    Returns
    -------
    LeakageMap
        The per-decay figures and the per-(decay, ω) tone figures; its ``alpha`` holds the decays
        per sample as given.

    Raises
    ------
    TypeError
        If an argument is not real.
    ValueError
        If a decay is negative or not finite, ``alpha * N`` overflows, an array is empty or not
        1-D, ``omega`` is not finite, ``N < 2`` or ``pad < 1``.

    Examples
    --------
    >>> m = leakage_map(alpha=decay_per_sample([0.0, 2.0, 8.0], 64), omega=[0.0, 0.3], N=64)
    >>> m.tone_scalloping_loss_db.shape
    (3, 2)
    >>> m.decay_over_window.tolist()         # the decays over the window, α·N
    [0.0, 2.0, 8.0]
    >>> np.round(m.highest_sidelobe_db, 1)   # α·N = 2 is worse than the rectangle
    array([-13.3, -10.8, -24.1])
    """
    a = alpha if np.ndim(alpha) else np.atleast_1d(alpha)
    om = omega if np.ndim(omega) else np.atleast_1d(omega)
    m = _core.spectra.leakage_map(alpha=a, omega=om, N=N, pad=pad)  # validates every argument
    # the same fields (new arrays, never views of the caller's), the figures as the public class
    fields: dict[str, object] = {name: getattr(m, name) for name in field_names(LeakageMap)}
    fields["figures"] = tuple(FiguresOfMerit(r) for r in m.figures)
    return LeakageMap(**fields)


def _table_window(name: str, N: int, params: dict[str, float]) -> tuple[FloatArray, bool]:
    """The DFT-even window, or the symmetric one for a window that exists only symmetric."""
    try:
        return window(name, N, sym=False, **params), False
    except ValueError:
        return window(name, N, sym=True, **params), True


#: SSM decays over the window ``α·N`` shown in :func:`harris_table` for the ``ssm`` window.
_TABLE_SSM_DECAYS_OVER_WINDOW = (2.0, 8.0)

#: The parameter values of Harris (1978), Table 1's rows (Harris's ``α`` in the window's own
#: definition) for the window whose printed numbers are not in ``_harris1978.ROWS``: its rows show
#: the computed figures only.
_TABLE_HARRIS_PARAMETERS: dict[str, tuple[float, ...]] = {
    "barcilon_temes": (3.0, 3.5, 4.0),
}


def harris_table(N: int = 4096, pad: int = 64) -> pd.DataFrame:
    """A Harris-style table of figures of merit for every window of :func:`window_names`.

    Rows: the 41 rows of Harris (1978), Table 1 (Proc. IEEE 66(1)), each with Harris's window and
    parameter (e.g. Kaiser–Bessel α = 2.0 … 3.5 as ``beta = πα``, Dolph–Chebyshev α = 2.5 … 4.0 as
    ``attenuation = 20α`` dB) and Harris's label; the Barcilon–Temes window at Harris's α = 3.0,
    3.5, 4.0; the SSM's causal exponential (``ssm``) at ``α·N`` = 2 and 8; and every other window
    with its default parameters (a window that needs a parameter Harris does not give is left
    out, and scipy's ``exponential``, which is Harris's Poisson window in another
    parametrisation). The values are computed (:func:`figures_of_merit` of the DFT-even window of
    length ``N``); each of Harris's rows also carries the printed row, the columns where it
    differs from the computed value by more than half a unit of its last printed digit (the
    fall-off: more than 1 dB/octave) and why: a misprint (e.g. the exact Blackman row, which
    belongs to no window with the exact Blackman coefficients, the Hamming scalloping loss, the
    −67 dB 3-term Blackman–Harris 6.0-dB bandwidth printed 1.81 for 2.27), a different definition
    (Dolph–Chebyshev, whose figures depend on ``N``) or the last printed digit. A window that
    exists only in symmetric form is taken symmetric (``sym`` in the row).

    Parameters
    ----------
    N : int
        Window length (≥ 64; large ``N`` approaches Harris's continuous-time figures).
    pad : int
        FFT padding factor of :func:`figures_of_merit`.

    Returns
    -------
    pandas.DataFrame
        One row per window row, in the units of :class:`FiguresOfMerit` (each named in its column:
        ``_db`` dB, ``_bins`` bins, ``_db_per_octave`` dB/octave; ``coherent_gain`` and the
        overlap correlations are fractions, as :attr:`FiguresOfMerit.overlap_correlation_75`,
        not the percent Harris prints). Columns: ``window``, ``params``, ``label``, ``N``, ``sym``,
        Harris's figures ``highest_sidelobe_db``, ``sidelobe_falloff_db_per_octave``,
        ``coherent_gain``, ``enbw_bins``, ``bandwidth_3db_bins``, ``scalloping_loss_db``,
        ``worst_case_processing_loss_db``, ``bandwidth_6db_bins``, ``overlap_correlation_75``,
        ``overlap_correlation_50``, then ``harris`` (the printed values by column name in the same
        units, ``None`` for a cell Harris left empty; ``None`` for a row Harris does not have),
        ``harris_differs`` (Harris's headings of the columns that differ, comma separated; empty
        when the printed row agrees) and ``harris_notes`` (why, by column).

    Raises
    ------
    ValueError
        If ``N`` is not an integer ≥ 64 or ``pad`` is invalid.

    Examples
    --------
    >>> table = harris_table(N=1024, pad=16)
    >>> hann = table[table["window"] == "hann"].iloc[0]
    >>> round(float(hann["enbw_bins"]), 2), round(float(hann["overlap_correlation_50"]), 3)  # a fraction, not %
    (1.5, 0.167)
    >>> hamming = table[table["window"] == "hamming"].iloc[0]
    >>> hamming["harris_differs"]
    'scalloping loss, 6.0-dB BW, overlap correlation 50%'
    >>> hamming["harris_notes"].startswith("scalloping loss: misprint")
    True
    """
    from ropelab import _harris1978 as H

    if not isinstance(N, (int, np.integer)) or isinstance(N, bool) or N < 64:
        raise ValueError(f"harris_table: N must be an integer >= 64, got {N!r}")
    if N > _INT64_MAX:
        raise ValueError(f"harris_table: N must fit in 64 bits (<= 2**63 - 1), got {N!r}")
    N = int(N)
    by_window: dict[str, list[H.HarrisRow]] = {}
    for printed_row in H.ROWS:
        by_window.setdefault(printed_row.window, []).append(printed_row)
    specs: list[tuple[str, str, dict[str, float], H.HarrisRow | None]] = []
    for name in window_names():
        if name in by_window:
            specs += [(name, r.label, dict(r.params), r) for r in by_window[name]]
        elif name == "ssm":
            specs += [
                (name, f"SSM causal exponential αN = {an:g}", {"alpha": an / N}, None)
                for an in _TABLE_SSM_DECAYS_OVER_WINDOW
            ]
        elif name == "exponential":
            continue  # scipy's exponential with tau = (N/2)/α is Harris's Poisson window: its rows are poisson's
        elif name in _TABLE_HARRIS_PARAMETERS:
            specs += [(name, f"{name} α = {a:g}", {"alpha": a}, None) for a in _TABLE_HARRIS_PARAMETERS[name]]
        else:
            try:
                _table_window(name, 8, {})
            except ValueError:
                continue  # needs a parameter without a Harris value
            specs.append((name, name, {}, None))
    import pandas as pd

    rows: list[dict[str, Any]] = []
    # the windows' and figures' errors (N or pad too large) name harris_table
    with _validation.renamed("harris_table", "spectra.window", "spectra.figures_of_merit"):
        for name, label, params, harris in specs:
            w, sym = _table_window(name, N, params)
            m = figures_of_merit(w, pad=pad)
            row: dict[str, Any] = {"window": name, "params": params, "label": label, "N": N, "sym": sym}
            for col, _, _, _ in H.COLUMNS:  # the fields of FiguresOfMerit, in its units (fractions, not %)
                value = getattr(m, col)
                row[col] = None if value is None else float(value)  # None: a fall-off not measurable
            differs: list[str] = []
            why: dict[str, list[str]] = {}
            if harris is not None:
                row["harris"] = {col: H.from_printed(col, v) for (col, _, _, _), v in zip(H.COLUMNS, harris.printed)}
                for (col, head, unit, tol), printed in zip(H.COLUMNS, harris.printed):
                    scale = 100.0 if unit == "%" else 1.0  # compared in Harris's printed units
                    computed = row[col]
                    if computed is None:
                        reason = "" if printed is None else "not measurable at this N"
                    else:
                        reason = "" if printed is None else H.explain(label, col, scale * computed, printed, tol)
                    if reason:
                        differs.append(head)
                        why.setdefault(reason, []).append(head)
            else:
                row["harris"] = None
            row["harris_differs"] = ", ".join(differs)
            row["harris_notes"] = "; ".join(f"{', '.join(heads)}: {reason}" for reason, heads in why.items())
            rows.append(row)
    table: pd.DataFrame = pd.DataFrame(rows)
    return table
