"""Op shape rules (tt-mlir op verifiers), on the real fixtures and on hand-made ops."""

from __future__ import annotations

import pytest

from ttanalyze.analysis import check_shapes
from ttanalyze.ops.conv import out_size
from ttanalyze.ops.eltwise import broadcast
from ttanalyze.ops.matmul import matmul_shape
from ttanalyze.ops.registry import ShapeError

from .conftest import FIXTURES, REAL, SEEDS, analyze_path


def test_matmul_shapes():
    assert matmul_shape((32, 128), (128, 256), False, False) == (32, 256)
    assert matmul_shape((32, 128), (256, 128), False, True) == (32, 256)
    assert matmul_shape((128, 32), (128, 256), True, False) == (32, 256)
    # rank-1 operands drop their dim from the result
    assert matmul_shape((128,), (128, 256), False, False) == (256,)
    assert matmul_shape((32, 128), (128,), False, False) == (32,)
    # batch dims broadcast: [8, 1, 32, 64] @ [4, 64, 16] -> [8, 4, 32, 16]
    assert matmul_shape((8, 1, 32, 64), (4, 64, 16), False, False) == (8, 4, 32, 16)
    with pytest.raises(ShapeError, match="K 128 != 64"):
        matmul_shape((32, 128), (64, 256), False, False)


def test_broadcast():
    assert broadcast((1, 128, 768), (1, 1, 768)) == (1, 128, 768)
    assert broadcast((1, 4, 32, 2, 16, 16), (1, 4, 32, 1, 1, 1)) == (1, 4, 32, 2, 16, 16)
    with pytest.raises(ShapeError):
        broadcast((4, 3), (2, 3))


def test_conv_output_sizes():
    # conv2d_block: 32x32 input, 3x3 kernel, stride 1, padding 1 each side -> (32+2-2-1)//1+1 = 32
    assert out_size(32, 2, 3, 1, 1) == 32
    # max_pool2d 2x2 stride 2 no padding: (32-1-1)//2+1 = 16
    assert out_size(32, 0, 2, 2, 1) == 16
    # ceil_mode: 33 with 2x2/2 -> ceil(31/2)+1 = 17 (floor gives 16)
    assert out_size(33, 0, 2, 2, 1, ceil_mode=True) == 17
    assert out_size(33, 0, 2, 2, 1) == 16


def test_conv_and_pool_ops_of_the_real_fixture():
    a = analyze_path(FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir")
    ops = {op.name: op for op in a.program.ops}
    # conv2d: [1, 1, 1*32*32, 16] -> [1, 1, 1*32*32, 32]
    assert check_shapes(ops["ttnn.conv2d"]).shapes == [(1, 1, 1024, 32)]
    # max_pool2d: 32x32 -> 16x16: [1, 1, 256, 32]
    assert check_shapes(ops["ttnn.max_pool2d"]).shapes == [(1, 1, 256, 32)]


def test_conv3d_and_weight_preparation_of_the_mochi_fixture():
    a = analyze_path(FIXTURES / "real" / "mochi_small_edgepad_o0" / "ttnn.mlir")
    ops = {op.name: op for op in a.program.ops}
    # conv3d: [1, 6, 18, 18, 64], kernel 3, stride 1, no padding -> [1, 4, 16, 16, 64]
    assert check_shapes(ops["ttnn.conv3d"]).shapes == [(1, 4, 16, 16, 64)]
    # prepare_conv3d_weights: [64, 64, 3, 3, 3], C_in aligned to 32 -> 64 * 27 = 1728 rows, 64 cols
    assert check_shapes(ops["ttnn.prepare_conv3d_weights"]).shapes == [(1728, 64)]


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_real_op_is_modeled_and_agrees_with_its_ir_type(path):
    a = analyze_path(path)
    for op in a.program.ops:
        check = a.shape_checks[op.index]
        assert check.status in ("checked", "unchecked"), (op, check)
        if check.status == "checked":
            declared = [r.type.shape for r in op.results if r.is_tensor]
            assert [tuple(s) for s in check.shapes] == declared, op


def test_slice_concat_pad_reduce(tmp_path):
    from .conftest import analyze_text, wh_module

    body = """
    %0 = "ttnn.slice_static"(%arg0) <{begins = [0 : i32, 15 : i32], ends = [2 : i32, 16 : i32], step = [1 : i32, 1 : i32]}> : (tensor<2x16xbf16>) -> tensor<2x1xbf16>
    %1 = "ttnn.concat"(%0, %arg0, %0) <{dim = 1 : si32}> : (tensor<2x1xbf16>, tensor<2x16xbf16>, tensor<2x1xbf16>) -> tensor<2x18xbf16>
    %2 = "ttnn.pad"(%1) <{padding = array<i32: 0, 0, 1, 1>, value = 0.0 : f32, use_multicore = true}> : (tensor<2x18xbf16>) -> tensor<2x20xbf16>
    %3 = "ttnn.sum"(%2) <{dim_arg = [1 : i32], keep_dim = false}> : (tensor<2x20xbf16>) -> tensor<2xbf16>
    %4 = "ttnn.slice_static"(%arg0) <{begins = [0 : i32, 0 : i32], ends = [2 : i32, -1 : i32], step = [1 : i32, 2 : i32]}> : (tensor<2x16xbf16>) -> tensor<2x8xbf16>
    return %3 : tensor<2xbf16>"""
    a = analyze_text(wh_module("", body, "%arg0: tensor<2x16xbf16>", "tensor<2xbf16>"))
    shapes = [a.shape_checks[op.index].shapes for op in a.program.ops]
    # slice [0:2, 15:16] -> 2x1; concat along 1: 1+16+1 = 18; pad 1 each side of dim 1 -> 20;
    # sum over dim 1 without keep_dim -> [2]; slice [0:2, 0:-1:2] -> ceil(15/2) = 8
    assert shapes == [[(2, 1)], [(2, 18)], [(2, 20)], [(2,)], [(2, 8)]]
