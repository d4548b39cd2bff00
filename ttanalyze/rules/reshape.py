"""Reshape rules: logical volume (TTA001) and tile reshapes that move data (TTA002).

tt-metal ``ReshapeViewOperation::invoke``
(``ttnn/cpp/ttnn/operations/data_movement/reshape_view/reshape.cpp``, stored copy
at commit 00bbd1e0) takes the zero-cost view path only when the last dim is
unchanged, the sharded/L1 placement is unchanged, and the tensor is row-major or
the second-last dim is unchanged or a multiple of the tile height on both sides;
otherwise a TILE tensor goes through ``reshape_tiled`` (a ReshapeDeviceOperation
that moves every tile).  ``infer_dims_for_reshape``
(``ttnn/core/tensor/tensor_utils.cpp``) raises ``TT_FATAL: Invalid arguments to
reshape`` when the logical volumes differ.
"""

from __future__ import annotations

from math import prod

from .. import fmt
from ..analysis import Analysis
from ..layout import tile_padded_shape
from . import Reporter, rule

TILE = 32


def is_view(src: tuple[int, ...], dst: tuple[int, ...], tiled: bool, same_placement: bool = True) -> bool:
    """tt-metal's ``this_is_view`` test for a device reshape (see module docstring)."""
    last = src[-1] if src else 1, dst[-1] if dst else 1
    second = src[-2] if len(src) >= 2 else 1, dst[-2] if len(dst) >= 2 else 1
    return (last[0] == last[1] and same_placement
            and (not tiled or second[0] == second[1] or (second[0] % TILE == 0 and second[1] % TILE == 0)))


def _placement(lay) -> str:
    return f"{lay.buffer_type} {lay.memory_layout or ''}".strip()


@rule("TTA001")
def reshape_volume(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named("ttnn.reshape"):
        if not op.operands or not op.operands[0].is_tensor:
            continue
        src = op.operands[0].type.shape
        targets = []
        if isinstance(op.attrs.get("shape"), list):
            targets.append(("shape attribute", tuple(op.attrs["shape"])))
        if op.results and op.results[0].is_tensor:
            targets.append(("result type", op.results[0].type.shape))
        for what, dst in targets:
            if prod(dst) != prod(src):
                r.op(op, f"reshape changes the logical volume: {fmt.shape(src)} has {fmt.num(prod(src))} elements, "
                         f"the {what} {fmt.shape(dst)} has {fmt.num(prod(dst))}; tt-metal's infer_dims_for_reshape "
                         f"fails with TT_FATAL 'Invalid arguments to reshape' (new_volume == old_volume)",
                     data={"input_shape": list(src), "target_shape": list(dst), "target": what,
                           "input_volume": prod(src), "target_volume": prod(dst)})
                break


# TTA002 stays silent for reshapes that read and write fewer tiles than this in all (a tile or so each
# side: a scalar, a short vector), settable as "TTA002.min-tiles" in [tool.ttanalyze.thresholds]: the
# rewrites TTA002 offers move about as many tiles as the reshape itself, so there is no data movement
# to save, only the programs' fixed costs.
MIN_TILES_MOVED = 4


@rule("TTA002")
def reshape_data_movement(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named("ttnn.reshape"):
        if not op.operands or not op.results:
            continue
        x, y = op.operands[0], op.results[0]
        if not (x.is_tensor and y.is_tensor) or x.type.layout is None or not x.type.layout.is_tiled:
            continue
        src, dst = x.type.shape, y.type.shape
        if prod(src) != prod(dst):
            continue  # TTA001
        lx, ly = x.type.layout, y.type.layout
        same_placement = ly is None or (lx.is_sharded == ly.is_sharded and lx.buffer_type == ly.buffer_type)
        if is_view(src, dst, True, same_placement):
            continue
        psrc, pdst = tile_padded_shape(src), tile_padded_shape(dst)
        tsrc = prod(psrc) // (TILE * TILE)
        tdst = prod(pdst) // (TILE * TILE)
        if tsrc + tdst < a.thresholds.get("TTA002.min-tiles", MIN_TILES_MOVED):
            continue  # a tile or so each side: nothing a rewrite could save
        tile_bytes = lx.element.bytes
        inner = f"[{', '.join(map(str, src[-2:]))}] -> [{', '.join(map(str, dst[-2:]))}]"
        reasons = []
        if not is_view(src, dst, True):
            reasons.append(f"the last two dims change {inner}")
        if not same_placement:
            reasons.append(f"its placement changes ({_placement(lx)} -> {_placement(ly)})")
        why = " and ".join(reasons)
        r.op(op, f"reshape of a tile tensor needs data movement, not a view: {why}; padded "
                 f"{fmt.shape(psrc)} ({fmt.num(tsrc)} tiles) -> {fmt.shape(pdst)} ({fmt.num(tdst)} tiles): "
                 f"tt-metal's reshape_tiled reads {fmt.nbytes(tsrc * tile_bytes)} and writes "
                 f"{fmt.nbytes(tdst * tile_bytes)}",
             data={"input_shape": list(src), "output_shape": list(dst), "input_padded_shape": list(psrc),
                   "output_padded_shape": list(pdst), "input_tiles": tsrc, "output_tiles": tdst,
                   "bytes_read": tsrc * tile_bytes, "bytes_written": tdst * tile_bytes})
