"""JSON-lines protocol between the analyzer and the ttnn worker.

One request per line on the worker's stdin, one response per line on its
stdout.  Everything is plain JSON so the worker needs nothing but ttnn and the
standard library.

Tensor descriptor (operands, the expected result, fillers)::

    {"shape": [1, 128, 768], "dtype": "bf16" | "f32" | "bfp_bf8" | "bfp_bf4" | "u32" | "si32" | "u16" | "u8",
     "layout": "tile" | "row_major",
     "buffer_type": "dram" | "l1" | "system_memory",
     "memory_layout": "interleaved" | "height_sharded" | "width_sharded" | "block_sharded" | null,
     "shard": null | {"core_ranges": [[x0, y0, x1, y1], ...], "shape": [h, w], "orientation": "row_major"}}

``shard.shape`` is in elements (tt-metal ShardSpec), ``core_ranges`` inclusive.

Request::

    {"id": 7, "op": "ttnn.matmul",
     "operands": [<tensor>, ...],          # one per IR operand (null for non-tensor operands)
     "attrs": {...},                        # the op's attributes as ttanalyze.report.records.attr_value gives them
     "results": [<tensor>, ...],            # the IR's declared result types (output memory config, dtype, layout)
     "fillers": [<tensor>, ...]}            # tensors allocated before the op (live L1), optional

Response::

    {"id": 7, "ok": true,
     "cbs": [{"size": 131072, "core_ranges": [[0, 0, 1, 1]], "address": 111744}, ...],
     "l1_buffers": [{"size": 2048, "core_ranges": [...] | null, "per_bank": 2048}, ...],
     "cb_per_core_peak": 786432,            # max over cores of the CB bytes on that core (core ranges honoured)
     "outputs": [{"shape": [...], "padded_shape": [...], "dtype": "bf16", "layout": "tile",
                  "buffer_type": "l1", "memory_layout": "interleaved", "shard": null}],
     "error": null,                         # TT_FATAL / TT_THROW text when ok is false
     "device": {"arch": "blackhole", "grid": [11, 10], "l1_size": 1572864, "l1_base": 111744,
                "l1_bank_size": 1461120, "mock": true},
     "ttnn_version": "0.81.1", "tt_metal_sha": "d80d9482..."}

A special request ``{"id": 0, "op": "__info__"}`` returns only ``device`` and the versions.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1
