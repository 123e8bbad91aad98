r"""Temperature of random-feature estimators (Selective RoPE Theorem 1, App. A.3).

Theorem 1 of the paper, its counterexample and the correct finite-D optimum.

For unit-norm ``q, k`` with ``ξ = q·k`` and ``D`` features, the conjugate trig estimator has

.. math::

    \mathrm{MSE}(\sigma) = \frac{e^2}{2D} \left(1 - e^{-2\sigma^2(1-\xi)}\right)^2
    + \left(e^{1-\sigma^2(1-\xi)} - e^{\xi}\right)^2.

The paper's rule ``σ = tan(½ arccos ξ)`` zeroes the bias of the *literal* (unconjugated) product;
with the conjugate product the estimator is unbiased at ``σ = 1`` for every ``ξ``, and the MSE
optimum at finite ``D`` solves the depressed cubic :math:`u^3 + (D-1)u - D e^{\xi-1} = 0` in
:math:`u = e^{-\sigma^2(1-\xi)}`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from ropelab import _validation, rff
from ropelab._core_loader import core as _core
from ropelab._display import ResultDisplay, document_fields, field_doc
from ropelab._docstrings import shared
from ropelab._types import ArrayInput, FloatArray, FloatOrArray
from ropelab._validation import (
    broadcast_shape,
    check_output_size,
    integer,
    real_number,
    scalar_or_array,
)

__all__ = [
    "paper_sigma",
    "unbiased_sigma",
    "mse",
    "optimal_sigma",
    "Counterexample",
    "counterexample",
    "MSECurve",
    "mse_curve",
    "spectrum",
    "unit_pair",
]

Estimator = rff.Estimator
Convention = rff.Convention


@overload
def paper_sigma(xi: float) -> float: ...
@overload
def paper_sigma(xi: ArrayInput) -> FloatArray: ...
@overload
def paper_sigma(xi: npt.ArrayLike) -> FloatOrArray: ...
@shared
def paper_sigma(xi: npt.ArrayLike) -> FloatOrArray:
    """The paper's Theorem 1 rule ``σ = tan(½ arccos ξ) = √((1−ξ)/(1+ξ))``.

    Vectorised; ``+inf`` at ``ξ = −1``. ``ξ`` outside ``[−1, 1]`` raises ValueError.

    Parameters
    ----------
    {xi}

    Returns
    -------
    float or ndarray
        ``σ_paper(ξ)``, with the shape of ``xi`` (a float for a scalar ``xi``).

    Raises
    ------
    ValueError
        If some ``ξ`` lies outside ``[−1, 1]`` or is not finite.

    Examples
    --------
    >>> round(paper_sigma(0.5) ** 2, 12)
    0.333333333333
    """
    return scalar_or_array(_core.temperature.paper_sigma(xi=xi), xi)


@overload
def unbiased_sigma(xi: float, estimator: Estimator = "trig", convention: Convention = "conjugate") -> float: ...
@overload
def unbiased_sigma(
    xi: ArrayInput, estimator: Estimator = "trig", convention: Convention = "conjugate"
) -> FloatArray: ...
@overload
def unbiased_sigma(
    xi: npt.ArrayLike, estimator: Estimator = "trig", convention: Convention = "conjugate"
) -> FloatOrArray: ...
@shared
def unbiased_sigma(
    xi: npt.ArrayLike, estimator: Estimator = "trig", convention: Convention = "conjugate"
) -> FloatOrArray:
    """The σ that makes the estimator unbiased for unit norms.

    ``1`` for the conjugate trig product (and random-phase and positive features), the paper's
    tan rule for the literal product.

    Parameters
    ----------
    {xi}
    estimator : {"trig", "random_phase", "positive"}
        The estimator.
    convention : {"conjugate", "literal"}
        Feature product of the trig estimator (see :func:`ropelab.rff.moments`).

    Returns
    -------
    float or ndarray
        The bias-zeroing σ, with the shape of ``xi``.

    Examples
    --------
    >>> unbiased_sigma(0.5), round(unbiased_sigma(0.5, convention="literal"), 6)
    (1.0, 0.57735)
    """
    return scalar_or_array(_core.temperature.unbiased_sigma(xi=xi, estimator=estimator, convention=convention), xi)


@overload
def mse(
    xi: float,
    D: float,
    sigma: float,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> float: ...
@overload
def mse(
    xi: npt.ArrayLike,
    D: npt.ArrayLike,
    sigma: npt.ArrayLike,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> FloatOrArray: ...
@shared
def mse(
    xi: npt.ArrayLike,
    D: npt.ArrayLike,
    sigma: npt.ArrayLike,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> FloatOrArray:
    """Closed-form MSE for unit-norm ``q, k`` with ``q·k = ξ``; broadcasts ``xi``, ``D``, ``sigma``.

    Parameters
    ----------
    xi : array_like
        Cosines ``ξ ∈ [−1, 1]``.
    D : array_like
        Feature counts (positive integers).
    sigma : array_like
        Temperatures σ ≥ 0.
    {temperature_estimator_convention}
    log : bool
        Return ``log MSE`` (log-domain evaluation).

    Returns
    -------
    float or ndarray
        The MSE (or ``log MSE``) with the broadcast shape of ``xi``, ``D`` and ``sigma``; a float
        when all three are scalars.

    Examples
    --------
    >>> bool(mse(0.5, D=16, sigma=1.0) < mse(0.5, D=16, sigma=paper_sigma(0.5)))
    True
    """
    broadcast_shape("temperature.mse", xi=xi, D=D, sigma=sigma)
    out = _core.temperature.mse(xi=xi, D=D, sigma=sigma, estimator=estimator, convention=convention, log=bool(log))
    return float(out) if out.ndim == 0 else out


@overload
def optimal_sigma(
    xi: float,
    D: float,
    estimator: Estimator = "trig",
    method: Literal["cubic", "brent"] = "cubic",
    convention: Convention = "conjugate",
) -> float: ...
@overload
def optimal_sigma(
    xi: npt.ArrayLike,
    D: npt.ArrayLike,
    estimator: Estimator = "trig",
    method: Literal["cubic", "brent"] = "cubic",
    convention: Convention = "conjugate",
) -> FloatOrArray: ...
@shared
def optimal_sigma(
    xi: npt.ArrayLike,
    D: npt.ArrayLike,
    estimator: Estimator = "trig",
    method: Literal["cubic", "brent"] = "cubic",
    convention: Convention = "conjugate",
) -> FloatOrArray:
    r"""MSE-optimal temperature σ* for ``D`` features (unit norms, ``q·k = ξ``); broadcasts.

    ``method="cubic"`` solves the stationarity cubic in closed form (Cardano, polished by Newton);
    ``method="brent"`` minimises the closed-form MSE with Boost.Math's ``brent_find_minima`` in
    extended precision — an independent route to the same number. Conjugate trig: σ* < 1 for
    finite D, σ* → 1 as D → ∞, σ*² = 1/3 at D = 1. Positive features: the root of
    :math:`2w^3 + (D-1)w - D e^{a/2} = 0` in :math:`w = e^{\sigma^2 a/2}`, clipped at σ = 0. Literal trig: tends to
    the tan rule as D → ∞. Where every σ gives the same MSE (ξ = 1 for conjugate trig, ξ = −1 for
    positive/literal) the result is 1.

    Parameters
    ----------
    {xi}
    D : int or array_like
        Feature counts (positive integers); broadcast against ``xi``.
    estimator : {"trig", "random_phase", "positive"}
        The estimator whose MSE is minimised.
    method : {"cubic", "brent"}
        Closed-form root of the stationarity cubic, or Brent's minimiser on the closed-form MSE.
    convention : {"conjugate", "literal"}
        Feature product of the trig estimator.

    Returns
    -------
    float or ndarray
        σ* with the broadcast shape of ``xi`` and ``D``; a float when both are scalars.

    Examples
    --------
    >>> round(optimal_sigma(0.3, 1) ** 2, 12)
    0.333333333333
    >>> bool(abs(optimal_sigma(0.3, 10**6) - 1) < 1e-5)
    True
    """
    broadcast_shape("temperature.optimal_sigma", xi=xi, D=D)
    out = _core.temperature.optimal_sigma(xi=xi, D=D, estimator=estimator, convention=convention, method=method)
    return float(out) if out.ndim == 0 else out


@document_fields
class Counterexample(ResultDisplay, _core.temperature.Counterexample):
    """The numbers of Theorem 1's counterexample at ``ξ`` (unit norms, trig estimator).

    The fields are read-only and are those of the compiled result, in the order of ``_fields``.
    Instances compare equal when every field is equal (as dataclasses do), hash, pickle, and can
    be built from every field by name.
    """

    __slots__ = ()

    @property
    def relative_bias_paper(self) -> float:
        """``mean_paper / target − 1``: the relative bias of the paper's rule."""
        return self.mean_paper / self.target - 1.0

    def optimal_sigmas(self, Ds: tuple[int, ...] = (1, 4, 16, 64, 256, 1024, 10**6)) -> dict[int, float]:
        """The σ*(D) of the conjugate trig estimator at this ξ, by the cubic.

        Parameters
        ----------
        Ds : tuple of int
            Feature counts D.

        Returns
        -------
        dict of int to float
            ``{D: σ*(D)}``.

        Raises
        ------
        TypeError
            If ``Ds`` is not a sequence of integers.
        ValueError
            If a ``D`` is not ``>= 1``.
        """
        func = "Counterexample.optimal_sigmas"
        try:
            items = list(Ds) if not isinstance(Ds, (str, bytes)) else None
        except TypeError:
            items = None
        if items is None:
            raise TypeError(f"{func}: Ds must be a sequence of integers, got {Ds!r} of type {type(Ds).__name__}")
        counts = [integer(func, "Ds", D, 1) for D in items]
        with _validation.renamed(func, "temperature.optimal_sigma", args={"D": "Ds"}):
            return {D: float(optimal_sigma(self.xi, D)) for D in counts}

    def as_dict(self) -> dict[str, float]:
        """The fields as a dictionary.

        Returns
        -------
        dict of str to float
            The fields by name (JSON-serialisable).
        """
        return {k: float(v) for k, v in self._asdict().items()}


def counterexample(xi: float = 0.5) -> Counterexample:
    """Theorem 1's counterexample: the paper's σ against σ = 1 at ``ξ ∈ (−1, 1]``.

    Parameters
    ----------
    xi : float
        The cosine ``ξ = q·k`` of the unit-norm pair, in ``(−1, 1]``.

    Returns
    -------
    Counterexample
        The paper's σ, the means it gives for both feature products, and the targets.

    Examples
    --------
    >>> c = counterexample(0.5)
    >>> round(c.sigma_paper_sq, 12), round(c.mean_paper, 5), round(c.target, 5)
    (0.333333333333, 2.30098, 1.64872)
    """
    return Counterexample(_core.temperature.counterexample(xi=xi))


def unit_pair(xi: float, d: int = 64) -> tuple[FloatArray, FloatArray]:
    """Unit vectors ``q = e₁``, ``k = ξ e₁ + √(1−ξ²) e₂`` in ``R^d`` with ``q·k = ξ``.

    Parameters
    ----------
    xi : float
        The cosine ``ξ ∈ [−1, 1]``.
    d : int
        Dimension, ≥ 2.

    Returns
    -------
    q, k : ndarray, shape (d,)
        The two unit vectors.

    Raises
    ------
    ValueError
        If ``d`` is not an integer ≥ 2 or ``xi`` lies outside ``[−1, 1]``.

    Examples
    --------
    >>> q, k = unit_pair(0.25, d=4)
    >>> round(float(q @ k), 12)
    0.25
    """
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 2:
        raise ValueError(f"unit_pair: d must be an integer >= 2, got {d!r}")
    x = real_number("unit_pair", "xi", xi)
    check_output_size("unit_pair", 2.0 * float(d))
    if not -1.0 <= x <= 1.0:
        raise ValueError(f"unit_pair: xi must lie in [-1, 1], got {xi!r}")
    q = np.zeros(d)
    k = np.zeros(d)
    q[0] = 1.0
    k[0] = x
    k[1] = np.sqrt((1.0 - x) * (1.0 + x))
    return q, k


@document_fields
@dataclass(frozen=True, repr=False)
class MSECurve(ResultDisplay):
    """MSE against σ: the closed form and a Monte-Carlo estimate with its standard error."""

    sigmas: FloatArray = field(metadata=field_doc("The temperatures σ, as given.", type="ndarray, shape (m,)"))
    analytic: FloatArray = field(metadata=field_doc("Closed-form MSE at each σ.", type="ndarray, shape (m,)"))
    empirical: FloatArray = field(
        metadata=field_doc("Mean of ``(K̂ − exp(ξ))²`` over the trials.", type="ndarray, shape (m,)")
    )
    stderr: FloatArray = field(
        metadata=field_doc(
            "Standard error of ``empirical`` (sample std of the squared errors / √trials).", type="ndarray, shape (m,)"
        )
    )
    xi: float = field(metadata=field_doc("The cosine ``ξ = q·k`` of the unit-norm pair (input)."))
    D: int = field(metadata=field_doc("Features per estimate (input)."))
    trials: int = field(metadata=field_doc("Monte-Carlo estimates per σ (input)."))
    seed: int = field(metadata=field_doc("Seed of the random numbers, the same for every σ (input)."))
    d: int = field(metadata=field_doc("Dimension of ``q`` and ``k`` (input)."))
    mode: rff.Mode = field(
        metadata=field_doc("Sampling mode (input; see :func:`ropelab.rff.estimate`).", type='{"projected", "full"}')
    )
    estimator: Estimator = field(
        metadata=field_doc("The estimator (input; see :func:`ropelab.rff.moments`).", type="str")
    )
    convention: Convention = field(
        metadata=field_doc("The convention (input; see :func:`ropelab.rff.moments`).", type="str")
    )


@shared
def mse_curve(
    xi: float,
    D: int,
    sigmas: npt.ArrayLike,
    *,
    d: int = 64,
    mode: rff.Mode = "projected",
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    trials: int,
    seed: int = 0,
    nthreads: int | None = None,
) -> MSECurve:
    """Analytic and Monte-Carlo MSE against σ for unit vectors with ``q·k = ξ`` in ``R^d``.

    Every σ uses the same seed (common random numbers), so the empirical curve is smooth in σ;
    each point is still an unbiased MSE estimate whose standard error is returned.

    Parameters
    ----------
    xi : float
        The cosine ``ξ = q·k`` of the unit-norm pair (see :func:`unit_pair`).
    {D}
    sigmas : array_like, shape (m,)
        Temperatures σ ≥ 0 (a non-empty 1-D real array).
    d : int
        Dimension of ``q`` and ``k``.
    mode : {"projected", "full"}
        Sampling mode (see :func:`ropelab.rff.estimate`).
    {temperature_estimator_convention}
    trials : int
        Monte-Carlo estimates per σ, ≥ 1.
    seed : int
        Seed of the random numbers (the same for every σ).
    {nthreads}

    Returns
    -------
    MSECurve
        The closed-form and Monte-Carlo MSE at each σ, with standard errors and the inputs.

    Raises
    ------
    TypeError
        If ``sigmas`` is not a real array.
    ValueError
        If ``sigmas`` is not a non-empty 1-D array, or another argument is invalid.

    Examples
    --------
    >>> c = mse_curve(0.5, 16, [0.5, 1.0], trials=4000, seed=2)
    >>> bool(np.all(np.abs(c.empirical - c.analytic) < 5 * c.stderr))
    True
    """
    trials = integer("mse_curve", "trials", trials, 1)  # a Python int: no float16 from np.int8
    raw = np.atleast_1d(np.asarray(sigmas))
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"mse_curve: sigmas must be a real array, got dtype {raw.dtype}")
    s = raw.astype(np.float64)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"mse_curve: sigmas must be a non-empty 1-D array, got shape {np.shape(sigmas)}")
    # the functions called check the other arguments: their messages name mse_curve
    with _validation.renamed("mse_curve", "unit_pair", "temperature.mse", "rff.estimate", args={"sigma": "sigmas"}):
        return _mse_curve(s, xi, D, d, trials, seed, mode, estimator, convention, nthreads)


def _mse_curve(
    s: FloatArray,
    xi: float,
    D: int,
    d: int,
    trials: int,
    seed: int,
    mode: rff.Mode,
    estimator: Estimator,
    convention: Convention,
    nthreads: int | None,
) -> MSECurve:
    q, k = unit_pair(xi, d)
    target = float(np.exp(q @ k))
    analytic = np.asarray(mse(xi, D=D, sigma=s, estimator=estimator, convention=convention), dtype=np.float64)
    empirical = np.empty_like(s)
    stderr = np.empty_like(s)
    for i, sigma in enumerate(s):
        est = rff.estimate(
            q, k, D, float(sigma), estimator, convention, mode=mode, trials=trials, seed=seed, nthreads=nthreads
        )
        sq = (est - target) ** 2
        empirical[i] = sq.mean()
        stderr[i] = sq.std(ddof=1) / np.sqrt(trials) if trials > 1 else np.inf
    return MSECurve(
        s, analytic, empirical, stderr, float(xi), int(D), int(trials), int(seed), int(d), mode, estimator, convention
    )


@shared
def spectrum(
    d: int,
    kind: Literal["rope", "rfa"] = "rope",
    base: float = 10000.0,
    theta_max: float | None = None,
    temp_max: float = 1.0,
    *,
    squared: bool = False,
    precision: Literal["float64", "float32"] = "float64",
) -> FloatArray:
    r"""Temperature spectrum over the ``d/2`` channel pairs (paper Fig. 2; the authors' code).

    ``rope``: :math:`\Theta_j = \mathrm{temp\_max} \cdot \mathrm{base}^{-2j/d}`. ``rfa``:
    ``φ_j = linspace(0, θ_max·π, d/2)``, ``Θ_j = tan(φ_j/2)`` (``tan²`` when ``squared``, the paper text's variant),
    rescaled so that ``max Θ = temp_max``; ``θ_max`` defaults to ``1 − 1/base``.

    ``precision="float32"`` evaluates the spectrum as the authors' released code does: every
    step in single precision, ``rfa`` as ``√((1 − cos φ)/(1 + cos φ))`` (``tan(φ/2)`` written
    with cosines; without the square root when ``squared``), ``rope`` as
    :math:`\mathrm{temp\_max} / \mathrm{base}^{2j/d}`. Near ``θ_max → 1``, ``1 + cos φ_max ≈ (π(1 − θ_max))²/2``
    approaches float32's spacing ``2⁻²⁴`` near −1, so that evaluation loses accuracy. The
    result is returned as float64 (holding float32 values).

    Parameters
    ----------
    d : int
        Head dimension (even); the spectrum has ``d/2`` entries.
    kind : {"rope", "rfa"}
        RoPE's geometric frequencies or the tan-shaped temperatures of random features.
    base : float
        RoPE base (also sets the default ``θ_max``).
    theta_max : float or None
        Largest angle of ``rfa`` as a fraction of π, in ``(0, 1)``; ``None`` means ``1 − 1/base``.
    {temp_max}
    squared : bool
        Use ``tan²(φ_j/2)`` (``rfa`` only).
    precision : {"float64", "float32"}
        Evaluate in double precision, or in single precision as the authors' code does (see above).

    Returns
    -------
    ndarray, shape (d/2,)
        ``Θ_j`` for ``j = 0 … d/2 − 1``.

    Raises
    ------
    ValueError
        For an odd ``d``, an unknown ``kind`` or ``precision``, ``θ_max`` outside ``(0, 1)`` or a
        non-positive ``base``/``temp_max``.

    Examples
    --------
    >>> spectrum(8, "rope", base=10000.0)
    array([1.   , 0.1  , 0.01 , 0.001])
    >>> s64 = spectrum(128, "rfa", base=10000.0)                      # θ_max = 0.9999
    >>> s32 = spectrum(128, "rfa", base=10000.0, precision="float32")
    >>> round(float(s32[-2] / s64[-2] - 1), 2)                         # 1 + cos φ_max is below float32's spacing
    0.1
    """
    exact = np.asarray(
        _core.temperature.spectrum(
            d=d, kind=kind, base=base, theta_max=theta_max, temp_max=temp_max, squared=bool(squared)
        )
    )
    if precision == "float64":
        return exact
    if precision != "float32":
        raise ValueError(f"spectrum: precision must be 'float64' or 'float32', got {precision!r}")
    f32 = np.float32
    half = int(d) // 2
    if kind == "rope":
        j2 = np.arange(0, 2 * half, 2, dtype=f32)
        rope32: FloatArray = np.asarray(
            np.asarray(f32(temp_max) / np.power(f32(base), j2 / f32(d)), dtype=f32), dtype=np.float64
        )
        return rope32
    tm = (1.0 - 1.0 / base) if theta_max is None else theta_max
    phi = np.linspace(f32(0.0), f32(float(tm) * np.pi), half, dtype=f32)
    c = np.cos(phi)
    ratio = (f32(1.0) - c) / (f32(1.0) + c)
    t = ratio if squared else np.sqrt(ratio)
    rfa32: FloatArray = np.asarray(np.asarray(f32(temp_max) * t / np.max(t), dtype=f32), dtype=np.float64)
    return rfa32
