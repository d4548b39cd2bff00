"""docs/coverage.md is generated from the registry (benchmarks/coverage.py) and must be current."""

from __future__ import annotations

import sys

from .conftest import ROOT


def test_op_list_is_the_dialect_at_19c86fca():
    lines = (ROOT / "ttanalyze" / "ops" / "data" / "ttnn_ops.txt").read_text().splitlines()
    ops = [line.split()[0] for line in lines if line and not line.startswith("#")]
    assert "19c86fca45ae7c3d8f886c0401d8b40a40d2f294" in lines[0]
    assert len(ops) == len(set(ops)) == 190
    assert {"to_tensor_spec", "scaled_dot_product_attention", "all_gather", "tt_lang_op"} <= set(ops)


def test_coverage_doc_is_current():
    sys.path.insert(0, str(ROOT))
    from benchmarks.coverage import OUT, render

    assert OUT.read_text() == render(), "docs/coverage.md is stale: run .venv/bin/python benchmarks/coverage.py"
