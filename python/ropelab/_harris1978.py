"""Harris (1978), Table 1, as printed: the reference rows of :func:`ropelab.spectra.harris_table`.

F. J. Harris, "On the use of windows for harmonic analysis with the discrete Fourier transform",
Proc. IEEE 66(1), 51–83, 1978, Table 1 ("Windows and figures of merit"). Each row maps a window
of :func:`ropelab.spectra.window` with Harris's parameter to the ten printed columns, in the
order of :data:`COLUMNS`. Harris's parameters in ropelab's names: Kaiser–Bessel α is ``beta/π``;
Dolph–Chebyshev α is ``attenuation/20`` (dB); Gaussian and Poisson α are ``alpha``.

Verification status: the printed values below are transcriptions that have not been checked
against a copy of the paper's Table 1 within this project. Rows whose printed values could not be
traced to a transcription are not included (Gaussian α = 2.5, 3.0, 3.5; Poisson α = 2, 3, 4;
Dolph–Chebyshev α = 2.5, 3.0, 3.5, 4.0; exact Blackman): :func:`ropelab.spectra.harris_table`
lists those windows, with Harris's parameter values, with computed figures only.
"""

from __future__ import annotations

from typing import NamedTuple

#: (figure-of-merit field, Harris's column heading, unit, half a unit of the printed last digit)
COLUMNS: tuple[tuple[str, str, str, float], ...] = (
    ("highest_sidelobe_db", "highest sidelobe", "dB", 0.5),
    ("sidelobe_falloff_db_per_octave", "sidelobe fall-off", "dB/octave", 1.0),
    ("coherent_gain", "coherent gain", "", 0.005),
    ("enbw_bins", "ENBW", "bins", 0.005),
    ("bandwidth_3db_bins", "3.0-dB BW", "bins", 0.005),
    ("scalloping_loss_db", "scalloping loss", "dB", 0.005),
    ("worst_case_processing_loss_db", "worst-case processing loss", "dB", 0.005),
    ("bandwidth_6db_bins", "6.0-dB BW", "bins", 0.005),
    ("overlap_correlation_75_percent", "overlap correlation 75%", "%", 0.05),
    ("overlap_correlation_50_percent", "overlap correlation 50%", "%", 0.05),
)


class HarrisRow(NamedTuple):
    """One printed row: the window, its parameters, Harris's label and the ten printed values."""

    window: str
    params: dict[str, float]
    label: str
    printed: tuple[float, ...]


_PI = 3.141592653589793

#: The rows of Harris 1978, Table 1 with a ropelab window (the fall-off column is Harris's
#: nominal asymptotic slope). Not checked against a copy of the paper (see the module docstring).
ROWS: tuple[HarrisRow, ...] = (
    HarrisRow("rectangular", {}, "Rectangle", (-13, -6, 1.00, 1.00, 0.89, 3.92, 3.92, 1.21, 75.0, 50.0)),
    HarrisRow("triangular", {}, "Triangle", (-27, -12, 0.50, 1.33, 1.28, 1.82, 3.07, 1.78, 71.9, 25.0)),
    HarrisRow("hann", {}, "cos^2 (Hanning)", (-32, -18, 0.50, 1.50, 1.44, 1.42, 3.18, 2.00, 65.9, 16.7)),
    HarrisRow("hamming", {}, "Hamming", (-43, -6, 0.54, 1.36, 1.30, 1.78, 3.10, 1.81, 70.7, 23.5)),
    HarrisRow(
        "kaiser",
        {"beta": 2.0 * _PI},
        "Kaiser–Bessel α = 2.0",
        (-46, -6, 0.49, 1.50, 1.43, 1.46, 3.20, 1.99, 65.7, 16.9),
    ),
    HarrisRow(
        "kaiser",
        {"beta": 2.5 * _PI},
        "Kaiser–Bessel α = 2.5",
        (-57, -6, 0.44, 1.65, 1.57, 1.20, 3.38, 2.20, 59.5, 11.2),
    ),
    HarrisRow(
        "kaiser", {"beta": 3.0 * _PI}, "Kaiser–Bessel α = 3.0", (-69, -6, 0.40, 1.80, 1.71, 1.02, 3.56, 2.39, 53.9, 7.4)
    ),
    HarrisRow(
        "kaiser", {"beta": 3.5 * _PI}, "Kaiser–Bessel α = 3.5", (-82, -6, 0.37, 1.93, 1.83, 0.89, 3.74, 2.57, 48.8, 4.8)
    ),
    HarrisRow("blackman", {}, "Blackman", (-58, -18, 0.42, 1.73, 1.68, 1.10, 3.47, 2.35, 56.7, 9.0)),
    HarrisRow(
        "blackman_harris_3",
        {},
        "Minimum 3-term Blackman–Harris",
        (-67, -6, 0.42, 1.71, 1.66, 1.13, 3.45, 2.30, 57.2, 9.6),
    ),
    HarrisRow(
        "blackman_harris_4",
        {},
        "Minimum 4-term Blackman–Harris",
        (-92, -6, 0.36, 2.00, 1.90, 0.83, 3.85, 2.72, 46.0, 3.8),
    ),
)

#: Why a printed entry is not what its own definition gives (beyond the printed precision), where
#: the reason is known (key (label, "*"): the whole row); other differences are listed by
#: :func:`ropelab.spectra.harris_table` without an explanation.
ERRATA: dict[tuple[str, str], str] = {
    ("Hamming", "scalloping_loss_db"): "misprint: the cosine-sum closed form gives 1.75 dB, and Harris's own "
    "worst-case loss 3.10 = 1.75 + 10 log10 1.36",
    ("cos^2 (Hanning)", "highest_sidelobe_db"): "rounded: −31.47 dB",
    (
        "Minimum 3-term Blackman–Harris",
        "highest_sidelobe_db",
    ): "the coefficients give −70.83 dB (Nuttall 1981, IEEE Trans. ASSP 29(1))",
    ("Kaiser–Bessel α = 2.5", "highest_sidelobe_db"): "an integer read off a plot",
    ("Kaiser–Bessel α = 3.0", "highest_sidelobe_db"): "an integer read off a plot",
}


def _fmt(value: float, unit: str) -> str:
    if value != value:  # nan
        return "—"
    if value in (float("inf"), float("-inf")):
        return "−∞" if value < 0 else "∞"
    if unit == "dB/octave":
        return f"{value:.1f}"
    return f"{value:.1f}" if unit == "%" else f"{value:.2f}"


def format_table(rows: list[dict[str, object]], fmt: str) -> str:
    """Renders :func:`ropelab.spectra.harris_table` rows as ``text``, ``csv`` or ``markdown``."""
    import csv
    import io

    heads = ["window"] + [f"{h} ({u})" if u else h for _, h, u, _ in COLUMNS] + ["differs from Harris's printed value"]
    body = []
    for r in rows:
        cells = [str(r["label"])] + [_fmt(float(r[c]), u) for c, _, u, _ in COLUMNS]  # type: ignore[arg-type]
        cells.append(str(r["harris_differs"]))
        body.append(cells)
    if fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow([*heads, *[f"Harris {h}" for _, h, _, _ in COLUMNS]])
        for r, cells in zip(rows, body):
            printed = r["harris"]
            extra = ["" if printed is None else f"{printed[c]:g}" for c, _, _, _ in COLUMNS]  # type: ignore[index]
            w.writerow([*cells, *extra])
        return out.getvalue()
    if fmt == "markdown":
        lines = ["| " + " | ".join(heads) + " |", "|" + "|".join(["---"] + ["---:"] * len(COLUMNS) + ["---"]) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "/") for c in cells) + " |" for cells in body]
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
        lines.append("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells[:-1])))
        if cells[-1]:
            notes.append(f"  {cells[0]}: {cells[-1]}")
    if notes:
        lines += ["", "Where Harris 1978, Table 1 as printed differs from these values (its own definitions):", *notes]
    return "\n".join(lines) + "\n"
