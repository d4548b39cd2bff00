"""Matmul and linear.

``a [..., M, K] @ b [..., K, N] -> [..., M, N]`` with ``transpose_a``/
``transpose_b`` swapping the last two dims of an operand, a rank-1 ``a``
treated as ``[1, K]`` (its M dropped from the result) and a rank-1 ``b`` as
``[K, 1]`` (N dropped), and batch dims broadcast (tt-mlir
``MatmulOp::verify``/``LinearOp::verify``, ``lib/Dialect/TTNN/IR/TTNNOps.cpp``
@19c86fca).  ``linear`` adds a bias that must broadcast to the result.
"""

from __future__ import annotations

from ..ir.model import Op
from .eltwise import broadcast
from .registry import ShapeError, register, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_ATTRS = ("transpose_a", "transpose_b", "matmul_program_config", "activation", "compute_config", "dtype", "memory_config")


def matmul_shape(a: tuple[int, ...], b: tuple[int, ...], ta: bool, tb: bool) -> tuple[int, ...]:
    """Result shape of ``a @ b`` (see module docstring).

    Raises:
        ShapeError: inner dimensions differ or batch dims do not broadcast.
    """
    a2 = list(a) if len(a) > 1 else [1, a[0]]
    b2 = list(b) if len(b) > 1 else [b[0], 1]
    if ta:
        a2[-2], a2[-1] = a2[-1], a2[-2]
    if tb:
        b2[-2], b2[-1] = b2[-1], b2[-2]
    if a2[-1] != b2[-2]:
        raise ShapeError(
            f"matmul inner dimensions differ: a is {'x'.join(map(str, a))}{' (transposed)' if ta else ''}, "
            f"b is {'x'.join(map(str, b))}{' (transposed)' if tb else ''}: K {a2[-1]} != {b2[-2]}"
        )
    batch = broadcast(tuple(a2[:-2]), tuple(b2[:-2]))
    out = [*batch]
    if len(a) > 1:
        out.append(a2[-2])
    if len(b) > 1:
        out.append(b2[-1])
    return tuple(out)


@register("ttnn.matmul", "matmul", _ATTRS, f"{_SRC} MatmulOp::verify")
def matmul(op: Op):
    return [matmul_shape(tensor_shape(op, 0), tensor_shape(op, 1),
                         bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b")))]


@register("ttnn.linear", "matmul", _ATTRS, f"{_SRC} LinearOp::verify")
def linear(op: Op):
    out = matmul_shape(tensor_shape(op, 0), tensor_shape(op, 1),
                       bool(op.attrs.get("transpose_a")), bool(op.attrs.get("transpose_b")))
    if len(op.operands) > 2 and op.operands[2].is_tensor:
        bias = tensor_shape(op, 2)
        if broadcast(out, bias) != out:
            raise ShapeError(f"linear bias {'x'.join(map(str, bias))} does not broadcast to {'x'.join(map(str, out))}")
    return [out]
