"""TTA042: what ttanalyze knows of an op that runs user kernels (``ttnn.generic``, ``ttnn.tt_lang_op``) or a
D2M function (``ttnn.d2m_subgraph``), and what it cannot know (:mod:`ttanalyze.ops.generic`)."""

from __future__ import annotations

from collections import Counter

from .. import fmt
from ..analysis import Analysis
from . import Reporter, rule

USER_PROGRAM_OPS = ("ttnn.generic", "ttnn.tt_lang_op")


def _program_text(a: Analysis, op) -> tuple[str, dict]:
    prog = a.programs.get(op.index)
    if prog is None or prog.status != "modeled":
        why = prog.reason if prog is not None else "no program verdict"
        return f"its circular buffers are not known ({why})", {"status": prog.status if prog else None}
    parts, data = [], {"programs": []}
    for stage in prog.stages:
        core, per_core = stage.busiest_core()
        where = f" on core ({core[0]},{core[1]})" if core is not None else ""
        backed = sum(1 for cb in stage.cbs if cb.globally_allocated)
        text = (f"{stage.factory}: {len(stage.cbs)} CB(s) from the descriptor, {fmt.nbytes(per_core)} of static CBs "
                f"per core at most{where}" + (f", {backed} in a tensor's L1 buffer (no L1 of their own)" if backed else ""))
        if stage.l1_buffers_per_core:
            text += f", {fmt.nbytes(stage.l1_buffers_per_core)} per core of L1 scratch tensor"
        parts.append(text + f"; {'; '.join(stage.notes)}")
        data["programs"].append({"factory": stage.factory, "cores": stage.cores.num_cores, "cb_bytes_per_core": per_core,
                                 "cbs": len(stage.cbs), "tensor_backed_cbs": backed})
    return " | ".join(parts), data


@rule("TTA042")
def user_programs(a: Analysis, r: Reporter) -> None:
    for op in a.ops_named(*USER_PROGRAM_OPS, "ttnn.d2m_subgraph"):
        if op.name in USER_PROGRAM_OPS:
            text, data = _program_text(a, op)
            r.op(op, f"{op.name} runs user kernels: {text}; their device time is not modeled", data=data)
        elif op.name == "ttnn.d2m_subgraph":
            callee = a.program.func(op.callee) if op.callee else None
            if callee is None:
                r.op(op, f"{op.name} calls @{op.callee or '?'}, which the module does not define: opaque",
                     data={"callee": op.callee, "status": "undefined"})
                continue
            foreign = Counter(o.name for o in callee.ops if o.dialect not in ("ttnn", "ttcore"))
            ttnn_ops = Counter(o.name for o in callee.ops if o.dialect in ("ttnn", "ttcore"))
            listed = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in ttnn_ops.most_common(6))
            if foreign:
                others = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in foreign.most_common(6))
                r.op(op, f"{op.name} runs @{callee.name}, whose body holds ops ttanalyze does not model ({others}): "
                         f"the subgraph stays opaque; its TTNN ops ({listed or 'none'}) are analyzed there",
                     data={"callee": callee.name, "status": "opaque", "unmodeled_ops": dict(foreign)})
            else:
                r.op(op, f"{op.name} is analyzed as a call of @{callee.name} ({len(callee.ops)} ops: {listed or 'none'}): "
                         "its results are the callee's returned values, as TTNNCollaspeD2M inlines it",
                     data={"callee": callee.name, "status": "call", "ops": dict(ttnn_ops)})
