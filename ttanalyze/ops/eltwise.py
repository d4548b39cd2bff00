"""Elementwise unary, binary and ternary ops.

Unary ops keep the shape; binary and ternary ops broadcast their operands
numpy-style (tt-mlir ``TTNN_ElementwiseBinaryOp`` uses
``OpTrait::util::getBroadcastedShape``; tt-mlir 19c86fca,
``include/ttmlir/Dialect/TTNN/IR/TTNNOps.td``).
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, register, tensor_shape

_TD = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"

UNARY = (
    "abs", "cbrt", "ceil", "sign", "cos", "acos", "exp", "erf", "erfc", "floor", "gelu", "isfinite",
    "logical_not", "bitwise_not", "neg", "tan", "atan", "tanh", "reciprocal", "relu", "relu6", "sin",
    "asin", "asinh", "sqrt", "rsqrt", "sigmoid", "hardsigmoid", "silu", "mish", "log", "log1p", "expm1",
    "leaky_relu", "clamp_scalar",
)
BINARY = (
    "add", "divide", "multiply", "logical_right_shift", "subtract", "eq", "ne", "ge", "gt", "le", "lt",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "logical_left_shift", "bitwise_or",
    "bitwise_xor", "maximum", "minimum", "remainder", "pow_tensor", "atan2",
)
# Fused activations on binary ops (TTNN_ElementwiseBinaryOp properties).
_BINARY_ATTRS = ("activations", "input_tensor_a_activations", "input_tensor_b_activations", "dtype", "memory_config")


def broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Numpy broadcast of two shapes.

    Raises:
        ShapeError: a pair of dims that are neither equal nor 1.
    """
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            raise ShapeError(f"shapes {'x'.join(map(str, a))} and {'x'.join(map(str, b))} do not broadcast")
        out.append(max(x, y))
    return tuple(reversed(out))


@register(tuple(f"ttnn.{n}" for n in UNARY), "eltwise_unary", ("parameter", "min", "max", "memory_config"), f"{_TD} TTNN_ElementwiseUnaryOp")
def unary(op: Op):
    return [tensor_shape(op, 0)]


@register(tuple(f"ttnn.{n}" for n in BINARY), "eltwise_binary", _BINARY_ATTRS, f"{_TD} TTNN_ElementwiseBinaryOp")
def binary(op: Op):
    return [broadcast(tensor_shape(op, 0), tensor_shape(op, 1))]


@register("ttnn.pow_scalar", "eltwise_unary", ("rhs", "exponent"), f"{_TD} TTNN_ElementwiseBinaryCompositeScalarOp")
def pow_scalar(op: Op):
    return [tensor_shape(op, 0)]


@register("ttnn.where", "eltwise_ternary", (), f"{_TD} TTNN_ElementwiseTernaryOp")
def where(op: Op):
    if len(op.operands) != 3:
        raise ShapeError("ttnn.where takes three operands")
    return [broadcast(broadcast(tensor_shape(op, 0), tensor_shape(op, 1)), tensor_shape(op, 2))]
