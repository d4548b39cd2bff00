"""The DiT fused RMS norm: ``ttnn.dit_rms_norm_unary_fused`` (its shape rule is in :mod:`ttanalyze.ops.norm_extra`).

tt-mlir's runtime calls ``ttnn::experimental::dit_rms_norm_unary_fused(input, epsilon, weight, bias, residual,
memory_config, program_config = nullopt, compute_config, activation)``
(``runtime/lib/ttnn/operations/normalization/dit_rms_norm_unary_fused.cpp`` @19c86fca).  ttnn 0.81.1 runs it
as one ``LayerNormDeviceOperation`` program, ``LayerNormMultiCoreProgramFactory`` for an interleaved input,
with the CBs of ``rms_norm`` (measured on the mock: the activation is applied inside the compute kernel and
adds no CB), so the model is :func:`ttanalyze.ops.reduction.layernorm_program` with ``rms = True``.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir.attrs import ComputeKernelConfig
from .cb import CB, CBContext, CBModelError, ProgramModel
from .operands import operand_groups, tensor_or_none
from .reduction import check_norm_weights, layernorm_program
from .registry import register_cb, register_check
from .tensors import _view, operand, result

BF16_TILE = 2048  # tile_size(Float16_b)

DIT_OPERANDS = ("input", "weight?", "bias?", "residual_input?")


@register_cb("ttnn.dit_rms_norm_unary_fused")
def dit_rms_norm_cb(ctx: CBContext) -> ProgramModel:
    """``LayerNormMultiCoreProgramFactory`` as for ``rms_norm`` (:func:`~ttanalyze.ops.reduction.layernorm_program`),
    the weight and bias as gamma and beta (checked as ``LayerNormDeviceOperation::validate`` does).  Without a
    compute config, fp32 accumulation is on for an f32 input and off otherwise (measured: an f32 input's CBs
    are those of 4-tile blocks with f32 intermediates).

    A residual input (fused ``x + residual`` before the norm) adds two CBs of ``2 * block`` tiles (the residual
    and the sum; block 8, 4 with fp32 accumulation) and stages a block-float input's ``Wtb`` input tiles in bf16
    (measured: the op-level campaign's residual draws, measurements/opdiff/runs/gens.jsonl.gz, bf16 and bfloat8_b,
    every one exact but the large-tensor variant's).

    Raises:
        DeviceRejection: gamma/beta checks (:func:`~ttanalyze.ops.reduction.check_norm_weights`), a height-sharded
            input.
        CBModelError: a residual with an f32 input (not measured) or with the large-tensor variant (its CBs differ:
            g1/ttnn.dit_rms_norm_unary_fused/39), a sharded or row-major input.
    """
    op = ctx.op
    g = operand_groups(op, DIT_OPERANDS)
    rv = tensor_or_none(g, "residual_input")
    x = operand(ctx, 0)
    if rv is not None and x.dtype.name == "f32":
        raise CBModelError(f"{op.name} of an f32 input with a residual (the fused pre-add's CBs are not measured)")
    gv, bv = tensor_or_none(g, "weight"), tensor_or_none(g, "bias")
    gamma = _view(ctx, gv, f"weight of {op.name}") if gv is not None else None
    beta = _view(ctx, bv, f"bias of {op.name}") if bv is not None else None
    check_norm_weights(x, gamma, beta)
    cc = op.attrs.get("compute_config")
    cc = cc if isinstance(cc, ComputeKernelConfig) else None
    fp32 = cc.fp32_dest_acc_en if cc is not None and cc.fp32_dest_acc_en is not None else x.dtype.name == "f32"
    p = layernorm_program(x, result(ctx), True, gamma, beta, fp32, ctx.grid, ctx.max_l1_space)
    if rv is not None:
        p = _with_residual(p, x, _view(ctx, rv, f"residual of {op.name}"), fp32, ctx.max_l1_space)
    activation = op.attrs.get("activation")
    if activation:
        p.notes.append(f"activation {str(activation).strip(chr(34))} fused in the compute kernel (no CB of its own)")
    return p


def _with_residual(p: ProgramModel, x, r, fp32: bool, free_l1: int) -> ProgramModel:
    """:func:`dit_rms_norm_cb`'s program with the residual's CBs (see there).

    Raises:
        CBModelError: the large-tensor variant, or CBs that reach it once the residual's are added (95% of the
            free L1, the factory's test).
    """
    if any(c.name == "accumulate" for c in p.cbs):
        raise CBModelError("dit_rms_norm_unary_fused with a residual on the large-tensor kernel is not modeled")
    block = 4 if fp32 else 8
    cores = p.cores
    cbs = [replace(c, page_bytes=BF16_TILE) if c.name == "in0" and x.dtype.is_block_float else c for c in p.cbs]
    cbs += [CB(1, "residual (in1)", r.tile_bytes, 2 * block, cores), CB(-1, "x + residual", x.tile_bytes, 2 * block, cores)]
    if sum(c.bytes for c in cbs) >= 0.95 * free_l1:
        raise CBModelError("dit_rms_norm_unary_fused with a residual near the large-tensor threshold is not modeled")
    return replace(p, cbs=cbs, notes=p.notes + [f"residual: two {2 * block}-tile CBs (measured)"])


register_check("ttnn.dit_rms_norm_unary_fused", "mock",
               "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl", ("LayerNormDeviceOperation",))
