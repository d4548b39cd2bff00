"""Creation, device, memory-management and caching ops.

``full``/``zeros``/``ones``/``empty`` produce their ``shape`` attribute
(tt-mlir ``namedOpVerify``/``EmptyOp::verify``, ``TTNNOps.cpp`` @19c86fca);
``arange`` produces ``[(end - start) / step]``.  None of them runs a device
program: ttnn fills a host buffer and writes it to the device (``full_impl``,
``ttnn/cpp/ttnn/operations/creation.cpp``; measured on ttnn 0.81.1: the only
call a graph capture of ``ttnn.full`` records is ``Tensor::to_device``), and
``empty`` only allocates.  ``get_device`` and
``deallocate`` have no tensor results; ``ttcore.load_cached`` returns the results
of the const-eval function it names.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CBContext, NoDeviceProgram
from .registry import ShapeError, int_attr, int_list, register, register_cb, register_passive

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register(("ttnn.full", "ttnn.zeros", "ttnn.ones", "ttnn.empty"), "creation",
          ("shape", "fill_value", "dtype", "layout", "memory_config"), f"{_SRC} namedOpVerify/EmptyOp::verify")
def full(op: Op):
    if op.name == "ttnn.empty" and "shape" not in op.attrs:
        return None  # EmptyOp took only the device until tt-mlir 5d11b859 (2024-09-18): its result type is its shape
    return [tuple(int_list(op, "shape"))]


@register_cb(("ttnn.full", "ttnn.zeros", "ttnn.ones", "ttnn.empty", "ttnn.arange"))
def creation_programs(ctx: CBContext):
    """No device program: a host fill and a write (``full``/``zeros``/``ones``/``arange``) or an allocation (``empty``).

    Raises:
        NoDeviceProgram: always; the message says which.
    """
    if ctx.op.name == "ttnn.empty":
        raise NoDeviceProgram("ttnn.empty allocates the tensor and runs no program")
    raise NoDeviceProgram(f"{ctx.op.name} fills a host buffer and writes it to the device "
                          "(ttnn creation full_impl/arange_impl, then Tensor::to_device)")


@register("ttnn.arange", "creation", ("start", "end", "step", "dtype", "layout", "memory_config"), f"{_SRC} ArangeOp::verify")
def arange(op: Op):
    step = int_attr(op, "step")
    if step == 0:
        raise ShapeError("arange step is zero")
    n = (int_attr(op, "end") - int_attr(op, "start")) // step
    if n <= 0:
        raise ShapeError("arange range is empty")
    return [(n,)]


register_passive(("ttnn.get_device",), "device", ("mesh_shape", "mesh_offset"), f"{_SRC} GetDeviceOp")
register_passive(("ttnn.deallocate",), "memory", ("force",), f"{_SRC} DeallocateOp")


@register("ttcore.load_cached", "memory", ("callee",), "tt-mlir include/ttmlir/Dialect/TTCore/IR/TTCoreOps.td @19c86fca LoadCachedOp")
def load_cached(op: Op):
    return None  # checked against the callee's return types by the result-type rule
