"""The machine's bound for a Monte-Carlo feature: throughput of ropelab's primitives.

A projected trig feature costs at least one standard normal and one cosine. This prints, for
ropelab's primitives (rl.simd.primitive_rate: vectorised Philox4x32 + ziggurat normals, SLEEF u10
cos/exp) and for NumPy's (Generator.standard_normal, np.cos, np.exp, single-threaded):
values/s on one core and on all cores, the ratio ropelab/NumPy, the resulting bound in
features/s (1 / (1/normals + 1/cos)), and the projected-mode estimate's fraction of that bound.
Times are the best of --repeat runs (the machine is shared). ``--all-paths`` repeats the table
for every SIMD path (scalar, avx2, avx512). Not a test: ``python benchmarks/bench_limit.py``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import best_of, header

import ropelab as rl


def numpy_rates(n: int, repeat: int) -> dict[str, float]:
    rng = np.random.default_rng(1)
    x = np.sin(0.7 * np.arange(n)) * 3.0
    out = np.empty(n)
    return {
        "normal": n / best_of(lambda: rng.standard_normal(out=out), repeat),
        "uniform": n / best_of(lambda: rng.random(out=out), repeat),
        "cos": n / best_of(lambda: np.cos(x, out=out), repeat),
        "exp": n / best_of(lambda: np.exp(x, out=out), repeat),
    }


def table(n: int, repeat: int, np_rates: dict[str, float]) -> None:
    cores = os.cpu_count() or 1
    print(f"path {rl.simd.isa()}:")
    print(
        f"  {'primitive':10s} {'numpy /s':>11s} {'rl 1 core':>11s} {'rl all':>11s} {'ratio 1':>8s} {'ratio all':>9s} {'speedup':>7s}"
    )
    r1, ra = {}, {}
    for kind in ("normal", "uniform", "cos", "exp"):
        r1[kind] = rl.simd.primitive_rate(kind, n=n, nthreads=1, repeat=repeat)  # type: ignore[arg-type]
        ra[kind] = rl.simd.primitive_rate(kind, n=n, nthreads=None, repeat=repeat)  # type: ignore[arg-type]
        print(
            f"  {kind:10s} {np_rates[kind]:11.3e} {r1[kind]:11.3e} {ra[kind]:11.3e} "
            f"{r1[kind] / np_rates[kind]:8.2f} {ra[kind] / np_rates[kind]:9.2f} {ra[kind] / r1[kind]:7.2f}"
        )
    b_np = 1 / (1 / np_rates["normal"] + 1 / np_rates["cos"])
    b1 = 1 / (1 / r1["normal"] + 1 / r1["cos"])
    ba = 1 / (1 / ra["normal"] + 1 / ra["cos"])
    print(
        f"  {'bound':10s} {b_np:11.3e} {b1:11.3e} {ba:11.3e} {b1 / b_np:8.2f} {ba / b_np:9.2f} {ba / b1:7.2f}"
        "   (features/s: one normal + one cos)"
    )
    print(f"  ns per normal: {1e9 / r1['normal']:.2f} (1 core), per cos: {1e9 / r1['cos']:.2f}")
    q, k = np.random.default_rng(0).standard_normal((2, 64)) / 8
    D, trials = 256, max(1000, n // 256)
    for nt, bound, label in ((1, b1, "1 core"), (None, ba, f"all {cores} cores")):
        t = best_of(lambda: rl.rff.estimate(q, k, D, 1.0, trials=trials, seed=1, nthreads=nt), repeat)
        rate = D * trials / t
        print(f"  projected trig estimate, {label}: {rate:.3e} features/s = {rate / bound:.0%} of the bound")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=2**24, help="values per measurement (default 2^24)")
    ap.add_argument("--repeat", type=int, default=5, help="best of this many runs (default 5)")
    ap.add_argument("--all-paths", action="store_true", help="every SIMD path, not only the active one")
    args = ap.parse_args()
    print(header())
    np_rates = numpy_rates(args.n, max(2, args.repeat // 2))
    paths = rl.simd.available() if args.all_paths else [rl.simd.isa()]
    for p in paths:
        with rl.simd.using(p):  # type: ignore[arg-type]
            table(args.n, args.repeat, np_rates)


if __name__ == "__main__":
    main()
