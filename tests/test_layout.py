"""Layout math against numbers derived by hand from tt-metal's and tt-mlir's rules,
and against figures measured on a mock Blackhole P150 with ttnn 0.81.1 (tt-metal
d80d9482) per ORACLE.md §2 (``tensor.padded_shape``, ``buffer_num_pages()``,
``buffer_page_size()`` of tensors created with ``ttnn.empty``).

Rules used in the derivations:
* tt-metal TensorLayout::compute_padded_shape: a TILE tensor pads only its last
  two dims to 32; a rank-1 tensor becomes [32, align(W, 32)].
* compute_physical_shape: H = prod(dims[:-2]) * padded dims[-2], W = padded dims[-1].
* tile bytes: bf16 2048, f32 4096, bfp8 1024 + 64 = 1088, bfp4 512 + 64 = 576.
* tt-mlir TTNNLayoutAttr::Builder: memref = whole 2D (DRAM interleaved), 1 x
  ceil(tiles / cores) (L1 interleaved), ceil(2D / grid) per dim (sharded).
"""

from __future__ import annotations

import pytest

from ttanalyze import layout as L
from ttanalyze.arch import DEFAULTS
from ttanalyze.ir.attr_grammar import parse_attr_text
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet, DataType, TileType, TTNNLayout
from ttanalyze.ir.model import TensorType

from .conftest import FIXTURES, analyze_path

WH = DEFAULTS["wormhole_b0"]
BH = DEFAULTS["blackhole"]


def tensor(shape, dtype="bf16", tiled=True, buffer="dram", mem="interleaved", grid=(1, 1), memref=None, linear=None,
           core_ranges=None):
    """A TensorType whose encoding is built like tt-mlir builds it (canonical map)."""
    rank = len(shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    if linear is None:
        if rank == 1:
            linear = f"({dims}) -> (0, d0)"
        else:
            padded = L.tile_padded_shape(shape) if tiled else shape
            terms = []
            for i in range(rank - 1):
                stride = 1
                for p in padded[i + 1:rank - 1]:
                    stride *= p
                terms.append(f"d{i} * {stride}")
            linear = f"({dims}) -> ({' + '.join(terms)}, d{rank - 1})"
    element = TileType(32, 32, DataType(dtype)) if tiled else DataType(dtype)
    lay = TTNNLayout(parse_attr_text(linear), grid, tuple(memref or ()), element, buffer, mem, core_ranges)
    probe = TensorType(tuple(shape), DataType("bf16"), lay)
    if memref is None:  # fill in the memref tt-mlir would write
        info = L.analyze(probe, WH if buffer != "l1" or grid != (10, 11) else BH)
        lay = TTNNLayout(lay.linear, grid, info.expected_memref, element, buffer, mem, core_ranges)
    return TensorType(tuple(shape), DataType("bf16"), lay)


def test_seed000_input_after_tilize():
    # 1x768x4x60x106 bf16 TILE: padded 1x768x4x64x128 (60->64, 106->128).
    # physical 2D: 1*768*4*64 = 196,608 rows x 128 cols = 6,144 x 4 tiles = 24,576 tiles
    # (measured: padded_shape [1, 768, 4, 64, 128], buffer_num_pages() 24,576 of 2,048 B).
    # The seed (§3.2, §8.1) claims [184320, 128] = 23,592,960 elements / 23,040 tiles: wrong,
    # compute_physical_shape pads dim -2 (60 -> 64) before multiplying the outer dims.
    info = L.analyze(tensor((1, 768, 4, 60, 106)), WH)
    assert info.padded_shape == (1, 768, 4, 64, 128)
    assert info.physical_2d == (196_608, 128)
    assert info.tile_grid == (6_144, 4)
    assert info.physical_tiles == 24_576
    assert info.physical_bytes == 24_576 * 2048 == 50_331_648
    # logical: 768*4*60*106 = 19,537,920 elements = 19,080 tiles of data
    assert info.logical_volume == 19_537_920
    assert info.logical_tiles == 19_080
    assert info.waste_tiles == 24_576 - 19_080 == 5_496
    # padding: 1 - 19,537,920 / 25,165,824 = 22.36 %
    assert info.padding_pct == pytest.approx(22.36, abs=0.01)
    # strides of the collapsed map over the padded shape: d0 = 768*4*64, d1 = 4*64, d2 = 64, d3 = 1
    assert [s.value for s in info.strides] == [196_608, 256, 64, 1, 1]
    assert [s.expected for s in info.strides] == [196_608, 256, 64, 1, 1]
    assert info.expected_memref == (6_144, 4)
    # DRAM interleaved on Wormhole: 24,576 pages over 12 banks = 2,048 pages x 2,048 B per bank
    assert info.placement.bytes_per_bank == 2_048 * 2_048 == 4_194_304
    assert info.problems == ()


def test_seed000_permuted_strides_are_contiguous():
    # permute [0, 2, 1, 3, 4] -> 1x4x768x60x106, padded 1x4x768x64x128.
    # d1 stride = 768 * 64 = 49,152 rows of the collapsed 2D (elements, i.e. 1,536 tile rows),
    # d0 = 4 * 768 * 64 = 196,608: exactly the products of the padded dims after them, so the
    # only gaps are the tile padding of 60 and 106. The seed's reading (§0.2, §3.3) that d1
    # "skips 49,152 tiles" and makes the layout non-contiguous is wrong.
    a = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    permuted = a.program.ops[1].results[0]
    info = a.infos[permuted]
    assert [s.value for s in info.strides] == [196_608, 49_152, 64, 1, 1]
    assert [s.expected for s in info.strides] == [196_608, 49_152, 64, 1, 1]
    assert info.strides[1].formula == "32*S2*ceiling(S3/32)"  # 768 * ceil(60/32)*32
    assert info.physical_tiles == 24_576 and info.problems == ()


def test_seed000_reshape_target():
    # 4x32x24x6360: padded 4x32x32x6368 (24 -> 32, 6360 -> 6368);
    # rows 4*32*32 = 4,096 -> 128 tiles; cols 6,368 -> 199 tiles; 128 * 199 = 25,472 tiles
    # (measured: padded_shape [4, 32, 32, 6368], 25,472 pages). The seed (§10.3) claims a
    # physical 2D of [3072, 6368] = 19,562,496 elements: wrong, 24 pads to 32.
    info = L.analyze(tensor((4, 32, 24, 6360)), WH)
    assert info.padded_shape == (4, 32, 32, 6368)
    assert info.physical_2d == (4_096, 6_368)
    assert info.tile_grid == (128, 199)
    assert info.physical_tiles == 25_472
    assert info.physical_volume == 26_083_328


def test_seed001_wide_reshape_output():
    # 4x4884480 bf16 TILE: padded 32x4884480 -> 1 x 152,640 tiles (measured: padded_shape
    # [32, 4884480], 152,640 pages); 152,640 * 2,048 = 312,606,720 B; 28 of every 32 rows
    # are padding: 87.5 %.
    info = L.analyze(tensor((4, 4_884_480)), WH)
    assert info.padded_shape == (32, 4_884_480)
    assert info.tile_grid == (1, 152_640)
    assert info.physical_bytes == 312_606_720
    assert info.padding_pct == pytest.approx(87.5)
    assert info.waste_tiles == 152_640 - 19_080


def test_row_major_has_no_padding_and_row_pages():
    # 4x4884480 bf16 ROW_MAJOR in DRAM: 4 pages (rows) of 4,884,480 * 2 = 9,768,960 B;
    # on 12 banks each bank holds ceil(4/12) = 1 page.
    info = L.analyze(tensor((4, 4_884_480), tiled=False), WH)
    assert info.padded_shape == (4, 4_884_480)
    assert info.physical_bytes == 4 * 9_768_960
    assert info.placement.pages == 4
    assert info.placement.page_bytes == 9_768_960
    assert info.placement.bytes_per_bank == 9_768_960
    assert info.expected_memref == (4, 4_884_480)


@pytest.mark.parametrize("dtype, tile_bytes", [("bfp_bf8", 1088), ("bfp_bf4", 576), ("f32", 4096), ("bf16", 2048), ("u8", 1024)])
def test_tile_bytes_per_dtype(dtype, tile_bytes):
    # 64x64 = 2x2 tiles. bfp8: 1024 mantissa bytes + 64 shared exponents = 1088 (measured
    # buffer_page_size() 1088); bfp4: 512 + 64 = 576 (measured 576).
    info = L.analyze(tensor((64, 64), dtype=dtype), WH)
    assert info.physical_tiles == 4
    assert info.physical_bytes == 4 * tile_bytes


def test_rank1_tile_tensor():
    # [256] bf16 TILE: tt-metal padded shape [32, 256]; tt-mlir map (d0) -> (0, d0), memref 1x8.
    info = L.analyze(tensor((256,)), WH)
    assert info.padded_shape == (32, 256)
    assert info.tile_grid == (1, 8)
    assert info.expected_memref == (1, 8)
    assert info.strides[0].result == 1 and info.strides[0].value == 1
    assert info.padding_pct == pytest.approx(100 * (1 - 256 / (32 * 256)))


def test_l1_interleaved_memref_is_tiles_over_cores():
    # 128x3072 bf16 on the 10x11 Blackhole grid: 4 x 96 = 384 tiles over 110 cores ->
    # 1 x ceil(384 / 110) = 1x4 (the real compiler wrote memref<1x4> in transformer_ffn_o2).
    info = L.analyze(tensor((128, 3072), buffer="l1", grid=(10, 11)), BH)
    assert info.expected_memref == (1, 4)
    # lockstep allocation: ceil(384 / 110) = 4 pages of 2,048 B in every one of the 110 banks
    assert info.placement.bytes_per_bank == 8_192
    assert info.placement.banks == 110


def test_block_sharded_memref_and_shard_bytes():
    # 128x3072 block sharded on a 4x10 grid: rows 128 / 4 = 32 -> 1 tile; cols
    # ceil(3072 / 10) = 308 -> ceil(308 / 32) = 10 tiles -> memref 1x10 (real: transformer_ffn_o2).
    crs = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(9, 3)),))
    info = L.analyze(tensor((128, 3072), buffer="l1", mem="block_sharded", grid=(4, 10), core_ranges=crs), BH)
    assert info.expected_memref == (1, 10)
    assert info.placement.bytes_per_bank == 10 * 2048
    assert info.placement.cores_with_data == 40


def test_l1_row_major_allocation_granule_matches_mock_device():
    # Measured on the mock P150 (ttnn 0.81.1): a [330, 100] bf16 ROW_MAJOR L1 interleaved
    # tensor takes 640 B per bank: pages are rows of 200 B, aligned to 16 B -> 208 B,
    # ceil(330 / 110) = 3 pages -> 624 B, and the allocator rounds every allocation up to the
    # DRAM alignment (64 B on Blackhole) -> 640 B. Exactly 2,283 such tensors fit in a
    # 1,461,120 B bank: floor(1,461,120 / 640) = 2,283.
    info = L.analyze(tensor((330, 100), tiled=False, buffer="l1", grid=(10, 11)), BH)
    assert info.placement.aligned_page_bytes == 208
    assert info.placement.bytes_per_bank == 640
    assert 1_461_120 // info.placement.bytes_per_bank == 2_283


def test_encoding_mismatch_detected_in_seed_mlp():
    # simple_mlp_wh.mlir writes #t_w1 (L1 interleaved, grid 1x1) with memref<8x4>, the DRAM
    # form. tt-mlir's L1-interleaved rule gives 1 x ceil(8*4 tiles / 1 core) = 1x32.
    a = analyze_path(FIXTURES / "seeds" / "simple_mlp_wh.mlir")
    w1 = a.program.ops[1].results[0]
    info = a.infos[w1]
    assert info.ir_memref == (8, 4)
    assert info.expected_memref == (1, 32)
    assert len(info.problems) == 1 and "memref 8x4" in info.problems[0]


def test_wrong_strides_are_problems():
    # A map that keeps the unpadded 60 in the stride of d1 (60 instead of 64).
    t = tensor((2, 60, 106), linear="(d0, d1, d2) -> (d0 * 60 + d1, d2)", memref=(4, 4))
    info = L.analyze(t, WH)
    assert info.strides[0].value == 60 and info.strides[0].expected == 64
    assert any("stride of d0 is 60" in p for p in info.problems)


def test_all_real_fixture_encodings_agree_with_tt_mlir_rules():
    # Every encoding the real compiler (jax-tt-plugin 0.1.3) wrote is reproduced exactly from
    # the logical shape: same memref, same strides, consistent grid and core ranges.
    for path in sorted((FIXTURES / "real").glob("*/ttnn.mlir")):
        a = analyze_path(path)
        bad = {v.name: i.problems for v, i in a.infos.items() if i.problems}
        assert bad == {}, path


@pytest.mark.parametrize("tiled", [True, False])
def test_stride_formulas_print_as_sympy_does(tiled):
    """The expected-stride formulas are written without sympy; they are sympy's printing of the products."""
    import sympy

    for rank in range(15):
        syms = [sympy.Symbol(f"S{i}", integer=True, positive=True) for i in range(rank)]
        padded = list(syms)
        if tiled and rank >= 2:
            padded[rank - 2] = sympy.ceiling(syms[rank - 2] / 32) * 32
        want = tuple(str(sympy.Mul(*padded[i + 1: rank - 1])) if i + 1 <= rank - 2 else "1" for i in range(rank))
        assert L._stride_formulas(rank, tiled) == want


@pytest.mark.parametrize("text", [
    "(d0, d1, d2) -> (d0 * 64 + d1, d2)",
    "(d0, d1) -> (0, d1)",
    "(d0, d1, d2) -> ((d0 + d1) * 2 - d1 * 2, -d2 + 3)",
    "(d0, d1)[s0] -> ((d0 * s0 + d1) floordiv 8, d1 mod 8)",
    "(d0, d1) -> (d0 * d1, (d1 * 32) floordiv 32)",
    "(d0, d1) -> (d0 - d0 + d1, 2 * (d0 + 1))",
])
def test_affine_map_coefficients_match_sympy(text):
    """A parsed map's linear coefficients, read off its expression trees, are sympy's (None where non-linear)."""
    m = parse_attr_text(text)
    for k, expr in enumerate(m.results):
        got = m.coefficients(k)
        coeffs: dict | None = {}
        for term, c in expr.as_coefficients_dict().items():
            if not c.is_Integer or not (term.is_Symbol or term.is_Number):
                coeffs = None
                break
            if term.is_Symbol:
                coeffs[str(term)] = int(c)
        if got is not None:  # None defers to sympy's derivative, exact either way
            assert got == coeffs, (text, k)
