"""Mixture-of-experts ops: the expert router ``topk_router_gpt`` and the token remap ``moe_expert_token_remap``.

Shape rule (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``TopKRouterGptOp::verify``): input
``[B, hidden]``, weight ``[hidden, num_experts]``, bias ``[B, num_experts]`` with ``B = 32`` and
``num_experts = 128``, ``k > 0``; two results, the expert indices and weights, ``[B, k]`` each.

Programs: tt-mlir's runtime calls ``ttnn::moe_expert_token_remap(topk, mapping, metadata, memory_config,
reduction_size)`` (``runtime/lib/ttnn/operations/ccl/moe_expert_token_remap.cpp`` @19c86fca): one program per
device (:func:`moe_expert_token_remap_cb`, measured on the mock as a 1-device mesh); its results' shapes are
taken as declared (``MoeExpertTokenRemapOp::verify`` checks ranks only) and compared with what ttnn returns
(:func:`moe_expert_token_remap_spec`).
"""

from __future__ import annotations

from ..ir.attrs import DataType
from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel, core_range, cores_set
from .registry import ShapeError, int_attr, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .matmul import _P150_DRAM_READERS  # the P150's DRAM bank -> reader core table (measured there)
from .tensors import TILE, MemCfg, operand, result
from .work_split import full_grid, split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
ROUTER_BATCH = 32  # TopKRouterGptOp::verify: "B must be 32"
ROUTER_EXPERTS = 128  # TopKRouterGptOp::verify: "num_experts must be 128"


@register("ttnn.topk_router_gpt", "moe", ("k", "num_experts"), f"{_SRC} TopKRouterGptOp::verify")
def topk_router_gpt(op: Op):
    """``[32, hidden]`` input, ``[hidden, 128]`` weight, ``[32, 128]`` bias -> indices and weights ``[32, k]``.

    Raises:
        ShapeError: a rank other than 2, mismatched hidden or expert dims, ``B != 32``,
            ``num_experts != 128`` or ``k <= 0``.
    """
    x, w, b = (tensor_shape(op, i) for i in range(3))
    for shape, what in ((x, "input"), (w, "weight"), (b, "bias")):
        if len(shape) != 2:
            raise ShapeError(f"{op.name}: {what} must be a 2D tensor, got rank {len(shape)}")
    if w[0] != x[1]:
        raise ShapeError(f"{op.name}: weight dim 0 ({w[0]}) must equal input hidden_dim ({x[1]})")
    if b != (x[0], w[1]):
        raise ShapeError(f"{op.name}: bias must be [{x[0]}, {w[1]}], got {list(b)}")
    if x[0] != ROUTER_BATCH:
        raise ShapeError(f"{op.name}: B must be {ROUTER_BATCH}, but got: {x[0]}")
    experts, k = int_attr(op, "num_experts"), int_attr(op, "k")
    if experts != ROUTER_EXPERTS or w[1] != experts:
        raise ShapeError(f"{op.name}: num_experts must be {ROUTER_EXPERTS} and equal weight dim 1 ({w[1]}), got {experts}")
    if k <= 0:
        raise ShapeError(f"{op.name}: k must be positive, but got: {k}")
    return [(x[0], k), (x[0], k)]


_REMAP_SRC = ("tt-metal ttnn/cpp/ttnn/operations/data_movement/moe_expert_token_remap/device/"
              "moe_expert_token_remap_program_factory.cpp @0100b45c (+ the reduced output's staging CB of ttnn 0.81.1; "
              "measured: measurements/dialect/results_moe.jsonl)")


def _remap_tensors(ctx: CBContext):
    topk, mapping, metadata = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2)
    if topk.rank != 4 or mapping.rank != 4 or metadata.rank != 4:
        raise CBModelError(f"{ctx.op.name}: topk, mapping and metadata must be 4D")
    if topk.tiled or mapping.tiled or metadata.tiled:  # tt-mlir's workaround pass makes them row-major first
        raise CBModelError(f"{ctx.op.name} with TILE inputs (measured with row-major topk, mapping and metadata only)")
    experts, devices = mapping.shape[-2], mapping.shape[-1]
    if devices == 0 or experts % devices:
        raise CBModelError(f"{ctx.op.name}: {experts} experts over {devices} devices (not a whole number per device)")
    return topk, mapping, metadata, experts // devices


@register_cb("ttnn.moe_expert_token_remap")
def moe_expert_token_remap_cb(ctx: CBContext) -> ProgramModel:
    """``MoeExpertTokenRemapDeviceOperation::Multicore`` (per device), every CB on the whole grid.

    With ``e`` the experts per device (``E / D`` of the ``[1, 1, E, D]`` mapping) and pages aligned to the L1
    alignment: ``c_0`` one mapping page (``D`` u16), ``c_1`` the local experts ``2e`` B, ``c_2`` one metadata page
    (``K`` u16), ``c_3`` two topk pages (``E`` elements), ``c_4`` one output page (``e`` elements of the topk
    dtype, unaligned) and, in ttnn 0.81.1, one page of the reduced output (``e`` u16, unaligned; measured).  The
    metadata pages (``B * S``) are split over the grid by ``split_work_to_cores``.

    Raises:
        CBModelError: tensors that are not 4D or not row-major, experts that do not divide over the devices, or
            block-float pages.
    """
    topk, mapping, metadata, e = _remap_tensors(ctx)
    out = result(ctx)
    cores = full_grid(ctx.grid)
    align = ctx.arch.l1_alignment

    def aligned(n: int) -> int:
        return -(-n // align) * align

    pages = metadata.shape[0] * metadata.shape[1] * metadata.shape[2]
    cbs = [CB(0, "mapping", aligned(mapping.shape[-1] * mapping.element_bytes), 1, cores),
           CB(1, "local_experts", aligned(2 * e), 1, cores),
           CB(2, "metadata", aligned(metadata.shape[-1] * metadata.element_bytes), 1, cores),
           CB(3, "topk", aligned(topk.shape[-1] * topk.element_bytes), 2, cores),
           CB(4, "output", e * out.element_bytes, 1, cores),
           CB(-1, "reduced output (ttnn 0.81.1, measured)", 2 * e, 1, cores)]
    split = split_work_to_cores(ctx.grid, pages)
    return ProgramModel("MoeExpertTokenRemapDeviceOperation::Multicore", _REMAP_SRC, cores, cbs,
                        [f"{pages} token pages on {split.num_cores} cores, {e} experts per device"],
                        inputs=(topk, mapping, metadata), outputs=tuple(result(ctx, i) for i in range(2)))


@register_spec("ttnn.moe_expert_token_remap")
def moe_expert_token_remap_spec(ctx: CBContext) -> list[TensorSpec]:
    """``MoeExpertTokenRemapDeviceOperation::compute_output_specs`` (measured): the mapping ``[1, B, S, e]`` in the
    topk dtype and the reduced ``[1, 1, B * S / reduction_size, e]`` UINT16, both ROW_MAJOR in the result's memory
    config.

    Raises:
        CBModelError: see :func:`_remap_tensors`; a reduction size that does not divide ``B * S``.
    """
    topk, _, metadata, e = _remap_tensors(ctx)
    b, s = metadata.shape[1], metadata.shape[2]
    red = ctx.op.attrs.get("reduction_size")
    if not isinstance(red, int) or red <= 0 or (b * s) % red:
        raise CBModelError(f"{ctx.op.name}: reduction_size {red} does not divide the {b * s} tokens")
    mem = result(ctx).mem
    return [topk.with_(shape=(1, b, s, e), layout="row_major", mem=mem).spec(),
            topk.with_(shape=(1, 1, b * s // red, e), layout="row_major", dtype=DataType("u16"), mem=mem).spec()]


register_check("ttnn.moe_expert_token_remap", "mock",
               "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl",
               ("MoeExpertTokenRemapDeviceOperation",))


_ROUTER_SRC = ("tt-metal ttnn/cpp/ttnn/operations/experimental/topk_router_gpt/device/topk_router_gpt_program_factory.cpp "
               "@12b42a1b (12 cores in 4 groups of 3 there; ttnn 0.81.1 on the P150's 8 DRAM banks runs 4 groups of 2 "
               "with a 1-tile partial CB: measured, measurements/dialect/results_moe.jsonl)")
ROUTER_GROUPS = 4  # topk_router_gpt_program_factory.cpp num_groups


def _router_ring(readers: tuple) -> list:
    """The DRAM reader cores in ring order: sorted by (y, x) descending (the factory sorts physical coordinates
    for NOC1 routes; Blackhole's logical-to-physical map keeps that order)."""
    return sorted(readers, key=lambda c: (c[1], c[0]), reverse=True)


@register_cb("ttnn.topk_router_gpt")
def topk_router_gpt_cb(ctx: CBContext) -> ProgramModel:
    """``TopkRouterGptDeviceOperation``: a matmul of the ``[32, hidden]`` input by the ``[hidden, 128]`` router
    weight split over the DRAM reader cores (one per bank), then top-k and softmax gathered on one collector core.

    On the P150 (8 DRAM banks, ttnn 0.81.1, measured): the 8 reader cores in ring order (:func:`_router_ring`) form
    4 groups of 2; every core holds ``c_0`` weight and ``c_1`` input ``ceil(hidden / 32 / 2)`` bf16 tiles each,
    ``c_2`` and ``c_3`` one tile; the second core of each group (a worker) adds bias, index and top-k value tiles
    (1 each) and the gathered values and indices (4 tiles each); the first worker in the ring (the collector) adds
    2 + 1 + 1 + 1 + 1 + 1 + 2 tiles and a ``2 * 32 * round_up(k, 8) * 2``-B dispatch scratch.  ``k`` changes only
    that scratch (measured for k = 1, 2 and 4).

    Raises:
        DeviceRejection: a weight that is not bf16 (``topk_router_gpt_device_operation.cpp`` TT_FATAL, measured).
        CBModelError: another device than the P150 (its DRAM reader cores are not known).
    """
    x, w = operand(ctx, 0), operand(ctx, 1)
    if w.dtype.name != "bf16":
        raise DeviceRejection(f"topk_router_gpt: TT_FATAL Weight tensor must have BFLOAT16 dtype, got {w.dtype}")
    if ctx.arch.name != "blackhole" or ctx.grid != (11, 10):
        raise CBModelError("topk_router_gpt's cores are the DRAM reader cores, known for the Blackhole P150 only")
    ring = _router_ring(_P150_DRAM_READERS)
    per_group = len(ring) // ROUTER_GROUPS
    workers = [c for i, c in enumerate(ring) if i % per_group == per_group - 1]
    every = cores_set(*(core_range(x_, y_, x_, y_) for x_, y_ in ring))
    worker_set = cores_set(*(core_range(x_, y_, x_, y_) for x_, y_ in workers))
    collector = cores_set(core_range(*workers[0], *workers[0]))
    tile = 2048  # Float16_b
    k_tiles = -(-(x.shape[-1] // TILE) // per_group)
    k = int(ctx.op.attrs.get("k", 4))
    cbs = [CB(0, "weight", tile, k_tiles, every), CB(1, "input", tile, k_tiles, every),
           CB(2, "partial_recv", tile, 1, every), CB(3, "local_out", tile, 1, every)]
    cbs += [CB(i, n, tile, t, worker_set) for i, n, t in ((4, "bias", 1), (5, "index", 1), (6, "topk_val", 1),
                                                           (8, "gathered_val", ROUTER_GROUPS),
                                                           (9, "gathered_ind", ROUTER_GROUPS))]
    cbs += [CB(i, n, tile, t, collector) for i, n, t in ((10, "intermed_val", 2), (11, "intermed_ind", 1),
                                                          (12, "softmax_mask", 1), (13, "softmax_tmp", 1),
                                                          (14, "reduce_scalar", 1), (15, "bcast_scaler", 1),
                                                          (16, "final_out", 2))]
    cbs.append(CB(19, "dispatch", 2 * TILE * (-(-k // 8) * 8) * 2, 1, collector))
    return ProgramModel("TopkRouterGptDeviceOperation", _ROUTER_SRC, every, cbs,
                        [f"{len(ring)} DRAM reader cores in {ROUTER_GROUPS} groups, {k_tiles} K tiles each; collector "
                         f"{workers[0]}"], inputs=(x, w), outputs=(result(ctx, 0), result(ctx, 1)))


@register_spec("ttnn.topk_router_gpt")
def topk_router_gpt_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ttnn 0.81.1 returns (measured, 8 instances): the indices ``[B, k]`` UINT16 and the weights ``[B, k]``
    bf16, both ROW_MAJOR in L1, interleaved, whatever the inputs' memory configs."""
    x = operand(ctx, 0)
    k = int(ctx.op.attrs.get("k", 4))
    l1 = MemCfg("l1", "interleaved")
    shape = (x.shape[0], k)
    return [x.with_(shape=shape, layout="row_major", dtype=DataType("u16"), mem=l1).spec(),
            x.with_(shape=shape, layout="row_major", dtype=DataType("bf16"), mem=l1).spec()]


register_check("ttnn.topk_router_gpt", "mock", "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl",
               ("TopkRouterGptDeviceOperation",))
