"""Mesh programs (ttanalyze.mesh), CCL shape rules (ttanalyze.ops.ccl) and TTA020.

The mesh program is tt-mlir's own all_gather snippet (test/python/golden/mlir_snippets/ttnn/
ttnn_all_gather.mlir @19c86fca): tensor types are per device, 1x1x32x128 distributed over a 1x4 mesh
is 1x1x32x32 on each device, and all_gather over cluster axis 1 makes it 1x1x32x128 again.
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text
from ttanalyze.mesh import Mesh, device_scope, mesh_of, placements, shard_shape

from .conftest import findings_of, l1_overflow_module

L1 = "#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x{c}x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
HOST = "#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<32x{w}xbf16, #system_memory>>"


def program(mesh="1x4", shard_w=32, gathered=128, placement="<shard, 2 : i64>, <shard, 3 : i64>", global_w=128):
    return f"""#dram = #ttnn.buffer_type<dram>
#system_memory = #ttnn.buffer_type<system_memory>
#h = {HOST.format(w=global_w)}
#s = {L1.format(c=max(shard_w // 32, 1))}
#g = {L1.format(c=gathered // 32)}
module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = {mesh}>]>}} {{
  func.func @forward(%arg0: tensor<1x1x32x{global_w}xbf16, #h>) -> tensor<1x1x32x{gathered}xbf16, #g> {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape {mesh}>}}> : () -> !ttnn.device
    %1 = "ttnn.distribute_tensor"(%arg0, %0) <{{mapper_config = #ttnn.mesh_mapper_config<placements = [{placement}]>}}> : (tensor<1x1x32x{global_w}xbf16, #h>, !ttnn.device) -> tensor<1x1x32x{shard_w}xbf16, #s>
    %2 = "ttnn.all_gather"(%1) <{{all_gather_dim = 3 : si32, cluster_axis = 1 : ui32}}> : (tensor<1x1x32x{shard_w}xbf16, #s>) -> tensor<1x1x32x{gathered}xbf16, #g>
    return %2 : tensor<1x1x32x{gathered}xbf16, #g>
  }}
}}
"""


def run(text):
    a = analyze(parse_text(text, "mesh.mlir"), "wormhole_b0")
    return a, {op.name: a.shape_checks[op.index] for op in a.program.ops}


def test_mesh_is_read_from_the_module_and_the_device():
    a, checks = run(program())
    assert a.mesh == Mesh((1, 4), 'ttcore.meshes "mesh"') and a.mesh.devices == 4
    assert checks["ttnn.distribute_tensor"].shapes == [(1, 1, 32, 32)]  # 128 / 4 devices on axis 1
    assert checks["ttnn.all_gather"].shapes == [(1, 1, 32, 128)]  # 32 * 4
    assert not findings_of(a, "TTA007")


def test_all_gather_result_that_ignores_the_mesh_is_flagged():
    a, _ = run(program(gathered=64))
    [f] = findings_of(a, "TTA007")
    assert "1x1x32x128" in f.message and "1x1x32x64" in f.message


def test_shard_shape_and_placements():
    assert placements("#ttnn.mesh_mapper_config<placements = [<replicate>, <shard, -1 : i64>]>") == [
        ("replicate", None), ("shard", -1)]
    assert shard_shape((8, 4096), (2, 4), [("shard", 0), ("shard", 1)]) == (4, 1024)
    assert shard_shape((8, 4096), (2, 4), [("replicate", None), ("shard", 1)]) == (8, 1024)
    with pytest.raises(ValueError):
        shard_shape((8, 4096), (2, 4), [("shard", 0)])


def test_uneven_shard_is_refused_and_names_the_device():
    # 100 over 4 devices: chunks of 25, 25, 25, 25 -> fine; 102 over 4: 26, 26, 26, 24 -> Shard shape mismatch.
    a, _ = run(program(placement="<replicate>, <shard, 3 : i64>", global_w=100, shard_w=25, gathered=100))
    assert not findings_of(a, "TTA020")
    a, _ = run(program(placement="<replicate>, <shard, 3 : i64>", global_w=102, shard_w=26, gathered=104))
    [f] = findings_of(a, "TTA020")
    assert f.severity == "error" and f.data["chunks"] == [26, 26, 26, 24] and "device 3" in f.message
    # 6 over 4: chunks of 2 -> 3 chunks for 4 devices: refused on a 2D mesh
    a, _ = run(program(placement="<replicate>, <shard, 3 : i64>", global_w=6, shard_w=2, gathered=8))
    [f] = findings_of(a, "TTA020")
    assert f.severity == "error" and f.data["chunks"] == [2, 2, 2]


def test_memory_findings_name_the_mesh():
    text = l1_overflow_module().replace("module attributes {", 'module attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>, ')
    a = analyze(parse_text(text, "t.mlir"))
    [f] = findings_of(a, "TTA004")
    assert "on each of the 8 devices of mesh 2x4" in f.message and f.data["mesh"] == "2x4"
    assert device_scope(None) == "" and device_scope(Mesh((1, 1), "")) == ""


def test_single_device_program_has_no_mesh():
    a = analyze(parse_text(l1_overflow_module(), "t.mlir"))
    assert a.mesh is None and mesh_of(a.program) is None


def _reduce_program(op: str, attrs: str, out_w: int, in_w: int = 128) -> str:
    """A 1x4 mesh program running one reduce-type collective on a 1x1x32x``in_w`` per-device tensor."""
    return f"""#dram = #ttnn.buffer_type<dram>
#i = {L1.format(c=-(-in_w // 32))}
#o = {L1.format(c=-(-out_w // 32))}
module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x4>]>}} {{
  func.func @forward(%arg0: tensor<1x1x32x{in_w}xbf16, #i>) -> tensor<1x1x32x{out_w}xbf16, #o> {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape 1x4>}}> : () -> !ttnn.device
    %1 = "{op}"(%arg0) <{{{attrs}}}> : (tensor<1x1x32x{in_w}xbf16, #i>) -> tensor<1x1x32x{out_w}xbf16, #o>
    return %1 : tensor<1x1x32x{out_w}xbf16, #o>
  }}
}}
"""


@pytest.mark.parametrize("text, name, code, ring", [
    # 1x1x32x96 f32: no dim splits over 4 devices in tiles, so all_reduce runs the all-gather + local-sum composite,
    # whose float32 sum (local_sum_float32) is not modeled: costed by name
    (_reduce_program("ttnn.all_reduce", "cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>", 96,
                     96).replace("bf16", "f32"), "ttnn.all_reduce", "AllReduceAsyncDeviceOperation", None),
    (_reduce_program("ttnn.all_reduce_async", "cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>", 96,
                     96).replace("bf16", "f32"), "ttnn.all_reduce_async", "AllReduceAsyncDeviceOperation", None),
])
def test_collectives_are_costed_by_name(text, name, code, ring):
    """Collectives on a path without a program model: the cost model takes the device op cost/ir.py NAME_OP_CODES
    names, on the op's per-device tensors; the ring size comes from the gathered (scattered) dim, else the
    model says it assumed one."""
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    a, _ = run(text)
    op = next(o for o in a.program.ops if o.name == name)
    assert a.programs[op.index].status != "modeled"
    hw = hardware_of(a)
    [dop], why = device_ops(op, a, hw)
    assert why == "" and dop.op_code == code and dop.attrs["cores_assumed"]
    assert dop.attrs.get("ring_size") == ring
    cost = op_cost(op, a, hw, load_constants())
    assert cost.status == "costed" and cost.ns > 0
    assert any("ring_size not given" in n for e in cost.estimates for n in e.notes)


def _partition_program(w: int, out_w: int) -> str:
    return f"""#dram = #ttnn.buffer_type<dram>
#i = {L1.format(c=-(-w // 32))}
#o = {L1.format(c=-(-out_w // 32))}
module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x4>]>}} {{
  func.func @forward(%arg0: tensor<1x1x32x{w}xbf16, #i>) -> tensor<1x1x32x{out_w}xbf16, #o> {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape 1x4>}}> : () -> !ttnn.device
    %1 = "ttnn.mesh_partition"(%arg0) <{{dim = 3 : si32, cluster_axis = 1 : ui32}}> : (tensor<1x1x32x{w}xbf16, #i>) -> tensor<1x1x32x{out_w}xbf16, #o>
    return %1 : tensor<1x1x32x{out_w}xbf16, #o>
  }}
}}
"""


def test_mesh_partition_runs_each_devices_slice_and_names_the_worst_device():
    # tile-aligned chunks: every device runs SliceTile; 50-column chunks: device 0 starts aligned, device 1 at column
    # 50 goes through the row-major slice (untilize, slice, tilize) and holds the most CB bytes
    a, _ = run(_partition_program(128, 32))
    op = next(o for o in a.program.ops if o.name == "ttnn.mesh_partition")
    [stage] = a.programs[op.index].stages
    assert stage.factory.startswith("SliceTile") and "device 0 of the 4" in stage.notes[-1]
    a, _ = run(_partition_program(200, 50))
    op = next(o for o in a.program.ops if o.name == "ttnn.mesh_partition")
    stages = a.programs[op.index].stages
    assert [s.factory.split("ProgramFactory")[0] for s in stages][1] == "SliceRm"
    assert all("device 1 of the 4" in s.notes[-1] for s in stages)
