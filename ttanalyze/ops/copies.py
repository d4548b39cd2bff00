"""Copies, constants and raw allocations: ``copy``, ``assign``, ``bitcast_convert``, ``constant``, ``alloc``.

From tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` / ``TTNNOps.td`` @19c86fca:

* ``copy(src, dst)`` writes ``src`` into ``dst`` in place (no result; ``CopyOp::verify`` wants
  equal shapes);
* ``assign(input)`` returns a copy of the input's shape and dtype (``AssignOp::verify``);
* ``bitcast_convert`` reinterprets the bits: the input's shape;
* ``constant`` holds its ``value`` (``AllShapesMatch<["value", "result"]>``): the result is taken
  as declared (the elements attribute is not parsed);
* ``alloc`` allocates ``size`` bytes at ``address``: taken as declared.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, register, register_passive, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.copy", "data_movement", (), f"{_SRC} CopyOp::verify")
def copy(op: Op):
    src, dst = tensor_shape(op, 0), tensor_shape(op, 1)
    if src != dst:
        raise ShapeError(f"{op.name}: source {list(src)} and destination {list(dst)} must have the same shape")
    return []


@register(("ttnn.assign", "ttnn.bitcast_convert"), "data_movement", ("memory_config", "dtype"),
          f"{_SRC} AssignOp::verify / BitcastConvertOp")
def same_shape(op: Op):
    return [tensor_shape(op, 0)]


register_passive(("ttnn.constant",), "creation", ("value", "dtype", "layout", "memory_config"), f"{_SRC} ConstantOp")
register_passive(("ttnn.alloc",), "memory", ("address", "size", "buffer_type"), f"{_SRC} AllocOp")

register_passive(("ttnn.slice_dynamic",), "data_movement", ("step", "memory_config"),
                 f"{_SRC} SliceDynamicOp::verify (begins/ends are tensors: the result is taken as declared)")
# ttnn.d2m_subgraph (a call of a D2M-compiled function, parsed as an opaque op) stays unmodeled (TTA008).
register_passive(("ttnn.generic", "ttnn.tt_lang_op"), "custom",
                 ("program", "operandSegmentSizes", "kernel_id", "version_tag", "arg_roles", "shard_spec",
                  "kernel_artifact"), f"{_SRC} GenericOp/TTLangOp (user kernels: results as declared)")
