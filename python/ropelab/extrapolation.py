"""Length extrapolation of RoPE: the frequency-scaling rules used in practice, and which channel
pairs meet angles at test time that they never met in training.

RoPE (RoFormer §3.2) rotates pair ``i`` of a vector at position ``m`` by ``m θ_i`` with
``θ_i = base^{−2i/d}``. A model trained on sequences of length ``L`` has seen, in pair ``i``, the
angles ``[0, θ_i (L − 1)]`` only; when that interval is shorter than a full turn ``2π``, a longer
test sequence shows the pair angles it was never trained on. The rules below rescale ``θ`` (and
sometimes the attention logits) so that a model trained on ``L`` can run on ``factor · L``:

``"default"``
    ``θ_i`` unchanged.
``"linear"``
    Position interpolation (Chen et al. 2023, arXiv:2306.15595): ``θ_i / factor``.
``"ntk"``
    NTK-aware base scaling (bloc97, 2023): ``base · factor^{d/(d−2)}``.
``"dynamic"``
    Dynamic NTK: at a sequence length ``n > L``, ``base · (factor n / L − (factor − 1))^{d/(d−2)}``
    (``θ`` unchanged for ``n ≤ L``).
``"yarn"``
    YaRN (Peng et al. 2023, arXiv:2309.00071, §3.3–3.4): pairs with more than ``beta_fast``
    rotations over ``L`` keep ``θ_i``, pairs with fewer than ``beta_slow`` are interpolated
    (``θ_i / factor``), with a linear ramp in between; logits are scaled by
    ``mscale² `` through the attention factor ``0.1 ln(factor) + 1``.
``"llama3"``
    The Llama 3.1 rule (Meta, 2024): wavelengths ``2π/θ_i`` longer than ``L / low_freq_factor``
    are interpolated, shorter than ``L / high_freq_factor`` kept, with a smooth blend between.

The formulas follow the ``rope_init_fn`` functions of Hugging Face ``transformers``
(``modeling_rope_utils``), computed here in float64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from ropelab import rotary
from ropelab._display import ResultDisplay, document_fields, field_doc
from ropelab._types import FloatArray

__all__ = ["RULES", "Scaling", "scaled_frequencies", "UnseenAngles", "unseen_angles"]

Rule = Literal["default", "linear", "ntk", "dynamic", "yarn", "llama3"]
#: The scaling rules :func:`scaled_frequencies` knows.
RULES: tuple[str, ...] = ("default", "linear", "ntk", "dynamic", "yarn", "llama3")


@document_fields
@dataclass(frozen=True, repr=False)
class Scaling(ResultDisplay):
    """Frequencies of a scaled RoPE."""

    inv_freq: FloatArray = field(
        metadata=field_doc("The scaled ``θ_i`` (radians per position).", type="ndarray, shape (d/2,)")
    )
    attention_factor: float = field(
        metadata=field_doc("Factor applied to the cos/sin tables (so the logits scale by its square); 1 except YaRN.")
    )
    rule: str = field(metadata=field_doc("The rule."))


def _real(func: str, name: str, value: object, *, low: float, inclusive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: {name} must be a real number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (x < low if inclusive else x <= low):
        raise ValueError(f"{func}: {name} must be a finite number {'>=' if inclusive else '>'} {low:g}, got {value!r}")
    return x


def _int(func: str, name: str, value: object, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{func}: {name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    return 1.0 if scale <= 1.0 else 0.1 * mscale * math.log(scale) + 1.0


def scaled_frequencies(
    d: int,
    rule: Rule = "default",
    *,
    base: float = 10000.0,
    factor: float = 1.0,
    original_max_position: int = 2048,
    seq_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    mscale: float | None = None,
    mscale_all_dim: float | None = None,
    attention_factor: float | None = None,
    truncate: bool = True,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
) -> Scaling:
    """The frequencies ``θ_i`` of RoPE scaled by one of the rules in practice.

    Parameters
    ----------
    d : int
        Rotary dimension (even, ≥ 2).
    rule : {"default", "linear", "ntk", "dynamic", "yarn", "llama3"}
        The rule (see the module's documentation).
    base : float
        RoPE's base (``rope_theta``).
    factor : float
        Context extension factor ``L'/L`` (≥ 1).
    original_max_position : int
        The training length ``L``.
    seq_len : int, optional
        ``"dynamic"`` only: the current sequence length (default ``L``, i.e. no change).
    beta_fast, beta_slow : float
        ``"yarn"``: rotation counts bounding the ramp.
    mscale, mscale_all_dim : float, optional
        ``"yarn"``: DeepSeek-style attention scaling ``mscale(factor, mscale) / mscale(factor, mscale_all_dim)``.
    attention_factor : float, optional
        ``"yarn"``: overrides the attention factor.
    truncate : bool
        ``"yarn"``: round the ramp's ends to whole dimensions (floor/ceil).
    low_freq_factor, high_freq_factor : float
        ``"llama3"``: the wavelength thresholds ``L/low_freq_factor`` and ``L/high_freq_factor``.

    Returns
    -------
    Scaling
        ``inv_freq`` (d/2 values) and the attention factor.

    Raises
    ------
    TypeError
        If a number has the wrong type.
    ValueError
        For an unknown rule, an odd or small ``d``, ``factor < 1``, non-positive lengths, or
        ``high_freq_factor <= low_freq_factor``.

    Examples
    --------
    >>> s = scaled_frequencies(8, "linear", factor=4.0)
    >>> bool(np.allclose(s.inv_freq * 4, rotary.frequencies(8)))
    True
    >>> round(scaled_frequencies(128, "yarn", factor=16.0).attention_factor, 6)
    1.277259
    """
    f = "scaled_frequencies"
    if rule not in RULES:
        raise ValueError(f"{f}: rule must be one of {RULES}, got {rule!r}")
    d = _int(f, "d", d, 2)
    if d % 2:
        raise ValueError(f"{f}: d must be even, got {d}")
    base = _real(f, "base", base, low=1.0, inclusive=False)
    factor = _real(f, "factor", factor, low=1.0)
    L = _int(f, "original_max_position", original_max_position, 1)
    idx = np.arange(0, d, 2, dtype=np.float64) / d  # 2i/d
    theta = rotary.frequencies(d, base)
    att = 1.0
    if rule == "linear":
        theta = theta / factor
    elif rule == "ntk":
        if d > 2:  # (d = 2 has only θ_0 = 1, which no base changes)
            theta = 1.0 / (base * factor ** (d / (d - 2))) ** idx
    elif rule == "dynamic":
        n = L if seq_len is None else _int(f, "seq_len", seq_len, 1)
        n = max(n, L)
        new_base = base * (factor * n / L - (factor - 1.0)) ** (d / (d - 2)) if d > 2 else base
        theta = 1.0 / new_base**idx
    elif rule == "yarn":
        beta_fast = _real(f, "beta_fast", beta_fast, low=0.0, inclusive=False)
        beta_slow = _real(f, "beta_slow", beta_slow, low=0.0, inclusive=False)

        def correction_dim(rotations: float) -> float:
            return d * math.log(L / (rotations * 2 * math.pi)) / (2 * math.log(base))

        low, high = correction_dim(beta_fast), correction_dim(beta_slow)
        if truncate:
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
        extrapolation = 1.0 - ramp  # 1: keep θ_i (fast pairs), 0: interpolate
        theta = (theta / factor) * (1.0 - extrapolation) + theta * extrapolation
        if attention_factor is not None:
            att = _real(f, "attention_factor", attention_factor, low=0.0, inclusive=False)
        elif mscale is not None and mscale_all_dim is not None:
            att = _yarn_mscale(factor, _real(f, "mscale", mscale, low=0.0)) / _yarn_mscale(
                factor, _real(f, "mscale_all_dim", mscale_all_dim, low=0.0)
            )
        else:
            att = _yarn_mscale(factor)
    elif rule == "llama3":
        lo = _real(f, "low_freq_factor", low_freq_factor, low=0.0, inclusive=False)
        hi = _real(f, "high_freq_factor", high_freq_factor, low=0.0, inclusive=False)
        if hi <= lo:
            raise ValueError(f"{f}: high_freq_factor must be > low_freq_factor = {lo:g}, got {high_freq_factor!r}")
        wavelen = 2 * math.pi / theta
        low_wavelen, high_wavelen = L / lo, L / hi
        scaled = np.where(wavelen > low_wavelen, theta / factor, theta)
        smooth = (L / wavelen - lo) / (hi - lo)
        blended = (1.0 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
        theta = np.where(medium, blended, scaled)
    return Scaling(np.asarray(theta, dtype=np.float64), float(att), rule)


@document_fields
@dataclass(frozen=True, repr=False)
class UnseenAngles(ResultDisplay):
    """Which channel pairs meet angles at test time that training never showed them."""

    inv_freq: FloatArray = field(metadata=field_doc("``θ_i``.", type="ndarray, shape (d/2,)"))
    wavelength: FloatArray = field(metadata=field_doc("``2π/θ_i`` in positions.", type="ndarray, shape (d/2,)"))
    train_max_angle: FloatArray = field(
        metadata=field_doc("``θ_i (L − 1)``, the largest angle seen in training.", type="ndarray, shape (d/2,)")
    )
    test_max_angle: FloatArray = field(
        metadata=field_doc("``θ_i (L' − 1)``, the largest angle met at test time.", type="ndarray, shape (d/2,)")
    )
    full_turn: npt.NDArray[np.bool_] = field(
        metadata=field_doc(
            "Training covered a whole turn (``θ_i (L − 1) ≥ 2π``): every angle (mod 2π) was seen.",
            type="ndarray of bool, shape (d/2,)",
        )
    )
    unseen: npt.NDArray[np.bool_] = field(
        metadata=field_doc(
            "The test length shows angles (mod 2π) outside the trained range: not ``full_turn`` and "
            "``θ_i (L' − 1) > θ_i (L − 1)``.",
            type="ndarray of bool, shape (d/2,)",
        )
    )
    unseen_fraction: FloatArray = field(
        metadata=field_doc(
            "Share of the circle first met at test time: ``min(θ_i (L'−1), 2π) − θ_i (L−1)`` over ``2π`` "
            "(0 for seen pairs).",
            type="ndarray, shape (d/2,)",
        )
    )
    train_length: int = field(metadata=field_doc("The training length ``L``."))
    test_length: int = field(metadata=field_doc("The test length ``L'``."))

    @property
    def n_unseen(self) -> int:
        """Number of pairs with unseen angles."""
        return int(self.unseen.sum())


def unseen_angles(
    inv_freq: npt.ArrayLike, train_length: int, test_length: int, test_inv_freq: npt.ArrayLike | None = None
) -> UnseenAngles:
    """For each pair, whether training completed a turn and whether testing shows new angles.

    Training saw pair ``i`` at the angles ``[0, θ_i (L − 1)]``; a test run of length ``L'`` with
    frequencies ``θ'_i`` (``θ'`` = ``θ`` unless the model is run with scaled frequencies, e.g.
    position interpolation) shows ``[0, θ'_i (L' − 1)]``. Angles are compared modulo ``2π``: a
    pair that turned fully in training has seen them all.

    Parameters
    ----------
    inv_freq : array_like, shape (d/2,)
        Training frequencies ``θ_i`` (e.g. :func:`ropelab.rotary.frequencies`), positive, finite.
    train_length, test_length : int
        Sequence lengths ``L`` and ``L'`` (positions ``0 … L−1``).
    test_inv_freq : array_like, shape (d/2,), optional
        Frequencies at test time (e.g. ``scaled_frequencies(...).inv_freq``); default ``inv_freq``.

    Returns
    -------
    UnseenAngles
        Per-pair arrays and counts.

    Raises
    ------
    ValueError
        For non-positive or non-finite frequencies, arrays of different lengths or lengths < 1.

    Examples
    --------
    >>> u = unseen_angles(rotary.frequencies(128), 2048, 8192)
    >>> int(u.full_turn.sum()), u.n_unseen       # 41 pairs turn within 2047 positions, 23 do not
    (41, 23)
    >>> pi = scaled_frequencies(128, "linear", factor=4.0).inv_freq   # position interpolation
    >>> float(unseen_angles(rotary.frequencies(128), 2048, 8192, pi).unseen_fraction.max()) < 1e-3
    True
    """
    f = "unseen_angles"

    def freqs(name: str, value: npt.ArrayLike) -> npt.NDArray[np.float64]:
        theta = np.asarray(value)
        if theta.dtype.kind not in "iuf" or theta.ndim != 1 or theta.size == 0:
            raise ValueError(f"{f}: {name} must be a non-empty 1-D array of numbers, got {value!r}")
        theta = theta.astype(np.float64)
        if not np.all(np.isfinite(theta)) or np.any(theta <= 0):
            raise ValueError(f"{f}: {name} must be positive and finite")
        return theta

    theta = freqs("inv_freq", inv_freq)
    theta_test = theta if test_inv_freq is None else freqs("test_inv_freq", test_inv_freq)
    if theta_test.shape != theta.shape:
        raise ValueError(f"{f}: test_inv_freq must have the shape of inv_freq {theta.shape}, got {theta_test.shape}")
    L = _int(f, "train_length", train_length, 1)
    Lt = _int(f, "test_length", test_length, 1)
    train = theta * (L - 1)
    test = theta_test * (Lt - 1)
    full = train >= 2 * math.pi
    unseen = ~full & (test > train)
    frac = np.where(unseen, (np.minimum(test, 2 * math.pi) - train) / (2 * math.pi), 0.0)
    return UnseenAngles(theta, 2 * math.pi / theta, train, test, full, unseen, frac, L, Lt)
