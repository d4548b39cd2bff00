"""Cost model: hardware constants, the per-family formulas (hand-derived numbers), constants, accuracy helpers.

The formula tests use explicit constants (``_constants`` below), not the fitted
constants.json, so each expected number is derived in the comments from the
model's docstrings and the cited hardware constants.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from ttanalyze.cost import constants as K
from ttanalyze.cost.accuracy import Compared, ape, score, summarize
from ttanalyze.cost.device_op import DeviceOp, TensorInfo
from ttanalyze.cost.hardware import for_device
from ttanalyze.cost.model import (UnknownDeviceOp, UnmodeledDeviceOp, family, matmul_plan, predict)
from ttanalyze.cost.profile import read_profile

DATA = Path(__file__).parent / "data"

VALUES = {
    "launch_ns": 500.0, "dram_read_eff": 0.8, "dram_write_eff": 0.6, "dram_mixed_eff": 0.75,
    "dram_txn_bytes": 64.0, "eltwise_tile": 50.0, "sfpu_exp": 2000.0, "sfpu_heavy": 1500.0,
    "scalar_fill": 3000.0, "fill_byte": 1.0, "stick_read_dram": 400.0, "stick_read_l1": 200.0,
    "tilize_tile": 60.0, "untilize_tile": 80.0, "page_handoff": 200.0, "mm_cycles_per_pass": 20.0,
    "mm_unpack_tile": 30.0, "mm_block": 1000.0, "mm_spill_tile": 60.0, "mm_out_tile": 1000.0,
    "mm_dram_share": 0.6, "l1_copy_bytes": 48.0, "conv_gather": 10.0, "halo_bytes": 6.0, "pool_stick": 35.0,
}


def _constants(**over: float) -> K.Constants:
    vals = {**VALUES, **over}
    return K.Constants([K.Constant(n, v, "", None, "") for n, v in vals.items()])


def _t(shape, dtype="bfp_bf8", layout="tile", buf="dram", mem="interleaved", shard=None, shard_cores=None):
    padded = tuple(shape[:-2]) + tuple(-(-d // 32) * 32 for d in shape[-2:]) if layout == "tile" else tuple(shape)
    return TensorInfo(tuple(shape), padded, dtype, layout, buf, mem, shard, shard_cores)


# ----------------------------------------------------------------------------- hardware


def test_hardware_constants():
    wh = for_device("wormhole_b0", 64)
    assert wh.clock_hz == 1.0e9 and wh.dram_channels == 12
    assert wh.dram_bytes_per_s == pytest.approx(288e9)  # 12 banks x 24 GB/s
    assert wh.noc_txn_cycles == pytest.approx(16 / 0.436)  # 36.7 ns per 16-B transaction, at 1 GHz
    p100 = for_device("blackhole", 110, board="p100")
    assert p100.dram_channels == 7 and p100.dram_bytes_per_s == pytest.approx(448e9)
    # A grid does not name the board: a 110-core Blackhole without one is costed as a p150 (8 channels).
    assert for_device("blackhole", 110).dram_channels == 8
    assert p100.core_noc_bytes_per_cycle == pytest.approx(50.6 / 1.35)
    p150 = for_device("blackhole", 130)
    assert p150.dram_channels == 8 and p150.dram_bytes_per_s == pytest.approx(512e9)
    assert for_device("BLACKHOLE", 110, dram_channels=8).dram_bytes_per_s == pytest.approx(512e9)


@pytest.mark.parametrize("args", [("grayskull", 64), ("wormhole_b0", 0), ("blackhole", 110, 0),
                                  ("blackhole", 110, None, "n150"), ("wormhole_b0", 64, None, "x9")])
def test_hardware_rejects(args):
    with pytest.raises(ValueError):
        for_device(*args)


# ----------------------------------------------------------------------------- eltwise


def test_unary_dram_bound_blackhole():
    # 32768x64 bfp8 relu on 110 cores of a p100: 2048 tiles -> 19 per core.
    # Per tile (cycles): read = DRAM latency 529 + max(55.81 issue, 1088/37.48) = 584.81;
    # compute = eltwise_tile 50 (relu is light); write = 529 + 55.81 = 584.81.
    # core = 584.81 + 50 + 584.81 + 18 * 584.81 = 11746.2 cycles = 8700.9 ns at 1.35 GHz.
    # DRAM: 2048 tiles read and written, 1152 B each with the 64-B transaction overhead:
    # R = W = 2,359,296 B; max(R / (0.8 * 448), W / (0.6 * 448), (R + W) / (0.75 * 448)) = 14043.4 ns.
    t = _t((1, 1, 32768, 64))
    op = DeviceOp("UnaryDeviceOperation", "blackhole", 110, 110, (t,), (t,), "HiFi4", False, {"unary_ops": ["relu"]})
    e = predict(op, for_device("blackhole", 110, board="p100"), _constants())
    assert e.terms["dram"] == pytest.approx(4718592 / 336, rel=1e-6)
    assert e.terms["noc"] + e.terms["compute"] + e.terms["per_core"] == pytest.approx(11746.2 / 1.35, rel=1e-4)
    assert e.ns == pytest.approx(500 + 4718592 / 336, rel=1e-6)
    assert e.bound == "DRAM"
    assert e.dram_bytes == pytest.approx(2 * 2048 * 1088)


def test_tiny_op_is_overhead_bound():
    # One bf16 tile on one Wormhole core: read 358 + max(36.7, 2048/28.4 = 72.11) = 430.11, compute 50,
    # write 430.11 -> 910.2 cycles = 910.2 ns; launch 2000 ns dominates.
    t = _t((1, 1, 32, 32), "bf16")
    op = DeviceOp("UnaryDeviceOperation", "wormhole_b0", 1, 64, (t,), (t,))
    e = predict(op, for_device("wormhole_b0", 64), _constants(launch_ns=2000.0))
    assert e.ns == pytest.approx(2000 + 910.2, rel=1e-4)
    assert e.bound == "overhead"


def test_scalar_binary_fills_a_tile_and_few_cores():
    # A scalar multiply on 8 of 64 Wormhole cores, 800 bf16 tiles per core: per tile read 430.11,
    # compute 50, write 430.11 -> 910.22 + 799 * 430.11 = 344,568 cycles; + scalar_fill 3000.
    t = _t((1, 1, 32, 32 * 6400), "bf16")
    op = DeviceOp("BinaryNgDeviceOperation", "wormhole_b0", 8, 64, (t,), (t,), attrs={"scalar": True})
    e = predict(op, for_device("wormhole_b0", 64), _constants())
    read = 358 + 2048 / 28.4
    core = 2 * read + 50 + 799 * read + 3000
    assert e.ns == pytest.approx(500 + core, rel=1e-6)
    assert e.bound == "NoC (few cores)"
    assert e.terms["per_core"] == pytest.approx(3000, rel=1e-6)


def test_sfpu_costs_by_unary_op():
    # exp has its own constant, erf is heavy, relu is light: the compute stage differs by these costs.
    t = _t((1, 1, 32, 32 * 64), "bf16", buf="l1", mem="height_sharded", shard=(32, 32), shard_cores=64)
    hw = for_device("wormhole_b0", 64)
    c = _constants()

    def ns(ops):
        return predict(DeviceOp("UnaryDeviceOperation", "wormhole_b0", 64, 64, (t,), (t,),
                                attrs={"unary_ops": ops}), hw, c).ns

    # One owned L1 tile per core: no NoC stages; core = compute only.
    assert ns(["relu"]) == pytest.approx(500 + 50)
    assert ns(["exp"]) == pytest.approx(500 + 50 + 2000)
    assert ns(["erf"]) == pytest.approx(500 + 50 + 1500)
    assert ns(["exp", "erf"]) == pytest.approx(500 + 50 + 3500)


# ----------------------------------------------------------------------------- data movement


def test_interleaved_to_sharded_tiles():
    # 131072x64 bfp8 from DRAM into (1280, 64) shards on 103 Blackhole cores: 40 x 2 = 80 tiles per core
    # read in one batch: 529 + 80 * 55.81 = 4993.8 cycles = 3699.1 ns.  DRAM: 8192 tiles read,
    # R = 8192 * 1152 = 9,437,184 B; max(R / 358.4, R / 336) = 28086.9 ns -> DRAM-bound.
    src = _t((1, 1, 131072, 64))
    out = _t((1, 1, 131072, 64), buf="l1", mem="height_sharded", shard=(1280, 64), shard_cores=103)
    op = DeviceOp("InterleavedToShardedDeviceOperation", "blackhole", 103, 110, (src,), (out,))
    e = predict(op, for_device("blackhole", 110, board="p100"), _constants())
    assert e.terms["noc"] == pytest.approx((529 + 80 * 16 / 0.387 * 1.35) / 1.35, rel=1e-6)
    assert e.ns == pytest.approx(500 + 9437184 / 336, rel=1e-6)
    assert e.bound == "DRAM"


def test_move_copies_the_shard_in_l1():
    # Move of 832590x8 bf16 sticks over 110 cores: 13,321,440 B / 110 = 121,104 B per core
    # at l1_copy_bytes 48 B/cycle = 2523 cycles = 1868.9 ns; no DRAM.
    t = _t((1, 1, 832590, 8), "bf16", "row_major", "l1", "height_sharded", (7569, 8), 110)
    op = DeviceOp("MoveDeviceOperation", "blackhole", 110, 110, (t,), (t,))
    e = predict(op, for_device("blackhole", 110, board="p100"), _constants())
    assert e.ns == pytest.approx(500 + 832590 * 8 * 2 / 110 / 48 / 1.35, rel=1e-6)
    assert e.terms["dram"] == 0 and e.dram_bytes == 0


# ----------------------------------------------------------------------------- matmul


def _mm_1d():
    # The Blackhole trace's 8192x128 @ 128x512 + bias on 86 cores with a 1D config (per core 3 x 16 tiles).
    a = _t((1, 1, 8192, 128), buf="l1", mem="height_sharded")
    b = _t((1, 1, 128, 512))
    bias = _t((1, 1, 1, 512))
    out = _t((1, 1, 8192, 512), buf="l1", mem="height_sharded", shard=(96, 512), shard_cores=86)
    pc = {"kind": "mcast_1d", "in0_block_w": 4, "out_subblock_h": 1, "out_subblock_w": 4, "per_core_m": 3,
          "per_core_n": 16, "grid": (11, 8), "mcast_in0": False, "fuse_batch": True}
    return DeviceOp("Matmul", "blackhole", 86, 110, (a, b, bias), (out,), "LoFi", True, {"program_config": pc})


def test_matmul_plan_from_program_config():
    p = matmul_plan(_mm_1d())
    assert (p.batches, p.m, p.n, p.k, p.in0_block_w, p.subblock) == (1, 3, 16, 4, 4, (1, 4))
    assert p.in0_local and p.multicast and p.k_blocks == 1


def test_matmul_1d_sharded_compute_bound():
    # One K block.  read = DRAM latency 529 + in1 64 tiles * 55.81 + mm_block 1000 = 5100.84 cycles.
    # compute: 3 * 4 = 12 subblocks (1x4) * 4 K tiles * max(1*4*20*1 LoFi = 80, (1+4)*30 = 150) = 7200,
    # + fused bias 48 tiles * 50 = 2400 -> 9600.  Output owned (L1 shard): no write stage.
    # core = 5100.84 + 9600 = 14700.84 cycles = 10889.5 ns.
    # DRAM (reads then writes): in1 64 + bias 16 tiles of 1152 B = 92,160 B / (0.8 * 448) / 0.6 = 428.6 ns.
    e = predict(_mm_1d(), for_device("blackhole", 110, board="p100"), _constants())
    read = 529 + 64 * 16 / 0.387 * 1.35 + 1000
    assert e.ns == pytest.approx(500 + (read + 9600) / 1.35, rel=1e-6)
    assert e.terms["dram"] == pytest.approx(92160 / 358.4 / 0.6, rel=1e-6)
    assert e.bound == "compute"
    assert e.flops == pytest.approx(2 * 8192 * 128 * 512)


def test_matmul_auto_config_narrow_and_2d():
    # No program config: a tall narrow output (32768x32, ratio > 8) runs 1D over the cores,
    # ceil(1024 / 103) = 10 tile rows per core, in0_block_w 2 (Kt = 8 even).
    a, b, o = _t((1, 1, 32768, 256)), _t((1, 1, 256, 32)), _t((1, 1, 32768, 32))
    p = matmul_plan(DeviceOp("Matmul", "blackhole", 103, 110, (a, b), (o,), "LoFi", True))
    assert (p.m, p.n, p.k, p.in0_block_w, p.k_blocks) == (10, 1, 8, 2, 4)
    # A square-ish output on 64 cores: an 8x8 grid, 8 x 2 tiles per core, in0_block_w = 64 / 8.
    a, b, o = _t((1, 1, 2048, 2048)), _t((1, 1, 2048, 512)), _t((1, 1, 2048, 512))
    p = matmul_plan(DeviceOp("Matmul", "blackhole", 64, 110, (a, b), (o,), "LoFi", True))
    assert (p.m, p.n, p.in0_block_w, p.k_blocks, p.subblock) == (8, 2, 8, 8, (2, 2))
    # A batched b (bmm) on one core: the core loops over the 20 batches.
    a, b, o = _t((1, 20, 32, 64), "bf16"), _t((1, 20, 64, 32), "bf16"), _t((1, 20, 32, 32), "bf16")
    p = matmul_plan(DeviceOp("Matmul", "wormhole_b0", 1, 64, (a, b), (o,), "HiFi4", True))
    assert (p.batches, p.m, p.n, p.k, p.multicast) == (20, 1, 1, 2, False)


def test_matmul_needs_two_operands():
    t = _t((1, 1, 32, 32))
    with pytest.raises(UnmodeledDeviceOp):
        predict(DeviceOp("Matmul", "blackhole", 1, 110, (t,), (t,)), for_device("blackhole", 110, board="p100"), _constants())


# ----------------------------------------------------------------------------- unknown ops, families


def test_unknown_op_code_is_reported_not_guessed():
    t = _t((1, 1, 32, 32))
    op = DeviceOp("MeshPartitionDeviceOperation", "blackhole", 8, 110, (t,), (t,))
    with pytest.raises(UnknownDeviceOp) as err:
        predict(op, for_device("blackhole", 110, board="p100"), _constants())
    assert err.value.op_code == "MeshPartitionDeviceOperation"
    with pytest.raises(UnknownDeviceOp):
        family("MeshPartitionDeviceOperation")
    assert family("Conv2dDeviceOperation") == "conv" and family("MinimalMatmulOp") == "matmul"


def test_every_test_row_predicts_with_the_packaged_constants():
    # The committed constants.json loads and every device op of the test traces gets a positive time.
    c = K.load()
    for name in ("cost_wh_clip_encoder_2.csv", "cost_bh_p100_dlv3.csv"):
        for row in read_profile(DATA / name):
            e = predict(row.op, for_device(row.op.arch, row.op.grid_cores), c)
            assert e.ns > 0 and math.isfinite(e.ns), row.op.op_code
            assert e.bound.split(" (")[0] in ("DRAM", "NoC", "compute", "per-core", "overhead")


# ----------------------------------------------------------------------------- constants


def test_constants_prefer_the_arch_value(tmp_path):
    data = {"meta": {"date": "x"}, "constants": [
        {"name": "launch_ns", "value": 2000, "unit": "ns", "arch": "wormhole_b0"},
        {"name": "launch_ns", "value": 400, "unit": "ns", "arch": None},
        {"name": "eltwise_tile", "value": 50, "unit": "cycles/tile", "arch": None}]}
    p = tmp_path / "c.json"
    p.write_text(json.dumps(data))
    c = K.load(p)
    assert c.get("launch_ns", "wormhole_b0") == 2000 and c.get("launch_ns", "blackhole") == 400
    assert c.with_values({("eltwise_tile", None): 60}).get("eltwise_tile", "blackhole") == 60
    assert c.get("eltwise_tile", "blackhole") == 50
    with pytest.raises(K.ConstantsError, match="mm_block"):
        c.get("mm_block", "blackhole")


def test_constants_errors(tmp_path):
    with pytest.raises(K.ConstantsError, match="cannot read"):
        K.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(K.ConstantsError, match="not JSON"):
        K.load(bad)
    bad2 = tmp_path / "bad2.json"
    bad2.write_text(json.dumps({"constants": [{"name": "x", "value": "fast"}]}))
    with pytest.raises(K.ConstantsError, match="numeric"):
        K.load(bad2)


def test_packaged_constants_have_provenance():
    c = K.load()
    assert c.meta.get("written_by") == "benchmarks/fit_cost.py"
    for e in c.entries:
        assert e.unit and e.description and e.provenance.get("how") in ("fitted", "prior"), e.name
        if e.provenance["how"] == "fitted":
            assert e.provenance["rows"] > 0 and e.provenance["data"], e.name


# ----------------------------------------------------------------------------- accuracy helpers


def test_ape_and_score():
    assert ape(110, 100) == pytest.approx(10.0)
    assert ape(50, 100) == pytest.approx(50.0)
    s = score([(110, 100), (50, 100), (100, 100)])
    assert (s.rows, s.median_ape, s.mape) == (3, pytest.approx(10.0), pytest.approx(20.0))
    assert score([]) is None
    with pytest.raises(ValueError):
        ape(1, 0)


def test_summarize_groups_by_op_code_with_pm_ideal():
    rows = [Compared("Matmul", 100, 110, 50), Compared("Matmul", 200, 180, 200), Compared("Unary", 10, 12, 1),
            Compared("Unary", None, 12, 1), Compared("AllGather", 30, None, None)]
    per_op, total = summarize(rows)
    assert [s.op_code for s in per_op] == ["Matmul", "AllGather", "Unary"]  # by measured time
    mm = per_op[0]
    assert (mm.rows, mm.timed, mm.predicted) == (2, 2, 2)
    assert mm.model.median_ape == pytest.approx(10.0) and mm.pm_ideal.mape == pytest.approx(25.0)
    assert per_op[1].model is None and per_op[1].predicted == 0
    assert (total.rows, total.timed, total.predicted) == (5, 4, 3)
    assert total.measured_ns == 310 and total.predicted_ns == 302


# ----------------------------------------------------------------------------- bad input (review)


def _csv_with(tmp_path, op_code="Matmul", **cells):
    """The first ``op_code`` row of the WH test trace with some cells replaced, as a one-row CSV (line 2)."""
    import csv

    with open(DATA / "cost_wh_clip_encoder_2.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    row = next(r for r in rows if r["OP CODE"] == op_code)
    row.update({k.replace("__", " "): v for k, v in cells.items()})
    p = tmp_path / "row.csv"
    with open(p, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerow(row)
    return p


@pytest.mark.parametrize("col, value, message", [
    ("CORE COUNT", "1e30", "CORE COUNT is 1e\\+30: expected 1 to 100,000"),
    ("CORE COUNT", "0", "CORE COUNT is 0"),
    ("AVAILABLE WORKER CORE COUNT", "0", "AVAILABLE WORKER CORE COUNT is 0"),
    ("AVAILABLE WORKER CORE COUNT", "-5", "AVAILABLE WORKER CORE COUNT is -5"),
    ("AVAILABLE WORKER CORE COUNT", "200000", "AVAILABLE WORKER CORE COUNT is 200000"),
    ("DEVICE KERNEL DURATION [ns]", "inf", "not a finite number"),
    ("DEVICE KERNEL DURATION [ns]", "nan", "not a finite number"),
    ("PM IDEAL [ns]", "-inf", "not a finite number"),
    ("OUTPUT_0_X_PAD[LOGICAL]", "0[0]", "no output tensor"),
    ("OUTPUT_0_LAYOUT", "SIDEWAYS", "OUTPUT_0_LAYOUT is 'SIDEWAYS'"),
    ("OUTPUT_0_MEMORY", "DEV_0_HBM", "OUTPUT_0_MEMORY is 'DEV_0_HBM'"),
    ("ATTRIBUTES", "not a map", "ATTRIBUTES is not"),
])
def test_bad_rows_are_profile_errors_with_their_line(tmp_path, col, value, message):
    from ttanalyze.cost.profile import ProfileError

    p = _csv_with(tmp_path, **{col.replace(" ", "__"): value})
    with pytest.raises(ProfileError, match=message) as err:
        read_profile(p)
    assert err.value.line == 2 and str(err.value).startswith(f"{p}:2: error: ")
    # Without strict, the row is skipped and reported with its line, reason and measured time.
    from ttanalyze.cost.profile import load_profile

    prof = load_profile(p)
    assert prof.rows == [] and len(prof.skipped) == 1
    assert prof.skipped[0].line == 2 and re.search(message, prof.skipped[0].reason)


def test_a_shard_grid_with_odd_coordinates_is_ignored(tmp_path):
    # A core range whose x is not a number: the shard's cores are unknown (None), not a TypeError.
    attrs = ("{'output_mem_config': 'MemoryConfig(memory_layout=TensorMemoryLayout::HEIGHT_SHARDED;"
             "buffer_type=BufferType::L1;shard_spec=ShardSpec(grid={[(x=a;y=0) - (x=10;y=9)]};shape={96; 512}))'}")
    from ttanalyze.cost.profile import _grid_cores, parse_value

    assert _grid_cores(parse_value("{[(x=a;y=0) - (x=10;y=9)]}")) is None
    assert _grid_cores(parse_value("{[(x=0;y=0) - (x=10;y=9)]}")) == 110
    row = read_profile(_csv_with(tmp_path, ATTRIBUTES=attrs))[0]
    assert predict(row.op, for_device(row.op.arch, row.op.grid_cores), _constants()).ns > 0


def test_huge_core_counts_do_not_hang():
    # _split_2d walks divisors up to isqrt(cores); the model refuses core counts beyond MAX_CORES.
    from ttanalyze.cost.model import _split_2d

    assert _split_2d(64, 64, 64) == (8, 8, 8)
    assert _split_2d(4, 1000, 99_991) == (4, 1, 99_991)  # a prime: 1 x n or n x 1
    a, b = _t((1, 1, 2048, 2048)), _t((1, 1, 2048, 2048))
    with pytest.raises(UnmodeledDeviceOp, match="cores"):
        predict(DeviceOp("Matmul", "blackhole", 10**30, 110, (a, b), (a,)), for_device("blackhole", 110, board="p100"), _constants())


# ----------------------------------------------------------------------------- constants (review)


def _write_constants(tmp_path, **values):
    entries = [{"name": n, "value": v, "unit": "", "arch": None} for n, v in {**VALUES, **values}.items()]
    p = tmp_path / "my_constants.json"
    p.write_text(json.dumps({"meta": {}, "constants": entries}))
    return p


@pytest.mark.parametrize("name, value, message", [
    ("dram_read_eff", 0, "'dram_read_eff' is 0, it must be above 0"),
    ("halo_bytes", -1.0, "must be above 0"),
    ("launch_ns", -100, "'launch_ns' is -100, it must be finite and not negative"),
    ("eltwise_tile", float("nan"), "'eltwise_tile' is nan"),
    ("mm_block", float("inf"), "'mm_block' is inf"),
])
def test_constants_reject_non_finite_and_non_positive_values(tmp_path, name, value, message):
    p = _write_constants(tmp_path, **{name: value})
    with pytest.raises(K.ConstantsError, match=message) as err:
        K.load(p)
    assert str(p) in str(err.value)


def test_zero_is_allowed_where_the_model_does_not_divide(tmp_path):
    c = K.load(_write_constants(tmp_path, launch_ns=0.0, fill_byte=0.0))
    assert c.get("launch_ns", "blackhole") == 0.0


def test_a_missing_constant_names_the_constants_file(tmp_path):
    values = dict(VALUES)
    del values["mm_block"]
    entries = [{"name": n, "value": v} for n, v in values.items()]
    p = tmp_path / "mine.json"
    p.write_text(json.dumps({"meta": {}, "constants": entries}))
    with pytest.raises(K.ConstantsError, match=f"'mm_block' is missing for blackhole \\({p}\\)"):
        K.load(p).get("mm_block", "blackhole")


# ----------------------------------------------------------------------------- stated assumptions (review)


def test_reduce_dims_by_rank():
    from ttanalyze.cost.model import reduce_dim

    assert reduce_dim("w", 4) == "w" and reduce_dim("HW", 4) == "hw" and reduce_dim(None, 4) is None
    assert reduce_dim([2], 3) == "w" and reduce_dim(2, 4) == "h" and reduce_dim([-1, -2], 3) == "hw"
    assert reduce_dim([3], 4) == "w" and reduce_dim(1, 3) == "h"
    with pytest.raises(UnmodeledDeviceOp, match="neither H nor W"):
        reduce_dim([0], 3)
    # [1, 64, 4096] (Ht 2, Wt 128) on one core: W (dim 2 of a 3D tensor) streams 2 x 128 tiles in 2 rows,
    # H (dim 1) 128 rows of 2 tiles: per-row work differs, so the two must cost differently.
    x = _t((1, 64, 4096), dtype="bf16")
    hw, c = for_device("wormhole_b0", 64), _constants()
    w_list = predict(DeviceOp("ReduceDeviceOperation", "wormhole_b0", 1, 64, (x,), (_t((1, 64, 32)),), "HiFi4",
                              attrs={"dim": [2]}), hw, c)
    w_enum = predict(DeviceOp("ReduceDeviceOperation", "wormhole_b0", 1, 64, (x,), (_t((1, 64, 32)),), "HiFi4",
                              attrs={"dim": "w"}), hw, c)
    h = predict(DeviceOp("ReduceDeviceOperation", "wormhole_b0", 1, 64, (x,), (_t((1, 32, 4096)),), "HiFi4",
                         attrs={"dim": 1}), hw, c)
    assert w_list.ns == w_enum.ns and h.ns != w_list.ns and not w_list.notes
    none = predict(DeviceOp("ReduceDeviceOperation", "wormhole_b0", 1, 64, (x,), (_t((1, 64, 32)),), "HiFi4"), hw, c)
    assert none.ns == w_enum.ns and none.notes == ("reduce dim not given: W assumed",)


def test_unary_names_and_unlisted_unary_ops_are_noted():
    from ttanalyze.cost.model import unary_name

    assert unary_name("clamp_scalar") == "clamp" and unary_name("ttnn.exp") == "exp" and unary_name("relu") == "relu"
    t = _t((1, 1, 1024, 1024), dtype="bf16")
    hw, c = for_device("wormhole_b0", 64), _constants()

    def unary(name):
        return predict(DeviceOp("UnaryDeviceOperation", "wormhole_b0", 64, 64, (t,), (t,),
                                attrs={"unary_ops": [name]}), hw, c)

    light, clamp, heavy, odd = unary("relu"), unary("clamp_scalar"), unary("sigmoid"), unary("frobnicate")
    assert clamp.ns == light.ns and not clamp.notes and not heavy.notes  # clamp is light, sigmoid listed heavy
    assert odd.ns == heavy.ns and odd.notes == ("unary op 'frobnicate' is in no SFPU list: costed as sfpu_heavy",)


def test_other_defaults_are_noted():
    hw, c = for_device("wormhole_b0", 64), _constants()
    t = _t((1, 1, 256, 256), dtype="bf16")
    odd = TensorInfo((1, 1, 256, 256), (1, 1, 256, 256), "f8e4m3", "tile", "dram")
    e = predict(DeviceOp("UnaryDeviceOperation", "wormhole_b0", 64, 64, (odd,), (t,)), hw, c)
    assert e.notes == ("dtype f8e4m3: 2 bytes per element assumed",)
    mm = predict(DeviceOp("Matmul", "wormhole_b0", 64, 64, (t, t), (t,)), hw, c)
    assert mm.notes == ("math fidelity not given: LoFi (1 pass) assumed",)
    mm = predict(DeviceOp("Matmul", "wormhole_b0", 64, 64, (t, t), (t,), "HiFi2"), hw, c)
    assert not mm.notes
    mini = predict(DeviceOp("MinimalMatmulOp", "wormhole_b0", 64, 64, (t, t), (t,), "HiFi2",
                            attrs={"program_config": {"kind": "minimal"}}), hw, c)
    assert mini.notes == ("MinimalMatmul grid not given: 8x8 assumed",)
    tr = predict(DeviceOp("TransposeDeviceOperation", "wormhole_b0", 64, 64, (t,), (t,)), hw, c)
    assert tr.notes == ("transpose dim not given: WH assumed",)
    assert not predict(DeviceOp("TransposeDeviceOperation", "wormhole_b0", 64, 64, (t,), (t,),
                                attrs={"dim": "hc"}), hw, c).notes
    div = predict(DeviceOp("BinaryNgDeviceOperation", "wormhole_b0", 64, 64, (t, t), (t,),
                           attrs={"binary_op": "divide"}), hw, c)
    assert div.notes == ("binary op 'divide' costed as one FPU tile op (eltwise_tile)",)
    assert not predict(DeviceOp("BinaryNgDeviceOperation", "wormhole_b0", 64, 64, (t, t), (t,),
                                attrs={"binary_op": "add"}), hw, c).notes


def test_transpose_dim_from_a_permutation():
    hw, c = for_device("wormhole_b0", 64), _constants()
    t = _t((1, 64, 256, 256), dtype="bf16")

    def tr(**attrs):
        return predict(DeviceOp("TransposeDeviceOperation", "wormhole_b0", 64, 64, (t,), (t,), attrs=attrs), hw, c)

    assert tr(perm=(0, 2, 1, 3)).ns == tr(dim="hc").ns != tr(dim="wh").ns
    assert tr(perm=(0, 1, 3, 2)).ns == tr(dim="wh").ns and not tr(perm=(0, 1, 3, 2)).notes
    assert tr(perm=(2, 0, 1, 3)).notes == ("transpose dim not given: WH assumed",)


def test_empty_tensors_are_not_costed():
    t = _t((1, 1, 32, 32))
    empty = TensorInfo((1, 1, 0, 32), (1, 1, 0, 32), "bf16", "tile", "dram")
    for code in ("Conv2dDeviceOperation", "ReduceDeviceOperation", "LayerNormDeviceOperation"):
        with pytest.raises(UnmodeledDeviceOp, match="empty tensor"):
            predict(DeviceOp(code, "blackhole", 1, 110, (empty, t), (t,)), for_device("blackhole", 110, board="p100"), _constants())
