"""Text report of ``ttanalyze check``: findings, a summary line, a per-op table."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from .. import fmt
from ..analysis import Analysis
from ..findings import Finding

if TYPE_CHECKING:
    from rich.console import Console

    from .summary import ModuleSummary


def console_text(text: str, width: int | None) -> str:
    """What ``rich.console.Console(width=width, emoji=False, highlight=False).print(text, markup=False,
    highlight=False, soft_wrap=True)`` writes to a file that is not a terminal: the report's lines as rich
    writes them, without importing rich (0.03 s of start-up) for the usual text.

    Soft-wrapped text without markup, highlighting or emoji is written as it is, and a newline after it,
    unless it holds a tab (rich expands it) or another character that is not printable (rich drops the
    control codes): only such text goes through rich (``Text.wrap`` with ``overflow="ignore"`` appends each
    line unchanged; ``tests/test_startup.py`` compares both on random text).
    """
    if text.replace("\n", "").isprintable():
        return text + "\n"
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, emoji=False, highlight=False).print(text, highlight=False, markup=False,
                                                                        soft_wrap=True)
    return buf.getvalue()


def findings_text(findings: list[Finding], fixes: dict | None = None,
                  fix_text: dict[int, list[str]] | None = None) -> str:
    """One ``file:line:col: severity[RULE] message`` line per finding (plus notes), and its ranked fixes
    (``fixes``: finding index -> evaluated :class:`ttanalyze.fixes.model.Fix` list; or ``fix_text``: finding
    index -> its :func:`ttanalyze.report.fixes.fix_lines`, already made)."""
    from .fixes import fix_lines

    out = []
    for i, f in enumerate(findings):
        out.append(f.format())
        if fixes and i in fixes:
            out.extend(fix_lines(f, fixes[i]))
        elif fix_text and i in fix_text:
            out.extend(fix_text[i])
    return "\n".join(out)


def concise_line(f: Finding) -> str:
    """``file:line:col: severity[RULE] message``: the finding alone, without notes or fixes."""
    return f"{f.path}:{f.pos.line}:{f.pos.col}: {f.severity}[{f.rule}] {f.message}"


_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def github_line(f: Finding) -> str:
    """A GitHub Actions workflow command (``::error file=...,line=...,col=...,title=...::message``) that shows
    the finding as an annotation on the line; properties and message escaped as the runner expects."""
    def prop(v: str) -> str:
        return v.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")

    def data(v: str) -> str:
        return v.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    return (f"::{_GITHUB_LEVEL.get(f.severity, 'notice')} file={prop(f.path)},line={f.pos.line},col={f.pos.col},"
            f"title={prop(f'{f.rule} {f.name}')}::{data(f.message)}")


def statistics_lines(rules: list[tuple[str, str, str]]) -> list[str]:
    """``  3  TTA003  padded-inner-dims  warning`` per rule, most frequent first (``--statistics``); ``rules``:
    (id, name, severity) of each reported finding."""
    counts: dict[tuple[str, str, str], int] = {}
    for key in rules:
        counts[key] = counts.get(key, 0) + 1
    return [f"{n:>5}  {rule}  {name:<28}  {sev}" for (rule, name, sev), n in
            sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))]


def found_line(severities: list[str], files: int, input_errors: int = 0) -> str:
    """``Found 2 errors, 3 warnings and 1 info in 4 files`` (and the files that could not be read)."""
    n = {s: sum(1 for x in severities if x == s) for s in ("error", "warning", "info")}
    text = (f"Found {n['error']} error{'s' * (n['error'] != 1)}, {n['warning']} warning{'s' * (n['warning'] != 1)} "
            f"and {n['info']} info in {files} file{'s' * (files != 1)}")
    if input_errors:
        text += f"; {input_errors} file{'s' * (input_errors != 1)} could not be analyzed"
    return text


_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "info": "\x1b[1;36m", "note": "\x1b[2m"}


def colourize(text: str) -> str:
    """ANSI colours for a terminal: the severity word of each line (``error[TTA010]`` red, ...)."""
    import re

    return re.sub(r"(?m)^(\S+:\d+:\d+: )(error|warning|info|note)\b",
                  lambda m: f"{m.group(1)}{_COLOURS[m.group(2)]}{m.group(2)}\x1b[0m", text)


def summary_line(a: Analysis, findings: list[Finding]) -> str:
    """``file: N ops, E errors, W warnings, I infos; peak L1 X B/core at line L``."""
    from .summary import module_summary

    return summary_text(module_summary(a), findings)


def summary_text(s: "ModuleSummary", findings: list[Finding]) -> str:
    """:func:`summary_line` from a module's summary figures (:mod:`ttanalyze.report.summary`)."""
    counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
    n = s.ops
    where_module = (f" [module {s.module_name}, lines {s.module_lines[0]}-{s.module_lines[1]}]"
                    if s.module_name and s.module_lines else "")
    parts = [f"{s.path}{where_module}: {n} op{'s' * (n != 1)}",
             f"{counts['error']} error{'s' * (counts['error'] != 1)}",
             f"{counts['warning']} warning{'s' * (counts['warning'] != 1)}",
             f"{counts['info']} info"]
    text = ", ".join(parts)
    arch = s.arch
    peak = s.peak_l1
    if peak is not None:
        where = f" at line {peak.line}" if peak.bytes else ""
        buffers = (f"{fmt.nbytes(peak.tensors)} tensors + {fmt.nbytes(peak.op_buffers)} op buffers"
                   if peak.op_buffers else f"{fmt.nbytes(peak.tensors)} tensors")
        text += (f"; peak L1{where}: {buffers} + {fmt.nbytes(peak.cbs)} CBs per core "
                 f"(L1 bank {fmt.nbytes(arch.usable_l1)}; CB region {fmt.nbytes(arch.l1_size - arch.l1_unreserved_base)}"
                 f" = l1_size {fmt.num(arch.l1_size)} - l1_unreserved_base {fmt.num(arch.l1_unreserved_base)})")
    peak = s.peak_dram
    if peak is not None:
        where = f" at line {peak.line}" if peak.bytes else ""
        text += f"; peak DRAM {fmt.nbytes(peak.bytes)}/bank{where}"
        widest = s.dram_extent
        if widest.bytes > peak.bytes:  # holes left by frees (allocator replay)
            text += (f" (address range in use up to {fmt.nbytes(widest.bytes)}/bank at line "
                     f"{widest.line})")
    mesh = s.mesh
    where = f", mesh {mesh.label}: per device" if mesh is not None and mesh.devices > 1 else ""
    return text + f" [{arch.name}{where}]"


def op_table(a: Analysis, console: Console) -> None:
    """Print the per-op table: result layout numbers and memory in use."""
    from rich.table import Table

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
