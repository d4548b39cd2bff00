"""Fixes of layout findings: a tile reshape that moves data (TTA002), a wide untilize whose CBs overflow (TTA010).

* ``reshape/row-major-round-trip``: ``to_layout(row_major) -> reshape ->
  to_layout(tile)``.  A row-major reshape that keeps the last dim is a view in
  tt-metal (``reshape_view/reshape.cpp``, ``ReshapeViewOperation::invoke``),
  and untilize/tilize stream tile rows over many cores, where
  ``reshape_tiled`` gathers faces one segment at a time.
* ``reshape/before-tilize``: when the reshape's input is a chain of
  layout-agnostic data movement (permute, transpose, reshape) fed by a
  ``to_layout`` tilize of a row-major tensor, run the chain and the reshape in
  row major and tilize once at the end (the seed-000 pattern: ``to_layout`` ->
  ``permute`` -> ``reshape``); the padded tile tensor of the intermediate
  shape is never built.
* ``untilize/before-reshape``: a ``to_layout(row_major)`` of a wide tile tensor
  that a reshape just flattened (``[4, 4884480]``: one tile row of 152,640
  tiles) untilizes the reshape's input instead (its width folded into height:
  few tiles per row, many rows over the cores) and reshapes in row major.

All three are pure data movement: the values are unchanged (``exact``).
"""

from __future__ import annotations

import re

from ..analysis import Analysis
from ..findings import Finding
from ..ir.model import Op, TensorType, Value
from ..ir.rewrite import Rewriter, desc_of
from .catalog import builder
from .model import Fix

_LOC = re.compile(r"\s(loc\(.*\))\s*$")
LAYOUT_AGNOSTIC = ("ttnn.permute", "ttnn.transpose", "ttnn.reshape")


def loc_of(rw: Rewriter, op: Op) -> str:
    """The ``loc(...)`` text at the end of ``op``'s last line ('' when absent)."""
    _, last = rw.span(op)
    m = _LOC.search(rw.lines[last])
    return m.group(1) if m else ""


def attrs_of(rw: Rewriter, op: Op) -> str:
    """The ``<{...}>`` property dictionary of ``op``'s text ('' when absent)."""
    first, last = rw.span(op)
    text = " ".join(rw.lines[first:last + 1])
    start = text.find("<{")
    if start < 0:
        return ""
    depth = 0
    for i in range(start, len(text)):
        if text.startswith("<{", i):
            depth += 1
        elif text.startswith("}>", i):
            depth -= 1
            if depth == 0:
                return text[start:i + 2]
    return ""


def op_line(result: str, name: str, operands: list[str], attrs: str, in_types: list[str], out_type: str,
            loc: str) -> str:
    """One op in generic form: ``%r = "ttnn.x"(%a) <{...}> : (T) -> U loc(...)``."""
    a = f" {attrs}" if attrs else ""
    lc = f" {loc}" if loc else ""
    return f'{result} = "{name}"({", ".join(operands)}){a} : ({", ".join(in_types)}) -> {out_type}{lc}'


def _deallocs(v: Value) -> list[Op]:
    return [u for u in v.users if u.name == "ttnn.deallocate"]


def dealloc_line(rw: Rewriter, d: Op, name: str, type_text: str) -> str:
    """A ``ttnn.deallocate`` of ``name`` (now of type ``type_text``) with ``d``'s attributes and location."""
    a = attrs_of(rw, d)
    loc = loc_of(rw, d)
    return f'"ttnn.deallocate"({name}){" " + a if a else ""} : ({type_text}) -> (){" " + loc if loc else ""}'


def _tensor(v: Value) -> TensorType | None:
    return v.type if isinstance(v.type, TensorType) and v.type.layout is not None else None


def _reshape_attrs(shape: tuple[int, ...]) -> str:
    return "<{shape = [" + ", ".join(f"{d} : i32" for d in shape) + "]}>"


def _round_trip(op: Op) -> Fix:
    def rewrite(rw: Rewriter) -> None:
        src, res = op.operands[0], op.results[0]
        loc = loc_of(rw, op)
        rm_in = rw.type_text(desc_of(src.type, layout="row_major"))
        rm_out = rw.type_text(desc_of(res.type, layout="row_major"))
        a, b = rw.fresh_value(), rw.fresh_value()
        rw.replace(op, [
            op_line(a, "ttnn.to_layout", [rw.name(src)], "", [rw.value_type(src)], rm_in, loc),
            op_line(b, "ttnn.reshape", [a], _reshape_attrs(tuple(res.type.shape)), [rm_in], rm_out, loc),
            op_line(rw.name(res), "ttnn.to_layout", [b], "", [rm_out], rw.value_type(res), loc),
        ])
    return Fix("reshape/row-major-round-trip", "untilize, reshape in row major, tilize again",
               "a row-major reshape that keeps the last dim is a view (reshape_view/reshape.cpp); untilize and "
               "tilize stream tile rows over many cores instead of reshape_tiled's face-by-face copy",
               rewrite=rewrite)


def _tilize_chain(op: Op) -> list[Op] | None:
    """The ops from a row-major -> tile ``to_layout`` to ``op``'s operand, each used once, else None."""
    chain: list[Op] = []
    v = op.operands[0]
    while v.producer is not None:
        p = v.producer
        users = [u for u in v.users if u.name != "ttnn.deallocate"]
        if len(users) != 1:
            return None
        chain.append(p)
        if p.name == "ttnn.to_layout":
            src = _tensor(p.operands[0])
            if src is None or src.layout.is_tiled or not _tensor(p.results[0]).layout.is_tiled:
                return None
            return list(reversed(chain))
        if p.name not in LAYOUT_AGNOSTIC or _tensor(p.results[0]) is None:
            return None
        v = p.operands[0]
    return None


def _before_tilize(op: Op, chain: list[Op]) -> Fix:
    def rewrite(rw: Rewriter) -> None:
        tilize = chain[0]
        cur = rw.name(tilize.operands[0])
        cur_type = rw.value_type(tilize.operands[0])
        rw.replace(tilize, [])
        for d in _deallocs(tilize.results[0]):
            rw.replace(d, [])
        # The row-major input now feeds the chain: a deallocate of it before the chain's first op moves after it.
        first_user = chain[1] if len(chain) > 1 else op
        src = tilize.operands[0]
        for d in _deallocs(src):
            if d.index < first_user.index:
                rw.replace(d, [])
                rw.insert_after(first_user, [dealloc_line(rw, d, cur, cur_type)])
        for p in [*chain[1:], op]:
            out = p.results[0]
            rm = rw.type_text(desc_of(out.type, layout="row_major"))
            name = rw.name(out) if p is not op else rw.fresh_value()
            if p is not op:
                for d in _deallocs(out):
                    rw.replace(d, [dealloc_line(rw, d, name, rm)])
            rw.replace(p, [op_line(name, p.name, [cur], attrs_of(rw, p), [cur_type], rm, loc_of(rw, p))]
                       + ([op_line(rw.name(out), "ttnn.to_layout", [name], "", [rm], rw.value_type(out), loc_of(rw, op))]
                          if p is op else []))
            cur, cur_type = name, rm
    names = " -> ".join(p.name.removeprefix("ttnn.") for p in [*chain[1:], op])
    return Fix("reshape/before-tilize", f"run {names} in row major and tilize after the reshape",
               f"the {chain[0].name} at line {chain[0].pos.line} tilizes a row-major tensor only for the data "
               "movement that follows; in row major the reshape keeps rows whole and one tilize of the final "
               "shape replaces the padded intermediate tile tensors",
               rewrite=rewrite, details={"chain_lines": [p.pos.line for p in chain]})


@builder("TTA002")
def reshape_fixes(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """Fixes of a tile reshape that moves data: the row-major round trip, and the reorder when legal."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    if op.name != "ttnn.reshape" or _tensor(op.operands[0]) is None or _tensor(op.results[0]) is None:
        return []
    fixes = [_round_trip(op)]
    chain = _tilize_chain(op)
    if chain:
        fixes.append(_before_tilize(op, chain))
    return fixes


def _untilize_before_reshape(op: Op, reshape: Op) -> Fix:
    def rewrite(rw: Rewriter) -> None:
        src, out = reshape.operands[0], op.results[0]
        rm_src = rw.type_text(desc_of(src.type, layout="row_major", memory_layout="interleaved",
                                      buffer_type=out.type.layout.buffer_type))
        u = rw.fresh_value()
        rw.replace(op, [
            op_line(u, "ttnn.to_layout", [rw.name(src)], "", [rw.value_type(src)], rm_src, loc_of(rw, op)),
            op_line(rw.name(out), "ttnn.reshape", [u], _reshape_attrs(tuple(out.type.shape)), [rm_src],
                    rw.value_type(out), loc_of(rw, op)),
        ])
    w = reshape.operands[0].type.shape
    return Fix("untilize/before-reshape", f"untilize the {'x'.join(map(str, w))} tensor before the reshape, then "
               "reshape in row major",
               "the flattened tensor is one very wide tile row; untilizing before the reshape folds that width into "
               "height (a few tiles per row, many rows split over the cores), so each core's CBs hold a few tiles",
               rewrite=rewrite, details={"reshape_line": reshape.pos.line})


@builder("TTA010")
def untilize_fixes(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """Fixes of a ``to_layout(row_major)`` whose untilize CBs overflow: untilize before the flattening reshape."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    if op.name != "ttnn.to_layout" or _tensor(op.operands[0]) is None or _tensor(op.results[0]) is None:
        return []
    if not op.operands[0].type.layout.is_tiled or op.results[0].type.layout.is_tiled:
        return []
    p = op.operands[0].producer
    if p is None or p.name != "ttnn.reshape" or len([u for u in op.operands[0].users
                                                     if u.name != "ttnn.deallocate"]) != 1:
        return []
    if _tensor(p.operands[0]) is None:
        return []
    return [_untilize_before_reshape(op, p)]


@builder("TTA006")
def rebuild_encoding(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """A value whose ``#ttnn.ttnn_layout`` disagrees with its logical shape: the encoding rebuilt from the
    shape, keeping layout, dtype, buffer type, memory layout and grid (tt-mlir's
    ``TTNNLayoutAttr::Builder``, :func:`ttanalyze.ir.emit.encoding_text`), at the definition and every use."""
    name = f.data.get("value")
    if f.op_index is None or not name:
        return []
    op = a.program.ops[f.op_index]
    v = next((r for r in op.results if r.name == name), None)
    if v is None or _tensor(v) is None:
        return []

    def rewrite(rw: Rewriter) -> None:
        rw.retype(v, rw.type_text(desc_of(v.type)))
    ir, want = f.data.get("ir_memref"), f.data.get("expected_memref")
    return [Fix("layout/rebuild-encoding", f"rebuild the encoding of {name} from its logical shape"
                + (f" (memref {'x'.join(map(str, ir))} -> {'x'.join(map(str, want))})" if ir and want else ""),
                "the runtime allocates and reads the tensor by the memref the encoding declares; one that disagrees "
                "with the logical shape makes tt-mlir's layout passes and the runtime size the buffer differently",
                rewrite=rewrite)]


@builder("TTA010")
def argmax_tile_input(f: Finding, a: Analysis, findings: list[Finding]) -> list[Fix]:
    """An argmax of a row-major tensor whose multi-core CBs overflow: tilize its input first.

    ttnn 0.81.1 runs a row-major argmax on ``ArgMaxMultiCoreProgramFactory``, whose
    CBs hold whole rows; a TILE input over H or W runs
    ``ArgMaxSingleCoreProgramFactory`` with one input tile and one output page
    (``argmax/device/``, measured on the mock P150).  The indices are the same.
    """
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    x = op.operands[0] if op.operands else None
    if op.name != "ttnn.argmax" or x is None or _tensor(x) is None or x.type.layout.is_tiled:
        return []
    if x.type.layout.dtype.name not in ("bf16", "f32"):
        return []

    def rewrite(rw: Rewriter) -> None:
        tiled = rw.type_text(desc_of(x.type, layout="tile"))
        t = rw.fresh_value()
        rw.insert_before(op, [op_line(t, "ttnn.to_layout", [rw.name(x)], "", [rw.value_type(x)], tiled,
                                      loc_of(rw, op))])
        rw.rewrite_operands(op, {0: (t, tiled)})
    return [Fix("argmax/tile-input", "tilize the input and run the single-core TILE argmax",
                "the row-major factory's CBs hold whole rows on each core; the TILE factory streams one tile at a "
                "time on one core (slower, but its CBs are a tile and an output page)", rewrite=rewrite)]
