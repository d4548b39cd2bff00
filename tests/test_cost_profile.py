"""The profiler-trace reader on every era of the ops_perf_results format, and ``cost --measured`` on it.

Synthetic rows follow tt-metal's ``tools/tracy/process_ops_logs.py`` (``OPS_CSV_HEADER``;
``io_tensor_to_csv``: ``<IO>_<i>_<W|Z|Y|X>_PAD[LOGICAL]`` since 2024-12, ``<IO>_<i>_<W|Z|Y|X>``
before; ``DEVICE ARCH`` and ``AVAILABLE WORKER CORE COUNT`` since 2025-10); excerpts of public
traces are in tests/data (tests/data/cost_profiles.md says where each row comes from).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ttanalyze.cost.accuracy import compare_profile
from ttanalyze.cost.profile import ProfileError, load_profile, read_profile

DATA = Path(__file__).parent / "data"

BASE = ["OP CODE", "OP TYPE", "GLOBAL CALL COUNT", "DEVICE ID", "ATTRIBUTES", "MATH FIDELITY", "CORE COUNT",
        "DEVICE FW START CYCLE", "DEVICE FW END CYCLE", "DEVICE FW DURATION [ns]", "DEVICE KERNEL DURATION [ns]"]


def _tensor_cols(io: str, i: int, suffix: str) -> list[str]:
    return [f"{io}_{i}_{d}{suffix}" for d in "WZYX"] + [f"{io}_{i}_{f}" for f in ("LAYOUT", "DATATYPE", "MEMORY")]


def _write(tmp_path: Path, header: list[str], rows: list[dict], name: str = "t.csv") -> Path:
    p = tmp_path / name
    with open(p, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    return p


def _unary_row(suffix: str, shape=("1", "1", "1024", "1024"), clock_ghz: float = 1.0, **extra) -> dict:
    r = {"OP CODE": "UnaryDeviceOperation", "OP TYPE": "tt_dnn_device", "GLOBAL CALL COUNT": "1024",
         "DEVICE ID": "0", "ATTRIBUTES": "{'op_chain': '{UnaryWithParam(op_type=UnaryOpType::RELU;param={})}'}",
         "MATH FIDELITY": "HiFi4", "CORE COUNT": "64", "DEVICE FW START CYCLE": "1000",
         "DEVICE FW END CYCLE": str(1000 + int(20000 * clock_ghz)), "DEVICE FW DURATION [ns]": "20000",
         "DEVICE KERNEL DURATION [ns]": "19000"}
    for io in ("INPUT", "OUTPUT"):
        for d, v in zip("WZYX", shape):
            r[f"{io}_0_{d}{suffix}"] = v
        r.update({f"{io}_0_LAYOUT": "TILE", f"{io}_0_DATATYPE": "BFLOAT16", f"{io}_0_MEMORY": "DEV_0_DRAM_INTERLEAVED"})
    r.update(extra)
    return r


@pytest.mark.parametrize("suffix", ["", "_PAD[LOGICAL]"])
@pytest.mark.parametrize("ghz, arch", [(1.0, "wormhole_b0"), (1.35, "blackhole")])
def test_older_eras_without_device_arch_infer_it_from_the_clock(tmp_path, suffix, ghz, arch):
    header = BASE + _tensor_cols("INPUT", 0, suffix) + _tensor_cols("OUTPUT", 0, suffix)
    shape = ("1", "1", "1000", "1024") if suffix == "" else ("1[1]", "1[1]", "1024[1000]", "1024[1024]")
    p = _write(tmp_path, header, [_unary_row(suffix, shape, ghz)])
    prof = load_profile(p)
    assert not prof.skipped and prof.arch == arch and prof.rows[0].op.arch == arch
    t = prof.rows[0].op.outputs[0]
    assert t.padded == (1, 1, 1024, 1024) and t.shape == (1, 1, 1000, 1024)  # the older columns are tile-padded
    assert any("inferred from the AI clock" in n for n in prof.notes)
    assert any("AVAILABLE WORKER CORE COUNT" in n for n in prof.notes) and prof.rows[0].op.grid_cores == 64
    # --arch wins over the clock
    assert load_profile(p, arch="blackhole").rows[0].op.arch == "blackhole"


def test_no_arch_and_no_clock_is_a_clear_error(tmp_path):
    header = [h for h in BASE if "FW" not in h] + _tensor_cols("INPUT", 0, "") + _tensor_cols("OUTPUT", 0, "")
    row = {k: v for k, v in _unary_row("", ("1", "1", "32", "32")).items() if k in header}
    p = _write(tmp_path, header, [row])
    with pytest.raises(ProfileError, match="give --arch"):
        load_profile(p)
    assert load_profile(p, arch="wormhole_b0").rows[0].op.arch == "wormhole_b0"


def test_attributes_none_empty_values_nd_sharded_empty_optional_tensors_and_host_tensors(tmp_path):
    suffix = "_PAD[LOGICAL]"
    header = (BASE + ["DEVICE ARCH", "AVAILABLE WORKER CORE COUNT"] + _tensor_cols("INPUT", 0, suffix)
              + _tensor_cols("INPUT", 1, suffix) + _tensor_cols("OUTPUT", 0, suffix) + _tensor_cols("OUTPUT", 1, suffix)
              + ["Avg FPU util on full grid (%)"])
    shape = ("1[1]", "1[1]", "1024[1024]", "1024[1024]")
    base = _unary_row(suffix, shape, **{"DEVICE ARCH": "blackhole", "AVAILABLE WORKER CORE COUNT": "110",
                                        "Avg FPU util on full grid (%)": "12.5"})
    rows = [dict(base, ATTRIBUTES="None"),
            dict(base, ATTRIBUTES="{'memory_config': ''; 'dim': ''}"),
            dict(base, **{"INPUT_0_MEMORY": "DEV_0_DRAM_ND_SHARDED"}),
            dict(base, **{"INPUT_1_W_PAD[LOGICAL]": "1[1]", "INPUT_1_Z_PAD[LOGICAL]": "0[0]",
                          "INPUT_1_Y_PAD[LOGICAL]": "32[32]", "INPUT_1_X_PAD[LOGICAL]": "32[32]",
                          "INPUT_1_LAYOUT": "TILE", "INPUT_1_DATATYPE": "BFLOAT16",
                          "INPUT_1_MEMORY": "DEV_0_DRAM_INTERLEAVED"}),
            dict(base, **{"INPUT_1_W_PAD[LOGICAL]": "1", "INPUT_1_Z_PAD[LOGICAL]": "1", "INPUT_1_Y_PAD[LOGICAL]": "1",
                          "INPUT_1_X_PAD[LOGICAL]": "8", "INPUT_1_LAYOUT": "ROW_MAJOR", "INPUT_1_DATATYPE": "UINT32",
                          "INPUT_1_MEMORY": "HOST"}),
            dict(base, **{"OUTPUT_1_W_PAD[LOGICAL]": "1[1]", "OUTPUT_1_Z_PAD[LOGICAL]": "1[1]",
                          "OUTPUT_1_Y_PAD[LOGICAL]": "32[32]", "OUTPUT_1_X_PAD[LOGICAL]": "32[32]",
                          "OUTPUT_1_LAYOUT": "TILE", "OUTPUT_1_DATATYPE": "INT16",
                          "OUTPUT_1_MEMORY": "DEV_0_L1_INTERLEAVED"})]
    prof = load_profile(_write(tmp_path, header, rows))
    assert not prof.skipped and len(prof.rows) == 6
    assert prof.rows[2].op.inputs[0].memory_layout == "nd_sharded" and prof.rows[2].op.inputs[0].in_dram
    assert len(prof.rows[3].op.inputs) == 1 and len(prof.rows[4].op.inputs) == 1  # empty / host inputs left out
    assert len(prof.rows[5].op.outputs) == 2 and prof.rows[5].op.outputs[1].dtype == "int16"


def test_bad_rows_are_skipped_and_reported_strict_fails_fast(tmp_path, cli):
    suffix = "_PAD[LOGICAL]"
    header = BASE + ["DEVICE ARCH"] + _tensor_cols("INPUT", 0, suffix) + _tensor_cols("OUTPUT", 0, suffix)
    shape = ("1[1]", "1[1]", "1024[1024]", "1024[1024]")
    good = _unary_row(suffix, shape, **{"DEVICE ARCH": "wormhole_b0"})
    bad = dict(good, **{"OUTPUT_0_LAYOUT": "DIAGONAL", "DEVICE KERNEL DURATION [ns]": "57000"})
    p = _write(tmp_path, header, [good, bad, dict(good, **{"CORE COUNT": "0"})])
    prof = load_profile(p)
    assert len(prof.rows) == 1 and [s.line for s in prof.skipped] == [3, 4]
    assert prof.skipped[0].measured_ns == 57000 and "OUTPUT_0_LAYOUT" in prof.skipped[0].reason
    with pytest.raises(ProfileError, match="OUTPUT_0_LAYOUT") as e:
        load_profile(p, strict=True)
    assert e.value.line == 3
    r = cli("cost", "--measured", p)
    assert r.exit_code == 0 and f"{p}:3: warning: row skipped (UnaryDeviceOperation, 60.0% of the measured time)" \
        in r.output.replace("\n", " ")
    doc = json.loads(cli("cost", "--measured", p, "-f", "json").stdout)["measured"]
    assert [s["line"] for s in doc["skipped"]] == [3, 4]
    assert doc["skipped"][0]["share_of_measured"] == pytest.approx(57000 / (19000 + 57000 + 19000))
    assert doc["coverage"] == pytest.approx(19000 / 95000)
    assert cli("cost", "--measured", p, "--strict").exit_code == 2


def test_gzip_traces_read_like_plain_ones(tmp_path):
    import gzip

    src = DATA / "cost_bh_p100_dlv3.csv"
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    assert [r.signature for r in read_profile(gz)] == [r.signature for r in read_profile(src)]


def test_public_trace_excerpts_of_every_era_read_without_a_skip():
    # Excerpts of tt-perf-report's tests/data traces (tests/data/cost_profiles.md).
    for name, arch, n in (("cost_era_2025_09.csv", "blackhole", 16), ("cost_era_old_columns.csv", "blackhole", 8),
                          ("cost_bh_8xp150_excerpt.csv", "blackhole", 52), ("cost_bh20_oft_excerpt.csv", "blackhole", 9)):
        prof = load_profile(DATA / name)
        assert not prof.skipped, (name, prof.skipped[:2])
        assert len(prof.rows) == n and {r.op.arch for r in prof.rows} == {arch}


def test_multi_device_totals_and_the_board(cli):
    prof = load_profile(DATA / "cost_bh_8xp150_excerpt.csv")
    cmp = compare_profile(prof, board="p150")
    assert [d.device_id for d in cmp.devices] == [0, 4]
    slow = cmp.slowest
    assert slow.measured_ns == max(d.measured_ns for d in cmp.devices)
    assert cmp.measured_ns == pytest.approx(sum(r.measured_ns for r in prof.rows))
    no_board = compare_profile(prof)
    assert any("board not given" in n for n in no_board.notes)
    with pytest.raises(ValueError, match="board 'n150' is a wormhole_b0 board"):
        compare_profile(prof, board="n150")
    r = cli("cost", "--measured", DATA / "cost_bh_8xp150_excerpt.csv", "--board", "p150")
    assert r.exit_code == 0 and "program time (slowest device" in r.output
    r = cli("cost", "--measured", DATA / "cost_bh_8xp150_excerpt.csv", "--board", "n150")
    assert r.exit_code == 2 and "error:" in r.output


def test_rows_whose_device_start_precedes_the_previous_end_are_left_untimed(tmp_path):
    # tt-perf-report tests/data/bh_invalid_trace_decode_window.csv: in a traced decode window some rows carry a
    # DEVICE FW START CYCLE from before the previous op's end (OP TO OP LATENCY about -6.9e9 ns), which makes their
    # kernel duration about 6.9 s; the rows around them are valid.
    header = BASE + ["OP TO OP LATENCY [ns]"] + _tensor_cols("INPUT", 0, "") + _tensor_cols("OUTPUT", 0, "")
    rows = [_unary_row("", **{"OP TO OP LATENCY [ns]": "550"}),
            _unary_row("", **{"OP TO OP LATENCY [ns]": "-6924428063.0", "DEVICE KERNEL DURATION [ns]": "6923932741.0"}),
            _unary_row("", **{"OP TO OP LATENCY [ns]": ""})]
    prof = load_profile(_write(tmp_path, header, rows), arch="blackhole")
    assert not prof.skipped and [r.measured_ns for r in prof.rows] == [19000, None, 19000]
    assert any("negative OP TO OP LATENCY" in n and "line(s) 3" in n for n in prof.notes)
