"""Shape rules of the remaining dialect families (sort_scatter, quantization, random, copies,
eltwise_extra, conv_extra, norm_extra, training), derived by hand from tt-mlir's verifiers
(lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca)."""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text

from .conftest import BH_SYSTEM_DESC


def T(*shape, dtype="bf16", layout="tile"):
    return TensorDesc(tuple(shape), dtype, layout)


def check(op, operands, results, attrs=""):
    """The op's shape verdict in a one-op module (no-result ops return nothing)."""
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(operands))
    outs = ", ".join(t.type_text() for t in results)
    names = ", ".join(f"%r{i}" for i in range(len(results)))
    attr = f" {{{attrs}}}" if attrs else ""
    call = (f'"{op}"({", ".join(f"%arg{i}" for i in range(len(operands)))}){attr} : '
            f'({", ".join(t.type_text() for t in operands)}) -> ({outs})')
    body = f"    {names} = {call}\n    return {names} : {outs}" if results else f"    {call}\n    return"
    text = (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main({args}) -> ({outs}) {{\n{body}\n  }}\n}}\n")
    return analyze(parse_text(text, "t.mlir")).shape_checks[0]


@pytest.mark.parametrize("op,operands,results,attrs,expected", [
    ("ttnn.sort", [T(4, 64)], [T(4, 64), T(4, 64, dtype="u16")], "dim = -1 : si8", [(4, 64), (4, 64)]),
    ("ttnn.gather", [T(4, 64), T(4, 8, dtype="u16")], [T(4, 8)], "dim = 1 : si32", [(4, 8)]),
    ("ttnn.scatter", [T(4, 64), T(4, 8, dtype="si32"), T(4, 8)], [T(4, 64)],
     "dim = 1 : si32, scatter_reduce_type = #ttcore.reduce_type<invalid>", [(4, 64)]),
    ("ttnn.cumsum", [T(2, 3, 64)], [T(2, 3, 64)], "dim = 1 : si32", [(2, 3, 64)]),
    ("ttnn.rand", [], [T(3, 96)], "size = #ttnn.shape<3x96>", [(3, 96)]),
    ("ttnn.dropout", [T(32, 64)], [T(32, 64)], "prob = 2.0 : f32", None),  # probability > 1
    ("ttnn.clamp_tensor", [T(1, 64), T(32, 1), T(1, 1)], [T(32, 64)], "", [(32, 64)]),
    ("ttnn.gelu_bw", [T(32, 64), T(32, 64)], [T(32, 64)], 'approximate = "exact"', None),
    # conv1d: L_out = (100 + 1 + 1 - 1*(3-1) - 1) / 1 + 1 = 100; flattened [1, 1, 2*100, 16]
    ("ttnn.conv1d", [T(2, 100, 8), T(16, 8, 3)], [T(1, 1, 200, 16)],
     "in_channels = 8 : i32, out_channels = 16 : i32, batch_size = 2 : i32, input_length = 100 : i32, "
     "kernel_size = 3 : i32, stride = 1 : i32, padding = array<i32: 1, 1>, dilation = 1 : i32, groups = 1 : i32",
     [(1, 1, 200, 16)]),
    # conv_transpose2d: H_out = (8-1)*2 - 2*1 + 1*(4-1) + 0 + 1 = 16, W likewise: [1, 1, 1*16*16, 32]
    ("ttnn.conv_transpose2d", [T(1, 1, 64, 16), T(16, 32, 4, 4)], [T(1, 1, 256, 32)],
     "in_channels = 16 : i32, out_channels = 32 : i32, batch_size = 1 : i32, input_height = 8 : i32, "
     "input_width = 8 : i32, kernel_size = array<i32: 4, 4>, stride = array<i32: 2, 2>, padding = array<i32: 1, 1>, "
     "output_padding = array<i32: 0, 0>, dilation = array<i32: 1, 1>, groups = 1 : i32", [(1, 1, 256, 32)]),
    ("ttnn.global_avg_pool2d", [T(2, 7, 7, 64)], [T(2, 1, 1, 64)], "", [(2, 1, 1, 64)]),
    # embedding_bw: index [2, 1, 1, 32], weight [1000, 64], grad [1, 1, 64, 64] -> [1, 1, 1000, 64]
    ("ttnn.embedding_bw", [T(2, 1, 1, 32, dtype="u32", layout="row_major"), T(1000, 64), T(1, 1, 64, 64)],
     [T(1, 1, 1000, 64)], "", [(1, 1, 1000, 64)]),
    ("ttnn.quantize", [T(32, 64)], [T(32, 64)], "axis = 2 : i32", None),  # axis out of range
])
def test_shape_rules(op, operands, results, attrs, expected):
    c = check(op, operands, results, attrs)
    if expected is None:
        assert c.status == "invalid", c
    else:
        assert c.status == "checked" and c.shapes == expected, c


def test_in_place_ops_check_their_operands():
    assert check("ttnn.copy", [T(32, 64), T(32, 64)], []).shapes == []
    assert check("ttnn.copy", [T(32, 64), T(64, 64)], []).status == "invalid"
    seg = "lr = 1.0e-03 : f32, beta1 = 0.9 : f32, beta2 = 0.999 : f32, beta1_pow = 0.9 : f32, beta2_pow = 0.999 : f32, " \
          "epsilon = 1.0e-08 : f32, weight_decay = 0.0 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0>"
    assert check("ttnn.adamw", [T(32, 64)] * 4, [], seg).shapes == []
    assert check("ttnn.adamw", [T(32, 64), T(32, 64), T(32, 64), T(64, 64)], [], seg).status == "invalid"


def test_distributed_norm_keeps_the_shape():
    c = check("ttnn.batch_norm_inference", [T(2, 8, 16, 16)], [T(2, 8, 16, 16)],
              "operandSegmentSizes = array<i32: 1, 0, 0, 0, 0>")
    assert c.shapes == [(2, 8, 16, 16)]
