"""Random ops: ``rand`` and ``dropout``.

Shape rules from tt-mlir ``RandOp::verify`` / ``DropoutOp::verify`` (``lib/Dialect/TTNN/IR/
TTNNOps.cpp`` @19c86fca): ``rand`` produces its ``size`` attribute (``low < high``); ``dropout``
returns a tensor of its input's type, rank 2 to 4, ``0 <= prob <= 1``, ``scale > 0``.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, int_list, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.rand", "random", ("size", "low", "high", "seed", "dtype", "layout", "memory_config"),
          f"{_SRC} RandOp::verify")
def rand(op: Op):
    low, high = float(op.attrs.get("low", 0.0)), float(op.attrs.get("high", 1.0))
    if low >= high:
        raise ShapeError(f"{op.name}: 'low' ({low}) must be < 'high' ({high})")
    return [tuple(int_list(op, "size"))]


@register("ttnn.dropout", "random", ("prob", "scale", "seed", "use_per_device_seed", "memory_config"),
          f"{_SRC} DropoutOp::verify")
def dropout(op: Op):
    x = tensor_shape(op, 0)
    prob, scale = float(op.attrs.get("prob", 0.0)), float(op.attrs.get("scale", 1.0))
    if not 0.0 <= prob <= 1.0:
        raise ShapeError(f"{op.name}: probability must be in [0.0, 1.0], got {prob}")
    if scale <= 0.0:
        raise ShapeError(f"{op.name}: scale must be positive, got {scale}")
    if not 2 <= len(x) <= 4:
        raise ShapeError(f"{op.name}: input rank must be 2, 3 or 4, got {len(x)}")
    return [x]
