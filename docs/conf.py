"""Sphinx configuration: MyST Markdown pages, numpydoc-style API pages from the docstrings, and a
claims table generated from the registry at build time."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ropelab  # noqa: E402  (the installed package, with its compiled core)

project = "ropelab"
author = "the ropelab developers"
copyright = "2026, the ropelab developers"
release = version = ropelab.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["dollarmath", "colon_fence"]
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # dataclass fields are documented once, by autodoc
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
exclude_patterns = ["_build"]
html_theme = "alabaster"
# "shape (N,)" in numpydoc types makes napoleon look up "N", which several dataclasses define.
suppress_warnings = ["myst.header", "ref.python"]
nitpicky = False


def _write_claims_table(app: object) -> None:
    from generate_claims import write_claims_page

    write_claims_page(HERE / "claims.md")


def setup(app: object) -> None:
    app.connect("builder-inited", _write_claims_table)  # type: ignore[attr-defined]
