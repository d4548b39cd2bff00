"""The matmul/linear program model (ttanalyze/ops/matmul.py): factory, circular buffers, output spec.

Every expected number is derived by hand from the factory formulas (derivation
in the comment); the factories and branches they exercise are measured on mock
P150, ttnn 0.81.1 (tt-metal d80d9482), by the op-level campaign
(measurements/opdiff/results.jsonl.gz, benchmarks/opdiff.py; docs/accuracy.md).
The models run with the measured mock's arch (base 111,744, bank 1,461,120 B).
Tile sizes: bf16 2048 B, f32 4096 B, bfp8 1088 B.  No test needs ttnn.
"""

from __future__ import annotations

from math import prod

import pytest

from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ops import spec_model
from ttanalyze.ops.matmul import program_config, ttnn_output_shape
from ttanalyze.programs import context_for, program_of

from .conftest import REAL, analyze_path, analyze_text, bh_module

BANK = MOCK.l1_size - MOCK.l1_unreserved_base  # 1,461,120 B: free L1 with nothing allocated


# ---------------------------------------------------------------------------
# One-op modules
# ---------------------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _layout(shape, dt="bf16", buf="dram", ml="interleaved", shard=None) -> str:
    """A tt-mlir #ttnn.ttnn_layout for a TILE tensor; ``shard`` = (core ranges (x0,y0,x1,y1), shard shape)."""
    r = len(shape)
    if r == 1:
        amap = "(d0) -> (0, d0)"
    else:
        pad = list(shape)
        pad[-2] = _cdiv(pad[-2], 32) * 32
        terms = [f"d{i} * {prod(pad[i + 1:r - 1])}" if prod(pad[i + 1:r - 1]) != 1 else f"d{i}" for i in range(r - 1)]
        amap = f"({', '.join(f'd{i}' for i in range(r))}) -> ({' + '.join(terms)}, d{r - 1})"
    ps = list(shape) if r >= 2 else [1, *shape]
    rows_t, cols_t = prod(ps[:-2]) * _cdiv(ps[-2], 32), _cdiv(ps[-1], 32)
    extra = ""
    if buf == "dram" and ml == "interleaved":
        grid, memref = "1x1", f"{rows_t}x{cols_t}"
    elif ml == "interleaved":
        grid, memref = "10x11", f"1x{_cdiv(rows_t * cols_t, 110)}"
    else:
        ranges, (sh, sw) = shard
        n = sum((x1 - x0 + 1) * (y1 - y0 + 1) for x0, y0, x1, y1 in ranges)
        xs = [v for x0, _, x1, _ in ranges for v in (x0, x1)]
        ys = [v for _, y0, _, y1 in ranges for v in (y0, y1)]
        grid = {"height_sharded": f"{n}x1", "width_sharded": f"1x{n}"}.get(
            ml, f"{max(ys) - min(ys) + 1}x{max(xs) - min(xs) + 1}")
        memref = f"{sh // 32}x{sw // 32}"
        extra = ", core_ranges = <[" + ", ".join(
            f"#ttnn.core_range<({x0},{y0}), ({x1},{y1})>" for x0, y0, x1, y1 in ranges) + "]>"
    return (f"#ttnn.ttnn_layout<{amap}, <{grid}>, memref<{memref}x!ttcore.tile<32x32, {dt}>, #{buf}>, "
            f"<{ml}>{extra}>")


def _ttype(shape, dt="bf16", **kw) -> str:
    elem = {"bfp_bf8": "bf16"}.get(dt, dt)
    return f"tensor<{'x'.join(map(str, shape))}x{elem}, {_layout(shape, dt, **kw)}>"


def _module(a, b, out, bias=None, attrs="", op="ttnn.matmul", transpose=(False, False)) -> str:
    """``a``, ``b``, ``out``, ``bias``: (shape, layout kwargs) pairs; ``transpose``: (transpose_a, transpose_b)."""
    ins = [("%a", a), ("%b", b)] + ([("%bias", bias)] if bias else [])
    args = ", ".join(f"{n}: {_ttype(s, **k)}" for n, (s, k) in ins)
    rt = _ttype(out[0], **out[1])
    body = (f'    %r = "{op}"({", ".join(n for n, _ in ins)}) <{{transpose_a = {str(transpose[0]).lower()}, transpose_b = {str(transpose[1]).lower()}{attrs}}}> : '
            f'({", ".join(_ttype(s, **k) for _, (s, k) in ins)}) -> {rt}\n    return %r : {rt}')
    return bh_module("", body, args, rt)


def _op(text):
    an = analyze_text(text)
    return an, next(o for o in an.program.ops if o.name in ("ttnn.matmul", "ttnn.linear"))


def _program(text, free=BANK):
    an, op = _op(text)
    verdict = program_of(an, op, arch=MOCK, free_l1=free)
    assert verdict.status == "modeled", verdict.reason
    return verdict.program


def _cells(ranges):
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _cbs(prog):
    """The program's CBs as a sorted list of (bytes, globally allocated, core set)."""
    return sorted((cb.bytes, cb.globally_allocated,
                   _cells([(r.start.x, r.start.y, r.end.x, r.end.y) for r in cb.cores.ranges])) for cb in prog.cbs)


def _expect(*items):
    """Expected CBs: (bytes, globally allocated, core ranges) triples, normalized like :func:`_cbs`."""
    return sorted((b, g, _cells(r)) for b, g, r in items)


def _pc2d(grid, bw, sh, sw, bh, bwid, pm, pn, tm=False, fb=True):
    return (f", matmul_program_config = #ttnn.matmul_multi_core_reuse_multi_cast_program_config<"
            f"compute_with_storage_grid_size = #ttnn.core_coord<{grid[0]}, {grid[1]}>, in0_block_w = {bw}, "
            f"out_subblock_h = {sh}, out_subblock_w = {sw}, out_block_h = {bh}, out_block_w = {bwid}, "
            f"per_core_m = {pm}, per_core_n = {pn}, transpose_mcast = {str(tm).lower()}, fuse_batch = {str(fb).lower()}>")


def _pc1d(grid, bw, sh, sw, bh, bwid, pm, pn, mcast_in0=True, gather=False, untilize=False, fb=True):
    return (f", matmul_program_config = #ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config<"
            f"compute_with_storage_grid_size = #ttnn.core_coord<{grid[0]}, {grid[1]}>, in0_block_w = {bw}, "
            f"out_subblock_h = {sh}, out_subblock_w = {sw}, out_block_h = {bh}, out_block_w = {bwid}, "
            f"per_core_m = {pm}, per_core_n = {pn}, fuse_batch = {str(fb).lower()}, mcast_in0 = {str(mcast_in0).lower()}, "
            f"gather_in0 = {str(gather).lower()}, hop_cores = #ttnn.core_range_set<>, num_global_cb_receivers = 1, "
            f"untilize_out = {str(untilize).lower()}>")


def _pcreuse(grid, bw, sh, sw, pm, pn):
    return (f", matmul_program_config = #ttnn.matmul_multi_core_reuse_program_config<"
            f"compute_with_storage_grid_size = #ttnn.core_coord<{grid[0]}, {grid[1]}>, in0_block_w = {bw}, "
            f"out_subblock_h = {sh}, out_subblock_w = {sw}, per_core_m = {pm}, per_core_n = {pn}>")


FP32 = ", compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>"
DRAM: dict = {}
L1 = {"buf": "l1"}
G = (11, 10)


# ---------------------------------------------------------------------------
# The real fixtures: every matmul/linear op, measured with the same operands
# ---------------------------------------------------------------------------

# Measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482): factory, per-core CB
# peak and the matmul program's DFBs (bytes, backed by a tensor, core ranges),
# each op replayed with the fixture's shapes, dtypes, memory configs, shard
# specs, program config and compute config (results/fixtures.json).
FIXTURE_OPS = {
    "attention_o0:45:%7": ("MatmulMultiCoreReuseMcast2DProgramFactory", 14336, [
        (4096, False, ((0, 0, 3, 3),)), (4096, False, ((0, 0, 3, 3),)), (2048, False, ((0, 0, 3, 3),)),
        (4096, False, ((0, 0, 3, 3),))]),
    "attention_o0:70:%18": ("MatmulMultiCoreReuseOptimizedProgramFactory", 98304, [
        (32768, False, ((0, 0, 0, 7),)), (16384, False, ((0, 0, 0, 7),)), (16384, False, ((0, 0, 0, 7),)),
        (32768, False, ((0, 0, 0, 7),))]),
    "attention_o1:45:%7": ("MatmulMultiCoreReuseMcast2DProgramFactory", 10240, [
        (4096, False, ((0, 0, 3, 3),)), (4096, False, ((0, 0, 3, 3),)), (2048, False, ((0, 0, 3, 3),))]),
    "attention_o1:70:%18": ("MatmulMultiCoreReuseMcast2DProgramFactory", 10240, [
        (4096, False, ((0, 0, 1, 3),)), (4096, False, ((0, 0, 1, 3),)), (2048, False, ((0, 0, 1, 3),))]),
    "attention_o2:51:%8": ("MatmulMultiCoreReuseOptimizedProgramFactory", 40960, [
        (4096, True, ((0, 0, 10, 1), (0, 2, 9, 2))), (32768, False, ((0, 0, 10, 1), (0, 2, 9, 2))),
        (8192, False, ((0, 0, 10, 1), (0, 2, 9, 2)))]),
    "attention_o2:78:%20": ("MatmulMultiCoreReuseOptimizedProgramFactory", 36864, [
        (8192, True, ((0, 0, 10, 1), (0, 2, 9, 2))), (32768, False, ((0, 0, 10, 1), (0, 2, 9, 2))),
        (4096, False, ((0, 0, 10, 1), (0, 2, 9, 2)))]),
    "mlp_o0:28:%3": ("MatmulMultiCoreReuseMcast1DProgramFactory", 24576, [
        (8192, False, ((0, 0, 7, 0),)), (8192, False, ((0, 0, 7, 0),)), (2048, False, ((0, 0, 7, 0),)),
        (4096, False, ((0, 0, 7, 0),)), (2048, False, ((0, 0, 7, 0),))]),
    "mlp_o0:36:%6": ("MatmulMultiCoreReuseMcast1DProgramFactory", 38912, [
        (16384, False, ((0, 0, 0, 0),)), (16384, False, ((0, 0, 0, 0),)), (2048, False, ((0, 0, 0, 0),)),
        (4096, False, ((0, 0, 0, 0),))]),
    "mlp_o1:28:%3": ("MatmulMultiCoreReuseMcast1DProgramFactory", 20480, [
        (8192, False, ((0, 0, 7, 0),)), (8192, False, ((0, 0, 7, 0),)), (2048, False, ((0, 0, 7, 0),)),
        (2048, False, ((0, 0, 7, 0),))]),
    "mlp_o1:36:%6": ("MatmulMultiCoreReuseMcast1DProgramFactory", 18432, [
        (8192, False, ((0, 0, 0, 0),)), (8192, False, ((0, 0, 0, 0),)), (2048, False, ((0, 0, 0, 0),))]),
    "mlp_o2:37:%5": ("MatmulMultiCoreReuseMcast1DProgramFactory", 16384, [
        (8192, False, ((0, 0, 7, 0),)), (8192, False, ((0, 0, 7, 0),)), (8192, True, ((0, 0, 7, 0),)),
        (2048, True, ((0, 0, 7, 0),)), (2048, True, ((0, 0, 7, 0),))]),
    "mlp_o2:47:%9": ("MatmulMultiCoreReuseMcast1DProgramFactory", 16384, [
        (16384, True, ((0, 0, 0, 0),)), (16384, False, ((0, 0, 0, 0),)), (2048, True, ((0, 0, 0, 0),))]),
    "transformer_ffn_o0:82:%21": ("MatmulMultiCoreReuseMcast1DProgramFactory", 272384, [
        (196608, False, ((0, 0, 10, 7), (0, 8, 7, 8))), (49152, False, ((0, 0, 10, 7), (0, 8, 7, 8))),
        (8192, False, ((0, 0, 10, 7), (0, 8, 7, 8))), (16384, False, ((0, 0, 10, 7), (0, 8, 7, 8))),
        (2048, False, ((0, 0, 10, 7), (0, 8, 7, 8)))]),
    "transformer_ffn_o0:96:%27": ("MatmulMultiCoreReuseMcast2DProgramFactory", 548864, [
        (131072, False, ((0, 0, 7, 3),)), (393216, False, ((0, 0, 7, 3),)), (6144, False, ((0, 0, 7, 3),)),
        (12288, False, ((0, 0, 7, 3),)), (6144, False, ((0, 0, 7, 3),))]),
    "transformer_ffn_o1:82:%21": ("MatmulMultiCoreReuseMcast1DProgramFactory", 51200, [
        (32768, False, ((0, 0, 10, 7), (0, 8, 7, 8))), (8192, False, ((0, 0, 10, 7), (0, 8, 7, 8))),
        (8192, False, ((0, 0, 10, 7), (0, 8, 7, 8))), (2048, False, ((0, 0, 10, 7), (0, 8, 7, 8)))]),
    "transformer_ffn_o1:96:%27": ("MatmulMultiCoreReuseMcast2DProgramFactory", 28672, [
        (4096, False, ((0, 0, 7, 3),)), (12288, False, ((0, 0, 7, 3),)), (6144, False, ((0, 0, 7, 3),)),
        (6144, False, ((0, 0, 7, 3),))]),
    "transformer_ffn_o2:101:%26": ("MatmulMultiCoreReuseMcast1DProgramFactory", 163840, [
        (131072, False, ((0, 0, 10, 7), (0, 8, 7, 8))), (32768, False, ((0, 0, 10, 7), (0, 8, 7, 8))),
        (8192, True, ((0, 0, 10, 7), (0, 8, 7, 8))), (2048, True, ((0, 0, 10, 7), (0, 8, 7, 8)))]),
    "transformer_ffn_o2:123:%36": ("MatmulMultiCoreReuseMcast2DProgramFactory", 38912, [
        (8192, False, ((0, 0, 7, 3),)), (8192, False, ((8, 0, 9, 3),)), (24576, False, ((0, 0, 7, 3),)),
        (20480, True, ((0, 0, 9, 3),)), (6144, True, ((0, 0, 7, 3),)), (6144, False, ((0, 0, 7, 3),))]),
}


def _fixture_ops():
    for path in REAL:
        an = analyze_path(path)
        for op in an.program.ops:
            if op.name in ("ttnn.matmul", "ttnn.linear"):
                yield f"{path.parent.name}:{op.pos.line}:{op.results[0].name}", an, op


def test_every_fixture_matmul_is_measured():
    assert sorted(name for name, _, _ in _fixture_ops()) == sorted(FIXTURE_OPS)


@pytest.mark.parametrize("name", sorted(FIXTURE_OPS))
def test_fixture_matmul_matches_mock(name):
    # The fixtures' own IR, free L1 = the mock's bank (L1 empty, as measured).
    an, op = next((an, op) for n, an, op in _fixture_ops() if n == name)
    prog = program_of(an, op, arch=MOCK, free_l1=BANK).program
    factory, peak, cbs = FIXTURE_OPS[name]
    assert prog.factory == factory
    assert prog.per_core_bytes() == peak
    assert _cbs(prog) == _expect(*cbs)


def test_fixture_derivations():
    # transformer_ffn_o0 %27: 2D mcast, [128, 3072] @ [3072, 768] + bias, per_core 1x3, in0_block_w 32,
    # fp32_dest_acc_en (IR compute config; packer_l1_acc stays false).  Mt 4, Nt 24 -> 4x8 cores; num_blocks 96/32 = 3
    # -> inputs double-buffered: in0 1*32*2 = 64 tiles = 131072, in1 3*32*2 = 192 tiles = 393216; output 3 tiles
    # 6144; f32 intermediate (differs from the bf16 output) 3*4096 = 12288; bias 3 tiles 6144 -> 548864 per core.
    prog = program_of(*next((an, op) for n, an, op in _fixture_ops() if n == "transformer_ffn_o0:96:%27"),
                      arch=MOCK, free_l1=BANK).program
    assert {cb.name: cb.bytes for cb in prog.cbs} == {
        "in0": 131072, "in1": 393216, "out": 6144, "interm": 12288, "bias": 6144}
    assert prog.per_core_bytes() == 131072 + 393216 + 6144 + 12288 + 6144


# ---------------------------------------------------------------------------
# 2D mcast (MatmulMultiCoreReuseMultiCastProgramConfig)
# ---------------------------------------------------------------------------

A256 = ([256, 512], DRAM)
B384 = ([512, 384], DRAM)
O256 = ([256, 384], DRAM)
P2D = _pc2d(G, 2, 1, 1, 2, 3, 2, 3)


def test_2d_base():
    # Mt 8, Kt 16, Nt 12; per_core 2x3 -> 4x4 cores; num_blocks 8 -> double buffering: in0 2*2*2 = 8 tiles = 16384,
    # in1 3*2*2 = 12 tiles = 24576; output 6 tiles 12288.  Default compute config with a program config: packer_l1_acc
    # on, fp32 off; 8 > 2 blocks -> L1 accumulation in bf16 = the output format -> intermediate shares the output CB.
    prog = _program(_module(A256, B384, O256, attrs=P2D))
    assert prog.factory == "MatmulMultiCoreReuseMcast2DProgramFactory"
    q = ((0, 0, 3, 3),)
    assert _cbs(prog) == _expect((16384, False, q), (24576, False, q), (12288, False, q))
    assert prog.per_core_bytes() == 53248


def test_2d_fp32_accumulation_adds_an_f32_intermediate():
    # As test_2d_base with fp32_dest_acc_en: intermediate in f32 (4096 B/tile) cannot share the bf16 output CB:
    # + 6 * 4096 = 24576 -> 77824 (measured).
    prog = _program(_module(A256, B384, O256, attrs=P2D + FP32))
    assert prog.per_core_bytes() == 53248 + 24576
    assert [cb.bytes for cb in prog.cbs if cb.name == "interm"] == [24576]


def test_2d_bfp8_output_with_l1_acc():
    # Output bfp8: 6 * 1088 = 6528; packer L1 accumulation packs bf16 -> separate intermediate 6 * 2048 = 12288;
    # 16384 + 24576 + 6528 + 12288 = 59776 (measured).
    prog = _program(_module(A256, B384, ([256, 384], {"dt": "bfp_bf8"}), attrs=P2D))
    assert prog.per_core_bytes() == 59776


def test_2d_two_k_blocks_accumulate_in_l1():
    # Measured (opdiff g1/ttnn.matmul/267): [64, 33] @ [33, 65], bfp8 everywhere, no config: 2D mcast, per_core 1x1,
    # in0_block_w 1 -> num_blocks 2.  Default compute config (bfp8 output): packer_l1_acc on, and ttnn 0.81.1 accumulates
    # in L1 from 2 blocks on: a bf16 intermediate (2048) beside the bfp8 output (1088); in0, in1 2 * 1088 = 2176 each
    # -> 7488.
    b8 = {"dt": "bfp_bf8"}
    prog = _program(_module(([64, 33], b8), ([33, 65], b8), ([64, 65], b8)))
    assert prog.factory == "MatmulMultiCoreReuseMcast2DProgramFactory"
    assert sorted(cb.bytes for cb in prog.cbs) == [1088, 2048, 2176, 2176]


def test_2d_bias_and_transpose_a():
    # Bias: out_block_w = 3 tiles = 6144 -> 59392 (measured).  transpose_a: a given as [512, 256]; c_10 holds the
    # transposed in0 block, as big as in0 (16384) -> 69632 (measured).
    prog = _program(_module(A256, B384, O256, bias=([384], DRAM), attrs=P2D, op="ttnn.linear"))
    assert prog.per_core_bytes() == 59392
    text = _module(([512, 256], DRAM), B384, O256, attrs=P2D).replace("transpose_a = false", "transpose_a = true")
    assert _program(text).per_core_bytes() == 69632


def test_2d_block_sharded_a_wider_than_the_work():
    # a [256, 512] BLOCK_SHARDED on 8x4 cores, shards [64, 64]; b [512, 128]: Nt 4 / per_core_N 1 -> 4 output
    # columns, so cores x 4..7 only send a.  in0 2*2*2 = 8 tiles = 16384 on the 4x4 cores with work and, in ttnn 0.81.1,
    # a second 16384 DFB on the 4x4 sender-only cores; in1 1*2*2 = 4 tiles = 8192 and output 2 tiles = 4096 on the
    # cores with work; a's shard block per_core_M * 2 = 4 tiles = 8192 backed by a's buffer on all 8x4 (measured).
    a = ([256, 512], {"buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 7, 3)], (64, 64))})
    prog = _program(_module(a, ([512, 128], DRAM), ([256, 128], DRAM), attrs=_pc2d(G, 2, 1, 1, 2, 1, 2, 1)))
    work, senders, both = ((0, 0, 3, 3),), ((4, 0, 7, 3),), ((0, 0, 7, 3),)
    assert _cbs(prog) == _expect((16384, False, work), (16384, False, senders), (8192, False, work),
                                 (8192, True, both), (4096, False, work))
    assert prog.per_core_bytes() == 28672


def test_2d_sharded_output_not_in_place():
    # BLOCK_SHARDED output with out_block_h 1 < per_core_M 2: the output CB is the shard (6 tiles, its buffer) and the
    # intermediate can not live in it: out_block 1x3 = 3 tiles = 6144; in0 1*2*2 = 4 tiles = 8192, in1 24576 -> 38912.
    out = ([256, 384], {"buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 3, 3)], (64, 96))})
    prog = _program(_module(A256, B384, out, attrs=_pc2d(G, 2, 1, 3, 1, 3, 2, 3)))
    assert prog.per_core_bytes() == 38912
    assert [(cb.name, cb.bytes, cb.globally_allocated) for cb in prog.cbs if cb.index in (4, 5)] == [
        ("out", 12288, True), ("interm", 6144, False)]


# ---------------------------------------------------------------------------
# 1D mcast (MatmulMultiCoreReuseMultiCast1DProgramConfig)
# ---------------------------------------------------------------------------


def test_1d_mcast_in0():
    # [64, 512] @ [512, 1024]: Nt 32, per_core 2x1 -> 32 cores row by row on the 8x4 grid; num_blocks 16/4 = 4 ->
    # in0 2*4*2 = 16 tiles = 32768, in1 1*4*2 = 8 tiles = 16384, output 2 tiles 4096 (shared, bf16 L1 acc) -> 53248.
    prog = _program(_module(([64, 512], DRAM), ([512, 1024], DRAM), ([64, 1024], DRAM),
                            attrs=_pc1d((8, 4), 4, 2, 1, 2, 1, 2, 1)))
    q = ((0, 0, 7, 3),)
    assert _cbs(prog) == _expect((32768, False, q), (16384, False, q), (4096, False, q))


def test_1d_mcast_in0_width_sharded_a_on_more_cores_than_work():
    # a [64, 512] WIDTH_SHARDED on 16 cores (4x4), shards [64, 32]; b [512, 256]: 8 output columns -> 8 cores with
    # work (first two rows of the 4x4 grid), 16 cores in all.  in0 2*1*2 = 4 tiles = 8192 on the workers plus a second
    # 8192 DFB on the 8 sender-only cores; in1 1*1*2 = 2 tiles 4096; a's block 2*1 tiles = 4096 backed by a on all 16;
    # output 4096 (measured).
    a = ([64, 512], {"buf": "l1", "ml": "width_sharded", "shard": ([(0, 0, 3, 3)], (64, 32))})
    prog = _program(_module(a, ([512, 256], DRAM), ([64, 256], DRAM), attrs=_pc1d((4, 4), 1, 2, 1, 2, 1, 2, 1)))
    work, rest, both = ((0, 0, 3, 1),), ((0, 2, 3, 3),), ((0, 0, 3, 3),)
    assert _cbs(prog) == _expect((8192, False, work), (8192, False, rest), (4096, False, work), (4096, True, both),
                                 (4096, False, work))


def test_1d_mcast_in0_unbatched_b_is_single_buffered():
    # Measured (opdiff g1/ttnn.matmul/49): [7, 32, 32] @ [32, 65], f32 -> bf16, no config: 1D mcast_in0, fuse_batch
    # false, per_core 1x1, one K block.  in0 1 tile doubled (batch 7) = 2 * 4096; in1 1 tile, single: b has batch 1
    # (B_b * num_blocks = 1); output 1 bf16 tile 2048 -> 14336.
    prog = _program(_module(([7, 32, 32], {"dt": "f32"}), ([32, 65], {"dt": "f32"}), ([7, 32, 65], DRAM)))
    assert prog.factory == "MatmulMultiCoreReuseMcast1DProgramFactory"
    assert sorted((cb.index, cb.bytes) for cb in prog.cbs) == [(0, 8192), (1, 4096), (4, 2048)]


def test_1d_mcast_in1_sharded_a_read_again_per_n_block():
    # Measured (opdiff g1/ttnn.matmul/213): a [3, 384, 512] f32 HEIGHT_SHARDED on 18 cores, shards [64, 512]; b [512,
    # 6496] f32; bf16 output; fp32_dest_acc_en; free L1 1,330,048 B.  1D mcast_in1, per_core 2x203, in0_block_w 16 (one
    # K block), out_block 1x7: several output blocks along M and along N, so c_0 is a copy of the shard, 2 * 16 = 32
    # f32 tiles = 131072, and c_2 (one block) is the shard's buffer; in1 7 * 16 tiles = 458752; output 7 bf16 tiles
    # 14336; f32 intermediate 7 tiles 28672 -> 632832.
    sh = ([(0, 0, 10, 0), (0, 1, 6, 1)], (64, 512))
    a = ([3, 384, 512], {"dt": "f32", "buf": "l1", "ml": "height_sharded", "shard": sh})
    text = _module(a, ([512, 6496], {"dt": "f32"}), ([3, 384, 6496], DRAM),
                   attrs=", compute_config = #ttnn.device_compute_kernel_config<math_fidelity = lofi, "
                         "fp32_dest_acc_en = true>")
    prog = _program(text, free=1330048)
    assert sorted((cb.index, cb.bytes, cb.globally_allocated) for cb in prog.cbs) == [
        (0, 131072, False), (1, 458752, False), (2, 65536, True), (4, 14336, False), (5, 28672, False)]
    assert prog.per_core_bytes() == 632832


def test_1d_mcast_in1_height_sharded_a_with_several_k_blocks():
    # a [1024, 64] HEIGHT_SHARDED on 32 cores, shards [32, 64] (2 K tiles), in0_block_w 1: the shard holds two K
    # blocks, so c_0 is a copy, 2 blocks * 1 * 1 = 2 tiles = 4096, and c_2 (one block, 1 tile = 2048) is backed by the
    # shard; in1 4*1*2 = 8 tiles 16384; the HEIGHT_SHARDED output's 4 tiles (8192) are its buffer -> 20480 (measured).
    sh = ([(0, 0, 7, 3)], (32, 64))
    a = ([1024, 64], {"buf": "l1", "ml": "height_sharded", "shard": sh})
    out = ([1024, 128], {"buf": "l1", "ml": "height_sharded", "shard": ([(0, 0, 7, 3)], (32, 128))})
    prog = _program(_module(a, ([64, 128], DRAM), out, attrs=_pc1d((8, 4), 1, 1, 4, 1, 4, 1, 4, mcast_in0=False)))
    assert prog.per_core_bytes() == 20480
    assert sorted((cb.index, cb.bytes, cb.globally_allocated) for cb in prog.cbs) == [
        (0, 4096, False), (1, 16384, False), (2, 2048, True), (4, 8192, True)]


def test_1d_mcast_in1_reuses_unbatched_a():
    # a [1, 1, 256, 64] (batch 1), b [1, 4, 64, 128] (batch 4), fuse_batch false: a stays whole in L1,
    # per_core_M * Kt = 1 * 2 tiles = 4096; in1 4*2 tiles, doubled (batch 4) = 16 tiles = 32768; output 8192 -> 45056.
    prog = _program(_module(([1, 1, 256, 64], DRAM), ([1, 4, 64, 128], DRAM), ([1, 4, 256, 128], DRAM),
                            attrs=_pc1d((8, 4), 2, 1, 4, 1, 4, 1, 4, mcast_in0=False, fb=False)))
    assert prog.per_core_bytes() == 45056
    assert prog.cores.num_cores == 8


def test_1d_untilize_out_with_two_subblocks():
    # untilize_out with out_block_w 2 / out_subblock_w 1 = 2 N subblocks: the intermediate gets its own CB.
    # Grid 4x4, per_core 2x2: in0 2*4*2 = 32768, in1 2*4*2 = 32768, output 4 tiles 8192, intermediate 8192 -> 81920.
    prog = _program(_module(([64, 512], DRAM), ([512, 1024], DRAM), ([64, 1024], DRAM),
                            attrs=_pc1d((4, 4), 4, 1, 1, 2, 2, 2, 2, untilize=True)))
    assert prog.per_core_bytes() == 81920


def test_1d_gather_in0_ring():
    # gather_in0 over a ring of 8 cores: a [32, 1024] WIDTH_SHARDED shards [32, 128] (4 tiles); b [1024, 256] in L1,
    # WIDTH_SHARDED [1024, 32].  Static: the other 7 shards 7*1*4 = 28 tiles = 57344 + two 16 B sync CBs = 57376;
    # a's shard (8192), b's shard (32 tiles = 65536) and the output (2048) are the tensors' buffers (measured).
    r8 = [(0, 0, 7, 0)]
    a = ([32, 1024], {"buf": "l1", "ml": "width_sharded", "shard": (r8, (32, 128))})
    b = ([1024, 256], {"buf": "l1", "ml": "width_sharded", "shard": (r8, (1024, 32))})
    out = ([32, 256], {"buf": "l1", "ml": "width_sharded", "shard": (r8, (32, 32))})
    prog = _program(_module(a, b, out, attrs=_pc1d((8, 1), 4, 1, 1, 1, 1, 1, 1, mcast_in0=False, gather=True)))
    assert prog.factory == "MatmulMeshWorkloadMultiCoreReuseMcast1DProgramFactory"
    q = tuple(r8)
    assert _cbs(prog) == _expect((8192, True, q), (65536, True, q), (57344, False, q), (16, False, q),
                                 (16, False, q), (2048, True, q))


# ---------------------------------------------------------------------------
# Reuse (MatmulMultiCoreReuseProgramConfig), DRAM-sharded, plain multi-core
# ---------------------------------------------------------------------------


def test_reuse_batched():
    # [2, 128, 256] @ [2, 256, 128]: Mt 4, Kt 8, Nt 4; per_core 4x4 -> (2*4/4)*(4/4) = 2 blocks on 2 cores, column by
    # column: (0,0), (0,1).  in0 4*2*2 = 16 tiles = 32768, in1 4*2*2 = 32768 (always double-buffered), output 16 tiles
    # 32768 (shared: 4 blocks > 2 -> bf16 L1 acc) -> 98304 (measured).
    prog = _program(_module(([2, 128, 256], DRAM), ([2, 256, 128], DRAM), ([2, 128, 128], DRAM),
                            attrs=_pcreuse(G, 2, 2, 2, 4, 4)))
    assert prog.factory == "MatmulMultiCoreReuseOptimizedProgramFactory"
    q = ((0, 0, 0, 1),)
    assert _cbs(prog) == _expect((32768, False, q), (32768, False, q), (32768, False, q))


def test_reuse_bias_is_a_separate_add():
    # The reuse factory has no bias CB: ttnn 0.81.1 adds the bias with a BinaryNg program afterwards (measured).
    # Same matmul as test_reuse_batched: the program is the same 98304 B.
    an, op = _op(_module(([2, 128, 256], DRAM), ([2, 256, 128], DRAM), ([2, 128, 128], DRAM), bias=([128], DRAM),
                         attrs=_pcreuse(G, 2, 2, 2, 4, 4), op="ttnn.linear"))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    matmul, add = verdict.stages
    assert all(cb.name != "bias" for cb in matmul.cbs)
    assert matmul.per_core_bytes() == 98304
    assert any("separate binary_ng add" in n for n in matmul.notes)
    # the add broadcasts the [128] bias over rows: a, b, output and the broadcast b CB, 2 bf16 tiles each
    assert add.factory == "BinaryNgDeviceOperation::ProgramFactory" and add.per_core_bytes() == 4 * 4096


def test_linear_with_a_batched_b_adds_its_bias_afterwards():
    # ttnn 0.81.1 runs a linear whose b is batched like a batched matmul (user_run_batched) and adds the bias with a
    # BinaryNg program after it (measured: opdiff g1/ttnn.linear/36 and 19 more).  The matmul program is the one of
    # the same op without the bias.
    a, b, out = ([2, 64, 128], DRAM), ([2, 128, 96], DRAM), ([2, 64, 96], DRAM)
    an, op = _op(_module(a, b, out, bias=([96], DRAM), op="ttnn.linear"))
    matmul, add = program_of(an, op, arch=MOCK, free_l1=BANK).stages
    assert add.factory == "BinaryNgDeviceOperation::ProgramFactory"
    assert all(cb.name != "bias" for cb in matmul.cbs)
    assert _cbs(matmul) == _cbs(_program(_module(a, b, out, op="ttnn.linear")))


def test_linear_block_sharded_a_with_a_batched_b_runs_the_reuse_factory():
    # Measured (opdiff g1/ttnn.linear/61; the model refused it before): a [6, 31, 65] BLOCK_SHARDED on 3x2 cores,
    # shards [96, 32], transposed -> [6, 65, 31]: Mt 3, Kt 1; b [6, 32, 31] transposed: Nt 1, batched -> ttnn's batched
    # config: MatmulMultiCoreReuseProgramConfig over a's shard grid, per_core_M 3 (shard height), per_core_N 1,
    # in0_block_w 1; 6 blocks on the 6 shard cores.  a's shard is c_0's buffer; in1 1 * 1 * 2 = 2 tiles 4096; output
    # 3 tiles 6144; transposed in0 (c_10) 3 tiles 6144 -> 16384; then the bias add.
    a = ([6, 31, 65], {"buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 2, 1)], (96, 32))})
    an, op = _op(_module(a, ([6, 32, 31], L1), ([6, 65, 32], DRAM), bias=([1, 32], DRAM), op="ttnn.linear",
                         transpose=(True, True)))
    matmul, add = program_of(an, op, arch=MOCK, free_l1=BANK).stages
    assert matmul.factory == "MatmulMultiCoreReuseOptimizedProgramFactory"
    q = ((0, 0, 2, 1),)
    assert [c for c in _cbs(matmul) if not c[1]] == _expect((4096, False, q), (6144, False, q), (6144, False, q))
    assert add.factory == "BinaryNgDeviceOperation::ProgramFactory"


def test_transposed_operands_on_the_multicore_factory_run_transposes_first():
    # Measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482): matmul L1 [128, 64]^T @ [256, 128]^T -> [64, 256]
    # runs TransposeDeviceOperation (2 x 4,096 B) twice, then MatmulMultiCoreProgramFactory (3 x 4,096 B), and
    # with activation "relu" a UnaryDeviceOperation (2 x 4,096 B) after it.
    an, op = _op(_module(([128, 64], L1), ([256, 128], L1), ([64, 256], L1), attrs=', activation = "relu"',
                         transpose=(True, True)))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert [(p.factory, p.per_core_bytes()) for p in verdict.stages] == [
        ("TransposeWHProgramFactory", 8192),
        ("TransposeWHProgramFactory", 8192),
        ("MatmulMultiCoreProgramFactory", 12288), ("UnaryDeviceOperation::ProgramFactory", 8192)]


def test_transposed_operand_with_a_post_processed_bias_is_refused():
    # Measured on mock P150, ttnn 0.81.1: linear L1 [32, 128] x [256, 128]^T + [256] fails with
    # "matmul_utilities.cpp:195: dim_a == dim_b || dim_a == 1 || dim_b == 1 ... Broadcast error".
    an, op = _op(_module(([32, 128], L1), ([256, 128], L1), ([32, 256], L1), bias=([256], L1),
                         op="ttnn.linear", transpose=(False, True)))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert verdict.status == "rejected" and "dim_a == dim_b" in verdict.reason
    assert verdict.unsure == ""  # bf16 operands, no activation: every such measured draw was refused


def test_unsure_refusal_is_a_warning():
    # The refusal is measured, its code path unread, and a held-out draw with block-float operands and an activation
    # ran (g1/ttnn.linear/100152): with a bfp_bf8 operand the refusal is unsure, and TTA013 reports it as a warning.
    from ttanalyze.rules import run

    b8 = {"dt": "bfp_bf8", "buf": "l1"}
    an, op = _op(_module(([32, 128], b8), ([256, 128], L1), ([32, 256], L1), bias=([256], L1),
                         op="ttnn.linear", transpose=(False, True)))
    assert "g1/ttnn.linear/100152" in program_of(an, op, arch=MOCK, free_l1=BANK).unsure
    found = [f for f in run(an) if f.rule == "TTA013"]
    assert [f.severity for f in found] == ["warning"]
    assert "unsure: this refusal is measured" in found[0].message and found[0].data["unsure"]


def test_transposed_operand_with_a_post_processed_bias_runs_when_the_shapes_agree():
    # Measured (opdiff g1/ttnn.linear/173): [5, 7, 7]^T @ [5, 7, 2] + [1, 2], bfp8 in DRAM, bf16 L1 output: ttnn
    # shapes the result from the untransposed operands, [5, 7, 2], the product's own shape: it runs the transpose,
    # the multi-core matmul and the add.  Measured (g1/ttnn.linear/106): [5, 4]^T @ [5, 8] + [1, 8] would be shaped
    # [5, 8] instead of [4, 8]: refused (reshape.cpp:736).
    b8 = {"dt": "bfp_bf8"}
    an, op = _op(_module(([5, 7, 7], b8), ([5, 7, 2], b8), ([5, 7, 2], L1), bias=([1, 2], b8), op="ttnn.linear",
                         transpose=(True, False)))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert [p.factory for p in verdict.stages] == [
        "TransposeWHProgramFactory", "MatmulMultiCoreProgramFactory", "BinaryNgDeviceOperation::ProgramFactory"]
    an, op = _op(_module(([5, 4], {"dt": "f32"}), ([5, 8], L1), ([4, 8], L1), bias=([1, 8], DRAM), op="ttnn.linear",
                         transpose=(True, False), attrs=FP32))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert verdict.status == "rejected" and "5x8 instead of 4x8" in verdict.reason
    # Measured (g1/ttnn.linear/287): [1024, 5248]^T @ [1024, 832] + [1, 832] runs and comes back [1024, 832], the
    # untransposed operands' product: fewer tiles than the [5248, 832] buffer.
    text = _module(([1024, 5248], b8), ([1024, 832], {"dt": "bfp_bf8", "buf": "l1"}), ([5248, 832], b8),
                   bias=([1, 832], b8), op="ttnn.linear", transpose=(True, False))
    an, op = _op(text)
    assert program_of(an, op, arch=MOCK, free_l1=BANK).status == "modeled"
    ctx = context_for(an, op, arch=MOCK, free_l1=BANK)
    assert spec_model("ttnn.linear")(ctx)[0].shape == (1024, 832)
    # Measured (g1/ttnn.linear/484): [341, 450]^T @ [341, 159] + bias would come back [341, 159], not tile-aligned and
    # of another volume than [450, 159]: refused (reshape.cpp:736).
    an, op = _op(_module(([341, 450], b8), ([341, 159], L1), ([450, 159], DRAM), bias=([159], L1), op="ttnn.linear",
                         transpose=(True, False)))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert verdict.status == "rejected" and "341x159 instead of 450x159" in verdict.reason


def _refusal(text: str) -> str:
    an, op = _op(text)
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert verdict.status == "rejected", verdict.status
    return verdict.reason


LOFI = ", compute_config = #ttnn.device_compute_kernel_config<math_fidelity = lofi, fp32_dest_acc_en = false>"


def test_validation_of_a_transposed_sharded_a():
    # ttnn validates a sharded a's own (untransposed) shard against the transposed product; measured refusals
    # (opdiff g1/ttnn.matmul/104, g1/ttnn.linear/71, g1/ttnn.matmul/218, g1/ttnn.linear/52), same messages.
    # [128, 1472]^T WIDTH_SHARDED on 23 cores, shards [128, 64]: 1D mcast_in0 with per_core_M = Mt = 46, but the
    # shard is 4 tiles high.
    a = ([128, 1472], {"dt": "bfp_bf8", "buf": "l1", "ml": "width_sharded",
                       "shard": ([(0, 0, 10, 1), (0, 2, 0, 2)], (128, 64))})
    reason = _refusal(_module(a, ([128, 480], DRAM), ([1472, 480], {"dt": "bfp_bf8"}), attrs=LOFI,
                              transpose=(True, False)))
    assert "per_core_M (46) must equal shard_shape[0] (128) / in0_tile height (32)" in reason
    # [1152, 928]^T HEIGHT_SHARDED on 18 cores, shards [64, 928]: 1D mcast_in1, K = 36 tiles but the shard is 29 wide.
    a = ([1152, 928], {"dt": "f32", "buf": "l1", "ml": "height_sharded",
                       "shard": ([(0, 0, 10, 0), (0, 1, 6, 1)], (64, 928))})
    reason = _refusal(_module(a, ([1152, 736], {"dt": "f32"}), ([928, 736], {"dt": "f32"}), op="ttnn.linear",
                              transpose=(True, False)))
    assert "K (36) must equal shard_shape[1] (928) / in0_tile width (32)" in reason
    # [1, 2, 32, 63]^T BLOCK_SHARDED on a 1x2 column: 2D mcast with fuse_batch, batch 2 of 2 M tiles each.
    a = ([1, 2, 32, 63], {"dt": "f32", "buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 0, 1)], (32, 64))})
    reason = _refusal(_module(a, ([32, 1025], DRAM), ([1, 2, 63, 1025], {"dt": "f32"}), transpose=(True, False)))
    assert "transpose_a with fuse_batch is not supported" in reason and "M_per_batch=2" in reason
    # [654, 11]^T HEIGHT_SHARDED on 11 cores, shards [64, 32]: 1D mcast_in1 with per_core_M 2 (the shard height) for
    # an M of one tile.
    a = ([654, 11], {"buf": "l1", "ml": "height_sharded", "shard": ([(0, 0, 10, 0)], (64, 32))})
    reason = _refusal(_module(a, ([87, 654], DRAM), ([11, 87], DRAM), op="ttnn.linear", transpose=(True, True)))
    assert "per_core_M (2) exceeds Mt (1)" in reason


def test_reuse_output_blocks_must_divide_over_the_shard_cores():
    # Measured (opdiff g1/ttnn.linear/26, matmul_device_operation.cpp:1022): a [3, 4, 19, 104] bfp8 BLOCK_SHARDED on
    # 2x3 cores (shards [128, 64]) @ a batched b [3, 4, 104, 478]: MatmulMultiCoreReuseProgramConfig, per_core_M 4
    # (shard height), per_core_N 15 -> (12 * 1 / 4) * (15 / 15) = 3 output blocks for 6 shard cores.
    b8 = {"dt": "bfp_bf8"}
    a = ([3, 4, 19, 104], {"dt": "bfp_bf8", "buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 1, 2)], (128, 64))})
    reason = _refusal(_module(a, ([3, 4, 104, 478], b8), ([3, 4, 19, 478], L1), bias=([478], b8), op="ttnn.linear"))
    assert "num_output_blocks (3) must be evenly divisible by the number of cores in the input shard grid (6)" in reason


def test_reuse_config_larger_than_l1():
    # NOTES §4e: [1024, 1024] @ [1024, 256] forced onto core (0,0): per_core 32x8, in0_block_w 8.  in0 32*8*2 = 512
    # tiles = 1048576, in1 8*8*2 = 128 tiles = 262144, output 32*8 = 256 tiles = 524288 (shared) -> 1835008 B on core
    # (0,0); base 111744 + 1835008 = 1946752 > l1_size 1572864: measured, ttnn refuses ("grow to 1946752 B").
    prog = _program(_module(([1024, 1024], DRAM), ([1024, 256], DRAM), ([1024, 256], DRAM),
                            attrs=_pcreuse((1, 1), 8, 1, 1, 32, 8)))
    assert prog.busiest_core() == ((0, 0), 1835008)
    assert MOCK.l1_unreserved_base + prog.per_core_bytes() == 1946752 > MOCK.l1_size


def test_dram_sharded():
    # a [32, 1024] WIDTH_SHARDED on 8 cores (row 0), b [1024, 1024] DRAM WIDTH_SHARDED on 8 banks; per_core_N 32/8 = 4.
    # in0 1*4, doubled (8 blocks) = 8 tiles = 16384; in1 4*4 tripled = 48 tiles = 98304; output 4 tiles 8192.  Cores:
    # the bounding box of a's cores and the P150's DRAM reader cores (x 0 and 6, y 0..9) = [0..7, 0..9] (measured).
    r8 = [(0, 0, 7, 0)]
    a = ([32, 1024], {"buf": "l1", "ml": "width_sharded", "shard": (r8, (32, 128))})
    b = ([1024, 1024], {"ml": "width_sharded", "shard": (r8, (1024, 128))})
    out = ([32, 1024], {"buf": "l1", "ml": "width_sharded", "shard": (r8, (32, 128))})
    attrs = (", matmul_program_config = #ttnn.matmul_multi_core_reuse_multi_cast_dram_sharded_program_config<"
             "in0_block_w = 4, per_core_m = 1, per_core_n = 4>")
    prog = _program(_module(a, b, out, attrs=attrs))
    assert prog.factory == "MatmulMultiCoreReuseMultiCastDRAMShardedProgramFactory"
    box = ((0, 0, 7, 9),)
    assert [c for c in _cbs(prog) if not c[1]] == _expect((16384, False, box), (98304, False, box), (8192, False, box))


# ---------------------------------------------------------------------------
# Automatic configs (no program config in the IR)
# ---------------------------------------------------------------------------


def test_default_all_dram_is_2d_over_the_grid():
    # [1024, 1024]^2 all DRAM interleaved: 2D over 11x10, per_core ceil(32/10) x ceil(32/11) = 4x3, in0_block_w 1
    # (32 % 11 != 0).  in0 4*1*2 = 8 tiles = 16384, in1 3*1*2 = 12288, output 12 tiles 24576 -> 53248; 8 x 11 cores.
    prog = _program(_module(([1024, 1024], DRAM), ([1024, 1024], DRAM), ([1024, 1024], DRAM)))
    assert prog.factory == "MatmulMultiCoreReuseMcast2DProgramFactory"
    assert prog.per_core_bytes() == 53248
    assert prog.cores.num_cores == 11 * 8


@pytest.mark.parametrize("free,cores,peak", [
    # NOTES §4e, measured: [1024, 1024]^2 with L1 inputs, DRAM output; free L1 = lowest L1 address - base.
    # Empty L1: a, b take 2 * 20480 B/bank -> free 1420160: 16x16-tile blocks (estimate 1310720 < free) on 2x2 cores:
    # in0 16*2*2 = 131072, in1 131072, output 256 tiles 524288.
    (1420160, 4, 786432),
    # 10 more [1024, 1024] L1 tensors: free 1215360 < 1310720 -> 8x8 blocks on 4x4: 65536 + 65536 + 131072.
    (1215360, 16, 262144),
    # 60: free 191360 -> 4x4 blocks on 8x8: 3 * 32768.
    (191360, 64, 98304),
    # 68: free 27520 -> 1x1 blocks, 1024 > 110 blocks: plain multi-core factory, 2+2+2 tiles = 12288 on 110 cores.
    (27520, 110, 12288),
])
def test_default_depends_on_free_l1(free, cores, peak):
    prog = _program(_module(([1024, 1024], L1), ([1024, 1024], L1), ([1024, 1024], DRAM)), free=free)
    assert (prog.cores.num_cores, prog.per_core_bytes()) == (cores, peak)


def test_default_wide_and_tall_take_1d():
    # [64, 1024] @ [1024, 4096] all DRAM: width/height 64 > 8 -> narrow and wide: 1D mcast_in0 over 11x10,
    # per_core_N ceil(ceil(4096/110)/32) = 2, in0_block_w 2: in0 2*2*2 = 16384, in1 2*2*2 = 16384, output 4 tiles
    # 8192 -> 40960 (measured).  The tall mirror [4096, 1024] @ [1024, 64] mcasts in1, also 40960 (measured).
    wide = program_config(context_for(*_op(_module(([64, 1024], DRAM), ([1024, 4096], DRAM), ([64, 4096], DRAM))),
                                      MOCK, BANK))
    assert (wide.kind, wide.mcast_in0, wide.per_core_m, wide.per_core_n, wide.in0_block_w) == ("mcast_1d", True, 2, 2, 2)
    tall = _program(_module(([4096, 1024], DRAM), ([1024, 64], DRAM), ([4096, 64], DRAM)))
    assert tall.factory == "MatmulMultiCoreReuseMcast1DProgramFactory" and tall.per_core_bytes() == 40960


def test_default_fp32_inputs():
    # f32 [512, 512]^2: the default compute config accumulates in f32 (fp32_dest_acc_en for an f32 output, no packer
    # L1 acc) -> intermediate shares the f32 output.  2D, per_core ceil(16/10) x ceil(16/11) = 2x2, in0_block_w 1:
    # in0 2*1*2 * 4096 = 16384, in1 16384, output 4 * 4096 = 16384 -> 49152 (measured).
    prog = _program(_module(([512, 512], {"dt": "f32"}), ([512, 512], {"dt": "f32"}), ([512, 512], {"dt": "f32"})))
    assert prog.per_core_bytes() == 49152


def test_default_sharded_a():
    # a [1024, 64] HEIGHT_SHARDED on 32 cores, b [64, 128] DRAM: 1D mcast_in1 over a's 8x4 shard grid, per_core_M =
    # shard height 1, per_core_N = Nt 4, in0_block_w = Kt 2: a's shard is c_0 (2 tiles, its buffer); in1 4*2 = 8 tiles
    # 16384 (one K block); output 4 tiles 8192 -> 24576 (measured).
    a = ([1024, 64], {"buf": "l1", "ml": "height_sharded", "shard": ([(0, 0, 7, 3)], (32, 64))})
    prog = _program(_module(a, ([64, 128], DRAM), ([1024, 128], DRAM)))
    assert prog.factory == "MatmulMultiCoreReuseMcast1DProgramFactory"
    assert prog.per_core_bytes() == 24576
    assert [(cb.index, cb.bytes) for cb in prog.cbs if cb.globally_allocated] == [(0, 4096)]


# ---------------------------------------------------------------------------
# Output specs and refusals
# ---------------------------------------------------------------------------


def test_output_spec_block_sharded_on_one_row_becomes_width_sharded():
    # [64, 512] @ [512, 256] into BLOCK_SHARDED on 8 cores of one row: ttnn runs 1D mcast_in0 with the user's shard
    # and returns WIDTH_SHARDED, shard [64, 32] (measured).
    out = ([64, 256], {"buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 7, 0)], (64, 32))})
    an, op = _op(_module(([64, 512], DRAM), ([512, 256], DRAM), out))
    spec = spec_model(op.name)(context_for(an, op, MOCK, BANK))[0]
    assert (spec.memory_layout, spec.shard_shape, spec.layout) == ("width_sharded", (64, 32), "tile")


def test_output_spec_shard_from_the_config():
    # [256, 512] @ [512, 384] into BLOCK_SHARDED 4x4 [64, 96]: the automatic 2D config is one 8x12-tile block, so
    # ttnn returns one [256, 384] shard (measured; the IR's 4x4 grid is dropped).
    out = ([256, 384], {"buf": "l1", "ml": "block_sharded", "shard": ([(0, 0, 3, 3)], (64, 96))})
    an, op = _op(_module(A256, B384, out))
    assert spec_model(op.name)(context_for(an, op, MOCK, BANK))[0].shard_shape == (256, 384)
    prog = _program(_module(A256, B384, out))
    # in0 8*2*2 = 32 tiles = 65536, in1 12*2*2 = 48 tiles = 98304 on core (0,0); the output shard is its buffer.
    assert prog.per_core_bytes() == 65536 + 98304


def test_ttnn_output_shape_batch_rule():
    assert ttnn_output_shape((1, 1, 64, 64), (2, 3, 64, 96), False, False) == (2, 3, 64, 96)  # measured
    assert ttnn_output_shape((64, 64), (1, 1, 64, 96), False, False) == (1, 1, 64, 96)  # measured
    assert ttnn_output_shape((64, 256), (256,), False, False) == (64,)
    assert ttnn_output_shape((256,), (256, 512), False, False) == (512,)


def test_batch_mismatch_is_refused():
    # [2, 64, 64] @ [3, 64, 96]: ttnn refuses ("bmm (non-bcast matmul) expects ... BCMK*BCKN=BCMN", measured).
    an, op = _op(_module(([2, 64, 64], DRAM), ([3, 64, 96], DRAM), ([3, 64, 96], DRAM)))
    verdict = program_of(an, op, arch=MOCK, free_l1=BANK)
    assert verdict.status == "rejected" and "batch dims" in verdict.reason
