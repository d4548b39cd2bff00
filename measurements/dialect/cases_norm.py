"""Random op instances measured on the mock device for ``global_avg_pool2d``, ``batch_norm_training`` and
``indexer_score_dsa`` (ttanalyze.ops.pool_global, norm_extra, attention).

Drawn from a seeded generator over shapes (dims that are and are not tile multiples, a spatial area
``H * W`` that is and is not a tile height), dtypes, layouts and DRAM / L1 interleaved placement.  Each
case is one TTNN op as IR (:class:`~measurements.dialect.cases_misc.MiscCase`) and the ttnn call tt-mlir's
runtime makes for it (``runtime/lib/ttnn/operations/{pool/pool2d.cpp, normalization/batch_norm.cpp,
transformer/indexer_score_dsa.cpp}`` @19c86fca).  ``measurements/dialect/probe_norm.py`` replays them on
the mock (NO_DISPATCH graph capture) into ``results_norm.jsonl``; tests/test_ops_dialect_norm.py compares
the models with it.

``indexer_score_dsa`` cases with ``kwargs["ttnn_weights"]`` pass the weights as ttnn 0.81.1 wants them,
``[1, 1, Sq, Hi]``, where tt-mlir's verifier asks for ``[1, Hi, Sq, 1]`` (the IR keeps tt-mlir's form):
they measure the factory beyond the one head (``Hi = 1``) on which the two forms agree.
"""

from __future__ import annotations

import random

from measurements.dialect.cases_misc import MiscCase


def _spatial(rng: random.Random) -> int:
    return rng.choice([1, 2, 3, 5, 7, 8, 14, 16, 28, 32, 56, 64, 112])


def _cases() -> list[MiscCase]:
    rng = random.Random(29)
    out: list[MiscCase] = []
    for i in range(48):  # global_avg_pool2d [N, H, W, C] -> [N, 1, 1, C]
        n = rng.choice([1, 1, 1, 2, 3, 4])
        h, w = _spatial(rng), _spatial(rng)
        while n * h * w > 50_000:
            h = max(1, h // 2)
        c = rng.choice([3, 16, 32, 40, 64, 96, 128, 256, 320, 512, 1000, 1280, 2048])
        dt = rng.choice(["bf16", "bf16", "f32", "bfp_bf8"])
        layout = "row_major" if dt != "bfp_bf8" and rng.random() < 0.2 else "tile"
        olayout = "row_major" if dt != "bfp_bf8" and rng.random() < 0.15 else "tile"
        buf = rng.choice(["dram", "dram", "l1"])
        out.append(MiscCase(f"global_avg_pool2d/{i}", "ttnn.global_avg_pool2d", (((n, h, w, c), dt, layout, buf),),
                            (((n, 1, 1, c), dt, olayout, buf),)))
    for i in range(20):  # batch_norm_training(x [N, C, H, W], running mean, running var, weight?, bias?)
        n, c = rng.choice([1, 2, 4]), rng.choice([1, 3, 16, 32, 64, 100, 256])
        h, w = rng.choice([1, 7, 14, 32, 33, 56, 64]), rng.choice([1, 7, 14, 32, 33, 56, 64])
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "dram", "l1"])
        stat = ((1, c, 1, 1), dt, "tile", buf)
        affine = rng.random() < 0.7
        seg = "1, 1, 1, 1, 1" if affine else "1, 1, 1, 0, 0"
        out.append(MiscCase(f"batch_norm_training/{i}", "ttnn.batch_norm_training",
                            (((n, c, h, w), dt, "tile", buf), stat, stat) + ((stat, stat) if affine else ()),
                            (((n, c, h, w), dt, "tile", buf),),
                            f"epsilon = 9.99999974E-6 : f32, momentum = 1.000000e-01 : f32, operandSegmentSizes = "
                            f"array<i32: {seg}>"))
    for i in range(24):  # indexer_score_dsa(q [1, Hi, Sq, D], k [1, 1, T, D], weights) -> [1, 1, Sq, T]
        hi = 1 if i < 8 else rng.choice([2, 8, 16, 32, 64])
        sq, t = rng.choice([32, 64, 100, 128, 256, 512]), rng.choice([32, 64, 128, 200, 256, 1024, 2048])
        d = rng.choice([64, 128])
        dt = rng.choice(["bf16", "bf16", "f32", "bfp_bf8"])
        buf = rng.choice(["dram", "dram", "l1"])
        ttnn_weights = i >= 16
        out.append(MiscCase(f"indexer_score_dsa/{i}", "ttnn.indexer_score_dsa",
                            (((1, hi, sq, d), dt, "tile", buf), ((1, 1, t, d), dt, "tile", buf),
                             ((1, hi, sq, 1), dt, "tile", buf)),
                            (((1, 1, sq, t), dt, "tile", buf),), "chunk_start_idx = 0 : ui32",
                            kwargs={"ttnn_weights": ttnn_weights}))
    rng = random.Random(31)  # indexer_score_dsa, second draw: tile-aligned, bf16 weights, every q/k dtype
    for i in range(24, 48):
        hi = 1 if i < 34 else rng.choice([4, 32, 64, 128])
        sq, t = rng.choice([32, 64, 96, 256, 320, 512, 1024]), rng.choice([32, 64, 96, 256, 352, 1024, 4096])
        d = rng.choice([64, 128])
        dt = rng.choice(["bf16", "bf16", "f32", "bfp_bf8"])
        buf = rng.choice(["dram", "dram", "l1"])
        out.append(MiscCase(f"indexer_score_dsa/{i}", "ttnn.indexer_score_dsa",
                            (((1, hi, sq, d), dt, "tile", buf), ((1, 1, t, d), dt, "tile", buf),
                             ((1, hi, sq, 1), "bf16", "tile", buf)),
                            (((1, 1, sq, t), "bf16", "tile", buf),), "chunk_start_idx = 0 : ui32",
                            kwargs={"ttnn_weights": hi > 1}))
    return out


CASES = _cases()
