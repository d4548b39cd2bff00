"""Host and runtime ops (ttanalyze.ops.host): traces, tensor I/O, global semaphores.

The program is written as tt-mlir's trace and tensor-I/O tests write these ops
(``test/ttmlir/Dialect/TTNN/trace/*.mlir``, ``.../debug`` @19c86fca).
"""

from __future__ import annotations

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops.host import HOST_OPS

from .conftest import findings_of

PROGRAM = """#dram = #ttnn.buffer_type<dram>
#system_memory = #ttnn.buffer_type<system_memory>
#layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>
#host_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x32xbf16, #system_memory>>
module {
  func.func @main(%arg0: tensor<32x32xbf16, #host_layout>, %arg1: tensor<32x32xbf16, #layout>) -> tensor<32x32xbf16, #layout> {
    %0 = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> : () -> !ttnn.device
    %sem = "ttnn.create_global_semaphore"(%0) <{core_range_set = #ttnn.core_range_set<[#ttnn.core_range<(0,0), (0,0)>]>, initial_value = 0 : ui32}> : (!ttnn.device) -> !ttnn.global_semaphore
    "ttnn.write_tensor"(%arg0, %arg1) <{blocking = false, cq_id = 0 : ui32}> : (tensor<32x32xbf16, #host_layout>, tensor<32x32xbf16, #layout>) -> ()
    %1 = "ttnn.begin_trace_capture"(%0) <{cq_id = 0 : ui32}> : (!ttnn.device) -> tensor<ui32, #ttnn.trace_id>
    %2 = "ttnn.relu"(%arg1) : (tensor<32x32xbf16, #layout>) -> tensor<32x32xbf16, #layout>
    "ttnn.end_trace_capture"(%0, %1) <{cq_id = 0 : ui32}> : (!ttnn.device, tensor<ui32, #ttnn.trace_id>) -> ()
    "ttnn.execute_trace"(%0, %1) <{blocking = false, cq_id = 0 : ui32}> : (!ttnn.device, tensor<ui32, #ttnn.trace_id>) -> ()
    "ttnn.reset_global_semaphore"(%sem) <{value = 0 : ui32}> : (!ttnn.global_semaphore) -> ()
    "ttnn.dump_tensor"(%2) <{file_path = "device_tensor.tensorbin"}> : (tensor<32x32xbf16, #layout>) -> ()
    %3 = "ttnn.load_tensor"(%0) <{file_path = "device_tensor.tensorbin"}> : (!ttnn.device) -> tensor<32x32xbf16, #layout>
    return %3 : tensor<32x32xbf16, #layout>
  }
}
"""


def test_host_ops_are_modeled_and_run_no_program():
    a = analyze(parse_text(PROGRAM, "host.mlir"), "blackhole")
    assert not findings_of(a, "TTA008")
    host = [op for op in a.program.ops if op.name in HOST_OPS]
    assert {op.name for op in host} == {
        "ttnn.create_global_semaphore", "ttnn.write_tensor", "ttnn.begin_trace_capture", "ttnn.end_trace_capture",
        "ttnn.execute_trace", "ttnn.reset_global_semaphore", "ttnn.dump_tensor", "ttnn.load_tensor"}
    for op in host:
        p = a.programs[op.index]
        assert p.status == "not_device" and "no device program" in p.reason, (op.name, p)


def test_host_op_attributes_are_read():
    a = analyze(parse_text(PROGRAM, "host.mlir"), "blackhole")
    assert not [f for f in findings_of(a, "TTA009") if f.data["op"] in HOST_OPS]


def test_the_replay_places_a_global_semaphore_in_l1():
    """``create_global_semaphore`` on core (0,0): tt-metal's CreateGlobalSemaphore allocates one 4-B page per core of
    its core range set in L1 (HEIGHT_SHARDED), top-down like any L1 buffer, rounded up to the allocator's block
    (``dram_alignment``: 32 B on Wormhole), and nothing frees it before the program ends."""
    from ttanalyze.memory import replay

    a = analyze(parse_text(PROGRAM, "t.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.create_global_semaphore")
    r = replay(a)
    top = a.arch.l1_size - a.arch.l1_small_size
    assert r.l1_lowest_at_op[op.index] == top - a.arch.dram_alignment
    assert r.points[op.index].l1_allocated == a.arch.dram_alignment
    last = a.program.ops[-1].index
    assert r.points[last].l1_allocated >= a.arch.dram_alignment  # still held at the end
