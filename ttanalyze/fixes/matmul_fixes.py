"""Fixes of matmul findings: CBs beyond L1 (TTA010) and configurations tt-metal refuses (TTA013).

* ``matmul/smaller-blocks``: a program config with smaller ``in0_block_w`` /
  ``out_block`` / ``out_subblock``, the largest whose CBs fit, chosen with z3
  (:mod:`ttanalyze.fixes.matmul_config`).  Numerics: the K loop is blocked
  differently, so partial sums are added in another order (bf16/fp32
  accumulation rounding; PCC, not bit equality).
* ``matmul/bias-as-add``: a ``ttnn.linear`` with a transposed operand and a bias
  on ``MatmulMultiCoreProgramFactory`` (refused: ``matmul_utilities.cpp``)
  becomes the linear without bias followed by ``ttnn.add`` of the bias; that
  factory adds the bias after the matmul as a separate op anyway.
* ``matmul/materialize-transpose``: the transposed operand is permuted once by
  its own op and the matmul runs untransposed (pure data movement added).
"""

from __future__ import annotations

import re

from ..analysis import Analysis
from ..findings import Finding
from ..ir.model import Op
from ..ir.rewrite import Rewriter, desc_of
from .catalog import builder
from .layout_fixes import attrs_of, loc_of, op_line
from .matmul_config import rewrite_config_text, search
from .model import Fix

MATMULS = ("ttnn.matmul", "ttnn.linear")


@builder("TTA010")
def smaller_blocks(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """A matmul whose CBs overflow: the largest program config that fits (z3 + the CB model)."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    if op.name not in MATMULS:
        return []
    choice = search(a, op)
    if choice is None:
        return []
    pc = op.attrs["matmul_program_config"]
    old = {k: pc.get(k) for k in choice.values}

    def rewrite(rw: Rewriter) -> None:
        first, last = rw.span(op)
        text = "\n".join(rw.lines[first:last + 1])
        new = rewrite_config_text(text, choice.values).split("\n")
        rw.replace(op, [line[len(rw.indent(op)):] if line.startswith(rw.indent(op)) else line for line in new])

    change = ", ".join(f"{k} {old[k]} -> {v}" for k, v in choice.values.items() if old.get(k) != v)
    return [Fix("matmul/smaller-blocks", f"program config {change}",
                f"the largest {pc.kind} configuration whose CBs fit: {choice.cb_per_core:,} B per core, region end "
                f"{choice.region_end:,} B (z3 over Kt % in0_block_w, per_core % out_block, out_block % subblock, "
                f"subblock <= 8 or 4 tiles; {choice.candidates} candidate(s) checked with the CB model)",
                numerics="K accumulated in other blocks: rounding of partial sums may differ (compare by PCC)",
                rewrite=rewrite, details={"values": choice.values, "before": old})]


def _transposed(op: Op) -> tuple[int, str] | None:
    for i, key in ((1, "transpose_b"), (0, "transpose_a")):
        if op.attrs.get(key) is True:
            return i, key
    return None


@builder("TTA013")
def transposed_with_bias(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """A linear refused for a transposed operand with a bias: split the bias, or materialize the transpose."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    t = _transposed(op)
    if op.name != "ttnn.linear" or t is None or len(op.operands) < 3 or "transposed operand" not in f.message:
        return []
    idx, key = t
    x, w, bias = op.operands[:3]
    res = op.results[0]

    def bias_as_add(rw: Rewriter) -> None:
        m = rw.fresh_value()
        loc = loc_of(rw, op)
        rw.replace(op, [
            op_line(m, "ttnn.linear", [rw.name(x), rw.name(w)], attrs_of(rw, op),
                    [rw.value_type(x), rw.value_type(w)], rw.value_type(res), loc),
            op_line(rw.name(res), "ttnn.add", [m, rw.name(bias)], "", [rw.value_type(res), rw.value_type(bias)],
                    rw.value_type(res), loc),
        ])

    def materialize(rw: Rewriter) -> None:
        v = op.operands[idx]
        shape = tuple(v.type.shape)
        perm = list(range(len(shape)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        tshape = tuple(shape[p] for p in perm)
        tt = rw.type_text(desc_of(v.type, shape=tshape))
        tv = rw.fresh_value()
        rw.insert_before(op, [op_line(tv, "ttnn.permute", [rw.name(v)], "<{permutation = array<i64: "
                                      + ", ".join(map(str, perm)) + ">}>", [rw.value_type(v)], tt, loc_of(rw, op))])
        rw.rewrite_operands(op, {idx: (tv, tt)}, lambda text: re.sub(rf"\b{key} = true", f"{key} = false", text))

    why = "MatmulMultiCoreProgramFactory refuses a transposed operand when it adds a bias after the matmul"
    return [
        Fix("matmul/bias-as-add", "run the linear without its bias, then ttnn.add the bias",
            why + "; without a bias the factory accepts the transposed operand, and the bias add is the "
            "separate op that factory would have run anyway", numerics="the bias is added to the rounded matmul result by its own op (PCC)",
            rewrite=bias_as_add),
        Fix("matmul/materialize-transpose", f"permute operand {idx} once and set {key} = false",
            why + "; the permute is pure data movement and the matmul then reads its operand untransposed",
            rewrite=materialize),
    ]
