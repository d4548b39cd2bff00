"""Circular-buffer and output models of the data-movement ops (ttanalyze.ops.data_movement).

Expected numbers are derived by hand from the factory formulas (derivations in the comments) and
the factories are measured on mock P150, ttnn 0.81.1 (tt-metal d80d9482), NO_DISPATCH graph captures
with `ttnn.empty` inputs, by the op-level campaign (measurements/opdiff/results.jsonl.gz,
benchmarks/opdiff.py).  DFB = Metal 2.0
dataflow buffer (a CB here), "scratch" = Metal 2.0 scratchpads (ProgramModel.extra_l1_per_core).
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops import data_movement as dm
from ttanalyze.ops.cb import CBModelError, NoDeviceProgram
from ttanalyze.ops.registry import ShapeError, lookup
from ttanalyze.ops.work_split import merge, merge_num_sticks_to_read, split_blocks_for_tilize, split_work_to_cores
from ttanalyze.programs import context_for, program_of

from .conftest import BH_SYSTEM_DESC, FIXTURES, analyze_path

FULL = 1_461_120  # free L1 of the empty mock: l1_size 1,572,864 - allocator base 111,744


def T(shape, layout="tile", dtype="bf16", buffer="dram", mem="interleaved", grid=None, cores=None):
    """A TensorDesc; L1 interleaved tensors get the 10x11 grid tt-mlir writes."""
    if grid is None:
        grid = (10, 11) if (buffer == "l1" and mem == "interleaved") else (1, 1)
    return TensorDesc(tuple(shape), dtype, layout, buffer, mem, grid, cores)


def ctx_of(op, operands, result, attrs="", free_l1=FULL):
    """The CBContext of a one-op module on the measured mock (its Arch and free L1)."""
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, [result], attrs)), "t.mlir"))
    return context_for(a, next(o for o in a.program.ops if o.name == op), arch=MOCK, free_l1=free_l1)


def progs(op, operands, result, attrs="", free_l1=FULL):
    """(factory, [(CB bytes, cores)], scratch bytes per core) of every program the op runs ([] for none)."""
    try:
        steps = dm.device_programs(ctx_of(op, operands, result, attrs, free_l1))
    except NoDeviceProgram:
        return []
    return [(p.factory.split("::")[-1], [(c.bytes, c.cores.num_cores) for c in p.cbs], p.extra_l1_per_core)
            for p in steps]


def ints(v):
    return "[" + ", ".join(f"{x} : i32" for x in v) + "]"



# ---------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------


def test_reshape_view_builds_no_program():
    # last dim 64 unchanged and H 128 unchanged: PerformView, no device program (measured: no
    # program in the capture of real/attention_o0/ttnn.mlir:37).
    c = ctx_of("ttnn.reshape", [T([1, 8, 128, 64])], T([8, 128, 64]), f"shape = {ints([8, 128, 64])}")
    with pytest.raises(NoDeviceProgram, match="view"):
        dm.device_programs(c)


def test_reshape_tiled_small():
    # [1, 8, 128] -> [1, 8, 128, 1]: 3D [1, 8, 128] -> [8, 128, 1]; 8 x 4 x 1 = 32 output tiles -> 32 cores.
    # Each output tile is 32 rows of 1 element, all from one input tile, never contiguous in both faced
    # offsets (the output row stride is 16): 32 segments of 1 input tile -> 32 (32 % 16 = 0) x 16 B = 512 B.
    # in_tiles one bf16 tile 2,048 B; scratch one output tile 2,048 B (measured: attention_o0:55).
    assert progs("ttnn.reshape", [T([1, 8, 128])], T([1, 8, 128, 1]), f"shape = {ints([1, 8, 128, 1])}") == [
        ("ReshapeViewTiledProgramFactory", [(512, 32), (2048, 32)], 2048)]


def test_reshape_map_segments():
    # NOTES.md 4b: the seed reshapes measured 5,632 = 3,584 + 2,048 and 2,688 = 640 + 2,048 B of DFBs.
    assert dm.reshape_map_segments((3072, 60, 106), (128, 24, 6360)) * 16 == 3584
    assert dm.reshape_map_segments((3072, 60, 106), (1, 4, 4884480)) * 16 == 640
    # [64] -> [1, 1, 64, 1, 1]: one element per output tile, 1 segment, 1 + 1 % 16 = 2 -> 32 B (mochi:104).
    assert dm.reshape_map_segments((1, 1, 64), (64, 1, 1)) == 2
    # [2, 16, 16] -> [16, 32] (W = 16: input rows merge inside a face row): measured 512 B (reshape/tile_w16)
    assert dm.reshape_map_segments((2, 16, 16), (1, 16, 32)) * 16 == 512


def test_reshape_tiled_seed_on_all_cores():
    # seed 000 [1, 4, 768, 60, 106] -> [4, 32, 24, 6360]: 128 x 1 x 199 = 25,472 output tiles -> all 110 cores.
    c = ctx_of("ttnn.reshape", [T([1, 4, 768, 60, 106])], T([4, 32, 24, 6360]), f"shape = {ints([4, 32, 24, 6360])}")
    [p] = dm.device_programs(c)
    assert [(cb.bytes, cb.cores.num_cores) for cb in p.cbs] == [(3584, 110), (2048, 110)]
    assert p.per_core_bytes() + p.extra_l1_per_core == 7680  # NOTES.md 4b: DFB 5,632 + scratch 2,048


def test_reshape_tiled_f32_and_u32_pages():
    # f32 [3, 5, 7] -> [5, 21]: in/out tiles 4,096 B; measured mapping 416 B (reshape/tile_f32).
    assert progs("ttnn.reshape", [T([3, 5, 7], dtype="f32")], T([5, 21], dtype="f32"), f"shape = {ints([5, 21])}") == [
        ("ReshapeViewTiledProgramFactory", [(416, 1), (4096, 1)], 4096)]
    assert progs("ttnn.reshape", [T([4, 100], dtype="u32")], T([8, 50], dtype="u32"), f"shape = {ints([8, 50])}") == [
        ("ReshapeViewTiledProgramFactory", [(640, 2), (4096, 2)], 4096)]


def test_reshape_row_major_unaligned_rows():
    # [64, 30] -> [30, 64] bf16: rows 60 B -> 128 B, not both 16 B multiples and neither divides the other
    # (single kernel).  src0 2 x (((60 - 1) & ~63) + 128 = 128); dest slot ((128 - 1) & ~63) + 80 = 144,
    # slots min(8, (free - 256) / 144) = 8 -> 256 + 8 x 144 = 1,408 B scratch, no DFB, all 110 cores
    # (measured: reshape/rm_unaligned; also with ~5 KB free: free/reshape_rm_slots).
    assert progs("ttnn.reshape", [T([64, 30], "row_major")], T([30, 64], "row_major"), f"shape = {ints([30, 64])}") == [
        ("ReshapeViewRMProgramFactory", [], 1408)]
    # With 1,000 B free: slots = (1000 - 256) // 144 = 5 -> 256 + 720 = 976 B.
    assert progs("ttnn.reshape", [T([64, 30], "row_major")], T([30, 64], "row_major"), f"shape = {ints([30, 64])}",
                 free_l1=1000) == [("ReshapeViewRMProgramFactory", [], 976)]


def test_reshape_row_major_dual_kernel():
    # [64, 32] -> [32, 64]: rows 64 B / 128 B, both 16 B aligned (1 slot) and 128 % 64 == 0 (reader and writer
    # both reshape): 2 x (2 x 128 + 144) = 800 B (measured: reshape/rm_aligned_dual).
    assert progs("ttnn.reshape", [T([64, 32], "row_major")], T([32, 64], "row_major"), f"shape = {ints([32, 64])}") == [
        ("ReshapeViewRMProgramFactory", [], 800)]


def test_reshape_row_major_view_when_last_dim_kept():
    assert progs("ttnn.reshape", [T([4, 6, 10], "row_major")], T([24, 10], "row_major"), f"shape = {ints([24, 10])}") == []


def test_reshape_spec_keeps_the_input_placement_for_a_view():
    # A view keeps the input buffer: logical [1, 64], padded [32, 64] (measured: mochi_small_constpad:61).
    c = ctx_of("ttnn.reshape", [T([64])], T([1, 64]), f"shape = {ints([1, 64])}")
    (spec,) = dm._output_spec(c)
    assert (spec.shape, spec.padded_shape, spec.layout, spec.buffer_type) == ((1, 64), (32, 64), "tile", "dram")


# ---------------------------------------------------------------------------
# permute / transpose
# ---------------------------------------------------------------------------


def test_permute_row_major_row_invariant():
    # [2, 3, 4, 40] perm [0, 2, 1, 3] -> transpose HC of an interleaved row-major tensor -> prim::permute,
    # last dim kept: MultiCoreRowInvariant, page align64(80) = 128 B x 2; 2 x 3 x 4 = 24 rows -> 24 cores.
    assert progs("ttnn.permute", [T([2, 3, 4, 40], "row_major")], T([2, 4, 3, 40], "row_major"),
                 "permutation = array<i64: 0, 2, 1, 3>") == [("MultiCoreRowInvariant", [(256, 24)], 0)]
    # In L1 the page aligns to 16 B: 80 B x 2 = 160 B (permute/rm_l1_row_invariant).
    assert progs("ttnn.permute", [T([2, 3, 4, 40], "row_major", buffer="l1")],
                 T([3, 2, 4, 40], "row_major", buffer="l1"), "permutation = array<i64: 1, 0, 2, 3>") == [
        ("MultiCoreRowInvariant", [(160, 24)], 0)]


def test_permute_row_major_blocked_generic():
    # [2, 3, 40, 50] perm [0, 1, 3, 2]: cb_in 64 x (32 x 2 B), cb_out 64 x 64 B, cb_tilize 2 x 32 x 32 x 2 B:
    # 4,096 B each; blocks = 240 rows / X 40 x ceil(40/32) x ceil(50/32) = 6 x 2 x 2 = 24 cores.
    assert progs("ttnn.permute", [T([2, 3, 40, 50], "row_major")], T([2, 3, 50, 40], "row_major"),
                 "permutation = array<i64: 0, 1, 3, 2>") == [("MultiCoreBlockedGeneric", [(4096, 24)] * 3, 0)]
    # f32 doubles every DFB (permute/rm_f32_blocked).
    assert progs("ttnn.permute", [T([3, 50, 70], "row_major", dtype="f32")], T([70, 50, 3], "row_major", dtype="f32"),
                 "permutation = array<i64: 2, 1, 0>")[0][1][0][0] == 8192


def test_permute_tile_transposes():
    # [0, 1, 3, 2] -> TransposeWH: in0 and out 2 tiles; 2 x 3 x 2 x 3 = 36 tiles -> 36 cores.
    assert progs("ttnn.permute", [T([2, 3, 64, 96])], T([2, 3, 96, 64]), "permutation = array<i64: 0, 1, 3, 2>") == [
        ("TransposeWHProgramFactory", [(4096, 36), (4096, 36)], 0)]
    # [0, 2, 1, 3] -> TransposeHC tiled interleaved; C = 3 is not a tile multiple: pad DFB of one face
    # (16 x 16 x 2 B = 512 B); cores = max(split(36 input tiles), split(2 x 64 x 1 x 3 = 384 output tiles / 1
    # tile of padded H = 384)) = 110.
    assert progs("ttnn.permute", [T([2, 3, 64, 96])], T([2, 64, 3, 96]), "permutation = array<i64: 0, 2, 1, 3>") == [
        ("TransposeHCTiledInterleavedProgramFactory", [(4096, 110), (512, 110)], 0)]
    # C = 64 is a tile multiple: no pad DFB; cores max(split(64 input tiles), split(64 output tiles / 2 per
    # column of H tiles = 32)) = 64 (permute/tile_hc_alignedC).
    assert progs("ttnn.permute", [T([1, 64, 32, 32])], T([1, 32, 64, 32]), "permutation = array<i64: 0, 2, 1, 3>")[0][1] \
        == [(4096, 64)]
    # [1, 0, 2, 3] -> TransposeCN: in0 2 tiles.
    assert progs("ttnn.permute", [T([2, 3, 64, 96])], T([3, 2, 64, 96]), "permutation = array<i64: 1, 0, 2, 3>") == [
        ("TransposeCNProgramFactory", [(4096, 36)], 0)]


def test_permute_tile_invariant():
    # Rank 5 goes straight to prim::permute; last two dims kept: cb_src0 2 tiles over 2 x 3 x 4 x 2 x 2 = 96 tiles.
    assert progs("ttnn.permute", [T([2, 3, 4, 64, 64])], T([4, 2, 3, 64, 64]),
                 "permutation = array<i64: 2, 0, 1, 3, 4>") == [("MultiCoreTileInvariant", [(4096, 96)], 0)]
    # Last two swapped (rank 4, not a transpose special case): cb_out16 too.
    assert progs("ttnn.permute", [T([2, 3, 64, 96])], T([3, 2, 96, 64]), "permutation = array<i64: 1, 0, 3, 2>") == [
        ("MultiCoreTileInvariant", [(4096, 36), (4096, 36)], 0)]


def test_permute_tile_row_invariant():
    # [2, 3, 40, 96] perm [2, 1, 0, 3]: W kept, new H = 2 is not a tile multiple: cb_src0 2 tiles + cb_pad one
    # face row (16 x 2 = 32 B); cores max(split(2 x 3 x 2 x 3 = 36 input tiles), split(40 x 3 x 1 x 3 = 360 / 1))
    # = 110 (permute/tile_row_invariant_4d).
    assert progs("ttnn.permute", [T([2, 3, 40, 96])], T([40, 3, 2, 96]), "permutation = array<i64: 2, 1, 0, 3>") == [
        ("MultiCoreTileRowInvariant", [(4096, 110), (32, 110)], 0)]
    # perm [0, 3, 1, 2] (output W = input H): cb_out16 as well (permute/tile_row_invariant_swap).
    assert progs("ttnn.permute", [T([2, 3, 40, 96])], T([2, 96, 3, 40]), "permutation = array<i64: 0, 3, 1, 2>")[0][1] \
        == [(4096, 110), (32, 110), (4096, 110)]


def test_permute_tiled_generic():
    # [2, 3, 40, 96] perm [0, 2, 3, 1]: pages of one tile + the DRAM read misalignment 64 - 16 x 2 = 32 B:
    # 2,080 x 2 = 4,160 B for cb_in, cb_tilize, cb_out; new H = 96 is a tile multiple (no cb_pad).
    assert progs("ttnn.permute", [T([2, 3, 40, 96])], T([2, 40, 96, 3]), "permutation = array<i64: 0, 2, 3, 1>") == [
        ("MultiCoreTiledGeneric", [(4160, 110)] * 3, 0)]
    # In L1 (alignment 16 <= 32 B face row) no misalignment: 4,096 B; f32 face row 64 B: no misalignment, 8,192 B.
    assert progs("ttnn.permute", [T([2, 3, 40, 96], buffer="l1")], T([2, 40, 96, 3], buffer="l1"),
                 "permutation = array<i64: 0, 2, 3, 1>")[0][1][0][0] == 4096
    assert progs("ttnn.permute", [T([2, 3, 40, 96], dtype="f32")], T([2, 40, 96, 3], dtype="f32"),
                 "permutation = array<i64: 0, 2, 3, 1>")[0][1][0][0] == 8192


def test_transpose_dims_dispatch():
    shape, attrs = [2, 3, 64, 96], "dim0 = {} : si32, dim1 = {} : si32"
    out = {(0, 2): [64, 3, 2, 96], (0, 3): [96, 3, 64, 2], (1, 3): [2, 96, 64, 3]}
    # NH / NW / CW are permutes (transpose/tile_nh, tile_nw, tile_cw).
    assert progs("ttnn.transpose", [T(shape)], T(out[(0, 2)]), attrs.format(0, 2))[0][0] == "MultiCoreTileRowInvariant"
    assert progs("ttnn.transpose", [T(shape)], T(out[(0, 3)]), attrs.format(0, 3))[0][0] == "MultiCoreTiledGeneric"
    assert progs("ttnn.transpose", [T(shape)], T(out[(1, 3)]), attrs.format(1, 3))[0][0] == "MultiCoreTiledGeneric"
    # Rank 2 is unsqueezed to 4D: WH (transpose/tile_2d); rank 5 is a permute (transpose/tile_5d).
    assert progs("ttnn.transpose", [T([64, 96])], T([96, 64]), attrs.format(0, 1)) == [
        ("TransposeWHProgramFactory", [(4096, 6), (4096, 6)], 0)]
    assert progs("ttnn.transpose", [T([2, 3, 4, 64, 96])], T([2, 4, 3, 64, 96]), attrs.format(1, 2))[0][0] \
        == "MultiCoreTileInvariant"
    # Row-major interleaved WH / HC / CN are permutes (transpose/rm_wh, rm_hc, rm_cn).
    assert progs("ttnn.transpose", [T([2, 3, 40, 50], "row_major")], T([2, 3, 50, 40], "row_major"),
                 attrs.format(2, 3))[0][0] == "MultiCoreBlockedGeneric"
    assert progs("ttnn.transpose", [T([2, 3, 40, 50], "row_major")], T([3, 2, 40, 50], "row_major"),
                 attrs.format(0, 1)) == [("MultiCoreRowInvariant", [(256, 110)], 0)]  # 240 rows > 110 cores
    # f32 HC: in0 2 x 4,096 and a face pad of 16 x 16 x 4 = 1,024 B (transpose/tile_hc_f32).
    assert progs("ttnn.transpose", [T([2, 5, 64, 64], dtype="f32")], T([2, 64, 5, 64], dtype="f32"),
                 attrs.format(1, 2))[0][1][:2] == [(8192, 110), (1024, 110)]


def test_permute_of_size_one_dims_is_a_no_op():
    assert progs("ttnn.permute", [T([1, 1, 64, 96])], T([1, 1, 64, 96]), "permutation = array<i64: 1, 0, 2, 3>") == []


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------


def pad_attrs(p, multicore=True):
    return (f"padding = array<i32: {', '.join(map(str, p))}>, use_multicore = {'true' if multicore else 'false'}, "
            "value = 0.000000e+00 : f32")


def test_pad_row_major_multicore():
    # [2, 3, 8, 32] -> [2, 3, 10, 64]: padded row 128 B; ceil(2048 / 128) = 16 rows per barrier; the budget
    # l1_size / 2 - base = 674,688 allows clamp(674,688 / 2,048, 1, 16) = 16 batches: 16 x 16 x 128 = 32,768 B;
    # scratch pad align64(128) = 128 (no front pad, 128 % 64 == 0: no pad_align); 2 x 3 x 10 = 60 rows.
    assert progs("ttnn.pad", [T([2, 3, 8, 32], "row_major")], T([2, 3, 10, 64], "row_major"),
                 pad_attrs([0, 0, 0, 0, 0, 2, 0, 32])) == [("PadRmReaderWriterMultiCoreDefaultProgramFactory", [(32768, 60)], 128)]
    # [1, 1, 4, 3000] -> 3100: row 6,200 -> 6,208 B, 1 row per barrier, 16 batches = 99,328 B; scratch 6,208.
    assert progs("ttnn.pad", [T([1, 1, 4, 3000], "row_major")], T([1, 1, 4, 3100], "row_major"),
                 pad_attrs([0, 0, 0, 0, 0, 0, 0, 100]))[0][1:] == ([(99328, 4)], 6208)


def test_pad_row_major_front_padding_adds_pad_align():
    # Fixture mochi_small_constpad:51: [64, 4, 16, 16] -> [64, 6, 18, 18] with front padding: row 36 B ->
    # align16 48, ceil(2048 / 48) = 43 per barrier, 16 batches: 16 x 43 x 48 = 33,024 B; scratch pad 64 +
    # pad_align 64 (front pad on W) = 128; 64 x 6 x 18 = 6,912 rows -> 110 cores.
    assert progs("ttnn.pad", [T([64, 4, 16, 16], "row_major")], T([64, 6, 18, 18], "row_major"),
                 pad_attrs([0, 0, 2, 0, 1, 1, 1, 1])) == [
        ("PadRmReaderWriterMultiCoreDefaultProgramFactory", [(33024, 110)], 128)]


def test_pad_row_major_single_core():
    # use_multicore = false: one DFB of round_up(64, max(64, 32)) = 64 B x clamp(674,688 / 64, 1, 16) = 16 on (0,0).
    assert progs("ttnn.pad", [T([2, 3, 8, 30], "row_major")], T([2, 3, 10, 32], "row_major"),
                 pad_attrs([0, 0, 0, 0, 0, 2, 0, 2], multicore=False)) == [
        ("PadRmReaderWriterProgramFactory", [(1024, 1)], 0)]


def test_pad_tile_fills_the_padding_then_pads():
    # [1, 2, 30, 30] -> [1, 2, 64, 64]: fill_implicit_tile_padding first (W and H unaligned: data_in 2 tiles,
    # right_mask 1, bot_mask 1, data_out 2; work = the corner tile of each of the 2 slices -> 2 cores), then
    # PadTileMulticore: in0 2 tiles + scratch 1 tile over the 2 x 2 x 2 = 8 output tiles (pad/tile_mc).
    assert progs("ttnn.pad", [T([1, 2, 30, 30])], T([1, 2, 64, 64]), pad_attrs([0, 0, 0, 0, 0, 34, 0, 34])) == [
        ("FillPadProgramFactory", [(4096, 2), (2048, 2), (2048, 2), (4096, 2)], 0),
        ("PadTileMulticoreProgramFactory", [(4096, 8)], 2048)]
    # Padding inside the tile padding is a view after the fill (pad/tile_view).
    assert [p[0] for p in progs("ttnn.pad", [T([1, 2, 30, 30])], T([1, 2, 31, 32]),
                                pad_attrs([0, 0, 0, 0, 0, 1, 0, 2]))] == ["FillPadProgramFactory"]
    # Aligned input, single core: no fill (pad/tile_single).
    assert progs("ttnn.pad", [T([1, 2, 64, 64])], T([1, 2, 96, 64]), pad_attrs([0, 0, 0, 0, 0, 32, 0, 0], False)) == [
        ("PadTileCoreProgramFactory", [(4096, 1)], 2048)]


def test_pad_tile_front_padding_is_refused():
    c = ctx_of("ttnn.pad", [T([1, 2, 64, 64])], T([1, 2, 65, 64]), pad_attrs([0, 0, 0, 0, 1, 0, 0, 0]))
    with pytest.raises(CBModelError, match="front padding"):
        dm.device_programs(c)


# ---------------------------------------------------------------------------
# slice
# ---------------------------------------------------------------------------


def slice_attrs(b, e, s):
    return f"begins = {ints(b)}, ends = {ints(e)}, step = {ints(s)}"


def test_slice_tile():
    # Tile-aligned begins: SliceTile, in 2 tiles, scratch rank x 4 = 12 B; 2 x 1 x 2 = 4 output tiles.
    assert progs("ttnn.slice_static", [T([2, 64, 96], buffer="l1")], T([2, 32, 64], buffer="l1"),
                 slice_attrs([0, 32, 32], [2, 64, 96], [1, 1, 1])) == [("SliceTileProgramFactory", [(4096, 4)], 12)]


def test_slice_row_major():
    # [4, 10, 64] -> [2, 5, 32]: 10 rows -> 10 cores, 1 per core -> pad32 = 32; rows of 64 B (DRAM aligned);
    # merge_num_sticks_to_read(32, 64, 4096) = 1 read of 2,048 B -> 32 rows per barrier: 2 x 32 x 64 = 4,096 B.
    assert progs("ttnn.slice_static", [T([4, 10, 64], "row_major")], T([2, 5, 32], "row_major"),
                 slice_attrs([1, 2, 0], [3, 7, 32], [1, 1, 1])) == [("SliceRmProgramFactory", [(4096, 10)], 12)]
    # Begin 1 on W: 2 B off the 64 B alignment: entries align to 128 -> 2 x 32 x 128 = 8,192 B.
    assert progs("ttnn.slice_static", [T([4, 10, 64], "row_major")], T([2, 5, 31], "row_major"),
                 slice_attrs([1, 2, 1], [3, 7, 32], [1, 1, 1]))[0][1] == [(8192, 10)]
    assert merge_num_sticks_to_read(32, 64, 4096) == 1
    assert merge_num_sticks_to_read(64, 64, 4096) == 1
    assert merge_num_sticks_to_read(32, 192, 4096) == 2  # 6,144 B: largest 192-multiple divisor <= 4096 is 3,072


def test_slice_row_major_chunks_wide_rows_when_l1_is_short():
    # [2, 20000] -> row 2 (40,000 B) with 60,288 B free: 2 x 40,000 > free -> chunks of
    # min(8192, 60288 / 8) = 7,536 -> 7,488 (64 B multiple), 6 chunks (even): 2 x 2 x 7,488 = 29,952 B
    # (measured: free/slice_rm_chunked).
    assert progs("ttnn.slice_static", [T([2, 20000], "row_major")], T([1, 20000], "row_major"),
                 slice_attrs([1, 0], [2, 20000], [1, 1]), free_l1=60288) == [("SliceRmProgramFactory", [(29952, 1)], 8)]


def test_slice_row_major_strided():
    # Steps of 2: SliceRmStride, 2 input rows of align64(128) B; 2 x 5 = 10 output rows.
    assert progs("ttnn.slice_static", [T([4, 10, 64], "row_major")], T([2, 5, 32], "row_major"),
                 slice_attrs([0, 0, 0], [4, 10, 64], [2, 2, 2])) == [("SliceRmStrideProgramFactory", [(256, 10)], 0)]


def test_slice_tile_with_unaligned_begin_goes_through_row_major():
    # Fixture mochi_small_edgepad:55: [1, 64, 6, 16, 16] rows 15..16: untilize_with_unpadding (384 tile rows
    # of 1 tile -> 96 cores), SliceRm (384 rows of 32 B -> 64 B entries, 4 per core -> pad32 32,
    # merge(32, 64, 4096) = 1 -> 2 x 32 x 64 = 4,096 B, scratch 5 x 4 = 20), tilize_with_val_padding.
    assert progs("ttnn.slice_static", [T([1, 64, 6, 16, 16])], T([1, 64, 6, 1, 16]),
                 slice_attrs([0, 0, 0, 15, 0], [1, 64, 6, 16, 16], [1] * 5)) == [
        ("UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory", [(2048, 96), (2048, 96)], 0),
        ("SliceRmProgramFactory", [(4096, 110)], 20),
        ("TilizeWithValPaddingMultiCoreDefaultFactory", [(2048, 96), (2048, 96)], 0)]


def test_slice_of_an_unpadded_tile_tensor_untilizes_with_the_code_generator():
    # The begin 4 is not tile-aligned, so ttnn untilizes [2, 64, 96] (unpadded bf16: UntilizeCodegen, the
    # layout-conversion model: 2 x 2 tiles on the 12 cores of the 12 tile rows), slices row-major (SliceRm) and
    # tilizes back with padding (20 -> 32 rows). Measured on mock P150, ttnn 0.81.1: 4,096 x 2 on 12 cores;
    # 6,144 on 40 cores + 12 B scratch; 6,144 x 2 on 2 cores.
    assert progs("ttnn.slice_static", [T([2, 64, 96])], T([2, 20, 96]), slice_attrs([0, 4, 0], [2, 24, 96], [1, 1, 1])) == [
        ("UntilizeCodegenProgramFactory", [(4096, 12), (4096, 12)], 0),
        ("SliceRmProgramFactory", [(6144, 40)], 12),
        ("TilizeWithValPaddingMultiCoreDefaultFactory", [(6144, 2), (6144, 2)], 0)]


# ---------------------------------------------------------------------------
# concat
# ---------------------------------------------------------------------------


def test_concat_default_factory():
    # Tile: one DFB of 2 tiles over the output tiles (concat/tile_dim0: 5 x 2 x 3 = 30 tiles).
    assert progs("ttnn.concat", [T([2, 64, 96]), T([3, 64, 96])], T([5, 64, 96]), "dim = 0 : si32") == [
        ("ConcatProgramFactory", [(4096, 30)], 0)]
    # Row-major: rows of 40 x 2 = 80 B aligned to 64 -> 128 x 2 = 256 B; 3 x 5 = 15 rows.
    assert progs("ttnn.concat", [T([2, 5, 40], "row_major"), T([1, 5, 40], "row_major")], T([3, 5, 40], "row_major"),
                 "dim = 0 : si32") == [("ConcatProgramFactory", [(256, 15)], 0)]


def test_concat_tiled_unaligned():
    # Last-dim concat of widths 30 + 20: in tiles per band 1 + 1 = 2, out tiles ceil(50 / 32) = 2:
    # c_0 2 x 2, c_1 2, c_2 2, c_16 2 x 2 tiles; 2 x 64 / 32 = 4 bands -> 4 cores (concat/tile_lastdim_unaligned).
    assert progs("ttnn.concat", [T([2, 64, 30]), T([2, 64, 20])], T([2, 64, 50]), "dim = 2 : si32") == [
        ("ConcatTiledUnalignedProgramFactory", [(8192, 4), (4096, 4), (4096, 4), (8192, 4)], 0)]
    # It needs (3 x 2 + 3 x 2) x 2,048 = 24,576 B free; with 21,376 B free ttnn untilizes, concatenates the rows
    # between two transposes (60 B rows are not 64 B aligned) and tilizes (free/concat_unaligned_no_room).
    names = [p[0] for p in progs("ttnn.concat", [T([2, 64, 30]), T([2, 64, 20])], T([2, 64, 50]), "dim = 2 : si32",
                                 free_l1=21376)]
    assert names == ["UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory"] * 2 + ["MultiCoreBlockedGeneric"] * 2 \
        + ["ConcatProgramFactory", "MultiCoreBlockedGeneric", "TilizeWithValPaddingMultiCoreDefaultFactory"]


def test_concat_row_major_unaligned_last_dim_transposes():
    # Fixture mochi_small_edgepad:68: widths 1 + 16 + 1 (2 B / 32 B rows, not 64 B aligned): each input is
    # transposed (row-major WH -> BlockedGeneric), concatenated on dim 3 (rows of 18 x 2 = 36 -> 64 B x 2),
    # and transposed back.
    ops = [T([1, 64, 6, 18, 1], "row_major"), T([1, 64, 6, 18, 16], "row_major"), T([1, 64, 6, 18, 1], "row_major")]
    assert progs("ttnn.concat", ops, T([1, 64, 6, 18, 18], "row_major"), "dim = 4 : si32") == [
        ("MultiCoreBlockedGeneric", [(4096, 110)] * 3, 0)] * 3 + [("ConcatProgramFactory", [(128, 110)], 0)] + [
        ("MultiCoreBlockedGeneric", [(4096, 110)] * 3, 0)]


# ---------------------------------------------------------------------------
# repeat_interleave / repeat / embedding
# ---------------------------------------------------------------------------


def test_repeat_interleave_codegen():
    # Rank 2..4, dim outside the tile: codegen, c_0 8 tiles over 2 x 9 x 2 x 2 = 72 output tiles.
    assert progs("ttnn.repeat_interleave", [T([2, 3, 64, 64])], T([2, 9, 64, 64]), "dim = 1 : si32, repeats = 3 : ui32") \
        == [("RepeatInterleaveCodegenProgramFactory", [(16384, 72)], 0)]
    # Row-major: slots of align64(80) = 128 B, batch 4 -> 8 slots = 1,024 B over 4 x 10 = 40 rows.
    assert progs("ttnn.repeat_interleave", [T([4, 5, 40], "row_major")], T([4, 10, 40], "row_major"),
                 "dim = 1 : si32, repeats = 2 : ui32") == [("RepeatInterleaveCodegenProgramFactory", [(1024, 40)], 0)]
    # 2,048 B slots with 7,040 B free: 3 slots -> batch 4 halves to 1 -> 2 slots = 4,096 B
    # (free/repeat_interleave_rm_batch).
    assert progs("ttnn.repeat_interleave", [T([4, 5, 1000], "row_major")], T([4, 10, 1000], "row_major"),
                 "dim = 1 : si32, repeats = 2 : ui32", free_l1=7040)[0][1][0][0] == 4096


def test_repeat_interleave_native():
    # Fixture mochi_small_edgepad:49 (rank 5: native): untilize (64 tile rows -> 64 cores), concat of the two
    # unsqueezed row-major copies (rows 32 B -> 64 B x 2), tilize back.
    assert progs("ttnn.repeat_interleave", [T([1, 64, 1, 16, 16])], T([1, 64, 2, 16, 16]),
                 "dim = 2 : si32, repeats = 2 : ui32") == [
        ("UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory", [(2048, 64), (2048, 64)], 0),
        ("ConcatProgramFactory", [(128, 110)], 0),
        ("TilizeWithValPaddingMultiCoreDefaultFactory", [(2048, 64), (2048, 64)], 0)]
    # Last dim: between two WH transposes (repeat_interleave/tile_native_w).
    names = [p[0] for p in progs("ttnn.repeat_interleave", [T([2, 3, 64, 20])], T([2, 3, 64, 40]),
                                 "dim = 3 : si32, repeats = 2 : ui32")]
    assert names[0] == names[-1] == "TransposeWHProgramFactory"


def test_repeat_codegen_and_native():
    rd = "repeat_dims = #ttnn.shape<{}>"
    # TILE codegen leg: c_0 8 tiles over 2 x 2 x 1 x 2 = 8 output tiles (repeat/tile_aligned).
    assert progs("ttnn.repeat", [T([1, 2, 32, 64])], T([2, 2, 32, 64]), rd.format("2x1x1x1")) == [
        ("RepeatCodegenProgramFactory", [(16384, 8)], 0)]
    # Outer-dim repeat into L1 interleaved: direct kernel, 1 tile over the 4 input tiles (repeat/tile_l1_outer_direct).
    assert progs("ttnn.repeat", [T([1, 2, 32, 64])], T([4, 2, 32, 64], buffer="l1"), rd.format("4x1x1x1")) == [
        ("RepeatCodegenProgramFactory", [(2048, 4)], 0)]
    # Two repeated dims: two legs (repeat/tile_two_dims).
    assert len(progs("ttnn.repeat", [T([1, 2, 32, 64])], T([1, 6, 64, 64]), rd.format("1x3x2x1"))) == 2
    # Row-major: slots max(align64(80), align64(240)) = 256 ... last dim first: 8 slots of 256 B (repeat/rm_two_dims
    # measured 2,048 B for both legs).
    assert progs("ttnn.repeat", [T([2, 5, 40], "row_major")], T([4, 5, 120], "row_major"), rd.format("2x1x3")) == [
        ("RepeatCodegenProgramFactory", [(2048, 10)], 0), ("RepeatCodegenProgramFactory", [(2048, 20)], 0)]
    # Rank 5 tile-aligned: native tile path, no CB, scratch 128 + 2,048 on every core (repeat/tile_5d).
    assert progs("ttnn.repeat", [T([1, 2, 3, 32, 32])], T([2, 2, 3, 32, 32]), rd.format("2x1x1x1x1")) == [
        ("RepeatProgramFactoryHigherDim", [], 2176)]


def test_embedding_factories():
    idx, w = T([2, 16], "row_major", dtype="u32"), T([100, 64], "row_major")
    # Row-major output: out = align64(64 x 2) = 128 B, 1 entry (one row per core: 32 rows -> 32 cores);
    # index scratch (64 / 4) x 32 = 512 B (embedding/rm_out).
    assert progs("ttnn.embedding", [idx, w], T([2, 16, 64], "row_major")) == [
        ("EmbeddingsRMProgramFactory", [(128, 32)], 512)]
    # TILE output, 32 indices per row and 64 = 2 x 32 columns: fused, src0 and out 2 x 2 tiles, scratch 32 x 4 B;
    # 2 x 32 / 32 = 2 blocks -> 2 cores (embedding/tile_out).
    assert progs("ttnn.embedding", [T([2, 32], "row_major", dtype="u32"), w], T([2, 32, 64])) == [
        ("EmbeddingsFusedProgramFactory", [(8192, 2), (8192, 2)], 128)]
    # TILE indices: tilized-indices factory (out 2 x 128 B, scratch one index tile 4,096 B; 2 faces of 16 -> 2
    # cores), then a tilize of the 32 x 64 result (embedding/tile_idx; bf16 indices: 2,048 B scratch).
    assert progs("ttnn.embedding", [T([1, 32], dtype="u32"), w], T([1, 32, 64])) == [
        ("EmbeddingsTilizedIndicesProgramFactory", [(256, 2)], 4096),
        ("TilizeMultiCoreDefaultProgramFactory", [(4096, 1), (4096, 1)], 0)]


def test_embedding_shape_rule():
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.embedding", [T([2, 16], "row_major", dtype="u32"), T([100, 64], "row_major")],
        [T([2, 16, 64], "row_major")])), "t.mlir"))
    op = next(o for o in a.program.ops if o.name == "ttnn.embedding")
    assert lookup("ttnn.embedding").infer(op) == [(2, 16, 64)]
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.embedding", [T([2, 16], "row_major", dtype="u32"), T([100], "row_major")],
        [T([2, 16, 100], "row_major")])), "t.mlir"))
    with pytest.raises(ShapeError, match="at least 2 dims"):
        lookup("ttnn.embedding").infer(next(o for o in a.program.ops if o.name == "ttnn.embedding"))


def test_split_helpers():
    # split_work_to_cores fills columns of the 11 x 10 grid: 32 units -> 3 full columns + 2 cores.
    crs = split_work_to_cores((11, 10), 32).all_cores
    assert crs.num_cores == 32 and {(r.start.x, r.end.x) for r in crs.ranges} == {(0, 2), (3, 3)}
    # split_blocks_for_tilize: 384 blocks -> 4 per core -> 96 cores; 64 -> 64.
    assert split_blocks_for_tilize((11, 10), 384).all_cores.num_cores == 96
    assert split_blocks_for_tilize((11, 10), 64).all_cores.num_cores == 64


# ---------------------------------------------------------------------------
# Core ranges: the merged set of Metal 2.0 DFBs, the split ranges of legacy CBs
# ---------------------------------------------------------------------------


def ranges(crs):
    return [(r.start.x, r.start.y, r.end.x, r.end.y) for r in crs.ranges]


def test_merge_follows_core_range_set_merge():
    # CoreRangeSet::merge (core_coord.cpp): each row's runs, a run stacking onto the range ending on the row
    # above with the same x extent; ranges ordered by start (x, then y), then end.  98 cores in grid column
    # order (columns 0-8 and (9, 0-7)): rows 0-7 run x 0-9, rows 8-9 x 0-8 -> two rectangles.
    col_major = [(i // 10, i % 10) for i in range(98)]
    assert ranges(merge(col_major)) == [(0, 0, 9, 7), (0, 8, 8, 9)]
    assert ranges(split_work_to_cores((11, 10), 98).all_cores) == [(0, 0, 8, 9), (9, 0, 9, 7)]  # the split's own
    # Row-major cores 5..21 of an 11-wide grid: row 0 x 5-10, row 1 x 0-10; (0, 1) sorts before (5, 0).
    assert ranges(merge([(i % 11, i // 11) for i in range(5, 22)])) == [(0, 1, 10, 1), (5, 0, 10, 0)]
    # Equal runs only stack on the row directly above: rows 0 and 2 stay apart.
    assert ranges(merge([(0, 0), (1, 0), (0, 2), (1, 2), (3, 2)])) == [(0, 0, 1, 0), (0, 2, 1, 2), (3, 2, 3, 2)]
    assert ranges(merge([])) == [] and ranges(merge([(4, 4)])) == [(4, 4, 4, 4)]


# (case, op, operands, result, attrs, factory, the range list of every CB of its one program): measured on mock
# P150, ttnn 0.81.1 (tt-metal d80d9482): the captured dataflow_buffer_allocate / circular_buffer_allocate
# core_range_set, ranges in order (the op-level campaign records the same lists for every data-movement
# instance it draws: measurements/opdiff/results.jsonl.gz).  Each split leaves a partial column of the 11 x 10 grid, where the merge and the split's
# column-first ranges differ: e.g. 32 units fill columns 0-2 and (3, 0-1) -> merged rows 0-1 x 0-3, rows 2-9
# x 0-2 = [(0, 0, 3, 1), (0, 2, 2, 9)] (the split: [(0, 0, 2, 9), (3, 0, 3, 1)]).
RM = "row_major"
PROBE = [
    # 32 output tiles (8 x 4 x 1)
    ("reshape_tiled", "ttnn.reshape", [T([1, 8, 128])], T([1, 8, 128, 1]), f"shape = {ints([1, 8, 128, 1])}",
     "ReshapeViewTiledProgramFactory", [(0, 0, 3, 1), (0, 2, 2, 9)]),
    # 24 rows: columns 0-1 and (2, 0-3) -> rows 0-3 x 0-2, rows 4-9 x 0-1
    ("permute_row_invariant", "ttnn.permute", [T([2, 3, 4, 40], RM)], T([2, 4, 3, 40], RM),
     "permutation = array<i64: 0, 2, 1, 3>", "MultiCoreRowInvariant", [(0, 0, 2, 3), (0, 4, 1, 9)]),
    # 24 blocks (see test_permute_row_major_blocked_generic)
    ("permute_blocked_generic", "ttnn.permute", [T([2, 3, 40, 50], RM)], T([2, 3, 50, 40], RM),
     "permutation = array<i64: 0, 1, 3, 2>", "MultiCoreBlockedGeneric", [(0, 0, 2, 3), (0, 4, 1, 9)]),
    # 96 tiles: columns 0-8 and (9, 0-5)
    ("permute_tile_invariant", "ttnn.permute", [T([2, 3, 4, 64, 64])], T([4, 2, 3, 64, 64]),
     "permutation = array<i64: 2, 0, 1, 3, 4>", "MultiCoreTileInvariant", [(0, 0, 9, 5), (0, 6, 8, 9)]),
    # max(split(4 input tiles), split(32 padded output tiles)) = 32 cores
    ("permute_tile_row_invariant", "ttnn.permute", [T([1, 2, 8, 64])], T([8, 2, 1, 64]),
     "permutation = array<i64: 2, 1, 0, 3>", "MultiCoreTileRowInvariant", [(0, 0, 3, 1), (0, 2, 2, 9)]),
    # max(split(16 XW blocks), split(8 padded output tiles)) = 16 cores: column 0 and (1, 0-5)
    ("permute_tiled_generic", "ttnn.permute", [T([1, 2, 8, 64])], T([1, 8, 64, 2]),
     "permutation = array<i64: 0, 2, 3, 1>", "MultiCoreTiledGeneric", [(0, 0, 1, 5), (0, 6, 0, 9)]),
    # 36 tiles: columns 0-2 and (3, 0-5)
    ("transpose_wh", "ttnn.permute", [T([2, 3, 64, 96])], T([2, 3, 96, 64]), "permutation = array<i64: 0, 1, 3, 2>",
     "TransposeWHProgramFactory", [(0, 0, 3, 5), (0, 6, 2, 9)]),
    # 64 cores: columns 0-5 and (6, 0-3)
    ("transpose_hc", "ttnn.permute", [T([1, 64, 32, 32])], T([1, 32, 64, 32]), "permutation = array<i64: 0, 2, 1, 3>",
     "TransposeHCTiledInterleavedProgramFactory", [(0, 0, 6, 3), (0, 4, 5, 9)]),
    ("transpose_cn", "ttnn.permute", [T([2, 3, 64, 96])], T([3, 2, 64, 96]), "permutation = array<i64: 1, 0, 2, 3>",
     "TransposeCNProgramFactory", [(0, 0, 3, 5), (0, 6, 2, 9)]),
    # H 30 -> 32 is inside the tile padding: only the fill, 13 slices x 2 bottom-edge tiles = 26 cores
    ("fill_pad", "ttnn.pad", [T([13, 30, 64])], T([13, 32, 64]), pad_attrs([0, 0, 0, 2, 0, 0]),
     "FillPadProgramFactory", [(0, 0, 2, 5), (0, 6, 1, 9)]),
    # 2 x 13 = 26 output tiles
    ("pad_tile_multicore", "ttnn.pad", [T([1, 1, 64, 64])], T([1, 1, 64, 416]), pad_attrs([0, 0, 0, 0, 0, 0, 0, 352]),
     "PadTileMulticoreProgramFactory", [(0, 0, 2, 5), (0, 6, 1, 9)]),
    ("pad_tile_core", "ttnn.pad", [T([1, 2, 64, 64])], T([1, 2, 96, 64]), pad_attrs([0, 0, 0, 0, 0, 32, 0, 0], False),
     "PadTileCoreProgramFactory", [(0, 0, 0, 0)]),
    # 24 padded rows
    ("pad_rm_multicore", "ttnn.pad", [T([2, 3, 4, 32], RM)], T([2, 3, 4, 64], RM), pad_attrs([0, 0, 0, 0, 0, 0, 0, 32]),
     "PadRmReaderWriterMultiCoreDefaultProgramFactory", [(0, 0, 2, 3), (0, 4, 1, 9)]),
    ("pad_rm_core", "ttnn.pad", [T([2, 3, 8, 30], RM)], T([2, 3, 10, 32], RM), pad_attrs([0, 0, 0, 0, 0, 2, 0, 2], False),
     "PadRmReaderWriterProgramFactory", [(0, 0, 0, 0)]),
    # 2 x 13 = 26 output tiles
    ("slice_tile", "ttnn.slice_static", [T([2, 64, 416])], T([1, 64, 416]), slice_attrs([1, 0, 0], [2, 64, 416], [1, 1, 1]),
     "SliceTileProgramFactory", [(0, 0, 2, 5), (0, 6, 1, 9)]),
    # 24 output rows
    ("slice_rm", "ttnn.slice_static", [T([4, 12, 64], RM)], T([2, 12, 32], RM), slice_attrs([1, 0, 0], [3, 12, 32], [1, 1, 1]),
     "SliceRmProgramFactory", [(0, 0, 2, 3), (0, 4, 1, 9)]),
    # 4 x 12 = 48 output rows: columns 0-3 and (4, 0-7)
    ("slice_rm_stride", "ttnn.slice_static", [T([4, 24, 64], RM)], T([4, 12, 32], RM),
     slice_attrs([0, 0, 0], [4, 24, 64], [1, 2, 2]), "SliceRmStrideProgramFactory", [(0, 0, 4, 7), (0, 8, 3, 9)]),
    # 3 x 2 x 3 = 18 output tiles
    ("concat", "ttnn.concat", [T([2, 64, 96]), T([1, 64, 96])], T([3, 64, 96]), "dim = 0 : si32",
     "ConcatProgramFactory", [(0, 0, 1, 7), (0, 8, 0, 9)]),
    # 32 output rows
    ("embedding_rm", "ttnn.embedding", [T([2, 16], RM, dtype="u32"), T([100, 64], RM)], T([2, 16, 64], RM), "",
     "EmbeddingsRMProgramFactory", [(0, 0, 3, 1), (0, 2, 2, 9)]),
    # 13 blocks of 32 rows: column 0 and (1, 0-2)
    ("embedding_fused", "ttnn.embedding", [T([13, 32], RM, dtype="u32"), T([100, 64], RM)], T([13, 32, 64]), "",
     "EmbeddingsFusedProgramFactory", [(0, 0, 1, 2), (0, 3, 0, 9)]),
    # 208 indices = 13 faces of 16
    ("embedding_tilized_indices", "ttnn.embedding", [T([1, 208], dtype="u32"), T([100, 64], RM)], T([1, 208, 64], RM),
     "", "EmbeddingsTilizedIndicesProgramFactory", [(0, 0, 1, 2), (0, 3, 0, 9)]),
    # Legacy CBs keep the split's ranges: ConcatTiledUnaligned's split_blocks_for_tilize (CoreRangeSet overload)
    # returns one range per core, unmerged (4 bands); the repeat code generators' split_work_to_cores ranges
    # (2 x 26 = 52 output tiles: columns 0-4 and (5, 0-1)).
    ("concat_tiled_unaligned", "ttnn.concat", [T([2, 64, 30]), T([2, 64, 20])], T([2, 64, 50]), "dim = 2 : si32",
     "ConcatTiledUnalignedProgramFactory", [(0, 0, 0, 0), (0, 1, 0, 1), (0, 2, 0, 2), (0, 3, 0, 3)]),
    ("repeat_codegen", "ttnn.repeat", [T([1, 2, 32, 64])], T([1, 2, 32, 832]), "repeat_dims = #ttnn.shape<1x1x1x13>",
     "RepeatCodegenProgramFactory", [(0, 0, 4, 9), (5, 0, 5, 1)]),
    ("repeat_interleave_codegen", "ttnn.repeat_interleave", [T([2, 13, 32, 32])], T([2, 26, 32, 32]),
     "dim = 1 : si32, repeats = 2 : ui32", "RepeatInterleaveCodegenProgramFactory", [(0, 0, 4, 9), (5, 0, 5, 1)]),
]


@pytest.mark.parametrize("case,op,operands,result,attrs,factory,expected", PROBE, ids=[c[0] for c in PROBE])
def test_cb_core_ranges_match_the_mock(case, op, operands, result, attrs, factory, expected):
    [p] = dm.device_programs(ctx_of(op, operands, result, attrs))
    assert p.factory.split("::")[-1] == factory
    assert [ranges(cb.cores) for cb in p.cbs] == [expected] * len(p.cbs)
    # the program's cores, where its scratchpads sit (measured: every scratchpad_allocate on the same ranges)
    assert ranges(p.cores) == expected


def test_overflow_names_the_first_merged_range():
    # TTA010 names the first CB allocator beyond the limit (ProgramModel.first_overflow): for TransposeWH on 36
    # cores that is the merged set's first range [0-0 - 3-5] (measured ranges above), whose region ends
    # at base + 2 x 4,096.
    [p] = dm.device_programs(ctx_of("ttnn.permute", [T([2, 3, 64, 96])], T([2, 3, 96, 64]),
                                    "permutation = array<i64: 0, 1, 3, 2>"))
    base = MOCK.l1_unreserved_base
    where, end = p.first_overflow(base, base + 4096)
    assert ((where.start.x, where.start.y, where.end.x, where.end.y), end) == ((0, 0, 3, 5), base + 8192)


# ---------------------------------------------------------------------------
# Every data-movement op of the fixtures, against its measurement
# ---------------------------------------------------------------------------

# (fixture:line, free L1 before the op on the mock, [(factory, [(CB bytes, cores)], scratch per core)]):
# NO_DISPATCH captures of each op replayed with ttnn 0.81.1 on the mock P150 (the fixture instances of
# benchmarks/accuracy_sweep.py); L1 operands lower the free L1 below 1,461,120.
MEASURED = [
    ('real/attention_o0/ttnn.mlir:37', 1461120, []),
    ('real/attention_o0/ttnn.mlir:39', 1461120, [('TransposeWHProgramFactory', [(4096, 64), (4096, 64)], 0)]),
    ('real/attention_o0/ttnn.mlir:41', 1461120, []),
    ('real/attention_o0/ttnn.mlir:55', 1461120, [('ReshapeViewTiledProgramFactory', [(512, 32), (2048, 32)], 2048)]),
    ('real/attention_o1/ttnn.mlir:37', 1461120, []),
    ('real/attention_o1/ttnn.mlir:39', 1461120, [('TransposeWHProgramFactory', [(4096, 64), (4096, 64)], 0)]),
    ('real/attention_o1/ttnn.mlir:41', 1461120, []),
    ('real/attention_o1/ttnn.mlir:55', 1461120, [('ReshapeViewTiledProgramFactory', [(512, 32), (2048, 32)], 2048)]),
    ('real/attention_o2/ttnn.mlir:41', 1461120, []),
    ('real/attention_o2/ttnn.mlir:43', 1461120, [('TransposeWHProgramFactory', [(4096, 64), (4096, 64)], 0)]),
    ('real/attention_o2/ttnn.mlir:45', 1459072, []),
    ('real/attention_o2/ttnn.mlir:63', 1459072, [('ReshapeViewTiledProgramFactory', [(512, 32), (2048, 32)], 2048)]),
    ('real/conv2d_block_o0/ttnn.mlir:33', 1461120, [('MultiCoreTiledGeneric', [(4160, 110), (4160, 110), (4160, 110), (32, 110)], 0)]),
    ('real/conv2d_block_o0/ttnn.mlir:37', 1461120, []),
    ('real/conv2d_block_o0/ttnn.mlir:41', 1461120, []),
    ('real/conv2d_block_o0/ttnn.mlir:63', 1461120, [('ReshapeViewTiledProgramFactory', [(512, 16), (2048, 16)], 2048)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:47', 1461120, []),
    ('real/mochi_small_constpad_o0/ttnn.mlir:51', 1461120, [('PadRmReaderWriterMultiCoreDefaultProgramFactory', [(33024, 110)], 128)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:55', 1461120, []),
    ('real/mochi_small_constpad_o0/ttnn.mlir:57', 1461120, [('MultiCoreTiledGeneric', [(4160, 110), (4160, 110), (4160, 110), (32, 110)], 0)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:61', 1461120, []),
    ('real/mochi_small_constpad_o0/ttnn.mlir:75', 1461120, [('MultiCoreTileRowInvariant', [(4096, 110), (32, 110), (4096, 110)], 0)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:77', 1461120, []),
    ('real/mochi_small_constpad_o0/ttnn.mlir:100', 1461120, []),
    ('real/mochi_small_constpad_o0/ttnn.mlir:104', 1461120, [('ReshapeViewTiledProgramFactory', [(32, 64), (2048, 64)], 2048)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:111', 1461120, [('ReshapeViewTiledProgramFactory', [(32, 64), (2048, 64)], 2048)]),
    ('real/mochi_small_constpad_o0/ttnn.mlir:116', 1461120, [('MultiCoreTileInvariant', [(4096, 110)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:48', 1461120, [('SliceTileProgramFactory', [(4096, 64)], 20)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:49', 1461120, [('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 64), (2048, 64)], 0), ('ConcatProgramFactory', [(128, 110)], 0), ('TilizeWithValPaddingMultiCoreDefaultFactory', [(2048, 64), (2048, 64)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:51', 1461120, [('ConcatProgramFactory', [(4096, 110)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:54', 1461120, [('SliceTileProgramFactory', [(4096, 110)], 20)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:55', 1461120, [('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 96), (2048, 96)], 0), ('SliceRmProgramFactory', [(4096, 110)], 20), ('TilizeWithValPaddingMultiCoreDefaultFactory', [(2048, 96), (2048, 96)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:56', 1461120, [('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 96), (2048, 96)], 0), ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 96), (2048, 96)], 0), ('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 96), (2048, 96)], 0), ('ConcatProgramFactory', [(128, 110)], 0), ('TilizeWithValPaddingMultiCoreDefaultFactory', [(2048, 96), (2048, 96)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:60', 1461120, [('SliceTileProgramFactory', [(4096, 110)], 20)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:61', 1461120, [('UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory', [(2048, 96), (2048, 96)], 0), ('SliceRmProgramFactory', [(16384, 110)], 20), ('TilizeWithValPaddingMultiCoreDefaultFactory', [(2048, 96), (2048, 96)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:68', 1461120, [('MultiCoreBlockedGeneric', [(4096, 110), (4096, 110), (4096, 110)], 0), ('MultiCoreBlockedGeneric', [(4096, 110), (4096, 110), (4096, 110)], 0), ('MultiCoreBlockedGeneric', [(4096, 110), (4096, 110), (4096, 110)], 0), ('ConcatProgramFactory', [(128, 110)], 0), ('MultiCoreBlockedGeneric', [(4096, 110), (4096, 110), (4096, 110)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:74', 1461120, [('MultiCoreTiledGeneric', [(4160, 110), (4160, 110), (4160, 110), (32, 110)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:78', 1461120, []),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:92', 1461120, [('MultiCoreTileRowInvariant', [(4096, 110), (32, 110), (4096, 110)], 0)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:94', 1461120, []),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:117', 1461120, []),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:121', 1461120, [('ReshapeViewTiledProgramFactory', [(32, 64), (2048, 64)], 2048)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:128', 1461120, [('ReshapeViewTiledProgramFactory', [(32, 64), (2048, 64)], 2048)]),
    ('real/mochi_small_edgepad_o0/ttnn.mlir:133', 1461120, [('MultiCoreTileInvariant', [(4096, 110)], 0)]),
    ('real/transformer_ffn_o0/ttnn.mlir:64', 1461120, []),
    ('real/transformer_ffn_o0/ttnn.mlir:71', 1461120, []),
    ('real/transformer_ffn_o0/ttnn.mlir:76', 1461120, []),
    ('real/transformer_ffn_o0/ttnn.mlir:86', 1461120, []),
    ('real/transformer_ffn_o0/ttnn.mlir:90', 1461120, []),
    ('real/transformer_ffn_o0/ttnn.mlir:100', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:64', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:71', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:76', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:86', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:90', 1461120, []),
    ('real/transformer_ffn_o1/ttnn.mlir:100', 1461120, []),
    ('real/transformer_ffn_o2/ttnn.mlir:75', 1461120, []),
    ('real/transformer_ffn_o2/ttnn.mlir:84', 1461120, []),
    ('real/transformer_ffn_o2/ttnn.mlir:91', 1454976, []),
    ('real/transformer_ffn_o2/ttnn.mlir:107', 1452928, []),
    ('real/transformer_ffn_o2/ttnn.mlir:113', 1452928, []),
    ('real/transformer_ffn_o2/ttnn.mlir:127', 1454976, []),
    ('seeds/mochi_conv1_norm2_reshape_wh.mlir:14', 1461120, [('MultiCoreTileInvariant', [(4096, 110)], 0)]),
    ('seeds/mochi_conv1_norm2_reshape_wh.mlir:15', 1461120, [('ReshapeViewTiledProgramFactory', [(3584, 110), (2048, 110)], 2048)]),
    ('seeds/mochi_replicate_pad_untilize_wh.mlir:18', 1461120, [('MultiCoreTileInvariant', [(4096, 110)], 0)]),
    ('seeds/mochi_replicate_pad_untilize_wh.mlir:19', 1461120, [('ReshapeViewTiledProgramFactory', [(640, 110), (2048, 110)], 2048)]),
]


@pytest.mark.parametrize("key,free_l1,expected", MEASURED, ids=[m[0] for m in MEASURED])
def test_fixture_ops_match_the_mock(key, free_l1, expected):
    path, line = key.rsplit(":", 1)
    a = analyze_path(FIXTURES / path)
    op = next(o for o in a.program.ops if o.pos.line == int(line) and o.name in dm.DATA_MOVEMENT_OPS)
    verdict = program_of(a, op, arch=MOCK, free_l1=free_l1)
    got = [(p.factory.split("::")[-1], [(c.bytes, c.cores.num_cores) for c in p.cbs], p.extra_l1_per_core)
           for p in verdict.stages]
    assert got == [tuple(e) for e in expected]
    # a view runs no program (measured: none in the capture)
    assert verdict.status == ("modeled" if expected else "not_device")


# Unmodeled on purpose, with the reason the analysis reports (measured on the mock P150, ttnn 0.81.1):
# the embedding of 9,768,960-B rows (rows over 1 MiB are out of the model's scope) and the row-major
# reshape back to [6, 1, 768, 60, 106], which tt-metal refuses (reshape_rm_program_factory.cpp:69).
UNMODELED_ON_PURPOSE = {("mochi_replicate_pad_gather_wh.mlir", 50), ("mochi_replicate_pad_gather_wh.mlir", 53)}


def test_fixture_ops_are_all_modeled_in_the_analysis():
    for path in sorted((FIXTURES / "real").glob("*/ttnn.mlir")) + sorted((FIXTURES / "seeds").glob("*.mlir")):
        a = analyze_path(path)
        for op in a.program.ops:
            if op.name in dm.DATA_MOVEMENT_OPS and (path.name, op.pos.line) not in UNMODELED_ON_PURPOSE:
                assert a.programs[op.index].status in ("modeled", "not_device"), (path, op.pos.line, a.programs[op.index].reason)


def _faced(h, w):
    th, tw = h % 32, w % 32
    return ((th // 16) * 2 + tw // 16) * 256 + (th % 16) * 16 + tw % 16


def _segments_one_by_one(a, b):
    """reshape_map_output_page walked element by element (the C++ loop), for small shapes."""
    (_, h1, w1), (c2, h2, w2) = a, b
    iw, ih, ow, oh = -(-w1 // 32), -(-h1 // 32), -(-w2 // 32), -(-h2 // 32)
    best = 0
    for page in range(c2 * oh * ow):
        co, hw = divmod(page, oh * ow)
        ho0, wo0 = (hw // ow) * 32, (hw % ow) * 32
        segs, prev = {}, None
        for ho in range(ho0, ho0 + min(h2 - ho0, 32)):
            for wo in range(wo0, wo0 + min(w2 - wo0, 32)):
                ci, rem = divmod(co * h2 * w2 + ho * w2 + wo, h1 * w1)
                hi, wi = divmod(rem, w1)
                cur = (ci * ih * iw + (hi // 32) * iw + wi // 32, _faced(hi, wi), _faced(ho, wo))
                if prev and cur[0] == prev[0] and cur[1] - prev[1] == 1 and cur[2] - prev[2] == 1:
                    segs[cur[0]][-1] += 1
                else:
                    segs.setdefault(cur[0], []).append(1)
                prev = cur
        best = max(best, max(len(v) for v in segs.values()) * len(segs))
    return best + best % 16


@pytest.mark.parametrize("a,b", [((1, 8, 128), (8, 128, 1)), ((2, 16, 16), (1, 16, 32)), ((3, 5, 7), (1, 5, 21)),
                                 ((1, 33, 48), (2, 33, 24)), ((4, 17, 32), (1, 68, 32)), ((6, 16, 33), (2, 99, 16)),
                                 ((1, 1, 1024), (32, 32, 1)), ((5, 7, 64), (1, 35, 64)),
                                 # shapes whose output tiles fall into classes by input tile row / column
                                 ((2, 40, 200), (1, 80, 200)), ((1, 64, 300), (1, 300, 64)), ((3, 33, 130), (1, 99, 130)),
                                 ((1, 96, 257), (2, 48, 257)), ((4, 20, 64), (1, 40, 128)), ((1, 64, 520), (1, 65, 512)),
                                 ((3, 48, 40), (2, 36, 80)), ((1, 256, 96), (4, 64, 96)), ((2, 48, 16), (1, 96, 16))])
def test_reshape_map_segments_against_an_element_walk(a, b):
    assert dm.reshape_map_segments(a, b) == _segments_one_by_one(a, b)


def test_reshape_map_segments_of_a_67m_column():
    # tt-mlir test/ttmlir/Dialect/TTNN/memory_management.mlir: [67108864, 1] f32 tile -> [8192, 8192] (3D
    # [1, 67108864, 1] -> [1, 8192, 8192]; 65,536 output tiles).  Every element of an output tile is its own
    # input row (W = 1), so each of its 32 x 32 elements is one segment; the 32 elements of an output row are 32
    # consecutive input rows of one input tile (rows 32-aligned), so 32 input tiles of 32 segments: 32 x 32 =
    # 1,024 (+ 1,024 % 16 = 0) segments = 16,384 B.  All 65,536 output tiles are one class (shifts by input
    # tile rows), so this takes milliseconds; it walked 67 million elements before.
    assert dm.reshape_map_segments((1, 67108864, 1), (1, 8192, 8192)) == 1024
    # and back: an output tile is 32 rows of 1 element, 32 consecutive elements of one input tile row; the
    # output's faced offset steps by 16 from row to row, so each element is a segment: 32 of one input tile
    assert dm.reshape_map_segments((1, 8192, 8192), (1, 67108864, 1)) == 32


def test_pad_of_a_leading_dim_goes_through_a_4d_view():
    # rank 5, padding (0, 2) on dim 0: padded as axis 1 of the 4D view [1, 3 x 5, 16, 30] scaled by 3 x 5:
    # fill + pad, then the remaining (dims 2 and 4) fill + pad; u32 tiles 4,096 B
    # (measured: random_cases_11.json rand11/24, all four programs).
    got = progs("ttnn.pad", [T([1, 3, 5, 16, 30], dtype="u32", buffer="l1")],
                T([3, 3, 7, 16, 62], dtype="u32", buffer="l1"), pad_attrs([0, 2, 0, 0, 0, 2, 0, 0, 0, 32]))
    assert [(n, [b for b, _ in cbs], s) for n, cbs, s in got] == [
        ("FillPadProgramFactory", [8192, 4096, 4096, 8192], 0), ("PadTileMulticoreProgramFactory", [8192], 4096),
        ("FillPadProgramFactory", [8192, 4096, 4096, 8192], 0), ("PadTileMulticoreProgramFactory", [8192], 4096)]


def test_rank1_row_major_concat():
    # [5] + [32] bf16: 10 B rows are not 64 B aligned: unsqueezed to [1, W] and concatenated on the last dim
    # between WH transposes (measured: random_cases_7.json rand7/25).  [16] + [16] bf16 in L1 (32 B rows, 16 B
    # aligned) concatenate directly: one output row of 32 x 2 = 64 B, 2 pages = 128 B on 1 core (rand11/81).
    names = [p[0] for p in progs("ttnn.concat", [T([5], "row_major"), T([32], "row_major")], T([37], "row_major"),
                                 "dim = 0 : si32")]
    assert names == ["MultiCoreBlockedGeneric"] * 2 + ["ConcatProgramFactory", "MultiCoreBlockedGeneric"]
    assert progs("ttnn.concat", [T([16], "row_major", buffer="l1"), T([16], "row_major", buffer="l1")],
                 T([32], "row_major", buffer="l1"), "dim = 0 : si32") == [("ConcatProgramFactory", [(128, 1)], 0)]


def test_repeat_native_row_major_and_round_trip():
    rd = "repeat_dims = #ttnn.shape<{}>"
    # Rank 5 row-major: LastDim for W (6 B rows, 2 B aligned: 2 x (128 + 8 x 6) = 352), then HigherDim for dim 3
    # on the 12 B rows (2 x (128 + 12) = 280), no CBs (measured: random_cases_7.json rand7/43).
    assert progs("ttnn.repeat", [T([5, 2, 1, 1, 3], "row_major")], T([5, 2, 1, 3, 6], "row_major"),
                 rd.format("1x1x1x3x2")) == [("RepeatProgramFactoryLastDim", [], 352),
                                             ("RepeatProgramFactoryHigherDim", [], 280)]
    # f32 [5, 3, 5] tile repeated on its partial-tile dims: untilize (f32: untilize_with_unpadding), three
    # row-major legs, last dim first: 8 slots of max(align16(20 B in), align16(40 B out)) = 48 B = 384 B, then
    # 8 x 48 for the 40 B rows of the other two legs; then tilize back (measured: random_cases_7.json rand7/4).
    got = progs("ttnn.repeat", [T([5, 3, 5], dtype="f32", buffer="l1")], T([10, 9, 10], dtype="f32", buffer="l1"),
                rd.format("2x3x2"))
    assert [(n, [b for b, _ in cbs]) for n, cbs, _ in got] == [
        ("UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory", [4096, 4096]),
        ("RepeatCodegenProgramFactory", [384]), ("RepeatCodegenProgramFactory", [384]),
        ("RepeatCodegenProgramFactory", [384]), ("TilizeWithValPaddingMultiCoreDefaultFactory", [4096, 4096])]


# ---------------------------------------------------------------------------
# Classes the op-level campaign found (measurements/opdiff/results.jsonl.gz, by instance id)
# ---------------------------------------------------------------------------


def test_bfp8_permute_runs_on_bf16_between_two_typecasts():
    # g1/ttnn.permute/7: [2, 8, 458, 6358] bfloat8_b, dims [1, 3, 0, 2] (not WH/CN/CN+WH): typecast to bf16
    # (TypecastProgramFactory, 2 x 1,088 + 2 x 2,048 B), the bf16 permute (MultiCoreTileRowInvariant: 2,048 x 2
    # in, 32 B, 2,048 x 2 out), typecast back (2 x 2,048 + 2 x 1,088 B); all on the 110 cores (measured).
    shape = [2, 8, 458, 6358]
    got = progs("ttnn.permute", [T(shape, dtype="bfp_bf8")], T([8, 6358, 2, 458], dtype="bfp_bf8"),
                "permutation = array<i64: 1, 3, 0, 2>")
    assert got == [("TypecastProgramFactory", [(2176, 110), (4096, 110)], 0),
                   ("MultiCoreTileRowInvariant", [(4096, 110), (32, 110), (4096, 110)], 0),
                   ("TypecastProgramFactory", [(4096, 110), (2176, 110)], 0)]


def test_bfp8_wh_transpose_needs_no_typecast():
    # transpose.cpp: WH and CN are bfloat8_supported; the bfp8 tiles go straight to TransposeDeviceOperation:
    # 2 x 3 tiles on 6 cores, 2 x 1,088 B in and out
    got = progs("ttnn.transpose", [T([64, 96], dtype="bfp_bf8")], T([96, 64], dtype="bfp_bf8"),
                "dim0 = 0 : si32, dim1 = 1 : si32")
    assert got == [("TransposeWHProgramFactory", [(2176, 6), (2176, 6)], 0)]


def test_bfp8_reshape_runs_on_bf16_and_fills_the_padding():
    # reshape.cpp reshape_tiled: typecast to bf16, ReshapeViewTiled on bf16, fill_implicit_tile_padding (the
    # requested [1, 1, 8] pads its last two dims), typecast back.  [4, 2] -> [1, 8]: 1 output tile, 1 core.
    got = progs("ttnn.reshape", [T([4, 2], dtype="bfp_bf8")], T([1, 8], dtype="bfp_bf8"), f"shape = {ints([1, 8])}")
    # Measured on the same shapes height-sharded on one core (g1/ttnn.reshape/0, the same four programs): the
    # typecasts 2 x 1,088 + 2 x 2,048 B; the mapping row 8 segments x 16 B = 128 B, one bf16 tile in, one of
    # scratch; FillPad 2 + 1 + 1 + 2 bf16 tiles (right and bottom masks).
    assert got == [("TypecastProgramFactory", [(2176, 1), (4096, 1)], 0),
                   ("ReshapeViewTiledProgramFactory", [(128, 1), (2048, 1)], 2048),
                   ("FillPadProgramFactory", [(4096, 1), (2048, 1), (2048, 1), (4096, 1)], 0),
                   ("TypecastProgramFactory", [(4096, 1), (2176, 1)], 0)]


def test_embedding_of_a_tile_weight_untilizes_it_first():
    # g1/ttnn.embedding/5: indices [1, 19] u32, weight [100, 100] bf16 TILE: to_layout(weight, ROW_MAJOR) =
    # untilize_with_unpadding [128, 128] -> [100, 100] on 4 cores (one tile row each: 2 x 4 tiles x 2,048 B =
    # 8,192 B in and out), then EmbeddingsRM: 19 rows on 19 cores, one 200-B row aligned to the DRAM indices'
    # 64 B = 256 B, scratch (64 / 4) x 32 = 512 B (measured, both programs).
    got = progs("ttnn.embedding", [T([1, 19], "row_major", "u32"), T([100, 100])], T([1, 19, 100], "row_major"))
    assert got == [("UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory", [(8192, 4), (8192, 4)], 0),
                   ("EmbeddingsRMProgramFactory", [(256, 19)], 512)]


def test_bfp8_rank1_concat_untilizes_to_bf16_and_retilizes_bf16():
    # g1/ttnn.concat/3: four rank-1 bfloat8_b inputs: untilize_with_unpadding each (bfp8 -> bf16 row major),
    # the row-major concat (through [1, W] views and transposes), then tilize_with_val_padding without a
    # dtype: the result stays bf16, so the last program's output DFB holds bf16 tiles like its input
    # (measured: 516,096 B = 252 tiles x 2,048 B both; 167,936 B both on the cliff core).
    ins = [T([n], dtype="bfp_bf8") for n in (848244, 96, 848244, 63963)]
    got = progs("ttnn.concat", ins, T([1760547], dtype="bfp_bf8"), "dim = 0 : si32")
    assert got[-1][0] == "TilizeWithValPaddingMultiCoreBlockInterleavedFactory"
    assert [b for b, _ in got[-1][1]] == [516096, 516096, 167936, 167936]


def test_full_slice_of_a_sharded_tensor_runs_nothing():
    # slice.cpp's no-op check comes before any sharded handling: to_memory_config to the same config
    # (measured: g1/ttnn.slice_static/5, a width-sharded [2, 1, 7, 61, 10] full slice runs no program)
    from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
    crs = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(0, 0)),))
    x = T([2, 1, 7, 61, 10], buffer="l1", mem="width_sharded", grid=(1, 1), cores=crs)
    assert progs("ttnn.slice_static", [x], x, f"begins = {ints([0] * 5)}, ends = {ints([2, 1, 7, 61, 10])}, "
                 f"step = {ints([1] * 5)}") == []


def _hs(cores, grid):
    from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
    return CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in cores)), grid


def test_bfp8_last_dim_concat_in_dram_runs_between_transposes():
    # g1/ttnn.concat/53: bfloat8_b [4, 4, 544, 32] + [4, 4, 544, 576] in DRAM along the last dim: Tensor::element_size
    # is 1 B, so a padded width of 32 is 32 B, not a multiple of DRAM's 64-B alignment: build_non_aligned_last_dim_concat
    # transposes both (TransposeWH, 2 x 1,088 B in and out), concats along dim -2 (one 1,088-B tile, 2 entries),
    # transposes back; all on the 110 cores (measured, every DFB).
    ins = [T([4, 4, 544, 32], dtype="bfp_bf8"), T([4, 4, 544, 576], dtype="bfp_bf8")]
    got = progs("ttnn.concat", ins, T([4, 4, 544, 608], dtype="bfp_bf8"), "dim = 3 : si32")
    assert got == [("TransposeWHProgramFactory", [(2176, 110), (2176, 110)], 0),
                   ("TransposeWHProgramFactory", [(2176, 110), (2176, 110)], 0),
                   ("ConcatProgramFactory", [(2176, 110)], 0),
                   ("TransposeWHProgramFactory", [(2176, 110), (2176, 110)], 0)]


def test_slice_of_sharded_tile_inputs():
    # g1/ttnn.slice_static/33: si32 [241, 172] height sharded on 4 cores, begins [0, 96] tile-aligned: SliceTile reads
    # the shards through its TensorAccessor, the same program as for an interleaved input: 8,192 B DFB, 8 B scratch
    # on 24 cores.  g1/ttnn.slice_static/9: f32 [1, 94, 245] height sharded on 3 cores, begin 33 on W: untilize into
    # the requested DRAM config (UntilizeWithUnpaddingMultiCoreSharded: its own 65,536-B output DFB per shard
    # core), SliceRm (8,192 B on 32 cores, 12 B scratch), tilize back (8,192 B x 2 on one core).  Measured.
    crs, grid = _hs([(0, 0, 3, 0)], (4, 1))
    x = T([241, 172], dtype="si32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    assert progs("ttnn.slice_static", [x], T([241, 76], dtype="si32"),
                 f"begins = {ints([0, 96])}, ends = {ints([241, 172])}, step = {ints([1, 1])}") == [
        ("SliceTileProgramFactory", [(8192, 24)], 8)]
    crs, grid = _hs([(0, 0, 2, 0)], (3, 1))
    x = T([1, 94, 245], dtype="f32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.slice_static", [x], T([1, 32, 56], dtype="f32"),
                f"begins = {ints([0, 0, 33])}, ends = {ints([1, 32, 89])}, step = {ints([1, 1, 1])}")
    # (the untilize's 32,768-B input DFB is bound to the shard: no L1 of its own, not in the capture)
    assert got == [
        ("UntilizeWithUnpaddingMultiCoreShardedProgramFactory", [(32768, 3), (65536, 3)], 0),
        ("SliceRmProgramFactory", [(8192, 32)], 12),
        ("TilizeWithValPaddingMultiCoreDefaultFactory", [(8192, 1), (8192, 1)], 0)]


def test_slice_of_a_sharded_row_major_input_with_odd_rows_hops_through_l1_interleaved():
    # g1/ttnn.slice_static/8: si32 [1, 4, 4] row major height sharded on 2 cores (H, W not tile multiples):
    # needs_rm_composite_input -> sharded_to_interleaved into L1 (input DFB bound to the shard), SliceRm there
    # (2 rows of 16 B -> 1,024-B DFB, 12 B scratch, on 2 cores), then the copy into DRAM (128 + 8 B).  Measured.
    crs, grid = _hs([(0, 0, 0, 1)], (2, 1))
    x = T([1, 4, 4], "row_major", "si32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.slice_static", [x], T([1, 2, 2], "row_major", "si32"),
                f"begins = {ints([0, 1, 0])}, ends = {ints([1, 3, 2])}, step = {ints([1, 1, 1])}")
    assert [f for f, _, _ in got] == ["ShardedToInterleavedProgramFactory", "SliceRmProgramFactory",
                                      "DefaultRowMajor"]
    assert got[1][1:] == ([(1024, 2)], 12) and got[2][2] == 8 and [b for b, _ in got[2][1]] == [128]


def test_transpose_of_a_sharded_tile_input_into_dram_runs_the_interleaved_factories():
    # g1/ttnn.transpose/28: bf16 [1099, 3] height sharded on 12 cores, WH into DRAM: TransposeWHProgramFactory,
    # 35 tiles on 35 cores, 2 x 2,048 B in and out.  g1/ttnn.transpose/13: f32 [2, 2, 11, 6, 22] height sharded,
    # dims 1 and 2 (rank 5: a permute): MultiCoreTileInvariant, 44 tiles, 2 x 4,096 B.  Measured.
    crs, grid = _hs([(0, 0, 10, 0), (0, 1, 0, 1)], (12, 1))
    x = T([1099, 3], buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    assert progs("ttnn.transpose", [x], T([3, 1099]), "dim0 = -2 : si32, dim1 = -1 : si32") == [
        ("TransposeWHProgramFactory", [(4096, 35), (4096, 35)], 0)]
    crs, grid = _hs([(0, 0, 7, 0)], (8, 1))
    x = T([2, 2, 11, 6, 22], dtype="f32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    assert progs("ttnn.transpose", [x], T([2, 11, 2, 6, 22], dtype="f32"), "dim0 = 1 : si32, dim1 = 2 : si32") == [
        ("MultiCoreTileInvariant", [(8192, 44)], 0)]


def test_rank1_repeat_interleave_unsqueezes_and_reshapes_back():
    # g1/ttnn.repeat_interleave/11: f32 [202] x2: reshape [202] -> [202, 1] (ReshapeViewTiled: mapping 512 B, one
    # 4,096-B tile, 4,096 B scratch, 7 cores), untilize, the row-major concat (128 B), tilize, reshape [404, 1] ->
    # [404] (13 cores); measured, every DFB.
    got = progs("ttnn.repeat_interleave", [T([202], dtype="f32")], T([404], dtype="f32"),
                "repeats = 2 : ui32, dim = 0 : si32")
    assert [f for f, _, _ in got] == ["ReshapeViewTiledProgramFactory", "UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory",
                                      "ConcatProgramFactory", "TilizeWithValPaddingMultiCoreDefaultFactory",
                                      "ReshapeViewTiledProgramFactory"]
    assert got[0] == ("ReshapeViewTiledProgramFactory", [(512, 7), (4096, 7)], 4096)
    assert got[-1] == ("ReshapeViewTiledProgramFactory", [(512, 13), (4096, 13)], 4096)


def test_pad_of_an_l1_sharded_row_major_input_into_dram_runs_the_default_factory():
    # g1/ttnn.pad/28: f32 [1, 1, 15855, 96] row major, height sharded on 80 cores, padded (2, 2) on H and (0, 64)
    # on W into DRAM: the sharded factories need a height-sharded output, so PadRmReaderWriterMultiCoreDefault runs
    # as for an interleaved input: 40,960-B DFB and 640-B scratch on all 110 cores (measured).
    cores = [(0, 0, 10, 6), (0, 7, 2, 7)]
    crs, grid = _hs(cores, (80, 1))
    x = T([1, 1, 15855, 96], "row_major", "f32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.pad", [x], T([1, 1, 15859, 160], "row_major", "f32"),
                "padding = array<i32: 0, 0, 0, 0, 2, 2, 0, 64>, value = 0.000000e+00 : f32, use_multicore = true")
    assert got == [("PadRmReaderWriterMultiCoreDefaultProgramFactory", [(40960, 110)], 640)]


def test_sharded_cw_transpose_is_a_chain_of_transposes():
    # g1/ttnn.transpose/26: bf16 [4, 1504, 768] height sharded on 38 cores, dims 0 and 2 (CW of the 4D view):
    # transpose.cpp sends CW to ttnn::permute, whose sharded branch runs WH, HC, WH (the interleaved factories:
    # 2 x 2,048 B in/out; HC 2 x 2,048 B and a 512-B face for C = 4) on all 110 cores (measured).
    crs, grid = _hs([(0, 0, 10, 2), (0, 3, 4, 3)], (38, 1))
    x = T([4, 1504, 768], buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.transpose", [x], T([768, 1504, 4]), "dim0 = 0 : si32, dim1 = 2 : si32")
    assert got == [("TransposeWHProgramFactory", [(4096, 110), (4096, 110)], 0),
                   ("TransposeHCTiledInterleavedProgramFactory", [(4096, 110), (512, 110)], 0),
                   ("TransposeWHProgramFactory", [(4096, 110), (4096, 110)], 0)]


def test_slice_of_a_batched_width_sharded_tile_input_is_refused():
    # g1/ttnn.slice_static/78: bf16 [4, 1, 1, 2] TILE width sharded on one core, unaligned begin: the untilize into
    # DRAM of a width-sharded input must be unbatched (4 matrices here): TT_FATAL "Can only write unbatched
    # output interleaved" (measured)
    crs, grid = _hs([(0, 0, 0, 0)], (1, 1))
    x = T([4, 1, 1, 2], buffer="l1", mem="width_sharded", grid=grid, cores=crs)
    c = ctx_of("ttnn.slice_static", [x], T([2, 1, 1, 1]),
               f"begins = {ints([1, 0, 0, 1])}, ends = {ints([3, 1, 1, 2])}, step = {ints([1, 1, 1, 1])}")
    from ttanalyze.ops.cb import DeviceRejection
    with pytest.raises(DeviceRejection, match="unbatched"):
        dm.device_programs(c)


def test_row_major_sharded_to_interleaved_with_an_unaligned_shard_row_is_a_copy():
    # g1/ttnn.slice_static/112: si32 [2, 320, 1215] row major height sharded (26 cores), a slice of H: the hop to L1
    # interleaved cannot be sharded_to_interleaved (4,860-B shard rows are not 16-B aligned: validate_inputs), so
    # to_memory_config copies (DefaultRowMajor: 2 x 4,864 B output pages, a 4,860-B input scratch, 110 cores).
    crs, grid = _hs([(0, 0, 10, 1), (0, 2, 3, 2)], (26, 1))
    x = T([2, 320, 1215], "row_major", "si32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.slice_static", [x], T([1, 38, 1215], "row_major", "si32"),
                f"begins = {ints([0, 247, 0])}, ends = {ints([1, 285, 1215])}, step = {ints([1, 1, 1])}")
    assert got[0] == ("DefaultRowMajor", [(9728, 110)], 4860)
    assert [f for f, _, _ in got] == ["DefaultRowMajor", "SliceRmProgramFactory", "DefaultRowMajor"]


def test_sharded_wh_transpose_with_whole_matrices_per_shard_borrows_both_dfbs():
    # g1/ttnn.transpose/8: bfloat8_b [2, 2] height sharded on one core into the same config: whole matrices per
    # shard on both sides, so TransposeWHShardedProgramFactory binds both DFBs to the shards (1 tile each):
    # no L1 of its own (measured: no own DFB)
    crs, grid = _hs([(0, 0, 0, 0)], (1, 1))
    x = T([2, 2], dtype="bfp_bf8", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    steps = dm.device_programs(ctx_of("ttnn.transpose", [x], x, "dim0 = 0 : si32, dim1 = 1 : si32"))
    assert [s.factory for s in steps] == ["TransposeWHShardedProgramFactory"]
    assert [(c.bytes, c.globally_allocated) for c in steps[0].cbs] == [(1088, True), (1088, True)]
    assert steps[0].per_core_bytes() == 0


def test_row_major_sharded_reshape_unshards_first():
    # reshape.cpp perform_reshape_on_2D_RM: ttnn::sharded_to_interleaved into L1 first (its DFB bound to the shard),
    # then ReshapeViewRM.  g1/ttnn.reshape/140: si32 [1548] on one core -> [1, 258, 6]: scratch 12,544 + 640 B
    # (measured).  g1/ttnn.reshape/58: si32 [198] -> [6, 33]: a 792-B shard row is not 16-B aligned, and
    # sharded_to_interleaved's validate refuses it (measured: TT_FATAL 'Shard page size must be aligned to 16B').
    crs, grid = _hs([(0, 0, 0, 0)], (1, 1))
    x = T([1548], "row_major", "si32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    got = progs("ttnn.reshape", [x], T([1, 258, 6], "row_major", "si32"), f"shape = {ints([1, 258, 6])}")
    assert [f for f, _, _ in got] == ["ShardedToInterleavedProgramFactory", "ReshapeViewRMProgramFactory"]
    assert got[1][2] == 12544 + 640
    x = T([198], "row_major", "si32", buffer="l1", mem="height_sharded", grid=grid, cores=crs)
    from ttanalyze.ops.cb import DeviceRejection
    with pytest.raises(DeviceRejection, match="aligned"):
        dm.device_programs(ctx_of("ttnn.reshape", [x], T([6, 33], "row_major", "si32"), f"shape = {ints([6, 33])}"))
