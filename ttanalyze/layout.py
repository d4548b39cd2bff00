"""Layout math: tile-padded shape, physical volume, memref, strides, placement.

Everything here is computed from a tensor's logical shape, data type and TTNN
layout, following two sources:

* tt-metal ``ttnn/core/tensor/layout/tensor_layout.cpp`` (stored copy at commit
  07534a65): ``TensorLayout::compute_padded_shape`` pads only the last two dims
  of a TILE tensor to the tile (32x32) and gives a rank-1 tensor a padded rank of
  2 (``[W] -> [32, align(W, 32)]``); ``compute_physical_shape`` collapses to 2D as
  ``H = prod(dims[:-2]) * align(dims[-2], 32)``, ``W = align(dims[-1], 32)``;
  ``compute_consumed_memory_bytes_per_bank`` gives an interleaved buffer
  ``ceil(pages / banks) * align(page_size, alignment)`` bytes in *every* bank and
  a sharded one its shard's pages.
* tt-mlir ``lib/Dialect/TTNN/IR/TTNNOpsAttrs.cpp`` and ``TTCoreOpsTypes.cpp``
  (19c86fca): ``TTNNLayoutAttr::Builder::build`` collapses the tile-padded shape
  with ``collapsedLinearAffineMap`` (``(d0..dn-1) -> (sum_i d_i * stride_i,
  dn-1)``), then the memref is the whole 2D tensor (DRAM interleaved, system
  memory), ``1 x ceil(tiles / cores)`` (L1 interleaved,
  ``calculateLogicalShardShapeForL1Interleaved``) or ``ceil(dim / grid)`` per dim
  (sharded, ``calculateLogicalShardShapeForSharding``), in tiles when tiled.

The tt-metal allocator reserves an allocation at the same address range in every
bank of its buffer type ("lockstep allocation"), so a tensor's per-core L1 cost
is its per-bank size on every core, sharded or interleaved; and it aligns every
allocation, L1 included, to the DRAM alignment (tt-metal
``tech_reports/memory/allocator.md`` §2 and §2.1, @376322f0).  Measured on a mock
Blackhole P150 with ttnn 0.81.1 (tt-metal d80d9482): a [330, 100] bf16
row-major L1 tensor takes ceil(330 / 110) * align(200, 16) = 624 B, rounded to
640 B per bank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from math import prod

from .arch import Arch
from .ir.attrs import TILE_HEIGHT, TILE_WIDTH, DataType, TileType, TTNNLayout
from .ir.model import TensorType


def ceil_div(a: int, b: int) -> int:
    """``ceil(a / b)`` for non-negative ints."""
    return -(-a // b)


def align_up(value: int, multiple: int) -> int:
    """Round ``value`` up to a multiple of ``multiple`` (no-op for multiple <= 1)."""
    return value if multiple <= 1 else ceil_div(value, multiple) * multiple


def tile_padded_shape(shape: tuple[int, ...], tile: tuple[int, int] = (TILE_HEIGHT, TILE_WIDTH)) -> tuple[int, ...]:
    """tt-metal's padded shape of a TILE tensor (elements).

    The last two dims are rounded up to the tile; a rank-1 tensor gets rank 2
    (``[W] -> [32, align(W, 32)]``) and a rank-0 one ``[32, 32]``
    (``TensorLayout::compute_padded_shape``).  Remembered per (shape, tile): a
    program asks for the same few shapes many times (the op models, per view).

    >>> tile_padded_shape((1, 768, 4, 60, 106))
    (1, 768, 4, 64, 128)
    """
    key = (shape, tile)
    try:
        return _PADDED[key]
    except KeyError:
        pass
    except TypeError:  # a list: not remembered
        return _tile_padded_shape(shape, tile)
    if len(_PADDED) >= _PADDED_MAX:
        _PADDED.clear()
    got = _PADDED[key] = _tile_padded_shape(shape, tile)
    return got


_PADDED: dict[tuple, tuple[int, ...]] = {}  # tile_padded_shape by (shape, tile)
_PADDED_MAX = 1 << 16


def _tile_padded_shape(shape, tile: tuple[int, int]) -> tuple[int, ...]:
    th, tw = tile
    if len(shape) == 0:
        return (th, tw)
    if len(shape) == 1:
        return (th, align_up(shape[0], tw))
    return (*shape[:-2], align_up(shape[-2], th), align_up(shape[-1], tw))


def collapse_2d(shape: tuple[int, ...]) -> tuple[int, int]:
    """Collapse an ND shape to 2D as ``(prod(dims[:-1]), dims[-1])`` (elements)."""
    if not shape:
        return (1, 1)
    return (prod(shape[:-1]), shape[-1])


@lru_cache(maxsize=None)
def _stride_formulas(rank: int, tiled: bool) -> tuple[str, ...]:
    """Expected row strides of each dim in the collapsed map, as formulas in the logical sizes.

    Dim ``i < rank-1`` has stride ``prod_{j=i+1}^{rank-2} P_j`` where ``P_j`` is
    dim ``j`` tile-padded (``ceiling(S_j/32)*32`` for the second-last dim of a
    tiled tensor) and ``S_j`` the logical size; the last dim maps to the column
    with stride 1 (tt-mlir ``collapsedLinearAffineMap`` over the padded shape).
    The formulas are written as sympy prints these products (the number first,
    then the symbols sorted by name, then ``ceiling``; ``tests/test_layout.py``
    compares them with sympy's printing), without importing sympy;
    :func:`expected_strides` computes their values.
    """
    strides = []
    for i in range(rank):
        factors = sorted(f"S{j}" for j in range(i + 1, rank - 2 if tiled else rank - 1))
        if tiled and i + 1 <= rank - 2:
            factors = ["32", *factors, f"ceiling(S{rank - 2}/32)"]
        strides.append("*".join(factors) if i < rank - 1 and factors else "1")
    return tuple(strides)


def expected_strides(shape: tuple[int, ...], tiled: bool) -> tuple[int, ...]:
    """The row stride of each dim in tt-mlir's collapsed map of ``shape`` (elements; see :func:`_stride_formulas`).

    >>> expected_strides((2, 60, 106), True)
    (64, 1, 1)
    """
    rank = len(shape)
    padded = list(shape)
    if tiled and rank >= 2:
        padded[rank - 2] = ceil_div(shape[rank - 2], TILE_HEIGHT) * TILE_HEIGHT
    return tuple(prod(padded[i + 1: rank - 1]) if i < rank - 1 else 1 for i in range(rank))


@dataclass(frozen=True)
class Stride:
    """The stride of one logical dim in the layout's affine map.

    ``result`` is which map result (0 = collapsed rows, 1 = columns) the dim
    feeds; ``value`` its coefficient in the IR map (None if the map is not
    linear in it); ``expected`` the coefficient tt-mlir's collapse of the
    tile-padded shape gives; ``formula`` that coefficient as a sympy expression
    in the logical dims ``S0..Sn-1``.
    """

    dim: int
    result: int
    value: int | None
    expected: int
    formula: str


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class Placement:
    """Where a tensor's bytes live on the device.

    Attributes:
        buffer_type: ``dram``, ``l1`` or ``system_memory``.
        memory_layout: ``interleaved``/``height_sharded``/... or None (host).
        banks: banks the allocation spans (DRAM channels, or L1 banks = cores).
        cores_with_data: cores holding shards (sharded) or pages (interleaved).
        pages: total pages; page_bytes: one page, aligned_page_bytes: aligned.
        bytes_per_bank: bytes reserved in every bank of the buffer type,
            rounded up to the allocator's alignment (the DRAM alignment).
        total_bytes: ``bytes_per_bank * banks`` (what the allocation reserves).
    """

    buffer_type: str
    memory_layout: str | None
    banks: int
    cores_with_data: int
    pages: int
    page_bytes: int
    aligned_page_bytes: int
    bytes_per_bank: int
    total_bytes: int


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class LayoutInfo:
    """Every layout number of one tensor value.

    Shapes are in elements unless named ``tiles``; bytes are bytes.

    Attributes:
        logical_shape / padded_shape: tt-metal logical and padded shapes.
        logical_2d / physical_2d: collapsed 2D shapes before/after padding.
        tile_grid: physical 2D in tiles (rows, cols); (0, 0) for row-major.
        logical_volume / physical_volume: elements.
        physical_tiles: tiles of the padded tensor (0 for row-major).
        physical_bytes: bytes of the padded tensor (tiles * tile bytes, or
            elements * element bytes).
        padding_pct: share of the physical volume that is padding, in %.
        expected_memref: the memref tt-mlir derives from the logical shape.
        ir_memref: the memref written in the IR.
        strides: per-dim strides of the layout's affine map (:attr:`strides`, derived when first read:
            only the detailed reports read them; a wrong stride is among ``problems`` from the start).
        placement: device placement, None for system memory or no layout.
        problems: disagreements between the IR encoding and the recomputation.
        layout_attr: the TTNN layout the numbers were computed from (its map gives :attr:`strides`).
    """

    logical_shape: tuple[int, ...]
    dtype: DataType
    layout: str
    tile: tuple[int, int] | None
    padded_shape: tuple[int, ...]
    logical_2d: tuple[int, int]
    physical_2d: tuple[int, int]
    tile_grid: tuple[int, int]
    logical_volume: int
    physical_volume: int
    physical_tiles: int
    physical_bytes: int
    padding_pct: float
    grid: tuple[int, ...]
    expected_memref: tuple[int, ...]
    ir_memref: tuple[int, ...]
    placement: Placement | None
    problems: tuple[str, ...]
    layout_attr: TTNNLayout = field(compare=False, repr=False)

    @cached_property
    def strides(self) -> tuple[Stride, ...]:
        """Each logical dim's stride in the layout's affine map against tt-mlir's collapse (:class:`Stride`);
        empty when the map's dims are not the tensor's rank (a problem)."""
        return _strides(self.layout_attr, self.logical_shape, self.tile is not None)

    @property
    def logical_tiles(self) -> float:
        """Logical volume in tiles (fractional): ``logical_volume / (32*32)``."""
        return self.logical_volume / (TILE_HEIGHT * TILE_WIDTH)

    @property
    def waste_tiles(self) -> int:
        """Tiles' worth of padding: physical tiles minus the logical volume in tiles, rounded up."""
        if not self.physical_tiles:
            return 0
        return self.physical_tiles - ceil_div(self.logical_volume, TILE_HEIGHT * TILE_WIDTH)


def analyze(t: TensorType, arch: Arch, layouts: dict | None = None) -> LayoutInfo | None:
    """Compute :class:`LayoutInfo` for a tensor type; None without a TTNN layout.

    The analysis (:func:`ttanalyze.analysis.analyze`) computes it once per type object (the parser makes one
    per distinct type); the per-dim strides are derived when first read (:attr:`LayoutInfo.strides`).
    ``layouts``: a cache of :func:`_layout_figures` (what the numbers read of the layout alone), shared by the
    types of one analysis on one ``arch`` (many types share a layout: 12,562 types of 1,164 layouts in the
    distinct benchmark program).
    """
    lay = t.layout
    if lay is None:
        return None
    got = layouts.get(id(lay)) if layouts is not None else None
    if got is None or got[0] is not lay:
        got = _layout_figures(lay, arch)
        if layouts is not None:
            layouts[id(lay)] = got  # held with the layout, so no other layout takes its id while cached
    _, dtype, tiled, tile, tile_bytes, dims, grid, ir_memref, layout_problems = got
    shape = t.shape
    # a rank-0 row-major tensor is padded to [1]: compute_padded_shape keeps max(rank, len(alignment)) dims
    padded = tile_padded_shape(shape, tile) if tiled else (shape if shape else (1,))
    logical_2d = collapse_2d(shape)
    physical_2d = collapse_2d(padded)
    logical_volume = prod(shape) if shape else 1
    physical_volume = physical_2d[0] * physical_2d[1]
    if tiled:
        tile_grid = (physical_2d[0] // tile[0], physical_2d[1] // tile[1])
        physical_tiles = tile_grid[0] * tile_grid[1]
        physical_bytes = physical_tiles * tile_bytes
    else:
        tile_grid = (0, 0)
        physical_tiles = 0
        physical_bytes = physical_volume * (dtype.scalar_bytes or 0)
    problems: list[str] = []
    if not tiled and dtype.is_block_float:
        problems.append(f"{dtype} is a block-float type and cannot be stored row-major")
    if not _strides_as_expected(dims, shape, tiled):
        _strides(lay, shape, tiled, problems)  # names each wrong stride
    expected_memref = _memref_of(physical_2d, tile, lay.buffer_type, lay.memory_layout, grid)  # derive_memref
    if expected_memref != ir_memref:
        problems.append(
            f"memref {'x'.join(map(str, lay.memref_shape))} disagrees with the "
            f"{'x'.join(map(str, expected_memref))} that the logical shape "
            f"{'x'.join(map(str, shape))} gives ({_memref_reason(lay, tiled)})"
        )
    problems.extend(layout_problems)
    placement = _placement(lay, tiled, tile_bytes, dtype, physical_2d, tile_grid, arch)
    padding_pct = 100.0 * (physical_volume - logical_volume) / physical_volume if physical_volume else 0.0
    return LayoutInfo(shape, dtype, "tile" if tiled else "row_major", tile, padded, logical_2d,
                      physical_2d, tile_grid, logical_volume, physical_volume, physical_tiles, physical_bytes,
                      padding_pct, grid, expected_memref, ir_memref, placement, tuple(problems), lay)


def _layout_figures(lay: TTNNLayout, arch: Arch) -> tuple:
    """What :func:`analyze` reads of a layout alone (not of the type's shape), in order: the layout, its data
    type, whether it is tiled, the tile (height, width) or None, one tile's bytes (0 row-major), the map's
    per-dim coefficients (:func:`_dim_strides`), the grid, the memref written in the IR, and the layout's own
    problems (:func:`_placement_problems`)."""
    element = lay.element
    tiled = isinstance(element, TileType)
    return (lay, lay.dtype, tiled, (element.height, element.width) if tiled else None, element.bytes if tiled else 0,
            _dim_strides(lay.linear), tuple(lay.grid), tuple(lay.memref_shape), tuple(_placement_problems(lay, arch)))


def _strides_as_expected(dims, shape: tuple[int, ...], tiled: bool) -> bool:
    """Whether every dim of a linear map has the stride and result :func:`_strides` expects (then it finds no
    problem): the map's per-dim coefficients ``dims`` (:func:`_dim_strides` of the map, once per map text)
    against :func:`expected_strides` of ``shape``.  False also for a map :func:`_strides` must look at (another
    rank, a non-linear result: ``dims`` None), which it then does."""
    if dims is None or len(dims[0]) != len(shape):
        return False
    results, values, expected_results = dims
    return results == expected_results and values == expected_strides(shape, tiled)


_DIM_STRIDES: dict[str, tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None] = {}  # by map text


def _dim_strides(linear) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    """For a map whose results are all linear: each dim's result index and coefficient as :func:`_strides`
    reads them (a dim in no result: its expected result, 0), and each dim's expected result index (the last
    dim the column result, the others the one before); None for a map with a non-linear result.  Derived once
    per map text for maps read from IR text (see :func:`_map_coefficients`)."""
    cacheable = linear.exprs is not None and linear.text
    if cacheable and linear.text in _DIM_STRIDES:
        return _DIM_STRIDES[linear.text]
    n_results, coefficients = _map_coefficients(linear)
    got = None
    if all(c is not None for c in coefficients):
        rank = len(linear.dim_names)
        results, values, expected = [], [], []
        for i, name in enumerate(linear.dim_names):
            expected_result = n_results - 1 if i == rank - 1 else max(n_results - 2, 0)
            expected.append(expected_result)
            for k in range(n_results):
                if name in coefficients[k]:
                    results.append(k)
                    values.append(coefficients[k][name])
                    break
            else:
                results.append(expected_result)
                values.append(0)
        got = (tuple(results), tuple(values), tuple(expected))
    if cacheable:
        if len(_DIM_STRIDES) >= _COEFFICIENTS_MAX:
            _DIM_STRIDES.clear()
        _DIM_STRIDES[linear.text] = got
    return got


def _strides(lay: TTNNLayout, shape: tuple[int, ...], tiled: bool, problems: list[str] | None = None) -> tuple[Stride, ...]:
    """Strides of the IR map (each dim's coefficient; a sympy derivative where the map is not a plain
    linear combination) against the expected collapse; each disagreement appended to ``problems``."""
    if problems is None:
        problems = []
    rank = len(shape)
    linear = lay.linear
    if len(linear.dim_names) != rank:
        problems.append(f"layout map has {len(linear.dim_names)} dims but the tensor has rank {rank}")
        return ()
    formulas = _stride_formulas(rank, tiled)
    expected_values = expected_strides(shape, tiled)
    n_results, coefficients = _map_coefficients(linear)
    out = []
    for i, name in enumerate(linear.dim_names):
        expected_result = n_results - 1 if i == rank - 1 else max(n_results - 2, 0)
        value, result = None, expected_result
        for k in range(n_results):
            linear_terms = coefficients[k]
            if linear_terms is not None:
                if name in linear_terms:
                    result, value = k, linear_terms[name]
                    break
                continue
            expr, d = linear.results[k], linear.dims[i]
            if expr.has(d):
                import sympy

                result = k
                coeff = sympy.diff(expr, d)
                value = int(coeff) if coeff.is_Integer and expr.is_polynomial(d) else None
                break
        else:
            value = 0
        expected = expected_values[i]
        out.append(Stride(i, result, value, expected, formulas[i]))
        if value != expected or result != expected_result:
            if shape[i] == 1 and value is not None and result == expected_result:
                continue  # a size-1 dim never moves: its stride is irrelevant
            problems.append(
                f"affine map stride of d{i} is {value if value is not None else 'non-linear'}"
                f" but the tile-padded shape gives {expected} (= {formulas[i]})"
            )
    return tuple(out)


_COEFFICIENTS: dict[str, tuple[int, tuple[dict[str, int] | None, ...]]] = {}  # by the text of a parsed map
_COEFFICIENTS_MAX = 4096


def _map_coefficients(linear) -> tuple[int, tuple[dict[str, int] | None, ...]]:
    """The number of results of an affine map and each result's integer coefficients
    (``AffineMapV.coefficients``), derived once per map text for maps read from IR text (one text, one
    map; a program's layouts share a few: 14 maps for the 1,164 layouts of the distinct 50,000-op benchmark
    program).  Callers must not change the dicts."""
    cacheable = linear.exprs is not None and linear.text
    got = _COEFFICIENTS.get(linear.text) if cacheable else None
    if got is None:
        n_results = len(linear.exprs) if linear.exprs is not None else len(linear.results)
        got = (n_results, tuple(linear.coefficients(k) for k in range(n_results)))
        if cacheable:
            if len(_COEFFICIENTS) >= _COEFFICIENTS_MAX:
                _COEFFICIENTS.clear()
            _COEFFICIENTS[linear.text] = got
    return got


def derive_memref(shape: tuple[int, ...], tile: tuple[int, int] | None, buffer_type: str, memory_layout: str | None,
                  grid: tuple[int, ...]) -> tuple[int, ...]:
    """The memref shape tt-mlir's ``TTNNLayoutAttr::Builder::build`` derives (tiles when tiled, else elements).

    The collapsed 2D shape of the tile-padded tensor is the whole memref for DRAM
    interleaved and system memory, ``1 x ceil(tiles / cores)`` for L1 interleaved
    (``calculateLogicalShardShapeForL1Interleaved``) and ``ceil(2D / grid)`` per
    dim for sharded layouts (``calculateLogicalShardShapeForSharding``).
    """
    physical = (tile_padded_shape(shape, tile) if tile else shape) or (1,)
    return _memref_of(collapse_2d(tuple(physical)), tile, buffer_type, memory_layout, grid)


def _memref_of(physical_2d: tuple[int, int], tile: tuple[int, int] | None, buffer_type: str,
               memory_layout: str | None, grid: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`derive_memref` from the collapsed 2D shape of the padded tensor (elements)."""
    rows, cols = physical_2d
    if buffer_type == "l1" and memory_layout == "interleaved":
        cores = prod(grid)
        if tile:
            return (1, ceil_div(ceil_div(rows, tile[0]) * ceil_div(cols, tile[1]), cores))
        return (1, ceil_div(rows * cols, cores))
    if memory_layout is not None and memory_layout.endswith("sharded") and len(grid) == 2:
        rows, cols = ceil_div(rows, grid[0]), ceil_div(cols, grid[1])
    if tile:
        return (ceil_div(rows, tile[0]), ceil_div(cols, tile[1]))
    return (rows, cols)


def _memref_reason(lay: TTNNLayout, tiled: bool) -> str:
    unit = "tiles" if tiled else "elements"
    if lay.buffer_type == "l1" and lay.memory_layout == "interleaved":
        return f"L1 interleaved: 1 x ceil({unit} / {prod(lay.grid)} cores)"
    if lay.is_sharded:
        return f"{lay.memory_layout} on grid {'x'.join(map(str, lay.grid))}: ceil(collapsed 2D / grid) in {unit}"
    return f"{lay.buffer_type} {lay.memory_layout or ''}: the whole collapsed 2D shape in {unit}".replace("  ", " ")


def _placement_problems(lay: TTNNLayout, arch: Arch) -> list[str]:
    """What tt-mlir's TTNNLayoutAttr::verify (TTNNOpsAttrs.cpp ``verifyGridShape``,
    ``verifyBufferAndMemoryLayout``, 19c86fca) and the device refuse in a layout."""
    problems = []
    if lay.buffer_type == "dram" and lay.memory_layout == "interleaved" and prod(lay.grid) != 1:
        problems.append(f"DRAM interleaved layout must have a 1x1 grid, not {'x'.join(map(str, lay.grid))}")
    if lay.buffer_type == "system_memory" and prod(lay.grid) != 1:
        problems.append(f"a system_memory layout must have a 1x1 grid, not {'x'.join(map(str, lay.grid))}")
    if lay.buffer_type == "dram" and lay.memory_layout == "block_sharded":
        problems.append("DRAM does not take block_sharded layouts (width_sharded, height_sharded or interleaved)")
    if lay.buffer_type == "system_memory" and lay.memory_layout is not None:
        problems.append("a system_memory layout has no tensor memory layout")
    if lay.buffer_type in ("dram", "l1") and lay.memory_layout is None:
        problems.append(f"a {lay.buffer_type} layout needs a tensor memory layout")
    if lay.is_sharded:
        if lay.core_ranges is None:
            problems.append(f"{lay.memory_layout} layout has no core_ranges")
        elif lay.core_ranges.num_cores != prod(lay.grid):
            problems.append(
                f"core_ranges {lay.core_ranges} hold {lay.core_ranges.num_cores} cores but the grid "
                f"{'x'.join(map(str, lay.grid))} has {prod(lay.grid)}"
            )
        if lay.buffer_type == "l1" and prod(lay.grid) > arch.num_cores:
            problems.append(f"sharded over {prod(lay.grid)} cores but the device has {arch.num_cores}")
    return problems


def _placement(lay: TTNNLayout, tiled: bool, tile_bytes: int, dtype: DataType, physical_2d, tile_grid,
               arch: Arch) -> Placement | None:
    """Where the tensor lives (:class:`Placement`); ``tile_bytes``: one tile of a tiled tensor (its page)."""
    if lay.buffer_type not in ("dram", "l1", "l1_small"):
        return None
    is_l1 = lay.buffer_type != "dram"
    alignment = arch.l1_alignment if is_l1 else arch.dram_alignment
    banks = arch.num_cores if is_l1 else arch.num_dram_channels
    if tiled:
        page_bytes = tile_bytes
        pages = tile_grid[0] * tile_grid[1]
    else:
        page_bytes = physical_2d[1] * (dtype.scalar_bytes or 0)
        pages = physical_2d[0]
    aligned = align_up(page_bytes, alignment)
    granule = arch.dram_alignment  # allocator alignment for every buffer type
    if lay.is_sharded:
        shard = lay.memref_shape
        if tiled:
            shard_pages = prod(shard)
            per_bank = shard_pages * aligned
        else:  # row-major shards: one page per shard row
            shard_row = align_up(shard[-1] * (dtype.scalar_bytes or 0), alignment)
            per_bank = prod(shard[:-1]) * shard_row
            aligned = shard_row
            pages = physical_2d[0]
        cores = lay.core_ranges.num_cores if lay.core_ranges else prod(lay.grid)
    else:
        per_bank = ceil_div(pages, banks) * aligned
        cores = min(pages, banks)
    per_bank = align_up(per_bank, granule)
    return Placement(
        buffer_type="l1" if is_l1 else "dram",
        memory_layout=lay.memory_layout,
        banks=banks,
        cores_with_data=cores,
        pages=pages,
        page_bytes=page_bytes,
        aligned_page_bytes=aligned,
        bytes_per_bank=per_bank,
        total_bytes=per_bank * banks,
    )

