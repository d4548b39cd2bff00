"""The command line: output formats, exit statuses, JSON schema, explain, rules."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from .conftest import FIXTURES, REAL, SEEDS, wh_module

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "ttanalyze" / "report" / "check.schema.json").read_text())
SEED0 = FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir"
MLP = FIXTURES / "real" / "mlp_o2" / "ttnn.mlir"
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?:(?P<sev>error|warning|info)\[(?P<rule>TTA\d{3})\]|note:) (?P<msg>.+)$")


def test_check_prints_findings_and_a_summary(cli):
    result = cli("check", SEED0)
    assert result.exit_code == 0  # warnings only; --fail-on defaults to error
    lines = result.stdout.strip().splitlines()
    findings = [LINE.match(l) for l in lines[:-2]]
    assert all(findings), lines
    assert [(m["line"], m["rule"]) for m in findings if m["rule"] and m["sev"] != "info"] == [("14", "TTA003"), ("15", "TTA002"), ("15", "TTA003")]
    assert lines[-2].startswith(f"{SEED0}: 3 ops, 0 errors, 3 warnings, ")
    assert lines[-1] == "Found 0 errors, 3 warnings and 0 info in 1 file"


def test_fail_on_warning_and_never(cli):
    assert cli("check", SEED0, "--fail-on", "warning").exit_code == 1
    assert cli("check", SEED0, "--fail-on", "never").exit_code == 0
    assert cli("check", MLP, "--fail-on", "warning").exit_code == 0


def test_select_rules(cli):
    result = cli("check", SEED0, "--select", "TTA002")
    assert "TTA003" not in result.stdout and "TTA002" in result.stdout
    assert cli("check", SEED0, "--select", "TTA999").exit_code == 2


def test_verbose_table(cli):
    result = cli("check", MLP, "--verbose")
    assert "ttnn.linear" in result.stdout and "width_sharded" in result.stdout and "L1/core" in result.stdout


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_json_report_is_valid_and_complete(cli, path):
    result = cli("check", path, "--format", "json", "--detail", "ops")
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, SCHEMA)
    [f] = doc["files"]
    assert len(f["ops"]) == f["summary"]["ops"] == sum(len(fn["ops"]) for fn in f["functions"])
    brief = json.loads(cli("check", path, "--format", "json").stdout)
    jsonschema.validate(brief, SCHEMA)
    [b] = brief["files"]
    assert brief["detail"] == "findings" and "ops" not in b
    assert {k: v for k, v in f.items() if k not in ("ops", "functions")} == {k: v for k, v in b.items() if k != "functions"}
    assert [{k: v for k, v in fn.items() if k != "ops"} for fn in f["functions"]] == b["functions"]
    for op in f["ops"]:
        for r in op["results"]:
            if r.get("layout"):
                lay = r["layout"]
                assert lay["physical_volume"] >= lay["logical_volume"]
                assert lay["memref"]["ir"] and lay["strides"]


def test_json_carries_the_seed_numbers(cli):
    doc = json.loads(cli("check", SEED0, "--format", "json", "--detail", "ops").stdout)
    reshape = doc["files"][0]["ops"][2]
    res = reshape["results"][0]["layout"]
    assert res["padded_shape"] == [4, 32, 32, 6368]
    assert res["tile_grid"] == [128, 199] and res["physical_tiles"] == 25_472
    assert res["placement"]["bytes_per_bank"] == 4_347_904  # ceil(25,472 / 12) = 2,123 tiles * 2,048 B
    rules = {f["rule"] for f in doc["files"][0]["findings"] if f["severity"] != "info"}
    assert rules == {"TTA002", "TTA003"}


def test_output_file(cli, tmp_path):
    out = tmp_path / "report.json"
    assert cli("check", SEED0, "-f", "json", "-o", out).exit_code == 0
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)


def test_explain_by_line_and_by_name(cli):
    by_line = cli("explain", SEED0, "--op", "15")
    assert by_line.exit_code == 0
    text = by_line.stdout
    assert "%2 = ttnn.reshape" in text
    assert "padded     4x32x32x6368" in text and "128x199 tiles" in text
    assert "strides    d0->r0: 196608" in text
    assert "TTA002 reshape-tile-data-movement: warning" in text
    assert "TTA001 reshape-volume-mismatch: no finding" in text
    by_name = cli("explain", SEED0, "--op", "%2")
    assert by_name.stdout == text


def test_explain_json_has_operands_and_findings(cli):
    doc = json.loads(cli("explain", SEED0, "--op", "%2", "--format", "json").stdout)
    [op] = doc["ops"]
    assert op["operand_records"][0]["layout"]["physical_tiles"] == 24_576
    assert {f["rule"] for f in op["findings"] if f["severity"] != "info"} == {"TTA002", "TTA003"}


def test_explain_unknown_op(cli):
    result = cli("explain", SEED0, "--op", "99")
    assert result.exit_code == 2 and "no op starts on line 99" in result.stderr


def test_rules_command(cli):
    listing = cli("rules").stdout
    assert "TTA001" in listing and "TTA009" in listing
    one = cli("rules", "tta004").stdout
    assert "l1_size - l1_unreserved_base" in one and "L1_SMALL" in one and "Reference:" in one


def test_arch_option_for_files_without_system_desc(cli, tmp_path):
    text = wh_module("", '    %0 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>\n    return %0 : tensor<32x32xbf16>',
                     "%arg0: tensor<32x32xbf16>", "tensor<32x32xbf16>").replace(" attributes {ttcore.system_desc = #system_desc}", "")
    path = tmp_path / "nodesc.mlir"
    path.write_text(text)
    missing = cli("check", path)
    assert missing.exit_code == 2 and "--arch" in missing.stderr
    ok = cli("check", path, "--arch", "blackhole")
    assert ok.exit_code == 0 and "[blackhole]" in ok.stdout


def test_check_linter_ergonomics(cli, tmp_path):
    """Comma lists, rule names and id prefixes; --ignore; --statistics; github and concise formats; stdin;
    directories with --exclude; [tool.ttanalyze] in pyproject.toml; an absurd --l1-small-size is an input error."""
    seeds = SEED0.parent
    r = cli("check", seeds, "--select", "TTA00,cb-overflow", "--ignore", "TTA003", "--statistics", "-q", "--no-fixes")
    assert r.exit_code == 0 and "TTA003" not in r.stdout and "TTA002" in r.stdout
    assert any(l.split()[1:3] == ["TTA002", "reshape-tile-data-movement"] for l in r.stdout.splitlines()
               if l.startswith(" "))
    r = cli("check", SEED0, "--output-format", "github")
    assert r.stdout.startswith("::warning file=") and ",title=TTA003 padded-inner-dims::" in r.stdout
    r = cli("check", seeds, "--exclude", "mochi_*", "--format", "concise")
    assert "mochi" not in r.stdout and "simple_mlp_wh.mlir:24:10: error[TTA013]" in r.stdout
    assert cli("check", SEED0, "--select", "nope").exit_code == 2
    r = cli("check", SEED0, "--l1-small-size", str(2**40))
    assert r.exit_code == 2 and "leaves no L1 bank" in r.stderr
    r = cli("check", SEED0, "--arch", "blackhole", "--no-fixes")
    assert "note: --arch blackhole is not used: the file's ttcore.system_desc describes a wormhole_b0" in r.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.ttanalyze]\nignore = ["TTA003"]\nfail-on = "warning"\n')
    r = cli("check", SEED0, "--config", tmp_path / "pyproject.toml", "--no-fixes")
    assert r.exit_code == 1 and "TTA003" not in r.stdout and "Found 0 errors, 1 warning and 0 info in 1 file" in r.stdout
    (tmp_path / "pyproject.toml").write_text('[tool.ttanalyze]\nfail_on = "warning"\n')
    r = cli("check", SEED0, "--config", tmp_path / "pyproject.toml")
    assert r.exit_code == 2 and "pyproject.toml:2:1: error: unknown key tool.ttanalyze.fail_on" in r.stderr


def test_fix_diff_and_atomic_output(cli, tmp_path):
    out = tmp_path / "out.mlir"
    out.write_text("previous")
    conv = SEED0.parent.parent / "real" / "conv2d_block_o0" / "ttnn.mlir"
    r = cli("fix", conv, "--diff")
    assert r.stdout.startswith(f"--- {conv}") and "+++ " in r.stdout
    assert out.read_text() == "previous"
    r = cli("fix", conv, "-o", out)
    assert out.read_text() != "previous" and not list(tmp_path.glob(".out.mlir.*"))


def test_validate_is_inconclusive_on_an_op_without_reference_semantics(cli, tmp_path):
    from .conftest import wh_module

    layout = ("#l = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, "
              "<interleaved>>")
    body = ('    %0 = "ttnn.no_such_op"(%arg0) : (tensor<32x32xbf16, #l>) -> tensor<32x32xbf16, #l>\n'
            '    return %0 : tensor<32x32xbf16, #l>')
    path = tmp_path / "unknown.mlir"
    path.write_text(wh_module(layout, body, "%arg0: tensor<32x32xbf16, #l>", "tensor<32x32xbf16, #l>"))
    r = cli("validate", path, "--no-device")
    assert r.exit_code == 4, r.output
    assert r.stdout.rstrip().endswith(": INCONCLUSIVE") and "has no reference semantics" in r.stdout


def test_noise_thresholds_are_configurable(cli, tmp_path):
    """TTA002/TTA003 thresholds from [tool.ttanalyze.thresholds]: raising them silences the seed's findings."""
    r = cli("check", SEED0, "--no-fixes", "-q")
    assert "[TTA002]" in r.stdout and "[TTA003]" in r.stdout
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text('[tool.ttanalyze.thresholds]\n"TTA002.min-tiles" = 1e9\n"TTA003.min-pct" = 99\n')
    r = cli("check", SEED0, "--no-fixes", "-q", "--config", cfg)
    assert "[TTA002]" not in r.stdout and "[TTA003]" not in r.stdout
    cfg.write_text('[tool.ttanalyze.thresholds]\n"TTA002.tiles" = 3\n')
    r = cli("check", SEED0, "--config", cfg)
    assert r.exit_code == 2 and "unknown threshold 'TTA002.tiles'" in r.stderr


def test_per_file_ignores_and_thresholds_hold_in_every_format(cli, tmp_path):
    """[tool.ttanalyze] per-file-ignores (a glob on the path) and thresholds apply to text and html alike."""
    cfg = tmp_path / "pyproject.toml"
    cfg.write_text(f'[tool.ttanalyze.per-file-ignores]\n"*/{SEED0.name}" = ["TTA003"]\n'
                   '[tool.ttanalyze.thresholds]\n"TTA002.min-tiles" = 1e9\n')
    r = cli("check", SEED0, "--no-fixes", "-q", "--config", cfg)
    assert "[TTA003]" not in r.stdout and "[TTA002]" not in r.stdout
    page = tmp_path / "report.html"
    cli("check", SEED0, "--no-fixes", "--format", "html", "--config", cfg, "-o", page)
    html = page.read_text()
    assert "TTA003" not in html.split("<script", 1)[0] and "reshape-tile-data-movement" not in html
    r = cli("check", SEED0, "--no-fixes", "--format", "html", "-o", page)
    assert "TTA003" in page.read_text()


def test_const_eval_findings_and_cost_are_marked(cli, tmp_path):
    """A finding in a const-eval function (run once) says so; `cost` totals it apart from the per-inference time."""
    from .conftest import DRAM_TILE, wh_module

    aliases = f"#a = {DRAM_TILE.format(r=2, c=4)}\n#b = {DRAM_TILE.format(r=4, c=2)}"
    body = ('    %0 = "ttnn.reshape"(%arg0) <{shape = [128 : i32, 64 : i32]}> : (tensor<64x128xbf16, #a>) -> '
            'tensor<128x64xbf16, #b>\n    return %0 : tensor<128x64xbf16, #b>')
    text = wh_module(aliases, body, "%arg0: tensor<64x128xbf16, #a>", "tensor<128x64xbf16, #b>")
    once = text.replace("func.func @main(%arg0: tensor<64x128xbf16, #a>) -> (tensor<128x64xbf16, #b>) {",
                        "func.func @main_const_eval_0(%arg0: tensor<64x128xbf16, #a>) -> (tensor<128x64xbf16, #b>) "
                        'attributes {tt.function_type = "const_eval"} {')
    assert once != text
    path = tmp_path / "const_eval.mlir"
    path.write_text(once)
    r = cli("check", path, "--no-fixes")
    assert "warning[TTA002]" in r.stdout and "in const-eval function @main_const_eval_0: it runs once" in r.stdout
    r = cli("cost", path)
    assert "of which const-eval (runs once, when the weights are prepared):" in r.stdout
    d = json.loads(cli("cost", path, "--format", "json").stdout)["program"]
    assert d["const_eval_ns"] == d["total_ns"] > 0 and d["per_inference_ns"] == 0
