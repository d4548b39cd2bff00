"""Batch norm and the distributed (multi-device) norms.

Shape rules (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca): ``batch_norm_inference`` /
``batch_norm_training`` (``verifyTTNNBatchNormOp``), ``distributed_rms_norm`` /
``distributed_layer_norm`` (output shape = input shape; a residual shaped like the input) and
``layer_norm_post_all_gather`` / ``dit_rms_norm_unary_fused`` return the input's shape;
``rms_norm_pre_all_gather`` / ``layer_norm_pre_all_gather`` return per-row statistics of the
input's leading dims with a last dim the op's stats width (checked on the leading dims only, as
``RMSNormPreAllGatherOp::verify`` does).  Shapes are per device (see :mod:`ttanalyze.mesh`).

Programs: ``batch_norm_inference`` runs one ``BatchNormOperation::BatchNormFactory`` program
(:func:`batch_norm_inference_cb`); ``rms_norm_pre_all_gather`` / ``layer_norm_pre_all_gather`` one
``LayerNormPreAllGatherProgramFactory`` program (:func:`pre_all_gather_cb`); the post-all-gather step
and the distributed norms are in :mod:`ttanalyze.ops.norm_distributed`, ``dit_rms_norm_unary_fused``'s in
:mod:`ttanalyze.ops.dit_norm`.
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .data_movement import fill_pad_program
from .operands import operand_groups, shape_of, tensor_or_none
from .registry import ShapeError, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import Tensor, operand, result
from .work_split import full_grid, split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"

_DIST_RMS = ("input", "weight?", "residual?", "stats?", "semaphore?", "device")
_DIST_LN = ("input", "weight?", "bias?", "residual?", "device")


@register(("ttnn.batch_norm_inference", "ttnn.batch_norm_training"), "normalization",
          ("epsilon", "momentum", "compute_config", "memory_config", "operandSegmentSizes"),
          f"{_SRC} verifyTTNNBatchNormOp")
def batch_norm(op: Op):
    return [tensor_shape(op, 0)]


def _residual(op: Op, groups, x) -> None:
    r = tensor_or_none(groups, "residual")
    if r is not None and shape_of(op, r, "residual") != x:
        raise ShapeError(f"{op.name}: residual {list(shape_of(op, r, 'residual'))} must match the input {list(x)}")


@register("ttnn.distributed_rms_norm", "normalization",
          ("cluster_axis", "epsilon", "sub_device_id", "num_links", "topology", "compute_config", "program_config",
           "operandSegmentSizes"), f"{_SRC} DistributedRMSNormOp::verify")
def distributed_rms_norm(op: Op):
    g = operand_groups(op, _DIST_RMS)
    x = shape_of(op, tensor_or_none(g, "input"), "input")
    _residual(op, g, x)
    return [x]


@register("ttnn.distributed_layer_norm", "normalization", ("cluster_axis", "epsilon", "operandSegmentSizes"),
          f"{_SRC} DistributedLayerNormOp::verify")
def distributed_layer_norm(op: Op):
    g = operand_groups(op, _DIST_LN)
    x = shape_of(op, tensor_or_none(g, "input"), "input")
    _residual(op, g, x)
    for name in ("weight", "bias"):
        w = tensor_or_none(g, name)
        if w is not None and shape_of(op, w, name) != (x[-1],):
            raise ShapeError(f"{op.name}: {name} must be [{x[-1]}], got {list(shape_of(op, w, name))}")
    return [x]


@register(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"), "normalization",
          ("compute_config", "program_config", "use_2d_core_grid", "dtype", "memory_config", "operandSegmentSizes"),
          f"{_SRC} RMSNormPreAllGatherOp/LayerNormPreAllGatherOp::verify")
def pre_all_gather(op: Op):
    """Statistics: the input's leading dims, the last dim as declared (checked on the leading dims)."""
    x = tensor_shape(op, 0)
    if len(x) < 2:
        raise ShapeError(f"{op.name}: input rank must be > 1, got {len(x)}")
    if not op.results or not op.results[0].is_tensor:
        raise ShapeError(f"{op.name} needs a tensor result")
    declared = op.results[0].type.shape
    if len(declared) != len(x) or tuple(declared[:-1]) != tuple(x[:-1]):
        raise ShapeError(f"{op.name}: statistics {list(declared)} must keep the input's leading dims {list(x[:-1])}")
    return [tuple(declared)]


@register(("ttnn.layer_norm_post_all_gather", "ttnn.dit_rms_norm_unary_fused"), "normalization",
          ("epsilon", "activation", "compute_config", "program_config", "dtype", "memory_config",
           "operandSegmentSizes"), f"{_SRC} LayerNormPostAllGatherOp/DitRMSNormUnaryFusedOp::verify")
def same_as_input(op: Op):
    return [tensor_shape(op, 0)]


_BN_SRC = ("tt-metal ttnn/cpp/ttnn/operations/normalization/batch_norm/device/batch_norm_program_factory.cpp "
           "@026aac04 (measured on ttnn 0.81.1)")


def batch_norm_program(x: Tensor, mean: Tensor, var: Tensor, weight: Tensor | None, bias: Tensor | None, out: Tensor,
                       grid: tuple[int, int]) -> ProgramModel:
    """``BatchNormOperation::BatchNormFactory`` of ``out = (x - mean) / sqrt(var + eps) * weight + bias``.

    Every CB is created on the whole grid (``all_device_cores``; the output tiles are split over it
    row-major) and double-buffered (2 tiles): input, batch mean, output, batch variance, epsilon,
    weight, bias (Float16_b when absent) and two intermediates of the input's format.  ttnn 0.81.1
    allocates these 9 (measured); the stored source at 026aac04 lists a third intermediate (c_9).

    Raises:
        CBModelError: row-major or sharded tensors, or statistics of another dtype than the input
            (which CB takes which format is then not pinned down by the measurements).
    """
    stats = [t for t in (mean, var, weight, bias) if t is not None]
    if not x.tiled or x.sharded or out.sharded or any(not t.tiled or t.sharded for t in stats):
        raise CBModelError("batch_norm is modeled for interleaved TILE tensors only")
    if any(t.dtype != x.dtype for t in stats) or out.dtype != x.dtype:
        raise CBModelError("batch_norm with statistics or a result of another dtype than the input is not modeled")
    cores = full_grid(grid)
    t = x.tile_bytes
    bf16 = 2048  # Float16_b: the weight / bias CB format when the operand is absent
    sizes = [("input", t), ("batch_mean", t), ("output", out.tile_bytes), ("batch_var", t), ("eps", t),
             ("weight", t if weight is not None else bf16), ("bias", t if bias is not None else bf16), ("den", t),
             ("num", t)]
    return ProgramModel("BatchNormOperation::BatchNormFactory", _BN_SRC, cores,
                        [CB(i, name, size, 2, cores) for i, (name, size) in enumerate(sizes)],
                        ["9 double-buffered CBs on the whole grid"], inputs=tuple(t for t in (x, mean, var, weight, bias)
                                                                                  if t is not None), outputs=(out,))


def _bn_operands(ctx: CBContext) -> tuple[Tensor, Tensor | None, Tensor | None, Tensor | None, Tensor | None]:
    """The input, running mean, running variance, weight and bias (None when absent) of a batch norm op."""
    g = operand_groups(ctx.op, ("input", "running_mean?", "running_var?", "weight?", "bias?"))
    views = [tensor_or_none(g, n) for n in ("input", "running_mean", "running_var", "weight", "bias")]
    return tuple(None if v is None else operand(ctx, ctx.op.operands.index(v)) for v in views)  # type: ignore[return-value]


@register_cb("ttnn.batch_norm_inference")
def batch_norm_inference_cb(ctx: CBContext) -> ProgramModel:
    """``BatchNormOperation::BatchNormFactory`` (the runtime calls ``ttnn::batch_norm(..., training=false)``) on the
    running statistics (:func:`batch_norm_program`).

    Raises:
        CBModelError: see :func:`batch_norm_program`; running statistics absent.
    """
    x, mean, var, weight, bias = _bn_operands(ctx)
    if mean is None or var is None:
        raise CBModelError("batch_norm_inference without running statistics")
    return batch_norm_program(x, mean, var, weight, bias, result(ctx), ctx.grid)


_RS_SRC = ("tt-metal ttnn/cpp/ttnn/operations/normalization/batch_norm/device/running_statistics_program_factory.cpp "
           "@0640bf7f (ttnn 0.81.1 allocates 9 of its CBs: measured)")
_TRAIN_SRC = "tt-metal ttnn/cpp/ttnn/operations/normalization/batch_norm/batch_norm.cpp (the 0.81.1 chain measured)"


def running_statistics_program(mean: Tensor, var: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                               out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``RunningStatistics::RunningStatisticsFactory``: the momentum update of the running mean and variance.

    Nine double-buffered CBs on the whole grid: batch mean (``c_0``), batch variance (``c_1``), output
    (``c_2``), old running mean and variance (``c_3``, ``c_4``: Float16_b when absent), momentum and one
    (``c_5``, ``c_6``: the batch variance's format), updated mean and variance (``c_27``, ``c_28``).  The
    stored source (@0640bf7f) adds three intermediates (``c_21``-``c_23``) that ttnn 0.81.1 does not
    allocate (measured: 9 x 2 tiles for bf16 and f32 statistics).
    """
    cores = full_grid(grid)
    bf16 = 2048
    rm = running_mean.tile_bytes if running_mean is not None else bf16
    rv = running_var.tile_bytes if running_var is not None else bf16
    sizes = [(0, "batch_mean", mean.tile_bytes), (1, "batch_var", var.tile_bytes), (2, "output", out.tile_bytes),
             (3, "old_running_mean", rm), (4, "old_running_var", rv), (5, "momentum", var.tile_bytes),
             (6, "one", var.tile_bytes), (27, "updated_running_mean", rm), (28, "updated_running_var", rv)]
    ins = tuple(t for t in (mean, var, running_mean, running_var) if t is not None)
    return ProgramModel("RunningStatistics::RunningStatisticsProgramFactory", _RS_SRC, cores,
                        [CB(i, name, size, 2, cores) for i, name, size in sizes],
                        ["running statistics update: 9 double-buffered CBs on the whole grid"], inputs=ins,
                        outputs=(out,))


def _mean_steps(x: Tensor, dims: list[int], out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``ttnn::mean(x, dims, keepdim=true)`` into ``out`` (:func:`~ttanalyze.ops.reduction.reduce_steps`), with
    each program's tensors recorded for the cost model and the allocator: a fill of the tile padding works in
    place, a W or H reduce sets that dim to 1 (each pass of a two-pass H reduce too), a permute of N into H
    (and back) swaps dims 0 and 2."""
    from .reduction import reduce_steps

    steps = reduce_steps("mean", x, dims, True, out, ctx)
    cur = x
    for p in steps:
        nxt = cur
        if "Reduce" in p.factory:
            d = -1 if "MultiCoreW" in p.factory else -2
            nxt = cur.with_(shape=tuple(1 if i == cur.rank + d else v for i, v in enumerate(cur.shape)))
        elif "Permute" in p.factory or "Transpose" in p.factory:
            sh = list(cur.shape)
            sh[0], sh[2] = sh[2], sh[0]
            nxt = cur.with_(shape=tuple(sh))
        p.inputs = p.inputs or (cur,)
        p.outputs = p.outputs or (nxt,)
        cur = nxt
    steps[-1].outputs = (out,)
    return steps


def _mean_nhw(x: Tensor, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``mean_NHW`` (batch_norm.cpp): ``ttnn::mean`` over (H, W), then over N, keeping dims, into ``out``
    ([1, C, 1, 1]): :func:`_mean_steps` twice."""
    hw = out.with_(shape=(x.shape[0], x.shape[1], 1, 1))
    return _mean_steps(x, [2, 3], hw, ctx) + _mean_steps(hw, [0], out, ctx)


@register_cb("ttnn.batch_norm_training")
def batch_norm_training_programs(ctx: CBContext) -> list[ProgramModel]:
    """The chain ``ttnn::batch_norm(..., training=true)`` runs in ttnn 0.81.1 (tt-mlir's runtime,
    ``runtime/lib/ttnn/operations/normalization/batch_norm.cpp``, passes no memory config: every
    intermediate takes the input's), measured on the mock P150 (measurements/dialect/results_norm.jsonl,
    ``batch_norm_training/*``: 17 to 19 programs):

    1. the batch mean ``[1, C, 1, 1]``: ``mean`` over (H, W) then over N (:func:`_mean_nhw`: fill of the
       tile padding, W and H reduces, a permute of N into H, an H reduce, the permute back);
    2. ``x - mean`` (BinaryNg, the mean broadcast per tile) and its square (Unary), both ``[N, C, H, W]``;
    3. the batch variance: :func:`_mean_nhw` of the square;
    4. the normalization (:func:`batch_norm_program`) into the result;
    5. the batch variance times ``n / (n - 1)`` (BinaryNg with a scalar) and the running statistics'
       update (:func:`running_statistics_program`), in place.

    Raises:
        CBModelError: see :func:`batch_norm_program`; ranks other than 4.
    """
    from .eltwise import BinaryCall, binary_program, unary_program

    x, running_mean, running_var, weight, bias = _bn_operands(ctx)
    out = result(ctx)
    if x.rank != 4:
        raise CBModelError("batch_norm_training is modeled for 4D inputs")
    if x.sharded or out.sharded:
        raise CBModelError("batch_norm is modeled for interleaved TILE tensors only")
    grid = ctx.grid
    n, c = x.shape[0], x.shape[1]
    stat = x.with_(shape=(1, c, 1, 1))
    var = stat
    steps = _mean_nhw(x, stat, ctx)
    centered = x.with_()
    steps.append(binary_program(BinaryCall("subtract"), x, stat, centered, grid))
    steps[-1].inputs, steps[-1].outputs, steps[-1].params = (x, stat), (centered,), {"binary_op": "subtract"}
    square = x.with_()
    steps.append(unary_program(centered, square, grid))
    steps[-1].inputs, steps[-1].outputs, steps[-1].params = (centered,), (square,), {"unary_ops": ["square"]}
    steps += _mean_nhw(square, var, ctx)
    steps.append(batch_norm_program(x, stat, var, weight, bias, out, grid))
    cores = full_grid(grid)
    steps.append(ProgramModel("BinaryNgDeviceOperation::ProgramFactory", _TRAIN_SRC, cores,
                              [CB(0, "a", var.tile_bytes, 2, cores), CB(1, "scalar", var.tile_bytes, 1, cores),
                               CB(2, "c", var.tile_bytes, 2, cores)],
                              ["the batch variance's unbiased correction: a multiply by a scalar"], inputs=(var,),
                              outputs=(var,), params={"binary_op": "multiply", "scalar": True}))
    steps.append(running_statistics_program(stat, var, running_mean, running_var, stat, grid))
    return steps


@register_spec(("ttnn.batch_norm_inference", "ttnn.batch_norm_training"))
def batch_norm_spec(ctx: CBContext) -> list[TensorSpec]:
    """``BatchNormOperation::compute_output_specs``: the input's shape, layout, dtype and memory config (tt-mlir's
    runtime, ``runtime/lib/ttnn/operations/normalization/batch_norm.cpp`` @19c86fca, passes no memory config, so
    ``ttnn::batch_norm`` keeps the input's)."""
    return [operand(ctx, 0).spec()]


register_check("ttnn.batch_norm_inference", "mock",
               "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl", ("BatchNormOperation",))
register_check("ttnn.batch_norm_training", "mock",
               "tests/test_ops_dialect_norm.py against measurements/dialect/results_norm.jsonl",
               ("ReduceDeviceOperation", "PermuteDeviceOperation", "BinaryNgDeviceOperation", "UnaryDeviceOperation",
                "BatchNormOperation", "RunningStatistics"))


_PRE_SRC = ("tt-metal ttnn/cpp/ttnn/operations/normalization/layernorm_distributed/device/"
            "layernorm_pre_all_gather_program_factory.cpp @05ddaab1 (measured on ttnn 0.81.1)")


@register_cb(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"))
def pre_all_gather_cb(ctx: CBContext) -> list[ProgramModel]:
    """``LayerNormPreAllGatherProgramFactory`` (the 1D factory: no program config, no 2D core grid).

    The ``N*C*Ht`` tile rows are split row-wise over the grid (``split_work_to_cores(..., true)``); with
    ``Wt = padded W / 32`` and the intermediate format bf16 (ttnn's default compute config has no fp32
    accumulation; f32 with ``fp32_dest_acc_en``): input ``2 Wt`` input tiles, the reduce scaler 1
    intermediate tile, with a residual ``2 Wt`` residual tiles and ``Wt`` fused intermediate tiles, x^2
    ``2 Wt`` intermediate tiles, and the statistics 1 (RMS) or 2 (LayerNorm) output tiles.  The input (then
    the residual) first has its tile padding filled when its last two dims are not tile multiples
    (:func:`~ttanalyze.ops.data_movement.fill_pad_program`; measured).

    Raises:
        DeviceRejection: an input of rank < 4 (``compute_output_specs`` sets ``output_shape[3]``: TT_THROW
            "ShapeBase[] index out of range", layernorm_pre_all_gather_device_operation.cpp @00b0fa3f; measured).
        CBModelError: a program config, a 2D core grid, or see :func:`pre_all_gather_steps`.
    """
    op = ctx.op
    if op.attrs.get("program_config") is not None or op.attrs.get("use_2d_core_grid"):
        raise CBModelError(f"{op.name} with a program config or a 2D core grid is not modeled")
    if operand(ctx, 0).rank < 4:
        raise DeviceRejection(f"{op.name} of a rank-{operand(ctx, 0).rank} input: compute_output_specs sets "
                              "output_shape[3] (TT_THROW ShapeBase[] index out of range; "
                              "layernorm_pre_all_gather_device_operation.cpp)")
    g = operand_groups(op, ("input", "residual?", "recip?") if op.name == "ttnn.layer_norm_pre_all_gather"
                       else ("input", "residual?"))
    residual = tensor_or_none(g, "residual")
    cc = op.attrs.get("compute_config")
    return pre_all_gather_steps(operand(ctx, 0), operand(ctx, op.operands.index(residual)) if residual is not None
                                else None, result(ctx), op.name, ctx.grid, ctx.arch,
                                bool(cc is not None and getattr(cc, "fp32_dest_acc_en", None)))


def pre_all_gather_steps(x: Tensor, r: Tensor | None, out: Tensor, name: str, grid: tuple[int, int], arch,
                         fp32_dest_acc: bool) -> list[ProgramModel]:
    """The programs of :func:`pre_all_gather_cb` for input ``x``, residual ``r`` and statistics ``out`` of op
    ``name`` (``ttnn.rms_norm_pre_all_gather`` / ``ttnn.layer_norm_pre_all_gather``), for the op or a step of
    a distributed norm.

    The input CB takes the input's format (bf16, bfloat8_b or f32: measured exact on the op-level campaign's
    held-out draws, measurements/opdiff/runs/gens.jsonl.gz).

    Raises:
        DeviceRejection: a f32 input without ``fp32_dest_acc_en`` (ttnn 0.81.1's TT_FATAL).
        CBModelError: another dtype, a sharded or a row-major input.
    """
    if not x.tiled or x.sharded or out.sharded or x.dtype.name not in ("bf16", "bfp_bf8", "f32"):
        raise CBModelError(f"{name} is modeled for bf16, bfloat8_b and f32 TILE interleaved inputs")
    if x.dtype.name == "f32" and not fp32_dest_acc:
        raise DeviceRejection(f"{name} of a f32 input without fp32_dest_acc_en: TT_FATAL !(input.dtype() == FLOAT32 && "
                              "!fp32_dest_acc_en) (layernorm_pre_all_gather_device_operation.cpp:57 in ttnn 0.81.1)")
    inter = 4096 if fp32_dest_acc else 2048
    wt = x.padded[-1] // 32
    rows = x.physical_volume // (x.padded[-1] * 32)
    split = split_work_to_cores(grid, rows, row_wise=True)
    cores = split.all_cores
    cbs = [CB(0, "input", x.tile_bytes, 2 * wt, cores), CB(1, "reduce_scaler", inter, 1, cores)]
    steps = fill_pad_program(x, grid, arch)
    if r is not None:
        steps += fill_pad_program(r, grid, arch)
        cbs += [CB(2, "residual", r.tile_bytes, 2 * wt, cores), CB(3, "fused", inter, wt, cores)]
    cbs += [CB(4, "x2", inter, 2 * wt, cores),
            CB(5, "out", out.tile_bytes, 1 if name == "ttnn.rms_norm_pre_all_gather" else 2, cores)]
    return steps + [ProgramModel("LayerNormPreAllGatherDeviceOperation::LayerNormPreAllGatherProgramFactory", _PRE_SRC,
                                 cores, cbs, [f"{rows} tile rows of Wt {wt} on {split.num_cores} cores"])]


@register_spec(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"))
def pre_all_gather_spec(ctx: CBContext) -> list[TensorSpec]:
    """``LayerNormPreAllGatherDeviceOperation::compute_output_specs``: the input's shape with dim 3 (the last dim of
    a 4D input) set to one (RMS: sum of squares) or two (LayerNorm: sum and sum of squares) tiles, TILE, the
    requested dtype and memory config (the IR result's; measured; layernorm_pre_all_gather_device_operation.cpp
    @00b0fa3f sets ``output_shape[3]``, which for a rank-5 input is not the last dim)."""
    x, out = operand(ctx, 0), result(ctx)
    width = 32 if ctx.op.name == "ttnn.rms_norm_pre_all_gather" else 64
    if x.rank < 4:
        raise DeviceRejection(f"{ctx.op.name} of a rank-{x.rank} input (output_shape[3] out of range)")
    return [x.with_(shape=(*x.shape[:3], width, *x.shape[4:]), dtype=out.dtype, mem=out.mem).spec()]


register_check(("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"), "mock",
               "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl",
               ("LayerNormPreAllGatherDeviceOperation",))
