"""How result objects describe and show themselves.

A result's fields are described once: a class bound from C++ (``ropelab._core``) by its binding,
which names each field with its type and docstring (``_fields``, ``_field_types``,
``_field_docs``); a Python dataclass next to each field, ``x: T = field(metadata=field_doc(...))``.
:func:`document_fields` writes the class docstring's Attributes section from that description,
and :class:`ResultDisplay` gives the compact ``repr`` and the HTML table for Jupyter (each row's
title: the field's docstring).
"""

from __future__ import annotations

import dataclasses
import html
import inspect
import math
import re
import textwrap
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from ropelab._core_loader import core as _core
from ropelab._docstrings import shared

__all__ = [
    "ResultDisplay",
    "VERDICT_COLORS",
    "document_fields",
    "field_doc",
    "field_docs",
    "field_names",
    "field_types",
    "field_units",
    "number_html",
    "short_value",
    "value_html",
    "verdict_html",
]

_C = TypeVar("_C", bound=type)

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


@shared
def field_names(cls: type) -> tuple[str, ...]:
    """The fields of a result class bound from C++ (its ``_fields``), in order.

    Parameters
    ----------
    {bound_cls}

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


@shared
def field_types(cls: type) -> dict[str, str]:
    """The type of each field of a result class bound from C++ (its ``_field_types``), in order.

    Parameters
    ----------
    {bound_cls}

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


@shared
def field_docs(cls: type) -> dict[str, str]:
    """The docstring of each field of a result class bound from C++ (its ``_field_docs``), in order.

    Parameters
    ----------
    {bound_cls}

    Returns
    -------
    dict of str to str
        Field name to its docstring, as the binding gives it (the only place it is written).

    Raises
    ------
    TypeError
        If ``cls`` is not such a class.

    Examples
    --------
    >>> from ropelab.transition import FactorDistribution
    >>> field_docs(FactorDistribution)["median"]
    '1.'
    """
    return _bound_fields("field_docs", cls, "_field_docs")


def _bound_fields(func: str, cls: type, attr: str = "_field_types") -> dict[str, str]:
    """One of the per-field dicts of a result class bound from C++ (a subclass of ``_core.result.Result``), in order."""
    if not (isinstance(cls, type) and issubclass(cls, _core.result.Result)):
        raise TypeError(f"{func}: {cls!r} is not a result class bound from C++")
    values = getattr(cls, attr)
    return {name: str(values[name]) for name in cls._fields}


def field_doc(doc: str, *, type: str | None = None) -> dict[str, str]:
    """The metadata that describes one field of a result dataclass: ``field(metadata=field_doc(...))``.

    Parameters
    ----------
    doc : str
        What the field holds (one paragraph; the Attributes section wraps it).
    type : str, optional
        Its type as the docs write it (e.g. ``"ndarray of int, shape (n, T)"``); by default the
        field's annotation.

    Returns
    -------
    dict of str to str
        ``{"doc": doc}``, with ``"type"`` when given.

    Examples
    --------
    >>> field_doc("The seed.")
    {'doc': 'The seed.'}
    """
    return {"doc": doc} if type is None else {"doc": doc, "type": type}


def _numpydoc_type(t: str) -> str:
    """A type of ``_field_types`` as numpydoc writes it (``ndarray[float64, (A,)]``: ``ndarray of float64, shape (A,)``)."""
    if m := re.fullmatch(r"ndarray\[(\w+), (\(.*\))\]", t):
        return f"ndarray of {m[1]}, shape {m[2]}"
    if m := re.fullmatch(r"tuple\[(.+), \.\.\.\]", t):
        return f"tuple of {_numpydoc_type(m[1])}"
    if m := re.fullmatch(r"list\[(.+)\]", t):
        return f"list of {_numpydoc_type(m[1])}"
    return " or ".join(part.strip() for part in t.split("|"))


def _described_fields(cls: type) -> list[tuple[str, str, str]]:
    """(name, type as numpydoc writes it, doc) of each field of a result class, in order."""
    if dataclasses.is_dataclass(cls):
        out = []
        for f in dataclasses.fields(cls):
            if "doc" not in f.metadata:
                raise TypeError(f"{cls.__qualname__}.{f.name}: no doc (declare it with field(metadata=field_doc(...)))")
            t = f.metadata.get("type") or (
                f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
            )
            out.append((f.name, str(t), str(f.metadata["doc"])))
        return out
    names = field_names(cls)
    types, docs = field_types(cls), field_docs(cls)
    for name in names:
        if not docs[name].strip():
            raise TypeError(f"{cls.__qualname__}.{name}: the binding gives no doc")
    return [(name, _numpydoc_type(types[name]), docs[name]) for name in names]


def _title(doc: str) -> str:
    """The ``title`` attribute (a tooltip) of an HTML table row: the field's doc on one line."""
    return f" title='{html.escape(' '.join(doc.split()))}'" if doc.strip() else ""


#: Sections that follow Attributes in a numpydoc docstring (the generated section goes before them).
_LATER_SECTIONS = ("Methods", "See Also", "Notes", "References", "Examples")


def document_fields(cls: _C) -> _C:
    """Class decorator: writes the Attributes section of a result class's docstring from its fields.

    A class bound from C++ (or derived from one) takes each field's type and docstring from the
    binding (:func:`field_types`, :func:`field_docs`); a dataclass (decorate it after
    ``@dataclass``) from each field's ``metadata=field_doc(...)``. The section goes before any
    Notes, References or Examples section, so that ``help()`` and the API docs list every field
    with its text, written in one place.

    Parameters
    ----------
    cls : type
        The result class.

    Returns
    -------
    type
        ``cls``, its ``__doc__`` completed.

    Raises
    ------
    TypeError
        If a field has no doc, or the docstring already has an Attributes section (the fields
        are described by their declarations only).

    Examples
    --------
    >>> from dataclasses import dataclass, field
    >>> @document_fields
    ... @dataclass(frozen=True)
    ... class Pair:
    ...     "Two numbers."
    ...     a: int = field(metadata=field_doc("The first."))
    ...     b: float = field(metadata=field_doc("The second, ``>= a``.", type="float >= a"))
    >>> lines = Pair.__doc__.splitlines()
    >>> lines[:5]
    ['Two numbers.', '', 'Attributes', '----------', 'a : int']
    >>> lines[5:]
    ['    The first.', 'b : float >= a', '    The second, ``>= a``.']
    """
    doc = inspect.cleandoc(cls.__doc__ or "")
    lines = doc.splitlines()
    if any(a.strip() == "Attributes" and b.strip().startswith("---") for a, b in zip(lines, lines[1:])):
        raise TypeError(f"{cls.__qualname__}: the docstring writes an Attributes section by hand")
    entries = ["Attributes", "----------"]
    for name, type_text, text in _described_fields(cls):
        entries.append(f"{name} : {type_text}")
        # not at hyphens: numpydoc joins the lines with spaces, which must give the text back
        entries.extend(
            textwrap.wrap(
                " ".join(text.split()), 92, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False
            )
        )
    cut = next(
        (
            i
            for i, (a, b) in enumerate(zip(lines, lines[1:]))
            if a.strip() in _LATER_SECTIONS and b.strip().startswith("---")
        ),
        len(lines),
    )
    head, tail = lines[:cut], lines[cut:]
    while head and not head[-1].strip():
        head.pop()
    cls.__doc__ = "\n".join([*head, "", *entries, *([""] + tail if tail else [])]) + "\n"
    return cls


def _field_titles(cls: type) -> dict[str, str]:
    """Field name to its doc, for the HTML table's row titles (empty when the class has none)."""
    try:
        return {name: doc for name, _, doc in _described_fields(cls)}
    except TypeError:
        return {}


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

    def _html_rows(self) -> list[tuple[str, str, str]]:
        """(name, value as HTML, field docstring) for each row of the HTML table."""
        titles = _field_titles(type(self))
        units = field_units(type(self))
        return [(name, value_html(value, units.get(name, "")), titles.get(name, "")) for name, value in self._shown()]

    def _html_extra(self) -> str:
        """HTML shown below the table (a result's key numbers that are not fields); empty here."""
        return ""

    def _repr_html_(self) -> str:
        e = html.escape
        rows = "".join(
            f"<tr><th style='text-align:left'{_title(doc)}>{e(name)}</th><td style='text-align:left'>{value}</td></tr>"
            for name, value, doc in self._html_rows()
        )
        table = f"<table><caption style='text-align:left'><b>{e(type(self).__name__)}</b></caption>{rows}</table>"
        return table + self._html_extra()


#: The colour of each verdict in HTML views (``error``: the check raised).
VERDICT_COLORS: dict[str, str] = {"holds": "#1a7f37", "holds-if": "#9a6700", "fails": "#cf222e", "error": "#8250df"}


def verdict_html(verdict: str) -> str:
    """A verdict as bold coloured HTML text (:data:`VERDICT_COLORS`), without quotes.

    Parameters
    ----------
    verdict : str
        ``holds``, ``holds-if``, ``fails`` or ``error``.

    Returns
    -------
    str
        The HTML.

    Examples
    --------
    >>> verdict_html("holds")
    "<span style='color:#1a7f37;font-weight:bold'>holds</span>"
    """
    color = VERDICT_COLORS.get(verdict, "inherit")
    return f"<span style='color:{color};font-weight:bold'>{html.escape(verdict)}</span>"


#: Units read from a field's name: its suffix -> the unit.
_SUFFIX_UNITS = (("_db_per_octave", "dB/octave"), ("_db", "dB"), ("_bins", "bins"), ("_seconds", "s"))
#: Units read from a field's docstring: a parenthesised unit such as ``(samples)`` or ``(dB, >= 0)``.
_DOC_UNIT = re.compile(r"\((dB/octave|dB|bins|samples|rad/sample|1/sample|seconds|s)\b[^()]*\)")


def field_units(cls: type) -> dict[str, str]:
    """The unit of each field of a result class: its class attribute ``_units``, else read from the
    field's name (``_db``, ``_bins``, ...) or from a parenthesised unit in its docstring.

    Parameters
    ----------
    cls : type
        A result class (a dataclass or a class bound from C++).

    Returns
    -------
    dict of str to str
        Field name to unit, for the fields that have one.

    Examples
    --------
    >>> from ropelab.spectra import FiguresOfMerit
    >>> units = field_units(FiguresOfMerit)
    >>> units["highest_sidelobe_db"], units["enbw_bins"], units["N"]
    ('dB', 'bins', 'samples')
    """
    if dataclasses.is_dataclass(cls):
        docs = {f.name: str(f.metadata.get("doc", "")) for f in dataclasses.fields(cls)}
    else:
        docs = field_docs(cls)
    units: dict[str, str] = {}
    for name, doc in docs.items():
        unit = next((u for suffix, u in _SUFFIX_UNITS if name.endswith(suffix)), None)
        if unit is None:
            m = _DOC_UNIT.search(doc.split(";")[0])
            unit = m.group(1) if m else None
        if unit is not None:
            units[name] = {"seconds": "s"}.get(unit, unit)
    units.update(getattr(cls, "_units", {}))
    return units


def number_html(x: float, unit: str = "", digits: int = 4) -> str:
    """A number for HTML: ``digits`` significant digits, a true minus sign, powers of ten as
    ``×10<sup>k</sup>`` and the unit after a narrow space.

    Parameters
    ----------
    x : float
        The number.
    unit : str
        Its unit, or ``""``.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The HTML.

    Examples
    --------
    >>> number_html(-13.2614, "dB"), number_html(2.5e-7)
    ('−13.26&#8239;dB', '2.5×10<sup>−7</sup>')
    """
    x = float(x)
    if math.isnan(x):
        text = "nan"
    elif math.isinf(x):
        text = "∞" if x > 0 else "−∞"
    else:
        text = f"{x:.{digits}g}"
        if "e" in text:
            mant, exp = text.split("e")
            text = f"{mant}×10<sup>{int(exp)}</sup>" if mant != "1" else f"10<sup>{int(exp)}</sup>"
        text = text.replace("-", "−") if x != 0 else "0"
    return f"{text}&#8239;{html.escape(unit)}" if unit else text


def value_html(v: Any, unit: str = "") -> str:
    """One field value for an HTML table: numbers formatted with their unit, text bare (no quotes),
    verdicts coloured, short arrays written out and long ones summarised.

    Parameters
    ----------
    v : object
        The value.
    unit : str
        Its unit, or ``""``.

    Returns
    -------
    str
        The HTML.

    Examples
    --------
    >>> value_html(np.array([0.5, 1.0]), "dB")
    '[0.5, 1]&#8239;dB'
    """
    e = html.escape
    if v is None:
        return "—"
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v)}&#8239;{e(unit)}" if unit else str(int(v))
    if isinstance(v, (float, np.floating)):
        return number_html(float(v), unit)
    if isinstance(v, str):
        return verdict_html(v) if v in VERDICT_COLORS else e(v)
    if isinstance(v, np.ndarray) and v.dtype.kind in "iuf" and v.ndim == 1 and 0 < v.size <= 8:
        items = ", ".join(number_html(float(x)) for x in v)
        return f"[{items}]&#8239;{e(unit)}" if unit else f"[{items}]"
    if isinstance(v, np.ndarray) and v.dtype.kind in "iuf" and v.size:
        finite = v[np.isfinite(v)]
        shape = "×".join(str(n) for n in v.shape)
        if not finite.size:
            return f"{shape} array, no finite values"
        lo, hi = number_html(float(np.min(finite)), unit), number_html(float(np.max(finite)), unit)
        return f"{shape} array, {lo} … {hi}"
    if isinstance(v, (list, tuple)) and v and all(isinstance(x, str) for x in v):
        return e(", ".join(v))
    return e(short_value(v, 120))
