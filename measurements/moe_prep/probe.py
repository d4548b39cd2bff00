"""Replay measurements/moe_prep/cases.py on the mock P150 and record the programs ttnn 0.81.1 runs for each.

Usage (needs the executor venv; one process may hold the mock device at a time, ``--lock`` takes the executor's
DEVICE_LOCK around each chunk)::

    .venv-ttnn/bin/python measurements/moe_prep/probe.py --lock [--minutes 3]

Resumable: cases already in the results file are skipped, and a run stops after ``--minutes`` (rerun until it
reports no case left).  Each case makes the calls of tt-mlir's runtime
(``runtime/lib/ttnn/operations/ccl/prepare_moe_compute_w{0_w1,2}_weights.cpp`` @19c86fca) under NO_DISPATCH graph
capture and writes one line to ``results.jsonl``:

* ``error``: ttnn's error, if any;
* ``chain``: every device operation, in order, with its program factory and tensor arguments;
* ``cbs``: every CB/DFB and kernel scratchpad of each program (as measurements/dialect/probe_misc.py);
* ``packed``: the packer's tile tensor and ``outputs``: the bfloat4_b result (shape, dtype, layout, memory config);
* ``dram``: every DRAM buffer allocation (``+``) and deallocation (``-``) during the call, in order, as
  ``[sign, bytes per bank, page bytes, programs run before it]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.moe_prep.cases import CASES, W0_W1  # noqa: E402
from measurements.dialect.probe_norm import chain  # noqa: E402
from measurements.dialect.probe_misc import W, _layout, _mem, ttnn  # noqa: E402

OUT = Path(__file__).with_name("results.jsonl")


def call(case, ts: list, dev):
    """The runtime's calls: the packer, then the host bfloat4_b quantization into the weight memory config."""
    lay, exp, k, n = case.layers, case.experts, case.hidden, case.intermediate
    cfgs = ttnn.experimental.get_weight_mem_configs(dev, num_layers=lay, experts_per_device=exp, hidden_size=k,
                                                    intermediate_size=n, has_bias=case.bias)
    if case.op == W0_W1:
        packed = (ttnn.experimental.prepare_w0_w1_tensor_with_bias(*ts, L=lay, E=exp, K=k, N=n) if case.bias else
                  ttnn.experimental.prepare_w0_w1_tensor_for_moe_compute(*ts, L=lay, E=exp, K=k, N=n))
        cfg = cfgs.w0_w1
    else:
        packed = (ttnn.experimental.prepare_w2_tensor_with_bias(*ts, L=lay, E=exp, N=n, K=k) if case.bias else
                  ttnn.experimental.prepare_w2_tensor_for_moe_compute(*ts, L=lay, E=exp, N=n, K=k))
        cfg = cfgs.w2
    return packed, ttnn.experimental.quantize_weights_via_host(packed, dtype=ttnn.bfloat4_b, memory_config=cfg)


def dram_events(graph: list) -> list[list]:
    """Every DRAM buffer allocation and deallocation, with the number of device operations started before it."""
    out, programs = [], 0
    for node in graph:
        kind, p = node.get("node_type"), node.get("params") or {}
        if kind == "function_start" and "program_factory_type" in p:
            programs += 1
        elif kind in ("buffer_allocate", "buffer_deallocate") and p.get("type") == "DRAM":
            out.append(["+" if kind == "buffer_allocate" else "-", int(p["max_size_per_bank"]), int(p["page_size"]),
                        programs])
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=3.0, help="stop after this long (resumable)")
    ap.add_argument("--lock", action="store_true", help="hold the executor's device lock while the device is open")
    args = ap.parse_args()
    deadline = time.monotonic() + 60 * args.minutes
    done = {json.loads(line)["id"] for line in OUT.read_text().splitlines()} if OUT.exists() else set()
    todo = [c for c in CASES if c.id not in done]
    if args.lock:
        from ttanalyze.executor.protocol import DEVICE_LOCK
        import fcntl

        lock = open(DEVICE_LOCK, "a")
        fcntl.flock(lock, fcntl.LOCK_EX)
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with OUT.open("a") as f:
        for case in todo:
            if time.monotonic() > deadline:
                break
            ts = [ttnn.empty(list(s), W.tt_dtype(d), _layout(lay), dev, _mem(buf)) for s, d, lay, buf in case.operands]
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
            err, packed, outs = None, None, []
            try:
                p, q = call(case, ts, dev)
                packed, outs = W.describe_tensor(p), [W.describe_tensor(q)]
            except Exception as exc:  # a TT_FATAL: recorded
                err = W.short_error(exc)
            graph = ttnn._ttnn.graph.end_graph_capture()
            parsed = W.parse_graph(graph)
            cbs = [{"size": c["size"], "core_ranges": c["core_ranges"], "borrowed": c["borrowed"], "op": c["op"],
                    "factory": c["factory"], "kind": c["kind"], "program": c["program"]} for c in parsed["cbs"]]
            f.write(json.dumps({"id": case.id, "error": err, "chain": chain(graph), "cbs": cbs, "packed": packed,
                                "outputs": outs, "dram": dram_events(graph)}) + "\n")
            f.flush()
            done.add(case.id)
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"{len(done)} of {len(CASES)} cases in {OUT} ({len(CASES) - len(done)} left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
