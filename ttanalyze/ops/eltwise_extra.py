"""Elementwise ops outside the unary/binary classes: ``clamp_tensor`` and ``gelu_bw``.

``clamp_tensor(input, min, max)`` and ``gelu_bw(grad, input)`` are elementwise with numpy-style
broadcasting (tt-mlir ``TTNNOps.td`` @19c86fca; ``GeluBackwardOp::verify`` checks ``approximate``
is ``none`` or ``tanh``): the result is the operands' broadcast shape.

Programs: tt-mlir's runtime calls ``ttnn::clamp(input, min, max, memory_config)``
(``runtime/lib/ttnn/operations/eltwise/unary/unary_composite.cpp`` @19c86fca), which in ttnn 0.81.1
runs three ``BinaryNgDeviceOperation`` programs, MINIMUM, MINIMUM, MAXIMUM (read from the mock's graph
capture: :func:`clamp_tensor_cb`).  ``gelu_bw``'s program is not modeled.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CBContext, CBModelError, ProgramModel
from .eltwise import BinaryCall, binary_program, broadcast
from .registry import ShapeError, register, register_cb, register_check, tensor_shape
from .tensors import operand, result

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.clamp_tensor", "eltwise_ternary", ("memory_config",), f"{_SRC} ClampTensorOp")
def clamp_tensor(op: Op):
    shape = tensor_shape(op, 0)
    for i in (1, 2):
        shape = broadcast(shape, tensor_shape(op, i))
    return [shape]


@register_cb("ttnn.clamp_tensor")
def clamp_tensor_cb(ctx: CBContext) -> list[ProgramModel]:
    """``ttnn::clamp(a, min, max)`` with tensor bounds: three binary_ng programs
    (:func:`~ttanalyze.ops.eltwise.binary_program` each, on the whole grid, in this order):

    1. ``bounds = minimum(min, max)``, shaped ``broadcast(min, max)``, in min's dtype;
    2. ``a_max = minimum(a, max)``, shaped ``broadcast(a, max)``;
    3. ``maximum(a_max, bounds)``, the result.

    Each intermediate takes the result's memory config (``output_memory_config``).  The op order is what
    the mock's graph capture records for ttnn 0.81.1 (BinaryOpType MINIMUM, MINIMUM, MAXIMUM); the
    operands of each step are inferred from which steps need a broadcast CB (measured on 10 random
    instances: min/max full, row, column and scalar shaped, bf16/f32, DRAM/L1), so with mixed dtypes the
    byte size of a broadcast CB of step 1 or 3 may be the other operand's.  The stored tt-metal source
    (``eltwise/unary/device/unary_composite_op.cpp``, later than 0.81.1) runs ``where``/``eq``/``relu``
    around these instead.

    Sharded operands and results run the same three programs, each on binary_ng's sharded path where its
    operands qualify (:func:`~ttanalyze.ops.eltwise.binary_program`; measured: g1/ttnn.clamp_tensor/4, 14, 17,
    22, 37, 46 all sharded alike: no DFB of their own; 39, 47 with an interleaved bound: 2-tile DFBs).

    Raises:
        CBModelError: non-TILE tensors (not measured), and what binary_program does not model.
    """
    a, lo, hi, out = operand(ctx, 0), operand(ctx, 1), operand(ctx, 2), result(ctx)
    if any(not t.tiled for t in (a, lo, hi, out)):
        raise CBModelError("clamp_tensor is modeled for TILE tensors only")
    bounds = lo.with_(shape=broadcast(lo.shape, hi.shape), mem=out.mem)
    a_max = a.with_(shape=broadcast(a.shape, hi.shape), mem=out.mem)
    steps = [binary_program(BinaryCall("minimum"), lo, hi, bounds, ctx.grid),
             binary_program(BinaryCall("minimum"), a, hi, a_max, ctx.grid),
             binary_program(BinaryCall("maximum"), a_max, bounds, out, ctx.grid)]
    for step, what in zip(steps, ("bounds = minimum(min, max)", "a_max = minimum(a, max)", "maximum(a_max, bounds)")):
        step.notes.insert(0, what)
    return steps


register_check("ttnn.clamp_tensor", "mock", "tests/test_ops_dialect_rest.py against measurements/dialect/results_rest.jsonl",
               ("BinaryNgDeviceOperation",))


@register("ttnn.gelu_bw", "eltwise_binary", ("approximate", "memory_config"), f"{_SRC} GeluBackwardOp::verify")
def gelu_bw(op: Op):
    approximate = str(op.attrs.get("approximate", "none")).strip('"')
    if approximate not in ("none", "tanh"):
        raise ShapeError(f"{op.name}: approximate must be 'none' or 'tanh', got '{approximate}'")
    return [broadcast(tensor_shape(op, 0), tensor_shape(op, 1))]
