"""Circular buffers and device outputs of conv2d, the 2D pools, conv3d and upsample.

Every expected number is derived by hand from the tt-metal formulas the models
follow (the derivation is in the comments); conv2d, the pools, conv3d and
upsample are measured on the mock P150 with ttnn 0.81.1 (tt-metal d80d9482) under
NO_DISPATCH graph capture by the op-level campaign: per-CB byte lists, core ranges
and returned tensors in measurements/opdiff/results.jsonl.gz (benchmarks/opdiff.py),
the ttnn calls in ttanalyze/executor/ttnn_worker.py.
"Static" CBs are those not backed by a sharded tensor (globally allocated CBs
take no L1 of their own).  No test needs ttnn.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ops import conv as C
from ttanalyze.ops.cb import CBModelError
from ttanalyze.programs import context_for, program_of
from ttanalyze import ops as O

from .conftest import FIXTURES, analyze_path, analyze_text, bh_module

# Free L1 per core of the mock with an empty L1: 1,572,864 - 111,744 = 1,461,120 B.
FREE = MOCK.l1_size - MOCK.l1_unreserved_base - MOCK.l1_small_size


def conv(n, h, w, cin, cout, k, s, pad, **kw):
    """Conv2dParams as the tt-mlir runtime passes them for the fixture (bf16, config tensors in DRAM, fp32 acc)."""
    base = dict(weights_dtype="bf16", config_tensors_in_dram=True, fp32_dest_acc_en=True)
    base.update(kw)
    return C.Conv2dParams(batch=n, in_h=h, in_w=w, in_c=cin, out_c=cout, kernel=k, stride=s, padding=pad, **base)


def cb_list(program):
    return [(cb.name, cb.bytes, cb.globally_allocated) for cb in program.cbs]


def cores(program):
    return {(x, y) for r in program.cores.ranges for x in range(r.start.x, r.end.x + 1)
            for y in range(r.start.y, r.end.y + 1)}


# ---------------------------------------------------------------------------
# Sliding-window geometry
# ---------------------------------------------------------------------------


def test_halo_sticks_and_reader_indices_of_the_fixture_conv():
    # 32x32 image, 3x3 kernel, padding 1: padded width PW = 34, a window spans
    # (3-1)*34 + 3-1 = 70 sticks past its top-left.  32 height-sharded cores hold
    # 32 outputs = one output row each; core k starts at input stick 34k and ends at
    # 34k + 31 + 70 -> 102 sticks (3,264 B of 16 bf16 channels, measured).
    win = C.Window(1, 32, 32, (3, 3), (1, 1), (1, 1, 1, 1))
    assert win.halo_len() == 70
    assert win.max_halo_sticks(32, True) == 102
    # One block of 32 outputs = one row = one segment: [1, 0, start, end] -> 4 uint16 = 8 B (measured 8 B).
    assert win.reader_indices_entries(32, True, 32, 0, True) == 4


def test_reader_indices_with_stride_split_reader_and_row_crossings():
    # 64x64 -> 32x32 at stride 2, 8 nhw cores (block sharded): 128 outputs = 4 output rows per
    # core.  The split reader alternates 64-output blocks: 2 rows = 2 segments each (consecutive
    # top-left indices step by stride_w = 2 within a row, jump between rows):
    # (2 + 2*2) + (2 + 2*2) = 12 uint16 = 24 B (measured 24 B).
    win = C.Window(1, 64, 64, (3, 3), (2, 2), (1, 1, 1, 1))
    assert win.reader_indices_entries(8, True, 64, 64, True) == 12
    # 28x28, 9 nhw cores of 96 outputs, split 64 + 32: the core starting at output 192
    # (offset 24 in its row) crosses 4 rows in its first block and 2 in its second:
    # (2 + 8) + (2 + 4) = 16 uint16 = 32 B (measured 32 B); one 96-output block instead: 5 rows -> 12 = 24 B.
    win = C.Window(1, 28, 28, (3, 3), (1, 1), (1, 1, 1, 1))
    assert win.reader_indices_entries(9, True, 64, 32, True) == 16
    assert win.reader_indices_entries(9, True, 96, 0, True) == 12


def test_pool_window_ceil_mode_and_shards():
    # 33x33, 2x2 stride 2, ceil_mode: OH = ceil(31/2)+1 = 17; one extra bottom/right row of
    # ceil padding (2*(17-1) + 2 - 33 = 1).
    win = C.Window(1, 33, 33, (2, 2), (2, 2), (0, 0, 0, 0), ceil_mode=True)
    assert win.out_hw() == (17, 17)
    assert win.ceil_pad() == (1, 1)


# ---------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------


def test_conv2d_fixture_height_sharded():
    # conv2d_block_o0: [1,1,1024,16] row-major DRAM, 16 -> 32 channels, 3x3, padding 1, bias.
    # Auto shard picks height sharding on 32 cores (1024 output rows / 32 = 1 tile row each:
    # find_closest_largest_divisor_with_num_padding_and_mult(32, 110, 1) = 32).
    # Input shard [32, 16]; channel alignment from the 16-wide shard = 16, so in_channels_padded = 16;
    # act_block_w = round_up(16*3, 32) = 64 = 2 tiles; act_block_h = per-core out height = 1 tile.
    # CBs (get_cb_info): weights 1x2 tiles = 4,096; matmul partials 1 tile (output buffer) 2,048g;
    # act 1x2 tiles = 4,096; act_tilized 2 tiles = 4,096; bias 1 tile = 2,048; out 2,048g;
    # reader indices one 8 B config row; L1 scratch 64; halo output 102 x 32 B = 3,264g.
    # Static: 4,096 + 4,096 + 4,096 + 2,048 + 8 + 64 = 14,408 B (measured 14,408 B).
    prog = C.conv_program(conv(1, 32, 32, 16, 32, (3, 3), (1, 1), (1, 1, 1, 1)), MOCK, FREE)
    assert prog.factory == "Conv2dShardedProgramFactory"
    assert cb_list(prog) == [
        ("weights", 4096, False), ("matmul_partials", 2048, True), ("act", 4096, False),
        ("act_tilized", 4096, False), ("bias", 2048, False), ("out", 2048, True),
        ("reader_indices", 8, False), ("l1_array", 64, False), ("act_sharded", 3264, True)]
    assert prog.per_core_bytes() == 14408
    # The CBs cover the bounding rectangle of the 32 cores: x 0..10, y 0..2 (33 cores, measured).
    assert cores(prog) == {(x, y) for x in range(11) for y in range(3)}
    # halo output 3,264 + conv output shard 2,048 (the result goes to DRAM) are L1 buffers held while the
    # program runs, not CBs: no scratch beside the CB region.
    assert prog.l1_buffers_per_core == 3264 + 2048 and prog.extra_l1_per_core == 0


def test_conv2d_block_sharded_with_split_reader():
    # 28x28x256 -> 256, 3x3, padding 1: block sharding wins (its L1 estimate is smaller and it spans
    # >= 11 cores).  nhw: 784 -> 25 tiles over 9 rows of cores (96 outputs = 3 tiles each); channels:
    # 256/8 = 32 blocks of 8 over 11 columns -> 24 channels per core (in_channels_padded 264).
    # Output channels: 8 tiles over 8 columns -> 1 tile per core.  act_block_w = round_up(24*3, 32) = 96
    # = 3 tiles, act_block_h = 3 tiles; block sharding always uses the split reader.
    # CBs: weights 1x3 = 6,144; partials 3 tiles 6,144g; act (block: full block) 3x3 = 18,432;
    # act_tilized 9 tiles 18,432; bias 2,048; out 3 tiles 6,144g; reader indices 32 B (see
    # test_reader_indices_...); scratch 64; halo output 166 sticks x 48 B = 7,968g.
    # Static: 6,144 + 18,432 + 18,432 + 2,048 + 32 + 64 = 45,152 B (measured 45,152 B).
    p = conv(1, 28, 28, 256, 256, (3, 3), (1, 1), (1, 1, 1, 1))
    plan = C.plan_conv2d(p, MOCK, FREE)
    assert (plan.scheme, plan.input_pc.nhw_cores, plan.input_pc.c_cores, plan.output_pc.c_cores) == ("block", 9, 11, 8)
    assert plan.split_reader
    prog = C.conv_program(p, MOCK, FREE)
    assert [b for _, b, g in cb_list(prog)] == [6144, 6144, 18432, 18432, 2048, 6144, 32, 64, 7968]
    assert prog.per_core_bytes() == 45152
    # input grid 11x9 merged with the output grid 8x9 (measured [0-0 - 10-8]).
    assert cores(prog) == {(x, y) for x in range(11) for y in range(9)}
    # Without the split reader one 96-output block per core: reader indices 24 B -> 45,144 B (measured).
    assert C.conv_program(replace(p, force_split_reader=False), MOCK, FREE).per_core_bytes() == 45144


def test_conv2d_width_sharded():
    # 7x7x1024 -> 1024 forced width sharded: 1024/32 = 32 channel tiles over 32 cores; act_block_w =
    # 1024*9/32 = 288 = 9 tiles, act_block_h = ceil(49/32) = 2 tiles, out width 1 tile per core.
    # CBs: weights 1x9 = 18,432; partials 2 tiles 4,096g; act 2x9 (output tiles) = 36,864;
    # act_tilized 18 tiles = 36,864; bias 2,048; act_row_major 2*9 tiles = 36,864; out 4,096g;
    # reader indices 49 outputs over 7 rows = 2 + 14 uint16 = 32 B; scratch 64; halo 81 x 64 B = 5,184g.
    # Static: 18,432 + 36,864*3 + 2,048 + 32 + 64 = 131,168 B (measured 131,168 B).
    prog = C.conv_program(conv(1, 7, 7, 1024, 1024, (3, 3), (1, 1), (1, 1, 1, 1), shard_layout="width"), MOCK, FREE)
    assert prog.factory == "Conv2dWidthShardedProgramFactory"
    assert [b for _, b, g in cb_list(prog)] == [18432, 4096, 36864, 36864, 2048, 36864, 4096, 32, 64, 5184]
    assert prog.per_core_bytes() == 131168
    # Auto-sharded, the same conv is block sharded on 11x2 cores (98,392 B, measured).
    auto = C.conv_program(conv(1, 7, 7, 1024, 1024, (3, 3), (1, 1), (1, 1, 1, 1)), MOCK, FREE)
    assert auto.per_core_bytes() == 98392


def test_conv2d_height_split_reader_and_activation_double_buffer():
    # 256x256x32 -> 32: 65,536 outputs = 2,048 tiles over 108 cores (19 tiles = 608 outputs each).
    # act_block_h = 19 tiles, act_block_w = round_up(32*3, 32) = 3 tiles.  The split-reader model
    # (Blackhole): activation 116,736 B at 4.55 GB/s -> 34,657 cycles, weights 6,144 B -> 1,594,
    # tilize 72 x 57 tiles = 4,104; 34,657/2 + 4,104 < 34,657 + 4,104 -> split: act 10x3 tiles = 61,440,
    # second reader 9x3 = 55,296.  Static: weights 3 tiles 6,144 + 61,440 + 55,296 + act_tilized 57 tiles
    # 116,736 + bias 2,048 + reader indices 28 + 64 = 241,756 B (measured 241,756 B).
    p = conv(1, 256, 256, 32, 32, (3, 3), (1, 1), (1, 1, 1, 1))
    assert C.conv_program(p, MOCK, FREE).per_core_bytes() == 241756
    # Reader off: one act CB of 57 tiles = 116,736 and 20 B of indices: 241,748 B (measured).
    assert C.conv_program(replace(p, force_split_reader=False), MOCK, FREE).per_core_bytes() == 241748
    # act_block_h_override 64: 2-tile blocks, so the height-sharded weights hold all kh = 3 kernel rows:
    # 3 x 3 tiles = 18,432 (measured 45,280 B in total).
    prog = C.conv_program(replace(p, act_block_h_override=64), MOCK, FREE)
    assert cb_list(prog)[0] == ("weights", 18432, False)
    assert prog.per_core_bytes() == 45280


def test_conv2d_double_buffers_rm_output_packer_and_weight_dtype():
    # 56x56x64 -> 64 (auto: block sharded 8x10, 320 outputs = 10 tiles per core, act_block_w 1 tile,
    # split 5+5).  Static 45,160 B (measured).  Double buffers: weights 2 tiles = 4,096, act
    # (5+5)x2 = 20 tiles = 40,960 -> 67,688 B (measured 67,688 B).
    p = conv(1, 56, 56, 64, 64, (3, 3), (1, 1), (1, 1, 1, 1))
    assert C.conv_program(p, MOCK, FREE).per_core_bytes() == 45160
    dbuf = replace(p, enable_act_double_buffer=True, enable_weights_double_buffer=True)
    assert C.conv_program(dbuf, MOCK, FREE).per_core_bytes() == 67688
    # Forced height sharding with packer_l1_acc: 3 kernel-row blocks > 2, so partials are fp32 and no
    # longer the output buffer: 1x2 tiles x 4,096 = 8,192 static (measured 61,516 B in total).
    pk = C.conv_program(replace(p, shard_layout="height", packer_l1_acc=True), MOCK, FREE)
    assert cb_list(pk)[1] == ("matmul_partials", 8192, False)
    assert pk.per_core_bytes() == 61516
    # bfp8 weights: weight tiles are 1,088 B: weights 12 x 1,088 = 13,056, bias 2 x 1,088 = 2,176
    # (height sharding wins here: 39,884 B, measured).
    w8 = C.conv_program(replace(p, weights_dtype="bfp_bf8"), MOCK, FREE)
    assert [b for n, b, g in cb_list(w8) if n in ("weights", "bias")] == [13056, 2176]
    assert w8.per_core_bytes() == 39884
    # L1 input with a row-major output: height sharding on 98 cores and the 2-tile partials CB
    # (act_block_h 1 x 2 tiles = 4,096) is static: 57,420 B (measured).
    rm = C.conv_program(replace(p, input_buffer="l1", memory_config=None, output_layout="row_major"), MOCK, FREE)
    assert cb_list(rm)[1] == ("matmul_partials", 4096, False)
    assert rm.per_core_bytes() == 57420


def test_conv2d_dram_slicing():
    # 512x512x64 -> 64: one slice would need 2,624,256 B per core > 1,461,120 B free, so ttnn slices the
    # output width in 2 (512 >= 200 wide, tile output rounding 32): each slice reads 512x257 input
    # columns; per slice 131,072 outputs over 108 cores (38 tiles = 1,216 rows), act_block_w 6 tiles,
    # split 19+19: weights 2x6 = 24,576, act 19x6 = 233,472 (twice), act_tilized 38x6 = 466,944,
    # bias 4,096, indices 36, scratch 64: 962,660 B per core (measured, both slices).
    p = conv(1, 512, 512, 64, 64, (3, 3), (1, 1), (1, 1, 1, 1))
    assert C.slice_config(p, MOCK, FREE)[:2] == (2, "width")
    prog = C.conv_program(p, MOCK, FREE)
    assert prog.per_core_bytes() == 962660
    # With less free L1 the same conv takes more slices.
    assert C.slice_config(p, MOCK, 600_000)[0] > 2
    # Row-major output: width slices are not tile-rounded; 3 slices, 643,172 B per core (measured).
    assert C.conv_program(replace(p, output_layout="row_major"), MOCK, FREE).per_core_bytes() == 643172


def test_conv2d_out_of_scope_configurations():
    with pytest.raises(CBModelError, match="1x1 stride-1"):
        C.conv_program(conv(1, 32, 32, 64, 128, (1, 1), (1, 1), (0, 0, 0, 0)), MOCK, FREE)
    with pytest.raises(CBModelError, match="grouped"):
        C.conv_program(conv(1, 32, 32, 64, 64, (3, 3), (1, 1), (1, 1, 1, 1), groups=2), MOCK, FREE)


def test_conv2d_output_specs():
    # DRAM input: the L1 op's tile output is moved to DRAM interleaved, whatever memory config is asked.
    p = conv(1, 28, 28, 256, 256, (3, 3), (1, 1), (1, 1, 1, 1))
    s = C.conv_output_spec(replace(p, memory_config=None), MOCK, FREE)
    assert (s.shape, s.padded_shape, s.layout, s.buffer_type, s.memory_layout) == (
        (1, 1, 784, 256), (1, 1, 800, 256), "tile", "dram", "interleaved")
    # L1 input without a memory config: the conv's own block-sharded output, shard [96, 32] on 8x9 cores
    # (measured: BLOCK_SHARDED, shard [96, 32], padded [1, 1, 800, 256]).
    s = C.conv_output_spec(replace(p, input_buffer="l1", memory_config=None), MOCK, FREE)
    assert (s.buffer_type, s.memory_layout, s.shard_shape, s.padded_shape) == (
        "l1", "block_sharded", (96, 32), (1, 1, 800, 256))
    # A sliced DRAM conv writes into a DRAM tensor of the requested layout (row-major, measured).
    big = conv(1, 512, 512, 64, 64, (3, 3), (1, 1), (1, 1, 1, 1), output_layout="row_major")
    assert C.conv_output_spec(big, MOCK, FREE).layout == "row_major"


def test_conv2d_and_max_pool2d_of_the_fixture_through_the_ir():
    # The fixture's ops, read from the IR (attributes, operand layouts) and run on the mock's arch.
    a = analyze_path(FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir")
    ops = {op.name: op for op in a.program.ops}
    conv_prog = program_of(a, ops["ttnn.conv2d"], MOCK, free_l1=FREE)
    assert conv_prog.status == "modeled" and conv_prog.program.per_core_bytes() == 14408
    pool_prog = program_of(a, ops["ttnn.max_pool2d"], MOCK, free_l1=FREE)
    assert pool_prog.status == "modeled" and pool_prog.program.per_core_bytes() == 14348
    # What ttnn returns equals the declared types: [1,1,1024,32] tile DRAM, [1,1,256,32] row-major DRAM.
    spec = O.spec_model("ttnn.conv2d")(context_for(a, ops["ttnn.conv2d"], MOCK))[0]
    assert (spec.shape, spec.layout, spec.buffer_type) == ((1, 1, 1024, 32), "tile", "dram")
    spec = O.spec_model("ttnn.max_pool2d")(context_for(a, ops["ttnn.max_pool2d"], MOCK))[0]
    assert (spec.shape, spec.layout, spec.buffer_type) == ((1, 1, 256, 32), "row_major", "dram")


# ---------------------------------------------------------------------------
# pools
# ---------------------------------------------------------------------------


def pool(kind, n, h, w, c, k, s, pad, **kw):
    base = dict(config_tensor_in_dram=True)
    base.update(kw)
    return C.PoolParams(kind=kind, batch=n, in_h=h, in_w=w, channels=c, kernel=k, stride=s,
                        padding=(pad[0], pad[0], pad[1], pad[1]), **base)


def test_max_pool2d_fixture():
    # 32x32x32, 2x2 stride 2 -> 256 outputs.  Auto shard: height (16,578 B estimate) ties block and
    # beats width, on 86 cores (256 rows, no tile rounding: 258/86 = 3 rows per core).
    # CBs: scalar 2 x 2,048 = 4,096; clear value 2,048; halo output 70 sticks x 64 B = 4,480g; reader
    # indices (2 segments: 2 + 4 uint16) 12 B; two reader CBs of 2 pages x 2 x round_up(1*32*4, 1024)
    # = 4,096 each; out 3 rows x 2 faces x 32 B = 192g.  Static 4,096 + 2,048 + 12 + 4,096 + 4,096 = 14,348
    # (measured 14,348 B on [0-0 - 10-6] + [0-7 - 8-7]).
    p = pool("max", 1, 32, 32, 32, (2, 2), (2, 2), (0, 0))
    prog = C.pool_program(p, MOCK, FREE)
    assert [b for _, b, g in cb_list(prog)] == [4096, 2048, 4480, 12, 4096, 4096, 192]
    assert prog.per_core_bytes() == 14348
    assert len(cores(prog)) == 86
    # No memory config: the pool's height-sharded L1 output, shard [3, 32] (measured).
    s = C.pool_output_spec(replace(p, memory_config=None), MOCK, FREE)
    assert (s.buffer_type, s.memory_layout, s.shard_shape) == ("l1", "height_sharded", (3, 32))
    # 40 channels: the shard is 64 wide and so is the padded shape (measured [1,1,256,40] padded [1,1,256,64]).
    s = C.pool_output_spec(replace(p, channels=40, memory_config=None), MOCK, FREE)
    assert (s.shard_shape, s.padded_shape) == ((3, 64), (1, 1, 256, 64))


def test_pool_block_and_width_sharding():
    # 28x28x256 2x2/2: block (16,578 B estimate) beats width (21,786) and height (30,914): 8x10 cores,
    # 20 outputs and 32 channels per core; out 20 x 2 x 32 = 1,280g; reader indices 3 segments = 16 B;
    # static 14,352 B (measured).
    b = C.pool_program(pool("max", 1, 28, 28, 256, (2, 2), (2, 2), (0, 0)), MOCK, FREE)
    assert len(cores(b)) == 80 and b.per_core_bytes() == 14352
    # 14x14x1024 3x3/1 pad 1: width (21,786) beats block (30,914) and height (96,450): 64 cores of 16
    # channels, one core of all 196 outputs: reader indices 14 rows = 2 + 28 uint16 = 60 B; out
    # 196 x 1 x 32 = 6,272g; static 14,396 B (measured).
    w = C.pool_program(pool("max", 1, 14, 14, 1024, (3, 3), (1, 1), (1, 1)), MOCK, FREE)
    assert len(cores(w)) == 64 and w.per_core_bytes() == 14396


def test_pool_channel_padding_avg_divisors_and_tile_input():
    # 40 channels: the output shard is 64 wide (channels rounded to 32 above 16): 3 rows x 4 faces x
    # 32 B = 384g (measured 384).
    prog = C.pool_program(pool("max", 1, 32, 32, 40, (2, 2), (2, 2), (0, 0)), MOCK, FREE)
    assert cb_list(prog)[-1] == ("out", 384, True)
    # avg 3x3/1 pad 1 without count_include_pad: the divisor changes per output, adding a second scalar
    # CB (4,096) and a config CB of one (start, value, end) triple per output row: 29 x 6 = 174 B.
    # Static 14,348 + 4,096 + 174 = 18,618 B (measured 18,618 B).
    avg = C.pool_program(pool("avg", 1, 56, 56, 64, (3, 3), (1, 1), (1, 1), count_include_pad=False), MOCK, FREE)
    assert cb_list(avg)[-1] == ("scalar_config", 174, False)
    assert avg.per_core_bytes() == 18618
    # A tile input: the pool program is the same (14,348 B, measured).
    tile = C.pool_program(pool("max", 1, 32, 32, 32, (2, 2), (2, 2), (0, 0), input_layout="tile"), MOCK, FREE)
    assert tile.per_core_bytes() == 14348


def test_pool_padding_order_in_the_shape_rule():
    # TTNN pools write four padding values as [top, left, bottom, right] (TTIRToTTNN, verifyPoolingOp):
    # 32x32 with top 1, left 0, bottom 1, right 0 and a 3x3 stride-1 kernel -> 32 x 30.
    body = ('%1 = "ttnn.max_pool2d"(%arg0) <{batch_size = 1 : si32, ceil_mode = false, channels = 32 : si32, '
            'dilation = array<i32: 1, 1>, input_height = 32 : si32, input_width = 32 : si32, kernel_size = '
            'array<i32: 3, 3>, padding = array<i32: 1, 0, 1, 0>, stride = array<i32: 1, 1>}> : '
            '(tensor<1x1x1024x32xbf16, #l>) -> tensor<1x1x960x32xbf16, #o>\n    return %1 : tensor<1x1x960x32xbf16, #o>')
    aliases = ("#l = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 1024 + d2, d3), <1x1>, "
               "memref<1024x32xbf16, #dram>, <interleaved>>\n"
               "#o = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 960 + d1 * 960 + d2, d3), <1x1>, "
               "memref<960x32xbf16, #dram>, <interleaved>>")
    a = analyze_text(bh_module(aliases, body, "%arg0: tensor<1x1x1024x32xbf16, #l>", "tensor<1x1x960x32xbf16, #o>"))
    op = next(o for o in a.program.ops if o.name == "ttnn.max_pool2d")
    assert a.shape_checks[op.index].shapes == [(1, 1, 960, 32)]


# ---------------------------------------------------------------------------
# conv3d
# ---------------------------------------------------------------------------


def test_conv3d_mochi_fixtures():
    # [1,6,18,18,64] -> 64, 3x3x3, C_in_block 32 (2 blocks), C_out_block 32, one output per block.
    # patch = 27 x 32 = 864 -> 1,728 B pages; K_t = 27, N_t = 1, M_t = 1.  CBs: vol2col 1 page 1,728;
    # tilized 27 x 2,048 = 55,296; weights 27 x 1 x 2,048 = 55,296; fp32 partials (2 C_in blocks, fp32
    # accumulation) 4,096; result 2,048; reduction 4,096; ack 2,048; bias 2,048; prefetch shard 27
    # positions x 64 B = 1,728.  Total 128,384 B on all 110 cores (measured, both fixtures).
    for name in ("mochi_small_constpad_o0", "mochi_small_edgepad_o0"):
        a = analyze_path(FIXTURES / "real" / name / "ttnn.mlir")
        op = next(o for o in a.program.ops if o.name == "ttnn.conv3d")
        prog = program_of(a, op, MOCK, free_l1=FREE).program
        assert [b for _, b, g in cb_list(prog)] == [1728, 55296, 55296, 4096, 2048, 4096, 2048, 2048, 1728]
        assert prog.per_core_bytes() == 128384 and len(cores(prog)) == 110
        spec = O.spec_model("ttnn.conv3d")(context_for(a, op, MOCK))[0]
        # ttnn returns exactly the declared type: [1,4,16,16,64] row-major DRAM interleaved (measured).
        assert (spec.shape, spec.padded_shape, spec.layout, spec.buffer_type) == (
            (1, 4, 16, 16, 64), (1, 4, 16, 16, 64), "row_major", "dram")


def test_conv3d_blocks_and_padded_output_channels():
    # Blocks T/H/W = 1/2/2, C_out_block = C_in_block = 64: 4 patches of 27 x 64 = 1,728 (3,456 B) -> 4 pages
    # = 13,824; K_t = 54 -> 110,592; weights 54 x 2 tiles = 221,184; bf16 partials (one C_in block) 2 tiles
    # 4,096; result 4,096; bias 4,096; prefetch shard 3 x 4 x 4 = 48 positions x 128 B = 6,144.
    # Total 364,032 B (measured).
    p = C.Conv3dParams(batch=1, in_t=6, in_h=18, in_w=18, in_c=64, out_c=64, kernel=(3, 3, 3), stride=(1, 1, 1),
                       padding=(0, 0, 0), blocks=(1, 2, 2, 64, 64))
    prog = C.conv3d_program(p, MOCK)
    assert [b for _, b, g in cb_list(prog)] == [13824, 110592, 221184, 4096, 4096, 4096, 6144]
    assert prog.per_core_bytes() == 364032
    # 3 output channels: a row-major [1,4,16,16,3] whose last dim is padded to 32 (measured), so its
    # pages are 64 B where the IR's row-major type has 6 B rows.
    s = C.conv3d_output_spec(replace(p, out_c=3, blocks=(1, 1, 1, 32, 32)))
    assert (s.shape, s.padded_shape, s.layout) == ((1, 4, 16, 16, 3), (1, 4, 16, 16, 32), "row_major")
    with pytest.raises(CBModelError, match="exceeds the device grid"):
        C.conv3d_program(replace(p, grid=(10, 11)), MOCK)


def test_conv3d_default_blocks_and_big_blocks():
    # C_out_block 0 -> the padded C_out (96 = 3 tiles); C_in_block 0 -> the smallest valid block,
    # min(lcm(16, 32/gcd(27, 32)), 64) = 32, so 2 C_in blocks: vol2col 1 x 27 x 32 x 2 B = 1,728; K_t 27
    # -> 55,296; weights 27 x 3 = 81 tiles = 165,888; fp32 partials 3 x 4,096 = 12,288; result 6,144;
    # reduction 12,288; ack 2,048; bias 6,144; shard 27 x 64 B = 1,728: 263,552 B (measured).
    d = C.Conv3dParams(batch=1, in_t=6, in_h=18, in_w=18, in_c=64, out_c=96, kernel=(3, 3, 3), stride=(1, 1, 1),
                       padding=(0, 0, 0), blocks=(1, 1, 1, 0, 0))
    assert C.conv3d_program(d, MOCK).per_core_bytes() == 263552
    # Blocks T/H/W 2/4/8, C 128/128: 64 patches but at most 32 vol2col pages of 3,456 x 2 B -> 221,184;
    # K_t 108 -> 221,184; weights 108 x 4 tiles = 884,736; partials and result 2 x 4 tiles = 16,384 each;
    # bias 8,192.  These already exceed the prefetch budget (1,572,864 - 41,088 - 200 KB = 1,326,976), so
    # no shard: 1,368,064 B (measured).
    b = C.Conv3dParams(batch=1, in_t=6, in_h=34, in_w=34, in_c=128, out_c=128, kernel=(3, 3, 3), stride=(1, 1, 1),
                       padding=(0, 0, 0), blocks=(2, 4, 8, 128, 128))
    assert [cb.bytes for cb in C.conv3d_program(b, MOCK).cbs] == [221184, 221184, 884736, 16384, 16384, 8192]


# ---------------------------------------------------------------------------
# upsample
# ---------------------------------------------------------------------------


def test_upsample_nearest_programs():
    # Row-major [1,32,32,64]: 1,024 sticks over 110 cores (9-10 each) -> one CB of 2 x 128 B = 256 B
    # (64 bf16 = 128 B, DRAM-aligned to 64) on every core (measured).
    rm = C.upsample_program((1, 32, 32, 64), "row_major", "bf16", "nearest", False, MOCK)
    assert rm.per_core_bytes() == 256 and len(cores(rm)) == 110
    # Tile [1,32,32,64]: 32 tile rows of 2 tiles, one per core on 32 cores (column-major split): an input
    # and an output CB of 2 tiles each, single-buffered: 8,192 B (measured on [0-0 - 3-1] + [0-2 - 2-9]).
    tile = C.upsample_program((1, 32, 32, 64), "tile", "bf16", "nearest", False, MOCK)
    assert tile.per_core_bytes() == 8192
    assert cores(tile) == {(x, y) for x in range(3) for y in range(10)} | {(3, 0), (3, 1)}
    with pytest.raises(CBModelError, match="bilinear"):  # bilinear: upsample_bilinear_programs (test_cb_halo.py)
        C.upsample_program((1, 32, 32, 64), "row_major", "bf16", "bilinear", False, MOCK)
    # 16 sticks: 16 cores with one stick each, single-buffered 64 B (measured on [0-0 - 1-5] + [0-6 - 0-9]).
    small = C.upsample_program((1, 4, 4, 32), "row_major", "bf16", "nearest", False, MOCK)
    assert small.per_core_bytes() == 64 and len(cores(small)) == 16


def _upsample_module(scale: str, out_shape: str, out_rows: int, layout_in: str = "memref<1024x64xbf16, #dram>"):
    aliases = ("#l = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 1024 + d1 * 32 + d2, d3), <1x1>, "
               f"{layout_in}, <interleaved>>\n"
               f"#o = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * {out_rows} + d1 * 64 + d2, d3), <1x1>, "
               f"memref<{out_rows}x64xbf16, #dram>, <interleaved>>")
    body = (f'%1 = "ttnn.upsample"(%arg0) <{{mode = "nearest", scale_factor = {scale}}}> : '
            f"(tensor<1x32x32x64xbf16, #l>) -> tensor<{out_shape}xbf16, #o>\n    return %1 : tensor<{out_shape}xbf16, #o>")
    return analyze_text(bh_module(aliases, body, "%arg0: tensor<1x32x32x64xbf16, #l>", f"tensor<{out_shape}xbf16, #o>"))


def test_upsample_shape_rule_and_spec_through_the_ir():
    # [N, H, W, C] -> [N, H*sh, W*sw, C]: an integer scale 2 and a pair [2, 3].
    a = _upsample_module("2 : si32", "1x64x64x64", 4096)
    op = next(o for o in a.program.ops if o.name == "ttnn.upsample")
    assert a.shape_checks[op.index].shapes == [(1, 64, 64, 64)]
    assert program_of(a, op, MOCK, free_l1=FREE).program.per_core_bytes() == 256
    spec = O.spec_model("ttnn.upsample")(context_for(a, op, MOCK))[0]
    assert (spec.shape, spec.layout, spec.buffer_type) == ((1, 64, 64, 64), "row_major", "dram")
    a = _upsample_module("array<i32: 2, 3>", "1x64x96x64", 6144)
    op = next(o for o in a.program.ops if o.name == "ttnn.upsample")
    assert a.shape_checks[op.index].shapes == [(1, 64, 96, 64)]
