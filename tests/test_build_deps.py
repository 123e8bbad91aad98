"""A user without the system dependencies gets ONE message, at configure time (before anything is
compiled), listing every missing dependency with its package on Debian/Ubuntu, Fedora/RHEL,
Homebrew and conda-forge (cmake/RopelabDependencies.cmake), whatever is missing, pkg-config
included: FFTW3 and SLEEF are also looked up by header and library, so a missing pkg-config never
hides them.

Each test configures the source tree's CMake project in a scratch directory with dependencies
hidden through CMake's and pkg-config's own switches: ``CMAKE_DISABLE_FIND_PACKAGE_<Name>`` (Eigen,
Boost, pkg-config), a ``PKG_CONFIG_LIBDIR`` holding only the other ``.pc`` files together with an
include directory without the header (FFTW3, SLEEF: ``ROPELAB_FFTW3_INCLUDE_DIR``,
``ROPELAB_SLEEF_INCLUDE_DIR``), and the same for ``RANDOM123_INCLUDE_DIR`` and Boost's plain-headers
fallback ``ROPELAB_BOOST_INCLUDE_DIR``. Configure only: a few seconds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not (ROOT / "CMakeLists.txt").is_file(),
    reason="configures the source tree's CMake project; an installed wheel's tests have no source tree",
)

# id: (what the message calls it, apt, dnf, brew, conda-forge); "!..." = no package, the entry gives
# the command that unpacks the headers into that package manager's prefix. In the order of the message.
R123 = (
    "curl -fsSL https://github.com/DEShawResearch/random123/archive/refs/tags/v1.14.0.tar.gz"
    " | tar -xzf - --strip-components=2 -C {prefix} random123-1.14.0/include/Random123"
)
PACKAGES = {
    "eigen": ("Eigen >= 3.3", "libeigen3-dev", "eigen3-devel", "eigen", "eigen"),
    "boost": ("Boost >= 1.71 with the Boost.Math headers", "libboost-dev", "boost-devel", "boost", "libboost-headers"),
    "pkgconfig": ("pkg-config", "pkg-config", "pkgconf-pkg-config", "pkgconf", "pkg-config"),
    "fftw": ("FFTW3", "libfftw3-dev", "fftw-devel", "fftw", "fftw"),
    "sleef": ("SLEEF", "libsleef-dev", "sleef-devel", "sleef", "sleef"),
    "random123": (
        "Random123",
        "librandom123-dev",
        "Random123-devel",
        "!" + R123.format(prefix='"$(brew --prefix)/include"'),
        "!" + R123.format(prefix='"$CONDA_PREFIX/include"'),
    ),
}
LABELS = ("Debian/Ubuntu (apt):", "Fedora/RHEL (dnf):", "Homebrew (brew):", "conda-forge (conda):")


def _cmake() -> list[str]:
    here = Path(sys.executable).parent
    cmake = here / "cmake" if (here / "cmake").is_file() else shutil.which("cmake")
    assert cmake is not None, "cmake is needed (make install puts it into .venv)"
    args = [str(cmake)]
    ninja = here / "ninja" if (here / "ninja").is_file() else shutil.which("ninja")
    if ninja is not None:
        args += ["-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"]
    return args


def _pc_dir(tmp_path: Path, keep: list[str]) -> Path:
    """A pkg-config directory with only the ``.pc`` files of the modules in ``keep``."""
    out = tmp_path / "pkgconfig"
    out.mkdir()
    for module in keep:
        pcdir = subprocess.run(
            ["pkg-config", "--variable=pcfiledir", module], capture_output=True, text=True, check=True
        ).stdout.strip()
        shutil.copy(Path(pcdir) / f"{module}.pc", out / f"{module}.pc")
    return out


def _configure(tmp_path: Path, args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    build = tmp_path / "build"
    full_env = dict(os.environ)
    full_env.pop("PKG_CONFIG_PATH", None)
    full_env.pop("LD_PRELOAD", None)  # (make test-sanitize preloads ASan into Python, not into CMake)
    full_env.update(env or {})
    r = subprocess.run(
        [*_cmake(), "-S", str(ROOT), "-B", str(build), "-DROPELAB_PYTHON=OFF", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=full_env,
    )
    assert not list(build.rglob("*.o")), "something was compiled"
    return r


def _hide(tmp_path: Path, ids: set[str]) -> tuple[list[str], dict[str, str]]:
    args: list[str] = []
    env: dict[str, str] = {}
    if "eigen" in ids:
        args.append("-DCMAKE_DISABLE_FIND_PACKAGE_Eigen3=ON")
    if "boost" in ids:  # neither Boost's CMake config nor plain headers
        empty = tmp_path / "no-boost"
        empty.mkdir()
        args += ["-DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON", f"-DROPELAB_BOOST_INCLUDE_DIR={empty}"]
    if "pkgconfig" in ids:
        args.append("-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON")
    if ids & {"fftw", "sleef"}:
        # neither pkg-config's .pc file nor the header (looked for without pkg-config too)
        pcs = (("fftw3", "fftw", "FFTW3"), ("sleef", "sleef", "SLEEF"))
        env["PKG_CONFIG_LIBDIR"] = str(_pc_dir(tmp_path, [m for m, i, _ in pcs if i not in ids]))
        for _, dep_id, var in pcs:
            if dep_id in ids:
                empty = tmp_path / f"no-{dep_id}"
                empty.mkdir()
                args.append(f"-DROPELAB_{var}_INCLUDE_DIR={empty}")
    if "random123" in ids:
        empty = tmp_path / "no-random123"
        empty.mkdir()
        args.append(f"-DRANDOM123_INCLUDE_DIR={empty}")
    return args, env


def _entry(err: str, name: str) -> str | None:
    """The entry of ``name`` in the message (its lines up to the next blank line), or None."""
    block = re.split(rf"\n +{re.escape(name)}\b", err, maxsplit=1)
    if len(block) != 2:
        return None
    return re.split(r"\n +\n", block[1], maxsplit=1)[0]


def _check_message(r: subprocess.CompletedProcess[str], missing: set[str]) -> None:
    assert r.returncode != 0
    err = r.stderr
    # one message, from the dependency check, and no raw error of a single find_package before it
    assert err.count("CMake Error") == 1, err
    assert "RopelabDependencies.cmake" in err, err
    n = len(missing)
    assert f"{n} dependenc{'y is' if n == 1 else 'ies are'} missing (nothing has been compiled)" in err, err
    for dep_id, (name, *pkgs) in PACKAGES.items():
        entry = _entry(err, name)
        if dep_id not in missing:
            assert entry is None, f"{name} is installed but listed:\n{err}"
            continue
        assert entry is not None, f"{name} not listed:\n{err}"
        for label, pkg in zip(LABELS, pkgs):
            if pkg.startswith("!"):  # no package: the command that installs the headers, on the next line
                expected = rf"{re.escape(label)} +no package; [^\n]*\n +{re.escape(pkg[1:])}\n"
            else:
                expected = rf"{re.escape(label)} +{re.escape(pkg)}\n"
            assert re.search(expected, entry + "\n"), f"{label} {pkg} not in the entry of {name}:\n{entry}"
    # the all-at-once lines: every package of the missing ones, in order, and nothing else
    for i, (label, command) in enumerate(
        (
            ("Debian/Ubuntu:", "sudo apt-get install"),
            ("Fedora/RHEL:", "sudo dnf install"),
            ("Homebrew:", "brew install"),
            ("conda-forge:", "conda install -c conda-forge"),
        ),
        start=1,
    ):
        pkgs = [p[i] for d, p in PACKAGES.items() if d in missing and not p[i].startswith("!")]
        cmds = [p[i][1:] for d, p in PACKAGES.items() if d in missing and p[i].startswith("!")]
        line = " && ".join(([f"{command} {' '.join(pkgs)}"] if pkgs else []) + cmds)
        assert re.search(rf"\n +{re.escape(label)} +{re.escape(line)}\n", err), f"{label} {line}\n{err}"


def test_nothing_missing_configures(tmp_path: Path) -> None:
    r = _configure(tmp_path, [])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dependencies are missing" not in r.stderr and "dependency is missing" not in r.stderr


@pytest.mark.parametrize("dep", sorted(PACKAGES))
def test_one_missing_dependency_is_named_with_its_packages(tmp_path: Path, dep: str) -> None:
    args, env = _hide(tmp_path, {dep})
    _check_message(_configure(tmp_path, args, env), {dep})


def test_random123_note_tells_where_to_get_the_headers(tmp_path: Path) -> None:
    args, env = _hide(tmp_path, {"random123"})
    err = _configure(tmp_path, args, env).stderr
    assert "has no Random123/philox.h" in err and "-DRANDOM123_INCLUDE_DIR=<dir>" in err, err


def test_random123_from_the_environment_variable(tmp_path: Path) -> None:
    # RANDOM123_INCLUDE_DIR in the environment (as pip passes it through) points to the headers
    headers = tmp_path / "r123"
    (headers / "Random123").mkdir(parents=True)
    (headers / "Random123" / "philox.h").write_text("/* stand-in */\n")
    r = _configure(tmp_path, [], {"RANDOM123_INCLUDE_DIR": str(headers)})
    assert r.returncode == 0, r.stdout + r.stderr
    cache = (tmp_path / "build" / "CMakeCache.txt").read_text()
    assert f"RANDOM123_INCLUDE_DIR:PATH={headers}" in cache


def test_boost_from_plain_headers_configures(tmp_path: Path) -> None:
    # Without Boost's CMake config, a Boost release's headers are enough (the manylinux release build)
    r = _configure(tmp_path, ["-DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_nothing_installed_lists_all_six_in_one_message(tmp_path: Path) -> None:
    missing = set(PACKAGES)
    args, env = _hide(tmp_path, missing)
    _check_message(_configure(tmp_path, args, env), missing)


def test_every_missing_library_in_one_message(tmp_path: Path) -> None:
    missing = set(PACKAGES) - {"pkgconfig"}
    args, env = _hide(tmp_path, missing)
    _check_message(_configure(tmp_path, args, env), missing)


@pytest.mark.parametrize("dep", sorted(set(PACKAGES) - {"pkgconfig"}))
def test_without_pkg_config_a_missing_dependency_is_still_reported(tmp_path: Path, dep: str) -> None:
    # (FFTW3 and SLEEF in particular: looked up by header and library when pkg-config is missing)
    missing = {"pkgconfig", dep}
    args, env = _hide(tmp_path, missing)
    _check_message(_configure(tmp_path, args, env), missing)


def test_without_pkg_config_the_others_are_still_reported(tmp_path: Path) -> None:
    missing = {"eigen", "boost", "pkgconfig", "random123"}
    args, env = _hide(tmp_path, missing)
    _check_message(_configure(tmp_path, args, env), missing)


def test_library_installed_but_unseen_by_pkg_config_says_so(tmp_path: Path) -> None:
    # FFTW3's header and library are there, its .pc file is not on pkg-config's path
    env = {"PKG_CONFIG_LIBDIR": str(_pc_dir(tmp_path, ["sleef"]))}
    r = _configure(tmp_path, [], env)
    _check_message(r, {"fftw"})
    assert "pkg-config finds no fftw3.pc: add the folder that holds it to PKG_CONFIG_PATH" in r.stderr, r.stderr
