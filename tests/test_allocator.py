"""The bank allocator model (ttanalyze.allocator) against hand-derived and measured numbers.

Measured figures come from ``measurements/allocator/raw.jsonl.gz`` (ttnn 0.81.1 on the
mock P150; ``measurements/allocator/measure.py``); the replay of all of them is
``measurements/allocator/compare.py`` (test below).
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from ttanalyze.allocator import DeviceAllocator, FreeList, OutOfMemory, bank_configs, size_per_bank
from ttanalyze.arch import DEFAULTS, MOCK_P150_TTNN_0_81_1

REPO = Path(__file__).resolve().parents[1]
MOCK_RUNTIME = replace(MOCK_P150_TTNN_0_81_1, l1_small_size=65536)  # the tt-mlir runtime's L1_SMALL
MB = 1 << 20


def test_size_per_bank_spreads_pages_round_robin():
    # 330 row-major bf16 rows of 200 B over 110 L1 banks: 3 pages of round_up(200, 16) = 208 B
    assert size_per_bank(330 * 200, 200, 110, 16) == 3 * 208
    # 4 tiles over 110 banks: one 2,048 B page per bank
    assert size_per_bank(4 * 2048, 2048, 110, 16) == 2048
    # DRAM: 17 tiles over 8 banks -> 3 pages
    assert size_per_bank(17 * 2048, 2048, 8, 64) == 3 * 2048
    with pytest.raises(ValueError):
        size_per_bank(100, 64, 8, 64)


def test_bank_sizes_of_the_p150():
    # L1: 1,572,864 - 111,744 - 65,536; DRAM: 4,278,190,080 - 1,048,704 (no trace region)
    cfg = bank_configs(MOCK_RUNTIME)
    assert cfg["l1"].bank_size == 1_395_584 and cfg["l1"].base == 111_744 and cfg["l1"].num_banks == 110
    assert cfg["l1_small"].bank_size == 65_536 and cfg["l1_small"].base == 1_572_864 - 65_536
    assert cfg["dram"].bank_size == 4_277_141_376 and cfg["dram"].num_banks == 8
    # a 100 MiB trace region takes 13,107,200 B off every one of the 8 channels (measured)
    assert bank_configs(MOCK_RUNTIME, 100 * MB)["dram"].bank_size == 4_264_034_176
    # the system_desc's dram_unreserved_end is tt-mlir's estimate, 2,659,200 B below tt-metal's end
    bh = DEFAULTS["blackhole"]
    assert bank_configs(bh)["dram"].bank_size - bh.usable_dram_per_bank == 2_659_200


def test_first_fit_not_best_fit():
    # holes of 64 MiB (low) and 32 MiB (high) per bank; a 32 MiB request takes the low one (measured:
    # probe dram_first_vs_best, address 1,048,704 = the DRAM base)
    a = DeviceAllocator(MOCK_RUNTIME)
    bufs = [a.allocate("dram", s * 8, 2048) for s in (64 * MB, 16 * MB, 32 * MB, 16 * MB)]
    assert [b.address for b in bufs] == [1_048_704, 68_157_568, 84_934_784, 118_489_216]
    a.deallocate(bufs[0])
    a.deallocate(bufs[2])
    assert a.allocate("dram", 32 * MB * 8, 2048).address == 1_048_704


def test_l1_is_allocated_top_down_below_l1_small():
    a = DeviceAllocator(MOCK_RUNTIME)
    top = 1_572_864 - 65_536
    b0 = a.allocate("l1", 64 * 1024 * 110, 2048)
    b1 = a.allocate("l1", 16 * 1024 * 110, 2048)
    assert b0.address == top - 65_536 and b1.address == top - 65_536 - 16_384
    a.deallocate(b0)
    # a 32 KiB request takes the top of the freed 64 KiB hole (highest address first)
    assert a.allocate("l1", 32 * 1024 * 110, 2048).address == top - 32_768


def test_every_allocation_is_rounded_to_the_dram_alignment():
    # a [330, 100] bf16 row-major L1 tensor: 624 B per bank, a 640 B block (64-B free-list alignment)
    a = DeviceAllocator(MOCK_RUNTIME)
    b = a.allocate("l1", 330 * 200, 200)
    assert (b.size_per_bank, b.aligned_size_per_bank) == (624, 640)
    assert a.managers["l1"].statistics().allocated == 640


def test_fragmentation_oom_message_to_the_byte():
    # 8 DRAM blocks of bank/8, every other one freed, then a request of about 2 blocks: 4 blocks free in total,
    # none larger than one block (measured: probe dram_fragmentation_oom, the same text)
    a = DeviceAllocator(MOCK_RUNTIME)
    blk = 534_626_304  # the probe's block: 261,048 tiles of 2,048 B per bank, just under bank / 8
    bufs = [a.allocate("dram", blk * 8, 2048) for _ in range(8)]
    for b in bufs[::2]:
        a.deallocate(b)
    oom = a.allocate("dram", 4_176_832 * 2048, 2048)  # the probe's [2088416, 2048] bf16 tile tensor
    assert isinstance(oom, OutOfMemory) and oom.fragmentation
    assert oom.message() == (
        "Out of Memory: Not enough space to allocate 8554151936 B DRAM buffer across 8 banks, where each bank "
        "needs to store 1069268992 B, but bank size is 4277141376 B (allocated: 2138505216 B, free: 2138636160 B, "
        "largest free block: 534626304 B).")


def test_sharded_buffers_spread_over_their_cores_only():
    # height sharded on 4 cores, shard 64x32 bf16 tiles = 2 tiles per core
    a = DeviceAllocator(MOCK_RUNTIME)
    b = a.allocate("l1", 8 * 2048, 2048, num_shards=4)
    assert b.size_per_bank == 4096


def test_free_merges_neighbours_and_statistics_follow_tt_metal():
    fl = FreeList(10 * 1024, 64)
    x = fl.allocate(1000, True)
    y = fl.allocate(1000, True)
    z = fl.allocate(1000, True)
    assert (x, y, z) == (0, 1024, 2048)  # 1000 -> 1024 (64-B alignment)
    fl.deallocate(y)
    s = fl.statistics()
    assert (s.allocated, s.free, s.largest_free) == (2048, 8192, 7168)
    fl.deallocate(x)
    fl.deallocate(z)
    assert fl.free_by_start == {0: 10 * 1024}
    # with nothing allocated, free and largest are the bank size (FreeListOpt::get_statistics)
    assert fl.statistics().largest_free == 10 * 1024


def test_measured_sequences_replay_exactly():
    """Every measured allocation of measurements/allocator/raw.jsonl.gz: same address or same OOM text; and the
    reshape page-mapping tensors the program cache keeps (reshape_map.jsonl), to the byte per DRAM bank."""
    m = REPO / "measurements" / "allocator"
    out = subprocess.run([sys.executable, str(m / "compare.py"), str(m / "raw.jsonl.gz"),
                          "--reshape-map", str(m / "reshape_map.jsonl")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr


# ---------------------------------------------------------------------------
# The replay of a whole program (ttanalyze.memory.replay) and its rules
# ---------------------------------------------------------------------------

from tests.conftest import DRAM_TILE, L1_TILE, analyze_text, findings_of, wh_module  # noqa: E402


def _fragmenting_program(deallocate: bool) -> str:
    """Wormhole (64 cores, L1 bank 1,499,136 - 103,712 - 65,536 = 1,329,888 B): four L1 results of 160
    tiles per core (327,680 B each) fill the bank top-down to 1,310,720 B (19,168 B left at the bottom);
    freeing the 1st and 3rd leaves 674,528 B free in holes of at most 327,680 B; then a 200-tile result
    (409,600 B per core) is requested."""
    n, m = 160, 200
    aliases = "\n".join(["#d = " + DRAM_TILE.format(r=1, c=64 * n), "#l = " + L1_TILE.format(n=n),
                         "#D = " + DRAM_TILE.format(r=1, c=64 * m), "#L = " + L1_TILE.format(n=m)])
    td, tl = f"tensor<32x{2048 * n}xbf16, #d>", f"tensor<32x{2048 * n}xbf16, #l>"
    tD, tL = f"tensor<32x{2048 * m}xbf16, #D>", f"tensor<32x{2048 * m}xbf16, #L>"
    frees = (f'\n    "ttnn.deallocate"(%0) <{{force = false}}> : ({tl}) -> ()'
             f'\n    "ttnn.deallocate"(%2) <{{force = false}}> : ({tl}) -> ()') if deallocate else ""
    body = f"""
    %0 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %1 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %2 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %3 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %4 = "ttnn.add"(%0, %2) : ({tl}, {tl}) -> {td}{frees}
    %5 = "ttnn.relu"(%arg1) : ({tD}) -> {tL}
    %6 = "ttnn.add"(%1, %3) : ({tl}, {tl}) -> {td}{frees.replace("%0", "%1").replace("%2", "%3")}
    return %4, %5, %6 : {td}, {tL}, {td}"""
    return wh_module(aliases, body, f"%arg0: {td}, %arg1: {tD}", f"{td}, {tL}, {td}")


def test_fragmentation_in_l1_is_an_error_when_every_free_is_explicit():
    a = analyze_text(_fragmenting_program(deallocate=True))
    [f] = findings_of(a, "TTA014")
    assert f.severity == "error" and f.data["certain"]
    assert f.data["tt_metal_message"] == (
        "Out of Memory: Not enough space to allocate 26214400 B L1 buffer across 64 banks, where each bank needs "
        "to store 409600 B, but bank size is 1329888 B (allocated: 655360 B, free: 674528 B, largest free block: "
        "327680 B).")
    assert findings_of(a, "TTA004") == []  # not a capacity problem: 674,528 B are free
    # the four L1 results fill the bank from its top: 4 x 327,680 B of address range at the 4th relu
    fourth = next(o for o in a.program.ops if o.results and o.results[0].name == "%3")
    assert a.memory.points[fourth.index].l1_extent_per_core == 1_310_720


def test_fragmentation_after_last_use_frees_is_only_a_warning():
    # the same program without ttnn.deallocate: the model frees %0 and %2 at their last use (the add),
    # but the tt-mlir runtime keeps undeallocated tensors until the program ends
    a = analyze_text(_fragmenting_program(deallocate=False))
    [f] = findings_of(a, "TTA014")
    assert f.severity == "warning" and not f.data["certain"]
    assert any("no ttnn.deallocate" in u for u in f.data["uncertain"])


def test_capacity_overflow_is_certain_whatever_the_frees():
    # 3 x 524,288 B per core of live L1 tensors at the add (conftest.l1_overflow_module): by capacity,
    # the buffers certain to be alive already exceed the 1,329,888 B bank
    from tests.conftest import l1_overflow_module
    a = analyze_text(l1_overflow_module())
    [f] = findings_of(a, "TTA004")
    assert f.severity == "error" and f.data["certain_bytes"] == 3 * 524_288
    assert f.data["tt_metal_message"].startswith(
        "Out of Memory: Not enough space to allocate 33554432 B L1 buffer across 64 banks, where each bank needs "
        "to store 524288 B, but bank size is 1329888 B (allocated: 1048576 B, free: 281312 B")


def test_a_view_shares_its_input_buffer():
    # reshape [32, 4096] -> [1, 32, 4096] keeps the last dim and the tile padding: ttnn returns a view, so
    # DRAM holds one buffer of 128 tiles over 12 banks = 11 pages x 2,048 B = 22,528 B per bank, not two
    aliases = "#d = " + DRAM_TILE.format(r=1, c=128) + "\n#e = #ttnn.ttnn_layout<(d0, d1, d2) -> (d0 * 32 + d1, d2), " \
              "<1x1>, memref<1x128x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>>"
    body = """
    %0 = "ttnn.reshape"(%arg0) <{shape = [1 : i32, 32 : i32, 4096 : i32]}> : (tensor<32x4096xbf16, #d>) -> tensor<1x32x4096xbf16, #e>
    return %0 : tensor<1x32x4096xbf16, #e>"""
    a = analyze_text(wh_module(aliases, body, "%arg0: tensor<32x4096xbf16, #d>", "tensor<1x32x4096xbf16, #e>"))
    op = a.program.ops[0]
    assert a.programs[op.index].status == "not_device"
    assert a.allocation.points[op.index].dram_allocated == 22_528
    assert a.memory.points[op.index].dram_per_bank == 2 * 22_528  # the sum counts the view twice


def test_reshape_uploads_a_dram_mapping_tensor_kept_by_the_program_cache():
    # seed mochi_conv1_norm2_reshape_wh: the tiled reshape [1,4,768,60,106] -> [4,32,24,6360] uploads its
    # page-mapping tensor (25,472 output tiles x 224 segments x 16 B = 3,584 B rows, uint32 row-major, DRAM
    # interleaved over 12 banks): ceil(25,472 / 12) = 2,123 rows x 3,584 B = 7,608,832 B per bank.  At the
    # reshape, DRAM holds the argument (3,440,640 B: the caller owns it), %1 (4,194,304 B), the result %2
    # (4,347,904 B) and the mapping tensor.
    from tests.conftest import FIXTURES, analyze_path
    a = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    reshape = next(o for o in a.program.ops if o.name == "ttnn.reshape")
    [db] = [d for st in a.programs[reshape.index].stages for d in st.device_buffers]
    assert (db.buffer_type, db.size, db.page_size, db.kept) == ("dram", 25_472 * 3_584, 3_584, True)
    assert a.allocation.points[reshape.index].dram_allocated == 3_440_640 + 4_194_304 + 4_347_904 + 7_608_832


def test_fragmentation_fix_moves_a_live_l1_tensor_to_dram():
    # moving %1 to DRAM right after it is made leaves its 327,680 B hole under %0, where %2 goes (highest
    # fitting block); the freed %0 and %2 then merge into one 655,360 B hole that holds the 409,600 B request
    from ttanalyze.fixes.catalog import suggest
    from ttanalyze.ir.parse import parse_text
    from ttanalyze.rules import run

    src = _fragmenting_program(deallocate=True)
    from ttanalyze.analysis import analyze
    a = analyze(parse_text(src, "frag.mlir"))
    findings = run(a)
    [f] = [g for g in findings if g.rule == "TTA014"]
    best = suggest(f, src, a, findings)[0]
    assert best.id == "l1/move-to-dram" and best.applicable


def test_a_bank_above_95_percent_is_a_warning():
    # two L1 results of 320 and 300 tiles per core: 655,360 + 614,400 = 1,269,760 B of the 1,329,888 B
    # Wormhole bank (95.5% > 95%): it fits, with a warning at the second relu
    aliases = "\n".join(["#d = " + DRAM_TILE.format(r=1, c=64 * 320), "#l = " + L1_TILE.format(n=320),
                         "#e = " + DRAM_TILE.format(r=1, c=64 * 300), "#m = " + L1_TILE.format(n=300)])
    td, tl = "tensor<32x655360xbf16, #d>", "tensor<32x655360xbf16, #l>"
    te, tm = "tensor<32x614400xbf16, #e>", "tensor<32x614400xbf16, #m>"
    body = f"""
    %0 = "ttnn.relu"(%arg0) : ({td}) -> {tl}
    %1 = "ttnn.relu"(%arg1) : ({te}) -> {tm}
    return %0, %1 : {tl}, {tm}"""
    a = analyze_text(wh_module(aliases, body, f"%arg0: {td}, %arg1: {te}", f"{tl}, {tm}"))
    [f] = findings_of(a, "TTA015")
    assert f.severity == "warning" and f.op_index == a.program.ops[1].index
    assert (f.data["bytes_allocated"], f.data["bank_size"]) == (1_269_760, 1_329_888)
    assert findings_of(a, "TTA004") == [] and findings_of(a, "TTA014") == []


def test_load_cached_results_stay_in_the_cache():
    # attention_o0: main deallocates its two load_cached results with force = false; the const-eval cache
    # holds them too, so ttnn keeps their buffers: each [1, 1, 1(, 1)] bf16 tile is one 2,048 B page, 2,048 B
    # per DRAM bank.  At main's last op (a deallocate) DRAM holds them, the two reshape page-mapping tensors
    # the program cache keeps (4 x 4,096 B and 32 x 512 B over 8 banks: 4,096 + 2,048 B), the returned %18
    # (64 tiles: 8 x 2,048 = 16,384 B) and the value that op frees; main's arguments were deallocated.
    from tests.conftest import FIXTURES, analyze_path
    a = analyze_path(FIXTURES / "real" / "attention_o0" / "ttnn.mlir")
    main = a.program.func("main")
    last = main.ops[-1]
    assert [o.name for o in main.ops].count("ttcore.load_cached") == 2
    freed = a.infos[last.operands[0]].placement.bytes_per_bank
    assert a.allocation.points[last.index].dram_allocated == 2 * 2048 + 4096 + 2048 + 16_384 + freed


def test_size_classes_give_plain_first_fit():
    # the size-class search (FreeList.take) against a linear scan of every free block, on random sequences of
    # allocations and frees in both directions: the lowest (bottom-up) or highest (top-down) fitting block, carved
    # at its low or high end
    import random

    rng = random.Random(14)
    for trial in range(40):
        bottom_up = trial % 2 == 0
        fl = FreeList(1 << 26, 64)
        live: list[int] = []
        for _ in range(300):
            if live and rng.random() < 0.45:
                fl.deallocate(live.pop(rng.randrange(len(live))))
                continue
            size = rng.choice([64, 1000, 2048, 5000, 70_000, 1 << 20, 3 << 20]) * rng.randint(1, 4)
            need = fl.aligned(size)
            fitting = [a for a, s in fl.free_by_start.items() if s >= need]
            expected = None
            if fitting:
                block = min(fitting) if bottom_up else max(fitting)
                expected = block if bottom_up else block + fl.free_by_start[block] - need
            got = fl.allocate(size, bottom_up)
            assert got == expected
            if got is not None:
                live.append(got)
