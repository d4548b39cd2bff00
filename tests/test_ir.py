"""Normalization to generic MLIR, attribute parsing and the program model."""

from __future__ import annotations

import pytest

from ttanalyze.errors import InputError, SourcePos
from ttanalyze.ir import attrs as A
from ttanalyze.ir.attr_grammar import AffineMapV, parse_attr_text
from ttanalyze.ir.normalize import normalize
from ttanalyze.ir.parse import parse_file, parse_text

from .conftest import FIXTURES, REAL, SEEDS, wh_module


def test_locations_are_blanked_keeping_columns():
    src = '%0 = "ttnn.relu"(%a) : (t) -> t loc("x")\n#loc1 = loc("y"(#loc2))\n'
    n = normalize(src)
    assert n.text.split("\n")[0] == '%0 = "ttnn.relu"(%a) : (t) -> t ' + " " * len('loc("x")')
    assert n.text.split("\n")[1].strip() == ""
    assert n.loc_aliases["#loc1"] == 'loc("y"(#loc2))'
    assert n.text.count("\n") == src.count("\n")


def test_loc_names_resolve_through_aliases_and_callsites():
    src = (
        '#loc5 = loc("models.py":63:20 to :31)\n#loc9 = loc("max")\n#loc12 = loc("mlp"(#loc5))\n'
        "#loc24 = loc(\"jit(mlp)/jit(relu)\"(#loc12))\n#loc27 = loc(callsite(#loc9 at #loc24))\n"
    )
    n = normalize(src)
    assert n.resolve_loc("loc(#loc27)") == "max"
    assert n.resolve_loc("loc(#loc24)") == "jit(mlp)/jit(relu)"
    assert n.resolve_loc('loc("f.py":3:4)') == "f.py:3:4"
    assert n.resolve_loc("loc(unknown)") == ""


def test_properties_become_attributes_of_the_same_length():
    src = '"ttnn.reshape"(%0) <{shape = [4 : i32]}> {x = 1} : (t) -> t\n'
    out = normalize(src).text
    assert len(out) == len(src)
    assert '{shape = [4 : i32],   x = 1}' in out


def test_custom_ops_are_rewritten_and_columns_map_back():
    src = (
        "module {\n"
        "  ttcore.device_module {\n"
        "    builtin.module {\n"
        "      ttcore.device @dev = <workerGrid = #ttcore.grid<8x8>, dramGrid = #ttcore.grid<1x12>, meshShape = 1x1, chipIds = [0]>\n"
        "      func.func private @ce() -> tensor<2xf32> {\n"
        '        %0 = "ttnn.full"() <{shape = #ttnn.shape<2>, fill_value = 1.0 : f32}> : () -> tensor<2xf32>\n'
        "        return %0 : tensor<2xf32>\n"
        "      }\n"
        "      func.func @main() -> tensor<2xf32> {\n"
        "        %0 = ttcore.load_cached(@ce, []) : () -> tensor<2xf32>\n"
        "        return %0 : tensor<2xf32>\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n"
    )
    n = normalize(src)
    assert '"ttcore.device_module"() ({' in n.text
    assert '"ttcore.device"() {sym_name = "dev", device_attr = #ttcore.device<workerGrid' in n.text
    assert '"ttcore.load_cached"() {callee = @ce}' in n.text
    # line 10 was rewritten after the op's start: columns before the rewrite are unchanged
    assert n.original_pos(10, 9) == SourcePos(10, 9)
    program = parse_text(src)
    assert [f.name for f in program.funcs] == ["ce", "main"]
    load = program.funcs[1].ops[0]
    assert load.name == "ttcore.load_cached" and load.callee == "ce"
    assert load.pos == SourcePos(10, 14)  # MLIR locates an op at its name, after "%0 = "


def test_layout_attribute_parses_to_typed_layout():
    tree = parse_attr_text(
        "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x96>, memref<4x1x!ttcore.tile<32x32, bf16>, #l1>, <width_sharded>, "
        "core_ranges = <[#ttnn.core_range<(0,0), (10,7)>, #ttnn.core_range<(0,8), (7,8)>]>>"
    )
    lay = A.build(tree, lambda name: parse_attr_text("#ttnn.buffer_type<l1>"))
    assert isinstance(lay, A.TTNNLayout)
    assert lay.grid == (1, 96) and lay.memref_shape == (4, 1)
    assert lay.buffer_type == "l1" and lay.memory_layout == "width_sharded"
    # (0,0)-(10,7) is 11 x 8 = 88 cores, (0,8)-(7,8) is 8: 96 cores
    assert lay.core_ranges.num_cores == 96
    assert isinstance(lay.element, A.TileType) and lay.element.bytes == 2048


def test_affine_maps_with_symbols_and_floordiv():
    m = parse_attr_text("(d0, d1)[s0] -> ((d0 * s0 + d1) floordiv 8, d1 mod 8)")
    assert isinstance(m, AffineMapV)
    assert len(m.dims) == 2 and len(m.syms) == 1
    assert "floor" in str(m.results[0]) and "Mod" in str(m.results[1])


def test_system_desc_and_program_configs_of_a_real_file():
    p = parse_file(FIXTURES / "real" / "transformer_ffn_o2" / "ttnn.mlir")
    chip = p.system_desc.chips[0]
    assert chip.arch == "blackhole" and chip.grid == (10, 11)
    assert chip.l1_size == 1_572_864 and chip.l1_unreserved_base == 177_280
    assert chip.num_dram_channels == 8 and chip.noc_dram_address_align_bytes == 64
    linears = [op for op in p.ops if op.name == "ttnn.linear"]
    c1, c2 = (op.attrs["matmul_program_config"] for op in linears)
    assert c1.kind == "mcast_1d" and c1.grid == (11, 9) and c1.get("in0_block_w") == 8 and c1.get("per_core_m") == 4
    assert c2.kind == "mcast_2d" and c2.grid == (8, 4) and c2.get("out_subblock_w") == 3


def test_compute_config_and_conv_attributes():
    p = parse_file(FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir")
    conv = next(op for op in p.ops if op.name == "ttnn.conv2d")
    cc = conv.attrs["compute_config"]
    assert cc.math_fidelity == "hifi4" and cc.fp32_dest_acc_en is True
    assert conv.attrs["kernel_size"] == [3, 3] and conv.attrs["padding"] == [1, 1, 1, 1]
    cfg = conv.attrs["conv2d_config"]
    assert cfg.get("weights_dtype") == "bf16"
    assert cfg.get("activation") == A.UnaryWithParam("relu")
    assert cfg.get("config_tensors_in_dram") is True


def test_conv3d_grid_and_conv2d_slice_config():
    p = parse_file(FIXTURES / "real" / "mochi_small_constpad_o0" / "ttnn.mlir")
    conv3d = next(op for op in p.ops if op.name == "ttnn.conv3d")
    assert conv3d.attrs["conv3d_config"].get("compute_with_storage_grid_size") == A.GridAttr((10, 11))
    assert conv3d.attrs["conv3d_config"].get("c_in_block") == 32
    text = (FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir").read_text().replace(
        "groups = 1 : i32,", "conv2d_slice_config = #ttnn.conv2d_slice_config<dram_width, 4>, groups = 1 : i32,", 1)
    conv = next(op for op in parse_text(text, "sliced.mlir").ops if op.name == "ttnn.conv2d")
    assert conv.attrs["conv2d_slice_config"].params == {"slice_type": "dram_width", "num_slices": 4}
    bad = text.replace("<dram_width, 4>", "<diagonal, 4>")
    with pytest.raises(InputError, match="unknown slice type 'diagonal'"):
        parse_text(bad, "bad.mlir")


def test_function_args_get_their_source_names():
    p = parse_file(FIXTURES / "real" / "mlp_o2" / "ttnn.mlir")
    assert [(a.name, a.arg_name) for a in p.funcs[0].args] == [("%arg0", "x"), ("%arg1", "w1"), ("%arg2", "b1"), ("%arg3", "w2")]
    assert p.ops[0].loc_name == "x"


def test_old_to_layout_with_layout_attribute_parses():
    p = parse_file(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    assert p.ops[0].attrs["layout"] == A.LayoutAttr("tile")


@pytest.mark.parametrize("path", REAL + SEEDS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_parses(path):
    p = parse_file(path)
    assert p.funcs and p.ops
    assert p.system_desc is not None


def test_module_without_system_desc_uses_arch_defaults():
    text = wh_module("", '    %0 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>\n    return %0 : tensor<32x32xbf16>',
                     "%arg0: tensor<32x32xbf16>", "tensor<32x32xbf16>")
    text = text.replace(" attributes {ttcore.system_desc = #system_desc}", "")
    p = parse_text(text)
    assert p.system_desc is None
    from ttanalyze.analysis import analyze
    with pytest.raises(ValueError, match="--arch"):
        analyze(p)
    assert analyze(p, "blackhole").arch.l1_unreserved_base == 177_280


def test_custom_syntax_ops_become_opaque_ops_with_results_and_operands():
    src = (
        "#l = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #ttnn.buffer_type<dram>>, <interleaved>>\n"
        "module {\n"
        "  func.func @f(%x: tensor<32x32xbf16, #l>) -> tensor<32x32xbf16, #l> {\n"
        "    %a:2 = foo.split %x {k = 1} : tensor<32x32xbf16, #l> -> (tensor<32x32xbf16, #l>, tensor<32x32xbf16, #l>)\n"
        "    foo.sink(%a#1) : tensor<32x32xbf16, #l>\n"
        '    %b = "ttnn.add"(%a#0, %x) : (tensor<32x32xbf16, #l>, tensor<32x32xbf16, #l>) -> tensor<32x32xbf16, #l>\n'
        "    return %b : tensor<32x32xbf16, #l>\n"
        "  }\n"
        "}\n"
    )
    norm = normalize(src)
    assert norm.opaque_ops == 2 and norm.text.count("\n") == src.count("\n")
    p = parse_text(src)
    split, sink, add = p.ops
    assert (split.name, split.opaque, len(split.results), [v.name for v in split.operands]) == \
        ("foo.split", "custom syntax", 2, ["%arg0"])
    assert sink.name == "foo.sink" and sink.operands == [split.results[1]] and not sink.results
    assert add.operands[0] is split.results[0]
    assert split.pos == SourcePos(4, 12)


def test_tt_dialect_attributes_are_read_as_ttcore():
    tree = parse_attr_text("#tt.tile<32x32, bfp_bf8>")
    assert A.build(tree, lambda n: None) == A.TileType(32, 32, A.DataType("bfp_bf8"))


def test_modules_of_a_log_keep_the_latest_alias_definitions():
    from ttanalyze.ir.normalize import split_modules

    mod = "module {\n  func.func @f(%x: tensor<2xf32, #a>) -> tensor<2xf32, #a> {\n    return %x : tensor<2xf32, #a>\n  }\n}\n"
    text = "#a = #ttcore.x<1>\n" + mod + "log line {\n#a = #ttcore.x<2>\n" + mod + mod
    mods = split_modules(text)
    assert [m.name for m in mods] == ["#1", "#2", "#3"]
    assert [(m.line, m.end_line) for m in mods] == [(2, 6), (9, 13), (14, 18)]
    assert "#ttcore.x<1>" in mods[0].text and "#ttcore.x<1>" not in mods[1].text
    assert "#ttcore.x<2>" in mods[2].text and "log line" not in mods[1].text


def test_verbose_dialect_attribute_with_several_parameters():
    # tt-xla argument attributes (public dumps of 2026): #ttcore<mnemonic k = v, k = v>
    args = ('%arg0: tensor<32x32xbf16> {ttcore.runtime_tensor_sharding = #ttcore<runtime_tensor_sharding '
            'shard_status = <unsharded>, local_shape = tensor<32x32xbf16>>}')
    body = '%0 = "ttnn.relu"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>\n    return %0 : tensor<32x32xbf16>'
    program = parse_text(wh_module("", body, args, "tensor<32x32xbf16>"))
    assert [op.name for op in program.ops] == ["ttnn.relu"]


_LOC_FUNC = """module {{
  func.func @f(%arg0: tensor<32x32xbf16> loc({arg})) -> tensor<32x32xbf16> {{
    return %arg0 : tensor<32x32xbf16> loc({ret})
  }} loc(#loc1)
}} loc(#loc1)
{aliases}
"""


@pytest.mark.parametrize("arg, ret, aliases, error", [
    # valid: bare aliases resolved at the end of the file, inline names, fused and callsite forms
    ('"x"', "#loc2", '#loc1 = loc("y")\n#loc2 = loc(callsite(#loc1 at #loc1))', None),
    ('fused["a", "b":1:2]', "unknown", '#loc1 = loc("y")', None),
    # a bare alias never defined: MLIR's deferred resolution fails at the end
    ('"x"', "#loc9", '#loc1 = loc("y")', (3, 43, "operation location alias was never defined")),
    # an alias inside a fused location is not deferred: defined below, it is undefined there
    ('fused[#loc1, "x"]', "#loc1", '#loc1 = loc("y")', (2, 57, "undefined symbol alias id 'loc1'")),
    # an alias defined twice
    ('"x"', "#loc1", '#loc1 = loc("y")\n#loc1 = loc("z")', (7, 1, "redefinition of attribute alias id 'loc1'")),
    # a name with an escape or a character MLIR's lexer refuses in a string is not a plain name: MLIR decides
    ('"a\\22b"', '"y"', '#loc1 = loc("y")', None),
    ('"a\\qb"', '"y"', '#loc1 = loc("y")', (2, 48, "unknown escape in string literal")),
    ('"a\vb"', '"y"', '#loc1 = loc("y")', (2, 48, "expected '\"' in string literal")),
])
def test_locations_are_checked_as_mlir_parses_them(arg, ret, aliases, error):
    """Every location is checked by MLIR, all at once when they parse (parse._locations_parse), else one by one
    for the diagnostic's position (parse._check_locations)."""
    text = _LOC_FUNC.format(arg=arg, ret=ret, aliases=aliases)
    if error is None:
        parse_text(text)
        return
    line, col, message = error
    with pytest.raises(InputError, match="invalid location: " + message) as exc:
        parse_text(text)
    assert (exc.value.pos.line, exc.value.pos.col) == (line, col)


def test_loc_alias_lines_are_read_whole_and_checked_at_once():
    """tt-mlir's #loc alias lines (nested names, callsites, file ranges) are matched whole by normalize and
    parsed by MLIR as they are: the one-module location check (parse._locations_parse) accepts a real file,
    whose alias lines name aliases defined after them."""
    from iree.compiler import ir

    from ttanalyze.ir.parse import _locations_parse

    text = (FIXTURES / "real" / "mlp_o0" / "ttnn.mlir").read_text()
    norm = normalize(text)
    lines = text.split("\n")
    assert norm.plain_loc_aliases
    assert norm.loc_alias_lines == {i: line for i, line in enumerate(lines, 1) if line.startswith("#loc")}
    assert norm.loc_aliases["#loc23"] == 'loc("jit(mlp)/add"(#loc20))'
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = True
    assert _locations_parse(norm, ctx)
    # an alias line with a comment is left to the per-location check
    commented = normalize(text.replace('#loc9 = loc("max")', '#loc9 = loc("max") // c'))
    assert not commented.plain_loc_aliases and not _locations_parse(commented, ctx)
