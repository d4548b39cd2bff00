"""Replay measurements/dialect/cases_rest.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_rest.py

Writes measurements/dialect/results_rest.jsonl in the format of probe_misc.py (one line per case: ttnn's
error, every CB/DFB of the NO_DISPATCH graph capture, each output's spec).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases_rest import CASES  # noqa: E402
from measurements.dialect.probe_misc import _mem, record, ttnn  # noqa: E402

OUT = Path(__file__).with_name("results_rest.jsonl")


def call(case, ts: list, dev):
    """The ttnn call tt-mlir's runtime makes for the case's op (runtime/lib/ttnn/operations @19c86fca)."""
    res = case.results[0]
    kw = case.kwargs
    if case.op == "ttnn.clamp_tensor":  # eltwise/unary/unary_composite.cpp
        return ttnn.clamp(ts[0], ts[1], ts[2], memory_config=_mem(res[3]))
    if case.op == "ttnn.cumsum":  # reduction/cumsum.cpp
        return ttnn.cumsum(ts[0], kw["dim"], memory_config=_mem(res[3]))
    if case.op == "ttnn.cumprod":  # reduction/cumprod.cpp
        return ttnn.cumprod(ts[0], kw["dim"], memory_config=_mem(res[3]))
    if case.op == "ttnn.gather":  # data_movement/gather.cpp
        return ttnn.gather(ts[0], kw["dim"], index=ts[1], sparse_grad=False, memory_config=_mem(res[3]))
    if case.op == "ttnn.scatter":  # data_movement/scatter.cpp
        return ttnn.scatter(ts[0], kw["dim"], ts[1], ts[2], memory_config=_mem(res[3]), reduce=kw["reduce"])
    if case.op == "ttnn.prod":  # reduction/prod.cpp
        if kw["dim"] is None:
            return ttnn.prod(ts[0], keepdim=kw["keep"], memory_config=_mem(res[3]))
        return ttnn.prod(ts[0], kw["dim"], keepdim=kw["keep"], memory_config=_mem(res[3]))
    raise ValueError(case.op)


if __name__ == "__main__":
    record(CASES, call, OUT)
