"""``ttnn.argmax`` and ``ttnn.topk``: the programs (dataflow/circular buffers) and the tensors ttnn returns.

Shapes
------
``ttnn.argmax``'s shape rule lives in :mod:`ttanalyze.ops.reduction`.
``ttnn.topk`` (tt-mlir ``TopKOp``: attributes ``k``, ``dim`` (default -1),
``largest``, ``sorted``; results ``values`` and ``indices``): both results are
the input shape with ``dim``'s extent replaced by ``k``; ``dim`` must be in
``[-rank, rank)`` and ``1 <= k <= shape[dim]`` (``TopKOp::verify``,
``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca).

Programs
--------
How the tt-mlir runtime calls the ops (the executor's handlers):
``ttnn.argmax(x, dim=dim, keepdim=keep_dim, memory_config=<result>)`` and
``ttnn.topk(x, k, dim=dim, largest=, sorted=, memory_config=<result>)``; both
are host composites that run a chain of device programs (CBs are freed between
programs, so the op needs the L1 of its largest one).

The factories follow the host sources of tt-metal 614f605f (the jax-tt-plugin
0.1.3 runtime assets, ``ttnn/cpp/ttnn/operations/reduction/{argmax,topk}/**``,
``experimental/topk_large_indices/**``), which the ttnn 0.81.1 wheel (tt-metal
d80d9482) ships only the kernels of.  Every branch was replayed on the mock
P150 with ttnn 0.81.1 under NO_DISPATCH graph capture (``program_factory_type``
and every ``dataflow_buffer_allocate`` / ``circular_buffer_allocate`` /
``scratchpad_allocate`` with its core ranges); where 0.81.1 differs from
614f605f the model follows the measurement and says so.  Measured instances: the
op-level campaign (``benchmarks/opdiff.py``, ``measurements/opdiff/results.jsonl.gz``).

Dataflow buffers of the Metal 2.0 factories (argmax, topk single-core) sit on
the union of the cores of the work units that bind them, as tt-metal's
``CoreRangeSet::merge`` writes it (rows of equal runs stacked into rectangles,
ranges ordered by start x then y; measured: a 98-core column-major group is
``{[0-0 - 9-7], [0-8 - 8-9]}``, not ``num_cores_to_corerangeset``'s
``{[0-0 - 8-9], [9-0 - 9-7]}``; :func:`ttanalyze.ops.work_split.merge`).
tt-metal names the first overflowing range (:meth:`ProgramModel.first_overflow`),
so the split matters.

Programs of other ops inside the composites (tilize/untilize, transpose, pad,
fill_implicit_tile_padding, slice, reshape, to_memory_config) come from their
own models in :mod:`~ttanalyze.ops.layout_conversion` and
:mod:`~ttanalyze.ops.data_movement`.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, prod, sqrt

from ..ir.attrs import CoreRangeSet, DataType
from ..ir.model import Op
from ..layout import align_up, ceil_div, tile_padded_shape
from . import data_movement as DM
from . import layout_conversion as LC
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .registry import ShapeError, norm_dim, register, register_cb, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Tensor, operand, result
from .work_split import (Core, corerange_to_cores, merge, num_cores_to_corerangeset, split_blocks_for_tilize,
                         split_work_to_cores)

_TD = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_RED = "tt-metal ttnn/cpp/ttnn/operations/reduction/"
_AM = _RED + "argmax/"
_TK = _RED + "topk/"
_AT = " @614f605f (ttnn 0.81.1 measured)"
U16, U32, F32, BF16 = DataType("u16"), DataType("u32"), DataType("f32"), DataType("bf16")
DFB_ALIGNMENT = 64  # the allocator's DRAM alignment, to which the argmax secondary-DM check rounds each DFB


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def work_groups(grid: tuple[int, int], units: int, row_wise: bool) -> tuple[tuple[Core, ...], tuple[Core, ...]]:
    """``split_work_to_cores``' core groups in grid order: group 1 (``ceil(units / n)`` units each: the first
    ``units % n`` cores, or all ``n`` when the units divide evenly) and group 2 (one unit less)
    (``tt_metal/common/work_split.cpp`` @614f605f)."""
    split = split_work_to_cores(grid, units, row_wise)
    n1 = units % split.num_cores or split.num_cores
    return split.cores[:n1], split.cores[n1:]


def _dfbs(specs: list[tuple[str, int, int, CoreRangeSet]]) -> list[CB]:
    """DFBs (name, entry bytes, entries, cores) in creation order, indexed by position."""
    return [CB(i, name, entry, n, cores) for i, (name, entry, n, cores) in enumerate(specs)]


def _conversion(x: Tensor, layout: str, mem: MemCfg, ctx: CBContext) -> tuple[list[ProgramModel], Tensor]:
    """``ttnn.to_layout(x, layout)`` inside a composite, into ``mem``: its programs and result
    (:func:`ttanalyze.ops.layout_conversion.plan_to_layout`)."""
    c = LC.plan_to_layout(x, layout, x.dtype, mem, ctx.arch)
    if c.kind == "none":
        return [], c.result
    free = ctx.max_l1_space
    routing = free - LC.pending_l1_output(ctx.arch, c.result)
    return [LC.conversion_program(c, ctx.arch, free, routing, ctx.tt_metal)], c.result


# ---------------------------------------------------------------------------
# argmax
# ---------------------------------------------------------------------------


def argmax_output_shape(shape: tuple[int, ...], dim: int | None, keep: bool) -> tuple[int, ...]:
    """``get_output_shape`` (argmax_device_operation.cpp): the reduced dim (every dim when ``dim`` is None)
    dropped, or kept as 1 with ``keep``; ``dim`` already normalized."""
    reduced = [dim is None or d == dim for d in range(len(shape))]
    return tuple(1 if r else s for s, r in zip(shape, reduced) if keep or not r)


def argmax_multi_core_program(x: Tensor, reduce_all: bool, keep: bool, grid: tuple[int, int],
                              available: int) -> ProgramModel:
    """ArgMaxMultiCoreProgramFactory: argmax over the last dim (or all elements) of a row-major tensor.

    ``argmax/device/argmax_multi_core_program_factory.cpp``.  Units are elements
    of the reduced (last) dim; ``min_units = alignment / min(element, 2)`` with
    the input buffer's alignment (DRAM 64, L1 16), ``blocks = ceil(W /
    min_units)``.  ``rows`` = the second-last dim (1 for ``reduce_all``,
    ``keep`` or rank 1).  With at least 2 rows the cores are capped at the
    power of two reaching ``ceil(sqrt(W * element / 2) / 2)``; when that is
    below ``min(blocks, cores)`` they are the first ones row by row
    (``num_cores_to_corerangeset``: one or two ranges, each range a core group,
    ``ceil(blocks / cores)`` blocks per core), else ``split_work_to_cores`` over
    the blocks, column by column (group 1 one block more than group 2).
    DFBs, one entry each: ``src0`` (``src1``) ``copies x round32(units x
    element)`` on group 1 (2), ``dst`` ``round32(rows x 4)``, ``red_idxs``
    ``round32(rows x 4) x cores`` and ``red_vals`` ``round32(rows x element) x
    cores`` on all cores.  ``copies`` is 2 (the secondary data-movement
    processor) when there are at least 2 rows and ``align64(2 src) +
    align64(dst) + align64(red_idxs) + align64(red_vals)`` fits ``available``
    (``CBContext.max_l1_space``), else 1.

    Measured on mock P150, ttnn 0.81.1: [87224, 64] bf16 DRAM 128 + 348,896 +
    697,792 + 348,928 B on ``{[0-0 - 0-1]}``; [7136, 4096] 512 B on each of
    ``{[0-0 - 10-1]}`` and ``{[0-2 - 9-2]}``, 28,544 + 913,408 + 456,704 B on
    both; [20, 200000] groups of 90 and 20 cores; L1 input (16 B alignment),
    f32/int32/uint32/uint16 inputs, rank 1 and 3, ``keep_dim``, dim=None.
    """
    elem = x.element_bytes
    width = x.padded[-1]
    rows = 1 if (reduce_all or keep or x.rank < 2) else x.padded[-2]
    min_units = x.alignment // min(elem, 2)
    blocks = ceil_div(width, min_units)
    ncores = grid[0] * grid[1]
    split = not reduce_all and rows >= 2
    groups: tuple[tuple[Core, ...], ...] | None = None
    notes = []
    if split:
        max_cores = min(blocks, ncores)
        target = ceil(sqrt(width * elem // 2) / 2.0)
        cores = 1
        while cores < target and cores < max_cores:
            cores *= 2
        if cores < max_cores:
            crs = num_cores_to_corerangeset(cores, grid, row_wise=True)
            groups = tuple(tuple(corerange_to_cores(cores_set(r), row_wise=True)) for r in crs.ranges)
            per = ceil_div(blocks, cores)
            units = [per * min_units] * len(groups)
            notes.append(f"{cores} cores (the sqrt cap of W {width:,}), {per} blocks of {min_units} each")
    if groups is None:
        g1, g2 = work_groups(grid, blocks, row_wise=False)
        groups = (g1, g2) if g2 else (g1,)
        units = [ceil_div(blocks, len(g1) + len(g2)) * min_units, blocks // (len(g1) + len(g2)) * min_units][:len(groups)]
        notes.append(f"{blocks:,} blocks of {min_units} over {len(g1) + len(g2)} cores, column by column")
    total = sum(len(g) for g in groups)
    src = [align_up(u * elem, 32) for u in units]
    dst = align_up(rows * 4, 32)
    idxs = dst * total
    vals = align_up(rows * elem, 32) * total
    need = max(align_up(2 * s, DFB_ALIGNMENT) for s in src) + sum(align_up(b, DFB_ALIGNMENT) for b in (dst, idxs, vals))
    copies = 2 if split and need <= available else 1
    if split:
        notes.append(f"secondary DM {'on' if copies == 2 else 'off'}: doubled buffers need {need:,} B of {available:,} B")
    everyone = merge(c for g in groups for c in g)
    specs = [(f"src{i}", copies * s, 1, merge(g)) for i, (s, g) in enumerate(zip(src, groups))]
    specs += [("dst", dst, 1, everyone), ("red_idxs", idxs, 1, everyone), ("red_vals", vals, 1, everyone)]
    return ProgramModel("ArgMaxDeviceOperation::ArgMaxMultiCoreProgramFactory",
                        _AM + "device/argmax_multi_core_program_factory.cpp" + _AT, everyone, _dfbs(specs), notes)


def argmax_single_core_program(x: Tensor, out_shape: tuple[int, ...]) -> ProgramModel:
    """ArgMaxSingleCoreProgramFactory of a TILE input (the only layout 0.81.1 sends it).

    ``argmax/device/argmax_single_core_program_factory.cpp``: core (0, 0); DFB
    ``src`` one input tile; scratchpad ``dst`` one row-major output page, ``4 x``
    the output's last dim (4 B for a scalar), kept as extra per-core L1.
    Measured: [64, 128] over W 2,048 + 256 B, over H 2,048 + 512 B; f32 4,096 B;
    keep_dim over W 4 B.
    """
    cores = cores_set(core_range(0, 0, 0, 0))
    scratch = (out_shape[-1] if out_shape else 1) * 4
    return ProgramModel("ArgMaxDeviceOperation::ArgMaxSingleCoreProgramFactory",
                        _AM + "device/argmax_single_core_program_factory.cpp" + _AT, cores,
                        _dfbs([("src", x.tile_bytes, 1, cores)]), [f"scratchpad dst {scratch:,} B"], scratch)


def argmax_nc_program(x: Tensor, dim: int, grid: tuple[int, int]) -> ProgramModel:
    """ArgMaxNCDeviceOperation (DirectDescriptorFactory): argmax over a dim above the last two of a TILE tensor.

    ``argmax/device/argmax_nc_program_factory.cpp``: the output tiles (the
    input with ``dim`` set to 1, tile-padded) split row by row
    (``split_work_to_cores``); CBs ``c_0`` 2 input tiles and ``c_16`` 2 uint32
    tiles on all its cores.  Measured: [2, 3, 64, 128] over dim 1 -> 16 cores
    ``{[0-0 - 10-0], [0-1 - 4-1]}`` with 4,096 + 8,192 B.
    """
    out_tiles = prod(tile_padded_shape(tuple(1 if d == dim else s for d, s in enumerate(x.shape)))) // (TILE * TILE)
    cores = split_work_to_cores(grid, out_tiles, row_wise=True).all_cores
    cbs = [CB(0, "src", x.tile_bytes, 2, cores), CB(16, "out", U32.tile_bytes(), 2, cores)]
    return ProgramModel("ArgMaxNCDeviceOperation::DirectDescriptorFactory", _AM + "device/argmax_nc_program_factory.cpp" + _AT,
                        cores, cbs, [f"{out_tiles:,} output tiles on {cores.num_cores} cores"])


@dataclass(frozen=True)
class ArgmaxCall:
    """One ``ttnn.argmax`` call: input, normalized dim (None: every element), keep_dim, and the result's
    memory config."""

    x: Tensor
    dim: int | None
    keep: bool
    mem: MemCfg

    @property
    def out_shape(self) -> tuple[int, ...]:
        return argmax_output_shape(self.x.shape, self.dim, self.keep)

    @property
    def nc_path(self) -> bool:
        """``should_use_nc_path`` (argmax.cpp): a dim above the last two of a bf16/f32 interleaved tensor."""
        return (self.dim is not None and self.x.rank >= 3 and self.dim < self.x.rank - 2
                and self.x.dtype in (BF16, F32) and not self.x.sharded and self.mem.memory_layout == "interleaved")

    @property
    def h_via_tile(self) -> bool:
        """``should_row_major_h_via_tile`` (argmax.cpp): a bf16/f32 interleaved row-major tensor over H."""
        return (self.dim is not None and not self.x.tiled and self.x.rank >= 2 and self.dim == self.x.rank - 2
                and self.x.dtype in (BF16, F32) and not self.x.sharded and self.mem.memory_layout == "interleaved")


def argmax_call(ctx: CBContext) -> ArgmaxCall:
    """The call the runtime makes for ``ctx.op``.

    Raises:
        DeviceRejection: ``dim`` out of range (TT_FATAL "argmax: Dimension out of range").
        CBModelError: host tensors, no layout.
    """
    x = operand(ctx, 0)
    dim = ctx.op.attrs.get("dim")
    if dim is not None:
        r = x.rank
        if (r and not -r <= dim < r) or (not r and dim not in (0, -1)):
            raise DeviceRejection(f"argmax: Dimension out of range (dim {dim} for rank {r}) (TT_FATAL)")
        dim = dim + r if dim < 0 else dim
    return ArgmaxCall(x, dim, bool(ctx.op.attrs.get("keep_dim", False)), result(ctx).mem)


def validate_argmax(x: Tensor, dim: int | None, mem: MemCfg) -> None:
    """``ArgMaxDeviceOperation::validate_on_program_cache_miss`` as ttnn 0.81.1 runs it (messages measured).

    Raises:
        DeviceRejection: sharded input or output; row-major dtypes other than
            bf16/f32/int32/uint32/uint16 (0.81.1 has no f16/uint8); TILE dtypes other
            than bf16/f32; TILE over a dim other than H/W or with dim=None;
            row-major over a dim other than the last.
    """
    if x.sharded:
        raise DeviceRejection("argmax: Only INTERLEAVED memory layout is supported for inputs (TT_FATAL)")
    if not x.tiled and x.dtype.name not in ("bf16", "f32", "si32", "u32", "u16"):
        raise DeviceRejection(f"argmax: {x.dtype} row-major input: only BFLOAT16, FLOAT32, INT32, UINT32 and UINT16 "
                              "are supported (TT_FATAL)")
    if x.tiled and x.dtype not in (BF16, F32):
        raise DeviceRejection(f"argmax: {x.dtype} TILE input: only BFLOAT16 and FLOAT32 are supported (TT_FATAL)")
    if mem.memory_layout != "interleaved":
        raise DeviceRejection("argmax: Only INTERLEAVED memory layout is supported for outputs (TT_FATAL)")
    if dim is None and x.tiled:
        raise DeviceRejection("argmax: For inputs with TILE layout, dim parameter must be specified (TT_FATAL)")
    if dim is not None and x.tiled and dim < x.rank - 2:
        raise DeviceRejection(f"argmax: TILE: argmax dim must be H (rank-2) or W (last), got {dim} (TT_FATAL)")
    if dim is not None and not x.tiled and dim != x.rank - 1:
        raise DeviceRejection(f"argmax: ROW_MAJOR: only argmax on the last dim is supported, got {dim} (TT_FATAL)")


def argmax_steps(call: ArgmaxCall, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.argmax`` (``reduction/argmax/argmax.cpp``), in order.

    * NC path (:attr:`ArgmaxCall.nc_path`): ``to_layout(TILE)`` of a row-major
      input, :func:`argmax_nc_program`, ``to_layout(ROW_MAJOR)`` of its uint32
      TILE result, and a reshape dropping the dim unless ``keep_dim``;
    * row-major over H (:attr:`ArgmaxCall.h_via_tile`): ``to_layout(TILE)``, then
      :func:`argmax_single_core_program`;
    * else :func:`validate_argmax`, then :func:`argmax_multi_core_program` for
      a row-major input (over the last dim or every element), else
      :func:`argmax_single_core_program`.

    Raises:
        DeviceRejection: see :func:`validate_argmax`.
        CBModelError: a rank-0 input (``ttnn.full`` of a scalar: not modeled), and the
            conversions' own limits.
    """
    x, grid = call.x, ctx.grid
    if x.rank == 0:
        raise CBModelError("argmax of a rank-0 tensor returns ttnn.full of a scalar: not modeled")
    if call.nc_path:
        steps, t = _conversion(x, "tile", x.mem, ctx)
        steps.append(argmax_nc_program(t, call.dim, grid))
        tile_out = x.with_(shape=tuple(1 if d == call.dim else s for d, s in enumerate(x.shape)), dtype=U32,
                           layout="tile", mem=call.mem)
        more, rm = _conversion(tile_out, "row_major", call.mem, ctx)
        steps += more
        if not call.keep:
            steps += DM.reshape_steps(rm, call.out_shape, rm, ctx)
        return steps
    if call.h_via_tile:
        steps, t = _conversion(x, "tile", x.mem, ctx)
        return steps + [argmax_single_core_program(t, call.out_shape)]
    validate_argmax(x, call.dim, call.mem)
    if not x.tiled:
        return [argmax_multi_core_program(x, call.dim is None, call.keep, grid, ctx.max_l1_space)]
    return [argmax_single_core_program(x, call.out_shape)]


@register_cb("ttnn.argmax")
def argmax_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.argmax``: :func:`argmax_steps`."""
    return argmax_steps(argmax_call(ctx), ctx)


@register_spec("ttnn.argmax")
def argmax_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``ttnn.argmax`` returns: uint32, row-major, :func:`argmax_output_shape`, in the requested
    (interleaved) memory config (``ArgMaxDeviceOperation::compute_output_specs``; the NC path untilizes and
    reshapes to the same).

    Raises:
        DeviceRejection: configurations tt-metal refuses (:func:`validate_argmax`).
        CBModelError: a rank-0 input.
    """
    call = argmax_call(ctx)
    if call.x.rank == 0:
        raise CBModelError("argmax of a rank-0 tensor returns ttnn.full of a scalar: not modeled")
    if not (call.nc_path or call.h_via_tile):
        validate_argmax(call.x, call.dim, call.mem)
    shape = call.out_shape
    # a rank-0 result (every dim reduced, keep_dim false) has padded shape [1]: TensorLayout::compute_padded_shape
    # gives max(rank, len(alignment)) dims and a row-major tensor's alignment has one (measured: 24 argmax
    # instances of the op-level campaign, e.g. g1/ttnn.argmax/10)
    return [TensorSpec(shape, shape or (1,), "row_major", "u32", call.mem.buffer_type, call.mem.memory_layout)]


# ---------------------------------------------------------------------------
# topk: shape rule
# ---------------------------------------------------------------------------


@register("ttnn.topk", "reduction", ("k", "dim", "largest", "sorted", "memory_config"), f"{_TD} TopKOp::verify")
def topk(op: Op):
    """``values`` and ``indices``: the input shape with ``dim``'s extent set to ``k``.

    Raises:
        ShapeError: ``dim`` out of range, or ``k`` not in ``[1, shape[dim]]`` (TopKOp::verify).
    """
    src = tensor_shape(op, 0)
    d = norm_dim(op.attrs.get("dim", -1), len(src), op)
    k = op.attrs.get("k")
    if not isinstance(k, int) or isinstance(k, bool):
        raise ShapeError(f"{op.name} needs an integer attribute 'k'")
    if not 1 <= k <= src[d]:
        raise ShapeError(f"{op.name}: K should be between 1 and the size of dim {d} ({src[d]}), but got {k}")
    out = tuple(k if i == d else s for i, s in enumerate(src))
    return [out, out]


# ---------------------------------------------------------------------------
# topk: device operation (TopKDeviceOperation) and its factories
# ---------------------------------------------------------------------------

MIN_DIM_PER_CORE = 64  # topk_constants.hpp: the smallest width per core; narrower inputs are padded to it
MULTI_CORE_MIN_WIDTH = 8192  # topk_constants.hpp
MULTI_CORE_LOW_HT_MAX_TILE_ROWS = 2  # topk_constants.hpp
# topk_constants.hpp @614f605f has 128; ttnn 0.81.1 runs [32, 512] on one core and [32, 1024] on the
# multi-core factory (measured), so its low-tile-row floor is 1024 (widths are powers of two here).
MULTI_CORE_LOW_HT_MIN_WIDTH = 1024
MULTI_CORE_MAX_WIDTH_EXCLUSIVE = 65535  # topk_constants.hpp: 16-bit element indices of the bitonic network
MULTI_CORE_MAX_K = 64  # topk_constants.hpp


def index_dtype(x: Tensor) -> DataType:
    """The index dtype ``TopKDeviceOperation`` returns for its (4D, last-dim) input: uint32 when the padded width
    exceeds 65,536 or the input is f32, else uint16 (``resolve_index_dtype``; 614f605f returns INT32 where
    ttnn 0.81.1 returns UINT32, measured: [32, 100000] and f32 inputs give uint32, [32, 65536] uint16)."""
    return U32 if x.padded[-1] > 65536 or x.dtype == F32 else U16


def multicore_structurally_eligible(width: int, tile_rows: int, k: int) -> bool:
    """``topk_multicore_structurally_eligible`` (topk_utils.cpp) with ttnn 0.81.1's low-tile-row floor
    (:data:`MULTI_CORE_LOW_HT_MIN_WIDTH`): wide enough, narrower than 65,535, a power of two, ``k <= 64``."""
    gate = width >= MULTI_CORE_MIN_WIDTH or (tile_rows <= MULTI_CORE_LOW_HT_MAX_TILE_ROWS
                                              and width >= MULTI_CORE_LOW_HT_MIN_WIDTH)
    return gate and width < MULTI_CORE_MAX_WIDTH_EXCLUSIVE and width & (width - 1) == 0 and k <= MULTI_CORE_MAX_K


@dataclass(frozen=True)
class TopKCoreConfig:
    """``TopKCoreConfig``: ``num_cores`` local cores of ``split`` elements each, arranged ``x`` by ``y``; the final
    core merges ``final_input`` elements (``num_cores x Kt`` tiles)."""

    num_cores: int
    split: int
    final_input: int
    x: int
    y: int


def find_topk_core_config(width: int, k: int, grid: tuple[int, int], l1_size: int, value_tile: int, index_tile: int,
                          first_valid_only: bool = False) -> TopKCoreConfig | None:
    """``find_topk_core_config_impl`` (topk_utils.cpp @614f605f) on a full ``grid`` (x, y) range.

    Local cores fit an ``(x - 1) x (y - 2)`` rectangle; power-of-two splits from
    ``max(W / 32 / lp2(cores) x 32, 64, 32)`` to ``W / 2``; a split is valid when
    it divides W into more than one and at most that many cores, a rectangle
    ``n / y' x y'`` (smallest ``y'``) fits, and the per-core cost
    ``max(final, local) < l1_size`` with ``shared = 4 (value + index) + Wt_final
    (tvalue + index) + 2 index``, ``final = shared + 2 value + Wt_final (tvalue +
    index)``, ``local = shared + Wt_local (tvalue + index) + 2 tvalue``
    (``tvalue = max(value, bf16 tile)``).  Among valid splits the one with the
    least ``7 Wt_local + 2 Wt_final`` wins (the first valid one with
    ``first_valid_only``, as ``verify_multi_core_cost`` asks).  Measured:
    W 8192 k 32 -> 32 local cores of 256 (not the first valid 64 of 128).
    """
    gx, gy = grid
    if gx < 2 or gy < 3:
        return None
    max_x, max_y = gx - 1, gy - 2
    max_cores = max_x * max_y
    lp2 = 1 << (max_cores.bit_length() - 1)
    split = max(width // TILE // lp2 * TILE, MIN_DIM_PER_CORE, TILE)
    tvalue = max(value_tile, BF16.tile_bytes())
    kt = ceil_div(k, TILE)
    best, best_score = None, None
    while split <= width // 2:
        rem = width % split
        n = width // split + (rem > 0)
        wt_final, wt_local = n * kt, split // TILE
        shared = 4 * (value_tile + index_tile) + wt_final * (tvalue + index_tile) + 2 * index_tile
        cost = max(shared + 2 * value_tile + wt_final * (tvalue + index_tile),
                   shared + wt_local * (tvalue + index_tile) + 2 * tvalue)
        ys = [y for y in range(1, max_y + 1) if n % y == 0 and n // y <= max_x]
        if n <= max_cores and cost < l1_size and n > 1 and split >= MIN_DIM_PER_CORE and ys and rem == 0:
            config = TopKCoreConfig(n, split, wt_final * TILE, n // ys[0], ys[0])
            if first_valid_only:
                return config
            score = 7 * wt_local + 2 * wt_final
            if best_score is None or score < best_score:
                best, best_score = config, score
        split *= 2
    return best


def single_core_cost(x: Tensor, k: int, index_tile: int) -> int:
    """``verify_single_core_cost``'s L1 estimate (topk_utils.cpp): ``4 (value + index) + (4 + 2 Kt)(compute +
    index) + Kt (value + index)``; the op is accepted when it is below ``l1_size`` (the allocator base is ignored,
    so Kt 112..125 on bf16 pass and then overflow L1)."""
    kt = ceil_div(k, TILE)
    value = x.tile_bytes
    compute = BF16.tile_bytes() if x.dtype.is_block_float else value
    return 4 * (value + index_tile) + (4 + 2 * kt) * (compute + index_tile) + kt * (value + index_tile)


def topk_single_core_program(x: Tensor, k: int, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """TopKSingleCoreProgramFactory (``topk/device/topk_single_core_program_factory.cpp``).

    Tile rows ``Ht`` split row by row (``split_work_to_cores`` of the full
    grid); DFBs on those cores: ``input`` 2 value tiles, ``index`` 2 index tiles,
    ``transposed_val``/``transposed_ind`` 4 tiles, ``result_prep_val``/``_ind``
    ``2 Kt`` tiles, ``output_val``/``output_ind`` ``Kt`` tiles; the value-side
    intermediates are bf16 for a block-float input.  Measured: [128, 4096] k 3584
    (Kt 112) 4,096 + 4,096 + 8,192 + 8,192 + 458,752 + 458,752 + 229,376 + 229,376 B
    on ``{[0-0 - 3-0]}``; bfp8, f32 and uint32-index variants.
    """
    kt = ceil_div(k, TILE)
    ht = x.physical_volume // x.padded[-1] // TILE
    value, idx = x.tile_bytes, index.tile_bytes()
    compute = BF16.tile_bytes() if x.dtype.is_block_float else value
    cores = merge(split_work_to_cores(grid, ht, row_wise=True).cores)
    specs = [("input", value, 2), ("index", idx, 2), ("transposed_val", compute, 4), ("transposed_ind", idx, 4),
             ("result_prep_val", compute, 2 * kt), ("result_prep_ind", idx, 2 * kt), ("output_val", value, kt),
             ("output_ind", idx, kt)]
    return ProgramModel("TopKDeviceOperation::TopKSingleCoreProgramFactory",
                        _TK + "device/topk_single_core_program_factory.cpp" + _AT, cores,
                        _dfbs([(n, e, c, cores) for n, e, c in specs]),
                        [f"{ht:,} tile rows on {cores.num_cores} cores; k {k} = {kt} tiles; {index} indices"])


def topk_multi_core_program(x: Tensor, k: int, index: DataType, grid: tuple[int, int], l1_size: int) -> ProgramModel:
    """TopKMultiCoreProgramFactory (``topk/device/topk_multi_core_program_factory.cpp``).

    :func:`find_topk_core_config` picks ``n`` local cores (an ``x`` by ``y``
    rectangle from (0, 0)) of ``Wt_local`` tiles and the final core at
    column-major index ``y`` of the grid (``select_from_corerangeset``).  CBs in
    creation order: ``c_0`` 4 value tiles and ``c_1`` 4 index tiles, ``c_4``
    ``Wt_final`` transport tiles on all cores; ``c_5`` ``Wt_final`` index tiles
    on all; ``c_9`` 2 index tiles on all; ``c_2`` ``Wt_local`` transport and
    ``c_3`` ``Wt_local`` index tiles on the local cores; ``c_8`` 2 transport tiles
    on the local cores and 2 value tiles on the final core; ``c_6`` ``Wt_final``
    transport and ``c_7`` ``Wt_final`` index tiles on the final core.  Transport
    tiles are bf16 for block-float inputs.

    Packed keys (fused ``[bf16 | u16]`` words in f32 tiles) for a non-f32 input
    with uint16 indices whose logical width is not a tile multiple: ttnn 0.81.1
    does this without ``stable`` (614f605f only with ``stable=True``; measured:
    [32, 1000] and [64, 2040] packed, [32, 1024] and [40, 1024] not).  Then
    ``c_4``, ``c_2``, ``c_8`` (local), ``c_6`` hold f32 tiles, ``c_5`` is ``Kt``
    compute tiles and ``c_9`` 2 index tiles on the final core, ``c_3`` is absent
    and ``c_7`` holds ``Kt`` index tiles.
    """
    width = x.padded[-1]
    value, idx = x.tile_bytes, index.tile_bytes()
    compute = BF16.tile_bytes() if x.dtype.is_block_float else value
    cfg = find_topk_core_config(width, k, grid, l1_size, value, idx)
    if cfg is None:
        raise CBModelError(f"topk multi-core: no core configuration for width {width} and k {k}")
    packed = x.shape[-1] % TILE != 0 and x.dtype != F32 and index == U16
    tr = F32.tile_bytes() if packed else compute
    kt = ceil_div(k, TILE)
    wt_local, wt_final = cfg.split // TILE, cfg.final_input // TILE
    local = cores_set(core_range(0, 0, cfg.x - 1, cfg.y - 1))
    fx, fy = divmod(cfg.y, grid[1])
    final = cores_set(core_range(fx, fy, fx, fy))
    everyone = merge(corerange_to_cores(local) + [(fx, fy)])
    cbs = [CB(0, "input", value, 4, everyone), CB(1, "index", idx, 4, everyone), CB(4, "gathered_values", tr, wt_final, everyone)]
    if packed:
        cbs += [CB(5, "defused_values", compute, kt, final), CB(9, "local_indices", idx, 2, final),
                CB(2, "transposed_values", tr, wt_local, local)]
    else:
        cbs += [CB(5, "gathered_indices", idx, wt_final, everyone), CB(9, "local_indices", idx, 2, everyone),
                CB(2, "transposed_values", tr, wt_local, local), CB(3, "transposed_indices", idx, wt_local, local)]
    cbs += [CB(8, "local_values", tr, 2, local), CB(8, "values", value, 2, final), CB(6, "final_values", tr, wt_final, final),
            CB(7, "final_indices", idx, kt if packed else wt_final, final)]
    return ProgramModel("TopKDeviceOperation::TopKMultiCoreProgramFactory",
                        _TK + "device/topk_multi_core_program_factory.cpp" + _AT, everyone, cbs,
                        [f"{cfg.num_cores} local cores of {cfg.split:,} elements ({cfg.x}x{cfg.y}), final core ({fx},{fy})"
                         + ("; packed value/index keys" if packed else "")])


def validate_topk(x: Tensor, mem: MemCfg) -> None:
    """The input and output checks of ``TopKDeviceOperation::validate_on_program_cache_miss`` (messages measured
    on ttnn 0.81.1).  ttnn makes them after the composite's transpose and padding programs, but the op fails either way.

    Raises:
        DeviceRejection: a sharded output config, a row-major input, an input dtype other than bf16/bfp8/f32.
    """
    if mem.sharded:
        raise DeviceRejection("topk: Sharded implementation not supported yet (TT_FATAL)")
    if not x.tiled:
        raise DeviceRejection("topk: The input must be in tiled format (TT_FATAL input_tensor.layout() == Layout::TILE)")
    if x.dtype.name not in ("bf16", "bfp_bf8", "f32"):
        raise DeviceRejection(f"topk: Input tensor must be BFLOAT16, BFLOAT8_B, or FLOAT32, got {x.dtype} (TT_FATAL)")


def topk_device_programs(x: Tensor, k: int, mem: MemCfg, ctx: CBContext) -> ProgramModel:
    """``TopKDeviceOperation`` on the 4D, last-dim input ``x``: validate, then the factory it selects.

    Validation (``validate_on_program_cache_miss``): :func:`validate_topk`; then feasibility: when the shape is
    :func:`multicore_structurally_eligible`, a multi-core configuration within the
    largest free L1 block (``ctx.max_l1_space`` before the op's outputs exist) or the single-core cost
    (:func:`single_core_cost`) below ``l1_size``, else the single-core cost.
    ``select_program_factory``: multi-core when eligible and a configuration
    exists within ``l1_size``, else single-core.

    Raises:
        DeviceRejection: the checks above (messages measured on ttnn 0.81.1).
    """
    validate_topk(x, mem)
    index = index_dtype(x)
    width, value, idx = x.padded[-1], x.tile_bytes, index.tile_bytes()
    tile_rows = x.physical_volume // width // TILE
    l1 = ctx.arch.l1_size
    eligible = multicore_structurally_eligible(width, tile_rows, k)
    largest_free = ctx.max_l1_space_before_outputs  # validation runs before the outputs are allocated
    ok = eligible and find_topk_core_config(width, k, ctx.grid, largest_free, value, idx, first_valid_only=True) is not None
    if not ok and single_core_cost(x, k, idx) >= l1:
        raise DeviceRejection(f"topk: Not enough cores or cache size available to run TopK operation (TT_FATAL): "
                              f"k {k} needs {single_core_cost(x, k, idx):,} B on one core, l1_size is {l1:,} B")
    if eligible and find_topk_core_config(width, k, ctx.grid, l1, value, idx, first_valid_only=True) is not None:
        return topk_multi_core_program(x, k, index, ctx.grid, l1)
    return topk_single_core_program(x, k, index, ctx.grid)


# ---------------------------------------------------------------------------
# topk: the large-k route onto topk_large_indices (Blackhole)
# ---------------------------------------------------------------------------

LARGE_K_ROUTE_MIN_K_EXCLUSIVE = 64  # topk.cpp
SMALL_K_ROUTE_MIN_PADDED_WIDTH = 4096  # topk.cpp
LARGE_K_ROUTE_MAX_K = 2048  # topk.cpp
LARGE_K_ROUTE_K_MULTIPLE = 16  # topk.cpp
LARGE_K_ROUTE_MAX_WIDTH = 1 << 19  # topk.cpp


def routes_to_large_indices(x: Tensor, k: int, largest: bool, dim_last: bool, mem: MemCfg, arch_name: str) -> bool:
    """``should_route_to_topk_large_indices`` (topk.cpp) for the runtime's call (no indices tensor, no
    preallocated outputs, no sub-core grids, ``stable=False``).

    Largest-first, the last dim, ``k <= 2048``, interleaved bf16 TILE input and
    output config on Blackhole, ``round16(k) <= W <= 2^19``; a ``k <= 64`` only
    when the padded width is at least 4,096 and fails the multi-core structure
    gate without its low-tile-row relaxation.  Measured: [32, 8192] k 512,
    [32, 100000] k 8, [32, 65536] k 32, [32, 4096] k 32 routed; smallest-first,
    k 2100 and W 600,000 not.
    """
    if not largest or not dim_last or k > LARGE_K_ROUTE_MAX_K or mem.sharded:
        return False
    if k <= LARGE_K_ROUTE_MIN_K_EXCLUSIVE:
        width = x.padded[-1]
        if width < SMALL_K_ROUTE_MIN_PADDED_WIDTH or multicore_structurally_eligible(
                width, MULTI_CORE_LOW_HT_MAX_TILE_ROWS + 1, k):
            return False
    if x.dtype != BF16 or not x.tiled or x.sharded or arch_name != "blackhole":
        return False
    return round_up_k(k) <= x.shape[-1] <= LARGE_K_ROUTE_MAX_WIDTH


def round_up_k(k: int) -> int:
    """The route's ``k_rounded``: ``k`` up to a multiple of 16."""
    return align_up(k, LARGE_K_ROUTE_K_MULTIPLE)


def route_prep_program(x: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """TopkRoutePrepProgramFactory (``topk/device/topk_route_prep_program_factory.cpp``): fused untilize and clamp.

    Each tile row is cut into blocks of ``bw = min(8, Wt)`` tiles;
    ``split_blocks_for_tilize`` (row by row) spreads the blocks; CBs ``c_0`` and
    ``c_16`` of ``2 bw`` bf16 tiles.  Measured: [32, 100000] (391 blocks) 32,768 +
    32,768 B on ``{[0-0 - 10-7], [0-8 - 9-8]}``.
    """
    wt = x.padded[-1] // TILE
    bw = min(8, wt)
    nblocks = x.physical_volume // x.padded[-1] // TILE * ceil_div(wt, bw)
    cores = split_blocks_for_tilize(grid, nblocks, row_wise=True).all_cores
    tile = BF16.tile_bytes()
    return ProgramModel("TopkRoutePrepDeviceOperation::TopkRoutePrepProgramFactory",
                        _TK + "device/topk_route_prep_program_factory.cpp" + _AT, cores,
                        [CB(0, "input", tile, 2 * bw, cores), CB(16, "output", bw * tile, 2, cores)],
                        [f"{nblocks:,} blocks of {bw} tiles on {cores.num_cores} cores"])


def large_indices_program(k: int, grid: tuple[int, int]) -> ProgramModel:
    """TopkLargeIndicesProgramFactory (``experimental/topk_large_indices/device/topk_large_indices_program_factory.cpp``).

    ``k`` (a multiple of 16) snaps to an LLK K of 512, 1024 or 2048; CBs on every
    worker core: ``c_0`` 2 sequences of ``ceil(K / 1024)`` bf16 tiles, ``c_1`` 2
    rows of K uint32 indices, and for K above 512 ``c_2`` one row of ``k`` uint32.
    Measured: k 512 4,096 + 4,096 B; k 1504 8,192 + 16,384 + 6,016 B; k 704
    4,096 + 8,192 + 2,816 B, all on ``{[0-0 - 10-9]}``.
    """
    llk = 512 if k <= 512 else 1024 if k <= 1024 else 2048
    cores = cores_set(core_range(0, 0, grid[0] - 1, grid[1] - 1))
    tile = BF16.tile_bytes()
    cbs = [CB(0, "input", tile, 2 * ceil_div(llk, TILE * TILE), cores), CB(1, "indices", llk * 4, 2, cores)]
    if llk != 512:
        cbs.append(CB(2, "indices_scratch", k * 4, 1, cores))
    return ProgramModel("TopkLargeIndicesDeviceOperation::TopkLargeIndicesProgramFactory",
                        "tt-metal ttnn/cpp/ttnn/operations/experimental/topk_large_indices/device/"
                        "topk_large_indices_program_factory.cpp" + _AT, cores, cbs, [f"LLK K {llk} for k {k}"])


def route_finish_program(x: Tensor, k: int, index: DataType, grid: tuple[int, int]) -> ProgramModel:
    """TopkRouteFinishProgramFactory (``topk/device/topk_route_finish_program_factory.cpp``): gather and tile both outputs.

    Units = tile rows x ``ceil(k / 32)`` x 2 face pairs, spread by
    ``split_blocks_for_tilize`` (row by row); CBs: two 1,024-B index-stick
    stages, two 4,096-B bounce buffers, 2 value face pairs (2,048 B) and 2 index
    face pairs (512 elements each).  Measured: [32, 100000] k 16: 2 cores,
    1,024 x 2 + 4,096 x 2 + 2,048 + 4,096 (uint32) B.
    """
    units = x.physical_volume // x.padded[-1] // TILE * ceil_div(k, TILE) * 2
    cores = split_blocks_for_tilize(grid, units, row_wise=True).all_cores
    half = (TILE * TILE // 2) * (index.tile_bytes() // (TILE * TILE))
    cbs = [CB(0, "reader_sticks", 1024, 1, cores), CB(2, "writer_sticks", 1024, 1, cores),
           CB(1, "reader_bounce", 4096, 1, cores), CB(3, "writer_bounce", 4096, 1, cores),
           CB(16, "values", BF16.tile_bytes() // 2, 2, cores), CB(17, "indices", half, 2, cores)]
    return ProgramModel("TopkRouteFinishDeviceOperation::TopkRouteFinishProgramFactory",
                        _TK + "device/topk_route_finish_program_factory.cpp" + _AT, cores, cbs,
                        [f"{units:,} face-pair units on {cores.num_cores} cores"])


# ---------------------------------------------------------------------------
# topk: the composite (ttnn::topk, topk.cpp)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TopkCall:
    """One ``ttnn.topk`` call: input, normalized dim, k, largest, and the requested memory config."""

    x: Tensor
    dim: int
    k: int
    largest: bool
    mem: MemCfg

    @property
    def dim_last(self) -> bool:
        return self.dim == self.x.rank - 1

    @property
    def out_shape(self) -> tuple[int, ...]:
        return tuple(self.k if d == self.dim else s for d, s in enumerate(self.x.shape))

    def prim_input(self) -> Tensor:
        """The 4D last-dim tensor the device operation sees: transposed (dim -> last) and unsqueezed or
        squeezed to 4D (views), before any padding."""
        shape = list(self.x.shape)
        if not self.dim_last:
            shape[self.dim], shape[-1] = shape[-1], shape[self.dim]
        shape4 = [1] * (4 - len(shape)) + shape if len(shape) <= 4 else [prod(shape[:-3])] + shape[-3:]
        return self.x.with_(shape=tuple(shape4))


def topk_call(ctx: CBContext) -> TopkCall:
    """The call the runtime makes for ``ctx.op``.

    Raises:
        DeviceRejection: dim out of range or ``k`` above the dim's size (TT_FATAL).
        CBModelError: a rank-0 input (clone + full: not modeled), ``k`` below 1, host tensors, no layout.
    """
    x = operand(ctx, 0)
    attrs = ctx.op.attrs
    if x.rank == 0:
        raise CBModelError("topk of a rank-0 tensor returns a clone and ttnn.full: not modeled")
    dim = attrs.get("dim", -1)
    if not -x.rank <= dim < x.rank:
        raise DeviceRejection(f"topk: Dimension for topk is out of range ({dim} for rank {x.rank}) (TT_FATAL)")
    dim = dim + x.rank if dim < 0 else dim
    k = attrs.get("k")
    if not isinstance(k, int) or k < 1:
        raise CBModelError(f"topk needs an integer k of at least 1 (TopKOp::verify), not {k!r}")
    if k > x.shape[dim]:
        raise DeviceRejection(f"topk: K cannot be larger than the dimension size! K={k}, dimension size={x.shape[dim]} "
                              "(TT_FATAL)")
    return TopkCall(x, dim, k, bool(attrs.get("largest", True)), result(ctx, 0).mem)


def _post_steps(call: TopkCall, outs: list[Tensor], k_op: int, ctx: CBContext) -> list[ProgramModel]:
    """``post_topk_transform_tensor`` (ttnn 0.81.1) of the device results ``outs`` (4D, last dim ``k_op``).

    A slice of both results to ``k`` when ``k_op`` differs (ttnn 0.81.1 slices
    also for a last-dim call, where 614f605f reshapes; measured), the reshape back
    to the input's rank, and for another dim a transpose of both back, into the
    input's memory config.
    """
    steps: list[ProgramModel] = []
    shape4 = outs[0].shape[:-1] + (call.k,)
    if k_op != call.k:
        steps += [DM.slice_tile_program(t, shape4, ctx.grid) for t in outs]
        outs = [t.with_(shape=shape4, mem=call.mem) for t in outs]
    moved = list(call.out_shape)
    if not call.dim_last:
        moved[call.dim], moved[-1] = moved[-1], moved[call.dim]
    for i, t in enumerate(outs):
        steps += DM.reshape_steps(t, tuple(moved), t, ctx)
        outs[i] = t.with_(shape=tuple(moved))
    if not call.dim_last:
        for t in outs:
            steps += DM.transpose_steps(t, call.dim, call.x.rank - 1, t.with_(shape=call.out_shape, mem=call.x.mem), ctx.grid)
    return steps


def topk_steps(call: TopkCall, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.topk`` (``reduction/topk/topk.cpp``) in ttnn 0.81.1, in order.

    1. a transpose of ``dim`` to the last dim when it is not last (into the
       input's memory config), then the 4D view;
    2. the Blackhole route (:func:`routes_to_large_indices`):
       :func:`route_prep_program`, :func:`large_indices_program` on
       ``round16(k)``, :func:`route_finish_program`, then the slices of
       :func:`_post_steps` and a ``to_memory_config`` of both results when the
       requested config is not the input's;
    3. otherwise: ``ttnn.pad`` to 64 columns for narrower inputs (its
       tile-padding fill, and a tile pad when the padded width grows),
       ``fill_implicit_tile_padding`` (ttnn 0.81.1 fills height padding too,
       measured), :func:`topk_device_programs` on ``k`` rounded up to tiles,
       then :func:`_post_steps`.

    ttnn 0.81.1 has no ``topk_select`` path (measured: [32, 100000] k 8
    smallest-first runs the single-core factory).

    Raises:
        DeviceRejection: see :func:`topk_device_programs`.
        CBModelError: the other ops' models' limits (block-float tile-padding
            fills go through typecasts, sharded transposes...).
    """
    x, grid = call.x, ctx.grid
    validate_topk(x, call.mem)
    steps: list[ProgramModel] = []
    t4 = call.prim_input()
    if not call.dim_last:
        swapped = list(x.shape)
        swapped[call.dim], swapped[-1] = swapped[-1], swapped[call.dim]
        steps += DM.transpose_steps(x, call.dim, x.rank - 1, x.with_(shape=tuple(swapped)), grid)
    if routes_to_large_indices(t4, call.k, call.largest, call.dim_last, call.mem, ctx.arch.name):
        kr = round_up_k(call.k)
        index = index_dtype(t4)
        steps += [route_prep_program(t4, grid), large_indices_program(kr, grid), route_finish_program(t4, kr, index, grid)]
        outs = [t4.with_(shape=t4.shape[:-1] + (kr,), dtype=d) for d in (BF16, index)]
        steps += _post_steps(call, outs, kr, ctx)
        if kr == call.k and call.mem != t4.mem:
            for t in outs:
                prog = LC.to_memory_config_program(t, t.with_(mem=call.mem), ctx.arch)
                steps += [prog] if prog is not None else []
        return steps
    padded = t4
    if t4.shape[-1] < MIN_DIM_PER_CORE:
        if t4.dtype.is_block_float:
            raise CBModelError(f"ttnn.pad of a {t4.dtype} tensor to {MIN_DIM_PER_CORE} columns goes through typecasts: "
                               "not modeled")
        steps += DM.fill_pad_program(t4, grid)
        padded = t4.with_(shape=t4.shape[:-1] + (MIN_DIM_PER_CORE,))
        if padded.padded[-1] != t4.padded[-1]:
            multicore = t4.dtype == BF16 and not t4.l1
            steps.append(DM.pad_tile_program(t4, padded.padded, multicore, grid))
    steps += DM.fill_pad_program(padded, grid)
    k_op = align_up(call.k, TILE)
    steps.append(topk_device_programs(padded, k_op, call.mem, ctx))
    index = index_dtype(padded)
    outs = [padded.with_(shape=padded.shape[:-1] + (k_op,), dtype=d, mem=call.mem) for d in (padded.dtype, index)]
    return steps + _post_steps(call, outs, k_op, ctx)


@register_cb("ttnn.topk")
def topk_cb(ctx: CBContext) -> list[ProgramModel]:
    """CB model of ``ttnn.topk``: :func:`topk_steps`."""
    return topk_steps(topk_call(ctx), ctx)


@register_spec("ttnn.topk")
def topk_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``ttnn.topk`` returns: values in the input's dtype and indices (:func:`index_dtype` of the
    transposed, padded 4D input), both TILE, the input shape with ``dim`` set to ``k``, in the requested memory
    config (``TopKDeviceOperation::compute_output_specs``; the route returns the same), or over another dim than
    the last in the input's (the transpose back of ``post_topk_transform_tensor``).

    Raises:
        DeviceRejection / CBModelError: see :func:`topk_call` and :func:`topk_device_programs`.
    """
    call = topk_call(ctx)
    validate_topk(call.x, call.mem)
    x4 = call.prim_input()
    if x4.shape[-1] < MIN_DIM_PER_CORE:
        x4 = x4.with_(shape=x4.shape[:-1] + (MIN_DIM_PER_CORE,))
    shape = call.out_shape
    padded = tile_padded_shape(shape)
    # over another dim, post_topk_transform_tensor transposes both results back into the input's memory config
    # (measured: g1/ttnn.topk/28 and 79, L1 inputs with DRAM results requested return L1 results)
    mem = call.mem if call.dim_last else call.x.mem
    if mem.sharded:
        raise CBModelError("topk over another dim of a sharded input returns sharded results: not modeled")
    return [TensorSpec(shape, padded, "tile", str(d), mem.buffer_type, mem.memory_layout)
            for d in (call.x.dtype, index_dtype(x4))]
