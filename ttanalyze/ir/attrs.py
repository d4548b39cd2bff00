"""Typed objects for the ``ttnn``/``ttcore`` attributes and types of TTNN IR.

Each class follows the TableGen definition named in its docstring, from tt-mlir
commit 19c86fca (2026-08-21): ``include/ttmlir/Dialect/TTNN/IR/TTNNOpsAttrs.td``
(TTNN), ``include/ttmlir/Dialect/TTCore/IR/TTCoreOpsTypes.td`` (TTCore) and the
enums in ``TTNNOpsEnums.td``/``TTCoreOpsEnums.td``.

:func:`build` turns a generic tree from :mod:`ttanalyze.ir.attr_grammar` into
these objects; a dialect attribute without a typed class becomes a
:class:`DialectAttr` (kept whole, reported as unmodeled where it matters).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .attr_grammar import AffineMapV, AliasRef, Coord, Dims, Ident, Node, ShapedTypeV, TypedInt

TILE_HEIGHT = 32
TILE_WIDTH = 32


class AttrError(ValueError):
    """An attribute parsed, but its parameters are not what its TableGen definition says."""


# ---------------------------------------------------------------------------
# Data types
# ---------------------------------------------------------------------------

# Scalar size in bytes per element for row-major storage; block-float types
# have none (tt-metal stores them only in tiles).
_SCALAR_BYTES = {
    "f32": 4, "f16": 2, "bf16": 2, "u32": 4, "u16": 2, "u8": 1, "si32": 4, "i1": 1,
    "i32": 4, "i16": 2, "i8": 1, "ui32": 4, "ui16": 2, "ui8": 1, "f64": 8, "i64": 8,
}
# Bytes of one 32x32 tile.  tt-mlir TileType::getSizeBytes (TTCoreOpsTypes.cpp,
# 19c86fca) and tt-metal tt::tile_size(DataFormat): block-float tiles carry one
# shared exponent byte per 16 elements (64 B) beside the mantissas.
_TILE_BYTES_32x32 = {
    "f32": 4096, "f16": 2048, "bf16": 2048,
    "bfp_f8": 1088, "bfp_bf8": 1088, "bfp_f4": 576, "bfp_bf4": 576, "bfp_f2": 320, "bfp_bf2": 320,
    "u32": 4096, "si32": 4096, "u16": 2048, "u8": 1024, "i1": 1024,
}
# MLIR builtin element types -> tt DataType names (ttcore::elementTypeToDataType).
BUILTIN_TO_DTYPE = {
    "f32": "f32", "f16": "f16", "bf16": "bf16", "i32": "si32", "si32": "si32", "ui32": "u32",
    "u32": "u32", "ui16": "u16", "u16": "u16", "ui8": "u8", "u8": "u8", "i1": "i1",
}


@dataclass(frozen=True)
class DataType:
    """A tt DataType (``TTCore_DataType``: f32, bf16, bfp_bf8, u32, si32, ...)."""

    name: str

    @property
    def is_block_float(self) -> bool:
        return self.name.startswith("bfp_")

    @property
    def scalar_bytes(self) -> int | None:
        """Bytes per element in row-major storage; None for block-float types."""
        return _SCALAR_BYTES.get(self.name)

    def tile_bytes(self, height: int = TILE_HEIGHT, width: int = TILE_WIDTH) -> int:
        """Bytes of one ``height x width`` tile.

        Source: tt-mlir ``TileType::getSizeBytes`` / tt-metal ``tile_size``; a
        block-float 32x32 tile is mantissas plus 64 shared-exponent bytes.

        Raises:
            AttrError: block-float types with a tile other than 32x32, or an
                unknown data type.
        """
        if self.is_block_float:
            if (height, width) != (32, 32):
                raise AttrError(f"{self.name} tiles must be 32x32, not {height}x{width}")
            return _TILE_BYTES_32x32[self.name]
        if self.name not in _SCALAR_BYTES:
            raise AttrError(f"unknown data type '{self.name}'")
        return height * width * _SCALAR_BYTES[self.name]

    def __str__(self) -> str:
        return self.name


def dtype_from_builtin(name: str) -> DataType:
    """DataType of an MLIR builtin element type name (``bf16``, ``i32``, ``f32``).

    Raises:
        AttrError: a type tt-metal cannot store (e.g. ``f64``, ``complex``).
    """
    if name in BUILTIN_TO_DTYPE:
        return DataType(BUILTIN_TO_DTYPE[name])
    raise AttrError(f"element type '{name}' has no tt DataType")


@dataclass(frozen=True)
class TileType:
    """``!ttcore.tile<HxW, dtype>`` (TTCore_TileType)."""

    height: int
    width: int
    dtype: DataType

    @property
    def bytes(self) -> int:
        return self.dtype.tile_bytes(self.height, self.width)

    def __str__(self) -> str:
        return f"!ttcore.tile<{self.height}x{self.width}, {self.dtype}>"


# ---------------------------------------------------------------------------
# Cores
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CoreCoord:
    """``#ttnn.core_coord<x, y>`` (TTNN_CoreCoordAttr); also ``(x,y)`` in core ranges."""

    x: int
    y: int


@dataclass(frozen=True)
class CoreRange:
    """``#ttnn.core_range<(x0,y0), (x1,y1)>`` (TTNN_CoreRangeAttr), inclusive ends."""

    start: CoreCoord
    end: CoreCoord

    @property
    def num_cores(self) -> int:
        return (self.end.x - self.start.x + 1) * (self.end.y - self.start.y + 1)

    def __str__(self) -> str:
        return f"[({self.start.x},{self.start.y})-({self.end.x},{self.end.y})]"


@dataclass(frozen=True)
class CoreRangeSet:
    """``#ttnn.core_range_set<[...]>`` (TTNN_CoreRangeSetAttr)."""

    ranges: tuple[CoreRange, ...]

    @property
    def num_cores(self) -> int:
        return sum(r.num_cores for r in self.ranges)

    def __str__(self) -> str:
        return "{" + ", ".join(str(r) for r in self.ranges) + "}"


# ---------------------------------------------------------------------------
# Layouts and memory configs
# ---------------------------------------------------------------------------

BUFFER_TYPES = ("dram", "l1", "system_memory", "l1_small", "trace")
MEMORY_LAYOUTS = ("interleaved", "height_sharded", "width_sharded", "block_sharded", "nd_sharded")


@dataclass(frozen=True)
class TTNNLayout:
    """``#ttnn.ttnn_layout<linear, <grid>, memref<...>, <mem_layout>, core_ranges = ...>``.

    TTNN_TTNNLayoutAttr: ``linear`` maps logical dims onto the 2D collapsed
    space; ``grid`` is the core grid the tensor is placed on (1x1 for DRAM
    interleaved and system memory); ``memref_shape`` is the per-core shard in
    tiles (tiled) or elements (row-major) for sharded and L1-interleaved layouts,
    and the whole 2D tensor for DRAM-interleaved and system memory.

    Forms of every tt-mlir era are read (assemblyFormat of TTNN_TTNNLayoutAttr,
    ``TTNNOpsAttrs.td``): the grid may carry its virtual-to-physical core maps
    (``<8x8, virt_to_physical_map = M, physical_to_virt_map = N>`` from 2026,
    ``<4x1, (d0, d1) -> (...)>`` in 2025), kept in ``grid_mapping``; ``mesh =
    #ttcore.tensor_mesh<"name">`` names the device mesh a multi-device tensor is
    spread over (``tensor_mesh``, the mesh's name in the module's
    ``ttcore.meshes``, see :attr:`ttanalyze.ir.model.Program.meshes`); the linear
    map may have more results than the grid has dims (ND layouts such as
    ``(d0, d1, d2, d3) -> (d0 * 32 + d1, d2, d3), <1x1>``), which tt-mlir's
    verifier accepts.
    """

    linear: AffineMapV
    grid: tuple[int, ...]
    memref_shape: tuple[int, ...]
    element: TileType | DataType
    buffer_type: str
    memory_layout: str | None
    core_ranges: CoreRangeSet | None = None
    text: str = ""
    grid_mapping: tuple[AffineMapV, ...] = ()
    tensor_mesh: str | None = None
    ignore_physical_layout: bool = False

    @property
    def is_tiled(self) -> bool:
        return isinstance(self.element, TileType)

    @property
    def dtype(self) -> DataType:
        return self.element.dtype if isinstance(self.element, TileType) else self.element

    @property
    def is_sharded(self) -> bool:
        return self.memory_layout is not None and self.memory_layout.endswith("sharded")

    @property
    def layout_name(self) -> str:
        return "tile" if self.is_tiled else "row_major"


@dataclass(frozen=True)
class ShardSpec:
    """``#ttnn.shard_spec<core_range_set, <HxW>, <orientation>>`` (TTNN_ShardSpecAttr)."""

    core_ranges: CoreRangeSet
    shape: tuple[int, ...]
    orientation: str


@dataclass(frozen=True)
class MemoryConfig:
    """``#ttnn.memory_config<#buffer, <layout>, shard_spec?>`` (TTNN_MemoryConfigAttr)."""

    buffer_type: str
    memory_layout: str | None
    shard_spec: ShardSpec | None = None


@dataclass(frozen=True)
class LayoutAttr:
    """``#ttnn.layout<tile|row_major>`` (TTNN_LayoutAttr)."""

    value: str


@dataclass(frozen=True)
class ShapeAttr:
    """``#ttnn.shape<AxB>`` (TTNN_ShapeAttr)."""

    dims: tuple[int, ...]


@dataclass(frozen=True)
class EnumValue:
    """A dialect enum attribute: ``#ttnn.buffer_type<dram>``, ``#ttcore.supportedDataTypes<bf16>``..."""

    kind: str
    value: str


# ---------------------------------------------------------------------------
# Program and compute configs
# ---------------------------------------------------------------------------

MATMUL_CONFIG_KINDS = {
    "ttnn.matmul_multi_core_reuse_program_config": "reuse",
    "ttnn.matmul_multi_core_reuse_multi_cast_program_config": "mcast_2d",
    "ttnn.matmul_multi_core_reuse_multi_cast_1d_program_config": "mcast_1d",
    "ttnn.matmul_multi_core_reuse_multi_cast_dram_sharded_program_config": "dram_sharded",
}


@dataclass(frozen=True)
class MatmulProgramConfig:
    """A matmul program config (TTNN_MatmulMultiCoreReuse*ProgramConfigAttr).

    ``kind`` is ``reuse``, ``mcast_2d``, ``mcast_1d`` or ``dram_sharded``;
    ``params`` holds the struct parameters by their TableGen names
    (``in0_block_w``, ``out_subblock_h``, ``per_core_m``, ``mcast_in0``, ...);
    ``grid`` is ``compute_with_storage_grid_size`` as (x, y) where present.
    """

    kind: str
    params: dict[str, Any] = field(hash=False, compare=False)
    grid: tuple[int, int] | None = None

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


@dataclass(frozen=True)
class ComputeKernelConfig:
    """``#ttnn.device_compute_kernel_config<...>`` (TTNN_DeviceComputeKernelConfig)."""

    math_fidelity: str | None = None
    math_approx_mode: bool | None = None
    fp32_dest_acc_en: bool | None = None
    packer_l1_acc: bool | None = None
    dst_full_sync_en: bool | None = None


@dataclass(frozen=True)
class UnaryWithParam:
    """``#ttnn.unary_with_param<op_type = rsqrt, params = [...]>`` (UnaryWithParamAttr)."""

    op_type: str
    params: tuple[float, ...] = ()


@dataclass(frozen=True)
class GridAttr:
    """``#ttcore.grid<RxC>``: a core grid as printed, rows x cols (TTCore_GridAttr)."""

    shape: tuple[int, ...]


@dataclass(frozen=True)
class StructAttr:
    """A struct-like config with parameters kept by name.

    Used for ``#ttnn.conv2d_config``, ``#ttnn.conv3d_config``,
    ``#ttnn.sdpa_program_config`` and
    ``#ttnn.layer_norm_sharded_multi_core_program_config``, whose parameters the
    analyses read by name.
    """

    kind: str
    params: dict[str, Any] = field(hash=False, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)


@dataclass(frozen=True)
class DialectAttr:
    """A dialect attribute ttanalyze keeps whole without a typed model."""

    kind: str
    text: str


# ---------------------------------------------------------------------------
# System description
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChipDesc:
    """``ttcore`` chip_desc (TTCore_ChipDescAttr); sizes in bytes.

    ``grid`` is the worker (Tensix) grid as (rows, cols) as printed (``8x8``,
    ``10x11``); ``dram_grid`` likewise.

    Every era of tt-mlir's chip_desc is read (``TTCoreOpsTypes.td``, ``TTOpsTypes.td``
    before the ``tt`` -> ``ttcore`` rename of 2025-06-17): a field an older
    tt-mlir did not write gets the default below, recorded in ``defaulted`` as
    (field, value, why), which rule TTA026 reports as a note:

    * ``dst_physical_size_tiles`` (from tt-mlir 4e4ab42d, 2025-10-08): earlier
      files carry ``dst_register_size_tiles``, the half-sync DST capacity, and
      the physical size is twice it (that commit changed ``getDefault``'s 8 into
      16); before ``dst_register_size_tiles`` existed (3547e8f5, 2025-06-02) it is 16, the
      physical DST of Wormhole and Blackhole in 32x32 16-bit tiles.
    * ``dram_grid`` (from tt-mlir d6102f30, 2026-04-23): ``1 x num_dram_channels``,
      the DRAM grid tt-mlir's ``#ttcore.device`` used before.
    * ``physical_helper_cores``, ``coord_translation_offsets``,
      ``supported_tile_sizes``, ``num_compute_threads``... (removed 2025-08-01)
      are read and ignored.
    """

    arch: str
    grid: tuple[int, ...]
    l1_size: int
    num_dram_channels: int
    dram_channel_size: int
    noc_l1_address_align_bytes: int
    pcie_address_align_bytes: int
    noc_dram_address_align_bytes: int
    l1_unreserved_base: int
    erisc_l1_unreserved_base: int
    dram_unreserved_base: int
    dram_unreserved_end: int
    dst_physical_size_tiles: int
    num_cbs: int
    dram_grid: tuple[int, ...]
    supported_data_types: tuple[str, ...] = ()
    defaulted: tuple[tuple[str, int | tuple[int, ...], str], ...] = ()


@dataclass(frozen=True)
class SystemDesc:
    """``#ttcore.system_desc<[cpus], [chips], [indices], [capabilities], [coords]>``."""

    chips: tuple[ChipDesc, ...]
    chip_desc_indices: tuple[int, ...]


@dataclass(frozen=True)
class TensorMesh:
    """``#ttcore.tensor_mesh<"mesh">`` (TTCore_TensorMeshAttr): the device mesh a tensor is spread over."""

    name: str


@dataclass(frozen=True)
class Meshes:
    """``#ttcore.meshes<[<"mesh" = 2x4>, ...]>`` (TTCore_MeshesAttr): the device meshes by name.

    ``shapes`` maps each mesh name to its shape (rows x cols of chips); a layout's
    ``mesh = #ttcore.tensor_mesh<"mesh">`` names one of them.
    """

    shapes: tuple[tuple[str, tuple[int, ...]], ...]

    def shape(self, name: str) -> tuple[int, ...] | None:
        """The shape of mesh ``name``, None when the module has no such mesh."""
        return dict(self.shapes).get(name)


@dataclass(frozen=True)
class DeviceAttr:
    """``#ttcore.device<workerGrid = ..., dramGrid = ..., meshShape = ..., chipIds = ...>``."""

    worker_grid: tuple[int, ...]
    dram_grid: tuple[int, ...]
    mesh_shape: tuple[int, ...]
    chip_ids: tuple[int, ...]


# ---------------------------------------------------------------------------
# Tree -> typed objects
# ---------------------------------------------------------------------------

Resolver = Callable[[str], Any]


def _ident(v: Any, what: str) -> str:
    if isinstance(v, Ident):
        return v.name
    if isinstance(v, Node) and len(v.items) == 1 and isinstance(v.items[0], Ident) and not v.kw:
        return v.items[0].name
    if isinstance(v, EnumValue):
        return v.value
    raise AttrError(f"{what}: expected an identifier, got {_show(v)}")


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) < 80 else text[:77] + "..."


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, TypedInt)):
        raise AttrError(f"{what}: expected an integer, got {_show(v)}")
    return v.value if isinstance(v, TypedInt) else v


def _dims(v: Any, what: str) -> tuple[int, ...]:
    if isinstance(v, Dims):
        return v.values
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,)
    if isinstance(v, Node) and len(v.items) == 1 and not v.kw:
        return _dims(v.items[0], what)
    raise AttrError(f"{what}: expected a dimension list like 8x8, got {_show(v)}")


def _coord(v: Any, what: str) -> CoreCoord:
    if isinstance(v, Coord) and len(v.values) == 2:
        return CoreCoord(*v.values)
    if isinstance(v, Node) and v.name == "ttnn.core_coord" and len(v.items) == 2:
        return CoreCoord(_int(v.items[0], what), _int(v.items[1], what))
    raise AttrError(f"{what}: expected a core coordinate (x, y), got {_show(v)}")


class _Builder:
    """Converts generic trees to typed objects, resolving aliases."""

    def __init__(self, resolve: Resolver):
        self.resolve = resolve

    def deref(self, v: Any) -> Any:
        seen = 0
        while isinstance(v, AliasRef):
            seen += 1
            if seen > 32:
                raise AttrError(f"alias cycle through '{v.name}'")
            v = self.resolve(v.name)
        return v

    def value(self, v: Any) -> Any:
        v = self.deref(v)
        if isinstance(v, Node) and v.kind in ("attr", "type") and v.name:
            builder = _BUILDERS.get(v.name)
            if builder is not None:
                return builder(self, v)
            return DialectAttr(v.name, "")
        return v

    # element types ---------------------------------------------------------
    def element(self, v: Any, what: str) -> TileType | DataType:
        v = self.deref(v)
        if isinstance(v, Ident):
            return dtype_from_builtin(v.name)
        if isinstance(v, Node) and v.name == "ttcore.tile":
            return self.tile(v)
        raise AttrError(f"{what}: expected an element type, got {_show(v)}")

    def tile(self, node: Node) -> TileType:
        if len(node.items) != 2:
            raise AttrError("!ttcore.tile expects <HxW, dtype>")
        shape = _dims(node.items[0], "tile shape")
        if len(shape) != 2 or not all(1 <= d <= 32 for d in shape):  # tt-metal tiles are at most 32x32
            raise AttrError(f"!ttcore.tile shape {'x'.join(map(str, shape))} is not HxW with 1..32 rows and columns")
        h, w = shape
        dtype = _ident(node.items[1], "tile data type")
        if dtype in BUILTIN_TO_DTYPE:
            dtype = BUILTIN_TO_DTYPE[dtype]
        if dtype not in _TILE_BYTES_32x32:
            raise AttrError(f"unknown tile data type '{dtype}'")
        return TileType(h, w, DataType(dtype))

    def buffer_type(self, v: Any, what: str) -> str:
        v = self.deref(v)
        if isinstance(v, Node) and v.name == "ttnn.buffer_type":
            name = _ident(v.items[0] if v.items else None, what)
        else:
            name = _ident(v, what)
        if name not in BUFFER_TYPES:
            raise AttrError(f"{what}: unknown buffer type '{name}'")
        return name

    def memory_layout(self, v: Any, what: str) -> str | None:
        """The tensor memory layout's name; None for ``none``, the layout of host tensors until tt-mlir
        357853836b (2024-12-06, "Removing ttnn::TensorMemoryLayout::None")."""
        v = self.deref(v)
        if isinstance(v, Node) and v.name in ("ttnn.tensor_memory_layout", "ttcore.tensor_memory_layout"):
            v = v.items[0] if v.items else None
        name = _ident(v, what)
        if name == "none":
            return None
        if name not in MEMORY_LAYOUTS:
            raise AttrError(f"{what}: unknown tensor memory layout '{name}'")
        return name

    def core_range(self, node: Node) -> CoreRange:
        if len(node.items) != 2:
            raise AttrError("#ttnn.core_range expects two coordinates")
        return CoreRange(_coord(node.items[0], "core_range start"), _coord(node.items[1], "core_range end"))

    def core_range_set(self, v: Any) -> CoreRangeSet:
        v = self.deref(v)
        if isinstance(v, Node) and v.name in (None, "ttnn.core_range_set"):
            ranges = []
            for item in v.items:
                for r in item if isinstance(item, list) else [item]:
                    r = self.deref(r)
                    if not (isinstance(r, Node) and r.name == "ttnn.core_range"):
                        raise AttrError(f"core_ranges: expected #ttnn.core_range, got {_show(r)}")
                    ranges.append(self.core_range(r))
            return CoreRangeSet(tuple(ranges))
        raise AttrError(f"expected a core range set, got {_show(v)}")

    def struct_params(self, node: Node) -> dict[str, Any]:
        """``key = value`` parameters, typed by :data:`_STRUCT_FIELDS` where the struct prints them bare
        (``activation = <op_type = relu>``, ``shard_layout = block_sharded``)."""
        fields = _STRUCT_FIELDS.get(node.name or "", {})
        params = {}
        for key, v in node.kw.items():
            convert = fields.get(key)
            params[key] = convert(self, self.deref(v), f"{node.name} {key}") if convert else self.value(v)
        return params


def _layout_grid(b: _Builder, v: Any) -> tuple[tuple[int, ...], tuple[AffineMapV, ...]]:
    """The grid of a layout: ``<8x8>``, ``<4x1, (d0, d1) -> (...)>`` or ``<8x8, virt_to_physical_map = ...>``."""
    v = b.deref(v)
    if isinstance(v, Node) and v.name in (None, "ttcore.grid") and v.items:  # <8x8, ...> or #ttcore.grid<8x8, ...>
        maps = tuple(x for x in list(v.items[1:]) + list(v.kw.values()) if isinstance(x, AffineMapV))
        return _dims(v.items[0], "ttnn_layout grid"), maps
    return _dims(v, "ttnn_layout grid"), ()


def _build_tensor_mesh(b: _Builder, node: Node) -> TensorMesh:
    if not node.items:
        raise AttrError('#ttcore.tensor_mesh expects <"mesh name">')
    name = node.items[0]
    return TensorMesh(name if isinstance(name, str) else _ident(name, "tensor_mesh"))


def _tensor_mesh(b: _Builder, v: Any) -> str:
    v = b.deref(v)
    if isinstance(v, Node) and v.name == "ttcore.tensor_mesh":
        return _build_tensor_mesh(b, v).name
    if isinstance(v, Node) and v.items:  # other mesh attributes (tensor_mesh_sharding of early 2025): the name
        first = v.items[0]
        return first if isinstance(first, str) else _show(first)
    raise AttrError(f"ttnn_layout mesh: expected #ttcore.tensor_mesh<\"name\">, got {_show(v)}")


def _build_layout(b: _Builder, node: Node) -> TTNNLayout:
    items = list(node.items)
    if len(items) < 3:
        raise AttrError("#ttnn.ttnn_layout expects <linear map, <grid>, memref<...>, ...>")
    linear = items[0]
    if not isinstance(linear, AffineMapV):
        raise AttrError("#ttnn.ttnn_layout: first parameter must be an affine map")
    grid, grid_mapping = _layout_grid(b, items[1])
    memref = b.deref(items[2])
    if not isinstance(memref, ShapedTypeV) or memref.kind != "memref":
        raise AttrError("#ttnn.ttnn_layout: third parameter must be a memref type")
    element = b.element(memref.element, "ttnn_layout memref element")
    if not memref.extra:
        raise AttrError("#ttnn.ttnn_layout: memref has no memory space (#dram, #l1, #system_memory)")
    buffer_type = b.buffer_type(memref.extra[0], "ttnn_layout memory space")
    mem_layout = b.memory_layout(items[3], "ttnn_layout memory layout") if len(items) > 3 else None
    core_ranges = b.core_range_set(node.kw["core_ranges"]) if "core_ranges" in node.kw else None
    mesh = _tensor_mesh(b, node.kw["mesh"]) if "mesh" in node.kw else None
    ignore = node.kw.get("ignorePhysicalLayout") is True
    return TTNNLayout(linear, grid, memref.shape, element, buffer_type, mem_layout, core_ranges,
                      grid_mapping=grid_mapping, tensor_mesh=mesh, ignore_physical_layout=ignore)


# ``#tt.memory_space<...>`` in the memref of a ``#tt.layout`` (tt-mlir TTOpsEnums.td TT_MemorySpace, before
# 5c1f2a9e): the buffer type it names.
_MEMORY_SPACES = {"system": "system_memory", "mmio": "system_memory", "dram": "dram", "l1": "l1"}


def _build_tt_layout(b: _Builder, node: Node) -> TTNNLayout:
    """``#tt.layout<linear, oob_val, <grid>, memref<..., #tt.memory_space<dram>>, interleaved?>``: the tensor
    encoding of TTNN IR before tt-mlir 5c1f2a9e (2024-11-17, "Replacing LayoutAttr with TensorConfigAttr"),
    ``TT_LayoutAttr`` of TTOpsTypes.td @c4dd5377 (parameters linear, oob_val, grid, memref, mem_layout =
    none by default).  Read as the ``#ttnn.ttnn_layout`` it became: the out-of-bounds value is dropped and
    the memory space names the buffer type."""
    items = list(node.items)
    if len(items) < 4:
        raise AttrError("#tt.layout expects <linear map, oob_val, <grid>, memref<...>, mem_layout?>")
    memref = b.deref(items[3])
    if not isinstance(memref, ShapedTypeV) or memref.kind != "memref" or not memref.extra:
        raise AttrError("#tt.layout: fourth parameter must be a memref type with a memory space")
    space = b.deref(memref.extra[0])
    if isinstance(space, Node) and space.name == "ttcore.memory_space":
        name = _ident(space.items[0] if space.items else None, "tt.layout memory space")
        if name not in _MEMORY_SPACES:
            raise AttrError(f"#tt.layout: unknown memory space '{name}'")
        memref = ShapedTypeV(memref.kind, memref.shape, memref.element, (Ident(_MEMORY_SPACES[name]),
                                                                         *memref.extra[1:]))
    return _build_layout(b, Node(node.name, [items[0], items[2], memref, *items[4:]], node.kw))


def _build_memory_config(b: _Builder, node: Node) -> MemoryConfig:
    buffer_type, mem_layout, shard = None, None, None
    for item in node.items:
        item = b.deref(item)
        if isinstance(item, Node) and item.name == "ttnn.buffer_type":
            buffer_type = b.buffer_type(item, "memory_config buffer type")
        elif _is_shard_shape_only(item):
            continue  # <<2x4>>: the shard spec of tt-mlir 21a5026a..392c8837 (2024-10 .. 2025-05), a shape alone
        elif isinstance(item, Node) and item.name == "ttnn.shard_spec":
            shard = _build_shard_spec(b, item)
        elif isinstance(item, Node) and item.name is None and len(item.items) == 1 and not item.kw \
                and isinstance(item.items[0], Ident) and item.items[0].name in BUFFER_TYPES:
            buffer_type = item.items[0].name  # <dram>: the buffer type printed bare (tt-mlir before 2025-07)
        elif isinstance(item, Node) and item.name in (None, "ttnn.tensor_memory_layout"):
            mem_layout = b.memory_layout(item, "memory_config memory layout")
    for key, item in node.kw.items():
        if key in ("bufferType", "buffer_type"):
            buffer_type = b.buffer_type(item, "memory_config buffer type")
        elif key in ("tensorMemoryLayout", "tensor_memory_layout"):
            mem_layout = b.memory_layout(item, "memory_config memory layout")
    if buffer_type is None:
        raise AttrError("#ttnn.memory_config has no buffer type")
    return MemoryConfig(buffer_type, mem_layout, shard)


def _is_shard_shape_only(item) -> bool:
    """``<<2x4>>`` (or ``#ttnn.shard_spec<<2x4>>>``) in a memory config: ``TTNN_ShardSpecAttr`` of tt-mlir
    21a5026a (2024-10-28) .. 392c8837 (2025-05-16) held only ``ShapeAttr shardShape`` (TTNNOpsAttrs.td,
    "TODO (#620): Add other fields like core_ranges"), printed after the buffer type:
    ``#ttnn.memory_config<#dram, <<2x4>>, <interleaved>>``.  It names no cores, so it adds nothing to the
    result's layout (its grid and memref) and is not kept."""
    if not isinstance(item, Node) or item.name not in (None, "ttnn.shard_spec") or item.kw or len(item.items) != 1:
        return False
    shape = item.items[0]
    return isinstance(shape, Node) and shape.name is None and not shape.kw and len(shape.items) == 1 \
        and isinstance(shape.items[0], Dims)


def _build_shard_spec(b: _Builder, node: Node) -> ShardSpec:
    if len(node.items) < 3:
        raise AttrError("#ttnn.shard_spec expects <core_range_set, <HxW>, <orientation>>")
    return ShardSpec(
        b.core_range_set(node.items[0]),
        _dims(node.items[1], "shard_spec shape"),
        _ident(node.items[2], "shard_spec orientation"),
    )


def _build_matmul_config(b: _Builder, node: Node) -> MatmulProgramConfig:
    params = b.struct_params(node)
    if not node.kw and node.items:  # dram_sharded prints positional struct values
        raise AttrError(f"#{node.name}: expected key = value parameters")
    grid = params.get("compute_with_storage_grid_size")
    grid_xy = (grid.x, grid.y) if isinstance(grid, CoreCoord) else None
    return MatmulProgramConfig(MATMUL_CONFIG_KINDS[node.name], params, grid_xy)


def _build_compute_config(b: _Builder, node: Node) -> ComputeKernelConfig:
    p = b.struct_params(node)
    fid = p.get("math_fidelity")
    return ComputeKernelConfig(
        math_fidelity=_ident(fid, "math_fidelity") if fid is not None else None,
        math_approx_mode=p.get("math_approx_mode"),
        fp32_dest_acc_en=p.get("fp32_dest_acc_en"),
        packer_l1_acc=p.get("packer_l1_acc"),
        dst_full_sync_en=p.get("dst_full_sync_en"),
    )


def _build_unary(b: _Builder, node: Node) -> UnaryWithParam:
    op_type = node.kw.get("op_type")
    if op_type is None:
        raise AttrError("unary_with_param has no op_type")
    params = tuple(float(x) for x in node.kw.get("params", []) if isinstance(x, (int, float)))
    return UnaryWithParam(_ident(op_type, "unary op_type"), params)


def _build_system_desc(b: _Builder, node: Node) -> SystemDesc | DialectAttr:
    if not node.items and not node.kw:
        # ``#tt.system_desc<>`` (with ``#tt.device<>``): a placeholder of tt-mlir's silicon tests, which
        # tools/scripts/extract-and-replace-system-desc-and-device.py fills in before ttmlir-opt reads the file
        # (e.g. test/ttmlir/Silicon/TTNN/n150/Transforms/DecomposeLayouts/*.mlir @2163da7d): no chip; the module
        # keeps it as a plain attribute and the chip comes from --arch
        return DialectAttr(node.name, "")
    first = node.items[0] if node.items else None
    if isinstance(first, list) and first and all(isinstance(c, Node) and "arch" in c.kw for c in first):
        # <[chip descs], [chip indices], ...>: no cpu descs before tt-mlir 36175285 (2024-11-15)
        node = Node(node.name, [[], *node.items], node.kw)
    if len(node.items) < 3 or not all(isinstance(i, list) for i in node.items[:3]):
        raise AttrError("#ttcore.system_desc expects <[cpu descs], [chip descs], [chip indices], ...>")
    chips = tuple(_build_chip_desc(b, c) for c in node.items[1])
    if not chips:
        raise AttrError("#ttcore.system_desc has no chip descriptions")
    indices = tuple(_int(i, "chip_desc_indices") for i in node.items[2])
    return SystemDesc(chips, indices)


_CHIP_INT_FIELDS = (
    "l1_size", "num_dram_channels", "dram_channel_size", "noc_l1_address_align_bytes",
    "pcie_address_align_bytes", "noc_dram_address_align_bytes", "l1_unreserved_base",
    "erisc_l1_unreserved_base", "dram_unreserved_base", "dram_unreserved_end", "num_cbs",
)
# What a chip desc of every era holds; the other fields were added over 2024 (the base addresses, num_cbs:
# tt-mlir branches of 2024-09 .. 2024-11 print system_descs without some of them).
_CHIP_REQUIRED = ("l1_size", "num_dram_channels", "dram_channel_size")
# Fields ttanalyze does not use (tt-metal's ERISC L1 base, the PCIe alignment).
_CHIP_UNUSED = ("erisc_l1_unreserved_base", "pcie_address_align_bytes")
# chip desc field -> the Arch field of ttanalyze/arch.py DEFAULTS that holds the same figure
_CHIP_TO_ARCH = {"noc_l1_address_align_bytes": "l1_alignment", "noc_dram_address_align_bytes": "dram_alignment"}


def _chip_field_default(arch: str, name: str) -> tuple[int, str]:
    """The value of a chip desc field an early tt-mlir did not write, and why: the ``--arch`` default of the same
    chip (``arch.py`` DEFAULTS); 0 for the fields ttanalyze does not use.

    Raises:
        AttrError: the chip is not one ttanalyze has defaults for.
    """
    if name in _CHIP_UNUSED:
        return 0, "not written by tt-mlir of 2024; not used by ttanalyze"
    from ..arch import DEFAULTS  # arch.py imports this module

    if arch not in DEFAULTS:
        raise AttrError(f"chip desc is missing {name} and ttanalyze has no default for arch '{arch}'")
    value = getattr(DEFAULTS[arch], _CHIP_TO_ARCH.get(name, name))
    return value, f"not written by tt-mlir of 2024: the --arch {arch} default"


# Physical DST size of Wormhole and Blackhole in 32x32 16-bit tiles: tt-mlir
# ChipDescAttr::getDefault (lib/Dialect/TTCore/IR/TTCoreOpsTypes.cpp @4e4ab42d).
DST_PHYSICAL_SIZE_TILES_DEFAULT = 16


def _build_chip_desc(b: _Builder, node: Any) -> ChipDesc:
    if not isinstance(node, Node):
        raise AttrError("chip desc must be a {key = value, ...} dictionary")
    kw = node.kw
    missing = [k for k in ("arch", "grid", *_CHIP_REQUIRED) if k not in kw]
    if missing:
        raise AttrError(f"chip desc is missing {', '.join(missing)}")
    defaulted: list[tuple[str, Any, str]] = []
    ints = {}
    for k in _CHIP_INT_FIELDS:
        if k in kw:
            ints[k] = _int(kw[k], k)
            continue
        ints[k], why = _chip_field_default(_ident(kw["arch"], "arch"), k)
        defaulted.append((k, ints[k], why))
    if "dst_physical_size_tiles" in kw:
        dst = _int(kw["dst_physical_size_tiles"], "dst_physical_size_tiles")
    elif "dst_register_size_tiles" in kw:
        dst = 2 * _int(kw["dst_register_size_tiles"], "dst_register_size_tiles")
        defaulted.append(("dst_physical_size_tiles", dst,
                          f"2 x dst_register_size_tiles {dst // 2} (the half-sync DST of tt-mlir before 2025-10)"))
    else:
        dst = DST_PHYSICAL_SIZE_TILES_DEFAULT
        defaulted.append(("dst_physical_size_tiles", dst, "not written by tt-mlir before 2025-06-02: the physical DST "
                          "of Wormhole and Blackhole"))
    if "dram_grid" in kw:
        dram_grid = _dims(kw["dram_grid"], "dram_grid")
    else:
        dram_grid = (1, ints["num_dram_channels"])
        defaulted.append(("dram_grid", dram_grid, "not written by tt-mlir before 2026-04-23: 1 x num_dram_channels"))
    dtypes = tuple(_ident(d, "supported_data_types") for d in kw.get("supported_data_types", []))
    desc = ChipDesc(
        arch=_ident(kw["arch"], "arch"),
        grid=_dims(kw["grid"], "grid"),
        dram_grid=dram_grid,
        supported_data_types=dtypes,
        dst_physical_size_tiles=dst,
        defaulted=tuple(defaulted),
        **ints,
    )
    _check_chip_desc(desc)
    return desc


# Bounds no Tenstorrent chip comes near (tt-metal keeps these figures in uint32
# fields of its SoC descriptor; a worker grid is 2D and at most 14x10 today):
# values outside them are typos or corruption, not a device to model.
_CHIP_BOUNDS = {
    "l1_size": (1, 2**32 - 1),
    "num_dram_channels": (1, 64),
    "dram_channel_size": (1, 2**40),
    "l1_unreserved_base": (0, 2**32 - 1),
    "erisc_l1_unreserved_base": (0, 2**32 - 1),
    "dram_unreserved_base": (0, 2**40),
    "dram_unreserved_end": (0, 2**40),
    "dst_physical_size_tiles": (1, 1024),
    "num_cbs": (1, 1024),
}
# TTCore_Arch (tt-mlir include/ttmlir/Dialect/TTCore/IR/TTCoreOpsEnums.td): the arch names a
# system_desc can hold; tt-metal's current releases run the last two only.
TTCORE_ARCHS = ("grayskull", "wormhole_b0", "blackhole")
MODELED_ARCHS = ("wormhole_b0", "blackhole")
_CHIP_ALIGNS = ("noc_l1_address_align_bytes", "pcie_address_align_bytes", "noc_dram_address_align_bytes")
_MAX_GRID_DIM = 256


def _check_chip_desc(desc: ChipDesc) -> None:
    """Reject a chip desc no device can have (0 or 2^64 cores, -1 DRAM channels, an L1 of 10^30 B).

    Raises:
        AttrError: an arch other than wormhole_b0 and blackhole, a grid that is not 2D with 1..256 cores per dim, a field
            outside its bound above, an alignment that is not a power of two
            from 16 to 4,096 B, or an L1 whose unreserved base is not below its size.
    """
    for what, grid in (("grid", desc.grid), ("dram_grid", desc.dram_grid)):
        if len(grid) != 2 or not all(1 <= g <= _MAX_GRID_DIM for g in grid):
            raise AttrError(f"chip desc {what} {'x'.join(map(str, grid))} is not a 2D grid of 1..{_MAX_GRID_DIM} "
                            "cores per dimension")
    for name, (lo, hi) in _CHIP_BOUNDS.items():
        value = getattr(desc, name)
        if not lo <= value <= hi:
            raise AttrError(f"chip desc {name} = {value} is outside {lo}..{hi:,}: not a real device")
    for name in _CHIP_ALIGNS:
        value = getattr(desc, name)
        if not (16 <= value <= 4096 and value & (value - 1) == 0):  # tt-metal's HAL: 16 (L1) to 64 (DRAM, PCIe)
            raise AttrError(f"chip desc {name} = {value} is not a power of two from 16 to 4,096 B")
    if desc.l1_unreserved_base >= desc.l1_size:
        raise AttrError(f"chip desc l1_unreserved_base {desc.l1_unreserved_base} is not below l1_size {desc.l1_size}")
    if desc.arch not in MODELED_ARCHS:
        known = "a TTCore arch ttanalyze does not model" if desc.arch in TTCORE_ARCHS else "not a TTCore arch"
        raise AttrError(f"chip desc arch {desc.arch!r} is {known}: ttanalyze models {' and '.join(MODELED_ARCHS)}")


def _build_device(b: _Builder, node: Node) -> DeviceAttr:
    kw = node.kw

    def grid(key: str) -> tuple[int, ...]:
        g = kw.get(key)
        if isinstance(g, Node) and g.name == "ttcore.grid" and g.items:
            return _dims(g.items[0], key)
        raise AttrError(f"#ttcore.device: missing {key}")

    return DeviceAttr(
        worker_grid=grid("workerGrid"),
        dram_grid=grid("dramGrid"),
        mesh_shape=_dims(kw.get("meshShape", Dims((1, 1))), "meshShape"),
        chip_ids=tuple(_int(c, "chipIds") for c in kw.get("chipIds", [])),
    )


def _build_meshes(b: _Builder, node: Node) -> Meshes:
    shapes = []
    for entry in node.items[0] if node.items and isinstance(node.items[0], list) else []:
        entry = b.deref(entry)
        if not isinstance(entry, Node) or len(entry.kw) != 1:
            raise AttrError(f'#ttcore.meshes: expected <"name" = RxC>, got {_show(entry)}')
        (name, shape), = entry.kw.items()
        shapes.append((name, _dims(shape, "mesh shape")))
    return Meshes(tuple(shapes))


def _build_enum(kind: str) -> Callable[[_Builder, Node], EnumValue]:
    def build(b: _Builder, node: Node) -> EnumValue:
        return EnumValue(kind, _ident(node.items[0] if node.items else None, kind))

    return build


def _build_struct(b: _Builder, node: Node) -> StructAttr:
    return StructAttr(node.name, b.struct_params(node))


def _build_grid(b: _Builder, node: Node) -> GridAttr:
    if not node.items:
        raise AttrError("#ttcore.grid expects <RxC>")
    return GridAttr(_dims(node.items[0], "ttcore.grid shape"))


CONV2D_SLICE_TYPES = ("dram_height", "dram_width", "l1_full")


def _build_conv2d_slice_config(b: _Builder, node: Node) -> StructAttr:
    """``#ttnn.conv2d_slice_config<l1_full, 0>`` (TTNN_Conv2dSliceConfigAttr: slice_type, num_slices)."""
    if len(node.items) != 2:
        raise AttrError("#ttnn.conv2d_slice_config expects <slice_type, num_slices>")
    slice_type = _ident(b.deref(node.items[0]), "conv2d_slice_config slice_type")
    if slice_type not in CONV2D_SLICE_TYPES:
        raise AttrError(f"conv2d_slice_config: unknown slice type '{slice_type}' "
                        f"(expected one of {', '.join(CONV2D_SLICE_TYPES)})")
    return StructAttr(node.name, {"slice_type": slice_type,
                                  "num_slices": _int(b.deref(node.items[1]), "conv2d_slice_config num_slices")})


def _field_unary(b: _Builder, v: Any, what: str) -> UnaryWithParam | None:
    if isinstance(v, str):  # activation = "relu" / "" (conv2d_config before 2025-08)
        return UnaryWithParam(v) if v else None
    if isinstance(v, Node) and v.name in (None, "ttnn.unary_with_param"):
        return _build_unary(b, v)
    raise AttrError(f"{what}: expected <op_type = ...>, got {_show(v)}")


def _field_ident(b: _Builder, v: Any, what: str) -> str:
    if isinstance(v, Node) and len(v.items) == 1 and not v.kw:
        v = b.deref(v.items[0])
    return _ident(v, what)


def _field_grid(b: _Builder, v: Any, what: str) -> GridAttr:
    if isinstance(v, Node) and v.name == "ttcore.grid":
        return _build_grid(b, v)
    return GridAttr(_dims(v, what))


def _field_core_coord(b: _Builder, v: Any, what: str) -> CoreCoord:
    """``<11, 10>``: a ``CoreCoordAttr`` struct parameter printed without its mnemonic."""
    if isinstance(v, Node) and v.name in (None, "ttnn.core_coord") and len(v.items) == 2 and not v.kw:
        return CoreCoord(_int(v.items[0], f"{what} x"), _int(v.items[1], f"{what} y"))
    if isinstance(v, CoreCoord):
        return v
    raise AttrError(f"{what}: expected a core coordinate <x, y>, got {_show(v)}")


# Struct parameters printed without their attribute's mnemonic, by struct
# (TTNNOpsAttrs.td @19c86fca: Conv2dConfigAttr, Conv3dConfigAttr, SDPAProgramConfigAttr).
_STRUCT_FIELDS: dict[str, dict[str, Callable[[_Builder, Any, str], Any]]] = {
    "ttnn.conv2d_config": {
        "weights_dtype": _field_ident,
        "activation": _field_unary,
        "shard_layout": lambda b, v, what: b.memory_layout(v, what),
        "core_grid": lambda b, v, what: b.core_range_set(v),
        "output_layout": _field_ident,
    },
    "ttnn.conv3d_config": {
        "weights_dtype": _field_ident,
        "compute_with_storage_grid_size": _field_grid,
    },
    "ttnn.sdpa_program_config": {
        "compute_with_storage_grid_size": _field_core_coord,
    },
}


_BUILDERS: dict[str, Callable[[_Builder, Node], Any]] = {
    "ttnn.ttnn_layout": _build_layout,
    "ttcore.layout": _build_tt_layout,
    "ttnn.memory_config": _build_memory_config,
    "ttnn.shard_spec": _build_shard_spec,
    "ttnn.layout": lambda b, n: LayoutAttr(_ident(n.items[0] if n.items else None, "layout")),
    "ttnn.shape": lambda b, n: ShapeAttr(_dims(n.items[0], "shape") if n.items else ()),
    "ttnn.core_coord": lambda b, n: CoreCoord(_int(n.items[0], "x"), _int(n.items[1], "y")),
    "ttnn.core_range": lambda b, n: b.core_range(n),
    "ttnn.core_range_set": lambda b, n: b.core_range_set(n),
    "ttnn.buffer_type": _build_enum("buffer_type"),
    "ttnn.tensor_memory_layout": _build_enum("tensor_memory_layout"),
    "ttnn.shard_orientation": _build_enum("shard_orientation"),
    "ttcore.supportedDataTypes": _build_enum("data_type"),
    "ttcore.argument_type": _build_enum("argument_type"),
    "ttcore.shard_status": _build_enum("shard_status"),
    "ttcore.shard_type": _build_enum("shard_type"),  # mesh_shard (tt-mlir TTCoreOpsEnums.td MeshShardType)
    "ttcore.shard_direction": _build_enum("shard_direction"),
    "ttcore.reduce_type": _build_enum("reduce_type"),  # the CCL reductions
    "ttcore.attention_mask_type": _build_enum("attention_mask_type"),  # the ttml SDPA ops (TTCoreOpsEnums.td)
    "ttnn.device_compute_kernel_config": _build_compute_config,
    "ttnn.unary_with_param": _build_unary,
    "ttnn.conv2d_config": _build_struct,
    "ttnn.conv3d_config": _build_struct,
    "ttnn.conv2d_slice_config": _build_conv2d_slice_config,
    "ttcore.grid": _build_grid,
    "ttnn.sdpa_program_config": _build_struct,
    "ttnn.layer_norm_sharded_multi_core_program_config": _build_struct,
    "ttnn.mesh_shape": lambda b, n: ShapeAttr(_dims(n.items[0], "mesh_shape")),
    "ttnn.mesh_offset": lambda b, n: ShapeAttr(_dims(n.items[0], "mesh_offset")),
    "ttcore.system_desc": _build_system_desc,
    "ttcore.device": _build_device,
    "ttcore.meshes": _build_meshes,
    "ttcore.tensor_mesh": _build_tensor_mesh,
    "ttcore.tile": lambda b, n: b.tile(n),
    **{name: _build_matmul_config for name in MATMUL_CONFIG_KINDS},
}


def build(tree: Any, resolve: Resolver) -> Any:
    """Turn a generic attribute tree into a typed object.

    Args:
        tree: the result of :func:`ttanalyze.ir.attr_grammar.parse_attr_text`.
        resolve: maps an alias name (``#dram``) to its parsed tree; raises
            AttrError for an undefined alias.

    Raises:
        AttrError: the parameters do not match the attribute's TableGen definition.
    """
    return _Builder(resolve).value(tree)



# ``ttnn.generic``'s program descriptor (its builders use _Builder above).
from . import kernel_program as _kernel_program  # noqa: E402

_BUILDERS.update(_kernel_program.BUILDERS)
