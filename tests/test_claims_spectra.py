"""Perturbations of the SSM-window claims (``ropelab.claims.spectra``): each replaces what a check
relies on with a subtly wrong version, and the check's verdict must then flip."""

from __future__ import annotations

import numpy as np

from ropelab import rotary, spectra
from tests.claims_perturb import Perturbation, add_section_tests, wrap

SECTION = "spectra"


#: claim id -> a perturbation that flips its verdict (one for every claim of the section).
PERTURBATIONS: dict[str, Perturbation] = {
    # a pure rotation that secretly decays
    "ssm.window_rect": wrap(spectra, "ssm_impulse", lambda o: lambda alpha, omega, N: o(alpha + 0.01, omega, N)),
    # a "decay" window with Hann's shape would always beat the rectangle
    "ssm.decay_leakage": wrap(spectra, "ssm_window", lambda o: lambda *, alpha, N: spectra.window("hann", N)),
    "ssm.hann_vs_decay": wrap(spectra, "ssm_window", lambda o: lambda *, alpha, N: spectra.window("hann", N)),
    # forgetting by the real part: |h[n]| = |Re a|^n
    "ssm.real_part": wrap(
        spectra, "ssm_impulse", lambda o: lambda alpha, omega, N: (np.exp(-alpha) * np.cos(omega)) ** np.arange(N) + 0j
    ),
    # Euler's input weight Δ·B instead of the zero-order hold's (a − 1)/λ · B
    "ssm.zoh_continuous": wrap(
        spectra, "zoh", lambda o: lambda alpha, omega, dt, B=1.0: (o(alpha, omega, dt, B)[0], dt * np.asarray(B) + 0j)
    ),
    # a "Hann" window that is the rectangle
    "ssm.hann_mainlobe": wrap(
        spectra,
        "window",
        lambda o: lambda name, N, sym=False, **p: o("rectangular" if name == "hann" else name, N, sym),
    ),
    # an angle path that uses the mean increment: the input-dependent line becomes a fixed one
    "fft.fixed_modes": wrap(
        rotary,
        "cumulative_angles",
        lambda o: lambda om, *a, **k: o(np.full_like(np.asarray(om, float), np.mean(om)), *a, **k),
    ),
}

#: name -> (claim id, a further perturbation): each part of a strengthened check can fail on its own.
EXTRA_PERTURBATIONS: dict[str, tuple[str, Perturbation]] = {
    # a mode that decays at the right rate but does not rotate: its real part is the forgetting rate
    "ssm.real_part/rate": (
        "ssm.real_part",
        wrap(spectra, "ssm_impulse", lambda o: lambda alpha, omega, N: np.exp(-alpha * np.arange(N)) + 0j),
    ),
    # the symmetric Hann window where the DFT-even one is asked for (its sidelobe barely moves)
    "ssm.hann_vs_decay/hann": (
        "ssm.hann_vs_decay",
        wrap(spectra, "window", lambda o: lambda name, N, sym=False, **p: o(name, N, sym or name == "hann", **p)),
    ),
    # the kernel of the discretised SSM off by a factor: it no longer follows the integrated ODE
    "ssm.zoh_continuous/ode": (
        "ssm.zoh_continuous",
        wrap(spectra, "ssm_kernel", lambda o: lambda *a, **k: 1.001 * np.asarray(o(*a, **k))),
    ),
    # a DTFT off by a factor at some frequencies: it no longer equals NumPy's FFT
    "fft.fixed_modes/dtft": (
        "fft.fixed_modes",
        wrap(spectra, "dtft", lambda o: lambda x, f: np.asarray(o(x, f)) * (1 + 1e-3 * (np.asarray(f) > 100))),
    ),
    # a far-leakage measure that ignores the decay (the rectangle's spectrum for every window)
    "ssm.decay_leakage/far": (
        "ssm.decay_leakage",
        wrap(spectra, "spectrum", lambda o: lambda x, pad=64: o(np.hanning(len(x)), pad)),
    ),
}


add_section_tests(globals(), SECTION, PERTURBATIONS, EXTRA_PERTURBATIONS)
