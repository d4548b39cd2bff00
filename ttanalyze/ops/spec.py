"""What an op really returns on the device: a tensor spec per result.

tt-mlir writes each result type from its own rules; tt-metal decides the real
output (shape, padding, layout, dtype, memory placement).  An op model may
register a function ``(CBContext) -> list[TensorSpec]`` giving tt-metal's output
(:func:`ttanalyze.ops.registry.register_spec`); the result-spec rule compares it
with the declared type.  Ops without one are taken at their declared type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..layout import LayoutInfo, align_up


@dataclass(unsafe_hash=True)  # immutable by convention, not frozen for speed (ops/cb.py, CB)
class TensorSpec:
    """A device tensor as tt-metal builds it.

    Attributes:
        shape: logical shape; padded_shape: tt-metal's padded shape (elements).
        layout: ``tile`` or ``row_major``; dtype: tt DataType name (``bf16``...).
        buffer_type: ``dram``/``l1``/``system_memory``; memory_layout:
            ``interleaved``/``height_sharded``/... or None on the host.
        shard_shape: per-core shard in elements for sharded tensors.
    """

    shape: tuple[int, ...]
    padded_shape: tuple[int, ...]
    layout: str
    dtype: str
    buffer_type: str
    memory_layout: str | None
    shard_shape: tuple[int, ...] | None = None


def row_major_sharded_padded(padded: tuple[int, ...], layout: str, shard_shape: tuple[int, ...] | None) -> tuple[int, ...]:
    """tt-metal's padded shape of a tensor: a row-major 2D-sharded one has its width aligned to the shard width.

    ``RowMajorPageConfig::create_default_alignment`` (tt-metal ttnn/core/tensor/layout/page_config.cpp) returns
    ``Alignment({shard_spec.shape[1]})`` for a 2D shard spec in LOGICAL mode (the default), and
    ``TensorLayout::compute_padded_shape`` rounds the last dim up to it: W 274 in 4-wide shards -> 276 (measured:
    g1/ttnn.clamp_scalar/25, g1/ttnn.log1p/50 1025 -> 1032 in 12-wide shards, g1/ttnn.sqrt/45,
    g1/ttnn.assign/42, g1/ttnn.to_memory_config/388).  Other tensors keep ``padded``.

    Args:
        padded: the padded shape (elements); layout: ``tile``/``row_major``; shard_shape: the 2D shard (elements)
            or None.
    """
    if layout != "row_major" or not shard_shape or not padded or shard_shape[-1] <= 0:
        return tuple(padded)
    return (*padded[:-1], align_up(padded[-1], shard_shape[-1]))


def declared_spec(info: LayoutInfo, buffer_type: str, memory_layout: str | None,
                  shard_shape: tuple[int, ...] | None = None) -> TensorSpec:
    """The spec a declared IR result type stands for: its shapes, as tt-metal lays the tensor out
    (:func:`row_major_sharded_padded`)."""
    padded = row_major_sharded_padded(info.padded_shape, info.layout, shard_shape)
    return TensorSpec(info.logical_shape, padded, info.layout, str(info.dtype), buffer_type, memory_layout, shard_shape)


SpecFn = Callable[["object"], "list[TensorSpec]"]
