"""The op-level differential campaign (benchmarks/opdiff*.py) and the model fixes it drove.

The generator and the report need no device.  Each fix below cites the campaign instance that
measured it (``measurements/opdiff/results.jsonl.gz``, keyed by instance id; the record holds the
device's buffers, factories and error text); the expected bytes are derived by hand.
"""

from __future__ import annotations

import gzip
import json

import pytest

from benchmarks import opdiff, opdiff_report
from benchmarks.opdiff_instances import generators, instance, instances
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops.registry import CB_MODELS
from ttanalyze.programs import program_of

from .conftest import BH_SYSTEM_DESC

FULL = 1_461_120


def run(op, operands, results, attrs=""):
    results = results if isinstance(results, list) else [results]
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, results, attrs)), "t.mlir"))
    return program_of(a, next(o for o in a.program.ops if o.name == op), arch=MOCK, free_l1=FULL)


def T(shape, dtype="bf16", layout="tile", buffer="dram", mem="interleaved", grid=(1, 1), cores=None):
    crs = CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in cores)) if cores else None
    return TensorDesc(tuple(shape), dtype, layout, buffer, mem, grid, crs)


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------


def test_a_generator_for_the_ops_with_a_cb_model():
    # every generator is for an op with a CB model; ops modeled later without one are listed by the report
    gens = set(generators())
    assert gens <= set(CB_MODELS) and len(gens) >= 96
    assert {"ttnn.to_layout", "ttnn.matmul", "ttnn.repeat", "ttnn.where", "ttnn.conv2d", "ttnn.topk"} <= gens


def test_instances_are_deterministic_and_independent_of_the_campaign_size():
    a, b = instance("ttnn.to_layout", 7), instance("ttnn.to_layout", 7)
    assert a == b and a.id == "g1/ttnn.to_layout/7"
    small, big = set(instances(2)), set(instances(4))
    assert small < big
    assert all(sum(1 for op, _ in instances(50) if op == name) >= 50 for name in generators())


@pytest.mark.parametrize("op", sorted(generators()))
def test_every_generated_instance_parses_and_is_analyzed(op):
    gens = generators()
    for i in range(3):
        p = opdiff.prepare(op, i, gens)
        assert p["error"] is None, (op, i, p["error"])


# ---------------------------------------------------------------------------
# Results and report
# ---------------------------------------------------------------------------


def _rec(rid, op, outcome, exact, family="eltwise_unary", peak=(4096, 4096)):
    return {"id": rid, "op": op, "family": family, "key": "k", "outcome": outcome, "exact": exact,
            "model": {"status": "modeled", "peak": peak[0], "reason": ""},
            "device": {"ok": True, "error": "", "peak": peak[1]}, "checks": {"peak": exact, "cbs": exact, "spec": True}}


def test_results_load_last_record_wins_and_report_counts(tmp_path, monkeypatch):
    path = tmp_path / "r.jsonl.gz"
    with gzip.open(path, "at") as f:
        f.write(json.dumps(_rec("g1/ttnn.relu/0", "ttnn.relu", "bytes_differ", False, peak=(1, 2))) + "\n")
    with gzip.open(path, "at") as f:  # a second gzip member, as each chunk appends
        f.write(json.dumps(_rec("g1/ttnn.relu/0", "ttnn.relu", "exact", True)) + "\n")
        f.write(json.dumps(_rec("g1/ttnn.relu/1", "ttnn.relu", "bytes_differ", False, peak=(2048, 4096))) + "\n")
        f.write(json.dumps(_rec("g1/ttnn.relu/2", "ttnn.relu", "invalid", False)) + "\n")
    recs = opdiff.load_results(path)
    assert len(recs) == 3 and recs["g1/ttnn.relu/0"]["exact"]
    text = opdiff_report.section(list(recs.values()))
    assert "**1 of 2 instances exact (50.0%)**" in text
    assert "| ttnn.relu: model under | 1 |" in text
    assert text.startswith(opdiff_report.BEGIN) and text.endswith(opdiff_report.END)


def test_heldout_section_scores_a_runs_file_as_measured_and_now(tmp_path):
    from benchmarks import opdiff_heldout

    raw = [_rec("g1/ttnn.relu/200", "ttnn.relu", "bytes_differ", False, peak=(2048, 4096)),
           _rec("g1/ttnn.relu/201", "ttnn.relu", "exact", True),
           _rec("g1/ttnn.add/300", "ttnn.add", "exact", True, family="eltwise_binary"),
           _rec("g1/ttnn.add/301", "ttnn.add", "invalid", False, family="eltwise_binary")]
    now = [_rec("g1/ttnn.relu/200", "ttnn.relu", "exact", True)] + raw[1:]
    text = opdiff_heldout.section(tmp_path / "fresh.jsonl.gz", raw, now, 0.1)
    assert text.startswith(opdiff_heldout.BEGIN) and text.endswith(opdiff_heldout.END)
    assert "| eltwise_unary | 2 | 1 (50.0%) | 2 (100.0%) | 0 |" in text
    assert "| **all** | 3 | 2 (66.7%) | 3 (100.0%) | 0 |" in text
    assert "| `ttnn.add` | 1 | 1 (100.0%) | 1 (100.0%) |" in text
    assert "None: every held-out instance is exact." in text and "1 draws whose operands" in text


def test_run_interleaves_ops_by_their_remaining_instances():
    # ops measured further than others still get fresh ids in the first chunks (the order of `run`)
    todo = [("ttnn.relu", i) for i in range(99, 103)] + [("ttnn.to_layout", i) for i in range(594, 606)]
    assert opdiff.interleaved(todo)[:4] == [("ttnn.relu", 99), ("ttnn.to_layout", 594), ("ttnn.to_layout", 595),
                                            ("ttnn.to_layout", 596)]


def test_device_record_round_trip():
    d = {"ok": True, "error": "", "unsupported": False, "crashed": False, "peak": 8192,
         "cbs": [[4096, "dfb", [[0, 0, 1, 0]], 0], [4096, "dfb", [[0, 0, 1, 0]], 0]], "l1": [[2048, True]],
         "l1_before": 0, "l1_peak": 2048,
         "outputs": [{"shape": [32, 32], "padded_shape": [32, 32], "layout": "tile", "dtype": "bf16",
                      "buffer_type": "dram", "memory_layout": "interleaved", "shard_shape": None}]}
    dev = opdiff.device_from_record(d)
    assert dev.ok and dev.cb_per_core_peak == 8192 and [c.size for c in dev.cbs] == [4096, 4096]
    assert dev.cbs[0].cores.num_cores == 2 and dev.outputs[0].padded_shape == (32, 32)
    assert dev.l1_buffers_peak_per_bank == 2048


# ---------------------------------------------------------------------------
# Fixes found by the campaign
# ---------------------------------------------------------------------------


def test_embedding_refuses_non_bf16_weights_and_si32_indices():
    # g1/ttnn.embedding/0: f32 weights -> "Weights tensor must have BFLOAT16 dtype";
    # g1/ttnn.embedding/1: si32 indices -> "Input must be UINT32 or BFLOAT16" (after untilizing a TILE weight).
    p = run("ttnn.embedding", [T((2, 1), "u32", "row_major"), T((100, 32), "f32", "row_major")], T((2, 1, 32), "f32"))
    assert p.status == "rejected" and "BFLOAT16" in p.reason
    p = run("ttnn.embedding", [T((4, 1), "si32", "row_major"), T((100, 16), "bf16")], T((4, 1, 16), layout="row_major"))
    assert p.status == "rejected" and "UINT32 or BFLOAT16" in p.reason


def test_layernorm_weight_checks():
    # g1/ttnn.rms_norm/0: a row-major [4] beta of a [2, 4] input: beta's padded width must be 32 (TT_FATAL).
    attrs = "epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 1>"
    p = run("ttnn.rms_norm", [T((2, 4), "f32"), T((4,), "f32", "row_major")], T((2, 4), "f32"), attrs)
    assert p.status == "rejected" and "row-major beta" in p.reason
    # a row-major [2, 32] weight of a 64-wide input is accepted (32 wide, 64 / 32 rows); a TILE [64] too
    ok = run("ttnn.rms_norm", [T((2, 64)), T((2, 32), layout="row_major")], T((2, 64)),
             "epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 1, 0>")
    assert ok.status == "modeled"
    assert run("ttnn.layer_norm", [T((2, 64)), T((64,)), T((64,))], T((2, 64)),
               "epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 1, 1>").status == "modeled"


def test_fill_pad_of_an_l1_sharded_input():
    # g1/ttnn.sum/1 and g1/ttnn.mean/0: a reduction of an L1-sharded input with a padded last dim fills
    # the padding with FillPadL1ShardedProgramFactory, which refuses more than one 2D slice
    # ("N_slices > 1 not yet supported (got 6)").
    hs = T((3, 2, 172, 64), buffer="l1", mem="height_sharded", grid=(8, 1), cores=[(0, 0, 7, 0)])
    p = run("ttnn.sum", [hs], T((3, 2, 172, 1)), "dim_arg = [3 : i32], keep_dim = true")
    assert p.status == "rejected" and "N_slices" in p.reason
    # one slice: data_in 2 tiles, right_mask 1, bot_mask 1, data_out 2 (bf16: 12,288 B) on the shard cores
    # whose shard starts inside the 6 x 1 tiles of [172, 20]: 6 of the 8 shards of 32 rows.
    one = T((172, 20), buffer="l1", mem="height_sharded", grid=(8, 1), cores=[(0, 0, 7, 0)])
    p = run("ttnn.sum", [one], T((172, 1)), "dim_arg = [1 : i32], keep_dim = true")
    assert p.status == "modeled"
    fill = p.stages[0]
    assert fill.factory == "FillPadL1ShardedProgramFactory"
    assert [c.bytes for c in fill.cbs] == [4096, 2048, 2048, 4096] and fill.cores.num_cores == 6


def test_softmax_recip_and_aux_follow_an_explicit_fp32_accumulation_off():
    # g1/ttnn.softmax/0: f32 [1,3,4,2] with fp32_dest_acc_en = false: in0 and out0 2 f32 tiles (8,192),
    # recip 2,048, scaler 4,096 (f32 input), aux 2,048, exps 1 bf16 tile, mask 2,048: 28,672 B.
    cc = "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = false>"
    p = run("ttnn.softmax", [T((1, 3, 4, 2), "f32")], T((1, 3, 4, 2), "f32"),
            f"dimension = -1 : si32, numericStable = false, {cc}")
    assert [c.bytes for c in p.program.cbs] == [8192, 8192, 2048, 4096, 2048, 2048, 2048]


def test_single_core_untilize_refuses_uneven_shards():
    # g1/ttnn.untilize/2: [1, 864, 288] f32 height-sharded on 5 cores (shards of 192 rows: 864 % 192 != 0),
    # use_multicore = false: "Uneven input shard height 192 for tensor height 864".
    hs = T((1, 864, 288), "f32", buffer="l1", mem="height_sharded", grid=(5, 1), cores=[(0, 0, 4, 0)])
    out = T((1, 864, 288), "f32", "row_major", buffer="l1", mem="height_sharded", grid=(5, 1), cores=[(0, 0, 4, 0)])
    p = run("ttnn.untilize", [hs], out, "use_multicore = false")
    assert p.status == "rejected" and "uneven input shard" in p.reason


def test_sharded_tilize_refuses_an_input_shard_that_is_not_tile_sized():
    # g1/ttnn.tilize/297 (held-out draw, measurements/opdiff/runs/fresh.jsonl.gz): [1, 2, 2, 896, 512] u32 row-major
    # width-sharded on 43 cores (shards 3584 x 12) into a width-sharded TILE result of 3584 x 32 shards: the sharded
    # factory takes it and the output keeps the input's shard spec, which TensorLayout refuses (TT_FATAL
    # tensor_layout.cpp:171 "Physical shard shape (3584, 12) must be tile {32, 32} sized!").
    inst = instance("ttnn.tilize", 297)
    a = analyze(parse_text(inst.text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
    assert p.status == "rejected" and "(3584, 12) must be tile {32, 32} sized" in p.reason


@pytest.mark.parametrize("idx, refused", [(646, True), (627, False)])
def test_rank1_to_layout_into_a_shard_narrower_than_the_row_is_refused(idx, refused):
    # g1/ttnn.to_layout/646 (held-out): [97] u32 row-major -> TILE width-sharded on 2 cores: to_layout reshapes the
    # rank-1 result back from padded [32, 128] and the view refuses a sharded tensor whose shard width (64) is not
    # the padded last dim (tensor_ops.cpp:380); g1/ttnn.to_layout/627 ([952] into a one-core shard) runs.
    inst = instance("ttnn.to_layout", idx)
    a = analyze(parse_text(inst.text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
    assert (p.status == "rejected" and "Changing the last dimension of a sharded tensor" in p.reason) == refused


def test_rank5_sharded_untilize_checks_its_padded_output_against_the_shard_grid():
    # g1/ttnn.untilize/337 (held-out): [2, 8, 8, 31, 92] si32 TILE height-sharded on 43 cores into 93-row shards:
    # build_ndiml_untilize's native untilize keeps the padded height 2*8*8*32 = 4,096 rows, 45 shards of 93 rows
    # for 43 cores (TT_FATAL tensor_spec.cpp:173); g1/ttnn.untilize/106 (rank 5, 192 padded rows in 3 shards of
    # 64) ran.
    for idx, refused in ((337, True), (106, False)):
        inst = instance("ttnn.untilize", idx)
        a = analyze(parse_text(inst.text, "t.mlir"))
        p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
        assert (p.status == "rejected" and "Number of shards along height 45 must not exceed number of cores 43"
                in p.reason) == refused, (idx, p.status, p.reason)


def test_rank5_sharded_untilize_views_its_result_back_through_the_shard_width():
    # g1/ttnn.untilize/405 (held-out): [2, 7, 5, 12, 88] u32 TILE block-sharded in 120 x 44 shards: the native
    # untilize's row-major sharded output is aligned to its shard width (88 wide), and build_ndiml_untilize's view
    # back to the padded width 96 refuses a shard narrower than the row (TT_FATAL tensor_ops.cpp:380);
    # g1/ttnn.untilize/106 (height-sharded, the shard as wide as the row) ran.
    for idx, refused in ((405, True), (106, False)):
        inst = instance("ttnn.untilize", idx)
        a = analyze(parse_text(inst.text, "t.mlir"))
        p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
        assert (p.status == "rejected" and "Changing the last dimension of a sharded tensor" in p.reason
                and "from padded width 88 to 96" in p.reason) == refused, (idx, p.status, p.reason)


@pytest.mark.parametrize("idx, factory, dfbs", [
    (122, "TransposeWHProgramFactory", [12288, 16384, 24576]),
    (80, "TransposeWHProgramFactory", [24576, 139264, 417792]),
    (65, "TransposeWHProgramFactory", [24576, 704512, 1056768]),
    (375, "PermuteDeviceOperation::MultiCoreBlockedGeneric", None),
    (489, "TransposeHCRMProgramFactory", [21888]),
])
def test_row_major_sharded_transpose_into_an_interleaved_result(idx, factory, dfbs):
    # transpose.cpp: a row-major WH transpose whose (2 Wp + 2 Hp + Hp Wp) * element_size fits the free L1 runs
    # TransposeWHProgramFactory's row-major path (in0 2 Wt, out 2 Ht, tilize Ht Wt tiles: g1/ttnn.transpose/122
    # [65, 128], 80 [4, 1088, 192]; 65 [2736, 96] f32 asks for 1,785,856 B, which tt-metal refuses), else the
    # permute (g1/ttnn.transpose/375, [1, 41677] f32); HC runs TransposeHCRM (g1/ttnn.transpose/489: 19 sticks of
    # 1,152 B, the DRAM output's aligned page).
    inst = instance("ttnn.transpose", idx)
    a = analyze(parse_text(inst.text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
    assert p.status == "modeled" and len(p.stages) == 1 and p.stages[0].factory.endswith(factory)
    if dfbs is not None:
        assert sorted(c.bytes for c in p.stages[0].static_cbs) == dfbs


def test_pad_of_a_sharded_tile_tensor_into_a_sharded_result_fills_its_padding_first():
    # g1/ttnn.pad/398 (held-out): a [2, 4, 7, 47, 88] f32 TILE height-sharded input padded into a sharded result:
    # pad.cpp fills the input's tile padding first, and FillPadL1ShardedProgramFactory refuses 56 2D slices.
    inst = instance("ttnn.pad", 398)
    a = analyze(parse_text(inst.text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
    assert p.status == "rejected" and "N_slices > 1 not yet supported (got 56)" in p.reason


def test_block_split_without_a_sub_block_solution_is_a_refusal():
    # g1/ttnn.concat/453 (held-out): four [196608, w] si32 L1 inputs concatenated on dim 1 go through untilize; the
    # block factory's split of a 6144x2-tile slice finds no sub-block within the 38 tiles the free L1 holds, and
    # compute_ncores_wh_sb throws (TT_FATAL work_split_tilize.hpp:189 "No solution found for single_block_size").
    inst = instance("ttnn.concat", 453)
    a = analyze(parse_text(inst.text, "t.mlir"))
    # the free L1 the capture saw below the four L1 inputs (the record's model.free_l1)
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=314_240)
    assert p.status == "rejected" and "No solution found for single_block_size" in p.reason


def test_rank5_row_major_sharded_transpose_is_a_permute():
    # g1/ttnn.transpose/331 (held-out) and 112: rank-5 row-major height-sharded transposes run
    # PermuteDeviceOperation::MultiCoreBlockedGeneric (transpose.cpp sends rank > 4 to ttnn::permute): 12,288 B.
    for idx in (331, 112):
        inst = instance("ttnn.transpose", idx)
        a = analyze(parse_text(inst.text, "t.mlir"))
        p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
        assert p.status == "modeled" and p.stages[0].factory == "PermuteDeviceOperation::MultiCoreBlockedGeneric"
        assert p.stages[0].busiest_core()[1] == 12_288


def test_tile_pad_with_front_padding_is_a_refusal():
    # g1/ttnn.pad/0: TT_FATAL "ttnn.pad: on device tile padding does not support front padding".
    p = run("ttnn.pad", [T((3, 3, 1), "f32")], T((3, 99, 1), "f32"),
            "padding = array<i32: 0, 0, 32, 64, 0, 0>, use_multicore = true, value = 0.000000e+00 : f32")
    assert p.status == "rejected" and "front padding" in p.reason


def test_row_major_sharded_unary_takes_the_interleaved_path():
    # g1/ttnn.erf/0: a [2, 1] bf16 row-major tensor height-sharded on one core: c_0 and c_2 of 2 tiles
    # (2 x 2,048 B each) on all 110 cores, not the shard-backed CBs.
    hs = T((2, 1), layout="row_major", buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.erf", [hs], hs)
    assert [(c.bytes, c.globally_allocated, c.cores.num_cores) for c in p.program.cbs] == [(4096, False, 110)] * 2


def test_rank1_tiled_repeat_is_modeled():
    # The const-eval broadcast tensor<1xbf16> -> tensor<4096xbf16> (issue: IndexError in twvp_program): the row-major
    # tilize of the repeated [4096] row sees it as one [1, 4096] row (tilize_with_val_padding of a 1D input).
    p = run("ttnn.repeat", [T((1,))], T((4096,)), "repeat_dims = #ttnn.shape<4096>")
    assert p.status == "modeled"
    assert [s.factory for s in p.stages][-1].startswith("TilizeWithValPadding")


def test_group_norm_of_a_row_major_interleaved_input_is_refused():
    # g1/ttnn.group_norm/0: "group_norm: interleaved (non-sharded) input must be in TILE layout, got ROW_MAJOR".
    attrs = "epsilon = 9.99999974E-6 : f32, num_groups = 32 : si32, operandSegmentSizes = array<i32: 1, 0, 0, 0>"
    p = run("ttnn.group_norm", [T((2, 1, 1024, 512), layout="row_major")], T((2, 1, 1024, 512), layout="row_major"), attrs)
    assert p.status == "rejected" and "TILE layout" in p.reason
    assert run("ttnn.group_norm", [T((1, 1, 256, 32))], T((1, 1, 256, 32)), attrs).status == "modeled"


def test_fill_pad_refusal_comes_before_the_block_float_min_path():
    # g1/ttnn.min/5: a bfloat8_b [3, 3, 5, 49, 25] width-sharded min over every dim: FillPadL1ShardedProgramFactory
    # refuses its 45 slices before any negate program.
    ws = T((3, 3, 5, 49, 25), "bfp_bf8", buffer="l1", mem="width_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.min", [ws], T((1, 1, 1, 1, 1), "bfp_bf8"), "keep_dim = true")
    assert p.status == "rejected" and "N_slices" in p.reason


def test_block_float_fill_pad_goes_through_bf16():
    # g1/ttnn.max/0 and g1/ttnn.mean/1: fill_implicit_tile_padding of a bfloat8_b tensor is a typecast to bf16
    # (2 x 1,088 + 2 x 2,048 B), FillPad of the bf16 tensor, and a typecast back: the device's first three programs.
    from ttanalyze.ops import data_movement as DM
    from ttanalyze.ops.tensors import tensor_of

    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.relu", [T((1, 4, 2), "bfp_bf8")], [T((1, 4, 2), "bfp_bf8")])), "t.mlir"))
    x = tensor_of(a.program.ops[0].operands[0], MOCK, "x")
    steps = DM.fill_pad_program(x, (11, 10), MOCK)
    assert [(s.factory, [c.bytes for c in s.cbs]) for s in steps] == [
        ("TypecastProgramFactory", [2176, 4096]), ("FillPadProgramFactory", [4096, 2048, 2048, 4096]),
        ("TypecastProgramFactory", [4096, 2176])]
    assert all(s.cores.num_cores == 1 for s in steps)


def test_block_float_concat_through_row_major_returns_bf16():
    # g1/ttnn.concat/3: rank-1 bfloat8_b inputs are untilized (to bf16), concatenated row-major and tilized back:
    # ttnn returns a bf16 tensor where the IR declares bfloat8_b.
    from ttanalyze.ops import spec_model
    from ttanalyze.programs import context_for

    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.concat", [T((100,), "bfp_bf8"), T((60,), "bfp_bf8")], [T((160,), "bfp_bf8")], "dim = 0 : si32")), "t.mlir"))
    op = a.program.ops[0]
    spec = spec_model("ttnn.concat")(context_for(a, op, MOCK, FULL))[0]
    assert str(spec.dtype) == "bf16" and spec.padded_shape == (32, 160)


def test_row_major_reshard_across_layouts_goes_through_dram():
    # to_memory_config_op.cpp use_reshard_workaround: a row-major width- -> height-sharded move with different
    # shard widths is sharded_to_interleaved into DRAM, then interleaved_to_sharded (g1/ttnn.to_memory_config/269,
    # held-out: si32 [2, 2, 1, 825, 312]; the second program's scratchpad 4 x align(1,248 + 64, 64) = 5,376 B).
    inst = instance("ttnn.to_memory_config", 269)
    a = analyze(parse_text(inst.text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=FULL)
    assert [s.factory for s in p.stages] == ["ShardedToInterleavedProgramFactory", "InterleavedToShardedProgramFactory"]
    assert p.stages[1].extra_l1_per_core == 5376


@pytest.mark.parametrize("op, idx, width", [("ttnn.clamp_scalar", 25, 276), ("ttnn.log1p", 50, 1032),
                                            ("ttnn.to_memory_config", 388, 2160)])
def test_row_major_sharded_output_width_aligns_to_the_shard_width(op, idx, width):
    # RowMajorPageConfig::create_default_alignment: a row-major 2D-sharded tensor's width is aligned to its shard
    # width (g1/ttnn.clamp_scalar/25: 274 in 4-wide shards -> 276; log1p/50: 1025 in 12 -> 1032;
    # to_memory_config/388: 2157 in 80 -> 2160), the padded shape the device reports.
    p = opdiff.prepare(op, idx, generators())
    specs = opdiff.model_specs(p["analysis"], p["op"], MOCK, FULL)
    assert p["error"] is None and list(specs[0]["padded_shape"])[-1] == width
