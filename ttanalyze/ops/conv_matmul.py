"""A conv2d that ttnn runs as a matmul: the programs of ``use_matmul_for_1x1_conv`` convs.

ttnn 0.81.1 (tt-metal d80d9482, not stored; read at the newest stored
``ttnn/cpp/ttnn/operations/conv/conv2d/conv2d.cpp`` (store id 58327012562) and
``conv2d_utils.cpp`` (store id 746669609), and measured on the mock P150) runs a
conv2d whose kernel is 1x1, stride 1, no padding, dilation 1, one group and not
width sharded (``use_matmul_for_1x1_conv``) without halo or conv program:

* ``conv2d_DRAM`` hands a matmul conv to ``conv2d_L1`` ("After folding, check if
  this can be implemented as matmul and delegate to conv2d_L1");
* ``conv2d_L1`` picks a shard scheme, but ``shard_or_reshard_tensor_if_required``
  skips sharding an interleaved input when the scheme was chosen automatically
  ("In case we are in auto sharded codepath and convolution maps to matmul, skip
  sharding of the input tensor and run the matmul out of interleaved tensor");
  a row-major input is tilized in its own memory config (``ttnn::to_layout(x,
  TILE)``, here or in ``tilize_with_optional_deallocation``);
* the conv then calls ``ttnn::linear(x, w, bias, false, false, memory_config =
  nullopt, output_dtype, program_config = nullopt, activation, compute_config)``:
  the automatic matmul program config, a DRAM-interleaved result;
* a requested memory config other than the linear's result is applied with
  ``ttnn::to_memory_config``.

The weights the linear reads are the prepared ``[1, 1, C_in, C_out]`` TILE matrix
(``prepare_conv_weights_biases_and_move_to_device``, interleaved: block sizes 1)
in the conv's ``weights_dtype``, the bias ``[1, 1, 1, C_out]`` TILE in the same
dtype; both in DRAM.

The model composes the project's own models: the layout conversion of
:mod:`ttanalyze.ops.layout_conversion` and the matmul/linear model of
:mod:`ttanalyze.ops.matmul`, called on the ``ttnn.linear`` the conv makes.
"""

from __future__ import annotations

from ..ir.attrs import ComputeKernelConfig, DataType
from ..ir.model import Op, TensorType, Value
from .cb import CBContext, CBModelError, NoDeviceProgram, ProgramModel
from .layout_conversion import (conversion_program, pending_l1_output, plan_to_layout,
                                to_memory_config_program)
from .spec import TensorSpec
from .tensors import TILE, MemCfg, Tensor, operand, result, seed_views

SRC_MM_CONV = ("tt-metal ttnn/cpp/ttnn/operations/conv/conv2d/conv2d.cpp (conv2d_DRAM, conv2d_L1: the mm_conv branch; "
               "store id 58327012562) + conv2d_utils.cpp (use_matmul_for_1x1_conv, "
               "shard_or_reshard_tensor_if_required, tilize_with_optional_deallocation; store id 746669609)")
_DRAM = MemCfg("dram", "interleaved")


def _linear_context(ctx: CBContext, a: Tensor, w: Tensor, bias: Tensor | None, out: Tensor,
                    compute: ComputeKernelConfig, free_l1: int) -> CBContext:
    """A :class:`CBContext` of the ``ttnn.linear`` call conv2d makes: ``a @ w + bias -> out``.

    The operands are IR values built for the call (no layout encoding: their
    :class:`Tensor` views are given), with the op's position, so that the
    matmul model reads them exactly as it reads an IR ``ttnn.linear`` without a
    program config.  ``free_l1`` is ``get_max_l1_space`` when the linear's
    config is chosen (bytes per core).
    """
    src = ctx.op
    values = []
    for name, t in (("a", a), ("w", w), ("bias", bias), ("out", out)):
        if t is None:
            continue
        values.append(Value(f"%{src.index}.conv_{name}", TensorType(tuple(t.shape), t.dtype, None), func=src.func))
    operands, results = values[:-1], values[-1:]
    op = Op(src.index, "ttnn.linear", operands, results,
            {"transpose_a": False, "transpose_b": False, "compute_config": compute}, {}, src.pos, src.loc_text,
            src.func)
    views = seed_views(zip(values, [t for t in (a, w, bias, out) if t is not None]))
    return CBContext(op, ctx.arch, tuple(None for _ in operands), (None,), free_l1, ctx.tt_metal, 0, views)


def _weights(p, arch) -> tuple[Tensor, Tensor | None]:
    """The prepared weight matrix ``[1, 1, C_in, C_out]`` and bias ``[1, 1, 1, C_out]`` (TILE, DRAM)."""
    wdt = DataType(p.weights_dtype)
    w = Tensor((1, 1, p.in_c, p.out_c), (1, 1, _tiles(p.in_c), _tiles(p.out_c)), wdt, "tile", _DRAM,
               arch.l1_alignment, arch.dram_alignment)
    bias = None
    if p.has_bias:
        bias = Tensor((1, 1, 1, p.out_c), (1, 1, TILE, _tiles(p.out_c)), wdt, "tile", _DRAM,
                      arch.l1_alignment, arch.dram_alignment)
    return w, bias


def _tiles(n: int) -> int:
    return -(-n // TILE) * TILE


def _requested(ctx: CBContext) -> MemCfg | None:
    """The result's memory config as the runtime passes it (None: the result has no device layout)."""
    try:
        return result(ctx).mem
    except CBModelError:
        return None


def mm_conv_plan(ctx: CBContext, p) -> tuple[Tensor, Tensor, Tensor, Tensor | None, Tensor, Tensor]:
    """The tensors of a matmul conv: (input, tilized input, weights, bias, linear result, returned result).

    ``p`` is the conv's :class:`~ttanalyze.ops.conv.Conv2dParams` (``p.mm_conv``).

    Raises:
        CBModelError: a sharded input (the conv would take its shard spec for a
            matmul program config: not modeled), an explicit shard layout, or a
            sharded requested memory config.
    """
    x = operand(ctx, 0)
    if x.rank != 4 or x.shape[:2] != (1, 1):
        # conv2d flattens the input to [1, 1, N*H*W, C] first (conv2d_utils.cpp flatten_4d_shape; conv1d's
        # [N, L, C] likewise): a view of a row-major tensor
        if x.tiled:
            raise CBModelError(f"a matmul {ctx.op.name} on a TILE input of shape {list(x.shape)}: the reshape to "
                               "[1, 1, N*L, C] before the linear is not modeled")
        x = x.with_(shape=(1, 1, x.volume // x.shape[-1], x.shape[-1]))
    if x.sharded or p.shard_layout is not None:
        raise CBModelError("a matmul conv2d (1x1, stride 1) on a sharded input or with a shard_layout runs the matmul "
                           "with the conv's program config: not modeled")
    tiled = x if x.tiled else plan_to_layout(x, "tile", x.dtype, x.mem, ctx.arch).result
    w, bias = _weights(p, ctx.arch)
    n_rows = tiled.shape[-2]
    lin = Tensor((1, 1, n_rows, p.out_c), (1, 1, _tiles(n_rows), _tiles(p.out_c)), DataType(p.out_dtype), "tile",
                 _DRAM, ctx.arch.l1_alignment, ctx.arch.dram_alignment)
    want = _requested(ctx)
    if want is not None and want.sharded:
        raise CBModelError("a matmul conv2d (1x1, stride 1) moved to a sharded memory config is not modeled")
    final = lin if want is None or want == lin.mem else lin.with_(mem=want)
    return x, tiled, w, bias, lin, final


def mm_conv_programs(ctx: CBContext, p) -> list[ProgramModel]:
    """The programs of a matmul conv2d, in order: the input's tilize (row-major input), the linear's programs
    (:func:`ttanalyze.ops.matmul.matmul_program`), the move to the requested memory config.

    Raises:
        CBModelError: see :func:`mm_conv_plan`.
        DeviceRejection: what the tilize and matmul models predict tt-metal refuses.
    """
    from .matmul import matmul_program

    x, tiled, w, bias, lin, final = mm_conv_plan(ctx, p)
    steps: list[ProgramModel] = []
    free = ctx.max_l1_space_before_outputs
    if not x.tiled:
        conv = plan_to_layout(x, "tile", x.dtype, x.mem, ctx.arch)
        try:
            prog = conversion_program(conv, ctx.arch, free, free - pending_l1_output(ctx.arch, conv.result),
                                      ctx.tt_metal)
        except NoDeviceProgram:
            prog = None
        if prog is not None:
            prog.inputs, prog.outputs = (x,), (conv.result,)
            prog.notes.append("conv2d tilizes its row-major input for the matmul (conv2d_utils.cpp "
                              "tilize_with_optional_deallocation)")
            steps.append(prog)
    compute = ComputeKernelConfig(fp32_dest_acc_en=p.fp32_dest_acc_en, packer_l1_acc=p.packer_l1_acc)
    mm = matmul_program(_linear_context(ctx, tiled, w, bias, lin, compute, free))
    for prog in mm:
        prog.notes.append(f"conv2d {p.kernel[0]}x{p.kernel[1]} stride {p.stride[0]}x{p.stride[1]} runs as "
                          "ttnn::linear without a program config (conv2d.cpp mm_conv)")
    steps += mm
    if final.mem != lin.mem:
        move = to_memory_config_program(lin, final, ctx.arch)
        if move is not None:
            move.inputs, move.outputs = (lin,), (final,)
            steps.append(move)
    return steps


def mm_conv_output(ctx: CBContext, p) -> TensorSpec:
    """What a matmul conv2d returns: ``[1, 1, N*H*W, C_out]`` TILE in the output dtype, DRAM interleaved (the
    linear's default) or the requested interleaved memory config.

    Raises:
        CBModelError: see :func:`mm_conv_plan`.
    """
    return mm_conv_plan(ctx, p)[-1].spec()
