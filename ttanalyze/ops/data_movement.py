"""Data-movement ops: reshape, permute, transpose, slice, concat, pad, repeat.

Shape rules follow the op verifiers in tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp``
(19c86fca): ``ReshapeOp::verify`` (same logical volume), ``PermuteOp::verify``,
``SliceStaticOp::verify`` (``ceil((end - begin) / step)`` per dim, negative
indices counted from the end), ``ConcatOp::verify``, ``PadOp::verify``
(``padding`` = [low0, high0, low1, high1, ...]), ``RepeatInterleaveOp::verify``
and ``RepeatOp``.
"""

from __future__ import annotations

from math import prod

from ..ir.model import Op
from .registry import ShapeError, int_attr, int_list, norm_dim, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.reshape", "data_movement", ("shape",), f"{_SRC} ReshapeOp::verify")
def reshape(op: Op):
    src = tensor_shape(op, 0)
    new = int_list(op, "shape")
    if any(d < 0 for d in new):
        raise ShapeError(f"ttnn.reshape shape {new} has a negative dimension")
    if prod(new) != prod(src):
        raise ShapeError(
            f"reshape from {'x'.join(map(str, src))} ({prod(src)} elements) to "
            f"{'x'.join(map(str, new))} ({prod(new)} elements) changes the logical volume"
        )
    return [tuple(new)]


@register("ttnn.permute", "data_movement", ("permutation", "pad_value"), f"{_SRC} PermuteOp::verify")
def permute(op: Op):
    src = tensor_shape(op, 0)
    perm = int_list(op, "permutation")
    if sorted(perm) != list(range(len(src))):
        raise ShapeError(f"permutation {perm} is not a permutation of the {len(src)} dims")
    return [tuple(src[p] for p in perm)]


@register("ttnn.transpose", "data_movement", ("dim0", "dim1"), f"{_SRC} TransposeOp")
def transpose(op: Op):
    src = list(tensor_shape(op, 0))
    a = norm_dim(int_attr(op, "dim0"), len(src), op)
    b = norm_dim(int_attr(op, "dim1"), len(src), op)
    src[a], src[b] = src[b], src[a]
    return [tuple(src)]


@register("ttnn.slice_static", "data_movement", ("begins", "ends", "step"), f"{_SRC} SliceStaticOp::verify")
def slice_static(op: Op):
    src = tensor_shape(op, 0)
    begins, ends, steps = int_list(op, "begins"), int_list(op, "ends"), int_list(op, "step")
    if not len(begins) == len(ends) == len(steps) == len(src):
        raise ShapeError(f"slice begins/ends/step must have {len(src)} entries each")
    out = []
    for d, (b, e, s) in enumerate(zip(begins, ends, steps)):
        if s == 0:
            raise ShapeError(f"slice step of dim {d} is zero")
        b = b + src[d] if b < 0 else b
        e = e + src[d] if e < 0 else e
        n = -(-(e - b) // s) if s > 0 else -(-(b - e) // -s)
        if n <= 0 or b < 0 or e > src[d]:
            raise ShapeError(f"slice of dim {d} [{b}:{e}:{s}] is empty or out of bounds for size {src[d]}")
        out.append(n)
    return [tuple(out)]


@register("ttnn.concat", "data_movement", ("dim",), f"{_SRC} ConcatOp::verify")
def concat(op: Op):
    shapes = [tensor_shape(op, i) for i in range(len(op.operands))]
    if not shapes:
        raise ShapeError("concat of no tensors")
    rank = len(shapes[0])
    dim = norm_dim(int_attr(op, "dim"), rank, op)
    for s in shapes[1:]:
        if len(s) != rank or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != dim):
            raise ShapeError(f"concat along dim {dim}: shapes {[list(x) for x in shapes]} differ off that dim")
    out = list(shapes[0])
    out[dim] = sum(s[dim] for s in shapes)
    return [tuple(out)]


@register("ttnn.pad", "data_movement", ("padding", "value", "use_multicore"), f"{_SRC} PadOp::verify")
def pad(op: Op):
    src = tensor_shape(op, 0)
    padding = int_list(op, "padding")
    if len(padding) != 2 * len(src):
        raise ShapeError(f"pad needs {2 * len(src)} padding values (low, high per dim), got {len(padding)}")
    return [tuple(d + padding[2 * i] + padding[2 * i + 1] for i, d in enumerate(src))]


@register("ttnn.repeat_interleave", "data_movement", ("repeats", "dim"), f"{_SRC} RepeatInterleaveOp::verify")
def repeat_interleave(op: Op):
    src = list(tensor_shape(op, 0))
    dim = norm_dim(int_attr(op, "dim"), len(src), op)
    src[dim] *= int_attr(op, "repeats")
    return [tuple(src)]


@register("ttnn.repeat", "data_movement", ("repeat_dims",), f"{_SRC} RepeatOp::verify")
def repeat(op: Op):
    src = tensor_shape(op, 0)
    reps = int_list(op, "repeat_dims")
    if len(reps) != len(src):
        raise ShapeError(f"repeat_dims {reps} must have one entry per dim ({len(src)})")
    return [tuple(d * r for d, r in zip(src, reps))]
