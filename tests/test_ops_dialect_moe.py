"""Engineer moe's dialect models (sampling, ...) against what ttnn 0.81.1 allocated on the mock P150.

measurements/dialect/cases_moe.py draws the instances (seeded); measurements/dialect/probe_moe.py replayed
them (NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python
measurements/dialect/probe_moe.py``) into measurements/dialect/results_moe.jsonl.  Every static CB of every
program must have the same size on the same cores (as multisets), the kernel scratchpads the same bytes
per core; a case ttnn refused must be a rejection the model reproduces (or a configuration it declines).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from measurements.dialect.cases_moe import CASES
from ttanalyze import ops as O
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import context_for, run_spec_model

from .conftest import ROOT, assert_specs_match
from .test_ops_dialect_misc import FULL, cores, modeled, module

RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results_moe.jsonl")
                                   .read_text().splitlines())}


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    _, _, v = modeled(case)
    if measured["error"]:
        assert v.status == "rejected", (v.status, v.reason, measured["error"])
        return
    if v.status == "out_of_scope":  # measured outside the model (the reason says which)
        pytest.skip(f"not modeled: {v.reason}")
    assert v.status == "modeled", v.reason
    model = Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                         for y in range(r.start.y, r.end.y + 1)))
                    for p in v.stages for cb in p.static_cbs)
    device = Counter((c["size"], cores(c["core_ranges"])) for c in measured["cbs"] if not c["borrowed"]
                     and c["kind"] != "scratchpad")
    assert model == device
    scratch = defaultdict(int)
    for c in measured["cbs"]:
        if c["kind"] == "scratchpad":
            for core in cores(c["core_ranges"]):
                scratch[core] += c["size"]
    assert sum(p.extra_l1_per_core for p in v.stages) == max(scratch.values(), default=0)


SPEC_CASES = [c for c in CASES if O.spec_model(c.op) is not None]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_output_spec_matches_the_mock(case):
    measured = RESULTS[case.id]
    if measured["error"] or not measured.get("outputs"):
        pytest.skip(f"ttnn returned no tensor: {measured['error']}")
    a, op, _ = modeled(case)
    specs = run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL))
    assert_specs_match(specs, measured["outputs"])


def test_every_measured_program_is_costed():
    """Each instance the mock ran is costed through its program factory's device operation (cost/ir.py OP_CODES)."""
    from ttanalyze.cost.ir import program_cost

    missing = []
    for case in CASES:
        if RESULTS[case.id]["error"]:
            continue
        cost = next(c for c in program_cost(analyze(parse_text(module(case), "t.mlir"))).ops if c.op.name == case.op)
        if cost.status != "costed" or cost.ns <= 0:
            missing.append((case.id, cost.status, cost.reason))
    assert not missing, missing[:5]


def test_all_to_all_dispatch_is_costed_as_its_dense_all_gather():
    """all_to_all_dispatch (no program model: it needs the fabric) is costed by name as the all-gather of its
    dispatched tensor over the cluster axis (cost/ir.py NAME_OP_CODES), the ring size read off the volumes."""
    from ttanalyze.cost.ir import program_cost
    from ttanalyze.ir.emit import TensorDesc

    from .conftest import BH_SYSTEM_DESC

    rm = lambda shape, dt: TensorDesc(shape, dt, "row_major", "dram").type_text()  # noqa: E731
    x, idx, mp = rm((2, 32, 1, 2880), "bf16"), rm((2, 32, 1, 4), "u16"), rm((1, 1, 32, 4), "u16")
    out, meta = rm((1, 8, 32, 2880), "bf16"), rm((1, 8, 32, 4), "u16")
    text = (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main(%x: {x}, %i: {idx}, %m: {mp}) -> ({out}, {meta}) {{\n"
            f"    %d, %md = \"ttnn.all_to_all_dispatch\"(%x, %i, %m) <{{cluster_axis = 1 : i64, num_devices = 4 : i64}}> "
            f": ({x}, {idx}, {mp}) -> ({out}, {meta})\n    return %d, %md : {out}, {meta}\n  }}\n}}\n")
    cost = program_cost(analyze(parse_text(text, "t.mlir"))).ops[0]
    assert cost.status == "costed" and cost.ns > 0, cost.reason
    assert [d.op_code for d in cost.device_ops] == ["AllGatherAsyncDeviceOperation"]
    assert cost.device_ops[0].attrs["ring_size"] == 4
