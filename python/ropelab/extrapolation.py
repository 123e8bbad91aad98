r"""Length extrapolation of RoPE: the frequency-scaling rules used in practice, and which channel
pairs meet angles at test time that they never met in training.

RoPE (RoFormer §3.2) rotates pair ``i`` of a vector at position ``m`` by ``m θ_i`` with
:math:`\theta_i = \mathrm{base}^{-2i/d}`. A model trained on sequences of length ``L`` has seen, in pair ``i``, the
angles ``[0, θ_i (L − 1)]`` only; when that interval is shorter than a full turn ``2π``, a longer
test sequence shows the pair angles it was never trained on. The rules below rescale ``θ`` (and
sometimes the attention logits) so that a model trained on ``L`` can run on ``factor · L``:

``"default"``
    ``θ_i`` unchanged.
``"linear"``
    Position interpolation (Chen et al. 2023, arXiv:2306.15595): ``θ_i / factor``.
``"ntk"``
    NTK-aware base scaling (bloc97, 2023): :math:`\mathrm{base} \cdot \mathrm{factor}^{d/(d-2)}`.
``"dynamic"``
    Dynamic NTK: at a sequence length ``n > L``,
    :math:`\mathrm{base} \cdot (\mathrm{factor} n / L - (\mathrm{factor} - 1))^{d/(d-2)}` (``θ`` unchanged for
    ``n ≤ L``).
``"yarn"``
    YaRN (Peng et al. 2023, arXiv:2309.00071, §3.3–3.4): pairs with more than ``beta_fast``
    rotations over ``L`` keep ``θ_i``, pairs with fewer than ``beta_slow`` are interpolated
    (``θ_i / factor``), with a linear ramp in between; logits are scaled by
    ``mscale² `` through the attention factor ``0.1 ln(factor) + 1``.
``"llama3"``
    The Llama 3.1 rule (Meta, 2024): wavelengths ``2π/θ_i`` longer than ``L / low_freq_factor``
    are interpolated, shorter than ``L / high_freq_factor`` kept, with a smooth blend between.
``"longrope"``
    LongRoPE (Ding et al. 2024, arXiv:2402.13753, §3; the Phi-3 form): one rescale factor per
    pair, ``θ_i / short_factor[i]`` up to the training length and ``θ_i / long_factor[i]`` beyond
    it (``seq_len > L``); logits scaled through the attention factor
    ``sqrt(1 + ln(factor)/ln L)``.
``"proportional"``
    Proportional (partial) RoPE: only the first ``int(p·d/2)`` pairs rotate, with
    :math:`\theta_i = \mathrm{base}^{-2i/d}` on the *full* dimension ``d``; the remaining pairs get ``θ = 0`` (no
    position: NoPE); all divided by ``factor``.

The formulas follow the ``rope_init_fn`` functions of Hugging Face ``transformers``
(``modeling_rope_utils``). ropelab computes them in float64 (``reference="float64"``, the
default). ``reference="transformers"`` reproduces transformers' float32 order of operations
on PyTorch's CPU instead, so that results agree with transformers to the bit: exponents,
divisions and blends each rounded to float32 where transformers' tensors are float32, a scalar
divided by a tensor as ``reciprocal(tensor) · scalar`` (PyTorch's ``__rtruediv__``), and the
powers ``base^x`` by SLEEF's float32 ``powf`` (1-ulp bound, in the C++ core), the function
PyTorch's CPU kernels call — not always the correctly rounded power. E.g. Llama 3: float64
``θ/factor`` rounded once is 1 ulp below transformers' float32 ``θ₃₂/factor`` in some pairs.

YaRN's attention factor with both ``mscale`` and ``mscale_all_dim`` given has two readings,
selected by ``yarn_mscale``: ``"deepseek"`` (the default; DeepSeek-V2's formula
``mscale(factor, mscale)/mscale(factor, mscale_all_dim)`` whenever both are given) and
``"transformers"`` (the ratio only when both are non-zero, else ``0.1 ln(factor) + 1``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ropelab import rotary
from ropelab._core_loader import core as _core
from ropelab._display import ResultDisplay, document_fields, field_doc
from ropelab._types import FloatArray
from ropelab._validation import check_size

__all__ = ["RULES", "REFERENCES", "YARN_MSCALES", "Scaling", "scaled_frequencies", "UnseenAngles", "unseen_angles"]

Rule = Literal["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"]
#: The scaling rules :func:`scaled_frequencies` knows.
RULES: tuple[str, ...] = ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional")
#: The arithmetic :func:`scaled_frequencies` can follow: ropelab's float64, or transformers' float32.
REFERENCES: tuple[str, ...] = ("float64", "transformers")
#: The readings of YaRN's ``mscale``/``mscale_all_dim`` pair.
YARN_MSCALES: tuple[str, ...] = ("deepseek", "transformers")


@document_fields
@dataclass(frozen=True, repr=False)
class Scaling(ResultDisplay):
    """Frequencies of a scaled RoPE."""

    inv_freq: FloatArray = field(
        metadata=field_doc(
            "The scaled ``θ_i`` (radians per position); float64 (holding float32 values exactly with "
            '``reference="transformers"``).',
            type="ndarray, shape (d/2,)",
        )
    )
    attention_factor: float = field(
        metadata=field_doc(
            "Factor applied to the cos/sin tables (so the logits scale by its square); 1 except YaRN and LongRoPE."
        )
    )
    rule: str = field(metadata=field_doc("The rule."))


def _real(func: str, name: str, value: object, *, low: float, inclusive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: {name} must be a real number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (x < low if inclusive else x <= low):
        raise ValueError(f"{func}: {name} must be a finite number {'>=' if inclusive else '>'} {low:g}, got {value!r}")
    return x


def _int(func: str, name: str, value: object, low: int, high: int = 2**63 - 1) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{func}: {name} must be an integer in [{low}, {high}], got {value!r}")
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
    short_factor: npt.ArrayLike | None = None,
    long_factor: npt.ArrayLike | None = None,
    partial_rotary_factor: float = 1.0,
    yarn_mscale: Literal["deepseek", "transformers"] = "deepseek",
    reference: Literal["float64", "transformers"] = "float64",
) -> Scaling:
    """The frequencies ``θ_i`` of RoPE scaled by one of the rules in practice.

    Parameters
    ----------
    d : int
        Rotary dimension (even, ≥ 2).
    rule : {"default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"}
        The rule (see the module's documentation).
    base : float
        RoPE's base (``rope_theta``).
    factor : float
        Context extension factor ``L'/L`` (≥ 1).
    original_max_position : int
        The training length ``L``.
    seq_len : int, optional
        ``"dynamic"``: the current sequence length (default ``L``, i.e. no change);
        ``"longrope"``: ``long_factor`` applies when ``seq_len > L`` (default: ``short_factor``).
    beta_fast, beta_slow : float
        ``"yarn"``: rotation counts bounding the ramp.
    mscale, mscale_all_dim : float, optional
        ``"yarn"``: DeepSeek-style attention scaling ``mscale(factor, mscale) / mscale(factor, mscale_all_dim)``
        (when it applies: ``yarn_mscale``).
    attention_factor : float, optional
        ``"yarn"``, ``"longrope"``: overrides the attention factor.
    truncate : bool
        ``"yarn"``: round the ramp's ends to whole dimensions (floor/ceil).
    low_freq_factor, high_freq_factor : float
        ``"llama3"``: the wavelength thresholds ``L/low_freq_factor`` and ``L/high_freq_factor``.
    short_factor, long_factor : array_like, shape (d/2,)
        ``"longrope"`` (required): the per-pair rescale factors (positive) within and beyond ``L``.
    partial_rotary_factor : float
        ``"proportional"``: the fraction ``p ∈ (0, 1]`` of the dimension that rotates.
    yarn_mscale : {"deepseek", "transformers"}
        ``"yarn"``: when ``mscale`` and ``mscale_all_dim`` give the attention factor: whenever both
        are given (``"deepseek"``, DeepSeek-V2's formula) or only when both are non-zero
        (``"transformers"``; otherwise ``0.1 ln(factor) + 1``). E.g. ``factor=40``,
        ``mscale=0.707``, ``mscale_all_dim=0``: 1.2608 and 1.3689.
    reference : {"float64", "transformers"}
        ``"float64"`` (default): ropelab's float64 evaluation. ``"transformers"``: transformers'
        float32 order of operations on PyTorch's CPU, bit for bit (see the module's
        documentation); scalars (bounds, attention factors) stay Python floats as there.

    Returns
    -------
    Scaling
        ``inv_freq`` (d/2 values) and the attention factor.

    Raises
    ------
    TypeError
        If a number has the wrong type.
    ValueError
        For an unknown rule, reference or yarn_mscale, an odd or small ``d``, ``factor < 1``,
        non-positive lengths, ``high_freq_factor <= low_freq_factor``, missing or mis-sized
        ``short_factor``/``long_factor``, or ``partial_rotary_factor`` outside ``(0, 1]``.

    Examples
    --------
    >>> s = scaled_frequencies(8, "linear", factor=4.0)
    >>> bool(np.allclose(s.inv_freq * 4, rotary.frequencies(8)))
    True
    >>> round(scaled_frequencies(128, "yarn", factor=16.0).attention_factor, 6)
    1.277259
    >>> s = scaled_frequencies(8, "longrope", factor=4.0, short_factor=[1, 1, 2, 2], long_factor=[1, 2, 4, 8],
    ...                        original_max_position=4096, seq_len=8192)
    >>> bool(np.allclose(s.inv_freq * [1, 2, 4, 8], rotary.frequencies(8))), round(s.attention_factor, 6)
    (True, 1.080123)
    >>> scaled_frequencies(8, "proportional", partial_rotary_factor=0.5).inv_freq
    array([1. , 0.1, 0. , 0. ])
    >>> a = scaled_frequencies(128, "llama3", factor=10.0, original_max_position=2048)
    >>> b = scaled_frequencies(128, "llama3", factor=10.0, original_max_position=2048, reference="transformers")
    >>> lower = scaled_frequencies(128, reference="transformers").inv_freq.astype(np.float32) / np.float32(10)
    >>> np.flatnonzero(a.inv_freq.astype(np.float32) < lower)   # float64 rounded once: 1 ulp below θ₃₂/10
    array([42, 48, 51, 58, 62])
    >>> bool(np.all(b.inv_freq.astype(np.float32) >= lower))
    True
    >>> kw = dict(factor=40.0, mscale=0.707, mscale_all_dim=0.0)
    >>> round(scaled_frequencies(128, "yarn", **kw).attention_factor, 4)
    1.2608
    >>> round(scaled_frequencies(128, "yarn", yarn_mscale="transformers", **kw).attention_factor, 4)
    1.3689
    """
    f = "scaled_frequencies"
    if rule not in RULES:
        raise ValueError(f"{f}: rule must be one of {RULES}, got {rule!r}")
    if reference not in REFERENCES:
        raise ValueError(f"{f}: reference must be one of {REFERENCES}, got {reference!r}")
    if yarn_mscale not in YARN_MSCALES:
        raise ValueError(f"{f}: yarn_mscale must be one of {YARN_MSCALES}, got {yarn_mscale!r}")
    d = _int(f, "d", d, 2, int(_core.limits.max_head_dim))
    if d % 2:
        raise ValueError(f"{f}: d must be even, got {d}")
    check_size(f, "d", 2 * d)  # the frequencies and their scaled copy, before either is made
    base = _real(f, "base", base, low=1.0, inclusive=False)
    factor = _real(f, "factor", factor, low=1.0)
    L = _int(f, "original_max_position", original_max_position, 1)
    t32 = reference == "transformers"
    # The exponents 2i/d and the powers base^(2i/d): float64, or transformers' float32 (the
    # exponent divided in float32, the power rounded to float32).
    ft: type[np.floating[Any]] = np.float32 if t32 else np.float64

    def powers(b: float, count: int, denom: int) -> npt.NDArray[np.floating[Any]]:
        e = np.arange(0, 2 * count, 2).astype(ft) / ft(denom)
        if t32:  # PyTorch's float32 power of a Python scalar (SLEEF's powf, in the core)
            return np.asarray(_core.extrapolation.float32_powers(base=b, exponents=e), dtype=np.float32)
        return np.asarray(np.power(b, e))

    def one_over(x: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.floating[Any]]:
        return np.asarray(ft(1.0) / x)

    theta = one_over(powers(base, d // 2, d)) if t32 else rotary.frequencies(d, base)
    att = 1.0
    if rule == "linear":
        theta = theta / ft(factor)
    elif rule == "ntk":
        if d > 2:  # (d = 2 has only θ_0 = 1, which no base changes)
            theta = one_over(powers(base * factor ** (d / (d - 2)), d // 2, d))
    elif rule == "dynamic":
        n = L if seq_len is None else _int(f, "seq_len", seq_len, 1)
        n = max(n, L)
        new_base = base * (factor * n / L - (factor - 1.0)) ** (d / (d - 2)) if d > 2 else base
        theta = one_over(powers(new_base, d // 2, d))
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
        if t32:  # transformers: 1/(factor·base^x) and the ramp in float32
            pos = powers(base, d // 2, d)
            interp = one_over(ft(factor) * pos)
            ramp = np.clip((np.arange(d // 2, dtype=ft) - ft(low)) / ft(high - low), ft(0), ft(1))
            keep = ft(1) - ramp
            theta = interp * (ft(1) - keep) + theta * keep
        else:
            ramp = np.clip((np.arange(d // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
            extrapolation = 1.0 - ramp  # 1: keep θ_i (fast pairs), 0: interpolate
            theta = (theta / factor) * (1.0 - extrapolation) + theta * extrapolation
        if attention_factor is not None:
            att = _real(f, "attention_factor", attention_factor, low=0.0, inclusive=False)
        elif mscale is not None and mscale_all_dim is not None:
            ms = _real(f, "mscale", mscale, low=0.0)
            ms_all = _real(f, "mscale_all_dim", mscale_all_dim, low=0.0)
            if yarn_mscale == "transformers" and not (ms != 0 and ms_all != 0):
                att = _yarn_mscale(factor)
            else:
                att = _yarn_mscale(factor, ms) / _yarn_mscale(factor, ms_all)
        else:
            att = _yarn_mscale(factor)
    elif rule == "llama3":
        lo = _real(f, "low_freq_factor", low_freq_factor, low=0.0, inclusive=False)
        hi = _real(f, "high_freq_factor", high_freq_factor, low=0.0, inclusive=False)
        if hi <= lo:
            raise ValueError(f"{f}: high_freq_factor must be > low_freq_factor = {lo:g}, got {high_freq_factor!r}")
        low_wavelen, high_wavelen = L / lo, L / hi
        if t32:  # PyTorch computes scalar / tensor as reciprocal(tensor) * scalar
            wavelen = (ft(1) / theta) * ft(2 * math.pi)
            smooth = ((ft(1) / wavelen) * ft(L) - ft(lo)) / ft(hi - lo)
        else:
            wavelen = 2 * math.pi / theta
            smooth = (L / wavelen - lo) / (hi - lo)
        scaled = np.where(wavelen > ft(low_wavelen), theta / ft(factor), theta)
        blended = (ft(1) - smooth) * scaled / ft(factor) + smooth * scaled
        medium = ~(wavelen < ft(high_wavelen)) & ~(wavelen > ft(low_wavelen))
        theta = np.where(medium, blended, scaled)
    elif rule == "longrope":
        which = "long_factor" if seq_len is not None and _int(f, "seq_len", seq_len, 0) > L else "short_factor"
        given = long_factor if which == "long_factor" else short_factor
        for name, value in (("short_factor", short_factor), ("long_factor", long_factor)):
            if value is None:
                raise ValueError(f"{f}: rule 'longrope' needs {name} (d/2 = {d // 2} positive numbers), got None")
            arr = np.asarray(value)
            if arr.dtype.kind not in "iuf" or arr.shape != (d // 2,):
                raise ValueError(f"{f}: {name} must be {d // 2} (= d/2) real numbers, got shape {arr.shape}")
            if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
                raise ValueError(f"{f}: {name} must be positive and finite")
        ext = np.asarray(given).astype(ft)
        theta = one_over(ext * powers(base, d // 2, d))
        if attention_factor is not None:
            att = _real(f, "attention_factor", attention_factor, low=0.0, inclusive=False)
        else:
            att = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(L)) if L > 1 else 1.0
    elif rule == "proportional":
        p = _real(f, "partial_rotary_factor", partial_rotary_factor, low=0.0, inclusive=False)
        if p > 1:
            raise ValueError(f"{f}: partial_rotary_factor must be in (0, 1], got {partial_rotary_factor!r}")
        angles = int(p * d // 2)
        theta = np.zeros(d // 2, dtype=ft)
        theta[:angles] = one_over(powers(base, angles, d))
        theta = theta / ft(factor)
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
