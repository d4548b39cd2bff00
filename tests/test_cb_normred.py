"""Normalization and reduction models against the op-level campaign's device numbers.

Each test replays one campaign instance (:mod:`benchmarks.opdiff_instances`, the module tt-mlir would emit)
through the model and checks the CBs the mock P150 ran (ttnn 0.81.1, NO_DISPATCH capture; the records are in
``measurements/opdiff/results.jsonl.gz``, keyed by the instance id).
"""

from __future__ import annotations

from benchmarks.opdiff_instances import instance
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

FULL = 1_461_120


def model(op: str, i: int, free_l1: int = FULL):
    inst = instance(op, i)
    a = analyze(parse_text(inst.text, "t.mlir"))
    return program_of(a, next(o for o in a.program.ops if o.pos.line == inst.line), arch=MOCK, free_l1=free_l1)


def stage_cb_bytes(stage) -> list[int]:
    """One program's static CB sizes, sorted."""
    return sorted(c.bytes for c in stage.static_cbs)


def cb_bytes(p) -> list[list[int]]:
    """Each program's static CB sizes, sorted."""
    return [stage_cb_bytes(s) for s in p.stages]


# ---------------------------------------------------------------------------
# Softmax
# ---------------------------------------------------------------------------


def test_softmax_rank5_last_dim_runs_general_w_small():
    # g1/ttnn.softmax/6: bfp8 [3,3,2,1024,31] over -1, fp32 accumulation: GeneralWSmall, in/out 1 bfp8 tile,
    # mask and two scalers bf16, five f32 intermediates: 28,800 B.
    p = model("ttnn.softmax", 6)
    assert [s.factory for s in p.stages] == ["SoftmaxDeviceOperation::SoftmaxProgramFactoryGeneralWSmall"]
    assert cb_bytes(p) == [[1088, 1088, 2048, 2048, 2048, 4096, 4096, 4096, 4096, 4096]]


def test_softmax_over_h_runs_general_h_large_when_the_column_exceeds_512_kb():
    # g1/ttnn.softmax/4: bfp8 [6080,64] over -2 (Ht 190): HLarge, 35,072 B.
    p = model("ttnn.softmax", 4)
    assert [s.factory for s in p.stages] == ["SoftmaxDeviceOperation::SoftmaxProgramFactoryGeneralHLarge"]
    assert cb_bytes(p) == [[2048, 2048, 2048, 2176, 2176, 4096, 4096, 4096, 4096, 8192]]


def test_softmax_over_a_leading_dim_runs_general_c_large():
    # g1/ttnn.softmax/5: f32 [4,8,5,13,115] over -3: CLarge, 3 x 8,192 + 4 x 4,096 B.
    p = model("ttnn.softmax", 5)
    assert [s.factory for s in p.stages] == ["SoftmaxDeviceOperation::SoftmaxProgramFactoryGeneralCLarge"]
    assert cb_bytes(p) == [[4096, 4096, 4096, 4096, 8192, 8192, 8192]]


def test_softmax_general_f32_without_fp32_accumulation_is_refused():
    # g1/ttnn.softmax/3: f32 [1,393293] over -2 with fp32_dest_acc_en = false: tt-metal throws "FP32
    # destination accumulation must be enabled" (softmax_program_factory_general_h_small.cpp).
    p = model("ttnn.softmax", 3)
    assert p.status == "rejected" and "FP32 destination accumulation" in p.reason


def test_softmax_fp32_accumulation_off_blocks_by_eight():
    # g1/ttnn.softmax/7: bfp8 [8,320,1869] (Wt 59) stable, fp32_dest_acc_en = false: block 8, the row padded
    # to 64 tiles: in0 and out0 16 bfp8 tiles (17,408), exps and x 64 bf16 tiles (131,072), five 2,048-B tiles.
    p = model("ttnn.softmax", 7)
    assert cb_bytes(p) == [[2048] * 5 + [17408, 17408, 131072, 131072]]


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def test_h_reduce_is_one_pass_with_fp32_accumulation_off():
    # g1/ttnn.max/4: f32 [4552,16], all dims, fp32_dest_acc_en = false: FillPad, W reduce, then ONE H reduce
    # of the 143-tile column (4,096 + 8,192 + 8,192 B), no two-pass partials.
    p = model("ttnn.max", 4)
    assert [s.factory.split("::")[-1] for s in p.stages] == ["FillPadProgramFactory", "ReduceMultiCoreWProgramFactory",
                                                             "ReduceMultiCoreHProgramFactory"]
    assert max(sum(c.bytes for c in s.static_cbs) for s in p.stages) == 24576
    # g1/ttnn.max/7: bf16 [6611,4151] over (0, 1), fp32 off: one H pass, 22,528 B at the peak.
    p = model("ttnn.max", 7)
    assert len(p.stages) == 3 and max(sum(c.bytes for c in s.static_cbs) for s in p.stages) == 22528


def test_softmax_general_defaults_to_fp32_accumulation():
    # g1/ttnn.softmax/11: bfp8 [1,2,338946] over -3 (dim 1 of the 4D view), no compute config: CLarge with f32
    # intermediates: in/out 2 bfp8 tiles, exps/recip/tmp 4,096, add 8,192, max 1 bfp8 tile: 25,920 B.
    p = model("ttnn.softmax", 11)
    assert cb_bytes(p) == [[1088, 2176, 2176, 4096, 4096, 4096, 8192]]


# ---------------------------------------------------------------------------
# Group norm
# ---------------------------------------------------------------------------


def test_group_norm_dram_grid():
    from ttanalyze.ops.reduction import group_norm_dram_grid

    # Ht 8 -> 8x1, Ht 32 -> 8x4, Ht 126 with 2 batches -> 9x2 (9x7 = 63 virtual rows would split a batch)
    assert group_norm_dram_grid((11, 10), 32, 4, 8, 1) == (8, 1)
    assert group_norm_dram_grid((11, 10), 32, 2, 32, 1) == (8, 4)
    assert group_norm_dram_grid((11, 10), 32, 2, 126, 2) == (9, 2)


def test_group_norm_mcast():
    # g1/ttnn.group_norm/1: [1,1,256,32] 4 groups: Mcast on 8x1 cores, seventeen CBs, 16 x 2,048 + the 4,096-B mask.
    p = model("ttnn.group_norm", 1)
    assert p.program.factory == "GroupNormDeviceOperation::GroupNormMcastProgramFactory"
    assert cb_bytes(p) == [[2048] * 16 + [4096]] and p.program.cores.num_cores == 8
    # g1/ttnn.group_norm/2: [2,1,2016,32] 2 groups: 9x2 cores, 7-tile blocks: 122,880 B per core.
    p = model("ttnn.group_norm", 2)
    assert sum(c.bytes for c in p.program.static_cbs) == 122880 and p.program.cores.num_cores == 18
    # g1/ttnn.group_norm/8: [1,1,1024,32]: 8x4 cores, 36,864 B.
    p = model("ttnn.group_norm", 8)
    assert sum(c.bytes for c in p.program.static_cbs) == 36864 and p.program.cores.num_cores == 32


def test_group_norm_no_mcast():
    # g1/ttnn.group_norm/3: [1,1,16,32] (Ht 1): one core, batch >= virtual rows: NoMcast, 16 x 2,048 + an
    # 8,192-B mask, and seven empty second-group CBs (0 B on no core): 40,960 B.
    p = model("ttnn.group_norm", 3)
    assert p.program.factory == "GroupNormDeviceOperation::GroupNormNoMcastProgramFactory"
    assert cb_bytes(p) == [[0] * 7 + [2048] * 16 + [8192]]


def test_integer_sum_moves_leading_dims_with_transposes():
    # g1/ttnn.sum/0: si32 [4,3,1,4] over (1, 2, 3): FillPad, W, H, TransposeHC, H, TransposeHC (no FastReduceNC);
    # si32 2-tile input and output (8,192), bf16 scaler: 24,576 B at the peak (the fill).
    p = model("ttnn.sum", 0)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "FillPadProgramFactory", "ReduceMultiCoreWProgramFactory", "ReduceMultiCoreHProgramFactory",
        "TransposeHCTiledInterleavedProgramFactory", "ReduceMultiCoreHProgramFactory",
        "TransposeHCTiledInterleavedProgramFactory"]
    assert cb_bytes(p)[1] == [2048, 8192, 8192] and max(sum(b) for b in cb_bytes(p)) == 24576


def test_sharded_input_reduced_through_interleaved_intermediates():
    # g1/ttnn.sum/4: f32 [8969,3] block-sharded on 5 cores over (0, 1): FillPadL1Sharded on the 5 shard cores,
    # then W on 110 cores and H on one, 8,192 + 4,096 + 8,192 B each.
    p = model("ttnn.sum", 4)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "FillPadL1ShardedProgramFactory", "ReduceMultiCoreWProgramFactory", "ReduceMultiCoreHProgramFactory"]
    assert [s.cores.num_cores for s in p.stages] == [5, 110, 1]
    assert cb_bytes(p)[1:] == [[4096, 8192, 8192]] * 2


def test_block_float_min_runs_negated_reduces():
    # g1/ttnn.min/8: bfp8 [2,4,1,1] over the last dim: typecast, FillPad, typecast, then the W reduce with its
    # 1-tile acc and ineg buffers: 2,176 + 2,048 + 2,176 + 1,088 + 1,088 B on 8 cores.
    p = model("ttnn.min", 8)
    assert cb_bytes(p)[-1] == [1088, 1088, 2048, 2176, 2176] and p.stages[-1].cores.num_cores == 8


def test_float_sum_over_every_dim_keeps_the_input_format():
    # g1/ttnn.sum/7: bf16 [1,4,4,949,3212] over every dim: FillPad, FastReduceNC over dims 2, 1, 0 with bf16
    # (not f32) output tiles, a tile slice (2 tiles + 20 B of scratch), W on 30 cores, H on one: 22,528 B.
    p = model("ttnn.sum", 7)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "FillPadProgramFactory"] + ["FastReduceNCProgramFactory"] * 3 + [
        "SliceTileProgramFactory", "ReduceMultiCoreWProgramFactory", "ReduceMultiCoreHProgramFactory"]
    assert cb_bytes(p)[1:4] == [[2048, 4096, 16384]] * 2 + [[2048, 4096, 4096]]
    assert max(sum(b) for b in cb_bytes(p)) == 22528


def test_f32_min_without_fp32_accumulation_runs_the_negated_h_reduce():
    # g1/ttnn.min/1: f32 [5,3,2,283,236] over (0, 1, 3), fp32_dest_acc_en = false: min as -max(-x); the H reduce
    # of 240 columns on 110 cores (3 and 2 each) holds 8-tile input and output (the dest register without fp32
    # accumulation) and Ht 9 x lcm(3, 2) = 54-tile acc and ineg buffers: 32,768 + 4,096 + 32,768 + 2 x 221,184 B.
    p = model("ttnn.min", 1)
    assert cb_bytes(p)[1] == [4096, 32768, 32768, 221184, 221184] and p.stages[1].cores.num_cores == 110
    assert max(sum(b) for b in cb_bytes(p)) == 512000


def _h_reduce_input_tiles(columns: int, dtype: str, acc: str | None) -> int:
    from benchmarks.opdiff_instances import SYSTEM_DESC, dram
    from ttanalyze.ir.emit import module_text, single_op_func

    cc = f"compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = {acc}>, " if acc else ""
    shape = (1, 1, 64, 32 * columns)
    text = module_text(SYSTEM_DESC, single_op_func("ttnn.max", [dram(shape, dtype)], [dram((1, 1, 1, 32 * columns), dtype)],
                                                   f"{cc}dim_arg = [2 : i32], keep_dim = true"))
    a = analyze(parse_text(text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.name == "ttnn.max"), arch=MOCK, free_l1=FULL)
    return p.stages[-1].cbs[0].pages


def test_h_reduce_input_double_buffers_a_dest_register_of_columns():
    # measurements/normred/probe.py (normred/hshare*): [1,1,64,32*C] over H on 110 cores.  fp32 accumulation on
    # (or absent): 2 tiles for 2 or 3 columns per core, 8 for 4 or 8; off: 2 tiles up to 4 columns, 16 from 8.
    assert [_h_reduce_input_tiles(c, "f32", None) for c in (220, 330, 440, 880)] == [2, 2, 8, 8]
    assert [_h_reduce_input_tiles(c, "bf16", "false") for c in (220, 440, 880, 1760)] == [2, 2, 16, 16]
    assert _h_reduce_input_tiles(880, "bf16", "true") == 8
    # g1/ttnn.mean/1: bfp8 [3,7,5,27,262] over dim 3, fp32 off, 945 columns (8 or 9 per core): 16 bfp8 tiles.
    assert cb_bytes(model("ttnn.mean", 1))[3] == [2048, 2176, 17408]


def _softmax_in0_out0(width: int) -> list[int]:
    from benchmarks.opdiff_instances import SYSTEM_DESC, dram
    from ttanalyze.ir.emit import module_text, single_op_func

    cc = "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = false>"
    t = dram((1, 1, 32, width))
    text = module_text(SYSTEM_DESC, single_op_func("ttnn.softmax", [t], [t], f"dimension = -1 : si32, numericStable = true, {cc}"))
    a = analyze(parse_text(text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.name == "ttnn.softmax"), arch=MOCK, free_l1=FULL)
    return [c.pages for c in p.program.cbs[:2]]


def test_softmax_pads_the_row_only_when_that_takes_fewer_blocks():
    # measurements/normred/probe.py (normred/softmax_wt*_off), bf16 stable, fp32 accumulation off (blocks up to 8):
    # Wt 6 and 12 keep block 6 (in0 Wt tiles, out0 12); Wt 20 is processed as 24 tiles with block 8.
    assert _softmax_in0_out0(192) == [6, 12]
    assert _softmax_in0_out0(384) == [12, 12]
    assert _softmax_in0_out0(640) == [24, 16]


def test_integer_h_reduce_is_one_pass():
    # g1/ttnn.sum/10 (measured by the 10,000-instance campaign): si32 [1024,1088] over dim 0: Ht 32 and 34
    # columns would split in two passes for a float; the integer (SFPU) reduce runs one, 8,192 + 2,048 + 8,192 B.
    from benchmarks.opdiff_instances import SYSTEM_DESC, dram
    from ttanalyze.ir.emit import module_text, single_op_func

    text = module_text(SYSTEM_DESC, single_op_func("ttnn.sum", [dram((1024, 1088), "si32")], [dram((1, 1088), "si32")],
                                                   "dim_arg = [0 : i32], keep_dim = true"))
    a = analyze(parse_text(text, "t.mlir"))
    p = program_of(a, next(o for o in a.program.ops if o.name == "ttnn.sum"), arch=MOCK, free_l1=FULL)
    assert cb_bytes(p) == [[2048, 8192, 8192]] and p.stages[0].cores.num_cores == 34


def test_group_norm_no_mcast_mask_doubles_for_an_unaligned_height():
    # g1/ttnn.group_norm/3 and /10 ([1,1,16,32], 2 and 8 groups, one core): the mask buffer is 4 bf16 tiles
    # (8,192 B) when the per-batch height (16) is not a tile multiple; measurements/normred/probe.py: [2,1,32,256]
    # (aligned) 2 tiles.
    assert cb_bytes(model("ttnn.group_norm", 3))[0][-1] == 8192
    assert cb_bytes(model("ttnn.group_norm", 10))[0][-1] == 8192


# Instances measured by the 10,000-instance campaign (device numbers from its records).


def test_bf16_hw_reduction_runs_one_h_pass():
    # g1/ttnn.max/18: bf16 [1408,1088] over (0, 1), fp32 on: W on 44 cores, then ONE H pass of Ht 44 on one core
    # (16,384 + 2,048 + 4,096 B, then 4,096 + 2,048 + 4,096 B); g1/ttnn.mean/2: bfp8 [4,1440,1216] over
    # (0, 1, 2) splits its H (Ht 45, 4 columns) in two passes, on 108 then 4 cores.
    p = model("ttnn.max", 18)
    assert cb_bytes(p) == [[2048, 4096, 16384], [2048, 4096, 4096]]
    p = model("ttnn.mean", 2)
    assert [s.cores.num_cores for s in p.stages][1:3] == [108, 4]


def test_sum_of_every_dim_with_one_leading_dim_widens_only_after_w():
    # g1/ttnn.sum/26: bf16 [4,448,1216], every dim, fp32 on: FastReduceNC with 2 bf16 output tiles, W with 2 f32
    # output tiles, H: 26,624 B at the peak, no slice.
    p = model("ttnn.sum", 26)
    assert cb_bytes(p) == [[2048, 4096, 16384], [2048, 8192, 16384], [4096, 4096, 8192]]


def test_negated_reduces_without_batching_or_room():
    # g1/ttnn.min/20: bfp8 [1068] over dim 0: the negated W reduce of one row reads unbatched (2 input tiles).
    assert cb_bytes(model("ttnn.min", 20))[-1] == [1088, 1088, 2048, 2176, 2176]
    # g1/ttnn.min/15: bfp8 [1,8,1,1003,3976] over dim 3: Ht 32 x 125 columns of acc/ineg do not fit L1, so
    # neg (2 x 2,176 B), a plain H reduce (16 bfp8 input tiles), neg: 21,632 B at the peak.
    p = model("ttnn.min", 15)
    assert [s.factory.split("::")[-1] for s in p.stages][-3:] == [
        "ProgramFactory", "ReduceMultiCoreHProgramFactory", "ProgramFactory"]
    assert cb_bytes(p)[-2] == [2048, 2176, 17408] and max(sum(b) for b in cb_bytes(p)) == 21632


def test_block_float_h_reduce_splits_even_without_fp32_accumulation():
    # g1/ttnn.mean/22: bfp8 [3,3,2,1025,33] over (1, 2, 3, 4), fp32_dest_acc_en = false: the H reduce (Ht 33,
    # 18 columns) splits in two passes, pass 1 on 108 cores with a 16-tile (2 x 8) bfp8 input, 17,408 + 2,048 +
    # 8,192 B; pass 2 on 18 cores.
    p = model("ttnn.mean", 22)
    h = [s for s in p.stages if "ReduceMultiCoreH" in s.factory]
    assert [s.cores.num_cores for s in h[:2]] == [108, 18] and sorted(c.bytes for c in h[0].static_cbs) == [2048, 8192, 17408]


def test_group_norm_reads_tall_cores_in_two_blocks():
    # g1/ttnn.group_norm/31: [2,1,4896,32] 2 groups on 18 cores, 17 tile rows per core: two blocks of 8 tiles
    # (16,384-B in0/out/in/x/xmm/xmm2/xmm3), 137,216 B; g1/ttnn.group_norm/2 (7 rows per core) reads one block.
    p = model("ttnn.group_norm", 31)
    assert sum(c.bytes for c in p.program.static_cbs) == 137216
    assert sum(c.bytes for c in model("ttnn.group_norm", 2).program.static_cbs) == 122880


def test_block_float_global_avg_pool_reshapes_through_bf16():
    # g1/ttnn.global_avg_pool2d/21: bfp8 [1,112,14,64] (H * W = 1568, a tile multiple; W not): the fold to
    # [1,1,1568,64] runs on bf16 between two typecasts (2,176 + 4,096 B; ReshapeViewTiled; 4,096 + 2,176 B),
    # then the two H passes (pass 1: 8 bfp8 input tiles, 8,704 + 2,048 + 8,192 B).
    p = model("ttnn.global_avg_pool2d", 21)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "TypecastProgramFactory", "ReshapeViewTiledProgramFactory", "TypecastProgramFactory",
        "ReduceMultiCoreHProgramFactory", "ReduceMultiCoreHProgramFactory"]
    assert cb_bytes(p)[0] == [2176, 4096] and cb_bytes(p)[3] == [2048, 8192, 8704]


def test_block_float_global_avg_pool_off_the_fast_path_is_refused_with_the_shard_heights():
    # g1/ttnn.global_avg_pool2d/10: bfp8 [3,3,56,2048] (H * W = 168): tt-metal refuses "Shard height 576 must
    # match physical height 512 for width sharded" (3 * 3 * 64 against round_up(504, 32)).
    p = model("ttnn.global_avg_pool2d", 10)
    assert p.status == "rejected" and "Shard height 576 must match physical height 512" in p.reason
    # g1/ttnn.global_avg_pool2d/32: [1,1,13,2048], both heights 32: the sliding-window path is not modeled
    assert model("ttnn.global_avg_pool2d", 32).status == "out_of_scope"


def test_sharded_block_float_fill_runs_between_two_split_typecasts():
    # g1/ttnn.max/38: bfp8 [163,280] width-sharded on 1x5 cores, over dim 1: TypecastProgramFactory to bf16 split
    # over 54 cores (2,176 + 4,096 B), the sharded FillPad on the 5 shard cores (4,096 + 2,048 + 2,048 + 4,096 B),
    # the typecast back (4,096 + 2,176 B), then the W reduce.
    p = model("ttnn.max", 38)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "TypecastProgramFactory", "FillPadL1ShardedProgramFactory", "TypecastProgramFactory",
        "ReduceMultiCoreWProgramFactory"]
    assert [s.cores.num_cores for s in p.stages[:3]] == [54, 5, 54]
    assert cb_bytes(p)[:3] == [[2176, 4096], [2048, 2048, 4096, 4096], [2176, 4096]]


def test_h_step_after_w_splits_only_when_leading_dims_are_reduced_too():
    # g1/ttnn.mean/31: bfp8 [2,8,2566,1225] over (2, 3) (Ht 81, 16 columns): one H pass after W; g1/ttnn.mean/99:
    # bf16 [1,1,1,1375,2768] over every dim: the H step (Ht 43, one column) splits in two, the first pass on 43
    # cores with 2 f32 partial tiles.
    h = [s for s in model("ttnn.mean", 31).stages if "ReduceMultiCoreH" in s.factory]
    assert len(h) == 1
    h = [s for s in model("ttnn.mean", 99).stages if "ReduceMultiCoreH" in s.factory]
    assert [s.cores.num_cores for s in h[:2]] == [43, 1] and stage_cb_bytes(h[0]) == [2048, 8192, 16384]


def test_sum_of_every_dim_widens_w_and_slices_only_padded_tensors():
    # g1/ttnn.sum/131: bf16 [2,3,2,128,1025], every dim, no compute config: FillPad, three FastReduceNC (bf16),
    # SliceTile (W not a tile multiple), the W reduce writing 2 f32 tiles (8,192 B) and the H reduce reading them
    # with an f32 scaler (8,192 + 4,096 + 4,096 B).
    p = model("ttnn.sum", 131)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "FillPadProgramFactory"] + ["FastReduceNCProgramFactory"] * 3 + [
        "SliceTileProgramFactory", "ReduceMultiCoreWProgramFactory", "ReduceMultiCoreHProgramFactory"]
    assert cb_bytes(p)[-2:] == [[2048, 8192, 16384], [4096, 4096, 8192]]


def test_softmax_c_large_keeps_block_float_intermediates_without_fp32_accumulation():
    # g1/ttnn.softmax/134: bfp8 [2,3,1,3] over -3, fp32_dest_acc_en = false: CLarge's intermediates are in the
    # input's format (softmax_program_factory_general_c_large.cpp intermed_data_format): 2 x 2,176 + 1,088 +
    # 1,088 + 2,176 + 1,088 + 1,088 B.
    p = model("ttnn.softmax", 134)
    assert [s.factory for s in p.stages] == ["SoftmaxDeviceOperation::SoftmaxProgramFactoryGeneralCLarge"]
    assert cb_bytes(p) == [[1088, 1088, 1088, 1088, 2176, 2176, 2176]]


def test_hw_reduce_runs_its_h_step_in_one_pass_for_f32_with_fp32_accumulation():
    # g1/ttnn.sum/177 (held-out): [1424, 96] f32 sum over (0, 1) with fp32_dest_acc_en = true is one ReduceOpDim::HW
    # op: FillPad, W on 45 cores, then H on one core in one pass (20,480 B peak), not a two-pass H (36,864 B).
    p = model("ttnn.sum", 177)
    assert [s.factory.split("::")[-1] for s in p.stages] == [
        "FillPadProgramFactory", "ReduceMultiCoreWProgramFactory", "ReduceMultiCoreHProgramFactory"]
    assert p.stages[-1].cores.num_cores == 1 and cb_bytes(p)[-1] == [4096, 8192, 8192]


def test_single_tile_negated_min_runs_on_one_core():
    # g1/ttnn.min/81 (held-out): [1, 2] f32 min over (0, 1) with fp32 accumulation off (the fused negate):
    # FillPad, then ReduceSingleCoreHw with f32 scaler, acc and ineg: 8,192 + 4,096 + 8,192 + 4,096 + 4,096 B.
    p = model("ttnn.min", 81)
    assert p.stages[-1].factory.endswith("ReduceSingleCoreHwProgramFactory")
    assert cb_bytes(p)[-1] == [4096, 4096, 4096, 8192, 8192]


def test_block_float_max_over_h_alone_is_one_pass():
    # g1/ttnn.max/192 (held-out): [1, 1, 1, 4013, 1] bfp8 max over H (Ht 126, one column): typecast, FillPad,
    # typecast, then the H reduce on one core in one pass (2,176 + 2,048 + 2,176 B).
    p = model("ttnn.max", 192)
    assert p.stages[-1].cores.num_cores == 1 and cb_bytes(p)[-1] == [2048, 2176, 2176]
    assert max(sum(c) for c in cb_bytes(p)) == 12288


def test_prod_over_a_dim_permutes_it_around_prod_nc():
    # prod.cpp ProdOperation::invoke, measured chains (g1/ttnn.prod/*, measurements/opdiff/runs/gens.jsonl.gz):
    # /0 [4, 1, 3] bf16 over dim 1 (4D dim 2): FillPad, permute {2,0,1,3}, ProdNc, permute {1,2,0,3}, squeeze
    # (ReshapeViewTiled); /33 [170, 181] over dim 1 (4D dim 3): the second permute back is a TransposeWH;
    # /1 rank 5 over dim 3: the dim swapped with the third-last, ProdNc over dim 1 of the 4D view, swapped back;
    # /12 a rank-1 bfp8 tensor: ProdAll into an f32 tile, then a typecast.
    def chain(i):
        return [s.factory.split("::")[-1].replace("ProgramFactory", "") for s in model("ttnn.prod", i).stages]

    assert chain(0) == ["FillPad", "MultiCoreTileRowInvariant", "ProdNc", "MultiCoreTileRowInvariant", "ReshapeViewTiled"]
    assert chain(33) == ["FillPad", "MultiCoreTileRowInvariant", "ProdNc", "MultiCoreTileRowInvariant", "TransposeWH"]
    assert chain(1) == ["FillPad", "MultiCoreTileRowInvariant", "ProdNc", "MultiCoreTileRowInvariant", "ReshapeViewTiled"]
    assert chain(12)[-2:] == ["ProdAll", "Typecast"]
    assert cb_bytes(model("ttnn.prod", 12))[-2:] == [[2176, 8192], [2176, 8192]]


def test_softmax_block_skips_seven_and_five():
    # find_max_divisor (tt_metal/common/work_split.cpp) skips 7 and 5: g1/ttnn.softmax/142 (held-out), bf16
    # [2, 2, 433, 1564] with fp32 accumulation off, Wt 49: block 1, so the row pads to 56 tiles in blocks of 8
    # (out0 16 bf16 tiles, exps and x 56 each: 305,152 B in all).
    p = model("ttnn.softmax", 142)
    assert max(cb_bytes(p)[0]) == 56 * 2048 and 16 * 2048 in cb_bytes(p)[0]
    assert sum(cb_bytes(p)[0]) == 305_152
