"""User-kernel ops (ttanalyze.ops.generic): ``ttnn.generic`` from its program descriptor, ``ttnn.tt_lang_op`` from
its kernel artifact, ``ttnn.d2m_subgraph`` as a call of its callee.

The files under tests/data/generic/ are tt-mlir's own tests (ORIGINS.md); every expected figure is derived by hand
from the descriptor in the file: a CB takes ``total_size`` bytes on each core of its core ranges unless a tensor's
buffer backs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.kernel_program import GenericProgram, MeshGenericProgram
from ttanalyze.ir.parse import parse_modules, parse_text

from .conftest import findings_of

DATA = Path(__file__).parent / "data" / "generic"


def _analysis(name: str, arch: str = "wormhole_b0", module: int = 0):
    text = (DATA / name).read_text()
    return analyze(parse_modules(text, name)[module], arch)


def _op(a, name: str, nth: int = 0):
    return [op for op in a.program.ops if op.name == name][nth]


def test_generic_op_cbs_come_from_its_descriptor():
    a = _analysis("generic_op_2026_08.mlir")
    op = _op(a, "ttnn.generic")
    program = op.attrs["program"]
    assert isinstance(program, GenericProgram)
    assert [(k.kind, k.name) for k in program.kernels] == [
        ("read_kernel", "@read_kernel"), ("compute_kernel", "@compute_kernel"), ("write_kernel", "@write_kernel")]
    assert program.kernels[0].tensor_args == (0,) and program.kernels[2].tensor_args == (1,)
    prog = a.programs[op.index]
    assert prog.status == "modeled"
    (stage,) = prog.stages
    # #in_cb and #out_cb: total_size 4096 = one 4096-B f32 page each, on core (0,0) -> 8,192 B per core
    assert [(cb.index, cb.page_bytes, cb.pages, cb.globally_allocated) for cb in stage.cbs] == [
        (0, 4096, 1, False), (1, 4096, 1, False)]
    assert stage.busiest_core() == ((0, 0), 8192)
    assert a.memory.points[op.index].cb_per_core == 8192
    (note,) = findings_of(a, "TTA042")
    assert "8,192 B of static CBs per core" in note.message and "not modeled" in note.message
    assert not findings_of(a, "TTA008") and not findings_of(a, "TTA009") and not findings_of(a, "TTA011")


def test_kernel_functions_are_not_analyzed_as_ttnn():
    a = _analysis("generic_op_2026_08.mlir")
    kernels = [f for f in a.program.funcs if f.kind == "kernel"]
    assert sorted(f.name for f in kernels) == ["compute_kernel", "read_kernel", "write_kernel"]
    assert all(not f.ops for f in kernels)
    assert [op.name for op in a.program.ops] == [
        "ttnn.get_device", "ttnn.to_memory_config", "ttnn.empty", "ttnn.generic", "ttnn.to_memory_config"]


def test_generic_op_of_2025_09_reads_the_same():
    a = _analysis("generic_op_2025_09.mlir")
    op = _op(a, "ttnn.generic")
    assert "operandSegmentSizes" not in op.attrs
    (stage,) = a.programs[op.index].stages
    assert stage.busiest_core() == ((0, 0), 8192)


def test_cb_in_a_tensors_buffer_takes_no_l1_and_d2m_subgraph_is_a_call():
    a = _analysis("collapse_d2m_2026_08.mlir")
    call = _op(a, "ttnn.d2m_subgraph")
    assert call.callee == "d2m_subgraph_0" and call.opaque == ""
    assert a.programs[call.index].status == "not_device"
    op = _op(a, "ttnn.generic")
    (stage,) = a.programs[op.index].stages
    # cbs = [<total_size = 4096, ..., buffer = kernel_cb_global_buffer_address_of_tensor<0>>]: the CB lives in
    # %input's L1 shard (one 32x32 f32 tile = 4,096 B per bank), so the static CB region is empty
    (cb,) = stage.cbs
    assert cb.globally_allocated and cb.bytes == 4096 and stage.per_core_bytes() == 0
    notes = {f.op_index: f.message for f in findings_of(a, "TTA042")}
    assert "analyzed as a call of @d2m_subgraph_0 (3 ops" in notes[call.index]
    assert not findings_of(a, "TTA018")
    # the callee runs in place: its ttnn.empty result is the call's result in the allocator replay
    assert a.allocation is not None and not a.allocation.failures


def test_tt_lang_op_cbs_come_from_its_kernel_artifact():
    a = _analysis("tt_lang_op_pipe_resources_2026_08.mlir")
    op = _op(a, "ttnn.tt_lang_op")
    (stage,) = a.programs[op.index].stages
    # cb_configs: three CBs of total_size 8192 (two 4096-B Float32 pages) on core_range (0,0)-(0,0)
    assert [(cb.index, cb.page_bytes, cb.pages) for cb in stage.cbs] == [(0, 4096, 2), (1, 4096, 2), (2, 4096, 2)]
    assert stage.busiest_core() == ((0, 0), 24576)
    # pipe_sram_scratch_bytes 128 -> align_up(128, 32) = 128 B per core of L1 scratch tensor
    assert stage.l1_buffers_per_core == 128
    assert any("2 pipe semaphore(s)" in n for n in stage.notes)


def test_tt_lang_op_without_a_resolved_artifact_is_not_modeled():
    a = _analysis("tt_lang_op_prebaked_2026_08.mlir")
    op = _op(a, "ttnn.tt_lang_op")
    prog = a.programs[op.index]
    assert prog.status == "out_of_scope" and "kernel_artifact" in prog.reason
    (note,) = findings_of(a, "TTA042")
    assert "not known" in note.message


# -- descriptors written by hand after each era's TableGen assemblyFormat ---------------------------------------

LAYOUTS = """#l1 = #ttnn.buffer_type<l1>
#dram = #ttnn.buffer_type<dram>
#sharded = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x1x!ttcore.tile<32x32, bf16>, #l1>, <height_sharded>, core_ranges = #ttnn.core_range_set<[#ttnn.core_range<(0,0), (0,0)>]>>
#in_dram = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<2x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
"""


def _generic(program: str, arch: str = "blackhole"):
    text = LAYOUTS + f"""module {{
  func.func @main(%a: tensor<64x32xbf16, #sharded>, %b: tensor<64x32xbf16, #in_dram>, %out: tensor<64x32xbf16, #sharded>) -> tensor<64x32xbf16, #sharded> {{
    "ttnn.generic"(%a, %b, %out) <{{program = {program}, operandSegmentSizes = array<i32: 3, 0>}}> : (tensor<64x32xbf16, #sharded>, tensor<64x32xbf16, #in_dram>, tensor<64x32xbf16, #sharded>) -> ()
    return %out : tensor<64x32xbf16, #sharded>
  }}
}}
"""
    a = analyze(parse_text(text, "generic.mlir"), arch)
    return a, _op(a, "ttnn.generic")


def _cb(total: int, ranges: str, index: int, page: int = 2048, buffer: str = "") -> str:
    return (f"#ttnn.kernel_cb<total_size = {total}, core_ranges = #ttnn.core_range_set<[{ranges}]>, formats = "
            f"[#ttnn.kernel_cb_format<buffer_index = {index}, dtype = bf16, page_size = {page}>]{buffer}>")


def _program(*cbs: str, kernel_cores: str = "#ttnn.core_range<(0,0), (7,7)>") -> str:
    kernel = (f"#ttnn.read_kernel<symbol_ref = @k, core_ranges = #ttnn.core_range_set<[{kernel_cores}]>, "
              "ct_args = [], common_rt_args = [], rt_args = []>")
    return f"#ttnn.program<kernels = [{kernel}], cbs = [{', '.join(cbs)}], semaphores = []>"


R88 = "#ttnn.core_range<(0,0), (7,7)>"


def test_cbs_on_overlapping_core_ranges_add_up_on_the_shared_cores():
    a, op = _generic(_program(_cb(8192, R88, 0), _cb(6144, "#ttnn.core_range<(2,2), (3,5)>", 1),
                              _cb(2048, "#ttnn.core_range<(6,0), (7,1)>", 1)))
    (stage,) = a.programs[op.index].stages
    # core (2,2): 8,192 + 6,144; the c_1 on (6,0)-(7,1) shares no core with the other c_1
    assert stage.busiest_core() == ((2, 2), 14336)


def test_descriptor_refusals_are_tt_metals():
    a, op = _generic(_program(_cb(2048 * 3 + 32, R88, 0)))
    assert a.programs[op.index].status == "rejected"
    (f,) = findings_of(a, "TTA013")
    assert "Total circular buffer size 6176 B must be divisible by page size 2048 B" in f.message
    a, op = _generic(_program(_cb(4096, R88, 3), _cb(2048, "#ttnn.core_range<(7,7), (8,8)>", 3)))
    assert "Cannot add circular buffer at index 3, another circular buffer already exists" in a.programs[op.index].reason
    # a CB in %a's buffer: %a holds 2 bf16 tiles = 4,096 B in its one bank
    buffer = ", buffer = #ttnn.kernel_cb_global_buffer_address_of_tensor<0>"
    a, op = _generic(_program(_cb(4096, "#ttnn.core_range<(0,0), (0,0)>", 0, buffer=buffer)))
    assert a.programs[op.index].status == "modeled"
    a, op = _generic(_program(_cb(8192, "#ttnn.core_range<(0,0), (0,0)>", 0, buffer=buffer)))
    assert ("Cannot set circular buffer size to 8192. This is larger than the associated dynamically allocated L1 "
            "buffer bank size of 4096 B") in a.programs[op.index].reason
    a, op = _generic(_program(_cb(4096, "#ttnn.core_range<(0,0), (0,0)>", 0, buffer=buffer.replace("<0>", "<1>"))))
    assert "Only L1 buffers can have an associated circular buffer" in a.programs[op.index].reason


def test_descriptor_cbs_beyond_l1_are_tta010():
    # Blackhole (--arch blackhole): l1_unreserved_base 177,280 + 700 pages x 2,048 B = 1,610,880 B > l1_size 1,572,864 B
    a, op = _generic(_program(_cb(2048 * 700, R88, 0)))
    (f,) = findings_of(a, "TTA010")
    assert f.severity == "error" and "core range [(0,0)-(7,7)] grow to 1,610,880 B" in f.message


def test_first_era_core_range_spelling():
    # tt-mlir adf6a202 (2025-09-05): kernel_cb<total_size, core_range = #ttnn.core_range<...>, formats = [...]>
    program = ("#ttnn.program<kernels = [#ttnn.read_kernel<symbol_ref = @k, core_range = #ttnn.core_range<(0,0), (1,1)>, "
               "ct_args = [], common_rt_args = []>], cbs = [#ttnn.kernel_cb<total_size = 4096, core_range = "
               "#ttnn.core_range<(0,0), (1,1)>, formats = [#ttnn.kernel_cb_format<buffer_index = 0, dtype = bf16, "
               "page_size = 2048>]>], semaphores = [#ttnn.kernel_semaphore<core_type = worker, core_range = "
               "#ttnn.core_range<(0,0), (1,1)>, initial_value = 0>]>")
    a, op = _generic(program)
    (stage,) = a.programs[op.index].stages
    assert stage.cores.num_cores == 4 and stage.busiest_core() == ((0, 0), 4096)
    assert op.attrs["program"].semaphores[0].id is None


def test_mesh_program_descriptor_gives_one_program_per_mesh_range():
    p1, p2 = _program(_cb(4096, R88, 0)), _program(_cb(8192, R88, 0))
    program = (f"#ttnn.mesh_program_descriptor<[#ttnn.mesh_program<range = #ttnn.mesh_range<(0,0), (0,0)>, program = {p1}>, "
               f"#ttnn.mesh_program<range = #ttnn.mesh_range<(0,1), (0,1)>, program = {p2}>], fabric_connection_config = "
               "#ttcore.fabric_connection_config<noc_index = noc0, topology = linear, cluster_axis = 1, routing_mode = "
               "unidirectional, num_links = 1>>")
    a, op = _generic(program)
    assert isinstance(op.attrs["program"], MeshGenericProgram)
    stages = a.programs[op.index].stages
    assert [s.per_core_bytes() for s in stages] == [4096, 8192]
    assert "mesh range" in stages[1].factory and a.memory.points[op.index].cb_per_core == 8192


D2M_CALLEE = """#l1 = #ttnn.buffer_type<l1>
#layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #l1>, <block_sharded>, core_ranges = #ttnn.core_range_set<[#ttnn.core_range<(0, 0), (0, 0)>]>>
module {
  func.func @main(%arg0: tensor<32x32xf32, #layout>, %out: tensor<32x32xf32, #layout>) -> tensor<32x32xf32, #layout> {
    %0 = ttnn.d2m_subgraph @CALLEE
        ins(%arg0 : tensor<32x32xf32, #layout>)
        outs(%out : tensor<32x32xf32, #layout>) : tensor<32x32xf32, #layout>
    return %0 : tensor<32x32xf32, #layout>
  }
  func.func private @fn(%input: tensor<32x32xf32, #layout>) -> tensor<32x32xf32, #layout> {
    %0 = d2m.empty() : tensor<32x32xf32, #layout>
    %1 = "ttir.abs"(%input) : (tensor<32x32xf32, #layout>) -> tensor<32x32xf32, #layout>
    return %1 : tensor<32x32xf32, #layout>
  }
}
"""


def test_d2m_subgraph_whose_callee_holds_d2m_ops_stays_opaque_and_names_them():
    a = analyze(parse_text(D2M_CALLEE.replace("CALLEE", "fn"), "d2m.mlir"), "wormhole_b0")
    call = _op(a, "ttnn.d2m_subgraph")
    (note,) = [f for f in findings_of(a, "TTA042") if f.op_index == call.index]
    assert "@fn" in note.message and "stays opaque" in note.message and "d2m.empty" in note.message


def test_d2m_subgraph_of_an_undefined_function_is_refused_by_the_verifier():
    a = analyze(parse_text(D2M_CALLEE.replace("CALLEE", "missing"), "d2m.mlir"), "wormhole_b0")
    (f,) = findings_of(a, "TTA018")
    assert "Could not find D2M function '@missing'" in f.message


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.mlir")))
def test_every_copied_test_is_analyzed(name):
    for program in parse_modules((DATA / name).read_text(), name):
        a = analyze(program, "wormhole_b0")
        assert not findings_of(a, "TTA008")  # every op is known (kernel bodies are set aside)


def test_generic_verifier_bounds_checks_tensor_and_semaphore_arguments():
    def program(arg: str) -> str:
        return ("#ttnn.program<kernels = [#ttnn.read_kernel<symbol_ref = @k, core_ranges = #ttnn.core_range_set<["
                f"{R88}]>, ct_args = [], common_rt_args = [{arg}], rt_args = []>], cbs = [{_cb(2048, R88, 0)}], "
                "semaphores = []>")
    a, _ = _generic(program("#ttnn.kernel_arg_address_of_tensor<2>"))
    assert not findings_of(a, "TTA018")
    a, _ = _generic(program("#ttnn.kernel_arg_address_of_tensor<3>"))
    (f,) = findings_of(a, "TTA018")
    assert "Address of tensor at index is out of bounds" in f.message
    a, _ = _generic(program("#ttnn.kernel_arg_semaphore_at<0>"))
    (f,) = findings_of(a, "TTA018")
    assert "Semaphore at index is out of bounds" in f.message


def test_a_kernel_kind_of_a_later_tt_mlir_is_read_like_the_others():
    program = ("#ttnn.program<kernels = [#ttnn.future_kernel<symbol_ref = @k, core_ranges = #ttnn.core_range_set<["
               f"{R88}]>, ct_args = []>], cbs = [{_cb(2048, R88, 0)}], semaphores = []>")
    a, op = _generic(program)
    assert op.attrs["program"].kernels[0].kind == "future_kernel"
    assert a.programs[op.index].stages[0].per_core_bytes() == 2048


def test_tt_lang_op_results_are_its_out_operands_buffers():
    a = _analysis("tt_lang_op_pipe_resources_2026_08.mlir")
    op = _op(a, "ttnn.tt_lang_op")
    assert op.results[0].users == [] and a.program.funcs[0].returns == [op.results[0]]
    # %0 is %arg2's DRAM buffer (destination-passing style): only the three arguments' tiles are allocated
    args = sum(a.infos[v].placement.bytes_per_bank for v in a.program.funcs[0].args)
    assert a.allocation.points[op.index].dram_allocated == args == 3 * 4096
