"""A sweep's grid: named axes with values, cells in row-major order, per-cell seeds, fingerprint."""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Python types an axis value may have after normalisation.
Value = bool | int | float | str

_SEED_LIMIT = 2**64
#: The largest cell index (cell indices are int64 in the core and in the store).
_INDEX_MAX = 2**63 - 1


def _normalise_value(axis: str, v: Any, func: str = "sweep") -> Value:
    """A plain Python bool/int/float/str, or TypeError/ValueError naming the axis and value."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if not math.isfinite(x):
            raise ValueError(f"{func}: grid axis {axis!r} has a non-finite value {v!r}")
        return x + 0.0  # -0.0 -> 0.0: one value, one cell
    if isinstance(v, str):
        return v
    raise TypeError(
        f"{func}: grid axis {axis!r} values must be bool, int, float or str, got {v!r} of type {type(v).__name__}"
    )


def _normalise_axis(axis: Any, values: Any, func: str = "sweep") -> tuple[str, tuple[Value, ...]]:
    if not isinstance(axis, str) or not axis.isidentifier():
        raise ValueError(f"{func}: grid axis names must be identifiers, got {axis!r}")
    try:
        scalar = isinstance(values, (str, bytes)) or np.ndim(values) == 0
    except ValueError:  # a ragged nested sequence
        raise TypeError(f"{func}: grid axis {axis!r} values must be bool, int, float or str, got {values!r}") from None
    if scalar:
        seq: Sequence[Any] = [values]  # a scalar is an axis of one value
    elif isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ValueError(f"{func}: grid axis {axis!r} must be 1-D, got shape {values.shape}")
        seq = values.tolist()
    elif isinstance(values, (Sequence, range)) or hasattr(values, "__iter__"):
        seq = list(values)
    else:  # pragma: no cover - np.ndim is 0 for everything else
        seq = [values]
    out = tuple(_normalise_value(axis, v, func) for v in seq)
    if not out:
        raise ValueError(f"{func}: grid axis {axis!r} has no values")
    # equal values are one value (6 == 6.0), but a bool is not a number here (True != 1)
    keys = {(type(v) is bool, type(v) is str, v) for v in out}
    if len(keys) != len(out):
        raise ValueError(f"{func}: grid axis {axis!r} has repeated values {list(out)!r}")
    return axis, out


def _tag(v: Value) -> list[Any]:
    """An exact, JSON-able, type-tagged form of a value (floats as hex: no rounding)."""
    if isinstance(v, bool):
        return ["b", v]
    if isinstance(v, int):
        return ["i", str(v)]
    if isinstance(v, float):
        return ["f", v.hex()]
    return ["s", v]


def _untag(tagged: list[Any]) -> Value:
    kind, v = tagged
    if kind == "b":
        return bool(v)
    if kind == "i":
        return int(v)
    if kind == "f":
        return float.fromhex(v)
    return str(v)


@dataclass(frozen=True)
class Grid:
    """Named axes with values; cell ``i`` is the ``i``-th element of their Cartesian product in
    row-major order (the last axis varies fastest), as ``itertools.product`` lists them.

    Attributes
    ----------
    axes : tuple of (str, tuple)
        ``(name, values)`` per axis, in grid order.

    Examples
    --------
    >>> g = Grid.from_mapping({"xi": [0.1, 0.5], "D": [16, 64, 256]})
    >>> len(g), g.cell(4)
    (6, {'xi': 0.5, 'D': 64})
    """

    axes: tuple[tuple[str, tuple[Value, ...]], ...]

    @staticmethod
    def from_mapping(grid: Mapping[str, Any]) -> Grid:
        """The grid of a mapping from axis names to values (a scalar is a one-value axis).

        Parameters
        ----------
        grid : mapping of str to object
            Axis name to a value or a sequence of values.

        Returns
        -------
        Grid
            The grid, axes in the mapping's order.

        Raises
        ------
        TypeError
            If ``grid`` is not a mapping, or an axis has values of an unsupported type.
        ValueError
            If ``grid`` has no axes, or an axis name is not an identifier, or an axis is empty, not
        1-D or has repeated values.
        """
        return grid_of(grid, "sweep.Grid.from_mapping")

    @staticmethod
    def from_spec(spec: list[Any]) -> Grid:
        """The grid whose :meth:`spec` is ``spec`` (as stored in a sweep's ``_sweep.json``).

        Parameters
        ----------
        spec : list
            ``[[name, [tagged values]], …]`` as returned by :meth:`spec`.

        Returns
        -------
        Grid
            The grid.

        Raises
        ------
        TypeError
            If ``spec`` is not a list of ``[name, [tagged values]]`` pairs.
        ValueError
            If the axes it describes are not a valid grid (as :meth:`from_mapping` checks).
        """
        func = "sweep.Grid.from_spec"
        if not isinstance(spec, (list, tuple)) or not spec:
            raise TypeError(
                f"{func}: spec must be a non-empty list of [name, [tagged values]] (Grid.spec), got {spec!r:.80}"
            )
        axes = []
        for i, entry in enumerate(spec):
            try:
                name, values = entry
                untagged = [_untag(v) for v in values]
            except (TypeError, ValueError, KeyError) as e:
                raise TypeError(
                    f"{func}: spec[{i}] must be [name, [tagged values]] as Grid.spec gives, got {entry!r:.80} ({e})"
                ) from None
            axes.append(_normalise_axis(name, untagged, func))
        return Grid(tuple(axes))

    @property
    def names(self) -> tuple[str, ...]:
        """The axis names, in grid order.

        Returns
        -------
        tuple of str
            The names.
        """
        return tuple(name for name, _ in self.axes)

    @property
    def shape(self) -> tuple[int, ...]:
        """The number of values of each axis, in grid order.

        Returns
        -------
        tuple of int
            The shape; the grid has ``prod(shape)`` cells.
        """
        return tuple(len(values) for _, values in self.axes)

    def __len__(self) -> int:
        return self._size

    @functools.cached_property
    def _size(self) -> int:
        return math.prod(self.shape)

    def cell(self, index: int) -> dict[str, Value]:
        """The axis values of cell ``index``.

        Parameters
        ----------
        index : int
            Cell index, ``0 ≤ index < len(grid)``.

        Returns
        -------
        dict of str to object
            Axis name to value.

        Raises
        ------
        TypeError
            If ``index`` is not an integer.
        ValueError
            If ``index`` is out of range.
        """
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"sweep.Grid.cell: index must be an integer, got {index!r} of type {type(index).__name__}")
        if not 0 <= index < len(self):
            raise ValueError(f"sweep.Grid.cell: index must be in [0, {len(self)}), got {index!r}")
        picked: list[tuple[str, Value]] = []
        rest = int(index)
        for name, values in reversed(self.axes):  # row-major: the last axis varies fastest
            rest, i = divmod(rest, len(values))
            picked.append((name, values[i]))
        return dict(reversed(picked))

    def column(self, name: str, indices: Sequence[int]) -> np.ndarray[Any, Any]:
        """The values of axis ``name`` for the given cells, as one NumPy column.

        The column's dtype follows the axis's values: bool, int64, float64 (ints mixed with floats
        become float64) or str; an axis mixing strings with numbers becomes str (``repr`` of the
        numbers), so it can be stored in Parquet.

        Parameters
        ----------
        name : str
            An axis name.
        indices : sequence of int
            Cell indices.

        Returns
        -------
        ndarray, shape (len(indices),)
            The axis values of those cells.

        Raises
        ------
        TypeError
            If ``name`` is not a str or ``indices`` is not a sequence of integers.
        ValueError
            If ``name`` is not an axis, or an index is out of range.
        """
        func = "sweep.Grid.column"
        if not isinstance(name, str):
            raise TypeError(f"{func}: name must be a str (an axis name), got {name!r} of type {type(name).__name__}")
        if name not in self.names:
            raise ValueError(f"{func}: name must be one of the axes {list(self.names)}, got {name!r}")
        pos = self.names.index(name)
        values = self.axes[pos][1]
        try:
            idx = np.asarray(indices)
        except (TypeError, ValueError):
            raise TypeError(f"{func}: indices must be a sequence of integers, got {indices!r:.80}") from None
        if idx.size == 0:
            idx = idx.astype(np.int64)
        if idx.ndim != 1 or idx.dtype.kind not in "iu":
            raise TypeError(f"{func}: indices must be a 1-D sequence of integers, got {indices!r:.80}")
        if idx.size and not (0 <= idx.min() and idx.max() < len(self)):
            raise ValueError(f"{func}: indices must lie in [0, {len(self)}), got values in [{idx.min()}, {idx.max()}]")
        where = np.unravel_index(idx.astype(np.int64), self.shape)[pos]
        picked = [values[int(i)] for i in where.tolist()]
        kinds = {type(v) for v in values}
        if kinds == {bool}:
            return np.asarray(picked, dtype=bool)
        if kinds == {int}:
            return np.asarray(picked, dtype=np.int64)
        if kinds <= {int, float}:
            return np.asarray(picked, dtype=np.float64)
        return np.asarray([v if isinstance(v, str) else repr(v) for v in picked], dtype=object)

    def spec(self) -> list[Any]:
        """The grid as JSON-ready data (values tagged with their type; floats in hex, exactly).

        Returns
        -------
        list
            ``[[name, [tagged values]], …]``; :meth:`from_spec` inverts it.
        """
        return [[name, [_tag(v) for v in values]] for name, values in self.axes]


def grid_of(grid: Any, func: str) -> Grid:
    """:meth:`Grid.from_mapping` with errors naming ``func`` (the public function called)."""
    if not isinstance(grid, Mapping):
        raise TypeError(f"{func}: grid must be a mapping of axis names to values, got {type(grid).__name__}")
    if not grid:
        raise ValueError(f"{func}: grid has no axes")
    return Grid(tuple(_normalise_axis(k, v, func) for k, v in grid.items()))


def check_seed(seed: Any, func: str = "sweep") -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{func}: seed must be an integer, got {seed!r}")
    if not 0 <= int(seed) < _SEED_LIMIT:
        raise ValueError(f"{func}: seed must lie in [0, 2**64), got {seed!r}")
    return int(seed)


def cell_seed(seed: int, index: int) -> int:
    """The seed of cell ``index``: ``SeedSequence(seed, spawn_key=(index,))``'s first 64 bits.

    A cell's estimates then use the random numbers addressed by ``(cell_seed, trial)``, so every
    number is a function of ``(seed, cell index, trial)`` alone: the same on any backend, batch
    size, worker count or completion order. ``SeedSequence``'s hashing is specified and stable
    across NumPy versions and platforms.

    Parameters
    ----------
    seed : int
        The sweep's seed, in ``[0, 2**64)``.
    index : int
        The cell index.

    Returns
    -------
    int
        A 64-bit seed.

    Raises
    ------
    TypeError
        If ``seed`` or ``index`` is not an integer.
    ValueError
        If ``seed`` is not in ``[0, 2**64)`` or ``index`` not in ``[0, 2**63)`` (cell indices are
        int64 where the core derives many cells' seeds at once).

    Examples
    --------
    >>> cell_seed(0, 0) == cell_seed(0, 0) != cell_seed(0, 1)
    True
    """
    seed = check_seed(seed, "sweep.cell_seed")  # None would make SeedSequence draw fresh entropy on every call
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"sweep.cell_seed: index must be an integer (a cell index), got {index!r}")
    if not 0 <= int(index) <= _INDEX_MAX:
        raise ValueError(f"sweep.cell_seed: index must be a cell index, an integer in [0, 2**63), got {index!r}")
    index = int(index)
    words = np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(2, np.uint32)
    return int(words[0]) | (int(words[1]) << 32)


def cell_seeds(seed: int, indices: Sequence[int]) -> np.ndarray[Any, Any]:
    """:func:`cell_seed` of many cells at once (computed in the core; the same numbers).

    Parameters
    ----------
    seed : int
        The sweep's seed, in ``[0, 2**64)``.
    indices : sequence of int
        Cell indices (>= 0).

    Returns
    -------
    ndarray of uint64, shape (len(indices),)
        The seeds of the cells.
    """
    from ropelab._core_loader import core

    seeds: np.ndarray[Any, Any] = core.sweep.cell_seeds(check_seed(seed), np.asarray(indices, dtype=np.int64))
    return seeds


def fingerprint(
    task: str, grid: Grid, trials: int | None, seed: int, numerics: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    """A digest of everything that determines a sweep's numbers, and the spec it hashes."""
    spec = {"format": 1, "task": task, "axes": grid.spec(), "trials": trials, "seed": seed, **numerics}
    return spec_digest(spec), spec


def spec_digest(spec: dict[str, Any]) -> str:
    """The digest of a sweep's spec: SHA-256 of its JSON with sorted keys (what ``_sweep.json`` records)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()
