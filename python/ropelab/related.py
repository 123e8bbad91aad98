r"""Softmax-form related models: ALiBi and the Forgetting Transformer (FoX) as decayed kernels.

Both models are causal softmax attention with an additive logit bias,

* **ALiBi** (Press et al., arXiv:2108.12409, §3): ``b_ts = −m_h (t − s)`` with one slope ``m_h``
  per head, the geometric sequence :math:`m_h = 2^{-8h/H}` (``h = 1..H``) for ``H`` a power of two;
* **FoX** (Lin et al., arXiv:2503.02130, Eq. 5–6): :math:`b_{ts} = \sum_{r=s+1}^{t} \log f_r` with a forget
  gate ``f_r = σ(w_fᵀ x_r + b_f) ∈ (0, 1)`` per step and head.

Exponentiated, the bias is a multiplicative decay of the softmax kernel:
:math:`\exp(\mathrm{scale}\, q_t\cdot k_s + b_{ts}) = \kappa(q_t, k_s) \prod_{r=s+1}^{t} f_r` with
``κ(q, k) = exp(scale·q·k)`` and :math:`f_r = e^{-m_h}` for ALiBi (the view of Selective RoPE App. A.7: the exponential
kernel multiplied by :math:`a^{t-\tau}`, resp. :math:`\prod_{\kappa=\tau+1}^t a_\kappa`). With a feature map ``φ`` such
that ``φ(q)·φ(k) = κ(q, k)`` the same outputs come from the decayed linear recurrence

.. math::

   S_t = f_t S_{t-1} + φ(k_t) v_tᵀ,\quad z_t = f_t z_{t-1} + φ(k_t),\quad
   o_t = \frac{φ(q_t)ᵀ S_t}{φ(q_t)ᵀ z_t},

(:func:`decayed_kernel_attention`), in O(T) time and O(dim φ · d_v) memory. The exponential kernel
has no finite feature map on all of ``ℝ^d``, but it has one on binary vectors
(:func:`exp_kernel_features`, exact), so the two forms can be compared to rounding; with
Performer's positive random features (arXiv:2009.14794 Lemma 1) the numerator and the denominator
of the recurrence are unbiased estimates of the softmax form's unnormalised sums, and their ratio
is a (consistent, O(1/D)-biased) ratio estimate of the output.

The softmax forms call :func:`ropelab.attention.softmax` with the bias of :func:`alibi_bias` or
:func:`fox_bias`; the recurrence runs in the C++ core of :func:`ropelab.recurrence.fox_attention`
(``mode="recurrent"``) with the GIL released.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ropelab import _validation, attention, recurrence
from ropelab._docstrings import shared
from ropelab._types import ArrayLike, FloatArray
from ropelab._validation import _PIECE, check_output_size

__all__ = [
    "alibi",
    "alibi_bias",
    "alibi_slopes",
    "decayed_kernel_attention",
    "exp_kernel_features",
    "fox",
    "fox_bias",
]

#: Largest binary dimension :func:`exp_kernel_features` accepts (2^16 features per vector).
MAX_BINARY_DIM = 16


def _int_arg(x: Any, name: str, func: str, minimum: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{func}: {name} must be an integer, got {x!r}")
    if int(x) < minimum:
        raise ValueError(f"{func}: {name} must be >= {minimum}, got {x!r}")
    return int(x)


def _real_array(x: ArrayLike, name: str, func: str, *, allow_bool: bool = False) -> FloatArray:
    """A real array as a new float64 array (never the caller's); the size is checked first."""
    a = np.asarray(x) if allow_bool else x
    if allow_bool and isinstance(a, np.ndarray) and a.dtype.kind == "b":
        a = a.view(np.uint8)
    out = _validation.real_array(func, name, a)
    return out.copy() if out is x or (isinstance(x, np.ndarray) and np.may_share_memory(out, x)) else out


def _causal_rows(func: str, lead: tuple[int, ...], T: int, rows: Callable[[int, int], FloatArray]) -> FloatArray:
    """A ``lead + (T, T)`` bias filled by blocks of query rows (``rows(r0, r1)`` gives rows
    ``r0..r1-1``), each block about 2^20 values, so that Ctrl-C is answered between blocks; the
    output's size is checked before it is allocated.
    """
    count = math.prod(lead) * T * T
    check_output_size(func, count)
    out: FloatArray = np.empty(lead + (T, T))
    step = max(1, _PIECE // max(1, math.prod(lead) * T))
    for r0 in range(0, T, step):
        r1 = min(T, r0 + step)
        out[..., r0:r1, :] = rows(r0, r1)
    return out


def _softmax(func: str, q: ArrayLike, k: ArrayLike, v: ArrayLike, scale: Any, bias: Any, nthreads: Any) -> FloatArray:
    """Causal softmax attention with ``bias`` (computed here from the caller's slopes or gates);
    errors are reported as ``func``'s: the caller passed q, k, v, scale, nthreads, not a bias.
    """
    try:
        out = attention.softmax(q, k, v, causal=True, scale=scale, bias=bias, nthreads=nthreads)
    except (ValueError, TypeError, MemoryError) as e:
        raise _validation.same_kind(e)(str(e).replace("attention.softmax:", f"{func}:")) from None
    return np.asarray(out, dtype=np.float64)


def alibi_slopes(H: int) -> FloatArray:
    r"""The ALiBi head slopes ``m_1..m_H`` of the reference implementation.

    For ``H`` a power of two, :math:`m_h = 2^{-8h/H}` (ALiBi, arXiv:2108.12409 §3: the geometric
    sequence starting at and with ratio :math:`2^{-8/H}`). For other ``H`` the reference code takes the
    :math:`P = 2^{\lfloor\log_2 H\rfloor}` slopes of ``P`` heads followed by every other slope of ``2P`` heads,
    :math:`2^{-8(2i+1)/(2P)}` for ``i = 0..H−P−1``, which interleaves between them.

    Parameters
    ----------
    H : int
        Number of heads (≥ 1).

    Returns
    -------
    ndarray, shape (H,)
        The slopes, in head order.

    Raises
    ------
    TypeError
        ``H`` is not an integer.
    ValueError
        ``H < 1``.

    Examples
    --------
    >>> alibi_slopes(8)
    array([0.5       , 0.25      , 0.125     , 0.0625    , 0.03125   ,
           0.015625  , 0.0078125 , 0.00390625])
    >>> alibi_slopes(3)  # 2^-4, 2^-8, then 2^-2 from the slopes of 4 heads
    array([0.0625    , 0.00390625, 0.25      ])
    """
    H = _int_arg(H, "H", "related.alibi_slopes", 1)
    _validation.check_size("related.alibi_slopes", "H", H)
    P = 1 << (H.bit_length() - 1)
    first = 2.0 ** (-8.0 * np.arange(1, P + 1) / P)
    extra = 2.0 ** (-8.0 * (2 * np.arange(H - P) + 1) / (2 * P))
    out: FloatArray = np.concatenate([first, extra])
    return out


def alibi_bias(T: int, slopes: ArrayLike) -> FloatArray:
    """ALiBi's causal logit bias ``b_ts = −m_h (t − s)`` (``s ≤ t``; ``−inf`` for ``s > t``).

    Parameters
    ----------
    T : int
        Sequence length (≥ 1).
    slopes : array_like, shape (H,) or scalar
        Slopes ``m_h ≥ 0`` (e.g. :func:`alibi_slopes`).

    Returns
    -------
    ndarray, shape (H, T, T) or (T, T)
        The bias per head (no head axis for a scalar slope); it broadcasts against queries of
        shape ``(..., H, T, d)`` in :func:`ropelab.attention.softmax`.

    Raises
    ------
    TypeError
        ``T`` is not an integer or ``slopes`` is not real.
    ValueError
        ``T < 1``; a slope that is negative or not finite; ``slopes`` of more than one dimension.

    Examples
    --------
    >>> alibi_bias(3, 0.5)
    array([[ 0. , -inf, -inf],
           [-0.5,  0. , -inf],
           [-1. , -0.5,  0. ]])
    """
    f = "related.alibi_bias"
    T = _int_arg(T, "T", f, 1)
    m = _real_array(slopes, "slopes", f)
    _validation.check_size(f, "T", float(T) * T * max(m.size, 1))
    if m.ndim > 1:
        raise ValueError(f"{f}: slopes must be a scalar or of shape (H,), got shape {m.shape}")
    if not np.all(np.isfinite(m)) or np.any(m < 0):
        bad = m[~(np.isfinite(m) & (m >= 0))].ravel()[0]
        raise ValueError(f"{f}: slopes must be finite and >= 0, got {bad!r}")
    t = np.arange(T, dtype=np.float64)
    slope = m[..., None, None]

    def rows(r0: int, r1: int) -> FloatArray:
        lag = t[r0:r1, None] - t[None, :]
        block: FloatArray = np.where(lag >= 0, slope * np.minimum(-lag, 0.0) + 0.0, -np.inf)
        return block

    return _causal_rows(f, m.shape, T, rows)


def fox_bias(gates: ArrayLike) -> FloatArray:
    r"""FoX's causal logit bias :math:`b_{ts} = \sum_{r=s+1}^{t} \log f_r` (``s ≤ t``; ``−inf`` for ``s > t``).

    Computed as ``L_t − L_s`` of the running sums :math:`L_t = \sum_{r\le t} \log f_r`.

    Parameters
    ----------
    gates : array_like, shape (..., T)
        Forget gates ``f_t ∈ (0, 1]`` (FoX's ``σ(w_fᵀ x_t + b_f)``), per step along the last axis.

    Returns
    -------
    ndarray, shape (..., T, T)
        The bias; it broadcasts against queries of shape ``(..., T, d)`` in
        :func:`ropelab.attention.softmax`.

    Raises
    ------
    TypeError
        ``gates`` is not real.
    ValueError
        ``gates`` is 0-dimensional or empty along its last axis, or has an entry outside ``(0, 1]``.

    Examples
    --------
    >>> b = fox_bias([0.5, 0.5, 1.0])
    >>> bool(np.isclose(b[2, 0], 2 * np.log(0.5) - np.log(0.5)))  # log f_1 + log f_2
    True
    >>> bool(np.isneginf(b[0, 1]))
    True
    """
    f = "related.fox_bias"
    g = _real_array(gates, "gates", f)
    if g.ndim == 0 or g.shape[-1] == 0:
        raise ValueError(f"{f}: gates must have shape (..., T) with T >= 1, got shape {g.shape}")
    ok = (g > 0) & (g <= 1)
    if not np.all(ok):
        raise ValueError(f"{f}: gates must be in (0, 1], got {g[~ok].ravel()[0]!r}")
    L = np.cumsum(np.log(g), axis=-1)
    T = g.shape[-1]
    t = np.arange(T)

    def rows(r0: int, r1: int) -> FloatArray:
        lower = t[r0:r1, None] >= t[None, :]
        block: FloatArray = np.where(lower, L[..., r0:r1, None] - L[..., None, :], -np.inf)
        return block

    return _causal_rows(f, g.shape[:-1], T, rows)


@shared
def alibi(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    slopes: ArrayLike | None = None,
    *,
    scale: float | None = None,
    nthreads: int | None = None,
) -> FloatArray:
    r"""ALiBi attention: causal softmax with the bias ``−m_h (t − s)`` per head.

    .. math::

        o_t = \frac{\sum_{s\le t} \exp(\mathrm{scale}\, q_t\cdot k_s - m_h(t-s))\, v_s}
        {\sum_{s\le t} \exp(\mathrm{scale}\, q_t\cdot k_s - m_h(t-s))}

    (ALiBi, arXiv:2108.12409 §3), computed by :func:`ropelab.attention.softmax` with
    :func:`alibi_bias`. It equals :func:`decayed_kernel_attention` with the constant gate
    :math:`f = e^{-m_h}`.

    Parameters
    ----------
    q, k : array_like, shape (..., H, T, d)
        Queries and keys; axis ``-3`` is the head axis.
    v : array_like, shape (..., H, T, d_v)
        Values.
    slopes : array_like, shape (H,), or None
        The slopes ``m_h ≥ 0``; ``None`` means :func:`alibi_slopes` of ``H = q.shape[-3]``.
    {scale}
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., H, T, d_v)
        The outputs.

    Raises
    ------
    ValueError
        ``q`` without a head axis, slopes whose length is not ``H``, a negative or non-finite
        slope, or any error of :func:`ropelab.attention.softmax`.
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 4, 6, 2))   # 4 heads, T = 6, d = 2
    >>> o = alibi(q, k, v)
    >>> o.shape
    (4, 6, 2)
    >>> bool(np.allclose(o[:, 0], v[:, 0]))  # the first query sees only the first key
    True
    """
    f = "related.alibi"
    qs = np.shape(q)
    if len(qs) < 3:
        raise ValueError(f"{f}: q must have shape (..., H, T, d) with a head axis, got shape {qs}")
    H, T = qs[-3], qs[-2]
    if T < 1:
        raise ValueError(f"{f}: q must have T >= 1 steps, got shape {qs}")
    m = alibi_slopes(H) if slopes is None else _real_array(slopes, "slopes", f)
    if m.shape != (H,):
        raise ValueError(f"{f}: slopes must have shape (H,) = ({H},) to match q's head axis, got shape {m.shape}")
    return _softmax(f, q, k, v, scale, alibi_bias(T, m), nthreads)


@shared
def fox(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    gates: ArrayLike,
    *,
    scale: float | None = None,
    nthreads: int | None = None,
) -> FloatArray:
    r"""Forgetting Transformer attention: causal softmax with the bias :math:`\sum_{r=s+1}^{t} \log f_r`.

    .. math::

        o_t = \frac{\sum_{s\le t} \exp(\mathrm{scale}\, q_t\cdot k_s)\, F_{ts}\, v_s}
        {\sum_{s\le t} \exp(\mathrm{scale}\, q_t\cdot k_s)\, F_{ts}}

    with :math:`F_{ts} = \prod_{r=s+1}^{t} f_r` (FoX, arXiv:2503.02130 Eq. 5–6), computed by
    :func:`ropelab.attention.softmax` with :func:`fox_bias`.

    Parameters
    ----------
    q, k : array_like, shape (..., T, d)
        Queries and keys (e.g. ``(B, H, T, d)``).
    {related_v}
    gates : array_like, shape (..., T)
        Forget gates ``f_t ∈ (0, 1]`` per step (and head), broadcastable against the leading
        dimensions of ``q``.
    {scale}
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, d_v)
        The outputs.

    Raises
    ------
    ValueError
        ``gates`` whose last axis is not ``T`` or with gates outside ``(0, 1]``, or any error of
        :func:`ropelab.attention.softmax`.
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> q, k, v = rng.standard_normal((3, 5, 2))
    >>> o = fox(q, k, v, np.ones(5))  # f = 1: plain causal softmax attention
    >>> bool(np.allclose(o, attention.softmax(q, k, v)))
    True
    """
    f = "related.fox"
    qs, fs = np.shape(q), np.shape(gates)
    if len(qs) < 2:
        raise ValueError(f"{f}: q must have shape (..., T, d), got shape {qs}")
    if len(fs) == 0 or fs[-1] != qs[-2]:
        raise ValueError(f"{f}: gates must have shape (..., T) with T = {qs[-2]} (q's), got shape {fs}")
    return _softmax(f, q, k, v, scale, fox_bias(gates), nthreads)


@shared
def decayed_kernel_attention(
    phi_q: ArrayLike,
    phi_k: ArrayLike,
    v: ArrayLike,
    gates: ArrayLike,
    *,
    nthreads: int | None = None,
) -> FloatArray:
    r"""The decayed, normalised linear-kernel recurrence of ALiBi/FoX given features ``φ``.

    :math:`S_t = f_t S_{t-1} + \varphi(k_t) v_t^\top`, :math:`z_t = f_t z_{t-1} + \varphi(k_t)`,
    ``o_t = φ(q_t)ᵀ S_t / φ(q_t)ᵀ z_t`` (:math:`S_{-1} = 0`, :math:`z_{-1} = 0`): the outputs of causal
    attention with weights :math:`(\varphi(q_t)\cdot\varphi(k_s)) \prod_{r=s+1}^{t} f_r`. With
    ``φ(q)·φ(k) = exp(scale·q·k)`` (:func:`exp_kernel_features`) this is :func:`fox` (and, with
    :math:`f = e^{-m}`, :func:`alibi`). Numerator and denominator run together in the C++ recurrence
    of :func:`ropelab.recurrence.fox_attention` (values extended by a column of ones).

    Parameters
    ----------
    phi_q, phi_k : array_like, shape (..., T, D)
        Features of the queries and keys.
    {related_v}
    gates : array_like, shape (..., T)
        Gates ``f_t ∈ [0, 1]``.
    {recurrence_nthreads}

    Returns
    -------
    ndarray, shape (..., T, d_v)
        The outputs.

    Raises
    ------
    ValueError
        Shapes that do not match, gates outside ``[0, 1]``, or a step whose normaliser
        ``φ(q_t)ᵀ z_t`` is not positive and finite (the ratio would be undefined).
    TypeError
        Non-numeric input.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> q, k = rng.integers(0, 2, (2, 6, 3)).astype(float)    # binary: exact features exist
    >>> v, f = rng.standard_normal((6, 2)), rng.uniform(0.5, 1, 6)
    >>> rec = decayed_kernel_attention(exp_kernel_features(q, 0.7), exp_kernel_features(k, 0.7), v, f)
    >>> bool(np.allclose(rec, fox(q, k, v, f, scale=0.7), rtol=1e-13, atol=1e-13))
    True
    """
    f = "related.decayed_kernel_attention"
    vv = _real_array(v, "v", f)
    if vv.ndim < 2:
        raise ValueError(f"{f}: v must have shape (..., T, d_v), got shape {vv.shape}")
    ext = np.concatenate([vv, np.ones(vv.shape[:-1] + (1,))], axis=-1)
    try:
        both = recurrence.fox_attention(phi_q, phi_k, ext, gates, "recurrent", nthreads=nthreads)
    except (ValueError, TypeError) as e:
        msg = str(e).replace("recurrence.fox_attention", f)
        # the core names the features q and k
        msg = re.sub(r"\b(q|k)(\.shape\b|\b(?= (must|and)))", r"phi_\1\2", msg)
        raise type(e)(msg) from None
    num, den = both[..., :-1], both[..., -1:]
    bad = ~(np.isfinite(den) & (den > 0))
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0][:-1])
        raise ValueError(
            f"{f}: phi_q and phi_k: the normaliser φ(q_t)ᵀz_t must be positive and finite, got "
            f"{float(den[idx + (0,)])!r} at index {idx} (features with a positive kernel needed)"
        )
    out: FloatArray = num / den
    return out


def exp_kernel_features(x: ArrayLike, scale: float = 1.0) -> FloatArray:
    r"""The exact finite feature map of ``exp(scale·q·k)`` on binary vectors ``q, k ∈ {0, 1}^n``.

    Since ``q_i k_i ∈ {0, 1}``, ``exp(scale·q·k) = Π_i (1 + c² q_i k_i)`` with
    :math:`c^2 = e^{\mathrm{scale}} - 1`; expanding the product over subsets ``A ⊆ {1..n}`` gives
    :math:`\varphi(x)_A = c^{|A|} \prod_{i\in A} x_i` (``2^n`` features, ``A`` in binary order of its indicator) and
    ``φ(q)·φ(k) = exp(scale·q·k)`` exactly. One-hot tokens are the case ``|x| = 1``.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Binary vectors (entries 0 or 1), ``1 ≤ n ≤ 16``.
    scale : float
        The logit scale (> 0, so that ``c`` is real).

    Returns
    -------
    ndarray, shape (..., 2^n)
        The features.

    Raises
    ------
    ValueError
        An entry other than 0 or 1, ``n`` outside ``[1, 16]``, or ``scale`` not positive and finite.
    TypeError
        Non-numeric ``x`` or ``scale``.

    Examples
    --------
    >>> q, k = np.array([1.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0])
    >>> float(exp_kernel_features(q, 0.5) @ exp_kernel_features(k, 0.5))  # = exp(0.5·2)
    2.718281828459045
    """
    f = "related.exp_kernel_features"
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise TypeError(f"{f}: scale must be a real number, got {scale!r}")
    if not (math.isfinite(float(scale)) and scale > 0):
        raise ValueError(f"{f}: scale must be positive and finite, got {scale!r}")
    a = _real_array(x, "x", f, allow_bool=True)
    if a.ndim == 0 or not 1 <= a.shape[-1] <= MAX_BINARY_DIM:
        raise ValueError(f"{f}: x must have shape (..., n) with 1 <= n <= {MAX_BINARY_DIM}, got shape {a.shape}")
    binary = (a == 0) | (a == 1)
    if not np.all(binary):
        raise ValueError(f"{f}: x must be binary (entries 0 or 1), got {a[~binary].ravel()[0]!r}")
    c = math.sqrt(math.expm1(float(scale)))
    n = a.shape[-1]
    out = np.ones(a.shape[:-1] + (1,))
    for i in range(n):  # φ over {1..i+1} = [φ over {1..i}, c x_{i+1} φ over {1..i}]
        out = np.concatenate([out, (c * a[..., i : i + 1]) * out], axis=-1)
    result: FloatArray = out
    return result
