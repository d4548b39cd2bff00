"""Op instances measured on the mock device for the dialect op models (ttanalyze.ops.transformer, kv_cache).

Each case is a single TTNN op as IR (operand and result tensors, attributes) and the ttnn call
tt-mlir's runtime makes for it (``runtime/lib/ttnn/operations/{transformer,kv_cache}/*.cpp``
@19c86fca).  ``measurements/dialect/probe.py`` replays them on the mock (NO_DISPATCH graph capture)
and writes ``results.jsonl``; tests/test_ops_dialect_measured.py compares the models with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """One measured op: ``id``, the IR op name, operand and result shapes (bf16 TILE DRAM
    interleaved unless ``dtypes`` says otherwise; ``si32``/``u32`` operands ROW_MAJOR), IR attributes,
    keyword arguments of the call, and ``sharded``: per operand, 0 or the number of cores it is
    height-sharded over in L1 (the first cores, row-major; one equal shard of full width each)."""

    id: str
    op: str
    operands: tuple[tuple[int, ...], ...]
    results: tuple[tuple[int, ...], ...]
    attrs: str = ""
    kwargs: dict = field(default_factory=dict)
    dtypes: tuple[str, ...] = ()
    sharded: tuple[int, ...] = ()


CASES: list[Case] = []
for b, h, s, d in [(1, 8, 128, 64), (1, 4, 64, 64), (2, 8, 128, 64), (1, 16, 256, 128), (1, 2, 32, 32),
                   (1, 32, 32, 128), (1, 12, 96, 64), (3, 1, 32, 32)]:
    CASES.append(Case(f"nlp_concat_heads/{b}x{h}x{s}x{d}", "ttnn.nlp_concat_heads", ((b, h, s, d),),
                      ((b, 1, s, h * d),)))
    CASES.append(Case(f"concatenate_heads/{b}x{h}x{s}x{d}", "ttnn.concatenate_heads", ((b, h, s, d),),
                      ((b, s, h * d),)))
for b, h, s, d, n in [(1, 8, 256, 64, 32), (1, 8, 256, 64, 128), (2, 8, 256, 64, 64), (4, 1, 1024, 128, 256),
                      (1, 32, 2048, 128, 1024), (8, 8, 128, 64, 96)]:
    CASES.append(Case(f"fill_cache/{b}x{h}x{s}x{d}/{n}", "ttnn.fill_cache", ((b, h, s, d), (1, h, n, d)), (),
                      "batch_offset = 0 : i32", {"batch_idx": 0}))
for b, h, s, d, n in [(32, 8, 1024, 128, 32), (32, 1, 256, 64, 32), (8, 8, 512, 64, 8), (64, 4, 256, 128, 64),
                      (32, 8, 1024, 128, 16), (4, 2, 128, 32, 4)]:
    CASES.append(Case(f"update_cache/{b}x{h}x{s}x{d}/{n}", "ttnn.update_cache", ((b, h, s, d), (1, h, n, d), (1,)), (),
                      "batch_offset = 0 : i32", {"update_idx": 5}, ("bf16", "bf16", "u32")))

# Attention, rotary embedding, head-split and paged-cache instances (ttanalyze.ops.attention, transformer,
# kv_cache): drawn at random (seeded) over shapes, dtypes and the options the runtime passes, not hand-picked.
# Integer operands (page tables, positions, chunk start) are si32 ROW_MAJOR, as tt-mlir lays them out.
import random as _random  # noqa: E402

_rng = _random.Random(11)


def _seg(*sizes: int) -> str:
    return f"operandSegmentSizes = array<i32: {', '.join(map(str, sizes))}>"


for _ in range(28):
    b, kv = _rng.choice((1, 1, 2, 4)), _rng.choice((1, 2, 4, 8))
    h = kv * _rng.choice((1, 2, 4))
    s = _rng.choice((32, 64, 96, 128, 256, 384, 512, 1024, 2048, 100, 200, 4096))
    d = _rng.choice((32, 64, 64, 96, 128, 128, 256))
    dt = _rng.choice(("bf16", "bf16", "bfp_bf8"))
    causal = _rng.random() < 0.5
    mask = (not causal) and _rng.random() < 0.5
    window = _rng.choice((None, None, None, 64, 128)) if not mask else None
    shapes = [(b, h, s, d), (b, kv, s, d), (b, kv, s, d)]
    dts = [dt, dt, dt]
    attrs = ["is_causal = false"] if not causal else []
    if mask:
        shapes.append((_rng.choice((1, b)), _rng.choice((1, h)), s, s))
        dts.append(_rng.choice(("bf16", "bfp_bf8")))
    if window:
        attrs.append(f"sliding_window_size = {window} : ui32")
    attrs.append(_seg(1, 1, 1, int(mask), 0))
    CASES.append(Case(f"sdpa/{b}x{h}x{s}x{d}/kv{kv}/{dt}/{'causal' if causal else 'full'}/mask{int(mask)}/w{window or 0}",
                      "ttnn.scaled_dot_product_attention", tuple(shapes), ((b, h, s, d),), ", ".join(attrs),
                      {"is_causal": causal, "sliding_window_size": window}, tuple(dts)))

for _ in range(8):
    b, kv = _rng.choice((1, 2)), _rng.choice((1, 2, 4))
    h = kv * _rng.choice((1, 2, 4))
    d, block = _rng.choice((64, 128)), _rng.choice((32, 64, 128))
    s = _rng.choice((32, 64, 128, 256))
    per_user = _rng.choice((4, 8, 16))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"chunked_sdpa/{b}x{h}x{s}x{d}/kv{kv}/block{block}/pages{per_user}/{dt}",
                      "ttnn.chunked_scaled_dot_product_attention",
                      ((b, h, s, d), (b * per_user, kv, block, d), (b * per_user, kv, block, d), (b, per_user), (1,)),
                      ((b, h, s, d),), "", {}, (dt, dt, dt, "si32", "si32")))

for _ in range(6):
    b, h, s = _rng.choice((1, 2)), _rng.choice((8, 16, 32)), _rng.choice((64, 128, 256, 512))
    dqk, dv = _rng.choice(((576, 512), (192, 128), (128, 64)))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"flash_mla_prefill/{b}x{h}x{s}x{dqk}/dv{dv}/{dt}", "ttnn.flash_mla_prefill",
                      ((b, h, s, dqk), (b, 1, s, dqk)), ((b, h, s, dv),),
                      f"head_dim_v = {dv} : ui32, {_seg(1, 1, 0, 0)}", {"head_dim_v": dv}, (dt, dt)))

for _ in range(8):
    b, h, s, d = _rng.choice((1, 2)), _rng.choice((1, 4, 8, 32)), _rng.choice((32, 64, 128, 512, 1024)), \
        _rng.choice((64, 128))
    dt = _rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    cache = _rng.choice((s, 2 * s, 4096))
    CASES.append(Case(f"rotary_embedding/{b}x{h}x{s}x{d}/cache{cache}/{dt}", "ttnn.rotary_embedding",
                      ((b, h, s, d), (1, 1, cache, d), (1, 1, cache, d)), ((b, h, s, d),), "", {}, (dt, dt, dt)))

for _ in range(8):
    b, h, s, d = 1, _rng.choice((1, 4, 8, 32)), _rng.choice((32, 64, 128, 512, 1024)), _rng.choice((64, 128))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    ch = _rng.choice((1, h))
    CASES.append(Case(f"rotary_embedding_llama/{b}x{h}x{s}x{d}/cos_heads{ch}/{dt}", "ttnn.rotary_embedding_llama",
                      ((b, h, s, d), (1, ch, s, d), (1, ch, s, d), (1, 1, 32, 32)), ((b, h, s, d),),
                      "is_decode_mode = false", {}, (dt, dt, dt, dt)))

for _ in range(8):
    b, s = _rng.choice((1, 2, 4)), _rng.choice((32, 64, 128, 256, 384))
    h = _rng.choice((4, 8, 12, 16))
    kv = _rng.choice((h, h, 1, 2, 4)) if h % 4 == 0 else h
    d = _rng.choice((64, 128))
    tk = _rng.random() < 0.3
    dt = _rng.choice(("bf16", "bfp_bf8"))
    key = (b, kv, d, s) if tk else (b, kv, s, d)
    CASES.append(Case(f"split_qkv/{b}x{s}/h{h}/kv{kv}/d{d}/t{int(tk)}/{dt}", "ttnn.split_query_key_value_and_split_heads",
                      ((b, s, (h + 2 * kv) * d),), ((b, h, s, d), key, (b, kv, s, d)),
                      f"num_heads = {h} : ui32, num_kv_heads = {kv} : ui32, transpose_key = {str(tk).lower()}",
                      {"num_heads": h, "num_kv_heads": kv, "transpose_key": tk}, (dt,)))

for _ in range(8):
    users, per_user, block = _rng.choice((1, 2, 4, 8)), _rng.choice((2, 4, 8)), _rng.choice((32, 64, 128))
    h, d = _rng.choice((1, 2, 8)), _rng.choice((64, 128))
    s = _rng.choice((32, 64, 128, 256))
    s = min(s, per_user * block)
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"paged_fill_cache/{users}x{per_user}x{block}/h{h}/d{d}/s{s}/{dt}", "ttnn.paged_fill_cache",
                      ((users * per_user, h, block, d), (1, h, s, d), (users, per_user)), (), _seg(1, 1, 1, 0),
                      {"batch_idx": 0}, (dt, dt, "si32")))

for _ in range(6):
    b, kv, s, d = _rng.choice((1, 4, 8, 32)), _rng.choice((1, 2, 8)), _rng.choice((128, 256, 1024, 2048)), \
        _rng.choice((64, 128))
    h = kv * _rng.choice((1, 4, 8))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"sdpa_decode/{b}x{h}/kv{kv}/s{s}/d{d}/{dt}", "ttnn.scaled_dot_product_attention_decode",
                      ((1, b, h, d), (b, kv, s, d), (b, kv, s, d), (b,)), ((1, b, h, d),), _seg(1, 1, 1, 0, 1, 0),
                      {}, ("bf16", dt, dt, "si32")))

# Second campaign: rotary_embedding_llama, more SDPA options, decode attention (plain and paged), and the
# height-sharded paged_update_cache.
for _ in range(8):
    b, h, s, d = 1, _rng.choice((1, 4, 8, 32)), _rng.choice((32, 64, 128, 512, 1024)), _rng.choice((64, 128))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    ch = _rng.choice((1, h))
    CASES.append(Case(f"rotary_embedding_llama2/{b}x{h}x{s}x{d}/cos_heads{ch}/{dt}", "ttnn.rotary_embedding_llama",
                      ((b, h, s, d), (1, ch, s, d), (1, ch, s, d), (1, 1, 32, 32)), ((b, h, s, d),),
                      "is_decode_mode = false", {}, (dt, dt, dt, dt)))

for _ in range(10):
    b, kv = _rng.choice((1, 2)), _rng.choice((1, 2, 4))
    h = kv * _rng.choice((1, 2))
    s = _rng.choice((40, 100, 200, 64, 256))
    d = _rng.choice((64, 128))
    dt = _rng.choice(("bf16", "bfp_bf8", "f32"))
    causal = _rng.random() < 0.4
    window = _rng.choice((None, 64)) if not causal else None
    attrs = ([] if causal else ["is_causal = false"]) + ([f"sliding_window_size = {window} : ui32"] if window else [])
    attrs.append(_seg(1, 1, 1, 0, 0))
    CASES.append(Case(f"sdpa2/{b}x{h}x{s}x{d}/kv{kv}/{dt}/{'causal' if causal else 'full'}/w{window or 0}",
                      "ttnn.scaled_dot_product_attention", ((b, h, s, d), (b, kv, s, d), (b, kv, s, d)), ((b, h, s, d),),
                      ", ".join(attrs), {"is_causal": causal, "sliding_window_size": window}, (dt, dt, dt)))

for _ in range(12):
    b, kv, s, d = _rng.choice((1, 2, 4, 8, 16, 32)), _rng.choice((1, 2, 8)), _rng.choice((128, 256, 512, 1024, 4096)), \
        _rng.choice((64, 128))
    h = kv * _rng.choice((1, 4, 8))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"sdpa_decode2/{b}x{h}/kv{kv}/s{s}/d{d}/{dt}", "ttnn.scaled_dot_product_attention_decode",
                      ((1, b, h, d), (b, kv, s, d), (b, kv, s, d), (b,)), ((1, b, h, d),), _seg(1, 1, 1, 0, 1, 0),
                      {}, ("bf16", dt, dt, "si32")))

for _ in range(10):
    b, kv, d = _rng.choice((1, 2, 4, 8, 32)), _rng.choice((1, 2, 8)), _rng.choice((64, 128))
    h = kv * _rng.choice((1, 4, 8))
    block, per_user = _rng.choice((32, 64)), _rng.choice((8, 16, 32))
    dt = _rng.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"paged_sdpa_decode/{b}x{h}/kv{kv}/block{block}x{per_user}/d{d}/{dt}",
                      "ttnn.paged_scaled_dot_product_attention_decode",
                      ((1, b, h, d), (b * per_user, kv, block, d), (b * per_user, kv, block, d), (b, per_user), (b,)),
                      ((1, b, h, d),), _seg(1, 1, 1, 1, 0, 1, 0), {}, ("bf16", dt, dt, "si32", "si32")))

for _ in range(8):
    b, kv, d = _rng.choice((1, 4, 8, 16, 32)), _rng.choice((1, 2, 8)), _rng.choice((64, 128))
    paged = _rng.random() < 0.6
    dt = _rng.choice(("bf16", "bfp_bf8"))
    if paged:
        block, per_user = _rng.choice((32, 64)), _rng.choice((8, 16))
        cache = (b * per_user, kv, block, d)
        ops = (cache, (1, b, 32, d), (b,), (b, per_user))
        seg = _seg(1, 1, 1, 1)
        dts = (dt, "bf16", "si32", "si32")
    else:
        cache = (b, kv, _rng.choice((128, 256, 1024)), d)
        ops = (cache, (1, b, 32, d), (b,))
        seg = _seg(1, 1, 1, 0)
        dts = (dt, "bf16", "si32")
    CASES.append(Case(f"paged_update_cache/{'paged' if paged else 'flat'}/{'x'.join(map(str, cache))}/b{b}/{dt}",
                      "ttnn.paged_update_cache", ops, (), f"share_cache = false, {seg}", {}, dts,
                      (0, b) + (0,) * (len(ops) - 2)))

# Third campaign: the decode-time head ops, called as tt-mlir's runtime calls them (nlp_concat_heads_decode gets the
# input's shard grid as sub_core_grids when it is not one range from (0, 0)).
_rng3 = _random.Random(13)
for _ in range(8):
    b, heads, d = _rng3.choice((1, 2, 4, 8, 16, 32)), _rng3.choice((4, 8, 16, 32)), _rng3.choice((64, 128))
    dt = _rng3.choice(("bf16", "bfp_bf8"))
    CASES.append(Case(f"nlp_concat_heads_decode3/{b}/h{heads}/d{d}/{dt}", "ttnn.nlp_concat_heads_decode",
                      ((1, b, 32, d),), ((1, 1, 32, heads * d),), f"num_heads = {heads} : ui32", {"num_heads": heads},
                      (dt,), (b,)))
for _ in range(8):
    kv, d = _rng3.choice((1, 2, 8)), _rng3.choice((64, 128))
    h = kv * _rng3.choice((1, 4, 8))
    dt = _rng3.choice(("bf16", "bfp_bf8"))
    sharded = _rng3.random() < 0.5
    CASES.append(Case(f"nlp_create_qkv_heads_decode/{'l1' if sharded else 'dram'}/h{h}/kv{kv}/d{d}/{dt}",
                      "ttnn.nlp_create_qkv_heads_decode", ((1, 1, 32, (h + 2 * kv) * d),),
                      ((1, 32, h, d), (1, 32, kv, d), (1, 32, kv, d)),
                      f"num_heads = {h} : ui32, num_kv_heads = {kv} : ui32, overlap_qk_coregrid = true, {_seg(1, 0)}",
                      {"num_heads": h, "num_kv_heads": kv}, (dt,), (1,) if sharded else (0,)))

_seen: dict[str, int] = {}
for _i, _case in enumerate(CASES):  # random draws may repeat an instance: keep ids unique
    if _case.id in _seen:
        CASES[_i] = Case(f"{_case.id}#{_i}", _case.op, _case.operands, _case.results, _case.attrs, _case.kwargs,
                         _case.dtypes, _case.sharded)
    _seen[_case.id] = _i

