"""Cost formulas of the op families the 2025-2026 traces hold: grid sample, group norm, SDPA, CCL, scans,
KV-cache updates (ttanalyze/cost/model.py), checked by hand from each docstring's mechanism."""

from __future__ import annotations

import pytest

from ttanalyze.cost import constants as K
from ttanalyze.cost.device_op import DeviceOp, TensorInfo
from ttanalyze.cost.hardware import for_device
from ttanalyze.cost.model import FAMILY, OP_KINDS, UnmodeledDeviceOp, family, predict, reshape_tile_map, work


def _t(shape, dtype="bf16", layout="tile", buf="dram", mem="interleaved", shard=None, shard_cores=None):
    padded = tuple(shape[:-2]) + tuple(-(-d // 32) * 32 for d in shape[-2:]) if layout == "tile" else tuple(shape)
    return TensorInfo(tuple(shape), padded, dtype, layout, buf, mem, shard, shard_cores)


C = K.load()
BH = for_device("blackhole", 20, board="p150")


def test_grid_sample_per_point_is_four_stick_reads_one_wait_and_the_pool_reduce():
    # bh20_oft.csv line 382-like: 48x160 input sticks of 256 bf16 channels in L1, a precomputed grid of
    # 1408 rows x 7 points (42 values), output 1408 x 1792 height-sharded on 20 cores.
    a = _t((1, 48, 160, 256), layout="row_major", buf="l1")
    g = _t((1, 1, 1408, 42), layout="row_major")
    o = _t((1, 1, 1408, 1792), layout="row_major", buf="l1", mem="height_sharded", shard=(96, 1792), shard_cores=20)
    op = DeviceOp("GridSampleOperation", "blackhole", 20, 20, (a, g), (o,), None, None,
                  {"use_precomputed_grid": True, "batch_output_channels": True})
    e = predict(op, BH, C)
    points = 1408 * 7 / 20  # 492.8 -> 493 per core
    stick = 512
    read = (C.get("stick_read_l1", "blackhole") + max(BH.noc_txn_cycles, stick / BH.core_noc_bytes_per_cycle) * 4
            + (C.get("stick_read_dram", "blackhole") + max(BH.noc_txn_cycles, 84 / BH.core_noc_bytes_per_cycle)) / 7)
    compute = 4 * 4 * C.get("pool_stick", "blackhole")
    write = 0.0  # the output is an L1 shard the core owns
    core = read + compute + write + (493 - 1) * max(read, compute, write)
    assert points < 493
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole") + core * BH.ns_per_cycle, rel=1e-9)
    assert family("GridSample") == family("GridSampleOperation") == "pooling"


def test_group_norm_costs_whole_tiles_per_group_and_a_handoff_per_group():
    # 30720 x 64 row-major, height-sharded on 20 cores, 16 groups of 4 channels: each group spans one tile
    # column; 48 tile rows per core.
    a = _t((1, 1, 30720, 64), layout="row_major", buf="l1", mem="height_sharded", shard=(1536, 64), shard_cores=20)
    op = DeviceOp("GroupNormDeviceOperation", "blackhole", 20, 20, (a,), (a,), "HiFi4", False, {"num_groups": 16})
    e = predict(op, BH, C)
    tile = C.get("eltwise_tile", "blackhole")
    compute = (48 * 16 * 1 * 7 * tile + 16 * (3 * tile + C.get("sfpu_heavy", "blackhole"))
               + 96 * (C.get("tilize_tile", "blackhole") + C.get("untilize_tile", "blackhole")))
    extra = 16 * 2 * 20 * (BH.l1_latency_cycles + max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle))
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole") + (compute + extra) * BH.ns_per_cycle, rel=1e-9)
    op2 = DeviceOp("GroupNorm", "blackhole", 20, 20, (a,), (a,))
    assert any("num_groups not given" in n for n in predict(op2, BH, C).notes)


def test_sdpa_tile_products_softmax_and_causal_half():
    q = _t((1, 8, 1024, 128))
    k = _t((1, 8, 1024, 128), dtype="bfp_bf8")
    o = _t((1, 8, 1024, 128))
    base = {"q_chunk": 256, "k_chunk": 256}
    full = predict(DeviceOp("SDPAOperation", "blackhole", 64, 110, (q, k, k), (o,), "HiFi2", False, dict(base)), BH, C)
    causal = predict(DeviceOp("SDPAOperation", "blackhole", 64, 110, (q, k, k), (o,), "HiFi2", False,
                              dict(base, is_causal=True)), BH, C)
    # 8 heads x 4 Q chunks = 32 units on 64 cores: 1 unit per core, 4 K chunks (causal: 0.5 + 0.5/4 = 62.5%).
    assert full.flops == pytest.approx(2 * 8 * 1024 * 1024 * 256)
    assert causal.flops == pytest.approx(full.flops * 0.625)
    assert causal.ns < full.ns
    with pytest.raises(UnmodeledDeviceOp, match="K input"):
        predict(DeviceOp("SDPAOperation", "blackhole", 64, 110, (q, _t((1, 8, 1024, 64))), (o,)), BH, C)


def test_ccl_moves_the_gathered_share_over_the_links():
    a = _t((1, 1, 3200, 384))
    o = _t((1, 1, 3200, 1536))
    op = DeviceOp("AllGatherAsyncDeviceOperation", "blackhole", 18, 110, (a,), (o,), None, None,
                  {"ring_size": 4, "num_links": 2})
    e = predict(op, for_device("blackhole", 110, board="p150"), C)
    eth_ns = o.bytes * 3 / 4 / (2 * 50.0)  # 2 links at 50 GB/s
    assert e.terms["noc"] + e.terms["compute"] == pytest.approx(eth_ns + 3 * 529 / 1.35, rel=1e-6)
    assert family("ReduceScatterMinimalAsyncDeviceOperation") == "collective"
    no_attrs = predict(DeviceOp("AllGather", "blackhole", 18, 110, (a,), (o,)), BH, C)
    assert any("ring_size not given" in n for n in no_attrs.notes)
    assert any("topology not given" in n for n in no_attrs.notes)


def test_ccl_ring_halves_the_busiest_links_load_and_steps():
    """Hand-derived from ccl_common.cpp get_forward_backward_line_mcast_distance: over 8 devices a line's end link
    carries the other 7 slices and its farthest target is 7 hops away; a ring sends ceil(7 / 2) = 4 slices each way
    over 4 hops.  All-gather of a 1x1x3200x384 bf16 slice (2,457,600 B), 2 links at 50 GB/s: 7 x 2,457,600 / 100 =
    172,032 ns + 7 DRAM latencies (line) against 4 x 2,457,600 / 100 = 98,304 ns + 4 latencies (ring).  An
    all-broadcast sends the whole input as one slice; a reduce-scatter's slice is 1/8 of its input."""
    from ttanalyze.cost.model import collective_link_load

    assert collective_link_load(8, "line") == (7, 7) and collective_link_load(8, "ring") == (4, 4)
    assert collective_link_load(4, "ring") == (2, 2) and collective_link_load(2, "ring") == (1, 1)
    a = _t((1, 1, 3200, 384))
    o = _t((1, 1, 3200, 3072))
    hw = for_device("blackhole", 110, board="p150")
    lat = 529 / 1.35  # one DRAM latency in ns (the model's dram_latency_cycles at 1.35 GHz)
    for topo, slices, steps in (("line", 7, 7), ("ring", 4, 4)):
        op = DeviceOp("AllGatherDeviceOperation", "blackhole", 18, 110, (a,), (o,), None, None,
                      {"ring_size": 8, "num_links": 2, "topology": topo})
        e = predict(op, hw, C)
        assert e.terms["noc"] + e.terms["compute"] == pytest.approx(a.bytes * slices / 100.0 + steps * lat, rel=1e-6)
        b = predict(DeviceOp("AllBroadcastDeviceOperation", "blackhole", 2, 110, (a,), (a,), None, None,
                             {"ring_size": 8, "num_links": 2, "topology": topo}), hw, C)
        assert b.terms["noc"] + b.terms["compute"] == pytest.approx(a.bytes * slices / 100.0 + steps * lat, rel=1e-6)


@pytest.mark.parametrize("code", ["AccumulationDeviceOperation", "UpdateKVCacheOperation", "SplitDeviceOperation",
                                  "FastReduceNCDeviceOperation", "IntImgDeviceOperation", "PagedUpdateCacheDeviceOperation"])
def test_tile_pass_families_predict(code):
    t = _t((1, 4, 256, 256))
    e = predict(DeviceOp(code, "blackhole", 20, 20, (t, t), (t,)), BH, C)
    assert e.ns > C.get("launch_ns", "blackhole")


def test_every_op_kind_has_a_family():
    assert set(OP_KINDS.values()) <= set(FAMILY)


@pytest.mark.parametrize("code", ["BatchNormOperation", "SortDeviceOperation", "GatherDeviceOperation",
                                  "ScatterDeviceOperation"])
def test_batch_norm_sort_gather_predict(code):
    t = _t((1, 4, 256, 256))
    e = predict(DeviceOp(code, "blackhole", 20, 20, (t, t), (t,)), BH, C)
    assert e.ns > C.get("launch_ns", "blackhole")


def test_ir_ops_without_a_program_model_cost_by_name():
    # An SDPA and an all-gather in TTNN IR: the op name gives the device op; cores: the whole grid, noted.
    from ttanalyze.analysis import analyze
    from ttanalyze.cost.ir import NAME_OP_CODES, device_ops, hardware_of, op_cost
    from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
    from ttanalyze.ir.parse import parse_text

    from .conftest import BH_SYSTEM_DESC

    q, kv = TensorDesc((1, 8, 256, 64), "bf16", "tile"), TensorDesc((1, 8, 256, 64), "bf16", "tile")
    text = module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.scaled_dot_product_attention", [q, kv, kv], [q],
        "operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, is_causal = true"))
    a = analyze(parse_text(text, "t.mlir"))
    op = next(o for o in a.program.ops if o.name == "ttnn.scaled_dot_product_attention")
    hw = hardware_of(a)
    prog = a.programs.get(op.index)
    ops, why = device_ops(op, a, hw)
    if prog is not None and prog.status == "modeled":
        assert why == "" and ops  # its CB model's programs
    else:
        assert why == "" and [d.op_code for d in ops] == [NAME_OP_CODES[op.name]]
        assert ops[0].cores == hw.grid_cores and ops[0].attrs["is_causal"] is True
        cost = op_cost(op, a, hw, C)
        assert cost.status == "costed" and any("not modeled" in n for n in cost.notes)


def test_sdpa_reads_v_when_k_and_v_share_a_type():
    """Q, K and V of one type: the program model records all three, and the cost model tells K from V by
    position (the op models share one tensor view per type), so V's DRAM reads count: K and V each
    per head 256 x 64 bf16 = 32,768 B, read once per Q chunk unit over the causal share."""
    from ttanalyze.analysis import analyze
    from ttanalyze.cost.ir import device_ops, hardware_of
    from ttanalyze.cost.model import _sdpa
    from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
    from ttanalyze.ir.parse import parse_text

    from .conftest import BH_SYSTEM_DESC

    t = TensorDesc((1, 8, 256, 64), "bf16", "tile")
    text = module_text(BH_SYSTEM_DESC, single_op_func(
        "ttnn.scaled_dot_product_attention", [t, t, t], [t],
        "operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, is_causal = true"))
    a = analyze(parse_text(text, "t.mlir"))
    op = next(o for o in a.program.ops if o.name == "ttnn.scaled_dot_product_attention")
    hw = hardware_of(a)
    ops, _ = device_ops(op, a, hw)
    sdpa = next(d for d in ops if "SDPA" in d.op_code)
    assert len(sdpa.inputs) == 3
    kv_bytes = _sdpa(sdpa, hw, C).dram_reads[1][0]
    # The program's 32-row Q and K chunks: 8 heads x 8 Q chunks = 64 units, causal share 0.5 + 0.5 / 8 K chunks
    # = 0.5625, K + V per head 2 x 256 x 64 x 2 B = 65,536 B (K alone, before the fix: half of it).
    assert kv_bytes == 64 * 0.5625 * 65_536


def test_row_major_reshape_waits_per_input_stick_and_per_output_write():
    # 9856 x 6 -> 1408 x 42 bf16 in DRAM on 20 cores (bh20_oft.csv line 2), rm_reshape_interleaved.cpp.
    # Rows per core: ceil(9856 / 20) = 493, raised until 12 B x rows ends on an 84-B stick: 497 (a multiple
    # of 7).  84 % 12 == 0, so two kernels per core split its 497 * 12 / 84 = 71 output sticks: the second
    # takes 71 - 35 = 36 of them, 497 - 35 * 7 = 252 input sticks.  A 12-B DRAM stick is read as 128 B
    # ((12 - 1) & ~63) + 128), below the bandwidth knee: one transaction.
    a = _t((1, 1, 9856, 6), layout="row_major")
    o = _t((1, 1, 1408, 42), layout="row_major")
    e = predict(DeviceOp("ReshapeDeviceOperation", "blackhole", 20, 20, (a,), (o,)), BH, C)
    xfer = BH.noc_txn_cycles
    assert 128 / BH.core_noc_bytes_per_cycle < xfer
    read = 252 * (BH.dram_latency_cycles + xfer)
    write = 36 * (BH.dram_latency_cycles + xfer)
    copy = 252 * 12 * C.get("fill_byte", "blackhole")
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole") + (read + write + copy) * BH.ns_per_cycle, rel=1e-9)


def test_row_major_reshape_of_the_era_before_recreate_mapping_tensor_runs_one_kernel_per_core():
    # The same reshape as a 2025-09 profiler row (no recreate_mapping_tensor attribute: tt-metal before PR #28399,
    # so before the dual kernel of PR #28169): one kernel takes all 497 input sticks and writes 71 output sticks.
    from ttanalyze.cost.profile import op_attrs, parse_attributes

    old = op_attrs(parse_attributes("{'logical_output_shape': 'Shape([1408; 42])'; 'padded_output_shape': "
                                    "'Shape([1408; 42])'}"))[0]
    new = op_attrs(parse_attributes("{'logical_output_shape': 'Shape([1408; 42])'; 'padded_output_shape': "
                                    "'Shape([1408; 42])'; 'recreate_mapping_tensor': 'false'}"))[0]
    assert old == {"rm_reshape_one_kernel": True} and "rm_reshape_one_kernel" not in new
    a = _t((1, 1, 9856, 6), layout="row_major")
    o = _t((1, 1, 1408, 42), layout="row_major")
    e = predict(DeviceOp("ReshapeDeviceOperation", "blackhole", 20, 20, (a,), (o,), attrs=old), BH, C)
    xfer = BH.noc_txn_cycles
    read = 497 * (BH.dram_latency_cycles + xfer)
    write = 71 * (BH.dram_latency_cycles + xfer)
    copy = 497 * 12 * C.get("fill_byte", "blackhole")
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole") + (read + write + copy) * BH.ns_per_cycle, rel=1e-9)


def test_tiled_reshape_map_counts_input_tiles_and_face_line_segments():
    # [1,1,19,1280] -> [1,19,20,64] (the CLIP head split): rank 3 (1, 19, 1280) -> (19, 20, 64); 19 x 1 x 2 = 38
    # output tiles.  Output tile (c, 0, wt): 20 real rows x 2 face lines = 40 segments of 16 elements; row h
    # is input row c, columns h * 64 + wt * 32 .. + 31: input tile 2h + wt, so 20 distinct input tiles.  Every
    # segment starts on a face line in both tiles (offsets agree modulo 16 B): no RISC-V copy.
    m = reshape_tile_map((1, 1, 19, 1280), (1, 19, 20, 64), 2.0)
    assert (m.out_pages, m.in_pages, m.segments, m.unaligned_bytes, m.map_bytes) == (38, 20, 40, 0, 640)
    # (1, 1, 39) -> (1, 3, 13), bf16: one output tile.  Row 0 = input columns 0..12: one segment, offsets 0 and 0.
    # Row 1 = columns 13..25, split at the input face line 16: 13..15 (output offset 16, input 13: 6 B apart,
    # 3 elements) and 16..25 (output 19, input 256: 474 B apart, 10 elements).  Row 2 = columns 26..38, split
    # at the input tile edge 32: 26..31 (output 32, input 266: 468 B apart, 6 elements) and 32..38 (input
    # tile 2, offset 0; output 38: 76 B apart, 7 elements).  5 segments from 2 input tiles; all but the first
    # are misaligned (not 0 mod 16 B): (3 + 10 + 6 + 7) x 2 B = 52 B copied by the RISC-V core.
    m2 = reshape_tile_map((1, 1, 1, 39), (1, 1, 3, 13), 2.0)
    assert (m2.out_pages, m2.in_pages, m2.segments, m2.unaligned_bytes, m2.map_bytes) == (1, 2, 5, 52, 80)


def test_tiled_reshape_per_output_tile_is_map_read_input_tiles_segments_and_write():
    # The same head split on a Wormhole n150, 38 output tiles on 38 cores: one tile per core, its steps in
    # sequence (one-page CBs): map page read (640 B), 20 x (input tile read + hand-off), 40 NoC self-writes,
    # the output tile written.
    wh = for_device("wormhole_b0", 64, board="n150")
    a = _t((1, 1, 19, 1280))
    o = _t((1, 19, 20, 64))
    e = predict(DeviceOp("ReshapeDeviceOperation", "wormhole_b0", 38, 64, (a,), (o,)), wh, C)

    def xfer(b):
        return max(wh.noc_txn_cycles, b / wh.core_noc_bytes_per_cycle)

    lat = wh.dram_latency_cycles
    per_tile = (lat + xfer(640) + 20 * (lat + xfer(2048) + C.get("page_handoff", "wormhole_b0"))
                + 40 * wh.noc_txn_cycles + lat + xfer(2048))
    assert e.ns == pytest.approx(C.get("launch_ns", "wormhole_b0") + per_tile * wh.ns_per_cycle, rel=1e-9)


def _pipe(n, *stages):
    return sum(stages) + (n - 1) * max(stages)


def test_binary_ng_on_uneven_shards_runs_the_interleaved_path():
    # bh20_oft.csv: a subtract of two [1408, 1792] bf16 tensors height-sharded on 20 cores, shards of 96 rows:
    # 1408 % 96 = 64, uneven, so binary_ng treats them as interleaved (is_native_L1_sharding): the
    # 44 x 56 = 2464 output tiles split over the 20 cores (124 on the busiest), each input tile read from a
    # remote L1 bank (one wait for both), the output tile written back over the NoC.
    def op(rows):
        a = _t((1, 1, rows, 1792), buf="l1", mem="height_sharded")
        o = _t((1, 1, rows, 1792), buf="l1", mem="height_sharded", shard=(96, 1792), shard_cores=20)
        return DeviceOp("BinaryNgDeviceOperation", "blackhole", 20, 20, (a, a), (o,), None, None,
                        {"binary_op": "subtract", "scalar": False})

    def xfer(b):
        return max(BH.noc_txn_cycles, b / BH.core_noc_bytes_per_cycle)

    tile_op = C.get("eltwise_tile", "blackhole")
    read = BH.l1_latency_cycles + 2 * xfer(2048)
    write = BH.l1_latency_cycles + xfer(2048)
    e = predict(op(1408), BH, C)
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole")
                                 + _pipe(124, read, tile_op, write) * BH.ns_per_cycle, rel=1e-9)
    # 1344 rows = 14 shards of 96: even, so each core computes its own 3 x 56 tiles in place.
    e2 = predict(op(1344), BH, C)
    assert e2.ns == pytest.approx(C.get("launch_ns", "blackhole") + 168 * tile_op * BH.ns_per_cycle, rel=1e-9)


def test_binary_ng_row_broadcast_fills_each_broadcast_tile_on_the_reader():
    # [7680, 256] + [1, 256] bf16 in DRAM on a 20-core Blackhole: 1920 output tiles, 96 per core.  Per tile the
    # reader reads both tiles (one wait), then copies the broadcast tile's first row over its other 31 rows:
    # 31 x 32 x 2 = 1,984 B at fill_byte cycles per byte (fill_tile_with_first_row_bfloat16).  On a Wormhole
    # with bf16 operands the unpacker broadcasts the row (BCAST_LLK): no copy.
    a = _t((1, 1, 7680, 256))
    b = _t((1, 1, 1, 256))
    o = _t((1, 1, 7680, 256))
    attrs = {"binary_op": "add", "scalar": False}

    def xfer(hw, n):
        return max(hw.noc_txn_cycles, n / hw.core_noc_bytes_per_cycle)

    e = predict(DeviceOp("BinaryNgDeviceOperation", "blackhole", 20, 20, (a, b), (o,), None, None, attrs), BH, C)
    read = BH.dram_latency_cycles + 2 * xfer(BH, 2048) + 1984 * C.get("fill_byte", "blackhole")
    write = BH.dram_latency_cycles + xfer(BH, 2048)
    core = _pipe(96, read, C.get("eltwise_tile", "blackhole"), write) * BH.ns_per_cycle
    assert e.terms["noc"] + e.terms["compute"] == pytest.approx(core, rel=1e-9)
    wh = for_device("wormhole_b0", 20, board="n150")
    e_wh = predict(DeviceOp("BinaryNgDeviceOperation", "wormhole_b0", 20, 20, (a, b), (o,), None, None, attrs), wh, C)
    read_wh = wh.dram_latency_cycles + 2 * xfer(wh, 2048)
    write_wh = wh.dram_latency_cycles + xfer(wh, 2048)
    core_wh = _pipe(96, read_wh, C.get("eltwise_tile", "wormhole_b0"), write_wh) * wh.ns_per_cycle
    assert e_wh.terms["noc"] + e_wh.terms["compute"] == pytest.approx(core_wh, rel=1e-9)


def test_row_invariant_tiled_permute_writes_face_lines_and_pads_the_output_tiles():
    # integral-image trace: [1, 48, 160, 256] bf16 permuted (2, 1, 0, 3) -> [160, 48, 1, 256], DRAM, 20 cores.
    # Input tiles 48 x 5 x 8 = 1,920, 96 per core; each has 32 real rows, 64 face lines, one NoC write each,
    # then a write barrier.  The output's H is 1: each of its 160 x 48 x 8 = 61,440 tiles (3,072 per core)
    # gets 31 padding rows written as 62 face lines.
    a = _t((1, 48, 160, 256))
    o = _t((160, 48, 1, 256))
    e = predict(DeviceOp("PermuteDeviceOperation", "blackhole", 20, 20, (a,), (o,), None, None,
                         {"perm": (2, 1, 0, 3)}), BH, C)
    read = BH.dram_latency_cycles + max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle)
    write = 64 * BH.noc_txn_cycles + BH.dram_latency_cycles
    pad = 3072 * 62 * BH.noc_txn_cycles
    core = (_pipe(96, read, 0.0, write) + pad) * BH.ns_per_cycle
    assert e.terms["noc"] + e.terms["compute"] + e.terms["per_core"] == pytest.approx(core, rel=1e-9)


def test_layernorm_multiplying_passes_take_one_fpu_pass_per_fidelity_phase():
    # wh_clip_encoder_2.csv: LayerNorm of [19, 1280] bf16 with gamma and beta on one Wormhole core, HiFi4, fp32
    # accumulation.  Wt = 40 tiles, blk = 4 (the largest divisor of 40 up to 4 with fp32 accumulation).  Of the
    # 7 passes, 5 multiply (the two reductions with their scaler, the square, the scale, gamma): 4 FPU phases
    # each at HiFi4, so 2 + 5 x 4 = 22 tile ops per tile.  Gamma and beta (40 tiles each, 10 waits) are read once,
    # spread over the core's 40 tiles; per row one rsqrt (sfpu_heavy) and 3 tile ops; the scaler fill first.
    wh = for_device("wormhole_b0", 64, board="n150")
    x = _t((1, 1, 19, 1280))
    g = _t((1, 1, 1, 1280))
    op = DeviceOp("LayerNormDeviceOperation", "wormhole_b0", 1, 64, (x, g, g), (x,), "HiFi4", True,
                  {"norm": "layer"})
    e = predict(op, wh, C)

    def xfer(n, b):
        return n * max(wh.noc_txn_cycles, b / wh.core_noc_bytes_per_cycle)

    lat = wh.dram_latency_cycles
    tile_op = C.get("eltwise_tile", "wormhole_b0")
    read = lat / 4 + xfer(1, 2048) + 2 * (10 * lat + xfer(40, 2048)) / 40
    compute = 22 * tile_op
    write = lat + xfer(1, 2048)
    extra = 3 * tile_op + C.get("sfpu_heavy", "wormhole_b0") + C.get("scalar_fill", "wormhole_b0")
    core = _pipe(40, read, compute, write) + extra
    assert e.ns == pytest.approx(C.get("launch_ns", "wormhole_b0") + core * wh.ns_per_cycle, rel=1e-9)
    lofi = predict(DeviceOp("LayerNormDeviceOperation", "wormhole_b0", 1, 64, (x, g, g), (x,), "LoFi", True,
                            {"norm": "layer"}), wh, C)
    core_lofi = _pipe(40, read, 7 * tile_op, write) + extra  # LoFi: one phase, 7 tile ops
    assert lofi.ns == pytest.approx(C.get("launch_ns", "wormhole_b0") + core_lofi * wh.ns_per_cycle, rel=1e-9)


def test_mcast_matmul_writer_overlaps_the_last_k_block():
    # bh_8xp150_deepseek_v3_d_p.csv: [3200, 4096] bf16 x [4096, 7168] bfp8 -> bf16 in DRAM, mcast_2d on 11 x 10
    # cores, per core 10 x 21 output tiles, K = 128 tiles in blocks of 8 (16 K blocks), subblocks of 1 x 7
    # (30 per block), HiFi2.  The writer takes each subblock as the last K block packs it, so only
    # max(write - compute_block, write / 30) of its 210-tile write follows the K loop.
    p150 = for_device("blackhole", 110, board="p150")
    a = _t((1, 1, 3200, 4096))
    b = _t((1, 1, 4096, 7168), dtype="bfp_bf8")
    o = _t((1, 1, 3200, 7168))
    pc = {"kind": "mcast_2d", "in0_block_w": 8, "out_subblock_h": 1, "out_subblock_w": 7, "per_core_m": 10,
          "per_core_n": 21, "grid": (11, 10), "fuse_batch": False}
    e = predict(DeviceOp("MatmulDeviceOperation", "blackhole", 110, 110, (a, b), (o,), "HiFi2", False,
                         {"program_config": pc, "packer_l1_acc": True}), p150, C)

    def xfer(n, size):
        return n * max(p150.noc_txn_cycles, size / p150.core_noc_bytes_per_cycle)

    read = p150.dram_latency_cycles + xfer(80, 2048) + xfer(8 * 21, 1088) + C.get("mm_block", "blackhole")
    step = max(7 * C.get("mm_cycles_per_pass", "blackhole") * 2, 8 * C.get("mm_unpack_tile", "blackhole"))
    compute = 30 * 8 * step
    write = 210 * C.get("mm_out_tile", "blackhole")
    core = _pipe(16, read, compute) + max(write - compute, write / 30)
    assert e.ns == pytest.approx(C.get("launch_ns", "blackhole") + core * p150.ns_per_cycle, rel=1e-9)


def test_untilize_with_unpadding_waits_for_each_real_stick_write():
    # ops_perf_results_2025_09_18 line-like: 7 x 25281 x 256 bf16 tiles (25312 padded rows) untilized and
    # unpadded to DRAM row-major on 20 cores; the writer (writer_unary_stick_layout_split_rows_multicore.cpp)
    # waits for each stick's write, so a block of 32 rows costs 32 stick round trips, not one.
    a = TensorInfo((1, 7, 25281, 256), (1, 7, 25312, 256), "bf16", "tile", "dram")
    o = TensorInfo((1, 7, 25281, 256), (1, 7, 25281, 256), "bf16", "row_major", "dram")
    op = DeviceOp("UntilizeWithUnpaddingDeviceOperation", "blackhole", 20, 20, (a,), (o,))
    e = predict(op, BH, C)
    blocks = -(-7 * 25312 // 32 // 20)  # 277 tile rows on the busiest core
    real = min(32, -(-7 * 25281 // (7 * 25312 // 32)))  # 32 real rows in a block (rounded up)
    read = 8 * (BH.dram_latency_cycles + max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle))
    compute = 8 * C.get("untilize_tile", "blackhole")
    write = real * (C.get("stick_read_dram", "blackhole") + max(BH.noc_txn_cycles, 512 / BH.core_noc_bytes_per_cycle))
    core = read + compute + write + (blocks - 1) * max(read, compute, write)
    assert e.terms["noc"] + e.terms["compute"] == pytest.approx(core * BH.ns_per_cycle, rel=1e-9)
    # the plain untilize's writer waits once per block
    plain = predict(DeviceOp("UntilizeDeviceOperation", "blackhole", 20, 20, (a,), (o,)), BH, C)
    assert plain.ns < e.ns / 2.5


@pytest.mark.parametrize("old,new", [("LayerNorm", "LayerNormDeviceOperation"), ("Softmax", "SoftmaxDeviceOperation"),
                                     ("Pad", "PadDeviceOperation")])
def test_2024_op_codes_map_to_their_renamed_kinds(old, new):
    assert OP_KINDS[old] == OP_KINDS[new]


def test_group_norm_on_an_interleaved_input_rereads_each_groups_tiles_per_pass():
    # bh20_oft.csv-like: 25344 x 256 bf16 tiles in DRAM, 16 groups of 16 channels (a group spans one tile
    # column, two groups share it) on 16 cores; the non-sharded reader (reader_mcast_sender_unary_gn.cpp)
    # reads a group's tiles three times and re-reads its output tiles once, each read waited for.
    a = _t((1, 1, 25344, 256))
    op = DeviceOp("GroupNormDeviceOperation", "blackhole", 16, 20, (a,), (a,), "HiFi4", False, {"num_groups": 16})
    w_ = work(op, BH, C)
    block_h = -(-25344 // 16 // 32)  # 50 tile rows per core
    tile_groups = block_h * 16 * 1
    read = 4 * tile_groups * (BH.dram_latency_cycles + max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle))
    assert w_.read == pytest.approx(read, rel=1e-9)
    assert w_.write == pytest.approx(tile_groups * max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle))
    welford = DeviceOp("GroupNormDeviceOperation", "blackhole", 16, 20, (a,), (a,), "HiFi4", False,
                       {"num_groups": 16, "use_welford": True})
    tiles_pc = block_h * 8
    assert work(welford, BH, C).read == pytest.approx(
        2 * tiles_pc * (BH.dram_latency_cycles + max(BH.noc_txn_cycles, 2048 / BH.core_noc_bytes_per_cycle)))


def test_tiled_pad_writes_padding_tiles_from_one_filled_tile():
    # wh_seg_encoder_2024_10_04-like: 1 x 3 x 512 x 512 -> 1 x 32 x 512 x 512 on one core, L1 interleaved:
    # 768 input tiles read and written (a wait each), 7424 padding tiles written from one pad tile, filled once.
    wh = for_device("wormhole_b0", 64, board="n150")
    a = _t((1, 3, 512, 512), buf="l1")
    o = _t((1, 32, 512, 512), buf="l1")
    op = DeviceOp("PadDeviceOperation", "wormhole_b0", 1, 64, (a,), (o,))
    w_ = work(op, wh, C)
    assert w_.units == 768
    xfer = max(wh.noc_txn_cycles, 2048 / wh.core_noc_bytes_per_cycle)
    assert w_.write == pytest.approx(wh.l1_latency_cycles + xfer)
    runs = 1536 // 32 + 4  # one per input tile row (1 x 3 x 512 rows), plus the outer padded dims
    assert w_.extra == pytest.approx(2048 * C.get("fill_byte", "wormhole_b0") + runs * wh.l1_latency_cycles
                                     + 7424 * xfer)


def test_sharded_layernorm_row_costs_the_program_configs_per_core_block():
    # A profiler row gives no input shard spec; the sharded LayerNorm's program config does
    # (LayerNormShardedMultiCoreProgramConfig block_h x block_w tiles per core, layernorm_op_multi_core_sharded.cpp):
    # RMS norm of a width-sharded 32 x 3072 bf16 tensor on 32 cores (ttnn-visualizer's smoke report), 1 x 3 tiles
    # per core, not the whole 96-tile row.
    from ttanalyze.cost.profile import op_attrs, parse_attributes

    attrs = op_attrs(parse_attributes(
        "{'norm_type': 'LayerNormType::RMSNORM'; 'program_config': 'LayerNormShardedMultiCoreProgramConfig("
        "compute_with_storage_grid_size=(x=8;y=4);subblock_w=3;block_h=1;block_w=3;inplace=0)'}"))[0]
    assert attrs["shard_block_h"] == 1 and attrs["shard_block_w"] == 3
    wh = for_device("wormhole_b0", 64, board="n150")
    a = _t((1, 1, 32, 3072), buf="l1", mem="width_sharded")
    sharded = work(DeviceOp("LayerNormDeviceOperation", "wormhole_b0", 32, 64, (a,), (a,), attrs=attrs), wh, C)
    assert sharded.units == 3
    whole_row = work(DeviceOp("LayerNormDeviceOperation", "wormhole_b0", 32, 64, (a,), (a,),
                              attrs={"norm": "rms"}), wh, C)
    assert whole_row.units == 96


def test_embedding_with_row_major_indices_and_a_tiled_output_reads_a_blocks_rows_together():
    # embeddings_tilize.cpp (ttnn-visualizer's smoke report, the 2025 op code "Embeddings"): 32 uint32 indices,
    # a 256 x 128 bf16 table, a tiled 32 x 128 output on one core.  One 32-token block: its indices read (one
    # wait, 128 B), its 32 table rows (256 B each) read together (one wait), 4 tiles tilized and written.
    wh = for_device("wormhole_b0", 64, board="n150")
    idx = _t((1, 1, 1, 32), dtype="u32", layout="row_major")
    table = _t((1, 1, 256, 128), layout="row_major")
    out = _t((1, 1, 32, 128))
    w = work(DeviceOp("Embeddings", "wormhole_b0", 1, 64, (idx, table), (out,)), wh, C)
    assert w.units == 1
    stick = C.get("stick_read_dram", "wormhole_b0")
    assert w.compute == pytest.approx(4 * C.get("tilize_tile", "wormhole_b0"))
    assert w.read > stick + wh.dram_latency_cycles
    # the per-row path (tiled indices, embedding_ind_tilized.cpp) waits twice per row: 32 rows, far slower
    tiled_idx = _t((1, 1, 32, 32), dtype="u32")
    rm_out = _t((1, 1, 32, 128), layout="row_major")
    per_row = work(DeviceOp("EmbeddingsDeviceOperation", "wormhole_b0", 1, 64, (tiled_idx, table), (rm_out,)), wh, C)
    assert per_row.units == 32 and per_row.units * per_row.read > 10 * w.read
