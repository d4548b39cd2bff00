"""Unmodeled ops (TTA008) and attributes (TTA009).

An op without a model in :mod:`ttanalyze.ops` is analyzed from its IR types
only; an attribute its model does not read, or whose kind has no typed class in
:mod:`ttanalyze.ir.attrs`, is ignored by every analysis.  Both are reported so
nothing is skipped silently.
"""

from __future__ import annotations

from .. import ops as O
from ..analysis import Analysis
from ..ir.attrs import DialectAttr
from . import Reporter, rule

# Attributes every op may carry that carry no semantics for the analyses.
_IGNORED_ATTRS = frozenset({"callee"})


@rule("TTA008")
def unmodeled_ops(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named(*(name for name in a.ops_by_name if O.lookup(name) is None)):
        r.op(op, f"op '{op.name}' is not modeled: its result types are taken from the IR unchecked",
             data={"op": op.name})


@rule("TTA009")
def unmodeled_attrs(a: Analysis, r: Reporter) -> None:
    models = {name: O.lookup(name) for name in a.ops_by_name}
    for op in a.program.ops:
        model = models[op.name]
        if model is None or not op.attrs:
            continue
        for name, value in op.attrs.items():
            if name in _IGNORED_ATTRS:
                continue
            if name not in model.attrs:
                r.op(op, f"attribute '{name}' of {op.name} is not modeled and is ignored: {op.raw_attrs.get(name, '')[:80]}",
                     data={"op": op.name, "attribute": name})
            elif isinstance(value, DialectAttr):
                r.op(op, f"attribute '{name}' of {op.name} has kind #{value.kind}, which is not modeled",
                     data={"op": op.name, "attribute": name, "kind": value.kind})
