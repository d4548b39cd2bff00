"""Replay measurements/moe_compute/cases_compute.py on the mock Blackhole P150 and record each program's CBs.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/moe_compute/probe_compute.py

Writes results_compute.jsonl: one line per case with ttnn's error, every CB of the NO_DISPATCH graph capture, the
L1 buffers the op allocated, each output's spec, the weights' shapes and memory configs ``moe_compute_utils``
gives, and where ``get_moe_tilize_drain_core`` / ``get_moe_combine_cores`` place the drain and combine cores.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from measurements.moe_compute.cases_compute import CASES  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402
from ttnn._experimental import moe_compute_utils as U  # noqa: E402

W.ttnn = ttnn
OUT = HERE / "results_compute.jsonl"


def weight_shapes(dev, h: int, n: int, e: int):
    """The packed W0/W1 and W2 shapes and memory configs (moe_compute_utils: get_weight_mem_configs and the
    prepare_* functions' output shapes), one layer, no bias."""
    w01map, w2map, dram = U.get_weight_core_shard_maps(dev, h, n)
    w01mc, w2mc, k_pad, n_pad = U.get_weight_mem_configs(1, e, h, n, w01map, w2map, dram)
    ht, nt, cores = h // 32, n // 32, len(w01map)
    txn = U._tiles_per_txn(ht, nt, False, cores)
    lay = U._w0_w1_compact_layout(ht, nt, cores, dram.num_cores(), txn)
    if lay["uniform"]:
        w01 = [cores, 1, e, lay["stored_cols"][0] // 2, k_pad, 128]
    else:
        w01 = [dram.num_cores(), 1, e, lay["bank_blocks_per_expert"], lay["block_rows"], 128]
    if U._w2_last_a2a_iter_half(ht, cores, txn):
        w2 = [cores, 1, e, U._w2_core_blocks_per_expert(ht, nt, cores, txn), U._block_tiles_h(txn) * 32, 128]
    else:
        w2 = [cores, 1, e, (-(-ht // cores) + 3) // 4, n_pad, 128]
    return w01, w01mc, w2, w2mc


def _l1_hs_on(core, shape):
    crs = ttnn.CoreRangeSet([ttnn.CoreRange(core, core)])
    return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1,
                             ttnn.ShardSpec(crs, shape, ttnn.ShardOrientation.ROW_MAJOR))


def main() -> int:
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with OUT.open("w") as f:
        for case in CASES:
            p = case.p
            h, e, k, t = p["H"], p["E"], p["k"], p["T"]
            ws = U.auto_output_width_shard_dim(h)
            mux = (ttnn.CoreRangeSet([ttnn.CoreRange(ttnn.CoreCoord(*p["mux"][:2]), ttnn.CoreCoord(*p["mux"][2:]))])
                   if p["mux"] else ttnn.CoreRangeSet([]))
            drain = ttnn.experimental.get_moe_tilize_drain_core(dev, p["hs"], ws, h, mux)
            combine = ttnn.experimental.get_moe_combine_cores(dev, p["hs"], ws, h, mux)
            w01s, w01mc, w2s, w2mc = weight_shapes(dev, h, p["N"], e)
            rm, dram = ttnn.ROW_MAJOR_LAYOUT, ttnn.DRAM_MEMORY_CONFIG
            ts = [ttnn.empty([1, t, h], ttnn.bfloat16, rm, dev, dram),
                  ttnn.empty([1, t, k], ttnn.uint16, rm, dev, _l1_hs_on(drain, [t, k])),
                  ttnn.empty([1, t, k], ttnn.bfloat16, rm, dev, _l1_hs_on(drain, [t, k])),
                  ttnn.empty([1, e * p["D"]], ttnn.uint16, rm, dev, dram),
                  ttnn.empty(w01s, ttnn.bfloat4_b, ttnn.TILE_LAYOUT, dev, w01mc),
                  ttnn.empty(w2s, ttnn.bfloat4_b, ttnn.TILE_LAYOUT, dev, w2mc),
                  ttnn.empty([k, t, h], ttnn.bfloat16, rm, dev, dram)]
            sem = ttnn.create_global_semaphore(dev, ttnn.CoreRangeSet([ttnn.CoreRange(c, c) for c in combine]), 0)
            MAF = ttnn._ttnn.operations.experimental.ccl_experimental.MoEActivationFunction
            act = {"silu": MAF.SILU,
                   "swiglu": MAF.SWIGLU}[p["activation"]]
            outs, err, graph = W.capture(lambda: ttnn.experimental.moe_compute(
                ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], layer_id=0, output_height_shard_dim=p["hs"],
                intermediate_size=p["N"], has_bias=False, cluster_axis=1, topology=None, num_links=None,
                mux_core_range_set=mux, output_memory_config=None, optional_output_tensor=ts[6],
                optional_cross_device_semaphore=sem, activation_type=act, compute_only=False))
            outs = outs or []
            parsed = W.parse_graph(graph)
            cbs = W.cb_records(parsed, ("size", "core_ranges", "borrowed", "factory", "program"))
            l1 = [{"size": b["size"], "per_bank": b["per_bank"], "layout": b["layout"]} for b in parsed["l1_buffers"]]
            f.write(json.dumps({"id": case.id, "error": err, "cbs": cbs, "l1_buffers": l1, "outputs": outs,
                                "w0_w1_shape": w01s, "w2_shape": w2s, "drain": [drain.x, drain.y],
                                "combine": [[c.x, c.y] for c in combine]}) + "\n")
            f.flush()
            for x in ts:
                ttnn.deallocate(x)
    ttnn.close_device(dev)
    print(f"{len(CASES)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
