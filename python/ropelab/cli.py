"""The ``ropelab`` command line.

Exit status: 0 on success (for ``verify``: every verdict as expected), 1 when ``verify`` finds an
unexpected verdict or a file cannot be written during the run, 2 for a bad option (reported in one
line naming it, before any computation), 130 on Ctrl-C and 141 when the reader of the output goes
away (``ropelab verify | head``); none of them prints a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ropelab._cli_common import FIGURE_SUFFIXES, Formatter, UsageError, check_output_dir, check_output_file, dumps
from ropelab._validation import check_output_size

__all__ = ["main", "build_parser"]


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
        print(dumps(out))
        return 0
    xi = c.xi
    print(f"Theorem 1 counterexample at xi = q.k = {xi:g} (unit norms, trig estimator, conjugate product)")
    print(f"  paper's rule   sigma = tan(arccos(xi)/2) = {c.sigma_paper:.15g}   (sigma^2 = {c.sigma_paper_sq:.15g})")
    print(f"  E[K] at paper's sigma  = exp(1 - sigma^2 (1 - xi)) = {c.mean_paper:.15g}")
    print(f"  target exp(xi)         = {c.target:.15g}")
    print(f"  relative bias          = {c.relative_bias_paper:+.6%}")
    print(f"  E[K] at sigma = 1      = {c.mean_sigma1:.15g}   (unbiased)")
    print("  diagnosis: the tan rule zeroes the bias of the literal (unconjugated) product:")
    print(
        f"    literal E[K] at paper's sigma = {c.mean_paper_literal:.15g} {'=' if literal_unbiased else '!='} exp(xi)"
    )
    print("  MSE-optimal sigma* (root of u^3 + (D-1)u - D e^(xi-1) = 0; Brent cross-check):")
    for D in Ds:
        print(f"    D = {D:>8d}   sigma* = {optima[D]:.10f}   brent = {brent[D]:.10f}")
    return 0


def _cmd_mse_curve(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ropelab import plot, temperature

    check_output_file("--out", args.out, FIGURE_SUFFIXES)
    # every option is checked before the progress bar appears
    for option, value in (("--trials", args.trials), ("--points", args.points), *(("--D", D) for D in args.D)):
        if value < 1:
            raise UsageError(f"{option} must be >= 1, got {value}")
    try:
        check_output_size("--points", float(args.points) * 4)  # sigmas and three curves of that length
    except MemoryError as exc:
        raise UsageError(str(exc)) from None
    if not 0 < args.sigma_min <= args.sigma_max:
        raise UsageError(
            f"--sigma-min and --sigma-max must satisfy 0 < min <= max, got {args.sigma_min:g}, {args.sigma_max:g}"
        )
    sigmas = np.linspace(args.sigma_min, args.sigma_max, args.points)
    for D in args.D:  # the closed form checks --xi and the grid at no cost
        temperature.mse(args.xi, D=D, sigma=sigmas)
    curves = []
    for D in tqdm(args.D, desc="mse-curve", unit="D", file=sys.stderr, disable=args.quiet):
        curves.append(temperature.mse_curve(args.xi, D, sigmas, trials=args.trials, seed=args.seed))
    with plot.detached():  # a file only: never touch pyplot or the user's backend
        fig = plot.mse_vs_sigma(curves)
    fig.savefig(args.out, dpi=120, bbox_inches="tight")
    print(f"wrote {args.out}")
    return 0


def _as_given(v: float) -> str:
    """A number as the user typed it: the shortest text that reads back as ``v`` (0.1, not 0.10000000000000001)."""
    short = f"{v:g}"
    return short if float(short) == v else repr(float(v))


def _parse_params(items: Sequence[str]) -> dict[str, float]:
    params: dict[str, float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--param must look like NAME=VALUE (e.g. beta=8.6), got {item!r}")
        try:
            params[name.strip()] = float(value)
        except ValueError:
            raise UsageError(f"--param {name}: value must be a number, got {value!r}") from None
    return params


#: Window parameters with an option of their own (the same options as ``sweep window-merit``).
_PARAM_OPTIONS = ("alpha", "beta", "attenuation")


def _leakage_params(args: argparse.Namespace) -> tuple[str, dict[str, float]]:
    """The window name and its parameters from the options."""
    window = args.window
    params = _parse_params(args.param)
    for name in _PARAM_OPTIONS:
        value = getattr(args, name)
        if value is not None:
            if name in params:
                raise UsageError(f"give either --{name.replace('_', '-')} or --param {name}=..., not both")
            params[name] = value
    return window, params


def _leakage_table(args: argparse.Namespace) -> int:
    """``ropelab leakage --table``: Harris 1978, Table 1 regenerated for every window."""
    from ropelab import _harris1978, spectra

    for opt in ("window", "alpha", "beta", "attenuation", "plot"):
        if getattr(args, opt) not in (None, []):
            raise UsageError(f"--table covers every window; --{opt.replace('_', '-')} does not apply")
    if args.param or args.sym:
        raise UsageError("--table covers every DFT-even window with Harris's parameters; --param/--sym do not apply")
    fmt = "json" if args.json else args.format
    N = 4096 if args.N is None else args.N
    if N < 64:
        raise UsageError(f"--N must be >= 64 for --table, got {N}")
    rows: list[dict[str, object]] = [
        {str(k): v for k, v in r.items()} for r in spectra.harris_table(N=N, pad=args.pad).to_dict("records")
    ]
    if fmt == "json":

        def clean(v: object) -> object:  # strict JSON: non-finite floats as strings (as in --json of one window)
            return str(v) if isinstance(v, float) and not np.isfinite(v) else v

        print(
            dumps(
                {
                    "N": N,
                    "pad": args.pad,
                    "source": "Harris 1978, Table 1 (printed values in 'harris')",
                    "rows": [{k: clean(v) for k, v in r.items()} for r in rows],
                }
            )
        )
    else:
        if fmt == "text":
            print(f"Figures of merit (Harris 1978 definitions), DFT-even windows, N = {N}; frequencies in bins")
        sys.stdout.write(_harris1978.format_table(rows, fmt))
    return 0


def _cmd_leakage(args: argparse.Namespace) -> int:
    from ropelab import spectra

    if args.table:
        return _leakage_table(args)
    if args.format != "text":
        raise UsageError("--format is for --table (use --json for one window)")
    if args.window is None or args.N is None:
        raise UsageError("--window and --N are required (or --table for every window)")
    if args.plot is not None:
        check_output_file("--plot", args.plot, FIGURE_SUFFIXES)
    window, params = _leakage_params(args)
    w = spectra.window(window, args.N, sym=args.sym, **params)
    m = spectra.figures_of_merit(w, pad=args.pad)
    if args.plot is not None:
        from ropelab import plot

        label = window + "".join(f", {k}={_as_given(v)}" for k, v in params.items())
        if spectra.window_info(window).name == "ssm" and "alpha" in params:
            label += f" (alpha*N = {_as_given(params['alpha'] * args.N)})"
        with plot.detached():
            fig = plot.spectrum_db({label: w}, pad=args.pad)
        fig.savefig(args.plot, dpi=120, bbox_inches="tight")
    if args.json:
        out = {"window": window, "N": args.N, "sym": args.sym, "params": params, "figures_of_merit": m.as_dict()}
        if args.plot is not None:
            out["plot"] = str(args.plot)
        print(dumps(out))
        return 0
    desc = window + "".join(f" {k}={_as_given(v)}" for k, v in params.items())
    print(
        f"Figures of merit of the {desc} window, N = {args.N} ({'symmetric' if args.sym else 'DFT-even'}; "
        f"frequencies in bins; Harris 1978 definitions)"
    )
    rows = [
        ("coherent gain", f"{m.coherent_gain:.4f}"),
        ("equivalent noise bandwidth", f"{m.enbw_bins:.4f} bins"),
        ("3-dB (half-power) bandwidth", f"{m.bandwidth_3db_bins:.4f} bins"),
        ("6-dB (half-amplitude) bandwidth", f"{m.bandwidth_6db_bins:.4f} bins"),
        ("scalloping loss", f"{m.scalloping_loss_db:.3f} dB"),
        ("worst-case processing loss", f"{m.worst_case_processing_loss_db:.3f} dB"),
        (
            "first minimum",
            f"{m.first_min_bins:.4f} bins at {m.first_min_db:.2f} dB "
            f"({'a true null' if m.first_min_is_null else 'a dip, not a null'})",
        ),
        ("highest sidelobe", f"{m.highest_sidelobe_db:.3f} dB at {m.highest_sidelobe_bins:.4f} bins"),
        (
            "sidelobe fall-off",
            "n/a (not measurable at this N)"
            if m.sidelobe_falloff_db_per_octave is None
            else f"{m.sidelobe_falloff_db_per_octave:.1f} dB/octave",
        ),
        (
            "overlap correlation 75% / 50%",
            f"{100 * m.overlap_correlation_75:.1f}% / {100 * m.overlap_correlation_50:.1f}%",
        ),
        ("leakage factor", f"{m.leakage_factor:.4g} (energy outside the main lobe)"),
    ]
    if m.truncation_ripple_db is not None:
        rows.append(
            ("truncation ripple vs N->inf", f"{m.truncation_ripple_db:.4g} dB peak-to-peak (r = {m.decay_ratio:.6g})")
        )
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"  {name:<{width}}  {value}")
    if args.plot is not None:
        print(f"wrote {args.plot}")
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    import shutil
    import time

    from tqdm import tqdm

    from ropelab import _latex, claims, report

    claims.load_plugins(args.plugin, entry_points=not args.no_entry_points)
    if args.list:
        for c in claims.REGISTRY.values():
            print(f"{c.id:28s} {c.expected:9s} {_latex.to_text(c.statement)}")
        return 0
    for option, path, suffixes in (
        ("--json", args.json, (".json",)),
        ("--markdown", args.markdown, (".md",)),
        ("--html", args.html, (".html", ".htm")),
    ):
        if path is not None:
            check_output_file(option, path, suffixes)
    fig_dir = args.figures
    if fig_dir is None and (args.html or args.markdown):
        fig_dir = (args.html or args.markdown).parent / "figures"
    if fig_dir is not None:
        check_output_dir("--figures", fig_dir)
    wanted = list(claims.REGISTRY) if args.only is None else args.only
    unknown = sorted(set(wanted) - set(claims.REGISTRY))
    if unknown:
        raise UsageError(f"--only: unknown claim id(s) {', '.join(unknown)}; `ropelab verify --list` shows them")

    t0 = time.perf_counter()
    with tqdm(total=len(wanted), desc="verify", unit="claim", file=sys.stderr, disable=args.quiet, leave=False) as bar:

        def progress(done: int, total: int, cid: str) -> None:
            bar.n = done
            bar.set_postfix_str(cid, refresh=True)

        results = claims.run(wanted, progress=progress)
    seconds = time.perf_counter() - t0
    prov = report.claim_provenance(results)
    figures: dict[str, Path] = {}
    if fig_dir is not None:
        figures = report.render_figures(results, fig_dir)
    color = sys.stdout.isatty() and not args.no_color and os.environ.get("NO_COLOR") is None
    print(report.terminal(results, color=color, width=max(100, shutil.get_terminal_size((120, 24)).columns)))
    print()
    if args.json:
        _write(args.json, report.to_json(results, seconds, provenance=prov))
    if args.markdown:
        _write(
            args.markdown,
            report.to_markdown(results, figures, relative_to=args.markdown.parent, seconds=seconds, provenance=prov),
        )
    if args.html:
        _write(args.html, report.to_html(results, figures, seconds=seconds, provenance=prov))
    sys.stderr.flush()
    print(report.summary_line(results, seconds), flush=True)
    return 0 if all(r.matches for r in results) else 1


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``ropelab`` command (all subcommands).

    Returns
    -------
    argparse.ArgumentParser
        The parser; every option has a help text, and non-trivial defaults are shown by ``--help``.
    """
    from ropelab import spectra

    p = argparse.ArgumentParser(
        prog="ropelab",
        description="Checks of the mathematics of Selective RoPE and RoPE.",
        epilog="Exit status: 0 success, 1 unexpected verdict or write failure, 2 bad option, "
        "130 interrupted (Ctrl-C), 141 output pipe closed.",
        formatter_class=Formatter,
    )
    p.add_argument("--version", action="version", version=_version(), help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    v = sub.add_parser(
        "verify",
        help="evaluate every claim of the paper and report the verdicts",
        description="Evaluate the claims and report each verdict with its evidence; exit status 1 "
        "if a verdict differs from the expected one.",
        formatter_class=Formatter,
    )
    v.add_argument("--only", nargs="+", metavar="ID", help="check only these claim ids (see --list)")
    v.add_argument("--list", action="store_true", help="list the claim ids with their expected verdicts and exit")
    v.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE, which registers claims of its own with ropelab.claims.claim (repeatable)",
    )
    v.add_argument(
        "--no-entry-points",
        action="store_true",
        help="do not import the installed plugins of the entry-point group ropelab.claims",
    )
    v.add_argument("--json", type=Path, metavar="PATH", help="write the machine-readable report (.json)")
    v.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown report (.md)")
    v.add_argument(
        "--html", type=Path, metavar="PATH", help="write a self-contained HTML report (.html, figures embedded)"
    )
    v.add_argument(
        "--figures",
        type=Path,
        metavar="DIR",
        help="write figures here (when not given: figures/ beside the HTML or Markdown report)",
    )
    v.add_argument("--no-color", action="store_true", help="never colour the verdicts (also: NO_COLOR set)")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=_cmd_verify)

    c = sub.add_parser(
        "counterexample",
        help="Theorem 1's temperature counterexample and the correct optimum",
        description="The paper's temperature rule against sigma = 1 and the MSE-optimal sigma*(D).",
        formatter_class=Formatter,
    )
    c.add_argument("--xi", type=float, default=0.5, help="cosine q.k of the unit-norm pair, in (-1, 1]")
    c.add_argument("--json", action="store_true", help="print JSON (with provenance) instead of text")
    c.set_defaults(func=_cmd_counterexample)

    m = sub.add_parser(
        "mse-curve",
        help="plot MSE vs sigma: closed form and Monte Carlo",
        description="Plot the MSE of the trig estimator against sigma: the closed form and a "
        "seeded Monte-Carlo estimate with standard errors.",
        formatter_class=Formatter,
    )
    m.add_argument("--xi", type=float, default=0.5, help="cosine q.k of the unit-norm pair")
    m.add_argument("--D", type=int, nargs="+", default=[1, 16, 256], help="feature counts")
    m.add_argument("--trials", type=int, default=4000, help="Monte-Carlo estimates per sigma")
    m.add_argument("--seed", type=int, default=0, help="seed of the counter-based random streams")
    m.add_argument("--sigma-min", type=float, default=0.05, help="smallest sigma of the Monte-Carlo grid")
    m.add_argument("--sigma-max", type=float, default=1.6, help="largest sigma of the Monte-Carlo grid")
    m.add_argument("--points", type=int, default=32, help="number of Monte-Carlo sigmas")
    m.add_argument(
        "--out",
        type=Path,
        default=Path("report/mse_curve.png"),
        metavar="FILE",
        help=f"figure file ({', '.join(FIGURE_SUFFIXES)})",
    )
    m.add_argument("--quiet", action="store_true", help="no progress bar")
    m.set_defaults(func=_cmd_mse_curve)

    lk = sub.add_parser(
        "leakage",
        help="figures of merit (Harris 1978) of a window or SSM decay window",
        description="Figures of merit (Harris 1978) of a window, or with --table of every "
        "window (Harris's Table 1 regenerated). The SSM's causal exponential "
        "window is --window ssm with --alpha, the decay per sample (alpha*N is the decay over the "
        "window); --window exponential is scipy's centred exponential (--param tau=...). "
        "--n is an alias of --N; --param NAME=VALUE sets any window parameter.",
        formatter_class=Formatter,
    )
    lk.add_argument(
        "--window",
        default=None,
        choices=spectra.window_names(aliases=True),
        metavar="NAME",
        help="window name or alias (ropelab.spectra.window_names(aliases=True)): "
        + ", ".join(spectra.window_names())
        + "; ssm is the SSM window",
    )
    lk.add_argument(
        "--N",
        "--n",
        dest="N",
        type=int,
        default=None,
        help="window length N (--n is an alias); required unless --table (default there: 4096)",
    )
    lk.add_argument(
        "--table",
        action="store_true",
        help="print a Harris 1978 Table 1 style table of every window instead, with Harris's printed "
        "values where they differ",
    )
    lk.add_argument(
        "--format",
        choices=("text", "csv", "json", "markdown"),
        default="text",
        help="output format of --table (--json is the same as --format json)",
    )
    lk.add_argument(
        "--alpha",
        type=float,
        default=None,
        help="ssm: the decay per sample (1/sample; alpha*N is the decay over the window); other windows: "
        "their parameter alpha (ropelab.spectra.window_info)",
    )
    lk.add_argument("--beta", type=float, default=None, help="kaiser parameter beta")
    lk.add_argument("--attenuation", type=float, default=None, help="chebyshev sidelobe attenuation (dB)")
    lk.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any window parameter by name, e.g. beta=8.6 (repeatable)",
    )
    lk.add_argument("--sym", action="store_true", help="symmetric window instead of DFT-even")
    lk.add_argument("--pad", type=int, default=64, help="FFT padding factor used to locate peaks")
    lk.add_argument("--json", action="store_true", help="print JSON (with provenance) instead of text")
    lk.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"also plot the spectrum in dB to this file ({', '.join(FIGURE_SUFFIXES)})",
    )
    lk.set_defaults(func=_cmd_leakage)

    from ropelab._cli_sweep import add_parser as add_sweep_parser

    add_sweep_parser(sub)
    return p


def _version() -> str:
    from ropelab._core_loader import core

    return f"ropelab {core.__version__}"


def _stdout_gone() -> None:
    """The reader closed the pipe: point stdout at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (e.g. captured)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ropelab`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status: 0 success; 1 an unexpected verdict (``verify``) or an output that could
        not be written during the run; 2 a bad option or argument (one line on stderr naming it,
        before any computation); 130 interrupted by Ctrl-C; 141 the output pipe was closed.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    name = f"ropelab {args.command}"
    try:
        status = int(args.func(args))
        sys.stdout.flush()
        return status
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _stdout_gone()
        return 141
    except (ValueError, TypeError, ImportError, RuntimeError) as exc:  # UsageError included
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except MemoryError as exc:  # a size no option check caught: one line, no traceback
        print(f"{name}: error: out of memory ({exc or 'an option asks for too large a computation'})", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{name}: error: {_with_option(exc, args, parser)}", file=sys.stderr)
        return 1


def _with_option(exc: OSError, args: argparse.Namespace, parser: argparse.ArgumentParser) -> str:
    """The error, led by the option whose path it concerns (``--store PATH: ...``).

    The option is the one whose value is the file the error names, or a folder above it; when the
    error names no file (e.g. a full disk), every path option given is listed.
    """
    actions: list[argparse.Action] = []
    node: argparse.ArgumentParser | None = parser
    while node is not None:  # the command's parser, and the sub-command's (``sweep rff-mse``)
        actions += node._actions
        sub = [a for a in node._actions if isinstance(a, argparse._SubParsersAction)]
        node = sub[0].choices.get(getattr(args, sub[0].dest, None) or "") if sub else None
    given: list[tuple[str, Path]] = []
    for action in actions:
        if not action.option_strings or action.dest in ("help",):
            continue
        value = getattr(args, action.dest, None)
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, (str, Path)) and isinstance(action.type, type) and issubclass(action.type, Path):
                given.append((action.option_strings[-1], Path(v)))
    for name in (exc.filename, exc.filename2):
        if name is None:
            continue
        try:
            target = Path(os.fsdecode(name))
        except (TypeError, ValueError):
            continue
        for option, path in given:
            if target == path or path in target.parents:
                return f"{option} {path}: {exc.strerror or exc}"
    if given:
        return f"{exc} (while using {', '.join(f'{o} {p}' for o, p in given)})"
    return str(exc)
