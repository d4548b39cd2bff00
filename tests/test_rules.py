"""Each rule on the seed fixtures and on small hand-made programs, with hand-derived numbers."""

from __future__ import annotations

from ttanalyze.rules import catalog, implemented

from .conftest import DRAM_TILE, FIXTURES, analyze_path, analyze_text, findings_of, l1_overflow_module, wh_module



def test_catalog_and_implementations_match():
    assert sorted(catalog()) == implemented()
    for meta in catalog().values():
        assert meta.title and meta.explanation and meta.reference and meta.example


def test_tta001_reshape_volume():
    body = """
    %0 = "ttnn.reshape"(%arg0) <{shape = [7 : i32]}> : (tensor<2x3xbf16>) -> tensor<7xbf16>
    return %0 : tensor<7xbf16>"""
    a = analyze_text(wh_module("", body, "%arg0: tensor<2x3xbf16>", "tensor<7xbf16>"))
    [f] = findings_of(a, "TTA001")
    assert f.severity == "error"
    assert f.data["input_volume"] == 6 and f.data["target_volume"] == 7
    assert "Invalid arguments to reshape" in f.message
    assert findings_of(a, "TTA007") == []  # volume errors are TTA001's alone


def test_tta002_view_reshape_is_quiet_and_data_movement_is_reported():
    aliases = "#a = " + DRAM_TILE.format(r=1, c=2) + "\n#b = " + DRAM_TILE.format(r=1, c=2)
    body = """
    %0 = "ttnn.reshape"(%arg0) <{shape = [32 : i32, 64 : i32]}> : (tensor<1x32x64xbf16, #a>) -> tensor<32x64xbf16, #b>
    return %0 : tensor<32x64xbf16, #b>"""
    # last dim 64 unchanged and second-last 32 unchanged: tt-metal's this_is_view holds
    a = analyze_text(wh_module(aliases, body, "%arg0: tensor<1x32x64xbf16, #a>", "tensor<32x64xbf16, #b>"))
    assert findings_of(a, "TTA002") == []

    seed = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    [f] = findings_of(seed, "TTA002")
    # [60, 106] -> [24, 6360]: padded 1x4x768x64x128 = 24,576 tiles -> 4x32x32x6368 = 25,472 tiles;
    # bytes read 24,576 * 2,048 = 50,331,648, written 25,472 * 2,048 = 52,166,656
    assert f.pos.line == 15
    assert f.data["input_padded_shape"] == [1, 4, 768, 64, 128]
    assert f.data["output_padded_shape"] == [4, 32, 32, 6368]
    assert (f.data["input_tiles"], f.data["output_tiles"]) == (24_576, 25_472)
    assert (f.data["bytes_read"], f.data["bytes_written"]) == (50_331_648, 52_166_656)


def test_tta003_seed_patterns_with_their_waste():
    seed0 = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    by_line = {f.pos.line: f for f in findings_of(seed0, "TTA003")}
    # permute result 1x4x768x60x106: 24,576 physical tiles, 19,080 of data, 5,496 of padding
    assert by_line[14].data["waste_tiles"] == 5_496
    assert by_line[14].data["waste_bytes"] == 5_496 * 2_048
    # reshape result 4x32x24x6360: 25,472 tiles, 19,080 of data -> 6,392 tiles of padding (25.1 %)
    assert by_line[15].data["waste_tiles"] == 6_392
    assert round(by_line[15].data["padding_pct"], 1) == 25.1
    assert by_line[15].data["chain"] == ["ttnn.to_layout", "ttnn.permute", "ttnn.reshape"]

    seed1 = analyze_path(FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir")
    wide = next(f for f in findings_of(seed1, "TTA003") if f.data["value"] == "%2")
    # 4x4884480: 152,640 tiles hold 19,080 tiles of data: 133,560 tiles (87.5 %) of padding
    assert wide.data["waste_tiles"] == 133_560
    assert wide.data["padding_pct"] == 87.5


def test_tta003_small_tensor_is_quiet():
    # 32x10 pads to 32x32 (69 % padding) but that is 1 tile: under the 32-tile floor.
    aliases = "#a = " + DRAM_TILE.format(r=1, c=1)
    body = """
    %0 = "ttnn.permute"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<10x32xbf16, #a>) -> tensor<32x10xbf16, #a>
    return %0 : tensor<32x10xbf16, #a>"""
    a = analyze_text(wh_module(aliases, body, "%arg0: tensor<10x32xbf16, #a>", "tensor<32x10xbf16, #a>"))
    assert findings_of(a, "TTA003") == []


def test_tta004_l1_overflow_with_the_proof():
    # 4096x4096 bf16 = 128 x 128 = 16,384 tiles, L1 interleaved over the 64 Wormhole cores:
    # ceil(16,384 / 64) = 256 tiles * 2,048 B = 524,288 B in every bank. At the add, %0, %1 and
    # %2 are alive: 3 * 524,288 = 1,572,864 B per core > the bank of 1,499,136 - 103,712 -
    # 65,536 (L1_SMALL) = 1,329,888 B, over by 242,976 B. The program: conftest.l1_overflow_module.
    a = analyze_text(l1_overflow_module())
    [f] = findings_of(a, "TTA004")
    assert f.pos.line == a.program.ops[2].pos.line
    assert f.data["bytes_used"] == 1_572_864
    assert f.data["bytes_available"] == 1_329_888
    assert f.data["overflow_bytes"] == 242_976
    assert [t["value"] for t in f.data["live_tensors"]] == ["%0", "%1", "%2"]
    assert len(f.notes) == 3
    # %0 dies at its last use (the add): at the relu only %0 and %1 are alive (1,048,576 B)
    assert a.memory.points[1].l1_per_core == 1_048_576


def test_tta005_dram_overflow():
    # 65536x65536 bf16 = 2048 x 2048 = 4,194,304 tiles over 12 banks: ceil(/12) = 349,526
    # tiles * 2,048 = 715,829,248 B per bank; two alive = 1,431,658,496 B > tt-metal's DRAM bank,
    # dram_channel_size 1,073,741,824 - dram_unreserved_base 1,920,032 = 1,071,821,792 B.
    aliases = "#d = " + DRAM_TILE.format(r=2048, c=2048)
    t = "tensor<65536x65536xbf16, #d>"
    body = f"""
    %0 = "ttnn.relu"(%arg0) : ({t}) -> {t}
    return %0 : {t}"""
    a = analyze_text(wh_module(aliases, body, f"%arg0: {t}", t))
    [f] = findings_of(a, "TTA005")
    assert f.data["bytes_used"] == 2 * 715_829_248
    assert f.data["bytes_available"] == 1_071_821_792
    assert f.severity == "error" and f.data["certain"]


def test_tta006_memref_mismatch_in_seed_mlp():
    a = analyze_path(FIXTURES / "seeds" / "simple_mlp_wh.mlir")
    [f] = findings_of(a, "TTA006")
    assert f.pos.line == 22 and f.data["ir_memref"] == [8, 4] and f.data["expected_memref"] == [1, 32]


def test_tta007_result_types():
    body = """
    %0 = "ttnn.permute"(%arg0) <{permutation = array<i64: 0, 2, 1>}> : (tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16>
    %1 = "ttnn.matmul"(%arg0, %arg0) <{transpose_a = false, transpose_b = false}> : (tensor<2x3x4xbf16>, tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16>
    return %0 : tensor<2x3x4xbf16>"""
    a = analyze_text(wh_module("", body, "%arg0: tensor<2x3x4xbf16>", "tensor<2x3x4xbf16>"))
    f0, f1 = findings_of(a, "TTA007")
    assert f0.data["expected_shape"] == [2, 4, 3] and f0.data["declared_shape"] == [2, 3, 4]
    assert "K 4 != 3" in f1.message


def test_tta008_and_tta009_unmodeled():
    body = """
    %0 = "ttnn.frobnicate"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    %1 = "ttnn.relu"(%0) <{fancy = 1 : i32}> : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    return %1 : tensor<32x32xbf16>"""
    a = analyze_text(wh_module("", body, "%arg0: tensor<32x32xbf16>", "tensor<32x32xbf16>"))
    [f8] = findings_of(a, "TTA008")
    [f9] = findings_of(a, "TTA009")
    assert f8.severity == f9.severity == "info"
    assert "ttnn.frobnicate" in f8.message and f9.data["attribute"] == "fancy"
    assert a.shape_checks[0].status == "unmodeled"
