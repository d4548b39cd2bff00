"""The DiT fused RMS norm: ``ttnn.dit_rms_norm_unary_fused`` (its shape rule is in :mod:`ttanalyze.ops.norm_extra`).

tt-mlir's runtime calls ``ttnn::experimental::dit_rms_norm_unary_fused(input, epsilon, weight, bias, residual,
memory_config, program_config = nullopt, compute_config, activation)``
(``runtime/lib/ttnn/operations/normalization/dit_rms_norm_unary_fused.cpp`` @19c86fca).  ttnn 0.81.1 runs it
as one ``LayerNormDeviceOperation`` program, ``LayerNormMultiCoreProgramFactory`` for an interleaved input,
with the CBs of ``rms_norm`` (measured on the mock: the activation is applied inside the compute kernel and
adds no CB), so the model is :func:`ttanalyze.ops.reduction.layernorm_program` with ``rms = True``.
"""

from __future__ import annotations

from ..ir.attrs import ComputeKernelConfig
from .cb import CBContext, CBModelError, ProgramModel
from .operands import operand_groups, tensor_or_none
from .reduction import check_norm_weights, layernorm_program
from .registry import register_cb, register_check
from .tensors import _view, operand, result

DIT_OPERANDS = ("input", "weight?", "bias?", "residual_input?")


@register_cb("ttnn.dit_rms_norm_unary_fused")
def dit_rms_norm_cb(ctx: CBContext) -> ProgramModel:
    """``LayerNormMultiCoreProgramFactory`` as for ``rms_norm`` (:func:`~ttanalyze.ops.reduction.layernorm_program`),
    the weight and bias as gamma and beta (checked as ``LayerNormDeviceOperation::validate`` does).  Without a
    compute config, fp32 accumulation is on for an f32 input and off otherwise (measured: an f32 input's CBs
    are those of 4-tile blocks with f32 intermediates).

    Raises:
        DeviceRejection: gamma/beta checks (:func:`~ttanalyze.ops.reduction.check_norm_weights`), a height-sharded
            input.
        CBModelError: a residual input (the fused pre-add's CBs are not modeled), a sharded or row-major input.
    """
    op = ctx.op
    g = operand_groups(op, DIT_OPERANDS)
    if tensor_or_none(g, "residual_input") is not None:
        raise CBModelError(f"{op.name} with a residual input (the fused pre-add's CBs are not modeled)")
    x = operand(ctx, 0)
    gv, bv = tensor_or_none(g, "weight"), tensor_or_none(g, "bias")
    gamma = _view(ctx, gv, f"weight of {op.name}") if gv is not None else None
    beta = _view(ctx, bv, f"bias of {op.name}") if bv is not None else None
    check_norm_weights(x, gamma, beta)
    cc = op.attrs.get("compute_config")
    cc = cc if isinstance(cc, ComputeKernelConfig) else None
    fp32 = cc.fp32_dest_acc_en if cc is not None and cc.fp32_dest_acc_en is not None else x.dtype.name == "f32"
    p = layernorm_program(x, result(ctx), True, gamma, beta, fp32, ctx.grid, ctx.max_l1_space)
    activation = op.attrs.get("activation")
    if activation:
        p.notes.append(f"activation {str(activation).strip(chr(34))} fused in the compute kernel (no CB of its own)")
    return p


register_check("ttnn.dit_rms_norm_unary_fused", "mock",
               "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl", ("LayerNormDeviceOperation",))
