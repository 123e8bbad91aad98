"""The documentation files that stand beside the code: CITATION.cff, CHANGELOG.md, the docs' sources.

* CITATION.cff carries the fields CFF 1.2.0 requires, the package's version and license, and
  references to the two papers ropelab checks (``cffconvert --validate`` accepts it);
* CHANGELOG.md has an Unreleased section and a section for the current version;
* no text in the package or the documentation refers the reader to a document outside the
  repository: papers are cited by equation, theorem, section or table.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import ropelab

ROOT = Path(__file__).resolve().parents[1]
# These check the repository's own files (docs/, CHANGELOG.md, CITATION.cff, python/); the test of
# an installed wheel (make test-wheel) runs without the source tree, and `make test` runs them.
pytestmark = pytest.mark.skipif(
    not (ROOT / "docs" / "conf.py").is_file(),
    reason="checks the source tree's documentation files: `make test` runs them",
)


def _pyproject_version() -> str:
    m = re.search(r'^version = "([^"]+)"$', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert m, "no version in pyproject.toml"
    return m.group(1)


def test_citation_cff() -> None:
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    for key in ("cff-version", "message", "title", "authors", "version", "license", "references"):
        assert key in cff, key
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == _pyproject_version() == ropelab.__version__
    assert cff["authors"] == [{"name": "the ropelab developers"}]
    assert cff["license"] == "BSD-3-Clause"
    ids = {i["value"] for r in cff["references"] for i in r.get("identifiers", [])}
    assert {"arXiv:2511.17388v3", "arXiv:2104.09864"} <= ids
    for ref in cff["references"]:
        assert ref["type"] and ref["title"] and ref["authors"]


def test_changelog() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(r"^## \[Unreleased\]$", text, re.M)
    version = re.escape(ropelab.__version__)
    assert re.search(rf"^## \[{version}\] - \d{{4}}-\d{{2}}-\d{{2}}$", text, re.M), "no section for the current version"


#: How the project's internal notes used to be cited; none of them ships with the package.
OUTSIDE = re.compile(r"\b(MATH|CLAIMS|ARCHITECTURE|STYLE)\.md|\b00[01] §|(?i:seed 00\d|study note)")


def _texts() -> list[Path]:
    files = [p for p in (ROOT / "python").rglob("*") if p.suffix in (".py", ".pyi", ".md", ".txt")]
    for p in (ROOT / "docs").rglob("*"):
        rel = p.relative_to(ROOT / "docs").parts
        if rel[0] in ("_build", "notebooks") or not p.is_file():  # notebooks/: checked with the notebooks
            continue
        if p.suffix in (".py", ".md", ".rst", ".txt"):
            files.append(p)
    return files + [ROOT / "README.md", ROOT / "CHANGELOG.md"]


def test_no_reference_to_files_outside_the_repository() -> None:
    files = _texts()
    assert len(files) > 30
    hits = []
    for p in files:
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                hits.append(f"{p.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not hits, "\n".join(hits)


def test_claim_sources_cite_a_paper() -> None:
    from ropelab import claims

    for c in claims.REGISTRY.values():
        assert c.source == "derived" or re.match(r"(Selective RoPE|RoFormer|Performer|Harris) ", c.source), (
            c.id,
            c.source,
        )


def test_every_public_module_has_an_api_page() -> None:
    import importlib
    import pkgutil
    import sys

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from generate_api import MODULES
    finally:
        sys.path.remove(str(ROOT / "docs"))
    public = set()
    for info in pkgutil.walk_packages(ropelab.__path__, "ropelab."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        # a module without __all__ only registers claim checks (ropelab.claims.<topic>); the
        # checks are reached through ropelab.claims.run and listed on the claims page
        if hasattr(importlib.import_module(info.name), "__all__"):
            public.add(info.name)
    assert public == set(MODULES)


def test_claims_page_has_one_heading_per_section_in_report_order(tmp_path: Path) -> None:
    import sys

    from ropelab import claims

    sys.path.insert(0, str(ROOT / "docs"))
    try:
        from generate_claims import write_claims_page
    finally:
        sys.path.remove(str(ROOT / "docs"))
    page = tmp_path / "claims.md"
    write_claims_page(page)
    text = page.read_text(encoding="utf-8")
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert headings == list(claims.SECTIONS.values())
    builtin = [cid for cid, c in claims.REGISTRY.items() if c.plugin is None]
    assert re.findall(r"^\| `([^`]+)` \|", text, flags=re.M) == builtin
