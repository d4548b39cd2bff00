"""Outcomes of the whole-program campaign: what tt-metal did, what ``ttanalyze check`` says, and
the confusion matrix in docs/accuracy.md.

    .venv/bin/python benchmarks/programs/outcomes.py [--out benchmarks/out/programs]

With ``--out`` (raw results of ``run.py``'s run stage) the programs are first copied into
``fixtures/real/programs/<case>/`` (``ttnn.mlir``, gzipped as ``ttnn.mlir.gz`` when 200 KB or
more, and ``case.json``: the sizes, the compile options, tt-metal's outcome and its class).
Then, from the committed fixtures alone (no compiler, no device needed), every program's IR goes
through ``ttanalyze check --fail-on error --tt-metal 614f605f`` of this checkout (in process: the
programs ran on the plugin's tt-metal 614f605f) and each pair is scored:

* true alarm: tt-metal refused the program (memory or validation) and check exits 1;
* false alarm: the program ran and check exits 1 (an error finding);
* miss: tt-metal refused it (memory or validation) and check exits 0;
* true pass: it ran and check exits 0.

The worker's raw records (full error texts) are kept in ``benchmarks/programs/results.jsonl.gz``.
Programs that failed for other reasons (a build without an op, a compiler refusal before TTNN IR)
are listed, not scored.  Writes ``benchmarks/programs/outcomes.json`` and the section between
``<!-- programs:begin -->`` and ``<!-- programs:end -->`` of docs/accuracy.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import families  # noqa: E402
ROOT = HERE.parent.parent
FIXTURES = ROOT / "fixtures" / "real" / "programs"
OUTCOMES = HERE / "outcomes.json"
RAW = HERE / "results.jsonl.gz"
DOC = ROOT / "docs" / "accuracy.md"
MAX_PLAIN = 200_000
# The tt-metal the programs ran on (the plugin's runtime): check models its factories (ttanalyze.versions).
TT_METAL = "614f605f"
TOOLCHAIN = ("jax 0.10.2 + jax-tt-plugin 0.1.3 (tt-mlir + tt-metal 614f605ffe2977715adc198156c72bea14c2bae6), "
             "mock Blackhole P150 (TT_METAL_MOCK_CLUSTER_DESC_PATH)")

# tt-metal's refusal texts (tt-metal 614f605f), most specific first: (class, pattern).
CLASSES = [
    ("memory/cb_overflow", r"(circular|dataflow) buffers on core range .* grow to \d+ B which is beyond max L1 size"),
    ("memory/l1_clash", r"clash with L1 buffers"),
    ("memory/dram_oom", r"Out of Memory.*DRAM|DRAM.*[Oo]ut of [Mm]emory"),
    ("memory/l1_oom", r"Out of Memory.*L1|L1.*[Oo]ut of [Mm]emory"),
    ("memory/page_exceeds_l1", r"exceeds per-core L1 capacity|does not fit in the per-core L1 budget|"
                               r"(page|row|stick).{0,60}(exceeds|does not fit).{0,40}L1"),
    ("memory/other", r"[Oo]ut of [Mm]emory|beyond max L1"),
    ("other/unsupported", r"is not linked in this libtt build|not (yet )?supported|[Uu]nsupported"),
    ("validation", r"TT_FATAL|TT_THROW"),
]


NOTES = [
    "* The plugin's mock device and the ttnn executor's ran side by side (one process each, no shared lock), so "
    "`run.py --no-lock` skips the mock-device lock (`scripts/device-lock`) (the later programs were run under the lock, one per hold); two "
    "plugin processes do not share a `$TMPDIR`: the plugin "
    "writes `$TMPDIR/tt_pjrt_system_descriptor` and another plugin process can remove it during a compile "
    "(\"system desc does not exist\"), so each runner gets its own.",
    "* `TT_METAL_NULL_KERNELS=1`: kernels do not execute on a mock device, and every refusal scored here (CB/DFB "
    "validation, factory `TT_FATAL`s, the allocator) is host-side: with it, a [3, 200000] f32 strided slice fails "
    "with \"grow to 1777280 B\" (177,280 + 2 x 800,000, the figure ttanalyze predicts), and ttnn 0.81.1 without it "
    "with \"grow to 1711744 B\" (its base 111,744 + the same DFBs).",
    "* Level 2: four programs hit the 900 s time box (listed below) and the four level-2 decoder blocks were not "
    "run: a level-2 compile queries the device for every op and takes longer than the few minutes one may hold the "
    "shared mock-device lock (`run.py --only _o2 --timeout 2400` runs them).",
    "* Level-0 compiles take under a second; the run is the cost (30-130 s per program on the shared 2-core host, "
    "mostly building kernels for each new size).",
    "* Factory `TT_FATAL`s on wide row-major rows are the same in ttnn 0.81.1 and the plugin's tt-metal, with the "
    "L1 base of each build: concat refuses an output row above `l1_size - base` (\"required DFB entry size "
    "(1600000 B) exceeds per-core L1 capacity (1461120 B)\" in ttnn 0.81.1, 1,395,584 B in the plugin's build), "
    "RM pad a padded row (times `ceil(2048 / row)`) above `l1_size / 2 - base`; ttanalyze reports both as TTA013.",
    "* The plugin's tt-metal differs from ttnn 0.81.1 on row-major concat: its DFB entry is an output row plus the "
    "widest input's row (each rounded up to the 64-B DRAM alignment), and unaligned 1-D rows are concatenated directly "
    "(a roll of 300,000 f32 asked for 2,400,000 B; ttnn 0.81.1 would transpose them): `--tt-metal 614f605f` models "
    "that, measured to the byte on five refusals. The rule was first read as the output row plus the *last* input's "
    "row (every two-input concat measured had its widest input last); the held-out `concat_1d_many_5_172102_8605_bf16` "
    "(four inputs of 172,102 and a last of 8,605) asked for 1,738,304 B = 1,394,048 + 344,256, the widest input's "
    "row, where the last input's gave 1,411,264 B: still a true alarm (both exceed 1,395,584 B), its figure now exact.",
    "* conv2d: main's TTA010 error on `conv2d_1_512_512_64_64_3_1_o0` (its CBs, 958,564 B, end 7,396 B above the "
    "lowest L1 buffer once the op's own halo and output buffers, 378,880 B, are counted) was a false alarm: the "
    "program ran. tt-metal sized the conv by its own L1 estimate, which fits; the finding is now a warning saying so.",
    "* Norms: the plugin's runtime does not run an interleaved `rms_norm` as ttnn 0.81.1 does (one tile row per "
    "core, `LayerNormMultiCoreProgramFactory`): it reshards the input to L1, width-sharded on 8 x 2 cores, runs "
    "`LayerNormShardedProgramFactory` (RMSNORM, FUSE_GAMMA, `block_w` = Wt / 16, two-stage reduce 8 + 2) and writes "
    "the result back (the kernels it builds, `measurements/rms_norm_614f605f/kernels.jsonl`, for every one-tile-row "
    "width from Wt 256 to 3072). Its static DFBs are 61,440 B + `block_w` x (gamma tile + 2 intermediate tiles) and "
    "the two shards (`block_w` tiles each) sit under L1_SMALL: at [32, 36864] f32 the DFB region ends at 177,280 + "
    "61,440 + 72 x 12,288 = 1,123,456 B and the lowest shard starts at 1,507,328 - 2 x 72 x 4,096 = 917,504 B, "
    "tt-metal's two figures. `--tt-metal 614f605f` models it (`ttanalyze/ops/norm_sharded.py`): the 12 former "
    "misses are true alarms with tt-metal's figures to the byte, the rms_norms that ran pass; taller inputs (other "
    "grids) are reported as not modeled. Three programs one 16-tile step from the boundary, predicted before they ran, "
    "came out as predicted: [32, 31232] f32 ran, [32, 31744] f32 clashed by 1,152 B (999,424 / 1,000,576) and [32, "
    "45568] bf16 by 7,296 B (1,142,784 / 1,150,080). `layer_norm` ran at every width tried (to 65,536 f32 and 98,304 bf16), as in "
    "ttnn 0.81.1.",
    "* Held-out families: `jnp.take` and `take_along_axis` (the embedding and gather families) compile to "
    "`ttnn.rows_gather`, an op of the plugin's own build (libtt's `ttnn::experimental::prim::RowsGatherOperation`, "
    "`ttnn/operations/experimental/indexed_rows`), absent from tt-mlir's dialect at 19c86fca and from ttnn 0.81.1: "
    "check reports it as not modeled (TTA008, TTA011 info) rather than guess; its kernels move a row in chunks through "
    "a dataflow buffer: a gather of rows of 162,528 bf16 (325,056 B) ran, and one of 2,912 columns of rows of "
    "652,256 bf16 (its `column` mode). The `tenstorrent.group_norm` "
    "composite on (n, 1, hw, c) was decomposed into means, subtracts and rsqrt (no `ttnn.group_norm`). The top-k "
    "head nearest its boundary, k = 3,112 of 16,128, ran with 1,228,800 B of CBs per core predicted (167 KB under "
    "the 1,395,584 B CB region). Both `pool_net` programs (max pool, then an average pool written as a window sum "
    "divided by 4 in bf16) crashed the compiler before TTNN IR (\"ElementsAttr does not provide iteration facilities "
    "for type `APInt`, see attribute: dense<4.000000e+00> : tensor<bf16>\", the process aborted): not scored. At level 1 "
    "the 28 held-out programs that compile (the two `pool_net` ones left out) all ran, as at level 0: none of these "
    "draws reached a refusal, hence the wide draws below.",
]


def classify(res: dict) -> str:
    """The class of one program's outcome: ``ran``, ``memory/...``, ``validation``,
    ``other/...`` or ``compile_failed`` (no program to run)."""
    if res.get("crashed"):
        # exit 124: run.py's time box (`timeout`) ended the chunk inside this case (a level-2 compile building
        # its kernels on the shared host), not a verdict of tt-metal
        return "other/timeout" if res.get("exit_code") == 124 else "other/crashed"
    if res.get("compile_ok") is False:
        return "compile_failed"
    if res.get("run_ok"):
        return "ran"
    text = res.get("run_error") or ""
    for name, pat in CLASSES:
        if re.search(pat, text, re.S):
            if name == "other/unsupported" and "TT_FATAL" in text and "not linked" not in text:
                return "validation"
            return name
    return "other/runtime"


def short_error(text: str | None) -> str:
    """tt-metal's message without the backtrace: the ``info:`` line(s), else the first line."""
    if not text:
        return ""
    m = re.search(r"info:\n(.*?)(\nbacktrace:|$)", text, re.S)
    msg = (m.group(1) if m else text).strip().splitlines()
    return " ".join(s.strip() for s in msg[:3])[:400]


def repo_relative_locations(ir: bytes) -> bytes:
    """The IR with the checkout's absolute path taken out of its ``loc("...")`` source locations.

    jax records where each traced op was written (``benchmarks/programs/families.py``); the fixture keeps
    that path relative to the repository, so nothing committed names the machine it was compiled on.
    """
    return ir.replace(f'loc("{ROOT}/'.encode(), b'loc("')


def collect(out: Path) -> None:
    """Copy raw campaign results (``run.py``'s ``--out``) into ``fixtures/real/programs``."""
    for d in sorted(p for p in out.iterdir() if p.is_dir()):
        rj = d / "result.json"
        if not rj.exists():
            continue
        res = json.loads(rj.read_text())
        dest = FIXTURES / res["case"]
        dest.mkdir(parents=True, exist_ok=True)
        ir = d / "ttnn.mlir"
        for old in ("ttnn.mlir", "ttnn.mlir.gz"):
            (dest / old).unlink(missing_ok=True)
        if ir.exists():
            data = repo_relative_locations(ir.read_bytes())
            if len(data) < MAX_PLAIN:
                (dest / "ttnn.mlir").write_bytes(data)
            else:
                (dest / "ttnn.mlir.gz").write_bytes(gzip.compress(data, mtime=0))
        case = {k: res.get(k) for k in ("case", "family", "params", "opt", "inputs", "compile_options", "compile_ok",
                                         "compile_seconds", "run_ok", "run_seconds")}
        case["compile_error"] = short_error(res.get("compile_error"))
        case["run_error"] = short_error(res.get("run_error"))
        case["outcome"] = classify(res)
        case["toolchain"] = TOOLCHAIN
        (dest / "case.json").write_text(json.dumps(case, indent=1) + "\n")


def _ir_path(d: Path, tmp: Path) -> Path | None:
    if (d / "ttnn.mlir").exists():
        return d / "ttnn.mlir"
    if (d / "ttnn.mlir.gz").exists():
        p = tmp / d.name / "ttnn.mlir"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(gzip.decompress((d / "ttnn.mlir.gz").read_bytes()))
        return p
    return None


def verdict(path: Path) -> dict:
    """``ttanalyze check --fail-on error --format json --no-fixes --tt-metal 614f605f`` on ``path``, in process."""
    from typer.testing import CliRunner

    from ttanalyze.cli import app

    r = CliRunner().invoke(app, ["check", str(path), "--fail-on", "error", "--format", "json", "--no-fixes",
                                 "--tt-metal", TT_METAL])
    findings = []
    try:
        doc = json.loads(r.stdout)
        findings = [{"rule": f["rule"], "severity": f["severity"], "line": f["line"], "message": f["message"][:300]}
                    for f in doc["files"][0]["findings"] if f["severity"] in ("error", "warning")
                    and f["rule"] in ("TTA004", "TTA005", "TTA010", "TTA013", "TTA017", "TTA018", "TTA019")
                    or f["severity"] == "error"]
    except (json.JSONDecodeError, KeyError, IndexError):
        pass
    return {"exit": r.exit_code, "findings": findings}


def score(outcome: str, exit_code: int) -> str | None:
    refused = outcome.startswith("memory/") or outcome == "validation"
    if outcome == "ran":
        return "false_alarm" if exit_code == 1 else "true_pass" if exit_code == 0 else "analyzer_error"
    if refused:
        return "true_alarm" if exit_code == 1 else "miss" if exit_code == 0 else "analyzer_error"
    return None


def evaluate() -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as t:
        for d in sorted(p for p in FIXTURES.iterdir() if (p / "case.json").exists()):
            case = json.loads((d / "case.json").read_text())
            ir = _ir_path(d, Path(t))
            row = {"case": case["case"], "family": case["family"], "opt": case["opt"], "outcome": case["outcome"],
                   "error": case["run_error"] or case["compile_error"],
                   "fixture": str(d.relative_to(ROOT)) if ir else None}
            if ir is not None:
                v = verdict(ir)
                row.update(check_exit=v["exit"], findings=v["findings"], score=score(case["outcome"], v["exit"]))
            else:
                row.update(check_exit=None, findings=[], score=None)
            rows.append(row)
    return rows


def render(rows: list[dict], seconds: float) -> str:
    fams = sorted({r["family"] for r in rows})
    cells = ("true_alarm", "false_alarm", "miss", "true_pass")
    per = {f: Counter(r["score"] for r in rows if r["family"] == f) for f in fams}
    tot = Counter(r["score"] for r in rows)
    refused = tot["true_alarm"] + tot["miss"]
    outs = Counter(r["outcome"] for r in rows)
    lines = [
        "## Whole programs: the real compiler and runtime vs `ttanalyze check --fail-on error`", "",
        "Each program is checked as `ttanalyze check --fail-on error --tt-metal 614f605f` (the build it ran on; "
        "it differs from the default 0.81.1 in the row-major concat entry and in rms_norm, which its runtime runs width-sharded).", "",
        f"Scored {time.strftime('%Y-%m-%d')} with `.venv/bin/python benchmarks/programs/outcomes.py` "
        f"({seconds / 60:.1f} min, from the committed fixtures; the programs are compiled and run by "
        "`.venv/bin/python benchmarks/programs/run.py`, which needs `scripts/setup-compiler.sh`). "
        f"{len(rows)} programs (`benchmarks/programs/families.py`: real model pieces at optimization levels 0, 1 "
        f"and 2, sized around each family's memory boundary), compiled by {TOOLCHAIN}; each program's TTNN IR is "
        "in `fixtures/real/programs/<case>/` with its outcome in `case.json`.", "",
        f"The generator defines {len(families.cases())} programs; {len(rows)} were compiled and run so far "
        "(`run.py` resumes with the rest, skipping programs with a committed verdict; a program takes 30 s to several "
        "minutes on the shared 2-core host, level-2 compiles the longest). To reproduce: `.venv/bin/python "
        "benchmarks/programs/run.py --stage run --chunk-seconds 1` (one program per hold of the mock-device lock; "
        "`--only SUBSTR` for some), then `.venv/bin/python benchmarks/programs/outcomes.py --out "
        "benchmarks/out/programs` (copies the results into the fixtures and rescores).", "",
        "Outcomes on the device: " + ", ".join(f"{k} {v}" for k, v in sorted(outs.items())) + ".", "",
        f"**{tot['false_alarm']} false alarms** (program ran, check reports an error) among "
        f"{tot['false_alarm'] + tot['true_pass']} programs that ran; **{tot['miss']} misses** among {refused} memory/"
        f"validation refusals ({100 * tot['miss'] / refused if refused else 0:.1f}%). Targets: 0 false alarms, "
        "<= 2% misses.", "",
        "| family | programs | true alarm | false alarm | miss | true pass | not scored |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in fams:
        c = per[f]
        n = sum(1 for r in rows if r["family"] == f)
        name = f"{f} (held-out)" if f in families.HELD_OUT else f"{f} (held-out, wide)" if f in families.HELD_OUT_WIDE else f
        lines.append(f"| {name} | {n} | " + " | ".join(str(c[k]) for k in cells) + f" | {c[None]} |")
    lines.append(f"| **all** | {len(rows)} | " + " | ".join(f"**{tot[k]}**" for k in cells) + f" | {tot[None]} |")
    for group, what in ((families.HELD_OUT, "Held-out families (marked above; `families.HELD_OUT`, written after the "
                         "models, their sizes drawn with a seed per family from ranges around each family's memory "
                         "boundary, levels 0 and 1)"),
                        (families.HELD_OUT_WIDE, "Held-out wide draws (marked above; `families.HELD_OUT_WIDE`, written "
                         "after the first held-out runs, their sizes drawn with a seed per family on both sides of a "
                         "refusal boundary computed from tt-metal's rule, each draw function citing it; levels 0 and 1)")):
        held = [r for r in rows if r["family"] in group]
        if not held:
            continue
        h = Counter(r["score"] for r in held)
        ho = Counter(r["outcome"] for r in held)
        lines += ["", f"{what}: {len(held)} of {sum(1 for c in families.cases() if c.family in group)} programs run; "
                  "outcomes " + ", ".join(f"{k} {v}" for k, v in sorted(ho.items())) + f"; {h['false_alarm']} false "
                  f"alarms among {h['false_alarm'] + h['true_pass']} that ran, {h['miss']} misses among "
                  f"{h['true_alarm'] + h['miss']} refusals."]
    lines += ["", "How the campaign runs, and what it found about the stack:", "", *NOTES]
    bad = [r for r in rows if r["score"] in ("false_alarm", "miss", "analyzer_error")]
    lines += ["", "### Every false alarm and miss", ""]
    if not bad:
        lines.append("None.")
    for r in bad:
        rules = ", ".join(sorted({f"{f['rule']} {f['severity']} (line {f['line']})" for f in r["findings"]})) or "no finding"
        lines.append(f"* `{r['case']}` ({r['score'].replace('_', ' ')}): device: {r['outcome']}"
                     + (f" ({r['error'][:220]})" if r["error"] else "") + f"; check: {rules}.")
    unscored = [r for r in rows if r["score"] is None]
    if unscored:
        lines += ["", "Not scored (no TTNN IR, or a failure that is neither memory nor validation):", ""]
        for r in unscored:
            lines.append(f"* `{r['case']}`: {r['outcome']}" + (f" ({r['error'][:200]})" if r["error"] else ""))
    return "\n".join(lines) + "\n"


def write_doc(section: str) -> None:
    text = DOC.read_text()
    begin, end = "<!-- programs:begin -->", "<!-- programs:end -->"
    block = f"{begin}\n{section}{end}"
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, action="append", default=[],
                    help="raw results of run.py to copy into the fixtures first (repeatable: one per shard)")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    raw = {}
    for out in a.out:
        collect(out)
        raw.update({p.parent.name: json.loads(p.read_text()) for p in out.glob("*/result.json")})
    if raw:  # the worker's records, full error texts included
        old = {}
        if RAW.exists():
            old = {r["case"]: r for r in map(json.loads, gzip.decompress(RAW.read_bytes()).decode().splitlines())}
        old.update(raw)
        text = "".join(json.dumps(old[k], sort_keys=True) + "\n" for k in sorted(old))
        RAW.write_bytes(gzip.compress(text.encode(), mtime=0))
    t = time.time()
    rows = evaluate()
    OUTCOMES.write_text(json.dumps(rows, indent=1) + "\n")
    write_doc(render(rows, time.time() - t))
    c = Counter(r["score"] for r in rows)
    print(f"outcomes: {len(rows)} programs: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items(), key=str)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
