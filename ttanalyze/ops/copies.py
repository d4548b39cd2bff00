"""Copies, constants and raw allocations: ``copy``, ``assign``, ``bitcast_convert``, ``constant``, ``alloc``.

From tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` / ``TTNNOps.td`` @19c86fca:

* ``copy(src, dst)`` writes ``src`` into ``dst`` in place (no result; ``CopyOp::verify`` wants
  equal shapes);
* ``assign(input)`` returns a copy of the input's shape and dtype (``AssignOp::verify``);
* ``bitcast_convert`` reinterprets the bits: the input's shape;
* ``constant`` holds its ``value`` (``AllShapesMatch<["value", "result"]>``): the result is taken
  as declared (the elements attribute is not parsed);
* ``alloc`` allocates ``size`` bytes at ``address``: taken as declared.

Programs (tt-mlir runtime ``runtime/lib/ttnn/operations/{data_movement,layout,creation}/*.cpp`` @19c86fca):
``copy`` calls ``ttnn::copy(src, dst)`` and ``assign`` calls ``ttnn::assign(input, memory_config, dtype)``, both
``CopyDeviceOperation`` (:func:`copy_program`); ``bitcast_convert`` calls ``ttnn::bitcast``, a
``UnaryDeviceOperation`` (BITCAST) program (:func:`ttanalyze.ops.eltwise.unary_program`); ``constant`` builds the
tensor on the host and moves it to the device (no program); ``alloc`` allocates a buffer (no program).
``generic``/``tt_lang_op``/``d2m_subgraph`` (user kernels, D2M functions) are in :mod:`ttanalyze.ops.generic`.
"""

from __future__ import annotations

from ..ir.model import Op
from ..layout import align_up
from ..arch import Arch
from .cb import CB, CBContext, CBModelError, DeviceRejection, NoDeviceProgram, ProgramModel, grid_xy
from .eltwise import unary_program
from .layout_conversion import _copy as interleaved_copy
from .registry import ShapeError, register, register_cb, register_check, register_passive, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import TILE, Tensor, operand, result
from .work_split import split_work_to_cores

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

_SLICE_TENSOR_ARGS_SRC = ("slice.cpp, measured on ttnn 0.81.1; tt-mlir's workaround pass makes the input row-major "
                          "for this: TTNNWorkaroundsPass.cpp @19c86fca, tt-metal issue 42778")


@register_cb("ttnn.slice_dynamic")
def slice_dynamic_cb(ctx: CBContext) -> ProgramModel:
    """tt-mlir's runtime calls ``ttnn::slice(input, begins, ends, step, memory_config)`` with the bounds as tensors
    and no ``slice_dim``/``num_devices`` (``runtime/lib/ttnn/operations/data_movement/slice.cpp`` @19c86fca).
    tt-metal takes its device-only path for a TILE input whose step is absent or all ones, and that path needs
    ``slice_dim`` and ``num_devices``: the op is refused (measured on the mock; tt-mlir's workaround pass makes
    the input row-major for this reason).  Otherwise ttnn reads the bounds back to the host and runs the static
    slice of those runtime values, which the IR does not hold: not modeled.

    Raises:
        DeviceRejection: a TILE input with a unit (or no) step.
        CBModelError: the other inputs (the slice bounds are runtime values).
    """
    x = operand(ctx, 0)
    step = ctx.op.attrs.get("step")
    unit = step is None or (isinstance(step, list) and all(s == 1 for s in step))
    if x.tiled and unit:
        raise DeviceRejection(f"{ctx.op.name} of a TILE input with unit steps takes tt-metal's device-only "
                              "tensor-args slice: TT_FATAL slice_dim and num_devices must be provided for "
                              f"device-only tensor args slice ({_SLICE_TENSOR_ARGS_SRC})")
    raise CBModelError(f"{ctx.op.name}: ttnn reads the begins/ends tensors back to the host and slices with those "
                       "runtime values (not in the IR): not modeled")


register_check("ttnn.slice_dynamic", "mock", "tests/test_ops_dialect_moe.py against measurements/dialect/results_moe.jsonl "
               "(the TILE refusal; the row-major path slices with runtime values: not modeled)")
register_check(("ttnn.constant", "ttnn.alloc"), "none",
               "tt-mlir runtime creation/constant.cpp (host tensor moved to the device) / AllocOp (a buffer, no program)")


@register_cb(("ttnn.constant", "ttnn.alloc"))
def no_program_cb(ctx: CBContext) -> ProgramModel:
    """``constant`` builds its tensor on the host (``utils::toTTNNTensor``: layout conversion on the host, then
    a write to the device); ``alloc`` allocates a buffer.

    Raises:
        NoDeviceProgram: always.
    """
    raise NoDeviceProgram(f"{ctx.op.name} runs no device program (host-built tensor or a bare allocation)")

_COPY_SRC = "tt-metal ttnn/cpp/ttnn/operations/data_movement/copy/device/"


def copy_program(x: Tensor, out: Tensor, arch: Arch) -> ProgramModel:
    """``CopyDeviceOperation`` from ``x`` to a tensor like ``out`` (its memory config and dtype).

    ``select_program_factory`` (``copy_device_operation.cpp`` @3ed4ffc8): equal memory configs (not ND
    sharded) whose CBs stay below ``l1_size - l1_unreserved_base`` take
    ``CopySameMemoryConfigProgramFactory`` (``copy_same_memory_config_program_factory.cpp`` @0cb8f4da): ``num_units`` = tiles (``physical_volume / 1024``) or rows (``physical_volume / padded[-1]``)
    split column-major over the grid (``split_work_to_cores``); ``c_0`` holds 2 units of the input
    (``tile_size`` or ``padded[-1] * element_size``, a row-major shard's width when sharded) rounded up to the
    input buffer's alignment; a dtype change adds ``c_16``, 2 output units at the output's alignment.  Other
    pairs of interleaved configs, and rows too wide for the same-config CBs, take the default factories
    (:func:`ttanalyze.ops.layout_conversion.interleaved_copy`).

    Raises:
        CBModelError: the default row-major factory to or from a width/block-sharded config (its parallel
            variant, not modeled; sharded TILE tensors and height-sharded rows are read and written like
            interleaved ones), or a dtype change of a row-major tensor (tt-metal: "Only tile layout supports
            dtype conversion").
    """
    convert = x.dtype != out.dtype
    if convert and not x.tiled:
        raise CBModelError("copy: a row-major dtype change fails validation ('Only tile layout supports dtype "
                           "conversion')")
    if x.tiled:
        units, in_unit, out_unit = x.physical_volume // (TILE * TILE), x.tile_bytes, out.tile_bytes
    else:
        units = x.physical_volume // x.width
        width = x.shard.shape[1] if x.sharded else x.width
        in_unit, out_unit = width * x.element_bytes, width * out.element_bytes
    # can_use_specialized_factory: the same-config factory's CBs (2 input units, 2 output units on a dtype change,
    # both at the input buffer's alignment) must be below l1_size - base, else the default factories run
    # (measured: g1/ttnn.assign/66, [1, 1, 1, 4, 520278] bf16 rows of 1,040,556 B in DRAM -> DefaultRowMajor)
    specialized_cbs = 2 * align_up(in_unit, x.alignment) + (2 * align_up(out_unit, x.alignment) if convert else 0)
    if x.mem != out.mem or specialized_cbs >= arch.l1_size - arch.l1_unreserved_base:
        # DefaultTilized reads a sharded TILE input through its TensorAccessor like an interleaved one (measured:
        # g1/ttnn.assign/0, 24, 55, 60, 70, 83: height/width/block sharded -> DRAM or L1 interleaved)
        # DefaultTilized writes a sharded TILE output through its TensorAccessor too, on the same tile split
        # (measured: g1/ttnn.copy/7, 41, 57: DRAM/L1 interleaved -> block/height/width sharded); DefaultRowMajor
        # moves whole rows when neither side splits a row across shards (height sharded: g1/ttnn.copy/8, 36)
        split_rows = any(t.sharded and t.memory_layout != "height_sharded" for t in (x, out))
        if not x.tiled and split_rows:
            raise CBModelError("copy of a row-major tensor to or from a width/block-sharded config (DefaultRowMajor's "
                               "parallel variant) is not modeled")
        program = interleaved_copy(x, out, arch)
        program.inputs, program.outputs = (x,), (out,)
        return program
    split = split_work_to_cores(grid_xy(arch), units)
    cores = split.all_cores
    cbs = [CB(0, "src0", align_up(in_unit, x.alignment), 2, cores)]
    if convert:
        cbs.append(CB(16, "output", align_up(out_unit, out.alignment), 2, cores))
    return ProgramModel("CopyDeviceOperation::SameMemoryConfig", _COPY_SRC + "copy_same_memory_config_program_factory.cpp "
                        "(measured on ttnn 0.81.1)", cores, cbs,
                        [f"same memory config: {units} {'tiles' if x.tiled else 'rows'} on {split.num_cores} cores"],
                        inputs=(x,), outputs=(out,))


@register_cb("ttnn.copy")
def copy_cb(ctx: CBContext) -> ProgramModel:
    """``ttnn::copy(src, dst)``: :func:`copy_program` into ``dst`` (operand #1: its memory config and dtype)."""
    return copy_program(operand(ctx, 0), operand(ctx, 1), ctx.arch)


@register_cb("ttnn.assign")
def assign_cb(ctx: CBContext) -> ProgramModel:
    """``ttnn::assign(input, memory_config, dtype)``: :func:`copy_program` to the result's memory config and dtype."""
    return copy_program(operand(ctx, 0), result(ctx), ctx.arch)


@register_cb("ttnn.bitcast_convert")
def bitcast_cb(ctx: CBContext) -> ProgramModel:
    """``ttnn::bitcast``: one ``UnaryDeviceOperation`` (BITCAST) program, :func:`~ttanalyze.ops.eltwise.unary_program`."""
    return unary_program(operand(ctx, 0), result(ctx), ctx.grid)


@register_spec(("ttnn.assign", "ttnn.bitcast_convert"))
def converted_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ``assign`` (``CopyDeviceOperation::compute_output_specs``) and ``bitcast`` return: the input's
    logical shape and layout with the requested dtype and memory config (the IR result's)."""
    x, out = operand(ctx, 0), result(ctx)
    return [x.with_(dtype=out.dtype, mem=out.mem).spec()]


_MEASURED = "tests/test_ops_dialect_misc.py against measurements/dialect/results_misc.jsonl"
register_check(("ttnn.copy", "ttnn.assign"), "mock", _MEASURED, ("CopyDeviceOperation",))
register_check("ttnn.bitcast_convert", "mock", _MEASURED, ("UnaryDeviceOperation",))
