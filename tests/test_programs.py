"""The whole-program campaign's programs (fixtures/real/programs: real compiler output, each with the
device outcome in case.json) and the scores committed in benchmarks/programs/outcomes.json.

Every program that ran must draw no error (a false alarm fails the test); every other verdict must
reproduce the committed score, so a change that turns a true alarm into a miss (or fixes a miss
without re-scoring, `benchmarks/programs/outcomes.py`) shows here.
"""

from __future__ import annotations

import json

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_file

from .conftest import FIXTURES, ROOT, findings_of

PROGRAMS = FIXTURES / "real" / "programs"
OUTCOMES = {r["case"]: r for r in json.loads((ROOT / "benchmarks" / "programs" / "outcomes.json").read_text())}
TT_METAL = "614f605f"  # the plugin's tt-metal, which ran them


def analyze_program(case: str):
    return analyze(parse_file(PROGRAMS / case / "ttnn.mlir"), tt_metal=TT_METAL)


CASES = sorted(c for c, r in OUTCOMES.items() if r["score"] and (PROGRAMS / c / "ttnn.mlir").exists())


@pytest.mark.parametrize("case", CASES)
def test_program_verdict_matches_the_device(case):
    row = OUTCOMES[case]
    a = analyze_program(case)
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
    a = analyze_program(case)
    [f] = findings_of(a, "TTA010")
    assert f.severity == "warning" and f.data["check"] == "clash"
    assert f.data["cb_region_end"] == 1_135_844 and f.data["lowest_l1_buffer"] == 1_128_448
    assert "tt-metal's own L1 estimate" in f.data["unsure"] and "unsure:" in f.message


@pytest.mark.parametrize("case, entry", [("concat1d_170000_f32_o0", 2_040_000), ("concat1d_200000_f32_o0", 2_400_000)])
def test_concat_entry_of_the_plugin_build(case, entry):
    # tt-metal 614f605f: an output row (2n f32) plus the widest input's row (n f32) = 12n B, the figure of its
    # TT_FATAL (case.json); ttnn 0.81.1 asks for the output row only (8n B), which fits L1 at n = 170,000.
    text = json.loads((PROGRAMS / case / "case.json").read_text())["run_error"]
    assert f"required DFB entry size ({entry} B)" in text
    [f] = findings_of(analyze_program(case), "TTA013")
    assert f"{entry:,} B" in f.message and "1,395,584 B" in f.message
    default = analyze(parse_file(PROGRAMS / case / "ttnn.mlir"))
    assert bool(findings_of(default, "TTA013")) == (case == "concat1d_200000_f32_o0")


def test_concat_entry_is_the_widest_input_row_not_the_last():
    # Held-out: four 1-D bf16 inputs of 172,102 and a last one of 8,605 (tt-metal 614f605f). The device asked for
    # align64(697,013 x 2) + align64(172,102 x 2) = 1,394,048 + 344,256 = 1,738,304 B (case.json); the last
    # input's row would give 1,411,264 B.
    case = "concat_1d_many_5_172102_8605_bf16_o0"
    assert "required DFB entry size (1738304 B)" in json.loads((PROGRAMS / case / "case.json").read_text())["run_error"]
    [f] = findings_of(analyze_program(case), "TTA013")
    assert "1,738,304 B" in f.message and f.severity == "error"
