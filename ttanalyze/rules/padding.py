"""TTA003: permute/reshape chains that leave a tile tensor mostly padding.

A permute or reshape that brings small dims into the last two positions of a
TILE tensor pads each of them to 32: the tensor's tiles then hold padding that
every later op reads and writes.  Reported when padding is at least
``MIN_PCT`` of the physical volume and at least ``MIN_TILES`` tiles, so that
inherently small tensors (a 32x10 output) stay quiet.  Both are settable in
``[tool.ttanalyze.thresholds]`` (``"TTA003.min-pct"``, ``"TTA003.min-tiles"``).
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from ..findings import Note
from ..ir.model import Op
from . import Reporter, rule

MIN_PCT = 20.0
MIN_TILES = 32
CHAIN_OPS = ("ttnn.permute", "ttnn.reshape")


def chain_of(op: Op) -> list[Op]:
    """The run of permute/reshape/to_layout ops ending at ``op``, oldest first."""
    chain = [op]
    cur = op
    while cur.operands and cur.operands[0].producer is not None and cur.operands[0].producer.name in (*CHAIN_OPS, "ttnn.to_layout"):
        cur = cur.operands[0].producer
        chain.append(cur)
    return list(reversed(chain))


@rule("TTA003")
def padded_inner_dims(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named(*CHAIN_OPS):
        if not op.results:
            continue
        v = op.results[0]
        info = a.infos.get(v)
        if info is None or info.layout != "tile":
            continue
        waste = info.waste_tiles
        if (info.padding_pct < a.thresholds.get("TTA003.min-pct", MIN_PCT)
                or waste < a.thresholds.get("TTA003.min-tiles", MIN_TILES)):
            continue
        s, p = info.logical_shape, info.padded_shape
        padded_dims = ", ".join(f"{x} -> {y}" for x, y in zip(s[-2:], p[-2:]) if x != y) if len(s) >= 2 else f"{s[0]} -> {p[-1]}"
        chain = chain_of(op)
        notes = [Note(c.pos, f"{c.name} -> {fmt.shape(c.results[0].type.shape)}") for c in chain[:-1] if c.results and c.results[0].is_tensor]
        tile_bytes = v.type.layout.element.bytes
        r.op(op, f"{op.short_name} leaves tile tensor {v.name} {fmt.shape(s)} with padded inner dims "
                 f"({padded_dims}): {fmt.num(info.physical_tiles)} tiles hold "
                 f"{fmt.num(info.logical_volume / 1024)} tiles of data; {fmt.num(waste)} tiles "
                 f"({fmt.nbytes(waste * tile_bytes)}) are padding, {fmt.pct(info.padding_pct)} of its elements",
             notes=notes,
             data={"value": v.name, "logical_shape": list(s), "padded_shape": list(p),
                   "physical_tiles": info.physical_tiles, "logical_tiles": info.logical_volume / 1024,
                   "waste_tiles": waste, "waste_bytes": waste * tile_bytes, "padding_pct": round(info.padding_pct, 2),
                   "chain": [c.name for c in chain]})
