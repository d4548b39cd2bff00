"""Random instances of ``ttnn.prepare_moe_compute_w0_w1_weights`` and ``ttnn.prepare_moe_compute_w2_weights``.

Each case is the op as tt-mlir emits it after its workarounds (``TTNNWorkaroundsPass.cpp`` @19c86fca: every weight
and bias operand row-major) and the ttnn calls tt-mlir's runtime makes for it
(``runtime/lib/ttnn/operations/ccl/prepare_moe_compute_w{0_w1,2}_weights.cpp`` @19c86fca: the packer
``ttnn::experimental::prepare_*_tensor_{for_moe_compute,with_bias}``, then ``quantize_weights_via_host`` to
bfloat4_b in ``get_weight_mem_configs(...)``'s DRAM height-sharded config).  ``probe.py`` replays them under
NO_DISPATCH graph capture into ``results.jsonl``.

A case: ``id``, ``op``, ``layers`` (L), ``experts`` (E), ``hidden`` (K, the op's ``hidden_size``),
``intermediate`` (N, ``intermediate_size``), ``bias``, ``dtype`` and ``buffer`` of the weight operands.  The
weights are ``[L, E, K, N]`` (W0, W1) and ``[L, E, N, K]`` (W2); the biases ``[L, E, N]`` (b0, b1) and
``[L, E, K]`` (b2).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

W0_W1 = "ttnn.prepare_moe_compute_w0_w1_weights"
W2 = "ttnn.prepare_moe_compute_w2_weights"


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    layers: int
    experts: int
    hidden: int
    intermediate: int
    bias: bool = False
    dtype: str = "bf16"
    buffer: str = "dram"

    @property
    def operands(self) -> tuple:
        """The op's tensor operands as ``(shape, dtype, layout, buffer)``, in IR order."""
        lead = (self.layers, self.experts)
        k, n = self.hidden, self.intermediate
        w = ((lead + ((k, n) if self.op == W0_W1 else (n, k))), self.dtype, "row_major", self.buffer)
        b = (lead + ((n,) if self.op == W0_W1 else (k,)), self.dtype, "row_major", self.buffer)
        if self.op == W0_W1:
            return (w, w) + ((b, b) if self.bias else ())
        return (w,) + ((b,) if self.bias else ())


# (hidden, intermediate) pairs of real MoE experts (DeepSeek 7168/2048, GPT-OSS 2880/2880, the 2560/640 expert whose
# 8-bank layout uses 20-tile transactions) scaled into the mock's time budget, and tt-mlir's test shape 384/384
_FIXED = [(384, 384), (2560, 640), (2880, 2880), (7168, 2048)]


def _draw(rng: random.Random, op: str, i: int) -> Case:
    if i < len(_FIXED):
        k, n = _FIXED[i]
        lay, exp = 1, 1
    else:
        k = 32 * rng.choice([4, 7, 8, 12, 15, 16, 24, 30, 33, 40, 48, 64, 80, 90])
        n = 32 * rng.choice([2, 3, 5, 8, 9, 12, 16, 20, 24, 32, 40, 48, 64])
        lay, exp = rng.choice([1, 1, 2]), rng.choice([1, 2, 3, 4])
    bias = i >= len(_FIXED) and rng.random() < 0.35
    dtype = "f32" if i in (len(_FIXED) + 3, len(_FIXED) + 9) else "bf16"
    return Case(f"{op.split('.')[-1]}/{i}", op, lay, exp, k, n, bias, dtype)


def _cases() -> list[Case]:
    rng = random.Random(31)
    out = []
    for op in (W0_W1, W2):
        out += [_draw(rng, op, i) for i in range(18)]
    out.append(Case("prepare_moe_compute_w0_w1_weights/18", W0_W1, 1, 2, 256, 160, False, "bf16", "l1"))
    out.append(Case("prepare_moe_compute_w2_weights/18", W2, 1, 2, 256, 160, False, "bf16", "l1"))
    return out


def _held_out(rng: random.Random, op: str, i: int) -> Case:
    """Instances drawn after the model was written (seed 57): wider layer, expert and size ranges."""
    while True:
        k = 32 * rng.randint(3, 120)
        n = 32 * rng.choice([rng.randint(1, 12), 8 * rng.randint(1, 8), rng.randint(13, 90)])
        lay, exp = rng.choice([1, 1, 2, 3]), rng.choice([1, 2, 4, 6, 8])
        if lay * exp * k * n <= 8 << 20:
            break
    bias = rng.random() < 0.4
    dtype = "f32" if rng.random() < 0.15 else "bf16"
    buffer = "l1" if i == 27 and lay * exp * k * n * 2 <= 4 << 20 else "dram"
    return Case(f"{op.split('.')[-1]}/{i}", op, lay, exp, k, n, bias, dtype, buffer)


def _held_out_cases() -> list[Case]:
    rng = random.Random(57)
    return [_held_out(rng, op, i) for op in (W0_W1, W2) for i in range(19, 29)]


CASES = _cases() + _held_out_cases()
