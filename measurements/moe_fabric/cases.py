"""Random instances of the MoE fabric ops measured on a mock 1x2 Blackhole mesh (one P300 board).

Each case is one op as tt-mlir emits it (per-device shapes, ``cluster_axis = 1`` on mesh 1x2) and the ttnn call
tt-mlir's runtime makes for it (``runtime/lib/ttnn/operations/ccl/*.cpp`` @19c86fca: num_links and topology left
to ttnn); ``probe.py`` replays them under NO_DISPATCH graph capture into ``results.jsonl``.

A case: ``id``, ``op``, ``operands`` and ``results`` as ``(shape, dtype, layout, buffer)``, ``kwargs`` (the
call's attributes).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

MESH = (1, 2)  # the probe's mesh; the ops run along cluster_axis 1 (2 devices)


@dataclass(frozen=True)
class Case:
    id: str
    op: str
    operands: tuple
    results: tuple
    kwargs: dict = field(default_factory=dict)


def _dispatch(rng: random.Random) -> list[Case]:
    """``all_to_all_dispatch(input [B, S, 1, H] or [B, 1, S, H] bf16, indices [.., K] u16, mapping [1, 1, E, 2] u16)``
    -> ``[1, 2B, S', H]`` and ``[1, 2B, S', K]`` (S' = the indices' dim -2), in the memory config asked for."""
    out = []
    for i in range(14):
        b = rng.choice([1, 2, 4, 8, 16, 32])
        s = rng.choice([1, 1, 2, 4, 8, 32, 128])
        h = rng.choice([256, 1024, 2880, 4096, 7168, 100, 2048])
        k = rng.choice([1, 2, 4, 8])
        e = 2 * rng.choice([2, 4, 8, 16, 64])
        seq_inner = rng.random() < 0.5
        lead = (b, 1, s) if seq_inner else (b, s, 1)
        buf = rng.choice(["dram", "dram", "l1"]) if b * s * h * 2 <= 4 << 20 else "dram"
        x = ((*lead, h), "bf16", "row_major", "dram")
        idx = ((*lead, k), "u16", "row_major", "dram")
        mp = ((1, 1, e, 2), "u16", "row_major", "dram")
        sq = lead[-1]
        res = (((1, 2 * b, sq, h), "bf16", "row_major", buf), ((1, 2 * b, sq, k), "u16", "row_major", buf))
        if i == 12:  # outside ttnn's checks: a TILE input
            x = ((*lead, h), "bf16", "tile", "dram")
        if i == 13:  # outside ttnn's checks: u32 indices
            idx = ((*lead, k), "u32", "row_major", "dram")
        out.append(Case(f"all_to_all_dispatch/{i}", "ttnn.all_to_all_dispatch", (x, idx, mp), res,
                        {"cluster_axis": 1, "memory": buf}))
    return out


def _combine(rng: random.Random) -> list[Case]:
    """``all_to_all_combine(input [E/2, B, S, H] bf16, mapping [1, 1, E, 2] u16, metadata [1, B, S, K] u16)`` ->
    ``[K, B/2, S, H]`` (output_shard_dim 1) or ``[K, B, S/2, H]`` (2)."""
    out = []
    for i in range(12):
        el = rng.choice([1, 2, 4, 8])
        b = 2 * rng.choice([1, 2, 4, 8, 16])
        s = rng.choice([1, 2, 4, 8])
        h = rng.choice([256, 1024, 2880, 4096, 7168, 2048])
        k = rng.choice([1, 2, 4, 8])
        shard = rng.choice([1, 1, 2]) if s % 2 == 0 else 1
        buf = rng.choice(["dram", "dram", "l1"]) if k * b * s * h <= 1 << 20 else "dram"
        x = ((el, b, s, h), "bf16", "row_major", "dram")
        mp = ((1, 1, 2 * el, 2), "u16", "row_major", "dram")
        md = ((1, b, s, k), "u16", "row_major", "dram")
        res_shape = (k, b // 2, s, h) if shard == 1 else (k, b, s // 2, h)
        if i == 11:  # outside ttnn's checks: input dim 0 not the experts per device
            x = ((el + 1, b, s, h), "bf16", "row_major", "dram")
        out.append(Case(f"all_to_all_combine/{i}", "ttnn.all_to_all_combine", (x, mp, md),
                        ((res_shape, "bf16", "row_major", buf),),
                        {"cluster_axis": 1, "output_shard_dim": shard, "memory": buf}))
    return out


CASES = _dispatch(random.Random(1101)) + _combine(random.Random(1102))
