"""Numbers transcribed from the Selective RoPE paper's result tables (arXiv:2511.17388v3).

These are data, not computations: the ``tables.*`` claims recompute the paper's derived figures
(averages and quoted differences) from them. Sources: Table 1 (PDF p. 7), Table 2 (PDF p. 8) and
Table 3 (PDF p. 9) of arXiv:2511.17388v3.
"""

from __future__ import annotations

__all__ = ["TABLE1_MAD_AVG", "TABLE1_MAD_TASKS", "TABLE2_GLA370M", "TABLE3", "TABLE3_TASK_ACC"]

#: Table 1: MAD average score (higher is better), GLA configurations.
TABLE1_MAD_AVG: dict[str, float] = {
    "NoPE": 65.9,
    "RoPE": 72.5,
    "Selective RoPE": 72.0,
    "+ phase gate": 72.3,
    "+ bias": 72.7,
    "+ phase gate and bias": 73.2,
}

#: Table 2: GLA 370M / 10B tokens ablation: (Avg-PPL, Avg-Acc).
TABLE2_GLA370M: dict[str, tuple[float, float]] = {
    "NoPE": (20.78, 46.8),
    "RoPE": (21.42, 46.5),
    "Selective RoPE Baseline": (21.27, 45.8),
    "+ SiLU": (21.14, 46.7),
    "+ phase gate": (21.16, 47.1),
}

#: Table 3: (block, position encoding) -> (Wiki PPL, LAMBADA PPL, reported Avg.).
TABLE3: dict[tuple[str, str], tuple[float, float, float]] = {
    ("FoX 370M", "NoPE"): (25.52, 17.76, 45.3),
    ("FoX 370M", "RoPE"): (25.29, 17.71, 45.1),
    ("FoX 370M", "Selective RoPE"): (33.87, 17.29, 46.1),
    ("GLA 370M", "NoPE"): (25.72, 15.83, 46.8),
    ("GLA 370M", "RoPE"): (26.51, 16.32, 46.5),
    ("GLA 370M", "Selective RoPE"): (25.98, 16.33, 47.1),
    ("Gated DeltaNet 400M", "NoPE"): (25.82, 16.27, 46.6),
    ("Gated DeltaNet 400M", "RoPE"): (25.92, 16.79, 46.7),
    ("Gated DeltaNet 400M", "Selective RoPE"): (26.13, 15.93, 47.5),
    ("GLA 1.3B", "NoPE"): (18.18, 8.59, 55.2),
    ("GLA 1.3B", "RoPE"): (18.50, 8.88, 54.4),
    ("GLA 1.3B", "Selective RoPE"): (17.87, 8.50, 54.6),
}

#: Table 1 (PDF p. 7): MAD per-task scores (higher is better) for three of the six tasks, GLA
#: configurations, in the order In-context Recall, Memorize, Noisy Recall.
TABLE1_MAD_TASKS: dict[str, dict[str, float]] = {
    "NoPE": {"In-context Recall": 87.3, "Memorize": 38.7, "Noisy Recall": 87.6},
    "RoPE": {"In-context Recall": 92.6, "Memorize": 61.4, "Noisy Recall": 91.9},
    "Selective RoPE": {"In-context Recall": 94.0, "Memorize": 57.1, "Noisy Recall": 91.7},
    "+ phase gate": {"In-context Recall": 96.6, "Memorize": 56.9, "Noisy Recall": 94.3},
    "+ bias": {"In-context Recall": 95.0, "Memorize": 61.3, "Noisy Recall": 91.2},
    "+ phase gate and bias": {"In-context Recall": 95.9, "Memorize": 60.4, "Noisy Recall": 95.0},
}

#: Table 3 (PDF p. 9): single-task zero-shot accuracies (%) discussed in Sec. 4.3, for the rows
#: where the paper's text compares them (a subset of the table's six accuracy columns; ARC-c is
#: length-normalised ``acc_n``, LAMBADA and WinoGrande plain ``acc``).
TABLE3_TASK_ACC: dict[tuple[str, str], dict[str, float]] = {
    ("GLA 370M", "NoPE"): {"LAMBADA": 43.1, "ARC-c": 24.9},
    ("GLA 370M", "Selective RoPE"): {"LAMBADA": 42.2, "ARC-c": 26.6},
    ("GLA 1.3B", "NoPE"): {"WinoGrande": 58.2, "ARC-c": 30.0},
    ("GLA 1.3B", "Selective RoPE"): {"WinoGrande": 56.0, "ARC-c": 28.8},
}
