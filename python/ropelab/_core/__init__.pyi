"""
ropelab's compiled core (use the typed wrappers in ropelab.* instead)
"""
from __future__ import annotations
from . import result
from . import limits
from . import rff
from . import temperature
from . import rotary
from . import recurrence
from . import transition
from . import spectra
from . import simd
from . import attention
from . import selective
from . import extrapolation
from . import sweep
__all__: list[str] = ['attention', 'estimators', 'extrapolation', 'git_commit', 'limits', 'recurrence', 'result', 'rff', 'rotary', 'selective', 'simd', 'spectra', 'sweep', 'temperature', 'transition']
def estimators() -> list[str]:
    """
    Every random-feature estimator name, in enum order (rff.estimators() and attention.estimators() are subsets).
    """
def git_commit() -> str:
    """
    The git commit this build was made from (with '+dirty' for uncommitted changes); empty if none.
    """
__version__: str = '0.1.0'
