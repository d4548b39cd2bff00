"""The whole-program campaign's programs (fixtures/real/programs: real compiler output, each with the
device outcome in case.json) and the scores committed in benchmarks/programs/outcomes.json.

Every program that ran must draw no error (a false alarm fails the test); every other verdict must
reproduce the committed score, so a change that turns a true alarm into a miss (or fixes a miss
without re-scoring, `benchmarks/programs/outcomes.py`) shows here.
"""

from __future__ import annotations

import json

import pytest

from .conftest import FIXTURES, ROOT, analyze_path, findings_of

PROGRAMS = FIXTURES / "real" / "programs"
OUTCOMES = {r["case"]: r for r in json.loads((ROOT / "benchmarks" / "programs" / "outcomes.json").read_text())}
CASES = sorted(c for c, r in OUTCOMES.items() if r["score"] and (PROGRAMS / c / "ttnn.mlir").exists())


@pytest.mark.parametrize("case", CASES)
def test_program_verdict_matches_the_device(case):
    row = OUTCOMES[case]
    a = analyze_path(PROGRAMS / case / "ttnn.mlir")
    errors = [f for f in findings_of(a) if f.severity == "error"]
    if row["outcome"] == "ran":
        assert errors == [], f"false alarm: {errors[0].message}"
    alarm = bool(errors)
    assert alarm == (row["score"] in ("true_alarm", "false_alarm")), row


def test_conv2d_whose_own_estimate_fits_is_a_warning():
    # A 3x3 64->64 conv2d on a 512x512 NHWC image ran on the device (o0).  The detailed count says the conv
    # program's CBs (958,564 B) end at 1,135,844 B, above the lowest L1 buffer at 1,128,448 B (l1_size - L1_SMALL
    # - 378,880 B of the op's halo and output buffers), while tt-metal's own estimate fits the free L1 it sized
    # the op for: a warning that says why, not an error.
    case = "conv2d_1_512_512_64_64_3_1_o0"
    assert json.loads((PROGRAMS / case / "case.json").read_text())["outcome"] == "ran"
    a = analyze_path(PROGRAMS / case / "ttnn.mlir")
    [f] = findings_of(a, "TTA010")
    assert f.severity == "warning" and f.data["check"] == "clash"
    assert f.data["cb_region_end"] == 1_135_844 and f.data["lowest_l1_buffer"] == 1_128_448
    assert "tt-metal's own L1 estimate" in f.data["unsure"] and "unsure:" in f.message
