"""Check that the stub kernel toolchain changes nothing the op-level campaign compares.

Replays a seeded random sample of already-measured instances of
``measurements/opdiff/results.jsonl.gz`` (stratified: the same number per op family, at
least ``--n`` in all) twice on the executor, with the real JIT kernel build and with
:mod:`ttanalyze.executor.stub_toolchain` (``TT_METAL_NULL_KERNELS=1`` plus stub compiles and
links), and compares every field a campaign record keeps from the device: success, the
refusal text, the per-core program-scope L1 peak, each CB/DFB/scratchpad (size, kind,
cores, program), the factories, the L1 buffers, the L1 allocated before the op, and each
output's spec.  Writes ``measurements/opdiff/stub_check.json`` (per instance: the seconds of
each replay and the fields that differ) and prints a summary.

Usage::

    .venv/bin/python benchmarks/opdiff_stub_check.py --n 60 --lock
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.opdiff import compare, device_lock, load_results, prepare  # noqa: E402
from benchmarks.opdiff_instances import generators  # noqa: E402
from ttanalyze.executor.protocol import DEVICE_LOCK  # noqa: E402

OUT = ROOT / "measurements" / "opdiff" / "stub_check.json"
FIELDS = ("ok", "error", "unsupported", "crashed", "peak", "cbs", "factories", "l1", "l1_before", "l1_peak", "outputs")


def sample(recs: dict[str, dict], n: int, seed: int) -> list[dict]:
    """``n`` (or a few more) records, the same number from each family, drawn with ``seed``."""
    by_family: dict[str, list[dict]] = defaultdict(list)
    for r in sorted(recs.values(), key=lambda r: r["id"]):
        if r["outcome"] not in ("invalid", "not_replayed"):
            by_family[r["family"]].append(r)
    rng = random.Random(seed)
    per = -(-n // len(by_family))
    out = []
    for fam in sorted(by_family):
        out += rng.sample(by_family[fam], min(per, len(by_family[fam])))
    return out


def replay(chunk: list[dict], env: dict[str, str], timeout: float) -> list[tuple[dict, float]]:
    """(device part of the record, seconds) of each instance, replayed in one worker with ``env``."""
    from ttanalyze.executor import client

    gens = generators()
    out = []
    with client.Executor(timeout=timeout, env=env) as ex:
        ex.start()
        for r in chunk:
            p = prepare(r["op"], int(r["id"].rsplit("/", 1)[1]), gens)
            t = time.monotonic()
            dev = ex.replay(p["op"], p["analysis"])
            out.append((compare(p, dev)["device"], round(time.monotonic() - t, 3)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=60, help="instances to check (spread evenly over families)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chunk", type=int, default=12, help="instances per device session (lock held per chunk)")
    ap.add_argument("--lock", nargs="?", const=DEVICE_LOCK,
                    help=f"flock this file around each device session (alone: {DEVICE_LOCK})")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "ttanalyze-stub-toolchain"),
                    help="directory of the stub runtime root, templates and kernel cache")
    args = ap.parse_args()
    from ttanalyze.executor import client
    from ttanalyze.executor.stub_toolchain import stub_env

    ok, why = client.available()
    if not ok:
        raise SystemExit(f"executor not available: {why}")
    todo = sample(load_results(), args.n, args.seed)
    stub = stub_env(client.ttnn_dir(), Path(args.cache))
    rows = []
    for c0 in range(0, len(todo), args.chunk):
        chunk = todo[c0:c0 + args.chunk]
        with device_lock(args.lock):
            real = replay(chunk, {}, args.timeout)
        with device_lock(args.lock):
            fast = replay(chunk, stub, args.timeout)
        for r, (a, ta), (b, tb) in zip(chunk, real, fast):
            diff = [k for k in FIELDS if a.get(k) != b.get(k)]
            rows.append({"id": r["id"], "family": r["family"], "real_s": ta, "stub_s": tb, "differs": diff})
            print(f"{r['id']}: real {ta:.2f} s, stub {tb:.2f} s{', DIFFERS ' + ','.join(diff) if diff else ''}",
                  flush=True)
    same = sum(not r["differs"] for r in rows)
    summary = {"instances": len(rows), "identical": same, "families": sorted({r["family"] for r in rows}),
               "real_seconds_mean": round(sum(r["real_s"] for r in rows) / len(rows), 3),
               "stub_seconds_mean": round(sum(r["stub_s"] for r in rows) / len(rows), 3),
               "fields": list(FIELDS), "seed": args.seed}
    OUT.write_text(json.dumps({"summary": summary, "instances": rows}, indent=1) + "\n")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
