"""rms_norm as jax-tt-plugin's runtime runs it (tt-metal 614f605f, ``ttanalyze/ops/norm_sharded.py``):
every rms_norm program of the whole-program campaign, checked against tt-metal's own figures.

The refusals' texts (in each fixture's ``case.json``) give the static DFB region end and the lowest L1
buffer (the input and output shards); TTA010 must report the same figures, and pass the programs that ran.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text
from ttanalyze.rules import run as run_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "real" / "programs"
CASES = sorted(d for d in FIXTURES.glob("rms_norm_32_*") if (d / "case.json").exists())


def _ir(d: Path) -> str:
    if (d / "ttnn.mlir").exists():
        return (d / "ttnn.mlir").read_text()
    return gzip.decompress((d / "ttnn.mlir.gz").read_bytes()).decode()


@pytest.mark.parametrize("case_dir", CASES, ids=[d.name for d in CASES])
def test_rms_norm_programs_match_tt_metal(case_dir: Path) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    a = analyze(parse_text(_ir(case_dir), str(case_dir / "ttnn.mlir")), tt_metal="614f605f")
    errors = [f for f in run_rules(a) if f.rule == "TTA010" and f.severity == "error"]
    text = case["run_error"]
    if case["outcome"] == "ran":
        assert not errors
        return
    assert len(errors) == 1, text
    data = errors[0].data
    clash = re.search(r"L1 buffer allocated at (\d+) and static dataflow buffer region ends at (\d+)", text)
    grow = re.search(r"core range \[0-0 - 7-1\] grow to (\d+) B", text)
    if clash:
        assert data["check"] == "clash"
        assert (data["lowest_l1_buffer"], data["cb_region_end"]) == (int(clash[1]), int(clash[2]))
    else:
        assert grow, text
        assert data["check"] == "max_l1_size"
        assert data["reported_end"] == int(grow[1])
        assert data["reported_range"] == [0, 0, 7, 1]


def test_rms_norm_outside_the_measured_grid_is_not_modeled() -> None:
    """Several tile rows run on another grid under the plugin: the model says so instead of guessing."""
    d = FIXTURES / "rms_norm_128_4096_bf16_o2"
    if not d.exists():
        pytest.skip("fixture not present")
    a = analyze(parse_text(_ir(d), str(d / "ttnn.mlir")), tt_metal="614f605f")
    progs = [p for i, p in a.programs.items() if a.program.ops[i].name == "ttnn.rms_norm"]
    assert progs and all(p.status == "out_of_scope" for p in progs)
