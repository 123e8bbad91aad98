"""Census of issue 25's hostile calls (the bullets "Errors that do not name the argument",
"Allocation before the size check", "Invalid input accepted", "Dtype variants that differ").

Run from the repository root: ``python -m tests.reliability_census`` (add ``PYTHONPATH=python`` to
test the source tree instead of the installed package). It prints, per bullet, how many of its
hostile calls still fail, then each failing call; the exit status is 0 when none fails.

A call "fails" when it does not do what issue 25's rules ask of it:

* an invalid input must be refused with ValueError/TypeError/MemoryError whose message names the
  function and the argument (rules 2 and 5), without first allocating more than 256 MiB
  (rule 3; measured with tracemalloc, which sees NumPy's allocations);
* two calls that differ only in the dtype or layout of an input must agree to the documented
  precision, and a result must not be the caller's own array (rule 6).

The process runs with an 8 GiB address-space limit, so that a call that would allocate before its
size check fails fast instead of filling the machine.
"""

from __future__ import annotations

import resource
import signal
import sys
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))

import ropelab as rl  # noqa: E402
from ropelab import attention, expressivity, extrapolation, related, rotary, selective, spectra, tasks  # noqa: E402

ALLOWED = (ValueError, TypeError, MemoryError)
PEAK = 256 << 20
RNG = np.random.default_rng(25)
Q, K, V = RNG.normal(size=(3, 8, 4))
ANGLES = np.cumsum(RNG.normal(size=(8, 2)), axis=0)
HUGE = np.broadcast_to(np.float64(0.5), (2**20, 2**20))  # 2**40 elements, zero strides
HUGE_ROWS = np.broadcast_to(np.float64(0.5), (2**38, 4))  # (T, d) with 2**40 elements
Call = Callable[[], Any]


def _weights() -> selective.SelectiveWeights:
    r = np.random.default_rng(1)
    return selective.SelectiveWeights(
        r.standard_normal((4, 8)), r.standard_normal((4, 4)), selective.rotary_temperature("rope", 1e4, 4), num_heads=2
    )


class _Slow(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Slow


signal.signal(signal.SIGALRM, _alarm)


def refused(call: Call, func: str, arg: str) -> str | None:
    """None when ``call`` raises an allowed error naming ``func`` and ``arg`` within the peak
    (and within 20 s: a refusal is immediate)."""
    tracemalloc.start()
    signal.alarm(20)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call()
    except ALLOWED as e:
        msg = str(e)
        peak = tracemalloc.get_traced_memory()[1]
        if "Unable to allocate" in msg or "bad_alloc" in msg:
            return f"allocated before checking: {type(e).__name__}: {msg[:120]}"
        if func not in msg or arg not in msg:
            return f"message does not name {func!r} and {arg!r}: {type(e).__name__}: {msg[:160]}"
        if peak > PEAK:
            return f"refused after allocating {peak / 2**20:.0f} MiB"
        return None
    except _Slow:
        return "still running after 20 s (started instead of refusing)"
    except BaseException as e:
        return f"{type(e).__name__}: {str(e)[:160]}"
    finally:
        signal.alarm(0)
        tracemalloc.stop()
    return f"accepted, returned {type(out).__name__} {np.shape(out) if hasattr(out, 'shape') else ''}".strip()


def agree(a: Call, b: Call, rtol: float = 0.0) -> str | None:
    """None when both calls return the same numbers (to ``rtol``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, y = a(), b()
    except BaseException as e:
        return f"{type(e).__name__}: {str(e)[:160]}"
    x, y = np.asarray(_numbers(x), dtype=np.float64), np.asarray(_numbers(y), dtype=np.float64)
    if x.shape != y.shape or not np.allclose(x, y, rtol=rtol, atol=0.0):
        return f"differ: max |a - b| = {np.max(np.abs(x - y)) if x.shape == y.shape else 'shape'}"
    return None


def _numbers(x: Any) -> Any:
    if isinstance(x, attention.AttentionError):
        return np.concatenate([x.mean.ravel(), x.stderr.ravel()])
    if isinstance(x, str):
        return [float(len(x))]
    return x


def not_alias(call: Call, own: np.ndarray, attr: str) -> str | None:
    """None when the result's ``attr`` is not the caller's array (or the array is refused, naming ``attr``)."""
    try:
        out = getattr(call(), attr)
    except (TypeError, ValueError) as e:
        return None if attr in str(e) else f"{type(e).__name__}: {e}"
    except BaseException as e:
        return f"{type(e).__name__}: {e}"
    return "the result is the caller's array" if np.shares_memory(out, own) else None


def checks_naming() -> list[tuple[str, Callable[[], str | None]]]:
    """Errors that do not name the argument."""
    q_bad = Q.copy()
    q_bad[2, 1] = np.nan
    big = 1e160
    out: list[tuple[str, Callable[[], str | None]]] = [
        (
            "attention.softmax(q_bad, k, v, angles=p)",
            lambda: refused(lambda: attention.softmax(q_bad, K, V, angles=ANGLES), "attention.softmax", "q"),
        ),
        (
            "attention.random_feature(q_bad, k, v, 8, angles=p)",
            lambda: refused(
                lambda: attention.random_feature(q_bad, K, V, 8, angles=ANGLES), "attention.random_feature", "q"
            ),
        ),
        (
            "attention.error(q_bad, k, v, 8, angles=p)",
            lambda: refused(lambda: attention.error(q_bad, K, V, 8, angles=ANGLES), "attention.error", "q"),
        ),
    ]
    # a logit overflow must name q and k, not a bias the caller never passed
    for name, call, func in [
        ("attention.softmax(q*1e160, k*1e160, v)", lambda: attention.softmax(Q * big, K * big, V), "attention.softmax"),
        ("related.alibi(q*1e160, k*1e160, v, m)", lambda: related.alibi(Q * big, K * big, V, 0.5), "related.alibi"),
        (
            "related.fox(q*1e160, k*1e160, v, f)",
            lambda: related.fox(Q * big, K * big, V, np.full(8, 0.9)),
            "related.fox",
        ),
    ]:
        out.append((name, lambda call=call, func=func: _names_q_k_not_bias(call, func)))
    # 2**40-element zero-stride views: refused naming the argument, not "Unable to allocate 8 TiB"
    out += [
        (f"{n} with a 2**40-element view", (lambda c=c, f=f, a=a: refused(c, f, a))) for n, c, f, a in _huge_views()
    ]
    return out


def _names_q_k_not_bias(call: Call, func: str) -> str | None:
    problem = refused(call, func, "q")
    if problem is None:
        try:
            call()
        except ALLOWED as e:
            if "bias" in str(e):
                return f"blames a bias that was not passed: {str(e)[:160]}"
    return problem


def _huge_views() -> list[tuple[str, Call, str, str]]:
    w = _weights()
    return [
        ("attention.softmax(q)", lambda: attention.softmax(HUGE_ROWS, K, V), "attention.softmax", "q"),
        (
            "attention.softmax(bias)",
            lambda: attention.softmax(Q, K, V, bias=np.broadcast_to(0.0, (2**22, 2**10, 8, 8))),
            "attention.softmax",
            "bias",
        ),
        ("attention.mean_cosine(q)", lambda: attention.mean_cosine(HUGE_ROWS, HUGE_ROWS), "mean_cosine", "q"),
        ("attention.feature_map(X)", lambda: attention.feature_map(HUGE_ROWS, np.ones((4, 4))), "feature_map", "X"),
        ("rotary.rotate(x)", lambda: rotary.rotate(HUGE_ROWS, np.zeros((1, 2))), "rotate", "x"),
        ("rotary.cumulative_angles(omega)", lambda: rotary.cumulative_angles(HUGE), "cumulative_angles", "omega"),
        ("related.fox_bias(gates)", lambda: related.fox_bias(np.broadcast_to(0.5, (2**40,))), "fox_bias", "gates"),
        ("related.exp_kernel_features(x)", lambda: related.exp_kernel_features(HUGE_ROWS), "exp_kernel_features", "x"),
        ("selective.angles(hidden)", lambda: selective.angles(np.broadcast_to(0.5, (2**37, 8)), w), "angles", "hidden"),
        (
            "expressivity.track_rotation(tokens)",
            lambda: expressivity.track_rotation("Z3", np.broadcast_to(0, (2**20, 2**20))),
            "track_rotation",
            "tokens",
        ),
        (
            "expressivity.accuracy(predicted)",
            lambda: expressivity.accuracy(np.broadcast_to(0, (2**20, 2**20)), np.broadcast_to(0, (2**20, 2**20))),
            "accuracy",
            "predicted",
        ),
        ("spectra.dtft(x)", lambda: spectra.dtft(np.broadcast_to(0.5, (2**40,)), [0.1]), "dtft", "x"),
        (
            "rl.transition.singular_values(A)",
            lambda: rl.transition.singular_values(np.broadcast_to(0.5, (2**36, 4, 4))),
            "singular_values",
            "A",
        ),
    ]


def checks_allocation() -> list[tuple[str, Callable[[], str | None]]]:
    """Allocation before the size check."""
    w = _weights()
    out: list[tuple[str, Callable[[], str | None]]] = [
        (
            "extrapolation.scaled_frequencies(d=2**40)",
            lambda: refused(lambda: extrapolation.scaled_frequencies(2**40), "scaled_frequencies", "d"),
        ),
        (
            "extrapolation.scaled_frequencies(d=2**41)",
            lambda: refused(lambda: extrapolation.scaled_frequencies(2**41), "scaled_frequencies", "d"),
        ),
        (
            "SelectiveState(w, 2**31)",
            lambda: refused(lambda: selective.SelectiveState(w, 2**31), "SelectiveState", "batch"),
        ),
        (
            "SelectiveState(w, 2**40)",
            lambda: refused(lambda: selective.SelectiveState(w, 2**40), "SelectiveState", "batch"),
        ),
        ("sweep.run on an 8e9-cell grid", lambda: refused(_huge_sweep, "sweep.run", "grid")),
        ("related.alibi_slopes(2**40)", lambda: refused(lambda: related.alibi_slopes(2**40), "alibi_slopes", "H")),
        (
            "selective.rotary_temperature('rope', 1e4, 2**41)",
            lambda: refused(lambda: selective.rotary_temperature("rope", 1e4, 2**41), "rotary_temperature", "head_dim"),
        ),
        (
            "related.alibi_bias(2**31, [0.5])",
            lambda: refused(lambda: related.alibi_bias(2**31, [0.5]), "alibi_bias", "T"),
        ),
    ]
    out += [
        (f"{n} with a 2**40-element view (no copy first)", (lambda c=c, f=f, a=a: refused(c, f, a)))
        for n, c, f, a in _huge_views()
    ]
    return out


def _huge_sweep() -> Any:
    import tempfile

    from ropelab import sweep

    with tempfile.TemporaryDirectory() as d:
        grid = {
            "D": list(range(1, 2001)),
            "sigma": list(np.linspace(0.1, 2, 2000)),
            "xi": list(np.linspace(0, 1, 2000)),
        }
        return sweep.run("rff_mse", grid, trials=2, store=d, progress=False)


def checks_invalid() -> list[tuple[str, Callable[[], str | None]]]:
    """Invalid input accepted."""
    qc = Q.astype(np.complex128) + 1j
    k_nan = Q.copy()
    k_nan[3, 0] = np.nan
    w = _weights()
    h = np.random.default_rng(2).standard_normal((6, 8))
    qs, ks = np.random.default_rng(3).standard_normal((2, 6, 2, 4))
    om = np.full((8, 2), 0.1)
    return [
        ("attention.mean_cosine(complex q)", lambda: refused(lambda: attention.mean_cosine(qc, K), "mean_cosine", "q")),
        (
            "attention.mean_cosine(q, complex k)",
            lambda: refused(lambda: attention.mean_cosine(Q, qc), "mean_cosine", "k"),
        ),
        (
            "attention.angle_precision(complex q)",
            lambda: refused(lambda: attention.angle_precision(qc, K, om), "angle_precision", "q"),
        ),
        (
            "attention.angle_precision(complex omega)",
            lambda: refused(lambda: attention.angle_precision(Q, K, om + 0j), "angle_precision", "omega"),
        ),
        (
            "attention.angle_precision(k with NaN)",
            lambda: refused(lambda: attention.angle_precision(Q, k_nan, om), "angle_precision", "k"),
        ),
        (
            "selective.apply(complex q)",
            lambda: refused(lambda: selective.apply(qs + 1j, ks, h, w), "apply", "q"),
        ),
        (
            "selective.apply(q, complex k)",
            lambda: refused(lambda: selective.apply(qs, ks + 1j, h, w), "apply", "k"),
        ),
        (
            "selective.rotary_temperature('rope', 1e4, 2**64)",
            lambda: refused(lambda: selective.rotary_temperature("rope", 1e4, 2**64), "rotary_temperature", "head_dim"),
        ),
        (
            "selective.rotary_temperature('rope', 1e4, 4.0)",
            lambda: refused(lambda: selective.rotary_temperature("rope", 1e4, 4.0), "rotary_temperature", "head_dim"),
        ),
        (
            "selective.rotary_temperature('rope', True, 4)",
            lambda: refused(lambda: selective.rotary_temperature("rope", True, 4), "rotary_temperature", "theta"),
        ),
        (
            "selective.rotary_temperature('rope', 1e4, 4, 1+0j)",
            lambda: refused(
                lambda: selective.rotary_temperature("rope", 1e4, 4, 1 + 0j), "rotary_temperature", "temp_max"
            ),
        ),
        ("related.alibi_slopes(2**63)", lambda: refused(lambda: related.alibi_slopes(2**63), "alibi_slopes", "H")),
        ("related.alibi_slopes(2**64)", lambda: refused(lambda: related.alibi_slopes(2**64), "alibi_slopes", "H")),
        (
            "tasks.mqar(..., stream=True)",
            lambda: refused(lambda: tasks.mqar(2, 16, 2, 8, stream=True), "mqar", "stream"),
        ),
        ("tasks.mqar(..., seed=True)", lambda: refused(lambda: tasks.mqar(2, 16, 2, 8, seed=True), "mqar", "seed")),
        (
            "tasks.copying(..., stream=True)",
            lambda: refused(lambda: tasks.copying(2, 8, 4, stream=True), "copying", "stream"),
        ),
        (
            "tasks.state_tracking(..., stream=True)",
            lambda: refused(lambda: tasks.state_tracking("S3", 2, 8, stream=True), "state_tracking", "stream"),
        ),
        (
            "expressivity.track_householder(..., seed=None)",
            lambda: refused(
                lambda: expressivity.track_householder("S3", np.zeros((1, 4), dtype=int), seed=None),  # type: ignore[arg-type]
                "track_householder",
                "seed",
            ),
        ),
        (
            "expressivity.track_householder(..., seed=True)",
            lambda: refused(
                lambda: expressivity.track_householder("S3", np.zeros((1, 4), dtype=int), seed=True),
                "track_householder",
                "seed",
            ),
        ),
        (
            "spectra.window('kaiser', 16, beta=True)",
            lambda: refused(lambda: spectra.window("kaiser", 16, beta=True), "window", "beta"),
        ),
        (
            "spectra.window('kaiser', 16, beta=1+0j)",
            lambda: refused(lambda: spectra.window("kaiser", 16, beta=1 + 0j), "window", "beta"),
        ),
        (
            "selective.apply(complex angles path: hidden)",
            lambda: refused(lambda: selective.apply(qs, ks, h + 1j, w), "apply", "hidden"),
        ),
        ("selective.angles(complex hidden)", lambda: refused(lambda: selective.angles(h + 1j, w), "angles", "hidden")),
    ]


def checks_dtypes() -> list[tuple[str, Callable[[], str | None]]]:
    """Dtype variants that differ."""
    from ropelab import report, sweep

    q32 = Q.astype(np.float32)
    out: list[tuple[str, Callable[[], str | None]]] = [
        (
            "attention.softmax(float32 q, angles=p) == float64 path",
            lambda: agree(
                lambda: attention.softmax(q32, K, V, angles=ANGLES),
                lambda: attention.softmax(q32.astype(np.float64), K, V, angles=ANGLES),
            ),
        ),
        (
            "attention.random_feature(float32 q, angles=p) == float64 path",
            lambda: agree(
                lambda: attention.random_feature(q32, K, V, 8, angles=ANGLES),
                lambda: attention.random_feature(q32.astype(np.float64), K, V, 8, angles=ANGLES),
            ),
        ),
        (
            "attention.error(trials=np.int8(2)) == trials=2",
            lambda: agree(
                lambda: attention.error(Q, K, V, 8, rules=("one",), trials=np.int8(2)),
                lambda: attention.error(Q, K, V, 8, rules=("one",), trials=2),
            ),
        ),
        (
            "attention.error(D=np.int8) == D=int",
            lambda: agree(
                lambda: attention.error(Q, K, V, np.int8(8), rules=("one",), trials=2),
                lambda: attention.error(Q, K, V, 8, rules=("one",), trials=2),
            ),
        ),
    ]

    def to_json(seconds: Any) -> Any:
        return report.to_json(_claim_results(), seconds=seconds)

    out += [
        ("report.to_json(seconds=np.float32(1))", lambda: agree(lambda: to_json(np.float32(1)), lambda: to_json(1.0))),
        ("report.to_json(seconds=np.int64(1))", lambda: agree(lambda: to_json(np.int64(1)), lambda: to_json(1.0))),
        ("register_task(monte_carlo=np.False_)", lambda: agree(lambda: _register(np.False_), lambda: _register(False))),
        (
            "SelectiveWeights(eps=np.array([1e-6])).eps is not the caller's array",
            lambda: not_alias(lambda: _weights_eps(EPS), EPS, "eps"),
        ),
        (
            "SelectiveWeights(eps=np.float32(1e-6)) == eps=float(np.float32(1e-6))",
            lambda: agree(
                lambda: selective.angles(np.ones((3, 8)), _weights_eps(np.float32(1e-6))),
                lambda: selective.angles(np.ones((3, 8)), _weights_eps(float(np.float32(1e-6)))),
            ),
        ),
    ]
    del sweep
    return out


EPS = np.array([1e-6])
_RESULTS: list[Any] = []


def _claim_results() -> Any:
    if not _RESULTS:
        _RESULTS.append(rl.claims.run(["rope.relative"]))
    return _RESULTS[0]


def _weights_eps(eps: Any) -> selective.SelectiveWeights:
    r = np.random.default_rng(1)
    return selective.SelectiveWeights(
        r.standard_normal((4, 8)),
        r.standard_normal((4, 4)),
        selective.rotary_temperature("rope", 1e4, 4),
        num_heads=2,
        eps=eps,
    )


_COUNTER = [0]


def _task_fn(params: dict[str, Any], *, trials: Any, seed: int, nthreads: int) -> dict[str, float]:
    return {"y": float(params["x"])}


def _register(flag: Any) -> bool:
    from ropelab import sweep

    _COUNTER[0] += 1
    name = f"census_task_{_COUNTER[0]}"
    t = sweep.register_task(name, _task_fn, axes={"x": 1.0}, outputs=["y"], monte_carlo=flag)
    return bool(t.monte_carlo)


BULLETS: dict[str, Callable[[], list[tuple[str, Callable[[], str | None]]]]] = {
    "errors that do not name the argument": checks_naming,
    "allocation before the size check (rule 3)": checks_allocation,
    "invalid input accepted (rule 5)": checks_invalid,
    "dtype variants that differ (rule 6)": checks_dtypes,
}


def main() -> int:
    print(f"ropelab {rl.__version__} from {rl.__file__}")
    failures: list[str] = []
    for bullet, make in BULLETS.items():
        calls = make()
        bad = []
        for name, check in calls:
            try:
                problem = check()
            except BaseException as e:
                problem = f"census error {type(e).__name__}: {e}"
            if problem is not None:
                bad.append(f"  [{bullet}] {name}: {problem}")
        print(f"{bullet}: {len(bad)} of {len(calls)} hostile calls fail")
        failures += bad
    print("\n".join(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
