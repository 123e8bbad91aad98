"""ropelab: number-by-number checks of the mathematics of Selective RoPE and RoPE.

Submodules
----------
rff
    Random-feature estimators of the softmax kernel ``exp(q·k)``: moments, closed-form MSE,
    Monte-Carlo estimates, feature maps.
temperature
    The paper's temperature rule (Theorem 1), its counterexample and the finite-D optimum.
rotary
    Rotations of channel pairs: RoPE, Selective RoPE angles, decay bound, realification.
recurrence
    Linear-attention recurrences (Eq. 3, Eq. 9, gated Selective RoPE, ALiBi, FoX, cosFormer)
    and their direct forms.
transition
    Effective transition matrices, commutators, norms, Householder reflections.
spectra
    Windows, FFT/DTFT spectra of windowed SSMs, closed forms and Harris's figures of merit.
sweep
    Parameter grids over registered tasks (MSE maps, figures of merit), run locally or on a Dask
    cluster, resumable from a Parquet store, bit-identical either way.
tasks
    Synthetic tasks of the paper's evaluation: state tracking (S2, A3, S3, Z_n), MQAR, copying.
expressivity
    Constructions that track (rotations, Householder products) or cannot track (fixed RoPE,
    positive gates) a group word problem.
related
    Softmax-form ALiBi and Forgetting Transformer attention and their decayed linear-kernel
    recurrence.
extrapolation
    RoPE frequency scaling for longer contexts (position interpolation, NTK, YaRN, Llama 3) and
    which channel pairs meet unseen angles.
claims
    The claim registry behind ``ropelab verify``: run the checks, get verdicts with evidence.
report
    Terminal, Markdown, JSON and HTML renderings of claim results.
plot
    matplotlib helpers (needs the ``plot`` extra); they take and return Axes/Figures.
attention
    Exact softmax attention and its random-feature (Performer-style) estimate, with RoPE or
    Selective RoPE angles and per-pair temperatures.
selective
    The released Selective RoPE angle path (normalised input, low-rank projection, short conv,
    bias, phase gate, float32/float64 sums) and its streaming state.
simd
    The SIMD path of the Monte-Carlo kernels (scalar / AVX2 / AVX-512) and the primitives'
    throughput (benchmarks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ropelab import (
    attention,
    expressivity,
    extrapolation,
    recurrence,
    related,
    rff,
    rotary,
    selective,
    simd,
    spectra,
    sweep,
    tasks,
    temperature,
    transition,
)
from ropelab._core_loader import core as _core
from ropelab._public import public_dir

if TYPE_CHECKING:  # imported on first use (``__getattr__`` below); type checkers see the modules
    from ropelab import claims, plot, report

__version__: str = _core.__version__

__all__ = [
    "__version__",
    "rff",
    "temperature",
    "rotary",
    "recurrence",
    "transition",
    "attention",
    "selective",
    "spectra",
    "sweep",
    "simd",
    "tasks",
    "expressivity",
    "related",
    "extrapolation",
    "claims",
    "report",
    "plot",
]

# Imported on first use: plot needs matplotlib (optional); claims/report register and render the
# claims, which plain numerical use does not need at import time.
_LAZY = ("claims", "report", "plot")


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"ropelab.{name}")
    raise AttributeError(f"module 'ropelab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


# Tab completion offers each module's API (its __all__), not the names it imports (np, warnings).
for _module in (
    attention, expressivity, extrapolation, recurrence, related, rff, rotary, selective, simd, spectra, sweep,
    tasks, temperature, transition,
):  # fmt: skip
    _module.__dir__ = public_dir(_module.__name__)  # type: ignore[method-assign]
del _module
