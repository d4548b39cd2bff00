"""Programs, output specs and the topk shape rule of ttnn.argmax / ttnn.topk (ttanalyze.ops.argmax_topk).

Expected numbers are derived by hand from the factory formulas (derivation in each comment; tiles: bf16
2,048 B, f32 / uint32 4,096 B, uint16 2,048 B, bfloat8_b 1,088 B); argmax and topk are measured on mock
P150, ttnn 0.81.1 (tt-metal d80d9482), NO_DISPATCH graph captures, by the op-level campaign
(measurements/opdiff/results.jsonl.gz, benchmarks/opdiff.py).  Pure-model tests need no ttnn;
the device tests at the end replay IR ops on the executor and skip when it is absent.
"""

from __future__ import annotations


import pytest

from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops.argmax_topk import find_topk_core_config
from ttanalyze.ops.registry import lookup, spec_model
from ttanalyze.ops.work_split import merge as merged
from ttanalyze.programs import context_for, program_of

from .conftest import BH_SYSTEM_DESC, FIXTURES, analyze_path, device, findings_of

FULL = MOCK.usable_l1  # 1,461,120: the empty mock's free L1 (l1_size 1,572,864 - allocator base 111,744)
R = lambda x0, y0, x1, y1: (x0, y0, x1, y1)  # noqa: E731


def T(shape, dtype="bf16", layout="tile", buffer="dram"):
    return TensorDesc(tuple(shape), dtype, layout, buffer, "interleaved", (10, 11) if buffer == "l1" else (1, 1))


def module(op, operands, results, attrs):
    return analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, results, attrs)), "t.mlir"))


def argmax(x, out, dim=None, keep=False, free_l1=FULL):
    attrs = ([f"dim = {dim} : si32"] if dim is not None else []) + [f"keep_dim = {'true' if keep else 'false'}"]
    a = module("ttnn.argmax", [x], [out], ", ".join(attrs))
    return a, program_of(a, a.program.ops[0], arch=MOCK, free_l1=free_l1)


def topk(x, k, dim=-1, largest=True, outs=None, free_l1=FULL):
    shape = list(x.shape)
    shape[dim] = k
    outs = outs or [T(shape, x.dtype), T(shape, "u16")]
    attrs = f"k = {k} : i32, dim = {dim} : si32, largest = {'true' if largest else 'false'}, sorted = true"
    a = module("ttnn.topk", [x], outs, attrs)
    return a, program_of(a, a.program.ops[0], arch=MOCK, free_l1=free_l1)


def cbs(stage):
    """Every CB of a program in creation order: (bytes, core ranges as (x0, y0, x1, y1))."""
    return [(c.bytes, [R(r.start.x, r.start.y, r.end.x, r.end.y) for r in c.cores.ranges]) for c in stage.cbs]


def factories(p):
    return [s.factory.split("::")[-1] for s in p.stages]


def spec(a):
    op = a.program.ops[0]
    return spec_model(op.name)(context_for(a, op, arch=MOCK, free_l1=FULL))


# ---------------------------------------------------------------------------
# The real fixtures: the compiler + runtime refusals (tt-metal 614f605f, base 177,280), reproduced
# ---------------------------------------------------------------------------

CASES = {
    # fixture: (first overflowing core range, region end) from case.json error_parsed, or None (it ran)
    "cb_overflow_argmax_87224x64_o0": ((0, 0, 0, 1), 1_572_992),
    "cb_overflow_argmax_7136x4096_o0": ((0, 0, 10, 1), 1_576_192),
    "cb_overflow_topk_k3584_o0": ((0, 0, 3, 0), 1_578_112),
    "cb_fits_argmax_87216x64_o0": None,
    "cb_fits_argmax_7104x4096_o0": None,
    "cb_fits_topk_k3552_o0": None,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_first_overflow(name):
    # With the module's own system_desc (base 177,280, 64 KiB L1_SMALL, nothing live in L1):
    # argmax 87224: src 64 (doubled it would need 128 + 348,928 + 697,792 + 348,928 = 1,395,776 > 1,395,584 free),
    #   dst 348,896 at 177,344, red_idxs 697,792 at 526,272 (64-B aligned), red_vals 348,928 -> 1,572,992;
    # argmax 7136: 32 cores in 22 + 10, src 256 (doubled 1,399,168 > 1,395,584), 28,544 + 913,408 + 456,704
    #   -> 177,536 + ... = 1,576,192 on the first range {[0-0 - 10-1]};
    # topk 3584: Kt 112, 2 x 4,096 + 2 x 8,192 + 2 x 458,752 + 2 x 229,376 = 1,400,832 -> 1,578,112;
    # 87216 needs exactly 1,395,584 doubled: src 128, region end 1,572,864 = l1_size (fits); 7104: 1,570,176;
    # k 3552: 1,565,824.
    a = analyze_path(FIXTURES / "real" / name / "ttnn.mlir")
    op = next(o for o in a.program.ops if o.name in ("ttnn.argmax", "ttnn.topk"))
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    first = [s.first_overflow(a.arch.l1_unreserved_base, a.arch.l1_size, a.arch.dram_alignment) for s in prog.stages]
    first = next((f for f in first if f is not None), None)
    want = CASES[name]
    if want is None:
        assert first is None
    else:
        rng, end = first
        assert (rng.start.x, rng.start.y, rng.end.x, rng.end.y) == want[0] and end == want[1]


@pytest.mark.parametrize("name, peak", [
    # per-core DFB peaks measured on mock P150, ttnn 0.81.1 (base 111,744: every source DFB doubled)
    ("cb_overflow_argmax_87224x64_o0", 1_395_744), ("cb_fits_argmax_87216x64_o0", 1_395_584),
    ("cb_overflow_argmax_7136x4096_o0", 1_399_168), ("cb_fits_argmax_7104x4096_o0", 1_392_896),
    ("cb_overflow_topk_k3584_o0", 1_400_832), ("cb_fits_topk_k3552_o0", 1_388_544),
])
def test_fixture_peaks_on_ttnn_0_81_1(name, peak):
    a = analyze_path(FIXTURES / "real" / name / "ttnn.mlir")
    op = next(o for o in a.program.ops if o.name in ("ttnn.argmax", "ttnn.topk"))
    assert program_of(a, op, arch=MOCK, free_l1=FULL).program.per_core_bytes() == peak


# ---------------------------------------------------------------------------
# argmax: multi-core factory (row-major, last dim or every element)
# ---------------------------------------------------------------------------


def test_argmax_multicore_sqrt_cap_two_ranges():
    # [7136, 4096] bf16 DRAM dim 1 ("am_rm_7136x4096"): 128 blocks of 32; ceil(sqrt(4096) / 2) = 32 cores ->
    # {[0-0 - 10-1]} + {[0-2 - 9-2]}, 4 blocks each = 128 elements -> src 256, doubled: 512 on each range;
    # dst round32(7136 x 4) = 28,544, red_idxs x 32 cores = 913,408, red_vals round32(7136 x 2) x 32 = 456,704.
    _, p = argmax(T([7136, 4096], layout="row_major"), T([7136], "u32", "row_major"), dim=1)
    both = [R(0, 0, 10, 1), R(0, 2, 9, 2)]
    assert cbs(p.program) == [(512, [R(0, 0, 10, 1)]), (512, [R(0, 2, 9, 2)]), (28544, both), (913408, both),
                              (456704, both)]


def test_argmax_secondary_dm_follows_free_l1():
    # [87216, 64]: doubled buffers need 128 + 348,864 + 697,728 + 348,864 = 1,395,584 B; with 1,395,584 B free the
    # source is doubled (128), with 2,048 B less it is not (64) ("s_am_87216_fill32" / "_fill33": 32 / 33 filler
    # tiles of 2,048 B per bank).
    x, out = T([87216, 64], layout="row_major"), T([87216], "u32", "row_major")
    assert cbs(argmax(x, out, dim=1, free_l1=FULL - 32 * 2048)[1].program)[0] == (128, [R(0, 0, 0, 1)])
    assert cbs(argmax(x, out, dim=1, free_l1=FULL - 33 * 2048)[1].program)[0] == (64, [R(0, 0, 0, 1)])


def test_argmax_every_element_splits_column_major():
    # [1, 1048576] dim=None ("s_am_none_1x1048576"): no sqrt cap (one output row); 32,768 blocks on 110 cores,
    # column by column: 98 cores of 298 blocks (19,072 B) and 12 of 297 (19,008 B), as CoreRangeSet::merge
    # writes them; dst 32, red_idxs / red_vals 32 x 110 = 3,520.
    _, p = argmax(T([1, 1048576], layout="row_major"), T([], "u32", "row_major"))
    grid = [R(0, 0, 10, 9)]
    assert cbs(p.program) == [(19072, [R(0, 0, 9, 7), R(0, 8, 8, 9)]), (19008, [R(9, 8, 10, 9), R(10, 0, 10, 7)]),
                              (32, grid), (3520, grid), (3520, grid)]


def test_argmax_l1_input_uses_l1_alignment():
    # [64, 300] bf16 in L1 ("a_l1_64x300"): 16-B alignment -> 8 elements per block, 38 blocks; ceil(sqrt(300)/2) = 9
    # -> 16 cores {[0-0 - 10-0]} + {[0-1 - 4-1]}, 3 blocks = 24 elements -> round32(48) = 64, doubled 128;
    # dst round32(256) = 256, red_idxs 256 x 16 = 4,096, red_vals round32(128) x 16 = 2,048.
    _, p = argmax(T([64, 300], layout="row_major", buffer="l1"), T([64], "u32", "row_major", "l1"), dim=1)
    assert [b for b, _ in cbs(p.program)] == [128, 128, 256, 4096, 2048]


@pytest.mark.parametrize("dtype, sizes", [
    # [64, 300] DRAM over W: 10 blocks of 32 -> 10 cores column-major (the cap, 16, is not below 10); src
    # round32(32 x element), doubled; red_vals round32(64 x element) x 10 ("a_f32_64x300", "a_u16_64x300")
    ("f32", [256, 256, 2560, 2560]), ("u16", [128, 256, 2560, 1280]), ("si32", [256, 256, 2560, 2560]),
])
def test_argmax_multicore_dtypes(dtype, sizes):
    _, p = argmax(T([64, 300], dtype, "row_major"), T([64], "u32", "row_major"), dim=1)
    assert [b for b, _ in cbs(p.program)] == sizes and p.program.cores.num_cores == 10


def test_argmax_one_output_row_is_not_doubled():
    # [4, 8, 300] keep_dim ("a_rank3_4x8x300_keep"): one output row per page -> no secondary DM: src 64;
    # dst round32(4) = 32, red_idxs / red_vals 32 x 10 cores = 320.
    _, p = argmax(T([4, 8, 300], layout="row_major"), T([4, 8, 1], "u32", "row_major"), dim=2, keep=True)
    assert [b for b, _ in cbs(p.program)] == [64, 32, 320, 320]


# ---------------------------------------------------------------------------
# argmax: single-core TILE factory, row-major H through TILE, the NC device operation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dim, scratch, out", [(1, 256, [64]), (0, 512, [128])])
def test_argmax_tile_single_core(dim, scratch, out):
    # [64, 128] TILE: one 2,048-B input tile on core (0,0) and a scratchpad of one row-major output page, 4 B per
    # output element (64 over W, 128 over H) ("am_tile_64x128_w" / "_h").
    _, p = argmax(T([64, 128]), T(out, "u32", "row_major"), dim=dim)
    assert factories(p) == ["ArgMaxSingleCoreProgramFactory"]
    assert cbs(p.program) == [(2048, [R(0, 0, 0, 0)])] and p.program.extra_l1_per_core == scratch


def test_argmax_row_major_height_goes_through_tile():
    # [64, 100] f32 row-major over H ("a_rm_h_f32"): to_layout(TILE) (tilize_with_val_padding), then the
    # single-core factory: one f32 tile (4,096 B) and 100 x 4 = 400 B of scratch.
    _, p = argmax(T([64, 100], "f32", "row_major"), T([100], "u32", "row_major"), dim=0)
    assert factories(p) == ["TilizeWithValPaddingMultiCoreDefaultFactory", "ArgMaxSingleCoreProgramFactory"]
    assert cbs(p.stages[1]) == [(4096, [R(0, 0, 0, 0)])] and p.stages[1].extra_l1_per_core == 400


def test_argmax_nc_path():
    # [2, 3, 64, 128] TILE over dim 1 ("am_tile_nc"): output [2, 1, 64, 128] = 16 tiles, row by row on
    # {[0-0 - 10-0], [0-1 - 4-1]}: c_0 2 bf16 tiles, c_16 2 uint32 tiles; then untilize of the uint32 result
    # (16,384 B x 2 on 4 cores) and a view reshape dropping dim 1.
    _, p = argmax(T([2, 3, 64, 128]), T([2, 64, 128], "u32", "row_major"), dim=1)
    assert factories(p) == ["DirectDescriptorFactory", "UntilizeMultiCoreProgramFactory"]
    rng = [R(0, 0, 10, 0), R(0, 1, 4, 1)]
    assert cbs(p.stages[0]) == [(4096, rng), (8192, rng)]
    assert cbs(p.stages[1]) == [(16384, [R(0, 0, 3, 0)])] * 2


def test_argmax_nc_path_row_major_input_is_tilized_first():
    # [2, 3, 64, 128] row-major over dim 0 ("am_rm_nc"): tilize, NC on the 24 output tiles, untilize.
    _, p = argmax(T([2, 3, 64, 128], layout="row_major"), T([3, 64, 128], "u32", "row_major"), dim=0)
    assert factories(p) == ["TilizeMultiCoreDefaultProgramFactory", "DirectDescriptorFactory",
                            "UntilizeMultiCoreProgramFactory"]
    assert p.stages[1].cores.num_cores == 24


@pytest.mark.parametrize("x, dim, text", [
    (T([64, 128]), None, "dim parameter must be specified"),  # "a_tile_none"
    (T([64, 128], "si32"), 1, "only BFLOAT16 and FLOAT32"),  # "a_tile_si32"
    (T([64, 128], "si32", "row_major"), 0, "only argmax on the last dim"),  # "a_rm_si32_h"
    (T([2, 64, 128], "si32", "row_major"), 0, "only argmax on the last dim"),  # "a_rm_si32_nc"
    (T([64, 300], "u8", "row_major"), 1, "UINT16 are supported"),  # "a_u8_64x300"
])
def test_argmax_rejections(x, dim, text):
    a = module("ttnn.argmax", [x], [T([1], "u32", "row_major")],
               ", ".join(([f"dim = {dim} : si32"] if dim is not None else []) + ["keep_dim = false"]))
    p = program_of(a, a.program.ops[0], arch=MOCK, free_l1=FULL)
    assert p.status == "rejected" and text in p.reason


@pytest.mark.parametrize("shape, dim, keep, out", [
    # measured outputs ("a_rank1_300", "a_rank3_none", "a_tile_h_keep", "am_rm_87224x64"): uint32, row-major;
    # a rank-0 result's padded shape is [1] (g1/ttnn.argmax/10 of the op-level campaign)
    ([300], 0, False, ()), ([4, 8, 300], None, False, ()), ([3, 64, 128], 1, True, (3, 1, 128)),
    ([87224, 64], 1, False, (87224,)),
])
def test_argmax_output_spec(shape, dim, keep, out):
    layout = "tile" if keep else "row_major"
    a, _ = argmax(T(shape, layout=layout), T(list(out), "u32", "row_major"), dim=dim, keep=keep)
    (s,) = spec(a)
    assert (s.shape, s.padded_shape, s.layout, s.dtype, s.buffer_type, s.memory_layout) == (
        out, out or (1,), "row_major", "u32", "dram", "interleaved")


# ---------------------------------------------------------------------------
# topk: the shape rule
# ---------------------------------------------------------------------------


def test_topk_shape_rule():
    a, _ = topk(T([2, 300, 64]), 10, dim=1)
    assert lookup("ttnn.topk").infer(a.program.ops[0]) == [(2, 10, 64), (2, 10, 64)]


@pytest.mark.parametrize("k, dim", [(65, -1), (0, -1), (8, 3), (8, -4)])
def test_topk_shape_rule_rejects(k, dim):
    # TopKOp::verify: dim in [-3, 3), 1 <= k <= shape[dim] (64 here)
    from ttanalyze.ops.registry import ShapeError
    text = module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.topk", [T([2, 300, 64])], [T([2, 300, 8]), T([2, 300, 8], "u16")],
        f"k = {k} : i32, dim = {dim} : si32, largest = true, sorted = true"))
    op = parse_text(text, "t.mlir").ops[0]
    with pytest.raises(ShapeError):
        lookup("ttnn.topk").infer(op)


# ---------------------------------------------------------------------------
# topk: single-core factory
# ---------------------------------------------------------------------------


def test_topk_single_core_uint32_indices():
    # [32, 100000] k 8 smallest-first ("tk_w100000_k8_smallest"): width above 65,536 -> uint32 indices; k rounds
    # to one tile; 1 tile row -> core (0,0): input 2 x 2,048, index 2 x 4,096, transposed 4 x 2,048 and
    # 4 x 4,096, result_prep 2 x 2,048 and 2 x 4,096, output 2,048 and 4,096; then the slice of each result
    # to k 8.
    a, p = topk(T([32, 100000]), 8, largest=False, outs=[T([32, 8]), T([32, 8], "u32")])
    assert factories(p) == ["TopKSingleCoreProgramFactory", "SliceTileProgramFactory", "SliceTileProgramFactory"]
    assert [b for b, _ in cbs(p.stages[0])] == [4096, 8192, 8192, 16384, 4096, 8192, 2048, 4096]
    assert [(s.dtype, s.shape, s.padded_shape) for s in spec(a)] == [("bf16", (32, 8), (32, 32)),
                                                                       ("u32", (32, 8), (32, 32))]


@pytest.mark.parametrize("dtype, sizes", [
    # [128, 256] k 100 -> Kt 4, 4 tile rows on {[0-0 - 3-0]} ("tk_bfp8_w256_k100", "tk_f32_w256_k100_4rows"):
    # bfloat8_b keeps 1,088-B input/output tiles and bf16 intermediates, uint16 indices; f32 uses 4,096-B
    # tiles and uint32 indices everywhere.
    ("bfp_bf8", [2176, 4096, 8192, 8192, 16384, 16384, 4352, 8192]),
    ("f32", [8192, 8192, 16384, 16384, 32768, 32768, 16384, 16384]),
])
def test_topk_single_core_dtypes(dtype, sizes):
    _, p = topk(T([128, 256], dtype), 100, outs=[T([128, 100], dtype), T([128, 100], "u32" if dtype == "f32" else "u16")])
    assert [b for b, _ in cbs(p.stages[0])] == sizes and p.stages[0].cores == merged([(0, 0), (1, 0), (2, 0), (3, 0)])


def test_topk_single_core_cost_rejection():
    # verify_single_core_cost: 4 (2,048 + 2,048) + (4 + 2 Kt) 4,096 + Kt 4,096 = 32,768 + 12,288 Kt < 1,572,864:
    # k 4032 (Kt 126) is refused ("s_tk_k4032_h128"); k 4000 (Kt 125, 1,568,768) passes, then its DFBs,
    # 24,576 + 2 x 512,000 + 2 x 256,000 = 1,560,576 B, end at 111,744 + 1,560,576 = 1,672,320 ("s_tk_k4000_h128").
    _, p = topk(T([128, 4096]), 4032)
    assert p.status == "rejected" and "Not enough cores or cache size" in p.reason
    _, p = topk(T([128, 4096]), 4000)
    rng, end = p.stages[0].first_overflow(MOCK.l1_unreserved_base, MOCK.l1_size, 64)
    assert (rng.start.x, rng.start.y, rng.end.x, rng.end.y, end) == (0, 0, 3, 0, 1_672_320)


# ---------------------------------------------------------------------------
# topk: multi-core factory
# ---------------------------------------------------------------------------


def test_topk_core_config_minimizes_the_makespan():
    # W 8192, k 32, bf16 / uint16 on the 11x10 grid: local cores fit 10 x 8 (lp2 = 64), splits from 128:
    # 64 cores (score 7 x 4 + 2 x 64 = 156), 32 cores of 256 (7 x 8 + 2 x 32 = 120), 16 (144): 32 cores as 8 x 4.
    cfg = find_topk_core_config(8192, 32, (11, 10), 1_572_864, 2048, 2048)
    assert (cfg.num_cores, cfg.split, cfg.final_input, cfg.x, cfg.y) == (32, 256, 1024, 8, 4)
    assert find_topk_core_config(8192, 32, (11, 10), 1_572_864, 2048, 2048, first_valid_only=True).num_cores == 64


def test_topk_multi_core():
    # [32, 8192] k 32 ("tk_k32_w8192"): 32 local cores {[0-0 - 7-3]}, final core (0,4) (column-major index 4):
    # c_0 / c_1 4 tiles, c_4 / c_5 32 tiles, c_9 2 tiles on all; c_2 / c_3 8 tiles, c_8 2 tiles on the local
    # cores; c_8 2 tiles, c_6 / c_7 32 tiles on the final core.
    _, p = topk(T([32, 8192]), 32)
    allc, local, final = [R(0, 0, 7, 3), R(0, 4, 0, 4)], [R(0, 0, 7, 3)], [R(0, 4, 0, 4)]
    assert cbs(p.program) == [(8192, allc), (8192, allc), (65536, allc), (65536, allc), (4096, allc),
                              (16384, local), (16384, local), (4096, local), (4096, final), (65536, final),
                              (65536, final)]


def test_topk_multi_core_packed_keys_for_padded_width():
    # [32, 1000] k 32 ("mc_32x1000_k32"): FillPad, then 8 local cores {[0-0 - 7-0]} of 128 and the final core
    # (0,1); the logical width is not a tile multiple, so ttnn 0.81.1 sorts packed keys: c_4 8 f32 tiles on all,
    # c_5 1 bf16 and c_9 2 uint16 tiles on the final core, c_2 4 f32 tiles and c_8 2 f32 tiles on the local
    # cores, no c_3; c_8 2 bf16, c_6 8 f32 and c_7 1 uint16 tile on the final core.
    _, p = topk(T([32, 1000]), 32)
    assert factories(p) == ["FillPadProgramFactory", "TopKMultiCoreProgramFactory"]
    allc, local, final = [R(0, 0, 7, 0), R(0, 1, 0, 1)], [R(0, 0, 7, 0)], [R(0, 1, 0, 1)]
    assert cbs(p.stages[1]) == [(8192, allc), (8192, allc), (32768, allc), (2048, final), (4096, final),
                                (16384, local), (8192, local), (4096, final), (32768, final), (2048, final)]


@pytest.mark.parametrize("shape, cores", [
    # 1 tile row: 512 wide runs on one core, 1,024 wide on 8 + 1 ("mc_32x512_k32", "mc_32x1024_k32");
    # 6 tile rows below 8,192 wide: row-parallel single core ("h_3x40x1024_k32")
    ([32, 512], None), ([32, 1024], 9), ([3, 40, 1024], None),
])
def test_topk_multi_core_width_gate(shape, cores):
    out = shape[:-1] + [32]
    _, p = topk(T(shape), 32, outs=[T(out), T(out, "u16")])
    last = [s for s in p.stages if "TopK" in s.factory][0]
    if cores is None:
        assert last.factory.endswith("TopKSingleCoreProgramFactory")
    else:
        assert last.factory.endswith("TopKMultiCoreProgramFactory") and last.cores.num_cores == cores


# ---------------------------------------------------------------------------
# topk: the route onto topk_large_indices
# ---------------------------------------------------------------------------


def test_topk_large_k_route():
    # [32, 8192] k 512 ("tk_k512_w8192"): route_prep (32 blocks of 8 tiles, 2 x 16,384 B on 32 cores),
    # topk_large_indices (LLK K 512: 2 bf16 tiles and 2 x 512 uint32 on all 110 cores), route_finish
    # (1 tile row x 16 k tiles x 2 = 32 units: 1,024 x 2 + 4,096 x 2 + 2,048 + 2,048 uint16).
    _, p = topk(T([32, 8192]), 512)
    assert factories(p) == ["TopkRoutePrepProgramFactory", "TopkLargeIndicesProgramFactory",
                            "TopkRouteFinishProgramFactory"]
    r32 = [R(0, 0, 10, 1), R(0, 2, 9, 2)]
    assert cbs(p.stages[0]) == [(32768, r32)] * 2
    assert cbs(p.stages[1]) == [(4096, [R(0, 0, 10, 9)])] * 2
    assert cbs(p.stages[2]) == [(1024, r32), (1024, r32), (4096, r32), (4096, r32), (2048, r32), (2048, r32)]


def test_topk_route_large_llk_k():
    # [128, 8192] k 1500 ("tk_k1500_w8192_4rows"): k rounds to 1504, LLK K 2048: 2 x 2 bf16 tiles, 2 x 2,048
    # uint32, one scratch row 1,504 x 4 = 6,016; then the slices to 1500.
    _, p = topk(T([128, 8192]), 1500)
    assert [b for b, _ in cbs(p.stages[1])] == [8192, 16384, 6016]
    assert factories(p)[3:] == ["SliceTileProgramFactory", "SliceTileProgramFactory"]


@pytest.mark.parametrize("shape, k, largest, routed", [
    # "tk_w4096_k32_1row" (4,096 wide, ineligible for multi-core without the low-row relaxation),
    # "tk_w4096_k32_1row_smallest", "tk_w65536_k32", "tk_k2100_w8192", "tk_w600000_k8", "s_tk_route_k48"
    ([32, 4096], 32, True, True), ([32, 4096], 32, False, False), ([32, 65536], 32, True, True),
    ([64, 8192], 2100, True, False), ([32, 600000], 8, True, False), ([64, 8192], 48, True, False),
])
def test_topk_route_predicate(shape, k, largest, routed):
    out = shape[:-1] + [k]
    idx = "u32" if shape[-1] > 65536 else "u16"
    _, p = topk(T(shape), k, largest=largest, outs=[T(out), T(out, idx)])
    assert (factories(p)[0] == "TopkRoutePrepProgramFactory") == routed


def test_topk_other_dim_transposes():
    # [256, 128] k 50 over dim 0 ("tk_k50_w256_dim0"): transpose to the last dim, single-core topk on k 64,
    # the slices to 50, and both results transposed back.
    _, p = topk(T([256, 128]), 50, dim=0)
    assert factories(p) == ["TransposeWHProgramFactory", "TopKSingleCoreProgramFactory", "SliceTileProgramFactory",
                            "SliceTileProgramFactory", "TransposeWHProgramFactory", "TransposeWHProgramFactory"]


@pytest.mark.parametrize("x, text", [
    (T([64, 256], layout="row_major"), "tiled format"),  # "tk_rm_input"
    (T([64, 256], "u16"), "BFLOAT16, BFLOAT8_B, or FLOAT32"),  # "tk_u16_in"
])
def test_topk_rejections(x, text):
    _, p = topk(x, 32)
    assert p.status == "rejected" and text in p.reason


# ---------------------------------------------------------------------------
# topk: output spec and TTA012
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape, dtype, index", [
    # uint16 up to a tile-padded width of 65,536, uint32 above it or for f32 ("tk_w65536_k32",
    # "tk_w65537_k32_smallest", "tk_f32_w1024_k32"); bfloat8_b values keep their dtype ("tk_bfp8_w256_k100")
    ([32, 65536], "bf16", "u16"), ([32, 65537], "bf16", "u32"), ([64, 1024], "f32", "u32"), ([128, 256], "bfp_bf8", "u16"),
])
def test_topk_output_spec(shape, dtype, index):
    a, _ = topk(T(shape, dtype), 32, outs=[T(shape[:-1] + [32], dtype), T(shape[:-1] + [32], index)])
    assert [(s.dtype, s.layout, s.shape) for s in spec(a)] == [(dtype, "tile", (*shape[:-1], 32)),
                                                                 (index, "tile", (*shape[:-1], 32))]


def test_topk_other_dim_returns_in_the_input_memory_config():
    # over another dim than the last, ttnn transposes both results back into the input's memory config, whatever
    # the result requests (measured: g1/ttnn.topk/28, 1x135x255 f32 in L1 over dim 1, DRAM results requested);
    # over the last dim the requested config holds
    a, _ = topk(T([1, 135, 255], "f32", buffer="l1"), 132, dim=1, outs=[T([1, 132, 255], "f32"), T([1, 132, 255], "u32")])
    assert [(s.buffer_type, s.dtype) for s in spec(a)] == [("l1", "f32"), ("l1", "u32")]
    fs = findings_of(a, "TTA012")
    assert len(fs) == 2 and all(f.data["differences"] == ["buffer_type"] and f.severity == "warning" for f in fs)
    a, _ = topk(T([135, 255], buffer="l1"), 32, outs=[T([135, 32]), T([135, 32], "u16")])
    assert [s.buffer_type for s in spec(a)] == ["dram", "dram"]


def test_topk_tta012_uint16_at_65536():
    # tt-mlir picks uint16 only up to a padded width of 65,535 and declares uint32 at 65,536, where ttnn
    # returns uint16 (measured "tk_w65536_k32").
    a, _ = topk(T([32, 65536]), 32, outs=[T([32, 32]), T([32, 32], "u32")])
    (f,) = findings_of(a, "TTA012")
    assert f.data["differences"] == ["dtype"] and f.data["returned"]["dtype"] == "u16"


# ---------------------------------------------------------------------------
# On the device (executor replays of IR ops; skipped without the executor)
# ---------------------------------------------------------------------------



SYNTHETIC = {
    "argmax_l1_two_ranges": lambda: argmax(T([64, 300], layout="row_major", buffer="l1"),
                                           T([64], "u32", "row_major", "l1"), dim=1)[0],
    "argmax_every_element": lambda: argmax(T([1, 1048576], layout="row_major"), T([], "u32", "row_major"))[0],
    "argmax_tile_h": lambda: argmax(T([64, 128]), T([128], "u32", "row_major"), dim=0)[0],
    "argmax_nc": lambda: argmax(T([2, 3, 64, 128]), T([2, 64, 128], "u32", "row_major"), dim=1)[0],
    "topk_multi_core": lambda: topk(T([32, 8192]), 32)[0],
    "topk_packed": lambda: topk(T([64, 2040]), 32, largest=False)[0],
    "topk_route": lambda: topk(T([32, 8192]), 512)[0],
    "topk_single_u32": lambda: topk(T([32, 100000]), 8, largest=False, outs=[T([32, 8]), T([32, 8], "u32")])[0],
}


def _compare(ex, a, op):
    r = ex.replay(op, a)
    assert r.ok, r.error
    p = program_of(a, op, arch=MOCK, free_l1=FULL)
    assert p.status == "modeled", p.reason
    for i, stage in enumerate(p.stages):
        measured = [c for c in r.cbs if c.program == i]
        assert [(c.size, c.cores) for c in measured if c.kind != "scratchpad"] == [(c.bytes, c.cores) for c in stage.cbs]
        assert max([c.size for c in measured if c.kind == "scratchpad"], default=0) == stage.extra_l1_per_core
    assert {c.program for c in r.cbs} == set(range(len(p.stages)))
    # ttnn pads a rank-0 row-major tensor to [1], and so do the analyzer's layouts and argmax's output model
    assert list(r.outputs) == spec_model(op.name)(context_for(a, op, arch=MOCK, free_l1=FULL))


@device
@pytest.mark.parametrize("name", sorted(CASES))
def test_device_fixture_programs(ex, name):
    a = analyze_path(FIXTURES / "real" / name / "ttnn.mlir")
    _compare(ex, a, next(o for o in a.program.ops if o.name in ("ttnn.argmax", "ttnn.topk")))


@device
@pytest.mark.parametrize("name", sorted(SYNTHETIC))
def test_device_synthetic_programs(ex, name):
    a = SYNTHETIC[name]()
    _compare(ex, a, a.program.ops[0])
