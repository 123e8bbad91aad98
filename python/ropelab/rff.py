r"""Random-feature estimators of the softmax kernel ``exp(q·k)`` (Selective RoPE Eq. (8), App. A.2; Performer Lemmas
1–2).

Every estimator averages ``D`` i.i.d. per-feature terms ``X_j`` built from Gaussian frequencies
``ω ~ N(0, σ² I_d)``:

=================  =====================================================  ====================
estimator          per-feature term ``X``                                  ``E[X]``
=================  =====================================================  ====================
``trig``           ``A cos(ω·(q−k))`` (``convention="conjugate"``)          :math:`A e^{-\sigma^2\|q-k\|^2/2}`
``trig``           ``A cos(ω·(q+k))`` (``convention="literal"``, Eq. 8)     :math:`A e^{-\sigma^2\|q+k\|^2/2}`
``random_phase``   ``2A cos(ω·q+β) cos(ω·k+β)``, ``β ~ U[0, 2π)``           :math:`A e^{-\sigma^2\|q-k\|^2/2}`
``positive``       ``exp(ω·q − ‖q‖²/2) exp(ω·k − ‖k‖²/2)``                 :math:`e^{\sigma^2\|q+k\|^2/2 - n/2}`
=================  =====================================================  ====================

with ``A = exp((‖q‖²+‖k‖²)/2)`` and ``n = ‖q‖²+‖k‖²``. At ``σ = 1`` the conjugate trig, random
phase and positive estimators are unbiased for ``exp(q·k)``; the literal product estimates
``exp(−q·k)``.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np

from ropelab._core_loader import core as _core
from ropelab._docstrings import shared
from ropelab._types import ArrayInput, ArrayLike, FloatArray, FloatOrArray
from ropelab._validation import scalar_or_array

__all__ = ["moments", "mse", "estimate", "feature_map", "sample_omega", "sample_phase", "kernel"]

# The names are defined once, in the C++ core (``_core.rff.estimators()``, ``conventions()``, ``modes()``); the
# ``Literal`` types repeat them for type checkers and tests/test_enumerations.py checks they agree.
Estimator = Literal["trig", "random_phase", "positive"]
Convention = Literal["conjugate", "literal"]
Mode = Literal["projected", "full"]
#: The estimator names, in the core's order.
ESTIMATORS: tuple[str, ...] = tuple(_core.rff.estimators())
#: The convention names, in the core's order.
CONVENTIONS: tuple[str, ...] = tuple(_core.rff.conventions())
#: The Monte-Carlo modes of :func:`estimate`, in the core's order.
MODES: tuple[str, ...] = tuple(_core.rff.modes())


@shared
def kernel(q: ArrayLike, k: ArrayLike) -> float:
    """The target of every estimator, ``exp(q·k)``.

    Parameters
    ----------
    {rff_q_k}

    Returns
    -------
    float
        ``exp(q·k)``.

    Raises
    ------
    ValueError
        If ``q`` or ``k`` is not a finite 1-D vector, their lengths differ, or ``exp(q·k)``
        overflows a double.

    Examples
    --------
    >>> round(kernel([1.0, 0.0], [0.5, 0.0]), 6)
    1.648721
    """
    return float(_core.rff.kernel(q=q, k=k))


@overload
def moments(
    q: ArrayLike,
    k: ArrayLike,
    sigma: float = 1.0,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> tuple[float, float]: ...
@overload
def moments(
    q: ArrayLike,
    k: ArrayLike,
    sigma: ArrayInput,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> tuple[FloatArray, FloatArray]: ...
@overload
def moments(
    q: ArrayLike,
    k: ArrayLike,
    sigma: ArrayLike = 1.0,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> tuple[FloatOrArray, FloatOrArray]: ...
@shared
def moments(
    q: ArrayLike,
    k: ArrayLike,
    sigma: ArrayLike = 1.0,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> tuple[FloatOrArray, FloatOrArray]:
    """Closed-form mean and variance of one feature's term ``X``.

    Parameters
    ----------
    {rff_q_k}
    sigma : float or array_like
        Temperature(s) σ ≥ 0; the result has its shape.
    estimator : {"trig", "random_phase", "positive"}
    convention : {"conjugate", "literal"}
        Only used by ``"trig"``.
    log : bool
        Return ``(log E[X], log Var[X])`` instead (``-inf`` for a zero variance); use it when the
        amplitude ``exp((‖q‖²+‖k‖²)/2)`` overflows a double (the direct values are then ``inf``).

    Returns
    -------
    mean, variance : float or ndarray
        Per feature; the D-feature mean has variance ``variance / D``.

    Examples
    --------
    >>> m, v = moments([1.0, 0.0], [0.5, 0.0], sigma=1.0)
    >>> bool(np.isclose(m, np.exp(0.5)))
    True
    """
    mean, var = _core.rff.moments(q=q, k=k, sigma=sigma, estimator=estimator, convention=convention, log=bool(log))
    return scalar_or_array(mean, sigma), scalar_or_array(var, sigma)


@overload
def mse(
    q: ArrayLike,
    k: ArrayLike,
    D: int,
    sigma: float,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> float: ...
@overload
def mse(
    q: ArrayLike,
    k: ArrayLike,
    D: int,
    sigma: ArrayInput,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> FloatArray: ...
@overload
def mse(
    q: ArrayLike,
    k: ArrayLike,
    D: int,
    sigma: ArrayLike,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> FloatOrArray: ...
@shared
def mse(
    q: ArrayLike,
    k: ArrayLike,
    D: int,
    sigma: ArrayLike,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    log: bool = False,
) -> FloatOrArray:
    r"""Closed-form mean squared error of the ``D``-feature estimate of ``exp(q·k)``.

    ``MSE = Var[X]/D + (E[X] − exp(q·k))²``, with every :math:`1 - e^{-x}` evaluated by ``expm1``.

    Parameters
    ----------
    q, k : array_like, shape (d,)
    D : int
        Number of random features, ≥ 1.
    sigma : float or array_like
        Temperature(s) σ ≥ 0.
    {estimator_convention}
    log : bool
        Return ``log MSE`` computed in the log domain (finite where the MSE overflows; ``-inf``
        where the MSE is exactly zero, e.g. ``q = k = 0``).

    Returns
    -------
    float or ndarray
        The MSE (or ``log MSE``) per σ, with the shape of ``sigma``.

    Examples
    --------
    >>> q = [1.0, 0.0]; k = [0.5, 0.5]
    >>> bool(np.isclose(mse(q, k, D=1, sigma=1.0), moments(q, k, 1.0)[1]))   # unbiased at σ = 1
    True
    """
    out = _core.rff.mse(q=q, k=k, D=D, sigma=sigma, estimator=estimator, convention=convention, log=bool(log))
    return scalar_or_array(out, sigma)


@shared
def estimate(
    q: ArrayLike,
    k: ArrayLike,
    D: int,
    sigma: float = 1.0,
    estimator: Estimator = "trig",
    convention: Convention = "conjugate",
    *,
    mode: Mode = "projected",
    orthogonal: bool = False,
    trials: int = 1,
    seed: int = 0,
    nthreads: int | None = None,
) -> FloatArray:
    """Monte-Carlo estimates of ``exp(q·k)``, one per trial.

    Parameters
    ----------
    q, k : array_like, shape (d,)
    {D}
    {sigma}
    {estimator_convention}
    mode : {"projected", "full"}
        ``"projected"`` uses the exact distributional shortcut ``ω·u ~ N(0, σ²‖u‖²)`` (one scalar
        normal per feature, a 2-D Gaussian for the random-phase estimator); ``"full"`` draws the
        d-dimensional ``ω`` (the frequencies of trial ``t`` are ``sample_omega(D, d, sigma, index=t,
        seed=seed)``).
    orthogonal : bool
        Orthogonal random features: blocks of d mutually orthogonal rows with independent χ_d
        norms. In full mode the rows come from a QR of a Gaussian matrix (``sample_omega``); in
        projected mode the projections of a block onto the pair's plane are drawn directly in
        O(d) per block — the image of a fixed unit vector under a Haar rotation is a uniform point
        z/‖z‖ of the sphere — with the same distribution (see ``rff.hpp``).
    trials : int
        Number of independent estimates.
    seed : int
        Any integer in ``[0, 2**64)``. Trial ``t`` uses only the random numbers addressed by
        ``(seed, t)``, so results are bit-identical for every ``nthreads`` and across calls.
    {nthreads}

    Returns
    -------
    ndarray, shape (trials,)

    Notes
    -----
    Memory does not grow with ``trials`` beyond the output; the GIL is released and Ctrl-C
    interrupts the computation. The hot loops are vectorised (see :mod:`ropelab.simd`); results
    are bit-identical for every ``nthreads`` and on the AVX2 and AVX-512 paths.

    Examples
    --------
    >>> est = estimate([1.0, 0.0], [0.5, 0.0], D=256, trials=2000, seed=1)
    >>> bool(abs(est.mean() - np.exp(0.5)) < 5 * est.std() / np.sqrt(2000))
    True
    """
    return np.asarray(
        _core.rff.estimate(
            q=q,
            k=k,
            D=D,
            sigma=sigma,
            estimator=estimator,
            convention=convention,
            mode=mode,
            orthogonal=bool(orthogonal),
            trials=trials,
            seed=seed,
            nthreads=nthreads,
        )
    )


@shared
def sample_omega(
    D: int,
    d: int,
    sigma: float = 1.0,
    *,
    orthogonal: bool = False,
    index: int = 0,
    seed: int = 0,
) -> FloatArray:
    """Random frequencies ``ω`` (rows ~ ``N(0, σ² I_d)``), exactly those of full-mode trial ``index``.

    Parameters
    ----------
    D, d : int
        Number of rows (features) and dimension.
    {sigma}
    orthogonal : bool
        Blocks of ``d`` mutually orthogonal rows (a Haar-random rotation) with independent χ_d
        lengths, the last block truncated (orthogonal random features).
    index : int
        The Monte-Carlo unit (trial) whose frequencies to return.
    {rff_seed}

    Returns
    -------
    ndarray, shape (D, d)

    Examples
    --------
    >>> w = sample_omega(4, 4, orthogonal=True, seed=3)
    >>> g = w @ w.T
    >>> bool(np.allclose(g - np.diag(np.diag(g)), 0))
    True
    """
    return np.asarray(
        _core.rff.sample_omega(D=D, d=d, sigma=sigma, orthogonal=bool(orthogonal), index=index, seed=seed)
    )


@shared
def sample_phase(D: int, *, index: int = 0, seed: int = 0) -> FloatArray:
    """Random phases ``β ∈ [0, 2π)`` of the random-phase estimator for trial ``index``.

    Parameters
    ----------
    D : int
        Number of features.
    index : int
        The Monte-Carlo unit (trial) whose phases to return.
    {rff_seed}

    Returns
    -------
    ndarray, shape (D,)
        The phases, exactly those the random-phase estimator uses in trial ``index``.

    Examples
    --------
    >>> b = sample_phase(5, seed=1)
    >>> bool(((b >= 0) & (b < 2 * np.pi)).all())
    True
    """
    return np.asarray(_core.rff.sample_phase(D=D, index=index, seed=seed))


def feature_map(
    X: ArrayLike, omega: ArrayLike, estimator: Estimator = "trig", phase: ArrayLike | None = None
) -> FloatArray:
    r"""Real random-feature map of the rows of ``X``.

    .. list-table::
       :header-rows: 1

       * - estimator
         - feature vector of ``x``
         - width F
       * - ``trig``
         - :math:`e^{\|x\|^2/2} / \sqrt{D}\, [\cos(\omega\cdot x) \mid \sin(\omega\cdot x)]`
         - ``2D``
       * - ``random_phase``
         - :math:`e^{\|x\|^2/2} \sqrt{2/D} \cos(\omega\cdot x + \beta)`
         - ``D``
       * - ``positive``
         - :math:`e^{\omega\cdot x - \|x\|^2/2} / \sqrt{D}`
         - ``D``

    The dot product of two rows is the D-feature estimate of ``exp(q·k)`` (for ``trig``, the
    conjugate convention; the literal one is the cos-block dot product minus the sin-block one).

    Parameters
    ----------
    X : array_like, shape (n, d)
    omega : array_like, shape (D, d)
    estimator : str
    phase : array_like, shape (D,), optional
        Required for ``random_phase`` (see :func:`sample_phase`), not allowed otherwise.

    Returns
    -------
    ndarray, shape (n, F)

    Examples
    --------
    >>> w = sample_omega(512, 2, seed=0)
    >>> f = feature_map([[1.0, 0.0], [0.5, 0.0]], w)
    >>> f.shape
    (2, 1024)
    """
    return np.asarray(_core.rff.feature_map(X=X, omega=omega, estimator=estimator, phase=phase))
