"""Emitted encodings equal what the real compiler wrote."""

from __future__ import annotations

import re

import pytest

from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc, encoding_text, linear_map_text, module_text, single_op_func

from .conftest import BH_SYSTEM_DESC, FIXTURES, analyze_text


def _aliases(path):
    text = path.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"^(#ttnn_layout\d*) = (#ttnn\.ttnn_layout<.*>)$", text, re.M)}


def _canon(enc: str) -> str:
    return enc.replace("#dram", "#ttnn.buffer_type<dram>").replace("#l1", "#ttnn.buffer_type<l1>").replace(
        "#system_memory", "#ttnn.buffer_type<system_memory>")


@pytest.mark.parametrize("alias, desc", [
    ("#ttnn_layout1", TensorDesc((1, 128, 768), layout="row_major")),
    ("#ttnn_layout6", TensorDesc((1, 128, 768))),
    ("#ttnn_layout7", TensorDesc((1, 128, 768), buffer_type="l1", memory_layout="block_sharded", grid=(4, 8),
                                 core_ranges=CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(7, 3)),)))),
    ("#ttnn_layout11", TensorDesc((768,))),
    ("#ttnn_layout21", TensorDesc((1, 128, 3072), buffer_type="l1", memory_layout="interleaved", grid=(10, 11))),
])
def test_encodings_match_the_real_compiler(alias, desc):
    aliases = _aliases(FIXTURES / "real" / "transformer_ffn_o2" / "ttnn.mlir")
    assert encoding_text(desc) == _canon(aliases[alias])


def test_linear_map_of_the_seed_tensor():
    assert linear_map_text((1, 768, 4, 60, 106), True) == "(d0, d1, d2, d3, d4) -> (d0 * 196608 + d1 * 256 + d2 * 64 + d3, d4)"
    assert linear_map_text((1, 1, 1, 32), False) == "(d0, d1, d2, d3) -> (d0 + d1 + d2, d3)"


def test_single_op_module_parses_and_analyzes():
    x = TensorDesc((64, 128))
    func = single_op_func("ttnn.relu", [x], [x])
    a = analyze_text(module_text(BH_SYSTEM_DESC, func))
    assert a.program.ops[0].name == "ttnn.relu" and a.program.funcs[0].name == "main"
    assert a.infos[a.program.ops[0].results[0]].problems == ()
