"""Data-movement ops: reshape, permute, transpose, slice, concat, pad, repeat, repeat_interleave, embedding.

Shape rules follow the op verifiers in tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp``
(19c86fca): ``ReshapeOp::verify`` (same logical volume), ``PermuteOp::verify``,
``SliceStaticOp::verify`` (``ceil((end - begin) / step)`` per dim, negative
indices counted from the end), ``ConcatOp::verify``, ``PadOp::verify``
(``padding`` = [low0, high0, low1, high1, ...]), ``RepeatInterleaveOp::verify``,
``RepeatOp`` and ``EmbeddingOp::verify`` (result = indices shape + [embedding dim]).

Programs (circular buffers, :mod:`ttanalyze.ops.cb`) and device outputs
(:mod:`ttanalyze.ops.spec`) follow tt-metal d80d9482, the commit of ttnn 0.81.1,
whose host sources ship inside the ttnn 0.81.1 wheel
(``ttnn/cpp/ttnn/operations/data_movement/**``); every number was checked against
NO_DISPATCH graph captures on a mock Blackhole P150 (the op-level campaign,
``measurements/opdiff/results.jsonl.gz``, rerun with ``benchmarks/opdiff.py``).
The ops are replayed the way the tt-mlir runtime calls them: the declared result's
memory config is passed as ``memory_config`` (``ttnn.reshape(x, shape,
memory_config=...)``, ``ttnn.permute(x, dims, memory_config=...)`` ...).

Metal 2.0 factories (most of these) allocate *dataflow buffers* (DFBs) in spec
order and *scratchpads* beside them; a :class:`~ttanalyze.ops.cb.CB` here is one
DFB (``index`` = its position in the factory's spec) and scratchpads go to
``ProgramModel.extra_l1_per_core``.  DFBs and scratchpads sit on the
``CoreRangeSet::merge`` of the work split's cores (:func:`_program`,
:func:`~ttanalyze.ops.work_split.merge`); the legacy-CB factories
(ConcatTiledUnaligned, RepeatCodegen, RepeatInterleaveCodegen) keep the ranges
their split returns.  Range lists, order included, are recorded per instance in the
op-level campaign's results (``measurements/opdiff/results.jsonl.gz``).  One IR op can run several device programs
(e.g. ``concat`` of tile tensors padded on the concat dim: untilize each input,
concat row-major, tilize back): the op's CB model returns them all, in order;
its untilize / tilize steps are the layout-conversion models
(:mod:`ttanalyze.ops.layout_conversion`: ``uwu_program``, ``twvp_program``,
``tilize_program``).  A reshape that ttnn performs as a view builds no program
(:class:`~ttanalyze.ops.cb.NoDeviceProgram`).  Tensors are
:class:`~ttanalyze.ops.tensors.Tensor` views; work splits come from
:mod:`ttanalyze.ops.work_split`.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import TYPE_CHECKING

from ..arch import Arch
from ..ir.attrs import CoreRangeSet, DataType
from ..ir.model import Op
from ..layout import align_up, ceil_div, tile_padded_shape
from . import layout_conversion as LC
from .cb import CB, CBContext, CBModelError, DeviceBuffer, DeviceRejection, NoDeviceProgram, ProgramModel, cores_set, core_range
from .registry import (ShapeError, int_attr, int_list, norm_dim, register, register_cb, register_spec,
                       tensor_shape)
from .spec import TensorSpec
from .tensors import FACE, TILE, MemCfg, Tensor, operand, result
from .work_split import (full_grid, merge, merge_num_sticks_to_read, merge_ranges, split_blocks_for_tilize,
                         split_work_to_cores)

if TYPE_CHECKING:  # numpy is imported by the two functions that use it (0.1 s of start-up otherwise)
    import numpy as np

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"
_TM = "tt-metal d80d9482 (ttnn 0.81.1 wheel sources) ttnn/cpp/ttnn/operations/"


# ---------------------------------------------------------------------------
# Shape rules
# ---------------------------------------------------------------------------


@register("ttnn.reshape", "data_movement", ("shape",), f"{_SRC} ReshapeOp::verify")
def reshape(op: Op):
    src = tensor_shape(op, 0)
    new = int_list(op, "shape")
    if any(d < 0 for d in new):
        raise ShapeError(f"ttnn.reshape shape {new} has a negative dimension")
    if prod(new) != prod(src):
        raise ShapeError(
            f"reshape from {'x'.join(map(str, src))} ({prod(src)} elements) to "
            f"{'x'.join(map(str, new))} ({prod(new)} elements) changes the logical volume"
        )
    return [tuple(new)]


@register("ttnn.permute", "data_movement", ("permutation", "pad_value"), f"{_SRC} PermuteOp::verify")
def permute(op: Op):
    src = tensor_shape(op, 0)
    perm = int_list(op, "permutation")
    if sorted(perm) != list(range(len(src))):
        raise ShapeError(f"permutation {perm} is not a permutation of the {len(src)} dims")
    return [tuple(src[p] for p in perm)]


@register("ttnn.transpose", "data_movement", ("dim0", "dim1"), f"{_SRC} TransposeOp")
def transpose(op: Op):
    src = list(tensor_shape(op, 0))
    a = norm_dim(int_attr(op, "dim0"), len(src), op)
    b = norm_dim(int_attr(op, "dim1"), len(src), op)
    src[a], src[b] = src[b], src[a]
    return [tuple(src)]


@register("ttnn.slice_static", "data_movement", ("begins", "ends", "step"), f"{_SRC} SliceStaticOp::verify")
def slice_static(op: Op):
    src = tensor_shape(op, 0)
    return [tuple(n for _, _, _, n in _slice_dims(op, src))]


def _slice_dims(op: Op, src: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """(begin, end, step, size) per dim, negative indices wrapped (tt-mlir SliceStaticOp::verify).

    Raises:
        ShapeError: wrong attribute lengths, a zero step, or an empty/out-of-bounds range.
    """
    begins, ends, steps = int_list(op, "begins"), int_list(op, "ends"), int_list(op, "step")
    if not len(begins) == len(ends) == len(steps) == len(src):
        raise ShapeError(f"slice begins/ends/step must have {len(src)} entries each")
    out = []
    for d, (b, e, s) in enumerate(zip(begins, ends, steps)):
        if s == 0:
            raise ShapeError(f"slice step of dim {d} is zero")
        b = b + src[d] if b < 0 else b
        e = e + src[d] if e < 0 else e
        n = -(-(e - b) // s) if s > 0 else -(-(b - e) // -s)
        if b == e and 0 <= b <= src[d]:
            n = 0  # an empty range: ttnn 0.81.1 returns a zero-volume tensor (measured on the mock)
        elif n <= 0 or b < 0 or e > src[d]:
            raise ShapeError(f"slice of dim {d} [{b}:{e}:{s}] is empty or out of bounds for size {src[d]}")
        out.append((b, e, s, n))
    return out


@register("ttnn.concat", "data_movement", ("dim",), f"{_SRC} ConcatOp::verify")
def concat(op: Op):
    shapes = [tensor_shape(op, i) for i in range(len(op.operands))]
    if not shapes:
        raise ShapeError("concat of no tensors")
    rank = len(shapes[0])
    dim = norm_dim(int_attr(op, "dim"), rank, op)
    for s in shapes[1:]:
        if len(s) != rank or any(a != b for i, (a, b) in enumerate(zip(s, shapes[0])) if i != dim):
            raise ShapeError(f"concat along dim {dim}: shapes {[list(x) for x in shapes]} differ off that dim")
    out = list(shapes[0])
    out[dim] = sum(s[dim] for s in shapes)
    return [tuple(out)]


@register("ttnn.pad", "data_movement", ("padding", "value", "use_multicore"), f"{_SRC} PadOp::verify")
def pad(op: Op):
    src = tensor_shape(op, 0)
    padding = int_list(op, "padding")
    if len(padding) != 2 * len(src):
        raise ShapeError(f"pad needs {2 * len(src)} padding values (low, high per dim), got {len(padding)}")
    return [tuple(d + padding[2 * i] + padding[2 * i + 1] for i, d in enumerate(src))]


@register("ttnn.repeat_interleave", "data_movement", ("repeats", "dim"), f"{_SRC} RepeatInterleaveOp::verify")
def repeat_interleave(op: Op):
    src = list(tensor_shape(op, 0))
    dim = norm_dim(int_attr(op, "dim"), len(src), op)
    src[dim] *= int_attr(op, "repeats")
    return [tuple(src)]


@register("ttnn.repeat", "data_movement", ("repeat_dims",), f"{_SRC} RepeatOp::verify")
def repeat(op: Op):
    src = tensor_shape(op, 0)
    reps = int_list(op, "repeat_dims")
    if len(reps) != len(src):
        raise ShapeError(f"repeat_dims {reps} must have one entry per dim ({len(src)})")
    return [tuple(d * r for d, r in zip(src, reps))]


@register("ttnn.embedding", "data_movement", (), f"{_SRC} EmbeddingOp::verify")
def embedding(op: Op):
    """``[indices..., weight[-1]]``: the indices' shape plus the embedding dim.

    Raises:
        ShapeError: the weight has fewer than 2 dims, or any of its dims other
            than the last two is not 1 (EmbeddingOp::verify).
    """
    indices = tensor_shape(op, 0)
    weight = tensor_shape(op, 1)
    if len(weight) < 2:
        raise ShapeError(f"embedding weight must have at least 2 dims, got {len(weight)}")
    if any(d != 1 for d in weight[:-2]):
        raise ShapeError(f"embedding weight {list(weight)} must be effectively 2D (leading dims of size 1)")
    return [(*indices, weight[-1])]


# ---------------------------------------------------------------------------
# Operands, work splits and program assembly
# ---------------------------------------------------------------------------


def _element_size(t: Tensor) -> int:
    """``Tensor::element_size()`` in bytes: the dtype's size, 1 for bfloat8_b / bfloat4_b
    (``tensor_impl::element_size_bytes``: ``sizeof(std::byte)``), which the permute and concat
    host code use for block-float tiles where ``tt::datum_size`` would throw."""
    return 1 if t.dtype.is_block_float else t.element_bytes


def _ins(ctx: CBContext) -> list[Tensor]:
    """The op's tensor operands."""
    return [operand(ctx, i) for i, v in enumerate(ctx.op.operands) if v.is_tensor]



def _wider_split(grid: tuple[int, int], units: int, padded_units: int) -> CoreRangeSet:
    """The cores of ``split_work_to_cores`` over ``padded_units`` when that uses at least as many cores as
    over ``units``, else over ``units`` (the permute tile-row-invariant / tiled-generic and transpose HC
    factories split over the larger of their input-tile and padded-output-tile counts)."""
    a, b = split_work_to_cores(grid, units), split_work_to_cores(grid, padded_units)
    return (b if a.num_cores <= b.num_cores else a).all_cores


def _program(factory: str, source: str, cores: CoreRangeSet, dfbs: list[tuple[str, int, int]],
             notes: list[str] | None = None, scratch: int | tuple[int, ...] = 0) -> ProgramModel:
    """A Metal 2.0 ProgramModel whose DFBs (name, entry bytes, entries) and scratchpads all sit on ``cores``.

    ``scratch``: the scratchpads' bytes per core, their total or one by one in allocation order (each starts at
    an aligned address: :meth:`~ttanalyze.ops.cb.ProgramModel.cb_regions`).

    The factory hands its work split's ranges (``cores``, e.g. the column-first
    ``split_work_to_cores`` ranges ``{[0-0 - 8-9], [9-0 - 9-7]}``) to its work
    units; tt-metal places each DFB and scratchpad on the merge of the binding
    kernels' work units (:func:`~ttanalyze.ops.work_split.merge`:
    ``{[0-0 - 9-7], [0-8 - 8-9]}``), and that is the range list here (measured
    on mock P150, ttnn 0.81.1: every ``dataflow_buffer_allocate`` and
    ``scratchpad_allocate`` of the data-movement captures, ranges in order).
    """
    nodes = merge_ranges(cores)
    cbs = [CB(i, name, size, n, nodes) for i, (name, size, n) in enumerate(dfbs)]
    sizes = (scratch,) if isinstance(scratch, int) else tuple(scratch)
    return ProgramModel(factory, _TM + source, nodes, cbs, list(notes or []), sum(sizes), scratchpads=sizes)


# ---------------------------------------------------------------------------
# reshape
# ---------------------------------------------------------------------------

_RESHAPE = "data_movement/reshape_view/"


def _squeeze_3d(shape: tuple[int, ...]) -> tuple[int, int, int]:
    """``squeeze_shape_to_3D`` / ``unsqueeze_shape_to_3D`` (data_movement/common/common.cpp)."""
    if len(shape) > 3:
        return (prod(shape[:-2]), shape[-2], shape[-1])
    return (1,) * (3 - len(shape)) + tuple(shape)  # type: ignore[return-value]


def _faced(h, w):
    """Offset of element (h, w) inside its 32x32 tile stored as four 16x16 faces (numpy arrays)."""
    th, tw = h % TILE, w % TILE
    return ((th // FACE) * 2 + tw // FACE) * FACE * FACE + (th % FACE) * FACE + tw % FACE


def _tile_classes(starts: np.ndarray, ho_sz: int, wo_sz: int, in3d: tuple[int, int, int], w2: int) -> np.ndarray:
    """Canonical flat starts of output tiles whose page mappings are the same up to input-page renaming.

    An output tile's elements are ``start + r * w2 + k`` (``r < ho_sz``, ``k < wo_sz``);
    each maps to input tile-row block ``g`` (channel x tile row), row ``hr`` inside it and
    column ``wi``.  Two shifts of ``start`` keep every segment cut and the grouping by
    input page (they rename pages uniformly):

    * by ``-32 m`` when no element leaves its input row (``m = min wi // 32`` over the
      tile's elements): the same rows, the same faced offsets, pages minus ``m``;
    * by multiples of ``P = 32 * W`` (one input tile row of the flat tensor) when the
      channel height is a tile multiple (the tile-row blocks tile the flat index space
      with period ``P``), else by whole channels (period ``H * W``), and by ``P`` inside a
      channel when the tile's span stays in the channel's full tile rows.

    Work: ``ho_sz`` integer operations per output tile (not ``ho_sz * wo_sz``).

    Args:
        starts: flat start index of each output tile of one (valid height, valid width) class.
        ho_sz / wo_sz: the class's valid rows / columns (1-32).
        in3d: the input's 3D shape (C, H, W); w2: the output's W.

    Returns:
        The sorted distinct canonical starts.
    """
    import numpy as np

    _, h1, w1 = in3d
    period, hw1 = TILE * w1, h1 * w1
    full = (h1 // TILE) * period  # flat end of a channel's full tile rows
    span = (ho_sz - 1) * w2 + wo_sz
    r = np.arange(ho_sz, dtype=np.int64) * w2
    out = []
    for i in range(0, len(starts), 1 << 15):
        blk = starts[i:i + (1 << 15)]
        wi = (blk[:, None] + r[None, :]) % w1
        min_wi = np.where(wi + wo_sz > w1, 0, wi).min(axis=1)
        f = blk - (min_wi // TILE) * TILE
        if h1 % TILE == 0:
            key = f % period
        else:
            q = f % hw1
            key = np.where(q + span <= full, q % period, q)
        out.append(np.unique(key))
    return np.unique(np.concatenate(out)) if out else np.zeros(0, dtype=np.int64)


@lru_cache(maxsize=256)
def reshape_map_segments(in3d: tuple[int, int, int], out3d: tuple[int, int, int]) -> int:
    """Segments per row of ReshapeViewTiled's page-mapping tensor (``max_input_segments``).

    tt-metal ``reshape_view/device/reshape_tiled_program_factory.cpp``
    (``reshape_map_output_page``, ``compute_reshape_mapping_host_tensor``): for every
    output tile, walk its valid elements row by row, map each to (input tile, offset
    inside the faced tile) through the flat logical index, and cut a new segment
    whenever the input tile changes or either faced offset does not advance by one.
    A page's row holds ``max segments of one input tile x number of input tiles``
    entries; the tensor's row length is the maximum over output tiles, plus that
    maximum mod 16 (``max += max % l1_alignment``, which is what the source does).

    Output tiles that map identically up to a renaming of input pages
    (:func:`_tile_classes`: shifts by input tile columns and by input tile rows) are
    computed once, with numpy over their elements, 1,024 tiles at a time.  The work is
    ``ho_sz`` operations per output tile plus 1,024 per distinct class: [67108864, 1] ->
    [8192, 8192] (65,536 output tiles) has 1 class.  Checked against a literal
    per-element port of the C++ (tests/test_cb_data_movement.py).

    Args:
        in3d / out3d: the 3D logical shapes (C, H, W) the factory sees.

    Returns:
        The row length in segments (each 4 uint32 = 16 B).
    """
    import numpy as np

    c1, h1, w1 = in3d
    c2, h2, w2 = out3d
    hw1 = h1 * w1
    in_wt, in_ht = ceil_div(w1, TILE), ceil_div(h1, TILE)
    out_wt, out_ht = ceil_div(w2, TILE), ceil_div(h2, TILE)
    def classes(n_tiles: int, extent: int) -> list[tuple[np.ndarray, int]]:
        """(tile indices, valid extent) of the full tiles and of a partial last tile."""
        full = n_tiles if extent % TILE == 0 else n_tiles - 1
        out = [(np.arange(full, dtype=np.int64), TILE)] if full else []
        if extent % TILE:
            out.append((np.array([n_tiles - 1], dtype=np.int64), extent % TILE))
        return out

    best = 0
    for ths, ho_sz in classes(out_ht, h2):
        for tws, wo_sz in classes(out_wt, w2):
            cs = np.arange(c2, dtype=np.int64)
            base = (cs[:, None, None] * (h2 * w2) + ths[None, :, None] * (TILE * w2)
                    + tws[None, None, :] * TILE).reshape(-1)
            keys = _tile_classes(base, ho_sz, wo_sz, in3d, w2)
            r = np.arange(ho_sz, dtype=np.int64)
            k = np.arange(wo_sz, dtype=np.int64)
            off_o = _faced(r[:, None] + 0 * k[None, :], k[None, :] + 0 * r[:, None]).reshape(-1)
            rel = (r[:, None] * w2 + k[None, :]).reshape(-1)
            for start in range(0, len(keys), 1024):
                f = keys[start:start + 1024, None] + rel[None, :]
                ci, rem = f // hw1, f % hw1
                hi, wi = rem // w1, rem % w1
                page = ci * (in_ht * in_wt) + (hi // TILE) * in_wt + wi // TILE
                off_i = _faced(hi, wi)
                new = np.ones(page.shape, dtype=bool)
                new[:, 1:] = ((page[:, 1:] != page[:, :-1]) | (off_i[:, 1:] - off_i[:, :-1] != 1)
                              | (off_o[None, 1:] - off_o[None, :-1] != 1))
                rows, cols = np.nonzero(new)
                pages = page[rows, cols] - page[rows, 0]  # relative tile ids keep the keys small
                span = int(pages.max()) - int(pages.min()) + 1
                key = rows.astype(np.int64) * span + (pages - pages.min())
                uk, counts = np.unique(key, return_counts=True)
                urow = uk // span
                per_row_max = np.zeros(len(f), dtype=np.int64)
                per_row_n = np.zeros(len(f), dtype=np.int64)
                np.maximum.at(per_row_max, urow, counts)
                np.add.at(per_row_n, urow, 1)
                best = max(best, int((per_row_max * per_row_n).max()))
    return best + best % 16


def _this_is_view(x: Tensor, new: tuple[int, ...], out: Tensor) -> bool:
    """ttnn::reshape's view test (reshape_view/reshape.cpp ``this_is_view``).

    The last dim is unchanged, sharded-ness and L1-ness match the requested
    config, and the tensor is row-major, or its second-last dim is unchanged, or
    both second-last dims are tile multiples (no padding moves).
    """
    last_old = x.shape[-1] if x.rank >= 1 else 1
    last_new = new[-1] if new else 1
    h_old = x.shape[-2] if x.rank >= 2 else 1
    h_new = new[-2] if len(new) >= 2 else 1
    return (last_old == last_new and out.sharded == x.sharded and out.l1 == x.l1
            and (not x.tiled or h_old == h_new or (h_new % TILE == 0 and h_old % TILE == 0)))


def reshape_tiled_program(x: Tensor, new: tuple[int, ...], out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """ReshapeViewTiledProgramFactory: the data-moving reshape of a TILE tensor.

    Both shapes are squeezed to 3D; the work is split over the output tiles
    (``split_work_to_cores``); DFBs ``mapping`` (one row of the page-mapping
    tensor: :func:`reshape_map_segments` x 16 B, 1 entry) and ``in_tiles`` (one
    input tile); a scratchpad of one output tile (tt-metal
    ``reshape_view/device/reshape_tiled_program_factory.cpp``).  Measured on the
    mock: [1,4,768,60,106] -> [4,32,24,6360] 3,584 + 2,048 B of DFBs and 2,048 B
    of scratch per core on all 110 cores.

    Raises:
        CBModelError: data types other than bf16/f32/u32/si32 (the op's validate).
    """
    if x.dtype.name not in ("bf16", "f32", "u32", "si32"):
        raise CBModelError(f"reshape_view works on bf16/f32/int32/uint32 only, not {x.dtype}")
    in3, out3 = _squeeze_3d(x.shape), _squeeze_3d(new)
    segs = reshape_map_segments(in3, out3)
    pages = out3[0] * ceil_div(out3[1], TILE) * ceil_div(out3[2], TILE)
    cores = split_work_to_cores(grid, pages).all_cores
    prog = _program(
        "ReshapeViewTiledProgramFactory", _RESHAPE + "device/reshape_tiled_program_factory.cpp", cores,
        [("mapping", segs * 16, 1), ("in_tiles", x.tile_bytes, 1)],
        [f"3D {list(in3)} -> {list(out3)}; {pages:,} output tiles on {cores.num_cores} cores; "
         f"mapping row {segs} segments x 16 B; scratch one output tile ({out.tile_bytes:,} B)",
         f"also uploads a DRAM mapping tensor of {pages:,} rows x {segs * 16:,} B"],
        scratch=out.tile_bytes)
    # compute_reshape_mapping_host_tensor(...).to_device(device): uint32 row-major [pages, 4 * segs] in the
    # default MemoryConfig (DRAM interleaved), kept in the cached program's shared variables
    prog.device_buffers = (DeviceBuffer("dram", pages * segs * 16, segs * 16, True,
                                        f"the page-mapping tensor of ReshapeViewTiled ({pages:,} x {segs * 16:,} B)"),)
    return prog


def reshape_rm_program(x: Tensor, new: tuple[int, ...], out: Tensor, grid: tuple[int, int], free_l1: int) -> ProgramModel:
    """ReshapeViewRMProgramFactory: a row-major reshape that changes the last dim (2D -> 2D).

    No DFBs, only scratchpads on every core of the grid (tt-metal
    ``reshape_view/device/reshape_rm_program_factory.cpp``): ``src0`` 2 x
    ``((src_row - 1) & ~63) + 128`` and ``src1`` ``num_dest_write_slots x
    (((dst_row - 1) & ~63) + 80)``, doubled when the writer kernel also reshapes
    (rows divide each other and the destination is 16 B aligned or in L1).  The
    write slots are 1 when both rows are 16 B multiples, else as many as fit in the
    free L1 (``lowest_occupied_compute_l1_address - base``), at most 8.

    Raises:
        DeviceRejection: the source and write slots do not fit in the free L1 (TT_FATAL).
    """
    src = x.shape[-1] * x.element_bytes
    dst = new[-1] * x.element_bytes
    read = ((src - 1) & ~63) + 128
    slot = ((dst - 1) & ~63) + 80
    aligned = src % 16 == 0 and dst % 16 == 0
    dual = (src % dst == 0 or dst % src == 0) and (dst % 16 == 0 or out.buffer_type != "dram")
    copies = 2 if dual else 1
    if aligned:
        slots = 1
    else:
        need = read * 2 * copies + slot * copies
        if free_l1 < need:
            raise DeviceRejection(f"RM reshape dest staging does not fit in L1: need {need:,} B, have {free_l1:,} B "
                                  "(reshape_rm_program_factory.cpp TT_FATAL)")
        slots = max(1, min(8, (free_l1 - read * 2 * copies) // (slot * copies)))
    scratch = (read * 2, slot * slots) * copies  # per copy: source (src0) then destination (src1) scratch
    return _program(
        "ReshapeViewRMProgramFactory", _RESHAPE + "device/reshape_rm_program_factory.cpp", full_grid(grid), [],
        [f"rows {src} B -> {dst} B; source scratch 2 x {read} B, {slots} dest slot(s) of {slot} B"
         + (", reader and writer kernels each with their own scratch" if dual else "")],
        scratch=scratch)


def reshape_steps(x: Tensor, new: tuple[int, ...], out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.reshape(x, new, memory_config=out)`` (reshape_view/reshape.cpp).

    Raises:
        CBModelError: paths through other ops (to_memory_config, sharded
            <-> interleaved conversions, block-float typecasts).
    """
    same_shape = x.shape == tuple(new) and x.padded == tuple(new)
    if same_shape:
        if x.mem == out.mem:
            return []
        raise CBModelError("a same-shape reshape to another memory config is ttnn.to_memory_config")
    if x.volume == 0 or _this_is_view(x, new, out):
        return []
    if not x.tiled:
        if out.sharded:
            raise CBModelError("a row-major reshape into a sharded config (interleaved_to_sharded of a recomputed "
                               "shard spec) is not modeled")
        if x.sharded:
            # perform_reshape_on_2D_RM (reshape.cpp): ttnn::sharded_to_interleaved into the input's buffer type
            # first (the RM kernel needs linear page order), whose validate needs L1-aligned shard rows
            if x.mem.buffer_type != "l1" or (x.mem.shard.shape[1] * x.element_bytes) % ctx.arch.l1_alignment:
                raise DeviceRejection(
                    f"reshape of a row-major sharded tensor: sharded_to_interleaved needs an L1 input whose shard "
                    f"row ({x.mem.shard.shape[1] * x.element_bytes} B) is a multiple of {ctx.arch.l1_alignment} B "
                    "(TT_FATAL 'Shard page size must be aligned to 16B for L1 Tensor')")
            flat = x.with_(mem=MemCfg(x.mem.buffer_type, "interleaved"))
            return ([LC.to_memory_config_program(x, flat, ctx.arch)]
                    + [reshape_rm_program(flat, new, out, ctx.grid, ctx.max_l1_space)])
        return [reshape_rm_program(x, new, out, ctx.grid, ctx.max_l1_space)]
    if x.dtype.is_block_float:
        # reshape_tiled (reshape.cpp): typecast to bf16, prim::reshape_view, fill_implicit_tile_padding when the
        # requested 3D shape pads its last two dims (always, for block floats), typecast back
        new3 = _squeeze_3d(tuple(new))

        def inner(wx: Tensor, wo: Tensor) -> list[ProgramModel]:
            return [reshape_tiled_program(wx, tuple(new), wo, ctx.grid)] + fill_pad_program(wo.with_(shape=new3), ctx.grid)

        return _through_bf16(x, out, ctx.arch, "reshape", inner)
    return [reshape_tiled_program(x, tuple(new), out, ctx.grid)]


# ---------------------------------------------------------------------------
# permute / transpose
# ---------------------------------------------------------------------------

_PERMUTE = "data_movement/permute/device/"
_TRANSPOSE = "data_movement/transpose/device/"


def permute_program(x: Tensor, dims: tuple[int, ...], out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``ttnn::prim::permute``: the PermuteDeviceOperation factory and its DFBs.

    Factory choice (``permute_device_operation.cpp`` select_program_factory):
    row-major with the last dim kept -> MultiCoreRowInvariant, other row-major ->
    MultiCoreBlockedGeneric; TILE with the last two dims kept or swapped ->
    MultiCoreTileInvariant, with the last output dim one of the input's last two ->
    MultiCoreTileRowInvariant, else MultiCoreTiledGeneric.  Sizes from
    ``permute_rm_program_factory.cpp`` and ``permute_tiled_program_factory.cpp``.

    Args:
        x: the input (rank >= 4 after ttnn's unsqueeze); dims: the permutation.
        out: the output tensor (shape = x's shape permuted).
    """
    rank = len(dims)
    outp = tuple(x.shape[d] for d in dims)
    out_t = out.with_(shape=outp)
    if not x.tiled:
        rows = x.volume // x.shape[-1]
        if dims[-1] == rank - 1:
            page = align_up(x.shape[-1] * x.element_bytes, x.alignment)
            cores = split_work_to_cores(grid, rows).all_cores
            return _program("PermuteDeviceOperation::MultiCoreRowInvariant", _PERMUTE + "permute_rm_program_factory.cpp",
                            cores, [("cb_src", page, 2)], [f"{rows:,} rows of {page} B (aligned) on {cores.num_cores} cores"])
        xs = x.shape[dims[-1]]
        blocks = (rows // xs) * ceil_div(xs, TILE) * ceil_div(x.shape[-1], TILE)
        cores = split_work_to_cores(grid, blocks).all_cores
        return _program("PermuteDeviceOperation::MultiCoreBlockedGeneric", _PERMUTE + "permute_rm_program_factory.cpp",
                        cores, [("cb_in", TILE * x.element_bytes, 2 * TILE), ("cb_out", TILE * x.element_bytes, 2 * TILE),
                                ("cb_tilize", TILE * TILE * x.element_bytes, 2)],
                        [f"{blocks:,} 32x32 blocks on {cores.num_cores} cores"])
    tile = x.tile_bytes
    out_tiles = out_t.physical_volume // (TILE * TILE)
    if (dims[-1] == rank - 1 and dims[-2] == rank - 2) or (dims[-1] == rank - 2 and dims[-2] == rank - 1):
        swap = dims[-1] == rank - 2
        cores = split_work_to_cores(grid, out_tiles).all_cores
        dfbs = [("cb_src0", tile, 2)] + ([("cb_out16", tile, 2)] if swap else [])
        return _program("PermuteDeviceOperation::MultiCoreTileInvariant", _PERMUTE + "permute_tiled_program_factory.cpp",
                        cores, dfbs, [f"{out_tiles:,} output tiles on {cores.num_cores} cores"
                                      + (", H and W swapped in the tile" if swap else "")])
    if dims[-1] in (rank - 1, rank - 2):
        swap = dims[-1] == rank - 2
        d = list(dims)
        shp = list(x.shape)
        opad = list(out_t.padded)
        if swap:
            d = [rank - 1 if v == rank - 2 else rank - 2 if v == rank - 1 else v for v in d]
            shp[-2], shp[-1] = shp[-1], shp[-2]
            opad[-2], opad[-1] = opad[-1], opad[-2]
        in_tiles = x.physical_volume // (TILE * TILE)
        padded_tiles = out_tiles // (opad[-2] // TILE)
        cores = _wider_split(grid, in_tiles, padded_tiles)
        needs_pad = shp[d[rank - 2]] % TILE != 0
        dfbs = [("cb_src0", tile, 2)] + ([("cb_pad", FACE * _element_size(x), 1)] if needs_pad else []) \
            + ([("cb_out16", tile, 2)] if swap else [])
        return _program("PermuteDeviceOperation::MultiCoreTileRowInvariant", _PERMUTE + "permute_tiled_program_factory.cpp",
                        cores, dfbs, [f"{in_tiles:,} input tiles / {padded_tiles:,} padded output tiles; "
                                      f"{cores.num_cores} cores" + ("; pads the new H" if needs_pad else "")])
    xs, ys, ws = x.shape[dims[-1]], x.shape[dims[-2]], x.shape[-1]
    others = prod(x.shape[i] for i in range(rank - 1) if i != dims[-1])
    xw_blocks = align_up(xs, TILE) * align_up(ws, TILE) * others // (TILE * TILE)
    padded_tiles = out_tiles // (out_t.padded[-2] // TILE)
    cores = _wider_split(grid, xw_blocks, padded_tiles)
    line = FACE * _element_size(x)
    misalign = x.alignment - line if x.alignment > line else 0
    page = tile + misalign
    dfbs = [("cb_in", page, 2), ("cb_tilize", page, 2), ("cb_out", page, 2)]
    if ys % TILE:
        dfbs.append(("cb_pad", line, 1))
    return _program("PermuteDeviceOperation::MultiCoreTiledGeneric", _PERMUTE + "permute_tiled_program_factory.cpp",
                    cores, dfbs, [f"{xw_blocks:,} XW blocks / {padded_tiles:,} padded output tiles on {cores.num_cores} "
                                  f"cores; pages of one tile + {misalign} B read misalignment"])


def transpose_program(x: Tensor, dim: str, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """``ttnn::prim::transpose`` on an interleaved 4D TILE tensor (TransposeDeviceOperation).

    WH -> TransposeWHProgramFactory (``in0`` and ``out`` 2 tiles each, work split
    over the input tiles); HC -> TransposeHCTiledInterleavedProgramFactory (``in0``
    2 tiles, plus a ``pad`` DFB of one 16x16 face when C is not a tile multiple;
    cores of the larger of the input-tile and padded-output-tile splits); CN ->
    TransposeCNProgramFactory (``in0`` 2 tiles, split over the tiles).  Sources:
    ``transpose/device/transpose_{wh,hc_tiled_interleaved,cn}_program_factory.cpp``.
    """
    tile = x.tile_bytes
    tiles = x.physical_volume // (TILE * TILE)
    if dim == "WH":
        cores = split_work_to_cores(grid, tiles).all_cores
        return _program("TransposeWHProgramFactory", _TRANSPOSE + "transpose_wh_program_factory.cpp", cores,
                        [("in0", tile, 2), ("out", out.tile_bytes, 2)], [f"{tiles:,} tiles on {cores.num_cores} cores"])
    if dim == "CN":
        cores = split_work_to_cores(grid, tiles).all_cores
        return _program("TransposeCNProgramFactory", _TRANSPOSE + "transpose_cn_program_factory.cpp", cores,
                        [("in0", tile, 2)], [f"{tiles:,} tiles on {cores.num_cores} cores"])
    n, c, h, w = x.shape
    out_pad = (n, h, align_up(c, TILE), align_up(w, TILE))
    padded_tiles = prod(out_pad) // (TILE * TILE) // (out_pad[2] // TILE)
    cores = _wider_split(grid, tiles, padded_tiles)
    dfbs = [("in0", tile, 2)] + ([("pad", FACE * FACE * x.element_bytes, 1)] if c % TILE else [])
    return _program("TransposeHCTiledInterleavedProgramFactory",
                    _TRANSPOSE + "transpose_hc_tiled_interleaved_program_factory.cpp", cores, dfbs,
                    [f"{tiles:,} input tiles / {padded_tiles:,} padded output tiles on {cores.num_cores} cores"
                     + ("; C is padded to the tile" if c % TILE else "")])


def _to_4d(x: Tensor, dims: tuple[int, ...]) -> tuple[Tensor, tuple[int, ...]]:
    """``unsqueeze_to_4D`` and the permutation adjusted to it (permute.cpp ``adjust_order``)."""
    k = 4 - x.rank
    if k <= 0:
        return x, dims
    return x.with_(shape=(1,) * k + x.shape), tuple(range(k)) + tuple(d + k for d in dims)


def _permute_nop(x: Tensor, dims: tuple[int, ...]) -> bool:
    """permute.cpp ``is_permute_nop``: rank <= 1, identity, or only size-1 dims move."""
    rank = x.rank
    if rank <= 1 or dims == tuple(range(rank)):
        return True
    if (x.tiled and (dims[-1] != rank - 1 or dims[-2] != rank - 2)) or (not x.tiled and dims[-1] != rank - 1):
        return False
    if tuple(x.shape[d] for d in dims) != x.shape:
        return False
    return all(i == j or x.shape[i] <= 1 for i, j in enumerate(dims))


def _permute_steps(x: Tensor, dims: tuple[int, ...], out: Tensor, grid: tuple[int, int],
                   arch: Arch | None = None) -> list[ProgramModel]:
    """The device programs of ``ttnn.permute(x, dims, memory_config=out)`` (permute/permute.cpp).

    A 4D bfloat8_b permute other than WH, CN and CN+WH runs on bfloat16 between two
    typecasts (:func:`_through_bf16`; measured: g1/ttnn.permute/7, TypecastProgramFactory
    2,176 + 4,096 B, MultiCoreTileRowInvariant, TypecastProgramFactory 4,096 + 2,176 B).

    Raises:
        CBModelError: sharded inputs, block-float typecasts, no-op permutes to
            another memory config (ttnn.to_memory_config), dims that are no permutation (TTA007).
    """
    if sorted(d % x.rank if -x.rank <= d < x.rank else d for d in dims) != list(range(x.rank)):
        raise CBModelError(f"permutation {list(dims)} is not a permutation of the {x.rank} dims")
    if _permute_nop(x, dims):
        if x.mem == out.mem:
            return []
        raise CBModelError("a no-op permute to another memory config is ttnn.to_memory_config")
    if x.sharded and out.sharded:
        raise CBModelError("permute of a sharded tensor into a sharded config (sharded factories) is not modeled")
    x4, d4 = _to_4d(x, dims)
    if x.sharded and len(d4) == 4:
        return _permute4_sharded(x4, d4, out.with_(shape=tuple(x4.shape[d] for d in d4)), grid)
    out4 = out.with_(shape=tuple(x4.shape[d] for d in d4))
    if len(d4) > 4:
        return [permute_program(x4, d4, out4, grid)]
    special = {(0, 1, 3, 2): (2, 3), (0, 2, 1, 3): (1, 2), (1, 0, 2, 3): (0, 1)}
    if x.dtype.is_block_float and d4 not in ((0, 1, 3, 2), (1, 0, 2, 3), (1, 0, 3, 2)):
        return _through_bf16(x4, out4, arch, "permute", lambda wx, wo: _permute_steps(wx, d4, wo, grid))
    if d4 in special:
        return _transpose4_steps(x4, *special[d4], out4, grid)
    return [permute_program(x4, d4, out4, grid)]


def _permute4_sharded(x: Tensor, d4: tuple[int, ...], out: Tensor, grid: tuple[int, int]) -> list[ProgramModel]:
    """permute.cpp's sharded branch for a 4D TILE input and an interleaved result: chains of WH / HC / CN
    transposes (the inner ones into a sharded config derived from the input, the last into ``out``), else
    ``prim::permute`` with the requested config.  The transposes run the interleaved factories
    (transpose_program): WH / HC / CN read and write through TensorAccessor unless the sharded WH factory
    applies, which needs whole H x W matrices in each shard (``use_sharded_wh``: not modeled here).
    Measured: g1/ttnn.transpose/26 ([4, 1504, 768] height sharded, dims 0 and 2: WH, HC, WH).

    Raises:
        CBModelError: row-major or block-float inputs, a first WH whose shards hold whole matrices.
    """
    if not x.tiled or x.dtype.is_block_float:
        raise CBModelError("a sharded row-major or block-float permute (transpose chains) is not modeled")
    chains = {(0, 1, 2, 3): [], (0, 1, 3, 2): ["WH"], (0, 2, 1, 3): ["HC"], (0, 2, 3, 1): ["HC", "WH"],
              (0, 3, 1, 2): ["WH", "HC"], (0, 3, 2, 1): ["WH", "HC", "WH"], (1, 0, 2, 3): ["CN"]}
    if tuple(d4) not in chains:
        return [permute_program(x, tuple(d4), out, grid)]
    sh = x.mem.shard
    if (chains[tuple(d4)][:1] == ["WH"] and x.mem.memory_layout == "height_sharded"
            and sh.shape[1] == x.padded[-1] and sh.shape[0] % x.padded[-2] == 0):
        raise CBModelError("a sharded WH transpose whose shards hold whole matrices may use TransposeWHShardedProgramFactory "
                           "(not modeled)")
    swaps = {"WH": (2, 3), "HC": (1, 2), "CN": (0, 1)}
    steps, cur = [], x
    for kind in chains[tuple(d4)]:
        a, b = swaps[kind]
        shape = list(cur.shape)
        shape[a], shape[b] = shape[b], shape[a]
        nxt = out.with_(shape=tuple(shape))
        steps.append(transpose_program(cur, kind, nxt, grid))
        cur = nxt
    return steps


_TRANSPOSE_DIMS = {(0, 1): "CN", (1, 2): "HC", (2, 3): "WH", (0, 2): "NH", (0, 3): "NW", (1, 3): "CW"}


def _transpose4_steps(x: Tensor, d1: int, d2: int, out: Tensor, grid: tuple[int, int],
                      arch: Arch | None = None) -> list[ProgramModel]:
    """``transpose_impl`` on a 4D interleaved tensor (transpose/transpose.cpp).

    Interleaved row-major tensors and the NH/NW/CW pairs go to ``prim::permute``;
    the rest to TransposeDeviceOperation (:func:`transpose_program`).  A bfloat8_b
    transpose other than WH and CN runs on bfloat16 between two typecasts
    (:func:`_through_bf16`), even when the transpose itself is a no-op.
    """
    a, b = sorted((d1, d2))
    if x.dtype.is_block_float and (a, b) not in ((2, 3), (0, 1)):
        return _through_bf16(x, out, arch, "transpose", lambda wx, wo: _transpose4_steps(wx, d1, d2, wo, grid))
    if a == b or (x.padded[a] == 1 and x.padded[b] == 1):
        if x.mem == out.mem:
            return []
        raise CBModelError("a no-op transpose to another memory config is ttnn.clone")
    kind = _TRANSPOSE_DIMS[(a, b)]
    perm = list(range(4))
    perm[a], perm[b] = perm[b], perm[a]
    out4 = out.with_(shape=tuple(x.shape[p] for p in perm))
    if x.sharded and kind in ("NH", "NW", "CW"):
        return _permute4_sharded(x, tuple(perm), out4, grid)
    if kind in ("NH", "NW", "CW") or not x.tiled:
        return [permute_program(x, tuple(perm), out4, grid)]
    return [transpose_program(x, kind, out4, grid)]


def _fully_in_shard(t: Tensor) -> bool:
    """Height sharded, each shard the full padded width and whole H x W matrices (``*_width_and_height_fully_in_shard``)."""
    sh = t.mem.shard
    return (t.mem.memory_layout == "height_sharded" and sh is not None and sh.shape[1] == t.padded[-1]
            and sh.shape[0] % t.padded[-2] == 0)


def _transpose_wh_sharded(x: Tensor, d1: int, d2: int, out: Tensor) -> ProgramModel | None:
    """TransposeWHShardedProgramFactory, when ``select_program_factory`` picks it (transpose_device_operation.cpp):
    a TILE WH transpose whose input and output are L1 height sharded on the same grid with whole matrices in
    every shard.  Both DFBs are bound to the shards (``borrowed_from`` INPUT / OUTPUT, one entry per tile of a
    shard): no L1 of their own (measured: g1/ttnn.transpose/8, a bfloat8_b [2, 2] on one core, no own DFB).
    None when another factory applies."""
    rank = x.rank
    if {d1 % rank, d2 % rank} != {rank - 2, rank - 1} or rank < 2 or not (x.l1 and out.l1):
        return None
    if x.mem.shard is None or out.mem.shard is None or x.mem.shard.grid != out.mem.shard.grid:
        return None
    if not (_fully_in_shard(x) and _fully_in_shard(out)):
        return None
    sh = x.mem.shard
    tiles = sh.shape[0] * sh.shape[1] // (TILE * TILE)
    nodes = sh.grid
    cbs = [CB(0, "in0", x.tile_bytes, tiles, nodes, globally_allocated=True),
           CB(1, "out", out.tile_bytes, tiles, nodes, globally_allocated=True)]
    return ProgramModel("TransposeWHShardedProgramFactory", _TM + _TRANSPOSE + "transpose_wh_sharded_program_factory.cpp",
                        nodes, cbs, [f"{tiles} tiles per shard on {nodes.num_cores} cores, both DFBs bound to the shards"])


def _transpose_rm_sharded(x: Tensor, d1: int, d2: int, out: Tensor, grid: tuple[int, int],
                          free_l1: int) -> list[ProgramModel] | None:
    """``transpose_impl`` (transpose/transpose.cpp, ttnn 0.81.1 wheel) of a rank <= 4 row-major sharded tensor into
    an interleaved result, for the WH and HC pairs; None for the rest (left out of scope).

    Block- or width-sharded inputs whose last two dims are not tile multiples are first staged to L1 interleaved
    (not modeled: None).  Otherwise, on the 4D view:

    * WH: ``cb_size_for_rm = (2 * Wp + 2 * Hp + Hp * Wp) * element_size`` (W and H rounded up to 32); above
      ``free_l1`` (``lowest_occupied_compute_l1_address`` less the allocator base) it is ``prim::permute
      {0, 1, 3, 2}`` (:func:`permute_program`, MultiCoreBlockedGeneric), else ``prim::transpose`` WH, whose
      factory for an interleaved result is TransposeWHProgramFactory's row-major path
      (transpose_wh_program_factory.cpp): ``N * C`` blocks over the grid (``split_work_to_cores``), DFBs ``in0``
      ``2 * Wt`` and ``out`` ``2 * Ht`` tiles, a tilize intermediate of ``Ht * Wt`` tiles (measured:
      g1/ttnn.transpose/80, 122, 178, 231, 275, 451; g1/ttnn.transpose/65's 1,785,856 B of DFBs refused;
      g1/ttnn.transpose/375, 418, 575 permuted);
    * HC: TransposeHCRMProgramFactory (transpose_hc_rm_program_factory.cpp): ``N * C * H`` sticks over the grid,
      one DFB of the larger core group's sticks, each ``max(W * element_size, aligned page of input and
      output)`` (measured: g1/ttnn.transpose/489, 19 sticks of 1,152 B).
    """
    if x.memory_layout != "height_sharded" and (x.shape[-1] % TILE or (x.rank > 1 and x.shape[-2] % TILE)):
        return None
    k = 4 - x.rank
    x4 = x.with_(shape=(1,) * k + x.shape, padded=(1,) * k + x.padded)
    a, b = sorted((d1 + k, d2 + k))
    if a == b or (x4.padded[a] == 1 and x4.padded[b] == 1):
        return None
    perm = list(range(4))
    perm[a], perm[b] = perm[b], perm[a]
    out4 = out.with_(shape=tuple(x4.shape[p] for p in perm))
    n, c, h, w = x4.shape
    elem = x.element_bytes
    if (a, b) == (2, 3):
        hp, wp = align_up(h, TILE), align_up(w, TILE)
        if (2 * wp + 2 * hp + hp * wp) * elem > free_l1:
            return [permute_program(x4, (0, 1, 3, 2), out4, grid)]
        ht, wt = hp // TILE, wp // TILE
        cores = split_work_to_cores(grid, n * c).all_cores
        return [_program("TransposeWHProgramFactory", _TRANSPOSE + "transpose_wh_program_factory.cpp", cores,
                         [("in0", x.tile_bytes, 2 * wt), ("out", out.tile_bytes, 2 * ht),
                          ("tilize", x.tile_bytes, ht * wt)],
                         [f"row-major: {n * c} H x W blocks on {cores.num_cores} cores, Ht {ht}, Wt {wt}"])]
    if (a, b) == (1, 2):
        split = split_work_to_cores(grid, n * c * h)
        sticks = split.units_per_core_group_1  # the larger group's share
        page = max(align_up(w * elem, x.alignment), align_up(w * elem, out.alignment))
        return [_program("TransposeHCRMProgramFactory", _TRANSPOSE + "transpose_hc_rm_program_factory.cpp",
                         split.all_cores, [("in0", max(w * elem, page), sticks)],
                         [f"{n * c * h:,} sticks on {split.all_cores.num_cores} cores"])]
    return None


def transpose_steps(x: Tensor, d1: int, d2: int, out: Tensor, grid: tuple[int, int],
                    arch: Arch | None = None, free_l1: int | None = None) -> list[ProgramModel]:
    """``ttnn.transpose(x, d1, d2, memory_config=out)``: rank > 4 is a permute, rank < 4 is unsqueezed.

    ``arch`` (optional) lets block-float transposes model their typecasts (:func:`_through_bf16`);
    ``free_l1`` (optional, bytes: the L1 between the allocator base and the lowest L1 buffer) lets a
    row-major sharded transpose into an interleaved result pick its factory (:func:`_transpose_rm_sharded`).
    A sharded TILE input with an interleaved result runs the interleaved factories, which read
    it through its TensorAccessor (transpose_device_operation.cpp select_program_factory: the
    sharded factories need a sharded output)."""
    if x.sharded and out.sharded and x.tiled:
        prog = _transpose_wh_sharded(x, d1, d2, out)
        if prog is not None:
            return [prog]
    if x.rank > 4 and not x.tiled:
        # transpose.cpp sends rank > 4 to ttnn::permute before any sharding choice; a row-major sharded input runs
        # the permute factories (measured: g1/ttnn.transpose/112, 113, 331, height-sharded, exact through the
        # permute model)
        perm = list(range(x.rank))
        perm[d1], perm[d2] = perm[d2], perm[d1]
        return _permute_steps(x, tuple(perm), out, grid, arch)
    if x.sharded and not x.tiled and not out.sharded and x.rank <= 4 and free_l1 is not None:
        steps = _transpose_rm_sharded(x, d1, d2, out, grid, free_l1)
        if steps is not None:
            return steps
    if x.sharded and (not x.tiled or out.sharded):
        raise CBModelError("transpose of a sharded tensor (sharded factories) is not modeled")
    if x.rank > 4:
        perm = list(range(x.rank))
        perm[d1], perm[d2] = perm[d2], perm[d1]
        return _permute_steps(x, tuple(perm), out, grid, arch)
    k = 4 - x.rank
    x4 = x.with_(shape=(1,) * k + x.shape)
    return _transpose4_steps(x4, d1 + k, d2 + k, out, grid, arch)


# ---------------------------------------------------------------------------
# Layout conversions inside composite data movement (untilize / tilize / fill_pad)
# ---------------------------------------------------------------------------


def _layout_program(factory, x: Tensor, out: Tensor, ctx: CBContext) -> ProgramModel:
    """One layout-conversion step of a composite: ``factory`` (a :mod:`~ttanalyze.ops.layout_conversion`
    program model: ``uwu_program``, ``twvp_program``, ``tilize_program``) from ``x`` to ``out``.

    The factory's routing (``is_enough_space``: a row of tiles fits, else the
    block factory) sees ``ctx.max_l1_space`` less ``out``'s pending L1
    reservation (``get_pending_l1_output_reservation``).
    """
    free = ctx.max_l1_space
    prog = factory(x, out, ctx.arch, free, free - LC.pending_l1_output(ctx.arch, out), True, ctx.tt_metal)
    prog.inputs, prog.outputs = (x,), (out,)
    return prog


def _to_row_major(x: Tensor, out_mem: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``ttnn.to_layout(x, ROW_MAJOR)`` of a TILE tensor into ``out_mem``'s memory config: ``untilize``
    when nothing is padded, else ``untilize_with_unpadding`` (:func:`ttanalyze.ops.layout_conversion.plan_to_layout`)."""
    factory = LC.untilize_program if x.shape == x.padded else LC.uwu_program
    return [_layout_program(factory, x, LC.untilize_output(x, out_mem.mem), ctx)]


def _to_tile(x: Tensor, out_mem: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``ttnn.to_layout(x, TILE)`` of a row-major tensor into ``out_mem``'s memory config: ``tilize`` when
    its last two dims are tile multiples, else ``tilize_with_val_padding``."""
    t = out_mem.with_(shape=x.shape, dtype=x.dtype, layout="tile")
    factory = LC.tilize_program if t.padded == x.shape else LC.twvp_program
    return [_layout_program(factory, x, t, ctx)]


def _tilize(x: Tensor, out: Tensor, ctx: CBContext) -> ProgramModel:
    """``ttnn.tilize`` of a tile-aligned interleaved row-major tensor into the TILE tensor ``out``."""
    return _layout_program(LC.tilize_program, x, out, ctx)


def _through_bf16(x: Tensor, out: Tensor, arch: Arch | None, what: str, inner) -> list[ProgramModel]:
    """A block-float op that ttnn runs on bfloat16: ``typecast(x, BFLOAT16)``, ``inner(wide_x, wide_out)``,
    then ``typecast(result, x.dtype)`` (each typecast in its tensor's own memory config: ``ttnn::typecast``
    without a memory config).  Used by reshape (reshape_view/reshape.cpp ``reshape_tiled``), permute
    (permute/permute.cpp, ``bfloat8_supported``) and transpose (transpose/transpose.cpp).

    Raises:
        CBModelError: no ``arch`` (the typecast models need the device), or a sharded tensor.
    """
    if arch is None or x.sharded or out.sharded:
        raise CBModelError(f"{what} of {x.dtype} goes through typecast programs"
                           + (" (sharded: not modeled)" if arch is not None else ""))
    wide_x, wide_out = x.with_(dtype=DataType("bf16")), out.with_(dtype=DataType("bf16"))
    return [LC.typecast_program(x, wide_x, arch)] + inner(wide_x, wide_out) + [LC.typecast_program(wide_out, out, arch)]


def fill_pad_program(x: Tensor, grid: tuple[int, int], arch: Arch | None = None) -> list[ProgramModel]:
    """``ttnn.fill_implicit_tile_padding`` of an interleaved TILE tensor: FillPadProgramFactory, or nothing.

    Nothing when the last two dims are tile multiples.  A block-float tensor is
    typecast to bf16 first and back after (three programs; needs ``arch``).  Work = the tiles on the
    right edge, bottom edge and corner of every 2D slice; DFBs ``data_in`` 2
    tiles, ``right_mask`` 1 tile (W not a tile multiple), ``bot_mask`` 1 tile (H
    not a tile multiple), ``data_out`` 2 tiles (tt-metal
    ``fill_pad/device/fill_pad_program_factory.cpp``).
    """
    h, w = (x.shape[-2] if x.rank >= 2 else 1), x.shape[-1]
    right, bottom = w % TILE != 0, h % TILE != 0
    if not right and not bottom:
        return []
    check_fill_pad(x)
    if x.dtype.is_block_float:
        if arch is None:
            raise CBModelError(f"fill_implicit_tile_padding of {x.dtype} goes through typecasts")
        # typecast to bf16, fill the padding, typecast back (measured: campaign instances g1/ttnn.max/0,
        # g1/ttnn.mean/1: TypecastProgramFactory 2,176 + 4,096 B, FillPad of the bf16 tensor, then
        # TypecastProgramFactory 4,096 + 2,176 B); a sharded tensor keeps its shard spec, so the fill is the
        # sharded FillPad between two TypecastProgramFactory programs split over the grid (measured:
        # g1/ttnn.max/38, g1/ttnn.sum/9)
        wide = x.with_(dtype=DataType("bf16"))
        return [LC.typecast_program(x, wide, arch)] + fill_pad_program(wide, grid) + [LC.typecast_program(wide, x, arch)]
    slices = prod(x.shape[:-2]) if x.rank > 2 else 1
    ht, wt = ceil_div(h, TILE), ceil_div(w, TILE)
    if x.sharded and x.l1:
        return [_fill_pad_l1_sharded(x, slices, ht, wt, right, bottom)]
    work = (slices * ((ht - 1) if bottom else ht) if right else 0) \
        + (slices * ((wt - 1) if right else wt) if bottom else 0) + (slices if right and bottom else 0)
    cores = split_work_to_cores(grid, work).all_cores
    tile = x.tile_bytes
    dfbs = [("data_in", tile, 2)] + ([("right_mask", tile, 1)] if right else []) \
        + ([("bot_mask", tile, 1)] if bottom else []) + [("data_out", tile, 2)]
    return [_program("FillPadProgramFactory", "data_movement/fill_pad/device/fill_pad_program_factory.cpp", cores, dfbs,
                     [f"fills the tile padding of {list(x.shape)}: {work:,} edge tiles on {cores.num_cores} cores"])]


def check_fill_pad(x: Tensor) -> None:
    """The refusal of ``fill_implicit_tile_padding`` on an L1-sharded TILE tensor with tile padding and more
    than one 2D slice (FillPadL1ShardedProgramFactory ``N_slices == 1`` TT_FATAL, fill_pad_program_factory.cpp
    @d80d9482; measured: campaign instances g1/ttnn.sum/1, g1/ttnn.mean/0, g1/ttnn.min/5, whatever the dtype).

    Raises:
        DeviceRejection: such a tensor.
    """
    h, w = (x.shape[-2] if x.rank >= 2 else 1), x.shape[-1]
    slices = prod(x.shape[:-2]) if x.rank > 2 else 1
    if x.tiled and x.sharded and x.l1 and (h % TILE or w % TILE) and slices != 1:
        raise DeviceRejection(f"FillPadL1ShardedProgramFactory: N_slices > 1 not yet supported (got {slices}) "
                              "(fill_pad_program_factory.cpp TT_FATAL)")


def _fill_pad_l1_sharded(x: Tensor, slices: int, ht: int, wt: int, right: bool, bottom: bool) -> ProgramModel:
    """FillPadL1ShardedProgramFactory (``fill_pad_program_factory.cpp`` @d80d9482): the DFBs of the
    interleaved factory (``data_in`` 2 tiles, ``right_mask``/``bot_mask`` 1 tile when that edge is padded,
    ``data_out`` 2 tiles) on the merge of the shard cores whose shard starts inside the tensor's tiles
    (row ``i`` of a height-sharded grid, column ``i`` of a width-sharded one, row-major position in a
    block-sharded grid).

    Raises:
        DeviceRejection: more than one 2D slice (``N_slices == 1`` TT_FATAL of the factory).
    """
    if slices != 1:
        raise DeviceRejection(f"FillPadL1ShardedProgramFactory: N_slices > 1 not yet supported (got {slices}) "
                              "(fill_pad_program_factory.cpp TT_FATAL)")
    shard = x.shard
    sy, sx = shard.tile_shape
    cores = shard.cores
    xs = [c[0] for c in cores]
    cols = max(xs) - min(xs) + 1
    active = []
    for i, core in enumerate(cores):
        if x.memory_layout == "height_sharded":
            row, col = i, 0
        elif x.memory_layout == "width_sharded":
            row, col = 0, i
        else:
            row, col = i // cols, i % cols
        if row * sy < ht and col * sx < wt:
            active.append(core)
    tile = x.tile_bytes
    dfbs = [("data_in", tile, 2)] + ([("right_mask", tile, 1)] if right else []) \
        + ([("bot_mask", tile, 1)] if bottom else []) + [("data_out", tile, 2)]
    return _program("FillPadL1ShardedProgramFactory", "data_movement/fill_pad/device/fill_pad_program_factory.cpp",
                    merge(active), dfbs, [f"fills the tile padding of the {x.memory_layout} {list(x.shape)} in place "
                                          f"on {len(active)} shard cores"])


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------

_PAD = "data_movement/pad/device/"


def pad_rm_program(x4: Tensor, out_pad: tuple[int, ...], front: tuple[int, ...], multicore: bool,
                   arch: Arch, grid: tuple[int, int]) -> ProgramModel:
    """``prim::pad`` of an interleaved 4D row-major tensor.

    use_multicore -> PadRmReaderWriterMultiCoreDefaultProgramFactory: DFB ``in0`` of
    ``align16(padded row)`` entries, ``16 x ceil(2048 / entry)`` of them when the
    L1 budget ``l1_size / 2 - base`` allows (``clamp(budget / (ceil(2048 / entry)
    x entry), 1, 16)`` batches); scratchpads ``pad`` (``align64(padded row)``) and
    ``pad_align`` (same, when there is front padding on W or the row is not 64 B
    aligned); split over the output rows; refused (TT_FATAL "ttnn.pad: padded
    row of N B does not fit in the per-core L1 budget (M B)") when one barrier,
    ``ceil(2048 / entry) x entry`` B, exceeds the budget (measured on the mock
    P150, ttnn 0.81.1: a [1, 1, 3, 200000] f32 row padded by 8, 800,032 B >
    674,688 B; the plugin's tt-metal 614f605f: 1,600,032 B > 609,152 B).  Single core ->
    PadRmReaderWriterProgramFactory: DFB of ``round_up(padded row, max(alignment,
    32))`` x ``clamp(budget / entry, 1, 16)`` on core (0, 0), plus a 64 B L1
    pad-value tensor.  Sources: ``pad_rm_reader_writer_multi_core_default_program_factory.cpp``,
    ``pad_rm_reader_writer_program_factory.cpp``.

    Raises:
        DeviceRejection: the multi-core factory's barrier exceeds its L1 budget (TT_FATAL).
    """
    budget = arch.l1_size // 2 - arch.l1_unreserved_base
    row = out_pad[-1] * x4.element_bytes
    if multicore:
        a16, a64 = align_up(row, 16), align_up(row, 64)
        per_barrier = max(ceil_div(2048, a16), 1)
        if per_barrier * a16 > budget:
            raise DeviceRejection(f"ttnn.pad: padded row of {a16:,} B does not fit in the per-core L1 budget "
                                  f"({budget:,} B = l1_size / 2 - l1_unreserved_base): TT_FATAL in "
                                  "pad_rm_reader_writer_multi_core_default_program_factory.cpp")
        factor = min(max(budget // (per_barrier * a16), 1), 16)
        pad_align = front[-1] != 0 or a16 % 64 != 0
        rows = prod(out_pad[:-1])
        cores = split_work_to_cores(grid, rows).all_cores
        return _program("PadRmReaderWriterMultiCoreDefaultProgramFactory",
                        _PAD + "pad_rm_reader_writer_multi_core_default_program_factory.cpp", cores,
                        [("in0", a16, factor * per_barrier)],
                        [f"{rows:,} padded rows of {row} B on {cores.num_cores} cores; {factor} x {per_barrier} rows "
                         f"buffered; scratch pad {a64} B" + (f" + pad_align {a64} B" if pad_align else "")],
                        scratch=a64 * (2 if pad_align else 1))
    page = align_up(row, max(x4.alignment, TILE))
    n = min(max(budget // page, 1), 16)
    return _program("PadRmReaderWriterProgramFactory", _PAD + "pad_rm_reader_writer_program_factory.cpp",
                    cores_set(core_range(0, 0, 0, 0)), [("in0", page, n)],
                    ["single core (0, 0); also a 64 B L1 pad-value tensor (32 bf16) owned by the op"])


def pad_tile_program(x4: Tensor, out_pad: tuple[int, ...], multicore: bool, grid: tuple[int, int]) -> ProgramModel:
    """``prim::pad`` of an interleaved 4D TILE tensor.

    PadTileMulticoreProgramFactory: DFB ``in0`` 2 output pages (tiles), scratchpad
    one page, split over the output tiles; PadTileCoreProgramFactory: the same on
    core (0, 0) (``pad_tile_multicore_program_factory.cpp``, ``pad_tile_program_factory.cpp``).
    """
    tile = x4.tile_bytes
    if multicore:
        tiles = prod(out_pad) // (TILE * TILE)
        cores = split_work_to_cores(grid, tiles).all_cores
        return _program("PadTileMulticoreProgramFactory", _PAD + "pad_tile_multicore_program_factory.cpp", cores,
                        [("in0", tile, 2)], [f"{tiles:,} output tiles on {cores.num_cores} cores"], scratch=tile)
    return _program("PadTileCoreProgramFactory", _PAD + "pad_tile_program_factory.cpp",
                    cores_set(core_range(0, 0, 0, 0)), [("in0", tile, 2)], ["single core (0, 0)"], scratch=tile)


def _pad_steps(x: Tensor, padding: list[tuple[int, int]], multicore: bool, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.pad(x, padding, value, use_multicore, memory_config=out)`` (pad/pad.cpp).

    An L1-sharded input padded into an interleaved result goes to ``prim::pad`` like an
    interleaved one: the sharded factories need a height-sharded output
    (``can_use_sharded_optimized_factory``, pad_device_operation.cpp), so the default
    factories read the shards through their TensorAccessor.

    Raises:
        DeviceRejection: front padding of a TILE tensor.
        CBModelError: a sharded result, a DRAM-sharded input, block-float tensors.
    """
    if all(a == 0 and b == 0 for a, b in padding):
        return []
    if out.sharded or (x.sharded and x.mem.buffer_type != "l1"):
        if x.tiled:
            # pad.cpp invoke_tile fills the input's tile padding first, whatever the result's config: an L1-sharded
            # input of several 2D slices is refused there (measured: g1/ttnn.pad/398, a height-sharded result)
            check_fill_pad(x)
        # pad.cpp: a sharded result (the sharded factories, height-sharded width/height pads in two steps) and
        # the DRAM-sharded composite are not modeled
        raise CBModelError("pad into a sharded config, or of a DRAM-sharded tensor, is not modeled")
    if x.dtype.is_block_float:
        raise CBModelError(f"{x.dtype} pad goes through typecast programs")
    if x.sharded and not x.tiled and (x.mem.shard.shape[1] * x.element_bytes) % ctx.arch.l1_alignment:
        # PadDeviceOperation::validate (pad_device_operation.cpp @d80d9482): a sharded input's page (a row-major
        # shard row) must be its aligned page size (measured: g1/ttnn.pad/68, 180, 202, 231, 249 refused, every
        # sharded row-major pad with 16-B rows ran)
        row = x.mem.shard.shape[1] * x.element_bytes
        raise DeviceRejection(f"ttnn.pad: input row-major shard width {x.mem.shard.shape[1]} gives page size {row} "
                              f"bytes, which must be aligned to {ctx.arch.l1_alignment} bytes (TT_FATAL "
                              "pad_device_operation.cpp)")
    rank = x.rank
    steps: list[ProgramModel] = []
    if rank > 4:
        # pad_leading_dimensions: a padded dim above the last three is padded on the 4D view
        # [outer, dims d.. -3, H, W] (a view), as padding of its axis 1 scaled by the dims below d.
        padding = list(padding)
        for d in range(rank - 3):
            if padding[d] == (0, 0) or (d == rank - 4 and prod(x.shape[:rank - 3]) == x.shape[rank - 4]):
                continue
            inner = prod(x.shape[d + 1:rank - 2])
            view = x.with_(shape=(prod(x.shape[:d]), prod(x.shape[d:rank - 2]), x.shape[-2], x.shape[-1]))
            lead = [(0, 0), (padding[d][0] * inner, padding[d][1] * inner), (0, 0), (0, 0)]
            steps += _pad_steps(view, lead, multicore, view, ctx)
            shape = list(x.shape)
            shape[d] += sum(padding[d])
            x = x.with_(shape=tuple(shape))
            padding[d] = (0, 0)
        if all(p == (0, 0) for p in padding):
            if x.mem == out.mem:
                return steps
            raise CBModelError("the final to_memory_config of a leading-dim pad is not modeled")

    def to4(values: list, fill) -> list:
        """A per-dim list of the original rank, as ttnn's 4D squeeze/unsqueeze sees it."""
        return [fill] * (4 - rank) + list(values) if rank <= 4 else list(values[rank - 4:])

    shape4 = tuple(to4(list(x.shape), 1)) if rank <= 4 else (prod(x.shape[:rank - 3]),) + x.shape[rank - 3:]
    x4 = x.with_(shape=shape4)
    if not x.tiled:
        pads4 = to4(padding, (0, 0))
        out_pad = tuple(d + a + b for d, (a, b) in zip(shape4, pads4))
        if out_pad == shape4:
            return steps
        # PadDeviceOperation::select_program_factory: a sharded row-major input takes the multi-core default
        # factory whatever use_multicore says (measured: g1/ttnn.pad/113, use_multicore = false)
        return steps + [pad_rm_program(x4, out_pad, tuple(a for a, _ in pads4), multicore or x.sharded, ctx.arch,
                                       ctx.grid)]
    if any(a for a, _ in padding):
        raise DeviceRejection("ttnn.pad of a TILE tensor with front padding: tt-metal refuses it (pad.cpp invoke_tile "
                              "TT_FATAL 'on device tile padding does not support front padding')")
    steps += fill_pad_program(x, ctx.grid)
    req = tuple(d + b for d, (_, b) in zip(x.shape, padding))
    req_pad = tile_padded_shape(req)
    if rank == 1 and req_pad[-1] > x.padded[-1]:
        # pad.cpp invoke_tile: a rank-1 request is only a view of the filled input (experimental::view to the
        # requested padded shape), which needs more than the input's buffer once the width grows past its tiles
        # (measured: every such g1/ttnn.pad instance refused after the FillPad program ran)
        why = (f"TT_FATAL tensor_spec.cpp 'Shard width {x.padded[-1]} must match physical width {req_pad[-1]} "
               "for height sharded'" if x.sharded else
               "TT_FATAL mesh_tensor_impl.hpp 'MeshBuffer must be large enough to hold the tensor'")
        raise DeviceRejection(f"ttnn.pad of a rank-1 TILE tensor [{x.shape[0]}] to [{req[0]}]: tt-metal views the "
                              f"filled {x.padded[-1]}-wide tile row as {req_pad[-1]} wide over the same buffer ({why})")
    if rank == 1 or (req[:-2] == x.shape[:-2] and req_pad[-2:] == x.padded[-2:]):
        return steps
    grow = to4([rp - xp for rp, xp in zip(req_pad, x.padded)], 0)
    out_pad = tuple(p + g for p, g in zip(x4.padded, grow))
    return steps + [pad_tile_program(x4, out_pad, multicore, ctx.grid)]


# ---------------------------------------------------------------------------
# slice
# ---------------------------------------------------------------------------

_SLICE = "data_movement/slice/device/"


def _slice_rm_composite(x: Tensor, begins: list[int]) -> bool:
    """``needs_rm_composite_input`` (slice/slice.cpp) for a row-major sharded input and an interleaved
    output: block/width sharded with a last dim that is not a tile multiple, a non-zero width begin or
    a shard row not a multiple of the buffer alignment; height sharded with a last or second-last
    dim that is not a tile multiple."""
    h = x.shape[-2] if x.rank >= 2 else 1
    if x.mem.memory_layout in ("block_sharded", "width_sharded"):
        row = x.mem.shard.shape[1] * x.element_bytes
        return x.shape[-1] % TILE != 0 or begins[-1] != 0 or row % x.alignment != 0
    return x.rank >= 2 and (x.shape[-1] % TILE != 0 or h % TILE != 0)


def slice_tile_program(x: Tensor, out_shape: tuple[int, ...], grid: tuple[int, int]) -> ProgramModel:
    """SliceTileProgramFactory: DFB ``in`` of 2 tiles, scratchpad ``rank x 4`` B, split over output tiles.

    (``slice/device/slice_program_factory_tile.cpp``)
    """
    tiles = prod(tile_padded_shape(out_shape)) // (TILE * TILE)
    cores = split_work_to_cores(grid, tiles).all_cores
    return _program("SliceTileProgramFactory", _SLICE + "slice_program_factory_tile.cpp", cores,
                    [("in", x.tile_bytes, 2)], [f"{tiles:,} output tiles on {cores.num_cores} cores"],
                    scratch=x.rank * 4)


def slice_rm_program(x: Tensor, begins: list[int], out: Tensor, grid: tuple[int, int], free_l1: int) -> ProgramModel:
    """SliceRmProgramFactory (unit steps, interleaved row-major).

    Work split over the output rows; DFB ``in`` entries of the output row rounded
    up to the larger buffer alignment (doubled when the first W byte is not
    aligned in the source), ``2 x num_read_per_barrier`` of them, where
    ``num_read_per_barrier = pad32(rows per core) / merge_num_sticks_to_read(pad32(rows
    per core), aligned row, 4096)``; rows wider than half the free L1 are read in
    8 KiB chunks.  Scratchpad ``rank x 4`` B.  (``slice/device/slice_program_factory_rm.cpp``
    ``compute_dfb_size``)

    Raises:
        DeviceRejection: two entries do not fit in the free L1 (``get_max_l1_space``), or the
            budget is too small for chunking (both TT_FATAL in ``compute_dfb_size``).
    """
    single = max(x.alignment, out.alignment)
    misalign = (begins[-1] * x.element_bytes) % x.alignment
    alignment = single * (2 if misalign else 1)
    row = out.shape[-1] * x.element_bytes
    entry = align_up(row, alignment)
    stride = align_up(row, single)
    rows = out.volume // out.shape[-1]
    cores = split_work_to_cores(grid, rows).all_cores
    per_core = ceil_div(rows, cores.num_cores)
    note = ""
    if misalign == 0 and 2 * entry > free_l1 and entry > alignment:
        chunk = (min(8192, free_l1 // 8) // alignment) * alignment
        if chunk < alignment:
            raise DeviceRejection(f"ttnn::slice: L1 budget {free_l1:,} B too small for sub-row chunking "
                                  "(slice_program_factory_rm.cpp compute_dfb_size TT_FATAL)")
        n = ceil_div(row, chunk)
        if n % 2:
            cand = (row // (n + 1) // alignment) * alignment
            if cand >= alignment and ceil_div(row, cand) % 2 == 0:
                chunk, n = cand, ceil_div(row, cand)
        entry, nrpb = chunk, (2 if n % 2 == 0 else 1)
        note = f"; rows read in {n} chunks of {chunk} B"
    else:
        pad32 = align_up(per_core, 32)
        nrpb = pad32 // merge_num_sticks_to_read(pad32, stride, 4096)
    if 2 * entry > free_l1:
        raise DeviceRejection(f"ttnn::slice: required DFB size {2 * entry:,} B exceeds per-core L1 budget {free_l1:,} B "
                              f"(row {row:,} B, misalignment {misalign} B: no sub-row chunking; "
                              "slice_program_factory_rm.cpp compute_dfb_size TT_FATAL)")
    return _program("SliceRmProgramFactory", _SLICE + "slice_program_factory_rm.cpp", cores,
                    [("in", entry, 2 * nrpb)],
                    [f"{rows:,} output rows of {row} B on {cores.num_cores} cores; {nrpb} rows per barrier" + note],
                    scratch=x.rank * 4)


def slice_rm_stride_program(x: Tensor, out: Tensor, grid: tuple[int, int]) -> ProgramModel:
    """SliceRmStrideProgramFactory (non-unit steps): DFB ``in`` of 2 input rows (aligned), split over output rows.

    (``slice/device/slice_program_factory_rm_stride.cpp``)
    """
    entry = align_up(x.shape[-1] * x.element_bytes, max(x.alignment, out.alignment))
    rows = out.volume // out.shape[-1]
    cores = split_work_to_cores(grid, rows).all_cores
    return _program("SliceRmStrideProgramFactory", _SLICE + "slice_program_factory_rm_stride.cpp", cores,
                    [("in", entry, 2)], [f"{rows:,} output rows on {cores.num_cores} cores"])


def _slice_steps(x: Tensor, dims: list[tuple[int, int, int, int]], out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.slice(x, begins, ends, step, memory_config=out)`` (slice/slice.cpp).

    A full slice is ``to_memory_config`` to the requested config (nothing when it is the
    input's).  TILE tensors with unit steps and tile-aligned begins on the last two dims use
    SliceTile (a sharded input is read through its TensorAccessor: the same program);
    otherwise a TILE tensor is untilized into the requested config, sliced row-major and
    tilized back (``to_layout``).  A row-major sharded input whose geometry the sharded
    NoC helpers cannot page (:func:`_slice_rm_composite`) is sliced in L1 interleaved
    between two ``to_memory_config`` hops.

    Raises:
        CBModelError: a sharded requested config, negative steps, and the layout steps
            this module does not model (see :func:`_to_row_major`, :func:`_to_tile`).
    """
    begins = [b for b, _, _, _ in dims]
    steps = [s for _, _, s, _ in dims]
    out_shape = tuple(n for *_, n in dims)
    if all(s == 1 for s in steps) and out_shape == x.shape:
        # slice.cpp "No-op check": ret_adjustment(input) = to_memory_config to the same config, sharded or
        # not (measured: g1/ttnn.slice_static/5, a width-sharded full slice, runs no program)
        move = LC.to_memory_config_program(x, out, ctx.arch)
        return [move] if move is not None else []
    if out.sharded:
        raise CBModelError("slice into a sharded config is not modeled")
    if any(s < 0 for s in steps):
        raise CBModelError("negative slice steps are not modeled")
    if x.sharded and not x.tiled and _slice_rm_composite(x, begins):
        # slice.cpp composite hop: to_memory_config(x, L1 interleaved), the slice there, then to_memory_config
        # into the requested config (measured: g1/ttnn.slice_static/8, sharded_to_interleaved, SliceRm, copy)
        l1 = MemCfg("l1", "interleaved")
        x1, out1 = x.with_(mem=l1), out.with_(mem=l1)
        move = LC.to_memory_config_program(out1, out, ctx.arch)
        return ([LC.to_memory_config_program(x, x1, ctx.arch)] + _slice_steps(x1, dims, out1, ctx)
                + ([move] if move is not None else []))
    unit = all(s == 1 for s in steps)
    aligned = x.rank == 1 or (begins[-1] % TILE == 0 and begins[-2] % TILE == 0)
    rm_only = not x.tiled or not unit or x.rank == 1 or not aligned
    if not rm_only:
        return [slice_tile_program(x, out_shape, ctx.grid)]
    progs: list[ProgramModel] = []
    src = x
    if x.tiled:
        if not unit and x.dtype.is_block_float:
            raise CBModelError("strided slice is not supported for bfloat8 tensors")
        progs += _to_row_major(x, out, ctx)
        src = out.with_(shape=x.shape, dtype=x.dtype, layout="row_major")
    res = out.with_(shape=out_shape, dtype=x.dtype, layout="row_major")
    progs.append(slice_rm_program(src, begins, res, ctx.grid, ctx.max_l1_space) if unit
                 else slice_rm_stride_program(src, res, ctx.grid))
    if x.tiled:
        progs += _to_tile(res, out, ctx)
    return progs


# ---------------------------------------------------------------------------
# concat
# ---------------------------------------------------------------------------

_CONCAT = "data_movement/concat/device/"


def concat_program(xs: list[Tensor], dim: int, out: Tensor, arch: Arch, grid: tuple[int, int],
                   tt_metal: str = "0.81.1") -> ProgramModel:
    """ConcatProgramFactory (interleaved inputs and output).

    One DFB ``src0`` of one output page: a tile, or a row-major row rounded up to
    the larger of the first input's and the output's buffer alignment; 2 pages
    unless that exceeds ``l1_size / 2 - base``; split over the output pages
    (``concat/device/concat_program_factory.cpp``).

    tt-metal 614f605f (jax-tt-plugin 0.1.3's runtime) sizes a row-major entry as
    an output row plus the widest input's row, each rounded up the same way:
    measured to the byte on the mock P150 through the real compiler (1-D f32
    concats of two 117,000 / 170,000 / 200,000 / 400,000-element inputs:
    1,404,032, 2,040,000, 2,400,000 and 4,800,000 B; a roll's concat of 7 +
    399,993 elements: 3,200,000 B; a bf16 concat of 4 x 172,102 + 8,605 elements:
    1,394,048 + 344,256 = 1,738,304 B, which rules out the last input's row),
    while ttnn 0.81.1 sizes it as the output row alone (a [1, 174400] x 2 f32
    concat ran, a [1, 200000] x 2 one asked for 1,600,000 B; measured).  The
    stored tt-metal source read has the output-row rule only.

    Raises:
        DeviceRejection: one entry exceeds the L1 capacity ``l1_size - base``
            (TT_FATAL "ttnn.concat: required DFB entry size (N B) exceeds per-core
            L1 capacity (M B)", ``concat_program_factory.cpp`` ``single_page_size <=
            l1_capacity``).
    """
    if out.tiled:
        pages = out.physical_volume // (TILE * TILE)
        page = out.tile_bytes
    else:
        pages = out.volume // out.shape[-1]
        align = max(xs[0].alignment, out.alignment)
        page = align_up(out.shape[-1] * out.element_bytes, align)
        if tt_metal == "614f605f":
            page += max(align_up(t.shape[-1] * t.element_bytes, align) for t in xs)
    capacity = arch.l1_size - arch.l1_unreserved_base
    if page > capacity:
        what = "an output row" + (" plus the widest input's row (tt-metal 614f605f)" if tt_metal == "614f605f" else "")
        raise DeviceRejection(f"ttnn.concat: required DFB entry size ({page:,} B: {what}, row major) exceeds "
                              f"per-core L1 capacity ({capacity:,} B = l1_size - l1_unreserved_base): TT_FATAL in "
                              "concat_program_factory.cpp")
    n = 2 if 2 * page <= arch.l1_size // 2 - arch.l1_unreserved_base else 1
    cores = split_work_to_cores(grid, pages).all_cores
    return _program("ConcatProgramFactory", _CONCAT + "concat_program_factory.cpp", cores, [("src0", page, n)],
                    [f"{len(xs)} inputs along dim {dim}; {pages:,} output pages of {page} B on {cores.num_cores} cores"])


def concat_tiled_unaligned_program(xs: list[Tensor], grid: tuple[int, int]) -> ProgramModel:
    """ConcatTiledUnalignedProgramFactory: last-dim concat of TILE inputs whose widths are not tile multiples.

    Work is one 32-row band per core group (:func:`split_blocks_for_tilize` over
    the bands); CBs (legacy ``CBDescriptor``, one tile per page): ``c_0`` 2 x the
    input tiles of a band, ``c_1`` the input tiles of a band, ``c_2`` the output
    tiles of a band, ``c_16`` 2 x the output tiles of a band, on the split's
    ``all_cores``: one range per core, unmerged (the ``CoreRangeSet`` overload;
    ``concat/device/concat_tiled_unaligned_program_factory.cpp``).
    """
    in_wt = sum(t.padded[-1] // TILE for t in xs)
    out_wt = ceil_div(sum(t.shape[-1] for t in xs), TILE)
    bands = xs[0].physical_volume // xs[0].padded[-1] // TILE
    cores = split_blocks_for_tilize(grid, bands).all_cores
    tile = xs[0].tile_bytes
    cbs = [CB(0, "c_0 in", tile, 2 * in_wt, cores), CB(1, "c_1 rm", tile, in_wt, cores),
           CB(2, "c_2 asm", tile, out_wt, cores), CB(16, "c_16 out", tile, 2 * out_wt, cores)]
    return ProgramModel("ConcatTiledUnalignedProgramFactory", _TM + _CONCAT + "concat_tiled_unaligned_program_factory.cpp",
                        cores, cbs, [f"{bands:,} bands of {in_wt} input / {out_wt} output tiles on {cores.num_cores} cores"])


def _tiled_unaligned_ok(xs: list[Tensor], dim: int, out: Tensor, ctx: CBContext) -> bool:
    """``can_use_tiled_unaligned_concat``: a last-dim concat of 2..32 bf16/f32 TILE inputs, one unaligned.

    Also needs its CBs plus the pending L1 output (for an L1 interleaved output)
    to fit in the free L1 (``get_max_l1_space``).
    """
    rank = xs[0].rank
    if not 2 <= len(xs) <= 32 or out.sharded or rank < 2 or dim != rank - 1:
        return False
    if xs[0].dtype.name not in ("bf16", "f32") or any(not t.tiled or t.sharded for t in xs):
        return False
    if not any(t.shape[-1] != t.padded[-1] for t in xs):
        return False
    in_wt = sum(t.padded[-1] // TILE for t in xs)
    out_wt = ceil_div(sum(t.shape[-1] for t in xs), TILE)
    if xs[0].physical_volume // xs[0].padded[-1] // TILE == 0:
        return False
    # the pending output: tiles of the inputs' format, the inputs' rows by out_wt tiles
    pending = LC.pending_l1_output(ctx.arch, out.with_(dtype=xs[0].dtype, layout="tile"))
    return (3 * in_wt + 3 * out_wt) * xs[0].tile_bytes + pending <= ctx.max_l1_space


def _concat_impl_steps(xs: list[Tensor], dim: int, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``concat_impl``: ConcatDeviceOperation on interleaved tensors (tiled-unaligned or the default factory)."""
    if _tiled_unaligned_ok(xs, dim, out, ctx):
        return [concat_tiled_unaligned_program(xs, ctx.grid)]
    return [concat_program(xs, dim, out, ctx.arch, ctx.grid, ctx.tt_metal)]


def _concat_steps(xs: list[Tensor], dim: int, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.concat(xs, dim, memory_config=out)`` (concat/concat.cpp).

    In tt-metal's order: ConcatTiledUnaligned when eligible; else TILE inputs with
    tile padding on the concat dim are untilized (untilize_with_unpadding),
    concatenated row-major and tilized back (tilize_with_val_padding); a row-major
    concat on the last dim whose rows are not a multiple of the buffer alignment
    runs between two transposes of the last two dims; else ConcatProgramFactory.

    Raises:
        DeviceRejection: sharded and interleaved inputs: "All tensors must be sharded or all must be
            interleaved" (concat_device_operation.cpp:170 at d80d9482; measured: g1/ttnn.concat/16, 97, 127, 294,
            337, 368), except a width- or block-sharded input that takes the untilize round trip or the last-dim
            path (g1/ttnn.concat/213 ran: its shards went through sharded_to_interleaved; not modeled);
            a rank-1 bfloat8_b concat of tile-multiple widths (ttnn untilizes the inputs, then indexes a dim the
            rank-1 shape lacks: "Index is out of bounds for the rank", shape.cpp; measured: g1/ttnn.concat/251,
            255, 376 refused, every rank-1 bfloat8_b concat with a padded input and every bf16/f32 one ran).
        CBModelError: sharded tensors, a single input (to_memory_config), the
            chunked path for rows wider than L1.
    """
    rank = xs[0].rank
    sharded = [t.sharded for t in xs]
    round_trip = xs[0].tiled and any(t.shape[dim] != t.padded[dim] or rank == 1 for t in xs)
    unsettled = (round_trip or dim == rank - 1) and any(
        t.mem.memory_layout in ("width_sharded", "block_sharded") for t in xs if t.sharded)
    if any(sharded) and not all(sharded) and not unsettled:
        raise DeviceRejection("concat: All tensors must be sharded or all must be interleaved (TT_FATAL "
                              "concat_device_operation.cpp)")
    if (rank == 1 and len(xs) > 1 and all(t.tiled and t.dtype.name == "bfp_bf8" for t in xs)
            and all(t.shape[0] % TILE == 0 for t in xs)):
        raise DeviceRejection("concat of rank-1 bfloat8_b tensors of tile-multiple widths: TT_FATAL shape.cpp "
                              "'Index is out of bounds for the rank' after the untilize (measured)")
    if any(sharded) or out.sharded:
        raise CBModelError("concat of sharded tensors is not modeled")
    if len(xs) == 1:
        if xs[0].mem == out.mem:
            return []
        raise CBModelError("concat of one tensor is ttnn.to_memory_config")
    rank = xs[0].rank
    if _tiled_unaligned_ok(xs, dim, out, ctx):
        return [concat_tiled_unaligned_program(xs, ctx.grid)]
    if rank >= 2 and dim == rank - 1:
        align = max(xs[0].alignment, out.alignment)
        page = align_up(_element_size(xs[0]) * xs[0].shape[-2], align)
        padded_dim = any(t.shape[dim] != t.padded[dim] for t in xs) if xs[0].tiled else True
        transposes = padded_dim and any((t.shape[dim] * _element_size(t)) % align for t in xs)
        if transposes and page > ctx.arch.l1_size - ctx.arch.l1_unreserved_base:
            raise CBModelError("concat of rows wider than L1 is chunked through slices (not modeled)")
    if xs[0].tiled and any(t.shape[dim] != t.padded[dim] or rank == 1 for t in xs):
        rms = [LC.untilize_output(t, t.mem) for t in xs]  # bfloat8_b untilizes to bfloat16
        steps = [_layout_program(LC.uwu_program, t, rm, ctx) for t, rm in zip(xs, rms)]
        rm_out = out.with_(layout="row_major", dtype=rms[0].dtype)
        steps += _concat_rm_steps(rms, dim, rm_out, ctx)
        # tilize_with_val_padding keeps the row-major dtype: a bfloat8_b concat returns bfloat16 (measured:
        # g1/ttnn.concat/3, no typecast program after the tilize)
        steps.append(_layout_program(LC.twvp_program, rm_out, out.with_(layout="tile", dtype=rm_out.dtype), ctx))
        return steps
    if xs[0].tiled:
        if rank >= 2 and dim == rank - 1 and any((t.padded[-1] * _element_size(t)) % t.alignment for t in xs):
            # build_non_aligned_last_dim_concat: a padded last dim of Tensor::element_size bytes that is not a
            # multiple of the buffer alignment (block floats in DRAM: 32 x 1 B per tile column) is concatenated
            # between two WH transposes (measured: g1/ttnn.concat/53, bfloat8_b [4, 4, 544, 32 | 576] in DRAM)
            return _transposed_concat_steps(xs, out, ctx)
        return _concat_impl_steps(xs, dim, out, ctx)
    return _concat_rm_steps(xs, dim, out, ctx)


def _transposed_concat_steps(xs: list[Tensor], out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``build_prepost_transpose_concat(-2, -1)`` (concat/concat.cpp): transpose each input's last two dims
    (into its own memory config), concat along the new dim -2 into the output config, transpose back."""
    rank = xs[0].rank
    perm = tuple(range(rank - 2)) + (rank - 1, rank - 2)
    steps: list[ProgramModel] = []
    moved = []
    for t in xs:
        tt = t.with_(shape=tuple(t.shape[p] for p in perm))
        steps += transpose_steps(t, rank - 2, rank - 1, tt, ctx.grid, ctx.arch)
        moved.append(tt)
    cat = out.with_(shape=tuple(out.shape[p] for p in perm))
    steps += _concat_impl_steps(moved, rank - 2, cat, ctx)
    return steps + transpose_steps(cat, rank - 2, rank - 1, out, ctx.grid, ctx.arch)


def _concat_rm_steps(xs: list[Tensor], dim: int, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """Row-major concat: directly, or between transposes of the last two dims when rows are unaligned.

    tt-metal 614f605f concatenates unaligned 1-D rows directly (a roll's [7] + [299993] f32 concat asked
    for one 2,400,000 B entry: the output row plus the widest input's row; measured through the real
    compiler), where ttnn 0.81.1 goes through [1, W] views and transposes.
    """
    rank = xs[0].rank
    if rank == 1:
        if ctx.tt_metal != "614f605f" and any((t.shape[0] * t.element_bytes) % t.alignment for t in xs):
            # unsqueeze_squeeze_1D: concat [1, W] tensors along dim 1 (views), then squeeze
            return _concat_rm_steps([t.with_(shape=(1,) + t.shape) for t in xs], 1, out.with_(shape=(1,) + out.shape),
                                    ctx)
        return _concat_impl_steps(xs, dim, out, ctx)
    if dim == rank - 1 and any((t.shape[dim] * t.element_bytes) % t.alignment for t in xs):
        return _transposed_concat_steps(xs, out, ctx)
    return _concat_impl_steps(xs, dim, out, ctx)


# ---------------------------------------------------------------------------
# repeat_interleave
# ---------------------------------------------------------------------------


def repeat_interleave_codegen_program(x: Tensor, repeats: int, grid: tuple[int, int],
                                      free_l1: int, out: Tensor) -> ProgramModel:
    """RepeatInterleaveCodegenProgramFactory (legacy CB ``c_0``), split over the output pages.

    The CB sits on the split's own ``all_cores`` ranges (column first, unmerged;
    measured: 52 output tiles on ``{[0-0 - 4-9], [5-0 - 5-1]}``).

    TILE: 8 output tiles.  Row-major: ``2 x batch`` slots of the row rounded up
    to the larger of the input's and output's alignment, ``batch`` = 4 halved
    until ``2 x batch`` slots fit in the free L1.  Output pages: tiles (TILE) or
    rows (row-major) of the output (``repeat_interleave/codegen/repeat_interleave_codegen_program_factory.cpp``).
    """
    if x.tiled:
        pages = prod(x.shape[:-2]) * ceil_div(x.shape[-2], TILE) * ceil_div(x.shape[-1], TILE) * repeats
        page, n = out.tile_bytes, 8
    else:
        pages = x.volume // x.shape[-1] * repeats
        row = x.shape[-1] * x.element_bytes
        page = max(align_up(row, x.alignment), align_up(row, out.alignment))
        slots = free_l1 // page
        batch = 4
        while 2 * batch > slots:
            batch //= 2
        n = 2 * batch
    cores = split_work_to_cores(grid, pages).all_cores
    return ProgramModel("RepeatInterleaveCodegenProgramFactory",
                        _TM + "data_movement/repeat_interleave/codegen/repeat_interleave_codegen_program_factory.cpp",
                        cores, [CB(0, "c_0", page, n, cores)],
                        [f"{pages:,} output pages on {cores.num_cores} cores"])


def _repeat_interleave_steps(x: Tensor, repeats: int, dim: int, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.repeat_interleave(x, repeats, dim, memory_config=out)``.

    Codegen path (rank 2..4, interleaved, bf16/f32/si32, repeats > 1, the dim not
    inside a tile / row, enough L1 for two row slots); otherwise the native path
    (repeat_interleave/repeat_interleave.cpp): a last-dim repeat between two
    transposes; else untilize (``to_layout``), one concat of the ``repeats``
    unsqueezed copies (batches of 32), reshape (a view) and tilize back.

    Raises:
        CBModelError: sharded tensors, block-float/uint8 typecasts, more than 32
            repeats (several concat batches), layout steps not modeled here.
    """
    if x.sharded or out.sharded:
        raise CBModelError("repeat_interleave of sharded tensors is not modeled")
    rank = x.rank
    if rank == 1 and repeats > 1:
        # repeat_interleave_native (repeat_interleave.cpp): unsqueeze to [n, 1] (a ttnn::reshape), repeat dim 0,
        # reshape back to [n * repeats]; both reshapes change the last dim, so neither is a view
        n = x.shape[0]
        x2, out2 = x.with_(shape=(n, 1)), out.with_(shape=(n * repeats, 1))
        return (reshape_steps(x, (n, 1), x2, ctx) + _repeat_interleave_native(x2, repeats, 0, out2, ctx)
                + reshape_steps(out2, (n * repeats,), out, ctx))
    if repeats == 1:
        if x.mem == out.mem:
            return []
        raise CBModelError("repeat_interleave with one repeat is ttnn.to_memory_config")
    codegen = (2 <= rank <= 4 and x.dtype.name in ("bf16", "f32", "si32") and x.volume > 0
               and ((x.tiled and dim < rank - 2) or (not x.tiled and x.shape[-1] >= 2 and dim < rank - 1
                    and ctx.max_l1_space // max(align_up(x.shape[-1] * x.element_bytes, x.alignment),
                                                align_up(x.shape[-1] * x.element_bytes, out.alignment)) >= 2)))
    if codegen:
        return [repeat_interleave_codegen_program(x, repeats, ctx.grid, ctx.max_l1_space, out)]
    return _repeat_interleave_native(x, repeats, dim, out, ctx)


def _repeat_interleave_native(x: Tensor, repeats: int, dim: int, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``repeat_interleave_native``: transposes around a last-dim repeat, else untilize / concat / tilize.

    Raises:
        CBModelError: block-float/uint8 typecasts, more than 32 repeats, a final
            to_memory_config, layout steps not modeled here.
    """
    rank = x.rank
    if x.dtype.is_block_float or x.dtype.name == "u8":
        raise CBModelError(f"repeat_interleave of {x.dtype} goes through typecasts")
    if dim == rank - 1:
        perm = list(range(rank))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        xt = out.with_(shape=tuple(x.shape[p] for p in perm), dtype=x.dtype, layout=x.layout)
        yt = xt.with_(shape=tuple(out.shape[p] for p in perm))
        return (transpose_steps(x, rank - 2, rank - 1, xt, ctx.grid)
                + _repeat_interleave_native(xt, repeats, rank - 2, yt, ctx)
                + transpose_steps(yt, rank - 2, rank - 1, out, ctx.grid))
    if repeats > 32:
        raise CBModelError("repeat_interleave with more than 32 repeats concatenates in batches (not modeled)")
    steps: list[ProgramModel] = []
    rm = x.with_(layout="row_major")
    if x.tiled:
        steps += _to_row_major(x, x, ctx)
    piece = rm.with_(shape=x.shape[:dim + 1] + (1,) + x.shape[dim + 1:])
    cat = piece.with_(shape=x.shape[:dim + 1] + (repeats,) + x.shape[dim + 1:], mem=MemCfg("dram", "interleaved"))
    steps += _concat_rm_steps([piece] * repeats, dim + 1, cat, ctx)
    if x.tiled:
        steps += _to_tile(cat.with_(shape=out.shape), cat.with_(shape=out.shape), ctx)
    # the final ttnn::to_memory_config(result, mem_config): a copy when the requested config differs
    last = cat.with_(shape=out.shape, layout=out.layout, dtype=out.dtype)
    move = LC.to_memory_config_program(last, out, ctx.arch)
    return steps + ([move] if move is not None else [])


# ---------------------------------------------------------------------------
# repeat
# ---------------------------------------------------------------------------

_REPEAT = "data_movement/repeat/"


def repeat_codegen_program(x4: Tensor, d: int, r: int, out4: Tensor, grid: tuple[int, int], free_l1: int) -> ProgramModel:
    """One RepeatCodegenProgramFactory leg: repeat dim ``d`` of the 4D view ``x4`` ``r`` times.

    Legacy CB ``c_0`` on the split's own ``all_cores`` ranges (column first,
    unmerged; measured: 52 output tiles on ``{[0-0 - 4-9], [5-0 - 5-1]}``).

    TILE: one CB ``c_0`` of 8 aligned output pages (tiles) split over the output
    tiles; when the leg repeats an outer dim (``d < 2``) into an L1 interleaved
    output, the direct kernel with 1 tile split over the input tiles.
    Row-major: ``c_0`` of ``depth`` slots of ``max(aligned input row, aligned output
    row)``, ``depth = 2 x min(4, slots / 2)`` of the slots that fit in the free L1 (1
    when only one fits), split over the output rows (the input rows for a last-dim
    repeat).  (``repeat/codegen/repeat_codegen_program_factory.cpp``, ``plan_rm_cb``)

    Raises:
        CBModelError: not even one row-major slot fits in the free L1.
    """
    src = _TM + _REPEAT + "codegen/repeat_codegen_program_factory.cpp"
    n, c, h, w = x4.shape
    if x4.tiled:
        tiles_in = n * c * ceil_div(h, TILE) * ceil_div(w, TILE)
        if d < 2 and out4.l1 and not out4.sharded:
            cores = split_work_to_cores(grid, tiles_in).all_cores
            return ProgramModel("RepeatCodegenProgramFactory", src, cores, [CB(0, "c_0", out4.tile_bytes, 1, cores)],
                                [f"dim {d} x{r}: direct outer-dim copy of {tiles_in:,} tiles on {cores.num_cores} cores"])
        pages = tiles_in * r
        cores = split_work_to_cores(grid, pages).all_cores
        return ProgramModel("RepeatCodegenProgramFactory", src, cores, [CB(0, "c_0", out4.tile_bytes, 8, cores)],
                            [f"dim {d} x{r}: {pages:,} output tiles on {cores.num_cores} cores"])
    sticks = n * c * h
    pages = sticks if d == 3 else sticks * r
    slot = max(align_up(w * x4.element_bytes, x4.alignment), align_up(out4.shape[-1] * x4.element_bytes, out4.alignment))
    slots = free_l1 // slot
    if slots == 0:
        raise CBModelError(f"repeat: a {slot} B row slot does not fit in the free L1 ({free_l1:,} B)")
    depth = 1 if slots == 1 else 2 * min(4, slots // 2)
    cores = split_work_to_cores(grid, pages).all_cores
    return ProgramModel("RepeatCodegenProgramFactory", src, cores, [CB(0, "c_0", slot, depth, cores)],
                        [f"dim {d} x{r}: {pages:,} rows on {cores.num_cores} cores, {depth} slots of {slot} B"])


def _row_l1_per_bank(t: Tensor, banks: int) -> int:
    """L1 bytes per bank of an interleaved tensor (0 in DRAM): ``ceil(pages / banks) x align16(page)``."""
    if not t.l1:
        return 0
    if t.tiled:
        return ceil_div(t.physical_volume // (TILE * TILE), banks) * t.tile_bytes
    return ceil_div(t.volume // t.shape[-1], banks) * align_up(t.shape[-1] * t.element_bytes, t.l1_alignment)


def _repeat_legs(x: Tensor, reps: list[int], tile_legs: bool) -> list[tuple[int, int]]:
    """(dim, repeats) of each codegen leg (``plan_codegen_legs``): a leading size-1 dim's repeats fold into
    the next dim; TILE legs run outermost dim first, row-major legs last dim first."""
    legs = list(reps)
    for d in range(x.rank - (3 if tile_legs else 2)):
        if x.shape[d] == 1 and legs[d] > 1 and legs[d + 1] > 1:
            legs[d + 1] *= legs[d]
            legs[d] = 1
    order = range(x.rank) if tile_legs else range(x.rank - 1, -1, -1)
    return [(d, legs[d]) for d in order if legs[d] > 1]


def _rm_legs_fit(x: Tensor, legs: list[tuple[int, int]], out: Tensor, committed: int, fits) -> bool:
    """``row_major_legs_fit``: walk the row-major legs, adding each leg output's L1 to ``committed``."""
    cur = x
    for i, (d, r) in enumerate(legs):
        shape = list(cur.shape)
        shape[d] *= r
        where = out if i == len(legs) - 1 else cur
        nxt = where.with_(shape=tuple(shape), dtype=x.dtype, layout="row_major")
        committed += _row_l1_per_bank(nxt, 110)
        slot = max(align_up(cur.shape[-1] * x.element_bytes, cur.alignment), align_up(nxt.shape[-1] * x.element_bytes, nxt.alignment))
        if not fits(slot, committed):
            return False
        cur = nxt
    return True


def _untilize_for_repeat(x: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """``ttnn.untilize`` of a tile tensor (:func:`ttanalyze.ops.layout_conversion.untilize_program`: the
    code generator for bf16/bfp8, untilize_with_unpadding for a padded one, else UntilizeDeviceOperation)."""
    return [_layout_program(LC.untilize_program, x, LC.untilize_output(x, x.mem), ctx)]


def _repeat_steps(x: Tensor, reps: list[int], out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.repeat(x, reps, memory_config=out)`` (repeat/repeat.cpp).

    Codegen (``repeat_codegen_supported.cpp``): interleaved rank 2..4 tensors; one
    RepeatCodegen program per leg (:func:`_repeat_legs`).  A TILE tensor with a
    partial tile repeated along one of its last two dims is untilized first and
    tilized back (row-major legs); row-major legs need their row slots to fit
    the L1 window (``l1_size - base``) and the free L1.  Otherwise the native path:
    TILE tensors whose last two dims are tile multiples run one
    RepeatProgramFactoryHigherDim per repeated dim (scratch ``128 + tile``);
    others go row-major (untilize first, tilize after for TILE) and run
    RepeatProgramFactoryLastDim for the last dim (scratch ``2 x (128 + k x row)``,
    ``k`` = 1, 2, 4, 8 or 16 as the row is 16, 8, 4, 2 or 1 B aligned) and
    RepeatProgramFactoryHigherDim for the others (scratch ``2 x (128 + row)``),
    last dim first, on every core (``repeat/device/repeat_program_factory_{last,higher}_dim.cpp``).

    Raises:
        CBModelError: sharded tensors, zero repeats (ttnn.zeros), a final
            to_memory_config, untilize steps of the layout-conversion family.
    """
    if x.sharded or out.sharded:
        raise CBModelError("repeat of sharded tensors is not modeled")
    if len(reps) > x.rank:
        x = x.with_(shape=(1,) * (len(reps) - x.rank) + x.shape)
    reps = [1] * (x.rank - len(reps)) + list(reps)
    if any(r == 0 for r in reps):
        raise CBModelError("repeat with a zero repeat is ttnn.zeros")
    if all(r == 1 for r in reps):
        if x.mem == out.mem:
            return []
        raise CBModelError("repeat by ones to another memory config is ttnn.to_memory_config")
    if x.dtype.is_block_float:
        raise CBModelError(f"repeat of {x.dtype} goes through typecasts")
    rank = x.rank
    sub_tile = x.tiled and rank >= 2 and (x.shape[-1] % TILE != 0 or x.shape[-2] % TILE != 0)
    round_trip = sub_tile and (reps[-2] > 1 or reps[-1] > 1)
    window = ctx.arch.l1_size - ctx.arch.l1_unreserved_base
    codegen = 2 <= rank <= 4 and (x.tiled and not round_trip)
    if 2 <= rank <= 4 and not codegen:
        rm_x = x.with_(layout="row_major") if round_trip else x
        legs = _repeat_legs(rm_x, reps, False)
        base = _row_l1_per_bank(x, 110) + (_row_l1_per_bank(rm_x, 110) if round_trip else 0)
        if x.buffer_type == "dram" and out.buffer_type == "dram":
            codegen = 2 * align_up(x.shape[-1] * reps[-1] * x.element_bytes, x.dram_alignment) <= window
        else:
            codegen = _rm_legs_fit(rm_x, legs, out, base, lambda slot, used: used < window and 2 * slot <= window - used)
        free = ctx.max_l1_space
        codegen = codegen and _rm_legs_fit(rm_x, legs, out, 0, lambda slot, used: used < free and slot <= free - used)
    steps: list[ProgramModel] = []
    if codegen:
        cur = x
        if round_trip:
            steps += _untilize_for_repeat(x, ctx)
            cur = x.with_(layout="row_major")
        pad = 4 - rank
        legs = _repeat_legs(cur, reps, cur.tiled)
        cur4 = cur.with_(shape=(1,) * pad + cur.shape)
        for i, (d, r) in enumerate(legs):
            shape = list(cur4.shape)
            shape[d + pad] *= r
            where = out if i == len(legs) - 1 else cur4
            nxt = where.with_(shape=tuple(shape), dtype=x.dtype, layout=cur.layout)
            steps.append(repeat_codegen_program(cur4, d + pad, r, nxt, ctx.grid, ctx.max_l1_space))
            cur4 = nxt
        if round_trip:
            rm = cur4.with_(shape=out.shape)
            steps += _to_tile(rm, out, ctx) if out.padded != out.shape else [_tilize(rm, out.with_(layout="tile"), ctx)]
        return steps
    if x.tiled and not sub_tile and rank >= 2:
        for d in range(rank - 1, -1, -1):
            if reps[d] > 1:
                steps.append(_program("RepeatProgramFactoryHigherDim",
                                      _REPEAT + "device/repeat_program_factory_higher_dim.cpp", full_grid(ctx.grid), [],
                                      [f"tile-native repeat of dim {d} x{reps[d]}: scratch 2 x 64 B + one tile"],
                                      scratch=128 + x.tile_bytes))
        return steps
    if x.tiled:
        steps += _to_row_major(x, x, ctx)
    width = x.shape[-1] * x.element_bytes
    for d in range(rank - 1, -1, -1):
        if reps[d] == 1:
            continue
        if d == rank - 1:
            k = next((m for a, m in ((16, 1), (8, 2), (4, 4), (2, 8)) if width % a == 0), 16)
            steps.append(_program("RepeatProgramFactoryLastDim", _REPEAT + "device/repeat_program_factory_last_dim.cpp",
                                  full_grid(ctx.grid), [], [f"rows of {width} B repeated x{reps[d]}"],
                                  scratch=(128 + k * width,) * 2))
            width *= reps[d]
        else:
            steps.append(_program("RepeatProgramFactoryHigherDim",
                                  _REPEAT + "device/repeat_program_factory_higher_dim.cpp", full_grid(ctx.grid), [],
                                  [f"row-major repeat of dim {d} x{reps[d]}, rows of {width} B"],
                                  scratch=(128 + width,) * 2))
    if x.tiled:
        rm = out.with_(layout="row_major")
        steps += _to_tile(rm, out, ctx)
    return steps


# ---------------------------------------------------------------------------
# embedding
# ---------------------------------------------------------------------------

_EMBED = "embedding/device/"


def _embedding_steps(idx: Tensor, weight: Tensor, out: Tensor, ctx: CBContext) -> list[ProgramModel]:
    """The device programs of ``ttnn.embedding(indices, weight, layout=out.layout, memory_config=out)``.

    The ttnn 0.81.1 wheel ships only the embedding kernels, so the host side follows
    the Metal 2.0 versions in the tt-metal source store (``embedding/device/
    embedding_device_operation.cpp`` select_program_factory, ``embeddings_{rm,fused,
    tilized_indices}_program_factory.cpp``), corrected by measurement where 0.81.1
    differs (its index buffers are scratchpads, not DFBs):

    * TILE indices -> EmbeddingsTilizedIndicesProgramFactory: DFB ``out`` 2 x the
      weight row aligned to the indices' buffer alignment; scratchpad of one tile of
      indices (measured 4,096 B for u32), then a tilize of the row-major result;
    * TILE output with the indices' last dim and the embedding dim tile multiples
      (fused) -> EmbeddingsFusedProgramFactory: DFBs ``src0`` and ``out`` of
      ``buffering x tiles_per_block`` tiles (``tiles_per_block`` = embedding dim / 32;
      buffering 2 up to 64 tiles, chunks of 64 above 1 MiB), scratchpad
      ``32 x index element`` B; split over the 32-row blocks of output rows;
    * else EmbeddingsRMProgramFactory: DFB ``out`` of the weight row aligned to the
      indices' alignment (x2 when a core gets more than one row), scratchpad
      ``(alignment / index element) x 32`` B; split over the output rows.

    A TILE weight is first converted with ``ttnn::to_layout(weight, ROW_MAJOR)`` into its own
    memory config (``EmbeddingOperation::invoke``, embedding/embedding.cpp, stored 02a75206;
    measured: g1/ttnn.embedding/5, a [100, 100] bf16 weight untilized with unpadding on 4 cores
    before EmbeddingsRM), which turns bfloat8_b into bfloat16.

    Raises:
        DeviceRejection: indices other than u32/bf16, weights other than bf16 (tt-metal's validate).
        CBModelError: sharded tensors, chunked rows over 1 MiB.
    """
    if weight.tiled and not weight.sharded:
        return (_to_row_major(weight, weight, ctx)
                + _embedding_steps(idx, LC.untilize_output(weight, weight.mem), out, ctx))
    # EmbeddingsDeviceOperation::validate (embedding_device_operation.cpp:35-36 @d80d9482, measured: both
    # TT_FATALs, after the untilize of a TILE weight)
    if idx.dtype.name not in ("u32", "bf16"):
        raise DeviceRejection(f"embedding indices must be UINT32 or BFLOAT16, not {idx.dtype} "
                              "(EmbeddingsDeviceOperation TT_FATAL 'Input must be UINT32 or BFLOAT16')")
    if weight.dtype.name != "bf16":
        raise DeviceRejection(f"embedding weights must be BFLOAT16, not {weight.dtype} "
                              "(EmbeddingsDeviceOperation TT_FATAL 'Weights tensor must have BFLOAT16 dtype')")
    if idx.sharded or weight.sharded or out.sharded:
        raise CBModelError("embedding of sharded tensors is not modeled")
    dim = weight.shape[-1]
    row = dim * weight.element_bytes
    batch = idx.shape[0] if idx.rank > 1 else 1
    cols = idx.shape[-1]
    rows = batch * cols
    if idx.tiled:
        cores = split_work_to_cores(ctx.grid, ceil_div(rows, FACE)).all_cores
        emb = _program("EmbeddingsTilizedIndicesProgramFactory", _EMBED + "embeddings_tilized_indices_program_factory.cpp",
                       cores, [("out", align_up(row, idx.alignment), 2)],
                       [f"{rows:,} indices in 16-row faces on {cores.num_cores} cores"], scratch=idx.tile_bytes)
        rm = out.with_(shape=out.shape, dtype=weight.dtype, layout="row_major")
        return [emb] + ([_tilize(rm, out, ctx)] if out.tiled else [])
    fused = cols % TILE == 0 and dim % TILE == 0 and out.tiled
    if fused:
        tile = weight.tile_bytes
        per_block = dim // TILE
        if 2 * per_block * tile > 1024 * 1024:
            raise CBModelError("embedding rows over 1 MiB are processed in chunks (not modeled)")
        buffering = 1 if per_block > 64 else 2
        blocks = rows // TILE
        cores = split_work_to_cores(ctx.grid, blocks).all_cores
        return [_program("EmbeddingsFusedProgramFactory", _EMBED + "embeddings_fused_program_factory.cpp", cores,
                         [("src0", tile, buffering * per_block), ("out", out.tile_bytes, buffering * per_block)],
                         [f"{blocks:,} blocks of 32 rows x {per_block} tiles on {cores.num_cores} cores"],
                         scratch=TILE * idx.element_bytes)]
    chunk = align_up(row, idx.alignment)
    if chunk > 1024 * 1024:
        raise CBModelError("embedding rows over 1 MiB are processed in chunks (not modeled)")
    cores = split_work_to_cores(ctx.grid, rows).all_cores
    buffering = 2 if ceil_div(rows, cores.num_cores) > 1 else 1
    steps = [_program("EmbeddingsRMProgramFactory", _EMBED + "embeddings_rm_program_factory.cpp", cores,
                      [("out", chunk, buffering)], [f"{rows:,} output rows on {cores.num_cores} cores"],
                      scratch=(idx.alignment // idx.element_bytes) * 32)]
    if out.tiled:
        steps += _to_tile(out.with_(layout="row_major", dtype=weight.dtype), out, ctx)
    return steps


# ---------------------------------------------------------------------------
# All the device programs of one op, and the device output
# ---------------------------------------------------------------------------


def _steps_of(ctx: CBContext) -> list[ProgramModel]:
    """The device programs ``ctx.op`` runs, in order (empty for a view).

    Raises:
        CBModelError: configurations outside the models (the reason says which).
    """
    name = ctx.op.name
    xs, out = _ins(ctx), result(ctx)
    x = xs[0]
    if name == "ttnn.reshape":
        return reshape_steps(x, out.shape, out, ctx)
    if name == "ttnn.permute":
        dims = tuple(norm_dim(d, x.rank, ctx.op) for d in int_list(ctx.op, "permutation"))
        return _permute_steps(x, dims, out, ctx.grid, ctx.arch)
    if name == "ttnn.transpose":
        return transpose_steps(x, norm_dim(int_attr(ctx.op, "dim0"), x.rank, ctx.op),
                                norm_dim(int_attr(ctx.op, "dim1"), x.rank, ctx.op), out, ctx.grid, ctx.arch,
                                ctx.max_l1_space)
    if name == "ttnn.pad":
        p = int_list(ctx.op, "padding")
        return _pad_steps(x, [(p[2 * i], p[2 * i + 1]) for i in range(len(p) // 2)],
                          bool(ctx.op.attrs.get("use_multicore", True)), out, ctx)
    if name == "ttnn.slice_static":
        return _slice_steps(x, _slice_dims(ctx.op, x.shape), out, ctx)
    if name == "ttnn.concat":
        return _concat_steps(xs, norm_dim(int_attr(ctx.op, "dim"), x.rank, ctx.op), out, ctx)
    if name == "ttnn.repeat_interleave":
        return _repeat_interleave_steps(x, int_attr(ctx.op, "repeats"), norm_dim(int_attr(ctx.op, "dim"), x.rank, ctx.op),
                                        out, ctx)
    if name == "ttnn.repeat":
        return _repeat_steps(x, int_list(ctx.op, "repeat_dims"), out, ctx)
    if name == "ttnn.embedding":
        return _embedding_steps(xs[0], xs[1], out, ctx)
    raise CBModelError(f"{name} is not a data-movement op")


_NO_PROGRAM_REASON = {
    "ttnn.reshape": "the last dim and the tile padding of the second-last dim are unchanged: a view",
    "ttnn.permute": "the permutation moves only size-1 dims",
    "ttnn.transpose": "the swapped dims are both 1",
    "ttnn.pad": "all padding is zero",
    "ttnn.slice_static": "the slice takes the whole tensor",
    "ttnn.repeat": "all repeats are 1",
}
DATA_MOVEMENT_OPS = ("ttnn.reshape", "ttnn.permute", "ttnn.transpose", "ttnn.pad", "ttnn.slice_static", "ttnn.concat",
                     "ttnn.repeat_interleave", "ttnn.repeat", "ttnn.embedding")


def device_programs(ctx: CBContext) -> list[ProgramModel]:
    """The CB model of every op here: the device programs ``ctx.op`` runs, in order.

    Raises:
        NoDeviceProgram: ttnn runs no program (a view, an identity permute...).
        CBModelError: configurations outside the models.
    """
    steps = _steps_of(ctx)
    if not steps:
        raise NoDeviceProgram(f"{ctx.op.name}: " + _NO_PROGRAM_REASON.get(ctx.op.name, "no device program"))
    return steps


def _spec(shape: tuple[int, ...], like: Tensor, where: Tensor, layout: str | None = None,
          dtype: DataType | None = None) -> TensorSpec:
    """A TensorSpec of ``shape`` with ``like``'s layout and dtype (unless given) placed as ``where``
    (``like.with_(shape=..., layout=..., dtype=..., mem=where.mem).spec()``, without the tensor in between)."""
    shape = tuple(shape)
    layout = layout or like.layout
    mem = where.mem
    return TensorSpec(shape, tile_padded_shape(shape) if layout == "tile" else shape, layout, str(dtype or like.dtype),
                      mem.buffer_type, mem.memory_layout, mem.shard.shape if mem.shard is not None else None)


def _output_spec(ctx: CBContext) -> list[TensorSpec]:
    """What ttnn returns for a data-movement op replayed with the declared result's memory config.

    Shapes come from the op's attributes (the shape rules above), the layout and
    data type from the input, the placement from the requested memory config;
    except a reshape ttnn performs as a view, which keeps the input's buffer and
    placement (reshape_view/reshape.cpp ``PerformView``).  TILE outputs have the
    tile-padded shape (``compute_padded_shape``; measured for every fixture op:
    e.g. reshape [64] -> [1, 64] returns padded [32, 64]).

    Raises:
        CBModelError: sharded outputs (their shard spec is derived by ttnn: not modeled).
    """
    from .registry import lookup  # the registry entry of this op: its shape rule
    xs, out = _ins(ctx), result(ctx)
    x = xs[0]
    if out.sharded and ctx.op.name != "ttnn.reshape":
        raise CBModelError(f"the output shard spec {ctx.op.name} derives is not modeled")
    if ctx.shapes is not None:  # the shape rule's, as the analysis checked it
        shape = ctx.shapes[0]
    else:
        try:
            shape = lookup(ctx.op.name).infer(ctx.op)[0]
        except ShapeError as exc:
            raise CBModelError(str(exc)) from exc
    if ctx.op.name == "ttnn.reshape":
        view = x.volume == 0 or _this_is_view(x, tuple(shape), out) or (
            x.shape == tuple(shape) and x.mem == out.mem)
        if out.sharded and not view:
            raise CBModelError("the output shard spec reshape derives is not modeled")
        return [_spec(shape, x, x if view else out)]
    if ctx.op.name == "ttnn.embedding":
        return [_spec(shape, xs[1], out, layout=out.layout, dtype=out.dtype)]
    if ctx.op.name == "ttnn.concat" and x.tiled and x.dtype.is_block_float:
        dim = norm_dim(int_attr(ctx.op, "dim"), x.rank, ctx.op)
        if not _tiled_unaligned_ok(xs, dim, out, ctx) and any(t.shape[dim] != t.padded[dim] or x.rank == 1 for t in xs):
            # untilized to bf16 row-major, concatenated and tilized back: the result stays bf16 (measured:
            # campaign instance g1/ttnn.concat/3, four rank-1 bfloat8_b inputs return a bf16 tensor)
            return [_spec(shape, x, out, dtype=DataType("bf16"))]
    return [_spec(shape, x, out)]


for _name in DATA_MOVEMENT_OPS:
    register_cb(_name)(device_programs)
    register_spec(_name)(_output_spec)
