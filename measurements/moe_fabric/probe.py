"""Replay measurements/moe_fabric/cases.py on a mock 1x2 Blackhole mesh and record each program's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/moe_fabric/probe.py

Opens blackhole_P300_1x2.yaml (one P300 board) with ``FABRIC_1D`` (what tt-mlir's runtime opens for a line,
``runtime/lib/common/mesh_fabric_config.cpp``) as a 1x2 mesh, and writes results.jsonl: a first line with what
ttnn discovered of the fabric (links on the axis, packet header and channel buffer sizes, compute grid), then one
line per case with ttnn's error, every CB of the NO_DISPATCH graph capture (per device program) and each output's
spec.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
os.environ["TT_METAL_MOCK_CLUSTER_DESC_PATH"] = str(HERE / "blackhole_P300_1x2.yaml")

from measurements.moe_fabric.cases import CASES, MESH  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = HERE / "results.jsonl"


def _mem(buf: str):
    return ttnn.DRAM_MEMORY_CONFIG if buf == "dram" else ttnn.L1_MEMORY_CONFIG


def _layout(name: str):
    return ttnn.TILE_LAYOUT if name == "tile" else ttnn.ROW_MAJOR_LAYOUT


def call(case, ts: list):
    """The ttnn call of tt-mlir's runtime (runtime/lib/ttnn/operations/ccl/<op>.cpp @19c86fca)."""
    kw = case.kwargs
    if case.op == "ttnn.all_to_all_dispatch":
        return ttnn.all_to_all_dispatch(ts[0], ts[1], ts[2], cluster_axis=kw["cluster_axis"],
                                        memory_config=_mem(kw["memory"]))
    if case.op == "ttnn.all_to_all_combine":
        return ttnn.all_to_all_combine(ts[0], ts[2], ts[1],  # python binds (input, metadata, mapping)
                                       cluster_axis=kw["cluster_axis"],
                                       output_shard_dim=kw["output_shard_dim"], memory_config=_mem(kw["memory"]))
    raise ValueError(case.op)


def main() -> int:
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D)
    dev = ttnn.open_mesh_device(ttnn.MeshShape(*MESH), dispatch_core_config=ttnn.DispatchCoreConfig(
        ttnn.DispatchCoreType.WORKER, ttnn.DispatchCoreAxis.COL))
    dev.disable_and_clear_program_cache()
    grid = dev.compute_with_storage_grid_size()
    fabric = {"fabric": "FABRIC_1D", "mesh": list(MESH), "grid": [grid.x, grid.y],
              "num_links_axis1": ttnn.get_num_links(dev, cluster_axis=1),
              "packet_header_bytes": ttnn.get_tt_fabric_packet_header_size_bytes()}
    for name in ("get_tt_fabric_channel_buffer_size_bytes", "get_tt_fabric_max_payload_size_bytes"):
        if hasattr(ttnn, name):
            fabric[name[len("get_tt_fabric_"):]] = getattr(ttnn, name)()
    with OUT.open("w") as f:
        f.write(json.dumps(fabric) + "\n")
        for case in CASES:
            ts = [ttnn.empty(list(s), W.tt_dtype(d), _layout(lay), dev, _mem(buf)) for s, d, lay, buf in case.operands]
            outs, err, graph = W.capture(lambda: call(case, ts))
            f.write(json.dumps({"id": case.id, "error": err, "cbs": W.cb_records(W.parse_graph(graph)),
                                "outputs": outs or []}) + "\n")
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_mesh_device(dev)
    print(f"{len(CASES)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
