"""The free L1 a factory sees and the L1 a program's CBs may not pass come from the allocator replay
(tt-metal's lowest allocated L1 address, holes included), not from the sum of live L1 buffers.

Checked against the allocator measured on the mock P150 (``measurements/allocator/raw.jsonl.gz``: the lowest
live L1 address after every step of 64 measured sequences), and on programs derived by hand.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

from ttanalyze.allocator import DeviceAllocator, OutOfMemory
from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_text
from ttanalyze.programs import max_l1_space, summed_free_l1

from tests.conftest import DRAM_TILE, L1_TILE, analyze_text, bh_module, findings_of, wh_module

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "measurements" / "allocator"))


def test_lowest_l1_address_matches_the_measured_allocator():
    """After each measured step, the model's lowest allocated L1 address equals the lowest measured address of
    the live L1 buffers; in many steps holes put it below ``top - allocated`` (what the sums would say)."""
    from compare import arch_for, buffer_of

    steps = below_sum = 0
    for line in gzip.open(ROOT / "measurements" / "allocator" / "raw.jsonl.gz", "rt"):
        r = json.loads(line)
        if r["kind"] not in ("probe", "random"):
            continue
        alloc = DeviceAllocator(arch_for(r["open_kwargs"]), int(r["open_kwargs"].get("trace_region_size", 0)))
        l1 = alloc.managers["l1"]
        live, measured = {}, {}
        for step in r["steps"]:
            if step["op"] == "alloc":
                bt, size, page, shards = buffer_of(step["spec"])
                got = alloc.allocate(bt, size, page, shards)
                if not isinstance(got, OutOfMemory) and "address" in step:
                    live[step["id"]] = got
                    if bt == "l1":
                        measured[step["id"]] = step["address"]
            else:
                a = live.pop(step["id"], None)
                measured.pop(step["id"], None)
                if a is not None:
                    alloc.deallocate(a)
            lowest = min(measured.values(), default=None)
            assert l1.lowest_occupied_address() == lowest
            steps += 1
            top = l1.config.base + l1.config.bank_size
            below_sum += lowest is not None and lowest < top - step["stats"]["l1"]["allocated"]
    assert steps > 2000 and below_sum > 100


def _hole_before_rms_norm(deallocate: bool) -> str:
    """Wormhole (L1 from 103,712 to 1,499,136 - 65,536 = 1,433,600): %0 (160 tiles per core, 327,680 B) and
    %1 (16 tiles, 32,768 B) fill L1 top-down, then %0 is freed: %1 stays at 1,433,600 - 360,448 = 1,073,152,
    while the sums put the lowest buffer at 1,433,600 - 32,768 = 1,400,832."""
    n, m = 160, 16
    aliases = "\n".join(["#d = " + DRAM_TILE.format(r=1, c=64 * n), "#l = " + L1_TILE.format(n=n),
                         "#e = " + DRAM_TILE.format(r=1, c=64 * m), "#k = " + L1_TILE.format(n=m),
                         "#w = " + DRAM_TILE.format(r=1, c=256)])
    td, tl = f"tensor<32x{2048 * n}xbf16, #d>", f"tensor<32x{2048 * n}xbf16, #l>"
    te, tk = f"tensor<32x{2048 * m}xbf16, #e>", f"tensor<32x{2048 * m}xbf16, #k>"
    tw = "tensor<32x8192xbf16, #w>"
    free0 = f'\n    "ttnn.deallocate"(%0) <{{force = false}}> : ({tl}) -> ()' if deallocate else ""
    body = f"""
    %0 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %1 = "ttnn.relu"(%arg1) : ({te}) -> {tk}{free0}
    %2 = "ttnn.rms_norm"(%arg2) <{{epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 0>}}> : ({tw}) -> {tw}
    "ttnn.deallocate"(%1) <{{force = false}}> : ({tk}) -> ()
    return %2 : {tw}"""
    return wh_module(aliases, body, f"%arg0: {td}, %arg1: {te}, %arg2: {tw}", tw)


def test_a_factory_sees_the_free_l1_below_the_lowest_buffer_not_the_sum():
    # rms_norm [32, 8192] bf16 single pass: 2 x 256 + 30 tiles x 2,048 B = 1,110,016 B of CBs.  Below the
    # lowest buffer there are 1,073,152 - 103,712 = 969,440 B (95 %: 920,968 B): tt-metal takes the
    # large-tensor kernel, where the sums (1,297,120 B free) would keep the single pass.
    a = analyze_text(_hole_before_rms_norm(deallocate=True))
    op = next(o for o in a.program.ops if o.name == "ttnn.rms_norm")
    assert a.allocation.l1_lowest_at_op[op.index] == 1_073_152
    assert (max_l1_space(a, op), summed_free_l1(a, op.index, a.arch)) == (969_440, 1_297_120)
    [program] = a.programs[op.index].stages
    assert any("large-tensor kernel" in n for n in program.notes)


def _hole_before_sharded_rms_norm(deallocate: bool) -> str:
    """Blackhole (L1 from 177,280 to 1,572,864 - 65,536 = 1,507,328; 110 banks): %0 (500 tiles per core,
    1,024,000 B) and %1 (16 tiles, 32,768 B) top-down; %0 freed: %1 at 1,507,328 - 1,056,768 = 450,560."""
    n, m = 500, 16
    l1 = "#ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <10x11>, memref<1x{n}x!ttcore.tile<32x32, bf16>, #l1>, <interleaved>>"
    aliases = "\n".join(["#d = " + DRAM_TILE.format(r=1, c=110 * n), "#l = " + l1.format(n=n),
                         "#e = " + DRAM_TILE.format(r=1, c=110 * m), "#k = " + l1.format(n=m),
                         "#w = " + DRAM_TILE.format(r=1, c=1024)])
    td, tl = f"tensor<32x{3520 * n}xbf16, #d>", f"tensor<32x{3520 * n}xbf16, #l>"
    te, tk = f"tensor<32x{3520 * m}xbf16, #e>", f"tensor<32x{3520 * m}xbf16, #k>"
    tw = "tensor<32x32768xbf16, #w>"
    free0 = f'\n    "ttnn.deallocate"(%0) <{{force = false}}> : ({tl}) -> ()' if deallocate else ""
    body = f"""
    %0 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %1 = "ttnn.relu"(%arg1) : ({te}) -> {tk}
    %3 = "ttnn.relu"(%0) : ({tl}) -> {td}{free0}
    %2 = "ttnn.rms_norm"(%arg2) <{{epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 0>}}> : ({tw}) -> {tw}
    "ttnn.deallocate"(%1) <{{force = false}}> : ({tk}) -> ()
    return %2, %3 : {tw}, {td}"""
    return bh_module(aliases, body, f"%arg0: {td}, %arg1: {te}, %arg2: {tw}", f"{tw}, {td}")


def test_a_clash_with_a_buffer_below_a_hole_is_an_error_when_every_free_is_explicit():
    # rms_norm [32, 32768] bf16 under the plugin: width-sharded, block_w 64, DFBs 61,440 - 5 x 2,048 (bf16
    # intermediates) + 64 x 2 x 2,048 = 294,912 B: the region ends at 472,192 B, above %1 (450,560) although
    # the sums (1,507,328 - 32,768 - 262,144 B of shards = 1,212,416) leave room; the shards go into the hole.
    a = analyze(parse_text(_hole_before_sharded_rms_norm(deallocate=True), "hole.mlir"), tt_metal="614f605f")
    [f] = findings_of(a, "TTA010")
    assert f.severity == "error" and f.data["check"] == "clash"
    assert (f.data["cb_region_end"], f.data["lowest_l1_buffer"]) == (472_192, 450_560)


def test_a_clash_only_holes_make_after_last_use_frees_is_a_warning():
    # without the ttnn.deallocate, the model frees %0 at its last use (%3), while the tt-mlir runtime keeps
    # it to the end: the hole may not exist, and tt-metal may not see the clash
    a = analyze(parse_text(_hole_before_sharded_rms_norm(deallocate=False), "hole.mlir"), tt_metal="614f605f")
    [f] = findings_of(a, "TTA010")
    assert f.severity == "warning" and "holes" in f.message
    assert (f.data["cb_region_end"], f.data["lowest_l1_buffer"]) == (472_192, 450_560)
