"""Random op instances for the op-level differential campaign (benchmarks/opdiff.py).

One generator per op with a circular-buffer model (``ttanalyze.ops.registry.CB_MODELS``).
Instance ``i`` of op ``name`` is drawn from ``random.Random(f"{GENERATOR}/{name}/{i}")``, so
it is the same on every run and the first N instances of an op do not depend on how many
are drawn.  Draws are stratified by ``i``: each op cycles through shape classes (tiny, odd,
tile-aligned, wide rows up to millions of elements, tall, rank 5, boundary sizes around a
tile, big volumes) and memory placements (DRAM and L1 interleaved, height/width/block
sharded on random core grids), so the factories' switches (single-core fallbacks, the
"enough L1 space" tests, cliff cores) are all hit.

Each instance is a single-op TTNN IR module (:func:`ttanalyze.ir.emit.single_op_func` on the
mock P150's system_desc of the real fixtures) with the attributes tt-mlir emits for the op
(``TTNNOps.td`` @19c86fca; the forms are those of ``fixtures/real``).  Result types are what
tt-mlir declares (the logical shape rule; layout, dtype and placement as asked).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Callable

from benchmarks.sweep_instances import GRID_XY, SYSTEM_DESC
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, module_text, single_op_func
from ttanalyze.ops import eltwise as E
from ttanalyze.ops.work_split import num_cores_to_corerangeset

GENERATOR = "g1"
MAX_VOLUME = 1 << 26  # elements per tensor: 128 MiB of bf16
L1_TENSOR_BUDGET = 256 * 1024  # bytes per core an L1 operand may take, so a program's CBs still have room
ROWS, COLS = GRID_XY[1], GRID_XY[0]  # 10 x 11 compute grid of the mock P150

DTYPE_BYTES = {"bf16": 2, "f32": 4, "si32": 4, "u32": 4, "u16": 2, "u8": 1, "bfp_bf8": 1.0625, "bfp_bf4": 0.5625}
FLOAT = ("bf16", "f32", "bfp_bf8")
INTS = ("si32", "u32", "u16")


@dataclass(frozen=True)
class OpInstance:
    """One generated op: its id, module text, the op's line and what was drawn (``key``)."""

    id: str
    op: str
    key: str
    text: str
    line: int


@dataclass
class Draw:
    operands: list[TensorDesc]
    results: list[TensorDesc]
    attrs: str = ""
    key: str = ""


# ---------------------------------------------------------------------------
# Shapes, dtypes, placements
# ---------------------------------------------------------------------------

SHAPE_CLASSES = ("tiny", "odd", "aligned", "wide", "tall", "rank5", "boundary", "big")


def _vol(shape) -> int:
    return math.prod(shape) if shape else 1


def _cap(shape: list[int], limit: int = MAX_VOLUME) -> tuple[int, ...]:
    """Shrink the leading dims (then the rest) until the volume is at most ``limit``."""
    shape = list(shape)
    i = 0
    while _vol(shape) > limit and i < len(shape) * 4:
        j = i % len(shape)
        shape[j] = max(1, shape[j] // 2)
        i += 1
    return tuple(shape)


def _log_int(rng: random.Random, lo: int, hi: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def draw_shape(rng: random.Random, cls: str, rank: int | None = None, min_rank: int = 1, max_rank: int = 5) -> tuple[int, ...]:
    """A logical shape of shape class ``cls`` (see module docstring)."""
    if rank is None:
        rank = rng.randint(max(min_rank, 1), max_rank) if cls != "rank5" else 5
    rank = max(min_rank, min(rank, max_rank))
    if cls == "tiny":
        dims = [rng.randint(1, 4) for _ in range(rank)]
    elif cls == "odd":
        dims = [rng.choice((1, 2, 3, 5, 7)) for _ in range(rank - 2)] + [rng.randint(1, 300) for _ in range(min(rank, 2))]
    elif cls == "aligned":
        dims = [rng.choice((1, 2, 4)) for _ in range(rank - 2)] + [32 * rng.randint(1, 48) for _ in range(min(rank, 2))]
    elif cls == "wide":
        dims = [1] * (rank - 2) + ([rng.randint(1, 4)] if rank >= 2 else []) + [_log_int(rng, 1000, 4_000_000)]
    elif cls == "tall":
        dims = [1] * (rank - 2) + [_log_int(rng, 1000, 200_000)] + [rng.choice((1, 3, 16, 32, 64, 96))] if rank >= 2 \
            else [_log_int(rng, 1000, 200_000)]
    elif cls == "rank5":
        dims = [rng.randint(1, 4), rng.randint(1, 8), rng.randint(1, 16), rng.randint(1, 70), rng.randint(1, 130)][:rank]
    elif cls == "boundary":
        dims = [rng.choice((1, 2, 3)) for _ in range(rank - 2)] + \
               [rng.choice((31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 1023, 1024, 1025)) for _ in range(min(rank, 2))]
    else:  # big
        dims = [rng.choice((1, 2, 8)) for _ in range(rank - 2)] + [_log_int(rng, 256, 8192) for _ in range(min(rank, 2))]
    return _cap(dims[:rank] if len(dims) >= rank else dims + [1] * (rank - len(dims)))


def _collapsed(shape: tuple[int, ...], tile: bool) -> tuple[int, int]:
    """Rows x cols of the collapsed 2D shape (tile-padded when ``tile``)."""
    if not shape:
        shape = (1,)
    h = _vol(shape[:-1]) if len(shape) > 1 else 1
    w = shape[-1]
    if tile:
        last2 = (shape[-2] if len(shape) > 1 else 1)
        h = _vol(shape[:-2]) * (-(-last2 // 32) * 32)
        w = -(-w // 32) * 32
    return h, w


def _bytes(shape, dtype: str, tile: bool) -> float:
    h, w = _collapsed(tuple(shape), tile)
    return h * w * DTYPE_BYTES[dtype]


def _rect(cores: int) -> CoreRangeSet:
    return num_cores_to_corerangeset(cores, GRID_XY, row_wise=True)


def placement(rng: random.Random, shape, dtype: str, layout: str, kinds=("dram", "l1", "height", "width", "block"),
              weights=(5, 2, 2, 1, 1)) -> TensorDesc:
    """A tensor of ``shape`` placed by a random draw among ``kinds`` (falls back to DRAM when it cannot fit)."""
    tile = layout == "tile"
    kind = rng.choices(kinds, weights[:len(kinds)])[0]
    shape = tuple(shape)
    total = _bytes(shape, dtype, tile)
    if kind == "l1" and total / (ROWS * COLS) <= L1_TENSOR_BUDGET:
        return TensorDesc(shape, dtype, layout, "l1", "interleaved", (ROWS, COLS))
    h, w = _collapsed(shape, tile)
    unit = 32 if tile else 1
    esize = DTYPE_BYTES[dtype]
    if kind == "height" and len(shape) >= 1:
        n = rng.randint(1, min(ROWS * COLS, max(1, h // unit)))
        sh = -(-(-(-h // n)) // unit) * unit
        if sh * w * esize <= L1_TENSOR_BUDGET:
            n = -(-h // sh)
            return TensorDesc(shape, dtype, layout, "l1", "height_sharded", (n, 1), _rect(n))
    if kind == "width" and len(shape) >= 1:
        n = rng.randint(1, min(ROWS * COLS, max(1, w // unit)))
        sw = -(-(-(-w // n)) // unit) * unit
        if h * sw * esize <= L1_TENSOR_BUDGET and (tile or (sw * esize) % 16 == 0):
            n = -(-w // sw)
            return TensorDesc(shape, dtype, layout, "l1", "width_sharded", (1, n), _rect(n))
    if kind == "block" and len(shape) >= 2:
        r = rng.randint(1, min(ROWS, max(1, h // unit)))
        c = rng.randint(1, min(COLS, max(1, w // unit)))
        sh = -(-(-(-h // r)) // unit) * unit
        sw = -(-(-(-w // c)) // unit) * unit
        if sh * sw * esize <= L1_TENSOR_BUDGET and (tile or (sw * esize) % 16 == 0):
            r, c = -(-h // sh), -(-w // sw)
            crs = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(c - 1, r - 1)),))
            return TensorDesc(shape, dtype, layout, "l1", "block_sharded", (r, c), crs)
    return TensorDesc(shape, dtype, layout, "dram", "interleaved")


def like(t: TensorDesc, shape=None, dtype=None, layout=None) -> TensorDesc:
    """``t``'s placement for another shape/dtype/layout (sharded placements become DRAM interleaved)."""
    shape = tuple(shape if shape is not None else t.shape)
    dtype = dtype or t.dtype
    layout = layout or t.layout
    if t.memory_layout and t.memory_layout.endswith("sharded") and (shape != t.shape or layout != t.layout):
        return TensorDesc(shape, dtype, layout, "dram", "interleaved")
    return TensorDesc(shape, dtype, layout, t.buffer_type, t.memory_layout, t.grid, t.core_ranges)


def dram(shape, dtype="bf16", layout="tile") -> TensorDesc:
    return TensorDesc(tuple(shape), dtype, layout, "dram", "interleaved")


def _ints(v) -> str:
    return "[" + ", ".join(f"{x} : i32" for x in v) + "]"


def _arr(v, t="i32") -> str:
    return f"array<{t}: " + ", ".join(map(str, v)) + ">"


def _st(shape) -> str:
    return "x".join(map(str, shape)) or "scalar"


def _desc(t: TensorDesc) -> str:
    mem = t.buffer_type if t.memory_layout == "interleaved" else (t.memory_layout or "host").replace("_sharded", "")
    if t.memory_layout and t.memory_layout.endswith("sharded"):
        mem += f"[{t.grid[0]}x{t.grid[1]}]"
    return f"{_st(t.shape)}/{t.dtype}/{'rm' if t.layout == 'row_major' else 'tile'}/{mem}"


def _cls(rng: random.Random, i: int, classes=SHAPE_CLASSES) -> str:
    return classes[i % len(classes)] if i < 4 * len(classes) else rng.choice(classes)


def _layout(rng: random.Random, dtype: str, p_rm: float = 0.2) -> str:
    if dtype.startswith("bfp"):
        return "tile"
    return "row_major" if rng.random() < p_rm else "tile"


COMPUTE_CONFIG = "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = {f}, fp32_dest_acc_en = {acc}>"


def _compute(rng: random.Random) -> str:
    return COMPUTE_CONFIG.format(f=rng.choice(("lofi", "hifi2", "hifi4")), acc=rng.choice(("true", "false")))


# ---------------------------------------------------------------------------
# Generators, one per op kind
# ---------------------------------------------------------------------------

UNARY_INT_OK = {"abs", "neg", "sign", "relu", "logical_not", "bitwise_not"}


def gen_unary(name: str) -> Callable[[random.Random, int], Draw]:
    short = name.split(".", 1)[1]

    def gen(rng: random.Random, i: int) -> Draw:
        if short == "bitwise_not":
            dtype = rng.choice(("si32", "u32"))
        elif short in UNARY_INT_OK and rng.random() < 0.2:
            dtype = "si32"
        else:
            dtype = rng.choice(FLOAT + ("bfp_bf4",) if i % 7 == 6 else FLOAT)
        shape = draw_shape(rng, _cls(rng, i))
        t = placement(rng, shape, dtype, _layout(rng, dtype, 0.1))
        attrs = ""
        if short == "leaky_relu":
            attrs = f"parameter = {rng.choice((0.01, 0.2))} : f32"
        elif short == "clamp_scalar":
            attrs = "max = 3.000000e+00 : f32, min = 0.000000e+00 : f32"
        elif short == "pow_scalar":
            attrs = f"rhs = {rng.choice((2.0, 0.5, 3.0))} : f32"
        return Draw([t], [t], attrs, _desc(t))
    return gen


BINARY_INT = {"bitwise_and", "bitwise_or", "bitwise_xor", "logical_left_shift", "logical_right_shift"}
BINARY_INT_OK = {"add", "subtract", "multiply", "eq", "ne", "gt", "lt", "ge", "le", "maximum", "minimum"}
ACTS = "activations = [], input_tensor_a_activations = [], input_tensor_b_activations = []"


def _broadcast(rng: random.Random, shape: tuple[int, ...]) -> tuple[int, ...]:
    kind = rng.choice(("same", "same", "row", "col", "scalar", "batch", "rank"))
    s = list(shape)
    if kind == "row" and len(s) >= 2:
        s[-2] = 1
    elif kind == "col":
        s[-1] = 1
    elif kind == "scalar":
        s = [1] * len(s)
    elif kind == "batch" and len(s) >= 3:
        s[0] = 1
    elif kind == "rank" and len(s) >= 2:
        s = s[1:]
    return tuple(s)


def gen_binary(name: str) -> Callable[[random.Random, int], Draw]:
    short = name.split(".", 1)[1]

    def gen(rng: random.Random, i: int) -> Draw:
        if short in BINARY_INT:
            dtype = rng.choice(("si32", "u32"))
        elif short in BINARY_INT_OK and rng.random() < 0.15:
            dtype = "si32"
        else:
            dtype = rng.choice(FLOAT)
        shape = draw_shape(rng, _cls(rng, i))
        a = placement(rng, shape, dtype, _layout(rng, dtype, 0.1))
        bshape = _broadcast(rng, shape)
        b = like(a, bshape) if bshape == shape else dram(bshape, dtype, a.layout)
        if rng.random() < 0.2 and bshape != shape:  # the broadcast operand first
            a, b = b, a
        out_shape = tuple(max(x, y) for x, y in zip((1,) * (len(b.shape) - len(a.shape)) + a.shape,
                                                    (1,) * (len(a.shape) - len(b.shape)) + b.shape))
        out = a if out_shape == a.shape else like(b if out_shape == b.shape else a, out_shape)
        return Draw([a, b], [out], ACTS, f"{_desc(a)}+{_desc(b)}")
    return gen


def gen_where(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "f32"))
    shape = draw_shape(rng, _cls(rng, i))
    t = placement(rng, shape, dtype, "tile")
    ops = [t, like(t), like(t)]
    if rng.random() < 0.25:  # a broadcast operand
        j = rng.randrange(3)
        ops[j] = dram(_broadcast(rng, shape) if len(shape) else shape, dtype)
        if all(o.shape != t.shape for o in ops):
            ops[0] = t
    out = like(t)
    return Draw(ops, [out], "", "+".join(_desc(o) for o in ops))


def gen_reduce(name: str) -> Callable[[random.Random, int], Draw]:
    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "f32", "bfp_bf8") if name != "ttnn.sum" or i % 5 else ("si32",))
        shape = draw_shape(rng, _cls(rng, i), min_rank=1)
        t = placement(rng, shape, dtype, "tile", ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
        r = len(shape)
        mode = rng.choice(("last", "h", "hw", "all", "some", "none"))
        if mode == "last" or r == 1:
            dims = [r - 1]
        elif mode == "h":
            dims = [r - 2]
        elif mode == "hw":
            dims = [r - 2, r - 1]
        elif mode == "all":
            dims = list(range(r))
        elif mode == "some":
            dims = sorted(rng.sample(range(r), rng.randint(1, r)))
        else:
            dims = None
        keep = rng.random() < 0.6
        red = set(range(r)) if dims is None else set(dims)
        out_shape = tuple((1 if j in red else d) for j, d in enumerate(shape) if keep or j not in red)
        attrs = [_compute(rng)] if rng.random() < 0.8 else []
        if dims is not None:
            neg = rng.random() < 0.3
            attrs.append(f"dim_arg = {_ints([d - r if neg else d for d in dims])}")
        attrs.append(f"keep_dim = {'true' if keep else 'false'}")
        out = dram(out_shape, dtype) if rng.random() < 0.7 else TensorDesc(out_shape, dtype, "tile", "l1", "interleaved", (ROWS, COLS))
        return Draw([t], [out], ", ".join(attrs), f"{_desc(t)}/dims{dims}/keep{int(keep)}")
    return gen


def gen_argmax(rng: random.Random, i: int) -> Draw:
    layout = "row_major" if rng.random() < 0.6 else "tile"
    dtype = rng.choice(("bf16", "f32", "si32") if layout == "row_major" else ("bf16", "f32"))
    shape = draw_shape(rng, _cls(rng, i), min_rank=1, max_rank=4)
    t = placement(rng, shape, dtype, layout, ("dram", "l1"), (4, 1))
    r = len(shape)
    dim = r - 1 if rng.random() < 0.8 else rng.randrange(r)
    keep = rng.random() < 0.4
    out_shape = tuple(1 if j == dim else d for j, d in enumerate(shape)) if keep else \
        tuple(d for j, d in enumerate(shape) if j != dim)
    return Draw([t], [dram(out_shape, "u32", "row_major")], f"dim = {dim} : si32, keep_dim = {'true' if keep else 'false'}",
                f"{_desc(t)}/dim{dim}/keep{int(keep)}")


def gen_topk(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32"))
    shape = list(draw_shape(rng, _cls(rng, i, ("odd", "aligned", "wide", "boundary", "big", "tiny")), min_rank=1, max_rank=4))
    shape[-1] = min(shape[-1], 65536)
    shape = tuple(_cap(shape, 1 << 22))
    r = len(shape)
    dim = r - 1 if rng.random() < 0.85 else rng.randrange(r)
    k = max(1, min(shape[dim], rng.choice((1, 4, 10, 32, 64, 100, rng.randint(1, shape[dim])))))
    out_shape = tuple(k if j == dim else d for j, d in enumerate(shape))
    t = placement(rng, shape, dtype, "tile", ("dram", "l1"), (4, 1))
    index = "u32" if dtype == "f32" or shape[dim] > 65535 else "u16"
    attrs = f"dim = {dim} : si32, k = {k} : i32, largest = {rng.choice(('true', 'false'))}, sorted = {rng.choice(('true', 'false'))}"
    return Draw([t], [dram(out_shape, dtype), dram(out_shape, index)], attrs, f"{_desc(t)}/k{k}/dim{dim}")


def gen_softmax(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "f32", "bfp_bf8"))
    shape = draw_shape(rng, _cls(rng, i), min_rank=1)
    t = placement(rng, shape, dtype, "tile", ("dram", "l1"), (4, 1))
    dim = -1 if rng.random() < 0.75 else rng.randrange(-len(shape), 0)
    attrs = [f"dimension = {dim} : si32", f"numericStable = {rng.choice(('true', 'false'))}"]
    if rng.random() < 0.5:
        attrs.append(_compute(rng))
    return Draw([t], [like(t)], ", ".join(attrs), f"{_desc(t)}/dim{dim}")


def gen_norm(name: str) -> Callable[[random.Random, int], Draw]:
    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "f32", "bfp_bf8"))
        shape = draw_shape(rng, _cls(rng, i), min_rank=1)
        t = placement(rng, shape, dtype, "tile", ("dram", "l1"), (4, 1))
        w = shape[-1]
        nw = int(rng.random() < 0.6)
        nb = int(rng.random() < 0.5) if name == "ttnn.layer_norm" else int(rng.random() < 0.2)
        wdt = "bf16" if dtype == "bfp_bf8" else dtype
        ops = [t] + [dram((w,), wdt, rng.choice(("tile", "row_major"))) for _ in range(nw + nb)]
        attrs = [f"epsilon = {rng.choice(('9.99999974E-6', '1.0e-05', '9.99999997E-7'))} : f32",
                 f"operandSegmentSizes = array<i32: 1, {nw}, {nb}>"]
        if rng.random() < 0.5:
            attrs.append(_compute(rng))
        return Draw(ops, [like(t)], ", ".join(attrs), f"{_desc(t)}/w{nw}b{nb}")
    return gen


def gen_group_norm(rng: random.Random, i: int) -> Draw:
    groups = rng.choice((1, 2, 4, 8, 16, 32))
    c = groups * rng.choice((1, 2, 4, 8, 16)) * rng.choice((1, 2))
    c = max(c, 32) if c % 32 else c
    n = rng.choice((1, 1, 2))
    hw = rng.choice((16, 64, 256, 1024, 4096, 32 * rng.randint(1, 200)))
    t = dram((n, 1, hw, c), "bf16", rng.choice(("tile", "row_major")))
    attrs = f"epsilon = 9.99999974E-6 : f32, num_groups = {groups} : si32, operandSegmentSizes = array<i32: 1, 0, 0, 0>"
    return Draw([t], [dram((n, 1, hw, c), "bf16", t.layout)], attrs, f"{_desc(t)}/g{groups}")


def gen_matmul(name: str) -> Callable[[random.Random, int], Draw]:
    def dim(rng: random.Random, cls: str) -> int:
        if cls == "tiny":
            return rng.randint(1, 8)
        if cls == "odd":
            return rng.randint(1, 700)
        if cls == "boundary":
            return rng.choice((31, 32, 33, 63, 64, 65, 1023, 1024, 1025))
        if cls == "big":
            return 32 * _log_int(rng, 8, 256)
        return 32 * rng.randint(1, 64)

    def gen(rng: random.Random, i: int) -> Draw:
        cls = _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "big", "aligned"))
        m, k, n = dim(rng, cls), dim(rng, cls), dim(rng, cls)
        batch = rng.choice(((), (), (rng.randint(1, 8),), (rng.randint(1, 3), rng.randint(1, 4))))
        ta, tb = rng.random() < 0.15, rng.random() < 0.15
        dtype = rng.choice(("bf16", "bf16", "bfp_bf8", "f32"))
        a_shape = batch + ((k, m) if ta else (m, k))
        b_batch = batch if rng.random() < 0.5 else ()
        b_shape = b_batch + ((n, k) if tb else (k, n))
        if _vol(a_shape) > MAX_VOLUME // 4 or _vol(b_shape) > MAX_VOLUME // 4:
            batch, a_shape, b_shape = (), ((k, m) if ta else (m, k)), ((n, k) if tb else (k, n))
        a = placement(rng, a_shape, dtype, "tile", ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
        b = placement(rng, b_shape, rng.choice((dtype, "bf16")), "tile", ("dram", "l1"), (5, 1))
        odtype = rng.choice(("bf16", dtype))
        out_shape = batch + (m, n)
        out = placement(rng, out_shape, odtype, "tile", ("dram", "l1"), (4, 1))
        ops = [a, b]
        if name == "ttnn.linear" and rng.random() < 0.7:
            ops.append(dram(rng.choice(((n,), (1, n))), b.dtype))
        attrs = [f"transpose_a = {'true' if ta else 'false'}", f"transpose_b = {'true' if tb else 'false'}"]
        if rng.random() < 0.5:
            attrs.append(_compute(rng))
        return Draw(ops, [out], ", ".join(attrs), f"{_desc(a)}@{_desc(b)}->{_desc(out)}/t{int(ta)}{int(tb)}")
    return gen


def gen_conv2d(rng: random.Random, i: int) -> Draw:
    n = rng.choice((1, 1, 2))
    h, w = rng.choice((4, 7, 8, 14, 16, 28, 32, 56, 64, 100, 128)), rng.choice((4, 7, 8, 14, 16, 28, 32, 56, 64, 100, 128))
    cin = rng.choice((3, 4, 8, 16, 32, 48, 64, 96, 128, 256, 512))
    cout = rng.choice((8, 16, 32, 64, 96, 128, 256, 512))
    k = rng.choice((1, 1, 3, 3, 5, 7))
    s = rng.choice((1, 1, 2))
    p = rng.choice((0, k // 2))
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    if oh < 1 or ow < 1:
        k, p, oh, ow = 1, 0, (h - 1) // s + 1, (w - 1) // s + 1
    weight = TensorDesc((cout, cin, k, k), "bf16", "row_major", "system_memory", None)
    ops = [dram((1, 1, n * h * w, cin), "bf16", rng.choice(("row_major", "tile"))), weight]
    if rng.random() < 0.5:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    attrs = (f"batch_size = {n} : i32, in_channels = {cin} : i32, out_channels = {cout} : i32, input_height = {h} : i32, "
             f"input_width = {w} : i32, kernel_size = array<i32: {k}, {k}>, stride = array<i32: {s}, {s}>, "
             f"padding = array<i32: {p}, {p}, {p}, {p}>, dilation = array<i32: 1, 1>, groups = 1 : i32, "
             "conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, enable_kernel_stride_folding = false, "
             "config_tensors_in_dram = true>, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, "
             "fp32_dest_acc_en = true>")
    return Draw(ops, [dram((1, 1, n * oh * ow, cout))], attrs, f"{n}x{h}x{w}x{cin}->{cout}/k{k}s{s}p{p}")


def gen_conv3d(rng: random.Random, i: int) -> Draw:
    cin = rng.choice((32, 64, 96, 128))
    cout = rng.choice((3, 16, 32, 64, 96, 128))
    k = rng.choice((1, 3))
    d, h, w = rng.randint(k, 8), rng.randint(k, 24), rng.randint(k, 24)
    p = rng.choice((0, k // 2))
    od, oh, ow = d + 2 * p - k + 1, h + 2 * p - k + 1, w + 2 * p - k + 1
    cib = rng.choice((32, cin)) if cin % 32 == 0 else 0
    cob = rng.choice((32, 64)) if cout >= 32 else 32
    tb, hb, wb = rng.choice((1, 1, 2)), rng.choice((1, 2, 4)), rng.choice((1, 2, 4, 8))
    ops = [dram((1, d, h, w, cin), "bf16", "row_major"), dram((k * k * k * cin, cout)), dram((1, cout))]
    attrs = ("batch_size = 1 : i32, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>, "
             f"conv3d_config = #ttnn.conv3d_config<t_out_block = {tb}, w_out_block = {wb}, h_out_block = {hb}, c_out_block = {cob}, "
             f"c_in_block = {cib}, compute_with_storage_grid_size = #ttcore.grid<10x11>>, dilation = array<i32: 1, 1, 1>, "
             f"groups = 1 : i32, in_channels = {cin} : i32, input_depth = {d} : i32, input_height = {h} : i32, input_width = {w} : i32, "
             f"kernel_size = array<i32: {k}, {k}, {k}>, out_channels = {cout} : i32, padding = array<i32: {p}, {p}, {p}>, "
             'padding_mode = "zeros", stride = array<i32: 1, 1, 1>')
    return Draw(ops, [dram((1, od, oh, ow, cout), "bf16", "row_major")], attrs,
                f"{d}x{h}x{w}x{cin}->{cout}/k{k}p{p}/b{tb}{hb}{wb}/{cob}/{cib}")


def gen_pool(name: str) -> Callable[[random.Random, int], Draw]:
    def gen(rng: random.Random, i: int) -> Draw:
        n = rng.choice((1, 1, 2))
        h, w = rng.choice((4, 8, 13, 16, 28, 32, 56, 64, 112)), rng.choice((4, 8, 13, 16, 28, 32, 56, 64, 112))
        c = rng.choice((16, 32, 64, 96, 128, 256, 512, 1024))
        k = rng.choice((2, 3, 3))
        s = rng.choice((1, 2, 2))
        p = rng.choice((0, 0, 1)) if k > 2 else 0
        ceil = rng.random() < 0.2
        rnd = (lambda x: -(-x // s)) if ceil else (lambda x: x // s)
        oh, ow = rnd(h + 2 * p - k) + 1, rnd(w + 2 * p - k) + 1
        attrs = (f"batch_size = {n} : si32, channels = {c} : si32, input_height = {h} : si32, input_width = {w} : si32, "
                 f"kernel_size = array<i32: {k}, {k}>, stride = array<i32: {s}, {s}>, padding = array<i32: {p}, {p}>, "
                 f"ceil_mode = {'true' if ceil else 'false'}, config_tensors_in_dram = true, reallocate_halo_output = false")
        attrs += ", dilation = array<i32: 1, 1>" if name == "ttnn.max_pool2d" else ", count_include_pad = true"
        layout = rng.choice(("row_major", "row_major", "tile"))
        return Draw([dram((1, 1, n * h * w, c), layout=layout)], [dram((1, 1, n * oh * ow, c), layout="row_major")], attrs,
                     f"{n}x{h}x{w}x{c}/k{k}s{s}p{p}/ceil{int(ceil)}/{layout}")
    return gen


def gen_max_pool2d_with_indices(rng: random.Random, i: int) -> Draw:
    """``max_pool2d_with_indices``: the pools' draw, bf16 row-major values and si32 indices shaped alike."""
    d = gen_pool("ttnn.max_pool2d")(rng, i)
    return Draw(d.operands, [d.results[0], dram(d.results[0].shape, "si32", "row_major")], d.attrs, d.key)


def gen_upsample(rng: random.Random, i: int) -> Draw:
    n, h, w = rng.choice((1, 2)), rng.randint(1, 64), rng.randint(1, 64)
    c = rng.choice((8, 16, 32, 64, 128, 256, 320))
    f = rng.choice((2, 2, 3, 4))
    mode = "nearest" if rng.random() < 0.8 else "bilinear"
    return Draw([dram((n, h, w, c), layout="row_major")], [dram((n, h * f, w * f, c), layout="row_major")],
                f'scale_factor = {f} : si32, mode = "{mode}"', f"{n}x{h}x{w}x{c}/x{f}/{mode}")


def _factor(rng: random.Random, volume: int, rank: int) -> tuple[int, ...]:
    """A random shape of ``rank`` dims whose product is ``volume``."""
    dims = [1] * rank
    rest = volume
    primes = []
    p = 2
    while p * p <= rest:
        while rest % p == 0:
            primes.append(p)
            rest //= p
        p += 1
    if rest > 1:
        primes.append(rest)
    for q in primes:
        dims[rng.randrange(rank)] *= q
    return tuple(dims)


def gen_reshape(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32", "bfp_bf8"))
    layout = _layout(rng, dtype, 0.4)
    shape = draw_shape(rng, _cls(rng, i))
    t = placement(rng, shape, dtype, layout, ("dram", "l1", "height"), (6, 2, 1))
    kind = rng.choice(("flatten", "split", "random", "last2", "unsqueeze"))
    if kind == "flatten":
        new = (_vol(shape),) if rng.random() < 0.5 else (_vol(shape[:-1]), shape[-1])
    elif kind == "unsqueeze":
        new = (1,) + shape
    elif kind == "last2" and len(shape) >= 2:
        new = shape[:-2] + _factor(rng, shape[-2] * shape[-1], 2)
    else:
        new = _factor(rng, _vol(shape), rng.randint(1, 5))
    out = like(t, new)
    return Draw([t], [out], f"shape = {_ints(new)}", f"{_desc(t)}->{_st(new)}")


def gen_permute(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32", "bfp_bf8"))
    layout = _layout(rng, dtype, 0.4)
    shape = draw_shape(rng, _cls(rng, i), min_rank=2)
    t = placement(rng, shape, dtype, layout, ("dram", "l1"), (5, 1))
    perm = list(range(len(shape)))
    while perm == list(range(len(shape))):
        rng.shuffle(perm)
    res = tuple(shape[p] for p in perm)
    return Draw([t], [like(t, res)], f"permutation = {_arr(perm, 'i64')}", f"{_desc(t)}/{perm}")


def gen_transpose(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    layout = _layout(rng, dtype, 0.3)
    shape = draw_shape(rng, _cls(rng, i), min_rank=2)
    t = placement(rng, shape, dtype, layout, ("dram", "l1", "height"), (5, 1, 1))
    r = len(shape)
    d0, d1 = (r - 2, r - 1) if rng.random() < 0.5 else tuple(rng.sample(range(r), 2))
    res = list(shape)
    res[d0], res[d1] = res[d1], res[d0]
    neg = rng.random() < 0.5
    a0, a1 = (d0 - r, d1 - r) if neg else (d0, d1)
    return Draw([t], [like(t, res)], f"dim0 = {a0} : si32, dim1 = {a1} : si32", f"{_desc(t)}/{d0},{d1}")


def gen_pad(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32"))
    layout = _layout(rng, dtype, 0.5)
    shape = draw_shape(rng, _cls(rng, i))
    t = placement(rng, shape, dtype, layout, ("dram", "l1", "height"), (6, 2, 1))
    pads = []
    for j in range(len(shape)):
        if layout == "tile" and j < len(shape) - 2 and rng.random() < 0.7:
            pads += [0, 0]
        elif rng.random() < 0.5:
            pads += [0, 0]
        else:
            big = rng.random() < 0.2
            pads += [rng.choice((0, 0, 1, 2, 32)), rng.choice((1, 2, 3, 31, 32, 64)) * (8 if big else 1)]
    if not any(pads):
        pads[-1] = rng.choice((1, 16, 32))
    res = tuple(d + pads[2 * j] + pads[2 * j + 1] for j, d in enumerate(shape))
    mc = "true" if rng.random() < 0.85 else "false"
    return Draw([t], [like(t, res)], f"padding = {_arr(pads)}, use_multicore = {mc}, value = {rng.choice(('0.000000e+00', '1.000000e+00'))} : f32",
                f"{_desc(t)}/{pads}")


def gen_slice(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32"))
    layout = _layout(rng, dtype, 0.4)
    shape = draw_shape(rng, _cls(rng, i))
    t = placement(rng, shape, dtype, layout, ("dram", "l1", "height", "width"), (6, 2, 1, 1))
    begins, ends, steps = [], [], []
    for d in shape:
        if rng.random() < 0.4:
            b, e = 0, d
        else:
            b = rng.randint(0, d - 1)
            e = rng.randint(b + 1, d)
            if rng.random() < 0.4 and d >= 64:
                b, e = 32 * (b // 32), min(d, 32 * (-(-e // 32)))
        st = rng.choice((1, 1, 1, 1, 2, 3)) if layout == "row_major" else 1
        begins.append(b)
        ends.append(e)
        steps.append(st)
    res = tuple(-(-(e - b) // s) for b, e, s in zip(begins, ends, steps))
    out = like(t, res) if res != shape else like(t)
    return Draw([t], [out], f"begins = {_ints(begins)}, ends = {_ints(ends)}, step = {_ints(steps)}",
                f"{_desc(t)}/{begins}:{ends}:{steps}")


def gen_concat(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32", "bfp_bf8"))
    layout = _layout(rng, dtype, 0.4)
    shape = draw_shape(rng, _cls(rng, i))
    r = len(shape)
    dim = rng.randrange(r)
    n = rng.choice((2, 2, 3, 4))
    ins = []
    for _ in range(n):
        s = list(shape)
        s[dim] = max(1, rng.choice((shape[dim], rng.randint(1, max(1, shape[dim])), 32 * rng.randint(1, 4))))
        s = _cap(s, MAX_VOLUME // 4)
        s = tuple(shape[j] if j != dim else s[dim] for j in range(r))
        ins.append(s)
    first = placement(rng, ins[0], dtype, layout, ("dram", "l1", "height", "width"), (6, 2, 1, 1))
    ops = [first] + [like(first, s) if first.memory_layout == "interleaved" else dram(s, dtype, layout) for s in ins[1:]]
    if first.memory_layout != "interleaved" and any(s != ins[0] for s in ins[1:]):
        ops = [dram(s, dtype, layout) for s in ins]
    res = list(shape)
    res[dim] = sum(s[dim] for s in ins)
    dim_attr = dim - r if rng.random() < 0.3 else dim
    return Draw(ops, [like(ops[0], res) if ops[0].memory_layout == "interleaved" else dram(res, dtype, layout)],
                f"dim = {dim_attr} : si32", f"{'+'.join(_desc(o) for o in ops)}/dim{dim}")


def gen_repeat(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32"))
    layout = _layout(rng, dtype, 0.4)
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "rank5", "boundary", "wide")))
    reps = [rng.choice((1, 1, 2, 3, 4)) for _ in shape]
    if i % 9 == 4:  # a rank-1 broadcast of one element (const-eval style)
        shape, reps = (1,), [rng.choice((32, 100, 4096))]
    if all(x == 1 for x in reps):
        reps[rng.randrange(len(reps))] = 2
    res = _cap([d * r for d, r in zip(shape, reps)])
    reps = [max(1, rr // d) for rr, d in zip(res, shape)]
    res = tuple(d * r for d, r in zip(shape, reps))
    t = placement(rng, shape, dtype, layout, ("dram", "l1"), (5, 1))
    return Draw([t], [like(t, res)], f"repeat_dims = #ttnn.shape<{_st(reps)}>", f"{_desc(t)}/x{reps}")


def gen_repeat_interleave(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32"))
    layout = _layout(rng, dtype, 0.3)
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "rank5", "boundary")))
    dim = rng.randrange(len(shape))
    reps = rng.choice((2, 2, 3, 4))
    res = list(shape)
    res[dim] *= reps
    t = placement(rng, shape, dtype, layout, ("dram", "l1"), (5, 1))
    return Draw([t], [like(t, res)], f"dim = {dim} : si32, repeats = {reps} : ui32", f"{_desc(t)}/x{reps}/dim{dim}")


def gen_embedding(rng: random.Random, i: int) -> Draw:
    b, s = rng.choice((1, 1, 2, 4)), rng.choice((1, 6, 19, 32, 100, 128, 1024))
    v = rng.choice((10, 100, 1000, 32000, 49408))
    h = rng.choice((16, 32, 100, 128, 512, 768, 4096))
    wl = rng.choice(("row_major", "row_major", "tile"))
    wd = rng.choice(("bf16", "bf16", "f32"))
    ol = rng.choice(("tile", "row_major"))
    idx = dram((b, s), rng.choice(("u32", "u32", "si32")), "row_major")
    return Draw([idx, dram((v, h), wd, wl)], [dram((b, s, h), wd, ol)], "", f"{b}x{s}/{v}x{h}/{wd}/{wl}->{ol}")


LAYOUT_KINDS = ("dram", "l1", "height", "width", "block")


def gen_to_layout(rng: random.Random, i: int) -> Draw:
    to_tile = rng.random() < 0.5
    src_dtype = rng.choice(("bf16", "bf16", "f32", "si32", "u32") if to_tile else ("bf16", "bf16", "f32", "bfp_bf8", "si32"))
    dst_dtype = src_dtype
    if rng.random() < 0.3:
        dst_dtype = rng.choice(("bf16", "f32", "bfp_bf8") if to_tile else ("bf16", "f32"))
        if src_dtype in INTS:
            dst_dtype = src_dtype
    shape = draw_shape(rng, _cls(rng, i))
    src = placement(rng, shape, src_dtype, "row_major" if to_tile else "tile", LAYOUT_KINDS, (6, 2, 1, 1, 1))
    dst_layout = "tile" if to_tile else "row_major"
    if rng.random() < 0.5:
        dst = TensorDesc(src.shape, dst_dtype, dst_layout, src.buffer_type, src.memory_layout, src.grid, src.core_ranges)
        if src.memory_layout.endswith("sharded") and dst_layout == "tile" and (src.shape[-1] % 32 or
                                                                             (len(shape) > 1 and shape[-2] % 32)):
            dst = dram(shape, dst_dtype, dst_layout)
    else:
        dst = placement(rng, shape, dst_dtype, dst_layout, LAYOUT_KINDS, (6, 2, 1, 1, 1))
    mc = "#ttnn.memory_config<#ttnn.buffer_type<dram>, <interleaved>>" if dst.buffer_type == "dram" else None
    attrs = [f"dtype = #ttcore.supportedDataTypes<{dst_dtype}>", f"layout = #ttnn.layout<{dst_layout}>"]
    if mc:
        attrs.append(f"memory_config = {mc}")
    return Draw([src], [dst], ", ".join(attrs), f"{_desc(src)}->{_desc(dst)}")


def gen_to_memory_config(rng: random.Random, i: int) -> Draw:
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8", "si32"))
    layout = _layout(rng, dtype, 0.3)
    shape = draw_shape(rng, _cls(rng, i))
    src = placement(rng, shape, dtype, layout, LAYOUT_KINDS, (4, 2, 2, 1, 1))
    dst = placement(rng, shape, dtype, layout, LAYOUT_KINDS, (3, 2, 2, 1, 1))
    return Draw([src], [dst], "", f"{_desc(src)}->{_desc(dst)}")


def gen_typecast(rng: random.Random, i: int) -> Draw:
    pairs = (("bf16", "f32"), ("f32", "bf16"), ("bf16", "bfp_bf8"), ("bfp_bf8", "bf16"), ("bf16", "si32"), ("si32", "bf16"),
             ("f32", "si32"), ("u16", "si32"), ("u32", "bf16"), ("bf16", "u32"), ("bfp_bf8", "f32"), ("f32", "bfp_bf4"))
    a, b = rng.choice(pairs)
    layout = _layout(rng, a if not b.startswith("bfp") else b, 0.15)
    shape = draw_shape(rng, _cls(rng, i))
    src = placement(rng, shape, a, layout, ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
    dst = like(src, dtype=b)
    return Draw([src], [dst], f"dtype = #ttcore.supportedDataTypes<{b}>", f"{_desc(src)}->{b}")


def gen_tilize(name: str) -> Callable[[random.Random, int], Draw]:
    untilize = name == "ttnn.untilize"

    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "bf16", "f32", "si32", "u32"))
        shape = draw_shape(rng, _cls(rng, i))
        src = placement(rng, shape, dtype, "tile" if untilize else "row_major", LAYOUT_KINDS, (6, 2, 1, 1, 1))
        dst_layout = "row_major" if untilize else "tile"
        if src.memory_layout.endswith("sharded") and rng.random() < 0.7:
            dst = TensorDesc(src.shape, dtype, dst_layout, "l1", src.memory_layout, src.grid, src.core_ranges)
        else:
            dst = placement(rng, shape, dtype, dst_layout, ("dram", "l1"), (3, 1))
        mc = rng.choice(("true", "true", "false"))
        return Draw([src], [dst], f"use_multicore = {mc}", f"{_desc(src)}->{_desc(dst)}/mc{mc}")
    return gen


def gen_full(name: str) -> Callable[[random.Random, int], Draw]:
    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "f32", "si32"))
        shape = draw_shape(rng, _cls(rng, i))
        out = placement(rng, shape, dtype, _layout(rng, dtype, 0.3), ("dram", "l1"), (3, 1))
        attrs = [f"shape = #ttnn.shape<{_st(shape)}>"]
        if name == "ttnn.full":
            attrs.append(f"fill_value = {rng.choice(('0.000000e+00', '1.000000e+00', '0xFF800000'))} : f32")
        else:
            attrs += [f"dtype = #ttcore.supportedDataTypes<{dtype}>", f"layout = #ttnn.layout<{out.layout}>"]
            if out.buffer_type == "dram":
                attrs.append("memory_config = #ttnn.memory_config<#ttnn.buffer_type<dram>, <interleaved>>")
        return Draw([], [out], ", ".join(attrs), _desc(out))
    return gen


def gen_arange(rng: random.Random, i: int) -> Draw:
    start = rng.choice((0, 0, -2, 5))
    n = rng.choice((1, 6, 32, 100, 1000, rng.randint(1, 100000)))
    step = rng.choice((1, 1, 2))
    dtype = rng.choice(("bf16", "f32", "si32"))
    layout = rng.choice(("tile", "row_major"))
    out = dram((n,), dtype, layout)
    attrs = (f"dtype = #ttcore.supportedDataTypes<{dtype}>, end = {start + n * step} : i64, layout = #ttnn.layout<{layout}>, "
             f"memory_config = #ttnn.memory_config<#ttnn.buffer_type<dram>, <interleaved>>, start = {start} : i64, step = {step} : i64")
    return Draw([], [out], attrs, f"{n}/{dtype}/{layout}")


def gen_concat_heads(name: str) -> Callable[[random.Random, int], Draw]:
    """``[B, H, S, D]`` tiled heads -> ``[B, 1, S, H*D]`` (``nlp_concat_heads``) or ``[B, S, H*D]``
    (``concatenate_heads``); interleaved operands (the model does not cover a sharded input)."""
    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
        b = rng.choice((1, 1, 2, 3, 4, 8))
        h = rng.choice((1, 2, 3, 4, 8, 12, 16, 32, 71))
        s = rng.choice((1, 7, 32, 33, 100, 128, 256, 512, 1024, 2048, 4096))
        d = rng.choice((32, 64, 80, 96, 128, 256))
        shape = _cap([b, h, s, d])
        b, h, s, d = shape
        t = placement(rng, shape, dtype, "tile", ("dram", "l1"), (4, 1))
        out = (b, 1, s, h * d) if name == "ttnn.nlp_concat_heads" else (b, s, h * d)
        res = placement(rng, out, dtype, "tile", ("dram", "l1"), (3, 1))
        return Draw([t], [res], "", f"{_desc(t)}->{_desc(res)}")
    return gen


def gen_kv_cache(name: str) -> Callable[[random.Random, int], Draw]:
    """``fill_cache(cache [B, H, S, D], input [1, H, s <= S, D])`` and ``update_cache(cache [B, H, S, D],
    input [1, H, b <= B, D], index [1] ui32)`` with ``batch_offset`` (kv_cache.py's shape rules)."""
    update = name == "ttnn.update_cache"

    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "bf16", "bfp_bf8", "f32"))
        b = rng.choice((1, 2, 4, 8, 16, 32, 64))
        h = rng.choice((1, 2, 4, 8, 16, 32))
        big_s = 32 * rng.choice((1, 2, 4, 8, 16, 32, 64, 128))
        d = rng.choice((32, 64, 128, 256))
        if update:
            n = rng.choice((1, 4, 8, 16, 32, b)) if b >= 32 else rng.randint(1, b)
            n = min(n, 32)
            offset = rng.choice((0, 0, max(0, min(32 - n, b - n))))
        else:
            n = rng.choice((1, 5, 32, 100, big_s // 2, big_s))
            n = max(1, min(n, big_s))
            offset = rng.randrange(b)
        cache, x = _cap([b, h, big_s, d]), [1, h, n, d]
        cache = (cache[0], h, big_s, d) if math.prod(cache) == b * h * big_s * d else (1, h, big_s, d)
        if update:
            offset = min(offset, max(0, cache[0] - n))
        c = dram(cache, dtype)
        xin = placement(rng, x, dtype, "tile", ("dram", "l1", "height"), (5, 2, 2))
        ops = [c, xin] + ([dram((1,), "u32", "row_major")] if update else [])
        return Draw(ops, [], f"batch_offset = {offset} : i32", f"{_desc(c)}<-{_desc(xin)}/off{offset}")
    return gen


def generators() -> dict[str, Callable[[random.Random, int], Draw]]:
    """The generator of every op with a CB model, by op name."""
    g: dict[str, Callable[[random.Random, int], Draw]] = {}
    for n in E.UNARY + ("pow_scalar",):
        g[f"ttnn.{n}"] = gen_unary(f"ttnn.{n}")
    for n in E.BINARY:
        g[f"ttnn.{n}"] = gen_binary(f"ttnn.{n}")
    g["ttnn.where"] = gen_where
    for n in ("sum", "mean", "max", "min"):
        g[f"ttnn.{n}"] = gen_reduce(f"ttnn.{n}")
    g["ttnn.argmax"] = gen_argmax
    g["ttnn.topk"] = gen_topk
    g["ttnn.softmax"] = gen_softmax
    g["ttnn.layer_norm"] = gen_norm("ttnn.layer_norm")
    g["ttnn.rms_norm"] = gen_norm("ttnn.rms_norm")
    g["ttnn.group_norm"] = gen_group_norm
    g["ttnn.matmul"] = gen_matmul("ttnn.matmul")
    g["ttnn.linear"] = gen_matmul("ttnn.linear")
    g["ttnn.conv2d"] = gen_conv2d
    g["ttnn.conv3d"] = gen_conv3d
    g["ttnn.max_pool2d"] = gen_pool("ttnn.max_pool2d")
    g["ttnn.avg_pool2d"] = gen_pool("ttnn.avg_pool2d")
    g["ttnn.upsample"] = gen_upsample
    g["ttnn.max_pool2d_with_indices"] = gen_max_pool2d_with_indices
    g["ttnn.reshape"] = gen_reshape
    g["ttnn.permute"] = gen_permute
    g["ttnn.transpose"] = gen_transpose
    g["ttnn.pad"] = gen_pad
    g["ttnn.slice_static"] = gen_slice
    g["ttnn.concat"] = gen_concat
    g["ttnn.repeat"] = gen_repeat
    g["ttnn.repeat_interleave"] = gen_repeat_interleave
    g["ttnn.embedding"] = gen_embedding
    g["ttnn.to_layout"] = gen_to_layout
    g["ttnn.to_memory_config"] = gen_to_memory_config
    g["ttnn.typecast"] = gen_typecast
    g["ttnn.tilize"] = gen_tilize("ttnn.tilize")
    g["ttnn.untilize"] = gen_tilize("ttnn.untilize")
    for n in ("full", "zeros", "ones", "empty"):
        g[f"ttnn.{n}"] = gen_full(f"ttnn.{n}")
    g["ttnn.arange"] = gen_arange
    g["ttnn.assign"] = gen_assign
    g["ttnn.bitcast_convert"] = gen_bitcast_convert
    g["ttnn.dropout"] = gen_dropout
    g["ttnn.batch_norm_inference"] = gen_batch_norm_inference
    g["ttnn.sort"] = gen_sort
    g["ttnn.cumsum"] = gen_scan("ttnn.cumsum")
    g["ttnn.cumprod"] = gen_scan("ttnn.cumprod")
    g["ttnn.gather"] = gen_gather
    g["ttnn.scatter"] = gen_scatter
    for n in ("quantize", "dequantize", "requantize"):
        g[f"ttnn.{n}"] = gen_quantization(f"ttnn.{n}")
    g["ttnn.scaled_dot_product_attention"] = gen_sdpa
    g["ttnn.flash_mla_prefill"] = gen_flash_mla_prefill
    g["ttnn.chunked_scaled_dot_product_attention"] = gen_chunked_sdpa
    g["ttnn.scaled_dot_product_attention_decode"] = gen_sdpa_decode
    g["ttnn.paged_scaled_dot_product_attention_decode"] = gen_paged_sdpa_decode
    g["ttnn.rotary_embedding"] = gen_rotary_embedding
    g["ttnn.split_query_key_value_and_split_heads"] = gen_split_qkv
    g["ttnn.paged_fill_cache"] = gen_paged_fill_cache
    g["ttnn.rotary_embedding_llama"] = gen_rotary_embedding_llama
    g["ttnn.paged_update_cache"] = gen_paged_update_cache
    g["ttnn.nlp_concat_heads_decode"] = gen_nlp_concat_heads_decode
    g["ttnn.nlp_create_qkv_heads_decode"] = gen_nlp_create_qkv_heads_decode
    g["ttnn.nlp_concat_heads"] = gen_concat_heads("ttnn.nlp_concat_heads")
    g["ttnn.concatenate_heads"] = gen_concat_heads("ttnn.concatenate_heads")
    g["ttnn.fill_cache"] = gen_kv_cache("ttnn.fill_cache")
    g["ttnn.update_cache"] = gen_kv_cache("ttnn.update_cache")
    g["ttnn.global_avg_pool2d"] = gen_global_avg_pool2d
    g["ttnn.batch_norm_training"] = gen_batch_norm_training
    g["ttnn.indexer_score_dsa"] = gen_indexer_score_dsa
    g |= gens_generators()
    from benchmarks.opdiff_space import space_generators, versioned  # ids >= SPACE_FROM: the undrawn op space

    for op, space in space_generators().items():
        g[op] = versioned(g[op], space)
    return g


# Ops whose factories branch the most get more instances (a multiple of the base count).
WEIGHT = {"ttnn.to_layout": 6, "ttnn.to_memory_config": 4, "ttnn.typecast": 2, "ttnn.tilize": 3, "ttnn.untilize": 3,
          "ttnn.reshape": 4, "ttnn.permute": 4, "ttnn.transpose": 3, "ttnn.pad": 4, "ttnn.slice_static": 4,
          "ttnn.concat": 4, "ttnn.repeat": 3, "ttnn.repeat_interleave": 2, "ttnn.embedding": 2, "ttnn.matmul": 6,
          "ttnn.linear": 3, "ttnn.argmax": 3, "ttnn.topk": 3, "ttnn.sum": 2, "ttnn.mean": 2, "ttnn.max": 2,
          "ttnn.softmax": 2, "ttnn.layer_norm": 2, "ttnn.rms_norm": 2, "ttnn.conv2d": 3, "ttnn.max_pool2d": 2,
          "ttnn.avg_pool2d": 2, "ttnn.upsample": 2, "ttnn.add": 2, "ttnn.multiply": 2, "ttnn.where": 2}


def instance(op: str, i: int, gen: Callable[[random.Random, int], Draw] | None = None) -> OpInstance:
    """Instance ``i`` of ``op`` (deterministic).

    Raises:
        KeyError: no generator for ``op``.
    """
    gen = gen or generators()[op]
    rng = random.Random(f"{GENERATOR}/{op}/{i}")
    d = gen(rng, i)
    func = device_op_func(op, DEVICE_OPERAND[op], d.operands, d.results, d.attrs) if op in DEVICE_OPERAND else \
        single_op_func(op, d.operands, d.results, d.attrs)
    text = module_text(SYSTEM_DESC, func)
    line = next(n + 1 for n, l in enumerate(text.splitlines()) if f'"{op}"' in l)
    return OpInstance(f"{GENERATOR}/{op}/{i}", op, d.key, text, line)


def instances(base: int, only: str | None = None) -> list[tuple[str, int]]:
    """``(op, i)`` of every instance of a campaign with ``base`` instances per op (times its WEIGHT), and ``base``
    times its ``SPACE_WEIGHT`` from ``SPACE_FROM`` on (benchmarks/opdiff_space.py); ``only``: the ops whose name
    starts with one of its comma-separated prefixes."""
    from benchmarks.opdiff_space import SPACE_FROM, SPACE_WEIGHT

    out = []
    for op in sorted(generators()):
        if only and not op.startswith(tuple(only.split(","))):
            continue
        out += [(op, i) for i in range(base * WEIGHT.get(op, 1))]
        out += [(op, i) for i in range(SPACE_FROM, SPACE_FROM + base * SPACE_WEIGHT.get(op, 0))]
    return out


# ---------------------------------------------------------------------------
# dialect-misc's ops (ttnn.copy and ttnn.rand take no result / a device operand: single_op_func cannot emit them;
# measurements/dialect/probe_misc.py covers them)
# ---------------------------------------------------------------------------


def _dt_attr(dtype: str) -> str:
    return f"dtype = #ttcore.supportedDataTypes<{dtype}>"


def gen_assign(rng: random.Random, i: int) -> Draw:
    """``assign``: a copy to the result's memory config (the same one 2/3 of the time) and dtype."""
    dtype = rng.choice(FLOAT)
    layout = _layout(rng, dtype)
    t = placement(rng, draw_shape(rng, _cls(rng, i)), dtype, layout)
    odt = rng.choice((dtype, dtype, "bf16", "f32")) if layout == "tile" else dtype
    out = like(t, dtype=odt) if rng.random() < 0.67 else placement(rng, t.shape, odt, layout, ("dram", "l1"), (1, 1))
    return Draw([t], [out], _dt_attr(odt), f"{_desc(t)}->{_desc(out)}")


def gen_bitcast_convert(rng: random.Random, i: int) -> Draw:
    """``bitcast_convert`` between dtypes of one width (TILE)."""
    dtype, odt = rng.choice((("bf16", "u16"), ("u16", "bf16"), ("f32", "si32"), ("si32", "f32"), ("f32", "u32")))
    t = placement(rng, draw_shape(rng, _cls(rng, i)), dtype, "tile")
    return Draw([t], [like(t, dtype=odt)], _dt_attr(odt), f"{_desc(t)}->{odt}")


def gen_dropout(rng: random.Random, i: int) -> Draw:
    """``dropout`` (rank 2 to 4, TILE, bf16/f32); the result keeps the input's placement."""
    dtype = rng.choice(("bf16", "f32"))
    t = placement(rng, draw_shape(rng, _cls(rng, i), min_rank=2, max_rank=4), dtype, "tile")
    attrs = (f"prob = {rng.choice((0.0, 0.1, 0.5))} : f32, scale = 1.250000e+00 : f32, seed = {rng.randint(0, 99)} : ui32, "
             f"use_per_device_seed = {rng.choice(('true', 'false'))}")
    return Draw([t], [t], attrs, _desc(t))


def gen_batch_norm_inference(rng: random.Random, i: int) -> Draw:
    """``batch_norm_inference(x [N, C, H, W], mean, var, weight?, bias?)`` with [1, C, 1, 1] statistics."""
    dtype = rng.choice(("bf16", "f32"))
    n, c = rng.choice((1, 2, 4)), rng.choice((1, 3, 16, 32, 64, 100, 256))
    h, w = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary")), rank=2)
    x = placement(rng, (n, c, h, w), dtype, "tile", ("dram", "l1"), (3, 1))
    stat = like(x, shape=(1, c, 1, 1))
    affine = rng.random() < 0.7
    seg = "1, 1, 1, 1, 1" if affine else "1, 1, 1, 0, 0"
    attrs = f"epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: {seg}>"
    return Draw([x, stat, stat] + ([stat, stat] if affine else []), [x], attrs, f"{_desc(x)}/affine={affine}")



def gen_sort(rng: random.Random, i: int) -> Draw:
    """``sort`` along the last dim (mostly rank 4, bf16/f32; u16 indices, u32 for f32 inputs)."""
    dtype = rng.choice(("bf16", "bf16", "f32"))
    rank = rng.choice((4, 4, 4, 3, 2))
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary")), rank=rank)
    x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
    idx = like(x, dtype="u32" if dtype == "f32" else "u16")
    desc = rng.choice(("true", "false"))
    return Draw([x], [x, idx], f"dim = -1 : si8, descending = {desc}, stable = false", _desc(x))


def gen_quantization(name: str) -> Callable[[random.Random, int], Draw]:
    """Per-tensor ``quantize`` (float -> si32), ``dequantize`` (si32 -> float), ``requantize`` (si32 -> si32)."""
    short = name.split(".", 1)[1]

    def gen(rng: random.Random, i: int) -> Draw:
        fdt = rng.choice(("bf16", "f32"))
        in_dt, out_dt = {"quantize": (fdt, "si32"), "dequantize": ("si32", fdt), "requantize": ("si32", "si32")}[short]
        x = placement(rng, draw_shape(rng, _cls(rng, i)), in_dt, "tile", ("dram", "l1"), (3, 1))
        scale, zp = dram((1,), "f32"), dram((1,), "si32")
        params = [scale, zp, scale, zp] if short == "requantize" else [scale, zp]
        return Draw([x, *params], [like(x, dtype=out_dt)], f"output_dtype = #ttcore.supportedDataTypes<{out_dt}>",
                    _desc(x))
    return gen
# Attention, rotary embedding, head split and paged cache (engineer dialect-attn; models in
# ttanalyze/ops/attention.py, transformer.py, kv_cache.py).  DRAM-interleaved TILE operands, integer
# operands (page tables, positions, chunk start) si32 ROW_MAJOR, as tt-mlir lays them out.
# ---------------------------------------------------------------------------


def _dram(shape, dtype="bf16") -> TensorDesc:
    return TensorDesc(tuple(shape), dtype, "row_major" if dtype == "si32" else "tile")


def _seg_attr(*sizes: int) -> str:
    return f"operandSegmentSizes = array<i32: {', '.join(map(str, sizes))}>"


def gen_sdpa(rng: random.Random, i: int) -> Draw:
    b, kv = rng.choice((1, 1, 2, 4)), rng.choice((1, 2, 4, 8))
    h = kv * rng.choice((1, 2, 4))
    s = rng.choice((32, 64, 96, 100, 128, 200, 256, 512, 1024, 2048, 4096))
    d = rng.choice((32, 64, 96, 128, 256))
    dt = rng.choice(("bf16", "bf16", "bfp_bf8", "f32"))
    causal = i % 2 == 0
    mask = not causal and rng.random() < 0.4
    window = rng.choice((None, None, 64, 128)) if not mask else None
    ops = [_dram((b, h, s, d), dt), _dram((b, kv, s, d), dt), _dram((b, kv, s, d), dt)]
    if mask:
        ops.append(_dram((rng.choice((1, b)), rng.choice((1, h)), s, s), rng.choice(("bf16", "bfp_bf8"))))
    attrs = ([] if causal else ["is_causal = false"]) + ([f"sliding_window_size = {window} : ui32"] if window else [])
    attrs.append(_seg_attr(1, 1, 1, int(mask), 0))
    return Draw(ops, [_dram((b, h, s, d), dt)], ", ".join(attrs), f"{b}x{h}x{s}x{d}/kv{kv}/{dt}/c{int(causal)}m{int(mask)}w{window}")


def gen_flash_mla_prefill(rng: random.Random, i: int) -> Draw:
    b, h, s = rng.choice((1, 2)), rng.choice((8, 16, 32)), rng.choice((64, 128, 256, 512, 1024))
    dqk, dv = rng.choice(((576, 512), (192, 128), (128, 64)))
    dt = rng.choice(("bf16", "bfp_bf8"))
    return Draw([_dram((b, h, s, dqk), dt), _dram((b, 1, s, dqk), dt)], [_dram((b, h, s, dv), dt)],
                f"head_dim_v = {dv} : ui32, {_seg_attr(1, 1, 0, 0)}", f"{b}x{h}x{s}x{dqk}/{dv}/{dt}")


def gen_chunked_sdpa(rng: random.Random, i: int) -> Draw:
    b, kv = rng.choice((1, 2)), rng.choice((1, 2, 4))
    h, d = kv * rng.choice((1, 2, 4)), rng.choice((64, 128))
    block, pages = rng.choice((32, 64, 128)), rng.choice((4, 8, 16, 32))
    s, dt = rng.choice((32, 64, 128, 256)), rng.choice(("bf16", "bfp_bf8"))
    return Draw([_dram((b, h, s, d), dt), _dram((b * pages, kv, block, d), dt), _dram((b * pages, kv, block, d), dt),
                 _dram((b, pages), "si32"), _dram((1,), "si32")], [_dram((b, h, s, d), dt)], "",
                f"{b}x{h}x{s}x{d}/kv{kv}/{block}x{pages}/{dt}")


def gen_sdpa_decode(rng: random.Random, i: int) -> Draw:
    b, kv, d = rng.choice((1, 2, 4, 8, 16, 32)), rng.choice((1, 2, 8)), rng.choice((64, 128))
    h, s = kv * rng.choice((1, 4, 8)), rng.choice((128, 256, 512, 1024, 4096))
    dt = rng.choice(("bf16", "bfp_bf8"))
    return Draw([_dram((1, b, h, d)), _dram((b, kv, s, d), dt), _dram((b, kv, s, d), dt), _dram((b,), "si32")],
                [_dram((1, b, h, d))], _seg_attr(1, 1, 1, 0, 1, 0), f"{b}x{h}/kv{kv}/s{s}/d{d}/{dt}")


def gen_paged_sdpa_decode(rng: random.Random, i: int) -> Draw:
    b, kv, d = rng.choice((1, 2, 4, 8, 32)), rng.choice((1, 2, 8)), rng.choice((64, 128))
    h, block, pages = kv * rng.choice((1, 4, 8)), rng.choice((32, 64)), rng.choice((8, 16, 32))
    dt = rng.choice(("bf16", "bfp_bf8"))
    cache = (b * pages, kv, block, d)
    return Draw([_dram((1, b, h, d)), _dram(cache, dt), _dram(cache, dt), _dram((b, pages), "si32"),
                 _dram((b,), "si32")], [_dram((1, b, h, d))], _seg_attr(1, 1, 1, 1, 0, 1, 0),
                f"{b}x{h}/kv{kv}/{block}x{pages}/d{d}/{dt}")


def gen_rotary_embedding(rng: random.Random, i: int) -> Draw:
    b, h, s, d = rng.choice((1, 2)), rng.choice((1, 4, 8, 32)), rng.choice((32, 64, 100, 128, 512, 1024)), \
        rng.choice((64, 128))
    dt = rng.choice(("bf16", "f32", "bfp_bf8"))
    cache = rng.choice((s, 2 * s, 4096))
    padded = (b, h, -(-s // 32) * 32, d)
    return Draw([_dram((b, h, s, d), dt), _dram((1, 1, cache, d), dt), _dram((1, 1, cache, d), dt)],
                [_dram(padded, dt)], "", f"{b}x{h}x{s}x{d}/{cache}/{dt}")


def gen_split_qkv(rng: random.Random, i: int) -> Draw:
    b, s, h = rng.choice((1, 2, 4)), rng.choice((32, 64, 128, 256, 384)), rng.choice((4, 8, 12, 16))
    kv = rng.choice((h, 1, 2, 4)) if h % 4 == 0 else h
    d, tk, dt = rng.choice((64, 128)), rng.random() < 0.3, rng.choice(("bf16", "bfp_bf8"))
    key = (b, kv, d, s) if tk else (b, kv, s, d)
    return Draw([_dram((b, s, (h + 2 * kv) * d), dt)], [_dram((b, h, s, d), dt), _dram(key, dt), _dram((b, kv, s, d), dt)],
                f"num_heads = {h} : ui32, num_kv_heads = {kv} : ui32, transpose_key = {str(tk).lower()}",
                f"{b}x{s}/h{h}/kv{kv}/d{d}/t{int(tk)}/{dt}")


def gen_paged_fill_cache(rng: random.Random, i: int) -> Draw:
    users, pages, block = rng.choice((1, 2, 4, 8)), rng.choice((2, 4, 8, 16)), rng.choice((32, 64, 128))
    h, d, dt = rng.choice((1, 2, 8)), rng.choice((64, 128)), rng.choice(("bf16", "bfp_bf8"))
    s = min(rng.choice((32, 64, 128, 256)), pages * block)
    return Draw([_dram((users * pages, h, block, d), dt), _dram((1, h, s, d), dt), _dram((users, pages), "si32")], [],
                _seg_attr(1, 1, 1, 0), f"{users}x{pages}x{block}/h{h}/d{d}/s{s}/{dt}")


def gen_rotary_embedding_llama(rng: random.Random, i: int) -> Draw:
    h, s, d = rng.choice((1, 4, 8, 32)), rng.choice((32, 64, 128, 512, 1024, 4096)), rng.choice((64, 128))
    ch = rng.choice((1, h))
    dt = "bf16" if i % 4 else rng.choice(("bfp_bf8", "f32"))  # ttnn 0.81.1 refuses non-bf16: a quarter probe it
    return Draw([_dram((1, h, s, d), dt), _dram((1, ch, s, d), dt), _dram((1, ch, s, d), dt), _dram((1, 1, 32, 32), dt)],
                [_dram((1, h, s, d), dt)], "is_decode_mode = false", f"1x{h}x{s}x{d}/cos{ch}/{dt}")


def gen_paged_update_cache(rng: random.Random, i: int) -> Draw:
    b, kv, d = rng.choice((1, 4, 8, 16, 32)), rng.choice((1, 2, 8)), rng.choice((64, 128))
    dt = rng.choice(("bf16", "bfp_bf8"))
    x = TensorDesc((1, b, 32, d), "bf16", "tile", "l1", "height_sharded", (b, 1),
                   num_cores_to_corerangeset(b, GRID_XY, True))
    if i % 2:
        block, pages = rng.choice((32, 64)), rng.choice((8, 16))
        cache = (b * pages, kv, block, d)
        ops = [_dram(cache, dt), x, _dram((b,), "si32"), _dram((b, pages), "si32")]
        seg = _seg_attr(1, 1, 1, 1)
    else:
        cache = (b, kv, rng.choice((128, 256, 1024)), d)
        ops = [_dram(cache, dt), x, _dram((b,), "si32")]
        seg = _seg_attr(1, 1, 1, 0)
    return Draw(ops, [], f"share_cache = false, {seg}", f"{'x'.join(map(str, cache))}/b{b}/{dt}")


def gen_nlp_concat_heads_decode(rng: random.Random, i: int) -> Draw:
    b, heads, d = rng.choice((1, 2, 4, 8, 16, 32)), rng.choice((4, 8, 16, 32)), rng.choice((64, 128))
    dt = "bf16" if i % 4 else "bfp_bf8"  # ttnn 0.81.1 refuses block floats: a quarter probe it
    x = TensorDesc((1, b, 32, d), dt, "tile", "l1", "height_sharded", (b, 1), num_cores_to_corerangeset(b, GRID_XY, True))
    return Draw([x], [_dram((1, 1, 32, heads * d), dt)], f"num_heads = {heads} : ui32", f"{b}/h{heads}/d{d}/{dt}")


def gen_nlp_create_qkv_heads_decode(rng: random.Random, i: int) -> Draw:
    kv, d = rng.choice((1, 2, 8)), rng.choice((64, 128))
    h, b = kv * rng.choice((1, 4, 8)), rng.choice((8, 16, 32))
    dt = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    return Draw([_dram((1, 1, b, (h + 2 * kv) * d), dt)],
                [_dram((1, b, h, d), dt), _dram((1, b, kv, d), dt), _dram((1, b, kv, d), dt)],
                f"num_heads = {h} : ui32, num_kv_heads = {kv} : ui32, overlap_qk_coregrid = true, {_seg_attr(1, 0)}",
                f"b{b}/h{h}/kv{kv}/d{d}/{dt}")


# ---------------------------------------------------------------------------
# Scans, gather and scatter (models in ttanalyze/ops/sort_scatter.py), called as tt-mlir's runtime does
# (runtime/lib/ttnn/operations/reduction/cumsum.cpp, cumprod.cpp, data_movement/gather.cpp, scatter.cpp)
# ---------------------------------------------------------------------------

SCAN_CLASSES = ("tiny", "odd", "aligned", "boundary", "rank5", "tall", "wide")


def gen_scan(name: str) -> Callable[[random.Random, int], Draw]:
    """``cumsum`` / ``cumprod`` along a random dim of a TILE tensor (bf16, f32, int32 for cumsum)."""

    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "bf16", "f32", "si32") if name == "ttnn.cumsum" else ("bf16", "bf16", "f32"))
        shape = draw_shape(rng, _cls(rng, i, SCAN_CLASSES), max_rank=5)
        x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
        dim = rng.randrange(-len(shape), len(shape))
        out = x if rng.random() < 0.7 else placement(rng, shape, dtype, "tile", ("dram", "l1"), (1, 1))
        return Draw([x], [out], f"dim = {dim} : si32", f"{_desc(x)}/dim{dim}->{out.buffer_type}")
    return gen


def _index_shape(rng: random.Random, shape: tuple[int, ...], axis: int) -> tuple[int, ...]:
    """An index shape for gather/scatter along ``axis``: at most the input's size on the other dims."""
    out = [s if rng.random() < 0.7 else rng.randint(1, s) for s in shape]
    out[axis] = rng.choice((1, 8, 32, shape[axis], max(1, shape[axis] // 2), shape[axis] + 17))
    return tuple(out)


def gen_gather(rng: random.Random, i: int) -> Draw:
    """``gather(input, dim, index)`` of TILE tensors (bf16: the codegen factories; f32: the native ones)."""
    dtype = rng.choice(("bf16", "bf16", "f32"))
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "rank5")), max_rank=5)
    axis = rng.choice((len(shape) - 1, len(shape) - 1, rng.randrange(len(shape))))
    x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
    idx = like(x, shape=_index_shape(rng, shape, axis), dtype=rng.choice(("u16", "u32")))
    dim = axis - len(shape) if rng.random() < 0.5 else axis
    return Draw([x, idx], [like(idx, dtype=dtype)], f"dim = {dim} : si32", f"{_desc(x)}/{_desc(idx)}/dim{dim}")


def gen_scatter(rng: random.Random, i: int) -> Draw:
    """``scatter(input, dim, index, source)`` (row-major mostly, as tt-mlir lays it out; bf16 TILE sometimes),
    with and without a sum reduction."""
    dtype = rng.choice(("bf16", "bf16", "f32"))
    layout = "tile" if dtype == "bf16" and rng.random() < 0.25 else "row_major"
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "rank5")), max_rank=4)
    axis = rng.randrange(len(shape))
    x = placement(rng, shape, dtype, layout, ("dram", "l1"), (3, 1))
    ishape = _index_shape(rng, shape, axis)
    ishape = tuple(min(a, b) if d == axis else a for d, (a, b) in enumerate(zip(ishape, shape)))
    idx = like(x, shape=ishape, dtype=rng.choice(("si32", "u32", "u16")) if layout == "row_major" else "u16")
    src = like(x, shape=ishape)
    red = rng.choice(("invalid", "invalid", "sum"))
    attrs = f"dim = {axis} : si32, scatter_reduce_type = #ttcore.reduce_type<{red}>"
    return Draw([x, idx, src], [x], attrs, f"{_desc(x)}/{_desc(idx)}/dim{axis}/{red}")


# ---------------------------------------------------------------------------
# engineer norm's ops: global_avg_pool2d, batch_norm_training, indexer_score_dsa (new generators)
# ---------------------------------------------------------------------------


def gen_global_avg_pool2d(rng: random.Random, i: int) -> Draw:
    """``global_avg_pool2d([N, H, W, C]) -> [N, 1, 1, C]``: spatial areas that are and are not tile multiples,
    TILE or row-major input and result, DRAM / L1 / sharded input."""
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    n = rng.choice((1, 1, 2, 3, 8))
    h, w = (rng.choice((1, 2, 3, 5, 7, 8, 13, 14, 16, 28, 32, 56, 64, 112)) for _ in range(2))
    c = rng.choice((3, 16, 32, 64, 96, 100, 256, 512, 960, 1280, 2048))
    shape = _cap([n, h, w, c], 1 << 22)
    layout = _layout(rng, dtype)
    x = placement(rng, shape, dtype, layout, ("dram", "l1", "height"), (6, 3, 1))
    out = like(x, shape=(shape[0], 1, 1, shape[3]), layout=_layout(rng, dtype, 0.15))
    return Draw([x], [out], "", _desc(x) + "->" + _desc(out))


def gen_batch_norm_training(rng: random.Random, i: int) -> Draw:
    """``batch_norm_training(x [N, C, H, W], running mean, running var, weight?, bias?)`` with [1, C, 1, 1]
    statistics."""
    dtype = rng.choice(("bf16", "f32"))
    n, c = rng.choice((1, 2, 4, 8)), rng.choice((1, 3, 16, 32, 64, 100, 256, 512))
    h, w = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary")), rank=2)
    x = placement(rng, _cap([n, c, h, w], 1 << 22), dtype, "tile", ("dram", "l1"), (3, 1))
    stat = like(x, shape=(1, x.shape[1], 1, 1))
    affine = rng.random() < 0.7
    seg = "1, 1, 1, 1, 1" if affine else "1, 1, 1, 0, 0"
    attrs = f"epsilon = 9.99999974E-6 : f32, momentum = 1.000000e-01 : f32, operandSegmentSizes = array<i32: {seg}>"
    return Draw([x, stat, stat] + ([stat, stat] if affine else []), [x], attrs, f"{_desc(x)}/affine={affine}")


def gen_indexer_score_dsa(rng: random.Random, i: int) -> Draw:
    """``indexer_score_dsa(q [1, Hi, Sq, D], k [1, 1, T, D], weights [1, Hi, Sq, 1]) -> [1, 1, Sq, T]`` in tt-mlir's
    forms (its verifier's weights; ttnn 0.81.1 refuses them for Hi > 1), mostly one head and tile-aligned."""
    dtype = rng.choice(("bf16", "bf16", "bfp_bf8", "f32"))
    hi = rng.choice((1, 1, 1, 2, 8, 64))
    sq = rng.choice((32, 64, 96, 128, 256, 320, 512, 1024, 2048, 100))
    t = rng.choice((32, 64, 128, 352, 1024, 2048, 4096, 8192, 200))
    d = rng.choice((64, 128))
    buf = rng.choice(("dram", "dram", "l1"))
    grid = (ROWS, COLS) if buf == "l1" else (1, 1)
    q = TensorDesc((1, hi, sq, d), dtype, "tile", buf, "interleaved", grid)
    k = TensorDesc((1, 1, t, d), dtype, "tile", buf, "interleaved", grid)
    wt = TensorDesc((1, hi, sq, 1), rng.choice(("bf16", "bf16", dtype)), "tile", buf, "interleaved", grid)
    out = TensorDesc((1, 1, sq, t), "bf16", "tile", buf, "interleaved", grid)
    return Draw([q, k, wt], [out], "chunk_start_idx = 0 : ui32", f"{_desc(q)}/{_desc(k)}/{_desc(wt)}")


# ---------------------------------------------------------------------------
# engineer gens: held-out draws of the ops that had a CB model but no generator (checked before only on the
# hand-picked probes of measurements/dialect, conv_transpose2d, distributed_norm).  Each is called as tt-mlir's
# runtime calls the op (runtime/lib/ttnn/operations/* @19c86fca; ttanalyze/executor/ttnn_worker.py).
# ---------------------------------------------------------------------------

# ops whose tt-mlir form takes the device as an operand: where it goes ("first" or "last")
DEVICE_OPERAND = {"ttnn.rand": "first", "ttnn.load_tensor": "first", "ttnn.conv1d": "last", "ttnn.conv_transpose2d": "last",
                  "ttnn.prepare_conv_transpose2d_weights": "last", "ttnn.prepare_conv_transpose2d_bias": "last"}
_GET_DEVICE = ('%dev = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
               ': () -> !ttnn.device')


def device_op_func(op_name: str, where: str, operands: list[TensorDesc], results: list[TensorDesc], attrs: str) -> str:
    """:func:`single_op_func` for an op that takes the device (``ttnn.get_device``) as its first or last operand."""
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(operands))
    out_types = ", ".join(t.type_text() for t in results)
    names = [f"%arg{i}" for i in range(len(operands))]
    types = [t.type_text() for t in operands]
    names, types = (["%dev"] + names, ["!ttnn.device"] + types) if where == "first" else \
        (names + ["%dev"], types + ["!ttnn.device"])
    attr_text = f" {{{attrs}}}" if attrs else ""
    call = f'"{op_name}"({", ".join(names)}){attr_text} : ({", ".join(types)}) -> ({out_types})'
    res = ", ".join(f"%r{i}" for i in range(len(results)))
    return "\n".join([f"  func.func @main({args}) -> ({out_types}) {{", f"    {_GET_DEVICE}", f"    {res} = {call}",
                      f"    return {res} : {out_types}", "  }"])


def gen_prod(rng: random.Random, i: int) -> Draw:
    """``prod(x, dim_arg?, keep_dim)``: one dim (any, last two most) or all dims, TILE (tt-mlir's workaround
    pass tilizes the input: TTNNWorkaroundsPass ProdOp), bf16/f32/bfp8, DRAM or L1."""
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "rank5", "tall", "wide")), min_rank=1,
                       max_rank=5)
    shape = _cap(shape, 1 << 22)
    x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
    r = len(shape)
    mode = rng.choice(("last", "h", "any", "any", "all"))
    dim = {"last": r - 1, "h": max(0, r - 2), "any": rng.randrange(r), "all": None}[mode]
    keep = rng.random() < 0.5
    if dim is None:
        out_shape = tuple(1 for _ in shape) if keep else ()
    else:
        out_shape = tuple(1 if j == dim else d for j, d in enumerate(shape)) if keep else \
            tuple(d for j, d in enumerate(shape) if j != dim)
    out = like(x, out_shape) if out_shape != shape else like(x)
    if x.memory_layout != "interleaved":
        out = dram(out_shape, dtype)
    attrs = (f"dim_arg = {dim} : si64, " if dim is not None else "") + f"keep_dim = {'true' if keep else 'false'}"
    return Draw([x], [out], attrs, f"{_desc(x)}/dim{dim}/keep{int(keep)}")


def gen_clamp_tensor(rng: random.Random, i: int) -> Draw:
    """``clamp_tensor(x, min, max)``: bounds of the input's shape or broadcast (rows, columns, scalars), TILE."""
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    shape = draw_shape(rng, _cls(rng, i), min_rank=1)
    shape = _cap(shape, 1 << 23)
    x = placement(rng, shape, dtype, "tile", ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
    bounds = []
    for _ in range(2):
        bshape = _broadcast(rng, shape) if rng.random() < 0.4 else shape
        bounds.append(like(x, bshape) if bshape == shape else dram(bshape, dtype))
    return Draw([x, *bounds], [like(x)], "", "+".join(_desc(t) for t in (x, *bounds)))


def gen_copy(rng: random.Random, i: int) -> Draw:
    """``copy(src, dst)`` (no result: ``ttnn::copy`` writes ``dst``): same shape and layout, the destination's
    placement and dtype drawn apart (a typecast on the way when they differ)."""
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8", "si32"))
    layout = _layout(rng, dtype, 0.3)
    shape = draw_shape(rng, _cls(rng, i))
    src = placement(rng, shape, dtype, layout, ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
    odt = dtype
    if layout == "tile" and rng.random() < 0.3:
        odt = rng.choice(("bf16", "f32", "bfp_bf8") if dtype != "si32" else ("si32",))
    dst = like(src, dtype=odt) if rng.random() < 0.5 else \
        placement(rng, shape, odt, layout, ("dram", "l1", "height", "width", "block"), (6, 2, 1, 1, 1))
    return Draw([src, dst], [], "", f"{_desc(src)}->{_desc(dst)}")


def gen_conv1d(rng: random.Random, i: int) -> Draw:
    """``conv1d(input [N, L, C_in], weight [C_out, C_in / groups, K] on the host, bias?, device)`` -> the flattened
    ``[1, 1, N * L_out, C_out]``; groups 1 mostly, depthwise now and then."""
    n, length = rng.choice((1, 1, 2, 4)), rng.choice((8, 16, 31, 50, 64, 100, 128, 256, 400, 1024, 3000))
    cin, cout = rng.choice((4, 8, 16, 32, 48, 64, 128, 256, 512)), rng.choice((8, 16, 32, 64, 96, 128, 256, 512))
    k = rng.choice((1, 2, 3, 3, 5, 7))
    st = rng.choice((1, 1, 1, 2))
    pl = rng.choice((0, k // 2, k // 2))
    groups = 1
    if rng.random() < 0.15:
        groups = cin
        cout = cin
    lout = (length + 2 * pl - (k - 1) - 1) // st + 1
    if lout < 1:
        k, pl, lout = 1, 0, (length - 1) // st + 1
    layout = rng.choice(("row_major", "row_major", "tile"))
    ops = [dram((n, length, cin), "bf16", layout),
           TensorDesc((cout, cin // groups, k), "bf16", "row_major", "system_memory", None)]
    bias = rng.random() < 0.6
    if bias:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    attrs = (f"batch_size = {n} : i32, dilation = 1 : i32, groups = {groups} : i32, in_channels = {cin} : i32, "
             f"input_length = {length} : i32, kernel_size = {k} : i32, out_channels = {cout} : i32, "
             f"padding = array<i32: {pl}, {pl}>, stride = {st} : i32")
    if rng.random() < 0.5:
        attrs += (", conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, config_tensors_in_dram = true>, "
                  "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>")
    return Draw(ops, [dram((1, 1, n * lout, cout))], attrs, f"{n}x{length}x{cin}->{cout}/k{k}s{st}p{pl}g{groups}/{layout}")


def _conv_transpose2d_geometry(rng: random.Random):
    n = rng.choice((1, 1, 2))
    h, w = rng.choice((2, 4, 7, 8, 14, 16, 28, 32, 50)), rng.choice((2, 4, 7, 8, 14, 16, 28, 32, 50))
    cin, cout = rng.choice((8, 16, 32, 64, 128, 256, 512)), rng.choice((8, 16, 32, 64, 128, 256))
    k = rng.choice((1, 2, 2, 3, 3, 4))
    s = rng.choice((1, 2, 2))
    p = rng.choice((0, 0, k // 2)) if k > 1 else 0
    op = rng.choice((0, 0, 1)) if s > 1 and p > 0 else 0
    oh, ow = (h - 1) * s - 2 * p + (k - 1) + op + 1, (w - 1) * s - 2 * p + (k - 1) + op + 1
    return n, h, w, cin, cout, k, s, p, op, oh, ow


_CONVT_CONFIG = ("conv2d_config = #ttnn.conv2d_config<weights_dtype = bf16, config_tensors_in_dram = true>, "
                 "compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, fp32_dest_acc_en = true>")


def _conv_transpose2d_attrs(n, h, w, cin, cout, k, s, p, op) -> str:
    return (f"batch_size = {n} : i32, dilation = array<i32: 1, 1>, groups = 1 : i32, in_channels = {cin} : i32, "
            f"input_height = {h} : i32, input_width = {w} : i32, kernel_size = array<i32: {k}, {k}>, "
            f"out_channels = {cout} : i32, output_padding = array<i32: {op}, {op}>, "
            f"padding = array<i32: {p}, {p}>, stride = array<i32: {s}, {s}>")


def gen_conv_transpose2d(rng: random.Random, i: int) -> Draw:
    """``conv_transpose2d(input [1, 1, N*H*W, C_in], weight [C_in, C_out, K, K] on the host, bias?, device)`` as
    tt-mlir emits it (measurements/conv_transpose2d/probe.py's form, over a wider geometry)."""
    n, h, w, cin, cout, k, s, p, op, oh, ow = _conv_transpose2d_geometry(rng)
    layout = rng.choice(("row_major", "row_major", "tile"))
    ops = [dram((1, 1, n * h * w, cin), "bf16", layout),
           TensorDesc((cin, cout, k, k), "bf16", "row_major", "system_memory", None)]
    if rng.random() < 0.5:
        ops.append(TensorDesc((1, 1, 1, cout), "bf16", "row_major", "system_memory", None))
    attrs = _conv_transpose2d_attrs(n, h, w, cin, cout, k, s, p, op) + ", " + _CONVT_CONFIG
    return Draw(ops, [dram((1, 1, n * oh * ow, cout))], attrs, f"{n}x{h}x{w}x{cin}->{cout}/k{k}s{s}p{p}o{op}/{layout}")


def gen_prepare_conv_transpose2d(name: str) -> Callable[[random.Random, int], Draw]:
    """``prepare_conv_transpose2d_weights`` / ``_bias``: the host weight ``[C_in, C_out, K, K]`` (bias
    ``[1, 1, 1, C_out]``) reordered for the conv's program; the result stays on the host (tt-mlir hoists the op
    into a const-eval function and keeps its result there)."""
    bias = name.endswith("_bias")

    def gen(rng: random.Random, i: int) -> Draw:
        n, h, w, cin, cout, k, s, p, op, oh, ow = _conv_transpose2d_geometry(rng)
        host = (lambda shape: TensorDesc(shape, "bf16", "row_major", "system_memory", None))
        x = (1, 1, 1, cout) if bias else (cin, cout, k, k)
        layout = rng.choice(("row_major", "tile"))
        attrs = (f"input_memory_config = #ttnn.memory_config<#ttnn.buffer_type<dram>, <interleaved>>, "
                 f"input_tensor_layout = #ttnn.layout<{layout}>, " + ("" if bias else 'weights_format = "IOHW", ')
                 + _conv_transpose2d_attrs(n, h, w, cin, cout, k, s, p, op)
                 + ("" if bias else f", has_bias = {rng.choice(('true', 'false'))}")
                 + ", input_dtype = #ttcore.supportedDataTypes<bf16>, output_dtype = #ttcore.supportedDataTypes<bf16>, "
                 + _CONVT_CONFIG)
        # the prepared weight: [1, 1, K*K*C_in padded, C_out padded] (taken as declared); the bias [1, 1, 32, C_out p]
        out = (1, 1, 1, cout) if bias else (1, 1, k * k * cin, cout)
        return Draw([host(x)], [host(out)], attrs, f"{_st(x)}/{n}x{h}x{w}/k{k}s{s}p{p}/{layout}")
    return gen


def gen_slice_dynamic(rng: random.Random, i: int) -> Draw:
    """``slice_dynamic(input, begins, ends)`` with begins/ends u32 ``[rank]`` tensors on the device (as tt-mlir's
    workaround types them), step 1; the result shape is what tt-mlir declares (the static slice's)."""
    dtype = rng.choice(("bf16", "bf16", "f32"))
    layout = _layout(rng, dtype, 0.5)
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "rank5")), max_rank=4)
    x = placement(rng, shape, dtype, layout, ("dram", "l1"), (4, 1))
    res = []
    for d in shape:
        b = rng.randint(0, d - 1) if rng.random() < 0.6 else 0
        res.append(rng.randint(1, d - b))
    idx = dram((len(shape),), "u32", "row_major")
    attrs = f"step = {_ints([1] * len(shape))}" if rng.random() < 0.5 else ""
    return Draw([x, idx, idx], [like(x, tuple(res))], attrs, f"{_desc(x)}->{_st(res)}")


def gen_rand(rng: random.Random, i: int) -> Draw:
    """``rand(device)``: a bf16/f32 tensor of the drawn shape, TILE (row-major sometimes), DRAM or L1."""
    dtype = rng.choice(("bf16", "bf16", "f32"))
    layout = _layout(rng, dtype, 0.2)
    shape = draw_shape(rng, _cls(rng, i))
    out = placement(rng, shape, dtype, layout, ("dram", "l1"), (3, 1))
    mc = f"memory_config = #ttnn.memory_config<#ttnn.buffer_type<{out.buffer_type}>, <interleaved>>"
    attrs = (f"size = #ttnn.shape<{_st(shape)}>, dtype = #ttcore.supportedDataTypes<{dtype}>, "
             f"layout = #ttnn.layout<{layout}>, {mc}, low = 0.000000e+00 : f32, high = 1.000000e+00 : f32, "
             f"seed = {rng.randint(0, 99)} : ui32")
    return Draw([], [out], attrs, _desc(out))


def gen_embedding_bw(rng: random.Random, i: int) -> Draw:
    """``embedding_bw(index [B, 1, 1, N] u32 row-major, weight [V, E], grad [1, 1, B*N, E]) -> [1, 1, V, E]``
    (tt-mlir's verifier forms; bf16 gradients mostly, f32 sometimes: ttnn refuses those)."""
    b, n = rng.choice((1, 1, 2, 4, 8)), 32 * rng.choice((1, 1, 2, 3, 4, 8, 16))
    v, e = rng.choice((10, 100, 128, 1000, 4096, 32000)), rng.choice((16, 32, 64, 100, 256, 768, 1024, 2048, 4096))
    dt = rng.choice(("bf16", "bf16", "bf16", "f32"))
    gbuf = rng.choice(("dram", "dram", "l1")) if b * n * e * 2 <= 4 << 20 else "dram"
    g = TensorDesc((1, 1, b * n, e), dt, "tile", gbuf, "interleaved", (ROWS, COLS) if gbuf == "l1" else (1, 1))
    out = TensorDesc((1, 1, v, e), dt, "tile", gbuf, "interleaved", g.grid) if v * e * 4 <= 8 << 20 else dram((1, 1, v, e), dt)
    idx = dram((b, 1, 1, n), rng.choice(("u32", "u32", "u16")), "row_major")
    return Draw([idx, dram((v, e), dt), g], [out], f"dtype = #ttcore.supportedDataTypes<{dt}>",
                f"{_desc(idx)}/{v}x{e}/{_desc(g)}")


def gen_sparse_matmul(rng: random.Random, i: int) -> Draw:
    """``sparse_matmul(a, b, sparsity)`` in its three modes with the 1D program config tt-mlir's runtime
    requires (measurements/dialect/cases_moe.py's form over wider sizes and grids)."""
    mode = rng.choice(("b", "b", "a", "ab"))
    e = rng.choice((2, 4, 8, 16, 32))
    m, k, n = 32 * rng.choice((1, 1, 2, 4)), 32 * rng.choice((1, 2, 4, 8, 12, 16, 24, 32)), \
        32 * rng.choice((1, 2, 4, 8, 16, 24))
    dt, wdt = rng.choice(("bf16", "bf16", "bfp_bf8", "f32")), rng.choice(("bf16", "bfp_bf8", "bfp_bf4"))
    kt, mt, nt = k // 32, m // 32, n // 32
    bw = rng.choice([d for d in (1, 2, 3, 4, 8) if kt % d == 0])
    grid = rng.choice(((11, 10), (8, 8), (4, 4), (8, 2), (11, 1)))
    per_n = -(-nt // min(nt, grid[0]))
    if rng.random() < 0.3:
        per_n = min(nt, per_n * 2)
    sub_w = rng.choice([d for d in (1, 2, 4) if per_n % d == 0])
    cfg = (f"program_config = #ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config<compute_with_storage_grid_size "
           f"= #ttnn.core_coord<{grid[0]}, {grid[1]}>, in0_block_w = {bw}, out_subblock_h = 1, out_subblock_w = {sub_w}, "
           f"out_block_h = {mt}, out_block_w = {per_n}, per_core_m = {mt}, per_core_n = {per_n}, fuse_batch = false, "
           f"mcast_in0 = true, gather_in0 = false, hop_cores = #ttnn.core_range_set<>, num_global_cb_receivers = 0, "
           f"untilize_out = false>")
    if mode == "b":
        a0, a1 = rng.choice((1, 2)), rng.choice((1, 2, 4))
        a, sp, res = (a0, a1, m, k), (a0, a1, 1, e), (a0, a1, 1, e, m, n)
    elif mode == "a":
        a0 = rng.choice((1, 2))
        a, sp, res = (a0, e, m, k), (1, 1, a0, e), (a0, e, m, n)
    else:
        a, sp, res = (1, e, m, k), (1, 1, 1, e), (1, e, m, n)
    nnz = max(1, (sp[0] * sp[1] * sp[2] * e) // rng.choice((1, 2, 4)))
    attrs = (f"is_input_a_sparse = {str(mode != 'b').lower()}, is_input_b_sparse = {str(mode != 'a').lower()}, "
             f"nnz = {nnz} : i64, {cfg}")
    if rng.random() < 0.3:
        attrs += ", " + _compute(rng)
    return Draw([dram(a, dt), dram((1, e, k, n), wdt), dram(sp, "bf16", "row_major")], [dram(res, dt)], attrs,
                f"{mode}/{_st(a)}@{_st((1, e, k, n))}/{dt},{wdt}/g{grid[0]}x{grid[1]}/bw{bw}/n{per_n}")


def gen_sampling(rng: random.Random, i: int) -> Draw:
    """``sampling(values [1, 1, B, W], indices, k [B], p [B], temp [B]) -> [1, 1, 1, B]`` u32 (the rank-4 form of
    tt-mlir's SamplingOpRank2RewritePattern); widths on and off the tile, a block-float or f32 value now and then."""
    n = rng.choice((1, 2, 4, 8, 13, 17, 24, 31, 32, 32))
    w = 32 * rng.choice((1, 2, 3, 4, 8, 16, 32, 64, 128)) if rng.random() < 0.85 else rng.randint(1, 4096)
    vdt = rng.choice(("bf16",) * 8 + ("bfp_bf8", "f32"))
    idt, kdt = rng.choice(("si32", "u32", "u32")), rng.choice(("u32", "u32", "si32"))
    vals = dram((1, 1, n, w), vdt)
    idx = dram((1, 1, n, w), idt, "row_major")
    ops = [vals, idx, dram((n,), kdt, "row_major"), dram((n,), "bf16", "row_major"), dram((n,), "bf16", "row_major")]
    return Draw(ops, [dram((1, 1, 1, n), "u32", "row_major")], f"seed = {rng.randint(0, 99)} : ui32",
                f"{n}x{w}/{vdt}/{idt}/{kdt}")


def _norm4d(rng: random.Random, i: int) -> tuple[int, ...]:
    """A norm input: tt-mlir's 4D ``[B, 1, S, W]`` form mostly (leading dims 1 to 2), rank 2, 3 or 5 one time in seven
    (ttnn 0.81.1's distributed-norm device operations index dim 3)."""
    cls = _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "wide", "tall", "big"))
    rank = 4 if i % 7 else rng.choice((2, 3, 5))
    h, w = draw_shape(rng, cls, rank=2)
    lead = tuple(rng.choice((1, 1, 1, 2)) for _ in range(rank - 2))
    return _cap(lead + (h, w), 1 << 22)


def gen_pre_all_gather(name: str) -> Callable[[random.Random, int], Draw]:
    """``rms_norm_pre_all_gather`` / ``layer_norm_pre_all_gather(input, residual?[, recip])`` on one device: the
    per-row statistics ``[..., 32]`` (rms: sum x^2) or ``[..., 64]`` (layer: sum x, sum x^2), bf16 result."""
    stats = 32 if "rms" in name else 64

    def gen(rng: random.Random, i: int) -> Draw:
        dtype = rng.choice(("bf16", "bf16", "bf16", "f32", "bfp_bf8"))
        shape = _norm4d(rng, i)
        x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
        res = rng.random() < 0.3
        seg = ("1, 1" if res else "1, 0") + (", 0" if name.endswith("layer_norm_pre_all_gather") else "")
        out = like(x, shape[:-1] + (stats,), dtype="bf16")
        attrs = f"dtype = #ttcore.supportedDataTypes<bf16>, operandSegmentSizes = array<i32: {seg}>"
        if rng.random() < 0.3:
            attrs += ", " + _compute(rng)
        return Draw([x, like(x)] if res else [x], [out], attrs, f"{_desc(x)}/res{int(res)}")
    return gen


def gen_layer_norm_post_all_gather(rng: random.Random, i: int) -> Draw:
    """``layer_norm_post_all_gather(input, stats [..., 64 * devices], weight?, bias?)`` on one device (the
    gathered statistics of 1 to 8 devices, 2 tiles each); weight and bias TILE ``[1, W]`` (``[W]`` or row-major
    ``[W / 32, 32]`` now and then)."""
    dtype = rng.choice(("bf16", "bf16", "bf16", "f32", "bfp_bf8"))
    shape = _norm4d(rng, i)
    x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
    stats = like(x, shape[:-1] + (64 * rng.choice((1, 1, 2, 4, 8)),), dtype="bf16")
    w, b = rng.random() < 0.7, rng.random() < 0.5
    wdt = rng.choice(("bf16", "bf16", "f32"))
    wform = rng.choice(("tile2", "tile2", "tile2", "tile1", "rm"))
    wshape = {"tile2": (1, shape[-1]), "tile1": (shape[-1],), "rm": (max(1, shape[-1] // 32), 32)}[wform]
    ops = [x, stats] + [dram(wshape, wdt, "row_major" if wform == "rm" else "tile") for _ in range(int(w) + int(b))]
    attrs = f"epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: 1, 1, {int(w)}, {int(b)}>"
    odt = dtype
    if rng.random() < 0.3:
        odt = rng.choice(("bf16", "f32"))
        attrs += f", dtype = #ttcore.supportedDataTypes<{odt}>"
    return Draw(ops, [like(x, dtype=odt)], attrs, f"{_desc(x)}/{_desc(stats)}/w{int(w)}b{int(b)}/{wform}/{odt}")


def gen_dit_rms_norm_unary_fused(rng: random.Random, i: int) -> Draw:
    """``dit_rms_norm_unary_fused(input, weight?, bias?, residual?)``: rms_norm over the last dim with an optional
    activation; weights ``[W]`` TILE or ROW_MAJOR ``[W / 32, 32]`` (measurements/dialect/cases_moe.py's forms)."""
    dtype = rng.choice(("bf16", "bf16", "f32", "bfp_bf8"))
    shape = draw_shape(rng, _cls(rng, i, ("tiny", "odd", "aligned", "boundary", "wide", "tall", "big")),
                       min_rank=2, max_rank=4)
    shape = _cap(shape, 1 << 22)
    x = placement(rng, shape, dtype, "tile", ("dram", "l1"), (3, 1))
    w = shape[-1]
    wl = rng.choice(("tile", "tile", "row_major"))
    wdesc = dram((w,)) if wl == "tile" or w % 32 else dram((w // 32, 32), "bf16", "row_major")
    has_w, has_b, has_r = rng.random() < 0.8, rng.random() < 0.3, rng.random() < 0.15
    ops = [x] + [wdesc] * int(has_w) + [wdesc] * int(has_b) + [like(x)] * int(has_r)
    act = rng.choice((None, "silu", "gelu"))
    attrs = (f"epsilon = 9.99999974E-6 : f32, operandSegmentSizes = array<i32: 1, {int(has_w)}, {int(has_b)}, "
             f"{int(has_r)}>") + (f', activation = "{act}"' if act else "")
    return Draw(ops, [like(x)], attrs, f"{_desc(x)}/w{int(has_w)}b{int(has_b)}r{int(has_r)}/{act}/{_desc(wdesc)}")


def gen_topk_router_gpt(rng: random.Random, i: int) -> Draw:
    """``topk_router_gpt(input [32, hidden], weight [hidden, 128], bias [32, 128])`` -> indices u16 and weights
    ``[32, k]`` (B = 32 and 128 experts are what tt-mlir's verifier accepts)."""
    hidden = 32 * rng.choice((1, 2, 4, 8, 20, 32, 45, 64, 90, 128, 160, 224))
    k = rng.choice((1, 2, 3, 4, 4, 6, 8))
    wdt = rng.choice(("bf16",) * 6 + ("bfp_bf8",))
    buf = rng.choice(("dram", "dram", "l1"))
    ops = [TensorDesc((32, hidden), "bf16", "tile", buf, "interleaved", (ROWS, COLS) if buf == "l1" else (1, 1)),
           dram((hidden, 128), wdt), dram((32, 128))]
    res = [TensorDesc((32, k), "u16", "row_major", "l1", "interleaved", (ROWS, COLS)),
           TensorDesc((32, k), "bf16", "row_major", "l1", "interleaved", (ROWS, COLS))]
    return Draw(ops, res, f"k = {k} : i32, num_experts = 128 : i32", f"{_desc(ops[0])}/{wdt}/k{k}")


def gen_moe_expert_token_remap(rng: random.Random, i: int) -> Draw:
    """``moe_expert_token_remap(topk [1, B, S, E], mapping [1, 1, E, 1], metadata [1, B, S, K])`` on one device:
    the mapping ``[1, B, S, E]`` and the reduced ``[1, 1, B * S / reduction_size, E]`` (row-major)."""
    b, s = rng.choice((1, 1, 2, 4, 8)), rng.choice((1, 2, 8, 32, 64, 128, 256))
    e, k = rng.choice((4, 8, 16, 32, 64, 128, 256)), rng.choice((1, 2, 4, 8))
    red = rng.choice([d for d in (1, 2, 4, 8, 16, 32, 64) if (b * s) % d == 0])
    tdt = rng.choice(("bf16", "bf16", "f32"))
    buf = rng.choice(("dram", "dram", "l1"))
    grid = (ROWS, COLS) if buf == "l1" else (1, 1)
    rm = (lambda shape, dt: TensorDesc(shape, dt, "row_major", buf, "interleaved", grid))
    ops = [rm((1, b, s, e), tdt), rm((1, 1, e, 1), "u16"), rm((1, b, s, k), "u16")]
    res = [rm((1, b, s, e), tdt), rm((1, 1, b * s // red, e), "u16")]
    return Draw(ops, res, f"reduction_size = {red} : i64", f"{b}x{s}/e{e}/k{k}/r{red}/{tdt}/{buf}")


def gen_paged_flash_mla_decode(rng: random.Random, i: int) -> Draw:
    """``paged_flash_multi_latent_attention_decode(q [1, B, H, Dqk], k cache [blocks, 1, block, Dqk],
    page_table [B, pages], cur_pos [B])`` -> ``[1, B, H, head_dim_v]`` (DeepSeek's latent forms)."""
    b, h = rng.choice((1, 2, 4, 8, 16, 32)), rng.choice((8, 16, 32, 64, 128))
    dqk, dv = rng.choice(((576, 512), (576, 512), (192, 128), (128, 64)))
    block, pages = rng.choice((32, 64)), rng.choice((4, 8, 16, 32))
    dt = rng.choice(("bf16", "bfp_bf8"))
    ops = [_dram((1, b, h, dqk)), _dram((b * pages, 1, block, dqk), dt), _dram((b, pages), "si32"), _dram((b,), "si32")]
    return Draw(ops, [_dram((1, b, h, dv))], f"head_dim_v = {dv} : ui32, is_causal = true, {_seg_attr(1, 1, 0, 1, 0, 1, 0)}",
                f"{b}x{h}/{dqk}->{dv}/{block}x{pages}/{dt}")


def _host_io_tensor(rng: random.Random, i: int) -> TensorDesc:
    dtype = rng.choice(("bf16", "bf16", "f32", "si32", "bfp_bf8"))
    return placement(rng, draw_shape(rng, _cls(rng, i)), dtype, _layout(rng, dtype, 0.4), ("dram", "l1"), (3, 1))


def gen_write_tensor(rng: random.Random, i: int) -> Draw:
    """``write_tensor(host, device)``: a host tensor copied into a device tensor of its shape, dtype and layout
    (no result; a host-to-device write, no program)."""
    t = _host_io_tensor(rng, i)
    host = TensorDesc(t.shape, t.dtype, t.layout, "system_memory", None)
    return Draw([host, t], [], "blocking = false, cq_id = 0 : ui32", f"host->{_desc(t)}")


def gen_dump_tensor(rng: random.Random, i: int) -> Draw:
    """``dump_tensor(t)``: a device tensor written to a file from the host (no result, no program)."""
    t = _host_io_tensor(rng, i)
    return Draw([t], [], f'file_path = "gens_{i}.tensorbin"', _desc(t))


def gen_load_tensor(rng: random.Random, i: int) -> Draw:
    """``load_tensor(device)``: a device tensor read from a file (a host read, then a host-to-device write)."""
    t = _host_io_tensor(rng, i)
    return Draw([], [t], f'file_path = "gens_{i}.tensorbin"', _desc(t))


def gens_generators() -> dict[str, Callable[[random.Random, int], Draw]]:
    """The generators above, by op name."""
    g: dict[str, Callable[[random.Random, int], Draw]] = {
        "ttnn.prod": gen_prod, "ttnn.clamp_tensor": gen_clamp_tensor, "ttnn.copy": gen_copy, "ttnn.conv1d": gen_conv1d,
        "ttnn.conv_transpose2d": gen_conv_transpose2d, "ttnn.slice_dynamic": gen_slice_dynamic, "ttnn.rand": gen_rand,
        "ttnn.embedding_bw": gen_embedding_bw, "ttnn.sparse_matmul": gen_sparse_matmul, "ttnn.sampling": gen_sampling,
        "ttnn.layer_norm_post_all_gather": gen_layer_norm_post_all_gather,
        "ttnn.dit_rms_norm_unary_fused": gen_dit_rms_norm_unary_fused, "ttnn.topk_router_gpt": gen_topk_router_gpt,
        "ttnn.moe_expert_token_remap": gen_moe_expert_token_remap,
        "ttnn.paged_flash_multi_latent_attention_decode": gen_paged_flash_mla_decode,
        "ttnn.write_tensor": gen_write_tensor, "ttnn.dump_tensor": gen_dump_tensor, "ttnn.load_tensor": gen_load_tensor,
    }
    for n in ("ttnn.rms_norm_pre_all_gather", "ttnn.layer_norm_pre_all_gather"):
        g[n] = gen_pre_all_gather(n)
    for n in ("ttnn.prepare_conv_transpose2d_weights", "ttnn.prepare_conv_transpose2d_bias"):
        g[n] = gen_prepare_conv_transpose2d(n)
    return g
