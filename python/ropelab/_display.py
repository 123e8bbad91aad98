"""How result objects show themselves: a compact ``repr`` and an HTML table for Jupyter."""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ropelab._core_loader import core as _core

__all__ = ["ResultDisplay", "field_names", "field_types", "short_value"]

#: ``repr`` stays on one line up to this width, else one field per line.
_ONE_LINE = 100


def short_value(v: Any, width: int = 60) -> str:
    """A short text for one field value: numbers to 6 significant digits, arrays summarised.

    Parameters
    ----------
    v : object
        The value.
    width : int
        Texts longer than this are cut with ``...``.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> short_value(1 / 3), short_value(np.zeros((2, 3)))
    ('0.333333', 'array(shape=(2, 3), float64, min=0, max=0)')
    """
    if isinstance(v, (bool, np.bool_)) or v is None:
        text = str(v)
    elif isinstance(v, (float, np.floating)):
        text = f"{float(v):.6g}" if math.isfinite(v) else str(float(v))
    elif isinstance(v, (int, np.integer)):
        text = str(int(v))
    elif isinstance(v, np.ndarray):
        if v.size == 0 or v.dtype.kind not in "iufb":
            text = f"array(shape={v.shape}, {v.dtype})"
        else:
            finite = v[np.isfinite(v)] if v.dtype.kind == "f" else v
            rng = (
                f", min={short_value(finite.min())}, max={short_value(finite.max())}"
                if finite.size
                else ", no finite values"
            )
            text = f"array(shape={v.shape}, {v.dtype}{rng})"
    elif isinstance(v, (list, tuple)) and v and (dataclasses.is_dataclass(v[0]) or isinstance(v[0], ResultDisplay)):
        text = f"[{len(v)} × {type(v[0]).__name__}]"
    elif isinstance(v, Mapping):
        text = "{" + ", ".join(f"{k}: {short_value(x, width)}" for k, x in v.items()) + "}"
    else:
        text = repr(v)
    return text if len(text) <= width else text[: width - 3] + "..."


def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a result class bound from C++ (its ``_fields``), in order.

    Parameters
    ----------
    cls : type
        A result class of ``ropelab._core`` or a class derived from one.

    Returns
    -------
    tuple of str
        The field names, in the order of the C++ struct.

    Raises
    ------
    TypeError
        If ``cls`` is not such a class.

    Examples
    --------
    >>> from ropelab.transition import FactorDistribution
    >>> field_names(FactorDistribution)
    ('mean', 'variance', 'median', 'prob_gt_one')
    """
    return tuple(_bound_fields("field_names", cls))


def field_types(cls: type) -> dict[str, str]:
    """The type of each field of a result class bound from C++ (its ``_field_types``), in order.

    Parameters
    ----------
    cls : type
        A result class of ``ropelab._core`` or a class derived from one.

    Returns
    -------
    dict of str to str
        Field name to ``"int"``, ``"float"``, ``"bool"``, ``"float | None"``, or for the
        fields that are not numbers the type as the stubs write it, e.g. ``"str"``,
        ``"list[str]"``, ``"tuple[FiguresOfMerit, ...]"``, and for NumPy arrays the dtype and
        shape, e.g. ``"ndarray[float64, (A, W)]"``.

    Raises
    ------
    TypeError
        If ``cls`` is not such a class.

    Examples
    --------
    >>> from ropelab.spectra import FiguresOfMerit
    >>> t = field_types(FiguresOfMerit)
    >>> t["N"], t["enbw_bins"], t["first_min_is_null"], t["decay_ratio"]
    ('int', 'float', 'bool', 'float | None')
    """
    return _bound_fields("field_types", cls)


def _bound_fields(func: str, cls: type) -> dict[str, str]:
    """The fields of a result class bound from C++ (a subclass of ``_core.result.Result``) and their types, in order."""
    if not (isinstance(cls, type) and issubclass(cls, _core.result.Result)):
        raise TypeError(f"{func}: {cls!r} is not a result class bound from C++")
    types = cls._field_types
    return {name: str(types[name]) for name in cls._fields}


class ResultDisplay:
    """Mixin for result classes: compact ``repr`` and ``_repr_html_`` from the shown fields.

    A dataclass using it is declared with ``repr=False`` so that these methods are not replaced;
    fields declared with ``field(repr=False)`` are left out of both views. A result class bound
    from C++ (``ropelab._core``; it lists its fields in ``_fields``) shows every field but those
    named in its class attribute ``_hidden_fields`` (e.g. large arrays); the mixin
    comes first among its bases so that its ``repr`` is the one used; neither adds a
    ``__dict__`` (no ``__slots__`` entries here), so such a result takes no new attributes.
    """

    __slots__ = ()

    def _shown(self) -> list[tuple[str, Any]]:
        if not dataclasses.is_dataclass(self):
            hidden = getattr(type(self), "_hidden_fields", ())
            return [(name, getattr(self, name)) for name in field_names(type(self)) if name not in hidden]
        return [(f.name, getattr(self, f.name)) for f in dataclasses.fields(self) if f.repr]

    def __repr__(self) -> str:
        items = [f"{name}={short_value(value)}" for name, value in self._shown()]
        one = f"{type(self).__name__}({', '.join(items)})"
        if len(one) <= _ONE_LINE:
            return one
        return f"{type(self).__name__}(\n" + "".join(f"    {item},\n" for item in items) + ")"

    def _repr_html_(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><th style='text-align:left'>{e(name)}</th><td style='text-align:left'>"
            f"{e(short_value(value, 120))}</td></tr>"
            for name, value in self._shown()
        )
        return f"<table><caption style='text-align:left'><b>{e(type(self).__name__)}</b></caption>{rows}</table>"
