"""CB and output-spec models of the layout conversions (ttanalyze/ops/layout_conversion.py).

Two kinds of expected values:

* every to_layout / to_memory_config / typecast of the real and seed fixtures,
  measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482): each op replayed with
  the ttnn call tt-mlir's runtime makes (ttanalyze/executor/ttnn_worker.py),
  under NO_DISPATCH graph capture with an empty L1; the table
  below lists the program factory (``program_factory_type``), every dataflow
  buffer / circular buffer / scratchpad (``c`` own L1, ``b`` borrowing a tensor's
  shard, ``s`` scratchpad) with its bytes and core ranges as captured, and the
  returned tensor (shape, padded shape, layout, dtype, buffer type, memory layout);
* one case per factory branch with the bytes derived by hand from the factory's
  formula (derivation in the comments), each cross-checked with a measurement
  on the same mock (say so where it is).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import pytest

from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ops.cb import CBModelError, contains
from ttanalyze.ops.layout_conversion import layout_conversion_spec
from ttanalyze.ops.work_split import closest_square_larger_than_b, grid_to_cores, split_blocks_for_tilize_wh
from ttanalyze.programs import context_for, program_of

from .conftest import BH_SYSTEM_DESC, FIXTURES, analyze_path

FREE = MOCK.l1_size - MOCK.l1_unreserved_base  # 1,461,120 B: get_max_l1_space with an empty L1
_RANGE = re.compile(r"\[(\d+)-(\d+) - (\d+)-(\d+)\]")


def cores_of(text: str) -> frozenset:
    """The cores of a captured core range set string ``{[0-0 - 3-1], [0-2 - 2-9]}``."""
    return frozenset((x, y) for m in _RANGE.finditer(text) for x0, y0, x1, y1 in [map(int, m.groups())]
                     for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def crs_cores(crs: CoreRangeSet) -> frozenset:
    return frozenset((x, y) for r in crs.ranges for x in range(r.start.x, r.end.x + 1)
                     for y in range(r.start.y, r.end.y + 1))


def per_core(cbs) -> dict:
    """core -> Counter of (kind, bytes) from ``[(kind, bytes, cores)]``; scratchpads (``s``) are left out."""
    out: dict = {}
    for kind, size, cores in cbs:
        if kind == "s":
            continue
        for c in cores:
            out.setdefault(c, Counter())[(kind, size)] += 1
    return out


def model_cbs(prog):
    return [("b" if cb.globally_allocated else "c", cb.bytes, crs_cores(cb.cores)) for cb in prog.cbs]


def measured(cbs):
    return [(k, size, cores_of(text)) for k, size, text in cbs]


def check(prog, factory: str, cbs) -> None:
    """The model's factory, per-core CBs and largest scratchpad equal the measured ones."""
    assert prog.factory.split("::")[-1] == factory.split("::")[-1]
    meas = measured(cbs)
    assert per_core(model_cbs(prog)) == per_core(meas)
    scratch: dict = {}
    for k, size, cores in meas:
        if k == "s":
            for c in cores:
                scratch[c] = scratch.get(c, 0) + size
    assert prog.extra_l1_per_core == max(scratch.values(), default=0)


@lru_cache(maxsize=None)
def _fixture(rel: str):
    return analyze_path(FIXTURES / rel)


def _op_at(analysis, line: int):
    names = ("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.typecast")
    return next(op for op in analysis.program.ops if op.pos.line == line and op.name in names)


# ---------------------------------------------------------------------------
# Every fixture instance, measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482)
# ---------------------------------------------------------------------------

MEASURED_FIXTURES = {
    'real/attention_o0/ttnn.mlir:35': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o0/ttnn.mlir:43': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o0/ttnn.mlir:60': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 8, 128, 128), (1, 8, 128, 128), 'tile', 'f32', 'dram', 'interleaved')),
    'real/attention_o0/ttnn.mlir:63': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 1), (1, 8, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o0/ttnn.mlir:68': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o1/ttnn.mlir:35': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o1/ttnn.mlir:43': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o1/ttnn.mlir:60': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 8, 128, 128), (1, 8, 128, 128), 'tile', 'f32', 'dram', 'interleaved')),
    'real/attention_o1/ttnn.mlir:63': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 1), (1, 8, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o1/ttnn.mlir:68': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o2/ttnn.mlir:39': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o2/ttnn.mlir:47': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/attention_o2/ttnn.mlir:49': ('InterleavedToShardedProgramFactory', [('b', 4096, '{[0-0 - 10-1], [0-2 - 9-2]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'l1', 'height_sharded')),
    'real/attention_o2/ttnn.mlir:54': ('InterleavedToShardedProgramFactory', [('b', 8192, '{[0-0 - 10-1], [0-2 - 9-2]}')],
        ((1, 8, 128, 128), (1, 8, 128, 128), 'tile', 'bf16', 'l1', 'height_sharded')),
    'real/attention_o2/ttnn.mlir:68': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 8, 128, 128), (1, 8, 128, 128), 'tile', 'f32', 'l1', 'height_sharded')),
    'real/attention_o2/ttnn.mlir:71': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 1), (1, 8, 128, 32), 'tile', 'bf16', 'l1', 'height_sharded')),
    'real/attention_o2/ttnn.mlir:76': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 4096, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 8, 128, 64), (1, 8, 128, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:31': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 0-8]}'), ('c', 2048, '{[0-0 - 0-8]}')],
        ((3, 3, 16, 32), (3, 3, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:35': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 0-0]}'), ('c', 2048, '{[0-0 - 0-0]}')],
        ((32,), (32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:39': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 2048, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 32, 32, 16), (1, 32, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:43': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 10-2], [0-3 - 9-9]}'), ('c', 2048, '{[0-0 - 10-2], [0-3 - 9-9]}')],
        ((32, 16, 3, 3), (32, 16, 3, 3), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:47': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 0-0]}'), ('c', 2048, '{[0-0 - 0-0]}')],
        ((1, 1, 1, 32), (1, 1, 1, 32), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:51': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 3-1], [0-2 - 2-9]}'), ('c', 2048, '{[0-0 - 3-1], [0-2 - 2-9]}')],
        ((1, 1, 1024, 16), (1, 1, 1024, 16), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:57': ('UntilizeCodegenProgramFactory', [('c', 4096, '{[0-0 - 10-1], [0-2 - 9-2]}'), ('c', 4096, '{[0-0 - 10-1], [0-2 - 9-2]}')],
        ((1, 1, 1024, 32), (1, 1, 1024, 32), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/conv2d_block_o0/ttnn.mlir:61': ('TilizeMultiCoreDefaultProgramFactory', [('c', 2048, '{[0-0 - 0-7]}'), ('c', 2048, '{[0-0 - 0-7]}')],
        ((1, 1, 256, 32), (1, 1, 256, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o0/ttnn.mlir:22': ('TilizeMultiCoreDefaultProgramFactory', [('c', 8192, '{[0-0 - 0-0]}'), ('c', 8192, '{[0-0 - 0-0]}')],
        ((32, 128), (32, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o0/ttnn.mlir:24': ('TilizeMultiCoreDefaultProgramFactory', [('c', 16384, '{[0-0 - 0-3]}'), ('c', 16384, '{[0-0 - 0-3]}')],
        ((128, 256), (128, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o0/ttnn.mlir:26': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 16384, '{[0-0 - 0-0]}'), ('c', 16384, '{[0-0 - 0-0]}')],
        ((256,), (32, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o0/ttnn.mlir:34': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 0-7]}'), ('c', 2048, '{[0-0 - 0-7]}')],
        ((256, 10), (256, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o1/ttnn.mlir:22': ('TilizeMultiCoreDefaultProgramFactory', [('c', 8192, '{[0-0 - 0-0]}'), ('c', 8192, '{[0-0 - 0-0]}')],
        ((32, 128), (32, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o1/ttnn.mlir:24': ('TilizeMultiCoreDefaultProgramFactory', [('c', 16384, '{[0-0 - 0-3]}'), ('c', 16384, '{[0-0 - 0-3]}')],
        ((128, 256), (128, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o1/ttnn.mlir:26': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 16384, '{[0-0 - 0-0]}'), ('c', 16384, '{[0-0 - 0-0]}')],
        ((256,), (32, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o1/ttnn.mlir:34': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 0-7]}'), ('c', 2048, '{[0-0 - 0-7]}')],
        ((256, 10), (256, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o2/ttnn.mlir:27': ('TilizeMultiCoreDefaultProgramFactory', [('c', 8192, '{[0-0 - 0-0]}'), ('c', 8192, '{[0-0 - 0-0]}')],
        ((32, 128), (32, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o2/ttnn.mlir:29': ('TilizeMultiCoreDefaultProgramFactory', [('c', 16384, '{[0-0 - 0-3]}'), ('c', 16384, '{[0-0 - 0-3]}')],
        ((128, 256), (128, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o2/ttnn.mlir:31': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 16384, '{[0-0 - 0-0]}'), ('c', 16384, '{[0-0 - 0-0]}')],
        ((256,), (32, 256), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o2/ttnn.mlir:33': ('InterleavedToShardedProgramFactory', [('b', 8192, '{[0-0 - 0-0]}')],
        ((32, 128), (32, 128), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/mlp_o2/ttnn.mlir:35': ('InterleavedToShardedProgramFactory', [('b', 2048, '{[0-0 - 7-0]}')],
        ((256,), (32, 256), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/mlp_o2/ttnn.mlir:43': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 0-7]}'), ('c', 2048, '{[0-0 - 0-7]}')],
        ((256, 10), (256, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mlp_o2/ttnn.mlir:45': ('ReshardGenericFactory', [('b', 16384, '{[0-0 - 0-0]}')],
        ((32, 256), (32, 256), 'tile', 'bf16', 'l1', 'height_sharded')),
    'real/mlp_o2/ttnn.mlir:50': ('ShardedToInterleavedProgramFactory', [('b', 2048, '{[0-0 - 0-0]}')],
        ((32, 10), (32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:45': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}'), ('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}')],
        ((1, 64, 4, 16, 16), (1, 64, 4, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:49': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}'), ('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}')],
        ((64, 4, 16, 16), (64, 4, 16, 16), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:53': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((64, 6, 18, 18), (64, 6, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:59': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:63': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 4096, '{[0-0 - 10-7], [0-8 - 9-9]}'), ('c', 4096, '{[0-0 - 10-7], [0-8 - 9-9]}')],
        ((1, 6, 18, 18, 64), (1, 6, 18, 18, 64), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:67': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 5-3], [0-4 - 4-9]}'), ('c', 4096, '{[0-0 - 5-3], [0-4 - 4-9]}')],
        ((1728, 64), (1728, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:73': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 6-3], [0-4 - 5-9]}'), ('c', 4096, '{[0-0 - 6-3], [0-4 - 5-9]}')],
        ((1, 4, 16, 16, 64), (1, 4, 16, 32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:79': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 2, 16, 16), (1, 4, 32, 2, 32, 32), 'tile', 'f32', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:82': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 4096, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 1, 1, 1), (1, 4, 32, 1, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:88': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 2, 16, 16), (1, 4, 32, 2, 32, 32), 'tile', 'f32', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:92': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 4096, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 1, 1, 1), (1, 4, 32, 1, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:102': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_constpad_o0/ttnn.mlir:109': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:46': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}'), ('c', 2048, '{[0-0 - 8-5], [0-6 - 7-9]}')],
        ((1, 64, 4, 16, 16), (1, 64, 4, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:62': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 64, 6, 18, 1), (1, 64, 6, 18, 1), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:64': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 64, 6, 18, 16), (1, 64, 6, 18, 16), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:66': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 64, 6, 18, 1), (1, 64, 6, 18, 1), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:72': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 64, 6, 18, 18), (1, 64, 6, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:76': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:80': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 4096, '{[0-0 - 10-7], [0-8 - 9-9]}'), ('c', 4096, '{[0-0 - 10-7], [0-8 - 9-9]}')],
        ((1, 6, 18, 18, 64), (1, 6, 18, 18, 64), 'row_major', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:84': ('TilizeMultiCoreDefaultProgramFactory', [('c', 4096, '{[0-0 - 5-3], [0-4 - 4-9]}'), ('c', 4096, '{[0-0 - 5-3], [0-4 - 4-9]}')],
        ((1728, 64), (1728, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:90': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 6-3], [0-4 - 5-9]}'), ('c', 4096, '{[0-0 - 6-3], [0-4 - 5-9]}')],
        ((1, 4, 16, 16, 64), (1, 4, 16, 32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:96': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 2, 16, 16), (1, 4, 32, 2, 32, 32), 'tile', 'f32', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:99': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 4096, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 1, 1, 1), (1, 4, 32, 1, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:105': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 2, 16, 16), (1, 4, 32, 2, 32, 32), 'tile', 'f32', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:109': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 4096, '{[0-0 - 10-9]}')],
        ((1, 4, 32, 1, 1, 1), (1, 4, 32, 1, 32, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:119': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/mochi_small_edgepad_o0/ttnn.mlir:126': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((64,), (32, 64), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:39': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 0-3]}'), ('c', 49152, '{[0-0 - 0-3]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:41': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:44': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:50': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:54': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:62': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:69': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:78': ('TilizeMultiCoreBlockProgramFactory', [('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 192, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 448, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}')],
        ((768, 3072), (768, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:80': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('s', 192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072,), (32, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:92': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072, 768), (3072, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o0/ttnn.mlir:94': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:39': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 0-3]}'), ('c', 49152, '{[0-0 - 0-3]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:41': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:44': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:50': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:54': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:62': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:69': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:78': ('TilizeMultiCoreBlockProgramFactory', [('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 192, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 448, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}')],
        ((768, 3072), (768, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:80': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('s', 192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072,), (32, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:92': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072, 768), (3072, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o1/ttnn.mlir:94': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:48': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 0-3]}'), ('c', 49152, '{[0-0 - 0-3]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:50': ('InterleavedToShardedProgramFactory', [('b', 6144, '{[0-0 - 7-3]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'bf16', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:52': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:55': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:61': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 8192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'f32', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:65': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 0-3]}'), ('c', 4096, '{[0-0 - 0-3]}')],
        ((1, 128, 1), (1, 128, 32), 'tile', 'bf16', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:73': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:77': ('InterleavedToShardedProgramFactory', [('b', 2048, '{[0-0 - 10-1], [0-2 - 1-2]}')],
        ((1, 1, 768), (1, 32, 768), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:82': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:86': ('InterleavedToShardedProgramFactory', [('b', 2048, '{[0-0 - 10-1], [0-2 - 1-2]}')],
        ((1, 1, 768), (1, 32, 768), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:93': ('TilizeMultiCoreBlockProgramFactory', [('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 10240, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('c', 2048, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 192, '{[1-9 - 1-9], [3-9 - 3-9], [5-9 - 5-9], [7-9 - 7-9], [9-9 - 9-9]}'), ('s', 448, '{[0-0 - 9-8], [0-9 - 0-9], [2-9 - 2-9], [4-9 - 4-9], [6-9 - 6-9], [8-9 - 8-9]}')],
        ((768, 3072), (768, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:95': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 2048, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('s', 192, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072,), (32, 3072), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:97': ('ShardedToInterleavedProgramFactory', [('b', 6144, '{[0-0 - 7-3]}')],
        ((128, 768), (128, 768), 'tile', 'bf16', 'l1', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:99': ('InterleavedToShardedProgramFactory', [('b', 2048, '{[0-0 - 10-7], [0-8 - 7-8]}')],
        ((3072,), (32, 3072), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:105': ('ShardedToInterleavedProgramFactory', [('b', 8192, '{[0-0 - 10-7], [0-8 - 7-8]}')],
        ((128, 3072), (128, 3072), 'tile', 'bf16', 'l1', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:111': ('ShardedToInterleavedProgramFactory', [('b', 8192, '{[0-0 - 10-7], [0-8 - 7-8]}')],
        ((1, 128, 3072), (1, 128, 3072), 'tile', 'bf16', 'l1', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:115': ('TilizeMultiCoreDefaultProgramFactory', [('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}'), ('c', 49152, '{[0-0 - 9-5], [0-6 - 8-9]}')],
        ((3072, 768), (3072, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:117': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 49152, '{[0-0 - 0-0]}'), ('c', 49152, '{[0-0 - 0-0]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/transformer_ffn_o2/ttnn.mlir:119': ('InterleavedToShardedProgramFactory', [('b', 20480, '{[0-0 - 9-3]}')],
        ((128, 3072), (128, 3072), 'tile', 'bf16', 'l1', 'block_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:121': ('InterleavedToShardedProgramFactory', [('b', 2048, '{[0-0 - 10-1], [0-2 - 1-2]}')],
        ((768,), (32, 768), 'tile', 'bf16', 'l1', 'width_sharded')),
    'real/transformer_ffn_o2/ttnn.mlir:129': ('ShardedToInterleavedProgramFactory', [('b', 6144, '{[0-0 - 7-3]}')],
        ((1, 128, 768), (1, 128, 768), 'tile', 'bf16', 'dram', 'interleaved')),
    'seeds/mochi_conv1_norm2_reshape_wh.mlir:13': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 768, 4, 60, 106), (1, 768, 4, 64, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_gather_wh.mlir:33': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 768, 4, 60, 106), (1, 768, 4, 64, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_gather_wh.mlir:39': ('UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory', [('c', 716800, '{[0-0 - 10-8], [0-9 - 9-9]}'), ('c', 716800, '{[0-0 - 10-8], [0-9 - 9-9]}'), ('c', 81920, '{[10-9 - 10-9]}'), ('c', 81920, '{[10-9 - 10-9]}')],
        ((4, 4884480), (4, 4884480), 'row_major', 'bf16', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_gather_wh.mlir:44': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 8192, '{[0-0 - 0-0]}')],
        ((6,), (32, 32), 'tile', 'u32', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_gather_wh.mlir:46': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((6,), (6,), 'row_major', 'u32', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_untilize_wh.mlir:17': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((1, 768, 4, 60, 106), (1, 768, 4, 64, 128), 'tile', 'bf16', 'dram', 'interleaved')),
    'seeds/mochi_replicate_pad_untilize_wh.mlir:20': ('UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory', [('c', 716800, '{[0-0 - 10-8], [0-9 - 9-9]}'), ('c', 716800, '{[0-0 - 10-8], [0-9 - 9-9]}'), ('c', 81920, '{[10-9 - 10-9]}'), ('c', 81920, '{[10-9 - 10-9]}')],
        ((4, 4884480), (4, 4884480), 'row_major', 'bf16', 'dram', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:21': ('TilizeMultiCoreDefaultProgramFactory', [('c', 16384, '{[0-0 - 0-0]}'), ('c', 16384, '{[0-0 - 0-0]}')],
        ((32, 128), (32, 128), 'tile', 'f32', 'l1', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:22': ('TilizeMultiCoreDefaultProgramFactory', [('c', 16384, '{[0-0 - 0-7]}'), ('c', 16384, '{[0-0 - 0-7]}')],
        ((256, 128), (256, 128), 'tile', 'f32', 'l1', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:23': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 32768, '{[0-0 - 0-0]}'), ('c', 32768, '{[0-0 - 0-0]}')],
        ((256,), (32, 256), 'tile', 'f32', 'l1', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:30': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 32768, '{[0-0 - 0-0]}'), ('c', 32768, '{[0-0 - 0-0]}')],
        ((10, 256), (32, 256), 'tile', 'f32', 'l1', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:31': ('TilizeWithValPaddingMultiCoreDefaultFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((10,), (32, 32), 'tile', 'f32', 'l1', 'interleaved')),
    'seeds/simple_mlp_wh.mlir:36': ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [('c', 4096, '{[0-0 - 0-0]}'), ('c', 4096, '{[0-0 - 0-0]}')],
        ((32, 10), (32, 10), 'row_major', 'f32', 'dram', 'interleaved')),
    'real/cb_fits_argmax_7104x4096_o0/ttnn.mlir:15': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 12288, '{[0-0 - 7-3], [0-4 - 6-9]}'), ('c', 12288, '{[0-0 - 7-3], [0-4 - 6-9]}'), ('s', 512, '{[0-0 - 7-3], [0-4 - 6-9]}')],
        ((7104,), (32, 7104), 'tile', 'u32', 'dram', 'interleaved')),
    'real/cb_fits_argmax_7104x4096_o0/ttnn.mlir:17': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((7104,), (32, 7104), 'tile', 'si32', 'dram', 'interleaved')),
    'real/cb_fits_argmax_87216x64_o0/ttnn.mlir:15': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 106496, '{[0-0 - 10-3], [0-4 - 9-9]}'), ('c', 106496, '{[0-0 - 10-3], [0-4 - 9-9]}'), ('c', 90112, '{[10-4 - 10-4]}'), ('c', 90112, '{[10-4 - 10-4]}'), ('s', 2944, '{[10-4 - 10-4]}'), ('s', 3456, '{[0-0 - 10-3], [0-4 - 9-9]}')],
        ((87216,), (32, 87232), 'tile', 'u32', 'dram', 'interleaved')),
    'real/cb_fits_argmax_87216x64_o0/ttnn.mlir:17': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((87216,), (32, 87232), 'tile', 'si32', 'dram', 'interleaved')),
    'real/cb_fits_topk_k3552_o0/ttnn.mlir:14': ('TilizeMultiCoreBlockProgramFactory', [('c', 6144, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}'), ('c', 6144, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}'), ('c', 4096, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('c', 4096, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('s', 256, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('s', 320, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}')],
        ((128, 4096), (128, 4096), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/cb_fits_topk_k3552_o0/ttnn.mlir:18': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((128, 3552), (128, 3552), 'tile', 'si32', 'dram', 'interleaved')),
    'real/cb_overflow_argmax_7136x4096_o0/ttnn.mlir:15': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 12288, '{[0-0 - 7-3], [0-4 - 6-9]}'), ('c', 12288, '{[0-0 - 7-3], [0-4 - 6-9]}'), ('c', 4096, '{[7-4 - 7-4]}'), ('c', 4096, '{[7-4 - 7-4]}'), ('s', 256, '{[7-4 - 7-4]}'), ('s', 512, '{[0-0 - 7-3], [0-4 - 6-9]}')],
        ((7136,), (32, 7136), 'tile', 'u32', 'dram', 'interleaved')),
    'real/cb_overflow_argmax_7136x4096_o0/ttnn.mlir:17': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((7136,), (32, 7136), 'tile', 'si32', 'dram', 'interleaved')),
    'real/cb_overflow_argmax_87224x64_o0/ttnn.mlir:15': ('TilizeWithValPaddingMultiCoreBlockInterleavedFactory', [('c', 106496, '{[0-0 - 10-3], [0-4 - 9-9]}'), ('c', 106496, '{[0-0 - 10-3], [0-4 - 9-9]}'), ('c', 90112, '{[10-4 - 10-4]}'), ('c', 90112, '{[10-4 - 10-4]}'), ('s', 2944, '{[10-4 - 10-4]}'), ('s', 3456, '{[0-0 - 10-3], [0-4 - 9-9]}')],
        ((87224,), (32, 87232), 'tile', 'u32', 'dram', 'interleaved')),
    'real/cb_overflow_argmax_87224x64_o0/ttnn.mlir:17': ('TypecastProgramFactory', [('c', 8192, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((87224,), (32, 87232), 'tile', 'si32', 'dram', 'interleaved')),
    'real/cb_overflow_topk_k3584_o0/ttnn.mlir:14': ('TilizeMultiCoreBlockProgramFactory', [('c', 6144, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}'), ('c', 6144, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}'), ('c', 4096, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('c', 4096, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('s', 256, '{[4-2 - 4-2], [8-5 - 8-5]}'), ('s', 320, '{[0-0 - 8-1], [0-2 - 3-2], [0-3 - 8-4], [0-5 - 7-9], [5-2 - 8-2]}')],
        ((128, 4096), (128, 4096), 'tile', 'bf16', 'dram', 'interleaved')),
    'real/cb_overflow_topk_k3584_o0/ttnn.mlir:18': ('TypecastProgramFactory', [('c', 4096, '{[0-0 - 10-9]}'), ('c', 8192, '{[0-0 - 10-9]}')],
        ((128, 3584), (128, 3584), 'tile', 'si32', 'dram', 'interleaved')),
}


@pytest.mark.parametrize("where", sorted(MEASURED_FIXTURES))
def test_fixture_instance_matches_the_mock(where):
    factory, cbs, returned = MEASURED_FIXTURES[where]
    rel, line = where.rsplit(":", 1)
    a = _fixture(rel)
    op = _op_at(a, int(line))
    res = program_of(a, op, arch=MOCK, free_l1=FREE)
    assert res.status == "modeled", res.reason
    check(res.program, factory, cbs)
    spec = layout_conversion_spec(context_for(a, op, arch=MOCK, free_l1=FREE))[0]
    assert (spec.shape, spec.padded_shape, spec.layout, spec.dtype, spec.buffer_type, spec.memory_layout) == returned


def test_every_fixture_conversion_is_in_the_table():
    names = ("ttnn.to_layout", "ttnn.to_memory_config", "ttnn.typecast")
    found = set()
    for path in sorted((FIXTURES / "real").glob("*/ttnn.mlir")) + sorted((FIXTURES / "seeds").glob("*.mlir")):
        a = _fixture(str(path.relative_to(FIXTURES)))
        found |= {f"{path.relative_to(FIXTURES)}:{op.pos.line}" for op in a.program.ops if op.name in names}
    assert found == set(MEASURED_FIXTURES)


# ---------------------------------------------------------------------------
# One case per factory branch: bytes derived by hand (comments), each also
# checked against the layout-conversion instances of the op-level campaign on mock P150,
# ttnn 0.81.1 (measurements/opdiff/results.jsonl.gz, benchmarks/opdiff.py).
# ---------------------------------------------------------------------------

X, Y = 11, 10  # mock P150 compute grid
COL = grid_to_cores(X * Y, (X, Y), row_wise=False)  # column by column: (0,0), (0,1), ..., (0,9), (1,0), ...
ROW = grid_to_cores(X * Y, (X, Y), row_wise=True)


def dram(shape, dtype="bf16", layout="tile"):
    return TensorDesc(tuple(shape), dtype, layout)


def l1(shape, dtype="bf16", layout="tile"):
    return TensorDesc(tuple(shape), dtype, layout, "l1", "interleaved", (10, 11))


def sharded(shape, kind, ranges, grid, dtype="bf16", layout="tile"):
    crs = CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in ranges))
    return TensorDesc(tuple(shape), dtype, layout, "l1", kind, grid, crs)


def run(op, inp, res, free=FREE, attrs="", tt_metal="0.81.1"):
    """program_of for a single-op module on the mock P150 arch (the BH system_desc is replaced by MOCK)."""
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_text
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, [inp], [res], attrs)), "t.mlir"),
                tt_metal=tt_metal)
    op_ = a.program.ops[0]
    try:
        spec = layout_conversion_spec(context_for(a, op_, arch=MOCK, free_l1=free))
    except CBModelError:
        spec = None
    return program_of(a, op_, arch=MOCK, free_l1=free), spec


def cbs(prog):
    """[(name, bytes, cores)] of a model, cores as frozensets."""
    return [(cb.name, cb.bytes, crs_cores(cb.cores)) for cb in prog.cbs]


def on(prog, core) -> int:
    """Own (not borrowed) CB bytes of ``core``."""
    return sum(cb.bytes for cb in prog.static_cbs if contains(cb.cores, *core))


# --- tilize ---------------------------------------------------------------

def test_tilize_default_factory():
    # [1, 8, 128, 64] row-major -> tile: rows of ceil(64/32) = 2 tiles, 1*8*128/32 = 32 tile rows;
    # split_blocks_for_tilize over the 110-core grid: 1 row per core, 32 cores column by column;
    # input and output DFBs of 2 tiles = 2 x 2,048 = 4,096 B each.  Measured: the same (fixture attention_o0:35).
    r, spec = run("ttnn.to_layout", dram((1, 8, 128, 64), layout="row_major"), dram((1, 8, 128, 64)))
    assert r.program.factory == "TilizeMultiCoreDefaultProgramFactory"
    assert [(n, b) for n, b, _ in cbs(r.program)] == [("input", 4096), ("output", 4096)]
    assert all(c == frozenset(COL[:32]) for _, _, c in cbs(r.program))
    assert spec[0].padded_shape == (1, 8, 128, 64) and spec[0].layout == "tile"


def test_tilize_default_factory_cliff_core():
    # [6880, 64]: 215 tile rows; ceil(215/110) = 2 rows per core -> ceil(215/2) = 108 cores, the last one
    # (cliff) with 215 % 2 = 1 row; every core holds 2 x 2-tile DFBs.  Measured: the same (tilize_default_215rows).
    r, _ = run("ttnn.to_layout", dram((215 * 32, 64), layout="row_major"), dram((215 * 32, 64)))
    assert {c for _, _, c in cbs(r.program)} == {frozenset(COL[:108])}
    assert r.program.per_core_bytes() == 2 * 2 * 2048


def test_tilize_block_factory_2d_split():
    # [768, 3072]: 24 x 96 tiles; the row split needs 24 cores, the 2D split
    # closest_square(ceil(2304/110) = 21, 96, 24, 110): sqrt 4 (16 != 21), then s = 5 gives
    # ceil(96/5) * ceil(24/5) = 20 * 5 = 100 < 110 -> 100 cores > 24 -> block factory.  s = 5 <=
    # limit (1,461,120 - 128) // (2048 + 2048 + 64) = 351.  Per block row: 19 full blocks + a
    # cliff-row block of 96 - 95 = 1 tile; 4 full block rows + a cliff column of 24 - 20 = 4 tile rows.
    # Full set (80 + 19 cores): DFBs 5 x 2,048 = 10,240 B, staging scratchpad 5 * 64 + 128 = 448 B;
    # cliff-row set (5 cores: every 20th core, column by column): 2,048 B DFBs, scratchpad 64 + 128 = 192 B.
    # Measured: the same (fixture transformer_ffn_o0:78).
    r, _ = run("ttnn.to_layout", dram((768, 3072), layout="row_major"), dram((768, 3072)))
    p = r.program
    assert p.factory == "TilizeMultiCoreBlockProgramFactory"
    cliff = frozenset(COL[i] for i in (19, 39, 59, 79, 99))
    assert cbs(p) == [("in_full", 10240, frozenset(COL[:100]) - cliff), ("out_full", 10240, frozenset(COL[:100]) - cliff),
                      ("in_cliffrow", 2048, cliff), ("out_cliffrow", 2048, cliff)]
    assert p.extra_l1_per_core == 448 and p.per_core_bytes() == 20480


def test_tilize_block_factory_sub_blocks_under_the_l1_limit():
    # [32, 4884480] row-major: 1 x 152,640 tiles, one row of tiles does not fit -> block factory.
    # Square block s = 1401 (smallest with ceil(152640/s) < 110) > limit 351: sub-blocks sb < 351
    # with the most blocks (110: 1387.6 <= n*sb < 1400.4), then the smallest n (4), then the largest
    # sb: 350 -> blocks of 1,400 tiles on 109 cores + a cliff block of 152,640 - 109 * 1,400 = 40 tiles.
    # DFBs 350 x 2,048 = 716,800 B (scratchpad 350 * 64 + 128 = 22,528 B) and 40 x 2,048 = 81,920 B
    # (scratchpad 2,688 B) on the cliff core (10,9).  Measured: the same (tilize_block_wide_1row_b).
    r, _ = run("ttnn.to_layout", dram((32, 4884480), layout="row_major"), dram((32, 4884480)))
    p = r.program
    assert [(n, b) for n, b, _ in cbs(p)] == [("in_full", 716800), ("out_full", 716800),
                                              ("in_cliffrow", 81920), ("out_cliffrow", 81920)]
    assert cbs(p)[2][2] == frozenset({(10, 9)}) and len(cbs(p)[0][2]) == 109
    assert p.extra_l1_per_core == 22528 and on(p, (0, 0)) == 1433600


def test_tilize_single_core_factory():
    # ttnn.tilize(use_multicore=False) of [32, 409600]: 12,800 tiles per row > (786,432 - 111,744) // 4,096
    # = 164, so the largest divisor of 12,800 up to 164: 160 tiles -> 2 x 327,680 B on (0,0).
    # Measured: the same (tilize_single_core_wide).
    r, _ = run("ttnn.tilize", dram((32, 409600), layout="row_major"), dram((32, 409600)), attrs="use_multicore = false")
    assert r.program.factory == "TilizeSingleCoreProgramFactory"
    assert cbs(r.program) == [("in", 327680, frozenset({(0, 0)})), ("out", 327680, frozenset({(0, 0)}))]


def test_tilize_sharded_factory():
    # height-sharded row-major [256, 64] on 4 cores, shards [64, 64] = 4 tiles: both DFBs borrow the
    # shards (4 x 2,048 = 8,192 B each, no L1 of their own); towards L1 interleaved the output DFB is
    # local, one shard row = 2 tiles = 4,096 B.  Measured: the same (tilize_sharded_height,
    # tilize_sharded_to_interleaved_l1).
    cores = frozenset((x, 0) for x in range(4))
    src = sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1), layout="row_major")
    r, spec = run("ttnn.to_layout", src, sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1)))
    assert r.program.factory == "TilizeMultiCoreShardedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(8192, True), (8192, True)]
    assert r.program.per_core_bytes() == 0 and spec[0].shard_shape == (64, 64)
    r, _ = run("ttnn.to_layout", src, l1((256, 64)))
    assert [(cb.bytes, cb.globally_allocated, crs_cores(cb.cores)) for cb in r.program.cbs] == [
        (8192, True, cores), (4096, False, cores)]


def test_tilize_with_val_padding_default_factory():
    # [256, 10] -> padded [256, 32]: 8 padded rows of 1 tile over 8 cores column by column, 2,048 B DFBs.
    # Measured: the same (fixture mlp_o0:34).
    r, spec = run("ttnn.to_layout", dram((256, 10), layout="row_major"), dram((256, 10)))
    assert r.program.factory == "TilizeWithValPaddingMultiCoreDefaultFactory"
    assert cbs(r.program) == [("in", 2048, frozenset(COL[:8])), ("out", 2048, frozenset(COL[:8]))]
    assert spec[0].padded_shape == (256, 32)


def test_tilize_with_val_padding_block_factory():
    # rank-1 [3072]: viewed as [1, 3072], padded to [32, 3072] = 1 x 96 tiles.  96 > 32 tiles and wider
    # than tall: the row split uses 1 core, the 2D split closest_square(1, 96, 1, 110) = 1 (1 is a square,
    # 96 * 1 < 110) -> 96 cores -> block factory: 1-tile DFBs (2,048 B) and a 64 + 128 = 192 B staging
    # scratchpad on 96 cores column by column.  Measured: the same (fixture transformer_ffn_o0:80).
    r, spec = run("ttnn.to_layout", dram((3072,), layout="row_major"), dram((3072,)))
    assert r.program.factory == "TilizeWithValPaddingMultiCoreBlockInterleavedFactory"
    assert {(b, c) for _, b, c in cbs(r.program)} == {(2048, frozenset(COL[:96]))}
    assert r.program.extra_l1_per_core == 192
    assert spec[0].shape == (3072,) and spec[0].padded_shape == (32, 3072)


def test_tilize_with_val_padding_single_core_factory():
    # TilizeWithValPaddingSingleCoreFactory (ttnn.tilize_with_val_padding(use_multicore=False), not reachable
    # from IR: to_layout always asks for multi-core): [30, 100] -> [32, 128], a row of 4 tiles <=
    # ((674,688 - 32) // (2*32*2 + 2)) // 32 = 162 -> 4-tile DFBs = 8,192 B on (0,0).  Measured: the same.
    from ttanalyze.ops.layout_conversion import _twvp_single_core
    from ttanalyze.ops.tensors import MemCfg, Tensor
    from ttanalyze.ir.attrs import DataType
    mem = MemCfg("dram", "interleaved")
    t = Tensor((30, 100), (30, 100), DataType("bf16"), "row_major", mem)
    out = Tensor((30, 100), (32, 128), DataType("bf16"), "tile", mem)
    p = _twvp_single_core(t, out, MOCK)
    assert cbs(p) == [("in", 8192, frozenset({(0, 0)})), ("out", 8192, frozenset({(0, 0)}))]


# --- untilize ---------------------------------------------------------------

def test_untilize_codegen_tile_rows():
    # [1, 1, 1024, 32] bf16: 32 tile rows of 1 tile -> codegen main split over 32 cores row by row;
    # double-buffered CBs: 2 x 2,048 = 4,096 B each.  Measured: the same (fixture conv2d_block_o0:57).
    r, _ = run("ttnn.to_layout", dram((1, 1, 1024, 32)), dram((1, 1, 1024, 32), layout="row_major"))
    assert r.program.factory == "UntilizeCodegenProgramFactory"
    assert cbs(r.program) == [("in", 4096, frozenset(ROW[:32])), ("out", 4096, frozenset(ROW[:32]))]


def test_untilize_codegen_column_and_2d_splits():
    # [32, 2048]: one tile row of 64 tiles -> column parallel: split_work_to_cores(64) = 64 cores row by row,
    # 1 tile each, CBs 2 x 2,048 B.  [64, 2048]: 2 rows, choose_2d_ncol = largest divisor of 64 up to
    # min(110 // 2, 64) = 32 -> 64 units of 2 tiles on 64 cores, CBs 2 x 2 x 2,048 = 8,192 B.
    # Measured: the same (untilize_codegen_colpar, untilize_codegen_2d).
    r, _ = run("ttnn.to_layout", dram((32, 2048)), dram((32, 2048), layout="row_major"))
    assert {(b, c) for _, b, c in cbs(r.program)} == {(4096, frozenset(ROW[:64]))}
    r, _ = run("ttnn.to_layout", dram((64, 2048)), dram((64, 2048), layout="row_major"))
    assert {(b, c) for _, b, c in cbs(r.program)} == {(8192, frozenset(ROW[:64]))}


def test_untilize_codegen_with_unpadding_via_ttnn_untilize():
    # ttnn.untilize of an unaligned bf16 [30, 64]: the code generator takes it (2 * 2 * 2,048 <= 800,000):
    # 1 tile row of 2 tiles, CBs of 4 tiles = 8,192 B on (0,0).  Measured: the same (untilize_codegen_unpad).
    r, spec = run("ttnn.untilize", dram((30, 64)), dram((30, 64), layout="row_major"))
    assert cbs(r.program) == [("in", 8192, frozenset({(0, 0)})), ("out", 8192, frozenset({(0, 0)}))]
    assert spec[0].padded_shape == (30, 64)


def test_untilize_multi_core_factory():
    # f32 [64, 256] (codegen takes bf16/bfp8 only): 2 tile rows of 8 tiles -> 2 cores row by row, one row each
    # -> DFBs of 8 x 4,096 = 32,768 B.  Measured: the same (untilize_mc_f32).
    r, _ = run("ttnn.to_layout", dram((64, 256), "f32"), dram((64, 256), "f32", "row_major"))
    assert r.program.factory == "UntilizeMultiCoreProgramFactory"
    assert cbs(r.program) == [("src0", 32768, frozenset(ROW[:2])), ("out", 32768, frozenset(ROW[:2]))]


def test_untilize_block_factory_row_major_cores():
    # f32 [1024, 2048]: 32 x 64 tiles; row split 32 cores, 2D split: closest_square(19, 64, 32, 110) = 5
    # (13 * 7 = 91 < 110) -> 91 cores > 32 -> block factory, cores row by row: each block row has 12 full
    # blocks + a 4-tile cliff-row block; 6 full block rows + a cliff column of 2 tile rows.
    # Full set: 6 * 12 + 12 = 84 cores with 5 x 4,096 = 20,480 B DFBs; cliff-row set: 7 cores (every 13th),
    # 4 x 4,096 = 16,384 B.  Measured: the same (untilize_block_f32).
    r, _ = run("ttnn.to_layout", dram((1024, 2048), "f32"), dram((1024, 2048), "f32", "row_major"))
    p = r.program
    cliff = frozenset(ROW[i] for i in range(12, 91, 13))
    assert p.factory == "UntilizeMultiCoreBlockProgramFactory"
    assert cbs(p) == [("in_full", 20480, frozenset(ROW[:91]) - cliff), ("out_full", 20480, frozenset(ROW[:91]) - cliff),
                      ("in_cliffrow", 16384, cliff), ("out_cliffrow", 16384, cliff)]


def test_untilize_single_core_factories():
    # use_multicore=False, f32 [64, 256]: 8 tiles per row <= 674,688 // 8,192 = 82 -> 8 x 4,096 = 32,768 B.
    # get_pf_type == 1 (f32 [7040, 2880]: 90 tiles per row > 82, 220 tile rows, so the row split (110 cores)
    # is not beaten by the 2D split): largest divisor of 90 up to 82 = 45 -> 45 x 4,096 = 184,320 B on (0,0).
    # Measured: the same (untilize_single_core, untilize_pf1_single).
    r, _ = run("ttnn.untilize", dram((64, 256), "f32"), dram((64, 256), "f32", "row_major"), attrs="use_multicore = false")
    assert r.program.factory == "UntilizeSingleCoreProgramFactory"
    assert cbs(r.program) == [("src0", 32768, frozenset({(0, 0)})), ("out", 32768, frozenset({(0, 0)}))]
    r, _ = run("ttnn.to_layout", dram((7040, 2880), "f32"), dram((7040, 2880), "f32", "row_major"))
    assert r.program.factory == "UntilizeSingleCoreProgramFactory" and r.program.per_core_bytes() == 2 * 184320


def test_untilize_sharded_factories():
    # height-sharded [256, 64] on 4 cores ([64, 64] shards = 2 rows of 2 tiles):
    # to the same shard spec -> shard-identical factory, both DFBs borrowed (4 x 2,048 = 8,192 B);
    # to DRAM -> multi-core factory on the shard cores: input borrowed (8,192 B), output DFB of two shard
    # rows = 4 tiles = 8,192 B of its own.  Measured: the same (untilize_shard_identical,
    # untilize_sharded_in_interleaved_out).
    src = sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1))
    cores = frozenset((x, 0) for x in range(4))
    r, _ = run("ttnn.to_layout", src, sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1), layout="row_major"))
    assert r.program.factory == "UntilizeMultiCoreInputAndOutputShardTypeAndShardSpecIdenticalProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(8192, True), (8192, True)]
    r, _ = run("ttnn.to_layout", src, dram((256, 64), layout="row_major"))
    assert r.program.factory == "UntilizeMultiCoreProgramFactory"
    assert [(cb.bytes, cb.globally_allocated, crs_cores(cb.cores)) for cb in r.program.cbs] == [
        (8192, True, cores), (8192, False, cores)]


def test_untilize_sub_core_grids_factory():
    # ttnn.untilize(sub_core_grids={[0-0 - 3-1]}) of f32 [32, 2048] (not reachable from IR): 64 tiles over the
    # 8 sub-grid cores (64 % 8 == 0), single tiles double-buffered: 2 x 4,096 = 8,192 B DFBs on the 8 cores.
    # Measured: the same (untilize_sub_core_grids).
    from ttanalyze.ops.layout_conversion import untilize_sub_core_grids_program
    from ttanalyze.ops.tensors import MemCfg, Tensor
    from ttanalyze.ir.attrs import DataType
    mem = MemCfg("dram", "interleaved")
    t = Tensor((32, 2048), (32, 2048), DataType("f32"), "tile", mem)
    out = Tensor((32, 2048), (32, 2048), DataType("f32"), "row_major", mem)
    sub = [(x, y) for y in range(2) for x in range(4)]
    p = untilize_sub_core_grids_program(t, out, sub)
    assert cbs(p) == [("src0", 8192, frozenset(sub)), ("out", 8192, frozenset(sub))]


def test_untilize_column_parallel_factory():
    # UntilizeMultiCoreParallelizeColumnProgramFactory is unreachable on this grid: it needs an interleaved
    # one-tile-high row wider than half-L1 / (2 * tile) tiles (82 for f32), and every such row is first
    # taken by the block factory (its 2D split uses > 1 core).  The factory itself: single tiles over an
    # ncores_x x ncores_y sub-grid dividing the tile count; f32 [32, 3200] = 100 tiles -> 10 x 10 cores
    # (largest divisors of 100 up to 11, then 10), DFBs of 2 x 4,096 = 8,192 B.  Not measurable.
    from ttanalyze.ops.layout_conversion import _untilize_column_parallel
    from ttanalyze.ops.tensors import MemCfg, Tensor
    from ttanalyze.ir.attrs import DataType
    mem = MemCfg("dram", "interleaved")
    t = Tensor((32, 3200), (32, 3200), DataType("f32"), "tile", mem)
    p = _untilize_column_parallel(t, replace_layout(t), MOCK)
    assert {(b, c) for _, b, c in cbs(p)} == {(8192, frozenset((x, y) for y in range(10) for x in range(10)))}
    r, _ = run("ttnn.to_layout", dram((32, 100 * 32), "f32"), dram((32, 100 * 32), "f32", "row_major"))
    assert r.program.factory == "UntilizeMultiCoreBlockProgramFactory"


def replace_layout(t):
    from dataclasses import replace
    return replace(t, layout="row_major")


# --- untilize_with_unpadding ------------------------------------------------

def test_untilize_with_unpadding_interleaved_factory():
    # [32, 16, 3, 3] tile -> padded [32, 16, 32, 32]: 512 tile rows of 1 tile; ceil(512/110) = 5 rows per core
    # -> 103 cores column by column (cliff core with 2 rows); 2,048 B DFBs.  Returned: row-major, not padded.
    # Measured: the same (fixture conv2d_block_o0:43).
    r, spec = run("ttnn.to_layout", dram((32, 16, 3, 3)), dram((32, 16, 3, 3), layout="row_major"))
    assert r.program.factory == "UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory"
    assert cbs(r.program) == [("mci_in", 2048, frozenset(COL[:103])), ("mci_out", 2048, frozenset(COL[:103]))]
    assert spec[0].padded_shape == (32, 16, 3, 3) and spec[0].layout == "row_major"


def test_untilize_with_unpadding_block_factory_seed_001():
    # The brief's measurement: [4, 4884480] bf16 tile -> row-major, padded [32, 4884480] = 152,640 tiles in
    # one row: no row fits -> block factory; s = 1401 > limit 1,461,120 // 4,096 = 356 -> sub-blocks of 350
    # (n = 4): 2 x 716,800 B on 109 cores + 2 x 81,920 B (40 tiles) on the cliff core (10,9);
    # per-core peak 1,433,600 B.  Measured: the same (ORACLE NOTES §3, fixture seed line 20).
    r, _ = run("ttnn.to_layout", dram((4, 4884480)), dram((4, 4884480), layout="row_major"))
    p = r.program
    assert p.factory == "UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory"
    assert [(n, b, len(c)) for n, b, c in cbs(p)] == [("in_full", 716800, 109), ("out_full", 716800, 109),
                                                      ("in_cliffrow", 81920, 1), ("out_cliffrow", 81920, 1)]
    assert p.busiest_core() == ((0, 0), 1433600) and on(p, (10, 9)) == 163840


def test_untilize_with_unpadding_single_core_seed_001():
    # The brief's single-core measurement: ttnn.untilize(use_multicore=False) of [4, 4884480]:
    # 152,640 tiles per row > ((674,688 - 32) // 130) // 32 = 162 -> largest divisor 160 -> 2 x 327,680 B
    # on (0,0) (655,360 B).  Measured: the same (ORACLE NOTES §3).
    r, _ = run("ttnn.untilize", dram((4, 4884480)), dram((4, 4884480), layout="row_major"), attrs="use_multicore = false")
    assert r.program.factory == "UntilizeWithUnpaddingSingleCoreProgramFactory"
    assert cbs(r.program) == [("in", 327680, frozenset({(0, 0)})), ("out", 327680, frozenset({(0, 0)}))]


def test_untilize_with_unpadding_sharded_factory():
    # height-sharded [2, 60, 64] (padded [2, 64, 64]) on 2 cores, [64, 64] shards (2 x 2 tiles) -> DRAM
    # row-major: the input DFB borrows the shard (4 x 2,048 = 8,192 B), the output DFB holds two shard rows
    # of tiles = 4 tiles = 8,192 B of its own.  Measured: the same (uwu_sharded_in).
    src = sharded((2, 60, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1))
    r, _ = run("ttnn.to_layout", src, dram((2, 60, 64), layout="row_major"))
    assert r.program.factory == "UntilizeWithUnpaddingMultiCoreShardedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(8192, True), (8192, False)]


def test_block_factory_follows_the_free_l1():
    # [4, 4884480] untilize with 700 tiles (1,433,600 B) of L1 fillers per bank: free 27,520 B -> limit
    # 27,520 // 4,096 = 6 -> sub-blocks sb < 6; no block of 110, 109, 108 or 107 blocks leaves a cliff < 6,
    # 152,640 = 106 x 1,440 exactly: sb = 5 (n = 288) beats sb = 4 (n = 360) -> 5-tile DFBs (10,240 B) on
    # 106 cores, no cliff.  With 713 tiles per bank (896 B free) not one tile pair fits: tt-metal
    # TT_FATALs 'single_block_size_limit >= 1'.  Measured: the same (uwu_block_w152640_fill700, _fill713).
    src, dst = dram((4, 4884480)), dram((4, 4884480), layout="row_major")
    r, _ = run("ttnn.to_layout", src, dst, free=FREE - 700 * 2048)
    assert {(b, len(c)) for _, b, c in cbs(r.program)} == {(10240, 106)}
    r, _ = run("ttnn.to_layout", src, dst, free=FREE - 713 * 2048)
    assert r.status == "rejected" and "single_block_size_limit >= 1" in r.reason


def test_block_factory_without_limit_in_tt_metal_2025_12():
    # tt-metal of late 2025 (seed 001, Wormhole n150: 8x8 grid, base 102,656): no L1 limit, blocks of
    # s = 2423 tiles (smallest with ceil(152640/s) < 64), 62 full cores and the cliff core 62 (column by
    # column: (7,6)) with 152,640 - 62 * 2,423 = 2,414 tiles.  The seed's error: 'grow to 9,990,400 B' on
    # (7,6) = 102,656 + 2 * 2,414 * 2,048; the full cores would hold 2 * 2,423 * 2,048 = 9,924,608 B.
    seed = analyze_path(FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir")
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_file
    a = analyze(parse_file(FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir"), tt_metal="2025-12")
    op = a.program.ops[-1]
    p = program_of(a, op).program
    assert on(p, (7, 6)) + a.arch.l1_unreserved_base == 9990400
    assert p.per_core_bytes() == 2 * 2423 * 2048
    assert seed.tt_metal == "0.81.1"


# --- split helpers ----------------------------------------------------------

@pytest.mark.parametrize("width, limit, expected", [
    (152640, 356, (350, 4)),   # blocks of 1,400: 110 blocks (cliff 40), n = 4 is the smallest
    (41850, 356, (191, 2)),    # 110 blocks need 381..383 tiles; n = 2 -> 382 (cliff 212 < 356)
    (100000, 356, (305, 3)),   # 910..917: n = 2 needs sb >= 455; n = 3 -> 912 or 915, larger sb first: 305
    (152640, 6, (5, 288)),     # see test_block_factory_follows_the_free_l1
    (12800, 6, (4, 32)),       # only 128-tile blocks (100 exact) leave a cliff < 6; sb = 4, n = 32
])
def test_sub_block_split(width, limit, expected):
    # Measured on the mock with [4, 32 * width] untilize / [32, 32 * width] tilize (raw/block.json).
    from ttanalyze.ops.work_split import try_compute_ncores_wh_sb
    assert try_compute_ncores_wh_sb(110, width, 1, limit) == expected


def test_closest_square_block():
    # smallest s with ceil(W/s) * ceil(H/s) < 110: 152,640 / 109 = 1400.4 -> 1401; 96 x 24 tiles from b = 21 -> 5.
    assert closest_square_larger_than_b(1388, 152640, 1, 110) == 1401
    assert closest_square_larger_than_b(21, 96, 24, 110) == 5
    split = split_blocks_for_tilize_wh((X, Y), 2304, 96, 24, 351)
    assert (split.block, split.sub_block, split.cliff_row_tiles, len(split.full), len(split.cliffrow)) == (5, 5, 1, 95, 5)


# --- typecast ---------------------------------------------------------------

def test_typecast_factories():
    # interleaved bf16 -> f32 [1, 8, 128, 128]: 128 tiles over 110 cores (column by column): CBs 2 x 2,048 and
    # 2 x 4,096 B.  Height-sharded f32 -> u32 (equal 4,096 B tiles): sharded factory, both CBs bound to the
    # shards (4 x 4,096 = 16,384 B).  Row-major bf16 [64, 3000] -> f32: rows over 64 cores row by row, chunk
    # pages of 1,024 elements: 2 x 2,048 and 2 x 4,096 B.  Measured: the same (typecast_interleaved,
    # typecast_sharded_same_size, typecast_rm_chunked, typecast_rm_small).
    r, spec = run("ttnn.typecast", dram((1, 8, 128, 128)), dram((1, 8, 128, 128), "f32"))
    assert r.program.factory == "TypecastProgramFactory"
    assert cbs(r.program) == [("in", 4096, frozenset(COL)), ("out", 8192, frozenset(COL))]
    assert spec[0].dtype == "f32"
    shard = sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1), "f32")
    r, _ = run("ttnn.typecast", shard, sharded((256, 64), "height_sharded", [(0, 0, 3, 0)], (4, 1), "u32"))
    assert r.program.factory == "TypecastShardedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(16384, True), (16384, True)]
    r, _ = run("ttnn.typecast", dram((64, 100), layout="row_major"), dram((64, 100), "f32", "row_major"))
    assert r.program.factory == "TypecastRowMajorChunkedProgramFactory"
    assert cbs(r.program) == [("in", 4096, frozenset(ROW[:64])), ("out", 8192, frozenset(ROW[:64]))]


def test_typecast_of_a_sharded_row_major_input_with_unaligned_rows_is_refused():
    # g1/ttnn.typecast/5: [2, 2, 4, 55, 10] f32 row major, height sharded in 98 shards of [9, 10]: a page is a
    # shard row of 10 x 4 = 40 B, not a multiple of the 16-B L1 alignment, so the validate's
    # page_size_bytes == aligned_page_size() fails (measured: TT_FATAL at typecast_device_op.cpp:131).
    # A 64-B row (16 x f32) passes.
    ranges = [(0, 0, 10, 7), (0, 8, 9, 8)]
    bad = [sharded((2, 2, 4, 55, 10), "height_sharded", ranges, (98, 1), dt, "row_major") for dt in ("f32", "bf16")]
    r, _ = run("ttnn.typecast", *bad)
    assert r.status == "rejected" and "page of 40 B" in r.reason
    good = [sharded((2, 2, 4, 55, 16), "height_sharded", ranges, (98, 1), dt, "row_major") for dt in ("f32", "bf16")]
    r, _ = run("ttnn.typecast", *good)
    assert r.status == "modeled"


def test_ttnn_untilize_of_a_padded_rank5_tensor_is_refused():
    # ttnn.untilize (ttnn's own op) squeezes a rank-5 input to 4D, untilizes it, and reshapes the logical-size
    # row-major result back with the input's tile-padded shape, which the buffer cannot hold.  Measured:
    # g1/ttnn.untilize/3 [1, 1, 1, 2, 1197] bf16 (page 2,432 B vs buffer 4,788 B), /4 [1, 1, 1, 12461, 3] f32,
    # /5 [1, 7, 10, 13, 91] si32, /6 [1, 3, 2, 1024, 65] bf16 ('MeshBuffer must be large enough').
    for shape, dt in (((1, 1, 1, 2, 1197), "bf16"), ((1, 7, 10, 13, 91), "si32"), ((1, 3, 2, 1024, 65), "bf16")):
        r, _ = run("ttnn.untilize", dram(shape, dt), dram(shape, dt, "row_major"), attrs="use_multicore = true")
        assert r.status == "rejected" and "padded" in r.reason
    # a tile-aligned rank-5 tensor has nothing padded: the reshape back is a plain view
    r, _ = run("ttnn.untilize", dram((1, 2, 3, 64, 64)), dram((1, 2, 3, 64, 64), layout="row_major"),
               attrs="use_multicore = true")
    assert r.status == "modeled"


# --- to_memory_config -------------------------------------------------------

def test_to_memory_config_factories():
    # DRAM -> height-sharded [1, 8, 128, 64] on 32 cores ([32, 64] shards = 2 tiles): interleaved_to_sharded,
    # output DFB borrowed (4,096 B), no L1 of its own (fixture attention_o2:49).  Row-major [64, 64] -> 2
    # [32, 64] shards: output DFB borrowed (32 rows of 128 B) and a scratchpad of 4 x align(128 + 64, 64) =
    # 768 B (i2s_rm_height).  Block-sharded -> DRAM: sharded_to_interleaved, input borrowed (fixture
    # transformer_ffn_o2:129).  Width -> height sharded: ReshardGenericFactory, borrowed 8-tile shard
    # (fixture mlp_o2:45).  DRAM -> L1 interleaved tile [128, 3072] (384 tiles): copy, 2 x 2,048 B input DFB
    # on 110 cores (copy_dram_to_l1_tile).  Row-major [330, 100] DRAM -> L1: copy, a 2 x 208 B output DFB
    # (rows of 200 B aligned to 16) and a 200 B input scratchpad on 110 cores (copy_dram_to_l1_rm).
    # Measured: the same.
    hs = sharded((1, 8, 128, 64), "height_sharded", [(0, 0, 10, 1), (0, 2, 9, 2)], (32, 1))
    r, _ = run("ttnn.to_memory_config", dram((1, 8, 128, 64)), hs)
    assert r.program.factory == "InterleavedToShardedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(4096, True)] and r.program.per_core_bytes() == 0
    r, _ = run("ttnn.to_memory_config", dram((64, 64), layout="row_major"),
               sharded((64, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1), layout="row_major"))
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(4096, True)]
    assert r.program.extra_l1_per_core == 768
    bs = sharded((1, 128, 768), "block_sharded", [(0, 0, 7, 3)], (4, 8))
    r, _ = run("ttnn.to_memory_config", bs, dram((1, 128, 768)))
    assert r.program.factory == "ShardedToInterleavedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in r.program.cbs] == [(6144, True)]
    ws = sharded((32, 256), "width_sharded", [(0, 0, 7, 0)], (1, 8))
    r, _ = run("ttnn.to_memory_config", ws, sharded((32, 256), "height_sharded", [(0, 0, 0, 0)], (1, 1)))
    assert r.program.factory == "ReshardGenericFactory" and r.program.cbs[0].bytes == 16384
    r, _ = run("ttnn.to_memory_config", dram((128, 3072)), l1((128, 3072)))
    assert r.program.factory == "CopyDeviceOperation::DefaultTilized"
    assert cbs(r.program) == [("in", 4096, frozenset(COL))]
    r, _ = run("ttnn.to_memory_config", dram((330, 100), layout="row_major"), l1((330, 100), layout="row_major"))
    assert r.program.factory == "CopyDeviceOperation::DefaultRowMajor"
    assert cbs(r.program) == [("output_page", 416, frozenset(COL))] and r.program.extra_l1_per_core == 200


# --- no-op conversions, errors and returned tensors ---------------------------

def test_conversions_that_run_nothing():
    # to_layout to the same layout returns the input: no program, and the requested L1 memory config is
    # ignored (ttnn warns).  to_memory_config to the same config returns the input.  Measured: no device
    # operation in either capture; the first returns the DRAM tensor (to_layout_same_layout_other_mem).
    r, spec = run("ttnn.to_layout", dram((64, 128)), l1((64, 128)))
    assert r.status == "not_device" and "layout unchanged" in r.reason
    assert (spec[0].buffer_type, spec[0].memory_layout) == ("dram", "interleaved")
    r, _ = run("ttnn.to_memory_config", dram((64, 128)), dram((64, 128)))
    assert r.status == "not_device" and "same memory config" in r.reason


def test_unaligned_sharded_memory_config_is_refused():
    # to_layout builds a TILE TensorLayout of the output memory config first: a height-sharded row-major
    # result of [250, 64] on 5 cores has [50, 64] shards, not tile-aligned: TT_FATAL 'Physical shard shape
    # (50, 64) must be tile {32, 32} aligned'.  Measured: the same error (uwu_out_sharded).
    res = sharded((250, 64), "height_sharded", [(0, 0, 4, 0)], (5, 1), "f32", "row_major")
    r, _ = run("ttnn.to_layout", dram((250, 64), "f32"), res)
    assert r.status == "rejected" and "tile-aligned" in r.reason


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


def test_untilize_with_unpadding_sharded_to_sharded_and_pad_tilize():
    # Hand-written layouts with [64, 64] shards (tt-mlir would derive [60, 64] / [50, 64], which ttnn
    # refuses, see above).  [2, 60, 64] tile, height-sharded on 2 cores -> row-major with the same shards:
    # input DFB borrowed (4 tiles), output DFB of 2 batches of 4 tiles = 16,384 B of its own, and the
    # borrowed row-major output shard: 64 - (128 - 120) = 56 rows of 128 B = 7,168 B.  Row-major [100, 64]
    # height-sharded -> TILE: ttnn::pad then tilize (two programs, not modeled); returned: logical [100, 64],
    # padded [128, 64] with the input's shards.  Measured: the same (uwu_sharded_in_sharded_out,
    # pad_tilize_height_sharded).
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_text
    src = sharded((2, 60, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1))
    dst = sharded((2, 60, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1), layout="row_major")
    text = _edit(module_text(BH_SYSTEM_DESC, single_op_func("ttnn.to_layout", [src], [dst])),
                 "memref<60x64xbf16", "memref<64x64xbf16")
    a = analyze(parse_text(text, "t.mlir"))
    p = program_of(a, a.program.ops[0], arch=MOCK, free_l1=FREE).program
    assert p.factory == "UntilizeWithUnpaddingMultiCoreShardedProgramFactory"
    assert [(cb.bytes, cb.globally_allocated) for cb in p.cbs] == [(8192, True), (16384, False), (7168, True)]
    src = sharded((100, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1), layout="row_major")
    dst = sharded((100, 64), "height_sharded", [(0, 0, 1, 0)], (2, 1))
    text = _edit(module_text(BH_SYSTEM_DESC, single_op_func("ttnn.to_layout", [src], [dst])),
                 "memref<50x64xbf16", "memref<64x64xbf16")
    a = analyze(parse_text(text, "t.mlir"))
    op = a.program.ops[0]
    r = program_of(a, op, arch=MOCK, free_l1=FREE)
    assert r.status == "out_of_scope" and "two programs" in r.reason
    spec = layout_conversion_spec(context_for(a, op, arch=MOCK, free_l1=FREE))[0]
    assert (spec.shape, spec.padded_shape, spec.shard_shape) == ((100, 64), (128, 64), (64, 64))


def test_returned_tensors():
    # bfloat8_b untilizes to bfloat16 (untilize_bfp8_to_bf16); a rank-5 row-major result is not padded
    # (fixture mochi_small_constpad_o0:63); tilize keeps the tile-padded shape (fixture conv2d_block_o0:31).
    _, spec = run("ttnn.to_layout", dram((64, 256), "bfp_bf8"), dram((64, 256), "bf16", "row_major"))
    assert (spec[0].dtype, spec[0].layout, spec[0].padded_shape) == ("bf16", "row_major", (64, 256))
    _, spec = run("ttnn.to_layout", dram((1, 6, 18, 18, 64)), dram((1, 6, 18, 18, 64), layout="row_major"))
    assert spec[0].padded_shape == (1, 6, 18, 18, 64)
    _, spec = run("ttnn.to_layout", dram((3, 3, 16, 32), layout="row_major"), dram((3, 3, 16, 32)))
    assert spec[0].padded_shape == (3, 3, 32, 32)


def test_ttnn_tilize_of_a_rank1_tensor_is_refused():
    # tilize_device_operation.cpp checks padded_shape()[-2] % 32: a rank-1 [992] (31 x 32 wide) reads its
    # missing height as 1 and fails (was an IndexError in the model; campaign draw g1/ttnn.tilize/46)
    r, _ = run("ttnn.tilize", dram((992,), layout="row_major"), dram((992,)), attrs="use_multicore = true")
    assert r.status == "rejected"


def test_row_major_to_a_sharded_config_with_unaligned_shard_rows_is_a_copy():
    # g1/ttnn.to_memory_config/9: si32 [7, 5, 3, 32, 219] row major, DRAM -> height sharded on 31 cores: a shard row
    # of 876 B is not 16-B aligned, so interleaved_to_sharded's validate_inputs fails and to_memory_config copies
    # (CopyDeviceOperation::DefaultRowMajor: 2 x 880-B output pages, an 876-B input scratch; measured 2,636 B/core)
    crs = [(0, 0, 10, 1), (0, 2, 8, 2)]
    shape = (7, 5, 3, 32, 219)
    r, _ = run("ttnn.to_memory_config", dram(shape, "si32", "row_major"),
               sharded(shape, "height_sharded", crs, (31, 1), "si32", "row_major"))
    assert r.program.factory == "CopyDeviceOperation::DefaultRowMajor"
    assert [cb.bytes for cb in r.program.cbs] == [1760] and r.program.extra_l1_per_core == 876


def test_untilize_into_a_sharded_config_needs_aligned_shard_rows():
    # g1/ttnn.untilize/10: si32 [896, 544] width sharded on 9 cores (shards 61 wide) into the same row-major config:
    # a 244-B output shard row is not 16-B aligned: TT_FATAL in UntilizeDeviceOperation's validate (measured)
    ws = [(0, 0, 8, 0)]
    r, _ = run("ttnn.untilize", sharded((896, 544), "width_sharded", ws, (1, 9), "si32"),
               sharded((896, 544), "width_sharded", ws, (1, 9), "si32", "row_major"), attrs="use_multicore = true")
    assert r.status == "rejected" and "244 B" in r.reason
