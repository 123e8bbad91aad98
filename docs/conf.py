"""Sphinx configuration.

* MyST Markdown pages and the notebooks of ``notebooks/`` (linked from ``docs/notebooks/``), executed
  by myst-nb with a jupyter-cache under ``docs/_build/.jupyter_cache`` (a notebook runs again only
  when its code changes);
* numpydoc-style API pages, one per public module, generated from ``__all__`` at build time
  (``generate_api.py``), with the type aliases of :mod:`ropelab._types` shown by name;
* the claims table generated from the registry at build time (``generate_claims.py``);
* the gallery of figures (``generate_gallery.py``): every ``ropelab.plot`` function drawn by its
  docstring example, and every figure of the executed notebooks, each linked to its code;
* pydata-sphinx-theme (light and dark) with sphinx-design cards; both ship their CSS, scripts and
  icon fonts, and no page loads anything from another host;
* maths typeset by MathJax 2 from Debian's ``libjs-mathjax``, copied into ``_static/mathjax`` and
  loaded on every page (navigation entries carry maths too): the built pages load nothing from
  the network.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy.typing as npt  # noqa: E402
from sphinx.util.typing import stringify_annotation  # noqa: E402

import ropelab  # noqa: E402  (the installed package, with its compiled core)

project = "ropelab"
author = "the ropelab developers"
copyright = "2026, the ropelab developers"
release = version = ropelab.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx_design",
]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
myst_update_mathjax = False  # MathJax 2 (Debian) is configured below
exclude_patterns = ["_build", "_generated", "**.ipynb_checkpoints"]
html_theme = "pydata_sphinx_theme"
html_title = f"ropelab {release}"
html_static_path = ["_static"]
html_css_files = ["ropelab.css"]
html_theme_options = {
    "logo": {"text": "ropelab"},
    "navbar_align": "left",
    "header_links_before_dropdown": 7,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "pygments_light_style": "default",
    "pygments_dark_style": "monokai",
}
html_sidebars = {"index": [], "gallery": [], "quickstart": []}
html_show_sourcelink = False
autosummary_generate = False  # the API pages are written by generate_api.py

# --- API pages -------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "undoc-members": False}
# Types are written in the numpydoc Parameters/Returns sections; the signature shows the
# annotations, with the aliases of ropelab._types by name instead of their expanded unions.
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_type_aliases = {
    name: f"ropelab._types.{name}" for name in ("ArrayLike", "FloatArray", "ComplexArray", "Layout")
}
# Every function and class has its own heading (module-qualified), so object entries in the
# table of contents would only repeat them.
toc_object_entries = False
numpydoc_show_class_members = False  # autodoc lists the methods
numpydoc_xref_param_type = False  # "shape (n, d)" in a type field is prose, not a reference
numpydoc_attributes_as_param_list = True
# Every reference must resolve. Objects of other libraries cannot (intersphinx would need the
# network at build time); they are listed here by package, nothing of ropelab's own is.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:(class|data|obj)", r"(numpy|np|npt|pandas|pd|matplotlib|xarray|xr)(\..+)?"),
    (r"py:class", r"(collections\.abc|os|pathlib|argparse)\.\w+"),
    # matplotlib classes in ropelab.plot's annotations (imported there for type checking only)
    (r"py:class", r"Axes|Figure"),
]

# --- notebooks -------------------------------------------------------------------------------
nb_execution_mode = "cache"
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
nb_execution_raise_on_error = True  # a notebook that fails breaks the build
nb_execution_show_tb = True
nb_merge_streams = True
# pages and notebooks run in a temporary directory: the plugins page writes a module there
nb_execution_in_temp = True
nb_execution_excludepatterns: list[str] = []
# No ipywidgets JavaScript from a CDN: the documentation works offline. A live widget needs a
# kernel anyway; notebook 01 follows its explorer with a static snapshot that the docs show.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}

# --- maths without network -------------------------------------------------------------------
MATHJAX_SRC = Path(os.environ.get("ROPELAB_MATHJAX_DIR", "/usr/share/javascript/mathjax"))
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"  # relative to _static
mathjax2_config = {
    # only the maths Sphinx marks (span/div.math, in the text and in navigation entries) and
    # notebook outputs are typeset; text elsewhere is left alone whatever it contains
    "tex2jax": {"processClass": "math|output_area|cell_output", "ignoreClass": "bd-page-width|bd-header|bd-footer"},
    "CommonHTML": {"linebreaks": {"automatic": True}},
    "showMathMenu": False,
    "messageStyle": "none",
}


_EXPANDED_ARRAYLIKE = [stringify_annotation(npt.ArrayLike, mode) for mode in ("smart", "fully-qualified-except-typing")]
_ALIAS_REF = re.compile(r"TypeAliasForwardRef\('([\w.]+)'\)")
_ALIAS_NAME = re.compile(r"(?<![\w.~])(ropelab\._types\.\w+)")


def _short_aliases(
    app: object,
    what: str,
    name: str,
    obj: object,
    options: object,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str | None, str | None]:
    """Show the aliases of ropelab._types by their short name (``~`` prefix) in signatures.

    Inside a union (``ArrayLike | None``) autodoc renders an alias as the repr of its internal
    ``TypeAliasForwardRef``; both forms become ``~ropelab._types.Name``, which the Python domain
    links to the alias and displays as ``Name``.
    """

    def fix(s: str | None) -> str | None:
        if s is None:
            return None
        for expanded in _EXPANDED_ARRAYLIKE:  # numpy.typing.ArrayLike written without the alias
            s = s.replace(expanded, "~ropelab._types.ArrayLike")
        return _ALIAS_NAME.sub(r"~\1", _ALIAS_REF.sub(r"\1", s))

    return fix(signature), fix(return_annotation)


def _copy_mathjax(app: object, exception: Exception | None) -> None:
    """Copy the parts of Debian's MathJax 2 that TeX-AMS_CHTML uses into ``_static/mathjax``."""
    if exception is not None or getattr(app, "builder").format != "html":  # noqa: B009
        return
    if not (MATHJAX_SRC / "MathJax.js").is_file():
        raise RuntimeError(
            f"MathJax not found in {MATHJAX_SRC}: install Debian's libjs-mathjax "
            "(or set ROPELAB_MATHJAX_DIR to a MathJax 2 directory)"
        )
    dest = Path(getattr(app, "outdir")) / "_static" / "mathjax"  # noqa: B009
    skip = {
        "test",
        "unpacked",
        "SVG",
        "HTML-CSS",
        "NativeMML",
        "PreviewHTML",
        "PlainSource",
        "STIX-Web",
        "Asana-Math",
        "Gyre-Pagella",
        "Gyre-Termes",
        "Latin-Modern",
        "Neo-Euler",
        "eot",
        "otf",
        "svg",
    }

    def ignore(directory: str, names: list[str]) -> list[str]:
        d = Path(directory)
        out = [n for n in names if n in skip or n.endswith("-full.js")]
        if d.name == "localization":
            out += [n for n in names if n != "en"]
        if d.name == "config":
            out += [n for n in names if n.endswith(".js") and n not in ("TeX-AMS_CHTML.js", "default.js")]
        if d.name == "output" and d.parent.name == "jax":
            out = [n for n in names if n != "CommonHTML"]
        if d.name == "HTML-CSS" and d.parent.name == "fonts":
            out = [n for n in names if n != "TeX"]
        return out

    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(MATHJAX_SRC, dest, ignore=ignore)


def _generate_pages(app: object) -> None:
    from generate_api import write_api_pages
    from generate_claims import write_claims_page

    write_claims_page(HERE / "claims.md")
    write_api_pages(HERE / "api")


def _gallery_last(app: object, env: object, docnames: list[str]) -> None:
    """Read the gallery after the notebooks: it takes their figures from the jupyter-cache."""
    if "gallery" in docnames:
        docnames.remove("gallery")
        docnames.append("gallery")


def _gallery_outdated(app: object, env: object, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    return ["gallery"]  # its figures come from code elsewhere: draw them on every build


def _gallery_source(app: object, docname: str, source: list[str]) -> None:
    if docname == "gallery":
        from generate_gallery import MARKER, gallery_markdown

        source[0] = source[0].replace(MARKER, gallery_markdown(Path(nb_execution_cache_path)))


def setup(app: object) -> None:
    # MathJax on every page: the navigation bars carry maths (headings such as "σ*(D)") on
    # pages without any of their own
    app.set_html_assets_policy("always")  # type: ignore[attr-defined]
    app.connect("builder-inited", _generate_pages)  # type: ignore[attr-defined]
    app.connect("env-before-read-docs", _gallery_last)  # type: ignore[attr-defined]
    app.connect("env-get-outdated", _gallery_outdated)  # type: ignore[attr-defined]
    app.connect("source-read", _gallery_source)  # type: ignore[attr-defined]
    app.connect("build-finished", _copy_mathjax)  # type: ignore[attr-defined]
    app.connect("autodoc-process-signature", _short_aliases)  # type: ignore[attr-defined]
