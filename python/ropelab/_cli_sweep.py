"""``ropelab sweep``: parameter grids from the command line (see :mod:`ropelab.sweep`)."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ropelab import rff, spectra
from ropelab._cli_common import FIGURE_SUFFIXES, Formatter, check_output_dir, check_output_file, dumps

__all__ = ["add_parser"]

#: Table formats of --out.
_TABLE_SUFFIXES = (".csv", ".parquet", ".json")

#: Columns printed to the terminal (the full table goes to --out).
_SHOWN = {
    "rff_mse": ["sigma_used", "analytic_mse", "empirical_mse", "stderr", "bias"],
    "window_merit": ["enbw_bins", "scalloping_loss_db", "highest_sidelobe_db", "first_min_bins", "leakage_factor"],
}


def _number_or_rule(text: str) -> float | str:
    try:
        return float(text)
    except ValueError:
        return text


@contextlib.contextmanager
def _backend(scheduler: str | None, timeout: float) -> Iterator[Any]:
    """``"local"`` without --scheduler; a Client of ADDRESS, or of a new LocalCluster for ``local``."""
    if scheduler is None:
        yield "local"
        return
    from ropelab.sweep._deps import require

    distributed = require("distributed", "--scheduler")
    if scheduler == "local":
        with (
            distributed.LocalCluster(
                n_workers=os.cpu_count() or 1, threads_per_worker=1, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(scheduler, timeout=timeout)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # refused, unreachable, timed out, or an address Dask cannot parse
        raise RuntimeError(
            f"--scheduler {scheduler!r}: cannot reach a Dask scheduler there within {timeout:g} s "
            f"({type(exc).__name__}: {exc})"
        ) from None
    with client:
        yield client


def _write_table(df: Any, path: Path, args: argparse.Namespace) -> None:
    if path.suffix.lower() == ".parquet":
        df.reset_index().to_parquet(path, index=False)
    elif path.suffix.lower() == ".json":
        # Python's float repr round-trips every double (pandas' to_json rounds); NaN/inf -> null
        records = [
            {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
            for r in df.reset_index().to_dict("records")
        ]
        records = json.loads(json.dumps(records, default=lambda o: o.item()))
        seeds = [args.seed] if df.attrs["task"] == "rff_mse" else []
        text = dumps(
            {"task": df.attrs["task"], "axes": list(df.attrs["axes"]), "rows": records},
            seeds=seeds,
            nthreads=args.nthreads,
        )
        path.write_text(text + "\n")
    else:
        df.to_csv(path)
    print(f"wrote {path}", file=sys.stderr)


def _plot(df: Any, path: Path, y: str | None) -> None:
    from ropelab import plot

    axes = [a for a in df.attrs["axes"] if df[a].nunique() > 1] or df.attrs["axes"]
    numeric = [a for a in axes if df[a].dtype.kind in "iuf"]
    with plot.detached():  # a file only: never touch pyplot or the user's backend
        if df.attrs["task"] == "rff_mse":
            # σ is plotted as the σ each cell used (the rules "paper"/"optimal" become numbers)
            order = [a for a in ("sigma", "xi", "D", "d") if a in axes] + numeric + ["sigma"]
            x = "sigma_used" if order[0] == "sigma" else order[0]
            fig = plot.sweep_lines(df, x, y or "empirical_mse", err="stderr", ref="analytic_mse", logy=True)
        else:
            fig = plot.sweep_lines(df, (numeric or axes)[0], y or "highest_sidelobe_db")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print(f"wrote {path}", file=sys.stderr)


def _cmd_sweep(args: argparse.Namespace) -> int:
    import pandas as pd

    from ropelab import sweep

    task = args.task.replace("-", "_")
    if args.out is not None:
        check_output_file("--out", args.out, _TABLE_SUFFIXES)
    if args.plot is not None:
        check_output_file("--plot", args.plot, FIGURE_SUFFIXES)
    if args.store is not None:
        check_output_dir("--store", args.store)
    if task == "rff_mse":
        grid: dict[str, Any] = {
            "xi": args.xi,
            "D": args.D,
            "sigma": [_number_or_rule(s) for s in args.sigma],
            "estimator": args.estimator,
            "convention": args.convention,
            "d": args.d,
            "mode": args.mode,
        }
        trials = args.trials
    else:
        grid = {"window": args.window, "N": args.N, "pad": args.pad, "sym": [args.sym]}
        for name in ("alpha", "beta", "attenuation"):
            if getattr(args, name) is not None:
                grid[name] = getattr(args, name)
        trials = None
    with _backend(args.scheduler, args.scheduler_timeout) as backend:
        df = sweep.run(
            task,
            grid,
            trials=trials,
            seed=args.seed,
            backend=backend,
            store=args.store,
            batch_size=args.batch_size,
            progress=not args.quiet,
            nthreads=args.nthreads,
        )
    varying = [a for a in df.attrs["axes"] if df[a].nunique() > 1]
    with pd.option_context("display.max_rows", 200, "display.width", 160):
        print(df[varying + _SHOWN[task]].to_string())
    if args.out is not None:
        _write_table(df, args.out, args)
    if args.plot is not None:
        _plot(df, args.plot, args.y)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=int, default=0, help="cell i uses the random numbers of (seed, i, trial)")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run on the Dask scheduler at ADDRESS (e.g. tcp://host:8786), or 'local' for a new "
        "LocalCluster of one single-threaded worker per core; default: this process",
    )
    p.add_argument(
        "--scheduler-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long to try to reach --scheduler ADDRESS",
    )
    p.add_argument(
        "--store",
        type=Path,
        metavar="PATH",
        default=None,
        help="Parquet store of finished cells; re-running the same sweep resumes it",
    )
    p.add_argument("--batch-size", type=int, default=None, metavar="N", help="cells per Dask task / per store write")
    p.add_argument(
        "--nthreads",
        type=int,
        default=None,
        help="threads of a local run (default: all cores; small cells run concurrently), or per cell on Dask (default 1)",
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the whole table (.csv, .parquet, or .json with provenance)",
    )
    p.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"plot the first swept axis against --y ({', '.join(FIGURE_SUFFIXES)})",
    )
    p.add_argument(
        "--y",
        default=None,
        metavar="COLUMN",
        help="column to plot (when not given: empirical_mse / highest_sidelobe_db)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_sweep)


def add_parser(sub: Any) -> None:
    """Add ``sweep rff-mse`` and ``sweep window-merit`` to the ``ropelab`` subcommands."""
    s = sub.add_parser(
        "sweep",
        help="parameter grids: MSE maps and window figures of merit (local or Dask)",
        description="Evaluate a function over the product of parameter grids, locally or on a Dask cluster, "
        "optionally resuming from a Parquet store of finished cells: rff-mse for the random-feature MSE, "
        "window-merit for the figures of merit of windows.",
        formatter_class=Formatter,
    )
    tasks = s.add_subparsers(dest="task", required=True)

    r = tasks.add_parser(
        "rff-mse",
        help="closed-form and Monte-Carlo MSE over a grid of xi, D, sigma, ...",
        description="The MSE of a random-feature estimate of exp(q.k) for unit-norm q, k with q.k = xi: the "
        "closed form and a Monte-Carlo estimate with its standard error, at every combination of the "
        "given xi, D, sigma, estimator, convention, d and mode. A sigma may be a number or a rule: paper "
        "(Theorem 1's tan rule), unbiased or optimal (the MSE-optimal sigma at that D).",
        formatter_class=Formatter,
    )
    r.add_argument("--xi", type=float, nargs="+", required=True, help="cosines q.k of the unit-norm pair")
    r.add_argument("--D", type=int, nargs="+", required=True, help="feature counts")
    r.add_argument("--sigma", nargs="+", default=["1.0"], help="temperatures, or the rules paper / unbiased / optimal")
    r.add_argument("--trials", type=int, required=True, help="Monte-Carlo estimates per cell")
    r.add_argument(
        "--estimator",
        nargs="+",
        default=["trig"],
        choices=list(rff.ESTIMATORS),
        help="random-feature estimators",
    )
    r.add_argument(
        "--convention",
        nargs="+",
        default=["conjugate"],
        choices=list(rff.CONVENTIONS),
        help="product of the features: with the conjugate (Eq. 8 corrected) or as printed",
    )
    r.add_argument("--d", type=int, nargs="+", default=[64], help="dimension of q and k")
    r.add_argument(
        "--mode",
        nargs="+",
        default=["projected"],
        choices=list(rff.MODES),
        help="draw only the projections onto span(q, k) (exact in law) or full d-dim frequencies",
    )
    _common(r)

    w = tasks.add_parser(
        "window-merit",
        help="figures of merit of windows / SSM decay windows over a grid",
        description="Figures of merit over a grid of windows. The SSM window is --window ssm with "
        "--alpha, the decay per sample (alpha*N is the decay over the window); --n is an alias of --N.",
        formatter_class=Formatter,
    )
    w.add_argument(
        "--window",
        nargs="+",
        required=True,
        choices=spectra.window_names(aliases=True),
        metavar="NAME",
        help="window names or aliases (ropelab.spectra.window_names(aliases=True)): "
        + ", ".join(spectra.window_names())
        + "; ssm is the SSM window",
    )
    w.add_argument("--N", "--n", dest="N", type=int, nargs="+", default=[64], help="window lengths (--n is an alias)")
    w.add_argument("--pad", type=int, nargs="+", default=[64], help="FFT padding factors")
    w.add_argument("--sym", action="store_true", help="symmetric windows instead of DFT-even")
    w.add_argument(
        "--alpha",
        type=float,
        nargs="+",
        default=None,
        help="ssm: the decay per sample (1/sample; the axis alpha); other windows: their parameter alpha",
    )
    w.add_argument("--beta", type=float, nargs="+", default=None, help="kaiser beta")
    w.add_argument("--attenuation", type=float, nargs="+", default=None, help="chebyshev attenuation (dB)")
    _common(w)
