"""The package as installed: one version, the licences in the distribution, and, when
``make test-wheel`` runs the suite against a repaired wheel in a fresh virtual environment
(``ROPELAB_WHEEL_TEST=1``), that wheel's own promises: imported from that environment, FFTW and
SLEEF loaded from the bundled copies in ``ropelab.libs``, no glibc symbol newer than 2.31, and
results bit-identical to the source build."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ropelab
from tests.fingerprint import fingerprint

ROOT = Path(__file__).resolve().parent.parent
WHEEL_TEST = os.environ.get("ROPELAB_WHEEL_TEST") == "1"
needs_wheel = pytest.mark.skipif(
    not WHEEL_TEST, reason="checks of an installed repaired wheel: `make test-wheel` runs them (ROPELAB_WHEEL_TEST=1)"
)

# Licence texts that every distribution carries (pyproject's license-files).
LICENSE_FILES = [
    "LICENSE",
    "licenses/README.md",
    "licenses/GPL-2.0.txt",
    "licenses/FFTW.txt",
    "licenses/SLEEF.txt",
    "licenses/Boost.txt",
    "licenses/Eigen.txt",
    "licenses/MPL-2.0.txt",
    "licenses/Random123.txt",
    "licenses/pybind11.txt",
    "licenses/GCC-runtime.txt",
]


# The licence of each library a repaired wheel bundles (ropelab.libs/ on Linux, ropelab/.dylibs/ on
# macOS), by file-name prefix, and of what every binary compiles in from headers: ropelab, Random123
# and pybind11 (BSD-3-Clause), Eigen (MPL-2.0), Boost.Math (BSL-1.0). libstdc++, when the extension
# links it statically (make wheel), adds its licence with the GCC runtime library exception.
SOURCE_LICENCE = "BSD-3-Clause"
BUNDLED_LICENCES = {"libfftw3": "GPL-2.0-or-later", "libsleef": "BSL-1.0"}
COMPILED_IN_LICENCES = ("BSD-3-Clause", "MPL-2.0", "BSL-1.0")
LIBSTDCXX_LICENCE = "GPL-3.0-or-later WITH GCC-exception-3.1"


def _package_dir() -> Path:
    return Path(ropelab.__file__).resolve().parent


def test_version_is_single_sourced() -> None:
    assert ropelab.__version__ == importlib.metadata.version("ropelab")
    pyproject = ROOT / "pyproject.toml"
    if pyproject.is_file():  # the source tree, or the copy next to the tests under make test-wheel
        m = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.MULTILINE)
        assert m is not None
        assert ropelab.__version__ == m.group(1)


def _bundled_libraries(dist: importlib.metadata.Distribution) -> list[Path]:
    """The shared libraries the installed distribution carries (its RECORD), as files on disk."""
    files = [f for f in dist.files or [] if str(f).startswith(("ropelab.libs/", "ropelab/.dylibs/"))]
    paths = [Path(dist.locate_file(f)) for f in files]
    for path in paths:
        assert path.is_file(), f"{path} is in RECORD but not installed"
    return paths


def _links_libstdcxx_statically(dist: importlib.metadata.Distribution) -> bool:
    (core,) = [Path(dist.locate_file(f)) for f in dist.files or [] if re.fullmatch(r"ropelab/_core[^/]*\.so", str(f))]
    if core.read_bytes()[:4] != b"\x7fELF":
        return False  # (macOS: the system's libc++, linked dynamically)
    objdump = shutil.which("objdump")
    assert objdump is not None, "objdump (binutils) is needed to read the extension's NEEDED entries"
    out = subprocess.run([objdump, "-p", str(core)], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"^\s*NEEDED\s+(\S+)", out, re.MULTILINE)
    assert needed, out
    return not any(n.startswith("libstdc++") for n in needed)


def test_licence_expression_states_what_the_distribution_contains() -> None:
    """The source, an sdist and a wheel built from it: ropelab's BSD-3-Clause. A repaired wheel (it
    bundles libraries): the licences of those libraries and of what it compiles in, each once, derived
    here from the files the installed wheel carries."""
    dist = importlib.metadata.distribution("ropelab")
    expression = dist.metadata["License-Expression"]
    libs = _bundled_libraries(dist)
    if WHEEL_TEST:
        assert libs, "the repaired wheel bundles no library"
    if not libs:
        assert expression == SOURCE_LICENCE
        return
    expected = list(COMPILED_IN_LICENCES)
    for lib in libs:
        spdx = [v for k, v in BUNDLED_LICENCES.items() if re.match(rf"{re.escape(k)}[-.]", lib.name)]
        assert len(spdx) == 1, f"{lib.name} is bundled, but its licence is not in BUNDLED_LICENCES"
        expected.append(spdx[0])
    if _links_libstdcxx_statically(dist):
        expected.append(LIBSTDCXX_LICENCE)
    terms = expression.split(" AND ")
    assert len(terms) == len(set(terms)), expression
    assert set(terms) == set(expected), f"{expression!r}: expected the terms {sorted(set(expected))}"
    packaging_licenses = pytest.importorskip("packaging.licenses")
    assert packaging_licenses.canonicalize_license_expression(expression) == expression


def test_licences_are_in_the_distribution() -> None:
    dist = importlib.metadata.distribution("ropelab")
    declared = set(dist.metadata.get_all("License-File") or [])
    assert declared == set(LICENSE_FILES)
    for name in LICENSE_FILES:
        text = dist.read_text(f"licenses/{name}")
        assert text, f"{name} is declared in the metadata but missing from the distribution"
    assert "GNU GENERAL PUBLIC LICENSE" in (dist.read_text("licenses/licenses/GPL-2.0.txt") or "")
    assert "Boost Software License" in (dist.read_text("licenses/licenses/SLEEF.txt") or "")


@needs_wheel
def test_imported_from_the_virtual_environment() -> None:
    prefix = Path(sys.prefix).resolve()
    assert sys.prefix != sys.base_prefix, "not a virtual environment"
    assert _package_dir().is_relative_to(prefix), f"ropelab imported from {_package_dir()}, not from {prefix}"
    for entry in sys.path:
        source = Path(entry or ".").resolve() / "python" / "ropelab"
        assert not source.exists(), f"a source checkout is importable: {source}"


@needs_wheel
def test_wheel_tag_is_manylinux_2_31_or_lower() -> None:
    dist = importlib.metadata.distribution("ropelab")
    tags = [
        line.split(":", 1)[1].strip()
        for line in (dist.read_text("WHEEL") or "").splitlines()
        if line.startswith("Tag:")
    ]
    assert tags
    for tag in tags:
        m = re.search(r"manylinux_(\d+)_(\d+)_x86_64$", tag)
        assert m is not None, tag
        assert (int(m.group(1)), int(m.group(2))) <= (2, 31), tag


@needs_wheel
def test_fftw_and_sleef_load_from_ropelab_libs() -> None:
    (core,) = _package_dir().glob("_core*.so")
    libs = _package_dir().parent / "ropelab.libs"
    assert libs.is_dir(), "the repaired wheel has no ropelab.libs"
    out = subprocess.run(["ldd", str(core)], capture_output=True, text=True, check=True).stdout
    resolved = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if m:
            resolved[m.group(1)] = Path(m.group(2))
    for stem in ("libfftw3", "libsleef"):
        hits = {name: path for name, path in resolved.items() if name.startswith(stem)}
        assert len(hits) == 1, f"{stem}: {hits} in\n{out}"
        ((name, path),) = hits.items()
        assert path.resolve().parent == libs.resolve(), f"{name} resolves to {path}, not into {libs}"
    assert "not found" not in out, out


def _max_version(path: Path, prefix: str) -> tuple[int, ...]:
    objdump = shutil.which("objdump")
    assert objdump is not None, "objdump (binutils) is needed to read the symbol versions"
    out = subprocess.run([objdump, "-T", str(path)], capture_output=True, text=True, check=True).stdout
    found = [tuple(int(p) for p in v.split(".")) for v in re.findall(rf"\b{prefix}_([0-9.]+[0-9])\b", out)]
    return max(found, default=(0,))


@needs_wheel
def test_no_symbol_newer_than_manylinux_2_31() -> None:
    files = sorted(_package_dir().glob("_core*.so")) + sorted((_package_dir().parent / "ropelab.libs").glob("*.so*"))
    assert len(files) >= 3, files
    for path in files:
        # manylinux_2_31: glibc 2.31, and the libstdc++ of GCC 10 (GLIBCXX 3.4.28, CXXABI 1.3.12)
        assert _max_version(path, "GLIBC") <= (2, 31), path.name
        assert _max_version(path, "GLIBCXX") <= (3, 4, 28), path.name
        assert _max_version(path, "CXXABI") <= (1, 3, 12), path.name


@needs_wheel
def test_same_bits_as_the_source_build() -> None:
    reference = os.environ.get("ROPELAB_REFERENCE_FINGERPRINT")
    assert reference, "make test-wheel passes the source build's fingerprint in ROPELAB_REFERENCE_FINGERPRINT"
    expected = json.loads(Path(reference).read_text())
    assert fingerprint() == expected
