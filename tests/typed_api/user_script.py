"""A user's script that calls every public function and class of ropelab, typed as a user would.

Not a test module (pytest does not collect it): ``tests/test_typing.py`` runs it (it must finish
in a few seconds), checks it with ``mypy --strict`` (the annotations below must hold with the
package's annotations, no casts), and checks that it names every public callable of every public
module as ``rl.<module>.<name>``. A new public function needs a call here.

Float-or-array functions: a Python float (or int) argument gives a ``float``, an array or a list
gives an ``ndarray`` (their ``@overload``s); where the result depends on an array's shape
(``transition.spectral_norm``, ``transition.commutator_norm``, ``temperature.mse`` with array
arguments) the script converts with ``float(...)``/``np.asarray(...)`` as a user would.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.figure import Figure
from safetensors.numpy import save_file

import ropelab as rl

FloatArray = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]
RealArray = npt.NDArray[np.float32] | npt.NDArray[np.float64]  # float32 in, float32 out

rng = np.random.default_rng(0)
assert isinstance(rl.__version__, str)
modules: list[str] = list(rl.__all__)


def close(a: npt.ArrayLike, b: npt.ArrayLike, tol: float = 1e-9) -> bool:
    return bool(np.allclose(a, b, rtol=tol, atol=tol))


# --- rff -----------------------------------------------------------------------------------------
q, k = rl.temperature.unit_pair(0.5, d=8)
target: float = rl.rff.kernel(q, k)
mean1, var1 = rl.rff.moments(q, k)
m_scalar: float = mean1 + var1
means, variances = rl.rff.moments(q, k, [0.5, 1.0])
assert means.shape == variances.shape == (2,)
rff_mse: float = rl.rff.mse(q, k, 64, 1.0)
rff_mses: FloatArray = rl.rff.mse(q, k, 64, np.array([0.5, 1.0]))
assert rff_mses.shape == (2,) and rff_mse > 0
estimates: FloatArray = rl.rff.estimate(q, k, 64, 1.0, trials=8, seed=1)
assert abs(float(estimates.mean()) - target) < 1.0
omega: FloatArray = rl.rff.sample_omega(16, 8, seed=2)
phase: FloatArray = rl.rff.sample_phase(16, seed=2)
features: FloatArray = rl.rff.feature_map(np.stack([q, k]), omega, "random_phase", phase=phase)
assert omega.shape == (16, 8) and phase.shape == (16,) and features.shape[0] == 2

# --- temperature ---------------------------------------------------------------------------------
sigma_paper: float = rl.temperature.paper_sigma(0.5)
sigmas_paper: FloatArray = rl.temperature.paper_sigma([0.0, 0.5])
assert close(sigma_paper**2, 1 / 3) and sigmas_paper.shape == (2,)
sigma_unbiased: float = rl.temperature.unbiased_sigma(0.5)
sigmas_literal: FloatArray = rl.temperature.unbiased_sigma(np.array([0.2, 0.5]), convention="literal")
assert sigma_unbiased == 1.0 and sigmas_literal.shape == (2,)
t_mse: float = rl.temperature.mse(0.5, 16, 1.0)
t_mse_grid = np.asarray(rl.temperature.mse(0.5, [16, 64], 1.0))
assert t_mse_grid.shape == (2,) and close(t_mse_grid[0], t_mse)
sigma_star: float = rl.temperature.optimal_sigma(0.5, 16)
sigma_stars = np.asarray(rl.temperature.optimal_sigma(0.5, [16, 1024], method="brent"))
assert 0 < sigma_star and sigma_stars.shape == (2,)
ce: rl.temperature.Counterexample = rl.temperature.counterexample(0.5)
bias: float = ce.relative_bias_paper
optimal_by_D: dict[int, float] = ce.optimal_sigmas((4, 16))
ce_record: dict[str, float] = ce.as_dict()
assert ce.xi == 0.5 and bias != 0 and sorted(optimal_by_D) == [4, 16] and ce_record["xi"] == 0.5
ce_fields: list[float] = [ce.mean_paper, ce.mean_paper_literal, ce.mean_sigma1, ce.sigma_paper]
ce_fields += [ce.sigma_paper_sq, ce.target, ce.target_literal]
curve: rl.temperature.MSECurve = rl.temperature.mse_curve(0.5, 16, [0.5, 1.0], d=8, trials=64, seed=3)
assert curve.sigmas.shape == curve.analytic.shape == curve.empirical.shape == curve.stderr.shape == (2,)
spec: FloatArray = rl.temperature.spectrum(8, "rfa", squared=True)
assert spec.shape == (4,)

# --- rotary --------------------------------------------------------------------------------------
d, T = 8, 6
inv_freq: FloatArray = rl.rotary.frequencies(d)
theta: FloatArray = rl.rotary.rope_angles(np.arange(T), d)
x = rng.standard_normal((T, d))
xr: RealArray = rl.rotary.rotate(x, theta)
assert close(np.linalg.norm(xr, axis=-1), np.linalg.norm(x, axis=-1))
perm: npt.NDArray[np.intp] = rl.rotary.layout_permutation(d)
assert close(rl.rotary.rotate(x[:, perm], theta, layout="half"), xr[:, perm])
cum: FloatArray = rl.rotary.cumulative_angles(rng.standard_normal((T, d // 2)), inv_freq)
conv: FloatArray = rl.rotary.short_conv(rng.standard_normal((T, d // 2)), [0.5, 0.5], "silu")
sel: FloatArray = rl.rotary.selective_angles(rng.standard_normal((T, d // 2)), [0.5, 0.5], inv_freq)
assert cum.shape == conv.shape == sel.shape == (T, d // 2)
bound: float = rl.rotary.decay_bound(10.0, d=d)
bounds: FloatArray = rl.rotary.decay_bound(np.arange(4.0), d=d)
assert bound > 0 and bounds.shape == (4,)
R: FloatArray = rl.rotary.rotation_matrix(theta[1])
assert close(R @ x[1], xr[1])
z: ComplexArray = rl.rotary.complexify(x)
assert close(rl.rotary.realify(z), x)
diag: FloatArray = rl.rotary.realify_diagonal(np.exp(1j * theta[1]))
assert close(diag, R)
parity_error: FloatArray = rl.rotary.parity_angle_error(rng.integers(0, 2, size=(2, 32)), accumulate="float32")
assert float(np.max(parity_error)) >= 0

# --- recurrence ----------------------------------------------------------------------------------
q3, k3, v3 = rng.normal(size=(3, T, 4))
A = 0.9 * np.eye(4) + 0.05 * rng.normal(size=(T, 4, 4))
rec: FloatArray = rl.recurrence.linear_attention(q3, k3, v3, A)
assert close(rec, rl.recurrence.linear_attention(q3, k3, v3, A, mode="unrolled"))
ang = np.cumsum(rng.normal(size=(T, 2)), axis=0)
gates = rng.uniform(0.5, 1.0, size=(T, 4))
srope: FloatArray = rl.recurrence.selective_rope_attention(q3, k3, v3, ang, gates)
assert close(srope, rl.recurrence.selective_rope_attention(q3, k3, v3, ang, gates, mode="recurrent"))
w2 = rng.normal(size=(4, 4))
rffa: ComplexArray = rl.recurrence.rff_attention(0.3 * q3, 0.3 * k3, v3, w2)
incr: ComplexArray = rl.recurrence.rff_increment_product(q3, w2, tau=1)
assert rffa.shape[0] == incr.shape[0] == T
alibi_o: FloatArray = rl.recurrence.alibi_attention(q3, k3, v3, 0.3)
fox_o: FloatArray = rl.recurrence.fox_attention(q3, k3, v3, rng.uniform(size=T))
cos_o: FloatArray = rl.recurrence.cosformer_attention(q3, k3, v3)
soft_o: FloatArray = rl.recurrence.softmax_attention(q3, k3, v3, rl.rotary.rope_angles(np.arange(T), 4))
beta = rng.uniform(size=T)
delta_o: RealArray = rl.recurrence.delta_rule(q3, k3, v3, beta)
A_delta: FloatArray = rl.recurrence.delta_transitions(k3, beta)
assert close(delta_o, rl.recurrence.linear_attention(q3, k3, beta[:, None] * v3, transitions=A_delta))
dp: RealArray = rl.recurrence.delta_product(
    rng.normal(size=(5, 4)), rng.normal(size=(5, 2, 4)), rng.normal(size=(5, 2, 3)), np.full((5, 2), 0.5)
)
assert dp.shape == (5, 3) and alibi_o.shape == fox_o.shape == cos_o.shape == soft_o.shape == (T, 4)

# --- transition ----------------------------------------------------------------------------------
A_eff: FloatArray = rl.transition.effective([0.3], [0.8], gates=[0.9])
A_seq: FloatArray = rl.transition.effective_sequence([[0.0], [0.5]])
assert A_eff.shape == (2, 2) and A_seq.shape == (2, 2, 2)
comm = float(rl.transition.commutator_norm([np.pi / 2], [1.0, 0.5]))  # one pair: a float
svals: FloatArray = rl.transition.singular_values(np.diag([1.0, 3.0, 2.0]))
snorm = float(rl.transition.spectral_norm([[0.0, 2.0], [-1.0, 0.0]]))  # one matrix: a float
eig: npt.NDArray[np.complex128] = rl.transition.eigenvalues([[0.0, -1.0], [1.0, 0.0]])
assert comm > 0 and snorm == 2.0 and svals[0] == 3.0 and close(np.abs(eig), np.ones(2))
H: FloatArray = rl.transition.householder([1.0, 0.0])
P: FloatArray = rl.transition.householder_product([[1.0, 0.0], [np.cos(0.2), np.sin(0.2)]])
G: FloatArray = rl.transition.generalized_householder([0.0, 1.0], 0.5)
assert close(P, rl.rotary.rotation_matrix([0.4])) and close(H @ H, np.eye(2)) and G.shape == (2, 2)
factor: FloatArray = rl.transition.prf_transition_factor([[0.0], [1.0]], [[np.log(2.0)]])
fd: rl.transition.FactorDistribution = rl.transition.prf_factor_distribution(1.0)
fd_stats: tuple[float, float, float, float] = (fd.mean, fd.median, fd.prob_gt_one, fd.variance)
assert factor.size > 0 and 0 < fd.prob_gt_one < 1

# --- attention -----------------------------------------------------------------------------------
qa, ka, va = 0.5 * rng.standard_normal((3, 16, 8))
exact: RealArray = rl.attention.softmax(qa, ka, va, angles=rl.rotary.rope_angles(np.arange(16), 8))
est: RealArray = rl.attention.random_feature(qa, ka, va, 256, estimator="positive", seed=3)
parts: rl.attention.RandomFeatureParts = rl.attention.random_feature(qa, ka, va, 256, seed=3, return_parts=True)
assert est.shape == exact.shape == parts.output.shape
assert close(parts.output, parts.numerator / parts.denominator[..., None], 1e-6)
phi: FloatArray = rl.attention.feature_map(qa, rl.rff.sample_omega(32, 8), "trig")
cosine: float = rl.attention.mean_cosine(qa, ka)
one: float = rl.attention.rule_sigma("one")
tan: float = rl.attention.rule_sigma("tan", xi=0.5)
per_pair: FloatArray = rl.attention.rule_sigma("rope", d=8)
assert one == 1.0 and close(tan, sigma_paper) and per_pair.shape == (4,) and phi.shape[0] == 16
err: rl.attention.AttentionError = rl.attention.error(qa, ka, va, [16, 64], rules=("one", "tan"), trials=2)
err_one_16: tuple[float, float] = err.at("one", 16)
assert err.mean.shape == err.stderr.shape == (2, 2) and err_one_16[0] >= 0 and cosine <= 1
prec: rl.attention.AnglePrecision = rl.attention.angle_precision(qa, ka, rng.uniform(size=(16, 4)))
prec_arrays: list[FloatArray] = [prec.angle_error, prec.score_error, prec.angle_max]

# --- selective -----------------------------------------------------------------------------------
temp: FloatArray = rl.selective.rotary_temperature("rope", 10000.0, 4)
weights: rl.selective.SelectiveWeights = rl.selective.SelectiveWeights(
    rng.standard_normal((16, 8)),
    rng.standard_normal((4, 16)),
    temp,
    num_heads=2,
    conv_weight=rng.standard_normal((4, 4)),
)
dims: tuple[int, int, int, int, int] = (weights.model_dim, weights.rank, weights.channels, weights.pairs, weights.taps)
hidden = rng.standard_normal((10, 8))
psi: RealArray = rl.selective.angles(hidden, weights)
state: rl.selective.SelectiveState = rl.selective.SelectiveState(weights)
streamed: RealArray = np.concatenate([state.feed(hidden[:3]), state.step(hidden[3:])])
assert close(streamed, psi)
state.reset()
qs = rng.standard_normal((10, 2, 4))
q_rot, k_rot, psi2 = rl.selective.apply(qs, qs, hidden, weights)
assert close(psi2, psi) and q_rot.shape == qs.shape == k_rot.shape
state_dict: dict[str, Any] = {
    "phi_proj.0.weight": weights.proj_down,
    "phi_proj.1.weight": weights.proj_up,
    "temperature": np.ones((1, 1, 1, 2)),
}
from_sd: rl.selective.SelectiveWeights = rl.selective.SelectiveWeights.from_state_dict(state_dict, num_heads=2)
assert from_sd.pairs == 2
tmp = Path(tempfile.mkdtemp())
save_file({key: np.ascontiguousarray(value) for key, value in state_dict.items()}, str(tmp / "w.safetensors"))
loaded: rl.selective.SelectiveWeights = rl.selective.load_safetensors(str(tmp / "w.safetensors"), num_heads=2)
assert loaded.pairs == from_sd.pairs

# --- spectra -------------------------------------------------------------------------------------
names: list[str] = rl.spectra.window_names()
assert "hann" in names and "hann" in rl.spectra.WINDOWS and rl.spectra.MAX_SIGNAL_LENGTH > 0
assert all(isinstance(alias, str) for alias in rl.spectra.WINDOW_ALIASES)
info: rl.spectra.WindowInfo = rl.spectra.window_info("kaiser")
info_text: list[str] = [info.name, info.definition, info.harris_name, info.scipy_name, info.symmetry]
info_text += [p.name for p in info.parameters] + info.aliases
hann: FloatArray = rl.spectra.window("hann", 64)
kaiser: FloatArray = rl.spectra.window("kaiser", 64, beta=8.6)
taper: FloatArray = rl.spectra.dpss(64, 2.5)
tapers, ratios = rl.spectra.dpss(64, 2.5, 3, return_ratios=True)
assert tapers.shape == (3, 64) and ratios.shape == (3,) and bool(np.all(ratios > 0.9))
assert taper.shape == (64,)
ssm: FloatArray = rl.spectra.ssm_window(alpha=rl.spectra.decay_per_sample(2.0, 64), N=64)
impulse: ComplexArray = rl.spectra.ssm_impulse(0.05, 0.3, 64)
bins = np.linspace(-4.0, 4.0, 9)
X: ComplexArray = rl.spectra.dtft(hann, bins)
freqs, power_db = rl.spectra.spectrum(hann, pad=8)
assert freqs.shape == power_db.shape and X.shape == bins.shape and impulse.shape == (64,)
ssm_X: ComplexArray = rl.spectra.ssm_spectrum(0.05, 0.3, 64, bins)
envelope: FloatArray = rl.spectra.ssm_envelope(0.05, 0.3, 64, bins)
assert envelope.shape == ssm_X.shape and bool(np.all(envelope > 0))
cont: ComplexArray = rl.spectra.continuous_spectrum(0.5, 2.0, 4.0, bins)
Abar, Bbar = rl.spectra.zoh(0.5, 2.0, 0.1)
zoh_scalar: complex = Abar * Bbar
Abars, Bbars = rl.spectra.zoh([0.5, 1.0], 2.0, 0.1)
assert np.shape(Abars) == np.shape(Bbars) == (2,)
K: ComplexArray = rl.spectra.ssm_kernel([-0.5 + 2.0j], 1.0, 1.0, dt=0.1, L=4)
assert close(K, Bbar * Abar ** np.arange(4))
per_sample: float = rl.spectra.decay_per_sample(2.0, 1024)
per_samples: FloatArray = rl.spectra.decay_per_sample([0.0, 2.0], 64)
over_window: float = rl.spectra.decay_over_window(per_sample, 1024)
over_windows: FloatArray = rl.spectra.decay_over_window(per_samples, 64)
assert close(over_window, 2.0) and close(over_windows, [0.0, 2.0])
fom: rl.spectra.FiguresOfMerit = rl.spectra.figures_of_merit(hann, pad=8)
fom_record: dict[str, Any] = fom.as_dict()
merit: list[float] = [fom.enbw_bins, fom.highest_sidelobe_db, fom.scalloping_loss_db, fom.coherent_gain]
merit += [fom.first_min_bins, fom.leakage_factor, fom.worst_case_processing_loss_db]
ripple: float | None = fom.truncation_ripple_db
assert fom_record["enbw_bins"] == fom.enbw_bins and 1.4 < fom.enbw_bins < 1.6
leak: rl.spectra.LeakageMap = rl.spectra.leakage_map(alpha=per_samples, omega=[0.3, 0.6], N=64, pad=4)
leak_arrays: list[FloatArray] = [leak.alpha, leak.omega, leak.far_leakage_db, leak.bin_leakage_factor]
leak_arrays += [leak.decay_over_window, leak.highest_sidelobe_db, leak.first_min_db, leak.first_min_bins]
leak_arrays += [leak.enbw_bins, leak.bandwidth_3db_bins, leak.scalloping_loss_db, leak.leakage_factor]
leak_arrays += [leak.truncation_ripple_db, leak.tone_scalloping_loss_db]
leak_record: dict[str, Any] = leak.as_dict()
assert leak.far_leakage_db.shape == (2, 2) and "alpha" in leak_record
table: pd.DataFrame = rl.spectra.harris_table(N=256, pad=8)
assert bool((table["window"] == "hann").any())

# --- simd ----------------------------------------------------------------------------------------
isa = rl.simd.isa()  # "scalar", "avx2" or "avx512"
available = rl.simd.available()
assert isa in available and "scalar" in available
with rl.simd.using("scalar"):
    assert rl.simd.isa() == "scalar"
rl.simd.set_isa("scalar")
rl.simd.set_isa(available[-1])
rl.simd.set_isa(isa)
threads: int = rl.simd.default_threads()
rate: float = rl.simd.primitive_rate("cos", 1 << 12, repeat=1, nthreads=1)
assert threads >= 1 and rate > 0

# --- tasks ---------------------------------------------------------------------------------------
s3: rl.tasks.Group = rl.tasks.group("S3")
assert s3.order == 6 and not s3.abelian and int(s3.table[s3.identity, 1]) == 1
st: rl.tasks.StateTracking = rl.tasks.state_tracking("S2", 3, 20, seed=1)
assert st.tokens.shape == st.labels.shape == (3, 20) and st.group.order == 2
mq: rl.tasks.MQAR = rl.tasks.mqar(2, seq_len=12, n_pairs=3, vocab=20, seed=0)
cp: rl.tasks.Copying = rl.tasks.copying(2, length=4, vocab=10, seed=2)
assert mq.inputs.shape[0] == cp.inputs.shape[0] == 2 and mq.n_pairs == 3 and cp.length == 4

# --- expressivity --------------------------------------------------------------------------------
z3_angles: npt.NDArray[np.float64] = rl.expressivity.element_angles("Z3")
rho: npt.NDArray[np.float64] = rl.expressivity.representation(s3)
assert close(rho[s3.table[1, 4]], rho[1] @ rho[4]) and z3_angles.shape == (3,)
W: npt.NDArray[np.float64] = rl.expressivity.householder_factors(np.array([[0.0, -1.0], [1.0, 0.0]]))
assert len(W) == 2
acc_rot: float = rl.expressivity.accuracy(rl.expressivity.track_rotation("S2", st.tokens), st.labels)
s3_data = rl.tasks.state_tracking("S3", 2, 20, seed=3)
acc_hh: float = rl.expressivity.accuracy(rl.expressivity.track_householder(s3, s3_data.tokens), s3_data.labels)
fixed = rl.expressivity.track_fixed_rope("S2", st.tokens)
positive = rl.expressivity.track_positive_gates("S2", st.tokens)
acc_fixed: float = rl.expressivity.accuracy(fixed, st.labels, last_only=True)
acc_pos: float = rl.expressivity.accuracy(positive, st.labels)
assert acc_rot == acc_hh == 1.0 and 0 <= acc_fixed <= 1 and 0 <= acc_pos <= 1

# --- related -------------------------------------------------------------------------------------
slopes: FloatArray = rl.related.alibi_slopes(2)
bias_matrix: FloatArray = rl.related.alibi_bias(T, slopes)
fox_matrix: FloatArray = rl.related.fox_bias([0.5, 0.5, 1.0])
qh, kh, vh = rng.normal(size=(3, 2, T, 4))
alibi_out: FloatArray = rl.related.alibi(qh, kh, vh, slopes)
f_gates = rng.uniform(0.5, 1.0, size=(2, T))
fox_out: FloatArray = rl.related.fox(qh, kh, vh, f_gates)
bits_q, bits_k = rng.integers(0, 2, size=(2, 2, T, 3)).astype(float)  # binary keys: exact features
phi_q: FloatArray = rl.related.exp_kernel_features(bits_q, scale=0.5)
phi_k: FloatArray = rl.related.exp_kernel_features(bits_k, scale=0.5)
dk: FloatArray = rl.related.decayed_kernel_attention(phi_q, phi_k, vh, f_gates)
assert alibi_out.shape == fox_out.shape == dk.shape == (2, T, 4) and fox_matrix.shape == (3, 3)
assert bias_matrix.shape[-1] == T

# --- extrapolation -------------------------------------------------------------------------------
rules: tuple[str, ...] = rl.extrapolation.RULES
scalings: list[rl.extrapolation.Scaling] = [
    rl.extrapolation.scaled_frequencies(128, "linear", factor=4.0),
    rl.extrapolation.scaled_frequencies(128, "yarn", factor=16.0),
    rl.extrapolation.scaled_frequencies(128, "llama3", factor=8.0),
    rl.extrapolation.scaled_frequencies(128, "llama3", factor=8.0, reference="transformers"),
]
attention_factor: float = scalings[1].attention_factor
unseen: rl.extrapolation.UnseenAngles = rl.extrapolation.unseen_angles(rl.rotary.frequencies(128), 2048, 8192)
with_pi = rl.extrapolation.unseen_angles(rl.rotary.frequencies(128), 2048, 8192, scalings[0].inv_freq)
n_unseen: int = unseen.n_unseen
assert "yarn" in rules and n_unseen > 0 and attention_factor > 1
assert float(np.max(with_pi.unseen_fraction)) < 1e-3 < float(np.max(unseen.unseen_fraction))

# --- sweep ---------------------------------------------------------------------------------------
registered: dict[str, rl.sweep.Task] = rl.sweep.tasks()
required: list[str] = [axis for axis, v in registered["rff_mse"].axes.items() if v is rl.sweep.REQUIRED]
grid: rl.sweep.Grid = rl.sweep.Grid.from_mapping({"xi": [0.1, 0.5], "D": [16, 64]})
cell = grid.cell(3)
assert required == ["xi", "D"] and len(grid) == 4 and grid.shape == (2, 2) and cell["D"] == 64
axis_names: tuple[str, ...] = grid.names
D_column: npt.NDArray[Any] = grid.column("D", [0, 1, 2, 3])
assert rl.sweep.Grid.from_spec(grid.spec()) == grid and D_column.tolist() == [16, 64, 16, 64]
rff_task: rl.sweep.Task = registered["rff_mse"]
rff_task.check_axes(axis_names)
cell_params: Mapping[str, object] = rff_task.params(cell)
assert cell_params["xi"] == 0.5 and "estimator" in cell_params
seed_3: int = rl.sweep.cell_seed(0, 3)


def halve(params: Mapping[str, Any], *, trials: int | None, seed: int, nthreads: int | None) -> dict[str, float]:
    return {"half": float(params["x"]) / 2}


halving: rl.sweep.Task = rl.sweep.register_task("user_halve", halve, axes=["x"], outputs=["half"], replace=True)
df: pd.DataFrame = rl.sweep.run(halving, {"x": [1.0, 3.0]}, progress=False)
assert df["half"].tolist() == [0.5, 1.5] and seed_3 != rl.sweep.cell_seed(0, 2)
merit_df: pd.DataFrame = rl.sweep.run(
    "window_merit", {"window": ["hann", "hamming"], "N": [64, 128]}, store=tmp / "merit", progress=False
)
assert rl.sweep.load(tmp / "merit").equals(merit_df)
ds = rl.sweep.to_xarray(merit_df)
assert dict(ds.sizes) == {"window": 2, "N": 2}

# --- claims and report ---------------------------------------------------------------------------
assert "thm1.counterexample" in rl.claims.REGISTRY and "rope" in rl.claims.SECTIONS
assert isinstance(rl.claims.USER_SECTION, str) and isinstance(rl.claims.ENTRY_POINT_GROUP, str)


@rl.claims.claim("user.paper_sigma_squared", source="a user check", statement="tan² = 1/3 at ξ = 1/2", expected="holds")
def paper_sigma_squared() -> rl.claims.Evidence:
    value = rl.temperature.paper_sigma(0.5) ** 2
    verdict: rl.claims.Verdict = rl.claims.derive_verdict(abs(value - 1 / 3) < 1e-12)
    return rl.claims.Evidence(verdict=verdict, values={"sigma_sq": value}, tolerance="1e-12 absolute")


user_claim: rl.claims.Claim = rl.claims.REGISTRY["user.paper_sigma_squared"]
assert user_claim.section == rl.claims.USER_SECTION
plugins: list[str] = rl.claims.load_plugins(entry_points=False)
try:
    rl.claims.load_plugins(["ropelab_no_such_plugin_module"], entry_points=False)
except rl.claims.PluginError as e:
    plugin_error: str = str(e)
results: rl.claims.ClaimResults = rl.claims.run(["thm1.counterexample", "user.paper_sigma_squared"])
first: rl.claims.ClaimResult = results[0]
assert first.matches and all(r.matches for r in results) and first.as_dict()["id"] == "thm1.counterexample"
statement: str = first.statement_text
assert "$" not in statement
claims_df: pd.DataFrame = results.to_dataframe()
assert len(claims_df) == 2
del rl.claims.REGISTRY["user.paper_sigma_squared"]

counts: dict[str, int] = rl.report.summary(results)
line: str = rl.report.summary_line(results, seconds=0.1)
text: str = rl.report.terminal(results, color=False, width=100)
provenance: dict[str, Any] = rl.report.claim_provenance(results)
as_json: str = rl.report.to_json(results, seconds=0.1, provenance=provenance)
figures: dict[str, Path] = rl.report.render_figures(results, tmp / "figures")
markdown: str = rl.report.to_markdown(results, figures=figures, relative_to=tmp, seconds=0.1)
html: str = rl.report.to_html(results, figures=figures)
assert counts["holds"] >= 1 and "thm1.counterexample" in text + markdown + html + as_json and line

# --- plot ----------------------------------------------------------------------------------------
figs: list[Figure] = [
    rl.plot.mse_vs_sigma(curve),
    rl.plot.sigma_star_vs_D((0.0, 0.5), Ds=[1.0, 16.0, 256.0]),
    rl.plot.spectrum_db({"hann": hann, "kaiser": kaiser, "ssm": ssm}, pad=8),
    rl.plot.leakage_map(leak, field="bin_leakage_factor"),
    rl.plot.decay_bound_curve(d=16, r_max=200),
    rl.plot.recurrence_error_vs_T((16, 32), d=4),
    rl.plot.sweep_lines(merit_df, "N", "enbw_bins"),
]
with rl.plot.detached():
    explorer: rl.plot.MSEExplorer = rl.plot.mse_explorer(0.5, 16, 1.0)
    explorer.update(0.3, 64, 0.8)
    png: bytes = explorer.png(dpi=40)
    widget: object = explorer.widget  # an ipywidgets box (untyped); it makes the sliders
    slider_names: list[str] = sorted(explorer.sliders)
    direct = rl.plot.MSEExplorer(xi=0.2, D=8)
assert png.startswith(b"\x89PNG") and slider_names and widget is not None and direct is not explorer
assert isinstance(rl.plot.CRN_NOTE, str)
for fig in figs:
    fig.savefig(os.devnull, format="png", dpi=20)

shutil.rmtree(tmp)
print(f"ropelab {rl.__version__}: {len(modules)} modules exercised", file=sys.stderr)
