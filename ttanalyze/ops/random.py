"""Random ops: ``rand`` and ``dropout``.

Shape rules from tt-mlir ``RandOp::verify`` / ``DropoutOp::verify`` (``lib/Dialect/TTNN/IR/
TTNNOps.cpp`` @19c86fca): ``rand`` produces its ``size`` attribute (``low < high``); ``dropout``
returns a tensor of its input's type, rank 2 to 4, ``0 <= prob <= 1``, ``scale > 0``.

Programs: the runtime calls ``ttnn::rand(size, device, dtype, layout, memory_config, low, high, seed)`` and
``ttnn::experimental::dropout(input, prob, scale, seed, use_per_device_seed)`` (tt-mlir
``runtime/lib/ttnn/operations/{rand/rand.cpp,experimental/dropout.cpp}`` @19c86fca): one
``RandDeviceOperation`` / ``DropoutDeviceOperation`` program each (:func:`rand_cb`, :func:`dropout_cb`).
"""

from __future__ import annotations

from ..ir.model import Op
from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .registry import ShapeError, int_list, register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, operand, result
from .work_split import split_work_to_cores

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.rand", "random", ("size", "low", "high", "seed", "dtype", "layout", "memory_config"),
          f"{_SRC} RandOp::verify")
def rand(op: Op):
    low, high = float(op.attrs.get("low", 0.0)), float(op.attrs.get("high", 1.0))
    if low >= high:
        raise ShapeError(f"{op.name}: 'low' ({low}) must be < 'high' ({high})")
    return [tuple(int_list(op, "size"))]


@register("ttnn.dropout", "random", ("prob", "scale", "seed", "use_per_device_seed", "memory_config"),
          f"{_SRC} DropoutOp::verify")
def dropout(op: Op):
    x = tensor_shape(op, 0)
    prob, scale = float(op.attrs.get("prob", 0.0)), float(op.attrs.get("scale", 1.0))
    if not 0.0 <= prob <= 1.0:
        raise ShapeError(f"{op.name}: probability must be in [0.0, 1.0], got {prob}")
    if scale <= 0.0:
        raise ShapeError(f"{op.name}: scale must be positive, got {scale}")
    if not 2 <= len(x) <= 4:
        raise ShapeError(f"{op.name}: input rank must be 2, 3 or 4, got {len(x)}")
    return [x]


_TM = "tt-metal ttnn/cpp/ttnn/operations/"


@register_cb("ttnn.rand")
def rand_cb(ctx: CBContext) -> ProgramModel | list[ProgramModel]:
    """``RandDeviceOperation::RandProgramFactory`` of a TILE result.

    The result's tiles (``padded volume / 1024``) are split column-major over the grid
    (``split_work_to_cores``); ttnn 0.81.1 allocates one CB of 2 tiles of the output's data format on
    those cores (measured: bf16 2 x 2,048 B, f32 2 x 4,096 B; the stored source at 01ab699a, a later
    metal-2 port, has a 2-entry fp32 DFB and a 1-entry output DFB instead).

    A row-major result: ttnn generates a TILE tensor in the result's memory config, then converts it with
    ``to_layout`` (measured: the op-level campaign's row-major draws, measurements/opdiff/runs/gens.jsonl.gz,
    RandProgramFactory then UntilizeCodegen or UntilizeWithUnpadding), modeled by
    :func:`~ttanalyze.ops.layout_conversion.plan_to_layout` / ``conversion_program`` with the TILE tensor's L1
    (when the result is in L1) taken from the free L1 they route on.

    Raises:
        CBModelError: a dtype other than bf16/f32 (the writer kernel throws for them), a sharded row-major result.
    """
    out = result(ctx)
    if out.dtype.name not in ("bf16", "f32"):
        raise CBModelError(f"ttnn.rand of {out.dtype}: the writer kernel supports bf16 and f32 only")
    tile = out if out.tiled else out.with_(layout="tile")
    if not out.tiled and out.sharded:
        raise CBModelError("ttnn.rand into a sharded row-major result is not modeled")
    split = split_work_to_cores(ctx.grid, tile.physical_volume // (TILE * TILE))
    cores = split.all_cores
    gen = ProgramModel("RandDeviceOperation::RandProgramFactory", _TM + "rand/device/rand_program_factory.cpp "
                       "(measured on ttnn 0.81.1)", cores, [CB(0, "rand_out", tile.tile_bytes, 2, cores)],
                       [f"{split.units} tiles on {split.num_cores} cores"], inputs=(), outputs=(tile,))
    if out.tiled:
        return gen
    from .layout_conversion import _routing_free, conversion_program, pending_l1_output, plan_to_layout

    held = pending_l1_output(ctx.arch, tile)  # the TILE tensor, live while the conversion runs
    conv = plan_to_layout(tile, "row_major", out.dtype, out.mem, ctx.arch)
    return [gen, conversion_program(conv, ctx.arch, ctx.max_l1_space - held, _routing_free(ctx, out) - held,
                                    ctx.tt_metal)]


@register_cb("ttnn.dropout")
def dropout_cb(ctx: CBContext) -> ProgramModel:
    """``DropoutProgramFactory`` (``experimental/dropout/device/dropout_program_factory.cpp`` @0252a1e4):
    the input's tiles (``physical_volume / 1024``) split column-major over the grid
    (``split_work_to_cores``); ``c_0`` 2 input tiles and ``c_2`` 2 output tiles on those cores (the
    per-device-seed mesh workload builds the same program per device).  A sharded TILE input takes the
    same program: its reader and writer address tiles through TensorAccessor, and no CB is backed by the
    shards (measured: g1/ttnn.dropout/16, 22, 39, 60, height and block sharded, the interleaved split).

    Raises:
        DeviceRejection: a non-bf16 input: the runtime passes no output dtype, ttnn's default is bf16, and
            ``DropoutDeviceOperation`` validates ``output_datatype == input_tensor.dtype()`` (TT_FATAL;
            measured: every f32 instance).
        CBModelError: a row-major input (not measured).
    """
    x, out = operand(ctx, 0), result(ctx)
    if x.dtype.name != "bf16":
        raise DeviceRejection(f"dropout of {x.dtype}: TT_FATAL output_datatype == input_tensor.dtype() (the output "
                              "dtype defaults to bf16; dropout_device_operation.cpp)")
    if not x.tiled:
        raise CBModelError("dropout of a row-major tensor is not modeled (TILE only)")
    split = split_work_to_cores(ctx.grid, x.physical_volume // (TILE * TILE))
    cores = split.all_cores
    return ProgramModel("DropoutDeviceOperation::DropoutProgramFactory",
                        _TM + "experimental/dropout/device/dropout_program_factory.cpp @0252a1e4", cores,
                        [CB(0, "src0", x.tile_bytes, 2, cores), CB(2, "output", out.tile_bytes, 2, cores)],
                        [f"{split.units} tiles on {split.num_cores} cores"])


@register_spec("ttnn.dropout")
def dropout_spec(ctx: CBContext) -> list[TensorSpec]:
    """``DropoutDeviceOperation::compute_output_specs``: the input's spec (the runtime passes no memory config,
    so the result keeps the input's memory config, layout and dtype)."""
    return [operand(ctx, 0).spec()]


_MEASURED = "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl"
register_check("ttnn.rand", "mock", _MEASURED, ("RandDeviceOperation",))
register_check("ttnn.dropout", "mock", _MEASURED, ("DropoutDeviceOperation",))
