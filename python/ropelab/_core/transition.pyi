"""
effective transitions, norms, Householder
"""
from __future__ import annotations
import numpy
import numpy.typing
import ropelab._core.result
import typing
__all__: list[str] = ['FactorDistribution', 'commutator_norm', 'effective', 'effective_sequence', 'eigenvalues', 'generalized_householder', 'householder', 'householder_product', 'norms', 'prf_factor_distribution', 'prf_transition_factor', 'singular_values', 'spectral_norm']
class FactorDistribution(ropelab._core.result.Result):
    """
    Log-normal law of exp(omega.Delta), omega ~ N(0, sigma^2 I), s = sigma abs(Delta) (the documented class is ropelab.transition.FactorDistribution).
    """
    __match_args__: typing.ClassVar[tuple] = ('mean', 'variance', 'median', 'prob_gt_one')
    _field_docs: typing.ClassVar[dict] = {'mean': '``exp(s^2/2)`` (>= 1).', 'variance': '``(exp(s^2) - 1) exp(s^2)``.', 'median': '1.', 'prob_gt_one': '``P(factor > 1)``: 1/2 for ``s > 0``, 0 for ``s = 0`` (the factor is then exactly 1).'}
    _field_types: typing.ClassVar[dict] = {'mean': 'float', 'variance': 'float', 'median': 'float', 'prob_gt_one': 'float'}
    _fields: typing.ClassVar[tuple] = ('mean', 'variance', 'median', 'prob_gt_one')
    @typing.overload
    def __init__(self, other: FactorDistribution) -> None:
        """
        A copy of another result of this type.
        """
    @typing.overload
    def __init__(self, *args: typing.SupportsFloat | None, **kwargs: typing.SupportsFloat | None) -> None:
        """
        Every field by name (or all in order); an optional field may be omitted (None).
        """
    @property
    def mean(self) -> float:
        """
        ``exp(s^2/2)`` (>= 1).
        """
    @property
    def median(self) -> float:
        """
        1.
        """
    @property
    def prob_gt_one(self) -> float:
        """
        ``P(factor > 1)``: 1/2 for ``s > 0``, 0 for ``s = 0`` (the factor is then exactly 1).
        """
    @property
    def variance(self) -> float:
        """
        ``(exp(s^2) - 1) exp(s^2)``.
        """
def commutator_norm(angles_prev: numpy.typing.ArrayLike, gates: numpy.typing.ArrayLike | None, layout: str, norm: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
def effective(angles_prev: numpy.typing.ArrayLike, angles: numpy.typing.ArrayLike, gates: numpy.typing.ArrayLike | None, layout: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
def effective_sequence(angles: numpy.typing.ArrayLike, gates: numpy.typing.ArrayLike | None, layout: str) -> numpy.typing.NDArray[numpy.float64]:
    ...
def eigenvalues(A: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.complex128]:
    ...
def generalized_householder(w: numpy.typing.ArrayLike, beta: typing.SupportsFloat) -> numpy.typing.NDArray[numpy.float64]:
    ...
def householder(w: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def householder_product(W: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def norms() -> list[str]:
    ...
def prf_factor_distribution(delta_norm: typing.SupportsFloat, sigma: typing.SupportsFloat) -> FactorDistribution:
    ...
def prf_transition_factor(q: numpy.typing.ArrayLike, omega: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def singular_values(A: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
def spectral_norm(A: numpy.typing.ArrayLike) -> numpy.typing.NDArray[numpy.float64]:
    ...
