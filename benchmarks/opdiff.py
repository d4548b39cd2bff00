"""Op-level differential campaign: ttanalyze's per-op models against tt-metal, field by field.

Every instance of :mod:`benchmarks.opdiff_instances` (random single-op modules, one
generator per op with a CB model) is analyzed, replayed on the companion executor
(ttnn 0.81.1 on the mock Blackhole P150, NO_DISPATCH graph capture, the way tt-mlir's
runtime calls the op: :mod:`ttanalyze.executor.ttnn_worker`), and compared with the
model (:mod:`ttanalyze.executor.cbcheck`, on the device's own parameters and the free L1
it saw).  The model's verdict is the analyzer's: a modeled program whose CB region TTA010
refuses (beyond ``l1_size``, or above the lowest L1 buffer the replay allocated) counts as
a refusal (:func:`ttanalyze.executor.cbcheck.l1_refusal`):

* ``peak``: per-core program-scope L1 (static CBs/DFBs plus kernel scratchpads on the
  busiest core, max over the op's programs) equal to the byte; or both refuse (tt-metal's
  message is recorded); or both run no program;
* ``cbs``: every static CB's size on the same set of cores (:class:`CBComparison.cbs_equal`);
* ``l1`` (informational, not part of *exact*): the L1 buffers the op allocates for
  intermediates (freed before it returns), summed per bank, against the model's largest
  ``l1_buffers_per_core`` (which counts only those held while one program runs);
* ``refusal_end`` (informational): when both refuse the CB region, tt-metal's "grow to X B"
  equal to TTA010's;
* ``spec``: each output's shape, padded shape, layout, dtype, buffer type, memory layout
  and shard shape against the model's output spec (the declared result type for ops
  without an output model).

An instance is *exact* when the peak and the CBs agree; the output spec is
scored beside it.  Results go to ``measurements/opdiff/results.jsonl.gz`` (one JSON record
per instance, appended chunk by chunk as gzip members, keyed by ``id``); a rerun skips
the ids already there.  The device lock is taken per chunk, not for the whole campaign.

Usage::

    .venv/bin/python benchmarks/opdiff.py run --base 60 [--lock [FILE]] [--real-kernels]
    .venv/bin/python benchmarks/opdiff.py rescore   # the current model against the stored device results
    .venv/bin/python benchmarks/opdiff.py report    # rewrites the cb-sweep section of docs/accuracy.md
    .venv/bin/python benchmarks/opdiff.py report --results-only RUNS [--write]  # one runs file's draws alone
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import gzip
import hashlib
import json
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.opdiff_instances import GENERATOR, WEIGHT, generators, instance, instances  # noqa: E402
from ttanalyze.executor.protocol import DEVICE_LOCK  # noqa: E402

RESULTS = ROOT / "measurements" / "opdiff" / "results.jsonl.gz"
# Held while the results file is appended to or rewritten (``run`` and ``rescore`` may overlap); one lock per
# checkout, so that the campaigns of separate clones on one machine do not wait for each other.
RESULTS_LOCK = Path(tempfile.gettempdir()) / f"ttanalyze-opdiff-results-{hashlib.sha1(str(ROOT).encode()).hexdigest()[:12]}.lock"
SPEC_KEYS = ("shape", "padded_shape", "layout", "dtype", "buffer_type", "memory_layout", "shard_shape")


def load_results(path: Path = RESULTS) -> dict[str, dict]:
    """Records by id (the last one wins when an id was measured twice)."""
    out: dict[str, dict] = {}
    if not path.exists():
        return out
    with gzip.open(path, "rt") as f:
        for line in f:
            if line.strip():
                rec = json.loads(line)
                out[rec["id"]] = rec
    return out


def _family(op: str) -> str:
    from ttanalyze import ops as O

    if op in ("ttnn.tilize", "ttnn.untilize"):
        return "layout_conversion"
    m = O.lookup(op)
    return m.family if m else "unmodeled"


def _ranges(crs) -> list[list[int]]:
    return [[r.start.x, r.start.y, r.end.x, r.end.y] for r in crs.ranges]


def _spec(s) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in ((k, getattr(s, k, None)) for k in SPEC_KEYS)}


def model_specs(a, op, arch, free_l1) -> list[dict] | None:
    """The model's output specs: its output model, else the declared result types."""
    from ttanalyze.ops import spec_model
    from ttanalyze.ops.cb import CBModelError
    from ttanalyze.ops.spec import declared_spec
    from ttanalyze.programs import context_for

    fn = spec_model(op.name)
    if fn is not None:
        try:
            return [_spec(s) for s in fn(context_for(a, op, arch=arch, free_l1=free_l1))]
        except CBModelError:
            return None
    out = []
    for v in op.results:
        info = a.infos.get(v)
        lay = getattr(v.type, "layout", None)
        if info is None or lay is None:
            return None
        shard = None
        if lay.is_sharded:
            shard = tuple(lay.memref_shape)
            if info.layout == "tile":
                shard = (shard[0] * 32, shard[1] * 32)
        out.append(_spec(declared_spec(info, lay.buffer_type, lay.memory_layout, shard)))
    return out


def prepare(op_name: str, i: int, gens) -> dict:
    """Generate and analyze one instance: ``{"inst", "analysis", "op", "error"}``."""
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_text

    inst = instance(op_name, i, gens[op_name])
    try:
        a = analyze(parse_text(inst.text, f"{inst.id}.mlir"))
        op = next(o for o in a.program.ops if o.pos.line == inst.line)
        return {"inst": inst, "analysis": a, "op": op, "error": None}
    except Exception as exc:  # noqa: BLE001 - an analyzer crash is a finding of the campaign
        return {"inst": inst, "analysis": None, "op": None, "error": f"{type(exc).__name__}: {exc}"[:400]}


def compare(p: dict, dev) -> dict:
    """The record of one instance (see the module docstring)."""
    from ttanalyze.executor.cbcheck import AGREE, compare_cbs, device_arch

    inst = p["inst"]
    rec: dict = {"id": inst.id, "op": inst.op, "family": _family(inst.op), "key": inst.key}
    resp = dev.response if dev is not None else {}
    d = {"ok": dev.ok, "error": (dev.error or "")[:300], "unsupported": dev.unsupported, "crashed": dev.crashed,
         "peak": dev.cb_per_core_peak,
         "cbs": [[c.size, c.kind, _ranges(c.cores), c.program] for c in dev.cbs if not c.borrowed],
         "factories": sorted({f"{c.op}:{c.factory}" if c.factory else str(c.op) for c in dev.cbs}),
         "l1": [[b["per_bank"], b["freed"]] for b in resp.get("l1_buffers") or []],
         "l1_before": dev.l1_allocated_per_bank, "l1_peak": dev.l1_buffers_peak_per_bank,
         "outputs": [_spec(s) for s in dev.outputs]}
    rec["device"] = d
    if not dev.ok and "incompatible function arguments" in (dev.error or ""):
        rec["outcome"] = "not_replayed"  # the executor called ttnn with arguments it rejects: a worker gap
        return rec
    if not dev.ok and dev.l1_allocated_per_bank is None and not dev.unsupported and not dev.crashed:
        rec["outcome"] = "invalid"  # the operands could not be allocated: not an instance of the op
        return rec
    if p["error"] is not None:
        rec["model"] = {"status": "crashed", "reason": p["error"]}
        rec["outcome"] = "not_replayed" if dev.unsupported else "model_crashed"
        return rec
    a, op = p["analysis"], p["op"]
    arch = device_arch(dev.device)
    try:
        cmp = compare_cbs(a, op, dev, arch=arch)
    except Exception as exc:  # noqa: BLE001
        rec["model"] = {"status": "crashed", "reason": f"{type(exc).__name__}: {exc}"[:400]}
        rec["outcome"] = "not_replayed" if dev.unsupported else "model_crashed"
        return rec
    v = cmp.verdict
    stages = v.stages
    m = {"status": v.status, "reason": v.reason[:300], "peak": cmp.model_peak,
         "cbs": [[c.bytes, _ranges(c.cores), k] for k, s in enumerate(stages) for c in s.static_cbs],
         "l1_buffers": max((s.l1_buffers_per_core for s in stages), default=0),
         "factories": [s.factory for s in stages], "free_l1": cmp.free_l1}
    if cmp.refusal:
        m["refusal"] = cmp.refusal  # the analyzer refuses the modeled program (TTA010): scored as its refusal
    try:
        m["outputs"] = model_specs(a, op, arch, cmp.free_l1)
    except Exception as exc:  # noqa: BLE001
        m["outputs"] = None
        m["spec_error"] = f"{type(exc).__name__}: {exc}"[:200]
    rec["model"] = m
    rec["outcome"] = cmp.outcome
    checks: dict = {"peak": cmp.outcome in AGREE, "cbs": cmp.cbs_equal}
    if dev.ok and v.status == "modeled":
        inter = max((sum(b["per_bank"] for b in (resp.get("l1_buffers") or []) if b["freed"]),), default=0)
        checks["l1"] = inter == m["l1_buffers"]
        rec["device"]["l1_intermediate"] = inter
    if dev.ok and dev.outputs and m.get("outputs"):
        got, want = m["outputs"], d["outputs"]
        diffs = sorted({k for g, w in zip(got, want) for k in SPEC_KEYS
                        if (g.get(k) != w.get(k)) and not (k == "shard_shape" and (g.get(k) is None or w.get(k) is None))})
        if len(got) < len(want):
            diffs.append("count")
        checks["spec"] = not diffs
        if diffs:
            checks["spec_diff"] = diffs
    if cmp.refusal and not dev.ok:
        # both refuse the CB region: tt-metal's "grow to X B" against TTA010's (informational)
        got, want = (re.search(r"grow to (\d+) B", text) for text in (cmp.refusal, dev.error or ""))
        if got and want:
            checks["refusal_end"] = got.group(1) == want.group(1)
    rec["checks"] = checks
    rec["exact"] = bool(checks["peak"] and checks["cbs"] is not False)
    return rec


def device_from_record(d: dict):
    """The :class:`~ttanalyze.executor.client.DeviceResult` a record's ``device`` part was made from
    (borrowed CBs left out: they take no L1 and no comparison reads them)."""
    from ttanalyze.executor.client import DeviceResult

    resp = {"ok": d["ok"], "error": d["error"], "unsupported": d["unsupported"], "crashed": d["crashed"],
            "cb_per_core_peak": d["peak"],
            "cbs": [{"size": s, "kind": k, "core_ranges": r, "program": prog} for s, k, r, prog in d["cbs"]],
            "l1_buffers": [{"size": b, "per_bank": b, "freed": f} for b, f in d["l1"]],
            "l1_allocated_per_bank": d["l1_before"], "l1_buffers_peak_per_bank": d.get("l1_peak", 0),
            "outputs": [{**o, "shard": {"shape": o["shard_shape"]} if o.get("shard_shape") else None}
                        for o in d["outputs"]]}
    return DeviceResult.from_response(resp)


def rescore(args) -> None:
    """Compare every stored device result with the current model (no device needed) and rewrite the file."""
    with device_lock(str(RESULTS_LOCK)):
        _rescore(args)


def rescore_records(recs, only: str | None = None) -> list[dict]:
    """``recs`` scored again by the current model on their stored device parts (no device needed); records not
    replayed or invalid, and those of ops not starting with one of ``only``'s comma-separated prefixes, are kept
    as they are."""
    gens = generators()
    out = []
    for rec in recs:
        op, i = rec["op"], int(rec["id"].rsplit("/", 1)[1])
        if rec["outcome"] in ("invalid", "not_replayed") or (only and not op.startswith(tuple(only.split(",")))):
            out.append(rec)
            continue
        new = compare(prepare(op, i, gens), device_from_record(rec["device"]))
        new["device"] = rec["device"] | {k: v for k, v in new["device"].items() if k == "l1_intermediate"}
        new |= {k: rec[k] for k in ("seconds", "build") if k in rec}  # how the device part was measured
        out.append(new)
    return out


def _rescore(args) -> None:
    out = rescore_records(list(load_results().values()), args.only)
    tmp = RESULTS.with_suffix(".tmp")
    with gzip.open(tmp, "wt") as f:
        for r in out:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
    tmp.replace(RESULTS)
    print(f"rescored {len(out)} records; {sum(bool(r.get('exact')) for r in out)} exact")


@contextlib.contextmanager
def device_lock(path: str | None):
    """Hold ``flock`` on ``path`` (no lock when None): the device lock, or the results file's."""
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def merge(args) -> None:
    """Add the records of ``args.path`` whose ids the committed results lack (or hold as not replayed)."""
    with device_lock(str(RESULTS_LOCK)):
        recs = load_results()
        new = load_results(Path(args.path))
        added = {k: r for k, r in new.items() if k not in recs or
                 (recs[k]["outcome"] == "not_replayed" and r["outcome"] != "not_replayed")}
        recs |= added
        tmp = RESULTS.with_suffix(".tmp")
        with gzip.open(tmp, "wt") as f:
            for r in recs.values():
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        tmp.replace(RESULTS)
    print(f"merged {len(added)} records; {len(recs)} in all")


def interleaved(todo: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """``(op, i)`` pairs ordered by each one's rank among its op's pairs over the op's WEIGHT, so every chunk (and a
    partial campaign) covers every op in proportion, also when earlier campaigns measured some ops further."""
    rank: dict[str, int] = {}
    order = []
    for op, i in todo:
        rank[op] = rank.get(op, -1) + 1
        order.append((rank[op] / WEIGHT.get(op, 1), op, i))
    return [(op, i) for _, op, i in sorted(order)]


def run(args) -> None:
    from ttanalyze.executor import client
    from ttanalyze.executor.client import DeviceResult

    ok, why = client.available()
    if not ok:
        raise SystemExit(f"executor not available: {why}")
    env: dict[str, str] = {}
    if not args.real_kernels:
        from ttanalyze.executor.stub_toolchain import stub_env

        env = stub_env(client.ttnn_dir(), Path(args.stub_cache))
    # an instance that was not replayed (the analyzer crashed, or the executor could not translate it) is
    # retried: either may be fixed since
    out = Path(args.results) if args.results else RESULTS
    done = {k for path in {RESULTS, out} for k, r in load_results(path).items() if r["outcome"] != "not_replayed"}
    todo = [(op, i) for op, i in instances(args.base, args.only) if f"{GENERATOR}/{op}/{i}" not in done]
    todo = interleaved(todo)
    print(f"{len(done)} done, {len(todo)} to run", flush=True)
    gens = generators()
    out.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    n_chunk = 0
    while todo:
        if args.max_minutes and time.monotonic() - start > 60 * args.max_minutes:
            print("time budget reached", flush=True)
            break
        chunk = [prepare(op, i, gens) for op, i in todo[:args.chunk]]
        devs = []
        # the lock is held for at most --hold seconds (then the rest of the chunk waits for the next turn)
        with device_lock(args.lock), client.Executor(timeout=args.timeout, env=env) as ex:
            t0 = time.monotonic()
            for p in chunk:
                if devs and time.monotonic() - t0 > args.hold:
                    break
                if p["op"] is None:
                    devs.append(DeviceResult(ok=False, error="not replayed: the analyzer failed", unsupported=True))
                    continue
                try:
                    t1 = time.monotonic()
                    devs.append(ex.replay(p["op"], p["analysis"]))
                    p["seconds"] = round(time.monotonic() - t1, 3)
                except Exception as exc:  # noqa: BLE001 - a request the client cannot build
                    devs.append(DeviceResult(ok=False, error=f"unsupported: {exc}", unsupported=True))
        dt = time.monotonic() - t0
        todo = todo[len(devs):]
        build = "real" if args.real_kernels else "stub"
        recs = [compare(p, dev) | {"seconds": p.get("seconds"), "build": build} for p, dev in zip(chunk, devs)]
        with device_lock(str(RESULTS_LOCK)), gzip.open(out, "at") as f:
            for r in recs:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        n_chunk += 1
        bad = sum(1 for r in recs if r["outcome"] not in ("invalid", "not_replayed") and not r.get("exact"))
        print(f"chunk {n_chunk}: {len(recs)} instances, device {dt:.0f} s, {bad} not exact, {len(todo)} left",
              flush=True)
        if args.pause:
            time.sleep(args.pause)  # let the others waiting for the device take it


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run (or resume) the campaign")
    r.add_argument("--base", type=int, default=60, help="instances per op (times the op's weight)")
    r.add_argument("--chunk", type=int, default=400, help="instances per device session (lock held per chunk)")
    r.add_argument("--only", help="only ops whose name starts with this (or one of these, comma-separated)")
    r.add_argument("--lock", nargs="?", const=DEVICE_LOCK,
                   help=f"flock this file around each chunk's device session (alone: {DEVICE_LOCK})")
    r.add_argument("--timeout", type=float, default=120.0, help="seconds per replay")
    r.add_argument("--max-minutes", type=float, help="stop starting chunks after this long")
    r.add_argument("--results", help="append the new records to this file instead of the committed one "
                                      "(merge it later with `merge`); ids in either are skipped")
    r.add_argument("--hold", type=float, default=150.0, help="seconds a chunk may hold the device at most")
    r.add_argument("--pause", type=float, default=5.0, help="seconds between chunks (others take the lock)")
    r.add_argument("--real-kernels", action="store_true",
                   help="build the real kernels (default: the stub toolchain, ttanalyze.executor.stub_toolchain)")
    r.add_argument("--stub-cache", default=str(Path(tempfile.gettempdir()) / "ttanalyze-stub-toolchain"),
                   help="directory of the stub toolchain's runtime root, templates and kernel cache")
    rp = sub.add_parser("report", help="rewrite the cb-sweep section of docs/accuracy.md from the results")
    rp.add_argument("--results-only", metavar="FILE",
                    help="score only the records of this `run --results` file (held-out draws), as measured and "
                         "rescored by the current model; print the table (and, with --write, rewrite the "
                         "opdiff-heldout section of docs/accuracy.md)")
    rp.add_argument("--write", action="store_true", help="with --results-only: rewrite its section of the doc")
    mg = sub.add_parser("merge", help="add the records of a `run --results` file to the committed results")
    mg.add_argument("path")
    rs = sub.add_parser("rescore", help="re-run the model on the stored device results (after a model fix)")
    rs.add_argument("--only", help="only ops whose name starts with this (or one of these, comma-separated)")
    args = ap.parse_args()
    if args.cmd == "run":
        run(args)
    elif args.cmd == "rescore":
        rescore(args)
    elif args.cmd == "merge":
        merge(args)
    elif args.results_only:
        from benchmarks.opdiff_heldout import main as heldout_main

        heldout_main(Path(args.results_only), write=args.write)
    else:
        from benchmarks.opdiff_report import main as report_main

        report_main()


if __name__ == "__main__":
    main()
