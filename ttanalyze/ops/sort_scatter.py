"""Sorting, indexing and scans: ``sort``, ``scatter``, ``gather``, ``cumsum``, ``cumprod``.

Shape rules (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``SortOp``/``ScatterOp``/
``GatherOp::verify``; ``CumSumOp``/``CumProdOp`` keep the shape):

* ``sort``: values and indices both shaped like the input, ``dim`` in range;
* ``scatter``: the input's shape; input, index and source of one rank, index shaped like source;
* ``gather``: the index's shape; input and index of one rank, ``dim`` in range;
* ``cumsum`` / ``cumprod``: the input's shape, ``dim`` in range.

Programs: ``sort`` runs sort.cpp's composite (:func:`sort_steps`, ttnn 0.81.1): a transpose of the sort dim to
the last, the 4D view, the tile-padding fill and a ``ttnn.pad`` of the width to a power of two (at least 64),
the device operation's factory (single row single core for ``Wt <= 64``, cross-core data exchange, or the DRAM
multi-core factory), slices back and the reverse transpose; a sort dim of 1 is a ``clone``.  Every ttnn.sort
instance of the op-level campaign is exact (tests/test_cb_sort.py).  ``cumsum`` / ``cumprod`` run
accumulation_common.cpp's composite (:func:`scan_steps`: the tile-axis kernel, or permutes around
``AccumulationProgramFactory``), ``scatter`` scatter.cpp's (:func:`scatter_steps`: untilize, transposes around
the scatter factory); measured instances in measurements/dialect (tests/test_ops_dialect_rest.py,
tests/test_ops_dialect_scan.py); ``gather`` gather.cpp's (:func:`gather_steps`: transposes, the index's and input's
tile-padding fills, a slice, the codegen or native factory, the transpose back).  The campaign's draws of
all five ops are exact (tests/test_cb_sort.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, prod

from ..ir.attrs import CoreRangeSet, DataType
from ..ir.model import Op
from ..layout import align_up, ceil_div
from . import data_movement as DM
from . import layout_conversion as LC
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .registry import (ShapeError, int_attr, norm_dim, register, register_cb, register_check, register_spec,
                       tensor_shape)
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Tensor, operand, result
from .work_split import corerange_to_cores, merge, split_work_to_cores

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


_SORT_TM = "tt-metal d80d9482 (ttnn 0.81.1 wheel sources) ttnn/cpp/ttnn/operations/data_movement/"
_SORT_FACTORY_SRC = _SORT_TM + "sort/device/sort_program_factory.cpp"
SORT_WT_THRESHOLD = 64  # sort_device_operation.cpp: padded Wt <= 64 -> SortProgramFactorySingleRowSingleCore
SORT_WT_THRESHOLD_UINT16_ROW_MAJOR = 32  # ... for a row-major UINT16 input
SORT_MIN_WIDTH = 64  # sort.cpp pre_sort_transform_tensor: the sort dim is padded to a power of two >= 2 x TILE_WIDTH
CROSS_CORE_MIN_TILES, CROSS_CORE_MAX_TILES = 2, 128  # get_number_of_tiles_per_core, USE_AS_MANY_CORES
U16, U32, F32 = DataType("u16"), DataType("u32"), DataType("f32")
_DRAM = MemCfg("dram", "interleaved")


def next_power_of_two(n: int) -> int:
    """``next_power_of_two`` of sort.cpp: 1 for ``n <= 1``, else the smallest power of two ``>= n``."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def sort_cores(ht: int, grid: tuple[int, int]) -> CoreRangeSet:
    """The cores of ``SortProgramFactorySingleRowSingleCore`` for ``ht`` tile rows (one row per core and loop):
    the whole grid when ``ht >= cores``, else ``ht // x`` full rows of the grid plus the first ``ht % x`` cores
    of the next row (``sort_program_factory.cpp``; measured: every campaign instance of ttnn.sort)."""
    x, y = grid
    if ht >= x * y:
        return cores_set(core_range(0, 0, x - 1, y - 1))
    return _row_fill(ht, grid)


def _row_fill(n: int, grid: tuple[int, int]) -> CoreRangeSet:
    """``n // x`` full grid rows and the first ``n % x`` cores of the next row (core (0, 0) for ``n == 0``): the
    core ranges the sort factories build for ``n`` work units below the grid size."""
    x = grid[0]
    rows, cols = divmod(n, x)
    if rows == 0:
        return cores_set(core_range(0, 0, max(cols, 1) - 1, 0))
    ranges = [core_range(0, 0, x - 1, rows - 1)]
    if cols:
        ranges.append(core_range(0, rows, cols - 1, rows))
    return cores_set(*ranges)


def sort_index_dtype(x4: Tensor) -> DataType:
    """The index dtype of ``SortDeviceOperation::compute_output_specs`` for its 4D input ``x4``: UINT32 for
    FLOAT32 and UINT16 inputs or a logical width of at least 65,535, else UINT16 (sort_device_operation.cpp)."""
    return U32 if (x4.dtype in (F32, U16) or x4.shape[-1] >= 65535) else U16


def cross_core_tiles_per_core(cores: int, wt: int) -> int:
    """``get_number_of_tiles_per_core`` with the USE_AS_MANY_CORES strategy: ``min(128, max(Wt / cores, 2))``."""
    return min(CROSS_CORE_MAX_TILES, max(wt // cores, CROSS_CORE_MIN_TILES))


def sort_factory(x4: Tensor, grid: tuple[int, int]) -> str:
    """``SortDeviceOperation::select_program_factory`` (sort_device_operation.cpp): ``SingleRowSingleCore`` for
    ``Wt <= 64`` (32 for a row-major UINT16 input), ``CrossCoreDataExchange`` for other non-UINT16 inputs when
    ``Wt <= cores x tiles per core`` (:func:`cross_core_tiles_per_core` on the whole grid), else
    ``SingleRowMultiCore``.  ``Wt`` = the padded (TILE) or logical (row-major) width / 32."""
    wt = (x4.padded[-1] if x4.tiled else x4.shape[-1]) // TILE
    n = grid[0] * grid[1]
    uint16 = x4.dtype == U16
    if wt <= (SORT_WT_THRESHOLD_UINT16_ROW_MAJOR if uint16 and not x4.tiled else SORT_WT_THRESHOLD):
        return "SingleRowSingleCore"
    if not uint16 and wt <= n * cross_core_tiles_per_core(n, wt):
        return "CrossCoreDataExchange"
    return "SingleRowMultiCore"


def _dfbs(specs: list[tuple[str, int, int]], cores: CoreRangeSet) -> list[CB]:
    return [CB(i, name, size, n, cores) for i, (name, size, n) in enumerate(specs)]


def _sort_geometry(x4: Tensor, index: DataType) -> tuple[int, int, int, int]:
    """``(Ht, Wt, sort value tile bytes, index tile bytes)`` of a sort factory's 4D input: the padded shape
    (TILE) or the logical one (row-major); UINT16 values sort as FLOAT32 tiles (``sort_value_cb_data_format``)."""
    shape = x4.padded if x4.tiled else x4.shape
    ht, wt = shape[0] * shape[1] * shape[2] // TILE, shape[3] // TILE
    value = F32.tile_bytes() if x4.dtype == U16 else x4.tile_bytes
    return ht, wt, value, index.tile_bytes()


def sort_single_core_program(x4: Tensor, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """``SortProgramFactorySingleRowSingleCore`` (sort_program_factory.cpp): one tile row per core and loop on
    :func:`sort_cores` of ``Ht`` rows.

    DFBs (value tiles of the input's format, FLOAT32 for UINT16 inputs): ``input_tensor`` and ``index_tensor``
    4 tiles (Wt when row-major), ``input_tensor_transposed`` / ``index_tensor_transposed`` Wt tiles,
    ``value_tensor`` / ``index_tensor_output`` 2 tiles (TILE only), ``synchronization`` 1,024 B; a UINT16
    TILE input adds two 1-tile UINT16 staging DFBs; a row-major input adds ``rm_input`` and
    ``rm_value_output`` (32 rows of ``W x value bytes``), ``rm_index_output`` (32 rows of ``W x index
    bytes``), ``rm_post_sort_index`` (Wt index tiles) and, for UINT16, two one-row staging DFBs.
    """
    ht, wt, value, idx = _sort_geometry(x4, index)
    cores = sort_cores(ht, grid)
    rm = not x4.tiled
    w = x4.shape[-1]
    specs = [("input_tensor", value, wt if rm else 4), ("index_tensor", idx, wt if rm else 4),
             ("input_tensor_transposed", value, wt), ("index_tensor_transposed", idx, wt)]
    if not rm:
        specs += [("value_tensor", value, 2), ("index_tensor_output", idx, 2)]
    specs.append(("synchronization", TILE * TILE, 1))
    if x4.dtype == U16 and not rm:
        specs += [("uint16_input_stage", U16.tile_bytes(), 1), ("uint16_conv", U16.tile_bytes(), 1)]
    if rm:
        specs += [("rm_input", w * value // (TILE * TILE), TILE), ("rm_value_output", w * value // (TILE * TILE), TILE),
                  ("rm_index_output", w * idx // (TILE * TILE), TILE), ("rm_post_sort_index", idx, wt)]
        if x4.dtype == U16:
            specs += [("rm_uint16_input_stage", w * 2, 1), ("rm_uint16_output_stage", w * 2, 1)]
    return ProgramModel("SortDeviceOperation::SortProgramFactorySingleRowSingleCore", _SORT_FACTORY_SRC, cores,
                        _dfbs(specs, cores), [f"{ht:,} tile rows of Wt {wt} on {cores.num_cores} cores"])


def sort_cross_core_program(x4: Tensor, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """``SortProgramFactoryCrossCoreDataExchange`` (sort_program_factory.cpp ``compute_cross_core_layout``):
    each row of ``Wt`` tiles split over ``ceil(Wt / t)`` cores, ``t`` = :func:`cross_core_tiles_per_core` on
    the largest power of two of cores (``rounddown_pow2``, 64 of 110), at most Wt; the cores fill grid rows
    (the whole grid when they are all of it).

    DFBs: ``input_tensor`` 2 input tiles (``t`` row-major), ``index_tensor`` 2 index tiles,
    ``input_tensor_transposed`` / ``index_tensor_transposed`` ``t`` tiles, ``value_tensor`` /
    ``index_tensor_output`` 2 tiles (TILE only), ``value_tensor_intermediate`` and ``value_tensor_peer``
    ``2 x value tile`` bytes in index-tile entries, ``index_tensor_intermediate`` / ``index_tensor_peer`` 2
    index tiles, a 4,096-B UINT32 core lookup table, a 2,048-B BFLOAT16 packer/unpacker sync tile, and for
    row-major inputs ``rm_input`` / ``rm_value_output`` (32 rows of ``t x 32`` values), ``rm_index_output``
    (32 rows of ``t x 32`` indices), ``rm_post_sort_index`` (``t`` index tiles).  Measured: Wt 128 bf16, f32 and
    row-major (measurements/dialect/results_scan.jsonl).

    Raises:
        DeviceRejection: a UINT16 input (TT_FATAL: it never reaches this factory through ttnn.sort).
    """
    if x4.dtype == U16:
        raise DeviceRejection("SortProgramFactoryCrossCoreDataExchange: UINT16 input (TT_FATAL)")
    ht, wt, value, idx = _sort_geometry(x4, index)
    n = grid[0] * grid[1]
    virtual = 1 << (n.bit_length() - 1)
    t = min(cross_core_tiles_per_core(virtual, wt), wt)
    used = ceil_div(wt, t)
    if used == n:
        cores = cores_set(core_range(0, 0, grid[0] - 1, grid[1] - 1))
    elif used == virtual:
        rows, cols = divmod(used, grid[0])
        ranges = [core_range(0, 0, grid[0] - 1, rows - 1)] + ([core_range(0, rows, cols - 1, rows)] if cols else [])
        cores = cores_set(*ranges)
    else:
        cores = _row_fill(used, grid)
    rm = not x4.tiled
    specs = [("input_tensor", x4.tile_bytes, t if rm else 2), ("index_tensor", idx, 2),
             ("input_tensor_transposed", x4.tile_bytes, t), ("index_tensor_transposed", idx, t)]
    if not rm:
        specs += [("value_tensor", value, 2), ("index_tensor_output", idx, 2)]
    specs += [("value_tensor_intermediate", idx, 2 * value // idx), ("index_tensor_intermediate", idx, 2),
              ("value_tensor_peer", idx, 2 * value // idx), ("index_tensor_peer", idx, 2),
              ("physical_core_lookup_table", U32.tile_bytes(), 1),
              ("packer_unpacker_sync", DataType("bf16").tile_bytes(), 1)]
    if rm:
        row_v, row_i = t * TILE * x4.element_bytes, t * TILE * index.scalar_bytes
        specs += [("rm_input", row_v, TILE), ("rm_value_output", row_v, TILE), ("rm_index_output", row_i, TILE),
                  ("rm_post_sort_index", idx, t)]
    return ProgramModel("SortDeviceOperation::SortProgramFactoryCrossCoreDataExchange", _SORT_FACTORY_SRC, cores,
                        _dfbs(specs, cores), [f"{ht:,} tile rows of Wt {wt}, {t} tiles per core on {used} cores"])


def sort_multi_core_program(x4: Tensor, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """``SortProgramFactorySingleRowMultiCore`` (sort_program_factory.cpp): a coordinator on the last core of the
    grid and ``Wt / 2`` tile pairs over the other cores (all but the coordinator when there are at least as
    many pairs, else grid rows filled from (0, 0)).

    DFBs (value tiles FLOAT32 for UINT16 inputs): on the coordinator (TILE) ``coord_input_tensor`` /
    ``coord_index_tensor`` 2 tiles; on the workers ``input_tensor``, ``index_tensor``,
    ``input_tensor_transposed``, ``index_tensor_transposed``, ``input_tensor_output``,
    ``index_tensor_output`` 2 tiles each; row-major: ``rm_coord_value_row`` / ``rm_coord_index_row`` (one
    32-element row) and ``rm_worker_*`` (32 rows of a tile pair); UINT16: two 1-tile staging DFBs.  Measured
    (TILE and row-major, bf16 / f32 / UINT16): measurements/dialect/results_scan.jsonl.
    """
    ht, wt, value, idx = _sort_geometry(x4, index)
    pairs = wt // 2
    n = grid[0] * grid[1]
    coord = cores_set(core_range(grid[0] - 1, grid[1] - 1, grid[0] - 1, grid[1] - 1))
    if pairs // (n - 1) > 0:
        workers = cores_set(core_range(0, 0, grid[0] - 1, grid[1] - 2), core_range(0, grid[1] - 1, grid[0] - 2, grid[1] - 1))
    else:
        workers = _row_fill(pairs, grid)
    rm = not x4.tiled
    in_tile = value if x4.dtype == U16 else x4.tile_bytes
    cbs: list[CB] = []
    if not rm:
        cbs += [CB(0, "coord_input_tensor", in_tile, 2, coord), CB(1, "coord_index_tensor", idx, 2, coord)]
    for name, size in (("input_tensor", in_tile), ("index_tensor", idx), ("input_tensor_transposed", value),
                       ("index_tensor_transposed", idx), ("input_tensor_output", value), ("index_tensor_output", idx)):
        cbs.append(CB(len(cbs), name, size, 2, workers))
    if rm:
        row_v, row_i = TILE * x4.element_bytes, TILE * index.scalar_bytes
        pair_v, pair_i = 2 * TILE * value // (TILE * TILE), 2 * row_i
        cbs += [CB(len(cbs), "rm_coord_value_row", row_v, 1, coord), CB(len(cbs) + 1, "rm_coord_index_row", row_i, 1, coord)]
        for name, size in (("rm_worker_input_value", pair_v), ("rm_worker_input_index", pair_i),
                           ("rm_worker_output_value", pair_v), ("rm_worker_output_index", pair_i)):
            cbs.append(CB(len(cbs), name, size, TILE, workers))
    if x4.dtype == U16:
        cbs += [CB(len(cbs), "uint16_input_stage", U16.tile_bytes(), 1, workers),
                CB(len(cbs) + 1, "uint16_conv", U16.tile_bytes(), 1, workers)]
    return ProgramModel("SortDeviceOperation::SortProgramFactorySingleRowMultiCore", _SORT_FACTORY_SRC,
                        cores_set(*coord.ranges, *workers.ranges), cbs,
                        [f"{ht:,} tile rows of Wt {wt}: {pairs:,} tile pairs on {workers.num_cores} workers and a "
                         "coordinator"])


def sort_device_program(x4: Tensor, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """The program of ``ttnn::prim::sort`` on its 4D, power-of-two-wide input ``x4`` (:func:`sort_factory`)."""
    kind = sort_factory(x4, grid)
    if kind == "SingleRowSingleCore":
        return sort_single_core_program(x4, index, grid)
    if kind == "CrossCoreDataExchange":
        return sort_cross_core_program(x4, index, grid)
    return sort_multi_core_program(x4, index, grid)


def clone_program(x: Tensor, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``CloneProgramFactory`` (``clone/device/clone_program_factory.cpp``) from ``x`` to ``out`` (its dtype and
    memory config): units are tiles (TILE) or rows; DFB ``src`` 2 units of the input (aligned to the input
    buffer's alignment), ``dst`` 2 output units when the dtype changes; on the work split of the units
    (interleaved) or the output's shard grid (sharded; a row-major unit is then a shard row)."""
    tiled = out.tiled
    if out.sharded:
        cores = out.shard.grid
        in_unit = x.tile_bytes if tiled else out.shard.shape[1] * x.element_bytes
        out_unit = out.tile_bytes if tiled else out.shard.shape[1] * out.element_bytes
        units = out.shard.tiles if tiled else out.shard.shape[0]
    else:
        units = out.physical_volume // (TILE * TILE) if tiled else out.physical_volume // max(out.shape[-1], 1)
        cores = merge(corerange_to_cores(split_work_to_cores(grid, units).all_cores))
        in_unit = x.tile_bytes if tiled else out.shape[-1] * x.element_bytes
        out_unit = out.tile_bytes if tiled else out.shape[-1] * out.element_bytes
    specs = [("src", align_up(in_unit, x.alignment), 2)]
    if x.dtype != out.dtype:
        specs.append(("dst", align_up(out_unit, x.alignment), 2))
    return ProgramModel("CloneOperation::CloneProgramFactory", _SORT_TM + "clone/device/clone_program_factory.cpp",
                        cores, _dfbs(specs, cores), [f"{units:,} units on {cores.num_cores} cores"])


@dataclass(frozen=True)
class SortCall:
    """One ``ttnn.sort`` call as tt-mlir's runtime makes it: input, normalized dim, requested memory config."""

    x: Tensor
    dim: int
    mem: MemCfg

    @property
    def dim_last(self) -> bool:
        return self.dim == self.x.rank - 1

    @property
    def early_exit(self) -> bool:
        """sort.cpp returns ``clone`` + ``zeros_like`` for a scalar, ``[1]``, an empty tensor or a sort dim of 1."""
        return self.x.rank == 0 or self.x.shape == (1,) or self.x.volume == 0 or self.x.shape[self.dim] == 1


def sort_call(ctx: CBContext) -> SortCall:
    """The call the runtime makes for ``ctx.op`` (``ttnn::sort(x, dim, descending, stable, memory_config)``,
    the result's memory config).

    Raises:
        DeviceRejection: dim out of range (TT_FATAL in sort.cpp).
    """
    x = operand(ctx, 0)
    dim = int_attr(ctx.op, "dim", -1)
    if x.rank and not -x.rank <= dim < x.rank:
        raise DeviceRejection(f"Sort dim {dim} is out of range for rank-{x.rank} tensor (sort.cpp TT_FATAL)")
    return SortCall(x, dim + x.rank if dim < 0 else dim, result(ctx, 0).mem)


def _to_4d(t: Tensor) -> tuple[int, ...]:
    """``unsqueeze_to_4D`` (rank <= 4) or ``squeeze_from_ND_to_4D`` (rank > 4) of ``t``'s shape."""
    s = t.shape
    return (1,) * (4 - len(s)) + s if len(s) <= 4 else (prod(s[:-3]),) + s[-3:]


def _validate_prim(x4: Tensor) -> None:
    """``SortDeviceOperation::validate_on_program_cache_miss`` on the padded 4D input (the dtype is checked
    before the transforms).

    Raises:
        DeviceRejection: a width that is not a power of two >= 64 (a row-major sort dim of 2 to 31: sort.cpp
            pads it to the next power of two only).
    """
    w = x4.padded[-1] if x4.tiled else x4.shape[-1]
    if w < SORT_MIN_WIDTH or w & (w - 1):
        raise DeviceRejection(f"Input shape inner dim {w} must be a power of two >= 64 (sort_device_operation.cpp "
                              "TT_FATAL; sort.cpp pads a row-major sort dim below 32 only to the next power of two)")


def _pre_steps(x: Tensor, ctx: CBContext) -> tuple[list[ProgramModel], Tensor]:
    """``pre_sort_transform_tensor`` (sort.cpp) of the (interleaved) input ``x`` whose sort dim is last: the
    programs and the 4D tensor the device operation sorts.

    TILE: ``fill_implicit_tile_padding``; row-major: a ``ttnn.pad`` of H so that ``N*C*H`` is a tile multiple.
    Then, unless the (tile-padded) width is already a power of two above 32, a ``ttnn.pad`` (use_multicore) of
    the width to the next power of two, at least 64: its own tile-padding fill and ``PadTileMulticore``
    (TILE), or the row-major pad.
    """
    grid = ctx.grid
    steps: list[ProgramModel] = []
    s4 = _to_4d(x)
    if x.rank > 4:
        steps += DM.reshape_steps(x, s4, x.with_(shape=s4), ctx)
    t = x.with_(shape=s4)
    if t.tiled:
        steps += DM.fill_pad_program(t, grid, ctx.arch)
    else:
        nc = s4[0] * s4[1]
        if nc * s4[2] % TILE:
            align = TILE // gcd(TILE, nc)
            out = s4[:2] + (align_up(s4[2], align), s4[3])
            steps.append(DM.pad_rm_program(t, out, (0, 0, 0, 0), True, ctx.arch, grid))
            t = t.with_(shape=out)
    w = t.padded[-1] if t.tiled else t.shape[-1]
    wp = next_power_of_two(w)
    if wp == w and w > TILE:
        return steps, t
    if wp == TILE:
        wp = 2 * TILE
    out = t.with_(shape=t.shape[:-1] + (wp,))
    if t.tiled:
        steps += DM.fill_pad_program(t, grid, ctx.arch)
        steps.append(DM.pad_tile_program(t, out.padded, True, grid))
    else:
        steps.append(DM.pad_rm_program(t, out.shape, (0, 0, 0, 0), True, ctx.arch, grid))
    return steps, out


def sort_steps(call: SortCall, ctx: CBContext) -> tuple[list[ProgramModel], list[Tensor]]:
    """The device programs of ``ttnn.sort`` (``data_movement/sort/sort.cpp``, ttnn 0.81.1) in order, and the
    two results (values, indices).

    1. early exit (:attr:`SortCall.early_exit`): ``clone`` into the requested config (:func:`clone_program`)
       and ``zeros_like`` (no program; measured);
    2. a sharded input goes to DRAM first (``to_memory_config``);
    3. another dim than the last is transposed to the last (into the input's memory config), then the 4D view
       and :func:`_pre_steps`;
    4. :func:`sort_device_program` into the requested config (DRAM interleaved when it is sharded);
    5. ``post_sort_transform_tensor``: both results sliced back to the sort dim's size (SliceTile, or the
       row-major slice, also for the H rows a row-major input was padded by), reshaped to the input's rank
       (views), transposed back into the input's memory config for another dim;
    6. both moved into a sharded requested config.

    Raises:
        DeviceRejection: :func:`_validate_prim`.
        CBModelError: the other ops' models' limits (sharded transposes, ...).
    """
    x, grid, arch = call.x, ctx.grid, ctx.arch
    index_out = U32 if x.dtype in (F32, U16) else U16
    if call.early_exit:
        out = x.with_(mem=call.mem)
        return [clone_program(x, out, grid)], [out, out.with_(dtype=index_out)]
    if x.dtype.name not in ("bf16", "u16", "f32"):  # the device operation refuses it after the transforms
        raise DeviceRejection(f"Input tensor data type must be BFLOAT16, UINT16, or FLOAT32, got {x.dtype} "
                              "(sort_device_operation.cpp TT_FATAL)")
    steps: list[ProgramModel] = []
    src = x
    if x.sharded:
        prog = LC.to_memory_config_program(x, x.with_(mem=_DRAM), arch)
        steps += [prog] if prog is not None else []
        src = x.with_(mem=_DRAM)
    moved = src
    if not call.dim_last:
        swapped = list(x.shape)
        swapped[call.dim], swapped[-1] = swapped[-1], swapped[call.dim]
        moved = src.with_(shape=tuple(swapped))
        steps += DM.transpose_steps(src, call.dim, x.rank - 1, moved, grid, arch)
    pre, x4 = _pre_steps(moved, ctx)
    steps += pre
    _validate_prim(x4)
    index = sort_index_dtype(x4)
    op_mem = _DRAM if call.mem.sharded else call.mem
    prog = sort_device_program(x4, index, grid)
    steps.append(prog)
    outs = [x4.with_(mem=op_mem), x4.with_(mem=op_mem, dtype=index)]
    # post_sort_transform_tensor: W back to the sort dim's size, then H rows a row-major input was padded by
    if x4.shape[-1] != moved.shape[-1]:
        shape = x4.shape[:-1] + (moved.shape[-1],)
        steps += [_slice(t, shape, ctx) for t in outs]
        outs = [t.with_(shape=shape) for t in outs]
    rows = moved.volume // moved.shape[-1]
    if prod(outs[0].shape[:3]) != rows:
        nc = outs[0].shape[0] * outs[0].shape[1]
        shape = outs[0].shape[:2] + (rows // nc, outs[0].shape[3])
        steps += [_slice(t, shape, ctx) for t in outs]
        outs = [t.with_(shape=shape) for t in outs]
    for i, t in enumerate(outs):
        if x.rank > 4:
            steps += DM.reshape_steps(t, moved.shape, t.with_(shape=moved.shape), ctx)
        outs[i] = t.with_(shape=moved.shape)
    if not call.dim_last:
        for i, t in enumerate(outs):
            back = t.with_(shape=x.shape, mem=x.mem)
            steps += DM.transpose_steps(t, call.dim, x.rank - 1, back, grid, arch)
            outs[i] = back
    if call.mem.sharded:
        for i, t in enumerate(outs):
            prog = LC.to_memory_config_program(t, t.with_(mem=call.mem), arch)
            steps += [prog] if prog is not None else []
            outs[i] = t.with_(mem=call.mem)
    return steps, outs


def _slice(t: Tensor, shape: tuple[int, ...], ctx: CBContext) -> ProgramModel:
    """``ttnn.slice`` of a 4D sort result from the origin to ``shape``, into its own memory config: SliceTile
    (TILE) or the row-major slice factory."""
    if t.tiled:
        return DM.slice_tile_program(t, shape, ctx.grid)
    return DM.slice_rm_program(t, [0, 0, 0, 0], t.with_(shape=shape), ctx.grid, ctx.max_l1_space)


@register_cb("ttnn.sort")
def sort_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.sort``: the programs of :func:`sort_steps`."""
    return sort_steps(sort_call(ctx), ctx)[0]


@register_spec("ttnn.sort")
def sort_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``ttnn.sort`` returns (:func:`sort_steps`): the input's shape and layout; values in the input's
    dtype, indices UINT32 for FLOAT32 / UINT16 inputs or a padded sort dim of at least 65,535, else UINT16;
    the requested memory config, but the input's for a sort over another dim than the last (sort.cpp
    transposes back into the input's config) unless the requested one is sharded."""
    return [t.spec() for t in sort_steps(sort_call(ctx), ctx)[1]]


register_check("ttnn.sort", "mock", "tests/test_cb_sort.py against the opdiff campaign (measurements/opdiff), "
               "tests/test_ops_dialect_scan.py against measurements/dialect/results_scan.jsonl",
               ("SortDeviceOperation",))


_ACC_SRC = ("tt-metal d80d9482 ttnn/cpp/ttnn/operations/reduction/accumulation/: the composite of "
            "accumulation_common.cpp (@10581a86, the stored version with the tile-axis path), the DFBs the ttnn 0.81.1 "
            "wheel's kernels name (accumulation_compute.cpp: in, out, acc, comp; accumulation_tile_axis_compute.cpp: "
            "in, out), sizes and work split measured on the mock")
ACCUMULATION_CB_TILES = 4  # in / out DFB depth of AccumulationProgramFactory (measured: 4 tiles each)
ACCUMULATION_ACC_BYTES = 4096  # the accumulator and Kahan-compensation DFBs: one 32-bit (FLOAT32) tile each
_SCAN_DTYPES = ("bf16", "f32", "si32")


def is_tile_axis_scan(x4: Tensor, axis: int, op: str) -> bool:
    """Whether ``accumulation_common.cpp`` runs the scan in place along a tile axis (``is_tile_axis_accumulation``):
    a bfloat16 ``cumsum`` along H or W of the 4D view (the tile-axis kernel, ``cumsum_tile``, scans columns of a
    tile and carries the totals; ``SCAN_WIDTH`` transposes each tile around it).  Measured: bf16 cumsum along W
    runs it; f32 cumsum along H and every cumprod permute the axis to dim 0 instead."""
    return op == "cumsum" and x4.dtype.name == "bf16" and axis in (x4.rank - 2, x4.rank - 1)


def tile_axis_program(x: Tensor, axis: int, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``AccumulationProgramFactory`` on the tile-axis kernel: one run of tiles along H (``axis == rank - 2``) or
    W per work unit, ``physical volume / 1,024 / tiles along the axis`` units split by ``split_work_to_cores``
    (column-major), DFBs ``in`` and ``out`` of 4 tiles each on the merge of the cores."""
    along = x.padded[axis] // TILE
    rows = x.physical_volume // (TILE * TILE) // along
    cores = merge(corerange_to_cores(split_work_to_cores(grid, rows).all_cores))
    cbs = [CB(0, "in", x.tile_bytes, ACCUMULATION_CB_TILES, cores), CB(1, "out", out.tile_bytes, ACCUMULATION_CB_TILES, cores)]
    return ProgramModel("AccumulationDeviceOperation::AccumulationProgramFactory", _ACC_SRC, cores, cbs,
                        [f"tile-axis scan along {'H' if axis == x.rank - 2 else 'W'}: {rows:,} runs of {along} tiles "
                         f"on {cores.num_cores} cores"])


def accumulation_program(x: Tensor, axis: int, out: Tensor, op: str, grid: tuple[int, int]) -> ProgramModel:
    """``AccumulationProgramFactory`` along a dim above the last two (``axis <= rank - 3``): ``padded[axis]``
    tiles per scan row, ``physical volume / 1,024 / padded[axis]`` rows split by ``split_work_to_cores``
    (column-major).  DFBs on the merge of the cores: ``in`` 4 input tiles, ``out`` 4 output tiles, ``acc`` one
    4,096-B tile, and ``comp`` (Kahan compensation) one 4,096-B tile for a FLOAT32 cumsum (measured: cumsum
    f32 4 DFBs, bf16 3, cumprod 3)."""
    along = x.padded[axis]
    rows = x.physical_volume // (TILE * TILE) // along
    cores = merge(corerange_to_cores(split_work_to_cores(grid, rows).all_cores))
    cbs = [CB(0, "in", x.tile_bytes, ACCUMULATION_CB_TILES, cores),
           CB(1, "out", out.tile_bytes, ACCUMULATION_CB_TILES, cores), CB(2, "acc", ACCUMULATION_ACC_BYTES, 1, cores)]
    if op == "cumsum" and out.dtype.name == "f32":
        cbs.append(CB(3, "comp", ACCUMULATION_ACC_BYTES, 1, cores))
    return ProgramModel("AccumulationDeviceOperation::AccumulationProgramFactory", _ACC_SRC, cores, cbs,
                        [f"{op} along dim {axis}: {rows:,} rows of {along} tiles on {cores.num_cores} cores"])


def scan_steps(ctx: CBContext, op: str) -> list[ProgramModel]:
    """The device programs of ``ttnn.cumsum`` / ``ttnn.cumprod`` (``accumulation_invoke``, accumulation_common.cpp).

    A rank-0 or empty input is a ``clone``.  Otherwise, when the dim is one of the last three: a tensor of rank
    < 4 is viewed as 4D; a bf16 cumsum along H or W runs in place (:func:`tile_axis_program`); any other
    scan permutes the dim with dim 0 (``ttnn.permute``, in the input's memory config), accumulates along dim 0
    (:func:`accumulation_program`, into the requested memory config) and permutes back.  A dim above the last
    three (rank >= 4) accumulates in place.

    Raises:
        CBModelError: a dtype change (typecast first), sharded, row-major or block-float tensors, dtypes other
            than bf16/f32/int32 (not measured).
        DeviceRejection: dim out of range (TT_FATAL).
    """
    x, out = operand(ctx, 0), result(ctx)
    grid = ctx.grid
    if x.rank == 0 or x.volume == 0:
        return [clone_program(x, x.with_(mem=out.mem), grid)]
    dim = int_attr(ctx.op, "dim")
    if not -x.rank <= dim < x.rank:
        raise DeviceRejection(f"The requested accumulation axis is {dim}, while the input tensor has rank {x.rank} "
                              "(accumulation_common.cpp TT_FATAL)")
    axis = dim + x.rank if dim < 0 else dim
    if x.sharded or out.sharded or not x.tiled:
        raise CBModelError(f"{op} of a sharded or row-major tensor is not modeled (the device operation needs an "
                           "interleaved TILE input)")
    if x.dtype.name not in _SCAN_DTYPES or out.dtype != x.dtype:
        raise CBModelError(f"{op} of {x.dtype} into {out.dtype} is not modeled (measured: bf16, f32, int32, no "
                           "dtype change)")
    res = x.with_(mem=out.mem)
    if x.rank - axis >= 4:
        return [accumulation_program(x, axis, res, op, grid)]
    x4 = x.with_(shape=(1,) * (4 - x.rank) + x.shape) if x.rank < 4 else x
    a4 = axis + x4.rank - x.rank
    if is_tile_axis_scan(x4, a4, op):
        return [tile_axis_program(x4, a4, res.with_(shape=x4.shape), grid)]
    perm = list(range(x4.rank))
    perm[0], perm[a4] = a4, 0
    moved = x4.with_(shape=tuple(x4.shape[d] for d in perm))
    acc_out = moved.with_(mem=out.mem)
    return (DM._permute_steps(x4, tuple(perm), moved, grid, ctx.arch)
            + [accumulation_program(moved, 0, acc_out, op, grid)]
            + DM._permute_steps(acc_out, tuple(perm), acc_out.with_(shape=x4.shape), grid, ctx.arch))


@register_cb("ttnn.cumsum")
def cumsum_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.cumsum``: :func:`scan_steps`."""
    return scan_steps(ctx, "cumsum")


@register_cb("ttnn.cumprod")
def cumprod_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.cumprod``: :func:`scan_steps`."""
    return scan_steps(ctx, "cumprod")


register_check(("ttnn.cumsum", "ttnn.cumprod"), "mock", "tests/test_ops_dialect_rest.py against "
               "measurements/dialect/results_rest.jsonl and tests/test_ops_dialect_scan.py against results_scan.jsonl",
               ("AccumulationDeviceOperation",))


_SCATTER_SRC = _SORT_TM + "scatter/"
SCATTER_INT32_TILE_AXIS_MAX = 256  # scatter.cpp check_support: int32 TILE operands along longer scatter axes refused
SCATTER_REDUCTIONS = {"sum": "add", "prod": "multiply", "max": "amax", "min": "amin"}  # tt-mlir runtime scatter.cpp


def ceil32(n: int) -> int:
    """``ceil32`` of scatter_common.hpp: ``n`` rounded up to a multiple of 32."""
    return align_up(n, 32)


def scatter_chunk(max_l1_space: int) -> int:
    """``calculate_optimal_chunk_size`` (scatter_common.hpp): elements of one stick chunk,
    ``ceil32(max_l1_space / 16 * 9 / 10 - 32)``."""
    return ceil32(max_l1_space // 4 // 4 * 9 // 10 - 32)


def scatter_program(x4: Tensor, index4: Tensor, source4: Tensor, reduce: bool, grid: tuple[int, int],
                    max_l1_space: int) -> ProgramModel:
    """``ScatterProgramFactory``, or ``ScatterReduceBfloat16ProgramFactory`` for a reduction into a bfloat16 input
    (scatter_device_operation.cpp ``select_program_factory``): the row-major 4D operands' sticks (``volume /
    last dim``) split by ``split_work_to_cores`` over the grid; each stick read in chunks of at most
    :func:`scatter_chunk` elements (the index and source chunks from the index tensor's L1 figure, the same here).
    DFB ``output`` one ``ceil32(chunk x element)`` entry; scratchpads ``input``, ``index``, ``source`` of one chunk
    each (and ``fp32_temp``, the input chunk in FLOAT32, for the bfloat16 reduction), all on the merge of the
    cores (``scatter_program_factory.cpp``, ``scatter_reduce_bfloat16_program_factory.cpp``)."""
    chunk = scatter_chunk(max_l1_space)
    bf16_reduce = reduce and x4.dtype.name == "bf16"
    io = ceil32(min(x4.shape[-1], chunk) * x4.element_bytes)
    idx = ceil32(min(index4.shape[-1], chunk) * index4.element_bytes)
    src = ceil32(min(source4.shape[-1], chunk) * source4.element_bytes)
    scratch = io + idx + src + (ceil32(min(x4.shape[-1], chunk) * 4) if bf16_reduce else 0)
    units = x4.volume // x4.shape[-1]
    cores = merge(corerange_to_cores(split_work_to_cores(grid, units).all_cores))
    factory = "ScatterReduceBfloat16ProgramFactory" if bf16_reduce else "ScatterProgramFactory"
    source = "scatter_reduce_bfloat16_program_factory.cpp" if bf16_reduce else "scatter_program_factory.cpp"
    return ProgramModel(f"ScatterDeviceOperation::{factory}", _SCATTER_SRC + "device/" + source, cores,
                        [CB(0, "output", io, 1, cores)],
                        [f"{units:,} sticks of {x4.shape[-1]} on {cores.num_cores} cores; scratchpads {scratch:,} B"],
                        scratch)


def _check_scatter_support(ts: list[Tensor], axis: int) -> None:
    """``check_support`` of scatter.cpp.

    Raises:
        DeviceRejection: a FLOAT32 TILE input or source, an INT32/UINT32 TILE operand longer than 256 along the
            scatter axis (TT_FATAL: ttnn's to_layout limits).
    """
    for name, t in zip(("input", "index", "source"), ts):
        if name != "index" and t.dtype.name == "f32" and t.tiled:
            raise DeviceRejection(f"Scatter doesn't work for fp32 tiled tensors yet - {name} tensor (scatter.cpp TT_FATAL)")
        if t.dtype.name in ("u32", "si32") and t.tiled and t.shape[axis] > SCATTER_INT32_TILE_AXIS_MAX:
            raise DeviceRejection(f"Scatter doesn't work for int32 tensors that have scatter row longer than "
                                  f"{SCATTER_INT32_TILE_AXIS_MAX} elements - {name} tensor (scatter.cpp TT_FATAL)")


def scatter_steps(ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.scatter(input, dim, index, source, memory_config, reduce)`` (scatter.cpp,
    ttnn 0.81.1), as tt-mlir's runtime calls it (the result's memory config; ``scatter_reduce_type`` sum / prod /
    max / min as add / multiply / amax / amin).

    For each operand (the source first sliced to the index's shape): ``to_layout`` row-major when TILE, a
    transpose of ``dim`` to the last dim (in the operand's memory config), the 4D view; then
    :func:`scatter_program` into the requested config; the view back, the transpose back and ``to_layout`` TILE
    for a TILE input.  An empty input or index runs nothing.

    Raises:
        DeviceRejection: :func:`_check_scatter_support`; dim out of range (TT_FATAL).
        CBModelError: sharded operands or result (not modeled), the layout models' limits.
    """
    x, index, source, out = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), result(ctx)
    dim = int_attr(ctx.op, "dim")
    if not -x.rank <= dim < x.rank:
        raise DeviceRejection(f"scatter: dim {dim} is out of range for tensor rank {x.rank} (TT_FATAL)")
    axis = dim + x.rank if dim < 0 else dim
    _check_scatter_support([x, index, source], axis)
    if x.rank == 0 or x.volume == 0 or index.rank == 0 or index.shape[axis] == 0:
        return []
    if any(t.sharded for t in (x, index, source, out)):
        raise CBModelError("scatter of sharded tensors is not modeled")
    red = ctx.op.attrs.get("scatter_reduce_type")
    reduce = getattr(red, "value", red) in SCATTER_REDUCTIONS
    steps: list[ProgramModel] = []
    prepared: list[Tensor] = []
    for t, sliced in ((x, None), (index, None), (source, index.shape)):
        if sliced is not None and sliced != t.shape:
            steps += DM._slice_steps(t, [(0, n, 1, n) for n in sliced], t.with_(shape=tuple(sliced)), ctx)
            t = t.with_(shape=tuple(sliced))
        if t.tiled:
            rm = t.with_(layout="row_major", dtype=DataType("bf16") if t.dtype.is_block_float else t.dtype)
            steps += DM._to_row_major(t, rm, ctx)
            t = rm
        if axis != t.rank - 1:
            swapped = list(t.shape)
            swapped[axis], swapped[-1] = swapped[-1], swapped[axis]
            moved = t.with_(shape=tuple(swapped))
            steps += DM.transpose_steps(t, axis, t.rank - 1, moved, ctx.grid, ctx.arch)
            t = moved
        prepared.append(t.with_(shape=(1,) * (4 - t.rank) + t.shape) if t.rank < 4 else t)
    x4, index4, source4 = prepared
    steps.append(scatter_program(x4, index4, source4, reduce, ctx.grid, ctx.max_l1_space))
    res = x4.with_(mem=out.mem, shape=prepared[0].shape[4 - x.rank:] if x.rank < 4 else x4.shape)
    if axis != x.rank - 1:
        back = res.with_(shape=x.shape)
        steps += DM.transpose_steps(res, axis, x.rank - 1, back, ctx.grid, ctx.arch)
        res = back
    if x.tiled:
        steps += DM._to_tile(res, out, ctx)
    return steps


@register_cb("ttnn.scatter")
def scatter_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.scatter``: :func:`scatter_steps`."""
    return scatter_steps(ctx)


register_check("ttnn.scatter", "mock", "tests/test_ops_dialect_rest.py against measurements/dialect/results_rest.jsonl",
               ("ScatterDeviceOperation",))


_GATHER_SRC = _SORT_TM + "gather/"
GATHER_WT_THRESHOLD = 60  # gather_device_operation.cpp: native SingleRowSingleCore up to 60 tiles of input and index
GATHER_WRITE_BATCH_TILES = 4  # kGatherWriteBatchTiles (gather_codegen_program_factory.hpp)
GATHER_UINT16_MAX_AXIS = 65536  # supported_by_codegen: a UINT16 index addresses at most this many positions


def _gather_rect(n: int, grid: tuple[int, int]) -> CoreRangeSet:
    """``gather_rect_core_range_set(n, grid)``: ``n`` cores filling grid columns (x) of ``grid.y`` cores each,
    ``[(0, 0) - (n / y - 1, y - 1)]`` and the ``n % y`` first cores of the next column."""
    full, rem = divmod(n, grid[1])
    ranges = ([core_range(0, 0, full - 1, grid[1] - 1)] if full else []) + \
        ([core_range(full, 0, full, rem - 1)] if rem else [])
    return cores_set(*ranges)


def gather_codegen_program(x4: Tensor, idx4: Tensor, out4: Tensor, grid: tuple[int, int], usable_l1: int) -> ProgramModel:
    """The ``GatherCodegenDeviceOperation`` program (``gather/codegen/gather_codegen_program_factory.cpp``) for a
    bfloat16 TILE input: with ``Ht`` = index tile rows, ``Wt_input`` / ``Wt_index`` the widths in tiles and
    ``out_tiles = max(Wt_index, 4)``, the row-buffered plan (``Wt_input + 1 + out_tiles`` pages) when it fits the
    free L1 (``gather_interleaved_fits_l1``): the Tiled factory (``Ht x Wt_index`` units) for ``Wt_index >= 2`` and
    ``Ht`` below the core count, else the Interleaved one (``Ht`` units); CBs ``c_0`` Wt_input input tiles, ``c_1``
    one index tile, ``c_2`` out_tiles output tiles.  Otherwise the Streaming factory (``Wt_index`` units): ``c_0``
    a chunk of ``ceil(Wt_input / ceil(Wt_input / resident))`` input tiles (``resident`` = what the free L1 holds
    beside one index and one input page, at least 2), one index and one output tile.  Units go to
    ``split_work_to_cores`` (column-major) over ``min(units, cores)`` cores filling grid columns."""
    ht = idx4.physical_volume // idx4.padded[-1] // TILE
    wt_in, wt_idx = x4.padded[-1] // TILE, idx4.padded[-1] // TILE
    pin, pidx, pout = x4.tile_bytes, idx4.tile_bytes, out4.tile_bytes
    out_tiles = max(wt_idx, GATHER_WRITE_BATCH_TILES)
    n = grid[0] * grid[1]
    if wt_in * pin + pidx + out_tiles * pout <= usable_l1:
        tiled = wt_idx >= 2 and ht < n
        factory, units = ("GatherCodegenProgramFactoryTiled", ht * wt_idx) if tiled else \
            ("GatherCodegenProgramFactoryInterleaved", ht)
        specs = [("input", pin, wt_in), ("index", pidx, 1), ("output", pout, out_tiles)]
    else:
        resident = min(max((usable_l1 - pidx - pin) // pin if usable_l1 > pidx + pin else 0, 2), wt_in)
        chunk = ceil_div(wt_in, ceil_div(wt_in, resident))
        factory, units = "GatherCodegenProgramFactoryStreaming", wt_idx
        specs = [("input", pin, chunk), ("index", pidx, 1), ("output", pout, 1)]
    cores = _gather_rect(min(units, n), grid)
    return ProgramModel(f"GatherCodegenDeviceOperation::{factory}", _GATHER_SRC + "codegen/gather_codegen_program_factory.cpp",
                        cores, _dfbs(specs, cores), [f"{ht:,} tile rows, Wt {wt_in} -> {wt_idx}: {units:,} units on "
                                                     f"{cores.num_cores} cores"])


def gather_native_program(x4: Tensor, idx4: Tensor, out4: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``GatherDeviceOperation`` on TILE tensors (``gather/device/gather_program_factory.cpp``):
    ``SingleRowSingleCore`` when both widths are at most 60 tiles (``Ht`` index tile rows over the grid row by
    row; CBs ``c_0`` Wt_input input tiles, ``c_1`` / ``c_2`` one index / output tile), else ``SingleRowMultiCore``
    (``Wt_index`` units row by row; ``c_0`` 2 input tiles)."""
    ht = idx4.physical_volume // idx4.padded[-1] // TILE
    wt_in, wt_idx = x4.padded[-1] // TILE, idx4.padded[-1] // TILE
    single = wt_in <= GATHER_WT_THRESHOLD and wt_idx <= GATHER_WT_THRESHOLD
    units = ht if single else wt_idx
    cores = split_work_to_cores(grid, units, row_wise=True).all_cores
    specs = [("input", x4.tile_bytes, wt_in if single else 2), ("index", idx4.tile_bytes, 1), ("output", out4.tile_bytes, 1)]
    factory = "SingleRowSingleCore" if single else "SingleRowMultiCore"
    return ProgramModel(f"GatherDeviceOperation::{factory}", _GATHER_SRC + "device/gather_program_factory.cpp", cores,
                        _dfbs(specs, cores), [f"{ht:,} tile rows, Wt {wt_in} -> {wt_idx} on {cores.num_cores} cores"])


def gather_steps(ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.gather(input, dim, index, memory_config)`` (gather.cpp, ttnn 0.81.1).

    The index: transposed (dim to the last, its memory config) when dim is not last, the 4D view, its tile
    padding filled.  The input: the same transpose, for rank > 4 a slice of the dims the 4D fold merges to the
    index's extents, the 4D view, a slice to the index's padded leading dims (its memory config; none when
    the shape stays), its tile padding filled.  Then the codegen program (:func:`gather_codegen_program`: a
    bfloat16 input, TILE operands, an interleaved result, a UINT16 index only for an axis of at most 65,536) or
    the native one (:func:`gather_native_program`); the view back and the transpose back into the index's
    memory config.

    Raises:
        CBModelError: row-major or sharded operands, a sharded result (not modeled).
        DeviceRejection: dim out of range; an index of another rank; a rank-1 gather (ttnn 0.81.1 fails it).
    """
    x, idx, out = operand(ctx, 0), operand(ctx, 1), result(ctx)
    if x.rank != idx.rank:
        raise DeviceRejection(f"Input and index tensor must have the same number of dimensions. Got input dim: "
                              f"{x.rank} and index dim: {idx.rank} (gather.cpp TT_FATAL)")
    if x.rank == 0 or idx.rank == 0:
        return []
    dim = int_attr(ctx.op, "dim")
    if not -x.rank <= dim < x.rank:
        raise DeviceRejection(f"gather: dim {dim} is out of range for tensor rank {x.rank} (TT_FATAL)")
    axis = dim + x.rank if dim < 0 else dim
    if x.rank == 1:
        # measured (campaign instances g1/ttnn.gather/6, 35, ...): every rank-1 gather fails
        raise DeviceRejection("gather of a rank-1 tensor: post_gather_transform_tensor squeezes the 4D result to rank 1, "
                              "which tt-metal refuses (shape.cpp TT_FATAL \"Can't convert shape rank\"; an index of "
                              "shape [1] fails earlier, ShapeBase[] index out of range)")
    if not (x.tiled and idx.tiled) or any(t.sharded for t in (x, idx, out)):
        raise CBModelError("gather of row-major or sharded tensors is not modeled")
    grid, arch = ctx.grid, ctx.arch
    last = axis == x.rank - 1
    steps: list[ProgramModel] = []

    def moved(t: Tensor) -> Tensor:
        s = list(t.shape)
        s[axis], s[-1] = s[-1], s[axis]
        return t.with_(shape=tuple(s))

    def to4(t: Tensor) -> Tensor:
        s = t.shape
        return t.with_(shape=(1,) * (4 - len(s)) + s if len(s) <= 4 else (prod(s[:-3]),) + s[-3:])

    it = idx
    if not last:
        steps += DM.transpose_steps(idx, axis, x.rank - 1, moved(idx), grid, arch)
        it = moved(idx)
    idx4 = to4(it)
    steps += DM.fill_pad_program(idx4, grid, arch)
    xt = x
    if not last:
        steps += DM.transpose_steps(x, axis, x.rank - 1, moved(x), grid, arch)
        xt = moved(x)
    if x.rank > 4:
        ends = tuple(min(a, b) if i < x.rank - 3 else a for i, (a, b) in enumerate(zip(xt.shape, it.shape)))
        if ends != xt.shape:
            steps += DM._slice_steps(xt, [(0, e, 1, e) for e in ends], xt.with_(shape=ends), ctx)
            xt = xt.with_(shape=ends)
    x4 = to4(xt)
    ends = idx4.padded[:3] + (x4.shape[-1],)
    if ends != x4.shape:
        steps.append(DM.slice_tile_program(x4, ends, grid))
        x4 = x4.with_(shape=ends)
    steps += DM.fill_pad_program(x4, grid, arch)
    out4 = idx4.with_(dtype=x.dtype, mem=out.mem)
    codegen = (x4.dtype.name == "bf16" and not (idx4.dtype.name == "u16" and x.shape[axis] > GATHER_UINT16_MAX_AXIS))
    steps.append(gather_codegen_program(x4, idx4, out4, grid, ctx.max_l1_space) if codegen
                 else gather_native_program(x4, idx4, out4, grid))
    if not last:
        res = out4.with_(shape=it.shape)
        steps += DM.transpose_steps(res, axis, x.rank - 1, res.with_(shape=idx.shape, mem=idx.mem), grid, arch)
    return steps


@register_cb("ttnn.gather")
def gather_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.gather``: :func:`gather_steps`."""
    return gather_steps(ctx)


register_check("ttnn.gather", "mock", "tests/test_ops_dialect_rest.py against measurements/dialect/results_rest.jsonl",
               ("GatherDeviceOperation", "GatherCodegenDeviceOperation"))
