"""``ttnn.global_avg_pool2d``: the programs ttnn 0.81.1 runs for it, and what it returns.

tt-mlir's runtime (``runtime/lib/ttnn/operations/pool/pool2d.cpp`` @19c86fca) calls
``ttnn::avg_pool2d(input, N, H, W, C, kernel = {H, W}, stride 1, padding 0, ..., memory_config, dtype,
output_layout)`` with the op's memory config, the op's dtype (else the input's) and the result's layout,
then ``ttnn::reshape(out, [N, 1, 1, C], memory_config)``.  ttnn 0.81.1's ``pool2d()`` sees the global
window and runs one H reduction (``pool_sum``, scaler ``1 / (H * W)``) instead of the sliding-window
path; the chain depends on the shape (measured on the mock P150: measurements/dialect/results_norm.jsonl,
``chain`` of every ``global_avg_pool2d/*`` case, and results_misc.jsonl; no 0.81.1 source of the fast path
is public, so the rule below is the measured one):

* a TILE input whose spatial area ``H * W`` is a tile height multiple is folded to ``[N, 1, H * W, C]``
  (``ttnn::reshape``: a view when ``W`` is a tile multiple, else ReshapeViewTiled), then reduced over H
  (:func:`~ttanalyze.ops.reduction.reduce_h_programs`: one or two passes);
* any other TILE input is untilized first (UntilizeWithUnpadding, the padding stripped) and a row-major
  input is used as is: the row-major H reduce (:func:`rm_reduce_h_programs`) over the ``H * W`` rows;
* for ``N > 1`` the reduction's ``[N, 1, 1, C]`` becomes pool2d's flat ``[1, 1, N, C]`` and the runtime's
  reshape brings it back: two ReshapeViewTiled programs after a TILE reduction; after a row-major one,
  a TilizeWithValPadding of ``[1, 1, N, C]`` and one ReshapeViewTiled for a TILE result, nothing for a
  row-major one.  With ``N = 1`` the reduction writes the result.

A sharded input is first converted to interleaved in its buffer type (ShardedToInterleaved: measured by the
op-level campaign, measurements/opdiff/runs/norm.jsonl.gz).  A block-float tensor takes the same chain when
``H * W`` is a tile multiple, each reshape that is not a view running on bfloat16 between two typecasts
(:func:`~ttanalyze.ops.data_movement.reshape_steps`; measured: 11 bfloat8_b instances of the op-level
campaign, e.g. g1/ttnn.global_avg_pool2d/21: Typecast, ReshapeViewTiled, Typecast, the two H passes).
Otherwise a block-float input leaves the fast path for pool2d's sliding-window path, which width-shards the
folded tensor with a shard as high as the 4D input's padded height ``N * H * round_up(W, 32)``; tt-metal's
``TensorSpec`` check refuses it when that is not the folded tensor's physical height ``round_up(N * H * W,
32)`` (:class:`~ttanalyze.ops.cb.DeviceRejection`; measured: the 11 refusals quote both figures).  Not
modeled (:class:`~ttanalyze.ops.cb.CBModelError`): a sharded result, the sliding-window path when the two
heights agree, and a row-major result of a one-pass TILE reduction (not measured).
"""

from __future__ import annotations

from ..ir.attrs import DataType
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .data_movement import _layout_program, _to_row_major, reshape_steps
from .layout_conversion import to_memory_config_program, twvp_program
from .reduction import BF16, F32, _REDUCE_SRC, dims4, h_two_pass, reduce_h_programs
from .registry import register_cb, register_check, register_spec
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Tensor, operand, result
from .work_split import split_work_to_cores

_RM_CHUNK = 8  # tile rows of one H block the row-major reduce stages (measured: Ht 25, 32 and 49 -> 8 tiles)


def rm_reduce_h_program(x: Tensor, out: Tensor, rows: int, cores_units: int, grid: tuple[int, int],
                        note: str) -> ProgramModel:
    """ReduceMultiCoreHProgramFactory on a row-major input: ``rows`` rows of the padded width reduced per
    output tile column, on the cores of ``split_work_to_cores(grid, cores_units)``.

    DFBs (bytes per core): ``input`` 2 tiles and ``scaler`` 1 tile (f32 for an f32 input, else bf16), one
    output tile, the tilized H block ``max(2, min(8, ceil(rows / 32)))`` input tiles, one input-format
    accumulator tile and 2 output tiles (measured on the mock P150, ttnn 0.81.1: bf16 rows 1-280 ->
    2-8 tiles, f32 rows 784 -> 8; the program after a two-pass H reduce is the same one over its
    ``chunks`` f32 partial rows).
    """
    cores = split_work_to_cores(grid, cores_units).all_cores
    scaler = (F32 if x.dtype == F32 else BF16).tile_bytes()
    block = max(2, min(_RM_CHUNK, -(-rows // TILE)))
    cbs = [CB(0, "input", x.tile_bytes, 2, cores), CB(1, "scaler", scaler, 1, cores),
           CB(2, "output_one", out.tile_bytes, 1, cores), CB(3, "h_block", x.tile_bytes, block, cores),
           CB(4, "accumulator", x.tile_bytes, 1, cores), CB(5, "output", out.tile_bytes, 2, cores)]
    return ProgramModel("ReduceDeviceOperation::ReduceMultiCoreHProgramFactory", _REDUCE_SRC.format("h"), cores, cbs,
                        [note], inputs=(x,), outputs=(out,))


def rm_reduce_h_programs(x: Tensor, out: Tensor, grid: tuple[int, int]) -> list[ProgramModel]:
    """The H reduction of the row-major ``x`` (``[N, 1, R, C]``) into ``out``: one program, or two when
    :func:`~ttanalyze.ops.reduction.h_two_pass` splits it (``chunks = min(Ht, cores // columns)`` f32
    partial rows per column, then the same factory over them; measured: [4, 1, 1568, 96] bf16 -> 9 chunks)."""
    nc, ht, wt = dims4(x.with_(layout="tile"))
    cols = nc * wt
    if not h_two_pass(x.with_(layout="tile"), grid):
        return [rm_reduce_h_program(x, out, x.shape[-2], cols, grid,
                                    f"row-major H reduce: {cols} tile columns of {x.shape[-2]} rows")]
    chunks = min(ht, (grid[0] * grid[1]) // cols)
    part = x.with_(shape=(*x.shape[:-2], chunks, x.shape[-1]), dtype=F32, layout="row_major")
    return [rm_reduce_h_program(x, part, x.shape[-2], cols * chunks, grid,
                                f"row-major two-pass H reduce, pass 1: {cols} columns x {chunks} H chunks"),
            rm_reduce_h_program(part, out, chunks, cols, grid,
                                f"row-major two-pass H reduce, pass 2: combines {chunks} partial rows per column")]


def _io(ctx: CBContext) -> tuple[Tensor, Tensor]:
    x, out = operand(ctx, 0), result(ctx)
    if x.rank != 4:
        raise CBModelError("global_avg_pool2d needs a 4D input")
    if out.sharded:
        raise CBModelError("global_avg_pool2d into a sharded result is not modeled")
    n, h, w, _ = x.shape
    if x.dtype.is_block_float and x.tiled and not x.sharded and (h * w) % TILE:
        # the sliding-window path width-shards the folded [1, 1, N * H * W, C] tensor with a shard as high as the
        # 4D input's padded height; tensor_spec.cpp's width-sharded check refuses a shard height that is not the
        # tensor's physical height (measured: 9 of 9 refusals of the op-level campaign and 2 of its fresh draws
        # quote these two figures, e.g. g1/ttnn.global_avg_pool2d/10: 576 and 512)
        shard_h, phys_h = n * h * -(-w // TILE) * TILE, -(-(n * h * w) // TILE) * TILE
        if shard_h != phys_h:
            raise DeviceRejection(f"global_avg_pool2d of a {x.dtype} tensor whose H * W ({h * w}) is not a tile multiple "
                                  f"takes the sliding-window path: Shard height {shard_h} must match physical height "
                                  f"{phys_h} for width sharded (TT_FATAL, tensor_spec.cpp)")
    if (x.dtype.is_block_float or out.dtype.is_block_float) and (x.shape[1] * x.shape[2]) % TILE:
        raise CBModelError("global_avg_pool2d of a block-float tensor whose H * W is not a tile multiple leaves the "
                           "reduction fast path for the sliding-window path (pool2d's sharded programs): not modeled")
    return x, out


@register_cb("ttnn.global_avg_pool2d")
def global_avg_pool2d_programs(ctx: CBContext) -> list[ProgramModel]:
    """The programs of ``avg_pool2d`` over the whole ``H x W`` window plus the runtime's reshape (module
    docstring).  Tensors: ``x`` ``[N, H, W, C]`` in, the result ``[N, 1, 1, C]`` out.

    Raises:
        DeviceRejection: a block-float input refused on the sliding-window path (module docstring).
        CBModelError: a sharded result, the sliding-window path, a row-major result of a one-pass TILE reduction.
    """
    x, out = _io(ctx)
    n, h, w, c = x.shape
    grid = ctx.grid
    flat = (n, 1, h * w, c)
    steps: list[ProgramModel] = []
    if x.sharded:  # converted to interleaved in its buffer type first (measured: ShardedToInterleaved)
        flat_x = x.with_(mem=MemCfg(x.buffer_type, "interleaved"))
        p = to_memory_config_program(x, flat_x, ctx.arch)
        if p is not None:
            p.inputs, p.outputs = (x,), (flat_x,)
            steps.append(p)
        x = flat_x
    # the reduction writes the result when N = 1 (or a row-major result: the reshapes after it are views),
    # else [N, 1, 1, C] in the result's memory config, reshaped to pool2d's [1, 1, N, C] and back
    if x.tiled and (h * w) % TILE == 0:
        folded = x.with_(shape=flat)  # ttnn::reshape keeps the input's memory config
        for p in reshape_steps(x, flat, folded, ctx):
            p.inputs, p.outputs = (x,), (folded,)
            steps.append(p)
        passes = reduce_h_programs(folded, out.with_(layout="tile"), grid)
        if not out.tiled and len(passes) == 1:
            raise CBModelError("global_avg_pool2d to a row-major result after a one-pass TILE reduction is not modeled")
        red = out if n == 1 or not out.tiled else out.with_(shape=(n, 1, 1, c))
        passes[0].inputs, passes[-1].outputs = (folded,), (red,)
        steps += passes
        if n > 1 and out.tiled:
            pooled = red.with_(shape=(1, 1, n, c))
            for src, dst in ((red, pooled), (pooled, out)):
                for p in reshape_steps(src, dst.shape, dst, ctx):
                    p.inputs, p.outputs = (src,), (dst,)
                    steps.append(p)
        return steps
    rm = x
    if x.tiled:
        steps += _to_row_major(x, x, ctx)
        rm = steps[-1].outputs[0]
    folded = rm.with_(shape=flat, layout="row_major")
    red = out if n == 1 or not out.tiled else out.with_(shape=(n, 1, 1, c), layout="row_major")
    steps += rm_reduce_h_programs(folded, red, grid)
    if n > 1 and out.tiled:
        pooled = red.with_(shape=(1, 1, n, c))
        tiled = pooled.with_(layout="tile")
        steps.append(_layout_program(twvp_program, pooled, tiled, ctx))
        for p in reshape_steps(tiled, out.shape, out, ctx):
            p.inputs, p.outputs = (tiled,), (out,)
            steps.append(p)
    return steps


@register_spec("ttnn.global_avg_pool2d")
def global_avg_pool2d_spec(ctx: CBContext) -> list[TensorSpec]:
    """``[N, 1, 1, C]`` in the result's layout and memory config, of the op's ``dtype`` (else the input's:
    the runtime passes it to avg_pool2d; measured)."""
    x, out = _io(ctx)
    dtype = ctx.op.attrs.get("dtype")
    dtype = DataType(str(getattr(dtype, "value", dtype))) if dtype is not None else x.dtype
    return [out.with_(shape=(x.shape[0], 1, 1, x.shape[3]), dtype=dtype).spec()]


register_check("ttnn.global_avg_pool2d", "mock",
               "tests/test_ops_dialect_norm.py against measurements/dialect/results_norm.jsonl",
               ("ReduceDeviceOperation", "ReshapeDeviceOperation", "UntilizeWithUnpaddingDeviceOperation",
                "TilizeWithValPaddingDeviceOperation"))
