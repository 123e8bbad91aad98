"""ropelab: number-by-number checks of the mathematics of Selective RoPE and RoPE.

Submodules
----------
rff
    Random-feature estimators of the softmax kernel ``exp(q·k)``: moments, closed-form MSE,
    Monte-Carlo estimates, feature maps.
temperature
    The paper's temperature rule (Theorem 1), its counterexample and the finite-D optimum.
spectra
    Windows, FFT/DTFT spectra of windowed SSMs, closed forms and Harris's figures of merit.
"""

from __future__ import annotations

from ropelab._core_loader import core as _core
from ropelab import rff, spectra, temperature

__version__: str = _core.__version__

__all__ = ["__version__", "rff", "spectra", "temperature"]
