"""The dialect op models against what ttnn 0.81.1 allocated on the mock P150.

measurements/dialect/cases.py lists the instances; measurements/dialect/probe.py replayed them
(NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python
measurements/dialect/probe.py``) into measurements/dialect/results.jsonl.  Every static CB must have
the same size on the same cores (as multisets), with the empty mock's free L1.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.dialect.cases import CASES
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops.registry import cb_model
from ttanalyze.ops.work_split import num_cores_to_corerangeset
from ttanalyze.programs import program_of

from .conftest import BH_SYSTEM_DESC, ROOT

FULL = 1_461_120
RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results.jsonl").read_text().splitlines())}


def module(case) -> str:
    """The case as a one-op module (results, if any, returned)."""
    dtypes = case.dtypes or ("bf16",) * len(case.operands)
    sharded = case.sharded or (0,) * len(case.operands)
    ins = [TensorDesc(tuple(s), d, "row_major" if d == "si32" else "tile") if not n else
           TensorDesc(tuple(s), d, "tile", "l1", "height_sharded", (n, 1), num_cores_to_corerangeset(n, (11, 10), True))
           for s, d, n in zip(case.operands, dtypes, sharded)]
    outs = [TensorDesc(tuple(s), dtypes[0]) for s in case.results]
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    out_types = ", ".join(t.type_text() for t in outs)
    names = ", ".join(f"%r{i}" for i in range(len(outs)))
    attrs = f" {{{case.attrs}}}" if case.attrs else ""
    call = (f'"{case.op}"({", ".join(f"%arg{i}" for i in range(len(ins)))}){attrs} : '
            f'({", ".join(t.type_text() for t in ins)}) -> ({out_types})')
    body = f"    {names} = {call}\n    return {names} : {out_types}" if outs else f"    {call}\n    return"
    return (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main({args}) -> ({out_types}) {{\n{body}\n  }}\n}}\n")


def cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


# Cases of ops without a program model are kept as measurements for the models still to be derived.
MODELED = [c for c in CASES if cb_model(c.op) is not None]


@pytest.mark.parametrize("case", MODELED, ids=[c.id for c in MODELED])
def test_model_matches_the_mock(case):
    if case.id not in RESULTS:
        pytest.skip("not measured yet: run measurements/dialect/probe.py with the case's id prefix")
    measured = RESULTS[case.id]
    a = analyze(parse_text(module(case), "t.mlir"))
    v = program_of(a, a.program.ops[0], arch=MOCK, free_l1=FULL)
    if measured["error"]:
        assert v.status == "rejected", (v.status, measured["error"])
        return
    assert v.status == "modeled", v.reason
    model = Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                         for y in range(r.start.y, r.end.y + 1)))
                    for p in v.stages for cb in p.static_cbs)
    model += Counter((size, frozenset((x, y) for r in p.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                      for y in range(r.start.y, r.end.y + 1)))
                     for p in v.stages for size in p.scratchpads)  # the device lists kernel scratchpads beside its CBs
    device = Counter((c["size"], cores(c["core_ranges"])) for c in measured["cbs"] if not c["borrowed"])
    assert model == device


def test_every_measured_program_is_costed():
    """Each measured instance the mock ran is costed through its program factory's device operation
    (cost/ir.py OP_CODES), the in-place KV-cache ops included (they write the input's tiles into the cache)."""
    from ttanalyze.cost.ir import program_cost

    missing = []
    for case in MODELED:
        measured = RESULTS.get(case.id)
        if measured is None or measured["error"]:
            continue
        cost = program_cost(analyze(parse_text(module(case), "t.mlir"))).ops[0]
        if cost.status != "costed" or cost.ns <= 0:
            missing.append((case.id, cost.status, cost.reason))
    assert not missing, missing[:5]
