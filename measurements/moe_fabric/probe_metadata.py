"""Replay measurements/moe_fabric/cases_metadata.py on a mock 1x2 Blackhole mesh and record each program's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/moe_fabric/probe_metadata.py

Opens blackhole_P300_1x2.yaml with ``FABRIC_1D`` as a 1x2 mesh (as probe.py does) and writes results_metadata.jsonl,
then, in a second process, ../ccl/bh_ring4.yaml (two P300 boards) as a 2x2 mesh into results_metadata_2x2.jsonl: a
first line with the links ttnn finds on the axes and the packet header size, then one line per case with ttnn's
error, every CB of the NO_DISPATCH graph capture (per device program), the L1 buffers the capture saw, and each
output's spec.  The call is tt-mlir's runtime's (``runtime/lib/ttnn/operations/ccl/
all_to_all_dispatch_metadata.cpp`` @19c86fca): persistent outputs and a global semaphore on (0, 0)-(0, 7).
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

from measurements.moe_fabric.cases_metadata import CASES, MESH  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

import ttnn  # noqa: E402

W.ttnn = ttnn


def out_path(mesh: tuple) -> Path:
    """The results of one mesh: ``results_metadata.jsonl`` for the first mesh, ``results_metadata_2x2.jsonl`` for the
    2x2."""
    name = "results_metadata" if tuple(mesh) == tuple(MESH) else f"results_metadata_{mesh[0]}x{mesh[1]}"
    return HERE / f"{name}.jsonl"


def _crs(x0, y0, x1, y1):
    return ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(x0, y0), ttnn.CoreCoord(x1, y1))])


def _operand(desc, dev):
    shape, dtype, layout, buf = desc
    mem = ttnn.DRAM_MEMORY_CONFIG if buf == "dram" else ttnn.L1_MEMORY_CONFIG
    lay = ttnn.TILE_LAYOUT if layout == "tile" else ttnn.ROW_MAJOR_LAYOUT
    return ttnn.empty(list(shape), W.tt_dtype(dtype), lay, dev, mem)


def _persistent(desc, dev):
    """A persistent output buffer as tt-mlir's prelude allocates it: DRAM interleaved, or L1 height-sharded on the
    drain core (0, 0) with the whole tensor as one shard (``getA2ADrainShardedLayout``)."""
    shape, dtype, buf = desc
    if buf == "dram":
        mem = ttnn.DRAM_MEMORY_CONFIG
    else:
        rows = 1
        for s in shape[:-1]:
            rows *= s
        mem = ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1,
                                ttnn.ShardSpec(_crs(0, 0, 0, 0), [rows, shape[-1]], ttnn.ShardOrientation.ROW_MAJOR))
    return ttnn.empty(list(shape), W.tt_dtype(dtype), ttnn.ROW_MAJOR_LAYOUT, dev, mem)


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
    dev = ttnn.open_mesh_device(ttnn.MeshShape(*mesh), dispatch_core_config=ttnn.DispatchCoreConfig(
        ttnn.DispatchCoreType.WORKER, ttnn.DispatchCoreAxis.COL))
    dev.disable_and_clear_program_cache()
    grid = dev.compute_with_storage_grid_size()
    fabric = {"fabric": "FABRIC_1D", "mesh": list(mesh), "grid": [grid.x, grid.y],
              "num_links_axis1": ttnn.get_num_links(dev, cluster_axis=1),
              "num_links_axis0": ttnn.get_num_links(dev, cluster_axis=0) if mesh[0] > 1 else None,
              "packet_header_bytes": ttnn.get_tt_fabric_packet_header_size_bytes()}
    with out.open("w") as f:
        f.write(json.dumps(fabric) + "\n")
        for case in cases:
            ins = [_operand(d, dev) for d in case.operands]
            outs = [_persistent(d, dev) for d in case.outputs]
            sem = ttnn.create_global_semaphore(dev, _crs(0, 0, 0, 7), 0)
            got, err, graph = W.capture(lambda: ttnn.experimental.all_to_all_dispatch_metadata(
                *ins, cluster_axis=case.cluster_axis, output_tensors=outs, cross_device_semaphore=sem))
            parsed = W.parse_graph(graph)
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(parsed),
                                "l1_buffers": parsed["l1_buffers"], "outputs": got or []}) + "\n")
            for t in ins + outs:
                ttnn.deallocate(t)
    ttnn.close_mesh_device(dev)
    print(f"{len(cases)} cases -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
