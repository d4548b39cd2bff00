"""conv1d, conv_transpose2d, max_pool2d_with_indices, global_avg_pool2d and the conv weight/bias preparation ops.

Shapes follow tt-mlir (``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca): convolutions return the
flattened ``[1, 1, N * H_out * W_out, C_out]`` (``Conv1dOp``: ``[1, 1, N * L_out, C_out]``), with

* ``conv1d``: ``L_out = (L + pL + pR - dilation * (K - 1) - 1) / stride + 1``;
* ``conv_transpose2d``: ``H_out = (H - 1) * stride - 2 * pad + dilation * (K - 1) + output_padding + 1``
  (``ConvTranspose2dOp::verify``'s expected size; the result flattened or ``[N, H_out, W_out, C_out]``);
* ``max_pool2d_with_indices``: values and indices shaped like ``max_pool2d``'s result;
* ``global_avg_pool2d``: a 4D ``[N, H, W, C]`` input -> ``[N, 1, 1, C]``.

The preparation ops reorder weights and biases for conv2d / conv_transpose2d; their results are
taken as declared.

Programs: ``conv1d`` is tt-metal's conv2d on the input viewed as ``[N, 1, L, C]`` with a ``1 x K`` window
(:func:`conv1d_params`; measured: measurements/dialect/results_misc.jsonl, conv1d/*, every conv program
equals that conv2d's), a 1x1 stride-1 conv1d the tilize + linear of :mod:`.conv_matmul`; a conv1d whose
stride equals its kernel folds its input into a matmul (``ttnn::fold``, not modeled: out of scope).
``max_pool2d_with_indices`` is the max pool with ``return_indices`` (halo and pool programs, values and
uint16 indices: :func:`ttanalyze.ops.conv.pool_programs`, measured by the op-level campaign);
``conv_transpose2d`` runs the conv2d micro-op over its stride-dilated, padded input
(:func:`conv_transpose2d_params`; measured: measurements/conv_transpose2d/results.jsonl).
global_avg_pool2d's programs (ttnn 0.81.1's global-window fast path of avg_pool2d: a fold, an H
reduction and reshapes, measured) are in :mod:`ttanalyze.ops.pool_global`.  The cost model
costs conv_transpose2d (and a global_avg_pool2d outside its program model) by its main device operation
(cost/ir.py NAME_OP_CODES).
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CBContext, CBModelError, NoDeviceProgram, ProgramModel
from .conv import conv2d_outputs, conv2d_programs, conv_params, conv_program, pool2d
from .conv_matmul import mm_conv_programs
from .registry import (ShapeError, int_attr, int_list, register, register_cb, register_check, register_passive,
                       register_spec, tensor_shape)
from .spec import TensorSpec

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_CONV_ATTRS = ("in_channels", "out_channels", "batch_size", "kernel_size", "stride", "padding", "dilation", "groups",
               "conv2d_config", "compute_config", "conv2d_slice_config", "dtype", "memory_config", "operandSegmentSizes")


@register("ttnn.conv1d", "conv", (*_CONV_ATTRS, "input_length"), f"{_SRC} Conv1dOp::verify")
def conv1d(op: Op):
    x = tensor_shape(op, 0)
    if len(x) != 3:
        raise ShapeError(f"{op.name}: input must be 3D (N, L_in, C), got rank {len(x)}")
    groups = int_attr(op, "groups")
    cin, cout = int_attr(op, "in_channels"), int_attr(op, "out_channels")
    if groups <= 0 or cin % groups or cout % groups:
        raise ShapeError(f"{op.name}: in_channels {cin} and out_channels {cout} must be divisible by groups {groups}")
    pad = int_list(op, "padding")
    if len(pad) != 2:
        raise ShapeError(f"{op.name}: padding must have 2 elements ([pL, pR])")
    k, s, d = int_attr(op, "kernel_size"), int_attr(op, "stride"), int_attr(op, "dilation")
    length = (int_attr(op, "input_length") + pad[0] + pad[1] - d * (k - 1) - 1) // s + 1
    if length <= 0:
        raise ShapeError(f"{op.name}: the output length is {length}")
    return [(1, 1, int_attr(op, "batch_size") * length, cout)]


def conv1d_params(ctx: CBContext):
    """The :class:`~ttanalyze.ops.conv.Conv2dParams` of the conv2d a ``ttnn.conv1d`` runs.

    ``ttnn::conv1d`` (tt-metal ``ttnn/cpp/ttnn/operations/conv/conv1d/conv1d.cpp``, not stored at d80d9482)
    runs conv2d on the input viewed as ``[N, 1, L, C]`` with a ``1 x K`` window, stride ``1 x s``,
    padding ``(0, 0, pL, pR)`` and dilation ``1 x d``: measured on the mock P150 (ttnn 0.81.1,
    measurements/dialect/results_misc.jsonl conv1d/0-11), the conv program's CBs of every non-folding
    case equal this conv2d's (a ``K x 1`` window over ``[N, L, 1, C]``, the reading the stored notes
    suggested, gives one ``C``-wide activation block where ttnn reads ``K * C``).

    Raises:
        CBModelError: see :func:`~ttanalyze.ops.conv.conv_params` (stride == kernel > 1 folds into a matmul
            in ttnn: not modeled); its shape rule fails.
    """
    op = ctx.op
    try:
        conv1d(op)
    except ShapeError as exc:
        raise CBModelError(f"its shape rule fails: {exc}") from None
    pad = int_list(op, "padding")
    return conv_params(ctx, batch=int_attr(op, "batch_size"), in_h=1, in_w=int_attr(op, "input_length"),
                       kernel=(1, int_attr(op, "kernel_size")), stride=(1, int_attr(op, "stride")),
                       padding=(0, 0, pad[0], pad[1]), dilation=(1, int_attr(op, "dilation")))


@register_cb("ttnn.conv1d")
def conv1d_cb(ctx: CBContext) -> list[ProgramModel]:
    """The programs of ``ttnn.conv1d``: its conv2d's (:func:`conv1d_params`; the halo and conv programs, or the
    tilize + linear of a 1x1 stride-1 conv)."""
    return conv2d_programs(ctx, conv1d_params(ctx))


@register_spec("ttnn.conv1d")
def conv1d_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``ttnn.conv1d`` returns: its conv2d's output ``[1, 1, N * L_out, C_out]``."""
    return conv2d_outputs(ctx, conv1d_params(ctx))


register_check("ttnn.conv1d", "mock", "tests/test_ops_dialect_misc.py (measurements/dialect/results_misc.jsonl conv1d/*)",
               ("Conv2dDeviceOperation", "MatmulDeviceOperation"))


@register("ttnn.conv_transpose2d", "conv", (*_CONV_ATTRS, "input_height", "input_width", "output_padding"),
          f"{_SRC} ConvTranspose2dOp::verify")
def conv_transpose2d(op: Op):
    """``[1, 1, N*H_out*W_out, C_out]``, or ``[N, H_out, W_out, C_out]`` when the IR declares the unflattened form."""
    k, s, p = int_list(op, "kernel_size"), int_list(op, "stride"), int_list(op, "padding")
    op_pad, d = int_list(op, "output_padding"), int_list(op, "dilation")
    n, cout = int_attr(op, "batch_size"), int_attr(op, "out_channels")
    hw = (int_attr(op, "input_height"), int_attr(op, "input_width"))
    out = [(hw[i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op_pad[i] + 1 for i in range(2)]
    if min(out) < 0:
        raise ShapeError(f"{op.name}: the output size per channel {out[0]} x {out[1]} is too small")
    flat, full = (1, 1, n * out[0] * out[1], cout), (n, out[0], out[1], cout)
    declared = op.results[0].type.shape if op.results and op.results[0].is_tensor else None
    return [full if declared is not None and tuple(declared) == full else flat]


def conv_transpose2d_params(ctx: CBContext):
    """The :class:`~ttanalyze.ops.conv.Conv2dParams` of the conv2d micro-op a ``ttnn.conv_transpose2d`` runs.

    ``conv_transpose2d_L1`` (tt-metal ``ttnn/cpp/ttnn/operations/conv/conv_transpose2d/conv_transpose2d.cpp``,
    newest stored version, store id 52273216143) has the halo op write the input with ``stride - 1`` zeros
    between rows and columns and ``dilation * (K - 1) - padding`` of padding around (``is_transpose``), then runs
    the conv2d micro-op with stride 1 and no padding over that ``full_input = output + dilation * (K - 1)``
    image ("For transposed conv2d, the conv2d micro-op always uses stride=1x1 and padding=0. We must pass these
    values to auto-shard").  Measured on the mock P150 (measurements/conv_transpose2d/results.jsonl, 24 random
    instances): every conv program's CBs equal this conv2d's.

    Raises:
        CBModelError: four padding values, or see :func:`~ttanalyze.ops.conv.conv_params`; its shape rule fails.
    """
    op = ctx.op
    try:
        conv_transpose2d(op)
    except ShapeError as exc:
        raise CBModelError(f"its shape rule fails: {exc}") from None
    k, s, pad = int_list(op, "kernel_size"), int_list(op, "stride"), int_list(op, "padding")
    if len(pad) != 2:
        raise CBModelError(f"{op.name} with {len(pad)} padding values is not modeled")
    op_pad, d = int_list(op, "output_padding"), int_list(op, "dilation")
    hw = (int_attr(op, "input_height"), int_attr(op, "input_width"))
    out = [(hw[i] - 1) * s[i] - 2 * pad[i] + d[i] * (k[i] - 1) + op_pad[i] + 1 for i in range(2)]
    full = [out[i] + d[i] * (k[i] - 1) for i in range(2)]
    return conv_params(ctx, batch=int_attr(op, "batch_size"), in_h=full[0], in_w=full[1], kernel=(k[0], k[1]),
                       stride=(1, 1), padding=(0, 0, 0, 0), dilation=(d[0], d[1]))


@register_cb("ttnn.conv_transpose2d")
def conv_transpose2d_cb(ctx: CBContext) -> list[ProgramModel]:
    """The conv program of ``ttnn.conv_transpose2d`` (:func:`conv_transpose2d_params`); a 1x1 stride-1
    transposed conv runs the tilize + linear of :mod:`.conv_matmul`.

    The halo program before it (the transposed halo, which inserts the stride's zeros) and the input's
    sharding are not listed (their static CBs, config rows and tile-sized untilize buffers, are not modeled
    for the transposed window).

    Raises:
        CBModelError: see :func:`conv_transpose2d_params`; a conv that needs DRAM slicing (not measured).
    """
    p = conv_transpose2d_params(ctx)
    if p.mm_conv:
        return mm_conv_programs(ctx, p)
    prog = conv_program(p, ctx.arch, ctx.max_l1_space)
    if prog.params["conv"]["slices"] > 1:
        raise CBModelError(f"{ctx.op.name} that needs DRAM slicing is not modeled")
    prog.notes.append("the transposed halo program before it (stride zeros, padding) is not listed")
    return [prog]


@register_spec("ttnn.conv_transpose2d")
def conv_transpose2d_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``ttnn.conv_transpose2d`` returns: its conv2d micro-op's output ``[1, 1, N * H_out * W_out, C_out]``
    (TILE, DRAM interleaved for a DRAM input: measured)."""
    return conv2d_outputs(ctx, conv_transpose2d_params(ctx))


register_check("ttnn.conv_transpose2d", "mock",
               "tests/test_cb_conv_matmul.py (measurements/conv_transpose2d/results.jsonl)", ("Conv2dDeviceOperation",))


@register("ttnn.max_pool2d_with_indices", "pool",
          ("batch_size", "input_height", "input_width", "channels", "kernel_size", "stride", "padding", "dilation",
           "applied_shard_scheme", "ceil_mode", "reallocate_halo_output", "config_tensors_in_dram"),
          f"{_SRC} MaxPool2dWithIndicesOp::verify (verifyPoolingOp)")
def max_pool2d_with_indices(op: Op):
    [shape] = pool2d(op)
    return [shape, shape]


@register("ttnn.global_avg_pool2d", "pool", ("dtype", "memory_config"), f"{_SRC} GlobalAvgPool2dOp::verify")
def global_avg_pool2d(op: Op):
    x = tensor_shape(op, 0)
    if len(x) != 4:
        raise ShapeError(f"{op.name}: input must be a 4D tensor, got rank {len(x)}")
    return [(x[0], 1, 1, x[3])]


register_passive(("ttnn.prepare_conv2d_weights", "ttnn.prepare_conv2d_bias", "ttnn.prepare_conv_transpose2d_weights",
                  "ttnn.prepare_conv_transpose2d_bias"), "conv",
                 ("input_memory_config", "input_tensor_layout", "weights_format", "in_channels", "out_channels",
                  "batch_size", "input_height", "input_width", "kernel_size", "stride", "padding", "output_padding",
                  "dilation", "has_bias", "groups", "input_dtype", "output_dtype", "conv2d_config", "compute_config",
                  "conv2d_slice_config"), f"{_SRC} PrepareConv2dWeightsOp/... (host-side reorders)")



@register_cb(("ttnn.prepare_conv_transpose2d_weights", "ttnn.prepare_conv_transpose2d_bias"))
def prepare_conv_transpose2d_cb(ctx: CBContext) -> ProgramModel:
    """The weight/bias preparation of conv_transpose2d, like conv2d's (``ttanalyze.programs.NO_PROGRAM``):
    host-side reorders of host tensors (tt-mlir hoists them into const-eval functions).

    Raises:
        NoDeviceProgram: always.
    """
    raise NoDeviceProgram(f"{ctx.op.name} reorders a host tensor: no device program")


register_check(("ttnn.prepare_conv_transpose2d_weights", "ttnn.prepare_conv_transpose2d_bias"), "none",
               "host-side reorders, as prepare_conv2d_weights/bias (ttanalyze/programs.py NO_PROGRAM)")
