"""Small argument helpers shared by the Python wrappers (the bindings do the real checking)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from ropelab._types import FloatOrArray


def scalar_or_array(out: npt.NDArray[np.float64], like: Any) -> FloatOrArray:
    """Return a Python float when the user passed a scalar, else the array."""
    return float(out) if np.ndim(like) == 0 else out


def broadcast_shape(func: str, **arrays: Any) -> tuple[int, ...]:
    """The shape keyword array-likes broadcast to; ValueError naming ``func`` when they do not fit.

    Nothing is materialised: the core broadcasts the operands itself (a scalar against a large
    array is never copied to a full array, a copy that could not be interrupted).
    """
    shapes = {k: np.shape(v) for k, v in arrays.items()}
    try:
        return tuple(np.broadcast_shapes(*shapes.values()))
    except ValueError:
        raise ValueError(f"{func}: arguments cannot be broadcast together, got shapes {shapes}") from None


#: Elements per piece of a large conversion made in Python (a few ms each): Python checks for
#: Ctrl-C between two NumPy calls, never inside one.
_PIECE = 1 << 20


def _copy_pieces(dst: npt.NDArray[Any], src: npt.NDArray[Any]) -> None:
    if dst.ndim == 0 or dst.size <= _PIECE:
        np.copyto(dst, src, casting="unsafe")
        return
    row = dst.size // dst.shape[0]
    if row >= _PIECE // 2:  # large rows: split each of them
        for i in range(dst.shape[0]):
            _copy_pieces(dst[i], src[i])
        return
    step = _PIECE // row
    for b in range(0, dst.shape[0], step):
        np.copyto(dst[b : b + step], src[b : b + step], casting="unsafe")


def as_float64(a: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """``a`` (a real array) as a C-contiguous float64 array, the same values as
    ``np.ascontiguousarray(a, dtype=np.float64)``; a large copy is made in pieces, so that Ctrl-C
    is answered while it runs.
    """
    if a.dtype == np.float64 and a.flags.c_contiguous:
        return a
    if a.size <= 4 * _PIECE:
        return np.ascontiguousarray(a, dtype=np.float64)
    out = np.empty(a.shape, dtype=np.float64)
    _copy_pieces(out, a)
    return out


def negated(a: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
    """``-a`` (a real array) as a new C-contiguous float64 array, converted and negated in pieces
    (Ctrl-C is answered); the same values as ``-np.asarray(a, dtype=np.float64)``.
    """
    out = np.empty(a.shape, dtype=np.float64)
    _copy_pieces(out, a)
    flat = out.reshape(-1)
    for b in range(0, flat.size, _PIECE):
        np.negative(flat[b : b + _PIECE], out=flat[b : b + _PIECE])
    return out


def all_finite(a: npt.NDArray[np.float64]) -> bool:
    """``np.all(np.isfinite(a))`` for a C-contiguous array, in pieces (Ctrl-C is answered)."""
    flat = a.reshape(-1)
    return all(bool(np.all(np.isfinite(flat[b : b + _PIECE]))) for b in range(0, flat.size, _PIECE))


def real_number(func: str, name: str, value: Any) -> float:
    """A finite real number (int, float or a NumPy real scalar; not bool, str or complex)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: {name} must be a real number, got {value!r} of type {type(value).__name__}")
    x = float(value)
    if not np.isfinite(x):
        raise ValueError(f"{func}: {name} must be finite, got {value!r}")
    return x


def boolean(func: str, name: str, value: Any, *, none: bool = False) -> None:
    """TypeError unless ``value`` is a bool (Python's or NumPy's; or None when ``none``)."""
    if not (isinstance(value, (bool, np.bool_)) or (none and value is None)):
        raise TypeError(f"{func}: {name} must be a bool, got {value!r} of type {type(value).__name__}")


def integer(func: str, name: str, value: Any, minimum: int, maximum: int | None = None) -> int:
    """An integer (int or NumPy integer; not bool) in ``[minimum, maximum]``, as a Python int."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{func}: {name} must be an integer, got {value!r} of type {type(value).__name__}")
    v = int(value)
    if v < minimum or (maximum is not None and v > maximum):
        bound = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
        raise ValueError(f"{func}: {name} must be an integer {bound}, got {value!r}")
    return v


def _physical_bytes() -> float:
    """The machine's physical memory, as the core reads it (``_core.limits.physical_bytes``)."""
    from ropelab._core_loader import core

    return float(core.limits.physical_bytes())


def check_output_size(func: str, count: float, itemsize: int = 8) -> None:
    """MemoryError up front when an output of ``count`` items cannot fit in physical memory."""
    need = float(count) * itemsize
    if not need <= _physical_bytes():
        raise MemoryError(
            f"{func}: the requested output cannot be allocated ({float(count):.4g} values = "
            f"{need * 1e-9:.3g} GB; physical memory is {_physical_bytes() * 1e-9:.3g} GB)"
        )


def is_integer(x: Any) -> bool:
    """Whether ``x`` is an integer scalar (``int`` or a NumPy integer, not ``bool``) or an integer array."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "iu"
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_default(value: Any, default: Any) -> bool:
    """Whether a keyword argument still holds its default (so was not passed)."""
    if value is default:
        return True
    return type(value) is type(default) and not isinstance(value, np.ndarray) and bool(value == default)


def check_size(func: str, name: str, count: float, itemsize: int = 8) -> None:
    """MemoryError naming ``func`` and ``name`` when ``count`` items of ``itemsize`` bytes (an array
    that argument ``name`` asks for, or its copy) cannot fit in physical memory; checked before
    any allocation or copy.
    """
    need = float(count) * itemsize
    if not need <= _physical_bytes():
        raise MemoryError(
            f"{func}: {name} asks for {float(count):.4g} values ({need * 1e-9:.3g} GB), more than "
            f"physical memory ({_physical_bytes() * 1e-9:.3g} GB)"
        )


def real_array(func: str, name: str, x: Any, *, finite: bool = False) -> npt.NDArray[np.float64]:
    """Argument ``name`` of ``func`` as a C-contiguous float64 array.

    TypeError for None, bool, complex, object or string input; MemoryError before the copy when
    a copy (of a broadcast view, say) cannot fit in physical memory; ValueError for NaN/inf when
    ``finite``. Each message names ``func`` and ``name``.
    """
    if x is None:
        raise TypeError(f"{func}: {name} must be a real array, got None")
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise TypeError(f"{func}: {name} must be a real array, got {type(x).__name__}") from None
    if a.dtype.kind == "b":
        raise TypeError(f"{func}: {name} must be a real array, not bool (True/False are not numbers)")
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{func}: {name} must be a real array, got dtype {a.dtype}")
    if not (a.dtype == np.float64 and a.flags.c_contiguous):
        check_size(func, name, a.size)
    out = as_float64(a)
    if finite and not all_finite(out):
        i = int(np.flatnonzero(~np.isfinite(out.reshape(-1)))[0])
        raise ValueError(f"{func}: {name} must be finite, element {i} is {out.reshape(-1)[i]}")
    return out


def seed(func: str, value: Any, name: str = "seed") -> int:
    """A reproducible seed: an integer in ``[0, 2**64)`` (not None, not bool)."""
    if value is None:
        raise TypeError(f"{func}: {name} must be an integer in [0, 2**64) (None would not be reproducible)")
    return integer(func, name, value, 0, 2**64 - 1)


def same_kind(e: BaseException) -> type[Exception]:
    """The public class of ``e`` (MemoryError, TypeError or ValueError) for re-raising it with
    another message (NumPy's subclasses, such as its allocation error, take other arguments).
    """
    return next(c for c in (MemoryError, TypeError, ValueError) if isinstance(e, c))


@contextmanager
def renamed(func: str, *inner: str, args: dict[str, str] | None = None) -> Iterator[None]:
    """Errors of the inner public functions ``inner`` re-raised as errors of ``func``.

    A ValueError, TypeError or MemoryError raised inside the block whose message starts with
    ``"<inner>: "`` is raised again (same class) with ``func`` in its place, so that the message
    names the function the user called; ``args`` maps an inner argument name to the caller's
    (``{"name": "g"}`` turns ``"group: name ..."`` into ``"f: g ..."``).
    """
    try:
        yield
    except (ValueError, TypeError, MemoryError) as e:
        msg = str(e)
        for name in inner:
            if msg.startswith(f"{name}: "):
                rest = msg[len(name) + 2 :]
                for old, new in (args or {}).items():
                    if rest.startswith(f"{old} "):
                        rest = f"{new} {rest[len(old) + 1 :]}"
                raise same_kind(e)(f"{func}: {rest}") from None
        raise
