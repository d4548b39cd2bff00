"""The HTML report: structure (parsed, no browser) and rendering in a real headless chromium.

The browser test runs Debian's ``chromium`` (``apt-get install -y chromium``) and
skips when it is absent.  It keeps what it rendered in ``tests/artifacts/``
(gitignored): ``html_report.html`` and the screenshot ``html_report.png``.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import struct
import subprocess
import tempfile
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ttanalyze.errors import SourcePos
from ttanalyze.findings import Finding, Note
from ttanalyze.report.html import render
from ttanalyze.rules import catalog, run

from .conftest import FIXTURES, REAL, SEEDS, analyze_path, analyze_text, l1_overflow_module, wh_module

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CONV = FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir"
SEED_MLP = FIXTURES / "seeds" / "simple_mlp_wh.mlir"
FFN = FIXTURES / "real" / "transformer_ffn_o2" / "ttnn.mlir"
SVG_NS = "{http://www.w3.org/2000/svg}"

def l1_overflow_program():
    """test_rules' TTA004 program: 3 x 524,288 B per core live at the add, over a 1,329,888 B bank."""
    return analyze_text(l1_overflow_module(), "l1_overflow.mlir")


class Page(HTMLParser):
    """Every element as (tag, attrs), ids indexed, and the text."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(text)
        self.by_id = {a["id"]: (t, a) for t, a in self.elements if "id" in a}

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_data(self, data):
        self.text.append(data)

    def with_class(self, cls: str) -> list[dict[str, str]]:
        return [a for _, a in self.elements if cls in a.get("class", "").split()]


def svg(page: str, svg_id: str) -> ET.Element:
    """The inline ``<svg id=...>`` parsed as XML (it must be well-formed)."""
    m = re.search(rf'<svg [^>]*id="{re.escape(svg_id)}".*?</svg>', page, re.S)
    assert m, svg_id
    return ET.fromstring(m.group(0))


def classes(el: ET.Element) -> list[str]:
    return el.get("class", "").split()


@pytest.fixture(scope="module")
def results():
    out = []
    for a in (analyze_path(SEED_MLP), analyze_path(CONV), l1_overflow_program()):
        out.append((a, run(a)))
    return out


@pytest.fixture(scope="module")
def page(results):
    return render(results, title="ttanalyze test report")


def test_page_is_self_contained(page):
    p = Page(page)
    for tag, attrs in p.elements:
        assert tag not in ("link", "iframe", "img", "object", "embed"), tag
        assert "src" not in attrs, (tag, attrs)
        for key in ("href", "xlink:href"):
            if key in attrs:
                assert attrs[key].startswith("#"), (tag, attrs)  # in-page anchors only
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page)
    assert "@import" not in page and not re.search(r"url\(\s*['\"]?(https?:)?//", page)
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert p.by_id["render-check"][0] == "pre"


def test_summary_header(page, results):
    p = Page(page)
    text = " ".join(p.text)
    assert "ttanalyze test report" in text
    for i, (a, findings) in enumerate(results):
        assert f"summary-{i}" in p.by_id and f"file-{i}" in p.by_id
    section = page[page.index('id="summary-0"'):page.index('id="findings-0"')]
    # simple_mlp_wh: 16 ops on a Wormhole, 2 errors and 1 warning, two ops of unknown cost
    assert "wormhole_b0" in section and ">16<" in section
    assert "2 errors" in section and "1 warning" in section
    assert "peak L1 per core" in section and "predicted latency" in section
    assert "2 ops of unknown cost, not included" in section
    # the total is the cost model's, in µs
    assert re.search(r"\d µs\+", section)


def test_graph_has_one_node_per_op_with_its_numbers(page, results):
    for i, (a, findings) in enumerate(results):
        root = svg(page, f"graph-{i}")
        nodes = [g for g in root.iter(f"{SVG_NS}g") if "op-node" in classes(g)]
        assert len(nodes) == len(a.program.ops)
        assert sorted(g.get("id") for g in nodes) == sorted(f"op-{i}-{op.index}" for op in a.program.ops)
        for g in nodes:
            op = a.program.ops[int(g.get("data-op"))]
            title = g.find(f"{SVG_NS}title").text
            assert title.startswith(f"#{op.index} ") and f"line {op.pos.line}:" in title
            if op.name != "ttnn.deallocate":
                label = " ".join(t.text or "" for t in g.iter(f"{SVG_NS}text"))
                assert f"L{op.pos.line}" in label and "/core" in label and "CB " in label
                assert "≈ " in label or "latency unknown" in label or "no device op" in label
        edges = [g for g in root.iter(f"{SVG_NS}g") if "edge" in classes(g)]
        assert edges and all(g.find(f"{SVG_NS}title").text for g in edges)


def test_graph_latency_and_tensor_tooltips(page, results):
    a, _ = results[0]
    root = svg(page, "graph-0")
    labels = {g.get("data-op"): " ".join(t.text or "" for t in g.iter(f"{SVG_NS}text"))
              for g in root.iter(f"{SVG_NS}g") if "op-node" in classes(g)}
    assert sum("latency unknown" in t for t in labels.values()) == 2  # the cost model's two unknown ops
    assert sum("≈ " in t and " µs" in t for t in labels.values()) >= 5
    # an edge's tooltip: the tensor's shape, dtype, layout and where it lives
    tips = [g.find(f"{SVG_NS}title").text for g in root.iter(f"{SVG_NS}g") if "edge" in classes(g)]
    assert any(re.search(r"tensor<\d+(x\d+)*x\w+>; tile \w+, padded [\dx]+; (dram|l1) \w+: [\d,]+ B per bank", t)
               for t in tips), tips[:5]


def test_graph_nodes_do_not_overlap(results):
    """Layout sanity on every fixture: op boxes of one function never overlap."""
    from ttanalyze.report.html import _layout_func

    for path in REAL + SEEDS:
        a = analyze_path(path)
        for func in a.program.funcs:
            if not func.ops:
                continue
            lay = _layout_func(func)
            boxes = [(n.x - n.w / 2, n.y, n.x + n.w / 2, n.y + n.h) for n in lay.nodes.values() if n.kind != "dummy"]
            for j, b in enumerate(boxes):
                for c in boxes[j + 1:]:
                    assert b[2] <= c[0] or c[2] <= b[0] or b[3] <= c[1] or c[3] <= b[1], (path, func.name, b, c)
            # every edge goes down, layer by layer
            for e in lay.edges:
                assert lay.nodes[e.src].layer < lay.nodes[e.dst].layer


def test_nodes_coloured_by_severity(page, results):
    for i, (a, findings) in enumerate(results):
        root = svg(page, f"graph-{i}")
        sev = {int(g.get("data-op")): g.get("data-severity") for g in root.iter(f"{SVG_NS}g")
               if "op-node" in classes(g)}
        expected: dict[int, str] = {}
        for f in findings:
            if f.op_index is not None:
                cur = expected.get(f.op_index)
                order = ("info", "warning", "error")
                if cur is None or order.index(f.severity) > order.index(cur):
                    expected[f.op_index] = f.severity
        assert {k: v for k, v in sev.items() if v != "none"} == expected
    assert "error" in {f.severity for f in results[0][1]}


def test_findings_table_rows_link_to_graph_nodes(page, results):
    p = Page(page)
    metas = catalog()
    for i, (a, findings) in enumerate(results):
        rows = [r for r in p.with_class("finding-row") if r["id"].startswith(f"finding-{i}-")]
        assert len(rows) == len(findings)
        assert [r["data-rule"] for r in rows] == [f.rule for f in findings]
        for k, f in enumerate(findings):
            row = page[page.index(f'id="finding-{i}-{k}"'):]
            row = row[:row.index("</tr>")]
            assert html.escape(f.message) in row
            assert f"{f.pos.line}:{f.pos.col}" in row
            for n in f.notes:
                assert f"{n.pos.line}:{n.pos.col}" in row and html.escape(n.message) in row
            assert "<details" in row and html.escape(metas[f.rule].explanation) in row
            if f.op_index is not None:
                target = f"op-{i}-{f.op_index}"
                assert f'href="#{target}"' in row and target in p.by_id
    # every in-page link resolves
    for _, attrs in p.elements:
        if attrs.get("href", "").startswith("#"):
            assert attrs["href"][1:] in p.by_id, attrs["href"]


def test_l1_plot_stacks_budget_and_peak(page, results):
    for i, (a, findings) in enumerate(results):
        root = svg(page, f"l1-plot-{i}")
        bars = [g for g in root.iter(f"{SVG_NS}g") if "bar" in classes(g)]
        assert len(bars) == len(a.program.ops)
        for g, op in zip(bars, a.program.ops):
            point = a.memory.points[op.index]
            assert f"{point.l1_total_per_core:,} B per core" in g.find(f"{SVG_NS}title").text
        limits = [g.find(f"{SVG_NS}title").text for g in root.iter(f"{SVG_NS}g") if "limit" in classes(g)]
        assert f"L1 bank: {a.arch.usable_l1:,} B" in limits
        assert f"CB region limit: {a.arch.l1_size - a.arch.l1_unreserved_base:,} B" in limits
        peak = [g for g in root.iter(f"{SVG_NS}g") if "peak" in classes(g)]
        assert len(peak) == 1 and f"#{a.memory.peak_l1.op_index} " in peak[0].find(f"{SVG_NS}title").text
        assert svg(page, f"dram-plot-{i}") is not None
    # small data gets a second plot at the data's scale; an overflow does not need one
    p = Page(page)
    assert "l1-plot-zoom-0" in p.by_id and "l1-plot-zoom-2" not in p.by_id


def test_l1_overflow_is_drawn_above_the_bank_line(page, results):
    a, findings = results[2]
    assert "TTA004" in [f.rule for f in findings if f.severity == "error"]
    root = svg(page, "l1-plot-2")
    bank_y = next(float(g.find(f"{SVG_NS}line").get("y1")) for g in root.iter(f"{SVG_NS}g")
                  if "limit" in classes(g) and "L1 bank" in g.find(f"{SVG_NS}title").text)
    add = [g for g in root.iter(f"{SVG_NS}g") if "bar" in classes(g)][2]
    top = min(float(r.get("y")) for r in add.iter(f"{SVG_NS}rect") if "hit" not in classes(r))
    assert top < bank_y  # SVG y grows downward: the bar reaches above the line


def test_text_is_escaped():
    a = analyze_text(wh_module("", "    return"), path="<b>evil</b>&.mlir")
    evil = "<img src=x onerror=alert(1)> & \"quotes\""
    f = Finding("TTA001", "reshape-volume-mismatch", "error", evil, a.program.path, SourcePos(3, 5),
                notes=[Note(SourcePos(2, 1), "<script>alert(2)</script>")])
    page = render([(a, [f])], title="<title>x</title>")
    assert "<img" not in page and "<b>evil" not in page and "<script>alert" not in page
    assert "<title>x</title>" not in page
    assert html.escape(evil) in page and "&lt;b&gt;evil&lt;/b&gt;&amp;.mlir" in page
    # a file without ops still gives a graph and plots
    root = svg(page, "graph-0")
    assert [g for g in root.iter(f"{SVG_NS}g") if "op-node" in classes(g)] == []
    assert svg(page, "l1-plot-0") is not None
    assert "No files were analyzed" in render([])


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_renders(path):
    a = analyze_path(path)
    page = render([(a, run(a))])
    for svg_id in ("graph-0", "l1-plot-0", "dram-plot-0"):
        svg(page, svg_id)
    assert page.count('class="op-node ') == len(a.program.ops)


# ---------------------------------------------------------------------------------------------- browser

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)


def chromium(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--disable-extensions", "--hide-scrollbars", f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=timeout)


def png_info(data: bytes) -> tuple[int, int, int]:
    """(width, height, distinct rows): rows compared after decompression (a blank page has a handful)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    width, height, depth, color = ihdr[:4]
    assert depth == 8 and color in (2, 6), ihdr
    stride = 1 + width * (3 if color == 2 else 4)
    raw = zlib.decompress(idat)
    assert len(raw) == stride * height
    rows = {raw[r * stride:(r + 1) * stride] for r in range(height)}
    return width, height, len(rows)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)")
def test_report_renders_in_headless_chromium(page, results):
    ARTIFACTS.mkdir(exist_ok=True)
    page_path = ARTIFACTS / "html_report.html"
    page_path.write_text(page, encoding="utf-8")
    url = page_path.as_uri()

    dom = chromium("--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    m = re.search(r'<body data-rendered="([^"]*)"', dom.stdout)
    assert m, dom.stdout[:2000]
    rendered = json.loads(html.unescape(m.group(1)))
    for i, (a, _) in enumerate(results):
        graph, plot = rendered[f"graph-{i}"], rendered[f"l1-plot-{i}"]
        assert graph["nodes"] == len(a.program.ops)
        assert graph["w"] > 100 and graph["h"] > 50 and graph["bbox_w"] > 100 and graph["bbox_h"] > 50, graph
        assert plot["bars"] == len(a.program.ops)
        assert plot["w"] > 300 and plot["h"] > 150 and plot["bbox_w"] > 300 and plot["bbox_h"] > 150, plot
        assert rendered[f"dram-plot-{i}"]["w"] > 300
    assert '<pre id="render-check" hidden="">{' in dom.stdout

    shot = ARTIFACTS / "html_report.png"
    shot.unlink(missing_ok=True)
    result = chromium(f"--screenshot={shot}", "--window-size=1400,2000", url)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    data = shot.read_bytes()
    assert len(data) > 50_000
    width, height, distinct = png_info(data)
    assert (width, height) == (1400, 2000)
    assert distinct > 200  # text, plots and graph: far from a blank page


def test_findings_list_their_fixes(tmp_path, cli):
    out = tmp_path / "report.html"
    cli("check", FIXTURES / "seeds" / "simple_mlp_wh.mlir", "--format", "html", "-o", out)
    text = out.read_text()
    assert text.count('<li class="fix">') == 2 + 3 + 3  # TTA006: rewrite + advice; each TTA013: 2 rewrites + advice
    assert "fix 1 [matmul/materialize-transpose]" in text


def test_large_programs_are_summarized_and_binned(monkeypatch):
    """Past the graph budget the graph shows windows of ops around the findings, the L1 peak and each function's
    start; past PLOT_MAX_BARS each bar is a bin drawn as its op with the most bytes (the peak is kept)."""
    from ttanalyze.report import html as H

    a = analyze_path(CONV)
    findings = run(a)
    monkeypatch.setattr(H, "GRAPH_MAX_NODES", 10)
    monkeypatch.setattr(H, "GRAPH_WINDOW", 4)
    monkeypatch.setattr(H, "PLOT_MAX_BARS", 7)
    page = render([(a, findings)])
    graph = svg(page, "graph-0")
    drawn = [int(g.get("data-op")) for g in graph.iter(f"{SVG_NS}g") if "op-node" in classes(g)]
    assert int(graph.get("data-summarized")) == len(drawn) < len(a.program.ops)
    assert len(set(drawn)) == len(drawn)
    assert {f.op_index for f in findings if f.op_index is not None} <= set(drawn)
    assert a.memory.peak_l1.op_index in drawn and a.program.funcs[0].ops[0].index in drawn
    assert f"Per-op table (the {len(drawn):,} ops drawn of {len(a.program.ops):,}" in page
    plot = svg(page, "l1-plot-0")
    bars = [g for g in plot.iter(f"{SVG_NS}g") if "bar" in classes(g)]
    assert len(bars) == 7
    spans = [(int(b.get("data-op")), int(b.get("data-last-op", b.get("data-op")))) for b in bars]
    assert spans[0][0] == 0 and spans[-1][1] == len(a.program.ops) - 1
    assert all(lo == prev_hi + 1 for (lo, _), (_, prev_hi) in zip(spans[1:], spans))
    assert f"peak {H._b(a.memory.peak_l1.l1_total_per_core)} at #{a.memory.peak_l1.op_index} " in page
