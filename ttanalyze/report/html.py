"""HTML report of ``ttanalyze check``: one self-contained page (inline CSS, JS and SVG, no network).

Per analyzed file: a summary header, the findings with their rule explanations,
the per-core L1 timeline and the DRAM-per-bank timeline as plots, the dataflow
graph laid out here (layered, no graphviz), and a collapsible per-op table.
Every number comes from the JSON report's records (:mod:`ttanalyze.report.records`)
and the cost report's (:func:`ttanalyze.report.cost.cost_record`).

The page grows linearly with the program.  The plots draw at most
:data:`PLOT_MAX_BARS` bars: beyond that each bar is a bin of consecutive ops
drawn as its op with the most bytes (so the peak stays exact), its tooltip
naming the bin.  The graph is drawn whole while its layered layout (ops plus the
bend points of long edges) stays within :data:`GRAPH_MAX_NODES`; beyond that it
is summarized: the ops around each finding, around the L1 peak and at the start
of each function, in windows of :data:`GRAPH_WINDOW` ops, each laid out on its
own with the values it reads from outside drawn as inputs; the per-op table
then lists those ops only (``check --format json --detail ops`` has them all).

Stable hooks for tests and scripts (``N`` is the file's position, from 0):
``section#file-N``, ``svg#graph-N`` with one ``g.op-node#op-N-<op index>`` per
op drawn (every op unless ``svg#graph-N`` has ``data-summarized``), ``svg#l1-plot-N`` (``svg#l1-plot-zoom-N`` when the data is small next to
the bank), ``svg#dram-plot-N``, ``table#findings-N`` with one
``tr.finding-row#finding-N-K`` per finding.  A script at the end of the page
measures the graph and the plots (``getBBox``) and writes the result, as
JSON, into ``body[data-rendered]`` and ``pre#render-check``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape
from typing import Any, Iterable

from .. import __version__, fmt
from ..analysis import Analysis
from ..findings import SEVERITIES, Finding, severity_rank
from ..fixes.model import Fix
from ..ir.model import Func, Op, Value
from . import records
from .fixes import fix_lines

NO_SEVERITY = "none"


def render(results: list[tuple[Analysis, list[Finding]]], title: str | None = None,
           fixes: list[dict[int, list[Fix]]] | None = None) -> str:
    """The whole page for the analyzed files and their findings.

    ``fixes``: per file, the ranked fixes of each finding (finding index ->
    :class:`ttanalyze.fixes.model.Fix` list, as ``check`` computes them), shown
    under the finding.
    """
    title = title or "ttanalyze report: " + ", ".join(a.program.path for a, _ in results)
    fixes = fixes or [{} for _ in results]
    sections = [_file_section(i, a, fs, fx) for i, ((a, fs), fx) in enumerate(zip(results, fixes))]
    nav = ""
    if len(results) > 1:
        nav = "<nav><ol>" + "".join(
            f'<li><a href="#file-{i}">{escape(a.program.path)}</a> {_counts_badges(fs)}</li>'
            for i, (a, fs) in enumerate(results)) + "</ol></nav>"
    body = "\n".join(sections) if sections else '<p class="empty">No files were analyzed.</p>'
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta name=\"generator\" content=\"ttanalyze {escape(__version__)}\">\n"
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"<header class=\"page\"><h1>{escape(title)}</h1>"
        f"<p class=\"muted\">ttanalyze {escape(__version__)}: static analysis and cost model of TTNN IR. "
        "Hover graph nodes, edges and plot bars for the numbers; click a finding's location to jump to its op.</p>"
        f"{nav}</header>\n<main>\n{body}\n</main>\n"
        "<pre id=\"render-check\" hidden></pre>\n"
        f"<script>{JS}</script>\n</body>\n</html>\n"
    )


# ---------------------------------------------------------------------------------------------- data


@dataclass
class _FileData:
    """The records of one file, indexed for the page."""

    index: int
    analysis: Analysis
    findings: list[Finding]
    record: dict[str, Any]
    cost: dict[str, Any] | None
    cost_error: str
    costs: dict[int, dict[str, Any]] = field(default_factory=dict)
    op_findings: dict[int, list[int]] = field(default_factory=dict)
    fixes: dict[int, list[Fix]] = field(default_factory=dict)
    drawn: list[Op] | None = None  # the ops of a summarized graph (None: every op is drawn)

    def memory(self, op_index: int) -> dict[str, int]:
        """The op's memory figures as in its JSON record (zeros for an op without a memory point)."""
        point = self.analysis.memory.points.get(op_index)
        if point is None:
            return {"l1_per_core": 0, "op_l1_buffers_per_core": 0, "cb_per_core": 0, "dram_per_bank": 0}
        return {"l1_per_core": point.l1_per_core, "op_l1_buffers_per_core": point.op_l1_buffers_per_core,
                "cb_per_core": point.cb_per_core, "dram_per_bank": point.dram_per_bank}

    def severity(self, op_index: int) -> str:
        ks = self.op_findings.get(op_index, [])
        if not ks:
            return NO_SEVERITY
        return max((self.findings[k].severity for k in ks), key=severity_rank)


def _file_data(i: int, a: Analysis, findings: list[Finding]) -> _FileData:
    from ..cost.ir import program_cost
    from .cost import cost_record

    rec = records.file_record(a, findings, detail="findings")
    cost, cost_error = None, ""
    try:
        cost = cost_record(program_cost(a), a.program.path)
    except Exception as exc:  # noqa: BLE001 - the page says so instead of failing
        cost_error = f"{type(exc).__name__}: {exc}"
    d = _FileData(i, a, findings, rec, cost, cost_error)
    d.costs = {c["index"]: c for c in cost["ops"]} if cost else {}
    for k, f in enumerate(findings):
        if f.op_index is not None:
            d.op_findings.setdefault(f.op_index, []).append(k)
    return d


def _catalog() -> dict:
    from ..rules import catalog

    try:
        return catalog()
    except RuntimeError:
        return {}


# ---------------------------------------------------------------------------------------------- formatting


def _b(n: float | int | None) -> str:
    """Compact bytes: ``512 B``, ``12.3 KiB``, ``1.27 MiB``."""
    if n is None:
        return "-"
    n = float(n)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            v = n / scale
            return f"{v:.3g} {unit}" if v < 100 else f"{v:,.0f} {unit}"
    return f"{n:,.0f} B"


def _ns(ns: float | None) -> str:
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:,.3g} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:,.3g} µs"
    return f"{ns:,.0f} ns"


def _latency(cost: dict[str, Any] | None) -> tuple[str, str]:
    """(short text, long text) of an op's predicted latency."""
    if cost is None:
        return "latency unknown", "latency unknown: no cost model result"
    if cost["status"] == "costed":
        return f"≈ {_ns(cost['ns'])} · {cost['bound']}", (
            f"predicted {fmt.num(round(cost['ns']))} ns, bound by {cost['bound']}, {cost['cores']} cores, "
            f"DRAM {fmt.nbytes(round(cost['dram_bytes']))}, {fmt.num(round(cost['flops']))} FLOPs; device ops: "
            + ", ".join(f"{d['op_code']} {_ns(d['ns'])}" for d in cost["device_ops"]))
    if cost["status"] == "no_device_op":
        return "no device op", "no device op (0 ns)" + (f": {cost['reason']}" if cost["reason"] else "")
    return "latency unknown", f"latency unknown: {cost['reason']}"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _attrs(**kw: Any) -> str:
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        out.append(f'{k.rstrip("_").replace("_", "-")}="{escape(str(v))}"')
    return " ".join(out)


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _counts_badges(findings: list[Finding]) -> str:
    out = []
    for sev in reversed(SEVERITIES):
        n = sum(1 for f in findings if f.severity == sev)
        if n:
            out.append(f'<span class="badge sev-{sev}">{n} {sev}{"s" if n != 1 and sev != "info" else ""}</span>')
    return " ".join(out) or '<span class="badge sev-none">no findings</span>'


# ---------------------------------------------------------------------------------------------- file section


def _file_section(i: int, a: Analysis, findings: list[Finding], fixes: dict[int, list[Fix]]) -> str:
    d = _file_data(i, a, findings)
    d.fixes = fixes
    return (f'<section class="file" id="file-{i}">\n'
            f'<h2>{escape(a.program.path)}</h2>\n{_summary(d)}\n'
            f'<h3>Findings</h3>\n{_findings_table(d)}\n'
            f'<h3>Memory per core and per bank</h3>\n{_plots(d)}\n'
            f'<h3>Dataflow graph</h3>\n{_graph(d)}\n'
            f'{_op_table(d)}\n</section>')


def _summary(d: _FileData) -> str:
    a, rec = d.analysis, d.record
    arch, summary = rec["arch"], rec["summary"]
    cells: list[tuple[str, str, str]] = []
    cells.append(("arch", f'{arch["name"]}', f'{arch["grid"][0]}x{arch["grid"][1]} grid, {arch["num_cores"]} cores, '
                  f'{arch["num_dram_channels"]} DRAM channels ({arch["source"]}); tt-metal {rec["tt_metal"]}'))
    dealloc = sum(1 for op in a.program.ops if op.name == "ttnn.deallocate")
    cells.append(("ops", str(summary["ops"]), f'{summary["functions"]} function{"s" * (summary["functions"] != 1)}, '
                  f'{dealloc} deallocate'))
    cells.append(("findings", _counts_badges(d.findings), ""))
    peak = summary["peak_l1_per_core"]
    bank = arch["usable_l1_per_core"]
    if peak:
        op = a.program.ops[peak["op_index"]]
        pct = 100 * peak["bytes"] / bank if bank else 0.0
        cells.append(("peak L1 per core", f'{_b(peak["bytes"])} <span class="muted">({fmt.pct(pct)} of bank)</span>',
                      f'{fmt.nbytes(peak["bytes"])} at op #{op.index} {op.name} (line {op.pos.line}): tensors '
                      f'{fmt.nbytes(peak["tensors"])}, op buffers {fmt.nbytes(peak["op_l1_buffers"])}, CBs '
                      f'{fmt.nbytes(peak["cbs"])}; bank {fmt.nbytes(bank)}'))
    else:
        cells.append(("peak L1 per core", "-", "no ops"))
    pd = summary["peak_dram_per_bank"]
    if pd:
        op = a.program.ops[pd["op_index"]]
        cells.append(("peak DRAM per bank", _b(pd["bytes"]), f'{fmt.nbytes(pd["bytes"])} at op #{op.index} {op.name} '
                      f'(line {op.pos.line}); bank {fmt.nbytes(arch["usable_dram_per_bank"])}'))
    if d.cost is not None:
        unknown = [c for c in d.cost["ops"] if c["status"] == "unknown"]
        note = f'{len(unknown)} op{"s" * (len(unknown) != 1)} of unknown cost, not included' if unknown else \
            "every op with device work costed"
        hw = d.cost["hardware"]
        cells.append(("predicted latency", _ns(d.cost["total_ns"]) + ("+" if unknown else ""),
                      f'{note}; {hw["grid_cores"]} cores at {hw["clock_hz"] / 1e9:.2f} GHz, '
                      f'DRAM {hw["dram_bytes_per_s"] / 1e9:,.0f} GB/s'))
    else:
        cells.append(("predicted latency", "unknown", f"cost model failed: {d.cost_error}"))
    html_cells = []
    for label, value, detail in cells:
        value_html = value if label in ("findings", "peak L1 per core") else escape(value)
        html_cells.append(f'<div class="stat"><div class="label">{escape(label)}</div>'
                          f'<div class="value">{value_html}</div><div class="detail">{escape(detail)}</div></div>')
    return f'<div class="summary" id="summary-{d.index}">' + "".join(html_cells) + "</div>"


# ---------------------------------------------------------------------------------------------- findings


def _findings_table(d: _FileData) -> str:
    if not d.findings:
        return f'<table class="findings" id="findings-{d.index}"><tbody><tr class="none"><td>No findings.</td></tr>' \
               "</tbody></table>"
    catalog = _catalog()
    rows = []
    for k, (f, fr) in enumerate(zip(d.findings, d.record["findings"])):
        loc = f'{fr["line"]}:{fr["col"]}'
        if f.op_index is not None:
            op = d.analysis.program.ops[f.op_index]
            loc_html = (f'<a class="op-link" href="#op-{d.index}-{f.op_index}" title="{escape(op.label)}">{loc}</a>'
                        f'<div class="muted">{escape(op.name)}</div>')
        else:
            loc_html = escape(loc)
        notes = "".join(f'<li><span class="loc">{n["line"]}:{n["col"]}</span> {escape(n["message"])}</li>'
                        for n in fr["notes"])
        meta = catalog.get(f.rule)
        if meta is not None:
            expl = (f'<details class="explanation"><summary>{escape(meta.title)}</summary>'
                    f'<p class="pre">{escape(meta.explanation)}</p>'
                    + (f'<p><b>Fix:</b> {escape(meta.fix)}</p>' if meta.fix else "")
                    + f'<p class="muted"><b>Reference:</b> {escape(meta.reference)}</p></details>')
        else:
            expl = '<span class="muted">no catalog entry</span>'
        fix_items = "".join(f'<li class="fix">{escape(line.split(": note: ", 1)[-1])}</li>'
                            for line in fix_lines(f, d.fixes.get(k, [])))
        rows.append(
            f'<tr class="finding-row sev-{escape(f.severity)}" id="finding-{d.index}-{k}" {_attrs(data_rule=f.rule)}>'
            f'<td><span class="badge sev-{escape(f.severity)}">{escape(f.severity)}</span></td>'
            f'<td><code>{escape(f.rule)}</code><div class="muted">{escape(f.name)}</div></td>'
            f'<td>{loc_html}</td><td>{escape(f.message)}' + (f'<ul class="notes">{notes}</ul>' if notes else "")
            + (f'<ul class="fixes">{fix_items}</ul>' if fix_items else "")
            + f'</td><td>{expl}</td></tr>')
    return (f'<table class="findings" id="findings-{d.index}"><thead><tr><th>severity</th><th>rule</th>'
            '<th>location</th><th>message and notes</th><th>explanation</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


# ---------------------------------------------------------------------------------------------- plots

PLOT_W, PLOT_H = 640, 300
PLOT_MAX_BARS = 560  # about one bar per pixel of the plot area: more ops are binned
PAD_L, PAD_R, PAD_T, PAD_B = 78, 16, 34, 40
SERIES = (("tensors", "L1 tensors", "#4e79a7"), ("buffers", "op L1 buffers", "#76b7b2"), ("cbs", "circular buffers", "#f28e2b"))


def _nice_ceiling(v: float) -> float:
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def _plot(svg_id: str, title: str, n: int, stacks: list[list[float]], colors: list[str], tips: list[str],
          y_max: float, lines: Iterable[tuple[float, str, str]] = (), peak: tuple[int, float, str] | None = None,
          bands: Iterable[tuple[int, int, str]] = (), note: str = "", ops: list[range] | None = None) -> str:
    """A stacked bar plot: one bar per op or bin of ops (``ops[i]``, default op ``i``), ``stacks[i]`` bottom
    to top; x ticks name the first op of their bar."""
    pw, ph = PLOT_W - PAD_L - PAD_R, PLOT_H - PAD_T - PAD_B
    y_max = _nice_ceiling(y_max)
    bw = pw / max(n, 1)

    def X(i: float) -> float:
        return PAD_L + i * bw

    def Y(v: float) -> float:
        return PAD_T + ph - ph * min(v, y_max) / y_max

    out = [f'<svg class="plot" id="{escape(svg_id)}" xmlns="http://www.w3.org/2000/svg" width="{PLOT_W}" '
           f'height="{PLOT_H}" viewBox="0 0 {PLOT_W} {PLOT_H}" role="img" aria-label="{escape(title)}">',
           f'<text class="plot-title" x="{PAD_L}" y="18">{escape(title)}</text>']
    for k, (lo, hi, name) in enumerate(bands):
        if k % 2:
            out.append(f'<rect class="band" x="{_f(X(lo))}" y="{PAD_T}" width="{_f(X(hi + 1) - X(lo))}" height="{ph}"/>')
        out.append(f'<text class="band-label" x="{_f(X(lo) + 3)}" y="{PAD_T + 11}">{escape(_clip(name, 24))}</text>')
    for t in range(6):
        v = y_max * t / 5
        y = Y(v)
        out.append(f'<line class="grid" x1="{PAD_L}" x2="{PAD_L + pw}" y1="{_f(y)}" y2="{_f(y)}"/>'
                   f'<text class="tick" x="{PAD_L - 6}" y="{_f(y + 4)}" text-anchor="end">{escape(_b(v))}</text>')
    step = max(1, _nice_ceiling(n / 10)) if n else 1
    step = int(step)
    for i in range(0, n, step):
        out.append(f'<text class="tick" x="{_f(X(i + 0.5))}" y="{PAD_T + ph + 14}" text-anchor="middle">'
                   f'{ops[i][0] if ops else i}</text>')
    out.append(f'<text class="axis-label" x="{PAD_L + pw / 2}" y="{PLOT_H - 6}" text-anchor="middle">op index</text>')
    out.append('<g class="bars">')
    for i, stack in enumerate(stacks):
        base = 0.0
        parts = []
        for v, color in zip(stack, colors):
            if v > 0:
                y0, y1 = Y(base), Y(base + v)
                parts.append(f'<rect x="{_f(X(i) + 0.5)}" y="{_f(y1)}" width="{_f(max(bw - 1, 0.6))}" '
                             f'height="{_f(max(y0 - y1, 0.5))}" fill="{color}"/>')
            base += v
        # a transparent full-height hit area carries the tooltip
        parts.append(f'<rect class="hit" x="{_f(X(i))}" y="{PAD_T}" width="{_f(bw)}" height="{ph}"/>')
        first, last = (ops[i][0], ops[i][-1]) if ops else (i, i)
        span = f' data-last-op="{last}"' if last != first else ""
        out.append(f'<g class="bar" data-op="{first}"{span}><title>{escape(tips[i])}</title>{"".join(parts)}</g>')
    out.append("</g>")
    for k, (value, label, color) in enumerate(sorted(lines, reverse=True)):
        if value <= y_max:
            y = Y(value)
            # labels alternate right above / left below their line, so close limits stay readable
            tx, ty, anchor = (PAD_L + pw - 4, y - 4, "end") if k % 2 == 0 else (PAD_L + 6, y + 13, "start")
            out.append(f'<g class="limit"><title>{escape(label)}: {escape(fmt.nbytes(value))}</title>'
                       f'<line x1="{PAD_L}" x2="{PAD_L + pw}" y1="{_f(y)}" y2="{_f(y)}" stroke="{color}"/>'
                       f'<text x="{_f(tx)}" y="{_f(ty)}" text-anchor="{anchor}" fill="{color}">'
                       f'{escape(label)} {escape(_b(value))}</text></g>')
    if peak is not None:
        i, v, label = peak
        x, y = X(i + 0.5), Y(v)
        anchor = "end" if i > n * 0.6 else "start"
        dx = -8 if anchor == "end" else 8
        out.append(f'<g class="peak"><title>{escape(label)}</title>'
                   f'<path d="M{_f(x - 5)},{_f(y - 11)} L{_f(x + 5)},{_f(y - 11)} L{_f(x)},{_f(y - 3)} Z"/>'
                   f'<text x="{_f(x + dx)}" y="{_f(max(y - 8, PAD_T + 22))}" text-anchor="{anchor}">'
                   f'{escape(_clip(label, 60))}</text></g>')
    if note:
        out.append(f'<text class="note" x="{PAD_L + pw}" y="18" text-anchor="end">{escape(note)}</text>')
    out.append(f'<line class="axis" x1="{PAD_L}" x2="{PAD_L}" y1="{PAD_T}" y2="{PAD_T + ph}"/>'
               f'<line class="axis" x1="{PAD_L}" x2="{PAD_L + pw}" y1="{PAD_T + ph}" y2="{PAD_T + ph}"/>')
    out.append("</svg>")
    return "".join(out)


def _bins(n: int) -> list[range]:
    """Consecutive op ranges, one per bar: single ops up to :data:`PLOT_MAX_BARS`, else that many even bins."""
    if n <= PLOT_MAX_BARS:
        return [range(i, i + 1) for i in range(n)]
    edges = [n * k // PLOT_MAX_BARS for k in range(PLOT_MAX_BARS + 1)]
    return [range(lo, hi) for lo, hi in zip(edges, edges[1:])]


def _binned(bins: list[range], stacks: list[list[float]], tip: "Any") -> tuple[list[list[float]], list[str]]:
    """Per bin, the stack of its op with the largest total and a tooltip naming the bin (``tip(i)``: one op's)."""
    out, tips = [], []
    for b in bins:
        top = max(b, key=lambda i: sum(stacks[i]))
        out.append(stacks[top])
        tips.append(tip(top) if len(b) == 1 else f"ops #{b[0]}–#{b[-1]} ({len(b)} ops), largest: {tip(top)}")
    return out, tips


def _plots(d: _FileData) -> str:
    a, arch = d.analysis, d.record["arch"]
    ops = a.program.ops
    n = len(ops)
    memory = [d.memory(op.index) for op in ops]
    stacks = [[m["l1_per_core"], m["op_l1_buffers_per_core"], m["cb_per_core"]] for m in memory]

    def l1_tip(i: int) -> str:
        op, stack = ops[i], stacks[i]
        return (f"#{op.index} {op.name} (line {op.pos.line}): {fmt.nbytes(sum(stack))} per core = tensors "
                f"{fmt.nbytes(stack[0])} + op buffers {fmt.nbytes(stack[1])} + CBs {fmt.nbytes(stack[2])}")

    bins = _bins(n)
    where = {i: k for k, b in enumerate(bins) for i in (b[0], b[-1])} if bins else {}
    bands = [(where[f.ops[0].index], where[f.ops[-1].index], "@" + f.name) for f in a.program.funcs if f.ops] \
        if len([f for f in a.program.funcs if f.ops]) > 1 else []
    bank, cb_limit = arch["usable_l1_per_core"], arch["l1_size"] - arch["l1_unreserved_base"]
    lines = [(bank, "L1 bank", "#c0392b"), (cb_limit, "CB region limit", "#8e44ad")]
    totals = [sum(s) for s in stacks]
    peak_total = max(totals, default=0)
    peak = None
    if n:
        pi = max(range(n), key=lambda i: totals[i])
        peak = (_bin_of(bins, pi), totals[pi],
                f"peak {_b(totals[pi])} at #{pi} {ops[pi].short_name} (line {ops[pi].pos.line})")
    colors = [c for _, _, c in SERIES]
    legend = "".join(f'<span class="key"><i style="background:{c}"></i>{escape(label)}</span>' for _, label, c in SERIES)
    legend += '<span class="key"><i class="dash" style="border-color:#c0392b"></i>L1 bank (l1_size − unreserved base − ' \
              'L1_SMALL)</span><span class="key"><i class="dash" style="border-color:#8e44ad"></i>CB region limit ' \
              '(l1_size − unreserved base)</span>'
    if len(bins) < n:
        legend += (f'<span class="key muted">{n:,} ops in {len(bins)} bars of about {n // len(bins)} ops: each bar '
                   "is its bin's op with the most bytes</span>")
    bar_stacks, tips = _binned(bins, stacks, l1_tip)
    m = len(bins)
    plots = [_plot(f"l1-plot-{d.index}", "L1 per core at each op (bank scale)", m, bar_stacks, colors, tips,
                   max(peak_total, cb_limit) * 1.04, lines, peak, bands, ops=bins)]
    if peak_total < 0.25 * bank:
        plots.append(_plot(f"l1-plot-zoom-{d.index}", "L1 per core at each op (data scale)", m, bar_stacks, colors,
                           tips, max(peak_total * 1.15, 1024), [], peak, bands, ops=bins,
                           note=f"peak is {fmt.pct(100 * peak_total / bank)} of the bank" if bank else ""))
    dram = [[mem["dram_per_bank"]] for mem in memory]

    def dram_tip(i: int) -> str:
        return f"#{ops[i].index} {ops[i].name} (line {ops[i].pos.line}): {fmt.nbytes(dram[i][0])} per DRAM bank"

    dram_peak = max((v[0] for v in dram), default=0)
    dp = None
    if n:
        pi = max(range(n), key=lambda i: dram[i][0])
        dp = (_bin_of(bins, pi), dram[pi][0], f"peak {_b(dram[pi][0])} at #{pi} (line {ops[pi].pos.line})")
    cap = arch["usable_dram_per_bank"]
    dram_lines = [(cap, "DRAM bank", "#c0392b")]
    dram_bars, dram_tips = _binned(bins, dram, dram_tip)
    plots.append(_plot(f"dram-plot-{d.index}", f"DRAM per bank at each op ({arch['num_dram_channels']} banks)", m,
                       dram_bars, ["#59a14f"], dram_tips, max(dram_peak * 1.15, 1024), dram_lines, dp, bands, ops=bins,
                       note="" if dram_peak * 1.15 >= cap else f"bank capacity {_b(cap)} is off the scale"))
    return f'<div class="legend">{legend}</div><div class="plots">' + "".join(
        f'<div class="plot-box">{p}</div>' for p in plots) + "</div>"


def _bin_of(bins: list[range], i: int) -> int:
    """Index of the bin holding op ``i`` (bins are consecutive and start at 0)."""
    lo, hi = 0, len(bins) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if bins[mid][-1] < i:
            lo = mid + 1
        else:
            hi = mid
    return lo


# ---------------------------------------------------------------------------------------------- graph layout

NODE_W, NODE_H = 210, 70
SMALL_W, SMALL_H = 96, 22
DUMMY_W = 8
GAP_X, GAP_Y = 22, 46
LINE_H = 14
GRAPH_MAX_NODES = 6_000  # nodes plus bend points of long edges, in a whole drawn graph
GRAPH_WINDOW = 24  # ops per window of a summarized graph
GRAPH_MAX_WINDOWS = 30  # windows of a summarized graph, per file


@dataclass
class _Node:
    key: tuple
    kind: str  # op, dealloc, arg, ret, dummy
    w: float
    h: float
    layer: int = 0
    order: float = 0.0
    x: float = 0.0  # center
    y: float = 0.0  # top
    op: Op | None = None
    value: Value | None = None


@dataclass
class _Edge:
    src: tuple
    dst: tuple
    kind: str  # tensor, free, ret
    value: Value | None
    chain: list[tuple] = field(default_factory=list)  # dummies, top to bottom


@dataclass
class _Layout:
    func: Func
    nodes: dict[tuple, _Node]
    edges: list[_Edge]
    width: float
    height: float
    title: str = ""


def _func_graph(func: Func, ops: list[Op] | None = None) -> tuple[dict[tuple, _Node], list[_Edge]]:
    """Nodes and edges of a function's graph, or of a window of its ops (``ops``, consecutive): then the values
    the window reads from outside are drawn as inputs, like arguments, and the return is left out."""
    nodes: dict[tuple, _Node] = {}
    edges: list[_Edge] = []
    window = ops is not None
    ops = func.ops if ops is None else ops
    drawn = {op.index for op in ops} if window else None
    if not window:
        for v in func.args:
            if v.is_tensor and v.users:
                nodes[("arg", v.name)] = _Node(("arg", v.name), "arg", SMALL_W, SMALL_H, value=v)

    def src_of(v: Value) -> tuple | None:
        if window and (v.producer is None or v.producer.index not in drawn):
            if v.producer is not None and v.producer.func is not func:
                return None
            key = ("arg", v.name)
            if key not in nodes:
                nodes[key] = _Node(key, "arg", SMALL_W, SMALL_H, value=v)
            return key
        if v.producer is not None:
            return ("op", v.producer.index) if v.producer.func is func else None
        return ("arg", v.name) if ("arg", v.name) in nodes else None

    for op in ops:
        key = ("op", op.index)
        dealloc = op.name == "ttnn.deallocate"
        nodes[key] = _Node(key, "dealloc" if dealloc else "op", SMALL_W if dealloc else NODE_W,
                           SMALL_H if dealloc else NODE_H, op=op)
        seen = set()
        for v in op.operands:
            if not v.is_tensor or v.name in seen:
                continue
            seen.add(v.name)
            src = src_of(v)
            kind = "tensor"
            if dealloc:
                # hang the deallocate under the value's last use before it: the edge shows the end of the lifetime
                before = [u for u in v.users if u.index < op.index and u.name != "ttnn.deallocate" and u.func is func
                          and (drawn is None or u.index in drawn)]
                if before:
                    src, kind = ("op", before[-1].index), "free"
            if src is not None:
                edges.append(_Edge(src, key, kind, v))
    rets = [v for v in func.returns if v.is_tensor] if not window else []
    if rets:
        nodes[("ret",)] = _Node(("ret",), "ret", SMALL_W, SMALL_H)
        for v in dict.fromkeys(rets):
            src = src_of(v)
            if src is not None:
                edges.append(_Edge(src, ("ret",), "ret", v))
    return nodes, edges


def _layout_func(func: Func, ops: list[Op] | None = None, budget: int | None = None) -> _Layout | None:
    """The layered layout of a function's graph (or of a window of its ``ops``); None when its nodes plus
    the bend points of its long edges would exceed ``budget``."""
    nodes, edges = _func_graph(func, ops)
    preds: dict[tuple, list[tuple]] = {k: [] for k in nodes}
    succs: dict[tuple, list[tuple]] = {k: [] for k in nodes}
    for e in edges:
        preds[e.dst].append(e.src)
        succs[e.src].append(e.dst)
    # program order is a topological order: args, ops, return
    order = [k for k in nodes if k[0] == "arg"] + [("op", op.index) for op in (func.ops if ops is None else ops)] + \
        ([("ret",)] if ("ret",) in nodes else [])
    for k in order:  # longest path from the sources
        nodes[k].layer = max((nodes[p].layer + 1 for p in preds[k]), default=0)
    for k in reversed(order):  # then as late as the successors allow: shorter edges
        if succs[k]:
            nodes[k].layer = max(nodes[k].layer, min(nodes[s].layer for s in succs[k]) - 1)
    if budget is not None and len(nodes) + sum(
            max(nodes[e.dst].layer - nodes[e.src].layer - 1, 0) for e in edges) > budget:
        return None
    # dummy nodes on edges spanning several layers
    up: dict[tuple, list[tuple]] = {k: [] for k in nodes}
    down: dict[tuple, list[tuple]] = {k: [] for k in nodes}
    for j, e in enumerate(edges):
        prev = e.src
        for layer in range(nodes[e.src].layer + 1, nodes[e.dst].layer):
            key = ("dummy", j, layer)
            nodes[key] = _Node(key, "dummy", DUMMY_W, 0, layer=layer)
            up[key], down[key] = [], []
            e.chain.append(key)
            down[prev].append(key)
            up[key].append(prev)
            prev = key
        down[prev].append(e.dst)
        up[e.dst].append(prev)
    n_layers = max((nd.layer for nd in nodes.values()), default=-1) + 1
    layers: list[list[tuple]] = [[] for _ in range(n_layers)]
    for pos, k in enumerate(order):
        nodes[k].order = pos
    for j, e in enumerate(edges):  # dummies start under their source
        for key in e.chain:
            nodes[key].order = nodes[e.src].order + 0.5
    for k, nd in nodes.items():
        layers[nd.layer].append(k)
    for layer in layers:
        layer.sort(key=lambda k: nodes[k].order)
        for pos, k in enumerate(layer):
            nodes[k].order = pos

    def sweep(rng: Iterable[int], nbrs: dict[tuple, list[tuple]]) -> None:
        for li in rng:
            layer = layers[li]
            bary = {}
            for k in layer:
                ns = nbrs[k]
                bary[k] = sum(nodes[m].order for m in ns) / len(ns) if ns else nodes[k].order
            layer.sort(key=lambda k: (bary[k], nodes[k].order))
            for pos, k in enumerate(layer):
                nodes[k].order = pos

    for it in range(8):  # barycenter crossing reduction
        if it % 2 == 0:
            sweep(range(1, n_layers), up)
        else:
            sweep(range(n_layers - 2, -1, -1), down)

    # x: pack each layer, then pull nodes toward their neighbours, keeping order and spacing
    def gap(a: _Node, b: _Node) -> float:
        g = GAP_X if a.kind != "dummy" and b.kind != "dummy" else 10
        return a.w / 2 + g + b.w / 2

    for layer in layers:
        x = 0.0
        for pos, k in enumerate(layer):
            if pos:
                x += gap(nodes[layer[pos - 1]], nodes[k])
            nodes[k].x = x

    def place(layer: list[tuple], desired: list[float]) -> None:
        """Closest positions to ``desired`` (least squares) keeping the order and the gaps: isotonic
        regression (pool adjacent violators) on the positions minus the cumulative gaps."""
        off = [0.0]
        for i in range(1, len(layer)):
            off.append(off[-1] + gap(nodes[layer[i - 1]], nodes[layer[i]]))
        blocks: list[list[float]] = []  # [mean, count]
        for t in (dx - o for dx, o in zip(desired, off)):
            blocks.append([t, 1])
            while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
                m2, c2 = blocks.pop()
                m1, c1 = blocks.pop()
                blocks.append([(m1 * c1 + m2 * c2) / (c1 + c2), c1 + c2])
        i = 0
        for mean, count in blocks:
            for _ in range(int(count)):
                nodes[layer[i]].x = mean + off[i]
                i += 1

    for it in range(12):
        rng = range(1, n_layers) if it % 2 == 0 else range(n_layers - 2, -1, -1)
        nbrs = up if it % 2 == 0 else down
        for li in rng:
            layer = layers[li]
            desired = []
            for k in layer:
                ns = nbrs[k] or (down if nbrs is up else up)[k]
                desired.append(sum(nodes[m].x for m in ns) / len(ns) if ns else nodes[k].x)
            place(layer, desired)
    xs = [(nd.x - nd.w / 2, nd.x + nd.w / 2) for nd in nodes.values()]
    min_x = min((lo for lo, _ in xs), default=0.0)
    max_x = max((hi for _, hi in xs), default=0.0)
    y = 0.0
    for layer in layers:
        h = max((nodes[k].h for k in layer), default=0)
        for k in layer:
            nd = nodes[k]
            nd.x -= min_x
            if nd.kind == "dummy":
                nd.y, nd.h = y, h
            else:
                nd.y = y + (h - nd.h) / 2
        y += h + GAP_Y
    return _Layout(func, nodes, edges, max_x - min_x, max(y - GAP_Y, 0.0))


# ---------------------------------------------------------------------------------------------- graph SVG


def _value_tip(d: _FileData, v: Value) -> str:
    rec = records.value_record(d.analysis, v)
    parts = [f"{v.name}{' (' + v.arg_name + ')' if v.arg_name else ''}: {rec['type']}"]
    lay = rec.get("layout")
    if lay:
        parts.append(f"{lay['layout']} {lay['dtype']}, padded {fmt.shape(lay['padded_shape'])}")
        p = lay["placement"]
        if p:
            parts.append(f"{p['buffer_type']}{' ' + p['memory_layout'] if p['memory_layout'] else ''}: "
                         f"{fmt.nbytes(p['bytes_per_bank'])} per bank over {p['banks']} banks")
    lt = rec.get("lifetime")
    if lt:
        parts.append(f"live ops #{lt['start_op']}–#{lt['end_op']} ({lt['end_reason']})")
    return "; ".join(parts)


def _value_short(d: _FileData, v: Value) -> str:
    info = d.analysis.infos.get(v)
    if info is None:
        return f"{v.name} {v.type}"
    where = info.placement.buffer_type if info.placement else "host"
    return f"{v.name} {fmt.shape(info.logical_shape)} {info.dtype} {where}"


def _node_svg(d: _FileData, nd: _Node, ox: float, oy: float) -> str:
    x, y = ox + nd.x - nd.w / 2, oy + nd.y
    if nd.kind == "arg":
        v = nd.value
        label = _clip(f"{v.name}{' ' + v.arg_name if v.arg_name else ''}", 14)
        return (f'<g class="arg-node"><title>argument {escape(_value_tip(d, v))}</title>'
                f'<rect x="{_f(x)}" y="{_f(y)}" width="{nd.w}" height="{nd.h}" rx="12"/>'
                f'<text x="{_f(x + nd.w / 2)}" y="{_f(y + 15)}" text-anchor="middle">{escape(label)}</text></g>')
    if nd.kind == "ret":
        return (f'<g class="ret-node"><title>returned values</title>'
                f'<rect x="{_f(x)}" y="{_f(y)}" width="{nd.w}" height="{nd.h}" rx="12"/>'
                f'<text x="{_f(x + nd.w / 2)}" y="{_f(y + 15)}" text-anchor="middle">return</text></g>')
    op = nd.op
    sev = d.severity(op.index)
    mem = d.memory(op.index)
    l1 = mem.get("l1_per_core", 0) + mem.get("op_l1_buffers_per_core", 0)
    cb = mem.get("cb_per_core", 0)
    short_lat, long_lat = _latency(d.costs.get(op.index))
    ks = d.op_findings.get(op.index, [])
    tip = [f"#{op.index} {op.label}  (line {op.pos.line}:{op.pos.col})"]
    if op.loc_name:
        tip.append(f"loc: {op.loc_name}")
    if op.callee:
        tip.append(f"calls @{op.callee}")
    tip.append(f"L1 per core at this op: tensors {fmt.nbytes(mem.get('l1_per_core', 0))}, op buffers "
               f"{fmt.nbytes(mem.get('op_l1_buffers_per_core', 0))}, CBs {fmt.nbytes(cb)}; "
               f"DRAM per bank {fmt.nbytes(mem.get('dram_per_bank', 0))}")
    tip.append(long_lat)
    tip.extend(f"{d.findings[k].severity}[{d.findings[k].rule}] {d.findings[k].message}" for k in ks)
    attrs = _attrs(id=f"op-{d.index}-{op.index}", class_=f"op-node {nd.kind} sev-{sev}", data_op=op.index,
                   data_line=op.pos.line, data_severity=sev)
    out = [f'<g {attrs}><title>{escape(chr(10).join(tip))}</title>']
    if ks:
        out.append(f'<a href="#finding-{d.index}-{ks[0]}">')
    if nd.kind == "dealloc":
        freed = ", ".join(v.name for v in op.operands)
        out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{nd.w}" height="{nd.h}" rx="4"/>'
                   f'<text class="small" x="{_f(x + 5)}" y="{_f(y + 15)}">{escape(_clip("✕ " + freed, 9))}</text>'
                   f'<text class="small dim" x="{_f(x + nd.w - 5)}" y="{_f(y + 15)}" text-anchor="end">'
                   f'L{op.pos.line}</text>')
    else:
        name = op.name[5:] if op.name.startswith("ttnn.") else op.name
        if op.callee:
            name += f" @{op.callee}"
        res = next((r for r in op.results if r.is_tensor), None)
        lines = [f"L1 {_b(l1)}/core · CB {_b(cb)}", short_lat, _value_short(d, res) if res is not None else ""]
        out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{nd.w}" height="{nd.h}" rx="5"/>'
                   f'<text class="name" x="{_f(x + 7)}" y="{_f(y + 15)}">{escape(_clip(name, 23))}</text>'
                   f'<text class="dim" x="{_f(x + nd.w - 7)}" y="{_f(y + 15)}" text-anchor="end">L{op.pos.line}</text>')
        for j, text in enumerate(lines):
            cls = "unknown" if text == "latency unknown" else ""
            out.append(f'<text class="{cls}" x="{_f(x + 7)}" y="{_f(y + 15 + LINE_H * (j + 1))}">'
                       f'{escape(_clip(text, 30))}</text>')
        if ks:
            out.append(f'<circle cx="{_f(x + nd.w)}" cy="{_f(y)}" r="9"/>'
                       f'<text class="count" x="{_f(x + nd.w)}" y="{_f(y + 4)}" text-anchor="middle">{len(ks)}</text>')
    if ks:
        out.append("</a>")
    out.append("</g>")
    return "".join(out)


def _edge_svg(d: _FileData, lay: _Layout, e: _Edge, ox: float, oy: float, marker: str) -> str:
    s, t = lay.nodes[e.src], lay.nodes[e.dst]
    x0, y0 = ox + s.x, oy + s.y + s.h
    path = [f"M{_f(x0)},{_f(y0)}"]

    def curve(x1: float, y1: float) -> None:
        my = (y0 + y1) / 2
        path.append(f"C{_f(x0)},{_f(my)} {_f(x1)},{_f(my)} {_f(x1)},{_f(y1)}")

    for k in e.chain:  # through each dummy: a curve to the top of its layer, straight down through the layer
        dn = lay.nodes[k]
        curve(ox + dn.x, oy + dn.y)
        x0, y0 = ox + dn.x, oy + dn.y + dn.h
        path.append(f"L{_f(x0)},{_f(y0)}")
    curve(ox + t.x, oy + t.y)
    if e.kind == "free":
        tip = f"{e.value.name} freed after its last use (#{e.src[1]})"
    elif e.kind == "ret":
        tip = f"returned {_value_tip(d, e.value)}"
    else:
        tip = _value_tip(d, e.value)
    where = ""
    info = d.analysis.infos.get(e.value) if e.value is not None else None
    if info is not None and info.placement is not None:
        where = f" mem-{info.placement.buffer_type}"
    return (f'<g class="edge {e.kind}{where}"><title>{escape(tip)}</title>'
            f'<path d="{" ".join(path)}" marker-end="url(#{marker})"/></g>')


def _graph_layouts(d: _FileData) -> tuple[list[_Layout], bool]:
    """The layouts to draw and whether the graph is summarized (see the module docstring)."""
    funcs = [f for f in d.analysis.program.funcs if f.ops]
    layouts: list[_Layout] = []
    if len(d.analysis.program.ops) <= GRAPH_MAX_NODES:
        budget = GRAPH_MAX_NODES
        for f in funcs:
            lay = _layout_func(f, budget=budget)
            if lay is None:
                break
            budget -= len(lay.nodes)
            lay.title = f'@{f.name}{" (" + f.kind + ")" if f.kind else ""}: {len(f.ops)} op{"s" * (len(f.ops) != 1)}'
            layouts.append(lay)
        else:
            return layouts, False
    layouts = []
    for f, lo, hi in _windows(d):
        lay = _layout_func(f, f.ops[lo:hi + 1])
        first, last = f.ops[lo], f.ops[hi]
        lay.title = (f"@{f.name}: ops #{first.index}–#{last.index} (lines {first.pos.line}–{last.pos.line}) "
                     f"of {len(f.ops):,}")
        layouts.append(lay)
    return layouts, True


def _windows(d: _FileData) -> list[tuple[Func, int, int]]:
    """Windows of a summarized graph, as (function, first, last position in its ops): around the ops with
    findings (errors first), the L1 peak and each function's first op; merged where they overlap."""
    a = d.analysis
    ops = a.program.ops
    centers = [f.op_index for f in sorted(d.findings, key=lambda f: -severity_rank(f.severity))
               if f.op_index is not None]
    peak = a.memory.peak_l1
    if peak is not None:
        centers.append(peak.op_index)
    centers += [f.ops[0].index for f in a.program.funcs if f.ops]
    position = {}
    spans: list[tuple[Func, int, int]] = []
    for c in dict.fromkeys(centers):
        f = ops[c].func
        if f not in position:
            position[f] = {op.index: k for k, op in enumerate(f.ops)}
        k = position[f][c]
        lo = max(k - GRAPH_WINDOW // 2, 0)
        spans.append((f, lo, min(lo + GRAPH_WINDOW, len(f.ops)) - 1))
        if len(spans) == GRAPH_MAX_WINDOWS:
            break
    spans.sort(key=lambda s: s[0].ops[s[1]].index)
    merged: list[tuple[Func, int, int]] = []
    for f, lo, hi in spans:
        if merged and merged[-1][0] is f and lo <= merged[-1][2] + 1:
            merged[-1] = (f, merged[-1][1], max(hi, merged[-1][2]))
        else:
            merged.append((f, lo, hi))
    return merged


def _graph(d: _FileData) -> str:
    a = d.analysis
    layouts, summarized = _graph_layouts(d)
    d.drawn = None if not summarized else [nd.op for lay in layouts for nd in lay.nodes.values() if nd.op is not None]
    margin, head = 16, 30
    width = max((lay.width for lay in layouts), default=300) + 2 * margin
    height = sum(lay.height + head + 2 * margin for lay in layouts) + margin if layouts else 60
    marker = f"arrow-{d.index}"
    summary_attr = f' data-summarized="{len(d.drawn)}"' if summarized else ""
    out = [f'<svg class="graph" id="graph-{d.index}" xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" '
           f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}" role="img"{summary_attr} '
           f'aria-label="dataflow graph of {escape(a.program.path)}">',
           f'<defs><marker id="{marker}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8a94a3"/></marker></defs>']
    if not layouts:
        out.append('<text x="16" y="34">no ops</text>')
    oy = margin
    for lay in layouts:
        f = lay.func
        out.append(f'<g class="func" {_attrs(data_func=f.name)}>'
                   f'<rect class="func-frame" x="{margin / 2}" y="{_f(oy - margin / 2)}" width="{_f(width - margin)}" '
                   f'height="{_f(lay.height + head + margin)}" rx="8"/>'
                   f'<text class="func-title" x="{margin}" y="{_f(oy + 14)}">{escape(lay.title)}</text>')
        gy = oy + head
        ox = margin
        out.append('<g class="edges">' + "".join(_edge_svg(d, lay, e, ox, gy, marker) for e in lay.edges) + "</g>")
        out.append('<g class="nodes">' + "".join(_node_svg(d, nd, ox, gy) for nd in lay.nodes.values()
                                                  if nd.kind != "dummy") + "</g></g>")
        oy += lay.height + head + 2 * margin
    out.append("</svg>")
    legend = ('<div class="legend"><span class="key"><i class="sev-error"></i>error</span>'
              '<span class="key"><i class="sev-warning"></i>warning</span><span class="key"><i class="sev-info"></i>'
              'info</span><span class="key"><i class="sev-none"></i>no finding</span>'
              '<span class="key"><i class="edge-l1"></i>tensor in L1</span><span class="key"><i class="edge-dram">'
              '</i>tensor in DRAM</span><span class="key"><i class="edge-free"></i>last use → deallocate</span>'
              '<label class="key"><input type="checkbox" class="fit-toggle" data-target="graph-box-'
              f'{d.index}"> fit to width</label></div>')
    note = ""
    if summarized:
        note = (f'<p class="muted">The program has {len(a.program.ops):,} ops, more than a readable graph holds: shown '
                f'are {len(d.drawn):,} of them, in windows of up to {GRAPH_WINDOW} consecutive ops around the findings, '
                "the L1 peak and the start of each function; values from outside a window enter it as inputs.</p>")
    return f'{legend}{note}<div class="graph-box" id="graph-box-{d.index}">{"".join(out)}</div>'


# ---------------------------------------------------------------------------------------------- op table


def _op_table(d: _FileData) -> str:
    """The per-op table: every op, or with a summarized graph the ops it draws."""
    rows = []
    ops = d.analysis.program.ops if d.drawn is None else d.drawn
    for op in ops:
        mem = d.memory(op.index)
        cost = d.costs.get(op.index)
        short, long_ = _latency(cost)
        sev = d.severity(op.index)
        rows.append(f'<tr class="sev-{sev}"><td>{op.index}</td><td>{op.pos.line}</td>'
                    f'<td><a href="#op-{d.index}-{op.index}">{escape(op.name)}</a></td><td>{escape(op.func.name)}</td>'
                    f'<td class="num">{fmt.num(mem.get("l1_per_core", 0))}</td>'
                    f'<td class="num">{fmt.num(mem.get("op_l1_buffers_per_core", 0))}</td>'
                    f'<td class="num">{fmt.num(mem.get("cb_per_core", 0))}</td>'
                    f'<td class="num">{fmt.num(mem.get("dram_per_bank", 0))}</td>'
                    f'<td class="num">{fmt.num(round(cost["ns"])) if cost and cost["status"] == "costed" else "-"}</td>'
                    f'<td title="{escape(long_)}">{escape(short)}</td></tr>')
    what = f"{len(rows)} ops" if d.drawn is None else \
        f"the {len(rows):,} ops drawn of {len(d.analysis.program.ops):,}; check --format json --detail ops has them all"
    return (f'<details class="ops"><summary>Per-op table ({escape(what)})</summary>'
            f'<table class="op-table" id="op-table-{d.index}"><thead><tr><th>#</th><th>line</th><th>op</th>'
            '<th>func</th><th>L1 tensors B/core</th><th>op buffers B/core</th><th>CBs B/core</th>'
            '<th>DRAM B/bank</th><th>predicted ns</th><th>latency</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table></details>")


# ---------------------------------------------------------------------------------------------- assets

CSS = """
:root{--err:#d93025;--err-bg:#fde7e4;--warn:#c77c02;--warn-bg:#fff3d1;--info:#1a73e8;--info-bg:#e3eefc;
--none:#8a94a3;--none-bg:#ffffff;--fg:#1f2328;--muted:#5f6b7a;--line:#d8dee4;--l1:#4e79a7;--dram:#9aa5b1}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:#f6f8fa}
header.page{padding:14px 24px 8px;background:#fff;border-bottom:1px solid var(--line)}
header.page h1{font-size:20px;margin:0 0 4px;word-break:break-all}
nav ol{margin:6px 0 0;padding-left:20px}
main{padding:8px 24px 40px}
section.file{background:#fff;border:1px solid var(--line);border-radius:8px;padding:6px 18px 16px;margin:14px 0}
h2{font-size:17px;margin:10px 0;word-break:break-all}
h3{font-size:15px;margin:18px 0 8px;border-bottom:1px solid var(--line);padding-bottom:3px}
.muted{color:var(--muted);font-size:12px}
code,.loc{font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
.summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:10px}
.stat{border:1px solid var(--line);border-radius:6px;padding:8px 10px;background:#fbfcfd}
.stat .label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.stat .value{font-size:18px;font-weight:600;margin:2px 0}
.stat .detail{font-size:11.5px;color:var(--muted)}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;border:1px solid}
.badge.sev-error{color:var(--err);background:var(--err-bg)}
.badge.sev-warning{color:var(--warn);background:var(--warn-bg)}
.badge.sev-info{color:var(--info);background:var(--info-bg)}
.badge.sev-none{color:var(--muted);background:#f0f2f4}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{font-size:12px;color:var(--muted);font-weight:600}
table.findings td:nth-child(4){min-width:320px}
table.findings td:nth-child(5){width:34%}
tr.finding-row:target{outline:2px solid var(--info)}
tr.finding-row.sev-error td:first-child{border-left:4px solid var(--err)}
tr.finding-row.sev-warning td:first-child{border-left:4px solid var(--warn)}
tr.finding-row.sev-info td:first-child{border-left:4px solid var(--info)}
ul.notes{margin:4px 0 0;padding-left:18px;color:var(--muted);font-size:12.5px}
details.explanation summary{cursor:pointer}
ul.fixes{margin:4px 0 0 0;padding-left:18px;color:#1b5e20}
p.pre{white-space:pre-wrap;font-size:12.5px}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--muted);margin:4px 0 6px}
.key{display:inline-flex;align-items:center;gap:5px}
.key i{display:inline-block;width:14px;height:10px;border:1px solid var(--none);border-radius:2px}
.key i.dash{border:none;border-top:2px dashed;height:0;width:18px;border-radius:0}
.key i.sev-error{background:var(--err-bg);border-color:var(--err)}
.key i.sev-warning{background:var(--warn-bg);border-color:var(--warn)}
.key i.sev-info{background:var(--info-bg);border-color:var(--info)}
.key i.sev-none{background:#fff}
.key i.edge-l1{border:none;border-top:2px solid var(--l1);height:0;width:18px}
.key i.edge-dram{border:none;border-top:2px solid var(--dram);height:0;width:18px}
.key i.edge-free{border:none;border-top:1.5px dotted var(--none);height:0;width:18px}
.plots{display:flex;flex-wrap:wrap;gap:12px}
.plot-box{border:1px solid var(--line);border-radius:6px;background:#fff;max-width:100%;overflow-x:auto}
svg.plot{display:block;max-width:100%;height:auto;font-family:system-ui,"DejaVu Sans",sans-serif}
svg.plot .plot-title{font-size:13px;font-weight:600;fill:var(--fg)}
svg.plot .tick,svg.plot .axis-label,svg.plot .band-label{font-size:10.5px;fill:var(--muted)}
svg.plot .note{font-size:11px;fill:var(--muted)}
svg.plot .grid{stroke:#eef1f4}
svg.plot .axis{stroke:#8a94a3}
svg.plot .band{fill:#f4f6f8}
svg.plot .hit{fill:transparent}
svg.plot .bar:hover .hit{fill:rgba(26,115,232,.12)}
svg.plot .limit line{stroke-width:1.5;stroke-dasharray:6 4}
svg.plot .limit text{font-size:11px}
svg.plot .peak path{fill:var(--err)}
svg.plot .peak text{font-size:11px;fill:var(--fg);font-weight:600}
.graph-box{border:1px solid var(--line);border-radius:6px;overflow:auto;max-height:1100px;background:#fff}
.graph-box.fit svg{width:100%;height:auto}
svg.graph{display:block;font-family:ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:11px}
svg.graph .func-frame{fill:#fbfcfd;stroke:var(--line)}
svg.graph .func-title{font:600 13px system-ui,"DejaVu Sans",sans-serif;fill:var(--fg)}
svg.graph .edge path{fill:none;stroke:var(--dram);stroke-width:1.3}
svg.graph .edge.mem-l1 path{stroke:var(--l1);stroke-width:1.8}
svg.graph .edge.free path{stroke:var(--none);stroke-dasharray:2 3;stroke-width:1}
svg.graph .edge:hover path{stroke:var(--info);stroke-width:3}
svg.graph .op-node rect{fill:var(--none-bg);stroke:var(--none);stroke-width:1.2}
svg.graph .op-node.sev-error rect{fill:var(--err-bg);stroke:var(--err);stroke-width:2}
svg.graph .op-node.sev-warning rect{fill:var(--warn-bg);stroke:var(--warn);stroke-width:2}
svg.graph .op-node.sev-info rect{fill:var(--info-bg);stroke:var(--info);stroke-width:1.6}
svg.graph .op-node.dealloc rect{fill:#f4f6f8;stroke-dasharray:3 2}
svg.graph .op-node:hover rect{stroke:var(--info);stroke-width:2.5}
svg.graph .op-node:target rect{stroke:#0b57d0;stroke-width:4}
svg.graph .op-node circle{fill:var(--err)}
svg.graph .op-node.sev-warning circle{fill:var(--warn)}
svg.graph .op-node.sev-info circle{fill:var(--info)}
svg.graph .op-node text.count{fill:#fff;font-weight:700;font-size:10.5px}
svg.graph text{fill:var(--fg)}
svg.graph text.name{font-weight:700}
svg.graph text.dim{fill:var(--muted)}
svg.graph text.small{font-size:10.5px}
svg.graph text.unknown{fill:var(--err)}
svg.graph .arg-node rect{fill:#eef4ea;stroke:#59a14f}
svg.graph .ret-node rect{fill:#f1ecf7;stroke:#8e44ad}
details.ops{margin-top:16px}
details.ops summary{cursor:pointer;font-weight:600}
table.op-table{font-size:12.5px}
table.op-table td.num{text-align:right;font-variant-numeric:tabular-nums}
table.op-table tr.sev-error{background:var(--err-bg)}
table.op-table tr.sev-warning{background:var(--warn-bg)}
"""

JS = """
(function () {
  document.querySelectorAll('.fit-toggle').forEach(function (box) {
    box.addEventListener('change', function () {
      document.getElementById(box.dataset.target).classList.toggle('fit', box.checked);
    });
  });
  var out = {};
  document.querySelectorAll('svg.graph, svg.plot').forEach(function (svg) {
    var b = svg.getBBox(), r = svg.getBoundingClientRect();
    out[svg.id] = {bbox_w: Math.round(b.width), bbox_h: Math.round(b.height), w: Math.round(r.width),
                   h: Math.round(r.height), nodes: svg.querySelectorAll('.op-node').length,
                   edges: svg.querySelectorAll('.edge').length, bars: svg.querySelectorAll('.bar').length};
  });
  var text = JSON.stringify(out);
  document.body.setAttribute('data-rendered', text);
  document.getElementById('render-check').textContent = text;
})();
"""
