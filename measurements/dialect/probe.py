"""Replay measurements/dialect/cases.py on the mock device and record each program's circular buffers.

Usage (needs the executor venv; one process may hold the mock device at a time)::

    scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe.py [ID_PREFIX,...]

With an id prefix, only the cases whose id starts with it are measured and appended (a later line for an
id replaces an earlier one in tests/test_ops_dialect_measured.py).

Writes measurements/dialect/results.jsonl: one line per case with ttnn's error (if any) and every
CB/DFB the NO_DISPATCH graph capture allocated (size in bytes, core ranges ``[x0, y0, x1, y1]``,
whether it is backed by a tensor, the program factory).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from measurements.dialect.cases import CASES, Case  # noqa: E402
from ttanalyze.executor import ttnn_worker as W  # noqa: E402

W.choose_device()
import ttnn  # noqa: E402

W.ttnn = ttnn
OUT = Path(__file__).with_name("results.jsonl")


def call(case: Case, ts: list):
    """The ttnn call tt-mlir's runtime makes for the case's op."""
    if case.op == "ttnn.nlp_concat_heads":
        return ttnn.experimental.nlp_concat_heads(ts[0], memory_config=ttnn.DRAM_MEMORY_CONFIG)
    if case.op == "ttnn.concatenate_heads":
        return ttnn.transformer.concatenate_heads(ts[0], memory_config=ttnn.DRAM_MEMORY_CONFIG)
    if case.op == "ttnn.fill_cache":
        return ttnn.fill_cache(ts[0], ts[1], case.kwargs["batch_idx"])
    if case.op == "ttnn.update_cache":  # the runtime reads the index tensor on the host and passes its value
        return ttnn.update_cache(ts[0], ts[1], case.kwargs["update_idx"], batch_offset=0)
    dram = ttnn.DRAM_MEMORY_CONFIG
    if case.op == "ttnn.scaled_dot_product_attention":  # runtime/.../scaled_dot_product_attention.cpp
        kw = {"is_causal": case.kwargs["is_causal"], "memory_config": dram}
        if case.kwargs.get("sliding_window_size"):
            kw["sliding_window_size"] = case.kwargs["sliding_window_size"]
        return ttnn.transformer.scaled_dot_product_attention(ts[0], ts[1], ts[2], attn_mask=ts[3] if len(ts) > 3 else None,
                                                             **kw)
    if case.op == "ttnn.chunked_scaled_dot_product_attention":  # the flexible (tensor start index) overload
        return ttnn.transformer.chunked_scaled_dot_product_attention(ts[0], ts[1], ts[2], ts[3],
                                                                     chunk_start_idx_tensor=ts[4], memory_config=dram)
    if case.op == "ttnn.flash_mla_prefill":
        return ttnn.transformer.flash_mla_prefill(ts[0], ts[1], case.kwargs["head_dim_v"], memory_config=dram)
    if case.op == "ttnn.rotary_embedding":
        return ttnn.experimental.rotary_embedding(ts[0], ts[1], ts[2], None, memory_config=dram)
    if case.op == "ttnn.rotary_embedding_llama":
        return ttnn.experimental.rotary_embedding_llama(ts[0], ts[1], ts[2], ts[3], is_decode_mode=False,
                                                       memory_config=dram)
    if case.op == "ttnn.split_query_key_value_and_split_heads":
        return ttnn.transformer.split_query_key_value_and_split_heads(
            ts[0], None, num_heads=case.kwargs["num_heads"], num_kv_heads=case.kwargs["num_kv_heads"],
            transpose_key=case.kwargs["transpose_key"], memory_config=dram)
    if case.op == "ttnn.paged_fill_cache":
        return ttnn.experimental.paged_fill_cache(ts[0], ts[1], ts[2], batch_idx=case.kwargs["batch_idx"])
    if case.op == "ttnn.paged_scaled_dot_product_attention_decode":
        return ttnn.transformer.paged_scaled_dot_product_attention_decode(ts[0], ts[1], ts[2], ts[3], is_causal=True,
                                                                          cur_pos_tensor=ts[4], memory_config=dram)
    if case.op == "ttnn.paged_update_cache":  # update index as a tensor, as tt-mlir's runtime passes it
        return ttnn.experimental.paged_update_cache(ts[0], ts[1], update_idxs_tensor=ts[2],
                                                    page_table=ts[3] if len(ts) > 3 else None)
    if case.op == "ttnn.nlp_concat_heads_decode":  # runtime/.../nlp_concat_heads_decode.cpp: sub_core_grids
        grid = ts[0].memory_config().shard_spec.grid if ts[0].is_sharded() else None
        ranges = grid.ranges() if grid is not None else []
        sub = grid if grid is not None and (len(ranges) > 1 or ranges[0].start.x or ranges[0].start.y) else None
        return ttnn.experimental.nlp_concat_heads_decode(ts[0], num_heads=case.kwargs["num_heads"], sub_core_grids=sub)
    if case.op == "ttnn.nlp_create_qkv_heads_decode":
        return ttnn.experimental.nlp_create_qkv_heads_decode(
            ts[0], num_heads=case.kwargs["num_heads"], num_kv_heads=case.kwargs["num_kv_heads"],
            overlap_qk_coregrid=True, memory_config=ttnn.L1_HEIGHT_SHARDED_MEMORY_CONFIG)
    if case.op == "ttnn.scaled_dot_product_attention_decode":
        return ttnn.transformer.scaled_dot_product_attention_decode(ts[0], ts[1], ts[2], is_causal=True,
                                                                    cur_pos_tensor=ts[3], memory_config=dram)
    raise ValueError(case.op)


ONLY = tuple(sys.argv[1].split(",")) if len(sys.argv) > 1 else ()  # id prefixes: measure only those (appended)


def memory_config(shape, cores: int, dev):
    """DRAM interleaved, or height-sharded in L1 over the first ``cores`` cores (row-major), one equal
    full-width shard each."""
    if not cores:
        return ttnn.DRAM_MEMORY_CONFIG
    grid = dev.compute_with_storage_grid_size()
    crs = ttnn.num_cores_to_corerangeset(cores, grid, True)
    height = 1
    for d in shape[:-1]:
        height *= d
    spec = ttnn.ShardSpec(crs, [height // cores, shape[-1]], ttnn.ShardOrientation.ROW_MAJOR)
    return ttnn.MemoryConfig(ttnn.TensorMemoryLayout.HEIGHT_SHARDED, ttnn.BufferType.L1, spec)


def main() -> int:
    dev = ttnn.open_device(device_id=0)
    dev.disable_and_clear_program_cache()
    with OUT.open("a" if ONLY else "w") as f:
        for case in CASES:
            if ONLY and not case.id.startswith(ONLY):
                continue
            dtypes = case.dtypes or ("bf16",) * len(case.operands)
            sharded = case.sharded or (0,) * len(case.operands)
            try:
                ts = [ttnn.empty(list(s), W.tt_dtype(d), ttnn.TILE_LAYOUT if d not in ("u32", "si32") else ttnn.ROW_MAJOR_LAYOUT,
                                 dev, memory_config(s, n, dev)) for s, d, n in zip(case.operands, dtypes, sharded)]
            except Exception as exc:  # noqa: BLE001 - recorded: the inputs cannot be made
                f.write(json.dumps({"id": case.id, "error": "inputs: " + W.short_error(exc), "cbs": [],
                                    "l1_buffers": []}) + "\n")
                continue
            ttnn._ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NO_DISPATCH)
            err = None
            try:
                call(case, ts)
            except Exception as exc:  # a TT_FATAL of the op: recorded
                err = W.short_error(exc)
            graph = ttnn._ttnn.graph.end_graph_capture()
            parsed = W.parse_graph(graph)
            cbs = W.cb_records(parsed, ("size", "core_ranges", "borrowed", "factory", "kind", "op", "program"))
            bufs = [{k: b[k] for k in ("size", "page_size", "buffer_type", "layout", "freed")}
                    for b in parsed["l1_buffers"]]
            f.write(json.dumps({"id": case.id, "error": err, "cbs": cbs, "l1_buffers": bufs}) + "\n")
            for t in ts:
                ttnn.deallocate(t)
    ttnn.close_device(dev)
    print(f"{len(CASES)} cases -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
