"""TTA019: a tensor read after its buffer was freed.

Two ops free a tensor in TTNN IR: ``ttnn.deallocate``, and a convolution whose
``conv2d_config`` sets ``deallocate_activation = true`` and whose input is in L1 (tt-metal's
conv2d frees an L1 input activation once it is read; a DRAM input is not freed, and tt-mlir's
``ttnn-deallocate`` pass deallocates it as usual).  That pass refuses a deallocating convolution
that is not its L1 input's last user (``lib/Dialect/TTNN/Transforms/Passes.cpp``
``checkAndInsertDeallocation`` / ``checkConv2dUseAfterFree``, 19c86fca);
the runtime stops on any later read of a freed tensor (freeing it again is a no-op).  Values are followed as written (a view
of a freed tensor is not followed), so a finding is certain and a miss possible.
"""

from __future__ import annotations

from ..analysis import Analysis
from ..ir.model import Op, TensorType, Value
from . import Reporter, rule

CONVS_THAT_FREE_THEIR_INPUT = ("ttnn.conv2d", "ttnn.conv_transpose2d")


def frees(op: Op) -> list[Value]:
    """The operands ``op`` frees: a ``ttnn.deallocate``'s tensor, a convolution's L1 input with
    ``deallocate_activation = true`` (an input without a layout is not known to be freed)."""
    if op.name == "ttnn.deallocate":
        return [v for v in op.operands[:1] if v.is_tensor]
    if op.name in CONVS_THAT_FREE_THEIR_INPUT and op.operands:
        config = op.attrs.get("conv2d_config")
        params = getattr(config, "params", None) or {}
        inp = op.operands[0]
        layout = inp.type.layout if inp.is_tensor else None
        if params.get("deallocate_activation") is True and layout is not None and layout.buffer_type == "l1":
            return [inp]
    return []


@rule("TTA019")
def use_after_free(a: Analysis, r: Reporter) -> None:
    # each freed tensor and the first op that frees it; then the reads of it after that op, from its users
    # (ops in program order) rather than a pass over every op
    freed: dict[Value, Op] = {}
    for op in a.ops_by_name.get("ttnn.deallocate", ()):
        operands = op.operands
        if operands and isinstance(operands[0].type, TensorType):  # frees(op), inline: 25,036 of them in a large program
            freed.setdefault(operands[0], op)
    for name in CONVS_THAT_FREE_THEIR_INPUT:
        for op in a.ops_by_name.get(name, ()):
            for v in frees(op):
                if v not in freed or op.index < freed[v].index:
                    freed[v] = op
    reads: dict[tuple[Op, Value], None] = {}
    for v, by in freed.items():
        freed_at = by.index
        for u in reversed(v.users):  # in program order (Value.users): the ops after the free are at the end
            if u.index <= freed_at:
                break
            # a ttnn.deallocate of a freed tensor is a no-op (the real conv programs of
            # fixtures/real/programs free a deallocating conv2d's input again, and run)
            if u.name != "ttnn.deallocate":
                reads[(u, v)] = None
    # in program order, each op's operands in their order
    for op, v in sorted(reads, key=lambda uv: (uv[0].index, list(dict.fromkeys(uv[0].operands)).index(uv[1]))):
        by = freed[v]
        r.op(op, f"{op.name} reads {v.name}, which {by.name} at line {by.pos.line} freed",
             data={"value": v.name, "freed_by": by.name, "freed_at_line": by.pos.line})
    for func in a.program.funcs:
        for v in dict.fromkeys(func.returns):
            by = freed.get(v)
            if by is not None:
                r.op(by, f"{func.name} returns {v.name}, which {by.name} frees here",
                     data={"value": v.name, "freed_by": by.name, "freed_at_line": by.pos.line})
