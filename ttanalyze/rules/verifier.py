"""TTA018: an op tt-mlir's own verifier refuses (:mod:`ttanalyze.ops.verifiers`)."""

from __future__ import annotations

from ..analysis import Analysis
from ..ops.verifiers import has_verifier, verify
from . import Reporter, rule


@rule("TTA018")
def op_verifier(a: Analysis, r: Reporter) -> None:
    refused = []  # the ops of each name with a verifier (Analysis.ops_by_name), then in program order
    for name, ops in a.ops_by_name.items():
        if has_verifier(name):
            for op in ops:
                message = verify(op, a.program)
                if message:
                    refused.append((op, message))
    refused.sort(key=lambda om: om[0].index)
    for op, message in refused:
        r.op(op, f"tt-mlir's verifier refuses this op: '{op.name}' op {message}", data={"verifier": message})
