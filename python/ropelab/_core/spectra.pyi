"""
windows, FFTW/DTFT spectra, SSM closed forms, figures of merit
"""
from __future__ import annotations
import builtins
import numpy
import numpy.typing
import ropelab._core.result
import typing
__all__: list[str] = ['FiguresOfMerit', 'LeakageMap', 'WindowInfo', 'WindowParameter', 'cached_plan_count', 'continuous_spectrum', 'dpss', 'dtft', 'figures_of_merit', 'leakage_map', 'spectrum', 'ssm_envelope', 'ssm_impulse', 'ssm_kernel', 'ssm_spectrum', 'window', 'window_aliases', 'window_info', 'window_names', 'window_parameters', 'zoh']
class FiguresOfMerit(ropelab._core.result.Result):
    """
    Figures of merit of a window (Harris 1978); frequencies in bins (the documented class is ropelab.spectra.FiguresOfMerit).
    """
    __match_args__: typing.ClassVar[tuple] = ('N', 'pad', 'coherent_gain', 'enbw_bins', 'scalloping_loss_db', 'worst_case_processing_loss_db', 'bandwidth_3db_bins', 'bandwidth_6db_bins', 'first_min_bins', 'first_min_db', 'first_min_is_null', 'highest_sidelobe_db', 'highest_sidelobe_bins', 'sidelobe_falloff_db_per_octave', 'overlap_correlation_50', 'overlap_correlation_75', 'leakage_factor', 'is_causal_exponential', 'decay_ratio', 'truncation_ripple_db')
    _field_types: typing.ClassVar[dict] = {'N': 'int', 'pad': 'int', 'coherent_gain': 'float', 'enbw_bins': 'float', 'scalloping_loss_db': 'float', 'worst_case_processing_loss_db': 'float', 'bandwidth_3db_bins': 'float', 'bandwidth_6db_bins': 'float', 'first_min_bins': 'float', 'first_min_db': 'float', 'first_min_is_null': 'bool', 'highest_sidelobe_db': 'float', 'highest_sidelobe_bins': 'float', 'sidelobe_falloff_db_per_octave': 'float', 'overlap_correlation_50': 'float', 'overlap_correlation_75': 'float', 'leakage_factor': 'float', 'is_causal_exponential': 'bool', 'decay_ratio': 'float | None', 'truncation_ripple_db': 'float | None'}
    _fields: typing.ClassVar[tuple] = ('N', 'pad', 'coherent_gain', 'enbw_bins', 'scalloping_loss_db', 'worst_case_processing_loss_db', 'bandwidth_3db_bins', 'bandwidth_6db_bins', 'first_min_bins', 'first_min_db', 'first_min_is_null', 'highest_sidelobe_db', 'highest_sidelobe_bins', 'sidelobe_falloff_db_per_octave', 'overlap_correlation_50', 'overlap_correlation_75', 'leakage_factor', 'is_causal_exponential', 'decay_ratio', 'truncation_ripple_db')
    @typing.overload
    def __init__(self, other: FiguresOfMerit) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: typing.SupportsFloat | None, **kwargs: typing.SupportsFloat | None) -> None:
        """
        Every field by name (or all in order); an optional field may be omitted (None).
        """
    @property
    def N(self) -> int:
        """
        Window length (samples).
        """
    @property
    def bandwidth_3db_bins(self) -> float:
        """
        Full main-lobe width at half power (bins; nan if never reached).
        """
    @property
    def bandwidth_6db_bins(self) -> float:
        """
        Full main-lobe width at half amplitude (bins; nan if never reached).
        """
    @property
    def coherent_gain(self) -> float:
        """
        sum(w) / (N max abs(w)) (a fraction).
        """
    @property
    def decay_ratio(self) -> float | None:
        """
        r = exp(-alpha) for the causal exponential, else None.
        """
    @property
    def enbw_bins(self) -> float:
        """
        Equivalent noise bandwidth N sum(w^2) / sum(w)^2 (bins).
        """
    @property
    def first_min_bins(self) -> float:
        """
        First local minimum of abs(W) beyond the main peak (bins).
        """
    @property
    def first_min_db(self) -> float:
        """
        Its level re abs(W(0)) (dB, <= 0).
        """
    @property
    def first_min_is_null(self) -> bool:
        """
        Whether that minimum is a zero of the DTFT (below -200 dB).
        """
    @property
    def highest_sidelobe_bins(self) -> float:
        """
        Its frequency (bins; nan if none).
        """
    @property
    def highest_sidelobe_db(self) -> float:
        """
        Largest local maximum beyond the first minimum (dB re abs(W(0)); -inf if none).
        """
    @property
    def is_causal_exponential(self) -> bool:
        """
        w[n] = w[0] r^n with 0 < r <= 1 (r = 1: the rectangle).
        """
    @property
    def leakage_factor(self) -> float:
        """
        Energy outside the main lobe abs(f) < first_min_bins over the total (a fraction).
        """
    @property
    def overlap_correlation_50(self) -> float:
        """
        sum w[n] w[n + N/2] / sum w^2 (a fraction).
        """
    @property
    def overlap_correlation_75(self) -> float:
        """
        sum w[n] w[n + N/4] / sum w^2 (a fraction).
        """
    @property
    def pad(self) -> int:
        """
        FFT padding factor used to locate extrema.
        """
    @property
    def scalloping_loss_db(self) -> float:
        """
        -20 log10 abs(W(1/2)) / abs(W(0)) (dB, >= 0).
        """
    @property
    def sidelobe_falloff_db_per_octave(self) -> float:
        """
        Asymptotic fall-off of the sidelobes (dB/octave).
        """
    @property
    def truncation_ripple_db(self) -> float | None:
        """
        Causal exponential only: peak-to-peak ripple of abs(W) against the N -> inf envelope (dB; inf for the rectangle); else None.
        """
    @property
    def worst_case_processing_loss_db(self) -> float:
        """
        Scalloping loss + 10 log10 ENBW (dB).
        """
class WindowParameter(ropelab._core.result.Result):
    """
    One parameter of a window, an entry of WindowInfo.parameters.
    """
    __match_args__: typing.ClassVar[tuple] = ('name', 'alternatives', 'required', 'default', 'description', 'range', 'alternative_ranges')
    _field_types: typing.ClassVar[dict] = {'name': 'str', 'alternatives': 'list[str]', 'required': 'bool', 'default': 'str', 'description': 'str', 'range': 'str', 'alternative_ranges': 'list[str]'}
    _fields: typing.ClassVar[tuple] = ('name', 'alternatives', 'required', 'default', 'description', 'range', 'alternative_ranges')
    def __eq__(self, other: builtins.object) -> bool:
        """
        Same type and every field equal (arrays elementwise; NaN is unequal to itself).
        """
    def __hash__(self) -> int:
        """
        Hash of the fields (arrays and lists through their keys).
        """
    @typing.overload
    def __init__(self, other: WindowParameter) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: builtins.object, **kwargs: builtins.object) -> None:
        """
        Every field by name (or all in order).
        """
    @property
    def alternative_ranges(self) -> list[str]:
        """
        The range of each alternative name, in the order of alternatives.
        """
    @property
    def alternatives(self) -> list[str]:
        """
        Other names accepted for it (Harris's convention).
        """
    @property
    def default(self) -> str:
        """
        Its default value as text (empty when required).
        """
    @property
    def description(self) -> str:
        """
        What it is, with its range.
        """
    @property
    def name(self) -> str:
        """
        The parameter's name (scipy's where scipy has it).
        """
    @property
    def range(self) -> str:
        """
        The values it may take, in words ("> 0", "in [0, 1]", ...).
        """
    @property
    def required(self) -> bool:
        """
        Whether the window needs it (no default).
        """
class WindowInfo(ropelab._core.result.Result):
    """
    A window's parameters and symmetry (spectra.window_info; the names of the parameters make ropelab.spectra.WINDOWS).
    """
    __match_args__: typing.ClassVar[tuple] = ('name', 'parameters', 'symmetry', 'falloff_order', 'scipy_name', 'harris_name', 'aliases', 'definition')
    _field_types: typing.ClassVar[dict] = {'name': 'str', 'parameters': 'list[WindowParameter]', 'symmetry': 'str', 'falloff_order': 'int', 'scipy_name': 'str', 'harris_name': 'str', 'aliases': 'list[str]', 'definition': 'str'}
    _fields: typing.ClassVar[tuple] = ('name', 'parameters', 'symmetry', 'falloff_order', 'scipy_name', 'harris_name', 'aliases', 'definition')
    def __eq__(self, other: builtins.object) -> bool:
        """
        Same type and every field equal (arrays elementwise; NaN is unequal to itself).
        """
    def __hash__(self) -> int:
        """
        Hash of the fields (arrays and lists through their keys).
        """
    @typing.overload
    def __init__(self, other: WindowInfo) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: builtins.object, **kwargs: builtins.object) -> None:
        """
        Every field by name (or all in order).
        """
    @property
    def aliases(self) -> list[str]:
        """
        Other names accepted for it (scipy's, Harris's).
        """
    @property
    def definition(self) -> str:
        """
        One line: its formula on x = (2n - L)/L (span L) or its source.
        """
    @property
    def falloff_order(self) -> int:
        """
        Order p of the first derivative that jumps, at the window's reference parameters: sidelobes fall off at -6.02(p + 1) dB/octave; -1: no such order (equiripple).
        """
    @property
    def harris_name(self) -> str:
        """
        The window's name in Harris 1978, Table 1, or "".
        """
    @property
    def name(self) -> str:
        """
        The canonical name of the window.
        """
    @property
    def parameters(self) -> list[WindowParameter]:
        """
        Every parameter, the required ones first.
        """
    @property
    def scipy_name(self) -> str:
        """
        The scipy.signal.windows twin (sample-equal), or "".
        """
    @property
    def symmetry(self) -> str:
        """
        "both", "symmetric" (sym=True only) or "dft-even" (sym=False only).
        """
class LeakageMap(ropelab._core.result.Result):
    """
    Leakage of the causal exponential (SSM) window over alpha x omega grids (the documented class is ropelab.spectra.LeakageMap).
    """
    __match_args__: typing.ClassVar[tuple] = ('alpha', 'omega', 'N', 'pad', 'figures', 'tone_scalloping_loss_db', 'bin_leakage_factor', 'far_leakage_db')
    _field_types: typing.ClassVar[dict] = {'alpha': 'ndarray[float64, (A,)]', 'omega': 'ndarray[float64, (W,)]', 'N': 'int', 'pad': 'int', 'figures': 'tuple[FiguresOfMerit, ...]', 'tone_scalloping_loss_db': 'ndarray[float64, (A, W)]', 'bin_leakage_factor': 'ndarray[float64, (A, W)]', 'far_leakage_db': 'ndarray[float64, (A, W)]'}
    _fields: typing.ClassVar[tuple] = ('alpha', 'omega', 'N', 'pad', 'figures', 'tone_scalloping_loss_db', 'bin_leakage_factor', 'far_leakage_db')
    def __eq__(self, other: builtins.object) -> bool:
        """
        Same type and every field equal (arrays elementwise; NaN is unequal to itself).
        """
    def __hash__(self) -> int:
        """
        Hash of the fields (arrays and lists through their keys).
        """
    @typing.overload
    def __init__(self, other: LeakageMap) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: builtins.object, **kwargs: builtins.object) -> None:
        """
        Every field by name (or all in order).
        """
    @property
    def N(self) -> int:
        """
        Window length (samples).
        """
    @property
    def alpha(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Decays per sample alpha (row i: the window exp(-alpha[i] n)); float64, shape (A,).
        """
    @property
    def bin_leakage_factor(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Fraction of the N-point DFT energy outside that bin; float64, shape (A, W).
        """
    @property
    def far_leakage_db(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Largest DFT bin at least 2 bins from the tone, dB re the peak (<= 0; -inf below -240 dB); float64, shape (A, W).
        """
    @property
    def figures(self) -> tuple[FiguresOfMerit, ...]:
        """
        Per alpha: the figures of merit of exp(-alpha n); A results.
        """
    @property
    def omega(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Rotations omega (rad/sample); float64, shape (W,).
        """
    @property
    def pad(self) -> int:
        """
        FFT padding factor of the figures of merit.
        """
    @property
    def tone_scalloping_loss_db(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Loss (dB >= 0) of the tone at omega read at its nearest DFT bin; float64, shape (A, W).
        """
def cached_plan_count() -> int:
    ...
def continuous_spectrum(alpha: typing.SupportsFloat, omega: typing.SupportsFloat, T: typing.SupportsFloat, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def dpss(N: typing.SupportsInt, NW: typing.SupportsFloat, Kmax: typing.SupportsInt, sym: bool, norm: str, return_ratios: bool) -> tuple:
    ...
def dtft(x: numpy.typing.ArrayLike, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def figures_of_merit(w: numpy.typing.ArrayLike, pad: typing.SupportsInt) -> FiguresOfMerit:
    ...
def leakage_map(alpha: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, N: typing.SupportsInt, pad: typing.SupportsInt) -> LeakageMap:
    ...
def spectrum(x: numpy.typing.ArrayLike, pad: typing.SupportsInt) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
    ...
def ssm_envelope(alpha: typing.SupportsFloat, omega: typing.SupportsFloat, N: typing.SupportsInt, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def ssm_impulse(alpha: typing.SupportsFloat, omega: typing.SupportsFloat, N: typing.SupportsInt) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def ssm_kernel(alpha: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, dt: typing.SupportsFloat, B_real: numpy.typing.ArrayLike, B_imag: numpy.typing.ArrayLike, C_real: numpy.typing.ArrayLike, C_imag: numpy.typing.ArrayLike, L: typing.SupportsInt) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def ssm_spectrum(alpha: typing.SupportsFloat, omega: typing.SupportsFloat, N: typing.SupportsInt, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def window(name: str, N: typing.SupportsInt, sym: bool, params: dict) -> numpy.typing.NDArray[numpy.float64]:
    ...
def window_aliases() -> dict:
    ...
def window_info(name: str) -> WindowInfo:
    ...
def window_names() -> list[str]:
    ...
def window_parameters(name: str) -> list:
    ...
def zoh(alpha: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, dt: typing.SupportsFloat, B_real: numpy.typing.ArrayLike, B_imag: numpy.typing.ArrayLike) -> tuple[numpy.typing.NDArray[numpy.complex128], numpy.typing.NDArray[numpy.complex128]]:
    ...
