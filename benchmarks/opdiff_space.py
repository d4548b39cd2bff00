"""Generators of the op space the campaign's g1 generators never draw (docs/accuracy.md, "What the generators draw").

The g1 generators of ``ttnn.matmul`` / ``ttnn.linear`` never set a matmul program config, a fused activation, a
sharded output, a bfloat4_b operand, a batched ``b`` under an unbatched ``a`` or the compute config's
``math_approx_mode`` / ``packer_l1_acc`` / ``dst_full_sync_en``; those of the convolutions draw bf16 DRAM inputs
with one fixed ``conv2d_config`` (no ``shard_layout``, ``act_block_h_override``, double buffers, ``output_layout``,
fused activation, bfloat8_b weights, groups, dilation, rectangular kernels or asymmetric padding, L1 outputs or
slice configs); the eltwise ones keep the output where the input is and shard from core (0, 0) only.

Instance ``i >= SPACE_FROM`` of an op below is drawn here (``i - SPACE_FROM`` stratifies the draw), seeded like
every instance (``random.Random(f"g1/{op}/{i}")``, :func:`benchmarks.opdiff_instances.instance`), so the ids
``g1/<op>/<i>`` of the g1 draws (``i < SPACE_FROM``) keep their draws.  Program configs are built the way
tt-mlir / ttnn's auto-config derive them (per-core blocks from the grid, ``in0_block_w`` a divisor of Kt,
subblocks of at most 8 tiles, 4 with fp32 accumulation, dividing the blocks); one in eight is perturbed
(a subblock or block that does not divide) so the factories' refusals are drawn too.
"""

from __future__ import annotations

import random
from typing import Callable

from benchmarks.opdiff_instances import (COLS, L1_TENSOR_BUDGET, ROWS, Draw, TensorDesc, _bytes, _collapsed, _desc,
                                         _log_int, _st, _vol, dram, draw_shape)
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ops.work_split import num_cores_to_corerangeset

SPACE_FROM = 100_000
# instances per op of a campaign of --base B: B * SPACE_WEIGHT[op]
SPACE_WEIGHT = {"ttnn.matmul": 2, "ttnn.linear": 2, "ttnn.conv2d": 2, "ttnn.conv_transpose2d": 1, "ttnn.conv1d": 1,
                "ttnn.add": 1, "ttnn.multiply": 1, "ttnn.relu": 1, "ttnn.exp": 1}
GRID = (COLS, ROWS)  # (x, y) of the mock P150's compute grid


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


# ---------------------------------------------------------------------------
# Sharded placements on any start core, either orientation of the grid
# ---------------------------------------------------------------------------


def shard(shape, dtype: str, layout: str, kind: str, cores: int, start: tuple[int, int] = (0, 0),
          budget: int = L1_TENSOR_BUDGET) -> TensorDesc | None:
    """``shape`` ``kind``-sharded (``height`` / ``width`` / ``block``) over about ``cores`` cores from ``start``
    (x, y), row-major core order; None when the shard does not fit ``budget`` bytes or the grid."""
    tile = layout == "tile"
    h, w = _collapsed(tuple(shape), tile)
    unit = 32 if tile else 1
    es = {"bf16": 2, "f32": 4, "si32": 4, "u32": 4, "bfp_bf8": 1.0625, "bfp_bf4": 0.5625}[dtype]
    free = (GRID[0] - start[0]) + (GRID[1] - start[1] - 1) * GRID[0]
    if kind in ("height", "width"):
        extent = h if kind == "height" else w
        n = max(1, min(cores, free, _cdiv(extent, unit)))
        s = _cdiv(_cdiv(extent, n), unit) * unit
        n = _cdiv(extent, s)
        sh, sw = (s, w) if kind == "height" else (h, s)
        if sh * sw * es > budget or (not tile and (sw * es) % 16):
            return None
        crs = num_cores_to_corerangeset(n, GRID, row_wise=True, start=start)
        grid = (n, 1) if kind == "height" else (1, n)
        return TensorDesc(tuple(shape), dtype, layout, "l1", f"{kind}_sharded", grid, crs)
    r = max(1, min(GRID[1] - start[1], _cdiv(h, unit), max(1, int(cores ** 0.5))))
    c = max(1, min(GRID[0] - start[0], _cdiv(w, unit), _cdiv(cores, r)))
    sh, sw = _cdiv(_cdiv(h, r), unit) * unit, _cdiv(_cdiv(w, c), unit) * unit
    r, c = _cdiv(h, sh), _cdiv(w, sw)
    if sh * sw * es > budget or (not tile and (sw * es) % 16):
        return None
    crs = CoreRangeSet((CoreRange(CoreCoord(*start), CoreCoord(start[0] + c - 1, start[1] + r - 1)),))
    return TensorDesc(tuple(shape), dtype, layout, "l1", "block_sharded", (r, c), crs)


def _start(rng: random.Random) -> tuple[int, int]:
    return (0, 0) if rng.random() < 0.6 else (rng.randrange(GRID[0] // 2), rng.randrange(GRID[1] // 2))


def _l1(shape, dtype: str, layout: str = "tile") -> TensorDesc:
    t = TensorDesc(tuple(shape), dtype, layout, "l1", "interleaved", (ROWS, COLS))
    return t if _bytes(shape, dtype, layout == "tile") / (ROWS * COLS) <= L1_TENSOR_BUDGET else dram(shape, dtype, layout)


# ---------------------------------------------------------------------------
# matmul / linear
# ---------------------------------------------------------------------------

COMPUTE_FULL = ("compute_config = #ttnn.device_compute_kernel_config<math_fidelity = {f}, math_approx_mode = {ap}, "
                "fp32_dest_acc_en = {acc}, packer_l1_acc = {l1}, dst_full_sync_en = {sync}>")


def _compute_full(rng: random.Random) -> tuple[str, bool]:
    acc = rng.random() < 0.5
    b = lambda p: "true" if rng.random() < p else "false"  # noqa: E731
    return COMPUTE_FULL.format(f=rng.choice(("lofi", "hifi2", "hifi3", "hifi4")), ap=b(0.5),
                               acc="true" if acc else "false", l1=b(0.5), sync=b(0.3)), acc


def _subblock(rng: random.Random, bh: int, bw: int, fp32: bool, perturb: bool) -> tuple[int, int]:
    """An (h, w) subblock of at most 8 tiles (4 with fp32 accumulation) dividing the ``bh`` x ``bw`` block
    (``matmul_utils``' SUBBLOCK_HW_CHOICES), the largest mostly; ``perturb``: any small pair."""
    if perturb:
        return rng.randint(1, 4), rng.randint(1, 4)
    cap = 4 if fp32 else 8
    ok = [(h, w) for h in _divisors(bh) for w in _divisors(bw) if h * w <= cap]
    ok.sort(key=lambda hw: -hw[0] * hw[1])
    return ok[0] if rng.random() < 0.5 else rng.choice(ok)


def _in0_block_w(rng: random.Random, kt: int, cap: int = 16) -> int:
    ds = [d for d in _divisors(kt) if d <= cap]
    return rng.choice(ds)


def _act_attr(act: str | None) -> str:
    return f"fused_activation = #ttnn.unary_with_param<op_type = {act}>, " if act else ""


def _matmul_config(rng: random.Random, kind: str, mt: int, kt: int, nt: int, grid: tuple[int, int], fp32: bool,
                   act: str | None, batch_fused: bool, mcast_in0: bool, a_shard_w: int | None,
                   perturb: bool) -> tuple[str, int, int]:
    """The ``matmul_program_config`` attribute text of ``kind`` for an [Mt x Kt] @ [Kt x Nt] matmul (tiles) on
    ``grid`` (x, y), and its per-core M and N (tiles).  ``a_shard_w``: the K tiles per core of a sharded ``a``
    (``in0_block_w`` must divide it)."""
    gx, gy = grid
    bw = _in0_block_w(rng, a_shard_w or kt)
    if kind == "reuse":
        pm = rng.choice([d for d in _divisors(mt) if d <= 16] or [1])
        pn = rng.choice([d for d in _divisors(nt) if d <= 16] or [1])
    elif kind == "mcast_2d":
        pm, pn = _cdiv(mt, gy), _cdiv(nt, gx)
    elif mcast_in0:
        pm, pn = mt, _cdiv(nt, gx * gy)
    else:
        pm, pn = _cdiv(mt, gx * gy), nt
    if perturb and rng.random() < 0.5:
        pm, pn = max(1, pm + rng.choice((-1, 1))), max(1, pn + rng.choice((-1, 1)))
    sh, sw = _subblock(rng, pm, pn, fp32, perturb)
    coord = f"compute_with_storage_grid_size = #ttnn.core_coord<{gx}, {gy}>"
    if kind == "reuse":
        body = (f"{coord}, in0_block_w = {bw}, out_subblock_h = {sh}, out_subblock_w = {sw}, per_core_m = {pm}, "
                f"per_core_n = {pn}")
        return f"#ttnn.matmul_multi_core_reuse_program_config<{body}>", pm, pn
    blocks = f"out_block_h = {pm}, out_block_w = {pn}, per_core_m = {pm}, per_core_n = {pn}"
    fb = "true" if batch_fused else "false"
    if kind == "mcast_2d":
        body = (f"{coord}, in0_block_w = {bw}, out_subblock_h = {sh}, out_subblock_w = {sw}, {blocks}, "
                f"transpose_mcast = false, {_act_attr(act)}fuse_batch = {fb}")
        return f"#ttnn.matmul_multi_core_reuse_multi_cast_program_config<{body}>", pm, pn
    body = (f"{coord}, in0_block_w = {bw}, out_subblock_h = {sh}, out_subblock_w = {sw}, {blocks}, "
            f"fuse_batch = {fb}, {_act_attr(act)}mcast_in0 = {'true' if mcast_in0 else 'false'}, gather_in0 = false, "
            "hop_cores = #ttnn.core_range_set<>, num_global_cb_receivers = 0, untilize_out = false")
    return f"#ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config<{body}>", pm, pn


MM_KINDS = ("none", "none_sharded_out", "reuse", "mcast_2d", "mcast_1d_in0", "mcast_1d_in1", "bcast_b", "bfp4")


def gen_space_matmul(name: str) -> Callable[[random.Random, int], Draw]:
    """matmul / linear over program configs (reuse, 2D mcast, 1D mcast of in0 or in1), sharded ``a`` and outputs
    matching them, fused activations, bfloat4_b ``b``, a batched ``b`` under a 2D ``a``, linear's bias shapes,
    and the full compute config."""
    linear = name == "ttnn.linear"

    def gen(rng: random.Random, j: int) -> Draw:
        kind = MM_KINDS[j % len(MM_KINDS)] if j < 4 * len(MM_KINDS) else rng.choice(MM_KINDS)
        perturb = rng.random() < 0.125
        size = rng.choice(("small", "mid", "mid", "big"))
        lo, hi = {"small": (1, 4), "mid": (2, 24), "big": (8, 96)}[size]
        mt, kt, nt = (_log_int(rng, lo, hi) for _ in range(3))
        ragged = rng.random() < 0.25  # logical dims that are not tile multiples
        m, k, n = (32 * t - (rng.randint(1, 31) if ragged and t > 1 else 0) for t in (mt, kt, nt))
        dtype = rng.choice(("bf16", "bf16", "bfp_bf8", "f32"))
        bdt = "bfp_bf4" if kind == "bfp4" else rng.choice((dtype, dtype, "bf16", "bfp_bf8", "bfp_bf4"))
        odt = rng.choice((dtype, "bf16", "bfp_bf8", "f32"))
        cc, fp32 = _compute_full(rng) if rng.random() < 0.7 else ("", False)
        batch: tuple[int, ...] = ()
        bbatch: tuple[int, ...] = ()
        if kind == "bcast_b":
            bbatch = rng.choice(((rng.randint(2, 4),), (rng.randint(1, 3), rng.randint(2, 3))))
        elif rng.random() < 0.3:
            batch = rng.choice(((rng.randint(2, 6),), (1, rng.randint(2, 4)), (2, 3)))
            bbatch = rng.choice(((), batch, (1,) * len(batch)))
        ta = not linear and kind in ("none", "bfp4") and rng.random() < 0.2
        tb = rng.random() < 0.25
        a_shape = batch + ((k, m) if ta else (m, k))
        b_shape = bbatch + ((n, k) if tb else (k, n))
        out_batch = tuple(max(x, y) for x, y in zip((1,) * (len(bbatch) - len(batch)) + batch,
                                                    (1,) * (len(batch) - len(bbatch)) + bbatch))
        out_shape = out_batch + (m, n)
        bsz = _vol(batch)
        act = rng.choice((None, None, "relu", "gelu", "silu"))
        attrs = [f"transpose_a = {'true' if ta else 'false'}", f"transpose_b = {'true' if tb else 'false'}"]
        a = dram(a_shape, dtype)
        b = dram(b_shape, bdt) if rng.random() < 0.8 else _l1(b_shape, bdt)
        out = dram(out_shape, odt) if rng.random() < 0.6 else _l1(out_shape, odt)
        cfg_act = None
        if kind == "none_sharded_out":
            a = rng.choice((a, _l1(a_shape, dtype)))
            o = shard(out_shape, odt, "tile", rng.choice(("height", "width", "block")), rng.randint(2, ROWS * COLS),
                      _start(rng))
            out = o or out
        elif kind in ("reuse", "mcast_2d", "mcast_1d_in0", "mcast_1d_in1"):
            fused = bsz * mt
            gx, gy = rng.randint(1, GRID[0]), rng.randint(1, GRID[1])
            if kind == "mcast_1d_in0":
                gx, gy = min(gx, nt) or 1, max(1, min(gy, _cdiv(nt, max(gx, 1))))
            elif kind == "mcast_1d_in1":
                gx, gy = min(gx, fused), max(1, min(gy, _cdiv(fused, max(gx, 1))))
            elif kind == "mcast_2d":
                gx, gy = min(gx, nt), min(gy, mt if batch else fused)
            a_sh = None
            a_shard_w = None
            if rng.random() < 0.4 and not ta:
                if kind == "mcast_1d_in1":
                    pm_guess = _cdiv(fused, gx * gy)
                    a_sh = shard(a_shape, dtype, "tile", "height", _cdiv(fused, pm_guess))
                elif kind == "mcast_1d_in0" and not batch:
                    a_sh = shard(a_shape, dtype, "tile", "width", rng.choice([d for d in _divisors(kt) if d <= 110]))
                    if a_sh is not None:
                        a_shard_w = kt // a_sh.grid[1] if kt % a_sh.grid[1] == 0 else None
                elif kind == "mcast_2d" and not batch:
                    a_sh = shard(a_shape, dtype, "tile", "block", gx * gy)
                    if a_sh is not None:
                        a_shard_w = _cdiv(kt, a_sh.grid[1])
                a = a_sh or a
            if act and rng.random() < 0.5 and kind != "reuse":
                cfg_act, act = act, None
            pc, pm, pn = _matmul_config(rng, "mcast_1d" if kind.startswith("mcast_1d") else kind, mt, kt, nt,
                                        (gx, gy), fp32, cfg_act, kind.startswith("mcast_1d") or not batch,
                                        kind == "mcast_1d_in0", a_shard_w, perturb)
            attrs.append(f"matmul_program_config = {pc}")
            if rng.random() < 0.4:  # the output sharded as the config lays it out
                lay = {"mcast_1d_in0": "width", "mcast_1d_in1": "height", "mcast_2d": "block"}.get(kind)
                if lay:
                    o = shard(out_shape, odt, "tile", lay, gx * gy)
                    out = o or out
        elif kind == "bfp4":
            a = rng.choice((a, _l1(a_shape, dtype)))
        if act:
            attrs.append(f'activation = "{act}"')
        if cc:
            attrs.append(cc)
        ops = [a, b]
        bias_key = ""
        if linear and rng.random() < 0.75:
            bshape = rng.choice(((n,), (1, n), (1, 1, n), (m, n)))
            ops.append(dram(bshape, rng.choice((bdt, "bf16"))))
            bias_key = f"+bias{_st(bshape)}"
        key = (f"{kind}/{_desc(a)}@{_desc(b)}{bias_key}->{_desc(out)}/t{int(ta)}{int(tb)}"
               + (f"/act={act or cfg_act}" if (act or cfg_act) else "") + ("/perturbed" if perturb else ""))
        return Draw(ops, [out], ", ".join(attrs), key)
    return gen


# ---------------------------------------------------------------------------
# conv2d, conv_transpose2d, conv1d: the conv2d_config and compute_config space
# ---------------------------------------------------------------------------


def _conv_config(rng: random.Random, transposed: bool = False) -> tuple[str, str]:
    """A ``#ttnn.conv2d_config<...>`` drawing each field tt-mlir can set, and a short key."""
    f: list[str] = []
    key: list[str] = []
    wdt = rng.choice(("bf16", "bf16", "bfp_bf8"))
    f.append(f"weights_dtype = {wdt}")
    key.append(f"w{wdt}")
    if rng.random() < 0.3:
        f.append("activation = <op_type = relu>")
        key.append("relu")
    if rng.random() < 0.5:
        f.append(f"deallocate_activation = {rng.choice(('true', 'false'))}")
    if rng.random() < 0.3:
        f.append(f"reallocate_halo_output = {rng.choice(('true', 'false'))}")
    shard = rng.choice((None, None, "height_sharded", "width_sharded", "block_sharded"))
    abh = rng.choice((0, 0, 32, 64, 128, 256)) if rng.random() < 0.5 else None
    if abh is not None:
        f.append(f"act_block_h_override = {abh}")
        key.append(f"abh{abh}")
    if rng.random() < 0.15:
        d = rng.choice((1, 2, 4))
        f.append(f"act_block_w_div = {d}")
        key.append(f"abw{d}")
    if shard:
        f.append(f"shard_layout = {shard}")
        key.append(shard.split("_")[0])
        if shard != "height_sharded" and rng.random() < 0.3:
            f.append("transpose_shards = true")
            key.append("tshards")
    if rng.random() < 0.3:
        lay = rng.choice(("row_major", "tile"))
        f.append(f"output_layout = {lay}")
        key.append(f"out_{lay}")
    for name, p in (("enable_act_double_buffer", 0.35), ("enable_weights_double_buffer", 0.35)):
        if rng.random() < p:
            f.append(f"{name} = true")
            key.append(name.split("_")[1] + "db")
    if not transposed:
        f.append("enable_kernel_stride_folding = false")
    f.append(f"config_tensors_in_dram = {rng.choice(('true', 'true', 'false'))}")
    return "conv2d_config = #ttnn.conv2d_config<" + ", ".join(f) + ">", ".".join(key)


def _conv_compute(rng: random.Random) -> str:
    return (f"compute_config = #ttnn.device_compute_kernel_config<math_fidelity = "
            f"{rng.choice(('lofi', 'hifi2', 'hifi4'))}, fp32_dest_acc_en = {rng.choice(('true', 'false'))}, "
            f"packer_l1_acc = {rng.choice(('true', 'false'))}>")


def _conv_input(rng: random.Random, shape: tuple[int, ...]) -> TensorDesc:
    layout = rng.choice(("row_major", "tile"))
    dtype = rng.choice(("bf16", "bf16", "bf16", "f32")) if layout == "row_major" else rng.choice(("bf16", "bf16",
                                                                                                   "f32", "bfp_bf8"))
    return dram(shape, dtype, layout) if rng.random() < 0.8 else _l1(shape, dtype, layout)


def _conv_output(rng: random.Random, shape: tuple[int, ...], dtype: str) -> TensorDesc:
    return dram(shape, dtype) if rng.random() < 0.8 else _l1(shape, dtype)


def gen_space_conv2d(rng: random.Random, j: int) -> Draw:
    """conv2d over the conv2d_config fields, input dtypes and L1 inputs/outputs, groups (grouped and
    depthwise), dilation, rectangular kernels and strides, asymmetric padding, and DRAM slice configs."""
    n = rng.choice((1, 1, 2))
    h, w = rng.choice((5, 8, 13, 16, 28, 32, 56, 64, 100)), rng.choice((5, 8, 13, 16, 28, 32, 56, 64, 100))
    cin = rng.choice((3, 8, 16, 32, 48, 64, 96, 128, 256, 512, 1024))
    cout = rng.choice((8, 16, 32, 64, 96, 128, 256, 512))
    groups = 1
    g = rng.random()
    if g < 0.12:
        groups, cout = cin, cin * rng.choice((1, 1, 2))
    elif g < 0.22:
        groups = rng.choice([d for d in (2, 4, 8) if cin % d == 0 and cout % d == 0] or [1])
    kh, kw = rng.choice(((1, 1), (3, 3), (3, 3), (5, 5), (7, 7), (1, 3), (3, 1), (2, 2)))
    sh, sw = rng.choice(((1, 1), (1, 1), (2, 2), (1, 2), (2, 1), (4, 4)))
    dil = rng.choice(((1, 1), (1, 1), (1, 1), (2, 2), (3, 1)))
    if rng.random() < 0.25:
        pad = tuple(rng.randint(0, max(kh, kw) // 2 + 1) for _ in range(4))
    else:
        pad = (kh // 2 * dil[0], kh // 2 * dil[0], kw // 2 * dil[1], kw // 2 * dil[1])
    eh, ew = dil[0] * (kh - 1) + 1, dil[1] * (kw - 1) + 1
    oh, ow = (h + pad[0] + pad[1] - eh) // sh + 1, (w + pad[2] + pad[3] - ew) // sw + 1
    if oh < 1 or ow < 1:
        kh, kw, dil, pad, eh, ew = 1, 1, (1, 1), (0, 0, 0, 0), 1, 1
        oh, ow = (h - 1) // sh + 1, (w - 1) // sw + 1
    inp = _conv_input(rng, (1, 1, n * h * w, cin))
    weight = TensorDesc((cout, cin // groups, kh, kw), "bf16", "row_major", "system_memory", None)
    ops = [inp, weight]
    if rng.random() < 0.5:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    cfg, ckey = _conv_config(rng)
    odt = rng.choice(("bf16", "bf16", inp.dtype, "bfp_bf8"))
    out = _conv_output(rng, (1, 1, n * oh * ow, cout), odt)
    pad_text = (f"padding = array<i32: {pad[0]}, {pad[1]}, {pad[2]}, {pad[3]}>" if rng.random() < 0.7 or
                pad[0] != pad[1] or pad[2] != pad[3] else f"padding = array<i32: {pad[0]}, {pad[2]}>")
    attrs = (f"batch_size = {n} : i32, in_channels = {cin} : i32, out_channels = {cout} : i32, input_height = {h} : "
             f"i32, input_width = {w} : i32, kernel_size = array<i32: {kh}, {kw}>, stride = array<i32: {sh}, {sw}>, "
             f"{pad_text}, dilation = array<i32: {dil[0]}, {dil[1]}>, groups = {groups} : i32, {cfg}")
    if rng.random() < 0.7:
        attrs += ", " + _conv_compute(rng)
    slice_key = ""
    if rng.random() < 0.12:
        st, ns = rng.choice(("dram_height", "dram_width")), rng.choice((0, 2, 4))
        attrs += f", conv2d_slice_config = #ttnn.conv2d_slice_config<{st}, {ns}>"
        slice_key = f"/{st}{ns}"
    key = (f"{n}x{h}x{w}x{cin}->{cout}/k{kh}x{kw}s{sh}x{sw}p{'.'.join(map(str, pad))}d{dil[0]}x{dil[1]}g{groups}/"
           f"{_desc(inp)}->{_desc(out)}/{ckey}{slice_key}")
    return Draw(ops, [out], attrs, key)


def gen_space_conv_transpose2d(rng: random.Random, j: int) -> Draw:
    """conv_transpose2d over the conv2d_config fields, input dtypes, L1 inputs/outputs, groups, dilation and
    rectangular kernels/strides."""
    n = rng.choice((1, 1, 2))
    h, w = rng.choice((2, 4, 7, 8, 14, 16, 28)), rng.choice((2, 4, 7, 8, 14, 16, 28))
    cin, cout = rng.choice((8, 16, 32, 64, 128, 256)), rng.choice((8, 16, 32, 64, 128))
    groups = rng.choice([1, 1, 1] + [d for d in (2, 4) if cin % d == 0 and cout % d == 0])
    kh, kw = rng.choice(((2, 2), (3, 3), (4, 4), (2, 3), (1, 1), (3, 1)))
    sh, sw = rng.choice(((1, 1), (2, 2), (2, 2), (1, 2), (2, 1)))
    dil = rng.choice(((1, 1), (1, 1), (2, 2)))
    ph, pw = rng.choice((0, kh // 2)), rng.choice((0, kw // 2))
    oph = rng.choice((0, 1)) if sh > 1 and rng.random() < 0.3 else 0
    opw = rng.choice((0, 1)) if sw > 1 and rng.random() < 0.3 else 0
    oh = (h - 1) * sh - 2 * ph + dil[0] * (kh - 1) + oph + 1
    ow = (w - 1) * sw - 2 * pw + dil[1] * (kw - 1) + opw + 1
    if oh < 1 or ow < 1:
        ph, pw, oph, opw = 0, 0, 0, 0
        oh, ow = (h - 1) * sh + dil[0] * (kh - 1) + 1, (w - 1) * sw + dil[1] * (kw - 1) + 1
    inp = _conv_input(rng, (1, 1, n * h * w, cin))
    ops = [inp, TensorDesc((cin, cout // groups, kh, kw), "bf16", "row_major", "system_memory", None)]
    if rng.random() < 0.5:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    cfg, ckey = _conv_config(rng, transposed=True)
    odt = rng.choice(("bf16", "bf16", inp.dtype))
    out = _conv_output(rng, (1, 1, n * oh * ow, cout), odt)
    attrs = (f"batch_size = {n} : i32, dilation = array<i32: {dil[0]}, {dil[1]}>, groups = {groups} : i32, "
             f"in_channels = {cin} : i32, input_height = {h} : i32, input_width = {w} : i32, "
             f"kernel_size = array<i32: {kh}, {kw}>, out_channels = {cout} : i32, "
             f"output_padding = array<i32: {oph}, {opw}>, padding = array<i32: {ph}, {pw}>, "
             f"stride = array<i32: {sh}, {sw}>, {cfg}")
    if rng.random() < 0.7:
        attrs += ", " + _conv_compute(rng)
    key = (f"{n}x{h}x{w}x{cin}->{cout}/k{kh}x{kw}s{sh}x{sw}p{ph}x{pw}o{oph}x{opw}d{dil[0]}x{dil[1]}g{groups}/"
           f"{_desc(inp)}->{_desc(out)}/{ckey}")
    return Draw(ops, [out], attrs, key)


def gen_space_conv1d(rng: random.Random, j: int) -> Draw:
    """conv1d over the conv2d_config fields, input dtypes and layouts, L1 placements, groups and dilation."""
    n, length = rng.choice((1, 1, 2, 4)), rng.choice((8, 31, 64, 100, 256, 1000, 3000))
    cin, cout = rng.choice((4, 16, 32, 64, 128, 256, 512)), rng.choice((8, 32, 64, 128, 256, 512))
    k = rng.choice((1, 2, 3, 3, 5, 7))
    st = rng.choice((1, 1, 2, 3))
    dil = rng.choice((1, 1, 1, 2))
    pl, pr = (k // 2 * dil, k // 2 * dil) if rng.random() < 0.7 else (rng.randint(0, k), rng.randint(0, k))
    groups = 1
    g = rng.random()
    if g < 0.12:
        groups, cout = cin, cin
    elif g < 0.2:
        groups = rng.choice([d for d in (2, 4) if cin % d == 0 and cout % d == 0] or [1])
    lout = (length + pl + pr - dil * (k - 1) - 1) // st + 1
    if lout < 1:
        k, dil, pl, pr = 1, 1, 0, 0
        lout = (length - 1) // st + 1
    inp = _conv_input(rng, (n, length, cin))
    ops = [inp, TensorDesc((cout, cin // groups, k), "bf16", "row_major", "system_memory", None)]
    if rng.random() < 0.5:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    cfg, ckey = _conv_config(rng)
    out = _conv_output(rng, (1, 1, n * lout, cout), "bf16")
    attrs = (f"batch_size = {n} : i32, dilation = {dil} : i32, groups = {groups} : i32, in_channels = {cin} : i32, "
             f"input_length = {length} : i32, kernel_size = {k} : i32, out_channels = {cout} : i32, "
             f"padding = array<i32: {pl}, {pr}>, stride = {st} : i32, {cfg}")
    if rng.random() < 0.7:
        attrs += ", " + _conv_compute(rng)
    key = f"{n}x{length}x{cin}->{cout}/k{k}s{st}p{pl}.{pr}d{dil}g{groups}/{_desc(inp)}->{_desc(out)}/{ckey}"
    return Draw(ops, [out], attrs, key)


# ---------------------------------------------------------------------------
# sharded eltwise: outputs placed elsewhere than the input, shards off core (0, 0), mixed operands
# ---------------------------------------------------------------------------

ELT_KINDS = ("sharded->interleaved", "interleaved->sharded", "sharded->other", "offset", "mixed", "bcast")


def _elt_shard(rng: random.Random, shape, dtype: str, layout: str, start=(0, 0)) -> TensorDesc | None:
    return shard(shape, dtype, layout, rng.choice(("height", "height", "width", "block")),
                 rng.choice((2, 4, 8, 16, 30, 64, 110)), start)


def gen_space_eltwise(name: str) -> Callable[[random.Random, int], Draw]:
    """A unary or binary eltwise op whose operands and result are sharded differently: sharded input to an
    interleaved result and back, one sharding to another, shards starting off core (0, 0), a sharded and an
    interleaved operand, a broadcast operand next to a sharded one."""
    binary = name in ("ttnn.add", "ttnn.multiply")

    def gen(rng: random.Random, j: int) -> Draw:
        kind = ELT_KINDS[j % len(ELT_KINDS)] if j < 4 * len(ELT_KINDS) else rng.choice(ELT_KINDS)
        dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8", "bfp_bf4")) if name != "ttnn.relu" or rng.random() < .8 \
            else "si32"
        layout = "tile" if dtype.startswith("bfp") or rng.random() < 0.8 else "row_major"
        shape = draw_shape(rng, rng.choice(("odd", "aligned", "tall", "boundary", "big", "rank5")), min_rank=2)
        start = _start(rng) if kind == "offset" else (0, 0)
        sharded = _elt_shard(rng, shape, dtype, layout, start)
        if sharded is None:
            shape = tuple(min(d, 64) for d in shape)
            sharded = _elt_shard(rng, shape, dtype, layout, start)
        inter = rng.choice((dram(shape, dtype, layout), _l1(shape, dtype, layout)))
        if sharded is None:
            sharded = inter
        a, out = sharded, sharded
        if kind == "sharded->interleaved":
            out = inter
        elif kind == "interleaved->sharded":
            a = inter
        elif kind == "sharded->other":
            out = _elt_shard(rng, shape, dtype, layout, _start(rng)) or inter
        ops = [a]
        if binary:
            b = a
            if kind == "mixed":
                b = inter
            elif kind == "bcast":
                bshape = tuple(shape[:-2]) + rng.choice(((1, shape[-1]), (shape[-2], 1), (1, 1)))
                b = dram(bshape, dtype, layout)
            if rng.random() < 0.3:
                a, b = b, a
            ops = [a, b]
        attrs = "activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []" if binary else ""
        return Draw(ops, [out], attrs, f"{kind}/" + "+".join(_desc(t) for t in ops) + f"->{_desc(out)}")
    return gen


def space_generators() -> dict[str, Callable[[random.Random, int], Draw]]:
    """The generators above, by op name (drawn for instance ids ``>= SPACE_FROM``)."""
    g: dict[str, Callable[[random.Random, int], Draw]] = {
        "ttnn.matmul": gen_space_matmul("ttnn.matmul"), "ttnn.linear": gen_space_matmul("ttnn.linear"),
        "ttnn.conv2d": gen_space_conv2d, "ttnn.conv_transpose2d": gen_space_conv_transpose2d,
        "ttnn.conv1d": gen_space_conv1d}
    for op in ("ttnn.add", "ttnn.multiply", "ttnn.relu", "ttnn.exp"):
        g[op] = gen_space_eltwise(op)
    return g


def versioned(g1: Callable[[random.Random, int], Draw], space: Callable[[random.Random, int], Draw]):
    """``g1`` below ``SPACE_FROM``, ``space`` (on ``i - SPACE_FROM``) from it."""
    def gen(rng: random.Random, i: int) -> Draw:
        return space(rng, i - SPACE_FROM) if i >= SPACE_FROM else g1(rng, i)
    return gen
