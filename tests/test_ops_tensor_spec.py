"""``ttnn.to_tensor_spec`` (ttanalyze.ops.tensor_spec): the decomposition and its programs.

The decomposition cases follow tt-mlir's own tests of TTNNDecomposeLayouts
(``test/ttmlir/Dialect/TTNN/Transforms/DecomposeLayouts/*.mlir`` @19c86fca, named in each test).
The programs of to_tensor_spec must be those of the ops it decomposes into, modeled on their own;
the device test replays each decomposed op on the mock and compares the CBs with to_tensor_spec's
stage for it.
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.executor.cbcheck import compare_cbs
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

from .conftest import BH_SYSTEM_DESC, device

FULL = 1_461_120  # free L1 of the empty mock


def T(shape, dtype="bf16", layout="tile", buffer="dram", mem="interleaved"):
    if buffer == "system_memory":
        mem = None
    return TensorDesc(tuple(shape), dtype, layout, buffer, mem, (10, 11) if buffer == "l1" else (1, 1))


def analysis(op, src, dst):
    return analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, [src], [dst])), "t.mlir"))


def verdict(op, src, dst):
    a = analysis(op, src, dst)
    return program_of(a, a.program.ops[0], arch=MOCK, free_l1=FULL)


def steps(src, dst):
    from ttanalyze.ops.cb import CBContext
    from ttanalyze.ops.tensor_spec import _io, decompose
    a = analysis("ttnn.to_tensor_spec", src, dst)
    ctx = CBContext(a.program.ops[0], MOCK, (), (), FULL)
    t, out = _io(ctx)
    return [s.kind for s in decompose(t, out)]


def test_l1_rm_u16_to_dram_tile_tilizes_then_moves():
    # decomposing_layouts_on_device.mlir @device_l1_rm_ui16_to_dram_tile_ui16: to_layout, to_memory_config.
    assert steps(T([64, 128], "u16", "row_major", "l1"), T([64, 128], "u16")) == ["to_layout", "to_memory_config"]


def test_float_tilize_with_dtype_change_is_one_to_layout():
    # RM bf16 -> TILE f32 on the device, both float family: one to_layout carries the dtype.
    assert steps(T([64, 128], layout="row_major"), T([64, 128], "f32")) == ["to_layout"]


def test_untilize_with_dtype_change_casts_first_on_a_device_dtype():
    # TILE bf16 -> RM f32: the output dtype can untilize on device: typecast, then untilize.
    assert steps(T([64, 128]), T([64, 128], "f32", "row_major")) == ["typecast", "to_layout"]
    # TILE bf16 -> RM bfp8 is not a row-major dtype ttnn untilizes to; u8 cannot untilize on device:
    # untilize on bf16 first, then typecast.
    assert steps(T([64, 128]), T([64, 128], "u8", "row_major")) == ["to_layout", "typecast"]


def test_untilize_of_l1_to_dram_moves_first():
    # L1 -> DRAM untilize: deshard/move first, then untilize in the output memory.
    assert steps(T([64, 128], buffer="l1"), T([64, 128], layout="row_major")) == ["to_memory_config", "to_layout"]


def test_host_input_moves_first_and_host_output_last():
    # decomposing_layouts_from_host.mlir: host RM -> device TILE: to_device, then tilize on the device.
    assert steps(T([64, 128], layout="row_major", buffer="system_memory"), T([64, 128])) == ["to_device", "to_layout"]
    # device TILE -> host RM: untilize on the device, then from_device.
    assert steps(T([64, 128]), T([64, 128], layout="row_major", buffer="system_memory")) == ["to_layout", "from_device"]


def test_nothing_to_do_is_out_of_scope():
    v = verdict("ttnn.to_tensor_spec", T([64, 128]), T([64, 128]))
    assert v.status == "out_of_scope" and "Redundant" in v.reason


@pytest.mark.parametrize("src,dst,ops", [
    (T([64, 128], "u16", "row_major", "l1"), T([64, 128], "u16"), [("ttnn.to_layout", T([64, 128], "u16", "tile", "l1")),
                                                                ("ttnn.to_memory_config", T([64, 128], "u16"))]),
    (T([64, 128]), T([64, 128], "f32", "row_major"), [("ttnn.typecast", T([64, 128], "f32")),
                                                      ("ttnn.to_layout", T([64, 128], "f32", "row_major"))]),
    (T([100, 300], layout="row_major"), T([100, 300], "f32"), [("ttnn.to_layout", T([100, 300], "f32"))]),
])
def test_programs_are_those_of_the_decomposed_ops(src, dst, ops):
    v = verdict("ttnn.to_tensor_spec", src, dst)
    assert v.status == "modeled", v.reason
    cur, expected = src, []
    for name, nxt in ops:
        w = verdict(name, cur, nxt)
        expected += [(p.factory, [(c.index, c.bytes) for c in p.cbs]) for p in w.stages]
        cur = nxt
    assert [(p.factory, [(c.index, c.bytes) for c in p.cbs]) for p in v.stages] == expected


def test_spec_is_the_last_step_result():
    a = analysis("ttnn.to_tensor_spec", T([100, 300], layout="row_major"), T([100, 300], "f32"))
    [spec] = a.specs[0]
    assert (spec.layout, spec.dtype, spec.padded_shape, spec.buffer_type) == ("tile", "f32", (128, 320), "dram")


@device
@pytest.mark.parametrize("src,ops", [
    (T([64, 128], "u16", "row_major", "l1"), [("ttnn.to_layout", T([64, 128], "u16", "tile", "l1")),
                                             ("ttnn.to_memory_config", T([64, 128], "u16"))]),
    (T([64, 128]), [("ttnn.typecast", T([64, 128], "f32")), ("ttnn.to_layout", T([64, 128], "f32", "row_major"))]),
    (T([100, 300], layout="row_major"), [("ttnn.to_layout", T([100, 300], "f32"))]),
])
def test_decomposed_ops_replay_with_the_modeled_cbs(ex, src, ops):
    v = verdict("ttnn.to_tensor_spec", src, ops[-1][1])
    progs = [p for p in v.stages]
    cur, i = src, 0
    for name, nxt in ops:
        a = analysis(name, cur, nxt)
        op = a.program.ops[0]
        dev = ex.replay(op, a)
        cmp = compare_cbs(a, op, dev)
        assert dev.ok and cmp.match, (name, dev.error, cmp)
        for stage in program_of(a, op, arch=MOCK, free_l1=cmp.free_l1).stages:
            assert [(c.index, c.bytes) for c in stage.cbs] == [(c.index, c.bytes) for c in progs[i].cbs]
            i += 1
        cur = nxt
    assert i == len(progs)
