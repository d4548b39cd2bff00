"""``ttanalyze explain``: everything known about one op, from the shared records."""

from __future__ import annotations

from typing import Any

from .. import fmt
from .. import ops as O
from ..analysis import Analysis
from ..findings import Finding
from ..ir.model import Op
from ..rules import catalog
from .records import op_record, value_record


def select_ops(a: Analysis, spec: str) -> list[Op]:
    """Ops named by ``spec``: a line number, a result name (``%5``) or ``func:%5``.

    Raises:
        ValueError: nothing matches (the message lists what could).
    """
    spec = spec.strip()
    if spec.isdigit():
        found = [op for op in a.program.ops if op.pos.line == int(spec)]
        if not found:
            lines = sorted({op.pos.line for op in a.program.ops})
            raise ValueError(f"no op starts on line {spec}; ops start on lines {lines[0]}..{lines[-1]}")
        return found
    func, _, name = spec.rpartition(":")
    found = [op for op in a.program.ops
             if any(r.name == name for r in op.results) and (not func or op.func.name == func.lstrip("@"))]
    if not found:
        raise ValueError(f"no op defines {spec}")
    if len(found) > 1:
        where = ", ".join(f"{op.func.name}:{name} (line {op.pos.line})" for op in found)
        raise ValueError(f"{spec} is defined in several functions: {where}; write func:{name}")
    return found


def _layout_lines(lay: dict[str, Any] | None) -> list[str]:
    if lay is None:
        return ["    (no #ttnn.ttnn_layout encoding)"]
    unit = lay["memref"]["unit"]
    lines = [
        f"    layout     {lay['layout']} {lay['dtype']}" + (f", tile {fmt.shape(lay['tile'])}" if lay["tile"] else "")
        + f", grid {fmt.shape(lay['grid'])}",
        f"    logical    {fmt.shape(lay['logical_shape'])}  ({fmt.num(lay['logical_volume'])} elements"
        + (f", {fmt.num(lay['logical_tiles'])} tiles" if lay["tile"] else "") + ")",
        f"    padded     {fmt.shape(lay['padded_shape'])}  ({fmt.num(lay['physical_volume'])} elements, "
        f"padding {fmt.pct(lay['padding_pct'])})",
        f"    2D         logical {fmt.shape(lay['logical_2d'])} -> physical {fmt.shape(lay['physical_2d'])}"
        + (f" = {fmt.shape(lay['tile_grid'])} tiles" if lay["tile"] else ""),
        "    physical   " + (f"{fmt.num(lay['physical_tiles'])} tiles, " if lay["tile"] else "")
        + f"{fmt.nbytes(lay['physical_bytes'])}",
        f"    memref     IR {fmt.shape(lay['memref']['ir'])} {unit}, expected {fmt.shape(lay['memref']['expected'])} {unit}"
        + ("" if lay["memref"]["ir"] == lay["memref"]["expected"] else "  <- MISMATCH"),
    ]
    if lay["strides"]:
        parts = []
        for s in lay["strides"]:
            mark = "" if s["value"] == s["expected"] else f" (expected {s['expected']})"
            parts.append(f"d{s['dim']}->r{s['result']}: {s['value'] if s['value'] is not None else 'non-linear'}"
                         f" = {s['formula']}{mark}")
        lines.append("    strides    " + "; ".join(parts))
    p = lay["placement"]
    if p:
        layout = p["memory_layout"] or ""
        lines.append(
            f"    placement  {p['buffer_type']} {layout}: {fmt.num(p['pages'])} pages of {fmt.nbytes(p['page_bytes'])}"
            f" (aligned {fmt.nbytes(p['aligned_page_bytes'])}) on {fmt.num(p['cores_with_data'])} of "
            f"{fmt.num(p['banks'])} banks; {fmt.nbytes(p['bytes_per_bank'])} per bank, {fmt.nbytes(p['total_bytes'])} reserved"
        )
    else:
        lines.append("    placement  host (system memory)")
    for prob in lay["problems"]:
        lines.append(f"    problem    {prob}")
    return lines


def _value_block(title: str, rec: dict[str, Any], a: Analysis) -> list[str]:
    lines = [f"  {title} {rec['name']}: {rec['type']}" + (f"  (source name '{rec['source_name']}')" if rec.get("source_name") else "")]
    if "encoding" in rec:
        lines += _layout_lines(rec["layout"])
    lt = rec.get("lifetime")
    if lt:
        start, end = a.program.ops[lt["start_op"]], a.program.ops[lt["end_op"]]
        lines.append(f"    lifetime   line {start.pos.line} (op #{lt['start_op']}) to line {end.pos.line} "
                     f"(op #{lt['end_op']}, {lt['end_reason']})")
    return lines


def _ranges_text(ranges: list[list[int]]) -> str:
    return ", ".join(f"({x0},{y0})-({x1},{y1})" for x0, y0, x1, y1 in ranges)


def _program_lines(prog: dict[str, Any] | None, a: Analysis) -> list[str]:
    if prog is None:
        return []
    if prog["status"] != "modeled":
        reason = prog["reason"] or "no device program"
        return [f"  program    {prog['status']}: {reason}"]
    stages = prog["stages"]
    lines = []
    if len(stages) > 1:
        lines.append(f"  programs   {len(stages)} device programs, CBs freed between them: "
                     + "; ".join(f"{i + 1}. {s['factory']} {fmt.nbytes(s['cb_per_core_peak'])}/core"
                                 for i, s in enumerate(stages)))
        lines.append("  largest:")
    lines += [f"  program    {prog['factory']} on {fmt.num(prog['num_cores'])} cores [{_ranges_text(prog['cores'])}]",
              f"    source   {prog['source']}"]
    for cb in prog["cbs"]:
        shared = " (backed by a sharded tensor: no extra L1)" if cb["globally_allocated"] else ""
        lines.append(f"    c_{cb['index']:<3} {cb['name']:<10} {fmt.num(cb['pages']):>7} pages x {fmt.num(cb['page_bytes']):>7} B "
                     f"= {fmt.nbytes(cb['bytes']):>13} on [{_ranges_text(cb['core_ranges'])}]{shared}")
    core = prog["busiest_core"]
    where = f" on core ({core[0]},{core[1]})" if core else ""
    lines.append(f"    CBs per core peak {fmt.nbytes(prog['cb_per_core_peak'])}{where}; CB region "
                 f"{fmt.num(a.arch.l1_unreserved_base)}..{fmt.num(prog['cb_region_end'])} "
                 f"({a.arch.dram_alignment}-B aligned starts)"
                 + (f"; scratch {fmt.nbytes(prog['extra_l1_per_core'])} per core" if prog["extra_l1_per_core"] else "")
                 + (f"; intermediate L1 buffers {fmt.nbytes(prog['l1_buffers_per_core'])} per core"
                    if prog["l1_buffers_per_core"] else ""))
    for note in prog["notes"]:
        lines.append(f"    note     {note}")
    return lines


def explain_text(a: Analysis, op: Op, findings: list[Finding]) -> str:
    """The explanation of ``op`` as text (see module docstring)."""
    rec = op_record(a, op)
    model = O.lookup(op.name)
    lines = [f"{op.label} at {a.program.path}:{op.pos.line}:{op.pos.col}  (op #{op.index} in @{op.func.name}"
             + (f", loc \"{op.loc_name}\"" if op.loc_name else "") + ")"]
    lines.append(f"  model      {model.family + ', shape rule from ' + model.source if model else 'not modeled'}")
    if rec["attributes"]:
        lines.append("  attributes")
        for k, v in rec["attributes"].items():
            lines.append(f"    {k} = {v}")
    check = rec["shape_check"]
    if check:
        shapes = ", ".join(fmt.shape(s) for s in check["shapes"]) if check["shapes"] else ""
        lines.append(f"  shape rule {check['status']}" + (f": {shapes}" if shapes else "") + (f": {check['error']}" if check["error"] else ""))
    for v in op.operands:
        producer = f" (from {v.producer.name} at line {v.producer.pos.line})" if v.producer else " (function argument)"
        block = _value_block("operand", value_record(a, v), a)
        block[0] += producer
        lines += block
    for r in rec["results"]:
        lines += _value_block("result", r, a)
    lines += _program_lines(rec["program"], a)
    mem = rec["memory"]
    if mem:
        own = (f" + intermediate buffers {fmt.nbytes(mem['op_l1_buffers_per_core'])}"
               if mem["op_l1_buffers_per_core"] else "")
        lines.append(f"  memory     L1 tensors {fmt.nbytes(mem['l1_per_core'])}{own} + CBs {fmt.nbytes(mem['cb_per_core'])} "
                     f"per core (bank {fmt.nbytes(a.arch.usable_l1)}, CB region from {fmt.num(a.arch.l1_unreserved_base)} "
                     f"up to l1_size {fmt.num(a.arch.l1_size)}); DRAM {fmt.nbytes(mem['dram_per_bank'])} per bank of "
                     f"{fmt.nbytes(a.arch.usable_dram_per_bank)}")
        if a.allocation is not None:
            lines.append(f"  allocator  address range in use: L1 {fmt.nbytes(mem['l1_extent_per_core'])} per core below "
                         f"the top of the {fmt.nbytes(a.allocation.configs['l1'].bank_size)} bank; DRAM "
                         f"{fmt.nbytes(mem['dram_extent_per_bank'])} per bank above the base of the "
                         f"{fmt.nbytes(a.allocation.configs['dram'].bank_size)} bank (tt-metal's allocator, holes included)")
        for v, info in a.memory.live_at(op.index, "l1")[:8]:
            lines.append(f"    live L1  {v.name} {fmt.shape(info.logical_shape)}: {fmt.nbytes(info.placement.bytes_per_bank)} per core")
    lines.append("  rules")
    mine = [f for f in findings if f.op_index == op.index]
    for rid, meta in catalog().items():
        hits = [f for f in mine if f.rule == rid]
        if hits:
            for f in hits:
                lines.append(f"    {rid} {meta.name}: {f.severity}: {f.message}")
        else:
            lines.append(f"    {rid} {meta.name}: no finding")
    return "\n".join(lines)
