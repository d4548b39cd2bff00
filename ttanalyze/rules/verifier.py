"""TTA018: an op tt-mlir's own verifier refuses (:mod:`ttanalyze.ops.verifiers`)."""

from __future__ import annotations

from ..analysis import Analysis
from ..ops.verifiers import verify
from . import Reporter, rule


@rule("TTA018")
def op_verifier(a: Analysis, r: Reporter) -> None:
    for op in a.program.ops:
        message = verify(op, a.program)
        if message:
            r.op(op, f"tt-mlir's verifier refuses this op: '{op.name}' op {message}", data={"verifier": message})
