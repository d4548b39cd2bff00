"""Layout conversions: to_layout (tilize, untilize), to_memory_config, typecast, host transfers.

Shape rules
-----------
All keep the logical shape (tt-mlir ``ToLayoutOp``, ``ToMemoryConfigOp``,
``TypecastOp``, ``FromDeviceOp``/``ToDeviceOp`` in
``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca); what changes is the layout, the
data type or the memory placement, read from the declared result type.

Programs (circular buffers) and returned tensors
------------------------------------------------
How tt-mlir's runtime maps each op (tt-mlir ``runtime/lib/ttnn/operations/
layout/{to_layout,to_memory_config,typecast}.cpp``, newest stored versions):

* ``ttnn.to_layout`` -> ``ttnn::to_layout(in, layout, dtype, memory_config)``:
  layout and memory config from the result type's ``#ttnn.ttnn_layout``, dtype
  only when it differs from the operand's (``ToLayoutOp::hasDtypeChange``);
* ``ttnn.to_memory_config`` -> ``ttnn::to_memory_config(in, memory_config)``;
* ``ttnn.typecast`` -> ``ttnn::typecast(in, dtype, memory_config)``.

Which device operation and program factory ttnn 0.81.1 (tt-metal d80d9482)
runs, and the dataflow buffers (DFBs, Metal 2.0's circular buffers) and
scratchpads each factory allocates per core, follow the host sources the ttnn
0.81.1 wheel ships (``ttnn/cpp/ttnn/operations/data_movement/{tilize,
tilize_with_val_padding,untilize,untilize_with_unpadding,sharded,copy,
common}/**``, tt-metal d80d9482 itself) and, for files the wheel does not ship,
the stored tt-metal versions named at each function.  Every branch was checked
against graph captures on the mock P150 (``program_factory_type`` of each
device operation, every ``dataflow_buffer_allocate`` /
``circular_buffer_allocate`` / ``scratchpad_allocate`` with its core ranges);
the measured instances are in ``measurements/opdiff/results.jsonl.gz``
(``benchmarks/opdiff.py``) and the differences from the stored sources are
written at each function.

Device constants used by the factories (bytes): ``usable = l1_size -
l1_unreserved_base`` (``get_static_l1_space``, codegen ``usable_l1_bytes``),
``half = l1_size / 2 - l1_unreserved_base`` (the single-core factories' and
``get_pf_type``'s ``max_l1_size``), and the live free L1 ``max_l1_space``
(``get_max_l1_space``: lowest occupied L1 address, or ``l1_size``, minus the
base), which the multi-core routing (``is_enough_space``), the block factories
and the untilize code generator read.

Tensors are :class:`~ttanalyze.ops.tensors.Tensor` views and the splits come
from :mod:`ttanalyze.ops.work_split`.  The untilize / tilize steps of the
data-movement composites (concat, slice, repeat, repeat_interleave, embedding)
are the program models here (``uwu_program``, ``twvp_program``,
``tilize_program``, ``pending_l1_output``).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from ..arch import Arch
from ..ir.attrs import DataType
from ..ir.model import Op
from ..layout import align_up, ceil_div, tile_padded_shape
from .cb import CB, CBContext, CBModelError, DeviceRejection, NoDeviceProgram, ProgramModel, grid_xy, plan_of
from .registry import register, register_cb, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Shard, Tensor, _view
from .work_split import (Core, compute_ncores, compute_ncores_wh, merge, split_blocks_for_tilize,
                         split_blocks_for_tilize_wh, split_work_to_cores)

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_DM = "tt-metal d80d9482 (ttnn 0.81.1 wheel) ttnn/cpp/ttnn/operations/data_movement"


def _same_shape(op: Op):
    """The operand's logical shape."""
    return [tensor_shape(op, 0)]


# to_layout had `layout`/`dtype`/`memory_config` attributes in older tt-mlir;
# current tt-mlir carries all of it in the result type's encoding.
register("ttnn.to_layout", "layout_conversion", ("layout", "dtype", "memory_config"), f"{_SRC} ToLayoutOp")(_same_shape)
register("ttnn.to_memory_config", "layout_conversion", ("memory_config",), f"{_SRC} ToMemoryConfigOp")(_same_shape)
register("ttnn.typecast", "layout_conversion", ("dtype",), f"{_SRC} TypecastOp")(_same_shape)
register(("ttnn.from_device", "ttnn.to_device"), "host", ("memory_config",), f"{_SRC} FromDeviceOp/ToDeviceOp")(_same_shape)


# ---------------------------------------------------------------------------
# Program building
# ---------------------------------------------------------------------------


class _Prog:
    """Collects the DFBs / CBs / scratchpads of one program."""

    def __init__(self, factory: str, source: str):
        self.factory, self.source = factory, source
        self.cbs: list[CB] = []
        self.core_lists: list[tuple[Core, ...]] = []  # the cores of each CB (work splits' tuples, merged once)
        self.notes: list[str] = []
        self.scratch: dict[Core, int] = {}

    def cb(self, index: int, name: str, page: int, pages: int, cores, borrowed: bool = False) -> None:
        cores = tuple(cores)
        if not cores or pages == 0:
            return
        self.core_lists.append(cores)
        self.cbs.append(CB(index, name, page, pages, merge(cores), borrowed))

    def scratchpad(self, size: int, cores) -> None:
        """A Metal 2.0 scratchpad (kernel-private L1 beside the DFBs): kept as extra per-core L1."""
        for c in cores:
            self.scratch[c] = self.scratch.get(c, 0) + size
        self.notes.append(f"scratchpad {size} B on {len(tuple(cores))} cores")

    def note(self, text: str) -> "_Prog":
        self.notes.append(text)
        return self

    def build(self) -> ProgramModel:
        lists = self.core_lists
        same = bool(lists) and all(c is lists[0] for c in lists)
        cores = merge(lists[0] if same else {c for cl in lists for c in cl})
        return ProgramModel(self.factory, self.source, cores, self.cbs, self.notes,
                            max(self.scratch.values(), default=0))


def _single_core(factory: str, source: str, in_name: str, in_tile: int, out_tile: int, row: int,
                 max_tiles: int) -> tuple[_Prog, int]:
    """A single-core (tilize / untilize) factory on core (0, 0) and its block in tiles.

    The block is the whole row of ``row`` tiles when it fits ``max_tiles``, else
    the row's largest divisor that does (1 if none); the input DFB (``c_0``) and
    the output DFB (``c_16``) hold one block each.
    """
    block = row if row <= max_tiles else max((d for d in range(1, max_tiles + 1) if row % d == 0), default=1)
    p = _Prog(factory, source)
    p.cb(0, in_name, in_tile, block, [(0, 0)])
    p.cb(16, "out", out_tile, block, [(0, 0)])
    return p, block


def _tile_rows(factory: str, source: str, names: tuple[str, str], in_tile: int, out_tile: int, row: int,
               nblocks: int, arch: Arch, unit: str) -> _Prog:
    """A default (one tile row per block) tilize / untilize factory.

    ``nblocks`` tile rows over the grid column by column
    (:func:`~ttanalyze.ops.work_split.split_blocks_for_tilize`, ``CoreRangeSet``
    overload); the input (``c_0``) and output (``c_16``) DFBs hold one row of
    ``row`` tiles on every used core.  ``unit`` names the blocks in the note.
    """
    split = split_blocks_for_tilize(grid_xy(arch), nblocks)
    p = _Prog(factory, source)
    p.cb(0, names[0], in_tile, row, split.cores)
    p.cb(16, names[1], out_tile, row, split.cores)
    return p.note(f"{split.ncores} cores x {split.nblocks_per_core} {unit}"
                  + (f", cliff core {split.nblocks_per_core_cliff}" if split.cliff else ""))


def _usable(arch: Arch) -> int:
    """``l1_size - base``: ``get_static_l1_space`` / codegen ``usable_l1_bytes``."""
    return arch.l1_size - arch.l1_unreserved_base


def _half(arch: Arch) -> int:
    """``l1_size / 2 - base``: the ``max_l1_size`` of the single-core factories and ``get_pf_type``."""
    return arch.l1_size // 2 - arch.l1_unreserved_base


def pending_l1_output(arch: Arch, out: Tensor) -> int:
    """``get_pending_l1_output_reservation``: per-core bytes an L1-interleaved output will take.

    ``align(max(ceil(pages / banks) * align(page, l1_align), dram_align), dram_align)``; 0 for
    DRAM or sharded outputs (common.cpp).
    """
    if out.mem.buffer_type != "l1" or out.mem.sharded:
        return 0
    if out.tiled:
        page, pages = out.tile_bytes, ceil_div(out.physical_volume, TILE * TILE)
    else:
        page = out.width * out.element_bytes
        pages = out.height
    per_bank = ceil_div(pages, arch.num_cores) * align_up(page, arch.l1_alignment)
    return align_up(max(per_bank, arch.dram_alignment), arch.dram_alignment)


def is_enough_space(free: int, in_tile: int, out_tile: int, tiles_per_row: int,
                    staging_per_tile: int = 0, fixed_staging: int = 0) -> bool:
    """``is_enough_space``: one row of input and output tiles (plus staging) fits ``free`` (strictly);
    ``free`` already less the pending output (:func:`_routing_free`)."""
    return max(free, 0) > (in_tile + out_tile + staging_per_tile) * tiles_per_row + fixed_staging


def _routing_free(ctx: CBContext, out: Tensor) -> int:
    """The free L1 the routing decisions (``is_enough_space``, codegen gate) see.

    They run before the output is allocated and subtract its pending per-core
    size instead; ``ctx.max_l1_space`` already counts the output when it is in
    L1 (the analyzer's timeline), so it is added back first
    (``ctx.max_l1_space_before_outputs``).
    """
    return ctx.max_l1_space_before_outputs - pending_l1_output(ctx.arch, out)


# ---------------------------------------------------------------------------
# tilize (data_movement/tilize, TilizeDeviceOperation)
# ---------------------------------------------------------------------------

_TILIZE = f"{_DM}/tilize/device"


def _squeeze_4d(t: Tensor) -> Tensor:
    """``squeeze_from_ND_to_4D``: rank > 4 -> ``[prod(dims[:-3]), d-3, d-2, d-1]`` (a view)."""
    if len(t.shape) <= 4:
        return t
    lead = prod(t.shape[:-3])
    shape = (lead, *t.shape[-3:])
    padded = (lead, *t.padded[-3:])
    return t.with_(shape=shape, padded=padded)


def _at_least_2d(t: Tensor) -> Tensor:
    """A rank-1 tensor as the one row ``[1, W]`` it is physically (tilize_with_val_padding_device_operation.cpp
    @d80d9482: "if input tensor is 1D row-major, output tiled tensor will have 1D logical shape but 2D padded
    shape"); a rank-1 TILE tensor keeps its 2D padded shape ``[32, W]``."""
    if len(t.shape) >= 2:
        return t
    shape = (1,) * (2 - len(t.shape)) + tuple(t.shape)
    padded = tuple(t.padded) if len(t.padded) >= 2 else (1,) * (2 - len(t.padded)) + tuple(t.padded)
    return t.with_(shape=shape, padded=padded)


def _sharded_tilize_ok(t: Tensor, out_mem: MemCfg, arch: Arch) -> bool:
    """``can_use_sharded_optimized_factories`` (tilize_device_operation.cpp) for default 32x32 tiles."""
    m = t.mem
    if m.buffer_type != "l1" or out_mem.buffer_type != "l1" or m.memory_layout not in (
            "height_sharded", "width_sharded", "block_sharded"):
        return False
    if m.memory_layout == "width_sharded":
        if out_mem.memory_layout == "interleaved" or out_mem.shard is None:
            return False
        if out_mem.shard.shape[1] % TILE or out_mem.shard.shape[0] % TILE:
            return False
    if m.memory_layout == "height_sharded":
        if m.shard.shape[0] % TILE or m.shard.shape[1] % TILE:
            return False
        if out_mem.memory_layout == "interleaved":
            if not m.shard.row_major:
                return False
        elif out_mem.memory_layout != "height_sharded":
            return False
    if m.memory_layout in ("width_sharded", "block_sharded") and out_mem.memory_layout != m.memory_layout:
        return False
    if m.memory_layout == "block_sharded" and (out_mem.shard is None or out_mem.shard.shape[0] % TILE
                                               or out_mem.shard.shape[1] % TILE):
        return False
    gx, gy = grid_xy(arch)
    return all(x < gx and y < gy for x, y in m.shard.cores)


def tilize_output(t: Tensor, out_mem: MemCfg, dtype: DataType, arch: Arch) -> Tensor:
    """``TilizeDeviceOperation::compute_output_specs``: a sharded output taken by the sharded factory
    keeps the input's shard spec (and memory layout).

    Raises:
        DeviceRejection: that input shard is not tile-sized.  A width- or block-sharded input passes
            ``can_use_sharded_optimized_factories`` on the requested output shard alone, and TensorLayout's shard
            check refuses the TILE output of the row-major input's shard (TT_FATAL tensor_layout.cpp:171
            "Physical shard shape (3584, 12) must be tile {32, 32} sized!", measured: g1/ttnn.tilize/297).
    """
    mem = out_mem
    if out_mem.sharded and _sharded_tilize_ok(t, out_mem, arch):
        mem = MemCfg(out_mem.buffer_type, t.mem.memory_layout, t.mem.shard)
        if t.mem.shard.shape[0] % TILE or t.mem.shard.shape[1] % TILE:
            raise DeviceRejection(f"tilize: Physical shard shape {tuple(t.mem.shard.shape)} must be tile {{32, 32}} "
                                  "sized: the TILE output takes the input's shard spec (TilizeDeviceOperation::"
                                  "compute_output_specs; TT_FATAL tensor_layout.cpp:171)")
    return Tensor(t.shape, tile_padded_shape(t.shape), dtype, "tile", mem)


def tilize_program(t: Tensor, out: Tensor, arch: Arch, free: int, routing_free: int,
                   use_multicore: bool = True, tt_metal: str = "0.81.1") -> ProgramModel:
    """The program of ``ttnn::tilize`` (row-major, tile-aligned input).

    Routing (tilize.cpp): ``enough_space_height = is_enough_space(one padded row of
    tiles + staging 1/32 tile per tile + 128 B)``; a sharded input without
    enough space goes through DRAM (not modeled).  Factory
    (``TilizeDeviceOperation::select_program_factory``): single core when
    ``use_multicore`` is off; sharded input -> sharded factory when
    :func:`_sharded_tilize_ok`, else the default one; interleaved input -> block
    factory when the row does not fit or when the 2D split uses more cores than
    the row split (wider than 32 tiles), else the default factory.

    Raises:
        DeviceRejection: a sharded input without ``use_multicore`` (TilizeDeviceOperation::validate,
            tilize_device_operation.cpp:243 at d80d9482: "Multicore must be enabled for sharded input";
            measured: g1/ttnn.tilize/47, 159).
        CBModelError: configurations outside the model (sharded reroute through DRAM).
    """
    t = _squeeze_4d(t)
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    row_tiles = t.width // TILE
    enough = is_enough_space(routing_free, in_tile, out_tile, row_tiles, in_tile // TILE, 2 * arch.dram_alignment)
    if t.mem.sharded and not enough:
        raise CBModelError("tilize of a wide sharded input is rerouted through DRAM (to_memory_config + tilize + "
                           "to_memory_config): three programs, not modeled")
    if t.mem.sharded and not use_multicore:
        raise DeviceRejection("tilize: Multicore must be enabled for sharded input (TT_FATAL "
                              "tilize_device_operation.cpp)")
    if not use_multicore:
        return _tilize_single_core(t, out, arch)
    if t.mem.sharded:
        if _sharded_tilize_ok(t, out.mem, arch):
            return _tilize_sharded(t, out)
        return _tilize_default(t, out, arch, sharded_input=True)
    if not enough:
        return block_program("TilizeMultiCoreBlockProgramFactory", f"{_TILIZE}/tilize_multi_core_block_program_factory.cpp",
                             "tilize", t, out, arch, free, tt_metal, note="row of tiles does not fit the free L1")
    col_tiles = t.padded[-2] // TILE
    area = arch.num_cores
    nblocks = t.height // TILE
    if row_tiles > 32 and (col_tiles > 32 or row_tiles > col_tiles):
        n_wh = compute_ncores_wh(area, t.padded[-1] * t.padded[-2] // (TILE * TILE), row_tiles, col_tiles)
        n_rows = compute_ncores(area, nblocks)[0]
        if n_rows < n_wh:
            return block_program("TilizeMultiCoreBlockProgramFactory",
                                 f"{_TILIZE}/tilize_multi_core_block_program_factory.cpp", "tilize", t, out, arch, free,
                                 tt_metal, note=f"2D split uses {n_wh} cores > {n_rows}")
    return _tilize_default(t, out, arch)


def _tilize_single_core(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """TilizeSingleCoreProgramFactory: core (0,0); a block is the whole row, or its largest divisor that fits
    ``half / (in_tile + out_tile)`` tiles; in and out DFBs of one block."""
    row = t.width // TILE
    max_tiles = _half(arch) // (t.tile_bytes + out.tile_bytes)
    p, block = _single_core("TilizeSingleCoreProgramFactory", f"{_TILIZE}/tilize_single_core_program_factory.cpp",
                            "in", t.tile_bytes, out.tile_bytes, row, max_tiles)
    return p.note(f"{block} of {row} tiles per block, max {max_tiles}").build()


def _tilize_default(t: Tensor, out: Tensor, arch: Arch, sharded_input: bool = False) -> ProgramModel:
    """TilizeMultiCoreDefaultProgramFactory: rows of tiles (``ceil(logical W / 32)`` tiles each) over the grid
    column by column (:func:`split_blocks_for_tilize`); in and out DFBs of one row on every used core."""
    row = ceil_div(t.shape[-1], TILE)
    ntiles = out.physical_volume // (TILE * TILE)
    p = _tile_rows("TilizeMultiCoreDefaultProgramFactory", f"{_TILIZE}/tilize_multi_core_default_program_factory.cpp",
                   ("input", "output"), t.tile_bytes, out.tile_bytes, row, ceil_div(ntiles, row), arch,
                   f"rows of {row} tiles")
    if sharded_input:
        p.note("sharded input without the sharded factory")
    return p.build()


def _tilize_sharded(t: Tensor, out: Tensor) -> ProgramModel:
    """TilizeMultiCoreShardedProgramFactory on the input shard cores: the input DFB borrows the input shard
    (``shard_h * shard_w / 1024`` tiles); the output DFB borrows the output shard when the output is sharded,
    else it is a local DFB of one shard row of tiles (``shard_w / 32``)."""
    sh = t.mem.shard
    tiles = sh.shape[0] * sh.shape[1] // (TILE * TILE)
    row = sh.shape[1] // TILE
    p = _Prog("TilizeMultiCoreShardedProgramFactory", f"{_TILIZE}/tilize_multi_core_sharded_program_factory.cpp")
    p.cb(0, "input", t.tile_bytes, tiles, sh.cores, borrowed=True)
    if out.mem.sharded:
        p.cb(16, "output", out.tile_bytes, tiles, sh.cores, borrowed=True)
    else:
        p.cb(16, "output", out.tile_bytes, row, sh.cores)
    return p.build()


# ---------------------------------------------------------------------------
# The 2D block factories (tilize, tilize_with_val_padding, untilize, untilize_with_unpadding)
# ---------------------------------------------------------------------------


def block_program(factory: str, source: str, direction: str, t: Tensor, out: Tensor, arch: Arch, free: int,
                  tt_metal: str = "0.81.1", note: str = "") -> ProgramModel:
    """A block factory built on ``make_block_plan`` (data_movement/common/common.cpp).

    The split covers one 2D slice of the tiled tensor (``padded[-2] x padded[-1]``,
    of the output for tilize, of the input for untilize; the kernels loop over the
    outer dims).  Blocks are limited to ``free / (in_tile + out_tile)`` tiles
    (untilize) or ``(free - 128) / (in_tile + out_tile + in_tile/32)`` tiles
    (tilize, which adds a staging scratchpad of ``in_tile/32 * block + 128`` B).
    Cores: row by row for ``untilize``, column by column otherwise.  Full-set
    cores get DFBs of ``sub_block`` tiles, cliff-row cores DFBs of the cliff
    width, in that order (the 0.81.1 factories declare the full set's DFBs, then
    the cliff-row set's).

    tt-metal 2025-12 (``tt_metal='2025-12'``, the seed 001 build) had no block
    limit, walked the cores column by column for every direction (the
    ``CoreRangeSet`` overload of ``split_blocks_for_tilize_wh``), and created
    legacy CBs c_0/c_16 per core range in the order core_range, cliff_col_row,
    cliff_row, cliff_col (seed 001: the corner core (7,6) comes first and its
    allocator is the one tt-metal reports).
    """
    tilize = direction in ("tilize", "tilize_with_val_padding")
    sliced = out if tilize else t
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    row, col = sliced.padded[-1] // TILE, sliced.padded[-2] // TILE
    nblocks = row * col
    staging_per_tile = in_tile // TILE if tilize else 0
    fixed = 2 * arch.dram_alignment if tilize else 0
    budget = free - fixed if free > fixed else 0
    legacy = tt_metal == "2025-12"
    limit = None if legacy else budget // (in_tile + out_tile + staging_per_tile)
    split = split_blocks_for_tilize_wh(grid_xy(arch), nblocks, row, col, limit,
                                       row_wise=direction == "untilize" and not legacy)
    p = _Prog(factory, source)
    if legacy:
        groups = ((split.core_range, split.sub_block, "core_range"), (split.cliff_col_row, split.cliff_row_tiles, "cliff_col_row"),
                  (split.cliff_row, split.cliff_row_tiles, "cliff_row"), (split.cliff_col, split.sub_block, "cliff_col"))
        for cores, tiles, tag in groups:
            p.cb(0, f"in_{tag}", in_tile, tiles, cores)
            p.cb(16, f"out_{tag}", out_tile, tiles, cores)
    for cores, tiles, tag in (() if legacy else ((split.full, split.sub_block, "full"),
                                                 (split.cliffrow, split.cliff_row_tiles, "cliffrow"))):
        if not cores:
            continue
        idx = 0 if tag == "full" else 2
        p.cb(idx, f"in_{tag}", in_tile, tiles, cores)
        p.cb(16 + (tag != "full"), f"out_{tag}", out_tile, tiles, cores)
        if tilize:
            p.scratchpad(staging_per_tile * tiles + fixed, cores)
    p.note(f"blocks of {split.block} tiles in sub-blocks of {split.sub_block}"
           + (f", limit {limit} tiles from {free} B free" if limit is not None else ", no L1 limit (tt-metal 2025-12)")
           + (f", cliff row {split.cliff_row_tiles} tiles" if split.cliffrow else ""))
    if note:
        p.note(note)
    return p.build()


# ---------------------------------------------------------------------------
# tilize_with_val_padding
# ---------------------------------------------------------------------------

_TWVP = f"{_DM}/tilize_with_val_padding/device/factories"


def _twvp_sharded_ok(t: Tensor, out: Tensor) -> bool:
    """``can_use_tilize_with_val_padding_sharded_factory``: L1 width-sharded in and out, only the
    second-last dim padded."""
    if t.mem.buffer_type != "l1" or out.mem.buffer_type != "l1":
        return False
    if t.mem.memory_layout != "width_sharded" or out.mem.memory_layout != "width_sharded":
        return False
    return all(a == b for i, (a, b) in enumerate(zip(t.padded, out.padded)) if i != len(t.padded) - 2)


def twvp_output(t: Tensor, out_mem: MemCfg, dtype: DataType) -> Tensor:
    """``TilizeWithValPaddingDeviceOperation::compute_output_specs``: the sharded factory keeps the input's
    width-sharded spec with the shard height set to the whole padded height."""
    padded = tile_padded_shape(t.shape)
    res = Tensor(t.shape, padded, dtype, "tile", out_mem)
    if t.mem.sharded and _twvp_sharded_ok(t, res):
        sh = t.mem.shard
        height = prod(padded[:-1])
        res = res.with_(mem=MemCfg(out_mem.buffer_type, "width_sharded", Shard(sh.grid, (height, sh.shape[1]), sh.row_major)))
    return res


def twvp_program(t: Tensor, out: Tensor, arch: Arch, free: int, routing_free: int, use_multicore: bool = True,
                 tt_metal: str = "0.81.1") -> ProgramModel:
    """The program of ``ttnn::tilize_with_val_padding`` (row-major input padded to tiles).

    Routing (tilize_with_val_padding.cpp + device op ``select_program_factory``):
    sharded input -> sharded factory (width-sharded L1 in and out) or the default
    one; otherwise the block factory when one padded row of tiles (+ staging)
    does not fit, then single core without ``use_multicore``, then block when the
    2D split beats the row split (rows wider than 32 tiles), else default.

    Raises:
        CBModelError: a wide sharded input (rerouted through DRAM, three programs).
    """
    t4, o4 = _at_least_2d(_squeeze_4d(t)), _at_least_2d(_squeeze_4d(out))
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    row_tiles = o4.padded[-1] // TILE
    enough_h = is_enough_space(routing_free, in_tile, out_tile, row_tiles, in_tile // TILE, 2 * arch.dram_alignment)
    if t.mem.sharded:
        if _twvp_sharded_ok(t4, o4):
            return _twvp_sharded(t4, o4)
        if not enough_h:
            raise CBModelError("tilize_with_val_padding of a wide sharded input goes through DRAM: not modeled")
        return _twvp_default(t4, o4, arch).note("sharded input without the sharded factory").build()
    block = ("TilizeWithValPaddingMultiCoreBlockInterleavedFactory",
             f"{_TWVP}/tilize_with_val_padding_multi_core_block_interleaved_program_factory.cpp")
    if not enough_h:
        return block_program(*block, "tilize_with_val_padding", t4, o4, arch, free, tt_metal,
                             note="row of tiles does not fit the free L1")
    if not use_multicore:
        return _twvp_single_core(t4, o4, arch)
    col_tiles = o4.padded[-2] // TILE
    nblocks = o4.height // TILE
    area = arch.num_cores
    if row_tiles > 32 and (col_tiles > 32 or row_tiles > col_tiles):
        n_wh = compute_ncores_wh(area, t4.padded[-1] * t4.padded[-2] // (TILE * TILE), row_tiles, col_tiles)
        if compute_ncores(area, nblocks)[0] < n_wh:
            return block_program(*block, "tilize_with_val_padding", t4, o4, arch, free, tt_metal,
                                 note=f"2D split uses {n_wh} cores")
    return _twvp_default(t4, o4, arch).build()


def _twvp_default(t: Tensor, out: Tensor, arch: Arch) -> _Prog:
    """TilizeWithValPaddingMultiCoreDefaultFactory: padded rows of tiles over the grid column by column;
    in and out DFBs of one padded row of tiles."""
    row = out.padded[-1] // TILE
    return _tile_rows("TilizeWithValPaddingMultiCoreDefaultFactory",
                      f"{_TWVP}/tilize_with_val_padding_multi_core_default_program_factory.cpp", ("in", "out"),
                      t.tile_bytes, out.tile_bytes, row, out.height // TILE, arch, f"rows of {row} tiles")


def _twvp_single_core(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """TilizeWithValPaddingSingleCoreFactory: core (0,0); block = the padded row, or its largest divisor
    within ``((half - 32) / (65 * element)) / 32`` tiles."""
    es = t.element_bytes
    row = out.padded[-1] // TILE
    max_tiles = ((_half(arch) - 32) // (es * TILE * 2 + es)) // TILE
    p, block = _single_core("TilizeWithValPaddingSingleCoreFactory",
                            f"{_TWVP}/tilize_with_val_padding_single_core_program_factory.cpp",
                            "in", t.tile_bytes, out.tile_bytes, row, max_tiles)
    return p.note(f"{block} of {row} tiles per block").build()


def _twvp_sharded(t: Tensor, out: Tensor) -> ProgramModel:
    """TilizeWithValPaddingMultiCoreShardedFactory on the output shard cores: a staging DFB of two batches of
    output tiles (``out_shard_h * out_shard_w / 1024 / batches * 2``), the output DFB borrowing the output
    shard, and a scratchpad of one input shard row (``in_shard_w * element`` B) of pad values."""
    osh = out.mem.shard
    batches = out.physical_volume // (out.padded[-2] * out.padded[-1])
    tiles_per_core = osh.shape[0] * osh.shape[1] // (TILE * TILE)
    p = _Prog("TilizeWithValPaddingMultiCoreShardedFactory",
              f"{_TWVP}/tilize_with_val_padding_multi_core_sharded_program_factory.cpp")
    p.cb(0, "stage", t.tile_bytes, tiles_per_core // batches * 2, osh.cores)
    p.cb(16, "out_shard", out.tile_bytes, tiles_per_core, osh.cores, borrowed=True)
    p.scratchpad(t.mem.shard.shape[1] * t.element_bytes, osh.cores)
    return p.build()


# ---------------------------------------------------------------------------
# untilize (data_movement/untilize: codegen op, then UntilizeDeviceOperation)
# ---------------------------------------------------------------------------

_UNTILIZE = f"{_DM}/untilize"
_CODEGEN_TILE = 2048  # untilize_codegen_supported.cpp kTileSize (bf16 / bfp8 only)
_CODEGEN_WIDE = 800_000  # kWideChunkThreshold


def untilize_output(t: Tensor, out_mem: MemCfg) -> Tensor:
    """Untilize's output (``UntilizeDeviceOperation``, ``UntilizeWithUnpaddingDeviceOperation``,
    ``UntilizeCodegenDeviceOperation::compute_output_specs``): row-major, logical shape, no padding,
    bfloat8_b becomes bfloat16 (``untilize_output_dtype``)."""
    dtype = DataType("bf16") if t.dtype.name == "bfp_bf8" else t.dtype
    return Tensor(t.shape, t.shape or (1,), dtype, "row_major", out_mem)


def _tile_aligned(t: Tensor) -> bool:
    return len(t.shape) >= 2 and t.shape[-2] % TILE == 0 and t.shape[-1] % TILE == 0


def _codegen_supported(t: Tensor, out_mem: MemCfg, arch: Arch) -> bool:
    """``supported_by_codegen`` (untilize_codegen_supported.cpp): interleaved bf16/bfp8 tile input and
    interleaved output; unaligned only for bf16 rows up to 800,000 B of two row buffers; aligned: multi-row
    tensors within that width, one-row tensors when the column split's double buffer fits ``usable``."""
    if not t.tiled or t.dtype.name not in ("bf16", "bfp_bf8") or t.mem.sharded or out_mem.sharded:
        return False
    if not _tile_aligned(t):
        if t.dtype.name != "bf16":
            return False
        return 2 * ceil_div(t.shape[-1], TILE) * _CODEGEN_TILE <= _CODEGEN_WIDE
    wt, rows = t.width // TILE, t.height // TILE
    if rows > 1 and 2 * wt * _CODEGEN_TILE > _CODEGEN_WIDE:
        return False
    if rows == 1 and wt > 1:
        split = split_work_to_cores(grid_xy(arch), wt, row_wise=True)
        return 2 * split.units_per_core_group_1 * _CODEGEN_TILE <= _usable(arch)
    return True


def _codegen_ncol(rows: int, wt: int, cores: int) -> int:
    """``choose_2d_ncol``: the largest divisor of ``wt`` up to ``min(cores // rows, wt)`` (1 if none)."""
    if rows >= cores or wt < 2:
        return 1
    return max((d for d in range(2, min(cores // rows, wt) + 1) if wt % d == 0), default=1)


def _codegen_pages(t: Tensor, arch: Arch) -> int:
    """``pages_for_builder``: tiles per unit of work of the chosen codegen builder."""
    wt, rows = t.width // TILE, t.height // TILE
    if not _tile_aligned(t):
        return wt
    if rows == 1 and wt > 1:
        return split_work_to_cores(grid_xy(arch), wt, row_wise=True).units_per_core_group_1
    if wt > 1:
        ncol = _codegen_ncol(rows, wt, arch.num_cores)
        if ncol >= 2:
            return wt // ncol
    return wt


def _codegen_depths(usable: int, pages: int, tile: int) -> tuple[int, int] | None:
    """``plan_cb_depths``: (in, out) depth in tiles: double both, double input, single both, or None."""
    if 4 * pages * tile <= usable:
        return 2 * pages, 2 * pages
    if 3 * pages * tile <= usable:
        return 2 * pages, pages
    if 2 * pages * tile <= usable:
        return pages, pages
    return None


def codegen_program(t: Tensor, out: Tensor, arch: Arch, free: int) -> ProgramModel:
    """UntilizeCodegenProgramFactory (untilize/codegen/untilize_codegen_program_factory.cpp).

    CB depths from :func:`_codegen_depths` with the free L1 (``get_max_l1_space``) and
    ``max(in_tile, out_tile)``; CB pages are tiles aligned to the DRAM alignment.  Cores:
    unaligned -> tile rows over the grid row by row (in and out CBs both in the
    input format); one tile row -> its tiles over the grid (column parallel);
    else ``ncol = choose_2d_ncol`` column chunks per tile row when >= 2, else
    tile rows over the grid.

    Raises:
        CBModelError: no depth fits (tt-metal throws; ``ttnn::untilize`` routes such a case to the
            native op first, so this only happens on a direct call).
    """
    wt, rows = t.width // TILE, t.height // TILE
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    pages = _codegen_pages(t, arch)
    depths = _codegen_depths(free, pages, max(in_tile, out_tile))
    if depths is None:
        raise CBModelError(f"untilize codegen: no CB plan fits the {free} B of free L1")
    grid = grid_xy(arch)
    if not _tile_aligned(t):
        units, kind = rows, "with unpadding"
        out_tile = in_tile
    elif rows == 1 and wt > 1:
        units, kind = wt, "column parallel"
    else:
        ncol = _codegen_ncol(rows, wt, arch.num_cores) if wt > 1 else 1
        units, kind = (rows * ncol, f"2D, {ncol} column chunks") if ncol >= 2 else (rows, "tile rows")
    cores = split_work_to_cores(grid, units, row_wise=True).cores
    page_in, page_out = align_up(in_tile, arch.dram_alignment), align_up(out_tile, arch.dram_alignment)
    p = _Prog("UntilizeCodegenProgramFactory", f"{_UNTILIZE}/codegen/untilize_codegen_program_factory.cpp")
    p.cb(0, "in", page_in, depths[0], cores)
    p.cb(16, "out", page_out, depths[1], cores)
    return p.note(f"codegen {kind}: {units} units on {len(cores)} cores, {pages} tiles per unit").build()


def _pf_type(t: Tensor, out_sharded: bool, arch: Arch) -> int:
    """``get_pf_type``: 0 column-parallel, 1 single core, 2 default (a row of tiles exceeds
    ``half / (2 * tile)`` for an interleaved input)."""
    max_tiles = _half(arch) // (2 * t.tile_bytes)
    if not t.mem.sharded and t.width // TILE > max_tiles:
        return 0 if not out_sharded and t.height // TILE == 1 else 1
    return 2


def untilize_program(t: Tensor, out: Tensor, arch: Arch, free: int, routing_free: int, use_multicore: bool = True,
                     tt_metal: str = "0.81.1") -> ProgramModel:
    """The program of ``ttnn::untilize`` (untilize/untilize.cpp).

    An interleaved bf16/bfp8 input the code generator supports, whose CB plan
    fits the free L1 less the pending output, runs the codegen op.  Otherwise
    a padded interleaved input goes to ``untilize_with_unpadding``, and the rest
    to ``UntilizeDeviceOperation::select_program_factory``: single core without
    ``use_multicore``; block when the row does not fit (interleaved in and out);
    the shard-identical factory for equal L1 shard specs; block when the 2D split
    beats the row split; then ``get_pf_type`` (column-parallel / single core /
    multi-core).

    Raises:
        DeviceRejection: a sharded output whose shard row is not a multiple of its buffer alignment.
        CBModelError: ND-sharded inputs (not modeled).
    """
    t = _squeeze_4d(t)
    out = _squeeze_4d(out)
    if use_multicore and _codegen_supported(t, out.mem, arch):
        depths = _codegen_depths(routing_free, _codegen_pages(t, arch), max(t.tile_bytes, out.tile_bytes))
        if depths is not None:
            return codegen_program(t, out, arch, free)
    if not t.mem.sharded and t.shape != t.padded:
        return uwu_program(t, out, arch, free, routing_free, use_multicore, tt_metal)
    if out.mem.sharded:
        # UntilizeDeviceOperation::validate_on_program_cache_miss: the output shard row (bfloat8_b untilizes to
        # 2-B elements) must be a multiple of the output buffer's alignment (measured: g1/ttnn.untilize/10, a
        # width-sharded si32 output of 61-element = 244-B shard rows refused)
        row_bytes = out.mem.shard.shape[1] * (2 if t.dtype.is_block_float else t.element_bytes)
        align = arch.l1_alignment if out.mem.buffer_type == "l1" else arch.dram_alignment
        if row_bytes % align:
            raise DeviceRejection(f"untilize: output shard row size {row_bytes} B must be aligned to {align} B "
                                  "(untilize_device_operation.cpp TT_FATAL)")
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    row = t.width // TILE
    enough = is_enough_space(routing_free, in_tile, out_tile, row)
    if not use_multicore:
        _single_core_shard_checks(t, out)
        return _untilize_single_core(t, out, arch)
    block = ("UntilizeMultiCoreBlockProgramFactory", f"{_UNTILIZE}/device/factories/untilize_multi_core_block_program_factory.cpp")
    if not enough and not t.mem.sharded and not out.mem.sharded:
        return block_program(*block, "untilize", t, out, arch, free, tt_metal, note="row of tiles does not fit")
    if (t.mem.sharded and out.mem.sharded and t.mem.buffer_type == "l1" and out.mem.buffer_type == "l1"
            and t.mem.memory_layout == out.mem.memory_layout and t.mem.shard == out.mem.shard):
        return _untilize_shard_identical(t, out)
    col = t.height // TILE
    if not t.mem.sharded and not out.mem.sharded and row > 32 and (col > 32 or row > col):
        # untilize compares with the whole collapsed height, the other ops with padded[-2]
        n_wh = compute_ncores_wh(arch.num_cores, t.padded[-1] * t.padded[-2] // (TILE * TILE), row, col)
        if compute_ncores(arch.num_cores, col)[0] < n_wh:
            return block_program(*block, "untilize", t, out, arch, free, tt_metal, note=f"2D split uses {n_wh} cores")
    pf = _pf_type(t, out.mem.sharded, arch)
    if pf == 0:
        return _untilize_column_parallel(t, out, arch)
    if pf == 1:
        return _untilize_single_core(t, out, arch)
    return _untilize_multi_core(t, out, arch)


def _single_core_shard_checks(t: Tensor, out: Tensor) -> None:
    """``UntilizeDeviceOperation::validate`` without ``use_multicore`` (untilize_device_operation.cpp
    @d80d9482, lines 190-262): an output shard at least a tile wide, and input and output shards that
    divide the tensor's padded width and its height (``physical_volume / width``).

    Raises:
        DeviceRejection: a check fails (measured: campaign instance g1/ttnn.untilize/2, a height-sharded
            [1, 864, 288] f32 on 5 cores, shards of 192 rows: "Uneven input shard height").
    """
    width = t.padded[-1]
    height = prod(t.padded) // width if width else 0
    if out.mem.sharded and out.mem.shard is not None and out.mem.shard.shape[1] % TILE:
        raise DeviceRejection(f"untilize (single core): output shard width {out.mem.shard.shape[1]} is not a multiple "
                              "of the tile width (UntilizeDeviceOperation TT_FATAL)")
    for side, x in (("input", t), ("output", out)):
        if x.mem.sharded and x.mem.shard is not None:
            sh, sw = x.mem.shard.shape
            if width % sw or height % sh:
                raise DeviceRejection(f"untilize (single core): uneven {side} shard {sh} x {sw} of the {height} x {width} "
                                      "tensor is not supported (UntilizeDeviceOperation TT_FATAL 'Uneven "
                                      f"{side} shard ...')")


def _untilize_single_core(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeSingleCoreProgramFactory: core (0,0); block = the row (per output shard column), or its largest
    divisor within ``half / (in_tile + out_tile)`` tiles; in and out DFBs of one block."""
    columns = 1
    if out.mem.memory_layout in ("width_sharded", "block_sharded"):
        columns = t.width // out.mem.shard.shape[1]
    row = t.width // columns // TILE
    max_tiles = _half(arch) // (t.tile_bytes + out.tile_bytes)
    p, block = _single_core("UntilizeSingleCoreProgramFactory",
                            f"{_UNTILIZE}/device/factories/untilize_single_core_program_factory.cpp",
                            "src0", t.tile_bytes, out.tile_bytes, row, max_tiles)
    return p.note(f"{block} of {row} tiles per block").build()


def _untilize_multi_core(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeMultiCoreProgramFactory.

    Interleaved input: tile rows over the grid row by row
    (:func:`split_blocks_for_tilize`, CoreCoord overload); DFBs of one row of tiles,
    two rows when a core gets more than one.  Sharded (L1, even) input: on the
    shard cores, the input DFB borrows the shard, the output DFB holds one or two
    shard rows of tiles.
    """
    row_tiles = t.width // TILE
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    p = _Prog("UntilizeMultiCoreProgramFactory", f"{_UNTILIZE}/device/factories/untilize_multi_core_program_factory.cpp")
    if t.mem.sharded:
        sh = t.mem.shard
        block = sh.shape[1] // TILE
        blocks = sh.shape[0] // TILE
        uneven = t.height % sh.shape[0] or t.width % sh.shape[1]
        block_reader = bool(uneven) or t.mem.buffer_type == "dram"
        cores = _shard_cores_with_data(t)
        in_pages = block * blocks if not block_reader else (block if blocks == 1 else 2 * block)
        p.cb(0, "src0", in_tile, in_pages, cores, borrowed=not block_reader)
        p.cb(16, "out", out_tile, block if blocks == 1 else 2 * block, cores)
        return p.note("sharded input").build()
    split = split_blocks_for_tilize(grid_xy(arch), t.height // TILE, row_wise=True)
    depth = row_tiles if split.nblocks_per_core == 1 else 2 * row_tiles
    p.cb(0, "src0", in_tile, depth, split.cores)
    p.cb(16, "out", out_tile, depth, split.cores)
    return p.note(f"{split.ncores} cores x {split.nblocks_per_core} tile rows").build()


def _untilize_column_parallel(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeMultiCoreParallelizeColumnProgramFactory: single tiles (blocks of 1) over an
    ``ncores_x x ncores_y`` sub-grid dividing the tile count, row by row; DFBs of 2 tiles."""
    ntiles = t.physical_volume // (TILE * TILE)
    gx, gy = grid_xy(arch)
    nx = next(d for d in range(gx, 0, -1) if ntiles % d == 0)
    ny = next((d for d in range(gy, 0, -1) if ntiles % (d * nx) == 0), 1)
    split = split_blocks_for_tilize((nx, ny), ntiles, row_wise=True)
    p = _Prog("UntilizeMultiCoreParallelizeColumnProgramFactory",
              f"{_UNTILIZE}/device/factories/untilize_multi_core_parallelize_column_program_factory.cpp")
    p.cb(0, "src0", t.tile_bytes, 2, split.cores)
    p.cb(16, "out", out.tile_bytes, 2, split.cores)
    return p.build()


def untilize_sub_core_grids_program(t: Tensor, out: Tensor, sub_cores: list[Core]) -> ProgramModel:
    """UntilizeMultiCoreSubCoreGridsProgramFactory (``ttnn.untilize(..., sub_core_grids=...)`` only; tt-mlir
    never passes sub-core grids): the largest core count of ``sub_cores`` (taken row by row) dividing the
    tile count; DFBs of 2 tiles on those cores.  ``sub_cores`` is ``corerange_to_cores(grids, row_wise=True)``."""
    ntiles = t.physical_volume // (TILE * TILE)
    n = next(c for c in range(len(sub_cores), 0, -1) if ntiles % c == 0)
    p = _Prog("UntilizeMultiCoreSubCoreGridsProgramFactory",
              f"{_UNTILIZE}/device/factories/untilize_multi_core_sub_core_grids_program_factory.cpp")
    p.cb(0, "src0", t.tile_bytes, 2, sub_cores[:n])
    p.cb(16, "out", out.tile_bytes, 2, sub_cores[:n])
    return p.build()


def _untilize_shard_identical(t: Tensor, out: Tensor) -> ProgramModel:
    """UntilizeMultiCoreInputAndOutputShardTypeAndShardSpecIdenticalProgramFactory: both DFBs borrow the
    shards (one shard of tiles each) on the shard cores: no L1 of their own."""
    sh = t.mem.shard
    tiles = (sh.shape[1] // TILE) * (sh.shape[0] // TILE)
    p = _Prog("UntilizeMultiCoreInputAndOutputShardTypeAndShardSpecIdenticalProgramFactory",
              f"{_UNTILIZE}/device/factories/untilize_multi_core_input_and_output_shard_type_and_shard_spec_identical"
              "_program_factory.cpp")
    p.cb(0, "src0", t.tile_bytes, tiles, sh.cores, borrowed=True)
    p.cb(16, "out", out.tile_bytes, tiles, sh.cores, borrowed=True)
    return p.build()


def _shard_cores_with_data(t: Tensor) -> list[Core]:
    """``get_optimal_worker_cores_for_sharded_tensor`` for an L1 tensor: the shard cores holding a shard
    (the first ``ceil(H / shard_h)`` (height), ``ceil(W / shard_w)`` (width) or all (block) shard cores)."""
    sh = t.mem.shard
    if t.mem.memory_layout == "height_sharded":
        n = ceil_div(t.height, sh.shape[0])
    elif t.mem.memory_layout == "width_sharded":
        n = ceil_div(t.width, sh.shape[1])
    else:
        n = len(sh.cores)
    return list(sh.cores[:n])


# ---------------------------------------------------------------------------
# untilize_with_unpadding
# ---------------------------------------------------------------------------

_UWU = f"{_DM}/untilize_with_unpadding/device/factories"


def uwu_program(t: Tensor, out: Tensor, arch: Arch, free: int, routing_free: int, use_multicore: bool = True,
                tt_metal: str = "0.81.1") -> ProgramModel:
    """The program of ``ttnn::untilize_with_unpadding`` (untilize_with_unpadding.cpp, device op
    ``select_program_factory``): sharded input -> sharded factory; sharded output -> interleaved
    factory; single core without ``use_multicore``; block when a row of tiles does not fit the free L1
    less the pending output or the 2D split beats the row split; else interleaved multi-core.

    Raises:
        DeviceRejection: a block-sharded input, or a width-sharded one into an interleaved output, holding
            more than one ``[H, W]`` matrix (validate_on_program_cache_miss: "Can only write unbatched output
            interleaved"; measured: g1/ttnn.to_layout/256, block sharded [2, 1024, 31]).
    """
    t, out = _squeeze_4d(t), _squeeze_4d(out)
    in_tile, out_tile = t.tile_bytes, out.tile_bytes
    row = t.width // TILE
    if t.mem.sharded:
        batched = t.physical_volume // (t.padded[-2] * t.padded[-1]) != 1 if len(t.padded) >= 2 else False
        if batched and (t.mem.memory_layout == "block_sharded"
                        or (t.mem.memory_layout == "width_sharded" and not out.mem.sharded)):
            raise DeviceRejection("untilize_with_unpadding: Can only write unbatched output interleaved (TT_FATAL "
                                  "untilize_with_unpadding_device_operation.cpp)")
        return _uwu_sharded(t, out, arch)
    if out.mem.sharded:
        return _uwu_interleaved(t, out, arch)
    if not use_multicore:
        return _uwu_single_core(t, out, arch)
    block = ("UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory",
             f"{_UWU}/untilize_with_unpadding_multi_core_block_interleaved_program_factory.cpp")
    if not is_enough_space(routing_free, in_tile, out_tile, row):
        return block_program(*block, "untilize_with_unpadding", t, out, arch, free, tt_metal,
                             note="row of tiles does not fit the free L1")
    col = t.padded[-2] // TILE
    if row > 32 and (col > 32 or row > col):
        n_wh = compute_ncores_wh(arch.num_cores, t.padded[-1] * t.padded[-2] // (TILE * TILE), row, col)
        if compute_ncores(arch.num_cores, t.height // TILE)[0] < n_wh:
            return block_program(*block, "untilize_with_unpadding", t, out, arch, free, tt_metal,
                                 note=f"2D split uses {n_wh} cores")
    return _uwu_interleaved(t, out, arch)


def _uwu_interleaved(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory: tile rows over the grid column by column;
    in and out DFBs of one padded row of tiles."""
    return _tile_rows("UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory",
                      f"{_UWU}/untilize_with_unpadding_multi_core_interleaved_program_factory.cpp", ("mci_in", "mci_out"),
                      t.tile_bytes, out.tile_bytes, t.width // TILE, t.height // TILE, arch, "tile rows").build()


def _uwu_single_core(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeWithUnpaddingSingleCoreProgramFactory: core (0,0); block = the padded row of tiles, or its
    largest divisor within ``((half - 32) / (65 * out_element)) / 32`` tiles (mock P150, bf16: 162, so
    [4, 4884480] -> 160-tile blocks, 2 x 327,680 B)."""
    es = out.element_bytes
    row = t.width // TILE
    max_tiles = ((_half(arch) - 32) // (es * TILE * 2 + es)) // TILE
    p, block = _single_core("UntilizeWithUnpaddingSingleCoreProgramFactory",
                            f"{_UWU}/untilize_with_unpadding_single_core_program_factory.cpp",
                            "in", t.tile_bytes, out.tile_bytes, row, max_tiles)
    return p.note(f"{block} of {row} tiles per block, max {max_tiles}").build()


def _uwu_sharded(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """UntilizeWithUnpaddingMultiCoreShardedProgramFactory on the input shard grid: the input DFB borrows
    the shard; the output DFB holds two shard rows of tiles (interleaved or other-layout output) or two
    batches of tiles (16 tiles for a 16-wide output) plus a borrowed output-shard DFB (same-layout sharded
    output).

    Raises:
        DeviceRejection: a width-sharded input untilized into an interleaved result that is batched (more
            than one H x W matrix: "Can only write unbatched output interleaved") or unpads at least a
            shard width (``validate_on_program_cache_miss``, untilize_with_unpadding_device_operation.cpp;
            measured: g1/ttnn.slice_static/78, a [4, 1, 1, 2] width-sharded input).
    """
    sh = t.mem.shard
    per_row, rows = sh.shape[1] // TILE, sh.shape[0] // TILE
    global_batch = t.physical_volume // (t.padded[-2] * t.padded[-1])
    if t.mem.memory_layout == "width_sharded" and not out.mem.sharded and t.volume:
        if global_batch != 1:
            raise DeviceRejection("untilize_with_unpadding of a width-sharded input into an interleaved result: "
                                  f"{global_batch} matrices (TT_FATAL 'Can only write unbatched output interleaved')")
        if t.padded[-1] - out.shape[-1] >= sh.shape[1]:
            raise DeviceRejection(f"untilize_with_unpadding: input width difference ({t.padded[-1] - out.shape[-1]}) "
                                  f"must be less than shard width ({sh.shape[1]}) (TT_FATAL)")
    batch = (max(1, sh.shape[0] * sh.shape[1] // (t.padded[-2] * t.padded[-1]))
             if t.mem.memory_layout == "height_sharded" else global_batch)
    per_batch = per_row * rows // batch
    out_sharded = out.mem.sharded
    cross = out_sharded and out.mem.memory_layout != t.mem.memory_layout
    w16 = out_sharded and not cross and out.padded[-1] == 16 and out.padded[-2] % TILE == 0
    out_tiles = (16 if w16 else per_batch * 2) if out_sharded else per_row * 2
    p = _Prog("UntilizeWithUnpaddingMultiCoreShardedProgramFactory",
              f"{_UWU}/untilize_with_unpadding_multi_core_sharded_program_factory.cpp")
    p.cb(0, "in", t.tile_bytes, per_row * rows, sh.cores, borrowed=True)
    p.cb(16, "out", out.tile_bytes, out_tiles, sh.cores)
    if out_sharded and not cross:
        osh = out.mem.shard
        page = align_up(osh.shape[1] * out.element_bytes, arch.l1_alignment)
        rows_out = out.height
        unpadded = osh.shape[0] - (align_up(rows_out, osh.shape[0]) - rows_out)
        p.cb(17, "sharded_out", page, unpadded, sh.cores, borrowed=True)
    return p.build()


# ---------------------------------------------------------------------------
# typecast (copy/typecast, TypecastDeviceOperation)
# ---------------------------------------------------------------------------

_TYPECAST = "tt-metal ttnn/cpp/ttnn/operations/copy/typecast/device"


def typecast_program(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """The program of ``ttnn::typecast`` (``TypecastDeviceOperation::select_program_factory``, stored
    typecast_device_op.cpp 019b681e; program factories at 0021b0dc).

    * sharded input with equal input/output unit sizes, both in L1, aligned shard
      rows -> TypecastShardedProgramFactory: two CBs bound to the shards
      (``round_up(tile, 32)`` pages, one shard of tiles each), no L1 of their own;
    * other sharded inputs and interleaved TILE inputs -> TypecastProgramFactory:
      the input's pages (tiles, or rows of a row-major input) split over the grid
      (column by column for tiles, row by row for rows), CBs of 2 input / 2 output pages;
    * interleaved ROW_MAJOR -> TypecastRowMajorChunkedProgramFactory: rows over the
      grid row by row, 2-page CBs of one 1024-element chunk (aligned to the buffer
      alignment).  The stored factory (0021b0dc) pads a chunk to ``min(1024, W)``
      elements rounded to 32; ttnn 0.81.1 sizes every chunk page at 1024 elements
      (measured: [64, 100] bf16 -> f32 gives 2 x 2,048 B and 2 x 4,096 B).

    Raises:
        DeviceRejection: a sharded input whose page (a row of the shard for ROW_MAJOR) is not a
            multiple of its buffer's alignment (``validate_on_program_cache_miss``: ``page_size_bytes
            == aligned_page_size()``; campaign instance g1/ttnn.typecast/5, a 40-B f32 row).
    """
    grid = grid_xy(arch)
    if t.mem.sharded:
        page = t.tile_bytes if t.tiled else t.mem.shard.shape[1] * t.element_bytes
        if page % t.alignment:
            raise DeviceRejection(f"typecast: the sharded input's page of {page} B is not aligned to its "
                                  f"{t.alignment}-B buffer alignment (typecast_device_op.cpp TT_FATAL "
                                  "'page_size_bytes == aligned_page_size()')")
    if t.mem.sharded and _typecast_sharded_ok(t, out):
        sh = t.mem.shard
        if t.dtype.is_block_float or out.dtype.is_block_float:
            tiles = ceil_div(sh.shape[1], TILE) * ceil_div(sh.shape[0], TILE)
        else:
            tiles = ceil_div(sh.shape[0] * sh.shape[1] * t.element_bytes, t.tile_bytes)
        p = _Prog("TypecastShardedProgramFactory", f"{_TYPECAST}/typecast_sharded_program_factory.cpp")
        p.cb(0, "in", align_up(t.tile_bytes, 32), tiles, sh.cores, borrowed=True)
        p.cb(2, "out", align_up(out.tile_bytes, 32), tiles, sh.cores, borrowed=True)
        return p.build()
    if not t.tiled and not t.mem.sharded:
        w = t.width
        chunk = TILE * TILE
        in_align = arch.l1_alignment if t.mem.buffer_type == "l1" else arch.dram_alignment
        out_align = arch.l1_alignment if out.mem.buffer_type == "l1" else arch.dram_alignment
        split = split_work_to_cores(grid, t.height, row_wise=True)
        p = _Prog("TypecastRowMajorChunkedProgramFactory", f"{_TYPECAST}/typecast_rm_chunked_program_factory.cpp")
        p.cb(0, "in", align_up(chunk * t.element_bytes, in_align), 2, split.cores)
        p.cb(2, "out", align_up(chunk * out.element_bytes, out_align), 2, split.cores)
        return p.note(f"{t.height} rows in chunks of {min(1024, w)} elements").build()
    if t.tiled:
        pages, in_page, out_page = t.physical_volume // (TILE * TILE), t.tile_bytes, out.tile_bytes
    else:
        pages = t.height
        in_page = out_page = t.width * t.element_bytes  # the buffers' page sizes (rows)
        out_page = t.width * out.element_bytes
    split = split_work_to_cores(grid, pages, row_wise=not t.tiled)
    p = _Prog("TypecastProgramFactory", f"{_TYPECAST}/typecast_program_factory.cpp")
    p.cb(0, "in", in_page, 2, split.cores)
    p.cb(2, "out", out_page, 2, split.cores)
    return p.note(f"{pages} pages on {split.num_cores} cores"
                  + (" (sharded input, unequal tile sizes)" if t.mem.sharded else "")).build()


def _typecast_sharded_ok(t: Tensor, out: Tensor) -> bool:
    """``can_use_sharded_optimized_factory`` (typecast_device_op.cpp)."""
    in_unit, out_unit = t.tile_bytes, out.tile_bytes
    if in_unit != out_unit or t.mem.buffer_type == "dram" or out.mem.buffer_type == "dram":
        return False
    if not t.dtype.is_block_float:
        sh = t.mem.shard
        if (sh.shape[1] * t.element_bytes) % 16:
            return False
        if (sh.shape[0] * sh.shape[1] * t.element_bytes) % in_unit:
            return False
    return True


# ---------------------------------------------------------------------------
# to_memory_config (core/to_memory_config; sharded/*, copy/*)
# ---------------------------------------------------------------------------

_SHARDED = f"{_DM}/sharded"
_COPY = f"{_DM}/copy/device"


def to_memory_config_program(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel | None:
    """The program of ``ttnn::to_memory_config`` (to_memory_config_op.cpp, stored version 040a27c1).

    Same memory config: no program (None).  Sharded -> sharded: reshard;
    interleaved -> sharded: interleaved_to_sharded, or copy for a row-major shard row not
    aligned to L1 (``can_use_interleaved_to_sharded``); sharded -> interleaved:
    sharded_to_interleaved, or copy for a row-major shard row not aligned to L1
    (``can_use_sharded_to_interleaved``); interleaved -> interleaved: copy.

    Raises:
        CBModelError: the row-major reshard workaround (sharded_to_interleaved then
            interleaved_to_sharded, two programs) and DRAM sharding (not modeled).
    """
    if t.mem == out.mem:
        return None
    if any(m.sharded and m.buffer_type == "dram" for m in (t.mem, out.mem)):
        raise CBModelError("DRAM-sharded tensors are not modeled")
    if out.mem.sharded:
        if t.mem.sharded:
            if rm_reshard_workaround(t, out):
                raise CBModelError("row-major reshard across layouts goes through DRAM: two programs "
                                   "(to_memory_config_steps)")
            return _reshard(t, out, arch)
        if not t.tiled and (out.mem.shard.shape[1] * t.element_bytes) % arch.l1_alignment:
            # InterleavedToShardedDeviceOperation::validate_inputs: a row-major shard row must be L1-aligned;
            # to_memory_config then falls back to ttnn::prim::copy (measured: g1/ttnn.to_memory_config/9, si32
            # rows of 876 B into a height-sharded config: CopyDeviceOperation::DefaultRowMajor)
            return _copy(t, out, arch)
        return _interleaved_to_sharded(t, out, arch)
    if t.mem.sharded and (t.tiled or (t.mem.shard.shape[1] * t.element_bytes) % arch.l1_alignment == 0):
        return _sharded_to_interleaved(t, arch)
    # a row-major shard row that is not L1-aligned fails ShardedToInterleavedDeviceOperation::validate_inputs
    # ("Shard page size must be aligned"), and to_memory_config falls back to ttnn::prim::copy (measured:
    # g1/ttnn.slice_static/112, si32 rows of 4,860 B: CopyDeviceOperation::DefaultRowMajor)
    return _copy(t, out, arch)


def rm_reshard_workaround(t: Tensor, out: Tensor) -> bool:
    """``use_reshard_workaround`` of ``ttnn::to_memory_config`` (to_memory_config_op.cpp @040a27c1): a row-major
    sharded -> sharded move between memory layouts whose shard widths differ cannot be a reshard."""
    return (t.mem.sharded and out.mem.sharded and not t.tiled and t.mem.shard is not None
            and out.mem.shard is not None and t.mem.shard.shape[1] != out.mem.shard.shape[1]
            and t.mem.memory_layout != out.mem.memory_layout)


def to_memory_config_steps(t: Tensor, out: Tensor, arch: Arch) -> list[ProgramModel]:
    """The programs of ``ttnn::to_memory_config``: :func:`to_memory_config_program`, or, for the row-major
    reshard across layouts (:func:`rm_reshard_workaround`), its workaround through DRAM
    (to_memory_config_op.cpp @040a27c1: ``sharded_to_interleaved(tensor, DRAM_MEMORY_CONFIG)`` then
    ``interleaved_to_sharded(temp, memory_config)``, each falling back to a copy as a single move does;
    measured: g1/ttnn.to_memory_config/269, si32 width- to height-sharded, ShardedToInterleaved with no DFB of
    its own, then InterleavedToSharded with its 4 x 1,344-B scratchpad).

    Raises:
        CBModelError: as :func:`to_memory_config_program`.
    """
    if rm_reshard_workaround(t, out):
        dram = t.with_(mem=MemCfg("dram", "interleaved"))
        return [to_memory_config_program(t, dram, arch), to_memory_config_program(dram, out, arch)]
    prog = to_memory_config_program(t, out, arch)
    return [] if prog is None else [prog]


def _units(t: Tensor, shard: Shard) -> tuple[int, int]:
    """(unit bytes, units per shard): tiles of a TILE tensor, shard rows of a row-major one."""
    if t.tiled:
        return t.tile_bytes, (shard.shape[0] // TILE) * (shard.shape[1] // TILE)
    return shard.shape[1] * t.element_bytes, shard.shape[0]


def _interleaved_to_sharded(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """InterleavedToShardedProgramFactory on the output shard cores with data: the output DFB borrows the
    shard (one shard of units); row-major inputs add a scratchpad of 4 x ``align(row + 64, 64)`` B."""
    unit, units = _units(t, out.mem.shard)
    cores = _shard_cores_with_data(out)
    p = _Prog("InterleavedToShardedProgramFactory", f"{_SHARDED}/interleaved_to_sharded/device/"
              "interleaved_to_sharded_program_factory.cpp")
    p.cb(16, "out", align_up(unit, arch.l1_alignment), units, cores, borrowed=True)
    if not t.tiled:
        p.scratchpad(4 * align_up(unit + arch.dram_alignment, arch.dram_alignment), cores)
    return p.build()


def _sharded_to_interleaved(t: Tensor, arch: Arch) -> ProgramModel:
    """ShardedToInterleavedProgramFactory: the input DFB borrows the shard on the used shard cores; no L1
    of its own without a dtype change."""
    sh = t.mem.shard
    unit, units = _units(t, sh)
    if t.tiled and (sh.shape[0] < TILE or sh.shape[1] < TILE):
        raise CBModelError(f"shard shape {sh.shape[0]}x{sh.shape[1]} is smaller than a tile")
    if t.tiled:
        h_shards, w_shards = ceil_div(t.height // TILE, sh.shape[0] // TILE), ceil_div(t.width // TILE, sh.shape[1] // TILE)
    else:
        h_shards, w_shards = ceil_div(prod(t.shape[:-1]), sh.shape[0]), ceil_div(t.shape[-1] * t.element_bytes, unit)
    if h_shards * w_shards > len(sh.cores):  # the shard spec does not cover the tensor (TTA006 says why)
        raise CBModelError(f"{h_shards * w_shards:,} shards of {sh.shape[0]}x{sh.shape[1]} for {len(sh.cores)} cores")
    if t.mem.memory_layout == "block_sharded":
        x0, y0 = min(sh.cores)
        cores = [(x0 + i, y0 + j) for j in range(h_shards) for i in range(w_shards)]
    else:
        cores = list(sh.cores[:h_shards * w_shards])
    p = _Prog("ShardedToInterleavedProgramFactory", f"{_SHARDED}/sharded_to_interleaved/device/"
              "sharded_to_interleaved_program_factory.cpp")
    p.cb(0, "in", align_up(unit, arch.l1_alignment), units, cores, borrowed=True)
    return p.build()


def _reshard(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """ReshardDeviceOperation (reshard_device_operation.cpp): height->height -> same-width factory (local =
    output in L1; a scratch DFB of ``2 x remote shard rows`` when a row-major row is not aligned);
    row-major width->width without padding -> same-height factory; else the generic factory.  All keep one
    DFB borrowing the output shard on its cores."""
    osh, ish = out.mem.shard, t.mem.shard
    unit, units = _units(t, osh)
    cores = _shard_cores_with_data(out)
    lay_in, lay_out = t.mem.memory_layout, out.mem.memory_layout
    if lay_in == lay_out == "height_sharded":
        p = _Prog("ReshardSameWidthFactory", f"{_SHARDED}/reshard/device/reshard_program_factory_same_width.cpp")
        p.cb(0, "shard", align_up(unit, arch.l1_alignment), units, cores, borrowed=True)
        if align_up(unit, arch.l1_alignment) != unit:
            p.cb(1, "scratch", align_up(unit, arch.l1_alignment), 2 * _units(t, ish)[1], cores)
        return p.build()
    if not t.tiled and lay_in == lay_out == "width_sharded":
        padded = len(ish.cores) * ish.shape[1] > t.shape[-1] or len(osh.cores) * osh.shape[1] > t.shape[-1]
        if not padded:
            p = _Prog("ReshardSameHeightFactory", f"{_SHARDED}/reshard/device/reshard_program_factory_same_height.cpp")
            p.cb(0, "shard", unit, ish.shape[0], cores, borrowed=True)
            return p.build()
    p = _Prog("ReshardGenericFactory", f"{_SHARDED}/reshard/device/reshard_program_factory_generic.cpp")
    p.cb(0, "output_shard", unit, units, cores, borrowed=True)
    return p.build()


def _copy(t: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """CopyDeviceOperation between interleaved configs (copy/device/*).

    TILE: DefaultTilized, tiles split over the grid column by column, an input DFB of 2 aligned pages, and
    with a dtype change (``assign``) an output DFB of 2 aligned output pages after it (measured:
    g1/ttnn.assign/11, 44, 52: f32 <-> bf16 between DRAM and L1).
    ROW_MAJOR: DefaultRowMajor, rows split over the grid column by column, a 2-page output DFB and a
    one-page input scratchpad (pages capped at 256 KiB).  (Its parallel variant needs a common page
    smaller than the row, i.e. a width-sharded side: never between two interleaved tensors.)
    """
    grid = grid_xy(arch)
    in_align = arch.l1_alignment if t.mem.buffer_type == "l1" else arch.dram_alignment
    out_align = arch.l1_alignment if out.mem.buffer_type == "l1" else arch.dram_alignment
    if t.tiled:
        tiles = prod(t.shape[:-2]) * ceil_div(t.shape[-2], TILE) * ceil_div(t.shape[-1], TILE) if len(t.shape) >= 2 \
            else ceil_div(t.shape[-1], TILE)
        split = split_work_to_cores(grid, tiles)
        p = _Prog("CopyDeviceOperation::DefaultTilized", f"{_COPY}/copy_default_tilized_program_factory.cpp")
        p.cb(0, "in", align_up(t.tile_bytes, in_align), 2, split.cores)
        if t.dtype != out.dtype:
            p.cb(16, "out", align_up(out.tile_bytes, out_align), 2, split.cores)
        return p.note(f"{tiles} tiles on {split.num_cores} cores").build()
    es = t.element_bytes
    rows = prod(t.shape[:-1])
    width = t.shape[-1]
    max_block = 65536 * 4
    p = _Prog("CopyDeviceOperation::DefaultRowMajor", f"{_COPY}/copy_default_row_major_program_factory.cpp")
    split = split_work_to_cores(grid, rows)
    in_page = min(width * es, max_block)
    out_page = min(align_up(width * es, out_align), max_block)
    p.cb(1, "output_page", out_page, 2, split.cores)
    p.scratchpad(in_page, split.cores)
    return p.note(f"{rows} rows on {split.num_cores} cores").build()


# ---------------------------------------------------------------------------
# to_layout (core/to_layout/to_layout_op.cpp) and the registered models
# ---------------------------------------------------------------------------

_TO_LAYOUT = ("tt-metal ttnn/cpp/ttnn/operations/core/to_layout/to_layout_op.cpp (d80d9482 is not stored; its logic "
              "read from the experimental/quasar mirror 54511694610 and checked on the mock)")


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class Conversion:
    """What one layout-conversion op does on the device: the programs' input and output tensors.

    ``kind``: ``none`` (no device program), ``tilize``, ``tilize_with_val_padding``,
    ``pad_tilize`` (ttnn::pad then tilize: two programs), ``untilize``,
    ``untilize_with_unpadding``, ``typecast``, ``to_memory_config``.
    ``result``: the tensor ttnn returns.
    """

    kind: str
    input: Tensor
    result: Tensor
    use_multicore: bool = True
    reason: str = ""


def _view_rank1(t: Tensor) -> Tensor:
    """to_layout's view of a rank < 2 tensor before tilizing: padded shape ``[1, W]`` (``[1, 1]`` for a scalar)."""
    if len(t.padded) >= 2:
        return t
    return t.with_(padded=(1, t.padded[-1] if t.padded else 1))


def plan_to_layout(t: Tensor, layout: str, dtype: DataType, out_mem: MemCfg, arch: Arch) -> Conversion:
    """``ttnn::to_layout(t, layout, dtype, out_mem)`` for a device tensor: which op runs and what it returns.

    Same layout: nothing runs and the input comes back unchanged (ttnn only warns
    that dtype and memory config are ignored).  TILE: ``tilize`` when the padded
    shape is already tile-aligned, else ``tilize_with_val_padding`` to the
    tile-padded shape (``pad`` + ``tilize``, two programs, for a height-sharded
    input).  ROW_MAJOR: ``untilize``
    when nothing is padded, else ``untilize_with_unpadding`` to the logical shape.

    ttnn builds a TILE ``TensorLayout`` of the output memory config (and, towards
    TILE, of the input's) before choosing: a sharded config whose shard is not a
    multiple of 32x32 fails there (measured: ``TT_FATAL ... Physical shard shape
    (50, 64) must be tile {32, 32} aligned``), even for a ROW_MAJOR result.

    Raises:
        CBModelError: a dtype change towards ROW_MAJOR other than bfloat8_b -> bfloat16 (ttnn
            TT_FATAL), or a sharded memory config whose shard is not tile-aligned (TT_FATAL).
    """
    if t.layout == layout:
        return Conversion("none", t, t, reason="layout unchanged: ttnn returns the input (dtype and memory "
                                               "config requests are ignored)")
    for what, mem in (("output", out_mem), ("input", t.mem if layout == "tile" else None)):
        if mem is not None and mem.shard is not None and (mem.shard.shape[0] % TILE or mem.shard.shape[1] % TILE):
            raise DeviceRejection(f"ttnn::to_layout: the {what} shard {mem.shard.shape[0]}x{mem.shard.shape[1]} is not "
                               "tile-aligned (TT_FATAL 'Physical shard shape ... must be tile {32, 32} aligned')")
    if layout == "row_major":
        if dtype != t.dtype and not (t.dtype.name == "bfp_bf8" and dtype.name == "bf16"):
            raise DeviceRejection(f"ttnn::to_layout: dtype {t.dtype} -> {dtype} cannot change when converting to "
                               "ROW_MAJOR (TT_FATAL)")
        res = untilize_output(t, out_mem)
        kind = "untilize" if t.shape == t.padded else "untilize_with_unpadding"
        return Conversion(kind, t, res)
    v = _view_rank1(t)
    if v.padded == tile_padded_shape(v.padded):
        if v.mem.sharded and (v.mem.shard.shape[0] % TILE or v.mem.shard.shape[1] % TILE):
            raise DeviceRejection("ttnn::to_layout: Sharded tensor must have shard shape that is a multiple of TILE_SIZE")
        return Conversion("tilize", v, tilize_output(v, out_mem, dtype, arch))
    if v.mem.memory_layout == "height_sharded":
        res = tilize_output(v.with_(padded=tile_padded_shape(v.shape)), out_mem, dtype, arch)
        return Conversion("pad_tilize", v, res, reason="ttnn::pad (PadRmShardedHeightOnlyProgramFactory) then tilize")
    res = twvp_output(v, out_mem, dtype)
    if len(t.shape) == 1 and res.mem.shard is not None and res.mem.shard.shape[1] != res.padded[-1]:
        # to_layout_op.cpp reshapes a rank-1 result back to its original shape (ttnn::reshape(tensor,
        # original_shape)); the view of a sharded tensor changing its last padded dim needs the shard width to
        # be that dim (tensor_ops.cpp:380 at d80d9482; measured: g1/ttnn.to_layout/646, 97 u32 on 2 cores,
        # refused; 627, one core, ran)
        raise DeviceRejection(f"ttnn::to_layout: the rank-1 result is reshaped back from padded {list(res.padded)}: "
                              "Changing the last dimension of a sharded tensor is not supported unless the shard "
                              f"width ({res.mem.shard.shape[1]}) matches the input last dimension (TT_FATAL "
                              "tensor_ops.cpp:380)")
    return Conversion("tilize_with_val_padding", v, res)


def conversion_program(c: Conversion, arch: Arch, free: int, routing_free: int, tt_metal: str) -> ProgramModel:
    """The program of a planned conversion (see :func:`plan_to_layout`).

    Raises:
        CBModelError: two-program compositions (``pad_tilize``) and the configurations the factory
            models reject.
    """
    if c.kind == "none":
        raise NoDeviceProgram(c.reason)
    if c.kind == "tilize":
        return tilize_program(c.input, c.result, arch, free, routing_free, c.use_multicore, tt_metal)
    if c.kind == "tilize_with_val_padding":
        return twvp_program(c.input, c.result, arch, free, routing_free, c.use_multicore, tt_metal)
    if c.kind == "untilize":
        return untilize_program(c.input, c.result, arch, free, routing_free, c.use_multicore, tt_metal)
    if c.kind == "untilize_with_unpadding":
        return uwu_program(c.input, c.result, arch, free, routing_free, c.use_multicore, tt_metal)
    raise CBModelError(f"{c.kind}: {c.reason} (two programs, not modeled)")


def _io(ctx: CBContext) -> tuple[Tensor, Tensor]:
    """The op's input tensor and its declared result (layout, dtype, memory config)."""
    op = ctx.op
    if not op.operands or not op.results:
        raise CBModelError(f"{op.name} needs an operand and a result")
    src, dst = op.operands[0].type, op.results[0].type
    if getattr(src, "layout", None) is None or getattr(dst, "layout", None) is None:
        raise CBModelError(f"{op.name}: operand or result has no TTNN layout")
    if src.layout.buffer_type not in ("dram", "l1") or dst.layout.buffer_type not in ("dram", "l1"):
        raise CBModelError(f"{op.name} on a host tensor runs no device program")
    t = _view(ctx, op.operands[0], f"operand of {op.name}")
    declared = _view(ctx, op.results[0], f"result of {op.name}")
    if not t.padded:  # a rank-0 row-major tensor is one element: padded [1]
        t = t.with_(padded=(1,))
    return t, declared


def _plan(ctx: CBContext) -> Conversion:
    """The conversion an op performs: tt-mlir's runtime call (module docstring) -> ttnn's route (derived once
    per context, :func:`~ttanalyze.ops.cb.plan_of`: the CB and output-spec models share it)."""
    return plan_of(ctx, _derive_plan)


def _derive_plan(ctx: CBContext) -> Conversion:
    t, declared = _io(ctx)
    name = ctx.op.name
    if name == "ttnn.to_layout":
        return plan_to_layout(t, declared.layout, declared.dtype, declared.mem, ctx.arch)
    if name == "ttnn.typecast":
        if t.mem.memory_layout != declared.mem.memory_layout:
            raise CBModelError(f"typecast: input ({t.mem.memory_layout}) and output ({declared.mem.memory_layout}) "
                               "memory layouts must match (TT_FATAL)")
        res = Tensor(t.shape, t.padded, declared.dtype, t.layout, declared.mem)
        return Conversion("typecast", t, res)
    if name == "ttnn.to_memory_config":
        res = Tensor(t.shape, t.padded, t.dtype, t.layout, declared.mem)
        return Conversion("to_memory_config", t, res)
    multicore = bool(ctx.op.attrs.get("use_multicore", True))
    if name == "ttnn.tilize":
        # tilize_device_operation.cpp validate: padded_shape()[-1] and [-2] tile multiples; ttnn's Shape reads a
        # missing leading dim as 1, so a rank-1 input always fails the height check
        height = t.padded[-2] if len(t.padded) > 1 else 1
        if t.tiled or t.padded[-1] % TILE or height % TILE:
            raise DeviceRejection("ttnn::tilize needs a row-major input with tile-aligned height and width (TT_FATAL)")
        return Conversion("tilize", t, tilize_output(t, declared.mem, declared.dtype, ctx.arch), multicore)
    if name == "ttnn.untilize":  # ttnn::untilize: codegen first, then untilize_with_unpadding for a padded input
        if t.rank > 4 and t.shape != t.padded and not t.mem.sharded:
            # build_ndiml_untilize (untilize/untilize.cpp): the rank > 4 input is squeezed to 4D, untilized, then
            # reshaped back with the input's *tile-padded* shape.  A padded interleaved input goes through
            # untilize_with_unpadding, whose logical-size buffer cannot hold that view (measured: every rank-5
            # padded interleaved input of g1/ttnn.untilize refused); a sharded one runs the native prim, whose
            # output keeps the padded shape (untilize_device_operation.cpp compute_output_specs), and runs
            # (g1/ttnn.untilize/68, 106, 193)
            raise DeviceRejection(
                f"ttnn::untilize of a rank-{t.rank} padded tensor: the result is reshaped to the padded shape "
                f"{list(t.padded)} over a buffer of the logical size (TT_FATAL buffer.cpp 'size % page_size == 0' "
                "or 'MeshBuffer must be large enough to hold the tensor')")
        res = untilize_output(t, declared.mem)
        if t.rank > 4 and t.mem.sharded and declared.mem.shard is not None and t.shape != t.padded:
            _native_untilize_shard_fit(t, declared.mem)
            _ndiml_untilize_view(t, declared.mem)
        if t.mem.sharded and not declared.mem.sharded:
            # untilize.cpp sends only a padded *interleaved* input to untilize_with_unpadding: the native
            # UntilizeDeviceOperation keeps the input's padded shape (compute_output_specs: fromPaddedShape with
            # input_tensor.padded_shape()) in an interleaved output (measured: g1/ttnn.untilize/0, [2, 1, 2, 2]
            # -> padded [2, 1, 32, 32]; 68, 79, 193); a sharded output comes back unpadded (76, 81, 106, 120, 186)
            res = res.with_(padded=t.padded)
        return Conversion("untilize", t, res, multicore)
    raise CBModelError(f"no layout-conversion model for {name}")


def _native_untilize_shard_fit(t: Tensor, out_mem: MemCfg) -> None:
    """The shard-grid check (``TensorSpec``'s ``validate_shard_spec_with_tensor_shape``, tensor_spec.cpp:173 at
    d80d9482) of the native untilize's output for a rank > 4 padded sharded input: ``build_ndiml_untilize``
    squeezes it to 4D and runs ``UntilizeDeviceOperation``, whose output keeps the input's *padded* shape
    (``compute_output_specs``: ``fromPaddedShape(..., input padded)``) in the requested memory config, so the
    declared shard (sized for the logical shape) must cover the padded rows.  (Rank <= 4 sharded inputs come back
    unpadded and pass: g1/ttnn.untilize/76, 81, 120, 228 ran with shards of their logical rows.)

    Raises:
        DeviceRejection: a height-sharded shard whose shards along the padded height outnumber the cores, or a
            width-sharded shard whose height is not the padded height (measured: g1/ttnn.untilize/337, padded
            height 4,096 in 93-row shards on 43 cores: "Number of shards along height 45 must not exceed number
            of cores 43").
    """
    height = prod(t.padded[:-1]) if len(t.padded) > 1 else 1
    sh, cores = out_mem.shard.shape, len(out_mem.shard.cores)
    if out_mem.memory_layout == "height_sharded" and ceil_div(height, sh[0]) > cores:
        raise DeviceRejection(f"untilize: the native untilize's output keeps the padded height {height}: Number of "
                              f"shards along height {ceil_div(height, sh[0])} must not exceed number of cores {cores} "
                              "(TT_FATAL tensor_spec.cpp:173)")
    if out_mem.memory_layout == "width_sharded" and sh[0] != height:
        raise DeviceRejection(f"untilize: the native untilize's output keeps the padded height {height}: Shard height "
                              f"{sh[0]} must match physical height {height} for width sharded (TT_FATAL "
                              "tensor_spec.cpp:173)")


def _ndiml_untilize_view(t: Tensor, out_mem: MemCfg) -> None:
    """The view that ends ``build_ndiml_untilize`` for a rank > 4 padded sharded input (untilize/untilize.cpp at
    d80d9482: ``post_transform`` reshapes the 4D result to the input's logical *and padded* shapes; reshape.cpp's
    ``this_is_view`` path sends a row-major tensor to ``PerformView`` -> ``tt::tt_metal::view``).

    The native untilize's row-major sharded output is laid out by ``TensorLayout::fromPaddedShape``, whose
    ``legacyShapeToAlignment`` (tensor_layout.cpp) aligns a row-major 2D-sharded tensor's width to its shard
    width: its padded width is ``round_up(W, shard_w)``.  The view to the input's tile-padded width
    ``round_up(W, 32)`` changes the last dimension when the two differ, and ``view_device`` (tensor_ops.cpp:380)
    refuses that for a sharded tensor whose shard width is not the padded width, i.e. a shard narrower than
    the row.  Checked only when the shard row is 16-B aligned (the row-major default alignment then leaves the
    shard width as the width alignment); otherwise the model stays silent.

    Args:
        t: the TILE input (rank > 4, sharded, padded).
        out_mem: the requested sharded output memory config.

    Raises:
        DeviceRejection: ``shard_w < W``, ``round_up(W, shard_w) != round_up(W, 32)`` (measured:
            g1/ttnn.untilize/405, [2, 7, 5, 12, 88] u32 block-sharded in 44-wide shards: 88 -> 96, refused).
    """
    width, shard_w = t.shape[-1], out_mem.shard.shape[1]
    out_width, padded_width = align_up(width, shard_w), t.padded[-1]
    if shard_w < width and out_width != padded_width and (shard_w * (t.dtype.scalar_bytes or 2)) % 16 == 0:
        raise DeviceRejection(
            f"untilize: the rank-{t.rank} result is viewed back from padded width {out_width} to {padded_width}: "
            "Changing the last dimension of a sharded tensor is not supported unless the shard width "
            f"({shard_w}) matches the input last dimension (TT_FATAL tensor_ops.cpp:380)")


@register_cb(("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.typecast", "ttnn.tilize", "ttnn.untilize"))
def layout_conversion_program(ctx: CBContext) -> ProgramModel | list[ProgramModel]:
    """CB model of the layout-conversion ops (module docstring).

    ``ttnn.tilize`` / ``ttnn.untilize`` are ttnn's own ops (the executor's, not
    TTNN dialect ops), with their ``use_multicore`` attribute.

    Raises:
        CBModelError: host tensors, and the configurations the factory models do not cover.
    """
    c = _plan(ctx)
    if c.kind == "typecast":
        return typecast_program(c.input, c.result, ctx.arch)
    if c.kind == "to_memory_config":
        steps = to_memory_config_steps(c.input, c.result, ctx.arch)
        if not steps:
            raise NoDeviceProgram("same memory config: ttnn returns the input")
        return steps
    return conversion_program(c, ctx.arch, ctx.max_l1_space, _routing_free(ctx, c.result), ctx.tt_metal)


@register_spec(("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.typecast", "ttnn.tilize", "ttnn.untilize"))
def layout_conversion_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ttnn returns (module docstring): the requested layout, dtype and memory config, except
    that a layout-preserving ``to_layout`` returns its input unchanged, untilize turns bfloat8_b into
    bfloat16 and never pads, and the sharded tilize factories keep the input's shard spec.

    Raises:
        CBModelError: host tensors and ttnn errors (see :func:`plan_to_layout`).
    """
    return [_plan(ctx).result.spec()]
