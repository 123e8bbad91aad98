"""What every ``ropelab`` subcommand shares: option checks made before any computation, the help
formatter, and the JSON writer that records provenance.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

__all__ = ["UsageError", "Formatter", "check_output_file", "check_output_dir", "FIGURE_SUFFIXES", "dumps"]

#: Figure formats the commands write (matplotlib's ``savefig`` picks the format from the suffix).
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


class UsageError(ValueError):
    """A bad option value found before any computation (exit status 2, one line naming the option)."""


class Formatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` after an option's help, except for defaults that mean "not given"."""

    def _get_help_string(self, action: argparse.Action) -> str:
        if action.default is None or action.default is False or action.default == []:
            return action.help or ""
        return super()._get_help_string(action) or ""


def _stat_or_absent(option: str, path: Path) -> bool:
    """Whether ``path`` exists; a UsageError naming ``option`` when it cannot be examined (a symbolic
    link loop or a dangling link, a component that is not a folder, no permission, a name too long).
    """
    try:
        path.stat()
    except (FileNotFoundError, NotADirectoryError):  # (a file above it: _writable_parent names it)
        if path.is_symlink():
            raise UsageError(f"{option} {path}: is a dangling symbolic link") from None
        return False
    except OSError as exc:
        raise UsageError(f"{option} {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL byte
        raise UsageError(f"{option} {path!s:.200}: not a valid path ({exc})") from None
    return True


def _writable_parent(option: str, path: Path) -> None:
    """The folder ``path`` goes in must exist (nothing is created silently) and be writable."""
    parent = path.parent
    if not parent.exists():
        raise UsageError(f"{option} {path}: the directory {parent} does not exist; create it first")
    if not parent.is_dir():
        raise UsageError(f"{option} {path}: {parent} is not a directory")
    try:  # the one reliable test (access() says yes to root even on read-only or virtual file systems)
        with tempfile.TemporaryFile(dir=parent):
            pass
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot write in {parent} ({exc.strerror or exc})") from None


def check_output_file(option: str, path: Path, suffixes: Collection[str] | None = None) -> Path:
    """Check that ``path`` can be written as a file of one of ``suffixes``, before computing.

    Raises
    ------
    UsageError
        Naming ``option`` and the reason: a suffix not in ``suffixes``, a directory in the way, a
        parent folder that does not exist (none is created), is a file or is not writable.

    Examples
    --------
    >>> check_output_file("--json", Path("/proc/version/x.json"), {".json"})
    Traceback (most recent call last):
    ...
    ropelab._cli_common.UsageError: --json /proc/version/x.json: /proc/version is not a directory
    """
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise UsageError(
            f"{option} {path}: unsupported file type {path.suffix or '(none)'!r}; use {', '.join(sorted(suffixes))}"
        )
    if not _stat_or_absent(option, path):
        _writable_parent(option, path)
        return path
    if path.is_dir():
        raise UsageError(f"{option} {path}: is a directory")
    if path.exists():
        try:
            with path.open("ab"):
                pass
        except OSError as exc:
            raise UsageError(f"{option} {path}: not writable ({exc.strerror or exc})") from None
        return path
    _writable_parent(option, path)
    return path


def check_output_dir(option: str, path: Path) -> Path:
    """Check that ``path`` is a writable directory, or can be created as one in an existing folder.

    Raises
    ------
    UsageError
        Naming ``option``: a file in the way, a parent folder that does not exist (only ``path``
        itself is created, not the folders above it) or is not writable.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_output_dir("--figures", Path(d) / "figures").name
    'figures'
    >>> check_output_dir("--figures", Path("/nonexistent/figures"))
    Traceback (most recent call last):
    ...
    ropelab._cli_common.UsageError: --figures /nonexistent/figures: the directory /nonexistent does not exist; create it first
    """
    if _stat_or_absent(option, path) and not path.is_dir():
        raise UsageError(f"{option} {path}: exists and is not a directory")
    if path.is_dir():
        try:
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as exc:
            raise UsageError(f"{option} {path}: cannot write in it ({exc.strerror or exc})") from None
        return path
    _writable_parent(option, path)
    return path


def dumps(payload: dict[str, Any], *, seeds: Collection[int] = (), nthreads: int | None = None) -> str:
    """``payload`` as indented JSON, led by its provenance record.

    Examples
    --------
    >>> import json
    >>> sorted(json.loads(dumps({"x": 1}, seeds=[2])))
    ['provenance', 'x']
    """
    from ropelab._provenance import provenance

    return json.dumps({"provenance": provenance(seeds=seeds, nthreads=nthreads)} | payload, indent=2)
