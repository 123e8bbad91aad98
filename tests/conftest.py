"""Shared pytest configuration: a report header with the versions and threads in use."""

from __future__ import annotations

import os

import numpy as np


def pytest_report_header(config: object) -> list[str]:
    import ropelab

    lines = [f"ropelab {ropelab.__version__}, numpy {np.__version__}"]
    try:
        import scipy

        lines.append(f"scipy {scipy.__version__}")
    except ImportError:  # pragma: no cover
        pass
    lines.append(f"cores: {os.cpu_count()}, ROPELAB_NUM_THREADS={os.environ.get('ROPELAB_NUM_THREADS', '(unset)')}")
    lines.append(f"SIMD path: {ropelab.simd.isa()} (available: {', '.join(ropelab.simd.available())})")
    return lines
