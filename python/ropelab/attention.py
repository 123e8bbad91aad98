r"""Attention-level computations: exact softmax attention and its random-feature estimate.

Exact attention of queries ``q`` (..., T, d), keys ``k`` (..., S, d) and values ``v``
(..., S, d_v) is

.. math::

    o_i = \frac{\sum_j w_{ij} v_j}{\sum_j w_{ij}}, \qquad
    w_{ij} = \exp(\mathrm{scale}\; q_i \cdot k_j + b_{ij}),

with ``j ≤ i`` when causal. :func:`random_feature` replaces ``exp(scale q·k)`` by the dot product
of random feature maps ``φ(q)·φ(k)`` and evaluates numerator and denominator with the
associativity trick of Performer (Choromanski et al., arXiv:2009.14794, §2.2, Eqs. 4–5 and the
prefix sums of §2.6 for the causal case): the cost is linear in ``T`` and the state per sequence
is ``F × (d_v + 1)`` numbers, ``F`` the number of feature columns.

Feature maps, with ``x' = √scale · x``, ``h = ‖x'‖²/2`` and frequencies
``ω_1..ω_D ~ N(0, diag(σ_c²))`` (orthogonal blocks with ``orthogonal=True``):

.. list-table::
   :header-rows: 1

   * - estimator
     - ``φ(x)``
     - columns
     - reference
   * - ``trig``
     - :math:`e^{h} / \sqrt{D}\, [\cos(\omega\cdot x') \mid \sin(\omega\cdot x')]`
     - ``2D``
     - Eq. 8 of arXiv:2511.17388 (conjugate form)
   * - ``positive``
     - :math:`e^{\omega\cdot x' - h} / \sqrt{D}`
     - ``D``
     - FAVOR+, arXiv:2009.14794 Lemma 1
   * - ``hyperbolic``
     - :math:`e^{-h} / \sqrt{2D}\, [e^{\omega\cdot x'} \mid e^{-\omega\cdot x'}]`
     - ``2D``
     - arXiv:2009.14794 Lemma 1

At ``σ = 1`` every ``φ(q)·φ(k)`` is an unbiased estimate of ``exp(scale q·k)``. The trig map is
the conjugate convention of :func:`ropelab.rff.feature_map` (``Re φ(q)·conj φ(k)``), so a σ means
here what it means in :mod:`ropelab.rff` and :mod:`ropelab.temperature`: ``ω ~ N(0, σ² I)`` with
the amplitude :math:`e^{\|x\|^2/2}` unchanged, i.e.
:math:`\mathbb{E}[\varphi(q)\cdot\varphi(k)] = e^{(\|q'\|^2 + \|k'\|^2)/2 - \sigma^2\|q'-k'\|^2/2}` (trig) and
:math:`e^{\sigma^2\|q'+k'\|^2/2 - (\|q'\|^2 + \|k'\|^2)/2}` (positive, hyperbolic).

Rotary angles. ``angles`` (…, T, d/2) rotate channel pair ``i`` of ``q[..., t, :]`` and of
``k[..., t, :]`` by ``angles[..., t, i]`` (:func:`ropelab.rotary.rotate` in ``layout``) before the
attention, which is RoPE for ``angles = rotary.rope_angles(...)`` and Selective RoPE for the
cumulative angles of :func:`ropelab.rotary.selective_angles`; ``random_feature(q, k, v, D,
angles=p)`` equals ``random_feature(rotate(q, p), rotate(k, p), v, D)``.

Precision (the dtype rule of :func:`softmax`, :func:`random_feature` and
:func:`ropelab.rotary.rotate`). When ``q``, ``k`` and ``v`` are all NumPy arrays of dtype float32
(``x`` for ``rotate``), the result is float32; any other real input (float64, integers, a mix of
float32 and float64, lists) is converted to float64, computed and returned in float64, the
default for verification. There is no ``dtype=`` argument: cast the inputs. :func:`softmax`
computes such input in float32 throughout; :func:`random_feature` computes its projections,
features and sums in float32 (per-row scales in float64; with ``angles``, ``q`` and ``k`` are
rotated in float64 and rounded to float32 first); ``rotate`` rounds float64 products once.
Every path is bit-identical for every thread count; the accuracy of each float32 result is stated
in its function's Returns section.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, cast, overload

import numpy as np
import numpy.typing as npt

from ropelab import _validation, rotary, temperature
from ropelab._core_loader import core as _core
from ropelab._display import document_fields, field_doc
from ropelab._docstrings import shared
from ropelab._types import ArrayLike, FloatArray, FloatOrArray, Layout, RealArray

__all__ = [
    "softmax",
    "random_feature",
    "feature_map",
    "RandomFeatureParts",
    "AttentionError",
    "error",
    "mean_cosine",
    "rule_sigma",
    "AnglePrecision",
    "angle_precision",
]

# The names are defined once, in the C++ core (``_core.attention.estimators()``); the ``Literal``
# repeats them for type checkers and tests/test_enumerations.py checks they agree.
Estimator = Literal["trig", "positive", "hyperbolic"]
#: The estimator names of the attention layer, in the core's order.
ESTIMATORS: tuple[str, ...] = tuple(_core.attention.estimators())


class RandomFeatureParts(NamedTuple):
    """Output of :func:`random_feature` with ``return_parts=True``.

    ``output = numerator / denominator[..., None]``. Without stabilisation the two are the
    random-feature estimates of ``Σ_j exp(scale q_i·k_j) v_j`` and ``Σ_j exp(scale q_i·k_j)``
    (``j ≤ i`` when causal); with it, both are multiplied by one positive constant per row.

    Parameters
    ----------
    output : ndarray, shape (..., T, d_v)
        The normalised estimate of softmax attention.
    numerator : ndarray, shape (..., T, d_v)
        The estimated (stabilised) numerator.
    denominator : ndarray, shape (..., T)
        The estimated (stabilised) denominator.
    """

    output: npt.NDArray[Any]
    numerator: npt.NDArray[Any]
    denominator: npt.NDArray[Any]


def _all_float32(*xs: ArrayLike) -> bool:
    return all(isinstance(x, np.ndarray) and x.dtype == np.float32 for x in xs)


def _rotate(q: ArrayLike, k: ArrayLike, angles: ArrayLike | None, layout: Layout, func: str) -> tuple[Any, Any]:
    """``q`` and ``k`` rotated by ``angles``, in float64 whatever their dtype (the float64 path's
    numbers; a float32 result is rounded once, at the end); errors name ``func`` and the argument.
    """
    if angles is None:
        return q, k
    qa, ka = _validation.real_array(func, "q", q), _validation.real_array(func, "k", k)
    if qa.ndim >= 2 and ka.ndim >= 2 and qa.shape[-2] != ka.shape[-2]:
        raise ValueError(
            f"{func}: angles need as many queries as keys (T == S), got q.shape={qa.shape} and k.shape={ka.shape}"
        )
    out = []
    for name, x in (("q", qa), ("k", ka)):
        try:
            out.append(rotary.rotate(x, angles, layout))
        except (ValueError, TypeError, MemoryError) as e:
            # the rotation's own message names its arguments x (here q or k) and angles
            msg = str(e).replace("rotary.rotate: x", f"{func}: {name}").replace("rotary.rotate:", f"{func}:")
            raise _validation.same_kind(e)(msg) from None
    return out[0], out[1]


def _bias_view(bias: ArrayLike, q: ArrayLike, k: ArrayLike) -> tuple[Any, Any, int, int]:
    """The bias buffer, one element offset per sequence and the (T, S) element strides."""
    qa, ka = np.asarray(q), np.asarray(k)
    if qa.ndim < 2 or ka.ndim < 2:
        return bias, None, 0, 0  # the core reports the shape error of q/k
    raw = np.asarray(bias)
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"attention.softmax: bias must be a real array, got dtype {raw.dtype}")
    batch = qa.shape[:-2]
    target = batch + (qa.shape[-2], ka.shape[-2])
    try:
        np.broadcast_to(raw, target)  # a view: only the shapes are checked
    except ValueError:
        raise ValueError(
            f"attention.softmax: bias must be broadcastable to (..., T, S) = {target}, got shape {raw.shape}"
        ) from None
    # dimensions of length 1 (a broadcast view's zero strides among them) are not copied: the
    # core reads the bias through the strides below, so only the distinct entries are converted
    squeeze = tuple(i for i in range(raw.ndim) if raw.strides[i] == 0 and raw.shape[i] > 1)
    compact = raw[tuple(slice(0, 1) if i in squeeze else slice(None) for i in range(raw.ndim))]
    b = _validation.real_array("attention.softmax", "bias", compact)
    view = np.broadcast_to(b, target)
    strides = np.array(view.strides, dtype=np.int64) // b.itemsize
    if batch:
        idx = np.indices(batch, dtype=np.int64).reshape(len(batch), -1)
        offsets = strides[:-2] @ idx
    else:
        offsets = np.zeros(1, dtype=np.int64)
    return b, np.ascontiguousarray(offsets, dtype=np.int64), int(strides[-2]), int(strides[-1])


@shared
def softmax(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    *,
    angles: ArrayLike | None = None,
    causal: bool = True,
    scale: float | None = None,
    bias: ArrayLike | None = None,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
) -> RealArray:
    r"""Exact softmax attention, batched over the leading dimensions.

    ``o_i = Σ_j w_ij v_j / Σ_j w_ij`` with ``w_ij = exp(scale·q_i·k_j + bias_ij)`` (``j ≤ i``
    when causal), evaluated block-wise with a running row maximum subtracted before ``exp``
    (the "online softmax"): no logit overflows, and memory stays O(64·256) per thread for any
    ``T`` and ``S``.

    Parameters
    ----------
    {q}
    k : array_like, shape (..., S, d)
        Keys, with the same leading dimensions as ``q``.
    v : array_like, shape (..., S, d_v)
        Values.
    angles : array_like or None, shape (..., T, d/2)
        Rotary angles applied to ``q`` and ``k`` first (see the module docstring).
    {causal}
    {scale}
    bias : array_like or None
        An additive logit bias broadcastable to ``(..., T, S)``: ``b_ij`` is added to
        ``scale·q_i·k_j`` before the softmax. ALiBi is ``bias = −m_h·(i − j)`` per head ``h``
        (shape ``(H, 1, T, S)`` against ``q`` of shape ``(B, H, T, d)``); the Forgetting
        Transformer's forget gate is ``bias[..., i, j]`` :math:`= \sum_{l=j+1}^{i} \log f_l`. Entries may be ``-inf``
        (masked); NaN and ``+inf`` are rejected, and so is a row with every key masked.
    layout : {"interleaved", "half"}
        Channel pairing of ``angles``.
    nthreads : int or None
        Threads (``None``: all cores). The result does not depend on it.

    Returns
    -------
    ndarray, shape (..., T, d_v)
        float32 if ``q``, ``k`` and ``v`` are all float32 arrays, float64 otherwise (the dtype
        rule of the module docstring). The float32 path computes in float32 throughout (logits,
        running maximum, weights, sums; the bias rounded to float32 when added): its maximum
        error against the float64 path on the same inputs is bounded by
        ``max|v|·(2δ + 2γ_n + u)`` to first order, ``u = 2⁻²⁴``, ``γ_n = n u``,
        ``n = S + ⌈S/256⌉ + 1``, ``δ = (d + 6)·u·Λ + 2u·(1 + S/256)`` with ``Λ`` the largest
        ``scale·Σ_p |q_ip k_jp| + |bias_ij|`` (derived in the documentation's attention page,
        "float32 computation"); typical errors are a few float32 ulps of ``max|v|``.

    Raises
    ------
    ValueError
        Shapes that do not match (naming the argument), non-finite ``q``/``k``/``v``,
        ``scale ≤ 0``, ``causal`` with ``T != S``, a bias that does not broadcast, contains NaN or
        ``+inf``, or masks a whole row; a logit ``scale·q·k`` of a key the query sees (the causal
        mask hides the later keys: their logits are not used) or an output that overflows the
        precision of the computation (float64, or float32 on the float32 path), named.
    TypeError
        Complex or non-numeric input.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = rng.standard_normal((3, 2, 5, 4))
    >>> o = softmax(q, k, v)
    >>> o.shape
    (2, 5, 4)
    >>> bool(np.allclose(o[:, 0], v[:, 0]))  # the first query sees only the first key
    True
    """
    q, k = _rotate(q, k, angles, layout, "attention.softmax")
    if bias is None:
        b, offsets, st, ss = None, None, 0, 0
    else:
        b, offsets, st, ss = _bias_view(bias, q, k)
    out = np.asarray(
        _core.attention.softmax(
            q=q,
            k=k,
            v=v,
            causal=causal,
            scale=scale,
            bias=b,
            bias_offsets=offsets,
            bias_stride_t=st,
            bias_stride_s=ss,
            nthreads=nthreads,
        )
    )
    return out


@overload
def random_feature(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    D: int,
    *,
    angles: ArrayLike | None = None,
    estimator: Estimator = "trig",
    sigma: ArrayLike = 1.0,
    orthogonal: bool = False,
    causal: bool = True,
    trials: int = 1,
    seed: int = 0,
    stabilize: bool = True,
    scale: float | None = None,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
    return_parts: Literal[False] = False,
) -> RealArray: ...


@overload
def random_feature(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    D: int,
    *,
    angles: ArrayLike | None = None,
    estimator: Estimator = "trig",
    sigma: ArrayLike = 1.0,
    orthogonal: bool = False,
    causal: bool = True,
    trials: int = 1,
    seed: int = 0,
    stabilize: bool = True,
    scale: float | None = None,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
    return_parts: Literal[True],
) -> RandomFeatureParts: ...


@shared
def random_feature(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    D: int,
    *,
    angles: ArrayLike | None = None,
    estimator: Estimator = "trig",
    sigma: ArrayLike = 1.0,
    orthogonal: bool = False,
    causal: bool = True,
    trials: int = 1,
    seed: int = 0,
    stabilize: bool = True,
    scale: float | None = None,
    layout: Layout = "interleaved",
    nthreads: int | None = None,
    return_parts: bool = False,
) -> RealArray | RandomFeatureParts:
    r"""Random-feature (Performer-style) estimate of softmax attention.

    ``o_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i`` with ``S_i = Σ_j φ(k_j) v_jᵀ`` and ``z_i = Σ_j φ(k_j)``
    (``j ≤ i`` when causal, accumulated as prefix sums over chunks of 64 rows: memory O(D·d_v) per
    sequence, never O(T·D·d_v)). ``φ`` is the feature map of ``estimator`` (module docstring)
    with ``D`` frequencies; trial ``t`` draws them as
    ``ropelab.rff.sample_omega(D, d, sigma, orthogonal=orthogonal, index=t, seed=seed)`` (scaled per
    channel for a per-pair ``sigma``), shared by every sequence of the batch.

    Parameters
    ----------
    q, k, v : array_like, shapes (..., T, d), (..., S, d), (..., S, d_v)
        Queries, keys, values with the same leading dimensions.
    D : int
        Number of random frequencies (``≥ 1``).
    angles : array_like or None, shape (..., T, d/2)
        Rotary angles applied to ``q`` and ``k`` first (module docstring).
    {attention_estimator}
    sigma : float or array_like of shape (d/2,)
        Temperature: ``ω ~ N(0, σ² I_d)`` for a scalar. An array gives one temperature per rotary
        frequency pair (a spectrum, as in Fig. 2 of arXiv:2511.17388): both channels of pair
        ``i`` (``(2i, 2i+1)`` interleaved, ``(i, i+d/2)`` half) get standard deviation
        ``sigma[i]``, i.e. ``ω_c = sigma[pair(c)]·g_c`` with ``g ~ N(0, I_d)`` the draws of
        ``sigma=1`` (orthogonal rows are scaled the same way). All entries ``≥ 0`` (``0``: that pair does not enter the
        features; the ``"rfa"`` spectrum starts at 0).
    orthogonal : bool
        Orthogonal random features (blocks of ``d`` exactly orthogonal rows with χ_d norms).
    {causal}
    trials : int
        Independent repetitions (trial ``t`` uses the frequencies of index ``t``).
    seed : int
        Seed of the counter-based random streams; with ``trials`` it fixes every number.
    stabilize : bool
        Subtract the running maximum of the features' log-magnitudes before ``exp`` (per query
        row; causal: for row ``i`` over the keys ``j ≤ i``, the partial sums being rescaled when
        it grows, so a large key does not affect the rows before it; non-causal: over all keys;
        within each group of at most 128 frequencies, the groups' sums added at the larger scale).
        Cancels in the ratio; without it, amplitudes :math:`e^{\mathrm{scale}\, \|x\|^2/2}` beyond a double
        (float32 on the float32 path) raise.
    scale : float or None
        Logit scale (``None``: ``1/√d``), as in :func:`softmax`: ``q`` and ``k`` are multiplied by
        ``√scale`` before the feature map.
    layout : {"interleaved", "half"}
        Channel pairing of ``angles`` and of a per-pair ``sigma``.
    nthreads : int or None
        Threads (``None``: all cores). Results are bit-identical for every value.
    return_parts : bool
        Also return the numerator and denominator (:class:`RandomFeatureParts`).

    Returns
    -------
    ndarray or RandomFeatureParts
        Shape (..., T, d_v) for ``trials == 1``, else (trials, ..., T, d_v) (the denominator
        without the last axis). float32 if ``q``, ``k`` and ``v`` are all float32 arrays, float64
        otherwise (the dtype rule of the module docstring). The float32 path computes the
        projections, features, chunk products, states and sums in float32 (the same frequencies,
        rounded to float32 once; the per-row log-maxima and scales in float64). Its error against
        the float64 path on the same inputs is bounded entry by entry by
        ``(E_num + |o|·E_den) / (|den| − E_den) + u·|o|``, ``u = 2⁻²⁴``, where ``E`` sums
        ``a_f(q_i)·a_f(k_j)·((1 + e_f(q_i))·(1 + e_f(k_j))·(1 + γ(n)) − 1)`` over the features and
        keys (times ``|v_j|`` for the numerator), ``a_f`` the feature's magnitude (trig: its
        amplitude), ``e_f = γ(d + 1)·Σ_c |ω'_fc x_c|`` plus ``4u`` (trig) or ``u``,
        ``γ(m) = m·u/(1 − m·u)``, ``n = F + 3⌈S/64⌉ + G + 71`` (``F`` feature columns, ``G`` groups
        of 128 frequencies): derived in the documentation's attention page, "float32
        computation". Typical errors are a few float32 ulps of ``max|v|``.

    Raises
    ------
    ValueError
        Shapes that do not match, ``D < 1``, ``sigma`` negative or of the wrong length,
        non-finite input, ``causal`` with ``T != S``, features overflowing without ``stabilize``
        (naming ``q`` or ``k``; on the float32 path a feature or amplitude beyond float32); with
        ``stabilize`` only a log-magnitude beyond a double (naming ``q`` or ``k``: a projection
        ``sqrt(scale)·ω·x``, beyond float32 on the float32 path, or for ``"trig"`` a key's
        ``scale·|k|²/2``: a positive or hyperbolic key's gets weight 0); a feature-weighted sum of
        ``v`` beyond the precision's range (naming ``v``); or an estimated denominator of zero
        (non-finite output).
    TypeError
        Complex or non-numeric input, a non-integer ``D``/``trials``/``seed``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> q, k, v = 0.5 * rng.standard_normal((3, 128, 8))
    >>> exact = softmax(q, k, v)
    >>> est = random_feature(q, k, v, 4096, estimator="positive", seed=3)
    >>> est.shape
    (128, 8)
    >>> bool(np.linalg.norm(est - exact) / np.linalg.norm(exact) < 0.1)
    True
    >>> bool(np.array_equal(est, random_feature(q, k, v, 4096, estimator="positive", seed=3, nthreads=1)))
    True
    """
    f32 = _all_float32(q, k, v)
    q, k = _rotate(q, k, angles, layout, "attention.random_feature")
    if f32 and angles is not None:
        # rotated in float64 and rounded to float32 once: the float32 path takes them
        q, k = np.asarray(q).astype(np.float32), np.asarray(k).astype(np.float32)
    res = _core.attention.random_feature(
        q=q,
        k=k,
        v=v,
        D=D,
        estimator=estimator,
        sigma=sigma,
        layout=layout,
        orthogonal=orthogonal,
        causal=causal,
        seed=seed,
        trials=trials,
        stabilize=stabilize,
        scale=scale,
        nthreads=nthreads,
        parts=return_parts,
    )
    batch = np.asarray(q).shape[:-2]
    arrs = []
    for a in res:
        a = np.asarray(a)
        tail = a.shape[2:]
        a = a.reshape((a.shape[0],) + batch + tail)
        if int(trials) == 1:
            a = a[0]
        arrs.append(a)
    if return_parts:
        return RandomFeatureParts(*arrs)
    first: RealArray = arrs[0]
    return first


@shared
def feature_map(X: ArrayLike, omega: ArrayLike, estimator: Estimator = "trig", *, scale: float = 1.0) -> FloatArray:
    """The feature map ``φ`` of :func:`random_feature` (without stabilisation).

    Parameters
    ----------
    X : array_like, shape (n, d)
        Rows to map.
    omega : array_like, shape (D, d)
        Frequencies (e.g. :func:`ropelab.rff.sample_omega`).
    {attention_estimator}
    scale : float
        Logit scale: rows are multiplied by ``√scale`` first.

    Returns
    -------
    ndarray, shape (n, 2D) for trig and hyperbolic, (n, D) for positive

    Raises
    ------
    ValueError
        Shapes, non-finite input, a feature overflowing a double.

    Examples
    --------
    >>> from ropelab import rff
    >>> w = rff.sample_omega(64, 3, seed=0)
    >>> x = np.array([[0.1, 0.2, -0.3]])
    >>> bool(np.allclose(feature_map(x, w, "trig"), rff.feature_map(x, w, "trig")))
    True
    >>> phi = feature_map(x, w, "hyperbolic")
    >>> bool((phi @ phi.T)[0, 0] > 0)
    True
    """
    return np.asarray(_core.attention.feature_map(X=X, omega=omega, estimator=estimator, scale=scale))


Rule = Literal["one", "tan", "optimal", "rope", "rfa"]
RULES: tuple[Rule, ...] = ("one", "tan", "optimal", "rope", "rfa")


def mean_cosine(q: ArrayLike, k: ArrayLike, *, causal: bool = True) -> float:
    """Mean cosine similarity ``ξ̄`` of the attended query–key pairs.

    ``ξ̄ = mean over (i, j) of q̂_i·k̂_j`` (``q̂ = q/‖q‖``; pairs ``j ≤ i`` when causal, all pairs
    otherwise; every sequence of the batch), computed in O(T·d) with prefix sums of ``k̂``.
    Theorem 1 of arXiv:2511.17388 states its temperature for unit vectors with ``q·k = ξ``;
    :func:`rule_sigma` uses ``ξ̄`` as the ``ξ`` of a whole attention map.

    Parameters
    ----------
    q : array_like, shape (..., T, d)
        Queries (non-zero rows).
    k : array_like, shape (..., S, d)
        Keys (non-zero rows).
    causal : bool
        Average over the pairs ``j ≤ i`` (needs ``T == S``), else over all pairs.

    Returns
    -------
    float
        The mean cosine.

    Raises
    ------
    ValueError
        For shapes that do not match, non-finite entries, zero rows, or ``causal`` with
        ``T != S``.

    Examples
    --------
    >>> mean_cosine([[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [1.0, 0.0]])  # pairs (0,0), (1,0), (1,1)
    0.3333333333333333
    """
    qa = _validation.real_array("attention.mean_cosine", "q", q, finite=True)
    ka = _validation.real_array("attention.mean_cosine", "k", k, finite=True)
    if qa.ndim < 2 or ka.ndim != qa.ndim or qa.shape[-1] != ka.shape[-1]:
        raise ValueError(
            f"attention.mean_cosine: q and k must have shapes (..., T, d) and (..., S, d), "
            f"got {qa.shape} and {ka.shape}"
        )
    with np.errstate(over="ignore", under="ignore"):
        qn, kn = np.linalg.norm(qa, axis=-1, keepdims=True), np.linalg.norm(ka, axis=-1, keepdims=True)
    if not (np.isfinite(qn).all() and np.isfinite(kn).all() and (qn > 0).all() and (kn > 0).all()):
        # a norm over- or underflowed (rows near the ends of the double range): rows divided by
        # their largest entry first (the cosines do not change)
        qa = qa / np.maximum(np.abs(qa).max(axis=-1, keepdims=True, initial=0.0), np.finfo(np.float64).tiny)
        ka = ka / np.maximum(np.abs(ka).max(axis=-1, keepdims=True, initial=0.0), np.finfo(np.float64).tiny)
        qn, kn = np.linalg.norm(qa, axis=-1, keepdims=True), np.linalg.norm(ka, axis=-1, keepdims=True)
    if (qn == 0).any() or (kn == 0).any():
        raise ValueError("attention.mean_cosine: q and k must not have zero rows")
    qh, kh = qa / qn, ka / kn
    if causal:
        if qa.shape[-2] != ka.shape[-2]:
            raise ValueError(f"attention.mean_cosine: causal needs T == S, got {qa.shape} and {ka.shape}")
        T = qa.shape[-2]
        total = float((qh * np.cumsum(kh, axis=-2)).sum())
        pairs = T * (T + 1) / 2 * (qa.size // (T * qa.shape[-1]))
    else:
        total = float((qh.sum(-2) * kh.sum(-2)).sum())
        pairs = qa.shape[-2] * ka.shape[-2] * (qa.size // (qa.shape[-2] * qa.shape[-1]))
    return float(total / pairs)


#: The numbers each rule uses (:func:`rule_sigma`).
_RULE_NEEDS: dict[str, tuple[str, ...]] = {"tan": ("xi",), "optimal": ("xi", "D"), "rope": ("d",), "rfa": ("d",)}


@overload
def rule_sigma(
    rule: Literal["one", "tan", "optimal"],
    *,
    xi: float | None = None,
    D: int | None = None,
    d: int | None = None,
    base: float = 10000.0,
) -> float: ...
@overload
def rule_sigma(
    rule: Literal["rope", "rfa"],
    *,
    xi: float | None = None,
    D: int | None = None,
    d: int | None = None,
    base: float = 10000.0,
) -> FloatArray: ...
@overload
def rule_sigma(
    rule: Rule,
    *,
    xi: float | None = None,
    D: int | None = None,
    d: int | None = None,
    base: float = 10000.0,
) -> FloatOrArray: ...
def rule_sigma(
    rule: Rule,
    *,
    xi: float | None = None,
    D: int | None = None,
    d: int | None = None,
    base: float = 10000.0,
) -> FloatOrArray:
    """The temperature of a rule: a scalar σ or one σ per rotary pair (length ``d/2``).

    ``"one"``: σ = 1 (the conjugate trig and positive estimators are then unbiased).
    ``"tan"``: the rule of Theorem 1 of arXiv:2511.17388, ``σ = tan(½ arccos ξ)``
    (:func:`ropelab.temperature.paper_sigma`). ``"optimal"``: the MSE-optimal σ*(D) for unit
    vectors with ``q·k = ξ`` (:func:`ropelab.temperature.optimal_sigma`, trig). ``"rope"`` and
    ``"rfa"``: the per-pair spectra of the authors' code (Fig. 2 of arXiv:2511.17388;
    :func:`ropelab.temperature.spectrum` with ``temp_max = 1`` and ``base``).

    Parameters
    ----------
    rule : {"one", "tan", "optimal", "rope", "rfa"}
        The rule.
    xi : float, optional
        The cosine ``ξ`` (required by ``"tan"`` and ``"optimal"``).
    D : int, optional
        Number of random features (required by ``"optimal"``).
    d : int, optional
        Head dimension (required by ``"rope"`` and ``"rfa"``; the spectra have ``d/2`` entries).
    base : float
        RoPE base of the spectra.

    Returns
    -------
    float or ndarray, shape (d/2,)
        σ, or one σ per rotary pair.

    Raises
    ------
    ValueError
        For an unknown rule (and the errors of the temperature functions it calls).
    TypeError
        For a number the rule needs and was not given.

    Examples
    --------
    >>> rule_sigma("tan", xi=0.5) ** 2
    0.3333333333333333
    >>> rule_sigma("rope", d=8)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    needs = _RULE_NEEDS.get(rule, ()) if isinstance(rule, str) else ()
    missing = [n for n, v in (("xi", xi), ("D", D), ("d", d)) if n in needs and v is None]
    if missing:
        raise TypeError(
            f"attention.rule_sigma: rule {rule!r} needs {', '.join(missing)} "
            "(call attention.rule_sigma(rule, xi=..., D=..., d=...))"
        )
    if rule == "one":
        return 1.0
    # the numbers a rule needs are not None here (checked above)
    # the temperature functions check xi, D, d and base: their messages name attention.rule_sigma
    with _validation.renamed(
        "attention.rule_sigma", "temperature.paper_sigma", "temperature.optimal_sigma", "temperature.spectrum"
    ):
        if rule == "tan":
            return float(temperature.paper_sigma(cast(float, xi)))
        if rule == "optimal":
            return float(temperature.optimal_sigma(cast(float, xi), cast(int, D)))
        if rule in ("rope", "rfa"):
            return np.asarray(temperature.spectrum(cast(int, d), rule, base=base))
    raise ValueError(f"attention.rule_sigma: rule must be one of {RULES}, got {rule!r}")


@document_fields
@dataclass(frozen=True)
class AttentionError:
    """Relative error of random-feature attention against exact softmax attention.

    For each rule and ``D``, trial ``t`` gives ``e_t = ‖Ô_t − O‖_F / ‖O‖_F`` (Frobenius norms
    over every sequence, row and value channel; ``O`` = :func:`softmax`, ``Ô_t`` =
    :func:`random_feature` trial ``t``). ``mean`` is the mean of ``e_t`` over the trials and
    ``stderr`` its standard error (sample standard deviation / √trials).
    """

    D: npt.NDArray[np.int64] = field(
        metadata=field_doc("The feature counts, in the order given.", type="ndarray of int, shape (n_D,)")
    )
    rules: tuple[str, ...] = field(
        metadata=field_doc("The temperature rules (:func:`rule_sigma`), as given.", type="tuple of str")
    )
    mean: FloatArray = field(
        metadata=field_doc("Mean relative error per rule and D.", type="ndarray, shape (n_rules, n_D)")
    )
    stderr: FloatArray = field(
        metadata=field_doc("Its standard error per rule and D.", type="ndarray, shape (n_rules, n_D)")
    )
    sigma: dict[str, list[Any]] = field(
        metadata=field_doc(
            "rule -> list (one entry per D) of the σ used (a float or a list of d/2 floats).", type="dict"
        )
    )
    xi: float = field(
        metadata=field_doc('The mean cosine :func:`mean_cosine` used by the ``"tan"`` and ``"optimal"`` rules.')
    )
    estimator: str = field(
        metadata=field_doc('The random features, ``"trig"``, ``"positive"`` or ``"hyperbolic"`` (input).')
    )
    trials: int = field(metadata=field_doc("Monte-Carlo trials per (rule, D) (input)."))
    seed: int = field(metadata=field_doc("Seed of the random features, the same for every rule and D (input)."))

    def at(self, rule: str, D: int) -> tuple[float, float]:
        """``(mean, stderr)`` of one rule at one D.

        Parameters
        ----------
        rule : str
            One of the ``rules``.
        D : int
            One of the values of ``D``.

        Returns
        -------
        tuple of float
            The mean relative error and its standard error.

        Raises
        ------
        ValueError
            If ``rule`` is not one of ``rules`` or ``D`` not one of the feature counts.
        """
        if rule not in self.rules:
            raise ValueError(f"AttentionError.at: rule must be one of {self.rules}, got {rule!r}")
        hits = (
            np.flatnonzero(self.D == D)
            if isinstance(D, (int, np.integer)) and not isinstance(D, bool)
            else np.empty(0, dtype=np.intp)
        )
        if hits.size == 0:
            raise ValueError(f"AttentionError.at: D must be one of {self.D.tolist()}, got {D!r}")
        i, j = self.rules.index(rule), int(hits[0])
        return float(self.mean[i, j]), float(self.stderr[i, j])


def error(
    q: ArrayLike,
    k: ArrayLike,
    v: ArrayLike,
    D: int | Sequence[int],
    *,
    angles: ArrayLike | None = None,
    rules: Sequence[Rule] = RULES,
    estimator: Estimator = "trig",
    trials: int = 16,
    seed: int = 0,
    causal: bool = True,
    scale: float | None = None,
    layout: Layout = "interleaved",
    orthogonal: bool = False,
    base: float = 10000.0,
    nthreads: int | None = None,
) -> AttentionError:
    """Relative Frobenius error of random-feature attention against exact attention, per rule and D.

    Every rule and D uses the same ``seed`` (common random numbers: the rules differ only in σ,
    which sharpens their comparison). Parameters not listed are those of :func:`random_feature`.

    Parameters
    ----------
    q, k, v : array_like
        As in :func:`softmax` (angles, if given, are applied first, to both the exact and the
        estimated attention).
    D : int or sequence of int
        Feature counts.
    angles : array_like, shape (..., T, d/2), optional
        Rotary angles applied to ``q`` and ``k`` first.
    rules : sequence of {"one", "tan", "optimal", "rope", "rfa"}
        Temperature rules (:func:`rule_sigma`); ``ξ`` is :func:`mean_cosine` of the rotated,
        ``√scale``-scaled ``q`` and ``k``.
    estimator : {"trig", "positive", "hyperbolic"}
        The random features (:func:`random_feature`).
    trials : int
        Monte-Carlo trials per (rule, D) (``≥ 2`` for a standard error).
    seed : int
        Seed of the random features (the same for every rule and D).
    causal : bool
        Causal attention.
    scale : float, optional
        Logit scale (default ``1/√d``).
    layout : {"interleaved", "half"}
        Channel pairs of the rotation and of per-pair temperatures.
    orthogonal : bool
        Orthogonal random features.
    base : float
        RoPE base of the ``"rope"``/``"rfa"`` spectra.
    nthreads : int, optional
        Threads (``None``: all cores); results do not depend on it.

    Returns
    -------
    AttentionError
        Mean relative errors and standard errors per rule and D.

    Raises
    ------
    ValueError
        An unknown rule, ``trials < 2``, a ``D < 1``, and everything :func:`random_feature` rejects.
    TypeError
        ``rules`` that is not a sequence of rule names, and the arrays :func:`random_feature`
        refuses (complex, bool, strings).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k, v = 0.5 * rng.standard_normal((3, 64, 8))
    >>> r = error(q, k, v, [16, 256], rules=("one", "tan"), trials=8)
    >>> r.mean.shape
    (2, 2)
    >>> bool(r.at("one", 256)[0] < r.at("one", 16)[0])
    True
    """
    Ds = np.atleast_1d(np.asarray(D))
    if Ds.ndim != 1 or Ds.size == 0 or Ds.dtype.kind not in "iu" or (Ds < 1).any():
        raise ValueError(f"attention.error: D must be an integer >= 1 or a sequence of them, got {D!r}")
    if isinstance(trials, (bool, np.bool_)) or not isinstance(trials, (int, np.integer)) or trials < 2:
        raise ValueError(f"attention.error: trials must be an integer >= 2 (for a standard error), got {trials!r}")
    trials = int(trials)  # a NumPy integer would make the standard error's sqrt float16 (np.int8)
    if isinstance(rules, str) or not isinstance(rules, Iterable):
        raise TypeError(f"attention.error: rules must be a sequence of rule names from {RULES}, got {rules!r}")
    rules = tuple(rules)
    for r in rules:
        if r not in RULES:
            raise ValueError(f"attention.error: rules must be taken from {RULES}, got {r!r}")
    # the functions called check the arrays and options: their messages name attention.error
    with _validation.renamed(
        "attention.error",
        "attention.softmax",
        "attention.random_feature",
        "attention.mean_cosine",
        "attention.rule_sigma",
    ):
        q, k = _rotate(q, k, angles, layout, "attention.error")
        exact = softmax(q, k, v, causal=causal, scale=scale, nthreads=nthreads)
        qa = np.asarray(q, dtype=np.float64)
        d = qa.shape[-1]
        s = 1 / np.sqrt(d) if scale is None else float(scale)
        xi = mean_cosine(qa, np.asarray(k, dtype=np.float64), causal=causal)  # scale-invariant
        del s
        # errors relative to ‖O‖: both sides divided by max |O| first, so values near the top of the
        # double range (v × 1e200) do not overflow the squares of the norms
        peak = float(np.abs(exact).max(initial=0.0))
        peak = peak if peak > 0 else 1.0
        exact = exact / peak
        norm = float(np.linalg.norm(exact))
        mean = np.empty((len(rules), Ds.size))
        se = np.empty_like(mean)
        sigmas: dict[str, list[Any]] = {r: [] for r in rules}
        for i, rule in enumerate(rules):
            for j, Dj in enumerate(Ds.tolist()):
                sig = rule_sigma(rule, xi=xi, D=Dj, d=d, base=base)
                sigmas[rule].append(sig.tolist() if isinstance(sig, np.ndarray) else sig)
                est = random_feature(
                    q,
                    k,
                    v,
                    Dj,
                    estimator=estimator,
                    sigma=sig,
                    orthogonal=orthogonal,
                    causal=causal,
                    seed=seed,
                    trials=trials,
                    scale=scale,
                    layout=layout,
                    nthreads=nthreads,
                )
                diff = (est / peak - exact).reshape(trials, -1)
                e = np.linalg.norm(diff, axis=1) / norm
                mean[i, j] = e.mean()
                se[i, j] = e.std(ddof=1) / math.sqrt(trials)
        return AttentionError(
            D=Ds.astype(np.int64),
            rules=rules,
            mean=mean,
            stderr=se,
            sigma=sigmas,
            xi=xi,
            estimator=estimator,
            trials=int(trials),
            seed=int(seed),
        )


@document_fields
@dataclass(frozen=True)
class AnglePrecision:
    """Float32 against float64 along a sequence (see :func:`angle_precision`)."""

    angle_error: FloatArray = field(
        metadata=field_doc(
            r":math:`\max_i |\psi^{\mathrm{f32}}_{t,i} - \psi^{\mathrm{f64}}_{t,i}|` (radians).",
            type="ndarray, shape (T,)",
        )
    )
    score_error: FloatArray = field(
        metadata=field_doc(
            "``|s32_t − s64_t| / (‖q_t‖ ‖k_0‖)`` with ``s_t = (R(ψ_t) q_t)·(R(ψ_0) k_0)``: the rotated score "
            "between position ``t`` and position 0.",
            type="ndarray, shape (T,)",
        )
    )
    angle_max: FloatArray = field(
        metadata=field_doc(
            r":math:`\max_i |\psi^{\mathrm{f64}}_{t,i}|`: the size of the angles whose float32 rounding is the error.",
            type="ndarray, shape (T,)",
        )
    )


def angle_precision(
    q: ArrayLike, k: ArrayLike, omega: ArrayLike, theta: ArrayLike = 1.0, *, layout: Layout = "interleaved"
) -> AnglePrecision:
    r"""How far a float32 model's rotary angles and rotated scores drift from float64 over ``T``.

    The float32 path accumulates :math:`\psi_t = \Theta \odot \sum_{\kappa\le t} \omega_\kappa` in single precision
    (:func:`ropelab.rotary.cumulative_angles` with ``accumulate="float32"``: the running sum is
    rounded to float32 at every step, so its error grows with ``t`` and with ``|ψ|``, whose float32
    spacing is ``|ψ|·2⁻²³``), rotates float32 ``q``, ``k`` with those angles
    (:func:`ropelab.rotary.rotate`, products rounded to float32) and forms the score in float32;
    the float64 path does everything in double. The cosine and sine of a float32 angle are exact
    to double precision here, so the score error is that of the angle's accumulation and of the
    float32 products, not of a float32 ``sin`` routine.

    Parameters
    ----------
    q, k : array_like, shape (T, d)
        Queries and keys.
    omega : array_like, shape (T, d/2)
        Per-step angles (RoPE: a constant row of frequencies; Selective RoPE: the gated,
        convolved projections).
    theta : float or array_like of shape (d/2,)
        The per-pair scale Θ.
    layout : {"interleaved", "half"}
        Channel pairing.

    Returns
    -------
    AnglePrecision

    Raises
    ------
    ValueError
        Shapes that do not match, non-finite input.

    Examples
    --------
    >>> from ropelab import rotary
    >>> T, d = 4096, 8
    >>> omega = np.tile(rotary.frequencies(d), (T, 1))          # RoPE: ψ_t = (t+1)·θ_i
    >>> rng = np.random.default_rng(0)
    >>> q, k = rng.standard_normal((2, T, d))
    >>> p = angle_precision(q, k, omega)
    >>> bool(p.angle_error[-1] > 1e-3 > 1e-6 > p.angle_error[9])  # float32 drift grows with t
    True
    >>> bool(p.score_error[:100].max() < 1e-5 < p.score_error[-100:].max())
    True
    """
    f = "attention.angle_precision"
    om = _validation.real_array(f, "omega", omega, finite=True)
    qa, ka = _validation.real_array(f, "q", q, finite=True), _validation.real_array(f, "k", k, finite=True)
    if om.ndim != 2 or qa.ndim != 2 or ka.shape != qa.shape or qa.shape != (om.shape[0], 2 * om.shape[1]):
        raise ValueError(
            f"attention.angle_precision: omega must be (T, d/2) and q, k (T, d), got omega {om.shape}, "
            f"q {qa.shape}, k {ka.shape}"
        )
    big = float(np.finfo(np.float32).max)
    for name, a in (("q", qa), ("k", ka)):
        top = float(np.abs(a).max(initial=0.0))
        if top > big:
            raise ValueError(
                f"{f}: {name} must be representable in float32 for the float32 path (|{name}| <= {big:.8g}), "
                f"got max |{name}| = {top!r}"
            )
    with _validation.renamed(f, "rotary.cumulative_angles", "rotary.rotate"):
        psi64 = rotary.cumulative_angles(om, theta, accumulate="float64")
        psi32 = rotary.cumulative_angles(om, theta, accumulate="float32")
        for label, psi in (("float64", psi64), ("float32", psi32)):
            if not np.isfinite(psi).all():
                raise ValueError(
                    f"{f}: omega and theta: the running angles Θ ⊙ Σ ω overflow {label} "
                    f"(max |omega| = {float(np.abs(om).max()):.4g}, over T = {om.shape[0]} steps)"
                )
        r64q, r64k = rotary.rotate(qa, psi64, layout), rotary.rotate(ka[:1], psi64[:1], layout)
        r32q = rotary.rotate(qa.astype(np.float32), psi32, layout)
        r32k = rotary.rotate(ka[:1].astype(np.float32), psi32[:1], layout)
    s64 = r64q @ r64k[0]
    s32 = (r32q @ r32k[0]).astype(np.float64)  # float32 products and sums
    if not np.isfinite(s32).all():
        t = int(np.flatnonzero(~np.isfinite(s32))[0])
        raise ValueError(
            f"{f}: q and k: the float32 score q_t·k_0 overflows float32 at t = {t} "
            f"(max |q| = {float(np.abs(qa).max()):.4g}, max |k_0| = {float(np.abs(ka[0]).max()):.4g})"
        )
    # the scale ‖q_t‖‖k_0‖ without underflow or overflow of the squares (q, k near 1e-300 or 1e300)
    norms = _scaled_norms(qa) * _scaled_norms(ka[:1])[0]
    err = np.abs(s32 - s64)
    # a zero row of q (or a zero k_0) has the score 0 on both paths: its relative error is 0
    score_error = np.divide(err, norms, out=np.zeros_like(err), where=norms > 0)
    return AnglePrecision(
        angle_error=np.abs(psi32 - psi64).max(axis=1),
        score_error=score_error,
        angle_max=np.abs(psi64).max(axis=1),
    )


def _scaled_norms(x: FloatArray) -> FloatArray:
    """Euclidean norms of the rows of ``x``, each computed on the row divided by its largest
    magnitude (no underflow of the squares of tiny rows, no overflow of huge ones).
    """
    m = np.abs(x).max(axis=1)
    safe = np.where(m > 0, m, 1.0)
    out: FloatArray = m * np.linalg.norm(x / safe[:, None], axis=1)
    return out
