"""The recipes of CONTRIBUTING.md ("Adding a window", "Adding a random-feature estimator", "Adding a
claim", "Adding a sweep task", "Adding a binding") name files and symbols that exist.

Every backticked path of a recipe must exist in the checkout, and every backticked code symbol
(``bias_exponent``, ``rff::estimators()``, ``SECTIONS``, ``add_section_tests``) must occur in one of
the files that recipe names, so that a recipe cannot drift from the layout it describes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The recipes describe the source tree; the test of an installed wheel (make test-wheel) runs
# without it, and `make test` runs these.
pytestmark = pytest.mark.skipif(
    not (ROOT / "CONTRIBUTING.md").is_file(), reason="checks the source tree's CONTRIBUTING.md: `make test` runs it"
)
TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8") if (ROOT / "CONTRIBUTING.md").is_file() else ""

#: A recipe: a second-level section whose title starts with "Adding a".
RECIPES = dict(re.findall(r"^## (Adding an? [^\n]+)\n(.*?)(?=^## |\Z)", TEXT, flags=re.M | re.S))

_PATH = re.compile(r"^(?:cpp|python|tests|docs|benchmarks|notebooks|cmake|\.ci)/[\w./<>*-]*$")
_SYMBOL = re.compile(r"^[A-Za-z_][\w]*(?:(?:::|\.)[A-Za-z_]\w*)*(?:\(\))?$")
#: Words in backticks that are not code symbols of a file (commands, values, placeholders).
_NOT_SYMBOLS = {"make", "stubs", "test", "holds-if", "fails", "derived", "prefix.name", "Title", "_core"}
#: Paths a recipe names that a build step generates (git-ignored).
_GENERATED = {"docs/claims.md"}


def _tokens(body: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", body)


def _paths(body: str) -> list[str]:
    return [t for t in _tokens(body) if _PATH.match(t) and "<" not in t and "*" not in t]


def _symbols(body: str) -> list[str]:
    out = []
    for t in _tokens(body):
        if _PATH.match(t) or not _SYMBOL.match(t) or t in _NOT_SYMBOLS or t.startswith("ropelab."):
            continue
        name = re.split(r"::|\.", t.removesuffix("()"))[-1]
        if name in {"py", "cpp", "hpp", "md"}:
            continue
        out.append(name)
    return out


def test_there_are_recipes() -> None:
    assert {"Adding a window", "Adding a random-feature estimator", "Adding a claim", "Adding a sweep task"} <= set(
        RECIPES
    ), sorted(RECIPES)


@pytest.mark.parametrize("title", sorted(RECIPES))
def test_every_path_a_recipe_names_exists(title: str) -> None:
    missing = [p for p in _paths(RECIPES[title]) if not (ROOT / p).exists() and p not in _GENERATED]
    assert not missing, f"{title}: {missing}"


@pytest.mark.parametrize("title", sorted(RECIPES))
def test_every_symbol_a_recipe_names_is_in_its_files(title: str) -> None:
    body = RECIPES[title]
    files = [ROOT / p for p in _paths(body) if (ROOT / p).is_file()]
    texts = "\n".join(f.read_text(encoding="utf-8") for f in files)
    missing = sorted({s for s in _symbols(body) if not re.search(rf"\b{re.escape(s)}\b", texts)})
    assert not missing, f"{title}: symbols named in the recipe but found in none of its files {missing}"
