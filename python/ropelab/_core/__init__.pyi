"""
ropelab's compiled core (use the typed wrappers in ropelab.* instead)
"""
from __future__ import annotations
import builtins
import typing
from . import rff
from . import temperature
from . import rotary
from . import recurrence
from . import transition
from . import spectra
from . import simd
from . import attention
from . import selective
__all__: list[str] = ['Result', 'attention', 'git_commit', 'recurrence', 'rff', 'rotary', 'selective', 'simd', 'spectra', 'temperature', 'transition']
class Result:
    """
    Base of the result classes bound from the core: value equality, hashing, repr, _asdict and pickling from the class's _fields.
    """
    _field_types: typing.ClassVar[dict] = {}
    _fields: typing.ClassVar[tuple] = tuple()
    def __eq__(self, other: builtins.object) -> bool:
        """
        Same type and every field equal (NaN is unequal to itself, as in a dataclass).
        """
    def __hash__(self) -> int:
        """
        Hash of the fields.
        """
    def __reduce__(self) -> tuple:
        """
        Pickling: the class and the fields in order (rebuilt by the positional constructor).
        """
    def __repr__(self) -> str:
        """
        The fields, by name.
        """
    def _asdict(self) -> dict:
        """
        The fields by name, in order (as a namedtuple's _asdict).
        """
def git_commit() -> str:
    """
    The git commit this build was made from (with '+dirty' for uncommitted changes); empty if none.
    """
__version__: str = '0.1.0'
