"""conv2d run as a matmul (1x1, stride 1), conv2d's reader-indices refusal, width-sharded conv cores,
conv3d's blocking checks, conv_transpose2d's conv program.

Every expected figure is a measurement on the mock P150 with ttnn 0.81.1 (tt-metal d80d9482) by the
op-level campaign (benchmarks/opdiff.py; the instance named in each test is the record of
measurements/opdiff/results.jsonl.gz with that id): the per-program DFB byte lists and core ranges, the
returned tensor, tt-metal's refusal message; conv_transpose2d's 24 random instances by
measurements/conv_transpose2d/probe.py (rerun: ``scripts/device-lock .venv-ttnn/bin/python
measurements/conv_transpose2d/probe.py``).  No test needs ttnn.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.conv_transpose2d.probe import CASES as CT_CASES
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ops import conv as C
from ttanalyze.ops import spec_model
from ttanalyze.ops.cb import DeviceRejection
from ttanalyze.programs import context_for, program_of

from .conftest import BH_SYSTEM_DESC, ROOT, analyze_text

FREE = MOCK.l1_size - MOCK.l1_unreserved_base - MOCK.l1_small_size

_CONFIG = ("conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, enable_kernel_stride_folding = false, "
           "config_tensors_in_dram = true>, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, "
           "fp32_dest_acc_en = true>")


def _conv_op(n, h, w, cin, cout, layout="row_major", bias=False, k=1, s=1, p=0):
    """A conv2d as the campaign's generator writes it (DRAM input and result), analyzed; returns (analysis, op)."""
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    ops = [TensorDesc((1, 1, n * h * w, cin), "bf16", layout, "dram", "interleaved"),
           TensorDesc((cout, cin, k, k), "bf16", "row_major", "system_memory", None)]
    if bias:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    attrs = (f"batch_size = {n} : i32, in_channels = {cin} : i32, out_channels = {cout} : i32, input_height = {h} : i32, "
             f"input_width = {w} : i32, kernel_size = array<i32: {k}, {k}>, stride = array<i32: {s}, {s}>, "
             f"padding = array<i32: {p}, {p}, {p}, {p}>, dilation = array<i32: 1, 1>, groups = 1 : i32, {_CONFIG}")
    out = TensorDesc((1, 1, n * oh * ow, cout), "bf16", "tile", "dram", "interleaved")
    a = analyze_text(module_text(BH_SYSTEM_DESC, single_op_func("ttnn.conv2d", ops, [out], attrs)))
    return a, next(o for o in a.program.ops if o.name == "ttnn.conv2d")


def _programs(a, op):
    v = program_of(a, op, MOCK, free_l1=FREE)
    assert v.status == "modeled", v.reason
    return [(s.factory, [cb.bytes for cb in s.static_cbs], str(s.static_cbs[0].cores)) for s in v.stages]


def test_1x1_conv_of_a_row_major_input_is_a_tilize_and_a_1d_matmul():
    # g1/ttnn.conv2d/7: 2x128x8 x 64 -> 128, row-major DRAM input [1, 1, 2048, 64].  conv2d tilizes it in DRAM
    # (64 tile rows x 2 tiles: TilizeMultiCoreDefault, 2 x 4,096 B on 64 cores), then ttnn::linear without a
    # program config: M = 64, K = 2, N = 4 tiles; the auto config is a 1D mcast-in1 on 64 cores
    # (per_core 1 x 4 tiles, in0_block_w 2): in0 2 x 2 tiles, in1 2 x 2 x 4 tiles, out 4 tiles fp32 partials.
    a, op = _conv_op(2, 128, 8, 64, 128)
    assert _programs(a, op) == [
        ("TilizeMultiCoreDefaultProgramFactory", [4096, 4096], "{[(0,0)-(6,3)], [(0,4)-(5,9)]}"),
        ("MatmulMultiCoreReuseMcast1DProgramFactory", [4096, 16384, 8192, 16384], "{[(0,0)-(10,4)], [(0,5)-(8,5)]}")]
    spec = spec_model("ttnn.conv2d")(context_for(a, op, MOCK, free_l1=FREE))[0]
    assert (spec.shape, spec.padded_shape, spec.layout, spec.buffer_type, spec.memory_layout) == (
        (1, 1, 2048, 128), (1, 1, 2048, 128), "tile", "dram", "interleaved")


def test_1x1_conv_of_a_tile_input_runs_the_matmul_alone_with_a_fused_bias():
    # g1/ttnn.conv2d/73: 1x8x8 x 4 -> 8, TILE input [1, 1, 64, 4] (2 tile rows) and a bias: no tilize; the linear
    # (M 2, K 1, N 1 tiles) fuses the bias (one 2,048-B tile): 1D on 2 cores, 2,048 x 3 + 4,096 partials + bias.
    a, op = _conv_op(1, 8, 8, 4, 8, layout="tile", bias=True)
    assert _programs(a, op) == [
        ("MatmulMultiCoreReuseMcast1DProgramFactory", [2048, 2048, 2048, 4096, 2048], "{[(0,0)-(1,0)]}")]
    spec = spec_model("ttnn.conv2d")(context_for(a, op, MOCK, free_l1=FREE))[0]
    assert (spec.shape, spec.padded_shape) == ((1, 1, 64, 8), (1, 1, 64, 32))


def test_1x1_conv_with_unaligned_rows_tilizes_with_padding_then_a_2d_matmul():
    # g1/ttnn.conv2d/18: 1x28x7 x 128 -> 256: 196 rows pad to 224 (7 tile rows), so TilizeWithValPadding
    # (one 4-tile row per core, 2 x 8,192 B on 7 cores); the linear (M 7, K 4, N 8 tiles) takes the 2D mcast
    # config on 8 x 7 cores.
    a, op = _conv_op(1, 28, 7, 128, 256)
    assert _programs(a, op) == [
        ("TilizeWithValPaddingMultiCoreDefaultFactory", [8192, 8192], "{[(0,0)-(0,6)]}"),
        ("MatmulMultiCoreReuseMcast2DProgramFactory", [4096, 4096, 2048, 4096], "{[(0,0)-(7,6)]}")]


def test_conv2d_reader_indices_beyond_the_worst_case_is_refused():
    # g1/ttnn.conv2d/138: 1x28x4 x 32 -> 8, 3x3, height sharded on 2 cores with one output tile row each: the
    # config-tensor row is 34 uint16 = 68 B against 1 x 32 x 2 = 64 B; tt-metal refuses (measured message).
    p = C.Conv2dParams(batch=1, in_h=28, in_w=4, in_c=32, out_c=8, kernel=(3, 3), stride=(1, 1), padding=(0, 0, 0, 0),
                       weights_dtype="bf16", config_tensors_in_dram=True, fp32_dest_acc_en=True, has_bias=False)
    with pytest.raises(DeviceRejection, match="Reader indices buffer page size 68 exceeds worst-case CB size 64"):
        C.conv_program(p, MOCK, FREE)
    # With the config tensors in L1 the CB is the config tensor's own buffer: no such budget.
    from dataclasses import replace

    assert C.conv_program(replace(p, config_tensors_in_dram=False), MOCK, FREE).factory == "Conv2dShardedProgramFactory"


def test_width_sharded_conv_cbs_span_the_input_grid():
    # g1/ttnn.conv2d/42: 1x7x8 x 512 -> 32, 5x5, TILE input with a bias, auto width sharded: the 512-channel input
    # on 16 cores (rows of 11), the 32-channel output on one; the conv program's CBs are on the input grid's
    # bounding box, 11 x 2 cores.
    p = C.Conv2dParams(batch=1, in_h=7, in_w=8, in_c=512, out_c=32, kernel=(5, 5), stride=(1, 1), padding=(0, 0, 0, 0),
                       weights_dtype="bf16", config_tensors_in_dram=True, fp32_dest_acc_en=True, input_layout="tile")
    prog = C.conv_program(p, MOCK, FREE)
    assert prog.factory == "Conv2dWidthShardedProgramFactory"
    assert str(prog.cores) == "{[(0,0)-(10,1)]}"
    assert sorted(cb.bytes for cb in prog.static_cbs) == [16, 64, 2048, 51200, 51200, 51200, 102400]


def test_conv3d_blocking_checks():
    # g1/ttnn.conv3d/26: C_out 96 (3 tiles) with C_out_block 64: refused (conv3d_device_operation.cpp:164).
    p = C.Conv3dParams(batch=1, in_t=7, in_h=21, in_w=16, in_c=96, out_c=96, kernel=(3, 3, 3), stride=(1, 1, 1),
                       padding=(0, 0, 0), blocks=(1, 4, 1, 64, 32))
    with pytest.raises(DeviceRejection, match=r"divide evenly into padded output channels \(96\). Got C_out_block=64"):
        C.conv3d_program(p, MOCK)
    # C_out 3 pads to 32: a C_out_block of 32 divides it (measured: such convs run).
    from dataclasses import replace

    assert C.conv3d_program(replace(p, out_c=3, blocks=(1, 4, 1, 32, 32)), MOCK).factory == "Conv3dProgramFactory"
    with pytest.raises(DeviceRejection, match=r"Input channels \(96\) must be divisible by C_in_block \(64\)"):
        C.conv3d_program(replace(p, blocks=(1, 1, 1, 32, 64)), MOCK)
    with pytest.raises(DeviceRejection, match=r"C_in_block \(24\) must be a multiple of 16"):
        C.conv3d_program(replace(p, blocks=(1, 1, 1, 32, 24)), MOCK)


# ---------------------------------------------------------------------------
# conv_transpose2d (measurements/conv_transpose2d: probe.py drew and replayed the cases)
# ---------------------------------------------------------------------------

CT_RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "conv_transpose2d" / "results.jsonl")
                                      .read_text().splitlines())}
_DEVICE = ('%dev = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
           ': () -> !ttnn.device')


def _ct_module(case) -> str:
    """The case as a one-op module: operands, then the device (as tt-mlir orders them)."""
    ins = [TensorDesc(tuple(s), d, lay, buf, None if buf == "system_memory" else "interleaved")
           for s, d, lay, buf in case.operands]
    (s, d, lay, buf), = case.results
    out = TensorDesc(tuple(s), d, lay, buf, "interleaved")
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    types = ", ".join([t.type_text() for t in ins] + ["!ttnn.device"])
    operands = ", ".join([f"%arg{i}" for i in range(len(ins))] + ["%dev"])
    return (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main({args}) -> ({out.type_text()}) {{\n    {_DEVICE}\n"
            f'    %r = "{case.op}"({operands}) <{{{case.attrs}}}> : ({types}) -> ({out.type_text()})\n'
            f"    return %r : {out.type_text()}\n  }}\n}}\n")


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


@pytest.mark.parametrize("case", CT_CASES, ids=[c.id for c in CT_CASES])
def test_conv_transpose2d_conv_program_and_output_match_the_mock(case):
    # The conv2d micro-op over the stride-dilated, padded input: every static CB of the device's conv program
    # (Conv2dShardedProgramFactory) on the same cores, and the returned tensor.
    measured = CT_RESULTS[case.id]
    a = analyze_text(_ct_module(case))
    op = next(o for o in a.program.ops if o.name == case.op)
    v = program_of(a, op, MOCK, free_l1=FREE)
    assert v.status == "modeled", v.reason
    assert not measured["error"]
    model = Counter((cb.bytes, _cores([(r.start.x, r.start.y, r.end.x, r.end.y) for r in cb.cores.ranges]))
                    for p in v.stages for cb in p.static_cbs)
    conv = [c for c in measured["cbs"] if "Conv2d" in c["factory"] and not c["borrowed"] and c["kind"] != "scratchpad"]
    assert model == Counter((c["size"], _cores(c["core_ranges"])) for c in conv)
    spec = spec_model("ttnn.conv_transpose2d")(context_for(a, op, MOCK, free_l1=FREE))[0]
    (want,) = measured["outputs"]
    assert [list(spec.shape), list(spec.padded_shape), spec.layout, spec.buffer_type, spec.memory_layout] == [
        want["shape"], want["padded_shape"], want["layout"], want["buffer_type"], want["memory_layout"]]
