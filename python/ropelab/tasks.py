"""Synthetic tasks of the Selective RoPE paper's evaluation: state tracking, MQAR and copying.

Every generator returns NumPy integer arrays and is reproducible from ``seed`` (NumPy's PCG64
seeded with ``(seed, stream)``, so the train and test sets of one seed are independent).

State tracking (the word problems of Merrill et al. 2024, used in §4.2 of the Selective RoPE
paper): a sequence of group elements ``g_1 … g_T``; the label at step ``t`` is the prefix product
``s_t = g_1 · g_2 ⋯ g_t``. Elements are permutations written as tuples of images
(``p[i]`` is where ``i`` goes), and ``a · b`` means "apply ``a``, then ``b``": ``i ↦ b[a[i]]``.
Supported groups: ``"S2"`` (parity), ``"Z<n>"`` (cyclic, ``n ≥ 2``), ``"A3"`` (≅ Z3 as even
permutations of three points) and ``"S3"`` (non-abelian, order 6).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ropelab import _validation
from ropelab._core_loader import core as _core
from ropelab._display import ResultDisplay, document_fields, field_doc
from ropelab._docstrings import shared

__all__ = ["Group", "group", "StateTracking", "state_tracking", "MQAR", "mqar", "Copying", "copying"]

IntArray = npt.NDArray[np.int64]
#: Label value of positions that carry no target (MQAR, copying).
IGNORE = -1


@document_fields
@dataclass(frozen=True, repr=False)
class Group(ResultDisplay):
    """A finite group given by permutations."""

    name: str = field(metadata=field_doc('``"S2"``, ``"Z5"``, ``"A3"``, ``"S3"``, ...'))
    elements: tuple[tuple[int, ...], ...] = field(
        repr=False,
        metadata=field_doc(
            "The elements as permutations (tuples of images); ``elements[identity]`` is the identity.",
            type="tuple of tuple of int",
        ),
    )
    table: IntArray = field(
        repr=False,
        metadata=field_doc(
            "``table[a, b]`` is the index of ``a · b`` (apply ``a``, then ``b``).", type="ndarray, shape (n, n)"
        ),
    )
    identity: int = field(metadata=field_doc("Index of the identity."))
    abelian: bool = field(metadata=field_doc("Whether every two elements commute."))

    @property
    def order(self) -> int:
        """Number of elements."""
        return len(self.elements)


def _compose(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(b[a[i]] for i in range(len(a)))


def _is_even(p: tuple[int, ...]) -> bool:
    inversions = sum(1 for i, j in itertools.combinations(range(len(p)), 2) if p[i] > p[j])
    return inversions % 2 == 0


#: The largest n of ``Z<n>`` that :func:`group` builds (its elements and table hold n² entries).
_MAX_CYCLIC = 1024


def group(name: str) -> Group:
    """The group called ``name``: ``"S2"``, ``"A3"``, ``"S3"`` or ``"Z<n>"`` (n ≥ 2).

    Parameters
    ----------
    name : str
        The group's name.

    Returns
    -------
    Group
        Its elements (as permutations) and multiplication table.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        For an unknown name, or ``Z<n>`` with ``n < 2`` or ``n > 1024`` (the elements are stored
        as ``n`` permutations of ``n`` points: ``n²`` entries).

    Examples
    --------
    >>> g = group("S3")
    >>> g.order, g.abelian
    (6, False)
    >>> int(group("Z5").table[3, 4])      # 3 + 4 mod 5
    2
    """
    if not isinstance(name, str):
        raise TypeError(f"group: name must be a string, got {name!r}")
    m = re.fullmatch(r"Z(\d+)", name)
    if m:
        n = int(m.group(1))
        if not 2 <= n <= _MAX_CYCLIC:
            raise ValueError(
                f"group: Z<n> needs 2 <= n <= {_MAX_CYCLIC} (its elements are stored as n permutations "
                f"of n points), got {name!r}"
            )
        # by index arithmetic: element s is the shift by s, s · t = s + t mod n (O(n²) numpy work)
        shifts = np.arange(n, dtype=np.int64)
        table = (shifts[:, None] + shifts[None, :]) % n
        return Group(name, tuple(map(tuple, table.tolist())), table, 0, True)
    elements: list[tuple[int, ...]]
    if name == "S2":
        elements = [(0, 1), (1, 0)]
    elif name in ("S3", "A3"):
        elements = sorted(itertools.permutations(range(3)))
        if name == "A3":
            elements = [p for p in elements if _is_even(p)]
    else:
        raise ValueError(f"group: name must be 'S2', 'A3', 'S3' or 'Z<n>', got {name!r}")
    index = {p: i for i, p in enumerate(elements)}
    table = np.array([[index[_compose(a, b)] for b in elements] for a in elements], dtype=np.int64)
    identity = index[tuple(range(len(elements[0])))]
    return Group(name, tuple(elements), table, identity, bool(np.array_equal(table, table.T)))


def _rng(func: str, seed: int, stream: int) -> np.random.Generator:
    s = _validation.seed(func, seed)
    st = _validation.integer(func, "stream", stream, 0, 2**32 - 1)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([s, st])))


def _positive(func: str, name: str, value: object, minimum: int = 1, maximum: int = 10**8) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not minimum <= value <= maximum:
        raise ValueError(f"{func}: {name} must be an integer in [{minimum}, {maximum}], got {value!r}")
    return int(value)


def _check_size(func: str, *dims: int) -> None:
    tokens = float(np.prod([float(x) for x in dims]))
    if tokens > _core.limits.max_task_tokens:
        raise ValueError(
            f"{func}: the output would hold {tokens:.3g} tokens (more than {_core.limits.max_task_tokens})"
        )


@document_fields
@dataclass(frozen=True, repr=False)
class StateTracking(ResultDisplay):
    """A state-tracking data set."""

    group: Group = field(metadata=field_doc("The group."))
    tokens: IntArray = field(
        metadata=field_doc("Element indices ``g_t`` (into ``group.elements``).", type="ndarray of int, shape (n, T)")
    )
    labels: IntArray = field(
        metadata=field_doc(
            "Prefix products ``s_t = g_1 ⋯ g_t`` (element indices).", type="ndarray of int, shape (n, T)"
        )
    )
    seed: int = field(metadata=field_doc("The seed the set was drawn from."))


def _prefix_products(g: Group, tokens: IntArray) -> IntArray:
    labels: IntArray = np.empty_like(tokens)
    state: IntArray = np.full(tokens.shape[0], g.identity, dtype=np.int64)
    for t in range(tokens.shape[1]):
        state = g.table[state, tokens[:, t]]
        labels[:, t] = state
    return labels


@shared
def state_tracking(group_name: str, n: int, length: int, *, seed: int = 0, stream: int = 0) -> StateTracking:
    """Random words over a group with their prefix products as labels.

    Parameters
    ----------
    group_name : str
        ``"S2"``, ``"A3"``, ``"S3"`` or ``"Z<n>"`` (see :func:`group`).
    {n}
    length : int
        Tokens per sequence ``T``.
    seed : int
        Seed; the tokens are uniform over the group's elements.
    stream : int
        Independent stream of the same seed (e.g. 0 for training, 1 for test data).

    Returns
    -------
    StateTracking
        Tokens and labels of shape ``(n, length)``.

    Raises
    ------
    ValueError
        For an unknown group, non-positive sizes, a negative seed or more than 2**31 tokens.

    Examples
    --------
    >>> data = state_tracking("S2", n=2, length=5, seed=1)
    >>> bool(np.array_equal(data.labels, np.cumsum(data.tokens, axis=1) % 2))   # parity
    True
    """
    with _validation.renamed("state_tracking", "group", args={"name": "group_name"}):
        g = group(group_name)
    n = _positive("state_tracking", "n", n)
    length = _positive("state_tracking", "length", length)
    stream = _positive("state_tracking", "stream", stream, minimum=0, maximum=2**32 - 1)
    _check_size("state_tracking", n, length)
    tokens = _rng("state_tracking", seed, stream).integers(0, g.order, size=(n, length), dtype=np.int64)
    return StateTracking(g, tokens, _prefix_products(g, tokens), int(seed))


@document_fields
@dataclass(frozen=True, repr=False)
class MQAR(ResultDisplay):
    """A multi-query associative recall data set (Arora et al. 2023, "Zoology")."""

    inputs: IntArray = field(
        metadata=field_doc(
            "``k_1 v_1 k_2 v_2 … k_P v_P`` followed by queries (keys of the context) at random later positions "
            "and the filler token ``0`` elsewhere.",
            type="ndarray of int, shape (n, T)",
        )
    )
    targets: IntArray = field(
        metadata=field_doc(
            "At a query position, the value bound to the queried key; ``-1`` everywhere else.",
            type="ndarray of int, shape (n, T)",
        )
    )
    n_pairs: int = field(
        metadata=field_doc("Key-value pairs per sequence ``P`` (keys do not repeat within a sequence).")
    )
    vocab: int = field(
        metadata=field_doc(
            "Vocabulary size: keys are drawn from ``[1, vocab/2)`` and values from ``[vocab/2, vocab)`` "
            "(``0`` is the filler)."
        )
    )
    seed: int = field(metadata=field_doc("The seed the set was drawn from."))


@shared
def mqar(
    n: int, seq_len: int, n_pairs: int, vocab: int, *, n_queries: int | None = None, seed: int = 0, stream: int = 0
) -> MQAR:
    """Multi-query associative recall: recall the value bound to each queried key.

    Parameters
    ----------
    {n}
    seq_len : int
        Tokens per sequence; at least ``2 n_pairs + n_queries``.
    n_pairs : int
        Key–value pairs in the context.
    vocab : int
        Vocabulary size; keys use ``[1, vocab/2)``, values ``[vocab/2, vocab)``, so ``vocab/2 − 1``
        must be at least ``n_pairs``.
    n_queries : int, optional
        Queries per sequence (distinct keys of the context); default ``n_pairs``.
    {seed_stream}

    Returns
    -------
    MQAR
        Inputs and targets of shape ``(n, seq_len)``.

    Raises
    ------
    ValueError
        For sizes that do not fit (naming the argument).

    Examples
    --------
    >>> d = mqar(1, seq_len=12, n_pairs=3, vocab=20, seed=0)
    >>> ctx = dict(zip(d.inputs[0, 0:6:2], d.inputs[0, 1:6:2]))
    >>> all(ctx[d.inputs[0, t]] == d.targets[0, t] for t in np.flatnonzero(d.targets[0] >= 0))
    True
    """
    f = "mqar"
    n = _positive(f, "n", n)
    n_pairs = _positive(f, "n_pairs", n_pairs)
    vocab = _positive(f, "vocab", vocab, minimum=4)
    n_queries = n_pairs if n_queries is None else _positive(f, "n_queries", n_queries)
    if n_queries > n_pairs:
        raise ValueError(f"{f}: n_queries must be <= n_pairs = {n_pairs}, got {n_queries}")
    if vocab // 2 - 1 < n_pairs:
        raise ValueError(
            f"{f}: vocab must leave n_pairs distinct keys in [1, vocab/2), got vocab={vocab}, n_pairs={n_pairs}"
        )
    seq_len = _positive(f, "seq_len", seq_len)
    if seq_len < 2 * n_pairs + n_queries:
        raise ValueError(f"{f}: seq_len must be >= 2 n_pairs + n_queries = {2 * n_pairs + n_queries}, got {seq_len}")
    _check_size(f, n, seq_len)
    rng = _rng("mqar", seed, stream)
    half = vocab // 2
    inputs = np.zeros((n, seq_len), dtype=np.int64)
    targets = np.full((n, seq_len), IGNORE, dtype=np.int64)
    tail = seq_len - 2 * n_pairs
    for i in range(n):
        keys = rng.choice(np.arange(1, half), size=n_pairs, replace=False)
        values = rng.integers(half, vocab, size=n_pairs)
        inputs[i, 0 : 2 * n_pairs : 2] = keys
        inputs[i, 1 : 2 * n_pairs : 2] = values
        which = rng.choice(n_pairs, size=n_queries, replace=False)
        where = 2 * n_pairs + np.sort(rng.choice(tail, size=n_queries, replace=False))
        inputs[i, where] = keys[which]
        targets[i, where] = values[which]
    return MQAR(inputs, targets, n_pairs, vocab, int(seed))


@document_fields
@dataclass(frozen=True, repr=False)
class Copying(ResultDisplay):
    """A copying data set."""

    inputs: IntArray = field(
        metadata=field_doc(
            "``L`` tokens from ``[2, vocab)``, the separator ``1``, then ``L`` blanks ``0``.",
            type="ndarray of int, shape (n, 2 L + 1)",
        )
    )
    targets: IntArray = field(
        metadata=field_doc(
            "The ``L`` tokens again at the blank positions, ``-1`` elsewhere.",
            type="ndarray of int, shape (n, 2 L + 1)",
        )
    )
    length: int = field(metadata=field_doc("Tokens to copy ``L``."))
    vocab: int = field(metadata=field_doc("Vocabulary size: ``0`` blank, ``1`` separator, ``[2, vocab)`` content."))
    seed: int = field(metadata=field_doc("The seed the set was drawn from."))


@shared
def copying(n: int, length: int, vocab: int, *, seed: int = 0, stream: int = 0) -> Copying:
    """Copy a sequence after a separator.

    Parameters
    ----------
    {n}
    length : int
        Tokens to copy ``L``.
    vocab : int
        Vocabulary size (≥ 3): ``0`` blank, ``1`` separator, ``[2, vocab)`` content.
    {seed_stream}

    Returns
    -------
    Copying
        Inputs and targets of shape ``(n, 2 length + 1)``.

    Raises
    ------
    ValueError
        For non-positive sizes or ``vocab < 3``.

    Examples
    --------
    >>> c = copying(1, length=4, vocab=10, seed=2)
    >>> bool(np.array_equal(c.inputs[0, :4], c.targets[0, 5:]))
    True
    """
    n = _positive("copying", "n", n)
    length = _positive("copying", "length", length)
    vocab = _positive("copying", "vocab", vocab, minimum=3)
    _check_size("copying", n, 2 * length + 1)
    content = _rng("copying", seed, stream).integers(2, vocab, size=(n, length), dtype=np.int64)
    inputs = np.zeros((n, 2 * length + 1), dtype=np.int64)
    inputs[:, :length] = content
    inputs[:, length] = 1
    targets = np.full_like(inputs, IGNORE)
    targets[:, length + 1 :] = content
    return Copying(inputs, targets, length, vocab, int(seed))
