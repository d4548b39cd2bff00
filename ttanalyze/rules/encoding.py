"""TTA006: a tensor encoding that disagrees with its logical shape.

:mod:`ttanalyze.layout` recomputes the memref, the affine map's strides and the
grid/core-range consistency from the logical shape with tt-mlir's rules; any
disagreement with the ``#ttnn.ttnn_layout`` written in the IR is reported once
per value, at its producer (or its function, for arguments).
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from . import Reporter, rule


@rule("TTA006")
def encoding_mismatch(a: Analysis, r: Reporter) -> None:
    if not any(info.problems for info in a.infos.values()):
        return  # the usual case, without walking every value
    for v in a.values():
        info = a.infos.get(v)
        if info is None or not info.problems:
            continue
        where = f"{v.name} {fmt.shape(info.logical_shape)}"
        msg = f"layout of {where} disagrees with its logical shape: " + "; ".join(info.problems)
        data = {"value": v.name, "problems": list(info.problems), "ir_memref": list(info.ir_memref),
                "expected_memref": list(info.expected_memref)}
        if v.producer is not None:
            r.op(v.producer, msg, data=data)
        else:
            r.at(v.func.pos, msg, data=data)
