"""all_to_all_dispatch_metadata (ttanalyze.ops.moe_metadata) against a mock 1x2 Blackhole mesh.

measurements/moe_fabric/cases_metadata.py draws the instances (seeded); measurements/moe_fabric/probe_metadata.py
replayed them on one mock P300 board opened as a 1x2 mesh with FABRIC_1D (NO_DISPATCH graph capture, the runtime's
persistent buffers and global semaphore; rerun: ``scripts/device-lock .venv-ttnn/bin/python
measurements/moe_fabric/probe_metadata.py``) into measurements/moe_fabric/results_metadata.jsonl.  Each model program
must have the same CBs (size and cores, as multisets) as the first device's program, a case ttnn refused must be
refused by the model with ttnn's message (or, for an operand tt-mlir's workaround pass would still make row-major
bf16/u16, declined as IR from before that pass), the output specs must match, and the program allocates no L1 buffer.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.moe_fabric.cases_metadata import CASES
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.attrs import CoreRangeSet
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops import moe_metadata
from ttanalyze.ops.cb import CBModelError, DeviceRejection, core_range, cores_set
from ttanalyze.programs import context_for, run_spec_model

from .conftest import ROOT, assert_specs_match

FULL = 1_461_120  # the mock's free L1 bank


def _load(*names: str) -> tuple[list[dict], dict[str, dict]]:
    """The first lines (what ttnn found of each mesh's fabric) and the per-case records of the result files."""
    heads, records = [], {}
    for name in names:
        lines = [json.loads(line) for line in (ROOT / "measurements" / "moe_fabric" / name).read_text().splitlines()]
        heads.append(lines[0])
        records.update((r["id"], r) for r in lines[1:])
    return heads, records


FABRICS, RESULTS = _load("results_metadata.jsonl", "results_metadata_2x2.jsonl")
FABRIC = FABRICS[0]
DRAIN: CoreRangeSet = cores_set(core_range(0, 0, 0, 0))


def _in(d) -> TensorDesc:
    shape, dtype, layout, buf = d
    return TensorDesc(tuple(shape), dtype, layout, buf, "interleaved")


def _out(d) -> TensorDesc:
    shape, dtype, buf = d
    if buf == "dram":
        return TensorDesc(tuple(shape), dtype, "row_major", "dram", "interleaved")
    return TensorDesc(tuple(shape), dtype, "row_major", "l1", "height_sharded", (1, 1), DRAIN)


def module(case, bound: bool = True) -> str:
    """The op as tt-mlir emits it after the prelude: three ttnn.empty buffers and a global semaphore bound."""
    ins, outs = [_in(d) for d in case.operands], [_out(d) for d in case.outputs]
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    out_types = ", ".join(t.type_text() for t in outs)
    dev = (f'    %dev = "ttnn.get_device"() <{{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape '
           f'{case.mesh[0]}x{case.mesh[1]}>}}> : () -> !ttnn.device\n')
    body, operands, seg = dev, [f"%arg{i}" for i in range(4)], "1, 1, 1, 1, 0, 0, 0, 0"
    types = [t.type_text() for t in ins]
    if bound:
        for k, t in enumerate(outs):
            shape = "x".join(str(s) for s in t.shape)
            body += (f'    %b{k} = "ttnn.empty"(%dev) <{{dtype = #ttcore.supportedDataTypes<{t.dtype}>, layout = '
                     f'#ttnn.layout<row_major>, shape = #ttnn.shape<{shape}>}}> : (!ttnn.device) -> {t.type_text()}\n')
        body += ('    %sem = "ttnn.create_global_semaphore"(%dev) <{core_range_set = #ttnn.core_range_set<'
                 '[#ttnn.core_range<(0,0), (0,7)>]>, initial_value = 0 : ui32}> : (!ttnn.device) -> '
                 '!ttnn.global_semaphore\n')
        operands += ["%b0", "%b1", "%b2", "%sem"]
        types += [t.type_text() for t in outs] + ["!ttnn.global_semaphore"]
        seg = "1, 1, 1, 1, 1, 1, 1, 1"
    attrs = (f"cluster_axis = {case.cluster_axis} : i64, num_devices = {case.mesh[case.cluster_axis]} : i64, "
             f"operandSegmentSizes = array<i32: {seg}>")
    return f"""module {{
  func.func @main({args}) -> ({out_types}) {{
{body}    %r0, %r1, %r2 = "ttnn.all_to_all_dispatch_metadata"({", ".join(operands)}) <{{{attrs}}}> : ({", ".join(types)}) -> ({out_types})
    return %r0, %r1, %r2 : {out_types}
  }}
}}
"""


def _analysis(case, bound: bool = True):
    a = analyze(parse_text(module(case, bound), "t.mlir"), "blackhole")
    return a, next(o for o in a.program.ops if o.name == moe_metadata.DISPATCH_METADATA)


def _program(case, links: int):
    a, op = _analysis(case)
    return moe_metadata.dispatch_metadata_program(context_for(a, op, arch=MOCK, free_l1=FULL), links)


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _model_cbs(p) -> Counter:
    return Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                        for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs)


def _first_device_cbs(measured) -> Counter:
    first = min(c["program"] for c in measured["cbs"])
    return Counter((c["size"], _cores(c["core_ranges"])) for c in measured["cbs"]
                   if c["program"] == first and not c["borrowed"])


def test_the_probe_saw_the_fabric_the_model_assumes():
    """2 links on every axis of both meshes (the model is given them), the 48-B packet header it uses."""
    assert all(f["num_links_axis1"] == 2 and f["packet_header_bytes"] == 48 for f in FABRICS)
    assert FABRICS[1]["mesh"] == [2, 2] and FABRICS[1]["num_links_axis0"] == 2


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    if measured["error"]:
        if "row major" in measured["error"] or "must be bfloat16" in measured["error"]:
            with pytest.raises(CBModelError, match="workaround pass"):
                _program(case, FABRIC["num_links_axis1"])
            return
        message = measured["error"].split("info:")[-1].strip().splitlines()[0]
        with pytest.raises(DeviceRejection) as exc:
            _program(case, FABRIC["num_links_axis1"])
        assert message in str(exc.value)
        return
    p = _program(case, FABRIC["num_links_axis1"])
    assert {c["op"] for c in measured["cbs"]} == {p.factory.split("::")[0]}
    assert _model_cbs(p) == _first_device_cbs(measured)
    assert measured["l1_buffers"] == [] and p.l1_buffers_per_core == 0


SPEC_CASES = [c for c in CASES if not RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_output_spec_matches_the_mock(case):
    a, op = _analysis(case)
    assert_specs_match(run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL)), RESULTS[case.id]["outputs"])


def test_unbound_outputs_take_compute_output_specs():
    """Before the prelude binds the buffers, the outputs are tt-metal's compute_output_specs: the dispatched tensor in
    DRAM, indices and scores one shard on the drain core (0, 0); the program is the same, with a note."""
    case = next(c for c in CASES if not RESULTS[c.id]["error"] and c.outputs[0][2] == "dram")
    a, op = _analysis(case, bound=False)
    assert_specs_match(run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL)), RESULTS[case.id]["outputs"])
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    assert any("not bound yet" in n for n in prog.stages[0].notes)


def test_by_hand_with_the_assumed_link():
    """all_to_all_dispatch_metadata/15: input [1, 1, 256, 2880] bf16 in DRAM (64-B alignment), indices and scores
    [1, 1, 256, 4], mapping [2, 64] u16 in L1, on a 1x2 mesh, axis 1; the outputs' indices and scores [1, 512, 4]
    sharded in L1 (16-B alignment).  The analysis assumes 1 link: one worker (0, 0), t = T = 256.  c_0 2 x 5,760 =
    11,520; c_1 and c_6 256 x 16 (8-B rows aligned to 16) = 4,096 each; c_2 one 128-B mapping row; c_3 8 x 48 = 384;
    c_4 2 devices x 256 = 512; c_5 256 x (16 + 16) = 8,192."""
    case = next(c for c in CASES if c.id == "all_to_all_dispatch_metadata/15")
    assert case.operands[0][0] == (1, 1, 256, 2880) and case.operands[1][0] == (1, 1, 256, 4)
    a, op = _analysis(case)
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    [p] = prog.stages
    assert [(cb.index, cb.bytes) for cb in p.cbs] == [(0, 11_520), (1, 4_096), (6, 4_096), (2, 128), (3, 384),
                                                      (4, 512), (5, 8_192)]
    assert p.cores.num_cores == 1 and any("1 fabric link assumed" in n for n in p.notes)


def test_results_are_the_bound_buffers_in_the_allocator_replay():
    """tt-metal returns the bound buffers: the replay holds each once (the results add no L1 or DRAM)."""
    from ttanalyze.ops.generic import tied_operand

    case = next(c for c in CASES if not RESULTS[c.id]["error"])
    _, op = _analysis(case)
    assert [tied_operand(op, k) for k in range(3)] == [4, 5, 6]
    _, unbound = _analysis(case, bound=False)
    assert tied_operand(unbound, 0) is None


def test_the_l1_timeline_counts_each_bound_buffer_once():
    """The results are the bound buffers: the L1 tensors live at the op are the L1 inputs (indices, scores, mapping)
    and the two drain-core buffers, each once, and no result (all_to_all_dispatch_metadata/15)."""
    case = next(c for c in CASES if c.id == "all_to_all_dispatch_metadata/15")
    a, op = _analysis(case)
    live = [v for v, _ in a.memory.live_at(op.index, "l1")]
    assert not set(live) & set(op.results)
    assert set(live) == set(op.operands[1:4]) | set(op.operands[5:7])
    assert a.memory.points[op.index].l1_per_core == sum(a.infos[v].placement.bytes_per_bank for v in live)
    # the drain buffers stay live while the results do (they are returned)
    last = a.program.ops[-1].index
    assert set(op.operands[5:7]) <= {v for v, _ in a.memory.live_at(last, "l1")}


def test_costed_from_its_program():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    case = next(c for c in CASES if c.id == "all_to_all_dispatch_metadata/15")
    a, op = _analysis(case)
    hw = hardware_of(a)
    dops, why = device_ops(op, a, hw)
    assert why == "" and [d.op_code for d in dops] == ["AllToAllDispatchMetadataDeviceOperation"]
    assert dops[0].attrs["ring_size"] == 2 and dops[0].attrs["num_links"] == 1
    assert op_cost(op, a, hw, load_constants()).status == "costed"


# ---------------------------------------------------------------------------------------------------------------------
# selective_reduce_combine against measurements/moe_fabric/results_selective.jsonl (a mock 2x1 mesh, probe_selective.py)
# ---------------------------------------------------------------------------------------------------------------------

from measurements.moe_fabric import cases_selective as SEL  # noqa: E402

_, SEL_RESULTS = _load("results_selective.jsonl", "results_selective_2x2.jsonl")
WORKERS: CoreRangeSet = cores_set(core_range(1, 0, 3, 3))


def _stride(e: int, buf: str) -> int:
    align = 64 if buf == "dram" else 16
    return -(-(2 * e + 1) * 4 // align) * align // 4


def selective_module(case, mesh: tuple | None = None) -> str:
    """The op as tt-mlir emits it, on the operands the probe made (cases_selective.py), on ``mesh`` (the case's)."""
    mesh = mesh or case.mesh
    e, t, h = case.experts_local, case.batch * case.seq, case.hidden
    rows = e * t // SEL.TOKEN_PARALLEL
    width = -(-h // SEL.DATA_PARALLEL)
    acts_buf, maps_buf, counts_buf = case.buffers
    if case.input_buffer == "l1":
        x = TensorDesc((rows * 12, width), "bf16", "row_major", "l1", "height_sharded", (12, 1), WORKERS)
    else:
        x = TensorDesc((rows * 12, width), "bf16", "row_major", "dram", "interleaved")
    maps_shape = (e, (t + 1) * _stride(e, maps_buf))
    ins = [x, TensorDesc((1, t * (_stride(e, acts_buf) + case.stride_extra)), "u32", "row_major", acts_buf),
           TensorDesc((1, *maps_shape) if case.maps_rank3 else maps_shape, "u32", "row_major", maps_buf),
           TensorDesc((1, e), "u32", "row_major", counts_buf)]
    out = TensorDesc((case.k, t // mesh[0], h), "bf16", "row_major", "dram")
    args = ", ".join(f"%arg{i}: {d.type_text()}" for i, d in enumerate(ins))
    attrs = (f"batch_size = {case.batch} : ui32, experts = {e * mesh[0] * mesh[1]} : ui32, hidden_size = {h} : ui32, "
             f"select_experts_k = {case.k} : ui32, seq_size = {case.seq} : ui32")
    return f"""module {{
  func.func @main({args}) -> {out.type_text()} {{
    %dev = "ttnn.get_device"() <{{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape {mesh[0]}x{mesh[1]}>}}> : () -> !ttnn.device
    %r = "ttnn.selective_reduce_combine"(%arg0, %arg1, %arg2, %arg3) <{{{attrs}}}> : ({", ".join(d.type_text() for d in ins)}) -> {out.type_text()}
    return %r : {out.type_text()}
  }}
}}
"""


def _sel_analysis(case, mesh: tuple | None = None):
    a = analyze(parse_text(selective_module(case, mesh), "t.mlir"), "blackhole")
    return a, next(o for o in a.program.ops if o.name == moe_metadata.SELECTIVE_REDUCE_COMBINE)


def _sel_program(case, mesh: tuple | None = None):
    """The model on the case's mesh; an axis-1 case of the probe is the runtime's axis-0 call on the transposed mesh."""
    mesh = mesh or case.mesh
    if case.axis == 1:
        mesh = (mesh[1], mesh[0])
    a, op = _sel_analysis(case, mesh)
    return moe_metadata.selective_reduce_combine_program(context_for(a, op, arch=MOCK, free_l1=FULL), SEL.LINKS)


def _first_device_all_cbs(measured) -> Counter:
    first = min(c["program"] for c in measured["cbs"])
    return Counter((c["size"], c["borrowed"], _cores(c["core_ranges"])) for c in measured["cbs"] if c["program"] == first)


def _model_all_cbs(p) -> Counter:
    return Counter((cb.bytes, cb.globally_allocated, frozenset(
        (x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1) for y in range(r.start.y, r.end.y + 1)))
        for cb in p.cbs)


@pytest.mark.parametrize("case", SEL.CASES, ids=[c.id for c in SEL.CASES])
def test_selective_model_matches_the_mock(case):
    measured = SEL_RESULTS[case.id]
    if measured["error"]:
        message = measured["error"].split("info:")[-1].strip().splitlines()[0]
        with pytest.raises(DeviceRejection) as exc:
            _sel_program(case)
        assert message in str(exc.value)
        return
    p = _sel_program(case)
    assert {c["op"] for c in measured["cbs"]} == {p.factory.split("::")[0]}
    assert _model_all_cbs(p) == _first_device_all_cbs(measured)
    # the two global semaphores the factory creates on the worker cores: 16 B per bank each
    assert p.l1_buffers_per_core == sum(b["per_bank"] for b in measured["l1_buffers"])


SEL_SPEC_CASES = [c for c in SEL.CASES if not SEL_RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", SEL_SPEC_CASES, ids=[c.id for c in SEL_SPEC_CASES])
def test_selective_output_spec_matches_the_mock(case):
    a, op = _sel_analysis(case)
    assert_specs_match(run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL)), SEL_RESULTS[case.id]["outputs"])


def test_selective_by_hand():
    """selective_reduce_combine/2: 2 local experts, batch 8, seq 1, hidden 2880, K 8 on a 2x1 mesh.  A token row is
    5,760 B: 3 segments of 1,920 B on the 12 worker cores (1, 0)-(3, 3).  c_15 (on the dense input's buffer)
    2 x 1,920 x 8 / 4 = 7,680; c_1 2 token-maps rows of 9 x 16 u32 (the maps in DRAM: 5 u32 per token aligned to
    64 B) = 2 x 576; c_2 the 8-B counts row + 2 x 12 B = 32; c_3 one activations row of 8 tokens x 8 u32 (in L1:
    aligned to 16 B) = 256; c_4 3 x 3,280 = 9,840.  The output [8, 4, 2880]: T / D = 8 / 2."""
    case = next(c for c in SEL.CASES if c.id == "selective_reduce_combine/2")
    a, op = _sel_analysis(case)
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    [p] = prog.stages
    maps_row = 9 * _stride(2, case.buffers[1]) * 4
    assert [(cb.index, cb.bytes) for cb in p.cbs] == [(15, 7_680), (1, 2 * maps_row), (2, 32), (3, 256), (4, 9_840)]
    assert p.cores.num_cores == 12 and p.l1_buffers_per_core == 32


def test_selective_on_a_mesh_whose_axis_0_has_one_device():
    """The runtime always combines along axis 0: on a 1x2 mesh that axis has one device, and the Ring's neighbour is
    the device itself, which the fabric refuses (selective_reduce_combine/22: the symmetric call, axis 1 of the 2x1
    mesh); on a single device there is no fabric: not modeled."""
    case = next(c for c in SEL.CASES if c.axis == 1)
    assert "Expected different src and dst chip ids" in SEL_RESULTS[case.id]["error"]
    with pytest.raises(CBModelError, match="single-device"):
        _sel_program(SEL_SPEC_CASES[0], (1, 1))


def test_selective_costed_from_its_program():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    a, op = _sel_analysis(SEL_SPEC_CASES[0])
    hw = hardware_of(a)
    dops, why = device_ops(op, a, hw)
    assert why == "" and [d.op_code for d in dops] == ["SelectiveReduceCombineDeviceOperation"]
    assert dops[0].attrs["ring_size"] == 2 and dops[0].attrs["num_links"] == moe_metadata.RUNTIME_LINKS
    assert op_cost(op, a, hw, load_constants()).status == "costed"
