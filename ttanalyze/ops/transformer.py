"""Transformer head ops and rotary embeddings.

Shape rules from the verifiers (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca, named at
each rule).  Prefill tensors are ``[batch, heads, seq, head_dim]``; decode tensors put the single
token first: ``[1, batch, heads, head_dim]``.

* ``concatenate_heads``: ``[B, H, S, D]`` -> ``[B, S, H*D]``;
* ``nlp_concat_heads``: ``[B, H, S, D]`` -> ``[B, 1, S, H*D]``;
* ``nlp_concat_heads_decode``: ``[S, B, H, D]`` -> ``[S, 1, B', num_heads*D]`` (``B'`` as declared: tt-metal
  pads the batch; the verifier does not check it);
* ``split_query_key_value_and_split_heads``: fused ``[B, S, (H + 2*KVH)*D]`` (or query ``[B, S, H*D]``
  and fused KV ``[B, T, 2*KVH*D]``) -> query ``[B, H, S, D]``, key ``[B, KVH, T, D]`` (``[B, KVH, D, T]``
  with ``transpose_key``), value ``[B, KVH, T, D]``;
* ``nlp_create_qkv_heads_decode``: ``[1, 1, B, (H + 2*KVH)*D]`` -> ``[1, B', H, D]``, ``[1, B', KVH, D]``
  twice, ``B'`` = ``slice_size`` when given, else ``B``;
* ``rotary_embedding`` / ``rotary_embedding_llama``: the input's shape.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, int_attr, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, operand, result
from .work_split import corerange_to_cores, merge, num_cores_to_corerangeset, split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


def _rank(op: Op, shape: tuple[int, ...], rank: int, what: str) -> None:
    if len(shape) != rank:
        raise ShapeError(f"{op.name}: {what} must be a {rank}D tensor, got rank {len(shape)}")


@register("ttnn.concatenate_heads", "transformer", (), f"{_SRC} ConcatenateHeadsOp::verify")
def concatenate_heads(op: Op):
    x = tensor_shape(op, 0)
    _rank(op, x, 4, "input")
    return [(x[0], x[2], x[1] * x[3])]


@register("ttnn.nlp_concat_heads", "transformer", (), f"{_SRC} NLPConcatHeadsOp::verify")
def nlp_concat_heads(op: Op):
    x = tensor_shape(op, 0)
    _rank(op, x, 4, "input")
    return [(x[0], 1, x[2], x[1] * x[3])]


@register("ttnn.nlp_concat_heads_decode", "transformer", ("num_heads",), f"{_SRC} NLPConcatHeadsDecodeOp::verify")
def nlp_concat_heads_decode(op: Op):
    x = tensor_shape(op, 0)
    _rank(op, x, 4, "input")
    heads = int_attr(op, "num_heads")
    if heads > x[2]:
        raise ShapeError(f"{op.name}: num_heads {heads} exceeds the input's {x[2]} heads")
    # dim 2 (the batch, which tt-metal pads to a tile) is not checked by the verifier: taken as declared
    declared = op.results[0].type.shape if op.results and op.results[0].is_tensor else None
    batch = declared[2] if declared is not None and len(declared) == 4 else x[1]
    return [(x[0], 1, batch, heads * x[3])]


@register("ttnn.split_query_key_value_and_split_heads", "transformer", ("num_heads", "num_kv_heads", "transpose_key"),
          f"{_SRC} SplitQueryKeyValueAndSplitHeadsOp::verify")
def split_qkv(op: Op):
    g = operand_groups(op, ("input_tensor", "kv_input_tensor?"))
    x = shape_of(op, tensor_or_none(g, "input_tensor"), "input")
    _rank(op, x, 3, "input")
    kv_value = tensor_or_none(g, "kv_input_tensor")
    kv = shape_of(op, kv_value, "kv input") if kv_value is not None else x
    heads = int_attr(op, "num_heads")
    kv_heads = int_attr(op, "num_kv_heads", heads)
    if heads <= 0 or kv_heads <= 0:
        raise ShapeError(f"{op.name}: num_heads and num_kv_heads must be positive")
    if kv_value is not None:
        dq, dkv = x[2] // heads, kv[2] // (2 * kv_heads)
    else:
        dq = dkv = x[2] // (heads + 2 * kv_heads)
    key = (kv[0], kv_heads, dkv, kv[1]) if op.attrs.get("transpose_key") else (kv[0], kv_heads, kv[1], dkv)
    return [(x[0], heads, x[1], dq), key, (kv[0], kv_heads, kv[1], dkv)]


@register("ttnn.nlp_create_qkv_heads_decode", "transformer",
          ("num_heads", "num_kv_heads", "overlap_qk_coregrid", "slice_size"),
          f"{_SRC} NLPCreateQKVHeadsDecodeOp::verify")
def nlp_create_qkv_heads_decode(op: Op):
    g = operand_groups(op, ("input", "batch_offset?"))
    x = shape_of(op, tensor_or_none(g, "input"), "input")
    _rank(op, x, 4, "input")
    if x[0] != 1 or x[1] != 1:
        raise ShapeError(f"{op.name}: input dims 0 and 1 must be 1, got {list(x)}")
    has_offset, has_slice = tensor_or_none(g, "batch_offset") is not None, "slice_size" in op.attrs
    if has_offset != has_slice:
        raise ShapeError(f"{op.name}: both or neither of batch_offset and slice_size must be set")
    heads = int_attr(op, "num_heads")
    kv_heads = int_attr(op, "num_kv_heads", heads)
    batch = int_attr(op, "slice_size") if has_slice else x[2]
    d = x[3] // (heads + 2 * kv_heads)
    return [(1, batch, heads, d), (1, batch, kv_heads, d), (1, batch, kv_heads, d)]


@register("ttnn.rotary_embedding", "transformer", ("token_index", "compute_config"), f"{_SRC} RotaryEmbeddingOp::verify")
def rotary_embedding(op: Op):
    if len(op.operands) != 3:
        raise ShapeError(f"{op.name} expects input, cos and sin caches")
    x, cos, sin = (tensor_shape(op, i) for i in range(3))
    for s, n in ((x, "input"), (cos, "cos cache"), (sin, "sin cache")):
        _rank(op, s, 4, n)
    if cos != sin:
        raise ShapeError(f"{op.name}: cos {list(cos)} and sin {list(sin)} caches must have the same shape")
    # tt-metal RotaryEmbedding::compute_output_specs (rotary_embedding_device_operation.cpp @d80d9482): the
    # output shape is the (tile) input's padded shape, its dim -2 round_up(seq_len, TILE_HEIGHT) without a
    # token index: a 1x4x7x128 input gives 1x4x32x128, which tt-mlir declares.
    return [(*x[:-2], -(-x[-2] // 32) * 32, -(-x[-1] // 32) * 32)]


@register("ttnn.rotary_embedding_llama", "transformer", ("is_decode_mode", "compute_config"),
          f"{_SRC} RotaryEmbeddingLlamaOp::verify")
def rotary_embedding_llama(op: Op):
    if len(op.operands) != 4:
        raise ShapeError(f"{op.name} expects input, cos, sin and the transformation matrix")
    x, cos, sin, trans = (tensor_shape(op, i) for i in range(4))
    if cos != sin:
        raise ShapeError(f"{op.name}: cos {list(cos)} and sin {list(sin)} caches must have the same shape")
    if x and x[-1] > 256:
        raise ShapeError(f"{op.name}: head dimension must be <= 256, got {x[-1]}")
    if len(trans) != 4 or tuple(trans) != (1, 1, 32, 32):
        raise ShapeError(f"{op.name}: the transformation matrix must be [1, 1, 32, 32], got {list(trans)}")
    return [x]


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

_CONCAT_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/nlp_concat_heads/device/"
               "nlp_concat_heads_program_factory.cpp (0172564a; the work split measured on ttnn 0.81.1)")


@register_cb(("ttnn.nlp_concat_heads", "ttnn.concatenate_heads"))
def concat_heads_program(ctx: CBContext) -> ProgramModel:
    """``NLPConcatHeadsProgramFactory`` (``concatenate_heads`` runs ``nlp_concat_heads`` then a view).

    Interleaved input ``[B, H, S, D]`` (tile-padded): ``per_tensor_tiles = H * D / 32``; c_0 holds two
    of them (double buffer) in the input's tile size.  ttnn 0.81.1 splits ``B * S/32 * H`` blocks with
    ``split_work_to_cores`` column-major (measured: measurements/dialect/results.jsonl; the stored
    source at 0172564a splits ``B * S/32`` blocks).

    Raises:
        DeviceRejection: ``concatenate_heads`` of a head size that is not a multiple of 32.
        CBModelError: a sharded input (the sharded path is not measured).
    """
    x = operand(ctx, 0)
    if ctx.op.name == "ttnn.concatenate_heads" and x.shape[-1] % TILE:
        # ttnn/cpp/ttnn/operations/transformer/concatenate_heads/concatenate_heads.cpp:28 (d80d9482):
        # TT_FATAL(head_size % TILE_SIZE == 0) before nlp_concat_heads runs (measured: opdiff campaign)
        raise DeviceRejection(f"concatenate_heads: Head size must be a multiple of 32 but was found to be "
                              f"{x.shape[-1]} (TT_FATAL)")
    if x.sharded:
        raise CBModelError(f"{ctx.op.name}: a sharded input (the factory's sharded path is not modeled)")
    b, h, s, d = x.padded
    per_tensor = h * d // TILE
    split = split_work_to_cores(ctx.grid, b * (s // TILE) * h, row_wise=False)
    cores = split.all_cores
    prog = ProgramModel("NLPConcatHeadsDeviceOperation::NLPConcatHeadsProgramFactory", _CONCAT_SRC, cores,
                        [CB(0, "in0", x.tile_bytes, 2 * per_tensor, cores)],
                        [f"{split.num_cores} cores for {split.units} blocks (B * Ht * heads)"])
    return prog


register_check(("ttnn.nlp_concat_heads", "ttnn.concatenate_heads"), "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("NLPConcatHeadsDeviceOperation",))


@register_spec(("ttnn.nlp_concat_heads", "ttnn.concatenate_heads"))
def concat_heads_spec(ctx: CBContext) -> list[TensorSpec]:
    """``[B, 1, S, H*D]`` (``concatenate_heads``: ``[B, S, H*D]``), TILE, the input's dtype, the
    declared memory config (``NLPConcatHeadsDeviceOperation::compute_output_specs``; measured)."""
    x = operand(ctx, 0)
    b, h, s, d = x.shape
    shape = (b, 1, s, h * d) if ctx.op.name == "ttnn.nlp_concat_heads" else (b, s, h * d)
    return [x.with_(shape=shape, layout="tile", mem=result(ctx).mem).spec()]


_ROTARY_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/rotary_embedding/device/"
               "rotary_embedding_program_factory.cpp (00555207; measured on ttnn 0.81.1)")


@register_cb("ttnn.rotary_embedding")
def rotary_embedding_program(ctx: CBContext) -> ProgramModel:
    """``RotaryEmbeddingProgramFactory`` (``rotary_embedding_multi_core``).

    With ``Wt = padded width / 32``: interleaved, ``num_rows = physical volume / width / 32`` tile rows split
    row-major over the grid (``split_work_to_cores``); c_0 input and c_1 rotated input ``2 * Wt`` input tiles,
    c_2 cos and c_3 sin ``2 * Wt`` tiles of their dtypes (``Wt`` with a token index), c_4 one Float16_b scalar
    tile, c_24/c_25/c_26 one tile each (input, cos, sin formats), c_16 ``2 * Wt`` output tiles.  A token index
    (decode) adds c_29/c_30 (``Wt`` cos/sin tiles) and two ``Wt``-tile Float16_b untilize CBs (from source).
    A sharded input (or output) runs on the shard grid and backs c_0 (c_16) with the shard.
    Measured (interleaved, bf16/f32/bfp8, no token index): measurements/dialect/results.jsonl.
    """
    x, cos, sin, out = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), result(ctx)
    wt = x.padded[-1] // TILE
    token = ctx.op.attrs.get("token_index") is not None
    shard = x.shard if x.sharded else out.shard if out.sharded else None
    if shard is not None:
        cores = shard.grid
        shard_tiles = shard.shape[0] * shard.shape[1] // (TILE * TILE)
        in_cb = CB(0, "input", x.tile_bytes, shard_tiles if x.sharded else 2 * wt, cores, x.sharded)
        out_cb = CB(16, "out", out.tile_bytes, shard_tiles if out.sharded else 2 * wt, cores, out.sharded)
        note = "sharded: the shard grid"
    else:
        rows = x.physical_volume // x.padded[-1] // TILE
        split = split_work_to_cores(ctx.grid, rows, row_wise=True)
        cores = split.all_cores
        in_cb = CB(0, "input", x.tile_bytes, 2 * wt, cores)
        out_cb = CB(16, "out", out.tile_bytes, 2 * wt, cores)
        note = f"{split.num_cores} cores for {rows} tile rows"
    cos_sin = wt if token else 2 * wt
    cbs = [in_cb, CB(1, "rotated_input", x.tile_bytes, 2 * wt, cores),
           CB(2, "cos", cos.tile_bytes, cos_sin, cores), CB(3, "sin", sin.tile_bytes, cos_sin, cores),
           CB(4, "scalar", 2048, 1, cores), CB(24, "rotated_input_interm", x.tile_bytes, 1, cores),
           CB(25, "cos_interm", cos.tile_bytes, 1, cores), CB(26, "sin_interm", sin.tile_bytes, 1, cores), out_cb]
    if token:
        cbs += [CB(29, "retilized_cos", cos.tile_bytes, wt, cores), CB(30, "retilized_sin", sin.tile_bytes, wt, cores),
                CB(27, "untilized_cos (+c_5)", 2048, wt, cores), CB(28, "untilized_sin (+c_6)", 2048, wt, cores)]
    return ProgramModel("RotaryEmbeddingDeviceOperation::RotaryEmbeddingProgramFactory", _ROTARY_SRC, cores, cbs,
                        [note], inputs=(x, cos, sin), outputs=(out,))


register_check("ttnn.rotary_embedding", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("RotaryEmbeddingDeviceOperation",))


_CREATE_HEADS_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/nlp_create_qkv_heads/device/"
                     "nlp_create_qkv_heads_program_factory.cpp (Interleaved::create_descriptor, stored source; "
                     "ttnn 0.81.1's sizing measured)")


@register_cb("ttnn.split_query_key_value_and_split_heads")
def split_qkv_program(ctx: CBContext) -> ProgramModel:
    """``NlpCreateHeadsDeviceOperation::Interleaved`` (ttnn views the ``[B, S, W]`` input as
    ``[B, 1, S, W]``; measured for equal and grouped KV heads alike).

    ttnn 0.81.1 (measured): without ``transpose_key`` one CB, c_1, of ``2 * head_dim / 32`` input tiles, on
    ``B * S/32 * (num_heads + 2 * num_kv_heads)`` blocks (one head of one tile row each); with it, c_1, c_0
    and c_16 of 4 tiles each (quadruple buffer, as in the stored source) on ``B * S/32`` blocks.  The blocks
    are split column-major over the grid (``split_work_to_cores``).

    Raises:
        CBModelError: a sharded input or a separate KV input (those paths are not measured).
    """
    g = operand_groups(ctx.op, ("input_tensor", "kv_input_tensor?"))
    if tensor_or_none(g, "kv_input_tensor") is not None:
        raise CBModelError(f"{ctx.op.name}: a separate KV input (not measured)")
    x = operand(ctx, 0)
    if x.sharded:
        raise CBModelError(f"{ctx.op.name}: a sharded input (the Sharded factory is not modeled)")
    heads = int_attr(ctx.op, "num_heads")
    kv_heads = int_attr(ctx.op, "num_kv_heads", heads)
    head_dim = x.shape[-1] // (heads + 2 * kv_heads)
    rows = x.physical_volume // x.padded[-1] // TILE
    transpose = bool(ctx.op.attrs.get("transpose_key"))
    units = rows if transpose else rows * (heads + 2 * kv_heads)
    split = split_work_to_cores(ctx.grid, units, row_wise=False)
    cores = split.all_cores
    if transpose:
        cbs = [CB(1, "in", x.tile_bytes, 4, cores), CB(0, "transpose_in", x.tile_bytes, 4, cores),
               CB(16, "transpose_out", x.tile_bytes, 4, cores)]
    else:
        cbs = [CB(1, "in", x.tile_bytes, 2 * -(-head_dim // TILE), cores)]
    return ProgramModel("NlpCreateHeadsDeviceOperation::Interleaved", _CREATE_HEADS_SRC, cores, cbs,
                        [f"{split.num_cores} cores for {units} blocks"])


register_check("ttnn.split_query_key_value_and_split_heads", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("NlpCreateHeadsDeviceOperation",))


_ROTARY_LLAMA_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/rotary_embedding_llama/device/"
                     "rotary_embedding_llama_multi_core_program_factory.cpp (0016fcf7; ttnn 0.81.1 measured)")


@register_cb("ttnn.rotary_embedding_llama")
def rotary_embedding_llama_program(ctx: CBContext) -> ProgramModel:
    """``RotaryEmbeddingLlamaMultiCore`` (prefill, interleaved), on the whole grid.

    With ``Wt = head_dim / 32``: batches then sequence tile rows are parallelized
    (``batch_parallel = min(B, cores)``, ``seq_parallel = min(cores / batch_parallel, S/32)``,
    ``rows = ceil(S/32 / seq_parallel)``); unless the factory reloads (``rows * heads > 8``, or cos/sin per head:
    ``cos.padded[1] == heads``) c_0 holds ``rows * 2 * Wt`` input tiles and c_1/c_2 ``rows * 2 * Wt`` cos/sin
    tiles, else ``2 * Wt`` each; c_3 one trans-mat tile, c_24/c_25/c_26 ``Wt`` tiles, c_16 ``2 * Wt`` output
    tiles, and the writer's zero-fill scratchpad (``zero_scratchpad``, ``Wt`` output tiles: a scratchpad, not a
    DFB, in ttnn 0.81.1, measured as such: the opdiff campaign's ``g1/ttnn.rotary_embedding_llama/1`` and
    ``measurements/dialect``; 0016fcf7 has no such buffer, the factory's Metal-2.0 port reads
    ``ScratchpadSpec zero_scratchpad{.size_per_node = output_single_tile_size * num_interm_tiles}``).
    Every tensor must be bf16.

    Raises:
        DeviceRejection: a dtype other than bf16 (ttnn 0.81.1's TT_FATAL "All input tensors must have dtype =
            bfloat16").
        CBModelError: decode mode or sharded tensors (other factories, not modeled).
    """
    x, cos, sin, trans, out = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), operand(ctx, 3), result(ctx)
    if any(str(t.dtype) != "bf16" for t in (x, cos, sin, trans)):
        raise DeviceRejection(f"{ctx.op.name}: All input tensors must have dtype = bfloat16 "
                              "(rotary_embedding_llama_device_operation.cpp TT_FATAL)")
    if ctx.op.attrs.get("is_decode_mode") or any(t.sharded for t in (x, cos, sin, trans, out)):
        raise CBModelError(f"{ctx.op.name}: decode mode or sharded tensors (the sharded factories are not modeled)")
    gx, gy = ctx.grid
    cores = cores_set(core_range(0, 0, gx - 1, gy - 1))
    b, heads, s, d = x.padded
    wt, st = d // TILE, s // TILE
    bpf = min(b, gx * gy)
    spf = min(gx * gy // bpf, st)
    rows = -(-st // spf)
    reload = rows * heads > 8 or cos.padded[1] == heads
    per = 2 * wt if reload else rows * 2 * wt
    cbs = [CB(0, "input", x.tile_bytes, per, cores), CB(1, "cos", cos.tile_bytes, per, cores),
           CB(2, "sin", sin.tile_bytes, per, cores), CB(3, "trans_mat", trans.tile_bytes, 1, cores),
           CB(24, "rotated_input_interm", x.tile_bytes, wt, cores), CB(25, "cos_interm", cos.tile_bytes, wt, cores),
           CB(26, "sin_interm", sin.tile_bytes, wt, cores), CB(16, "out", out.tile_bytes, 2 * wt, cores)]
    zero = out.tile_bytes * wt
    return ProgramModel("RotaryEmbeddingLlamaDeviceOperation::RotaryEmbeddingLlamaMultiCore", _ROTARY_LLAMA_SRC, cores,
                        cbs, [f"{rows} sequence tile rows per core" + ("; reload" if reload else ""),
                              f"scratchpad zero {zero:,} B"],
                        extra_l1_per_core=zero, inputs=(x, cos, sin, trans), outputs=(out,), scratchpads=(zero,))


register_check("ttnn.rotary_embedding_llama", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("RotaryEmbeddingLlamaDeviceOperation",))


_CONCAT_DECODE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/nlp_concat_heads_decode/device/"
                      "nlp_concat_heads_decode_program_factory.cpp (ttnn 0.81.1 measured)")


@register_cb("ttnn.nlp_concat_heads_decode")
def nlp_concat_heads_decode_program(ctx: CBContext) -> ProgramModel:
    """``NLPConcatHeadsDecodeDeviceOperation``: the output ``[1, 1, 32, heads * D]`` is width-sharded one head per
    core over the first ``num_heads`` cores (row-major; of the input's shard grid, which tt-mlir's runtime
    passes as ``sub_core_grids`` when it is not one range from (0, 0)); its only CB, c_16, is backed by the
    output's shard (``D / 32`` tiles), so the program has no static CB: the readers gather the heads from the
    input's shards.  Measured: measurements/dialect/results.jsonl.

    Raises:
        DeviceRejection: an input that is not bf16 or f32 (TT_FATAL "Unsupported data format").
        CBModelError: an interleaved input (the op needs a height-sharded one).
    """
    x = operand(ctx, 0)
    _float_only(ctx, x, "nlp_concat_heads_decode_device_operation.cpp")
    if not x.sharded:
        raise CBModelError(f"{ctx.op.name}: an interleaved input (the op needs a height-sharded one)")
    heads = int_attr(ctx.op, "num_heads")
    grid = x.shard.grid
    first = grid.ranges[0].start if grid.ranges else None
    if len(grid.ranges) > 1 or (first is not None and (first.x, first.y) != (0, 0)):
        cores = merge(corerange_to_cores(grid, row_wise=True)[:heads])
    else:
        cores = num_cores_to_corerangeset(heads, ctx.grid, True)
    out = result(ctx)
    cbs = [CB(16, "out (the output's shard)", out.tile_bytes, -(-x.padded[-1] // TILE), cores, True)]
    return ProgramModel("NLPConcatHeadsDecodeDeviceOperation", _CONCAT_DECODE_SRC, cores, cbs,
                        [f"one head per core on {heads} cores"], inputs=(x,), outputs=(out,))


register_check("ttnn.nlp_concat_heads_decode", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("NlpConcatHeadsDecodeDeviceOperation",))


def _float_only(ctx: CBContext, x, source: str) -> None:
    """ttnn 0.81.1's TT_FATAL on the decode head ops: the input must be FLOAT32 or BFLOAT16 (measured)."""
    if str(x.dtype) not in ("bf16", "f32"):
        raise DeviceRejection(f"{ctx.op.name}: Unsupported data format {x.dtype}: the input must be FLOAT32 or "
                              f"BFLOAT16 ({source} TT_FATAL)")


_CREATE_DECODE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/transformer/nlp_create_qkv_heads_decode/device/"
                      "nlp_create_qkv_heads_decode_interleaved_program_factory.cpp (08041dd9; ttnn 0.81.1 measured)")


@register_cb("ttnn.nlp_create_qkv_heads_decode")
def nlp_create_qkv_heads_decode_program(ctx: CBContext) -> ProgramModel:
    """``NLPCreateQKVHeadsDecodeInterleavedProgramFactory`` (an interleaved input): Q, K and V are height-sharded one
    user per core (the Q result's shard grid, else the first ``batch`` cores row-major); their CBs are backed by
    the outputs' shards, and when a 16-element face row (``16 * element size`` B) is below the DRAM alignment of
    a DRAM input (bf16 on Blackhole: 32 < 64 B) each RISC gets a scratch CB of ``(head_dim/32 + 1)`` DRAM-aligned
    chunks.  Measured: measurements/dialect/results.jsonl.

    Raises:
        DeviceRejection: an input that is not bf16 or f32, or a sharded input that is not width-sharded
            (ttnn 0.81.1's TT_FATALs).
        CBModelError: a width-sharded input (the sharded factories are not modeled).
    """
    x = operand(ctx, 0)
    _float_only(ctx, x, "nlp_create_qkv_heads_decode_device_operation.cpp")
    if x.sharded:
        if x.memory_layout != "width_sharded":
            raise DeviceRejection(f"{ctx.op.name}: Current input memory layout is {x.memory_layout}. It must be width "
                                  "sharded (nlp_create_qkv_heads_decode_device_operation.cpp TT_FATAL)")
        raise CBModelError(f"{ctx.op.name}: a width-sharded input (the sharded factories are not modeled)")
    heads = int_attr(ctx.op, "num_heads")
    kv_heads = int_attr(ctx.op, "num_kv_heads", heads)
    head_dim = x.shape[-1] // (heads + 2 * kv_heads)
    q = result(ctx, 0)
    batch = q.shape[1]
    cores = q.shard.grid if q.sharded else num_cores_to_corerangeset(batch, ctx.grid, True)
    cbs = []
    for i, name in enumerate(("q_out", "k_out", "v_out")):
        t = result(ctx, i)
        tiles = t.shard.tiles if t.sharded else -(-t.shape[2] // TILE) * -(-head_dim // TILE)
        cbs.append(CB(16 + i, name, t.tile_bytes, tiles, cores, True))
    align = x.dram_alignment
    if x.buffer_type == "dram" and 16 * x.element_bytes < align:
        chunks = -(-head_dim // TILE) + 1
        cbs += [CB(-1, "reader_scratch", align, chunks, cores), CB(-2, "writer_scratch", align, chunks, cores)]
    return ProgramModel("NLPCreateQKVHeadsDecodeDeviceOperation::Interleaved", _CREATE_DECODE_SRC, cores, cbs,
                        [f"{cores.num_cores} cores, one user each"], inputs=(x,), outputs=(q, result(ctx, 1), result(ctx, 2)))


register_check("ttnn.nlp_create_qkv_heads_decode", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("NlpCreateHeadsDecodeDeviceOperation",))
