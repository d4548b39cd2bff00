"""Fixes of replicate padding lowered through a gather (``ttnn.embedding``) of a flattened tensor.

PyTorch ``F.pad(x, ..., mode="replicate")`` reached tt-mlir as a gather along
the padded axis, which the torch frontend lowered through ``ttnn.embedding``
(seed 001, Mochi VAE decoder, ``x`` = ``[1, 768, 4, 60, 106]`` bf16 padded by 2
frames in front along the time axis)::

    to_layout(tile) -> permute [2, 0, 1, 3, 4] -> reshape [4, 4884480]
      -> to_layout(row_major)                      (untilize of one 152,640-tile row)
      -> embedding(indices = clamp(arange(-2, 4), 0, 3), weight)  ([0, 0, 0, 1, 2, 3])
      -> reshape [6, 1, 768, 60, 106] -> permute [1, 2, 0, 3, 4]

The flattening makes every gathered "row" a whole time step of the tensor:
on Wormhole the late-2025 untilize split the 152,640 tiles of the one tile row
over 63 cores and asked 2 x 2,423 tiles (9,924,608 B) of CBs per core, "grow to
9,990,400 B" on core (7,6) (TTA010); the embedding copies 9,768,960 B rows
(in 1 MiB chunks: ``EmbeddingsRMProgramFactory``, measured on the mock with
ttnn 0.81.1), and the row-major reshape back needs 19.5 MB of L1 staging
(TTA013; ttnn 0.81.1 on the mock: TT_FATAL in reshape_rm_program_factory.cpp).

The pattern is recognised from the embedding: its weight is a row-major (or
tile) tensor made by a flattening ``reshape`` (optionally behind a
``to_layout(row_major)``) of a tensor, optionally behind a ``permute`` that
moves the padded axis to the front; its indices are a compile-time constant
(the ops producing them read no tensor argument: they are run by the
reference interpreter, :mod:`ttanalyze.interp`) and form a clamped ramp
``clamp(arange(-lo, T + hi), 0, T - 1)``, i.e. replicate padding of ``lo``
and ``hi`` along that axis.

* ``replicate-pad/slice-concat`` (exact): ``ttnn.slice_static`` of the first
  and last slice of the unflattened tensor along the padded axis, and one
  ``ttnn.concat`` of ``[edge] * lo + [x] + [edge] * hi``.  When the reshape and
  permute after the embedding undo the flattening (and each value is used
  once), the concat produces their result directly; otherwise the concat's
  result is permuted/reshaped to the value the chain's users read.  When the
  unflattened tensor is a tilize of a tensor in the result's layout, the
  slices read that tensor (no tilize or untilize remains).  The index
  subgraph, the wide reshape, the untilize and the embedding go away.
* ``replicate-pad/constant-pad`` (numerics change): ``ttnn.pad`` with a
  constant (zero) instead of the replicated edge (``ttnn.concat`` with a
  ``ttnn.full`` where tt-metal cannot front-pad a tile tensor); the padded
  elements hold the constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import replace as dc_replace
from typing import Callable

import numpy as np

from ..analysis import Analysis
from ..findings import Finding
from ..interp import Interpreter, InterpError
from ..interp.ops import DEVICE
from ..ir.model import Func, Op, TensorType, Value
from ..ir.emit import TensorDesc
from ..ir.rewrite import Rewriter, desc_of
from .catalog import builder
from .layout_fixes import loc_of, op_line
from .model import Fix

MAX_INDEX_OPS = 64
MAX_INDEX_ELEMENTS = 1 << 16


# ---------------------------------------------------------------------------
# The pattern
# ---------------------------------------------------------------------------


@dataclass
class ReplicatePad:
    """A replicate pad lowered through an embedding, as found in the program.

    Attributes:
        embedding: the ``ttnn.embedding``.
        indices: its constant indices (flattened).
        lo, hi: replicated slices added before/after the axis.
        axis: the padded axis of ``x``.
        x: the unflattened tensor the pad reads (before the permute and flattening reshape).
        source: the tensor the fix slices: ``x``, or the row-major tensor a
            ``to_layout`` tilized into ``x`` when the result is row major.
        target: the value the fix produces (the permute back's result when the
            chain after the embedding undoes the flattening, else the latest
            value of that chain it can rebuild).
        target_op: the op producing ``target`` (replaced).
        up: the ops from ``source``'s consumer to the embedding's weight.
        down: the ops after the embedding up to ``target_op`` (included).
        index_ops: the ops computing the indices.
        perm: the permutation that moved ``axis`` to the front (identity when none).
    """

    embedding: Op
    indices: np.ndarray
    lo: int
    hi: int
    axis: int
    x: Value
    source: Value
    target: Value
    target_op: Op
    up: list[Op]
    down: list[Op]
    index_ops: list[Op]
    perm: tuple[int, ...]

    @property
    def ops(self) -> list[Op]:
        """Every op of the pattern (finding sites)."""
        return [*self.up, self.embedding, *self.down]

    @property
    def padded_shape(self) -> tuple[int, ...]:
        shape = list(self.x.type.shape)
        shape[self.axis] += self.lo + self.hi
        return tuple(shape)

    @property
    def padded_elements(self) -> int:
        """Elements of the result that are copies of an edge slice."""
        shape = list(self.x.type.shape)
        shape[self.axis] = self.lo + self.hi
        return int(np.prod(shape))


def _tensor(v: Value) -> TensorType | None:
    return v.type if isinstance(v.type, TensorType) and v.type.layout is not None else None


def _users(v: Value) -> list[Op]:
    return [u for u in v.users if u.name != "ttnn.deallocate"]


def _perm(op: Op) -> tuple[int, ...]:
    return tuple(int(d) % len(op.operands[0].type.shape) for d in op.attrs.get("permutation", ()))


def const_value(v: Value, program) -> np.ndarray | None:
    """The value of ``v`` when the ops producing it read no tensor argument of their function (run by
    the reference interpreter on their own), else None (also for more than :data:`MAX_INDEX_OPS` ops, or
    results of more than :data:`MAX_INDEX_ELEMENTS` elements)."""
    if v.producer is None:
        return None
    seen: set[int] = set()
    dev_args: list[Value] = []
    stack = [v]
    while stack:
        x = stack.pop()
        p = x.producer
        if p is None:
            if isinstance(x.type, TensorType):
                return None  # a function argument
            if all(x is not d for d in dev_args):
                dev_args.append(x)
            continue
        if id(p) in seen:
            continue
        seen.add(id(p))
        if len(seen) > MAX_INDEX_OPS:
            return None
        stack.extend(p.operands)
    func = v.producer.func
    ops = [o for o in func.ops if id(o) in seen]
    if any(int(np.prod(r.type.shape)) > MAX_INDEX_ELEMENTS for o in ops for r in o.results
           if isinstance(r.type, TensorType)):
        return None
    sub = Func(name=f"{func.name}.indices", args=dev_args, ops=ops, returns=[v], kind="func", pos=func.pos)
    try:
        return np.asarray(Interpreter(program).execute(sub, [DEVICE] * len(dev_args))[0])
    except (InterpError, ValueError, KeyError, TypeError, IndexError):
        return None


def index_ops(v: Value) -> list[Op]:
    """The ops computing ``v`` (its backward slice), in program order."""
    seen: dict[int, Op] = {}
    stack = [v]
    while stack:
        x = stack.pop()
        p = x.producer
        if p is None or id(p) in seen:
            continue
        seen[id(p)] = p
        stack.extend(p.operands)
    return sorted(seen.values(), key=lambda o: o.index)


def clamped_ramp(idx: np.ndarray, rows: int) -> tuple[int, int] | None:
    """``(lo, hi)`` when ``idx == clip(arange(-lo, rows + hi), 0, rows - 1)`` with ``lo + hi > 0``, else None."""
    n = idx.size
    extra = n - rows
    if extra <= 0 or rows < 1:
        return None
    for lo in range(extra + 1):
        if np.array_equal(idx, np.clip(np.arange(-lo, rows + extra - lo), 0, rows - 1)):
            return lo, extra - lo
    return None


def _inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


def match(emb: Op, a: Analysis) -> ReplicatePad | None:
    """The replicate pad of ``emb`` (see the module docstring), or None."""
    if emb.name != "ttnn.embedding" or len(emb.operands) < 2 or _tensor(emb.results[0]) is None:
        return None
    idx_v, w = emb.operands[0], emb.operands[1]
    up: list[Op] = []
    v = w
    p = v.producer
    if p is not None and p.name == "ttnn.to_layout" and _tensor(p.operands[0]) is not None:
        up.append(p)
        v = p.operands[0]
        p = v.producer
    if p is None or p.name != "ttnn.reshape" or _tensor(p.operands[0]) is None:
        return None
    up.append(p)
    v = p.operands[0]
    flat = tuple(w.type.shape)
    if len(flat) != 2:
        return None
    p = v.producer
    perm: tuple[int, ...]
    if p is not None and p.name == "ttnn.permute" and _tensor(p.operands[0]) is not None:
        perm = _perm(p)
        up.append(p)
        x = p.operands[0]
    else:
        x = v
        perm = tuple(range(len(x.type.shape)))
    xs = tuple(x.type.shape)
    axis = perm[0]
    if list(perm[1:]) != sorted(perm[1:]) or flat != (xs[axis], int(np.prod(xs)) // xs[axis]):
        return None
    idx = const_value(idx_v, a.program)
    if idx is None or idx.dtype.kind == "f" and not np.all(idx == np.round(idx)):
        return None
    idx = idx.astype(np.int64).reshape(-1)
    pads = clamped_ramp(idx, xs[axis])
    if pads is None:
        return None
    lo, hi = pads
    n = idx.size
    # After the embedding: reshape to the permuted padded shape, permute back.
    down: list[Op] = []
    target, target_op = emb.results[0], emb
    permuted = (n, *[xs[d] for d in perm[1:]])
    g = emb.results[0]
    users = _users(g)
    if len(users) == 1 and users[0].name == "ttnn.reshape" and tuple(users[0].results[0].type.shape) == permuted:
        r = users[0]
        down.append(r)
        target, target_op = r.results[0], r
        ru = _users(r.results[0])
        if len(ru) == 1 and ru[0].name == "ttnn.permute" and _perm(ru[0]) == _inverse(perm):
            down.append(ru[0])
            target, target_op = ru[0].results[0], ru[0]
    if _tensor(target) is None or target.type.layout.dtype.name != x.type.layout.dtype.name:
        return None
    source = x
    tl = x.producer
    if (tl is not None and tl.name == "ttnn.to_layout" and _tensor(tl.operands[0]) is not None
            and _users(x) == [up[-1]] and _tensor(tl.operands[0]).layout.is_tiled == target.type.layout.is_tiled
            and tl.operands[0].type.layout.dtype.name == x.type.layout.dtype.name
            and tl.operands[0].type.layout.buffer_type != "system_memory"):
        up.append(tl)
        source = tl.operands[0]
    up.reverse()
    return ReplicatePad(emb, idx, lo, hi, axis, x, source, target, target_op, up, down, index_ops(idx_v), perm)


def removable(pat: ReplicatePad) -> list[Op]:
    """The pattern's ops whose results only the pattern reads (removed by a fix), in program order.

    The embedding and the ops after it up to ``target_op`` are always replaced;
    an op before them goes when every user of its results goes.
    """
    gone: set[int] = {id(o) for o in [pat.embedding, *pat.down]}
    cands = sorted({id(o): o for o in [*pat.up, *pat.index_ops]}.values(), key=lambda o: -o.index)
    for op in cands:
        if op.name == "ttnn.get_device" or not op.results:
            continue
        if all(id(u) in gone for r in op.results for u in _users(r)) and all(
                r is not pat.target for r in op.results):
            gone.add(id(op))
    ops = [o for o in [*pat.up, *pat.index_ops, pat.embedding, *pat.down] if id(o) in gone]
    return sorted({id(o): o for o in ops}.values(), key=lambda o: o.index)


# ---------------------------------------------------------------------------
# Rewrites
# ---------------------------------------------------------------------------


def _i32_list(values) -> str:
    return "[" + ", ".join(f"{int(v)} : i32" for v in values) + "]"


def _with(desc: TensorDesc, **changes) -> TensorDesc:
    return dc_replace(desc, **changes)


def _finish_steps(pat: ReplicatePad, desc: TensorDesc) -> list[tuple[str, str, TensorDesc]]:
    """The ops (name, attributes, result) turning the padded tensor (``x``'s dim order, ``desc``) into
    ``pat.target``; the last one produces the target (empty: the padding op does)."""
    steps: list[tuple[str, str, TensorDesc]] = []
    target = pat.target
    if not (pat.down and pat.down[-1].name == "ttnn.permute" and pat.target_op is pat.down[-1]):
        pshape = tuple(pat.padded_shape[d] for d in pat.perm)
        if pat.perm != tuple(range(len(pat.perm))):
            desc = _with(desc, shape=pshape)
            steps.append(("ttnn.permute", "<{permutation = array<i64: " + ", ".join(map(str, pat.perm)) + ">}>",
                          desc))
        if tuple(target.type.shape) != pshape:
            desc = _with(desc, shape=tuple(target.type.shape))
            steps.append(("ttnn.reshape", "<{shape = " + _i32_list(target.type.shape) + "}>", desc))
    want = "tile" if target.type.layout.is_tiled else "row_major"
    if desc.layout != want:
        desc = _with(desc, layout=want)
        steps.append(("ttnn.to_layout", f"<{{layout = #ttnn.layout<{want}>}}>", desc))
    return steps


def _slice_line(name: str, src: str, src_type: str, shape: tuple[int, ...], axis: int, begin: int,
                out_type: str, loc: str) -> str:
    begins, ends = [0] * len(shape), list(shape)
    begins[axis], ends[axis] = begin, begin + 1
    attrs = (f"<{{begins = {_i32_list(begins)}, ends = {_i32_list(ends)}, "
             f"step = {_i32_list([1] * len(shape))}}}>")
    return op_line(name, "ttnn.slice_static", [src], attrs, [src_type], out_type, loc)


# build(rw, pat, src name, src type, out name, out type, loc) -> lines of the padding op(s)
PadBuilder = Callable[[Rewriter, ReplicatePad, str, str, str, str, str], list[str]]


def _slice_concat(rw: Rewriter, pat: ReplicatePad, src: str, src_type: str, out: str, out_type: str,
                  loc: str) -> list[str]:
    """``slice_static`` of the edge slice(s) and ``concat([edge] * lo + [x] + [edge] * hi)``."""
    shape = tuple(pat.source.type.shape)
    edge = list(shape)
    edge[pat.axis] = 1
    edge_type = rw.type_text(_with(desc_of(pat.source.type), shape=tuple(edge)))
    lines, parts = [], []
    if pat.lo:
        first = rw.fresh_value()
        lines.append(_slice_line(first, src, src_type, shape, pat.axis, 0, edge_type, loc))
        parts += [first] * pat.lo
    parts.append(src)
    if pat.hi:
        last = rw.fresh_value()
        lines.append(_slice_line(last, src, src_type, shape, pat.axis, shape[pat.axis] - 1, edge_type, loc))
        parts += [last] * pat.hi
    types = [edge_type] * pat.lo + [src_type] + [edge_type] * pat.hi
    lines.append(op_line(out, "ttnn.concat", parts, f"<{{dim = {pat.axis} : si32}}>", types, out_type, loc))
    return lines


def _constant_pad(value: float, device: Value | None) -> PadBuilder:
    """``ttnn.pad`` with ``value``; ``concat`` with ``ttnn.full`` where ttnn cannot front-pad a tile tensor."""
    def build(rw: Rewriter, pat: ReplicatePad, src: str, src_type: str, out: str, out_type: str,
              loc: str) -> list[str]:
        rank = len(pat.padded_shape)
        if not pat.source.type.layout.is_tiled or pat.lo == 0:
            padding = [0] * (2 * rank)
            padding[2 * pat.axis], padding[2 * pat.axis + 1] = pat.lo, pat.hi
            attrs = (f"<{{padding = array<i32: {', '.join(map(str, padding))}>, use_multicore = true, "
                     f"value = {value:.6e} : f32}}>")
            return [op_line(out, "ttnn.pad", [src], attrs, [src_type], out_type, loc)]
        lines, names, types = [], [], []
        for n, before in ((pat.lo, True), (pat.hi, False)):
            if n == 0:
                continue
            shape = list(pat.source.type.shape)
            shape[pat.axis] = n
            t = rw.type_text(_with(desc_of(pat.source.type), shape=tuple(shape)))
            f = rw.fresh_value()
            lines.append(op_line(f, "ttnn.full", [rw.name(device)],
                                 f"<{{fill_value = {value:.6e} : f32, shape = #ttnn.shape<"
                                 f"{'x'.join(map(str, shape))}>}}>", ["!ttnn.device"], t, loc))
            names.insert(0 if before else len(names), f)
            types.insert(0 if before else len(types), t)
            if before:
                names.append(src)
                types.append(src_type)
        lines.append(op_line(out, "ttnn.concat", names, f"<{{dim = {pat.axis} : si32}}>", types, out_type, loc))
        return lines
    return build


def _rewrite(pat: ReplicatePad, build: PadBuilder) -> Callable[[Rewriter], None]:
    """A rewrite replacing the pattern's removable ops by the padding op(s) ``build`` makes from
    ``pat.source`` and the ops turning its result into ``pat.target`` (same name and type).

    The new ops go where the source is first read (it may be deallocated after
    its last read); the other removed ops and the deallocations of their
    results are deleted.
    """
    removed = removable(pat)

    def rewrite(rw: Rewriter) -> None:
        src = pat.source
        loc = loc_of(rw, pat.embedding)
        steps = _finish_steps(pat, desc_of(src.type, shape=pat.padded_shape))
        final, final_type = rw.name(pat.target), rw.value_type(pat.target)
        if steps:
            pad_name = rw.fresh_value()
            pad_type = rw.type_text(desc_of(src.type, shape=pat.padded_shape))
        else:
            pad_name, pad_type = final, final_type
        lines = build(rw, pat, rw.name(src), rw.value_type(src), pad_name, pad_type, loc)
        cur, cur_type = pad_name, pad_type
        for i, (name, attrs, desc) in enumerate(steps):
            last = i == len(steps) - 1
            nxt = final if last else rw.fresh_value()
            t = final_type if last else rw.type_text(desc)
            lines.append(op_line(nxt, name, [cur], attrs, [cur_type], t, loc))
            cur, cur_type = nxt, t
        gone = {id(o) for o in removed}
        anchor = _anchor(pat)
        if id(anchor) in gone:
            rw.replace(anchor, lines)
        else:
            rw.insert_after(anchor, lines)
        for op in removed:
            if op is not anchor:
                rw.replace(op, [])
            for r in op.results:
                if r is pat.target:
                    continue
                for d in r.users:
                    if d.name == "ttnn.deallocate":
                        rw.replace(d, [])
    return rewrite


def _anchor(pat: ReplicatePad) -> Op:
    """The op at (or after) which the new ops go: the first reader of the source."""
    readers = sorted(_users(pat.source), key=lambda o: o.index)
    return readers[0] if readers else pat.target_op


def _device_value(pat: ReplicatePad) -> Value | None:
    """A ``!ttnn.device`` value defined before the new ops (for ``ttnn.full``), or None."""
    anchor = _anchor(pat)
    for op in pat.embedding.func.ops:
        if op.name == "ttnn.get_device" and op.index < anchor.index:
            return op.results[0]
    return None


# ---------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------


def patterns(a: Analysis) -> list[ReplicatePad]:
    """Every replicate pad lowered through an embedding in the program."""
    out = []
    for op in a.program.ops:
        if op.name == "ttnn.embedding":
            pat = match(op, a)
            if pat is not None:
                out.append(pat)
    return out


def _describe(pat: ReplicatePad, a: Analysis) -> dict:
    """The pattern's numbers, for ``Fix.details``; ``removed_latency_ns_lower_bound`` sums the predicted
    time of the removed ops the cost model knows (``removed_unknown_cost`` names the others)."""
    from ..cost.ir import program_cost

    removed = removable(pat)
    ids = {id(o) for o in removed}
    try:
        costs = [c for c in program_cost(a).ops if id(c.op) in ids]
    except (ValueError, KeyError):
        costs = []
    return {"axis": pat.axis, "lo": pat.lo, "hi": pat.hi, "indices": pat.indices.tolist(),
            "input_shape": list(pat.x.type.shape), "padded_shape": list(pat.padded_shape),
            "flattened_shape": list(pat.embedding.operands[1].type.shape),
            "padded_elements": pat.padded_elements, "removed_lines": [o.pos.line for o in removed],
            "removed_latency_ns_lower_bound": sum(c.ns for c in costs if c.status == "costed"),
            "removed_unknown_cost": [c.op.name for c in costs if c.status == "unknown"]}


SEED = ("Seed 001 (Mochi VAE decoder, F.pad(x, (0, 0, 0, 0, 2, 0), mode='replicate') of a 1x768x4x60x106 bf16 "
        "tensor): its [4, 4884480] flattening is one 152,640-tile row whose untilize (late-2025 tt-metal) gave 62 "
        "cores 2 x 2,423 tiles = 9,924,608 B of CBs each and grew to 9,990,400 B on core (7,6), beyond the "
        "1,499,136 B of Wormhole L1")


@builder("TTA010", "TTA013", "TTA002")
def replicate_pad_fixes(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """Fixes of a finding raised on an op of a replicate pad lowered through an embedding: slice + concat
    (exact), or a constant pad (zeros instead of the edge)."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    if op.name not in ("ttnn.to_layout", "ttnn.reshape", "ttnn.permute", "ttnn.embedding"):
        return []
    pat = next((p for p in patterns(a) if any(o is op for o in p.ops)), None)
    if pat is None:
        return []
    d = _describe(pat, a)
    flat = d["flattened_shape"]
    shape_txt = "x".join(map(str, d["input_shape"]))
    parts = "[" + ", ".join(["first"] * pat.lo + ["x"] + ["last"] * pat.hi) + "]"
    cost = (f" The removed ops the cost model knows take {d['removed_latency_ns_lower_bound'] / 1e6:,.1f} ms"
            + (f" ({', '.join(d['removed_unknown_cost'])} not costed)" if d["removed_unknown_cost"] else "") + ".")
    what = (f"The embedding at line {pat.embedding.pos.line} gathers rows {d['indices']} of the "
            f"{flat[0]}x{flat[1]} flattening of {shape_txt} along dim {pat.axis}: a replicate pad by "
            f"({pat.lo}, {pat.hi})")
    fixes = [Fix(
        "replicate-pad/slice-concat",
        f"slice the edge of dim {pat.axis} of the {shape_txt} tensor and concat {parts} instead of the gather",
        f"{what}. The gather only copies edge slices: ttnn.slice_static of the first/last slice and one "
        f"ttnn.concat along dim {pat.axis} build the padded tensor without flattening it, so the wide "
        f"reshape, its untilize, the embedding of {flat[1]:,}-element rows and the reshape back are gone "
        f"(lines {d['removed_lines']}).{cost} {SEED}.",
        rewrite=_rewrite(pat, _slice_concat), details=d)]
    device = _device_value(pat)
    if not (pat.source.type.layout.is_tiled and pat.lo and device is None):
        fixes.append(Fix(
            "replicate-pad/constant-pad",
            f"pad dim {pat.axis} of the {shape_txt} tensor by ({pat.lo}, {pat.hi}) with zeros",
            f"{what}. A constant pad is one ttnn.pad (a concat with ttnn.full where ttnn cannot front-pad a "
            f"tile tensor; the seed's recommended workaround: mode='constant', value=0) with no flattening, "
            f"but the {pat.padded_elements:,} padded elements hold 0 instead of the replicated edge (a causal "
            f"conv's first frames see zeros): a model change, not a compiler fix.{cost} {SEED}.",
            numerics=f"zero instead of the replicated edge: {pat.padded_elements:,} elements "
                     f"({pat.lo + pat.hi} slice(s) of dim {pat.axis}) differ",
            rewrite=_rewrite(pat, _constant_pad(0.0, device)), details=dict(d, value=0.0)))
    return fixes
