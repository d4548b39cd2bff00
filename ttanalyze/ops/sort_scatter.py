"""Sorting, indexing and scans: ``sort``, ``scatter``, ``gather``, ``cumsum``, ``cumprod``.

Shape rules (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``SortOp``/``ScatterOp``/
``GatherOp::verify``; ``CumSumOp``/``CumProdOp`` keep the shape):

* ``sort``: values and indices both shaped like the input, ``dim`` in range;
* ``scatter``: the input's shape; input, index and source of one rank, index shaped like source;
* ``gather``: the index's shape; input and index of one rank, ``dim`` in range;
* ``cumsum`` / ``cumprod``: the input's shape, ``dim`` in range.

Programs: ``sort`` along the last dim of a 4D TILE tensor with ``Wt <= 64`` runs
``SortProgramFactorySingleRowSingleCore`` (:func:`sort_cb`); a bf16 ``cumsum`` along the last dim runs
one ``AccumulationProgramFactory`` program (:func:`cumsum_cb`).  The other sorts (transposes around it,
the cross-core and DRAM factories), the other scans (permutes or transposes around the accumulation),
scatter and gather are costed by name (cost/ir.py NAME_OP_CODES) and their CBs are not modeled (TTA011).
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, ProgramModel, core_range, cores_set
from .registry import ShapeError, int_attr, norm_dim, register, register_cb, register_check, tensor_shape
from .data_movement import fill_pad_program
from .tensors import TILE, operand, result
from .work_split import split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.sort", "sort_scatter", ("dim", "descending", "stable", "memory_config"), f"{_SRC} SortOp::verify")
def sort(op: Op):
    x = tensor_shape(op, 0)
    norm_dim(int_attr(op, "dim", -1), len(x), op)
    return [x, x]


@register("ttnn.scatter", "sort_scatter", ("dim", "scatter_reduce_type", "memory_config"), f"{_SRC} ScatterOp::verify")
def scatter(op: Op):
    x, index, source = (tensor_shape(op, i) for i in range(3))
    if not len(x) == len(index) == len(source):
        raise ShapeError(f"{op.name}: input, index and source must have the same rank, got "
                         f"{len(x)}, {len(index)}, {len(source)}")
    if index != source:
        raise ShapeError(f"{op.name}: index {list(index)} must have the source's shape {list(source)}")
    norm_dim(int_attr(op, "dim"), len(x), op)
    return [x]


@register("ttnn.gather", "sort_scatter", ("dim", "memory_config"), f"{_SRC} GatherOp::verify")
def gather(op: Op):
    x, index = tensor_shape(op, 0), tensor_shape(op, 1)
    if len(x) != len(index) or not x:
        raise ShapeError(f"{op.name}: input and index must have one rank >= 1, got {len(x)} and {len(index)}")
    norm_dim(int_attr(op, "dim"), len(x), op)
    return [index]


@register(("ttnn.cumsum", "ttnn.cumprod"), "sort_scatter", ("dim", "memory_config"), f"{_SRC} CumSumOp/CumProdOp")
def scan(op: Op):
    x = tensor_shape(op, 0)
    if x:
        norm_dim(int_attr(op, "dim"), len(x), op)
    return [x]


# sampling and topk_router_gpt: ttanalyze/ops/sampling.py and ttanalyze/ops/moe.py


_SORT_SRC = ("tt-metal ttnn/cpp/ttnn/operations/data_movement/sort/device/sort_single_row_single_core_program_factory.cpp "
             "@7a1ccff7, factory choice sort_device_operation.cpp @01c8afed (measured on ttnn 0.81.1)")
SORT_WT_THRESHOLD = 64  # sort_device_operation.cpp: Wt <= 64 -> single row, single core per row


def sort_cores(ht: int, grid: tuple[int, int]):
    """The cores of ``SortProgramFactorySingleRowSingleCore`` for ``ht`` tile rows: the whole grid when
    ``ht >= cores``, else ``ht // x`` full rows of the grid plus the first ``ht % x`` cores of the next row
    (ttnn 0.81.1, measured: 12 rows on 12 cores; the stored source at 7a1ccff7 ends that range one
    column further)."""
    x, y = grid
    if ht >= x * y:
        return cores_set(core_range(0, 0, x - 1, y - 1))
    rows, cols = divmod(ht, x)
    if rows == 0:
        return cores_set(core_range(0, 0, max(cols, 1) - 1, 0))
    ranges = [core_range(0, 0, x - 1, rows - 1)]
    if cols:
        ranges.append(core_range(0, rows, cols - 1, rows))
    return cores_set(*ranges)


@register_cb("ttnn.sort")
def sort_cb(ctx: CBContext) -> list[ProgramModel]:
    """``SortProgramFactorySingleRowSingleCore``: one tile row (32 rows of the last dim) per core and loop.

    With ``Wt = padded W / 32`` and the index dtype ttnn picks (UINT16, UINT32 for f32 inputs or
    ``W >= 65535``): ``c_0`` 4 input tiles, ``c_1`` 4 index tiles, ``c_2`` Wt input tiles and ``c_3`` Wt
    index tiles (the transposed row), ``c_4`` 2 value tiles, ``c_5`` 2 index tiles, ``c_6`` a 1,024-B
    UInt8 synchronization page, on :func:`sort_cores` of ``Ht = N*C*H_padded / 32`` rows.  A tensor whose
    last two dims are not tile multiples first has its tile padding filled
    (:func:`~ttanalyze.ops.data_movement.fill_pad_program`; measured on the mock).

    Raises:
        CBModelError: a sort over another dim than the last (ttnn transposes around it), a rank other
            than 4, a row-major input, a padded width that is not a multiple of 64, or ``Wt > 64`` (the
            cross-core and DRAM factories are not modeled).
    """
    x = operand(ctx, 0)
    dim = int_attr(ctx.op, "dim", -1)
    if x.rank != 4 or dim not in (-1, 3):
        raise CBModelError("sort is modeled for the last dim of a 4D tensor (other dims and ranks transpose/reshape)")
    if not x.tiled or x.dtype.name not in ("bf16", "f32"):
        raise CBModelError("sort is modeled for bf16/f32 TILE inputs")
    wt = x.padded[-1] // TILE
    if x.padded[-1] % 64:
        raise CBModelError(f"sort of width {x.padded[-1]} (not a multiple of 64) pads it first: not modeled")
    if wt > SORT_WT_THRESHOLD:
        raise CBModelError(f"sort of Wt = {wt} > {SORT_WT_THRESHOLD} runs the cross-core or DRAM factory: not modeled")
    index_tile = 4096 if (x.dtype.name == "f32" or x.shape[-1] >= 65535) else 2048
    ht = x.padded[0] * x.padded[1] * x.padded[2] // TILE
    cores = sort_cores(ht, ctx.grid)
    t = x.tile_bytes
    cbs = [CB(0, "input", t, 4, cores), CB(1, "index", index_tile, 4, cores), CB(2, "input_transposed", t, wt, cores),
           CB(3, "index_transposed", index_tile, wt, cores), CB(4, "value", t, 2, cores),
           CB(5, "index_output", index_tile, 2, cores), CB(6, "synchronization", 1024, 1, cores)]
    return fill_pad_program(x, ctx.grid, ctx.arch) + [
        ProgramModel("SortDeviceOperation::SortProgramFactorySingleRowSingleCore", _SORT_SRC, cores, cbs,
                     [f"{ht} tile rows of Wt {wt} on {cores.num_cores} cores"])]


register_check("ttnn.sort", "mock", "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl",
               ("SortDeviceOperation",))


_ACC_SRC = ("tt-metal ttnn/cpp/ttnn/operations/reduction/accumulation/device/accumulation_program_factory.cpp "
            "@01ca9062 (fitted to ttnn 0.81.1)")
ACCUMULATION_CB_TILES = 4  # in_tiles / out_tiles of accumulation_program_factory.cpp


@register_cb("ttnn.cumsum")
def cumsum_cb(ctx: CBContext) -> list[ProgramModel]:
    """``cumsum`` along the last dim of a bf16 TILE tensor whose width is a tile multiple: one
    ``AccumulationDeviceOperation::AccumulationProgramFactory`` program and no permute.

    Work: the tile rows, ``rows = physical volume / 1,024 / (padded W / 32)`` (every dim but the last,
    the second-to-last tile-padded, over 32), split by ``split_work_to_cores`` column by column (core
    ``i`` at ``(i / grid_y, i % grid_y)``).  CBs: 4 input tiles and 4 output tiles.  The stored source
    (@01ca9062) runs every dim through this factory with four 4-tile CBs; ttnn 0.81.1 (measured on the
    mock: [96, 256] on 3 cores, [128, 384] on 4, [7, 512] and [32, 64] on one, two 8,192-B CBs each)
    runs the last dim with two, and transposes or permutes other dims (and cumprod) around an
    accumulation with other CBs: those are not modeled.

    Raises:
        CBModelError: another dim, dtype, a width that is not a tile multiple, a sharded or row-major
            tensor (not measured).
    """
    x, out = operand(ctx, 0), result(ctx)
    dim = int_attr(ctx.op, "dim")
    if x.rank == 0 or dim not in (-1, x.rank - 1):
        raise CBModelError("cumsum along a dim other than the last permutes around the accumulation: not modeled")
    if x.sharded or out.sharded or not x.tiled or x.dtype.name != "bf16" or out.dtype.name != "bf16":
        raise CBModelError("cumsum is modeled for interleaved bf16 TILE tensors (the measured ones)")
    if x.shape[-1] % TILE:
        raise CBModelError(f"cumsum along a width of {x.shape[-1]} (not a tile multiple): not measured")
    rows = x.physical_volume // (TILE * TILE) // (x.padded[-1] // TILE)
    cores = split_work_to_cores(ctx.grid, rows).all_cores
    cbs = [CB(0, "input", x.tile_bytes, ACCUMULATION_CB_TILES, cores),
           CB(1, "output", out.tile_bytes, ACCUMULATION_CB_TILES, cores)]
    return [ProgramModel("AccumulationDeviceOperation::AccumulationProgramFactory", _ACC_SRC, cores, cbs,
                         [f"{rows:,} tile rows of {x.padded[-1] // TILE} tiles on {cores.num_cores} cores"])]


register_check("ttnn.cumsum", "mock", "tests/test_ops_dialect_rest.py against measurements/dialect/results_rest.jsonl",
               ("AccumulationDeviceOperation",))
