"""Per-device-op latency model: what a device op costs and what bounds it.

For one device op (:class:`~ttanalyze.cost.device_op.DeviceOp`) on a device
(:class:`~ttanalyze.cost.hardware.Hardware`) the model predicts tt-metal's
``DEVICE KERNEL DURATION`` (first kernel start to last kernel end over the op's
cores) as::

    ns = launch + max(dram, core)

* ``launch`` (ns, per arch, fitted): program launch and the spread of kernel
  start times over the cores, which the kernel duration includes.
* ``dram``: the op's DRAM traffic over the achieved DRAM bandwidth.  Reads and
  writes travel on different NoCs but share the DRAM, so
  ``dram = max(R / (e_read * peak), W / (e_write * peak), (R + W) / (e_mixed * peak))``
  with each tensor's bytes inflated by ``(s + s0) / s`` for its transaction
  size ``s`` (tiles, or row-major sticks): small transactions waste DRAM
  bursts (``dram_txn_bytes`` = s0).
* ``core``: the busiest core's time, in cycles at the AI clock.  Most kernels
  stream units (tiles, sticks, K-blocks) through a reader, a compute and a
  writer kernel that run concurrently on their own RISC-V cores with
  double-buffered circular buffers, so ``n`` units with per-unit stage times
  ``r, c, w`` take ``r + c + w + (n - 1) * max(r, c, w)`` cycles (the first unit
  fills the pipeline), plus per-op work outside the pipeline.

Data movement per core (hardware constants, :mod:`~ttanalyze.cost.hardware`):
moving ``p`` pages of ``b`` bytes over the NoC costs ``p * max(t_txn, b / B_core)``
cycles (issue-bound below the bandwidth knee, bandwidth-bound above, tt-metal's
``common_tm_bw_model`` tables); a kernel that waits for each page (a barrier
per tile, the common interleaved reader) adds the DRAM or L1 read latency per
page.  L1-sharded operands a core owns cost no NoC traffic.

Compute per core: a tile product of the matrix engine takes
``mm_cycles_per_pass * passes`` cycles (ideal 16 x passes, tt-metal's matrix
engine report), eltwise tiles ``eltwise_tile`` cycles plus the SFPU cost of each
fused unary op, layout conversions ``tilize_tile`` / ``untilize_tile``.

Every constant named in a formula below lives in ``constants.json`` (fitted,
:mod:`ttanalyze.cost.constants`) or :mod:`~ttanalyze.cost.hardware` (cited).
Units: cycles unless stated; ``ns`` for launch; fractions for efficiencies.

Op codes the model does not know raise :class:`UnknownDeviceOp`, and known ops
in a form it cannot cost :class:`UnmodeledDeviceOp`.  Where an op leaves out a
detail the model needs (an unknown dtype's size, a unary op in none of the SFPU
lists, no math fidelity, no transpose or reduce dim, a binary op other than
add / subtract / multiply), the model uses a stated default and records it in
``Estimate.notes``: it never guesses silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import ceil, isqrt, prod

from .constants import Constants, load
from .device_op import DEFAULT_ELEMENT_BYTES, ELEMENT_BYTES, MAX_CORES, TILE, DeviceOp, Estimate, TensorInfo
from .hardware import FIDELITY_PASSES, Hardware


class UnknownDeviceOp(ValueError):
    """The model has no formula for this device op code (reported as unknown, never guessed)."""

    def __init__(self, op_code: str):
        super().__init__(f"no cost model for device op '{op_code}'")
        self.op_code = op_code


class UnmodeledDeviceOp(ValueError):
    """A known op code in a form the model cannot cost (e.g. a matmul without two operands)."""


# Device op codes (the profiler's OP CODE; older and newer tt-metal names) -> model kind.
OP_KINDS: dict[str, str] = {
    # eltwise (compute streams tiles)
    "UnaryDeviceOperation": "unary", "UnaryShardedDeviceOperation": "unary",
    "BinaryDeviceOperation": "binary", "BinaryNgDeviceOperation": "binary",
    "TernaryDeviceOperation": "binary", "WhereDeviceOperation": "binary",
    "RotaryEmbeddingDeviceOperation": "binary", "RotaryEmbeddingLlamaDeviceOperation": "binary",
    "TypecastDeviceOperation": "typecast", "CopyDeviceOperation": "copy",
    # layout conversion
    "TilizeDeviceOperation": "tilize", "TilizeWithValPaddingDeviceOperation": "tilize",
    "UntilizeDeviceOperation": "untilize", "UntilizeWithUnpaddingDeviceOperation": "untilize",
    "Tilize": "tilize", "TilizeWithValPadding": "tilize", "Untilize": "untilize",  # before the 2025-10 rename
    "UntilizeWithUnpadding": "untilize",
    # data movement
    "TransposeDeviceOperation": "transpose", "PermuteDeviceOperation": "permute", "Transpose": "transpose",
    "ShardedToInterleavedPartialDeviceOperation": "s2i", "InterleavedToShardedPartialDeviceOperation": "i2s",
    "ReshapeDeviceOperation": "reshape", "ReshapeViewDeviceOperation": "reshape",
    "ConcatDeviceOperation": "concat", "SliceDeviceOperation": "slice",
    "PaddedSliceDeviceOperation": "padded_slice", "SliceWriteDeviceOperation": "slice_write",
    "InterleavedToShardedDeviceOperation": "i2s", "ShardedToInterleavedDeviceOperation": "s2i",
    "ReshardDeviceOperation": "reshard", "MoveDeviceOperation": "move",
    "UpsampleOperation": "upsample", "UpsampleDeviceOperation": "upsample",
    "EmbeddingsDeviceOperation": "embedding", "EmbeddingDeviceOperation": "embedding",
    "Embeddings": "embedding",  # before the 2025 rename
    "PadDeviceOperation": "pad", "Pad": "pad", "RepeatDeviceOperation": "repeat",
    "NlpCreateHeadsDeviceOperation": "concat", "NLPCreateHeadsDeviceOperation": "concat",
    "NlpConcatHeadsDeviceOperation": "concat", "NLPConcatHeadsDeviceOperation": "concat",
    "NlpCreateHeadsDecodeDeviceOperation": "concat", "NlpConcatHeadsDecodeDeviceOperation": "concat",
    "NlpCreateHeadsSegformerDeviceOperation": "concat",
    # matmul
    "Matmul": "matmul", "MatmulDeviceOperation": "matmul", "SparseMatmulDeviceOperation": "matmul",
    "MinimalMatmulOp": "matmul", "MinimalMatmulDeviceOperation": "matmul",
    # conv and pooling
    "Conv2dDeviceOperation": "conv", "OptimizedConvNew": "conv",
    "HaloDeviceOperation": "halo", "UntilizeWithHaloV2": "halo",
    "Pool2D": "pool", "Pool2DDeviceOperation": "pool",
    # reductions and normalization
    "LayerNormDeviceOperation": "norm", "SoftmaxDeviceOperation": "softmax",
    "LayerNorm": "norm", "Softmax": "softmax",  # before the 2025 rename
    "ReduceDeviceOperation": "reduce", "Reduce": "reduce",
    "GroupNormDeviceOperation": "group_norm", "GroupNorm": "group_norm",
    "FastReduceNCDeviceOperation": "reduce_nc",
    # scans: cumsum / cumprod (AccumulationDeviceOperation), the integral image
    "AccumulationDeviceOperation": "scan", "IntImgDeviceOperation": "scan",
    # sampling
    "GridSampleOperation": "grid_sample", "GridSample": "grid_sample", "GridSampleDeviceOperation": "grid_sample",
    # attention
    "ScaledDotProductAttention": "sdpa", "SDPAOperation": "sdpa", "SDPADeviceOperation": "sdpa",
    "ScaledDotProductAttentionDecode": "sdpa", "SdpaDecodeDeviceOperation": "sdpa",
    "SDPADecodeDeviceOperation": "sdpa", "JointSDPADeviceOperation": "sdpa", "RingJointSDPADeviceOperation": "sdpa",
    "RingDistributedSDPADeviceOperation": "sdpa", "FlashMLADecodeDeviceOperation": "sdpa",
    # KV-cache updates: copies of the new tokens' tiles into the cache
    "UpdateKVCacheOperation": "cache_update", "UpdateCacheDeviceOperation": "cache_update",
    "PagedUpdateCacheDeviceOperation": "cache_update", "PagedFillCacheDeviceOperation": "cache_update",
    "FillCacheDeviceOperation": "cache_update", "PagedFusedUpdateCacheDeviceOperation": "cache_update",
    "SplitDeviceOperation": "split",
    "BatchNormOperation": "batch_norm", "BatchNormDeviceOperation": "batch_norm",
    "RunningStatistics": "batch_norm",  # the momentum update: a few FPU ops per statistics tile, like batch_norm's
    "FillPadDeviceOperation": "fill_pad",
    "IndexerScoreDeviceOperation": "indexer_score",
    "SortDeviceOperation": "sort", "GatherDeviceOperation": "gather", "ScatterDeviceOperation": "gather",
    "SamplingDeviceOperation": "sampling",
    # collectives (CCL) over ethernet
    "AllGatherAsyncDeviceOperation": "all_gather", "AllGatherDeviceOperation": "all_gather",
    "AllGatherAsync": "all_gather", "AllGather": "all_gather",
    "ReduceScatterMinimalAsyncDeviceOperation": "reduce_scatter", "ReduceScatterAsyncDeviceOperation": "reduce_scatter",
    "ReduceScatterDeviceOperation": "reduce_scatter", "ReduceScatter": "reduce_scatter",
    "AllReduceAsyncDeviceOperation": "all_reduce", "AllReduceDeviceOperation": "all_reduce",
    "AllBroadcastDeviceOperation": "all_broadcast",
    # moreh_sum over N/C (moreh_sum_nc_impl_kernels): each input tile read and added, one output tile per C inputs
    "MorehSumNCDeviceOperation": "reduce_nc",
    # dialect-misc's device operations (mappings onto existing kinds): dropout and rand stream tiles like a
    # unary op (rand reads nothing); prod over N/C is a moreh-style NC reduction, over all dims a reduce; the
    # distributed norms' local passes are LayerNorm-like; embedding_bw is one pass over the gradient's tiles.
    "DropoutDeviceOperation": "unary", "RandDeviceOperation": "unary",
    "ProdNcDeviceOperation": "reduce_nc", "ProdAllDeviceOperation": "reduce",
    "LayerNormPreAllGatherDeviceOperation": "norm", "LayerNormPostAllGatherDeviceOperation": "norm",
    "EmbeddingBackwardDeviceOperation": "gather",
    # moe_expert_token_remap reads each token's topk row and metadata page and writes its row of the local-expert
    # mapping (data_movement/moe_expert_token_remap/device/kernels): a row-major copy of the topk tensor's pages.
    "MoeExpertTokenRemapDeviceOperation": "copy",
    # gelu_bw: per tile the gradient times the GELU derivative (experimental/unary_backward/gelu_backward kernels)
    "GeluBackwardDeviceOperation": "binary",
    # topk_router_gpt: the [32, hidden] x [hidden, 128] router matmul over the DRAM reader cores dominates; the
    # top-k and softmax of one [32, 128] tile row on the collector core are not costed
    "TopkRouterGptDeviceOperation": "matmul",
    "PointToPointDeviceOperation": "point_to_point",
    # tt-train (ttml) ops, ttanalyze/ops/tt_train.py: the training SDPA programs are flash attention (their
    # "matmuls" per (Q row, K tile) pair given); AdamW streams its state tensors' tiles through the SFPU and
    # writes param, exp_avg, exp_avg_sq (and max_exp_avg_sq) back
    "SDPAForwardDeviceOperation": "sdpa", "SDPABackwardKVDeviceOperation": "sdpa",
    "SDPABackwardQDeviceOperation": "sdpa", "AdamWDeviceOperation": "fused_update",
    # all_to_all_dispatch / combine (ccl/all_to_all_{dispatch,combine} kernels): each token row goes to (comes back
    # from) the devices holding its selected experts over the fabric; costed at the dense bound, every row to every
    # device of the axis: an all-gather of the dispatched [1, B*D, S, H] (combined [K, B, S, H]) tensor over ring_size
    "AllToAllDispatchDeviceOperation": "all_gather", "AllToAllCombineDeviceOperation": "all_gather",
    # all_to_all_dispatch_metadata (experimental/ccl/all_to_all_dispatch_metadata kernels): the same dense bound on
    # its dispatched [1, T*D, H] tensor (the all-gathered indices and scores rows are small beside it)
    "AllToAllDispatchMetadataDeviceOperation": "all_gather",
    # selective_reduce_combine (experimental/ccl/moe/selective_reduce_combine kernels): each expert's token segments
    # sent back to their source devices; the same dense bound on its [K, T/D, H] output
    "SelectiveReduceCombineDeviceOperation": "all_gather",
    # moreh_full (full/device/kernels/writer_full.cpp): writes the fill value into every page, reads nothing
    "FullDeviceOperation": "unary",
    # moe_gpt / moe_compute (experimental/ccl/moe_{gpt,compute}): the fused expert FFN, a roofline of its matmuls
    "MoEGPTDeviceOperation": "moe_experts", "MoEComputeDeviceOperation": "moe_experts",
}

FAMILY = {
    "unary": "eltwise", "binary": "eltwise", "typecast": "eltwise", "copy": "eltwise",
    "tilize": "data movement", "untilize": "data movement", "transpose": "data movement",
    "permute": "data movement", "reshape": "data movement", "concat": "data movement",
    "slice": "data movement", "padded_slice": "data movement", "slice_write": "data movement",
    "i2s": "data movement", "s2i": "data movement", "reshard": "data movement", "move": "data movement",
    "upsample": "data movement", "embedding": "data movement", "pad": "data movement",
    "repeat": "data movement", "matmul": "matmul", "conv": "conv", "halo": "conv", "pool": "pooling",
    "norm": "normalization", "softmax": "normalization", "reduce": "reduction",
    "group_norm": "normalization", "reduce_nc": "reduction", "scan": "reduction", "grid_sample": "pooling",
    "sdpa": "attention", "indexer_score": "attention", "cache_update": "data movement", "split": "data movement",
    "batch_norm": "normalization", "fill_pad": "data movement", "sort": "reduction", "sampling": "reduction", "gather": "data movement",
    "all_gather": "collective", "reduce_scatter": "collective", "all_reduce": "collective",
    "all_broadcast": "collective", "point_to_point": "collective", "fused_update": "eltwise", "moe_experts": "matmul",
}

# SFPU unary ops with a measured per-tile cost of their own (constant ``sfpu_<name>``); SFPU_HEAVY
# (transcendental: iterative or polynomial SFPU kernels) cost ``sfpu_heavy``; SFPU_LIGHT (a few SFPU
# instructions) cost nothing beyond the eltwise tile.  A name in no list costs ``sfpu_heavy`` and the
# estimate notes it.
SFPU_OWN = ("exp",)
SFPU_HEAVY = frozenset({"erf", "erfc", "erfinv", "gelu", "sigmoid", "tanh", "recip", "reciprocal", "rsqrt", "sqrt",
                        "log", "log1p", "log2", "log10", "exp2", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
                        "sinh", "cosh", "asinh", "acosh", "atanh", "silu", "swish", "softplus", "elu", "selu", "celu",
                        "mish", "logit", "power", "pow", "rpow", "i0", "lgamma", "digamma", "gelu_approx", "cbrt",
                        "hardswish", "hardsigmoid", "softsign", "tanhshrink", "logsigmoid", "div", "divide"})
SFPU_LIGHT = frozenset({"relu", "relu6", "relu_max", "relu_min", "abs", "neg", "identity", "sign", "square",
                        "fill", "zero", "mul_unary_sfpu", "add_unary_sfpu", "sub_unary_sfpu", "div_unary_sfpu",
                        "rsub", "heaviside", "gtz", "ltz", "gez", "lez", "eqz", "nez", "logical_not_unary",
                        "floor", "ceil", "trunc", "round", "typecast", "bitwise_and", "bitwise_or",
                        "bitwise_xor", "bitwise_not", "left_shift", "right_shift", "maximum", "minimum",
                        "clamp", "threshold", "leaky_relu", "prelu_sfpu", "hardtanh", "mul", "multiply", "add",
                        "sub", "subtract", "eq", "ne", "gt", "lt", "ge", "le", "where", "logical_not"})
# Binary ops the FPU runs as one tile op (``eltwise_tile``); others are costed the same and noted.
FPU_BINARY = frozenset({"add", "subtract", "multiply", "sub", "mul", "rsub", "bias_gelu"})
_FPU_MULTIPLY = frozenset({"multiply", "mul"})


def unary_name(name: str) -> str:
    """A unary op name as the SFPU lists spell it (``clamp_scalar`` -> ``clamp``, ``ttnn.exp`` -> ``exp``)."""
    n = name.rsplit(".", 1)[-1].rsplit("::", 1)[-1].lower()
    for suffix in ("_scalar", "_tensor", "_int32", "_int", "_float"):
        if n.endswith(suffix) and n != suffix:
            n = n[: -len(suffix)]
    return n


def family(op_code: str) -> str:
    """The op family of an op code (``eltwise``, ``data movement``, ``matmul``, ``conv``, ...).

    Raises:
        UnknownDeviceOp: the op code is not modeled.
    """
    kind = OP_KINDS.get(op_code)
    if kind is None:
        raise UnknownDeviceOp(op_code)
    return FAMILY[kind]


# ----------------------------------------------------------------------------- helpers


def _bpe(t: TensorInfo) -> float:
    """Bytes per element of ``t``'s dtype (:data:`DEFAULT_ELEMENT_BYTES` when unknown: :func:`work` notes it)."""
    return ELEMENT_BYTES.get(t.dtype, DEFAULT_ELEMENT_BYTES)


def tile_bytes(t: TensorInfo) -> float:
    """Bytes of one 32x32 tile of ``t``'s dtype (bfp8 1,088, bfp4 576, bf16 2,048, f32 4,096)."""
    return TILE * TILE * _bpe(t)


def page_bytes(t: TensorInfo) -> float:
    """Bytes of one page: a tile, or a row-major stick (``padded[-1]`` elements)."""
    if t.layout == "tile":
        return tile_bytes(t)
    return (t.padded[-1] if t.padded else 1) * _bpe(t)


def pages(t: TensorInfo) -> int:
    """Pages of ``t``: tiles, or row-major sticks."""
    return t.tiles if t.layout == "tile" else t.rows


def _local(t: TensorInfo) -> bool:
    """An L1-sharded tensor the op's cores own: read or written with no NoC transfer."""
    return t.sharded and not t.in_dram


def _cdiv(a: float, b: float) -> int:
    return int(ceil(a / b)) if b > 0 else int(ceil(a))


def _xfer(hw: Hardware, n_pages: float, nbytes: float) -> float:
    """Cycles for one core to move ``n_pages`` NoC transactions of ``nbytes`` each.

    ``n * max(t_txn, bytes / B_core)``: issue-bound below the bandwidth knee,
    bandwidth-bound above (``common_tm_bw_model`` tables, :mod:`hardware` [tm]).
    """
    if n_pages <= 0:
        return 0.0
    return n_pages * max(hw.noc_txn_cycles, nbytes / hw.core_noc_bytes_per_cycle)


def _latency(hw: Hardware, t: TensorInfo) -> float:
    """Round-trip latency of one NoC read of ``t``: DRAM or remote L1, cycles."""
    return hw.dram_latency_cycles if t.in_dram else hw.l1_latency_cycles


def _pipeline(n: float, *stages: float) -> float:
    """Cycles for ``n`` units through concurrent stages: ``sum + (n - 1) * max``."""
    if n <= 0:
        return 0.0
    return sum(stages) + (n - 1) * max(stages)


def _per_core_units(t: TensorInfo, cores: int) -> int:
    """Pages of ``t`` on the busiest of ``cores`` (a shard when its shard shape is known)."""
    if t.sharded and t.shard_shape and t.memory_layout != "interleaved":
        h, w = t.shard_shape
        if t.layout == "tile":
            return _cdiv(h, TILE) * _cdiv(w, TILE)
        return h
    return _cdiv(pages(t), max(1, cores))


def _fidelity_passes(op: DeviceOp, notes: list[str]) -> int:
    """Matrix-engine passes of the op's math fidelity; LoFi (1 pass), noted, when it has none or an unknown one."""
    passes = FIDELITY_PASSES.get(op.math_fidelity or "")
    if passes is None:
        notes.append(f"math fidelity {op.math_fidelity or 'not given'}: LoFi (1 pass) assumed")
        return 1
    return passes


@dataclass
class _Work:
    """What one op costs, before the launch and the DRAM roof.

    ``units`` units pass through the ``read`` / ``compute`` / ``write`` stages
    (cycles per unit, on the busiest core); ``extra`` cycles run outside the
    pipeline.  ``dram_reads`` / ``dram_writes`` are (bytes, transaction bytes)
    pairs; ``dram_serial`` > 0: reads and writes happen in sequence (their
    times add) at that share of the usual bandwidths.  ``core``, when set, is
    the busiest core's cycles computed by the family itself (nested
    pipelines); the stages then only apportion it.
    """

    units: float = 1.0
    read: float = 0.0
    compute: float = 0.0
    write: float = 0.0
    extra: float = 0.0
    dram_reads: list[tuple[float, float]] = field(default_factory=list)
    dram_writes: list[tuple[float, float]] = field(default_factory=list)
    flops: float = 0.0
    dram_serial: float = 0.0
    core: float | None = None
    notes: list[str] = field(default_factory=list)

    def dram_io(self, op: DeviceOp, read_bytes: dict[int, float] | None = None,
                write_bytes: float | None = None) -> None:
        """Add the op's DRAM tensors (inputs read, output written); overrides per input index."""
        for i, t in enumerate(op.inputs):
            if t.in_dram:
                b = t.bytes if read_bytes is None or i not in read_bytes else read_bytes[i]
                self.dram_reads.append((b, page_bytes(t)))
        out = op.outputs[0]
        if out.in_dram:
            self.dram_writes.append((out.bytes if write_bytes is None else write_bytes, page_bytes(out)))


def _k(c: Constants, name: str, arch: str) -> float:
    return c.get(name, arch)


# ----------------------------------------------------------------------------- eltwise


def _sfpu_cycles(c: Constants, arch: str, unary_ops: list[str], notes: list[str]) -> float:
    """SFPU cycles per tile of the fused unary ops: own constant, ``sfpu_heavy``, or 0 for light ops.

    A name in none of the lists costs ``sfpu_heavy`` and is noted.
    """
    total = 0.0
    for raw in unary_ops:
        u = unary_name(raw)
        if u in SFPU_OWN:
            total += _k(c, f"sfpu_{u}", arch)
        elif u in SFPU_HEAVY:
            total += _k(c, "sfpu_heavy", arch)
        elif u not in SFPU_LIGHT:
            total += _k(c, "sfpu_heavy", arch)
            notes.append(f"unary op '{raw}' is in no SFPU list: costed as sfpu_heavy")
    return total


_NG_CODES = frozenset({"BinaryNgDeviceOperation", "TernaryDeviceOperation", "WhereDeviceOperation"})


def _native_sharding(op: DeviceOp) -> bool:
    """Whether an eltwise op reads and writes its L1 shards in place (else it runs the interleaved path).

    binary_ng and ternary (tt-metal ``eltwise/binary_ng/device/binary_ng_utils.cpp``
    ``is_native_L1_sharding`` / ``is_uneven``, ``get_shard_specs``: "treat as interleaved"
    otherwise): the output sharded in L1, no tensor in DRAM, and every sharded tensor even:
    its padded volume but the last dim a multiple of the shard height, its last dim of the
    shard width (an input whose shard the row does not give takes the output's).  Other
    eltwise ops: always native.
    """
    if op.op_code not in _NG_CODES:
        return True
    out = op.outputs[0]
    if not out.sharded or out.in_dram or any(t.in_dram and t.sharded for t in op.inputs):
        return False
    for t in (*op.inputs, out):
        if not t.sharded:
            continue
        shard = t.shard_shape or (out.shard_shape if tuple(t.padded) == tuple(out.padded) else None)
        if not shard or len(t.padded) < 2:
            return False
        h, wd = shard
        if h <= 0 or wd <= 0 or prod(t.padded[:-1]) % h or t.padded[-1] % wd:
            return False
    return True


def _row_broadcast(op: DeviceOp) -> TensorInfo | None:
    """The operand of a binary op broadcast along H (one logical row, the output's width), else None.

    tt-metal binary_ng ``SubtileBroadcastType::ROW_A`` / ``ROW_B``.
    """
    if len(op.inputs) < 2 or not op.outputs:
        return None
    out = op.outputs[0]
    if len(out.shape) < 2 or out.shape[-2] <= 1:
        return None
    for t in op.inputs[:2]:
        if len(t.shape) >= 2 and t.shape[-2] == 1 and t.shape[-1] == out.shape[-1] and t.layout == "tile":
            return t
    return None


def _llk_row_broadcast(op: DeviceOp) -> bool:
    """Whether binary_ng broadcasts the row in the unpacker (``BCAST_LLK``) rather than on the reader.

    tt-metal ``binary_ng_program_factory.cpp`` ``is_llk_bcast``: bf16 operands and output; on
    Blackhole the row and scalar broadcasts stay on the reader (``uses_movb2d``).
    """
    if op.arch == "blackhole":
        return False
    return all(t.dtype == "bf16" for t in (*op.inputs[:2], op.outputs[0]))


def _eltwise(op: DeviceOp, hw: Hardware, c: Constants, kind: str) -> _Work:
    """Unary, binary (legacy and binary_ng), ternary, typecast, copy.

    Tiles split over the cores; per tile the reader waits for one read of each
    tensor input (latency + transfer, none for an owned L1 shard), compute takes
    ``eltwise_tile`` + the SFPU cost of each fused unary op (``sfpu_exp``,
    ``sfpu_heavy`` for other transcendental ops, nothing for light ones), the writer
    writes the tile.  A binary op with a scalar operand first fills one tile
    with the scalar on a RISC-V core (``scalar_fill`` cycles).  A multiply takes
    ``eltwise_tile`` once per math-fidelity phase (the FPU multiplies in 1 to 4
    phases, LoFi to HiFi4).  binary_ng with
    shards it cannot use in place (:func:`_native_sharding`) reads and writes every
    tile through the NoC, the output's tiles split evenly over its cores.  A row
    broadcast the unpacker does not do (:func:`_llk_row_broadcast`) costs the reader a
    copy of the first row over the other 31 rows of each broadcast tile
    (``reader_interleaved_row_bcast.cpp``, ``fill_tile_with_first_row``: ``fill_byte``
    cycles per byte written).
    """
    out = op.outputs[0]
    w = _Work()
    native = _native_sharding(op)
    if native:
        n = _per_core_units(out, op.cores) if out.layout == "tile" else _cdiv(out.elements / (TILE * TILE), op.cores)
    else:
        n = _cdiv(out.tiles if out.layout == "tile" else out.elements / (TILE * TILE), max(1, op.cores))
    w.units = max(1, n)
    remote = [t for t in op.inputs if not (native and _local(t))]
    if remote:
        w.read = max(_latency(hw, t) for t in remote) + sum(_xfer(hw, 1, tile_bytes(t)) for t in remote)
    bcast = _row_broadcast(op) if kind == "binary" else None
    if bcast is not None and not _llk_row_broadcast(op):
        # the reader copies the tile's first row over the other 31 on its RISC-V core, per output tile
        w.read += (TILE * TILE - TILE) * _bpe(bcast) * _k(c, "fill_byte", op.arch)
    unary = list(op.attrs.get("unary_ops") or [])
    bop = op.attrs.get("binary_op")
    # an FPU multiply takes one pass per math-fidelity phase (LoFi 1 .. HiFi4 4); add and subtract one
    phases = _fidelity_passes(op, w.notes) if kind == "binary" and str(bop) in _FPU_MULTIPLY else 1
    w.compute = phases * _k(c, "eltwise_tile", op.arch) + _sfpu_cycles(c, op.arch, unary, w.notes)
    if kind == "binary" and bop is not None and str(bop) not in FPU_BINARY:
        w.notes.append(f"binary op '{bop}' costed as one FPU tile op (eltwise_tile)")
    if not (native and _local(out)):
        w.write = _latency(hw, out) + _xfer(hw, 1, tile_bytes(out))
    if kind == "binary" and op.attrs.get("scalar"):
        w.extra += _k(c, "scalar_fill", op.arch)
    w.dram_io(op)
    w.flops = float(out.elements) * max(1, len(op.inputs))
    return w


def _fused_update(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """An elementwise update that writes several tensors per tile (tt-train AdamW: param, exp_avg, exp_avg_sq
    and, with AMSGrad, max_exp_avg_sq, in place): :func:`_eltwise` over the first output's tiles (every input
    read per tile, the fused SFPU ops of ``unary_ops``), plus each further output's tile write and DRAM bytes."""
    w = _eltwise(op, hw, c, "unary")
    for t in op.outputs[1:]:
        if not _local(t):
            w.write += _xfer(hw, 1, tile_bytes(t))
        if t.in_dram:
            w.dram_writes.append((t.bytes, page_bytes(t)))
    return w


# ----------------------------------------------------------------------------- data movement


def _stick_read(hw: Hardware, c: Constants, t: TensorInfo, nbytes: float) -> float:
    """Cycles for one core to read one row-major stick of ``t`` with a barrier after it.

    ``stick_read_dram`` / ``stick_read_l1`` (fitted: readers of row-major pages
    wait for each stick) plus the transfer.
    """
    lat = _k(c, "stick_read_dram" if t.in_dram else "stick_read_l1", hw.arch)
    return lat + _xfer(hw, 1, nbytes)


def _tile_stream(op: DeviceOp, hw: Hardware, c: Constants, compute: float, src: TensorInfo,
                 out_units: int) -> _Work:
    """One tile per unit: read it (wait), ``compute`` cycles on it, write it."""
    out = op.outputs[0]
    w = _Work(units=max(1, out_units))
    if not _local(src):
        w.read = _latency(hw, src) + _xfer(hw, 1, tile_bytes(src))
    w.compute = compute
    if not _local(out):
        w.write = _latency(hw, out) + _xfer(hw, 1, tile_bytes(out))
    return w


# Untilize-with-unpadding op codes whose interleaved writer (tt-metal d80d9482
# ``data_movement/untilize_with_unpadding/device/kernels/dataflow/writer_unary_stick_layout_split_rows_multicore.cpp``)
# waits for each row-major stick's write before the next.
_UNPADDING_WRITERS = frozenset({"UntilizeWithUnpaddingDeviceOperation", "UntilizeWithUnpadding"})


def _data_movement(op: DeviceOp, hw: Hardware, c: Constants, kind: str) -> _Work:
    """Layout conversions, transposes, slices, concat, resharding, moves, upsample, embeddings.

    Per op (busiest core; units and stages as in the module docstring):

    * tilize: 32-stick blocks (sticks read one by one, ``stick_read_*``),
      ``tilize_tile`` per tile, tiles written; padding rows filled by a RISC-V
      core at ``fill_byte`` cycles per byte;
    * untilize: tiles read one by one, ``untilize_tile`` per tile, sticks written (untilize with
      unpadding to an interleaved tensor: each real stick written and waited for, its write ack a NoC
      round trip like a stick read's, ``stick_read_*``);
    * transpose WH: per tile read, a transpose on the compute core
      (``eltwise_tile``), write; HC / CN: per output
      tile, its 64 face lines (16 elements each) read as separate transactions;
    * reshape (tiled): per output tile a mapping page, then each input tile it
      draws from, read and handed over one at a time, its face-line segments
      copied into a scratch tile, the tile written (:func:`_tiled_reshape`);
      row-major: sticks read and written (:func:`_rm_reshape`);
    * permute: row-major input and output sticks streamed (no wait per stick);
      tiled permutes as transpose HC;
    * concat / slice / repeat / pad / copy-like: per output page, one read (wait) and one write;
      a tiled interleaved pad (``writer_unary_pad_dims_interleaved.cpp``) reads and writes only the
      input's tiles (a wait each) and writes the padding tiles from one pad tile, filled once, in runs;
      slices read only the slice, SliceWrite writes only its input;
    * interleaved_to_sharded: the shard's tiles read in one batch (one wait),
      or its sticks one by one; sharded_to_interleaved and reshard: the shard
      written / gathered in one batch; move: the shard copied within L1 at
      ``l1_copy_bytes`` bytes per cycle;
    * upsample: input sticks read one by one, each written ``sh * sw`` times;
    * embeddings: per output row an index read and a table-row read (two waits); with row-major indices
      and a tiled output (``embeddings_tilize.cpp``) per 32-token block one index read and the block's
      table rows read together (two waits), tilized, the tiles written.
    """
    out = op.outputs[0]
    src = op.inputs[0] if op.inputs else out
    arch = op.arch
    w = _Work()
    notes: list[str] = []
    cores = max(1, op.cores)
    if kind == "tilize":
        tile_rows = _cdiv(out.rows, TILE)
        row_tiles = _cdiv(out.padded[-1], TILE)
        per_core = _cdiv(tile_rows * row_tiles, cores)
        width_tiles = min(row_tiles, per_core)
        blocks = _cdiv(per_core, width_tiles)
        logical_rows = prod(src.shape[:-1]) if src.shape else out.rows
        real_sticks = min(TILE, _cdiv(logical_rows, tile_rows))
        w.units = max(1, blocks)
        w.read = real_sticks * _stick_read(hw, c, src, width_tiles * TILE * _bpe(src)) if not _local(src) else 0.0
        w.compute = width_tiles * _k(c, "tilize_tile", arch)
        w.write = 0.0 if _local(out) else _latency(hw, out) + _xfer(hw, width_tiles, tile_bytes(out))
        pad_bytes = (TILE - real_sticks) * width_tiles * TILE * _bpe(src)
        w.extra = blocks * pad_bytes * _k(c, "fill_byte", arch)
        w.dram_io(op)
    elif kind == "untilize":
        out_rows = prod(out.padded[:-1])
        tile_rows = _cdiv(src.rows, TILE)
        blocks = _cdiv(tile_rows, cores)
        width_tiles = _cdiv(src.padded[-1], TILE)
        w.units = max(1, blocks)
        w.read = 0.0 if _local(src) else width_tiles * (_latency(hw, src) + _xfer(hw, 1, tile_bytes(src)))
        w.compute = width_tiles * _k(c, "untilize_tile", arch)
        sticks = min(TILE, out_rows)
        if _local(out):
            w.write = 0.0
        elif op.op_code in _UNPADDING_WRITERS and not out.sharded:
            # writer_unary_stick_layout_split_rows_multicore.cpp: each of the block's real rows written with
            # noc_async_write and waited for (noc_async_write_barrier) before the next one
            real = min(TILE, _cdiv(prod(out.shape[:-1]) if out.shape else out_rows, tile_rows))
            w.write = real * _stick_read(hw, c, out, (out.shape[-1] if out.shape else out.padded[-1]) * _bpe(out))
        else:
            w.write = _latency(hw, out) + _xfer(hw, sticks, page_bytes(out))
        w.dram_io(op)
    elif kind == "transpose":
        dim = op.attrs.get("dim")
        if dim not in ("wh", "hc", "cn"):
            dim = _transpose_dim(op.attrs.get("perm"))
        if dim is None:
            dim = "wh"
            notes.append("transpose dim not given: WH assumed")
        n = _per_core_units(out, cores)
        if dim == "wh" or src.layout != "tile":
            w = _tile_stream(op, hw, c, _k(c, "eltwise_tile", arch), src, n)
        else:
            w = _tile_stream(op, hw, c, 0.0, src, n)
            if not _local(src):
                w.read = _latency(hw, src) + _xfer(hw, 2 * TILE, TILE // 2 * _bpe(src))
        w.dram_io(op)
    elif kind == "reshape":
        if out.layout == "tile" and src.layout == "tile":
            w = _tiled_reshape(op, hw, c, src, out)
        else:
            w = _rm_reshape(op, hw, c, src, out)
        w.dram_io(op)
    elif kind == "permute":
        perm = op.attrs.get("perm")
        if out.layout == "tile" and src.layout == "tile" and _row_invariant(perm, len(src.shape)):
            w = _permute_rows(op, hw, src, out, tuple(perm))
        elif out.layout == "tile":
            w = _tile_stream(op, hw, c, 0.0, src, _per_core_units(out, cores))
            if not _local(src):
                w.read = _latency(hw, src) + _xfer(hw, 2 * TILE, TILE // 2 * _bpe(src))
        else:
            w.units = 1
            w.read = 0.0 if _local(src) else _latency(hw, src) + _xfer(hw, _cdiv(src.rows, cores), page_bytes(src))
            w.write = 0.0 if _local(out) else _xfer(hw, _cdiv(out.rows, cores), page_bytes(out))
        if not w.dram_reads and not w.dram_writes:
            w.dram_io(op)
    elif kind == "pad" and out.layout == "tile" and src.layout == "tile" and not out.sharded:
        # writer_unary_pad_dims_interleaved.cpp: one pad tile filled once (fill_byte per byte); each input tile
        # (read by reader_unary_interleaved_start_id.cpp, a wait each) written and waited for; the padding tiles
        # written from the pad tile in runs, one wait per run (a run per padded dim and row of tiles, at most as
        # many runs as input tile rows plus the outer padded dims)
        data = _cdiv(src.tiles, cores)
        pad_tiles = max(0, _cdiv(out.tiles, cores) - data)
        runs = min(pad_tiles, _cdiv(_cdiv(src.rows, TILE), cores) + len(out.padded))
        w.units = max(1, data)
        w.read = 0.0 if _local(src) else _latency(hw, src) + _xfer(hw, 1, tile_bytes(src))
        w.write = 0.0 if _local(out) else _latency(hw, out) + _xfer(hw, 1, tile_bytes(out))
        w.extra = (tile_bytes(out) * _k(c, "fill_byte", arch)
                   + (0.0 if _local(out) else runs * _latency(hw, out) + _xfer(hw, pad_tiles, tile_bytes(out))))
        w.dram_io(op)
    elif kind in ("concat", "slice", "pad", "repeat"):
        if out.layout == "tile":
            w = _tile_stream(op, hw, c, 0.0, src, _per_core_units(out, cores))
        else:
            w = _sticks(op, hw, c, src, out)
        if kind == "slice":
            w.dram_io(op, read_bytes={0: min(src.bytes, out.elements * _bpe(src))})
        elif kind == "pad":
            w.dram_io(op)
            w.extra = _cdiv(max(0.0, out.bytes - src.bytes), cores) * _k(c, "fill_byte", arch)
        else:
            w.dram_io(op)
    elif kind == "padded_slice":
        per_core = _per_core_units(out, cores)
        if src.layout == "tile":
            width = out.shard_shape[1] if out.shard_shape else out.padded[-1]
            cols = _cdiv(width, TILE) + (1 if width % TILE else 0)
            tiles = _cdiv(per_core, TILE) * cols if out.layout != "tile" else per_core
            w.units = max(1, tiles)
            w.read = _latency(hw, src) + _xfer(hw, 1, tile_bytes(src))
            w.compute = _k(c, "untilize_tile", arch) if out.layout != "tile" else 0.0
        else:
            w.units = max(1, per_core)
            width = (out.shard_shape[1] if out.shard_shape else out.padded[-1]) * _bpe(src)
            w.read = _stick_read(hw, c, src, width)
        if not _local(out):
            w.write = _latency(hw, out) + _xfer(hw, 1, page_bytes(out))
        w.dram_io(op, read_bytes={0: min(src.bytes, out.elements * _bpe(src))})
    elif kind == "slice_write":
        per_core = _per_core_units(src, cores)
        w.units = 1
        w.write = _latency(hw, out) + _xfer(hw, per_core, page_bytes(src))
        w.dram_io(op, write_bytes=src.elements * _bpe(out))
    elif kind == "i2s":
        per_core = _per_core_units(out, cores)
        if src.layout == "tile":
            w.read = _latency(hw, src) + _xfer(hw, per_core, tile_bytes(src))
        else:
            width = (out.shard_shape[1] if out.shard_shape else out.padded[-1]) * _bpe(src)
            w.units = max(1, per_core)
            w.read = _stick_read(hw, c, src, width)
        w.dram_io(op)
    elif kind in ("s2i", "reshard"):
        per_core = _per_core_units(src, cores) if src.sharded else _per_core_units(out, cores)
        w.write = _latency(hw, out) + _xfer(hw, per_core, page_bytes(src))
        w.dram_io(op)
    elif kind == "move":
        per_core_bytes = out.bytes / cores
        w.compute = per_core_bytes / _k(c, "l1_copy_bytes", arch)
        w.dram_io(op)
    elif kind == "upsample":
        sh, sw = op.attrs.get("scale", (1, 1))
        in_sticks = _cdiv(src.rows, cores)
        stick = page_bytes(src)
        w.units = max(1, in_sticks)
        w.read = 0.0 if _local(src) else _stick_read(hw, c, src, stick)
        w.write = 0.0 if _local(out) else _xfer(hw, sh * sw, stick)
        w.dram_io(op)
    elif kind == "embedding":
        table = op.inputs[1] if len(op.inputs) > 1 else src
        row_bytes = out.padded[-1] * _bpe(out)
        if src.layout == "row_major" and out.layout == "tile":
            # embeddings_tilize.cpp: per 32-token block the block's indices read (one wait), then its 32 table
            # rows read together (one wait), tilized on the compute core (tilize_tile per tile), the tiles written
            blocks = _cdiv(_cdiv(out.rows, TILE), cores)
            row_tiles = _cdiv(out.padded[-1], TILE)
            w.units = max(1, blocks)
            table_row = (table.padded[-1] if table.padded else out.padded[-1]) * _bpe(table)
            w.read = _stick_read(hw, c, src, TILE * _bpe(src)) + _latency(hw, table) + _xfer(hw, TILE, table_row)
            w.compute = row_tiles * _k(c, "tilize_tile", arch)
            w.write = 0.0 if _local(out) else _latency(hw, out) + _xfer(hw, row_tiles, tile_bytes(out))
        else:
            # embedding_ind_tilized.cpp / embeddings.cpp: per output row its index and its table row, a wait each
            rows = _cdiv(prod(out.shape[:-1]) if out.shape else out.rows, cores)
            w.units = max(1, rows)
            w.read = _stick_read(hw, c, src, 4) + _stick_read(hw, c, table, row_bytes)
            w.write = 0.0 if _local(out) else _latency(hw, out) / TILE + _xfer(hw, 1, row_bytes)
        w.dram_io(op, read_bytes={1: out.elements * _bpe(table)})
    else:  # pragma: no cover - OP_KINDS and this dispatch are kept in step
        raise UnknownDeviceOp(op.op_code)
    w.notes += notes
    return w


def _row_invariant(perm: object, rank: int) -> bool:
    """A permutation that keeps the last dim and moves the second-to-last (tt-metal's tiled row-invariant permute)."""
    if not isinstance(perm, (list, tuple)) or len(perm) != rank or rank < 3:
        return False
    p = [x % rank if isinstance(x, int) else -1 for x in perm]
    return sorted(p) == list(range(rank)) and p[-1] == rank - 1 and p[-2] != rank - 2


def _permute_rows(op: DeviceOp, hw: Hardware, src: TensorInfo, out: TensorInfo, perm: tuple[int, ...]) -> _Work:
    """Tiled permute keeping the last dim: each input tile's face lines written to their output tiles.

    tt-metal ``permute/device/kernels/dataflow/writer_permute_interleaved_tiled_row_invariant.cpp``:
    the input tiles split over the cores; per input tile the reader reads it and waits (latency
    + transfer); the writer issues one NoC write per real face line (16 elements: real rows x 2
    face columns) to its place in the output, then waits for them (``noc_async_write_barrier``:
    the output's latency).  When the dim that becomes the output's H is not a multiple of 32, the
    last tile row of every output tile column gets its padding rows written as face lines too
    (``needs_padding``), those tiles split over the cores.  Each write is one NoC transaction
    (``noc_txn_cycles``); DRAM sees the output in face-line transactions.
    """
    rank = len(src.shape)
    cores = max(1, op.cores)
    h = src.shape[-2]
    ht = _cdiv(h, TILE)
    wt = _cdiv(src.shape[-1], TILE)
    in_tiles = prod(src.shape[:-2]) * ht * wt
    tiles = _cdiv(in_tiles, cores)
    lines = h / ht * 2  # real face lines per input tile, on average
    w = _Work(units=max(1, tiles))
    w.read = _latency(hw, src) + _xfer(hw, 1, tile_bytes(src))
    w.write = lines * hw.noc_txn_cycles + _latency(hw, out)
    x = src.shape[perm[rank - 2] % rank]
    if x % TILE:
        pad_tiles = prod(out.shape[:-2]) * _cdiv(out.shape[-1], TILE)
        w.extra = _cdiv(pad_tiles, cores) * (TILE - x % TILE) * 2 * hw.noc_txn_cycles
    line = 16 * _bpe(out)
    if src.in_dram:
        w.dram_reads.append((src.bytes, tile_bytes(src)))
    if out.in_dram:
        w.dram_writes.append((out.bytes, line))
    return w


def _transpose_dim(perm: object) -> str | None:
    """tt-metal's ``TransposeOpDim`` of a permutation swapping two of the last three dims or the first two.

    ``(..., -1, -2)`` swapped -> ``wh``, ``-2`` and ``-3`` -> ``hc``, dims 0 and 1 of a 4D tensor -> ``cn``;
    None for anything else (or no permutation).
    """
    if not isinstance(perm, (list, tuple)) or not all(isinstance(x, int) for x in perm):
        return None
    r = len(perm)
    moved = [i for i, x in enumerate(perm) if x != i]
    if len(moved) != 2 or sorted(perm) != list(range(r)):
        return None
    i, j = sorted(i - r for i in moved)
    if (i, j) == (-2, -1):
        return "wh"
    if (i, j) == (-3, -2):
        return "hc"
    if r == 4 and (i, j) == (-4, -3):
        return "cn"
    return None


@dataclass(frozen=True)
class ReshapeTileMap:
    """What tt-metal's tiled reshape moves per output tile, averaged over the output tiles.

    Attributes:
        out_pages: output tiles (the tile-padded output's pages).
        in_pages: distinct input tiles an output tile draws from (each read and handed over once).
        segments: contiguous runs copied into the output tile (at most one face line, 16 elements, each).
        unaligned_bytes: bytes in runs whose source and destination differ modulo 16 B (copied by the
            RISC-V core; the others are NoC self-writes).
        map_bytes: bytes of one mapping page (16 B per segment of the tile with the most).
    """

    out_pages: int
    in_pages: float
    segments: float
    unaligned_bytes: float
    map_bytes: int


def _rank3(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """A logical shape squeezed to rank 3, ``(prod(leading dims), H, W)``, as ttnn's tiled reshape runs it."""
    s = (1, 1, 1) + tuple(shape)
    return prod(s[:-2]), s[-2], s[-1]


def _faced(h: int, w: int) -> int:
    """Element offset of (h, w) within its 32x32 tile stored as four 16x16 faces."""
    h, w = h % TILE, w % TILE
    return ((h // 16) * 2 + w // 16) * 256 + (h % 16) * 16 + w % 16


_RESHAPE_SAMPLE = 64  # output tiles walked per reshape (evenly spaced); the map is regular along the tensor


@lru_cache(maxsize=512)
def reshape_tile_map(in_shape: tuple[int, ...], out_shape: tuple[int, ...], elem_bytes: float) -> ReshapeTileMap:
    """The segment map of a tiled reshape, as tt-metal's host builds it, averaged over output tiles.

    tt-metal ``data_movement/reshape_view/device/reshape_tiled_program_factory.cpp``
    (``reshape_map_output_page``): both shapes squeezed to rank 3; for each output tile the
    logical elements are walked row by row and grouped into segments, each contiguous in both
    tiles' face layouts (so at most a 16-element face line) and from one input tile; the
    segments are grouped by input tile.  At most :data:`_RESHAPE_SAMPLE` output tiles, evenly
    spaced, are walked; the figures are their means.

    Args:
        in_shape / out_shape: logical shapes (elements); equal volumes.
        elem_bytes: bytes per element.

    Raises:
        UnmodeledDeviceOp: the volumes differ.
    """
    ci_n, hi_n, wi_n = _rank3(in_shape)
    co_n, ho_n, wo_n = _rank3(out_shape)
    if ci_n * hi_n * wi_n != co_n * ho_n * wo_n:
        raise UnmodeledDeviceOp(f"reshape of {in_shape} to {out_shape}: volumes differ")
    wti, hti = _cdiv(wi_n, TILE), _cdiv(hi_n, TILE)
    wto, hto = _cdiv(wo_n, TILE), _cdiv(ho_n, TILE)
    n_out = co_n * hto * wto
    step = max(1, n_out // _RESHAPE_SAMPLE)
    sample = range(0, n_out, step)
    pages = segs = unaligned = 0.0
    most = 0
    for p in sample:
        c, rest = divmod(p, hto * wto)
        ht, wt = divmod(rest, wto)
        ho0, wo0 = ht * TILE, wt * TILE
        seen: set[int] = set()
        n_seg = 0
        prev: tuple[int, int, int] | None = None  # (input page, next input offset, next output offset)
        for ho in range(ho0, min(ho_n, ho0 + TILE)):
            for a in range(wo0, min(wo_n, wo0 + TILE), 16):
                b = min(wo_n, wo0 + TILE, a + 16)
                flat = (c * ho_n + ho) * wo_n + a
                wo = a
                while wo < b:
                    ci, r = divmod(flat, hi_n * wi_n)
                    hi, wi = divmod(r, wi_n)
                    run = min(b - wo, wi_n - wi, 16 - wi % 16)
                    page = ci * hti * wti + (hi // TILE) * wti + wi // TILE
                    oi, oo = _faced(hi, wi), _faced(ho, wo)
                    if prev is None or prev != (page, oi, oo):
                        n_seg += 1
                        if (oi * elem_bytes) % 16 != (oo * elem_bytes) % 16:
                            unaligned += run * elem_bytes
                        seen.add(page)
                    elif (oi * elem_bytes) % 16 != (oo * elem_bytes) % 16:
                        unaligned += run * elem_bytes
                    prev = (page, oi + run, oo + run)
                    flat += run
                    wo += run
        pages += len(seen)
        segs += n_seg
        most = max(most, n_seg)
    n = len(sample)
    return ReshapeTileMap(n_out, pages / n, segs / n, unaligned / n, 16 * most)


def _tiled_reshape(op: DeviceOp, hw: Hardware, c: Constants, src: TensorInfo, out: TensorInfo) -> _Work:
    """Tiled reshape: per output tile a mapping page, each input tile it draws from, its segments, one write.

    tt-metal ``reshape_view/device/device/dataflow/reader_reshape_tiled.cpp`` and
    ``writer_reshape_tiled.cpp``; output tiles split over the grid
    (``split_work_to_cores``, the op's cores).  The mapping and input circular buffers hold one
    page each (``reader_cb_len = 1`` in the program factory), so reader and writer take turns
    and a tile's steps add up.  Per output tile (:func:`reshape_tile_map`):

    * the reader reads its mapping page from DRAM and waits (latency + transfer);
    * per input tile drawn from, the reader reads it and waits (latency + transfer); the writer
      drains its self-writes (``noc_async_write_barrier``) before it pops the page, and the
      one-page hand-off between the two cores costs ``page_handoff`` cycles (fitted);
    * per segment the writer issues a NoC self-write (``tt_memmove``: one NoC transaction when
      source and destination agree modulo 16 B), or copies the bytes on its RISC-V core
      (``fill_byte`` cycles per byte);
    * the scratch tile is written out and waited for (latency + transfer).
    """
    m = reshape_tile_map(tuple(src.shape), tuple(out.shape), _bpe(src))
    cores = max(1, op.cores)
    tiles = _cdiv(m.out_pages, cores)
    dram_lat = hw.dram_latency_cycles
    w = _Work(units=max(1, tiles))
    map_read = dram_lat + _xfer(hw, 1, m.map_bytes)
    w.read = map_read + m.in_pages * (_latency(hw, src) + _xfer(hw, 1, tile_bytes(src)))
    w.compute = (m.in_pages * _k(c, "page_handoff", op.arch) + m.segments * hw.noc_txn_cycles
                 + m.unaligned_bytes * _k(c, "fill_byte", op.arch))
    w.write = _latency(hw, out) + _xfer(hw, 1, tile_bytes(out))
    w.core = tiles * (w.read + w.compute + w.write)
    w.read, w.compute, w.write = w.read * tiles, w.compute * tiles, w.write * tiles
    w.units = 1
    return w


def _rm_reshape(op: DeviceOp, hw: Hardware, c: Constants, src: TensorInfo, out: TensorInfo) -> _Work:
    """Row-major reshape: a kernel reads each input stick (a wait each) and repacks it into output sticks.

    tt-metal ``data_movement/reshape_view/device/reshape_rm_program_factory.cpp`` and
    ``device/device/rm_reshape_interleaved.cpp`` (no pipelining inside the kernel): each core
    takes ``ceil(rows / cores)`` input sticks, raised until they end on an output stick; when
    one stick width divides the other (``can_use_dual_kernel``) the core runs the kernel on
    both data-movement RISC-Vs, each on half of the core's sticks (the half of its input sticks
    when the source is wider, else of its output sticks).  Per input stick: a read and
    ``noc_async_read_barrier`` (latency + transfer of the stick, or of
    ``((bytes - 1) & ~63) + 128`` bytes when it is not 64-B aligned in DRAM, 16-B in L1); its
    bytes copied into the output stick buffer (``fill_byte`` cycles per byte); per output stick
    completed, a write, which the next copy waits for (``noc_async_write_barrier``: latency +
    transfer).  Equal stick widths are a stick-for-stick copy (:func:`_sticks`).

    The dual kernel came with tt-metal PR #28169 (2025-09); before it, and after PR #28399 added
    the ``recreate_mapping_tensor`` attribute, one kernel ran per core.  A profiler row whose
    reshape attributes lack ``recreate_mapping_tensor`` sets ``attrs["rm_reshape_one_kernel"]``
    (:func:`ttanalyze.cost.profile.op_attrs`): its core runs all its sticks on one RISC-V.
    """
    if src.padded[-1] == out.padded[-1] or not src.padded or not out.padded:
        return _sticks(op, hw, c, src, out)
    cores = max(1, op.cores)
    in_bytes, out_bytes = page_bytes(src), page_bytes(out)
    in_rows = max(1, src.rows)
    # rows per core: ceil(rows / cores), raised until the core's bytes end on an output stick
    per_core = _cdiv(in_rows, cores)
    in_b, out_b = int(round(in_bytes)), max(1, int(round(out_bytes)))
    while (per_core * in_b) % out_b and per_core < in_rows:
        per_core += 1
    per_core = min(per_core, in_rows)
    dual = (in_b % out_b == 0 or out_b % in_b == 0) and not op.attrs.get("rm_reshape_one_kernel")
    if dual:
        # two instances of the kernel per core (both data-movement RISC-Vs), each half of the core's
        # input sticks (source wider than destination) or half of its output sticks
        if in_b >= out_b:
            in_sticks = per_core - per_core // 2
        else:
            out_core = per_core * in_b // out_b
            in_sticks = per_core - (out_core // 2) * out_b // in_b
    else:
        in_sticks = per_core
    out_sticks = _cdiv(in_sticks * in_b, out_b)
    # a DRAM source not 64-B aligned is read 64-B aligned: ((size - 1) & ~63) + 128 bytes; in L1 likewise at 16 B
    align = 64 if src.in_dram else 16
    read_bytes = in_b if in_b % align == 0 else ((in_b - 1) // 64) * 64 + 128
    w = _Work(units=1)
    w.read = in_sticks * (_latency(hw, src) + _xfer(hw, 1, read_bytes)) if not _local(src) else 0.0
    w.write = out_sticks * (_latency(hw, out) + _xfer(hw, 1, out_bytes)) if not _local(out) else 0.0
    w.compute = in_sticks * in_bytes * _k(c, "fill_byte", op.arch)
    w.core = w.read + w.write + w.compute
    return w


def _sticks(op: DeviceOp, hw: Hardware, c: Constants, src: TensorInfo, out: TensorInfo) -> _Work:
    """Row-major op: each output stick read (one wait) and written."""
    w = _Work()
    n = _cdiv(out.rows, max(1, op.cores))
    w.units = max(1, n)
    stick = page_bytes(out)
    if not _local(src):
        w.read = _stick_read(hw, c, src, stick)
    if not _local(out):
        w.write = _xfer(hw, 1, stick)
    return w


# ----------------------------------------------------------------------------- matmul


@dataclass(frozen=True)
class MatmulPlan:
    """The busiest core's share of a matmul, in tiles.

    Attributes:
        batches: batches the core loops over (1 when the batch is fused into M).
        m / n / k: per-core output block height and width and the inner dim.
        in0_block_w: K tiles per block (the reader-to-compute unit).
        subblock: output subblock (h, w) the compute kernel packs at once.
        in0_local: in0 is an L1 shard the core owns (no NoC reads of it).
        multicast: operand blocks are multicast between cores (hand-shaking per block).
    """

    batches: int
    m: int
    n: int
    k: int
    in0_block_w: int
    subblock: tuple[int, int]
    in0_local: bool
    multicast: bool

    @property
    def k_blocks(self) -> int:
        """K blocks per batch: ``ceil(k / in0_block_w)``."""
        return _cdiv(self.k, self.in0_block_w)


_SUBBLOCKS = ((4, 2), (2, 4), (8, 1), (1, 8), (7, 1), (1, 7), (3, 2), (2, 3), (6, 1), (1, 6), (5, 1), (1, 5),
              (2, 2), (4, 1), (1, 4), (3, 1), (1, 3), (2, 1), (1, 2), (1, 1))


def _subblock(m: int, n: int, fp32: bool) -> tuple[int, int]:
    """tt-metal ``get_matmul_subblock_params``: the first (h, w) dividing the block, at most 4 tiles with fp32 DST."""
    for h, w in _SUBBLOCKS:
        if fp32 and h * w > 4:
            continue
        if m % h == 0 and n % w == 0:
            return h, w
    return 1, 1


def _split_2d(mt: int, nt: int, cores: int) -> tuple[int, int, int]:
    """(per-core m, per-core n, grid columns) of an ``mt`` x ``nt`` output on ``cores`` cores, squarest grid first."""
    best: tuple[int, int, int] | None = None
    key = None
    for d in range(1, isqrt(cores) + 1):
        if cores % d:
            continue
        for rows in sorted({d, cores // d}):
            cols = cores // rows
            pm, pn = _cdiv(mt, rows), _cdiv(nt, cols)
            k = (pm * pn, abs(rows - cols))
            if key is None or k < key:
                best, key = (pm, pn, cols), k
    return best if best is not None else (mt, nt, 1)


def matmul_plan(op: DeviceOp) -> MatmulPlan:
    """The busiest core's block of a matmul from its program config, else from its shapes and cores.

    With a program config: ``per_core_M`` x ``per_core_N`` (``fuse_batch``
    folds the batch into M, else the core loops over the batches),
    ``in0_block_w``, its subblock; MinimalMatmul: M split over the grid's rows
    and N over its columns, ``K_block_size``.  Without one (ttnn chooses at run
    time, ``matmul_program_config.cpp``): a narrow output (aspect ratio above 8,
    or a side of one tile) runs 1D, the long side split over the cores,
    ``in0_block_w`` 2 when Kt is even; otherwise a 2D grid of the op's cores
    (squarest first), each core looping over the batches, ``in0_block_w =
    Kt / grid columns`` when that divides, else 1 (tt-metal's 2D rule on the
    grid the op uses).  Subblocks follow
    ``get_matmul_subblock_params`` (at most 4 tiles with fp32 accumulation).

    Raises:
        UnmodeledDeviceOp: fewer than two operands.
    """
    if len(op.inputs) < 2:
        raise UnmodeledDeviceOp(f"{op.op_code} with {len(op.inputs)} operand(s)")
    a, b = op.inputs[0], op.inputs[1]
    out = op.outputs[0]
    ta, tb = bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b"))
    mt = _cdiv(a.padded[-1] if ta else a.padded[-2], TILE)
    kt = _cdiv(a.padded[-2] if ta else a.padded[-1], TILE)
    nt = _cdiv(b.padded[-2] if tb else b.padded[-1], TILE)
    batch = max(1, prod(out.padded[:-2])) if len(out.padded) > 2 else 1
    b_batched = len(b.padded) > 2 and prod(b.padded[:-2]) > 1
    fp32 = bool(op.fp32_dest_acc)
    in0_local = _local(a)
    cores = max(1, op.cores)
    pc = op.attrs.get("program_config") or {}
    kind = pc.get("kind")
    if kind == "minimal":
        gx, gy = pc.get("grid", (8, 8))
        pm, pn = _cdiv(mt * batch, gy), _cdiv(nt, gx)
        bw = min(kt, pc.get("k_block", kt))
        sub = (pc.get("out_subblock_h", 1), pc.get("out_subblock_w", 1))
        return MatmulPlan(1, pm, pn, kt, bw, sub, in0_local, cores > 1)
    if kind and "per_core_m" in pc and "per_core_n" in pc:
        fuse = bool(pc.get("fuse_batch", True)) and not b_batched
        loops = 1 if fuse or kind == "reuse" else batch
        if kind == "reuse":
            loops = max(1, _cdiv(batch * mt, pc["per_core_m"] * cores)) if b_batched else 1
        if "nnz" in op.attrs:  # sparse matmul: a core loops over the nnz (batch, expert) pairs the mask keeps
            loops = min(loops, max(1, int(op.attrs["nnz"])))
        pm, pn = pc["per_core_m"], pc["per_core_n"]
        bw = pc.get("in0_block_w") or kt
        sub = (pc.get("out_subblock_h") or 1, pc.get("out_subblock_w") or 1)
        return MatmulPlan(loops, pm, pn, kt, bw, sub, in0_local, kind != "reuse" and cores > 1)
    m_all = mt if b_batched else mt * batch
    loops = batch if b_batched else 1
    hi, lo = max(m_all, nt), max(1, min(m_all, nt))
    if not b_batched and (hi // lo > 8 or lo == 1):
        if m_all >= nt:
            pm, pn = _cdiv(m_all, cores), nt
        else:
            pm, pn = m_all, _cdiv(nt, cores)
        bw = 2 if kt % 2 == 0 else 1
    else:
        pm, pn, cols = _split_2d(m_all, nt, cores)
        bw = kt // cols if kt % cols == 0 else 1
    return MatmulPlan(loops, pm, pn, kt, bw, _subblock(pm, pn, fp32), in0_local, cores > 1)


def _matmul(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """Matmul / linear (MatmulDeviceOperation, MinimalMatmulOp), per :func:`matmul_plan`.

    Units are K-blocks (``batches * ceil(Kt / in0_block_w)``).  Per block:

    * read: the core's in0 block (``m * in0_block_w`` tiles, unless in0 is an
      owned shard) and in1 block (``in0_block_w * n`` tiles), read or received
      by multicast with one wait (latency + transfer), plus ``mm_block``
      cycles of multicast hand-shaking when the op multicasts (more than one
      core);
    * compute: per subblock and K tile, ``max(h * w * mm_cycles_per_pass *
      passes, (h + w) * mm_unpack_tile)`` (math and operand unpack overlap;
      small subblocks are unpack-bound), plus ``mm_spill_tile`` per output tile
      for every K block after the first (partials reloaded) unless the packer
      accumulates in L1;
    * after each batch's last block: ``mm_out_tile`` per output tile written
      (interleaved output) and ``eltwise_tile`` per tile for a fused bias.

    The busiest core pipelines K-blocks within a batch (reader and compute
    overlap) and batches against the writer:
    ``pipeline(batches, pipeline(nk, read, compute), write)``, less the part of
    the last batch's write that overlaps its last K block's compute (the writer
    takes each output subblock as it is packed:
    ``reader_bmm_tile_layout_in1_sender_writer_padding.cpp`` waits per subblock),
    leaving ``max(write - compute_block, write / subblocks)`` exposed; MinimalMatmul
    keeps its writes in series.

    DRAM: a core reads its operands before it writes its output, so the read
    and write times add: ``(R / e_read + W / e_write) / peak / mm_dram_share``.
    """
    plan = matmul_plan(op)
    a, b = op.inputs[0], op.inputs[1]
    out = op.outputs[0]
    arch = op.arch
    notes: list[str] = []
    passes = _fidelity_passes(op, notes)
    if (op.attrs.get("program_config") or {}).get("kind") == "minimal" and "grid" not in op.attrs["program_config"]:
        notes.append("MinimalMatmul grid not given: 8x8 assumed")
    nk = plan.k_blocks
    bw = min(plan.in0_block_w, plan.k)
    h, sw = max(1, plan.subblock[0]), max(1, plan.subblock[1])
    subblocks = _cdiv(plan.m, h) * _cdiv(plan.n, sw)
    w = _Work(units=plan.batches, notes=notes)
    in0_tiles = 0 if plan.in0_local else plan.m * bw
    w.read = _latency(hw, b) + _xfer(hw, in0_tiles, tile_bytes(a)) + _xfer(hw, bw * plan.n, tile_bytes(b))
    if plan.multicast:
        w.read += _k(c, "mm_block", arch)
    per_step = max(h * sw * _k(c, "mm_cycles_per_pass", arch) * passes, (h + sw) * _k(c, "mm_unpack_tile", arch))
    w.compute = subblocks * bw * per_step
    out_tiles = plan.m * plan.n
    if nk > 1 and not op.attrs.get("packer_l1_acc"):
        w.compute += (nk - 1) / nk * out_tiles * _k(c, "mm_spill_tile", arch)
    if not _local(out):
        w.write = out_tiles * _k(c, "mm_out_tile", arch)
    if len(op.inputs) > 2:
        w.compute += out_tiles * _k(c, "eltwise_tile", arch) / nk
    w.core = _pipeline(plan.batches, _pipeline(nk, w.read, w.compute), w.write)
    if w.write > 0 and (op.attrs.get("program_config") or {}).get("kind") != "minimal":
        # the writer drains each output subblock as the last K block's compute pushes it, so after the last
        # batch only what outlasts that block's compute is exposed, at least one subblock's share
        w.core -= w.write - max(w.write - w.compute, w.write / subblocks)
    w.read, w.compute = w.read * nk, w.compute * nk
    w.dram_io(op)
    w.dram_serial = _k(c, "mm_dram_share", arch)
    mt_l = a.shape[-1] if op.attrs.get("transpose_a") else a.shape[-2]
    kt_l = a.shape[-2] if op.attrs.get("transpose_a") else a.shape[-1]
    n_l = b.shape[-2] if op.attrs.get("transpose_b") else b.shape[-1]
    batch = prod(out.shape[:-2]) if len(out.shape) > 2 else 1
    w.flops = 2.0 * batch * mt_l * kt_l * n_l
    return w


# ----------------------------------------------------------------------------- conv, halo, pool


def _conv(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """Conv2d on the sharded, halo'd activation (Conv2dDeviceOperation).

    Per core: ``per_core_out_h`` x ``per_core_out_w`` output tiles (from the
    parallelization config, else the output shard or the output over the
    cores), ``Kt`` = weight rows / 32, in activation blocks of
    ``act_block_h`` tile rows, each in K blocks of ``act_block_w`` tiles (the
    units; one multicast hand-shake, ``mm_block``, per unit when more than one
    core shares weights or activations).  Per block the reader gathers the
    activation from the local shard: per output row and window row one
    contiguous run of ``kw`` sticks, or ``kw`` runs when the window is dilated
    (``conv_gather`` cycles each); the first block also reads the core's
    ``Kt * out_w`` weight tiles from DRAM.  Compute tilizes the gathered block
    (``tilize_tile`` per tile), multiplies (tile products at
    ``mm_cycles_per_pass * passes``) and packs the output (``eltwise_tile``
    per tile); the output shard is written in place.  Block-sharded convs
    split C_in over the grid's columns (``cores / num_cores_nhw``): a core
    gathers and tilizes its channel slice only and receives the rest of the
    block by multicast (the block's bytes at the NoC's peak).
    """
    a = op.inputs[0]
    wts = op.inputs[1] if len(op.inputs) > 1 else None
    out = op.outputs[0]
    arch = op.arch
    cores = max(1, op.cores)
    kh, kw = op.attrs.get("window", (1, 1))
    kt = _cdiv(wts.padded[-2], TILE) if wts is not None else _cdiv(a.padded[-1] * kh * kw, TILE)
    out_h = op.attrs.get("per_core_out_h")
    out_w = op.attrs.get("per_core_out_w")
    if not out_h or not out_w:
        if out.shard_shape:
            out_h = _cdiv(out.shard_shape[0], TILE)
            out_w = _cdiv(out.shard_shape[1], TILE)
        else:
            out_h = _cdiv(_cdiv(out.padded[-2] * prod(out.padded[:-2]), TILE), cores)
            out_w = _cdiv(out.padded[-1], TILE)
    block_h = min(out_h, op.attrs.get("act_block_h") or out_h)
    blocks = _cdiv(out_h, block_h)
    notes: list[str] = []
    passes = _fidelity_passes(op, notes)
    dilated = tuple(op.attrs.get("dilation", (1, 1)))[-1] > 1
    cols = 1
    if a.memory_layout == "block_sharded" and op.attrs.get("num_cores_nhw"):
        cols = max(1, cores // op.attrs["num_cores_nhw"])
    k_blocks = _cdiv(kt, op.attrs.get("act_block_w") or kt)
    w = _Work(units=blocks * k_blocks, notes=notes)
    weights = (_latency(hw, wts) + _xfer(hw, kt * out_w, tile_bytes(wts))) / blocks if wts is not None else 0.0
    runs = block_h * TILE * kh * (kw if dilated else 1)
    w.read = (runs * _k(c, "conv_gather", arch) + weights) / k_blocks
    if cols > 1:
        w.read += block_h * kt * TILE * TILE * _bpe(a) * (cols - 1) / cols / hw.noc_bytes_per_cycle / k_blocks
    if cores > 1:
        w.read += _k(c, "mm_block", arch)
    w.compute = (block_h * out_w * kt * _k(c, "mm_cycles_per_pass", arch) * passes
                 + block_h * kt / cols * _k(c, "tilize_tile", arch)) / k_blocks \
        + block_h * out_w * _k(c, "eltwise_tile", arch) / k_blocks
    if not _local(out):
        w.write = _latency(hw, out) + _xfer(hw, block_h * out_w, tile_bytes(out))
    w.dram_io(op)
    cin = op.attrs.get("channels_in") or a.shape[-1]
    groups = op.attrs.get("groups") or 1
    w.flops = 2.0 * prod(out.shape[:-1]) * out.shape[-1] * cin * kh * kw / groups
    return w


def _pad_share(op: DeviceOp) -> float:
    """Share of a halo's output sticks that are padding, from the sliding-window geometry (0 when unknown)."""
    hw_in = op.attrs.get("input_hw")
    pad = op.attrs.get("padding")
    if not hw_in or not pad:
        return 0.0
    h, wd = hw_in
    t, b, left, r = pad
    full = (h + t + b) * (wd + left + r)
    return max(0.0, 1.0 - h * wd / full) if full else 0.0


def _halo(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """Halo (HaloDeviceOperation): gathers each core's input sticks plus its neighbours' halo rows.

    Per core: ``max_out_nsticks_per_core`` output sticks (else the output over
    the cores), ``C`` per core wide (the output shard width).  Data sticks are
    copied from the core's own shard or a neighbour's by the data-movement
    cores at ``halo_bytes`` bytes per cycle each; both data-movement cores
    share the copies for a tiled input (untilized first, ``untilize_tile`` per
    tile) or a block-sharded one, one does them for a row-major height- or
    width-sharded input (the per-RISC durations of the measured halos show
    this split).  Padding sticks (their share from the sliding-window geometry)
    are written at the NoC's peak bytes per cycle.
    """
    a = op.inputs[0]
    out = op.outputs[0]
    arch = op.arch
    cores = max(1, op.cores)
    sticks = op.attrs.get("out_sticks_per_core") or _cdiv(out.rows, cores)
    width = out.shard_shape[1] if out.shard_shape else out.padded[-1]
    stick_bytes = width * _bpe(out)
    share = _pad_share(op)
    data_bytes = sticks * (1.0 - share) * stick_bytes
    movers = 2 if a.layout == "tile" or a.memory_layout == "block_sharded" else 1
    w = _Work(units=1)
    w.write = data_bytes / (movers * _k(c, "halo_bytes", arch))
    w.extra = sticks * share * stick_bytes / hw.noc_bytes_per_cycle
    if a.layout == "tile":
        in_sticks = op.attrs.get("in_sticks_per_core") or _cdiv(a.rows, cores)
        w.compute = _cdiv(in_sticks, TILE) * _cdiv(width, TILE) * _k(c, "untilize_tile", arch)
    w.dram_io(op)
    return w


def _pool(op: DeviceOp, c: Constants) -> _Work:
    """Max / avg pool 2D on the halo'd shard (Pool2D).

    Per core: output sticks (the output over ``num_cores_nhw`` cores) times the
    window's input sticks, ``pool_stick`` cycles per input stick per 64-channel
    block (the compute kernel reduces one window row-set per output stick).
    """
    a = op.inputs[0]
    out = op.outputs[0]
    arch = op.arch
    kh, kw = op.attrs.get("window", (1, 1))
    ncores = op.attrs.get("num_cores_nhw") or op.cores
    out_sticks = _cdiv(out.rows if out.layout != "tile" else prod(out.padded[:-1]), max(1, ncores))
    if out.shard_shape:
        out_sticks = out.shard_shape[0]
        channels = out.shard_shape[1]
    else:
        channels = a.shard_shape[1] if a.shard_shape else a.padded[-1]
        if a.memory_layout == "width_sharded":
            channels = _cdiv(a.padded[-1], max(1, op.cores))
    blocks = _cdiv(channels, 64)
    w = _Work(units=1)
    w.compute = out_sticks * kh * kw * blocks * _k(c, "pool_stick", arch)
    w.dram_io(op)
    w.flops = float(prod(out.shape[:-1]) * out.shape[-1] * kh * kw)
    return w


# ----------------------------------------------------------------------------- reductions, normalization


_PASSES = {"layer": 7, "rms": 4, "softmax": 5, "reduce": 1}
# Of those, the passes that multiply on the FPU (reductions with their scaler, squares, scales, gamma), which take
# one FPU pass per math-fidelity phase; the others (max, subtract, add) take one.
_MULT_PASSES = {"layer": 5, "rms": 4, "softmax": 2, "reduce": 1}


def reduce_dim(dim: object, rank: int) -> str | None:
    """A reduce's dims as tt-metal's ``ReduceOpDim`` (``w``, ``h``, ``hw``), None when not given.

    ``dim`` is ``"w"`` / ``"h"`` / ``"hw"``, or a dim index or list of them (negative
    from the end) of a tensor of ``rank``: the last dim is W, the one before H.

    Raises:
        UnmodeledDeviceOp: a dim that is neither H nor W (a leading dim: tt-metal
            transposes it into H first, a separate device op).
    """
    if dim is None:
        return None
    if isinstance(dim, str):
        d = dim.lower()
        if d in ("w", "h", "hw"):
            return d
        raise UnmodeledDeviceOp(f"reduce over dim '{dim}'")
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if not dims or not all(isinstance(x, int) and not isinstance(x, bool) for x in dims):
        raise UnmodeledDeviceOp(f"reduce over dims {dim!r}")
    names = set()
    for x in dims:
        i = x + rank if x < 0 else x
        if i == rank - 1:
            names.add("w")
        elif i == rank - 2:
            names.add("h")
        else:
            raise UnmodeledDeviceOp(f"reduce over dim {x} of a rank-{rank} tensor (neither H nor W)")
    return "hw" if names == {"w", "h"} else names.pop()


def _divisor_at_most(n: int, limit: int) -> int:
    """The largest divisor of ``n`` not above ``limit`` (tt-metal's block size for ``n`` tiles; 1 for n < 1)."""
    return next((d for d in range(min(limit, max(1, n)), 0, -1) if n % d == 0), 1)


def _norm(op: DeviceOp, hw: Hardware, c: Constants, kind: str) -> _Work:
    """LayerNorm / RMSNorm, softmax, reduce: rows of tiles split over the cores.

    No constant of its own: per core, each tile row of ``Wt`` tiles is read
    (LayerNorm and softmax: x and a fused residual or mask in blocks of ``blk``
    tiles, the largest divisor of Wt up to 8, 4 with fp32 accumulation, one
    wait per block, and gamma / beta once per core (spread over the core's
    tiles: the reader fetches them while the compute kernel runs), tt-metal
    ``layernorm/device/kernels/dataflow/reader_unary_interleaved_ln.cpp``; a
    reduce tile by tile, a wait each), run through
    the kernel's passes (LayerNorm 7: mean, centre, square, variance, scale,
    gamma, beta; RMSNorm 4; softmax 5 plus an ``sfpu_exp`` per tile; reduce 1),
    ``eltwise_tile`` cycles per tile and pass, a pass that multiplies (LayerNorm
    5: the two reductions with their scaler, square, scale, gamma; RMSNorm 4;
    softmax 2: the sum and the scale; reduce 1) once per math-fidelity phase
    (the FPU multiplies in 1-4 phases, LoFi to HiFi4; adds and subtracts in
    one), and written; per row the
    reduced tile gets an SFPU reciprocal or rsqrt (``sfpu_heavy``, not for a
    plain reduce) and 3 more tile ops; the reader first fills the reduce's
    scaler tile (``scalar_fill``).
    """
    a = op.inputs[0]
    out = op.outputs[0]
    arch = op.arch
    cores = max(1, op.cores)
    notes: list[str] = []
    if kind == "reduce":
        dim = reduce_dim(op.attrs.get("dim"), len(a.padded))
        if dim is None:
            dim = "w"
            notes.append("reduce dim not given: W assumed")
        wt = _cdiv(a.padded[-1], TILE)
        ht = _cdiv(a.padded[-2], TILE) if len(a.padded) >= 2 else 1
        batch = prod(a.padded[:-2]) if len(a.padded) > 2 else 1
        if dim == "hw":
            tile_rows, per_row = batch, ht * wt
        elif dim == "h":
            tile_rows, per_row = batch * wt, ht
        else:
            tile_rows, per_row = batch * ht, wt
    else:
        wt = _cdiv(a.padded[-1], TILE)
        tile_rows = _cdiv(a.rows, TILE)
        per_row = wt
    if a.sharded and a.shard_shape:
        rows_pc = _cdiv(a.shard_shape[0], TILE)
        per_row = _cdiv(a.shard_shape[1], TILE)
    elif a.sharded and op.attrs.get("shard_block_w"):
        # LayerNormShardedMultiCoreProgramConfig / SoftmaxShardedMultiCoreProgramConfig: each core normalizes its
        # block_h x block_w tiles (layernorm_op_multi_core_sharded.cpp, softmax's sharded factory)
        rows_pc = int(op.attrs.get("shard_block_h") or 1)
        per_row = int(op.attrs["shard_block_w"])
    else:
        rows_pc = _cdiv(tile_rows, cores)
    norm = op.attrs.get("norm")
    if kind == "norm" and norm not in ("layer", "rms"):
        notes.append(f"norm type {norm or 'not given'}: LayerNorm assumed")
        norm = "layer"
    key = "reduce" if kind == "reduce" else "softmax" if kind == "softmax" else norm
    passes = _PASSES[key]
    fid = _fidelity_passes(op, notes)
    pass_ops = passes - _MULT_PASSES[key] + _MULT_PASSES[key] * fid
    w = _Work(units=max(1, rows_pc * per_row), notes=notes)
    if kind == "reduce":
        streams = [t for t in op.inputs if not _local(t) and t.tiles > 1] or ([a] if not _local(a) else [])
        w.read = sum(_latency(hw, t) + _xfer(hw, 1, tile_bytes(t)) for t in streams)
    else:
        # LayerNorm / softmax readers (reader_unary_interleaved_ln.cpp, ..._sm.cpp) read x (and a fused residual
        # or mask of x's rows) in blocks of ``blk`` tiles, one wait per block; gamma / beta (one tile row) once.
        blk = _divisor_at_most(per_row, 4 if op.fp32_dest_acc else 8)
        streams = [t for t in op.inputs[:1] if not _local(t)] + [
            t for t in op.inputs[1:] if not _local(t) and _cdiv(t.rows, TILE) > 1]
        once = [t for t in op.inputs[1:] if not _local(t) and _cdiv(t.rows, TILE) <= 1]
        w.read = sum(_latency(hw, t) / blk + _xfer(hw, 1, tile_bytes(t)) for t in streams)
        # gamma / beta: read by the reader once per core while the compute kernel works on the first rows
        w.read += sum(_cdiv(_cdiv(t.padded[-1], TILE), blk) * _latency(hw, t)
                      + _xfer(hw, _cdiv(t.padded[-1], TILE), tile_bytes(t)) for t in once) / max(1, rows_pc * per_row)
    tile_op = _k(c, "eltwise_tile", arch)
    w.compute = pass_ops * tile_op + (_k(c, "sfpu_exp", arch) if kind == "softmax" else 0.0)
    if not _local(out):
        w.write = (_latency(hw, out) + _xfer(hw, 1, tile_bytes(out))) * (1.0 if kind != "reduce" else 1.0 / per_row)
    per_row_ops = 3 * tile_op + (_k(c, "sfpu_heavy", arch) if kind != "reduce" else 0.0)
    w.extra += rows_pc * per_row_ops + _k(c, "scalar_fill", arch)
    w.dram_io(op)
    w.flops = float(a.elements) * passes
    return w


# ----------------------------------------------------------------------------- op families of 2025-2026 models


def _grid_sample(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """GridSample (bilinear): per output point, four input sticks gathered and blended.

    tt-metal ``pool/grid_sample/device/kernels/grid_sample_reader_common.hpp``
    (``process_grid_point``): per grid point the reader issues the four corner
    sticks' reads (``C x bytes`` each) and waits once (``noc_async_read_barrier``);
    a grid stick (one point, or ``points`` with ``batch_output_channels``) is read
    with a wait of its own.  The compute kernel is the pool's reduction
    (``compute_grid_sample.cpp``: the four weighted sticks summed per channel
    block), ``pool_stick`` cycles per stick and 64-channel block.  Points split
    over the cores; the reader, compute and writer pipeline per point.
    """
    a = op.inputs[0]
    grid = op.inputs[1] if len(op.inputs) > 1 else None
    out = op.outputs[0]
    channels = a.padded[-1]
    stick = channels * _bpe(a)
    grid_rows = prod(grid.padded[:-1]) if grid is not None else out.rows
    per_point = 6 if op.attrs.get("use_precomputed_grid") else 2
    points_per_row = max(1, grid.shape[-1] // per_point) if grid is not None else 1
    points = grid_rows * points_per_row
    cores = max(1, op.cores)
    w = _Work(units=max(1, _cdiv(points, cores)))
    grid_read = _stick_read(hw, c, grid, page_bytes(grid)) / points_per_row if grid is not None else 0.0
    w.read = _stick_read(hw, c, a, stick) + _xfer(hw, 3, stick) + grid_read
    w.compute = 4 * _cdiv(channels, 64) * _k(c, "pool_stick", op.arch)
    if not _local(out):
        w.write = _xfer(hw, 1, stick)
    w.dram_io(op, read_bytes={0: min(a.bytes, 4.0 * points * stick)})
    w.flops = 8.0 * points * channels
    return w


def _group_norm(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """GroupNorm: per core, every group's tiles go through the kernel's passes; per group a cross-core reduce.

    tt-metal ``normalization/groupnorm/device/kernels/compute/groupnorm_sharded_v2.cpp``:
    for each batch and group, over the ``block_h x block_w`` tiles the group's
    channels span (a group narrower than a tile still costs whole tiles): mask,
    accumulate E[x], subtract E[x], re-mask, square, scale by 1/sqrt(Var + eps),
    add into the output (7 tile ops, ``eltwise_tile`` each); per group two
    single-tile REDUCE_SCALARs and a global one (3 tile ops), one rsqrt
    (``sfpu_heavy``), and two cross-core reductions of the partial sums: the
    multicast sender (``reader_mcast_sender_unary_sharded_gn_v2.cpp``) reads
    one partial tile from each core sharing the group's rows (all the cores
    of a height-sharded or interleaved input, the row shards of a
    block-sharded one), a remote L1 read and wait each.  Row-major input is tilized and
    the output untilized on the core (``tilize_tile`` / ``untilize_tile``); a sharded
    input held in DRAM is streamed tile by tile (latency + transfer per tile).
    An interleaved input runs the non-sharded kernels (``reader_mcast_sender_unary_gn.cpp``,
    ``writer_unary_gn_rm_gb.cpp``): per group three passes over the group's tiles plus a
    re-read of its output tiles, each read waited for (Welford: the block read twice), and
    the group's tiles written per group.
    """
    a = op.inputs[0]
    out = op.outputs[0]
    arch = op.arch
    cores = max(1, op.cores)
    notes: list[str] = []
    groups = op.attrs.get("num_groups")
    if not groups:
        groups = 32
        notes.append("GroupNorm num_groups not given: 32 assumed")
    channels = a.shape[-1]
    group_w = max(1, channels // groups)
    # the input's shard (the output's, which the profiler's attributes give, when the input's is not known)
    shard = a.shard_shape if a.sharded and a.shard_shape else (out.shard_shape if a.sharded and out.sharded else None)
    if shard:
        rows_pc, cols_pc = shard
    else:
        rows_pc, cols_pc = _cdiv(a.rows, cores), a.padded[-1]
    block_h = _cdiv(rows_pc, TILE)
    groups_pc = max(1, min(groups, _cdiv(groups * cols_pc, max(1, a.padded[-1]))))
    span = _cdiv(group_w, TILE) + (1 if group_w % TILE and TILE % group_w else 0)
    tile_groups = block_h * groups_pc * span
    tile_op = _k(c, "eltwise_tile", arch)
    tiles_pc = block_h * _cdiv(cols_pc, TILE)
    w = _Work(units=1, notes=notes)
    w.compute = tile_groups * 7 * tile_op + groups_pc * (3 * tile_op + _k(c, "sfpu_heavy", arch))
    # Per group two cross-core reductions (E[x], Var): the multicast sender reads one partial tile from each
    # core sharing the group's rows (a remote L1 read and wait each) and multicasts the result back.
    if a.memory_layout == "block_sharded" and shard:
        group_cores = max(1, _cdiv(a.rows, shard[0]))
    else:
        group_cores = cores
    gather = group_cores * (hw.l1_latency_cycles + _xfer(hw, 1, tile_bytes(a))) if group_cores > 1 else 0.0
    w.extra = groups_pc * 2 * gather
    if a.layout != "tile":
        w.compute += tiles_pc * (_k(c, "tilize_tile", arch) + _k(c, "untilize_tile", arch))
    if a.sharded:
        if not _local(a):
            w.read = tiles_pc * (_latency(hw, a) + _xfer(hw, 1, tile_bytes(a)))
        if not _local(out):
            w.write = tiles_pc * _xfer(hw, 1, tile_bytes(out))
    else:
        # Interleaved input: the GroupNormMultiCoreProgramConfig kernels (reader_mcast_sender_unary_gn.cpp and
        # its receiver) read tile by tile, each read waited for (noc_async_read_barrier).  Two-pass (mean and
        # variance, then normalize) reads each group's block of tiles three times (num_reads_of_input = 3) and,
        # on the last pass, re-reads the output tiles written for the groups before it (cb_reread_out), 4
        # reads per tile a group spans; the writer (writer_unary_gn_rm_gb.cpp) writes a group's tiles per group.
        # Welford (use_welford) reads the core's whole block twice (stats, then normalize).
        reads = 2 * tiles_pc if op.attrs.get("use_welford") else 4 * tile_groups
        w.read = reads * (_latency(hw, a) + _xfer(hw, 1, tile_bytes(a)))
        w.write = (tiles_pc if op.attrs.get("use_welford") else tile_groups) * _xfer(hw, 1, tile_bytes(out))
    w.core = max(w.read, w.compute, w.write)
    w.dram_io(op)
    w.flops = 10.0 * a.elements
    return w


def _sdpa(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """Scaled dot-product attention (flash attention; decode, joint and ring-joint variants).

    tt-metal ``transformer/sdpa/device/kernels/compute/sdpa.cpp`` (and
    ``ring_joint_sdpa``): each core takes (batch, head, Q chunk) units; per unit
    it streams the K / V chunks (``k_chunk`` rows; causal: only those at or
    before the Q chunk, on average half) from DRAM, and per (Q chunk, K chunk)
    computes ``Q K^T`` (``qt x kt x dqk_t`` tile products) and ``P V``
    (``qt x kt x dv_t``) on the matrix engine (``mm_cycles_per_pass`` x
    fidelity passes) and an online softmax over the ``qt x kt`` score tiles
    (5 tile ops: the row max, the fused subtract-and-exp, the row sum, two
    rescales).  The exp is the SFPU's fast approximation whatever the compute
    config says (``sdpa/device/kernels/compute/compute_common.hpp``:
    ``sub_exp_block_bcast_cols_inplace`` instantiates ``exp_tile<true>``), a
    few SFPU instructions a row, not the accurate exp ``sfpu_exp`` measures.  The
    reader's K / V transfer overlaps the compute (double-buffered chunks).
    Q = input 0; K and V: the inputs with Q's and the output's head dim and the
    longest sequence (the gathered K / V of a ring), told apart by position (V is
    read too when it has K's type; V is K itself only when no other input has the
    output's head dim: multi-latent attention reads V out of K).  ``attrs["matmuls"]``: matmuls per (Q chunk, K chunk) pair
    when not the forward's 2 (tt-train's backward programs: 4 for grad K / V, 3 for grad Q; ops/tt_train.py);
    ``attrs["stream_share"]``: the reader's stream per pair over the forward's K and V (tt-train's grad K / V
    program streams Q, dO and O past each K row: 3 / 2).  Every output in DRAM is written once.
    Chunk sizes: the program
    config's, else 32 rows for decode (Q of one row) and 256 otherwise (noted).
    """
    q = op.inputs[0]
    out = op.outputs[0]
    arch = op.arch
    notes: list[str] = []
    dqk, dv = q.padded[-1], out.padded[-1]
    # Operand roles by position, not identity: inputs of one type may be one shared object.
    rest = [i for i, t in enumerate(op.inputs) if i > 0 and len(t.padded) >= 2]
    ks = [i for i in rest if op.inputs[i].padded[-1] == dqk]
    ki = max(ks, key=lambda i: op.inputs[i].padded[-2]) if ks else None
    vs = [i for i in rest if op.inputs[i].padded[-1] == dv and i != ki]
    vi = max(vs, key=lambda i: op.inputs[i].padded[-2]) if vs else ki
    k = op.inputs[ki] if ki is not None else None
    v = op.inputs[vi] if vi is not None else None
    v_read = vi is not None and vi != ki  # V is K itself only when no other input has the output's head dim (MLA)
    if k is None:
        raise UnmodeledDeviceOp(f"{op.op_code} without a K input of Q's head dim {dqk}")
    sq, sk = q.padded[-2], k.padded[-2]
    heads_q = prod(q.padded[:-2])
    qc = op.attrs.get("q_chunk") or (TILE if sq <= TILE else 256)
    kc = op.attrs.get("k_chunk") or 256
    if not op.attrs.get("q_chunk") or not op.attrs.get("k_chunk"):
        notes.append(f"SDPA chunk sizes not given: q_chunk {qc}, k_chunk {kc} assumed")
    qc, kc = min(qc, max(TILE, sq)), min(kc, max(TILE, sk))
    units = heads_q * _cdiv(sq, qc)
    k_chunks = _cdiv(sk, kc)
    causal_share = 0.5 + 0.5 / k_chunks if op.attrs.get("is_causal") else 1.0
    pairs = _cdiv(units, max(1, op.cores)) * max(1.0, k_chunks * causal_share)
    qt, kt = _cdiv(qc, TILE), _cdiv(kc, TILE)
    passes = _fidelity_passes(op, notes)
    mm = _k(c, "mm_cycles_per_pass", arch) * passes
    tile_op = _k(c, "eltwise_tile", arch)
    w = _Work(units=max(1.0, pairs), notes=notes)
    mm_share = float(op.attrs.get("matmuls") or 2) / 2  # matmuls per pair over the forward's Q K^T and P V
    w.compute = qt * kt * (_cdiv(dqk, TILE) + _cdiv(dv, TILE)) * mm * mm_share + qt * kt * 5 * tile_op
    share = float(op.attrs.get("stream_share") or 1.0)  # the reader's stream per pair over the forward's
    kv_tiles = kt * (_cdiv(dqk, TILE) + (_cdiv(dv, TILE) if v_read else 0)) * share
    w.read = _latency(hw, k) + _xfer(hw, kv_tiles, tile_bytes(k))
    w.write = 0.0 if _local(out) else _xfer(hw, qt * _cdiv(dv, TILE), tile_bytes(out)) / max(1.0, k_chunks * causal_share)
    kv_bytes = units * causal_share * share * (k.bytes / max(1, prod(k.padded[:-2])) + (
        v.bytes / max(1, prod(v.padded[:-2])) if v_read else 0.0))
    w.dram_reads.append((q.bytes if q.in_dram else 0.0, page_bytes(q)))
    if k.in_dram:
        w.dram_reads.append((kv_bytes, page_bytes(k)))
    for t in op.outputs:
        if t.in_dram:
            w.dram_writes.append((t.bytes, page_bytes(t)))
    w.flops = 2.0 * heads_q * sq * sk * (dqk + dv) * causal_share * mm_share
    return w


def _indexer_score(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """The DSA lightning indexer (``IndexerScoreDeviceOperation``): ``score[s, t] = sum_h relu(q_h[s] . k[t]) w[s, h]``.

    tt-metal ``experimental/indexer_score/device/kernels/compute_indexer_score.cpp``: each core takes
    (q tile row, k tile) cells of the ``Sq / 32 x T / 32`` output (the banded schedule:
    :func:`ttanalyze.ops.indexer_score.core_rectangle`); per cell and head a ``Dt``-tile dot product on
    the matrix engine (``mm_cycles_per_pass`` x fidelity passes per tile), the ReLU and the weighted
    accumulation (2 tile ops), the causal mask once (1 tile op); the cell's k tiles are read (multicast
    down the column, overlapped with compute) and its output tile written.  Inputs: q ``[1, Hi, Sq, D]``,
    k ``[1, 1, T, D]``, weights.
    """
    q, k = op.inputs[0], op.inputs[1]
    out = op.outputs[0]
    notes: list[str] = []
    hi, sq, d = q.padded[1], q.padded[2], q.padded[3]
    t = k.padded[2]
    dt = _cdiv(d, TILE)
    cells = _cdiv(sq, TILE) * _cdiv(t, TILE)
    passes = _fidelity_passes(op, notes)
    w = _Work(units=max(1, _cdiv(cells, max(1, op.cores))), notes=notes)
    w.compute = hi * (dt * _k(c, "mm_cycles_per_pass", op.arch) * passes + 2 * _k(c, "eltwise_tile", op.arch)) \
        + _k(c, "eltwise_tile", op.arch)
    w.read = _latency(hw, k) + _xfer(hw, dt, tile_bytes(k))
    w.write = 0.0 if _local(out) else _latency(hw, out) + _xfer(hw, 1, tile_bytes(out))
    for x in op.inputs[:3]:
        if x.in_dram:
            w.dram_reads.append((x.bytes, page_bytes(x)))
    if out.in_dram:
        w.dram_writes.append((out.bytes, page_bytes(out)))
    w.flops = 2.0 * hi * sq * t * d
    return w


def collective_link_load(n: int, topology: str) -> tuple[int, int]:
    """(slices through the busiest link direction, fabric steps) of a collective over ``n`` devices, a slice being
    one device's share (an all-gather's input, a reduce-scatter's output).

    tt-metal ``ccl::get_forward_backward_line_mcast_distance`` (ttnn/cpp/ttnn/operations/ccl/ccl_common.cpp,
    d80d9482) gives each device's targets per direction: on a line, device ``i`` reaches ``n - 1 - i`` devices
    forward and ``i`` backward, so the link into an end device carries the other ``n - 1`` slices and the farthest
    target is ``n - 1`` hops away; on a ring, ``ceil((n - 1) / 2)`` forward and the rest backward, so each link
    direction carries ``ceil((n - 1) / 2)`` slices over as many hops.  The reduce-scatter runs the same pattern
    in reverse (its slices flow toward their owner).
    """
    if n < 2:
        return 0, 0
    if topology == "ring":
        half = -(-(n - 1) // 2)
        return half, half
    return n - 1, n - 1


def _collective(op: DeviceOp, hw: Hardware, c: Constants, kind: str) -> _Work:
    """All-gather / reduce-scatter / all-reduce / all-broadcast over ``ring_size`` devices on ``num_links`` links.

    tt-metal ``ccl/all_gather``, ``ccl/reduce_scatter`` (``reduce_scatter_minimal_async``'s ring and line builders)
    and ``ccl/all_broadcast``: each device's slice (all-gather: its input, ``1/N`` of the output; reduce-scatter:
    ``1/N`` of its input; all-broadcast: its whole input, sent to every other device) crosses the fabric; the time is
    the busiest link direction's bytes (:func:`collective_link_load`: ``N - 1`` slices on a line, ``ceil((N - 1) /
    2)`` on a ring) at the link's peak [eth] (:mod:`hardware`) over ``num_links`` links, plus one DRAM latency per
    fabric step; reduce-scatter adds the received slices on the worker cores (``eltwise_tile`` per tile); the
    workers read and write the tensors in DRAM (the usual DRAM roof).  All-reduce (by name only: modeled programs
    cost their reduce-scatter and all-gather steps) = reduce-scatter + all-gather.  The topology is the one the
    program model runs (``topology`` of its params), else a line (noted); ring size 2 and 1 link when the
    attributes do not say (noted).  Point-to-point (tt-metal ``ccl/point_to_point``: the sender's tensor written
    into the receiver's over the fabric) sends the whole input once, one hop, no compute.
    """
    a = op.inputs[0]
    out = op.outputs[0]
    notes: list[str] = []
    n = op.attrs.get("ring_size")
    if kind == "point_to_point":
        n = 2  # one hop: the whole tensor once
    if not n:
        n = 2
        notes.append("CCL ring_size not given: 2 devices assumed")
    links = op.attrs.get("num_links") or 1
    if not op.attrs.get("num_links"):
        notes.append("CCL num_links not given: 1 link assumed")
    topology = {"linear": "line"}.get(op.attrs.get("topology"), op.attrs.get("topology"))  # a trace's Topology::Linear
    if topology not in ("ring", "line"):
        topology = "line"
        if kind != "point_to_point":
            notes.append("CCL topology not given: a line assumed")
    slices, steps = collective_link_load(n, topology)
    if kind == "all_broadcast":
        slice_bytes = a.bytes
    elif kind == "all_gather":
        slice_bytes = out.bytes / n
    else:
        slice_bytes = a.bytes / n
    moved = slice_bytes * slices
    if kind == "all_reduce":
        moved, steps = 2 * moved, 2 * steps
    if kind == "point_to_point":
        moved, steps = a.bytes, 1
    w = _Work(units=1, notes=notes)
    eth_ns = moved / (links * hw.eth_link_bytes_per_s / 1e9)
    w.write = eth_ns / hw.ns_per_cycle + steps * hw.dram_latency_cycles
    if kind in ("reduce_scatter", "all_reduce"):
        w.compute = _cdiv(a.tiles * (n - 1) / n, max(1, op.cores)) * _k(c, "eltwise_tile", op.arch)
    w.core = max(w.write, w.compute)
    w.dram_io(op)
    return w


def _moe_experts(op: DeviceOp, hw: Hardware, c: Constants) -> _Work:
    """A fused MoE expert FFN (``moe_gpt``, ``moe_compute``): a roofline of its matmuls, not a pipeline model.

    The op model gives (``ttanalyze.ops.moe_compute``) ``moe_flops``, the FLOPs of every 32-token chunk of every
    local expert against the W0/W1 and W2 blocks the weights hold, ``moe_weight_bytes``, the weights read once per
    chunk, and ``moe_matmul_cores``, the ring that computes them.  Core time: the chunks' tile matmuls
    (``flops / 65,536``) split over the ring, ``mm_cycles_per_pass`` each at the op's fidelity; DRAM: the weights
    (8 KB transactions: 14 Bfp4 tiles, moe_gpt_ring_common.h) and a DRAM input.  The tilize, the ring exchange and
    the combine are not costed.

    Raises:
        UnmodeledDeviceOp: the figures are missing.
    """
    flops, ring = op.attrs.get("moe_flops"), op.attrs.get("moe_matmul_cores")
    if not flops or not ring:
        raise UnmodeledDeviceOp(f"{op.op_code} without its matmul figures")
    notes = ["fused MoE expert FFN: a roofline of its matmuls (tilize, ring exchange and combine not costed)"]
    passes = _fidelity_passes(op, notes)
    w = _Work(units=1, notes=notes)
    w.compute = flops / (2 * 32 ** 3) / ring * _k(c, "mm_cycles_per_pass", op.arch) * passes
    w.core = w.compute
    w.dram_reads.append((float(op.attrs.get("moe_weight_bytes") or 0.0), 8192.0))
    x = op.inputs[0]
    if x.in_dram:
        w.dram_reads.append((x.bytes, page_bytes(x)))
    w.flops = flops
    return w


def _tile_pass(op: DeviceOp, hw: Hardware, c: Constants, kind: str) -> _Work:
    """Tile-streaming ops: scans, KV-cache updates, split, reduce over N / C, batch norm, sort, gather / scatter.

    * scan (``AccumulationDeviceOperation``: cumsum / cumprod along a dim;
      ``IntImgDeviceOperation``): per tile a read (wait), the running
      accumulation (``eltwise_tile``; the integral image two: rows and columns),
      a write (tt-metal ``reduction/accumulation/device/kernels``);
    * KV-cache update / fill: the new tokens' tiles read (wait) and written into
      the cache (``kv_cache/device/kernels/dataflow``), no compute;
    * split: each output tile read (wait) and written;
    * reduce over N / C (``FastReduceNCDeviceOperation``): each input tile read
      (wait) and added (``eltwise_tile``), the output written once per
      ``C`` input tiles (``moreh``-style ``reduce_nc`` kernels);
    * fill of the tile padding (``FillPadDeviceOperation``): the edge tiles of every
      ``[H, W]`` slice read (wait), masked (``eltwise_tile``) and written in place.
    """
    a = op.inputs[0] if op.inputs else op.outputs[0]
    out = op.outputs[0]
    cores = max(1, op.cores)
    tile_op = _k(c, "eltwise_tile", op.arch)
    if kind == "reduce_nc":
        n_tiles = _cdiv(a.tiles, cores)
        w = _tile_stream(op, hw, c, tile_op, a, n_tiles)
        w.write *= out.tiles / max(1, a.tiles)
    elif kind == "cache_update":
        src = op.inputs[1] if len(op.inputs) > 1 else a
        w = _tile_stream(op, hw, c, 0.0, src, _cdiv(src.tiles, cores))
        w.dram_io(op, read_bytes={0: 0.0}, write_bytes=src.bytes)
        return w
    elif kind == "split":
        total = sum(t.tiles for t in op.outputs)
        w = _tile_stream(op, hw, c, 0.0, a, _cdiv(total, cores))
    elif kind == "fill_pad":
        # fill_implicit_tile_padding (data_movement/fill_pad/device/fill_pad_program_factory.cpp): only the tiles on
        # the right and bottom edge of each [H, W] slice are read, masked (one tile op) and written back in place
        h = a.shape[-2] if len(a.shape) >= 2 else 1
        ht, wt = _cdiv(h, TILE), _cdiv(a.shape[-1], TILE)
        slices = max(1, a.elements // max(1, a.padded[-1] * (a.padded[-2] if len(a.padded) >= 2 else 1)))
        edge = (ht if a.shape[-1] % TILE else 0) + (wt if h % TILE else 0) - (1 if a.shape[-1] % TILE and h % TILE else 0)
        w = _tile_stream(op, hw, c, tile_op, a, _cdiv(max(1, slices * edge), cores))
    elif kind == "batch_norm":
        # (x - mean) * rsqrt(var + eps) * weight + bias (normalization/batch_norm/device/kernels/compute/
        # batch_norm_kernel.cpp): the stats are per-channel tiles read once per channel; 4 FPU tile ops per tile.
        w = _tile_stream(op, hw, c, 4 * tile_op, a, _cdiv(out.tiles, cores))
    elif kind in ("sort", "sampling"):
        # Bitonic sort along the last dim (data_movement/sort/device/kernels/compute/sort_single_row_multi_core.cpp):
        # an in-tile sort of each tile (SFPU, ``sfpu_heavy``), then log2(Wt) (log2(Wt) + 1) / 2 merge stages,
        # each passing every tile of the row through a compare-and-swap (2 tile ops).  Sampling runs the same
        # top-k sort on each of its cores (one per user) over the whole [32, W] tile row of values
        # (reduction/sampling/device/kernels/compute/sampling.cpp), so no core gets a share: every core sorts Wt tiles.
        wt = _cdiv(a.padded[-1], TILE)
        lg = max(0, (wt - 1).bit_length())
        stages = lg * (lg + 1) // 2
        per_core = a.tiles if kind == "sampling" else _cdiv(a.tiles, cores)
        w = _tile_stream(op, hw, c, _k(c, "sfpu_heavy", op.arch) + stages * 2 * tile_op, a, per_core)
        w.write *= len(op.outputs)
    elif kind == "gather":
        # Gather / scatter along the last dim (data_movement/gather|scatter/device/kernels): per output tile the
        # index tile and the input row's Wt tiles are read (a wait each), the elements picked on the SFPU
        # (one tile op per input tile).
        idx = op.inputs[1] if len(op.inputs) > 1 else a
        wt = _cdiv(a.padded[-1], TILE)
        w = _tile_stream(op, hw, c, wt * tile_op, a, _cdiv(out.tiles, cores))
        w.read = (1 + wt) * (_latency(hw, a) + _xfer(hw, 1, tile_bytes(a))) if not _local(a) else \
            _latency(hw, idx) + _xfer(hw, 1, tile_bytes(idx))
    else:  # scan
        ops = 2 if op.op_code == "IntImgDeviceOperation" else 1
        w = _tile_stream(op, hw, c, ops * tile_op, a, _cdiv(out.tiles, cores))
    w.dram_io(op)
    if kind == "split":
        w.dram_writes = [(t.bytes, page_bytes(t)) for t in op.outputs if t.in_dram]
    return w


# ----------------------------------------------------------------------------- predict


def _dram_ns(w: _Work, hw: Hardware, c: Constants, arch: str) -> float:
    """DRAM time: ``max(R / e_read, W / e_write, (R + W) / e_mixed) / peak`` with transaction inflation.

    Ops whose reads and writes happen in sequence (``w.dram_serial``):
    ``(R / e_read + W / e_write) / peak / dram_serial``.
    """
    s0 = _k(c, "dram_txn_bytes", arch)
    r = sum(b * (s + s0) / s for b, s in w.dram_reads if s > 0)
    wr = sum(b * (s + s0) / s for b, s in w.dram_writes if s > 0)
    if r + wr <= 0:
        return 0.0
    peak = hw.dram_bytes_per_ns
    if w.dram_serial > 0:
        return (r / _k(c, "dram_read_eff", arch) + wr / _k(c, "dram_write_eff", arch)) / peak / w.dram_serial
    return max(r / (_k(c, "dram_read_eff", arch) * peak), wr / (_k(c, "dram_write_eff", arch) * peak),
               (r + wr) / (_k(c, "dram_mixed_eff", arch) * peak))


def work(op: DeviceOp, hw: Hardware, constants: Constants) -> _Work:
    """The op's :class:`_Work` (per-core stages, DRAM traffic), by family.

    Raises:
        UnknownDeviceOp: the op code is not modeled.
        UnmodeledDeviceOp: a known op in a form the model cannot cost (no output,
            a core count outside 1..MAX_CORES, an empty tensor, a reduce over a
            leading dim, a matmul without two operands).
    """
    kind = OP_KINDS.get(op.op_code)
    if kind is None:
        raise UnknownDeviceOp(op.op_code)
    if not op.outputs:
        raise UnmodeledDeviceOp(f"{op.op_code} without an output tensor")
    if not 1 <= op.cores <= MAX_CORES:
        raise UnmodeledDeviceOp(f"{op.op_code} on {op.cores} cores (expected 1 to {MAX_CORES:,})")
    if any(0 in t.padded or 0 in t.shape for t in (*op.inputs, *op.outputs)):
        raise UnmodeledDeviceOp(f"{op.op_code} with an empty tensor (a dim of 0)")
    if kind in ("unary", "binary", "typecast", "copy"):
        w = _eltwise(op, hw, constants, kind)
    elif kind == "fused_update":
        w = _fused_update(op, hw, constants)
    elif kind == "matmul":
        w = _matmul(op, hw, constants)
    elif kind == "moe_experts":
        w = _moe_experts(op, hw, constants)
    elif kind == "conv":
        w = _conv(op, hw, constants)
    elif kind == "halo":
        w = _halo(op, hw, constants)
    elif kind == "pool":
        w = _pool(op, constants)
    elif kind in ("norm", "softmax", "reduce"):
        w = _norm(op, hw, constants, kind)
    elif kind == "group_norm":
        w = _group_norm(op, hw, constants)
    elif kind == "grid_sample":
        w = _grid_sample(op, hw, constants)
    elif kind == "sdpa":
        w = _sdpa(op, hw, constants)
    elif kind == "indexer_score":
        w = _indexer_score(op, hw, constants)
    elif kind in ("all_gather", "reduce_scatter", "all_reduce", "point_to_point", "all_broadcast"):
        w = _collective(op, hw, constants, kind)
    elif kind in ("scan", "cache_update", "split", "reduce_nc", "batch_norm", "sort", "sampling", "gather", "fill_pad"):
        w = _tile_pass(op, hw, constants, kind)
    else:
        w = _data_movement(op, hw, constants, kind)
    if op.attrs.get("cores_assumed"):
        w.notes.append(f"{op.op_code}: its program is not modeled; the whole grid ({op.cores} cores) assumed")
    for dtype in sorted({t.dtype for t in (*op.inputs, *op.outputs)} - set(ELEMENT_BYTES)):
        w.notes.append(f"dtype {dtype}: {DEFAULT_ELEMENT_BYTES:g} bytes per element assumed")
    return w


def predict(op: DeviceOp, hw: Hardware, constants: Constants | None = None) -> Estimate:
    """Predict one device op's kernel duration (ns) and what bounds it.

    ``ns = launch + max(dram, core)`` (module docstring).  ``terms`` holds
    ``overhead`` (launch), ``dram`` and the busiest core's time apportioned by
    stage work: ``noc`` (read and write stages), ``compute`` and ``per_core``
    (work outside the pipeline), with ``noc + compute + per_core`` the core
    time, all ns.
    ``bound``: ``DRAM`` when the DRAM time exceeds the core time, else the
    largest core term (``NoC``, ``compute``, ``per-core``), or ``overhead`` when
    the launch exceeds both; `` (few cores)`` is appended when the op runs on
    fewer than a quarter of the grid and is not DRAM- or overhead-bound.

    Args:
        op: the device op.
        hw: the device (:func:`ttanalyze.cost.hardware.for_device`).
        constants: fitted constants (default: the packaged ``constants.json``).

    Raises:
        UnknownDeviceOp: the op code is not modeled.
        UnmodeledDeviceOp: a known op in a form the model cannot cost.
    """
    c = constants if constants is not None else load()
    w = work(op, hw, c)
    ns_cycle = hw.ns_per_cycle
    n = max(1.0, w.units)
    core_cycles = (w.core if w.core is not None else _pipeline(n, w.read, w.compute, w.write)) + w.extra
    core = core_cycles * ns_cycle
    # The pipelined stages share the core time net of the work outside the pipeline, by their serial work.
    serial = n * (w.read + w.compute + w.write)
    share = (core_cycles - w.extra) * ns_cycle / serial if serial > 0 else 0.0
    noc = n * (w.read + w.write) * share
    compute = n * w.compute * share
    dram = _dram_ns(w, hw, c, op.arch)
    launch = _k(c, "launch_ns", op.arch)
    ns = launch + max(dram, core)
    terms = {"overhead": launch, "dram": dram, "noc": noc, "compute": compute, "per_core": w.extra * ns_cycle}
    if dram >= core:
        bound = "DRAM"
    else:
        bound = {"noc": "NoC", "compute": "compute", "per_core": "per-core"}[
            max(("noc", "compute", "per_core"), key=lambda k: terms[k])]
    if launch > max(dram, core):
        bound = "overhead"
    if bound not in ("DRAM", "overhead") and op.cores * 4 < op.grid_cores:
        bound += " (few cores)"
    dram_bytes = sum(b for b, _ in w.dram_reads) + sum(b for b, _ in w.dram_writes)
    return Estimate(ns=ns, bound=bound, terms=terms, dram_bytes=dram_bytes, flops=w.flops, cores=op.cores,
                    notes=tuple(dict.fromkeys(w.notes)))


__all__ = ["OP_KINDS", "FAMILY", "MatmulPlan", "UnknownDeviceOp", "UnmodeledDeviceOp", "family", "matmul_plan",
           "page_bytes", "pages", "predict", "reduce_dim", "tile_bytes", "unary_name", "work"]
