"""moe_gpt (ttanalyze.ops.moe_compute) against the mock Blackhole P150.

measurements/moe_compute/cases.py draws the instances (seeded); measurements/moe_compute/probe.py replayed them on
the mock P150 opened as a 1x1 mesh (NO_DISPATCH graph capture; rerun: ``scripts/device-lock
.venv-ttnn/bin/python measurements/moe_compute/probe.py``) into measurements/moe_compute/results.jsonl, whose first
line records the grid and the DRAM-bank worker cores.  The model's CBs must equal the measured ones (size and
cores, as multisets; the tensor-backed combine CB among them), a case ttnn refused must be refused by the model
with ttnn's message, and the output specs must match.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.moe_compute.cases import CASES
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops import moe_compute
from ttanalyze.ops.cb import DeviceRejection
from ttanalyze.programs import context_for, run_spec_model

from .conftest import ROOT, assert_specs_match

FULL = 1_461_120  # the mock's free L1 bank
_LINES = [json.loads(line) for line in (ROOT / "measurements" / "moe_compute" / "results.jsonl").read_text().splitlines()]
DEVICE = _LINES[0]
RESULTS = {r["id"]: r for r in _LINES[1:]}  # a later line for an id replaces an earlier one


def _crs(cores) -> CoreRangeSet:
    return CoreRangeSet(tuple(CoreRange(CoreCoord(x, y), CoreCoord(x, y)) for x, y in cores))


def gpt_operands(p: dict) -> list[TensorDesc]:
    """The case's operands as tt-mlir types them (cases.py; the probe builds the same tensors)."""
    t, k = p["T"], p["k"]
    if p["idx_layout"] == "height_sharded":
        idx_kw = {"buffer_type": "l1", "memory_layout": "height_sharded", "core_ranges": _crs([tuple(p["idx_core"])])}
    else:
        idx_kw = {"buffer_type": "l1", "memory_layout": "interleaved"}
    banks = min(p["C"], 8)
    w_kw = {"buffer_type": "dram", "memory_layout": "height_sharded", "grid": (banks, 1),
            "core_ranges": _crs([(b, 0) for b in range(banks)])}
    return [TensorDesc((t, p["K"]), "bf16", "row_major", p["input_buf"], "interleaved"),
            TensorDesc((t, k), "u16", "row_major", **idx_kw), TensorDesc((t, k), "bf16", "row_major", **idx_kw),
            TensorDesc((p["R"], p["E"] * p["D"]), "u16", "row_major", p["mapping_buf"], "interleaved"),
            TensorDesc((p["C"], p["L"], p["E"], p["G"], p["K"], p["w_width"]), p["w_dtype"], "tile", **w_kw),
            TensorDesc((p["C"], p["L"], p["w2_E"], 2, p["N"], p["w_width"]), p["w_dtype"], "tile", **w_kw)]


def gpt_results(p: dict) -> list[TensorDesc]:
    """The five results as ttnn 0.81.1 returns them on the P150 (11x10 grid)."""
    t, e, h = p["T"], p["E"], p["K"]
    grid = _crs([(0, 0)])
    grid = CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(10, 9)),))
    sharded = {"buffer_type": "l1", "memory_layout": "height_sharded", "grid": (110, 1), "core_ranges": grid}
    l1 = {"buffer_type": "l1", "memory_layout": "interleaved"}
    return [TensorDesc((1, -(-4 * e // 16) * 4), "u32", "row_major", **l1),
            TensorDesc((1, (t + 1) * (-(-(2 * e + 1) * 4 // 16) * 4)), "u32", "row_major", **l1),
            TensorDesc((e, (t + 1) * 4), "u32", "row_major", **l1),
            TensorDesc((110, 2, 32, h), "bf16", "tile", **sharded),
            TensorDesc((110, 2, 32, h), "bf16", "row_major", **sharded)]


def module(case) -> str:
    p = case.p
    ins, outs = gpt_operands(p), gpt_results(p)
    attrs = (f"cluster_axis = {p['cluster_axis']} : ui32, hidden_size = {p['K']} : ui32, "
             f"output_height_shard_dim = {p['hs']} : ui32, output_width_shard_dim = {p['ws']} : ui32")
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    out_types = ", ".join(t.type_text() for t in outs)
    names = ", ".join(f"%r{i}" for i in range(len(outs)))
    operands = ", ".join(f"%arg{i}" for i in range(len(ins)))
    return f"""module {{
  func.func @main({args}) -> ({out_types}) {{
    {names} = "{case.op}"({operands}) <{{{attrs}}}> : ({", ".join(t.type_text() for t in ins)}) -> ({out_types})
    return {names} : {out_types}
  }}
}}
"""


def _analysis(case):
    a = analyze(parse_text(module(case), "t.mlir"), "blackhole")
    return a, next(o for o in a.program.ops if o.name == case.op)


def _program(case):
    a, op = _analysis(case)
    return moe_compute.moe_gpt_program(context_for(a, op, arch=MOCK, free_l1=FULL))


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _model_cbs(p) -> Counter:
    return Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                        for y in range(r.start.y, r.end.y + 1)), cb.globally_allocated)
                   for cb in p.cbs)


def test_the_probe_saw_the_ring_the_model_assumes():
    """The mock P150's 11x10 grid and its DRAM-bank worker cores, in bank order (the matmul ring)."""
    assert DEVICE["grid"] == [11, 10]
    assert [tuple(c) for c in DEVICE["dram_bank_workers"]] == list(moe_compute.P150_DRAM_WORKERS)


GPT = [c for c in CASES if c.op == "ttnn.moe_gpt"]


@pytest.mark.parametrize("case", GPT, ids=[c.id for c in GPT])
def test_moe_gpt_matches_the_mock(case):
    measured = RESULTS[case.id]
    if measured["error"]:
        info = measured["error"].split("info:")[-1].strip().splitlines()[0]
        with pytest.raises(DeviceRejection) as exc:
            _program(case)
        assert info in str(exc.value)
        return
    got = _model_cbs(_program(case))
    want = Counter((c["size"], _cores(c["core_ranges"]), c["borrowed"]) for c in measured["cbs"])
    assert got == want


SPEC_CASES = [c for c in GPT if not RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_moe_gpt_output_spec_matches_the_mock(case):
    a, op = _analysis(case)
    specs = run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL))
    assert_specs_match(specs, RESULTS[case.id]["outputs"])


DISPATCHED = [json.loads(line) for line in
              (ROOT / "measurements" / "moe_compute" / "results_dispatch.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("record", DISPATCHED, ids=[r["id"] for r in DISPATCHED])
def test_moe_gpt_l1_checks_match_the_dispatched_mock(record):
    """tt-metal checks a mesh workload's CB region when it dispatches it (probe.py --dispatch): the CB regions the
    model walks end where tt-metal says, the L1 buffers start where the allocator replay puts them (the mock's
    L1 without L1_SMALL), and the verdict is tt-metal's."""
    import re

    case = next(c for c in CASES if c.id == record["id"])
    a = analyze(parse_text(module(case), "t.mlir"), "blackhole", l1_small_size=0)
    op = next(o for o in a.program.ops if o.name == case.op)
    p = moe_compute.moe_gpt_program(context_for(a, op, arch=MOCK, free_l1=FULL))
    lowest = a.allocation.l1_lowest_at_op[op.index]
    refusal = p.l1_refusal(MOCK, lowest)
    err = record["error"]
    if err is None:
        assert refusal is None
        return
    grow = re.search(r"core range \[(\d+)-(\d+) - (\d+)-(\d+)\] grow to (\d+) B", err)
    if grow:
        x0, y0, x1, y1, end = map(int, grow.groups())
        assert refusal is not None and refusal.check == "max_l1_size"
        assert (refusal.core_range.start.x, refusal.core_range.start.y, refusal.core_range.end.x,
                refusal.core_range.end.y, refusal.end) == (x0, y0, x1, y1, end)
        return
    clash = re.search(r"core range \[(\d+)-(\d+) - \d+-\d+\]\. L1 buffer allocated at (\d+) and static circular "
                      r"buffer region ends at (\d+)", err)
    assert clash, err
    x, y, buffer_at, end = map(int, clash.groups())
    assert lowest == buffer_at
    regions = {(r.start.x, r.start.y): e for r, e in p.cb_regions(MOCK.l1_unreserved_base, MOCK.dram_alignment)}
    assert regions[(x, y)] == end
    assert refusal is not None and refusal.check == "clash"


def test_moe_gpt_by_hand():
    """moe_gpt/big/2 (T = 128, K = 4096, E = 4, 16 experts, k = 4): ring core (0, 0) holds c_0 84 x 576 = 48,384,
    c_2/c_3 4 each, c_4 48 x 2,048 = 98,304, c_6 2,048, c_5 32, c_14 32 * 4 rows of 512 = 65,536 and c_16 2 x 128
    tiles = 524,288; the tilize cores (10, 9) and (9, 9) hold c_7 32 sub-tokens of align(8,192 / 2, 16) = 4,096 B
    and c_8 129 rows of align(9 * 4, 16) = 48 B; the combine rectangle is 3 x 4 from (1, 0), its c_0 the tilize
    output's 2 x 128 tiles (backed by result 3)."""
    case = next(c for c in CASES if c.id == "moe_gpt/big/2")
    p = _program(case)
    on = {}
    for cb in p.cbs:
        for r in cb.cores.ranges:
            on.setdefault((r.start.x, r.start.y), []).append((cb.index, cb.bytes))
    assert on[(0, 0)] == [(0, 48_384), (2, 4), (3, 4), (4, 98_304), (6, 2_048), (5, 32), (14, 65_536), (16, 524_288)]
    tilize = dict(on[(9, 9)])
    assert tilize[7] == 32 * 4_096 and tilize[8] == 129 * 48
    combine = next(cb for cb in p.cbs if cb.globally_allocated)
    assert combine.bytes == 256 * 2_048 and combine.cores.ranges[0].start.x == 1 and combine.cores.ranges[0].end.y == 3


def test_moe_gpt_results_share_one_buffer():
    """Results 3 and 4 are one L1 buffer (the row-major view of the tilize output): the L1 timeline counts it once."""
    case = next(c for c in CASES if c.id == "moe_gpt/big/2")
    a, op = _analysis(case)
    per_core = 64 * 4096 * 2
    assert moe_compute.aliased_result(op, 4) == 3 and moe_compute.aliased_result(op, 3) is None
    assert per_core <= a.memory.points[op.index].l1_per_core < 2 * per_core


def test_moe_gpt_is_costed_as_a_roofline_of_its_matmuls():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    case = next(c for c in CASES if c.id == "moe_gpt/big/2")
    a, op = _analysis(case)
    hw = hardware_of(a)
    dops, why = device_ops(op, a, hw)
    assert why == "" and [d.op_code for d in dops] == ["MoEGPTDeviceOperation"]
    # 128 tokens x 4 of 16 experts: 32 per expert, one chunk; W0/W1 8 x 4 x 4 x 4096 x 128 and W2 8 x 4 x 2 x 2880
    # x 128 elements, each multiplied by 32 tokens
    assert dops[0].attrs["moe_flops"] == 2.0 * 32 * (8 * 4 * 4 * 4096 * 128 + 8 * 4 * 2 * 2880 * 128)
    cost = op_cost(op, a, hw, load_constants())
    assert cost.status == "costed"


# ----------------------------------------------------------------------------- moe_compute

from measurements.moe_compute.cases_compute import CASES as COMPUTE_CASES  # noqa: E402

COMPUTE = {r["id"]: r for r in (json.loads(line) for line in (ROOT / "measurements" / "moe_compute" /
                                                              "results_compute.jsonl").read_text().splitlines())}


def compute_module(case) -> str:
    """The op as tt-mlir emits it on a 1x1 mesh: the semaphore from ``allocate_moe_compute_semaphore``, the output
    buffer bound as operand 6 (here a function argument), the weights in the shapes moe_compute_utils packs."""
    p, r = case.p, COMPUTE[case.id]
    t, h, k = p["T"], p["H"], p["k"]
    drain = _crs([tuple(r["drain"])])
    sharded = {"buffer_type": "l1", "memory_layout": "height_sharded", "core_ranges": drain}
    w_kw = {"buffer_type": "dram", "memory_layout": "height_sharded", "grid": (8, 1),
            "core_ranges": _crs([(b, 0) for b in range(8)])}
    ins = [TensorDesc((1, t, h), "bf16", "row_major", "dram", "interleaved"),
           TensorDesc((1, t, k), "u16", "row_major", **sharded), TensorDesc((1, t, k), "bf16", "row_major", **sharded),
           TensorDesc((1, p["E"] * p["D"]), "u16", "row_major", "dram", "interleaved"),
           TensorDesc(tuple(r["w0_w1_shape"]), "bfp_bf4", "tile", **w_kw),
           TensorDesc(tuple(r["w2_shape"]), "bfp_bf4", "tile", **w_kw),
           TensorDesc((k, t, h), "bf16", "row_major", "dram", "interleaved")]
    out = ins[6]
    mux = (f", mux_core_range_set = #ttnn.core_range_set<[#ttnn.core_range<({p['mux'][0]},{p['mux'][1]}), "
           f"({p['mux'][2]},{p['mux'][3]})>]>" if p["mux"] else "")
    args = ", ".join(f"%arg{i}: {d.type_text()}" for i, d in enumerate(ins))
    types = ", ".join(d.type_text() for d in ins)
    return f"""module {{
  func.func @main({args}) -> {out.type_text()} {{
    %dev = "ttnn.get_device"() <{{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}}> : () -> !ttnn.device
    %sem = "ttnn.allocate_moe_compute_semaphore"(%dev) <{{hidden_size = {h} : ui32, output_height_shard_dim = {p['hs']} : ui32{mux}}}> : (!ttnn.device) -> !ttnn.global_semaphore
    %r = "ttnn.moe_compute"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %sem, %dev) <{{operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>, layer_id = 0 : ui32, output_height_shard_dim = {p['hs']} : ui32, intermediate_size = {p['N']} : ui32, has_bias = false, cluster_axis = 1 : ui32{mux}}}> : ({types}, !ttnn.global_semaphore, !ttnn.device) -> {out.type_text()}
    return %r : {out.type_text()}
  }}
}}
"""


def _compute_analysis(case):
    a = analyze(parse_text(compute_module(case), "t.mlir"), "blackhole")
    return a, next(o for o in a.program.ops if o.name == "ttnn.moe_compute")


@pytest.mark.parametrize("case", COMPUTE_CASES, ids=[c.id for c in COMPUTE_CASES])
def test_moe_compute_matches_the_mock(case):
    measured = COMPUTE[case.id]
    a, op = _compute_analysis(case)
    ctx = context_for(a, op, arch=MOCK, free_l1=FULL)
    if measured["error"]:
        info = measured["error"].split("info:")[-1].strip().splitlines()[0]
        with pytest.raises(DeviceRejection) as exc:
            moe_compute.moe_compute_program(ctx)
        assert info in str(exc.value)
        return
    p = moe_compute.moe_compute_program(ctx)
    want = Counter((c["size"], _cores(c["core_ranges"]), c["borrowed"]) for c in measured["cbs"])
    assert _model_cbs(p) == want
    # the intermediate outputs the op holds in L1 while it runs: the measured L1 buffers but the bound output's
    assert p.l1_buffers_per_core == sum(b["per_bank"] for b in measured["l1_buffers"])
    assert_specs_match(run_spec_model(op, ctx), measured["outputs"][5:])


def test_moe_compute_placement_matches_ttnns_helpers():
    """The drain tilize core and the combine cores the model places are where ttnn's get_moe_tilize_drain_core and
    get_moe_combine_cores put them (the probe asked them, with each case's mux cores)."""
    for case in COMPUTE_CASES:
        a, op = _compute_analysis(case)
        ctx = context_for(a, op, arch=MOCK, free_l1=FULL)
        h = case.p["H"]
        dp = moe_compute.data_parallel_cores(h // 32)
        ring, combine, tilize = moe_compute.place_moe_compute(ctx, case.p["hs"], dp, h // 32,
                                                              moe_compute._mux_cells(op))
        assert list(tilize[0]) == COMPUTE[case.id]["drain"]
        assert sorted(map(list, combine)) == sorted(COMPUTE[case.id]["combine"])


def test_moe_compute_result_is_the_bound_output_buffer():
    """The combine output is the bound optional_output_tensor (operand 6): the L1/DRAM timeline counts it once."""
    case = next(c for c in COMPUTE_CASES if not COMPUTE[c.id]["error"])
    a, op = _compute_analysis(case)
    assert moe_compute.tied_output(op, 0) == 6
    out_bytes = a.infos[op.operands[6]].placement.bytes_per_bank
    assert a.memory.points[op.index].dram_per_bank < 2 * out_bytes + sum(
        a.infos[v].placement.bytes_per_bank for v in op.operands[:6] if a.infos[v].placement.buffer_type == "dram")


def test_moe_compute_over_a_mesh_axis_is_not_modeled():
    """On a 1x2 mesh with cluster_axis 1 ttnn runs the fused combine over the fabric: reported unmodeled."""
    case = next(c for c in COMPUTE_CASES if not COMPUTE[c.id]["error"])
    text = compute_module(case).replace("mesh_shape 1x1", "mesh_shape 1x2")
    a = analyze(parse_text(text, "t.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == "ttnn.moe_compute")
    prog = a.programs[op.index]
    assert prog.status != "modeled" and "fabric" in prog.reason


def test_moe_compute_is_costed_as_a_roofline_of_its_matmuls():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    case = next(c for c in COMPUTE_CASES if not COMPUTE[c.id]["error"])
    a, op = _compute_analysis(case)
    hw = hardware_of(a)
    dops, why = device_ops(op, a, hw)
    assert why == "" and [d.op_code for d in dops] == ["MoEComputeDeviceOperation"]
    assert dops[0].attrs["moe_matmul_cores"] == 8 and dops[0].attrs["moe_flops"] > 0
    assert op_cost(op, a, hw, load_constants()).status == "costed"
