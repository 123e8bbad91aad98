"""
temperature rules, optima and spectra
"""
from __future__ import annotations
import numpy
import numpy.typing
import ropelab._core.result
import typing
__all__: list[str] = ['Counterexample', 'counterexample', 'depressed_cubic_root', 'methods', 'mse', 'optimal_sigma', 'paper_sigma', 'spectrum', 'spectrum_kinds', 'unbiased_sigma']
class Counterexample(ropelab._core.result.Result):
    """
    The numbers of Theorem 1's counterexample at xi (unit norms, trig estimator; the documented class is ropelab.temperature.Counterexample).
    """
    __match_args__: typing.ClassVar[tuple] = ('xi', 'sigma_paper', 'sigma_paper_sq', 'mean_paper', 'target', 'mean_sigma1', 'mean_paper_literal', 'target_literal')
    _field_docs: typing.ClassVar[dict] = {'xi': 'The cosine ``q.k`` of the unit-norm pair.', 'sigma_paper': "The paper's temperature ``tan(arccos(xi)/2)``.", 'sigma_paper_sq': 'Its square ``(1 - xi)/(1 + xi)``.', 'mean_paper': "``E[K]`` of the conjugate product at the paper's sigma: ``exp(1 - sigma^2 (1 - xi))``.", 'target': 'The kernel value ``exp(xi)``.', 'mean_sigma1': '``E[K]`` of the conjugate product at ``sigma = 1`` (equals the target).', 'mean_paper_literal': "``E[K]`` of the literal product at the paper's sigma, ``exp(1 - sigma^2 (1 + xi))`` (equals the target: the tan rule is the bias-zeroing sigma of the unconjugated product).", 'target_literal': 'What the literal product estimates at ``sigma = 1``: ``exp(-xi)``.'}
    _field_types: typing.ClassVar[dict] = {'xi': 'float', 'sigma_paper': 'float', 'sigma_paper_sq': 'float', 'mean_paper': 'float', 'target': 'float', 'mean_sigma1': 'float', 'mean_paper_literal': 'float', 'target_literal': 'float'}
    _fields: typing.ClassVar[tuple] = ('xi', 'sigma_paper', 'sigma_paper_sq', 'mean_paper', 'target', 'mean_sigma1', 'mean_paper_literal', 'target_literal')
    @typing.overload
    def __init__(self, other: Counterexample) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: typing.SupportsFloat | None, **kwargs: typing.SupportsFloat | None) -> None:
        """
        Every field by name (or all in order); an optional field may be omitted (None).
        """
    @property
    def mean_paper(self) -> float:
        """
        ``E[K]`` of the conjugate product at the paper's sigma: ``exp(1 - sigma^2 (1 - xi))``.
        """
    @property
    def mean_paper_literal(self) -> float:
        """
        ``E[K]`` of the literal product at the paper's sigma, ``exp(1 - sigma^2 (1 + xi))`` (equals the target: the tan rule is the bias-zeroing sigma of the unconjugated product).
        """
    @property
    def mean_sigma1(self) -> float:
        """
        ``E[K]`` of the conjugate product at ``sigma = 1`` (equals the target).
        """
    @property
    def sigma_paper(self) -> float:
        """
        The paper's temperature ``tan(arccos(xi)/2)``.
        """
    @property
    def sigma_paper_sq(self) -> float:
        """
        Its square ``(1 - xi)/(1 + xi)``.
        """
    @property
    def target(self) -> float:
        """
        The kernel value ``exp(xi)``.
        """
    @property
    def target_literal(self) -> float:
        """
        What the literal product estimates at ``sigma = 1``: ``exp(-xi)``.
        """
    @property
    def xi(self) -> float:
        """
        The cosine ``q.k`` of the unit-norm pair.
        """
def counterexample(xi: typing.SupportsFloat) -> Counterexample:
    ...
def depressed_cubic_root(p: typing.SupportsFloat | typing.SupportsIndex, r: typing.SupportsFloat | typing.SupportsIndex) -> float:
    """
    Unique real root of t^3 + p t + r = 0 for p >= 0.
    """
def methods() -> list[str]:
    ...
def mse(xi: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, sigma: numpy.typing.ArrayLike, estimator: str, convention: str, log: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def optimal_sigma(xi: numpy.typing.ArrayLike, D: numpy.typing.ArrayLike, estimator: str, convention: str, method: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
def paper_sigma(xi: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectrum(d: typing.SupportsInt, kind: str, base: typing.SupportsFloat, theta_max: typing.SupportsFloat | None, temp_max: typing.SupportsFloat, squared: bool) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectrum_kinds() -> list[str]:
    ...
def unbiased_sigma(xi: numpy.typing.ArrayLike, estimator: str, convention: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
