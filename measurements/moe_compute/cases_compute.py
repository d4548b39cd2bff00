"""Random instances of ``moe_compute`` measured on the mock Blackhole P150 (a 1x1 mesh).

Each case is one ``ttnn.experimental.moe_compute`` call as tt-mlir's runtime makes it
(``runtime/lib/ttnn/operations/ccl/moe_compute.cpp`` @19c86fca): ``cluster_axis`` 1 (extent 1 on the 1x1 mesh:
ttnn's local output mode), the mux cores of tt-mlir's default ``(1,1)-(3,3)`` (or none), a preallocated
``[k, T, H]`` bf16 row-major DRAM output and a global semaphore on the combine cores
(``allocate_moe_compute_semaphore``), ``compute_only`` false.  The operands: the dispatched tokens ``[1, T, H]``
bf16 row-major in DRAM, the indices and scores ``[1, T, k]`` row-major, L1 HEIGHT_SHARDED on the drain tilize
core, the mapping ``[1, E * D]`` u16 row-major in DRAM, the weights packed as ``moe_compute_utils`` packs them
(bfp4 TILE, DRAM HEIGHT_SHARDED over the banks).  ``probe_compute.py`` replays them into ``results_compute.jsonl``.

A case: ``id``, ``op`` and ``p``: ``H``, ``N``, ``E``, ``D``, ``k``, ``T``, ``hs`` (output_height_shard_dim),
``mux`` (``[x0, y0, x1, y1]`` or None), ``activation``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    p: dict = field(default_factory=dict)


def _compute(rng: random.Random, n: int) -> list[Case]:
    out = []
    for i in range(n):
        h, nn = rng.choice([(1024, 2048), (2048, 768), (2880, 2880), (4096, 1024), (7168, 2048), (1536, 1536),
                            (2048, 2048), (3072, 1024), (5120, 1536), (2560, 640)])
        out.append(Case(f"moe_compute/{i}", "ttnn.moe_compute", {
            "H": h, "N": nn, "E": rng.choice([1, 2, 4, 8]), "D": rng.choice([1, 2, 4]), "k": rng.choice([1, 2, 4, 8]),
            "T": rng.choice([32, 64, 128, 256]), "hs": rng.choice([1, 2, 4]),
            "mux": rng.choice([[1, 1, 3, 3], [1, 1, 3, 3], None]), "activation": rng.choice(["silu", "swiglu"])}))
    return out


def _mux() -> list[Case]:
    """Mux cores that push the placement off its first choice: on the DRAM-bank ring (a compact ring then), on the
    eastern combine strip, on the top-right 2x2 tilize block."""
    base = {"H": 2880, "N": 2880, "E": 4, "D": 2, "k": 4, "T": 64, "hs": 2, "activation": "silu"}
    muxes = [[0, 0, 1, 1], [6, 4, 6, 6], [8, 0, 10, 1], [9, 8, 10, 9], [0, 2, 2, 3]]
    return [Case(f"moe_compute/mux/{i}", "ttnn.moe_compute", {**base, "H": h, "mux": m})
            for i, (m, h) in enumerate(zip(muxes, [2880, 7168, 2048, 2880, 4096]))]


CASES = _compute(random.Random(1202), 16) + _mux()
