"""The collectives on mock meshes: each case's ttnn call under NO_DISPATCH graph capture, recording every CB and
every buffer it allocates.

* ``line`` (default): a 1x2 mesh of the two Blackhole chips of a P300 card (blackhole_P300.yaml), FABRIC_1D: every
  case runs on a 2-device line (a 2-device axis never wraps into a ring); writes results_mesh.jsonl.
* ``ring``: a 1x4 mesh of two P300 cards cabled as a ring 0-1-2-3-0 (bh_ring4.yaml), FABRIC_1D_RING, the ops
  asking for ``Topology::Ring``; writes results_ring.jsonl.
* ``composite``: the composite paths (a tile-padded gather or scatter dim, row-major tensors, an all_reduce with no
  dim to scatter) on the 1x2 line: fixed cases, then random instances drawn with a fixed seed
  (:func:`random_composite_cases`); writes results_composite.jsonl.
* ``ring-composite``: composite all_gathers on the 1x4 ring (the 4x8 dump's ring axes); writes
  results_ring_composite.jsonl.

Usage (needs the executor venv; one process may hold the mock device at a time; the first run of a mesh compiles
its fabric kernels, minutes)::

    scripts/device-lock .venv-ttnn/bin/python measurements/ccl/probe.py [line|ring|composite|ring-composite]

Each line: ttnn's error (if any), the CBs (size per core, core ranges, borrowed, device operation, program index),
the buffers allocated during the op (size, buffer type, page size, whether freed before it returned) and each
output's spec.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
MODE = sys.argv[1] if len(sys.argv) > 1 else "line"
MESH = "ring" if MODE.startswith("ring") else "line"
os.environ.setdefault("TT_METAL_MOCK_CLUSTER_DESC_PATH",
                      str(HERE / ("bh_ring4.yaml" if MESH == "ring" else "blackhole_P300.yaml")))

from ttanalyze.executor import ttnn_worker as W  # noqa: E402

import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = HERE / {"line": "results_mesh.jsonl", "ring": "results_ring.jsonl", "composite": "results_composite.jsonl",
              "ring-composite": "results_ring_composite.jsonl"}[MODE]

# (id, op, shape, dtype, kwargs): the per-device input; scatter / gather dim 3 unless given
CASES = [
    ("rs/bf16/32x128", "reduce_scatter", (1, 1, 32, 128), "bf16", {}),
    ("rs/f32/32x128", "reduce_scatter", (1, 1, 32, 128), "f32", {}),
    ("rs/bf16/32x128/fp32acc", "reduce_scatter", (1, 1, 32, 128), "bf16", {"fp32_acc": True}),
    ("rs/bfp8/64x256", "reduce_scatter", (1, 1, 64, 256), "bfp_bf8", {}),
    ("rs/bf16/64x128/dim2", "reduce_scatter", (1, 1, 64, 128), "bf16", {"dim": 2}),
    ("rs/bf16/256x1024", "reduce_scatter", (1, 1, 256, 1024), "bf16", {}),
    ("rs/bf16/1024x1024", "reduce_scatter", (1, 1, 1024, 1024), "bf16", {}),
    ("rs/bf16/2048x2048", "reduce_scatter", (1, 1, 2048, 2048), "bf16", {}),
    ("rs/bf16/2x32x128/dim0", "reduce_scatter", (2, 1, 32, 128), "bf16", {"dim": 0}),
    ("ag/bf16/32x64", "all_gather", (1, 1, 32, 64), "bf16", {}),
    ("ag/bf16/1024x1024", "all_gather", (1, 1, 1024, 1024), "bf16", {}),
    ("ar/bf16/32x256", "all_reduce", (1, 1, 32, 256), "bf16", {}),
    ("ar/f32/64x512", "all_reduce", (1, 1, 64, 512), "f32", {}),
    ("p2p/bf16/32x128", "point_to_point", (1, 1, 32, 128), "bf16", {}),
    ("p2p/f32/32x128", "point_to_point", (1, 1, 32, 128), "f32", {}),
    ("p2p/bf16/64x1024", "point_to_point", (1, 1, 64, 1024), "bf16", {}),
    # the form tt-mlir's width-shard workaround gives distributed_rms_norm: 4 cores of one tile, an f32 stats tensor
    ("rms/bf16/32x128/fp32acc", "fused_rms_minimal", (1, 1, 32, 128), "bf16", {"cores": 4}),
]
RING_CASES = [  # on the 1x4 ring, cluster axis 1, topology Ring
    ("ring/rs/bf16/32x2560/fp32acc", "reduce_scatter", (1, 1, 32, 2560), "bf16", {"fp32_acc": True}),
    ("ring/rs/bf16/2048x1024", "reduce_scatter", (1, 1, 2048, 1024), "bf16", {}),
    ("ring/rs/bf16/32x128/fp32acc", "reduce_scatter", (1, 1, 32, 128), "bf16", {"fp32_acc": True}),
    ("ring/rs/bf16/128x256/dim2/fp32acc", "reduce_scatter", (1, 1, 128, 256), "bf16", {"fp32_acc": True, "dim": 2}),
    ("ring/rs/f32/1024x1024", "reduce_scatter", (1, 1, 1024, 1024), "f32", {}),
    ("ring/rs/bf16/32x128/direct", "reduce_scatter", (1, 1, 32, 128), "bf16", {}),
    ("ring/ag/bf16/256x1024", "all_gather", (1, 1, 256, 1024), "bf16", {}),
    ("ring/ar/bf16/1024x1024", "all_reduce", (1, 1, 1024, 1024), "bf16", {}),
]

# the composite paths on the 1x2 line: kwargs "layout": "rm" for a row-major tensor, "dim" the gather/scatter dim
COMPOSITE_CASES = [
    ("cag/bf16/64x1/dim1", "all_gather", (64, 1), "bf16", {"dim": 1}),  # the 4x8 dump's router gathers
    ("cag/bf16/64x1x1/dim2", "all_gather", (64, 1, 1), "bf16", {"dim": 2}),
    ("cag/bf16/1x1x2x64/dim2", "all_gather", (1, 1, 2, 64), "bf16", {"dim": 2}),  # the 2x4 decode dumps
    ("cag/bfp8/1x1x50x64/dim2", "all_gather", (1, 1, 50, 64), "bfp_bf8", {"dim": 2}),
    ("cag/f32/1x1x7x100/dim3", "all_gather", (1, 1, 7, 100), "f32", {"dim": 3}),
    ("cag/bf16/rm/1x1x32x64/dim3", "all_gather", (1, 1, 32, 64), "bf16", {"dim": 3, "layout": "rm"}),
    ("cag/bf16/rm/1x1x5x40/dim2", "all_gather", (1, 1, 5, 40), "bf16", {"dim": 2, "layout": "rm"}),
    ("crs/bf16/1x1x4x256/dim2", "reduce_scatter", (1, 1, 4, 256), "bf16", {"dim": 2}),  # the 2x4 decode dumps
    ("crs/bf16/1x1x32x96/dim3", "reduce_scatter", (1, 1, 32, 96), "bf16", {"dim": 3}),
    ("crs/bf16/rm/1x1x32x128/dim3", "reduce_scatter", (1, 1, 32, 128), "bf16", {"dim": 3, "layout": "rm"}),
    ("car/bf16/1x1x4x32", "all_reduce", (1, 1, 4, 32), "bf16", {}),
    ("car/bf16/rm/1x1x32x64", "all_reduce", (1, 1, 32, 64), "bf16", {"layout": "rm"}),
]
RING_COMPOSITE_CASES = [  # on the 1x4 ring, cluster axis 1, topology Ring
    ("ring/cag/bf16/64x1/dim1", "all_gather", (64, 1), "bf16", {"dim": 1}),
    ("ring/cag/bf16/64x1x1/dim2", "all_gather", (64, 1, 1), "bf16", {"dim": 2}),
    ("ring/cag/bf16/1x1x8x256/dim2", "all_gather", (1, 1, 8, 256), "bf16", {"dim": 2}),
    # 64 columns per device are whole tiles: the native ring program, beside the composite of 56 columns
    ("ring/rs/bf16/1x1x64x256/dim3", "reduce_scatter", (1, 1, 64, 256), "bf16", {"dim": 3, "fp32_acc": True}),
    ("ring/crs/bf16/1x1x64x224/dim3", "reduce_scatter", (1, 1, 64, 224), "bf16", {"dim": 3, "fp32_acc": True}),
    ("ring/crs/bf16/1x1x8x1024/dim2", "reduce_scatter", (1, 1, 8, 1024), "bf16", {"dim": 2, "fp32_acc": True}),
]


def random_composite_cases(count: int = 16, seed: int = 11) -> list[tuple]:
    """``count`` random instances of the composite paths (seeded, so every run draws the same): an all_gather of a
    tile-padded gather dim or of a row-major tensor, or a reduce_scatter whose scattered dim does not split into whole
    tiles (or row-major); rank 2 to 4, bf16 / f32 / bfp8 (tiled only), dims up to 160."""
    import random

    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        op = rng.choice(("all_gather", "reduce_scatter"))
        rank = rng.randint(2, 4)
        rm = rng.random() < 0.3
        dtype = rng.choice(("bf16", "f32") if rm else ("bf16", "f32", "bfp_bf8"))
        shape = [rng.randint(1, 3) for _ in range(rank - 2)] + [rng.randint(1, 160), rng.randint(1, 5) * 32]
        dim = rng.choice((rank - 2, rank - 1))
        if op == "reduce_scatter":
            shape[dim] = 2 * rng.randint(1, 80)
            if not rm and shape[dim] // 2 % 32 == 0:
                continue
        elif not rm and shape[dim] % 32 == 0:
            continue
        if rm and shape[-1] * (4 if dtype == "f32" else 2) % 16:
            continue  # rows must be 16-B aligned for every path
        kw = {"dim": dim, **({"layout": "rm"} if rm else {})}
        tag = "ag" if op == "all_gather" else "rs"
        cases.append((f"rand/{tag}/{dtype}/{'rm/' if rm else ''}{'x'.join(map(str, shape))}/dim{dim}", op,
                      tuple(shape), dtype, kw))
    return cases


def _width_sharded(cores: int, shard: list[int]):
    grid = ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(cores - 1, 0))])
    return grid, ttnn.MemoryConfig(ttnn.TensorMemoryLayout.WIDTH_SHARDED, ttnn.BufferType.L1,
                                   ttnn.ShardSpec(grid, shard, ttnn.ShardOrientation.ROW_MAJOR))


def fused_rms(x, kw: dict, mesh):
    """tt-mlir runtime/lib/ttnn/operations/normalization/distributed_rms_norm.cpp @19c86fca: ttnn::fused_rms_minimal
    with the width-sharded input, a row-major (N/32, 32) weight, the f32 stats tensor (2 devices x 1 tile) on the
    first core, a global semaphore on the input's grid, the layernorm sharded program config and fp32 accumulation."""
    n = kw["cores"]
    grid, mc = _width_sharded(n, [32, x.padded_shape[-1] // n])
    xs = ttnn.to_memory_config(x, mc)
    w = ttnn.empty([x.padded_shape[-1] // 32, 32], ttnn.bfloat16, ttnn.ROW_MAJOR_LAYOUT, mesh, ttnn.DRAM_MEMORY_CONFIG)
    _, smc = _width_sharded(1, [32, 64])
    stats = ttnn.empty([1, 1, 32, 64], ttnn.float32, ttnn.TILE_LAYOUT, mesh, smc)
    sem = ttnn.create_global_semaphore(mesh, grid, 0)
    pc = ttnn.LayerNormShardedMultiCoreProgramConfig(compute_with_storage_grid_size=(n, 1), subblock_w=1, block_h=1,
                                                     block_w=x.padded_shape[-1] // 32 // n, inplace=False)
    cfg = ttnn.init_device_compute_kernel_config(mesh.arch(), math_fidelity=ttnn.MathFidelity.HiFi4,
                                                 fp32_dest_acc_en=True)
    ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
    return xs, lambda: ttnn.fused_rms_minimal(xs, pc, 1, mesh, sem, topology=ttnn.Topology.Linear,
                                              compute_kernel_config=cfg, memory_config=mc, epsilon=1e-5, weight=w,
                                              stats=stats)


def call(op: str, x, kw: dict, mesh):
    """The ttnn call tt-mlir's runtime makes (runtime/lib/ttnn/operations/ccl/*.cpp @19c86fca), cluster axis 1."""
    if op == "reduce_scatter":
        cfg = None
        if kw.get("fp32_acc"):
            cfg = ttnn.init_device_compute_kernel_config(mesh.arch(), math_fidelity=ttnn.MathFidelity.HiFi4,
                                                         fp32_dest_acc_en=True)
        return ttnn.reduce_scatter(x, kw.get("dim", len(x.shape) - 1), cluster_axis=1, compute_kernel_config=cfg, topology=TOPOLOGY)
    if op == "all_gather":
        return ttnn.all_gather(x, kw.get("dim", len(x.shape) - 1), cluster_axis=1, topology=TOPOLOGY)
    if op == "all_reduce":
        return ttnn.all_reduce(x, cluster_axis=1, topology=TOPOLOGY)
    if op == "point_to_point":
        return ttnn.point_to_point(x, ttnn.MeshCoordinate(0, 1), ttnn.MeshCoordinate(0, 0), topology=ttnn.Topology.Linear)
    raise ValueError(op)


def buffers(graph: list) -> list[dict]:
    """Every buffer allocated during the capture: size, buffer type, page size, and whether it was freed."""
    out, by_id = [], {}
    for node in graph:
        kind, params = node.get("node_type"), node.get("params") or {}
        if kind == "buffer_allocate":
            rec = {"size": int(params.get("size", 0)), "type": params.get("type"),
                   "page_size": int(params.get("page_size", 0) or 0), "layout": params.get("layout"), "freed": False}
            out.append(rec)
            for child in node.get("connections", []):
                by_id.setdefault(child, rec)
            by_id[node.get("counter")] = rec
        elif kind == "buffer_deallocate":
            for parent in node.get("connections", []):
                if parent in by_id:
                    by_id[parent]["freed"] = True
    return out


TOPOLOGY = ttnn.Topology.Ring if MESH == "ring" else None


def main() -> int:
    ring = MESH == "ring"
    ttnn.set_fabric_config(ttnn.FabricConfig.FABRIC_1D_RING if ring else ttnn.FabricConfig.FABRIC_1D)
    mesh = ttnn.open_mesh_device(ttnn.MeshShape(1, 4 if ring else 2), dispatch_core_config=ttnn.DispatchCoreConfig(
        ttnn.DispatchCoreType.WORKER, ttnn.DispatchCoreAxis.COL))
    cases = {"line": CASES, "ring": RING_CASES, "composite": COMPOSITE_CASES + random_composite_cases(),
             "ring-composite": RING_COMPOSITE_CASES}[MODE]
    with OUT.open("w") as f:
        for cid, op, shape, dtype, kw in cases:
            layout = ttnn.ROW_MAJOR_LAYOUT if kw.get("layout") == "rm" else ttnn.TILE_LAYOUT
            x = ttnn.empty(list(shape), W.tt_dtype(dtype), layout, mesh, ttnn.DRAM_MEMORY_CONFIG)
            if op == "fused_rms_minimal":  # its operands are made before the capture starts
                x, run = fused_rms(x, kw, mesh)
            else:
                ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
                run = lambda: call(op, x, kw, mesh)  # noqa: E731
            err, outs = None, []
            try:
                ret = run()
                outs = [W.describe_tensor(t) for t in (ret if isinstance(ret, (list, tuple)) else [ret])
                        if t is not None and hasattr(t, "padded_shape")]
            except Exception as exc:  # a TT_FATAL of the op: recorded
                err = W.short_error(exc)
            graph = ttnn._ttnn.graph.end_graph_capture()
            parsed = W.parse_graph(graph)
            cbs = W.cb_records(parsed)
            device_ops = [n["params"].get("name") for n in graph if n.get("node_type") == "function_start"
                          and "DeviceOperation" in str((n.get("params") or {}).get("name", ""))]
            f.write(json.dumps({"id": cid, "op": op, "shape": shape, "dtype": dtype, "kwargs": kw, "error": err,
                                "cbs": cbs, "buffers": buffers(graph), "outputs": outs,
                                "device_ops": device_ops}) + "\n")
            f.flush()
            print(cid, err or f"{len(cbs)} CBs", flush=True)
            ttnn.deallocate(x)
    ttnn.close_mesh_device(mesh)
    print(f"{len(cases)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
