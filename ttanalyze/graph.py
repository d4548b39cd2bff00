"""Dataflow graph of a program and tensor lifetimes.

The graph is a ``networkx.DiGraph`` with one node per op (``("op", index)``)
and one per SSA value (``("value", key)``): edges run producer op -> value ->
each user op.  ``ttcore.load_cached`` ops get a ``call`` edge to the
const-eval function they read (``("func", name)``), and each op/value node
carries its function name, so function boundaries are explicit.

Lifetimes follow the program order of each function: a value is born at its
producer (function arguments at the function's first op) and dies at its
``ttnn.deallocate``; without one, at its last use, or at the function's end when
it is returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from .ir.model import Func, Program, TensorType, Value

if TYPE_CHECKING:
    import networkx as nx


class Lifetime(NamedTuple):
    """When a value holds memory, as op indices (inclusive) of :attr:`Program.ops`.

    ``end_reason`` is ``deallocate``, ``last use``, ``returned`` or ``unused``.  A named tuple, immutable:
    one is made for every tensor value (a frozen dataclass's constructor takes about twice as long).
    """

    value: Value
    start: int
    end: int
    end_reason: str

    def live_at(self, index: int) -> bool:
        return self.start <= index <= self.end


def build_graph(program: Program) -> nx.DiGraph:
    """The dataflow graph described in the module docstring (networkx is imported here, on first use)."""
    import networkx as nx

    nodes: list[tuple] = []
    edges: list[tuple] = []
    for func in program.funcs:
        nodes.append((("func", func.name), {"kind": "func", "func": func.name}))
        nodes.extend((("value", a.key), {"kind": "value", "func": func.name, "value": a}) for a in func.args)
        for op in func.ops:
            node = ("op", op.index)
            nodes.append((node, {"kind": "op", "func": func.name, "op": op}))
            edges.extend((("value", v.key), node, {"kind": "use"}) for v in op.operands)
            for r in op.results:
                nodes.append((("value", r.key), {"kind": "value", "func": func.name, "value": r}))
                edges.append((node, ("value", r.key), {"kind": "def"}))
            if op.callee:
                edges.append((node, ("func", op.callee), {"kind": "call"}))
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    return g


def lifetimes(func: Func) -> dict[Value, Lifetime]:
    """Lifetime of every tensor value of ``func`` (arguments and results).

    A function with no ops gives its arguments an empty range at index -1.
    """
    if not func.ops:
        return {a: Lifetime(a, -1, -1, "unused") for a in func.args if a.is_tensor}
    first, last = func.ops[0].index, func.ops[-1].index
    returned = set(func.returns)
    out: dict[Value, Lifetime] = {}
    values = [(a, first) for a in func.args]
    values += [(r, op.index) for op in func.ops for r in op.results]
    for v, start in values:
        if not isinstance(v.type, TensorType):
            continue
        dealloc = last_use = None  # the first ttnn.deallocate among the users (program order), the latest other use
        for u in v.users:
            if u.name == "ttnn.deallocate":
                dealloc = u.index
                break
            if last_use is None or u.index > last_use:
                last_use = u.index
        if dealloc is not None:
            out[v] = Lifetime(v, start, dealloc, "deallocate")
        elif v in returned:
            out[v] = Lifetime(v, start, last, "returned")
        elif last_use is not None:
            out[v] = Lifetime(v, start, last_use, "last use")
        else:
            out[v] = Lifetime(v, start, start, "unused")
    return out
