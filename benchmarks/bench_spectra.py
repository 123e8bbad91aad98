"""Benchmark: window figures of merit and the SSM leakage map, ropelab vs NumPy/SciPy.

Not a test. Both sides compute the same quantities in one process:

* figures of merit (Harris 1978) of 200 windows of length N = 1024 (padding factor 64): coherent
  gain, ENBW, scalloping and worst-case processing loss, 3-dB/6-dB widths, first minimum, highest
  sidelobe, overlap correlations and leakage factor. The baseline is the straightforward
  implementation: scipy.signal.windows, a zero-padded numpy.fft grid, crossings and extrema refined
  by scipy.optimize (brentq / bounded minimize_scalar) on a direct NumPy DTFT.
* the SSM leakage map over an α·N × ω grid (figures of merit of e^{−αn} per α·N, and per
  (α·N, ω) the N-point DFT leakage of the tone at ω).

Run: ``python benchmarks/bench_spectra.py``. Prints both timings and the ratio.
"""

from __future__ import annotations

import numpy as np
import scipy.optimize as so
import scipy.signal.windows as sw
from _common import timed

import ropelab as rl

N = 1024
PAD = 64


# ------------------------------------------------------------------------------------------------
# The 200 windows
# ------------------------------------------------------------------------------------------------


def window_specs() -> list[tuple[str, dict[str, float]]]:
    specs: list[tuple[str, dict[str, float]]] = [
        (name, {}) for name in ("rectangular", "triangular", "hann", "hamming", "blackman", "blackman_harris_4")
    ]
    for v in np.linspace(1.0, 14.0, 48):
        specs.append(("kaiser", {"beta": float(v)}))
    for v in np.linspace(1.5, 4.0, 36):
        specs.append(("gaussian", {"alpha": float(v)}))
    for v in np.linspace(0.5, 5.0, 36):
        specs.append(("poisson", {"alpha": float(v)}))
    for v in np.linspace(45.0, 100.0, 26):  # scipy warns below ~45 dB
        specs.append(("chebyshev", {"attenuation": float(v)}))
    for v in np.linspace(0.0, 12.0, 200 - len(specs)):
        specs.append(("ssm", {"alpha": float(v) / N}))
    assert len(specs) == 200
    return specs


def scipy_window(name: str, p: dict[str, float], n: int) -> np.ndarray:
    if name == "rectangular":
        return sw.boxcar(n, sym=False)
    if name == "triangular":
        return 1.0 - np.abs((2 * np.arange(n) - n) / n)
    if name == "hann":
        return sw.hann(n, sym=False)
    if name == "hamming":
        return sw.hamming(n, sym=False)
    if name == "blackman":
        return sw.blackman(n, sym=False)
    if name == "blackman_harris_4":
        return sw.blackmanharris(n, sym=False)
    if name == "kaiser":
        return sw.kaiser(n, p["beta"], sym=False)
    if name == "gaussian":
        return sw.gaussian(n, (n / 2) / p["alpha"], sym=False)
    if name == "poisson":
        return sw.exponential(n, n / 2, (n / 2) / p["alpha"], sym=False) if p["alpha"] > 0 else np.ones(n)
    if name == "chebyshev":
        return sw.chebwin(n, p["attenuation"], sym=True)
    if name == "ssm":
        return np.exp(-p["alpha"] * np.arange(n))
    raise ValueError(name)


# ------------------------------------------------------------------------------------------------
# Baseline: NumPy/SciPy figures of merit
# ------------------------------------------------------------------------------------------------


def np_dtft(w: np.ndarray, f: float) -> complex:
    n = np.arange(w.size)
    return complex(np.sum(w * np.exp(-2j * np.pi * f * n / w.size)))


def np_figures(w: np.ndarray, pad: int = PAD) -> dict[str, float]:
    n = w.size
    s1, s2 = w.sum(), np.sum(w * w)
    W0 = abs(s1)
    out = {
        "coherent_gain": W0 / (n * np.abs(w).max()),
        "enbw_bins": n * s2 / s1**2,
        "scalloping_loss_db": -20 * np.log10(abs(np_dtft(w, 0.5)) / W0),
    }
    out["worst_case_processing_loss_db"] = out["scalloping_loss_db"] + 10 * np.log10(out["enbw_bins"])
    mag = np.abs(np.fft.rfft(w, n * pad))
    f = np.arange(mag.size) / pad
    absW = lambda x: abs(np_dtft(w, x))  # noqa: E731
    rise = np.nonzero(np.diff(mag) > 0)[0]
    kmin = int(rise[0]) if rise.size else mag.size - 1
    if rise.size and kmin > 0:
        res = so.minimize_scalar(absW, bounds=(f[kmin - 1], f[kmin + 1]), method="bounded", options={"xatol": 1e-10})
        fmin = float(res.x)
    else:
        fmin = n / 2
    out["first_min_bins"] = fmin
    out["first_min_db"] = 20 * np.log10(max(absW(fmin), 1e-300) / W0)
    for key, level in (("bandwidth_3db_bins", W0 / np.sqrt(2)), ("bandwidth_6db_bins", W0 / 2)):
        below = np.nonzero(mag[: kmin + 1] < level)[0]
        if below.size:
            j = int(below[0])
            out[key] = 2 * so.brentq(lambda x: absW(x) - level, f[j - 1], f[j], xtol=1e-12)
        else:
            out[key] = float("nan")
    side = mag[kmin + 1 :]
    if rise.size and side.size:
        peaks = np.nonzero((side[1:-1] >= side[:-2]) & (side[1:-1] >= side[2:]))[0] + 1 + kmin + 1
        if peaks.size == 0:
            peaks = np.array([kmin + 1 + int(np.argmax(side))])
        order = peaks[np.argsort(mag[peaks])[::-1]]
        best = 0.0
        for k in order[:8]:
            if mag[k] < mag[order[0]] * 10 ** (-1 / 20):
                break
            a, b = f[max(k - 1, 0)], f[min(k + 1, mag.size - 1)]
            res = so.minimize_scalar(lambda x: -absW(x), bounds=(a, b), method="bounded", options={"xatol": 1e-10})
            best = max(best, -res.fun, mag[k])
        out["highest_sidelobe_db"] = 20 * np.log10(best / W0)
        # Leakage factor: energy outside |f| < fmin on the grid (one period, trapezoid).
        P = mag**2
        total = (P.sum() * 2 - P[0] - P[-1]) / pad
        inside = f < fmin
        main = (2 * P[inside].sum() - P[0]) / pad
        out["leakage_factor"] = 1 - main / total
    else:
        out["highest_sidelobe_db"] = float("-inf")
        out["leakage_factor"] = 0.0
    out["overlap_correlation_50"] = float(np.dot(w[: n - n // 2], w[n // 2 :]) / s2)
    out["overlap_correlation_75"] = float(np.dot(w[: n - n // 4], w[n // 4 :]) / s2)
    return out


def np_leakage_map(alpha: np.ndarray, omega: np.ndarray, n: int, pad: int) -> dict[str, np.ndarray]:
    figs = [np_figures(np.exp(-a * np.arange(n)), pad) for a in alpha]
    scal = np.empty((alpha.size, omega.size))
    leak = np.empty_like(scal)
    far = np.empty_like(scal)
    idx = np.arange(n)
    for i, a in enumerate(alpha):
        for j, om in enumerate(omega):
            h = np.exp((-a + 1j * om) * idx)
            H = np.abs(np.fft.fft(h))
            fb = om * n / (2 * np.pi)
            peak = abs(np.sum(h * np.exp(-2j * np.pi * fb * idx / n)))
            k0 = int(np.rint(fb)) % n
            scal[i, j] = -20 * np.log10(H[k0] / peak)
            leak[i, j] = 1 - H[k0] ** 2 / np.sum(H**2)
            dist = np.abs(idx - fb) % n
            dist = np.minimum(dist, n - dist)
            with np.errstate(divide="ignore"):  # α = 0, tone on a bin: no leakage, −inf dB
                far[i, j] = 20 * np.log10(H[dist >= 2].max() / peak)
    return {"figures": figs, "scalloping_db": scal, "bin_leakage_factor": leak, "far_leakage_db": far}


# ------------------------------------------------------------------------------------------------


def main() -> None:
    specs = window_specs()
    ours_w = [rl.spectra.window(name, N, **p) for name, p in specs]
    ref_w = [scipy_window(name, p, N) for name, p in specs]
    wdiff = max(float(np.max(np.abs(a - b))) for a, b in zip(ours_w, ref_w))

    t_rl, figs_rl = timed(
        lambda: [rl.spectra.figures_of_merit(rl.spectra.window(nm, N, **p), pad=PAD) for nm, p in specs]
    )
    t_np, figs_np = timed(lambda: [np_figures(scipy_window(nm, p, N), PAD) for nm, p in specs], repeat=1)
    dsl = max(
        abs(a.highest_sidelobe_db - b["highest_sidelobe_db"])
        for a, b in zip(figs_rl, figs_np)
        if np.isfinite(a.highest_sidelobe_db)
    )
    dbw = max(abs(a.bandwidth_3db_bins - b["bandwidth_3db_bins"]) for a, b in zip(figs_rl, figs_np))

    omega = np.linspace(0.0, np.pi, 32)
    Nm = 256
    alpha = rl.spectra.decay_per_sample(np.linspace(0.0, 10.0, 21), Nm)  # α·N = 0 … 10
    t_rl_map, m_rl = timed(lambda: rl.spectra.leakage_map(alpha=alpha, omega=omega, N=Nm, pad=32))
    t_np_map, m_np = timed(lambda: np_leakage_map(alpha, omega, Nm, 32), repeat=1)
    dmap = float(np.nanmax(np.abs(m_rl.bin_leakage_factor - m_np["bin_leakage_factor"])))

    print(f"ropelab {rl.__version__}, numpy {np.__version__}; N = {N}, pad = {PAD}")
    print(f"windows: max |ropelab - scipy.signal.windows| = {wdiff:.2e}")
    print(
        f"figures of merit, 200 windows:      ropelab {t_rl:8.3f} s   numpy/scipy {t_np:8.3f} s   "
        f"ratio (numpy/ropelab) {t_np / t_rl:7.1f}x"
    )
    print(f"  agreement: max |d highest sidelobe| = {dsl:.2e} dB, max |d 3-dB width| = {dbw:.2e} bins")
    print("  (the sidelobe differences come from slowly decaying SSM windows, αN ≈ 7-9, whose first dip is a")
    print("   barely visible wiggle ~150-400 bins out: the magnitude-grid baseline locates it one lobe later)")
    print(
        f"SSM leakage map {alpha.size} x {omega.size} (N = {Nm}): ropelab {t_rl_map:8.3f} s   "
        f"numpy/scipy {t_np_map:8.3f} s   ratio (numpy/ropelab) {t_np_map / t_rl_map:7.1f}x"
    )
    print(f"  agreement: max |d bin leakage factor| = {dmap:.2e}")
    total_rl, total_np = t_rl + t_rl_map, t_np + t_np_map
    print(
        f"total: ropelab {total_rl:.3f} s, numpy/scipy {total_np:.3f} s, ratio {total_np / total_rl:.1f}x "
        f"({'ropelab at least as fast' if total_np >= total_rl else 'ropelab SLOWER'})"
    )


if __name__ == "__main__":
    main()
