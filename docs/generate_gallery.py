"""Write the gallery: one thumbnail per ``ropelab.plot`` function and per notebook figure.

* A ``ropelab.plot`` function is drawn by running the Examples section of its docstring (the code
  its API entry shows, which the doctests also run); the card links to that entry.
* A notebook figure is an ``image/png`` output of the executed notebook, read from myst-nb's
  jupyter-cache (``conf.py`` reads this page after the notebooks, so the cache is filled); the card
  links to the notebook section holding the cell that drew it.

Run at build time by ``conf.py`` (``source-read`` of ``gallery.md``); the images go to
``docs/_generated/gallery`` (git-ignored).
"""

from __future__ import annotations

import base64
import inspect
import re
from pathlib import Path

from docutils.nodes import make_id

DOCS = Path(__file__).resolve().parent
OUT = DOCS / "_generated" / "gallery"
MARKER = "<!-- gallery -->"
_HEADING = re.compile(r"^(#{1,3})\s+(.*\S)\s*$", re.MULTILINE)


def _example_code(obj: object) -> str:
    from numpydoc.docscrape import NumpyDocString

    lines = NumpyDocString(inspect.getdoc(obj) or "")["Examples"]
    code = [ln[4:] for ln in lines if ln.startswith((">>> ", "... "))]
    return "\n".join(code)


def plot_figures() -> list[tuple[str, Path]]:
    """``[(function name, thumbnail), ...]`` for every drawing function of ``ropelab.plot``."""
    import matplotlib
    from matplotlib.figure import Figure

    matplotlib.use("Agg")
    from ropelab import plot

    OUT.mkdir(parents=True, exist_ok=True)
    out = []
    for name in plot.__all__:
        obj = getattr(plot, name)
        if not inspect.isfunction(obj) or name == "detached":
            continue
        code = _example_code(obj)
        if not code:
            raise RuntimeError(f"ropelab.plot.{name} has no Examples section to draw its gallery thumbnail")
        namespace: dict[str, object] = dict(vars(plot))
        with plot.detached():
            exec(compile(code, f"<ropelab.plot.{name} example>", "exec"), namespace)
        figs = [v for v in namespace.values() if isinstance(v, Figure)]
        figs += [v.figure for v in namespace.values() if isinstance(getattr(v, "figure", None), Figure)]  # explorers
        if not figs:
            raise RuntimeError(f"the example of ropelab.plot.{name} draws no figure")
        png = OUT / f"plot_{name}.png"
        figs[-1].savefig(png, dpi=72, bbox_inches="tight", facecolor="white")
        out.append((name, png))
    return out


def notebook_figures(cache_path: Path) -> list[tuple[str, str, str, str, Path]]:
    """``[(notebook, title, anchor, heading, image), ...]`` from the executed notebooks in the cache."""
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(cache_path)
    OUT.mkdir(parents=True, exist_ok=True)
    out = []
    for path in sorted((DOCS / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        try:
            record = cache.match_cache_notebook(nb)
        except KeyError as exc:
            raise RuntimeError(f"{path.name} is not in the jupyter-cache {cache_path}: was it executed?") from exc
        # the cache keeps the code cells (with their outputs); the headings are in the notebook
        executed = iter([c for c in cache.get_cache_bundle(record.pk).nb.cells if c.cell_type == "code"])
        title, heading, anchor, count = path.stem, "", "", 0
        for source_cell in nb.cells:
            cell = next(executed) if source_cell.cell_type == "code" else source_cell
            if cell.cell_type == "markdown":
                for m in _HEADING.finditer(cell.source):
                    text = m.group(2).replace("`", "")
                    if len(m.group(1)) == 1:
                        title, heading, anchor = text, "", ""
                    else:
                        heading, anchor = text, make_id(text.replace("$", ""))  # the section's id
                continue
            if cell.cell_type != "code":
                continue
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if "image/png" not in data:
                    continue
                count += 1
                png = OUT / f"{path.stem}_{count}.png"
                png.write_bytes(base64.b64decode(data["image/png"]))
                out.append((path.stem, title, anchor, heading, png))
    return out


_GREEK = {
    name: chr(0x3B1 + i)
    for i, name in enumerate(
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho varsigma sigma tau upsilon phi chi psi omega".split()
    )
}


def _plain(tex: str) -> str:
    """Inline TeX of a heading as plain text for a card title (card titles are not typeset)."""
    tex = re.sub(r"\\(?:tfrac|frac)\{?(\w)\}?\{?(\w)\}?", r"\1/\2", tex)
    tex = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), tex)
    return re.sub(r"[{}^_$\\]", "", tex)


def _card(title: str, image: Path, link: str, link_type: str, text: str) -> list[str]:
    rel = "/" + image.relative_to(DOCS).as_posix()
    return [
        f":::{{grid-item-card}} {title}",
        f":img-top: {rel}",
        f":link: {link}",
        f":link-type: {link_type}",
        ":class-card: ropelab-gallery-card",
        "",
        text,
        ":::",
        "",
    ]


def gallery_markdown(cache_path: Path) -> str:
    lines = ["## Plotting functions", ""]
    lines += [
        "Each is drawn by the example in its docstring; click a figure for the function, its",
        "parameters and that code.",
        "",
        "::::{grid} 1 2 3 3",
        ":gutter: 3",
        "",
    ]
    for name, png in plot_figures():
        lines += _card(f"`{name}`", png, f"ropelab.plot.{name}", "any", "Drawn by the example in its docstring.")
    lines += ["::::", ""]
    current = None
    for stem, title, anchor, heading, png in notebook_figures(cache_path):
        if stem != current:
            if current is not None:
                lines += ["::::", ""]
            plain_title = re.sub(r"\$([^$]*)\$", lambda m: _plain(m.group(1)), title)
            lines += [f"## {plain_title}", "", f"From the notebook {{doc}}`{plain_title} <notebooks/{stem}>`.", ""]
            lines += ["::::{grid} 1 2 3 3", ":gutter: 3", ""]
            current = stem
        link = f"notebooks/{stem}.html" + (f"#{anchor}" if anchor else "")
        name = re.sub(r"\$([^$]*)\$", lambda m: _plain(m.group(1)), heading or title)
        lines += _card(name, png, link, "url", "The cell that drew it, in the notebook.")
    if current is not None:
        lines += ["::::", ""]
    return "\n".join(lines)
