"""prepare_moe_compute_w0_w1_weights / prepare_moe_compute_w2_weights (ttanalyze.ops.moe_prepare) against the mock P150.

measurements/moe_prep/cases.py draws the instances (seeded: layers, experts, hidden and intermediate sizes, biases,
bf16/f32, DRAM/L1 weights); measurements/moe_prep/probe.py replayed the runtime's calls (the packer, then
quantize_weights_via_host) under NO_DISPATCH graph capture (rerun: ``.venv-ttnn/bin/python
measurements/moe_prep/probe.py --lock``) into measurements/moe_prep/results.jsonl.  Per case: the same device
operations in the same order with the same program factories, every static CB of each program the same size on the
same cores, the same kernel scratchpads, the same DRAM buffer allocations and frees in the same order (bytes per
bank), and the same result spec (shape, layout, bfloat4_b, DRAM height-sharded, shard shape).
"""

from __future__ import annotations

import json
from collections import Counter
from math import prod

import pytest

from measurements.moe_prep.cases import CASES, W0_W1
from ttanalyze.analysis import analyze
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1 as MOCK
from ttanalyze.ir.emit import TensorDesc
from ttanalyze.ir.parse import parse_text
from ttanalyze.memory import _tensor_request, replay
from ttanalyze.programs import context_for, program_of, run_spec_model

from .conftest import BH_SYSTEM_DESC, ROOT, assert_specs_match

FULL = 1_461_120  # the mock's free L1 bank
RESULTS = {r["id"]: r for r in map(json.loads, (ROOT / "measurements" / "moe_prep" / "results.jsonl")
                                   .read_text().splitlines())}
MEASURED = [c for c in CASES if c.id in RESULTS]


def module(case) -> str:
    """The case as tt-mlir writes the op (operands, then the device; the result as ttnn returned it, declared
    DRAM interleaved)."""
    ins = [TensorDesc(tuple(s), d, lay, buf, "interleaved") for s, d, lay, buf in case.operands]
    res = RESULTS[case.id]["outputs"][0]["shape"]
    out = TensorDesc(tuple(res), "bfp_bf4", "tile", "dram", "interleaved").type_text()
    args = ", ".join(f"%arg{i}: {t.type_text()}" for i, t in enumerate(ins))
    operands = ", ".join([f"%arg{i}" for i in range(len(ins))] + ["%dev"])
    types = ", ".join([t.type_text() for t in ins] + ["!ttnn.device"])
    attrs = f"hidden_size = {case.hidden} : ui32, intermediate_size = {case.intermediate} : ui32"
    if case.op == W0_W1:
        b = int(case.bias)
        attrs += f", operandSegmentSizes = array<i32: 1, 1, {b}, {b}, 1>"
    return (f"{BH_SYSTEM_DESC}\nmodule attributes {{ttcore.system_desc = #system_desc}} {{\n"
            f"  func.func @main({args}) -> {out} {{\n"
            '    %dev = "ttnn.get_device"() <{mesh_offset = #ttnn<mesh_offset 0x0>, mesh_shape = #ttnn<mesh_shape 1x1>}> '
            ": () -> !ttnn.device\n"
            f'    %r = "{case.op}"({operands}) <{{{attrs}}}> : ({types}) -> {out}\n'
            f"    return %r : {out}\n  }}\n}}\n")


def modeled(case):
    a = analyze(parse_text(module(case), "t.mlir"))
    op = next(o for o in a.program.ops if o.name == case.op)
    return a, op, program_of(a, op, arch=MOCK, free_l1=FULL)


def _cores(ranges) -> frozenset:
    return frozenset((x, y) for x0, y0, x1, y1 in ranges for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def _device_programs(measured) -> list[tuple[str, Counter, int]]:
    """Each measured program: factory, static CBs (bytes, cores) and its scratchpads' bytes."""
    cbs: dict[int, Counter] = {}
    scratch: dict[int, int] = {}
    for c in measured["cbs"]:
        if c["kind"] == "scratchpad":
            scratch[c["program"]] = scratch.get(c["program"], 0) + c["size"]
        elif not c["borrowed"]:
            cbs.setdefault(c["program"], Counter())[(c["size"], _cores(c["core_ranges"]))] += 1
    return [(step["factory"], cbs.get(i, Counter()), scratch.get(i, 0)) for i, step in enumerate(measured["chain"])]


def _model_programs(v) -> list[tuple[str, Counter, int]]:
    return [(p.factory.rsplit("::", 1)[-1],
             Counter((cb.bytes, frozenset((x, y) for r in cb.cores.ranges for x in range(r.start.x, r.end.x + 1)
                                          for y in range(r.start.y, r.end.y + 1))) for cb in p.static_cbs),
             p.extra_l1_per_core) for p in v.stages]


def _model_dram(v, result_per_bank: int) -> list[list]:
    """The model's DRAM events as the probe records them: sign, bytes per bank, programs run before it."""
    out, runs, sizes = [], 0, {}
    banks = MOCK.num_dram_channels
    events = [ev for st in v.stages for ev in st.events]
    for i, ev in enumerate(events):
        if ev[0] == "run":
            runs += 1
        elif ev[0] == "+":
            bt, size, page, _ = _tensor_request(ev[2])
            if bt == "dram":  # tt-metal's max_size_per_bank of an interleaved buffer
                per_bank = -(-(size // page) // banks) * -(-page // MOCK.dram_alignment) * MOCK.dram_alignment
                sizes[ev[1]] = per_bank
                # a program's output is allocated once its device operation started (the probe's count)
                started = i + 1 < len(events) and events[i + 1][0] == "run"
                out.append(["+", per_bank, runs + started])
        elif ev[0] == "-" and ev[1] in sizes:
            out.append(["-", sizes.pop(ev[1]), runs])
        elif ev[0] == "result":
            out.append(["+", result_per_bank, runs])
            return out  # the runtime frees the packed tensor after the op; the probe still holds it
    return out


def _measured_dram(measured) -> list[list]:
    """The probe's DRAM events through the result's allocation (the last one), less the frees of buffers allocated
    before the capture (the previous case's tensors, released when the probe's variables are rebound)."""
    out, live = [], Counter()
    events = measured["dram"]
    last = max(i for i, e in enumerate(events) if e[0] == "+")
    for sign, per_bank, page, runs in events[:last + 1]:
        if sign == "+":
            live[(per_bank, page)] += 1
        elif live[(per_bank, page)]:
            live[(per_bank, page)] -= 1
        else:
            continue
        out.append([sign, per_bank, runs])
    return out


@pytest.mark.parametrize("case", MEASURED, ids=[c.id for c in MEASURED])
def test_programs_match_the_mock(case):
    measured = RESULTS[case.id]
    assert not measured["error"], measured["error"]
    v = modeled(case)[2]
    assert v.status == "modeled", v.reason
    model, device = _model_programs(v), _device_programs(measured)
    assert [f for f, _, _ in model] == [f for f, _, _ in device]
    assert [cbs for _, cbs, _ in model] == [cbs for _, cbs, _ in device]
    assert [s for _, _, s in model] == [s for _, _, s in device]


@pytest.mark.parametrize("case", MEASURED, ids=[c.id for c in MEASURED])
def test_dram_buffers_match_the_mock(case):
    """Every DRAM allocation and free of the chain, in order, between the same programs (bytes per bank)."""
    measured = RESULTS[case.id]
    v = modeled(case)[2]
    out = measured["outputs"][0]
    result_per_bank = out["shard"]["shape"][0] // 32 * (out["shard"]["shape"][1] // 32) * 576  # bfloat4_b tiles
    assert _model_dram(v, result_per_bank) == _measured_dram(measured)


@pytest.mark.parametrize("case", MEASURED, ids=[c.id for c in MEASURED])
def test_output_spec_matches_the_mock(case):
    measured = RESULTS[case.id]
    a, op, _ = modeled(case)
    specs = run_spec_model(op, context_for(a, op, arch=MOCK, free_l1=FULL))
    assert_specs_match(specs, measured["outputs"])
    assert list(specs[0].shard_shape) == measured["outputs"][0]["shard"]["shape"]


DRAM_CASES = [c for c in MEASURED if c.buffer == "dram"]


@pytest.mark.parametrize("case", DRAM_CASES, ids=[c.id for c in DRAM_CASES])
def test_allocator_replay_sees_the_peak(case):
    """The allocator replay follows the chain's buffers: its DRAM peak at the op is the weights (allocated before)
    plus the most the measured chain held at once, per bank."""
    a, op, _ = modeled(case)
    chain_peak = live = 0
    for sign, per_bank, _ in _measured_dram(RESULTS[case.id]):
        live += per_bank if sign == "+" else -per_bank
        chain_peak = max(chain_peak, live)
    banks = MOCK.num_dram_channels
    weights = 0
    for shape, dtype, _, _ in case.operands:  # row-major interleaved: one page per row
        page = -(-shape[-1] * (4 if dtype == "f32" else 2) // MOCK.dram_alignment) * MOCK.dram_alignment
        weights += -(-prod(shape[:-1]) // banks) * page
    assert replay(a).points[op.index].dram_allocated == weights + chain_peak


@pytest.mark.parametrize("case", MEASURED[::6], ids=[c.id for c in MEASURED[::6]])
def test_cost_is_the_chain(case):
    """The cost model costs every program of the chain (one device operation each); the host step is no device op."""
    from ttanalyze.cost.constants import load
    from ttanalyze.cost.ir import hardware_of, op_cost

    a, op, v = modeled(case)
    cost = op_cost(op, a, hardware_of(a), load())
    assert cost.status == "costed", cost.reason
    assert len(cost.device_ops) == len(v.stages) == len(RESULTS[case.id]["chain"])
    assert all(e.ns > 0 for e in cost.estimates)
