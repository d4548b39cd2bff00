"""Findings on every bundled fixture: the real compiler's programs and the seed failures.

The real programs (fixtures/real, jax-tt-plugin 0.1.3 on a mock Blackhole P150) ran on
the mock device, except the ``cb_overflow_*`` ones, whose circular buffers tt-metal
refused; the others' findings are performance and layout warnings, never errors.
Expected findings are derived below from tt-metal's reshape/padding rules.
"""

from __future__ import annotations

import pytest

from .conftest import FIXTURES, analyze_path, findings_of

EXPECTED = {
    # reshape 1x8x128 -> 1x8x128x1: the last dim goes 128 -> 1, so no view; tiles 1x32x128 = 4
    # -> 1x8x128x32 = 8 * 4 * 1 = 32 tiles.
    "attention_o0": {("TTA002", 55)},
    "attention_o1": {("TTA002", 55)},
    "attention_o2": {("TTA002", 63)},
    # permute 3x3x16x32 -> 32x16x3x3 puts the 3x3 kernel innermost: padded 32x16x32x32 = 512
    # tiles for 4,608 elements (4.5 tiles); reshape 1x1x256x32 -> 1x16x16x32 changes dim -2 to
    # 16, not a multiple of 32: data movement, 8 tiles -> 1x16x32x32 = 16 tiles.
    "conv2d_block_o0": {("TTA003", 33), ("TTA002", 63)},
    "mlp_o0": set(), "mlp_o1": set(), "mlp_o2": set(),
    "transformer_ffn_o0": set(), "transformer_ffn_o1": set(), "transformer_ffn_o2": set(),
    # 16x16 spatial dims innermost pad to 32x32 (75 % padding); 18x18 to 32x32; the 64-channel
    # bias reshaped to 1x1x64x1x1 pads its two trailing 1s to 32x32 (99.9 %).
    "mochi_small_constpad_o0": {("TTA003", 47), ("TTA003", 55), ("TTA003", 57), ("TTA003", 75), ("TTA003", 77),
                                ("TTA003", 100), ("TTA002", 104), ("TTA003", 104), ("TTA002", 111), ("TTA003", 111),
                                ("TTA003", 116)},
    "mochi_small_edgepad_o0": {("TTA003", 74), ("TTA003", 92), ("TTA003", 94), ("TTA003", 117), ("TTA002", 121),
                               ("TTA003", 121), ("TTA002", 128), ("TTA003", 128), ("TTA003", 133)},
    # Programs whose argmax/topk DFBs exceed L1 on the device (tests/test_cb_refusal.py has the figures),
    # and their neighbours one step smaller, which ran.
    "cb_overflow_argmax_87224x64_o0": {("TTA010", 13)}, "cb_fits_argmax_87216x64_o0": set(),
    "cb_overflow_argmax_7136x4096_o0": {("TTA010", 13)}, "cb_fits_argmax_7104x4096_o0": set(),
    "cb_overflow_topk_k3584_o0": {("TTA010", 16)}, "cb_fits_topk_k3552_o0": set(),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_real_fixture_findings(case):
    a = analyze_path(FIXTURES / "real" / case / "ttnn.mlir")
    found = [f for f in findings_of(a) if f.severity != "info"]
    assert {(f.rule, f.pos.line) for f in found} == EXPECTED[case]
    # every real program ran on the mock device, except those whose CBs tt-metal refused
    assert all(f.severity != "error" for f in found) or case.startswith("cb_overflow_")


def test_conv2d_weight_permute_waste():
    a = analyze_path(FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir")
    [f] = findings_of(a, "TTA003")
    # 32*16*3*3 = 4,608 elements = 4.5 tiles; padded 32x16x32x32 = 524,288 elements = 512 tiles;
    # waste 512 - ceil(4.5) = 507 tiles = 1,038,336 B
    assert f.data["physical_tiles"] == 512 and f.data["waste_tiles"] == 507 and f.data["waste_bytes"] == 1_038_336


def test_attention_o2_reshape_also_changes_placement():
    a = analyze_path(FIXTURES / "real" / "attention_o2" / "ttnn.mlir")
    [f] = findings_of(a, "TTA002")
    assert "l1 block_sharded -> l1 interleaved" in f.message


def test_seed_failures_are_flagged():
    seed0 = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    assert {(f.rule, f.pos.line) for f in findings_of(seed0) if f.severity != "info"} == {("TTA003", 14), ("TTA002", 15), ("TTA003", 15)}
    # The IR's reshape keeps the logical volume (19,537,920 = 1*4*768*60*106 = 4*32*24*6360),
    # and tt-metal's infer_dims_for_reshape compares logical volumes: the IR as written cannot
    # raise "Invalid arguments to reshape". The seed's failure needs a runtime input whose
    # shape differs from %arg0's type (its conv3d output); the IR alone shows a data-movement
    # reshape of a 22 %-padding tile tensor.
    assert findings_of(seed0, "TTA001") == []
    seed1 = analyze_path(FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir")
    assert {(f.rule, f.pos.line) for f in findings_of(seed1) if f.severity != "info"} == {("TTA003", 18), ("TTA002", 19), ("TTA003", 19)}
