"""Replay measurements/dialect/cases_scan.py (sort, cumsum, cumprod) on the mock device and record each
program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_scan.py [--stub]

``--stub`` builds the programs with the stub kernel toolchain (ttanalyze/executor/stub_toolchain.py: no kernel
compile, the same buffers; the campaign's default) instead of the real kernel builds.

Writes measurements/dialect/results_scan.jsonl in the format of probe_misc.py (one line per case: ttnn's
error, every CB/DFB of the NO_DISPATCH graph capture, each output's spec).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

if "--stub" in sys.argv:  # before ttnn is imported: tt-metal reads its runtime root and cache at start
    import os
    import tempfile
    from importlib.util import find_spec

    from ttanalyze.executor.stub_toolchain import stub_env

    os.environ.update(stub_env(Path(find_spec("ttnn").origin).parent,
                               Path(tempfile.gettempdir()) / "ttanalyze-stub-toolchain"))

from measurements.dialect.cases_scan import CASES  # noqa: E402
from measurements.dialect.probe_misc import _mem, record, ttnn  # noqa: E402

OUT = Path(__file__).with_name("results_scan.jsonl")


def call(case, ts: list, dev):
    """The ttnn call tt-mlir's runtime makes for the case's op (runtime/lib/ttnn/operations @19c86fca)."""
    mem = _mem(case.results[0][3])
    kw = case.kwargs
    if case.op == "ttnn.sort":  # data_movement/sort.cpp
        return ttnn.sort(ts[0], dim=kw["dim"], descending=kw["descending"], stable=False, memory_config=mem)
    if case.op == "ttnn.cumsum":  # reduction/cumsum.cpp
        return ttnn.cumsum(ts[0], kw["dim"], memory_config=mem)
    if case.op == "ttnn.cumprod":  # reduction/cumprod.cpp
        return ttnn.cumprod(ts[0], kw["dim"], memory_config=mem)
    raise ValueError(case.op)


if __name__ == "__main__":
    record(CASES, call, OUT)
