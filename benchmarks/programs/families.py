"""The whole-program campaign's programs: real model pieces as JAX functions, at sizes around
each family's memory boundaries.

``cases()`` enumerates every program (no JAX needed); ``build(case)`` returns the JAX function
and its inputs as (shape, dtype) pairs and is imported by ``worker.py`` inside the compiler's venv
(``.venv-jax``, ``scripts/setup-compiler.sh``).  Sizes are chosen in pairs that just fit and just
fail where the boundary is known from a previous run (see docs/accuracy.md); the case name holds
every size, so a result never depends on anything but its name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """One program: ``family`` (the model piece), ``params`` (its sizes), ``opt`` (tt-mlir
    ``optimization_level``)."""

    family: str
    params: tuple
    opt: int

    @property
    def name(self) -> str:
        sizes = "_".join(str(p) for p in self.params)
        return f"{self.family}_{sizes}_o{self.opt}"


def _grid() -> list[Case]:
    out: list[Case] = []

    def add(family, params_list, opts=(0,)):
        for params in params_list:
            for o in opts:
                out.append(Case(family, tuple(params), o))

    # --- norms on wide rows: (rows, width, dtype) -------------------------------------------------
    add("layer_norm", [(32, w, "f32") for w in (16384, 30720, 32768, 36864, 65536)] +
                      [(32, w, "bf16") for w in (32768, 45056, 49152, 57344, 98304)], (0, 1))
    add("rms_norm", [(32, w, "f32") for w in (16384, 30720, 32768, 36864, 65536)] +
                    [(32, w, "bf16") for w in (32768, 45056, 49152, 57344, 98304)], (0, 1))
    # rms_norm's 8 x 2 width-sharded program under the plugin (ttanalyze/ops/norm_sharded.py): the pairs one
    # 16-tile step either side of its clash boundary (f32: Wt 976 fits, 992 clashes by 1,152 B; bf16: 1408 / 1424)
    add("rms_norm", [(32, 31232, "f32"), (32, 31744, "f32"), (32, 45568, "bf16")])
    add("layer_norm", [(128, 4096, "bf16"), (1024, 8192, "f32")], (2,))
    add("rms_norm", [(128, 4096, "bf16"), (1024, 8192, "f32")], (2,))
    # --- data movement on wide row-major rows: (length, dtype) -------------------------------------
    add("concat1d", [(n, "f32") for n in (100000, 170000, 174400, 200000)] +
                    [(n, "bf16") for n in (340000, 348800, 400000)])
    add("roll1d", [(n, "f32") for n in (150000, 174400, 180000, 300000, 348800, 360000)] +
                  [(n, "bf16") for n in (348800, 360000, 690000, 720000)])
    add("pad_rows", [(3, n, "f32") for n in (100000, 150000, 152000, 160000)] +
                    [(3, n, "bf16") for n in (300000, 310000)])
    add("strided_slice", [(3, n, "f32") for n in (200000, 400000, 800000, 1600000)] +
                         [(3, n, "bf16") for n in (800000, 3200000)])
    add("reshape_permute", [(64, 128, 96), (512, 512, 64), (4, 2048, 1024)], (0, 2))
    # --- attention: (batch*heads, seq, head_dim, dtype) ----------------------------------------------
    add("attention", [(8, s, 64, "bf16") for s in (1024, 4096, 8192, 16384, 24576, 32768)] +
                     [(32, s, 128, "bf16") for s in (4096, 8192, 12288)] +
                     [(8, s, 64, "f32") for s in (8192, 16384, 20480)])
    add("attention", [(8, 1024, 64, "bf16"), (8, 4096, 64, "bf16")], (1, 2))
    # --- LLM decoder block: (seq, hidden, ffn) ----------------------------------------------------
    add("decoder_block", [(128, 1024, 4096), (512, 2048, 8192), (2048, 4096, 11008), (32, 8192, 28672)], (0, 1, 2))
    # --- MoE routing: (tokens, experts, k, hidden) --------------------------------------------------
    add("moe_routing", [(128, 8, 2, 1024), (1024, 64, 8, 2048), (4096, 128, 8, 4096), (32, 256, 8, 7168)], (0, 1))
    # --- conv2d: (n, h, w, c_in, c_out, k, stride) NHWC -----------------------------------------------
    add("conv2d", [(1, 64, 64, 512, 512, 3, 1), (1, 32, 512, 512, 512, 3, 1), (1, 64, 1024, 512, 512, 3, 1),
                   (1, 128, 128, 256, 256, 3, 1), (1, 256, 256, 128, 128, 3, 1), (1, 512, 512, 128, 128, 3, 1),
                   (1, 512, 512, 64, 64, 3, 1), (1, 224, 224, 3, 64, 7, 2), (1, 1024, 1024, 32, 32, 3, 1),
                   (1, 256, 256, 512, 512, 3, 1)], (0, 1))
    add("conv2d", [(1, 64, 64, 512, 512, 3, 1), (1, 128, 128, 256, 256, 3, 1)], (2,))
    add("conv_net", [(1, 64, 64, 64), (1, 128, 128, 128), (1, 256, 256, 64)], (0, 1))
    add("unet_block", [(1, 64, 64, 64), (1, 128, 128, 128), (1, 256, 256, 128)], (0, 1))
    add("vae_decoder", [(1, 32, 32, 512), (1, 64, 64, 512), (1, 128, 128, 256), (1, 256, 256, 128)], (0, 1))
    # --- reductions: (rows, cols, kind, dtype) -------------------------------------------------------
    add("reduce", [(r, c, k, d) for (r, c) in ((32, 65536), (8192, 8192), (65536, 64), (1, 1048576))
                   for k in ("sum", "max") for d in ("bf16",)] + [(8192, 8192, "mean", "f32"), (32, 262144, "softmax", "f32")])
    add("reduce", [(8192, 8192, "sum", "bf16"), (32, 65536, "max", "bf16")], (1, 2))
    # --- held-out families (written after the models): sizes drawn with a seed (_drawn) from ranges that
    # straddle each family's memory boundary, two per family, each at levels 0 and 1 ------------------------
    for family, draw in HELD_OUT.items():
        add(family, _drawn(family, draw, 2), (0, 1))
    # --- held-out wide draws (written after the first held-out runs, none of which was refused): sizes drawn
    # on both sides of a refusal boundary computed from tt-metal's rule (each draw function says which) ----------
    for family, (draw, n) in HELD_OUT_WIDE.items():
        add(family, _drawn(family, draw, n), (0, 1))
    return out


# Largest input of a drawn case, in elements (the host builds the inputs as numpy zeros: 24 GB shared by 8 users).
MAX_ELEMENTS = 1 << 26


def _log(rng, lo: int, hi: int, step: int = 1) -> int:
    """An integer drawn log-uniformly from [lo, hi], rounded down to a multiple of ``step`` (>= step)."""
    v = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    return max(step, int(v) // step * step)


def _drawn(family: str, draw, n: int) -> list[tuple]:
    """``n`` parameter tuples of ``family`` from ``draw(rng)`` (None = rejected: an input above MAX_ELEMENTS),
    with ``random.Random(family)``: the same names on every machine and Python >= 3.2."""
    import random

    rng = random.Random(f"programs:{family}")
    out: list[tuple] = []
    while len(out) < n:
        p = draw(rng)
        if p is not None and p not in out:
            out.append(p)
    return out


def _capped(params: tuple, *inputs: int) -> tuple | None:
    return params if max(inputs) <= MAX_ELEMENTS else None


def _dt(rng) -> str:
    return rng.choice(("f32", "bf16"))


def _draw_mlp(rng):  # (tokens, d_model, hidden, dtype): x @ w1 + b1 -> gelu -> @ w2 + b2
    t, d, h = _log(rng, 32, 2048, 32), _log(rng, 512, 4096, 128), _log(rng, 8192, 131072, 256)
    return _capped((t, d, h, "bf16"), t * d, d * h, t * h)


def _draw_embedding(rng):  # (vocab, dim, tokens, dtype): table[ids]
    v, d, t = _log(rng, 8, 4096, 1), _log(rng, 32768, 1048576, 32), _log(rng, 32, 1024, 32)
    return _capped((v, d, t, _dt(rng)), v * d, t * d)


def _draw_gather(rng):  # (rows, n, k, dtype): take_along_axis(x, idx, axis=1)
    r, n = _log(rng, 1, 256), _log(rng, 16384, 1048576, 32)
    return _capped((r, n, _log(rng, 64, min(n, 65536), 8), _dt(rng)), r * n)


def _draw_softmax(rng):  # (rows, cols, dtype): softmax over long rows
    r, c = _log(rng, 1, 128), _log(rng, 65536, 4194304, 32)
    return _capped((r, c, _dt(rng)), r * c)


def _draw_pool(rng):  # (batch, h=w, channels): max pool 3x3/2, avg pool 2x2/2, global mean
    n, h, c = rng.choice((1, 2, 4, 8)), _log(rng, 128, 1024, 16), _log(rng, 32, 512, 16)
    return _capped((n, h, c), n * h * h * c)


def _draw_encoder(rng):  # (batch, seq, hidden): layer_norm, attention (head dim 64), gelu MLP 4x
    b, s, h = rng.choice((1, 2, 4, 8)), _log(rng, 256, 8192, 64), _log(rng, 512, 4096, 128)
    return _capped((b, s, h), b * s * h, h * 4 * h, b * h // 64 * s * s)


def _draw_group_norm(rng):  # (batch, h*w, channels, groups): tenstorrent.group_norm on (n, 1, hw, c)
    n, hw, c = rng.choice((1, 2)), _log(rng, 4096, 262144, 32), _log(rng, 128, 1024, 32)
    return _capped((n, hw, c, 32), n * hw * c)


def _draw_depthwise(rng):  # (batch, h=w, channels, kernel): conv with feature_group_count = channels
    n, h, c = rng.choice((1, 2)), _log(rng, 128, 1024, 16), _log(rng, 64, 1024, 32)
    return _capped((n, h, c, rng.choice((3, 5, 7))), n * h * h * c)


def _draw_conv_t(rng):  # (batch, h=w, c_in, c_out, kernel): transposed conv, stride 2
    n, h, ci, co = rng.choice((1, 2)), _log(rng, 64, 512, 16), _log(rng, 64, 512, 32), _log(rng, 64, 512, 32)
    return _capped((n, h, ci, co, rng.choice((2, 3, 4))), n * h * h * ci, 4 * n * h * h * co)


def _draw_topk(rng):  # (rows, vocab, k): logits -> top_k and argmax
    r, v = _log(rng, 1, 256), _log(rng, 8192, 262144, 32)
    return _capped((r, v, _log(rng, 64, 8192)), r * v)


def _draw_mixed(rng):  # (batch, h=w, channels): uint8 image, int32 offsets, f32 scale, bf16 math
    n, h, c = rng.choice((1, 2, 4)), _log(rng, 256, 2048, 16), rng.choice((3, 4, 8, 16, 32, 64))
    return _capped((n, h, c), n * h * h * c)


def _draw_multi_reduce(rng):  # (b, c, h, w, dtype): sums, maxes and means over several dims
    b, c, h, w = _log(rng, 1, 16), _log(rng, 8, 512, 8), _log(rng, 64, 4096, 16), _log(rng, 64, 4096, 16)
    return _capped((b, c, h, w, _dt(rng)), b * c * h * w)


def _draw_cumsum(rng):  # (rows, n, dtype): cumsum along both axes
    r, n = _log(rng, 1, 1024), _log(rng, 8192, 1048576, 32)
    return _capped((r, n, _dt(rng)), r * n)


def _draw_concat_many(rng):  # (inputs, rows, n, dtype): concatenate along the last dim
    k, r, n = _log(rng, 8, 64), _log(rng, 1, 64), _log(rng, 4096, 262144, 32)
    return _capped((k, r, n, _dt(rng)), k * r * n)


def _draw_broadcast(rng):  # (a, b, c, repeats): x[a,1,c] * y[1,b,c] + z[a,b,1], tiled and repeated
    a, b, c, r = _log(rng, 1, 64), _log(rng, 1, 256), _log(rng, 4096, 262144, 32), rng.choice((2, 3, 4, 8))
    return _capped((a, b, c, r), a * b * c * r)


# Wide draws: each straddles a refusal boundary computed from tt-metal's rule (not from ttanalyze's output).
DFB_REGION = 1_572_864 - 177_280  # Blackhole P150 l1_size - l1_unreserved_base of the plugin's build (614f605f)
DRAM_BYTES = 8 * (4_278_190_080 - 1_048_704)  # P150: 8 DRAM banks of 4,278,190,080 B above the reserved base


def _draw_topk_wide(rng):  # (rows, vocab, k): topk_head with k around TopKSingleCoreProgramFactory's L1 limit
    # topk_single_core_program_factory.cpp: DFBs of 2 + 4 + 2 Kt + Kt tiles of values (bf16, 2,048 B) and as many
    # of indices (uint16 2,048 B; 32-bit 4,096 B when the padded width exceeds 65,536: resolve_index_dtype); they
    # fit when (6 + 3 Kt) (2,048 + index tile) <= DFB_REGION: Kt <= 111 (k <= 3,552) or Kt <= 73 (k <= 2,336).
    r, v = _log(rng, 1, 64), _log(rng, 8192, 262144, 32)
    index_tile = 4096 if v > 65536 else 2048
    kt = (DFB_REGION // (2048 + index_tile) - 6) // 3
    k = _log(rng, int(kt * 32 * 0.7), min(v, int(kt * 32 * 1.4)))
    return _capped((r, v, k), r * v)


def _draw_concat_1d_many(rng):  # (inputs, n, last, dtype): k - 1 1-D inputs of n elements and a last one of `last`
    # The plugin's row-major ConcatProgramFactory: one DFB entry of an output row plus the last input's row
    # (as measured on two-input concats when these were drawn; the widest input's, as this family showed), refused
    # above DFB_REGION: ((k-1) n + 2 last) x element.
    k, d = _log(rng, 3, 12), _dt(rng)
    elem = 4 if d == "f32" else 2
    total = int(DFB_REGION / elem * math.exp(rng.uniform(math.log(0.6), math.log(1.6))))
    frac = rng.choice((0.05, 0.5, 1.0, 2.0))
    n = max(8, int(total / (k - 1 + 2 * frac)))
    return _capped((k, n, max(8, int(n * frac)), d), k * n)


def _draw_pool_wide(rng):  # (batch, h=w, channels): max pools 3x3/2 SAME and 2x2/2, then the global mean
    # pool2d runs on an L1-sharded input (the halo'd shard, the output shard and the DFBs on each core): the whole
    # input goes through L1, about 110 cores x DFB_REGION / 3 (input, halo, output) ~ 51 MB; drawn from 16 MB to 128 MB.
    n, c = rng.choice((1, 2, 4)), rng.choice((16, 32, 64, 128, 256))
    total = math.exp(rng.uniform(math.log(8 << 20), math.log(64 << 20)))  # elements, bf16
    h = max(64, int(math.sqrt(total / (n * c))) // 16 * 16)
    return _capped((n, h, c), n * h * h * c)


def _draw_bcast_reduce(rng):  # (a, b, c): (x[a, 1, c] * y[1, b, c]).sum(-1): an a x b x c bf16 intermediate in DRAM
    # The interleaved intermediate needs a*b*c*2 B of DRAM (c a tile multiple); DRAM_BYTES hold 17.1 G bf16 elements:
    # drawn from a quarter to four times that.
    a, b = _log(rng, 512, 8192, 32), _log(rng, 512, 8192, 32)
    total = DRAM_BYTES / 2 * math.exp(rng.uniform(math.log(0.25), math.log(4.0)))
    c = int(total / (a * b)) // 32 * 32
    return _capped((a, b, c), a * c, b * c) if 32 <= c <= 65536 else None


def _draw_embedding_batch(rng):  # (batch, seq, vocab, dim, dtype): table[ids], int32 ids of shape (batch, seq)
    b, s, v, d = rng.choice((2, 4, 8)), _log(rng, 32, 2048, 32), _log(rng, 256, 65536), _log(rng, 256, 8192, 32)
    return _capped((b, s, v, d, _dt(rng)), v * d, b * s * d)


# family -> (draw, number of programs)
HELD_OUT_WIDE = {
    "topk_wide": (_draw_topk_wide, 10), "concat_1d_many": (_draw_concat_1d_many, 10), "pool_wide": (_draw_pool_wide, 8),
    "bcast_reduce": (_draw_bcast_reduce, 8), "embedding_batch": (_draw_embedding_batch, 4),
}

HELD_OUT = {
    "softmax_rows": _draw_softmax, "topk_head": _draw_topk, "cumsum": _draw_cumsum,
    "multi_reduce": _draw_multi_reduce, "concat_many": _draw_concat_many, "embedding": _draw_embedding,
    "gather": _draw_gather, "group_norm": _draw_group_norm, "depthwise_conv": _draw_depthwise,
    "conv_transpose": _draw_conv_t, "pool_net": _draw_pool, "mlp_gelu": _draw_mlp, "mixed_dtypes": _draw_mixed,
    "broadcast_repeat": _draw_broadcast, "encoder_block": _draw_encoder,
}


def cases() -> list[Case]:
    """Every program of the campaign, in run order: single-op families before multi-op ones, and
    the (family, level) pairs taken in turn, smallest sizes first, so a partial campaign covers
    every family at every optimization level."""
    grid = _grid()
    rank: dict[Case, int] = {}
    for opt in {c.opt for c in grid}:
        for fam in {c.family for c in grid}:
            mine = sorted((c for c in grid if c.opt == opt and c.family == fam), key=lambda c: c.params[::-1])
            mine = sorted(mine, key=lambda c: _size(c.params))
            for i, c in enumerate(mine):
                rank[c] = i
    return sorted(grid, key=lambda c: (c.family in MULTI_OP, rank[c], c.opt, c.family))


# Families of many ops (each builds many kernels the first time): after the single-op ones.
MULTI_OP = ("decoder_block", "moe_routing", "conv_net", "unet_block", "vae_decoder", "reshape_permute",
            "pool_net", "mlp_gelu", "mixed_dtypes", "broadcast_repeat", "encoder_block", "pool_wide", "embedding_batch")


def _size(params: tuple) -> int:
    n = 1
    for p in params:
        if isinstance(p, int):
            n *= p
    return n


def by_name() -> dict[str, Case]:
    return {c.name: c for c in cases()}


DT = {"f32": "float32", "bf16": "bfloat16"}


def build(case: Case):
    """(function, [(shape, numpy dtype name), ...]) of ``case``; imports JAX (``.venv-jax`` only)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    f, p = case.family, case.params

    def ln_impl(x, w, b, **_):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) * lax.rsqrt(v + 1e-5) * w + b

    def rms_impl(x, w, **_):
        return x * lax.rsqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w

    def layer_norm(x, w, b):
        n = x.shape[-1]
        return lax.composite(ln_impl, name="tenstorrent.layer_norm")(
            x, w, b, normalized_shape=np.array([n], dtype=np.int64), epsilon=np.float32(1e-5))

    def rms_norm(x, w):
        n = x.shape[-1]
        return lax.composite(rms_impl, name="tenstorrent.rms_norm")(
            x, w, normalized_shape=np.array([n], dtype=np.int64), epsilon=np.float32(1e-5))

    def attn(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) * (q.shape[-1] ** -0.5)
        return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)

    def conv(x, w, stride=1):
        pad = w.shape[0] // 2
        return lax.conv_general_dilated(x, w, (stride, stride), [(pad, pad), (pad, pad)],
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    if f == "layer_norm":
        r, w, d = p
        return layer_norm, [((r, w), DT[d]), ((w,), DT[d]), ((w,), DT[d])]
    if f == "rms_norm":
        r, w, d = p
        return rms_norm, [((r, w), DT[d]), ((w,), DT[d])]
    if f == "concat1d":
        n, d = p
        return (lambda a, b: jnp.concatenate([a, b])), [((n,), DT[d]), ((n,), DT[d])]
    if f == "roll1d":
        n, d = p
        return (lambda a: jnp.roll(a, 7)), [((n,), DT[d])]
    if f == "pad_rows":
        r, n, d = p
        return (lambda a: jnp.pad(a, ((0, 0), (3, 5)))), [((r, n), DT[d])]
    if f == "strided_slice":
        r, n, d = p
        return (lambda a: a[:, 1::2]), [((r, n), DT[d])]
    if f == "reshape_permute":
        a, b, c = p
        return (lambda x: jnp.transpose(x.reshape(a, b // 2, 2, c), (0, 2, 3, 1)).reshape(a * 2, c, b // 2)), \
            [((a, b, c), "bfloat16")]
    if f == "attention":
        bh, s, dh, d = p
        return attn, [((bh, s, dh), DT[d])] * 3
    if f == "decoder_block":
        s, h, ffn = p
        heads = max(1, h // 128)

        def block(x, wn1, wqkv, wo, wn2, wg, wu, wd):
            y = rms_norm(x, wn1)
            q, k, v = jnp.split(y @ wqkv, 3, axis=-1)
            q, k, v = (t.reshape(s, heads, 128).transpose(1, 0, 2) for t in (q, k, v))
            a = attn(q, k, v).transpose(1, 0, 2).reshape(s, h)
            x = x + a @ wo
            y = rms_norm(x, wn2)
            return x + (jax.nn.silu(y @ wg) * (y @ wu)) @ wd
        bf = "bfloat16"
        return block, [((s, h), bf), ((h,), bf), ((h, 3 * h), bf), ((h, h), bf), ((h,), bf),
                       ((h, ffn), bf), ((h, ffn), bf), ((ffn, h), bf)]
    if f == "moe_routing":
        t, e, k, h = p

        def route(x, wr):
            logits = x @ wr
            vals, idx = lax.top_k(logits, k)
            gates = jax.nn.softmax(vals.astype(jnp.float32), axis=-1)
            onehot = jax.nn.one_hot(idx, e, dtype=jnp.float32)
            return jnp.einsum("tk,tke->te", gates, onehot), idx
        return route, [((t, h), "bfloat16"), ((h, e), "bfloat16")]
    if f == "conv2d":
        n, h, w, ci, co, k, st = p
        return (lambda x, wt: conv(x, wt, st)), [((n, h, w, ci), "bfloat16"), ((k, k, ci, co), "bfloat16")]
    if f == "conv_net":
        n, h, w, c = p

        def net(x, w1, w2, w3):
            y = jax.nn.relu(conv(x, w1))
            y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            y = jax.nn.relu(conv(y, w2))
            return jax.nn.relu(conv(y, w3, 2)).mean(axis=(1, 2))
        return net, [((n, h, w, 3), "bfloat16"), ((3, 3, 3, c), "bfloat16"), ((3, 3, c, c), "bfloat16"),
                     ((3, 3, c, 2 * c), "bfloat16")]
    if f == "unet_block":
        n, h, w, c = p

        def unet(x, w1, w2, w3):
            d = jax.nn.relu(conv(x, w1))
            m = lax.reduce_window(d, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            m = jax.nn.relu(conv(m, w2))
            u = jnp.repeat(jnp.repeat(m, 2, axis=1), 2, axis=2)
            return conv(jnp.concatenate([d, u], axis=-1), w3)
        return unet, [((n, h, w, c), "bfloat16"), ((3, 3, c, c), "bfloat16"), ((3, 3, c, c), "bfloat16"),
                      ((3, 3, 2 * c, c), "bfloat16")]
    if f == "vae_decoder":
        n, h, w, c = p

        def group_norm(x, groups=32):
            b, hh, ww, cc = x.shape
            g = x.reshape(b, hh * ww, groups, cc // groups)
            m = g.mean(axis=(1, 3), keepdims=True)
            v = ((g - m) ** 2).mean(axis=(1, 3), keepdims=True)
            return ((g - m) * lax.rsqrt(v + 1e-6)).reshape(b, hh, ww, cc)

        def dec(x, w1, w2):
            y = conv(jax.nn.silu(group_norm(x)), w1)
            y = conv(jax.nn.silu(group_norm(y)), w2)
            y = x + y
            return jnp.repeat(jnp.repeat(y, 2, axis=1), 2, axis=2)
        return dec, [((n, h, w, c), "bfloat16"), ((3, 3, c, c), "bfloat16"), ((3, 3, c, c), "bfloat16")]
    if f == "reduce":
        r, c, kind, d = p
        fn = {"sum": lambda x: x.sum(-1), "max": lambda x: x.max(-1), "mean": lambda x: x.mean(0),
              "softmax": lambda x: jax.nn.softmax(x, axis=-1)}[kind]
        return fn, [((r, c), DT[d])]
    if f == "softmax_rows":
        r, c, d = p
        return (lambda x: jax.nn.softmax(x, axis=-1)), [((r, c), DT[d])]
    if f in ("topk_head", "topk_wide"):
        r, v, k = p

        def head(logits):
            vals, idx = lax.top_k(logits, k)
            return vals, idx, jnp.argmax(logits, axis=-1).astype(jnp.int32)
        return head, [((r, v), "bfloat16")]
    if f == "cumsum":
        r, n, d = p
        return (lambda x: (jnp.cumsum(x, axis=-1), jnp.cumsum(x, axis=0))), [((r, n), DT[d])]
    if f == "concat_1d_many":
        k, n, last, d = p
        return (lambda *xs: jnp.concatenate(xs)), [((n,), DT[d])] * (k - 1) + [((last,), DT[d])]
    if f == "pool_wide":
        n, h, c = p

        def pools(x):  # max pools only: the bf16 window-sum / 4 of pool_net crashed the compiler
            y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
            y = lax.reduce_window(y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            return y, y.mean(axis=(1, 2))
        return pools, [((n, h, h, c), "bfloat16")]
    if f == "bcast_reduce":
        a, b, c = p
        return (lambda x, y: (x * y).sum(-1)), [((a, 1, c), "bfloat16"), ((1, b, c), "bfloat16")]
    if f == "embedding_batch":
        b, s, v, dim, d = p
        return (lambda table, ids: jnp.take(table, ids, axis=0)), [((v, dim), DT[d]), ((b, s), "int32")]
    if f == "multi_reduce":
        b, c, h, w, d = p
        return (lambda x: (x.sum(axis=(1, 3)), x.max(axis=(0, 2)), x.mean(axis=(2, 3)))), [((b, c, h, w), DT[d])]
    if f == "concat_many":
        k, r, n, d = p
        return (lambda *xs: jnp.concatenate(xs, axis=-1)), [((r, n), DT[d])] * k
    if f == "embedding":
        v, dim, t, d = p
        return (lambda table, ids: jnp.take(table, ids, axis=0)), [((v, dim), DT[d]), ((t,), "int32")]
    if f == "gather":
        r, n, k, d = p
        return (lambda x, idx: jnp.take_along_axis(x, idx, axis=1)), [((r, n), DT[d]), ((r, k), "int32")]
    if f == "group_norm":
        n, hw, c, g = p

        def gn_impl(x, w, b, **_):
            y = x.reshape(n, hw, g, c // g)
            m = y.mean(axis=(1, 3), keepdims=True)
            v = ((y - m) ** 2).mean(axis=(1, 3), keepdims=True)
            return ((y - m) * lax.rsqrt(v + 1e-5)).reshape(n, 1, hw, c) * w + b

        def gn(x, w, b):
            return lax.composite(gn_impl, name="tenstorrent.group_norm")(
                x, w, b, num_groups=np.int64(g), epsilon=np.float32(1e-5))
        return gn, [((n, 1, hw, c), "bfloat16"), ((c,), "bfloat16"), ((c,), "bfloat16")]
    if f == "depthwise_conv":
        n, h, c, k = p

        def dw(x, wt):
            return lax.conv_general_dilated(x, wt, (1, 1), [(k // 2, k // 2)] * 2, feature_group_count=c,
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return dw, [((n, h, h, c), "bfloat16"), ((k, k, 1, c), "bfloat16")]
    if f == "conv_transpose":
        n, h, ci, co, k = p
        return (lambda x, wt: lax.conv_transpose(x, wt, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))), \
            [((n, h, h, ci), "bfloat16"), ((k, k, ci, co), "bfloat16")]
    if f == "pool_net":
        n, h, c = p

        def pool(x):
            y = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
            y = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4
            return y, y.mean(axis=(1, 2))
        return pool, [((n, h, h, c), "bfloat16")]
    if f == "mlp_gelu":
        t, dm, h, d = p
        return (lambda x, w1, b1, w2, b2: jax.nn.gelu(x @ w1 + b1) @ w2 + b2), \
            [((t, dm), DT[d]), ((dm, h), DT[d]), ((h,), DT[d]), ((h, dm), DT[d]), ((dm,), DT[d])]
    if f == "mixed_dtypes":
        n, h, c = p

        def mixed(img, offset, scale):
            x = img.astype(jnp.float32) / 255.0 - 0.5
            y = (x * scale).astype(jnp.bfloat16) + offset.astype(jnp.bfloat16)
            return y.max(axis=(1, 2)), jnp.argmax(y.reshape(n, h * h, c), axis=1).astype(jnp.int32)
        return mixed, [((n, h, h, c), "uint8"), ((n, 1, 1, c), "int32"), ((c,), "float32")]
    if f == "broadcast_repeat":
        a, b, c, r = p

        def bcast(x, y, z):
            s = x * y + z
            return jnp.tile(s, (1, r, 1)), jnp.repeat(x, r, axis=0)
        return bcast, [((a, 1, c), "bfloat16"), ((1, b, c), "bfloat16"), ((a, b, 1), "bfloat16")]
    if f == "encoder_block":
        b, s, h = p
        heads = h // 64

        def enc(x, g1, b1, wqkv, wo, g2, b2, w1, c1, w2, c2):
            y = layer_norm(x, g1, b1)
            q, k, v = jnp.split(y @ wqkv, 3, axis=-1)
            q, k, v = (t.reshape(b, s, heads, 64).transpose(0, 2, 1, 3).reshape(b * heads, s, 64) for t in (q, k, v))
            a = attn(q, k, v).reshape(b, heads, s, 64).transpose(0, 2, 1, 3).reshape(b, s, h)
            x = x + a @ wo
            y = layer_norm(x, g2, b2)
            return x + jax.nn.gelu(y @ w1 + c1) @ w2 + c2
        bf = "bfloat16"
        return enc, [((b, s, h), bf), ((h,), bf), ((h,), bf), ((h, 3 * h), bf), ((h, h), bf), ((h,), bf), ((h,), bf),
                     ((h, 4 * h), bf), ((4 * h,), bf), ((4 * h, h), bf), ((h,), bf)]
    raise ValueError(f"unknown family {f}")
