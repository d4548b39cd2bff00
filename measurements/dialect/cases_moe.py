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


def _mm_1d_config(grid: tuple[int, int], kt: int, mt: int, nt: int, bw: int, rng: random.Random) -> tuple[str, dict]:
    """A ``MatmulMultiCoreReuseMultiCast1DProgramConfig`` with in0 multicast: ``per_core_M = Mt`` (one block row),
    ``per_core_N`` so that the N blocks fill at most one grid row (the factory needs a rectangle of cores)."""
    per_n = -(-nt // min(nt, grid[0]))
    if rng.random() < 0.3:  # fewer, wider blocks
        per_n = min(nt, per_n * 2)
    sub_w = rng.choice([d for d in (1, 2, 4) if per_n % d == 0])
    kw = {"grid": grid, "in0_block_w": bw, "out_subblock_h": 1, "out_subblock_w": sub_w, "out_block_h": mt,
          "out_block_w": per_n, "per_core_M": mt, "per_core_N": per_n}
    text = (f"program_config = #ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config<compute_with_storage_grid_size "
            f"= #ttnn.core_coord<{grid[0]}, {grid[1]}>, in0_block_w = {bw}, out_subblock_h = 1, out_subblock_w = {sub_w}, "
            f"out_block_h = {mt}, out_block_w = {per_n}, per_core_m = {mt}, per_core_n = {per_n}, fuse_batch = false, "
            f"mcast_in0 = true, gather_in0 = false, hop_cores = #ttnn.core_range_set<>, num_global_cb_receivers = 0, "
            f"untilize_out = false>")
    return text, kw


def _sparse_matmul(rng: random.Random) -> list[MiscCase]:
    """``sparse_matmul(a, b, sparsity)`` in its three modes (tt-mlir ``SparseMatmulOp::verify``): B sparse
    ``[A, B, M, K] @ [1, E, K, N] -> [A, B, 1, E, M, N]``, A sparse ``[A, E, M, K] @ [1, E, K, N] -> [A, E, M, N]``,
    both ``[1, E, M, K] @ [1, E, K, N] -> [1, E, M, N]``; the sparsity mask ``[.., E]`` bf16 ROW_MAJOR, ``nnz`` given."""
    out = []
    for i in range(20):
        mode = rng.choice(["b", "b", "a", "ab"])
        e = rng.choice([2, 4, 8, 16])
        m, k, n = 32 * rng.choice([1, 1, 2, 4]), 32 * rng.choice([2, 4, 8, 12, 16]), 32 * rng.choice([1, 2, 4, 8, 16])
        dt, wdt = rng.choice(["bf16", "bf16", "bfp_bf8"]), rng.choice(["bf16", "bfp_bf8", "bfp_bf4"])
        if i >= 16:  # f32 activations (fp32 accumulation by default)
            dt = "f32"
        kt = k // 32
        bw = rng.choice([d for d in (1, 2, 4, 8) if kt % d == 0])
        grid = rng.choice([(11, 10), (8, 8), (4, 4)])
        cfg, kw = _mm_1d_config(grid, kt, m // 32, n // 32, bw, rng)
        b = ((1, e, k, n), wdt, "tile", "dram")
        if mode == "b":
            a0, a1 = rng.choice([1, 2]), rng.choice([1, 2, 4])
            a, sp, res = (a0, a1, m, k), (a0, a1, 1, e), (a0, a1, 1, e, m, n)
        elif mode == "a":
            a0 = rng.choice([1, 2])
            a, sp, res = (a0, e, m, k), (1, 1, a0, e), (a0, e, m, n)
        else:
            a, sp, res = (1, e, m, k), (1, 1, 1, e), (1, e, m, n)
        nnz = max(1, (sp[0] * sp[1] * sp[2] * e) // 2)
        ops = (((a), dt, "tile", "dram"), b, (sp, "bf16", "row_major", "dram"))
        attrs = (f"is_input_a_sparse = {str(mode != 'b').lower()}, is_input_b_sparse = {str(mode != 'a').lower()}, "
                 f"nnz = {nnz} : i64, {cfg}")
        kw.update(mode=mode, nnz=nnz)
        out.append(MiscCase(f"sparse_matmul/{i}", "ttnn.sparse_matmul", ops, ((res, dt, "tile", "dram"),), attrs,
                            kwargs=kw))
    return out


def _token_remap(rng: random.Random) -> list[MiscCase]:
    """``moe_expert_token_remap(topk [1, B, S, E], mapping [1, 1, E, D], metadata [1, B, S, K])`` on one device
    (D = 1): the mapping ``[1, B, S, E / D]`` and the reduced ``[1, B * S / reduction_size, E / D]`` (ROW_MAJOR)."""
    out = []
    for i in range(14):
        b, s = rng.choice([1, 1, 2, 4]), rng.choice([1, 8, 32, 64, 128])
        e, k = rng.choice([8, 16, 32, 64, 128]), rng.choice([2, 4, 8])
        red = rng.choice([d for d in (1, 2, 4, 8, 16, 32) if (b * s) % d == 0])
        tdt = rng.choice(["bf16", "bf16", "f32"])
        buf = rng.choice(["dram", "dram", "l1"])
        ops = (((1, b, s, e), tdt, "row_major", buf), ((1, 1, e, 1), "u16", "row_major", buf),
               ((1, b, s, k), "u16", "row_major", buf))
        res = (((1, b, s, e), tdt, "row_major", buf), ((1, 1, b * s // red, e), "u16", "row_major", buf))
        out.append(MiscCase(f"moe_expert_token_remap/{i}", "ttnn.moe_expert_token_remap", ops, res,
                            f"reduction_size = {red} : i64", kwargs={"reduction_size": red}))
    return out


def _router(rng: random.Random) -> list[MiscCase]:
    """``topk_router_gpt(input [32, hidden], weight [hidden, 128], bias [32, 128])`` (B = 32 and 128 experts are
    what tt-mlir's verifier accepts), k in 1..8, a bfp8 weight now and then (ttnn refuses it)."""
    out = []
    for i in range(10):
        hidden = 32 * rng.choice([20, 32, 45, 64, 90, 128, 224])
        k = rng.choice([1, 2, 4, 4, 8])
        wdt = "bfp_bf8" if i in (3, 8) else "bf16"
        ops = (((32, hidden), "bf16", "tile", "dram"), ((hidden, 128), wdt, "tile", "dram"),
               ((32, 128), "bf16", "tile", "dram"))
        res = (((32, k), "u16", "row_major", "l1"), ((32, k), "bf16", "row_major", "l1"))
        out.append(MiscCase(f"topk_router_gpt/{i}", "ttnn.topk_router_gpt", ops, res,
                            f"k = {k} : i32, num_experts = 128 : i32", kwargs={"k": k}))
    return out


def _slice_dynamic(rng: random.Random) -> list[MiscCase]:
    """``slice_dynamic(input, begins, ends)`` of a TILE input with unit steps (begins/ends u32 on the device, as
    tt-mlir's workaround types them): ttnn's device-only tensor-args path, which tt-mlir's runtime cannot satisfy."""
    out = []
    for i in range(4):
        rank = rng.choice([2, 3, 4])
        shape = tuple(rng.choice([2, 4, 32, 64, 96]) for _ in range(rank))
        dt = rng.choice(["bf16", "f32"])
        res = tuple(max(1, d // 2) for d in shape)
        ops = ((shape, dt, "tile", "dram"), ((rank,), "u32", "row_major", "dram"), ((rank,), "u32", "row_major", "dram"))
        step = ", ".join("1 : i32" for _ in range(rank))
        out.append(MiscCase(f"slice_dynamic/{i}", "ttnn.slice_dynamic", ops, ((res, dt, "tile", "dram"),),
                            f"step = [{step}]" if i % 2 == 0 else ""))
    return out


def _cases() -> list[MiscCase]:
    rng = random.Random(1111)
    return (_sampling(rng) + _dit_rms_norm(random.Random(1112)) + _sparse_matmul(random.Random(1113))
            + _token_remap(random.Random(1114)) + _router(random.Random(1115))
            + _slice_dynamic(random.Random(1116)))


CASES: list[MiscCase] = _cases()
