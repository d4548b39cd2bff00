"""The device tensor as tt-metal's program factories see it: one view for every op model.

A :class:`Tensor` is what a factory reads of a ttnn tensor: logical and padded
shape (elements), data type, layout (``tile`` / ``row_major``) and memory
config (:class:`MemCfg`: buffer type, memory layout, :class:`Shard` spec), plus
the buffer alignments of the device (for page sizes).  :func:`tensor_of` builds
it from an IR value with a TTNN layout the way tt-mlir's runtime hands the
tensor to ttnn: the memory config of ``MemoryConfigAttr::get(TTNNLayoutAttr)``
and the shard spec of ``ShardSpecAttr::get`` (the layout's core ranges, its
memref shard in elements, row-major orientation; tt-mlir
``lib/Dialect/TTNN/IR/TTNNOpsAttrs.cpp`` @19c86fca).  Padded shapes follow
:func:`ttanalyze.layout.tile_padded_shape` (tt-metal ``compute_padded_shape``).
Equality of memory configs is tt-metal's ``MemoryConfig``/``ShardSpec``
equality, whose core grids compare range by range in order
(``operator==(CoreRangeSet, CoreRangeSet)``, ``tt_metal/common/core_coord.cpp``
@0266e6f1).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from math import prod

from ..arch import Arch
from ..ir.attrs import CoreRangeSet, DataType
from ..layout import ceil_div, tile_padded_shape
from .cb import CBContext, CBModelError
from .spec import TensorSpec, row_major_sharded_padded
from .work_split import Core, corerange_to_cores

TILE = 32  # tile height and width (elements)
FACE = 16  # tile face height and width (elements)


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class Shard:
    """A legacy 2D shard spec: the core grid, the shard shape ``(height, width)`` in elements, orientation."""

    grid: CoreRangeSet
    shape: tuple[int, int]
    row_major: bool = True

    @property
    def cores(self) -> tuple[Core, ...]:
        """The shard cores in shard order (each range row by row: ``corerange_to_cores(grid, row_wise=True)``)."""
        return tuple(corerange_to_cores(self.grid, row_wise=True))

    @property
    def tile_shape(self) -> tuple[int, int]:
        """The shard shape in tiles: ``(ceil(height / 32), ceil(width / 32))``."""
        return ceil_div(self.shape[0], TILE), ceil_div(self.shape[1], TILE)

    @property
    def tiles(self) -> int:
        """Tiles of one shard: ``ceil(height / 32) * ceil(width / 32)`` (``ShardSpec::numel`` / tile area)."""
        h, w = self.tile_shape
        return h * w


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class MemCfg:
    """A ttnn MemoryConfig: ``buffer_type`` (``dram``/``l1``), ``memory_layout`` (``interleaved``/``*_sharded``), shard."""

    buffer_type: str
    memory_layout: str
    shard: Shard | None = None

    @property
    def sharded(self) -> bool:
        return self.memory_layout != "interleaved"


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class Tensor:
    """A device tensor: logical and padded shape (elements), dtype, ``tile``/``row_major`` layout, memory config.

    ``l1_alignment`` / ``dram_alignment`` are the device's buffer alignments
    (``hal::get_{l1,dram}_alignment``; 16 and 64 B on Blackhole), which page
    sizes round to.
    """

    shape: tuple[int, ...]
    padded: tuple[int, ...]
    dtype: DataType
    layout: str
    mem: MemCfg
    l1_alignment: int = field(default=16, compare=False)
    dram_alignment: int = field(default=64, compare=False)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def tiled(self) -> bool:
        return self.layout == "tile"

    @property
    def buffer_type(self) -> str:
        return self.mem.buffer_type

    @property
    def memory_layout(self) -> str:
        return self.mem.memory_layout

    @property
    def shard(self) -> Shard | None:
        return self.mem.shard

    @property
    def sharded(self) -> bool:
        return self.mem.memory_layout != "interleaved"  # MemCfg.sharded

    @property
    def l1(self) -> bool:
        return self.mem.buffer_type == "l1"

    @property
    def element_bytes(self) -> int:
        """Bytes of one element (``Tensor::element_size``).

        Raises:
            CBModelError: block-float types, which have none (ttnn raises).
        """
        if self.dtype.scalar_bytes is None:
            raise CBModelError(f"{self.dtype} has no element size (ttnn: 'datum for bfp2, bfp4, bfp8 is invalid')")
        return self.dtype.scalar_bytes

    @property
    def tile_bytes(self) -> int:
        """``tt::tile_size`` of the data format: one 32x32 tile (:meth:`DataType.tile_bytes`, once per dtype).

        Raises:
            AttrError: an unknown data type.
        """
        name = self.dtype.name
        got = _TILE_BYTES.get(name)
        if got is None:
            got = _TILE_BYTES[name] = self.dtype.tile_bytes()
        return got

    @property
    def alignment(self) -> int:
        """The buffer alignment of its buffer type."""
        return self.dram_alignment if self.mem.buffer_type == "dram" else self.l1_alignment

    @property
    def volume(self) -> int:
        """Logical elements."""
        return prod(self.shape) if self.shape else 1

    @property
    def physical_volume(self) -> int:
        """Elements of the padded shape."""
        return prod(self.padded) if self.padded else 1

    @property
    def width(self) -> int:
        """The padded last dim."""
        return self.padded[-1]

    @property
    def height(self) -> int:
        """Collapsed padded height: physical volume / padded width."""
        return self.physical_volume // self.width if self.width else 0

    def with_(self, **changes) -> "Tensor":
        """A copy with ``changes``; a new shape or layout recomputes the padded shape unless one is given.

        Raises:
            TypeError: a change of no field (as :func:`dataclasses.replace`).
        """
        if "padded" not in changes and ("shape" in changes or "layout" in changes):
            shape = tuple(changes.get("shape", self.shape))
            changes["padded"] = tile_padded_shape(shape) if changes.get("layout", self.layout) == "tile" else shape
        if not changes.keys() <= _TENSOR_FIELDS:
            return replace(self, **changes)  # raises, naming the field
        get = changes.get
        return Tensor(get("shape", self.shape), get("padded", self.padded), get("dtype", self.dtype),
                      get("layout", self.layout), get("mem", self.mem), get("l1_alignment", self.l1_alignment),
                      get("dram_alignment", self.dram_alignment))

    def spec(self) -> TensorSpec:
        """The tensor as a :class:`~ttanalyze.ops.spec.TensorSpec` (what ttnn returns)."""
        shard = self.mem.shard.shape if self.mem.shard is not None else None
        return TensorSpec(tuple(self.shape), row_major_sharded_padded(self.padded, self.layout, shard), self.layout,
                          str(self.dtype), self.mem.buffer_type, self.mem.memory_layout, shard)


_TENSOR_FIELDS = frozenset(f.name for f in fields(Tensor))
_TILE_BYTES: dict[str, int] = {}  # Tensor.tile_bytes by dtype name
_INTERLEAVED: dict[str, MemCfg] = {}  # the interleaved MemCfg of each buffer type (tensor_of)


def tensor_of(value, arch: Arch, what: str) -> Tensor:
    """The :class:`Tensor` of an IR value with a TTNN layout on ``arch``; ``what`` names it in errors.

    Row-major tensors have their logical shape as padded shape; TILE tensors
    the tile-padded one.

    Raises:
        CBModelError: no TTNN layout, a host (or other non-DRAM/L1) buffer, no
            memory layout, or a sharded layout without core ranges or with an
            ND (not 2D) shard.
    """
    t = value.type
    lay = getattr(t, "layout", None)
    if lay is None:
        raise CBModelError(f"{what} has no TTNN layout")
    if lay.buffer_type not in ("dram", "l1"):
        raise CBModelError(f"{what} is in {lay.buffer_type}, not on the device")
    if lay.memory_layout is None:
        raise CBModelError(f"{what} is in {lay.buffer_type} without a tensor memory layout")
    shard = None
    if lay.is_sharded:
        if lay.core_ranges is None:
            raise CBModelError(f"{what} is {lay.memory_layout} without core ranges")
        if len(lay.memref_shape) != 2:
            raise CBModelError(f"{what}: a sharded memref of rank {len(lay.memref_shape)} (ND sharding) is not modeled")
        th, tw = (lay.element.height, lay.element.width) if lay.is_tiled else (1, 1)
        shard = Shard(lay.core_ranges, (lay.memref_shape[0] * th, lay.memref_shape[1] * tw))
    shape = tuple(t.shape)
    tiled = lay.is_tiled
    padded = tile_padded_shape(shape) if tiled else shape
    if shard is None and lay.memory_layout == "interleaved":
        mem = _INTERLEAVED.get(lay.buffer_type)
        if mem is None:
            mem = _INTERLEAVED[lay.buffer_type] = MemCfg(lay.buffer_type, "interleaved")
    else:
        mem = MemCfg(lay.buffer_type, lay.memory_layout, shard)
    return Tensor(shape, padded, lay.dtype, "tile" if tiled else "row_major", mem, arch.l1_alignment,
                  arch.dram_alignment)


def _view(ctx: CBContext, value, what: str) -> Tensor:
    """:func:`tensor_of` through the context's cache: one view per value type and analysis (the view reads only
    the type and the arch, and the parser makes one object per distinct type).  The cache holds the type with
    its view, so no other type can take its ``id`` while it is cached; a value without a view raises each
    time, with its own ``what``."""
    vt = value.type
    got = ctx.tensor_views.get(id(vt))
    if got is None or got[0] is not vt:
        got = ctx.tensor_views[id(vt)] = (vt, tensor_of(value, ctx.arch, what))
    return got[1]


def seed_views(pairs) -> dict:
    """A :attr:`CBContext.tensor_views` cache holding the given ``(value, Tensor)`` views (values built by a
    model for a call it makes, whose types carry no TTNN layout)."""
    return {id(v.type): (v.type, t) for v, t in pairs}


def operand(ctx: CBContext, i: int) -> Tensor:
    """Operand ``i`` of ``ctx.op`` as a :class:`Tensor` (see :func:`tensor_of`).

    Raises:
        CBModelError: the op has no operand ``i`` (TTA007 reports the missing operand).
    """
    if i >= len(ctx.op.operands):
        raise CBModelError(f"{ctx.op.name} has no operand #{i}")
    value = ctx.op.operands[i]
    got = ctx.tensor_views.get(id(value.type))  # _view's cache, read without naming the operand
    if got is not None and got[0] is value.type:
        return got[1]
    return _view(ctx, value, f"operand #{i} of {ctx.op.name}")


def result(ctx: CBContext, i: int = 0) -> Tensor:
    """Result ``i`` of ``ctx.op`` as a :class:`Tensor` (see :func:`tensor_of`).

    Raises:
        CBModelError: the op has no such result, or see :func:`tensor_of`.
    """
    if i >= len(ctx.op.results):
        raise CBModelError(f"{ctx.op.name} has no result #{i}")
    value = ctx.op.results[i]
    got = ctx.tensor_views.get(id(value.type))  # _view's cache, read without naming the result
    if got is not None and got[0] is value.type:
        return got[1]
    return _view(ctx, value, f"result of {ctx.op.name}")
