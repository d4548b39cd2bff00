"""The numpy reference interpreter (ttanalyze.interp): numerics, per-op semantics, fixtures, comparisons, errors."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import pytest

from ttanalyze.interp import InterpError, compare, moves_data, random_inputs, run
from ttanalyze.interp.compare import comp_pcc
from ttanalyze.interp.numerics import dtype_of, quantize, round_bf16, storage
from ttanalyze.interp.ops import SEMANTICS, UNARY_FUNCS
from ttanalyze.ir.parse import parse_file, parse_text
from ttanalyze.ops.eltwise import BINARY, UNARY

from .conftest import REAL, SEEDS, wh_module


def program(body: str, args: str, results: str, aliases: str = ""):
    return parse_text(wh_module(aliases, body, args, results), "t.mlir")


def run1(body: str, args: str, results: str, *inputs, aliases: str = ""):
    """Run ``func @main(args) -> results { body }`` on ``inputs``; the results."""
    return run(program(body, args, results, aliases), list(inputs))


def f32(*values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# ---------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------


def test_bf16_rounding_is_nearest_even():
    # 1 + 2^-8 lies halfway between the bf16 neighbours 1 and 1 + 2^-7: ties to the even one, 1.0.
    # 1 + 3*2^-8 lies halfway between 1 + 2^-7 (odd mantissa 1) and 1 + 2^-6 (even mantissa 2): -> 1 + 2^-6.
    # 1 + 2^-8 + 2^-20 is above the tie: rounds up to 1 + 2^-7.
    x = f32(1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -8 + 2 ** -20, -2.5, np.nan, 3.4e38)
    got = round_bf16(x)
    assert got[:4].tolist() == [1.0, 1 + 2 ** -6, 1 + 2 ** -7, -2.5]
    assert np.isnan(got[4])
    assert got[5] == np.inf  # above the largest bf16 (0x7F7F = 3.3895e38): rounds to inf
    assert np.array_equal(round_bf16(got[:4]), got[:4])  # idempotent


def test_bfp8_block_rounding_by_hand():
    # One block of 16 values (last dim 18 -> blocks [0:16] and [16:18] + 14 zero pads).
    x = np.zeros((1, 18), dtype=np.float32)
    x[0, 0] = 1.0        # exponent 127: the block's shared exponent
    x[0, 1] = 0.3        # exp 125, significand 0x99999A >> 2 = 2516582; >> 17 = 19 (remainder 26214 < 2^16) -> 19/64
    x[0, 2] = -0.3       # same magnitude, sign kept
    x[0, 3] = 1.5 * 2 ** -8  # exp 119: 0xC00000 >> 8 = 49152, below the tie 2^16 -> 0 (positive zero)
    x[0, 4] = 1.9921875  # exp 127 is not above 1.0's: 0xFF0000 >> 17 = 127 (remainder 65536, tie, odd) -> 128 -> saturates 127
    x[0, 16] = 0.75      # second block: its own exponent 126: 0xC00000 >> 17 = 96 -> 96 * 2^(126-127-6) = 0.75
    x[0, 17] = 0.001     # exp 117 in 0.75's block: 0x83126F >> 9 = 16777, below the tie -> 0.0
    got = quantize(x, "bfp_bf8")
    assert got[0, :5].tolist() == [1.0, 19 / 64, -19 / 64, 0.0, 127 / 64]
    assert got[0, 16:].tolist() == [0.75, 0.0]
    assert not np.signbit(got[0, 3])
    # bfp4: 3 mantissa bits: 0.3 -> 0x99999A >> 2 >> 21 = 1 (remainder 0x3999A < 2^20) -> 1/4 * 2^0
    assert quantize(x, "bfp_bf4")[0, 1] == 0.25


def test_block_float_and_bf16_match_ttnn_host_conversion():
    """Measured with ttnn 0.81.1 (tt-metal d80d9482) on the mock P150 environment:
    ``ttnn.Tensor(x.flatten().tolist(), [3, 40, 50], dtype, ttnn.TILE_LAYOUT).to_list()`` for this x
    (not tile-aligned in either of the last two dims) gave arrays with these sha256 digests."""
    i = np.arange(3 * 40 * 50, dtype=np.float64).reshape(3, 40, 50)
    x = (np.sin(i * 0.37) * np.exp2(np.floor(np.cos(i * 0.11) * 6))).astype(np.float32)
    x[0, 0, :16] = 0.0
    x[1, 2, 17] = -1e-30
    measured = {
        "bfp_bf8": "3833d4748cd8e2835fa244d72b83fcec5c4397ca2a1b3737c9baeb12373cd20c",
        "bfp_bf4": "c83612ca17f28633c724139b4b6a709de0d231e4201dab800465cebf86702f39",
        "bf16": "0242e93b6ccd95ba96f761d2e479ac258cb2c7f3e20d8e9fd56c7bbeea36a8e4",
    }
    for dtype, digest in measured.items():
        assert hashlib.sha256(quantize(x, dtype).tobytes()).hexdigest() == digest, dtype


def test_float_to_integer_conversions():
    x = np.array([-2.7, 2.7, 2.5, 3.5, -0.4, 3e9, 70000.0, np.nan])
    assert quantize(x, "si32").tolist() == [-2, 2, 2, 3, 0, -2 ** 31, 70000, -2 ** 31]  # truncation; overflow INT_MIN
    assert quantize(x, "u16").tolist() == [0, 3, 2, 4, 0, 65535, 65535, 0]  # clamp at 0, nearest even, saturate
    assert quantize(x, "u32").tolist() == [0, 2, 2, 3, 0, 3_000_000_000, 70000, 0]
    assert quantize(np.array([-5, 300, 7], dtype=np.int32), "u8").tolist() == [0, 255, 7]  # int -> int saturates
    assert quantize(np.array([3, -1], dtype=np.int32), "bf16").dtype == np.float32


# ---------------------------------------------------------------------------
# Data movement
# ---------------------------------------------------------------------------


def test_data_movement_ops_equal_numpy():
    body = """
    %0 = "ttnn.reshape"(%arg0) <{shape = [3 : i32, 8 : i32]}> : (tensor<2x3x4xbf16>) -> tensor<3x8xbf16>
    %1 = "ttnn.permute"(%arg0) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x3x4xbf16>) -> tensor<4x2x3xbf16>
    %2 = "ttnn.transpose"(%arg0) <{dim0 = -1 : si32, dim1 = 0 : si32}> : (tensor<2x3x4xbf16>) -> tensor<4x3x2xbf16>
    %3 = "ttnn.slice_static"(%arg0) <{begins = [0 : i32, 1 : i32, 0 : i32], ends = [2 : i32, 3 : i32, -1 : i32], step = [1 : i32, 1 : i32, 2 : i32]}> : (tensor<2x3x4xbf16>) -> tensor<2x2x2xbf16>
    %4 = "ttnn.concat"(%arg0, %arg0) <{dim = 1 : si32}> : (tensor<2x3x4xbf16>, tensor<2x3x4xbf16>) -> tensor<2x6x4xbf16>
    %5 = "ttnn.pad"(%arg0) <{padding = array<i32: 0, 1, 2, 0, 1, 1>, use_multicore = true, value = 5.0 : f32}> : (tensor<2x3x4xbf16>) -> tensor<3x5x6xbf16>
    %6 = "ttnn.repeat"(%arg0) <{repeat_dims = #ttnn.shape<1x2x1>}> : (tensor<2x3x4xbf16>) -> tensor<2x6x4xbf16>
    %7 = "ttnn.repeat_interleave"(%arg0) <{dim = 2 : si32, repeats = 2 : ui32}> : (tensor<2x3x4xbf16>) -> tensor<2x3x8xbf16>
    return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3x8xbf16>, tensor<4x2x3xbf16>, tensor<4x3x2xbf16>, tensor<2x2x2xbf16>, tensor<2x6x4xbf16>, tensor<3x5x6xbf16>, tensor<2x6x4xbf16>, tensor<2x3x8xbf16>
"""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    res = "tensor<3x8xbf16>, tensor<4x2x3xbf16>, tensor<4x3x2xbf16>, tensor<2x2x2xbf16>, tensor<2x6x4xbf16>, " \
          "tensor<3x5x6xbf16>, tensor<2x6x4xbf16>, tensor<2x3x8xbf16>"
    out = run1(body, "%arg0: tensor<2x3x4xbf16>", res, x)
    expected = [
        x.reshape(3, 8), x.transpose(2, 0, 1), x.transpose(2, 1, 0), x[0:2, 1:3, 0:3:2],
        np.concatenate([x, x], axis=1), np.pad(x, ((0, 1), (2, 0), (1, 1)), constant_values=5.0),
        np.concatenate([x, x], axis=1), np.repeat(x, 2, axis=2),
    ]
    for got, want in zip(out, expected):
        assert got.dtype == np.float32 and np.array_equal(got, want)
    assert out[3][0, 0].tolist() == [4.0, 6.0]  # x[0, 1, 0] = 4, x[0, 1, 2] = 6
    assert moves_data("ttnn.reshape") and moves_data("ttnn.concat") and not moves_data("ttnn.add")


def test_reshape_of_a_bfp8_tensor_regroups_its_blocks():
    # [4, 8] bfp8 -> [2, 16]: rows 0 and 1 of the input (two blocks) become one block of the result, so
    # row 1's values now share 8.0's exponent and lose precision when the result is packed again.
    lay = """
#t48 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bfp_bf8>, #dram>, <interleaved>>
#t216 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bfp_bf8>, #dram>, <interleaved>>
"""
    body = """
    %0 = "ttnn.reshape"(%arg0) <{shape = [2 : i32, 16 : i32]}> : (tensor<4x8xbf16, #t48>) -> tensor<2x16xbf16, #t216>
    return %0 : tensor<2x16xbf16, #t216>
"""
    x = np.full((4, 8), 0.3, dtype=np.float32)
    x[0, 0] = 8.0
    x = quantize(x, "bfp_bf8")
    # in 8.0's block (shared exponent 130) 0.3 keeps 0x99999A >> 5 = 314572, >> 17 = 2 (remainder below the tie):
    # 2 * 2^(130 - 133) = 0.25.  In a block of 0.3s (shared exponent 125, its own): 0x99999A >> 17 = 76,
    # remainder 104858 above the tie -> 77 * 2^(125 - 133) = 77/256.
    assert x[0, 1] == 0.25 and x[1, 0] == 77 / 256
    (got,) = run1(body, "%arg0: tensor<4x8xbf16, #t48>", "tensor<2x16xbf16, #t216>", x, aliases=lay)
    # 77/256 = 1.203125 * 2^-2 joins 8.0's block: 0x9A0000 >> 5 = 315392, >> 17 = 2 (remainder 53248 < 2^16): 0.25
    assert got[0].tolist() == [8.0] + [0.25] * 15
    assert got[1].tolist() == [77 / 256] * 16


def test_embedding_and_index_inputs():
    body = """
    %0 = "ttnn.embedding"(%arg0, %arg1) : (tensor<2x3xui32>, tensor<5x4xbf16>) -> tensor<2x3x4xbf16>
    return %0 : tensor<2x3x4xbf16>
"""
    args = "%arg0: tensor<2x3xui32>, %arg1: tensor<5x4xbf16>"
    table = np.arange(20, dtype=np.float32).reshape(5, 4)
    idx = np.array([[0, 4, 2], [1, 1, 3]], dtype=np.uint32)
    (got,) = run1(body, args, "tensor<2x3x4xbf16>", idx, table)
    assert got[0, 1].tolist() == [16.0, 17.0, 18.0, 19.0] and np.array_equal(got, table[idx])
    with pytest.raises(InterpError, match=r"index out of range \[0, 5\)"):
        run1(body, args, "tensor<2x3x4xbf16>", np.full((2, 3), 5, dtype=np.uint32), table)
    # random_inputs draws the indices within the table's 5 rows
    p = program(body, args, "tensor<2x3x4xbf16>")
    ins = random_inputs(p.entry, seed=3)
    assert ins[0].dtype == np.uint32 and ins[0].max() < 5
    assert ins[1].dtype == np.float32 and -1 <= ins[1].min() and ins[1].max() < 1


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------


def test_every_eltwise_op_of_the_analyzer_has_semantics():
    for name in UNARY + BINARY + ("pow_scalar", "where"):
        assert f"ttnn.{name}" in SEMANTICS, name


def test_unary_ops():
    body = """
    %0 = "ttnn.relu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "ttnn.gelu"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %2 = "ttnn.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xbf16>
    %3 = "ttnn.leaky_relu"(%arg0) <{parameter = 0.5 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "ttnn.clamp_scalar"(%arg0) <{max = 1.5 : f32, min = -0.5 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
    %5 = "ttnn.rsqrt"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
"""
    x = f32(-1.0, 0.0, 1.0, 4.0)
    res = "tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>"
    relu, gelu, exp, leaky, clamp, rsqrt = run1(body, "%arg0: tensor<4xf32>", res, x)
    assert relu.tolist() == [0, 0, 1, 4]
    # gelu(1) = Phi(1) = 0.8413447460685429 (erf form; the tanh form gives 0.8411919906082768)
    assert gelu[2] == np.float32(0.8413447460685429) and gelu[0] == np.float32(-0.15865525393145707)
    assert exp[2] == 2.71875  # e rounded to bf16: 2.71828 lies between 2.703125 and 2.71875, nearer the latter
    assert leaky.tolist() == [-0.5, 0, 1, 4] and clamp.tolist() == [-0.5, 0, 1, 1.5]
    assert rsqrt[3] == 0.5 and rsqrt[1] == np.inf


def test_binary_broadcast_and_fused_activations():
    body = """
    %0 = "ttnn.subtract"(%arg0, %arg1) <{activations = [#ttnn.unary_with_param<op_type = exp>], input_tensor_a_activations = [], input_tensor_b_activations = []}> : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %1 = "ttnn.multiply"(%arg0, %arg1) <{activations = [], input_tensor_a_activations = [], input_tensor_b_activations = [#ttnn.unary_with_param<op_type = rsqrt>]}> : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %2 = "ttnn.gt"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xbf16>
    %3 = "ttnn.where"(%2, %arg0, %arg1) : (tensor<2x3xbf16>, tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %4 = "ttnn.divide"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    return %0, %1, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
"""
    a = f32(1, 2, 3, 4, 5, 6).reshape(2, 3)
    b = f32(2, 4).reshape(2, 1)
    sub_exp, mul_rsqrt, where, div = run1(body, "%arg0: tensor<2x3xf32>, %arg1: tensor<2x1xf32>",
                                          "tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>", a, b)
    assert np.allclose(sub_exp, np.exp(f32(-1, 0, 1, 0, 1, 2).reshape(2, 3)), rtol=1e-7)
    # rsqrt(2) stored as f32 (b's type) = 0.70710677; rsqrt(4) = 0.5
    r = float(np.float32(1 / math.sqrt(2)))
    assert mul_rsqrt[0].tolist() == [np.float32(r * k) for k in (1, 2, 3)]
    assert mul_rsqrt[1].tolist() == [2.0, 2.5, 3.0]
    assert where.tolist() == [[2, 2, 3], [4, 5, 6]]  # a > b ? a : b
    assert div[1].tolist() == [1.0, 1.25, 1.5]


def test_binary_input_activation_is_rounded_to_the_input_type():
    # b = 3 (bf16): rsqrt(3) = 0.57735.. is written to the c_4 CB as bf16: 0.578125; times a = 1 -> 0.578125.
    body = """
    %0 = "ttnn.multiply"(%arg0, %arg1) <{activations = [], input_tensor_a_activations = [], input_tensor_b_activations = [#ttnn.unary_with_param<op_type = rsqrt>]}> : (tensor<1x2xbf16>, tensor<1x1xbf16>) -> tensor<1x2xf32>
    return %0 : tensor<1x2xf32>
"""
    (got,) = run1(body, "%arg0: tensor<1x2xbf16>, %arg1: tensor<1x1xbf16>", "tensor<1x2xf32>",
                  f32(1, 2).reshape(1, 2), f32(3).reshape(1, 1))
    assert got.tolist() == [[0.578125, 1.15625]]


def test_integer_binary_ops_wrap():
    body = """
    %0 = "ttnn.add"(%arg0, %arg1) : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %1 = "ttnn.bitwise_and"(%arg0, %arg1) : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    %2 = "ttnn.logical_right_shift"(%arg0, %arg1) : (tensor<3xsi32>, tensor<3xsi32>) -> tensor<3xsi32>
    return %0, %1, %2 : tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>
"""
    a = np.array([2 ** 31 - 1, -8, 12], dtype=np.int32)
    b = np.array([1, 1, 2], dtype=np.int32)  # shift counts outside [0, 31] give 0: checked below
    add, band, shr = run1(body, "%arg0: tensor<3xsi32>, %arg1: tensor<3xsi32>",
                          "tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>", a, b)
    assert add.tolist() == [-2 ** 31, -7, 14]  # INT_MAX + 1 wraps
    assert band.tolist() == [1, 0, 0]
    assert shr.tolist() == [2 ** 30 - 1, (2 ** 32 - 8) >> 1, 3]  # logical: -8 = 0xFFFFFFF8 -> 0x7FFFFFFC
    (_, _, far) = run1(body, "%arg0: tensor<3xsi32>, %arg1: tensor<3xsi32>",
                       "tensor<3xsi32>, tensor<3xsi32>, tensor<3xsi32>", a, np.array([32, -1, 31], dtype=np.int32))
    assert far.tolist() == [0, 0, 0]  # 12 >> 31 = 0 too


# ---------------------------------------------------------------------------
# Reductions and normalizations
# ---------------------------------------------------------------------------


def test_reductions():
    body = """
    %0 = "ttnn.sum"(%arg0) <{dim_arg = [1 : i32], keep_dim = true}> : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
    %1 = "ttnn.mean"(%arg0) <{dim_arg = [-1 : i32, 0 : i32], keep_dim = false}> : (tensor<2x3x4xf32>) -> tensor<3xf32>
    %2 = "ttnn.max"(%arg0) <{dim_arg = [2 : i32], keep_dim = false}> : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
    %3 = "ttnn.min"(%arg0) <{keep_dim = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
    %4 = "ttnn.prod"(%arg0) <{dim_arg = [0 : i32], keep_dim = false}> : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
    %5 = "ttnn.mean"(%arg1) <{dim_arg = [0 : i32], keep_dim = false}> : (tensor<3xbf16>) -> tensor<bf16>
    return %0, %1, %2, %3, %4, %5 : tensor<2x1x4xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<3x4xf32>, tensor<bf16>
"""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    res = "tensor<2x1x4xf32>, tensor<3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<3x4xf32>, tensor<bf16>"
    s, m, mx, mn, pr, mb = run1(body, "%arg0: tensor<2x3x4xf32>, %arg1: tensor<3xbf16>", res, x, f32(1, 1, 1.0078125))
    assert s[0, 0].tolist() == [12, 15, 18, 21]  # 0+4+8, 1+5+9, ...
    assert m.tolist() == [7.5, 11.5, 15.5]  # row j: mean of {4j..4j+3, 12+4j..12+4j+3} = 4j + 7.5
    assert mx.tolist() == [[3, 7, 11], [15, 19, 23]] and mn.shape == () and mn == 0
    assert pr[1].tolist() == [4 * 16, 5 * 17, 6 * 18, 7 * 19]
    # exact mean 1.0026041.. rounded once to bf16: 1.0 (neighbours 1.0, 1.0078125; nearer 1.0)
    assert mb == 1.0


def test_argmax_and_topk_ties():
    body = """
    %0 = "ttnn.argmax"(%arg0) <{dim = 1 : si32, keep_dim = false}> : (tensor<2x5xbf16>) -> tensor<2xui32>
    %values, %indices = "ttnn.topk"(%arg0) <{dim = 1 : si32, k = 3 : i32, largest = true, sorted = true}> : (tensor<2x5xbf16>) -> (tensor<2x3xbf16>, tensor<2x3xui16>)
    %1, %2 = "ttnn.topk"(%arg0) <{dim = -1 : si32, k = 2 : i32, largest = false, sorted = true}> : (tensor<2x5xbf16>) -> (tensor<2x2xbf16>, tensor<2x2xui16>)
    return %0, %values, %indices, %1, %2 : tensor<2xui32>, tensor<2x3xbf16>, tensor<2x3xui16>, tensor<2x2xbf16>, tensor<2x2xui16>
"""
    x = f32(1, 5, 3, 5, 0, 2, 2, 2, -1, 2).reshape(2, 5)
    res = "tensor<2xui32>, tensor<2x3xbf16>, tensor<2x3xui16>, tensor<2x2xbf16>, tensor<2x2xui16>"
    am, v, i, v2, i2 = run1(body, "%arg0: tensor<2x5xbf16>", res, x)
    assert am.dtype == np.uint32 and am.tolist() == [1, 0]  # first index of the maximum
    assert v.tolist() == [[5, 5, 3], [2, 2, 2]] and i.dtype == np.uint16 and i.tolist() == [[1, 3, 2], [0, 1, 2]]
    assert v2.tolist() == [[0, 1], [-1, 2]] and i2.tolist() == [[4, 0], [3, 0]]


def test_softmax_and_norms():
    body = """
    %0 = "ttnn.softmax"(%arg0) <{dimension = -1 : si32}> : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = "ttnn.layer_norm"(%arg0, %arg1, %arg2) <{epsilon = 0.0 : f32, operandSegmentSizes = array<i32: 1, 1, 1>}> : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %2 = "ttnn.rms_norm"(%arg0, %arg1) <{epsilon = 0.0 : f32, operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
"""
    x = f32(1, 2, 3, 4, 0, 0, 0, 8).reshape(2, 4)
    w, b = f32(1, 2, 1, 1), f32(0, 0, 0, 10)
    sm, ln, rms = run1(body, "%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>",
                       "tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>", x, w, b)
    e = np.exp([-3.0, -2.0, -1.0, 0.0])
    assert np.allclose(sm[0], e / e.sum(), rtol=1e-6)
    # row 0: mean 2.5, population variance 1.25: (x - 2.5) / sqrt(1.25) * w + b
    assert np.allclose(ln[0], np.array([-1.5, -0.5 * 2, 0.5, 1.5 + 10 * math.sqrt(1.25)]) / math.sqrt(1.25), rtol=1e-6)
    # row 1: rms = sqrt(64 / 4) = 4: [0, 0, 0, 2]
    assert rms[1].tolist() == [0, 0, 0, 2]


def test_group_norm():
    body = """
    %0 = "ttnn.group_norm"(%arg0, %arg1, %arg2) <{epsilon = 0.0 : f32, num_groups = 2 : i64, operandSegmentSizes = array<i32: 1, 0, 1, 1>}> : (tensor<1x1x2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x1x2x4xf32>
    return %0 : tensor<1x1x2x4xf32>
"""
    # group 0 = channels 0, 1 over both pixels: {1, 3, 1, 3}: mean 2, variance 1 -> [-1, 1, -1, 1];
    # group 1 = channels 2, 3: {0, 0, 4, 4}: mean 2, variance 4 -> [-1, -1, 1, 1]
    x = f32(1, 3, 0, 0, 1, 3, 4, 4).reshape(1, 1, 2, 4)
    (got,) = run1(body, "%arg0: tensor<1x1x2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>",
                  "tensor<1x1x2x4xf32>", x, f32(1, 1, 2, 2), f32(0, 0, 0, 1))
    assert got[0, 0].tolist() == [[-1, 1, -2, -1], [-1, 1, 2, 3]]


# ---------------------------------------------------------------------------
# Matmul
# ---------------------------------------------------------------------------


def test_matmul_and_linear():
    body = """
    %0 = "ttnn.matmul"(%arg0, %arg1) <{transpose_a = false, transpose_b = true}> : (tensor<2x1x2x3xf32>, tensor<4x3xf32>) -> tensor<2x1x2x4xf32>
    %1 = "ttnn.linear"(%arg2, %arg1, %arg3) <{activation = "relu", transpose_a = false, transpose_b = true}> : (tensor<3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0, %1 : tensor<2x1x2x4xf32>, tensor<4xf32>
"""
    a = np.arange(12, dtype=np.float32).reshape(2, 1, 2, 3)
    w = f32(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1).reshape(4, 3)
    mm, lin = run1(body, "%arg0: tensor<2x1x2x3xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<3xf32>, "
                         "%arg3: tensor<4xf32>", "tensor<2x1x2x4xf32>, tensor<4xf32>", a, w, f32(1, -2, 3), f32(0, 0, -5, 1))
    assert mm[1, 0, 1].tolist() == [9, 10, 11, 30]  # row [9, 10, 11] times the rows of w
    assert lin.tolist() == [1, 0, 0, 3]  # relu([1, -2, 3, 2] + [0, 0, -5, 1])


# ---------------------------------------------------------------------------
# Convolution, pooling, upsampling
# ---------------------------------------------------------------------------


def _conv2d_loops(x, w, b, stride, pad, groups):
    """Independent direct conv2d: x [N, H, W, C], w [O, C/g, kh, kw], pad (top, bottom, left, right)."""
    n, h, wd, c = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, h + pad[0] + pad[1], wd + pad[2] + pad[3], c))
    xp[:, pad[0]:pad[0] + h, pad[2]:pad[2] + wd] = x
    oh, ow = (xp.shape[1] - kh) // stride + 1, (xp.shape[2] - kw) // stride + 1
    y = np.zeros((n, oh, ow, o))
    for oc in range(o):
        g = oc // (o // groups)
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, i * stride:i * stride + kh, j * stride:j * stride + kw, g * cg:(g + 1) * cg]
                y[:, i, j, oc] = np.einsum("nhwc,chw->n", patch, w[oc]) + b[oc]
    return y


def test_conv2d_matches_direct_loops():
    body = """
    %0 = "ttnn.conv2d"(%arg0, %arg1, %arg2, %dev) <{batch_size = 2 : i32, dilation = array<i32: 1, 1>, groups = 2 : i32, in_channels = 4 : i32, input_height = 5 : i32, input_width = 6 : i32, kernel_size = array<i32: 3, 2>, out_channels = 6 : i32, padding = array<i32: 1, 0, 2, 1>, stride = array<i32: 2, 2>}> : (tensor<1x1x60x4xf32>, tensor<6x2x3x2xf32>, tensor<1x1x1x6xf32>, !ttnn.device) -> tensor<1x1x16x6xf32>
    return %0 : tensor<1x1x16x6xf32>
"""
    body = '    %dev = "ttnn.get_device"() : () -> !ttnn.device\n' + body
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 6, 4)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    (got,) = run1(body, "%arg0: tensor<1x1x60x4xf32>, %arg1: tensor<6x2x3x2xf32>, %arg2: tensor<1x1x1x6xf32>",
                  "tensor<1x1x16x6xf32>", x.reshape(1, 1, 60, 4), w, b.reshape(1, 1, 1, 6))
    # padding [top, bottom, left, right] = [1, 0, 2, 1]: OH = (5 + 1 - 3) // 2 + 1 = 2, OW = (6 + 3 - 2) // 2 + 1 = 4
    want = _conv2d_loops(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), 2, (1, 0, 2, 1), 2)
    assert got.shape == (1, 1, 16, 6)
    assert np.allclose(got.reshape(want.shape), want, rtol=1e-5, atol=1e-5)


def test_pools():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    attrs = ("batch_size = 1 : si32, ceil_mode = {ceil}, channels = 1 : si32, dilation = array<i32: 1, 1>, "
             "input_height = 4 : si32, input_width = 4 : si32, kernel_size = array<i32: 2, 2>, "
             "padding = array<i32: {pad}>, stride = array<i32: 2, 2>{extra}")

    def pool(op, ceil, pad, extra, out):
        a = attrs.format(ceil=ceil, pad=pad, extra=extra)
        body = f"""
    %0 = "ttnn.{op}"(%arg0) <{{{a}}}> : (tensor<1x1x16x1xf32>) -> tensor<1x1x{out}x1xf32>
    return %0 : tensor<1x1x{out}x1xf32>
"""
        (y,) = run1(body, "%arg0: tensor<1x1x16x1xf32>", f"tensor<1x1x{out}x1xf32>", x.reshape(1, 1, 16, 1))
        return y.ravel().tolist()

    # 2x2/2 max over [[0..3], [4..7], ...]: maxima 5, 7, 13, 15
    assert pool("max_pool2d", "false", "0, 0", "", 4) == [5, 7, 13, 15]
    # padding [top, left, bottom, right] = [1, 1, 0, 0]: windows start at -1: OH = (4 + 1 - 2) // 2 + 1 = 2
    # windows (rows, cols): (-1..0, -1..0) = {0} + 3 pads; (-1..0, 1..2) = {1, 2} + 2 pads;
    # (1..2, -1..0) = {4, 8} + 2 pads; (1..2, 1..2) = {5, 6, 9, 10}.  count_include_pad divides by 4,
    # otherwise by the 1, 2, 2, 4 input taps.
    assert pool("avg_pool2d", "false", "1, 1, 0, 0", ", count_include_pad = true", 4) == [0, 0.75, 3, 7.5]
    assert pool("avg_pool2d", "false", "1, 1, 0, 0", ", count_include_pad = false", 4) == [0, 1.5, 6, 7.5]
    # ceil_mode with 3x3 output over a 4x4 input, kernel 2 stride 2, padding 1 on top/left:
    # OH = ceil((4 + 1 - 2) / 2) + 1 = 3; the last window (rows 3-4) overruns the input by one row
    assert pool("max_pool2d", "true", "1, 1, 0, 0", "", 9) == [0, 2, 3, 8, 10, 11, 12, 14, 15]


def test_upsample():
    body = """
    %0 = "ttnn.upsample"(%arg0) <{mode = "nearest", scale_factor = 2 : si32}> : (tensor<1x2x2x1xbf16>) -> tensor<1x4x4x1xbf16>
    %1 = "ttnn.upsample"(%arg0) <{mode = "bilinear", scale_factor = 2 : si32}> : (tensor<1x2x2x1xbf16>) -> tensor<1x4x4x1xbf16>
    return %0, %1 : tensor<1x4x4x1xbf16>, tensor<1x4x4x1xbf16>
"""
    x = f32(1, 2, 3, 4).reshape(1, 2, 2, 1)
    near, bil = run1(body, "%arg0: tensor<1x2x2x1xbf16>", "tensor<1x4x4x1xbf16>, tensor<1x4x4x1xbf16>", x)
    assert near[0, :, :, 0].tolist() == [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]
    # PyTorch bilinear, align_corners=False: source coords of 4 outputs over 2 inputs: 0 (clamped), 0.25, 0.75, 1
    assert bil[0, 0, :, 0].tolist() == [1, 1.25, 1.75, 2]
    assert bil[0, 1, :, 0].tolist() == [1.5, 1.75, 2.25, 2.5]


def _conv3d_direct(x, w, b, pad, mode):
    """Independent conv3d: x [N, D, H, W, C], w [O, C, kD, kH, kW] (PyTorch order), stride 1."""
    xp = np.pad(x, [(0, 0)] + [(p, p) for p in pad] + [(0, 0)], mode="edge" if mode == "replicate" else "constant")
    o, c, kd, kh, kw = w.shape
    od, oh, ow = xp.shape[1] - kd + 1, xp.shape[2] - kh + 1, xp.shape[3] - kw + 1
    y = np.zeros((x.shape[0], od, oh, ow, o))
    for a in range(od):
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, a:a + kd, i:i + kh, j:j + kw, :]  # N, kd, kh, kw, C
                y[:, a, i, j] = np.einsum("ndhwc,ocdhw->no", patch, w) + b
    return y


@pytest.mark.parametrize("c_in, block, mode", [(3, 32, "zeros"), (64, 32, "replicate"), (64, 0, "zeros")])
def test_prepare_conv3d_weights_and_conv3d_match_a_direct_conv(c_in, block, mode):
    o = 32
    body = f"""
    %dev = "ttnn.get_device"() : () -> !ttnn.device
    %0 = "ttnn.prepare_conv3d_weights"(%arg1, %dev) <{{alignment = 32 : i32, c_in_block = {block} : i32, groups = 1 : i32}}> : (tensor<{o}x{c_in}x2x3x2xf32>, !ttnn.device) -> tensor<{-(-c_in // 32) * 32 * 12}x{o}xf32>
    %1 = "ttnn.conv3d"(%arg0, %0, %arg2, %dev) <{{batch_size = 1 : i32, conv3d_config = #ttnn.conv3d_config<c_out_block = 32, c_in_block = {block}>, dilation = array<i32: 1, 1, 1>, groups = 1 : i32, in_channels = {c_in} : i32, input_depth = 3 : i32, input_height = 4 : i32, input_width = 3 : i32, kernel_size = array<i32: 2, 3, 2>, out_channels = {o} : i32, padding = array<i32: 0, 1, 1>, padding_mode = "{mode}", stride = array<i32: 1, 1, 1>}}> : (tensor<1x3x4x3x{c_in}xf32>, tensor<{-(-c_in // 32) * 32 * 12}x{o}xf32>, tensor<1x{o}xf32>, !ttnn.device) -> tensor<1x2x4x4x{o}xf32>
    return %1 : tensor<1x2x4x4x{o}xf32>
"""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 3, 4, 3, c_in)).astype(np.float32)
    w = rng.standard_normal((o, c_in, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal((1, o)).astype(np.float32)
    (got,) = run1(body, f"%arg0: tensor<1x3x4x3x{c_in}xf32>, %arg1: tensor<{o}x{c_in}x2x3x2xf32>, %arg2: tensor<1x{o}xf32>",
                  f"tensor<1x2x4x4x{o}xf32>", x, w, b)
    want = _conv3d_direct(x.astype(np.float64), w.astype(np.float64), b[0].astype(np.float64), (0, 1, 1), mode)
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4)


def test_prepare_conv3d_weights_layout_by_hand():
    # O = 1, C = 2 (aligned to 4), kernel 1x1x2, C_in_block 2: rows = [block][kd][kh][kw][c]:
    # block 0: (kw 0: c0, c1), (kw 1: c0, c1); block 1: the zero-padded channels c2, c3.
    body = """
    %0 = "ttnn.prepare_conv3d_weights"(%arg0) <{alignment = 4 : i32, c_in_block = 2 : i32, groups = 1 : i32}> : (tensor<1x2x1x1x2xf32>) -> tensor<8x1xf32>
    return %0 : tensor<8x1xf32>
"""
    w = f32(1, 2, 3, 4).reshape(1, 2, 1, 1, 2)  # w[0, c, 0, 0, kw] = 1 + 2c + kw
    (got,) = run1(body, "%arg0: tensor<1x2x1x1x2xf32>", "tensor<8x1xf32>", w)
    assert got.ravel().tolist() == [1, 3, 2, 4, 0, 0, 0, 0]


# ---------------------------------------------------------------------------
# Functions, deallocation, errors
# ---------------------------------------------------------------------------

_CONST_EVAL = """
#dram = #ttnn.buffer_type<dram>
module attributes {} {
  func.func private @main_const_eval_0() -> tensor<1x1xbf16> attributes {tt.function_type = "const_eval"} {
    %0 = "ttnn.get_device"() : () -> !ttnn.device
    %1 = "ttnn.full"(%0) <{fill_value = 0.1 : f32, shape = #ttnn.shape<1x1>}> : (!ttnn.device) -> tensor<1x1xbf16>
    return %1 : tensor<1x1xbf16>
  }
  func.func @main(%arg0: tensor<2x2xbf16>) -> tensor<2x2xbf16> {
    %0 = ttcore.load_cached(@main_const_eval_0, []) : () -> tensor<1x1xbf16>
    %1 = "ttnn.add"(%arg0, %0) : (tensor<2x2xbf16>, tensor<1x1xbf16>) -> tensor<2x2xbf16>
    "ttnn.deallocate"(%0) <{force = false}> : (tensor<1x1xbf16>) -> ()
    %2 = "ttnn.multiply"(%1, %1) : (tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>
    return %2 : tensor<2x2xbf16>
  }
}
"""


def test_load_cached_and_deallocate():
    p = parse_text(_CONST_EVAL, "c.mlir")
    assert p.entry.name == "main"
    (got,) = run(p, [np.zeros((2, 2), dtype=np.float32)])
    # full 0.1 -> bf16 0.10009765625; add -> same; squared = 0.0100195.. -> bf16 0.010009765625
    assert got.tolist() == [[0.010009765625] * 2] * 2


def test_use_after_deallocate_is_an_error():
    text = _CONST_EVAL.replace('%2 = "ttnn.multiply"(%1, %1)', '%2 = "ttnn.multiply"(%1, %0)').replace(
        "(tensor<2x2xbf16>, tensor<2x2xbf16>) -> tensor<2x2xbf16>\n    return",
        "(tensor<2x2xbf16>, tensor<1x1xbf16>) -> tensor<2x2xbf16>\n    return")
    with pytest.raises(InterpError, match=r"c.mlir:13:\d+: error: ttnn.multiply: %0 is used after its ttnn.deallocate"):
        run(parse_text(text, "c.mlir"), [np.zeros((2, 2), dtype=np.float32)])


def test_op_without_semantics_names_the_op_and_its_position():
    body = """
    %0 = "ttnn.sort"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
"""
    with pytest.raises(InterpError) as exc:
        run1(body, "%arg0: tensor<4xf32>", "tensor<4xf32>", f32(1, 2, 3, 4))
    assert str(exc.value).startswith("t.mlir:") and "ttnn.sort has no reference semantics" in str(exc.value)
    assert exc.value.pos is not None


def test_bad_inputs():
    body = """
    %0 = "ttnn.relu"(%arg0) : (tensor<2x2xbf16>) -> tensor<2x2xbf16>
    return %0 : tensor<2x2xbf16>
"""
    p = program(body, "%arg0: tensor<2x2xbf16>", "tensor<2x2xbf16>")
    with pytest.raises(InterpError, match="takes 1 tensor inputs, got 2"):
        run(p, [np.zeros((2, 2)), np.zeros((2, 2))])
    with pytest.raises(InterpError, match=r"shape \[2, 3\] differs from the declared \[2, 2\]"):
        run(p, [np.zeros((2, 3), dtype=np.float32)])
    with pytest.raises(InterpError, match="values for a bf16 tensor"):
        run(p, [np.array([["a", "b"], ["c", "d"]])])
    pi = program(body.replace("bf16", "si32"), "%arg0: tensor<2x2xsi32>", "tensor<2x2xsi32>")
    with pytest.raises(InterpError, match="float values for a si32 tensor"):
        run(pi, [np.zeros((2, 2), dtype=np.float32)])
    # float inputs are rounded to the argument's type, as a host tensor is created
    (got,) = run(p, [np.full((2, 2), 1 + 2 ** -9, dtype=np.float64)])
    assert got.dtype == np.float32 and got.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_declared_shape_disagreeing_with_the_semantics_is_an_error():
    body = """
    %0 = "ttnn.sum"(%arg0) <{dim_arg = [0 : i32], keep_dim = true}> : (tensor<2x2xf32>) -> tensor<2x1xf32>
    return %0 : tensor<2x1xf32>
"""
    with pytest.raises(InterpError, match=r"computes to shape \[1, 2\], the IR declares \[2, 1\]"):
        run1(body, "%arg0: tensor<2x2xf32>", "tensor<2x1xf32>", np.ones((2, 2), dtype=np.float32))


# ---------------------------------------------------------------------------
# Fixtures: every program runs end to end
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_runs(path: Path):
    """Random inputs (seed 0): results of the declared shapes and storage types.  The largest arrays are the
    seeds' [1, 768, 4, 60, 106] bf16 (78 MB as float32) and the argmax fixtures' [7136, 4096] (117 MB)."""
    p = parse_file(path)
    outs = run(p, random_inputs(p.entry, seed=0))
    assert len(outs) == len(p.entry.returns)
    for got, v in zip(outs, p.entry.returns):
        assert got.shape == tuple(v.type.shape) and got.dtype == storage(dtype_of(v.type))


def test_attention_fixture_computes_softmax_attention():
    p = parse_file(Path(__file__).parent.parent / "fixtures" / "real" / "attention_o2" / "ttnn.mlir")
    q, k, v = random_inputs(p.entry, seed=5)
    (got,) = run(p, [q, k, v])
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) / 8.0
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    want = np.einsum("bhqk,bhkd->bhqd", e / e.sum(axis=-1, keepdims=True), v.astype(np.float64))
    assert compare(want.astype(np.float32), got).pcc > 0.999


def test_mlp_fixture_in_f32_is_the_mlp():
    p = parse_file(Path(__file__).parent.parent / "fixtures" / "seeds" / "simple_mlp_wh.mlir")
    x, w1, b1, w2, b2 = [a.astype(np.float64) for a in random_inputs(p.entry, seed=2)]
    (got,) = run(p, random_inputs(p.entry, seed=2))
    want = np.maximum(x @ w1.T + b1, 0) @ w2.T + b2
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6)


def test_mochi_fixture_is_conv3d_then_group_norm():
    """edgepad: replicate-pad (slices/concats), conv3d, group norm over 32 groups of 2 channels, gamma/beta."""
    p = parse_file(Path(__file__).parent.parent / "fixtures" / "real" / "mochi_small_edgepad_o0" / "ttnn.mlir")
    ins = random_inputs(p.entry, seed=4)
    (got,) = run(p, ins)
    x, w, b, gamma, beta = [a.astype(np.float64) for a in ins]
    # x [1, 64, 4, 16, 16] NCDHW: causal pad in time (2 copies of frame 0 in front), edge pad 1 in H and W
    xt = np.concatenate([x[:, :, :1], x[:, :, :1], x], axis=2)
    xp = np.pad(xt, ((0, 0), (0, 0), (0, 0), (1, 1), (1, 1)), mode="edge")
    y = _conv3d_direct(np.transpose(xp, (0, 2, 3, 4, 1)), w, b, (0, 0, 0), "zeros")  # [1, 4, 16, 16, 64]
    g = y.reshape(1, 4, 16, 16, 32, 2)
    mean = g.mean(axis=(2, 3, 5), keepdims=True)
    var = ((g - mean) ** 2).mean(axis=(2, 3, 5), keepdims=True)
    norm = ((g - mean) / np.sqrt(var + 1e-6)).reshape(y.shape) * gamma + beta
    want = np.transpose(norm, (0, 4, 1, 2, 3))
    assert compare(want.astype(np.float32), got).pcc > 0.999


# ---------------------------------------------------------------------------
# Comparisons
# ---------------------------------------------------------------------------


def test_compare_records():
    a = f32(1, 2, 3, 4)
    same = compare(a, a.copy())
    assert same.exact and same.pcc == 1.0 and same.max_abs == 0 and same.ok(require_exact=True)
    flipped = compare(a, -a)
    assert not flipped.exact and flipped.pcc == pytest.approx(-1.0) and not flipped.ok()
    assert flipped.max_abs == 8.0 and flipped.max_rel == 2.0
    near = compare(a, a + f32(0, 0, 0, 0.01))
    assert near.pcc > 0.999 and near.ok() and not near.ok(require_exact=True)
    assert near.max_abs == pytest.approx(0.01, rel=1e-4) and near.max_rel == pytest.approx(0.01 / 4.01, rel=1e-3)
    other = compare(a, f32(1, 2, 3))
    assert not other.exact and other.pcc == 0.0 and "shapes differ" in str(other)


def test_comp_pcc_corner_cases():
    # one side all zero, the other not: 0.0 (comp_pcc step 2)
    assert comp_pcc(np.zeros(4), f32(1, 2, 3, 4)) == 0.0
    # two different constants: comp_pcc says 1.0 (masked correlation); the record flags it
    c = compare(np.full(4, 2.0, np.float32), np.full(4, 3.0, np.float32))
    assert c.pcc == 1.0 and c.degenerate and not c.ok() and c.max_abs == 1.0
    # NaN and inf are zeroed before the correlation; NaN at the same place is exact
    n = f32(1, np.nan, 3, 4)
    assert compare(n, n.copy()).exact
    assert comp_pcc(f32(1, np.inf, 3, 4), f32(1, 0, 3, 4)) == 1.0
    assert compare(f32(1, np.inf, 3, 4), f32(1, 0, 3, 4)).max_abs == np.inf
    # integer outputs compare by value
    assert compare(np.array([1, 2], np.int32), np.array([1, 2], np.int32)).exact


def test_equivalent_programs_compare_exact():
    """Two spellings of one data movement (a reshape of a permute, and a transpose) give identical outputs."""
    one = """
    %0 = "ttnn.permute"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<3x5xbf16>) -> tensor<5x3xbf16>
    return %0 : tensor<5x3xbf16>
"""
    two = """
    %0 = "ttnn.transpose"(%arg0) <{dim0 = 0 : si32, dim1 = 1 : si32}> : (tensor<3x5xbf16>) -> tensor<5x3xbf16>
    %1 = "ttnn.reshape"(%0) <{shape = [15 : i32]}> : (tensor<5x3xbf16>) -> tensor<15xbf16>
    %2 = "ttnn.reshape"(%1) <{shape = [5 : i32, 3 : i32]}> : (tensor<15xbf16>) -> tensor<5x3xbf16>
    return %2 : tensor<5x3xbf16>
"""
    p1, p2 = program(one, "%arg0: tensor<3x5xbf16>", "tensor<5x3xbf16>"), program(two, "%arg0: tensor<3x5xbf16>",
                                                                                  "tensor<5x3xbf16>")
    ins = random_inputs(p1.entry, seed=11)
    assert compare(run(p1, ins)[0], run(p2, ins)[0]).exact


def test_unary_table_covers_the_activation_names_tt_mlir_prints():
    for name in ("exp", "recip", "gelu", "relu", "sqrt", "sigmoid", "log", "tanh", "rsqrt", "silu", "relu6",
                 "leaky_relu", "square", "abs", "neg", "erf", "soft_plus", "hardsigmoid"):
        assert name in UNARY_FUNCS, name


def test_creation_and_typecast():
    body = """
    %dev = "ttnn.get_device"() : () -> !ttnn.device
    %0 = "ttnn.full"(%dev) <{fill_value = 7 : i32, shape = #ttnn.shape<2x2>}> : (!ttnn.device) -> tensor<2x2xsi32>
    %1 = "ttnn.arange"(%dev) <{end = 7 : si64, start = 1 : si64, step = 2 : si64}> : (!ttnn.device) -> tensor<3xbf16>
    %2 = "ttnn.ones"(%dev) <{shape = #ttnn.shape<3>}> : (!ttnn.device) -> tensor<3xf32>
    %3 = "ttnn.typecast"(%arg0) : (tensor<3xf32>) -> tensor<3xsi32>
    %4 = "ttnn.typecast"(%arg0) : (tensor<3xf32>) -> tensor<3xbf16>
    %5 = "ttnn.pow_scalar"(%arg0) <{rhs = 2.0 : f32}> : (tensor<3xf32>) -> tensor<3xf32>
    %6 = "ttnn.clamp_tensor"(%arg0, %2, %1) : (tensor<3xf32>, tensor<3xf32>, tensor<3xbf16>) -> tensor<3xf32>
    return %0, %1, %3, %4, %5, %6 : tensor<2x2xsi32>, tensor<3xbf16>, tensor<3xsi32>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>
"""
    res = "tensor<2x2xsi32>, tensor<3xbf16>, tensor<3xsi32>, tensor<3xbf16>, tensor<3xf32>, tensor<3xf32>"
    full, ar, cast_i, cast_b, sq, clamp = run1(body, "%arg0: tensor<3xf32>", res, f32(-2.75, 1.00390625, 6.5))
    assert full.dtype == np.int32 and full.tolist() == [[7, 7], [7, 7]]
    assert ar.tolist() == [1, 3, 5]
    assert cast_i.tolist() == [-2, 1, 6]  # truncation toward zero
    assert cast_b.tolist() == [-2.75, 1.0, 6.5]  # 1 + 2^-8 ties to even: 1.0
    assert sq.tolist() == [7.5625, np.float32(1.00390625 ** 2), 42.25]
    assert clamp.tolist() == [1.0, 1.00390625, 5.0]  # clamp(x, min = ones, max = arange)


def test_matmul_transpose_a_and_fused_program_config_activation():
    body = """
    %0 = "ttnn.matmul"(%arg0, %arg1) <{matmul_program_config = #ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config<compute_with_storage_grid_size = #ttnn.core_coord<1, 1>, in0_block_w = 1, out_subblock_h = 1, out_subblock_w = 1, out_block_h = 1, out_block_w = 1, per_core_m = 1, per_core_n = 1, fuse_batch = true, fused_activation = #ttnn.unary_with_param<op_type = relu>, mcast_in0 = true, gather_in0 = false, hop_cores = #ttnn.core_range_set<>, num_global_cb_receivers = 1, untilize_out = false>, transpose_a = true, transpose_b = false}> : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
"""
    a = f32(1, 2, 3, 4, 5, 6).reshape(2, 3)
    b = f32(1, 0, 0, -1).reshape(2, 2)
    (got,) = run1(body, "%arg0: tensor<2x3xf32>, %arg1: tensor<2x2xf32>", "tensor<3x2xf32>", a, b)
    # a^T @ b = [[1, -4], [2, -5], [3, -6]]; relu
    assert got.tolist() == [[1, 0], [2, 0], [3, 0]]


def test_conv2d_weights_dtype_rounds_the_prepared_weights():
    # 1x1 conv, C = 2, O = 16: the weights in bfp8 as ttnn prepares them, [kh*kw*C, O] = [2, 16] (rows of 16 along O)
    body = """
    %0 = "ttnn.conv2d"(%arg0, %arg1) <{batch_size = 1 : i32, conv2d_config = #ttnn.conv2d_config<weights_dtype = bfp_bf8>, dilation = array<i32: 1, 1>, groups = 1 : i32, in_channels = 2 : i32, input_height = 1 : i32, input_width = 1 : i32, kernel_size = array<i32: 1, 1>, out_channels = 16 : i32, padding = array<i32: 0, 0>, stride = array<i32: 1, 1>}> : (tensor<1x1x1x2xf32>, tensor<16x2x1x1xbf16>) -> tensor<1x1x1x16xf32>
    return %0 : tensor<1x1x1x16xf32>
"""
    w = np.full((16, 2, 1, 1), 0.3, dtype=np.float32)
    w[0, 0] = 1.0  # row c = 0 of the prepared matrix: 1.0 and fifteen 0.3s share 1.0's exponent: 0.3 -> 19/64
    w = quantize(w, "bf16")
    (got,) = run1(body, "%arg0: tensor<1x1x1x2xf32>, %arg1: tensor<16x2x1x1xbf16>", "tensor<1x1x1x16xf32>",
                  f32(1, 0).reshape(1, 1, 1, 2), w)
    assert got[0, 0, 0].tolist() == [1.0] + [19 / 64] * 15


def test_conv2d_block_fixture_is_conv_relu_maxpool():
    p = parse_file(Path(__file__).parent.parent / "fixtures" / "real" / "conv2d_block_o0" / "ttnn.mlir")
    ins = random_inputs(p.entry, seed=8)
    (got,) = run(p, ins)
    x, w_hwio, b = [a.astype(np.float64) for a in ins]  # x [1, 32, 32, 16], w [3, 3, 16, 32], b [32]
    y = np.maximum(_conv2d_loops(x, w_hwio.transpose(3, 2, 0, 1), b, 1, (1, 1, 1, 1), 1), 0.0)
    want = y.reshape(1, 16, 2, 16, 2, 32).max(axis=(2, 4))  # 2x2 / 2 max pool
    assert compare(want.astype(np.float32), got).pcc > 0.9999
    assert np.allclose(got, want, rtol=2 ** -7, atol=2 ** -7 * np.abs(want).max())
