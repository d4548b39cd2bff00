"""Sorting, indexing and scans: ``sort``, ``scatter``, ``gather``, ``cumsum``, ``cumprod``.

Shape rules (tt-mlir ``lib/Dialect/TTNN/IR/TTNNOps.cpp`` @19c86fca ``SortOp``/``ScatterOp``/
``GatherOp::verify``; ``CumSumOp``/``CumProdOp`` keep the shape):

* ``sort``: values and indices both shaped like the input, ``dim`` in range;
* ``scatter``: the input's shape; input, index and source of one rank, index shaped like source;
* ``gather``: the index's shape; input and index of one rank, ``dim`` in range;
* ``cumsum`` / ``cumprod``: the input's shape, ``dim`` in range.
"""

from __future__ import annotations

from ..ir.model import Op
from .registry import ShapeError, int_attr, norm_dim, register, register_passive, tensor_shape

_SRC = "tt-mlir lib/Dialect/TTNN/IR/TTNNOps.cpp @19c86fca"


@register("ttnn.sort", "sort_scatter", ("dim", "descending", "stable", "memory_config"), f"{_SRC} SortOp::verify")
def sort(op: Op):
    x = tensor_shape(op, 0)
    norm_dim(int_attr(op, "dim", -1), len(x), op)
    return [x, x]


@register("ttnn.scatter", "sort_scatter", ("dim", "scatter_reduce_type", "memory_config"), f"{_SRC} ScatterOp::verify")
def scatter(op: Op):
    x, index, source = (tensor_shape(op, i) for i in range(3))
    if not len(x) == len(index) == len(source):
        raise ShapeError(f"{op.name}: input, index and source must have the same rank, got "
                         f"{len(x)}, {len(index)}, {len(source)}")
    if index != source:
        raise ShapeError(f"{op.name}: index {list(index)} must have the source's shape {list(source)}")
    norm_dim(int_attr(op, "dim"), len(x), op)
    return [x]


@register("ttnn.gather", "sort_scatter", ("dim", "memory_config"), f"{_SRC} GatherOp::verify")
def gather(op: Op):
    x, index = tensor_shape(op, 0), tensor_shape(op, 1)
    if len(x) != len(index) or not x:
        raise ShapeError(f"{op.name}: input and index must have one rank >= 1, got {len(x)} and {len(index)}")
    norm_dim(int_attr(op, "dim"), len(x), op)
    return [index]


@register(("ttnn.cumsum", "ttnn.cumprod"), "sort_scatter", ("dim", "memory_config"), f"{_SRC} CumSumOp/CumProdOp")
def scan(op: Op):
    x = tensor_shape(op, 0)
    if x:
        norm_dim(int_attr(op, "dim"), len(x), op)
    return [x]


register_passive(("ttnn.sampling", "ttnn.topk_router_gpt"), "sort_scatter", ("seed", "k", "num_experts", "memory_config"),
                 f"{_SRC} SamplingOp/TopKRouterGptOp::verify (results as declared)")
