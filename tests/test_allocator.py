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
    """Every measured allocation of measurements/allocator/raw.jsonl.gz: same address or same OOM text."""
    raw = REPO / "measurements" / "allocator" / "raw.jsonl.gz"
    out = subprocess.run([sys.executable, str(REPO / "measurements" / "allocator" / "compare.py"), str(raw)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
