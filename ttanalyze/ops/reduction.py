"""Reductions (sum, mean, max, min, prod, argmax) and softmax.

``dim_arg`` lists the reduced dims (all dims when absent); ``keep_dim`` keeps
them as size 1 (tt-mlir ``TTNN_ReductionOp``, ``TTNNOps.td`` @19c86fca).
Softmax keeps the shape.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, norm_dim, register, tensor_shape

_TD = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"


def _reduce(op: Op, dims_attr: str):
    src = tensor_shape(op, 0)
    dims = op.attrs.get(dims_attr)
    if dims is None:
        reduced = set(range(len(src)))
    elif isinstance(dims, int) and not isinstance(dims, bool):
        reduced = {norm_dim(dims, len(src), op)}
    elif isinstance(dims, list):
        reduced = {norm_dim(d, len(src), op) for d in dims}
    else:
        raise ShapeError(f"{op.name}: '{dims_attr}' must be an integer or a list of integers")
    keep = bool(op.attrs.get("keep_dim", False))
    if keep:
        return [tuple(1 if i in reduced else d for i, d in enumerate(src))]
    return [tuple(d for i, d in enumerate(src) if i not in reduced)]


@register(("ttnn.sum", "ttnn.mean", "ttnn.max", "ttnn.min"), "reduction", ("dim_arg", "keep_dim", "compute_config"), f"{_TD} TTNN_ReductionOp")
def reduction(op: Op):
    return _reduce(op, "dim_arg")


@register("ttnn.prod", "reduction", ("dim_arg", "keep_dim", "memory_config"), f"{_TD} ProdOp")
def prod_op(op: Op):
    return _reduce(op, "dim_arg")


@register("ttnn.argmax", "reduction", ("dim", "keep_dim", "use_multicore", "memory_config"), f"{_TD} ArgMaxOp")
def argmax(op: Op):
    return _reduce(op, "dim")


@register("ttnn.softmax", "normalization", ("dimension", "numericStable", "compute_config"), f"{_TD} SoftmaxOp")
def softmax(op: Op):
    src = tensor_shape(op, 0)
    norm_dim(op.attrs.get("dimension", -1), len(src), op)
    return [src]


@register(("ttnn.layer_norm", "ttnn.rms_norm"), "normalization", ("epsilon", "compute_config", "memory_config", "program_config"), f"{_TD} LayerNormOp/RMSNormOp")
def norm(op: Op):
    return [tensor_shape(op, 0)]


@register("ttnn.group_norm", "normalization", ("num_groups", "epsilon", "memory_config"), f"{_TD} GroupNormOp")
def group_norm(op: Op):
    return [tensor_shape(op, 0)]
