"""Measure tt-metal's bank allocator on a ttnn device (the mock Blackhole P150 here).

Runs in the executor environment (``.venv-ttnn``: ttnn 0.81.1 = tt-metal d80d9482) and
writes raw results only; ``compare.py`` (the analyzer's environment) replays them through
``ttanalyze.allocator`` and scores the agreement.

Three parts, each written as JSON lines to ``--out`` (gzip):

* ``bank_sizes``: for several ``open_device`` arguments (``l1_small_size``,
  ``trace_region_size``), the allocator's figures for L1, L1_SMALL and DRAM
  (``GetMemoryView``: banks, bytes per bank; ``GetAllocatorBaseAddress``).
* ``probe``: hand-written sequences that tell first fit from best fit and show where L1
  and DRAM allocations go.
* ``random``: random sequences of allocations (``ttnn.empty``: DRAM/L1, interleaved or
  L1 height/block sharded, tile or row-major) and deallocations (``ttnn.deallocate``),
  each step recording the buffer's address (``buffer_address``) or tt-metal's
  out-of-memory text, its size and page size as tt-metal sees them, and after each step
  the allocator's statistics of both buffer types.

Rerun (about 2 minutes, holds the mock device):

    scripts/device-lock .venv-ttnn/bin/python measurements/allocator/measure.py \\
        --out measurements/allocator/raw.jsonl.gz
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
os.environ.setdefault("TT_METAL_MOCK_CLUSTER_DESC_PATH",
                      str(REPO / "ttanalyze" / "executor" / "mock" / "blackhole_P150.yaml"))

import ttnn  # noqa: E402

DTYPES = {"bf16": (ttnn.bfloat16, 2), "f32": (ttnn.float32, 4)}


def open_device(**kwargs):
    cfg = ttnn.DispatchCoreConfig(ttnn.DispatchCoreType.WORKER, ttnn.DispatchCoreAxis.COL)
    return ttnn.open_device(device_id=0, dispatch_core_config=cfg, **kwargs)


def view(dev, buffer_type) -> dict:
    v = ttnn._ttnn.device.GetMemoryView(dev, buffer_type)
    return {"num_banks": int(v.num_banks), "bank_size": int(v.total_bytes_per_bank),
            "allocated": int(v.total_bytes_allocated_per_bank), "free": int(v.total_bytes_free_per_bank),
            "largest_free": int(v.largest_contiguous_bytes_free_per_bank)}


def stats(dev) -> dict:
    return {"dram": view(dev, ttnn.BufferType.DRAM), "l1": view(dev, ttnn.BufferType.L1)}


def memory_config(spec: dict, grid):
    bt = ttnn.BufferType.DRAM if spec["buffer_type"] == "dram" else ttnn.BufferType.L1
    if spec["memory_layout"] == "interleaved":
        return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.INTERLEAVED, bt)
    cx, cy = spec["cores"]
    crs = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(cx - 1, cy - 1))})
    shard = ttnn.ShardSpec(crs, list(spec["shard"]), ttnn.ShardOrientation.ROW_MAJOR)
    layout = {"height_sharded": ttnn.TensorMemoryLayout.HEIGHT_SHARDED,
              "block_sharded": ttnn.TensorMemoryLayout.BLOCK_SHARDED}[spec["memory_layout"]]
    return ttnn.MemoryConfig(layout, bt, shard)


def allocate(dev, spec: dict, grid):
    dtype, _ = DTYPES[spec["dtype"]]
    layout = ttnn.TILE_LAYOUT if spec["layout"] == "tile" else ttnn.ROW_MAJOR_LAYOUT
    return ttnn.empty(list(spec["shape"]), dtype, layout, dev, memory_config(spec, grid))


def run_sequence(dev, seq: list[dict], grid) -> list[dict]:
    """Run one sequence of steps; returns one record per step."""
    live: dict[int, object] = {}
    out = []
    for step in seq:
        rec = dict(step)
        if step["op"] == "alloc":
            try:
                t = allocate(dev, step["spec"], grid)
            except Exception as exc:  # tt-metal's TT_FATAL/TT_THROW
                rec["error"] = str(exc).split("\n")[0][:1500]
                full = str(exc)
                i = full.find("Out of Memory")
                if i >= 0:
                    rec["oom"] = full[i:i + 600].split("\n")[0]
            else:
                live[step["id"]] = t
                rec["address"] = int(t.buffer_address())
                rec["page_size"] = int(t.buffer_page_size())
                rec["aligned_page_size"] = int(t.buffer_aligned_page_size())
                rec["num_pages"] = int(t.buffer_num_pages())
        else:
            t = live.pop(step["id"], None)
            if t is not None:
                ttnn.deallocate(t)
            else:
                rec["skipped"] = True
        rec["stats"] = stats(dev)
        out.append(rec)
    for t in live.values():
        ttnn.deallocate(t)
    return out


# ---------------------------------------------------------------------------
# Sequences
# ---------------------------------------------------------------------------

def tile_spec(buffer_type: str, tiles_rows: int, tiles_cols: int, dtype: str = "bf16") -> dict:
    return {"buffer_type": buffer_type, "memory_layout": "interleaved", "layout": "tile", "dtype": dtype,
            "shape": [32 * tiles_rows, 32 * tiles_cols]}


def probes(dram_bank: int, l1_bank: int) -> dict[str, list[dict]]:
    """Sequences whose outcome tells first fit from best fit, and checks top-down L1 / bottom-up DRAM."""
    mb = 1 << 20
    seqs = {}
    # DRAM: holes of 64 MiB (low) and 32 MiB (high) per bank; then a 32 MiB request.
    # first fit -> the low hole, best fit -> the exact 32 MiB hole.
    per_bank_tiles = lambda b: b // 2048 * 8  # tiles of a bf16 tensor holding b bytes per DRAM bank
    s = []
    for i, size in enumerate([64 * mb, 16 * mb, 32 * mb, 16 * mb]):
        s.append({"op": "alloc", "id": i, "spec": tile_spec("dram", per_bank_tiles(size) // 64, 64)})
    s += [{"op": "free", "id": 0}, {"op": "free", "id": 2},
          {"op": "alloc", "id": 10, "spec": tile_spec("dram", per_bank_tiles(32 * mb) // 64, 64)}]
    seqs["dram_first_vs_best"] = s
    # L1: the same with 110 banks, top-down: holes at the top (64 KiB) and lower (32 KiB).
    kb = 1024
    l1_tiles = lambda b: b // 2048 * 110
    s = []
    for i, size in enumerate([64 * kb, 16 * kb, 32 * kb, 16 * kb]):
        s.append({"op": "alloc", "id": i, "spec": tile_spec("l1", l1_tiles(size) // 110, 110)})
    s += [{"op": "free", "id": 0}, {"op": "free", "id": 2},
          {"op": "alloc", "id": 10, "spec": tile_spec("l1", l1_tiles(32 * kb) // 110, 110)}]
    seqs["l1_first_vs_best"] = s
    # Fragmentation OOM in DRAM: fill with 8 blocks of bank/8, free every other one, ask for bank/4.
    blk = (dram_bank // 8) // 2048 * 2048
    s = [{"op": "alloc", "id": i, "spec": tile_spec("dram", blk // 2048 * 8 // 64, 64)} for i in range(8)]
    s += [{"op": "free", "id": i} for i in range(0, 8, 2)]
    s += [{"op": "alloc", "id": 20, "spec": tile_spec("dram", 2 * blk // 2048 * 8 // 64, 64)}]
    seqs["dram_fragmentation_oom"] = s
    blk = (l1_bank // 8) // 2048 * 2048
    s = [{"op": "alloc", "id": i, "spec": tile_spec("l1", blk // 2048, 110)} for i in range(8)]
    s += [{"op": "free", "id": i} for i in range(0, 8, 2)]
    s += [{"op": "alloc", "id": 20, "spec": tile_spec("l1", 2 * blk // 2048, 110)}]
    seqs["l1_fragmentation_oom"] = s
    return seqs


def random_spec(rng: random.Random, dram_bank: int, l1_bank: int, grid) -> dict:
    kind = rng.choices(["dram", "l1", "l1_sharded"], weights=[4, 4, 2])[0]
    dtype = rng.choice(["bf16", "bf16", "f32"])
    esize = DTYPES[dtype][1]
    if kind == "l1_sharded":
        gx, gy = grid
        cx, cy = rng.randint(1, gx), rng.randint(1, gy)
        per_bank = rng.randint(1, l1_bank // 3)
        if rng.random() < 0.5:  # height sharded tile: shard [32*h, 32*w]
            w = rng.choice([1, 2, 4])
            h = max(1, per_bank // (1024 * esize * w))
            shard = [32 * h, 32 * w]
            return {"buffer_type": "l1", "memory_layout": "height_sharded", "layout": "tile", "dtype": dtype,
                    "cores": [cx, cy], "shard": shard, "shape": [32 * h * cx * cy, 32 * w]}
        w = rng.choice([1, 2])
        h = max(1, per_bank // (1024 * esize * w))
        shard = [32 * h, 32 * w]
        return {"buffer_type": "l1", "memory_layout": "block_sharded", "layout": "tile", "dtype": dtype,
                "cores": [cx, cy], "shard": shard, "shape": [32 * h * cy, 32 * w * cx]}
    bank, banks = (dram_bank, 8) if kind == "dram" else (l1_bank, grid[0] * grid[1])
    # per-bank sizes spread log-uniformly from 1/64 of a bank up to 60% of it, a few small ones
    per_bank = int(bank * 2 ** rng.uniform(-6, -0.74)) if rng.random() < 0.85 else rng.randint(1, 4096)
    if rng.random() < 0.6:
        tiles = max(1, per_bank * banks // (1024 * esize))
        cols = rng.choice([1, 2, 4, 8, 16])
        rows = max(1, tiles // cols)
        return {"buffer_type": kind, "memory_layout": "interleaved", "layout": "tile", "dtype": dtype,
                "shape": [32 * rows, 32 * cols]}
    width = rng.choice([3, 16, 50, 100, 256, 1000, 2048])
    rows = max(1, per_bank * banks // (width * esize))
    return {"buffer_type": kind, "memory_layout": "interleaved", "layout": "row_major", "dtype": dtype,
            "shape": [rows, width]}


def random_sequence(seed: int, dram_bank: int, l1_bank: int, grid, steps: int) -> list[dict]:
    rng = random.Random(seed)
    live: list[int] = []
    seq = []
    next_id = 0
    for _ in range(steps):
        if live and rng.random() < 0.35:
            victim = live.pop(rng.randrange(len(live)))
            seq.append({"op": "free", "id": victim})
        else:
            seq.append({"op": "alloc", "id": next_id, "spec": random_spec(rng, dram_bank, l1_bank, grid)})
            live.append(next_id)
            next_id += 1
    return seq


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sequences", type=int, default=60)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    records = []
    for kwargs in ({}, {"l1_small_size": 65536}, {"l1_small_size": 65536, "trace_region_size": 100 * 1024 * 1024},
                   {"l1_small_size": 24576}):
        dev = open_device(**kwargs)
        rec = {"kind": "bank_sizes", "open_kwargs": kwargs,
               "l1": view(dev, ttnn.BufferType.L1), "dram": view(dev, ttnn.BufferType.DRAM),
               "l1_small": view(dev, ttnn.BufferType.L1_SMALL),
               "l1_base": int(ttnn._ttnn.device.GetAllocatorBaseAddress(dev, ttnn.BufferType.L1)),
               "dram_base": int(ttnn._ttnn.device.GetAllocatorBaseAddress(dev, ttnn.BufferType.DRAM)),
               "l1_size": int(dev.l1_size_per_core()) if hasattr(dev, "l1_size_per_core") else None,
               "dram_size_per_channel": int(dev.dram_size_per_channel()) if hasattr(dev, "dram_size_per_channel") else None}
        records.append(rec)
        print(json.dumps(rec), file=sys.stderr)
        if kwargs.get("l1_small_size") != 65536 or kwargs.get("trace_region_size"):
            ttnn.close_device(dev)
            continue
        # the runtime's configuration (L1_SMALL 64 KiB): probes and random sequences
        grid = (dev.compute_with_storage_grid_size().x, dev.compute_with_storage_grid_size().y)
        dram_bank, l1_bank = rec["dram"]["bank_size"], rec["l1"]["bank_size"]
        for name, seq in probes(dram_bank, l1_bank).items():
            records.append({"kind": "probe", "name": name, "open_kwargs": kwargs, "grid": list(grid),
                            "steps": run_sequence(dev, seq, grid)})
        for i in range(args.sequences):
            seed = args.seed + i
            seq = random_sequence(seed, dram_bank, l1_bank, grid, args.steps)
            records.append({"kind": "random", "seed": seed, "open_kwargs": kwargs, "grid": list(grid),
                            "steps": run_sequence(dev, seq, grid)})
        ttnn.close_device(dev)
    meta = {"kind": "meta", "ttnn_version": getattr(ttnn, "__version__", ""),
            "mock_desc": os.path.basename(os.environ.get("TT_METAL_MOCK_CLUSTER_DESC_PATH", ""))}
    with gzip.open(args.out, "wt") as f:
        for r in [meta] + records:
            f.write(json.dumps(r) + "\n")
    print(f"wrote {len(records)} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
