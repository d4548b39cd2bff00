"""Fixes of an out-of-memory (TTA004 L1, TTA005 DRAM, TTA014 fragmentation): move the largest live L1
tensor to DRAM, or deallocate earlier.

* ``l1/move-to-dram``: right after the largest live L1 tensor is produced, a
  ``ttnn.to_memory_config`` copies it to DRAM interleaved and the L1 copy is
  deallocated; every later use reads the DRAM tensor (operand types
  retyped).  The tensor then costs its DRAM pages instead of L1 in every bank
  while it lives; the ops that read it stream it from DRAM (latency from the
  cost model).
* ``l1/deallocate-earlier`` (``dram/...`` for DRAM): a live tensor of the failing
  buffer type whose ``ttnn.deallocate`` comes after the failing op although its
  last use is before it gets its deallocate right after that last use (for a
  fragmentation refusal this also moves the holes: the re-analysis measures it).

Both leave the values unchanged (``exact``).
"""

from __future__ import annotations

from ..analysis import Analysis
from ..findings import Finding
from ..ir.model import Value
from ..ir.rewrite import Rewriter, desc_of
from .catalog import builder
from .layout_fixes import dealloc_line, loc_of, op_line
from .model import Fix


def _live(f: Finding, a: Analysis) -> list[Value]:
    names = [t["value"] for t in f.data.get("live_tensors", [])]
    func = a.program.ops[f.op_index].func
    by_name = {v.name: v for v in a.memory.lifetimes if v.func is func}
    return [by_name[n] for n in names if n in by_name]


def _move_to_dram(v: Value, size: int) -> Fix:
    def rewrite(rw: Rewriter) -> None:
        p = v.producer
        dram = rw.type_text(desc_of(v.type, buffer_type="dram", memory_layout="interleaved"))
        m = rw.fresh_value()
        loc = loc_of(rw, p)
        lines = [op_line(m, "ttnn.to_memory_config", [rw.name(v)], "", [rw.value_type(v)], dram, loc),
                 f'"ttnn.deallocate"({rw.name(v)}) <{{force = false}}> : ({rw.value_type(v)}) -> (){" " + loc if loc else ""}']
        rw.insert_after(p, lines)
        rw.replace_uses(v, m, dram)
    return Fix("l1/move-to-dram", f"move {v.name} ({size:,} B per core in L1) to DRAM after line {v.producer.pos.line}",
               f"{v.name} is the largest L1 tensor alive at the overflow; a DRAM interleaved copy frees its "
               f"{size:,} B in every L1 bank while its readers stream it from DRAM",
               rewrite=rewrite, details={"value": v.name, "bytes_per_core": size})


def _deallocate_earlier(v: Value, last_use, dealloc, buffer_type: str) -> Fix:
    def rewrite(rw: Rewriter) -> None:
        rw.replace(dealloc, [])
        rw.insert_after(last_use, [dealloc_line(rw, dealloc, rw.name(v), rw.value_type(v))])
    return Fix(f"{buffer_type}/deallocate-earlier", f"deallocate {v.name} after its last use at line {last_use.pos.line}",
               f"{v.name} stays allocated until line {dealloc.pos.line} although nothing reads it after line "
               f"{last_use.pos.line}", rewrite=rewrite, details={"value": v.name})


@builder("TTA004", "TTA005", "TTA014")
def out_of_memory_fixes(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """The fixes of an allocation refused at one op (module docstring); moving to DRAM for L1 only."""
    buffer_type = f.data.get("buffer_type")
    if f.op_index is None or buffer_type not in ("l1", "dram"):
        return []
    peak = a.program.ops[f.op_index]
    sizes = {t["value"]: t["bytes"] for t in f.data.get("live_tensors", [])}
    values = [v for v in _live(f, a) if v.producer is not None and v.producer is not peak]
    fixes: list[Fix] = []
    for v in values:
        deallocs = [u for u in v.users if u.name == "ttnn.deallocate"]
        uses = [u for u in v.users if u.name != "ttnn.deallocate"]
        if deallocs and uses and max(u.index for u in uses) < peak.index < deallocs[0].index:
            fixes.append(_deallocate_earlier(v, max(uses, key=lambda u: u.index), deallocs[0], buffer_type))
    movable = [v for v in values if v not in v.func.returns]  # a returned value keeps its declared type
    if movable and buffer_type == "l1":
        v = max(movable, key=lambda v: sizes.get(v.name, 0))
        fixes.append(_move_to_dram(v, sizes.get(v.name, 0)))
    return fixes
