r"""Effective transition matrices, commutators, norms and Householder reflections (Selective RoPE §3.3, App. A.5).

Gated Selective RoPE in pre-rotated coordinates, :math:`\hat{S}_t = \hat{S}_{t-1} \Lambda_t + v_t (C_t k_t)^\top`, is
the linear-attention recurrence :math:`S_t = S_{t-1} A^{\mathrm{eff}}_t + v_t k_t^\top` with ``S_t = Ŝ_t C_t`` and

    :math:`A^{\mathrm{eff}}_t = C_{t-1}^\top \Lambda_t C_t`.

It equals ``Λ_t R_t`` (:math:`R_t = C_{t-1}^\top C_t`) exactly when ``Λ_t`` commutes with :math:`C_{t-1}` —
e.g. one decay shared by both channels of each pair — and always has ``‖A^eff‖₂ = ‖Λ_t‖₂``.
The computation runs in the compiled core (``ropelab._core.transition``, Eigen).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

from ropelab import _validation
from ropelab._core_loader import core as _core
from ropelab._display import ResultDisplay, document_fields
from ropelab._docstrings import shared
from ropelab._types import ArrayLike, FloatArray, FloatOrArray, Layout

__all__ = [
    "effective",
    "effective_sequence",
    "commutator_norm",
    "singular_values",
    "spectral_norm",
    "eigenvalues",
    "householder",
    "householder_product",
    "generalized_householder",
    "prf_transition_factor",
    "prf_factor_distribution",
    "FactorDistribution",
]


def effective(
    angles_prev: ArrayLike, angles: ArrayLike, gates: ArrayLike | None = None, layout: Layout = "interleaved"
) -> FloatArray:
    r"""Effective transition :math:`A^{\mathrm{eff}} = C_{t-1}^\top \Lambda_t C_t` of gated Selective RoPE.

    Parameters
    ----------
    angles_prev, angles : array_like, shape (..., d/2)
        Cumulative rotation angles :math:`\psi_{t-1}` and ``ψ_t`` (same shape; leading dimensions are a
        batch).
    gates : float or array_like, optional
        Diagonal of ``Λ_t`` (decays in ``[0, 1]``): a scalar, shape ``(..., 1)``, ``(..., d/2)``
        (shared within each pair) or ``(..., d)`` (per channel, in channel order); its leading
        dimensions must equal the trailing batch dimensions of the angles (or be absent).
        ``None`` means ``Λ_t = I`` (then ``A^eff = R_t``, a rotation by :math:`\psi_t - \psi_{t-1}`).
    layout : {"interleaved", "half"}

    Returns
    -------
    ndarray, shape (..., d, d)

    Examples
    --------
    >>> A = effective([0.3], [0.8], gates=[0.9])         # pair-shared gate: Λ R(0.5)
    >>> from ropelab.rotary import rotation_matrix
    >>> bool(np.allclose(A, 0.9 * rotation_matrix([0.5])))
    True
    >>> B = effective([0.3], [0.8], gates=[0.9, 0.5])    # per-channel gates: not Λ R
    >>> bool(np.allclose(B, np.diag([0.9, 0.5]) @ rotation_matrix([0.5])))
    False
    """
    return np.asarray(_core.transition.effective(angles_prev=angles_prev, angles=angles, gates=gates, layout=layout))


@shared
def effective_sequence(angles: ArrayLike, gates: ArrayLike | None = None, layout: Layout = "interleaved") -> FloatArray:
    r"""``A^eff_t`` for every step (:math:`\psi_{-1} = 0`).

    These are the transitions with which :func:`ropelab.recurrence.linear_attention` reproduces
    :func:`ropelab.recurrence.selective_rope_attention`.

    Parameters
    ----------
    angles : array_like, shape (T, d/2)
        Cumulative rotation angles ``ψ_t``.
    gates : array_like, shape (T, 1), (T, d/2) or (T, d), optional
    {rotary_layout}

    Returns
    -------
    ndarray, shape (T, d, d)

    Examples
    --------
    >>> effective_sequence([[0.0], [0.0]]).shape
    (2, 2, 2)
    """
    return np.asarray(_core.transition.effective_sequence(angles=angles, gates=gates, layout=layout))


def commutator_norm(
    angles_prev: ArrayLike, gates: ArrayLike, layout: Layout = "interleaved", norm: Literal["2", "fro"] = "2"
) -> FloatOrArray:
    r"""Norm of the commutator :math:`[\Lambda_t, C_{t-1}] = \Lambda_t C_{t-1} - C_{t-1} \Lambda_t`.

    Zero exactly when ``A^eff = Λ_t R_t``. For one pair with decays ``(λ_a, λ_b)`` at phase ``ψ``
    it is ``|λ_a − λ_b| |sin ψ|`` (spectral norm).

    Parameters
    ----------
    angles_prev : array_like, shape (..., d/2)
        The rotation angles :math:`\psi_{t-1}` of :math:`C_{t-1}`.
    gates : float or array_like, shape (..., 1), (..., d/2) or (..., d)
        As in :func:`effective`.
    layout : {"interleaved", "half"}
    norm : {"2", "fro"}
        Spectral or Frobenius norm.

    Returns
    -------
    float, or ndarray of the leading shape of ``angles_prev``

    Examples
    --------
    >>> commutator_norm([0.7], [0.8, 0.8])
    0.0
    >>> round(commutator_norm([np.pi / 2], [1.0, 0.5]), 12)
    0.5
    """
    out = np.asarray(_core.transition.commutator_norm(angles_prev=angles_prev, gates=gates, layout=layout, norm=norm))
    return float(out) if out.ndim == 0 else out


@shared
def singular_values(A: ArrayLike) -> FloatArray:
    """Singular values (decreasing) of each matrix in ``A`` (shape ``(..., m, n)``).

    Computed by Eigen's Jacobi SVD.

    Parameters
    ----------
    {A}

    Returns
    -------
    ndarray, shape (..., min(m, n))
        The singular values of each matrix, largest first.

    Examples
    --------
    >>> singular_values(np.diag([1.0, 3.0, 2.0]))
    array([3., 2., 1.])
    """
    return np.asarray(_core.transition.singular_values(A=A))


@shared
def spectral_norm(A: ArrayLike) -> FloatOrArray:
    """``‖A‖₂`` (largest singular value) of each matrix in ``A`` (shape ``(..., m, n)``).

    Returns a float for a single matrix, else an array of the batch shape.

    Parameters
    ----------
    {A}

    Returns
    -------
    float or ndarray
        ``‖A‖₂``; a float for one matrix, else an array of the batch shape ``A.shape[:-2]``.

    Examples
    --------
    >>> spectral_norm([[0.0, 2.0], [-1.0, 0.0]])
    2.0
    """
    out = np.asarray(_core.transition.spectral_norm(A=A))
    return float(out) if out.ndim == 0 else out


def eigenvalues(A: ArrayLike) -> npt.NDArray[np.complex128]:
    """Eigenvalues of each square matrix in ``A`` (shape ``(..., n, n)``).

    Sorted by decreasing modulus, then by argument (Eigen's real-Schur eigen-solver).

    Parameters
    ----------
    A : array_like, shape (..., n, n)
        A square matrix or a batch of them.

    Returns
    -------
    ndarray of complex128, shape (..., n)
        The eigenvalues of each matrix.

    Examples
    --------
    >>> eigenvalues([[0.0, -1.0], [1.0, 0.0]])
    array([0.-1.j, 0.+1.j])
    """
    return np.asarray(_core.transition.eigenvalues(A=A))


def householder(w: ArrayLike) -> FloatArray:
    """Householder reflection ``H(w) = I − 2wwᵀ/‖w‖²`` (``w ≠ 0``), one per vector of ``w``.

    A ``w`` of shape ``(..., d)`` gives ``(..., d, d)``.

    Parameters
    ----------
    w : array_like, shape (..., d)
        Non-zero normal vectors of the reflecting hyperplanes.

    Returns
    -------
    ndarray, shape (..., d, d)
        The reflections.

    Examples
    --------
    >>> householder([1.0, 0.0])
    array([[-1.,  0.],
           [ 0.,  1.]])
    """
    return np.asarray(_core.transition.householder(w=w))


def householder_product(W: ArrayLike) -> FloatArray:
    r""":math:`H(w_{m-1}) \cdots H(w_1) H(w_0)` for the rows of ``W`` (shape ``(..., m, d)`` → ``(..., d, d)``).

    Two reflections compose into a rotation by twice the angle between ``w_0`` and ``w_1``, in
    their plane.

    Parameters
    ----------
    W : array_like, shape (..., m, d)
        The non-zero vectors :math:`w_0 \ldots w_{m-1}`, one per row.

    Returns
    -------
    ndarray, shape (..., d, d)
        The product, ``H(w_0)`` applied first.

    Examples
    --------
    >>> P = householder_product([[1.0, 0.0], [np.cos(0.2), np.sin(0.2)]])
    >>> from ropelab.rotary import rotation_matrix
    >>> bool(np.allclose(P, rotation_matrix([0.4])))
    True
    """
    return np.asarray(_core.transition.householder_product(W=W))


def generalized_householder(w: ArrayLike, beta: float) -> FloatArray:
    """``I − β ŵŵᵀ`` with ``ŵ = w/‖w‖`` (the DeltaNet-style transition).

    A ``w`` of shape ``(..., d)`` gives ``(..., d, d)``.

    Its eigenvalue along ``ŵ`` is ``1 − β``: the norm is ≤ 1 iff ``β ∈ [0, 2]`` and the matrix is
    orthogonal (norm-preserving) iff ``β ∈ {0, 2}``.

    Parameters
    ----------
    w : array_like, shape (..., d)
        Non-zero direction vectors (normalised internally).
    beta : float
        The strength ``β``.

    Returns
    -------
    ndarray, shape (..., d, d)
        The matrices ``I − β ŵŵᵀ``.

    Examples
    --------
    >>> G = generalized_householder([0.0, 1.0], 0.5)
    >>> G
    array([[1. , 0. ],
           [0. , 0.5]])
    """
    return np.asarray(_core.transition.generalized_householder(w=w, beta=beta))


def prf_transition_factor(q: ArrayLike, omega: ArrayLike) -> FloatArray:
    r"""PRF transition factors :math:`\exp(\omega_j\cdot(q_t - q_{t-1}))` for ``t = 1 … T−1``.

    Unlike a rotation, the positive-random-feature factor is not bounded by 1 (see
    :func:`prf_factor_distribution`).

    Parameters
    ----------
    q : array_like, shape (..., T, d)
    omega : array_like, shape (D, d)

    Returns
    -------
    ndarray, shape (..., T−1, D)

    Raises
    ------
    ValueError
        For mismatched shapes, non-finite input, or a factor that overflows double precision
        (:math:`\omega_j \cdot (q_t - q_{t-1}) > \log(\mathrm{DBL\_MAX}) \approx 709.78`: ``q`` or
        ``omega`` too large).

    Examples
    --------
    >>> prf_transition_factor([[0.0], [1.0]], [[np.log(2.0)]])
    array([[2.]])
    """
    out = np.asarray(_core.transition.prf_transition_factor(q=q, omega=omega))
    if not _validation.all_finite(np.ascontiguousarray(out)):
        # the inputs are finite (checked by the core): the exponent or the difference overflowed
        i = np.unravel_index(int(np.flatnonzero(~np.isfinite(out.reshape(-1)))[0]), out.shape)
        raise ValueError(
            f"transition.prf_transition_factor: q and omega: the factor exp(omega_j·(q_t − q_(t−1))) at index "
            f"{tuple(int(j) for j in i)} overflows double precision (its exponent exceeds log(DBL_MAX) ≈ 709.78); "
            "scale q or omega down"
        )
    return out


@document_fields
class FactorDistribution(ResultDisplay, _core.transition.FactorDistribution):
    r"""Log-normal law of :math:`e^{\omega\cdot\Delta}`, ``ω ~ N(0, σ² I)``, ``s = σ‖Δ‖``.

    The fields are read-only and are those of the compiled result, in the order of ``_fields``.
    Instances compare equal when every field is equal (as dataclasses do), hash, pickle, and can
    be built from every field by name.
    """

    __slots__ = ()


def prf_factor_distribution(delta_norm: float, sigma: float = 1.0) -> FactorDistribution:
    r"""Distribution of the PRF transition factor for a step of length ``delta_norm`` :math:`= \|q_t - q_{t-1}\|`.

    Parameters
    ----------
    delta_norm : float
        The step length :math:`\|q_t - q_{t-1}\|` (≥ 0).
    sigma : float
        Temperature σ ≥ 0 of the frequencies.

    Returns
    -------
    FactorDistribution
        Mean, variance, median and ``P(factor > 1)``.

    Examples
    --------
    >>> f = prf_factor_distribution(1.0)
    >>> round(f.mean, 6), f.prob_gt_one
    (1.648721, 0.5)
    """
    return FactorDistribution(_core.transition.prf_factor_distribution(delta_norm=delta_norm, sigma=sigma))
