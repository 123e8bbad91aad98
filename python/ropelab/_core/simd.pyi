"""
SIMD path of the Monte-Carlo kernels; benchmarking hook
"""
from __future__ import annotations
import typing
__all__: list[str] = ['available', 'default_threads', 'isa', 'isas', 'primitives', 'run_primitive', 'set_isa']
def available() -> list[str]:
    ...
def default_threads() -> int:
    """
    Threads used when nthreads=None: $ROPELAB_NUM_THREADS if set, else all cores.
    """
def isa() -> str:
    ...
def isas() -> list[str]:
    ...
def primitives() -> list[str]:
    ...
def run_primitive(kind: str, n: typing.SupportsInt, nthreads: int | None) -> float:
    ...
def set_isa(isa: str) -> None:
    ...
