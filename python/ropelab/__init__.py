"""ropelab: number-by-number checks of the mathematics of Selective RoPE and RoPE.

Submodules
----------
rff
    Random-feature estimators of the softmax kernel ``exp(q·k)``: moments, closed-form MSE,
    Monte-Carlo estimates, feature maps.
temperature
    The paper's temperature rule (Theorem 1), its counterexample and the finite-D optimum.
rotary
    Rotations of channel pairs: RoPE, Selective RoPE phases, decay bound, realification.
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
simd
    The SIMD path of the Monte-Carlo kernels (scalar / AVX2 / AVX-512) and the primitives'
    throughput (benchmarks).
"""

from __future__ import annotations

from ropelab._core_loader import core as _core
from ropelab import recurrence, rff, rotary, simd, spectra, sweep, temperature, transition

__version__: str = _core.__version__

__all__ = ["__version__", "rff", "temperature", "rotary", "recurrence", "transition", "spectra", "sweep", "simd", "plot"]


def __getattr__(name: str) -> object:
    # ropelab.plot needs matplotlib (an optional dependency): import it on first use only.
    if name == "plot":
        import importlib

        return importlib.import_module("ropelab.plot")
    raise AttributeError(f"module 'ropelab' has no attribute {name!r}")
