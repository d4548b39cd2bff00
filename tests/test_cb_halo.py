"""The halo program (UntilizeWithHaloProgramFactory) of conv2d and the 2D pools.

Expected CB lists are the device's, measured on the mock P150 with ttnn 0.81.1 (tt-metal
d80d9482) by the op-level campaign (measurements/opdiff/results.jsonl.gz, the record id is
named in each test; benchmarks/opdiff.py), and derived by hand where the comment says so.
No test needs ttnn.
"""

from __future__ import annotations

import pytest

from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ops import conv as C
from ttanalyze.ops import halo as H
from ttanalyze.ops.cb import DeviceRejection

FREE = MOCK.l1_size - MOCK.l1_unreserved_base - MOCK.l1_small_size


def pool(kind, n, h, w, c, k, s, pad, **kw):
    base = dict(config_tensor_in_dram=True)
    base.update(kw)
    return C.PoolParams(kind=kind, batch=n, in_h=h, in_w=w, channels=c, kernel=(k, k), stride=(s, s),
                        padding=(pad, pad, pad, pad), **base)


def conv(n, h, w, cin, cout, k, s, pad, **kw):
    base = dict(weights_dtype="bf16", config_tensors_in_dram=True, fp32_dest_acc_en=True)
    base.update(kw)
    return C.Conv2dParams(batch=n, in_h=h, in_w=w, in_c=cin, out_c=cout, kernel=(k, k), stride=(s, s),
                          padding=(pad, pad, pad, pad), **base)


def static(program):
    return [cb.bytes for cb in program.cbs if not cb.globally_allocated]


def test_row_major_width_sharded_pool_by_hand():
    # g1/ttnn.max_pool2d/5: 1x32x4x256, 3x3 stride 2, row-major.  Width sharded on 16 cores (one nhw core,
    # 16 channels = 32 B sticks per core).  All 128 input sticks are local and unpadded: one run, no padding.
    # pad configs: [0, 0] (null plug) = 4 B each; gather config 0 gets the single transfer:
    # [1 route, x, y, 1 transfer, src, dst, size] = 7 uint16 -> even 8 = 16 B; config 1 is [0] -> 2 = 4 B.
    halo, pool_prog = C.pool_programs(pool("max", 1, 32, 4, 256, 3, 2, 0, input_layout="row_major"), MOCK, FREE)
    assert halo.factory == "UntilizeWithHaloProgramFactory"
    assert static(halo) == [32, 32, 4, 4, 16, 4]
    assert [cb.globally_allocated for cb in halo.cbs[:2]] == [True, True]  # sharded input, halo output
    assert pool_prog.factory == "Pool2D::MultiCore"


@pytest.mark.parametrize("args, kw, expected", [
    # g1/ttnn.max_pool2d/23: block sharded, 64 channels per core -> pads 128 B, untilize 2 x (2 x 2) tiles
    (("max", 2, 64, 28, 512, 3, 1, 0), {}, [128, 128, 8192, 8192, 4, 4, 76, 76]),
    # g1/ttnn.max_pool2d/7: padded 3x3 stride 2, 12 B padding configs
    (("max", 1, 4, 8, 128, 3, 2, 1), {}, [64, 64, 4096, 4096, 12, 12, 32, 4]),
    # g1/ttnn.avg_pool2d/10: ceil mode, padding split 60 / 64 B between the two readers
    (("avg", 1, 28, 13, 1024, 3, 2, 1), {"ceil_mode": True}, [64, 64, 4096, 4096, 60, 64, 148, 104]),
    # g1/ttnn.max_pool2d/12: 16 channels of a tile input are a 32-channel (64 B) stick
    (("max", 1, 32, 28, 16, 3, 1, 0), {}, [64, 64, 4096, 4096, 4, 4, 148, 4]),
])
def test_tile_input_pool_halo_matches_the_device(args, kw, expected):
    halo, _ = C.pool_programs(pool(*args, input_layout="tile", **kw), MOCK, FREE)
    assert static(halo) == expected


def test_row_major_pool_halo_matches_the_device():
    # g1/ttnn.max_pool2d/15: 1x16x16x1024, 3x3 stride 2 pad 1: [32, 32, 36, 36, 56, 56]
    halo, _ = C.pool_programs(pool("max", 1, 16, 16, 1024, 3, 2, 1, input_layout="row_major"), MOCK, FREE)
    assert static(halo) == [32, 32, 36, 36, 56, 56]


def test_config_tensors_in_l1_back_the_config_cbs():
    # Without config_tensors_in_dram the four config CBs are backed by the L1 config tensors.
    halo, _ = C.pool_programs(pool("max", 1, 16, 16, 1024, 3, 2, 1, config_tensor_in_dram=False), MOCK, FREE)
    assert static(halo) == [32, 32]


def test_conv2d_halo_and_width_sharded_bypass():
    # g1/ttnn.conv2d/9: 2x7x56x32 -> 32, 1x1 stride 2, tile input: the halo (8,392 B) is the op's peak program.
    progs = C.conv_programs(conv(2, 7, 56, 32, 32, 1, 2, 0, input_layout="tile"), MOCK, FREE)
    assert [p.factory for p in progs] == ["UntilizeWithHaloProgramFactory", "Conv2dShardedProgramFactory"]
    assert static(progs[0]) == [64, 64, 4096, 4096, 4, 4, 32, 32]
    assert progs[0].region_bytes_per_core() == 8392
    # g1/ttnn.conv2d/135: width sharded without padding runs no halo (conv2d.cpp bypass_halo).
    progs = C.conv_programs(conv(1, 7, 14, 4, 128, 1, 2, 0, input_layout="row_major"), MOCK, FREE)
    assert [p.factory for p in progs] == ["Conv2dWidthShardedProgramFactory"]


def test_shard_boundaries_and_empty_cores():
    # 1x4x4 image, 3x3 window, no padding: 4 outputs (traces 0, 1, 4, 5), halo_len = 2*4 + 2 = 10.
    win = C.Window(1, 4, 4, (3, 3), (1, 1), (0, 0, 0, 0))
    # 3 nhw cores of 2 outputs (unsnapped): [0, 5+... ] core 0 outputs 0-1 -> sticks [0, 1 + 10];
    # core 1 outputs 2-3 -> [4, 5 + 10]; core 2 has none: [trace(3), trace(3) + 10] = [5, 15].
    assert H.shard_boundaries(win, 3, False) == [(0, 11), (4, 15), (5, 15)]


# ---------------------------------------------------------------------------
# bilinear upsample: halo, then UpsampleBilinearProgramFactory
# ---------------------------------------------------------------------------


def test_bilinear_upsample_programs_match_the_device():
    # g1/ttnn.upsample/1: 1x13x52x32, x3.  676 sticks on min(110, 676) = 110 cores; halo pads one 64 B stick
    # each (config tensors in L1: backed); bilinear: tilize-reduce 8 x min(512, 64) and 8 x 64, scalars 2 x 2,048.
    halo, bil = C.upsample_bilinear_programs((1, 13, 52, 32), "row_major", "bf16", False, (3, 3), MOCK)
    assert (halo.factory, bil.factory) == ("UntilizeWithHaloProgramFactory", "UpsampleBilinearProgramFactory")
    assert static(halo) == [64, 64]
    assert static(bil) == [512, 512, 4096, 4096]
    assert bil.cores.num_cores == 110
    # g1/ttnn.upsample/16: 320 channels: the first tilize-reduce CB is capped at 8 tiles of width (512 B pages).
    _, bil = C.upsample_bilinear_programs((1, 10, 21, 320), "row_major", "bf16", False, (2, 2), MOCK)
    assert static(bil) == [4096, 5120, 4096, 4096]
    # g1/ttnn.upsample/64: 58 sticks -> 58 cores
    _, bil = C.upsample_bilinear_programs((1, 1, 58, 256), "row_major", "bf16", False, (2, 2), MOCK)
    assert bil.cores.num_cores == 58


def test_bilinear_upsample_refuses_channels_off_32():
    # g1/ttnn.upsample/9: 1x51x34x8: "input channels should be divisible by 32" (after the halo ran)
    with pytest.raises(DeviceRejection, match="divisible by 32"):
        C.upsample_bilinear_programs((1, 51, 34, 8), "row_major", "bf16", False, (2, 2), MOCK)


def test_bilinear_traces_are_float32_and_not_monotonic():
    # 1x2x2 image, x3: input coordinate (o + 0.5) / 3 + 0.5 -> tops 0, 1, 1, 1, 2, 2 per axis (padded image 4x4).
    win = C.BilinearWindow(1, 2, 2, 3, 3)
    assert win._tops(6, 3) == [0, 1, 1, 1, 2, 2]
    trace = win.traces()
    assert trace[:6] == [0, 1, 1, 1, 2, 2] and trace[6] == 4  # row 1 starts one padded row (4 sticks) down
    # one core: every output; range [0, max trace 10 + halo_len 5]
    assert win.input_ranges(1, False) == [(0, 15)]


# ---------------------------------------------------------------------------
# max_pool2d_with_indices: the max pool with return_indices
# ---------------------------------------------------------------------------


def test_max_pool2d_with_indices_program():
    # g1/ttnn.max_pool2d_with_indices/0: 2x13x8x256, 3x3 stride 1, ceil mode, row-major.  The pool program keeps
    # one whole tile per reduction (in_0/in_1: 2 pages of 2 x 1,024 B) and adds seven one-tile index CBs.
    p = pool("max", 2, 13, 8, 256, 3, 1, 0, ceil_mode=True, return_indices=True)
    halo, prog = C.pool_programs(p, MOCK, FREE)
    assert static(prog) == [4096, 2048, 16, 4096, 4096] + [2048] * 7
    assert static(halo) == [64, 64, 4, 4, 28, 16]
    assert [cb.name for cb in prog.cbs if cb.globally_allocated] == ["raw_in", "out", "out_idx"]
    # the plain max pool of the same window: no index CBs, in_0/in_1 sized by the channels
    plain = C.pool_program(pool("max", 2, 13, 8, 256, 3, 1, 0, ceil_mode=True), MOCK, FREE)
    assert len(static(plain)) == 5


def test_max_pool2d_with_indices_through_the_ir():
    # the campaign's instance g1/ttnn.max_pool2d_with_indices/0 as a module (si32 indices declared, u16 returned)
    from benchmarks.opdiff_instances import instance
    from ttanalyze import ops as O
    from ttanalyze.programs import context_for, program_of
    from .conftest import analyze_text

    a = analyze_text(instance("ttnn.max_pool2d_with_indices", 0).text)
    op = next(o for o in a.program.ops if o.name == "ttnn.max_pool2d_with_indices")
    prog = program_of(a, op, MOCK, free_l1=FREE)
    assert prog.status == "modeled"
    assert [s.factory for s in prog.stages] == ["UntilizeWithHaloProgramFactory", "Pool2D::MultiCore"]
    assert prog.stages[1].region_bytes_per_core() == 28688  # the device's peak (measured)
    specs = O.spec_model(op.name)(context_for(a, op, MOCK))
    assert [s.dtype for s in specs] == ["bf16", "u16"]
