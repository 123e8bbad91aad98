"""Shared pytest configuration: a report header with the versions and threads in use, and the
hypothesis profile."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import settings

# Property tests draw the same examples on every run, so CI is reproducible and a red run can be
# replayed; no example database is kept. HYPOTHESIS_PROFILE=explore draws new examples each run.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
