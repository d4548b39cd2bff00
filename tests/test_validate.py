"""``ttanalyze validate``: hand-made fixed variants of real (Blackhole) and seed (Wormhole) fixtures.

The semantic check (reference interpreter) runs everywhere; the device check replays on the
companion executor and is skipped, with the reason, when its environment is absent (on a machine
shared with other mock-device users, run the suite under ``scripts/device-lock``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttanalyze.arch import MOCK_P150_TTNN_0_81_1
from ttanalyze.errors import InputError
from ttanalyze.executor import client
from ttanalyze.executor.cbcheck import compare_cbs, device_arch
from ttanalyze.executor.client import DeviceCB, DeviceResult
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.parse import parse_file
from ttanalyze.validate import (
    MIN_PCC, device_check, device_text, diff_programs, moves_data_only, semantic_check, semantic_text,
)

from .conftest import FIXTURES, analyze_path, device

CONV2D = FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir"
ATTENTION = FIXTURES / "real" / "attention_o0" / "ttnn.mlir"
MLP = FIXTURES / "real" / "mlp_o1" / "ttnn.mlir"
SEED_RESHAPE = FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir"


def rewrite(path: Path, old: str, new: str, aliases: str = "") -> str:
    """``path``'s text with the one line containing ``old`` replaced by ``new`` and ``aliases`` added
    before the module."""
    text = path.read_text()
    lines = [line for line in text.splitlines() if old in line]
    assert len(lines) == 1, lines
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    body = "\n".join(indent + line.strip() for line in new.strip().splitlines())
    text = text.replace(lines[0], body)
    if aliases:
        head = text.index("module ")
        text = text[:head] + aliases.strip() + "\n" + text[head:]
    return text


def write(tmp_path: Path, name: str, text: str) -> Path:
    out = tmp_path / name
    out.write_text(text)
    return out


# (a) conv2d_block_o0 line 63: the tile reshape [1, 1, 256, 32] -> [1, 16, 16, 32] (TTA002) becomes
# to_layout(row_major) -> reshape -> to_layout(tile).
CONV_RM = "#fix_rm = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 256 + d1 * 16 + d2, d3), <1x1>, memref<256x32xbf16, #dram>, <interleaved>>"
CONV_RESHAPE = '%16 = "ttnn.reshape"(%15)'
CONV_FIX = """
%r0 = "ttnn.to_layout"(%15) <{layout = #ttnn.layout<row_major>}> : (tensor<1x1x256x32xbf16, #ttnn_layout17>) -> tensor<1x1x256x32xbf16, #ttnn_layout16> loc("fix_untilize")
%r1 = "ttnn.reshape"(%r0) <{shape = [1 : i32, 16 : i32, 16 : i32, 32 : i32]}> : (tensor<1x1x256x32xbf16, #ttnn_layout16>) -> tensor<1x16x16x32xbf16, #fix_rm> loc("fix_reshape")
"ttnn.deallocate"(%r0) <{force = false}> : (tensor<1x1x256x32xbf16, #ttnn_layout16>) -> () loc("fix_reshape")
%16 = "ttnn.to_layout"(%r1) <{layout = #ttnn.layout<tile>}> : (tensor<1x16x16x32xbf16, #fix_rm>) -> tensor<1x16x16x32xbf16, #ttnn_layout3> loc("fix_tilize")
"ttnn.deallocate"(%r1) <{force = false}> : (tensor<1x16x16x32xbf16, #fix_rm>) -> () loc("fix_tilize")
"""
# (c) the same fix, deliberately wrong: a permutation of the two 16-row dims slipped in (same shape, wrong data).
CONV_WRONG = CONV_FIX.replace(
    '%16 = "ttnn.to_layout"(%r1)',
    '%r2 = "ttnn.permute"(%r1) <{permutation = array<i64: 0, 2, 1, 3>}> : (tensor<1x16x16x32xbf16, #fix_rm>) -> '
    'tensor<1x16x16x32xbf16, #fix_rm> loc("fix_permute")\n%16 = "ttnn.to_layout"(%r2)')

# (a) the seed (Wormhole): its failing tile reshape %2 becomes to_layout(row_major) -> reshape -> to_layout(tile).
SEED_RM = """
#layout_rm_perm = #ttnn.ttnn_layout<(d0, d1, d2, d3, d4) -> (d0 * 184320 + d1 * 46080 + d2 * 60 + d3, d4), <1x1>, memref<184320x106xbf16, #dram>, <interleaved>>
#layout_rm_4d = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 768 + d1 * 24 + d2, d3), <1x1>, memref<3072x6360xbf16, #dram>, <interleaved>>
"""
SEED_FIX = """
%r0 = "ttnn.to_layout"(%1) <{layout = #ttnn.layout<row_major>}> : (tensor<1x4x768x60x106xbf16, #layout_tile_perm>) -> tensor<1x4x768x60x106xbf16, #layout_rm_perm> loc("fix_untilize")
%r1 = "ttnn.reshape"(%r0) <{shape = [4 : i32, 32 : i32, 24 : i32, 6360 : i32]}> : (tensor<1x4x768x60x106xbf16, #layout_rm_perm>) -> tensor<4x32x24x6360xbf16, #layout_rm_4d> loc("fix_reshape")
%2 = "ttnn.to_layout"(%r1) <{layout = #ttnn.layout<tile>}> : (tensor<4x32x24x6360xbf16, #layout_rm_4d>) -> tensor<4x32x24x6360xbf16, #layout_tile_4d> loc("fix_tilize")
"""

# (b) attention_o0's second matmul (line 70) with a smaller program config: in0_block_w 2 -> 1, 2x2 -> 1x1 subblocks.
ATT_MATMUL_OLD = "in0_block_w = 2, out_subblock_h = 2, out_subblock_w = 2, per_core_m = 4, per_core_n = 2"
ATT_MATMUL_NEW = "in0_block_w = 1, out_subblock_h = 1, out_subblock_w = 1, per_core_m = 4, per_core_n = 2"

# (b) mlp_o1: the linear's result goes through bfp_bf8 and back (a changed data type: computes, so PCC).
MLP_BFP8 = "#fix_bfp8 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x8x!ttcore.tile<32x32, bfp_bf8>, #dram>, <interleaved>>"
MLP_RELU = '%4 = "ttnn.relu"(%3)'
MLP_FIX = """
%t0 = "ttnn.typecast"(%3) : (tensor<32x256xbf16, #ttnn_layout8>) -> tensor<32x256xbf16, #fix_bfp8> loc("fix_to_bfp8")
%t1 = "ttnn.typecast"(%t0) : (tensor<32x256xbf16, #fix_bfp8>) -> tensor<32x256xbf16, #ttnn_layout8> loc("fix_from_bfp8")
%4 = "ttnn.relu"(%t1) : (tensor<32x256xbf16, #ttnn_layout8>) -> tensor<32x256xbf16, #ttnn_layout8> loc(#loc26)
"""


def conv_fixed(tmp_path: Path, wrong: bool = False) -> Path:
    return write(tmp_path, "conv_wrong.mlir" if wrong else "conv_fixed.mlir",
                 rewrite(CONV2D, CONV_RESHAPE, CONV_WRONG if wrong else CONV_FIX, CONV_RM))


def attention_fixed(tmp_path: Path) -> Path:
    text = ATTENTION.read_text()
    assert text.count(ATT_MATMUL_OLD) == 1
    return write(tmp_path, "attention_fixed.mlir", text.replace(ATT_MATMUL_OLD, ATT_MATMUL_NEW))


def mlp_fixed(tmp_path: Path) -> Path:
    return write(tmp_path, "mlp_fixed.mlir", rewrite(MLP, MLP_RELU, MLP_FIX, MLP_BFP8))


def seed_fixed(tmp_path: Path) -> Path:
    return write(tmp_path, "seed_fixed.mlir", rewrite(SEED_RESHAPE, '%2 = "ttnn.reshape"(%1)', SEED_FIX, SEED_RM))


# ---------------------------------------------------------------------------
# Which ops a fix changed
# ---------------------------------------------------------------------------


def test_diff_lists_the_replaced_reshape_and_the_new_ops(tmp_path):
    d = diff_programs(parse_file(CONV2D), parse_file(conv_fixed(tmp_path)))
    assert [(op.name, op.pos.line) for op in d.removed] == [("ttnn.reshape", 63)]
    assert [op.name for op in d.added] == ["ttnn.to_layout", "ttnn.reshape", "ttnn.deallocate", "ttnn.to_layout",
                                           "ttnn.deallocate"]
    assert d.pure_data_movement and d.computing == []


def test_diff_of_a_program_with_itself_is_empty():
    p = parse_file(ATTENTION)
    d = diff_programs(p, parse_file(ATTENTION))
    assert d.removed == [] and d.added == [] and d.pure_data_movement


def test_modified_attributes_and_dtype_changes_compute(tmp_path):
    d = diff_programs(parse_file(ATTENTION), parse_file(attention_fixed(tmp_path)))
    assert [(op.name, op.pos.line) for op in d.removed] == [("ttnn.matmul", 70)]
    assert [(op.name, op.pos.line) for op in d.added] == [("ttnn.matmul", 70)]
    assert not d.pure_data_movement
    m = diff_programs(parse_file(MLP), parse_file(mlp_fixed(tmp_path)))
    # the relu is re-wired to the new value, but its attributes and types are the original's: not changed
    assert [op.name for op in m.added] == ["ttnn.typecast", "ttnn.typecast"]
    assert [op.name for op in m.computing] == ["ttnn.typecast", "ttnn.typecast"]
    typecast = m.added[0]
    assert not moves_data_only(typecast)  # bf16 -> bfp_bf8 changes values


# ---------------------------------------------------------------------------
# Check 1: the reference interpreter
# ---------------------------------------------------------------------------


def test_pure_data_movement_fix_is_identical_real_fixture(tmp_path):
    r = semantic_check(parse_file(CONV2D), parse_file(conv_fixed(tmp_path)), seed=3)
    assert r.required == "identical" and r.passed
    (out,) = r.outputs
    assert out.comparison.exact and out.comparison.max_abs == 0.0 and out.comparison.pcc == 1.0
    assert out.shape == (1, 16, 16, 32) and out.dtype == "bf16"


def test_pure_data_movement_fix_is_identical_seed_fixture(tmp_path):
    r = semantic_check(parse_file(SEED_RESHAPE), parse_file(seed_fixed(tmp_path)))
    assert r.required == "identical" and r.passed
    assert r.outputs[0].comparison.exact
    text = "\n".join(semantic_text(r))
    assert "1 ops removed, 3 added or modified" in text and "outputs must be identical" in text


def test_matmul_program_config_fix_takes_the_pcc_path(tmp_path):
    r = semantic_check(parse_file(ATTENTION), parse_file(attention_fixed(tmp_path)))
    assert r.required == f"pcc >= {MIN_PCC}" and r.passed
    assert r.outputs[0].comparison.pcc >= MIN_PCC


def test_dtype_change_fix_passes_on_pcc_not_identity(tmp_path):
    r = semantic_check(parse_file(MLP), parse_file(mlp_fixed(tmp_path)))
    assert r.required == f"pcc >= {MIN_PCC}" and r.passed
    c = r.outputs[0].comparison
    assert not c.exact and c.max_abs > 0  # bfp_bf8 rounding shows
    assert MIN_PCC <= c.pcc < 1.0
    assert "changed ops compute: ttnn.typecast" in "\n".join(semantic_text(r))


def test_wrong_permutation_fails_with_the_numbers(tmp_path):
    r = semantic_check(parse_file(CONV2D), parse_file(conv_fixed(tmp_path, wrong=True)))
    assert r.required == "identical" and not r.passed
    (out,) = r.outputs
    c = out.comparison
    assert not c.exact and c.max_abs > 0.1 and c.pcc < 0.5
    assert not out.passed
    line = out.describe()
    assert "differs" in line and f"max abs diff {c.max_abs:.6g}" in line and f"pcc {c.pcc:.6f}" in line


def test_pcc_fix_that_changes_results_fails(tmp_path):
    # a "smaller config" that also dropped the exp activation of the subtract: computes something else
    text = attention_fixed(tmp_path).read_text().replace("activations = [#ttnn.unary_with_param<op_type = exp>]",
                                                         "activations = []")
    r = semantic_check(parse_file(ATTENTION), parse_file(write(tmp_path, "bad.mlir", text)))
    assert r.required == f"pcc >= {MIN_PCC}" and not r.passed
    assert r.outputs[0].comparison.pcc < MIN_PCC


def test_signature_mismatch_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match=r"signature differs.*tensor argument 0 \(%arg0\) is \[1, 8, 128, 64\] bf16"):
        semantic_check(parse_file(CONV2D), parse_file(ATTENTION))


def test_single_program_runs_and_is_finite():
    r = semantic_check(parse_file(ATTENTION), None, seed=1)
    assert r.mode == "single" and r.passed
    assert [(o.shape, o.finite) for o in r.outputs] == [((1, 8, 128, 64), True)]


def test_interpreter_failure_of_the_fixed_program_fails_the_check(tmp_path):
    # the fixed reshape declares a result shape its attribute does not produce
    text = conv_fixed(tmp_path).read_text().replace("[1 : i32, 16 : i32, 16 : i32, 32 : i32]",
                                                    "[1 : i32, 16 : i32, 32 : i32, 16 : i32]")
    r = semantic_check(parse_file(CONV2D), parse_file(write(tmp_path, "broken.mlir", text)))
    assert not r.passed and "the fixed program does not run" in r.error


# ---------------------------------------------------------------------------
# Check 2 without a device
# ---------------------------------------------------------------------------


def test_device_check_is_skipped_with_the_reason(monkeypatch, tmp_path):
    monkeypatch.setattr(client, "available", lambda: (False, "no executor interpreter at /nowhere"))
    a = analyze_path(conv_fixed(tmp_path))
    ops = diff_programs(parse_file(CONV2D), a.program).added
    d = device_check(a, ops)
    assert d.status == "skipped" and d.passed and "no executor interpreter at /nowhere" in d.reason
    assert [r.status for r in d.ops] == ["skipped"] * len(ops)
    assert "device check: SKIPPED" in device_text(d)[0]


def by_rows(crs: CoreRangeSet) -> CoreRangeSet:
    """The same cores as ``crs``, one range per row of cores."""
    rows: dict[int, list[int]] = {}
    for r in crs.ranges:
        for y in range(r.start.y, r.end.y + 1):
            rows.setdefault(y, []).extend(range(r.start.x, r.end.x + 1))
    return CoreRangeSet(tuple(CoreRange(CoreCoord(min(xs), y), CoreCoord(max(xs), y)) for y, xs in sorted(rows.items())))


def test_cb_comparison_by_size_and_cores_without_a_device():
    # attention_o0's sum (line 61): three CBs on 32 cores, ranges {[(0,0)-(2,9)], [(3,0)-(3,1)]}; the device
    # reports the same cores split differently, which must still match
    a = analyze_path(ATTENTION)
    op = next(o for o in a.program.ops if o.pos.line == 61)
    model = compare_cbs(a, op, DeviceResult(ok=True, l1_allocated_per_bank=0)).model_cbs
    assert sorted(b for b, _ in model) == [4_096, 8_192, 32_768]
    peak = sum(b for b, _ in model)

    def dev(cbs):
        return DeviceResult(ok=True, cbs=[DeviceCB("cb", b, c, 0, False, 0, None, None) for b, c in cbs],
                            cb_per_core_peak=peak, l1_allocated_per_bank=0)

    same = compare_cbs(a, op, dev([(b, by_rows(c)) for b, c in model]))
    assert same.outcome == "exact" and same.cbs_equal and same.match
    one_core = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(0, 0)),))
    moved = compare_cbs(a, op, dev([(b, one_core if b == 4_096 else c) for b, c in model]))
    assert moved.outcome == "exact" and moved.cbs_equal is False and not moved.match  # same peak, other cores
    refused = compare_cbs(a, op, DeviceResult(ok=False, error="TT_FATAL: no", l1_allocated_per_bank=0))
    assert refused.outcome == "device_refused" and refused.cbs_equal is None and not refused.match


def test_device_arch_of_the_mock_p150():
    dev = {"arch": "blackhole", "grid": [11, 10], "l1_size": 1_572_864, "l1_base": 111_744, "l1_small_size": 0,
           "mock": True}
    assert device_arch(dev) is MOCK_P150_TTNN_0_81_1
    other = device_arch(dict(dev, l1_base=177_280, l1_small_size=65_536, mock=False))
    assert (other.name, other.grid, other.l1_unreserved_base, other.l1_small_size) == (
        "blackhole", (10, 11), 177_280, 65_536)


# ---------------------------------------------------------------------------
# The CLI (no device)
# ---------------------------------------------------------------------------


def test_cli_good_fix_exit_0_and_json(cli, tmp_path):
    res = cli("validate", CONV2D, "--fixed", conv_fixed(tmp_path), "--no-device", "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["schema"] == "ttanalyze.validate/1" and doc["passed"] is True
    sem = doc["semantic"]
    assert sem["required"] == "identical" and sem["pure_data_movement"] is True
    assert [o["line"] for o in sem["removed"]] == [63]
    assert [(m["original_line"], m["line"], m["op"]) for m in sem["modified"]] == [(63, 65, "ttnn.reshape")]
    assert sem["modified"][0]["changes"][0] == ("operand 0: tensor<1x1x256x32xbf16> tile dram -> "
                                                "tensor<1x1x256x32xbf16> row_major dram")
    assert sem["outputs"][0]["exact"] is True and sem["outputs"][0]["pcc"] == 1.0
    dev = doc["device"]
    assert dev["status"] == "skipped" and dev["reason"] == "--no-device"
    assert {o["status"] for o in dev["ops"]} == {"skipped"} and len(dev["ops"]) == 5


def test_cli_wrong_fix_exit_1_with_numbers(cli, tmp_path):
    res = cli("validate", CONV2D, "--fixed", conv_fixed(tmp_path, wrong=True), "--no-device")
    assert res.exit_code == 1, res.output
    assert "FAIL output 0 %16 [1, 16, 16, 32] bf16: differs; max abs diff" in res.output
    assert res.output.rstrip().endswith("FAIL")


def test_cli_input_errors_exit_2(cli, tmp_path):
    res = cli("validate", CONV2D, "--fixed", ATTENTION, "--no-device")
    assert res.exit_code == 2
    assert res.stderr.startswith(f"{ATTENTION}:") and "error: the fixed program's signature differs" in res.stderr
    bad = write(tmp_path, "bad.mlir", "module {\n  func.func @main( {\n")
    res = cli("validate", bad, "--no-device")
    assert res.exit_code == 2 and res.stderr.startswith(f"{bad}:") and ": error: " in res.stderr


def test_cli_file_alone(cli):
    res = cli("validate", MLP, "--no-device")
    assert res.exit_code == 0, res.output
    assert "the file alone): PASS" in res.output and "all finite" in res.output
    assert "device check: SKIPPED (--no-device" in res.output


# ---------------------------------------------------------------------------
# On the device (skipped without the executor)
# ---------------------------------------------------------------------------



def replay_changed(ex, original: Path, fixed: Path):
    a = analyze_path(fixed)
    ops = diff_programs(parse_file(original), a.program).added
    return device_check(a, ops, ex)


def assert_all_accepted_and_matching(d, replayed: list[str]):
    assert d.status == "pass", "\n".join(device_text(d))
    assert d.arch is MOCK_P150_TTNN_0_81_1 or not d.device.get("mock")
    ran = [r for r in d.ops if r.status != "skipped"]
    assert [r.op.name for r in ran] == replayed
    for r in ran:
        assert r.accepted and r.status == "pass", (r.op, r.error, r.reason)
        assert r.cbs.match and r.cbs.model_peak == r.cbs.device_peak
    for r in d.ops:
        if r.status == "skipped":
            assert r.op.name == "ttnn.deallocate" and "no device program" in r.reason


@device
def test_device_reshape_fix_real_fixture(ex, tmp_path):
    d = replay_changed(ex, CONV2D, conv_fixed(tmp_path))
    assert_all_accepted_and_matching(d, ["ttnn.to_layout", "ttnn.reshape", "ttnn.to_layout"])
    untilize = d.ops[0].cbs
    assert untilize.device_cbs and untilize.cbs_equal  # real CBs, compared one by one with their cores


@device
def test_device_reshape_fix_seed_fixture_wormhole_file_on_blackhole(ex, tmp_path):
    d = replay_changed(ex, SEED_RESHAPE, seed_fixed(tmp_path))
    assert d.file_arch == "wormhole_b0" and d.arch.name == "blackhole"
    assert_all_accepted_and_matching(d, ["ttnn.to_layout", "ttnn.reshape", "ttnn.to_layout"])
    assert "the file is wormhole_b0" in "\n".join(device_text(d))


@device
def test_device_smaller_matmul_config(ex, tmp_path):
    d = replay_changed(ex, ATTENTION, attention_fixed(tmp_path))
    assert_all_accepted_and_matching(d, ["ttnn.matmul"])
    old = ex.replay(next(op for op in analyze_path(ATTENTION).program.ops if op.pos.line == 70),
                    analyze_path(ATTENTION))
    assert d.ops[0].cbs.device_peak < old.cb_per_core_peak  # the smaller config needs fewer CB bytes


@device
def test_device_dtype_fix(ex, tmp_path):
    d = replay_changed(ex, MLP, mlp_fixed(tmp_path))
    assert_all_accepted_and_matching(d, ["ttnn.typecast", "ttnn.typecast"])


@device
def test_device_refusal_is_a_failure_with_the_tt_fatal_text(ex):
    # the one-core matmul of test_executor: 1,835,008 B of CBs on core (0, 0) do not fit
    from .test_executor import MATMULS
    from .conftest import analyze_text

    a = analyze_text(MATMULS, "matmuls.mlir")
    d = device_check(a, [a.program.ops[1]], ex)
    assert d.status == "fail" and not d.passed
    (r,) = d.ops
    assert r.accepted is False and "beyond max L1 size" in r.error
    assert "not accepted" in "\n".join(device_text(d))


@device
def test_cli_with_device(cli, tmp_path):
    res = cli("validate", CONV2D, "--fixed", conv_fixed(tmp_path), "--format", "json")
    assert res.exit_code == 0, res.output
    dev = json.loads(res.output)["device"]
    assert dev["status"] == "pass" and dev["prediction_arch"]["name"] == "blackhole"
    ran = [o for o in dev["ops"] if o["status"] != "skipped"]
    assert len(ran) == 3 and all(o["accepted"] and o["cbs"]["match"] for o in ran)
