"""Training ops: ``embedding_bw`` and ``adamw``.

* ``embedding_bw(input [B, 1, 1, N], weight [V, E], grad [1, 1, B*N, E])`` -> ``[1, 1, V, E]``
  (tt-mlir ``EmbeddingBackwardOp::verify`` @19c86fca: "tt-metal always returns the weight gradient
  as a 4D tensor (1, 1, dictionary_size, embedding_size)");
* ``adamw`` updates ``param``, ``exp_avg``, ``exp_avg_sq`` (and ``max_exp_avg_sq``) in place: no
  result; every state tensor and the gradient shaped like ``param`` (``AdamWOp::verify``).
"""

from __future__ import annotations

from ..ir.model import Op
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.embedding_bw", "training", ("dtype", "memory_config"), f"{_SRC} EmbeddingBackwardOp::verify")
def embedding_bw(op: Op):
    x, w, g = (tensor_shape(op, i) for i in range(3))
    if len(x) != 4 or x[1] != 1 or x[2] != 1 or x[3] % 32:
        raise ShapeError(f"{op.name}: the index tensor must be [B, 1, 1, N] with N a multiple of 32, got {list(x)}")
    if len(w) != 2:
        raise ShapeError(f"{op.name}: the weight must be 2D, got rank {len(w)}")
    if len(g) != 4 or g[:2] != (1, 1) or g[2] != x[0] * x[3] or g[3] != w[1]:
        raise ShapeError(f"{op.name}: the gradient must be [1, 1, {x[0] * x[3]}, {w[1]}], got {list(g)}")
    return [(1, 1, w[0], w[1])]


@register("ttnn.adamw", "training", ("lr", "beta1", "beta2", "beta1_pow", "beta2_pow", "epsilon", "weight_decay",
                                     "stochastic_rounding", "operandSegmentSizes"), f"{_SRC} AdamWOp::verify")
def adamw(op: Op):
    g = operand_groups(op, ("param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq?"))
    p = shape_of(op, tensor_or_none(g, "param"), "param")
    for name in ("grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
        v = tensor_or_none(g, name)
        if v is not None and shape_of(op, v, name) != p:
            raise ShapeError(f"{op.name}: {name} must have the shape of param {list(p)}")
    return []
