"""Run measurements/generic/cases.py's ``ttnn.generic`` descriptors on the mock device; record tt-metal's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/generic/probe.py [FIRST [COUNT]]

Per case: ``ttnn.empty`` the io tensors (%a, %b, %out, in that order), build the
``ttnn.ProgramDescriptor`` the way tt-mlir's runtime does (runtime/lib/ttnn/operations/generic/
generic_op.cpp @19c86fca: one ``CBDescriptor`` per CB with its total size, core ranges and formats,
``buffer`` = the io tensor's buffer), and run ``ttnn.generic_op`` under a NORMAL graph capture: unlike
NO_DISPATCH, it runs tt-metal's CB-region validation for this op (measured: a 1.6 MB CB passes under
NO_DISPATCH and is refused in NORMAL mode); the mock dispatches nothing.  Writes
measurements/generic/results.jsonl (a later line for an id replaces an earlier one): ttnn's error, if
any, and every CB the capture allocated (size, core ranges, whether a tensor's buffer backs it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.generic.cases import CASES, GRID, KERNEL_SOURCE, WHOLE_GRID, Case, shard_ranges  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = Path(__file__).with_name("results.jsonl")
DTYPES = {"bf16": ttnn.bfloat16, "f32": ttnn.float32, "bfp_bf8": ttnn.bfloat8_b}


def crs(ranges):
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1))
                              for x0, y0, x1, y1 in ranges])


def tensors(case: Case, dev):
    n, t = case.shard_cores, case.shard_tiles
    spec = ttnn.ShardSpec(crs(shard_ranges(n)), [32 * t, 32], ttnn.ShardOrientation.ROW_MAJOR)
    sharded = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, spec)
    a = ttnn.empty([32 * t * n, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, dev, sharded)
    b = ttnn.empty([64, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, dev, ttnn.DRAM_MEMORY_CONFIG)
    out = ttnn.empty([32 * t * n, 32], ttnn.bfloat16, ttnn.TILE_LAYOUT, dev, sharded)
    return [a, b, out]


def descriptor(case: Case, io):
    cbs = []
    for cb in case.cbs:
        formats = [ttnn.CBFormatDescriptor(buffer_index=i, data_format=DTYPES[d], page_size=p) for i, d, p in cb.formats]
        if cb.buffer is not None:  # the runtime sets CBDescriptor.buffer = io_tensors[i].buffer()
            desc = ttnn.cb_descriptor_from_sharded_tensor(cb.formats[0][0], io[cb.buffer])
            desc.total_size = cb.total
            desc.core_ranges = crs(cb.ranges)
            desc.format_descriptors = formats
        else:
            desc = ttnn.CBDescriptor(total_size=cb.total, core_ranges=crs(cb.ranges), format_descriptors=formats)
        cbs.append(desc)
    kernel = ttnn.KernelDescriptor(kernel_source=KERNEL_SOURCE, source_type=ttnn.KernelDescriptor.SourceType.SOURCE_CODE,
                                   core_ranges=crs(WHOLE_GRID), config=ttnn.ReaderConfigDescriptor())
    sems = [ttnn.SemaphoreDescriptor(id=k, core_ranges=crs(WHOLE_GRID), initial_value=0) for k in range(case.semaphores)]
    return ttnn.ProgramDescriptor(kernels=[kernel], semaphores=sems, cbs=cbs)


def main() -> int:
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else len(CASES)
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    grid = dev.compute_with_storage_grid_size()
    assert (grid.x, grid.y) == GRID, (grid.x, grid.y)
    with OUT.open("a" if first or count < len(CASES) else "w") as f:
        for case in CASES[first:first + count]:
            io = tensors(case, dev)
            err = None
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)
            try:
                ttnn.generic_op(io, descriptor(case, io))
            except Exception as exc:  # a TT_THROW/TT_FATAL of tt-metal: recorded
                err = W.short_error(exc)
            parsed = W.parse_graph(ttnn._ttnn.graph.end_graph_capture())
            cbs = [{"size": c["size"], "core_ranges": c["core_ranges"], "borrowed": c["borrowed"]} for c in parsed["cbs"]]
            f.write(json.dumps({"id": case.id, "error": err, "cbs": cbs}) + "\n")
            for t in io:
                ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"cases {first}..{first + count - 1} -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
