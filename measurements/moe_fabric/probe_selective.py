"""Replay measurements/moe_fabric/cases_selective.py on a mock 2x1 Blackhole mesh and record each program's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/moe_fabric/probe_selective.py

Opens blackhole_P300_1x2.yaml with ``FABRIC_1D`` as a 2x1 mesh with tt-mlir's ``l1_small_size`` and writes
results_selective.jsonl, then, in a second process, ../ccl/bh_ring4.yaml (two P300 boards) as a 2x2 mesh into
results_selective_2x2.jsonl: a first line with the fabric's channel buffer size, then one line per case with ttnn's error,
every CB of the NO_DISPATCH graph capture (per device program), the L1 buffers the capture saw and the output's spec
(cases_selective.py says which call and why).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
# One mock cluster per process: each mesh is probed by a child process (``--mesh 2x2``); without it, both.
MESH_ARG = sys.argv[sys.argv.index("--mesh") + 1] if "--mesh" in sys.argv else None
DESCS = {"1x2": HERE / "blackhole_P300_1x2.yaml", "2x1": HERE / "blackhole_P300_1x2.yaml",
         "2x2": ROOT / "measurements" / "ccl" / "bh_ring4.yaml"}
if MESH_ARG:
    os.environ["TT_METAL_MOCK_CLUSTER_DESC_PATH"] = str(DESCS[MESH_ARG])

from measurements.moe_fabric.cases_selective import (CASES, DATA_PARALLEL, LINKS, MESH, MUX,  # noqa: E402
                                                     TOKEN_PARALLEL, WORKERS)
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

import ttnn  # noqa: E402

W.ttnn = ttnn


def out_path(mesh: tuple) -> Path:
    """The results of one mesh: ``results_selective.jsonl`` for the first mesh, ``results_selective_2x2.jsonl`` for the
    2x2."""
    name = "results_selective" if tuple(mesh) == tuple(MESH) else f"results_selective_{mesh[0]}x{mesh[1]}"
    return HERE / f"{name}.jsonl"
L1_SMALL_SIZE = 1 << 16  # tt-mlir include/Constants.h L1_SMALL_SIZE, what its runtime opens devices with


def _crs(x0, y0, x1, y1):
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1))])


def _mem(buf):
    return ttnn.DRAM_MEMORY_CONFIG if buf == "dram" else ttnn.L1_MEMORY_CONFIG


def stride(e: int, buf: str) -> int:
    """Elements per token of the activations: ``2 E + 1`` u32 aligned to the buffer's alignment (16 / 64 B)."""
    align = 64 if buf == "dram" else 16
    return -(-(2 * e + 1) * 4 // align) * align // 4


def operands(case, dev):
    e, t, h = case.experts_local, case.batch * case.seq, case.hidden
    rows = e * t // TOKEN_PARALLEL
    workers = _crs(1, 0, DATA_PARALLEL, TOKEN_PARALLEL - 1)
    width = -(-h // DATA_PARALLEL)
    if case.input_buffer == "l1":
        mem = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1,
                                ttnn.ShardSpec(workers, [rows, width], ttnn.ShardOrientation.ROW_MAJOR))
    else:
        mem = ttnn.DRAM_MEMORY_CONFIG
    x = ttnn.empty([rows * TOKEN_PARALLEL * DATA_PARALLEL, width], ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT, dev, mem)
    acts_buf, maps_buf, counts_buf = case.buffers
    s = stride(e, acts_buf) + case.stride_extra
    acts = ttnn.empty([1, t * s], ttnn.uint32, ttnn.ROW_MAJOR_LAYOUT, dev, _mem(acts_buf))
    maps_shape = [e, (t + 1) * stride(e, maps_buf)]
    if case.maps_rank3:
        maps_shape = [1] + maps_shape
    maps = ttnn.empty(maps_shape, ttnn.uint32, ttnn.ROW_MAJOR_LAYOUT, dev, _mem(maps_buf))
    counts = ttnn.empty([1, e], ttnn.uint32, ttnn.ROW_MAJOR_LAYOUT, dev, _mem(counts_buf))
    return [x, acts, maps, counts]


def main() -> int:
    """Without ``--mesh``: probe each mesh of the cases in a child process; with it: that mesh's cases here."""
    meshes = sorted({c.mesh for c in CASES})
    if MESH_ARG is None:
        for mesh in meshes:
            subprocess.run([sys.executable, __file__, "--mesh", f"{mesh[0]}x{mesh[1]}"], check=True)
        return 0
    return probe(tuple(int(v) for v in MESH_ARG.split("x")))


def probe(mesh: tuple) -> int:
    """Open ``mesh`` and replay its cases into :func:`out_path`."""
    cases = [c for c in CASES if c.mesh == mesh]
    out = out_path(mesh)
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
    dev = ttnn.open_mesh_device(ttnn.MeshShape(*mesh), l1_small_size=L1_SMALL_SIZE,
                                dispatch_core_config=ttnn.DispatchCoreConfig(ttnn.DispatchCoreType.WORKER,
                                                                             ttnn.DispatchCoreAxis.COL))
    dev.disable_and_clear_program_cache()
    grid = dev.compute_with_storage_grid_size()
    fabric = {"fabric": "FABRIC_1D", "mesh": list(mesh), "grid": [grid.x, grid.y], "num_links": LINKS,
              "l1_small_size": L1_SMALL_SIZE,
              "channel_buffer_size_bytes": ttnn.get_tt_fabric_channel_buffer_size_bytes()
              if hasattr(ttnn, "get_tt_fabric_channel_buffer_size_bytes") else None}
    workers = [ttnn.CoreCoord(x, y) for x, y in WORKERS]
    mux = _crs(*MUX[0], *MUX[1])
    with out.open("w") as f:
        f.write(json.dumps(fabric) + "\n")
        for case in cases:
            ts = operands(case, dev)
            got, err, graph = W.capture(lambda: ttnn.experimental.selective_reduce_combine(
                *ts, case.hidden, case.batch, case.seq, case.k, case.axis, ttnn.Topology.Ring, LINKS, TOKEN_PARALLEL,
                DATA_PARALLEL, workers, mux))
            parsed = W.parse_graph(graph)
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(parsed),
                                "l1_buffers": parsed["l1_buffers"], "outputs": got or []}) + "\n")
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_mesh_device(dev)
    print(f"{len(cases)} cases -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
