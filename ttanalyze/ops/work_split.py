"""Core sets and work splits: tt-metal's helpers that decide which cores a program runs on.

One function per tt-metal function, under its tt-metal name; core coordinates
are ``(x, y)`` on a compute grid given as ``(x, y)`` (``compute_with_storage_grid_size``,
see :func:`ttanalyze.ops.cb.grid_xy`).  Sources (stored versions read; ttnn
0.81.1 = tt-metal d80d9482 is not stored, and every split below was checked
against mock P150 captures by the op models that use it):

* ``tt_metal/common/core_coord.cpp`` @0266e6f1: :func:`grid_to_cores`,
  :func:`corerange_to_cores`, :func:`bounding_box`, :func:`merge`
  (``CoreRangeSet::merge``);
* ``tt_metal/common/work_split.cpp`` @0c554498: :func:`num_cores_to_corerangeset`,
  :func:`split_work_to_cores`, :func:`merge_num_sticks_to_read`;
* ``ttnn/cpp/ttnn/operations/core/work_split/work_split_tilize.hpp`` @02ed05c7:
  :func:`compute_ncores`, :func:`split_blocks_for_tilize`,
  :func:`closest_square_larger_than_b`, :func:`compute_ncores_wh`,
  :func:`split_blocks_for_tilize_wh` (the sub-block rule of ttnn 0.81.1, newer
  than that version, in :func:`try_compute_ncores_wh_sb`).

A program's cores are a :class:`~ttanalyze.ir.attrs.CoreRangeSet`; how it is
cut into ranges matters (tt-metal names the first overflowing range, see
:meth:`ttanalyze.ops.cb.ProgramModel.first_overflow`), so each split offers the
ranges tt-metal returns (``all_cores``) and the ordered core list (``cores``)
for models that rebuild the ranges with :func:`merge` (the ranges of every
Metal 2.0 dataflow buffer, and of the layout-conversion factories' CBs).  Core
range sets are immutable, so their builders cache what they return (the
analyzer asks for the same few splits for thousands of ops).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import sqrt

from ..ir.attrs import CoreRange, CoreRangeSet
from ..layout import ceil_div
from .cb import CBModelError, DeviceRejection, core_range, cores_set

Core = tuple[int, int]


# ---------------------------------------------------------------------------
# Core lists and core range sets (core_coord.cpp, work_split.cpp)
# ---------------------------------------------------------------------------


def grid_to_cores(num_cores: int, grid: tuple[int, int], row_wise: bool) -> list[Core]:
    """tt-metal ``grid_to_cores(num_cores, grid_x, grid_y, row_wise)``: the first ``num_cores`` cores of a grid.

    Row by row (``row_wise``: ``(i % x, i // x)``) or column by column
    (``(i // y, i % y)``).
    """
    gx, gy = grid
    if row_wise:
        return [(i % gx, i // gx) for i in range(num_cores)]
    return [(i // gy, i % gy) for i in range(num_cores)]


# The core tuples :func:`grid_cores` returned, by id, each kept with its merge once :func:`merge` made it: a
# work split's cores are merged once for all the programs (and CBs) that run on them.
_MERGED: dict[int, tuple[tuple[Core, ...], CoreRangeSet | None]] = {}


@lru_cache(maxsize=4096)
def grid_cores(num_cores: int, grid: tuple[int, int], row_wise: bool) -> tuple[Core, ...]:
    """:func:`grid_to_cores` as a tuple, one object per argument triple (the few splits of a grid are asked for
    by thousands of ops; :func:`merge` of it is then computed once)."""
    cores = tuple(grid_to_cores(num_cores, grid, row_wise))
    _MERGED[id(cores)] = (cores, None)
    return cores


def corerange_to_cores(crs: CoreRangeSet, row_wise: bool = False) -> list[Core]:
    """tt-metal ``corerange_to_cores(crs, nullopt, row_wise)``: the cores of each range in turn,
    row by row or column by column inside a range."""
    out: list[Core] = []
    for r in crs.ranges:
        xs, ys = range(r.start.x, r.end.x + 1), range(r.start.y, r.end.y + 1)
        out += [(x, y) for y in ys for x in xs] if row_wise else [(x, y) for x in xs for y in ys]
    return out


def bounding_box(crs: CoreRangeSet) -> CoreRange:
    """tt-metal ``CoreRangeSet::bounding_box``: the smallest range holding every core of ``crs``.

    Raises:
        CBModelError: an empty set (tt-metal TT_FATALs).
    """
    if not crs.ranges:
        raise CBModelError("the bounding box of an empty core range set")
    return core_range(min(r.start.x for r in crs.ranges), min(r.start.y for r in crs.ranges),
                      max(r.end.x for r in crs.ranges), max(r.end.y for r in crs.ranges))


@lru_cache(maxsize=4096)
def num_cores_to_corerangeset(num_cores: int, grid: tuple[int, int], row_wise: bool,
                              start: Core = (0, 0)) -> CoreRangeSet:
    """tt-metal ``num_cores_to_corerangeset(start_core, target_num_cores, grid_size, row_wise)``.

    From ``start``, row by row (or column by column): the rest of the start row
    (column) when the cores go past it, then the full rows (columns) as one
    range, then the remainder as a strip: at most three ranges.

    Raises:
        CBModelError: more cores than the grid holds from ``start`` (tt-metal
            TT_FATAL "Target number of cores ... is greater than total number of
            available cores").
    """
    gx, gy = grid
    if num_cores <= 0:
        return CoreRangeSet(())
    sx, sy = start
    available = (gy - 1 - sy) * gx + gx - sx if row_wise else (gx - 1 - sx) * gy + gy - sy
    if num_cores > available:
        raise CBModelError(f"the program needs {num_cores} cores but its grid {gx}x{gy} has {available}"
                           + (f" from core {start}" if start != (0, 0) else ""))
    ranges: list[CoreRange] = []
    left = num_cores
    if row_wise:
        if sx != 0 and left > gx - sx:
            ranges.append(core_range(sx, sy, gx - 1, sy))
            left -= gx - sx
            sx, sy = 0, sy + 1
        if left > gx:
            rows = left // gx
            ranges.append(core_range(sx, sy, gx - 1, sy + rows - 1))
            left -= rows * gx
            sx, sy = 0, sy + rows
        if left:
            ranges.append(core_range(sx, sy, sx + left - 1, sy))
    else:
        if sy != 0 and left > gy - sy:
            ranges.append(core_range(sx, sy, sx, gy - 1))
            left -= gy - sy
            sx, sy = sx + 1, 0
        if left > gy:
            cols = left // gy
            ranges.append(core_range(sx, sy, sx + cols - 1, gy - 1))
            left -= cols * gy
            sx, sy = sx + cols, 0
        if left:
            ranges.append(core_range(sx, sy, sx, sy + left - 1))
    return CoreRangeSet(tuple(ranges))


def _row_rectangles(cores: frozenset[Core]) -> list[tuple[int, int, int, int]]:
    """The rectangles ``(x0, y0, x1, y1)`` of ``CoreRangeSet::merge``: each row's maximal runs of
    cores, a run joining the rectangle that ends on the row above with the same x extent
    (``CoreRange::merge`` of vertically adjacent ranges), in no particular order."""
    by_row: dict[int, list[int]] = {}
    for cx, cy in sorted(cores, key=lambda c: (c[1], c[0])):
        by_row.setdefault(cy, []).append(cx)
    open_: dict[tuple[int, int], list[int]] = {}  # (x0, x1) -> [y0, y1] of the rectangle still growing
    done: list[tuple[int, int, int, int]] = []
    for y in sorted(by_row):
        runs, xs = [], by_row[y]
        start = prev = xs[0]
        x: int | None
        for x in [*xs[1:], None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            runs.append((start, prev))
            if x is not None:
                start = prev = x
        for key in list(open_):
            if key not in runs or open_[key][1] != y - 1:
                done.append((key[0], open_[key][0], key[1], open_.pop(key)[1]))
        for run in runs:
            if run in open_:
                open_[run][1] = y
            else:
                open_[run] = [y, y]
    done.extend((k[0], v[0], k[1], v[1]) for k, v in open_.items())
    return done


def merge(cores) -> CoreRangeSet:
    """tt-metal ``CoreRangeSet::merge``: the core range set of ``cores`` (an iterable of ``(x, y)``).

    tt-metal marks the cores on a grid, walks it row by row (y ascending), cuts
    each row into maximal runs of consecutive x, and joins a run to a range of
    the rows above when the two are adjacent and have the same x extent
    (``CoreRange::merge``); rows of equal runs therefore stack into rectangles.
    The result is a ``std::set<CoreRange>``, ordered by start core then end core,
    cores compared x first (``tt_xy_pair::operator<``): ranges sorted by (start
    x, start y, end x, end y).  E.g. the 98 cores of columns 0-8 plus (9, 0-7)
    merge to ``{[0-0 - 9-7], [0-8 - 8-9]}``.

    Metal 2.0 programs place each dataflow buffer (and scratchpad) on such a
    merge: a kernel's nodes are the merge of its work units' ``target_nodes``, a
    DFB's the merge of its endpoint kernels' (``DeriveNodeSets``), so a DFB sits
    on the merge of the work split's cores whatever ranges the factory passed.

    Sources: ``tt_metal/common/core_coord.cpp`` @0266e6f1 (``CoreRangeSet::merge``,
    ``CoreRange::merge``, ``CoreRange::adjacent``; the same algorithm @2d58d974),
    ``tt_metal/api/tt-metalium/core_coord.hpp`` @034a7465 (``operator<`` of
    ``CoreRange``), ``tt_metal/impl/metal2_host_api/program_spec/collection/collect_metadata.cpp``
    @85bfa97f (``DeriveNodeSets``).  Measured on mock P150, ttnn 0.81.1: every
    ``dataflow_buffer_allocate`` of the data-movement, argmax and topk captures
    (the op-level campaign's records, ``measurements/opdiff/results.jsonl.gz``, hold
    each buffer's core ranges in capture order).
    """
    if type(cores) is tuple:
        known = _MERGED.get(id(cores))
        if known is not None and known[0] is cores:  # a tuple of grid_cores (it holds the tuple: the id is its)
            if known[1] is None:
                known = _MERGED[id(cores)] = (cores, _merge(frozenset(cores)))
            return known[1]
    return _merge(frozenset(cores))


def merge_ranges(crs: CoreRangeSet) -> CoreRangeSet:
    """``merge(corerange_to_cores(crs))``: the cores of ``crs`` as ``CoreRangeSet::merge`` ranges them (once per
    core range set: a work split's ranges are merged for every program that runs on them).  Looked up by
    identity first: the work splits hand out one object per split (:func:`num_cores_to_corerangeset`,
    :func:`full_grid`), whose value hash walks every range."""
    known = _MERGED_RANGES.get(id(crs))
    if known is not None and known[0] is crs:  # the entry holds the set: the id is its
        return known[1]
    if len(_MERGED_RANGES) >= 4096:
        _MERGED_RANGES.clear()
    got = _merge_ranges(crs)
    _MERGED_RANGES[id(crs)] = (crs, got)
    return got


_MERGED_RANGES: dict[int, tuple[CoreRangeSet, CoreRangeSet]] = {}  # merge_ranges by id of the set


@lru_cache(maxsize=4096)
def _merge_ranges(crs: CoreRangeSet) -> CoreRangeSet:
    return merge(corerange_to_cores(crs))


@lru_cache(maxsize=4096)
def _merge(cores: frozenset[Core]) -> CoreRangeSet:
    return cores_set(*(core_range(*r) for r in sorted(_row_rectangles(cores))))


@lru_cache(maxsize=1024)
def _single_core_ranges(cores: tuple[Core, ...]) -> CoreRangeSet:
    """One ``CoreRange{core, core}`` per core, ordered as a ``std::set<CoreRange>`` (x, then y)."""
    return cores_set(*(core_range(x, y, x, y) for x, y in sorted(set(cores))))


@lru_cache(maxsize=64)
def full_grid(grid: tuple[int, int]) -> CoreRangeSet:
    """Every core of an (x, y) grid as one range (``CoreRange({0, 0}, {x - 1, y - 1})``)."""
    return cores_set(core_range(0, 0, grid[0] - 1, grid[1] - 1))


# ---------------------------------------------------------------------------
# split_work_to_cores (work_split.cpp)
# ---------------------------------------------------------------------------


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class WorkSplit:
    """What tt-metal's ``split_work_to_cores`` returns.

    ``num_cores = min(units, cores)`` cores in grid order.  When the units do
    not divide evenly, the first ``units % num_cores`` of them (group 1) get
    ``units_per_core_group_1 = ceil(units / num_cores)`` units and the others
    (group 2) one less; else every core gets ``units / num_cores``.
    """

    grid: tuple[int, int]
    row_wise: bool
    units: int
    num_cores: int

    @property
    def units_per_core_group_1(self) -> int:
        return ceil_div(self.units, self.num_cores) if self.num_cores else 0

    @property
    def units_per_core_min(self) -> int:
        """The smaller per-core share: ``floor(units / num_cores)`` (0 without work)."""
        return self.units // self.num_cores if self.num_cores else 0

    @property
    def all_cores(self) -> CoreRangeSet:
        """The cores as tt-metal returns them: the whole grid as one range when every core gets
        work, else :func:`num_cores_to_corerangeset`."""
        if self.num_cores == self.grid[0] * self.grid[1]:
            return full_grid(self.grid)
        return num_cores_to_corerangeset(self.num_cores, self.grid, self.row_wise)

    @property
    def cores(self) -> tuple[Core, ...]:
        """The cores with work, in grid order."""
        return grid_cores(self.num_cores, self.grid, self.row_wise)


def split_work_to_cores(grid: tuple[int, int], units: int, row_wise: bool = False) -> WorkSplit:
    """tt-metal ``split_work_to_cores(grid_size, units_to_divide, row_wise)`` (see :class:`WorkSplit`)."""
    return WorkSplit(grid, row_wise, units, min(units, grid[0] * grid[1]))


def merge_num_sticks_to_read(sticks: int, stick_bytes: int, max_read: int) -> int:
    """tt-metal ``merge_num_sticks_to_read``: reads per barrier.

    The total ``sticks x stick_bytes`` is cut into the largest read that is a
    multiple of ``stick_bytes``, at most ``max_read``, and divides it; returns
    how many such reads there are.
    """
    total = sticks * stick_bytes
    n = sticks
    size = stick_bytes
    while size <= max_read:
        if total % size == 0:
            n = total // size
        size += stick_bytes
    return n


# ---------------------------------------------------------------------------
# split_blocks_for_tilize (work_split_tilize.hpp)
# ---------------------------------------------------------------------------


def compute_ncores(grid_area: int, nblocks: int) -> tuple[int, int]:
    """tt-metal ``compute_ncores``: (cores, blocks per core) of ``split_blocks_for_tilize``.

    ``ceil(nblocks / grid_area)`` blocks per core on ``ceil(nblocks / per_core)``
    cores (no cores for no blocks).
    """
    per_core = ceil_div(nblocks, grid_area) if grid_area else 1
    return (ceil_div(nblocks, per_core) if per_core else nblocks), per_core


@dataclass(frozen=True)
class BlockSplit:
    """What ``split_blocks_for_tilize`` returns: ``nblocks_per_core`` blocks on each of the first
    ``ncores`` cores of the grid order, the last core getting ``nblocks_per_core_cliff`` (the
    remainder) when the blocks do not divide evenly."""

    grid: tuple[int, int]
    row_wise: bool
    ncores: int
    nblocks_per_core: int
    nblocks_per_core_cliff: int

    @property
    def cores(self) -> tuple[Core, ...]:
        """The used cores, in grid order."""
        return grid_cores(self.ncores, self.grid, self.row_wise)

    @property
    def cliff(self) -> tuple[Core, ...]:
        """The cliff core (the last one) when there is a remainder, else none."""
        return self.cores[-1:] if self.nblocks_per_core_cliff else ()

    @property
    def all_cores(self) -> CoreRangeSet:
        """The used cores as tt-metal returns them.

        Row by row (the ``CoreCoord`` overload): :func:`num_cores_to_corerangeset`
        ranges.  Column by column (the ``CoreRangeSet`` overload): one single-core
        range per core, unmerged (a ``std::set<CoreRange>`` of ``CoreRange{core,
        core}``, ordered x then y; measured on mock P150, ttnn 0.81.1: the legacy
        CBs of ConcatTiledUnalignedProgramFactory on 4 bands sit on
        ``{[0-0 - 0-0], [0-1 - 0-1], [0-2 - 0-2], [0-3 - 0-3]}``).
        """
        if self.row_wise:
            return num_cores_to_corerangeset(self.ncores, self.grid, True)
        return _single_core_ranges(self.cores)


def split_blocks_for_tilize(grid: tuple[int, int], nblocks: int, row_wise: bool = False) -> BlockSplit:
    """tt-metal ``split_blocks_for_tilize``: ``nblocks`` blocks (tile rows) over the grid.

    ``nblocks_per_core = ceil(nblocks / cores)`` on the first :func:`compute_ncores`
    cores; the last core gets ``nblocks % nblocks_per_core`` (a cliff) when that
    is not 0.  The ``CoreCoord`` overload walks the grid row by row
    (``row_wise``), the ``CoreRangeSet`` overload of ttnn 0.81.1
    (``corerange_to_cores``) column by column (measured: tilize of [3072, 768]
    runs on 96 cores ``{[0-0 - 9-5], [0-6 - 8-9]}``; 64 blocks run on columns
    0-5 and cores (6, 0-3)).
    """
    ncores, per_core = compute_ncores(grid[0] * grid[1], nblocks)
    return BlockSplit(grid, row_wise, ncores, per_core, nblocks % per_core if per_core else 0)


def closest_square_larger_than_b(b: int, width: int, height: int, ref: int) -> int:
    """tt-metal ``closest_square_larger_than_b``: the side ``s`` of the square blocks (tiles) of the 2D split.

    ``s = isqrt(b)`` if ``b`` is a perfect square and ``ceil(W/s) * ceil(H/s) < ref``,
    else the smallest ``s > isqrt(b)`` with ``ceil(W/s) * ceil(H/s) < ref``, else 1.
    """
    if ref <= 0:
        return 1
    root = int(sqrt(b))
    if root * root == b and root and ceil_div(width, root) * ceil_div(height, root) < ref:
        return root
    # the smallest candidate with ceil(W/c) * ceil(H/c) < ref; scanned by bisection (the product only falls as c grows)
    lo, hi = root + 1, max(width * height, root + 1)
    if ceil_div(width, hi) * ceil_div(height, hi) >= ref:
        return 1
    while lo < hi:
        mid = (lo + hi) // 2
        if ceil_div(width, mid) * ceil_div(height, mid) < ref:
            hi = mid
        else:
            lo = mid + 1
    return lo


def compute_ncores_wh(grid_area: int, nblocks: int, width: int, height: int) -> int:
    """tt-metal ``compute_ncores_wh``: cores of the 2D (square-block) split of a ``height x width``-tile slice."""
    per_core = ceil_div(nblocks, grid_area) if grid_area else 1
    s = closest_square_larger_than_b(per_core, width, height, grid_area)
    return ceil_div(width, s) * ceil_div(height, s)


def _blocks(width: int, height: int, block: int) -> int:
    """Square blocks of side ``block`` covering a ``height x width``-tile slice."""
    return ceil_div(width, block) * ceil_div(height, block)


def try_compute_ncores_wh_sb(area: int, width: int, height: int, limit: int) -> tuple[int, int] | None:
    """tt-metal ``try_compute_ncores_wh_sb``: (sub-block, sub-blocks per block) when the square block exceeds ``limit``.

    Blocks are ``n * sb`` tiles with ``sb < limit``; among them ttnn 0.81.1 keeps
    the one with the most blocks (cores) within ``area`` whose cliff-row block
    (``width % block``) is narrower than ``limit``, then the smallest ``n``,
    then the largest ``sb`` (tt-metal PR #35806: "(1) single_sblock_size <
    single_block_size_limit (2) Maximize total_blocks_sb (3) Minimize n (4)
    blocks_row_cliff < single_sblock_size_limit", candidates ``sb = limit - 1 ..
    1``; the stored @02ed05c7 ``compute_ncores_wh_sb`` differs, this rule
    reproduces the block untilize/tilize instances of the op-level campaign,
    ``measurements/opdiff/results.jsonl.gz``).  None when no block qualifies.
    """
    lo, hi = 1, max(width, height, 1)
    while lo < hi:  # the smallest block with at most `area` blocks
        mid = (lo + hi) // 2
        if _blocks(width, height, mid) <= area:
            hi = mid
        else:
            lo = mid + 1
    smallest = lo
    most = _blocks(width, height, smallest)  # no block gives more
    best: tuple[int, int, int] | None = None  # (blocks, n, sb)
    for sb in range(limit - 1, 0, -1):
        first_n = ceil_div(smallest, sb)
        if best is not None and best[0] == most and first_n >= best[1]:
            break  # smaller sub-blocks need at least as many per block
        for n in range(first_n, ceil_div(width, sb) + 1):
            total = _blocks(width, height, n * sb)
            if best is not None and (total < best[0] or (total == best[0] and n >= best[1])):
                break
            if width % (n * sb) < limit:
                best = (total, n, sb)
                break
    return None if best is None else (best[2], best[1])


@dataclass(frozen=True)
class BlockSplitWH:
    """``split_blocks_for_tilize_wh``: square blocks of ``block`` tiles, processed in sub-blocks of
    ``sub_block`` tiles; a narrower last block per row (``cliff_row``, width ``cliff_row_tiles``) and a
    shorter last block row (``cliff_col``).

    The cores of its four ranges: ``core_range`` (full blocks of full block rows), ``cliff_col``
    (full-width blocks of the last, shorter block row), ``cliff_row`` (the narrower last block of
    each full block row) and ``cliff_col_row`` (the corner block)."""

    block: int
    sub_block: int
    cliff_row_tiles: int
    core_range: tuple[Core, ...]
    cliff_col: tuple[Core, ...]
    cliff_row: tuple[Core, ...]
    cliff_col_row: tuple[Core, ...]

    @property
    def full(self) -> tuple[Core, ...]:
        """Cores with DFBs of ``sub_block`` tiles (core_range + cliff_col)."""
        return self.core_range + self.cliff_col

    @property
    def cliffrow(self) -> tuple[Core, ...]:
        """Cores with DFBs of ``cliff_row_tiles`` tiles (cliff_row + cliff_col_row)."""
        return self.cliff_row + self.cliff_col_row


def split_blocks_for_tilize_wh(grid: tuple[int, int], nblocks: int, width: int, height: int,
                               block_limit: int | None, row_wise: bool = False) -> BlockSplitWH:
    """tt-metal ``split_blocks_for_tilize_wh``: the 2D block split of a ``height x width``-tile slice.

    The square block side ``s`` comes from :func:`closest_square_larger_than_b`.
    When ``s`` exceeds ``block_limit`` (tiles per buffer that fit the free L1),
    the block is re-chosen as ``n`` sub-blocks by :func:`try_compute_ncores_wh_sb`
    (mock P150, untilize of [4, 4884480]: ``s = 1401`` > 356 -> blocks of 1400 =
    4 x 350 tiles on 109 cores and a cliff block of 40 tiles).  Cores are taken
    in grid order (row by row, or column by column: the ``CoreRangeSet``
    overload): each block row's full blocks, then its cliff-row block; the cliff
    column (a last block row of height ``height % s``) last.

    Raises:
        DeviceRejection: ``block_limit < 1`` (tt-metal: ``TT_FATAL single_block_size_limit >= 1``,
            measured with a full L1), or no sub-block split exists (``TT_FATAL`` "No solution found for
            single_block_size", work_split_tilize.hpp:189 at d80d9482).
        CBModelError: the split needs more cores than the grid holds.
    """
    area = grid[0] * grid[1]
    per_core = ceil_div(nblocks, area) if area else 1
    s = closest_square_larger_than_b(per_core, width, height, area)
    sub = s
    if block_limit is not None:
        if block_limit < 1:
            raise DeviceRejection("TT_FATAL single_block_size_limit >= 1: not even one tile pair fits the free L1")
        if s > block_limit:
            found = try_compute_ncores_wh_sb(area, width, height, block_limit)
            if found is None:
                # compute_ncores_wh_sb, the throwing wrapper of try_compute_ncores_wh_sb (measured:
                # g1/ttnn.concat/453, an untilize of a 6144x2-tile slice with 38 tiles of free L1 per block)
                raise DeviceRejection(f"TT_FATAL No solution found for single_block_size (work_split_tilize.hpp:189): "
                                      f"no sub-block split of a {height}x{width}-tile slice fits {block_limit} tiles")
            sub, parts = found
            s = sub * parts
    full_per_row, rem_w = divmod(width, s)
    full_per_col, rem_h = divmod(height, s)
    total = (full_per_row + (rem_w > 0)) * (full_per_col + (rem_h > 0))
    if total > area:
        raise CBModelError(f"2D block split needs {total} cores, the grid has {area}")
    it = iter(grid_to_cores(total, grid, row_wise))
    core_range_: list[Core] = []
    cliff_row: list[Core] = []
    for _ in range(full_per_col):
        core_range_.extend(next(it) for _ in range(full_per_row))
        if rem_w:
            cliff_row.append(next(it))
    cliff_col: list[Core] = []
    cliff_col_row: list[Core] = []
    if rem_h:
        cliff_col.extend(next(it) for _ in range(full_per_row))
        if rem_w:
            cliff_col_row.append(next(it))
    return BlockSplitWH(s, sub, rem_w, tuple(core_range_), tuple(cliff_col), tuple(cliff_row), tuple(cliff_col_row))
