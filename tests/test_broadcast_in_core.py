"""Broadcasting done by the core, and large conversions done in pieces (issue 17, point 3).

``temperature.mse``, ``temperature.optimal_sigma`` and ``spectra.zoh`` no longer materialise their
broadcast operands as full arrays (a copy that held the GIL and ignored Ctrl-C); the bindings index
the small operands with stride 0 instead. Large arrays that need a conversion to contiguous
float64 are copied in pieces answering Ctrl-C. Both must give bit-identical results to the full
materialised arrays, for every mix of shapes, dtypes and strides.
"""

from __future__ import annotations

import numpy as np
import pytest

import ropelab as rl
from ropelab import _core

SHAPES = [
    ((), (), ()),
    ((5,), (), ()),
    ((), (4,), (1,)),
    ((3, 1), (1, 4), ()),
    ((2, 1, 3), (4, 1), (3,)),
    ((0, 3), (), (3,)),
    ((2, 3), (2, 3), (2, 3)),
]


def _materialised(*arrays: np.ndarray) -> list[np.ndarray]:
    """What the wrappers used to pass: the operands broadcast and copied to contiguous 1-D arrays."""
    return [np.ascontiguousarray(p, dtype=np.float64).reshape(-1) for p in np.broadcast_arrays(*arrays)]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("log", [False, True])
def test_mse_broadcast_in_core_is_bit_identical(shapes: tuple[tuple[int, ...], ...], log: bool) -> None:
    rng = np.random.default_rng(1)
    s = rng.uniform(0.1, 2.0, shapes[0])
    x = rng.uniform(-1.0, 1.0, shapes[1])
    D = rng.integers(1, 64, shapes[2])
    for est in ("trig", "random_phase", "positive"):
        got = np.asarray(rl.temperature.mse(x, D=D, sigma=s, estimator=est, log=log))
        ref = _core.temperature.mse(*_materialised(x, D, s), estimator=est, convention="conjugate", log=log)
        assert got.shape == np.broadcast_shapes(s.shape, x.shape, D.shape)
        assert np.array_equal(got.reshape(-1), ref), est


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_optimal_sigma_broadcast_in_core_is_bit_identical(shapes: tuple[tuple[int, ...], ...]) -> None:
    rng = np.random.default_rng(2)
    x = rng.uniform(-0.9, 0.9, shapes[1])
    D = rng.integers(1, 64, shapes[2])
    for method in ("cubic", "brent"):
        got = np.asarray(rl.temperature.optimal_sigma(x, D, method=method))
        ref = _core.temperature.optimal_sigma(
            *_materialised(x, D), estimator="trig", convention="conjugate", method=method
        )
        assert got.shape == np.broadcast_shapes(x.shape, D.shape)
        assert np.array_equal(got.reshape(-1), ref), method


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("complex_B", [False, True])
def test_zoh_broadcast_in_core_is_bit_identical(shapes: tuple[tuple[int, ...], ...], complex_B: bool) -> None:
    rng = np.random.default_rng(3)
    a = rng.uniform(0.0, 2.0, shapes[0])
    w = rng.uniform(-3.0, 3.0, shapes[1])
    B = rng.normal(size=shapes[2]) + (1j * rng.normal(size=shapes[2]) if complex_B else 0)
    Abar, Bbar = rl.spectra.zoh(a, w, 0.1, B)
    Bc = np.asarray(B, dtype=np.complex128)
    fa, fw, fr, fi = _materialised(a, w, Bc.real, Bc.imag)
    ra, rb = _core.spectra.zoh(fa, fw, 0.1, fr, fi)
    shape = np.broadcast_shapes(a.shape, w.shape, np.shape(B))
    if shape == ():
        assert isinstance(Abar, complex) and isinstance(Bbar, complex)
    assert np.shape(Abar) == shape and np.shape(Bbar) == shape
    assert np.array_equal(np.reshape(Abar, -1), ra) and np.array_equal(np.reshape(Bbar, -1), rb)


def test_shapes_that_do_not_broadcast_are_refused_by_the_wrappers_and_the_core() -> None:
    with pytest.raises(ValueError, match=r"temperature\.mse: arguments cannot be broadcast together"):
        rl.temperature.mse(np.full(4, 0.5), D=8, sigma=np.ones(3))
    with pytest.raises(ValueError, match=r"temperature\.mse: xi, D and sigma cannot be broadcast together"):
        _core.temperature.mse(np.full(4, 0.5), 8.0, np.ones(3), "trig", "conjugate", False)
    with pytest.raises(ValueError, match=r"temperature\.optimal_sigma: xi and D cannot be broadcast"):
        _core.temperature.optimal_sigma(np.full(3, 0.5), np.ones(2), "trig", "conjugate", "cubic")
    with pytest.raises(ValueError, match=r"spectra\.zoh: alpha, omega and B cannot be broadcast together"):
        _core.spectra.zoh(np.ones(3), np.ones(2), 0.1, 1.0, 0.0)
    with pytest.raises(ValueError, match=r"zoh: alpha, omega and B cannot be broadcast together"):
        rl.spectra.zoh(np.ones(3), np.ones(2), 0.1)


def test_broadcast_output_too_large_is_refused_before_allocating() -> None:
    # 2^17 x 2^17 values (137 GB) from two operands of 1 MB each
    with pytest.raises(MemoryError, match=r"temperature\.mse: the requested output cannot be allocated"):
        rl.temperature.mse(np.full(2**17, 0.5), D=8, sigma=np.ones((2**17, 1)))


def test_errors_name_the_element_of_the_callers_array() -> None:
    with pytest.raises(ValueError, match=r"temperature\.mse: sigma must be >= 0 \(element 1\), got -1\.0$"):
        rl.temperature.mse(np.full(3, 0.5), D=8, sigma=np.array([[1.0], [-1.0]]))
    # element 1 of the (2, 2) output: alpha[0] = 0 with omega[1] = 1e308 (dt*omega overflows)
    with pytest.raises(ValueError, match=r"spectra\.zoh: the discretisation of element 1 is not finite.*omega = inf"):
        rl.spectra.zoh(np.zeros((2, 1)), np.array([0.0, 1e308]), 10.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda v: v.astype(np.float32),
        lambda v: (v * 1000).astype(np.int64),
        lambda v: np.repeat(v, 2)[::2],
        lambda v: v.astype(">f8"),
        lambda v: np.asfortranarray(v.reshape(2**10, -1)),
        lambda v: np.repeat(v.reshape(3, -1), 2, axis=1)[:, ::2],
    ],
    ids=["float32", "int64", "strided", "big-endian", "fortran", "strided-2d"],
)
def test_large_conversions_in_pieces_are_bit_identical(make: object) -> None:
    """Arrays above the single-copy size (4·2^20 elements) are converted in pieces: same values."""
    v = np.random.default_rng(4).uniform(0.0, 1.0, 6 * 2**20)
    x = make(v)  # type: ignore[operator]
    if x.dtype.kind == "i":
        x = x % 2  # cosines in {0, 1}
    got = rl.temperature.paper_sigma(x)
    ref = rl.temperature.paper_sigma(np.array(x, dtype=np.float64, order="C"))
    assert got.shape == x.shape
    assert np.array_equal(got, ref)


@pytest.mark.parametrize(
    "make",
    [
        lambda v: v.astype(np.float32),
        lambda v: np.repeat(v, 2)[::2],
        lambda v: np.asfortranarray(v.reshape(2**10, -1)),
        lambda v: np.repeat(v.reshape(3, -1), 2, axis=1)[:, ::2],
    ],
    ids=["float32", "strided", "fortran", "strided-2d"],
)
def test_python_conversion_in_pieces_is_bit_identical(make: object) -> None:
    """The wrappers' own large conversions (selective hidden states) are made in pieces too."""
    from ropelab._validation import all_finite, as_float64

    v = np.random.default_rng(5).normal(size=6 * 2**20)
    x = make(v)  # type: ignore[operator]
    got = as_float64(x)
    assert got.flags.c_contiguous and got.dtype == np.float64
    assert np.array_equal(got, np.ascontiguousarray(x, dtype=np.float64))
    assert all_finite(got)
    got[-1] = np.inf
    assert not all_finite(got)
