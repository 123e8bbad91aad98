"""Every Python code block of README.md and of the documentation's pages runs as written.

The blocks of one file run in order in one fresh interpreter (a later block uses the names of an
earlier one, as a reader would), in a temporary directory, with matplotlib's Agg backend. A block
whose first line is ``%%writefile NAME`` (an IPython cell magic the executed pages use) writes
that file instead. The executed pages (myst-nb ``{code-cell}`` blocks) also run when the
documentation is built; this test runs them without Sphinx, and README.md's blocks too.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    not (ROOT / "docs" / "conf.py").is_file(),
    reason="runs the source tree's README and documentation: `make test` runs it",
)

_BLOCK = re.compile(r"^```(?:python|py|\{code-cell\}(?: ipython3)?)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def _files() -> list[Path]:
    if not (ROOT / "docs").is_dir():
        return []
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [f for f in files if "_build" not in f.parts and "_generated" not in f.parts and _blocks(f)]


def _blocks(path: Path) -> list[str]:
    out = []
    for m in _BLOCK.finditer(path.read_text(encoding="utf-8")):
        # myst-nb cell options (":tags: [...]" lines, then a blank line) are not code
        lines = m.group(1).splitlines()
        while lines and lines[0].startswith(":"):
            lines.pop(0)
        out.append("\n".join(lines).strip("\n") + "\n")
    return out


def _program(blocks: list[str]) -> str:
    parts = ["import matplotlib", "matplotlib.use('Agg')"]
    for block in blocks:
        first, _, rest = block.partition("\n")
        if first.startswith("%%writefile "):
            name = first.split(None, 1)[1].strip()
            parts.append(f"open({name!r}, 'w', encoding='utf-8').write({rest!r})")
        else:
            parts.append(block)
    return "\n".join(parts)


def test_the_files_have_code() -> None:
    names = {f.relative_to(ROOT).as_posix() for f in _files()}
    assert {"README.md", "docs/quickstart.md", "docs/index.md", "docs/plugins.md"} <= names, names


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_code_blocks_run(path: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    out = subprocess.run(
        [sys.executable, "-c", _program(_blocks(path))],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert out.returncode == 0, f"{path.name}: the code blocks fail as written:\n{out.stderr[-3000:]}"
