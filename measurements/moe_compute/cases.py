"""Random instances of ``moe_gpt`` measured on the mock Blackhole P150 (a 1x1 mesh).

Each case is one ``ttnn.experimental.moe_gpt`` call as tt-mlir's runtime makes it
(``runtime/lib/ttnn/operations/ccl/moe_gpt.cpp`` @19c86fca: the six tensors, ``output_height_shard_dim``,
``output_width_shard_dim``, ``hidden_size`` and ``cluster_axis``) on operands laid out as tt-mlir's workaround
pass leaves them (``MoeGptLayoutRewritePattern``, ``TTNNOps.td`` ``MoeGptOp``): the sparse input ``[T, K]`` bf16
row-major, the expert indices and scores ``[T, k]`` row-major in L1 HEIGHT_SHARDED on one core, the mapping
``[R, E * D]`` u16 row-major, the weights ``[C, L, E, G, K, 128]`` and ``[C, L, E, 2, N, 128]`` TILE, DRAM
HEIGHT_SHARDED over the ``C`` DRAM banks.  ``probe.py`` replays them under NO_DISPATCH graph capture into
``results.jsonl``.

A case: ``id``, ``op`` and ``p`` (its parameters: ``T``, ``K``, ``E``, ``D``, ``k``, ``G``, ``N``, ``L``, ``R``,
``hs``, ``ws``, ``idx_core``, ``input_buf``, ``mapping_buf``, ``w_dtype``, ``cluster_axis``, ``C`` the weights'
dim 0, ``w_width`` their dim 5, ``w2_E`` the W2 experts, ``idx_layout``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

BANKS = 8  # DRAM banks of the P150: get_optimal_dram_bank_to_logical_worker_assignment has 8 cores


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    p: dict = field(default_factory=dict)


def _gpt(rng: random.Random, n: int) -> list[Case]:
    out = []
    for i in range(n):
        k_hidden = 32 * rng.choice([30, 32, 45, 64, 90, 90, 96, 128, 224])
        e = rng.choice([1, 2, 4, 4, 8])
        d = rng.choice([1, 2, 4, 8])
        p = {
            "T": rng.choice([32, 64, 96, 128, 128, 256, 512, 1024]),
            "K": k_hidden,
            "E": e,
            "D": d,
            "k": rng.choice([1, 2, 4, 8]),
            "G": rng.choice([2, 3, 4]),
            "N": 32 * rng.choice([30, 64, 90]),
            "L": 1,
            "R": rng.choice([1, d]),
            "hs": rng.choice([2, 3, 4, 4]),
            "ws": rng.choice([2, 3, 3, 4]),
            "idx_core": rng.choice([(0, 0), (5, 5), (10, 9), (3, 7)]),
            "input_buf": rng.choice(["l1", "dram"]),
            "mapping_buf": rng.choice(["l1", "dram"]),
            "w_dtype": rng.choice(["bfp_bf4", "bfp_bf4", "bfp_bf8"]),
            "cluster_axis": rng.choice([0, 1]),
            "C": BANKS,
            "w_width": 128,
            "w2_E": e,
            "idx_layout": "height_sharded",
        }
        # a few instances outside ttnn's checks
        if i % 10 == 7:
            p["C"] = 12  # the Wormhole ring: dim 0 is not this device's DRAM-bank cores
        elif i % 10 == 8:
            p["idx_layout"] = "interleaved"
        elif i % 10 == 9:
            p["hs"], p["ws"] = rng.choice([(10, 6), (6, 11), (9, 9)])  # no combine rectangle avoids the ring
        elif i % 20 == 6:
            p["w2_E"] = e + 1
        out.append(Case(f"moe_gpt/{i}", "ttnn.moe_gpt", p))
    return out


def _gpt_large() -> list[Case]:
    """Instances near and beyond L1: wide hidden sizes (the tilize output holds 64 rows of it on every core, the
    activation CB 2 rows of tiles on the ring) and many tokens (the tilize cores' metadata CBs grow with them)."""
    base = {"E": 4, "D": 4, "k": 4, "G": 4, "N": 2880, "L": 1, "R": 1, "hs": 4, "ws": 3, "idx_core": (0, 0),
            "input_buf": "dram", "mapping_buf": "l1", "w_dtype": "bfp_bf4", "cluster_axis": 0, "C": BANKS,
            "w_width": 128, "idx_layout": "height_sharded"}
    shapes = [(128, 7168), (32, 5120), (128, 4096), (1024, 4096), (4096, 2880), (8192, 2880), (128, 6144)]
    return [Case(f"moe_gpt/big/{i}", "ttnn.moe_gpt", {**base, "T": t, "K": k, "w2_E": base["E"]})
            for i, (t, k) in enumerate(shapes)]


CASES = _gpt(random.Random(1201), 40) + _gpt_large()
