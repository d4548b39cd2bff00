"""Capacity rules: L1 per core (TTA004) and DRAM per bank (TTA005).

At each op, the live tensors of a buffer type hold their per-bank bytes in
every bank (:mod:`ttanalyze.memory`).  L1 is compared with the L1 bank size,
``l1_size - l1_unreserved_base - l1_small_size`` (:attr:`Arch.usable_l1`),
DRAM with ``dram_unreserved_end - dram_unreserved_base``.  One finding per contiguous run of overflowing ops, at
the op where use peaks.
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from ..findings import Note
from . import Reporter, rule

MAX_NOTES = 5


def _report(a: Analysis, r: Reporter, buffer_type: str) -> None:
    arch = a.arch
    if buffer_type == "l1":
        budget = arch.usable_l1
        budget_text = (f"{fmt.nbytes(budget)} available per core (l1_size {fmt.num(arch.l1_size)} - "
                       f"l1_unreserved_base {fmt.num(arch.l1_unreserved_base)} - l1_small_size "
                       f"{fmt.num(arch.l1_small_size)})")
        used = {i: p.l1_per_core for i, p in a.memory.points.items()}
        unit = "per core"
    else:
        budget = arch.usable_dram_per_bank
        budget_text = (f"{fmt.nbytes(budget)} available per DRAM bank (dram_unreserved_end "
                       f"{fmt.num(arch.dram_unreserved_end)} - dram_unreserved_base {fmt.num(arch.dram_unreserved_base)})")
        used = {i: p.dram_per_bank for i, p in a.memory.points.items()}
        unit = "per DRAM bank"
    ops = a.program.ops
    run: list[int] = []
    for op in ops + [None]:
        over = op is not None and used.get(op.index, 0) > budget
        if over and (not run or (run[-1] == op.index - 1 and ops[run[-1]].func is op.func)):
            run.append(op.index)
            continue
        if run:
            peak = max(run, key=lambda i: used[i])
            live = a.memory.live_at(peak, buffer_type)
            notes = [Note(v.producer.pos if v.producer else v.func.pos,
                          f"{v.name} {fmt.shape(info.logical_shape)} {info.dtype} {info.placement.memory_layout} holds "
                          f"{fmt.nbytes(info.placement.bytes_per_bank)} {unit}")
                     for v, info in live[:MAX_NOTES]]
            peak_op = ops[peak]
            span = f" (over budget for {len(run)} consecutive ops)" if len(run) > 1 else ""
            r.op(peak_op, f"{buffer_type.upper()} overflow: {len(live)} live {buffer_type.upper()} tensors hold "
                          f"{fmt.nbytes(used[peak])} {unit} at this op, beyond the {budget_text} by "
                          f"{fmt.nbytes(used[peak] - budget)}{span}",
                 notes=notes,
                 data={"buffer_type": buffer_type, "bytes_used": used[peak], "bytes_available": budget,
                       "overflow_bytes": used[peak] - budget, "ops_over_budget": len(run),
                       "live_tensors": [{"value": v.name, "bytes": info.placement.bytes_per_bank} for v, info in live]})
            run = []
        if over:
            run = [op.index]


@rule("TTA004")
def l1_capacity(a: Analysis, r: Reporter) -> None:
    _report(a, r, "l1")


@rule("TTA005")
def dram_capacity(a: Analysis, r: Reporter) -> None:
    _report(a, r, "dram")
