"""The dialect models of engineer dialect-rest's ops against what ttnn 0.81.1 allocated on the mock P150.

measurements/dialect/cases_rest.py draws the instances (seeded: shapes, broadcasts, dtypes, DRAM/L1);
measurements/dialect/probe_rest.py replayed them (NO_DISPATCH graph capture; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/dialect/probe_rest.py``) into
measurements/dialect/results_rest.jsonl.  Every static CB of every program must have the same size on the
same cores (as multisets), program by program in the order ttnn ran them; an op without a program model
is skipped with the model's reason.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.dialect.cases_rest import CASES

from .conftest import ROOT
from .test_ops_dialect_misc import cores, modeled

RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "dialect" / "results_rest.jsonl")
                                   .read_text().splitlines())}


def _measured_programs(measured) -> list[Counter]:
    """Each measured program's static CBs as a multiset of (bytes, cores), in run order."""
    progs: dict[int, Counter] = {}
    for c in measured["cbs"]:
        if not c["borrowed"] and c["kind"] != "scratchpad":
            progs.setdefault(c["program"], Counter())[(c["size"], cores(c["core_ranges"]))] += 1
    return [progs[k] for k in sorted(progs)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    v = modeled(case)[2]
    if measured["error"]:
        assert v.status in ("rejected", "out_of_scope", "unmodeled"), (v.status, measured["error"])
        return
    if v.status in ("out_of_scope", "unmodeled"):  # measured outside the models (the reason says which)
        pytest.skip(f"not modeled: {v.reason}")
    assert v.status == "modeled", v.reason
    model = [Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                          for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs)
             for p in v.stages]
    assert model == _measured_programs(measured)
