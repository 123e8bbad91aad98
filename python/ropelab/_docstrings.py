"""Shared numpydoc snippets: a parameter (or return) description that recurs is written once, here.

A docstring names a snippet on a line of its own, ``{name}``, indented as the entry would be;
:func:`shared` replaces that line by the snippet, indented the same, when the module is imported.
So ``help()``, Sphinx and the doctests all see the whole text, and a change to a recurring
description is made in one place.

>>> @shared
... def f(nthreads=None):
...     '''Do it.
...
...     Parameters
...     ----------
...     {nthreads}
...     '''
>>> print(f.__doc__.splitlines()[4])
    nthreads : int or None
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

F = TypeVar("F", bound=Callable[..., object])

#: Snippet name -> numpydoc text (the first line unindented, the description indented by 4).
SNIPPETS: dict[str, str] = {
    "nthreads": """nthreads : int or None
    Threads; ``None`` means all cores (or ``$ROPELAB_NUM_THREADS``). The result does not depend on
    it: it is bit-identical for every value.""",
    "seed": """seed : int
    Any integer in ``[0, 2**64)``. Together with the other arguments it fixes every random number:
    the result is the same on every run, machine and thread count.""",
    "trials": """trials : int
    Independent Monte-Carlo repetitions, ≥ 1.""",
    "layout": """layout : {"interleaved", "half"}
    Channel pairing of the rotation: pairs ``(2i, 2i+1)`` (RoFormer, interleaved) or
    ``(i, i + d/2)`` (the half-split layout of GPT-NeoX and Llama).""",
    "bound_cls": """cls : type
    A result class of ``ropelab._core`` or a class derived from one.""",
    "ax": """ax : matplotlib.axes.Axes, optional
    Axes to draw on; a new figure when None.""",
    "figure": """matplotlib.figure.Figure
    The figure holding the axes.""",
    "ax_error": """TypeError
    If ``ax`` is not a matplotlib Axes.""",
    "results": """results : sequence of ClaimResult
    The results of :func:`ropelab.claims.run`.""",
    "seconds": """seconds : float or None
    Wall time of the run, shown in the report; ``None`` leaves it out.""",
    "provenance": """provenance : mapping, optional
    The provenance record shown under the title (default: :func:`claim_provenance` of
    ``results``).""",
    "A": """A : array_like, shape (..., m, n)
    A matrix or a batch of matrices.""",
    "D": """D : int
    Features per estimate.""",
    "N": """N : int
    Length of the impulse response, ≥ 1.""",
    "alpha": """alpha : float
    Decay per sample, ≥ 0.""",
    "angles": """angles : array_like, shape (..., T, d/2), optional
    Selective RoPE angles ``ψ_t``.""",
    "attention_estimator": """estimator : {"trig", "positive", "hyperbolic"}
    Feature map (module docstring).""",
    "causal": """causal : bool
    Query ``i`` sees keys ``j ≤ i`` only (requires ``T == S``).""",
    "d": """d : int
    Head dimension (even).""",
    "eps": """eps : float
    ``ε`` of the l2 normalisation.""",
    "estimator": """estimator : {"trig", "positive"}, default "trig"
    The random-feature estimator.""",
    "estimator_convention": """estimator, convention : str
    See :func:`moments`.""",
    "freqs_bins": """freqs_bins : array_like
    Frequencies in bins of ``2π/N`` (any shape).""",
    "g": """g : Group or str
    The group.""",
    "gates": """gates : array_like, shape (..., T), optional
    Gates ``α_t ∈ [0, 1]``.""",
    "n": """n : int
    Number of sequences.""",
    "omega": """omega : float
    Rotation, rad/sample.""",
    "plot_xi": """xi : float, default 0.5
    Initial cosine ξ = q·k, in (−1, 1).""",
    "q": """q : array_like, shape (..., T, d)
    Queries.""",
    "q_k": """q, k : array_like, shape (..., T, d)
    Queries and keys (the same leading dimensions as ``v``).""",
    "recurrence_layout": """layout : {"interleaved", "half"}
    Which channels form the rotated pairs.""",
    "recurrence_nthreads": """nthreads : int or None
    Threads (``None``: all cores); the result does not depend on it.""",
    "recurrence_nthreads_2": """nthreads : int, optional
    Threads (``None``: all cores), over the batch and over the rows of the state (one per
    value channel: each row evolves independently), so a single sequence uses them too; the
    result is bit-identical for every thread count.""",
    "related_v": """v : array_like, shape (..., T, d_v)
    Values.""",
    "rff_q_k": """q, k : array_like, shape (d,)
    The query and key (finite, same length).""",
    "rff_seed": """seed : int
    Any integer in ``[0, 2**64)``.""",
    "rotary_d": """d : int
    Head dimension (even, ≥ 2).""",
    "rotary_layout": """layout : {"interleaved", "half"}
    Which channels form a pair.""",
    "scale": """scale : float or None
    Logit scale; ``None`` means ``1/√d``.""",
    "seed_stream": """seed, stream : int
    Seed and stream, as in :func:`state_tracking`.""",
    "sigma": """sigma : float
    Temperature σ ≥ 0.""",
    "spectra_N": """N : int
    Window length ≥ 1.""",
    "temp_max": """temp_max : float
    The largest temperature.""",
    "temperature_estimator_convention": """estimator, convention : str
    See :func:`ropelab.rff.moments`.""",
    "tokens": """tokens : array_like of int, shape (n, T)
    Element indices.""",
    "v": """v : array_like, shape (..., T, dv)
    Values.""",
    "x": """x : array_like, shape (N,)
    Real or complex, finite, non-empty.""",
    "xi": """xi : float or array_like
    Cosines ``ξ = q·k`` of unit-norm pairs, in ``[−1, 1]``.""",
}

_MARK = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>[A-Za-z0-9_]+)\}[ \t]*$", flags=re.M)


def expand(doc: str) -> str:
    """``doc`` with every snippet line ``{name}`` replaced by its snippet, indented as the line.

    Raises
    ------
    KeyError
        For a snippet name that :data:`SNIPPETS` does not define.
    """

    def repl(m: re.Match[str]) -> str:
        indent = m.group("indent")
        return "\n".join(indent + line if line else line for line in SNIPPETS[m.group("name")].splitlines())

    return _MARK.sub(repl, doc)


def shared(func: F) -> F:
    """Expand the snippet lines of ``func``'s docstring (a decorator; see the module docstring)."""
    inner = func.__func__ if isinstance(func, (classmethod, staticmethod)) else func
    if inner.__doc__:
        inner.__doc__ = expand(inner.__doc__)
    return func
