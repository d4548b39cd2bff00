"""The split of one module's check over processes (ttanalyze.shards): its function groups, and reports
byte-identical to the serial run's, findings, baseline, fixes, input errors and crashes included."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from benchmarks.generate import generate_groups
from ttanalyze import baseline as baseline_mod
from ttanalyze import batch, shards
from ttanalyze.cli import EXIT_INTERNAL
from ttanalyze.versions import DEFAULT_TT_METAL

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the split forks its workers")

FORMATS = ["text", "json", "sarif", "concise", "github"]


@pytest.fixture()
def forced(monkeypatch):
    """The split forced on every module of several groups (threshold 0)."""
    monkeypatch.setenv(shards.MIN_OPS_ENV, "0")


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    """A module of 8 groups: main (const-eval by load_cached, a callee) and 6 functions, findings in several."""
    path = tmp_path_factory.mktemp("shards") / "groups.mlir"
    path.write_text(generate_groups(300))
    return path


def _opts(fmt: str, **kw) -> batch.CheckOptions:
    return batch.CheckOptions(format=fmt, tt_metal=DEFAULT_TT_METAL, **kw)


def _both(path: Path, opts: batch.CheckOptions, baseline=None) -> tuple[batch.FileOutcome, batch.FileOutcome | None]:
    """(serial outcome, split outcome or None when the split fell back)."""
    split = shards.check_split(str(path), opts, baseline, 2)
    return batch.check_file(str(path), opts, baseline), split


def _same(a: batch.FileOutcome, b: batch.FileOutcome) -> None:
    assert (a.error, a.modules, a.severities, a.rules, a.suppressed, a.stale, a.notes) == \
           (b.error, b.modules, b.severities, b.rules, b.suppressed, b.stale, b.notes)
    assert a.outputs == b.outputs
    assert json.dumps(a.sarif) == json.dumps(b.sarif)


def _funcs(text: str) -> list[list[str]] | None:
    shares = shards.plan(text, 8, 0)
    return None if shares is None else sorted(sorted(s.name for s in share) for share in shares)


def test_groups_follow_symbol_references():
    text = (
        "module {\n"
        "  func.func private @ce(%a: tensor<2xf32>) -> tensor<2xf32> attributes {tt.function_type = \"const_eval\"} {\n"
        '    %0 = "ttnn.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
        "  }\n"
        "  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "    %0 = ttcore.load_cached(@ce, [%a]) : (tensor<2xf32>) -> tensor<2xf32>\n"
        "    %1 = call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32>\n"
        "  }\n"
        "  // CHECK: func.func @other names @main in a comment only\n"
        "  func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        '    %0 = "ttnn.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
        "  } loc(#loc1)\n"
        "  func.func @other(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        '    %0 = "ttnn.relu"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n'
        "  }\n"
        "}\n")
    assert _funcs(text) == [["ce", "helper", "main"], ["other"]]
    # a function named outside every function (a top-level op, an attribute): not split
    assert _funcs(text.replace("module {", "module attributes {x = @other} {")) is None
    # one group only: not split
    assert _funcs(text.replace("%a) : (tensor<2xf32>) -> tensor<2xf32>\n  }\n}", "%a) {c = @main} : (tensor<2xf32>) -> tensor<2xf32>\n  }\n}")) is None
    # a function whose end cannot be told from the text: not split
    assert _funcs(text.replace("  } loc(#loc1)\n", "")) is None


def test_share_text_keeps_every_line_where_it_was():
    text = "module {\n  func.func @a() {\n    x\n  }\n  func.func @b() {\n    y\n  } loc(#l)\n}\n"
    spans, _ = shards.function_spans(text)
    assert shards.share_text(text, [spans[1]], spans) == "module {\n\n\n\n  func.func @b() {\n    y\n  } loc(#l)\n}\n"
    assert shards.share_text(text, [spans[0]], spans) == "module {\n  func.func @a() {\n    x\n  }\n\n\n\n}\n"


def test_balanced_by_ops():
    funcs = "".join(f"  func.func @f{k}() {{\n" + '    "ttnn.relu"()\n' * n + "  }\n"
                    for k, n in enumerate([10, 1, 1, 6]))
    shares = shards.plan(f"module {{\n{funcs}}}", 2, 0)
    assert sorted(sorted(s.name for s in share) for share in shares) == [["f0"], ["f1", "f2", "f3"]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_split_is_byte_identical(program, forced, fmt):
    serial, split = _both(program, _opts(fmt, fixes=False))
    assert split is not None and serial.severities  # findings in several groups
    _same(serial, split)


def test_below_the_threshold_is_serial(program, monkeypatch):
    monkeypatch.setenv(shards.MIN_OPS_ENV, "1000000")
    assert shards.check_split(str(program), _opts("text", fixes=False), None, 2) is None


@pytest.mark.parametrize("opts", [dict(detail="ops", format="json"), dict(verbose=True),
                                  dict(with_baseline_entries=True)])
def test_options_that_need_one_analysis_are_serial(program, forced, opts):
    fmt = opts.pop("format", "text")
    assert shards.check_split(str(program), _opts(fmt, **opts), None, 2) is None


def test_fixes_listed_unevaluated_are_merged(program, forced, monkeypatch):
    """Over FIX_MAX_OPS ops the fixes are listed unevaluated: the shares list them; below it the serial run
    evaluates them on the whole program, so the split falls back."""
    assert shards.check_split(str(program), _opts("text"), None, 2) is None
    monkeypatch.setattr(batch, "FIX_MAX_OPS", 10)
    for fmt in ("text", "json", "sarif"):
        serial, split = _both(program, _opts(fmt))
        assert split is not None and any("fix 1" in o for o in serial.outputs + [json.dumps(serial.sarif)]) \
            or fmt != "text"
        _same(serial, split)


def test_baseline(program, forced, tmp_path):
    """Fingerprints count equal findings over the whole module (equal messages in several groups)."""
    opts = _opts("sarif", fixes=False)
    serial = batch.check_file(str(program), opts)
    fps = [r["partialFingerprints"][baseline_mod.FINGERPRINT_KEY] for r in serial.sarif[0]]
    assert len(set(fps)) == len(fps)
    base = tmp_path / "baseline.json"
    rel = baseline_mod.relative_path(program, tmp_path)
    base.write_text(json.dumps({"version": 1, "files": {rel: [{"fingerprint": fp} for fp in fps[1::2]] +
                                                        [{"fingerprint": "0" * 32}]}}))
    accepted = baseline_mod.load(base)
    for fmt in ("text", "json", "sarif"):
        serial, split = _both(program, _opts(fmt, fixes=False), accepted)
        assert split is not None and serial.suppressed == len(fps[1::2]) and serial.stale == 1
        _same(serial, split)


def test_input_error_in_one_group(program, forced, tmp_path, cli):
    """An error in one group: the serial run's ``file:line:col: error`` and exit status 2."""
    lines = program.read_text().split("\n")
    k = next(i for i, line in enumerate(lines) if "func.func @layers3" in line)
    lines[k + 2] = lines[k + 2].replace('"ttnn.relu"', '"ttnn.relu"(((')
    bad = tmp_path / "bad.mlir"
    bad.write_text("\n".join(lines))
    assert shards.check_split(str(bad), _opts("text", fixes=False), None, 2) is None
    serial = cli("check", "--no-cache", "-j", "1", bad)
    split = cli("check", "--no-cache", "-j", "2", bad)
    assert serial.exit_code == split.exit_code == 2
    assert serial.output == split.output and f"{bad}:{k + 3}:" in serial.output


def test_crash_in_a_child(program, forced, monkeypatch, cli):
    """A bug met while one group is analyzed (here in a forked child) is reported as the serial run reports it."""
    from ttanalyze import rules

    real = rules.run
    child = {s.name for s in shards.plan(program.read_text(), 2, 0)[1]}  # the forked child's share

    def run(a, select=None):
        if any(f.name in child for f in a.program.funcs):
            raise ZeroDivisionError("a bug in a group")
        return real(a, select)

    monkeypatch.setattr(rules, "run", run)
    with pytest.raises(ZeroDivisionError, match="a bug in a group"):
        shards.check_split(str(program), _opts("text", fixes=False), None, 2)
    serial = cli("check", "--no-cache", "--no-fixes", "-j", "1", program)
    split = cli("check", "--no-cache", "--no-fixes", "-j", "2", program)
    assert serial.exit_code == split.exit_code == EXIT_INTERNAL
    assert "internal error: ZeroDivisionError: a bug in a group" in split.output
    assert serial.output == split.output


def test_cli_split_equals_serial(program, forced, cli):
    for fmt in ("text", "json", "sarif"):
        serial = cli("check", "--no-cache", "-j", "1", "-f", fmt, program)
        split = cli("check", "--no-cache", "-j", "2", "-f", fmt, program)
        assert serial.exit_code == split.exit_code
        assert serial.output == split.output
