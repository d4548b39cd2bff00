"""Random op instances measured on the mock device for engineer moe's dialect models.

``sampling`` (ttanalyze.ops.sampling) and the ops added after it, drawn from a seeded generator over
shapes, dtypes and layouts inside and just outside what ttnn 0.81.1 accepts (its TT_FATALs are measured
too).  Each case is one TTNN op as IR (:class:`measurements.dialect.cases_misc.MiscCase`) and the ttnn
call tt-mlir's runtime makes for it (``runtime/lib/ttnn/operations/*`` @19c86fca, in
``measurements/dialect/probe_moe.py``), which replays them on the mock (NO_DISPATCH graph capture) into
``results_moe.jsonl``; tests/test_ops_dialect_moe.py compares the models with it.
"""

from __future__ import annotations

import random

from measurements.dialect.cases_misc import MiscCase


def _sampling(rng: random.Random) -> list[MiscCase]:
    """``sampling(values [1, 1, n, W], indices [1, 1, n, W], k [n], p [n], temp [n]) -> [1, 1, 1, n]`` ui32
    (the rank-4 form tt-mlir's SamplingOpRank2RewritePattern emits; index/parameter tensors row-major)."""
    out = []
    for i in range(16):
        n = rng.choice([1, 2, 4, 8, 13, 17, 24, 32, 32])
        w = 32 * rng.choice([1, 2, 3, 4, 8, 16, 32, 64])
        vdt, idt, kdt = "bf16", rng.choice(["si32", "u32"]), rng.choice(["u32", "u32", "si32"])
        if i >= 12:  # outside ttnn's checks: a block-float or f32 input, u16 indices, a width off the tile
            vdt, idt, w = [("bfp_bf8", idt, w), ("f32", idt, w), ("bf16", "u16", w), ("bf16", idt, w + 16)][i - 12]
        vals = ((1, 1, n, w), vdt, "tile", "dram")
        idx = ((1, 1, n, w), idt, "row_major", "dram")
        ops = (vals, idx, ((n,), kdt, "row_major", "dram"), ((n,), "bf16", "row_major", "dram"),
               ((n,), "bf16", "row_major", "dram"))
        out.append(MiscCase(f"sampling/{i}", "ttnn.sampling", ops, (((1, 1, 1, n), "u32", "row_major", "dram"),),
                            "seed = 7 : ui32"))
    return out


def _cases() -> list[MiscCase]:
    rng = random.Random(1111)
    return _sampling(rng)


CASES: list[MiscCase] = _cases()
