"""The tt-train (ttml) ops ``adamw``, ``sdpa_fw``, ``sdpa_bw`` (ttanalyze.ops.tt_train): program models against figures
derived by hand from the program factories' source (none of them is in ttnn 0.81.1, so none runs on the mock), on
the programs tt-mlir's own tests build (``test/ttmlir/Dialect/TTNN/{adamw,sdpa_fw,sdpa_bw,optimizer}`` @19c86fca,
lowered as tt-mlir lowers them: DRAM-interleaved TILE tensors) and the refusals tt-mlir documents.

Tile sizes: bf16 2,048 B, f32 4,096 B.  Blackhole's worker grid is 11 x 10 (110 cores); ``split_work_to_cores``
fills it column by column (x = i / 10, y = i % 10).
"""

from __future__ import annotations

from ttanalyze.analysis import analyze
from ttanalyze.cost.ir import program_cost
from ttanalyze.ir.parse import parse_text

from .conftest import findings_of


def _layout(shape, dt, buf):
    b, h, s, d = shape
    return (f"#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * {h * s} + d1 * {s} + d2, d3), <1x1>, "
            f"memref<{b * h * -(-s // 32)}x{-(-d // 32)}x!ttcore.tile<32x32, {dt}>, #{buf}>, <interleaved>>")


def ty(shape, dt="bf16", buf="dram"):
    """A DRAM-interleaved TILE tensor type, as tt-mlir's TTNN pipeline lays out the ttml ops' operands."""
    return f"tensor<{'x'.join(map(str, shape))}x{dt}, {_layout(shape, dt, buf)}>"


def program(args: list[str], body: str, results: list[str]) -> str:
    sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    head = "#dram = #ttnn.buffer_type<dram>\n#l1 = #ttnn.buffer_type<l1>\nmodule {\n"
    return f"{head}  func.func @f({sig}) -> ({', '.join(results)}) {{\n{body}  }}\n}}\n"


ADAMW_ATTRS = ("lr = 1.000000e-03 : f32, beta1 = 0.899999976 : f32, beta2 = 0.999000012 : f32, beta1_pow = 0.899999976 : "
               "f32, beta2_pow = 0.999000012 : f32, epsilon = 1.000000e-08 : f32, weight_decay = 1.000000e-02 : f32")


def adamw_program(shape, dt="bf16", grad_dt=None, amsgrad=False, buf="dram") -> str:
    n = 5 if amsgrad else 4
    types = [ty(shape, dt, buf), ty(shape, grad_dt or dt)] + [ty(shape, dt)] * (n - 2)
    seg = f", operandSegmentSizes = array<i32: 1, 1, 1, 1, {1 if amsgrad else 0}>"
    ops = ", ".join(f"%a{i}" for i in range(n))
    body = (f'    "ttnn.adamw"({ops}) <{{{ADAMW_ATTRS}{seg}}}> : ({", ".join(types)}) -> ()\n'
            f"    return %a0 : {types[0]}\n")
    return program(types, body, [types[0]])


def sdpa_fw_program(q, kv=None, mask="causal", inter=True, dt="bf16", d_mask=False) -> str:
    kv = kv or q
    args = [ty(q, dt), ty(kv, dt), ty(kv, dt)] + ([ty((1, 1, q[2], q[2]), dt)] if d_mask else [])
    outs = [ty(q, dt)] + ([ty((*q[:3], 32), "f32")] if inter else [])
    names = "%0, %1" if inter else "%0"
    body = (f'    {names} = "ttnn.sdpa_fw"({", ".join(f"%a{i}" for i in range(len(args)))}) <{{mask_type = '
            f"#ttcore.attention_mask_type<{mask}>, dropout_probability = 0.000000e+00 : f32, return_intermediates = "
            f"{'true' if inter else 'false'}}}> : ({', '.join(args)}) -> ({', '.join(outs)})\n"
            f"    return {names} : {', '.join(outs)}\n")
    return program(args, body, outs)


def sdpa_bw_program(q, kv=None, mask="causal") -> str:
    kv = kv or q
    args = [ty(q), ty(q), ty(q), ty(kv), ty(kv), ty((*q[:3], 32), "f32")]
    outs = [ty(q), ty(kv), ty(kv)]
    body = (f'    %0, %1, %2 = "ttnn.sdpa_bw"(%a0, %a1, %a2, %a3, %a4, %a5) <{{mask_type = '
            f"#ttcore.attention_mask_type<{mask}>, dropout_probability = 0.000000e+00 : f32}}> : ({', '.join(args)}) "
            f"-> ({', '.join(outs)})\n    return %0, %1, %2 : {', '.join(outs)}\n")
    return program(args, body, outs)


def run(text: str, name: str):
    a = analyze(parse_text(text, "train.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == name)
    return a, op, a.programs[op.index]


def cbs(stage) -> dict[int, tuple[int, int]]:
    return {cb.index: (cb.pages, cb.page_bytes) for cb in stage.cbs}


def per_core(stage) -> int:
    return sum(cb.bytes for cb in stage.cbs)


# ---------------------------------------------------------------------------------------------------------- adamw


def test_adamw_simple_64x64():
    """tt-mlir adamw/simple_adamw.mlir: 1x1x64x64 bf16 = 4 tiles on 4 cores (0,0)-(0,3), 1 tile each, block
    min(2, 1) = 1.  c_0-c_3 and c_16-c_18: 1 bf16 tile; c_24 momentum, c_25 variance: 2 * block = 2 f32 tiles.
    7 * 2,048 + 2 * 8,192 = 30,720 B per core.  In place: no result, no buffer."""
    a, op, prog = run(adamw_program((1, 1, 64, 64)), "ttnn.adamw")
    [p] = prog.stages
    assert p.factory == "AdamWDeviceOperation::AdamWProgramFactory" and p.cores.num_cores == 4
    assert {(r.start.x, r.start.y, r.end.x, r.end.y) for r in p.cores.ranges} == {(0, 0, 0, 3)}
    assert cbs(p) == {0: (1, 2048), 1: (1, 2048), 2: (1, 2048), 3: (1, 2048), 16: (1, 2048), 17: (1, 2048),
                      18: (1, 2048), 24: (2, 4096), 25: (2, 4096)}
    assert per_core(p) == 30_720 and not p.device_buffers
    assert "050f24fa" in p.source and "from source" in p.source
    assert [f for f in findings_of(a) if f.severity == "error"] == []


def test_adamw_amsgrad_adds_three_cbs():
    """tt-mlir optimizer/adamw_validation.mlir @adamw_amsgrad_optimizer: max_exp_avg_sq adds c_4 and c_19 (block = 1
    bf16 tile) and c_26 (2 * block f32 tiles): 30,720 + 2 * 2,048 + 8,192 = 43,008 B per core."""
    _, _, prog = run(adamw_program((1, 1, 64, 64), amsgrad=True), "ttnn.adamw")
    [p] = prog.stages
    assert cbs(p)[4] == (1, 2048) and cbs(p)[19] == (1, 2048) and cbs(p)[26] == (2, 4096)
    assert per_core(p) == 43_008
    assert [cb.index for cb in p.cbs] == [0, 1, 2, 3, 16, 17, 18, 4, 19, 26, 24, 25]  # the factory's creation order


def test_adamw_block_of_two_on_the_whole_grid():
    """1x1x1024x1024 bf16: 1,024 tiles over 110 cores, ceil = 10 on group 1: block min(2, 10) = 2.
    7 * 2 * 2,048 + 2 * 4 * 4,096 = 61,440 B per core.  An f32 parameter (f32 states, bf16 gradient) takes f32 tiles
    for c_0, c_2, c_3, c_16-c_18: 6 * 2 * 4,096 + 2 * 2,048 + 32,768 = 86,016 B."""
    _, _, prog = run(adamw_program((1, 1, 1024, 1024)), "ttnn.adamw")
    [p] = prog.stages
    assert p.cores.num_cores == 110 and cbs(p)[0] == (2, 2048) and per_core(p) == 61_440
    _, _, prog = run(adamw_program((1, 1, 1024, 1024), dt="f32", grad_dt="bf16"), "ttnn.adamw")
    [p] = prog.stages
    assert cbs(p)[0] == (2, 4096) and cbs(p)[1] == (2, 2048) and per_core(p) == 86_016


def test_adamw_f32_gradient_is_not_an_error():
    """tt-mlir optimizer/adamw_validation.mlir @adamw_optimizer_f32 compiles an all-f32 AdamW; the stored device
    operation wants a bf16 gradient, which is not certain for the pinned tt-metal: unmodeled, with that reason
    (TTA011, info)."""
    a, _, prog = run(adamw_program((1, 1, 64, 64), dt="f32"), "ttnn.adamw")
    assert prog.status == "out_of_scope" and "BFLOAT16 gradient" in prog.reason
    fs = findings_of(a)
    assert [f for f in fs if f.severity == "error"] == []
    assert any(f.rule == "TTA011" and "BFLOAT16 gradient" in f.message for f in fs)


def test_adamw_l1_operand_is_refused():
    """tt-mlir OptimizerRules.h @19c86fca: every AdamW operand must be DRAM interleaved TILE (adamw_device_operation.cpp
    TT_FATALs); adamw_validation.mlir's @adamw_grad_from_l1_producer shows tt-mlir moving an L1 gradient out."""
    a, _, prog = run(adamw_program((1, 1, 64, 64), buf="l1"), "ttnn.adamw")
    assert prog.status == "rejected" and "DRAM" in prog.reason
    assert any(f.rule == "TTA013" and f.severity == "error" for f in findings_of(a))


def test_adamw_cost_streams_every_state_tensor():
    """AdamW reads param, grad, exp_avg, exp_avg_sq and writes param, exp_avg, exp_avg_sq: 7 x 8,192 B of DRAM
    traffic for a 1x1x64x64 bf16 parameter."""
    a, op, _ = run(adamw_program((1, 1, 64, 64)), "ttnn.adamw")
    c = next(c for c in program_cost(a).ops if c.op is op)
    assert c.status == "costed" and [d.op_code for d in c.device_ops] == ["AdamWDeviceOperation"]
    assert c.dram_bytes == 7 * 8_192


# ---------------------------------------------------------------------------------------------------------- sdpa_fw


def test_sdpa_fw_intermediates_64x64():
    """tt-mlir sdpa_fw/simple_sdpa_fw.mlir @sdpa_fw_intermediates: Q, K, V 1x8x64x64 bf16, causal.  Rows: B * H *
    S / 32 = 16 on 16 cores.  Wt = 2: c_0-c_2 2 * Wt = 4 tiles (24,576 B); c_3 the on-chip causal mask 1 tile; c_4
    the intermediates 2 bf16 tiles (4,096 B); c_5-c_9 1 bf16 tile each (10,240 B); c_10-c_12 1 f32 tile each
    (12,288 B); c_13-c_15 Wt = 2 tiles each (12,288 B): 65,536 B per core."""
    a, op, prog = run(sdpa_fw_program((1, 8, 64, 64)), "ttnn.sdpa_fw")
    [p] = prog.stages
    assert p.cores.num_cores == 16
    assert cbs(p) == {0: (4, 2048), 1: (4, 2048), 2: (4, 2048), 3: (1, 2048), 4: (2, 2048), 5: (1, 2048),
                      6: (1, 2048), 7: (1, 2048), 8: (1, 2048), 9: (1, 2048), 10: (1, 4096), 11: (1, 4096),
                      12: (1, 4096), 13: (2, 2048), 14: (2, 2048), 15: (2, 2048)}
    assert per_core(p) == 65_536
    assert p.params["is_causal"] and p.params["refusal_unsure"]
    [out, lse] = a.specs[op.index]
    assert (out.shape, out.dtype, lse.shape, lse.dtype) == ((1, 8, 64, 64), "bf16", (1, 8, 64, 32), "f32")
    fs = findings_of(a)
    assert [f for f in fs if f.severity == "error"] == [] and not any(f.rule in ("TTA009", "TTA012") for f in fs)


def test_sdpa_fw_no_mask_no_intermediates_and_gqa():
    """mask_type none drops c_3, no intermediates drops c_4: 65,536 - 2,048 - 4,096 = 59,392 B.  Grouped-query
    attention (8 query heads over 2 KV heads) keeps the rows of Q: 16.  An arbitrary mask from DRAM (tt-mlir
    optimizer/ttml_sdpa_validation.mlir, a 1x1x64x64 bf16 mask) takes c_3 like the causal one."""
    _, _, prog = run(sdpa_fw_program((1, 8, 64, 64), kv=(1, 2, 64, 64), mask="none", inter=False), "ttnn.sdpa_fw")
    [p] = prog.stages
    assert 3 not in cbs(p) and 4 not in cbs(p) and per_core(p) == 59_392 and p.cores.num_cores == 16
    a, _, prog = run(sdpa_fw_program((1, 8, 64, 64), mask="arbitrary", d_mask=True), "ttnn.sdpa_fw")
    assert cbs(prog.stages[0])[3] == (1, 2048) and [f for f in findings_of(a) if f.severity == "error"] == []


def test_sdpa_fw_f32_is_refused():
    """tt-mlir sdpa_fw_f32_workaround.mlir: the ttml op "TT_FATALs on any other dtype" than bf16 (the workaround
    casts Q/K/V to bf16; at opt-level 1 it is skipped and the f32 op is what tt-mlir emits)."""
    a, _, prog = run(sdpa_fw_program((1, 8, 64, 64), inter=False, dt="f32"), "ttnn.sdpa_fw")
    assert prog.status == "rejected" and "bf16" in prog.reason
    assert any(f.rule == "TTA013" for f in findings_of(a))


def test_sdpa_fw_overflow_is_a_warning_from_source():
    """A head dim of 8,192 (Wt = 256): c_0-c_2 3 * 512 * 2,048 B = 3,145,728 B alone pass the 1,572,864-B L1.
    The stored factory predates the pinned tt-metal: TTA010 is a warning that says it is from source."""
    a, _, prog = run(sdpa_fw_program((1, 1, 32, 8192), inter=False), "ttnn.sdpa_fw")
    [f] = [f for f in findings_of(a) if f.rule == "TTA010"]
    assert f.severity == "warning" and "from source" in f.message and "d5f9bc4a" in f.message


# ---------------------------------------------------------------------------------------------------------- sdpa_bw


def test_sdpa_bw_kv_then_q_64x64():
    """tt-mlir sdpa_bw/simple_sdpa_bw.mlir @sdpa_bw_causal: 1x8x64x64.  KV program on B * Hkv * S / 32 = 16 rows:
    c_0-c_4 4 bf16 tiles (40,960 B), c_5 2 and c_6 4 bf16 tiles (12,288 B), c_7 1 f32, c_8-c_11 Wt = 2 f32 tiles each
    (32,768 B), c_12-c_16 1 f32 tile each (20,480 B), c_17 and c_18 4 bf16 tiles (16,384 B): 126,976 B.  Q program on
    16 rows: c_0-c_6 as KV (53,248 B), c_7 4,096, c_8 and c_9 2 f32 tiles (16,384 B), c_10-c_12 12,288, c_13 1 bf16
    tile, c_14 1 f32 tile, c_15 4 bf16 tiles: 100,352 B."""
    a, op, prog = run(sdpa_bw_program((1, 8, 64, 64)), "ttnn.sdpa_bw")
    kv, q = prog.stages
    assert kv.factory.startswith("SDPABackwardKV") and q.factory.startswith("SDPABackwardQ")
    assert (kv.cores.num_cores, per_core(kv), q.cores.num_cores, per_core(q)) == (16, 126_976, 16, 100_352)
    assert cbs(kv)[8] == (2, 4096) and cbs(kv)[17] == (4, 2048) and cbs(q)[13] == (1, 2048)
    assert [s.shape for s in a.specs[op.index]] == [(1, 8, 64, 64)] * 3
    assert [f for f in findings_of(a) if f.severity == "error"] == []


def test_sdpa_bw_gqa_splits_kv_rows_by_kv_heads():
    """8 query heads over 2 KV heads, S = 64: the KV program has B * Hkv * S / 32 = 4 rows, the Q program 16."""
    _, _, prog = run(sdpa_bw_program((1, 8, 64, 64), kv=(1, 2, 64, 64)), "ttnn.sdpa_bw")
    kv, q = prog.stages
    assert (kv.cores.num_cores, q.cores.num_cores) == (4, 16)


# ---------------------------------------------------------------------------------------------------------- costs


def _sdpa_ns(text: str, name: str) -> float:
    a, op, _ = run(text, name)
    c = next(c for c in program_cost(a).ops if c.op is op)
    assert c.status == "costed", c.reason
    return c.ns


def test_sdpa_fw_costs_like_the_forward_sdpa():
    """An sdpa_fw costs like ttnn's scaled_dot_product_attention of the shape (both flash attention, 32-row Q and
    K chunks in the model), within 25 %.  sdpa_bw: its KV program streams 3/2 of the forward's K / V traffic per
    pair and its Q program as much as the forward, so a DRAM-bound backward (this shape, 1x16x2048x128) costs 2.5
    forwards, FlashAttention-2's documented multiple (Dao 2023, 5 matmuls to 2); compute-bound it would be 3.5
    (tt-train recomputes S and dP in both programs: 4 + 3 matmuls to 2)."""
    shape, ty_q = (1, 16, 2048, 128), ty((1, 16, 2048, 128))
    body = (f'    %0 = "ttnn.scaled_dot_product_attention"(%a0, %a1, %a2) <{{is_causal = true, operandSegmentSizes = '
            f'array<i32: 1, 1, 1, 0, 0>}}> : ({ty_q}, {ty_q}, {ty_q}) -> {ty_q}\n    return %0 : {ty_q}\n')
    ref = _sdpa_ns(program([ty_q] * 3, body, [ty_q]), "ttnn.scaled_dot_product_attention")
    fw = _sdpa_ns(sdpa_fw_program(shape, inter=False), "ttnn.sdpa_fw")
    assert 0.75 < fw / ref < 1.25
    bw = _sdpa_ns(sdpa_bw_program(shape), "ttnn.sdpa_bw")
    assert abs(bw / fw - 2.5) < 0.05


def test_sdpa_shape_checks_of_the_stored_source_only_are_not_errors():
    """Q and K of different sequence lengths: the stored factory TT_FATALs, which tt-mlir does not document for the
    pinned tt-metal: unmodeled with that reason (TTA011), no error."""
    a, _, prog = run(sdpa_fw_program((1, 8, 64, 64), kv=(1, 8, 128, 64), inter=False), "ttnn.sdpa_fw")
    assert prog.status == "out_of_scope" and "stored factory" in prog.reason
    assert [f for f in findings_of(a) if f.severity == "error"] == []


def test_sdpa_bw_mask_iff_arbitrary():
    """tt-mlir SDPABackwardOp::verify @19c86fca: mask_type defaults to arbitrary, which needs the attention mask; a
    causal backward with no mask is fine."""
    a, _, _ = run(sdpa_bw_program((1, 8, 64, 64), mask="arbitrary"), "ttnn.sdpa_bw")
    assert any(f.rule == "TTA007" and "attention mask" in f.message for f in findings_of(a))
    a, _, _ = run(sdpa_bw_program((1, 8, 64, 64), mask="causal"), "ttnn.sdpa_bw")
    assert not any(f.rule == "TTA007" for f in findings_of(a))
