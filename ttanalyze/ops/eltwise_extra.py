"""Elementwise ops outside the unary/binary classes: ``clamp_tensor`` and ``gelu_bw``.

``clamp_tensor(input, min, max)`` and ``gelu_bw(grad, input)`` are elementwise with numpy-style
broadcasting (tt-mlir ``TTNNOps.td`` @19c86fca; ``GeluBackwardOp::verify`` checks ``approximate``
is ``none`` or ``tanh``): the result is the operands' broadcast shape.
"""

from __future__ import annotations

from ..ir.model import Op
from .eltwise import broadcast
from .registry import ShapeError, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.clamp_tensor", "eltwise_ternary", ("memory_config",), f"{_SRC} ClampTensorOp")
def clamp_tensor(op: Op):
    shape = tensor_shape(op, 0)
    for i in (1, 2):
        shape = broadcast(shape, tensor_shape(op, i))
    return [shape]


@register("ttnn.gelu_bw", "eltwise_binary", ("approximate", "memory_config"), f"{_SRC} GeluBackwardOp::verify")
def gelu_bw(op: Op):
    approximate = str(op.attrs.get("approximate", "none")).strip('"')
    if approximate not in ("none", "tanh"):
        raise ShapeError(f"{op.name}: approximate must be 'none' or 'tanh', got '{approximate}'")
    return [broadcast(tensor_shape(op, 0), tensor_shape(op, 1))]
