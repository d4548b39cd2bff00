"""Malformed input: one diagnostic line with file:line:col, exit status 2, never a traceback."""

from __future__ import annotations

import re

import pytest

from .conftest import wh_module

LAYOUT = "#l = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
GOOD_BODY = '    %0 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16, #l>) -> tensor<32x32xbf16, #l>\n    return %0 : tensor<32x32xbf16, #l>'
GOOD = wh_module(LAYOUT, GOOD_BODY, "%arg0: tensor<32x32xbf16, #l>", "tensor<32x32xbf16, #l>")
GOOD_LINES = GOOD.split("\n")
RELU_LINE = next(i + 1 for i, l in enumerate(GOOD_LINES) if "ttnn.relu" in l)
LAYOUT_LINE = next(i + 1 for i, l in enumerate(GOOD_LINES) if l.startswith("#l ="))
FUNC_LINE = next(i + 1 for i, l in enumerate(GOOD_LINES) if "func.func" in l)


def _replace(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


def _retype(new_type: str) -> str:
    """The good module with every tensor of it retyped."""
    return _replace("tensor<32x32xbf16, #l>", new_type)


# (id, content (str or bytes), expected line or None, fragment of the message)
CASES = [
    ("truncated", GOOD[: GOOD.index("ttnn.relu") + 20], None, ""),
    ("unbalanced-brace", GOOD.rstrip().rstrip("}"), None, ""),
    ("undefined-type-alias", _replace("%arg0: tensor<32x32xbf16, #l>", "%arg0: tensor<32x32xbf16, #nope>"), None, "nope"),
    ("undefined-alias-in-layout", _replace("#dram>, <interleaved>", "#nodram>, <interleaved>"), LAYOUT_LINE, "undefined alias '#nodram'"),
    ("undefined-value", _replace('"ttnn.relu"(%arg0)', '"ttnn.relu"(%arg7)'), RELU_LINE, "undeclared SSA value"),
    ("bad-utf8", GOOD.encode().replace(b"ttnn.relu", b"ttnn.r\xffelu"), RELU_LINE, "UTF-8"),
    ("random-bytes", bytes((i * 73 + 11) % 256 for i in range(600)), 1, ""),
    ("nul-byte", GOOD.replace("module", "mod\x00ule", 1), None, "NUL"),
    ("unknown-attribute-syntax", _replace("(d0, d1) -> (d0, d1), <1x1>", "(d0, d1) -> (d0 $ d1, d1), <1x1>"), LAYOUT_LINE, "malformed attribute"),
    ("dim-too-large", _retype("tensor<4294967296x32xbf16, #l>"), FUNC_LINE, "2^32-1"),
    ("absurd-volume", _retype("tensor<131072x65536x65536xbf16, #l>"), FUNC_LINE, "absurd"),
    ("dynamic-dim", _retype("tensor<?x32xbf16, #l>"), FUNC_LINE, "dynamic"),
    ("empty", "", 1, "empty input"),
    ("unterminated-string", _replace('"ttnn.relu"(%arg0)', '"ttnn.relu(%arg0)'), None, ""),
    ("unclosed-properties", _replace('"ttnn.relu"(%arg0) :', '"ttnn.relu"(%arg0) <{x = 1 : i32 :'), RELU_LINE, ""),
    ("unknown-buffer-type", _replace("#dram>, <interleaved>", "#ttnn.buffer_type<hbm>>, <interleaved>"), LAYOUT_LINE, "unknown buffer type 'hbm'"),
    ("no-function", "module {\n}\n", 1, "no func.func"),
    ("bad-tile-dtype", _replace("!ttcore.tile<32x32, bf16>", "!ttcore.tile<32x32, bfp_zz>"), LAYOUT_LINE, "bfp_zz"),
    ("bad-system-desc", GOOD.replace("l1_size = 1499136, ", ""), 3, "l1_size"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed_input(case, tmp_path, cli):
    name, content, line, fragment = case
    path = tmp_path / f"{name}.mlir"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    result = cli("check", path)
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert "Traceback" not in result.output
    assert len(err.splitlines()) == 1, err
    m = re.match(rf"^{re.escape(str(path))}:(\d+):(\d+): error: (.+)$", err)
    assert m, err
    if line is not None:
        assert int(m.group(1)) == line, err
    assert fragment in m.group(3)
    assert result.stdout.strip() == ""


def test_missing_file(cli, tmp_path):
    result = cli("check", tmp_path / "nope.mlir")
    assert result.exit_code == 2
    assert re.match(r"^.*nope\.mlir:1:1: error: cannot read file", result.stderr.strip())


def test_good_module_is_clean(cli, tmp_path):
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    result = cli("check", path)
    assert result.exit_code == 0, result.output


def test_bad_file_does_not_stop_the_others(cli, tmp_path):
    good, bad = tmp_path / "good.mlir", tmp_path / "bad.mlir"
    good.write_text(GOOD)
    bad.write_text("module {")
    result = cli("check", bad, good)
    assert result.exit_code == 2
    assert f"{good}: 1 op," in result.stdout
