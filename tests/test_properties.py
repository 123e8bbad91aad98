"""Property-based robustness: for any generated input, a public function either returns finite
results of the documented shape or raises ValueError/TypeError/MemoryError — never another
exception, never a crash (a crash would kill the test process)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ropelab as rl

ALLOWED = (ValueError, TypeError, MemoryError)
EXAMPLES = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DTYPES = st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.uint16, np.bool_, np.complex128, np.float16])


def arrays(max_dims: int = 3, max_side: int = 6) -> st.SearchStrategy[Any]:
    """Arrays of many dtypes and shapes (empty, zero-size, 0-d), with NaN/inf/huge/tiny/subnormal values."""
    return DTYPES.flatmap(
        lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=max_side))
    )


def vectors(max_side: int = 6) -> st.SearchStrategy[Any]:
    """Mostly well-formed 1-D float vectors, sometimes anything at all."""
    good = hnp.arrays(
        np.float64,
        st.integers(1, max_side),
        elements=st.floats(-3, 3, allow_subnormal=True) | st.sampled_from([0.0, 1e-310, -1e-300, 25.0]),
    )
    return st.one_of(good, good, arrays(), st.lists(st.floats(), max_size=4), st.none(), st.text(max_size=3))


# Huge integers are ones the bindings must reject (beyond int64); valid sizes stay small so that no
# example asks for hours of work or gigabytes of output (the memory guard has its own test).
HUGE = st.sampled_from([2**63, 2**64 + 1, 2**70, -(2**63) - 1, 10**30, 1e300, -1e300, 2.0**64])
SCALARS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True).filter(
        lambda x: not (x == x and x.is_integer() and abs(x) > 300)
    ),
    st.floats(0, 3),
    HUGE,
    st.integers(-3, 300),
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.complex_numbers(max_magnitude=10),
    st.sampled_from([np.float32(0.5), np.int16(3), np.float64(np.nan), np.bool_(True), np.array(2.0)]),
)
SMALL_COUNTS = st.one_of(st.integers(-3, 40), SCALARS)
NAMES = (
    st.sampled_from(["trig", "random_phase", "positive", "conjugate", "literal", "full", "projected", "x", ""])
    | SCALARS
)


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call fn; None if it raised one of the allowed errors (any other exception fails the test)."""
    try:
        return fn(*args, **kwargs)
    except ALLOWED:
        return None


def assert_finite(x: Any) -> None:
    arr = np.asarray(x, dtype=np.float64)
    assert np.all(np.isfinite(arr)), x


def assert_mse(out: Any, log: bool, direct: Any) -> None:
    """A direct MSE is finite; a log MSE has no NaN or +inf, and is -inf exactly where the MSE is
    zero (e.g. q = k = 0, or ξ = 1 for the conjugate product: every feature equals the target)."""
    if not log:
        assert_finite(out)
        return
    arr = np.asarray(out, dtype=np.float64)
    assert not np.isnan(arr).any() and not (arr == np.inf).any(), out
    zero = arr == -np.inf
    if zero.any():
        d = np.asarray(direct(), dtype=np.float64)
        assert np.all(np.broadcast_to(d, arr.shape)[zero] == 0), (out, d)


@EXAMPLES
@given(
    q=vectors(),
    k=vectors(),
    sigma=st.one_of(st.floats(0, 3), SCALARS, arrays()),
    est=NAMES,
    conv=NAMES,
    log=st.booleans(),
)
def test_moments(q: Any, k: Any, sigma: Any, est: Any, conv: Any, log: bool) -> None:
    out = call(rl.rff.moments, q, k, sigma, est, conv, log=log)
    if out is not None:
        m, v = out
        assert np.shape(m) == np.shape(v) == np.shape(sigma)
        if not log:
            assert_finite(m)
            assert_finite(v)
        else:
            assert not np.isnan(np.asarray(m, float)).any() and not np.isnan(np.asarray(v, float)).any()


@EXAMPLES
@given(
    q=vectors(),
    k=vectors(),
    sigma=st.one_of(st.floats(0, 3), SCALARS, arrays()),
    D=SMALL_COUNTS,
    est=NAMES,
    conv=NAMES,
    log=st.booleans(),
)
@example(q=np.array([0.0]), k=np.array([0.0]), sigma=0.0, D=1, est="trig", conv="conjugate", log=True)
def test_mse(q: Any, k: Any, sigma: Any, D: Any, est: Any, conv: Any, log: bool) -> None:
    out = call(rl.rff.mse, q, k, D=D, sigma=sigma, estimator=est, convention=conv, log=log)
    if out is not None:
        assert np.shape(out) == np.shape(sigma)
        assert_mse(out, log, lambda: rl.rff.mse(q, k, D=D, sigma=sigma, estimator=est, convention=conv))


@EXAMPLES
@given(
    q=vectors(),
    k=vectors(),
    D=SMALL_COUNTS,
    sigma=st.one_of(st.floats(0, 3), SCALARS),
    est=NAMES,
    conv=NAMES,
    trials=SMALL_COUNTS,
    seed=st.one_of(st.integers(0, 2**64 - 1), SCALARS),
    mode=NAMES,
    nthreads=st.one_of(st.none(), st.integers(-1, 9), SCALARS),
    orthogonal=st.booleans(),
)
def test_estimate(
    q: Any,
    k: Any,
    D: Any,
    sigma: Any,
    est: Any,
    conv: Any,
    trials: Any,
    seed: Any,
    mode: Any,
    nthreads: Any,
    orthogonal: bool,
) -> None:
    out = call(
        rl.rff.estimate,
        q,
        k,
        D,
        sigma,
        est,
        conv,
        mode=mode,
        orthogonal=orthogonal,
        trials=trials,
        seed=seed,
        nthreads=nthreads,
    )
    if out is not None:
        assert out.shape == (int(trials),)
        assert_finite(out)


@EXAMPLES
@given(
    D=SMALL_COUNTS,
    d=SMALL_COUNTS,
    sigma=st.one_of(st.floats(0, 3), SCALARS),
    seed=st.one_of(st.integers(0, 2**64 - 1), SCALARS),
    orthogonal=st.booleans(),
    index=SMALL_COUNTS,
)
def test_sample_omega_and_phase(D: Any, d: Any, sigma: Any, seed: Any, orthogonal: bool, index: Any) -> None:
    out = call(rl.rff.sample_omega, D, d, sigma, orthogonal=orthogonal, index=index, seed=seed)
    if out is not None:
        assert out.shape == (int(D), int(d))
        assert_finite(out)
    ph = call(rl.rff.sample_phase, D, seed, index=index)
    if ph is not None:
        assert ph.shape == (int(D),) and np.all((ph >= 0) & (ph < 2 * np.pi))


@EXAMPLES
@given(
    X=st.one_of(
        arrays(), hnp.arrays(np.float64, st.tuples(st.integers(0, 4), st.integers(1, 4)), elements=st.floats(-30, 30))
    ),
    omega=st.one_of(
        arrays(), hnp.arrays(np.float64, st.tuples(st.integers(0, 5), st.integers(1, 4)), elements=st.floats(-3, 3))
    ),
    est=NAMES,
    phase=st.one_of(st.none(), arrays(max_dims=1)),
)
def test_feature_map(X: Any, omega: Any, est: Any, phase: Any) -> None:
    out = call(rl.rff.feature_map, X, omega, est, phase)
    if out is not None:
        width = 2 * np.shape(omega)[0] if est == "trig" else np.shape(omega)[0]
        assert out.shape == (np.shape(X)[0], width)
        assert_finite(out)


@EXAMPLES
@given(
    xi=st.one_of(st.floats(-1, 1), SCALARS, arrays()),
    D=st.one_of(st.integers(1, 10**7), SCALARS, arrays()),
    sigma=st.one_of(st.floats(0, 5), SCALARS, arrays()),
    est=NAMES,
    conv=NAMES,
    method=st.sampled_from(["cubic", "brent", "x"]) | SCALARS,
    log=st.booleans(),
)
@example(xi=1.0, D=4, sigma=0.5, est="trig", conv="conjugate", method="cubic", log=True)
def test_temperature_functions(xi: Any, D: Any, sigma: Any, est: Any, conv: Any, method: Any, log: bool) -> None:
    s = call(rl.temperature.paper_sigma, xi)
    if s is not None:
        assert np.shape(s) == np.shape(xi)
        # documented: +inf exactly at ξ = −1, finite elsewhere
        assert not np.isnan(np.asarray(s, float)).any()
        assert np.all(np.isfinite(np.asarray(s, float)) | (np.asarray(xi, float) == -1))
    with warnings.catch_warnings():
        # a convention name as the estimator (or the reverse) is the former order, accepted with a
        # DeprecationWarning (tests/test_argument_order.py checks the warning and the binding)
        warnings.simplefilter("ignore", DeprecationWarning)
        u = call(rl.temperature.unbiased_sigma, xi, est, conv)
    if u is not None:
        assert np.shape(u) == np.shape(xi)
    m = call(rl.temperature.mse, xi, D=D, sigma=sigma, estimator=est, convention=conv, log=log)
    if m is not None:
        assert_mse(m, log, lambda: rl.temperature.mse(xi, D=D, sigma=sigma, estimator=est, convention=conv))
    o = call(rl.temperature.optimal_sigma, xi, D, est, method, conv)
    if o is not None:
        assert_finite(o)
        assert np.all(np.asarray(o) >= 0)
    c = call(rl.temperature.counterexample, xi)
    if c is not None:
        assert_finite(list(c.as_dict().values()))


@EXAMPLES
@given(
    d=SMALL_COUNTS,
    kind=st.sampled_from(["rope", "rfa", "x"]) | SCALARS,
    base=st.one_of(st.floats(0, 1e6), SCALARS),
    theta_max=st.one_of(st.none(), st.floats(0, 1), SCALARS),
    temp_max=st.one_of(st.floats(0, 10), SCALARS),
    squared=st.booleans(),
)
def test_temperature_spectrum(d: Any, kind: Any, base: Any, theta_max: Any, temp_max: Any, squared: bool) -> None:
    out = call(rl.temperature.spectrum, d, kind, base, theta_max, temp_max, squared=squared)
    if out is not None:
        assert out.shape == (int(d) // 2,)
        assert_finite(out)


@EXAMPLES
@given(
    ids=st.one_of(
        st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["tables.deltas", "tables.avg_ppl"])), max_size=3),
        st.text(max_size=5),
        st.integers(),
        st.floats(),
        st.lists(st.integers(), max_size=2),
    )
)
def test_claims_run(ids: Any) -> None:
    from ropelab import claims

    out = call(claims.run, ids)
    if out is not None:
        assert all(r.matches for r in out)
