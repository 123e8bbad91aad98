"""The ``ropelab`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

__all__ = ["main"]


def _cmd_counterexample(args: argparse.Namespace) -> int:
    from ropelab import temperature

    c = temperature.counterexample(args.xi)
    Ds = (1, 4, 16, 64, 256, 1024, 65536, 10**6)
    optima = c.optimal_sigmas(Ds)
    brent = {D: float(temperature.optimal_sigma(args.xi, D, method="brent")) for D in Ds}
    literal_unbiased = bool(np.isclose(c.mean_paper_literal, c.target, rtol=1e-12, atol=0))
    conjugate_unbiased = bool(np.isclose(c.mean_paper, c.target, rtol=1e-12, atol=0))
    if args.json:
        out = c.as_dict() | {
            "relative_bias_paper": c.relative_bias_paper,
            "optimal_sigma": {str(D): s for D, s in optima.items()},
            "optimal_sigma_brent": {str(D): s for D, s in brent.items()},
            "paper_rule_unbiased_for": [
                name for name, ok in (("conjugate", conjugate_unbiased), ("literal", literal_unbiased)) if ok
            ],
        }
        print(json.dumps(out, indent=2))
        return 0
    xi = c.xi
    print(f"Theorem 1 counterexample at xi = q.k = {xi:g} (unit norms, trig estimator, conjugate product)")
    print(f"  paper's rule   sigma = tan(arccos(xi)/2) = {c.sigma_paper:.15g}   (sigma^2 = {c.sigma_paper_sq:.15g})")
    print(f"  E[K] at paper's sigma  = exp(1 - sigma^2 (1 - xi)) = {c.mean_paper:.15g}")
    print(f"  target exp(xi)         = {c.target:.15g}")
    print(f"  relative bias          = {c.relative_bias_paper:+.6%}")
    print(f"  E[K] at sigma = 1      = {c.mean_sigma1:.15g}   (unbiased)")
    print("  diagnosis: the tan rule zeroes the bias of the literal (unconjugated) product:")
    print(f"    literal E[K] at paper's sigma = {c.mean_paper_literal:.15g} "
          f"{'=' if literal_unbiased else '!='} exp(xi)")
    print("  MSE-optimal sigma* (root of u^3 + (D-1)u - D e^(xi-1) = 0; Brent cross-check):")
    for D in Ds:
        print(f"    D = {D:>8d}   sigma* = {optima[D]:.10f}   brent = {brent[D]:.10f}")
    return 0


def _cmd_mse_curve(args: argparse.Namespace) -> int:
    from ropelab import plot, temperature

    sigmas = np.linspace(args.sigma_min, args.sigma_max, args.points)
    curves = []
    for D in args.D:
        print(f"mse-curve: D = {D}, {args.trials} trials x {len(sigmas)} sigmas ...", file=sys.stderr, flush=True)
        curves.append(temperature.mse_curve(args.xi, D, sigmas, args.trials, seed=args.seed))
    fig = plot.mse_vs_sigma(curves)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}")
    return 0


def _parse_params(items: Sequence[str]) -> dict[str, float]:
    params: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--param must look like NAME=VALUE (e.g. beta=8.6), got {item!r}")
        try:
            params[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"--param {name}: value must be a number, got {value!r}") from None
    return params


def _cmd_leakage(args: argparse.Namespace) -> int:
    from ropelab import spectra

    params = _parse_params(args.param)
    if args.alpha_n is not None:
        if args.window != "exponential":
            raise ValueError(f"--alpha-n is only for --window exponential (the SSM window), got --window {args.window}")
        if "alpha" in params:
            raise ValueError("give either --alpha-n or --param alpha=..., not both")
        if args.n < 1:
            raise ValueError(f"--n must be >= 1, got {args.n}")
        params["alpha"] = args.alpha_n / args.n
    w = spectra.window(args.window, args.n, sym=args.sym, **params)
    m = spectra.figures_of_merit(w, pad=args.pad)
    if args.plot is not None:
        from ropelab import plot

        label = args.window + "".join(f", {k}={v:g}" for k, v in params.items())
        fig = plot.spectrum_db({label: w}, pad=args.pad)
        args.plot.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(args.plot, dpi=120, bbox_inches="tight")
    if args.json:
        out = {"window": args.window, "N": args.n, "sym": args.sym, "params": params,
               "figures_of_merit": m.as_dict()}
        if args.plot is not None:
            out["plot"] = str(args.plot)
        print(json.dumps(out, indent=2))
        return 0
    desc = args.window + "".join(f" {k}={v:g}" for k, v in params.items())
    print(f"Figures of merit of the {desc} window, N = {args.n} ({'symmetric' if args.sym else 'DFT-even'}; "
          f"frequencies in bins; Harris 1978 definitions)")
    rows = [
        ("coherent gain", f"{m.coherent_gain:.4f}"),
        ("equivalent noise bandwidth", f"{m.enbw_bins:.4f} bins"),
        ("3-dB (half-power) bandwidth", f"{m.bandwidth_3db_bins:.4f} bins"),
        ("6-dB (half-amplitude) bandwidth", f"{m.bandwidth_6db_bins:.4f} bins"),
        ("scalloping loss", f"{m.scalloping_loss_db:.3f} dB"),
        ("worst-case processing loss", f"{m.worst_case_processing_loss_db:.3f} dB"),
        ("first minimum", f"{m.first_min_bins:.4f} bins at {m.first_min_db:.2f} dB "
                          f"({'a true null' if m.first_min_is_null else 'a dip, not a null'})"),
        ("highest sidelobe", f"{m.highest_sidelobe_db:.3f} dB at {m.highest_sidelobe_bins:.4f} bins"),
        ("sidelobe fall-off", f"{m.sidelobe_falloff_db_per_octave:.1f} dB/octave"),
        ("overlap correlation 75% / 50%", f"{100 * m.overlap_correlation_75:.1f}% / {100 * m.overlap_correlation_50:.1f}%"),
        ("leakage factor", f"{m.leakage_factor:.4g} (energy outside the main lobe)"),
    ]
    if m.truncation_ripple_db is not None:
        rows.append(("truncation ripple vs N->inf", f"{m.truncation_ripple_db:.4g} dB peak-to-peak (r = {m.decay_ratio:.6g})"))
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    if args.plot is not None:
        print(f"wrote {args.plot}")
    return 0


def _progress(stream: TextIO) -> Callable[[int, int, str], None]:
    interactive = stream.isatty()

    def show(done: int, total: int, cid: str) -> None:
        if interactive:
            msg = f"\r[{done:2d}/{total}] {cid:40s}" if cid else f"\r[{done}/{total}] done" + " " * 40 + "\n"
            stream.write(msg)
        elif cid:
            stream.write(f"[{done + 1:2d}/{total}] {cid}\n")
        stream.flush()

    return show


def _cmd_verify(args: argparse.Namespace) -> int:
    import time

    from ropelab import claims, report

    t0 = time.perf_counter()
    results = claims.run(args.only, progress=None if args.quiet else _progress(sys.stderr))
    seconds = time.perf_counter() - t0
    figures: dict[str, Path] = {}
    fig_dir = args.figures
    if fig_dir is None and (args.html or args.markdown):
        base = args.html or args.markdown
        fig_dir = base.parent / "figures"
    if fig_dir is not None:
        figures = report.render_figures(results, fig_dir)
    color = sys.stdout.isatty() and not args.no_color and os.environ.get("NO_COLOR") is None
    import shutil

    print(report.terminal(results, color=color, width=max(100, shutil.get_terminal_size((120, 24)).columns)))
    print()
    if args.json:
        _write(args.json, report.to_json(results, seconds))
    if args.markdown:
        _write(args.markdown, report.to_markdown(results, figures, relative_to=args.markdown.parent, seconds=seconds))
    if args.html:
        _write(args.html, report.to_html(results, figures, seconds=seconds))
    sys.stderr.flush()
    print(report.summary_line(results, seconds), flush=True)
    return 0 if all(r.matches for r in results) else 1


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="ropelab", description="Checks of the mathematics of Selective RoPE and RoPE.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("verify", help="evaluate every claim of the paper and report the verdicts")
    v.add_argument("--only", nargs="+", metavar="ID", help="check only these claim ids")
    v.add_argument("--json", type=Path, metavar="PATH", help="write the machine-readable report")
    v.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown report")
    v.add_argument("--html", type=Path, metavar="PATH", help="write a self-contained HTML report (figures embedded)")
    v.add_argument("--figures", type=Path, metavar="DIR",
                   help="write figures here (default: figures/ beside the HTML or Markdown report)")
    v.add_argument("--no-color", action="store_true", help="never colour the verdicts")
    v.add_argument("--quiet", action="store_true", help="no progress indicator")
    v.set_defaults(func=_cmd_verify)

    c = sub.add_parser("counterexample", help="Theorem 1's temperature counterexample and the correct optimum")
    c.add_argument("--xi", type=float, default=0.5, help="cosine q.k of the unit-norm pair (default 0.5)")
    c.add_argument("--json", action="store_true", help="print JSON instead of text")
    c.set_defaults(func=_cmd_counterexample)

    m = sub.add_parser("mse-curve", help="plot MSE vs sigma: closed form and Monte Carlo")
    m.add_argument("--xi", type=float, default=0.5)
    m.add_argument("--D", type=int, nargs="+", default=[1, 16, 256], help="feature counts (default 1 16 256)")
    m.add_argument("--trials", type=int, default=4000)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--sigma-min", type=float, default=0.05)
    m.add_argument("--sigma-max", type=float, default=1.6)
    m.add_argument("--points", type=int, default=32)
    m.add_argument("--out", type=Path, default=Path("report/mse_curve.png"))
    m.set_defaults(func=_cmd_mse_curve)

    lk = sub.add_parser("leakage", help="figures of merit (Harris 1978) of a window or SSM decay window")
    lk.add_argument("--window", required=True, help="window name, e.g. hann, kaiser, exponential (the SSM window)")
    lk.add_argument("--n", type=int, required=True, help="window length N")
    lk.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="window parameter, e.g. beta=8.6, alpha=0.002, attenuation=60 (repeatable)")
    lk.add_argument("--alpha-n", type=float, default=None, metavar="AN",
                    help="for --window exponential: the decay over the window, alpha*N (sets alpha = AN/N)")
    lk.add_argument("--sym", action="store_true", help="symmetric window instead of DFT-even")
    lk.add_argument("--pad", type=int, default=64, help="FFT padding factor used to locate peaks (default 64)")
    lk.add_argument("--json", action="store_true", help="print JSON instead of text")
    lk.add_argument("--plot", type=Path, default=None, help="also plot the spectrum in dB to this file")
    lk.set_defaults(func=_cmd_leakage)

    from ropelab._cli_sweep import add_parser as add_sweep_parser

    add_sweep_parser(sub)
    return p


def _version() -> str:
    from ropelab import __version__

    return f"ropelab {__version__}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ropelab`` command line (the ``ropelab`` console script calls it).

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the program name; ``None`` means ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 1 when ``verify`` finds a verdict other than the expected
        one, 2 for invalid input (reported on stderr as one line). Invalid options and ``--help``
        exit through argparse (``SystemExit``).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, ImportError, RuntimeError) as exc:
        print(f"ropelab {args.command}: error: {exc}", file=sys.stderr)
        return 2
