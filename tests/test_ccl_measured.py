"""The collectives' program models against ttnn 0.81.1 on a 1x2 mock mesh (two Blackhole chips of a P300 card):
measurements/ccl/probe.py ran each case under NO_DISPATCH graph capture (rerun: ``scripts/device-lock
.venv-ttnn/bin/python measurements/ccl/probe.py``) into measurements/ccl/results_mesh.jsonl.

The mock mesh has 2 ethernet links between its chips, which ttnn's ``get_num_links`` counts; the IR of each case
states ``num_links = 2`` (the analyzer assumes 1 link without it).  A 2-device axis is a line: the ring programs
cannot be measured here.  Each device runs the same program (one per mesh coordinate): the first is compared.
``distributed_rms_norm`` is measured in the form tt-mlir's width-shard workaround gives it (ttnn::fused_rms_minimal).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import program_of

from .conftest import ROOT

RESULTS = [json.loads(line) for line in (ROOT / "measurements" / "ccl" / "results_mesh.jsonl").read_text().splitlines()]
_RING = ROOT / "measurements" / "ccl" / "results_ring.jsonl"
RING = [json.loads(line) for line in _RING.read_text().splitlines()] if _RING.exists() else []
DT = {"bf16": "bf16", "f32": "f32", "bfp_bf8": "bfp_bf8"}
FP32_ACC = (", compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, "
            "fp32_dest_acc_en = true, packer_l1_acc = false>")


def _ty(shape, dt):
    elem = "f32" if dt == "f32" else "bf16" if dt == "bf16" else f"!ttcore.tile<32x32, {dt}>"
    rows = shape[0] * shape[1] * shape[2]
    lay = (f"#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * {shape[1] * shape[2]} + d1 * {shape[2]} + d2, d3), <1x1>, "
           f"memref<{rows // 32}x{shape[3] // 32}x!ttcore.tile<32x32, {dt}>, #dram>, <interleaved>>")
    shown = "x".join(map(str, shape)) + "x" + ("bf16" if dt == "bfp_bf8" else elem if dt != "bfp_bf8" else elem)
    return f"tensor<{shown}, {lay}>"


def _ir(r: dict, mesh: str = "1x2", ring: bool = False) -> tuple[str, str]:
    """The case as a one-op TTNN program on a ``mesh`` (its axis 1), and the op's name."""
    if r["op"] == "fused_rms_minimal":  # tt-mlir's form of distributed_rms_norm, as the probe builds it
        from .test_ccl_programs import FUSED_RMS

        return FUSED_RMS, "ttnn.distributed_rms_norm"
    shape, dt, kw = tuple(r["shape"]), r["dtype"], r["kwargs"]
    out = list(shape)
    d = kw.get("dim", 3)
    n = int(mesh.split("x")[1])
    topo = ", topology = #ttcore.topology<ring>" if ring else ""
    if r["op"] == "reduce_scatter":
        out[d] //= n
        attrs = (f"scatter_dim = {d} : si32, cluster_axis = 1 : ui32, num_links = 2 : ui32, "
                 "reduce_type = #ttcore.reduce_type<sum>" + (FP32_ACC if kw.get("fp32_acc") else "") + topo)
    elif r["op"] == "all_gather":
        out[d] *= n
        attrs = f"all_gather_dim = {d} : si32, cluster_axis = 1 : ui32, num_links = 2 : ui32" + topo
    elif r["op"] == "all_reduce":
        attrs = "cluster_axis = 1 : ui32, num_links = 2 : ui32, reduce_type = #ttcore.reduce_type<sum>" + topo
    else:
        attrs = "sender_coord = array<i64: 0, 0>, receiver_coord = array<i64: 0, 1>"
    name = f"ttnn.{r['op']}"
    text = f"""#dram = #ttnn.buffer_type<dram>
module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = {mesh}>]>}} {{
  func.func @forward(%arg0: {_ty(shape, dt)}) -> {_ty(tuple(out), dt)} {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape {mesh}>}}> : () -> !ttnn.device
    %1 = "{name}"(%arg0) <{{{attrs}}}> : ({_ty(shape, dt)}) -> {_ty(tuple(out), dt)}
    return %1 : {_ty(tuple(out), dt)}
  }}
}}
"""
    return text, name


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _model_cbs(p) -> Counter:
    return Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                        for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs)


def _device_programs(r: dict) -> list[Counter]:
    progs: dict[int, Counter] = {}
    for c in r["cbs"]:
        if not c["borrowed"]:
            progs.setdefault(c["program"], Counter())[(c["size"], _cores(c["core_ranges"]))] += 1
    return [progs[k] for k in sorted(progs)]


@pytest.mark.parametrize("r", RESULTS, ids=[r["id"] for r in RESULTS])
def test_collective_programs_match_the_mock_mesh(r):
    """Every static CB the same size on the same cores, and the DRAM intermediates the op allocates and frees."""
    assert r["error"] is None
    text, name = _ir(r)
    a = analyze(parse_text(text, "ccl.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == name)
    v = program_of(a, op, arch=MOCK)
    assert v.status == "modeled", v.reason
    device = _device_programs(r)
    if r["op"] == "point_to_point":
        # the model is the program of the device with the most CB bytes (the receiver); the other is the sender's
        [p] = v.stages
        assert _model_cbs(p) in device and len(device) == 2
    else:
        # one program per device, alike; all_reduce runs the reduce-scatter's two, then the all-gather's two
        per_device = device[::2]
        assert [_model_cbs(p) for p in v.stages] == per_device
    freed_dram = Counter(b["size"] for b in r["buffers"] if b["type"] == "DRAM" and b["freed"])
    modeled = Counter(buf.size for p in v.stages for buf in p.device_buffers if buf.buffer_type == "dram")
    assert not modeled - freed_dram, (modeled, freed_dram)
    sems = sum(1 for b in r["buffers"] if b["type"] == "L1" and b["page_size"] == 4)
    assert sems == sum(1 for p in v.stages for b in p.device_buffers if "global semaphore" in b.what)


@pytest.mark.skipif(not RING, reason="measurements/ccl/results_ring.jsonl not recorded")
@pytest.mark.parametrize("r", RING, ids=[r["id"] for r in RING])
def test_ring_programs_match_the_mock_ring(r):
    """The ring programs on a 1x4 mock mesh cabled as a ring (measurements/ccl/probe.py ring; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/ccl/probe.py ring``), the ops asking for a ring with 2 links:
    every static CB by size and cores per device program, and the DRAM intermediates.  A ring of at most 512 KiB
    without a compute config takes reduce_scatter_minimal_direct, which the model names and does not model."""
    assert r["error"] is None
    text, name = _ir(r, mesh="1x4", ring=True)
    a = analyze(parse_text(text, "ccl.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == name)
    v = program_of(a, op, arch=MOCK)
    if r["id"].endswith("/direct"):
        assert v.status != "modeled" and "reduce_scatter_minimal_direct" in v.reason
        assert all("Direct" in c["op"] for c in r["cbs"])
        return
    assert v.status == "modeled", v.reason
    device = _device_programs(r)
    per_device = device[::4]  # four devices run the same program; all_reduce: the reduce-scatter's, the all-gather's
    assert [_model_cbs(p) for p in v.stages] == per_device
    freed_dram = Counter(b["size"] for b in r["buffers"] if b["type"] == "DRAM" and b["freed"])
    modeled = Counter(buf.size for p in v.stages for buf in p.device_buffers if buf.buffer_type == "dram")
    assert not modeled - freed_dram, (modeled, freed_dram)
    sems = sum(1 for b in r["buffers"] if b["type"] == "L1" and b["page_size"] == 4)
    assert sems == sum(1 for p in v.stages for b in p.device_buffers if "global semaphore" in b.what)


_COMPOSITE = ROOT / "measurements" / "ccl" / "results_composite.jsonl"
COMPOSITE = [json.loads(line) for line in _COMPOSITE.read_text().splitlines()] if _COMPOSITE.exists() else []
_RING_COMPOSITE = ROOT / "measurements" / "ccl" / "results_ring_composite.jsonl"
RING_COMPOSITE = ([json.loads(line) for line in _RING_COMPOSITE.read_text().splitlines()]
                  if _RING_COMPOSITE.exists() else [])
_CCL_OPS = ("AllBroadcastDeviceOperation", "ReduceScatterDeviceOperation", "AllGatherDeviceOperation")


def _composite_ir(r: dict, mesh: str, ring: bool) -> tuple[str, str]:
    """A composite case (any rank, tile or row-major, measurements/ccl/probe.py composite) as a one-op program on
    ``mesh`` (its axis 1, 2 links as on the mock), and the op's name."""
    from ttanalyze.ir.emit import TensorDesc

    shape, kw = tuple(r["shape"]), r["kwargs"]
    layout = "row_major" if kw.get("layout") == "rm" else "tile"
    n = int(mesh.split("x")[1])
    d = kw.get("dim", len(shape) - 1)
    out = list(shape)
    topo = ", topology = #ttcore.topology<ring>" if ring else ""
    if r["op"] == "all_gather":
        out[d] *= n
        attrs = f"all_gather_dim = {d} : si32, cluster_axis = 1 : ui32, num_links = 2 : ui32" + topo
    elif r["op"] == "reduce_scatter":
        out[d] //= n
        attrs = (f"scatter_dim = {d} : si32, cluster_axis = 1 : ui32, num_links = 2 : ui32, "
                 "reduce_type = #ttcore.reduce_type<sum>" + (FP32_ACC if kw.get("fp32_acc") else "") + topo)
    else:
        attrs = "cluster_axis = 1 : ui32, num_links = 2 : ui32, reduce_type = #ttcore.reduce_type<sum>" + topo
    ti = TensorDesc(shape, r["dtype"], layout).type_text()
    to = TensorDesc(tuple(out), r["dtype"], layout).type_text()
    name = f"ttnn.{r['op']}"
    text = f"""module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = {mesh}>]>}} {{
  func.func @forward(%arg0: {ti}) -> {to} {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape {mesh}>}}> : () -> !ttnn.device
    %1 = "{name}"(%arg0) <{{{attrs}}}> : ({ti}) -> {to}
    return %1 : {to}
  }}
}}
"""
    return text, name


def _op_programs(r: dict, n: int) -> list[tuple[str, Counter]]:
    """The device's programs in order, by device operation; a collective's ``n`` per-device programs (alike) count
    once, the other ops run one program over the mesh."""
    progs: dict[int, tuple[str, Counter]] = {}
    for c in r["cbs"]:
        if not c["borrowed"]:
            name, cbs = progs.setdefault(c["program"], (c["op"].split("::")[-1], Counter()))
            cbs[(c["size"], _cores(c["core_ranges"]))] += 1
    out, skip = [], 0
    for k in sorted(progs):
        if skip:
            skip -= 1
            continue
        out.append(progs[k])
        if progs[k][0] in _CCL_OPS:
            skip = n - 1
    return out


def _model_l1(p) -> Counter:
    """A program's static CBs and kernel scratchpads (bytes, cores), as the capture records them."""
    cores = frozenset((x, y) for r in p.cores.ranges for x in range(r.start.x, r.end.x + 1)
                      for y in range(r.start.y, r.end.y + 1))
    return _model_cbs(p) + Counter((b, cores) for b in (p.scratchpads or ()) if b)


def _check_composite(r: dict, mesh: str, ring: bool) -> None:
    assert r["error"] is None
    text, name = _composite_ir(r, mesh, ring)
    a = analyze(parse_text(text, "ccl.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == name)
    v = program_of(a, op, arch=MOCK)
    assert v.status == "modeled", v.reason
    n = int(mesh.split("x")[1])
    device = _op_programs(r, n)
    assert [_model_l1(p) for p in v.stages] == [cbs for _, cbs in device], (
        [p.factory for p in v.stages], [name for name, _ in device])
    # the global semaphores: 4-B-per-core L1 buffers, one per semaphore the factories create
    sems = sum(1 for b in r["buffers"] if b["type"] == "L1" and b["page_size"] == 4)
    modeled = sum(1 for p in v.stages for b in p.device_buffers if "global semaphore" in b.what)
    assert modeled == sems


@pytest.mark.skipif(not COMPOSITE, reason="measurements/ccl/results_composite.jsonl not recorded")
@pytest.mark.parametrize("r", COMPOSITE, ids=[r["id"] for r in COMPOSITE])
def test_composite_paths_match_the_mock_mesh(r):
    """The composite all_gather / reduce_scatter / all_reduce paths on the 1x2 mock mesh (measurements/ccl/probe.py
    composite; rerun: ``scripts/device-lock .venv-ttnn/bin/python measurements/ccl/probe.py composite``): the
    sequence of programs, every static CB by size and cores, and the global semaphores."""
    _check_composite(r, "1x2", ring=False)


@pytest.mark.skipif(not RING_COMPOSITE, reason="measurements/ccl/results_ring_composite.jsonl not recorded")
@pytest.mark.parametrize("r", RING_COMPOSITE, ids=[r["id"] for r in RING_COMPOSITE])
def test_composite_paths_match_the_mock_ring(r):
    """The composite paths on the 1x4 mock ring (probe.py ring-composite)."""
    _check_composite(r, "1x4", ring=True)
