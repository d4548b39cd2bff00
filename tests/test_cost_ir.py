"""TTNN IR ops as device operations (ttanalyze.cost.ir), and the `ttanalyze cost` command on IR files and profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttanalyze.cost.accuracy import compare_profile
from ttanalyze.cost.ir import device_ops, hardware_of, math_fidelity, op_code, program_cost
from ttanalyze.cost.profile import read_profile

from .conftest import FIXTURES, analyze_path

DATA = Path(__file__).parent / "data"

MLP_O2 = FIXTURES / "real" / "mlp_o2" / "ttnn.mlir"
CONV = FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir"


def _op(a, line):
    return next(o for o in a.program.ops if o.pos.line == line)


def test_factories_name_their_device_operations():
    assert op_code("MatmulMultiCoreReuseMcast1DProgramFactory") == "Matmul"
    assert op_code("TilizeWithValPaddingMultiCoreDefaultFactory") == "TilizeWithValPaddingDeviceOperation"
    assert op_code("TilizeMultiCoreBlockProgramFactory") == "TilizeDeviceOperation"
    assert op_code("UntilizeCodegenProgramFactory") == "UntilizeDeviceOperation"
    assert op_code("PermuteDeviceOperation::MultiCoreTileInvariant") == "PermuteDeviceOperation"
    assert op_code("SomethingNew") is None


def test_every_modeled_program_of_the_fixtures_has_a_device_operation():
    for path in sorted((FIXTURES / "real").glob("*/ttnn.mlir")):
        a = analyze_path(path)
        for prog in a.programs.values():
            for stage in prog.stages:
                assert op_code(stage.factory), f"{path.parent.name}: {stage.factory}"


def test_hardware_comes_from_the_system_desc():
    a = analyze_path(MLP_O2)  # Blackhole, 10x11 worker grid, 8 DRAM channels (a P150)
    hw = hardware_of(a)
    assert (hw.arch, hw.grid_cores, hw.dram_channels) == ("blackhole", 110, 8)


def test_linear_runs_one_matmul_with_the_ir_program_config():
    a = analyze_path(MLP_O2)
    linear = _op(a, 37)  # ttnn.linear with a 1D mcast config: in0_block_w 4, per_core 1x1, 8x1 grid
    [d], why = device_ops(linear, a, hardware_of(a))
    assert why == "" and d.op_code == "Matmul" and d.cores == 8
    pc = d.attrs["program_config"]
    assert (pc["kind"], pc["in0_block_w"], pc["per_core_m"], pc["per_core_n"]) == ("mcast_1d", 4, 1, 1)
    # a [32, 128] x [128, 256] + bias: inputs a, b and the fused bias; one output
    assert [t.shape for t in d.inputs] == [(32, 128), (128, 256), (256,)][: len(d.inputs)]
    assert d.outputs[0].shape == (32, 256)
    # IR program config present, bf16 inputs, no compute_config: ttnn's matmul default is LoFi
    assert d.math_fidelity == "LoFi"


def test_conv2d_runs_the_sliding_window_device_ops():
    a = analyze_path(CONV)
    conv = _op(a, 53)  # DRAM input: padded slice, halo, move, conv, slice write (tt-metal conv2d DRAM path)
    ops, _ = device_ops(conv, a, hardware_of(a))
    assert [d.op_code for d in ops] == ["PaddedSliceDeviceOperation", "HaloDeviceOperation", "MoveDeviceOperation",
                                       "Conv2dDeviceOperation", "SliceWriteDeviceOperation"]
    c = ops[3]
    assert c.attrs["window"] == (3, 3) and c.attrs["input_hw"] == (32, 32) and c.attrs["channels_out"] == 32
    assert c.math_fidelity == "HiFi4" and c.fp32_dest_acc is True  # the IR's compute_config


def test_matmul_fidelity_defaults():
    a = analyze_path(MLP_O2)
    op = _op(a, 37)
    # tt-metal create_matmul_attributes: no program config -> HiFi2; bfp8 inputs -> LoFi; f32 -> HiFi4 (HiFi3 on WH)
    assert math_fidelity(op, "Matmul", ["bf16", "bf16"], False, a.arch) == ("HiFi2", False)
    assert math_fidelity(op, "Matmul", ["bfp_bf8", "bfp_bf8"], False, a.arch) == ("LoFi", False)
    assert math_fidelity(op, "Matmul", ["f32", "f32"], False, a.arch) == ("HiFi4", True)
    assert math_fidelity(op, "UnaryDeviceOperation", ["bf16"], False, a.arch) == ("HiFi4", False)


def test_program_cost_sums_device_ops_and_reports_unknowns():
    a = analyze_path(CONV)
    pc = program_cost(a)
    costed = [c for c in pc.ops if c.status == "costed"]
    assert costed and all(c.ns > 0 and c.bound != "-" for c in costed)
    assert abs(pc.total_ns - sum(c.ns for c in costed)) < 1e-6
    host = [c for c in pc.ops if c.op.name in ("ttnn.deallocate", "ttnn.get_device")]
    assert host and all(c.status == "no_device_op" and c.ns == 0 for c in host)


def test_cost_cli_text_and_json(cli):
    r = cli("cost", MLP_O2, "--sort", "ns", "--top", "3")
    assert r.exit_code == 0, r.output
    assert "total:" in r.output and "hotspots:" in r.output and "ttnn.linear" in r.output
    r = cli("cost", MLP_O2, "--format", "json")
    doc = json.loads(r.stdout)
    prog = doc["program"]
    assert doc["schema"] == "ttanalyze.cost/1" and prog["hardware"]["arch"] == "blackhole"
    assert abs(prog["total_ns"] - sum(o["ns"] for o in prog["ops"])) < 1e-3
    linear = next(o for o in prog["ops"] if o["line"] == 37)
    assert linear["device_ops"][0]["op_code"] == "Matmul" and linear["bound"]


def test_cost_cli_grouping_and_input_errors(cli, tmp_path):
    r = cli("cost", CONV, "--group", "device_op")
    assert r.exit_code == 0 and "Conv2dDeviceOperation" in r.output and "share" in r.output
    assert cli("cost").exit_code == 2
    bad = tmp_path / "bad.mlir"
    bad.write_text("module {")
    r = cli("cost", bad)
    assert r.exit_code == 2 and "bad.mlir:" in r.output


PROFILE = DATA / "cost_bh_p100_dlv3.csv"


def test_compare_profile_scores_every_row_next_to_pm_ideal():
    # 17 rows of the Blackhole DeepLabV3 trace (tests/data/cost_profiles.md), each timed.
    cmp = compare_profile(read_profile(PROFILE))
    assert len(cmp.rows) == 17 and cmp.total.timed == 17 and cmp.total.predicted == 17
    matmul = next(s for s in cmp.per_op if s.op_code == "Matmul")
    assert (matmul.rows, matmul.predicted) == (2, 2)
    for p in cmp.rows:  # APE as defined in ttanalyze.cost.accuracy, from the row's own columns
        assert p.ape == pytest.approx(abs(p.estimate.ns - p.row.measured_ns) / p.row.measured_ns * 100)
    assert cmp.total.measured_ns == pytest.approx(sum(p.row.measured_ns for p in cmp.rows))


def test_cost_cli_measured_text_json_and_errors(cli, tmp_path):
    r = cli("cost", "--measured", PROFILE)
    assert r.exit_code == 0, r.output
    assert "per op code" in r.output and "PM IDEAL median APE" in r.output and "Conv2dDeviceOperation" in r.output
    doc = json.loads(cli("cost", "--measured", PROFILE, "--format", "json").stdout)
    m = doc["measured"]
    assert len(m["rows"]) == 17 and m["total"]["timed"] == 17
    assert all(row["predicted_ns"] > 0 and row["pm_ideal_ns"] is not None for row in m["rows"])
    bad = tmp_path / "perf.csv"
    bad.write_text("OP CODE,ATTRIBUTES\nMatmul,{}\n")
    r = cli("cost", "--measured", bad)
    assert r.exit_code == 2 and "perf.csv:1" in r.output and "missing column" in r.output
