"""Program models of the collectives (ttanalyze.ops.ccl_programs), against figures derived by hand from the
program factories' source (ttnn 0.81.1 = tt-metal d80d9482; the CCL ops cannot run on the single-chip mock).

Constants from the source: a fabric packet carries 4 Bfp8_b tiles = 4,352 B of payload plus a 48-B header (measured
on the 1x2 mock mesh; a 4,400-B channel buffer); a bf16 tile is 2,048 B, an f32 tile 4,096 B.
"""

from __future__ import annotations

import pytest

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text

from .conftest import findings_of

L = ("#ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * {h} + d1 * {h} + d2, d3), <1x1>, "
     "memref<{r}x{c}x!ttcore.tile<32x32, {dt}>, #dram>, <interleaved>>")


def _one_op(op: str, attrs: str, shape: tuple, out: tuple, mesh: str = "1x4", dt: str = "bf16", extra: str = "") -> str:
    def lay(s):
        return L.format(h=s[2], r=s[0] * s[1] * s[2] // 32, c=s[3] // 32, dt=dt)

    ty = lambda s: f"tensor<{'x'.join(map(str, s))}x{dt if dt != 'f32' else 'f32'}, {lay(s)}>"  # noqa: E731
    return f"""#dram = #ttnn.buffer_type<dram>
module attributes {{ttcore.meshes = #ttcore.meshes<[<"mesh" = {mesh}>]>{extra}}} {{
  func.func @forward(%arg0: {ty(shape)}) -> {ty(out)} {{
    %0 = "ttnn.get_device"() <{{mesh_shape = #ttnn<mesh_shape {mesh}>}}> : () -> !ttnn.device
    %1 = "{op}"(%arg0) <{{{attrs}}}> : ({ty(shape)}) -> {ty(out)}
    return %1 : {ty(out)}
  }}
}}
"""


def _program(text: str, arch: str, name: str):
    a = analyze(parse_text(text, "ccl.mlir"), arch)
    op = next(o for o in a.program.ops if o.name == name)
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    return a, op, prog.stages


AG = "all_gather_dim = 3 : si32, cluster_axis = 1 : ui32"


def test_all_gather_small_is_multicast_on_one_core():
    """1x1x32x32 bf16 per device over a 1x4 line: 1 input page.  Wormhole takes multicast off a ring; one worker
    for the one assumed link, core (0,0).  CB c_0: page 2,048 * (4,352 // 2,048 = 2) = 4,096 B, times the TILE
    multiplier 3 (L1 is free) = 12,288 B, 3 pages = 36,864 B.  Blackhole: 1 tile * 4 devices = 8,192 B per link,
    under the multicast ceiling min(4e6, 2048^2 * 1e6 / 2048^2) = 1e6: multicast, multiplier 4: 3 x 16,384 B."""
    _, _, [p] = _program(_one_op("ttnn.all_gather", AG, (1, 1, 32, 32), (1, 1, 32, 128)), "wormhole_b0",
                         "ttnn.all_gather")
    assert p.factory.endswith("AllGatherMulticastFactory") and p.cores.num_cores == 1
    [cb] = p.cbs
    assert (cb.index, cb.page_bytes, cb.pages, cb.bytes) == (0, 12_288, 3, 36_864)
    assert p.params == {"ring_size": 4, "num_links": 1, "topology": "line"}
    assert any("from source" in n for n in p.notes) and any("FABRIC_1D" in n for n in p.notes)
    _, _, [p] = _program(_one_op("ttnn.all_gather", AG, (1, 1, 32, 32), (1, 1, 32, 128)), "blackhole",
                         "ttnn.all_gather")
    assert p.factory.endswith("AllGatherMulticastFactory") and p.cbs[0].bytes == 3 * 16_384


def test_all_gather_large_on_blackhole_is_unicast_with_mux_cores():
    """1x1x1024x1024 bf16 per device (1,024 tiles, 2,097,152 B) over 4 devices: 8,388,608 B per link >= 1e6:
    unicast.  Output 4,096 pages * 2,048 B = 8,388,608 B per link, pages >= 1,536 B and >= 4e6 B per link:
    8 workers per direction (< 20e6), so one mux core per direction: 2 * (8 + 1) = 18 cores, row-major on the
    11-wide Blackhole grid: (0..10, 0) and (0..6, 1); the muxes are the 1st and 10th, (0,0) and (9,0); the CB
    sits on the 16 workers only."""
    _, _, [p] = _program(_one_op("ttnn.all_gather", AG, (1, 1, 1024, 1024), (1, 1, 1024, 4096)), "blackhole",
                         "ttnn.all_gather")
    assert p.factory.endswith("AllGatherUnicastFactory") and p.cores.num_cores == 18
    [cb] = p.cbs
    assert cb.cores.num_cores == 16 and cb.bytes == 3 * 16_384
    covered = {(x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
               for y in range(r.start.y, r.end.y + 1)}
    assert (0, 0) not in covered and (9, 0) not in covered and (10, 0) in covered and (6, 1) in covered


def test_all_gather_of_a_padded_gather_dim_is_the_composite():
    """1x1x16x32 bf16 gathered on dim 2 over 4 devices: 16 rows pad to 32, so ttnn runs all_broadcast (one worker,
    c_0 = 3 packets x 4,352 // 2,048 = 2 tiles = 12,288 B; 4 copies of the 2,048-B input; 2 global semaphores), then
    concat along the padded dim: each copy untilized (untilize_with_unpadding), a row-major concat, tilized back."""
    text = _one_op("ttnn.all_gather", "all_gather_dim = 2 : si32, cluster_axis = 1 : ui32", (1, 1, 16, 32),
                   (1, 1, 64, 32))
    a = analyze(parse_text(text, "ccl.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.all_gather")
    v = a.programs[op.index]
    assert v.status == "modeled"
    bcast = v.stages[0]
    assert bcast.factory.startswith("AllBroadcast") and bcast.cores.num_cores == 1
    assert [(cb.page_bytes, cb.pages) for cb in bcast.cbs] == [(2048, 6)]
    copies = [b for b in bcast.device_buffers if "copy" in b.what]
    assert [b.size for b in copies] == [2048] * 4
    assert sum("global semaphore" in b.what for b in bcast.device_buffers) == 2
    assert [p.factory.split("Program")[0].split("MultiCore")[0] for p in v.stages[1:]] == (
        ["UntilizeWithUnpadding"] * 4 + ["Concat", "TilizeWithValPadding"])


RS = "scatter_dim = 3 : si32, cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>"
RING = ", topology = #ttcore.topology<ring>"
FP32_ACC = (", compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, "
            "fp32_dest_acc_en = true, packer_l1_acc = false>")


def _rs(shape, out, attrs=RS, arch="wormhole_b0", mesh="1x4", dt="bf16"):
    return _program(_one_op("ttnn.reduce_scatter", attrs, shape, out, mesh=mesh, dt=dt), arch, "ttnn.reduce_scatter")


def _cores(cbs_cores):
    return {(x, y) for r in cbs_cores.ranges for x in range(r.start.x, r.end.x + 1)
            for y in range(r.start.y, r.end.y + 1)}


@pytest.mark.parametrize("dt, tile, pages", [("bf16", 2048, 24), ("f32", 4096, 12)])
def test_reduce_scatter_line_program(dt, tile, pages):
    """1x1x32x128 per device scattered over 4 devices on a line (no topology: FABRIC_1D assumed).  Channel buffer
    pages: 4,400 // 2,048 = 2 (bf16), 4,400 // 4,096 = 1 (f32); tile granularity min(4 * pages, 8 dest tiles) =
    8 / 4 (no compute_config, so fp32_dest_acc_en off... except that resolve_fp32_acc turns it on for an f32 input:
    max_dst 4, still 4); each of the 4 CBs holds 3 x granularity = 24 / 12 tiles = 49,152 B, 196,608 B per worker.
    Workers: the input is 4 tiles (8,192 B / 16,384 B); a line moves 3/4 of it per link, 6,144 / 12,288 B: above
    one 4 KiB packet, below 500,000 B: 2 workers per direction, each direction led by its mux: 1 link * 2 * (1 + 2)
    = 6 cores (0..5, 0), muxes (0,0) and (3,0).  The DRAM intermediate: 2x1x32x128 (dim 0 doubled on a line) =
    8 tiles."""
    a, op, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 32), dt=dt)
    assert p.factory.endswith("(line)") and p.cores.num_cores == 6
    assert [(cb.index, cb.page_bytes, cb.pages) for cb in p.cbs] == [(i, tile, pages) for i in range(4)]
    assert p.per_core_bytes() == 4 * 49_152
    assert _cores(p.cbs[0].cores) == {(1, 0), (2, 0), (4, 0), (5, 0)}
    buf, *sems = p.device_buffers
    assert (buf.buffer_type, buf.size, buf.page_size, buf.kept) == ("dram", 8 * tile, tile, False)
    # 4 global semaphores (3 within the op, 1 barrier): one uint32 on each of the 8x8 Wormhole worker cores
    assert [(s.buffer_type, s.size, s.page_size) for s in sems] == [("l1", 4 * 64, 4)] * 4
    assert p.params["ring_size"] == 4 and p.params["topology"] == "line"


def test_reduce_scatter_line_with_fp32_dest_acc_halves_the_granularity():
    """bf16 with compute_config fp32_dest_acc_en: the dest register holds 4 tiles, so the line's granularity is
    min(4 * 2, 4) = 4 and each CB 3 x 4 = 12 tiles of 2,048 B (4 CBs: 98,304 B per worker)."""
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 32), attrs=RS + FP32_ACC)
    assert [cb.pages for cb in p.cbs] == [12] * 4 and p.per_core_bytes() == 98_304


def test_reduce_scatter_ring_program():
    """The tt-xla 1x4 text-encoder reduce-scatter (topology ring, compute_config with fp32_dest_acc_en), per device
    1x1x7x2560 bf16 -> 1x1x7x640: tile-padded 1x1x32x2560 = 80 tiles = 163,840 B.  A ring moves half of 3/4 of it
    per link and direction: 61,440 B, between 4 KiB and 1 MiB: 2 workers per direction, each direction led by a mux:
    6 cores (0..5, 0), workers (1,0), (2,0), (4,0), (5,0).  Packet payload pages: min(4, 4,352 // 2,048 = 2) = 2,
    granularity min(4 * 2, 4 dest tiles with fp32 acc) = 4, double-buffered: 5 CBs (input, 2 intermediates, reader
    output, compute output) of 8 tiles x 2,048 B = 16,384 B, 81,920 B per worker.  The DRAM intermediate keeps the
    input's shape on a ring: 80 tiles = 163,840 B."""
    _, _, [p] = _rs((1, 1, 7, 2560), (1, 1, 7, 640), attrs=RS + RING + FP32_ACC)
    assert p.factory.endswith("(ring)") and p.cores.num_cores == 6 and p.params["topology"] == "ring"
    assert [(cb.index, cb.page_bytes, cb.pages) for cb in p.cbs] == [(i, 2048, 8) for i in range(5)]
    assert p.per_core_bytes() == 81_920
    assert _cores(p.cbs[0].cores) == {(1, 0), (2, 0), (4, 0), (5, 0)}
    buf, *_ = p.device_buffers
    assert (buf.size, buf.page_size) == (163_840, 2048)
    assert any("wrap" in n for n in p.notes) and any("from source" in n for n in p.notes)


@pytest.mark.parametrize("arch, workers", [("wormhole_b0", 4), ("blackhole", 8)])
def test_reduce_scatter_ring_worker_count_by_arch(arch, workers):
    """1x1x2048x1024 bf16 (2,048 tiles, 4,194,304 B) on a 4-device ring without compute_config (above the 512 KiB
    direct-path gate, so the ring program): half of 3/4 per link = 1,572,864 B.  Blackhole's high threshold is 1 MiB:
    8 workers, 2 * (1 + 8) = 18 cores; Wormhole's is 50 MiB, above 1 MiB: 4 workers, 10 cores.  No fp32 acc on bf16:
    granularity min(4 * 2, 8) = 8, CBs of 16 tiles = 32,768 B, 163,840 B per worker."""
    _, _, [p] = _rs((1, 1, 2048, 1024), (1, 1, 2048, 256), attrs=RS + RING, arch=arch)
    assert p.cores.num_cores == 2 * (1 + workers) and p.cbs[0].cores.num_cores == 2 * workers
    assert [cb.pages for cb in p.cbs] == [16] * 5 and p.per_core_bytes() == 163_840


def test_reduce_scatter_small_ring_has_no_mux():
    """1x1x32x128 bf16 (8,192 B) on a ring: 3,072 B per link and direction, one 4 KiB packet at most: 1 worker per
    direction and no mux core (the worker opens the fabric itself): 2 cores, both workers."""
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 32), attrs=RS + RING + FP32_ACC)
    assert p.cores.num_cores == 2 and _cores(p.cbs[0].cores) == {(0, 0), (1, 0)}


def test_reduce_scatter_ring_on_two_devices_runs_the_line():
    """A 2-device axis never wraps (is_axis_wrap_wired): the line program, dim 0 of the intermediate doubled."""
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 64), attrs=RS + RING + FP32_ACC, mesh="1x2")
    assert p.factory.endswith("(line)") and any("2-device axis" in n for n in p.notes)
    assert p.device_buffers[0].size == 8 * 2048


@pytest.mark.parametrize("attrs, mesh, shape, out, why", [
    # a ring of 8,192 B without compute_config: under the 512 KiB gate of use_direct_reduce_scatter
    (RS + RING, "1x4", (1, 1, 32, 128), (1, 1, 32, 32), "reduce_scatter_minimal_direct"),
    # a ring of 3 devices: the ring program's TT_FATAL, or the line where the axis does not wrap
    (RS + RING + FP32_ACC, "1x3", (1, 1, 32, 96), (1, 1, 32, 32), "odd ring size"),
])
def test_reduce_scatter_paths_not_modeled_say_why(attrs, mesh, shape, out, why):
    a = analyze(parse_text(_one_op("ttnn.reduce_scatter", attrs, shape, out, mesh=mesh), "ccl.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.reduce_scatter")
    assert a.programs[op.index].status != "modeled" and why in a.programs[op.index].reason


def test_reduce_scatter_of_unaligned_pieces_is_the_composite():
    """1x1x32x96 bf16 over 4 devices on dim 3: 24 columns each, not whole tiles (use_composite_reduce_scatter).  The
    composite: 4 slices (piece 0 from column 0: the tile slice; the others start inside a tile: untilize, row-major
    slice, tilize back), a fill_pad of each piece to 32 columns, the concat into 1x1x32x128, the line reduce-scatter
    of that, and the slice of its 1x1x32x32 result back to 1x1x32x24."""
    a, op, progs = _rs((1, 1, 32, 96), (1, 1, 32, 24), attrs=RS + FP32_ACC)
    names = [p.factory for p in progs]
    assert names[0] == "SliceTileProgramFactory" and names[-1] == "SliceTileProgramFactory"
    assert sum(n.startswith("FillPad") for n in names) == 4 and sum(n.startswith("Concat") for n in names) == 1
    [rs] = [p for p in progs if p.factory.startswith("ReduceScatter")]
    assert rs.inputs[0].shape == (1, 1, 32, 128) and rs.outputs[0].shape == (1, 1, 32, 32)
    assert any("composite reduce_scatter" in n for n in progs[0].notes)


def test_collective_costs_come_from_their_program():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    a, op, _ = _program(_one_op("ttnn.reduce_scatter", RS, (1, 1, 32, 128), (1, 1, 32, 32)), "wormhole_b0",
                        "ttnn.reduce_scatter")
    hw = hardware_of(a)
    [dop], why = device_ops(op, a, hw)
    assert why == "" and dop.attrs["ring_size"] == 4 and dop.attrs["num_links"] == 1 and dop.cores == 6
    assert op_cost(op, a, hw, load_constants()).status == "costed"


def test_cb_findings_of_a_collective_name_each_device():
    """The CBs fit here (no TTA010); a TTA010 on a collective would hold on every device of the mesh (the scope the
    rule appends); the reduce-scatter model is checked on the mock meshes (tests/test_ccl_measured.py), so the
    finding does not call it "from source"."""
    a, op, [p] = _program(_one_op("ttnn.reduce_scatter", RS, (1, 1, 32, 128), (1, 1, 32, 32)), "wormhole_b0",
                          "ttnn.reduce_scatter")
    assert not findings_of(a, "TTA010")
    from ttanalyze.rules.circular_buffers import _scope

    assert _scope(a, op) == " on each of the 4 devices of mesh 1x4"


def test_functions_without_a_device_take_their_mesh():
    """A collective in a function that opens no device (GPT-OSS dumps pass the device in) takes the module's mesh."""
    text = _one_op("ttnn.all_gather", AG, (1, 1, 32, 32), (1, 1, 32, 128)).replace(
        '    %0 = "ttnn.get_device"() <{mesh_shape = #ttnn<mesh_shape 1x4>}> : () -> !ttnn.device\n', "")
    a, op, [p] = _program(text, "wormhole_b0", "ttnn.all_gather")
    assert p.params["ring_size"] == 4


AR = "cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>"


def test_all_reduce_is_reduce_scatter_then_all_gather():
    """ttnn::all_reduce of 1x1x32x1024 bf16 over a 1x4 line (no topology: FABRIC_1D assumed), no semaphores:
    finding_scatter_dim counts the last two dims in tiles, [1, 1, 1, 32]: 32 splits over 4, so dim 3; the scattered
    1x1x32x256 is 8 whole tiles (no composite).  Step 1, ttnn::reduce_scatter without compute config (bf16: no fp32
    acc): 32 tiles = 65,536 B, 3/4 of it per link = 49,152 B: 2 workers, 6 cores; line granularity min(4 * 2, 8) = 8,
    4 CBs of 24 tiles x 2,048 B = 196,608 B per worker; the intermediate 2x1x32x1024 = 64 tiles = 131,072 B.
    Step 2, ttnn::all_gather of 1x1x32x256 back to 1x1x32x1024: Wormhole off a ring is multicast, 1 core, c_0 of 3
    pages of 2,048 * 2 * 3 = 12,288 B."""
    a, op, (rs, ag) = _program(_one_op("ttnn.all_reduce", AR, (1, 1, 32, 1024), (1, 1, 32, 1024)), "wormhole_b0",
                               "ttnn.all_reduce")
    assert rs.factory.endswith("(line)") and rs.cores.num_cores == 6 and rs.per_core_bytes() == 196_608
    assert rs.outputs[0].shape == (1, 1, 32, 256) and rs.device_buffers[0].size == 131_072
    assert ag.factory.endswith("AllGatherMulticastFactory") and ag.inputs[0].shape == (1, 1, 32, 256)
    assert ag.outputs[0].shape == (1, 1, 32, 1024) and ag.cbs[0].bytes == 36_864
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    hw = hardware_of(a)
    dops, why = device_ops(op, a, hw)
    assert why == "" and [d.op_code for d in dops] == ["ReduceScatterMinimalAsyncDeviceOperation",
                                                        "AllGatherAsyncDeviceOperation"]
    assert op_cost(op, a, hw, load_constants()).status == "costed"


def test_all_reduce_async_on_a_ring():
    """ttnn::experimental::all_reduce_async of 1x1x1024x1024 bf16 (1,024 tiles, 2 MiB: above the direct path's 512 KiB)
    on a 4-device ring: dim 3 (32 tiles split over 4).  Ring reduce-scatter: half of 3/4 per link = 786,432 B, under
    1 MiB: 2 workers, 6 cores; granularity min(4 * 2, 8) = 8, 5 CBs of 16 tiles = 163,840 B per worker; the intermediate
    keeps the input's shape (2 MiB).  All-gather of 1x1x1024x256 (256 pages >= 64 on a Wormhole ring): unicast, 2
    workers per direction and a mux each: 6 cores."""
    _, _, (rs, ag) = _program(_one_op("ttnn.all_reduce_async", AR + RING, (1, 1, 1024, 1024), (1, 1, 1024, 1024)),
                              "wormhole_b0", "ttnn.all_reduce_async")
    assert rs.factory.endswith("(ring)") and rs.per_core_bytes() == 163_840 and rs.device_buffers[0].size == 2 << 20
    assert ag.factory.endswith("AllGatherUnicastFactory") and ag.cores.num_cores == 6


@pytest.mark.parametrize("shape, dt, why", [
    ((1, 1, 32, 96), "f32", "local_sum_float32"),  # tiles [1, 1, 1, 3]: no dim splits over 4; an f32 local sum
    ((1, 1, 32, 128), "bf16", "reduce_scatter_minimal_direct"),  # a ring of 8 KiB
])
def test_all_reduce_paths_not_modeled_say_why(shape, dt, why):
    text = _one_op("ttnn.all_reduce", AR + RING, shape, shape, dt=dt)
    a = analyze(parse_text(text, "ccl.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.all_reduce")
    assert a.programs[op.index].status != "modeled" and why in a.programs[op.index].reason


def test_all_reduce_without_a_scatter_dim_is_the_all_gather_and_moreh_sum_composite():
    """1x1x32x96 bf16 over a 4-device ring: its tiles [1, 1, 1, 3] have no dim that 4 divides (finding_scatter_dim),
    so all_reduce_async views it as 1x1x1x32x96, runs the composite all-gather along dim 0 (all_broadcast of the
    6,144-B tensor: c_0 = 3 x 2 tiles of 2,048 B; concat of the 4 copies into 4x1x1x32x96), then moreh_sum over
    dim 0 (MorehSumNC: the 3 output tiles on 3 cores, CBs of 2 + 1 + 2 tiles = 10,240 B per core)."""
    text = _one_op("ttnn.all_reduce", AR + RING, (1, 1, 32, 96), (1, 1, 32, 96))
    a = analyze(parse_text(text, "ccl.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.all_reduce")
    v = a.programs[op.index]
    assert v.status == "modeled"
    bcast, cat, msum = v.stages
    assert bcast.factory.startswith("AllBroadcast") and [cb.bytes for cb in bcast.cbs] == [12_288]
    assert cat.factory.startswith("Concat") and cat.outputs[0].shape == (4, 1, 1, 32, 96)
    assert msum.factory.endswith("MorehSumNCFactory") and msum.cores.num_cores == 3
    assert msum.per_core_bytes() == 5 * 2048 and msum.outputs[0].shape == (1, 1, 1, 32, 96)


P2P = "sender_coord = array<i64: 0, 0>, receiver_coord = array<i64: 0, 1>"


@pytest.mark.parametrize("dt, send, receive, packets", [("bf16", 8_384, 16_576, 2), ("f32", 12_480, 16_576, 4)])
def test_point_to_point_program(dt, send, receive, packets):
    """1x1x32x128 per device from device (0,0) to (0,1) of a 1x2 mesh: 4 tile pages.  bf16: a packet holds at most
    bit_floor(4,400) = 4,096 B, 2 pages of 2,048 B: 2 packets.  Send CBs: c_0 2 x 2,048, c_1 2 x 2 headers of 48 B,
    c_2 one 4,096-B packet = 8,384 B; receive: c_0 192 B, c_1 4,096 B, c_2 3 x 2 pages x 2,048 = 16,576 B: the
    receiver's program is the model.  f32: 4,400 B packets (no power-of-two rounding) take 1 page of 4,096 B: 4
    packets; send 8,192 + 192 + 4,096 = 12,480 B, receive 192 + 4,096 + 3 x 4,096 = 16,576 B.  The intermediate is
    [packets, 4,096 / element bytes] in the input's tile layout, padded to 32 rows: 32x2048 bf16 = 64 tiles or 32x1024
    f32 = 32 tiles, 131,072 B in DRAM either way."""
    _, _, [p] = _program(_one_op("ttnn.point_to_point", P2P, (1, 1, 32, 128), (1, 1, 32, 128), mesh="1x2", dt=dt),
                         "wormhole_b0", "ttnn.point_to_point")
    assert p.factory.endswith("(receive)") and p.cores.num_cores == 1 and p.per_core_bytes() == receive
    assert f"{send:,} B of CBs" in p.notes[-1] and f"{packets} packet(s)" in p.notes[0]
    buf, sem = p.device_buffers
    assert (buf.buffer_type, buf.size) == ("dram", 131_072)
    assert (sem.buffer_type, sem.size, sem.page_size) == ("l1", 4 * 64, 4)  # one semaphore on the 8x8 worker cores


def test_a_line_assumed_without_topology_doubts_its_refusal():
    """No topology in the IR on a 4-device axis: the line is assumed (FABRIC_1D), but a ring-cabled mesh runs the ring
    program, whose CBs are smaller (bf16, 1x1x32x128: 5 x 16 x 2,048 = 163,840 B against the line's 4 x 24 x 2,048 =
    196,608 B per worker), so a TTA010 on the line's CBs would be a warning (params["refusal_unsure"]).  An explicit
    topology, or a 2-device axis (never a ring), leaves no doubt; nor does the assumed link count (the CB bytes per
    worker do not depend on it)."""
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 32))
    assert "163,840 B per worker against the line's 196,608 B" in p.params["refusal_unsure"]
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 32), attrs=RS + ", topology = #ttcore.topology<linear>")
    assert "refusal_unsure" not in p.params
    _, _, [p] = _rs((1, 1, 32, 128), (1, 1, 32, 64), mesh="1x2")
    assert "refusal_unsure" not in p.params


def test_all_gather_on_a_two_device_ring_runs_the_line():
    """A 2-device axis never wraps: an all_gather whose op asks for a ring runs on a line (Wormhole multicast even
    with many pages, since unicast needs a ring): 1x1x256x1024 bf16 = 256 pages >= 64."""
    _, _, [p] = _program(_one_op("ttnn.all_gather", AG + RING, (1, 1, 256, 1024), (1, 1, 256, 2048), mesh="1x2"),
                         "wormhole_b0", "ttnn.all_gather")
    assert p.factory.endswith("AllGatherMulticastFactory") and any("2-device axis" in n for n in p.notes)


FUSED_RMS = """#dram = #ttnn.buffer_type<dram>
#l1 = #ttnn.buffer_type<l1>
#in = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x4>, memref<1x1x!ttcore.tile<32x32, bf16>, #l1>, <width_sharded>, core_ranges = #ttnn.core_range_set<[#ttnn.core_range<(0,0), (3,0)>]>>
#st = #ttnn.ttnn_layout<(d0, d1, d2, d3) -> (d0 * 32 + d1 * 32 + d2, d3), <1x1>, memref<1x2x!ttcore.tile<32x32, f32>, #l1>, <width_sharded>, core_ranges = #ttnn.core_range_set<[#ttnn.core_range<(0,0), (0,0)>]>>
#w = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<4x32xbf16, #dram>, <interleaved>>
module attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x2>]>} {
  func.func @forward(%arg0: tensor<1x1x32x128xbf16, #in>, %arg1: tensor<4x32xbf16, #w>, %arg2: tensor<1x1x32x64xf32, #st>) -> tensor<1x1x32x128xbf16, #in> {
    %0 = "ttnn.get_device"() <{mesh_shape = #ttnn<mesh_shape 1x2>}> : () -> !ttnn.device
    %1 = "ttnn.distributed_rms_norm"(%arg0, %arg1, %arg2, %0) <{cluster_axis = 1 : ui32, epsilon = 1.000000e-05 : f32, operandSegmentSizes = array<i32: 1, 1, 0, 1, 0, 1>, compute_config = #ttnn.device_compute_kernel_config<math_fidelity = hifi4, math_approx_mode = false, fp32_dest_acc_en = true, packer_l1_acc = false>, program_config = #ttnn.layernorm_sharded_multicore_program_config<compute_with_storage_grid_size = #ttnn.core_coord<4, 1>, subblock_w = 1, block_h = 1, block_w = 1, inplace = false>}> : (tensor<1x1x32x128xbf16, #in>, tensor<4x32xbf16, #w>, tensor<1x1x32x64xf32, #st>, !ttnn.device) -> tensor<1x1x32x128xbf16, #in>
    return %1 : tensor<1x1x32x128xbf16, #in>
  }
}
"""


def test_distributed_rms_norm_runs_the_fused_kernel():
    """The form tt-mlir's width-shard workaround gives ttnn.distributed_rms_norm (1x1x32x128 bf16 over 4 cores of 1
    tile, block_w 1, an f32 stats tensor of 2 tiles, fp32_dest_acc_en): fused_rms_minimal's RMSAllGather program on
    the shard grid (0,0)-(3,0).  A 4x1 grid has one row: no two-stage reduce, so the external partials take
    ceil(Kt 4 / block_w 1) = 4 tiles.  Intermediate tiles are float32 (4,096 B).  Static CBs per core: 2,048 B each
    for c_0, c_1, c_13, c_14 (bf16 scalers, epsilon) and c_11 (one bf16 gamma tile); 4,096 B each for c_2, c_3, c_6,
    c_9, c_15 and c_7 (one f32 stats tile); c_4 4 x 4,096 = 16,384 B; c_8 16 packet headers of 48 B = 768 B; c_20
    2 B: 51,970 B; the output keeps the input's shard spec, so c_10 is the output buffer.  The sender core (0,0) adds
    c_17 and c_18, 4,096 B each: 60,162 B."""
    a = analyze(parse_text(FUSED_RMS, "rms.mlir"), "wormhole_b0")
    op = next(o for o in a.program.ops if o.name == "ttnn.distributed_rms_norm")
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    [p] = prog.stages
    assert p.factory.startswith("RMSAllGather") and p.cores.num_cores == 4
    per_core = {}
    for cb in p.static_cbs:
        for r in cb.cores.ranges:
            for x in range(r.start.x, r.end.x + 1):
                per_core[x] = per_core.get(x, 0) + cb.bytes
    assert per_core == {0: 60_162, 1: 51_970, 2: 51_970, 3: 51_970}
    assert {cb.index for cb in p.cbs if cb.globally_allocated} == {5, 10, 12, 19}
    assert any("from source" in n for n in p.notes)
