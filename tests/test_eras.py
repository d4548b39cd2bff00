"""TTNN files of every tt-mlir era: real files copied from tt-mlir's history (tests/data/eras/ORIGINS.md)
and a few constructed ones, each read, analyzed or refused the way docs/eras.md describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.errors import InputError
from ttanalyze.ir.parse import parse_modules, parse_text
from ttanalyze.rules import run

DATA = Path(__file__).parent / "data" / "eras"
# Inputs that are not TTNN IR, and tt-mlir's negative test (its verifier refuses it).
NOT_TTNN = {"stablehlo_input_2026_08.mlir": "StableHLO", "ttir_input_2026_08.mlir": "TTIR",
            "ttlang_ttl_kernel_2026_01.mlir": re.escape("TTL (tt-lang's kernel dialect)")}
REFUSED = {"tile_element_negative_2026_08.mlir": "differs from its layout's memref element"}


def splits(path: Path) -> list[tuple[str, str]]:
    """The ``// -----`` splits of a test file, each with the file's line numbers (earlier lines blank)."""
    text = path.read_text()
    out, start, line = [], 0, 1
    for m in list(re.finditer(r"^// -----.*$", text, re.M)) + [None]:
        end = m.start() if m else len(text)
        out.append((f"{path.name}#{len(out)}", "\n" * (line - 1) + text[start:end]))
        if m:
            line += text.count("\n", start, m.end())
            start = m.end()
    return out


CASES = [c for p in sorted(DATA.glob("*.ml*")) if p.name not in NOT_TTNN and p.name not in REFUSED
         for c in splits(p) if re.search(r"^[^/\n]*ttnn\.", c[1], re.M)]  # splits with TTNN code


def programs(name: str, split: int = 0):
    return parse_modules(dict(splits(DATA / name))[f"{name}#{split}"], name)


def findings(program, rule=None):
    return run(analyze(program, "wormhole_b0"), [rule] if rule else None)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_era_file_is_analyzed(case):
    """Each file (split) parses into at least one TTNN program, which every analysis and rule runs on."""
    name, text = case
    progs = parse_modules(text, name)
    assert progs
    for p in progs:
        findings(p)


@pytest.mark.parametrize("name,dialect", sorted(NOT_TTNN.items()))
def test_a_file_without_ttnn_says_what_it_is(name, dialect, cli):
    result = cli("check", DATA / name, "--arch", "wormhole_b0")
    assert result.exit_code == 2
    assert re.match(rf"^{re.escape(str(DATA / name))}:\d+:\d+: error: this is {dialect}, not TTNN IR: ",
                    result.stderr.strip()), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_negative_test_of_tt_mlir_is_refused_with_its_reason(cli):
    name = "tile_element_negative_2026_08.mlir"
    result = cli("check", DATA / name, "--arch", "wormhole_b0")
    assert result.exit_code == 2
    assert result.stderr.startswith(f"{DATA / name}:8:10: error: 'ttnn.add' result element type "
                                    "!ttcore.tile<32x32, bfp_bf8> differs")


# -- system_desc of every era -----------------------------------------------------------------------------------------


def test_tt_dialect_of_2025_maps_onto_ttcore():
    """tt.device_module, tt.device, #tt.system_desc (with physical_helper_cores = {dram = [...] eth_inactive = [...]},
    no dst field, no dram_grid) and !tt.tile of tt-mlir before the ttcore rename."""
    (p,) = programs("tt_dialect_physical_helper_cores_2025_06.mlir")
    chip = p.system_desc.chips[0]
    assert (chip.arch, chip.grid, chip.l1_unreserved_base, chip.num_cbs) == ("wormhole_b0", (8, 8), 97248, 32)
    assert chip.dst_physical_size_tiles == 16 and chip.dram_grid == (1, 12)
    assert [d[0] for d in chip.defaulted] == ["dst_physical_size_tiles", "dram_grid"]
    assert p.funcs[0].args[0].type.layout.element.dtype.name == "f32"
    notes = findings(p, "TTA026")
    assert [f.severity for f in notes] == ["info", "info"]
    assert "no dram_grid (written by an earlier tt-mlir): using 1x12" in notes[1].message
    assert notes[0].pos.line == 6  # the builtin.module carrying tt.system_desc


def test_tt_dialect_of_2025_05_with_physical_cores():
    (p,) = programs("tt_dialect_device_module_2025_05.mlir")
    assert p.system_desc.chips[0].l1_unreserved_base > 0
    assert [op.name for op in p.ops][:2] == ["ttnn.reshape", "ttnn.deallocate"]


def test_dst_register_size_tiles_is_the_half_sync_dst():
    text = (DATA / "dst_register_size_tiles_2025_10.mlir").read_text()
    # the test file defines its system_desc alias without attaching it: attach it as tt-mlir's output does
    (p,) = parse_modules(text.replace("module {", "module attributes {ttcore.system_desc = #system_desc} {", 1), "x")
    register = int(re.search(r"dst_register_size_tiles = (\d+)", text).group(1))
    chip = p.system_desc.chips[0]
    assert chip.dst_physical_size_tiles == 2 * register
    assert analyze(p).arch.dst_tiles == 2 * register
    assert any("dst_register_size_tiles" in f.message for f in findings(p, "TTA026"))


def test_system_desc_without_dram_grid():
    (p,) = programs("no_dram_grid_2026_03.mlir")
    chip = p.system_desc.chips[0]
    assert chip.dram_grid == (1, chip.num_dram_channels)
    assert [d[0] for d in chip.defaulted] == ["dram_grid"]


def test_system_desc_without_cpu_descs_and_the_tt_layout_encoding_of_2024_10():
    """Before tt-mlir 36175285 (2024-11-15) the system_desc had no cpu descs; before 5c1f2a9e (2024-11-17) TTNN
    tensors were encoded #tt.layout<linear, undef, <grid>, memref<..., #tt.memory_space<dram>>, interleaved>;
    the memory config was <<interleaved>, <dram>, <<64x128>>> with <none> for host tensors."""
    (p,) = programs("tt_layout_encoding_2024_10.mlir")
    chip = p.system_desc.chips[0]
    assert (chip.arch, chip.grid, chip.num_dram_channels) == ("wormhole_b0", (8, 8), 12)
    arg = p.funcs[0].args[0].type.layout
    assert (arg.buffer_type, arg.memory_layout, arg.grid) == ("system_memory", None, (1, 1))
    tiled = p.ops[1].results[0].type.layout
    assert (tiled.buffer_type, tiled.memory_layout, tiled.memref_shape) == ("dram", "interleaved", (2, 4))
    assert tiled.element.dtype.name == "f32"
    assert p.ops[-1].attrs["memory_config"].memory_layout is None  # <none>
    assert not [f for f in findings(p) if f.severity == "error"]


def test_memory_config_with_none_layout_of_2024_11():
    (p,) = programs("memory_config_none_2024_11.mlir")
    configs = [op.attrs["memory_config"] for op in p.ops if "memory_config" in op.attrs]
    assert [(c.buffer_type, c.memory_layout) for c in configs][-1] == ("system_memory", None)
    assert not [f for f in findings(p) if f.severity == "error"]


def test_tt_device_module_attribute_of_2024_12():
    """module attributes {tt.device = #device} and !tt.device<#device> values (before the tt.device op)."""
    (p,) = programs("tt_device_attribute_2024_12.mlir")
    assert p.ops[0].name == "ttnn.get_device" and "tt.device" in p.module_attrs
    assert not [f for f in findings(p) if f.severity == "error"]


def test_memory_config_with_a_shard_shape_of_2025_03():
    """#ttnn.memory_config<#dram, <<2x4>>, <interleaved>>: the shard spec held only a shape (2024-10 .. 2025-05)."""
    (p,) = programs("shard_shape_memory_config_2025_03.mlir")
    config = next(op.attrs["memory_config"] for op in p.ops if "memory_config" in op.attrs)
    assert (config.buffer_type, config.memory_layout, config.shard_spec) == ("dram", "interleaved", None)


def test_a_module_attribute_system_desc_that_is_no_system_desc(cli):
    """A hand-written test of 2025-07 names #ttnn.buffer_type<system_memory> as its system_desc: tt-mlir accepts
    it; ttanalyze reads the file with the arch given on the command line."""
    (p,) = programs("system_desc_not_a_system_desc_2025_07.mlir")
    assert p.system_desc is None and "ttcore.system_desc" in p.module_attrs
    path = DATA / "system_desc_not_a_system_desc_2025_07.mlir"
    assert cli("check", path, "--arch", "wormhole_b0").exit_code == 0
    refused = cli("check", path)
    assert refused.exit_code == 2 and "pass --arch" in refused.stderr


# -- layouts -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,mapping", [("grid_affine_map_2025_10.mlir", "(d0, d1) -> (0, d0, d1)"),
                                          ("grid_virt_to_physical_2026_03.mlir", "(d0, d1) -> (0, d0, d1)")])
def test_grid_with_core_maps(name, mapping):
    """<1x1, (d0, d1) -> (...)> (2025) and <1x1, virt_to_physical_map = ..., physical_to_virt_map = ...> (2026)."""
    (p,) = programs(name)
    mapped = [v.type.layout for f in p.funcs for op in f.ops for v in op.results
              if v.is_tensor and v.type.layout is not None and v.type.layout.grid_mapping]
    assert mapped and mapped[0].grid == (1, 1) and mapped[0].memory_layout == "block_sharded"
    assert mapping in [m.text for m in mapped[0].grid_mapping]


def test_linear_map_with_more_results_than_the_grid_rank():
    (p,) = programs("nd_linear_map_2026_08.mlir")
    lay = p.funcs[0].args[0].type.layout
    assert len(lay.linear.results) == 3 and lay.grid == (1, 1)


def test_mesh_dtypes_inline_buffer_type_and_multiline_layout():
    (p,) = programs("mesh_dtypes_inline.mlir")
    args = p.funcs[0].args
    assert [a.type.element.name for a in args] == ["bf16", "bfp_bf8", "bfp_bf4", "bfp_bf2", "u8", "u16", "u32",
                                                   "si32", "f32"]
    assert args[0].type.tensor_mesh == "mesh" and args[1].type.tensor_mesh is None
    assert p.mesh_shape("mesh") == (2, 4) == p.mesh_shape()
    assert args[4].type.layout.buffer_type == "dram" and args[4].type.layout.element.dtype.name == "u8"
    a = analyze(p, "wormhole_b0")
    # a 128x256 bfp8 tensor: 4x8 tiles of 1,088 B (tt-mlir TileType::getSizeBytes)
    assert a.infos[args[1]].physical_bytes == 32 * 1088


def test_properties_over_several_lines():
    (p,) = programs("multiline_properties_2026_08.mlir")
    assert p.ops[0].name == "ttnn.matmul" and "matmul_program_config" in p.ops[0].attrs


# -- custom syntax, mixed dialects, CPU modules, several modules ------------------------------------------------------


def test_d2m_subgraph_is_read_as_a_call_of_its_callee():
    (p,) = programs("d2m_subgraph_2026_08.mlir", 1)
    op = p.ops[0]
    assert (op.name, op.opaque, op.callee) == ("ttnn.d2m_subgraph", "", "d2m_subgraph")
    assert [v.name for v in op.operands] == ["%arg0", "%arg1", "%arg2"]
    assert op.attrs["operandSegmentSizes"] == [2, 1]
    assert op.results[0].type.shape == (64, 64)
    assert not [f for f in findings(p, "TTA008") if f.op_index == op.index]
    (note,) = [f for f in findings(p, "TTA042") if f.op_index == op.index]
    assert "analyzed as a call of @d2m_subgraph" in note.message


def test_mixed_dialect_file_keeps_its_ttnn_ops():
    (p,) = programs("mixed_d2m_ttir_2026_08.mlir")
    names = [op.name for op in p.ops]
    assert "ttnn.to_memory_config" in names and "ttir.ttnn_metal_layout_cast" in names and "d2m.empty" in names
    to_mem = [op for op in p.ops if op.name == "ttnn.to_memory_config"][-1]
    assert to_mem.operands[0].producer.name == "ttir.ttnn_metal_layout_cast"
    assert to_mem.operands[0].type.shape == (32, 32) and to_mem.pos.line == 92
    generic = next(op for op in p.ops if op.name == "d2m.generic")
    assert generic.opaque == "custom syntax" and len(generic.operands) == 8


def test_cpu_module_is_set_aside_and_reported_as_host_work():
    (p,) = programs("cpu_module_llvm.mlir")
    assert [n for n, _ in p.host_functions] == ["cpu_hoisted_const_eval_0", "cpu_hoisted_const_eval_0_helper"]
    (note,) = findings(p, "TTA028")
    assert note.pos.line == 23 and "2 functions run on the host CPU" in note.message
    assert [op.name for op in p.ops] == ["func.call", "ttnn.get_device", "ttnn.to_device", "ttnn.add"]


def test_compiler_log_with_stages_reports_each_ttnn_module_at_file_lines(cli):
    path = DATA / "compiler_log_stages.log"
    progs = parse_modules(path.read_text(), str(path))
    assert [(p.module_name, p.module_lines) for p in progs] == [("@jit_mlp", (22, 27)), ("@jit_mlp_optimized", (33, 39))]
    assert [op.pos.line for op in progs[1].ops] == [35, 36]
    assert parse_text(path.read_text()).module_name == "@jit_mlp"  # the first TTNN module
    result = cli("check", path, "--arch", "wormhole_b0", "--no-fixes")
    assert result.exit_code == 0, result.output
    lines = [ln for ln in result.stdout.splitlines() if "ops" in ln or " op," in ln]
    assert lines[0].startswith(f"{path} [module @jit_mlp, lines 22-27]: 1 op")
    assert lines[1].startswith(f"{path} [module @jit_mlp_optimized, lines 33-39]: 2 ops")


def test_log_lines_around_one_module(tmp_path):
    src = (DATA / "nd_linear_map_2026_08.mlir").read_text()
    text = "INFO compiling\n" + src + "\nINFO done {\n"
    (p,) = parse_modules(text, "log")
    assert p.ops[0].pos.line == 1 + next(i for i, ln in enumerate(src.split("\n"), 1) if '= "ttnn.' in ln)


def test_unclosed_module_in_a_log_is_an_input_error():
    with pytest.raises(InputError, match="unbalanced"):
        parse_modules("log line\nmodule {\n  func.func @f() {\n    return\n  }\nlog line\n", "x.log")


def test_conv2d_with_one_attribute_per_spatial_dim_of_2024():
    """tt-torch's published TTNN graph (2024-12): conv2d with kernel_height/kernel_width, stride_*, padding_*,
    dilation_* (tt-mlir before 12198ac9) is read as kernel_size = [3, 3] ..., not refused as a missing attribute."""
    (p,) = programs("real_tttorch_conv2d_2024_12.mlir")
    conv = next(op for op in p.ops if op.name == "ttnn.conv2d")
    assert [conv.attrs[k] for k in ("kernel_size", "stride", "padding", "dilation")] == [[3, 3], [1, 1], [1, 1], [1, 1]]
    assert "kernel_height" not in conv.attrs
    found = findings(p)
    assert not [f for f in found if f.severity == "error"]
    assert not [f for f in found if f.rule == "TTA009" and f.op_index == conv.index]


def test_chip_desc_of_2024_09_without_the_later_fields_and_empty_without_shape():
    """A dump of 2024-09 (a tt-mlir branch): the chip desc has no dram_unreserved_end, num_cbs (each gets the
    --arch default, noted TTA026); ttnn.empty takes only the device (its result type is its shape)."""
    (p,) = programs("branch_simple_generic_2024_09.mlir")
    chip = p.system_desc.chips[0]
    defaulted = {d[0]: d[1] for d in chip.defaulted}
    assert defaulted["num_cbs"] == 64 and defaulted["dram_unreserved_end"] == 1073119552
    found = findings(p)
    assert not [f for f in found if f.severity == "error"]
    assert any("has no num_cbs" in f.message for f in found if f.rule == "TTA026")


def test_operand_constraint_flags_of_2024():
    """#tt.operand_constraint<dram|l1|scalar|tile|any_device|any_device_tile>: a bit enum printed with '|'."""
    (p,) = programs("branch_operand_constraint_2026_02.mlir")
    assert p.ops[0].name == "ttnn.add"


def test_sdpa_program_config_grid_printed_bare():
    """compute_with_storage_grid_size = <11, 10> in #ttnn.sdpa_program_config (a CoreCoordAttr without mnemonic)."""
    (p,) = programs("real_falcon3_1layer_decode_2026_07.mlir")
    sdpa = [op for op in p.ops if "program_config" in op.attrs and "scaled_dot_product" in op.name]
    assert sdpa
    grid = sdpa[0].attrs["program_config"].params["compute_with_storage_grid_size"]
    assert (grid.x, grid.y) == (11, 10)
    assert not [f for f in findings(p) if f.severity == "error"]


def test_sparse_matmul_nnz_zero_of_early_2026_is_unset():
    """tt-mlir wrote nnz = 0 for "not set" until fc60ec52 (2026-05-22), whose verifier then refused 0: the
    MoE dumps of tt-xla (2026-03) carry it on every sparse_matmul and ran; it is read as absent."""
    text = """module {
  func.func @f(%a: tensor<2x4x32x2880xbf16>, %b: tensor<1x4x2880x5760xbf16>, %s: tensor<2x4x1x4xbf16>) -> tensor<2x4x1x4x32x5760xbf16> {
    %0 = "ttnn.sparse_matmul"(%a, %b, %s) <{is_input_a_sparse = false, is_input_b_sparse = true, nnz = 0 : i64}> : (tensor<2x4x32x2880xbf16>, tensor<1x4x2880x5760xbf16>, tensor<2x4x1x4xbf16>) -> tensor<2x4x1x4x32x5760xbf16>
    return %0 : tensor<2x4x1x4x32x5760xbf16>
  }
}
"""
    (p,) = parse_modules(text, "x.mlir")
    assert "nnz" not in p.ops[0].attrs
    assert not [f for f in findings(p) if "nnz" in f.message]



def test_destination_passing_output_operand_of_2024_is_the_result_buffer():
    """Before tt-mlir 7bc75fc2 (2025-02-28) concat took its result's ttnn.empty as a last operand: read as the
    result's buffer (not concatenated), the shape rule gives the declared 1x54, no error."""
    (p,) = programs("dps_output_operand_2025_02.mlir", 0)
    concat = next(op for op in p.ops if op.name == "ttnn.concat")
    empty = next(op for op in p.ops if op.name == "ttnn.empty")
    assert [v.name for v in concat.operands] == ["%arg0", "%arg1"] and concat.dps_index == 2
    assert not empty.results[0].users
    assert not [f for f in findings(p) if f.severity == "error"]


def test_an_empty_input_of_a_modern_op_is_an_input():
    """ttnn.add(%x, %scratch) with a ttnn.empty of the result's type (tt-mlir's trace tests of 2026): two operands,
    what add takes without a destination operand, so both are inputs."""
    text = """module {
  func.func @f(%arg0: tensor<1x17x32xf32>) -> tensor<1x17x32xf32> {
    %d = "ttnn.get_device"() <{mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device
    %e = "ttnn.empty"(%d) <{layout = #ttnn.layout<tile>, shape = #ttnn.shape<1x17x32>}> : (!ttnn.device) -> tensor<1x17x32xf32>
    %0 = "ttnn.add"(%arg0, %e) : (tensor<1x17x32xf32>, tensor<1x17x32xf32>) -> tensor<1x17x32xf32>
    return %0 : tensor<1x17x32xf32>
  }
}
"""
    (p,) = parse_modules(text, "x.mlir")
    add = next(op for op in p.ops if op.name == "ttnn.add")
    assert len(add.operands) == 2 and add.dps_index == -1
    assert not [f for f in findings(p) if f.severity == "error"]


def test_destination_passing_eltwise_operand_segments_lose_the_output():
    """A 2024 eltwise op's operandSegmentSizes [inputs, outputs] = [2, 1] becomes [2, 0] with its output dropped."""
    (p,) = programs("memory_config_none_2024_11.mlir")
    mul = next(op for op in p.ops if op.name == "ttnn.multiply")
    assert len(mul.operands) == 2 and mul.attrs["operandSegmentSizes"] == [2, 0]


def test_argmax_result_of_the_input_rank_without_keep_dim_keeps_the_dim():
    """tt-mlir before 4645bda6 (2026-03-19) wrote argmax 64x64 -> 64x1 with no keep_dim: read as keep_dim."""
    (p,) = programs("dps_output_operand_2025_02.mlir", 1)
    argmax = next(op for op in p.ops if op.name == "ttnn.argmax")
    assert argmax.attrs["keep_dim"] is True
    assert not [f for f in findings(p) if f.severity == "error"]
    text = dict(splits(DATA / "dps_output_operand_2025_02.mlir"))["dps_output_operand_2025_02.mlir#1"]
    text = text.replace("-> tensor<64x1xui32, #ttnn_layout1>\n    return", "-> tensor<64xui32, #ttnn_layout1>\n    return")
    (q,) = parse_modules(text.replace("return %2 : tensor<64x1x", "return %2 : tensor<64x").replace(
        "-> tensor<64x1xui32, #ttnn_layout1> {", "-> tensor<64xui32, #ttnn_layout1> {"), "x.mlir")
    assert "keep_dim" not in next(op for op in q.ops if op.name == "ttnn.argmax").attrs


def test_linear_result_is_the_matmul_broadcast_with_its_bias():
    """LinearOp::verify: a linear's result is broadcast(matmul(a, b), bias) (ttnn adds a bias of more than one tile
    row after the matmul); the matmul shape alone only with a one-tile-row bias."""
    path = DATA / "linear_bias_broadcast_2026_08.mlir"
    (p,) = parse_modules(path.read_text(), str(path))
    assert not [f for f in findings(p) if f.rule == "TTA007"]
    text = path.read_text().replace("-> tensor<1x100x4xbf16>\n", "-> tensor<100x4xbf16>\n").replace(
        "return %result : tensor<1x100x4xbf16>", "return %result : tensor<100x4xbf16>").replace(
        ") -> tensor<1x100x4xbf16> {", ") -> tensor<100x4xbf16> {")
    (q,) = parse_modules(text, "x.mlir")  # a 100-row bias is not fused: the matmul shape is refused
    assert [f.rule for f in findings(q) if f.severity == "error"] == ["TTA007"]


def test_embedding_bw_typed_as_its_weight_before_2026_08():
    """tt-mlir before 0592f226 (2026-08-13) typed embedding_bw's result as the weight (512x128), which its verifier
    required: no shape error (TTA007); tt-metal returns 1x1x512x128, which TTA012 reports."""
    (p,) = programs("embedding_bw_weight_shaped_2026_07.mlir")
    errors = [f.rule for f in findings(p) if f.severity == "error"]
    assert "TTA007" not in errors and "TTA012" in errors


def test_empty_system_desc_placeholder_is_no_chip():
    """``#tt.system_desc<>``, which tt-mlir's silicon tests fill in with a script before parsing, names no chip:
    the file is read, the chip comes from --arch."""
    (p,) = programs("system_desc_placeholder_2025_02.mlir")
    assert p.system_desc is None and "tt.system_desc" in p.module_attrs
    assert [op.name for op in p.ops] == ["ttnn.get_device", "ttnn.to_layout"]

# -- real model dumps (tenstorrent/tt-xla) ------------------------------------------------------------------------------


def test_real_dump_with_two_ttnn_modules_on_a_2x4_mesh():
    path = DATA / "real_ttxla_decode_two_modules_2026_03.mlir"
    progs = parse_modules(path.read_text(), str(path))
    assert [(p.module_name, p.module_lines) for p in progs] == [
        ("@SyncTensorsGraph.388", (95, 616)), ("@ReplicateShardedData.6", (628, 645))]
    assert all(p.mesh_shape() == (2, 4) for p in progs)
    assert len(progs[0].ops) > 300
    for p in progs:
        findings(p)


def test_real_dump_with_a_system_desc_of_several_chips():
    (p,) = programs("real_ttxla_zimage_norm2_2026_06.mlir")
    assert len(p.system_desc.chips) > 1 and p.mesh_shape() == (1, 1)
    a = analyze(p)
    assert a.arch.name == "wormhole_b0" and a.arch.l1_unreserved_base == 103776
    assert not [f for f in run(a) if f.severity == "error"]
