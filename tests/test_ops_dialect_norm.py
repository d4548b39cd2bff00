"""The models of global_avg_pool2d, batch_norm_training and indexer_score_dsa against what ttnn 0.81.1 ran on
the mock P150.

measurements/dialect/cases_norm.py draws the instances (seeded: shapes, dtypes, layouts, DRAM/L1);
measurements/dialect/probe_norm.py replayed them (NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_norm.py``) into
measurements/dialect/results_norm.jsonl, with the chain of device operations each call ran.  Every program
of the chain must be modeled in order (same program factory) with every static CB of the same size on the
same cores; a case ttnn refused must be a rejection or a configuration the model declines; a case the model
declines is skipped with its reason.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.dialect.cases_norm import CASES
from ttanalyze import ops as O
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.programs import context_for, program_of, run_spec_model

from .conftest import ROOT, assert_specs_match
from .test_ops_dialect_misc import FULL, cores, modeled

RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results_norm.jsonl")
                                   .read_text().splitlines())}
IR_CASES = [c for c in CASES if c.id in RESULTS and not c.kwargs.get("ttnn_weights") and O.cb_model(c.op) is not None]


def _cb_key(size: int, core_set) -> tuple:
    return size, frozenset(core_set)


def _model_programs(v) -> list[tuple[str, Counter]]:
    return [(p.factory.rsplit("::", 1)[-1],
             Counter(_cb_key(cb.bytes, ((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                        for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs))
            for p in v.stages]


def _device_programs(measured) -> list[tuple[str, Counter]]:
    progs: dict[int, Counter] = {}
    for c in measured["cbs"]:
        progs.setdefault(c["program"], Counter())
        if not c["borrowed"] and c["kind"] != "scratchpad":
            progs[c["program"]][_cb_key(c["size"], cores(c["core_ranges"]))] += 1
    return [(step["factory"], progs.get(i, Counter())) for i, step in enumerate(measured["chain"])]


@pytest.mark.parametrize("case", IR_CASES, ids=[c.id for c in IR_CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    v = modeled(case)[2]
    if measured["error"]:
        assert v.status in ("rejected", "out_of_scope"), (v.status, measured["error"])
        return
    if v.status in ("out_of_scope", "unmodeled"):  # measured outside the models (the reason says which)
        pytest.skip(f"not modeled: {v.reason}")
    assert v.status == "modeled", v.reason
    model, device = _model_programs(v), _device_programs(measured)
    assert [f for f, _ in model] == [f.rsplit("::", 1)[-1] for f, _ in device]
    assert [cbs for _, cbs in model] == [cbs for _, cbs in device]


SPEC_CASES = [c for c in IR_CASES if O.spec_model(c.op) is not None]


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


COST_CASES = [c for c in IR_CASES if not RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", COST_CASES, ids=[c.id for c in COST_CASES])
def test_cost_follows_the_modeled_programs(case):
    """The cost model costs each modeled program of the chain (one device operation each), else the op's main
    device operation by name."""
    from ttanalyze.cost.ir import hardware_of, op_cost
    from ttanalyze.cost.constants import load

    a, op, v = modeled(case)
    cost = op_cost(op, a, hardware_of(a), load())
    assert cost.status == "costed", cost.reason
    if v.status == "modeled":
        assert len(cost.device_ops) == len(v.stages)
        assert all(e.ns > 0 for e in cost.estimates)


def _tensor(desc):
    from ttanalyze.ir.attrs import DataType
    from ttanalyze.layout import tile_padded_shape
    from ttanalyze.ops.tensors import MemCfg, Tensor

    shape, dtype, layout, buf = desc
    return Tensor(tuple(shape), tile_padded_shape(tuple(shape)) if layout == "tile" else tuple(shape), DataType(dtype),
                  layout, MemCfg(buf, "interleaved"))


TTNN_WEIGHT_CASES = [c for c in CASES if c.id in RESULTS and c.kwargs.get("ttnn_weights")]


@pytest.mark.parametrize("case", TTNN_WEIGHT_CASES, ids=[c.id for c in TTNN_WEIGHT_CASES])
def test_indexer_factory_beyond_one_head(case):
    """indexer_score_dsa's factory and checks with the weights as ttnn 0.81.1 wants them ([1, 1, Sq, Hi], which
    tt-mlir's verifier does not accept for Hi > 1): the CBs, cores and output of every head count measured."""
    from ttanalyze.ops.cb import CBModelError, DeviceRejection, grid_xy
    from ttanalyze.ops.indexer_score import _result, indexer_program

    measured = RESULTS[case.id]
    q, k, w = (_tensor(d) for d in case.operands)
    w = _tensor(((1, 1, q.shape[2], q.shape[1]), *case.operands[2][1:]))
    if measured["error"]:
        with pytest.raises(CBModelError) as exc:
            indexer_program(q, k, w, _result(q, k), grid_xy(MOCK))
        assert isinstance(exc.value, DeviceRejection)
        assert measured["error"].splitlines()[-1].split(" (got")[0] in str(exc.value)
        return
    p = indexer_program(q, k, w, _result(q, k), grid_xy(MOCK))
    model = Counter(_cb_key(cb.bytes, ((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                       for y in range(r.start.y, r.end.y + 1))) for cb in p.cbs)
    assert model == _device_programs(measured)[0][1]
    spec, out = _result(q, k).spec(), measured["outputs"][0]
    assert (list(spec.shape), spec.layout, spec.dtype, spec.buffer_type) == (out["shape"], out["layout"], out["dtype"],
                                                                             out["buffer_type"])


ISD_REFUSED = [c for c in IR_CASES if c.op == "ttnn.indexer_score_dsa" and RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", ISD_REFUSED, ids=[c.id for c in ISD_REFUSED])
def test_indexer_refusal_quotes_ttnn(case):
    """An indexer_score_dsa ttnn 0.81.1 refused is reported as tt-metal's refusal (TTA013) quoting its message;
    tt-mlir's [1, Hi, Sq, 1] weights with Hi > 1 among them."""
    v = modeled(case)[2]
    assert v.status == "rejected", v.reason
    assert RESULTS[case.id]["error"].splitlines()[-1].split(" (got")[0] in v.reason
