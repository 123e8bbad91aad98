"""Claims about what rotations, gates and reflections can track: the mechanisms behind the state
tracking results of the Selective RoPE paper (§3.3, §4.2 and Fig. 7; App. A on Householder
transitions), checked on generated word problems at ten times the training length.
"""

from __future__ import annotations

import numpy as np

from ropelab import expressivity, tasks
from ropelab.claims._registry import Evidence, claim, derive_verdict

SEED = 20260116
#: Training length of the paper's state-tracking runs (App. B.2) and the test length (10×).
TRAIN_LENGTH, TEST_LENGTH = 128, 1280
N_SEQUENCES = 200
#: Selective RoPE's parity angle ω = π b (a perturbation test changes it).
PARITY_ANGLE = np.pi


def _data(group: str, stream: int) -> tasks.StateTracking:
    return tasks.state_tracking(group, N_SEQUENCES, TEST_LENGTH, seed=SEED, stream=stream)


def _chance_band(p: float, n: int) -> float:
    """Five binomial standard errors of an accuracy near ``p`` over ``n`` scored states."""
    return 5 * float(np.sqrt(p * (1 - p) / n))


@claim(
    "expr.parity_rotation",
    source="Selective RoPE §3.3, §4.2 (Fig. 7)",
    statement="A phase ω_t = π b_t (one rotating channel pair) tracks parity (S2) exactly, also at 10× "
    "the training length",
    expected="holds",
)
def parity_rotation() -> Evidence:
    data = _data("S2", 0)
    angles = np.array([0.0, PARITY_ANGLE])
    acc = expressivity.accuracy(expressivity.track_rotation("S2", data.tokens, angles), data.labels)
    return Evidence(
        derive_verdict(acc == 1.0),
        {"accuracy": acc},
        "exact: every one of the states must be right",
        {
            "group": "S2",
            "sequences": N_SEQUENCES,
            "length": TEST_LENGTH,
            "train_length": TRAIN_LENGTH,
            "angle_of_1": PARITY_ANGLE,
            "seed": SEED,
        },
    )


@claim(
    "expr.cyclic_rotation",
    source="Selective RoPE §4.2 (A3 in Fig. 7)",
    statement="Rotations by 2π/3 per generator track Z3 and A3 exactly (and 2π/n tracks Z_n), also at 10× "
    "the training length",
    expected="holds",
)
def cyclic_rotation() -> Evidence:
    accs = {}
    for i, name in enumerate(("Z3", "A3", "Z5", "Z12")):
        data = _data(name, 1 + i)
        accs[name] = expressivity.accuracy(expressivity.track_rotation(name, data.tokens), data.labels)
    return Evidence(
        derive_verdict(all(a == 1.0 for a in accs.values())),
        {"accuracy": accs},
        "exact: every state must be right",
        {"sequences": N_SEQUENCES, "length": TEST_LENGTH, "seed": SEED},
    )


@claim(
    "expr.s3_householder",
    source="Selective RoPE §5, App. A (Householder transitions)",
    statement="Products of commuting rotations are order-invariant, so one rotation pair cannot track the "
    "non-abelian S3; products of Householder reflections (the delta rule with β = 2) track it "
    "exactly",
    expected="holds",
)
def s3_householder() -> Evidence:
    g = tasks.group("S3")
    data = _data("S3", 10)
    # order matters in S3: two words with the same letters, different products
    a, b = 1, 2  # two transpositions
    non_commuting = int(g.table[a, b]) != int(g.table[b, a])
    # any assignment of rotation angles gives both words the same phase, so one of the two is wrong
    angles = expressivity.element_angles(g)
    same_phase = bool(np.isclose((angles[a] + angles[b]) % (2 * np.pi), (angles[b] + angles[a]) % (2 * np.pi)))
    rot = expressivity.accuracy(expressivity.track_rotation(g, data.tokens), data.labels, last_only=True)
    house = expressivity.accuracy(expressivity.track_householder(g, data.tokens), data.labels)
    # the rotation tracker knows only the sign of the permutation: 2 of the 6 states are reachable per phase
    band = _chance_band(1 / 3, N_SEQUENCES)
    holds = non_commuting and same_phase and house == 1.0 and rot < 1 / 3 + band
    return Evidence(
        derive_verdict(holds),
        {
            "householder_accuracy": house,
            "rotation_accuracy_final_state": rot,
            "ab_differs_from_ba": non_commuting,
            "rotation_angle_of_ab_equals_ba": same_phase,
        },
        f"Householder: exact; rotation: at most 1/3 + 5 binomial SE ({band:.3f}) at the final state "
        "(the phase fixes only the sign of the permutation)",
        {"group": "S3", "sequences": N_SEQUENCES, "length": TEST_LENGTH, "seed": SEED},
    )


@claim(
    "expr.fixed_rope_parity",
    source="Selective RoPE §3.3, §4.2",
    statement="Fixed RoPE and positive gates cannot track parity: their states do not flip with the input "
    "bits, so they stay at chance",
    expected="holds",
)
def fixed_rope_parity() -> Evidence:
    data = _data("S2", 20)
    rope = expressivity.accuracy(expressivity.track_fixed_rope("S2", data.tokens), data.labels, last_only=True)
    gates = expressivity.accuracy(expressivity.track_positive_gates("S2", data.tokens), data.labels, last_only=True)
    # the parity of a uniform random word is a fair coin: both readouts are at chance
    band = _chance_band(0.5, N_SEQUENCES)
    # and the RoPE state is literally the same for two words of opposite parity
    flipped = data.tokens.copy()
    flipped[:, 0] ^= 1
    same_state = bool(
        np.array_equal(expressivity.track_fixed_rope("S2", data.tokens), expressivity.track_fixed_rope("S2", flipped))
    )
    holds = abs(rope - 0.5) < band and abs(gates - 0.5) < band and same_state
    return Evidence(
        derive_verdict(holds),
        {
            "fixed_rope_accuracy": rope,
            "positive_gates_accuracy": gates,
            "rope_state_same_for_opposite_parity": same_state,
        },
        f"|accuracy − 1/2| < 5 binomial SE = {band:.3f} ({N_SEQUENCES} final states)",
        {"group": "S2", "sequences": N_SEQUENCES, "length": TEST_LENGTH, "seed": SEED},
    )
