"""Random instances of ``all_to_all_dispatch_metadata`` measured on a mock 1x2 Blackhole mesh (one P300 board).

Each case is the op as tt-mlir emits it after its workaround pass and the persistent-buffer prelude
(``TTNNWorkaroundsPass.cpp`` ``createAllToAllDispatchMetadataOpOperandsWorkarounds`` and ``TTNNOps.cpp``
``AllToAllDispatchMetadataOp::allocateBuffers/allocateSemaphores`` @19c86fca): the input ``[1, 1, M, H]`` bf16, the
indices ``[1, 1, M, K]`` u16 and the scores ``[1, 1, M, K]`` bf16 row-major in L1 interleaved, the mapping ``[D, E]``
u16 row-major; the three outputs bound to persistent buffers (dispatched ``[1, M * D[A], H]`` DRAM interleaved,
indices and scores ``[1, M * D[A], K]`` L1 height-sharded on core (0, 0)) and a global semaphore on cores
(0, 0)-(0, 7), which is what the runtime passes (``runtime/lib/ttnn/operations/ccl/all_to_all_dispatch_metadata.cpp``:
``num_links``, the drain core and the worker cores left to ttnn).  ``probe_metadata.py`` replays them under
NO_DISPATCH graph capture into ``results_metadata.jsonl``.

A case: ``id``, ``operands`` as ``(shape, dtype, layout, buffer)`` (input, indices, scores, mapping), ``outputs``
(the persistent buffers: ``(shape, dtype, buffer)``, the L1 ones height-sharded on (0, 0) with the whole tensor as
one shard), ``cluster_axis``, ``mesh`` (1x2, or 2x2 where the devices on the axis and in the mesh differ).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MESH = (1, 2)  # the probe's first mesh (num_devices 2): one P300 board
MESH_2X2 = (2, 2)  # its second: two P300 boards cabled as a ring (measurements/ccl/bh_ring4.yaml) opened 2x2
OP = "ttnn.all_to_all_dispatch_metadata"


@dataclass(frozen=True)
class MetaCase:
    id: str
    operands: tuple
    outputs: tuple
    cluster_axis: int = 1
    mesh: tuple = MESH


def _cases(rng: random.Random) -> list[MetaCase]:
    out = []
    for i in range(24):
        m = rng.choice([1, 3, 8, 16, 32, 32, 64, 100, 128, 256])
        h = rng.choice([100, 256, 1024, 2048, 2880, 4096, 7168])
        k = rng.choice([1, 2, 4, 8])
        e = rng.choice([4, 8, 16, 32, 64, 128, 256])
        axis = 1
        d = MESH[axis]
        in_buf = "l1" if m * h * 2 <= 512 << 10 else "dram"  # the workaround's L1 when it fits the probe's L1
        x = ((1, 1, m, h), "bf16", "row_major", in_buf)
        idx = ((1, 1, m, k), "u16", "row_major", "l1")
        sc = ((1, 1, m, k), "bf16", "row_major", "l1")
        mp = ((MESH[0] * MESH[1], e), "u16", "row_major", rng.choice(["dram", "l1"]))
        outs = (((1, m * d, h), "bf16", "dram"), ((1, m * d, k), "u16", "l1"), ((1, m * d, k), "bf16", "l1"))
        # outside ttnn's checks (tt-mlir's workaround pass would have fixed the first three)
        if i == 19:
            x = ((1, 1, m, h), "bf16", "tile", in_buf)
        if i == 20:
            sc = ((1, 1, m, k), "f32", "row_major", "l1")
        if i == 21:  # scores and indices of different shapes
            sc = ((1, 1, m, k + 1), "bf16", "row_major", "l1")
        if i == 22:  # a mapping that does not have one row per device
            mp = ((4, e), "u16", "row_major", "dram")
        if i == 23:  # a persistent dispatched buffer in L1, not the DRAM tt-metal computes
            outs = (((1, m * d, h), "bf16", "l1"), outs[1], outs[2])
        out.append(MetaCase(f"all_to_all_dispatch_metadata/{i}", (x, idx, sc, mp), outs, axis))
    return out


def _cases_2x2(rng: random.Random) -> list[MetaCase]:
    """On the 2x2 mesh, where the devices on the axis (2) and in the mesh (4) differ: the mapping has 4 rows."""
    out = []
    for i in range(8):
        m = rng.choice([1, 8, 32, 64, 100])
        h = rng.choice([256, 2880, 7168])
        k = rng.choice([2, 4, 8])
        e = rng.choice([8, 32, 128])
        axis = i % 2
        d = MESH_2X2[axis]
        in_buf = "l1" if m * h * 2 <= 512 << 10 else "dram"
        ops = (((1, 1, m, h), "bf16", "row_major", in_buf), ((1, 1, m, k), "u16", "row_major", "l1"),
               ((1, 1, m, k), "bf16", "row_major", "l1"), ((4, e), "u16", "row_major", "dram"))
        outs = (((1, m * d, h), "bf16", "dram"), ((1, m * d, k), "u16", "l1"), ((1, m * d, k), "bf16", "l1"))
        out.append(MetaCase(f"all_to_all_dispatch_metadata/{24 + i}", ops, outs, axis, MESH_2X2))
    return out


CASES = _cases(random.Random(1111)) + _cases_2x2(random.Random(1113))
