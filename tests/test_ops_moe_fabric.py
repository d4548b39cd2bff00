"""all_to_all_dispatch / all_to_all_combine (ttanalyze.ops.moe_fabric) against a mock 1x2 Blackhole mesh.

measurements/moe_fabric/cases.py draws the instances (seeded); measurements/moe_fabric/probe.py replayed them on one
mock P300 board opened as a 1x2 mesh with FABRIC_1D (NO_DISPATCH graph capture; rerun: ``scripts/device-lock
.venv-ttnn/bin/python measurements/moe_fabric/probe.py``) into measurements/moe_fabric/results.jsonl, whose first
line records what ttnn found of the fabric (2 links on the axis, a 48-B packet header).  Every device runs the same
program; each model program must have the same CBs (size and cores, as multisets) as the first device's program of
its device operation, a case ttnn refused must be refused by the model (or, for an operand tt-mlir's workaround pass
would still make row-major bf16/u16, declined as IR from before that pass), and the output specs must match.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from measurements.moe_fabric.cases import CASES, MESH
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze.ops import moe_fabric
from ttanalyze.ops.cb import CBModelError, DeviceRejection
from ttanalyze.programs import context_for, run_spec_model

from .conftest import ROOT, assert_specs_match

FULL = 1_461_120  # the mock's free L1 bank
_LINES = [json.loads(line) for line in (ROOT / "measurements" / "moe_fabric" / "results.jsonl").read_text().splitlines()]
FABRIC = _LINES[0]
RESULTS = {r["id"]: r for r in _LINES[1:]}


def _desc(d) -> TensorDesc:
    shape, dtype, layout, buf = d
    return TensorDesc(tuple(shape), dtype, layout, buf, "interleaved")


def ir_operands(case) -> list:
    """The case's operands in the IR's order (combine: input, metadata, mapping; the cases list the mapping first)."""
    ops = list(case.operands)
    return [ops[0], ops[2], ops[1]] if case.op == "ttnn.all_to_all_combine" else ops


def module(case, mesh: tuple = MESH) -> str:
    ins, outs = [_desc(d) for d in ir_operands(case)], [_desc(d) for d in case.results]
    if case.op == "ttnn.all_to_all_dispatch":
        attrs = f"cluster_axis = 1 : i64, num_devices = {mesh[1]} : i64"
    else:
        k = case.operands[2][0][-1]
        attrs = (f"cluster_axis = 1 : i64, num_devices = {mesh[1]} : i64, num_experts_per_tok = {k} : i64, "
                 f"output_shard_dim = {case.kwargs['output_shard_dim']} : i64")
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    out_types = ", ".join(t.type_text() for t in outs)
    names = ", ".join(f"%r{i}" for i in range(len(outs)))
    operands = ", ".join(f"%arg{i}" for i in range(len(ins)))
    return f"""module {{
  func.func @main({args}) -> ({out_types}) {{
    %dev = "ttnn.get_device"() <{{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape {mesh[0]}x{mesh[1]}>}}> : () -> !ttnn.device
    {names} = "{case.op}"({operands}) <{{{attrs}}}> : ({", ".join(t.type_text() for t in ins)}) -> ({out_types})
    return {names} : {out_types}
  }}
}}
"""


def _analysis(case):
    a = analyze(parse_text(module(case), "t.mlir"), "blackhole")
    return a, next(o for o in a.program.ops if o.name == case.op)


def _programs(case, links: int):
    a, op = _analysis(case)
    ctx = context_for(a, op, arch=MOCK, free_l1=FULL)
    progs = (moe_fabric.dispatch_program(ctx, links) if case.op == "ttnn.all_to_all_dispatch"
             else moe_fabric.combine_programs(ctx, links))
    return progs if isinstance(progs, list) else [progs]


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _model_cbs(p) -> Counter:
    return Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                        for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs)


def _first_device_programs(measured) -> list[tuple[str, Counter]]:
    """The measured programs in order, one per device operation (the second device's copy dropped)."""
    by_program: dict[int, list] = {}
    for c in measured["cbs"]:
        by_program.setdefault(c["program"], []).append(c)
    out, seen = [], set()
    for _, cbs in sorted(by_program.items()):
        if cbs[0]["op"] in seen:
            continue
        seen.add(cbs[0]["op"])
        out.append((cbs[0]["op"], Counter((c["size"], _cores(c["core_ranges"])) for c in cbs if not c["borrowed"])))
    return out


def test_the_probe_saw_the_fabric_the_model_assumes():
    """The mock's fabric: FABRIC_1D on the P300's 2 ethernet channels between its chips, the 48-B header the model
    uses for lines of up to 16 hops."""
    assert FABRIC["num_links_axis1"] == 2 and FABRIC["packet_header_bytes"] == moe_fabric.PACKET_HEADER_BYTES


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_model_matches_the_mock(case):
    measured = RESULTS[case.id]
    if measured["error"]:
        if "row major" in measured["error"] or "must be uint16" in measured["error"]:
            # IR from before tt-mlir's workaround pass (which makes these operands row-major bf16/u16): declined
            with pytest.raises(CBModelError, match="workaround pass"):
                _programs(case, FABRIC["num_links_axis1"])
            return
        with pytest.raises(DeviceRejection):
            _programs(case, FABRIC["num_links_axis1"])
        return
    progs = _programs(case, FABRIC["num_links_axis1"])
    device = _first_device_programs(measured)
    assert [name for name, _ in device] == [p.factory.split("::")[0] for p in progs]
    for p, (_, cbs) in zip(progs, device):
        assert _model_cbs(p) == cbs, p.factory


SPEC_CASES = [c for c in CASES if not RESULTS[c.id]["error"]]


@pytest.mark.parametrize("case", SPEC_CASES, ids=[c.id for c in SPEC_CASES])
def test_output_spec_matches_the_mock(case):
    a, op = _analysis(case)
    specs = run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL))
    assert_specs_match(specs, RESULTS[case.id]["outputs"])


def test_dispatch_by_hand_with_the_assumed_link():
    """all_to_all_dispatch/2: input [8, 128, 1, 7168] bf16, indices [8, 128, 1, 4] u16, mapping [1, 1, 128, 2], all in
    DRAM (64-B alignment), on a 1x2 mesh, axis 1.  T = 8 * 128 = 1,024 tokens; the analysis assumes 1 link: t = 1,024
    on one sender core (0, 0).  c_0 2 x 14,336 = 28,672; c_1 1,024 x 64 (8-B rows aligned to 64) = 65,536; c_2
    128 x 64 = 8,192; c_3 2 x 48 = 96; c_4 2 devices x 1,024 = 2,048; c_5 1,024 x 2 x 64 = 131,072 (FullPacket: the
    sum, 235,616 B, fits the free L1)."""
    case = next(c for c in CASES if c.id == "all_to_all_dispatch/2")
    a, op = _analysis(case)
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    [p] = prog.stages
    assert [(cb.index, cb.bytes) for cb in p.cbs] == [(0, 28_672), (1, 65_536), (2, 8_192), (3, 96), (4, 2_048),
                                                      (5, 131_072)]
    assert p.cores.num_cores == 1 and any("1 fabric link assumed" in n for n in p.notes)
    assert "FullPacket" in " ".join(p.notes) and p.params["refusal_unsure"]


def test_dispatch_takes_page_by_page_when_l1_is_short():
    """The same instance with 200,000 B of free L1: 235,616 B of CBs do not fit the largest free block, so ttnn picks
    PageByPage and the 131,072-B metadata CB c_5 is not created."""
    case = next(c for c in CASES if c.id == "all_to_all_dispatch/2")
    a, op = _analysis(case)
    p = moe_fabric.dispatch_program(context_for(a, op, arch=MOCK, free_l1=200_000))
    assert [cb.index for cb in p.cbs] == [0, 1, 2, 3, 4] and "PageByPage" in " ".join(p.notes)


def test_combine_by_hand():
    """all_to_all_combine/0: input [4, 4, 8, 4096] bf16 (4 experts per device = 8 / 2), metadata [1, 4, 8, 2],
    mapping [1, 1, 8, 2], result [2, 2, 8, 4096] in DRAM.  moreh_full first: 2 * 2 * 8 = 32 rows of 8,192 B on 32
    cores (column-major split of the 11x10 grid), one 8,192-B CB (32 pages do not exceed 32 cores: no second).  The
    combine with 1 assumed link: c_0 4 x 8,192 = 32,768; c_1/c_2/c_3 16 B (4, 8 and 4 B rows aligned to 16); c_4
    3 x 3,280 = 9,840."""
    case = next(c for c in CASES if c.id == "all_to_all_combine/0")
    a, op = _analysis(case)
    prog = a.programs[op.index]
    assert prog.status == "modeled", prog.reason
    full, comb = prog.stages
    assert [(cb.index, cb.bytes) for cb in full.cbs] == [(0, 8_192)] and full.cores.num_cores == 32
    assert [(cb.index, cb.bytes) for cb in comb.cbs] == [(0, 32_768), (1, 16), (2, 16), (3, 16), (4, 9_840)]


def test_a_packet_header_beyond_16_hops_takes_an_extension_word():
    """A 1x32 line has 31 hops: the 1D header grows by one 16-B routing word (tt-metal fabric_context.hpp)."""
    from ttanalyze.ir.parse import parse_text as parse

    case = next(c for c in CASES if c.id == "all_to_all_dispatch/2")
    a = analyze(parse(module(case, (1, 32)), "t.mlir"), "blackhole")
    op = next(o for o in a.program.ops if o.name == case.op)
    assert moe_fabric.packet_header_bytes(op) == 64


def test_fabric_ops_are_costed_from_their_programs():
    from ttanalyze.cost.constants import load as load_constants
    from ttanalyze.cost.ir import device_ops, hardware_of, op_cost

    for cid, codes in (("all_to_all_dispatch/2", ["AllToAllDispatchDeviceOperation"]),
                       ("all_to_all_combine/0", ["FullDeviceOperation", "AllToAllCombineDeviceOperation"])):
        case = next(c for c in CASES if c.id == cid)
        a, op = _analysis(case)
        hw = hardware_of(a)
        dops, why = device_ops(op, a, hw)
        assert why == "" and [d.op_code for d in dops] == codes
        assert dops[-1].attrs["ring_size"] == 2 and dops[-1].attrs["num_links"] == 1
        assert op_cost(op, a, hw, load_constants()).status == "costed"
