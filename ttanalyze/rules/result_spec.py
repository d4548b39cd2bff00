"""TTA012: the declared result type is not what tt-metal returns.

An op's device-output model (:mod:`ttanalyze.ops.spec`, run by the analysis
into ``Analysis.specs``) gives the tensor
tt-metal really produces: logical and padded shape, layout, data type and
memory placement.  The rule compares it with the IR's declared type.  A
different logical shape is an error (every later op and the runtime's own
checks see another tensor than the IR says: the seed 000 failure); a different
layout, data type or placement is a warning (the runtime or a later op may
convert, at a cost, or fail).
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from . import Reporter, rule


def _declared(v, info):
    lay = v.type.layout
    out = {"shape": tuple(info.logical_shape), "padded_shape": tuple(info.padded_shape), "layout": info.layout,
           "dtype": str(info.dtype), "buffer_type": lay.buffer_type, "memory_layout": lay.memory_layout}
    if lay.is_sharded:  # the memref is the shard, in tiles when tiled
        th, tw = info.tile or (1, 1)
        out["shard_shape"] = (lay.memref_shape[0] * th, lay.memref_shape[1] * tw)
    return out


def _conv2d_unflattened_result(op, declared: tuple, returned: tuple) -> str:
    """Why a conv2d result typed ``[N, OH, OW, C]`` while tt-metal returns ``[1, 1, N*OH*OW, C]`` is a
    warning ("" when it is not that case): tt-mlir of 2024 typed conv2d results unflattened, and its runtime
    (``runtime/lib/ttnn/operations/conv/conv2d.cpp`` @17d58da5) kept ttnn's flattened tensor under the
    result's id without checking it.  tt-metal runs the conv; the later ops see the flattened tensor."""
    if (op.name != "ttnn.conv2d" or len(declared) != 4 or len(returned) != 4 or declared[:2] == (1, 1)
            or returned != (1, 1, declared[0] * declared[1] * declared[2], declared[3])):
        return ""
    return (f" (tt-mlir of 2024 typed conv2d results [N, OH, OW, C] and its runtime passed ttnn's flattened "
            f"tensor on unchecked: tt-metal runs it, later ops see {fmt.shape(returned)})")


@rule("TTA012")
def result_spec(a: Analysis, r: Reporter) -> None:
    ops, infos = a.program.ops, a.infos
    for i, specs in a.specs.items():  # in program order (programs.op_models)
        op = ops[i]
        for v, spec in zip(op.results, specs):
            info = infos.get(v)
            if info is None or spec is None:
                continue
            lay = v.type.layout
            if (spec.layout == info.layout and spec.buffer_type == lay.buffer_type
                    and spec.memory_layout == lay.memory_layout and spec.dtype == info.dtype.name
                    and (spec.shape == info.logical_shape or tuple(spec.shape) == tuple(info.logical_shape))
                    and (spec.padded_shape == info.padded_shape
                         or tuple(spec.padded_shape) == tuple(info.padded_shape))
                    and not lay.is_sharded):
                continue  # the comparison below finds no difference (no shard shape to compare)
            declared = _declared(v, info)
            real = {"shape": tuple(spec.shape), "padded_shape": tuple(spec.padded_shape), "layout": spec.layout,
                    "dtype": spec.dtype, "buffer_type": spec.buffer_type, "memory_layout": spec.memory_layout}
            if "shard_shape" in declared and spec.shard_shape is not None and spec.memory_layout == declared["memory_layout"]:
                real["shard_shape"] = tuple(spec.shard_shape)
            diffs = [k for k in real if declared.get(k) != real[k]]
            if not diffs:
                continue
            severity = "error" if "shape" in diffs else "warning"
            era = _conv2d_unflattened_result(op, declared["shape"], real["shape"])
            if era:
                severity = "warning"
            parts = []
            for k in diffs:
                d, g = declared[k], real[k]
                if isinstance(d, tuple):
                    d, g = fmt.shape(d), fmt.shape(g)
                parts.append(f"{k} {d} declared, {g} returned")
            r.op(op, f"{op.name} result {v.name} is not what tt-metal returns: " + "; ".join(parts) + era,
                 severity=severity,
                 data={"result": v.name, "differences": diffs,
                       "declared": {k: list(x) if isinstance(x, tuple) else x for k, x in declared.items()},
                       "returned": {k: list(x) if isinstance(x, tuple) else x for k, x in real.items()}})
