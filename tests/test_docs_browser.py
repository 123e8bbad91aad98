"""The built HTML documentation, opened offline in headless Chromium: every page.

For each built page the probe script (injected into a copy of the page) waits for MathJax's
initial typesetting and the images, then records what a reader sees. Every page must

* load MathJax (served from the docs themselves) and typeset every formula it holds, with no raw
  TeX (``\\(``, ``$$``, ``\\frac``, ``\\big``) left in the rendered text outside code;
* load every image (lazy ones are made eager first);
* repeat no section heading within its section (the same heading under two parents is two sections);
* let no code block or output overflow without a scrollbar, nor the page itself scroll sideways;
* request nothing from another host: Chromium's network log of the page load must hold no
  ``http(s)``/``ws(s)`` request, and no page's HTML may name one for a script, style sheet, image,
  frame or font.

Screenshots of the landing page, the quick start, a theory page, an API page, the claims page and a
notebook page (and the landing page in dark mode) are saved under ``docs/_build/screenshots/``.

The documentation is built by ``make docs`` (``sphinx -b html docs docs/_build/html``), which then
runs this file with ``ROPELAB_REQUIRE_DOCS=1``. In a plain ``pytest`` run before the build the
tests are skipped (with that reason); with ``ROPELAB_REQUIRE_DOCS=1`` a missing build is an error.
``ROPELAB_DOCS_HTML`` points to another build directory.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
HTML = Path(os.environ.get("ROPELAB_DOCS_HTML", ROOT / "docs" / "_build" / "html"))
SHOTS = HTML.parent / "screenshots"
REQUIRED = os.environ.get("ROPELAB_REQUIRE_DOCS") == "1"

if not (HTML / "index.html").is_file():
    if REQUIRED:
        raise AssertionError(f"ROPELAB_REQUIRE_DOCS=1 but {HTML / 'index.html'} does not exist: run `make docs`")
    pytest.skip(
        f"the documentation is not built ({HTML}); `make docs` builds it and runs these tests", allow_module_level=True
    )

PAGES = sorted(
    p.relative_to(HTML).as_posix()
    for p in HTML.rglob("*.html")
    if not p.name.startswith("_probe_") and "_static" not in p.parts and "_sources" not in p.parts
)

#: The screenshots the documentation's look is judged by: name -> page.
SCREENSHOTS = {
    "landing": "index.html",
    "quickstart": "quickstart.html",
    "theory": "theory/temperature.html",
    "api": "api/ropelab.temperature.html",
    "claims": "claims.html",
    "notebook": "notebooks/01_temperature.html",
}

# MathJax 2 typesets asynchronously: the probe waits for its "End" startup hook (after the initial
# typesetting) and for every image, then records what the page shows.
PROBE = r"""<script>
(function () {
  function visibleText() {
    var clone = document.body.cloneNode(true);
    clone.querySelectorAll('pre, code, script, style, textarea, .MathJax_CHTML, .mjx-chtml, .MathJax_Preview, .MJX_Assistive_MathML, .highlight').forEach(function (e) { e.remove(); });
    return clone.textContent;
  }
  function scrolls(e) {
    // e or an ancestor inside the page gives the overflowing content a scrollbar
    for (var p = e; p && p !== document.body; p = p.parentElement) {
      var s = getComputedStyle(p).overflowX;
      if (s === 'auto' || s === 'scroll') { return true; }
      if (s === 'hidden' || s === 'clip') { return false; }
    }
    return false;
  }
  function overflowing() {
    var out = [];
    document.querySelectorAll('main pre, main div.cell_output, main div.output, main table, main div.math, main img').forEach(function (e) {
      var parent = e.parentElement;
      var wide = e.scrollWidth > e.clientWidth + 1 || (parent && e.offsetWidth > parent.clientWidth + 1);
      if (wide && !scrolls(e)) { out.push(e.tagName + '.' + e.className + ': ' + e.scrollWidth + ' px in ' + e.clientWidth + ' px'); }
    });
    return out;
  }
  function report() {
    var imgs = Array.from(document.images).map(function (i) { return [i.getAttribute('src'), i.complete ? i.naturalWidth : -1]; });
    var math = document.querySelectorAll('span.math, div.math').length;
    var typeset = document.querySelectorAll('script[type^="math/tex"]').length;
    var errors = document.querySelectorAll('.MathJax_Error, .mjx-merror, merror').length;
    var heads = Array.from(document.querySelectorAll('main h1, main h2, main h3, main h4, main h5, main h6'))
      .filter(function (h) { return !h.closest('.card, .sd-card'); })
      .map(function (h) {
        // the heading with the headings of the sections around it: "Added" under two versions is
        // two sections, "Added" twice under one version a repeated heading
        var path = [];
        for (var sec = h.closest('section'); sec; sec = sec.parentElement ? sec.parentElement.closest('section') : null) {
          var first = sec.querySelector('h1, h2, h3, h4, h5, h6');
          if (first) { path.unshift(first.textContent.replace(/[#¶]/g, '').replace(/\s+/g, ' ').trim()); }
        }
        return h.tagName + ' ' + path.join(' › ') + ' › ' + h.textContent.replace(/[#¶]/g, '').replace(/\s+/g, ' ').trim();
      });
    var text = visibleText();
    var raw = ['\\(', '\\)', '\\[', '$$', '\\frac', '\\big', '\\tfrac', '\\sigma', '\\xi'].filter(function (t) { return text.indexOf(t) >= 0; });
    document.body.setAttribute('data-probe', JSON.stringify({
      images: imgs, math: math, typeset: typeset, errors: errors,
      mathjax: typeof MathJax !== 'undefined' && !!MathJax.Hub,
      raw_tex: raw, headings: heads, overflow: overflowing(),
      page_width: [document.documentElement.scrollWidth, window.innerWidth]
    }));
  }
  function whenImagesLoaded(done) {
    var pending = Array.from(document.images).filter(function (i) { i.loading = 'eager'; return !i.complete; });
    if (!pending.length) { done(); return; }
    var left = pending.length;
    pending.forEach(function (i) {
      var one = function () { left -= 1; if (left === 0) { done(); } };
      i.addEventListener('load', one); i.addEventListener('error', one);
    });
  }
  window.addEventListener('load', function () {
    var go = function () { whenImagesLoaded(report); };
    if (window.MathJax && MathJax.Hub) { MathJax.Hub.Register.StartupHook('End', go); } else { go(); }
  });
})();
</script>"""

_REMOTE_SCHEME = re.compile(r"(?:https?|wss?|ftp)://")


def _page_requests(netlog: Path) -> list[str]:
    """The network requests that the page made, from Chromium's net log.

    Requests that Chromium makes for itself (component updates, time queries) have the initiator
    ``"not an origin"``; those of a page opened from a file have the page's (opaque) origin.
    """
    text = netlog.read_text(encoding="utf-8", errors="replace")
    try:
        log = json.loads(text)
    except json.JSONDecodeError:  # the browser ended before closing the log
        log = json.loads(text.rstrip().rstrip(",") + "]}")
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    out = []
    for event in log.get("events", []):
        params = event.get("params", {})
        if event.get("type") == start and _REMOTE_SCHEME.match(params.get("url", "")):
            if params.get("initiator") != "not an origin":
                out.append(params["url"])
    return sorted(set(out))


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("no headless browser found: `make test` installs Debian's chromium")


def _run_browser(*args: str) -> subprocess.CompletedProcess[str]:
    # the browser must not inherit a sanitizer runtime preloaded for our extension (make test-sanitize)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}
    return subprocess.run(
        [
            _chromium(),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-features=OptimizationHints,MediaRouter,Translate",
            # no name resolves: nothing can leave the machine, whatever a page asks for (the net
            # log still records the request, which fails the test)
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=20000",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


def _probe(page: Path, netlog: Path) -> dict[str, object]:
    """Load ``page`` with the probe script (a copy next to it, so relative links still resolve)."""
    html = page.read_text(encoding="utf-8")
    assert "</body>" in html
    copy = page.with_name(f"_probe_{uuid.uuid4().hex}.html")
    copy.write_text(html.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    try:
        out = _run_browser("--window-size=1280,1000", f"--log-net-log={netlog}", "--dump-dom", copy.as_uri())
    finally:
        copy.unlink()
    m = re.search(r'data-probe="([^"]*)"', out.stdout)
    assert m, f"the probe did not report for {page}: {out.stderr[-2000:]}"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">"))


@pytest.mark.parametrize("page", PAGES)
def test_page(page: str, tmp_path: Path) -> None:
    netlog = tmp_path / "net.json"
    p = _probe(HTML / page, netlog)
    problems = []
    if not p["mathjax"]:
        problems.append("MathJax did not load")
    math, typeset = p["math"], p["typeset"]
    assert isinstance(math, int) and isinstance(typeset, int)
    if typeset < math or p["errors"]:
        problems.append(f"{math} formulas, {typeset} typeset, {p['errors']} MathJax errors")
    if p["raw_tex"]:
        problems.append(f"raw TeX in the rendered text: {p['raw_tex']}")
    images = p["images"]
    assert isinstance(images, list)
    broken = [src for src, width in images if width <= 0]
    if broken:
        problems.append(f"images that did not load: {broken}")
    headings = p["headings"]
    assert isinstance(headings, list)
    repeated = sorted({h for h in headings if headings.count(h) > 1})
    if repeated:
        problems.append(f"repeated headings: {repeated}")
    if p["overflow"]:
        problems.append(f"overflowing without a scrollbar: {p['overflow']}")
    width, viewport = p["page_width"]  # type: ignore[misc]
    if width > viewport:
        problems.append(f"the page scrolls sideways ({width} px in a {viewport} px window)")
    remote = _page_requests(netlog)
    if remote:
        problems.append(f"requests leaving the machine: {remote[:10]}")
    assert not problems, f"{page}: " + "; ".join(problems)


def test_the_probe_sees_remote_requests(tmp_path: Path) -> None:
    """A page that asks another host for a script, an image and a font is caught (``.invalid`` never resolves)."""
    page = HTML / f"_probe_remote_{uuid.uuid4().hex}.html"
    page.write_text(
        '<html><head><script src="https://cdn.invalid/x.js"></script>'
        "<style>@font-face { font-family: f; src: url(https://fonts.invalid/f.woff2); } body { font-family: f; }</style>"
        '</head><body><img src="http://img.invalid/a.png">text</body></html>',
        encoding="utf-8",
    )
    try:
        _probe(page, tmp_path / "net.json")
    finally:
        page.unlink()
    remote = _page_requests(tmp_path / "net.json")
    assert any("cdn.invalid" in u for u in remote) and any("img.invalid" in u for u in remote), remote


def test_every_page_is_probed() -> None:
    assert len(PAGES) > 50, PAGES
    for page in [*SCREENSHOTS.values(), "gallery.html", "api/index.html", "theory/windows.html"]:
        assert page in PAGES, page


def test_no_page_names_another_host() -> None:
    offenders = []
    for page in PAGES:
        text = (HTML / page).read_text(encoding="utf-8")
        for m in re.finditer(
            r'<(?:script|img|iframe|source|video|audio)[^>]*\bsrc="(?:https?:)?//[^"]*"'
            r'|<link[^>]*\bhref="(?:https?:)?//[^"]*"|url\((?:https?:)?//[^)]*\)',
            text,
        ):
            offenders.append(f"{page}: {m.group(0)[:120]}")
    for css in HTML.joinpath("_static").rglob("*.css"):
        for m in re.finditer(
            r"url\(\s*['\"]?(?:https?:)?//[^)]*\)|@import\s+url\(['\"]?https?:", css.read_text(errors="replace")
        ):
            offenders.append(f"{css.relative_to(HTML)}: {m.group(0)[:120]}")
    assert not offenders, offenders[:20]
    assert (HTML / "_static" / "mathjax" / "MathJax.js").is_file()
    assert (HTML / "_static" / "mathjax" / "config" / "TeX-AMS_CHTML.js").is_file()


def _screenshot(page: Path, png: Path, *extra: str) -> np.ndarray:
    from PIL import Image

    out = _run_browser(f"--screenshot={png}", "--hide-scrollbars", "--window-size=1280,1400", *extra, page.as_uri())
    assert png.is_file(), out.stderr[-2000:]
    return np.asarray(Image.open(png).convert("L"), dtype=float)


@pytest.mark.parametrize("name", [*SCREENSHOTS, "landing_dark"])
def test_screenshot(name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    dark = name.endswith("_dark")
    page = SCREENSHOTS[name.removesuffix("_dark")]
    png = SHOTS / f"{name}.png"
    png.unlink(missing_ok=True)
    img = _screenshot(
        HTML / page, png, *(["--force-dark-mode", "--blink-settings=preferredColorScheme=0"] if dark else [])
    )
    assert img.shape == (1400, 1280)
    ink = (img > 128).mean() if dark else (img < 128).mean()  # text and figures
    assert 0.005 < ink < 0.6, f"{page}: {ink:.4f} of the screenshot is ink"
    assert img.std() > 20, f"{page}: a nearly uniform screenshot (std {img.std():.1f})"
    if dark:
        assert img.mean() < 110, f"{page}: the dark theme did not apply (mean grey {img.mean():.0f})"


def test_gallery_has_every_figure_and_its_links_resolve() -> None:
    """One thumbnail per drawing function of ropelab.plot and per notebook figure; every link lands."""
    import inspect

    from ropelab import plot

    gallery = (HTML / "gallery.html").read_text(encoding="utf-8")
    thumbs = re.findall(r'<img[^>]*src="(_images/[^"]+)"', gallery)
    functions = [n for n in plot.__all__ if inspect.isfunction(getattr(plot, n)) and n != "detached"]
    # every image of a notebook page is a figure its cells drew
    notebook_figures = sum(
        p.read_text(encoding="utf-8").count("<img")
        for p in (HTML / "notebooks").glob("0*.html")
        if not p.name.startswith("_probe_")
    )
    assert notebook_figures > 0
    assert len(thumbs) == len(functions) + notebook_figures, (len(thumbs), len(functions), notebook_figures)
    for name in functions:
        assert f'href="api/ropelab.plot.html#ropelab.plot.{name}"' in gallery, name
    for target, anchor in re.findall(r'href="(notebooks/[\w.]+\.html)#([^"]+)"', gallery):
        assert f'id="{anchor}"' in (HTML / target).read_text(encoding="utf-8"), (target, anchor)
