"""Import the compiled core with a helpful message when it is missing."""

from __future__ import annotations

try:
    from ropelab import _core as core
except ImportError as exc:  # pragma: no cover - only when the build is missing
    raise ImportError(
        "ropelab's compiled core (ropelab._core) could not be imported. Did you forget to build it? "
        "From a source checkout run `make test` or `pip install .` (the C++ extension is built by "
        f"scikit-build-core). Original error: {exc}"
    ) from exc

__all__ = ["core"]
