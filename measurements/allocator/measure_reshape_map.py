"""Measure the DRAM page-mapping tensor of ttnn's tiled reshape (ReshapeViewTiledProgramFactory).

Runs a data-moving tiled reshape on the device and reads the DRAM allocator before and after,
with the program cache on (the tt-mlir runtime's default) and off; the model
(``ttanalyze.ops.data_movement.reshape_tiled_program`` ``device_buffers``) predicts the mapping
tensor that stays allocated with the cache on.  Writes JSON lines to ``--out``.

Rerun (holds the mock device a few seconds):

    scripts/device-lock .venv-ttnn/bin/python measurements/allocator/measure_reshape_map.py \\
        --out measurements/allocator/reshape_map.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
os.environ.setdefault("TT_METAL_MOCK_CLUSTER_DESC_PATH",
                      str(REPO / "ttanalyze" / "executor" / "mock" / "blackhole_P150.yaml"))

import ttnn  # noqa: E402

CASES = [([1, 4, 768, 60, 106], [4, 32, 24, 6360]), ([1, 8, 128, 64], [1, 8, 64, 128]), ([64, 96], [96, 64]),
         ([2, 3, 40, 50], [6, 50, 40])]


def dram(dev) -> int:
    return int(ttnn._ttnn.device.GetMemoryView(dev, ttnn.BufferType.DRAM).total_bytes_allocated_per_bank)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    cfg = ttnn.DispatchCoreConfig(ttnn.DispatchCoreType.WORKER, ttnn.DispatchCoreAxis.COL)
    dev = ttnn.open_device(device_id=0, dispatch_core_config=cfg)
    rows = []
    for cache in (True, False):
        if cache:
            dev.enable_program_cache()
        else:
            dev.disable_and_clear_program_cache()
        for src, dst in CASES:
            x = ttnn.empty(src, ttnn.bfloat16, ttnn.TILE_LAYOUT, dev, ttnn.DRAM_MEMORY_CONFIG)
            before = dram(dev)
            y = ttnn.reshape(x, dst)
            after = dram(dev)
            out_per_bank = int(ttnn._ttnn.device.GetMemoryView(dev, ttnn.BufferType.DRAM).total_bytes_allocated_per_bank)
            ttnn.deallocate(y)
            after_free = dram(dev)
            ttnn.deallocate(x)
            rows.append({"program_cache": cache, "input": src, "output": dst, "dram_before": before,
                         "dram_after_op": after, "dram_after_output_freed": after_free,
                         "kept_after_all_freed": dram(dev), "ttnn_version": getattr(ttnn, "__version__", "")})
            print(json.dumps(rows[-1]), file=sys.stderr)
        dev.disable_and_clear_program_cache()
        rows.append({"program_cache_cleared": True, "dram": dram(dev)})
    ttnn.close_device(dev)
    Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
