"""Replay measurements/distributed_norm/cases_post.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/distributed_norm/probe_post.py

Writes measurements/distributed_norm/results_post.jsonl (the format of measurements/dialect/probe_misc.py's ``record``).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect import probe_misc as P  # noqa: E402  (opens ttnn on the chosen mock device)
from measurements.distributed_norm.cases_post import CASES  # noqa: E402

ttnn = P.ttnn


def call(case, ts: list, dev):
    """tt-mlir's runtime call (runtime/lib/ttnn/operations/normalization/layer_norm_post_all_gather.cpp @19c86fca)."""
    return ttnn.layer_norm_post_all_gather(ts[0], ts[1], epsilon=1e-5, weight=ts[2] if len(ts) > 2 else None,
                                           bias=ts[3] if len(ts) > 3 else None, memory_config=P._mem(case.results[0][3]))


def main() -> int:
    P.record(CASES, call, Path(__file__).with_name("results_post.jsonl"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
