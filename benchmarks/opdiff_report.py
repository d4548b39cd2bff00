"""The op-level differential section of docs/accuracy.md, generated from the committed results.

Reads ``measurements/opdiff/results.jsonl.gz`` (written by ``benchmarks/opdiff.py run``) and
``measurements/opdiff/causes.yaml`` (each known mismatch class: a glob over instance ids or
op names and outcomes, and its cause), and rewrites the part of docs/accuracy.md between
``<!-- cb-sweep:begin -->`` and ``<!-- cb-sweep:end -->``.

Usage: .venv/bin/python benchmarks/opdiff.py report
"""

from __future__ import annotations

import fnmatch
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.opdiff import RESULTS, load_results  # noqa: E402
from benchmarks.opdiff_instances import instances  # noqa: E402

DOC = ROOT / "docs" / "accuracy.md"
CAUSES = ROOT / "measurements" / "opdiff" / "causes.yaml"
BEGIN, END = "<!-- cb-sweep:begin -->", "<!-- cb-sweep:end -->"
COMMAND = ".venv/bin/python benchmarks/opdiff.py run --base 60 --lock"


def counted(r: dict) -> bool:
    """Whether a record is a measured instance (the device ran it, or refused the op itself)."""
    return r["outcome"] not in ("invalid", "not_replayed")


def mismatch_class(r: dict) -> str:
    """A short class name for a record that is not exact: op, outcome and what differs."""
    c = r.get("checks", {})
    what = r["outcome"]
    if what == "exact":
        what = "cbs differ" if c.get("cbs") is False else what
    elif what == "bytes_differ":
        m, d = r["model"]["peak"], r["device"]["peak"]
        what = "model under" if m < d else "model over"
    return f"{r['op']}: {what}"


def causes() -> list[dict]:
    if not CAUSES.exists():
        return []
    return yaml.safe_load(CAUSES.read_text()) or []


def cause_of(cls: str, ids: list[str], table: list[dict]) -> str:
    for entry in table:
        pat = entry.get("class")
        if pat and fnmatch.fnmatchcase(cls, pat):
            return entry["cause"]
        pat = entry.get("ids")
        if pat and any(fnmatch.fnmatchcase(i, pat) for i in ids):
            return entry["cause"]
    return "not yet determined"


def _stub_check() -> str:
    """The stub check's verdict, from its committed result."""
    path = Path(__file__).resolve().parent.parent / "measurements" / "opdiff" / "stub_check.json"
    if not path.exists():
        return ": not run"
    s = json.loads(path.read_text())["summary"]
    return (f": {s['identical']} of {s['instances']} instances over {len(s['families'])} families identical; the "
            "real replays there hit tt-metal's warm cache")


def _throughput(recs: list[dict]) -> str:
    """What a replay costs, from the records' ``seconds`` and ``build``."""
    stub = sorted(r["seconds"] for r in recs if r.get("build") == "stub" and r.get("seconds") is not None)
    text = ("A NO_DISPATCH capture builds every program the op makes, and with the real kernel build that "
            "JIT-compiles and links each kernel variant tt-metal's cache lacks: 2-9 s per new instance on the "
            "2-core machine the campaign ran on (profiled on ten fresh instances of different families).")
    if stub:
        med = stub[len(stub) // 2]
        text += (f" {len(stub):,} instances were replayed with the stub kernel toolchain "
                 "(`ttanalyze/executor/stub_toolchain.py`: null kernels; a kernel's compile and link are skipped once "
                 "its RISC-V processor has a template binary): median "
                 f"{med:.3f} s, mean {sum(stub) / len(stub):.3f} s per instance. "
                 "`benchmarks/opdiff_stub_check.py` replays a stratified sample both ways and compares every "
                 "recorded device field (`measurements/opdiff/stub_check.json`" + _stub_check() + ").")
    return text


def section(recs: list[dict]) -> str:
    measured = [r for r in recs if counted(r)]
    exact = [r for r in measured if r.get("exact")]
    invalid = sum(r["outcome"] == "invalid" for r in recs)
    unsupported = [r for r in recs if r["outcome"] == "not_replayed"]
    ops = Counter(r["op"] for r in measured)
    fam: dict[str, Counter] = defaultdict(Counter)
    for r in measured:
        f = fam[r["family"]]
        f["n"] += 1
        f["exact"] += bool(r.get("exact"))
        f["refused"] += r["outcome"] == "both_refused"
        f["spec_n"] += "spec" in r.get("checks", {})
        f["spec_ok"] += bool(r.get("checks", {}).get("spec"))
    pct = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"  # noqa: E731
    table = causes()
    lines = [BEGIN, "## Per-op models vs tt-metal: the differential campaign", "",
             f"Measured with `nice {COMMAND}` (resumable: it skips the ids already in "
             "`measurements/opdiff/results.jsonl.gz` and takes the device lock per chunk), then "
             "`.venv/bin/python benchmarks/opdiff.py report` (this section). Device: mock Blackhole P150, ttnn 0.81.1 "
             "(tt-metal d80d9482), NO_DISPATCH graph capture; the model runs on that device's parameters "
             "(`MOCK_P150_TTNN_0_81_1`) with the free L1 the capture saw.", "",
             "Instances come from `benchmarks/opdiff_instances.py`: a seeded generator per op with a CB model "
             "(`CB_MODELS`), stratified over shape classes (tiny, odd, tile-aligned, wide rows up to millions of "
             "elements, tall, rank 5, sizes around a tile, big volumes), dtypes, tile/row-major layouts, DRAM/L1 "
             "interleaved and height/width/block sharded placements on random core grids, and the attributes "
             "tt-mlir emits. Each is a single-op TTNN IR module, analyzed as a user's file, and replayed the way "
             "tt-mlir's runtime calls the op.", "",
             f"**{len(exact)} of {len(measured)} instances exact ({pct(len(exact), len(measured))})** over "
             f"{len(ops)} ops: the same per-core peak of program-scope L1 (CBs/DFBs plus scratchpads on the busiest "
             "core, max over the op's programs) to the byte, or both refuse (tt-metal's message recorded), or both "
             "run no program; and the same CBs (size and set of cores, each). Of these, "
             f"{sum(r['outcome'] == 'both_refused' for r in exact)} are refusals by both. "
             f"{invalid} draws whose operands tt-metal could not allocate are not instances; "
             f"{len(unsupported)} could not be replayed (the executor does not translate them).", "",
             f"Campaign size: {len(recs):,} instances measured of the {len(instances(60)):,} of `--base 60` "
             f"({min(ops.values(), default=0)} to {max(ops.values(), default=0)} per op); rerunning the command "
             "continues where it stopped. " + _throughput(recs), "",
             "| family | instances | exact | both refuse | output spec matches |", "|---|---|---|---|---|"]
    for name in sorted(fam):
        f = fam[name]
        lines.append(f"| {name} | {f['n']} | {f['exact']} ({pct(f['exact'], f['n'])}) | {f['refused']} | "
                     f"{f['spec_ok']} of {f['spec_n']} |")
    spec_n = sum(f["spec_n"] for f in fam.values())
    spec_ok = sum(f["spec_ok"] for f in fam.values())
    from benchmarks.opdiff_instances import generators
    from ttanalyze.ops.registry import CB_MODELS

    missing = sorted(set(CB_MODELS) - set(generators()))
    if missing:
        lines += ["", f"Ops with a CB model but no generator yet (modeled after the campaign's generator g1): "
                      + ", ".join(f"`{m}`" for m in missing) + "."]
    lines += ["", f"Output specs (shape, padded shape, layout, dtype, buffer type, memory layout, shard shape; the "
                  f"op's output model, else the declared result type) match on {spec_ok} of {spec_n} instances "
                  f"({pct(spec_ok, spec_n)})."]
    l1 = [r for r in measured if "l1" in r.get("checks", {})]
    if l1:
        l1_ok = sum(bool(r["checks"]["l1"]) for r in l1)
        lines += ["", f"Intermediate L1 buffers (the L1 buffers an op allocates and frees before it returns, summed per "
                      f"bank) equal the model's largest `l1_buffers_per_core` on {l1_ok} of {len(l1)} instances "
                      f"({pct(l1_ok, len(l1))}). Informational, not part of *exact*: the model counts only the buffers "
                      "held while one program runs (conv/pool halo outputs), the device sum every intermediate."]
    ends = [r for r in measured if "refusal_end" in r.get("checks", {})]
    if ends:
        ok = sum(bool(r["checks"]["refusal_end"]) for r in ends)
        lines += ["", f"CB regions both refuse (the model's verdict is the analyzer's: a modeled program TTA010 refuses "
                      "counts as a refusal): tt-metal's \"grow to X B\" equals TTA010's on "
                      f"{ok} of {len(ends)} instances ({pct(ok, len(ends))})."]
    per_op = defaultdict(Counter)
    for r in measured:
        per_op[r["op"]]["n"] += 1
        per_op[r["op"]]["exact"] += bool(r.get("exact"))
    lines += ["", "<details><summary>Per op</summary>", "", "| op | instances | exact |", "|---|---|---|"]
    for op in sorted(per_op):
        c = per_op[op]
        lines.append(f"| `{op}` | {c['n']} | {c['exact']} ({pct(c['exact'], c['n'])}) |")
    lines += ["", "</details>", ""]
    groups: dict[str, list[dict]] = defaultdict(list)
    for r in measured:
        if not r.get("exact"):
            groups[mismatch_class(r)].append(r)
    lines += ["### Every mismatch class", ""]
    if not groups:
        lines.append("None: every instance is exact.")
    else:
        lines += ["| class | instances | example | model | device | cause |", "|---|---|---|---|---|---|"]
    for cls, rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        r = rs[0]
        m, d = r.get("model", {}), r["device"]
        model = f"{m.get('status')} {m.get('peak', 0):,} B" + (f": {m.get('reason', '')[:90]}" if m.get("reason") else "")
        device = f"{d['peak']:,} B" if d["ok"] else f"error: {d['error'][:90]}"
        cause = cause_of(cls, [x["id"] for x in rs], table)
        esc = lambda s: s.replace("|", "/").replace("\n", " ")  # noqa: E731
        lines.append(f"| {esc(cls)} | {len(rs)} | `{r['id']}` {esc(r['key'][:60])} | {esc(model)} | {esc(device)} | {esc(cause)} |")
    spec_bad: dict[str, list[dict]] = defaultdict(list)
    for r in measured:
        c = r.get("checks", {})
        if c.get("spec") is False:
            spec_bad[f"{r['op']}: {', '.join(c.get('spec_diff', []))}"].append(r)
    if spec_bad:
        lines += ["", "Output-spec mismatch classes:", "", "| class | instances | example | cause |", "|---|---|---|---|"]
        for cls, rs in sorted(spec_bad.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"| {cls} | {len(rs)} | `{rs[0]['id']}` {rs[0]['key'][:60]} | "
                         f"{cause_of('spec ' + cls, [x['id'] for x in rs], table)} |")
    lines.append(END)
    return "\n".join(lines)


def write_doc(text: str, begin: str = BEGIN, end: str = END, after: str | None = None) -> None:
    """Put ``text`` (a section from ``begin`` to ``end``, markers included) in place of that section of
    docs/accuracy.md; when the doc has none yet, after the marker ``after`` (when the doc holds it), else at the
    end."""
    doc = DOC.read_text()
    if begin in doc:
        head, rest = doc.split(begin, 1)
        tail = rest.split(end, 1)[1] if end in rest else ""
        doc = head + text + tail
    elif after is not None and after in doc:
        head, tail = doc.split(after, 1)
        doc = head + after + "\n\n" + text + tail
    else:
        doc = doc.rstrip() + "\n\n" + text + "\n"
    DOC.write_text(doc)


def main() -> None:
    recs = list(load_results(RESULTS).values())
    text = section(recs)
    write_doc(text)
    print(next(line for line in text.splitlines() if line.startswith("**")))


if __name__ == "__main__":
    main()
