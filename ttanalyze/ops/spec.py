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

from ..layout import LayoutInfo


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


def declared_spec(info: LayoutInfo, buffer_type: str, memory_layout: str | None,
                  shard_shape: tuple[int, ...] | None = None) -> TensorSpec:
    """The spec a declared IR result type stands for."""
    return TensorSpec(info.logical_shape, info.padded_shape, info.layout, str(info.dtype), buffer_type,
                      memory_layout, shard_shape)


SpecFn = Callable[["object"], "list[TensorSpec]"]
