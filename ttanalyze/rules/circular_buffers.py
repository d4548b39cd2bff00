"""Program rules: CBs that do not fit in L1 (TTA010), ops whose CBs are not modeled (TTA011),
configurations tt-metal refuses (TTA013).

tt-metal places a program's static circular buffers from the L1 allocator base
(``l1_unreserved_base``) upwards on every core of the program, while L1 buffers
are allocated top-down from ``l1_size - l1_small_size``.  On program creation
it checks, per core range in the order the CBs were created (the range it names
is :meth:`ProgramModel.first_overflow`'s) (tt-metal ``impl/program/program.cpp`` /
``impl/dataflow_buffer/dataflow_buffer.cpp``; both checks reproduced on a mock
P150, ttnn 0.81.1, even inside NO_DISPATCH graph capture):

* ``base + CBs <= l1_size``, else "Statically allocated circular buffers on core
  range [...] grow to X B which is beyond max L1 size of Y B";
* ``base + CBs <= lowest live L1 buffer address`` when an L1 buffer is live,
  else "... clash with L1 buffers on core range [...]".  The lowest address is
  the allocator replay's (:func:`ttanalyze.memory.replay`: tt-metal's free list,
  holes included) while the program runs, the L1 buffers the op itself holds
  (conv/pool halo output) included; packed without holes it would be ``l1_size -
  l1_small_size - live L1 per core - the op's L1 buffers``.  A clash that only the
  holes make, where the replay is inexact, is a warning.

An error means "tt-metal refuses this".  A program model that doubts its own
verdict says so in ``ProgramModel.params["refusal_unsure"]`` (a conv2d whose
detailed count overflows while tt-metal's own L1 estimate fits); the finding is
then a warning carrying that reason.
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from ..findings import Note
from ..mesh import device_scope, func_mesh
from ..ops.cb import contains
from ..ops.registry import CHECKS
from . import Reporter, rule

MAX_CB_LIST = 6


def _scope(a: Analysis, op) -> str:
    """Where the verdict holds (each device of the op's mesh) and, for a model read from the program factory's
    source only (not runnable on the mock), that it is from source."""
    where = device_scope(func_mesh(a.program, op.func)) if a.mesh is not None else ""
    how = CHECKS.get(op.name, ("", ""))[0]
    return where + ("; from source (the program factory's source: the op cannot run on the mock)"
                    if how == "source" else "")


def _cb_list(program, core) -> str:
    x, y = core
    cbs = [cb for cb in program.static_cbs if contains(cb.cores, x, y)]
    cbs.sort(key=lambda cb: -cb.bytes)
    parts = [f"c_{cb.index} {cb.name} {fmt.num(cb.pages)} x {fmt.num(cb.page_bytes)} B = {fmt.nbytes(cb.bytes)}"
             for cb in cbs[:MAX_CB_LIST]]
    if len(cbs) > MAX_CB_LIST:
        parts.append(f"{len(cbs) - MAX_CB_LIST} more")
    if program.extra_l1_per_core:
        parts.append(f"kernel scratchpads {fmt.nbytes(program.extra_l1_per_core)}")
    return "; ".join(parts)


_NOT_REPLAYED = object()  # a program the allocator replay has no lowest L1 address for (cb_overflow)


@rule("TTA010")
def cb_overflow(a: Analysis, r: Reporter) -> None:
    arch = a.arch
    # per program (ops alike share one): its busiest core and CB-region bytes, and whether no CB allocator can
    # grow past l1_size (ProgramModel.first_overflow is None); then l1_refusal is None unless the region clashes
    figures: dict[int, tuple[tuple[int, int] | None, int, bool]] = {}
    in_stage = a.allocation.l1_lowest_in_stage if a.allocation is not None else {}
    programs, points, ops = a.programs, a.memory.points, a.program.ops
    base, l1_size = arch.l1_unreserved_base, arch.l1_size
    for i, prog in programs.items():  # in program order (programs.op_models)
        if not prog.stages:
            continue
        live = -1  # read from the memory timeline when needed
        for n, program in enumerate(prog.stages):
            got = figures.get(id(program))
            if got is None:
                # the busiest core of the static CBs and the kernel scratchpads after them; no allocator past l1_size
                got = figures[id(program)] = program.region_figures(base, l1_size, arch.dram_alignment)
            core, cb_bytes, fits = got
            if core is None:
                continue
            end = base + cb_bytes
            if fits:
                low = in_stage.get((i, n), _NOT_REPLAYED)  # the replay's lowest L1 address, as _lowest_l1 returns it
                if low is not _NOT_REPLAYED and end <= (l1_size if low is None else low):
                    continue  # program.l1_refusal(arch, lowest) is None
            if live < 0:
                point = points.get(i)
                live = point.l1_per_core if point else 0
            held = live + program.l1_buffers_per_core
            # tt-metal compares with the lowest *allocated* L1 buffer: with none, only the l1_size check applies.
            summed = l1_size - arch.l1_small_size - held if held else l1_size
            lowest, inexact = _lowest_l1(a, i, n, summed, end)
            if fits and end <= lowest:
                continue  # program.l1_refusal(arch, lowest) is None
            op = ops[i]
            refusal = program.l1_refusal(arch, lowest)
            if refusal is None:
                continue
            first = (refusal.core_range, refusal.end) if refusal.check == "max_l1_size" else None
            stage = f" (program {n + 1} of {len(prog.stages)})" if len(prog.stages) > 1 else ""
            # The model's own doubt (e.g. tt-metal's L1 estimate fits where the detailed count does not): a
            # warning, since an error means "tt-metal refuses this" and a false error is worse than none.
            unsure = program.params.get("refusal_unsure")
            if first is None and end <= summed and inexact:
                # only the replay's holes make it clash, and the replay is not sure of the L1 placement here
                unsure = unsure or ("the clash comes from holes the allocator replay leaves between L1 buffers, and "
                                    "that replay is inexact here: " + "; ".join(inexact))
            severity, doubt = ("warning", f"; unsure: {unsure}") if unsure else (None, "")
            data = {"factory": program.factory, "stage": n, "core": list(core), "cb_bytes": cb_bytes,
                    "l1_unreserved_base": arch.l1_unreserved_base, "cb_region_end": end, "l1_size": arch.l1_size,
                    "live_l1_per_core": live, "op_l1_buffers_per_core": program.l1_buffers_per_core,
                    "lowest_l1_buffer": lowest,
                    "cbs": [{"index": cb.index, "name": cb.name, "page_bytes": cb.page_bytes, "pages": cb.pages,
                             "bytes": cb.bytes} for cb in program.static_cbs if contains(cb.cores, *core)]}
            where = f"core ({core[0]},{core[1]})"
            if first is not None:
                rng, grown = first
                at = (rng.start.x, rng.start.y)
                named = f"core range [({rng.start.x},{rng.start.y})-({rng.end.x},{rng.end.y})]"
                inside = rng.start.x <= core[0] <= rng.end.x and rng.start.y <= core[1] <= rng.end.y
                busiest = "" if inside else f" (its busiest core, {where}, holds {fmt.nbytes(cb_bytes)} of CBs)"
                r.op(op, f"circular buffers of {program.factory}{stage} on {named} grow to {fmt.nbytes(grown)} "
                         f"(l1_unreserved_base {fmt.num(arch.l1_unreserved_base)} + {fmt.nbytes(grown - arch.l1_unreserved_base)}"
                         f" of CBs at {arch.dram_alignment}-B aligned addresses: {_cb_list(program, at)}), beyond the max L1 size of "
                         f"{fmt.nbytes(arch.l1_size)}: tt-metal refuses the program{_scope(a, op)}{busiest}{doubt}",
                     data=dict(data, check="max_l1_size", reported_range=[rng.start.x, rng.start.y, rng.end.x, rng.end.y],
                               reported_end=grown, unsure=unsure), severity=severity)
            else:
                notes = [Note(v.producer.pos if v.producer else v.func.pos,
                              f"{v.name} {fmt.shape(info.logical_shape)} holds {fmt.nbytes(info.placement.bytes_per_bank)} per core")
                         for v, info in a.memory.live_at(op.index, "l1")[:5]]
                r.op(op, f"circular buffers of {program.factory}{stage} clash with L1 buffers on {where}: the static "
                         f"CB region ends at {fmt.nbytes(end)} (l1_unreserved_base {fmt.num(arch.l1_unreserved_base)} + "
                         f"{fmt.nbytes(cb_bytes)} of CBs: {_cb_list(program, core)}) but the live L1 tensors start at "
                         f"{fmt.nbytes(lowest)} (" + ("the allocator replay's lowest L1 buffer; packed without holes "
                                                     f"they would start at {fmt.nbytes(summed)}: " if lowest != summed else "")
                         + f"l1_size {fmt.num(arch.l1_size)} - l1_small_size "
                         f"{fmt.num(arch.l1_small_size)} - {fmt.nbytes(live)} of live L1 tensors"
                         + (f" - {fmt.nbytes(program.l1_buffers_per_core)} of the op's intermediate L1 buffers"
                            if program.l1_buffers_per_core else "") + ")" + _scope(a, op) + doubt,
                     notes=notes, data=dict(data, check="clash", unsure=unsure), severity=severity)
            break  # tt-metal stops at the first program it refuses


def _lowest_l1(a: Analysis, op_index: int, stage: int, summed: int, end: int) -> tuple[int, list[str]]:
    """The lowest allocated L1 address while program ``stage`` of the op runs (absolute, bytes; ``l1_size`` when
    none), from the allocator replay (:attr:`ttanalyze.memory.AllocationReplay.l1_lowest_in_stage`), and why a
    clash with it (a CB region ending at ``end``) may not happen: the replay's L1 placement is inexact there
    (empty when exact, or when the buffers allocated before the op, placed exactly, already clash);
    ``summed`` (the live buffers packed top-down) without a replay."""
    replayed = a.allocation
    if replayed is None or (op_index, stage) not in replayed.l1_lowest_in_stage:
        return summed, []
    low = replayed.l1_lowest_in_stage[(op_index, stage)]
    lowest = a.arch.l1_size if low is None else low
    at_op = replayed.l1_lowest_at_op.get(op_index)
    if at_op is not None and end > at_op and op_index not in replayed.l1_inexact_at_op:
        return lowest, []
    return lowest, replayed.l1_inexact_in_stage.get((op_index, stage), [])


@rule("TTA011")
def cb_unmodeled(a: Analysis, r: Reporter) -> None:
    ops = a.program.ops
    for i, prog in a.programs.items():  # in program order (programs.op_models)
        if prog.status not in ("unmodeled", "out_of_scope"):
            continue
        op = ops[i]
        r.op(op, f"circular buffers of {op.name} are not modeled ({prog.reason}): L1 figures at this op "
                 f"count its live tensors only", data={"op": op.name, "status": prog.status, "reason": prog.reason})


def unrecorded_layouts(program):
    """The first ``ttnn.to_layout`` asking for ``tile`` whose declared result is row-major, or None.

    tt-mlir of 2024 (``#tt.layout`` encodings) inserted such conversions without updating the result
    type: "all op inputs are set to TILE layout, while all outputs are ROW_MAJOR" (tenstorrent/tt-mlir
    issue #822, 2024-09); tt-metal's layout at run time is the one the producing op returns (tt-mlir's
    runtime of that era kept ttnn's tensors unchecked).  A refusal the model derives from those types is
    then unsure.
    """
    for op in program.ops:
        layout = op.attrs.get("layout")
        if (op.name == "ttnn.to_layout" and getattr(layout, "value", layout) == "tile" and op.results
                and op.results[0].is_tensor and not op.results[0].type.layout.is_tiled):
            return op
    return None


@rule("TTA013")
def rejected(a: Analysis, r: Reporter) -> None:
    ops = a.program.ops
    doubt = None
    for i, prog in a.programs.items():  # in program order (programs.op_models)
        if prog.status == "rejected":
            op = ops[i]
            if doubt is None:
                bad = unrecorded_layouts(a.program)
                doubt = "" if bad is None else (
                    f"; unsure: this file's types do not record tile layouts (line {bad.pos.line}: ttnn.to_layout "
                    f"to tile declares a row-major result, as tt-mlir of 2024 wrote), so the layouts the device "
                    f"sees may differ")
            unsure = doubt or (f"; unsure: {prog.unsure}" if prog.unsure else "")
            r.op(op, f"tt-metal refuses {op.name} as configured: {prog.reason}{unsure}",
                 data={"op": op.name, "reason": prog.reason, "unsure": bool(unsure)},
                 severity="warning" if unsure else None)
