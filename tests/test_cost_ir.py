"""TTNN IR ops as device operations (ttanalyze.cost.ir), and the `ttanalyze cost` command on IR files and profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttanalyze.cost.accuracy import compare_profile
from ttanalyze.cost.ir import device_ops, hardware_of, math_fidelity, op_code, program_cost, window_geometry
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
    assert c.attrs["window"] == (3, 3) and c.attrs["input_hw"] == (32, 32) and c.attrs["channels_in"] == 16
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


# ----------------------------------------------------------------------------- review fixes

ATTENTION_O0 = FIXTURES / "real" / "attention_o0" / "ttnn.mlir"


def _single_op(op, operands, result, attrs=""):
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
    from ttanalyze.ir.parse import parse_text

    from .conftest import BH_SYSTEM_DESC

    def t(shape):
        return TensorDesc(tuple(shape), "bf16", "tile", "dram", "interleaved", (1, 1), None)

    text = module_text(BH_SYSTEM_DESC, single_op_func(op, [t(s) for s in operands], [t(result)], attrs))
    a = analyze(parse_text(text, "t.mlir"))
    return a, next(o for o in a.program.ops if o.name == op)


def test_op_cost_marks_ops_the_model_cannot_cost_unknown(monkeypatch):
    from ttanalyze.cost import ir
    from ttanalyze.cost.model import UnmodeledDeviceOp

    a = analyze_path(MLP_O2)
    hw, c = hardware_of(a), ir.load_constants()
    op = next(o for o in a.program.ops if o.name == "ttnn.linear")

    def unmodeled(*args, **kw):
        raise UnmodeledDeviceOp("Matmul with 1 operand(s)")

    monkeypatch.setattr(ir, "predict", unmodeled)
    cost = ir.op_cost(op, a, hw, c)
    assert (cost.status, cost.reason, cost.ns) == ("unknown", "Matmul with 1 operand(s)", 0)

    def odd(*args, **kw):
        raise ValueError("padding [1, 2, 3] is not 2 or 4 numbers")

    monkeypatch.setattr(ir, "predict", odd)
    assert ir.op_cost(op, a, hw, c).status == "unknown"
    monkeypatch.setattr(ir, "device_ops", odd)
    cost = ir.op_cost(op, a, hw, c)
    assert cost.status == "unknown" and "not 2 or 4 numbers" in cost.reason
    assert all(x.status != "unknown" or x.reason for x in ir.program_cost(a, c).ops)


def test_composite_stages_use_their_own_tensors():
    # attention_o0 line 51: ttnn.max over W of [1,8,128,128] runs a W reduce, then a reshape of the reduced
    # [1,8,128,1] to the result [1,8,128]: the reshape is not costed on the op's [1,8,128,128] operand.
    a = analyze_path(ATTENTION_O0)
    ops, why = device_ops(_op(a, 51), a, hardware_of(a))
    assert not why and [d.op_code for d in ops] == ["ReduceDeviceOperation", "ReshapeDeviceOperation"]
    red, resh = ops
    assert red.attrs["dim"] == "w"
    assert red.inputs[0].shape == (1, 8, 128, 128) and red.outputs[0].shape == (1, 8, 128, 1)
    assert resh.inputs[0].shape == (1, 8, 128, 1) and resh.outputs[0].shape == (1, 8, 128)


def test_ir_reduce_dim_comes_from_the_program_factory():
    # A 3D tensor: dim 2 is W, dim 1 is H (the IR's dim_arg is a list, indexed by rank).
    for dim, want in ((2, "w"), (1, "h")):
        out = [1, 64, 1] if dim == 2 else [1, 1, 128]
        a, op = _single_op("ttnn.sum", [[1, 64, 128]], out, f"dim_arg = [{dim} : i32], keep_dim = true")
        ops, why = device_ops(op, a, hardware_of(a))
        reduces = [d for d in ops if d.op_code == "ReduceDeviceOperation"]
        assert not why and reduces and all(d.attrs["dim"] == want for d in reduces), (dim, ops)


def test_ir_rms_norm_is_costed_as_rms_norm():
    eps = "epsilon = 9.99999974E-6 : f32"
    costs = {}
    for name in ("ttnn.layer_norm", "ttnn.rms_norm"):
        a, op = _single_op(name, [[1, 1, 32, 768]], [1, 1, 32, 768], eps)
        ops, why = device_ops(op, a, hardware_of(a))
        assert not why and [d.op_code for d in ops] == ["LayerNormDeviceOperation"]
        assert ops[0].attrs["norm"] == ("rms" if name == "ttnn.rms_norm" else "layer")
        pc = program_cost(a)
        costs[name] = next(c for c in pc.ops if c.op.name == name)
        assert not costs[name].notes
    assert costs["ttnn.rms_norm"].ns < costs["ttnn.layer_norm"].ns  # 4 passes per tile, not 7


def test_cost_json_carries_the_model_notes(cli):
    res = cli("cost", str(ATTENTION_O0), "--format", "json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    ops = doc["program"]["ops"] if "program" in doc else doc["ops"]
    divide = next(o for o in ops if o["line"] == 48)
    assert divide["notes"] == ["binary op 'divide' costed as one FPU tile op (eltwise_tile)"]
    assert divide["device_ops"][0]["notes"] == divide["notes"]
    text = cli("cost", str(ATTENTION_O0))
    assert "note: ttnn.divide cost assumes: binary op 'divide'" in text.output


def _profile_of(a, tmp_path, with_loc: bool, extra_first: bool = True):
    """A profiler CSV with one row per device op of the IR (in order), 1,000 ns each, and a stray row first."""
    import csv as _csv

    from ttanalyze.cost.ir import program_cost as _pc

    pc = _pc(a)
    cols = ["OP CODE", "OP TYPE", "DEVICE ID", "DEVICE ARCH", "CORE COUNT", "DEVICE KERNEL DURATION [ns]", "LOC"]
    cols += [f"OUTPUT_0_{d}_PAD[LOGICAL]" for d in "WZYX"] + ["OUTPUT_0_LAYOUT", "OUTPUT_0_DATATYPE", "OUTPUT_0_MEMORY"]
    tensor = {"OUTPUT_0_W_PAD[LOGICAL]": "1[1]", "OUTPUT_0_Z_PAD[LOGICAL]": "1[1]", "OUTPUT_0_Y_PAD[LOGICAL]": "32[32]",
              "OUTPUT_0_X_PAD[LOGICAL]": "32[32]", "OUTPUT_0_LAYOUT": "TILE", "OUTPUT_0_DATATYPE": "BFLOAT16",
              "OUTPUT_0_MEMORY": "DEV_0_DRAM_INTERLEAVED"}
    rows = []
    if extra_first:
        rows.append({"OP CODE": "SomethingElseDeviceOperation", "LOC": "loc(\"nowhere\")" if with_loc else ""})
    for c in pc.ops:
        for d in c.device_ops:
            rows.append({"OP CODE": d.op_code, "LOC": f'loc("{c.op.loc_name}")' if with_loc else ""})
    p = tmp_path / ("loc.csv" if with_loc else "order.csv")
    with open(p, "w", newline="") as fh:
        w = _csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({"OP TYPE": "tt_dnn_device", "DEVICE ID": "0", "DEVICE ARCH": "blackhole", "CORE COUNT": "8",
                        "DEVICE KERNEL DURATION [ns]": "1000", **tensor, **r})
    return pc, p


@pytest.mark.parametrize("with_loc", [False, True])
def test_measured_rows_match_the_ir_ops(tmp_path, cli, with_loc):
    from ttanalyze.cost.accuracy import match_ir
    from ttanalyze.cost.profile import load_profile

    a = analyze_path(MLP_O2)
    pc, p = _profile_of(a, tmp_path, with_loc)
    matches, unmatched = match_ir(pc, load_profile(p).rows)
    # by LOC, the rows of ops without a location name stay unmatched too
    nameless = sum(len(c.device_ops) for c in pc.ops if not c.op.loc_name) if with_loc else 0
    assert [r.op.op_code for r in unmatched][:1] == ["SomethingElseDeviceOperation"]
    assert len(unmatched) == 1 + nameless
    for m in matches:
        if with_loc and not m.cost.op.loc_name:
            continue
        assert len(m.rows) == len(m.cost.device_ops)
        if m.rows:
            assert m.measured_ns == 1000 * len(m.rows) and m.how == ("loc" if with_loc else "order")
    r = cli("cost", MLP_O2, "--measured", p)
    assert r.exit_code == 0, r.output
    assert "predicted vs measured per IR op" in r.output and f"{1 + nameless} profiler row(s) matched to no IR op" \
        in r.output
    doc = json.loads(cli("cost", MLP_O2, "--measured", p, "-f", "json").stdout)
    assert doc["per_ir_op"]["how"] == ("loc" if with_loc else "order") and doc["per_ir_op"]["unmatched_rows"][0] == 2


def test_conv1d_is_costed_as_the_conv2d_its_program_runs():
    """conv1d runs conv2d on ``[N, 1, L, C]`` with a ``1 x K`` window (ops/conv_extra.py, measured programs):
    the cost geometry is that conv2d's, the length and the padding along W."""
    from types import SimpleNamespace
    op = SimpleNamespace(name="ttnn.conv1d", attrs={
        "kernel_size": 3, "padding": [1, 2], "dilation": 2, "input_length": 100, "groups": 1, "in_channels": 8})
    assert window_geometry(op) == {"window": (1, 3), "padding": (0, 0, 1, 2), "dilation": (1, 2),
                                   "input_hw": (1, 100), "groups": 1, "channels_in": 8}
