"""Baselines: ``check --write-baseline`` / ``--baseline``: accepted findings are suppressed (robust to line
shifts and to the working directory), only new ones are reported and decide the exit status."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from ttanalyze.baseline import FINGERPRINT_KEY

from .conftest import FIXTURES, ROOT

CHECK_SCHEMA = json.loads((ROOT / "ttanalyze" / "report" / "check.schema.json").read_text())
SEED0 = FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir"
MLP_SEED = FIXTURES / "seeds" / "simple_mlp_wh.mlir"


@pytest.fixture()
def repo(tmp_path, monkeypatch):
    """A work tree with two seed files under models/, as the current directory."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "seed0.mlir").write_text(SEED0.read_text())
    (tmp_path / "models" / "mlp.mlir").write_text(MLP_SEED.read_text())
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _prepend(path: Path, lines: int) -> None:
    path.write_text("// moved\n" * lines + path.read_text())


def test_write_baseline_accepts_every_finding(cli, repo):
    result = cli("check", "models/seed0.mlir", "models/mlp.mlir", "--write-baseline", "baseline.json")
    assert result.exit_code == 0, result.output  # simple_mlp has errors, but they are accepted now
    assert "TTA013" in result.stdout  # the report still shows them
    doc = json.loads((repo / "baseline.json").read_text())
    assert doc["version"] == 1 and doc["tool"].startswith("ttanalyze ")
    assert list(doc["files"]) == ["models/seed0.mlir", "models/mlp.mlir"]
    assert [(e["rule"], e["line"]) for e in doc["files"]["models/seed0.mlir"]] == \
        [("TTA003", 14), ("TTA002", 15), ("TTA003", 15)]
    assert [(e["rule"], e["line"]) for e in doc["files"]["models/mlp.mlir"]] == \
        [("TTA006", 22), ("TTA013", 24), ("TTA013", 32)]
    assert all(len(e["fingerprint"]) == 32 and e["message"] for es in doc["files"].values() for e in es)


def test_baseline_suppresses_accepted_findings(cli, repo):
    cli("check", "models/seed0.mlir", "models/mlp.mlir", "--write-baseline", "baseline.json")
    result = cli("check", "models/seed0.mlir", "models/mlp.mlir", "--baseline", "baseline.json",
                 "--fail-on", "warning")
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("models/seed0.mlir: 3 ops, 0 errors, 0 warnings, 0 info")
    assert lines[0].endswith("; 3 findings suppressed by baseline")
    assert lines[1].startswith("models/mlp.mlir: 16 ops, 0 errors, 0 warnings, 0 info")
    assert lines[2] == "6 findings suppressed by baseline baseline.json"


def test_baseline_matches_after_lines_shift_and_from_another_directory(cli, repo, monkeypatch):
    (repo / "ci").mkdir()
    cli("check", "models/seed0.mlir", "models/mlp.mlir", "--write-baseline", "ci/baseline.json")
    assert list(json.loads((repo / "ci" / "baseline.json").read_text())["files"]) == \
        ["../models/seed0.mlir", "../models/mlp.mlir"]  # relative to the baseline's directory
    _prepend(repo / "models" / "mlp.mlir", 5)
    monkeypatch.chdir(repo / "models")
    result = cli("check", "mlp.mlir", "seed0.mlir", "--baseline", "../ci/baseline.json")
    assert result.exit_code == 0, result.output
    assert "error[" not in result.stdout and "warning[" not in result.stdout
    assert result.stdout.strip().splitlines()[-2] == "6 findings suppressed by baseline ../ci/baseline.json"


def test_new_findings_are_reported_and_decide_the_exit_status(cli, repo):
    # Accept only TTA002; the TTA003 findings are new.
    cli("check", "models/seed0.mlir", "--select", "TTA002", "--write-baseline", "baseline.json")
    result = cli("check", "models/seed0.mlir", "--baseline", "baseline.json", "--fail-on", "warning")
    assert result.exit_code == 1
    assert "warning[TTA003]" in result.stdout and "[TTA002]" not in result.stdout
    assert "0 errors, 2 warnings" in result.stdout and "; 1 finding suppressed by baseline" in result.stdout
    # The same finding with other numbers is new: the message digest keeps the numbers.
    path = repo / "models" / "seed0.mlir"
    cli("check", path, "--write-baseline", "baseline.json")
    path.write_text(path.read_text().replace("4x32x24x6360", "4x32x12x12720"))
    result = cli("check", path, "--baseline", "baseline.json", "--fail-on", "warning")
    assert result.exit_code == 1 and "warning[TTA002]" in result.stdout and "12720" in result.stdout


def test_stale_entries_are_counted(cli, repo):
    cli("check", "models/seed0.mlir", "--write-baseline", "baseline.json")
    doc = json.loads((repo / "baseline.json").read_text())
    doc["files"]["models/seed0.mlir"].append({"fingerprint": "0" * 32, "rule": "TTA001", "line": 3, "message": "gone"})
    doc["files"]["models/other.mlir"] = [{"fingerprint": "1" * 32}]  # not analyzed in this run: not stale
    (repo / "baseline.json").write_text(json.dumps(doc))
    result = cli("check", "models/seed0.mlir", "--baseline", "baseline.json")
    assert result.stdout.strip().splitlines()[-2] == \
        "3 findings suppressed by baseline baseline.json; 1 baseline entry no longer found (fixed?)"


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ("[]", "expected a JSON object with \"version\": 1"),
    ('{"version": 2, "files": {}}', "found 2"),
    ('{"version": 1}', "\"files\" must map"),
    ('{"version": 1, "files": {"a.mlir": [{"rule": "TTA001"}]}}', "'a.mlir' must be objects with a string"),
    (b"\xff\xfe", "not JSON"),
    (None, "cannot read baseline"),
], ids=["syntax", "array", "version", "no-files", "no-fingerprint", "bytes", "missing"])
def test_malformed_baseline_is_an_input_error(cli, repo, content, fragment):
    path = repo / "baseline.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    result = cli("check", "models/seed0.mlir", "--baseline", "baseline.json")
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("baseline.json:1:1: error: ") and fragment in line, line
    assert "Traceback" not in result.output


def test_baseline_in_the_sarif_log(cli, repo):
    cli("check", "models/seed0.mlir", "--select", "TTA002", "--write-baseline", "baseline.json")
    result = cli("check", "models/seed0.mlir", "--baseline", "baseline.json", "--format", "sarif")
    full = json.loads(cli("check", "models/seed0.mlir", "--format", "sarif").stdout)["runs"][0]["results"]
    log = json.loads(result.stdout)
    [run] = log["runs"]
    # Accepted findings are left out; the others are new, with the fingerprints of the full log.
    assert [r["ruleId"] for r in run["results"]] == ["TTA003", "TTA003"]
    assert all(r["baselineState"] == "new" for r in run["results"])
    assert [r["partialFingerprints"][FINGERPRINT_KEY] for r in run["results"]] == \
        [r["partialFingerprints"][FINGERPRINT_KEY] for r in full if r["ruleId"] == "TTA003"]
    assert run["invocations"][0]["properties"]["baseline"] == {"path": "baseline.json", "suppressed": 1, "stale": 0}
    baseline = json.loads((repo / "baseline.json").read_text())
    assert {e["fingerprint"] for e in baseline["files"]["models/seed0.mlir"]} == \
        {r["partialFingerprints"][FINGERPRINT_KEY] for r in full if r["ruleId"] == "TTA002"}


def test_baseline_in_the_json_report(cli, repo):
    cli("check", "models/mlp.mlir", "--write-baseline", "baseline.json")
    result = cli("check", "models/mlp.mlir", "--baseline", "baseline.json", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, CHECK_SCHEMA)
    assert doc["baseline"] == {"path": "baseline.json", "suppressed": 3, "stale": 0}
    [f] = doc["files"]
    assert f["findings"] == [] and f["summary"]["errors"] == 0


def test_input_errors_keep_exit_status_2_with_a_baseline(cli, repo):
    cli("check", "models/seed0.mlir", "--write-baseline", "baseline.json")
    (repo / "models" / "bad.mlir").write_text("module {")
    result = cli("check", "models/seed0.mlir", "models/bad.mlir", "--baseline", "baseline.json")
    assert result.exit_code == 2 and "models/bad.mlir:" in result.stderr


def test_unwritable_baseline_is_an_input_error(cli, repo):
    result = cli("check", "models/seed0.mlir", "--write-baseline", "no/such/dir/baseline.json")
    assert result.exit_code == 2 and "cannot write baseline" in result.stderr
