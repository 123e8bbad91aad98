"""
the common base of the result classes
"""
from __future__ import annotations
import builtins
import typing
__all__: list[str] = ['Result']
class Result:
    """
    Base of the result classes bound from the core: value equality, hashing, repr, _asdict and pickling from the class's _fields.
    """
    _field_docs: typing.ClassVar[dict] = {}
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
