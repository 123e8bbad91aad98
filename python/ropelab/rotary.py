r"""Rotations of channel pairs: RoPE, Selective RoPE angles and RoFormer's decay bound.

Sources: RoFormer §3.2–§3.4 (Eqs. (14)–(16), (34)–(37)); Selective RoPE Eqs. (5)–(7), (13), App. A.1.

``R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]]`` acts on a channel pair. Two pair layouts exist:

* ``"interleaved"`` pairs channels ``(2i, 2i+1)`` (RoFormer, the paper's Fig. 9);
* ``"half"`` pairs channels ``(i, i + d/2)`` (GPT-NeoX, the authors' released code).

They agree up to the channel permutation returned by :func:`layout_permutation`. RoPE uses the
angles ``m θ_i`` with :math:`\theta_i = \mathrm{base}^{-2i/d}`; Selective RoPE uses the cumulative angles
:math:`\psi_t = \Theta \odot \sum_{\kappa\le t} \omega_\kappa` of input-dependent per-step angles ``ω_t``.

Every function takes NumPy arrays with any leading batch dimensions and keeps them. Computation
happens in the compiled core (``ropelab._core.rotary``).
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from ropelab._core_loader import core as _core
from ropelab._docstrings import shared
from ropelab._types import ArrayInput, ArrayLike, ComplexArray, FloatArray, FloatOrArray, Layout, RealArray
from ropelab._validation import _PIECE, as_float64, check_output_size, scalar_or_array

__all__ = [
    "frequencies",
    "rope_angles",
    "rotate",
    "layout_permutation",
    "cumulative_angles",
    "short_conv",
    "selective_angles",
    "decay_bound",
    "rotation_matrix",
    "realify",
    "complexify",
    "realify_diagonal",
    "parity_angle_error",
]

Accumulate = Literal["float64", "float32", "wrapped"]


@shared
def frequencies(d: int, base: float = 10000.0) -> FloatArray:
    r"""RoPE frequencies :math:`\theta_i = \mathrm{base}^{-2i/d}` for ``i = 0 … d/2 − 1``.

    Parameters
    ----------
    {rotary_d}
    base : float
        Wavelength base (> 0); 10000 in RoFormer.

    Returns
    -------
    ndarray, shape (d/2,)

    Examples
    --------
    >>> frequencies(4, base=100.0)
    array([1. , 0.1])
    """
    return np.asarray(_core.rotary.frequencies(d=d, base=base))


@shared
def rope_angles(positions: ArrayLike, d: int, base: float = 10000.0, scale: float = 1.0) -> FloatArray:
    """RoPE angles ``scale · m · θ_i`` for each position ``m``.

    Parameters
    ----------
    positions : array_like
        Positions ``m`` (any shape, real, finite).
    {d}
    base : float
        Wavelength base.
    scale : float
        Position interpolation factor ``L/L'`` (> 0): a model trained on context length ``L`` and
        run on ``L' > L`` positions squeezes them back into the trained range. 1 means plain RoPE.

    Returns
    -------
    ndarray, shape positions.shape + (d/2,)

    Examples
    --------
    >>> rope_angles([0, 1, 2], d=2)
    array([[0.],
           [1.],
           [2.]])
    >>> rope_angles([4096], d=2, scale=2048 / 4096)   # interpolation: position 4096 acts like 2048
    array([[2048.]])
    """
    return np.asarray(_core.rotary.rope_angles(positions=positions, d=d, base=base, scale=scale))


def rotate(
    x: ArrayLike, angles: ArrayLike, layout: Layout = "interleaved", *, nthreads: int | None = None
) -> RealArray:
    """Rotate channel pair ``i`` of ``x`` by ``angles[..., i]``: ``x ↦ blockdiag R(angles) x``.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Vectors to rotate (d even). The dtype rule of :mod:`ropelab.attention`: a float32 array
        gives float32 (the angles' cos/sin and the products in float64, each output rounded once
        to float32); anything else real is computed and returned in float64.
    angles : array_like, shape (..., d/2)
        Rotation angles in radians. Their leading dimensions must equal the trailing leading
        dimensions of ``x`` (or be absent): ``angles`` of shape ``(T, d/2)`` rotate every
        ``x[b, h, t]`` of an ``x`` of shape ``(B, H, T, d)`` by ``angles[t]``.
    layout : {"interleaved", "half"}
        Which channels form a pair (see the module docstring).
    nthreads : int or None
        Threads for large inputs (``None``: all cores); the result does not depend on it.

    Returns
    -------
    ndarray, shape x.shape, dtype float32 or float64
        float32 for a float32 ``x``: each output within half a float32 ulp of itself plus
        ``2⁻⁵²(|x_a| + |x_b|)`` of the exact rotation of its pair ``(x_a, x_b)``; float64 otherwise.

    Examples
    --------
    >>> rotate([1.0, 0.0], [np.pi / 2]).round(12)
    array([0., 1.])
    >>> q = np.array([1.0, 2.0, 3.0, 4.0])
    >>> bool(np.isclose(np.linalg.norm(rotate(q, [0.3, 1.1], layout="half")), np.linalg.norm(q)))
    True
    """
    return np.asarray(_core.rotary.rotate(x=x, angles=angles, layout=layout, nthreads=nthreads))


@shared
def layout_permutation(d: int) -> npt.NDArray[np.intp]:
    """Channel order taking the interleaved layout to the half layout.

    ``x[..., layout_permutation(d)]`` moves interleaved pair ``(2i, 2i+1)`` to half pair
    ``(i, i + d/2)``, so ``rotate(x, a, "interleaved")[..., p] == rotate(x[..., p], a, "half")``.

    Parameters
    ----------
    {rotary_d}

    Returns
    -------
    ndarray of intp, shape (d,)
        The permutation ``[0, 2, …, d−2, 1, 3, …, d−1]``.

    Raises
    ------
    ValueError
        If ``d`` is not an even integer ≥ 2.

    Examples
    --------
    >>> layout_permutation(6)
    array([0, 2, 4, 1, 3, 5])
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2 or d % 2:
        raise ValueError(f"layout_permutation: d must be an even integer >= 2, got {d!r}")
    check_output_size("layout_permutation", int(d))  # np.arange(0, 2**64, 2) would be empty
    perm: npt.NDArray[np.intp] = np.concatenate([np.arange(0, d, 2), np.arange(1, d, 2)]).astype(np.intp)
    return perm


def cumulative_angles(omega: ArrayLike, theta: ArrayLike = 1.0, *, accumulate: Accumulate = "float64") -> FloatArray:
    r"""Selective RoPE angles :math:`\psi_t = \Theta \odot \sum_{\kappa\le t} \omega_\kappa`.

    Parameters
    ----------
    omega : array_like, shape (..., T, d/2)
        Per-step angles ``ω_t`` (any real values).
    theta : float or array_like, shape (d/2,)
        Per-pair scale ``Θ`` (e.g. a temperature spectrum, :func:`ropelab.temperature.spectrum`).
    accumulate : {"float64", "float32", "wrapped"}
        Running sum in double, in single precision (what a float32 model computes; the result
        is returned as float64), or in double reduced to ``[−π, π)`` after every step.

    Returns
    -------
    ndarray, shape omega.shape

    Examples
    --------
    >>> cumulative_angles([[1.0], [2.0], [3.0]], theta=0.5)
    array([[0.5],
           [1.5],
           [3. ]])
    """
    return np.asarray(_core.rotary.cumulative_angles(omega=omega, theta=theta, accumulate=accumulate))


def short_conv(x: ArrayLike, kernel: ArrayLike, activation: Literal["silu"] | None = None) -> FloatArray:
    r"""Causal depthwise short convolution (the one Selective RoPE uses to produce angles).

    :math:`y[t, c] = \sum_{j<K} \mathrm{kernel}[j, c] \cdot x[t - (K-1) + j, c]` with zeros before ``t = 0``, i.e.
    PyTorch's ``Conv1d(groups=channels, padding=K−1)`` truncated to the first T outputs, followed
    by ``SiLU(y) = y·sigmoid(y)`` if ``activation="silu"``.

    Parameters
    ----------
    x : array_like, shape (..., T, channels)
    kernel : array_like, shape (K,) or (K, channels)
        One kernel shared by all channels, or one per channel. The last tap multiplies ``x[t]``.
    activation : {None, "silu"}

    Returns
    -------
    ndarray, shape x.shape

    Examples
    --------
    >>> short_conv([[1.0], [0.0], [0.0]], kernel=[0.5, 1.0])   # impulse response, reversed kernel
    array([[1. ],
           [0.5],
           [0. ]])
    """
    return np.asarray(_core.rotary.short_conv(x=x, kernel=kernel, activation=activation))


def selective_angles(
    x: ArrayLike,
    kernel: ArrayLike,
    theta: ArrayLike = 1.0,
    activation: Literal["silu"] | None = None,
    *,
    gates: ArrayLike | None = None,
    accumulate: Accumulate = "float64",
    bias: ArrayLike | None = None,
) -> FloatArray:
    r"""The temperature-scaled Selective RoPE angle path:
    :math:`\psi = \Theta \odot \operatorname{cumsum}_t(g_t \odot (\operatorname{conv}(x)_t + e^{b}))`.

    ``x`` is the angle projection ``W_ω x_t`` (shape ``(..., T, d/2)``), ``kernel`` the causal
    short convolution (see :func:`short_conv`), ``theta`` the temperature spectrum ``Θ``.
    The optional learnable ``bias`` ``b`` and phase gates ``gates`` (``g_t``) act in the order of the
    authors' released code: the increment ``conv(x)_t`` (after the activation) gets :math:`e^{b}`
    added, then is multiplied by the gate, then accumulated (Selective RoPE §4.1).

    Parameters
    ----------
    x : array_like, shape (..., T, d/2)
        The angle projection, one row per step.
    kernel : array_like, shape (K,) or (K, d/2)
        Taps of the causal short convolution (see :func:`short_conv`).
    theta : float or array_like, shape (d/2,)
        Per-pair scale ``Θ``.
    activation : {None, "silu"}
        Activation after the convolution.
    gates : array_like, optional
        Phase gate values in ``[0, 1]`` (e.g. a sigmoid), broadcastable to ``x``: shape
        ``(..., T, 1)`` (one per step) or ``(..., T, d/2)``.
    accumulate : {"float64", "float32", "wrapped"}
        Arithmetic of the running sum (see :func:`cumulative_angles`).
    bias : array_like, shape (d/2,), optional
        Per-pair bias ``b``; the increment gets :math:`e^{b}` added (a positive drift).

    Returns
    -------
    ndarray, shape x.shape
        The angles ``ψ_t``.

    Raises
    ------
    ValueError
        For a bias or gates of the wrong shape or with values out of range (and the errors of
        :func:`short_conv` and :func:`cumulative_angles`).
    TypeError
        For gates that are not a real array (complex, strings).

    Examples
    --------
    >>> selective_angles([[1.0], [1.0]], kernel=[1.0], theta=2.0)
    array([[2.],
           [4.]])
    >>> selective_angles([[0.0], [0.0], [0.0]], kernel=[1.0], bias=[0.0], gates=[[0.5]])  # constant steps
    array([[0.5],
           [1. ],
           [1.5]])
    """
    if bias is None and gates is None:
        return np.asarray(
            _core.rotary.selective_angles(x=x, kernel=kernel, theta=theta, activation=activation, accumulate=accumulate)
        )
    y = short_conv(x, kernel, activation)  # a new array: the bias and the gate are applied in place
    # Both are applied to blocks of steps of about 2^20 values, so that Ctrl-C is answered between
    # blocks (Python checks for signals between two NumPy calls, never inside one).
    steps = max(1, _PIECE // max(1, y.size // max(1, y.shape[-2]))) if y.ndim >= 2 else 1
    if bias is not None:
        b = np.asarray(bias, dtype=float)
        if b.ndim != 1 or b.shape[0] != y.shape[-1] or not np.all(np.isfinite(b)):
            raise ValueError(f"selective_angles: bias must be a finite array of shape ({y.shape[-1]},), got {bias!r}")
        e = np.exp(b)
        for t in range(0, y.shape[-2], steps):
            y[..., t : t + steps, :] += e
    if gates is not None:
        g0 = np.asarray(gates)
        if g0.dtype.kind not in "biuf":
            raise TypeError(f"selective_angles: gates must be a real array, got dtype {g0.dtype}: {gates!r}")
        g = as_float64(g0)
        flat = g.reshape(-1)
        for i in range(0, flat.size, _PIECE):
            piece = flat[i : i + _PIECE]
            if not (np.all(np.isfinite(piece)) and np.all(piece >= 0) and np.all(piece <= 1)):
                raise ValueError(f"selective_angles: gates must hold finite values in [0, 1], got {gates!r}")
        try:
            fits = np.broadcast_shapes(g.shape, y.shape) == y.shape
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"selective_angles: gates of shape {g.shape} does not broadcast to x of shape {y.shape}")
        gb = np.broadcast_to(g, y.shape)  # a view
        for t in range(0, y.shape[-2], steps):
            y[..., t : t + steps, :] *= gb[..., t : t + steps, :]
    return cumulative_angles(y, theta, accumulate=accumulate)


@overload
def decay_bound(r: float, d: int = 128, base: float = 10000.0) -> float: ...
@overload
def decay_bound(r: ArrayInput, d: int = 128, base: float = 10000.0) -> FloatArray: ...
@overload
def decay_bound(r: ArrayLike, d: int = 128, base: float = 10000.0) -> FloatOrArray: ...
@shared
def decay_bound(r: ArrayLike, d: int = 128, base: float = 10000.0) -> FloatOrArray:
    r"""RoFormer's relative upper bound :math:`B(r) = (1/(d/2)) \sum_{j=1}^{d/2} |\sum_{i<j} e^{i r \theta_i}|`.

    The bound on ``|⟨R_m q, R_n k⟩|`` at relative distance ``r = n − m`` (RoFormer §3.3). It
    trends down with distance but is not monotone.

    Parameters
    ----------
    r : float or array_like
        Relative distance(s), any shape.
    {d}
    base : float

    Returns
    -------
    float or ndarray of r's shape

    Examples
    --------
    >>> decay_bound(0, d=128)
    32.5
    >>> bool(decay_bound(100) < decay_bound(0))
    True
    """
    return scalar_or_array(np.asarray(_core.rotary.decay_bound(r=r, d=d, base=base)), r)


@shared
def rotation_matrix(angles: ArrayLike, layout: Layout = "interleaved") -> FloatArray:
    """Dense ``d × d`` matrix ``blockdiag R(angles)`` (in ``layout``'s channel pairing).

    Parameters
    ----------
    angles : array_like, shape (..., d/2)
        Rotation angle of each pair, in radians.
    {rotary_layout}

    Returns
    -------
    ndarray, shape (..., d, d)

    Examples
    --------
    >>> rotation_matrix([np.pi / 2]).round(12)
    array([[ 0., -1.],
           [ 1.,  0.]])
    """
    return np.asarray(_core.rotary.rotation_matrix(angles=angles, layout=layout))


def realify(z: ArrayLike, layout: Layout = "interleaved") -> FloatArray:
    r"""Complex ``(..., d/2)`` → real ``(..., d)``: pair ``i`` holds ``(Re z_i, Im z_i)``.

    With ``q̃ = q₁ + i q₂`` (App. A.1),
    :math:`\operatorname{Re}\{\overline{\tilde{k}}\, e^{i\theta} \tilde{q}\} = k^\top R(\theta) q`.

    Parameters
    ----------
    z : array_like, shape (..., d/2)
        Complex values, one per channel pair.
    layout : {"interleaved", "half"}
        Where pair ``i`` lives: channels ``(2i, 2i+1)`` or ``(i, i + d/2)``.

    Returns
    -------
    ndarray, shape (..., d)
        The real vectors.

    Examples
    --------
    >>> realify([1 + 2j, 3 - 1j])
    array([ 1.,  2.,  3., -1.])
    """
    return np.asarray(_core.rotary.realify(z=z, layout=layout))


@shared
def complexify(x: ArrayLike, layout: Layout = "interleaved") -> ComplexArray:
    """The inverse of :func:`realify`: real ``(..., d)`` → complex ``(..., d/2)``.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Real vectors (d even).
    {rotary_layout}

    Returns
    -------
    ndarray of complex128, shape (..., d/2)
        ``x[pair i, first] + 1j · x[pair i, second]``.

    Examples
    --------
    >>> complexify([1.0, 2.0, 3.0, -1.0], layout="half")
    array([1.+3.j, 2.-1.j])
    """
    return np.asarray(_core.rotary.complexify(x=x, layout=layout))


@shared
def realify_diagonal(lam: ArrayLike, layout: Layout = "interleaved") -> FloatArray:
    """Real ``d × d`` matrix of the complex diagonal recurrence ``h ↦ λ ⊙ h``.

    Pair ``i`` gets the block ``|λ_i| R(arg λ_i)``, so
    ``realify(lam * z) == realify_diagonal(lam) @ realify(z)``.

    Parameters
    ----------
    lam : array_like, shape (d/2,)
        The complex diagonal ``λ``.
    {rotary_layout}

    Returns
    -------
    ndarray, shape (d, d)
        The block-diagonal real matrix.

    Examples
    --------
    >>> realify_diagonal([0.5j])
    array([[ 0. , -0.5],
           [ 0.5,  0. ]])
    """
    return np.asarray(_core.rotary.realify_diagonal(lam=lam, layout=layout))


def parity_angle_error(bits: ArrayLike, accumulate: Accumulate = "float64") -> FloatArray:
    r"""Angle error of the parity example ``ω_t = π b_t`` (``Θ = 1``) as the sequence grows.

    Exactly, :math:`\psi_t = \pi \sum_{\kappa\le t} b_\kappa` and :math:`\cos \psi_t = (-1)^{\sum b}`. The returned
    error is ``ψ_t − π Σ b`` reduced to ``[−π, π)``, where ``ψ_t`` is accumulated in float64, float32 or wrapped (mod
    2π) arithmetic; the reference is evaluated in double-double so the error is that of the accumulation.
    ``|error| > π/2`` means the sign of ``cos ψ_t`` — the parity — is wrong.

    Parameters
    ----------
    bits : array_like of 0/1, shape (..., T)
        One bit string per leading index (each accumulated independently).
    accumulate : {"float64", "float32", "wrapped"}

    Returns
    -------
    ndarray, shape bits.shape

    Examples
    --------
    >>> bits = np.random.default_rng(0).integers(0, 2, 1000)
    >>> bool(np.abs(parity_angle_error(bits, "wrapped")).max() < 1e-12)
    True
    """
    return np.asarray(_core.rotary.parity_angle_error(bits=bits, accumulate=accumulate))
