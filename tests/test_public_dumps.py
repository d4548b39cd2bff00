"""Mechanisms found by sweeping the public TTNN dumps (docs/eras.md, "Public dumps"): each test runs a
minimal excerpt of a real dump (tests/data/eras/ORIGINS.md) and checks the verdict tt-metal's source or
the mock device gives."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_modules
from ttanalyze.rules import run

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data" / "eras"


def _findings(name: str):
    (program,) = parse_modules((DATA / name).read_text(), name)
    a = analyze(program, "wormhole_b0")
    return a, run(a)


def test_conv2d_nhwc_input_of_2024_is_no_error():
    """tt-mlir's explorer ResNet of 2024-11: conv2d takes [N, H, W, C] inputs and types its results
    [N, OH, OW, C].  tt-metal reshapes such an input to [1, 1, N*H*W, C] and runs the conv; it returns the
    flattened shape, which that era's runtime passed on unchecked: a warning, never an error."""
    _, fs = _findings("real_explorer_resnet_conv_nhwc_2024_11.mlir")
    conv = [f for f in fs if "conv2d" in f.message and f.rule in ("TTA007", "TTA012")]
    assert [(f.rule, f.severity) for f in conv] == [("TTA012", "warning")]
    assert "shape 1x112x112x64 declared, 1x1x12544x64 returned" in conv[0].message
    assert not [f for f in fs if f.severity == "error"]


def test_refusal_from_types_that_do_not_record_layouts_is_unsure():
    """The same file types every tensor row-major, even a ttnn.to_layout to tile: a matmul refused for a
    row-major operand is a warning that says why it is unsure."""
    _, fs = _findings("real_explorer_resnet_conv_nhwc_2024_11.mlir")
    (mm,) = [f for f in fs if f.rule == "TTA013"]
    assert mm.severity == "warning"
    assert "do not record tile layouts (line 17" in mm.message


def test_conv2d_nhwc_input_runs_the_flattened_programs():
    """A conv2d fed its [1, 32, 32, 16] argument directly (the fixture conv2d_block_o0 without its flattening
    reshape): ttnn 0.81.1 accepted it on the mock P150 with 14,408 B of CBs per core, the figure of the
    flattened conv; the model now predicts the same and reports no error."""
    a, fs = _findings("conv2d_nhwc_input_constructed.mlir")
    assert not [f for f in fs if f.severity == "error"]
    (conv,) = [op for op in a.program.ops if op.name == "ttnn.conv2d"]
    prog = a.programs[conv.index]
    assert max(p.region_bytes_per_core() for p in prog.stages) == 14_408


def test_public_dump_index_names_repository_commit_and_path():
    """Every dump of the sweep is named by repository, commit and path (so the sweep can fetch it again),
    and every row of the committed results is one of them."""
    rows = [line.split("\t") for line in (ROOT / "measurements/eras/public_dumps_index.tsv").read_text().splitlines()]
    assert rows and all(len(r) == 5 and len(r[1]) == 40 and r[4].startswith("tenstorrent/") for r in rows)
    with gzip.open(ROOT / "measurements/eras/public_results.jsonl.gz", "rt") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    cases = [r for r in lines if "case" in r]
    verdicts = {r["key"]: r for r in lines if "status" in r}
    names = {r[0] for r in rows}
    assert cases and all(c["path"].split("/")[-1] in names and c["case"] in verdicts for c in cases)
    assert {r["status"] for r in verdicts.values()} <= {"analyzed", "input_error", "internal", "timeout"}
