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
    _field_docs: typing.ClassVar[dict] = {'N': 'Window length (samples).', 'pad': 'FFT padding factor used to locate extrema.', 'coherent_gain': '``sum(w) / (N max|w|)`` (a fraction).', 'enbw_bins': 'Equivalent noise bandwidth ``N sum(w^2) / sum(w)^2`` (bins).', 'scalloping_loss_db': '``-20 log10 |W(1/2)| / |W(0)|`` (dB, >= 0).', 'worst_case_processing_loss_db': 'Scalloping loss + ``10 log10 ENBW`` (dB).', 'bandwidth_3db_bins': 'Full main-lobe width at half power (Harris\'s "3.0 dB" bandwidth, bins); ``nan`` if the main lobe never falls that far.', 'bandwidth_6db_bins': 'Full main-lobe width at half amplitude (Harris\'s "6.0 dB" bandwidth, bins); ``nan`` if the main lobe never falls that far.', 'first_min_bins': 'The first local minimum of ``|W|`` beyond the main peak (bins); ``N/2`` if ``|W|`` decreases all the way to Nyquist.', 'first_min_db': 'Its level re ``|W(0)|`` (dB, <= 0; a true null is far below -200 dB, a dip, as for the Poisson and causal exponential windows, is not).', 'first_min_is_null': 'Whether that minimum is a zero of the DTFT (below -200 dB).', 'highest_sidelobe_db': "The largest local maximum of ``|W|`` beyond the first minimum (Harris's practice), dB re ``|W(0)|``; ``-inf`` when there is none, or when it is below -240 dB (the rounding floor of a double-precision DTFT, reached e.g. by a Gaussian window with ``alpha >= 8``; the first minimum of such a window is then rounding noise as well).", 'highest_sidelobe_bins': 'Its frequency (bins); ``nan`` when there is none.', 'sidelobe_falloff_db_per_octave': "The asymptotic fall-off of the sidelobes (dB/octave), ``-20 log10(2) (k + 1) = -6.02 (k + 1)`` when the k-th derivative of the window (extended by zeros) is the first to jump anywhere: rectangle, Hamming, exact Blackman, Blackman-Harris, Nuttall, flat-top, Kaiser, Gaussian, Poisson, Cauchy -6; triangle, Riesz, Riemann, Hann-Poisson (its cusp at the centre) -12; Hann, Blackman, Tukey -18; Parzen, Bohman, ``cos^3`` -24; ``cos^4`` and Nuttall's 4-term window with a continuous third derivative -30 (Harris 1978, Sec. IV; Nuttall 1981); 0 (k = -1) when an end sample is an impulse, off the smooth curve through its neighbours (by more than 30 times the fit's error, more than 1e-12 ``|W(0)|``, and ten times more than the next sample is off the curve through its own neighbours, above the curve or beyond it in sign: an end sample between 0 and the curve bends toward zero as a steep end does: no impulse, but a power end such as ``cos^0.25``'s, or not measurable), as Dolph-Chebyshev's are in both conventions (its transform does not decay: equiripple). The order k is *measured from the samples*, not looked up: polynomials of degree 10 (and 9, for their error) are fitted by least squares to the first ``M + 1`` samples at each end (``M = N/8`` clamped to ``[14, 256]`` and ``<= N/4``, ending halfway, but not under 14 samples, to an interior join such as Tukey's) and compared with zero at the end sample, half a sample beyond it (windows sampled at half-integers) or one sample beyond it (the right end of a DFT-even window), not in between (a steep end, Kaiser ``beta = 14`` at ``N = 64``, crosses zero there: a jump, not a kink); inside the window, polynomials fitted on either side of each of the <= 8 largest peaks of the fourth difference are compared, at the point where their values meet, and again with each side fitted up to the samples on either side of that point (the higher order of the two counts: a fit ending 3 samples short of Tukey's join at ``N = 64`` misread it as a kink), and with each side ended before another peak 5 or more samples away, or at a plateau of equal samples that begins or ends inside the stencil (the higher order counts again: a side across Tukey's other join at ``alpha = 0.875``, ``N = 64`` read a kink). A Taylor coefficient counts as zero within four times its fit error, or when its term in ``|W|`` at ``f = N/32`` would be below -240 dB. This gives the asymptote at every ``N >= 64`` where the samples determine it, also where the spectrum reaches it only at large ``N`` (4-term Blackman-Harris: jump ``6e-5``, visible as -6 only from ``N = 4096``, read from ``N = 256``; Poisson ``alpha = 4``: from ``N = 16384``, read at ``N = 64``). The far band below overrules the order where it contradicts it: an asymptote over at least 32 points in each half with another slope (a whole order shallower for an impulse), as for an end behaving like a non-integer power (``cos^0.5``, ``kaiser_bessel_derived``: about -9) or ripples next to the end (Barcilon-Temes: -6). Where no order is measured (samples that are not those of a piecewise smooth function, or windows smoother than a jump of the 7th derivative) the value is the least-squares slope of the far sidelobe peaks (on a 1/8-bin grid, parabolic interpolation in dB) against ``log2 sin(pi f/N)``, with a ``sin^2(pi f/N)`` term for the periodicity of the DTFT, over ``f`` in ``[max(4 first_min_bins, N/32), min(max(N/8, 2 f_lo), 3N/8)]`` (the slope of ``|W|`` itself when there are no distinct peaks), but only if it is an asymptote: the slopes of the band's lower and upper halves agree within 1 dB/octave, it is <= 0, and steeper than -48 for a window with no measured jump (``-inf`` when ``|W|`` is below the -240 dB floor throughout the band, e.g. a Gaussian with ``alpha >= 8``). None when the fall-off is not measurable: ``N < 64`` (too few samples to resolve the window's smoothness; the far sidelobes of a short window are a transition, not the asymptote), a join ``L`` samples from an end with the band starting below ``2N/L`` bins (inside the main lobe of the join's own transform: Tukey ``alpha = 0.1`` at ``N = 128``), a fitted slope that is not an asymptote, a finite order read where ``|W|`` lies at the -240 dB floor beyond the main lobe (a fit that cannot follow a steep end: Kaiser ``beta = 31`` at ``N = 128``), a kink where the slope of each side changes sign within a sample of the join (also two joins around a flat part narrower than a sample: Tukey ``alpha = 0.9981`` at ``N = 206``) unless the band is an asymptote, or an ambiguous end: one read as a jump whose first samples are also those of a square-root end narrower than a sample (``w[0] w[1] > 0``, ``w[1]**2 >= 2 w[0]**2``, and ``w**2`` rising at least as steeply over the next sample), which the samples cannot tell from a small jump (-6.02 or -9.03: Kaiser-Bessel-derived ``beta = 8`` and Kaiser ``beta = 6`` at ``N = 64`` alike), unless a jump elsewhere falls off as slowly or a far band of at least 32 points per half shows the asymptote. Never positive, never NaN.", 'overlap_correlation_50': '``sum w[n] w[n + N/2] / sum w^2`` (a fraction, not %).', 'overlap_correlation_75': '``sum w[n] w[n + N/4] / sum w^2`` (a fraction, not %).', 'leakage_factor': 'Energy outside the main lobe ``|f| < first_min_bins`` over the total (a fraction).', 'is_causal_exponential': '``w[n] = w[0] r^n`` with ``0 < r <= 1`` (``r = 1``: the rectangle, the ``alpha = 0`` SSM).', 'decay_ratio': '``r = exp(-alpha)`` for the causal exponential, else None.', 'truncation_ripple_db': 'Causal exponential only: peak-to-peak ripple of ``|W|`` against the ``N -> inf`` envelope, ``20 log10 ((1 + r^N)/(1 - r^N))`` (dB; ``inf`` for the rectangle); None otherwise.'}
    _field_types: typing.ClassVar[dict] = {'N': 'int', 'pad': 'int', 'coherent_gain': 'float', 'enbw_bins': 'float', 'scalloping_loss_db': 'float', 'worst_case_processing_loss_db': 'float', 'bandwidth_3db_bins': 'float', 'bandwidth_6db_bins': 'float', 'first_min_bins': 'float', 'first_min_db': 'float', 'first_min_is_null': 'bool', 'highest_sidelobe_db': 'float', 'highest_sidelobe_bins': 'float', 'sidelobe_falloff_db_per_octave': 'float | None', 'overlap_correlation_50': 'float', 'overlap_correlation_75': 'float', 'leakage_factor': 'float', 'is_causal_exponential': 'bool', 'decay_ratio': 'float | None', 'truncation_ripple_db': 'float | None'}
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
        Full main-lobe width at half power (Harris's "3.0 dB" bandwidth, bins); ``nan`` if the main lobe never falls that far.
        """
    @property
    def bandwidth_6db_bins(self) -> float:
        """
        Full main-lobe width at half amplitude (Harris's "6.0 dB" bandwidth, bins); ``nan`` if the main lobe never falls that far.
        """
    @property
    def coherent_gain(self) -> float:
        """
        ``sum(w) / (N max|w|)`` (a fraction).
        """
    @property
    def decay_ratio(self) -> float | None:
        """
        ``r = exp(-alpha)`` for the causal exponential, else None.
        """
    @property
    def enbw_bins(self) -> float:
        """
        Equivalent noise bandwidth ``N sum(w^2) / sum(w)^2`` (bins).
        """
    @property
    def first_min_bins(self) -> float:
        """
        The first local minimum of ``|W|`` beyond the main peak (bins); ``N/2`` if ``|W|`` decreases all the way to Nyquist.
        """
    @property
    def first_min_db(self) -> float:
        """
        Its level re ``|W(0)|`` (dB, <= 0; a true null is far below -200 dB, a dip, as for the Poisson and causal exponential windows, is not).
        """
    @property
    def first_min_is_null(self) -> bool:
        """
        Whether that minimum is a zero of the DTFT (below -200 dB).
        """
    @property
    def highest_sidelobe_bins(self) -> float:
        """
        Its frequency (bins); ``nan`` when there is none.
        """
    @property
    def highest_sidelobe_db(self) -> float:
        """
        The largest local maximum of ``|W|`` beyond the first minimum (Harris's practice), dB re ``|W(0)|``; ``-inf`` when there is none, or when it is below -240 dB (the rounding floor of a double-precision DTFT, reached e.g. by a Gaussian window with ``alpha >= 8``; the first minimum of such a window is then rounding noise as well).
        """
    @property
    def is_causal_exponential(self) -> bool:
        """
        ``w[n] = w[0] r^n`` with ``0 < r <= 1`` (``r = 1``: the rectangle, the ``alpha = 0`` SSM).
        """
    @property
    def leakage_factor(self) -> float:
        """
        Energy outside the main lobe ``|f| < first_min_bins`` over the total (a fraction).
        """
    @property
    def overlap_correlation_50(self) -> float:
        """
        ``sum w[n] w[n + N/2] / sum w^2`` (a fraction, not %).
        """
    @property
    def overlap_correlation_75(self) -> float:
        """
        ``sum w[n] w[n + N/4] / sum w^2`` (a fraction, not %).
        """
    @property
    def pad(self) -> int:
        """
        FFT padding factor used to locate extrema.
        """
    @property
    def scalloping_loss_db(self) -> float:
        """
        ``-20 log10 |W(1/2)| / |W(0)|`` (dB, >= 0).
        """
    @property
    def sidelobe_falloff_db_per_octave(self) -> float | None:
        """
        The asymptotic fall-off of the sidelobes (dB/octave), ``-20 log10(2) (k + 1) = -6.02 (k + 1)`` when the k-th derivative of the window (extended by zeros) is the first to jump anywhere: rectangle, Hamming, exact Blackman, Blackman-Harris, Nuttall, flat-top, Kaiser, Gaussian, Poisson, Cauchy -6; triangle, Riesz, Riemann, Hann-Poisson (its cusp at the centre) -12; Hann, Blackman, Tukey -18; Parzen, Bohman, ``cos^3`` -24; ``cos^4`` and Nuttall's 4-term window with a continuous third derivative -30 (Harris 1978, Sec. IV; Nuttall 1981); 0 (k = -1) when an end sample is an impulse, off the smooth curve through its neighbours (by more than 30 times the fit's error, more than 1e-12 ``|W(0)|``, and ten times more than the next sample is off the curve through its own neighbours, above the curve or beyond it in sign: an end sample between 0 and the curve bends toward zero as a steep end does: no impulse, but a power end such as ``cos^0.25``'s, or not measurable), as Dolph-Chebyshev's are in both conventions (its transform does not decay: equiripple). The order k is *measured from the samples*, not looked up: polynomials of degree 10 (and 9, for their error) are fitted by least squares to the first ``M + 1`` samples at each end (``M = N/8`` clamped to ``[14, 256]`` and ``<= N/4``, ending halfway, but not under 14 samples, to an interior join such as Tukey's) and compared with zero at the end sample, half a sample beyond it (windows sampled at half-integers) or one sample beyond it (the right end of a DFT-even window), not in between (a steep end, Kaiser ``beta = 14`` at ``N = 64``, crosses zero there: a jump, not a kink); inside the window, polynomials fitted on either side of each of the <= 8 largest peaks of the fourth difference are compared, at the point where their values meet, and again with each side fitted up to the samples on either side of that point (the higher order of the two counts: a fit ending 3 samples short of Tukey's join at ``N = 64`` misread it as a kink), and with each side ended before another peak 5 or more samples away, or at a plateau of equal samples that begins or ends inside the stencil (the higher order counts again: a side across Tukey's other join at ``alpha = 0.875``, ``N = 64`` read a kink). A Taylor coefficient counts as zero within four times its fit error, or when its term in ``|W|`` at ``f = N/32`` would be below -240 dB. This gives the asymptote at every ``N >= 64`` where the samples determine it, also where the spectrum reaches it only at large ``N`` (4-term Blackman-Harris: jump ``6e-5``, visible as -6 only from ``N = 4096``, read from ``N = 256``; Poisson ``alpha = 4``: from ``N = 16384``, read at ``N = 64``). The far band below overrules the order where it contradicts it: an asymptote over at least 32 points in each half with another slope (a whole order shallower for an impulse), as for an end behaving like a non-integer power (``cos^0.5``, ``kaiser_bessel_derived``: about -9) or ripples next to the end (Barcilon-Temes: -6). Where no order is measured (samples that are not those of a piecewise smooth function, or windows smoother than a jump of the 7th derivative) the value is the least-squares slope of the far sidelobe peaks (on a 1/8-bin grid, parabolic interpolation in dB) against ``log2 sin(pi f/N)``, with a ``sin^2(pi f/N)`` term for the periodicity of the DTFT, over ``f`` in ``[max(4 first_min_bins, N/32), min(max(N/8, 2 f_lo), 3N/8)]`` (the slope of ``|W|`` itself when there are no distinct peaks), but only if it is an asymptote: the slopes of the band's lower and upper halves agree within 1 dB/octave, it is <= 0, and steeper than -48 for a window with no measured jump (``-inf`` when ``|W|`` is below the -240 dB floor throughout the band, e.g. a Gaussian with ``alpha >= 8``). None when the fall-off is not measurable: ``N < 64`` (too few samples to resolve the window's smoothness; the far sidelobes of a short window are a transition, not the asymptote), a join ``L`` samples from an end with the band starting below ``2N/L`` bins (inside the main lobe of the join's own transform: Tukey ``alpha = 0.1`` at ``N = 128``), a fitted slope that is not an asymptote, a finite order read where ``|W|`` lies at the -240 dB floor beyond the main lobe (a fit that cannot follow a steep end: Kaiser ``beta = 31`` at ``N = 128``), a kink where the slope of each side changes sign within a sample of the join (also two joins around a flat part narrower than a sample: Tukey ``alpha = 0.9981`` at ``N = 206``) unless the band is an asymptote, or an ambiguous end: one read as a jump whose first samples are also those of a square-root end narrower than a sample (``w[0] w[1] > 0``, ``w[1]**2 >= 2 w[0]**2``, and ``w**2`` rising at least as steeply over the next sample), which the samples cannot tell from a small jump (-6.02 or -9.03: Kaiser-Bessel-derived ``beta = 8`` and Kaiser ``beta = 6`` at ``N = 64`` alike), unless a jump elsewhere falls off as slowly or a far band of at least 32 points per half shows the asymptote. Never positive, never NaN.
        """
    @property
    def truncation_ripple_db(self) -> float | None:
        """
        Causal exponential only: peak-to-peak ripple of ``|W|`` against the ``N -> inf`` envelope, ``20 log10 ((1 + r^N)/(1 - r^N))`` (dB; ``inf`` for the rectangle); None otherwise.
        """
    @property
    def worst_case_processing_loss_db(self) -> float:
        """
        Scalloping loss + ``10 log10 ENBW`` (dB).
        """
class WindowParameter(ropelab._core.result.Result):
    """
    One parameter of a window, an entry of WindowInfo.parameters.
    """
    __match_args__: typing.ClassVar[tuple] = ('name', 'alternatives', 'required', 'default', 'description', 'range', 'alternative_ranges')
    _field_docs: typing.ClassVar[dict] = {'name': "The parameter's name (scipy's where scipy has it).", 'alternatives': "Other names accepted for it (Harris's convention).", 'required': 'Whether the window needs it (no default).', 'default': 'Its default value as text (empty when required).', 'description': 'What it is, with its range.', 'range': 'The values it may take, in words ("> 0", "in [0, 1]", ...).', 'alternative_ranges': 'The range of each alternative name, in the order of alternatives.'}
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
    _field_docs: typing.ClassVar[dict] = {'name': 'The canonical name of the window.', 'parameters': 'Every parameter, the required ones first.', 'symmetry': '"both", "symmetric" (sym=True only) or "dft-even" (sym=False only).', 'falloff_order': 'Order p of the least regular point of the zero-extended window, at its reference parameters: sidelobes fall off at -6.02(p + 1) dB/octave. An integer where the p-th derivative jumps, 0.5 at a square-root end (Kaiser-Bessel-derived); -1: no such point (equiripple, or smoother than double precision resolves).', 'scipy_name': 'The scipy.signal.windows twin (sample-equal), or "".', 'harris_name': 'The window\'s name in Harris 1978, Table 1, or "".', 'aliases': "Other names accepted for it (scipy's, Harris's).", 'definition': 'One line: its formula on x = (2n - L)/L (span L) or its source.'}
    _field_types: typing.ClassVar[dict] = {'name': 'str', 'parameters': 'list[WindowParameter]', 'symmetry': 'str', 'falloff_order': 'float', 'scipy_name': 'str', 'harris_name': 'str', 'aliases': 'list[str]', 'definition': 'str'}
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
    def falloff_order(self) -> float:
        """
        Order p of the least regular point of the zero-extended window, at its reference parameters: sidelobes fall off at -6.02(p + 1) dB/octave. An integer where the p-th derivative jumps, 0.5 at a square-root end (Kaiser-Bessel-derived); -1: no such point (equiripple, or smoother than double precision resolves).
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
    _field_docs: typing.ClassVar[dict] = {'alpha': 'The decays per sample ``alpha`` (row ``i``: the window ``exp(-alpha[i] n)``), as given; the decays over the whole window ``alpha N`` are ``decay_over_window``. float64, shape (A,).', 'omega': 'Rotations omega (rad/sample); float64, shape (W,).', 'N': 'Window length (samples).', 'pad': 'FFT padding factor of :func:`figures_of_merit`.', 'figures': 'Per alpha: the figures of merit of ``exp(-alpha n)`` (A of them). They do not depend on omega (``|H|`` depends only on ``omega - Omega``); the per-alpha properties (``highest_sidelobe_db``, ``first_min_db``, ...: float64 arrays of shape (A,)) are read from them.', 'tone_scalloping_loss_db': 'Loss (dB >= 0) of the tone at omega read at its nearest DFT bin ``k = round(omega N/2 pi)``: ``-20 log10 |H(k)|/|H(omega N/2 pi)|``; float64, shape (A, W).', 'bin_leakage_factor': 'Fraction of the N-point DFT energy of ``h`` outside that nearest bin; float64, shape (A, W).', 'far_leakage_db': 'Largest DFT bin at least 2 bins from the tone, dB re the peak (<= 0); ``-inf`` when no such bin rises above -240 dB, the rounding floor of the closed form (e.g. ``alpha = 0`` with the tone on a bin, where every other DFT bin is exactly zero). float64, shape (A, W).'}
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
        The decays per sample ``alpha`` (row ``i``: the window ``exp(-alpha[i] n)``), as given; the decays over the whole window ``alpha N`` are ``decay_over_window``. float64, shape (A,).
        """
    @property
    def bin_leakage_factor(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Fraction of the N-point DFT energy of ``h`` outside that nearest bin; float64, shape (A, W).
        """
    @property
    def far_leakage_db(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Largest DFT bin at least 2 bins from the tone, dB re the peak (<= 0); ``-inf`` when no such bin rises above -240 dB, the rounding floor of the closed form (e.g. ``alpha = 0`` with the tone on a bin, where every other DFT bin is exactly zero). float64, shape (A, W).
        """
    @property
    def figures(self) -> tuple[FiguresOfMerit, ...]:
        """
        Per alpha: the figures of merit of ``exp(-alpha n)`` (A of them). They do not depend on omega (``|H|`` depends only on ``omega - Omega``); the per-alpha properties (``highest_sidelobe_db``, ``first_min_db``, ...: float64 arrays of shape (A,)) are read from them.
        """
    @property
    def omega(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Rotations omega (rad/sample); float64, shape (W,).
        """
    @property
    def pad(self) -> int:
        """
        FFT padding factor of :func:`figures_of_merit`.
        """
    @property
    def tone_scalloping_loss_db(self) -> numpy.typing.NDArray[numpy.float64]:
        """
        Loss (dB >= 0) of the tone at omega read at its nearest DFT bin ``k = round(omega N/2 pi)``: ``-20 log10 |H(k)|/|H(omega N/2 pi)|``; float64, shape (A, W).
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
