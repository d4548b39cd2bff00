"""The companion executor: graph parsing, request building and the client (no ttnn needed), and
replays on a ttnn device (skipped, with the reason, when the executor environment is absent).

Device numbers were measured on a mock Blackhole P150, ttnn 0.81.1 (tt-metal d80d9482): the device
tests below replay them (and the op-level campaign, measurements/opdiff/results.jsonl.gz, covers the
same factories).  On a machine
shared with other mock-device users, run the suite under ``scripts/device-lock``.
"""

from __future__ import annotations

import json
import re
import stat
import sys
from pathlib import Path

import pytest

from ttanalyze.executor import client
from ttanalyze.executor.client import DeviceResult, Executor, request_for
from ttanalyze.executor.ttnn_worker import (
    Unsupported, check_attrs, name_of, parse_core_range_set, parse_graph, short_error,
)
from ttanalyze.ir.attrs import CoreCoord, CoreRange, CoreRangeSet
from ttanalyze.ops.spec import TensorSpec

from .conftest import FIXTURES, analyze_path, analyze_text, device, wh_module

DATA = Path(__file__).parent / "data"
SEED_UNTILIZE = FIXTURES / "seeds" / "mochi_replicate_pad_untilize_wh.mlir"
CONV2D_BLOCK = FIXTURES / "real" / "conv2d_block_o0" / "ttnn.mlir"
MLP_O2 = FIXTURES / "real" / "mlp_o2" / "ttnn.mlir"


def op_at(analysis, line: int):
    return next(op for op in analysis.program.ops if op.pos.line == line)


def load_graph(name: str) -> list[dict]:
    return json.loads((DATA / name).read_text())


# ---------------------------------------------------------------------------
# Captured-graph parsing (recorded graphs in tests/data, no ttnn)
# ---------------------------------------------------------------------------


def test_core_range_set_forms():
    assert parse_core_range_set("{[0-0 - 10-8], [0-9 - 9-9]}") == [[0, 0, 10, 8], [0, 9, 9, 9]]
    assert parse_core_range_set("{[(x=0,y=0) - (x=7,y=7)]}") == [[0, 0, 7, 7]]
    assert parse_core_range_set("") == []
    with pytest.raises(ValueError):
        parse_core_range_set("{garbage}")


def test_untilize_graph_per_core_peak_honours_core_ranges():
    # graph_untilize_multicore.json: to_layout (untilize) of the seed's [4, 4884480] bf16 TILE DRAM
    # tensor, captured on the mock P150.  Two 716,800 B DFBs on the 109 cores {[0-0 - 10-8], [0-9 - 9-9]}
    # (11*9 + 10) and two 81,920 B DFBs on the cliff core (10, 9): no core holds more than
    # 2 * 716,800 = 1,433,600 B; ttnn's extract_resource_usage_per_core adds all four, 1,597,440 B.
    parsed = parse_graph(load_graph("graph_untilize_multicore.json"))
    cbs = parsed["cbs"]
    assert [(c["kind"], c["size"], c["core_ranges"]) for c in cbs] == [
        ("dfb", 716_800, [[0, 0, 10, 8], [0, 9, 9, 9]]),
        ("dfb", 716_800, [[0, 0, 10, 8], [0, 9, 9, 9]]),
        ("dfb", 81_920, [[10, 9, 10, 9]]),
        ("dfb", 81_920, [[10, 9, 10, 9]]),
    ]
    assert parsed["cb_per_core_peak"] == 1_433_600
    assert sum(c["size"] for c in cbs) == 1_597_440
    assert {c["op"] for c in cbs} == {"UntilizeWithUnpaddingDeviceOperation"}
    assert {c["factory"] for c in cbs} == {"ttnn::prim::UntilizeWithUnpaddingMultiCoreBlockInterleavedProgramFactory"}
    assert {c["program"] for c in cbs} == {0}
    assert parsed["l1_buffers"] == []  # the output is a DRAM buffer


def test_max_pool2d_graph_programs_borrowed_cbs_and_l1_buffers():
    # graph_max_pool2d.json: conv2d_block_o0's max_pool2d (line 59), captured on the mock P150.  Four
    # programs: InterleavedToSharded (a borrowed 768 B DFB + a 512 B scratchpad), Halo (CBs of 768 and
    # 4,480 B globally allocated, 64+64+4+4+40+40 = 216 B own), Pool2D (own 4,096 + 2,048 + 12 + 4,096 +
    # 4,096 = 14,348 B; 4,480 and 192 B borrowed), ShardedToInterleaved (a borrowed 192 B DFB).  Each
    # program's CBs are released before the next, so the peak is Pool2D's 14,348 B.
    parsed = parse_graph(load_graph("graph_max_pool2d.json"))
    cbs = parsed["cbs"]
    assert [c["op"] for c in cbs if c["program"] == 2][0] == "Pool2D"
    own = {p: sum(c["size"] for c in cbs if c["program"] == p and not c["borrowed"]) for p in range(4)}
    assert own == {0: 512, 1: 216, 2: 14_348, 3: 0}
    assert parsed["cb_per_core_peak"] == 14_348
    assert [c["kind"] for c in cbs if c["program"] == 0] == ["dfb", "scratchpad"]
    # L1 buffers (per bank): the sharded input 768 B, the halo output 4,480 B, the sharded pool output
    # 192 B, all freed inside the op; 768 is freed before 192 is allocated, so at most 768 + 4,480 live.
    assert [(b["per_bank"], b["freed"]) for b in parsed["l1_buffers"]] == [(768, True), (4480, True), (192, True)]
    assert parsed["l1_buffers_peak_per_bank"] == 5_248


def _node(counter, node_type, **params):
    return {"counter": counter, "node_type": node_type, "params": {k: str(v) for k, v in params.items()},
            "connections": []}


def test_parse_graph_hand_built_trace():
    # program 0: 1,000 B on cores x 0..1 and 300 B on x 1..2 -> core (1, 0) holds 1,300;
    # a borrowed CB adds nothing; program 1 (after the release): a 2,000 B scratchpad on one core.
    trace = [
        _node(0, "circular_buffer_allocate", size=1000, core_range_set="{[0-0 - 1-0]}", globally_allocated=0),
        _node(1, "dataflow_buffer_allocate", size=300, core_range_set="{[1-0 - 2-0]}", borrows_memory=0),
        _node(2, "circular_buffer_allocate", size=5000, core_range_set="{[0-0 - 2-0]}", globally_allocated="true"),
        _node(3, "circular_buffer_deallocate_all"),
        _node(4, "scratchpad_allocate", size=2000, core_range_set="{[5-5 - 5-5]}"),
    ]
    parsed = parse_graph(trace)
    assert parsed["cb_per_core_peak"] == 2000
    assert [c["program"] for c in parsed["cbs"]] == [0, 0, 0, 1]
    assert parse_graph(trace[:3])["cb_per_core_peak"] == 1300
    with pytest.raises(ValueError):
        parse_graph([_node(0, "circular_buffer_allocate", core_range_set="{[0-0 - 0-0]}")])


def test_short_error_drops_the_backtrace():
    exc = RuntimeError("TT_FATAL @ a.cpp:1: x\ninfo:\nboom\nbacktrace:\n --- f0\n --- f1")
    assert short_error(exc) == "TT_FATAL @ a.cpp:1: x\ninfo:\nboom"


def test_attribute_names_and_attribute_checks():
    assert name_of("bf16", "dtype") == "bf16"
    assert name_of({"name": "bf16"}, "dtype") == "bf16"
    assert name_of({"kind": "tensor_memory_layout", "value": "height_sharded"}, "x") == "height_sharded"
    assert name_of({"value": "tile"}, "layout") == "tile"
    assert name_of({"name": None, "items": [{"name": "relu"}], "kw": {}, "kind": "angle"}, "x") == "relu"
    with pytest.raises(Unsupported):
        name_of(3, "dtype")
    check_attrs("ttnn.matmul", {"transpose_a": False, "matmul_program_config": None})
    check_attrs("ttnn.max_pool2d", {"in_place_halo": False})
    with pytest.raises(Unsupported, match="unsupported op ttnn.reduce_scatter"):
        check_attrs("ttnn.reduce_scatter", {})
    check_attrs("ttnn.conv3d", {"dilation": [1, 1, 1]})
    with pytest.raises(Unsupported, match="dilation"):
        check_attrs("ttnn.conv3d", {"dilation": [2, 1, 1]})
    with pytest.raises(Unsupported, match="in_place_halo"):
        check_attrs("ttnn.max_pool2d", {"in_place_halo": True})
    with pytest.raises(Unsupported, match="unsupported attribute bogus"):
        check_attrs("ttnn.relu", {"bogus": 1})


def test_worker_covers_every_eltwise_op_of_the_registry():
    from ttanalyze.executor.ttnn_worker import HANDLERS
    from ttanalyze.ops import eltwise

    names = {f"ttnn.{n}" for n in (*eltwise.UNARY, *eltwise.BINARY, "pow_scalar", "where")}
    assert names <= set(HANDLERS)


# ---------------------------------------------------------------------------
# IR -> request (no ttnn)
# ---------------------------------------------------------------------------


def test_request_for_untilize_seed():
    a = analyze_path(SEED_UNTILIZE)
    req = request_for(op_at(a, 20), a)
    assert req["op"] == "ttnn.to_layout"
    assert req["attrs"] == {"layout": {"value": "row_major"}}
    assert req["operands"] == [{"shape": [4, 4884480], "dtype": "bf16", "layout": "tile", "buffer_type": "dram",
                                "memory_layout": "interleaved", "shard": None}]
    assert req["results"] == [{"shape": [4, 4884480], "dtype": "bf16", "layout": "row_major", "buffer_type": "dram",
                               "memory_layout": "interleaved", "shard": None}]
    assert req["fillers"] == []
    json.dumps(req)  # plain JSON


def test_request_for_sharded_result_and_device_operand():
    a = analyze_path(MLP_O2)
    # line 33: to_memory_config of [32, 128] to width_sharded L1 on core (0, 0), memref 1x4 tiles:
    # the shard is 1 x 4 tiles = [32, 128] elements
    (res,) = request_for(op_at(a, 33), a)["results"]
    assert (res["buffer_type"], res["memory_layout"]) == ("l1", "width_sharded")
    assert res["shard"] == {"core_ranges": [[0, 0, 0, 0]], "shape": [32, 128], "orientation": "row_major"}
    conv = op_at(analyze_path(CONV2D_BLOCK), 53)
    creq = request_for(conv, analyze_path(CONV2D_BLOCK))
    assert creq["operands"][-1] is None  # the !ttnn.device operand
    assert creq["attrs"]["compute_config"]["math_fidelity"] == "hifi4"


def test_request_for_needs_layouts():
    a = analyze_text(wh_module("", '    %0 = "ttnn.relu"(%a) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>\n'
                                   "    return %0 : tensor<32x32xbf16>",
                               "%a: tensor<32x32xbf16>", "tensor<32x32xbf16>"))
    with pytest.raises(ValueError, match="no #ttnn.ttnn_layout"):
        request_for(a.program.ops[0], a)


def test_device_result_from_response():
    resp = {"id": 3, "ok": True, "cb_per_core_peak": 786432, "l1_buffers_peak_per_bank": 0,
            "cbs": [{"kind": "dfb", "size": 131072, "core_ranges": [[0, 0, 1, 1]], "address": 0, "borrowed": False,
                     "program": 0, "op": "MatmulDeviceOperation", "factory": "F"}],
            "l1_buffers": [{"size": 2048, "per_bank": 2048, "page_size": 2048, "buffer_type": "l1",
                            "layout": "INTERLEAVED", "address": 0, "freed": False}],
            "outputs": [{"shape": [64, 128], "padded_shape": [64, 128], "dtype": "bf16", "layout": "tile",
                         "buffer_type": "l1", "memory_layout": "height_sharded",
                         "shard": {"core_ranges": [[0, 0, 1, 0]], "shape": [32, 128], "orientation": "row_major"}}],
            "device": {"arch": "blackhole"}}
    r = DeviceResult.from_response(resp)
    assert r.ok and r.cb_per_core_peak == 786432
    assert r.cbs[0].cores == CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(1, 1)),))
    assert r.outputs == [TensorSpec((64, 128), (64, 128), "tile", "bf16", "l1", "height_sharded", (32, 128))]
    assert r.l1_buffers[0].per_bank == 2048


# ---------------------------------------------------------------------------
# The client's process handling, against a stand-in worker (no ttnn)
# ---------------------------------------------------------------------------


@pytest.fixture()
def fake_python(tmp_path):
    """An executable that runs tests/data/fake_worker.py with this interpreter."""
    exe = tmp_path / "fake-python"
    exe.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{DATA / 'fake_worker.py'}' \"$@\"\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_client_survives_an_aborting_worker(fake_python):
    with Executor(python=fake_python, timeout=30) as ex:
        pid = ex.info()["device"]["pid"]
        r = ex.run({"op": "abort"})
        assert not r.ok and r.crashed
        assert "killed by signal 6" in r.error
        assert "TT_FATAL @ fake_op.cpp:42: cb_size <= l1_size" in r.error
        assert "backtrace" not in r.error
        again = ex.run({"op": "ttnn.relu"})  # a new worker serves the next request
        assert again.ok and again.device["pid"] != pid
        assert ex.restarts == 1


def test_client_kills_a_stuck_worker(fake_python):
    with Executor(python=fake_python) as ex:
        r = ex.run({"op": "hang"}, timeout=1)
        assert not r.ok and r.crashed and "no response within 1 s" in r.error
        assert ex.run({"op": "ttnn.relu"}).ok


def test_available_reports_why_not(monkeypatch, tmp_path):
    monkeypatch.setenv("TTANALYZE_TTNN_PYTHON", str(tmp_path / "missing-python"))
    ok, reason = client.available()
    assert not ok and "no executor interpreter" in reason
    monkeypatch.setenv("TTANALYZE_TTNN_PYTHON", sys.executable)  # the analyzer venv has no ttnn
    ok, reason = client.available()
    assert not ok and "ttnn is not installed" in reason


def test_mock_descriptor_resolution(monkeypatch):
    monkeypatch.delenv("TT_METAL_MOCK_CLUSTER_DESC_PATH", raising=False)
    monkeypatch.setenv("TTANALYZE_MOCK_DESC", "/somewhere/p150.yaml")
    assert client.mock_descriptor() == Path("/somewhere/p150.yaml")
    monkeypatch.delenv("TTANALYZE_MOCK_DESC")
    monkeypatch.setattr(client, "has_hardware", lambda: False)
    assert client.mock_descriptor() == (client.REPO / "ttanalyze" / "executor" / "mock" / "blackhole_P150.yaml").resolve()
    monkeypatch.setattr(client, "has_hardware", lambda: True)
    assert client.mock_descriptor() is None


# ---------------------------------------------------------------------------
# On the device
# ---------------------------------------------------------------------------



def bh_module(body: str, args: str) -> str:
    """A Blackhole module (the system_desc of fixtures/real/mlp_o1) with bf16 [1024, 1024]/[1024, 256] layouts."""
    desc = re.search(r"^#system_desc = .*$", (FIXTURES / "real" / "mlp_o1" / "ttnn.mlir").read_text(), re.M).group(0)
    return (
        "#dram = #ttnn.buffer_type<dram>\n#l1 = #ttnn.buffer_type<l1>\n" + desc + "\n"
        # DRAM interleaved: the whole 2D tensor in tiles; L1 interleaved: 1 x ceil(1024 tiles / 110 cores)
        "#dram_sq = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x32x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>\n"
        "#dram_n = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x8x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>\n"
        "#l1_sq = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <10x11>, memref<1x10x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>\n"
        "module attributes {ttcore.system_desc = #system_desc} {\n"
        f"  func.func @main({args}) {{\n{body}\n    return\n  }}\n}}\n"
    )


SQ_L1, SQ_DRAM, N_DRAM = "tensor<1024x1024xbf16, #l1_sq>", "tensor<1024x1024xbf16, #dram_sq>", "tensor<1024x256xbf16, #dram_n>"
MATMULS = bh_module(
    f'    %0 = "ttnn.matmul"(%a, %b) <{{transpose_a = false, transpose_b = false}}> : ({SQ_L1}, {SQ_L1}) -> {SQ_DRAM}\n'
    # one core, per_core_M = 32 and per_core_N = 8 tiles with in0_block_w = 8: NOTES.md §4e
    '    %1 = "ttnn.matmul"(%c, %d) <{matmul_program_config = #ttnn.matmul_multi_core_reuse_program_config<'
    "compute_with_storage_grid_size = #ttnn.core_coord<1, 1>, in0_block_w = 8, out_subblock_h = 1, "
    f"out_subblock_w = 1, per_core_m = 32, per_core_n = 8>}}> : ({SQ_DRAM}, {N_DRAM}) -> {N_DRAM}",
    f"%a: {SQ_L1}, %b: {SQ_L1}, %c: {SQ_DRAM}, %d: {N_DRAM}",
)


@device
def test_device_info(ex):
    info = ex.info()
    assert info["ttnn_version"] == "0.81.1" and info["tt_metal_sha"].startswith("d80d9482")
    dev = info["device"]
    assert dev["arch"] == "blackhole"
    if dev["mock"]:  # the P150 figures of NOTES.md §4c
        assert dev["grid"] == [11, 10]
        assert (dev["l1_size"], dev["l1_base"], dev["l1_bank_size"]) == (1_572_864, 111_744, 1_461_120)


@device
def test_device_untilize_multicore_peak(ex):
    a = analyze_path(SEED_UNTILIZE)
    r = ex.replay(op_at(a, 20), a)
    assert r.ok, r.error
    assert r.cb_per_core_peak == 1_433_600  # 2 x 716,800 on 109 cores, not the 1,597,440 sum
    assert sorted(c.size for c in r.cbs) == [81_920, 81_920, 716_800, 716_800]
    assert r.outputs == [TensorSpec((4, 4884480), (4, 4884480), "row_major", "bf16", "dram", "interleaved", None)]
    assert r.l1_allocated_per_bank == 0


@device
def test_device_untilize_single_core(ex):
    a = analyze_path(SEED_UNTILIZE)
    req = request_for(op_at(a, 20), a)
    req.update(op="ttnn.untilize", attrs={"use_multicore": False})
    r = ex.run(req)
    assert r.ok, r.error
    assert r.cb_per_core_peak == 655_360  # 2 x 327,680 on core (0, 0)
    assert [(c.size, c.cores.num_cores) for c in r.cbs] == [(327_680, 1), (327_680, 1)]


@device
def test_device_matmul_l1_inputs(ex):
    a = analyze_text(MATMULS, "matmuls.mlir")
    r = ex.replay(a.program.ops[0], a)
    assert r.ok, r.error
    assert r.cb_per_core_peak == 786_432
    assert [(c.size, c.cores) for c in r.cbs] == [
        (size, CoreRangeSet((CoreRange(CoreCoord(0, 0), CoreCoord(1, 1)),))) for size in (131_072, 131_072, 524_288)]
    assert r.l1_allocated_per_bank == 2 * 20_480  # two [1024, 1024] L1 inputs, 10 tiles per bank
    # with 60 more such tensors alive, the auto config shrinks to 3 x 32,768 B on 8x8 cores (NOTES.md §4e)
    filled = ex.replay(a.program.ops[0], a, fillers=[a.program.ops[0].operands[0]] * 60)
    assert filled.ok and filled.cb_per_core_peak == 98_304
    assert filled.l1_allocated_per_bank == 62 * 20_480


@device
def test_device_tt_fatal_is_a_result_and_the_worker_keeps_serving(ex):
    a = analyze_text(MATMULS, "matmuls.mlir")
    restarts = ex.restarts
    r = ex.replay(a.program.ops[1], a)
    assert not r.ok and not r.crashed
    # base 111,744 + 1,835,008 B of CBs on core (0, 0)
    assert "grow to 1946752 B which is beyond max L1 size of 1572864 B" in r.error
    again = ex.replay(a.program.ops[0], a)
    assert again.ok and again.cb_per_core_peak == 786_432
    assert ex.restarts == restarts


@device
def test_device_unsupported_op(ex):
    r = ex.run({"op": "ttnn.reduce_scatter", "operands": [], "attrs": {}, "results": [{"shape": [32, 32]}]})
    assert not r.ok and r.unsupported and "unsupported op ttnn.reduce_scatter" in r.error


@device
def test_device_conv3d_matches_its_cb_model(ex):
    # Conv3d program of mochi_small_edgepad_o0: ttnn 0.81.1 on the mock P150 allocates the same CBs per core
    # as ops/conv.py's model (128,384 B per core, see docs/accuracy.md) and returns the declared type.
    a = analyze_path(FIXTURES / "real" / "mochi_small_edgepad_o0" / "ttnn.mlir")
    conv3d = next(op for op in a.program.ops if op.name == "ttnn.conv3d")
    r = ex.replay(conv3d, a)
    assert r.ok, r.error
    assert r.cb_per_core_peak == a.programs[conv3d.index].program.per_core_bytes()
    assert [list(o.shape) for o in r.outputs] == [list(conv3d.results[0].type.shape)]


HOST_OPS = {"ttnn.deallocate", "ttnn.get_device", "ttnn.from_device", "ttnn.to_device", "func.return",
            "ttcore.load_cached"}


@device
@pytest.mark.parametrize("path", [CONV2D_BLOCK, MLP_O2], ids=lambda p: p.parent.name)
def test_device_fixture_ops_match_their_declared_results(ex, path):
    a = analyze_path(path)
    for op in a.program.ops:
        if op.name in HOST_OPS:
            continue
        r = ex.replay(op, a)
        assert r.ok, f"{op} {r.error}"
        declared = [client.tensor_descriptor(v.type, a, v) for v in op.results]
        got = [{"shape": list(o.shape), "dtype": o.dtype, "layout": o.layout, "buffer_type": o.buffer_type,
                "memory_layout": o.memory_layout} for o in r.outputs]
        assert got == [{k: d[k] for k in got[0]} for d in declared], op
        shards = [d["shard"]["shape"] if d["shard"] else None for d in declared]
        assert [list(o.shard_shape) if o.shard_shape else None for o in r.outputs] == shards, op
        if op.name == "ttnn.conv2d":
            # Conv2dDeviceOperation's own CBs, 4,096 x 3 + 2,048 + 8 + 64 = 14,408 B (its input, weights and
            # output CBs are borrowed from sharded buffers): measured on mock P150, ttnn 0.81.1
            assert r.cb_per_core_peak == 14_408
            assert {c.op for c in r.cbs} >= {"HaloDeviceOperation", "Conv2dDeviceOperation"}
