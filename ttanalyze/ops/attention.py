"""Scaled dot-product attention: prefill, decode, paged decode, chunked prefill, flash MLA, training.

Shape rules
-----------
From the ops' verifiers (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca,
``ScaledDotProductAttentionOp::verify`` and the others named at each rule); shapes are
``[batch, heads, seq, head_dim]`` for prefill, ``[1, batch, heads, head_dim]`` for the decode query:

* ``scaled_dot_product_attention`` / ``_decode`` / ``paged_..._decode`` /
  ``chunked_scaled_dot_product_attention``: the result has the query's shape;
* ``flash_mla_prefill`` / ``paged_flash_multi_latent_attention_decode``: the query's shape with
  the last dim ``head_dim_v``;
* ``sdpa_fw``: the query's shape (its optional intermediates are taken as declared);
  ``sdpa_bw``: the gradients of query, key and value, shaped like them;
* ``indexer_score_dsa``: ``[B, 1, Sq, T]`` (its program, refusals and result: :mod:`ttanalyze.ops.indexer_score`).

What they return
----------------
tt-metal's ``compute_output_specs`` of the SDPA device operations
(``ttnn/cpp/ttnn/operations/transformer/sdpa*/device/*_device_operation.cpp``) build the output as
``TensorSpec(q.logical_shape (head dim replaced for MLA), TensorLayout(q.dtype, TILE,
output_mem_config))``; tt-mlir's runtime passes the result's memory config
(``runtime/lib/ttnn/operations/transformer/*.cpp`` @19c86fca).  So the result is a TILE tensor
of the query's dtype in the declared memory config.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, int_attr, register, register_cb, register_check, register_spec
from .spec import TensorSpec
from .tensors import TILE, _view, result, tensor_of

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"

SDPA_OPERANDS = ("query", "key", "value", "attention_mask?", "attention_sink?")
DECODE_OPERANDS = ("query", "key", "value", "attention_mask?", "cur_pos_tensor?", "attention_sink?")
PAGED_DECODE_OPERANDS = ("query", "key", "value", "page_table", "attention_mask?", "cur_pos_tensor?",
                         "attention_sink?")
CHUNKED_OPERANDS = ("query", "key", "value", "page_table", "chunk_start_idx")
MLA_DECODE_OPERANDS = ("query", "key", "value?", "page_table", "attention_mask?", "cur_pos_tensor?",
                       "attention_sink?")
MLA_PREFILL_OPERANDS = ("query", "key", "value?", "attention_mask?")


def _rank4(op: Op, shape: tuple[int, ...], what: str) -> None:
    if len(shape) != 4:
        raise ShapeError(f"{op.name}: {what} must be a 4D tensor, got rank {len(shape)}")


def _heads_divide(op: Op, nq: int, nkv: int) -> None:
    if nkv == 0 or nq % nkv:
        raise ShapeError(f"{op.name}: query num heads {nq} must be divisible by key/value num heads {nkv}")


def _mask(op: Op, groups, batch: int, heads: int, seq: int, kv_seq: int, decode: bool) -> None:
    mask = tensor_or_none(groups, "attention_mask")
    if mask is None:
        return
    if bool(op.attrs.get("is_causal", True)):
        raise ShapeError(f"{op.name}: attention mask is not allowed when is_causal is true")
    m = shape_of(op, mask, "attention mask")
    _rank4(op, m, "attention mask")
    if m[0] not in (1, batch):
        raise ShapeError(f"{op.name}: attention mask batch size {m[0]} must be 1 (broadcast) or {batch}")
    # The decode mask's middle dims are not checked: tt-mlir's ScaledDotProductAttentionDecodeOp::verify
    # does not constrain them, and real tt-xla programs pass [1, B, H, S] masks (GPT-OSS decode on a
    # 2x4 mesh); a rule without a source must not raise a false error.
    if not decode and (m[1] not in (1, heads) or m[2] != seq):
        raise ShapeError(f"{op.name}: attention mask must be [B, 1 or {heads}, {seq}, ...], got {list(m)}")
    if m[3] != kv_seq:
        raise ShapeError(f"{op.name}: attention mask last dim {m[3]} must match the key sequence length {kv_seq}")


@register("ttnn.scaled_dot_product_attention", "attention",
          ("is_causal", "scale", "sliding_window_size", "operandSegmentSizes"),
          f"{_SRC} ScaledDotProductAttentionOp::verify")
def sdpa(op: Op):
    """``[B, NQH, S, D]`` query, ``[B, NKV, T, D]`` key and value -> the query's shape."""
    g = operand_groups(op, SDPA_OPERANDS)
    q, k, v = (shape_of(op, tensor_or_none(g, n), n) for n in ("query", "key", "value"))
    for s, n in ((q, "query"), (k, "key/value")):
        _rank4(op, s, n)
    if k != v:
        raise ShapeError(f"{op.name}: key {list(k)} and value {list(v)} must have the same shape")
    if k[0] != q[0]:
        raise ShapeError(f"{op.name}: key/value batch size {k[0]} must match query batch size {q[0]}")
    if k[3] != q[3]:
        raise ShapeError(f"{op.name}: key/value head size {k[3]} must match query head size {q[3]}")
    _heads_divide(op, q[1], k[1])
    _mask(op, g, q[0], q[1], q[2], k[2], decode=False)
    return [q]


def _decode_common(op: Op, g, q, k) -> None:
    _rank4(op, q, "query")
    _rank4(op, k, "key/value")
    if q[0] != 1:
        raise ShapeError(f"{op.name}: query dim 0 must be 1, got {q[0]}")
    if k[3] != q[3]:
        raise ShapeError(f"{op.name}: key/value head size {k[3]} must match query head size {q[3]}")
    _heads_divide(op, q[2], k[1])
    cur = tensor_or_none(g, "cur_pos_tensor")
    if cur is not None:
        c = shape_of(op, cur, "cur_pos_tensor")
        if len(c) != 1 or c[0] != q[1]:
            raise ShapeError(f"{op.name}: cur_pos_tensor must be 1D of the query batch {q[1]}, got {list(c)}")


@register("ttnn.scaled_dot_product_attention_decode", "attention",
          ("is_causal", "scale", "sliding_window_size", "program_config", "operandSegmentSizes"),
          f"{_SRC} ScaledDotProductAttentionDecodeOp::verify")
def sdpa_decode(op: Op):
    """``[1, B, NQH, D]`` query, ``[B, NKV, T, D]`` KV cache -> the query's shape."""
    g = operand_groups(op, DECODE_OPERANDS)
    q, k = shape_of(op, tensor_or_none(g, "query"), "query"), shape_of(op, tensor_or_none(g, "key"), "key")
    _decode_common(op, g, q, k)
    if k[0] != q[1]:
        raise ShapeError(f"{op.name}: key/value batch size {k[0]} must match query batch size {q[1]}")
    _mask(op, g, q[1], q[2], 1, k[2], decode=True)
    return [q]


def _paged(op: Op, g, q, k, block_dim: int = 2) -> None:
    pt = shape_of(op, tensor_or_none(g, "page_table"), "page_table")
    if len(pt) != 2:
        raise ShapeError(f"{op.name}: page table must be 2D, got rank {len(pt)}")
    if k[block_dim] % 32:
        raise ShapeError(f"{op.name}: block size {k[block_dim]} must be divisible by 32")
    return pt


@register("ttnn.paged_scaled_dot_product_attention_decode", "attention",
          ("is_causal", "scale", "sliding_window_size", "program_config", "operandSegmentSizes"),
          f"{_SRC} PagedScaledDotProductAttentionDecodeOp::verify")
def paged_sdpa_decode(op: Op):
    """``[1, B, NQH, D]`` query, paged ``[blocks, NKV, block_size, D]`` cache, ``[B, blocks/user]``
    page table -> the query's shape."""
    g = operand_groups(op, PAGED_DECODE_OPERANDS)
    q, k = shape_of(op, tensor_or_none(g, "query"), "query"), shape_of(op, tensor_or_none(g, "key"), "key")
    v = shape_of(op, tensor_or_none(g, "value"), "value")
    if k != v:
        raise ShapeError(f"{op.name}: key {list(k)} and value {list(v)} must have the same shape")
    _decode_common(op, g, q, k)
    pt = _paged(op, g, q, k)
    if pt[0] != q[1]:
        raise ShapeError(f"{op.name}: page table users {pt[0]} must match query users {q[1]}")
    causal = bool(op.attrs.get("is_causal", True))
    if not causal and tensor_or_none(g, "attention_mask") is None:
        raise ShapeError(f"{op.name}: an attention mask is required when is_causal is false")
    if causal and tensor_or_none(g, "attention_mask") is not None:
        raise ShapeError(f"{op.name}: attention mask is not allowed when is_causal is true")
    return [q]


@register("ttnn.chunked_scaled_dot_product_attention", "attention", ("scale", "program_config"),
          f"{_SRC} ChunkedScaledDotProductAttentionOp::verify")
def chunked_sdpa(op: Op):
    """``[B, NQH, S, D]`` query chunk over a paged cache -> the query's shape."""
    g = operand_groups(op, CHUNKED_OPERANDS)
    q, k = shape_of(op, tensor_or_none(g, "query"), "query"), shape_of(op, tensor_or_none(g, "key"), "key")
    v = shape_of(op, tensor_or_none(g, "value"), "value")
    _rank4(op, q, "query")
    _rank4(op, k, "key")
    if k != v:
        raise ShapeError(f"{op.name}: key {list(k)} and value {list(v)} must have the same shape")
    if q[3] != k[3]:
        raise ShapeError(f"{op.name}: query head size {q[3]} must match key/value head size {k[3]}")
    _heads_divide(op, q[1], k[1])
    pt = _paged(op, g, q, k)
    if pt[0] != q[0]:
        raise ShapeError(f"{op.name}: page table users {pt[0]} must match query users {q[0]}")
    c = shape_of(op, tensor_or_none(g, "chunk_start_idx"), "chunk_start_idx")
    if c != (1,):
        raise ShapeError(f"{op.name}: chunk start index must have shape [1], got {list(c)}")
    return [q]


@register("ttnn.flash_mla_prefill", "attention", ("head_dim_v", "is_causal", "scale",
                                                  "operandSegmentSizes"), f"{_SRC} FlashMlaPrefillOp::verify")
def flash_mla_prefill(op: Op):
    """``[B, NQH, S, Dqk]`` query, ``[B, NKV, S, Dqk]`` key -> ``[B, NQH, S, head_dim_v]``."""
    g = operand_groups(op, MLA_PREFILL_OPERANDS)
    q, k = shape_of(op, tensor_or_none(g, "query"), "query"), shape_of(op, tensor_or_none(g, "key"), "key")
    _rank4(op, q, "query")
    _rank4(op, k, "key")
    dv = int_attr(op, "head_dim_v")
    if k[0] != q[0] or k[3] != q[3] or k[2] != q[2]:
        raise ShapeError(f"{op.name}: key {list(k)} must match query {list(q)} in batch, sequence and head size")
    _heads_divide(op, q[1], k[1])
    value = tensor_or_none(g, "value")
    if value is not None:
        v = shape_of(op, value, "value")
        if v != (q[0], k[1], q[2], dv):
            raise ShapeError(f"{op.name}: value must be {[q[0], k[1], q[2], dv]}, got {list(v)}")
    elif dv > q[3]:
        raise ShapeError(f"{op.name}: head_dim_v {dv} cannot exceed the key's head dim {q[3]} without a value")
    if dv <= 0:
        raise ShapeError(f"{op.name}: head_dim_v must be greater than 0")
    _mask(op, g, q[0], q[1], q[2], q[2], decode=False)
    return [(q[0], q[1], q[2], dv)]


@register("ttnn.paged_flash_multi_latent_attention_decode", "attention",
          ("head_dim_v", "is_causal", "scale", "program_config", "operandSegmentSizes"),
          f"{_SRC} PagedFlashMultiLatentAttentionDecodeOp::verify")
def paged_flash_mla_decode(op: Op):
    """``[1, B, NQH, Dqk]`` query over a paged single-head latent cache -> ``[1, B, NQH, head_dim_v]``."""
    g = operand_groups(op, MLA_DECODE_OPERANDS)
    q, k = shape_of(op, tensor_or_none(g, "query"), "query"), shape_of(op, tensor_or_none(g, "key"), "key")
    _rank4(op, q, "query")
    _rank4(op, k, "key")
    if k[1] != 1:
        raise ShapeError(f"{op.name}: key num KV heads must be 1, got {k[1]}")
    pt = shape_of(op, tensor_or_none(g, "page_table"), "page_table")
    if len(pt) != 2:
        raise ShapeError(f"{op.name}: page table must be 2D, got rank {len(pt)}")
    dv = int_attr(op, "head_dim_v")
    if dv <= 0:
        raise ShapeError(f"{op.name}: head_dim_v must be greater than 0")
    return [(q[0], q[1], q[2], dv)]


@register("ttnn.sdpa_fw", "attention", ("mask_type", "dropout_probability", "return_intermediates"),
          f"{_SRC} SDPAForwardOp::verify")
def sdpa_fw(op: Op):
    """Training forward: ``[B, H, S, D]`` query, key, value -> the attention output (the query's
    shape); the optional intermediates (``return_intermediates``) are taken as declared."""
    g = operand_groups(op, ("query", "key", "value", "attention_mask?"))
    q, k, v = (shape_of(op, tensor_or_none(g, n), n) for n in ("query", "key", "value"))
    for s, n in ((q, "query"), (k, "key"), (v, "value")):
        _rank4(op, s, n)
    arbitrary = "arbitrary" in str(op.raw_attrs.get("mask_type", "causal")).lower()
    if arbitrary != (tensor_or_none(g, "attention_mask") is not None):
        raise ShapeError(f"{op.name}: an attention mask is given iff mask_type is 'arbitrary'")
    if bool(op.attrs.get("return_intermediates", False)) != (len(op.results) == 2):
        raise ShapeError(f"{op.name}: the intermediates result must be present iff return_intermediates is true")
    return None if len(op.results) == 2 else [q]


@register("ttnn.sdpa_bw", "attention", ("mask_type", "dropout_probability"), f"{_SRC} SDPABackwardOp::verify")
def sdpa_bw(op: Op):
    """Training backward: the gradients of query, key and value, shaped like them."""
    g = operand_groups(op, ("grad_output", "attn_output", "query", "key", "value", "intermediates",
                            "attention_mask?"))
    q, k, v = (shape_of(op, tensor_or_none(g, n), n) for n in ("query", "key", "value"))
    for s, n in ((q, "query"), (k, "key"), (v, "value")):
        _rank4(op, s, n)
    arbitrary = "arbitrary" in str(op.raw_attrs.get("mask_type", "arbitrary")).lower()  # the ODS default
    if arbitrary != (tensor_or_none(g, "attention_mask") is not None):
        raise ShapeError(f"{op.name}: an attention mask is given iff mask_type is 'arbitrary'")
    return [q, k, v]


@register("ttnn.indexer_score_dsa", "attention", ("chunk_start_idx", "cluster_axis"), f"{_SRC} IndexerScoreDsaOp::verify")
def indexer_score_dsa(op: Op):
    """``[1, Hi, Sq, D]`` query, ``[1, 1, T, D]`` key, ``[1, Hi, Sq, 1]`` weights -> ``[1, 1, Sq, T]``."""
    if len(op.operands) < 3:
        raise ShapeError(f"{op.name} expects query, key and weights")
    q, k, w = (shape_of(op, op.operands[i], n) for i, n in enumerate(("query", "key", "weights")))
    for s, n in ((q, "query"), (k, "key"), (w, "weights")):
        _rank4(op, s, n)
    if q[0] != 1 or k[0] != 1 or k[1] != 1 or k[3] != q[3]:
        raise ShapeError(f"{op.name}: query must be [1, Hi, Sq, D] and key [1, 1, T, D], got {list(q)}, {list(k)}")
    if w != (1, q[1], q[2], 1):
        raise ShapeError(f"{op.name}: weights must be {[1, q[1], q[2], 1]}, got {list(w)}")
    return [(1, 1, q[2], k[2])]


@register_spec(("ttnn.scaled_dot_product_attention", "ttnn.scaled_dot_product_attention_decode",
                "ttnn.paged_scaled_dot_product_attention_decode", "ttnn.chunked_scaled_dot_product_attention",
                "ttnn.flash_mla_prefill", "ttnn.paged_flash_multi_latent_attention_decode"))
def attention_spec(ctx: CBContext) -> list[TensorSpec]:
    """TILE, the query's dtype, the declared memory config, the query's shape (last dim
    ``head_dim_v`` for MLA) (module docstring).

    Raises:
        CBModelError: the query or the result is not a device tensor with a TTNN layout.
    """
    q = tensor_of(ctx.op.operands[0], ctx.arch, f"query of {ctx.op.name}")
    out = result(ctx)
    shape = q.shape
    if "head_dim_v" in ctx.op.attrs:
        shape = (*shape[:-1], int(ctx.op.attrs["head_dim_v"]))
    if len(shape) != 4:
        raise CBModelError(f"{ctx.op.name}: a query of rank {len(shape)}")
    return [q.with_(shape=shape, layout="tile", mem=out.mem).spec()]


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------

_SDPA_SRC = ("tt-metal ttnn/cpp/ttnn/operations/transformer/sdpa/device/sdpa_program_factory.cpp (stored source "
             "000e7c05; ttnn 0.81.1's sizing measured: measurements/dialect/results.jsonl)")
_BF16_TILE = 2048  # Float16_b: the factory's intermediate, statistics and scalar format


def _sdpa_q_double_buffered(b: int, nqh: int, q_chunks: int, cores: int, zigzag: bool) -> bool:
    """Whether the factory gives the Q CB two chunks: when a core runs more than one (batch, head, Q chunk)
    unit.  Batch, heads and Q chunks are parallelized in that order (``batch_parallel_factor = min(B, cores)``,
    ``nh_parallel_factor = min(cores / bpf, NQH)``, ``q_parallel_factor = min(cores / (bpf * nhpf), q_chunks)``,
    each per-core count a ceiling division); zigzag-balanced causal attention pairs Q chunks, so a core always
    holds two.  ttnn 0.81.1 counts every unit (the stored source only ``q_per_core``): the measured
    ``4x32x32x128`` causal case (2 heads per core, 1 Q chunk) double-buffers."""
    if zigzag:
        return True
    bpf = min(b, cores)
    nhpf = min(cores // bpf, nqh)
    qpf = min(cores // (bpf * nhpf), q_chunks)
    per_core = -(-b // bpf) * -(-nqh // nhpf) * -(-q_chunks // qpf)
    return per_core > 1


def _sdpa_prefill_program(ctx: CBContext, q, k, v, *, causal: bool, window: bool, head_dim_v: int,
                          chunked_pages: int | None, mask=None, own_v: bool = True) -> ProgramModel:
    """The CBs of ``SDPAOperation::SDPAProgramFactory`` with tt-mlir's defaults (no program config: 32-row Q
    and K chunks, ``Sq_chunk_t = Sk_chunk_t = 1``; the default compute config), on the whole compute grid.

    With ``DHt = padded head dim / 32``, ``vDHt = head_dim_v / 32``, tile sizes of each tensor's dtype and
    Float16_b (2,048 B) for intermediates, in creation order:

    * c_0 Q: ``DHt`` tiles, twice when a core runs more than one unit (:func:`_sdpa_q_double_buffered`);
    * c_1 K: ``2 * DHt`` tiles; c_2 V: ``2 * vDHt`` tiles (the K tensor's format for MLA without V);
    * causal, unwindowed, zigzag-balanced (an even number of Q chunks): a 96-B CB;
    * the mask: 2 tiles of a provided mask's dtype, else 5 Float16_b tiles with a sliding window (causal or
      not), 2 when causal or when a non-causal sequence is not a multiple of 32 (the padding mask), none
      otherwise;
    * c_5 identity scale and c_7 column identity (1 tile each); chunked: c_6 the page-table row
      (``blocks per user * 4`` B, which must be a multiple of 32), c_8 and c_9 the chunk start (32 B each);
    * two 1-tile intermediates, c_25 and c_26 (``vDHt`` tiles each), five 1-tile statistics (c_27-c_31);
    * c_16 out: ``2 * vDHt`` tiles of the output (query) dtype.

    Measured on the mock P150 (ttnn 0.81.1) over random shapes, GQA ratios, bf16/bfp8, causal, sliding
    windows, chunked and MLA prefill: tests/test_ops_dialect_measured.py.

    Raises:
        CBModelError: a provided mask with a sliding window (not measured).
        DeviceRejection: Q, K or V not bf16/bfp8/bfp4, or a chunked page-table row that is not a multiple of
            32 B (the TT_FATALs of ttnn 0.81.1).
    """
    gx, gy = ctx.grid
    cores = cores_set(core_range(0, 0, gx - 1, gy - 1))
    b, nqh, sq, _ = q.shape
    sk = k.shape[2]
    dht = q.padded[-1] // TILE
    vdht = -(-head_dim_v // TILE)
    q_chunks = -(-sq // TILE)
    for t, what in ((q, "query"), (k, "key"), (v, "value")):
        if str(t.dtype) not in ("bf16", "bfp_bf8", "bfp_bf4"):
            raise DeviceRejection(f"{ctx.op.name}: Data type of input tensor must be BFLOAT16, BFLOAT8_B or BFLOAT4_B, "
                                  f"the {what} is {t.dtype} (sdpa_device_operation.cpp TT_FATAL)")
    padded_mask = not causal and (sq % TILE != 0 or sk % TILE != 0)
    zigzag = causal and q_chunks % 2 == 0
    double = _sdpa_q_double_buffered(b, nqh, q_chunks, gx * gy, zigzag)
    cbs = [CB(0, "q_in", q.tile_bytes, dht * (2 if double else 1), cores),
           CB(1, "k_in", k.tile_bytes, 2 * dht, cores),
           CB(2, "v_in", v.tile_bytes, 2 * vdht, cores)]
    if causal and not window and zigzag and chunked_pages is None:
        cbs.append(CB(-1, "zigzag (96 B, measured)", 96, 1, cores))
    if mask is not None:
        if window:
            raise CBModelError(f"{ctx.op.name}: a provided mask with a sliding window is not measured")
        cbs.append(CB(3, "mask", mask.tile_bytes, 2, cores))
    elif window:
        cbs.append(CB(3, "mask (sliding window)", _BF16_TILE, 5, cores))
    elif causal or padded_mask:
        cbs.append(CB(3, "mask", _BF16_TILE, 2, cores))
    cbs += [CB(5, "identity_scale", _BF16_TILE, 1, cores), CB(7, "col_identity", _BF16_TILE, 1, cores)]
    if chunked_pages is not None:
        stick = chunked_pages * 4
        if stick % 32:
            raise DeviceRejection(f"{ctx.op.name}: page table stick size must be a multiple of 32 "
                                  f"({chunked_pages} blocks per user = {stick} B; sdpa_program_factory.cpp TT_FATAL)")
        cbs += [CB(6, "page_table", stick, 1, cores), CB(8, "chunk_start_idx", 32, 1, cores),
                CB(9, "chunk_start_idx (writer)", 32, 1, cores)]
    cbs += [CB(4, "scratch", _BF16_TILE, 1, cores), CB(24, "qk_im", _BF16_TILE, 1, cores),
            CB(25, "out_im", _BF16_TILE, vdht, cores), CB(26, "out_accumulate_im", _BF16_TILE, vdht, cores)]
    cbs += [CB(i, n, _BF16_TILE, 1, cores) for i, n in ((27, "cur_max"), (28, "prev_max"), (29, "cur_sum"),
                                                         (30, "prev_sum"), (31, "exp_max_diff"))]
    cbs.append(CB(16, "out", q.tile_bytes, 2 * vdht, cores))
    notes = [f"{q_chunks} Q chunks of 32 rows; Q {'double' if double else 'single'}-buffered"
             + ("; zigzag-balanced" if zigzag else "")]
    ins = (q, k) + ((v,) if own_v else ()) + ((mask,) if mask is not None else ())  # own_v: a V operand (not MLA)
    return ProgramModel("SDPAOperation::SDPAProgramFactory", _SDPA_SRC, cores, cbs, notes, inputs=ins,
                        outputs=(result(ctx),), params={"q_chunk_size": 32, "k_chunk_size": 32, "is_causal": causal})


def _attr_true(op: Op, name: str, default: bool) -> bool:
    value = op.attrs.get(name, default)
    return bool(value) if isinstance(value, bool) else default


@register_cb(("ttnn.scaled_dot_product_attention", "ttnn.flash_mla_prefill", "ttnn.chunked_scaled_dot_product_attention"))
def sdpa_program(ctx: CBContext) -> ProgramModel:
    """The prefill SDPA program (:func:`_sdpa_prefill_program`) of ``scaled_dot_product_attention``,
    ``flash_mla_prefill`` (V is K's first ``head_dim_v`` columns when absent) and the flexible
    ``chunked_scaled_dot_product_attention`` (always causal, page table and chunk start on device).

    A provided attention mask adds a program before SDPA: ttnn 0.81.1 runs a ``BinaryNgDeviceOperation``
    of the mask with a scalar (c_0 and c_2 two tiles of the mask's dtype, c_1 one Float16_b tile, on the
    whole grid; measured), whose result SDPA reads.

    Raises:
        CBModelError: an attention sink, or see :func:`_sdpa_prefill_program`.
    """
    op = ctx.op
    name = op.name
    spec = {"ttnn.scaled_dot_product_attention": SDPA_OPERANDS, "ttnn.flash_mla_prefill": MLA_PREFILL_OPERANDS,
            "ttnn.chunked_scaled_dot_product_attention": CHUNKED_OPERANDS}[name]
    g = operand_groups(op, spec)
    if "attention_sink" in g and tensor_or_none(g, "attention_sink") is not None:
        raise CBModelError(f"{name}: an attention sink (ttnn 0.81.1's program for it is not measured)")
    mask_value = tensor_or_none(g, "attention_mask") if "attention_mask" in g else None
    q = _view(ctx, tensor_or_none(g, "query"), f"query of {name}")
    k = _view(ctx, tensor_or_none(g, "key"), f"key of {name}")
    value = tensor_or_none(g, "value")
    v = _view(ctx, value, f"value of {name}") if value is not None else k
    if len(q.shape) != 4 or len(k.shape) != 4:
        raise CBModelError(f"{name}: query and key must be 4D")
    pages = None
    if name == "ttnn.chunked_scaled_dot_product_attention":
        pt = _view(ctx, tensor_or_none(g, "page_table"), f"page table of {name}")
        pages = pt.padded[-1]
        causal, window = True, False
    else:
        causal = _attr_true(op, "is_causal", True)
        window = bool(op.attrs.get("sliding_window_size"))
    head_dim_v = int(op.attrs["head_dim_v"]) if "head_dim_v" in op.attrs else q.shape[3]
    if mask_value is None:
        return _sdpa_prefill_program(ctx, q, k, v, causal=causal, window=window, head_dim_v=head_dim_v,
                                     chunked_pages=pages, own_v=value is not None)
    mask = _view(ctx, mask_value, f"attention mask of {name}")
    sdpa = _sdpa_prefill_program(ctx, q, k, v, causal=causal, window=window, head_dim_v=head_dim_v,
                                 chunked_pages=pages, mask=mask, own_v=value is not None)
    grid = sdpa.cores
    prep = ProgramModel("BinaryNgDeviceOperation::ProgramFactory", _SDPA_SRC + "; the mask's binary op measured", grid,
                        [CB(0, "mask", mask.tile_bytes, 2, grid), CB(1, "scalar", _BF16_TILE, 1, grid),
                         CB(2, "out", mask.tile_bytes, 2, grid)],
                        ["the provided mask's binary op (before SDPA); which binary op is not known: costed as an add "
                         "with a scalar"], inputs=(mask,), outputs=(mask,), params={"binary_op": "add", "scalar": True})
    return [prep, sdpa]


register_check(("ttnn.scaled_dot_product_attention", "ttnn.flash_mla_prefill",
                "ttnn.chunked_scaled_dot_product_attention"), "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl", ("SDPAOperation",))


_DECODE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/transformer/sdpa_decode/device/sdpa_decode_program_factory.cpp "
               "(stored source 007f92d0; ttnn 0.81.1 measured: measurements/dialect/results.jsonl)")
_MAX_TREE_REDUCTION_ROUNDS = 6  # sdpa_decode_program_factory.cpp TT_FATAL ("Tree reduction max 6 round", measured)


def _largest_pow2_divisor(n: int) -> int:
    return n & -n if n > 0 else 1


# tt-mlir's runtime ignores the IR's program config of the paged MLA decode and always passes
# SDPAProgramConfig{device grid, q_chunk_size 0, k_chunk_size 32} (max_cores_per_head_batch keeps its default
# 16: sdpa_config.hpp): runtime/lib/ttnn/operations/transformer/paged_flash_multi_latent_attention_decode.cpp
# @19c86fca (measured: the op-level campaign's paged_flash_multi_latent_attention_decode instances)
MLA_DECODE_RUNTIME_CONFIG = {"k_chunk_size": 32, "max_cores_per_head_batch": 16}


def _decode_config(op: Op):
    """The op's ``#ttnn.sdpa_program_config`` (a :class:`~ttanalyze.ir.attrs.StructAttr`), or None."""
    pc = op.attrs.get("program_config")
    return pc if pc is not None and hasattr(pc, "get") else None


def _half_tile_bytes(t, what: str, op: Op) -> int:
    """``Tile({16, 32}).get_tile_size`` of a Float16_b/Float32 tensor (half a 32x32 tile)."""
    if t.dtype.tile_bytes() not in (2048, 4096):
        raise CBModelError(f"{op.name}: a half-tile {what} in {t.dtype} is not modeled")
    return t.dtype.tile_bytes() // 2


def _sdpa_decode_program(ctx: CBContext, q, k, v, *, page_table, cur_pos, mask, head_dim_v: int | None,
                         causal: bool, window: bool, own_v: bool = True) -> ProgramModel:
    """``SdpaDecodeProgramFactory``: flash-decode, each (batch, KV head) split over ``cores_per_head`` cores
    that tree-reduce their partial results.

    With ``B = q.padded[1]``, ``PNHt = ceil(num_q_heads / 32)``, ``DHt``/``vDHt`` the K/V head dims in tiles,
    ``S`` the cache length (paged: ``blocks per user * block size``) and ``Sk_chunk_t`` the K chunk in tiles
    (the program config's ``k_chunk_size``; without one 32 for paged decode and ``min(512, largest power of
    two dividing S)`` otherwise; 0 means dynamic: 8-tile CBs):

    * cores: ``cores_per_batch = min(grid cores, max_cores_per_head * B * KVH) / B`` (``max_cores_per_head``
      the config's ``max_cores_per_head_batch``, 16 when a config omits it, all cores without one),
      ``cores_per_head = max(1, cores_per_batch / KVH)``; ttnn 0.81.1 without a config gives paged decode one
      core per head (no partial-results CB: measured); TT_FATAL when ``B`` exceeds the grid or the tree
      needs more than 6 rounds (``ceil(log2(cores_per_head))``);
    * every CB is on the whole (config) grid; Q, mask, scalar, intermediate and statistics CBs use 16x32
      half tiles when causal with at most 16 Q heads and a bf16 Q;
    * c_0 and c_10 Q ``PNHt * DHt`` tiles, c_1 K ``2 * Sk_chunk_t * DHt``, c_2 V ``2 * Sk_chunk_t * vDHt``,
      c_3 mask ``PNHt * Sk_chunk_t`` (Float16_b unless a mask is given), c_5/c_12 one scalar tile, c_11 one
      full Float16_b tile, c_6/c_7/c_27-c_31/c_21/c_22/c_17/c_18 ``PNHt`` statistics tiles, c_24
      ``PNHt * Sk_chunk_t``, c_25/c_26/c_23/c_16 ``PNHt * vDHt`` Float16_b tiles, c_19 the tree's partial
      results ``(PNHt * vDHt + 2 * PNHt) * (cores_per_head - 1)`` tiles, c_20 the output ``PNHt * vDHt``
      tiles of its dtype; a position tensor adds c_8 (its aligned row: ``4 * B`` B rounded to the buffer
      alignment), then ttnn 0.81.1 creates a second CB of that size (measured), and paging c_9, one page-table
      row (aligned likewise).

    Raises:
        CBModelError: sub-core grids, a sharded Q with MLA, an attention sink or a half-tile block-float mask.
        DeviceRejection: the factory's core checks.
    """
    op = ctx.op
    pc = _decode_config(op)
    if op.name == "ttnn.paged_flash_multi_latent_attention_decode":
        pc = MLA_DECODE_RUNTIME_CONFIG
    if pc is not None and pc.get("sub_core_grids") is not None:
        raise CBModelError(f"{op.name}: sub_core_grids in the program config (not modeled)")
    if q.sharded and head_dim_v is not None:
        raise CBModelError(f"{op.name}: a sharded Q with MLA (Q-head parallelization, not modeled)")
    gx, gy = ctx.grid
    grid = pc.get("compute_with_storage_grid_size") if pc is not None else None
    if grid is not None:
        gx, gy = int(grid.x), int(grid.y)
    cores = cores_set(core_range(0, 0, gx - 1, gy - 1))
    available = gx * gy
    b = q.padded[1]
    nqh = q.shape[2]
    pnht = -(-nqh // TILE)
    bkv, nkv, s, dh = k.padded
    if page_table is not None:
        s = page_table.padded[-1] * k.padded[2]
    dht = dh // TILE
    vdht = (head_dim_v if head_dim_v is not None else v.padded[3]) // TILE
    if pc is not None:
        k_chunk = int(pc.get("k_chunk_size", 0) or 0)
    else:
        k_chunk = 32 if page_table is not None else min(512, _largest_pow2_divisor(s))
    skc = k_chunk // TILE if k_chunk else 8
    if available < b:
        raise DeviceRejection(f"{op.name}: cores available ({available}) must be >= batch size ({b})")
    if pc is not None:
        max_per_head = int(pc.get("max_cores_per_head_batch") or 16)
    else:  # ttnn 0.81.1 without a config: all cores unpaged, one core per head paged (measured)
        max_per_head = available if page_table is None else 1
    per_batch = min(available, max_per_head * b * nkv) // b
    per_head = max(1, per_batch // nkv)
    rounds = (per_head - 1).bit_length() if per_head > 1 else 0
    if rounds > _MAX_TREE_REDUCTION_ROUNDS:
        raise DeviceRejection(f"{op.name}: Tree reduction max {_MAX_TREE_REDUCTION_ROUNDS} rounds, got "
                              f"{per_head} cores/head (sdpa_decode_program_factory.cpp TT_FATAL)")
    half = causal and nqh <= 16 and q.dtype.tile_bytes() == 2048 and str(q.dtype) == "bf16"
    small = 1024 if half else _BF16_TILE  # Float16_b scalar / intermediate / statistics tiles
    q_tile = 1024 if half else q.tile_bytes
    if mask is not None:
        mask_tile = _half_tile_bytes(mask, "mask", op) if half else mask.tile_bytes
    else:
        mask_tile = small
    q_tiles, out_tiles = pnht * dht, pnht * vdht
    cbs = [CB(0, "q_in", q_tile, q_tiles, cores), CB(1, "k_in", k.tile_bytes, 2 * skc * dht, cores),
           CB(2, "v_in", v.tile_bytes, 2 * skc * vdht, cores), CB(3, "attn_mask", mask_tile, pnht * skc, cores),
           CB(5, "scale", small, 1, cores), CB(6, "m_in", small, pnht, cores), CB(7, "l_in", small, pnht, cores)]
    if cur_pos is not None:
        stick = -(-cur_pos.padded[-1] * 4 // cur_pos.alignment) * cur_pos.alignment
        cbs.append(CB(8, "cur_pos", stick, 1, cores))
        cbs.append(CB(-1, "cur_pos (second, measured on ttnn 0.81.1)", stick, 1, cores))
    if page_table is not None:
        stick = -(-page_table.padded[-1] * 4 // page_table.alignment) * page_table.alignment
        cbs.append(CB(9, "page_table", stick, 1, cores))
    cbs += [CB(10, "q_tilized", q_tile, q_tiles, cores), CB(11, "col_identity", _BF16_TILE, 1, cores),
            CB(12, "scalar", small, 1, cores)]
    if window:
        cbs.append(CB(13, "sliding_window_mask", mask_tile, pnht * skc, cores))
    cbs += [CB(24, "qk_im", small, pnht * skc, cores), CB(25, "out_im", small, out_tiles, cores),
            CB(26, "out_accumulate_im", small, out_tiles, cores)]
    cbs += [CB(i, "statistics", small, pnht, cores) for i in (27, 28, 29, 30, 31, 21, 22)]
    cbs += [CB(23, "out_im2", small, out_tiles, cores), CB(16, "out_o", small, out_tiles, cores),
            CB(17, "out_m", small, pnht, cores), CB(18, "out_l", small, pnht, cores)]
    partial = (out_tiles + 2 * pnht) * (per_head - 1)
    if partial:
        cbs.append(CB(19, "intermed_out", small, partial, cores))
    out = result(ctx)
    cbs.append(CB(20, "out_final", out.tile_bytes, out_tiles, cores, out.sharded))
    notes = [f"{per_head} cores per head, K chunk {k_chunk or 'dynamic'}" + ("; half tiles" if half else "")]
    ins = (q, k) + ((v,) if own_v else ())  # own_v: a V operand (not MLA)
    return ProgramModel("SdpaDecodeDeviceOperation::SdpaDecodeProgramFactory", _DECODE_SRC, cores, cbs, notes,
                        inputs=ins, outputs=(out,), params={"q_chunk_size": 32, "k_chunk_size": k_chunk or 256,
                                                            "is_causal": causal})


@register_cb(("ttnn.scaled_dot_product_attention_decode", "ttnn.paged_scaled_dot_product_attention_decode",
              "ttnn.paged_flash_multi_latent_attention_decode"))
def sdpa_decode_program(ctx: CBContext) -> ProgramModel:
    """The decode attention program (:func:`_sdpa_decode_program`) of the plain, paged and paged-MLA decode ops.

    Raises:
        CBModelError: an attention sink, or see :func:`_sdpa_decode_program`.
    """
    op = ctx.op
    spec = {"ttnn.scaled_dot_product_attention_decode": DECODE_OPERANDS,
            "ttnn.paged_scaled_dot_product_attention_decode": PAGED_DECODE_OPERANDS,
            "ttnn.paged_flash_multi_latent_attention_decode": MLA_DECODE_OPERANDS}[op.name]
    g = operand_groups(op, spec)
    if tensor_or_none(g, "attention_sink") is not None:
        raise CBModelError(f"{op.name}: an attention sink (not modeled)")

    def view(name):
        value = tensor_or_none(g, name) if name in g else None
        return _view(ctx, value, f"{name} of {op.name}") if value is not None else None

    q, k, own_v = view("query"), view("key"), view("value")
    v = own_v or k
    head_dim_v = int(op.attrs["head_dim_v"]) if "head_dim_v" in op.attrs else None
    return _sdpa_decode_program(ctx, q, k, v, page_table=view("page_table"), cur_pos=view("cur_pos_tensor"),
                                mask=view("attention_mask"), head_dim_v=head_dim_v, own_v=own_v is not None,
                                causal=_attr_true(op, "is_causal", True),
                                window=bool(op.attrs.get("sliding_window_size")))


register_check("ttnn.scaled_dot_product_attention_decode", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("SdpaDecodeDeviceOperation",))
register_check("ttnn.paged_scaled_dot_product_attention_decode", "mock",
               "tests/test_ops_dialect_measured.py against measurements/dialect/results.jsonl",
               ("SdpaDecodeDeviceOperation",))
register_check("ttnn.paged_flash_multi_latent_attention_decode", "mock",
               "tests/test_cb_gens.py against measurements/opdiff/runs/gens.jsonl.gz (the op-level campaign)",
               ("FlashMLADecodeDeviceOperation",))
