"""Reports of ``ttanalyze cost``: the per-op table, totals and hotspots (text), the comparison with a
device profile (``--measured``), and their JSON records.

Units: ns for times, bytes for DRAM traffic, FLOPs for floating-point
operations (2 per multiply-add).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from rich.console import Console
from rich.table import Table

from .. import fmt
from ..cost.accuracy import ProfileComparison, Score, Summary
from ..cost.ir import OpCost, ProgramCost


def _sorted(ops: list[OpCost], sort: str) -> list[OpCost]:
    if sort == "ns":
        return sorted(ops, key=lambda c: -c.ns)
    if sort == "bytes":
        return sorted(ops, key=lambda c: -c.dram_bytes)
    if sort == "flops":
        return sorted(ops, key=lambda c: -c.flops)
    return list(ops)


def _us(ns: float) -> str:
    return f"{ns / 1000:,.2f}"


def groups(cost: ProgramCost, by: str) -> list[dict[str, Any]]:
    """Totals per group (``op`` name, ``bound``, or ``device_op`` code), largest first.

    Each group: ``key``, ``count`` (ops or device ops), ``ns``, ``dram_bytes``, ``flops``.
    """
    acc: dict[str, dict[str, Any]] = defaultdict(lambda: {"count": 0, "ns": 0.0, "dram_bytes": 0.0, "flops": 0.0})
    for c in cost.ops:
        if c.status != "costed":
            continue
        if by == "device_op":
            for d, e in zip(c.device_ops, c.estimates):
                g = acc[d.op_code]
                g["count"] += 1
                g["ns"] += e.ns
                g["dram_bytes"] += e.dram_bytes
                g["flops"] += e.flops
            continue
        g = acc[c.op.name if by == "op" else c.bound]
        g["count"] += 1
        g["ns"] += c.ns
        g["dram_bytes"] += c.dram_bytes
        g["flops"] += c.flops
    return sorted(({"key": k, **v} for k, v in acc.items()), key=lambda g: -g["ns"])


# rich measures every cell of a table before printing it (~0.5 ms a row): beyond
# this many rows the table is printed as plain aligned text instead.
PLAIN_TABLE_ROWS = 2_000


def _print_plain(table: Table, console: Console) -> None:
    """Print ``table`` as aligned plain text (title, header, rows), in time linear in its cells."""
    columns = [[str(col.header), *map(str, col.cells)] for col in table.columns]
    widths = [max(map(len, cells)) for cells in columns]
    right = [col.justify == "right" for col in table.columns]
    lines = [str(table.title)] if table.title else []
    for row in zip(*columns):
        lines.append("  ".join(cell.rjust(w) if r else cell.ljust(w) for cell, w, r in zip(row, widths, right)).rstrip())
    console.file.write("\n".join(lines) + "\n")


def cost_text(cost: ProgramCost, path: str, console: Console, sort: str = "line", group: str = "none",
              top: int = 5) -> None:
    """Print the per-op table (or the grouped one), the totals, the hotspots and the unknown ops."""
    hw = cost.hardware
    title = (f"{path}: predicted device time ({hw.arch}, {hw.grid_cores} cores at {hw.clock_hz / 1e9:.2f} GHz, "
             f"DRAM {hw.dram_bytes_per_s / 1e9:,.0f} GB/s)")
    if group == "none":
        table = Table(title=title)
        for col in ("line", "op", "location", "device ops", "cores", "DRAM bytes", "FLOPs", "us", "bound"):
            table.add_column(col, justify="right" if col in ("line", "cores", "DRAM bytes", "FLOPs", "us") else "left")
        for c in _sorted(cost.ops, sort):
            if c.status == "no_device_op":
                continue
            codes = ", ".join(d.op_code for d in c.device_ops) if c.device_ops else "-"
            if c.status == "unknown":
                table.add_row(str(c.op.pos.line), c.op.name, c.op.loc_name, codes, "", "", "", "unknown", c.reason)
                continue
            table.add_row(str(c.op.pos.line), c.op.name, c.op.loc_name, codes, str(c.cores), fmt.num(round(c.dram_bytes)),
                          fmt.num(round(c.flops)), _us(c.ns), c.bound)
    else:
        table = Table(title=f"{title}, by {group}")
        for col in (group, "count", "DRAM bytes", "FLOPs", "us", "share"):
            table.add_column(col, justify="left" if col == group else "right")
        total = cost.total_ns or 1.0
        for g in groups(cost, group):
            table.add_row(g["key"], str(g["count"]), fmt.num(round(g["dram_bytes"])), fmt.num(round(g["flops"])),
                          _us(g["ns"]), fmt.pct(100 * g["ns"] / total))
    if table.row_count > PLAIN_TABLE_ROWS:
        _print_plain(table, console)
    else:
        console.print(table)
    costed = [c for c in cost.ops if c.status == "costed"]
    console.print(f"total: {_us(cost.total_ns)} us over {len(costed)} ops with device work "
                  f"({sum(len(c.device_ops) for c in costed)} device ops); DRAM {fmt.nbytes(round(sum(c.dram_bytes for c in costed)))}; "
                  f"{fmt.num(round(sum(c.flops for c in costed)))} FLOPs", highlight=False, markup=False, soft_wrap=True)
    once = [c for c in costed if c.op.func.kind == "const_eval"]
    if once:
        ce = const_eval_ns(cost)
        console.print(f"of which const-eval (runs once, when the weights are prepared): {_us(ce)} us over {len(once)} "
                      f"ops; per inference: {_us(cost.total_ns - ce)} us", highlight=False, markup=False,
                      soft_wrap=True)
    hot = sorted(costed, key=lambda c: -c.ns)[:top]
    if hot:
        console.print("hotspots: " + "; ".join(
            f"line {c.op.pos.line} {c.op.name} {_us(c.ns)} us ({fmt.pct(100 * c.ns / (cost.total_ns or 1.0))}, {c.bound})"
            for c in hot), highlight=False, markup=False, soft_wrap=True)
    for c in cost.unknown:
        console.print(f"{c.op.pos}: unknown cost of {c.op.name}: {c.reason}", highlight=False, markup=False,
                      soft_wrap=True)
    for c in costed:
        for note in c.notes:
            console.print(f"{c.op.pos}: note: {c.op.name} cost assumes: {note}", highlight=False, markup=False,
                          soft_wrap=True)


def const_eval_ns(cost: ProgramCost) -> float:
    """Predicted ns of the ops in const-eval functions (``tt.function_type = "const_eval"``): tt-mlir hoists
    weight preparation there and the runtime runs it once, not per inference (ns)."""
    return sum(c.ns for c in cost.ops if c.status == "costed" and c.op.func.kind == "const_eval")


def cost_record(cost: ProgramCost, path: str) -> dict[str, Any]:
    """The JSON record of a program's cost (every number of the text report, and each device op's terms)."""
    hw = cost.hardware
    return {
        "path": path,
        "hardware": {"arch": hw.arch, "grid_cores": hw.grid_cores, "clock_hz": hw.clock_hz,
                     "dram_bytes_per_s": hw.dram_bytes_per_s},
        "constants": cost.constants.meta,
        "total_ns": cost.total_ns,
        "const_eval_ns": const_eval_ns(cost),
        "per_inference_ns": cost.total_ns - const_eval_ns(cost),
        "ops": [{
            "index": c.op.index, "line": c.op.pos.line, "col": c.op.pos.col, "name": c.op.name,
            "loc_name": c.op.loc_name, "status": c.status, "reason": c.reason, "ns": c.ns, "bound": c.bound,
            "cores": c.cores, "dram_bytes": c.dram_bytes, "flops": c.flops, "notes": c.notes,
            "device_ops": [{"op_code": d.op_code, "cores": d.cores, "math_fidelity": d.math_fidelity,
                            "ns": e.ns, "bound": e.bound, "terms": e.terms, "dram_bytes": e.dram_bytes,
                            "flops": e.flops, "notes": list(e.notes)}
                           for d, e in zip(c.device_ops, c.estimates)],
        } for c in cost.ops],
        "groups": {by: groups(cost, by) for by in ("op", "bound", "device_op")},
    }


def _score_cells(s: Score | None) -> tuple[str, str]:
    return (fmt.pct(s.median_ape), fmt.pct(s.mape)) if s else ("-", "-")


def measured_text(cmp: ProfileComparison, path: str, console: Console, top: int = 5) -> None:
    """Print predicted vs measured per profiler row, per op code (median APE, MAPE, PM IDEAL's), overall, worst rows."""
    table = Table(title=f"{path}: predicted vs measured device kernel duration")
    for col in ("row", "line", "op code", "cores", "measured us", "predicted us", "APE", "PM IDEAL us", "bound"):
        table.add_column(col, justify="left" if col in ("op code", "bound") else "right")
    for p in cmp.rows:
        r = p.row
        measured = _us(r.measured_ns) if r.measured_ns is not None else "untimed"
        pm = _us(r.pm_ideal_ns) if r.pm_ideal_ns is not None else "-"
        if p.estimate is None:
            table.add_row(str(r.index), str(r.line), r.op.op_code, str(r.op.cores), measured, "-", "-", pm, p.reason)
            continue
        a = p.ape
        table.add_row(str(r.index), str(r.line), r.op.op_code, str(r.op.cores), measured, _us(p.estimate.ns),
                      fmt.pct(a) if a is not None else "-", pm, p.estimate.bound)
    console.print(table)
    per = Table(title="per op code (median APE / MAPE over the timed, predicted rows; PM IDEAL on the same rows)")
    for col in ("op code", "rows", "timed", "predicted", "measured us", "predicted us", "median APE", "MAPE",
                "PM IDEAL median APE", "PM IDEAL MAPE"):
        per.add_column(col, justify="left" if col == "op code" else "right")
    for s in [*cmp.per_op, cmp.total]:
        per.add_row(s.op_code, str(s.rows), str(s.timed), str(s.predicted), _us(s.measured_ns), _us(s.predicted_ns),
                    *_score_cells(s.model), *_score_cells(s.pm_ideal))
    console.print(per)
    worst = sorted((p for p in cmp.rows if p.ape is not None), key=lambda p: -p.ape)[:top]
    if worst:
        console.print("largest errors: " + "; ".join(
            f"row {p.row.index} (line {p.row.line}) {p.row.op.op_code} {fmt.pct(p.ape)}" for p in worst),
            highlight=False, markup=False, soft_wrap=True)
    missing = sorted({p.reason for p in cmp.rows if p.estimate is None})
    for reason in missing:
        n = sum(1 for p in cmp.rows if p.reason == reason)
        console.print(f"{n} row(s) without a prediction: {reason}", highlight=False, markup=False, soft_wrap=True)
    notes = [note for p in cmp.rows if p.estimate is not None for note in p.estimate.notes]
    for note in sorted(set(notes)):
        console.print(f"note: {notes.count(note)} row(s) assume: {note}", highlight=False, markup=False,
                      soft_wrap=True)
    for s in cmp.skipped:
        share = fmt.pct(100 * cmp.share(s.measured_ns))
        console.print(f"{path}:{s.line}: warning: row skipped ({s.op_code or 'no op code'}, {share} of the "
                      f"measured time): {s.reason}", highlight=False, markup=False, soft_wrap=True)
    for note in cmp.notes:
        console.print(f"{path}: note: {note}", highlight=False, markup=False, soft_wrap=True)
    for line in device_lines(cmp):
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def device_lines(cmp: ProfileComparison) -> list[str]:
    """The per-device totals, the program's time (the slowest device) and the share of time predicted, as text."""
    out = []
    if len(cmp.devices) > 1:
        for d in cmp.devices:
            out.append(f"device {d.device_id if d.device_id is not None else '-'}: {d.rows} rows, measured "
                       f"{_us(d.measured_ns)} us, predicted {_us(d.predicted_ns)} us over the rows it predicts "
                       f"({fmt.pct(100 * d.coverage)} of the device's measured time)")
        slow = cmp.slowest
        if slow is not None:
            out.append(f"program time (slowest device, {slow.device_id}): measured {_us(slow.measured_ns)} us; "
                       f"predicted slowest device {_us(max(d.predicted_ns for d in cmp.devices))} us")
    out.append(f"predicted rows hold {fmt.pct(100 * cmp.coverage)} of the measured device time "
               f"({_us(cmp.measured_ns)} us over {len(cmp.rows) + len(cmp.skipped)} device-op rows, "
               f"{len(cmp.skipped)} skipped)")
    return out


def ir_match_text(matches: list, unmatched: list, path: str, console: Console) -> None:
    """Print predicted vs measured per IR op (rows matched by LOC or by op order) and the overall score."""
    how = matches[0].how if matches else "order"
    table = Table(title=f"{path}: predicted vs measured per IR op (profiler rows matched by "
                        f"{'the LOC column' if how == 'loc' else 'op order'})")
    for col in ("line", "op", "device ops", "rows", "predicted us", "measured us", "APE"):
        table.add_column(col, justify="left" if col in ("op", "device ops") else "right")
    for m in matches:
        c = m.cost
        codes = ", ".join(d.op_code for d in c.device_ops) or "-"
        pred = _us(c.ns) if c.status == "costed" else "unknown"
        meas = _us(m.measured_ns) if m.measured_ns is not None else "-"
        table.add_row(str(c.op.pos.line), c.op.name, codes, str(len(m.rows)), pred, meas,
                      fmt.pct(m.ape) if m.ape is not None else "-")
    console.print(table)
    apes = [m.ape for m in matches if m.ape is not None]
    from ..cost.accuracy import score

    s = score((m.cost.ns, m.measured_ns) for m in matches if m.ape is not None)
    console.print(f"IR ops matched to measured rows: {len(apes)} of {len(matches)}"
                  + (f"; {s}" if s else "") + f"; {len(unmatched)} profiler row(s) matched to no IR op",
                  highlight=False, markup=False, soft_wrap=True)


def ir_match_record(matches: list, unmatched: list) -> dict[str, Any]:
    """The JSON record of the IR-op matching: per IR op its predicted and measured ns, rows and APE."""
    return {
        "how": matches[0].how if matches else "order",
        "ops": [{"line": m.cost.op.pos.line, "name": m.cost.op.name, "loc_name": m.cost.op.loc_name,
                 "status": m.cost.status, "predicted_ns": m.cost.ns if m.cost.status == "costed" else None,
                 "measured_ns": m.measured_ns, "rows": [r.line for r in m.rows], "ape": m.ape} for m in matches],
        "unmatched_rows": [r.line for r in unmatched],
    }


def _score_record(s: Score | None) -> dict[str, Any] | None:
    return {"rows": s.rows, "median_ape": s.median_ape, "mape": s.mape} if s else None


def _summary_record(s: Summary) -> dict[str, Any]:
    return {"op_code": s.op_code, "rows": s.rows, "timed": s.timed, "predicted": s.predicted,
            "measured_ns": s.measured_ns, "predicted_ns": s.predicted_ns, "model": _score_record(s.model),
            "pm_ideal": _score_record(s.pm_ideal)}


def measured_record(cmp: ProfileComparison, path: str) -> dict[str, Any]:
    """The JSON record of a profile comparison: every row, per op code and overall scores (APE in percent)."""
    return {
        "path": path,
        "rows": [{
            "index": p.row.index, "line": p.row.line, "op_code": p.row.op.op_code, "cores": p.row.op.cores,
            "signature": p.row.signature, "measured_ns": p.row.measured_ns, "pm_ideal_ns": p.row.pm_ideal_ns,
            "predicted_ns": p.estimate.ns if p.estimate else None, "bound": p.estimate.bound if p.estimate else None,
            "terms": p.estimate.terms if p.estimate else None, "notes": list(p.estimate.notes) if p.estimate else [],
            "ape": p.ape, "pm_ideal_ape": p.pm_ape,
            "reason": p.reason or None, "device_id": p.row.device_id,
        } for p in cmp.rows],
        "per_op_code": [_summary_record(s) for s in cmp.per_op],
        "total": _summary_record(cmp.total),
        "skipped": [{"line": s.line, "op_code": s.op_code, "reason": s.reason, "measured_ns": s.measured_ns,
                     "device_id": s.device_id, "share_of_measured": cmp.share(s.measured_ns)} for s in cmp.skipped],
        "devices": [{"device_id": d.device_id, "rows": d.rows, "measured_ns": d.measured_ns,
                     "predicted_ns": d.predicted_ns, "covered_measured_ns": d.covered_measured_ns,
                     "coverage": d.coverage} for d in cmp.devices],
        "program_measured_ns": cmp.slowest.measured_ns if cmp.slowest else 0.0,
        "program_predicted_ns": max((d.predicted_ns for d in cmp.devices), default=0.0),
        "coverage": cmp.coverage,
        "board": cmp.board,
        "notes": list(cmp.notes),
    }
