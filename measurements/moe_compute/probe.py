"""Replay measurements/moe_compute/cases.py on the mock Blackhole P150 and record each program's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/moe_compute/probe.py [ID_PREFIX]
    scripts/device-lock .venv-ttnn/bin/python measurements/moe_compute/probe.py --dispatch ID [ID...]

Opens the mock P150 (a 1x1 mesh; the executor's mock cluster descriptor) and writes results.jsonl: a first line
with what the device reports (grid, the DRAM-bank worker cores of ``get_optimal_dram_bank_to_logical_worker_
assignment``), then one line per case with ttnn's error, every CB of the NO_DISPATCH graph capture, the L1 buffers
the op allocated and each output's spec.  With an id prefix only those cases are measured and appended (a later
line for an id replaces an earlier one in the tests).

``--dispatch`` runs the named cases for real on the mock (no capture: the kernels compile, about 40 s a case) and
appends ``{"id", "error"}`` to results_dispatch.jsonl: tt-metal checks a mesh workload's CB region against L1
(``program.cpp`` "grow to" / "clash with L1 buffers") when it dispatches it, not under NO_DISPATCH capture.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from measurements.moe_compute.cases import CASES  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = HERE / "results.jsonl"
DISPATCH_OUT = HERE / "results_dispatch.jsonl"


def _crs(cores) -> "ttnn.CoreRangeSet":
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(x, y), ttnn.CoreCoord(x, y)) for x, y in cores])


def _interleaved(buf: str):
    return ttnn.DRAM_MEMORY_CONFIG if buf == "dram" else ttnn.L1_MEMORY_CONFIG


def _dram_sharded(shape, banks: int):
    """HEIGHT_SHARDED over DRAM banks 0..banks-1, one shard per bank (MoeGptLayoutRewritePattern)."""
    h = 1
    for s in shape[:-1]:
        h *= s
    spec = ttnn.ShardSpec(_crs([(b, 0) for b in range(banks)]), (-(-h // banks), shape[-1]),
                          ttnn.ShardOrientation.ROW_MAJOR)
    return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.DRAM, spec)


def _l1_height_sharded(shape, core):
    spec = ttnn.ShardSpec(_crs([core]), (shape[0], shape[1]), ttnn.ShardOrientation.ROW_MAJOR)
    return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, spec)


def gpt_tensors(dev, p: dict) -> list:
    """The six operands of a moe_gpt case (cases.py)."""
    t, k = p["T"], p["k"]
    wdt = W.tt_dtype(p["w_dtype"])
    idx_mem = (_l1_height_sharded([t, k], tuple(p["idx_core"])) if p["idx_layout"] == "height_sharded"
               else ttnn.L1_MEMORY_CONFIG)
    w01 = [p["C"], p["L"], p["E"], p["G"], p["K"], p["w_width"]]
    w2 = [p["C"], p["L"], p["w2_E"], 2, p["N"], p["w_width"]]
    rm = ttnn.ROW_MAJOR_LAYOUT
    return [ttnn.empty([t, p["K"]], ttnn.bfloat16, rm, dev, _interleaved(p["input_buf"])),
            ttnn.empty([t, k], ttnn.uint16, rm, dev, idx_mem),
            ttnn.empty([t, k], ttnn.bfloat16, rm, dev, idx_mem),
            ttnn.empty([p["R"], p["E"] * p["D"]], ttnn.uint16, rm, dev, _interleaved(p["mapping_buf"])),
            ttnn.empty(w01, wdt, ttnn.TILE_LAYOUT, dev, _dram_sharded(w01, min(p["C"], 8))),
            ttnn.empty(w2, wdt, ttnn.TILE_LAYOUT, dev, _dram_sharded(w2, min(p["C"], 8)))]


def call(case, ts: list):
    """The ttnn call of tt-mlir's runtime (runtime/lib/ttnn/operations/ccl/<op>.cpp @19c86fca)."""
    p = case.p
    if case.op == "ttnn.moe_gpt":
        return ttnn.experimental.moe_gpt(ts[0], expert_indices=ts[1], expert_scores=ts[2], expert_mapping=ts[3],
                                         w0_w1_tensor=ts[4], w2_tensor=ts[5], output_height_shard_dim=p["hs"],
                                         output_width_shard_dim=p["ws"], hidden_size=p["K"],
                                         cluster_axis=p["cluster_axis"])
    raise ValueError(case.op)


def tensors(dev, case) -> list:
    if case.op == "ttnn.moe_gpt":
        return gpt_tensors(dev, case.p)
    raise ValueError(case.op)


def dispatch(ids: list[str]) -> int:
    """Run each case for real and record tt-metal's error (the CB region checks), appending to DISPATCH_OUT."""
    dev = ttnn.open_device(device_id=0)
    with DISPATCH_OUT.open("a") as f:
        for cid in ids:
            case = next(c for c in CASES if c.id == cid)
            ts = tensors(dev, case)
            err = None
            try:
                call(case, ts)
            except Exception as exc:  # the TT_THROW of the CB checks: recorded
                err = str(exc).split("backtrace:")[0].strip()
            f.write(json.dumps({"id": cid, "error": err}) + "\n")
            f.flush()
            for x in ts:
                ttnn.deallocate(x)
    ttnn.close_device(dev)
    print(f"{len(ids)} cases dispatched -> {DISPATCH_OUT}")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--dispatch"]:
        return dispatch(argv[1:])
    prefix = argv[0] if argv else ""
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    grid = dev.compute_with_storage_grid_size()
    head = {"device": "mock P150", "grid": [grid.x, grid.y],
            "dram_bank_workers": [[c.x, c.y] for c in dev.get_optimal_dram_bank_to_logical_worker_assignment(0)]}
    cases = [c for c in CASES if c.id.startswith(prefix)]
    with OUT.open("a" if prefix else "w") as f:
        if not prefix:
            f.write(json.dumps(head) + "\n")
        for case in cases:
            try:
                ts = tensors(dev, case)
            except Exception as exc:  # an operand ttnn cannot allocate: recorded, not measured
                f.write(json.dumps({"id": case.id, "error": "operands: " + W.short_error(exc), "cbs": [],
                                    "outputs": [], "operands_failed": True}) + "\n")
                continue
            outs, err, graph = W.capture(lambda: call(case, ts))
            parsed = W.parse_graph(graph)
            l1 = [{"size": b["size"], "per_bank": b["per_bank"], "layout": b["layout"]} for b in parsed["l1_buffers"]]
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(parsed), "l1_buffers": l1,
                                "outputs": outs or []}) + "\n")
            f.flush()
            for x in ts:
                ttnn.deallocate(x)
    ttnn.close_device(dev)
    print(f"{len(cases)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
