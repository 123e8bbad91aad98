r"""Explicit constructions that track (or fail to track) the state of a group word problem.

The Selective RoPE paper (§2–3, following Merrill et al. 2024 and Grazzi et al. 2025) argues
through mechanisms: parity needs a sign flip that depends on the input; a rotation by ``π b_t``
(Selective RoPE's input-dependent phase) provides it; rotations of one channel pair commute, so
they can only realise abelian groups; products of generalised Householder reflections (DeltaNet,
DeltaProduct) realise non-abelian ones. Each tracker here runs one of these mechanisms on the
token sequences of :func:`ropelab.tasks.state_tracking` and decodes a predicted state per step:

* :func:`track_rotation` — one rotating channel pair: phase
  :math:`\varphi_t = \sum_{\tau\le t} \operatorname{angle}(g_\tau)` (the cumulative angles of Selective RoPE,
  :func:`ropelab.rotary.cumulative_angles`), decoded as the element whose own angle is nearest on the circle;
* :func:`track_householder` — the delta-rule recurrence of the core
  (:func:`ropelab.recurrence.delta_product`) with unit keys and ``β = 2``: each token's
  transition is a product of reflections equal to a faithful orthogonal representation of its
  group element, so the state is ``r ρ(s_t)`` and decodes exactly;
* :func:`track_fixed_rope` — RoPE's phase ``θ t``, which ignores the tokens;
* :func:`track_positive_gates` — a product of positive gates read by its sign.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ropelab import _validation, recurrence, rotary
from ropelab._docstrings import shared
from ropelab._validation import _PIECE, _copy_pieces
from ropelab.tasks import Group, _check_size
from ropelab.tasks import group as _group

__all__ = [
    "element_angles",
    "representation",
    "householder_factors",
    "track_rotation",
    "track_householder",
    "track_fixed_rope",
    "track_positive_gates",
    "accuracy",
]

IntArray = npt.NDArray[np.int64]


def _tokens(func: str, g: Group, tokens: npt.ArrayLike) -> IntArray:
    t = np.asarray(tokens)
    if t.dtype.kind not in "iu" or t.ndim != 2:
        raise ValueError(f"{func}: tokens must be a 2-D integer array (n, T), got dtype {t.dtype} shape {t.shape}")
    # refused before any pass over the tokens (a broadcast view can be a trillion tokens); the
    # passes below run in pieces, so Ctrl-C is answered between them
    _check_size(func, *t.shape)
    out: IntArray = np.empty(t.shape, dtype=np.int64)
    _copy_pieces(out, t)
    flat = out.reshape(-1)
    lo = min((int(np.min(flat[b : b + _PIECE])) for b in range(0, flat.size, _PIECE)), default=0)
    hi = max((int(np.max(flat[b : b + _PIECE])) for b in range(0, flat.size, _PIECE)), default=0)
    if flat.size and (lo < 0 or hi >= g.order):
        raise ValueError(f"{func}: tokens must be element indices in [0, {g.order}), got values in [{lo}, {hi}]")
    return out


def _as_group(g: Group | str, func: str) -> Group:
    if isinstance(g, str):
        with _validation.renamed(func, "group", args={"name": "g"}):
            return _group(g)
    if not isinstance(g, Group):
        raise TypeError(f"{func}: g must be a Group or a group name such as 'Z3', got {type(g).__name__}")
    return g


@shared
def element_angles(g: Group | str) -> npt.NDArray[np.float64]:
    """Rotation angles of a cyclic group's elements: element ``s`` (shift by ``s``) → ``2π s / n``.

    For ``S2`` this is ``π b``: Selective RoPE's parity phase. For a non-cyclic group (``S3``)
    the angles of its abelianisation are used: even permutations 0, odd ones ``π`` — the best
    one rotation pair can do, since rotations commute.

    Parameters
    ----------
    {g}

    Returns
    -------
    ndarray, shape (order,)
        One angle per element.

    Examples
    --------
    >>> element_angles("Z3") / np.pi * 3
    array([0., 2., 4.])
    """
    g = _as_group(g, "element_angles")
    n = g.order
    shifts = [p[0] for p in g.elements]  # the shift of Z_n / A3 / S2 elements: where 0 goes
    if g.abelian and sorted(shifts) == list(range(n)):
        return np.array([2 * math.pi * s / n for s in shifts])
    # sign of the permutation: the abelianisation of S_n
    signs = []
    for p in g.elements:
        inv = sum(1 for i in range(len(p)) for j in range(i + 1, len(p)) if p[i] > p[j])
        signs.append(math.pi * (inv % 2))
    return np.array(signs, dtype=np.float64)


def _circular_nearest(phi: npt.NDArray[np.float64], angles: npt.NDArray[np.float64]) -> IntArray:
    out: IntArray = np.empty(phi.shape, dtype=np.int64)
    flat, res = phi.reshape(-1), out.reshape(-1)
    step = max(1, _PIECE // max(1, angles.size))  # pieces of ~_PIECE differences: Ctrl-C between them
    for b in range(0, flat.size, step):
        diff = np.angle(np.exp(1j * (flat[b : b + step, None] - angles)))
        res[b : b + step] = np.argmin(np.abs(diff), axis=-1)
    return out


@shared
def track_rotation(g: Group | str, tokens: npt.ArrayLike, angles: npt.ArrayLike | None = None) -> IntArray:
    """Track a word problem with one rotating channel pair (an input-dependent phase).

    Parameters
    ----------
    {g}
    {tokens}
    angles : array_like, shape (order,), optional
        The rotation angle of each element (default :func:`element_angles`).

    Returns
    -------
    ndarray of int, shape (n, T)
        The predicted state: the element whose angle is nearest to ``φ_t`` on the circle.

    Raises
    ------
    ValueError
        For tokens that are not element indices or angles of the wrong shape.

    Examples
    --------
    >>> from ropelab.tasks import state_tracking
    >>> data = state_tracking("S2", 3, 50, seed=0)
    >>> bool(np.array_equal(track_rotation("S2", data.tokens), data.labels))
    True
    """
    g = _as_group(g, "track_rotation")
    t = _tokens("track_rotation", g, tokens)
    a = element_angles(g) if angles is None else np.asarray(angles, dtype=np.float64)
    if a.shape != (g.order,):
        raise ValueError(f"track_rotation: angles must have shape ({g.order},), got {a.shape}")
    omega = a[t][..., None]  # (n, T, 1): one pair
    phi = rotary.cumulative_angles(omega)[..., 0]
    return _circular_nearest(phi, a)


@shared
def representation(g: Group | str) -> npt.NDArray[np.float64]:
    r"""A faithful orthogonal representation ``ρ`` of a permutation group, one matrix per element.

    The standard representation: the permutation matrices (:math:`e_i^\top M_a = e_{a[i]}^\top`) restricted
    to the plane orthogonal to ``(1, …, 1)``, so ``ρ(a · b) = ρ(a) ρ(b)`` and a row state
    :math:`x_t = x_{t-1} \rho(g_t)` follows the prefix product. For ``S3`` it is 2-D: transpositions
    are reflections, 3-cycles rotations by ``±2π/3``.

    Parameters
    ----------
    {g}

    Returns
    -------
    ndarray, shape (order, m, m)
        ``ρ`` of each element, ``m`` = number of points − 1.

    Examples
    --------
    >>> from ropelab.tasks import group
    >>> rho, g = representation("S3"), group("S3")
    >>> bool(np.allclose(rho[g.table[1, 4]], rho[1] @ rho[4]))
    True
    """
    g = _as_group(g, "representation")
    k = len(g.elements[0])
    # orthonormal basis of the plane ⟂ (1,…,1): the last k−1 columns of a QR of [1, I]
    basis, _ = np.linalg.qr(np.column_stack([np.ones(k), np.eye(k)[:, : k - 1]]))
    U = basis[:, 1:]
    out = np.empty((g.order, k - 1, k - 1))
    for i, p in enumerate(g.elements):
        M = np.zeros((k, k))
        M[np.arange(k), list(p)] = 1.0  # row i has its 1 in column p[i]
        out[i] = U.T @ M @ U
    return out


def householder_factors(Q: npt.ArrayLike, tol: float = 1e-12) -> npt.NDArray[np.float64]:
    """Unit vectors ``w_1 … w_k`` with ``Q = H(w_1) ⋯ H(w_k)``, ``H(w) = I − 2 w wᵀ`` (``k ≤ m``).

    Each step reflects the current column ``j`` onto ``e_j`` (skipped when it is already there),
    as in a Householder QR of an orthogonal matrix; a final ``−1`` on the diagonal is one more
    reflection.

    Parameters
    ----------
    Q : array_like, shape (m, m)
        An orthogonal matrix.
    tol : float
        Columns closer than this to ``e_j`` need no reflection (finite, ``≥ 0``).

    Returns
    -------
    ndarray, shape (k, m)
        The vectors, in product order.

    Raises
    ------
    TypeError
        If ``Q`` is not a real array (complex, bool, strings) or ``tol`` is not a real number.
    ValueError
        If ``Q`` is not finite, square and orthogonal (to 1e-9), or ``tol`` is negative or not
        finite.

    Examples
    --------
    >>> R = np.array([[0.0, -1.0], [1.0, 0.0]])          # a rotation: two reflections
    >>> W = householder_factors(R)
    >>> H = [np.eye(2) - 2 * np.outer(w, w) for w in W]
    >>> len(W), bool(np.allclose(H[0] @ H[1], R))
    (2, True)
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)):
        raise TypeError(f"householder_factors: tol must be a real number, got {tol!r}")
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"householder_factors: tol must be a finite number >= 0, got {tol!r}")
    A = _validation.real_array("householder_factors", "Q", Q, finite=True)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or not np.allclose(A.T @ A, np.eye(A.shape[0]), atol=1e-9):
        raise ValueError("householder_factors: Q must be a square orthogonal matrix")
    m = A.shape[0]
    ws: list[npt.NDArray[np.float64]] = []
    for j in range(m):
        u = A[:, j] - np.eye(m)[j]
        if np.linalg.norm(u) > tol:
            w = u / np.linalg.norm(u)
            A = A - 2 * np.outer(w, w @ A)  # H(w) A: now A e_j = e_j
            ws.append(w)
    # A is the identity now: Q = H(w_1) ⋯ H(w_k) A
    return np.array(ws, dtype=np.float64).reshape(len(ws), m)


@shared
def track_householder(g: Group | str, tokens: npt.ArrayLike, *, seed: int = 0) -> IntArray:
    """Track a word problem with the delta rule: reflections (``β = 2``, unit keys) per token.

    The core's DeltaProduct recurrence (:func:`ropelab.recurrence.delta_product`) runs with one
    extra first step that writes the row state ``rᵀ`` (key ``r``, ``β = 1``, value 1) and then,
    per token ``g_t``, the Householder factors of ``ρ(g_t)`` (:func:`representation`,
    :func:`householder_factors`; unused factors have ``β = 0``) with zero values, so the state
    is ``r ρ(g_1) ⋯ ρ(g_t)``. Reading it with the ``m`` unit queries gives the row vector, decoded
    as the element ``e`` with the nearest ``r ρ(e)``.

    Parameters
    ----------
    {g}
    {tokens}
    seed : int
        Seed of the generic reference vector ``r``.

    Returns
    -------
    ndarray of int, shape (n, T)
        The predicted states.

    Raises
    ------
    ValueError
        For tokens that are not element indices.

    Examples
    --------
    >>> from ropelab.tasks import state_tracking
    >>> data = state_tracking("S3", 2, 40, seed=3)
    >>> bool(np.array_equal(track_householder("S3", data.tokens), data.labels))
    True
    """
    seed = _validation.seed("track_householder", seed)  # None would give another result every call
    g = _as_group(g, "track_householder")
    t = _tokens("track_householder", g, tokens)
    rho = representation(g)
    m = rho.shape[1]
    factors = [householder_factors(R) for R in rho]
    n_h = max(1, max(len(f) for f in factors))
    keys = np.zeros((g.order, n_h, m))
    betas = np.zeros((g.order, n_h))
    for e, f in enumerate(factors):
        keys[e, : len(f)] = f
        betas[e, : len(f)] = 2.0
        keys[e, len(f) :, 0] = 1.0  # unit keys with β = 0: identity factors
    r = np.random.default_rng(seed).standard_normal(m)
    r /= np.linalg.norm(r)
    n, T = t.shape
    k = np.empty((n, T + 1, n_h, m))
    beta = np.empty((n, T + 1, n_h))
    v = np.zeros((n, T + 1, n_h, 1))
    k[:, 0] = 0.0
    k[:, 0, :, 0] = 1.0
    k[:, 0, 0] = r
    beta[:, 0] = 0.0
    beta[:, 0, 0] = 1.0
    v[:, 0, 0, 0] = 1.0
    k[:, 1:] = keys[t]
    beta[:, 1:] = betas[t]
    q = np.broadcast_to(np.eye(m)[:, None, None, :], (m, n, T + 1, m))  # query e_i reads x_i
    x = recurrence.delta_product(q, k, v, beta)[..., 0]  # (m, n, T+1)
    states = np.asarray(np.moveaxis(x, 0, -1)[:, 1:], dtype=np.float64)  # (n, T, m)
    images = r @ rho  # (order, m): r ρ(e)
    dist = np.linalg.norm(states[:, :, None, :] - images[None, None], axis=-1)
    out: IntArray = np.argmin(dist, axis=-1).astype(np.int64)
    return out


@shared
def track_fixed_rope(g: Group | str, tokens: npt.ArrayLike, theta: float = 1.0) -> IntArray:
    """Fixed RoPE: the phase ``θ t`` does not depend on the tokens, decoded like :func:`track_rotation`.

    Parameters
    ----------
    {g}
    tokens : array_like of int, shape (n, T)
        Element indices (only their shape is used: that is the point).
    theta : float
        RoPE's frequency of the pair.

    Returns
    -------
    ndarray of int, shape (n, T)
        The predicted states (the same for every sequence).

    Raises
    ------
    ValueError
        For tokens that are not element indices.

    Examples
    --------
    >>> p = track_fixed_rope("S2", np.array([[0, 1, 1], [1, 1, 0]]))
    >>> bool(np.array_equal(p[0], p[1]))
    True
    """
    g = _as_group(g, "track_fixed_rope")
    t = _tokens("track_fixed_rope", g, tokens)
    positions = np.arange(1, t.shape[1] + 1, dtype=np.float64)
    phi = np.broadcast_to(rotary.rope_angles(positions, 2, scale=1.0)[:, 0] * float(theta), t.shape)
    return _circular_nearest(np.ascontiguousarray(phi), element_angles(g))


def track_positive_gates(g: Group | str, tokens: npt.ArrayLike, gates: npt.ArrayLike | None = None) -> IntArray:
    """Products of positive gates ``h_t = Π λ(g_τ)`` read by their sign (parity only).

    Positive factors never change the sign of the state, so the sign readout (negative ↔ odd
    parity) predicts the identity at every step, whatever the gate values.

    Parameters
    ----------
    g : Group or str
        ``"S2"`` (the readout decodes parity).
    tokens : array_like of int, shape (n, T)
        Bits.
    gates : array_like, shape (2,), optional
        ``λ(0), λ(1) > 0`` (default ``(0.9, 0.5)``).

    Returns
    -------
    ndarray of int, shape (n, T)
        1 where the state is negative, else 0.

    Raises
    ------
    ValueError
        For a group other than S2, tokens out of range or gates that are not positive.

    Examples
    --------
    >>> track_positive_gates("S2", np.array([[1, 1, 0, 1]]))
    array([[0, 0, 0, 0]])
    """
    g = _as_group(g, "track_positive_gates")
    if g.order != 2:
        raise ValueError(f"track_positive_gates: the sign readout decodes parity (S2), got {g.name}")
    t = _tokens("track_positive_gates", g, tokens)
    lam = np.array([0.9, 0.5] if gates is None else gates, dtype=np.float64)
    if lam.shape != (2,) or not np.all(lam > 0):
        raise ValueError(f"track_positive_gates: gates must be two positive numbers, got {gates!r}")
    h = np.cumprod(lam[t], axis=1)
    return (h < 0).astype(np.int64)


def accuracy(predicted: npt.ArrayLike, labels: npt.ArrayLike, *, last_only: bool = False) -> float:
    """Fraction of correctly predicted states (all steps, or the last step of each sequence).

    Parameters
    ----------
    predicted, labels : array_like of int, shape (n, T)
        Predicted and true states.
    last_only : bool
        Score only the final state of each sequence.

    Returns
    -------
    float
        The accuracy in [0, 1].

    Raises
    ------
    ValueError
        If the shapes differ.
    TypeError
        If ``predicted`` or ``labels`` is not an integer array.
    MemoryError
        If the element-wise comparison cannot fit in physical memory.

    Examples
    --------
    >>> accuracy([[0, 1], [1, 1]], [[0, 1], [1, 0]])
    0.75
    """
    p, y = np.asarray(predicted), np.asarray(labels)
    for name, a in (("predicted", p), ("labels", y)):
        if a.dtype.kind not in "iu":
            raise TypeError(f"accuracy: {name} must be an integer array (group elements), got dtype {a.dtype}")
    if p.shape != y.shape or p.ndim != 2:
        raise ValueError(f"accuracy: predicted and labels must have one shape (n, T), got {p.shape} and {y.shape}")
    _validation.check_size("accuracy", "predicted", p.size, itemsize=1)  # the comparison's boolean array
    if last_only:
        p, y = p[:, -1:], y[:, -1:]
    return float(np.mean(p == y))
