"""The dialect models of copy/assign/bitcast_convert/dropout/rand (and the ops added after them) against
what ttnn 0.81.1 allocated on the mock P150.

measurements/dialect/cases_misc.py draws the instances (seeded: shapes, dtypes, layouts, DRAM/L1);
measurements/dialect/probe_misc.py replayed them (NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_misc.py``) into
measurements/dialect/results_misc.jsonl.  Every static CB of every program must have the same size on the
same cores (as multisets), with the empty mock's free L1; a case ttnn refused must be a rejection or a
configuration the model declines; a case the model declines (outside its scope, e.g. a sort over a
wide row) is skipped with the model's reason.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.dialect.cases_misc import CASES
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze import ops as O
from ttanalyze.programs import context_for, program_of, run_spec_model

from .conftest import BH_SYSTEM_DESC, ROOT, assert_specs_match

FULL = 1_461_120
RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results_misc.jsonl")
                                   .read_text().splitlines())}
_DEVICE = ('%dev = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
           ': () -> !ttnn.device')


def _desc(d) -> TensorDesc:
    shape, dtype, layout, buf = d
    return TensorDesc(tuple(shape), dtype, layout, buf, None if buf == "system_memory" else "interleaved")


def module(case) -> str:
    """The case as a one-op module (results, if any, returned)."""
    ins, outs = [_desc(d) for d in case.operands], [_desc(d) for d in case.results]
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    out_types = ", ".join(t.type_text() for t in outs)
    names = ", ".join(f"%r{i}" for i in range(len(outs)))
    dev_first = case.op != "ttnn.conv1d"  # conv1d takes the device last
    dev = ["%dev"] if case.device else []
    operands = [f"%arg{i}" for i in range(len(ins))]
    operands = dev + operands if dev_first else operands + dev
    types = [t.type_text() for t in ins]
    types = (["!ttnn.device"] if case.device else []) + types if dev_first else types + (["!ttnn.device"] if case.device else [])
    attrs = f" <{{{case.attrs}}}>" if case.attrs else ""
    call = f'"{case.op}"({", ".join(operands)}){attrs} : ({", ".join(types)}) -> ({out_types})'
    pre = f"    {_DEVICE}\n" if case.device else ""
    body = f"{pre}    {names} = {call}\n    return {names} : {out_types}" if outs else f"{pre}    {call}\n    return"
    return (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main({args}) -> ({out_types}) {{\n{body}\n  }}\n}}\n")


def modeled(case):
    """``(analysis, op, program)`` of ``case``'s single-op module on the mock P150 with its whole free L1."""
    a = analyze(parse_text(module(case), "t.mlir"))
    op = next(o for o in a.program.ops if o.name == case.op)
    return a, op, program_of(a, op, arch=MOCK, free_l1=FULL)


def cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    v = modeled(case)[2]
    if measured["error"] and "beyond max L1 size" in measured["error"]:  # the CB region overflows L1 (a TTA rule's job)
        assert v.status == "modeled" and max(p.per_core_bytes() for p in v.stages) > FULL, v.reason
        return
    if measured["error"]:
        assert v.status in ("rejected", "out_of_scope"), (v.status, measured["error"])
        return
    if v.status in ("out_of_scope", "unmodeled"):  # measured outside the models (the reason says which)
        pytest.skip(f"not modeled: {v.reason}")
    assert v.status == "modeled", v.reason
    model = Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                         for y in range(r.start.y, r.end.y + 1)))
                    for p in v.stages for cb in p.static_cbs)
    cbs = measured["cbs"]
    if len(v.stages) < len({c["program"] for c in cbs}):
        # the model lists the op's main program(s) only (conv1d: the conv program, the halo and resharding
        # programs in its notes, as for conv2d): compare the device programs of the same factories
        factories = {p.factory for p in v.stages}
        cbs = [c for c in cbs if c["factory"].rsplit("::", 1)[-1] in factories]
    device = Counter((c["size"], cores(c["core_ranges"])) for c in cbs if not c["borrowed"]
                     and c["kind"] != "scratchpad")
    scratch = sum(c["size"] for c in cbs if c["kind"] == "scratchpad")
    assert model == device
    assert sum(p.extra_l1_per_core for p in v.stages) == scratch


SPEC_CASES = [c for c in CASES if O.spec_model(c.op) is not None]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_output_spec_matches_the_mock(case):
    measured = RESULTS[case.id]
    if measured["error"] or not measured.get("outputs"):
        pytest.skip(f"ttnn returned no tensor: {measured['error']}")
    a, op, _ = modeled(case)
    specs = run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL))
    if specs is None and program_of(a, op, arch=MOCK, free_l1=FULL).status == "out_of_scope":
        pytest.skip("not modeled: the op's program model declines the configuration")
    assert_specs_match(specs, measured["outputs"])
