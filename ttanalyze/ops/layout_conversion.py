"""Layout conversions: to_layout (tilize, untilize), to_memory_config, typecast, host transfers.

All keep the logical shape (tt-mlir ``ToLayoutOp``, ``ToMemoryConfigOp``,
``TypecastOp``, ``FromDeviceOp``/``ToDeviceOp`` in
``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca); what changes is the layout, the
data type or the memory placement, read from the declared result type.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


def _same_shape(op: Op):
    """The operand's logical shape."""
    return [tensor_shape(op, 0)]


# to_layout had `layout`/`dtype`/`memory_config` attributes in older tt-mlir;
# current tt-mlir carries all of it in the result type's encoding.
register("ttnn.to_layout", "layout_conversion", ("layout", "dtype", "memory_config"), f"{_SRC} ToLayoutOp")(_same_shape)
register("ttnn.to_memory_config", "layout_conversion", ("memory_config",), f"{_SRC} ToMemoryConfigOp")(_same_shape)
register("ttnn.typecast", "layout_conversion", ("dtype",), f"{_SRC} TypecastOp")(_same_shape)
register(("ttnn.from_device", "ttnn.to_device"), "host", ("memory_config",), f"{_SRC} FromDeviceOp/ToDeviceOp")(_same_shape)
