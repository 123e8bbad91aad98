"""The claims table of the design (CLAIMS.md): id -> the verdict the mathematics gives.

Test data: tests assert that the registry carries exactly these ids and expectations, and that
the computed verdicts equal them.
"""

EXPECTED = {
    "rope.relative": "holds",
    "rope.elementwise": "holds",
    "rope.decay": "holds-if",
    "rope.linear_attention": "holds",
    "complex.realify": "holds",
    "rope.trick": "holds",
    "rff.gaussian_identity": "holds",
    "rff.eq8_literal": "fails",
    "rff.eq9_norm": "holds-if",
    "rff.telescoping": "holds",
    "eq11.index": "fails",
    "thm1.tan_rule": "fails",
    "thm1.counterexample": "holds",
    "thm1.literal_origin": "holds",
    "thm1.finite_D": "holds",
    "thm1.attention": "fails",
    "prf.sigma_one": "holds",
    "prf.transition_gt1": "holds",
    "rff.softmax_no_position": "holds",
    "ssm.window_rect": "holds",
    "ssm.decay_leakage": "holds-if",
    "ssm.hann_vs_decay": "holds",
    "ssm.real_part": "holds",
    "srope.prerotation": "holds",
    "srope.parity": "holds",
    "gate.effective": "holds",
    "gate.commute": "holds-if",
    "gate.norm": "holds",
    "householder.rotation": "holds",
    "householder.delta": "fails",
    "alibi.decay": "holds",
    "cosformer.states": "holds",
    "tables.avg_ppl": "holds",
    "tables.deltas": "holds",
}
