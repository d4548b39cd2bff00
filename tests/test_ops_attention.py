"""Shape rules and output specs of attention, head and KV-cache ops (ttanalyze.ops.attention,
transformer, kv_cache).  Shapes are derived by hand from tt-mlir's verifiers (TTNNOps.cpp @19c86fca)."""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ir.parse import parse_text

from .conftest import BH_SYSTEM_DESC, findings_of


def T(*shape, dtype="bf16", layout="tile"):
    return TensorDesc(tuple(shape), dtype, layout)


def check(op, operands, results, attrs=""):
    a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, operands, results, attrs)), "t.mlir"))
    return a, a.shape_checks[0]


def seg(*sizes):
    return f"operandSegmentSizes = array<i32: {', '.join(map(str, sizes))}>"


def test_sdpa_returns_the_query_shape_and_checks_gqa():
    q, kv = T(1, 32, 128, 64), T(1, 8, 256, 64)
    a, c = check("ttnn.scaled_dot_product_attention", [q, kv, kv], [q], seg(1, 1, 1, 0, 0))
    assert c.status == "checked" and c.shapes == [(1, 32, 128, 64)]
    assert [(s.shape, s.layout, s.dtype) for s in a.specs[0]] == [((1, 32, 128, 64), "tile", "bf16")]
    _, c = check("ttnn.scaled_dot_product_attention", [T(1, 30, 128, 64), kv, kv], [T(1, 30, 128, 64)],
                 seg(1, 1, 1, 0, 0))
    assert c.status == "invalid" and "divisible" in c.error  # 30 query heads over 8 KV heads


def test_sdpa_mask_needs_non_causal():
    q, kv, m = T(1, 8, 64, 64), T(1, 8, 64, 64), T(1, 1, 64, 64)
    _, c = check("ttnn.scaled_dot_product_attention", [q, kv, kv, m], [q], seg(1, 1, 1, 1, 0))
    assert c.status == "invalid" and "is_causal" in c.error
    _, c = check("ttnn.scaled_dot_product_attention", [q, kv, kv, m], [q], seg(1, 1, 1, 1, 0) + ", is_causal = false")
    assert c.status == "checked"


def test_sdpa_result_dtype_differs_from_query():
    q, kv = T(1, 8, 64, 64), T(1, 8, 64, 64)
    a, _ = check("ttnn.scaled_dot_product_attention", [q, kv, kv], [T(1, 8, 64, 64, dtype="f32")], seg(1, 1, 1, 0, 0))
    assert a.specs[0][0].dtype == "bf16"  # tt-metal returns the query's dtype


def test_decode_and_paged_decode():
    q, k = T(1, 32, 8, 128), T(32, 1, 1024, 128)
    _, c = check("ttnn.scaled_dot_product_attention_decode", [q, k, k], [q], seg(1, 1, 1, 0, 0, 0))
    assert c.shapes == [(1, 32, 8, 128)]
    cache, pt = T(256, 1, 64, 128), T(32, 8, dtype="si32", layout="row_major")
    _, c = check("ttnn.paged_scaled_dot_product_attention_decode", [q, cache, cache, pt], [q], seg(1, 1, 1, 1, 0, 0, 0))
    assert c.status == "checked"
    _, c = check("ttnn.paged_scaled_dot_product_attention_decode", [q, T(256, 1, 48, 128), T(256, 1, 48, 128), pt], [q],
                 seg(1, 1, 1, 1, 0, 0, 0))
    assert c.status == "invalid" and "32" in c.error  # block size 48


def test_decode_mask_middle_dims_are_not_refused():
    # tt-mlir's decode verifier leaves the mask's middle dims free; tt-xla's GPT-OSS decode passes a
    # [1, B, H, S] mask: no false error (the last dim must still be the KV length).
    q, k = T(1, 32, 8, 128), T(32, 1, 1024, 128)
    attrs = seg(1, 1, 1, 1, 0, 0) + ", is_causal = false"
    _, c = check("ttnn.scaled_dot_product_attention_decode", [q, k, k, T(1, 32, 8, 1024)], [q], attrs)
    assert c.status == "checked"
    _, c = check("ttnn.scaled_dot_product_attention_decode", [q, k, k, T(1, 32, 8, 512)], [q], attrs)
    assert c.status == "invalid" and "1024" in c.error


def test_flash_mla_prefill_takes_head_dim_v():
    q, k = T(1, 16, 128, 576), T(1, 1, 128, 576)
    _, c = check("ttnn.flash_mla_prefill", [q, k], [T(1, 16, 128, 512)], seg(1, 1, 0, 0) + ", head_dim_v = 512 : ui32")
    assert c.shapes == [(1, 16, 128, 512)]


def test_concatenate_heads_refuses_head_size_off_tile():
    # concatenate_heads.cpp:28 (d80d9482): TT_FATAL(head_size % 32 == 0) (campaign g1/ttnn.concatenate_heads/0,
    # head size 80); nlp_concat_heads itself has no such check (64 runs).
    from ttanalyze.arch import MOCK_P150_TTNN_0_81_1
    from ttanalyze.programs import program_of

    def prog(op, x, out):
        a = analyze(parse_text(module_text(BH_SYSTEM_DESC, single_op_func(op, [x], [out])), "t.mlir"))
        return program_of(a, next(o for o in a.program.ops if o.name == op), arch=MOCK_P150_TTNN_0_81_1)

    p = prog("ttnn.concatenate_heads", T(1, 12, 32, 80), T(1, 32, 960))
    assert p.status == "rejected" and "multiple of 32" in p.reason
    assert prog("ttnn.concatenate_heads", T(1, 12, 32, 64), T(1, 32, 768)).status == "modeled"


def test_heads_ops():
    _, c = check("ttnn.concatenate_heads", [T(1, 12, 128, 64)], [T(1, 128, 768)])
    assert c.shapes == [(1, 128, 768)]
    _, c = check("ttnn.nlp_concat_heads", [T(1, 12, 128, 64)], [T(1, 1, 128, 768)])
    assert c.shapes == [(1, 1, 128, 768)]
    _, c = check("ttnn.nlp_concat_heads_decode", [T(1, 32, 32, 128)], [T(1, 1, 32, 1024)], "num_heads = 8 : ui32")
    assert c.shapes == [(1, 1, 32, 1024)]
    # fused QKV [2, 128, 2304] with 12 heads: head size 2304 / (12 + 24) = 64; key transposed
    _, c = check("ttnn.split_query_key_value_and_split_heads", [T(2, 128, 2304)],
                 [T(2, 12, 128, 64), T(2, 12, 64, 128), T(2, 12, 128, 64)], "num_heads = 12 : ui32, transpose_key = true")
    assert c.shapes == [(2, 12, 128, 64), (2, 12, 64, 128), (2, 12, 128, 64)]
    # GQA decode: [1, 1, 32, (32 + 2*8) * 128 = 6144] -> q [1, 32, 32, 128], k/v [1, 32, 8, 128]
    _, c = check("ttnn.nlp_create_qkv_heads_decode", [T(1, 1, 32, 6144)],
                 [T(1, 32, 32, 128), T(1, 32, 8, 128), T(1, 32, 8, 128)], "num_heads = 32 : ui32, num_kv_heads = 8 : ui32")
    assert c.shapes == [(1, 32, 32, 128), (1, 32, 8, 128), (1, 32, 8, 128)]


def test_rotary_embedding_keeps_the_shape():
    x, cs = T(1, 8, 128, 64), T(1, 1, 128, 64)
    _, c = check("ttnn.rotary_embedding", [x, cs, cs], [x])
    assert c.shapes == [(1, 8, 128, 64)]
    _, c = check("ttnn.rotary_embedding_llama", [x, cs, cs, T(1, 1, 32, 32)], [x])
    assert c.shapes == [(1, 8, 128, 64)]


@pytest.mark.parametrize("op,operands,attrs,ok", [
    ("ttnn.update_cache", [T(32, 8, 1024, 128), T(1, 8, 32, 128), T(1, dtype="si32", layout="row_major")],
     "batch_offset = 0 : i32", True),
    ("ttnn.update_cache", [T(32, 8, 1024, 128), T(1, 4, 32, 128), T(1, dtype="si32", layout="row_major")],
     "batch_offset = 0 : i32", False),  # heads 4 != 8
    ("ttnn.fill_cache", [T(32, 8, 1024, 128), T(1, 8, 2048, 128)], "batch_offset = 0 : i32", False),  # 2048 > 1024
    ("ttnn.fill_cache", [T(32, 8, 1024, 128), T(1, 8, 512, 128)], "batch_offset = 0 : i32", True),
])
def test_kv_cache_in_place_ops(op, operands, attrs, ok):
    prog = single_op_func(op, operands, [], attrs).replace(" = \"ttnn", "\"ttnn").replace("-> ()", "-> ()")
    text = module_text(BH_SYSTEM_DESC, prog)
    text = text.replace("    %r0\"", "    \"").replace("    return  : \n", "    return\n")
    a = analyze(parse_text(text, "t.mlir"))
    c = a.shape_checks[0]
    assert (c.status == "checked" and c.shapes == []) if ok else (c.status == "invalid"), c
    assert bool(findings_of(a, "TTA007")) is not ok


def test_rotary_embedding_pads_the_sequence_to_a_tile():
    # tt-metal RotaryEmbedding::compute_output_specs: seq 7 -> 32 (tt-mlir declares 1x4x32x128; a
    # tt-xla Llama prefill dump has exactly this op)
    x, cs = T(1, 4, 7, 128), T(1, 1, 7, 128)
    _, c = check("ttnn.rotary_embedding", [x, cs, cs], [T(1, 4, 32, 128)])
    assert c.shapes == [(1, 4, 32, 128)]
