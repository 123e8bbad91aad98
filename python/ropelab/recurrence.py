r"""Linear-attention recurrences and their direct (unrolled) forms.

Sources: Selective RoPE Eqs. (3), (9), (11), (13) and App. A.2, A.6, A.7.

Notation: :math:`q_t, k_t \in \mathbb{R}^d`, :math:`v_t \in \mathbb{R}^{d_v}`, ``t = 0 … T−1``, state
:math:`S_t \in \mathbb{R}^{d_v \times d}`, :math:`S_{-1} = 0`. All functions take ``q, k`` of shape ``(..., T, d)`` and ``v`` of shape
``(..., T, dv)`` with any leading batch dimensions (the same for all three) and return
``(..., T, dv)`` (complex ``(..., T, D, dv)`` for :func:`rff_attention`). Per-step side inputs
(transitions, angles, gates) may omit leading batch dimensions: their leading dimensions must
equal the trailing batch dimensions of ``q``.

The computation runs in the compiled core (``ropelab._core.recurrence``) with the GIL released;
batch elements are spread over ``nthreads`` threads (results do not depend on the count).

Precision (the dtype rule of :func:`delta_rule` and :func:`delta_product`). When ``q``, ``k`` and
``v`` are all NumPy arrays of dtype float32, the recurrence runs in float32 and returns float32
(``beta``, ``angles`` and ``gates`` are rounded to float32; the cos/sin of the angles and the
rotation of ``k`` and ``q`` are computed in float64 and rounded once); any other real input
(float64, integers, a mix of float32 and float64, lists) is converted to float64, computed and
returned in float64, the default for verification. The other functions of this module compute in
float64. Every path is bit-identical for every thread count.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ropelab import _validation
from ropelab._core_loader import core as _core
from ropelab._docstrings import shared
from ropelab._types import ArrayLike, ComplexArray, FloatArray, Layout, RealArray

__all__ = [
    "linear_attention",
    "selective_rope_attention",
    "rff_attention",
    "rff_increment_product",
    "alibi_attention",
    "fox_attention",
    "cosformer_attention",
    "softmax_attention",
    "delta_rule",
    "delta_product",
    "delta_transitions",
]

Direct = Literal["direct", "recurrent"]


def _min_ndim(x: ArrayLike, ndim: int, func: str, name: str, shape: str) -> npt.NDArray[Any]:
    """``np.asarray(x)``, with ValueError naming ``name`` when it has fewer than ``ndim`` dimensions
    (before an axis is inserted for the core's DeltaProduct shapes).
    """
    a = np.asarray(x)
    if a.ndim < ndim:
        raise ValueError(
            f"{func}: {name} must have shape {shape} (at least {ndim} dimension{'s' if ndim > 1 else ''}), got shape {a.shape}"
        )
    return a


def linear_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    transitions: ArrayLike | None = None,
    mode: Literal["recurrent", "unrolled"] = "recurrent",
    product_start: Literal["tau+1", "tau"] = "tau+1",
    *,
    nthreads: int | None = None,
) -> FloatArray:
    r"""Linear attention with per-step transitions (Eq. 3).

    * ``mode="recurrent"``: :math:`S_t = S_{t-1} A_t + v_t k_t^\top`, ``o_t = S_t q_t`` (O(T d dv), or
      O(T d² dv) with transitions).
    * ``mode="unrolled"``: :math:`o_t = \sum_{\tau\le t} v_\tau k_\tau^\top (A_{\tau+1} \cdots A_t) q_t` evaluated
      directly (O(T² d²)). ``product_start="tau"`` starts the product at ``A_τ`` instead — the paper's Eq. (11) as
      printed — which disagrees with the recurrence unless every ``A_τ = I``.

    Parameters
    ----------
    q, k : array_like, shape (..., T, d)
    v : array_like, shape (..., T, dv)
    transitions : array_like, shape (..., T, d, d), optional
        ``A_t``; ``None`` means ``A_t = I`` (plain causal linear attention).
    mode : {"recurrent", "unrolled"}
    product_start : {"tau+1", "tau"}
        Only for ``mode="unrolled"``.
    nthreads : int or None

    Returns
    -------
    ndarray, shape (..., T, dv)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 5, 4))
    >>> A = 0.9 * np.eye(4) + 0.05 * rng.normal(size=(5, 4, 4))
    >>> rec = linear_attention(q, k, v, A)
    >>> bool(np.allclose(rec, linear_attention(q, k, v, A, mode="unrolled")))
    True
    >>> bool(np.allclose(rec, linear_attention(q, k, v, A, mode="unrolled", product_start="tau")))
    False
    """
    return np.asarray(
        _core.recurrence.linear_attention(
            q=q, k=k, v=v, transitions=transitions, mode=mode, product_start=product_start, nthreads=nthreads
        )
    )


def selective_rope_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    angles: ArrayLike,
    gates: ArrayLike | None = None,
    mode: Literal["prerotated", "recurrent"] = "prerotated",
    *,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
) -> FloatArray:
    r"""Gated Selective RoPE attention, pre-rotated (Eq. 13) or with rotating transitions.

    With ``C_t = blockdiag R(ψ_t)`` and diagonal gates ``Λ_t``:

    * ``mode="prerotated"``: :math:`\hat{S}_t = \hat{S}_{t-1} \Lambda_t + v_t (C_t k_t)^\top`, ``o_t = Ŝ_t C_t q_t``;
    * ``mode="recurrent"``: :math:`S_t = S_{t-1} A^{\mathrm{eff}}_t + v_t k_t^\top`, ``o_t = S_t q_t`` with
      :math:`A^{\mathrm{eff}}_t = C_{t-1}^\top \Lambda_t C_t` (:math:`C_{-1} = I`; see
      :func:`ropelab.transition.effective`).

    Both cost O(T d dv) and agree because ``S_t = Ŝ_t C_t``.

    Parameters
    ----------
    q, k : array_like, shape (..., T, d)
        d even.
    v : array_like, shape (..., T, dv)
    angles : array_like, shape (..., T, d/2)
        Cumulative rotation angles ``ψ_t`` (see :func:`ropelab.rotary.cumulative_angles`).
    gates : array_like, optional
        Decays in ``[0, 1]``: shape ``(..., T, 1)`` (one per step), ``(..., T, d/2)`` (shared by
        the two channels of each pair: commutes with the rotation) or ``(..., T, d)`` (one per
        channel, in channel order).
    mode : {"prerotated", "recurrent"}
    layout : {"interleaved", "half"}
    nthreads : int or None

    Returns
    -------
    ndarray, shape (..., T, dv)

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> q, k, v = rng.normal(size=(3, 6, 4))
    >>> angles = np.cumsum(rng.normal(size=(6, 2)), axis=0)
    >>> g = rng.uniform(0.5, 1.0, size=(6, 4))
    >>> a = selective_rope_attention(q, k, v, angles, g, mode="prerotated")
    >>> b = selective_rope_attention(q, k, v, angles, g, mode="recurrent")
    >>> bool(np.allclose(a, b))
    True
    """
    return np.asarray(
        _core.recurrence.selective_rope_attention(
            q=q, k=k, v=v, angles=angles, gates=gates, mode=mode, layout=layout, nthreads=nthreads
        )
    )


@shared
def rff_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    omega: ArrayLike,
    mode: Direct = "direct",
    amplitude: bool = True,
    *,
    nthreads: int | None = None,
) -> ComplexArray:
    r"""Per-feature RFF attention states: the direct sum or the Eq. (9) recurrence.

    For each random frequency ``ω_j`` (row of ``omega``):

    * ``mode="direct"``:
      :math:`h_t = \sum_{\tau\le t} e^{(\|q_t\|^2+\|k_\tau\|^2)/2} e^{i\omega_j\cdot(q_t-k_\tau)} v_\tau`;
    * ``mode="recurrent"``: :math:`h_t = a_t e^{i\omega_j\cdot(q_t-q_{t-1})} h_{t-1}
      + e^{(\|q_t\|^2+\|k_t\|^2)/2} e^{i\omega_j\cdot(q_t-k_t)} v_t` with the amplitude factor
      :math:`a_t = e^{(\|q_t\|^2-\|q_{t-1}\|^2)/2}` (``amplitude=True``) or ``a_t = 1`` (Eq. 9 as a pure
      rotation, exact only when ``‖q_t‖`` is constant).

    ``h.real.mean(axis=-2)`` is the D-feature estimate of :math:`\sum_{\tau\le t} e^{q_t\cdot k_\tau} v_\tau` (for
    ``ω ~ N(0, I)``).

    Parameters
    ----------
    q, k : array_like, shape (..., T, d)
    v : array_like, shape (..., T, dv)
    omega : array_like, shape (D, d)
    mode : {"direct", "recurrent"}
    amplitude : bool
        ``False`` is only meaningful (and only allowed) for ``mode="recurrent"``.
    {recurrence_nthreads}

    Returns
    -------
    ndarray of complex, shape (..., T, D, dv)

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> q, k, v = 0.3 * rng.normal(size=(3, 8, 2))
    >>> w = rng.normal(size=(4, 2))
    >>> bool(np.allclose(rff_attention(q, k, v, w), rff_attention(q, k, v, w, mode="recurrent")))
    True
    """
    return np.asarray(
        _core.recurrence.rff_attention(
            q=q, k=k, v=v, omega=omega, mode=mode, amplitude=bool(amplitude), nthreads=nthreads
        )
    )


def rff_increment_product(q: ArrayLike, omega: ArrayLike, tau: int = 0) -> ComplexArray:
    r"""Running product of the RFF rotation increments
    :math:`\prod_{\kappa=\tau+1}^{t} e^{i\omega_j\cdot(q_\kappa - q_{\kappa-1})}`.

    Telescoping (path independence) says it equals :math:`e^{i\omega_j\cdot(q_t - q_\tau)}`: the product of the
    increments depends only on the endpoints.

    Parameters
    ----------
    q : array_like, shape (..., T, d)
    omega : array_like, shape (D, d)
    tau : int
        Start step (the product is 1 for ``t ≤ τ``).

    Returns
    -------
    ndarray of complex, shape (..., T, D)

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> q, w = rng.normal(size=(10, 3)), rng.normal(size=(2, 3))
    >>> p = rff_increment_product(q, w, tau=2)
    >>> bool(np.allclose(p[9], np.exp(1j * w @ (q[9] - q[2]))))
    True
    """
    return np.asarray(_core.recurrence.rff_increment_product(q=q, omega=omega, tau=tau))


@shared
def alibi_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, slope: float, mode: Direct = "direct", *, nthreads: int | None = None
) -> FloatArray:
    r"""Linear attention with ALiBi's distance penalty:
    :math:`o_t = \sum_{\tau\le t} e^{-m(t-\tau)} (q_t\cdot k_\tau) v_\tau`.

    ALiBi adds the bias ``−m(t−τ)`` to a logit; exponentiated, that is the decay :math:`e^{-m(t-\tau)}`,
    which ``mode="recurrent"`` realises as :math:`S_t = e^{-m} S_{t-1} + v_t k_t^\top`. ``mode="direct"``
    evaluates ``exp(bias)`` for every pair (O(T² d)).

    Parameters
    ----------
    {q_k}
    {v}
    slope : float
        The head's slope ``m`` (≥ 0).
    mode : {"direct", "recurrent"}
        Direct O(T² d) sum or the decayed recurrence.
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``.

    Examples
    --------
    >>> rng = np.random.default_rng(4)
    >>> q, k, v = rng.normal(size=(3, 7, 2))
    >>> bool(np.allclose(alibi_attention(q, k, v, 0.3), alibi_attention(q, k, v, 0.3, "recurrent")))
    True
    """
    return np.asarray(
        _core.recurrence.decayed_attention(
            q=q, k=k, v=v, gates=None, kind="alibi", param=slope, mode=mode, nthreads=nthreads
        )
    )


@shared
def fox_attention(
    q: ArrayLike, k: ArrayLike, v: ArrayLike, gates: ArrayLike, mode: Direct = "direct", *, nthreads: int | None = None
) -> FloatArray:
    r"""Forgetting-Transformer weighting
    :math:`o_t = \sum_{\tau\le t} (\prod_{\kappa=\tau+1}^{t} f_\kappa) (q_t\cdot k_\tau) v_\tau`.

    ``gates`` (the forget gates ``f_t``) has shape ``(..., T)`` with values in ``[0, 1]``;
    ``mode="recurrent"`` is :math:`S_t = f_t S_{t-1} + v_t k_t^\top`.

    Parameters
    ----------
    {q_k}
    {v}
    gates : array_like, shape (..., T)
        Forget gates ``f_t ∈ [0, 1]``.
    mode : {"direct", "recurrent"}
        Direct O(T² d) sum or the gated recurrence.
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``.

    Examples
    --------
    >>> rng = np.random.default_rng(5)
    >>> q, k, v = rng.normal(size=(3, 7, 2)); f = rng.uniform(size=7)
    >>> bool(np.allclose(fox_attention(q, k, v, f), fox_attention(q, k, v, f, "recurrent")))
    True
    """
    return np.asarray(
        _core.recurrence.decayed_attention(
            q=q, k=k, v=v, gates=gates, kind="fox", param=0.0, mode=mode, nthreads=nthreads
        )
    )


@shared
def cosformer_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    M: float | None = None,
    mode: Direct = "direct",
    *,
    nthreads: int | None = None,
) -> FloatArray:
    r"""The cosFormer re-weighting :math:`o_t = \sum_{\tau\le t} \cos(\pi(t-\tau)/(2M)) (q_t\cdot k_\tau) v_\tau`.

    ``mode="recurrent"`` uses ``cos(a−b) = cos a cos b + sin a sin b``: a cos-state and a
    sin-state, ``o_t = cos(πt/2M) S^c_t q_t + sin(πt/2M) S^s_t q_t``. ``q`` and ``k`` are the
    (already non-negative, e.g. ReLU) features. ``M`` defaults to ``T``.

    Parameters
    ----------
    {q_k}
    {v}
    M : float or None
        The period scale ``M`` (> 0); ``None`` means the sequence length ``T``.
    mode : {"direct", "recurrent"}
        Direct O(T² d) sum or the cos-state/sin-state recurrence.
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``.

    Examples
    --------
    >>> rng = np.random.default_rng(6)
    >>> q, k, v = rng.normal(size=(3, 7, 2))
    >>> bool(np.allclose(cosformer_attention(q, k, v), cosformer_attention(q, k, v, mode="recurrent")))
    True
    """
    if M is None:
        M = float(np.shape(q)[-2]) if np.ndim(q) >= 2 and np.shape(q)[-2] > 0 else 1.0
    return np.asarray(
        _core.recurrence.decayed_attention(
            q=q, k=k, v=v, gates=None, kind="cosformer", param=M, mode=mode, nthreads=nthreads
        )
    )


@shared
def softmax_attention(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    angles: ArrayLike | None = None,
    *,
    layout: Layout = "interleaved",
    scale: float | None = None,
    causal: bool = True,
    nthreads: int | None = None,
) -> FloatArray:
    """Reference softmax attention with RoPE / Selective RoPE angles.

    ``o_t = Σ_τ softmax_τ(scale · (C_t q_t)·(C_τ k_τ)) v_τ`` over ``τ ≤ t`` (``causal``) or all
    ``τ``, with ``C_t = blockdiag R(ψ_t)``; ``angles`` is RoPE's ``rope_angles(arange(T), d)`` or
    Selective RoPE's cumulative angles; ``None`` means no rotation. ``scale`` defaults to ``1/√d``.

    Parameters
    ----------
    {q_k}
    {v}
    angles : array_like, shape (..., T, d/2), optional
        Rotation angles ``ψ_t`` of ``C_t``; ``None`` means no rotation.
    {rotary_layout}
    {scale}
    causal : bool
        Attend to ``τ ≤ t`` only (``True``) or to every ``τ``.
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``.

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> q, k, v = rng.normal(size=(3, 5, 4))
    >>> from ropelab.rotary import rope_angles
    >>> o = softmax_attention(q, k, v, rope_angles(np.arange(5), 4))
    >>> o.shape
    (5, 4)
    """
    return np.asarray(
        _core.recurrence.softmax_attention(
            q=q, k=k, v=v, angles=angles, layout=layout, scale=scale, causal=bool(causal), nthreads=nthreads
        )
    )


@shared
def delta_rule(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    beta: ArrayLike,
    angles: ArrayLike | None = None,
    gates: ArrayLike | None = None,
    *,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
) -> RealArray:
    r"""The (gated) delta rule, optionally with Selective RoPE pre-rotation.

    :math:`S_t = S_{t-1} \alpha_t (I - \beta_t \tilde{k}_t \tilde{k}_t^\top) + \beta_t v_t \tilde{k}_t^\top` and
    ``o_t = S_t q̃_t`` with
    :math:`S_{-1} = 0`, where ``k̃_t = C_t k_t``, ``q̃_t = C_t q_t`` and ``C_t = blockdiag R(ψ_t)``
    (identity without ``angles``). ``gates = None`` is DeltaNet (Schlag et al. 2021; Yang et al.
    2024), gates in ``[0, 1]`` are Gated DeltaNet (Yang et al. 2025). In the unrotated frame the
    state obeys :math:`S_t = S_{t-1} A_t + \beta_t v_t k_t^\top` with the effective transition
    ``A_t = α_t R_t (I − β_t k_t k_tᵀ)``, :math:`R_t = C_{t-1}^\top C_t` the rotation by the phase
    increment (:func:`delta_transitions`).

    Parameters
    ----------
    q, k : array_like, shape (..., T, d)
        Queries and keys (unit-norm keys make ``I − β k kᵀ`` a generalised Householder matrix:
        a reflection at ``β = 2``, a projection at ``β = 1``).
    {v}
    beta : array_like, shape (..., T)
        Write strengths ``β_t``.
    angles : array_like, shape (..., T, d/2), optional
        Selective RoPE angles ``ψ_t`` (cumulative, e.g. from
        :func:`ropelab.rotary.cumulative_angles`); needs even ``d``.
    {gates}
    {recurrence_layout}
    {recurrence_nthreads_2}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``: float32 if ``q``, ``k`` and ``v`` are all float32 arrays, else
        float64 (the dtype rule of the module docstring; accuracy of the float32 path: see
        :func:`delta_product`).

    Raises
    ------
    ValueError
        For mismatched shapes, non-finite inputs or gates outside ``[0, 1]`` (naming the argument),
        or an output that overflows the precision of the computation (float64, or float32 on the
        float32 path).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.normal(size=(3, 6, 4))
    >>> beta = rng.uniform(size=6)
    >>> o = delta_rule(q, k, v, beta)
    >>> A = delta_transitions(k, beta)              # A_t = I − β_t k_t k_tᵀ
    >>> bool(np.allclose(o, linear_attention(q, k, beta[:, None] * v, transitions=A)))
    True
    """
    f = "recurrence.delta_rule"
    return _delta(
        f,
        q,
        np.expand_dims(_min_ndim(k, 2, f, "k", "(..., T, d)"), -2),
        np.expand_dims(_min_ndim(v, 2, f, "v", "(..., T, dv)"), -2),
        np.expand_dims(_min_ndim(beta, 1, f, "beta", "(..., T)"), -1),
        angles,
        gates,
        layout=layout,
        nthreads=nthreads,
    )


@shared
def delta_product(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    beta: ArrayLike,
    angles: ArrayLike | None = None,
    gates: ArrayLike | None = None,
    *,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
) -> RealArray:
    r"""DeltaProduct: ``n_h`` delta-rule steps per token (Siems et al. 2025).

    Per token the state is gated, ``S ← α_t S``, then updated once per key,
    :math:`S \leftarrow S (I - \beta_{t,j} \tilde{k}_{t,j} \tilde{k}_{t,j}^\top)
    + \beta_{t,j} v_{t,j} \tilde{k}_{t,j}^\top`
    for ``j = 0 … n_h−1``, and read, ``o_t = S q̃_t`` (tildes: pre-rotated by ``C_t`` as in :func:`delta_rule`). The
    token's transition is the product of ``n_h`` generalised Householder factors,
    :math:`A_t = \alpha_t R_t \prod_j (I - \beta_{t,j} k_{t,j} k_{t,j}^\top)`; with unit keys and ``β = 2`` it is a
    product of reflections, an orthogonal matrix that need not be a rotation of channel pairs.

    Parameters
    ----------
    {q}
    k : array_like, shape (..., T, n_h, d)
        ``n_h`` keys per token.
    v : array_like, shape (..., T, n_h, dv)
        ``n_h`` values per token.
    beta : array_like, shape (..., T, n_h)
        Write strengths.
    {angles}
    {gates}
    {recurrence_layout}
    {recurrence_nthreads_2}

    Returns
    -------
    ndarray, shape (..., T, dv)
        The outputs ``o_t``: float32 if ``q``, ``k`` and ``v`` are all float32 arrays, else
        float64 (the dtype rule of the module docstring). The float32 path rounds every operation
        of the recurrence to float32 (unit roundoff ``u = 2⁻²⁴``, ``γ_d = d u/(1 − d u)``). When
        every transition is non-expansive (``α_t ∈ [0, 1]``, :math:`0 \le \beta_{t,j} \|k_{t,j}\|^2 \le 2`, e.g.
        unit keys and ``β ∈ [0, 2]``), an error made at one step is not amplified by the later
        ones, and to first order in ``u`` the float32 output differs from the exact one (row
        ``r``, step ``t``) by at most
        :math:`\|\tilde{q}_t\| \sum_{\text{micro-steps} \le t} \ell + (\gamma_d + u) \|s_t\| \|\tilde{q}_t\|`, with
        ``s`` row ``r`` of the state and, per micro-step with state ``s`` before it, gated ``a = α s``, ``y = a·k̃``,
        ``w = β (v_r − y)`` and the new state ``s'``:
        ``ℓ = u ‖a‖ + β ‖k̃‖ (γ_d ‖a‖ ‖k̃‖ + 2u |v_r − y|) + u (‖s'‖ + |w| ‖k̃‖)``, plus
        ``u β ‖k̃‖ (2 ‖a‖ ‖k̃‖ + |v_r|) + u ‖s_t‖ ‖q̃_t‖`` with ``angles`` (the rotated keys and query rounded to
        float32). The float64 path obeys the same bound with ``u = 2⁻⁵³``. Typical errors are far below the bound
        (rounding errors partly cancel).

    Raises
    ------
    ValueError
        For mismatched shapes, non-finite inputs, ``n_h = 0`` or gates outside ``[0, 1]``
        (naming the argument), or an output that overflows the precision of the computation.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> q = rng.normal(size=(5, 4)); k = rng.normal(size=(5, 2, 4)); v = rng.normal(size=(5, 2, 3))
    >>> o = delta_product(q, k, v, np.full((5, 2), 0.5))
    >>> o.shape
    (5, 3)
    """
    return _delta("recurrence.delta_product", q, k, v, beta, angles, gates, layout=layout, nthreads=nthreads)


def _delta(
    func: str,
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    beta: ArrayLike,
    angles: ArrayLike | None,
    gates: ArrayLike | None,
    *,
    layout: Layout,
    nthreads: int | None,
) -> RealArray:
    """The core's delta rule (DeltaProduct form); its messages name ``func``, the function called."""
    with _validation.renamed(func, "recurrence.delta_rule"):
        return np.asarray(
            _core.recurrence.delta_rule(
                q=q, k=k, v=v, beta=beta, angles=angles, gates=gates, layout=layout, nthreads=nthreads
            )
        )


@shared
def delta_transitions(
    k: ArrayLike,
    beta: ArrayLike,
    angles: ArrayLike | None = None,
    gates: ArrayLike | None = None,
    *,
    layout: Layout = "interleaved",
    product: bool = False,
    nthreads: int | None = None,
) -> FloatArray:
    r"""The effective transitions :math:`A_t = \alpha_t R_t \prod_j (I - \beta_{t,j} k_{t,j} k_{t,j}^\top)` of the delta
    rule.

    In the unrotated frame the state of :func:`delta_rule` obeys :math:`S_t = S_{t-1} A_t + \beta_t v_t k_t^\top`
    (row convention: the state multiplies its transition from the left, ``o_t = S_t q_t``), so
    ``delta_rule(q, k, v, beta, angles, gates)`` equals ``linear_attention(q, k, beta·v,
    transitions=delta_transitions(k, beta, angles, gates))``. :math:`R_t = C_{t-1}^\top C_t` rotates pair
    ``i`` by :math:`\psi_{t,i} - \psi_{t-1,i}` (:math:`\psi_{-1} = 0`).

    Parameters
    ----------
    k : array_like, shape (..., T, d), or (..., T, n_h, d) with ``product=True``
        Keys (unrotated).
    beta : array_like, shape (..., T), or (..., T, n_h) with ``product=True``
        Write strengths.
    {angles}
    {gates}
    {recurrence_layout}
    product : bool
        Whether ``k`` and ``beta`` carry an ``n_h`` axis (DeltaProduct).
    nthreads : int, optional
        Threads over the batch (``None``: all cores).

    Returns
    -------
    ndarray, shape (..., T, d, d)
        ``A_t`` per step.

    Raises
    ------
    TypeError
        If ``product`` is not a bool.
    ValueError
        For mismatched shapes, non-finite inputs, gates outside ``[0, 1]``, or ``k`` and ``beta``
        so large that ``β k kᵀ`` overflows double precision.

    Examples
    --------
    >>> w = np.array([[1.0, 0.0]])                 # one step, unit key e₁, β = 2: a reflection
    >>> delta_transitions(w, np.array([2.0]))[0]
    array([[-1.,  0.],
           [ 0.,  1.]])
    """
    if not isinstance(product, (bool, np.bool_)):
        raise TypeError(f"delta_transitions: product must be a bool, got {product!r}")
    f = "recurrence.delta_transitions"
    if not product:
        k = np.expand_dims(_min_ndim(k, 2, f, "k", "(..., T, d)"), -2)
        beta = np.expand_dims(_min_ndim(beta, 1, f, "beta", "(..., T)"), -1)
    out = np.asarray(
        _core.recurrence.delta_transitions(k=k, beta=beta, angles=angles, gates=gates, layout=layout, nthreads=nthreads)
    )
    if not _validation.all_finite(np.ascontiguousarray(out)):
        # the inputs are finite (checked by the core): a factor I − β k kᵀ overflowed
        i = int(np.flatnonzero(~np.isfinite(out.reshape(-1)))[0])
        raise ValueError(
            f"{f}: k and beta: the factor I - beta k k^T overflows double precision (element {i} of the "
            f"result is {out.reshape(-1)[i]}); scale k or beta down"
        )
    return out
