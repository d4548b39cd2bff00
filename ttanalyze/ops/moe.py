"""Mixture-of-experts ops: the expert router ``topk_router_gpt``.

Shape rule (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``TopKRouterGptOp::verify``): input
``[B, hidden]``, weight ``[hidden, num_experts]``, bias ``[B, num_experts]`` with ``B = 32`` and
``num_experts = 128``, ``k > 0``; two results, the expert indices and weights, ``[B, k]`` each.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, int_attr, register, tensor_shape

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
