"""TTNN IR ops as device operations, and what they cost.

Each IR op runs the device programs its CB model found (:mod:`ttanalyze.programs`:
``Analysis.programs``); each program is one tt-metal device operation, the
level the device profiler times and :mod:`ttanalyze.cost.model` predicts.  The
program's factory names its device operation (:data:`OP_CODES`).  A conv2d or a
pool also runs the sliding-window programs around its own (sharding the input,
the halo gather, the move of the halo output, unsharding the output), as the
profiler shows them (``HaloDeviceOperation``, ``MoveDeviceOperation``,
``InterleavedToShardedDeviceOperation``...; tt-metal ``conv2d.cpp`` /
``pool2d.cpp``, and the BH DeepLabV3 trace in ``measurements/perf``).

Tensors: a program's own inputs and outputs where its model records them (the
steps of a composite op).  Otherwise a single program takes the IR op's
operands and results; in a chain of programs the first takes the operands, the
last writes the results, a program reads what the one before it wrote and
writes what the next one reads (a reduce's output is its input with the
reduced dims set to 1); a tensor none of these give leaves the op ``unknown``.  Math
fidelity: the op's ``compute_config``, else ttnn's default (see
:func:`math_fidelity`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..analysis import Analysis
from ..arch import Arch
from ..ir.attrs import ComputeKernelConfig, MatmulProgramConfig
from ..ir.model import Op
from ..ops.cb import CBModelError, ProgramModel
from ..ops.tensors import Tensor, tensor_of
from .constants import Constants
from .constants import load as load_constants
from .device_op import DeviceOp, Estimate, TensorInfo
from .hardware import Hardware, for_device
from .model import UnknownDeviceOp, UnmodeledDeviceOp, predict

# Program factory (ProgramModel.factory) -> the device operation's OP CODE in the profiler, by prefix.
OP_CODES: tuple[tuple[str, str], ...] = (
    ("Matmul", "Matmul"),
    ("SparseMatmulDeviceOperation", "SparseMatmulDeviceOperation"),
    ("BinaryNgDeviceOperation", "BinaryNgDeviceOperation"),
    ("UnaryDeviceOperation", "UnaryDeviceOperation"),
    ("TernaryDeviceOperation", "TernaryDeviceOperation"),
    ("TilizeWithValPadding", "TilizeWithValPaddingDeviceOperation"),
    ("Tilize", "TilizeDeviceOperation"),
    ("UntilizeWithUnpadding", "UntilizeWithUnpaddingDeviceOperation"),
    ("UntilizeWithHalo", "HaloDeviceOperation"),
    ("UntilizeCodegen", "UntilizeDeviceOperation"),
    ("Untilize", "UntilizeDeviceOperation"),
    ("TypecastProgramFactory", "TypecastDeviceOperation"),
    ("CopyDeviceOperation", "CopyDeviceOperation"),
    ("InterleavedToSharded", "InterleavedToShardedDeviceOperation"),
    ("ShardedToInterleaved", "ShardedToInterleavedDeviceOperation"),
    ("Reshard", "ReshardDeviceOperation"),
    ("ReshapeView", "ReshapeDeviceOperation"),
    ("Transpose", "TransposeDeviceOperation"),
    ("PermuteDeviceOperation", "PermuteDeviceOperation"),
    ("Slice", "SliceDeviceOperation"),
    ("Concat", "ConcatDeviceOperation"),
    ("PadRm", "PadDeviceOperation"),
    ("PadTile", "PadDeviceOperation"),
    ("FillPad", "FillPadDeviceOperation"),
    ("Repeat", "RepeatDeviceOperation"),
    ("Embeddings", "EmbeddingsDeviceOperation"),
    ("ReduceDeviceOperation", "ReduceDeviceOperation"),
    ("FastReduceNC", "FastReduceNCDeviceOperation"),
    ("SoftmaxDeviceOperation", "SoftmaxDeviceOperation"),
    ("LayerNormDeviceOperation", "LayerNormDeviceOperation"),
    ("GroupNorm", "GroupNormDeviceOperation"),
    ("Conv2d", "Conv2dDeviceOperation"),
    ("Conv3d", "Conv3dDeviceOperation"),
    ("Pool2D", "Pool2D"),
    ("Upsample", "UpsampleOperation"),
    ("ArgMaxNC", "ArgMaxNCDeviceOperation"),
    ("ArgMax", "ArgMaxDeviceOperation"),
    ("TopKDeviceOperation", "TopKDeviceOperation"),
    ("TopkLargeIndices", "TopkLargeIndicesDeviceOperation"),
    ("TopkRoutePrep", "TopkRoutePrepDeviceOperation"),
    ("TopkRouteFinish", "TopkRouteFinishDeviceOperation"),
    ("ScaledDotProductAttentionDecode", "SdpaDecodeDeviceOperation"),
    ("SdpaDecode", "SdpaDecodeDeviceOperation"),
    ("SDPAForward", "SDPAForwardDeviceOperation"),  # tt-train (ttml) sdpa_fw / sdpa_bw / adamw: ops/tt_train.py
    ("SDPABackwardKV", "SDPABackwardKVDeviceOperation"),
    ("SDPABackwardQ", "SDPABackwardQDeviceOperation"),
    ("AdamW", "AdamWDeviceOperation"),
    ("ScaledDotProductAttention", "SDPAOperation"),
    ("SDPA", "SDPAOperation"),
    ("FlashMLA", "FlashMLADecodeDeviceOperation"),
    ("RotaryEmbeddingLlama", "RotaryEmbeddingLlamaDeviceOperation"),
    ("RotaryEmbedding", "RotaryEmbeddingDeviceOperation"),
    ("NlpCreateHeadsDecode", "NlpCreateHeadsDecodeDeviceOperation"),
    ("NLPCreateQKVHeadsDecode", "NlpCreateHeadsDecodeDeviceOperation"),
    ("NLPCreateHeadsDecode", "NlpCreateHeadsDecodeDeviceOperation"),
    ("NlpCreateHeads", "NlpCreateHeadsDeviceOperation"),
    ("NLPCreateHeads", "NlpCreateHeadsDeviceOperation"),
    ("NlpConcatHeadsDecode", "NlpConcatHeadsDecodeDeviceOperation"),
    ("NLPConcatHeadsDecode", "NlpConcatHeadsDecodeDeviceOperation"),
    ("NlpConcatHeads", "NlpConcatHeadsDeviceOperation"),
    ("NLPConcatHeads", "NlpConcatHeadsDeviceOperation"),
    ("PagedUpdateCache", "PagedUpdateCacheDeviceOperation"),
    ("PagedFillCache", "PagedFillCacheDeviceOperation"),
    ("UpdateKVCacheOperation", "UpdateKVCacheOperation"),  # fill_cache / update_cache (kv_cache/device)
    ("UpdateCache", "UpdateCacheDeviceOperation"),
    ("FillCache", "FillCacheDeviceOperation"),
    ("Accumulation", "AccumulationDeviceOperation"),
    ("GridSample", "GridSampleOperation"),
    ("AllGather", "AllGatherAsyncDeviceOperation"),
    ("AllBroadcast", "AllBroadcastDeviceOperation"),  # the composite all_gather's broadcast (ops/ccl_programs.py)
    ("MorehSumOperation::MorehSumNC", "MorehSumNCDeviceOperation"),  # the composite all_reduce's local sum
    ("AllToAllDispatchDeviceOperation", "AllToAllDispatchDeviceOperation"),
    ("AllToAllDispatchMetadataDeviceOperation", "AllToAllDispatchMetadataDeviceOperation"),
    ("SelectiveReduceCombineDeviceOperation", "SelectiveReduceCombineDeviceOperation"),
    ("AllToAllCombineDeviceOperation", "AllToAllCombineDeviceOperation"),
    ("FullDeviceOperation", "FullDeviceOperation"),
    ("MoEGPT", "MoEGPTDeviceOperation"),
    ("MoECompute", "MoEComputeDeviceOperation"),
    ("ReduceScatter", "ReduceScatterMinimalAsyncDeviceOperation"),
    ("AllReduce", "AllReduceAsyncDeviceOperation"),
    ("PointToPoint", "PointToPointDeviceOperation"),
    ("RMSAllGather", "LayerNormDeviceOperation"),  # fused_rms_minimal: a sharded RMS norm pass (+ a stats gather)
    ("BatchNorm", "BatchNormOperation"),
    ("RunningStatistics", "RunningStatistics"),
    ("IndexerScore", "IndexerScoreDeviceOperation"),
    ("Sort", "SortDeviceOperation"),
    ("SamplingDeviceOperation", "SamplingDeviceOperation"),
    ("MoeExpertTokenRemapDeviceOperation", "MoeExpertTokenRemapDeviceOperation"),
    ("GeluBackwardDeviceOperation", "GeluBackwardDeviceOperation"),
    ("TopkRouterGptDeviceOperation", "TopkRouterGptDeviceOperation"),
    ("Gather", "GatherDeviceOperation"),
    ("Scatter", "ScatterDeviceOperation"),
    ("Split", "SplitDeviceOperation"),
    ("DropoutDeviceOperation", "DropoutDeviceOperation"),
    ("RandDeviceOperation", "RandDeviceOperation"),
    ("EmbeddingBackward", "EmbeddingBackwardDeviceOperation"),
    ("LayerNormPreAllGather", "LayerNormPreAllGatherDeviceOperation"),
    ("LayerNormPostAllGather", "LayerNormPostAllGatherDeviceOperation"),
    ("ProdAllDeviceOperation", "ProdAllDeviceOperation"),
    ("ProdNcDeviceOperation", "ProdNcDeviceOperation"),
)

# TTNN IR ops -> the device operation tt-metal runs for them, for ops whose programs the analyzer does not
# model (no CB model): one device op on the IR op's operands and results, on the whole worker grid (noted).
# tt-metal's ttnn entry points (ttnn/cpp/ttnn/operations/transformer/sdpa*, experimental/transformer,
# kv_cache, reduction/accumulation, normalization, experimental/ccl, data_movement/sort|gather|scatter).
NAME_OP_CODES: dict[str, str] = {
    "ttnn.scaled_dot_product_attention": "SDPAOperation",
    "ttnn.chunked_scaled_dot_product_attention": "SDPAOperation",
    "ttnn.flash_mla_prefill": "SDPAOperation",
    "ttnn.scaled_dot_product_attention_decode": "SdpaDecodeDeviceOperation",
    "ttnn.paged_scaled_dot_product_attention_decode": "SdpaDecodeDeviceOperation",
    "ttnn.paged_flash_multi_latent_attention_decode": "FlashMLADecodeDeviceOperation",
    "ttnn.rotary_embedding": "RotaryEmbeddingDeviceOperation",
    "ttnn.rotary_embedding_llama": "RotaryEmbeddingLlamaDeviceOperation",
    "ttnn.nlp_create_qkv_heads": "NlpCreateHeadsDeviceOperation",
    "ttnn.nlp_create_qkv_heads_decode": "NlpCreateHeadsDecodeDeviceOperation",
    "ttnn.split_query_key_value_and_split_heads": "NlpCreateHeadsDeviceOperation",
    "ttnn.nlp_concat_heads": "NlpConcatHeadsDeviceOperation",
    "ttnn.concatenate_heads": "NlpConcatHeadsDeviceOperation",
    "ttnn.nlp_concat_heads_decode": "NlpConcatHeadsDecodeDeviceOperation",
    "ttnn.update_cache": "UpdateCacheDeviceOperation",
    "ttnn.fill_cache": "FillCacheDeviceOperation",
    "ttnn.paged_update_cache": "PagedUpdateCacheDeviceOperation",
    "ttnn.paged_fill_cache": "PagedFillCacheDeviceOperation",
    "ttnn.cumsum": "AccumulationDeviceOperation",
    "ttnn.cumprod": "AccumulationDeviceOperation",
    "ttnn.group_norm": "GroupNormDeviceOperation",
    "ttnn.batch_norm_inference": "BatchNormOperation",
    "ttnn.batch_norm": "BatchNormOperation",
    "ttnn.sort": "SortDeviceOperation",
    "ttnn.gather": "GatherDeviceOperation",
    "ttnn.scatter": "ScatterDeviceOperation",
    "ttnn.grid_sample": "GridSampleOperation",
    "ttnn.all_gather": "AllGatherAsyncDeviceOperation",
    "ttnn.reduce_scatter": "ReduceScatterMinimalAsyncDeviceOperation",
    "ttnn.all_reduce": "AllReduceAsyncDeviceOperation",
    # Engineer dialect-misc's ops (the device operations measured on the mock with ttnn 0.81.1, see
    # measurements/dialect/results_misc.jsonl; conv1d is conv2d over [N, 1, L, C] (tt-metal
    # conv/conv1d/conv1d.cpp), conv_transpose2d runs its conv on the halo'd, stride-dilated input
    # (conv/conv_transpose2d/conv_transpose2d.cpp): one Conv2dDeviceOperation each, costed with their geometry).
    "ttnn.conv1d": "Conv2dDeviceOperation",
    "ttnn.conv_transpose2d": "Conv2dDeviceOperation",
    "ttnn.max_pool2d_with_indices": "Pool2D",
    "ttnn.global_avg_pool2d": "ReduceDeviceOperation",
    "ttnn.prod": "ProdNcDeviceOperation",
    "ttnn.batch_norm_training": "BatchNormOperation",
    "ttnn.embedding_bw": "EmbeddingBackwardDeviceOperation",
    "ttnn.rms_norm_pre_all_gather": "LayerNormPreAllGatherDeviceOperation",
    "ttnn.layer_norm_pre_all_gather": "LayerNormPreAllGatherDeviceOperation",
    "ttnn.layer_norm_post_all_gather": "LayerNormPostAllGatherDeviceOperation",
    "ttnn.dit_rms_norm_unary_fused": "LayerNormDeviceOperation",
    # all_to_all_dispatch sends each token to the devices holding its selected experts along the cluster axis
    # (ccl/all_to_all_dispatch kernels, over the fabric); its dense bound, every token to every device of the
    # axis, is an all-gather of the dispatched [1, B*D, S, H] tensor (ring size: dispatched / input volume).
    "ttnn.all_to_all_dispatch": "AllGatherAsyncDeviceOperation",
    "ttnn.all_reduce_async": "AllReduceAsyncDeviceOperation",
    "ttnn.point_to_point": "PointToPointDeviceOperation",
    # MeshPartitionDeviceOperation::MeshPartition::create_at builds each device's slice program
    # (ccl/mesh_partition/device/mesh_partition_program_factory.cpp)
    "ttnn.mesh_partition": "SliceDeviceOperation",
}

FIDELITIES = {"lofi": "LoFi", "hifi2": "HiFi2", "hifi3": "HiFi3", "hifi4": "HiFi4"}


def op_code(factory: str) -> str | None:
    """The profiler OP CODE of a program factory's device operation, or None when not in :data:`OP_CODES`."""
    return next((code for prefix, code in OP_CODES if factory.startswith(prefix)), None)


def tensor_info(t: Tensor) -> TensorInfo:
    """A model :class:`~ttanalyze.ops.tensors.Tensor` as the cost model's :class:`TensorInfo`."""
    shard = t.mem.shard
    return TensorInfo(tuple(t.shape), tuple(t.padded), t.dtype.name, t.layout, t.mem.buffer_type, t.mem.memory_layout,
                      tuple(shard.shape) if shard else None, shard.grid.num_cores if shard else None)


def math_fidelity(op: Op, op_code_: str, dtypes: list[str], has_program_config: bool, arch: Arch) -> tuple[str, bool]:
    """(math fidelity, fp32 destination accumulation) ttnn runs ``op`` with.

    The IR's ``compute_config`` fields win.  Otherwise, for matmul
    (``matmul_device_operation.cpp`` ``create_matmul_attributes``, tt-metal
    store id 70099303018): HiFi2 without a program config, LoFi with one or with
    bfp8/bfp4 inputs, HiFi4 for f32 inputs (HiFi3 on Wormhole, tt-metal #38306),
    fp32 accumulation for f32 inputs; for the other ops HiFi4 and no fp32
    accumulation unless an input is f32 (ttnn's ``init_device_compute_kernel_config``
    callers for eltwise, normalization, softmax and conv; every such row of the
    measured traces runs HiFi4).
    """
    cc = op.attrs.get("compute_config")
    cc = cc if isinstance(cc, ComputeKernelConfig) else None
    f32 = bool(dtypes) and all(d == "f32" for d in dtypes[:2])
    if op_code_ == "Matmul":
        low = all(d.startswith("bfp_") for d in dtypes[:2]) if len(dtypes) >= 2 else False
        default = "LoFi" if (has_program_config or low) else "HiFi2"
        if f32:
            default = "HiFi3" if arch.name == "wormhole_b0" else "HiFi4"
    else:
        default = "HiFi4"
    fidelity = FIDELITIES.get(str(cc.math_fidelity).lower(), default) if cc and cc.math_fidelity else default
    fp32 = bool(cc.fp32_dest_acc_en) if cc and cc.fp32_dest_acc_en is not None else f32
    return fidelity, fp32


@dataclass
class OpCost:
    """The cost of one IR op.

    ``status``: ``costed`` (every device op predicted), ``no_device_op`` (the op
    runs none: 0 ns), ``unknown`` (a device op the cost model does not know or
    cannot cost in its form, an op whose programs or their tensors are not
    modeled; ``reason`` says which: never guessed).  ``device_ops``/``estimates``
    pair up; a costed op's ``notes`` list the defaults the model assumed.
    """

    op: Op
    status: str
    device_ops: list[DeviceOp] = field(default_factory=list)
    estimates: list[Estimate] = field(default_factory=list)
    reason: str = ""

    @property
    def ns(self) -> float:
        """Predicted device time: the sum over its device ops (they run one after another), ns."""
        return sum(e.ns for e in self.estimates)

    @property
    def dram_bytes(self) -> float:
        """DRAM bytes read and written over its device ops."""
        return sum(e.dram_bytes for e in self.estimates)

    @property
    def flops(self) -> float:
        """Floating-point operations over its device ops (2 per multiply-add)."""
        return sum(e.flops for e in self.estimates)

    @property
    def cores(self) -> int:
        """Cores of its widest device op (0 when it runs none)."""
        return max((e.cores for e in self.estimates), default=0)

    @property
    def notes(self) -> list[str]:
        """The model's stated assumptions over its device ops (``Estimate.notes``), without repeats."""
        return list(dict.fromkeys(n for e in self.estimates for n in e.notes))

    @property
    def bound(self) -> str:
        """What bounds its longest device op (``-`` when it runs none)."""
        if not self.estimates:
            return "-"
        return max(self.estimates, key=lambda e: e.ns).bound


@dataclass
class ProgramCost:
    """Every op's :class:`OpCost`, in program order, and the hardware they were costed on."""

    ops: list[OpCost]
    hardware: Hardware
    constants: Constants

    @property
    def total_ns(self) -> float:
        """Sum over the costed ops (device ops run one at a time on the device), ns."""
        return sum(c.ns for c in self.ops)

    @property
    def unknown(self) -> list[OpCost]:
        """The ops whose cost is ``unknown`` (``reason`` says why), in program order."""
        return [c for c in self.ops if c.status == "unknown"]


def _ir_tensors(values, a: Analysis) -> list[Tensor]:
    out = []
    for v in values:
        if not v.is_tensor:
            continue
        try:
            out.append(tensor_of(v, a.arch, v.name))
        except CBModelError:  # host tensors move no device data
            continue
    return out


def _op_attrs(op: Op, stage: ProgramModel) -> dict:
    attrs: dict = {}
    short = op.name.split(".", 1)[-1]
    if "program_config" in stage.params:
        attrs["program_config"] = dict(stage.params["program_config"])
    elif isinstance(op.attrs.get("matmul_program_config"), MatmulProgramConfig):
        pc = op.attrs["matmul_program_config"]
        attrs["program_config"] = {"kind": pc.kind, **{k: v for k, v in pc.params.items() if isinstance(v, (int, bool))}}
    for key in ("transpose_a", "transpose_b"):
        if key in op.attrs:
            attrs[key] = bool(op.attrs[key])
    if "nnz" in stage.params:  # sparse matmul: the (batch, expert) pairs it computes
        attrs["nnz"] = stage.params["nnz"]
    if "unary_ops" in stage.params:
        attrs["unary_ops"] = list(stage.params["unary_ops"])
    code = op_code(stage.factory)
    if code == "UnaryDeviceOperation" and "unary_ops" not in attrs:
        attrs["unary_ops"] = [short]
    for key, to in (("binary_op", "binary_op"), ("scalar", "scalar"), ("is_causal", "is_causal"),
                    ("q_chunk_size", "q_chunk"), ("k_chunk_size", "k_chunk"), ("ring_size", "ring_size"),
                    ("num_links", "num_links"), ("topology", "topology"), ("matmuls", "matmuls"),
                    ("stream_share", "stream_share"), ("moe_flops", "moe_flops"),
                    ("moe_weight_bytes", "moe_weight_bytes"), ("moe_matmul_cores", "moe_matmul_cores")):
        if key in stage.params:  # what the program model knows of the factory's choices
            attrs[to] = stage.params[key]
    if code in ("BinaryNgDeviceOperation", "TernaryDeviceOperation") and "binary_op" not in attrs:
        attrs["binary_op"] = "add" if op.name in ("ttnn.matmul", "ttnn.linear") else short
        attrs["scalar"] = False
    for key in ("dim", "dimension", "dim_arg"):
        if key in op.attrs:
            attrs["dim"] = op.attrs[key]
    m = _DIM_FACTORY.search(stage.factory)
    if m:  # the factory names the reduce / transpose dim the program runs (over the IR's dim attrs)
        attrs["dim"] = (m.group(1) or m.group(2)).lower()
    if "permutation" in op.attrs:
        attrs["perm"] = list(op.attrs["permutation"])
    if code == "LayerNormDeviceOperation":
        attrs["norm"] = "rms" if op.name in ("ttnn.rms_norm", "ttnn.distributed_rms_norm") else "layer"
    return attrs


# ReduceMultiCore{W,H}ProgramFactory, ReduceSingleCoreHwProgramFactory, Transpose{WH,HC,CN}*ProgramFactory.
_DIM_FACTORY = re.compile(r"(?:Reduce(?:MultiCore|SingleCore)(HW|Hw|W|H)|Transpose(WH|HC|CN))(?=[A-Z])")


def _window_attrs(op: Op) -> dict:
    """Conv/pool geometry in :mod:`ttanalyze.cost.device_op`'s keys.

    Raises:
        ValueError / TypeError: an attribute that is not an integer or a list of them.
    """
    def pair(key, default):
        v = op.attrs.get(key, default)
        v = list(v) if isinstance(v, (list, tuple)) else [v, v]
        return tuple(int(x) for x in v[:2])
    pad = [int(x) for x in op.attrs.get("padding", [0, 0])]
    pad4 = (pad[0], pad[0], pad[1], pad[1]) if len(pad) == 2 else tuple(pad[:4])
    if len(pad4) != 4:
        raise ValueError(f"padding {pad} is not 2 or 4 numbers")
    attrs = {"window": pair("kernel_size", [1, 1]), "padding": pad4, "dilation": pair("dilation", [1, 1]),
             "input_hw": (int(op.attrs.get("input_height", 1)), int(op.attrs.get("input_width", 1))),
             "groups": int(op.attrs.get("groups", 1))}
    if "in_channels" in op.attrs:
        attrs["channels_in"] = int(op.attrs["in_channels"])
    elif "channels" in op.attrs:
        attrs["channels_in"] = int(op.attrs["channels"])
    return attrs


def _sharded(like: Tensor, rows_per_core: int, width: int, cores: int, scheme: str) -> TensorInfo:
    """A height/block-sharded L1 row-major tensor of ``cores`` shards of ``rows_per_core`` x ``width``."""
    rows = rows_per_core * cores
    return TensorInfo((1, 1, rows, width), (1, 1, rows, width), like.dtype.name, "row_major", "l1",
                      f"{scheme}_sharded", (rows_per_core, width), cores)


def _sliding_window_ops(op: Op, stage: ProgramModel, a: Analysis, hw: Hardware) -> list[DeviceOp]:
    """The device ops of a conv2d or pool: input sharding, halo, halo move, the op, output unsharding."""
    ins, outs = _ir_tensors(op.operands, a), _ir_tensors(op.results, a)
    if not ins or not outs:
        return []
    x, y = ins[0], outs[0]
    geom = window_geometry(op)
    conv = stage.params.get("conv")
    plan = conv or stage.params.get("pool") or {}
    scheme = plan.get("scheme", "height")
    in_cores = plan.get("input_cores", plan.get("cores", stage.cores.num_cores))
    rows, width = plan.get("input_shard", (x.padded[-2] if x.rank >= 2 else 1, x.padded[-1]))
    halo_rows = plan.get("halo_sticks", rows)
    slices = int(plan.get("slices", 1)) if conv else 1
    path = plan.get("path", "l1") if conv else ("l1" if x.mem.buffer_type == "l1" else "dram")
    sharded_in = _sharded(x, rows, width, in_cores, scheme)
    halo_out = _sharded(x, halo_rows, width, in_cores, scheme)
    out_rows, out_w = plan.get("out_shard", (y.padded[-2] if y.rank >= 2 else 1, y.padded[-1]))
    out_cores = plan.get("output_cores", in_cores)
    sharded_out = _sharded(y, out_rows, out_w, out_cores, scheme)
    fid, fp32 = math_fidelity(op, "Conv2dDeviceOperation", [x.dtype.name], False, a.arch)
    base = dict(arch=hw.arch, grid_cores=hw.grid_cores, where=f"{op.pos}")

    def dop(code, cores, inputs, outputs, **extra):
        return DeviceOp(code, cores=cores, inputs=tuple(inputs), outputs=tuple(outputs),
                        attrs={**geom, **extra.pop("attrs", {})}, **extra, **base)

    steps: list[DeviceOp] = []
    x_info, y_info = tensor_info(x), tensor_info(y)
    for _ in range(slices):
        if path == "dram" and conv:
            steps.append(dop("PaddedSliceDeviceOperation", in_cores, [x_info], [sharded_in]))
        elif not x.mem.sharded:
            steps.append(dop("InterleavedToShardedDeviceOperation", in_cores, [x_info], [sharded_in]))
        steps.append(dop("HaloDeviceOperation", in_cores, [sharded_in], [halo_out]))
        steps.append(dop("MoveDeviceOperation", in_cores, [halo_out], [halo_out]))
        if conv:
            weights = [tensor_info(t) for t in ins[1:] if t.mem.buffer_type in ("dram", "l1")]
            steps.append(dop("Conv2dDeviceOperation", stage.cores.num_cores, [halo_out, *weights], [sharded_out],
                             math_fidelity=fid, fp32_dest_acc=fp32,
                             attrs={"act_block_h": plan.get("act_block_h"), "act_block_w": plan.get("act_block_w")}))
        else:
            steps.append(dop("Pool2D", stage.cores.num_cores, [halo_out], [sharded_out]))
        if path == "dram" and conv:
            steps.append(dop("SliceWriteDeviceOperation", out_cores, [sharded_out], [y_info]))
        elif not y.mem.sharded:
            steps.append(dop("ShardedToInterleavedDeviceOperation", out_cores, [sharded_out], [y_info]))
    return steps


def _by_name(op: Op, a: Analysis, hw: Hardware) -> list[DeviceOp]:
    """The one device op :data:`NAME_OP_CODES` names for ``op``, on its operands and results and the whole grid."""
    code = NAME_OP_CODES[op.name]
    ins, outs = _ir_tensors(op.operands, a), _ir_tensors(op.results, a)
    if not ins or not outs:
        return []
    attrs: dict = {"cores_assumed": True}
    if code in ("Conv2dDeviceOperation", "Pool2D"):  # the window geometry; the activation alone (weights unprepared)
        attrs.update(window_geometry(op))
        ins = ins[:1]
    for key in ("is_causal",):
        if key in op.attrs:
            attrs[key] = bool(op.attrs[key])
    for key, to in (("num_groups", "num_groups"), ("num_links", "num_links"), ("dim", "dim"),
                    ("all_gather_dim", "dim"), ("scatter_dim", "dim"), ("reduce_scatter_dim", "dim")):
        v = op.attrs.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            attrs[to] = v
    if code in ("AllGatherAsyncDeviceOperation", "ReduceScatterMinimalAsyncDeviceOperation"):
        big, small = (outs[0], ins[0]) if code.startswith("AllGather") else (ins[0], outs[0])
        d = attrs.get("dim")
        if isinstance(d, int) and -big.rank <= d < big.rank and small.shape[d]:
            attrs["ring_size"] = max(1, big.shape[d] // small.shape[d])  # the gathered dim grows N-fold
    if code == "AllGatherAsyncDeviceOperation" and "ring_size" not in attrs and ins[0].volume:
        attrs["ring_size"] = max(1, outs[0].volume // ins[0].volume)
    fid, fp32 = math_fidelity(op, code, [t.dtype.name for t in ins], False, a.arch)
    return [DeviceOp(code, hw.arch, hw.grid_cores, hw.grid_cores, tuple(tensor_info(t) for t in ins),
                     tuple(tensor_info(t) for t in outs), fid, fp32, attrs, f"{op.pos}")]


def window_geometry(op: Op) -> dict:
    """Conv/pool geometry of an op (:func:`_window_attrs`'s keys), conv1d and conv_transpose2d as the conv2d they run.

    ``conv1d`` is a conv2d over ``[N, 1, L, C]`` with a ``1 x K`` window (tt-metal
    ``conv/conv1d/conv1d.cpp``, as ``ops/conv_extra.py`` models its programs); ``conv_transpose2d``
    convolves the stride-dilated input (``(H - 1) * stride + 1`` rows, padded by ``dilation * (K - 1) - padding``)
    with stride 1 (``conv/conv_transpose2d/conv_transpose2d.cpp``); the pools use :func:`_window_attrs`.

    Raises:
        ValueError / TypeError: an attribute that is not an integer or a list of them.
    """
    if op.name == "ttnn.conv1d":
        k, pad = int(op.attrs["kernel_size"]), [int(x) for x in op.attrs.get("padding", [0, 0])]
        return {"window": (1, k), "padding": (0, 0, pad[0], pad[-1]), "dilation": (1, int(op.attrs.get("dilation", 1))),
                "input_hw": (1, int(op.attrs["input_length"])), "groups": int(op.attrs.get("groups", 1)),
                "channels_in": int(op.attrs["in_channels"])}
    attrs = _window_attrs(op)
    if op.name == "ttnn.conv_transpose2d":
        stride = [int(x) for x in op.attrs.get("stride", [1, 1])]
        t, b, left, r = attrs["padding"]
        (kh, kw), (dh, dw) = attrs["window"], attrs["dilation"]
        h, w = attrs["input_hw"]
        attrs["input_hw"] = ((h - 1) * stride[0] + 1, (w - 1) * stride[1] + 1)
        attrs["padding"] = (dh * (kh - 1) - t, dh * (kh - 1) - b, dw * (kw - 1) - left, dw * (kw - 1) - r)
    return attrs


def device_ops(op: Op, a: Analysis, hw: Hardware) -> tuple[list[DeviceOp], str]:
    """The device operations ``op`` runs, in order, and, when they cannot be listed, why ("" otherwise).

    An op whose programs are not modeled runs the device op :data:`NAME_OP_CODES`
    names for it (on the whole grid: ``attrs["cores_assumed"]``, which the
    estimate notes), else gives an empty list and the reason; so do a factory
    with no known device operation and a program whose tensors are not known
    (:func:`stage_tensors`).

    Raises:
        ValueError: odd conv / pool attributes (:func:`op_cost` reports them as unknown).
    """
    prog = a.programs.get(op.index)
    if prog is None or prog.status == "not_device":
        return [], ""
    if prog.status != "modeled":
        if op.name in NAME_OP_CODES and prog.status in ("unmodeled", "out_of_scope"):
            by_name = _by_name(op, a, hw)
            if by_name:
                return by_name, ""
        return [], f"its programs are not modeled ({prog.status}: {prog.reason})"
    out: list[DeviceOp] = []
    tensors = stage_tensors(op, prog.stages, a)
    for stage, (ins, outs) in zip(prog.stages, tensors):
        if "not_costed" in stage.params:  # user kernels (ops/generic.py): their time is not in the IR
            return [], stage.params["not_costed"]
        code = op_code(stage.factory)
        if code is None:
            return [], f"no device operation is known for {stage.factory}"
        if code in ("Conv2dDeviceOperation", "Pool2D"):
            out += _sliding_window_ops(op, stage, a, hw)
            continue
        if code == "HaloDeviceOperation":
            continue  # the conv/pool stage after it lists its halo (_sliding_window_ops)
        if ins is None or outs is None:
            which = "inputs" if ins is None else "outputs"
            return [], f"the {which} of its {stage.factory} program are not known (a step of a composite op)"
        attrs = _op_attrs(op, stage)
        fid, fp32 = math_fidelity(op, code, [t.dtype.name for t in ins], "program_config" in attrs
                                  and not attrs["program_config"].get("auto", False), a.arch)
        out.append(DeviceOp(code, hw.arch, stage.cores.num_cores, hw.grid_cores,
                            tuple(tensor_info(t) for t in ins), tuple(tensor_info(t) for t in outs),
                            fid, fp32, attrs, f"{op.pos}"))
    return out, ""


def _reduced(t: Tensor, factory: str) -> Tensor | None:
    """What a reduce program writes: its input with the reduced dims (W, H or both) set to 1; None for other programs."""
    m = _DIM_FACTORY.search(factory)
    if not m or not m.group(1) or t.rank < 2:
        return None
    dims = {"w": (-1,), "h": (-2,), "hw": (-1, -2)}[m.group(1).lower()]
    shape = list(t.shape)
    for d in dims:
        shape[d] = 1
    return t.with_(shape=tuple(shape))


def stage_tensors(op: Op, stages: list[ProgramModel], a: Analysis) -> list[tuple[list | None, list | None]]:
    """Each program's (inputs, outputs) (module docstring); None where they are not known.

    A program's recorded tensors win.  A lone program takes the op's operands
    and results.  In a chain: the first program reads the operands, the last
    writes the results; otherwise a program reads what the one before it wrote
    (a concat: what every program before it wrote) and writes what the next one
    reads, or, for a reduce, its input with the reduced dims set to 1 (a fill
    of the tile padding: its input, in place).
    """
    n = len(stages)
    ins: list[list | None] = [list(s.inputs) or None for s in stages]
    outs: list[list | None] = [list(s.outputs) or None for s in stages]
    if n == 1:
        return [(ins[0] or _ir_tensors(op.operands, a), outs[0] or _ir_tensors(op.results, a))]
    if ins[0] is None:
        ins[0] = _ir_tensors(op.operands, a)
    if outs[-1] is None:
        outs[-1] = _ir_tensors(op.results, a)
    for i, stage in enumerate(stages):
        if ins[i] is None and i > 0:
            if stage.factory.startswith("Concat") and all(outs[j] for j in range(i)):
                ins[i] = [t for j in range(i) for t in outs[j]]  # type: ignore[union-attr]
            else:
                ins[i] = outs[i - 1]
        if outs[i] is None and i + 1 < n:
            if stages[i + 1].inputs:
                outs[i] = list(stages[i + 1].inputs)
            elif ins[i] and stage.factory.startswith("FillPad"):
                outs[i] = ins[i][:1]  # type: ignore[index]  # fills the tile padding in place
            elif ins[i]:
                red = _reduced(ins[i][0], stage.factory)  # type: ignore[index]
                outs[i] = [red] if red is not None else None
    return list(zip(ins, outs))


def hardware_of(a: Analysis) -> Hardware:
    """The device the program was compiled for (system_desc: arch, worker grid, DRAM channels)."""
    return for_device(a.arch.name, a.arch.num_cores, a.arch.num_dram_channels)


def op_cost(op: Op, a: Analysis, hw: Hardware, constants: Constants) -> OpCost:
    """The :class:`OpCost` of one op (see :func:`device_ops`, :func:`ttanalyze.cost.model.predict`).

    Never raises for an op the model cannot cost: a device op it does not know
    or cannot cost in this form, or odd conv / pool attributes, make the op
    ``unknown`` with the reason.
    """
    try:
        ops_, why = device_ops(op, a, hw)
    except (ValueError, TypeError) as exc:
        return OpCost(op, "unknown", reason=f"its attributes cannot be costed: {exc}")
    if why:
        return OpCost(op, "unknown", reason=why)
    if not ops_:
        prog = a.programs.get(op.index)
        return OpCost(op, "no_device_op", reason=prog.reason if prog else "")
    estimates = []
    for d in ops_:
        try:
            estimates.append(predict(d, hw, constants))
        except (UnknownDeviceOp, UnmodeledDeviceOp) as exc:
            return OpCost(op, "unknown", ops_, reason=str(exc))
        except ValueError as exc:  # odd attributes (e.g. a padding that is not 4 numbers)
            return OpCost(op, "unknown", ops_, reason=f"{d.op_code}: its attributes cannot be costed: {exc}")
    return OpCost(op, "costed", ops_, estimates)


def program_cost(a: Analysis, constants: Constants | None = None) -> ProgramCost:
    """Cost every op of the analyzed program (device ops in program order, one at a time)."""
    hw = hardware_of(a)
    constants = constants or load_constants()
    return ProgramCost([op_cost(op, a, hw, constants) for op in a.program.ops], hw, constants)

