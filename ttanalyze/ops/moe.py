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
from .cb import CB, CBContext, CBModelError, ProgramModel
from .registry import ShapeError, int_attr, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import operand, result
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
        CBModelError: tensors that are not 4D, experts that do not divide over the devices, or block-float pages.
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
