"""Targeted device probes for the reduction and normalization models (ttnn 0.81.1 on the mock P150).

The op-level campaign (benchmarks/opdiff.py) draws random instances; these probes pin the boundaries its
draws rarely hit: the H reduce's input buffer against the per-core column share and fp32 accumulation,
which dtypes make ``min`` take the fused-negate kernels, softmax blocking with fp32 accumulation off, and
group_norm's NoMcast factory with several batches.  Each probe is a single-op TTNN module replayed and
compared exactly as a campaign instance (:func:`benchmarks.opdiff.compare`); records go to
``results.jsonl.gz`` beside this script (keyed by probe id; a rerun skips the ids already there).

Usage (from the repository root; holds the device lock while it runs)::

    PYTHONPATH=$PWD .venv/bin/python measurements/normred/probe.py --lock
    PYTHONPATH=$PWD .venv/bin/python measurements/normred/probe.py --rescore   # model only, no device
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.opdiff import compare, device_from_record, device_lock  # noqa: E402
from ttanalyze.executor.protocol import DEVICE_LOCK  # noqa: E402
from benchmarks.opdiff_instances import SYSTEM_DESC, OpInstance, dram  # noqa: E402
from ttanalyze.ir.emit import module_text, single_op_func  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results.jsonl.gz"
CC = "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = {}>"


def _cc(acc: str | None) -> list[str]:
    return [CC.format(acc)] if acc else []


def _reduce(op: str, shape, dims, dtype="bf16", acc=None, keep=True):
    out = tuple(1 if i in dims else d for i, d in enumerate(shape))
    attrs = _cc(acc) + [f"dim_arg = [{', '.join(f'{d} : i32' for d in dims)}]", f"keep_dim = {'true' if keep else 'false'}"]
    return op, [dram(shape, dtype)], [dram(out, dtype)], ", ".join(attrs)


def _softmax(shape, dtype="bf16", acc=None, stable=True, dim=-1):
    attrs = [f"dimension = {dim} : si32", f"numericStable = {'true' if stable else 'false'}"] + _cc(acc)
    return "ttnn.softmax", [dram(shape, dtype)], [dram(shape, dtype)], ", ".join(attrs)


def _group_norm(shape, groups):
    attrs = f"epsilon = 9.99999974E-6 : f32, num_groups = {groups} : si32, operandSegmentSizes = array<i32: 1, 0, 0, 0>"
    return "ttnn.group_norm", [dram(shape)], [dram(shape)], attrs


# id -> (op, operands, results, attrs).  H reduces of [1, 1, 64, 32 * columns] on the 110-core grid.
PROBES = {
    "hshare2": _reduce("ttnn.sum", (1, 1, 64, 32 * 220), [2], "f32"),
    "hshare3": _reduce("ttnn.sum", (1, 1, 64, 32 * 330), [2], "f32"),
    "hshare4": _reduce("ttnn.sum", (1, 1, 64, 32 * 440), [2], "f32"),
    "hshare8": _reduce("ttnn.sum", (1, 1, 64, 32 * 880), [2], "f32"),
    "hshare2_off": _reduce("ttnn.max", (1, 1, 64, 32 * 220), [2], "bf16", "false"),
    "hshare4_off": _reduce("ttnn.max", (1, 1, 64, 32 * 440), [2], "bf16", "false"),
    "hshare8_off": _reduce("ttnn.max", (1, 1, 64, 32 * 880), [2], "bf16", "false"),
    "hshare16_off": _reduce("ttnn.max", (1, 1, 64, 32 * 1760), [2], "bf16", "false"),
    "hshare8_on": _reduce("ttnn.max", (1, 1, 64, 32 * 880), [2], "bf16", "true"),
    "min_bf16_off": _reduce("ttnn.min", (1, 1, 64, 256), [3], "bf16", "false"),
    "min_bf16_h_off": _reduce("ttnn.min", (1, 1, 256, 64), [2], "bf16", "false"),
    "min_f32_h_none": _reduce("ttnn.min", (1, 1, 256, 64), [2], "f32"),
    "softmax_wt12_off": _softmax((1, 1, 32, 384), "bf16", "false"),
    "softmax_wt20_off": _softmax((1, 1, 32, 640), "bf16", "false"),
    "softmax_wt6_off": _softmax((1, 1, 32, 192), "bf16", "false"),
    "softmax_wt59_off_bf16": _softmax((1, 1, 32, 1869), "bf16", "false"),
    "softmax_general_bf16": _softmax((2, 1, 3, 64, 96), "bf16", None, dim=-1),
    "gn_nomcast_2batch": _group_norm((2, 1, 16, 64), 2),
    "gn_nomcast_g8": _group_norm((2, 1, 32, 256), 8),
    "gn_mcast_c128": _group_norm((1, 1, 512, 128), 4),
    "gn_mcast_c256_g32": _group_norm((1, 1, 1024, 256), 32),
    "sum_all_rank4_bf16": _reduce("ttnn.sum", (2, 3, 64, 96), [0, 1, 2, 3], "bf16"),
    "sum_all_rank4_bfp8": _reduce("ttnn.sum", (2, 3, 64, 96), [0, 1, 2, 3], "bfp_bf8"),
    # the H step after a W reduce (Ht 32, one column): one pass for a non-f32 (H, W) reduction, as a plain H reduce
    # (two passes here) when leading dims are reduced too; f32 splits unless max or fp32 accumulation is off
    "hw_mean_bf16": _reduce("ttnn.mean", (1, 1, 1024, 64), [2, 3], "bf16"),
    "hw_mean_bf16_lead": _reduce("ttnn.mean", (1, 1, 1024, 64), [0, 1, 2, 3], "bf16"),
    "hw_max_bf16_lead": _reduce("ttnn.max", (2, 1024, 64), [0, 1, 2], "bf16"),
    "hw_mean_bfp8": _reduce("ttnn.mean", (1, 1, 1024, 64), [2, 3], "bfp_bf8"),
    "hw_mean_bfp8_lead": _reduce("ttnn.mean", (2, 1, 1024, 64), [0, 1, 2, 3], "bfp_bf8"),
    "hw_max_bfp8_lead": _reduce("ttnn.max", (2, 1, 1024, 64), [0, 1, 2, 3], "bfp_bf8"),
    "hw_sum_f32": _reduce("ttnn.sum", (1024, 64), [0, 1], "f32"),
    "hw_max_f32": _reduce("ttnn.max", (1024, 64), [0, 1], "f32"),
    "hw_max_f32_lead": _reduce("ttnn.max", (2, 1024, 64), [0, 1, 2], "f32"),
    "hw_mean_f32_off_lead": _reduce("ttnn.mean", (2, 1024, 64), [0, 1, 2], "f32", "false"),
}


def _prepare(pid: str) -> dict:
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_text

    op, operands, results, attrs = PROBES[pid]
    text = module_text(SYSTEM_DESC, single_op_func(op, operands, results, attrs))
    line = next(n + 1 for n, l in enumerate(text.splitlines()) if f'"{op}"' in l)
    inst = OpInstance(f"normred/{pid}", op, pid, text, line)
    a = analyze(parse_text(text, f"{pid}.mlir"))
    return {"inst": inst, "analysis": a, "op": next(o for o in a.program.ops if o.pos.line == line), "error": None}


def load() -> dict[str, dict]:
    if not RESULTS.exists():
        return {}
    with gzip.open(RESULTS, "rt") as f:
        return {r["id"]: r for r in map(json.loads, f) if r}


def save(recs: dict[str, dict]) -> None:
    with gzip.open(RESULTS, "wt") as f:
        for r in recs.values():
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lock", nargs="?", const=DEVICE_LOCK,
                    help=f"flock this file around the device session (alone: {DEVICE_LOCK})")
    ap.add_argument("--rescore", action="store_true", help="compare the current model with the stored results")
    ap.add_argument("--only", default="", help="only probes whose id starts with this")
    args = ap.parse_args()
    recs = load()
    if args.rescore:
        for pid in PROBES:
            if f"normred/{pid}" in recs:
                old = recs[f"normred/{pid}"]
                recs[old["id"]] = compare(_prepare(pid), device_from_record(old["device"])) | {"device": old["device"]}
    else:
        from ttanalyze.executor import client

        todo = [pid for pid in PROBES if f"normred/{pid}" not in recs and pid.startswith(args.only)]
        preps = [_prepare(pid) for pid in todo]
        with device_lock(args.lock), client.Executor(timeout=300) as ex:
            for p in preps:
                rec = compare(p, ex.replay(p["op"], p["analysis"]))
                recs[rec["id"]] = rec
                print(rec["id"], rec["outcome"], rec.get("exact"), flush=True)
                save(recs)
    save(recs)
    for r in recs.values():
        print(f"{r['id']:32} {r['outcome']:20} exact={r.get('exact')}")


if __name__ == "__main__":
    main()
