"""Circular-buffer models of the elementwise ops (ttanalyze.ops.eltwise).

Expected numbers are derived by hand from the factory formulas (derivation in each comment; tile =
2,048 B bf16, 4,096 B f32, 1,088 B bfloat8_b); the same factories are measured on mock P150,
ttnn 0.81.1 (tt-metal d80d9482), NO_DISPATCH graph captures with `ttnn.empty` inputs, by the op-level
campaign (measurements/opdiff/results.jsonl.gz, benchmarks/opdiff.py).  The IR ops are replayed the way the tt-mlir runtime calls them, with the result's
memory config passed as `memory_config`, so every CB sits on all 110 cores of the grid.
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
ALL = 110  # cores of the 11 x 10 grid

# 32 cores of a [1, 8, 128, 128] height-sharded tensor (shards [32, 128]), as tt-mlir writes them.
HS32 = [(0, 0, 10, 1), (0, 2, 9, 2)]


def T(shape, dtype="bf16", buffer="dram", mem="interleaved", grid=None, cores=None, layout="tile"):
    """A TensorDesc: L1 interleaved tensors get the 10x11 grid tt-mlir writes; sharded ones need grid and cores."""
    if grid is None:
        grid = (10, 11) if (buffer == "l1" and mem == "interleaved") else (1, 1)
    crs = CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in cores)) if cores else None
    return TensorDesc(tuple(shape), dtype, layout, buffer, mem, grid, crs)


def program(op, operands, result, attrs="", free_l1=FULL):
    """The modeled program of a one-op module on the measured mock (its Arch, empty L1)."""
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, [result], attrs)), "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.name == op), arch=MOCK, free_l1=free_l1)
    assert p.status == "modeled", p.reason
    return p.program


def cbs(p):
    """(bytes, tensor-backed, cores) of each CB in creation order."""
    return [(c.bytes, c.globally_allocated, c.cores.num_cores) for c in p.cbs]


def refused(op, operands, result, attrs=""):
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, [result], attrs)), "t.mlir"))
    return program_of(a, next(o for o in a.program.ops if o.name == op), arch=MOCK, free_l1=FULL)


ACT = "activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []"


def acts(a="", b="", post=""):
    u = "#ttnn.unary_with_param<op_type = {}>"
    f = lambda n: f"[{u.format(n)}]" if n else "[]"  # noqa: E731
    return f"activations = {f(post)}, input_tensor_a_activations = {f(a)}, input_tensor_b_activations = {f(b)}"


# ---------------------------------------------------------------------------
# Unary
# ---------------------------------------------------------------------------


def test_unary_interleaved():
    # c_0 input and c_2 output, 2 tiles each: 2 x 2,048 = 4,096 B; 8,192 B per core (real/mlp_o0:32).
    p = program("ttnn.relu", [T([32, 256])], T([32, 256]))
    assert p.factory == "UnaryDeviceOperation::ProgramFactory"
    assert cbs(p) == [(4096, False, ALL), (4096, False, ALL)] and p.per_core_bytes() == 8192


@pytest.mark.parametrize("dtype,tile", [("f32", 4096), ("bfp_bf8", 1088)])
def test_unary_tile_formats(dtype, tile):
    # 2 tiles of the format each ("exp f32 dram" 2 x 8,192 B, "relu bfp8 dram" 2 x 2,176 B).
    p = program("ttnn.exp", [T([1, 1, 64, 128], dtype)], T([1, 1, 64, 128], dtype))
    assert cbs(p) == [(2 * tile, False, ALL), (2 * tile, False, ALL)]


def test_unary_native_sharded():
    # Width-sharded in and out on the same 8 cores: the CBs are the [32, 32] shards (1 tile, 2,048 B),
    # backed by the tensors, so no static CB L1 (real/mlp_o2:41).
    ws = T([32, 256], buffer="l1", mem="width_sharded", grid=(1, 8), cores=[(0, 0, 7, 0)])
    p = program("ttnn.relu", [ws], ws)
    assert cbs(p) == [(2048, True, ALL), (2048, True, ALL)] and p.per_core_bytes() == 0


@pytest.mark.parametrize("src,dst", [
    # sharded -> interleaved ("relu HS->DRAM"), interleaved -> sharded (real/transformer_ffn_o2:109, gelu).
    (T([256, 64], buffer="l1", mem="height_sharded", grid=(4, 1), cores=[(0, 0, 3, 0)]), T([256, 64])),
    (T([256, 64], buffer="l1"), T([256, 64], buffer="l1", mem="height_sharded", grid=(4, 1), cores=[(0, 0, 3, 0)])),
    # an uneven height shard: 160 rows in 64-row shards ("relu HS uneven").
    (T([160, 64], buffer="l1", mem="height_sharded", grid=(3, 1), cores=[(0, 0, 2, 0)]),
     T([160, 64], buffer="l1", mem="height_sharded", grid=(3, 1), cores=[(0, 0, 2, 0)])),
])
def test_unary_not_native(src, dst):
    # The interleaved path: two 2-tile CBs of 4,096 B, nothing backed.
    assert cbs(program("ttnn.relu", [src], dst)) == [(4096, False, ALL), (4096, False, ALL)]


# ---------------------------------------------------------------------------
# Binary (binary_ng)
# ---------------------------------------------------------------------------


def test_binary_no_broadcast():
    # a, b, c: 3 x (2 x 2,048) = 12,288 B (real/transformer_ffn_o0:49, multiply).
    p = program("ttnn.multiply", [T([1, 128, 768]), T([1, 128, 768])], T([1, 128, 768]), ACT)
    assert p.factory == "BinaryNgDeviceOperation::ProgramFactory"
    assert cbs(p) == [(4096, False, ALL)] * 3 and p.per_core_bytes() == 12288


def test_binary_row_broadcast_of_b():
    # row_b adds c_6, 2 tiles of b: 4 x 4,096 = 16,384 B (real/transformer_ffn_o0:73, add).
    p = program("ttnn.add", [T([1, 128, 768]), T([1, 1, 768])], T([1, 128, 768]), ACT)
    assert cbs(p) == [(4096, False, ALL)] * 4 and [c.index for c in p.cbs] == [0, 1, 6, 2]


def test_binary_scalar_broadcast_of_a():
    # a = [1,1,1] is scalar_a: c_5 holds 2 tiles of a: 4 x 4,096 B (real/attention_o0:52, maximum).
    p = program("ttnn.maximum", [T([1, 1, 1]), T([1, 8, 128])], T([1, 8, 128]), ACT)
    assert [c.index for c in p.cbs] == [0, 1, 5, 2] and p.per_core_bytes() == 16384


def test_binary_rhs_activation_and_column_broadcast():
    # rsqrt on b adds c_4 of 1 tile (2,048 B) on the interleaved path; col_b adds c_6 (4,096 B):
    # 4,096 + 4,096 + 2,048 + 4,096 + 4,096 = 18,432 B (real/transformer_ffn_o0:59).
    p = program("ttnn.multiply", [T([1, 128, 768]), T([1, 128, 1])], T([1, 128, 768]), acts(b="rsqrt"))
    assert [(c.index, c.bytes) for c in p.cbs] == [(0, 4096), (1, 4096), (4, 2048), (6, 4096), (2, 4096)]


def test_binary_tile_formats():
    # f32 (an SFPU op): 3 x 8,192 B ("add f32 dram"); bf16 + f32 -> bf16: a 4,096, b 8,192, c 4,096 ("add bf16+f32").
    assert cbs(program("ttnn.add", [T([1, 1, 64, 64], "f32")] * 2, T([1, 1, 64, 64], "f32"), ACT)) == [(8192, False, ALL)] * 3
    p = program("ttnn.add", [T([1, 1, 64, 64]), T([1, 1, 64, 64], "f32")], T([1, 1, 64, 64]), ACT)
    assert [c.bytes for c in p.cbs] == [4096, 8192, 4096]


def test_binary_logical_op_processes_both_inputs():
    # LOGICAL_AND pre-processes a and b (NEZ): c_3 and c_4 of 1 tile each on the interleaved path:
    # 4,096 + 2,048 + 4,096 + 2,048 + 4,096 = 16,384 B ("logical_and bf16 dram").
    p = program("ttnn.logical_and", [T([1, 1, 64, 64])] * 2, T([1, 1, 64, 64]), ACT)
    assert [(c.index, c.bytes) for c in p.cbs] == [(0, 4096), (3, 2048), (1, 4096), (4, 2048), (2, 4096)]


HS = T([1, 8, 128, 128], buffer="l1", mem="height_sharded", grid=(32, 1), cores=HS32)


def test_binary_native_sharded_sfpu_activation():
    # Identical height-sharded a, b, c: backed shards of 1 x 4 tiles = 8,192 B; bf16 multiply runs on
    # the SFPU in ttnn 0.81.1, so the rsqrt CB c_4 holds a 2-tile cycle: 4,096 B static ("E14").
    p = program("ttnn.multiply", [HS, HS], HS, acts(b="rsqrt"))
    assert cbs(p) == [(8192, True, ALL), (8192, True, ALL), (4096, False, ALL), (8192, True, ALL)]
    assert p.per_core_bytes() == 4096


def test_binary_native_sharded_fpu_activation():
    # bf16 add is an FPU op: the exp CB c_3 holds an 8-tile cycle: 16,384 B ("act add lhs EXP HS").
    p = program("ttnn.add", [HS, HS], HS, acts(a="exp"))
    assert [(c.index, c.bytes, c.globally_allocated) for c in p.cbs] == [
        (0, 8192, True), (3, 16384, False), (1, 8192, True), (2, 8192, True)]


def test_binary_native_sharded_with_interleaved_column_broadcast():
    # a and c height-sharded alike, b [1,8,128,1] interleaved in L1 (col_b): native; b 2 tiles, c_6 2 tiles,
    # a and c backed: 8,192 B static (real/attention_o2:65, subtract with exp post-activation: no CB).
    b = T([1, 8, 128, 1], buffer="l1")
    p = program("ttnn.subtract", [HS, b], HS, acts(post="exp"))
    assert cbs(p) == [(8192, True, ALL), (4096, False, ALL), (4096, False, ALL), (8192, True, ALL)]
    assert p.per_core_bytes() == 8192


def test_binary_sharded_operands_with_different_shard_specs():
    # b height-sharded with 32-wide shards, a with 128-wide: not native, 4 x 4,096 B (real/attention_o2:73).
    b = T([1, 8, 128, 1], buffer="l1", mem="height_sharded", grid=(32, 1), cores=HS32)
    assert cbs(program("ttnn.divide", [HS, b], HS, ACT)) == [(4096, False, ALL)] * 4


def test_binary_block_sharded_identical():
    # [1,128,768] block-sharded on 8x4 cores, shards [32, 96] = 3 tiles = 6,144 B, all backed (real/transformer_ffn_o2:60).
    bs = T([1, 128, 768], buffer="l1", mem="block_sharded", grid=(4, 8), cores=[(0, 0, 7, 3)])
    p = program("ttnn.multiply", [bs, bs], bs, ACT)
    assert cbs(p) == [(6144, True, ALL)] * 3 and p.per_core_bytes() == 0


def test_binary_sharded_inputs_interleaved_output():
    # An interleaved output disables the native path: 3 x 4,096 B ("E8").
    assert cbs(program("ttnn.add", [HS, HS], T([1, 8, 128, 128]), ACT)) == [(4096, False, ALL)] * 3


def test_binary_rejects_unsupported_dtype():
    # bitwise ops take integers only: TT_FATAL on the mock ("bitwise_and bf16 dram").
    p = refused("ttnn.bitwise_and", [T([1, 1, 64, 64])] * 2, T([1, 1, 64, 64]), ACT)
    assert p.status == "rejected" and "TT_FATAL" in p.reason


def test_binary_rejects_sharded_output_off_tile():
    # binary_ng's output is tiled: a row-major [1, 263] u32 height shard on one core is refused by the tile
    # layout's shard check (campaign g1/ttnn.bitwise_xor/9); a [32, 64] row-major shard runs.
    odd = T([263], "u32", "l1", "height_sharded", (1, 1), [(0, 0, 0, 0)], layout="row_major")
    p = refused("ttnn.bitwise_xor", [odd, odd], odd, ACT)
    assert p.status == "rejected" and "must be tile" in p.reason
    ok = T([32, 64], "u32", "l1", "height_sharded", (1, 1), [(0, 0, 0, 0)], layout="row_major")
    assert refused("ttnn.bitwise_xor", [ok, ok], ok, ACT).status == "modeled"


def test_sign_rejects_integer_input():
    # validate_integer_input_dtype: SIGN has no integer LLK (campaign g1/ttnn.sign/11, si32 row-major DRAM);
    # abs of si32 runs (ABS_INT32).
    x = T([1, 1, 2, 8795], "si32", layout="row_major")
    p = refused("ttnn.sign", [x], x)
    assert p.status == "rejected" and "SIGN does not support integer" in p.reason
    assert program("ttnn.abs", [x], x).factory == "UnaryDeviceOperation::ProgramFactory"


# ---------------------------------------------------------------------------
# Ternary (where)
# ---------------------------------------------------------------------------


def test_where_no_broadcast():
    # c_0 predicate, c_1 true, c_2 false, c_3 output, 2 tiles each: 4 x 4,096 B ("where ttt bf16").
    t = T([1, 1, 64, 128])
    p = program("ttnn.where", [t, t, t], t)
    assert p.factory == "TernaryDeviceOperation::TernaryProgramFactory" and cbs(p) == [(4096, False, ALL)] * 4


def test_where_row_broadcast():
    # A row-broadcast predicate adds c_4, c_5, c_6 of 2 tiles: 7 x 4,096 = 28,672 B ("where ttt bcast row").
    t = T([1, 1, 64, 128])
    p = program("ttnn.where", [T([1, 1, 1, 128]), t, t], t)
    assert [c.index for c in p.cbs] == [0, 1, 2, 4, 5, 6, 3] and p.per_core_bytes() == 28672


def test_where_native_sharded():
    # Identical height-sharded operands, shards [64, 64] = 4 tiles = 8,192 B, all backed ("where ttt HS identical").
    hs = T([1, 1, 256, 64], buffer="l1", mem="height_sharded", grid=(4, 1), cores=[(0, 0, 3, 0)])
    p = program("ttnn.where", [hs, hs, hs], hs)
    assert cbs(p) == [(8192, True, ALL)] * 4 and p.per_core_bytes() == 0


# ---------------------------------------------------------------------------
# Every elementwise op of the real fixtures
# ---------------------------------------------------------------------------

# (fixture, line, factory, sorted (CB bytes, tensor-backed), busiest core's static CB bytes): measured on
# mock P150, ttnn 0.81.1 (tt-metal d80d9482) by replaying each op with its shapes, dtypes, memory
# configs (shard specs included) and attributes (raw/fixture_results.json).
FIXTURE_OPS = [
    ("attention_o0", 48, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o0", 52, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o0", 57, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o0", 65, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o1", 48, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o1", 52, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o1", 57, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o1", 65, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o2", 56, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (8192, 1), (8192, 1)], 8192),
    ("attention_o2", 60, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("attention_o2", 65, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (8192, 1), (8192, 1)], 8192),
    ("attention_o2", 73, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mlp_o0", 32, "UnaryDeviceOperation", [(4096, 0), (4096, 0)], 8192),
    ("mlp_o1", 32, "UnaryDeviceOperation", [(4096, 0), (4096, 0)], 8192),
    ("mlp_o2", 41, "UnaryDeviceOperation", [(2048, 1), (2048, 1)], 0),
    ("mochi_small_constpad_o0", 84, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mochi_small_constpad_o0", 87, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("mochi_small_constpad_o0", 94, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("mochi_small_constpad_o0", 97, "BinaryNgDeviceOperation", [(2048, 0), (4096, 0), (4096, 0), (4096, 0), (4096, 0)], 18432),
    ("mochi_small_constpad_o0", 106, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mochi_small_constpad_o0", 113, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mochi_small_edgepad_o0", 101, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mochi_small_edgepad_o0", 104, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("mochi_small_edgepad_o0", 111, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("mochi_small_edgepad_o0", 114, "BinaryNgDeviceOperation", [(2048, 0), (4096, 0), (4096, 0), (4096, 0), (4096, 0)], 18432),
    ("mochi_small_edgepad_o0", 123, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("mochi_small_edgepad_o0", 130, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o0", 46, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o0", 49, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("transformer_ffn_o0", 56, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o0", 59, "BinaryNgDeviceOperation", [(2048, 0), (4096, 0), (4096, 0), (4096, 0), (4096, 0)], 18432),
    ("transformer_ffn_o0", 66, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o0", 73, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o0", 88, "UnaryDeviceOperation", [(4096, 0), (4096, 0)], 8192),
    ("transformer_ffn_o1", 46, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o1", 49, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0)], 12288),
    ("transformer_ffn_o1", 56, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o1", 59, "BinaryNgDeviceOperation", [(2048, 0), (4096, 0), (4096, 0), (4096, 0), (4096, 0)], 18432),
    ("transformer_ffn_o1", 66, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o1", 73, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o1", 88, "UnaryDeviceOperation", [(4096, 0), (4096, 0)], 8192),
    ("transformer_ffn_o2", 57, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o2", 60, "BinaryNgDeviceOperation", [(6144, 1), (6144, 1), (6144, 1)], 0),
    ("transformer_ffn_o2", 67, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o2", 70, "BinaryNgDeviceOperation", [(2048, 0), (4096, 0), (4096, 0), (4096, 0), (4096, 0)], 18432),
    ("transformer_ffn_o2", 79, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o2", 88, "BinaryNgDeviceOperation", [(4096, 0), (4096, 0), (4096, 0), (4096, 0)], 16384),
    ("transformer_ffn_o2", 109, "UnaryDeviceOperation", [(4096, 0), (4096, 0)], 8192),
]

_ANALYSES: dict = {}


def fixture_program(fixture: str, line: int):
    if fixture not in _ANALYSES:
        _ANALYSES[fixture] = analyze_path(FIXTURES / "real" / fixture / "ttnn.mlir")
    a = _ANALYSES[fixture]
    op = next(o for o in a.program.ops if o.pos.line == line and o.dialect == "ttnn" and o.name != "ttnn.deallocate")
    return program_of(a, op, arch=MOCK, free_l1=FULL)


@pytest.mark.parametrize("fixture,line,factory,expected,peak", FIXTURE_OPS, ids=[f"{f}:{ln}" for f, ln, *_ in FIXTURE_OPS])
def test_fixture_elementwise_ops_match_the_mock(fixture, line, factory, expected, peak):
    p = fixture_program(fixture, line)
    assert p.status == "modeled", p.reason
    assert p.program.factory.startswith(factory)
    assert sorted((c.bytes, int(c.globally_allocated)) for c in p.program.cbs) == expected
    assert p.program.per_core_bytes() == peak
