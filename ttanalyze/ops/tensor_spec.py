"""``ttnn.to_tensor_spec``: the aggregate layout conversion of current tt-mlir.

tt-mlir lowers ``ttir.to_layout`` to ``ttnn.to_tensor_spec``, whose result type carries the
target data type, page layout (tile / row-major) and memory config; the optimizer works on it,
and ``TTNNDecomposeLayouts`` (tt-mlir ``lib/Dialect/TTNN/Transforms/TTNNDecomposeLayouts.cpp``
@19c86fca) breaks it into ``to_layout`` / ``typecast`` / ``to_memory_config`` / ``to_device`` /
``from_device`` before the flatbuffer is written.  Its shape rule keeps the logical shape
(``ToTensorSpecOp::verify`` -> ``verifyTTNNLayoutInterface``, ``TTNNOps.cpp`` @19c86fca).

The program model replays that decomposition (:func:`decompose`) and runs the layout-conversion
program models of :mod:`ttanalyze.ops.layout_conversion` on each device step, in order:

* step 1, the layout and dtype change: one ``to_layout`` for a float-family row-major -> tile
  change with a dtype change on the device; otherwise ``to_layout`` and ``typecast`` ordered so
  the (un)tilize runs on a dtype the device can (un)tilize (bf16, f32, u32, u16, i32); on the host
  when neither side can;
* step 2, the memory move (``to_memory_config``, or ``to_device`` / ``from_device`` across the
  host boundary): after step 1, except that a host input moves first, and an untilize of an
  L1-sharded input (or L1 -> DRAM) moves (deshards) first.

The sharded-tilize pad workaround (tt-metal#30541: unshard, pad, tilize, slice) is not modeled:
such an op is out of the model's scope, said so.  What the op returns is the last step's tensor.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir.model import Op
from ..layout import tile_padded_shape
from .cb import CBContext, CBModelError, NoDeviceProgram, ProgramModel
from .layout_conversion import (_routing_free, conversion_program, plan_to_layout, to_memory_config_program,
                                typecast_program)
from .registry import register, register_cb, register_check, register_spec, tensor_shape
from .spec import TensorSpec
from .tensors import MemCfg, Tensor, tensor_of

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca ToTensorSpecOp::verify"
_DECOMPOSE = "tt-mlir lib/Dialect/TTNN/Transforms/TTNNDecomposeLayouts.cpp @19c86fca"
HOST = "system_memory"

# Data types ttnn can tilize / untilize on the device (isOnDeviceLayoutChangeSupportedForDataType).
_DEVICE_LAYOUT_DTYPES = frozenset({"bf16", "f32", "u32", "u16", "si32"})
# Not in the float family (isFloatFamily): ttnn.to_layout does no numeric conversion for them.
_NOT_FLOAT = frozenset({"u32", "u16", "u8", "si32", "i1"})


@register("ttnn.to_tensor_spec", "layout_conversion", (), _SRC)
def to_tensor_spec(op: Op):
    """The operand's logical shape."""
    return [tensor_shape(op, 0)]


@dataclass(frozen=True)
class Step:
    """One op of the decomposition: ``kind`` (``to_layout``, ``typecast``, ``to_memory_config``,
    ``to_device``, ``from_device``), the tensor it reads and the one it makes (host tensors have
    buffer type ``system_memory``)."""

    kind: str
    input: Tensor
    output: Tensor

    @property
    def on_device(self) -> bool:
        return self.input.buffer_type != HOST and self.output.buffer_type != HOST


def _tensor(value, ctx: CBContext, what: str) -> Tensor:
    lay = getattr(value.type, "layout", None)
    if lay is None:
        raise CBModelError(f"{what} has no TTNN layout")
    if lay.buffer_type == HOST:
        shape = tuple(value.type.shape)
        padded = tile_padded_shape(shape) if lay.is_tiled else shape
        return Tensor(shape, padded, lay.dtype, lay.layout_name, MemCfg(HOST, "interleaved"),
                      ctx.arch.l1_alignment, ctx.arch.dram_alignment)
    return tensor_of(value, ctx.arch, what)


def _memory_changes(a: Tensor, b: Tensor) -> bool:
    """``hasMemoryChange``: buffer type, memory layout, or (both sharded) the shard grid differ."""
    if a.buffer_type != b.buffer_type:
        return True
    if a.buffer_type == HOST:
        return False
    if a.memory_layout != b.memory_layout:
        return True
    return a.sharded and b.sharded and a.shard != b.shard


def _layout_first(t: Tensor, out: Tensor) -> bool:
    """``shouldLayoutAndDtypeChangesRunBeforeMemoryMove``."""
    if t.buffer_type == HOST or out.buffer_type == HOST:
        return t.buffer_type != HOST
    if t.layout != out.layout:
        if out.tiled:
            return True
        deshard_first = (t.l1 and t.sharded) or (t.l1 and out.buffer_type == "dram")
        return not deshard_first
    return True


def decompose(t: Tensor, out: Tensor) -> list[Step]:
    """The ops ``TTNNDecomposeLayouts`` emits for ``to_tensor_spec(t) -> out`` (module docstring).

    Raises:
        CBModelError: nothing changes (tt-mlir's "Redundant ttnn::ToLayoutOp" error), or the
            sharded-tilize pad workaround is needed (not modeled).
    """
    layout, dtype, memory = t.layout != out.layout, t.dtype != out.dtype, _memory_changes(t, out)
    if not (layout or dtype or memory):
        raise CBModelError("to_tensor_spec changes nothing: tt-mlir's TTNNDecomposeLayouts refuses it "
                           "('Redundant ttnn::ToLayoutOp')")
    steps: list[Step] = []
    cur = t

    def emit(kind: str, **changes) -> None:
        nonlocal cur
        nxt = cur.with_(**changes)
        steps.append(Step(kind, cur, nxt))
        cur = nxt

    def move() -> None:
        if cur.buffer_type == HOST and out.buffer_type != HOST:
            emit("to_device", mem=out.mem)
        elif cur.buffer_type != HOST and out.buffer_type == HOST:
            emit("from_device", mem=out.mem)
        else:
            emit("to_memory_config", mem=out.mem)

    def layout_step() -> None:
        if (cur.buffer_type == "l1" and cur.memory_layout == "height_sharded" and out.tiled and not cur.tiled
                and len(cur.shape) >= 2 and (cur.shape[-1] % 32 or cur.shape[-2] % 32)):
            raise CBModelError("to_tensor_spec: tilizing a height-sharded L1 tensor whose last two dims are not "
                               "tile-aligned takes tt-mlir's pad workaround (unshard, pad, tilize, slice), "
                               "not modeled")
        emit("to_layout", layout=out.layout)

    def layout_and_dtype(on_device: bool) -> None:
        if not (layout or dtype):
            return
        tilizing = layout and out.tiled
        if (on_device and layout and dtype and tilizing and not cur.tiled and cur.dtype.name not in _NOT_FLOAT
                and out.dtype.name not in _NOT_FLOAT):
            layout_step_with_dtype()
            return
        if layout and not dtype:
            layout_step()
        elif dtype and not layout:
            emit("typecast", dtype=out.dtype)
        elif not on_device:
            emit("typecast", dtype=out.dtype)
            layout_step()
        elif cur.tiled:
            if out.dtype.name in _DEVICE_LAYOUT_DTYPES:
                emit("typecast", dtype=out.dtype)
                layout_step()
            else:
                layout_step()
                emit("typecast", dtype=out.dtype)
        elif cur.dtype.name in _DEVICE_LAYOUT_DTYPES:
            layout_step()
            emit("typecast", dtype=out.dtype)
        else:
            emit("typecast", dtype=out.dtype)
            layout_step()

    def layout_step_with_dtype() -> None:
        layout_step()
        last = steps[-1]
        steps[-1] = Step("to_layout", last.input, last.output.with_(dtype=out.dtype))
        nonlocal cur
        cur = steps[-1].output

    both_host = t.buffer_type == HOST and out.buffer_type == HOST
    layout_needs_host = layout and t.dtype.name not in _DEVICE_LAYOUT_DTYPES and out.dtype.name not in _DEVICE_LAYOUT_DTYPES
    keep_cast_on_device = t.buffer_type != HOST if t.tiled else out.buffer_type != HOST
    if both_host or (layout_needs_host and not keep_cast_on_device):
        if t.buffer_type != HOST:
            emit("from_device", mem=MemCfg(HOST, "interleaved"))
        layout_and_dtype(on_device=False)
        if out.buffer_type != HOST:
            emit("to_device", mem=out.mem)
        return steps
    if layout_needs_host:
        if t.tiled:
            if dtype:
                emit("typecast", dtype=out.dtype)
            emit("from_device", mem=MemCfg(HOST, "interleaved"))
            emit("to_layout", layout=out.layout)
            if out.buffer_type != HOST:
                emit("to_device", mem=out.mem)
            return steps
        if t.buffer_type != HOST:
            emit("from_device", mem=MemCfg(HOST, "interleaved"))
        emit("to_layout", layout=out.layout)
        emit("to_device", mem=out.mem)
        if dtype:
            emit("typecast", dtype=out.dtype)
        return steps
    if _layout_first(t, out):
        layout_and_dtype(on_device=True)
        if _memory_changes(cur, out):
            move()
        return steps
    move()
    layout_and_dtype(on_device=True)
    return steps


def _io(ctx: CBContext) -> tuple[Tensor, Tensor]:
    op = ctx.op
    if not op.operands or not op.results:
        raise CBModelError("to_tensor_spec needs an operand and a result")
    return _tensor(op.operands[0], ctx, "operand of to_tensor_spec"), _tensor(op.results[0], ctx, "result of to_tensor_spec")


def _step_program(step: Step, ctx: CBContext) -> tuple[ProgramModel | None, Tensor]:
    """The program of one device step and the tensor ttnn returns from it (None: no program)."""
    if not step.on_device:
        return None, step.output
    if step.kind == "typecast":
        return typecast_program(step.input, step.output, ctx.arch), step.output
    if step.kind == "to_memory_config":
        return to_memory_config_program(step.input, step.output, ctx.arch), step.output
    c = plan_to_layout(step.input, step.output.layout, step.output.dtype, step.output.mem, ctx.arch)
    try:
        prog = conversion_program(c, ctx.arch, ctx.max_l1_space, _routing_free(ctx, c.result), ctx.tt_metal)
    except NoDeviceProgram:
        prog = None
    return prog, c.result


@register_cb("ttnn.to_tensor_spec")
def to_tensor_spec_program(ctx: CBContext) -> list[ProgramModel]:
    """The device programs of the decomposed op (:func:`decompose`), in order.

    Raises:
        NoDeviceProgram: every step runs on the host.
        CBModelError: see :func:`decompose` and the layout-conversion models.
    """
    t, out = _io(ctx)
    programs = []
    for step in decompose(t, out):
        prog, _ = _step_program(step, ctx)
        if prog is not None:
            prog.notes.append(f"to_tensor_spec step: {step.kind}")
            programs.append(prog)
    if not programs:
        raise NoDeviceProgram("to_tensor_spec decomposes into host transfers only: "
                              + ", ".join(s.kind for s in decompose(t, out)))
    return programs


@register_spec("ttnn.to_tensor_spec")
def to_tensor_spec_spec(ctx: CBContext) -> list[TensorSpec]:
    """What the last step of the decomposition returns (host results are taken as declared).

    Raises:
        CBModelError: a host result, or see :func:`decompose`.
    """
    t, out = _io(ctx)
    if out.buffer_type == HOST:
        raise CBModelError("to_tensor_spec to the host: the result is taken as declared")
    res = t
    for step in decompose(t, out):
        _, res = _step_program(step, ctx)
    return [res.spec()]


register_check("ttnn.to_tensor_spec", "mock", "tests/test_ops_tensor_spec.py (each step's factory is measured: "
               "docs/accuracy.md layout_conversion)")
