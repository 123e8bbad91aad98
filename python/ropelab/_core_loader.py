"""Import the compiled core with a helpful message when it is missing."""

from __future__ import annotations

try:
    from ropelab import _core as core
except ImportError as exc:  # pragma: no cover - only when the build is missing or broken
    if "cannot open shared object file" in str(exc) or "Library not loaded" in str(exc):
        hint = (
            "A shared library it links to is missing. A binary wheel carries FFTW and SLEEF itself "
            "(reinstall it: `pip install --force-reinstall ropelab`); a build from source needs them "
            "installed on the system (Debian/Ubuntu: libfftw3-3 and libsleef3; Fedora/RHEL: fftw-libs-double "
            "and sleef; Homebrew: fftw and sleef)."
        )
    else:
        hint = (
            "Did you forget to build it? From a source checkout run `make test` or `pip install .` (the C++ "
            "extension is built by scikit-build-core)."
        )
    raise ImportError(
        f"ropelab's compiled core (ropelab._core) could not be imported. {hint} Original error: {exc}"
    ) from exc

__all__ = ["core"]
