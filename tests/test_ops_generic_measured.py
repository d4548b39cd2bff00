"""``ttnn.generic`` against what ttnn 0.81.1 did with the same program descriptor on the mock P150.

measurements/generic/cases.py draws the descriptors; measurements/generic/probe.py ran them with
``ttnn.generic_op`` (rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/generic/probe.py``)
into measurements/generic/results.jsonl.  For each case the whole analysis of the one-op module (its io
tensors allocated first, as the probe does) must agree with the device:

* tt-metal refused the descriptor: the model rejects it with the same check (TTA013), or TTA010 names
  the same core range and the same "grow to" byte figure, or the same clash;
* it ran: no refusal, and the same CBs (size, cores, in a tensor's buffer or not) as multisets (a program
  whose CBs are all in tensors' buffers shows none in the capture: then there must be no other).
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from measurements.generic.cases import CASES, module
from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text

from .conftest import ROOT, findings_of

RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "generic" / "results.jsonl").read_text()
                                   .splitlines())}
# tt-metal's own refusals of a descriptor (ops/generic.py descriptor_program), by the words of its message
REFUSALS = ("must be divisible by page size", "another circular buffer already exists",
            "larger than the associated dynamically allocated L1 buffer bank size", "Only L1 buffers")


def cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _message(error: str) -> str:
    return error.split("info:")[-1].strip()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_generic_descriptor_matches_the_mock(case):
    measured = RESULTS.get(case.id)
    if measured is None:
        pytest.skip("not measured: run measurements/generic/probe.py")
    a = analyze(parse_text(module(case), "generic.mlir"), l1_small_size=0)  # the probe's device: no L1_SMALL
    op = a.program.ops[0]
    prog = a.programs[op.index]
    errors = [f for f in findings_of(a) if f.severity == "error"]
    error = measured["error"]
    if error:
        text = _message(error)
        grown = re.search(r"core range \[(\d+)-(\d+) - (\d+)-(\d+)\] grow to (\d+) B", text)
        if grown:
            x0, y0, x1, y1, end = map(int, grown.groups())
            (f,) = [f for f in errors if f.rule == "TTA010"]
            assert f.data["check"] == "max_l1_size"
            assert (f.data["reported_range"], f.data["reported_end"]) == ([x0, y0, x1, y1], end)
            return
        if "clash with L1 buffers" in text:
            assert [f.data["check"] for f in errors if f.rule == "TTA010"] == ["clash"]
            return
        (kind,) = [k for k in REFUSALS if k in text]
        assert prog.status == "rejected" and kind in prog.reason, (prog.status, prog.reason, text)
        assert text in prog.reason  # tt-metal's message, its numbers included
        return
    assert prog.status == "modeled" and not errors, (prog.status, prog.reason, [f.message for f in errors])
    model = Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                         for y in range(r.start.y, r.end.y + 1)), cb.globally_allocated)
                    for p in prog.stages for cb in p.cbs)
    device = Counter((c["size"], cores(c["core_ranges"]), c["borrowed"]) for c in measured["cbs"])
    if not device:  # the capture records a program's CBs only when some take L1 of their own (measured)
        model = Counter(k for k in model.elements() if not k[2])
    assert model == device


def test_the_campaign_covers_every_verdict():
    """The measured cases include runs, each of tt-metal's descriptor refusals, and L1 overflows."""
    verdicts = Counter()
    for r in RESULTS.values():
        text = _message(r["error"]) if r["error"] else "ran"
        verdicts[next((k for k in (*REFUSALS, "grow to", "clash with L1 buffers") if k in text), text)] += 1
    if not RESULTS:
        pytest.skip("not measured")
    assert verdicts["ran"] and verdicts["grow to"] and all(verdicts[k] for k in REFUSALS[:3])
