"""The sort and scan models (ttanalyze/ops/sort_scatter.py) against what ttnn 0.81.1 allocated on the mock P150
for the cases the opdiff campaign's generator cannot draw.

measurements/dialect/cases_scan.py lists the instances (sorts over other dims and ranks, row-major and UINT16
sorts, the cross-core and multi-core factories; cumsum/cumprod along every kind of dim);
measurements/dialect/probe_scan.py replayed them (NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_scan.py``) into
measurements/dialect/results_scan.jsonl.  Every static CB of every program must have the same size on the same
cores (as multisets), program by program in the order ttnn ran them; a case ttnn refused must be refused.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.dialect.cases_scan import CASES

from .conftest import ROOT
from .test_ops_dialect_misc import modeled
from .test_ops_dialect_rest import _measured_programs

RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results_scan.jsonl")
                                   .read_text().splitlines())}


def _model_programs(v) -> list[Counter]:
    """Each modeled program's static CBs as a multiset of (bytes, cores), in order."""
    return [Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                         for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs)
            for p in v.stages]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    v = modeled(case)[2]
    if measured["error"]:
        assert v.status == "rejected", (v.status, v.reason, measured["error"])
        return
    assert v.status == "modeled", v.reason
    assert _model_programs(v) == _measured_programs(measured)
