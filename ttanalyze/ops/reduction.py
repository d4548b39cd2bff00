"""Reductions (sum, mean, max, min, prod, argmax) and normalizations (softmax, layer/rms/group norm).

Shapes: ``dim_arg`` lists the reduced dims (all dims when absent); ``keep_dim``
keeps them as size 1 (tt-mlir ``TTNN_ReductionOp``, ``TTNNOps.td`` @19c86fca).
Softmax and the norms keep the shape.

Programs (:mod:`ttanalyze.ops.cb`), as ttnn 0.81.1 (tt-metal d80d9482) runs
them when called the way the tt-mlir runtime does (``ttnn.sum(x, dim, keepdim,
memory_config=<result>, compute_kernel_config=<IR compute_config>)``, ...).
The host sources of these factories are not in the 0.81.1 wheel; the stored
tt-metal versions read are named on each function, and every formula below was
checked against NO_DISPATCH graph captures on the mock P150 (the op-level
campaign, ``measurements/opdiff/results.jsonl.gz``).  Where the stored
source and the mock disagree the model follows the mock.

A reduction is a chain of device programs (fill the tile padding, reduce W,
reduce H, transposes for other dims, a reshape for ``keep_dim = false``); CBs
are freed between programs, so the model returns the chain and the op needs
the L1 of its largest program.
"""

from __future__ import annotations

from math import lcm, prod

from ..ir.attrs import ComputeKernelConfig, CoreRangeSet, DataType
from ..ir.model import Op
from ..layout import ceil_div
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .eltwise import unary_program
from .data_movement import (_permute_steps, check_fill_pad, fill_pad_program, reshape_steps, slice_tile_program,
                            transpose_steps)
from .layout_conversion import typecast_program
from .registry import ShapeError, norm_dim, register, register_cb, register_check, tensor_shape
from .tensors import TILE, MemCfg, Tensor, operand, result, tensor_of
from .work_split import split_work_to_cores

_TD = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"
_TM = "tt-metal ttnn/cpp/ttnn/operations/"
_REDUCE_SRC = _TM + "reduction/generic/device/reduce_op_multi_core_{}_program_factory.cpp @2441aa26 (fitted to ttnn 0.81.1)"
_NC_SRC = _TM + "experimental/reduction/fast_reduce_nc/device/fast_reduce_nc_program_factory.cpp @b9dd0672 (fitted to ttnn 0.81.1)"
_SOFTMAX_SRC = _TM + "normalization/softmax/device/softmax_program_factory_attention_optimized.cpp @86aa0949 (fitted to ttnn 0.81.1)"
_LN_SRC = _TM + "normalization/layernorm/device/layernorm_op_multi_core.cpp @5aa66d6b (fitted to ttnn 0.81.1)"
F32 = DataType("f32")
BF16 = DataType("bf16")


def _reduce(op: Op, dims_attr: str):
    src = tensor_shape(op, 0)
    dims = op.attrs.get(dims_attr)
    if dims is None:
        reduced = set(range(len(src)))
    elif isinstance(dims, int) and not isinstance(dims, bool):
        reduced = {norm_dim(dims, len(src), op)}
    elif isinstance(dims, list):
        reduced = {norm_dim(d, len(src), op) for d in dims}
    else:
        raise ShapeError(f"{op.name}: '{dims_attr}' must be an integer or a list of integers")
    keep = bool(op.attrs.get("keep_dim", False))
    if keep:
        return [tuple(1 if i in reduced else d for i, d in enumerate(src))]
    return [tuple(d for i, d in enumerate(src) if i not in reduced)]


@register(("ttnn.sum", "ttnn.mean", "ttnn.max", "ttnn.min"), "reduction", ("dim_arg", "keep_dim", "compute_config"), f"{_TD} TTNN_ReductionOp")
def reduction(op: Op):
    return _reduce(op, "dim_arg")


@register("ttnn.prod", "reduction", ("dim_arg", "keep_dim", "memory_config"), f"{_TD} ProdOp")
def prod_op(op: Op):
    return _reduce(op, "dim_arg")


@register("ttnn.argmax", "reduction", ("dim", "keep_dim", "use_multicore", "memory_config"), f"{_TD} ArgMaxOp")
def argmax(op: Op):
    return _reduce(op, "dim")


@register("ttnn.softmax", "normalization", ("dimension", "numericStable", "compute_config"), f"{_TD} SoftmaxOp")
def softmax(op: Op):
    src = tensor_shape(op, 0)
    norm_dim(op.attrs.get("dimension", -1), len(src), op)
    return [src]


@register(("ttnn.layer_norm", "ttnn.rms_norm"), "normalization",
          ("epsilon", "compute_config", "memory_config", "program_config", "operandSegmentSizes"), f"{_TD} LayerNormOp/RMSNormOp")
def norm(op: Op):
    return [tensor_shape(op, 0)]


@register("ttnn.group_norm", "normalization", ("num_groups", "epsilon", "memory_config", "operandSegmentSizes"), f"{_TD} GroupNormOp")
def group_norm(op: Op):
    return [tensor_shape(op, 0)]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _cbs(cores, specs: list[tuple[str, int, int]], backed: tuple[str, ...] = ()) -> list[CB]:
    """CBs (name, page bytes, pages) on ``cores`` in creation order; names in ``backed`` are tensor-backed."""
    return [CB(i, name, page, pages, cores, globally_allocated=name in backed) for i, (name, page, pages) in enumerate(specs)]


def dims4(t: Tensor) -> tuple[int, int, int]:
    """``(NC, Ht, Wt)`` of the tensor unsqueezed to 4D: NC = product of the leading padded dims, in tiles."""
    padded = t.padded
    if len(padded) == 1:
        padded = (TILE, padded[0])
    return prod(padded[:-2]), ceil_div(padded[-2], TILE), ceil_div(padded[-1], TILE)


def _compute_config(op: Op) -> ComputeKernelConfig | None:
    cc = op.attrs.get("compute_config")
    return cc if isinstance(cc, ComputeKernelConfig) else None


# ---------------------------------------------------------------------------
# Reduce programs
# ---------------------------------------------------------------------------


def reduce_w_program(x: Tensor, out: Tensor, grid: tuple[int, int], negate: bool = False) -> ProgramModel:
    """ReduceMultiCoreWProgramFactory: reduce the last dim of ``x`` (4D view NC x Ht x Wt tiles).

    Interleaved path: rows ``NC * Ht`` split over the cores column by column
    (``split_work_to_cores``, row_wise false); DFBs ``input`` 8 tiles when the
    smaller per-core share of rows times Wt is at least 4, else 2 tiles;
    ``scaler`` one tile (f32 for an f32 input, bf16 otherwise); ``output`` 2
    tiles of the output's format.  Height-sharded input and output in L1:
    ``input`` 2 tiles, the input shard, ``scaler`` and the output shard (both
    shards backed by the tensors) on the shard grid.

    The stored source (2441aa26) gives the input 2 tiles and the scaler 2;
    measured on mock P150, ttnn 0.81.1: [1,8,128,128] bf16 (32 rows, Wt 4)
    16,384 + 2,048 + 4,096 B on 32 cores; [1,1,64,96] (Wt 3) 4,096 + 2,048 +
    4,096 B; [1,150,32,96] (150 rows: 1 or 2 per core) 2-tile input; height-sharded
    f32 [32,128] shards 8,192 + 16,384 (shard) + 4,096 + 4,096 (shard) B.

    ``negate`` (min of a block-float tensor, computed as ``-max(-x)`` inside the
    kernel): two more 1-tile DFBs of the output's format, ``acc`` and ``ineg``
    (reduce_op_multi_core_w_program_factory.cpp @05ddaab1 ``use_fpu_negate``;
    measured: g1/ttnn.min/8 and g1/ttnn.min/4, bfp8 2,176 + 2,048 + 2,176 + 1,088 + 1,088 B).
    """
    nc, ht, wt = dims4(x)
    rows = nc * ht
    scaler = (F32 if x.dtype == F32 else BF16).tile_bytes()
    if x.l1 and out.l1 and x.memory_layout == out.memory_layout == "height_sharded" and x.shard and out.shard:
        cores = x.shard.grid
        cbs = _cbs(cores, [("input", x.tile_bytes, 2), ("input_shard", x.tile_bytes, x.shard.tiles),
                           ("scaler", scaler, 1), ("output_shard", out.tile_bytes, out.shard.tiles)],
                   backed=("input_shard", "output_shard"))
        return ProgramModel("ReduceDeviceOperation::ReduceMultiCoreWProgramFactory", _REDUCE_SRC.format("w"), cores, cbs,
                            ["height-sharded input and output: shard-resident W reduce"])
    split = split_work_to_cores(grid, rows)
    cores = split.all_cores
    share = max(1, split.units_per_core_min) * wt
    # the fused negate reads unbatched when a core has a single row (measured: g1/ttnn.min/20, bfp8 Wt 34 on one
    # core, 2-tile input; reduce_op_multi_core_w_program_factory.cpp @05ddaab1 batch_reads)
    batched = share >= 4 and not (negate and split.units_per_core_min < 2)
    specs = [("input", x.tile_bytes, 8 if batched else 2), ("scaler", scaler, 1), ("output", out.tile_bytes, 2)]
    if negate:
        specs += [("acc", out.tile_bytes, 1), ("ineg", out.tile_bytes, 1)]
    cbs = _cbs(cores, specs)
    return ProgramModel("ReduceDeviceOperation::ReduceMultiCoreWProgramFactory", _REDUCE_SRC.format("w"), cores, cbs,
                        [f"{rows:,} tile rows of Wt {wt} on {cores.num_cores} cores; at least {share} input tiles per core"])


def h_two_pass(x: Tensor, grid: tuple[int, int], fp32_acc: bool | None = None) -> bool:
    """Whether ttnn 0.81.1 splits an H reduce in two passes (measured rule, no source found).

    Two passes when Ht >= 20 and at least two H chunks per column fit the grid
    (``cores // (NC * Wt) >= 2``); an integer input (the SFPU reduce) never
    (g1/ttnn.sum/10).  Measured on mock P150: Ht 19 one pass, Ht 20 two; 56 and 64
    columns with Ht 32 one pass, 16 columns with Ht 64 two; an H-only bf16 sum
    with fp32 accumulation off two (g1/ttnn.sum/52).  The H step after a W
    reduce runs one pass in more cases (:func:`reduce_steps`: a non-f32 (H, W)
    reduction without leading dims, max, f32 with fp32 accumulation off).
    """
    nc, ht, wt = dims4(x)
    return x.dtype.name not in ("si32", "u32", "u16", "u8") and ht >= 20 and (grid[0] * grid[1]) // (nc * wt) >= 2


def reduce_h_programs(x: Tensor, out: Tensor, grid: tuple[int, int], fp32_acc: bool | None = None,
                      negate: bool = False, two_pass: bool = True, free_l1: int | None = None,
                      select: bool = False) -> list[ProgramModel]:
    """ReduceMultiCoreHProgramFactory: reduce the second-last dim, in one or two programs.

    One pass: columns ``NC * Wt`` split column by column; DFBs ``input`` ``2 *
    chunk`` tiles when the smaller per-core share of columns is at least
    ``chunk`` (the dest register's tiles: 4, or 8 with ``fp32_dest_acc_en =
    false``), else 2 (measured by measurements/normred/probe.py: f32 shares 2, 3
    -> 2 tiles, 4, 8 -> 8; bf16 with fp32 off shares 2, 4 -> 2, 8, 16 -> 16);
    ``scaler`` one tile; ``output`` 2 tiles.  Width-sharded input and output in
    L1: ``input`` 2 tiles, the input shard, ``scaler``, the output shard on the
    shard grid.  Two passes (:func:`h_two_pass`): ``chunks = min(Ht, cores //
    columns)`` partial reductions per column on ``columns * chunks`` cores
    (input 8 tiles, 2 for f32; scaler; 2 f32 partial tiles), then a final pass on
    ``columns`` cores (2 f32 tiles, f32 scaler, 1 output tile, ``max(2,
    ceil(chunks / 32))`` f32 tiles, 1 f32 tile, 2 output tiles).

    Measured on mock P150, ttnn 0.81.1: [1,1,768,64] bf16 (Ht 24, 2 columns):
    48 cores with 16,384 + 2,048 + 8,192 B, then 2 cores with 8,192 + 4,096 +
    2,048 + 8,192 + 4,096 + 4,096 B; Ht 128 (110 chunks) 16,384 B for the fourth.
    """
    nc, ht, wt = dims4(x)
    cols = nc * wt
    ncores = grid[0] * grid[1]
    scaler = (F32 if x.dtype == F32 else BF16).tile_bytes()
    name = "ReduceDeviceOperation::ReduceMultiCoreHProgramFactory"
    if x.l1 and out.l1 and x.memory_layout == out.memory_layout == "width_sharded" and x.shard and out.shard:
        cores = x.shard.grid
        cbs = _cbs(cores, [("input", x.tile_bytes, 2), ("input_shard", x.tile_bytes, x.shard.tiles),
                           ("scaler", scaler, 1), ("output_shard", out.tile_bytes, out.shard.tiles)],
                   backed=("input_shard", "output_shard"))
        return [ProgramModel(name, _REDUCE_SRC.format("h"), cores, cbs, ["width-sharded input and output: shard-resident H reduce"])]
    if negate:
        # fused negate (min as -max(-x)): one pass; input and output hold a dest register's worth of tiles (4, or 8
        # with fp32 accumulation off: get_dest_reg_count); ``acc`` and ``ineg`` Ht * lcm(columns per core of the
        # two core groups) tiles of the output's format, so the kernel's pushes wrap the FIFO exactly
        # (reduce_op_multi_core_h_program_factory.cpp @d9bd5632-era ``negate_cb_tiles``; measured g1/ttnn.min/4:
        # bfp8 Ht 55, one column: 4,352 + 2,048 + 4,352 + 2 x 59,840 B; g1/ttnn.min/1: f32 Ht 9, 240 columns on
        # 110 cores (3 and 2 each): 32,768 + 4,096 + 32,768 + 2 x 221,184 B)
        chunk = 8 if fp32_acc is False else 4
        split = split_work_to_cores(grid, cols)
        g1 = split.units_per_core_group_1
        g2 = split.units_per_core_min if split.num_cores and cols % split.num_cores else 0
        per_nc = lcm(g1, g2) if g1 and g2 else (g1 or g2)
        cores = split.all_cores
        if free_l1 is not None and 2 * ht * per_nc * out.tile_bytes > free_l1:
            # h_reduce_negate_fits_in_l1 fails: -reduce(-x) with a unary neg before and after a plain H reduce
            # (measured: g1/ttnn.min/15, bfp8 Ht 32 x 3976/32 columns: neg, H reduce, neg)
            return ([unary_program(x, x, grid)] + reduce_h_programs(x, out, grid, fp32_acc, False, two_pass)
                    + [unary_program(out, out, grid)])
        cbs = _cbs(cores, [("input", x.tile_bytes, chunk), ("scaler", scaler, 1), ("output", out.tile_bytes, chunk),
                           ("acc", out.tile_bytes, ht * per_nc), ("ineg", out.tile_bytes, ht * per_nc)])
        return [ProgramModel(name, _REDUCE_SRC.format("h"), cores, cbs,
                             [f"negated (min) H reduce: {cols:,} tile columns of Ht {ht} on {cores.num_cores} cores"])]
    if not (two_pass and h_two_pass(x, grid, fp32_acc)):
        split = split_work_to_cores(grid, cols)
        cores = split.all_cores
        share = max(1, split.units_per_core_min)
        # the reader streams rows of ``chunk`` columns (the dest register: 4 tiles, 8 with fp32 accumulation
        # off) and double-buffers them when every core has that many columns (measured: probes normred/hshare*)
        chunk = 8 if fp32_acc is False else 4
        cbs = _cbs(cores, [("input", x.tile_bytes, 2 * chunk if share >= chunk else 2), ("scaler", scaler, 1),
                           ("output", out.tile_bytes, 2)])
        return [ProgramModel(name, _REDUCE_SRC.format("h"), cores, cbs,
                             [f"{cols:,} tile columns of Ht {ht} on {cores.num_cores} cores"])]
    chunks = min(ht, ncores // cols)
    c1 = split_work_to_cores(grid, cols * chunks).all_cores
    # max/min partials stay in the input's format, sum/mean ones are f32 (measured: g1/ttnn.min/43 bf16 2,048-B
    # partials, scaler and accumulator; g1/ttnn.sum/52 and g1/ttnn.mean/2 f32)
    part = x.dtype if select else F32
    p1 = ProgramModel(name, _REDUCE_SRC.format("h"), c1,
                      _cbs(c1, [("input", x.tile_bytes, 2 if x.dtype == F32 else 2 * (8 if fp32_acc is False else 4)),
                                ("scaler", scaler, 1), ("partials", part.tile_bytes(), 2)]),
                      [f"two-pass H reduce, pass 1: {cols} columns x {chunks} H chunks on {c1.num_cores} cores"])
    c2 = split_work_to_cores(grid, cols).all_cores
    p2 = ProgramModel(name, _REDUCE_SRC.format("h"), c2,
                      _cbs(c2, [("input", part.tile_bytes(), 2), ("scaler", (F32 if part == F32 else BF16).tile_bytes(), 1),
                                ("output_one", out.tile_bytes, 1),
                                ("partials", part.tile_bytes(), max(2, ceil_div(chunks, TILE))), ("accumulator", part.tile_bytes(), 1),
                                ("output", out.tile_bytes, 2)]),
                      [f"two-pass H reduce, pass 2: combines {chunks} partials per column on {c2.num_cores} cores"])
    return [p1, p2]


def reduce_hw_single_core_program(x: Tensor, out: Tensor, negate: bool = False) -> ProgramModel:
    """ReduceSingleCoreHwProgramFactory (a single-tile tensor, see :func:`reduce_steps`): 2 input, 1 scaler, 2
    output tiles on core (0,0); the scaler is f32 for an f32 input (as for the H reduce); the fused negate of
    min (reduce_hw_neg.cpp) adds ``acc`` and ``ineg``, one output tile each.

    Measured on mock P150, ttnn 0.81.1: [1,1,32,32] bf16 sum over (-2,-1)
    4,096 + 2,048 + 4,096 B; bfp8 2,176 + 2,048 + 2,176 B; g1/ttnn.min/81, [1, 2] f32 with fp32 accumulation
    off (negated): 8,192 + 4,096 + 8,192 + 4,096 + 4,096 B.
    """
    cores = cores_set(core_range(0, 0, 0, 0))
    specs = [("input", x.tile_bytes, 2), ("scaler", (F32 if x.dtype == F32 else BF16).tile_bytes(), 1),
             ("output", out.tile_bytes, 2)]
    if negate:
        specs += [("acc", out.tile_bytes, 1), ("ineg", out.tile_bytes, 1)]
    cbs = _cbs(cores, specs)
    return ProgramModel("ReduceDeviceOperation::ReduceSingleCoreHwProgramFactory",
                        _TM + "reduction/generic/device/reduce_op_single_core_hw_program_factory.cpp @55a31c40 (fitted to ttnn 0.81.1)",
                        cores, cbs, ["single-tile tensor: one-core HW reduce"])


def granularity(n: int) -> int:
    """FastReduceNC's input granularity: the largest factor of ``n`` that is at most 8."""
    return next(g for g in range(min(8, max(n, 1)), 0, -1) if n % g == 0)


def fast_reduce_nc_program(x: Tensor, dim: int, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """FastReduceNCProgramFactory: sum over one non-tile dim of a 4D tile tensor.

    DFBs ``input`` ``2 * granularity`` tiles of the input's format, ``zero`` one
    bf16 tile, ``output`` 2 tiles; the output tiles are split row by row.  (The
    stored source sizes the input by the output's format and adds a 1-tile
    accumulator; measured on mock P150, ttnn 0.81.1: [2,4,64,96] bf16 over dim 1
    (granularity 4) 16,384 + 2,048 + 4,096 B on 12 cores; dim size 6 -> 24,576 B,
    7 -> 28,672 B, 16 -> 32,768 B.)
    """
    x4 = x.padded if len(x.padded) >= 4 else (1,) * (4 - len(x.padded)) + x.padded
    g = granularity(x4[dim])
    out_tiles = prod(out.padded) // (TILE * TILE)
    cores = split_work_to_cores(grid, out_tiles, row_wise=True).all_cores
    cbs = _cbs(cores, [("input", x.tile_bytes, 2 * g), ("zero", BF16.tile_bytes(), 1), ("output", out.tile_bytes, 2)])
    return ProgramModel("FastReduceNCDeviceOperation::FastReduceNCProgramFactory", _NC_SRC, cores, cbs,
                        [f"sum over dim {dim} (size {x4[dim]}, granularity {g}); {out_tiles:,} output tiles on {cores.num_cores} cores"])


def _set(shape: tuple[int, ...], d: int, v: int) -> tuple[int, ...]:
    return tuple(v if i == d else s for i, s in enumerate(shape))


def reduce_steps(kind: str, x: Tensor, dims: list[int], keep: bool, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.<kind>(x, dims, keepdim=keep, memory_config=out)`` in ttnn 0.81.1.

    The chain, as measured on mock P150 (graph capture of each call, see the notes):

    1. FillPad (``fill_implicit_tile_padding``) of ``x`` when its last two
       dims are not tile multiples (whichever dims are reduced);
    2. ``sum`` of a non-f32 tensor over leading dims: one FastReduceNC per
       leading dim (innermost first), then W, then H; every other reduction:
       W, then H, then for each leading dim (innermost first) a transpose of it
       into H (``ttnn.transpose``: TransposeHC / permute), an H reduce and the
       transpose back; a single-tile non-f32 tensor reduced over (H, W) is one
       ReduceSingleCoreHw program;
    3. a reshape (ttnn.reshape) to drop the reduced dims when ``keep`` is false.

    Intermediate results are f32 for sum, and for mean when leading dims are
    reduced but not every dim (mean over (H, W) only, or over all dims, keeps
    the input's format, as max and min do); block-float inputs keep their
    format; the last reduce writes the result's dtype.  (Measured: mean bf16
    [1,4,64,64] over (1,2,3) f32 intermediates, over (2,3) and [2,7,96] over
    (0,1,2) bf16.)  An integer sum moves leading dims with transposes like max
    (no FastReduceNC) and keeps its dtype; min of a block-float tensor runs the
    negated reduces (``negate`` of :func:`reduce_w_program` /
    :func:`reduce_h_programs`); a sharded input with an interleaved result is
    filled by the sharded FillPad, then reduced through interleaved intermediates.

    Raises:
        CBModelError: row-major inputs, multi-program reductions with a sharded
            result.
    """
    grid = ctx.grid
    cc = _compute_config(ctx.op)
    fp32_acc = cc.fp32_dest_acc_en if cc else None
    r = x.rank
    dims = sorted(set(dims)) if dims else list(range(r))
    if not x.tiled:
        raise CBModelError(f"{kind} of a row-major tensor is not modeled")
    check_fill_pad(x)
    # min runs the fused-negate kernels (-max(-x)) for a block-float input and for f32 with fp32 accumulation off
    # (generic_reductions.cpp reduce_min; measured: g1/ttnn.min/4, 8 bfp8, g1/ttnn.min/1 f32 with
    # fp32_dest_acc_en = false; bf16 and f32 with it on or absent reduce MIN directly: g1/ttnn.min/0, 2, 3, 7)
    negate = kind == "min" and (x.dtype.is_block_float or (x.dtype == F32 and fp32_acc is False))
    w_dim, h_dim = r - 1, (r - 2 if r >= 2 else None)
    red_w, red_h = w_dim in dims, h_dim is not None and h_dim in dims
    others = sorted((d for d in dims if d not in (w_dim, h_dim)), reverse=True)
    steps: list[ProgramModel] = fill_pad_program(x, grid, ctx.arch)
    integer = x.dtype.name in ("si32", "u32", "u16", "u8")
    # an integer sum moves the leading dims into H with transposes, as max/min do (measured: g1/ttnn.sum/0, si32
    # over (1, 2, 3): W, H, TransposeHC, H, TransposeHC; no FastReduceNC)
    nc_sum = kind == "sum" and x.dtype != F32 and not integer and bool(others)
    # a non-f32 float sum over every dim keeps the FastReduceNC results in the input's format and, when the
    # last two dims are not tile multiples, slices them (a tile-layout slice of the same shape) before the W
    # and H reduces (measured: g1/ttnn.sum/7, bf16 [1,4,4,949,3212]: FillPad, three FastReduceNC with 2 bf16
    # output tiles, SliceTile 4,096 + 20 B, W on 30 cores and H on one; g1/ttnn.sum/108, one leading dim,
    # sliced too; g1/ttnn.sum/26 and probe normred/sum_all_rank4_bf16, tile-aligned, not sliced)
    full_nc = nc_sum and len(dims) == r
    plan: list[tuple[str, int]] = [("nc", d) for d in others] if nc_sum else []
    if full_nc and (x.shape[-1] % TILE or x.shape[-2] % TILE):
        plan.append(("slice", -1))
    # a single-tile (H, W) reduce runs on one core unless the input is f32 with fp32 accumulation on (the
    # default for f32): measured g1/ttnn.max/169, g1/ttnn.mean/75, g1/ttnn.min/46, 87 (f32) W then H;
    # g1/ttnn.min/81 (f32, fp32_dest_acc_en = false) and every bf16/bfp8 one on one core (g1/ttnn.sum/269,
    # 43 with fp32 accumulation on)
    if red_w and red_h and not others and dims4(x) == (1, 1, 1) and (x.dtype != F32 or fp32_acc is False):
        plan.append(("hw", -1))
    else:
        plan += ([("w", w_dim)] if red_w else []) + ([("h", h_dim)] if red_h else [])
    if not nc_sum:
        plan += [("t", d) for d in others]
    # a sharded input with an interleaved result: the programs after the fill read and write interleaved
    # intermediates (measured: g1/ttnn.sum/4 block-sharded, g1/ttnn.min/6 height-sharded: FillPadL1Sharded, then
    # the interleaved W and H reduces)
    if len(plan) > 1 and out.sharded:
        raise CBModelError(f"{kind} over {dims} with sharded tensors runs several sharded programs: not modeled")
    cur = x
    inter = out.with_(shape=x.shape, mem=MemCfg(out.buffer_type, "interleaved"))
    widen = kind == "sum" or (kind == "mean" and bool(others) and len(dims) < r)
    inter_dtype = F32 if widen and not x.dtype.is_block_float and not integer and not full_nc else x.dtype
    if kind == "sum" and not nc_sum and x.dtype == BF16 and fp32_acc is False:
        # a bf16 (H, W) sum keeps W's output in bf16 without fp32 accumulation (keep_w_fp32 needs it; measured
        # g1/ttnn.sum/64: [4,64,928] over (1, 2), 2 bf16 output tiles)
        inter_dtype = x.dtype
    # a sum over every dim: FastReduceNC keeps the input's format and the W reduce writes f32 for a bf16 input
    # unless the compute config turns fp32 accumulation off (generic_reductions.cpp keep_w_fp32; measured
    # g1/ttnn.sum/26: bf16 [4,448,1216], NC output 2 bf16 tiles, W output 2 f32 tiles; g1/ttnn.sum/131 and
    # 142, rank 5, and probe normred/sum_all_rank4_bf16 the same; g1/ttnn.sum/7, 69, 92 with fp32_dest_acc_en
    # = false bf16 throughout)
    for i, (step, d) in enumerate(plan):
        last = i == len(plan) - 1
        dtype = out.dtype if last else inter_dtype
        if full_nc and not last:
            dtype = x.dtype if step == "nc" else (F32 if x.dtype == BF16 and fp32_acc is not False else x.dtype)
        if step == "t":
            moved = list(cur.shape)
            moved[d], moved[h_dim] = moved[h_dim], moved[d]
            t1 = inter.with_(shape=tuple(moved), dtype=cur.dtype)
            steps += transpose_steps(cur, d, h_dim, t1, grid, ctx.arch)
            red = t1.with_(shape=_set(t1.shape, h_dim, 1), dtype=dtype)
            steps += reduce_h_programs(t1, red, grid, fp32_acc, negate, free_l1=ctx.max_l1_space,
                                       select=kind in ("max", "min"))
            back = list(red.shape)
            back[d], back[h_dim] = back[h_dim], back[d]
            cur = inter.with_(shape=tuple(back), dtype=dtype)
            steps += transpose_steps(red, d, h_dim, cur, grid, ctx.arch)
            continue
        if step == "slice":
            steps.append(slice_tile_program(cur, tuple(cur.shape), grid))
            continue
        if step == "hw":
            nxt = (out if last else inter).with_(shape=_set(_set(cur.shape, w_dim, 1), h_dim, 1), dtype=dtype)
            steps.append(reduce_hw_single_core_program(cur, nxt, negate))
        else:
            nxt = (out if last else inter).with_(shape=_set(cur.shape, d, 1), dtype=dtype)
            if step == "nc":
                steps.append(fast_reduce_nc_program(cur, d + max(0, 4 - r), nxt, grid))
            elif step == "w":
                steps.append(reduce_w_program(cur, nxt, grid, negate))
            else:
                # whether the H step after the W reduce splits in two passes: a reduction over exactly (H, W) (or
                # what is left after FastReduceNC) is one ReduceOpDim::HW op (generic_reductions.cpp reduce_impl:
                # ``single_reduce_op`` when dim == [rank - 2, rank - 1]), whose H step runs one pass whatever the
                # dtype and compute config (measured: f32 with fp32 accumulation on g1/ttnn.sum/57, 117, 177,
                # g1/ttnn.min/89, 140, 148, g1/ttnn.max/76: W, then H on one core; g1/ttnn.max/18, g1/ttnn.mean/14,
                # 31, g1/ttnn.sum/49, 71, 96, 118); with leading dims reduced too, reduce_nd_loop runs W and H as
                # separate single-axis reduces and the H one splits as a plain H reduce (h_two_pass; measured two
                # passes g1/ttnn.min/2, 38, g1/ttnn.mean/2, 22, 99, 112, g1/ttnn.max/148), except for max of a
                # block-float tensor and f32 with fp32 accumulation off (g1/ttnn.max/52, 74, 138,
                # g1/ttnn.mean/146).  Not settled: probe normred/hw_mean_f32_off_lead (f32, fp32 accumulation
                # off, leading dims) splits where g1/ttnn.mean/146, 149, 154 do not
                lead = bool(others)
                hw_path = red_w and ((not lead or nc_sum) or (fp32_acc is False and x.dtype == F32))
                # max of a block-float tensor (typecast to bf16 around the reduce) runs its H step in one pass,
                # after W or alone (measured: g1/ttnn.max/52, 74, 138 after W; g1/ttnn.max/192, H alone, Ht 126
                # in one column: one core; bf16 and f32 max split, g1/ttnn.max/110, 215); so does min's, -max(-x),
                # when its fused negate does not fit (g1/ttnn.min/137: neg, one-pass H on one core, neg)
                hw_path = hw_path or (kind in ("max", "min") and x.dtype.is_block_float)
                steps += reduce_h_programs(cur, nxt, grid, fp32_acc, negate, two_pass=not hw_path,
                                           free_l1=ctx.max_l1_space, select=kind in ("max", "min"))
        cur = nxt
    if not keep and tuple(out.shape) != tuple(cur.shape):
        steps += reshape_steps(cur.with_(mem=out.mem), tuple(out.shape), out, ctx)
    return steps


def _dims_attr(op: Op, rank: int) -> list[int]:
    dims = op.attrs.get("dim_arg")
    if dims is None:
        return list(range(rank))
    if isinstance(dims, int) and not isinstance(dims, bool):
        dims = [dims]
    if not isinstance(dims, list):
        raise CBModelError(f"{op.name}: dim_arg is not a list of integers")
    return sorted({d + rank if d < 0 else d for d in dims})


@register_cb(("ttnn.sum", "ttnn.mean", "ttnn.max", "ttnn.min"))
def reduce_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of sum/mean/max/min: the program chain of :func:`reduce_steps`.

    tt-metal frees a program's CBs before the next one runs, so the op needs
    the L1 of its largest program (``OpProgram.program`` picks it).
    """
    op = ctx.op
    x, out = operand(ctx, 0), result(ctx)
    return reduce_steps(op.short_name, x, _dims_attr(op, x.rank), bool(op.attrs.get("keep_dim", False)), out, ctx)


_PROD_SRC = _TM + "reduction/prod/device/prod_{}_program_factory.cpp @04b34050/@06ed7702 (fitted to ttnn 0.81.1)"


def prod_all_program(x: Tensor, out: Tensor) -> ProgramModel:
    """``ProdAllDeviceOperation::ProdAllProgramFactory``: the product of every element on core (0, 0).

    CBs: ``c_0`` 2 tiles of the input's format, ``c_3`` 2 tiles of the output's (prod_all_program_factory.cpp;
    measured on the mock: bf16 4,096 + 4,096 B, f32 8,192 + 8,192 B).
    """
    cores = cores_set(core_range(0, 0, 0, 0))
    return ProgramModel("ProdAllDeviceOperation::ProdAllProgramFactory", _PROD_SRC.format("all"), cores,
                        _cbs(cores, [("input", x.tile_bytes, 2), ("output", out.tile_bytes, 2)]),
                        [f"{x.physical_volume // (TILE * TILE):,} input tiles on one core"])


def prod_nc_program(x: Tensor, dim: int, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``ProdNcDeviceOperation::ProdNcProgramFactory``: the product over dim 0 or 1 of a 4D TILE tensor.

    The output tiles (the padded input with ``dim`` set to 1) are split over the grid column by column
    (``split_work_to_cores``, core ``i`` at ``(i / grid_y, i % grid_y)``); CBs ``c_0`` 2 input tiles and
    ``c_3`` 2 output tiles in the output's format.  The stored source (prod_nc_program_factory.cpp
    @06ed7702) also creates a 1-tile ``zero`` and a 1-tile accumulator CB, which ttnn 0.81.1 does not
    (measured on the mock: two CBs of 2 tiles each).
    """
    out_tiles = prod(_set(x.padded, dim, 1)) // (TILE * TILE)
    cores = split_work_to_cores(grid, out_tiles).all_cores
    return ProgramModel("ProdNcDeviceOperation::ProdNcProgramFactory", _PROD_SRC.format("nc"), cores,
                        _cbs(cores, [("input", out.tile_bytes, 2), ("output", out.tile_bytes, 2)]),
                        [f"product over dim {dim} (size {x.padded[dim]}); {out_tiles:,} output tiles on {cores.num_cores} cores"])


def _prod_all_steps(x: Tensor, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """FillPad (with ones), then ProdAll; a block-float ProdAll writes an f32 tile that a typecast converts to the
    result's format (measured: g1/ttnn.prod/9, 12, 22, 40, 48, 54: ProdAll 2,176 + 8,192 B, Typecast 8,192 +
    2,176 B; bf16 and f32 write their own format, g1/ttnn.prod/3, 21)."""
    steps = fill_pad_program(x, ctx.grid, ctx.arch)
    if not x.dtype.is_block_float:
        return steps + [prod_all_program(x, out)]
    wide = out.with_(dtype=F32)
    return steps + [prod_all_program(x, wide), typecast_program(wide, out, ctx.arch)]


@register_cb("ttnn.prod")
def prod_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.prod`` (the runtime calls ``ttnn::prod(in, dim_arg, keep_dim, memory_config)``,
    tt-mlir ``runtime/lib/ttnn/operations/reduction/prod.cpp`` @19c86fca), the chain of
    ``ProdOperation::invoke`` (tt-metal reduction/prod/prod.cpp, the version with the rank > 4 branch; each
    step's order and factory checked against the campaign's captures, g1/ttnn.prod/0-59):

    * every dim (no ``dim_arg``), or any dim of a rank-1 tensor: :func:`_prod_all_steps`;
    * otherwise the tile padding is filled with ones when the last two dims are not tile multiples
      (:func:`~ttanalyze.ops.data_movement.fill_pad_program`), then
    * rank <= 4: ``unsqueeze_to_4D``; dim 2 is permuted to the front with ``{2, 0, 1, 3}``, dim 3 with
      ``{3, 0, 1, 2}``; :func:`prod_nc_program` over dim 1 (dim 1) or 0 (the others); dims 2 and 3 are permuted
      back with ``{1, 2, 0, 3}`` (a full slice: no program), dim 3 then with ``{0, 1, 3, 2}`` (TransposeWH);
      a reshape to the input's rank, then ``squeeze(dim)`` when ``keep_dim`` is false;
    * rank > 4: the dim is swapped with the third-last by a permute (when they differ), the tensor is squeezed
      to 4D (a view), ProdNc over dim 1, reshaped back (a view) and permuted back; ``squeeze(dim)`` when
      ``keep_dim`` is false.

    Permutes, reshapes and squeezes are the models of those ops (:func:`~ttanalyze.ops.data_movement.
    _permute_steps`, :func:`~ttanalyze.ops.data_movement.reshape_steps`: views run nothing, block-float
    permutes other than WH/CN and reshapes go through bf16), into the result's memory config.

    Raises:
        CBModelError: sharded or row-major inputs, several dims.
    """
    op = ctx.op
    x, out = operand(ctx, 0), result(ctx)
    if x.sharded or out.sharded or not x.tiled:
        raise CBModelError("prod is modeled for interleaved TILE inputs")
    if op.attrs.get("dim_arg") is None or x.rank == 1:
        return _prod_all_steps(x, out, ctx)
    dims = _dims_attr(op, x.rank)
    if len(dims) != 1:
        raise CBModelError("prod over several dims is not one ttnn::prod call")
    d, r, grid = dims[0], x.rank, ctx.grid
    inter = out.with_(shape=x.shape, dtype=x.dtype)  # intermediates: the input's format, the result's memory

    def permuted(t: Tensor, perm: tuple[int, ...]) -> tuple[Tensor, list[ProgramModel]]:
        res = inter.with_(shape=tuple(t.shape[i] for i in perm))
        return res, _permute_steps(t, perm, res, grid, ctx.arch)

    def reshaped(t: Tensor, shape: tuple[int, ...]) -> tuple[Tensor, list[ProgramModel]]:
        res = inter.with_(shape=tuple(shape))
        return res, reshape_steps(t, tuple(shape), res, ctx)

    steps = fill_pad_program(x, grid, ctx.arch)
    if r > 4:
        third = r - 3
        swap = list(range(r))
        swap[third], swap[d] = swap[d], swap[third]
        cur = x
        if third != d:
            cur, more = permuted(cur, tuple(swap))
            steps += more
        x4 = cur.with_(shape=(prod(cur.shape[:-3]), *cur.shape[-3:]), padded=(prod(cur.padded[:-3]), *cur.padded[-3:]))
        red4 = inter.with_(shape=_set(x4.shape, 1, 1))
        steps.append(prod_nc_program(x4, 1, red4, grid))
        back = list(x.shape)
        back[d], back[third] = back[third], 1
        cur, more = reshaped(red4, tuple(back))
        steps += more
        if third != d:
            cur, more = permuted(cur, tuple(swap))
            steps += more
    else:
        x4 = x.with_(shape=(1,) * (4 - r) + x.shape, padded=(1,) * (4 - r) + x.padded)
        d4 = d + 4 - r
        cur = x4
        if d4 in (2, 3):
            cur, more = permuted(cur, (2, 0, 1, 3) if d4 == 2 else (3, 0, 1, 2))
            steps += more
        red_dim = 1 if d4 == 1 else 0
        red = inter.with_(shape=_set(cur.shape, red_dim, 1))
        steps.append(prod_nc_program(cur, red_dim, red, grid))
        cur = red
        if d4 in (2, 3):
            cur, more = permuted(cur, (1, 2, 0, 3))
            steps += more
        if d4 == 3:
            cur, more = permuted(cur, (0, 1, 3, 2))
            steps += more
        cur, more = reshaped(cur, cur.shape[4 - r:])
        steps += more
    if not op.attrs.get("keep_dim", False) and tuple(out.shape) != tuple(cur.shape):
        steps += reshape_steps(cur, tuple(out.shape), out, ctx)
    return steps


register_check("ttnn.prod", "mock", "tests/test_ops_dialect_rest.py against measurements/dialect/results_rest.jsonl",
               ("ProdAllDeviceOperation", "ProdNcDeviceOperation"))


# ---------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------


def max_divisor(n: int, limit: int) -> int:
    """``find_max_divisor(n, limit)`` (tt-metal tt_metal/common/work_split.cpp): the largest divisor of ``n`` not
    above ``limit``, skipping 7 and 5 (``if (find_divisor == 7 || find_divisor == 5) continue;``): 49 -> 1,
    14 -> 2 with limit 8 (measured: g1/ttnn.softmax/142, 222 pad their rows to a block of 8)."""
    return next((d for d in range(min(limit, n), 0, -1) if d not in (5, 7) and n % d == 0), 1)


def softmax_programs(x: Tensor, out: Tensor, dim: int, numeric_stable: bool, fp32_acc: bool | None,
                     grid: tuple[int, int], l1_size: int) -> ProgramModel:
    """SoftmaxProgramFactoryAttentionOptimized: softmax over the last dim of an interleaved tile tensor.

    ``block = find_max_divisor(Wt, L)`` with L = 4, or 8 when the compute
    config sets ``fp32_dest_acc_en = false`` (the dest register's tile count);
    when padding the row to a multiple of L takes fewer blocks than that
    divisor does, it is processed as ``round_up(Wt, L)`` tiles with block L
    (``Wt_eff``; measured: Wt 3, 6, 9 keep block 3, Wt 5, 7, 10, 15, 33 are
    padded; with fp32 off Wt 6, 12 and 18 keep block 6, Wt 20 -> 24 and 59 -> 64
    with block 8: measurements/normred/probe.py, g1/ttnn.softmax/7; find_max_divisor
    skips 7 and 5, so Wt 5, 10, 14, 49 pad to a block of 8 too: g1/ttnn.softmax/169,
    224, 222, 142).  DFBs on
    the ``NC * Ht`` rows' cores (split row by row): ``in0`` Wt_eff tiles
    (numerically stable; ``2 * block`` when W is not a tile multiple) or
    ``2 * block``; ``out0`` ``2 * block``; ``recip`` 1 f32 tile;
    ``scaler`` 1 tile (f32 for an f32 input, else bf16); one more f32 tile (``recip`` and this
    one are bf16 when the compute config sets ``fp32_dest_acc_en = false``);
    ``exps`` Wt_eff intermediate tiles; ``mask`` 1 bf16 tile; ``max`` 1
    intermediate tile (numerically stable); ``x`` Wt_eff intermediate tiles
    (numerically stable with W not a tile multiple: the row is kept there, not in
    ``in0``; measured g1/ttnn.softmax/7, bfp8 in0 16 tiles and bf16 x 64).  Intermediates are f32
    when fp32 accumulation is on (default: on for an f32 input), else bf16.
    When those exceed 90 % of the core's whole L1 (``l1_size_per_core``; measured:
    100 KB of live L1 buffers do not change the choice), the large kernel: ``in0``, ``exps``
    and ``x`` of 80 tiles and four single-tile accumulators.

    The stored source (86aa0949) picks block <= 8 without fp32 accumulation and
    counts other CBs; fitted to mock P150, ttnn 0.81.1 measurements ([1,1,32,W]
    for Wt 1..45, 64, 100, 128, 256, 300, 320, 340, 512, 2048, 8192; f32, bfp8,
    fp32 accumulation, padded W 48, 100, 200, 2038).

    Raises:
        CBModelError: softmax over another dim (General* factories), sharded or
            row-major input.
    """
    if dim != x.rank - 1:
        raise CBModelError("softmax over a dim other than the last runs the General softmax factories: not modeled")
    if not x.tiled:
        raise CBModelError("softmax of a row-major tensor is not modeled")
    nc, ht, wt = dims4(x)
    padded_w = x.shape[-1] % TILE != 0
    # the dest register holds 8 bf16 tiles, 4 with fp32 accumulation (get_dest_reg_count); an explicit
    # fp32_dest_acc_en = false blocks by up to 8 tiles (measured: g1/ttnn.softmax/7, Wt 59 -> 64, out0 16 tiles)
    limit = 8 if fp32_acc is False else 4
    block = max_divisor(wt, limit)
    wt_eff = wt
    if ceil_div(wt, limit) < wt // block:
        wt_eff, block = ceil_div(wt, limit) * limit, limit
    fp32 = fp32_acc if fp32_acc is not None else x.dtype == F32
    im = (F32 if fp32 else BF16).tile_bytes()
    # recip and aux stay f32 unless the compute config turns fp32 accumulation off (measured by the op-level
    # campaign: an f32 input with fp32_dest_acc_en = false has 2,048-B recip and aux, a bf16 input without a
    # compute config 4,096 B)
    f32 = (BF16 if fp32_acc is False else F32).tile_bytes()
    tin, tout = x.tile_bytes, out.tile_bytes
    scaler = (F32 if x.dtype == F32 else BF16).tile_bytes()
    in0 = (2 * block if padded_w else wt_eff) if numeric_stable else 2 * block
    specs = [("in0", tin, in0), ("out0", tout, 2 * block), ("recip", f32, 1), ("scaler", scaler, 1), ("aux", f32, 1),
             ("exps", im, wt_eff), ("mask", BF16.tile_bytes(), 1)]
    if numeric_stable:
        specs.append(("max", im, 1))
    if numeric_stable and padded_w:
        specs.append(("x", im, wt_eff))
    rows = nc * ht
    cores = split_work_to_cores(grid, rows, row_wise=True).all_cores
    total = sum(p * n for _, p, n in specs)
    notes = [f"Wt {wt} (processed {wt_eff}), block {block}; {rows:,} tile rows on {cores.num_cores} cores"]
    if total > 0.9 * l1_size:
        specs = [("in0", tin, 80), ("out0", tout, 2 * block), ("recip", f32, 1), ("sum", f32, 1), ("max_acc", im, 1),
                 ("recip_acc", f32, 1), ("scaler", scaler, 1), ("aux", f32, 1), ("exps", im, 80), ("mask", BF16.tile_bytes(), 1)]
        if numeric_stable:
            specs.append(("max", im, 1))
        specs.append(("x", im, 80))
        notes.append(f"large-tensor kernel: the single-pass CBs ({total:,} B) exceed 90 % of L1 ({l1_size:,} B)")
    return ProgramModel("SoftmaxDeviceOperation::SoftmaxProgramFactoryAttentionOptimized", _SOFTMAX_SRC, cores,
                        _cbs(cores, specs), notes)


_GENERAL_SRC = (_TM + "moreh/moreh_softmax/device/softmax_{0}/softmax_{0}.cpp @d80d9482 (the ttnn 0.81.1 wheel; "
                "ttnn.softmax's SoftmaxProgramFactoryGeneral* share its circular buffers)")
_SOFTMAX_SELECT_SRC = _TM + "normalization/softmax/device/softmax_device_operation.cpp select_program_factory @001a9c01"
L1_512KB = 512 * 1024


def softmax_general_program(x: Tensor, out: Tensor, dim: int, fp32_acc: bool | None, grid: tuple[int, int],
                            l1_base: int) -> ProgramModel:
    """SoftmaxProgramFactoryGeneral{WSmall,WLarge,HSmall,HLarge,CLarge}: softmax of a rank > 4 tensor or over a dim
    other than the last (``dim`` counted on the tensor unsqueezed to 4D).

    Selection (``select_program_factory``): the last dim takes WSmall and the second-last HSmall when the
    allocator's L1 base (``l1_base``, bytes) plus ``2 R + 2`` data tiles and ``2 R + 3`` intermediate tiles
    (R = Wt or Ht) is at most 512 KB, else WLarge / HLarge; any other dim takes CLarge.  Intermediates are
    f32 with fp32 accumulation (on unless the compute config turns it off; measured: f32 and bfloat8_b inputs
    without a compute config have f32 intermediates), else the input's format; the mask and both
    scalers are bf16 for a bfloat8_b input, else the input's format.  DFBs (bytes each = tiles x tile size):

    * WSmall / HSmall: ``in`` R, ``mask``, ``max_scaler``, ``sum_scaler`` 1, ``out`` R data tiles; ``exps`` R,
      ``recip`` 1, ``max`` 1, ``x_minus_max`` R, ``tmp`` 1 intermediate tiles;
    * WLarge / HLarge: ``in`` 2, the three 1-tile mask/scalers, ``out`` 2; ``exps`` 2, ``recip``, ``add``,
      ``max``, ``tmp`` 1 intermediate tile each;
    * CLarge: ``in`` 2, ``out`` 2 data tiles; ``exps`` 1, ``recip`` 1, ``add`` 2 intermediate tiles; ``max`` 1
      data tile; ``tmp`` 1 intermediate tile.

    Work: W factories split the ``NC * Ht`` tile rows, H factories the ``NC * Wt`` tile columns, CLarge the
    tiles of the output without ``dim`` over the grid column by column (``split_work_to_cores_wt_core_range``).
    Measured on mock P150, ttnn 0.81.1 (campaign g1/ttnn.softmax/4, 5, 6): bfp8 [3,3,2,1024,31] over -1 with
    fp32 accumulation WSmall 2 x 1,088 + 3 x 2,048 + 5 x 4,096 B; bfp8 [6080,64] over -2 HLarge 35,072 B;
    f32 [4,8,5,13,115] over -3 CLarge 3 x 8,192 + 4 x 4,096 B.

    Raises:
        DeviceRejection: an f32 input with fp32 accumulation off (every General factory's TT_THROW "FP32
            destination accumulation must be enabled when input tensor has FLOAT32 data type").
    """
    x4 = (1,) * max(0, 4 - x.rank) + tuple(x.padded)
    fp32 = fp32_acc is not False
    if x.dtype == F32 and not fp32:
        raise DeviceRejection("softmax (General factory): FP32 destination accumulation must be enabled when input "
                              "tensor has FLOAT32 data type (TT_THROW)")
    rank = len(x4)
    h, w = x4[-2], x4[-1]
    ht, wt = ceil_div(h, TILE), ceil_div(w, TILE)
    num = prod(x4) // (h * w)
    data = x.tile_bytes
    # intermediates: f32 with fp32 accumulation, else the input's format, bf16 for a block-float input in the W/H
    # factories (measured: g1/ttnn.softmax/37, bfp8 with fp32 off, 2,048-B intermediates); CLarge keeps the input's
    # format (softmax_program_factory_general_c_large.cpp ``intermed_data_format = fp32_dest_acc_en ? Float32 :
    # data_format``; measured: g1/ttnn.softmax/134, bfp8 with fp32 off, 1,088-B intermediates)
    block_im = BF16.tile_bytes() if x.dtype.is_block_float and dim >= rank - 2 else data
    im = F32.tile_bytes() if fp32 else block_im
    ms = BF16.tile_bytes() if x.dtype.is_block_float else data

    if dim >= rank - 2:
        r = wt if dim == rank - 1 else ht
        small = l1_base + (2 * r + 2) * data + (2 * r + 3) * im <= L1_512KB
        axis = "w" if dim == rank - 1 else "h"
        units = num * ht if axis == "w" else num * wt
        if small:
            specs = [("in", data, r), ("mask", ms, 1), ("max_scaler", ms, 1), ("sum_scaler", ms, 1), ("out", data, r),
                     ("exps", im, r), ("recip", im, 1), ("max", im, 1), ("x_minus_max", im, r), ("tmp", im, 1)]
        else:
            specs = [("in", data, 2), ("mask", ms, 1), ("max_scaler", ms, 1), ("sum_scaler", ms, 1), ("out", data, 2),
                     ("exps", im, 2), ("recip", im, 1), ("add", im, 1), ("max", im, 1), ("tmp", im, 1)]
        variant = f"{axis}_{'small' if small else 'large'}"
    else:
        variant = "c_large"
        units = prod(x4) // x4[dim] // (h * w) * ht * wt
        specs = [("in", data, 2), ("out", data, 2), ("exps", im, 1), ("recip", im, 1), ("add", im, 2), ("max", data, 1),
                 ("tmp", im, 1)]
    cores = split_work_to_cores(grid, units).all_cores
    name = "SoftmaxProgramFactoryGeneral" + "".join(p.capitalize() for p in variant.split("_"))
    return ProgramModel(f"SoftmaxDeviceOperation::{name}", _GENERAL_SRC.format(variant), cores, _cbs(cores, specs),
                        [f"softmax over dim {dim} of the 4D view {list(x4)}: {name} ({_SOFTMAX_SELECT_SRC}); "
                         f"{units:,} work units on {cores.num_cores} cores, intermediates {'f32' if fp32 else x.dtype}"])


@register_cb("ttnn.softmax")
def softmax_cb(ctx: CBContext) -> ProgramModel:
    """CB model of ``ttnn.softmax``.

    ttnn.softmax unsqueezes a tensor of rank below 4 to 4D; SoftmaxDeviceOperation then runs the
    AttentionOptimized factory (:func:`softmax_programs`) for the last dim of a 4D tensor and a General
    factory (:func:`softmax_general_program`) otherwise (``select_program_factory``; measured: rank 1-3
    over the last dim AttentionOptimized, rank 5 over the last dim GeneralWSmall).
    """
    op = ctx.op
    x, out = operand(ctx, 0), result(ctx)
    dim = op.attrs.get("dimension", -1)
    dim = dim + x.rank if dim < 0 else dim
    cc = _compute_config(op)
    fp32_acc = cc.fp32_dest_acc_en if cc else None
    if x.tiled and not x.sharded:
        dim4 = dim + max(0, 4 - x.rank)
        if not (dim4 == 3 and max(x.rank, 4) == 4):
            return softmax_general_program(x, out, dim4, fp32_acc, ctx.grid, ctx.arch.l1_unreserved_base)
    return softmax_programs(x, out, dim, bool(op.attrs.get("numericStable", False)), fp32_acc, ctx.grid,
                            ctx.arch.l1_size)


# ---------------------------------------------------------------------------
# LayerNorm / RMSNorm
# ---------------------------------------------------------------------------


def layernorm_program(x: Tensor, out: Tensor, rms: bool, gamma: Tensor | None, beta: Tensor | None, fp32_acc: bool | None,
                      grid: tuple[int, int], free_l1: int) -> ProgramModel:
    """LayerNormMultiCoreProgramFactory (interleaved input): layer_norm / rms_norm over the last dim.

    fp32 accumulation defaults to on for layer_norm and off for rms_norm (what
    ttnn 0.81.1 picks with no compute config); ``block`` = 4 with it, else 8;
    ``Wtb = round_up(Wt, block)``; intermediates ``cb`` f32 with it, else bf16.
    DFBs, on the ``NC * Ht`` rows' cores (split row by row), in creation order:
    ``in0`` Wtb input tiles, ``out0`` ``2 * block``, ``ex`` 2 cb (layer_norm),
    ``scaler`` and ``eps`` 2 bf16 tiles each, ``ex2`` 2 cb, ``xmm2`` Wtb cb,
    ``xmm`` Wtb cb (layer_norm, or large), ``ex2pe`` 8 cb, ``accumulate`` 1 cb
    (large), ``fusion`` ``2 * block`` cb (gamma or beta), ``gamma`` / ``beta``
    Wtb tiles of their format.  Large-tensor variant when these exceed 95 % of
    the free L1 (measured: 100 KB of live L1 buffers switch rms_norm W 10240 to
    the large kernel): Wtb becomes ``56`` with gamma/beta or an f32 input, else
    ``112``, times ``bfloat16_tile_size / single_tile_size`` (halved when the
    intermediates are f32: ``with_weights_max_size`` / ``without_weights_max_size``
    of layernorm_op_multi_core.cpp in the stored versions after 5aa66d6b that
    scale them; measured 112, 56 and 28: bf16 without weights, f32 with fp32
    accumulation and gamma and beta 28, f32 with a weight and fp32 accumulation
    off 56, g1/ttnn.rms_norm/27 and g1/ttnn.layer_norm/80).

    The stored source (5aa66d6b) counts CBs that are not created in the fit
    test and has no rms large variant; fitted
    to mock P150, ttnn 0.81.1: layer_norm [1,1,32,768] 49,152 + 16,384 + 8,192 +
    4,096 + 4,096 + 8,192 + 98,304 + 98,304 + 32,768 B; W 4096 single pass, 4224
    large; rms_norm W 10240 single pass (1,372,160 B), 12288 and 262,144 large
    (751,616 B).

    Raises:
        DeviceRejection: a height-sharded input (TT_FATAL "Height sharded
            inputs are not supported", measured).
        CBModelError: block/width-sharded input (LayerNormShardedProgramFactory,
            not modeled), row-major input.
    """
    if x.sharded:
        if x.memory_layout == "height_sharded":
            raise DeviceRejection("layer/rms norm: height-sharded inputs are not supported (TT_FATAL)")
        raise CBModelError("layer/rms norm of a sharded input runs LayerNormShardedProgramFactory: not modeled")
    if not x.tiled:
        raise CBModelError("layer/rms norm of a row-major input is not modeled")
    nc, ht, wt = dims4(x)
    fp32 = fp32_acc if fp32_acc is not None else not rms
    block = 4 if fp32 else 8
    cb = (F32 if fp32 else BF16).tile_bytes()
    bf = BF16.tile_bytes()

    def specs(wtb: int, large: bool) -> list[tuple[str, int, int]]:
        s = [("in0", x.tile_bytes, wtb), ("out0", out.tile_bytes, 2 * block)]
        if not rms:
            s.append(("ex", cb, 2))
        s += [("scaler", bf, 2), ("eps", bf, 2), ("ex2", cb, 2), ("xmm2", cb, wtb)]
        if not rms or large:
            s.append(("xmm", cb, wtb))
        s.append(("ex2pe", cb, 8))
        if large:
            s.append(("accumulate", cb, 1))
        if gamma is not None or beta is not None:
            s.append(("fusion", cb, 2 * block))
        if gamma is not None:
            s.append(("gamma", gamma.tile_bytes, wtb))
        if beta is not None:
            s.append(("beta", beta.tile_bytes, wtb))
        return s

    wtb = ceil_div(wt, block) * block
    chosen = specs(wtb, False)
    total = sum(p * n for _, p, n in chosen)
    notes = [f"{'rms_norm' if rms else 'layer_norm'}: Wt {wt}, block {block}, fp32 accumulation {'on' if fp32 else 'off'}"]
    if total >= 0.95 * free_l1:
        # with_weights_max_size / without_weights_max_size: 56 or 112 bf16-tile blocks, scaled by
        # bfloat16_tile_size / single_tile_size (halved when the intermediates are f32)
        weighted = gamma is not None or beta is not None or x.dtype == F32
        size = (56 if weighted else 112) * bf // cb
        chosen = specs(size, True)
        notes.append(f"large-tensor kernel, {size}-tile blocks: the single-pass CBs ({total:,} B) exceed 95 % of the "
                     f"free L1 ({free_l1:,} B)")
    rows = nc * ht
    cores = split_work_to_cores(grid, rows, row_wise=True).all_cores
    return ProgramModel("LayerNormDeviceOperation::LayerNormMultiCoreProgramFactory", _LN_SRC, cores, _cbs(cores, chosen), notes)


def _segments(op: Op) -> list[int] | None:
    seg = op.attrs.get("operandSegmentSizes")
    if seg is None:
        return None
    values = list(getattr(seg, "dims", seg))
    return values if all(isinstance(v, int) for v in values) else None


def _norm_operands(op: Op) -> tuple:
    """(input, weight, bias) Values of a layer/rms norm (operandSegmentSizes, else positional)."""
    seg = _segments(op)
    vals = list(op.operands)
    if seg is None:
        return tuple(vals[i] if i < len(vals) else None for i in range(3))
    out, pos = [], 0
    for n in seg[:3]:
        out.append(vals[pos] if n else None)
        pos += n
    return tuple(out + [None] * (3 - len(out)))


def check_norm_weights(x: Tensor, gamma: Tensor | None, beta: Tensor | None) -> None:
    """``LayerNormDeviceOperation::validate``'s checks of gamma and beta (tt-metal
    ``normalization/layernorm/device/layernorm_device_operation.cpp`` @d80d9482, lines 170-215; measured: an
    rms_norm with a row-major ``[W]`` beta fails there).

    A TILE weight needs the input's padded width and a padded height of 32; a ROW_MAJOR one a padded
    width of exactly 32 and ``volume / 32`` equal to the input's padded width in tiles, in f32 or bf16;
    gamma and beta share a layout.

    Raises:
        DeviceRejection: a check fails (the message names it).
    """
    for name, w in (("gamma", gamma), ("beta", beta)):
        if w is None:
            continue
        if w.tiled:
            if w.padded[-1] != x.padded[-1] or (w.padded[-2] if w.rank >= 2 else TILE) != TILE:
                raise DeviceRejection(f"layernorm: {name} padded shape {list(w.padded)} does not match the input's "
                                      f"padded width {x.padded[-1]} with height 32 (LayerNormDeviceOperation TT_FATAL)")
        else:
            if w.padded[-1] != TILE or prod(w.padded) // TILE != x.padded[-1] // TILE:
                raise DeviceRejection(f"layernorm: a row-major {name} needs a last dim of 32 and {x.padded[-1] // TILE} "
                                      f"rows (got {list(w.padded)}; LayerNormDeviceOperation TT_FATAL '"
                                      f"{name.capitalize()} ... must align with input tensor')")
            if w.dtype.name not in ("f32", "bf16"):
                raise DeviceRejection(f"layernorm: a row-major {name} must be FLOAT32 or BFLOAT16, not {w.dtype}")
    if gamma is not None and beta is not None and gamma.layout != beta.layout:
        raise DeviceRejection("layernorm: gamma and beta must have the same layout (LayerNormDeviceOperation TT_FATAL)")


@register_cb(("ttnn.layer_norm", "ttnn.rms_norm"))
def layernorm_cb(ctx: CBContext) -> ProgramModel:
    """CB model of ``ttnn.layer_norm`` / ``ttnn.rms_norm`` (:func:`layernorm_program`)."""
    op = ctx.op
    if op.attrs.get("program_config") is not None:
        raise CBModelError(f"{op.name} with a sharded program config runs LayerNormShardedProgramFactory: not modeled")
    xv, gv, bv = _norm_operands(op)
    x = tensor_of(xv, ctx.arch, f"input of {op.name}")
    gamma = tensor_of(gv, ctx.arch, f"weight of {op.name}") if gv is not None else None
    beta = tensor_of(bv, ctx.arch, f"bias of {op.name}") if bv is not None else None
    out = result(ctx)
    cc = _compute_config(op)
    check_norm_weights(x, gamma, beta)
    if ctx.tt_metal == "614f605f" and op.name == "ttnn.rms_norm" and not x.sharded and x.tiled:
        from .norm_sharded import rms_norm_width_sharded_614f605f  # the plugin runtime's resharded rms_norm
        return rms_norm_width_sharded_614f605f(x, out, gamma, beta, bool(cc and cc.fp32_dest_acc_en))
    return layernorm_program(x, out, op.name == "ttnn.rms_norm", gamma, beta, cc.fp32_dest_acc_en if cc else None,
                             ctx.grid, ctx.max_l1_space)


_GN_SRC = _TM + "normalization/groupnorm/device/groupnorm_{}_program_factory.cpp @003544fc (fitted to ttnn 0.81.1)"
_GN_GRID_SRC = (_TM + "normalization/groupnorm/groupnorm_grid_utils.cpp find_expected_dram_grid @0c016ffe with the "
                "num_batches test of groupnorm.cpp validate_dram_grid @0062748f")


def group_norm_virtual_cols(grid_x: int, num_groups: int, channels: int) -> int:
    """``compute_num_virtual_cols``: the most columns (at most ``grid_x`` and ``num_groups``) that split
    ``channels`` into tile-wide slices holding whole groups; 0 when none does."""
    nvc = min(grid_x, num_groups)
    while nvc > 0 and ((channels // nvc) % TILE != 0 or num_groups % nvc != 0):
        nvc -= 1
    return nvc


def group_norm_dram_grid(grid: tuple[int, int], channels: int, num_groups: int, ht: int,
                         num_batches: int) -> tuple[int, int] | None:
    """The core grid ttnn.group_norm picks for an interleaved input (``find_expected_dram_grid``).

    The widest grid first, then the tallest: ``x`` from the device's width down, ``y`` from
    ``min(Ht // (x // nvc), height)`` down, the first whose virtual rows ``(x // nvc) * y`` divide ``Ht``
    (the input's height in tiles, all batches) and, when at least ``num_batches``, are a multiple of it.
    Measured on mock P150 (campaign g1/ttnn.group_norm/1, 2, 8): Ht 8 -> 8x1, Ht 32 -> 8x4, Ht 126 with
    2 batches -> 9x2 (9x7 would split a batch).
    """
    for gx in range(grid[0], 0, -1):
        nvc = group_norm_virtual_cols(gx, num_groups, channels)
        if nvc == 0:
            continue
        rows_per_y = gx // nvc
        for gy in range(min(ht // rows_per_y, grid[1]), 0, -1):
            nvr = rows_per_y * gy
            if ht % nvr == 0 and (nvr < num_batches or nvr % num_batches == 0):
                return gx, gy
    return None


def max_tile_span(width: int, group_size: int) -> int:
    """``find_max_tile_span``: the most tiles (of 32 columns) one group of ``group_size`` channels
    touches, walking the groups across ``width`` channels."""
    pos, span = 0, 0
    while pos < width:
        end = pos + group_size
        span = max(span, (end - 1) // TILE - pos // TILE + 1)
        pos = end
    return span


def group_norm_program(x: Tensor, out: Tensor, num_groups: int, gamma: Tensor | None, beta: Tensor | None,
                       grid: tuple[int, int]) -> ProgramModel:
    """GroupNormMcastProgramFactory / GroupNormNoMcastProgramFactory: group_norm of an interleaved TILE
    input ``[N, 1, HW, C]`` (bf16), as ttnn.group_norm runs it with no input mask (it builds one, bf16,
    one tile row per group slice) and ``num_out_blocks`` left to its heuristic.

    Grid: :func:`group_norm_dram_grid`; ``nvc`` virtual columns (:func:`group_norm_virtual_cols`), the
    cores ``(x // nvc) * nvc`` columns by ``y`` rows; ``nvr = (x // nvc) * y`` virtual rows.  NoMcast
    when ``N >= nvr``, else Mcast (``select_program_factory``).  Per core: ``Mt = Ht / nvr`` tile
    rows of ``N_c = C / nvc`` channels; ``batches = N / nvr`` when ``N > nvr`` else 1; ``block_ht =
    Mt / batches``; ``block_wt`` = the most tiles one group spans (:func:`max_tile_span`);
    ``num_out_blocks`` 2 when ``block_ht`` is at least 16 tile rows, else 1 (measured on the
    campaign's instances: 16 to 187 rows run 2 blocks, up to 7 one), or the stored source's power of
    two reaching ``N * HW * C / (65536 * nvc * nvr)`` when that is more (large inputs); ``block = block_ht / num_out_blocks * block_wt`` tiles.

    CBs (intermediates in the input's format), in creation order: ``in0``, ``out``, ``in`` ``block``
    tiles each (per core); ``scaler``, ``eps``, ``cinv`` one tile; ``gamma`` / ``beta`` ``N_c / 32``
    tiles of their format; the ``input_mask`` ``2 * block_wt`` bf16 tiles, twice that when the
    per-batch height is not a tile multiple (no source found; measured on five NoMcast instances);
    ``x``, ``xmm``, ``xmm2``, ``xmm3`` ``block``
    tiles; ``ex_partial``, ``ex2_partial``, ``ex_external``, ``ex_global``, ``ex2_global``, ``ex2pe`` one
    tile each.  NoMcast also creates each per-core CB for its second core group (uneven batches; empty
    and 0 B when the batches split evenly).  The stored source (003544fc) sizes ``ex_external`` ``2 *
    cores per mcast group`` tiles; ttnn 0.81.1 measured one tile.  Measured on mock P150 (campaign
    g1/ttnn.group_norm/1, 2, 3, 8): [1,1,256,32] 4 groups 8 cores 36,864 B; [2,1,2016,32] 18 cores
    (7-tile blocks) 122,880 B; [1,1,16,32] NoMcast on one core 40,960 B.

    Raises:
        CBModelError: a non-bf16 input, or no grid satisfies the split.
    """
    if x.dtype != BF16:
        raise CBModelError(f"group_norm of a {x.dtype} input is not modeled (the factories take bf16)")
    n = x.padded[0] if x.rank == 4 else 1
    channels = x.padded[-1]
    ht = prod(x.padded[:-1]) // TILE
    gxy = group_norm_dram_grid(grid, channels, num_groups, ht, n)
    if gxy is None:
        raise CBModelError(f"group_norm: no DRAM core grid splits Ht {ht} into whole batches with {num_groups} "
                           f"groups over {channels} channels (ttnn TT_FATAL 'Could not determine a valid DRAM core grid')")
    gx, gy = gxy
    nvc = group_norm_virtual_cols(gx, num_groups, channels)
    nvr = (gx // nvc) * gy
    cols = (gx // nvc) * nvc
    cores = cores_set(core_range(0, 0, cols - 1, gy - 1))
    mt = ht // nvr
    per_core_n = channels // nvc
    batches = n // nvr if n > nvr else 1
    groups_per_core = num_groups // nvc if num_groups > nvc else 1
    block_wt = max_tile_span(per_core_n, channels // num_groups)
    # measured on the campaign (25 interleaved instances): a core's rows are read in 2 blocks from 16 tile rows
    # per batch up (16, 17, 19, 23, 24, 107, 169, 187), in one up to 7; the stored source's volume heuristic
    # does not reproduce it; 8 to 15 are not measured (taken as one block)
    # and the stored source's power of two reaching HW * C / (65536 * nvc * nvr) still bounds the block from
    # below on large inputs (a real Wormhole dump's group_norm, tests/test_eras.py, runs; two blocks would
    # ask for 13 MB of CBs per core)
    heuristic = max(1, prod(x.padded) // (65536 * nvc * nvr))
    volume_blocks = 1
    while volume_blocks < heuristic and volume_blocks < 256:
        volume_blocks <<= 1
    out_blocks = max(2 if mt // batches >= 16 else 1, volume_blocks)
    block = mt // batches // out_blocks * block_wt
    mcast = n < nvr
    tile, tin, tout, bf = BF16.tile_bytes(), x.tile_bytes, out.tile_bytes, BF16.tile_bytes()
    none = CoreRangeSet(())

    cbs: list[CB] = []

    def add(name: str, page: int, pages: int, on: CoreRangeSet = cores) -> None:
        cbs.append(CB(len(cbs), name, page, pages, on))

    def per_core(name: str, page: int) -> None:
        add(name, page, block)
        if not mcast:
            add(f"{name}_group_2", page, 0, none)

    if mcast:
        add("in0", tin, block)
        add("out", tout, block)
    else:
        add("in0", tin, block)
        add("out", tout, block)
        add("in0_group_2", tin, 0, none)
        add("out_group_2", tout, 0, none)
    per_core("in", tin)
    for name in ("scaler", "eps", "cinv"):
        add(name, tile, 1)
    for name, w in (("gamma", gamma), ("beta", beta)):
        if w is not None:
            add(name, w.tile_bytes, ceil_div(per_core_n, TILE))
    # a per-batch height that is not a tile multiple doubles the mask buffer (measured, NoMcast: [1,1,16,32] with 2
    # and 8 groups and [2,1,16,64] on 4 cores 4 tiles; [2,1,32,256] and [2,1,5984,128] 2 tiles; every Mcast
    # instance measured had tile-aligned heights and 2 tiles)
    add("input_mask", bf, 2 * block_wt * (2 if x.shape[-2] % TILE else 1))
    for name in ("x", "xmm", "xmm2", "xmm3"):
        per_core(name, tile)
    for name in ("ex_partial", "ex2_partial", "ex_external", "ex_global", "ex2_global", "ex2pe"):
        add(name, tile, 1)
    factory = "Mcast" if mcast else "NoMcast"
    return ProgramModel(f"GroupNormDeviceOperation::GroupNorm{factory}ProgramFactory",
                        _GN_SRC.format("mcast" if mcast else "no_mcast"), cores, cbs,
                        [f"grid {gx}x{gy} ({_GN_GRID_SRC}): {nvc} virtual columns x {nvr} virtual rows; {mt} tile "
                         f"rows x {per_core_n} channels per core, {groups_per_core} groups per core, block {block} tiles "
                         f"({out_blocks} out blocks)"])


@register_cb("ttnn.group_norm")
def group_norm_cb(ctx: CBContext) -> ProgramModel:
    """CB model of ``ttnn.group_norm`` (:func:`group_norm_program` for an interleaved TILE input).

    Raises:
        DeviceRejection: an interleaved ROW_MAJOR input (groupnorm.cpp TT_FATAL "interleaved (non-sharded)
            input must be in TILE layout"; measured: campaign instances g1/ttnn.group_norm/0, 4, 5).
        CBModelError: a sharded input (the sharded and welford factories are not modeled), an input that
            is not rank 4.
    """
    op = ctx.op
    x = operand(ctx, 0)
    if not x.sharded and not x.tiled:
        raise DeviceRejection("group_norm: an interleaved (non-sharded) input must be in TILE layout "
                              "(groupnorm.cpp TT_FATAL)")
    if x.sharded:
        raise CBModelError("group_norm of a sharded input runs GroupNormShardedProgramFactory: not modeled")
    if x.rank != 4:
        raise CBModelError(f"group_norm of a rank-{x.rank} input is not modeled (ttnn requires rank 4)")
    # operands: input, input_mask?, weight?, bias? (operandSegmentSizes, TTNNOps.td GroupNormOp)
    seg = _segments(op) or [1, 0, 0, 0]
    if len(op.operands) > 1 and len(seg) < 4:
        raise CBModelError("group_norm with optional operands but no operandSegmentSizes is not modeled")
    if len(seg) > 1 and seg[1]:
        raise CBModelError("group_norm with an input mask is not modeled (ttnn builds its own by default)")
    vals = list(op.operands)
    gamma = tensor_of(vals[1], ctx.arch, "weight of ttnn.group_norm") if len(seg) > 2 and seg[2] else None
    beta = tensor_of(vals[1 + seg[2]], ctx.arch, "bias of ttnn.group_norm") if len(seg) > 3 and seg[3] else None
    groups = op.attrs.get("num_groups")
    if not isinstance(groups, int) or isinstance(groups, bool) or groups <= 0:
        raise CBModelError("group_norm: num_groups is not a positive integer")
    return group_norm_program(x, result(ctx), groups, gamma, beta, ctx.grid)
