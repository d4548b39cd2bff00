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

    {"id": 7, "ok": true, "protocol": 1,
     "cbs": [{"size": 131072, "core_ranges": [[0, 0, 1, 1]], "address": 111744,
              "kind": "cb" | "dfb" | "scratchpad", "borrowed": false, "program": 0,
              "op": "MatmulDeviceOperation", "factory": "ttnn::prim::MatmulMultiCoreReuseMcast2DProgramFactory"}, ...],
     "l1_buffers": [{"size": 2048, "core_ranges": [...] | null, "per_bank": 2048,
                     "page_size": 2048, "layout": "INTERLEAVED", "buffer_type": "l1", "address": 0,
                     "freed": false}, ...],
     "cb_per_core_peak": 786432,            # max over cores of the CB bytes on that core (core ranges honoured)
     "l1_buffers_peak_per_bank": 0,         # peak of the per-bank bytes of the L1 buffers the op had alive at once
     "l1_allocated_per_bank": 81920,        # L1 bytes per bank allocated before the op (fillers, operands)
     "outputs": [{"shape": [...], "padded_shape": [...], "dtype": "bf16", "layout": "tile",
                  "buffer_type": "l1", "memory_layout": "interleaved", "shard": null}],
     "error": null,                         # TT_FATAL / TT_THROW text when ok is false
     "unsupported": true,                   # present when the worker does not translate the op/attribute
     "device": {"arch": "blackhole", "grid": [11, 10], "l1_size": 1572864, "l1_base": 111744,
                "l1_bank_size": 1461120, "l1_num_banks": 110, "l1_small_size": 0, "cb_limit": 1461120,
                "dram_num_banks": 8, "dram_bank_size": 4277141376, "mock": true, "open_kwargs": {}},
     "ttnn_version": "0.81.1", "tt_metal_sha": "d80d9482..."}

``cbs`` lists every program-scope L1 allocation: circular buffers (``cb``),
dataflow buffers (``dfb``) and kernel scratchpads; ``borrowed`` ones live in a
tensor's L1 buffer (globally allocated CBs, borrowing DFBs) and are left out of
``cb_per_core_peak``.  ``program`` numbers the programs of a composite op; a
program's allocations are released before the next one's.  Addresses are 0 under
NO_DISPATCH capture.

Optional request field ``"return_graph": true`` adds the raw captured graph
(``"graph"``, a list of nodes) to the response.  Besides the TTNN dialect ops,
the worker accepts ttnn's own ``ttnn.untilize``/``ttnn.tilize`` with attribute
``use_multicore`` (to pin a factory).  The client adds ``"crashed": true`` to
the response of a request during which the worker died or timed out.

The worker opens the device with ``ttnn.open_device(device_id=0, ...)``; its
command-line options ``--l1-small-size``, ``--worker-l1-size`` and
``--trace-region-size`` are passed through.  Device choice (client and worker
alike): ``$TT_METAL_MOCK_CLUSTER_DESC_PATH`` if set, else ``$TTANALYZE_MOCK_DESC``,
else real hardware when a tt-kmd device node exists, else the mock descriptor
:data:`DEFAULT_MOCK_DESC` (relative to the repository root).

A special request ``{"id": 0, "op": "__info__"}`` returns only ``device`` and the versions.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

PROTOCOL_VERSION = 1

MOCK_ENV = "TT_METAL_MOCK_CLUSTER_DESC_PATH"  # tt-metal: open a mock cluster from this descriptor
MOCK_OVERRIDE_ENV = "TTANALYZE_MOCK_DESC"
DEFAULT_MOCK_DESC = ("ttanalyze", "executor", "mock", "blackhole_P150.yaml")  # path parts from the repository root
# The machine-wide lock of the mock device: one process may hold it at a time (flock(1) on this file).
DEVICE_LOCK = str(Path(tempfile.gettempdir()) / "ttnn-mock.lock")
DEVICE_NODE_GLOBS = ("/dev/tenstorrent/*", "/dev/tenstorrent[0-9]*")  # tt-kmd device nodes
