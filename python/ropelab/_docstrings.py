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
}

_MARK = re.compile(r"^(?P<indent>[ \t]*)\{(?P<name>[a-z_]+)\}[ \t]*$", flags=re.M)


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
    if func.__doc__:
        func.__doc__ = expand(func.__doc__)
    return func
