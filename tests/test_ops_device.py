"""Dialect ops replayed on the mock device through the executor (skipped without it).

Each op is emitted as a one-op module (ttanalyze.ir.emit) and replayed as tt-mlir's runtime calls
it (the handlers in ttanalyze/executor/ttnn_worker.py).  Where the op has a CB model the CBs must
agree (cbcheck.compare_cbs); where it has an output model, what ttnn returned must equal it.
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.executor.cbcheck import compare_cbs
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text

from .conftest import BH_SYSTEM_DESC, device


def T(*shape, dtype="bf16", layout="tile"):
    return TensorDesc(tuple(shape), dtype, layout)


def replay(ex, op, operands, results, attrs=""):
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, results, attrs)), "t.mlir"))
    o = a.program.ops[0]
    return a, o, ex.replay(o, a)


@device
@pytest.mark.parametrize("op,operands,results", [
    ("ttnn.nlp_concat_heads", [T(1, 12, 96, 64)], [T(1, 1, 96, 768)]),
    ("ttnn.concatenate_heads", [T(2, 8, 128, 64)], [T(2, 128, 512)]),
])
def test_concat_heads_cbs_and_output(ex, op, operands, results):
    a, o, dev = replay(ex, op, operands, results)
    assert dev.ok, dev.error
    cmp = compare_cbs(a, o, dev)
    assert cmp.match, cmp
    assert a.specs[o.index] == dev.outputs


@device
def test_sdpa_returns_the_modeled_spec(ex):
    q = T(1, 8, 128, 64)
    a, o, dev = replay(ex, "ttnn.scaled_dot_product_attention", [q, q, q], [q],
                       "operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>")
    assert dev.ok, dev.error
    assert a.specs[o.index] == dev.outputs


@device
@pytest.mark.parametrize("op,operands,results,attrs", [
    ("ttnn.rotary_embedding", [T(1, 8, 128, 64), T(1, 1, 128, 64), T(1, 1, 128, 64)], [T(1, 8, 128, 64)], ""),
    ("ttnn.split_query_key_value_and_split_heads", [T(1, 128, 1536)],
     [T(1, 8, 128, 64), T(1, 8, 64, 128), T(1, 8, 128, 64)], "num_heads = 8 : ui32, transpose_key = true"),
    ("ttnn.cumsum", [T(2, 64, 64)], [T(2, 64, 64)], "dim = 1 : si32"),
])
def test_ops_run_with_the_ruled_shapes(ex, op, operands, results, attrs):
    a, o, dev = replay(ex, op, operands, results, attrs)
    assert dev.ok, dev.error
    assert [tuple(d.shape) for d in dev.outputs] == [tuple(s) for s in a.shape_checks[o.index].shapes]
