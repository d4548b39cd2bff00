"""Replay measurements/dialect/cases_misc.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_misc.py

Writes measurements/dialect/results_misc.jsonl: one line per case with ttnn's error (if any) and every
CB/DFB the NO_DISPATCH graph capture allocated (size in bytes, core ranges ``[x0, y0, x1, y1]``, whether
it is backed by a tensor, the device operation and program factory) and each output's spec.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases_misc import CASES, MiscCase  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = Path(__file__).with_name("results_misc.jsonl")


def _mem(buf: str):
    return ttnn.DRAM_MEMORY_CONFIG if buf == "dram" else ttnn.L1_MEMORY_CONFIG


def _layout(name: str):
    return ttnn.TILE_LAYOUT if name == "tile" else ttnn.ROW_MAJOR_LAYOUT


def call(case: MiscCase, ts: list, dev):
    """The ttnn call tt-mlir's runtime makes for the case's op."""
    res = case.results[0] if case.results else None
    if case.op == "ttnn.copy":
        return ttnn.copy(ts[0], ts[1])
    if case.op == "ttnn.assign":
        return ttnn.assign(ts[0], memory_config=_mem(res[3]), dtype=W.tt_dtype(res[1]))
    if case.op == "ttnn.bitcast_convert":
        return ttnn.bitcast(ts[0], W.tt_dtype(res[1]), memory_config=_mem(res[3]))
    if case.op == "ttnn.dropout":
        return ttnn.experimental.dropout(ts[0], 0.2, 1.25, 42, use_per_device_seed=False)
    if case.op == "ttnn.rand":
        return ttnn.rand(list(res[0]), device=dev, dtype=W.tt_dtype(res[1]), layout=_layout(res[2]),
                         memory_config=_mem(res[3]), low=0.0, high=1.0, seed=7)
    if case.op in ("ttnn.quantize", "ttnn.dequantize"):  # per-tensor: the runtime passes scale and zero point
        fn = ttnn.quantize if case.op == "ttnn.quantize" else ttnn.dequantize
        return fn(ts[0], 0.1, 0, dtype=W.tt_dtype(res[1]), memory_config=_mem(res[3]))
    if case.op == "ttnn.requantize":
        return ttnn.requantize(ts[0], 0.1, 0, 0.2, 0, dtype=W.tt_dtype(res[1]), memory_config=_mem(res[3]))
    if case.op == "ttnn.batch_norm_inference":
        weight, bias = (ts[3], ts[4]) if len(ts) > 3 else (None, None)
        return ttnn.batch_norm(ts[0], running_mean=ts[1], running_var=ts[2], training=False, eps=1e-5, momentum=0.1,
                               weight=weight, bias=bias, memory_config=_mem(res[3]))
    if case.op == "ttnn.global_avg_pool2d":
        return ttnn.global_avg_pool2d(ts[0], memory_config=_mem(res[3]))
    if case.op == "ttnn.sort":
        return ttnn.sort(ts[0], -1, case.kwargs["descending"], False, memory_config=_mem(res[3]))
    if case.op == "ttnn.conv1d":  # runtime/lib/ttnn/operations/conv/conv1d.cpp: positional geometry, the result's memcfg
        x = case.operands[0][0]
        kw = case.kwargs
        return ttnn.conv1d(input_tensor=ts[0], weight_tensor=ts[1], device=dev, in_channels=x[2],
                           out_channels=case.operands[1][0][0], batch_size=x[0], input_length=x[1], kernel_size=kw["k"],
                           stride=kw["stride"], padding=(kw["pad"], kw["pad"]), dilation=1, groups=1,
                           bias_tensor=ts[2] if len(ts) > 2 else None, memory_config=_mem(res[3]))
    if case.op == "ttnn.embedding_bw":
        return ttnn.embedding_bw(ts[0], ts[1], ts[2], dtype=W.tt_dtype(res[1]), memory_config=_mem(res[3]))
    if case.op in ("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"):
        fn = ttnn.rms_norm_pre_all_gather if case.op.startswith("ttnn.rms") else ttnn.layer_norm_pre_all_gather
        return fn(ts[0], dtype=ttnn.bfloat16, residual_input_tensor=ts[1] if len(ts) > 1 else None,
                  memory_config=_mem(res[3]))
    raise ValueError(case.op)


def record(cases: list, call_op, out: Path) -> None:
    """Run each case's ttnn call (``call_op(case, tensors, device)``) under NO_DISPATCH graph capture and
    write one JSON line per case to ``out``: ttnn's error, every CB/DFB and each output's spec."""
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with out.open("w") as f:
        for case in cases:
            ts = [ttnn.zeros(list(s), dtype=W.tt_dtype(d), layout=_layout(lay)) if buf == "system_memory" else
                  ttnn.empty(list(s), W.tt_dtype(d), _layout(lay), dev, _mem(buf)) for s, d, lay, buf in case.operands]
            outs, err, graph = W.capture(lambda: call_op(case, ts, dev))
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(W.parse_graph(graph)),
                                "outputs": outs or []}) + "\n")
            for t in ts:
                if t.storage_type() == ttnn.StorageType.DEVICE:
                    ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"{len(cases)} cases -> {out}")


def main() -> int:
    record(CASES, call, OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
