"""``check --format sarif``: SARIF 2.1.0 valid against the OASIS schema, rule metadata, levels, regions on
the IR lines, fingerprints that survive line shifts, input errors as notifications; the pre-commit hook."""

from __future__ import annotations

import json
import re
from importlib import import_module
from pathlib import Path

import jsonschema
import pytest
import yaml

from ttanalyze.baseline import FINGERPRINT_KEY, fingerprints
from ttanalyze.report import sarif
from ttanalyze.rules import catalog

from .conftest import FIXTURES, REAL, ROOT, SEEDS, analyze_path, findings_of, wh_module

# tests/data/sarif-schema-2.1.0.json: OASIS SARIF 2.1.0 Errata 01, provenance in tests/data/sarif-schema.md.
SCHEMA = json.loads((Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json").read_text())
VALIDATOR_CLASS = jsonschema.validators.validator_for(SCHEMA)  # by the schema's "$schema" (Draft 4)
VALIDATOR = VALIDATOR_CLASS(SCHEMA, format_checker=VALIDATOR_CLASS.FORMAT_CHECKER)
SEED0 = FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir"
MLP_SEED = FIXTURES / "seeds" / "simple_mlp_wh.mlir"


def _validate(log: dict) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def _sarif(cli, *args, exit_code=None) -> dict:
    result = cli("check", "--format", "sarif", *args)
    if exit_code is not None:
        assert result.exit_code == exit_code, result.output
    return json.loads(result.stdout)


def test_vendored_schema_is_the_oasis_errata_schema():
    assert SCHEMA["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    assert VALIDATOR_CLASS is jsonschema.Draft4Validator
    VALIDATOR_CLASS.check_schema(SCHEMA)
    assert sarif.SARIF_SCHEMA_URI == SCHEMA["id"]


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_sarif_of_every_fixture_is_valid_and_on_the_ir_lines(cli, monkeypatch, path):
    monkeypatch.chdir(ROOT)
    log = _sarif(cli, path.relative_to(ROOT), "--fail-on", "never", exit_code=0)
    _validate(log)
    [run] = log["runs"]
    a = analyze_path(path)
    findings = findings_of(a)
    assert len(run["results"]) == len(findings)
    assert run["artifacts"][0]["location"] == {"uri": path.relative_to(ROOT).as_posix(), "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 0, "exitCodeDescription":
                                   sarif.EXIT_CODES[0], "toolExecutionNotifications": []}]
    lines = path.read_text().split("\n")
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for res, f in zip(run["results"], findings):
        assert (res["ruleId"], res["message"]["text"]) == (f.rule, f.message)
        assert rule_ids[res["ruleIndex"]] == f.rule
        assert res["level"] == {"error": "error", "warning": "warning", "info": "note"}[f.severity]
        [loc] = res["locations"]
        phys = loc["physicalLocation"]
        assert phys["artifactLocation"]["index"] == 0
        region = phys["region"]
        assert (region["startLine"], region["startColumn"]) == (f.pos.line, f.pos.col)
        if f.op_index is not None:
            op = a.program.ops[f.op_index]
            # SARIF columns are 1-based: the op's text starts at startColumn of startLine.
            text = lines[region["startLine"] - 1][region["startColumn"] - 1:]
            assert text.startswith((f'"{op.name}"', op.name) + tuple(v.name for v in op.results)), text
            [logical] = loc["logicalLocations"]
            assert logical["name"] == op.name and logical["properties"]["function"] == op.func.name
            if op.loc_name:
                assert logical["properties"]["loc"] == op.loc_name
        assert [r["physicalLocation"]["region"]["startLine"] for r in res.get("relatedLocations", [])] == \
            [n.pos.line for n in f.notes]
        assert res["properties"]["data"] == json.loads(json.dumps(f.data))
        assert re.fullmatch(r"[0-9a-f]{32}", res["partialFingerprints"][FINGERPRINT_KEY])
        assert "baselineState" not in res
    assert len({r["partialFingerprints"][FINGERPRINT_KEY] for r in run["results"]}) == len(findings)


def test_rule_metadata_comes_from_the_catalog(cli):
    log = _sarif(cli, SEED0)
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ttanalyze" and driver["version"]
    metas = catalog()
    assert [r["id"] for r in driver["rules"]] == list(metas)
    for r in driver["rules"]:
        meta = metas[r["id"]]
        assert r["name"] == meta.name
        assert r["shortDescription"]["text"] == meta.title
        assert r["fullDescription"]["text"] == meta.explanation
        assert meta.reference in r["help"]["text"] and meta.reference in r["help"]["markdown"]
        assert meta.example in r["help"]["markdown"]
        assert r["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning", "info": "note"}[meta.severity]
        assert "ttnn" in r["properties"]["tags"]
    assert {r["defaultConfiguration"]["level"] for r in driver["rules"]} == {"error", "warning", "note"}


def test_levels_of_the_seed_findings(cli, monkeypatch):
    monkeypatch.chdir(ROOT)
    log = _sarif(cli, MLP_SEED.relative_to(ROOT), SEED0.relative_to(ROOT), exit_code=1)
    _validate(log)
    got = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"], r["level"])
           for r in log["runs"][0]["results"]]
    mlp, seed0 = "fixtures/seeds/simple_mlp_wh.mlir", "fixtures/seeds/mochi_conv1_norm2_reshape_wh.mlir"
    # The text report of the same files (tests/test_cli.py, tests/test_seed_failures.py) has these lines.
    assert got == [(mlp, 22, "TTA006", "warning"), (mlp, 24, "TTA013", "error"), (mlp, 32, "TTA013", "error"),
                   (seed0, 14, "TTA003", "warning"), (seed0, 15, "TTA002", "warning"), (seed0, 15, "TTA003", "warning")]
    inv = log["runs"][0]["invocations"][0]
    assert inv["exitCode"] == 1 and inv["executionSuccessful"] is True
    assert [a["location"]["uri"] for a in log["runs"][0]["artifacts"]] == [mlp, seed0]


def test_info_findings_are_notes(cli, tmp_path):
    body = """
    %0 = "ttnn.frobnicate"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    %1 = "ttnn.relu"(%0) <{fancy = 1 : i32}> : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    return %1 : tensor<32x32xbf16>"""
    path = tmp_path / "unmodeled.mlir"
    path.write_text(wh_module("", body, "%arg0: tensor<32x32xbf16>", "tensor<32x32xbf16>"))
    log = _sarif(cli, path, "--fail-on", "info", exit_code=1)
    _validate(log)
    got = {(r["ruleId"], r["level"]) for r in log["runs"][0]["results"]}
    assert {("TTA008", "note"), ("TTA009", "note")} <= got


def _shifted_copy(path: Path, dest: Path, n: int = 1) -> Path:
    dest.write_text("// a comment line that moves every op down\n" * n + path.read_text())
    return dest


@pytest.mark.parametrize("path", [MLP_SEED, SEED0, FIXTURES / "real" / "mochi_small_constpad_o0" / "ttnn.mlir"],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fingerprints_survive_line_shifts(cli, tmp_path, path):
    original = tmp_path / "a" / "x.mlir"
    original.parent.mkdir()
    original.write_text(path.read_text())
    shifted = _shifted_copy(path, tmp_path / "b.mlir", 3)
    before = _sarif(cli, original, "--fail-on", "never")["runs"][0]["results"]
    after = _sarif(cli, shifted, "--fail-on", "never")["runs"][0]["results"]
    assert before and len(before) == len(after)
    for b, a in zip(before, after):
        assert a["partialFingerprints"] == b["partialFingerprints"]
        assert a["locations"][0]["physicalLocation"]["region"]["startLine"] == \
            b["locations"][0]["physicalLocation"]["region"]["startLine"] + 3


def test_fingerprints_tell_identical_messages_apart_and_keep_numbers():
    a = analyze_path(MLP_SEED)
    fs = findings_of(a)
    fps = fingerprints(a, fs)
    linear = [(f, fp) for f, fp in zip(fs, fps) if f.rule == "TTA013"]
    assert len(linear) == 2 and linear[0][0].message == linear[1][0].message  # fc1 and fc2: same text
    assert linear[0][1] != linear[1][1]
    # The same finding with another number in its message is another finding.
    f = fs[0]
    changed = type(f)(**{**f.__dict__, "message": f.message.replace("256x128", "256x129")})
    assert changed.message != f.message
    assert fingerprints(a, [changed]) != fingerprints(a, [f])
    # Only the findings before one decide its occurrence count: a prefix keeps its fingerprints.
    assert fingerprints(a, fs[:2]) == fps[:2]


def test_input_errors_are_tool_notifications(cli, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    bad = tmp_path / "bad.mlir"
    text = SEED0.read_text()
    bad.write_text(text.replace('"ttnn.permute"(%0)', '"ttnn.permute"(%77)'))
    line = next(i + 1 for i, l in enumerate(text.split("\n")) if '"ttnn.permute"(%0)' in l)
    good = _shifted_copy(SEED0, tmp_path / "good.mlir")
    log = _sarif(cli, "bad.mlir", "good.mlir", exit_code=2)
    _validate(log)
    [run] = log["runs"]
    [inv] = run["invocations"]
    assert inv["executionSuccessful"] is False and inv["exitCode"] == 2
    [note] = inv["toolExecutionNotifications"]
    assert note["level"] == "error" and "undeclared SSA value" in note["message"]["text"]
    phys = note["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"] == "bad.mlir" and phys["region"]["startLine"] == line
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {good.name}
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["good.mlir", "bad.mlir"]


def test_sarif_root_and_files_outside_it(cli, tmp_path):
    inside = tmp_path / "repo" / "models"
    inside.mkdir(parents=True)
    (inside / "seed.mlir").write_text(SEED0.read_text())
    log = _sarif(cli, inside / "seed.mlir", "--sarif-root", tmp_path / "repo")
    _validate(log)
    [run] = log["runs"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "models/seed.mlir"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == (tmp_path / "repo").as_uri() + "/"
    log = _sarif(cli, SEED0, "--sarif-root", tmp_path / "repo")
    _validate(log)
    loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == SEED0.as_uri() and "uriBaseId" not in loc


def test_sarif_to_an_output_file(cli, tmp_path):
    out = tmp_path / "ttanalyze.sarif"
    result = cli("check", MLP_SEED, "--format", "sarif", "-o", out)
    assert result.exit_code == 1 and result.stdout == ""
    _validate(json.loads(out.read_text()))


def test_information_uri_from_the_package_metadata(monkeypatch):
    class Meta:
        def get_all(self, name):
            return ["Homepage, https://example.org/ttanalyze"] if name == "Project-URL" else None

    monkeypatch.setattr(sarif.metadata, "metadata", lambda name: Meta())
    assert sarif.information_uri() == "https://example.org/ttanalyze"
    log = sarif.sarif_log([], [], 0)
    _validate(log)
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == "https://example.org/ttanalyze"


def test_pre_commit_hook_names_the_console_script():
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "ttanalyze-check" and hook["language"] == "python"
    assert re.search(hook["files"], "models/mlp/ttnn.mlir") and not re.search(hook["files"], "README.md")
    command, subcommand = hook["entry"].split()[:2]
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, func = scripts[command].split(":")
    assert callable(getattr(import_module(module), func))
    from ttanalyze.cli import app

    assert subcommand in {c.name or c.callback.__name__ for c in app.registered_commands}


def test_results_carry_their_ranked_fixes(cli):
    log = _sarif(cli, MLP_SEED)
    _validate(log)
    by_rule = {}
    for r in log["runs"][0]["results"]:
        by_rule.setdefault(r["ruleId"], []).append([f["id"] for f in r["properties"]["fixes"]])
    assert by_rule["TTA006"] == [["layout/rebuild-encoding", "TTA006/advice"]]
    assert by_rule["TTA013"][0][0] == "matmul/materialize-transpose" and by_rule["TTA013"][0][-1] == "TTA013/advice"
    assert "fixes" not in _sarif(cli, MLP_SEED, "--no-fixes")["runs"][0]["results"][0]["properties"]


def test_fixes_are_sarif_fixes_with_artifact_changes(cli, monkeypatch):
    """Evaluated rewrites that remove their finding are SARIF ``fixes``: the changed lines of the file as
    ``artifactChanges`` (deletedRegion + insertedContent), applied here to give the rewritten file back."""
    from ttanalyze.analysis import analyze
    from ttanalyze.fixes.catalog import suggest_all
    from ttanalyze.ir.parse import parse_file
    from ttanalyze.rules import run

    monkeypatch.chdir(ROOT)
    path = "fixtures/real/conv2d_block_o0/ttnn.mlir"
    log = json.loads(cli("check", path, "--format", "sarif").stdout)
    _validate(log)
    fixed = [r for r in log["runs"][0]["results"] if r.get("fixes")]
    assert fixed and fixed[0]["ruleId"] == "TTA002"
    fix = fixed[0]["fixes"][0]
    change = fix["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == path
    lines = (ROOT / path).read_text().splitlines(keepends=True)
    for rep in reversed(change["replacements"]):  # apply bottom-up: whole lines from startLine to endLine
        d = rep["deletedRegion"]
        lines[d["startLine"] - 1:d["endLine"] - 1] = rep["insertedContent"]["text"].splitlines(keepends=True)
    a = analyze(parse_file(ROOT / path))
    findings = run(a)
    best = next(fx for fxs in suggest_all(a.program.source, a, findings).values() for fx in fxs
                if fix["description"]["text"].startswith(fx.id + ":"))
    from ttanalyze.fixes.model import apply_rewrites

    assert "".join(lines) == apply_rewrites(a.program.source, a, [best.rewrite])
