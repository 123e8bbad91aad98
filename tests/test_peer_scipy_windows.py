"""scipy's own window tests, run against ropelab through a thin shim.

The cases are those of ``scipy/signal/tests/test_windows.py`` of scipy 1.17.1 (tag ``v1.17.1``,
https://github.com/scipy/scipy/blob/v1.17.1/scipy/signal/tests/test_windows.py), rewritten for
NumPy only (scipy's array-API ``xp`` parametrisation dropped) with their data and tolerances
(``xp_assert_close``: ``rtol = 4·sqrt(eps)`` for float64 unless the case sets one; ``decimal=4``:
``|Δ| < 1.5e-4``). ``windows`` and ``get_window`` below route each scipy call to
:func:`ropelab.spectra.window` / :func:`ropelab.spectra.dpss` with scipy's defaults (``sym=True``;
``get_window``: ``fftbins=True`` → DFT-even); they translate names and positional parameters and
nothing else. scipy is not needed.

Left out (not about the windows): ``TestGetWindow.test_WIN_FUNC_DATA_integrity`` (scipy's
private table), ``test_invalid_parameter_NX``/``test_invalid_inputs``/``test_symmetric_periodic``
(the argument parser of scipy's ``get_window``, which the shim does not reimplement),
``test_array_as_window`` (``scipy.signal.resample``) and ``test_xp_default`` (array API); and in
``TestGetWindow.test_general_cosine`` the check that scipy's ``get_window`` refuses a plain list
for ``a`` (an array-API rule of its parser). ``TestTaylor.test_correctness`` uses NumPy's FFT.
Messages matched by ``pytest.raises(match=...)`` are ropelab's, which name the argument.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_array_almost_equal

from ropelab import spectra as S

# ---------------------------------------------------------------------------------------- shim


class windows:
    """scipy.signal.windows' functions (their signatures and defaults) on ropelab."""

    @staticmethod
    def _w(name: str, M: Any, sym: bool, **params: Any) -> np.ndarray:
        return S.window(name, M, sym=sym, **params)

    @staticmethod
    def boxcar(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("boxcar", M, sym)

    @staticmethod
    def triang(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("triang", M, sym)

    @staticmethod
    def parzen(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("parzen", M, sym)

    @staticmethod
    def bohman(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("bohman", M, sym)

    @staticmethod
    def blackman(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("blackman", M, sym)

    @staticmethod
    def nuttall(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("nuttall", M, sym)

    @staticmethod
    def blackmanharris(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("blackmanharris", M, sym)

    @staticmethod
    def flattop(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("flattop", M, sym)

    @staticmethod
    def bartlett(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("bartlett", M, sym)

    @staticmethod
    def barthann(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("barthann", M, sym)

    @staticmethod
    def hamming(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("hamming", M, sym)

    @staticmethod
    def hann(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("hann", M, sym)

    @staticmethod
    def cosine(M: Any, sym: bool = True) -> np.ndarray:
        return windows._w("cosine", M, sym)

    @staticmethod
    def lanczos(M: Any, *, sym: bool = True) -> np.ndarray:
        return windows._w("lanczos", M, sym)

    @staticmethod
    def kaiser(M: Any, beta: float, sym: bool = True) -> np.ndarray:
        return windows._w("kaiser", M, sym, beta=beta)

    @staticmethod
    def kaiser_bessel_derived(M: Any, beta: float, *, sym: bool = True) -> np.ndarray:
        return windows._w("kaiser_bessel_derived", M, sym, beta=beta)

    @staticmethod
    def gaussian(M: Any, std: float, sym: bool = True) -> np.ndarray:
        return windows._w("gaussian", M, sym, std=std)

    @staticmethod
    def general_gaussian(M: Any, p: float, sig: float, sym: bool = True) -> np.ndarray:
        return windows._w("general_gaussian", M, sym, p=p, sig=sig)

    @staticmethod
    def general_cosine(M: Any, a: Any, sym: bool = True) -> np.ndarray:
        return windows._w("general_cosine", M, sym, a=a)

    @staticmethod
    def general_hamming(M: Any, alpha: float, sym: bool = True) -> np.ndarray:
        return windows._w("general_hamming", M, sym, alpha=alpha)

    @staticmethod
    def chebwin(M: Any, at: float, sym: bool = True) -> np.ndarray:
        return windows._w("chebwin", M, sym, at=at)

    @staticmethod
    def exponential(M: Any, center: float | None = None, tau: float = 1.0, sym: bool = True) -> np.ndarray:
        return windows._w("exponential", M, sym, center=center, tau=tau)

    @staticmethod
    def taylor(M: Any, nbar: int = 4, sll: float = 30, norm: bool = True, sym: bool = True) -> np.ndarray:
        return windows._w("taylor", M, sym, nbar=nbar, sll=sll, norm=norm)

    @staticmethod
    def tukey(M: Any, alpha: float = 0.5, sym: bool = True) -> np.ndarray:
        return windows._w("tukey", M, sym, alpha=alpha)

    @staticmethod
    def dpss(
        M: Any, NW: float, Kmax: Any = None, sym: bool = True, norm: Any = None, return_ratios: bool = False
    ) -> Any:
        return S.dpss(M, NW, Kmax, sym=sym, norm=norm, return_ratios=return_ratios)

    @staticmethod
    def get_window(window: Any, Nx: int, fftbins: bool = True) -> np.ndarray:
        return get_window(window, Nx, fftbins=fftbins)


#: scipy's get_window names (its _WIN_FUNC_DATA keys) → the shim's function names.
_GET_WINDOW_NAMES = {
    **{n: "barthann" for n in ("barthann", "brthan", "bth")},
    **{n: "bartlett" for n in ("bartlett", "bart", "brt")},
    **{n: "blackman" for n in ("blackman", "black", "blk")},
    **{n: "blackmanharris" for n in ("blackmanharris", "blackharr", "bkh")},
    **{n: "bohman" for n in ("bohman", "bman", "bmn")},
    **{n: "boxcar" for n in ("boxcar", "box", "ones", "rect", "rectangular")},
    **{n: "chebwin" for n in ("chebwin", "cheb")},
    **{n: "cosine" for n in ("cosine", "halfcosine")},
    **{n: "dpss" for n in ("dpss", "dss")},
    **{n: "exponential" for n in ("exponential", "poisson")},
    **{n: "flattop" for n in ("flattop", "flat", "flt")},
    **{n: "gaussian" for n in ("gaussian", "gauss", "gss")},
    **{n: "general_cosine" for n in ("general cosine", "general_cosine")},
    **{
        n: "general_gaussian" for n in ("general gaussian", "general_gaussian", "general gauss", "general_gauss", "ggs")
    },
    **{n: "general_hamming" for n in ("general hamming", "general_hamming")},
    **{n: "hamming" for n in ("hamming", "hamm", "ham")},
    **{n: "hann" for n in ("hann", "han")},
    **{n: "kaiser" for n in ("kaiser", "ksr")},
    **{n: "kaiser_bessel_derived" for n in ("kaiser bessel derived", "kbd")},
    **{n: "lanczos" for n in ("lanczos", "sinc")},
    **{n: "nuttall" for n in ("nuttall", "nutl", "nut")},
    **{n: "parzen" for n in ("parzen", "parz", "par")},
    **{n: "taylor" for n in ("taylor", "taylorwin")},
    **{n: "triang" for n in ("triangle", "triang", "tri")},
    **{n: "tukey" for n in ("tukey", "tuk")},
}


def get_window(window: Any, Nx: int, fftbins: bool = True) -> np.ndarray:
    """scipy's get_window: a name, a (name, *params) tuple or a float (Kaiser β); DFT-even unless
    ``fftbins=False``. Missing parameters are ropelab's ValueError."""
    if isinstance(window, float):
        name, args = "kaiser", (window,)
    elif isinstance(window, tuple):
        name, args = window[0], window[1:]
    elif isinstance(window, str):
        name, args = window, ()
    else:
        raise ValueError(f"window must be a string, tuple or float, got {window!r}")
    if name not in _GET_WINDOW_NAMES:
        raise ValueError(f"Invalid window name {name!r}")
    target = _GET_WINDOW_NAMES[name]
    sym = not fftbins
    if not args and target in _NEEDS_PARAMETERS:
        # ropelab refuses the window without its required parameter (ValueError naming it)
        return S.window(target, Nx, sym=sym)
    return getattr(windows, target)(Nx, *args, sym=sym)


#: The windows with a required parameter.
_NEEDS_PARAMETERS = frozenset(
    (
        "kaiser",
        "kaiser_bessel_derived",
        "gaussian",
        "general_gaussian",
        "dpss",
        "general_cosine",
        "chebwin",
        "general_hamming",
    )
)


_EPS_RTOL = 4 * math.sqrt(np.finfo(np.float64).eps)  # scipy's xp_assert_close default (float64)


def xp_assert_close(
    actual: Any, desired: Any, rtol: float | None = None, atol: float = 0, err_msg: Any = "", check_dtype: bool = True
) -> None:
    actual, desired = np.asarray(actual), np.asarray(desired, dtype=np.float64)
    assert not check_dtype or actual.dtype == np.float64, actual.dtype
    assert actual.shape == desired.shape, (actual.shape, desired.shape)
    np.testing.assert_allclose(
        actual, desired, rtol=_EPS_RTOL if rtol is None else rtol, atol=atol, err_msg=str(err_msg)
    )


def xp_assert_equal(
    actual: Any, desired: Any, err_msg: Any = "", check_dtype: bool = True, check_0d: bool = True
) -> None:
    actual, desired = np.asarray(actual), np.asarray(desired)
    assert actual.shape == desired.shape, (actual.shape, desired.shape, err_msg)
    np.testing.assert_array_equal(actual, desired, err_msg=str(err_msg))


assert_raises = pytest.raises

# ------------------------------------------------------------------------ upstream data

# fmt: off
window_funcs = [
    ('boxcar', ()),
    ('triang', ()),
    ('parzen', ()),
    ('bohman', ()),
    ('blackman', ()),
    ('nuttall', ()),
    ('blackmanharris', ()),
    ('flattop', ()),
    ('bartlett', ()),
    ('barthann', ()),
    ('hamming', ()),
    ('kaiser', (1,)),
    ('dpss', (2,)),
    ('gaussian', (0.5,)),
    ('general_gaussian', (1.5, 2)),
    ('chebwin', (1,)),
    ('cosine', ()),
    ('hann', ()),
    ('exponential', ()),
    ('taylor', ()),
    ('tukey', (0.5,)),
    ('lanczos', ()),
    ]

cheb_odd_true = [0.200938, 0.107729, 0.134941, 0.165348,
                 0.198891, 0.235450, 0.274846, 0.316836,
                 0.361119, 0.407338, 0.455079, 0.503883,
                 0.553248, 0.602637, 0.651489, 0.699227,
                 0.745266, 0.789028, 0.829947, 0.867485,
                 0.901138, 0.930448, 0.955010, 0.974482,
                 0.988591, 0.997138, 1.000000, 0.997138,
                 0.988591, 0.974482, 0.955010, 0.930448,
                 0.901138, 0.867485, 0.829947, 0.789028,
                 0.745266, 0.699227, 0.651489, 0.602637,
                 0.553248, 0.503883, 0.455079, 0.407338,
                 0.361119, 0.316836, 0.274846, 0.235450,
                 0.198891, 0.165348, 0.134941, 0.107729,
                 0.200938]

cheb_even_true = [0.203894, 0.107279, 0.133904,
                  0.163608, 0.196338, 0.231986,
                  0.270385, 0.311313, 0.354493,
                  0.399594, 0.446233, 0.493983,
                  0.542378, 0.590916, 0.639071,
                  0.686302, 0.732055, 0.775783,
                  0.816944, 0.855021, 0.889525,
                  0.920006, 0.946060, 0.967339,
                  0.983557, 0.994494, 1.000000,
                  1.000000, 0.994494, 0.983557,
                  0.967339, 0.946060, 0.920006,
                  0.889525, 0.855021, 0.816944,
                  0.775783, 0.732055, 0.686302,
                  0.639071, 0.590916, 0.542378,
                  0.493983, 0.446233, 0.399594,
                  0.354493, 0.311313, 0.270385,
                  0.231986, 0.196338, 0.163608,
                  0.133904, 0.107279, 0.203894]

exponential_data = {
    (4, None, 0.2, False):
        np.array([4.53999297624848542e-05,
               6.73794699908546700e-03, 1.00000000000000000e+00,
               6.73794699908546700e-03]),
    (4, None, 0.2, True): np.array([0.00055308437014783, 0.0820849986238988,
                                 0.0820849986238988, 0.00055308437014783]),
    (4, None, 1.0, False): np.array([0.1353352832366127, 0.36787944117144233, 1.,
                                  0.36787944117144233]),
    (4, None, 1.0, True): np.array([0.22313016014842982, 0.60653065971263342,
                                 0.60653065971263342, 0.22313016014842982]),
    (4, 2, 0.2, False):
        np.array([4.53999297624848542e-05, 6.73794699908546700e-03,
               1.00000000000000000e+00, 6.73794699908546700e-03]),
    (4, 2, 0.2, True): None,
    (4, 2, 1.0, False): np.array([0.1353352832366127, 0.36787944117144233, 1.,
                               0.36787944117144233]),
    (4, 2, 1.0, True): None,
    (5, None, 0.2, True):
        np.array([4.53999297624848542e-05,
               6.73794699908546700e-03, 1.00000000000000000e+00,
               6.73794699908546700e-03, 4.53999297624848542e-05]),
    (5, None, 1.0, True): np.array([0.1353352832366127, 0.36787944117144233, 1.,
                                 0.36787944117144233, 0.1353352832366127]),
    (5, 2, 0.2, True): None,
    (5, 2, 1.0, True): None
}

tukey_data = {
    (4, 0.5, True): np.array([0.0, 1.0, 1.0, 0.0]),
    (4, 0.9, True): np.array([0.0, 0.84312081893436686,
                           0.84312081893436686, 0.0]),
    (4, 1.0, True): np.array([0.0, 0.75, 0.75, 0.0]),
    (4, 0.5, False): np.array([0.0, 1.0, 1.0, 1.0]),
    (4, 0.9, False): np.array([0.0, 0.58682408883346526,
                            1.0, 0.58682408883346526]),
    (4, 1.0, False): np.array([0.0, 0.5, 1.0, 0.5]),
    (5, 0.0, True): np.array([1.0, 1.0, 1.0, 1.0, 1.0]),
    (5, 0.8, True): np.array([0.0, 0.69134171618254492,
                           1.0, 0.69134171618254492, 0.0]),
    (5, 1.0, True): np.array([0.0, 0.5, 1.0, 0.5, 0.0]),

    (6, 0): [1.0, 1, 1, 1, 1, 1],
    (7, 0): [1.0, 1, 1, 1, 1, 1, 1],
    (6, .25): [0.0, 1, 1, 1, 1, 0],
    (7, .25): [0.0, 1, 1, 1, 1, 1, 0],
    (6,): [0, 0.9045084971874737, 1.0, 1.0, 0.9045084971874735, 0],
    (7,): [0, 0.75, 1.0, 1.0, 1.0, 0.75, 0],
    (6, .75): [0, 0.5522642316338269, 1.0, 1.0, 0.5522642316338267, 0],
    (7, .75): [0, 0.4131759111665348, 0.9698463103929542, 1.0,
               0.9698463103929542, 0.4131759111665347, 0],
    (6, 1): [0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737,
             0.3454915028125263, 0],
    (7, 1): [0, 0.25, 0.75, 1.0, 0.75, 0.25, 0],
}

dpss_data = {
    # All values from MATLAB:
    # * taper[1] of (3, 1.4, 3) sign-flipped
    # * taper[3] of (5, 1.5, 5) sign-flipped
    (4, 0.1, 2): ([[0.497943898, 0.502047681, 0.502047681, 0.497943898], [0.670487993, 0.224601537, -0.224601537, -0.670487993]], [0.197961815, 0.002035474]),
    (3, 1.4, 3): ([[0.410233151, 0.814504464, 0.410233151], [0.707106781, 0.0, -0.707106781], [0.575941629, -0.580157287, 0.575941629]], [0.999998093, 0.998067480, 0.801934426]),
    (5, 1.5, 5): ([[0.1745071052, 0.4956749177, 0.669109327, 0.495674917, 0.174507105], [0.4399493348, 0.553574369, 0.0, -0.553574369, -0.439949334], [0.631452756, 0.073280238, -0.437943884, 0.073280238, 0.631452756], [0.553574369, -0.439949334, 0.0, 0.439949334, -0.553574369], [0.266110290, -0.498935248, 0.600414741, -0.498935248, 0.266110290147157]], [0.999728571, 0.983706916, 0.768457889, 0.234159338, 0.013947282907567]),
    (100, 2, 4): ([[0.0030914414, 0.0041266922, 0.005315076, 0.006665149, 0.008184854, 0.0098814158, 0.011761239, 0.013829809, 0.016091597, 0.018549973, 0.02120712, 0.02406396, 0.027120092, 0.030373728, 0.033821651, 0.037459181, 0.041280145, 0.045276872, 0.049440192, 0.053759447, 0.058222524, 0.062815894, 0.067524661, 0.072332638, 0.077222418, 0.082175473, 0.087172252, 0.092192299, 0.097214376, 0.1022166, 0.10717657, 0.11207154, 0.11687856, 0.12157463, 0.12613686, 0.13054266, 0.13476986, 0.13879691, 0.14260302, 0.14616832, 0.14947401, 0.1525025, 0.15523755, 0.15766438, 0.15976981, 0.16154233, 0.16297223, 0.16405162, 0.16477455, 0.16513702, 0.16513702, 0.16477455, 0.16405162, 0.16297223, 0.16154233, 0.15976981, 0.15766438, 0.15523755, 0.1525025, 0.14947401, 0.14616832, 0.14260302, 0.13879691, 0.13476986, 0.13054266, 0.12613686, 0.12157463, 0.11687856, 0.11207154, 0.10717657, 0.1022166, 0.097214376, 0.092192299, 0.087172252, 0.082175473, 0.077222418, 0.072332638, 0.067524661, 0.062815894, 0.058222524, 0.053759447, 0.049440192, 0.045276872, 0.041280145, 0.037459181, 0.033821651, 0.030373728, 0.027120092, 0.02406396, 0.02120712, 0.018549973, 0.016091597, 0.013829809, 0.011761239, 0.0098814158, 0.008184854, 0.006665149, 0.005315076, 0.0041266922, 0.0030914414], [0.018064449, 0.022040342, 0.026325013, 0.030905288, 0.035764398, 0.040881982, 0.046234148, 0.051793558, 0.057529559, 0.063408356, 0.069393216, 0.075444716, 0.081521022, 0.087578202, 0.093570567, 0.099451049, 0.10517159, 0.11068356, 0.11593818, 0.12088699, 0.12548227, 0.12967752, 0.1334279, 0.13669069, 0.13942569, 0.1415957, 0.14316686, 0.14410905, 0.14439626, 0.14400686, 0.14292389, 0.1411353, 0.13863416, 0.13541876, 0.13149274, 0.12686516, 0.12155045, 0.1155684, 0.10894403, 0.10170748, 0.093893752, 0.08554251, 0.076697768, 0.067407559, 0.057723559, 0.04770068, 0.037396627, 0.026871428, 0.016186944, 0.0054063557, -0.0054063557, -0.016186944, -0.026871428, -0.037396627, -0.04770068, -0.057723559, -0.067407559, -0.076697768, -0.08554251, -0.093893752, -0.10170748, -0.10894403, -0.1155684, -0.12155045, -0.12686516, -0.13149274, -0.13541876, -0.13863416, -0.1411353, -0.14292389, -0.14400686, -0.14439626, -0.14410905, -0.14316686, -0.1415957, -0.13942569, -0.13669069, -0.1334279, -0.12967752, -0.12548227, -0.12088699, -0.11593818, -0.11068356, -0.10517159, -0.099451049, -0.093570567, -0.087578202, -0.081521022, -0.075444716, -0.069393216, -0.063408356, -0.057529559, -0.051793558, -0.046234148, -0.040881982, -0.035764398, -0.030905288, -0.026325013, -0.022040342, -0.018064449], [0.064817553, 0.072567801, 0.080292992, 0.087918235, 0.095367076, 0.10256232, 0.10942687, 0.1158846, 0.12186124, 0.12728523, 0.13208858, 0.13620771, 0.13958427, 0.14216587, 0.14390678, 0.14476863, 0.1447209, 0.14374148, 0.14181704, 0.13894336, 0.13512554, 0.13037812, 0.1247251, 0.11819984, 0.11084487, 0.10271159, 0.093859853, 0.084357497, 0.074279719, 0.063708406, 0.052731374, 0.041441525, 0.029935953, 0.018314987, 0.0066811877, -0.0048616765, -0.016209689, -0.027259848, -0.037911124, -0.048065512, -0.05762905, -0.066512804, -0.0746338, -0.081915903, -0.088290621, -0.09369783, -0.098086416, -0.10141482, -0.10365146, -0.10477512, -0.10477512, -0.10365146, -0.10141482, -0.098086416, -0.09369783, -0.088290621, -0.081915903, -0.0746338, -0.066512804, -0.05762905, -0.048065512, -0.037911124, -0.027259848, -0.016209689, -0.0048616765, 0.0066811877, 0.018314987, 0.029935953, 0.041441525, 0.052731374, 0.063708406, 0.074279719, 0.084357497, 0.093859853, 0.10271159, 0.11084487, 0.11819984, 0.1247251, 0.13037812, 0.13512554, 0.13894336, 0.14181704, 0.14374148, 0.1447209, 0.14476863, 0.14390678, 0.14216587, 0.13958427, 0.13620771, 0.13208858, 0.12728523, 0.12186124, 0.1158846, 0.10942687, 0.10256232, 0.095367076, 0.087918235, 0.080292992, 0.072567801, 0.064817553], [0.14985551, 0.15512305, 0.15931467, 0.16236806, 0.16423291, 0.16487165, 0.16426009, 0.1623879, 0.1592589, 0.15489114, 0.14931693, 0.14258255, 0.13474785, 0.1258857, 0.11608124, 0.10543095, 0.094041635, 0.082029213, 0.069517411, 0.056636348, 0.043521028, 0.030309756, 0.017142511, 0.0041592774, -0.0085016282, -0.020705223, -0.032321494, -0.043226982, -0.053306291, -0.062453515, -0.070573544, -0.077583253, -0.083412547, -0.088005244, -0.091319802, -0.093329861, -0.094024602, -0.093408915, -0.091503383, -0.08834406, -0.08398207, -0.078483012, -0.071926192, -0.064403681, -0.056019215, -0.046886954, -0.037130106, -0.026879442, -0.016271713, -0.005448, 0.005448, 0.016271713, 0.026879442, 0.037130106, 0.046886954, 0.056019215, 0.064403681, 0.071926192, 0.078483012, 0.08398207, 0.08834406, 0.091503383, 0.093408915, 0.094024602, 0.093329861, 0.091319802, 0.088005244, 0.083412547, 0.077583253, 0.070573544, 0.062453515, 0.053306291, 0.043226982, 0.032321494, 0.020705223, 0.0085016282, -0.0041592774, -0.017142511, -0.030309756, -0.043521028, -0.056636348, -0.069517411, -0.082029213, -0.094041635, -0.10543095, -0.11608124, -0.1258857, -0.13474785, -0.14258255, -0.14931693, -0.15489114, -0.1592589, -0.1623879, -0.16426009, -0.16487165, -0.16423291, -0.16236806, -0.15931467, -0.15512305, -0.14985551]], [0.999943140, 0.997571533, 0.959465463, 0.721862496]),
}

_winstr = ['barthann',
           'bartlett',
           'blackman',
           'blackmanharris',
           'bohman',
           'boxcar',
           'cosine',
           'flattop',
           'hamming',
           'nuttall',
           'parzen',
           'taylor',
           'exponential',
           'poisson',
           'tukey',
           'tuk',
           'triangle',
           'lanczos',
           'sinc',
]
# fmt: on


# ------------------------------------------------------------------- upstream test cases


class TestBartHann:
    def test_basic(self):
        xp_assert_close(
            windows.barthann(6, sym=True),
            np.asarray(
                [0, 0.35857354213752, 0.8794264578624801, 0.8794264578624801, 0.3585735421375199, 0], dtype=np.float64
            ),
            rtol=1e-15,
            atol=1e-15,
        )
        xp_assert_close(
            windows.barthann(7),
            np.asarray([0, 0.27, 0.73, 1.0, 0.73, 0.27, 0], dtype=np.float64),
            rtol=1e-15,
            atol=1e-15,
        )
        xp_assert_close(
            windows.barthann(6, False),
            np.asarray([0, 0.27, 0.73, 1.0, 0.73, 0.27], dtype=np.float64),
            rtol=1e-15,
            atol=1e-15,
        )


class TestBartlett:
    def test_basic(self):
        xp_assert_close(windows.bartlett(6), np.asarray([0, 0.4, 0.8, 0.8, 0.4, 0], dtype=np.float64))
        xp_assert_close(windows.bartlett(7), np.asarray([0, 1 / 3, 2 / 3, 1.0, 2 / 3, 1 / 3, 0], dtype=np.float64))
        xp_assert_close(windows.bartlett(6, False), np.asarray([0, 1 / 3, 2 / 3, 1.0, 2 / 3, 1 / 3], dtype=np.float64))


class TestBlackman:
    def test_basic(self):
        xp_assert_close(
            windows.blackman(6, sym=False), np.asarray([0, 0.13, 0.63, 1.0, 0.63, 0.13], dtype=np.float64), atol=1e-14
        )
        xp_assert_close(
            windows.blackman(7, sym=False),
            np.asarray(
                [
                    0,
                    0.09045342435412804,
                    0.4591829575459636,
                    0.9203636180999081,
                    0.9203636180999081,
                    0.4591829575459636,
                    0.09045342435412804,
                ],
                dtype=np.float64,
            ),
            atol=1e-8,
        )
        xp_assert_close(
            windows.blackman(6),
            np.asarray(
                [0, 0.2007701432625305, 0.8492298567374694, 0.8492298567374694, 0.2007701432625305, 0], dtype=np.float64
            ),
            atol=1e-14,
        )
        xp_assert_close(
            windows.blackman(7, True), np.asarray([0, 0.13, 0.63, 1.0, 0.63, 0.13, 0], dtype=np.float64), atol=1e-14
        )


class TestBlackmanHarris:
    def test_basic(self):
        xp_assert_close(
            windows.blackmanharris(6, False),
            np.asarray([6.0e-05, 0.055645, 0.520575, 1.0, 0.520575, 0.055645], dtype=np.float64),
        )
        xp_assert_close(
            windows.blackmanharris(7, sym=False),
            np.asarray(
                [
                    6.0e-05,
                    0.03339172347815117,
                    0.332833504298565,
                    0.8893697722232837,
                    0.8893697722232838,
                    0.3328335042985652,
                    0.03339172347815122,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.blackmanharris(6),
            np.asarray(
                [6.0e-05, 0.1030114893456638, 0.7938335106543362, 0.7938335106543364, 0.1030114893456638, 6.0e-05],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.blackmanharris(7, sym=True),
            np.asarray([6.0e-05, 0.055645, 0.520575, 1.0, 0.520575, 0.055645, 6.0e-05], dtype=np.float64),
        )


class TestTaylor:
    def test_normalized(self):
        """Tests windows of small length that are normalized to 1. See the
        documentation for the Taylor window for more information on
        normalization.
        """
        xp_assert_close(windows.taylor(1, 2, 15), np.asarray([1.0], dtype=np.float64))
        xp_assert_close(
            windows.taylor(5, 2, 15),
            np.asarray([0.75803341, 0.90757699, 1.0, 0.90757699, 0.75803341], dtype=np.float64),
        )
        xp_assert_close(
            windows.taylor(6, 2, 15),
            np.asarray([0.7504082, 0.86624416, 0.98208011, 0.98208011, 0.86624416, 0.7504082], dtype=np.float64),
        )

    def test_non_normalized(self):
        """Test windows of small length that are not normalized to 1. See
        the documentation for the Taylor window for more information on
        normalization.
        """
        xp_assert_close(
            windows.taylor(5, 2, 15, norm=False),
            np.asarray([0.87508054, 1.04771499, 1.15440894, 1.04771499, 0.87508054], dtype=np.float64),
        )
        xp_assert_close(
            windows.taylor(6, 2, 15, norm=False),
            np.asarray([0.86627793, 1.0, 1.13372207, 1.13372207, 1.0, 0.86627793], dtype=np.float64),
        )

    def test_correctness(self):
        """This test ensures the correctness of the implemented Taylor
        Windowing function. A Taylor Window of 1024 points is created, its FFT
        is taken, and the Peak Sidelobe Level (PSLL) and 3dB and 18dB bandwidth
        are found and checked.

        A publication from Sandia National Laboratories was used as reference
        for the correctness values [1]_.

        References
        -----
        .. [1] Armin Doerry, "Catalog of Window Taper Functions for
               Sidelobe Control", 2017.
               https://www.researchgate.net/profile/Armin_Doerry/publication/316281181_Catalog_of_Window_Taper_Functions_for_Sidelobe_Control/links/58f92cb2a6fdccb121c9d54d/Catalog-of-Window-Taper-Functions-for-Sidelobe-Control.pdf
        """
        M_win = 1024
        N_fft = 131072
        # Set norm=False for correctness as the values obtained from the
        # scientific publication do not normalize the values. Normalizing
        # changes the sidelobe level from the desired value.
        w = windows.taylor(M_win, nbar=4, sll=35, norm=False, sym=False)
        f_np = np.fft.fft(np.asarray(w), N_fft)

        spec = 20 * np.log10(np.abs(f_np / np.max(f_np)))

        first_zero = np.argmax(np.diff(spec) > 0)

        PSLL = np.max(spec[first_zero:-first_zero])

        BW_3dB = 2 * np.argmax(spec <= -3.0102999566398121) / N_fft * M_win
        BW_18dB = 2 * np.argmax(spec <= -18.061799739838872) / N_fft * M_win

        assert math.isclose(PSLL, -35.1672, abs_tol=1)
        assert math.isclose(BW_3dB, 1.1822, abs_tol=0.1)
        assert math.isclose(BW_18dB, 2.6112, abs_tol=0.1)


class TestBohman:
    def test_basic(self):
        xp_assert_close(
            windows.bohman(6),
            np.asarray(
                [0, 0.1791238937062839, 0.8343114522576858, 0.8343114522576858, 0.1791238937062838, 0], dtype=np.float64
            ),
        )
        xp_assert_close(
            windows.bohman(7, sym=True),
            np.asarray(
                [0, 0.1089977810442293, 0.6089977810442293, 1.0, 0.6089977810442295, 0.1089977810442293, 0],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.bohman(6, False),
            np.asarray(
                [0, 0.1089977810442293, 0.6089977810442293, 1.0, 0.6089977810442295, 0.1089977810442293],
                dtype=np.float64,
            ),
        )


class TestBoxcar:
    def test_basic(self):
        xp_assert_close(windows.boxcar(6), np.asarray([1.0, 1, 1, 1, 1, 1], dtype=np.float64))
        xp_assert_close(windows.boxcar(7), np.asarray([1.0, 1, 1, 1, 1, 1, 1], dtype=np.float64))
        xp_assert_close(windows.boxcar(6, False), np.asarray([1.0, 1, 1, 1, 1, 1], dtype=np.float64))


class TestChebWin:
    def test_basic(self):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
            xp_assert_close(
                windows.chebwin(6, 100),
                np.asarray(
                    [0.1046401879356917, 0.5075781475823447, 1.0, 1.0, 0.5075781475823447, 0.1046401879356917],
                    dtype=np.float64,
                ),
                atol=1e-8,
            )
            xp_assert_close(
                windows.chebwin(7, 100),
                np.asarray(
                    [
                        0.05650405062850233,
                        0.316608530648474,
                        0.7601208123539079,
                        1.0,
                        0.7601208123539079,
                        0.316608530648474,
                        0.05650405062850233,
                    ],
                    dtype=np.float64,
                ),
            )
            xp_assert_close(
                windows.chebwin(6, 10),
                np.asarray(
                    [1.0, 0.6071201674458373, 0.6808391469897297, 0.6808391469897297, 0.6071201674458373, 1.0],
                    dtype=np.float64,
                ),
            )
            xp_assert_close(
                windows.chebwin(7, 10),
                np.asarray(
                    [
                        1.0,
                        0.5190521247588651,
                        0.5864059018130382,
                        0.6101519801307441,
                        0.5864059018130382,
                        0.5190521247588651,
                        1.0,
                    ],
                    dtype=np.float64,
                ),
            )
            xp_assert_close(
                windows.chebwin(6, 10, False),
                np.asarray(
                    [
                        1.0,
                        0.5190521247588651,
                        0.5864059018130382,
                        0.6101519801307441,
                        0.5864059018130382,
                        0.5190521247588651,
                    ],
                    dtype=np.float64,
                ),
            )

    def test_cheb_odd_high_attenuation(self):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
            cheb_odd = windows.chebwin(53, at=-40)
        assert_array_almost_equal(cheb_odd, np.asarray(cheb_odd_true), decimal=4)

    def test_cheb_even_high_attenuation(self):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
            cheb_even = windows.chebwin(54, at=40)
        assert_array_almost_equal(cheb_even, np.asarray(cheb_even_true), decimal=4)

    def test_cheb_odd_low_attenuation(self):
        cheb_odd_low_at_true = np.asarray(
            [1.000000, 0.519052, 0.586405, 0.610151, 0.586405, 0.519052, 1.000000], dtype=np.float64
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
            cheb_odd = windows.chebwin(7, at=10)
        assert_array_almost_equal(cheb_odd, cheb_odd_low_at_true, decimal=4)

    def test_cheb_even_low_attenuation(self):
        cheb_even_low_at_true = np.asarray(
            [1.000000, 0.451924, 0.51027, 0.541338, 0.541338, 0.51027, 0.451924, 1.000000], dtype=np.float64
        )
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
            cheb_even = windows.chebwin(8, at=-10)
        assert_array_almost_equal(cheb_even, cheb_even_low_at_true, decimal=4)


def test_exponential():
    for k, v in exponential_data.items():
        if v is None:
            assert_raises(ValueError, windows.exponential, *k)
        else:
            win = windows.exponential(*k)
            xp_assert_close(win, np.asarray(v), rtol=1e-14)


class TestFlatTop:
    def test_basic(self):
        xp_assert_close(
            windows.flattop(6, sym=False),
            np.asarray([-0.000421051, -0.051263156, 0.19821053, 1.0, 0.19821053, -0.051263156], dtype=np.float64),
        )
        xp_assert_close(
            windows.flattop(7, sym=False),
            np.asarray(
                [
                    -0.000421051,
                    -0.03684078115492348,
                    0.01070371671615342,
                    0.7808739149387698,
                    0.7808739149387698,
                    0.01070371671615342,
                    -0.03684078115492348,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.flattop(6),
            np.asarray(
                [
                    -0.000421051,
                    -0.0677142520762119,
                    0.6068721525762117,
                    0.6068721525762117,
                    -0.0677142520762119,
                    -0.000421051,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.flattop(7, True),
            np.asarray(
                [-0.000421051, -0.051263156, 0.19821053, 1.0, 0.19821053, -0.051263156, -0.000421051], dtype=np.float64
            ),
        )


class TestGaussian:
    def test_basic(self):
        xp_assert_close(
            windows.gaussian(6, 1.0),
            np.asarray(
                [
                    0.04393693362340742,
                    0.3246524673583497,
                    0.8824969025845955,
                    0.8824969025845955,
                    0.3246524673583497,
                    0.04393693362340742,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.gaussian(7, 1.2),
            np.asarray(
                [
                    0.04393693362340742,
                    0.2493522087772962,
                    0.7066482778577162,
                    1.0,
                    0.7066482778577162,
                    0.2493522087772962,
                    0.04393693362340742,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.gaussian(7, 3),
            np.asarray(
                [
                    0.6065306597126334,
                    0.8007374029168081,
                    0.9459594689067654,
                    1.0,
                    0.9459594689067654,
                    0.8007374029168081,
                    0.6065306597126334,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.gaussian(6, 3, False),
            np.asarray(
                [
                    0.6065306597126334,
                    0.8007374029168081,
                    0.9459594689067654,
                    1.0,
                    0.9459594689067654,
                    0.8007374029168081,
                ],
                dtype=np.float64,
            ),
        )


class TestGeneralCosine:
    def test_basic(self):
        a = np.asarray([0.5, 0.3, 0.2])
        xp_assert_close(windows.general_cosine(5, a), np.asarray([0.4, 0.3, 1, 0.3, 0.4], dtype=np.float64))

        a = np.asarray([0.5, 0.3, 0.2])
        xp_assert_close(windows.general_cosine(4, a, sym=False), np.asarray([0.4, 0.3, 1, 0.3], dtype=np.float64))


class TestGeneralHamming:
    def test_basic(self):
        xp_assert_close(windows.general_hamming(5, 0.7), np.asarray([0.4, 0.7, 1.0, 0.7, 0.4], dtype=np.float64))
        xp_assert_close(
            windows.general_hamming(5, 0.75, sym=False),
            np.asarray([0.5, 0.6727457514, 0.9522542486, 0.9522542486, 0.6727457514], dtype=np.float64),
        )
        xp_assert_close(
            windows.general_hamming(6, 0.75, sym=True),
            np.asarray([0.5, 0.6727457514, 0.9522542486, 0.9522542486, 0.6727457514, 0.5], dtype=np.float64),
        )


class TestHamming:
    def test_basic(self):
        xp_assert_close(windows.hamming(6, False), np.asarray([0.08, 0.31, 0.77, 1.0, 0.77, 0.31], dtype=np.float64))
        xp_assert_close(
            windows.hamming(7, sym=False),
            np.asarray(
                [
                    0.08,
                    0.2531946911449826,
                    0.6423596296199047,
                    0.9544456792351128,
                    0.9544456792351128,
                    0.6423596296199047,
                    0.2531946911449826,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.hamming(6),
            np.asarray(
                [0.08, 0.3978521825875242, 0.9121478174124757, 0.9121478174124757, 0.3978521825875242, 0.08],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.hamming(7, sym=True), np.asarray([0.08, 0.31, 0.77, 1.0, 0.77, 0.31, 0.08], dtype=np.float64)
        )


class TestHann:
    def test_basic(self):
        xp_assert_close(
            windows.hann(6, sym=False),
            np.asarray([0, 0.25, 0.75, 1.0, 0.75, 0.25], dtype=np.float64),
            rtol=1e-15,
            atol=1e-15,
        )
        xp_assert_close(
            windows.hann(7, sym=False),
            np.asarray(
                [
                    0,
                    0.1882550990706332,
                    0.6112604669781572,
                    0.9504844339512095,
                    0.9504844339512095,
                    0.6112604669781572,
                    0.1882550990706332,
                ],
                dtype=np.float64,
            ),
            rtol=1e-15,
            atol=1e-15,
        )
        xp_assert_close(
            windows.hann(6, True),
            np.asarray(
                [0, 0.3454915028125263, 0.9045084971874737, 0.9045084971874737, 0.3454915028125263, 0], dtype=np.float64
            ),
            rtol=1e-15,
            atol=1e-15,
        )
        xp_assert_close(
            windows.hann(7), np.asarray([0, 0.25, 0.75, 1.0, 0.75, 0.25, 0], dtype=np.float64), rtol=1e-15, atol=1e-15
        )


class TestKaiser:
    def test_basic(self):
        xp_assert_close(
            windows.kaiser(6, 0.5),
            np.asarray(
                [
                    0.9403061933191572,
                    0.9782962393705389,
                    0.9975765035372042,
                    0.9975765035372042,
                    0.9782962393705389,
                    0.9403061933191572,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.kaiser(7, 0.5),
            np.asarray(
                [
                    0.9403061933191572,
                    0.9732402256999829,
                    0.9932754654413773,
                    1.0,
                    0.9932754654413773,
                    0.9732402256999829,
                    0.9403061933191572,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.kaiser(6, 2.7),
            np.asarray(
                [
                    0.2603047507678832,
                    0.6648106293528054,
                    0.9582099802511439,
                    0.9582099802511439,
                    0.6648106293528054,
                    0.2603047507678832,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.kaiser(7, 2.7),
            np.asarray(
                [
                    0.2603047507678832,
                    0.5985765418119844,
                    0.8868495172060835,
                    1.0,
                    0.8868495172060835,
                    0.5985765418119844,
                    0.2603047507678832,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.kaiser(6, 2.7, False),
            np.asarray(
                [
                    0.2603047507678832,
                    0.5985765418119844,
                    0.8868495172060835,
                    1.0,
                    0.8868495172060835,
                    0.5985765418119844,
                ],
                dtype=np.float64,
            ),
        )


class TestKaiserBesselDerived:
    def test_basic(self):
        # cover case `M < 1`
        w = windows.kaiser_bessel_derived(0.5, beta=4.0)
        xp_assert_equal(w, np.asarray([]))

        M = 100
        w = windows.kaiser_bessel_derived(M, beta=4.0)
        w2 = windows.get_window(("kaiser bessel derived", 4.0), M, fftbins=False)
        xp_assert_close(w, w2)

        # Test for Princen-Bradley condition
        actual = w[: M // 2] ** 2 + w[-M // 2 :] ** 2
        xp_assert_close(actual, np.ones(actual.shape, dtype=actual.dtype))

        # Test actual values from other implementations
        # M = 2:  sqrt(2) / 2
        # M = 4:  0.518562710536, 0.855039598640
        # M = 6:  0.436168993154, 0.707106781187, 0.899864772847
        # Ref:https://github.com/scipy/scipy/pull/4747#issuecomment-172849418
        actual = windows.kaiser_bessel_derived(2, beta=np.pi / 2)[:1]
        desired = np.ones_like(actual) * math.sqrt(2) / 2.0
        xp_assert_close(actual, desired)

        xp_assert_close(
            windows.kaiser_bessel_derived(4, beta=np.pi / 2)[:2],
            np.asarray([0.518562710536, 0.855039598640], dtype=np.float64),
        )

        xp_assert_close(
            windows.kaiser_bessel_derived(6, beta=np.pi / 2)[:3],
            np.asarray([0.436168993154, 0.707106781187, 0.899864772847], dtype=np.float64),
        )

    def test_exceptions(self):
        M = 100
        # Assert ValueError for odd window length
        # (ropelab's messages name the argument: the match is ropelab's, the case scipy's)
        msg = "N must be even for window 'kaiser_bessel_derived'"
        with assert_raises(ValueError, match=msg):
            windows.kaiser_bessel_derived(M + 1, beta=4.0)

        # Assert ValueError for non-symmetric setting
        msg = "sym must be True for window 'kaiser_bessel_derived'"
        with assert_raises(ValueError, match=msg):
            windows.kaiser_bessel_derived(M + 1, beta=4.0, sym=False)


class TestNuttall:
    def test_basic(self):
        xp_assert_close(
            windows.nuttall(6, sym=False),
            np.asarray([0.0003628, 0.0613345, 0.5292298, 1.0, 0.5292298, 0.0613345], dtype=np.float64),
        )
        xp_assert_close(
            windows.nuttall(7, sym=False),
            np.asarray(
                [
                    0.0003628,
                    0.03777576895352025,
                    0.3427276199688195,
                    0.8918518610776603,
                    0.8918518610776603,
                    0.3427276199688196,
                    0.0377757689535203,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.nuttall(6),
            np.asarray(
                [0.0003628, 0.1105152530498718, 0.7982580969501282, 0.7982580969501283, 0.1105152530498719, 0.0003628],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.nuttall(7, True),
            np.asarray([0.0003628, 0.0613345, 0.5292298, 1.0, 0.5292298, 0.0613345, 0.0003628], dtype=np.float64),
        )


class TestParzen:
    def test_basic(self):
        xp_assert_close(
            windows.parzen(6),
            np.asarray(
                [0.009259259259259254, 0.25, 0.8611111111111112, 0.8611111111111112, 0.25, 0.009259259259259254],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.parzen(7, sym=True),
            np.asarray(
                [
                    0.00583090379008747,
                    0.1574344023323616,
                    0.6501457725947521,
                    1.0,
                    0.6501457725947521,
                    0.1574344023323616,
                    0.00583090379008747,
                ],
                dtype=np.float64,
            ),
        )
        xp_assert_close(
            windows.parzen(6, False),
            np.asarray(
                [
                    0.00583090379008747,
                    0.1574344023323616,
                    0.6501457725947521,
                    1.0,
                    0.6501457725947521,
                    0.1574344023323616,
                ],
                dtype=np.float64,
            ),
        )


class TestTriang:
    def test_basic(self):

        xp_assert_close(
            windows.triang(6, True), np.asarray([1 / 6, 1 / 2, 5 / 6, 5 / 6, 1 / 2, 1 / 6], dtype=np.float64)
        )
        xp_assert_close(windows.triang(7), np.asarray([1 / 4, 1 / 2, 3 / 4, 1, 3 / 4, 1 / 2, 1 / 4], dtype=np.float64))
        xp_assert_close(
            windows.triang(6, sym=False), np.asarray([1 / 4, 1 / 2, 3 / 4, 1, 3 / 4, 1 / 2], dtype=np.float64)
        )


class TestTukey:
    def test_basic(self):
        # Test against hardcoded data
        for k, v in tukey_data.items():
            if v is None:
                assert_raises(ValueError, windows.tukey, *k)
            else:
                if False and k in [(6,), (6, 0.75), (7, 0.75), (6, 1)]:
                    atol_rtol = {"rtol": 3e-8, "atol": 1e-8}
                else:
                    atol_rtol = {"rtol": 1e-15, "atol": 1e-15}

                win = windows.tukey(*k)
                xp_assert_close(win, np.asarray(v), check_dtype=False, **atol_rtol)

    def test_extremes(self):
        # Test extremes of alpha correspond to boxcar and hann
        tuk0 = windows.tukey(100, 0)
        box0 = windows.boxcar(100)
        xp_assert_close(tuk0, box0)

        tuk1 = windows.tukey(100, 1)
        han1 = windows.hann(100)
        xp_assert_close(tuk1, han1)


class TestDPSS:
    def test_basic(self):
        # Test against hardcoded data
        for k, v in dpss_data.items():
            win, ratios = windows.dpss(*k, return_ratios=True)
            xp_assert_close(win, v[0], atol=1e-7, err_msg=k)
            xp_assert_close(ratios, v[1], rtol=1e-5, atol=1e-7, err_msg=k)

    def test_unity(self):
        # Test unity value handling (gh-2221)
        for M in range(1, 21):
            # corrected w/approximation (default)
            win = windows.dpss(M, M / 2.1)
            expected = M % 2  # one for odd, none for even
            xp_assert_equal(np.isclose(win, 1.0).sum(), expected, err_msg=f"{win}")
            # corrected w/subsample delay (slower)
            win_sub = windows.dpss(M, M / 2.1, norm="subsample")
            if M > 2:
                # @M=2 the subsample doesn't do anything
                xp_assert_equal(np.isclose(win_sub, 1.0).sum(), expected, err_msg=f"{win_sub}")
                xp_assert_close(win, win_sub, rtol=0.03)  # within 3%
            # not the same, l2-norm
            win_2 = windows.dpss(M, M / 2.1, norm=2)
            expected = 1 if M == 1 else 0
            xp_assert_equal(np.isclose(win_2, 1.0).sum(), expected, err_msg=f"{win_2}")

    def test_extremes(self):
        # Test extremes of alpha
        lam = windows.dpss(31, 6, 4, return_ratios=True)[1]
        xp_assert_close(lam, np.ones_like(lam))
        lam = windows.dpss(31, 7, 4, return_ratios=True)[1]
        xp_assert_close(lam, np.ones_like(lam))
        lam = windows.dpss(31, 8, 4, return_ratios=True)[1]
        xp_assert_close(lam, np.ones_like(lam))

    def test_degenerate(self):
        # Test failures
        assert_raises(ValueError, windows.dpss, 4, 1.5, -1)  # Bad Kmax
        assert_raises(ValueError, windows.dpss, 4, 1.5, -5)
        assert_raises(TypeError, windows.dpss, 4, 1.5, 1.1)
        assert_raises(ValueError, windows.dpss, 3, 1.5, 3)  # NW must be < N/2.
        assert_raises(ValueError, windows.dpss, 3, -1, 3)  # NW must be pos
        assert_raises(ValueError, windows.dpss, 3, 0, 3)
        assert_raises(ValueError, windows.dpss, -1, 1, 3)  # negative M

    def test_degenerate_signle_samples(self):
        # Single samples
        w = windows.dpss(1, 1.0)
        xp_assert_equal(w, [1.0])
        w, ratio = windows.dpss(1, 1.0, return_ratios=True)
        xp_assert_equal(w, [1.0])
        assert ratio == 1.0
        w, ratio = windows.dpss(1, 1.0, Kmax=4, return_ratios=True)
        xp_assert_equal(w, [1.0])
        assert isinstance(ratio, np.ndarray)
        xp_assert_equal(ratio, [1.0])

        assert_raises(ValueError, windows.dpss, 4, 1.5, -1)  # Bad Kmax
        assert_raises(ValueError, windows.dpss, 4, 1.5, -5)
        assert_raises(TypeError, windows.dpss, 4, 1.5, 1.1)
        assert_raises(ValueError, windows.dpss, 3, 1.5, 3)  # NW must be < N/2.
        assert_raises(ValueError, windows.dpss, 3, -1, 3)  # NW must be pos
        assert_raises(ValueError, windows.dpss, 3, 0, 3)
        assert_raises(ValueError, windows.dpss, -1, 1, 3)  # negative M


class TestLanczos:
    def test_basic(self):
        # Analytical results:
        # sinc(x) = sinc(-x)
        # sinc(pi) = 0, sinc(0) = 1
        # Hand computation on WolframAlpha:
        # sinc(2 pi / 3) = 0.413496672
        # sinc(pi / 3) = 0.826993343
        # sinc(3 pi / 5) = 0.504551152
        # sinc(pi / 5) = 0.935489284
        xp_assert_close(
            windows.lanczos(6, sym=False),
            np.asarray([0.0, 0.413496672, 0.826993343, 1.0, 0.826993343, 0.413496672], dtype=np.float64),
            atol=1e-9,
        )
        xp_assert_close(
            windows.lanczos(6),
            np.asarray([0.0, 0.504551152, 0.935489284, 0.935489284, 0.504551152, 0.0], dtype=np.float64),
            atol=1e-9,
        )
        xp_assert_close(
            windows.lanczos(7, sym=True),
            np.asarray([0.0, 0.413496672, 0.826993343, 1.0, 0.826993343, 0.413496672, 0.0], dtype=np.float64),
            atol=1e-9,
        )

    def test_array_size(self):
        for n in [0, 10, 11]:
            assert windows.lanczos(n, sym=False).shape[0] == n
            assert windows.lanczos(n, sym=True).shape[0] == n


class TestGetWindow:
    """Unit test for `scipy.signal.get_windows`."""

    def test_boxcar(self):
        w = windows.get_window("boxcar", 12)
        xp_assert_equal(w, np.ones_like(w))

    def test_general_cosine(self):
        xp_assert_close(
            get_window(("general_cosine", np.asarray([0.5, 0.3, 0.2])), 4),
            np.asarray([0.4, 0.3, 1, 0.3], dtype=np.float64),
        )
        xp_assert_close(
            get_window(("general_cosine", np.asarray([0.5, 0.3, 0.2])), 4, fftbins=False),
            np.asarray([0.4, 0.55, 0.55, 0.4], dtype=np.float64),
        )

    def test_general_hamming(self):
        xp_assert_close(
            get_window(("general_hamming", 0.7), 5),
            np.asarray([0.4, 0.6072949, 0.9427051, 0.9427051, 0.6072949], dtype=np.float64),
        )
        xp_assert_close(
            get_window(("general_hamming", 0.7), 5, fftbins=False),
            np.asarray([0.4, 0.7, 1.0, 0.7, 0.4], dtype=np.float64),
        )

    def test_lanczos(self):
        xp_assert_close(
            get_window("lanczos", 6),
            np.asarray([0.0, 0.413496672, 0.826993343, 1.0, 0.826993343, 0.413496672], dtype=np.float64),
            atol=1e-9,
        )
        xp_assert_close(
            get_window("lanczos", 6, fftbins=False),
            np.asarray([0.0, 0.504551152, 0.935489284, 0.935489284, 0.504551152, 0.0], dtype=np.float64),
            atol=1e-9,
        )
        xp_assert_close(get_window("lanczos", 6), get_window("sinc", 6))


@pytest.mark.parametrize(("window_name", "params"), window_funcs)
def test_windowfunc_basics(window_name, params):
    window = getattr(windows, window_name)

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "This window is not suitable", UserWarning)
        # Check symmetry for odd and even lengths
        w1 = window(8, *params, sym=True)
        w2 = window(7, *params, sym=False)
        xp_assert_close(w1[:-1], w2)

        w1 = window(9, *params, sym=True)
        w2 = window(8, *params, sym=False)
        xp_assert_close(w1[:-1], w2)

        # Check that functions run and output lengths are correct
        assert window(6, *params, sym=True).shape[0] == 6
        assert window(6, *params, sym=False).shape[0] == 6
        assert window(7, *params, sym=True).shape[0] == 7
        assert window(7, *params, sym=False).shape[0] == 7

        # Check invalid lengths
        assert_raises(ValueError, window, 5.5, *params)
        assert_raises(ValueError, window, -7, *params)

        # Check degenerate cases
        xp_assert_equal(window(0, *params, sym=True), np.asarray([], dtype=np.float64))
        xp_assert_equal(window(0, *params, sym=False), np.asarray([], dtype=np.float64))
        xp_assert_equal(window(1, *params, sym=True), np.asarray([1.0], dtype=np.float64))
        xp_assert_equal(window(1, *params, sym=False), np.asarray([1.0], dtype=np.float64))

        # Check dtype
        assert window(0, *params, sym=True).dtype == np.float64
        assert window(0, *params, sym=False).dtype == np.float64
        assert window(1, *params, sym=True).dtype == np.float64
        assert window(1, *params, sym=False).dtype == np.float64
        assert window(6, *params, sym=True).dtype == np.float64
        assert window(6, *params, sym=False).dtype == np.float64

        # Check normalization
        assert np.all(window(10, *params, sym=True) < 1.01)
        assert np.all(window(10, *params, sym=False) < 1.01)
        assert np.all(window(9, *params, sym=True) < 1.01)
        assert np.all(window(9, *params, sym=False) < 1.01)

        # Check that DFT-even spectrum is purely real for odd and even
        res = np.fft.fft(window(10, *params, sym=False))
        res = np.imag(res)
        xp_assert_close(res, np.zeros_like(res), atol=1e-14)

        res = np.fft.fft(window(11, *params, sym=False))
        res = np.imag(res)
        xp_assert_close(res, np.zeros_like(res), atol=1e-14)


def test_needs_params():
    for winstr in [
        "kaiser",
        "ksr",
        "kaiser_bessel_derived",
        "kbd",
        "gaussian",
        "gauss",
        "gss",
        "general gaussian",
        "general_gaussian",
        "general gauss",
        "general_gauss",
        "ggs",
        "dss",
        "dpss",
        "general cosine",
        "general_cosine",
        "chebwin",
        "cheb",
        "general hamming",
        "general_hamming",
    ]:
        assert_raises(ValueError, get_window, winstr, 7)


@pytest.mark.parametrize("winstr", _winstr)
def test_not_needs_params(winstr):
    win = get_window(winstr, 7)
    assert win.shape[0] == 7


def test_symmetric():

    for win in [windows.lanczos]:
        # Even sampling points
        w = win(4096)
        flip = np.flip
        error = np.max(np.abs(w - flip(w)))
        xp_assert_equal(error, np.asarray(0.0), check_dtype=False, check_0d=False)

        # Odd sampling points
        w = win(4097)
        error = np.max(np.abs(w - flip(w)))
        xp_assert_equal(error, np.asarray(0.0), check_dtype=False, check_0d=False)
