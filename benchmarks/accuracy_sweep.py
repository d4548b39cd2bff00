"""Circular-buffer accuracy: ttanalyze's models against tt-metal on the mock device.

For every instance of benchmarks/sweep_instances.py: parse and analyze the module,
replay the op on the companion executor (ttnn 0.81.1 on a mock Blackhole P150,
NO_DISPATCH graph capture, the program's live L1 tensors allocated first), and
compare the per-core peak of program-scope L1 (static CBs/DFBs plus kernel
scratchpads, core ranges honoured, max over the op's programs) with the model's.
The model runs with the measured device's parameters
(:data:`ttanalyze.arch.MOCK_P150_TTNN_0_81_1`) and with the free L1 the device
saw: a NO_DISPATCH capture does not allocate the op's outputs, so the model is
given the free L1 before the outputs (its usual input counts them as live).

Writes docs/accuracy.md (its fixture-sweep section) and benchmarks/out/accuracy.json; the
random op-level campaign is benchmarks/opdiff.py (the cb-sweep section).
Known causes of mismatches come from benchmarks/accuracy_causes.yaml.

Usage: .venv/bin/python benchmarks/accuracy_sweep.py [--only PREFIX] [--limit N]
Needs the executor (scripts/setup-executor.sh); run under
``scripts/device-lock`` on a shared machine.
"""

from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.sweep_instances import NOT_REPLAYED, Instance, all_instances  # noqa: E402
from ttanalyze.analysis import analyze  # noqa: E402
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK  # noqa: E402
from ttanalyze.executor import client  # noqa: E402
from ttanalyze.executor.cbcheck import AGREE, compare_cbs, outcome  # noqa: E402
from ttanalyze.ir.parse import parse_text  # noqa: E402
from ttanalyze.ops import spec_model  # noqa: E402
from ttanalyze.programs import context_for  # noqa: E402

CAUSES = ROOT / "benchmarks" / "accuracy_causes.yaml"
OUT_JSON = ROOT / "benchmarks" / "out" / "accuracy.json"
DOC = ROOT / "docs" / "accuracy.md"
BEGIN, END = "<!-- fixture-sweep:begin -->", "<!-- fixture-sweep:end -->"


def _causes() -> list[tuple[str, str]]:
    data = yaml.safe_load(CAUSES.read_text()) if CAUSES.exists() else {}
    return list((data or {}).items())


def cause_of(instance_id: str, causes: list[tuple[str, str]]) -> str:
    for pattern, cause in causes:
        if fnmatch.fnmatchcase(instance_id, pattern):
            return cause
    return ""


def run_instance(ex: client.Executor, inst: Instance) -> dict:
    """Model and replay one instance; the record written to accuracy.json."""
    rec: dict = {"id": inst.id, "family": inst.family}
    a = analyze(parse_text(inst.text, inst.path))
    op = next(o for o in a.program.ops if o.pos.line == inst.line)
    rec["op"] = op.name
    t0 = time.perf_counter()
    dev = ex.replay(op, a)
    rec["replay_seconds"] = round(time.perf_counter() - t0, 3)
    rec["device"] = {"ok": dev.ok, "error": (dev.error or "")[:400], "unsupported": dev.unsupported,
                     "crashed": dev.crashed, "peak": dev.cb_per_core_peak,
                     "cbs": sorted(c.size for c in dev.cbs if not c.borrowed),
                     "l1_allocated_per_bank": dev.l1_allocated_per_bank}
    cmp = compare_cbs(a, op, dev, arch=MOCK)
    verdict = cmp.verdict
    rec["model"] = {"status": verdict.status, "reason": verdict.reason[:400], "peak": cmp.model_peak,
                    "cbs": sorted(c.bytes for p in verdict.stages for c in p.static_cbs),
                    "factories": [p.factory for p in verdict.stages]}
    rec["cbs_equal"] = cmp.cbs_equal
    rec["outcome"] = classify(rec)
    spec_fn = spec_model(op.name)
    if spec_fn is not None and dev.ok and dev.outputs:
        try:
            specs = spec_fn(context_for(a, op, arch=MOCK, free_l1=cmp.free_l1))
        except Exception as exc:  # noqa: BLE001 - a model gap is recorded, not fatal
            rec["spec"] = {"match": False, "error": str(exc)[:200]}
        else:
            want, got = dev.outputs[0], specs[0] if specs else None
            keys = ("shape", "padded_shape", "layout", "dtype", "buffer_type", "memory_layout")
            diffs = [k for k in keys if got is None or tuple(_v(getattr(want, k))) != tuple(_v(getattr(got, k)))]
            rec["spec"] = {"match": not diffs, "differences": diffs}
    return rec


def _v(x):
    return x if isinstance(x, tuple) else (x,)


def classify(rec: dict) -> str:
    """``exact``, ``both_refused``, ``no_program`` (agreements) or the kind of mismatch
    (:func:`ttanalyze.executor.cbcheck.outcome`)."""
    d, m = rec["device"], rec["model"]
    return outcome(d["ok"], d["unsupported"], d["crashed"], d["peak"], m["status"], m["peak"])


def report(records: list[dict], info: dict, seconds: float) -> str:
    causes = _causes()
    measured = [r for r in records if r["outcome"] != "not_replayed"]
    agree = [r for r in measured if r["outcome"] in AGREE]
    fams: dict[str, Counter] = defaultdict(Counter)
    for r in records:
        fams[r["family"]]["instances"] += 1
        fams[r["family"]]["measured"] += r["outcome"] != "not_replayed"
        fams[r["family"]]["agree"] += r["outcome"] in AGREE
    fixture = [r for r in measured if r["id"].startswith("fixture:")]
    lines = [BEGIN, "## Circular buffers of the fixtures' ops and the hand-picked instances: model vs tt-metal", "",
             f"Swept {datetime.date.today().isoformat()} with `.venv/bin/python benchmarks/accuracy_sweep.py` "
             f"({seconds / 60:.1f} min). Device: {info.get('device_text', '')}; ttnn {info.get('ttnn_version', '?')} "
             f"(tt-metal {info.get('tt_metal_sha', '?')[:8]}). The model runs with that device's parameters "
             "(`MOCK_P150_TTNN_0_81_1`: L1 base 111,744, bank 1,461,120 B) and the free L1 the capture saw.",
             "",
             f"**{len(agree)} of {len(measured)} measured instances agree exactly ({100 * len(agree) / max(len(measured), 1):.1f}%)**: "
             "the same per-core peak of program-scope L1 (static CBs/DFBs plus kernel scratchpads, on the busiest core, "
             "max over the op's programs) to the byte, or both refuse the op, or both run no program. "
             f"Fixture ops: {sum(r['outcome'] in AGREE for r in fixture)} of {len(fixture)}. "
             f"{len(records) - len(measured)} instances could not be replayed (listed with the mismatches). Fixture ops that run "
             "no device program of their own are not instances: "
             + "; ".join(f"`{name}` ({why})" for name, why in NOT_REPLAYED.items()) + ".", "",
             "| family | instances | measured | agree |", "|---|---|---|---|"]
    for fam in sorted(fams):
        c = fams[fam]
        lines.append(f"| {fam} | {c['instances']} | {c['measured']} | {c['agree']} |")
    compared = [r for r in records if r.get("cbs_equal") is not None]
    if compared:
        lines += ["", f"Circular buffers one by one (each static CB's size on the same set of cores, the peak program "
                      f"when the model has fewer programs than the device ran): "
                      f"{sum(bool(r['cbs_equal']) for r in compared)} of {len(compared)} instances where both "
                      "built programs have the same CBs."]
    spec = [r for r in records if "spec" in r]
    if spec:
        lines += ["", f"Output specs (shape, padded shape, layout, dtype, buffer type, memory layout) of ops with an "
                      f"output model: {sum(r['spec']['match'] for r in spec)} of {len(spec)} match tt-metal's."]
    mismatches = [r for r in records if r["outcome"] not in AGREE]
    lines += ["", "### Every mismatch", ""]
    if mismatches:
        lines += ["| instance | outcome | model | device | cause |", "|---|---|---|---|---|"]
    else:
        lines.append("None: every instance agrees.")
    for r in mismatches:
        m, d = r["model"], r["device"]
        model = f"{m['status']} {m['peak']:,} B" + (f": {m['reason'][:100]}" if m["reason"] else "")
        device = (f"{d['peak']:,} B" if d["ok"] else f"error: {d['error'][:100]}").replace("|", "/")
        cause = cause_of(r["id"], causes) or "not yet determined"
        lines.append(f"| `{r['id']}` | {r['outcome']} | {model.replace('|', '/')} | {device} | {cause} |")
    bad_spec = [r for r in spec if not r["spec"]["match"]]
    if bad_spec:
        lines += ["", "Output-spec mismatches:", ""]
        for r in bad_spec:
            lines.append(f"- `{r['id']}`: {', '.join(r['spec'].get('differences', [])) or r['spec'].get('error', '')}"
                         + (f" ({cause_of(r['id'] + '#spec', causes)})" if cause_of(r['id'] + '#spec', causes) else ""))
    lines.append(END)
    return "\n".join(lines)


def write_doc(section: str) -> None:
    text = DOC.read_text() if DOC.exists() else "# Accuracy\n\n"
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1] if END in rest else ""
        text = head + section + tail
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    DOC.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="run only instance ids starting with this prefix")
    ap.add_argument("--limit", type=int, help="run at most N instances")
    ap.add_argument("--no-doc", action="store_true", help="do not rewrite docs/accuracy.md")
    args = ap.parse_args()
    ok, why = client.available()
    if not ok:
        raise SystemExit(f"executor not available: {why}")
    instances = [i for i in all_instances() if not args.only or i.id.startswith(args.only)][: args.limit]
    start = time.perf_counter()
    records = []
    with client.Executor() as ex:
        info = ex.info()
        dev = info.get("device", {})
        info["device_text"] = (f"{'mock ' if dev.get('mock') else ''}{dev.get('arch', '?')} "
                               f"grid {dev.get('grid')} L1 {dev.get('l1_size')} base {dev.get('l1_base')}")
        for n, inst in enumerate(instances, 1):
            rec = run_instance(ex, inst)
            records.append(rec)
            if rec["outcome"] not in AGREE:
                print(f"[{n}/{len(instances)}] {rec['outcome']}: {inst.id} model {rec['model']['peak']} "
                      f"device {rec['device']['peak']} {rec['device']['error'][:80]}", flush=True)
    seconds = time.perf_counter() - start
    OUT_JSON.parent.mkdir(exist_ok=True)
    OUT_JSON.write_text(json.dumps({"info": info, "records": records}, indent=1))
    section = report(records, info, seconds)
    if not args.no_doc:
        write_doc(section)
    print(next(line for line in section.splitlines() if "measured instances agree" in line))


if __name__ == "__main__":
    main()
