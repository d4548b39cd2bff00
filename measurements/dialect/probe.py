"""Replay measurements/dialect/cases.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    flock /tmp/ttnn-mock.lock .venv-ttnn/bin/python measurements/dialect/probe.py

Writes measurements/dialect/results.jsonl: one line per case with ttnn's error (if any) and every
CB/DFB the NO_DISPATCH graph capture allocated (size in bytes, core ranges ``[x0, y0, x1, y1]``,
whether it is backed by a tensor, the program factory).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases import CASES, Case  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = Path(__file__).with_name("results.jsonl")


def call(case: Case, ts: list):
    """The ttnn call tt-mlir's runtime makes for the case's op."""
    if case.op == "ttnn.nlp_concat_heads":
        return ttnn.experimental.nlp_concat_heads(ts[0], memory_config=ttnn.DRAM_MEMORY_CONFIG)
    if case.op == "ttnn.concatenate_heads":
        return ttnn.transformer.concatenate_heads(ts[0], memory_config=ttnn.DRAM_MEMORY_CONFIG)
    if case.op == "ttnn.fill_cache":
        return ttnn.fill_cache(ts[0], ts[1], case.kwargs["batch_idx"])
    if case.op == "ttnn.update_cache":  # the runtime reads the index tensor on the host and passes its value
        return ttnn.update_cache(ts[0], ts[1], case.kwargs["update_idx"], batch_offset=0)
    raise ValueError(case.op)


def main() -> int:
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with OUT.open("w") as f:
        for case in CASES:
            dtypes = case.dtypes or ("bf16",) * len(case.operands)
            ts = [ttnn.empty(list(s), W.tt_dtype(d), ttnn.TILE_LAYOUT if d != "u32" else ttnn.ROW_MAJOR_LAYOUT, dev,
                             ttnn.DRAM_MEMORY_CONFIG) for s, d in zip(case.operands, dtypes)]
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
            err = None
            try:
                call(case, ts)
            except Exception as exc:  # a TT_FATAL of the op: recorded
                err = W.short_error(exc)
            graph = ttnn._ttnn.graph.end_graph_capture()
            parsed = W.parse_graph(graph)
            cbs = [{"size": c["size"], "core_ranges": c["core_ranges"], "borrowed": c["borrowed"],
                    "factory": c["factory"], "kind": c["kind"]} for c in parsed["cbs"]]
            f.write(json.dumps({"id": case.id, "error": err, "cbs": cbs}) + "\n")
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"{len(CASES)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
