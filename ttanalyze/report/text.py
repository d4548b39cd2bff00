"""Text report of ``ttanalyze check``: findings, a summary line, a per-op table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from .. import fmt
from ..analysis import Analysis
from ..findings import Finding


def findings_text(findings: list[Finding], fixes: dict | None = None) -> str:
    """One ``file:line:col: severity[RULE] message`` line per finding (plus notes), and its ranked fixes
    (``fixes``: finding index -> evaluated :class:`ttanalyze.fixes.model.Fix` list)."""
    from .fixes import fix_lines

    out = []
    for i, f in enumerate(findings):
        out.append(f.format())
        if fixes and i in fixes:
            out.extend(fix_lines(f, fixes[i]))
    return "\n".join(out)


def summary_line(a: Analysis, findings: list[Finding]) -> str:
    """``file: N ops, E errors, W warnings, I infos; peak L1 X B/core at line L``."""
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    n = len(a.program.ops)
    module = a.program.module_name
    where_module = (f" [module {module}, lines {a.program.module_lines[0]}-{a.program.module_lines[1]}]"
                    if module and a.program.module_lines else "")
    parts = [f"{a.program.path}{where_module}: {n} op{'s' * (n != 1)}",
             f"{counts['error']} error{'s' * (counts['error'] != 1)}",
             f"{counts['warning']} warning{'s' * (counts['warning'] != 1)}",
             f"{counts['info']} info"]
    text = ", ".join(parts)
    peak = a.memory.peak_l1
    if peak is not None:
        where = f" at line {a.program.ops[peak.op_index].pos.line}" if peak.l1_total_per_core else ""
        tensors = peak.l1_per_core + peak.op_l1_buffers_per_core
        text += (f"; peak L1{where}: {fmt.nbytes(tensors)} tensors + {fmt.nbytes(peak.cb_per_core)} CBs per core "
                 f"(bank {fmt.nbytes(a.arch.usable_l1)}, CB region up to l1_size "
                 f"{fmt.nbytes(a.arch.l1_size - a.arch.l1_unreserved_base)})")
    peak = a.memory.peak_dram
    if peak is not None:
        where = f" at line {a.program.ops[peak.op_index].pos.line}" if peak.dram_per_bank else ""
        text += f"; peak DRAM {fmt.nbytes(peak.dram_per_bank)}/bank{where}"
        widest = max(a.memory.points.values(), key=lambda p: p.dram_extent_per_bank)
        if widest.dram_extent_per_bank > peak.dram_per_bank:  # holes left by frees (allocator replay)
            text += (f" (address range in use up to {fmt.nbytes(widest.dram_extent_per_bank)}/bank at line "
                     f"{a.program.ops[widest.op_index].pos.line})")
    mesh = a.mesh
    where = f", mesh {mesh.label}: per device" if mesh is not None and mesh.devices > 1 else ""
    return text + f" [{a.arch.name}{where}]"


def op_table(a: Analysis, console: Console) -> None:
    """Print the per-op table: result layout numbers and memory in use."""
    table = Table(title=f"{a.program.path} ({a.arch.name}, {a.arch.source})", show_lines=False)
    for col in ("#", "line", "op", "result", "layout", "padded", "tiles", "bytes", "pad %", "L1/core", "DRAM/bank", "shape"):
        table.add_column(col, justify="right" if col in ("#", "line", "tiles", "bytes", "pad %", "L1/core", "DRAM/bank") else "left")
    for op in a.program.ops:
        point = a.memory.points.get(op.index)
        check = a.shape_checks.get(op.index)
        v = next((r for r in op.results if r.is_tensor), None)
        info = a.infos.get(v) if v is not None else None
        if info is not None:
            lay = v.type.layout
            place = f"{lay.buffer_type}{'/' + lay.memory_layout if lay.memory_layout else ''}"
            layout = f"{info.layout} {info.dtype} {place}"
            cells = [f"{v.name} {fmt.shape(info.logical_shape)}", layout, fmt.shape(info.padded_shape),
                     fmt.num(info.physical_tiles) if info.tile else "-", fmt.num(info.physical_bytes),
                     f"{info.padding_pct:.1f}"]
        else:
            cells = [f"{v.name} {v.type}" if v is not None else "", "", "", "", "", ""]
        table.add_row(str(op.index), str(op.pos.line), op.name, *cells,
                      fmt.num(point.l1_per_core) if point else "", fmt.num(point.dram_per_bank) if point else "",
                      check.status if check else "")
    console.print(table)
