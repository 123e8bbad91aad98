"""Bit-level fingerprint of the compiled core's results, to compare two builds.

`make test-wheel` writes the fingerprint of the source build in ``.venv`` (``python
tests/fingerprint.py OUT.json``) and ``tests/test_installed.py`` compares the installed wheel's
against it: the portable wheel (static libstdc++, older glibc symbol versions, bundled FFTW and
SLEEF) must give the very same bits. Each entry is the SHA-256 of the raw bytes of one result that
goes through the C++ core: Philox streams and the Monte-Carlo kernels on every available SIMD
path (SLEEF), Boost.Math root finding, FFTW spectra, Eigen linear algebra, the recurrences.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np


def _digest(x: object) -> str:
    a = np.ascontiguousarray(np.asarray(x))
    return hashlib.sha256(str(a.dtype).encode() + str(a.shape).encode() + a.tobytes()).hexdigest()


def fingerprint() -> dict[str, str]:
    """Return ``{name: sha256}`` of a fixed set of results of the compiled core."""
    import ropelab as rl

    rng = np.random.default_rng(12345)  # inputs only; every random number below is Philox's
    q = rng.standard_normal(16) * 0.3
    k = rng.standard_normal(16) * 0.3
    T, d = 24, 8
    Q, K, V = (rng.standard_normal((T, d)) * 0.5 for _ in range(3))
    angles = rng.standard_normal((T, d // 2)) * 0.2
    A = rng.standard_normal((6, 6))

    cases: dict[str, Callable[[], object]] = {
        "rff.sample_omega": lambda: rl.rff.sample_omega(64, 16, sigma=0.9, seed=7),
        "rff.mse": lambda: rl.rff.mse(q, k, D=64, sigma=np.linspace(0.2, 2.0, 9)),
        "temperature.optimal_sigma.brent": lambda: rl.temperature.optimal_sigma(
            [0.1, 0.5, 0.9], [1, 16, 256], method="brent"
        ),
        "temperature.optimal_sigma.cubic": lambda: rl.temperature.optimal_sigma([0.1, 0.5, 0.9], [1, 16, 256]),
        "spectra.window.kaiser": lambda: rl.spectra.window("kaiser", 64, beta=8.0),
        "spectra.spectrum": lambda: np.concatenate(rl.spectra.spectrum(rl.spectra.window("hann", 48))),
        "spectra.ssm_spectrum": lambda: rl.spectra.ssm_spectrum(0.93, 0.4, 128, np.arange(64.0)),
        "transition.eigenvalues": lambda: rl.transition.eigenvalues(A),
        "recurrence.selective_rope_attention": lambda: rl.recurrence.selective_rope_attention(Q, K, V, angles),
        "rotary.rotate": lambda: rl.rotary.rotate(Q, angles),
    }
    out: dict[str, str] = {}
    for name, fn in cases.items():
        out[name] = _digest(fn())
    # The Monte-Carlo kernels on each SIMD path this machine has (SLEEF's cos/exp, the ziggurats).
    for isa in rl.simd.available():
        with rl.simd.using(isa):
            for estimator in ("trig", "positive"):
                out[f"rff.estimate.{isa}.{estimator}"] = _digest(
                    rl.rff.estimate(q, k, D=64, sigma=1.0, estimator=estimator, trials=3000, seed=3, nthreads=2)
                )
    return out


def main(argv: list[str]) -> int:
    data = fingerprint()
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if len(argv) > 1:
        Path(argv[1]).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
