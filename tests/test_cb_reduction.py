"""Circular-buffer models of the reductions and normalizations (ttanalyze.ops.reduction).

Expected numbers are derived by hand from the formulas in ttanalyze/ops/reduction.py (derivation in
each comment; tile = 2,048 B bf16, 4,096 B f32, 1,088 B bfloat8_b); the same factories are measured on
mock P150, ttnn 0.81.1 (tt-metal d80d9482), NO_DISPATCH graph captures with `ttnn.empty` inputs, by
the op-level campaign (measurements/opdiff/results.jsonl.gz, benchmarks/opdiff.py).  A reduction runs a chain of programs; the model reports the one with
the most L1 per core and lists the chain in its notes.
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

from .conftest import BH_SYSTEM_DESC, FIXTURES, analyze_path

FULL = 1_461_120  # free L1 of the empty mock: l1_size 1,572,864 - allocator base 111,744
HS32 = [(0, 0, 10, 1), (0, 2, 9, 2)]


def T(shape, dtype="bf16", buffer="dram", mem="interleaved", grid=None, cores=None):
    if grid is None:
        grid = (10, 11) if (buffer == "l1" and mem == "interleaved") else (1, 1)
    crs = CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in cores)) if cores else None
    return TensorDesc(tuple(shape), dtype, "tile", buffer, mem, grid, crs)


def run(op, operands, result, attrs="", free_l1=FULL):
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, [result], attrs)), "t.mlir"))
    return program_of(a, next(o for o in a.program.ops if o.name == op), arch=MOCK, free_l1=free_l1)


def program(op, operands, result, attrs="", free_l1=FULL):
    """The program of the op's chain that needs the most L1 per core."""
    p = run(op, operands, result, attrs, free_l1)
    assert p.status == "modeled", p.reason
    return p.program


def stages(op, operands, result, attrs="", free_l1=FULL):
    """(factory, busiest core's CB bytes) of every program of the op's chain, in order."""
    p = run(op, operands, result, attrs, free_l1)
    assert p.status == "modeled", p.reason
    return [(s.factory.split("::")[-1], s.per_core_bytes()) for s in p.stages]


def sizes(p):
    return [c.bytes for c in p.cbs]


def dims(*d, keep=True):
    return f"dim_arg = [{', '.join(f'{x} : i32' for x in d)}], keep_dim = {'true' if keep else 'false'}"


# ---------------------------------------------------------------------------
# Reduce over W
# ---------------------------------------------------------------------------


def test_reduce_w_block_input():
    # [1,1,64,128]: 2 tile rows (1 per core) of Wt 4 -> 4 input tiles per core >= 4: input 8 tiles
    # (16,384 B), scaler 1 bf16 tile, output 2 tiles; 2 cores, column-major ("sum W Wt=4 bf16").
    p = program("ttnn.sum", [T([1, 1, 64, 128])], T([1, 1, 64, 1]), dims(3))
    assert p.factory.endswith("ReduceMultiCoreWProgramFactory")
    assert sizes(p) == [16384, 2048, 4096] and p.cores.num_cores == 2


def test_reduce_w_short_rows():
    # Wt 3 -> 3 tiles per core < 4: input 2 tiles ("sum W Wt=3 bf16"); [1,150,32,96]: 150 rows on 110
    # cores, the smaller share is 1 row = 3 tiles -> still 2 tiles ("W Wt=3 rows=150").
    assert sizes(program("ttnn.sum", [T([1, 1, 64, 96])], T([1, 1, 64, 1]), dims(3))) == [4096, 2048, 4096]
    p = program("ttnn.sum", [T([1, 150, 32, 96])], T([1, 150, 32, 1]), dims(3))
    assert sizes(p) == [4096, 2048, 4096] and p.cores.num_cores == 110


def test_reduce_w_f32():
    # f32: input 8 x 4,096, scaler 1 f32 tile, output 2 x 4,096: 45,056 B on 32 cores (real/attention_o0:61).
    p = program("ttnn.sum", [T([1, 8, 128, 128], "f32")], T([1, 8, 128, 1], "f32"), dims(3))
    assert sizes(p) == [32768, 4096, 8192] and p.per_core_bytes() == 45056 and p.cores.num_cores == 32


def test_reduce_w_height_sharded():
    # Height-sharded f32 in and out: input 2 tiles (8,192), the [32,128] input shard (4 f32 tiles, backed),
    # scaler 4,096, the [32,32] output shard (backed) on the 32 shard cores: 12,288 B (real/attention_o2:69).
    hs_in = T([1, 8, 128, 128], "f32", "l1", "height_sharded", (32, 1), HS32)
    hs_out = T([1, 8, 128, 1], "f32", "l1", "height_sharded", (32, 1), HS32)
    p = program("ttnn.sum", [hs_in], hs_out, dims(3))
    assert [(c.bytes, c.globally_allocated) for c in p.cbs] == [(8192, False), (16384, True), (4096, False), (4096, True)]
    assert p.per_core_bytes() == 12288 and p.cores.num_cores == 32


def test_reduce_keep_dim_false_adds_a_reshape():
    # max [1,8,128,128] -> [1,8,128]: reduce W (16,384 + 2,048 + 4,096 = 22,528 B), then a tiled reshape
    # of [1,8,128,1] (4,096 + 2,048 B + 2,048 B scratch); the reduce is the larger (real/attention_o0:51).
    args = ("ttnn.max", [T([1, 8, 128, 128])], T([1, 8, 128]), dims(3, keep=False))
    assert stages(*args) == [("ReduceMultiCoreWProgramFactory", 22528), ("ReshapeViewTiledProgramFactory", 6144)]
    p = program(*args)
    assert p.factory.endswith("ReduceMultiCoreWProgramFactory")


# ---------------------------------------------------------------------------
# Reduce over H
# ---------------------------------------------------------------------------


def test_reduce_h_one_pass():
    # [1,1,256,64]: Ht 8, 2 tile columns (1 per core): input 2, scaler 1, output 2 tiles ("sum H Ht=8 bf16").
    p = program("ttnn.sum", [T([1, 1, 256, 64])], T([1, 1, 1, 64]), dims(2))
    assert p.factory.endswith("ReduceMultiCoreHProgramFactory") and sizes(p) == [4096, 2048, 4096]


def test_reduce_h_two_pass():
    # [1,1,768,64]: Ht 24 >= 20 and 110 // 2 columns >= 2 -> two passes.  Pass 1: 24 chunks x 2 columns
    # = 48 cores, input 8 bf16 tiles, scaler 2,048, 2 f32 partials = 26,624 B.  Pass 2 on 2 cores:
    # 2 f32 tiles, f32 scaler, 1 output tile, max(2, ceil(24/32)) f32 tiles, 1 f32 tile, 2 output tiles
    # = 8,192 + 4,096 + 2,048 + 8,192 + 4,096 + 4,096 = 30,720 B: the larger ("sum H Ht=24 bf16").
    args = ("ttnn.sum", [T([1, 1, 768, 64])], T([1, 1, 1, 64]), dims(2))
    assert stages(*args) == [("ReduceMultiCoreHProgramFactory", 26624), ("ReduceMultiCoreHProgramFactory", 30720)]
    p = program(*args)
    assert sizes(p) == [8192, 4096, 2048, 8192, 4096, 4096] and p.cores.num_cores == 2


def test_reduce_h_width_sharded():
    # Width-sharded [32,256] (8 shards of 1 tile) to width-sharded [1,256]: input 2 tiles, input shard,
    # scaler, output shard on the 8 shard cores ("WS sum H -> WS").
    ws = T([32, 256], "bf16", "l1", "width_sharded", (1, 8), [(0, 0, 7, 0)])
    p = program("ttnn.sum", [ws], ws, dims(0))
    assert [(c.bytes, c.globally_allocated) for c in p.cbs] == [(4096, False), (2048, True), (2048, False), (2048, True)]


# ---------------------------------------------------------------------------
# Reduce over H and W, padding, leading dims
# ---------------------------------------------------------------------------


def test_reduce_hw_single_tile():
    # A single bf16 tile: ReduceSingleCoreHw, 4,096 + 2,048 + 4,096 B on one core ("HW bf16 N=1 Ht=1 Wt=1").
    p = program("ttnn.sum", [T([1, 1, 32, 32])], T([1, 1, 1, 1]), dims(2, 3))
    assert p.factory.endswith("ReduceSingleCoreHwProgramFactory") and sizes(p) == [4096, 2048, 4096]


def test_reduce_hw_two_programs():
    # [1,1,64,64] sum: W (input 2 bf16 tiles, scaler, output 2 f32 tiles = 14,336 B), then H (2 f32 tiles,
    # f32 scaler, 2 bf16 tiles = 16,384 B): the H program is the larger ("sum HW Ht=2 Wt=2 bf16").
    p = program("ttnn.sum", [T([1, 1, 64, 64])], T([1, 1, 1, 1]), dims(2, 3))
    assert p.factory.endswith("ReduceMultiCoreHProgramFactory") and sizes(p) == [8192, 4096, 4096]


def test_reduce_fills_the_tile_padding_first():
    # W 48 is padded to 64: FillPad (data_in 2, right_mask 1, data_out 2 tiles = 10,240 B on 2 cores), then
    # the W reduce (4,096 + 2,048 + 4,096 = 10,240 B): a tie, the first wins ("W padded 48").
    args = ("ttnn.sum", [T([1, 1, 64, 48])], T([1, 1, 64, 1]), dims(3))
    assert stages(*args) == [("FillPadProgramFactory", 10240), ("ReduceMultiCoreWProgramFactory", 10240)]
    assert program(*args).factory == "FillPadProgramFactory"


def test_reduce_leading_dim_sum_uses_fast_reduce_nc():
    # bf16 sum over dim 1 (size 4, granularity 4): input 2 x 4 tiles, zero 1 bf16 tile, output 2 tiles on
    # the 12 output tiles' cores, row by row ("sum dims=1 keep=True").
    p = program("ttnn.sum", [T([2, 4, 64, 96])], T([2, 1, 64, 96]), dims(1))
    assert p.factory.endswith("FastReduceNCProgramFactory") and sizes(p) == [16384, 2048, 4096]
    assert p.cores.num_cores == 12


def test_reduce_leading_dim_mean_transposes():
    # f32 mean over dim 1: TransposeHC (in0 2 f32 tiles + a 16x16 f32 face = 9,216 B), reduce H (2 f32 +
    # 1 f32 + 2 f32 tiles = 20,480 B), TransposeHC back (8,192 B): the reduce is the largest ("rank4 mean (1,)").
    assert stages("ttnn.mean", [T([2, 4, 64, 64], "f32")], T([2, 1, 64, 64], "f32"), dims(1)) == [
        ("TransposeHCTiledInterleavedProgramFactory", 9216), ("ReduceMultiCoreHProgramFactory", 20480),
        ("TransposeHCTiledInterleavedProgramFactory", 8192)]


# ---------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------

SM = "dimension = -1 : si32, numericStable = {}"


def test_softmax_numerically_stable():
    # [1,1,32,768]: Wt 24, block 4; in0 24 tiles 49,152, out0 8 tiles 16,384, recip 4,096 (f32), scaler
    # 2,048, aux 4,096 (f32), exps 24 bf16 tiles 49,152, mask 2,048, max 2,048 ("softmax W=768 bf16").
    p = program("ttnn.softmax", [T([1, 1, 32, 768])], T([1, 1, 32, 768]), SM.format("true"))
    assert sizes(p) == [49152, 16384, 4096, 2048, 4096, 49152, 2048, 2048] and p.cores.num_cores == 1


def test_softmax_not_stable_and_padded_width():
    # numericStable = false: in0 2 x block = 8 tiles, no max CB ("softmax bf16 not stable").
    assert sizes(program("ttnn.softmax", [T([1, 1, 128, 768])], T([1, 1, 128, 768]), SM.format("false"))) == [
        16384, 16384, 4096, 2048, 4096, 49152, 2048]
    # Wt 10 (no divisor in 2..4 leaves block 2 < 4 for Wt >= 10): processed as 12 tiles, block 4 ("softmax Wt=10").
    assert sizes(program("ttnn.softmax", [T([1, 1, 32, 320])], T([1, 1, 32, 320]), SM.format("true")))[:2] == [24576, 16384]


def test_softmax_large_kernel():
    # [1,1,32,16384]: the single-pass CBs (512-tile in0 and exps, ~2.1 MB) exceed 90 % of L1, so the large
    # kernel with 80-tile buffers: 163,840 x 3 + 16,384 + 8 single tiles ("softmax W=16384 bf16").
    p = program("ttnn.softmax", [T([1, 1, 32, 16384])], T([1, 1, 32, 16384]), SM.format("true"))
    assert sizes(p) == [163840, 16384, 4096, 4096, 2048, 4096, 2048, 4096, 163840, 2048, 2048, 163840]


# ---------------------------------------------------------------------------
# LayerNorm / RMSNorm
# ---------------------------------------------------------------------------

EPS = "epsilon = 9.99999974E-6 : f32"


def test_layer_norm_single_pass():
    # [1,1,32,768], fp32 accumulation on by default: block 4, Wt 24; in0 24 bf16 = 49,152, out0 8 bf16 =
    # 16,384, ex 2 f32, scaler and eps 2 bf16, ex2 2 f32, xmm2 and xmm 24 f32 = 98,304, ex2pe 8 f32 = 32,768
    # ("layer_norm W=768 bf16").
    p = program("ttnn.layer_norm", [T([1, 1, 32, 768])], T([1, 1, 32, 768]), EPS)
    assert p.factory.endswith("LayerNormMultiCoreProgramFactory")
    assert sizes(p) == [49152, 16384, 8192, 4096, 4096, 8192, 98304, 98304, 32768]


def test_rms_norm_single_pass_and_large_variant():
    # rms_norm, no fp32 accumulation: block 8.  W 8192 (Wt 256): in0 and xmm2 256 bf16 tiles, out0 16,
    # scaler, eps, ex2, ex2pe 8: 1,110,016 B < 95 % of the free L1 -> single pass ("rms_norm W=8192 bf16").
    p = program("ttnn.rms_norm", [T([1, 1, 32, 8192])], T([1, 1, 32, 8192]), EPS)
    assert sizes(p) == [524288, 32768, 4096, 4096, 4096, 524288, 16384] and p.per_core_bytes() == 1110016
    # W 262,144: large kernel with 112-tile blocks: 3 x 229,376 + 32,768 + 3 x 4,096 + 16,384 + 2,048 =
    # 751,616 B ("rms_norm W=262144 bf16").
    p = program("ttnn.rms_norm", [T([1, 1, 32, 262144])], T([1, 1, 32, 262144]), EPS)
    assert p.per_core_bytes() == 751616 and "large-tensor kernel, 112-tile" in p.notes[-1]


def test_rms_norm_weight_halves_the_large_block():
    # With a weight the large blocks are 56 tiles; fusion 16 and gamma 56 tiles ("rms_norm W=16384 w").
    p = program("ttnn.rms_norm", [T([1, 1, 32, 16384]), T([16384])], T([1, 1, 32, 16384]),
                f"{EPS}, operandSegmentSizes = array<i32: 1, 1, 0>")
    assert sizes(p) == [114688, 32768, 4096, 4096, 4096, 114688, 114688, 16384, 2048, 32768, 114688]


def test_rms_norm_large_variant_depends_on_free_l1():
    # W 10,240 needs 1,372,160 B: single pass with the empty L1 ("rms_norm W=10240"), the large kernel when
    # 102,400 B per core of L1 buffers are live (0.95 x 1,358,720 < 1,372,160; "rms W=10240 + 100KB L1 filler").
    a, o = T([1, 1, 32, 10240]), T([1, 1, 32, 10240])
    assert program("ttnn.rms_norm", [a], o, EPS).per_core_bytes() == 1372160
    assert "large-tensor kernel" in program("ttnn.rms_norm", [a], o, EPS, free_l1=FULL - 102400).notes[-1]


def test_norm_sharded_inputs_are_out_of_scope():
    hs = T([1, 1, 128, 768], "bf16", "l1", "height_sharded", (4, 1), [(0, 0, 3, 0)])
    p = run("ttnn.layer_norm", [hs], hs, EPS)  # TT_FATAL on the mock ("layer_norm HS")
    assert p.status == "rejected" and "not supported" in p.reason
    bs = T([1, 1, 128, 768], "bf16", "l1", "block_sharded", (4, 8), [(0, 0, 7, 3)])
    assert "LayerNormShardedProgramFactory" in run("ttnn.rms_norm", [bs], bs, EPS).reason


def test_group_norm_of_a_sharded_input_is_out_of_scope():
    bs = T([1, 1, 1024, 320], "bf16", "l1", "block_sharded", (4, 8), [(0, 0, 7, 3)])
    p = run("ttnn.group_norm", [bs], bs, "num_groups = 32 : i64, epsilon = 1.0e-05 : f32")
    assert p.status == "out_of_scope" and "GroupNormShardedProgramFactory" in p.reason


# ---------------------------------------------------------------------------
# Every reduction of the real fixtures
# ---------------------------------------------------------------------------

# (fixture, line, factory of the largest program, its sorted (CB bytes, tensor-backed), busiest core's
# static CB bytes, programs in the chain): measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482) by
# replaying each op with its shapes, dtypes, memory configs and compute config (raw/fixture_results.json).
FIXTURE_OPS = [
    ("attention_o0", 51, "ReduceMultiCoreWProgramFactory", [(2048, 0), (4096, 0), (16384, 0)], 22528, 2),
    ("attention_o0", 61, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("attention_o1", 51, "ReduceMultiCoreWProgramFactory", [(2048, 0), (4096, 0), (16384, 0)], 22528, 2),
    ("attention_o1", 61, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("attention_o2", 59, "ReduceMultiCoreWProgramFactory", [(2048, 0), (4096, 0), (16384, 0)], 22528, 2),
    ("attention_o2", 69, "ReduceMultiCoreWProgramFactory", [(4096, 0), (4096, 1), (8192, 0), (16384, 1)], 12288, 1),
    ("mochi_small_constpad_o0", 80, "FillPadProgramFactory", [(4096, 0), (4096, 0), (8192, 0), (8192, 0)], 24576, 6),
    ("mochi_small_constpad_o0", 90, "FillPadProgramFactory", [(4096, 0), (4096, 0), (8192, 0), (8192, 0)], 24576, 6),
    ("mochi_small_edgepad_o0", 97, "FillPadProgramFactory", [(4096, 0), (4096, 0), (8192, 0), (8192, 0)], 24576, 6),
    ("mochi_small_edgepad_o0", 107, "FillPadProgramFactory", [(4096, 0), (4096, 0), (8192, 0), (8192, 0)], 24576, 6),
    ("transformer_ffn_o0", 42, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("transformer_ffn_o0", 52, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("transformer_ffn_o1", 42, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("transformer_ffn_o1", 52, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("transformer_ffn_o2", 53, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
    ("transformer_ffn_o2", 63, "ReduceMultiCoreWProgramFactory", [(4096, 0), (8192, 0), (32768, 0)], 45056, 1),
]

_ANALYSES: dict = {}


@pytest.mark.parametrize("fixture,line,factory,expected,peak,nprog", FIXTURE_OPS, ids=[f"{f}:{ln}" for f, ln, *_ in FIXTURE_OPS])
def test_fixture_reductions_match_the_mock(fixture, line, factory, expected, peak, nprog):
    if fixture not in _ANALYSES:
        _ANALYSES[fixture] = analyze_path(FIXTURES / "real" / fixture / "ttnn.mlir")
    a = _ANALYSES[fixture]
    op = next(o for o in a.program.ops if o.pos.line == line and o.name != "ttnn.deallocate")
    p = program_of(a, op, arch=MOCK, free_l1=FULL)
    assert p.status == "modeled", p.reason
    assert p.program.factory.endswith(factory)
    assert sorted((c.bytes, int(c.globally_allocated)) for c in p.program.cbs) == expected
    assert p.program.per_core_bytes() == peak
    assert len(p.stages) == nprog
