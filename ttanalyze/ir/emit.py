"""Emit TTNN IR text: ``#ttnn.ttnn_layout`` encodings built the way tt-mlir builds them, and modules.

Used to generate op instances (accuracy sweep, benchmarks) and to rewrite IR
(fixes).  The encodings follow tt-mlir ``TTNNLayoutAttr::Builder::build``
(19c86fca): the collapsed linear map of the tile-padded shape, the grid, the
memref derived by :func:`ttanalyze.layout.derive_memref`, the memory layout and,
for sharded layouts, the core ranges.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..layout import derive_memref, tile_padded_shape
from .attrs import CoreRangeSet


def linear_map_text(shape: tuple[int, ...], tiled: bool) -> str:
    """The collapsed affine map as tt-mlir prints it.

    >>> linear_map_text((1, 768, 4, 60, 106), True)
    '(d0, d1, d2, d3, d4) -> (d0 * 196608 + d1 * 256 + d2 * 64 + d3, d4)'
    """
    rank = len(shape)
    if rank == 0:
        return "() -> (0, 0)"
    dims = ", ".join(f"d{i}" for i in range(rank))
    if rank == 1:
        return f"({dims}) -> (0, d0)"
    padded = tile_padded_shape(shape) if tiled else shape
    terms = []
    for i in range(rank - 1):
        stride = 1
        for p in padded[i + 1:rank - 1]:
            stride *= p
        terms.append(f"d{i}" if stride == 1 else f"d{i} * {stride}")
    return f"({dims}) -> ({' + '.join(terms)}, d{rank - 1})"


@dataclass(frozen=True)
class TensorDesc:
    """A device (or host) tensor to emit: logical shape, dtype and placement.

    ``dtype`` is a tt DataType name (``bf16``, ``f32``, ``bfp_bf8``, ``u32``...);
    ``grid`` is (rows, cols) for sharded and L1-interleaved layouts;
    ``core_ranges`` is required for sharded layouts.
    """

    shape: tuple[int, ...]
    dtype: str = "bf16"
    layout: str = "tile"
    buffer_type: str = "dram"
    memory_layout: str | None = "interleaved"
    grid: tuple[int, int] = (1, 1)
    core_ranges: CoreRangeSet | None = None

    @property
    def scalar_type(self) -> str:
        """The MLIR element type of the tensor type (block floats are bf16 tensors)."""
        return {"bfp_bf8": "bf16", "bfp_bf4": "bf16", "bfp_f8": "f32", "u32": "ui32", "u16": "ui16", "u8": "ui8",
                "si32": "si32"}.get(self.dtype, self.dtype)

    def type_text(self, alias: str | None = None) -> str:
        """``tensor<AxBxT, #alias>`` (or the encoding inline when no alias is given)."""
        dims = "x".join(str(d) for d in self.shape)
        enc = alias or encoding_text(self)
        return f"tensor<{dims}{'x' if dims else ''}{self.scalar_type}, {enc}>"


def encoding_text(t: TensorDesc) -> str:
    """The ``#ttnn.ttnn_layout<...>`` of a tensor (see module docstring).

    Raises:
        ValueError: a sharded layout without core ranges, or a system-memory
            tensor with a memory layout.
    """
    tiled = t.layout == "tile"
    tile = (32, 32) if tiled else None
    sharded = t.memory_layout is not None and t.memory_layout.endswith("sharded")
    grid = t.grid if (sharded or (t.buffer_type == "l1" and t.memory_layout == "interleaved")) else (1, 1)
    memref = derive_memref(t.shape, tile, t.buffer_type, t.memory_layout, grid)
    elem = f"!ttcore.tile<32x32, {t.dtype}>" if tiled else t.scalar_type
    dims = "x".join(str(d) for d in memref)
    space = f"#ttnn.buffer_type<{t.buffer_type}>"
    parts = [linear_map_text(t.shape, tiled), f"<{grid[0]}x{grid[1]}>", f"memref<{dims}x{elem}, {space}>"]
    if t.buffer_type == "system_memory":
        if t.memory_layout is not None:
            raise ValueError("a system_memory tensor has no memory layout")
    else:
        parts.append(f"<{t.memory_layout}>")
    if sharded:
        if t.core_ranges is None:
            raise ValueError(f"a {t.memory_layout} tensor needs core ranges")
        ranges = ", ".join(f"#ttnn.core_range<({r.start.x},{r.start.y}), ({r.end.x},{r.end.y})>" for r in t.core_ranges.ranges)
        parts.append(f"core_ranges = <[{ranges}]>")
    return "#ttnn.ttnn_layout<" + ", ".join(parts) + ">"


def module_text(system_desc: str, func: str) -> str:
    """A module carrying ``system_desc`` (a ``#system_desc = ...`` line) around one function's text."""
    return f"{system_desc}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n{func}\n}}\n"


def single_op_func(op_name: str, operands: list[TensorDesc], results: list[TensorDesc], attrs: str = "") -> str:
    """``func.func @main`` calling one op on its arguments and returning its results.

    ``attrs`` is the op's attribute dictionary body (``shape = [1 : i32]``), or "".
    """
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(operands))
    res_types = [t.type_text() for t in results]
    names = ", ".join(f"%r{i}" for i in range(len(results)))
    operand_names = ", ".join(f"%arg{i}" for i in range(len(operands)))
    attr_text = f" {{{attrs}}}" if attrs else ""
    in_types = ", ".join(t.type_text() for t in operands)
    out_types = ", ".join(res_types)
    lines = [f"  func.func @main({args}) -> ({out_types}) {{"]
    call = f'"{op_name}"({operand_names}){attr_text} : ({in_types}) -> ({out_types})'
    if results:
        lines.append(f"    {names} = {call}")
        lines.append(f"    return {names} : {out_types}")
    else:  # an in-place op (a KV-cache update): no results
        lines += [f"    {call}", "    return"]
    lines.append("  }")
    return "\n".join(lines)
