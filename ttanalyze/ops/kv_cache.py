"""KV-cache updates: ``update_cache``, ``fill_cache``, ``paged_update_cache``, ``paged_fill_cache``.

In-place ops (``TTNN_InplaceOp``): they write into the cache operand and have no results, so
their rule checks the operands the way the verifiers do (tt-mlir ``lib/Dialect/TTNN/IR/
TTNNOps.cpp`` @19c86fca ``UpdateCacheOp``/``FillCacheOp``/``PagedUpdateCacheOp``/
``PagedFillCacheOp::verify``) and returns no shape:

* ``update_cache(cache [B, H, S, D], input [1, H, b, D], update_index)``: dims 1 and 3 match;
* ``fill_cache(cache [B, H, S, D], input [1|b, H, s <= S, D])``: dims 1 and 3 match, ``s <= S``;
* ``paged_update_cache(cache [blocks, H, block, D], input [1, users, H', D], update_index [users],
  page_table? [users, blocks/user])``: block size a multiple of 32 when paged, ``D`` matches;
* ``paged_fill_cache(cache [blocks, H, block, D], input [b, H, s, D], page_table [users, ...],
  batch_idx_tensor? [b])``: block size a multiple of 32, ``H`` and ``D`` match, ``b = 1`` without
  a batch index tensor.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, int_attr, register, register_cb, register_check
from .tensors import TILE, _view, operand
from .work_split import split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


def _rank4(op: Op, shape: tuple[int, ...], what: str) -> None:
    if len(shape) != 4:
        raise ShapeError(f"{op.name}: {what} tensor must be a 4D tensor, got rank {len(shape)}")


def _heads_and_dim(op: Op, cache: tuple[int, ...], x: tuple[int, ...]) -> None:
    if cache[1] != x[1] or cache[3] != x[3]:
        raise ShapeError(f"{op.name}: cache {list(cache)} and input {list(x)} must match on dims 1 and 3")


@register("ttnn.update_cache", "kv_cache", ("batch_offset",), f"{_SRC} UpdateCacheOp::verify")
def update_cache(op: Op):
    g = operand_groups(op, ("cache", "input", "update_index"))
    cache, x = shape_of(op, tensor_or_none(g, "cache"), "cache"), shape_of(op, tensor_or_none(g, "input"), "input")
    _rank4(op, cache, "cache")
    _rank4(op, x, "input")
    if x[0] != 1:
        raise ShapeError(f"{op.name}: input dim 0 must be 1, got {x[0]}")
    _heads_and_dim(op, cache, x)
    return []


@register("ttnn.fill_cache", "kv_cache", ("batch_offset",), f"{_SRC} FillCacheOp::verify")
def fill_cache(op: Op):
    g = operand_groups(op, ("cache", "input"))
    cache, x = shape_of(op, tensor_or_none(g, "cache"), "cache"), shape_of(op, tensor_or_none(g, "input"), "input")
    _rank4(op, cache, "cache")
    _rank4(op, x, "input")
    if x[2] > cache[2]:
        raise ShapeError(f"{op.name}: input dim 2 ({x[2]}) exceeds the cache's ({cache[2]})")
    _heads_and_dim(op, cache, x)
    return []


@register("ttnn.paged_update_cache", "kv_cache", ("share_cache", "operandSegmentSizes"),
          f"{_SRC} PagedUpdateCacheOp::verify")
def paged_update_cache(op: Op):
    g = operand_groups(op, ("cache", "input", "update_index", "page_table?"))
    cache, x = shape_of(op, tensor_or_none(g, "cache"), "cache"), shape_of(op, tensor_or_none(g, "input"), "input")
    idx = shape_of(op, tensor_or_none(g, "update_index"), "update index")
    _rank4(op, cache, "cache")
    _rank4(op, x, "input")
    if len(idx) != 1:
        raise ShapeError(f"{op.name}: the update index must be 1D, got rank {len(idx)}")
    page_table = tensor_or_none(g, "page_table")
    if page_table is not None and cache[2] % 32:
        raise ShapeError(f"{op.name}: block size {cache[2]} must be divisible by 32")
    if x[0] != 1 or x[1] != idx[0]:
        raise ShapeError(f"{op.name}: input must be [1, {idx[0]} users, heads, {cache[3]}], got {list(x)}")
    if x[3] != cache[3]:
        raise ShapeError(f"{op.name}: input head dim {x[3]} must equal the cache's {cache[3]}")
    if page_table is not None:
        pt = shape_of(op, page_table, "page table")
        if len(pt) != 2 or pt[0] != idx[0]:
            raise ShapeError(f"{op.name}: the page table must be [{idx[0]} users, blocks], got {list(pt)}")
    return []


@register("ttnn.paged_fill_cache", "kv_cache", ("operandSegmentSizes",), f"{_SRC} PagedFillCacheOp::verify")
def paged_fill_cache(op: Op):
    g = operand_groups(op, ("cache", "input", "page_table", "batch_idx_tensor?"))
    cache, x = shape_of(op, tensor_or_none(g, "cache"), "cache"), shape_of(op, tensor_or_none(g, "input"), "input")
    pt = shape_of(op, tensor_or_none(g, "page_table"), "page table")
    _rank4(op, cache, "cache")
    _rank4(op, x, "input")
    if len(pt) != 2:
        raise ShapeError(f"{op.name}: the page table must be 2D, got rank {len(pt)}")
    batch_idx = tensor_or_none(g, "batch_idx_tensor")
    if batch_idx is not None:
        b = shape_of(op, batch_idx, "batch index")
        if len(b) != 1 or b[0] != x[0]:
            raise ShapeError(f"{op.name}: the batch index tensor must be [{x[0]}], got {list(b)}")
    elif x[0] != 1:
        raise ShapeError(f"{op.name}: input batch must be 1 without a batch_idx_tensor, got {x[0]}")
    if cache[2] % 32:
        raise ShapeError(f"{op.name}: block size {cache[2]} must be divisible by 32")
    _heads_and_dim(op, cache, x)
    return []


_VALIDATE_SRC = "tt-metal ttnn/cpp/ttnn/operations/kv_cache/device/update_cache_device_operation.cpp (d80d9482)"


def _validate(ctx: CBContext, cache, x, fill: bool) -> None:
    """``UpdateKVCacheOperation::validate`` checks the opdiff campaign met (messages as tt-metal prints them).

    Raises:
        DeviceRejection: fill: a sharded input whose padded sequence is not a multiple of its shard height
            (line 87), a batch index (the op's ``batch_offset``) not below the cache's batch (line 94);
            update: a sharded input whose rows (``physical_volume / padded[-1]``) are not a multiple of its
            shard height (line 123; measured: g1/ttnn.update_cache/39, 59), a cache batch above the input's
            padded height (line 134), a non-zero batch offset with a cache batch of 32 or more (line 150).
    """
    offset = int_attr(ctx.op, "batch_offset", 0)
    if fill:
        if x.sharded and x.padded[-2] % x.shard.shape[0]:
            raise DeviceRejection("fill_cache: Seq len must be divisible by shard height! (TT_FATAL, "
                                  f"{_VALIDATE_SRC}:87)")
        if offset >= cache.padded[0]:
            raise DeviceRejection(f"fill_cache: Batch index ({offset}) must be less than cache tensor batch size "
                                  f"({cache.padded[0]}) (TT_FATAL, {_VALIDATE_SRC}:94)")
        return
    if x.sharded and (x.physical_volume // x.padded[-1]) % x.shard.shape[0]:
        raise DeviceRejection(f"update_cache: the input's {x.physical_volume // x.padded[-1]} rows are not a multiple "
                              f"of its shard height {x.shard.shape[0]} (TT_FATAL, {_VALIDATE_SRC}:123)")
    if cache.padded[0] > x.padded[-2]:
        raise DeviceRejection(f"update_cache: Cache tensor batch size ({cache.padded[0]}) must be <= input tensor "
                              f"height ({x.padded[-2]}) (TT_FATAL, {_VALIDATE_SRC}:134)")
    if offset and cache.padded[0] >= 32:
        raise DeviceRejection("update_cache: Batch offset must be 0 when cache tensor batch size >= 32 (TT_FATAL, "
                              f"{_VALIDATE_SRC}:150)")


_FILL_SRC = "tt-metal ttnn/cpp/ttnn/operations/kv_cache/device/fill_cache_multi_core_program_factory.cpp (0a991929)"


@register_cb("ttnn.fill_cache")
def fill_cache_program(ctx: CBContext) -> ProgramModel:
    """``FillCacheMultiCoreProgramFactory``: ``input.padded[1] * input.padded[-2] / 32`` blocks (one tile
    row of one head each) split row-major over the grid (``split_work_to_cores``); c_0 holds 2 tiles of the
    input's data format (double buffer); a sharded input backs c_0 with its shard (``shard[0]*shard[1]/1024``
    tiles) on its shard grid.  Measured: measurements/dialect/results.jsonl.
    """
    cache, x = operand(ctx, 0), operand(ctx, 1)
    _validate(ctx, cache, x, fill=True)
    io = {"inputs": (cache, x), "outputs": (cache,)}  # in place: the input's tiles are written into the cache
    if x.sharded:
        cores = x.shard.grid
        tiles = x.shard.shape[0] * x.shard.shape[1] // (TILE * TILE)
        return ProgramModel("UpdateKVCacheOperation::FillCacheMultiCoreProgramFactory", _FILL_SRC, cores,
                            [CB(0, "src0", x.tile_bytes, tiles, cores, globally_allocated=True)],
                            ["sharded input: c_0 is the input's shard"], **io)
    split = split_work_to_cores(ctx.grid, x.padded[1] * x.padded[-2] // TILE, row_wise=True)
    cores = split.all_cores
    return ProgramModel("UpdateKVCacheOperation::FillCacheMultiCoreProgramFactory", _FILL_SRC, cores,
                        [CB(0, "src0", x.tile_bytes, 2, cores)], [f"{split.num_cores} cores for {split.units} tile rows"],
                        **io)


register_check("ttnn.fill_cache", "mock", "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("UpdateKVCacheOperation",))


_UPDATE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/kv_cache/device/update_cache_multi_core_program_factory.cpp "
               "(00555207)")


@register_cb("ttnn.update_cache")
def update_cache_program(ctx: CBContext) -> ProgramModel:
    """``UpdateCacheMultiCoreProgramFactory`` (the runtime reads the index to the host and calls
    ``ttnn::update_cache(cache, input, index, batch_offset)`` without a compute config).

    With ``Wt = cache.padded[-1] / 32``, ``granularity = min(2, cache.padded[0])`` and
    ``B = input.padded[-2]``: c_0 holds ``2 * granularity * Wt`` cache tiles, c_1 ``2 * Wt`` input
    tiles (a sharded input backs it), c_24/c_25 (one CB) and c_26 ``2 * granularity * Wt`` bf16
    intermediate tiles each (ttnn's default compute config has no fp32 accumulation: measured),
    c_16 ``B * Wt`` cache tiles; ``input.padded[1] * B / 32`` batched heads split row-major over the
    grid.  Measured: measurements/dialect/results.jsonl.

    An f32 cache and input (the only f32 pairs measured) run with Float32 intermediates: c_24/c_25 of
    ``2 * granularity * Wt`` Float32 tiles, while c_1 (interleaved input) and c_26 take ``Wt * 4,096`` B each
    (``2 * Wt`` 2,048-B pages), whatever the granularity: measured on 12 campaign instances
    (g1/ttnn.update_cache/3, 5, 25, 37, 38, 40, 43, 48, 50, 51, 52, 61; Wt 1-8, granularity 1 and 2,
    interleaved and height-sharded inputs), not derived: the stored factory sources (00555207 and the
    descriptor version) size c_1 and c_26 in the input's and the intermediate format.
    """
    cache, x = operand(ctx, 0), operand(ctx, 1)
    _validate(ctx, cache, x, fill=False)
    wt = cache.padded[-1] // TILE
    gran = min(2, cache.padded[0])
    b = x.padded[-2]
    fp32 = cache.dtype.name == "f32" and x.dtype.name == "f32"
    interm = 4096 if fp32 else 2048  # Float32 / Float16_b tile
    if x.sharded:
        cores = x.shard.grid
        in_cb = CB(1, "src1", x.tile_bytes, x.shard.shape[0] * x.shard.shape[1] // (TILE * TILE), cores, True)
        note = "sharded input: c_1 is the input's shard"
    else:
        split = split_work_to_cores(ctx.grid, x.padded[1] * b // TILE, row_wise=True)
        cores = split.all_cores
        in_cb = CB(1, "src1", 2048, 2 * wt, cores) if fp32 else CB(1, "src1", x.tile_bytes, 2 * wt, cores)
        note = f"{split.num_cores} cores for {split.units} batched heads"
    interm2 = CB(26, "interm2", 2048, 2 * wt, cores) if fp32 else CB(26, "interm2", interm, 2 * gran * wt, cores)
    cbs = [CB(0, "src0 cache", cache.tile_bytes, 2 * gran * wt, cores), in_cb,
           CB(24, "interm0/1", interm, 2 * gran * wt, cores), interm2,
           CB(16, "out", cache.tile_bytes, b * wt, cores)]
    if fp32:
        note += "; f32: Float32 intermediates, c_1 and c_26 of 2 x Wt 2,048-B pages (measured)"
    return ProgramModel("UpdateKVCacheOperation::UpdateCacheMultiCoreProgramFactory", _UPDATE_SRC, cores, cbs, [note],
                        inputs=(cache, x), outputs=(cache,))  # in place: the input's tiles written into the cache


register_check("ttnn.update_cache", "mock", "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("UpdateKVCacheOperation",))


_PAGED_FILL_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/paged_cache/device/paged_fill_cache_program_factory.cpp "
                   "(build_paged_fill_cache_descriptor)")


@register_cb("ttnn.paged_fill_cache")
def paged_fill_cache_program(ctx: CBContext) -> ProgramModel:
    """``PagedFillCacheProgramFactory``: ``input_batch * heads * seq/32`` blocks (one tile row of one head)
    split row-major over the grid; c_0 ``2 * Wt`` input tiles (double buffer), c_1 one page-table row
    (the page table buffer's aligned page size: ``blocks per user * 4`` B rounded up to the buffer alignment,
    64 B in DRAM on Blackhole), c_2 the batch index tensor (``element size * elements``) when given.
    Measured: measurements/dialect/results.jsonl.
    """
    g = operand_groups(ctx.op, ("cache", "input", "page_table", "batch_idx_tensor?"))
    x = _view(ctx, tensor_or_none(g, "input"), f"input of {ctx.op.name}")
    pt = _view(ctx, tensor_or_none(g, "page_table"), f"page table of {ctx.op.name}")
    batch_idx = tensor_or_none(g, "batch_idx_tensor")
    wt = x.padded[-1] // TILE
    blocks = x.padded[0] * x.padded[1] * x.padded[2] // TILE
    split = split_work_to_cores(ctx.grid, blocks, row_wise=True)
    cores = split.all_cores
    stick = pt.padded[-1] * pt.element_bytes
    stick = -(-stick // pt.alignment) * pt.alignment
    cbs = [CB(0, "src0", x.tile_bytes, 2 * wt, cores), CB(1, "page_table", stick, 1, cores)]
    if batch_idx is not None:
        b = _view(ctx, batch_idx, f"batch index of {ctx.op.name}")
        cbs.append(CB(2, "batch_idx", b.element_bytes * b.volume, 1, cores))
    cache = _view(ctx, tensor_or_none(g, "cache"), f"cache of {ctx.op.name}")
    # in place: the cache is the tensor written (the cost model writes the input's tiles into it)
    return ProgramModel("PagedFillCacheDeviceOperation::PagedFillCacheProgramFactory", _PAGED_FILL_SRC, cores, cbs,
                        [f"{split.num_cores} cores for {blocks} tile rows"], inputs=(cache, x), outputs=(cache,))


register_check("ttnn.paged_fill_cache", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("PagedFillCacheDeviceOperation",))


_PAGED_UPDATE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/paged_cache/device/"
                     "paged_update_cache_program_factory.cpp (PagedUpdateCacheProgramFactory::create_descriptor)")


@register_cb("ttnn.paged_update_cache")
def paged_update_cache_program(ctx: CBContext) -> ProgramModel:
    """``PagedUpdateCacheProgramFactory`` (tt-mlir passes the update index as a tensor and the default compute
    config: Float16_b intermediates), on the input's shard grid (the input must be sharded).

    With ``Wt = input width / 32`` and ``B = input.padded[1]``: c_0 ``2 * Wt`` cache tiles, c_1 the input's shard
    (backed by it), c_24/c_25 (one CB) and c_26 ``2 * Wt`` Float16_b tiles each, c_16 ``B * Wt`` cache tiles,
    c_2 one tile of the index tensor's dtype, c_3 when paged one page-table row (``blocks per user * 4`` B).
    Measured: measurements/dialect/results.jsonl.

    Raises:
        CBModelError: an interleaved input (the factory reads the input's shard spec).
    """
    g = operand_groups(ctx.op, ("cache", "input", "update_index", "page_table?"))
    cache = _view(ctx, tensor_or_none(g, "cache"), f"cache of {ctx.op.name}")
    x = _view(ctx, tensor_or_none(g, "input"), f"input of {ctx.op.name}")
    if not x.sharded:
        raise CBModelError(f"{ctx.op.name}: an interleaved input (the factory needs a sharded one)")
    cores = x.shard.grid
    wt = x.padded[-1] // TILE
    shard_tiles = x.shard.shape[0] * x.shard.shape[1] // (TILE * TILE)
    cbs = [CB(0, "cache", cache.tile_bytes, 2 * wt, cores), CB(1, "input", x.tile_bytes, shard_tiles, cores, True),
           CB(24, "interm0/1", 2048, 2 * wt, cores), CB(26, "interm2", 2048, 2 * wt, cores),
           CB(16, "out", cache.tile_bytes, x.padded[1] * wt, cores)]
    index = tensor_or_none(g, "update_index")
    if index is not None:
        cbs.append(CB(2, "update_index", _view(ctx, index, "update index").tile_bytes, 1, cores))
    page_table = tensor_or_none(g, "page_table")
    if page_table is not None:
        pt = _view(ctx, page_table, "page table")
        cbs.append(CB(3, "page_table", pt.padded[-1] * 4, 1, cores))
    return ProgramModel("PagedUpdateCacheDeviceOperation::PagedUpdateCacheProgramFactory", _PAGED_UPDATE_SRC, cores,
                        cbs, [f"{cores.num_cores} cores (the input's shard grid)"], inputs=(cache, x), outputs=(cache,))


register_check("ttnn.paged_update_cache", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("PagedUpdateCacheDeviceOperation",))
