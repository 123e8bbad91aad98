r"""The Selective RoPE angle path as the released implementation runs it, and its streaming form.

Selective RoPE (Movahedi et al., "Selective Rotary Position Embedding", arXiv:2511.17388, §4.1)
rotates queries and keys by input-dependent angles. The released module computes them from the
hidden states ``x_t`` (``model_dim`` channels, ``H`` heads of ``model_dim/H`` channels) as

1. ``x̂_t = x_t / sqrt(Σ x_t² + ε)`` per head chunk (the l2 normalisation of the hidden states,
   ``ε = 1e-6``);
2. ``u_t = W_up (W_down x̂_t)``: a low-rank projection (rank 16–32) to ``C = H·R`` channels,
   ``R = d_head/2`` rotation pairs per head;
3. :math:`\varphi_t = \sum_j w[c, j] u_{t-K+1+j}`: a causal depthwise short convolution (``K = 4``, optionally
   followed by SiLU), or with ``skip_conv`` the first difference :math:`\varphi_t = u_t - u_{t-1}`;
4. :math:`\varphi_t \leftarrow \varphi_t + e^{b}` (optional bias);
5. ``φ_t ← φ_t · sigmoid(g(x̂_t))`` (optional phase gate: one per head, or one per channel in the
   "gla" parametrisation);
6. :math:`s_t = \sum_{\tau\le t} \varphi_\tau + s_\mathrm{offset}`: the running sum (the offset carries it across
   calls);
7. ``ψ_t = Θ ⊙ s_t``: the temperature ``Θ`` (one per pair, :func:`rotary_temperature`) applied
   *after* the sum;

and rotates ``q`` and ``k`` (``d_head = 2R`` channels) in the half layout: channel ``i`` pairs
with channel ``i + R`` (:func:`ropelab.rotary.rotate` with ``layout="half"``).

Weights come as NumPy arrays in the shapes of the authors' PyTorch parameters
(:class:`SelectiveWeights`, :meth:`SelectiveWeights.from_state_dict`, :func:`load_safetensors`).

Accumulation (``accumulate``):

``"float64"``
    ``s = offset; s += φ_t`` in float64, then ``ψ = Θ s``. Feeding a sequence in chunks through a
    :class:`SelectiveState` gives the same numbers, bit for bit, as one call on the concatenation.
``"float32"``
    The released code's arithmetic: ``φ`` rounded to float32, its float32 running sum over the
    call (started from 0, added in time order), then ``+ offset`` in float32, then ``× Θ`` in float32
    (Θ rounded to float32). The float32 sum drifts with ``T`` (its rounding error grows with the
    magnitude of ``s``); :func:`ropelab.attention.angle_precision` measures the effect. A GPU scan
    (``torch.cumsum`` on CUDA, the Triton kernel's tiles of 64–128 steps) adds in a tree order
    inside each tile, so its last bits differ from the time-order sum; PyTorch's CPU ``cumsum``
    accumulates float32 input in float64. In this mode a chunked run matches the released
    generation path (a fresh float32 sum per call plus the float32 offset), not one call on the
    concatenation.

The steps before the sum (normalisation, projections, convolution, bias, gate) are computed in
float64 in both modes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np

from ropelab import _validation, rotary
from ropelab._core_loader import core as _core
from ropelab._docstrings import shared
from ropelab._types import ArrayLike, FloatArray, RealArray
from ropelab._validation import all_finite, as_float64

__all__ = ["SelectiveWeights", "SelectiveState", "rotary_temperature", "angles", "apply", "load_safetensors"]

Accumulate = Literal["float64", "float32"]


@shared
def rotary_temperature(kind: Literal["rope", "rfa"], theta: float, head_dim: int, temp_max: float = 1.0) -> FloatArray:
    r"""The temperature spectrum ``Θ`` of the released module, one value per rotation pair.

    ``"rope"`` (``theta ≥ 1``): :math:`\Theta_i = \mathrm{temp\_max} \cdot \mathrm{theta}^{-2i/d}`, ``i = 0..d/2−1`` —
    RoPE's frequencies. ``"rfa"`` (``0 < theta < 1``): with ``a_i`` spaced evenly on ``[0, θπ]`` (``d/2`` points),
    ``Θ_i = temp_max · tan(a_i/2) / max_i tan(a_i/2)`` (written in the code as ``sqrt((1 − cos a)/(1 + cos a))``) — the
    spectrum of the paper's random-feature temperature rule (Selective RoPE §3). Computed in float64. The released code
    evaluates it in float32, where ``1 − cos a`` cancels for the small angles (the second channel,
    ``a_1 = θπ/(d/2 − 1)``) and ``1 + cos a`` for the angles near π (the last channels as ``θ → 1``): its parameter
    ``temperature`` of shape ``(1, 1, 1, d/2)`` is not these values rounded to float32 but differs from them by up to
    412 float32 ulps at ``θ = 0.99``, ``d = 32`` (measured against
    :func:`ropelab.temperature.spectrum` with ``precision="float32"``, which repeats the released
    evaluation), and by more at larger ``d`` or ``θ`` nearer 0 or 1 (1761 ulps at ``θ = 0.25``,
    ``d = 128``; about 2·10⁴ at ``θ = 0.999``, where ``1 + cos a`` nears float32's spacing
    ``2⁻²⁴`` at −1). Pass that parameter itself to reproduce the released module exactly.

    Parameters
    ----------
    kind : {"rope", "rfa"}
        The spectrum type (``temp_type`` in the released code).
    theta : float
        ``temp_theta``: the RoPE base (``≥ 1``) or the fraction of ``π`` covered (``(0, 1)``).
    head_dim : int
        ``d``, the (even) query/key width of a head.
    {temp_max}

    Returns
    -------
    ndarray, shape (head_dim // 2,)

    Raises
    ------
    ValueError
        For an unknown kind, a theta out of its range, an odd or non-positive head_dim, or a
        non-finite or non-positive temp_max.

    Examples
    --------
    >>> rotary_temperature("rope", 10000.0, 4)
    array([1.  , 0.01])
    >>> rotary_temperature("rfa", 0.5, 6).round(6)
    array([0.      , 0.414214, 1.      ])
    """
    f = "rotary_temperature"
    kinds = tuple(_core.temperature.spectrum_kinds())
    if kind not in kinds:
        raise ValueError(f"rotary_temperature: kind must be {' or '.join(map(repr, kinds))}, got {kind!r}")
    head_dim = _validation.integer(f, "head_dim", head_dim, 2, int(_core.limits.max_head_dim))
    if head_dim % 2:
        raise ValueError(f"rotary_temperature: head_dim must be an even integer >= 2, got {head_dim!r}")
    _validation.check_size(f, "head_dim", head_dim // 2)
    temp_max = _validation.real_number(f, "temp_max", temp_max)
    if not temp_max > 0:
        raise ValueError(f"rotary_temperature: temp_max must be finite and > 0, got {temp_max!r}")
    theta = _validation.real_number(f, "theta", theta)
    R = int(head_dim) // 2
    if kind == "rope":
        if not (np.isfinite(theta) and theta >= 1.0):
            raise ValueError(f"rotary_temperature: theta must be >= 1 for kind='rope', got {theta!r}")
        out: FloatArray = temp_max / float(theta) ** (np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
        return out
    if not (np.isfinite(theta) and 0.0 < theta < 1.0):
        raise ValueError(f"rotary_temperature: theta must be in (0, 1) for kind='rfa', got {theta!r}")
    a = np.linspace(0.0, float(theta) * np.pi, R)
    t = np.sqrt((1 - np.cos(a)) / (1 + np.cos(a)))
    res: FloatArray = temp_max * t / np.max(t)
    return res


def _scalar(x: Any) -> Any:
    """A 0-d NumPy array as its scalar (NumPy's own type); anything else unchanged."""
    return x[()] if isinstance(x, np.ndarray) and x.ndim == 0 else x


def _matrix(name: str, value: ArrayLike, shape: tuple[int | None, ...]) -> FloatArray:
    a = np.asarray(value)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"SelectiveWeights: {name} must be a real array, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape)):
        want = "(" + ", ".join("·" if s is None else str(s) for s in shape) + ")"
        raise ValueError(f"SelectiveWeights: {name} must have shape {want}, got {a.shape}")
    if a.size == 0:
        raise ValueError(f"SelectiveWeights: {name} must not be empty, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"SelectiveWeights: {name} must be finite, got non-finite values")
    return a


@shared
@dataclass(frozen=True)
class SelectiveWeights:
    """The parameters of one released Selective RoPE module, in the authors' shapes.

    ``C = num_heads · R`` angle channels, ``R = d_head/2`` pairs per head. Arrays are copied to
    float64 and checked at construction.

    Parameters
    ----------
    proj_down : array_like, shape (rank, model_dim)
        ``phi_proj.0.weight`` (the first ``nn.Linear`` of the low-rank projection).
    proj_up : array_like, shape (C, rank)
        ``phi_proj.1.weight``.
    temperature : array_like, shape (R,) or (1, 1, 1, R)
        ``temperature`` (see :func:`rotary_temperature`).
    num_heads : int
        ``H``; must divide ``model_dim`` (the l2 normalisation is per head chunk).
    conv_weight : array_like, shape (C, 1, K) or (K, C), optional
        ``phi_conv1d.weight`` (torch ``Conv1d`` layout ``(C, 1, K)``) or its taps as columns
        ``(K, C)``; tap ``K−1`` multiplies the current step. ``None``: ``skip_conv`` (first
        difference). A square ``(K, C)`` with ``K = C`` is read as ``(K, C)``.
    conv_activation : {None, "silu"}
        ``conv_act`` of the released module.
    bias : array_like, shape (C,), (H, R) or (1, 1, H, R), optional
        ``phi_bias`` (the path adds ``exp(bias)``).
    gate_weight : array_like, optional
        The phase gate's last linear layer: shape ``(H, model_dim)`` ("standard",
        ``phase_gate_proj.weight``), ``(H, g)`` ("low-rank", ``phase_gate_proj.1.weight``) or
        ``(C, g)`` ("gla").
    gate_bias : array_like, shape (H,) or (C,), optional
        Its bias (required with ``gate_weight``).
    gate_down : array_like, shape (g, model_dim), optional
        The gate's first layer (``phase_gate_proj.0.weight``, low-rank and gla parametrisations).
    {eps}

    Raises
    ------
    ValueError
        For arrays of inconsistent shapes (the message names the argument), non-finite values,
        ``K < 1``, or a ``num_heads`` that does not divide ``model_dim``.
    TypeError
        For non-real arrays.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> w = SelectiveWeights(rng.standard_normal((16, 8)), rng.standard_normal((4, 16)),
    ...                      rotary_temperature("rope", 500000.0, 4), num_heads=2,
    ...                      conv_weight=rng.standard_normal((4, 1, 4)))
    >>> w.channels, w.pairs, w.rank, w.taps
    (4, 2, 16, 4)
    """

    proj_down: FloatArray
    proj_up: FloatArray
    temperature: FloatArray
    num_heads: int = 1
    conv_weight: FloatArray | None = None
    conv_activation: Literal["silu"] | None = None
    bias: FloatArray | None = None
    gate_weight: FloatArray | None = None
    gate_bias: FloatArray | None = None
    gate_down: FloatArray | None = None
    eps: float = 1e-6
    _conv_taps: FloatArray | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check the weights' shapes and values and store them in the core's layout."""
        H = self.num_heads
        if isinstance(H, bool) or not isinstance(H, (int, np.integer)) or H < 1:
            raise ValueError(f"SelectiveWeights: num_heads must be an integer >= 1, got {H!r}")
        down = _matrix("proj_down", self.proj_down, (None, None))
        rank, model_dim = down.shape
        if model_dim % H:
            raise ValueError(
                f"SelectiveWeights: num_heads = {H} must divide model_dim = {model_dim} "
                f"(proj_down has shape {down.shape})"
            )
        up = _matrix("proj_up", self.proj_up, (None, rank))
        if up.shape[0] % H:
            raise ValueError(f"SelectiveWeights: proj_up must have H*R rows (H = {H}), got shape {up.shape}")
        C = up.shape[0]
        R = C // H
        theta = np.asarray(self.temperature)
        theta = _matrix("temperature", theta.reshape(-1) if theta.ndim == 4 else theta, (R,))
        object.__setattr__(self, "proj_down", down)
        object.__setattr__(self, "proj_up", up)
        object.__setattr__(self, "temperature", theta)
        object.__setattr__(self, "num_heads", int(H))
        if self.conv_activation not in (None, "silu"):
            raise ValueError(f"SelectiveWeights: conv_activation must be None or 'silu', got {self.conv_activation!r}")
        if self.conv_weight is not None:
            cw = np.asarray(self.conv_weight)
            if cw.ndim == 3:
                cw = _matrix("conv_weight", cw, (C, 1, None))
                taps = cw[:, 0, :]
            elif cw.ndim == 2:
                cw = _matrix("conv_weight", cw, (None, C))
                taps = cw.T
            else:
                raise ValueError(
                    f"SelectiveWeights: conv_weight must have shape ({C}, 1, K) or (K, {C}), got {cw.shape}"
                )
            if taps.shape[1] < 1:
                raise ValueError(f"SelectiveWeights: conv_weight must have K >= 1 taps, got shape {cw.shape}")
            object.__setattr__(self, "conv_weight", cw)
            object.__setattr__(self, "_conv_taps", np.ascontiguousarray(taps))
        elif self.conv_activation is not None:
            raise ValueError("SelectiveWeights: conv_activation needs a conv_weight (skip_conv has no activation)")
        if self.bias is not None:
            b = np.asarray(self.bias)
            b = _matrix("bias", b.reshape(-1) if b.ndim in (2, 4) and b.size == C else b, (C,))
            object.__setattr__(self, "bias", b)
        if self.gate_weight is None:
            if self.gate_bias is not None or self.gate_down is not None:
                raise ValueError("SelectiveWeights: gate_bias and gate_down need a gate_weight")
        else:
            gw = _matrix("gate_weight", self.gate_weight, (None, None))
            if gw.shape[0] not in (H, C):
                raise ValueError(
                    f"SelectiveWeights: gate_weight must have H = {H} or H*R = {C} rows, got shape {gw.shape}"
                )
            if self.gate_bias is None:
                raise ValueError("SelectiveWeights: gate_bias is required with gate_weight")
            gb = _matrix("gate_bias", self.gate_bias, (gw.shape[0],))
            if self.gate_down is not None:
                gd = _matrix("gate_down", self.gate_down, (None, model_dim))
                if gw.shape[1] != gd.shape[0]:
                    raise ValueError(
                        f"SelectiveWeights: gate_weight must have gate_down's rank "
                        f"{gd.shape[0]} columns, got shape {gw.shape}"
                    )
                object.__setattr__(self, "gate_down", gd)
            elif gw.shape[1] != model_dim:
                raise ValueError(
                    f"SelectiveWeights: gate_weight without gate_down must have model_dim = "
                    f"{model_dim} columns, got shape {gw.shape}"
                )
            object.__setattr__(self, "gate_weight", gw)
            object.__setattr__(self, "gate_bias", gb)
        eps = _validation.real_number("SelectiveWeights", "eps", _scalar(self.eps))
        if eps < 0:
            raise ValueError(f"SelectiveWeights: eps must be finite and >= 0, got {self.eps!r}")
        object.__setattr__(self, "eps", eps)  # a float of its own, never the caller's array

    @property
    def model_dim(self) -> int:
        """Width of the hidden states."""
        return int(self.proj_down.shape[1])

    @property
    def rank(self) -> int:
        """Rank of the low-rank projection."""
        return int(self.proj_down.shape[0])

    @property
    def channels(self) -> int:
        """``C = H·R`` angle channels."""
        return int(self.proj_up.shape[0])

    @property
    def pairs(self) -> int:
        """``R``: rotation pairs per head (head width ``2R``)."""
        return self.channels // self.num_heads

    @property
    def taps(self) -> int:
        """``K`` of the short convolution (0 for ``skip_conv``)."""
        return 0 if self._conv_taps is None else int(self._conv_taps.shape[1])

    @shared
    @classmethod
    def from_state_dict(
        cls,
        state: Mapping[str, Any],
        num_heads: int,
        *,
        prefix: str = "",
        conv_activation: Literal["silu"] | None = None,
        eps: float = 1e-6,
    ) -> SelectiveWeights:
        """Weights from the parameter names of the released module (``state_dict()`` keys).

        Reads ``phi_proj.0.weight``, ``phi_proj.1.weight``, ``temperature`` and, when present,
        ``phi_conv1d.weight`` (absent: ``skip_conv``), ``phi_bias``, and the phase gate
        (``phase_gate_proj.weight``/``.bias``, or ``phase_gate_proj.0.weight`` and
        ``phase_gate_proj.1.weight``/``.bias``). Values may be NumPy arrays or anything
        ``np.asarray`` converts (a CPU tensor's ``.numpy()``).

        Parameters
        ----------
        state : mapping
            Parameter name → array.
        num_heads : int
            ``H`` (not stored in the parameters).
        prefix : str
            Prefix of the module's keys, e.g. ``"model.layers.0.attn.rope."``.
        conv_activation : {None, "silu"}
            ``conv_act`` (not stored in the parameters).
        {eps}

        Returns
        -------
        SelectiveWeights

        Raises
        ------
        TypeError
            If ``state`` is not a mapping.
        ValueError
            If a required parameter is missing from ``state`` (the message names it).

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> sd = {"phi_proj.0.weight": rng.standard_normal((16, 8)),
        ...       "phi_proj.1.weight": rng.standard_normal((4, 16)),
        ...       "temperature": rotary_temperature("rope", 500000.0, 4).reshape(1, 1, 1, 2)}
        >>> SelectiveWeights.from_state_dict(sd, num_heads=2).taps  # no conv weight: skip_conv
        0
        """
        if not isinstance(state, Mapping):
            raise TypeError(
                f"SelectiveWeights.from_state_dict: state must be a mapping of parameter names to arrays, "
                f"got {type(state).__name__}"
            )
        if not isinstance(prefix, str):
            raise TypeError(f"SelectiveWeights.from_state_dict: prefix must be a str, got {type(prefix).__name__}")

        def get(name: str) -> Any:
            key = prefix + name
            if key not in state:
                raise ValueError(f"SelectiveWeights.from_state_dict: state has no parameter {key!r}")
            return np.asarray(state[key])

        def opt(name: str) -> Any:
            return np.asarray(state[prefix + name]) if prefix + name in state else None

        gate_weight = gate_bias = gate_down = None
        if prefix + "phase_gate_proj.weight" in state:
            gate_weight, gate_bias = get("phase_gate_proj.weight"), get("phase_gate_proj.bias")
        elif prefix + "phase_gate_proj.1.weight" in state:
            gate_down = get("phase_gate_proj.0.weight")
            gate_weight, gate_bias = get("phase_gate_proj.1.weight"), get("phase_gate_proj.1.bias")
        return cls(
            get("phi_proj.0.weight"),
            get("phi_proj.1.weight"),
            get("temperature"),
            num_heads,
            conv_weight=opt("phi_conv1d.weight"),
            conv_activation=conv_activation,
            bias=opt("phi_bias"),
            gate_weight=gate_weight,
            gate_bias=gate_bias,
            gate_down=gate_down,
            eps=eps,
        )


@shared
def load_safetensors(
    path: str,
    num_heads: int,
    *,
    prefix: str = "",
    conv_activation: Literal["silu"] | None = None,
    eps: float = 1e-6,
) -> SelectiveWeights:
    """Weights of one module from a ``safetensors`` file (needs ``pip install ropelab[safetensors]``).

    Reads the tensors with ``safetensors.numpy`` (no PyTorch needed) and passes them to
    :meth:`SelectiveWeights.from_state_dict`. bfloat16 tensors, which NumPy cannot hold, are not
    supported: convert the checkpoint to float32 first.

    Parameters
    ----------
    path : str
        The ``.safetensors`` file.
    num_heads : int
        ``H``.
    prefix : str
        Prefix of the module's keys in the file.
    conv_activation : {None, "silu"}
        ``conv_act``.
    {eps}

    Returns
    -------
    SelectiveWeights

    Raises
    ------
    ImportError
        If the ``safetensors`` package is not installed (the message says how to install it).
    ValueError
        If ``path`` is not a valid safetensors file (corrupt or truncated), or a parameter is
        missing.

    Examples
    --------
    >>> import os, tempfile
    >>> from safetensors.numpy import save_file  # doctest: +SKIP
    >>> rng = np.random.default_rng(0)
    >>> sd = {"phi_proj.0.weight": rng.standard_normal((16, 8)),
    ...       "phi_proj.1.weight": rng.standard_normal((4, 16)),
    ...       "temperature": np.ones((1, 1, 1, 2))}
    >>> path = os.path.join(tempfile.mkdtemp(), "rope.safetensors")
    >>> save_file(sd, path)  # doctest: +SKIP
    >>> load_safetensors(path, num_heads=2).pairs  # doctest: +SKIP
    2
    """
    try:
        from safetensors.numpy import load_file
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("load_safetensors needs the safetensors package: pip install 'ropelab[safetensors]'") from exc
    from safetensors import SafetensorError

    try:
        tensors = load_file(path)
    except SafetensorError as exc:
        raise ValueError(f"load_safetensors: path {str(path)!r} is not a readable safetensors file: {exc}") from exc
    return SelectiveWeights.from_state_dict(tensors, num_heads, prefix=prefix, conv_activation=conv_activation, eps=eps)


def _check_weights(weights: Any, func: str) -> None:
    if not isinstance(weights, SelectiveWeights):
        raise TypeError(f"{func}: weights must be a SelectiveWeights, got {type(weights).__name__}")


def _hidden(hidden: ArrayLike, weights: SelectiveWeights, func: str) -> tuple[FloatArray, bool]:
    _check_weights(weights, func)
    h = np.asarray(hidden)
    if h.dtype == bool or not (np.issubdtype(h.dtype, np.floating) or np.issubdtype(h.dtype, np.integer)):
        raise TypeError(f"{func}: hidden must be a real array, got dtype {h.dtype}")
    if not (h.dtype == np.float64 and h.flags.c_contiguous):
        _validation.check_size(func, "hidden", h.size)  # before the conversion copies it
    squeeze = h.ndim == 2
    if squeeze:
        h = h[None]
    if h.ndim != 3 or h.shape[2] != weights.model_dim:
        raise ValueError(
            f"{func}: hidden must have shape (T, {weights.model_dim}) or (batch, T, "
            f"{weights.model_dim}), got {np.shape(hidden)}"
        )
    h = as_float64(h)  # in pieces: Ctrl-C is answered while a large batch is converted
    if not all_finite(h):
        raise ValueError(f"{func}: hidden must be finite, got non-finite values")
    return h, squeeze


def _check_accumulate(accumulate: str, func: str) -> None:
    if accumulate not in ("float64", "float32"):
        raise ValueError(f"{func}: accumulate must be 'float64' or 'float32', got {accumulate!r}")


class SelectiveState:
    """Streaming form of the angle path: the conv cache and the angle offset of a batch.

    ``feed(chunk)`` continues the sequences: feeding ``hidden[:, :t1]``, ``hidden[:, t1:t2]``, …
    gives, in float64, exactly the angles of one :func:`angles` call on the whole of ``hidden``.

    Parameters
    ----------
    weights : SelectiveWeights
    batch : int
        Number of sequences carried.
    accumulate : {"float64", "float32"}
        See the module docstring (float32: each chunk's sum starts from 0 and gets the float32
        offset added, as in the released generation path).
    carry_difference : bool
        ``skip_conv`` only: carry the last projection across chunks, so the first difference is
        continuous (``True``, chunked = whole). ``False`` restarts it from 0 at every chunk, as the
        released module does (it keeps no cache for ``skip_conv``).

    Attributes
    ----------
    conv_cache : ndarray, shape (batch, C, K) (``(batch, C, 1)`` for skip_conv)
        The last ``K`` inputs of the convolution, the newest last (the released code's cache
        layout), zeros at the start; for ``skip_conv`` the last projection.
    offset : ndarray, shape (batch, C)
        The running sum ``s`` (before the temperature) after the last step fed.
    steps : int
        Steps fed so far.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> w = SelectiveWeights(rng.standard_normal((16, 8)), rng.standard_normal((4, 16)),
    ...                      rotary_temperature("rope", 10000.0, 4), num_heads=2,
    ...                      conv_weight=rng.standard_normal((4, 4)))
    >>> x = rng.standard_normal((10, 8))
    >>> st = SelectiveState(w)
    >>> parts = [st.feed(x[:3]), st.feed(x[3:4]), st.feed(x[4:])]
    >>> bool(np.array_equal(np.concatenate(parts), angles(x, w)))
    True
    """

    def __init__(
        self,
        weights: SelectiveWeights,
        batch: int = 1,
        *,
        accumulate: Accumulate = "float64",
        carry_difference: bool = True,
    ) -> None:
        if not isinstance(weights, SelectiveWeights):
            raise TypeError(f"SelectiveState: weights must be SelectiveWeights, got {type(weights).__name__}")
        if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, (int, np.integer)) or batch < 1:
            raise ValueError(f"SelectiveState: batch must be an integer >= 1, got {batch!r}")
        # the conv cache and the offset: checked before they are allocated
        _validation.check_size("SelectiveState", "batch", float(batch) * weights.channels * (max(weights.taps, 1) + 1))
        _check_accumulate(accumulate, "SelectiveState")
        self.weights = weights
        self.batch = int(batch)
        self.accumulate: Accumulate = accumulate
        self.carry_difference = bool(carry_difference)
        self.reset()

    def reset(self) -> None:
        """Start new sequences: zero cache and offset.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> w = SelectiveWeights(rng.standard_normal((2, 4)), rng.standard_normal((2, 2)), [1.0, 1.0])
        >>> st = SelectiveState(w); _ = st.feed(rng.standard_normal((3, 4))); st.reset(); st.steps
        0
        """
        w = self.weights
        self.conv_cache: FloatArray = np.zeros((self.batch, w.channels, max(w.taps, 1)))
        self.offset: FloatArray = np.zeros((self.batch, w.channels))
        self.steps = 0

    def feed(self, hidden: ArrayLike) -> RealArray:
        """Continue the sequences with ``hidden`` and return the angles of these steps.

        Parameters
        ----------
        hidden : array_like, shape (batch, T, model_dim), or (T, model_dim) when batch = 1
            The next ``T ≥ 0`` hidden states.

        Returns
        -------
        ndarray, shape (batch, T, H, R) (or (T, H, R) for 2-d input)
            ``ψ_t`` (float32 values in float32 mode).

        Raises
        ------
        ValueError
            For a wrong shape, a batch other than the state's, non-finite input, or an overflow of
            the running sum.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> w = SelectiveWeights(rng.standard_normal((2, 4)), rng.standard_normal((2, 2)), [1.0], num_heads=2)
        >>> SelectiveState(w).feed(rng.standard_normal((5, 4))).shape
        (5, 2, 1)
        """
        return self._feed(hidden, "SelectiveState.feed")

    def _feed(self, hidden: ArrayLike, func: str) -> RealArray:
        """:meth:`feed`, its errors named after ``func`` (the public function the caller called)."""
        h, squeeze = _hidden(hidden, self.weights, func)
        if h.shape[0] != self.batch:
            raise ValueError(f"{func}: hidden must hold batch = {self.batch} sequences, got shape {np.shape(hidden)}")
        diff_from_zero = self.weights.taps == 0 and not self.carry_difference
        ang, self.conv_cache, self.offset = _run(
            h, self.weights, self.accumulate, self.conv_cache, self.offset, diff_from_zero
        )
        self.steps += h.shape[1]
        out: RealArray = ang[0] if squeeze else ang
        return out

    step = feed


def _run(
    h: FloatArray, w: SelectiveWeights, accumulate: str, cache: FloatArray, offset: FloatArray, diff_from_zero: bool
) -> tuple[Any, FloatArray, FloatArray]:
    ang, cache2, off2 = _core.selective.angles(
        hidden=h,
        proj_down=w.proj_down,
        proj_up=w.proj_up,
        conv_weight=w._conv_taps,
        silu=w.conv_activation == "silu",
        bias=w.bias,
        gate_down=w.gate_down,
        gate_up=w.gate_weight,
        gate_bias=w.gate_bias,
        temperature=w.temperature,
        num_heads=w.num_heads,
        eps=float(w.eps),
        float32=accumulate == "float32",
        conv_cache=cache,
        offset=offset,
        diff_from_zero=diff_from_zero,
    )
    ang = np.asarray(ang).reshape(h.shape[0], h.shape[1], w.num_heads, w.pairs)
    if accumulate == "float32":
        ang = ang.astype(np.float32)
    if not np.all(np.isfinite(ang)):
        raise ValueError("selective: the angles overflowed (non-finite); check the bias and the temperature")
    return ang, np.asarray(cache2), np.asarray(off2)


def angles(hidden: ArrayLike, weights: SelectiveWeights, *, accumulate: Accumulate = "float64") -> RealArray:
    """The angles ``ψ_t`` of the released angle path for whole sequences (zero initial state).

    Parameters
    ----------
    hidden : array_like, shape (batch, T, model_dim) or (T, model_dim)
        Hidden states (before the l2 normalisation).
    weights : SelectiveWeights
    accumulate : {"float64", "float32"}
        Arithmetic of the running sum (module docstring).

    Returns
    -------
    ndarray, shape (batch, T, H, R) or (T, H, R), float64 (float32 in float32 mode)

    Raises
    ------
    ValueError
        For a hidden state of the wrong width or with non-finite values, an unknown
        ``accumulate``, or an overflow.
    TypeError
        If ``weights`` is not a :class:`SelectiveWeights` or ``hidden`` is not real.

    Examples
    --------
    >>> w = SelectiveWeights(np.eye(2), np.eye(2), [0.5], num_heads=2, conv_weight=[[[0.0, 1.0]]] * 2, eps=0.0)
    >>> angles([[1.0, 2.0], [1.0, 2.0]], w, accumulate="float64")[:, :, 0]  # ψ = Θ·cumsum(x/|x|)
    array([[0.5, 0.5],
           [1. , 1. ]])
    """
    if not isinstance(weights, SelectiveWeights):
        raise TypeError(f"angles: weights must be SelectiveWeights, got {type(weights).__name__}")
    _check_accumulate(accumulate, "angles")
    st = SelectiveState(weights, batch=np.shape(hidden)[0] if np.ndim(hidden) == 3 else 1, accumulate=accumulate)
    return st._feed(hidden, "selective.angles")


def apply(
    q: ArrayLike,
    k: ArrayLike,
    hidden: ArrayLike,
    weights: SelectiveWeights,
    *,
    accumulate: Accumulate = "float64",
    state: SelectiveState | None = None,
) -> tuple[FloatArray, FloatArray, RealArray]:
    """Rotate ``q`` and ``k`` by the Selective RoPE angles of ``hidden`` (the released forward).

    Parameters
    ----------
    q, k : array_like, shape (batch, T, H, 2R) or (T, H, 2R)
        Queries and keys per head, half layout (channel ``i`` pairs with ``i + R``), as the released
        module takes them.
    hidden : array_like, shape (batch, T, model_dim) or (T, model_dim)
    weights : SelectiveWeights
    accumulate : {"float64", "float32"}
        Ignored when ``state`` is given (the state's mode is used).
    state : SelectiveState, optional
        Continue these sequences (generation): the state is advanced.

    Returns
    -------
    q_rot, k_rot : ndarray
        Rotated copies (float64; the rotation is computed in float64 from the angles).
    angles : ndarray, shape (batch, T, H, R) or (T, H, R)
        The rotation angles ``ψ_t`` used.

    Raises
    ------
    ValueError
        If q or k does not have the shape ``hidden.shape[:-1] + (H, 2R)``.

    Examples
    --------
    >>> w = SelectiveWeights(np.eye(2), np.eye(2), [np.pi / 2], num_heads=2, conv_weight=[[[0.0, 1.0]]] * 2, eps=0.0)
    >>> q = np.array([[[1.0, 0.0], [1.0, 0.0]]])  # T = 1, H = 2, 2R = 2
    >>> qr, kr, angles = apply(q, q, [[1.0, -1.0]], w)
    >>> qr.round(12) + 0.0  # head 0 turned by π/2, head 1 by −π/2
    array([[[ 0.,  1.],
            [ 0., -1.]]])
    """
    _check_weights(weights, "apply")
    H, R = weights.num_heads, weights.pairs
    want = tuple(np.shape(hidden)[:-1]) + (H, 2 * R)
    arrays = []
    for name, x in (("q", q), ("k", k)):
        a = _validation.real_array("apply", name, x)
        if a.shape != want:
            raise ValueError(f"apply: {name} must have shape {want} (hidden's leading shape, H, 2R), got {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"apply: {name} must be finite, got non-finite values")
        arrays.append(a)
    if state is None:
        st = SelectiveState(weights, batch=np.shape(hidden)[0] if np.ndim(hidden) == 3 else 1, accumulate=accumulate)
        psi = st._feed(hidden, "apply")
    else:
        if state.weights is not weights:
            raise ValueError("apply: state was made for other weights")
        psi = state._feed(hidden, "apply")
    # float64 input: rotate returns float64
    out = [cast(FloatArray, rotary.rotate(a, np.asarray(psi, dtype=np.float64), layout="half")) for a in arrays]
    return out[0], out[1], psi
