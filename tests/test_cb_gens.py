"""Held-out random instances of the ops that had a CB model but no generator (benchmarks/opdiff_instances.py,
``gens_generators``), and the model fixes their device records drove.

The device records are the op-level campaign's ``measurements/opdiff/runs/gens.jsonl.gz`` (ttnn 0.81.1 on the mock
P150, NO_DISPATCH capture; rerun: ``benchmarks/opdiff.py run --base 60 --lock --only <ops> --results
measurements/opdiff/runs/gens.jsonl.gz``).  Each record is rescored with the current model as ``opdiff.py rescore``
does; the other tests derive their figures by hand from the tt-metal / tt-mlir sources they cite.  No device needed.
"""

from __future__ import annotations

import pytest

from benchmarks import opdiff
from benchmarks.opdiff_space import SPACE_FROM
from benchmarks.opdiff_instances import DEVICE_OPERAND, gens_generators, generators, instance, instances
from ttanalyze.programs import context_for
from ttanalyze.ops import spec_model

from .conftest import ROOT
from .test_cb_opdiff import T, run
from .test_cb_opdiff_misc import analyzed

RUNS = ROOT / "measurements" / "opdiff" / "runs" / "gens.jsonl.gz"
OPS = sorted(gens_generators())

# Exact instances per op under the current model (at least): the campaign's figures when these tests were written
# (docs: the report's per-op table; causes of the rest in measurements/opdiff/causes.yaml).
EXACT_AT_LEAST = {
    "ttnn.clamp_tensor": 60, "ttnn.conv1d": 50, "ttnn.conv_transpose2d": 58, "ttnn.copy": 60,
    "ttnn.dit_rms_norm_unary_fused": 59, "ttnn.embedding_bw": 60, "ttnn.layer_norm_post_all_gather": 60,
    "ttnn.layer_norm_pre_all_gather": 60, "ttnn.moe_expert_token_remap": 60,
    "ttnn.paged_flash_multi_latent_attention_decode": 54, "ttnn.prepare_conv_transpose2d_bias": 60,
    "ttnn.prepare_conv_transpose2d_weights": 60, "ttnn.prod": 60, "ttnn.rand": 60, "ttnn.rms_norm_pre_all_gather": 60,
    "ttnn.sampling": 60, "ttnn.slice_dynamic": 24, "ttnn.sparse_matmul": 60, "ttnn.topk_router_gpt": 60,
    # host I/O: both run no program (write_tensor/19: its L1 operand could not be allocated, not an instance)
    "ttnn.write_tensor": 59, "ttnn.dump_tensor": 60, "ttnn.load_tensor": 60,
}


def _records(op: str) -> list[dict]:
    return [r for r in opdiff.load_results(RUNS).values()
            if r["op"] == op and r["outcome"] not in ("invalid", "not_replayed")]


def test_every_new_generator_draws_modules_the_analyzer_reads():
    gens = generators()
    assert set(OPS) <= set(gens) and len(OPS) == len(EXACT_AT_LEAST)
    for op in OPS:
        for i in range(4):
            p = opdiff.prepare(op, i, gens)
            assert p["error"] is None, (op, i, p["error"])
            if op in DEVICE_OPERAND:  # tt-mlir's form: the device from ttnn.get_device as an operand
                assert '"ttnn.get_device"' in p["inst"].text and "!ttnn.device" in p["inst"].text
    # the g1 ids (benchmarks/opdiff_space.py draws the ids from SPACE_FROM up)
    assert len([1 for op, i in instances(60, ",".join(OPS)) if i < SPACE_FROM]) == 60 * len(OPS)


@pytest.mark.parametrize("op", OPS)
def test_the_campaign_measured_the_op_and_the_model_matches_it(op):
    recs = _records(op)
    assert len(recs) >= 59
    gens = generators()
    exact = 0
    for rec in recs:
        i = int(rec["id"].rsplit("/", 1)[1])
        new = opdiff.compare(opdiff.prepare(op, i, gens), opdiff.device_from_record(rec["device"]))
        assert new["outcome"] != "model_crashed", new["model"]
        # a false error is worse than a missed one: the model refuses only what tt-metal refuses, apart from the
        # capture's unchecked CB region (measurements/opdiff/causes.yaml, the MLA decode entry)
        if new["outcome"] == "model_refused":
            assert op == "ttnn.paged_flash_multi_latent_attention_decode" and \
                new["model"]["peak"] == rec["device"]["peak"], (rec["id"], new["model"])
        exact += bool(new["exact"])
    assert exact >= EXACT_AT_LEAST[op], (op, exact, len(recs))


# ---------------------------------------------------------------------------
# paged_flash_multi_latent_attention_decode: the runtime's program config
# ---------------------------------------------------------------------------


def test_mla_decode_runs_the_runtimes_config_with_up_to_16_cores_per_head():
    # g1/ttnn.paged_flash_multi_latent_attention_decode/0 (measured 384,192 B): q [1, 16, 8, 576], a latent cache of
    # 64-row blocks, 8 pages per user.  tt-mlir's runtime passes SDPAProgramConfig{grid 11x10, k_chunk_size 32}
    # whose max_cores_per_head_batch keeps its default 16: cores per batch = min(110, 16 * 16 * 1) / 16 = 6, so each
    # head's 6 cores tree-reduce through c_19: (PNHt * vDHt + 2 * PNHt) * (6 - 1) = (16 + 2) * 5 = 90 half tiles of
    # 1,024 B (8 heads <= 16, causal, bf16: 16x32 tiles) = 92,160 B, the CB the model without the config missed.
    gens = generators()
    inst = instance("ttnn.paged_flash_multi_latent_attention_decode", 0,
                    gens["ttnn.paged_flash_multi_latent_attention_decode"])
    from ttanalyze.analysis import analyze
    from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
    from ttanalyze.ir.parse import parse_text
    from ttanalyze.programs import program_of

    a = analyze(parse_text(inst.text, "t.mlir"))
    op = next(o for o in a.program.ops if o.pos.line == inst.line)
    v = program_of(a, op, arch=MOCK, free_l1=1_461_120)
    cbs = {c.name: c for s in v.stages for c in s.static_cbs}
    assert cbs["intermed_out"].bytes == 92_160
    assert cbs["k_in"].bytes == 2 * 1 * 18 * 2048  # K chunk 32 rows: 1 tile x 18 Dqk tiles, double-buffered
    assert sum(c.bytes for c in v.program.static_cbs) == 384_192


# ---------------------------------------------------------------------------
# The distributed norms' single-device steps
# ---------------------------------------------------------------------------

PRE = "dtype = #ttcore.supportedDataTypes<bf16>, operandSegmentSizes = array<i32: 1, 0>"


def test_pre_all_gather_refuses_an_input_below_rank_4():
    # compute_output_specs sets output_shape[3] (layernorm_pre_all_gather_device_operation.cpp): a rank-3 input
    # throws "ShapeBase[] index out of range" (measured: every rank-2/3 draw of the campaign)
    v = run("ttnn.rms_norm_pre_all_gather", [T((4, 64, 128))], T((4, 64, 32)), PRE)
    assert v.status == "rejected" and "output_shape[3]" in v.reason
    assert run("ttnn.rms_norm_pre_all_gather", [T((1, 4, 64, 128))], T((1, 4, 64, 32)), PRE).status == "modeled"


def test_pre_all_gather_of_rank_5_sets_dim_3_not_the_last():
    # the same output_shape[3] on [1, 2, 1, 2, 1]: ttnn returns [1, 2, 1, 32, 1] (measured,
    # g1/ttnn.rms_norm_pre_all_gather/0), not the statistics tt-mlir declares
    a, op = analyzed("ttnn.rms_norm_pre_all_gather", [T((1, 2, 1, 2, 1))], T((1, 2, 1, 2, 32)), PRE)
    from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK

    specs = spec_model(op.name)(context_for(a, op, arch=MOCK, free_l1=1_461_120))
    assert specs[0].shape == (1, 2, 1, 32, 1)


def test_pre_all_gather_of_f32_needs_fp32_accumulation_and_bfloat8_b_is_modeled():
    v = run("ttnn.layer_norm_pre_all_gather", [T((1, 1, 64, 96), "f32")], T((1, 1, 64, 64)),
            "dtype = #ttcore.supportedDataTypes<bf16>, operandSegmentSizes = array<i32: 1, 0, 0>")
    assert v.status == "rejected" and "fp32_dest_acc_en" in v.reason
    # bfloat8_b: the input CB in its format (2 x 3 tiles x 1,088 B), the rest as for bf16
    v = run("ttnn.layer_norm_pre_all_gather", [T((1, 1, 64, 96), "bfp_bf8")], T((1, 1, 64, 64)),
            "dtype = #ttcore.supportedDataTypes<bf16>, operandSegmentSizes = array<i32: 1, 0, 0>")
    assert v.status == "modeled"
    assert [c.bytes for c in v.stages[-1].static_cbs][0] == 2 * 3 * 1088


POST = "epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: 1, 1, {w}, {b}>"


@pytest.mark.parametrize("x, stats, extra, why", [
    # rank 2: padded_shape()[1] compares W with the statistics' width (g1/ttnn.layer_norm_post_all_gather/7)
    (T((3, 64)), T((3, 512)), [], "dim1"),
    # a row-major gamma must be [W / 32, 32] with W's tiles: [28, 32] for W = 914 is not (.../20)
    (T((1, 1, 32, 914)), T((1, 1, 32, 64)), [T((28, 32), layout="row_major")], "align"),
    # f32 input without fp32_dest_acc_en: the program factory's TT_FATAL (.../15)
    (T((1, 1, 32, 64), "f32"), T((1, 1, 32, 64)), [], "fp32_dest_acc_en"),
])
def test_post_all_gather_refuses_what_tt_metal_validates(x, stats, extra, why):
    v = run("ttnn.layer_norm_post_all_gather", [x, stats, *extra], T(x.shape, x.dtype),
            POST.format(w=len(extra), b=0))
    assert v.status == "rejected" and why in v.reason


def test_post_all_gather_takes_a_rank_1_tile_gamma():
    # [W] TILE: ttnn's padded shape is [32, W], one tile row (measured: g1/ttnn.layer_norm_post_all_gather/9 ran)
    v = run("ttnn.layer_norm_post_all_gather", [T((1, 1, 64, 192)), T((1, 1, 64, 64)), T((192,))],
            T((1, 1, 64, 192)), POST.format(w=1, b=0))
    assert v.status == "modeled"


def test_dit_rms_norm_with_a_residual_adds_two_double_blocks():
    # g1/ttnn.dit_rms_norm_unary_fused/55 (measured): [1352, 3] bfloat8_b with a residual, a [3] weight; Wt 1, block 8
    # (fp32 accumulation off): the input's Wtb = 8 tiles staged in bf16 (8 x 2,048 B, not 8 x 1,088) and the residual
    # and the sum 2 x 8 = 16 tiles of 1,088 B each (17,408 B)
    x = T((1352, 3), "bfp_bf8")
    v = run("ttnn.dit_rms_norm_unary_fused", [x, T((3,)), x], x,
            "epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: 1, 1, 0, 1>")
    cbs = {c.name: c.bytes for c in v.program.static_cbs}
    assert cbs["in0"] == 8 * 2048 and cbs["residual (in1)"] == cbs["x + residual"] == 17_408


def test_rand_into_row_major_generates_tiles_then_converts():
    # g1/ttnn.rand/4 (measured 8,192 B peak): [5146, 64] bf16 row-major in DRAM; RandProgramFactory writes 161 x 2 tiles
    # (2 x 2,048 B on the cores of the split), then to_layout: padded rows (5146 -> 5152), so untilize_with_unpadding's
    # interleaved factory, one padded row of 2 tiles in and out (4,096 B each)
    v = run("ttnn.rand", [], T((5146, 64), layout="row_major"),
            "size = #ttnn.shape<5146x64>, dtype = #ttcore.supportedDataTypes<bf16>, layout = #ttnn.layout<row_major>, "
            "memory_config = #ttnn.memory_config<#ttnn.buffer_type<dram>, <interleaved>>, low = 0.000000e+00 : f32, "
            "high = 1.000000e+00 : f32, seed = 0 : ui32")
    assert [s.factory.rsplit("::", 1)[-1] for s in v.stages] == \
        ["RandProgramFactory", "UntilizeWithUnpaddingMultiCoreInterleavedProgramFactory"]
    assert [c.bytes for c in v.stages[0].static_cbs] == [4096]
    assert [c.bytes for c in v.stages[1].static_cbs] == [4096, 4096]


def test_embedding_bw_refuses_a_uint16_index():
    # embedding_backward_device_operation.cpp: index_tensor.dtype() == UINT32 or BFLOAT16 (measured: every u16 draw)
    ops = [T((2, 1, 1, 64), "u16", "row_major"), T((1000, 768)), T((1, 1, 128, 768))]
    v = run("ttnn.embedding_bw", ops, T((1, 1, 1000, 768)), "dtype = #ttcore.supportedDataTypes<bf16>")
    assert v.status == "rejected" and "index" in v.reason
    ops[0] = T((2, 1, 1, 64), "u32", "row_major")
    assert run("ttnn.embedding_bw", ops, T((1, 1, 1000, 768)), "dtype = #ttcore.supportedDataTypes<bf16>").status == "modeled"
