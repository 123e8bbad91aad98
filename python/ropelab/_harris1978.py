"""Harris (1978), Table 1, as printed: the reference rows of :func:`ropelab.spectra.harris_table`.

F. J. Harris, "On the use of windows for harmonic analysis with the discrete Fourier transform",
Proc. IEEE 66(1), 51–83, 1978, Table 1 ("Windows and figures of merit"). :data:`ROWS` holds the
table's 41 rows of windows with fixed coefficients or parameters, as printed (an empty cell,
Hann–Poisson α = 2.0's highest sidelobe, is ``None``), each mapped to a window of
:func:`ropelab.spectra.window` with Harris's parameter, the ten columns in the order of
:data:`COLUMNS` (bandwidths in bins, overlap correlations in percent as printed, DFT-even windows;
:func:`from_printed` converts them to the fractions of :class:`ropelab.spectra.FiguresOfMerit`). Harris's
parameters in ropelab's names: Kaiser–Bessel α is ``beta/π``; Dolph–Chebyshev α is
``attenuation/20`` (dB); every other α is the window's ``alpha``. The Barcilon–Temes rows
(α = 3.0, 3.5, 4.0) are not among them: :func:`ropelab.spectra.harris_table` lists that window
with Harris's parameters and computed figures only.

Some printed entries are not what the window's own definition gives. :data:`ERRATA` says, for
every entry that differs from ropelab's value by more than 1.5 units of its last printed digit,
which value is right and why (for some rows, every differing column of the row): a *misprint* (the print is not what its own definition gives;
ropelab's value is checked against a closed form, a brute-force FFT grid or the print's own
other columns), a *different definition* (the print is of another reading of the window or of
the figure), or *rounding* (a printed integer rounded the wrong way). Smaller differences (up to
1.5 units of the last digit) are reported as *last digit*.
"""

from __future__ import annotations

from typing import NamedTuple

#: (figure-of-merit field, Harris's column heading, the unit Harris prints it in, half a unit of the
#: printed last digit); ropelab's values of the ``%`` columns are fractions (:func:`from_printed`).
COLUMNS: tuple[tuple[str, str, str, float], ...] = (
    ("highest_sidelobe_db", "highest sidelobe", "dB", 0.5),
    ("sidelobe_falloff_db_per_octave", "sidelobe fall-off", "dB/octave", 1.0),
    ("coherent_gain", "coherent gain", "", 0.005),
    ("enbw_bins", "ENBW", "bins", 0.005),
    ("bandwidth_3db_bins", "3.0-dB BW", "bins", 0.005),
    ("scalloping_loss_db", "scalloping loss", "dB", 0.005),
    ("worst_case_processing_loss_db", "worst-case processing loss", "dB", 0.005),
    ("bandwidth_6db_bins", "6.0-dB BW", "bins", 0.005),
    ("overlap_correlation_75", "overlap correlation 75%", "%", 0.05),
    ("overlap_correlation_50", "overlap correlation 50%", "%", 0.05),
)


class HarrisRow(NamedTuple):
    """One printed row: the window, its parameters, Harris's label and the ten printed values."""

    window: str
    params: dict[str, float]
    label: str
    printed: tuple[float | None, ...]


_PI = 3.141592653589793

#: The 41 rows of Harris 1978, Table 1 (the fall-off column is Harris's nominal asymptotic slope).
ROWS: tuple[HarrisRow, ...] = (
    HarrisRow("rectangular", {}, "Rectangle", (-13, -6, 1.0, 1.0, 0.89, 3.92, 3.92, 1.21, 75.0, 50.0)),
    HarrisRow("triangular", {}, "Triangle", (-27, -12, 0.5, 1.33, 1.28, 1.82, 3.07, 1.78, 71.9, 25.0)),
    HarrisRow("cosine_power", {"alpha": 1.0}, "cos^1", (-23, -12, 0.64, 1.23, 1.2, 2.1, 3.01, 1.65, 75.5, 31.8)),
    HarrisRow("hann", {}, "cos^2 (Hann)", (-32, -18, 0.5, 1.5, 1.44, 1.42, 3.18, 2.0, 65.9, 16.7)),
    HarrisRow("cosine_power", {"alpha": 3.0}, "cos^3", (-39, -24, 0.42, 1.73, 1.66, 1.08, 3.47, 2.32, 56.7, 8.5)),
    HarrisRow("cosine_power", {"alpha": 4.0}, "cos^4", (-47, -30, 0.38, 1.94, 1.86, 0.86, 3.75, 2.59, 48.6, 4.3)),
    HarrisRow("hamming", {}, "Hamming", (-43, -6, 0.54, 1.36, 1.3, 1.78, 3.1, 1.81, 70.7, 23.5)),
    HarrisRow("riesz", {}, "Riesz", (-21, -12, 0.67, 1.2, 1.16, 2.22, 3.01, 1.59, 76.5, 34.4)),
    HarrisRow("lanczos", {}, "Riemann", (-26, -12, 0.59, 1.3, 1.26, 1.89, 3.03, 1.74, 73.4, 27.4)),
    HarrisRow(
        "de_la_vallee_poussin", {}, "de la Vallee-Poussin", (-53, -24, 0.38, 1.92, 1.82, 0.9, 3.72, 2.55, 49.3, 5.0)
    ),
    HarrisRow("tukey", {"alpha": 0.25}, "Tukey 0.25", (-14, -18, 0.88, 1.1, 1.01, 2.96, 3.39, 1.38, 74.1, 44.4)),
    HarrisRow("tukey", {"alpha": 0.5}, "Tukey 0.50", (-15, -18, 0.75, 1.22, 1.15, 2.24, 3.11, 1.57, 72.7, 36.4)),
    HarrisRow("tukey", {"alpha": 0.75}, "Tukey 0.75", (-19, -18, 0.63, 1.36, 1.31, 1.73, 3.07, 1.8, 70.5, 25.1)),
    HarrisRow("bohman", {}, "Bohman", (-46, -24, 0.41, 1.79, 1.71, 1.02, 3.54, 2.38, 54.5, 7.4)),
    HarrisRow("poisson", {"alpha": 2.0}, "Poisson 2.0", (-19, -6, 0.44, 1.3, 1.21, 2.09, 3.23, 1.69, 69.9, 27.8)),
    HarrisRow("poisson", {"alpha": 3.0}, "Poisson 3.0", (-24, -6, 0.32, 1.65, 1.45, 1.46, 3.64, 2.08, 54.8, 15.1)),
    HarrisRow("poisson", {"alpha": 4.0}, "Poisson 4.0", (-31, -6, 0.25, 2.08, 1.75, 1.03, 4.21, 2.58, 40.4, 7.4)),
    HarrisRow(
        "hann_poisson", {"alpha": 0.5}, "Hann-Poisson 0.5", (-35, -18, 0.43, 1.61, 1.54, 1.26, 3.33, 2.14, 61.3, 12.6)
    ),
    HarrisRow(
        "hann_poisson", {"alpha": 1.0}, "Hann-Poisson 1.0", (-39, -18, 0.38, 1.73, 1.64, 1.11, 3.5, 2.3, 56.0, 9.2)
    ),
    HarrisRow(
        "hann_poisson", {"alpha": 2.0}, "Hann-Poisson 2.0", (None, -18, 0.29, 2.02, 1.87, 0.87, 3.94, 2.65, 44.6, 4.7)
    ),
    HarrisRow("cauchy", {"alpha": 3.0}, "Cauchy 3.0", (-31, -6, 0.42, 1.48, 1.34, 1.71, 3.4, 1.9, 61.6, 20.2)),
    HarrisRow("cauchy", {"alpha": 4.0}, "Cauchy 4.0", (-35, -6, 0.33, 1.76, 1.5, 1.36, 3.83, 2.2, 48.8, 13.2)),
    HarrisRow("cauchy", {"alpha": 5.0}, "Cauchy 5.0", (-30, -6, 0.28, 2.06, 1.68, 1.13, 4.28, 2.53, 38.3, 9.0)),
    HarrisRow("gaussian", {"alpha": 2.5}, "Gaussian 2.5", (-42, -6, 0.51, 1.39, 1.33, 1.69, 3.14, 1.86, 67.7, 20.0)),
    HarrisRow("gaussian", {"alpha": 3.0}, "Gaussian 3.0", (-55, -6, 0.43, 1.64, 1.55, 1.25, 3.4, 2.18, 57.5, 10.6)),
    HarrisRow("gaussian", {"alpha": 3.5}, "Gaussian 3.5", (-69, -6, 0.37, 1.9, 1.79, 0.94, 3.73, 2.52, 47.2, 4.9)),
    HarrisRow(
        "chebyshev", {"alpha": 2.5}, "Dolph-Chebyshev 2.5", (-50, 0, 0.53, 1.39, 1.33, 1.7, 3.12, 1.85, 69.6, 22.3)
    ),
    HarrisRow(
        "chebyshev", {"alpha": 3.0}, "Dolph-Chebyshev 3.0", (-60, 0, 0.48, 1.51, 1.44, 1.44, 3.23, 2.01, 64.7, 16.3)
    ),
    HarrisRow(
        "chebyshev", {"alpha": 3.5}, "Dolph-Chebyshev 3.5", (-70, 0, 0.45, 1.62, 1.55, 1.25, 3.35, 2.17, 60.2, 11.9)
    ),
    HarrisRow(
        "chebyshev", {"alpha": 4.0}, "Dolph-Chebyshev 4.0", (-80, 0, 0.42, 1.73, 1.65, 1.1, 3.48, 2.31, 55.9, 8.7)
    ),
    HarrisRow(
        "kaiser", {"beta": 2.0 * _PI}, "Kaiser-Bessel 2.0", (-46, -6, 0.49, 1.5, 1.43, 1.46, 3.2, 1.99, 65.7, 16.9)
    ),
    HarrisRow(
        "kaiser", {"beta": 2.5 * _PI}, "Kaiser-Bessel 2.5", (-57, -6, 0.44, 1.65, 1.57, 1.2, 3.38, 2.2, 59.5, 11.2)
    ),
    HarrisRow(
        "kaiser", {"beta": 3.0 * _PI}, "Kaiser-Bessel 3.0", (-69, -6, 0.4, 1.8, 1.71, 1.02, 3.56, 2.39, 53.9, 7.4)
    ),
    HarrisRow(
        "kaiser", {"beta": 3.5 * _PI}, "Kaiser-Bessel 3.5", (-82, -6, 0.37, 1.93, 1.83, 0.89, 3.74, 2.57, 48.8, 4.8)
    ),
    HarrisRow("exact_blackman", {}, "Exact Blackman", (-51, -6, 0.46, 1.57, 1.52, 1.33, 3.29, 2.13, 62.7, 14.0)),
    HarrisRow("blackman", {}, "Blackman", (-58, -18, 0.42, 1.73, 1.68, 1.1, 3.47, 2.35, 56.7, 9.0)),
    HarrisRow(
        "blackman_harris_3",
        {},
        "Blackman-Harris 3-term -67 dB",
        (-67, -6, 0.42, 1.71, 1.66, 1.13, 3.45, 1.81, 57.2, 9.6),
    ),
    HarrisRow(
        "blackman_harris_4", {}, "Blackman-Harris 4-term -92 dB", (-92, -6, 0.36, 2.0, 1.9, 0.83, 3.85, 2.72, 46.0, 3.8)
    ),
    HarrisRow(
        "blackman_harris_3_61",
        {},
        "Blackman-Harris 3-term -61 dB",
        (-61, -6, 0.45, 1.61, 1.56, 1.27, 3.34, 2.19, 61.0, 12.6),
    ),
    HarrisRow(
        "blackman_harris_4_74",
        {},
        "Blackman-Harris 4-term -74 dB",
        (-74, -6, 0.4, 1.79, 1.74, 1.03, 3.56, 2.44, 53.9, 7.4),
    ),
    HarrisRow(
        "kaiser_bessel_4", {}, "4-term Kaiser-Bessel 3.0", (-69, -6, 0.4, 1.8, 1.74, 1.02, 3.56, 2.44, 53.9, 7.4)
    ),
)

_LAST = "last digit: within 1.5 units of the printed last digit (Harris's coarser evaluation)"
_COSINE_SUM_BW = (
    "misprint: Harris's bandwidths of the cosine-sum windows are 2–3 % wide (ropelab's agree with a brute-force "
    "FFT grid; the print's own Kaiser–Bessel α = 3.0 row gives 1.71 and 2.39 for the window that the 4-term "
    "Kaiser–Bessel approximates, whose printed 1.74 and 2.44 are the same 2–3 % wide)"
)
_POISSON = (
    "misprint: the print is inaccurate for exp(−α|x|): ropelab's coherent gain and ENBW are the closed forms "
    "(1 − exp(−α))/α and α(1 − exp(−2α))/(2(1 − exp(−α))²), its scalloping loss and overlap correlations follow "
    "from the same samples"
)
_CAUCHY = (
    "misprint: the print is inaccurate for 1/(1 + (αx)²): ropelab's coherent gain and ENBW are the closed forms "
    "arctan(α)/α and (1/(1 + α²) + arctan(α)/α)/(2(arctan(α)/α)²)"
)
_GAUSSIAN = (
    "misprint: the print's row is not of exp(−(αx)²/2) at any single α (its coherent gain and ENBW fit "
    "α ≈ 2.4 for the α = 2.5 row, whose highest sidelobe would then be −37 dB); ropelab's coherent gain and ENBW "
    "are the closed forms √(2π)/(2α)·erf(α/√2) and the matching erf ratio"
)
_CHEBYSHEV = (
    "different definition: the Dolph–Chebyshev window depends on N (its equiripple sidelobes hold energy "
    "that grows with N, and at large N and low attenuation the end samples grow into spikes: α = 2.5's coherent "
    "gain falls to 0.15 at N = 4096), and the DFT-even window (the symmetric window of N + 1 without its last "
    "sample) is not equiripple (the symmetric one has its sidelobes at exactly −20α dB); Harris's rows are of a "
    "short window (at N = 64 the DFT-even α = 2.5 window gives coherent gain 0.53, ENBW 1.39, 3.0-dB BW 1.33)"
)
_HANN_POISSON_FALLOFF = (
    "misprint: exp(−α|x|) puts a jump of the first derivative at x = 0 into (1 + cos πx)/2 · exp(−α|x|): "
    "the sidelobes fall off at −12 dB/octave, not Hann's −18"
)

#: Why a printed entry differs from ropelab's value by more than 1.5 units of its last printed
#: digit (key ``(label, column)``; ``(label, "*")``: every such column of the row without an entry
#: of its own). Each reason starts with its kind: ``misprint``, ``different definition`` or
#: ``rounding``.
ERRATA: dict[tuple[str, str], str] = {
    ("cos^2 (Hann)", "highest_sidelobe_db"): "rounding: the highest sidelobe is −31.47 dB, printed −32",
    ("Hamming", "scalloping_loss_db"): "misprint: the cosine-sum closed form gives 1.75 dB, and Harris's own "
    "worst-case loss 3.10 = 1.75 + 10 log10 1.36",
    ("Hann-Poisson 0.5", "sidelobe_falloff_db_per_octave"): _HANN_POISSON_FALLOFF,
    ("Hann-Poisson 1.0", "sidelobe_falloff_db_per_octave"): _HANN_POISSON_FALLOFF,
    ("Hann-Poisson 2.0", "sidelobe_falloff_db_per_octave"): _HANN_POISSON_FALLOFF,
    ("Hann-Poisson 1.0", "highest_sidelobe_db"): "misprint: at α = 1 the transform already falls "
    "monotonically beyond the main lobe (no local maximum on a fine FFT grid), as Harris's blank cell says for "
    "α = 2",
    ("Poisson 2.0", "*"): _POISSON,
    ("Poisson 3.0", "*"): _POISSON,
    ("Poisson 4.0", "*"): _POISSON,
    ("Cauchy 3.0", "*"): _CAUCHY,
    ("Cauchy 4.0", "*"): _CAUCHY,
    ("Cauchy 5.0", "*"): _CAUCHY,
    ("Cauchy 4.0", "highest_sidelobe_db"): "different definition: ropelab's highest sidelobe is the first local "
    "maximum beyond the first minimum, a shoulder at 4.2 bins (−26.02 dB, 0.17 dB above a shallow dip); the "
    "print takes the next lobe (−35.97 dB at 6.5 bins)",
    ("Gaussian 2.5", "*"): _GAUSSIAN,
    ("Gaussian 3.0", "*"): _GAUSSIAN,
    ("Gaussian 3.5", "*"): _GAUSSIAN,
    ("Dolph-Chebyshev 2.5", "*"): _CHEBYSHEV,
    ("Dolph-Chebyshev 3.0", "*"): _CHEBYSHEV,
    ("Dolph-Chebyshev 3.5", "*"): _CHEBYSHEV,
    ("Dolph-Chebyshev 4.0", "*"): _CHEBYSHEV,
    ("Exact Blackman", "*"): "misprint: the whole row is not of the exact Blackman coefficients 7938, 9240, 1430 "
    "(/18608), which give −68.24 dB, coherent gain 0.43, ENBW 1.69 (the printed row is self-consistent, "
    "3.29 = 1.33 + 10 log10 1.57, but belongs to another window)",
    ("Blackman", "*"): _COSINE_SUM_BW,
    ("Blackman-Harris 3-term -67 dB", "*"): _COSINE_SUM_BW,
    ("Blackman-Harris 3-term -67 dB", "highest_sidelobe_db"): "misprint: Harris's coefficients give −70.83 dB "
    "(Nuttall 1981, IEEE Trans. ASSP 29(1)); −67 dB is the design target",
    ("Blackman-Harris 3-term -67 dB", "bandwidth_6db_bins"): "misprint: 1.81 is below 1.1 times the 3.0-dB BW "
    "(every window's 6.0-dB BW is about 1.4 times it); the coefficients give 2.27",
    ("Blackman-Harris 4-term -92 dB", "*"): _COSINE_SUM_BW,
    ("Blackman-Harris 3-term -61 dB", "*"): _COSINE_SUM_BW,
    ("Blackman-Harris 3-term -61 dB", "highest_sidelobe_db"): "misprint: Harris's coefficients give −62.05 dB; "
    "−61 dB is the design target",
    ("Blackman-Harris 4-term -74 dB", "*"): _COSINE_SUM_BW,
    ("4-term Kaiser-Bessel 3.0", "*"): _COSINE_SUM_BW,
    ("4-term Kaiser-Bessel 3.0", "highest_sidelobe_db"): "misprint: the print repeats the Kaiser–Bessel α = 3.0 "
    "value; the four-term cosine sum's own highest sidelobe is −66.42 dB",
}


def explain(label: str, column: str, computed: float, printed: float, tol: float) -> str:
    """Why ``printed`` (Harris's) differs from ``computed`` (ropelab's) in one column of a row.

    ``""`` when they agree within ``tol`` (half a unit of the printed last digit); otherwise the
    :data:`ERRATA` entry of the column, else of the row, else *last digit* within 1.5 units of the
    last digit; ``"unexplained"`` if none applies (the tests keep that from happening).
    """
    if abs(computed - printed) <= tol + 1e-9:
        return ""
    for key in ((label, column), (label, "*")):
        if key in ERRATA:
            return ERRATA[key]
    return _LAST if abs(computed - printed) <= 3.0 * tol + 1e-9 else "unexplained"


def from_printed(column: str, printed: float | None) -> float | None:
    """A printed value of Harris's in ropelab's units: the ``%`` columns as fractions."""
    unit = next(u for c, _, u, _ in COLUMNS if c == column)
    return None if printed is None else printed / 100.0 if unit == "%" else printed


def _fmt(value: float | None, unit: str) -> str:
    if value is None:  # not measurable (the fall-off of a short window)
        return "n/a"
    if value != value:  # nan
        return "—"
    if value in (float("inf"), float("-inf")):
        return "−∞" if value < 0 else "∞"
    if unit == "dB/octave":
        return f"{value:.1f}"
    return f"{value:.1f}" if unit == "%" else f"{value:.2f}"


def _printed(value: float | None, column: str, unit: str) -> str:
    if value is None:
        return ""
    if column in ("highest_sidelobe_db", "sidelobe_falloff_db_per_octave"):  # printed as integers
        return f"{value:.0f}"
    return f"{value:.1f}" if unit == "%" else f"{value:.2f}"


def format_table(rows: list[dict[str, object]], fmt: str) -> str:
    """Renders :func:`ropelab.spectra.harris_table` rows as ``text``, ``csv`` or ``markdown``.

    ``text`` and ``markdown`` show each figure as ropelab's value followed by Harris's printed one
    in parentheses (where Harris has the row), then the columns that differ beyond the printed
    precision and why; ``csv`` puts Harris's printed values in columns of their own.
    """
    import csv
    import io

    heads = (
        ["window"]
        + [f"{h} ({u})" if u else h for _, h, u, _ in COLUMNS]
        + ["differs from Harris's printed value", "why"]
    )
    body = []
    for r in rows:
        printed = r["harris"]
        cells = [str(r["label"])]
        for c, _, u, _ in COLUMNS:
            scale = 100.0 if u == "%" else 1.0  # shown in Harris's units
            cell = _fmt(None if r[c] is None else scale * float(r[c]), u)  # type: ignore[arg-type]
            if printed is not None and fmt != "csv":
                value = printed[c]  # type: ignore[index]
                shown = _printed(None if value is None else scale * value, c, u)
                cell += f" ({shown or '—'})"
            cells.append(cell)
        cells += [str(r["harris_differs"]), str(r["harris_notes"])]
        body.append(cells)
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow([*heads, *[f"Harris {h}" for _, h, _, _ in COLUMNS]])
        for r, cells in zip(rows, body):
            printed = r["harris"]
            extra = [
                "" if printed is None or printed[c] is None else f"{(100.0 if u == '%' else 1.0) * printed[c]:g}"  # type: ignore[index]
                for c, _, u, _ in COLUMNS
            ]
            w.writerow([*cells, *extra])
        return out.getvalue()
    if fmt == "markdown":
        lines = [
            "| " + " | ".join(heads) + " |",
            "|" + "|".join(["---"] + ["---:"] * len(COLUMNS) + ["---", "---"]) + "|",
        ]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in body]
        return "\n".join(lines) + "\n"
    if fmt != "text":
        raise ValueError(f"format_table: fmt must be 'text', 'csv' or 'markdown', got {fmt!r}")
    short = [
        "window",
        "HSL dB",
        "fall-off dB/oct",
        "CG",
        "ENBW",
        "3dB BW",
        "SL dB",
        "WCPL dB",
        "6dB BW",
        "OC75 %",
        "OC50 %",
    ]
    widths = [max(len(short[i]), *(len(b[i]) for b in body)) for i in range(len(short))]
    lines = ["  ".join(h.ljust(widths[i]) if i == 0 else h.rjust(widths[i]) for i, h in enumerate(short))]
    notes = []
    for cells in body:
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells[:-2])))
        if cells[-2]:
            notes.append(f"  {cells[0]}: {cells[-1]}")
    lines[0:0] = ["ropelab's value (Harris's printed value)"]
    if notes:
        lines += ["", "Where Harris 1978, Table 1 as printed differs from these values (its own definitions):", *notes]
    return "\n".join(lines) + "\n"
