"""Hardware constants of Wormhole and Blackhole as the cost model uses them.

Every number here is cited, none is fitted (the fitted ones are in
``constants.json``, :mod:`ttanalyze.cost.constants`).  Sources:

* [clock] AI clock.  Wormhole n150 1.0 GHz and Blackhole 1.35 GHz, both read off
  the measured traces (``DEVICE FW DURATION [ns]`` over the FW cycle counters:
  1.0000 and 1.3500 for every row of ``wh_clip_encoder_2.csv`` and
  ``bh_p100_dlv3.csv``); docs.tenstorrent.com Blackhole specifications ("AI clock
  up to 1.35 GHz").  tt-metal's old ``OpPerformanceModel`` assumed 1.2 GHz for
  Blackhole; the measured 1.35 GHz is used here.
* [dram] DRAM peak: Wormhole 288 GB/s over 12 banks (6 GDDR6 channels x 2);
  Blackhole 64 GB/s per channel, p150 8 channels = 512 GB/s, p100 7 channels =
  448 GB/s.  tt-perf-report ``perf_report.py`` (tenstorrent/tt-perf-report
  00b7324a, ``ArchitectureSpec.dram_bandwidth_gb_s`` 288 / 512);
  docs.tenstorrent.com Blackhole specifications (p100a 448 GB/s, p150 512 GB/s);
  tt-metal ``ttnn/core/operation.cpp`` (0e45a1c0: Blackhole 512 GB/s).
* [noc] Peak NoC bytes per cycle into one core: Wormhole 32, Blackhole 64.
  tt-metal ``ttnn/cpp/ttnn/operations/matmul/device/config/matmul_auto_config.hpp``
  (06a393d5, ``HardwareDesc::noc_bytes_per_cycle``; ``for_arch`` sets 64 for
  Blackhole).
* [tm] One core's achieved NoC read bandwidth and transaction latency, measured
  by tt-metal and tabulated in ``common_tm_bw_model``
  (``ttnn/cpp/ttnn/operations/data_movement/common/common.cpp``, tenstorrent/
  tt-metal 00555207841e47df499e51d41caa99aa90177d3d): the ``dram_bw`` table
  gives, per transaction size, Wormhole 0.436 GB/s at 16 B up to 27.9 GB/s at
  1 KB and 28.4 GB/s from 2 KB; Blackhole 0.387 GB/s at 16 B, 24.7 GB/s at 1 KB
  and 50.6 GB/s from 4 KB.  Bandwidth proportional to size below the knee is a
  fixed time per transaction: 16 B / 0.436 GB/s = 36.7 ns (Wormhole) and
  16 B / 0.387 GB/s = 41.3 ns (Blackhole, 55.8 cycles at 1.35 GHz).  The same
  function's first-transaction latencies: DRAM 358 / 529 cycles, L1 read 259 /
  403 cycles (Wormhole / Blackhole).
* [fpu] Matrix engine: 4096 FLOP per cycle per core at LoFi (an 8x16 by 16x16
  multiply per cycle), HiFi2 / HiFi3 / HiFi4 take 2 / 3 / 4 passes, so one
  32x32x32 tile product takes 16 x passes cycles.  tt-metal
  ``tech_reports/matrix_engine/matrix_engine.md`` (0909e36a);
  ``MatmulDeviceOperation::create_op_performance_model``
  (``tensix_mul_adds_per_cycle_lofi = 4096``, 9f46ee6b).
* [eth] Ethernet link peak, per direction: Wormhole 100 Gb/s (12.5 GB/s) per
  ethernet core, Blackhole 400 Gb/s (50 GB/s); docs.tenstorrent.com Wormhole /
  Blackhole specifications (Wormhole 16 x 100 GbE, Blackhole 400G ethernet
  ports).  A peak: no measured CCL row calibrates the achieved rate.
* [grid] Worker grid: Wormhole n150 8x8 = 64; Blackhole p100 11x10 = 110 (the
  trace's ``AVAILABLE WORKER CORE COUNT``), p150 13x10 = 130 (tt-perf-report
  ``ArchitectureSpec.worker_cores``).  The caller passes the grid it has.
"""

from __future__ import annotations

from dataclasses import dataclass

ARCHS = ("wormhole_b0", "blackhole")

# Math fidelity -> passes of the matrix engine per multiply [fpu].
FIDELITY_PASSES = {"LoFi": 1, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}


@dataclass(frozen=True)
class Hardware:
    """One device as the cost model sees it.

    Attributes:
        arch: ``wormhole_b0`` or ``blackhole``.
        clock_hz: AI clock, Hz [clock].
        grid_cores: worker cores available.
        dram_channels: DRAM channels (Wormhole: banks) feeding ``dram_bytes_per_s``.
        dram_bytes_per_s: DRAM peak, bytes/s [dram].
        noc_bytes_per_cycle: peak NoC bytes per cycle into one core [noc].
        core_noc_bytes_per_cycle: one core's achieved NoC read bandwidth with large
            transactions, bytes/cycle [tm].
        noc_txn_cycles: one core's time per NoC transaction below the bandwidth knee,
            cycles (issue-bound small transactions) [tm].
        dram_latency_cycles: first-transaction DRAM read latency, cycles [tm].
        l1_latency_cycles: first-transaction remote L1 read latency, cycles [tm].
        eth_link_bytes_per_s: one ethernet link's peak, bytes/s per direction [eth].
    """

    arch: str
    clock_hz: float
    grid_cores: int
    dram_channels: int
    dram_bytes_per_s: float
    noc_bytes_per_cycle: float
    core_noc_bytes_per_cycle: float
    noc_txn_cycles: float
    dram_latency_cycles: float
    l1_latency_cycles: float
    eth_link_bytes_per_s: float = 12.5e9

    @property
    def ns_per_cycle(self) -> float:
        """Nanoseconds per AI-clock cycle."""
        return 1e9 / self.clock_hz

    @property
    def dram_bytes_per_ns(self) -> float:
        """DRAM peak in bytes per nanosecond (= GB/s)."""
        return self.dram_bytes_per_s / 1e9


# Per-arch constants; DRAM per channel: Wormhole 288 GB/s / 12 banks = 24 GB/s, Blackhole 64 GB/s [dram].
_ARCH = {
    "wormhole_b0": dict(clock_hz=1.0e9, default_channels=12, channel_bytes_per_s=24e9, noc=32.0,
                        core_noc=28.4, txn_ns=16 / 0.436, dram_lat=358.0, l1_lat=259.0, eth=12.5e9),
    "blackhole": dict(clock_hz=1.35e9, default_channels=8, channel_bytes_per_s=64e9, noc=64.0,
                      core_noc=50.6 / 1.35, txn_ns=16 / 0.387, dram_lat=529.0, l1_lat=403.0, eth=50e9),
}


# Boards -> (arch, DRAM channels per chip) [dram]: Wormhole n150 / n300 (per chip) 12 banks; Blackhole p100(a)
# 7 channels (448 GB/s), p150(a/b/c) and p300 (per chip) 8 channels (512 GB/s).  A 110-core Blackhole grid
# may be either (a p150 with dispatch cores taken, as in tt-perf-report's bh_8xp150 trace): the board is
# never guessed from the grid.
BOARDS = {"n150": ("wormhole_b0", 12), "n300": ("wormhole_b0", 12), "galaxy": ("wormhole_b0", 12),
          "p100": ("blackhole", 7), "p150": ("blackhole", 8), "p300": ("blackhole", 8)}
# The board assumed when none is given: the arch's full-DRAM single-chip board.
DEFAULT_BOARD = {"wormhole_b0": "n150", "blackhole": "p150"}


def default_dram_channels(arch: str, grid_cores: int = 0) -> int:
    """DRAM channels when the caller knows neither them nor the board: those of :data:`DEFAULT_BOARD`.

    Wormhole 12 banks (n150), Blackhole 8 channels (p150), whatever the grid
    (``grid_cores`` is accepted and ignored: a grid does not name a board).
    """
    return BOARDS[DEFAULT_BOARD.get(arch.lower(), "n150")][1]


def board_channels(board: str, arch: str) -> int:
    """DRAM channels per chip of a board (:data:`BOARDS`).

    Raises:
        ValueError: an unknown board, or one of the other arch.
    """
    b = board.lower()
    if b not in BOARDS:
        raise ValueError(f"unknown board '{board}': expected one of {', '.join(BOARDS)}")
    if BOARDS[b][0] != arch.lower():
        raise ValueError(f"board '{board}' is a {BOARDS[b][0]} board, not {arch}")
    return BOARDS[b][1]


def for_device(arch: str, grid_cores: int, dram_channels: int | None = None, board: str | None = None) -> Hardware:
    """The :class:`Hardware` of a device.

    Args:
        arch: ``wormhole_b0`` or ``blackhole`` (the system_desc's arch or the CSV's DEVICE ARCH).
        grid_cores: worker cores (the system_desc's grid, or AVAILABLE WORKER CORE COUNT).
        dram_channels: DRAM channels (the system_desc's ``num_dram_channels``); None: the board's.
        board: ``n150``, ``n300``, ``p100``, ``p150``, ``p300`` (:data:`BOARDS`); None with no
            ``dram_channels``: :func:`default_dram_channels`.

    Raises:
        ValueError: unknown arch or board, a board of the other arch, or a non-positive grid or channel count.
    """
    a = arch.lower()
    if a not in _ARCH:
        raise ValueError(f"unknown arch '{arch}': expected one of {', '.join(ARCHS)}")
    if dram_channels is None and board is not None:
        dram_channels = board_channels(board, a)
    if grid_cores < 1:
        raise ValueError(f"grid_cores must be positive, not {grid_cores}")
    if dram_channels is None:
        dram_channels = default_dram_channels(a, grid_cores)
    if dram_channels < 1:
        raise ValueError(f"dram_channels must be positive, not {dram_channels}")
    p = _ARCH[a]
    clock = p["clock_hz"]
    return Hardware(
        arch=a, clock_hz=clock, grid_cores=grid_cores, dram_channels=dram_channels,
        dram_bytes_per_s=dram_channels * p["channel_bytes_per_s"], noc_bytes_per_cycle=p["noc"],
        core_noc_bytes_per_cycle=p["core_noc"], noc_txn_cycles=p["txn_ns"] * clock / 1e9,
        dram_latency_cycles=p["dram_lat"], l1_latency_cycles=p["l1_lat"], eth_link_bytes_per_s=p["eth"])
