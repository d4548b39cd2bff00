"""Plain-data records of an analysis, shared by the JSON report and ``explain``.

Every number ``explain`` prints comes from these records, and the JSON report
is these records, so the two cannot drift apart.  Units: shapes in elements
unless named ``tiles``, sizes in bytes.

The JSON report has two levels of detail (``check --detail``): ``findings``
(the default: arch, summary, functions with their arguments, findings) and
``ops`` (also every op's record, with every layout number of its results, its
memory and its programs).  :func:`write_json` encodes with orjson and streams
the op records one per line, so a 50,000-op report never exists as one object.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Callable

import orjson

from ..analysis import Analysis
from ..findings import Finding
from ..ir import attrs as A
from ..ir.model import Op, Value
from ..layout import LayoutInfo

if TYPE_CHECKING:
    from .summary import ModuleSummary

SCHEMA = "ttanalyze.check/2"
DETAILS = ("findings", "ops")  # levels of the JSON report, least first


def arch_record(a: Analysis) -> dict[str, Any]:
    arch = a.arch
    return {
        "name": arch.name, "source": arch.source, "grid": list(arch.grid), "num_cores": arch.num_cores,
        "l1_size": arch.l1_size, "l1_unreserved_base": arch.l1_unreserved_base, "l1_small_size": arch.l1_small_size,
        "usable_l1_per_core": arch.usable_l1,
        "l1_alignment": arch.l1_alignment, "num_dram_channels": arch.num_dram_channels,
        "dram_channel_size": arch.dram_channel_size, "usable_dram_per_bank": arch.usable_dram_per_bank,
        "dram_alignment": arch.dram_alignment,
    }


def layout_record(info: LayoutInfo) -> dict[str, Any]:
    """All layout numbers of one tensor (see :class:`ttanalyze.layout.LayoutInfo`)."""
    rec: dict[str, Any] = {
        "dtype": str(info.dtype),
        "layout": info.layout,
        "tile": list(info.tile) if info.tile else None,
        "logical_shape": list(info.logical_shape),
        "padded_shape": list(info.padded_shape),
        "logical_2d": list(info.logical_2d),
        "physical_2d": list(info.physical_2d),
        "tile_grid": list(info.tile_grid),
        "logical_volume": info.logical_volume,
        "physical_volume": info.physical_volume,
        "logical_tiles": info.logical_tiles if info.tile else None,
        "physical_tiles": info.physical_tiles,
        "physical_bytes": info.physical_bytes,
        "padding_pct": round(info.padding_pct, 4),
        "grid": list(info.grid),
        "memref": {"ir": list(info.ir_memref), "expected": list(info.expected_memref),
                   "unit": "tiles" if info.tile else "elements"},
        "strides": [asdict(s) for s in info.strides],
        "placement": asdict(info.placement) if info.placement else None,
        "problems": list(info.problems),
    }
    return rec


def value_record(a: Analysis, v: Value) -> dict[str, Any]:
    """A value: name, type, layout numbers and lifetime."""
    rec: dict[str, Any] = {"name": v.name, "type": str(v.type)}
    if v.arg_name:
        rec["source_name"] = v.arg_name
    if v.is_tensor:
        rec["encoding"] = v.type.encoding_text
        info = a.infos.get(v)
        rec["layout"] = layout_record(info) if info else None
        lt = a.memory.lifetimes.get(v)
        if lt is not None:
            rec["lifetime"] = {"start_op": lt.start, "end_op": lt.end, "end_reason": lt.end_reason}
    return rec


def attr_value(value: Any) -> Any:
    """A JSON-friendly form of a typed attribute value (an infinite or NaN float as the string ``inf``,
    ``-inf`` or ``nan``: JSON has no such numbers)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, list):
        return [attr_value(x) for x in value]
    if isinstance(value, dict):
        return {k: attr_value(x) for k, x in value.items()}
    if isinstance(value, (A.MatmulProgramConfig, A.StructAttr)):
        return {"kind": value.kind, **{k: attr_value(x) for k, x in value.params.items()}}
    if isinstance(value, A.DialectAttr):
        return {"kind": value.kind, "text": value.text}
    if hasattr(value, "__dataclass_fields__"):
        return {k: attr_value(x) for k, x in asdict(value).items()}
    if isinstance(value, tuple):
        return [attr_value(x) for x in value]
    return str(value)


def _ranges(crs) -> list[list[int]]:
    return [[r.start.x, r.start.y, r.end.x, r.end.y] for r in crs.ranges]


def _stage_record(p, arch) -> dict[str, Any]:
    core, peak = p.busiest_core()
    regions = p.cb_regions(arch.l1_unreserved_base, arch.dram_alignment)
    return {
        "factory": p.factory, "source": p.source, "cores": _ranges(p.cores), "num_cores": p.cores.num_cores,
        "cbs": [{"index": cb.index, "name": cb.name, "page_bytes": cb.page_bytes, "pages": cb.pages,
                 "bytes": cb.bytes, "core_ranges": _ranges(cb.cores), "globally_allocated": cb.globally_allocated}
                for cb in p.cbs],
        "cb_per_core_peak": peak, "busiest_core": list(core) if core else None,
        "cb_region_end": max((end for _, end in regions), default=arch.l1_unreserved_base),
        "extra_l1_per_core": p.extra_l1_per_core, "l1_buffers_per_core": p.l1_buffers_per_core,
        "notes": list(p.notes),
    }


def program_record(a: Analysis, op: Op) -> dict[str, Any] | None:
    """An op's device programs: status, and per program factory, source, cores, CBs, per-core peak.

    ``stages`` lists every program the op runs, in order; the top-level fields
    describe the one needing the most L1 per core.
    """
    prog = a.programs.get(op.index)
    if prog is None:
        return None
    rec: dict[str, Any] = {"status": prog.status, "reason": prog.reason}
    if prog.program is not None:
        rec.update(_stage_record(prog.program, a.arch))
        rec["stages"] = [_stage_record(p, a.arch) for p in prog.stages]
    return rec


def op_record(a: Analysis, op: Op) -> dict[str, Any]:
    """An op: location, attributes, operands, results with layouts, memory, program, shape check."""
    point = a.memory.points.get(op.index)
    check = a.shape_checks.get(op.index)
    return {
        "index": op.index,
        "name": op.name,
        "func": op.func.name,
        "line": op.pos.line,
        "col": op.pos.col,
        "loc_name": op.loc_name,
        "attributes": {k: attr_value(v) for k, v in op.attrs.items()},
        "operands": [v.name for v in op.operands],
        "results": [value_record(a, v) for v in op.results],
        "memory": {"l1_per_core": point.l1_per_core, "op_l1_buffers_per_core": point.op_l1_buffers_per_core,
                   "cb_per_core": point.cb_per_core, "dram_per_bank": point.dram_per_bank,
                   "l1_extent_per_core": point.l1_extent_per_core,
                   "dram_extent_per_bank": point.dram_extent_per_bank} if point else None,
        "program": program_record(a, op),
        "shape_check": {"status": check.status,
                        "shapes": [list(s) for s in check.shapes] if check and check.shapes else None,
                        "error": check.error} if check else None,
    }


def finding_record(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule, "name": f.name, "severity": f.severity, "message": f.message,
        "path": f.path, "line": f.pos.line, "col": f.pos.col, "op_index": f.op_index,
        "notes": [{"line": n.pos.line, "col": n.pos.col, "message": n.message} for n in f.notes],
        "data": f.data,
    }


def summary_record(a: Analysis, findings: list[Finding]) -> dict[str, Any]:
    from .summary import module_summary

    return summary_record_of(module_summary(a), findings)


def summary_record_of(s: "ModuleSummary", findings: list[Finding]) -> dict[str, Any]:
    """The JSON ``summary`` from a module's summary figures (:mod:`ttanalyze.report.summary`)."""
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    peak_l1, peak_dram = s.peak_l1, s.peak_dram
    return {
        "ops": s.ops,
        "functions": s.functions,
        "errors": counts["error"], "warnings": counts["warning"], "infos": counts["info"],
        "peak_l1_per_core": {"bytes": peak_l1.bytes, "tensors": peak_l1.tensors,
                             "op_l1_buffers": peak_l1.op_buffers, "cbs": peak_l1.cbs, "op_index": peak_l1.op_index} if peak_l1 else None,
        "peak_dram_per_bank": {"bytes": peak_dram.bytes, "op_index": peak_dram.op_index} if peak_dram else None,
        "peak_dram_extent_per_bank": {"bytes": s.dram_extent.bytes, "op_index": s.dram_extent.op_index} if s.dram_extent else None,
        "peak_l1_extent_per_core": {"bytes": s.l1_extent.bytes, "op_index": s.l1_extent.op_index} if s.l1_extent else None,
    }


class OpRecords:
    """The op records of one analysis, made one at a time when :func:`write_json` writes them."""

    def __init__(self, a: Analysis):
        self.analysis = a

    def __iter__(self):
        a = self.analysis
        return (op_record(a, op) for op in a.program.ops)


def file_record(a: Analysis, findings: list[Finding], detail: str = "ops") -> dict[str, Any]:
    """The record of one analyzed file at a level of :data:`DETAILS`.

    With ``detail="ops"`` its ``ops`` is an :class:`OpRecords` (iterate it, or
    let :func:`write_json` stream it) and each function lists its op indices.

    Raises:
        ValueError: an unknown detail level.
    """
    if detail not in DETAILS:
        raise ValueError(f"unknown detail level {detail!r}: expected one of {', '.join(DETAILS)}")
    with_ops = detail == "ops"
    record = file_record_of(a.program.path, arch_record(a), a.tt_metal, summary_record(a, findings),
                            function_records(a, with_ops), findings)
    if with_ops:
        record["ops"] = OpRecords(a)
    return record


def function_records(a: Analysis, with_ops: bool = False) -> list[dict[str, Any]]:
    """The JSON record of each function: name, kind, position, arguments (:func:`value_record`), returns, op
    count (and, ``with_ops``, its op indices)."""
    functions = []
    for f in a.program.funcs:
        rec = {"name": f.name, "kind": f.kind, "line": f.pos.line, "col": f.pos.col,
               "arguments": [value_record(a, v) for v in f.args],
               "returns": [v.name for v in f.returns], "num_ops": len(f.ops)}
        if with_ops:
            rec["ops"] = [op.index for op in f.ops]
        functions.append(rec)
    return functions


def file_record_of(path: str, arch: dict[str, Any], tt_metal: str, summary: dict[str, Any],
                   functions: list[dict[str, Any]], findings: list[Finding]) -> dict[str, Any]:
    """A file record (``detail="findings"``) from its parts: :func:`arch_record`, :func:`summary_record_of`,
    :func:`function_records` and the findings."""
    return {
        "path": path,
        "arch": arch,
        "tt_metal": tt_metal,
        "summary": summary,
        "functions": functions,
        "findings": [finding_record(f) for f in findings],
    }


_JSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def dumps(doc: Any) -> str:
    """``doc`` as indented JSON text (orjson; tuples as arrays, non-string keys as strings)."""
    return orjson.dumps(doc, option=_JSON_OPTIONS).decode()


def write_json(doc: Any, write: Callable[[str], Any]) -> None:
    """Write ``doc`` as JSON through ``write`` (text chunks), ending with a newline.

    Every :class:`OpRecords` inside it becomes an array written one compact op
    record per line, each encoded when it is written; the rest is indented
    like :func:`dumps`.

    Raises:
        TypeError: a value orjson cannot encode.
    """
    lazy: list[OpRecords] = []

    def placeholder(obj: Any) -> str:
        if isinstance(obj, OpRecords):
            lazy.append(obj)
            return f"\x00ops{len(lazy) - 1}"  # a NUL never occurs in the report's own strings
        raise TypeError(f"cannot encode {type(obj).__name__} as JSON")

    text = orjson.dumps(doc, default=placeholder, option=_JSON_OPTIONS).decode()
    for i, ops in enumerate(lazy):
        before, text = text.split(f'"\\u0000ops{i}"', 1)
        write(before)
        write("[")
        sep = "\n"
        for rec in ops:
            write(sep)
            write(orjson.dumps(rec, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY).decode())
            sep = ",\n"
        write("\n]")
    write(text)
    write("\n")
