"""Memory rules from the allocator replay (:func:`ttanalyze.memory.replay`).

* TTA004 / TTA005: an L1 / DRAM allocation tt-metal refuses by capacity (the request
  exceeds the free bytes of the bank);
* TTA014: an allocation refused by fragmentation (enough free bytes in total, no free
  block large enough);
* TTA015: a bank more than 95% allocated at some op, although everything fits.

A refusal is an error when the model is sure of it (see :func:`ttanalyze.memory.replay`),
a warning that says what is uncertain otherwise.  Each finding quotes the message tt-metal
would print (``BankManager::allocate_buffer``, tt-metal d80d9482).
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from ..findings import Note
from ..memory import NEAR_FULL, AllocationFailure
from ..mesh import device_scope, func_mesh
from . import Reporter, rule

MAX_NOTES = 5
UNIT = {"l1": "per core", "l1_small": "per core", "dram": "per DRAM bank"}


def _notes(a: Analysis, f: AllocationFailure) -> list[Note]:
    op = a.program.ops[f.op_index]
    notes = []
    for x in f.live[:MAX_NOTES]:
        v = x.value
        pos = (v.producer.pos if v.producer else v.func.pos) if v is not None else op.pos
        info = a.infos.get(v) if v is not None else None
        what = (f"{v.name} {fmt.shape(info.logical_shape)} {info.dtype} {info.placement.memory_layout}"
                if v is not None and info is not None and info.placement is not None else x.label)
        tag = "requested: " if x.requested else ""
        sure = "" if x.certain else " (may not be allocated as modeled)"
        notes.append(Note(pos, f"{tag}{what} holds {fmt.nbytes(x.bytes_per_bank)} {UNIT[f.buffer_type]}{sure}"))
    if f.uncertain:
        notes.append(Note(op.pos, "not certain: " + "; ".join(f.uncertain)))
    return notes


def _data(a: Analysis, f: AllocationFailure) -> dict:
    s = f.oom.stats
    used = s.allocated + f.oom.aligned_size_per_bank
    return {"buffer_type": f.buffer_type, "bytes_used": used, "bytes_available": s.bank_size,
            "overflow_bytes": used - s.bank_size, "request": f.label,
            "mesh": (func_mesh(a.program, a.program.ops[f.op_index].func) or a.mesh).label if a.mesh else None,
            "request_bytes_per_bank": f.oom.size_per_bank, "allocated": s.allocated, "free": s.free,
            "largest_free_block": s.largest_free, "certain": f.certain, "uncertain": f.uncertain,
            "certain_bytes": f.certain_bytes, "tt_metal_message": f.oom.message(),
            "assumptions": a.allocation.assumptions,
            "live_tensors": [{"value": x.value.name, "bytes": x.bytes_per_bank} for x in f.live if x.value is not None]}


def _report(a: Analysis, r: Reporter, buffer_type: str, fragmentation: bool) -> None:
    if a.allocation is None:
        return
    for f in a.allocation.failures:
        if f.buffer_type.replace("l1_small", "l1") != buffer_type or f.fragmentation != fragmentation:
            continue
        s, o = f.oom.stats, f.oom
        unit = UNIT[buffer_type]
        bt = f.buffer_type.upper()
        if fragmentation:
            head = (f"{bt} fragmentation: {f.label} needs {fmt.nbytes(o.aligned_size_per_bank)} {unit}; "
                    f"{fmt.nbytes(s.free)} of the {fmt.nbytes(s.bank_size)} bank are free, but the largest free "
                    f"block is {fmt.nbytes(s.largest_free)}")
        else:
            head = (f"{bt} overflow: {f.label} needs {fmt.nbytes(o.aligned_size_per_bank)} {unit} but only "
                    f"{fmt.nbytes(s.free)} of the {fmt.nbytes(s.bank_size)} bank are free: {len(f.live)} "
                    f"{bt} buffers would hold {fmt.nbytes(s.allocated + o.aligned_size_per_bank)} {unit}, beyond "
                    f"the bank by {fmt.nbytes(s.allocated + o.aligned_size_per_bank - s.bank_size)}")
        head += device_scope(func_mesh(a.program, a.program.ops[f.op_index].func) if a.mesh else None)
        verdict = "tt-metal refuses it" if f.certain else "tt-metal may refuse it (see the notes)"
        r.op(a.program.ops[f.op_index], f'{head}; {verdict}: "{o.message()}"', notes=_notes(a, f),
             data=_data(a, f), severity=None if f.certain else "warning")


@rule("TTA004")
def l1_capacity(a: Analysis, r: Reporter) -> None:
    _report(a, r, "l1", fragmentation=False)


@rule("TTA005")
def dram_capacity(a: Analysis, r: Reporter) -> None:
    _report(a, r, "dram", fragmentation=False)


@rule("TTA014")
def fragmentation(a: Analysis, r: Reporter) -> None:
    _report(a, r, "l1", fragmentation=True)
    _report(a, r, "dram", fragmentation=True)


@rule("TTA015")
def near_full(a: Analysis, r: Reporter) -> None:
    """One warning per run of consecutive ops (of one function) above 95% of a bank, at its peak."""
    if a.allocation is None:
        return
    failed = {f.op_index for f in a.allocation.failures}
    ops = a.program.ops
    for bt in ("l1", "dram"):
        bank = a.allocation.configs[bt].bank_size
        if bank <= 0:
            continue
        points = a.allocation.points.values()
        if max([p.l1_allocated if bt == "l1" else p.dram_allocated for p in points], default=0) <= NEAR_FULL * bank:
            continue  # no op is above the margin
        used = {i: (p.l1_allocated if bt == "l1" else p.dram_allocated) for i, p in a.allocation.points.items()}
        run: list[int] = []
        for op in ops + [None]:
            hot = op is not None and op.index not in failed and used.get(op.index, 0) > NEAR_FULL * bank
            if hot and run and (run[-1] == op.index - 1 and ops[run[-1]].func is op.func):
                run.append(op.index)
                continue
            if run:
                peak = max(run, key=lambda i: used[i])
                span = f" (above {NEAR_FULL:.0%} for {len(run)} consecutive ops)" if len(run) > 1 else ""
                r.op(ops[peak], f"{bt.upper()} nearly full: {fmt.nbytes(used[peak])} of the {fmt.nbytes(bank)} bank "
                                f"({100 * used[peak] / bank:.1f}%) {UNIT[bt]} allocated at this op{span}; it fits, "
                                "but within the margin of a layout or tt-metal version change",
                     data={"buffer_type": bt, "bytes_allocated": used[peak], "bank_size": bank,
                           "ops_near_full": len(run)})
            run = [op.index] if hot else []
