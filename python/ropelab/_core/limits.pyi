"""
size limits of the core, each defined once
"""
from __future__ import annotations
__all__: list[str] = ['max_draws', 'max_head_dim', 'max_signal_length', 'max_task_tokens', 'physical_bytes']
def physical_bytes() -> float:
    """
    The machine's physical memory in bytes: outputs larger than this are refused.
    """
max_draws: int = 1099511627776
max_head_dim: int = 1099511627776
max_signal_length: int = 2147483647
max_task_tokens: int = 2147483648
