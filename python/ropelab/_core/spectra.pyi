"""
windows, FFTW/DTFT spectra, SSM closed forms, figures of merit
"""
from __future__ import annotations
import builtins
import numpy
import numpy.typing
import typing
__all__: list[str] = ['FiguresOfMerit', 'cached_plan_count', 'continuous_spectrum', 'dtft', 'figures_of_merit', 'leakage_map', 'spectrum', 'ssm_envelope', 'ssm_impulse', 'ssm_kernel', 'ssm_spectrum', 'window', 'window_aliases', 'window_info', 'window_names', 'window_parameters', 'zoh']
class FiguresOfMerit:
    """
    Figures of merit of a window (Harris 1978); frequencies in bins (the documented class is ropelab.spectra.FiguresOfMerit).
    """
    __match_args__: typing.ClassVar[tuple] = ('N', 'pad', 'coherent_gain', 'enbw_bins', 'scalloping_loss_db', 'worst_case_processing_loss_db', 'bandwidth_3db_bins', 'bandwidth_6db_bins', 'first_min_bins', 'first_min_db', 'first_min_is_null', 'highest_sidelobe_db', 'highest_sidelobe_bins', 'sidelobe_falloff_db_per_octave', 'overlap_correlation_50', 'overlap_correlation_75', 'leakage_factor', 'is_causal_exponential', 'decay_ratio', 'truncation_ripple_db')
    _field_types: typing.ClassVar[dict] = {'N': 'int', 'pad': 'int', 'coherent_gain': 'float', 'enbw_bins': 'float', 'scalloping_loss_db': 'float', 'worst_case_processing_loss_db': 'float', 'bandwidth_3db_bins': 'float', 'bandwidth_6db_bins': 'float', 'first_min_bins': 'float', 'first_min_db': 'float', 'first_min_is_null': 'bool', 'highest_sidelobe_db': 'float', 'highest_sidelobe_bins': 'float', 'sidelobe_falloff_db_per_octave': 'float', 'overlap_correlation_50': 'float', 'overlap_correlation_75': 'float', 'leakage_factor': 'float', 'is_causal_exponential': 'bool', 'decay_ratio': 'float | None', 'truncation_ripple_db': 'float | None'}
    _fields: typing.ClassVar[tuple] = ('N', 'pad', 'coherent_gain', 'enbw_bins', 'scalloping_loss_db', 'worst_case_processing_loss_db', 'bandwidth_3db_bins', 'bandwidth_6db_bins', 'first_min_bins', 'first_min_db', 'first_min_is_null', 'highest_sidelobe_db', 'highest_sidelobe_bins', 'sidelobe_falloff_db_per_octave', 'overlap_correlation_50', 'overlap_correlation_75', 'leakage_factor', 'is_causal_exponential', 'decay_ratio', 'truncation_ripple_db')
    def __eq__(self, other: builtins.object) -> bool:
        """
        Same type and every field equal (NaN is unequal to itself, as in a dataclass).
        """
    def __getstate__(self) -> tuple:
        ...
    def __hash__(self) -> int:
        """
        Hash of the fields.
        """
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
    def __repr__(self) -> str:
        """
        The fields, by name.
        """
    def __setstate__(self, arg0: tuple) -> None:
        ...
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
def cached_plan_count() -> int:
    ...
def continuous_spectrum(alpha: typing.SupportsFloat, omega: typing.SupportsFloat, T: typing.SupportsFloat, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def dtft(x: numpy.typing.ArrayLike, freqs_bins: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def figures_of_merit(w: numpy.typing.ArrayLike, pad: typing.SupportsInt) -> FiguresOfMerit:
    ...
def leakage_map(alpha: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, N: typing.SupportsInt, pad: typing.SupportsInt) -> dict:
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
def window_info(name: str) -> dict:
    ...
def window_names() -> list[str]:
    ...
def window_parameters(name: str) -> list:
    ...
def zoh(alpha: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike, dt: typing.SupportsFloat, B_real: numpy.typing.ArrayLike, B_imag: numpy.typing.ArrayLike) -> tuple[numpy.typing.NDArray[numpy.complex128], numpy.typing.NDArray[numpy.complex128]]:
    ...
