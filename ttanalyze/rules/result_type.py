"""TTA007: an op whose declared result type disagrees with its shape rule.

The op models of :mod:`ttanalyze.ops` give the logical shape each op produces
from its operands and attributes; a result type declaring another shape, or
operands/attributes that admit no result at all, are reported.
``ttcore.load_cached`` results are checked against the callee's return types.
Reshape volume errors are TTA001's.
"""

from __future__ import annotations

from .. import fmt
from ..analysis import Analysis
from ..ir.model import TensorType
from . import Reporter, rule


@rule("TTA007")
def result_type(a: Analysis, r: Reporter) -> None:
    ops = a.program.ops
    load_cached = {op.index for op in a.ops_named("ttcore.load_cached")}
    for i, check in a.shape_checks.items():  # in program order (analysis.analyze)
        if check.shapes is None and check.status != "invalid" and i not in load_cached:
            continue  # no shape to compare (the steps below skip it)
        op = ops[i]
        if check.status == "invalid":
            if op.name == "ttnn.reshape" and "logical volume" in check.error:
                continue
            r.op(op, f"{op.name} cannot produce any result: {check.error}", data={"error": check.error})
            continue
        expected = check.shapes
        if op.name == "ttcore.load_cached" and op.callee:
            callee = a.program.func(op.callee)
            if callee is None:
                r.op(op, f"ttcore.load_cached calls @{op.callee}, which is not defined in the module")
                continue
            expected = [v.type.shape if v.is_tensor else None for v in callee.returns]
        if expected is None:
            continue
        results = op.results
        if len(expected) != len(results):
            r.op(op, f"{op.name} produces {len(expected)} results but the IR declares {len(results)}")
            continue
        for i, (exp, v) in enumerate(zip(expected, results)):
            if exp is None or not isinstance(v.type, TensorType):  # the declared shape of a tensor result
                continue
            dec = v.type.shape
            if exp != dec and tuple(exp) != tuple(dec):
                ins = ", ".join(fmt.shape(x.type.shape) for x in op.operands if x.is_tensor)
                r.op(op, f"{op.name} of {ins} produces {fmt.shape(exp)}, but the IR declares result #{i} "
                         f"{op.results[i].name} as {fmt.shape(dec)}",
                     data={"result": op.results[i].name, "expected_shape": list(exp), "declared_shape": list(dec)})
