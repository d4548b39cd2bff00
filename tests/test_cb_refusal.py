"""End to end: programs tt-metal refuses for their circular buffers, against real runs.

Each ``fixtures/real/cb_*`` program was compiled by the real tt-mlir
(jax-tt-plugin 0.1.3, optimization_level 0, which validates nothing) and run on
the mock Blackhole P150 by its runtime (tt-metal 614f605f).  The ``cb_overflow_*``
ones compiled and then failed on the device, before dispatch, with
``TT_THROW @ tt_metal/impl/dataflow_buffer/dataflow_buffer.cpp:2706: Statically
allocated dataflow buffers on core range [X] grow to N B which is beyond max L1
size of 1572864 B``; ``case.json`` keeps the error and its parsed core range and
region end.  The ``cb_fits_*`` ones are their neighbours one step smaller, which
ran.  ``ttanalyze check`` must predict exactly that: the failing op, the core
range tt-metal names and the byte figure, and nothing on the neighbours.
"""

from __future__ import annotations

import json

import pytest

from .conftest import FIXTURES

CASES = sorted(p.parent for p in (FIXTURES / "real").glob("cb_*/case.json"))


def _case(path):
    return json.loads((path / "case.json").read_text())


def _range_text(r):
    """Our ``[x0, y0, x1, y1]`` as tt-metal prints a core range: ``x0-y0 - x1-y1``."""
    return f"{r[0]}-{r[1]} - {r[2]}-{r[3]}"


def test_the_refusal_cases_are_all_here():
    names = {p.name for p in CASES}
    assert {n for n in names if n.startswith("cb_overflow_")} == {
        "cb_overflow_argmax_87224x64_o0", "cb_overflow_argmax_7136x4096_o0", "cb_overflow_topk_k3584_o0"}
    assert len(names) == 6


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_check_predicts_the_device_outcome(cli, case):
    info = _case(case)
    assert info["compile_ok"] and info["tt_metal_sha"].startswith("614f605f")
    result = cli("check", case / "ttnn.mlir", "--format", "json", "--detail", "ops")
    report = json.loads(result.stdout)
    [file] = report["files"]
    overflow = [f for f in file["findings"] if f["rule"] == "TTA010"]
    if info["run_ok"]:
        assert overflow == [] and result.exit_code == 0
        return
    err = info["error_parsed"]
    assert err["kind"] == "dataflow_buffers_beyond_max_l1" and err["max_l1_size"] == 1_572_864
    [finding] = overflow
    assert result.exit_code == 1 and finding["severity"] == "error"
    data = finding["data"]
    assert _range_text(data["reported_range"]) == err["core_range"]
    assert data["reported_end"] == err["region_end"]
    assert f"grow to {err['region_end']:,} B" in finding["message"]
    # the runtime's error names no op; each program has one argmax or topk, and that is the op flagged
    failing = next(op for op in file["ops"] if op["line"] == finding["line"])
    [expected] = [name for name in info["ttnn_op_counts"] if name in ("ttnn.argmax", "ttnn.topk")]
    assert failing["name"] == expected
