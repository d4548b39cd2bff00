"""Replay measurements/dialect/cases_norm.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_norm.py [--minutes 4]

Resumable: cases already in the results file are skipped, and a run stops after ``--minutes`` (rerun until it
reports no case left), so that one hold of the mock device stays short.

Writes measurements/dialect/results_norm.jsonl in the format of probe_misc.py (one line per case: ttnn's
error, every CB/DFB of the NO_DISPATCH graph capture, each output's spec) plus ``chain``: every device
operation the call ran, in order, with its program factory and its tensor arguments (logical shape, dtype,
layout, buffer type), which is how the composite ops' programs were identified.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases_norm import CASES  # noqa: E402
from measurements.dialect.probe_misc import W, _layout, _mem, ttnn  # noqa: E402

OUT = Path(__file__).with_name("results_norm.jsonl")
_TENSOR = re.compile(r"logical_shape=Shape\(\[([^\]]*)\]\).*?dtype=DataType::(\w+).*?config=(\w+)PageConfig"
                     r".*?buffer_type=BufferType::(\w+)")


def call(case, ts: list, dev):
    """The ttnn call tt-mlir's runtime makes for the case's op (runtime/lib/ttnn/operations @19c86fca)."""
    res = case.results[0]
    if case.op == "ttnn.global_avg_pool2d":  # pool/pool2d.cpp: avg_pool2d over the whole H x W, then a reshape
        n, h, w, c = case.operands[0][0]
        out = ttnn.avg_pool2d(ts[0], n, h, w, c, [h, w], [1, 1], [0, 0], False, True, None,
                              memory_config=_mem(res[3]), applied_shard_scheme=None, compute_kernel_config=None,
                              deallocate_input=False, reallocate_halo_output=True, dtype=W.tt_dtype(res[1]),
                              output_layout=_layout(res[2]), config_tensor_in_dram=False)
        return ttnn.reshape(out, [n, 1, 1, c], memory_config=_mem(res[3]))
    if case.op == "ttnn.batch_norm_training":  # normalization/batch_norm.cpp: training=true, no memory config
        weight, bias = (ts[3], ts[4]) if len(ts) > 3 else (None, None)
        return ttnn.batch_norm(ts[0], running_mean=ts[1], running_var=ts[2], training=True, eps=1e-5, momentum=0.1,
                               weight=weight, bias=bias)
    if case.op == "ttnn.indexer_score_dsa":  # transformer/indexer_score_dsa.cpp: ttnn's default program config
        return ttnn.experimental.indexer_score_dsa(ts[0], ts[1], ts[2], chunk_start_idx=0)
    raise ValueError(case.op)


def chain(graph: list) -> list[dict]:
    """Every device operation of a captured graph: name, program factory and tensor arguments."""
    out = []
    for node in graph:
        p = node.get("params") or {}
        if node.get("node_type") == "function_start" and "program_factory_type" in p:
            tensors = [t for a in node.get("arguments") or [] for t in _TENSOR.findall(a)]
            out.append({"op": p["name"], "factory": p["program_factory_type"].rsplit("::", 1)[-1],
                        "tensors": [{"shape": [int(v) for v in s.split(",") if v.strip()], "dtype": d,
                                     "layout": lay.lower(), "buffer_type": b.lower()} for s, d, lay, b in tensors]})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=4.0, help="stop after this long (resumable)")
    deadline = time.monotonic() + 60 * ap.parse_args().minutes
    done = {json.loads(line)["id"] for line in OUT.read_text().splitlines()} if OUT.exists() else set()
    todo = [c for c in CASES if c.id not in done]
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with OUT.open("a") as f:
        for case in todo:
            if time.monotonic() > deadline:
                break
            descs = list(case.operands)
            if case.kwargs.get("ttnn_weights"):  # the weights as ttnn 0.81.1 wants them: [1, 1, Sq, Hi]
                (_, hi, sq, _), dt, lay, buf = descs[2][0], *descs[2][1:]
                descs[2] = ((1, 1, sq, hi), dt, lay, buf)
            ts = [ttnn.empty(list(s), W.tt_dtype(d), _layout(lay), dev, _mem(buf)) for s, d, lay, buf in descs]
            outs, err, graph = W.capture(lambda: call(case, ts, dev))
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(W.parse_graph(graph)),
                                "outputs": outs or [], "chain": chain(graph)}) + "\n")
            f.flush()
            done.add(case.id)
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"{len(done)} of {len(CASES)} cases in {OUT} ({len(CASES) - len(done)} left)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
