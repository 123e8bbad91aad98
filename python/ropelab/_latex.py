r"""Statements with inline maths: text with ``$...$`` LaTeX and ```code``` spans, in four renderings.

Claim statements (and a check's condition and corrected statement) are written as text with
inline LaTeX between dollar signs, e.g. ``"$\langle R_m q, R_n k\rangle = q^\top R_{n-m} k$"``.
The docs render the LaTeX with MathJax; this module renders a small subset of LaTeX without any
other package: as Unicode text for terminals (:func:`to_text`), as MathML for the self-contained
HTML report (:func:`to_html`), and as reStructuredText ``:math:`` roles for docstrings
(:func:`to_rst`). A command outside the subset raises ValueError, so every statement that
renders here also renders in MathJax.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

__all__ = ["COMMANDS", "Node", "parse", "segments", "to_html", "to_mathml", "to_rst", "to_text", "to_unicode"]

_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "ϕ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}  # fmt: skip
_OPERATORS = {
    "cdot": "·", "cdots": "⋯", "ldots": "…", "dots": "…", "times": "×", "neq": "≠", "ne": "≠", "approx": "≈",
    "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "to": "→", "rightarrow": "→", "mapsto": "↦", "sim": "∼",
    "in": "∈", "pm": "±", "mp": "∓", "infty": "∞", "sum": "Σ", "prod": "Π", "langle": "⟨", "rangle": "⟩",
    "lVert": "‖", "rVert": "‖", "lvert": "|", "rvert": "|", "circ": "∘", "propto": "∝", "equiv": "≡",
    "ll": "≪", "gg": "≫", "partial": "∂", "nabla": "∇", "prime": "′", "lfloor": "⌊", "rfloor": "⌋",
    "lceil": "⌈", "rceil": "⌉", "Rightarrow": "⇒", "iff": "⟺", "top": "ᵀ", "dagger": "†", "ast": "∗",
    "star": "⋆", "mid": "∣", "forall": "∀", "exists": "∃", "setminus": "∖", "cup": "∪", "cap": "∩",
    "subset": "⊂", "parallel": "∥", "gtrsim": "≳", "lesssim": "≲", "subseteq": "⊆", "otimes": "⊗", "oplus": "⊕", "odot": "⊙", "{": "{", "}": "}", "_": "_", "%": "%",
}  # fmt: skip
#: Named functions, set upright.
_FUNCTIONS = frozenset(
    "cos sin tan arccos arcsin arctan exp log ln det max min sup inf arg Re Im tr diag sign cosh sinh tanh coth lim".split()
)
#: Spaces: command -> (text, MathML width in em).
_SPACES = {",": (" ", 0.17), ":": (" ", 0.22), ";": (" ", 0.28), " ": (" ", 0.33), "quad": ("  ", 1.0), "qquad": ("   ", 2.0), "!": ("", 0.0)}  # fmt: skip
#: Commands taking one argument set in a font or as text.
_FONTS = {"mathrm": "normal", "operatorname": "normal", "text": "text", "mathbf": "bold", "mathbb": "double-struck",
          "mathcal": "script", "mathit": "italic", "boldsymbol": "bold"}  # fmt: skip
_DOUBLE_STRUCK = {"E": "𝔼", "R": "ℝ", "C": "ℂ", "Z": "ℤ", "N": "ℕ", "Q": "ℚ", "P": "ℙ", "1": "𝟙"}
_ACCENTS = {"tilde": ("\u0303", "~"), "hat": ("\u0302", "^"), "bar": ("\u0304", "¯"), "overline": ("\u0305", "¯"),
            "dot": ("\u0307", "˙"), "vec": ("\u20d7", "→")}  # fmt: skip
#: Delimiter sizes, which only matter to typesetting: ignored here.
_SIZES = frozenset("left right big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr middle".split())

#: Every LaTeX command the subset knows.
COMMANDS: frozenset[str] = frozenset(
    [*_GREEK, *_OPERATORS, *_FUNCTIONS, *_SPACES, *_FONTS, *_ACCENTS, *_SIZES, "frac", "tfrac", "dfrac", "sqrt", "|"]
)

_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvxβγρφχ−", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ₋"))
_SUP = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθφχ−ᵀ′*",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡ⁻ᵀ′*",
    )
)


@dataclass
class Node:
    """One node of parsed maths.

    ``kind`` is ``mi`` (identifier), ``mn`` (number), ``mo`` (operator), ``mtext``, ``space``,
    ``row`` (a group; ``children``), ``sub``/``sup``/``subsup`` (``children``: base, script(s)),
    ``frac`` and ``sqrt`` (``children``), ``accent`` (``children``: base; ``text``: the accent
    command) or ``font`` (``children``: the argument; ``text``: the variant).
    """

    kind: str
    text: str = ""
    children: list[Node] = field(default_factory=list)


_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\d+(?:\.\d+)?)|(\s+)|(.)", re.S)


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.tokens: list[tuple[str, str]] = []
        for m in _TOKEN.finditer(src):
            cmd, num, space, char = m.groups()
            if cmd is not None:
                self.tokens.append(("cmd", cmd))
            elif num is not None:
                self.tokens.append(("num", num))
            elif space is None:
                self.tokens.append(("char", char))
        self.i = 0

    def error(self, what: str) -> ValueError:
        return ValueError(f"LaTeX {self.src!r}: {what}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def row(self, until: str | None = None) -> Node:
        items: list[Node] = []
        while True:
            tok = self.peek()
            if tok is None:
                if until is not None:
                    raise self.error(f"missing {until!r}")
                return Node("row", children=items)
            if tok == ("char", "}"):
                if until != "}":
                    raise self.error("unbalanced '}'")
                self.i += 1
                return Node("row", children=items)
            if tok[1] in "_^" and tok[0] == "char":
                self.i += 1
                base = items.pop() if items else Node("row")
                script = self.argument()
                kind = "sub" if tok[1] == "_" else "sup"
                if base.kind in ("sub", "sup") and base.kind != kind and len(base.children) == 2:
                    b, s = base.children
                    subs = [s, script] if kind == "sup" else [script, s]
                    items.append(Node("subsup", children=[b, *subs]))
                elif base.kind in ("sub", "sup", "subsup") and (base.kind == kind or base.kind == "subsup"):
                    raise self.error(f"double {'subscript' if kind == 'sub' else 'superscript'}")
                else:
                    items.append(Node(kind, children=[base, script]))
                continue
            node = self.atom()
            if node is not None:
                items.append(node)

    def argument(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise self.error("missing argument")
        if tok == ("char", "{"):
            self.i += 1
            return self.row("}")
        if tok[0] == "num":  # x^10 takes one digit, as in LaTeX
            self.i += 1
            if len(tok[1]) > 1:
                self.tokens.insert(self.i, ("num", tok[1][1:]))
            return Node("mn", tok[1][0])
        node = self.atom()
        if node is None:
            raise self.error("missing argument")
        return node

    def atom(self) -> Node | None:
        tok = self.peek()
        assert tok is not None
        self.i += 1
        kind, text = tok
        if kind == "num":
            return Node("mn", text)
        if kind == "char":
            if text == "{":
                return self.row("}")
            if text.isalpha():
                return Node("mi", text)
            if text == "'":
                return Node("mo", "′")
            if text == "-":
                return Node("mo", "−")
            if text in "$%&#~":
                raise self.error(f"character {text!r} is not allowed in maths")
            return Node("mo", text)
        if text in _GREEK:
            return Node("mi", _GREEK[text])
        if text in _OPERATORS:
            return Node("mo", _OPERATORS[text])
        if text == "|":
            return Node("mo", "‖")
        if text in _FUNCTIONS:
            return Node("mi", text, [Node("font", "normal")])
        if text in _SPACES:
            return Node("space", text)
        if text in _SIZES:
            return None
        if text in _FONTS:
            arg = self.argument()
            return Node("font", _FONTS[text], [arg])
        if text in _ACCENTS:
            return Node("accent", text, [self.argument()])
        if text in ("frac", "tfrac", "dfrac"):
            return Node("frac", children=[self.argument(), self.argument()])
        if text == "sqrt":
            return Node("sqrt", children=[self.argument()])
        raise self.error(f"unknown command \\{text}")


def parse(latex: str) -> Node:
    """Parse maths of the subset (the text between dollar signs).

    Parameters
    ----------
    latex : str
        The maths.

    Returns
    -------
    Node
        A ``row`` node.

    Raises
    ------
    ValueError
        For a command outside the subset (:data:`COMMANDS`), unbalanced braces or a missing argument.

    Examples
    --------
    >>> parse("x_1").children[0].kind
    'sub'
    """
    return _Parser(latex).row()


def _plain(node: Node) -> str:
    """Text of a node without scripts (for fonts and for deciding on Unicode scripts)."""
    if node.kind in ("mi", "mn", "mo", "mtext"):
        return node.text
    if node.kind == "space":
        return _SPACES[node.text][0]
    return "".join(_plain(c) for c in node.children)


def _flat(node: Node) -> bool:
    """Whether a node is a run of identifiers, numbers and operators (no scripts or fractions)."""
    if node.kind in ("mi", "mn", "mo", "mtext", "space"):
        return True
    if node.kind in ("row", "font"):
        return all(_flat(c) for c in node.children)
    return False


def _needs_parens(node: Node) -> bool:
    if node.kind == "row":
        items = [c for c in node.children if c.kind != "space"]
        return len(items) > 1 or (len(items) == 1 and _needs_parens(items[0]))
    return node.kind in ("frac",)


def _script(node: Node, table: dict[str, str], mark: str) -> str:
    text = _uni(node)
    if _flat(node) and text and all(ch in table for ch in text.replace(" ", "")):
        return "".join(table[ch] for ch in text.replace(" ", ""))
    text = text.replace(" − ", "−").replace(" + ", "+").replace(" = ", "=")
    if _needs_parens(node) and not (text.startswith("(") and text.endswith(")")):
        return f"{mark}({text})"
    return mark + text


def _uni(node: Node) -> str:
    k = node.kind
    if k == "mi":
        return node.text
    if k in ("mn", "mtext"):
        return node.text
    if k == "mo":
        return node.text
    if k == "space":
        return _SPACES[node.text][0]
    if k == "row":
        return _spaced([c for c in node.children])
    if k == "font":
        inner = _uni(node.children[0]) if node.children else ""
        if node.text == "double-struck" and inner in _DOUBLE_STRUCK:
            return _DOUBLE_STRUCK[inner]
        return inner
    if k == "sub":
        return _uni(node.children[0]) + _script(node.children[1], _SUB, "_")
    if k == "sup":
        return _uni(node.children[0]) + _script(node.children[1], _SUP, "^")
    if k == "subsup":
        base, low, high = node.children
        return _uni(base) + _script(low, _SUB, "_") + _script(high, _SUP, "^")
    if k == "frac":
        num, den = node.children
        top, bottom = _uni(num), _uni(den)
        if _plain(num) == "1" and _plain(den) == "2":
            return "½"
        top = f"({top})" if _needs_parens(num) else top
        bottom = f"({bottom})" if _needs_parens(den) or den.kind in ("sub", "sup") else bottom
        return f"{top}/{bottom}"
    if k == "sqrt":
        inner = _uni(node.children[0])
        return f"√({inner})" if _needs_parens(node.children[0]) else f"√{inner}"
    if k == "accent":
        combining, spacing = _ACCENTS[node.text]
        inner = _uni(node.children[0])
        if len(inner) == 1:
            return inner + combining
        return f"conj({inner})" if node.text in ("bar", "overline") else f"{inner}{spacing}"
    raise AssertionError(k)  # pragma: no cover


_BINARY = frozenset("=≠≈≤≥→↦∼∈<>±×⇒⟺≡∝≪≫≳≲∥")
_SPACED_MINUS = frozenset("+−")


def _spaced(children: list[Node]) -> str:
    """Join a row's parts, with spaces around relations and around binary + and −."""
    out: list[str] = []
    prev: Node | None = None
    for i, c in enumerate(children):
        text = _uni(c)
        if c.kind == "mo" and text in _BINARY:
            out.append(f" {text} ")
        elif (
            c.kind == "mo"
            and text in _SPACED_MINUS
            and prev is not None
            and not _opening(prev)
            and i + 1 < len(children)
        ):
            out.append(f" {text} ")
        elif c.kind == "mo" and text == ",":
            out.append(", ")
        elif c.kind == "mi" and c.children:  # a function name: \cos x, \cos(x)
            before = " " if out and not out[-1].endswith((" ", "(", "[")) else ""
            after = " " if i + 1 < len(children) and children[i + 1].kind != "mo" else ""
            out.append(before + text + after)
        elif c.kind in ("sub", "sup", "subsup") and c.children[0].kind == "mi" and c.children[0].children:
            before = " " if out and not out[-1].endswith((" ", "(", "[")) else ""  # \log_{10} x: a function
            out.append(before + text + " ")
        elif c.kind in ("sub", "sup", "subsup") and c.children[0].kind == "mo" and c.children[0].text in "ΣΠ":
            out.append(text + " ")
        elif prev is not None and prev.kind in ("sub", "sup", "subsup") and c.kind in ("mi", "sub", "sup", "subsup"):
            fallback = "_" in out[-1] or "^" in out[-1]  # v_τ k_τ: a space after a script written with _ or ^
            out.append((" " if fallback else "") + text)
        else:
            out.append(text)
        prev = c
    return re.sub(r" {2,}", " ", "".join(out)).replace("( ", "(").replace(" )", ")").strip()


def _opening(node: Node) -> bool:
    return node.kind == "mo" and (node.text in "([{⟨,=" or node.text in _BINARY or node.text in _SPACED_MINUS)


def to_unicode(latex: str) -> str:
    r"""Maths of the subset as readable Unicode text.

    Parameters
    ----------
    latex : str
        The maths (without dollar signs).

    Returns
    -------
    str
        E.g. ``R_{n-m}`` as ``Rₙ₋ₘ``, ``e^{i\omega}`` as ``e^(iω)``.

    Raises
    ------
    ValueError
        As :func:`parse`.

    Examples
    --------
    >>> to_unicode(r"\langle R_m q, R_n k\rangle = q^\top R_{n-m} k")
    '⟨Rₘq, Rₙk⟩ = qᵀRₙ₋ₘk'
    """
    return _uni(parse(latex))


_MI_NORMAL = {
    "normal": "normal",
    "bold": "bold",
    "double-struck": "double-struck",
    "script": "script",
    "italic": "italic",
}


def _ml(node: Node, variant: str | None = None) -> str:
    e = html.escape
    k = node.kind
    if k == "mi":
        v = "normal" if node.children else variant
        if v is None and len(node.text) > 1:
            v = "italic"
        attr = f' mathvariant="{v}"' if v and not (v == "italic" and len(node.text) == 1) else ""
        return f"<mi{attr}>{e(node.text)}</mi>"
    if k == "mn":
        return f"<mn>{e(node.text)}</mn>"
    if k == "mo":
        if node.text == "ᵀ":
            return '<mi mathvariant="normal">T</mi>'
        stretchy = ' stretchy="false"' if node.text in "()[]⟨⟩‖|{}" else ""
        return f"<mo{stretchy}>{e(node.text)}</mo>"
    if k == "space":
        return f'<mspace width="{_SPACES[node.text][1]}em"/>'
    if k == "row":
        return "<mrow>" + "".join(_ml(c, variant) for c in node.children) + "</mrow>"
    if k == "font":
        if not node.children:
            return ""
        if node.text == "text":
            return f"<mtext>{e(_plain(node.children[0]))}</mtext>"
        return _ml(node.children[0], node.text)
    if k in ("sub", "sup"):
        base, script = node.children
        return f"<m{k}>{_ml(base, variant)}{_ml(script, variant)}</m{k}>"
    if k == "subsup":
        b, s, p = node.children
        return f"<msubsup>{_ml(b, variant)}{_ml(s, variant)}{_ml(p, variant)}</msubsup>"
    if k == "frac":
        return f"<mfrac>{_ml(node.children[0], variant)}{_ml(node.children[1], variant)}</mfrac>"
    if k == "sqrt":
        return f"<msqrt>{_ml(node.children[0], variant)}</msqrt>"
    if k == "accent":
        mark = {"tilde": "~", "hat": "^", "bar": "¯", "overline": "¯", "dot": "˙", "vec": "→"}[node.text]
        return f'<mover accent="true">{_ml(node.children[0], variant)}<mo>{mark}</mo></mover>'
    raise AssertionError(k)  # pragma: no cover


def to_mathml(latex: str, display: bool = False) -> str:
    """Maths of the subset as a MathML ``<math>`` element (MathML Core, which browsers render natively).

    Parameters
    ----------
    latex : str
        The maths (without dollar signs).
    display : bool
        Block (``display="block"``) rather than inline maths.

    Returns
    -------
    str
        The element, with the LaTeX as its ``alttext``.

    Raises
    ------
    ValueError
        As :func:`parse`.

    Examples
    --------
    >>> to_mathml("x^2")
    '<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="x^2"><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow></math>'
    """
    mode = ' display="block"' if display else ""
    alt = html.escape(latex, quote=True)
    return f'<math xmlns="http://www.w3.org/1998/Math/MathML"{mode} alttext="{alt}">{_ml(parse(latex))}</math>'


_SEGMENT = re.compile(r"\$([^$]+)\$|`([^`]+)`")


def segments(text: str) -> list[tuple[str, str]]:
    """Split a statement into ``("text", ...)``, ``("math", ...)`` and ``("code", ...)`` parts.

    Parameters
    ----------
    text : str
        Text with inline maths between dollar signs and code between backticks.

    Returns
    -------
    list of (str, str)
        The parts, in order.

    Raises
    ------
    ValueError
        For an unmatched dollar sign or backtick.

    Examples
    --------
    >>> segments("the score $q_1 k$ and `rotate_half`")
    [('text', 'the score '), ('math', 'q_1 k'), ('text', ' and '), ('code', 'rotate_half')]
    """
    out: list[tuple[str, str]] = []
    pos = 0
    for m in _SEGMENT.finditer(text):
        if m.start() > pos:
            out.append(("text", text[pos : m.start()]))
        out.append(("math", m.group(1)) if m.group(1) is not None else ("code", m.group(2)))
        pos = m.end()
    if pos < len(text):
        out.append(("text", text[pos:]))
    for kind, part in out:
        if kind == "text" and ("$" in part or "`" in part):
            raise ValueError(f"statement {text!r}: unmatched '$' or '`'")
    return out


def to_text(text: str) -> str:
    """A statement as plain Unicode text (maths by :func:`to_unicode`, code spans bare).

    Parameters
    ----------
    text : str
        Text with inline maths between dollar signs.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> to_text(r"the score depends on $m - n$ only")
    'the score depends on m − n only'
    """
    return "".join(to_unicode(part) if kind == "math" else part for kind, part in segments(text))


def to_html(text: str) -> str:
    """A statement as HTML: text escaped, maths as MathML, code spans as ``<code>``.

    Parameters
    ----------
    text : str
        Text with inline maths between dollar signs.

    Returns
    -------
    str
        The HTML fragment.

    Examples
    --------
    >>> to_html("a < b: $x_1$")
    'a &lt; b: <math xmlns="http://www.w3.org/1998/Math/MathML" alttext="x_1"><mrow><msub><mi>x</mi><mn>1</mn></msub></mrow></math>'
    """
    parts = []
    for kind, part in segments(text):
        if kind == "math":
            parts.append(to_mathml(part))
        elif kind == "code":
            parts.append(f"<code>{html.escape(part)}</code>")
        else:
            parts.append(html.escape(part))
    return "".join(parts)


def to_rst(text: str) -> str:
    """A statement as reStructuredText: maths as ``:math:`` roles, code as literals.

    Parameters
    ----------
    text : str
        Text with inline maths between dollar signs.

    Returns
    -------
    str
        The reStructuredText.

    Examples
    --------
    >>> to_rst("the score $q_1 k$ in `code`")
    'the score :math:`q_1 k` in ``code``'
    """
    parts = []
    for kind, part in segments(text):
        if kind == "math":
            parse(part)
            parts.append(f":math:`{part}`")
        elif kind == "code":
            parts.append(f"``{part}``")
        else:
            parts.append(part)
    return "".join(parts)
