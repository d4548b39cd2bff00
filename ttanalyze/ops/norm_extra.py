"""Batch norm and the distributed (multi-device) norms.

Shape rules (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca): ``batch_norm_inference`` /
``batch_norm_training`` (``verifyTTNNBatchNormOp``), ``distributed_rms_norm`` /
``distributed_layer_norm`` (output shape = input shape; a residual shaped like the input) and
``layer_norm_post_all_gather`` / ``dit_rms_norm_unary_fused`` return the input's shape;
``rms_norm_pre_all_gather`` / ``layer_norm_pre_all_gather`` return per-row statistics of the
input's leading dims with a last dim the op's stats width (checked on the leading dims only, as
``RMSNormPreAllGatherOp::verify`` does).  Shapes are per device (see :mod:`ttanalyze.mesh`).
"""

from __future__ import annotations

from ..ir.model import Op
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"

_DIST_RMS = ("input", "weight?", "residual?", "stats?", "semaphore?", "device")
_DIST_LN = ("input", "weight?", "bias?", "residual?", "device")


@register(("ttnn.batch_norm_inference", "ttnn.batch_norm_training"), "normalization",
          ("epsilon", "momentum", "compute_config", "memory_config", "operandSegmentSizes"),
          f"{_SRC} verifyTTNNBatchNormOp")
def batch_norm(op: Op):
    return [tensor_shape(op, 0)]


def _residual(op: Op, groups, x) -> None:
    r = tensor_or_none(groups, "residual")
    if r is not None and shape_of(op, r, "residual") != x:
        raise ShapeError(f"{op.name}: residual {list(shape_of(op, r, 'residual'))} must match the input {list(x)}")


@register("ttnn.distributed_rms_norm", "normalization",
          ("cluster_axis", "epsilon", "sub_device_id", "num_links", "topology", "compute_config", "program_config",
           "operandSegmentSizes"), f"{_SRC} DistributedRMSNormOp::verify")
def distributed_rms_norm(op: Op):
    g = operand_groups(op, _DIST_RMS)
    x = shape_of(op, tensor_or_none(g, "input"), "input")
    _residual(op, g, x)
    return [x]


@register("ttnn.distributed_layer_norm", "normalization", ("cluster_axis", "epsilon", "operandSegmentSizes"),
          f"{_SRC} DistributedLayerNormOp::verify")
def distributed_layer_norm(op: Op):
    g = operand_groups(op, _DIST_LN)
    x = shape_of(op, tensor_or_none(g, "input"), "input")
    _residual(op, g, x)
    for name in ("weight", "bias"):
        w = tensor_or_none(g, name)
        if w is not None and shape_of(op, w, name) != (x[-1],):
            raise ShapeError(f"{op.name}: {name} must be [{x[-1]}], got {list(shape_of(op, w, name))}")
    return [x]


@register(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"), "normalization",
          ("compute_config", "program_config", "use_2d_core_grid", "dtype", "memory_config", "operandSegmentSizes"),
          f"{_SRC} RMSNormPreAllGatherOp/LayerNormPreAllGatherOp::verify")
def pre_all_gather(op: Op):
    """Statistics: the input's leading dims, the last dim as declared (checked on the leading dims)."""
    x = tensor_shape(op, 0)
    if len(x) < 2:
        raise ShapeError(f"{op.name}: input rank must be > 1, got {len(x)}")
    if not op.results or not op.results[0].is_tensor:
        raise ShapeError(f"{op.name} needs a tensor result")
    declared = op.results[0].type.shape
    if len(declared) != len(x) or tuple(declared[:-1]) != tuple(x[:-1]):
        raise ShapeError(f"{op.name}: statistics {list(declared)} must keep the input's leading dims {list(x[:-1])}")
    return [tuple(declared)]


@register(("ttnn.layer_norm_post_all_gather", "ttnn.dit_rms_norm_unary_fused"), "normalization",
          ("epsilon", "activation", "compute_config", "program_config", "dtype", "memory_config",
           "operandSegmentSizes"), f"{_SRC} LayerNormPostAllGatherOp/DitRMSNormUnaryFusedOp::verify")
def same_as_input(op: Op):
    return [tensor_shape(op, 0)]
