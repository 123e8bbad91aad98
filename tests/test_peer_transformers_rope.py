"""transformers' own RoPE tests, run against ropelab.extrapolation through a thin shim.

The cases are the numerical tests of ``tests/utils/test_modeling_rope_utils.py`` of Hugging Face
transformers 5.x (main at commit e42e4a43c16b458045aa7b0f721cfe4015680880,
https://github.com/huggingface/transformers/blob/e42e4a43c16b458045aa7b0f721cfe4015680880/tests/utils/test_modeling_rope_utils.py):
``test_{default,linear,dynamic,yarn,longrope,llama3,proportional}_rope_numerically`` and their
``_nested`` variants (Gemma 3: head_dim 256, max_position_embeddings 131072), with the upstream
snapshots (``EXPECTED_INV_FREQ``) and checks, written in NumPy: transformers and PyTorch are not
needed. ``torch.testing.assert_close`` on float32 is ``rtol = 1.3e-6, atol = 1e-5`` (its
defaults) with equal dtypes; comparisons such as ``default/factor <= inv_freq`` are done on the
float32 values, as torch does. ``rope_init`` below routes transformers' ``ROPE_INIT_FUNCTIONS``
calls (a ``rope_parameters`` dict, the model's head_dim and max_position_embeddings) to
:func:`ropelab.extrapolation.scaled_frequencies` with ``reference="transformers"`` (float32
arithmetic in transformers' order) and ``yarn_mscale="transformers"``; it translates names and
defaults and nothing else.

Left out (not numerical): the config validation tests (``test_rope_validation``,
``test_yarn_original_original_max_position_embeddings_validation``, ...) and the module tests
that run ``LlamaRotaryEmbedding`` forward passes (``test_dynamic_rope_resets_after_long_sequence``).
The nested proportional snapshot (64 values for a 256-dimensional head) is left out as well: it
cannot hold for any implementation of the rule of the same file (128 values).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ropelab import extrapolation

# ---------------------------------------------------------------------------------------- shim

LLAMA = {"head_dim": 128, "max_position_embeddings": 2048}  # LlamaConfig(): 4096 / 32 heads
GEMMA3 = {"head_dim": 256, "max_position_embeddings": 131072}  # Gemma3TextConfig()


def rope_init(
    rope_type: str, config: dict[str, int], params: dict[str, Any], seq_len: int | None = None
) -> tuple[np.ndarray, float]:
    """transformers' ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=...) on ropelab: (inv_freq as
    float32, attention factor)."""
    d = config["head_dim"]
    max_pos = config["max_position_embeddings"]
    original = params.get("original_max_position_embeddings", max_pos)
    kw: dict[str, Any] = {"base": params["rope_theta"], "reference": "transformers"}
    if rope_type == "default":
        s = extrapolation.scaled_frequencies(d, "default", **kw)
    elif rope_type == "linear":
        s = extrapolation.scaled_frequencies(d, "linear", factor=params["factor"], **kw)
    elif rope_type == "dynamic":
        s = extrapolation.scaled_frequencies(
            d, "dynamic", factor=params["factor"], original_max_position=max_pos, seq_len=seq_len, **kw
        )
    elif rope_type == "yarn":
        s = extrapolation.scaled_frequencies(
            d,
            "yarn",
            factor=params["factor"],
            original_max_position=original,
            beta_fast=params.get("beta_fast") or 32,
            beta_slow=params.get("beta_slow") or 1,
            attention_factor=params.get("attention_factor"),
            mscale=params.get("mscale"),
            mscale_all_dim=params.get("mscale_all_dim"),
            truncate=params.get("truncate", True),
            yarn_mscale="transformers",
            **kw,
        )
    elif rope_type == "longrope":
        factor = params.get("factor") or max_pos / original
        s = extrapolation.scaled_frequencies(
            d,
            "longrope",
            factor=factor,
            original_max_position=original,
            short_factor=params["short_factor"],
            long_factor=params["long_factor"],
            attention_factor=params.get("attention_factor"),
            seq_len=seq_len,
            **kw,
        )
    elif rope_type == "llama3":
        s = extrapolation.scaled_frequencies(
            d,
            "llama3",
            factor=params["factor"],
            original_max_position=original,
            low_freq_factor=params["low_freq_factor"],
            high_freq_factor=params["high_freq_factor"],
            **kw,
        )
    elif rope_type == "proportional":
        s = extrapolation.scaled_frequencies(
            d,
            "proportional",
            factor=params.get("factor", 1.0),
            partial_rotary_factor=params.get("partial_rotary_factor", 1.0),
            **kw,
        )
    else:
        raise KeyError(rope_type)
    inv = s.inv_freq.astype(np.float32)
    assert np.array_equal(inv.astype(np.float64), s.inv_freq)  # float32 values, exactly
    return inv, s.attention_factor


def assert_close(actual: np.ndarray, expected: Any) -> None:
    """torch.testing.assert_close for float32 tensors (its default tolerances, equal dtypes)."""
    expected = np.asarray(expected, dtype=np.float32)
    assert actual.dtype == np.float32 and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1.3e-6, atol=1e-5)


def default_inv_freq(config: dict[str, int]) -> np.ndarray:
    return rope_init("default", config, {"rope_theta": 10000.0})[0]


# ------------------------------------------------------------------------ upstream snapshots

EXPECTED_DEFAULT = [
    1.0000e00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
    7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
    3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
    1.3335e-02, 1.1548e-02, 1.0000e-02, 8.6596e-03, 7.4989e-03, 6.4938e-03,
    5.6234e-03, 4.8697e-03, 4.2170e-03, 3.6517e-03, 3.1623e-03, 2.7384e-03,
    2.3714e-03, 2.0535e-03, 1.7783e-03, 1.5399e-03, 1.3335e-03, 1.1548e-03,
    1.0000e-03, 8.6596e-04, 7.4989e-04, 6.4938e-04, 5.6234e-04, 4.8697e-04,
    4.2170e-04, 3.6517e-04, 3.1623e-04, 2.7384e-04, 2.3714e-04, 2.0535e-04,
    1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
]  # fmt: skip

EXPECTED_DEFAULT_NESTED = [
    1.0000e00, 9.3057e-01, 8.6596e-01, 8.0584e-01, 7.4989e-01, 6.9783e-01,
    6.4938e-01, 6.0430e-01, 5.6234e-01, 5.2330e-01, 4.8697e-01, 4.5316e-01,
    4.2170e-01, 3.9242e-01, 3.6517e-01, 3.3982e-01, 3.1623e-01, 2.9427e-01,
    2.7384e-01, 2.5483e-01, 2.3714e-01, 2.2067e-01, 2.0535e-01, 1.9110e-01,
    1.7783e-01, 1.6548e-01, 1.5399e-01, 1.4330e-01, 1.3335e-01, 1.2409e-01,
    1.1548e-01, 1.0746e-01, 1.0000e-01, 9.3057e-02, 8.6596e-02, 8.0584e-02,
    7.4989e-02, 6.9783e-02, 6.4938e-02, 6.0430e-02, 5.6234e-02, 5.2330e-02,
    4.8697e-02, 4.5316e-02, 4.2170e-02, 3.9242e-02, 3.6517e-02, 3.3982e-02,
    3.1623e-02, 2.9427e-02, 2.7384e-02, 2.5483e-02, 2.3714e-02, 2.2067e-02,
    2.0535e-02, 1.9110e-02, 1.7783e-02, 1.6548e-02, 1.5399e-02, 1.4330e-02,
    1.3335e-02, 1.2409e-02, 1.1548e-02, 1.0746e-02, 1.0000e-02, 9.3057e-03,
    8.6596e-03, 8.0584e-03, 7.4989e-03, 6.9783e-03, 6.4938e-03, 6.0430e-03,
    5.6234e-03, 5.2330e-03, 4.8697e-03, 4.5316e-03, 4.2170e-03, 3.9242e-03,
    3.6517e-03, 3.3982e-03, 3.1623e-03, 2.9427e-03, 2.7384e-03, 2.5483e-03,
    2.3714e-03, 2.2067e-03, 2.0535e-03, 1.9110e-03, 1.7783e-03, 1.6548e-03,
    1.5399e-03, 1.4330e-03, 1.3335e-03, 1.2409e-03, 1.1548e-03, 1.0746e-03,
    1.0000e-03, 9.3057e-04, 8.6596e-04, 8.0584e-04, 7.4989e-04, 6.9783e-04,
    6.4938e-04, 6.0430e-04, 5.6234e-04, 5.2330e-04, 4.8697e-04, 4.5316e-04,
    4.2170e-04, 3.9242e-04, 3.6517e-04, 3.3982e-04, 3.1623e-04, 2.9427e-04,
    2.7384e-04, 2.5483e-04, 2.3714e-04, 2.2067e-04, 2.0535e-04, 1.9110e-04,
    1.7783e-04, 1.6548e-04, 1.5399e-04, 1.4330e-04, 1.3335e-04, 1.2409e-04,
    1.1548e-04, 1.0746e-04,
]  # fmt: skip

EXPECTED_DYNAMIC = [
    1.0000e00, 8.0931e-01, 6.5498e-01, 5.3008e-01, 4.2900e-01, 3.4720e-01,
    2.8099e-01, 2.2741e-01, 1.8404e-01, 1.4895e-01, 1.2055e-01, 9.7558e-02,
    7.8955e-02, 6.3899e-02, 5.1714e-02, 4.1853e-02, 3.3872e-02, 2.7413e-02,
    2.2185e-02, 1.7955e-02, 1.4531e-02, 1.1760e-02, 9.5176e-03, 7.7027e-03,
    6.2339e-03, 5.0451e-03, 4.0831e-03, 3.3045e-03, 2.6744e-03, 2.1644e-03,
    1.7517e-03, 1.4176e-03, 1.1473e-03, 9.2852e-04, 7.5146e-04, 6.0817e-04,
    4.9220e-04, 3.9834e-04, 3.2238e-04, 2.6091e-04, 2.1115e-04, 1.7089e-04,
    1.3830e-04, 1.1193e-04, 9.0585e-05, 7.3312e-05, 5.9332e-05, 4.8018e-05,
    3.8861e-05, 3.1451e-05, 2.5453e-05, 2.0600e-05, 1.6672e-05, 1.3492e-05,
    1.0920e-05, 8.8374e-06, 7.1522e-06, 5.7883e-06, 4.6845e-06, 3.7912e-06,
    3.0683e-06, 2.4832e-06, 2.0097e-06, 1.6265e-06,
]  # fmt: skip

EXPECTED_DYNAMIC_NESTED = [
    1.0000e00, 9.1723e-01, 8.4131e-01, 7.7168e-01, 7.0781e-01, 6.4922e-01,
    5.9548e-01, 5.4620e-01, 5.0099e-01, 4.5952e-01, 4.2149e-01, 3.8660e-01,
    3.5460e-01, 3.2525e-01, 2.9833e-01, 2.7364e-01, 2.5099e-01, 2.3021e-01,
    2.1116e-01, 1.9368e-01, 1.7765e-01, 1.6295e-01, 1.4946e-01, 1.3709e-01,
    1.2574e-01, 1.1533e-01, 1.0579e-01, 9.7033e-02, 8.9001e-02, 8.1635e-02,
    7.4878e-02, 6.8680e-02, 6.2996e-02, 5.7781e-02, 5.2999e-02, 4.8612e-02,
    4.4589e-02, 4.0898e-02, 3.7513e-02, 3.4408e-02, 3.1560e-02, 2.8948e-02,
    2.6552e-02, 2.4354e-02, 2.2338e-02, 2.0489e-02, 1.8793e-02, 1.7238e-02,
    1.5811e-02, 1.4502e-02, 1.3302e-02, 1.2201e-02, 1.1191e-02, 1.0265e-02,
    9.4153e-03, 8.6360e-03, 7.9212e-03, 7.2656e-03, 6.6642e-03, 6.1126e-03,
    5.6067e-03, 5.1426e-03, 4.7170e-03, 4.3265e-03, 3.9684e-03, 3.6400e-03,
    3.3387e-03, 3.0623e-03, 2.8089e-03, 2.5764e-03, 2.3631e-03, 2.1675e-03,
    1.9881e-03, 1.8236e-03, 1.6726e-03, 1.5342e-03, 1.4072e-03, 1.2907e-03,
    1.1839e-03, 1.0859e-03, 9.9603e-04, 9.1359e-04, 8.3797e-04, 7.6862e-04,
    7.0500e-04, 6.4665e-04, 5.9312e-04, 5.4403e-04, 4.9900e-04, 4.5770e-04,
    4.1982e-04, 3.8507e-04, 3.5320e-04, 3.2396e-04, 2.9715e-04, 2.7255e-04,
    2.4999e-04, 2.2930e-04, 2.1032e-04, 1.9291e-04, 1.7695e-04, 1.6230e-04,
    1.4887e-04, 1.3655e-04, 1.2524e-04, 1.1488e-04, 1.0537e-04, 9.6648e-05,
    8.8648e-05, 8.1311e-05, 7.4581e-05, 6.8408e-05, 6.2746e-05, 5.7552e-05,
    5.2789e-05, 4.8419e-05, 4.4412e-05, 4.0736e-05, 3.7364e-05, 3.4271e-05,
    3.1435e-05, 2.8833e-05, 2.6446e-05, 2.4257e-05, 2.2250e-05, 2.0408e-05,
    1.8719e-05, 1.7170e-05,
]  # fmt: skip

EXPECTED_YARN = [
    1.0000e00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.3479e-02,
    6.9590e-02, 5.7925e-02, 4.8136e-02, 3.9931e-02, 3.3061e-02, 2.7315e-02,
    2.2515e-02, 1.8512e-02, 1.5177e-02, 1.2403e-02, 1.0101e-02, 8.1924e-03,
    6.6143e-03, 5.3120e-03, 4.2400e-03, 3.3599e-03, 2.6396e-03, 2.0520e-03,
    1.5746e-03, 1.1882e-03, 8.7713e-04, 6.2810e-04, 4.3007e-04, 2.7384e-04,
    2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
    1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
    4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
    1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
]  # fmt: skip

EXPECTED_YARN_NESTED = [
    1.0000e00, 9.3057e-01, 8.6596e-01, 8.0584e-01, 7.4989e-01, 6.9783e-01,
    6.4938e-01, 6.0430e-01, 5.6234e-01, 5.2330e-01, 4.8697e-01, 4.5316e-01,
    4.2170e-01, 3.9242e-01, 3.6517e-01, 3.3982e-01, 3.1623e-01, 2.9427e-01,
    2.7384e-01, 2.5483e-01, 2.3714e-01, 2.2067e-01, 2.0535e-01, 1.9110e-01,
    1.7783e-01, 1.6548e-01, 1.5399e-01, 1.4330e-01, 1.3335e-01, 1.2409e-01,
    1.1548e-01, 1.0746e-01, 1.0000e-01, 9.3057e-02, 8.6596e-02, 8.0584e-02,
    7.4989e-02, 6.9783e-02, 6.4938e-02, 6.0430e-02, 5.6234e-02, 5.2330e-02,
    4.8697e-02, 4.5316e-02, 4.2170e-02, 3.9242e-02, 3.6517e-02, 3.3982e-02,
    3.1623e-02, 2.9427e-02, 2.7384e-02, 2.5483e-02, 2.3714e-02, 2.2067e-02,
    2.0535e-02, 1.9110e-02, 1.7783e-02, 1.6548e-02, 1.5399e-02, 1.4330e-02,
    1.3335e-02, 1.2409e-02, 1.1548e-02, 1.0746e-02, 1.0000e-02, 9.3057e-03,
    8.6596e-03, 8.0584e-03, 7.4989e-03, 6.9783e-03, 6.4938e-03, 6.0430e-03,
    5.6234e-03, 5.2330e-03, 4.8697e-03, 4.5316e-03, 4.2170e-03, 3.9242e-03,
    3.6517e-03, 3.3982e-03, 3.1623e-03, 2.9427e-03, 2.7384e-03, 2.5483e-03,
    2.3714e-03, 2.2067e-03, 2.0535e-03, 1.9110e-03, 1.7783e-03, 1.6548e-03,
    1.5399e-03, 1.4067e-03, 1.2845e-03, 1.1726e-03, 1.0699e-03, 9.7592e-04,
    8.8980e-04, 8.1093e-04, 7.3872e-04, 6.7263e-04, 6.1216e-04, 5.5684e-04,
    5.0625e-04, 4.6001e-04, 4.1774e-04, 3.7912e-04, 3.4386e-04, 3.1166e-04,
    2.8228e-04, 2.5547e-04, 2.3103e-04, 2.0875e-04, 1.8845e-04, 1.6996e-04,
    1.5313e-04, 1.3782e-04, 1.2389e-04, 1.1124e-04, 9.9743e-05, 8.9308e-05,
    7.9841e-05, 7.1258e-05, 6.3483e-05, 5.6443e-05, 5.0075e-05, 4.4319e-05,
    3.9121e-05, 3.4431e-05,
]  # fmt: skip

EXPECTED_LLAMA3 = [
    1.0000e00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01, 1.0000e-01, 8.6596e-02,
    7.4989e-02, 6.4938e-02, 5.6234e-02, 4.8697e-02, 4.2170e-02, 3.6517e-02,
    3.1623e-02, 2.7384e-02, 2.3714e-02, 2.0535e-02, 1.7783e-02, 1.5399e-02,
    1.3335e-02, 1.0730e-02, 7.7785e-03, 5.6009e-03, 3.9991e-03, 2.8248e-03,
    1.9675e-03, 1.3449e-03, 8.9549e-04, 5.7363e-04, 3.4539e-04, 2.7384e-04,
    2.3714e-04, 2.0535e-04, 1.7783e-04, 1.5399e-04, 1.3335e-04, 1.1548e-04,
    1.0000e-04, 8.6596e-05, 7.4989e-05, 6.4938e-05, 5.6234e-05, 4.8697e-05,
    4.2170e-05, 3.6517e-05, 3.1623e-05, 2.7384e-05, 2.3714e-05, 2.0535e-05,
    1.7783e-05, 1.5399e-05, 1.3335e-05, 1.1548e-05,
]  # fmt: skip

EXPECTED_LLAMA3_NESTED = [
    1.0000e00, 9.3057e-01, 8.6596e-01, 8.0584e-01, 7.4989e-01, 6.9783e-01,
    6.4938e-01, 6.0430e-01, 5.6234e-01, 5.2330e-01, 4.8697e-01, 4.5316e-01,
    4.2170e-01, 3.9242e-01, 3.6517e-01, 3.3982e-01, 3.1623e-01, 2.9427e-01,
    2.7384e-01, 2.5483e-01, 2.3714e-01, 2.2067e-01, 2.0535e-01, 1.9110e-01,
    1.7783e-01, 1.6548e-01, 1.5399e-01, 1.4330e-01, 1.3335e-01, 1.2409e-01,
    1.1548e-01, 1.0746e-01, 1.0000e-01, 9.3057e-02, 8.6596e-02, 8.0584e-02,
    7.4989e-02, 6.9783e-02, 6.4938e-02, 6.0430e-02, 5.6234e-02, 5.2330e-02,
    4.8697e-02, 4.5316e-02, 4.2170e-02, 3.9242e-02, 3.6517e-02, 3.3982e-02,
    3.1623e-02, 2.9427e-02, 2.7384e-02, 2.5483e-02, 2.3714e-02, 2.2067e-02,
    2.0535e-02, 1.9110e-02, 1.7783e-02, 1.6548e-02, 1.5399e-02, 1.4330e-02,
    1.3335e-02, 1.2409e-02, 1.0730e-02, 9.1428e-03, 7.7785e-03, 6.6067e-03,
    5.6009e-03, 4.7383e-03, 3.9991e-03, 3.3661e-03, 2.8248e-03, 2.3623e-03,
    1.9675e-03, 1.6312e-03, 1.3449e-03, 1.1017e-03, 8.9549e-04, 7.2098e-04,
    5.7363e-04, 4.4956e-04, 3.4539e-04, 2.9427e-04, 2.7384e-04, 2.5483e-04,
    2.3714e-04, 2.2067e-04, 2.0535e-04, 1.9110e-04, 1.7783e-04, 1.6548e-04,
    1.5399e-04, 1.4330e-04, 1.3335e-04, 1.2409e-04, 1.1548e-04, 1.0746e-04,
    1.0000e-04, 9.3057e-05, 8.6596e-05, 8.0584e-05, 7.4989e-05, 6.9783e-05,
    6.4938e-05, 6.0430e-05, 5.6234e-05, 5.2330e-05, 4.8697e-05, 4.5316e-05,
    4.2170e-05, 3.9242e-05, 3.6517e-05, 3.3982e-05, 3.1623e-05, 2.9427e-05,
    2.7384e-05, 2.5483e-05, 2.3714e-05, 2.2067e-05, 2.0535e-05, 1.9110e-05,
    1.7783e-05, 1.6548e-05, 1.5399e-05, 1.4330e-05, 1.3335e-05, 1.2409e-05,
    1.1548e-05, 1.0746e-05,
]  # fmt: skip

EXPECTED_PROPORTIONAL = [
    1.0000e00, 8.6596e-01, 7.4989e-01, 6.4938e-01, 5.6234e-01, 4.8697e-01,
    4.2170e-01, 3.6517e-01, 3.1623e-01, 2.7384e-01, 2.3714e-01, 2.0535e-01,
    1.7783e-01, 1.5399e-01, 1.3335e-01, 1.1548e-01,
] + [0.0] * 48  # fmt: skip

CONFIGS = {"llama": (LLAMA, EXPECTED_DEFAULT), "gemma3": (GEMMA3, EXPECTED_DEFAULT_NESTED)}
FACTORS = (2.0, 10.0, 20.0)


# ------------------------------------------------------------------------ upstream test cases


@pytest.mark.parametrize("model", ["llama", "gemma3"])
def test_default_rope_numerically(model: str) -> None:
    config, expected = CONFIGS[model]
    inv_freq, attention_scale = rope_init("default", config, {"rope_theta": 10000.0})
    assert attention_scale == 1.0  # attention scale is always 1 for default RoPE
    assert_close(inv_freq, expected)


@pytest.mark.parametrize("model", ["llama", "gemma3"])
def test_linear_rope_numerically(model: str) -> None:
    config = CONFIGS[model][0]
    default = default_inv_freq(config)
    for factor in FACTORS:
        inv_freq, attention_scale = rope_init("linear", config, {"rope_theta": 10000.0, "factor": factor})
        assert attention_scale == 1.0
        assert_close(inv_freq, default / np.float32(factor))


@pytest.mark.parametrize(
    ("model", "seq_len", "expected"), [("llama", 16384, EXPECTED_DYNAMIC), ("gemma3", 200000, EXPECTED_DYNAMIC_NESTED)]
)
def test_dynamic_rope_numerically(model: str, seq_len: int, expected: list[float]) -> None:
    config = CONFIGS[model][0]
    default = default_inv_freq(config)
    # Check 1: no scaling unless seq_len exceeds the training length
    for factor in FACTORS:
        params = {"rope_theta": 10000.0, "factor": factor}
        inv_freq, attention_scale = rope_init("dynamic", config, params)
        assert attention_scale == 1.0
        assert_close(inv_freq, default)
        assert_close(rope_init("dynamic", config, params, seq_len=1)[0], default)
    # Check 2: beyond it, the frequencies scale (not linearly)
    factor = 10.0
    inv_freq, _ = rope_init("dynamic", config, {"rope_theta": 10000.0, "factor": factor}, seq_len=seq_len)
    with pytest.raises(AssertionError):
        assert_close(inv_freq, default / np.float32(factor))
    assert_close(inv_freq, expected)


@pytest.mark.parametrize(("model", "expected"), [("llama", EXPECTED_YARN), ("gemma3", EXPECTED_YARN_NESTED)])
def test_yarn_rope_numerically(model: str, expected: list[float]) -> None:
    config = CONFIGS[model][0]
    default = default_inv_freq(config)
    # Check 1: the attention factor defaults to 0.1 ln(factor) + 1, or is the one given
    for factor in FACTORS:
        _, attention_scale = rope_init("yarn", config, {"rope_theta": 10000.0, "factor": factor})
        assert attention_scale == 0.1 * math.log(factor) + 1.0
        params = {"rope_theta": 10000.0, "factor": factor, "attention_factor": 0.5}
        assert rope_init("yarn", config, params, seq_len=1)[1] == 0.5
    # Check 2: the frequencies lie between default/factor and default (margin 1e-8)
    factor, margin = 10.0, 1e-8
    params = {"rope_theta": 10000.0, "factor": factor, "beta_fast": 32, "beta_slow": 1}
    inv_freq, _ = rope_init("yarn", config, params)
    lower = (default / np.float32(factor)) - np.float32(margin)
    assert np.all((lower <= inv_freq) & (inv_freq <= default + np.float32(margin)))
    # very large beta_fast: every pair but the first interpolates (Gemma 3: a training length of 8)
    params = {"rope_theta": 10000.0, "factor": factor, "beta_fast": 1000, "beta_slow": 1}
    if model == "gemma3":
        params["original_max_position_embeddings"] = 8
    inv_freq, _ = rope_init("yarn", config, params)
    interpolating = inv_freq < default + np.float32(margin)
    assert not interpolating[0] and np.all(interpolating[1:])
    if model == "llama":
        assert_close(inv_freq[-20:], default[-20:] / np.float32(factor))
    # Check 3: snapshot
    params = {"rope_theta": 10000.0, "factor": factor, "beta_fast": 32, "beta_slow": 1}
    assert_close(rope_init("yarn", config, params)[0], expected)


@pytest.mark.parametrize("model", ["llama", "gemma3"])
def test_longrope_rope_numerically(model: str) -> None:
    config = CONFIGS[model][0]
    dim = config["head_dim"]
    short_factor = [2.0] * (dim // 2)
    long_factor = np.cumsum(np.ones(dim // 2, dtype=np.float32)).tolist()
    default = default_inv_freq(config)
    # Check 1: the attention factor defaults to sqrt(1 + ln(factor)/ln(original length))
    for factor in FACTORS:
        params = {"rope_theta": 10000.0, "factor": factor, "short_factor": short_factor, "long_factor": long_factor}
        _, attention_scale = rope_init("longrope", config, params)
        assert attention_scale == math.sqrt(1 + math.log(factor) / math.log(config["max_position_embeddings"]))
        params_att = {**params, "attention_factor": 0.5}
        assert rope_init("longrope", config, params_att, seq_len=1)[1] == 0.5
    # Check 2: seq_len = 0: the short factors; Check 3: beyond the training length: the long ones
    params = {"rope_theta": 10000.0, "factor": 1.0, "short_factor": short_factor, "long_factor": long_factor}
    inv_freq, _ = rope_init("longrope", config, params, seq_len=0)
    assert_close(inv_freq, default / np.asarray(short_factor, dtype=np.float32))
    inv_freq, _ = rope_init("longrope", config, params, seq_len=config["max_position_embeddings"] + 1)
    assert_close(inv_freq, default / np.asarray(long_factor, dtype=np.float32))


@pytest.mark.parametrize(("model", "expected"), [("llama", EXPECTED_LLAMA3), ("gemma3", EXPECTED_LLAMA3_NESTED)])
def test_llama3_rope_numerically(model: str, expected: list[float]) -> None:
    config = CONFIGS[model][0]
    default = default_inv_freq(config)

    def params(factor: float, high: float = 4) -> dict[str, Any]:
        return {
            "rope_theta": 10000.0,
            "factor": factor,
            "original_max_position_embeddings": 2048,
            "low_freq_factor": 1,
            "high_freq_factor": high,
        }

    # Check 1: the attention factor is always 1
    for factor in FACTORS:
        assert rope_init("llama3", config, params(factor))[1] == 1.0
    # Check 2: between default/factor and default, in float32 as torch compares (the case where a
    # float64 evaluation rounded once lands 1 ulp below default/factor)
    factor = 10.0
    inv_freq, _ = rope_init("llama3", config, params(factor))
    assert np.all((default / np.float32(factor) <= inv_freq) & (inv_freq <= default))
    # a very high high_freq_factor: every pair is scaled
    inv_freq, _ = rope_init("llama3", config, params(factor, high=1000))
    assert np.all(inv_freq < default)
    # Check 3: snapshot
    assert_close(rope_init("llama3", config, params(factor))[0], expected)


def test_proportional_rope_numerically() -> None:
    config = LLAMA
    head_dim = config["head_dim"]

    def prop(p: float, factor: float | None = None) -> tuple[np.ndarray, float]:
        params: dict[str, Any] = {"rope_theta": 10000.0, "partial_rotary_factor": p}
        if factor is not None:
            params["factor"] = factor
        return rope_init("proportional", config, params)

    # Check 1: attention factor 1; Check 2: always head_dim/2 values
    for p in (1.0, 0.5, 0.25):
        inv_freq, attention_scale = prop(p)
        assert attention_scale == 1.0 and inv_freq.shape[0] == head_dim // 2
    # Check 3: the rotated pairs are non-zero, the rest exactly zero
    for p, angles in ((0.5, 32), (0.25, 16)):
        inv_freq, _ = prop(p)
        assert np.all(inv_freq[:angles] != 0)
        assert_close(inv_freq[angles:], np.zeros(head_dim // 2 - angles))
    assert np.all(prop(1.0)[0] != 0)
    # Check 4: p = 1 with factor 1 is the default rule, with factor f the linear one
    assert_close(prop(1.0, 1.0)[0], default_inv_freq(config))
    for factor in (2.0, 10.0):
        linear, _ = rope_init("linear", config, {"rope_theta": 10000.0, "factor": factor})
        assert_close(prop(1.0, factor)[0], linear)
    assert_close(prop(0.5, 2.0)[0], prop(0.5, 1.0)[0] / np.float32(2.0))
    # Check 5: snapshot
    assert_close(prop(0.25)[0], EXPECTED_PROPORTIONAL)


# ------------------------------------------------------------- where ropelab and transformers differ


def test_yarn_mscale_readings() -> None:
    """transformers uses mscale/mscale_all_dim only when both are non-zero; DeepSeek's formula
    whenever both are given (ropelab's default)."""
    kw: dict[str, Any] = {"factor": 40.0, "mscale": 0.707, "mscale_all_dim": 0.0}
    tf = extrapolation.scaled_frequencies(128, "yarn", yarn_mscale="transformers", **kw).attention_factor
    ds = extrapolation.scaled_frequencies(128, "yarn", **kw).attention_factor
    assert tf == 0.1 * math.log(40.0) + 1.0
    assert ds == pytest.approx((0.1 * 0.707 * math.log(40.0) + 1.0) / (0.1 * 0.0 * math.log(40.0) + 1.0), rel=1e-15)
    assert round(tf, 4) == 1.3689 and round(ds, 4) == 1.2608
    both = {"factor": 40.0, "mscale": 1.0, "mscale_all_dim": 1.0}  # both non-zero: the readings agree
    a = extrapolation.scaled_frequencies(128, "yarn", yarn_mscale="transformers", **both).attention_factor
    assert a == extrapolation.scaled_frequencies(128, "yarn", **both).attention_factor == 1.0


def test_llama3_float64_and_transformers_orders() -> None:
    """ropelab's float64 default rounds θ/factor once; transformers divides its float32 θ in
    float32. Against transformers' float32 default/factor, five pairs of the float64 result (rounded
    to float32) come out one ulp below (the upstream ``<=`` check fails there); the float32
    reference passes it."""
    kw: dict[str, Any] = {"factor": 10.0, "original_max_position": 2048}
    f64 = extrapolation.scaled_frequencies(128, "llama3", **kw).inv_freq.astype(np.float32)
    f32 = extrapolation.scaled_frequencies(128, "llama3", reference="transformers", **kw).inv_freq.astype(np.float32)
    lower = default_inv_freq(LLAMA) / np.float32(10.0)
    assert np.flatnonzero(~(lower <= f64)).tolist() == [42, 48, 51, 58, 62]
    assert np.all(lower <= f32)
    np.testing.assert_allclose(f64, f32, rtol=4e-7)  # a few float32 ulps apart
