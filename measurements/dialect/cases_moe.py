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


def _dit_rms_norm(rng: random.Random) -> list[MiscCase]:
    """``dit_rms_norm_unary_fused(input, weight?, bias?, residual?)``: rms_norm over the last dim with an optional
    activation (``silu``/``gelu``); weights ``[W]`` TILE, or ROW_MAJOR ``[W / 32, 32]`` as ttnn's tests pass them."""
    out = []
    for i in range(18):
        rank = rng.choice([2, 3, 4])
        lead = tuple(rng.choice([1, 1, 2, 3]) for _ in range(rank - 2))
        h = rng.choice([32, 64, 96, 200, 7, 512, 1024])
        w = rng.choice([64, 128, 256, 320, 1024, 2048, 3072, 5120, 100])
        dt = rng.choice(["bf16", "bf16", "f32", "bfp_bf8"]) if i < 14 else "f32"
        buf = rng.choice(["dram", "l1"]) if h * w <= 64 * 1024 else "dram"
        x = ((*lead, h, w), dt, "tile", buf)
        wlay = rng.choice(["tile", "tile", "row_major"])
        wdesc = (((w,), "bf16", "tile", "dram") if wlay == "tile" or w % 32 else ((w // 32, 32), "bf16", "row_major", "dram"))
        has_w, has_b, has_r = rng.random() < 0.8, rng.random() < 0.3, i in (12, 13)
        ops = (x,) + ((wdesc,) if has_w else ()) + ((wdesc,) if has_b else ()) + ((x,) if has_r else ())
        act = rng.choice([None, "silu", "gelu"])
        attrs = (f"epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: 1, {int(has_w)}, {int(has_b)}, "
                 f"{int(has_r)}>") + (f', activation = "{act}"' if act else "")
        out.append(MiscCase(f"dit_rms_norm_unary_fused/{i}", "ttnn.dit_rms_norm_unary_fused", ops, (x,), attrs,
                            kwargs={"weight": has_w, "bias": has_b, "residual": has_r, "activation": act}))
    return out


def _cases() -> list[MiscCase]:
    rng = random.Random(1111)
    return _sampling(rng) + _dit_rms_norm(random.Random(1112))


CASES: list[MiscCase] = _cases()
