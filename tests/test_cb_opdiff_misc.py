"""Fixes the op-level campaign drove in kv_cache, random, data movement, layout conversion and unary ops, and
the campaign's verdict scoring (benchmarks/opdiff.py, ttanalyze/executor/cbcheck.py).

Each test cites the campaign instances that measured it (``measurements/opdiff/results.jsonl.gz``, keyed by
instance id: the record holds the device's CBs, factories and error text); the bytes are derived by hand.
No device is needed.
"""

from __future__ import annotations

from benchmarks import opdiff
from benchmarks.opdiff_instances import generators, instance
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.executor.cbcheck import compare_cbs, predict
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

from .conftest import BH_SYSTEM_DESC

FULL = 1_461_120  # the mock P150's free L1 per core with nothing allocated (l1_size - base)


def analyzed(op, operands, results, attrs=""):
    results = results if isinstance(results, list) else [results]
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, results, attrs)), "t.mlir"))
    return a, next(o for o in a.program.ops if o.name == op)


def run(op, operands, results, attrs=""):
    a, o = analyzed(op, operands, results, attrs)
    return program_of(a, o, arch=MOCK, free_l1=FULL)


def T(shape, dtype="bf16", layout="tile", buffer="dram", mem="interleaved", grid=(1, 1), cores=None):
    crs = CoreRangeSet(tuple(CoreRange(CoreCoord(a, b), CoreCoord(c, d)) for a, b, c, d in cores)) if cores else None
    return TensorDesc(tuple(shape), dtype, layout, buffer, mem, grid, crs)


def device(ok=True, peak=0, error="", l1_before=0):
    return opdiff.device_from_record({"ok": ok, "error": error, "unsupported": False, "crashed": False, "peak": peak,
                                      "cbs": [], "l1": [], "l1_before": l1_before, "outputs": []})


# ---------------------------------------------------------------------------
# The campaign's verdict: TTA010's condition scored as the analyzer's refusal
# ---------------------------------------------------------------------------


def test_a_cb_region_beyond_l1_is_scored_as_a_refusal_with_tt_metals_figure():
    # g1/ttnn.repeat/11: a [1, 1, 1, 614915] si32 row-major repeat x[3, 1, 4, 1]: RepeatProgramFactoryHigherDim's two
    # scratchpads of 128 + 2,459,660 B; the second starts at the next 64-B boundary (+52 B), so the region ends at
    # 111,744 + 2,459,840 + 2,459,788 = 5,031,372 B: tt-metal's "grow to 5031372 B which is beyond max L1 size".
    gens = generators()
    inst = instance("ttnn.repeat", 11, gens["ttnn.repeat"])
    a = analyze(parse_text(inst.text, "t.mlir"))
    op = next(o for o in a.program.ops if o.pos.line == inst.line)
    err = ("TT_THROW: Statically allocated dataflow buffers on core range [0-0 - 10-9] grow to 5031372 B which is "
           "beyond max L1 size of 1572864 B")
    cmp = compare_cbs(a, op, device(ok=False, error=err), arch=MOCK)
    assert cmp.model_status == "modeled" and cmp.outcome == "both_refused"
    assert "grow to 5031372 B" in cmp.refusal
    # the same program on a device that ran it (it cannot): the analyzer's refusal is a false one
    assert compare_cbs(a, op, device(ok=True, peak=4_919_628), arch=MOCK).outcome == "model_refused"


def test_the_verdict_leaves_fitting_programs_to_the_peak_comparison():
    p_a, p_op = analyzed("ttnn.relu", [T((64, 64))], T((64, 64)))
    cmp = compare_cbs(p_a, p_op, device(ok=True, peak=8192), arch=MOCK)
    assert cmp.refusal is None and cmp.outcome == "exact"


def test_an_output_beyond_the_free_l1_leaves_the_free_l1_to_the_program():
    # g1/ttnn.to_layout/69: a [1, 3626834] bf16 TILE -> row-major L1 result, one 7,253,696-B page per bank: the
    # allocation fails (TTA004) and a NO_DISPATCH capture only traces it; the untilize block factory saw the whole
    # free L1 (blocks of 346 tiles, 2 x 708,608 B), not "single_block_size_limit >= 1".
    a, op = analyzed("ttnn.to_layout", [T((1, 3626834))], T((1, 3626834), layout="row_major", buffer="l1", grid=(10, 11)),
                     "dtype = #ttcore.supportedDataTypes<bf16>, layout = #ttnn.layout<row_major>")
    verdict, free = predict(a, op, device(), MOCK)
    assert free == FULL and verdict.status == "modeled"
    assert max(p.region_bytes_per_core() for p in verdict.stages) == 1_417_216


# ---------------------------------------------------------------------------
# Layout conversion
# ---------------------------------------------------------------------------


def test_rank5_padded_untilize_runs_from_a_sharded_input():
    # g1/ttnn.untilize/68, 193: a width-sharded rank-5 padded input runs the native UntilizeDeviceOperation, whose
    # interleaved output keeps the padded shape the final reshape needs; an interleaved one is refused (untilize/3).
    ws = T((1, 1, 5, 54, 19), buffer="l1", mem="width_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    out = T((1, 1, 5, 54, 19), layout="row_major")
    p = run("ttnn.untilize", [ws], out, "use_multicore = false")
    assert p.status == "modeled" and [c.bytes for c in p.program.cbs] == [2048, 2048]
    assert run("ttnn.untilize", [T((1, 1, 1, 2, 1197))], T((1, 1, 1, 2, 1197), layout="row_major"),
               "use_multicore = false").status == "rejected"


def test_untilize_of_a_sharded_input_keeps_the_padded_shape_in_an_interleaved_output():
    # g1/ttnn.untilize/0: [2, 1, 2, 2] f32 height-sharded -> DRAM: padded [2, 1, 32, 32]; g1/ttnn.untilize/76: a
    # sharded output comes back unpadded.
    from ttanalyze.ops import spec_model
    from ttanalyze.programs import context_for

    hs = T((2, 1, 2, 2), "f32", buffer="l1", mem="height_sharded", grid=(2, 1), cores=[(0, 0, 1, 0)])
    a, op = analyzed("ttnn.untilize", [hs], T((2, 1, 2, 2), "f32", layout="row_major"), "use_multicore = true")
    assert spec_model("ttnn.untilize")(context_for(a, op, MOCK, FULL))[0].padded_shape == (2, 1, 32, 32)
    ws = T((64,), buffer="l1", mem="width_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    wo = T((64,), layout="row_major", buffer="l1", mem="width_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    a, op = analyzed("ttnn.untilize", [ws], wo, "use_multicore = true")
    assert spec_model("ttnn.untilize")(context_for(a, op, MOCK, FULL))[0].padded_shape == (64,)


def test_tilize_of_a_sharded_input_needs_use_multicore():
    # g1/ttnn.tilize/47, 159: "Multicore must be enabled for sharded input".
    hs = T((608, 192), "u32", "row_major", buffer="l1", mem="height_sharded", grid=(44, 1), cores=[(0, 0, 10, 3)])
    p = run("ttnn.tilize", [hs], T((608, 192), "u32"), "use_multicore = false")
    assert p.status == "rejected" and "Multicore must be enabled" in p.reason


def test_batched_block_sharded_untilize_with_unpadding_is_refused():
    # g1/ttnn.to_layout/256: [2, 1024, 31] si32 block-sharded -> row-major L1: "Can only write unbatched output
    # interleaved".
    bs = T((2, 1024, 31), "si32", buffer="l1", mem="block_sharded", grid=(5, 1), cores=[(0, 0, 0, 4)])
    p = run("ttnn.to_layout", [bs], T((2, 1024, 31), "si32", "row_major", buffer="l1", grid=(10, 11)),
            "dtype = #ttcore.supportedDataTypes<si32>, layout = #ttnn.layout<row_major>")
    assert p.status == "rejected" and "unbatched" in p.reason


def test_assign_with_a_dtype_change_between_memory_configs_has_an_output_buffer():
    # g1/ttnn.assign/11: f32 DRAM -> bf16 L1: DefaultTilized with c_0 2 x 4,096 B and c_16 2 x 2,048 B.
    p = run("ttnn.assign", [T((1, 1, 2, 2013), "f32")], T((1, 1, 2, 2013), buffer="l1", grid=(10, 11)),
            "dtype = #ttcore.supportedDataTypes<bf16>")
    assert [c.bytes for c in p.program.cbs] == [8192, 4096]


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


def test_rank1_tile_pad_past_its_tiles_is_refused():
    # g1/ttnn.pad/30 (interleaved [128] + 31: 'MeshBuffer must be large enough') and g1/ttnn.pad/16 (height-sharded
    # [1] + 32: 'Shard width 32 must match physical width 64'); g1/ttnn.pad/61 ([129] + 31 fits its 160 columns) runs.
    attrs = "padding = array<i32: 0, {}>, use_multicore = true, value = 0.000000e+00 : f32"
    p = run("ttnn.pad", [T((128,))], T((159,)), attrs.format(31))
    assert p.status == "rejected" and "MeshBuffer" in p.reason
    hs = T((1,), "f32", buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.pad", [hs], T((33,), "f32"), attrs.format(32))
    assert p.status == "rejected" and "Shard width 32 must match physical width 64" in p.reason
    assert run("ttnn.pad", [T((129,))], T((160,)), attrs.format(31)).status == "modeled"


def test_row_major_sharded_pad_needs_aligned_shard_rows():
    # g1/ttnn.pad/231: [56, 149] f32 height-sharded: 596-B rows are not 16-B aligned (TT_FATAL); 96 f32 columns
    # (384 B, g1/ttnn.pad/28) run.
    attrs = "padding = array<i32: 0, 0, 0, 256>, use_multicore = true, value = 0.000000e+00 : f32"
    hs = T((56, 149), "f32", "row_major", buffer="l1", mem="height_sharded", grid=(19, 1), cores=[(0, 0, 10, 0), (0, 1, 7, 1)])
    p = run("ttnn.pad", [hs], T((56, 405), "f32", "row_major"), attrs)
    assert p.status == "rejected" and "596 bytes" in p.reason


def test_concat_of_sharded_and_interleaved_inputs_is_refused():
    # g1/ttnn.concat/127: a height-sharded and a DRAM row-major input concatenated on dim 2 of 5:
    # "All tensors must be sharded or all must be interleaved".
    hs = T((3, 5, 9, 11, 55), layout="row_major", buffer="l1", mem="height_sharded", grid=(40, 1),
           cores=[(0, 0, 10, 2), (0, 3, 6, 3)])
    p = run("ttnn.concat", [hs, T((3, 5, 9, 11, 55), layout="row_major")], T((3, 5, 18, 11, 55), layout="row_major"),
            "dim = 2 : si32")
    assert p.status == "rejected" and "all must be interleaved" in p.reason


# ---------------------------------------------------------------------------
# kv_cache, random, unary
# ---------------------------------------------------------------------------


def test_f32_update_cache_buffers():
    # g1/ttnn.update_cache/37: cache [2, 1, 128, 32] f32, input [1, 1, 1, 32] f32 in DRAM (Wt 1, granularity 2):
    # c_0 4 f32 tiles, c_1 2 x 2,048 B, c_24/25 4 Float32 tiles, c_26 2 x 2,048 B, c_16 32 f32 tiles.
    p = run("ttnn.update_cache", [T((2, 1, 128, 32), "f32"), T((1, 1, 1, 32), "f32"), T((1,), "u32", "row_major")], [],
            "batch_offset = 0 : ui32")
    assert [c.bytes for c in p.program.cbs] == [16384, 4096, 16384, 4096, 131072]


def test_update_cache_refuses_rows_not_a_multiple_of_the_shard_height():
    # g1/ttnn.update_cache/59: input [1, 16, 1, 32] height-sharded on 6 cores: 512 rows, shards of 96.
    hs = T((1, 16, 1, 32), buffer="l1", mem="height_sharded", grid=(6, 1), cores=[(0, 0, 5, 0)])
    p = run("ttnn.update_cache", [T((1, 16, 256, 32)), hs, T((1,), "u32", "row_major")], [], "batch_offset = 0 : ui32")
    assert p.status == "rejected" and "shard height 96" in p.reason


def test_dropout_of_a_sharded_tile_tensor_runs_the_interleaved_program():
    # g1/ttnn.dropout/22: [31, 127] bf16 height-sharded: 4 tiles on cores (0,0)-(0,3), 2 x 2,048 B twice.
    hs = T((31, 127), buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.dropout", [hs], hs, "prob = 0.2 : f32, scale = 1.25 : f32, seed = 7 : ui32, use_per_device_seed = true")
    assert p.status == "modeled" and [c.bytes for c in p.program.cbs] == [4096, 4096]
    assert p.program.cores.num_cores == 4


def test_rank1_row_major_sharded_unary_is_refused():
    # g1/ttnn.abs/11: [3525] bf16 row-major height-sharded: "Rank must be at least 2"; a TILE one runs.
    hs = T((3525,), layout="row_major", buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.abs", [hs], hs)
    assert p.status == "rejected" and "Rank must be at least 2" in p.reason
    ts = T((3525,), buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    assert run("ttnn.abs", [ts], ts).status == "modeled"


def test_a_copy_too_wide_for_the_same_config_factory_takes_the_default_one():
    # g1/ttnn.assign/66 (held out, --base 99): [1, 1, 1, 4, 520278] bf16 row-major DRAM -> DRAM: the same-config
    # CBs (2 x 1,040,576 B) exceed l1_size - base, so DefaultRowMajor runs: a 2 x 262,144-B output DFB and a
    # 262,144-B input scratchpad (pages capped at 256 KiB); TTA010 must not refuse it.
    rm = T((1, 1, 1, 4, 520278), layout="row_major")
    p = run("ttnn.assign", [rm], rm, "dtype = #ttcore.supportedDataTypes<bf16>")
    assert p.program.factory == "CopyDeviceOperation::DefaultRowMajor"
    assert [c.bytes for c in p.program.cbs] == [524288] and p.program.extra_l1_per_core == 262144


def test_a_sharded_tile_copy_into_an_interleaved_config_runs_default_tilized():
    # g1/ttnn.assign/0: [3, 4] bf16 height-sharded -> f32 DRAM: DefaultTilized on 1 core, 2 x 2,048 B in and
    # 2 x 4,096 B out; g1/ttnn.assign/60: bfloat8_b block-sharded -> L1: 60 tiles on 60 cores, 2 x 1,088 B.
    hs = T((3, 4), buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.assign", [hs], T((3, 4), "f32"), "dtype = #ttcore.supportedDataTypes<f32>")
    assert p.program.factory == "CopyDeviceOperation::DefaultTilized" and [c.bytes for c in p.program.cbs] == [4096, 8192]
    bs = T((2, 1, 5, 34, 73), "bfp_bf8", buffer="l1", mem="block_sharded", grid=(7, 3), cores=[(0, 0, 2, 6)])
    p = run("ttnn.assign", [bs], T((2, 1, 5, 34, 73), "bfp_bf8", buffer="l1", grid=(10, 11)),
            "dtype = #ttcore.supportedDataTypes<bfp_bf8>")
    assert [c.bytes for c in p.program.cbs] == [2176] and p.program.cores.num_cores == 60


def test_rank1_block_float_concat_of_tile_multiples_is_refused():
    # g1/ttnn.concat/251, 255, 376: rank-1 bfloat8_b [864] + [864] (all tile multiples) refused after the untilize;
    # g1/ttnn.concat/85 ([4] + [64] + [96], a padded input) runs.
    p = run("ttnn.concat", [T((864,), "bfp_bf8"), T((864,), "bfp_bf8")], T((1728,), "bfp_bf8"), "dim = 0 : si32")
    assert p.status == "rejected" and "Index is out of bounds" in p.reason
    p = run("ttnn.concat", [T((4,), "bfp_bf8"), T((64,), "bfp_bf8"), T((96,), "bfp_bf8")], T((164,), "bfp_bf8"),
            "dim = 0 : si32")
    assert p.status == "modeled"


def test_a_padded_height_sharded_concat_with_an_interleaved_input_is_refused():
    # g1/ttnn.concat/294 (held out): [1, 2] f32 height-sharded + two DRAM inputs on dim 0 (untilize round trip).
    hs = T((1, 2), "f32", buffer="l1", mem="height_sharded", grid=(1, 1), cores=[(0, 0, 0, 0)])
    p = run("ttnn.concat", [hs, T((1, 2), "f32"), T((1, 2), "f32")], T((3, 2), "f32"), "dim = 0 : si32")
    assert p.status == "rejected" and "all must be interleaved" in p.reason
