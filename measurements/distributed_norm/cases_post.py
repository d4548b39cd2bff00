"""Random ``layer_norm_post_all_gather`` instances for the mock device (tests/test_norm_distributed.py).

The post-all-gather step runs on one device (its statistics are already gathered), so ttnn 0.81.1 can run it
on the single-chip mock: seeded shapes (leading dims, height, width), statistics of 1 to 8 devices (2 tiles per
device: sum and sum of squares), with or without weight and bias (TILE, ``[1, W]``), DRAM or L1 interleaved.
``measurements/distributed_norm/probe_post.py`` replays them into ``results_post.jsonl``.
"""

from __future__ import annotations

import random

from measurements.dialect.cases_misc import MiscCase


def _cases() -> list[MiscCase]:
    rng = random.Random(20261126)
    out = []
    for i in range(16):
        lead = rng.choice([(1, 1), (1, 2), (2, 1)])
        h, w = rng.choice([32, 64, 128, 256, 1024]), rng.choice([128, 256, 512, 1024, 2048, 4096])
        devices = rng.choice([1, 2, 4, 8])
        buf = rng.choice(["dram", "l1"]) if w <= 1024 and h <= 256 else "dram"
        x = ((*lead, h, w), "bf16", "tile", buf)
        stats = ((*lead, h, 64 * devices), "bf16", "tile", buf)
        affine = rng.random() < 0.5
        ops = (x, stats) + ((((1, w), "bf16", "tile", "dram"),) * 2 if affine else ())
        seg = "1, 1, 1, 1" if affine else "1, 1, 0, 0"
        out.append(MiscCase(f"layer_norm_post_all_gather/{i}", "ttnn.layer_norm_post_all_gather", ops, (x,),
                            f"epsilon = 1.000000e-05 : f32, operandSegmentSizes = array<i32: {seg}>"))
    return out


CASES: list[MiscCase] = _cases()
