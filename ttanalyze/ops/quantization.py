"""Quantization: ``quantize``, ``dequantize``, ``requantize``.

Each is elementwise over its input with per-tensor or per-axis scales and zero points: the result
has the input's shape (tt-mlir ``QuantizeOp``/``DequantizeOp``/``RequantizeOp::verify``,
``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca); a per-axis scale (``axis`` given) indexes a dim of the
input.  The runtime calls ``ttnn::quantize``/``dequantize``/``requantize``
(``runtime/lib/ttnn/operations/eltwise/quantization/quantization.cpp`` @19c86fca), composites of
eltwise programs.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import int_attr, norm_dim, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"), "quantization",
          ("axis", "output_dtype", "memory_config"), f"{_SRC} QuantizeOp/DequantizeOp/RequantizeOp::verify")
def quantization(op: Op):
    """The input's shape (``verifyQuantizeOpCommon`` checks element types and the axis, not shapes)."""
    x = tensor_shape(op, 0)
    if "axis" in op.attrs and x:
        norm_dim(int_attr(op, "axis"), len(x), op)
    return [x]
