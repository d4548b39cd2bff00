"""Quantization: ``quantize``, ``dequantize``, ``requantize``.

Each is elementwise over its input with per-tensor or per-axis scales and zero points: the result
has the input's shape (tt-mlir ``QuantizeOp``/``DequantizeOp``/``RequantizeOp::verify``,
``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca); a per-axis scale (``axis`` given) indexes a dim of the
input.  The runtime calls ``ttnn::quantize``/``dequantize``/``requantize``
(``runtime/lib/ttnn/operations/eltwise/quantization/quantization.cpp`` @19c86fca), composites of
eltwise programs.  Per-tensor quantization (a 1-element scale and zero point: tt-mlir's flatbuffer
then passes them as scalars, ``lib/Target/TTNN/TTNNToFlatbuffer.cpp`` @19c86fca) runs one
``BinaryNgDeviceOperation`` program (:func:`quantization_cb`); per-axis quantization is not modeled.
"""

from __future__ import annotations

from math import prod

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, ProgramModel
from .registry import int_attr, norm_dim, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import operand, result
from .work_split import full_grid

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"), "quantization",
          ("axis", "output_dtype", "memory_config"), f"{_SRC} QuantizeOp/DequantizeOp/RequantizeOp::verify")
def quantization(op: Op):
    """The input's shape (``verifyQuantizeOpCommon`` checks element types and the axis, not shapes)."""
    x = tensor_shape(op, 0)
    if "axis" in op.attrs and x:
        norm_dim(int_attr(op, "axis"), len(x), op)
    return [x]


_BNG_SRC = ("tt-metal ttnn/cpp/ttnn/operations/eltwise/binary_ng/device/programs/binary_ng_program_factory.cpp "
            "(the QUANT/DEQUANT/REQUANT ops with a scalar rhs; measured on ttnn 0.81.1)")
SCALAR_CB_BYTES = 4096  # the scalar operand's CB: 4,096 B whatever the input and output dtypes (measured)


@register_cb(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"))
def quantization_cb(ctx: CBContext) -> ProgramModel:
    """Per-tensor ``quantize``/``dequantize``/``requantize``: one ``BinaryNgDeviceOperation::ProgramFactory``
    program on the whole grid with ``c_0`` 2 tiles of the input, ``c_1`` the scalar (4,096 B) and ``c_2``
    2 tiles of the result (measured on the mock for bf16/f32/si32 inputs and si32/bf16/f32 results, DRAM
    and L1: every instance).

    Raises:
        CBModelError: per-axis scales or zero points (a tensor operand), or sharded tensors.
    """
    x, out = operand(ctx, 0), result(ctx)
    params = [v for v in ctx.op.operands[1:] if v.is_tensor]
    if any(prod(v.type.shape) != 1 for v in params):
        raise CBModelError(f"{ctx.op.name} with per-axis scales or zero points is not modeled (per-tensor only)")
    if x.sharded or out.sharded or not x.tiled:
        raise CBModelError(f"{ctx.op.name} is modeled for interleaved TILE tensors only")
    cores = full_grid(ctx.grid)
    cbs = [CB(0, "a", x.tile_bytes, 2, cores), CB(1, "scalar", SCALAR_CB_BYTES, 1, cores),
           CB(2, "c", out.tile_bytes, 2, cores)]
    return ProgramModel("BinaryNgDeviceOperation::ProgramFactory", _BNG_SRC, cores, cbs,
                        ["per-tensor: the scale and zero point are scalars"], inputs=(x,), outputs=(out,))


@register_spec(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"))
def quantization_spec(ctx: CBContext) -> list[TensorSpec]:
    """The input's shape and layout in the result's dtype and memory config (binary_ng's output spec)."""
    out = result(ctx)
    return [operand(ctx, 0).with_(dtype=out.dtype, mem=out.mem).spec()]


register_check(("ttnn.quantize", "ttnn.dequantize", "ttnn.requantize"), "mock",
               "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl",
               ("BinaryNgDeviceOperation",))
