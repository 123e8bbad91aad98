"""
ropelab's compiled core (use the typed wrappers in ropelab.* instead)
"""
from __future__ import annotations
from . import rff
from . import temperature
from . import rotary
from . import recurrence
from . import transition
from . import spectra
from . import simd
__all__: list[str] = ['recurrence', 'rff', 'rotary', 'simd', 'spectra', 'temperature', 'transition']
__git_commit__: str = '4f5bb9d6f3c40c603976635db88623287e6d8bca+dirty'
__version__: str = '0.1.0'
